/* tbr-capture: records a GLES program's EGL/GLES calls with Debian's apitrace tracer
 * (egltrace.so, LD_PRELOAD), stops it after N frames or S seconds, trims the trace
 * to complete frames, validates it with one headless replay and writes metadata.
 * Also cuts frame windows out of existing traces.  See docs/capture.md.
 *
 * This is the first stage of the toolchain (thesis ch. 2 / Emerald Sec. 3: apitrace
 * capture -> instrumented Mesa replay -> timing simulation). */
#define _GNU_SOURCE /* pipe2 */
#include "cut_contexts.h"
#include "display.h"
#include "driver.h"
#include "proc.h"
#include "trace_scan.h"
#include "util.h"
#include "tbr/frame_range.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef TBR_CAPTURE_PRELOAD_PATH
#define TBR_CAPTURE_PRELOAD_PATH ""
#endif
#ifndef TBR_VERSION
#define TBR_VERSION "unknown"
#endif

/* Exit codes: 0 success, 1 failure (e.g. validation replay), 2 a named problem with
 * the request (usage, program not found, no frames, unwritable output), 130 interrupted. */
enum { EXIT_PROBLEM = 2, EXIT_INTERRUPTED = 130 };

struct options {
    const char *output;
    long frames;    /* 0: not given */
    double seconds; /* 0: not given */
    int width, height;
    const char *platform; /* auto, surfaceless, x11, wayland */
    double timeout;
    int validate;
    int verbose;
    int quiet; /* -q: no progress messages */
    int force; /* replace an existing OUT.trace / OUT.trace.json */
    int keep_setup_frame;
    const char *cut; /* "A-B" */
    const char *cut_input;
    enum capture_driver driver; /* what the program runs on (--driver) */
    const char *mesa_prefix;    /* --mesa-prefix: the project's softpipe, for validation */
    char **command;             /* after "--" */
    int command_argc;
};

/* Everything that must be cleaned up on any exit path. */
static struct {
    char *workdir;
    struct display display;
    pid_t child;
} g;

static void cleanup(void)
{
    if (g.child > 0) {
        stop_process(g.child, 1, 3.0);
        g.child = 0;
    }
    display_stop(&g.display);
    if (g.workdir) {
        remove_tree(g.workdir);
        free(g.workdir);
        g.workdir = NULL;
    }
}

static void on_signal(int sig)
{
    (void)sig;
    g_interrupted = 1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: tbr-capture -o OUT.trace [--force] [--frames N | --seconds S] [--size WxH]\n"
               "                   [--platform auto|surfaceless|x11|wayland] [--driver softpipe|llvmpipe]\n"
               "                   [options] -- PROGRAM [ARGS...]\n"
               "       tbr-capture --cut A-B IN.trace -o OUT.trace [--force] [--keep-setup-frame] [--no-validate]\n"
               "\n"
               "Records PROGRAM's EGL/OpenGL ES calls with apitrace's tracer (egltrace.so), stops it\n"
               "after N complete frames or S seconds, trims the trace so that it ends on a complete\n"
               "frame, replays it once headless on softpipe (eglretrace, the project's Mesa as\n"
               "tbr-replay uses it) to validate it and writes OUT.trace.json (command line,\n"
               "platform, resolution, frames, GL strings, errors).  The program runs on Mesa's\n"
               "softpipe too, so that it picks what the replay supports (GL and GLSL versions,\n"
               "extensions, limits).\n"
               "\n"
               "  -o, --output FILE    trace to write (written under a temporary name, then renamed), with\n"
               "                       its metadata FILE.json; must not exist unless --force\n"
               "      --force          replace FILE and FILE.json if they exist\n"
               "  --frames N           keep frames 0..N-1; the program is stopped once N frames are\n"
               "                       recorded (or ends by itself)\n"
               "  --seconds S          stop the program after S seconds; keep its complete frames\n"
               "  --timeout S          give up waiting for --frames after S seconds (default 600)\n"
               "  --size WxH           screen of the private Xvfb / weston (default 1280x720)\n"
               "  --platform P         auto (default): use $DISPLAY or $WAYLAND_DISPLAY if set, else\n"
               "                       start a private Xvfb; surfaceless: run directly (pbuffer or\n"
               "                       surfaceless programs; DISPLAY and WAYLAND_DISPLAY unset);\n"
               "                       x11: always a private Xvfb; wayland: a private headless weston\n"
               "  --driver D           softpipe (default): what tbr-replay replays on; llvmpipe:\n"
               "                       faster, trimmed to softpipe's ES 3.1 and extensions but not\n"
               "                       its limits; a trace that softpipe cannot replay then fails\n"
               "                       validation (exit 1) naming the calls\n"
               "  --mesa-prefix DIR    the project's Mesa build to validate on (default: $TBR_MESA_PREFIX,\n"
               "                       else the build's; without one, Debian's softpipe)\n"
               "  --no-validate        skip the validation replay\n"
               "  --cut A-B IN.trace   write frames A..B (0-based, inclusive) of IN.trace as a trace\n"
               "                       that replays on its own (apitrace gltrim keeps the state setup;\n"
               "                       with several contexts: earlier frames' drawing dropped, the\n"
               "                       result checked against the whole trace on softpipe)\n"
               "  --keep-setup-frame   with --cut: keep gltrim's extra leading setup frame\n"
               "  -q, --quiet          no progress messages (warnings, errors and the program's own\n"
               "                       output are still shown)\n"
               "  -v, --verbose        also show apitrace's routine messages\n"
               "  -h, --help, --version\n"
               "\n"
               "Exit status: 0 success; 1 failure (e.g. the validation replay failed); 2 a problem\n"
               "with the request (program not found, no EGL/GLES calls, no complete frame, output\n"
               "not writable, bad arguments); 130 interrupted.\n");
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->width = 1280;
    o->height = 720;
    o->platform = "auto";
    o->timeout = 600.0;
    o->validate = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
