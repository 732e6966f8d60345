/* tbr-replay: replays an apitrace trace headless through the project's instrumented Mesa
 * softpipe (thesis sec. 3.1, "Driver Level"), which writes the GPU activity trace and one
 * reference PNG per frame. The replayer is Debian's eglretrace (apitrace 11.1) on the EGL
 * surfaceless platform; this program prepares its environment, checks that the instrumented
 * Mesa really was the one loaded, watches progress and errors, and publishes the output
 * directory only when everything is complete. */
#include "subprocess.h"
#include "tbr/frame_range.h"

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
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
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
               "                          are replayed with the instrumentation off (fast-forward)\n"
               "      --force             replace OUTDIR if it exists\n"
               "      --allow-gl-errors   report GL errors raised during replay but do not fail\n"
               "      --allow-unsupported record even if the trace uses features the\n"
               "                          instrumentation does not model (named on stderr)\n"
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
               "                          does not use it, default: left out)\n"
               "      --mesa-prefix DIR   instrumented Mesa install prefix (default: the build's,\n"
               "                          or $TBR_MESA_PREFIX)\n"
               "  -q, --quiet             no progress on stderr\n"
               "  -h, --help              this help\n"
               "      --version           print the version\n"
               "\n"
               "exit status: 0 success, 1 replay or check failed, 2 bad usage or bad input\n");
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d) return -1;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char child[PATH_MAX];
            snprintf(child, sizeof child, "%s/%s", path, e->d_name);
            remove_tree(child);
        }
        closedir(d);
        return rmdir(path);
    }
    return unlink(path);
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

static long json_int_field(const char *json, const char *key)
{
    char pattern[128];
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    const char *p = json ? strstr(json, pattern) : NULL;
    if (!p) return -1;
    p = strchr(p + strlen(pattern), ':');
    return p ? strtol(p + 1, NULL, 10) : -1;
}

