/* tbr-mesa-check: creates a headless OpenGL ES context (EGL surfaceless platform, pbuffer) with
 * whatever libEGL the dynamic linker finds, prints GL_RENDERER / GL_VERSION, and fails unless the
 * renderer is softpipe. The setup script and the tests run it with LD_LIBRARY_PATH set to the
 * project's Mesa: a wrong path silently loads Debian's llvmpipe, and this makes that loud. */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: tbr-mesa-check [--expect RENDERER_SUBSTRING] [--any] [-q]\n"
               "Creates an EGL surfaceless GLES context and prints GL_RENDERER and GL_VERSION.\n"
               "Exit 0 if GL_RENDERER contains the expected text (default 'softpipe'),\n"
               "1 if it does not, 2 if no context can be created. --any accepts any renderer.\n"
               "  -q, --quiet    print nothing on stdout: the exit status says\n"
               "  -h, --help     this help\n"
               "      --version  print the version\n");
}

int main(int argc, char **argv)
{
    const char *expect = "softpipe";
    static const struct option options[] = {{"expect", required_argument, NULL, 'e'}, {"any", no_argument, NULL, 'a'},
                                            {"help", no_argument, NULL, 'h'},         {"quiet", no_argument, NULL, 'q'},
                                            {"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "hq", options, NULL)) != -1) {
        switch (opt) {
            case 'e': expect = optarg; break;
            case 'a': expect = NULL; break;
            case 'h': usage(stdout); return 0;
            case 'q':
                if (!freopen("/dev/null", "w", stdout)) return 2;
                break;
            case 'V': printf("tbr-mesa-check %s\n", TBR_VERSION); return 0;
            default: usage(stderr); return 2;
        }
    }
    if (optind != argc) {
        usage(stderr);
        return 2;
    }

    EGLDisplay dpy = EGL_NO_DISPLAY;
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (get_platform_display) dpy = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (dpy == EGL_NO_DISPLAY) dpy = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    EGLint major, minor;
    if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) {
        fprintf(stderr, "tbr-mesa-check: cannot initialize an EGL display (error 0x%x)\n", eglGetError());
        return 2;
    }
    static const EGLint config_attribs[] = {
        EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_RED_SIZE, 8, EGL_NONE};
    EGLConfig config;
    EGLint nconfigs = 0;
    if (!eglChooseConfig(dpy, config_attribs, &config, 1, &nconfigs) || nconfigs < 1) {
        fprintf(stderr, "tbr-mesa-check: no pbuffer GLES2 EGL config\n");
        return 2;
    }
    static const EGLint pbuffer_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    EGLSurface surface = eglCreatePbufferSurface(dpy, config, pbuffer_attribs);
    eglBindAPI(EGL_OPENGL_ES_API);
    static const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, context_attribs);
    if (surface == EGL_NO_SURFACE || ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, surface, surface, ctx)) {
        fprintf(stderr, "tbr-mesa-check: cannot create a GLES context (error 0x%x)\n", eglGetError());
        return 2;
    }
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    const char *version = (const char *)glGetString(GL_VERSION);
    printf("GL_RENDERER=%s\nGL_VERSION=%s\nEGL_VERSION=%s\n", renderer ? renderer : "", version ? version : "",
           eglQueryString(dpy, EGL_VERSION));
    int ok = !expect || (renderer && strstr(renderer, expect));
    if (!ok)
        fprintf(stderr,
                "tbr-mesa-check: GL_RENDERER '%s' is not '%s': the project's Mesa was not loaded "
                "(check LD_LIBRARY_PATH)\n",
                renderer ? renderer : "", expect);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglDestroySurface(dpy, surface);
    eglTerminate(dpy);
    return ok ? 0 : 1;
}