#define NEEDS_VALUE()                                                                                                  \
    do {                                                                                                               \
        if (i + 1 >= argc) {                                                                                           \
            msg("%s needs a value (see --help)", a);                                                                   \
            return -1;                                                                                                 \
        }                                                                                                              \
        val = argv[++i];                                                                                               \
    } while (0)
        if (!strcmp(a, "--")) {
            o->command = &argv[i + 1];
            o->command_argc = argc - i - 1;
            break;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--version")) {
            printf("tbr-capture %s\n", TBR_VERSION);
            exit(0);
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            NEEDS_VALUE();
            o->output = val;
        } else if (!strcmp(a, "--frames")) {
            NEEDS_VALUE();
            if (parse_long(val, 1, 100000000, &o->frames) < 0) {
                msg("--frames needs a positive integer, not '%s'", val);
                return -1;
            }
        } else if (!strcmp(a, "--seconds") || !strcmp(a, "--timeout")) {
            NEEDS_VALUE();
            char *end;
            double v = strtod(val, &end);
            if (!*val || *end || !(v > 0) || v > 1e6) {
                msg("%s needs a positive number of seconds, not '%s'", a, val);
                return -1;
            }
            if (!strcmp(a, "--seconds"))
                o->seconds = v;
            else
                o->timeout = v;
        } else if (!strcmp(a, "--size")) {
            NEEDS_VALUE();
            char x;
            if (sscanf(val, "%d%c%d", &o->width, &x, &o->height) != 3 || x != 'x' || o->width < 16 || o->height < 16 ||
                o->width > 16384 || o->height > 16384) {
                msg("--size needs WxH (e.g. 800x600), not '%s'", val);
                return -1;
            }
        } else if (!strcmp(a, "--platform")) {
            NEEDS_VALUE();
            if (strcmp(val, "auto") && strcmp(val, "surfaceless") && strcmp(val, "x11") && strcmp(val, "wayland")) {
                msg("--platform must be auto, surfaceless, x11 or wayland, not '%s'", val);
                return -1;
            }
            o->platform = val;
        } else if (!strcmp(a, "--driver")) {
            NEEDS_VALUE();
            if (driver_parse(val, &o->driver) < 0) {
                msg("--driver must be softpipe or llvmpipe, not '%s'", val);
                return -1;
            }
        } else if (!strcmp(a, "--mesa-prefix")) {
            NEEDS_VALUE();
            o->mesa_prefix = val;
        } else if (!strcmp(a, "--no-validate")) {
            o->validate = 0;
        } else if (!strcmp(a, "--keep-setup-frame")) {
            o->keep_setup_frame = 1;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            o->verbose = 1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--force")) {
            o->force = 1;
        } else if (!strcmp(a, "--cut")) {
            NEEDS_VALUE();
            o->cut = val;
            if (i + 1 < argc && argv[i + 1][0] != '-') o->cut_input = argv[++i];
        } else {
            msg("unknown option '%s' (see --help)", a);
            return -1;
        }
#undef NEEDS_VALUE
    }
    if (!o->output) {
        msg("no output file: use -o OUT.trace (see --help)");
        return -1;
    }
    if (o->cut) {
        if (!o->cut_input) {
            msg("--cut A-B needs an input trace: tbr-capture --cut A-B IN.trace -o OUT.trace");
            return -1;
        }
        if (o->command) {
            msg("--cut does not run a program: drop the '-- PROGRAM' part");
            return -1;
        }
        return 0;
    }
    if (!o->command || o->command_argc < 1) {
        msg("no program to run: put it after '--' (see --help)");
        return -1;
    }
    if (o->frames && o->seconds) {
        msg("give --frames or --seconds, not both");
        return -1;
    }
    return 0;
}

/* ---- output handling --------------------------------------------------------- */

/* An existing OUT.trace or OUT.trace.json is refused unless --force, before anything runs
 * (the same rule as tbr-replay's and tbr-sim's output directories). Returns 0 or -1. */
static int check_output_free(const struct options *o)
{
    struct stat st;
    if (o->force) return 0;
    if (stat(o->output, &st) == 0 && !S_ISDIR(st.st_mode)) {
        msg("%s: already exists (use --force to replace it)", o->output);
        return -1;
    }
    char *json = xasprintf("%s.json", o->output);
    int exists = stat(json, &st) == 0;
    if (exists) msg("%s: already exists (use --force to replace it)", json);
    free(json);
    return exists ? -1 : 0;
}

/* Creates the work directory next to the output, so the final rename is atomic and
 * an unwritable destination is detected before the program runs. */
static int make_workdir(const char *output)
{
    struct stat st;
    if (stat(output, &st) == 0 && S_ISDIR(st.st_mode)) {
        msg("cannot write %s: it is a directory", output);
        return -1;
    }
    char *copy = xstrdup(output);
    char *slash = strrchr(copy, '/');
    const char *dir = ".";
    const char *base = copy;
    if (slash) {
        *slash = '\0';
        dir = slash == copy ? "/" : copy;
        base = slash + 1;
    }
    if (!*base) {
        msg("cannot write '%s': not a file name", output);
        free(copy);
        return -1;
    }
    /* Absolute, because the work directory may also hold XDG_RUNTIME_DIR, which
     * libwayland rejects when relative. */
    char *absdir = realpath(dir, NULL);
    if (!absdir) {
        msg("cannot write %s: %s: %s", output, dir, strerror(errno));
        free(copy);
        return -1;
    }
    char *tmpl = xasprintf("%s/.%s.tbr-capture-XXXXXX", strcmp(absdir, "/") ? absdir : "", base);
    free(absdir);
    if (!mkdtemp(tmpl)) {
        msg("cannot write %s: cannot create files in %s: %s", output, dir, strerror(errno));
        free(tmpl);
        free(copy);
        return -1;
    }
    g.workdir = tmpl;
    free(copy);
    return 0;
}

static char *work_path(const char *name) { return xasprintf("%s/%s", g.workdir, name); }

static int write_file(const char *path, const char *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    ssize_t w = write(fd, data, n);
    int rc = (w == (ssize_t)n && fsync(fd) == 0) ? 0 : -1;
    if (close(fd) < 0) rc = -1;
    return rc;
}

static char *read_small_file(const char *path, size_t max)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char *buf = xmalloc(max + 1);
    size_t n = fread(buf, 1, max, f);
    fclose(f);
    buf[n] = '\0';
    if (n == max) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---- apitrace helpers -------------------------------------------------------- */

static char *find_egltrace_wrapper(void)
{
    const char *env = getenv("TBR_EGLTRACE_WRAPPER");
    if (env && *env) return access(env, R_OK) == 0 ? xstrdup(env) : NULL;
    /* Debian installs the wrappers under the multiarch libdir (apitrace-tracers). */
    static const char *const patterns[] = {
        "/usr/lib/*/apitrace/wrappers/egltrace.so",
        "/usr/lib/apitrace/wrappers/egltrace.so",
        "/usr/local/lib/apitrace/wrappers/egltrace.so",
        "/usr/local/lib/*/apitrace/wrappers/egltrace.so",
    };
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        glob_t gl;
        if (glob(patterns[i], 0, NULL, &gl) == 0 && gl.gl_pathc > 0) {
            char *r = xstrdup(gl.gl_pathv[0]);
            globfree(&gl);
            return r;
        }
        globfree(&gl);
    }
    return NULL;
}

struct quiet_ctx {
    struct strbuf out;
};

static void collect_line(void *vctx, int stream, const char *line)
{
    struct quiet_ctx *c = vctx;
    (void)stream;
    if (c->out.len < 8192) {
        sb_puts(&c->out, line);
        sb_puts(&c->out, "\n");
    }
}

