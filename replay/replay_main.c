/* tbr-replay: replays an apitrace trace headless through the project's instrumented Mesa
 * softpipe (thesis sec. 3.1, "Driver Level"), which writes the GPU activity trace and one
 * reference PNG per frame. The replayer is Debian's eglretrace (apitrace 11.1) on the EGL
 * surfaceless platform; this program prepares its environment, checks that the instrumented
 * Mesa really was the one loaded, watches progress and errors, and publishes the output
 * directory only when everything is complete. */
#include "crosscheck.h"
#include "fast_forward.h"
#include "subprocess.h"
#include "unsupported_calls.h"
#include "tbr/clock.h"
#include "tbr/frame_range.h"
#include "tbr/out_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TBR_DEFAULT_MESA_PREFIX
#define TBR_DEFAULT_MESA_PREFIX ""
#endif
#ifndef TBR_FUNCTIONAL_LIB_PATH
#define TBR_FUNCTIONAL_LIB_PATH ""
#endif
#ifndef TBR_SANITIZER_PRELOAD
#define TBR_SANITIZER_PRELOAD ""
#endif

#define EXIT_CHECK_FAILED 1
#define EXIT_BAD_INPUT    2

static const char *program = "tbr-replay";

static void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", program);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: tbr-replay TRACE -o OUTDIR [options]\n"
               "\n"
               "Replays an apitrace trace of an OpenGL ES program headless through the project's\n"
               "instrumented Mesa softpipe and writes:\n"
               "  OUTDIR/activity.tbrt              the GPU activity trace (docs/trace-records.md)\n"
               "  OUTDIR/reference/frame_NNNNN.png  the reference image of each recorded frame\n"
               "  OUTDIR/replay.json                metadata: source trace, frames, resolution,\n"
               "                                    Mesa build id, tool version\n"
               "  OUTDIR/functional-status.txt      what the instrumentation saw\n"
               "  OUTDIR/replay.log                 the replayer's own messages\n"
               "\n"
               "options:\n"
               "  -o, --output DIR        output directory (must not exist unless --force)\n"
               "      --frames A-B        record only frames A..B (0-based, inclusive); earlier frames\n"
               "                          are skipped (fast-forward, below)\n"
               "      --fast-forward MODE how to reach a window that starts after frame 0: 'replay'\n"
               "                          (default) replays every earlier frame with the\n"
               "                          instrumentation off; 'cut' replays a copy of the trace\n"
               "                          cut with apitrace gltrim (the window's state setup, then\n"
               "                          the window): 3x less CPU on glmark2, same frames there,\n"
               "                          but render-target contents that earlier frames leave\n"
               "                          (programs that do not clear) are lost\n"
               "      --force             replace OUTDIR if it exists\n"
               "      --allow-gl-errors   report GL errors raised during replay but do not fail\n"
               "      --allow-unsupported record even if the trace uses features the\n"
               "                          instrumentation does not model (named on stderr), e.g.\n"
               "                          compute shaders (glDispatchCompute: refused otherwise)\n"
               "      --float-colors      store every fragment color as float (default: colors of\n"
               "                          draws that do not blend are stored in the render\n"
               "                          target's format; same simulated results, smaller trace)\n"
               "      --record-colors     store the colors of every blended quad (default: leave\n"
               "                          out those tbr-sim recomputes bit-exactly from the trace,\n"
               "                          verified quad by quad; same simulated results)\n"
               "      --record-texels     store the texels read by every shaded quad (default:\n"
               "                          leave out those tbr-sim derives exactly while it\n"
               "                          recomputes the quad, verified quad by quad; same\n"
               "                          simulated results; tools that read TEXELS need it)\n"
               "      --vertex-hashes     store per vertex a hash of the vertex shader's outputs\n"
               "                          other than the position (VERTICES out_hash; tbr-sim\n"
               "                          does not use it, default: left out; implies\n"
               "                          --vertex-positions)\n"
               "      --vertex-positions  store every shaded vertex's clip-space position in\n"
               "                          VERTICES (tbr-sim does not use them: PRIM holds what\n"
               "                          setup receives; default: left out)\n"
               "      --crosscheck        also replay the frames through Debian's llvmpipe and record\n"
               "                          each reference's PSNR and SSIM against it in replay.json;\n"
               "                          frames below 45 dB are flagged (docs/verification.md)\n"
               "      --mesa-prefix DIR   instrumented Mesa install prefix (default: the build's,\n"
               "                          or $TBR_MESA_PREFIX)\n"
               "      --raw-alpha         write the reference PNGs as RGBA with the framebuffer's\n"
               "                          alpha (default: opaque RGB as the display shows them, the\n"
               "                          alpha in reference/alpha/ when not 255; docs/verification.md)\n"
               "  -q, --quiet             no progress on stderr\n"
               "  -h, --help              this help\n"
               "      --version           print the version\n"
               "\n"
               "exit status: 0 success, 1 replay or check failed, 2 bad usage or bad input\n");
}