/* The frame count as apitrace itself counts it (eglSwapBuffers and friends). */
static long apitrace_frame_count(const char *trace)
{
    char *out = NULL;
    char *argv[] = {"apitrace", "info", (char *)trace, NULL};
    int rc = tbr_run_capture(argv, NULL, &out, 1);
    long frames = rc == 0 ? json_int_field(out, "FramesCount") : -1;
    free(out);
    return frames;
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

static volatile sig_atomic_t interrupted;
static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

int main(int argc, char **argv)
{
    const char *output = NULL, *frames_arg = NULL;
    const char *mesa_prefix = getenv("TBR_MESA_PREFIX");
    int force = 0, allow_gl_errors = 0, allow_unsupported = 0, quiet = 0, float_colors = 0;
    int record_colors = 0, vertex_hashes = 0;
    int record_texels = 0;
    if (!mesa_prefix || !*mesa_prefix) mesa_prefix = TBR_DEFAULT_MESA_PREFIX;

    static const struct option options[] = {{"output", required_argument, NULL, 'o'},
                                            {"frames", required_argument, NULL, 'f'},
                                            {"force", no_argument, NULL, 'F'},
                                            {"allow-gl-errors", no_argument, NULL, 'E'},
                                            {"allow-unsupported", no_argument, NULL, 'U'},
                                            {"float-colors", no_argument, NULL, 'C'},
                                            {"record-colors", no_argument, NULL, 'R'},
                                            {"vertex-hashes", no_argument, NULL, 'H'},
                                            {"record-texels", no_argument, NULL, 'X'},
                                            {"mesa-prefix", required_argument, NULL, 'M'},
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, 'V'},
                                            {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "o:qh", options, NULL)) != -1) {
        switch (opt) {
            case 'o': output = optarg; break;
            case 'f': frames_arg = optarg; break;
            case 'F': force = 1; break;
            case 'E': allow_gl_errors = 1; break;
            case 'U': allow_unsupported = 1; break;
            case 'C': float_colors = 1; break;
            case 'R': record_colors = 1; break;
            case 'X': record_texels = 1; break;
            case 'H': vertex_hashes = 1; break;
            case 'M': mesa_prefix = optarg; break;
            case 'q': quiet = 1; break;
            case 'h': usage(stdout); return 0;
            case 'V': printf("tbr-replay %s\n", TBR_VERSION); return 0;
            default: usage(stderr); return EXIT_BAD_INPUT;
        }
    }
    if (optind != argc - 1 || !output) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    const char *trace = argv[optind];

    long first = 0, last = LONG_MAX;
    if (frames_arg) {
        uint64_t a, b;
        if (tbr_frame_range_parse(frames_arg, TBR_FRAMES_SINGLE, &a, &b) != TBR_FRAMES_OK || b > LONG_MAX)
            die(EXIT_BAD_INPUT, "--frames '%s': expected A-B with 0 <= A <= B", frames_arg);
        first = (long)a;
        last = (long)b;
    }

    /* --- inputs ----------------------------------------------------------------------- */
    check_apitrace_file(trace);
    if (!tbr_program_in_path("eglretrace") || !tbr_program_in_path("apitrace"))
        die(EXIT_BAD_INPUT, "apitrace/eglretrace not found in PATH (run scripts/install-deps)");
    long total_frames = apitrace_frame_count(trace);
    if (total_frames < 0) die(EXIT_BAD_INPUT, "%s: apitrace cannot read this trace (truncated or corrupt?)", trace);
    if (total_frames == 0)
        die(EXIT_BAD_INPUT, "%s: no complete frame in the trace (no eglSwapBuffers; truncated?)", trace);
    reject_desktop_gl(trace);
    if (first >= total_frames)
        die(EXIT_BAD_INPUT, "--frames %ld-%ld: the trace has only %ld frames", first, last, total_frames);
    if (last >= total_frames) last = total_frames - 1;
    long expected = last - first + 1;

    if (!mesa_prefix || !*mesa_prefix)
        die(EXIT_BAD_INPUT, "no instrumented Mesa: build it with scripts/build-mesa and pass "
                            "--mesa-prefix or TBR_MESA_PREFIX");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/lib/dri/swrast_dri.so", mesa_prefix);
    if (access(path, R_OK) != 0)
        die(EXIT_BAD_INPUT, "%s: no softpipe driver here (is %s an instrumented Mesa prefix?)", path, mesa_prefix);
    const char *functional_lib = getenv("TBR_FUNCTIONAL_LIB_OVERRIDE");
    if (!functional_lib || !*functional_lib) functional_lib = TBR_FUNCTIONAL_LIB_PATH;
    if (access(functional_lib, R_OK) != 0)
        die(EXIT_BAD_INPUT, "%s: instrumentation library missing (rebuild the project)", functional_lib);

    /* --- output: a temporary sibling directory, renamed at the end ------------------- */
    struct stat st;
    if (stat(output, &st) == 0 && !force) die(EXIT_BAD_INPUT, "%s: already exists (use --force to replace it)", output);
    /* Shorter than PATH_MAX so that file names appended below always fit. */
    char tmpdir[PATH_MAX - 64];
    if (strlen(output) > sizeof tmpdir - 32) die(EXIT_BAD_INPUT, "%s: output path too long", output);
    snprintf(tmpdir, sizeof tmpdir, "%s.tmp-%ld", output, (long)getpid());
    remove_tree(tmpdir);
    if (mkdir(tmpdir, 0777) != 0) die(EXIT_BAD_INPUT, "%s: cannot create: %s", tmpdir, strerror(errno));
    char refdir[PATH_MAX];
    snprintf(refdir, sizeof refdir, "%s/reference", tmpdir);
    mkdir(refdir, 0777);

    /* --- run eglretrace through our Mesa -------------------------------------------- */
    char env_ld[PATH_MAX + 32], env_lib[PATH_MAX + 32], env_out[PATH_MAX + 32], env_frames[96],
        env_preload[PATH_MAX + 32];
    snprintf(env_ld, sizeof env_ld, "LD_LIBRARY_PATH=%s/lib", mesa_prefix);
    snprintf(env_lib, sizeof env_lib, "TBR_FUNCTIONAL_LIB=%s", functional_lib);
    snprintf(env_out, sizeof env_out, "TBR_OUT_DIR=%s", tmpdir);
    snprintf(env_frames, sizeof env_frames, "TBR_FRAMES=%ld-%ld", first, last);
    char *env[14];
    int ne = 0;
    env[ne++] = env_ld;
    env[ne++] = "WAFFLE_PLATFORM=surfaceless_egl";
    env[ne++] = "LIBGL_ALWAYS_SOFTWARE=1";
    env[ne++] = env_lib;
    env[ne++] = env_out;
    env[ne++] = env_frames;
    if (float_colors) env[ne++] = "TBR_FLOAT_COLORS=1";
    if (record_colors) env[ne++] = "TBR_RECORD_COLORS=1";
    if (record_texels) env[ne++] = "TBR_RECORD_TEXELS=1";
    if (vertex_hashes) env[ne++] = "TBR_VERTEX_HASHES=1";
    if (*TBR_SANITIZER_PRELOAD) {
        /* The instrumentation library was built with ASan; eglretrace was not. */
        snprintf(env_preload, sizeof env_preload, "LD_PRELOAD=%s", TBR_SANITIZER_PRELOAD);
        env[ne++] = env_preload;
        env[ne++] = "ASAN_OPTIONS=detect_leaks=0";
    }
    env[ne] = NULL;
    /* --no-context-check: a trace asking for ES 3.2 still replays on softpipe's ES 3.1 if it
     * uses nothing beyond it. --singlethread: calls recorded on several threads are replayed
     * in trace order on one thread, so the instrumentation sees one ordered stream. */
    char *rargv[] = {"eglretrace", "--no-context-check", "--singlethread", (char *)trace, NULL};

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    int errfd;
    pid_t child = tbr_spawn_with_stderr_pipe(rargv, env, &errfd);
    if (child < 0) {
        remove_tree(tmpdir);
        die(EXIT_CHECK_FAILED, "cannot start eglretrace: %s", strerror(errno));
    }
    char logpath[PATH_MAX];
    snprintf(logpath, sizeof logpath, "%s/replay.log", tmpdir);
    FILE *log = fopen(logpath, "w");
    double start = now_seconds(), last_report = start;
    int gl_errors = 0, child_status = 0, child_done = 0, stopped_after_window = 0;
    char linebuf[8192];
    size_t linelen = 0;
    while (!child_done) {
        struct pollfd pfd = {.fd = errfd, .events = POLLIN};
        int pr = poll(&pfd, 1, 500);
        if (pr > 0) {
            char buf[4096];
            ssize_t n;
            while ((n = read(errfd, buf, sizeof buf)) > 0) {
                if (log) fwrite(buf, 1, (size_t)n, log);
                for (ssize_t i = 0; i < n; i++) {
                    if (buf[i] != '\n' && linelen < sizeof linebuf - 1) {
                        linebuf[linelen++] = buf[i];
                        continue;
                    }
                    linebuf[linelen] = '\0';
                    /* apitrace reports e.g. "1234: warning: glGetError(glFoo) = GL_INVALID_ENUM" */
                    if (strstr(linebuf, "glGetError(")) {
                        gl_errors++;
                        if (gl_errors <= 20)
                            fprintf(stderr, "%s: GL error during replay at call %s\n", program, linebuf);
                    }
                    linelen = 0;
                }
            }
        }
        if (interrupted) {
            kill(child, SIGTERM);
        }
        /* The window is complete once the instrumentation has closed the activity trace
         * (it does so right after the window's last frame): the rest of the source trace
         * would only be replayed for nothing. */
        if (!stopped_after_window && last < total_frames - 1 && activity_complete(tmpdir, expected)) {
            kill(child, SIGTERM);
            stopped_after_window = 1;
        }
        pid_t w = waitpid(child, &child_status, WNOHANG);
        if (w == child) child_done = 1;
        double t = now_seconds();
        if (!quiet && (t - last_report >= 2.0 || child_done)) {
            int done = count_frame_pngs(refdir);
            fprintf(stderr, "%s: frames %d/%ld recorded, %.1f s, %.2f frames/s\n", program, done, expected, t - start,
                    done / (t - start > 0 ? t - start : 1));
            last_report = t;
        }
    }
    close(errfd);
    if (log) fclose(log);
    double elapsed = now_seconds() - start;

    /* --- checks ----------------------------------------------------------------------- */
    int failed = 0;
    char statuspath[PATH_MAX];
    snprintf(statuspath, sizeof statuspath, "%s/functional-status.txt", tmpdir);
    char *status = read_file(statuspath);
    if (interrupted) {
        fprintf(stderr, "%s: interrupted\n", program);
        failed = 1;
    } else if (stopped_after_window && WIFSIGNALED(child_status) && WTERMSIG(child_status) == SIGTERM) {
        /* stopped on purpose after the window: not a failure */
    } else if (!WIFEXITED(child_status) || WEXITSTATUS(child_status) != 0) {
        fprintf(stderr, "%s: eglretrace failed (%s %d); its messages are in replay.log\n", program,
                WIFEXITED(child_status) ? "exit status" : "signal",
                WIFEXITED(child_status) ? WEXITSTATUS(child_status) : WTERMSIG(child_status));
        failed = 1;
    }
    if (!status) {
        fprintf(stderr,
                "%s: the instrumented Mesa was not loaded (no functional-status.txt): the replay "
                "ran on some other GL driver. Check that %s/lib holds the project's Mesa.\n",
                program, mesa_prefix);
        failed = 1;
    }
    char *renderer = status ? status_value(status, "gl_renderer") : NULL;
    char *version = status ? status_value(status, "gl_version") : NULL;
    char *state = status ? status_value(status, "status") : NULL;
    char *errors = status ? status_value(status, "error") : NULL;
    char *unsupported = status ? status_value(status, "unsupported") : NULL;
    char *width = status ? status_value(status, "width") : NULL;
    char *height = status ? status_value(status, "height") : NULL;
    if (status && (!renderer || !strstr(renderer, "softpipe"))) {
        fprintf(stderr, "%s: GL_RENDERER is '%s', not the project's softpipe: refusing\n", program,
                renderer ? renderer : "(unknown)");
        failed = 1;
    }
    if (version && strncmp(version, "OpenGL ES", 9) != 0) {
        fprintf(stderr, "%s: the replay created a '%s' context, not OpenGL ES\n", program, version);
        failed = 1;
    }
    if (status && (!state || strcmp(state, "ok") != 0)) {
        fprintf(stderr, "%s: instrumentation reported an error: %s\n", program,
                errors && *errors ? errors : "(no message)");
        failed = 1;
    }
    if (unsupported && *unsupported) {
        fprintf(stderr, "%s: the trace uses features the instrumentation does not model: %s%s\n", program, unsupported,
                allow_unsupported ? " (allowed by --allow-unsupported)" : "");
        if (!allow_unsupported) failed = 1;
    }
    if (gl_errors) {
        fprintf(stderr, "%s: %d GL error(s) during replay (see replay.log)%s\n", program, gl_errors,
                allow_gl_errors ? "; allowed by --allow-gl-errors" : "");
        if (!allow_gl_errors) failed = 1;
    }
    int frames_written = count_frame_pngs(refdir);
    if (!failed && frames_written != expected) {
        fprintf(stderr, "%s: %d reference frames written, expected %ld (frames %ld-%ld)\n", program, frames_written,
                expected, first, last);
        failed = 1;
    }
    snprintf(path, sizeof path, "%s/activity.tbrt", tmpdir);
    if (!failed && access(path, R_OK) != 0) {
        fprintf(stderr, "%s: no GPU activity trace was written\n", program);
        failed = 1;
    }
    if (failed) {
        char kept[PATH_MAX];
        snprintf(kept, sizeof kept, "%s.failed", output);
        remove_tree(kept);
        if (rename(tmpdir, kept) == 0)
            fprintf(stderr, "%s: incomplete output kept for inspection in %s\n", program, kept);
        else
            remove_tree(tmpdir);
        free(status);
        free(renderer);
        free(version);
        free(errors);
        free(state);
        free(unsupported);
        free(width);
        free(height);
        return EXIT_CHECK_FAILED;
    }

    /* --- metadata and publication --------------------------------------------------- */
    char buildinfo[PATH_MAX];
    snprintf(buildinfo, sizeof buildinfo, "%s/tbrsim-mesa-build.txt", mesa_prefix);
    char *mesa_info = read_file(buildinfo);
    char *mesa_build_id = mesa_info ? status_value(mesa_info, "build_id") : NULL;
    char absolute_trace[PATH_MAX];
    if (!realpath(trace, absolute_trace)) snprintf(absolute_trace, sizeof absolute_trace, "%s", trace);
    snprintf(path, sizeof path, "%s/replay.json", tmpdir);
    FILE *meta = fopen(path, "w");
    if (!meta) die(EXIT_CHECK_FAILED, "%s: cannot write: %s", path, strerror(errno));
    fprintf(meta, "{\n  \"tool\": \"tbr-replay\",\n  \"tool_version\": \"%s\",\n", TBR_VERSION);
    fprintf(meta, "  \"source_trace\": ");
    json_escape(meta, absolute_trace);
    fprintf(meta, ",\n  \"source_frames\": %ld,\n  \"first_frame\": %ld,\n  \"last_frame\": %ld,\n", total_frames,
            first, last);
    fprintf(meta, "  \"frames\": %ld,\n  \"width\": %s,\n  \"height\": %s,\n", expected, width ? width : "null",
            height ? height : "null");
    fprintf(meta, "  \"gl_renderer\": ");
    json_escape(meta, renderer);
    fprintf(meta, ",\n  \"gl_version\": ");
    json_escape(meta, version);
    fprintf(meta, ",\n  \"mesa_build_id\": ");
    json_escape(meta, mesa_build_id ? mesa_build_id : "unknown");
    fprintf(meta, ",\n  \"gl_errors\": %d,\n  \"replay_seconds\": %.3f\n}\n", gl_errors, elapsed);
    if (fclose(meta) != 0) die(EXIT_CHECK_FAILED, "%s: write failed", path);

    if (force && stat(output, &st) == 0) remove_tree(output);
    if (rename(tmpdir, output) != 0) {
        remove_tree(tmpdir);
        die(EXIT_CHECK_FAILED, "cannot rename %s to %s: %s", tmpdir, output, strerror(errno));
    }
    if (!quiet)
        fprintf(stderr, "%s: %ld frame(s) %ld-%ld of %s replayed on %s in %.1f s -> %s\n", program, expected, first,
                last, trace, renderer, elapsed, output);
    free(status);
    free(renderer);
    free(version);
    free(errors);
    free(state);
    free(unsupported);
    free(width);
    free(height);
    free(mesa_info);
    free(mesa_build_id);
    return 0;
}
