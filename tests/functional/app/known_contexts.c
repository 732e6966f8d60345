/*
 * tbr-test-known-contexts: a GLES2 program that renders with several EGL
 * contexts, captured with `apitrace trace --api egl` by functional.contexts
 * (tests/functional/contexts.sh). 160x120 pbuffer (surfaceless EGL); contexts
 * A and B (B shares A's objects), later C (not shared). Blended rectangles
 * (alpha 0.5) so that each context's float tile cache matters.
 *   0: A alone: clear, one blended rectangle.
 *   1: B alone on the same surface: clear, one blended rectangle.
 *   2: interleaved within the frame: A clears and draws, B draws over A's
 *      pixels, A draws again -> 3 render passes (A, B, A).
 *   3: shared texture: A renders into texture T (created by A, shared with B)
 *      through an FBO, B draws T full screen -> 2 render passes.
 *   4: glmark2's pattern: C is created and made current, then A is destroyed;
 *      C clears and draws.
 * --no-flush: A and B are created with EGL_CONTEXT_RELEASE_BEHAVIOR_NONE_KHR
 * and draw over the same pixels without a flush in between; run directly
 * (not through apitrace, whose replay drops that attribute) it must be refused
 * by the recorder with a clear message.
 * --expect: prints the expected per-frame counts as key=value lines.
 */
#include "known_app.h"

#include <EGL/eglext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W   160
#define H   120
#define TEX 64

static const char *vs_src = "attribute vec2 a_pos;\n"
                            "varying vec2 v_tc;\n"
                            "void main() { v_tc = a_pos * 0.5 + 0.5; gl_Position = vec4(a_pos, 0.0, 1.0); }\n";
static const char *fs_color_src = "precision mediump float;\n"
                                  "uniform vec4 u_color;\n"
                                  "void main() { gl_FragColor = u_color; }\n";
static const char *fs_tex_src = "precision mediump float;\n"
                                "uniform sampler2D u_tex;\n"
                                "varying vec2 v_tc;\n"
                                "void main() { gl_FragColor = texture2D(u_tex, v_tc); }\n";

/* Objects of one context (programs are shared between A and B, but each context
 * builds its own to keep the program simple). */
struct ctx_objs {
    EGLContext ctx;
    GLuint color_prog, tex_prog;
    GLint u_color;
};

static struct known_app app;
static EGLConfig config;

static void make_current(const struct ctx_objs *c)
{
    if (!eglMakeCurrent(app.dpy, app.surf, app.surf, c->ctx)) known_die(&app, "eglMakeCurrent");
}

static void create_ctx(struct ctx_objs *c, EGLContext share, int no_flush)
{
    EGLint attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE, EGL_NONE, EGL_NONE};
    if (no_flush) {
        attribs[2] = EGL_CONTEXT_RELEASE_BEHAVIOR_KHR;
        attribs[3] = EGL_CONTEXT_RELEASE_BEHAVIOR_NONE_KHR;
    }
    c->ctx = eglCreateContext(app.dpy, config, share, attribs);
    if (c->ctx == EGL_NO_CONTEXT) known_die(&app, "eglCreateContext");
    make_current(c);
    static const char *const attr[] = {"a_pos", NULL};
    c->color_prog = known_program(&app, vs_src, fs_color_src, attr);
    c->tex_prog = known_program(&app, vs_src, fs_tex_src, attr);
    c->u_color = glGetUniformLocation(c->color_prog, "u_color");
    glUseProgram(c->tex_prog);
    glUniform1i(glGetUniformLocation(c->tex_prog, "u_tex"), 0);
    glEnableVertexAttribArray(0);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
}

/* Rectangle [x0,x1) x [y0,y1) in pixels of a w x h target (y up), client-side array. */
static void rect(int x0, int y0, int x1, int y1, int w, int h)
{
    float v[12];
    const int xs[6] = {x0, x1, x1, x0, x1, x0}, ys[6] = {y0, y0, y1, y0, y1, y1};
    for (int i = 0; i < 6; i++) {
        v[2 * i] = 2.0f * (float)xs[i] / (float)w - 1.0f;
        v[2 * i + 1] = 2.0f * (float)ys[i] / (float)h - 1.0f;
    }
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, v);
    glDrawArrays(GL_TRIANGLES, 0, 6);
}

static void color_rect(const struct ctx_objs *c, int x0, int x1, float r, float g, float b)
{
    glUseProgram(c->color_prog);
    glUniform4f(c->u_color, r, g, b, 0.5f);
    glEnable(GL_BLEND);
    rect(x0, 0, x1, H, W, H);
}