/* Runs an apitrace subcommand quietly; prints its output only if it fails. */
static int run_apitrace(char *const argv[], const char *what)
{
    struct quiet_ctx c = {{NULL, 0, 0}};
    int status = 0;
    int rc = run_lines(argv, NULL, collect_line, &c, 3600.0, &status);
    if (rc < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char sbuf[96];
        if (!g_interrupted)
            msg("%s failed (%s)%s%s", what, rc < 0 ? strerror(errno) : describe_status(status, sbuf, sizeof sbuf),
                c.out.len ? ":\n" : "", c.out.len ? c.out.s : "");
        sb_free(&c.out);
        return -1;
    }
    sb_free(&c.out);
    return 0;
}

static int trim_frames(const char *in, const char *out, long first, long last)
{
    char fr[64];
    snprintf(fr, sizeof fr, "--frames=%ld-%ld", first, last);
    char *argv[] = {"apitrace", "trim", fr, "-o", (char *)out, (char *)in, NULL};
    return run_apitrace(argv, "apitrace trim");
}

/* ---- reporting ----------------------------------------------------------------- */

static void report_errors(const struct trace_summary *s)
{
    for (size_t i = 0; i < s->nerrors; i++) {
        const struct gl_error *e = &s->errors[i];
        switch (e->origin) {
            case GLERR_TRACER:
                msg("GL error at call %lu: glGetError() = %s while capturing, raised by the tracer itself: "
                    "apitrace's wrapper for the glCompressedTex* call %lu queries GL_UNPACK_COMPRESSED_BLOCK_* "
                    "(desktop-only enums) on an ES context; the program did not cause it and a replay does not "
                    "see it",
                    e->call, e->error, e->cause_call);
                break;
            case GLERR_CAPTURE:
                msg("GL error at call %lu: glGetError() = %s while capturing (an error of the program)", e->call,
                    e->error);
                break;
            case GLERR_REPLAY:
                msg("GL error at call %lu: %s raised %s in the validation replay", e->call, e->function, e->error);
                break;
        }
    }
}

static const char *origin_name(enum gl_error_origin o)
{
    return o == GLERR_TRACER ? "tracer" : o == GLERR_CAPTURE ? "capture" : "replay";
}

struct meta {
    const struct options *opt;
    const char *platform_used; /* surfaceless/x11/wayland/existing-x11/existing-wayland */
    const char *server;        /* "Xvfb :1", "weston tbr-capture-123" or NULL */
    long frames;
    int stopped; /* the program was stopped by tbr-capture */
    const char *program_status;
    int lost_tail;
    long replay_frames;           /* -1: not validated */
    char replayer[PATH_MAX + 96]; /* what validated it */
    char gap_reason[256];         /* what the softpipe replay could not do, or "" */
    unsigned long replay_warnings;
    const char *replay_failure;
    const char *cut_source;
    long cut_first, cut_last;
    const char *cut_method; /* "trim", "gltrim", "drop-earlier-draws" */
    int setup_frame_kept;
    char *source_metadata;
    const struct trace_summary *source; /* --cut: the whole trace, for what gltrim drops */
};

static char *metadata_json(const struct meta *m, const struct trace_summary *s, off_t trace_bytes)
{
    struct strbuf b = {NULL, 0, 0};
    time_t now = time(NULL);
    char ts[64];
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    sb_printf(&b, "{\n  \"tool\": \"tbr-capture\",\n  \"version\": \"%s\",\n  \"created\": \"%s\",\n", TBR_VERSION, ts);
    if (m->cut_source) {
        sb_puts(&b, "  \"cut\": {\"source\": ");
        sb_json_str(&b, m->cut_source);
        sb_printf(&b, ", \"first_frame\": %ld, \"last_frame\": %ld, \"method\": \"%s\", \"setup_frame_kept\": %s},\n",
                  m->cut_first, m->cut_last, m->cut_method, m->setup_frame_kept ? "true" : "false");
        sb_puts(&b, "  \"egl_platform\": ");
        sb_json_str(&b, s->egl_platform);
        sb_puts(&b, ",\n");
    } else {
        sb_puts(&b, "  \"command\": [");
        for (int i = 0; i < m->opt->command_argc; i++) {
            if (i) sb_puts(&b, ", ");
            sb_json_str(&b, m->opt->command[i]);
        }
        sb_puts(&b, "],\n  \"platform\": {\"requested\": ");
        sb_json_str(&b, m->opt->platform);
        sb_puts(&b, ", \"used\": ");
        sb_json_str(&b, m->platform_used);
        sb_puts(&b, ", \"server\": ");
        sb_json_str(&b, m->server);
        if (m->server) sb_printf(&b, ", \"screen\": \"%dx%d\"", m->opt->width, m->opt->height);
        sb_puts(&b, ", \"egl_platform\": ");
        sb_json_str(&b, s->egl_platform);
        sb_puts(&b, "},\n");
        sb_puts(&b, "  \"stop\": {");
        if (m->opt->frames) sb_printf(&b, "\"frames_requested\": %ld, ", m->opt->frames);
        if (m->opt->seconds) sb_printf(&b, "\"seconds_requested\": %g, ", m->opt->seconds);
        sb_printf(&b, "\"stopped_by_tbr_capture\": %s, \"program_status\": ", m->stopped ? "true" : "false");
        sb_json_str(&b, m->program_status);
        sb_printf(&b, ", \"trace_tail_lost\": %s},\n", m->lost_tail ? "true" : "false");
    }
    sb_puts(&b, "  \"surface\": ");
    sb_json_str(&b, s->surface);
    if (s->width > 0)
        sb_printf(&b, ",\n  \"resolution\": {\"width\": %d, \"height\": %d}", s->width, s->height);
    else
        sb_puts(&b, ",\n  \"resolution\": null");
    if (s->es_major) sb_printf(&b, ",\n  \"gles_context_version\": %d", s->es_major);
    if (!m->cut_source) {
        sb_printf(&b, ",\n  \"capture_driver\": {\"name\": \"%s\", \"env\": ", driver_name(m->opt->driver));
        char *denv = driver_describe_env(m->opt->driver);
        sb_json_str(&b, denv);
        free(denv);
        sb_puts(&b, "}");
    }
    sb_printf(&b, ",\n  \"contexts\": %d,\n  \"threads\": %d,\n  \"egl_images\": %lu", s->contexts, s->threads,
              s->egl_images);
    sb_puts(&b, ",\n  \"glsl_versions\": [");
    for (int i = 0; i < s->nglsl_versions; i++) {
        if (i) sb_puts(&b, ", ");
        sb_json_str(&b, s->glsl_versions[i]);
    }
    sb_puts(&b, "]");
    sb_printf(&b,
              ",\n  \"frames\": %ld,\n  \"calls\": %lu,\n  \"draws\": %lu,\n  \"clears\": %lu,\n"
              "  \"framebuffer_binds\": %lu,\n  \"trace_bytes\": %lld,\n",
              m->frames, s->calls, s->draws, s->clears, s->framebuffer_binds, (long long)trace_bytes);
    sb_puts(&b, "  \"gl_renderer\": ");
    sb_json_str(&b, s->gl_renderer);
    sb_puts(&b, ",\n  \"gl_version\": ");
    sb_json_str(&b, s->gl_version);
    sb_puts(&b, ",\n  \"gl_errors\": [");
    for (size_t i = 0; i < s->nerrors; i++) {
        const struct gl_error *e = &s->errors[i];
        sb_printf(&b, "%s\n    {\"call\": %lu, \"function\": ", i ? "," : "", e->call);
        sb_json_str(&b, e->function);
        sb_puts(&b, ", \"error\": ");
        sb_json_str(&b, e->error);
        sb_printf(&b, ", \"origin\": \"%s\"", origin_name(e->origin));
        if (e->origin == GLERR_TRACER) sb_printf(&b, ", \"cause_call\": %lu", e->cause_call);
        sb_puts(&b, "}");
    }
    sb_puts(&b, s->nerrors ? "\n  ],\n" : "],\n");
    if (m->replay_frames >= 0 || m->replay_failure) {
        sb_puts(&b, "  \"validation\": {\"replayer\": ");
        sb_json_str(&b, m->replayer);
        sb_printf(&b, ", \"frames\": %ld, \"warnings\": %lu, \"shader_failures\": [", m->replay_frames,
                  m->replay_warnings);
        for (size_t i = 0; i < s->nproblems; i++) {
            sb_printf(&b, "%s{\"call\": %lu, \"what\": ", i ? ", " : "", s->problems[i].call);
            sb_json_str(&b, s->problems[i].what);
            sb_puts(&b, ", \"log\": ");
            sb_json_str(&b, s->problems[i].detail);
            sb_puts(&b, "}");
        }
        sb_puts(&b, "], \"failure\": ");
        sb_json_str(&b, m->replay_failure);
        sb_puts(&b, "}");
    } else {
        sb_puts(&b, "  \"validation\": null");
    }
    if (m->source_metadata) {
        sb_puts(&b, ",\n  \"source_metadata\": ");
        sb_puts(&b, m->source_metadata);
    }
    sb_puts(&b, "\n}\n");
    return b.s;
}

