/* tbr-replay --crosscheck (crosscheck.h). */
#include "crosscheck.h"

#include "tbr/clock.h"
#include "tbr/image_quality.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *program = "tbr-replay";

/* Starts argv on the system's Mesa: nothing that points the dynamic linker or the DRI
 * loader at the project's Mesa (or preloads the recorder) is inherited. stdout and stderr
 * go to logpath. Returns the pid or -1. */
static pid_t spawn_on_system_mesa(char *const argv[], const char *logpath)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
    static const char *const unset[] = {
        "LD_LIBRARY_PATH",    "LD_PRELOAD",  "LIBGL_DRIVERS_PATH",         "GALLIUM_DRIVER",
        "TBR_FUNCTIONAL_LIB", "TBR_OUT_DIR", "MESA_LOADER_DRIVER_OVERRIDE"};
    for (size_t i = 0; i < sizeof unset / sizeof unset[0]; i++) unsetenv(unset[i]);
    setenv("WAFFLE_PLATFORM", "surfaceless_egl", 1);
    int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) _exit(127);
    execvp(argv[0], argv);
    _exit(127);
}

/* The renderer the system's Mesa gives (tbr-mesa-check --expect llvmpipe, installed next
 * to tbr-replay). */
static int probe_renderer(const char *workdir, struct crosscheck_result *r)
{
    char probe[PATH_MAX], log[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", probe, sizeof probe - 32);
    probe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(probe, '/');
    snprintf(slash ? slash + 1 : probe, 32, "tbr-mesa-check");
    snprintf(log, sizeof log, "%s/probe.log", workdir);
    char *argv[] = {probe, "--expect", "llvmpipe", NULL};
    int status = 0;
    pid_t pid = spawn_on_system_mesa(argv, log);
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
    FILE *f = fopen(log, "r");
    char line[512];
    r->renderer[0] = '\0';
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "GL_RENDERER=", 12))
            snprintf(r->renderer, sizeof r->renderer, "%.*s", (int)strcspn(line + 12, "\n"), line + 12);
    if (f) fclose(f);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s: --crosscheck needs Debian's llvmpipe (the system libEGL), but %s reports '%s'\n", program,
                probe, r->renderer[0] ? r->renderer : "no GL context");
        return -1;
    }
    return 0;
}

/* Snapshot NNNNNNNNNN.png of frame n (eglretrace -S frame --call-nos=no numbers them by
 * frame). Removes those before `first` (fast-forward frames) as they appear; returns the
 * highest frame number seen, or -1. */
static long scan_snapshots(const char *snapdir, long first)
{
    DIR *d = opendir(snapdir);
    if (!d) return -1;
    long highest = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long n = strtol(e->d_name, &end, 10);
        if (end == e->d_name || strcmp(end, ".png") != 0) continue;
        if (n < first) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", snapdir, e->d_name);
            unlink(path);
        }
        if (n > highest) highest = n;
    }
    closedir(d);
    return highest;
}

/* eglretrace on llvmpipe, snapshotting every frame; stopped once frame `last` is complete
 * (the next snapshot has started) or when it ends. 0 or -1 (message printed). */
static int replay_on_llvmpipe(const char *trace, long first, long last, const char *workdir, const char *snapdir,
                              int quiet)
{
    char prefix[PATH_MAX], log[PATH_MAX];
    snprintf(prefix, sizeof prefix, "%s/", snapdir);
    snprintf(log, sizeof log, "%s/eglretrace.log", workdir);
    char *argv[] = {"eglretrace",
                    "--no-context-check",
                    "--singlethread",
                    "-S",
                    "frame",
                    "--call-nos=no",
                    "-s",
                    prefix,
                    (char *)trace,
                    NULL};
    pid_t pid = spawn_on_system_mesa(argv, log);
    if (pid < 0) {
        fprintf(stderr, "%s: --crosscheck: cannot start eglretrace: %s\n", program, strerror(errno));
        return -1;
    }
    int status = 0, stopped = 0;
    double start = tbr_monotonic_seconds(), last_report = start;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        long highest = scan_snapshots(snapdir, first);
        if (w == pid) break;
        if (!stopped && highest > last) {
            kill(pid, SIGTERM);
            stopped = 1;
        }
        double t = tbr_monotonic_seconds();
        if (!quiet && t - last_report >= 2.0) {
            fprintf(stderr, "%s: crosscheck: llvmpipe at frame %ld of %ld, %.1f s\n", program, highest + 1, last + 1,
                    t - start);
            last_report = t;
        }
        usleep(100000);
    }
    if (!stopped && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
        fprintf(stderr, "%s: --crosscheck: eglretrace on llvmpipe failed (%s %d); see %s\n", program,
                WIFEXITED(status) ? "exit status" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), log);
        return -1;
    }
    return 0;
}

static int compare_frame(const char *refdir, const char *snapdir, long frame, struct crosscheck_frame *out)
{
    char ref_path[PATH_MAX], test_path[PATH_MAX], err[TBR_PNG_ERR_SIZE];
    snprintf(ref_path, sizeof ref_path, "%s/frame_%05ld.png", refdir, frame);
    snprintf(test_path, sizeof test_path, "%s/%010ld.png", snapdir, frame);
    tbr_image ref = {0}, test = {0};
    tbr_image_quality q;
    int rc = -1;
    if (tbr_png_read_rgba8(ref_path, &ref, err, sizeof err) || tbr_png_read_rgba8(test_path, &test, err, sizeof err))
        fprintf(stderr, "%s: --crosscheck: frame %ld: %s\n", program, frame, err);
    else if (tbr_image_quality_compare(&ref, &test, &q, err, sizeof err))
        fprintf(stderr, "%s: --crosscheck: frame %ld: llvmpipe's %s\n", program, frame, err);
    else {
        out->frame = frame;
        out->psnr_db = q.psnr_db;
        out->ssim = q.ssim;
        rc = 0;
    }
    tbr_image_free(&ref);
    tbr_image_free(&test);
    return rc;
}

