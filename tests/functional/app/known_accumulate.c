/*
 * tbr-test-known-accumulate: a GLES2 program whose frames build on what earlier
 * frames left in the render targets, for hot-start replays (tbr-replay --frames A-B:
 * the frames before A are fast-forwarded and the recorded window must start from
 * their results; docs/trace-records.md SURFACE_INIT). Captured by
 * functional.hotstart (tests/functional/hotstart.sh).
 *
 * 128x96 pbuffer (depth + stencil requested; eglretrace replays with D24S8) and an
 * FBO (RGBA8 texture + DEPTH_COMPONENT16 renderbuffer). Only frame 0 clears:
 *   frame 0: window: clear color/depth/stencil, a rectangle writes stencil 1 on the
 *            left half; FBO: clear, a rectangle at depth 0.5 over its top half.
 *   frame f >= 1 (no clear, except a depth-only clear of the window in frame 2,
 *            which keeps the stencil of frame 0 in memory):
 *            FBO: a rectangle moving with f, blended additively, depth LESS at a
 *            depth that passes only outside frame 0's rectangle (the old depth);
 *            window: the FBO texture blended over the right half (loads the
 *            texture written in earlier frames), then a rectangle moving with f,
 *            alpha-blended, stencil EQUAL 1 (frame 0's stencil), depth LEQUAL with
 *            writes, at a depth growing with f: it fails where an earlier frame's
 *            rectangle (or frame 0's) is nearer.
 * Every frame's result depends on every earlier frame, and no frame touches the
 * bottom-right 64x32 pixels of the window after frame 0.
 */
#include "known_app.h"

#include <stdio.h>
#include <string.h>

#define W      128
#define H      96
#define FRAMES 5

static const char *vs_src = "attribute vec3 a_pos;\n"
                            "varying vec2 v_tc;\n"
                            "void main() { v_tc = a_pos.xy * 0.5 + 0.5; gl_Position = vec4(a_pos, 1.0); }\n";
static const char *fs_color_src = "precision mediump float;\n"
                                  "uniform vec4 u_color;\n"
                                  "void main() { gl_FragColor = u_color; }\n";
static const char *fs_tex_src = "precision mediump float;\n"
                                "uniform sampler2D u_tex;\n"
                                "varying vec2 v_tc;\n"
                                "void main() { gl_FragColor = vec4(texture2D(u_tex, v_tc).rgb, 0.5); }\n";

/* rectangle [x0,x1) x [y0,y1) in pixels (y up) at window depth z in [0,1] */
static void rect(int x0, int y0, int x1, int y1, float z) { known_rect_px(x0, y0, x1, y1, z, W, H); }

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--frames") == 0) {
        printf("%d\n", FRAMES);
        return 0;
    }
    struct known_app app;
    known_app_init(&app, "known_accumulate", W, H, 24);
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

    for (int f = 0; f < FRAMES; f++) {
        /* the FBO */
        glBindFramebuffer(GL_FRAMEBUFFER, fbo);
        glUseProgram(color_prog);
        glEnable(GL_DEPTH_TEST);
        glDepthMask(GL_TRUE);
        if (f == 0) {
            glClearColor(0.1f, 0.1f, 0.2f, 1.0f);
            glClearDepthf(1.0f);
            glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
            glDepthFunc(GL_ALWAYS);
            glUniform4f(u_color, 0.6f, 0.1f, 0.1f, 1.0f);
            rect(0, H / 2, W, H, 0.5f);
        } else {
            glDepthFunc(GL_LESS);
            glEnable(GL_BLEND);
            glBlendFunc(GL_ONE, GL_ONE);
            glUniform4f(u_color, 0.05f, 0.13f, 0.07f * (float)f, 1.0f);
            rect(8 * f, 4 * f, 8 * f + 80, 4 * f + 80, 0.75f); /* passes only where depth is still 1 */
            glDisable(GL_BLEND);
        }

        /* the window */
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glEnable(GL_STENCIL_TEST);
        if (f == 0) {
            glClearColor(0.2f, 0.3f, 0.4f, 1.0f);
            glClearDepthf(1.0f);
            glClearStencil(0);
            glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
            glStencilFunc(GL_ALWAYS, 1, 0xff);
            glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
            glDepthFunc(GL_ALWAYS);
            glUniform4f(u_color, 0.9f, 0.8f, 0.1f, 1.0f);
            rect(0, 0, W / 2, H, 0.6f);
        } else {
            if (f == 2) {
                glClearDepthf(0.7f); /* depth only: the stencil stays in memory */
                glClear(GL_DEPTH_BUFFER_BIT);
            }
            glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
            glDisable(GL_DEPTH_TEST);
            glEnable(GL_BLEND);
            glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
            glStencilFunc(GL_ALWAYS, 0, 0xff);
            glUseProgram(tex_prog);
            glBindTexture(GL_TEXTURE_2D, tex);
            rect(W / 2, H / 3, W, H, 0.5f); /* leaves the bottom-right 64x32 alone */
            glEnable(GL_DEPTH_TEST);
            glDepthFunc(GL_LEQUAL);
            glStencilFunc(GL_EQUAL, 1, 0xff);
            glUseProgram(color_prog);
            glUniform4f(u_color, 0.1f * (float)f, 0.9f, 0.3f, 0.4f);
            rect(6 * f, 10 * f, 6 * f + 100, 10 * f + 40, 0.5f + 0.03f * (float)f);
            glDisable(GL_BLEND);
        }
        glDisable(GL_STENCIL_TEST);
        eglSwapBuffers(app.dpy, app.surf);
    }
    known_app_fini(&app);
    return 0;
}
