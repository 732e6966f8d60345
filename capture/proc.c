#define _GNU_SOURCE /* pipe2 */
#include "proc.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

pid_t spawn_process(char *const argv[], const struct spawn_opts *o)
{
    /* A close-on-exec pipe tells the parent whether execve succeeded: it is closed
     * by a successful exec and carries errno otherwise. */
    int errpipe[2];
    if (pipe2(errpipe, O_CLOEXEC) < 0) return -1;
    char *path = find_program(argv[0]);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(errpipe[0]);
        close(errpipe[1]);
        free(path);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        close(errpipe[0]);
        if (o->new_pgrp) setpgid(0, 0);
        /* If tbr-capture dies without cleaning up (SIGKILL), its children (the traced
         * program, Xvfb, weston) get SIGTERM instead of living on. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(127);
        /* Default signal dispositions and mask for the child, whatever ours are. */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (o->stdin_devnull) {
            int fd = open("/dev/null", O_RDONLY);
            if (fd >= 0 && fd != 0) {
                dup2(fd, 0);
                close(fd);
            }
        }
        if (o->stdout_fd >= 0 && o->stdout_fd != 1) dup2(o->stdout_fd, 1);
        if (o->stderr_fd >= 0 && o->stderr_fd != 2) dup2(o->stderr_fd, 2);
        if (o->extra_fd >= 0) fcntl(o->extra_fd, F_SETFD, 0);
        int e = ENOENT;
        if (o->cwd && chdir(o->cwd) < 0)
            e = errno;
        else if (path) {
            execve(path, argv, o->envp ? o->envp : environ);
            e = errno;
        }
        ssize_t w = write(errpipe[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    free(path);
    if (o->new_pgrp) setpgid(pid, pid); /* also from the parent: no race with an early kill(-pid) */
    close(errpipe[1]);
    int e = 0;
    ssize_t r;
    do r = read(errpipe[0], &e, sizeof e);
    while (r < 0 && errno == EINTR);
    close(errpipe[0]);
    if (r == (ssize_t)sizeof e) {
        waitpid(pid, NULL, 0);
        errno = e;
        return -1;
    }
    return pid;
}

int wait_with_timeout(pid_t pid, double timeout_s, int *status)
{
    double end = now_seconds() + timeout_s;
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid) return 1;
        if (r < 0 && errno != EINTR) {
            *status = 0;
            return 1; /* already reaped */
        }
        if (now_seconds() >= end) return 0;
        sleep_seconds(0.02);
    }
}

int stop_process(pid_t pid, int group, double grace_s)
{
    int status = 0;
    kill(group ? -pid : pid, SIGTERM);
    if (!wait_with_timeout(pid, grace_s, &status)) {
        kill(group ? -pid : pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    if (group) kill(-pid, SIGKILL); /* stragglers the program left in its group */
    return status;
}

struct linebuf {
    char *s;
    size_t len, cap;
};

static void feed(struct linebuf *lb, const char *data, size_t n, int stream, line_fn fn, void *ctx)
{
    for (size_t i = 0; i < n; i++) {
        if (data[i] == '\n') {
            if (lb->len + 1 > lb->cap) {
                lb->cap = lb->cap ? lb->cap * 2 : 256;
                lb->s = xrealloc(lb->s, lb->cap);
            }
            lb->s[lb->len] = '\0';
            fn(ctx, stream, lb->s);
            lb->len = 0;
            continue;
        }
        if (lb->len + 2 > lb->cap) {
            lb->cap = lb->cap ? lb->cap * 2 : 256;
            lb->s = xrealloc(lb->s, lb->cap);
        }
        lb->s[lb->len++] = data[i];
    }
}

int run_lines(char *const argv[], char *const envp[], line_fn fn, void *ctx, double timeout_s, int *status)
{
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) < 0) return -1;
    if (pipe2(err, O_CLOEXEC) < 0) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    struct spawn_opts o = {envp, 1, 1, out[1], err[1], -1, NULL};
    pid_t pid = spawn_process(argv, &o);
    close(out[1]);
    close(err[1]);
    if (pid < 0) {
        int e = errno;
        close(out[0]);
        close(err[0]);
        errno = e;
        return -1;
    }
    struct linebuf lb[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
    struct pollfd pf[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open_fds = 2, rc = 0;
    double end = now_seconds() + timeout_s;
    static char buf[65536];
    while (open_fds > 0) {
        if (g_interrupted || now_seconds() > end) {
            rc = -1;
            break;
        }
        int n = poll(pf, 2, 200);
        if (n < 0 && errno != EINTR) break;
        for (int i = 0; i < 2 && n > 0; i++) {
            if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t r = read(pf[i].fd, buf, sizeof buf);
            if (r > 0) {
                feed(&lb[i], buf, (size_t)r, i + 1, fn, ctx);
            } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
                close(pf[i].fd);
                pf[i].fd = -1;
                open_fds--;
            }
        }
    }
    for (int i = 0; i < 2; i++) {
        if (lb[i].len) {
            feed(&lb[i], "\n", 1, i + 1, fn, ctx);
        }
        free(lb[i].s);
        if (pf[i].fd >= 0) close(pf[i].fd);
    }
    if (rc < 0)
        *status = stop_process(pid, 1, 2.0);
    else
        waitpid(pid, status, 0);
    return rc;
}

const char *describe_status(int status, char *buf, size_t n)
{
    if (WIFEXITED(status))
        snprintf(buf, n, "exit status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(buf, n, "wait status 0x%x", status);
    return buf;
}