/* Names what the softpipe replay could not do: shaders it could not compile or link (e.g.
 * a `#version 320 es` chosen on a driver offering ES 3.2), and, when the program ran on
 * another driver, GL errors the replay raised (a limit softpipe lacks, or an error of the
 * program's own: capture on softpipe to tell).  Returns 1 if there is any, else 0. */
static int report_replay_gaps(const struct options *o, const struct trace_summary *s, struct meta *m)
{
    char *reason = m->gap_reason;
    size_t reason_size = sizeof m->gap_reason;
    size_t replay_errors = 0;
    for (size_t i = 0; i < s->nerrors; i++) replay_errors += s->errors[i].origin == GLERR_REPLAY;
    for (size_t i = 0; i < s->nproblems; i++)
        msg("the trace does not replay on softpipe: call %lu (%s): %s", s->problems[i].call, s->problems[i].what,
            s->problems[i].detail ? s->problems[i].detail : "no log");
    if (s->nproblems) {
        snprintf(reason, reason_size, "%zu shader compilations or links fail on softpipe", s->nproblems);
        for (int i = 0; i < s->nglsl_versions; i++) msg("the trace's shaders declare #version %s", s->glsl_versions[i]);
    } else if (o->driver != DRIVER_SOFTPIPE && replay_errors) {
        snprintf(reason, reason_size,
                 "%zu GL errors on softpipe that the %s capture may not have had: the trace uses something softpipe "
                 "lacks, or the program has errors of its own (capture with --driver softpipe to tell)",
                 replay_errors, driver_name(o->driver));
    } else {
        return 0;
    }
    msg("validation failed: %s", reason);
    m->replay_failure = reason;
    return 1;
}

/* The validation replay on softpipe (driver.h).  Returns 0 or 1; *failure is set when
 * the replay itself failed. */
static int validate(const struct options *o, const char *trace, struct trace_summary *s, struct meta *m, char **failure)
{
    char *prefix = driver_find_replay_prefix(o->mesa_prefix);
    if (!prefix && o->mesa_prefix)
        msg("warning: --mesa-prefix %s has no softpipe driver (lib/dri/swrast_dri.so): validating on Debian's "
            "softpipe",
            o->mesa_prefix);
    if (prefix)
        snprintf(m->replayer, sizeof m->replayer, "eglretrace on the project's softpipe (%.*s)", PATH_MAX, prefix);
    else
        snprintf(m->replayer, sizeof m->replayer, "eglretrace on Debian's softpipe (GALLIUM_DRIVER=softpipe)");
    note(o->quiet, "validating: replaying %ld frames headless with %s", m->frames, m->replayer);
    m->replay_frames = trace_validate(trace, prefix, s, &m->replay_warnings, failure);
    free(prefix);
    m->replay_failure = *failure;
    if (*failure) {
        msg("validation replay failed: %s", *failure);
        return 1;
    }
    if (m->replay_frames != m->frames) {
        msg("validation replay rendered %ld frames, expected %ld", m->replay_frames, m->frames);
        return 1;
    }
    return report_replay_gaps(o, s, m);
}

