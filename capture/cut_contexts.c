#include "cut_contexts.h"

#include "driver.h"
#include "proc.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* Keeps the last few lines of a helper's output, for its failure message. */
static void keep_tail(void *vctx, int stream, const char *line)
{
    struct strbuf *b = vctx;
    (void)stream;
    if (b->len < 4096) {
        sb_puts(b, line);
        sb_puts(b, "\n");
    }
}

/* Runs an apitrace/eglretrace command; 0, or -1 with its output shown. */
static int run_tool(char *const argv[], char *const envp[], const char *what)
{
    struct strbuf out = {NULL, 0, 0};
    int status = 0;
    int r = run_lines(argv, envp, keep_tail, &out, 3600.0, &status);
    int ok = r == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok) {
        char sbuf[96];
        msg("%s failed (%s)%s%s", what, r < 0 ? strerror(errno) : describe_status(status, sbuf, sizeof sbuf),
            out.len ? ":\n" : "", out.len ? out.s : "");
    }
    sb_free(&out);
    return ok ? 0 : -1;
}

/* Calls that only produce pixels (or wait for them): dropped before the window. */
static int only_draws(const char *fn)
{
    static const char *const prefixes[] = {"glDraw",   "glMultiDraw", "glClear",     "glBlitFramebuffer",
                                           "glFinish", "glFlush",     "glInvalidate"};
    if (!strcmp(fn, "glDrawBuffers") || !strncmp(fn, "glClearDepth", 12) || !strncmp(fn, "glClearColor", 12) ||
        !strncmp(fn, "glClearStencil", 14))
        return 0; /* state, not drawing */
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(fn, prefixes[i], strlen(prefixes[i]))) return 1;
    return 0;
}

static int is_swap(const char *fn) { return !strncmp(fn, "eglSwapBuffers", 14); }

/* Builds the call set while `apitrace dump` lists the calls. */
struct keep_ctx {
    long first, last;
    long frame;                  /* swaps seen so far */
    FILE *set;                   /* one range per line */
    long range_start, range_end; /* the open range, -1 if none */
    unsigned long dropped;
};

static void keep_call(struct keep_ctx *c, long call)
{
    if (c->range_start >= 0 && call == c->range_end + 1) {
        c->range_end = call;
        return;
    }
    if (c->range_start >= 0) fprintf(c->set, "%ld-%ld\n", c->range_start, c->range_end);
    c->range_start = c->range_end = call;
}

static void keep_line(void *vctx, int stream, const char *line)
{
    struct keep_ctx *c = vctx;
    if (stream != 1 || !isdigit((unsigned char)line[0])) return;
    char *end;
    long call = strtol(line, &end, 10);
    if (*end != ' ') return;
    const char *name = end + 1;
    if (*name == '@') { /* "123 @1 glFoo(...)": the thread, when several made calls */
        name = strchr(name, ' ');
        if (!name) return;
        name++;
    }
    char fn[128];
    if (sscanf(name, "%127[A-Za-z0-9_]", fn) != 1) return;
    if (c->frame > c->last) return;
    int keep = c->frame >= c->first || (!only_draws(fn) && !is_swap(fn));
    if (keep)
        keep_call(c, call);
    else
        c->dropped++;
    if (is_swap(fn)) c->frame++;
}

int cut_dropping_draws(const char *in, const char *out, long first, long last, const char *workdir, int quiet)
{
    char *set_path = xasprintf("%s/calls.txt", workdir);
    struct keep_ctx c = {first, last, 0, fopen(set_path, "w"), -1, -1, 0};
    int rc = -1;
    if (!c.set) {
        msg("cannot write %s: %s", set_path, strerror(errno));
        goto out;
    }
    char *dump[] = {"apitrace", "dump", "--color=never", "--multiline=no", (char *)in, NULL};
    int status = 0;
    int r = run_lines(dump, NULL, keep_line, &c, 3600.0, &status);
    if (c.range_start >= 0) fprintf(c.set, "%ld-%ld\n", c.range_start, c.range_end);
    if (fclose(c.set) != 0 || r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        msg("`apitrace dump %s` failed", in);
        goto out;
    }
    note(quiet, "dropping the %lu drawing calls (draws, clears, blits, finishes, swaps) of frames 0-%ld", c.dropped,
         first - 1);
    char *calls = xasprintf("--calls=@%s", set_path);
    char *trim[] = {"apitrace", "trim", calls, "-o", (char *)out, (char *)in, NULL};
    rc = run_tool(trim, NULL, "apitrace trim --calls");
    free(calls);
out:
    free(set_path);
    return rc;
}

