/*
 * tbr-test-known-mrt: two color buffers (MRT). A GLSL ES 1.00 shader writing
 * gl_FragColor makes st/mesa set TGSI_PROPERTY_FS_COLOR0_WRITES_ALL_CBUFS, and softpipe's
 * blend stage then uses output color 0 for every color buffer (sp_quad_blend.c
 * blend_fallback, write_all); a GLSL ES 3.00 shader writes two different outputs with
 * blending on. Captured by functional.mrt (tests/functional/mrt.sh).
 *
 * 64x48 pbuffer; an FBO with two RGBA8 textures as color attachments 0 and 1 and
 * glDrawBuffers(ATTACHMENT0, ATTACHMENT1). Each frame f:
 *   1. clear both to (0.1, 0.1, 0.2, 1);
 *   2. gl_FragColor = u_color (not representable in 8 bits: packed colors, exact
 *      floats for the blend that follows) over the whole target;
 *   3. o0 = u_a, o1 = u_b with SRC_ALPHA / ONE_MINUS_SRC_ALPHA blending over the top half;
 * then both textures are drawn on the window: attachment 0 on the left half,
 * attachment 1 on the right half.
 */
#include "known_app.h"

#include <stdio.h>
#include <string.h>

#define W                     64
#define H                     48
#define GL_COLOR_ATTACHMENT1_ 0x8CE1
GL_APICALL void GL_APIENTRY glDrawBuffers(GLsizei n, const GLenum *bufs); /* GLES 3.0 */

static const char *vs100 = "attribute vec3 a_pos;\n"
                           "varying vec2 v_tc;\n"
                           "void main() { v_tc = a_pos.xy * 0.5 + 0.5; gl_Position = vec4(a_pos, 1.0); }\n";
static const char *fs_fragcolor = "precision mediump float;\n"
                                  "uniform vec4 u_color;\n"
                                  "void main() { gl_FragColor = u_color; }\n";
static const char *vs300 = "#version 300 es\n"
                           "layout(location = 0) in vec3 a_pos;\n"
                           "void main() { gl_Position = vec4(a_pos, 1.0); }\n";
static const char *fs_two = "#version 300 es\n"
                            "precision mediump float;\n"
                            "uniform vec4 u_a;\n"
                            "uniform vec4 u_b;\n"
                            "layout(location = 0) out vec4 o0;\n"
                            "layout(location = 1) out vec4 o1;\n"
                            "void main() { o0 = u_a; o1 = u_b; }\n";
static const char *fs_tex = "precision mediump float;\n"
                            "uniform sampler2D u_tex;\n"
                            "varying vec2 v_tc;\n"
                            "void main() { gl_FragColor = texture2D(u_tex, v_tc); }\n";

static void rect(int x0, int y0, int x1, int y1) { known_rect_px(x0, y0, x1, y1, 0.5f, W, H); }

int main(void)
{
    struct known_app app;
    known_app_init(&app, "known_mrt", W, H, 0);
    static const char *const attribs[] = {"a_pos", NULL};
    GLuint p_all = known_program(&app, vs100, fs_fragcolor, attribs);
    GLuint p_two = known_program(&app, vs300, fs_two, attribs);
    GLuint p_tex = known_program(&app, vs100, fs_tex, attribs);
    glEnableVertexAttribArray(0);

    GLuint tex[2], fbo;
    glGenTextures(2, tex);
    for (int i = 0; i < 2; i++) {
        glBindTexture(GL_TEXTURE_2D, tex[i]);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, W, H, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    }
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex[0], 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT1_, GL_TEXTURE_2D, tex[1], 0);
    const GLenum bufs[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1_};
    glDrawBuffers(2, bufs);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        known_die(&app, "FBO with two color attachments");
    glViewport(0, 0, W, H);

    for (int f = 0; f < 2; f++) {
        glBindFramebuffer(GL_FRAMEBUFFER, fbo);
        glClearColor(0.1f, 0.1f, 0.2f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        glDisable(GL_BLEND);
        glUseProgram(p_all);
        glUniform4f(glGetUniformLocation(p_all, "u_color"), 0.3f + 0.1f * (float)f, 0.55f, 0.7f, 1.0f);
        rect(0, 0, W, H);
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
        glUseProgram(p_two);
        glUniform4f(glGetUniformLocation(p_two, "u_a"), 0.9f, 0.2f, 0.1f, 0.6f);
        glUniform4f(glGetUniformLocation(p_two, "u_b"), 0.1f, 0.8f, 0.3f, 0.35f);
        rect(0, H / 2, W, H);
        glDisable(GL_BLEND);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glUseProgram(p_tex);
        glUniform1i(glGetUniformLocation(p_tex, "u_tex"), 0);
        glBindTexture(GL_TEXTURE_2D, tex[0]);
        rect(0, 0, W / 2, H);
        glBindTexture(GL_TEXTURE_2D, tex[1]);
        rect(W / 2, 0, W, H);
        if (glGetError() != GL_NO_ERROR) known_die(&app, "frame");
        eglSwapBuffers(app.dpy, app.surf);
    }
    known_app_fini(&app);
    return 0;
}
