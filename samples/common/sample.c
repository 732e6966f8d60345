/* Shared EGL setup, argument parsing, shader and matrix helpers for the samples. */
#include "sample.h"

#include <EGL/eglext.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(const struct sample_desc *d, FILE *f)
{
    fprintf(f,
            "usage: tbr-sample-%s [--frames N] [--verbose] [--help]\n"
            "%s\n"
            "Renders %dx%d frames into an EGL pbuffer (EGL surfaceless platform, falling back\n"
            "to the default display) with an OpenGL ES %d.0 context; one eglSwapBuffers per\n"
            "frame; the animation depends on the frame number only.\n"
            "  --frames N   number of frames to render (default %d)\n"
            "  --verbose    print GL_RENDERER/GL_VERSION and progress on stderr\n",
            d->name, d->summary, SAMPLE_WIDTH, SAMPLE_HEIGHT, d->es_version, d->default_frames);
}

static int parse_args(struct sample *s, int argc, char **argv)
{
    const struct sample_desc *d = s->desc;
    s->frames = d->default_frames;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(d, stdout);
            return -1;
        } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
            s->verbose = 1;
        } else if (!strcmp(a, "--frames") || !strncmp(a, "--frames=", 9)) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
            char *end = NULL;
            errno = 0;
            long n = v ? strtol(v, &end, 10) : 0;
            if (!v || !*v || *end || errno || n < 1 || n > 1000000) {
                fprintf(stderr, "tbr-sample-%s: --frames needs a positive integer\n", d->name);
                return 2;
            }
            s->frames = (int)n;
        } else {
            fprintf(stderr, "tbr-sample-%s: unknown argument '%s' (see --help)\n", d->name, a);
            return 2;
        }
    }
    return 0;
}

static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p && (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

static EGLDisplay open_display(const char *name, int verbose)
{
    /* Surfaceless first: it needs neither X11 nor Wayland nor /dev/dri.  The client
     * extension string is queried on EGL_NO_DISPLAY (EGL_EXT_client_extensions). */
    const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDisplay dpy = EGL_NO_DISPLAY;
    if (cext && has_word(cext, "EGL_MESA_platform_surfaceless") && get_platform_display) {
        dpy = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, NULL, NULL)) {
            if (verbose) fprintf(stderr, "tbr-sample-%s: surfaceless display failed to initialize\n", name);
            dpy = EGL_NO_DISPLAY;
        }
    }
    if (dpy == EGL_NO_DISPLAY) {
        if (verbose) fprintf(stderr, "tbr-sample-%s: falling back to EGL_DEFAULT_DISPLAY\n", name);
        dpy = eglGetDisplay(EGL_DEFAULT_DISPLAY);
        if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, NULL, NULL)) dpy = EGL_NO_DISPLAY;
    }
    return dpy;
}

int sample_init(struct sample *s, const struct sample_desc *d, int argc, char **argv)
{
    memset(s, 0, sizeof *s);
    s->desc = d;
    s->dpy = EGL_NO_DISPLAY;
    s->surf = EGL_NO_SURFACE;
    s->ctx = EGL_NO_CONTEXT;
    int rc = parse_args(s, argc, argv);
    if (rc) return rc < 0 ? 0 : rc;

    s->dpy = open_display(d->name, s->verbose);
    if (s->dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "tbr-sample-%s: no usable EGL display (error 0x%x)\n", d->name, eglGetError());
        return 1;
    }
    if (!eglBindAPI(EGL_OPENGL_ES_API)) {
        fprintf(stderr, "tbr-sample-%s: eglBindAPI(EGL_OPENGL_ES_API) failed\n", d->name);
        return 1;
    }

    const EGLint cfg_attribs[] = {
        EGL_SURFACE_TYPE,
        EGL_PBUFFER_BIT,
        EGL_RENDERABLE_TYPE,
        d->es_version >= 3 ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_ES2_BIT,
        EGL_RED_SIZE,
        8,
        EGL_GREEN_SIZE,
        8,
        EGL_BLUE_SIZE,
        8,
        EGL_ALPHA_SIZE,
        8,
        EGL_DEPTH_SIZE,
        d->depth_bits,
        EGL_NONE,
    };
    EGLConfig cfgs[64];
    EGLint ncfg = 0;
    if (!eglChooseConfig(s->dpy, cfg_attribs, cfgs, 64, &ncfg) || ncfg < 1) {
        fprintf(stderr, "tbr-sample-%s: no RGBA8 pbuffer config for ES %d\n", d->name, d->es_version);
        return 1;
    }
    /* eglChooseConfig sorts deeper colour formats first (e.g. 10-bit): take the first
     * exact RGBA8 config so every EGL implementation renders the same format. */
    EGLConfig cfg = cfgs[0];
    for (EGLint i = 0; i < ncfg; i++) {
        EGLint r, g, b, a;
        eglGetConfigAttrib(s->dpy, cfgs[i], EGL_RED_SIZE, &r);
        eglGetConfigAttrib(s->dpy, cfgs[i], EGL_GREEN_SIZE, &g);
        eglGetConfigAttrib(s->dpy, cfgs[i], EGL_BLUE_SIZE, &b);
        eglGetConfigAttrib(s->dpy, cfgs[i], EGL_ALPHA_SIZE, &a);
        if (r == 8 && g == 8 && b == 8 && a == 8) {
            cfg = cfgs[i];
            break;
        }
    }

    const EGLint surf_attribs[] = {EGL_WIDTH, SAMPLE_WIDTH, EGL_HEIGHT, SAMPLE_HEIGHT, EGL_NONE};
    s->surf = eglCreatePbufferSurface(s->dpy, cfg, surf_attribs);
    if (s->surf == EGL_NO_SURFACE) {
        fprintf(stderr, "tbr-sample-%s: eglCreatePbufferSurface failed (0x%x)\n", d->name, eglGetError());
        return 1;
    }
    const EGLint ctx_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, d->es_version, EGL_NONE};
    s->ctx = eglCreateContext(s->dpy, cfg, EGL_NO_CONTEXT, ctx_attribs);
    if (s->ctx == EGL_NO_CONTEXT) {
        fprintf(stderr, "tbr-sample-%s: eglCreateContext(ES %d) failed (0x%x)\n", d->name, d->es_version,
                eglGetError());
        return 1;
    }
    if (!eglMakeCurrent(s->dpy, s->surf, s->surf, s->ctx)) {
        fprintf(stderr, "tbr-sample-%s: eglMakeCurrent failed (0x%x)\n", d->name, eglGetError());
        return 1;
    }
    /* Always queried (not only with --verbose) so that a capture records the
     * renderer the program saw: tbr-capture copies it into the trace metadata. */
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    const char *version = (const char *)glGetString(GL_VERSION);
    if (s->verbose)
        fprintf(stderr, "tbr-sample-%s: GL_RENDERER=%s GL_VERSION=%s frames=%d\n", d->name, renderer ? renderer : "?",
                version ? version : "?", s->frames);
    glViewport(0, 0, SAMPLE_WIDTH, SAMPLE_HEIGHT);
    return 0;
}

