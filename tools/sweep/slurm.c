/* run --slurm: one job array for the replays, one for the unfinished tasks, the second
 * depending on the first (docs/sweeps.md "Running under Slurm"). Array task I runs the
 * lines I*CHUNK .. I*CHUNK+CHUNK-1 of a list file through 'tbr-sweep task', the same code
 * as run --local, so a cell's files are the same bytes either way. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep.h"

/* Runs ARGV, its stdout into OUT (N bytes). The exit status, or -1. */
static int capture(char **argv, char *out, size_t n)
{
    int fd[2];
    if (pipe(fd)) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "tbr-sweep: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t k;
    while ((k = read(fd[0], out + len, n - 1 - len)) > 0 || (k < 0 && errno == EINTR)) len += k > 0 ? (size_t)k : 0;
    out[len] = 0;
    close(fd[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A shell word: 'text' with each ' written as '\''. */
static void shell_quote(FILE *o, const char *s)
{
    fputc('\'', o);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", o);
        else
            fputc(*s, o);
    fputc('\'', o);
}

/* OUT/slurm/sub-N.sh: the array task's command. */
static int write_script(const sweep_plan *pl, const char *self, const char *path)
{
    char sweep[SW_PATH];
    if (!realpath(pl->sf.path, sweep)) return -1;
    FILE *o = fopen(path, "w");
    if (!o) return -1;
    fprintf(o, "#!/bin/sh\n# tbr-sweep array task: $1 = list file, $2 = lines per array task\nexec ");
    shell_quote(o, self);
    fprintf(o, " task ");
    shell_quote(o, sweep);
    fprintf(o, " --out ");
    shell_quote(o, pl->out);
    fprintf(o, " --list \"$1\" --chunk \"$2\" --index \"$SLURM_ARRAY_TASK_ID\"\n");
    return fclose(o);
}

/* sbatch --parsable --array=0-N ... SCRIPT LIST CHUNK; the job id (0 on failure). */
static long submit(const sweep_plan *pl, const char *script, const char *list, size_t lines, int chunk,
                   const char *what, long after, char **opts, int nopts)
{
    char arr[64], chunk_s[32], outpat[SW_PATH + 64], dep[64], name[128], reply[256];
    char *argv[64 + 16];
    int n = 0;
    snprintf(arr, sizeof arr, "--array=0-%zu", (lines + (size_t)chunk - 1) / (size_t)chunk - 1);
    snprintf(chunk_s, sizeof chunk_s, "%d", chunk);
    snprintf(outpat, sizeof outpat, "--output=%s/slurm/%s-%%A_%%a.out", pl->out, what);
    snprintf(name, sizeof name, "--job-name=%s-%s", pl->sf.name ? pl->sf.name : "sweep", what);
    argv[n++] = "sbatch";
    argv[n++] = "--parsable";
    argv[n++] = arr;
    argv[n++] = outpat;
    argv[n++] = name;
    if (after) {
        /* afterany: a failed replay fails its own cells (no input), never the others' */
        snprintf(dep, sizeof dep, "--dependency=afterany:%ld", after);
        argv[n++] = dep;
    }
    for (int i = 0; i < nopts && i < 64; i++) argv[n++] = opts[i];
    argv[n++] = (char *)script;
    argv[n++] = (char *)list;
    argv[n++] = chunk_s;
    argv[n] = NULL;
    int rc = capture(argv, reply, sizeof reply);
    long id = strtol(reply, NULL, 10);
    if (rc != 0 || id <= 0) {
        fprintf(stderr, "tbr-sweep: sbatch failed (exit %d): %s\n", rc, reply);
        return 0;
    }
    fprintf(stderr, "tbr-sweep: submitted %s: job %ld, %s (%zu lines, %d per array task)\n", what, id, arr + 8, lines,
            chunk);
    return id;
}

/* The next free submission number N of OUT/slurm/sub-N.*. */
static int next_submission(const sweep_plan *pl)
{
    char p[SW_PATH + 64];
    for (int n = 1;; n++) {
        snprintf(p, sizeof p, "%s/slurm/sub-%d.sh", pl->out, n);
        if (!sw_exists(p)) return n;
    }
}

/* Writes the unfinished replays (REPLAYS) or tasks into LIST; their number. */
static size_t write_list(const sweep_plan *pl, int replays, const char *list)
{
    char *text = NULL;
    size_t len = 0, n = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) abort();
    for (size_t i = 0; replays && i < pl->sf.nworkloads; i++)
        if (plan_replay_state(pl, i) != ST_DONE) {
            fprintf(m, "replay %zu\n", i);
            n++;
        }
    for (size_t i = 0; !replays && i < pl->ntasks; i++)
        if (plan_task_state(&pl->tasks[i]) != ST_DONE) {
            fprintf(m, "task %zu\n", i);
            n++;
        }
    fclose(m);
    if (n && sw_write_file(list, text)) n = (size_t)-1;
    free(text);
    return n;
}

/* Polls squeue until neither job is known to Slurm any more. */
static void wait_jobs(long a, long b)
{
    char ids[64], reply[4096];
    snprintf(ids, sizeof ids, a && b ? "%ld,%ld" : "%ld", a ? a : b, b);
    char *argv[] = {"squeue", "--noheader", "--jobs", ids, "--format=%i", NULL};
    fprintf(stderr, "tbr-sweep: waiting for job %s\n", ids);
    while (capture(argv, reply, sizeof reply) == 0 && reply[strspn(reply, " \n")]) sleep(2);
}

int run_slurm(const sweep_plan *pl, const char *self, int chunk, int wait, char **opts, int nopts)
{
    char dir[SW_PATH + 16], script[SW_PATH + 64], rlist[SW_PATH + 64], tlist[SW_PATH + 64], exe[SW_PATH];
    snprintf(dir, sizeof dir, "%s/slurm", pl->out);
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) exe[k] = 0;
    if (sw_mkdirs(dir) || (k <= 0 && !realpath(self, exe))) {
        fprintf(stderr, "tbr-sweep: %s: %s\n", dir, strerror(errno));
        return 2;
    }
    int sub = next_submission(pl);
    snprintf(script, sizeof script, "%s/sub-%d.sh", dir, sub);
    snprintf(rlist, sizeof rlist, "%s/sub-%d.replays", dir, sub);
    snprintf(tlist, sizeof tlist, "%s/sub-%d.tasks", dir, sub);
    size_t nr = write_list(pl, 1, rlist), nt = write_list(pl, 0, tlist);
    if (nr == (size_t)-1 || nt == (size_t)-1 || write_script(pl, exe, script)) {
        fprintf(stderr, "tbr-sweep: cannot write the submission files in %s\n", dir);
        return 2;
    }
    if (!nt) {
        fprintf(stderr, "tbr-sweep: every task is complete; nothing to submit\n");
        return 0;
    }
    long rjob = nr ? submit(pl, script, rlist, nr, 1, "replay", 0, opts, nopts) : 0;
    if (nr && !rjob) return 2;
    long tjob = submit(pl, script, tlist, nt, chunk, "cells", rjob, opts, nopts);
    if (!tjob) return 2;
    if (!wait) return 0;
    wait_jobs(rjob, tjob);
    for (size_t i = 0; i < pl->ncells; i++)
        if (plan_cell_state(pl, &pl->cells[i]) != ST_DONE) return 1;
    return 0;
}

int run_listed(const sweep_plan *pl, const char *list, long index, long chunk)
{
    FILE *f = fopen(list, "r");
    if (!f) {
        fprintf(stderr, "tbr-sweep: %s: %s\n", list, strerror(errno));
        return 2;
    }
    char kind[16];
    size_t idx;
    int failed = 0;
    for (long line = 0; fscanf(f, "%15s %zu", kind, &idx) == 2; line++) {
        if (line < index * chunk || line >= (index + 1) * chunk) continue;
        if (!strcmp(kind, "replay") && idx < pl->sf.nworkloads) {
            if (plan_replay_state(pl, idx) != ST_DONE) failed |= replay_run(pl, idx) != 0;
        } else if (!strcmp(kind, "task") && idx < pl->ntasks) {
            if (plan_task_state(&pl->tasks[idx]) != ST_DONE) failed |= task_run(pl, idx) != 0;
        } else {
            fprintf(stderr, "tbr-sweep: %s:%ld: not a task of this sweep\n", list, line + 1);
            failed = 1;
        }
    }
    fclose(f);
    return failed;
}
