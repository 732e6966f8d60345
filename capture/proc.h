/* Child processes for tbr-capture: spawning with a reported exec error, running a
 * helper tool while reading its output line by line, and stopping process groups. */
#ifndef TBR_CAPTURE_PROC_H
#define TBR_CAPTURE_PROC_H

#include <sys/types.h>

struct spawn_opts {
    char *const *envp; /* NULL: the current environment */
    int new_pgrp;      /* put the child in its own process group (to stop all of it) */
    int stdin_devnull;
    int stdout_fd; /* -1: inherit; otherwise dup2'ed to 1 */
    int stderr_fd; /* -1: inherit; otherwise dup2'ed to 2 */
    int extra_fd;  /* -1 or a descriptor kept open in the child (e.g. Xvfb -displayfd) */
    const char *cwd;
};

/* Starts argv[0] (resolved through PATH).  Returns the pid, or -1 with errno set to
 * the exec (or fork) error. */
pid_t spawn_process(char *const argv[], const struct spawn_opts *o);

/* waitpid with a deadline; returns 1 if the child exited (*status set), 0 on timeout. */
int wait_with_timeout(pid_t pid, double timeout_s, int *status);

/* SIGTERM to the process group (or the process), grace period, then SIGKILL.
 * Returns the wait status of pid. */
int stop_process(pid_t pid, int group, double grace_s);

/* Line callback: stream is 1 (stdout) or 2 (stderr); line has no newline. */
typedef void (*line_fn)(void *ctx, int stream, const char *line);

/* Runs a helper to completion, feeding its stdout and stderr lines to fn.
 * Returns 0 and the wait status in *status, or -1 if it could not be started,
 * timed out (killed) or we were interrupted. */
int run_lines(char *const argv[], char *const envp[], line_fn fn, void *ctx, double timeout_s, int *status);

/* Describes a wait status ("exit status 3", "killed by signal 9 (Killed)"). */
const char *describe_status(int status, char *buf, size_t n);

#endif
