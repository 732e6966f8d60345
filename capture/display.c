#define _GNU_SOURCE /* pipe2 */
#include "display.h"

#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Prints the last lines of a server's log (the reason it failed is at the end). */
static void show_log(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    enum { KEEP = 15 };
    char lines[KEEP][256];
    int n = 0;
    while (fgets(lines[n % KEEP], sizeof lines[0], f)) n++;
    fclose(f);
    for (int i = n > KEEP ? n - KEEP : 0; i < n; i++) fprintf(stderr, "  | %s", lines[i % KEEP]);
}

static int open_log(struct display *d, const char *workdir, const char *base)
{
    d->log_path = xasprintf("%s/%s.log", workdir, base);
    int fd = open(d->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) msg("cannot create %s: %s", d->log_path, strerror(errno));
    return fd;
}

int display_start_x11(struct display *d, int w, int h, struct env *env, const char *workdir)
{
    memset(d, 0, sizeof *d);
    d->kind = "x11";
    char *exe = find_program("Xvfb");
    if (!exe) {
        msg("Xvfb not found: install the xvfb package (scripts/install-deps)");
        return -1;
    }
    free(exe);
    int logfd = open_log(d, workdir, "xvfb");
    if (logfd < 0) return -1;
    /* -displayfd: Xvfb picks a free display number itself and writes it to the
     * pipe once it accepts connections, so there is neither a race on the number
     * nor a need to poll for the socket. */
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) {
        close(logfd);
        return -1;
    }
    char fdarg[16], screen[64];
    snprintf(fdarg, sizeof fdarg, "%d", p[1]);
    snprintf(screen, sizeof screen, "%dx%dx24", w, h);
    char *argv[] = {"Xvfb", "-displayfd", fdarg, "-screen", "0", screen, "-nolisten", "tcp", "-noreset", NULL};
    struct spawn_opts o = {NULL, 1, 1, logfd, logfd, p[1], NULL};
    pid_t pid = spawn_process(argv, &o);
    close(p[1]);
    close(logfd);
    if (pid < 0) {
        msg("cannot start Xvfb: %s", strerror(errno));
        close(p[0]);
        return -1;
    }
    d->pid = pid;
    char buf[32];
    size_t len = 0;
    double end = now_seconds() + 20.0;
    while (len < sizeof buf - 1 && !g_interrupted && now_seconds() < end) {
        struct pollfd pf = {p[0], POLLIN, 0};
        if (poll(&pf, 1, 100) <= 0) continue;
        ssize_t r = read(p[0], buf + len, sizeof buf - 1 - len);
        if (r <= 0) break;
        len += (size_t)r;
        if (memchr(buf, '\n', len)) break;
    }
    close(p[0]);
    buf[len] = '\0';
    int num = -1;
    if (len == 0 || sscanf(buf, "%d", &num) != 1 || num < 0) {
        msg("Xvfb did not start; its output:");
        show_log(d->log_path);
        display_stop(d);
        return -1;
    }
    d->name = xasprintf(":%d", num);
    env_set(env, "DISPLAY", d->name);
    env_unset(env, "WAYLAND_DISPLAY"); /* toolkits would prefer Wayland over X11 */
    return 0;
}

int display_start_wayland(struct display *d, int w, int h, struct env *env, const char *workdir)
{
    memset(d, 0, sizeof *d);
    d->kind = "wayland";
    char *exe = find_program("weston");
    if (!exe) {
        msg("weston not found: install it with scripts/install-deps (Debian package weston)");
        return -1;
    }
    free(exe);
    /* Wayland sockets live in $XDG_RUNTIME_DIR; make a private one if there is none. */
    const char *xdg = env_get(env, "XDG_RUNTIME_DIR");
    struct stat st;
    if (!xdg || stat(xdg, &st) < 0 || !S_ISDIR(st.st_mode) || access(xdg, W_OK) < 0) {
        char *dir = xasprintf("%s/xdg-runtime", workdir);
        if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
            msg("cannot create %s: %s", dir, strerror(errno));
            free(dir);
            return -1;
        }
        env_set(env, "XDG_RUNTIME_DIR", dir);
        free(dir);
        xdg = env_get(env, "XDG_RUNTIME_DIR");
    }
    d->name = xasprintf("tbr-capture-%ld", (long)getpid());
    int logfd = open_log(d, workdir, "weston");
    if (logfd < 0) return -1;
    char wa[32], ha[32], sock[128];
    snprintf(wa, sizeof wa, "--width=%d", w);
    snprintf(ha, sizeof ha, "--height=%d", h);
    snprintf(sock, sizeof sock, "--socket=%s", d->name);
    /* --use-gl: weston composites with GL (llvmpipe), the configuration measured
     * to work with Mesa's Wayland EGL clients here. */
    char *argv[] = {"weston", "--backend=headless-backend.so", "--use-gl", wa, ha, sock, "--no-config", "--idle-time=0",
                    NULL};
    struct spawn_opts o = {env->v, 1, 1, logfd, logfd, -1, NULL};
    pid_t pid = spawn_process(argv, &o);
    close(logfd);
    if (pid < 0) {
        msg("cannot start weston: %s", strerror(errno));
        return -1;
    }
    d->pid = pid;
    char *sock_path = xasprintf("%s/%s", xdg, d->name);
    double end = now_seconds() + 20.0;
    int ok = 0, status;
    while (!g_interrupted && now_seconds() < end) {
        if (stat(sock_path, &st) == 0 && S_ISSOCK(st.st_mode)) {
            ok = 1;
            break;
        }
        if (waitpid(pid, &status, WNOHANG) == pid) {
            d->pid = 0;
            break;
        }
        sleep_seconds(0.05);
    }
    free(sock_path);
    if (!ok) {
        msg("weston did not start; its output:");
        show_log(d->log_path);
        display_stop(d);
        return -1;
    }
    env_set(env, "WAYLAND_DISPLAY", d->name);
    env_unset(env, "DISPLAY"); /* so that the program cannot fall back to X11 */
    return 0;
}

void display_stop(struct display *d)
{
    if (d->pid > 0) {
        stop_process(d->pid, 1, 5.0);
        d->pid = 0;
    }
    free(d->name);
    free(d->log_path);
    d->name = NULL;
    d->log_path = NULL;
}
