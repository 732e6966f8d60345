/* tbr-capture-test-emuhost: a program shaped like the Android emulator's host-side
 * renderer (issue 24, section 5; docs/capture.md, "Android-emulator games"), to test the
 * parts of that capture plan that do not need the emulator itself:
 *  - libEGL and libGLESv2 are not linked: they are opened with dlopen() (by the names or
 *    paths in --egl-lib/--gles-lib, else $ANDROID_EGL_LIB/$ANDROID_GLESv2_LIB, else the
 *    sonames) and every entry point is resolved with dlsym()/eglGetProcAddress();
 *  - two "guest surfaces", each drawn by its own context on a worker thread (the
 *    emulator's render thread) into a texture of a context shared with the compositor
 *    (--sharing shared, default), or into an EGLImage made from the compositor's texture
 *    (--sharing eglimage: apitrace 11.1's replay does not reproduce it, docs/capture.md);
 *  - a compositor context on the main thread draws both surfaces into an X11 window and
 *    swaps: one frame of the trace is one composed frame.
 * The threads hand frames over with a mutex and condition variable, and the worker
 * finishes (glFinish) before handing over, so the calls' order in the trace is the order
 * in which they took effect.  --dump-frame N FILE writes composed frame N as the window
 * showed it (RGBA8, rows top to bottom: what `tbr-compare --checksum` hashes), so that a
 * test can compare a replay's frame with the program's own.  --guests-once: the guests
 * draw in frame 0 only and later frames compose what they drew then (a window of such a
 * trace needs frame 0's drawing).  Needs $DISPLAY. */
#define _GNU_SOURCE
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <X11/Xlib.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIN_W   320
#define WIN_H   240
#define GUEST_W 128
#define GUEST_H 96
#define GUESTS  2

/* The entry points, resolved at run time (X-macro: type, name). */
#define EGL_FUNCS(X)                                                                                                   \
    X(PFNEGLGETDISPLAYPROC, eglGetDisplay)                                                                             \
    X(PFNEGLINITIALIZEPROC, eglInitialize)                                                                             \
    X(PFNEGLCHOOSECONFIGPROC, eglChooseConfig)                                                                         \
    X(PFNEGLBINDAPIPROC, eglBindAPI)                                                                                   \
    X(PFNEGLCREATECONTEXTPROC, eglCreateContext)                                                                       \
    X(PFNEGLCREATEWINDOWSURFACEPROC, eglCreateWindowSurface)                                                           \
    X(PFNEGLCREATEPBUFFERSURFACEPROC, eglCreatePbufferSurface)                                                         \
    X(PFNEGLMAKECURRENTPROC, eglMakeCurrent)                                                                           \
    X(PFNEGLSWAPBUFFERSPROC, eglSwapBuffers)                                                                           \
    X(PFNEGLDESTROYCONTEXTPROC, eglDestroyContext)                                                                     \
    X(PFNEGLDESTROYSURFACEPROC, eglDestroySurface)                                                                     \
    X(PFNEGLTERMINATEPROC, eglTerminate)                                                                               \
    X(PFNEGLRELEASETHREADPROC, eglReleaseThread)                                                                       \
    X(PFNEGLGETERRORPROC, eglGetError)                                                                                 \
    X(PFNEGLGETPROCADDRESSPROC, eglGetProcAddress)