int sample_end_frame(struct sample *s, int frame)
{
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "tbr-sample-%s: GL error 0x%04x in frame %d\n", s->desc->name, err, frame);
        return 1;
    }
    if (!eglSwapBuffers(s->dpy, s->surf)) {
        fprintf(stderr, "tbr-sample-%s: eglSwapBuffers failed (0x%x)\n", s->desc->name, eglGetError());
        return 1;
    }
    if (s->verbose) fprintf(stderr, "tbr-sample-%s: frame %d done\n", s->desc->name, frame);
    return 0;
}

int sample_fini(struct sample *s)
{
    if (s->dpy != EGL_NO_DISPLAY) {
        eglMakeCurrent(s->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (s->ctx != EGL_NO_CONTEXT) eglDestroyContext(s->dpy, s->ctx);
        if (s->surf != EGL_NO_SURFACE) eglDestroySurface(s->dpy, s->surf);
        eglTerminate(s->dpy);
        eglReleaseThread();
    }
    s->dpy = EGL_NO_DISPLAY;
    return 0;
}

static GLuint compile(GLenum type, const char *src)
{
    GLuint sh = glCreateShader(type);
    glShaderSource(sh, 1, &src, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        fprintf(stderr, "tbr-sample: %s shader failed to compile:\n%s\n",
                type == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
        exit(1);
    }
    return sh;
}

GLuint sample_program(const char *vs_src, const char *fs_src, const char *const *attribs)
{
    GLuint vs = compile(GL_VERTEX_SHADER, vs_src);
    GLuint fs = compile(GL_FRAGMENT_SHADER, fs_src);
    GLuint prog = glCreateProgram();
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    for (GLuint i = 0; attribs && attribs[i]; i++) glBindAttribLocation(prog, i, attribs[i]);
    glLinkProgram(prog);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetProgramInfoLog(prog, sizeof log, NULL, log);
        fprintf(stderr, "tbr-sample: program failed to link:\n%s\n", log);
        exit(1);
    }
    glDeleteShader(vs);
    glDeleteShader(fs);
    return prog;
}

unsigned sample_hash(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

void mat4_identity(float m[16])
{
    memset(m, 0, 16 * sizeof *m);
    m[0] = m[5] = m[10] = m[15] = 1.0f;
}

void mat4_mul(float out[16], const float a[16], const float b[16])
{
    float r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            float v = 0.0f;
            for (int k = 0; k < 4; k++) v += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = v;
        }
    memcpy(out, r, sizeof r);
}

void mat4_perspective(float m[16], float fovy_rad, float aspect, float znear, float zfar)
{
    float f = 1.0f / tanf(fovy_rad * 0.5f);
    memset(m, 0, 16 * sizeof *m);
    m[0] = f / aspect;
    m[5] = f;
    m[10] = (zfar + znear) / (znear - zfar);
    m[11] = -1.0f;
    m[14] = 2.0f * zfar * znear / (znear - zfar);
}

static void normalize3(float v[3])
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0.0f) {
        v[0] /= l;
        v[1] /= l;
        v[2] /= l;
    }
}

void mat4_look_at(float m[16], const float eye[3], const float center[3], const float up[3])
{
    float f[3] = {center[0] - eye[0], center[1] - eye[1], center[2] - eye[2]};
    normalize3(f);
    float s[3] = {f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2], f[0] * up[1] - f[1] * up[0]};
    normalize3(s);
    float u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
    mat4_identity(m);
    m[0] = s[0];
    m[4] = s[1];
    m[8] = s[2];
    m[1] = u[0];
    m[5] = u[1];
    m[9] = u[2];
    m[2] = -f[0];
    m[6] = -f[1];
    m[10] = -f[2];
    m[12] = -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]);
    m[13] = -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]);
    m[14] = f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2];
}

void mat4_translate_scale(float m[16], float tx, float ty, float tz, float sx, float sy, float sz)
{
    mat4_identity(m);
    m[0] = sx;
    m[5] = sy;
    m[10] = sz;
    m[12] = tx;
    m[13] = ty;
    m[14] = tz;
}

void mat4_rotate_y(float m[16], float rad)
{
    mat4_identity(m);
    m[0] = cosf(rad);
    m[2] = -sinf(rad);
    m[8] = sinf(rad);
    m[10] = cosf(rad);
}