static void clear(float r, float g, float b)
{
    glViewport(0, 0, W, H);
    glClearColor(r, g, b, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
}

static int expect(void)
{
    /* fragments: every rectangle covers whole columns of the 160x120 target */
    printf("frames=5\n");
    printf("frame0_render_passes=1\nframe0_fragments=%d\n", 80 * H);
    printf("frame1_render_passes=1\nframe1_fragments=%d\n", 80 * H);
    printf("frame2_render_passes=3\nframe2_fragments=%d\n", (60 + 60 + 80) * H);
    printf("frame3_render_passes=2\nframe3_fragments=%d\n", TEX * TEX / 2 + W * H);
    printf("frame4_render_passes=1\nframe4_fragments=%d\n", 100 * H);
    for (int f = 0; f < 5; f++) printf("frame%d_complete=1\nframe%d_shaded_quads_without_path=0\n", f, f);
    return 0;
}

static int no_flush(void)
{
    struct ctx_objs a, b;
    create_ctx(&a, EGL_NO_CONTEXT, 1);
    create_ctx(&b, a.ctx, 1);
    make_current(&a);
    clear(0.1f, 0.2f, 0.3f);
    color_rect(&a, 0, W, 1.0f, 0.0f, 0.0f);
    make_current(&b); /* A is not flushed: its tile cache keeps the tiles */
    color_rect(&b, 0, W, 0.0f, 1.0f, 0.0f);
    make_current(&a);
    color_rect(&a, 0, W, 0.0f, 0.0f, 1.0f);
    eglSwapBuffers(app.dpy, app.surf);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--expect") == 0) return expect();
    int no_flush_mode = argc > 1 && strcmp(argv[1], "--no-flush") == 0;
    /* the shared helper makes the display, the surface and a first context (unused
     * here except for choosing the config: it is destroyed at the end) */
    known_app_init(&app, "known_contexts", W, H, 0);
    EGLint cfg_id = 0, n = 0;
    eglQueryContext(app.dpy, app.ctx, EGL_CONFIG_ID, &cfg_id);
    const EGLint by_id[] = {EGL_CONFIG_ID, cfg_id, EGL_NONE};
    if (!eglChooseConfig(app.dpy, by_id, &config, 1, &n) || n != 1) known_die(&app, "eglChooseConfig(EGL_CONFIG_ID)");
    if (no_flush_mode) {
        int rc = no_flush();
        known_app_fini(&app);
        return rc;
    }

    struct ctx_objs a, b, c;
    create_ctx(&a, EGL_NO_CONTEXT, 0);
    /* texture T, created by A, shared with B */
    GLuint tex = 0;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    unsigned char *img = malloc(TEX * TEX * 4);
    if (!img) known_die(&app, "malloc");
    for (int i = 0; i < TEX * TEX; i++) {
        img[4 * i] = (unsigned char)(i * 3);
        img[4 * i + 1] = (unsigned char)(i / TEX * 4);
        img[4 * i + 2] = 200;
        img[4 * i + 3] = 255;
    }
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, TEX, TEX, 0, GL_RGBA, GL_UNSIGNED_BYTE, img);
    free(img);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    GLuint fbo = 0; /* A's FBO (framebuffers are not shared) */
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) known_die(&app, "FBO with texture T");
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    create_ctx(&b, a.ctx, 0);

    /* 0: A alone */
    make_current(&a);
    clear(0.1f, 0.2f, 0.3f);
    color_rect(&a, 0, 80, 1.0f, 0.0f, 0.0f);
    eglSwapBuffers(app.dpy, app.surf);
    /* 1: B alone */
    make_current(&b);
    clear(0.3f, 0.2f, 0.1f);
    color_rect(&b, 80, W, 0.0f, 1.0f, 0.0f);
    eglSwapBuffers(app.dpy, app.surf);
    /* 2: interleaved */
    make_current(&a);
    clear(0.2f, 0.2f, 0.2f);
    color_rect(&a, 0, 60, 1.0f, 0.0f, 0.0f);
    make_current(&b);
    color_rect(&b, 40, 100, 0.0f, 1.0f, 0.0f);
    make_current(&a);
    color_rect(&a, 80, W, 0.0f, 0.0f, 1.0f);
    eglSwapBuffers(app.dpy, app.surf);
    /* 3: A renders into T (left half of it), B samples T */
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, TEX, TEX);
    glUseProgram(a.color_prog);
    glUniform4f(a.u_color, 1.0f, 1.0f, 0.0f, 0.5f);
    glEnable(GL_BLEND);
    rect(0, 0, TEX / 2, TEX, TEX, TEX);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    make_current(&b);
    glViewport(0, 0, W, H);
    glDisable(GL_BLEND);
    glUseProgram(b.tex_prog);
    glBindTexture(GL_TEXTURE_2D, tex);
    rect(0, 0, W, H, W, H);
    eglSwapBuffers(app.dpy, app.surf);
    /* 4: new context C, then A is destroyed while C is current */
    create_ctx(&c, EGL_NO_CONTEXT, 0);
    eglDestroyContext(app.dpy, a.ctx);
    clear(0.0f, 0.3f, 0.3f);
    color_rect(&c, 30, 130, 1.0f, 0.0f, 1.0f);
    eglSwapBuffers(app.dpy, app.surf);

    eglMakeCurrent(app.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(app.dpy, b.ctx);
    eglDestroyContext(app.dpy, c.ctx);
    known_app_fini(&app);
    return 0;
}