#define GL_FUNCS(X)                                                                                                    \
    X(PFNGLCLEARCOLORPROC, glClearColor)                                                                               \
    X(PFNGLCLEARPROC, glClear)                                                                                         \
    X(PFNGLVIEWPORTPROC, glViewport)                                                                                   \
    X(PFNGLGENTEXTURESPROC, glGenTextures)                                                                             \
    X(PFNGLBINDTEXTUREPROC, glBindTexture)                                                                             \
    X(PFNGLTEXIMAGE2DPROC, glTexImage2D)                                                                               \
    X(PFNGLTEXPARAMETERIPROC, glTexParameteri)                                                                         \
    X(PFNGLGENFRAMEBUFFERSPROC, glGenFramebuffers)                                                                     \
    X(PFNGLBINDFRAMEBUFFERPROC, glBindFramebuffer)                                                                     \
    X(PFNGLFRAMEBUFFERTEXTURE2DPROC, glFramebufferTexture2D)                                                           \
    X(PFNGLCHECKFRAMEBUFFERSTATUSPROC, glCheckFramebufferStatus)                                                       \
    X(PFNGLCREATESHADERPROC, glCreateShader)                                                                           \
    X(PFNGLSHADERSOURCEPROC, glShaderSource)                                                                           \
    X(PFNGLCOMPILESHADERPROC, glCompileShader)                                                                         \
    X(PFNGLGETSHADERIVPROC, glGetShaderiv)                                                                             \
    X(PFNGLCREATEPROGRAMPROC, glCreateProgram)                                                                         \
    X(PFNGLATTACHSHADERPROC, glAttachShader)                                                                           \
    X(PFNGLBINDATTRIBLOCATIONPROC, glBindAttribLocation)                                                               \
    X(PFNGLLINKPROGRAMPROC, glLinkProgram)                                                                             \
    X(PFNGLGETPROGRAMIVPROC, glGetProgramiv)                                                                           \
    X(PFNGLUSEPROGRAMPROC, glUseProgram)                                                                               \
    X(PFNGLGETUNIFORMLOCATIONPROC, glGetUniformLocation)                                                               \
    X(PFNGLUNIFORM4FPROC, glUniform4f)                                                                                 \
    X(PFNGLUNIFORM1IPROC, glUniform1i)                                                                                 \
    X(PFNGLGENBUFFERSPROC, glGenBuffers)                                                                               \
    X(PFNGLBINDBUFFERPROC, glBindBuffer)                                                                               \
    X(PFNGLBUFFERDATAPROC, glBufferData)                                                                               \
    X(PFNGLVERTEXATTRIBPOINTERPROC, glVertexAttribPointer)                                                             \
    X(PFNGLENABLEVERTEXATTRIBARRAYPROC, glEnableVertexAttribArray)                                                     \
    X(PFNGLDRAWARRAYSPROC, glDrawArrays)                                                                               \
    X(PFNGLFINISHPROC, glFinish)                                                                                       \
    X(PFNGLGETERRORPROC, glGetError)                                                                                   \
    X(PFNGLREADPIXELSPROC, glReadPixels)

struct api {
#define DECLARE(type, name) type name;
    EGL_FUNCS(DECLARE)
    GL_FUNCS(DECLARE)
#undef DECLARE
    PFNEGLCREATEIMAGEKHRPROC eglCreateImageKHR;
    PFNGLEGLIMAGETARGETTEXTURE2DOESPROC glEGLImageTargetTexture2DOES;
};

/* What the two threads share; the mutex orders their GL work. */
struct host {
    struct api gl;
    int use_eglimage;
    int guests_once; /* --guests-once: the guests draw in frame 0 only */
    EGLDisplay dpy;
    EGLConfig pbuffer_cfg;
    EGLContext compositor;
    GLuint surface_tex[GUESTS];      /* the compositor's textures */
    EGLImageKHR surface_img[GUESTS]; /* --sharing eglimage */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int requested, done, failed; /* frames requested of / finished by the render thread */
};

static void *open_lib(const char *option, const char *env_name, const char *soname)
{
    const char *name = option ? option : getenv(env_name) && *getenv(env_name) ? getenv(env_name) : soname;
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) fprintf(stderr, "tbr-capture-test-emuhost: dlopen(%s): %s\n", name, dlerror());
    return h;
}

static int report_missing(const char *name)
{
    fprintf(stderr, "tbr-capture-test-emuhost: %s not found\n", name);
    return 1;
}

