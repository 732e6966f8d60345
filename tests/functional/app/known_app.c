/* Shared EGL/GLES setup for the known-* traced test programs (see known_app.h). */
#include "known_app.h"

#include <EGL/eglext.h>
#include <stdio.h>
#include <stdlib.h>

void known_die(const struct known_app *app, const char *what)
{
    fprintf(stderr, "%s: %s failed (egl 0x%x, gl 0x%x)\n", app->name, what, eglGetError(), glGetError());
    exit(1);
}

static EGLConfig choose_config(const struct known_app *app, int depth_bits)
{
    EGLint n = 0;
    if (!depth_bits) {
        const EGLint cfg_attribs[] = {
            EGL_SURFACE_TYPE,
            EGL_PBUFFER_BIT,
            EGL_RENDERABLE_TYPE,
            EGL_OPENGL_ES2_BIT,
            EGL_RED_SIZE,
            8,
            EGL_GREEN_SIZE,
            8,
            EGL_BLUE_SIZE,
            8,
            EGL_ALPHA_SIZE,
            8,
            EGL_NONE,
        };
        EGLConfig cfg = NULL;
        if (!eglChooseConfig(app->dpy, cfg_attribs, &cfg, 1, &n) || n < 1) known_die(app, "eglChooseConfig");
        return cfg;
    }
    const EGLint cfg_attribs[] = {
        EGL_SURFACE_TYPE,
        EGL_PBUFFER_BIT,
        EGL_RENDERABLE_TYPE,
        EGL_OPENGL_ES2_BIT,
        EGL_RED_SIZE,
        8,
        EGL_GREEN_SIZE,
        8,
        EGL_BLUE_SIZE,
        8,
        EGL_ALPHA_SIZE,
        8,
        EGL_DEPTH_SIZE,
        depth_bits,
        EGL_NONE,
    };
    EGLConfig cfgs[64], cfg = NULL;
    if (!eglChooseConfig(app->dpy, cfg_attribs, cfgs, 64, &n) || n < 1) known_die(app, "eglChooseConfig");
    for (EGLint i = 0; i < n && !cfg; i++) {
        EGLint d = 0, r = 0, a = 0;
        eglGetConfigAttrib(app->dpy, cfgs[i], EGL_DEPTH_SIZE, &d);
        eglGetConfigAttrib(app->dpy, cfgs[i], EGL_RED_SIZE, &r);
        eglGetConfigAttrib(app->dpy, cfgs[i], EGL_ALPHA_SIZE, &a);
        if (d == depth_bits && r == 8 && a == 8) cfg = cfgs[i];
    }
    return cfg ? cfg : cfgs[0];
}

void known_app_init(struct known_app *app, const char *name, int w, int h, int depth_bits)
{
    app->name = name;
    app->dpy = EGL_NO_DISPLAY;
    PFNEGLGETPLATFORMDISPLAYEXTPROC gpd =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (gpd) app->dpy = gpd(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (app->dpy == EGL_NO_DISPLAY || !eglInitialize(app->dpy, NULL, NULL)) known_die(app, "eglInitialize");
    eglBindAPI(EGL_OPENGL_ES_API);
    EGLConfig cfg = choose_config(app, depth_bits);
    const EGLint surf_attribs[] = {EGL_WIDTH, w, EGL_HEIGHT, h, EGL_NONE};
    app->surf = eglCreatePbufferSurface(app->dpy, cfg, surf_attribs);
    if (app->surf == EGL_NO_SURFACE) known_die(app, "eglCreatePbufferSurface");
    const EGLint ctx_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
    app->ctx = eglCreateContext(app->dpy, cfg, EGL_NO_CONTEXT, ctx_attribs);
    if (app->ctx == EGL_NO_CONTEXT || !eglMakeCurrent(app->dpy, app->surf, app->surf, app->ctx))
        known_die(app, "eglCreateContext/eglMakeCurrent");
}

void known_app_fini(struct known_app *app)
{
    eglMakeCurrent(app->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(app->dpy, app->ctx);
    eglDestroySurface(app->dpy, app->surf);
    eglTerminate(app->dpy);
}

GLuint known_shader(const struct known_app *app, GLenum type, const char *src)
{
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024];
        glGetShaderInfoLog(s, sizeof(log), NULL, log);
        fprintf(stderr, "%s: shader: %s\n", app->name, log);
        exit(1);
    }
    return s;
}

GLuint known_program(const struct known_app *app, const char *vs, const char *fs, const char *const *attribs)
{
    GLuint p = glCreateProgram();
    glAttachShader(p, known_shader(app, GL_VERTEX_SHADER, vs));
    glAttachShader(p, known_shader(app, GL_FRAGMENT_SHADER, fs));
    for (GLuint i = 0; attribs && attribs[i]; i++) glBindAttribLocation(p, i, attribs[i]);
    glLinkProgram(p);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) known_die(app, "glLinkProgram");
    return p;
}

void known_rect_px(int x0, int y0, int x1, int y1, float z, int w, int h)
{
    float v[18];
    const int xs[6] = {x0, x1, x1, x0, x1, x0}, ys[6] = {y0, y0, y1, y0, y1, y1};
    for (int i = 0; i < 6; i++) {
        v[3 * i] = 2.0f * (float)xs[i] / (float)w - 1.0f;
        v[3 * i + 1] = 2.0f * (float)ys[i] / (float)h - 1.0f;
        v[3 * i + 2] = 2.0f * z - 1.0f;
    }
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, v);
    glDrawArrays(GL_TRIANGLES, 0, 6);
}