static int count_frame_pngs(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, "frame_", 6) && strstr(e->d_name, ".png") && !strstr(e->d_name, ".tmp")) n++;
    closedir(d);
    return n;
}

/* apitrace containers start with "at" (snappy) or the gzip magic. */
static void check_apitrace_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) die(EXIT_BAD_INPUT, "%s: cannot open: %s", path, strerror(errno));
    unsigned char magic[2] = {0, 0};
    size_t n = fread(magic, 1, 2, f);
    fclose(f);
    if (n < 2 || !((magic[0] == 'a' && magic[1] == 't') || (magic[0] == 0x1f && magic[1] == 0x8b)))
        die(EXIT_BAD_INPUT, "%s: not an apitrace trace (unknown file signature)", path);
}

/* Looks at the first calls for the API the trace targets: this toolchain models OpenGL ES. */
static void reject_desktop_gl(const char *trace)
{
    char *out = NULL;
    char *argv[] = {"apitrace", "dump", "--color=never", "--calls=0-20000", (char *)trace, NULL};
    if (tbr_run_capture(argv, NULL, &out, 1) != 0 || !out) {
        free(out);
        die(EXIT_BAD_INPUT, "%s: apitrace cannot read this trace (truncated or corrupt?)", trace);
    }
    const char *why = NULL;
    if (strstr(out, "glXMakeCurrent") || strstr(out, "glXCreateContext"))
        why = "it uses GLX (desktop OpenGL)";
    else if (strstr(out, "wglCreateContext") || strstr(out, "CGLCreateContext"))
        why = "it was captured with a desktop GL window system (WGL/CGL)";
    else if (strstr(out, "eglBindAPI(api = EGL_OPENGL_API)"))
        why = "it binds EGL_OPENGL_API (desktop OpenGL)";
    else if (!strstr(out, "eglCreateContext"))
        why = "no eglCreateContext in its first 20000 calls (not an EGL/GLES trace)";
    free(out);
    if (why) die(EXIT_BAD_INPUT, "%s: not an OpenGL ES trace: %s", trace, why);
}

