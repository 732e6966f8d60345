#include "trace_scan.h"

#include "driver.h"
#include "proc.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- trace_scan: `apitrace dump -v` line parser ---------------------------------
 * Lines look like: `123 glDrawArrays(mode = GL_TRIANGLES, first = 0, count = 3)`,
 * `15 glGetString(name = GL_RENDERER) = "llvmpipe (...)"`, `13 glViewport(...) // fake`.
 * -v includes calls apitrace marks verbose (glGetString, glGetError, ...);
 * --multiline=no keeps shader sources on one line. */

struct scan_ctx {
    struct trace_summary *s;
    unsigned long pending_compressed; /* last glCompressedTex* call since the last glGetError */
    int have_pending_compressed;
    struct strbuf err; /* stderr of apitrace dump */
};

static void add_error(struct trace_summary *s, unsigned long call, const char *fn, const char *err,
                      enum gl_error_origin origin, unsigned long cause)
{
    s->errors = xrealloc(s->errors, (s->nerrors + 1) * sizeof *s->errors);
    struct gl_error *e = &s->errors[s->nerrors++];
    e->call = call;
    e->function = xstrdup(fn);
    e->error = xstrdup(err);
    e->origin = origin;
    e->cause_call = cause;
}

/* Returns the value after "key, " in an EGL attribute list, or -1. */
static long attrib_value(const char *line, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = strstr(line, key); p; p = strstr(p + n, key)) {
        if (p[n] == ',' && p[n + 1] == ' ') return strtol(p + n + 2, NULL, 0);
    }
    return -1;
}

/* Copies a quoted string return value (`... = "text"`) without the quotes. */
static char *quoted_return(const char *line)
{
    const char *p = strstr(line, ") = \"");
    if (!p) return NULL;
    p += 5;
    const char *end = strrchr(p, '"');
    if (!end || end < p) return NULL;
    return xasprintf("%.*s", (int)(end - p), p);
}

static const char *platform_name(const char *arg)
{
    /* Numeric values as Debian's apitrace prints them for eglGetPlatformDisplayEXT. */
    long v = strtol(arg, NULL, 0);
    if (v == 0x31DD || strstr(arg, "SURFACELESS")) return "surfaceless";
    if (v == 0x31D5 || strstr(arg, "X11")) return "x11";
    if (v == 0x31DC || strstr(arg, "XCB")) return "xcb";
    if (v == 0x31D8 || strstr(arg, "WAYLAND")) return "wayland";
    if (v == 0x31D7 || strstr(arg, "GBM")) return "gbm";
    if (v == 0x313F || strstr(arg, "DEVICE")) return "device";
    if (v == 0x3141 || strstr(arg, "ANDROID")) return "android";
    return NULL;
}

/* Records each distinct `#version NNN [es]` of a glShaderSource line (the source is one
 * line with --multiline=no; newlines appear as \n). */
static void note_glsl_versions(struct trace_summary *s, const char *line)
{
    for (const char *p = strstr(line, "#version "); p; p = strstr(p + 9, "#version ")) {
        int v = 0, n = 0;
        if (sscanf(p + 9, "%d%n", &v, &n) != 1) continue;
        char name[16];
        snprintf(name, sizeof name, "%d%s", v, !strncmp(p + 9 + n, " es", 3) ? " es" : "");
        int seen = 0;
        for (int i = 0; i < s->nglsl_versions; i++) seen |= !strcmp(s->glsl_versions[i], name);
        if (!seen && s->nglsl_versions < TRACE_MAX_GLSL_VERSIONS)
            memcpy(s->glsl_versions[s->nglsl_versions++], name, sizeof name);
    }
}

static int is_swap(const char *name)
{
    return !strcmp(name, "eglSwapBuffers") || !strcmp(name, "eglSwapBuffersWithDamageEXT") ||
           !strcmp(name, "eglSwapBuffersWithDamageKHR");
}