/* Scans, validates and installs work/final.trace as the output.  Returns the exit code. */
static int finish(const struct options *o, const char *final_trace, struct meta *m)
{
    struct trace_summary s;
    note(o->quiet, "scanning the trace (apitrace dump)");
    if (trace_scan(final_trace, &s) < 0) return 1;
    if (!s.have_swap && m->frames > 0)
        msg("warning: apitrace counts %ld frames but no eglSwapBuffers call was found", m->frames);
    if (m->source) {
        /* gltrim keeps the context but drops eglGetDisplay and the surface creation:
         * take the platform, surface and GL strings from the whole trace. */
        const struct trace_summary *src = m->source;
        if (!s.egl_platform && src->egl_platform) s.egl_platform = xstrdup(src->egl_platform);
        if (src->surface) {
            free(s.surface);
            s.surface = xstrdup(src->surface);
            s.width = src->width;
            s.height = src->height;
        }
        if (!s.gl_renderer && src->gl_renderer) s.gl_renderer = xstrdup(src->gl_renderer);
        if (!s.gl_version && src->gl_version) s.gl_version = xstrdup(src->gl_version);
    }
    int rc = 0;
    m->replay_frames = -1;
    char *failure = NULL;
    if (o->validate && !g_interrupted) rc = validate(o, final_trace, &s, m, &failure);
    if (g_interrupted) {
        free(failure);
        trace_summary_free(&s);
        return EXIT_INTERRUPTED;
    }
    report_errors(&s);
    if (s.egl_images)
        msg("warning: the trace creates %lu EGLImages (first at call %lu): apitrace records binding one to a "
            "texture as a copy of its contents at that moment, so what a context draws into it later does not "
            "reach the others in the replay; replayed frames can differ from what the program showed "
            "(docs/capture.md, Android section)",
            s.egl_images, s.first_egl_image_call);
    if (m->replay_warnings)
        msg("the validation replay printed %lu other warnings (run eglretrace on the trace to see them)",
            m->replay_warnings);

    struct stat st;
    off_t bytes = stat(final_trace, &st) == 0 ? st.st_size : 0;
    char *json = metadata_json(m, &s, bytes);
    char *json_tmp = work_path("meta.json");
    char *json_out = xasprintf("%s.json", o->output);
    int ok = write_file(json_tmp, json, strlen(json)) == 0;
    if (!ok) msg("cannot write %s: %s", json_tmp, strerror(errno));
    /* The trace is renamed first: a reader that sees the .json also sees the trace. */
    if (ok && rename(final_trace, o->output) < 0) {
        msg("cannot rename the trace to %s: %s", o->output, strerror(errno));
        ok = 0;
    }
    if (ok && rename(json_tmp, json_out) < 0) {
        msg("cannot rename the metadata to %s: %s", json_out, strerror(errno));
        unlink(o->output);
        ok = 0;
    }
    if (ok) {
        note(o->quiet, "wrote %s: %ld complete frames, %lu calls, %lu draws, %lu clears, %zu GL errors, %lld bytes%s",
             o->output, m->frames, s.calls, s.draws, s.clears, s.nerrors, (long long)bytes,
             m->replay_frames < 0 ? ""
             : rc                 ? " (validation FAILED)"
                                  : " (validated)");
        note(o->quiet, "wrote %s", json_out);
    }
    free(json);
    free(json_tmp);
    free(json_out);
    free(failure);
    trace_summary_free(&s);
    return ok ? rc : 1;
}

/* ---- capture ------------------------------------------------------------------- */

struct run_state {
    int lost_tail; /* apitrace said "ignoring recurrent flush" */
    int verbose;
    int stopping;          /* we sent SIGTERM */
    int in_sigterm_report; /* inside apitrace's backtrace for our own SIGTERM */
    struct strbuf line;
};

static int routine_apitrace_line(const char *l)
{
    static const char *const routine[] = {
        "apitrace: loaded into",         "apitrace: unloaded from",
        "apitrace: tracing to",          "apitrace: attempting to read configuration file",
        "apitrace: flushing trace",      "apitrace: warning: glVertexAttribPointer: call will be faked",
        "apitrace: redirecting dlopen(",
    };
    for (size_t i = 0; i < sizeof routine / sizeof routine[0]; i++)
        if (!strncmp(l, routine[i], strlen(routine[i]))) return 1;
    return 0;
}

/* Forwards the program's stderr line by line, watching for apitrace's messages. */
static void forward_stderr(struct run_state *rs, const char *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (data[i] != '\n') {
            sb_append(&rs->line, &data[i], 1);
            continue;
        }
        const char *l = rs->line.s ? rs->line.s : "";
        if (strstr(l, "apitrace: ignoring recurrent flush")) rs->lost_tail = 1;
        /* apitrace prints a backtrace for every signal; for the SIGTERM we sent it
         * is noise (a crash's backtrace is still shown). */
        if (rs->stopping && !strncmp(l, "apitrace: warning: caught signal 15", 35)) rs->in_sigterm_report = 1;
        int quiet = !rs->verbose && (rs->in_sigterm_report || routine_apitrace_line(l));
        if (rs->in_sigterm_report && !strncmp(l, "apitrace: info: taking default action", 37))
            rs->in_sigterm_report = 0;
        if (!quiet) fprintf(stderr, "%s\n", l);
        rs->line.len = 0;
        if (rs->line.s) rs->line.s[0] = '\0';
    }
}

/* tbr-capture's preload library ($TBR_CAPTURE_PRELOAD overrides the built one), or NULL
 * with a warning: programs that probe GLX through libepoxy then abort under the tracer. */
static char *find_capture_preload(void)
{
    const char *path = getenv("TBR_CAPTURE_PRELOAD");
    if (!path || !*path) path = TBR_CAPTURE_PRELOAD_PATH;
    if (access(path, R_OK) == 0) return xstrdup(path);
    msg("warning: %s not found (rebuild tbr-capture): programs that probe GLX through libepoxy, or open "
        "libEGL/libGLESv2 by path, will not capture",
        path);
    return NULL;
}

/* Finds the program to capture, apitrace's EGL wrapper and apitrace itself, and makes the
 * work directory. Returns 0, or EXIT_PROBLEM (with the message given and nothing left to
 * free). */
static int find_capture_tools(const struct options *o, char **program_out, char **wrapper_out)
{
    char *program = find_program(o->command[0]);
    if (!program) {
        msg("program not found: %s%s", o->command[0],
            strchr(o->command[0], '/') ? " (no such executable file)" : " (not an executable in $PATH)");
        return EXIT_PROBLEM;
    }
    char *wrapper = find_egltrace_wrapper();
    if (!wrapper) {
        msg("apitrace's egltrace.so not found: install apitrace-tracers (scripts/install-deps) "
            "or set TBR_EGLTRACE_WRAPPER");
        free(program);
        return EXIT_PROBLEM;
    }
    char *apitrace = find_program("apitrace");
    if (!apitrace) {
        msg("apitrace not found: install apitrace (scripts/install-deps)");
        free(program);
        free(wrapper);
        return EXIT_PROBLEM;
    }
    free(apitrace);
    if (make_workdir(o->output) < 0) {
        free(program);
        free(wrapper);
        return EXIT_PROBLEM;
    }
    *program_out = program;
    *wrapper_out = wrapper;
    return 0;
}

/* Resolves --platform auto (an existing display first) and starts the display server the
 * platform needs, adjusting env. Returns 0 or EXIT_PROBLEM; *server names the server
 * started (NULL if none). */
