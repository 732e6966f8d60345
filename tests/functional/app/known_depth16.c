/*
 * tbr-test-known-depth16: a GLES2 program that exercises softpipe's 16-bit depth
 * fast path (sp_quad_depth_test.c choose_depth_test: Z16_UNORM depth buffer, depth
 * test on with writes, no alpha/stencil/occlusion query/depth bounds, the fragment
 * shader does not write depth -> depth_interp_z16_<func>_write instead of
 * depth_test_quads_fallback). eglretrace replays the window with its own D24S8
 * config, so the depth buffer is an FBO's GL_DEPTH_COMPONENT16 renderbuffer.
 * Captured by functional.depth16 (tests/functional/depth16.sh).
 *
 * 128x96 pbuffer and FBO (RGBA8 texture + DEPTH_COMPONENT16). Each frame, in the FBO:
 * clear, rectangle A (full target), rectangle B (left half) behind A -> every
 * fragment fails (early depth: rasterized, never shaded), rectangle C (top half) in
 * front of A -> shaded; then the FBO texture is drawn 1:1 on the window (no depth).
 *   0: depth func LESS, depth cleared to 1, z(A) = 0.5, z(B) = 0.75, z(C) = 0.25
 *   1: depth func GREATER, depth cleared to 0, z(A) = 0.5, z(B) = 0.25, z(C) = 0.75
 * --expect prints the expected per-frame counts as key=value lines.
 */
#include "known_app.h"

#include <stdio.h>
#include <string.h>

#define W 128
#define H 96

static const char *vs_src = "attribute vec3 a_pos;\n"
                            "varying vec2 v_tc;\n"
                            "void main() { v_tc = a_pos.xy * 0.5 + 0.5; gl_Position = vec4(a_pos, 1.0); }\n";
static const char *fs_color_src = "precision mediump float;\n"
                                  "uniform vec4 u_color;\n"
                                  "void main() { gl_FragColor = u_color; }\n";
static const char *fs_tex_src = "precision mediump float;\n"
                                "uniform sampler2D u_tex;\n"
                                "varying vec2 v_tc;\n"
                                "void main() { gl_FragColor = texture2D(u_tex, v_tc); }\n";

/* rectangle [x0,x1) x [y0,y1) in pixels (y up) at window depth z in [0,1] */
static void rect(int x0, int y0, int x1, int y1, float z) { known_rect_px(x0, y0, x1, y1, z, W, H); }

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--expect") == 0) {
        printf("frames=2\n");
        for (int f = 0; f < 2; f++) {
            /* covered fragments: A (full) + B (half) + C (half) + the window copy;
             * (quads are not analytic: both triangles of a rectangle emit the quads
             * along its diagonal) */
            printf("frame%d_fragments=%d\n", f, 3 * W * H);
            /* B is entirely behind A: rasterized, depth-killed before shading */
            printf("frame%d_shaded_fragments=%d\n", f, W * H + W * H / 2 + W * H);
            printf("frame%d_depth_passed=%d\n", f, W * H + W * H / 2 + W * H);
            printf("frame%d_render_passes=2\nframe%d_complete=1\nframe%d_draws=4\n", f, f, f);
            printf("frame%d_shaded_quads_without_path=0\n", f);
        }
        return 0;
    }
    struct known_app app;
    known_app_init(&app, "known_depth16", W, H, 0);
    static const char *const attribs[] = {"a_pos", NULL};
    GLuint color_prog = known_program(&app, vs_src, fs_color_src, attribs);
    GLuint tex_prog = known_program(&app, vs_src, fs_tex_src, attribs);
    GLint u_color = glGetUniformLocation(color_prog, "u_color");
    glUseProgram(tex_prog);
    glUniform1i(glGetUniformLocation(tex_prog, "u_tex"), 0);
    glEnableVertexAttribArray(0);

    GLuint tex, rb, fbo;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, W, H, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT16, W, H);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        known_die(&app, "FBO with a DEPTH_COMPONENT16 renderbuffer");
    glViewport(0, 0, W, H);

    for (int f = 0; f < 2; f++) {
        const int less = f == 0;
        glBindFramebuffer(GL_FRAMEBUFFER, fbo);
        glClearColor(0.1f, 0.1f, 0.2f, 1.0f);
        glClearDepthf(less ? 1.0f : 0.0f);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(less ? GL_LESS : GL_GREATER);
        glDepthMask(GL_TRUE);
        glUseProgram(color_prog);
        glUniform4f(u_color, 1.0f, 0.0f, 0.0f, 1.0f);
        rect(0, 0, W, H, 0.5f); /* A */
        glUniform4f(u_color, 0.0f, 1.0f, 0.0f, 1.0f);
        rect(0, 0, W / 2, H, less ? 0.75f : 0.25f); /* B: behind A */
        glUniform4f(u_color, 0.0f, 0.0f, 1.0f, 1.0f);
        rect(0, H / 2, W, H, less ? 0.25f : 0.75f); /* C: in front of A */
        glDisable(GL_DEPTH_TEST);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glUseProgram(tex_prog);
        glBindTexture(GL_TEXTURE_2D, tex);
        rect(0, 0, W, H, 0.5f);
        eglSwapBuffers(app.dpy, app.surf);
    }
    known_app_fini(&app);
    return 0;
}
