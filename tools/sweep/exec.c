/* Running tasks: complete-or-absent outputs (docs/sweeps.md "Cells are complete or absent").
 * A run writes into DIR.tmp; on success a done marker is written into it and DIR.tmp is
 * renamed to DIR; on failure DIR.failed names the exit status and the log. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sweep.h"

int sw_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

int sw_mkdirs(const char *path)
{
    char p[SW_PATH];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) return -1;
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(p, 0777) && errno != EEXIST) return -1;
            *s = '/';
        }
    return mkdir(p, 0777) && errno != EEXIST ? -1 : 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return (flag == FTW_DP ? rmdir(path) : unlink(path)) ? -1 : 0;
}

int sw_rmtree(const char *path)
{
    if (!sw_exists(path)) return 0;
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int sw_write_file(const char *path, const char *text)
{
    char tmp[SW_PATH + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    int bad = fputs(text, f) < 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        remove(tmp);
        return -1;
    }
    return 0;
}

static void parent_dir(const char *path, char *out, size_t n)
{
    snprintf(out, n, "%s", path);
    char *s = strrchr(out, '/');
    if (s) *s = 0;
}

/* Clears DIR's leftovers (an interrupted DIR.tmp, a DIR.failed) and starts ARGV writing
 * into DIR.tmp with stdout and stderr in LOG. The child's signal mask is the default. */
static pid_t start_run(const char *dir, const char *log, char **argv)
{
    char tmp[SW_PATH + 16], p[SW_PATH + 16];
    snprintf(tmp, sizeof tmp, "%s.tmp", dir);
    snprintf(p, sizeof p, "%s.failed", dir);
    remove(p);
    if (sw_rmtree(tmp) || sw_rmtree(dir)) return -1;
    parent_dir(log, p, sizeof p);
    if (sw_mkdirs(p) || sw_mkdirs(tmp)) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0) return pid;
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGCHLD, SIG_DFL);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666), in = open("/dev/null", O_RDONLY);
    if (fd < 0 || in < 0 || dup2(in, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) _exit(127);
    execv(argv[0], argv);
    fprintf(stderr, "tbr-sweep: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Done marker + rename when the exit status is accepted, else DIR.failed. 0 or -1. */
static int finish_run(const char *dir, const char *log, const char *label, int wait_status, int max_ok)
{
    char tmp[SW_PATH + 16], p[SW_PATH + 32], text[SW_PATH + 64];
    snprintf(tmp, sizeof tmp, "%s.tmp", dir);
    int rc = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
    if (rc <= max_ok) {
        snprintf(p, sizeof p, "%s/done", tmp);
        snprintf(text, sizeof text, "exit %d\n", rc);
        if (sw_write_file(p, text) == 0 && rename(tmp, dir) == 0) {
            fprintf(stderr, "tbr-sweep: done %s%s\n", label, rc ? " (frames differ from the reference)" : "");
            return 0;
        }
        fprintf(stderr, "tbr-sweep: %s: cannot complete %s: %s\n", label, dir, strerror(errno));
    }
    snprintf(p, sizeof p, "%s.failed", dir);
    snprintf(text, sizeof text, "exit %d\nlog %s\n", rc, log);
    sw_write_file(p, text);
    sw_rmtree(tmp);
    fprintf(stderr, "tbr-sweep: FAILED %s: exit %d, log %s\n", label, rc, log);
    return -1;
}

static void task_label(const sweep_plan *pl, size_t task, char *out, size_t n)
{
    const sweep_task *t = &pl->tasks[task];
    const sweep_cell *c = &pl->cells[t->cell];
    const char *part = strrchr(t->dir, '/') + 1;
    snprintf(out, n, "%s/%s/%s", pl->sf.workloads[c->w].name, pl->sf.configs[c->c].name, part);
}

pid_t task_start(const sweep_plan *pl, size_t task)
{
    const sweep_task *t = &pl->tasks[task];
    char tmp[SW_PATH + 16];
    snprintf(tmp, sizeof tmp, "%s.tmp", t->dir);
    char **argv = plan_task_argv(pl, t, tmp);
    pid_t pid = start_run(t->dir, t->log, argv);
    plan_argv_free(argv);
    return pid;
}

int task_finish(const sweep_plan *pl, size_t task, int wait_status)
{
    char label[512];
    task_label(pl, task, label, sizeof label);
    /* tbr-sim: 0 bit-exact, 1 a frame differs (a result all the same), 2 failed */
    return finish_run(pl->tasks[task].dir, pl->tasks[task].log, label, wait_status, 1);
}

pid_t replay_start(const sweep_plan *pl, size_t w)
{
    char tmp[SW_PATH + 16], log[SW_PATH];
    snprintf(tmp, sizeof tmp, "%s.tmp", pl->inputs[w]);
    plan_replay_paths(pl, w, log, sizeof log);
    char **argv = plan_replay_argv(pl, w, tmp);
    pid_t pid = start_run(pl->inputs[w], log, argv);
    plan_argv_free(argv);
    return pid;
}

int replay_finish(const sweep_plan *pl, size_t w, int wait_status)
{
    char log[SW_PATH], label[256];
    plan_replay_paths(pl, w, log, sizeof log);
    snprintf(label, sizeof label, "replay of %s", pl->sf.workloads[w].name);
    return finish_run(pl->inputs[w], log, label, wait_status, 0);
}

static int wait_for(pid_t pid, int *status)
{
    while (waitpid(pid, status, 0) < 0)
        if (errno != EINTR) return -1;
    return 0;
}

int task_run(const sweep_plan *pl, size_t task)
{
    int st;
    pid_t pid = task_start(pl, task);
    if (pid < 0 || wait_for(pid, &st)) {
        fprintf(stderr, "tbr-sweep: cannot start %s: %s\n", pl->tasks[task].dir, strerror(errno));
        return -1;
    }
    return task_finish(pl, task, st);
}

int replay_run(const sweep_plan *pl, size_t w)
{
    int st;
    pid_t pid = replay_start(pl, w);
    if (pid < 0 || wait_for(pid, &st)) {
        fprintf(stderr, "tbr-sweep: cannot start the replay of %s: %s\n", pl->sf.workloads[w].name, strerror(errno));
        return -1;
    }
    return replay_finish(pl, w, st);
}