static int start_platform(const struct options *o, struct env *env, const char **platform_used, char **server)
{
    *platform_used = o->platform;
    *server = NULL;
    if (!strcmp(o->platform, "auto")) {
        if (env_get(env, "WAYLAND_DISPLAY") && *env_get(env, "WAYLAND_DISPLAY"))
            *platform_used = "existing-wayland";
        else if (env_get(env, "DISPLAY") && *env_get(env, "DISPLAY"))
            *platform_used = "existing-x11";
        else
            *platform_used = "x11";
    }
    if (!strcmp(*platform_used, "x11")) {
        if (display_start_x11(&g.display, o->width, o->height, env, g.workdir) < 0) return EXIT_PROBLEM;
        *server = xasprintf("Xvfb %s", g.display.name);
        note(o->quiet, "started Xvfb on display %s (screen %dx%d)", g.display.name, o->width, o->height);
    } else if (!strcmp(*platform_used, "wayland")) {
        if (display_start_wayland(&g.display, o->width, o->height, env, g.workdir) < 0) return EXIT_PROBLEM;
        *server = xasprintf("weston %s", g.display.name);
        note(o->quiet, "started headless weston on socket %s (%dx%d)", g.display.name, o->width, o->height);
    } else if (!strcmp(*platform_used, "surfaceless")) {
        /* No window system at all: the program must use pbuffers or surfaceless EGL. */
        env_unset(env, "DISPLAY");
        env_unset(env, "WAYLAND_DISPLAY");
    }
    return 0;
}

/* How the captured program's run went. */
struct capture_run {
    struct run_state rs;
    int status;    /* waitpid status */
    int stopping;  /* we sent SIGTERM */
    int timed_out; /* --timeout reached */
};

/* Polling the frames recorded so far, for --frames. */
struct frame_poll {
    double next_poll, poll_interval;
    long flushed_frames;
    off_t last_polled_size;
};

/* Frames written so far: apitrace writes the trace in compressed chunks, so only complete
 * chunks are inspected (a copy, not the file being written). Returns the reason to stop, or
 * NULL. */
static const char *poll_recorded_frames(const struct options *o, const char *raw, const char *poll_copy,
                                        struct frame_poll *fp)
{
    const char *stop_reason = NULL;
    struct stat st;
    if (stat(raw, &st) == 0 && st.st_size != fp->last_polled_size) {
        fp->last_polled_size = st.st_size;
        double t0 = now_seconds();
        if (trace_copy_complete_chunks(raw, poll_copy) > 0) {
            long fr = trace_frame_count(poll_copy);
            if (fr > fp->flushed_frames) {
                fp->flushed_frames = fr;
                note(o->quiet, "%ld frames recorded so far", fr);
            }
            if (fr >= o->frames) stop_reason = "enough frames";
        }
        /* Keep polling cheap relative to the capture for long traces. */
        double cost = now_seconds() - t0;
        if (fp->poll_interval < 4 * cost) fp->poll_interval = 4 * cost;
    }
    fp->next_poll = now_seconds() + fp->poll_interval;
    return stop_reason;
}

/* Forwards the program's stderr and waits for it to exit, stopping it (SIGTERM, then
 * SIGKILL after 10 s) when interrupted, when time is up or when enough frames were
 * recorded. *err_fd is closed and set to -1 if the pipe ends first. */
static void watch_program(const struct options *o, pid_t pid, int *err_fd, const char *raw, const char *poll_copy,
                          struct capture_run *r)
{
    double start = now_seconds(), stop_deadline = 0;
    struct frame_poll fp = {start + 0.5, 1.0, 0, -1};
    const char *stop_reason = NULL;
    static char buf[8192];
    for (;;) {
        if (*err_fd >= 0) {
            struct pollfd pf = {*err_fd, POLLIN, 0};
            if (poll(&pf, 1, 50) > 0) {
                ssize_t n = read(*err_fd, buf, sizeof buf);
                if (n > 0)
                    forward_stderr(&r->rs, buf, (size_t)n);
                else if (n == 0 || errno != EINTR) {
                    close(*err_fd);
                    *err_fd = -1;
                }
            }
        } else {
            sleep_seconds(0.05);
        }
        if (waitpid(pid, &r->status, WNOHANG) == pid) break;
        double now = now_seconds();
        if (r->stopping) {
            if (now > stop_deadline) {
                msg("the program ignored SIGTERM: killing it (the end of the trace may be lost)");
                kill(-pid, SIGKILL);
                stop_deadline = now + 1e9;
            }
            continue;
        }
        if (g_interrupted) {
            stop_reason = "interrupted";
        } else if (o->seconds && now - start >= o->seconds) {
            stop_reason = "time is up";
        } else if (now - start >= o->timeout && !o->seconds) {
            stop_reason = "timeout";
            r->timed_out = 1;
        } else if (o->frames && now >= fp.next_poll) {
            stop_reason = poll_recorded_frames(o, raw, poll_copy, &fp);
        }
        if (stop_reason) {
            note(o->quiet, "stopping the program (%s) with SIGTERM; apitrace's tracer flushes the trace on it",
                 stop_reason);
            kill(-pid, SIGTERM);
            r->stopping = 1;
            r->rs.stopping = 1;
            stop_deadline = now_seconds() + 10.0;
        }
    }
}

/* Forwards what is left on the program's stderr (bounded: a leftover process could hold
 * the pipe) and closes it. */
static void drain_program_stderr(int err_fd, struct run_state *rs)
{
    static char buf[8192];
    double end = now_seconds() + 2.0;
    for (;;) {
        struct pollfd pf = {err_fd, POLLIN, 0};
        if (now_seconds() > end || poll(&pf, 1, 100) <= 0) break;
        ssize_t n = read(err_fd, buf, sizeof buf);
        if (n <= 0) break;
        forward_stderr(rs, buf, (size_t)n);
    }
    close(err_fd);
}

/* Runs the program under apitrace's tracer until it ends or is stopped, then stops the
 * display server. Returns 0, 1 (no pipe) or EXIT_PROBLEM (cannot start it). */
static int run_program(const struct options *o, const struct env *env, const char *program, const char *platform_used,
                       const char *server, const char *raw, const char *poll_copy, struct capture_run *r)
{
    int errpipe[2];
    if (pipe2(errpipe, O_CLOEXEC) < 0) {
        msg("pipe: %s", strerror(errno));
        return 1;
    }
    note(o->quiet, "capturing %s (platform %s%s%s, driver %s)", program, platform_used, server ? ", " : "",
         server ? server : "", driver_name(o->driver));
    struct spawn_opts so = {env->v, 1, 1, -1, errpipe[1], -1, NULL};
    pid_t pid = spawn_process(o->command, &so);
    close(errpipe[1]);
    if (pid < 0) {
        msg("cannot start %s: %s", program, strerror(errno));
        close(errpipe[0]);
        return EXIT_PROBLEM;
    }
    g.child = pid;

    memset(r, 0, sizeof *r);
    r->rs = (struct run_state){0, o->verbose, 0, 0, {NULL, 0, 0}};
    int err_fd = errpipe[0];
    watch_program(o, pid, &err_fd, raw, poll_copy, r);
    g.child = 0;
    kill(-pid, SIGKILL); /* anything the program left behind in its process group */
    if (err_fd >= 0) drain_program_stderr(err_fd, &r->rs);
    if (r->rs.line.len) forward_stderr(&r->rs, "\n", 1);
    sb_free(&r->rs.line);
    display_stop(&g.display);
    return 0;
}