/* key=value status written by the instrumentation library (functional/). */
static char *status_value(const char *status, const char *key)
{
    size_t klen = strlen(key);
    for (const char *line = status; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > klen && !strncmp(line, key, klen) && line[klen] == '=') {
            char *v = malloc(len - klen);
            memcpy(v, line + klen + 1, len - klen - 1);
            v[len - klen - 1] = '\0';
            return v;
        }
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)size + 1);
    size_t n = fread(buf, 1, (size_t)size, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void json_escape(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* True when the instrumentation reports the whole window recorded and the activity trace
 * finalized (renamed from its temporary name). */
static int activity_complete(const char *dir, long expected)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.*s/activity.tbrt", PATH_MAX - 32, dir);
    if (access(path, R_OK) != 0) return 0;
    snprintf(path, sizeof path, "%.*s/functional-status.txt", PATH_MAX - 32, dir);
    char *status = read_file(path);
    char *recorded = status ? status_value(status, "frames_recorded") : NULL;
    int done = recorded && strtol(recorded, NULL, 10) >= expected;
    free(recorded);
    free(status);
    return done;
}

/* The swaps the instrumentation has counted (its status is rewritten at each swap), in
 * source frames; -1 before the first. */
static long swaps_seen(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.*s/functional-status.txt", PATH_MAX - 32, dir);
    char *status = read_file(path);
    char *seen = status ? status_value(status, "swaps_seen") : NULL;
    long n = seen && *seen ? strtol(seen, NULL, 10) : -1;
    free(seen);
    free(status);
    return n;
}

static volatile sig_atomic_t interrupted;
static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* What the command line asked for; first/last are the frame window (0..LONG_MAX when not
 * given, clamped to the trace once its length is known). */
struct replay_options {
    const char *output, *frames_arg, *mesa_prefix, *trace;
    int force, allow_gl_errors, allow_unsupported, quiet, float_colors;
    int record_colors, vertex_hashes, vertex_positions, record_texels, crosscheck;
    int fast_forward_cut; /* --fast-forward cut (default: replay) */
    int raw_alpha;
    long first, last;
    /* the trace eglretrace replays: the source, or the window cut out of it; its first
     * swap is source frame frame_base */
    const char *replay_trace;
    long frame_base;
    double cut_seconds; /* apitrace gltrim's time, -1 when not cut */
    int cut_failed;     /* the cut's replay failed: the whole trace was replayed */
};

/* Fills *o from the command line. Returns -1 to go on, or the exit status when main must
 * return at once (help, version, bad usage). */
static int parse_options(int argc, char **argv, struct replay_options *o)
{
    memset(o, 0, sizeof *o);
    o->mesa_prefix = getenv("TBR_MESA_PREFIX");
    if (!o->mesa_prefix || !*o->mesa_prefix) o->mesa_prefix = TBR_DEFAULT_MESA_PREFIX;

    static const struct option options[] = {{"output", required_argument, NULL, 'o'},
                                            {"frames", required_argument, NULL, 'f'},
                                            {"fast-forward", required_argument, NULL, 'W'},
                                            {"force", no_argument, NULL, 'F'},
                                            {"allow-gl-errors", no_argument, NULL, 'E'},
                                            {"allow-unsupported", no_argument, NULL, 'U'},
                                            {"float-colors", no_argument, NULL, 'C'},
                                            {"record-colors", no_argument, NULL, 'R'},
                                            {"vertex-hashes", no_argument, NULL, 'H'},
                                            {"vertex-positions", no_argument, NULL, 'P'},
                                            {"record-texels", no_argument, NULL, 'X'},
                                            {"mesa-prefix", required_argument, NULL, 'M'},
                                            {"raw-alpha", no_argument, NULL, 'A'},
                                            {"crosscheck", no_argument, NULL, 'K'},
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, 'V'},
                                            {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "o:qh", options, NULL)) != -1) {
        switch (opt) {
            case 'o': o->output = optarg; break;
            case 'f': o->frames_arg = optarg; break;
            case 'W':
                if (strcmp(optarg, "cut") && strcmp(optarg, "replay"))
                    die(EXIT_BAD_INPUT, "--fast-forward '%s': expected cut or replay", optarg);
                o->fast_forward_cut = !strcmp(optarg, "cut");
                break;
            case 'F': o->force = 1; break;
            case 'E': o->allow_gl_errors = 1; break;
            case 'U': o->allow_unsupported = 1; break;
            case 'C': o->float_colors = 1; break;
            case 'R': o->record_colors = 1; break;
            case 'X': o->record_texels = 1; break;
            case 'H': o->vertex_hashes = 1; break;
            case 'P': o->vertex_positions = 1; break;
            case 'M': o->mesa_prefix = optarg; break;
            case 'A': o->raw_alpha = 1; break;
            case 'K': o->crosscheck = 1; break;
            case 'q': o->quiet = 1; break;
            case 'h': usage(stdout); return 0;
            case 'V': printf("tbr-replay %s\n", TBR_VERSION); return 0;
            default: usage(stderr); return EXIT_BAD_INPUT;
        }
    }
    if (optind != argc - 1 || !o->output) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    o->trace = argv[optind];
    o->replay_trace = o->trace;
    o->cut_seconds = -1;

    o->first = 0;
    o->last = LONG_MAX;
    if (o->frames_arg) {
        uint64_t a, b;
        if (tbr_frame_range_parse(o->frames_arg, TBR_FRAMES_SINGLE, &a, &b) != TBR_FRAMES_OK || b > LONG_MAX)
            die(EXIT_BAD_INPUT, "--frames '%s': expected A-B with 0 <= A <= B", o->frames_arg);
        o->first = (long)a;
        o->last = (long)b;
    }
    return -1;
}

/* Checks the trace, the tools and the instrumented Mesa before anything is written; clamps
 * o->last to the trace. Returns the trace's frame count; *functional_lib is the
 * instrumentation library to load. Dies (exit 2) on any problem. */
static long check_inputs(struct replay_options *o, const char **functional_lib)
{
    check_apitrace_file(o->trace);
    if (!tbr_program_in_path("eglretrace") || !tbr_program_in_path("apitrace"))
        die(EXIT_BAD_INPUT, "apitrace/eglretrace not found in PATH (run scripts/install-deps)");
    long total_frames = tbr_apitrace_frame_count(o->trace);
    if (total_frames < 0) die(EXIT_BAD_INPUT, "%s: apitrace cannot read this trace (truncated or corrupt?)", o->trace);
    if (total_frames == 0)
        die(EXIT_BAD_INPUT, "%s: no complete frame in the trace (no eglSwapBuffers; truncated?)", o->trace);
    reject_desktop_gl(o->trace);
    char calls[512];
    if (tbr_find_unsupported_calls(o->trace, calls, sizeof calls) != 0)
        die(EXIT_BAD_INPUT, "%s: apitrace cannot read this trace (truncated or corrupt?)", o->trace);
    if (calls[0] && !o->allow_unsupported)
        die(EXIT_BAD_INPUT,
            "%s: the trace dispatches compute shaders, which are not recorded or simulated: %s. What they "
            "write would differ in tbr-sim's frames. --allow-unsupported replays it anyway (tbr-sim still "
            "checks every frame)",
            o->trace, calls);
    if (calls[0])
        fprintf(stderr, "%s: %s: compute dispatches not recorded (allowed by --allow-unsupported): %s\n", program,
                o->trace, calls);
    if (o->first >= total_frames)
        die(EXIT_BAD_INPUT, "--frames %ld-%ld: the trace has only %ld frames", o->first, o->last, total_frames);
    if (o->last >= total_frames) o->last = total_frames - 1;

    if (!o->mesa_prefix || !*o->mesa_prefix)
        die(EXIT_BAD_INPUT, "no instrumented Mesa: build it with scripts/build-mesa and pass "
                            "--mesa-prefix or TBR_MESA_PREFIX");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/lib/dri/swrast_dri.so", o->mesa_prefix);
    if (access(path, R_OK) != 0)
        die(EXIT_BAD_INPUT, "%s: no softpipe driver here (is %s an instrumented Mesa prefix?)", path, o->mesa_prefix);
    const char *lib = getenv("TBR_FUNCTIONAL_LIB_OVERRIDE");
    if (!lib || !*lib) lib = TBR_FUNCTIONAL_LIB_PATH;
    if (access(lib, R_OK) != 0) die(EXIT_BAD_INPUT, "%s: instrumentation library missing (rebuild the project)", lib);
    *functional_lib = lib;
    return total_frames;
}