static void scan_line(void *vctx, int stream, const char *line)
{
    struct scan_ctx *c = vctx;
    struct trace_summary *s = c->s;
    if (stream == 2) {
        if (c->err.len < 4096) {
            sb_puts(&c->err, line);
            sb_puts(&c->err, "\n");
        }
        return;
    }
    if (!isdigit((unsigned char)line[0])) return;
    char *end;
    unsigned long call = strtoul(line, &end, 10);
    if (*end != ' ') return;
    const char *name = end + 1;
    if (*name == '@') {
        /* "12 @1 glFoo(...)": apitrace names the thread when several make calls. */
        long thread = strtol(name + 1, NULL, 10);
        if (thread + 1 > s->threads) s->threads = (int)(thread + 1);
        name = strchr(name, ' ');
        if (!name) return;
        name++;
    }
    const char *paren = strchr(name, '(');
    if (!paren || paren - name > 127) return;
    char fn[128];
    memcpy(fn, name, (size_t)(paren - name));
    fn[paren - name] = '\0';
    int fake = strstr(line, ") // fake") != NULL;
    s->calls++;

    if (!strncmp(fn, "gl", 2) && strncmp(fn, "glX", 3)) s->saw_gl = 1;
    if ((!strncmp(fn, "glDraw", 6) && strncmp(fn, "glDrawBuffers", 13)) || !strncmp(fn, "glMultiDraw", 11)) {
        s->draws++;
    } else if (!strcmp(fn, "glClear") || !strncmp(fn, "glClearBuffer", 13)) {
        s->clears++;
    } else if (!strcmp(fn, "glBindFramebuffer")) {
        s->framebuffer_binds++;
    } else if (is_swap(fn)) {
        if (!s->have_swap) s->first_swap_call = call;
        s->have_swap = 1;
        s->last_swap_call = call;
        s->swaps++;
    } else if (!strcmp(fn, "eglCreateContext")) {
        s->saw_egl_context = 1;
        s->contexts++;
        long v = attrib_value(line, "EGL_CONTEXT_MAJOR_VERSION");
        if (v < 0) v = attrib_value(line, "EGL_CONTEXT_CLIENT_VERSION");
        if (v > 0 && !s->es_major) s->es_major = (int)v;
    } else if (!strcmp(fn, "eglMakeCurrent")) {
        s->saw_egl_context = 1;
    } else if (!strcmp(fn, "eglGetPlatformDisplay") || !strcmp(fn, "eglGetPlatformDisplayEXT")) {
        const char *p = strstr(line, "platform = ");
        const char *pn = p ? platform_name(p + 11) : NULL;
        if (!s->egl_platform) s->egl_platform = xstrdup(pn ? pn : "other");
    } else if (!strcmp(fn, "eglGetDisplay")) {
        if (!s->egl_platform) s->egl_platform = xstrdup("default");
    } else if (!strcmp(fn, "eglCreatePbufferSurface")) {
        if (!s->surface) {
            s->surface = xstrdup("pbuffer");
            long w = attrib_value(line, "EGL_WIDTH"), h = attrib_value(line, "EGL_HEIGHT");
            if (w > 0 && h > 0) {
                s->width = (int)w;
                s->height = (int)h;
            }
        }
    } else if (!strncmp(fn, "eglCreateWindowSurface", 22) || !strncmp(fn, "eglCreatePlatformWindowSurface", 30)) {
        if (!s->surface) s->surface = xstrdup("window");
    } else if (!strcmp(fn, "glViewport") && !fake) {
        int x, y, w, h;
        if (!s->width && sscanf(paren, "(x = %d, y = %d, width = %d, height = %d)", &x, &y, &w, &h) == 4 && x == 0 &&
            y == 0 && w > 0 && h > 0) {
            s->width = w;
            s->height = h;
        }
    } else if (!strcmp(fn, "glGetString")) {
        char **dst = strstr(line, "name = GL_RENDERER)")  ? &s->gl_renderer
                     : strstr(line, "name = GL_VERSION)") ? &s->gl_version
                                                          : NULL;
        if (dst && !*dst) *dst = quoted_return(line);
    } else if (!strncmp(fn, "eglCreateImage", 14)) {
        if (!s->egl_images) s->first_egl_image_call = call;
        s->egl_images++;
    } else if (!strcmp(fn, "glShaderSource")) {
        note_glsl_versions(s, line);
    } else if (!strncmp(fn, "glCompressedTex", 15)) {
        c->pending_compressed = call;
        c->have_pending_compressed = 1;
    } else if (!strcmp(fn, "glGetError")) {
        const char *r = strstr(line, ") = ");
        if (r && strncmp(r + 4, "GL_NO_ERROR", 11)) {
            char err[64];
            if (sscanf(r + 4, "%63[A-Za-z0-9_]", err) == 1) {
                /* apitrace's glCompressedTex* wrappers query GL_UNPACK_COMPRESSED_BLOCK_*,
                 * which do not exist on ES: the program sees GL_INVALID_ENUM it never caused. */
                int tracer = c->have_pending_compressed && !strcmp(err, "GL_INVALID_ENUM");
                add_error(s, call, "glGetError", err, tracer ? GLERR_TRACER : GLERR_CAPTURE,
                          tracer ? c->pending_compressed : 0);
            }
        }
        c->have_pending_compressed = 0;
    }
}