/* Says how the program ended (by itself, --timeout) and whether the trace lost its tail. */
static void report_program_end(const struct options *o, const struct capture_run *r, const char *sbuf)
{
    if (!r->stopping) note(o->quiet, "the program ended by itself (%s)", sbuf);
    if (r->timed_out && o->frames)
        msg("warning: --timeout %g s reached before %ld frames were recorded", o->timeout, o->frames);
    else if (r->timed_out)
        msg("warning: --timeout %g s reached: the program was stopped", o->timeout);
    if (r->rs.lost_tail)
        msg("warning: the signal arrived while the tracer was writing a call: the last unflushed "
            "part of the trace was lost");
}

/* The number of complete frames in the raw trace, into *frames. Returns 0, or the exit
 * status with the reason given when there is no usable frame. */
static int count_recorded_frames(const struct options *o, const char *raw, const struct capture_run *r,
                                 const char *sbuf, long *frames)
{
    int stopped = r->stopping;
    struct stat st;
    if (stat(raw, &st) < 0 || st.st_size <= 2) {
        if (!stopped && !(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0))
            msg("%s exited before its first frame (%s) without any EGL/GLES call", o->command[0], sbuf);
        else
            msg("no EGL/GLES calls seen: %s made no call through libEGL/libGLESv2 "
                "(a desktop OpenGL/GLX program? apitrace's egltrace.so records EGL and OpenGL ES only)",
                o->command[0]);
        return EXIT_PROBLEM;
    }
    *frames = trace_frame_count(raw);
    if (*frames < 0) {
        msg("apitrace cannot read the recorded trace");
        return 1;
    }
    if (*frames == 0) {
        struct trace_summary s;
        int scanned = trace_scan(raw, &s) == 0;
        if (scanned && !s.saw_egl_context)
            msg("no EGL/GLES context seen: %s created no EGL context (a desktop OpenGL/GLX program? "
                "apitrace's egltrace.so records EGL and OpenGL ES only)",
                o->command[0]);
        else
            msg("%s %s before its first frame (no eglSwapBuffers in the trace)", o->command[0],
                stopped ? "was stopped" : "exited");
        if (scanned) trace_summary_free(&s);
        return EXIT_PROBLEM;
    }
    note(o->quiet, "the trace holds %ld complete frames", *frames);
    return 0;
}

/* Keeps the program's own clean ending when it ended by itself within the frame budget;
 * otherwise cuts after the last wanted complete frame into `trimmed`. Sets *keep and
 * *final_trace; returns 0 or 1 (trim failed). */
static int trim_to_budget(const struct options *o, const char *raw, const char *trimmed, int stopped, long frames,
                          long *keep, const char **final_trace)
{
    *keep = frames;
    if (o->frames && o->frames < *keep) *keep = o->frames;
    *final_trace = raw;
    if (stopped || *keep < frames) {
        note(o->quiet, "trimming to frames 0-%ld (apitrace trim)", *keep - 1);
        if (trim_frames(raw, trimmed, 0, *keep - 1) < 0) return 1;
        *final_trace = trimmed;
        long check = trace_frame_count(trimmed);
        if (check != *keep) {
            msg("apitrace trim produced %ld frames instead of %ld", check, *keep);
            return 1;
        }
    }
    if (o->frames && *keep < o->frames)
        msg("warning: only %ld of the %ld requested frames were recorded", *keep, o->frames);
    return 0;
}

static int capture(const struct options *o)
{
    char *program, *wrapper;
    int rc = find_capture_tools(o, &program, &wrapper);
    if (rc) return rc;

    struct env env;
    env_init_from_current(&env);
    const char *platform_used;
    char *server;
    rc = start_platform(o, &env, &platform_used, &server);
    if (rc) {
        env_free(&env);
        free(program);
        free(wrapper);
        return rc;
    }

    char *raw = work_path("raw.trace");
    char *poll_copy = work_path("poll.trace");
    char *trimmed = work_path("final.trace");
    /* Our preload library first: it adjusts egltrace.so's dlopen() (capture/preload.c). */
    const char *preload = env_get(&env, "LD_PRELOAD");
    char *ours = find_capture_preload();
    char *tracers = ours ? xasprintf("%s:%s", ours, wrapper) : xstrdup(wrapper);
    free(ours);
    char *new_preload = preload && *preload ? xasprintf("%s:%s", tracers, preload) : xstrdup(tracers);
    free(tracers);
    env_set(&env, "LD_PRELOAD", new_preload);
    env_set(&env, "TRACE_FILE", raw);
    free(new_preload);
    /* After the display server started: only the program runs on the capture driver. */
    driver_set_program_env(o->driver, &env);

    struct capture_run run;
    rc = run_program(o, &env, program, platform_used, server, raw, poll_copy, &run);
    if (rc) goto out;

    char sbuf[96];
    describe_status(run.status, sbuf, sizeof sbuf);
    if (g_interrupted) {
        msg("interrupted: nothing written");
        rc = EXIT_INTERRUPTED;
        goto out;
    }
    report_program_end(o, &run, sbuf);

    long frames, keep;
    const char *final_trace;
    rc = count_recorded_frames(o, raw, &run, sbuf, &frames);
    if (!rc) rc = trim_to_budget(o, raw, trimmed, run.stopping, frames, &keep, &final_trace);
    if (rc) goto out;

    struct meta m;
    memset(&m, 0, sizeof m);
    m.opt = o;
    m.platform_used = platform_used;
    m.server = server;
    m.frames = keep;
    m.stopped = run.stopping;
    m.program_status = run.stopping ? "stopped by tbr-capture" : sbuf;
    m.lost_tail = run.rs.lost_tail;
    rc = finish(o, final_trace, &m);

out:
    env_free(&env);
    free(raw);
    free(poll_copy);
    free(trimmed);
    free(server);
    free(program);
    free(wrapper);
    return rc;
}

/* ---- cut ------------------------------------------------------------------------ */

static int cut_several_contexts(const struct options *o, const struct trace_summary *src, long first, long last);
static int cut_one_context(const struct options *o, const struct trace_summary *src, long first, long last);