/* The output is written into OUTDIR.tmp-PID, renamed at the end, so that OUTDIR only ever
 * appears complete; OUTDIR.lock keeps a second replay (or tbr-sim) from writing OUTDIR at
 * the same time, and a killed run's OUTDIR.tmp-N is removed by the next (tbr/out_dir.h). */
static void make_temporary_output(const struct replay_options *o, tbr_out_dir *od, char refdir[PATH_MAX])
{
    struct stat st;
    char err[PATH_MAX + 256];
    if (stat(o->output, &st) == 0 && !o->force)
        die(EXIT_BAD_INPUT, "%s: already exists (use --force to replace it)", o->output);
    if (tbr_out_dir_begin(od, o->output, o->force, err, sizeof err)) die(EXIT_BAD_INPUT, "%s", err);
    if (strlen(od->tmp_path) > PATH_MAX - 64) {
        tbr_out_dir_abandon(od);
        die(EXIT_BAD_INPUT, "%s: output path too long", o->output);
    }
    snprintf(refdir, PATH_MAX, "%.*s/reference", PATH_MAX - 16, od->tmp_path);
    if (mkdir(refdir, 0777) != 0) {
        int e = errno;
        tbr_out_dir_abandon(od);
        die(EXIT_BAD_INPUT, "%s: cannot create: %s", refdir, strerror(e));
    }
}

/* With --fast-forward cut, a window that starts after frame 0 is reached through a cut of
 * the trace (if the cut fails, the whole trace is replayed, said on stderr). Not the
 * default: gltrim rebuilds objects, not what earlier frames left in render targets
 * (docs/verification.md "Fast-forward"). */
static void choose_way_in(struct replay_options *o, struct ff_cut *cut, const char *tmpdir)
{
    if (o->first == 0 || !o->fast_forward_cut) return;
    if (!o->quiet)
        fprintf(stderr, "%s: cutting frames %ld-%ld out of the trace (apitrace gltrim)\n", program, o->first, o->last);
    char why[512];
    if (ff_cut_window(o->trace, o->first, o->last, tmpdir, cut, why, sizeof why)) {
        fprintf(stderr, "%s: %s: replaying the whole trace instead\n", program, why);
        return;
    }
    o->replay_trace = cut->path;
    o->frame_base = cut->base;
    o->cut_seconds = cut->seconds;
    if (!o->quiet) fprintf(stderr, "%s: cut in %.1f s\n", program, cut->seconds);
}

/* Storage for the replayer's environment strings (they must outlive the spawn). */
struct replay_env {
    char ld[PATH_MAX + 32], lib[PATH_MAX + 32], out[PATH_MAX + 32], frames[96], base[64], preload[PATH_MAX + 32];
    char *env[16];
};