int trace_scan(const char *path, struct trace_summary *s)
{
    memset(s, 0, sizeof *s);
    s->threads = 1;
    struct scan_ctx c = {s, 0, 0, {NULL, 0, 0}};
    char *argv[] = {"apitrace",         "dump",       "-v", "--multiline=no", "--color=never",
                    "--thread-ids=yes", (char *)path, NULL};
    int status = 0;
    int rc = run_lines(argv, NULL, scan_line, &c, 1800.0, &status);
    if (rc < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char sbuf[96];
        if (rc < 0 && errno == ENOENT && !g_interrupted)
            msg("apitrace not found: install apitrace (scripts/install-deps)");
        else
            msg("`apitrace dump %s` failed (%s)%s%s", path, describe_status(status, sbuf, sizeof sbuf),
                c.err.len ? ":\n" : "", c.err.len ? c.err.s : "");
        sb_free(&c.err);
        return -1;
    }
    sb_free(&c.err);
    return 0;
}

void trace_summary_free(struct trace_summary *s)
{
    free(s->gl_renderer);
    free(s->gl_version);
    free(s->egl_platform);
    free(s->surface);
    for (size_t i = 0; i < s->nerrors; i++) {
        free(s->errors[i].function);
        free(s->errors[i].error);
    }
    free(s->errors);
    for (size_t i = 0; i < s->nproblems; i++) {
        free(s->problems[i].what);
        free(s->problems[i].detail);
    }
    free(s->problems);
    memset(s, 0, sizeof *s);
}

/* ---- apitrace info ------------------------------------------------------------ */

struct info_ctx {
    long frames;
};

static void info_line(void *vctx, int stream, const char *line)
{
    struct info_ctx *c = vctx;
    const char *p = strstr(line, "\"FramesCount\":");
    if (stream == 1 && p) c->frames = strtol(p + 14, NULL, 10);
}

long trace_frame_count(const char *path)
{
    struct info_ctx c = {-1};
    char *argv[] = {"apitrace", "info", (char *)path, NULL};
    int status = 0;
    if (run_lines(argv, NULL, info_line, &c, 600.0, &status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return c.frames;
}

/* ---- partial traces ----------------------------------------------------------- */

off_t trace_copy_complete_chunks(const char *src, const char *dst)
{
    /* apitrace's snappy container: "at", then chunks of a little-endian uint32
     * length followed by that many bytes of snappy data (docs: capturing notes). */
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0) return errno == ENOENT ? 0 : -1;
    off_t size = lseek(in, 0, SEEK_END);
    char *buf = NULL;
    off_t good = 0;
    if (size > 6) {
        buf = xmalloc((size_t)size);
        if (pread(in, buf, (size_t)size, 0) != (ssize_t)size) {
            free(buf);
            close(in);
            return -1;
        }
        if (buf[0] == 'a' && buf[1] == 't') {
            off_t pos = 2;
            while (pos + 4 <= size) {
                const unsigned char *l = (const unsigned char *)buf + pos;
                uint32_t n = (uint32_t)l[0] | (uint32_t)l[1] << 8 | (uint32_t)l[2] << 16 | (uint32_t)l[3] << 24;
                if (pos + 4 + (off_t)n > size) break;
                pos += 4 + (off_t)n;
                good = pos;
            }
        }
    }
    close(in);
    if (good == 0) {
        free(buf);
        return 0;
    }
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0 || write(out, buf, (size_t)good) != (ssize_t)good) {
        if (out >= 0) close(out);
        free(buf);
        return -1;
    }
    close(out);
    free(buf);
    return good;
}