static int cut(const struct options *o)
{
    uint64_t a, b; /* A-B, or N for N-N */
    if (tbr_frame_range_parse(o->cut, TBR_FRAMES_SINGLE, &a, &b) != TBR_FRAMES_OK || b > LONG_MAX) {
        msg("--cut needs a frame range A-B with 0 <= A <= B, not '%s'", o->cut);
        return EXIT_PROBLEM;
    }
    long first = (long)a, last = (long)b;
    if (access(o->cut_input, R_OK) < 0) {
        msg("cannot read %s: %s", o->cut_input, strerror(errno));
        return EXIT_PROBLEM;
    }
    long frames = trace_frame_count(o->cut_input);
    if (frames < 0) {
        msg("%s is not a trace apitrace can read", o->cut_input);
        return EXIT_PROBLEM;
    }
    if (last >= frames) {
        msg("%s has %ld frames (0-%ld): cannot cut %ld-%ld", o->cut_input, frames, frames - 1, first, last);
        return EXIT_PROBLEM;
    }
    struct trace_summary src;
    if (trace_scan(o->cut_input, &src) < 0) return 1;
    if (make_workdir(o->output) < 0) {
        trace_summary_free(&src);
        return EXIT_PROBLEM;
    }
    int rc;
    if (first > 0 && src.contexts > 1)
        rc = cut_several_contexts(o, &src, first, last);
    else
        rc = cut_one_context(o, &src, first, last);
    trace_summary_free(&src);
    return rc;
}

/* Reads IN.trace.json to embed it in the cut's metadata (only if it looks like a JSON
 * object). */
static char *read_source_metadata(const char *trace)
{
    char *src_json_path = xasprintf("%s.json", trace);
    char *json = read_small_file(src_json_path, 1 << 20);
    free(src_json_path);
    if (!json) return NULL;
    size_t n = strlen(json);
    while (n && (json[n - 1] == '\n' || json[n - 1] == ' ')) json[--n] = '\0';
    if (json[0] != '{' || n == 0 || json[n - 1] != '}') {
        free(json);
        return NULL;
    }
    return json;
}

/* Validates and writes a cut trace with its metadata. */
static int finish_cut(const struct options *o, const struct trace_summary *src, const char *trace, long frames,
                      long first, long last, const char *method, int setup_kept)
{
    struct options o2 = *o;
    o2.command = NULL;
    o2.command_argc = 0;
    struct meta m;
    memset(&m, 0, sizeof m);
    m.opt = &o2;
    m.frames = frames;
    m.cut_source = o->cut_input;
    m.cut_first = first;
    m.cut_last = last;
    m.cut_method = method;
    m.setup_frame_kept = setup_kept;
    m.source_metadata = read_source_metadata(o->cut_input);
    m.source = src;
    int rc = finish(o, trace, &m);
    free(m.source_metadata);
    return rc;
}

/* A window of a trace with several contexts, which gltrim cannot cut (cut_contexts.h):
 * earlier frames' drawing calls dropped, the result checked against the whole trace. */
static int cut_several_contexts(const struct options *o, const struct trace_summary *src, long first, long last)
{
    note(o->quiet,
         "cutting frames %ld-%ld of a trace with %d contexts: keeping every call but the drawing of frames 0-%ld "
         "(apitrace gltrim does not follow state across contexts)",
         first, last, src->contexts, first - 1);
    char *cut1 = work_path("cut.trace");
    int rc = cut_dropping_draws(o->cut_input, cut1, first, last, g.workdir, o->quiet) < 0 ? 1 : 0;
    long got = rc ? 0 : trace_frame_count(cut1);
    if (!rc && got != last - first + 1) {
        msg("the cut trace has %ld frames, expected %ld", got, last - first + 1);
        rc = 1;
    }
    if (!rc && o->validate) {
        char *prefix = driver_find_replay_prefix(o->mesa_prefix);
        rc = cut_verify(o->cut_input, cut1, first, last, prefix, g.workdir, o->quiet) != 0;
        free(prefix);
        if (rc) msg("the cut does not reproduce the whole trace's frames: nothing written");
    }
    if (!rc) rc = finish_cut(o, src, cut1, got, first, last, "drop-earlier-draws", 0);
    free(cut1);
    return rc;
}

/* A prefix (apitrace trim) or a window cut by gltrim, with its extra setup frame dropped
 * unless --keep-setup-frame. */
static int cut_one_context(const struct options *o, const struct trace_summary *src, long first, long last)
{
    char *cut1 = work_path("cut.trace");
    char *cut2 = work_path("final.trace");
    const char *final_trace = cut1;
    long want = last - first + 1;
    int rc = 0, setup_kept = 0;
    char fr[64];
    if (first == 0) {
        /* A prefix needs no state reconstruction: plain trim is exact. */
        note(o->quiet, "cutting frames 0-%ld (apitrace trim)", last);
        if (trim_frames(o->cut_input, cut1, 0, last) < 0) {
            rc = 1;
            goto out;
        }
    } else {
        note(o->quiet, "cutting frames %ld-%ld (apitrace gltrim keeps the state the window needs)", first, last);
        snprintf(fr, sizeof fr, "--frames=%ld-%ld", first, last);
        char *argv[] = {"apitrace", "gltrim", fr, "-o", cut1, (char *)o->cut_input, NULL};
        if (run_apitrace(argv, "apitrace gltrim") < 0) {
            rc = 1;
            goto out;
        }
    }
    long got = trace_frame_count(cut1);
    if (got == want + 1) {
        /* gltrim ends its setup part with an extra eglSwapBuffers: a "frame" with no
         * drawing of the window.  Drop that one call so that frame k of the cut is
         * frame first+k of the source (the setup calls then run before frame 0). */
        if (o->keep_setup_frame) {
            setup_kept = 1;
        } else {
            struct trace_summary s;
            if (trace_scan(cut1, &s) < 0) {
                rc = 1;
                goto out;
            }
            char calls[128];
            unsigned long sw = s.first_swap_call;
            if (sw == 0)
                snprintf(calls, sizeof calls, "--calls=1-4294967295");
            else
                snprintf(calls, sizeof calls, "--calls=0-%lu,%lu-4294967295", sw - 1, sw + 1);
            trace_summary_free(&s);
            char *argv[] = {"apitrace", "trim", calls, "-o", cut2, cut1, NULL};
            if (run_apitrace(argv, "apitrace trim (dropping the setup frame)") < 0) {
                rc = 1;
                goto out;
            }
            final_trace = cut2;
            got = trace_frame_count(cut2);
        }
    }
    if (got != want + setup_kept) {
        msg("the cut trace has %ld frames, expected %ld", got, want + setup_kept);
        rc = 1;
        goto out;
    }
    rc = finish_cut(o, src, final_trace, got, first, last, first == 0 ? "trim" : "gltrim", setup_kept);
out:
    free(cut1);
    free(cut2);
    return rc;
}

int main(int argc, char **argv)
{
    struct options o;
    if (parse_args(argc, argv, &o) < 0 || check_output_free(&o) < 0) return EXIT_PROBLEM;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: waits return early and check the flag */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    int rc = o.cut ? cut(&o) : capture(&o);
    cleanup();
    return rc;
}