/* The environment that makes eglretrace load our Mesa and configures the instrumentation. */
static void build_env(struct replay_env *e, const struct replay_options *o, const char *functional_lib,
                      const char *tmpdir)
{
    snprintf(e->ld, sizeof e->ld, "LD_LIBRARY_PATH=%s/lib", o->mesa_prefix);
    snprintf(e->lib, sizeof e->lib, "TBR_FUNCTIONAL_LIB=%s", functional_lib);
    snprintf(e->out, sizeof e->out, "TBR_OUT_DIR=%s", tmpdir);
    snprintf(e->frames, sizeof e->frames, "TBR_FRAMES=%ld-%ld", o->first, o->last);
    int ne = 0;
    e->env[ne++] = e->ld;
    e->env[ne++] = "WAFFLE_PLATFORM=surfaceless_egl";
    e->env[ne++] = "LIBGL_ALWAYS_SOFTWARE=1";
    e->env[ne++] = e->lib;
    e->env[ne++] = e->out;
    e->env[ne++] = e->frames;
    if (o->frame_base) {
        snprintf(e->base, sizeof e->base, "TBR_FRAME_BASE=%ld", o->frame_base);
        e->env[ne++] = e->base;
    }
    if (o->float_colors) e->env[ne++] = "TBR_FLOAT_COLORS=1";
    if (o->record_colors) e->env[ne++] = "TBR_RECORD_COLORS=1";
    if (o->record_texels) e->env[ne++] = "TBR_RECORD_TEXELS=1";
    if (o->vertex_hashes) e->env[ne++] = "TBR_VERTEX_HASHES=1";
    if (o->vertex_positions) e->env[ne++] = "TBR_VERTEX_POSITIONS=1";
    if (o->raw_alpha) e->env[ne++] = "TBR_RAW_ALPHA=1";
    if (*TBR_SANITIZER_PRELOAD) {
        /* The instrumentation library was built with ASan; eglretrace was not. */
        snprintf(e->preload, sizeof e->preload, "LD_PRELOAD=%s", TBR_SANITIZER_PRELOAD);
        e->env[ne++] = e->preload;
        e->env[ne++] = "ASAN_OPTIONS=detect_leaks=0";
    }
    e->env[ne] = NULL;
}

/* The replayer's stderr split into lines (a line longer than the buffer is cut). */
struct line_reader {
    char buf[8192];
    size_t len;
};

/* Copies what eglretrace wrote on stderr to the log and counts (and shows the first 20 of)
 * the GL errors apitrace reports, e.g. "1234: warning: glGetError(glFoo) = GL_INVALID_ENUM". */
static void drain_replayer_stderr(int errfd, FILE *log, struct line_reader *lr, int *gl_errors, char *first_error,
                                  size_t first_error_size)
{
    char buf[4096];
    ssize_t n;
    while ((n = read(errfd, buf, sizeof buf)) > 0) {
        if (log) fwrite(buf, 1, (size_t)n, log);
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\n' && lr->len < sizeof lr->buf - 1) {
                lr->buf[lr->len++] = buf[i];
                continue;
            }
            lr->buf[lr->len] = '\0';
            if (strstr(lr->buf, "glGetError(")) {
                (*gl_errors)++;
                if (*gl_errors <= 20) fprintf(stderr, "%s: GL error during replay at call %s\n", program, lr->buf);
            }
            /* The recorder's first error (e.g. a write that failed on a full disk): when the
             * status file could not be written either, it is the only account of it. */
            static const char rec_error[] = "tbr_functional: error: ";
            if (!first_error[0] && !strncmp(lr->buf, rec_error, sizeof rec_error - 1))
                snprintf(first_error, first_error_size, "%s", lr->buf + sizeof rec_error - 1);
            lr->len = 0;
        }
    }
}

/* How the replayer's run went. */
/* Seconds eglretrace gets to exit after the SIGTERM that ends a complete window. */
#define STOP_GRACE_SECONDS 10.0

struct replay_run {
    int gl_errors, child_status, stopped_after_window;
    double elapsed, stop_sent_at;   /* when SIGTERM went to eglretrace after the window */
    char recorder_error[1024];      /* the first "tbr_functional: error:" line on its stderr */
    char log_error[PATH_MAX + 128]; /* replay.log could not be written */
};

/* Runs eglretrace through our Mesa into tmpdir, watching its stderr and progress until it
 * exits. 0, or -1 (message printed) if it cannot be started. */