/* ---- verification ----------------------------------------------------------------- */

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The PNG files eglretrace wrote into dir, sorted (frame order); *n is their count. */
static char **list_pngs(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **names = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".png")) continue;
        names = xrealloc(names, (*n + 1) * sizeof *names);
        names[(*n)++] = xasprintf("%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (*n) qsort(names, *n, sizeof *names, cmp_names);
    return names;
}

static void free_list(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

/* Replays trace on softpipe, one PNG per frame into dir (made here). */
static int replay_frames(const char *trace, const char *dir, const char *mesa_prefix)
{
    if (mkdir(dir, 0755) < 0) {
        msg("cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    char *prefix = xasprintf("%s/", dir);
    struct env env;
    env_init_from_current(&env);
    driver_set_replay_env(mesa_prefix, &env);
    char *argv[] = {"eglretrace", "--no-context-check", "--singlethread", "--call-nos=no", "-s", prefix, (char *)trace,
                    NULL};
    int rc = run_tool(argv, env.v, "the replay that checks the cut");
    env_free(&env);
    free(prefix);
    return rc;
}

/* Byte-equal files: eglretrace encodes equal pixels to equal PNG files. */
static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = getc(fa), cb = getc(fb);
        if (ca != cb) same = 0;
        if (ca == EOF || cb == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

int cut_verify(const char *in, const char *cut, long first, long last, const char *mesa_prefix, const char *workdir,
               int quiet)
{
    char *prefix_trace = xasprintf("%s/prefix.trace", workdir);
    char *whole_dir = xasprintf("%s/whole-frames", workdir), *cut_dir = xasprintf("%s/cut-frames", workdir);
    char fr[64];
    snprintf(fr, sizeof fr, "--frames=0-%ld", last);
    char *trim[] = {"apitrace", "trim", fr, "-o", prefix_trace, (char *)in, NULL};
    int rc = -1;
    note(quiet, "checking the cut: replaying frames 0-%ld of the whole trace and the cut on softpipe", last);
    if (run_tool(trim, NULL, "apitrace trim") == 0 && replay_frames(prefix_trace, whole_dir, mesa_prefix) == 0 &&
        replay_frames(cut, cut_dir, mesa_prefix) == 0)
        rc = 0;
    size_t nw = 0, nc = 0;
    char **whole = rc ? NULL : list_pngs(whole_dir, &nw);
    char **cutf = rc ? NULL : list_pngs(cut_dir, &nc);
    long want = last - first + 1;
    if (!rc && (nw != (size_t)last + 1 || nc != (size_t)want)) {
        msg("checking the cut: %zu and %zu frames replayed, expected %ld and %ld", nw, nc, last + 1, want);
        rc = -1;
    }
    for (long k = 0; !rc && k < want; k++) {
        if (!same_file(whole[first + k], cutf[k])) {
            msg("the cut's frame %ld differs from frame %ld of the whole trace: an earlier frame drew "
                "something this window reads",
                k, first + k);
            rc = 1;
        }
    }
    if (!rc)
        note(quiet, "the cut's %ld frames are pixel-identical to frames %ld-%ld of the whole trace", want, first, last);
    free_list(whole, nw);
    free_list(cutf, nc);
    free(prefix_trace);
    free(whole_dir);
    free(cut_dir);
    return rc;
}