static void remove_workdir(const char *workdir, const char *snapdir)
{
    DIR *d = opendir(snapdir);
    struct dirent *e;
    char path[PATH_MAX];
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", snapdir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
    rmdir(snapdir);
    static const char *const logs[] = {"probe.log", "eglretrace.log"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", workdir, logs[i]);
        unlink(path);
    }
    rmdir(workdir);
}

int crosscheck_run(const char *trace, long first, long last, const char *refdir, const char *workdir, int quiet,
                   struct crosscheck_result *r)
{
    memset(r, 0, sizeof *r);
    double start = tbr_monotonic_seconds();
    char snapdir[PATH_MAX];
    snprintf(snapdir, sizeof snapdir, "%s/llvmpipe", workdir);
    if (mkdir(workdir, 0777) != 0 || mkdir(snapdir, 0777) != 0) {
        fprintf(stderr, "%s: --crosscheck: cannot create %s: %s\n", program, snapdir, strerror(errno));
        return -1;
    }
    int rc = probe_renderer(workdir, r);
    if (rc == 0) rc = replay_on_llvmpipe(trace, first, last, workdir, snapdir, quiet);
    if (rc == 0) {
        r->frames = calloc((size_t)(last - first + 1), sizeof *r->frames);
        rc = r->frames ? 0 : -1;
        for (long f = first; rc == 0 && f <= last; f++) {
            rc = compare_frame(refdir, snapdir, f, &r->frames[r->count]);
            if (rc == 0 && r->frames[r->count++].psnr_db < CROSSCHECK_PSNR_THRESHOLD_DB) r->below_threshold++;
        }
    }
    if (rc == 0) remove_workdir(workdir, snapdir); /* on failure the logs stay for the user */
    r->seconds = tbr_monotonic_seconds() - start;
    return rc;
}

/* JSON has no infinity: identical frames get null and "identical": true. */
static void json_psnr(FILE *f, double psnr_db)
{
    if (isinf(psnr_db))
        fputs("null", f);
    else
        fprintf(f, "%.2f", psnr_db);
}

void crosscheck_write_json(FILE *f, const struct crosscheck_result *r)
{
    double min_psnr = INFINITY, min_ssim = 1.0;
    for (long i = 0; i < r->count; i++) {
        if (r->frames[i].psnr_db < min_psnr) min_psnr = r->frames[i].psnr_db;
        if (r->frames[i].ssim < min_ssim) min_ssim = r->frames[i].ssim;
    }
    fputs(",\n  \"crosscheck\": {\n    \"renderer\": \"", f);
    for (const char *s = r->renderer; *s; s++)
        if (*s != '"' && *s != '\\' && (unsigned char)*s >= 0x20) fputc(*s, f);
    fprintf(f, "\",\n    \"psnr_threshold_db\": %.1f,\n    \"frames_below_threshold\": %ld,\n",
            CROSSCHECK_PSNR_THRESHOLD_DB, r->below_threshold);
    fputs("    \"min_psnr_db\": ", f);
    json_psnr(f, min_psnr);
    fprintf(f, ",\n    \"min_ssim\": %.4f,\n    \"seconds\": %.3f,\n    \"frames\": [", min_ssim, r->seconds);
    for (long i = 0; i < r->count; i++) {
        const struct crosscheck_frame *c = &r->frames[i];
        fprintf(f, "%s\n      {\"frame\": %ld, \"psnr_db\": ", i ? "," : "", c->frame);
        json_psnr(f, c->psnr_db);
        fprintf(f, ", \"ssim\": %.4f, \"identical\": %s, \"below_threshold\": %s}", c->ssim,
                isinf(c->psnr_db) ? "true" : "false", c->psnr_db < CROSSCHECK_PSNR_THRESHOLD_DB ? "true" : "false");
    }
    fputs("\n    ]\n  }", f);
}

void crosscheck_print_summary(FILE *f, const struct crosscheck_result *r)
{
    double min_psnr = INFINITY, min_ssim = 1.0;
    for (long i = 0; i < r->count; i++) {
        const struct crosscheck_frame *c = &r->frames[i];
        if (c->psnr_db < CROSSCHECK_PSNR_THRESHOLD_DB)
            fprintf(f,
                    "%s: crosscheck: frame %ld: PSNR %.2f dB, SSIM %.4f against %s: below %.0f dB, the reference "
                    "may be wrong (docs/verification.md)\n",
                    program, c->frame, c->psnr_db, c->ssim, r->renderer, CROSSCHECK_PSNR_THRESHOLD_DB);
        if (c->psnr_db < min_psnr) min_psnr = c->psnr_db;
        if (c->ssim < min_ssim) min_ssim = c->ssim;
    }
    if (isinf(min_psnr))
        fprintf(f, "%s: crosscheck: %ld frame(s) identical to %s\n", program, r->count, r->renderer);
    else
        fprintf(f, "%s: crosscheck: %ld frame(s) against %s: min PSNR %.2f dB, min SSIM %.4f, %ld below %.0f dB\n",
                program, r->count, r->renderer, min_psnr, min_ssim, r->below_threshold, CROSSCHECK_PSNR_THRESHOLD_DB);
}

void crosscheck_free(struct crosscheck_result *r)
{
    free(r->frames);
    r->frames = NULL;
    r->count = 0;
}