static int run_replayer(const struct replay_options *o, const char *functional_lib, long total_frames,
                        const char *tmpdir, const char *refdir, struct replay_run *r)
{
    long expected = o->last - o->first + 1;
    struct replay_env e;
    build_env(&e, o, functional_lib, tmpdir);
    /* --no-context-check: a trace asking for ES 3.2 still replays on softpipe's ES 3.1 if it
     * uses nothing beyond it. --singlethread: calls recorded on several threads are replayed
     * in trace order on one thread, so the instrumentation sees one ordered stream. */
    char *rargv[] = {"eglretrace", "--no-context-check", "--singlethread", (char *)o->replay_trace, NULL};

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    int errfd;
    pid_t child = tbr_spawn_with_stderr_pipe(rargv, e.env, &errfd);
    if (child < 0) {
        fprintf(stderr, "%s: cannot start eglretrace: %s\n", program, strerror(errno));
        return -1;
    }
    char logpath[PATH_MAX];
    snprintf(logpath, sizeof logpath, "%s/replay.log", tmpdir);
    FILE *log = fopen(logpath, "w");
    int log_errno = log ? 0 : errno;
    double start = tbr_monotonic_seconds(), last_report = start;
    int child_done = 0, ff_shown = 0;
    memset(r, 0, sizeof *r);
    struct line_reader lr = {.len = 0};
    while (!child_done) {
        struct pollfd pfd = {.fd = errfd, .events = POLLIN};
        int pr = poll(&pfd, 1, 500);
        if (pr > 0) drain_replayer_stderr(errfd, log, &lr, &r->gl_errors, r->recorder_error, sizeof r->recorder_error);
        if (interrupted) {
            kill(child, SIGTERM);
        }
        /* The window is complete once the instrumentation has closed the activity trace
         * (it does so right after the window's last frame): the rest of the source trace
         * would only be replayed for nothing. */
        if (!r->stopped_after_window && o->last < total_frames - 1 && activity_complete(tmpdir, expected)) {
            kill(child, SIGTERM);
            r->stopped_after_window = 1;
            r->stop_sent_at = tbr_monotonic_seconds();
        }
        /* apitrace's SIGTERM handler writes with stdio: landing inside malloc it deadlocks on
         * the allocator's lock (seen on glmark2 refract), so the stop is forced after a grace */
        if (r->stopped_after_window && tbr_monotonic_seconds() - r->stop_sent_at > STOP_GRACE_SECONDS)
            kill(child, SIGKILL);
        pid_t w = waitpid(child, &r->child_status, WNOHANG);
        if (w == child) child_done = 1;
        double t = tbr_monotonic_seconds();
        /* fast-forward progress as soon as it starts, then every 2 s like the recording's */
        long swaps = o->quiet ? -1 : swaps_seen(tmpdir);
        /* before the recorder's first status (-1) the replay is at the trace's first frame:
         * the line shows at once, however fast the frames before the window go */
        if (swaps < o->frame_base) swaps = o->frame_base;
        int fast_forwarding = !o->quiet && swaps < o->first;
        if (!o->quiet && (t - last_report >= 2.0 || child_done || (fast_forwarding && !ff_shown))) {
            if (fast_forwarding) {
                ff_progress(program, swaps, o->frame_base, o->first, total_frames, t - start);
                ff_shown = 1;
            } else {
                int done = count_frame_pngs(refdir);
                fprintf(stderr, "%s: frames %d/%ld recorded, %.1f s, %.2f frames/s\n", program, done, expected,
                        t - start, done / (t - start > 0 ? t - start : 1));
            }
            last_report = t;
        }
    }
    close(errfd);
    if (!log) {
        snprintf(r->log_error, sizeof r->log_error, "%s: cannot create: %s", logpath, strerror(log_errno));
    } else {
        int bad = ferror(log);
        errno = 0;
        if (fclose(log) != 0 || bad)
            snprintf(r->log_error, sizeof r->log_error, "%s: cannot write: %s", logpath, strerror(errno ? errno : EIO));
    }
    r->elapsed = tbr_monotonic_seconds() - start;
    return 0;
}

/* The instrumentation's functional-status.txt and the values read from it (NULL when
 * absent). */
struct replay_status {
    char *text, *renderer, *version, *state, *errors, *unsupported, *width, *height;
};

static void read_status(const char *tmpdir, struct replay_status *s)
{
    char statuspath[PATH_MAX];
    snprintf(statuspath, sizeof statuspath, "%s/functional-status.txt", tmpdir);
    s->text = read_file(statuspath);
    s->renderer = s->text ? status_value(s->text, "gl_renderer") : NULL;
    s->version = s->text ? status_value(s->text, "gl_version") : NULL;
    s->state = s->text ? status_value(s->text, "status") : NULL;
    s->errors = s->text ? status_value(s->text, "error") : NULL;
    s->unsupported = s->text ? status_value(s->text, "unsupported") : NULL;
    s->width = s->text ? status_value(s->text, "width") : NULL;
    s->height = s->text ? status_value(s->text, "height") : NULL;
}

static void free_status(struct replay_status *s)
{
    free(s->text);
    free(s->renderer);
    free(s->version);
    free(s->errors);
    free(s->state);
    free(s->unsupported);
    free(s->width);
    free(s->height);
}

/* How the replayer ended: interrupted, stopped on purpose after the window, or failed. */
static int check_replayer_exit(const struct replay_run *r)
{
    if (interrupted) {
        fprintf(stderr, "%s: interrupted\n", program);
        return 1;
    }
    if (r->stopped_after_window && WIFSIGNALED(r->child_status) &&
        (WTERMSIG(r->child_status) == SIGTERM || WTERMSIG(r->child_status) == SIGKILL))
        return 0; /* stopped on purpose after the window (the trace was complete): not a failure */
    if (!WIFEXITED(r->child_status) || WEXITSTATUS(r->child_status) != 0) {
        fprintf(stderr, "%s: eglretrace failed (%s %d); its messages are in replay.log\n", program,
                WIFEXITED(r->child_status) ? "exit status" : "signal",
                WIFEXITED(r->child_status) ? WEXITSTATUS(r->child_status) : WTERMSIG(r->child_status));
        return 1;
    }
    return 0;
}

/* All the checks on a finished replay, each reported on stderr. Returns 1 if the output
 * must not be published. */