static int load_api(struct api *a, void *egl, void *gles)
{
    int missing = 0;
#define LOAD_EGL(type, name)                                                                                           \
    if (!(a->name = (type)dlsym(egl, #name))) missing = report_missing(#name);
#define LOAD_GL(type, name)                                                                                            \
    if (!(a->name = (type)dlsym(gles, #name))) missing = report_missing(#name);
    EGL_FUNCS(LOAD_EGL)
    GL_FUNCS(LOAD_GL)
#undef LOAD_GL
#undef LOAD_EGL
    if (missing) return -1;
    /* Extension entry points come from eglGetProcAddress, as the emulator gets them. */
    a->eglCreateImageKHR = (PFNEGLCREATEIMAGEKHRPROC)a->eglGetProcAddress("eglCreateImageKHR");
    a->glEGLImageTargetTexture2DOES =
        (PFNGLEGLIMAGETARGETTEXTURE2DOESPROC)a->eglGetProcAddress("glEGLImageTargetTexture2DOES");
    return 0;
}

static GLuint build_program(const struct api *g, const char *vs_src, const char *fs_src)
{
    const char *src[2] = {vs_src, fs_src};
    GLenum kind[2] = {GL_VERTEX_SHADER, GL_FRAGMENT_SHADER};
    GLuint prog = g->glCreateProgram();
    for (int i = 0; i < 2; i++) {
        GLuint sh = g->glCreateShader(kind[i]);
        g->glShaderSource(sh, 1, &src[i], NULL);
        g->glCompileShader(sh);
        GLint ok = 0;
        g->glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
        if (!ok) return 0;
        g->glAttachShader(prog, sh);
    }
    g->glBindAttribLocation(prog, 0, "pos");
    g->glLinkProgram(prog);
    GLint ok = 0;
    g->glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    return ok ? prog : 0;
}

/* A buffer holding `n` floats, bound to attribute 0 as vec2. */
static void vertex_buffer(const struct api *g, const float *v, int n)
{
    GLuint vbo;
    g->glGenBuffers(1, &vbo);
    g->glBindBuffer(GL_ARRAY_BUFFER, vbo);
    g->glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(n * (int)sizeof(float)), v, GL_STATIC_DRAW);
    g->glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    g->glEnableVertexAttribArray(0);
}

/* ---- the render thread: one context per guest surface ------------------------- */

struct guest {
    EGLContext ctx;
    EGLSurface pbuffer; /* the guest surface's own (unused) drawable */
    GLuint prog;
    GLint offset, color;
};

static const char guest_vs[] = "attribute vec2 pos;\n"
                               "uniform vec4 offset;\n"
                               "void main() { gl_Position = vec4(pos * offset.zw + offset.xy, 0.0, 1.0); }\n";
static const char guest_fs[] = "precision mediump float;\n"
                               "uniform vec4 color;\n"
                               "void main() { gl_FragColor = color; }\n";

/* Creates guest i's context and its framebuffer onto the guest surface's texture. */
static int guest_init(struct host *h, int i, struct guest *gs)
{
    const struct api *g = &h->gl;
    static const EGLint ctx_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
    static const EGLint pb_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    gs->ctx =
        g->eglCreateContext(h->dpy, h->pbuffer_cfg, h->use_eglimage ? EGL_NO_CONTEXT : h->compositor, ctx_attribs);
    gs->pbuffer = g->eglCreatePbufferSurface(h->dpy, h->pbuffer_cfg, pb_attribs);
    if (gs->ctx == EGL_NO_CONTEXT || gs->pbuffer == EGL_NO_SURFACE ||
        !g->eglMakeCurrent(h->dpy, gs->pbuffer, gs->pbuffer, gs->ctx))
        return -1;
    GLuint tex = h->surface_tex[i];
    if (h->use_eglimage) {
        /* The guest sees the compositor's texture only through the EGLImage. */
        g->glGenTextures(1, &tex);
        g->glBindTexture(GL_TEXTURE_2D, tex);
        g->glEGLImageTargetTexture2DOES(GL_TEXTURE_2D, (GLeglImageOES)h->surface_img[i]);
    }
    GLuint fbo;
    g->glGenFramebuffers(1, &fbo);
    g->glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    g->glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    if (g->glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) return -1;
    gs->prog = build_program(g, guest_vs, guest_fs);
    if (!gs->prog) return -1;
    gs->offset = g->glGetUniformLocation(gs->prog, "offset");
    gs->color = g->glGetUniformLocation(gs->prog, "color");
    static const float tri[] = {-1.0f, -1.0f, 1.0f, -1.0f, 0.0f, 1.0f};
    vertex_buffer(g, tri, 6);
    return g->glGetError() == GL_NO_ERROR ? 0 : -1;
}

/* One guest frame: a clear and a triangle that moves with the frame number. */
static int guest_draw(struct host *h, int i, const struct guest *gs, int frame)
{
    const struct api *g = &h->gl;
    if (!g->eglMakeCurrent(h->dpy, gs->pbuffer, gs->pbuffer, gs->ctx)) return -1;
    g->glViewport(0, 0, GUEST_W, GUEST_H);
    g->glClearColor(i ? 0.1f : 0.4f, 0.15f, i ? 0.4f : 0.1f, 1.0f);
    g->glClear(GL_COLOR_BUFFER_BIT);
    g->glUseProgram(gs->prog);
    float x = -0.6f + 0.2f * (float)(frame % 7);
    g->glUniform4f(gs->offset, i ? -x : x, 0.0f, 0.35f, 0.5f + 0.1f * (float)i);
    g->glUniform4f(gs->color, 0.9f, 0.3f + 0.1f * (float)(frame % 5), i ? 0.9f : 0.2f, 1.0f);
    g->glDrawArrays(GL_TRIANGLES, 0, 3);
    g->glFinish(); /* the compositor samples it next */
    return g->glGetError() == GL_NO_ERROR ? 0 : -1;
}

static void *render_thread(void *arg)
{
    struct host *h = arg;
    struct guest gs[GUESTS];
    int ok = 1;
    for (int i = 0; i < GUESTS && ok; i++) ok = guest_init(h, i, &gs[i]) == 0;
    pthread_mutex_lock(&h->lock);
    for (;;) {
        while (ok && h->requested == h->done) pthread_cond_wait(&h->cond, &h->lock);
        if (!ok || h->requested < 0) break;
        int frame = h->done;
        pthread_mutex_unlock(&h->lock);
        for (int i = 0; i < GUESTS && ok && (frame == 0 || !h->guests_once); i++)
            ok = guest_draw(h, i, &gs[i], frame) == 0;
        pthread_mutex_lock(&h->lock);
        h->done++;
        pthread_cond_broadcast(&h->cond);
    }
    h->failed = !ok;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
    h->gl.eglMakeCurrent(h->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    h->gl.eglReleaseThread();
    return NULL;
}

/* ---- the compositor: main thread, window ------------------------------------- */

static const char comp_vs[] = "attribute vec2 pos;\n"
                              "uniform vec4 rect;\n"
                              "varying vec2 uv;\n"
                              "void main() {\n"
                              "  uv = pos;\n"
                              "  gl_Position = vec4(rect.xy + pos * rect.zw, 0.0, 1.0);\n"
                              "}\n";
static const char comp_fs[] = "precision mediump float;\n"
                              "uniform sampler2D surface;\n"
                              "varying vec2 uv;\n"
                              "void main() { gl_FragColor = texture2D(surface, uv); }\n";

struct compositor {
    EGLSurface window;
    GLuint prog;
    GLint rect, sampler;
};

/* The guest surfaces' textures (and EGLImages) belong to the compositor's context. */
static int make_surface_textures(struct host *h)
{
    const struct api *g = &h->gl;
    g->glGenTextures(GUESTS, h->surface_tex);
    for (int i = 0; i < GUESTS; i++) {
        g->glBindTexture(GL_TEXTURE_2D, h->surface_tex[i]);
        g->glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, GUEST_W, GUEST_H, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        g->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        g->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        /* ES 2: a non-power-of-two texture must clamp to be complete. */
        g->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        g->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        if (!h->use_eglimage) continue;
        static const EGLint img_attribs[] = {EGL_GL_TEXTURE_LEVEL_KHR, 0, EGL_NONE};
        h->surface_img[i] = h->gl.eglCreateImageKHR(h->dpy, h->compositor, EGL_GL_TEXTURE_2D_KHR,
                                                    (EGLClientBuffer)(uintptr_t)h->surface_tex[i], img_attribs);
        if (h->surface_img[i] == EGL_NO_IMAGE_KHR) return -1;
    }
    return g->glGetError() == GL_NO_ERROR ? 0 : -1;
}

static int compositor_init(struct host *h, struct compositor *c, Display *x, Window win)
{
    const struct api *g = &h->gl;
    h->dpy = g->eglGetDisplay((EGLNativeDisplayType)x);
    if (h->dpy == EGL_NO_DISPLAY || !g->eglInitialize(h->dpy, NULL, NULL) || !g->eglBindAPI(EGL_OPENGL_ES_API))
        return -1;
    static const EGLint cfg_attribs[] = {EGL_SURFACE_TYPE,
                                         EGL_WINDOW_BIT | EGL_PBUFFER_BIT,
                                         EGL_RENDERABLE_TYPE,
                                         EGL_OPENGL_ES2_BIT,
                                         EGL_RED_SIZE,
                                         8,
                                         EGL_GREEN_SIZE,
                                         8,
                                         EGL_BLUE_SIZE,
                                         8,
                                         EGL_NONE};
    EGLint n = 0;
    if (!g->eglChooseConfig(h->dpy, cfg_attribs, &h->pbuffer_cfg, 1, &n) || n < 1) return -1;
    static const EGLint ctx_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
    h->compositor = g->eglCreateContext(h->dpy, h->pbuffer_cfg, EGL_NO_CONTEXT, ctx_attribs);
    c->window = g->eglCreateWindowSurface(h->dpy, h->pbuffer_cfg, (EGLNativeWindowType)win, NULL);
    if (h->compositor == EGL_NO_CONTEXT || c->window == EGL_NO_SURFACE ||
        !g->eglMakeCurrent(h->dpy, c->window, c->window, h->compositor))
        return -1;
    if (h->use_eglimage && (!g->eglCreateImageKHR || !g->glEGLImageTargetTexture2DOES)) return -1;
    if (make_surface_textures(h) < 0) return -1;
    c->prog = build_program(g, comp_vs, comp_fs);
    if (!c->prog) return -1;
    c->rect = g->glGetUniformLocation(c->prog, "rect");
    c->sampler = g->glGetUniformLocation(c->prog, "surface");
    static const float quad[] = {0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1};
    vertex_buffer(g, quad, 12);
    if (g->glGetError() != GL_NO_ERROR) return -1;
    return g->eglMakeCurrent(h->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT) ? 0 : -1;
}

/* Writes the window's pixels, rows top to bottom (glReadPixels gives them bottom up). */
static int dump_window(const struct api *g, const char *path)
{
    static unsigned char px[WIN_W * WIN_H * 4];
    g->glReadPixels(0, 0, WIN_W, WIN_H, GL_RGBA, GL_UNSIGNED_BYTE, px);
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = 1;
    for (int y = WIN_H - 1; y >= 0 && ok; y--) ok = fwrite(px + (size_t)y * WIN_W * 4, WIN_W * 4, 1, f) == 1;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* One composed frame: the two guest surfaces side by side, then the swap.  The compositor
 * binds its context for each frame and releases it after the swap, as the emulator's
 * post worker does; this also lets a replay that runs every thread's calls on one thread
 * (tbr-replay's --singlethread) use the right context for each call. */
static int compose(struct host *h, const struct compositor *c, int frame, int dump_frame, const char *dump_path)
{
    const struct api *g = &h->gl;
    if (!g->eglMakeCurrent(h->dpy, c->window, c->window, h->compositor)) return -1;
    g->glViewport(0, 0, WIN_W, WIN_H);
    g->glClearColor(0.05f, 0.05f, 0.05f + 0.02f * (float)(frame % 4), 1.0f);
    g->glClear(GL_COLOR_BUFFER_BIT);
    g->glUseProgram(c->prog);
    g->glUniform1i(c->sampler, 0);
    for (int i = 0; i < GUESTS; i++) {
        g->glBindTexture(GL_TEXTURE_2D, h->surface_tex[i]);
        g->glUniform4f(c->rect, i ? 0.05f : -0.95f, -0.6f, 0.9f, 1.2f);
        g->glDrawArrays(GL_TRIANGLES, 0, 6);
    }
    if (frame == dump_frame && dump_window(g, dump_path) < 0) return -1;
    if (g->glGetError() != GL_NO_ERROR || !g->eglSwapBuffers(h->dpy, c->window)) return -1;
    return g->eglMakeCurrent(h->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT) ? 0 : -1;
}

/* Asks the render thread for the next guest frames and waits for them. */
static int request_guest_frame(struct host *h)
{
    pthread_mutex_lock(&h->lock);
    h->requested++;
    pthread_cond_broadcast(&h->cond);
    while (h->done < h->requested && !h->failed) pthread_cond_wait(&h->cond, &h->lock);
    int failed = h->failed;
    pthread_mutex_unlock(&h->lock);
    return failed ? -1 : 0;
}

static void stop_render_thread(struct host *h, pthread_t t)
{
    pthread_mutex_lock(&h->lock);
    h->requested = -1;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
    pthread_join(t, NULL);
}

static int usage(void)
{
    fprintf(stderr, "usage: tbr-capture-test-emuhost [--frames N] [--sharing shared|eglimage]\n"
                    "                                [--egl-lib NAME|PATH] [--gles-lib NAME|PATH]\n"
                    "                                [--dump-frame N FILE] [--guests-once]  (needs $DISPLAY)\n");
    return 2;
}

int main(int argc, char **argv)
{
    int frames = 6, dump_frame = -1;
    const char *egl_name = NULL, *gles_name = NULL, *dump_path = NULL;
    static struct host h; /* owned by main; static only to keep it off the stack */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--guests-once")) {
            h.guests_once = 1;
            continue;
        }
        if (i + 1 >= argc) return usage();
        if (!strcmp(argv[i], "--dump-frame") && i + 2 < argc) {
            dump_frame = atoi(argv[++i]);
            dump_path = argv[++i];
        } else if (!strcmp(argv[i], "--frames"))
            frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sharing"))
            h.use_eglimage = !strcmp(argv[++i], "eglimage");
        else if (!strcmp(argv[i], "--egl-lib"))
            egl_name = argv[++i];
        else if (!strcmp(argv[i], "--gles-lib"))
            gles_name = argv[++i];
        else
            return usage();
    }
    void *egl = open_lib(egl_name, "ANDROID_EGL_LIB", "libEGL.so.1");
    void *gles = open_lib(gles_name, "ANDROID_GLESv2_LIB", "libGLESv2.so.2");
    if (!egl || !gles || load_api(&h.gl, egl, gles) < 0) return 1;
    Display *x = XOpenDisplay(NULL);
    if (!x) {
        fprintf(stderr, "tbr-capture-test-emuhost: cannot open the X display\n");
        return 2;
    }
    Window win = XCreateSimpleWindow(x, DefaultRootWindow(x), 0, 0, WIN_W, WIN_H, 0, 0, 0);
    XMapWindow(x, win);
    XSync(x, False);
    struct compositor c;
    if (compositor_init(&h, &c, x, win) < 0) {
        fprintf(stderr, "tbr-capture-test-emuhost: compositor setup failed (EGL 0x%x)\n", h.gl.eglGetError());
        return 1;
    }
    pthread_mutex_init(&h.lock, NULL);
    pthread_cond_init(&h.cond, NULL);
    pthread_t t;
    if (pthread_create(&t, NULL, render_thread, &h) != 0) return 1;
    int rc = 0;
    for (int f = 0; f < frames && !rc; f++) {
        rc = request_guest_frame(&h) < 0 || compose(&h, &c, f, dump_frame, dump_path) < 0;
        if (rc) fprintf(stderr, "tbr-capture-test-emuhost: frame %d failed\n", f);
    }
    stop_render_thread(&h, t);
    fprintf(stderr, "tbr-capture-test-emuhost: %d composed frames of %d guest surfaces (%s)\n", rc ? 0 : frames, GUESTS,
            h.use_eglimage ? "EGLImage" : "shared textures");
    h.gl.eglMakeCurrent(h.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    h.gl.eglTerminate(h.dpy);
    XDestroyWindow(x, win);
    XCloseDisplay(x);
    return rc;
}