/* ---- eglretrace validation ---------------------------------------------------- */

struct replay_ctx {
    struct trace_summary *s;
    unsigned long problem_call; /* the last problem, whose log line may follow */
    int problem_open;
    long frames;
    unsigned long warnings;
    struct strbuf other; /* first few unexpected lines, for failure messages */
    int other_lines;
};

/* "<call>: <kind>..." (sscanf's return value alone does not tell whether the
 * literal text after the number matched). */
static int is_numbered(const char *line, const char *kind)
{
    unsigned long call;
    int n = 0;
    char fmt[48];
    snprintf(fmt, sizeof fmt, "%%lu: %s%%n", kind);
    return sscanf(line, fmt, &call, &n) == 1 && n > 0;
}

static void replay_line(void *vctx, int stream, const char *line)
{
    struct replay_ctx *c = vctx;
    (void)stream;
    unsigned long call;
    char fn[128], err[64];
    const char *p;
    /* "24: warning: glGetError(glEnable) = GL_INVALID_ENUM" (retrace's error check). */
    int what_end = 0;
    if (sscanf(line, "%lu: warning: glGetError(%127[A-Za-z0-9_]) = %63[A-Za-z0-9_]", &call, fn, err) == 3) {
        add_error(c->s, call, fn, err, GLERR_REPLAY, 0);
    } else if (sscanf(line, "%lu: warning: %*[a-z] failed%n", &call, &what_end) == 1 && what_end > 0 &&
               !line[what_end]) {
        /* "23: warning: compilation failed", then "23: warning: <the driver's log>". */
        struct trace_summary *s = c->s;
        s->problems = xrealloc(s->problems, (s->nproblems + 1) * sizeof *s->problems);
        const char *w = strstr(line, "warning: ") + 9;
        s->problems[s->nproblems++] = (struct replay_problem){call, xstrdup(w), NULL};
        c->problem_call = call;
        c->problem_open = 1;
    } else if (c->problem_open && sscanf(line, "%lu: warning: %n", &call, &what_end) == 1 && what_end > 0 &&
               call == c->problem_call) {
        c->s->problems[c->s->nproblems - 1].detail = xstrdup(line + what_end);
        c->problem_open = 0;
    } else if ((p = strstr(line, "Rendered ")) == line) {
        c->frames = strtol(p + 9, NULL, 10);
    } else if (is_numbered(line, "warning") || is_numbered(line, "error")) {
        c->warnings++;
        if (c->other_lines++ < 8) {
            sb_puts(&c->other, line);
            sb_puts(&c->other, "\n");
        }
    } else if (strstr(line, "error") || strstr(line, "Error")) {
        if (c->other_lines++ < 8) {
            sb_puts(&c->other, line);
            sb_puts(&c->other, "\n");
        }
    }
}

long trace_validate(const char *path, const char *mesa_prefix, struct trace_summary *s, unsigned long *replay_warnings,
                    char **failure)
{
    struct env env;
    env_init_from_current(&env);
    driver_set_replay_env(mesa_prefix, &env);
    struct replay_ctx c = {s, 0, 0, -1, 0, {NULL, 0, 0}, 0};
    /* The same options as tbr-replay (replay/replay_main.c). */
    char *argv[] = {"eglretrace", "--no-context-check", "--singlethread", (char *)path, NULL};
    int status = 0;
    int rc = run_lines(argv, env.v, replay_line, &c, 1800.0, &status);
    env_free(&env);
    *replay_warnings = c.warnings;
    *failure = NULL;
    char sbuf[96];
    if (rc < 0) {
        *failure = g_interrupted     ? xstrdup("interrupted")
                   : errno == ENOENT ? xstrdup("eglretrace not found (Debian package apitrace)")
                                     : xstrdup("eglretrace timed out");
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || c.frames < 0) {
        *failure = xasprintf("eglretrace failed (%s)%s%s", describe_status(status, sbuf, sizeof sbuf),
                             c.other.len ? ":\n" : "", c.other.len ? c.other.s : "");
    }
    sb_free(&c.other);
    return *failure ? -1 : c.frames;
}