static int check_replay(const struct replay_options *o, const struct replay_run *r, const struct replay_status *s,
                        const char *tmpdir, const char *refdir)
{
    long expected = o->last - o->first + 1;
    int failed = check_replayer_exit(r);
    /* A write that failed (a full disk) explains a missing or stale status: say that, not
     * "another driver was loaded", which would send the user the wrong way. */
    struct statvfs fs;
    int disk_full = statvfs(tmpdir, &fs) == 0 && fs.f_bavail == 0;
    if (r->log_error[0]) {
        fprintf(stderr, "%s: %s\n", program, r->log_error);
        failed = 1;
    }
    if (r->recorder_error[0] && (!s->text || !s->errors || !*s->errors)) {
        fprintf(stderr, "%s: the instrumentation reported an error: %s\n", program, r->recorder_error);
        return 1;
    }
    if (disk_full && (!s->text || !s->renderer || !*s->renderer)) {
        fprintf(stderr,
                "%s: %s: no space left on the output's file system: the instrumentation could not write "
                "its outputs\n",
                program, tmpdir);
        return 1;
    }
    if (!s->text) {
        fprintf(stderr,
                "%s: the instrumented Mesa was not loaded (no functional-status.txt): the replay "
                "ran on some other GL driver. Check that %s/lib holds the project's Mesa.\n",
                program, o->mesa_prefix);
        failed = 1;
    }
    if (s->text && (!s->renderer || !strstr(s->renderer, "softpipe"))) {
        fprintf(stderr, "%s: GL_RENDERER is '%s', not the project's softpipe: refusing\n", program,
                s->renderer ? s->renderer : "(unknown)");
        failed = 1;
    }
    if (s->version && strncmp(s->version, "OpenGL ES", 9) != 0) {
        fprintf(stderr, "%s: the replay created a '%s' context, not OpenGL ES\n", program, s->version);
        failed = 1;
    }
    if (s->text && (!s->state || strcmp(s->state, "ok") != 0)) {
        fprintf(stderr, "%s: instrumentation reported an error: %s\n", program,
                s->errors && *s->errors ? s->errors : "(no message)");
        failed = 1;
    }
    if (s->unsupported && *s->unsupported) {
        fprintf(stderr, "%s: the trace uses features the instrumentation does not model: %s%s\n", program,
                s->unsupported, o->allow_unsupported ? " (allowed by --allow-unsupported)" : "");
        if (!o->allow_unsupported) failed = 1;
    }
    if (r->gl_errors) {
        fprintf(stderr, "%s: %d GL error(s) during replay (see replay.log)%s\n", program, r->gl_errors,
                o->allow_gl_errors ? "; allowed by --allow-gl-errors" : "");
        if (!o->allow_gl_errors) failed = 1;
    }
    int frames_written = count_frame_pngs(refdir);
    if (!failed && frames_written != expected) {
        fprintf(stderr, "%s: %d reference frames written, expected %ld (frames %ld-%ld)\n", program, frames_written,
                expected, o->first, o->last);
        failed = 1;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/activity.tbrt", tmpdir);
    if (!failed && access(path, R_OK) != 0) {
        fprintf(stderr, "%s: no GPU activity trace was written\n", program);
        failed = 1;
    }
    return failed;
}

/* A failed replay's output is kept as OUTDIR.failed for inspection, never as OUTDIR. */
static void keep_failed_output(const char *output, tbr_out_dir *od)
{
    char kept[PATH_MAX];
    snprintf(kept, sizeof kept, "%s.failed", output);
    if (tbr_out_dir_keep_as(od, kept) == 0)
        fprintf(stderr, "%s: incomplete output kept for inspection in %s\n", program, kept);
}

/* OUTDIR/replay.json. 0, or -1 (message printed: the file and the OS's reason). */
static int write_metadata(const struct replay_options *o, long total_frames, const struct replay_run *r,
                          const struct replay_status *s, const struct crosscheck_result *cc, const char *tmpdir)
{
    long expected = o->last - o->first + 1;
    char buildinfo[PATH_MAX];
    snprintf(buildinfo, sizeof buildinfo, "%s/tbrsim-mesa-build.txt", o->mesa_prefix);
    char *mesa_info = read_file(buildinfo);
    char *mesa_build_id = mesa_info ? status_value(mesa_info, "build_id") : NULL;
    char absolute_trace[PATH_MAX];
    if (!realpath(o->trace, absolute_trace)) snprintf(absolute_trace, sizeof absolute_trace, "%s", o->trace);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/replay.json", tmpdir);
    FILE *meta = fopen(path, "w");
    if (!meta) {
        fprintf(stderr, "%s: %s: cannot create: %s\n", program, path, strerror(errno));
        free(mesa_info);
        free(mesa_build_id);
        return -1;
    }
    fprintf(meta, "{\n  \"tool\": \"tbr-replay\",\n  \"tool_version\": \"%s\",\n", TBR_VERSION);
    fprintf(meta, "  \"source_trace\": ");
    json_escape(meta, absolute_trace);
    fprintf(meta, ",\n  \"source_frames\": %ld,\n  \"first_frame\": %ld,\n  \"last_frame\": %ld,\n", total_frames,
            o->first, o->last);
    fprintf(meta, "  \"frames\": %ld,\n  \"width\": %s,\n  \"height\": %s,\n", expected, s->width ? s->width : "null",
            s->height ? s->height : "null");
    fprintf(meta, "  \"gl_renderer\": ");
    json_escape(meta, s->renderer);
    fprintf(meta, ",\n  \"gl_version\": ");
    json_escape(meta, s->version);
    fprintf(meta, ",\n  \"mesa_build_id\": ");
    json_escape(meta, mesa_build_id ? mesa_build_id : "unknown");
    fprintf(meta, ",\n  \"fast_forward\": \"%s\"", o->replay_trace != o->trace ? "cut" : "replay");
    if (o->cut_seconds >= 0) fprintf(meta, ",\n  \"cut_seconds\": %.3f", o->cut_seconds);
    if (o->cut_failed) fprintf(meta, ",\n  \"cut_failed\": true");
    fprintf(meta, ",\n  \"gl_errors\": %d,\n  \"replay_seconds\": %.3f", r->gl_errors, r->elapsed);
    if (cc) crosscheck_write_json(meta, cc);
    fprintf(meta, "\n}\n");
    int bad = ferror(meta);
    errno = 0;
    int rc = 0;
    if (fclose(meta) != 0 || bad) {
        fprintf(stderr, "%s: %s: cannot write: %s\n", program, path, strerror(errno ? errno : EIO));
        rc = -1;
    }
    free(mesa_info);
    free(mesa_build_id);
    return rc;
}

int main(int argc, char **argv)
{
    struct replay_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) return rc;

    const char *functional_lib;
    long total_frames = check_inputs(&o, &functional_lib);
    long expected = o.last - o.first + 1;

    tbr_out_dir od;
    char refdir[PATH_MAX];
    const char *tmpdir;
    struct ff_cut cut;
    static struct replay_run run;
    struct replay_status status;
    for (int attempt = 0;; attempt++) {
        make_temporary_output(&o, &od, refdir);
        tmpdir = od.tmp_path;
        if (attempt == 0) choose_way_in(&o, &cut, tmpdir);
        if (run_replayer(&o, functional_lib, total_frames, tmpdir, refdir, &run)) {
            tbr_out_dir_abandon(&od);
            return EXIT_CHECK_FAILED;
        }
        read_status(tmpdir, &status);
        if (!check_replay(&o, &run, &status, tmpdir, refdir)) break;
        if (o.replay_trace == o.trace || interrupted) {
            keep_failed_output(o.output, &od);
            free_status(&status);
            return EXIT_CHECK_FAILED;
        }
        /* gltrim can drop calls the window needs (measured: glmark2 346-346 deleted shaders
         * the cut never created, 2 GL errors); the whole trace decides */
        fprintf(stderr, "%s: the replay of the cut failed (above): replaying the whole trace instead\n", program);
        free_status(&status);
        tbr_out_dir_abandon(&od);
        o.replay_trace = o.trace;
        o.frame_base = 0;
        o.cut_failed = 1;
    }

    if (o.replay_trace != o.trace) unlink(o.replay_trace); /* the cut: only needed by the replay */
    /* --crosscheck: the llvmpipe replay works in OUTDIR.tmp-PID/crosscheck (removed after). */
    static struct crosscheck_result cross;
    if (o.crosscheck) {
        char workdir[PATH_MAX];
        snprintf(workdir, sizeof workdir, "%.*s/crosscheck", PATH_MAX - 16, tmpdir);
        if (crosscheck_run(o.trace, o.first, o.last, refdir, workdir, o.quiet, &cross)) {
            keep_failed_output(o.output, &od);
            free_status(&status);
            return EXIT_CHECK_FAILED;
        }
    }

    char err[2 * PATH_MAX] = "";
    if (write_metadata(&o, total_frames, &run, &status, o.crosscheck ? &cross : NULL, tmpdir) ||
        tbr_out_dir_commit(&od, err, sizeof err)) {
        if (err[0]) fprintf(stderr, "%s: %s\n", program, err);
        keep_failed_output(o.output, &od);
        free_status(&status);
        return EXIT_CHECK_FAILED;
    }
    if (!o.quiet)
        fprintf(stderr, "%s: %ld frame(s) %ld-%ld of %s replayed on %s in %.1f s -> %s\n", program, expected, o.first,
                o.last, o.trace, status.renderer, run.elapsed, o.output);
    if (o.crosscheck) crosscheck_print_summary(stderr, &cross);
    crosscheck_free(&cross);
    free_status(&status);
    return 0;
}
