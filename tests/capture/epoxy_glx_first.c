/* tbr-capture-test-epoxy: a program that loads GL through libepoxy and probes GLX before
 * settling on EGL, as GTK 4 does on X11 (issue 24, section 4).  Under apitrace's EGL
 * tracer, libepoxy's dlopen("libGL.so.1") is handed the tracer's own library, which has
 * no GLX entry points; libepoxy then aborts looking up glXGetCurrentContext.
 * tbr-capture makes such programs capture (docs/capture.md, "libepoxy").
 *
 * X11 window, EGL + OpenGL ES 2 context, every EGL/GL call through libepoxy; draws a
 * rotating-color quad for --frames N frames (default 5).  Needs $DISPLAY. */
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <epoxy/glx.h>

#include <X11/Xlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH  256
#define HEIGHT 192

/* The toolkit's GLX probe: is GLX there, and which version?  (GTK 4's X11 backend asks the
 * same before it picks its GL backend.) */
static void probe_glx(Display *x)
{
    int has = epoxy_has_glx(x);
    int version = has ? epoxy_glx_version(x, DefaultScreen(x)) : 0;
    /* With no GLX context current, GL dispatch must still find the EGL one later. */
    fprintf(stderr, "tbr-capture-test-epoxy: GLX %s (version %d)\n", has ? "present" : "absent", version);
}

static int init_egl(Display *x, Window win, EGLDisplay *dpy, EGLSurface *surf)
{
    *dpy = eglGetDisplay((EGLNativeDisplayType)x);
    if (*dpy == EGL_NO_DISPLAY || !eglInitialize(*dpy, NULL, NULL)) return -1;
    static const EGLint cfg_attribs[] = {EGL_SURFACE_TYPE,
                                         EGL_WINDOW_BIT,
                                         EGL_RENDERABLE_TYPE,
                                         EGL_OPENGL_ES2_BIT,
                                         EGL_RED_SIZE,
                                         8,
                                         EGL_GREEN_SIZE,
                                         8,
                                         EGL_BLUE_SIZE,
                                         8,
                                         EGL_NONE};
    EGLConfig cfg;
    EGLint n = 0;
    if (!eglChooseConfig(*dpy, cfg_attribs, &cfg, 1, &n) || n < 1) return -1;
    if (!eglBindAPI(EGL_OPENGL_ES_API)) return -1;
    static const EGLint ctx_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
    EGLContext ctx = eglCreateContext(*dpy, cfg, EGL_NO_CONTEXT, ctx_attribs);
    *surf = eglCreateWindowSurface(*dpy, cfg, (EGLNativeWindowType)win, NULL);
    if (ctx == EGL_NO_CONTEXT || *surf == EGL_NO_SURFACE) return -1;
    return eglMakeCurrent(*dpy, *surf, *surf, ctx) ? 0 : -1;
}

int main(int argc, char **argv)
{
    int frames = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: tbr-capture-test-epoxy [--frames N]  (needs $DISPLAY)\n");
            return 2;
        }
    }
    Display *x = XOpenDisplay(NULL);
    if (!x) {
        fprintf(stderr, "tbr-capture-test-epoxy: cannot open the X display\n");
        return 2;
    }
    probe_glx(x);
    Window win = XCreateSimpleWindow(x, DefaultRootWindow(x), 0, 0, WIDTH, HEIGHT, 0, 0, 0);
    XMapWindow(x, win);
    XSync(x, False);
    EGLDisplay dpy;
    EGLSurface surf;
    if (init_egl(x, win, &dpy, &surf) < 0) {
        fprintf(stderr, "tbr-capture-test-epoxy: EGL setup failed (0x%x)\n", eglGetError());
        return 1;
    }
    fprintf(stderr, "tbr-capture-test-epoxy: %s, GL %d through libepoxy\n", (const char *)glGetString(GL_RENDERER),
            epoxy_gl_version());
    glViewport(0, 0, WIDTH, HEIGHT);
    glEnable(GL_SCISSOR_TEST);
    for (int f = 0; f < frames; f++) {
        glScissor(0, 0, WIDTH, HEIGHT);
        glClearColor(0.2f, 0.2f, 0.25f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        glScissor(32 + 8 * f, 32, 96, 64);
        glClearColor(0.25f * (float)(f % 4), 0.7f, 0.4f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        if (glGetError() != GL_NO_ERROR || !eglSwapBuffers(dpy, surf)) {
            fprintf(stderr, "tbr-capture-test-epoxy: frame %d failed\n", f);
            return 1;
        }
    }
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglTerminate(dpy);
    XDestroyWindow(x, win);
    XCloseDisplay(x);
    return 0;
}
