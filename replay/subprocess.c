#include "subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void apply_env(char *const extra_env[])
{
    if (!extra_env) return;
    for (size_t i = 0; extra_env[i]; i++) {
        char *copy = strdup(extra_env[i]);
        if (copy) putenv(copy); /* the child execs right after: the copy must stay alive */
    }
}

/* In a forked child: die with the parent. Without it, a SIGKILLed tbr-replay left eglretrace
 * running on, writing into the abandoned temporary directory (issue 22). The parent may
 * have died between fork and prctl: then the child's parent is no longer PARENT. */
static void die_with_parent(pid_t parent)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
}

int tbr_program_in_path(const char *name)
{
    if (strchr(name, '/')) return access(name, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    char *copy = strdup(path);
    if (!copy) return 0;
    int found = 0;
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", dir, name);
        struct stat st;
        found = stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0;
    }
    free(copy);
    return found;
}

int tbr_run_capture(char *const argv[], char *const extra_env[], char **out, int quiet_stderr)
{
    int pipefd[2];
    if (pipe(pipefd) != 0) return -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        return -1;
    }
    if (pid == 0) {
        die_with_parent(parent);
        dup2(pipefd[1], STDOUT_FILENO);
        close(pipefd[0]);
        close(pipefd[1]);
        if (quiet_stderr) {
            int devnull = open("/dev/null", O_WRONLY);
            if (devnull >= 0) dup2(devnull, STDERR_FILENO);
        }
        apply_env(extra_env);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(pipefd[1]);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (buf && len + 1024 > cap) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
            } else {
                buf = grown;
                cap *= 2;
            }
        }
        char scratch[1024];
        ssize_t n = read(pipefd[0], buf ? buf + len : scratch, buf ? cap - len - 1 : sizeof scratch);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (buf) len += (size_t)n;
    }
    close(pipefd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (buf) buf[len] = '\0';
    if (out)
        *out = buf;
    else
        free(buf);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return -1;
}

pid_t tbr_spawn_with_stderr_pipe(char *const argv[], char *const extra_env[], int *stderr_fd)
{
    int pipefd[2];
    if (pipe(pipefd) != 0) return -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        return -1;
    }
    if (pid == 0) {
        die_with_parent(parent);
        dup2(pipefd[1], STDERR_FILENO);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, STDOUT_FILENO); /* eglretrace chatters on stdout */
        close(pipefd[0]);
        close(pipefd[1]);
        apply_env(extra_env);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot execute %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(pipefd[1]);
    fcntl(pipefd[0], F_SETFL, fcntl(pipefd[0], F_GETFL) | O_NONBLOCK);
    *stderr_fd = pipefd[0];
    return pid;
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

long tbr_apitrace_frame_count(const char *trace)
{
    char *out = NULL;
    char *argv[] = {"apitrace", "info", (char *)trace, NULL};
    int rc = tbr_run_capture(argv, NULL, &out, 1);
    long frames = rc == 0 ? json_int_field(out, "FramesCount") : -1;
    free(out);
    return frames;
}
