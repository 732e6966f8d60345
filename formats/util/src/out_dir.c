/* Output directories all of one run: see tbr/out_dir.h. */
#define _GNU_SOURCE
#include "tbr/out_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_MARK ".tmp-"

int tbr_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode)) return unlink(path);
    DIR *d = opendir(path);
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char child[PATH_MAX];
        if (snprintf(child, sizeof child, "%s/%s", path, e->d_name) >= (int)sizeof child) continue;
        tbr_remove_tree(child);
    }
    closedir(d);
    return rmdir(path);
}

/* Splits PATH into its parent directory and last component (trailing slashes dropped). */
static void split_path(const char *path, char *parent, size_t plen, char *base, size_t blen)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/') b--;
    snprintf(base, blen, "%.*s", (int)(n - b), path + b);
    if (b == 0)
        snprintf(parent, plen, ".");
    else if (b == 1)
        snprintf(parent, plen, "/");
    else
        snprintf(parent, plen, "%.*s", (int)(b - 1), path);
}

/* NAME is BASE.tmp-<digit>...: a temporary of the output BASE. */
static int is_tmp_of(const char *name, const char *base)
{
    size_t bl = strlen(base), ml = strlen(TMP_MARK);
    return !strncmp(name, base, bl) && !strncmp(name + bl, TMP_MARK, ml) && name[bl + ml] >= '0' &&
           name[bl + ml] <= '9';
}

int tbr_out_dir_is_unfinished(const char *dir)
{
    char parent[PATH_MAX], base[PATH_MAX];
    split_path(dir, parent, sizeof parent, base, sizeof base);
    const char *m = strstr(base, TMP_MARK);
    for (; m; m = strstr(m + 1, TMP_MARK))
        if (m > base && m[strlen(TMP_MARK)] >= '0' && m[strlen(TMP_MARK)] <= '9') return 1;
    return 0;
}

/* Locks OUT.lock; retries when the file was replaced between open and flock (a previous
 * holder unlinks it when it is done). 0, or -1 with err. */
static int take_lock(tbr_out_dir *d, char *err, size_t errlen)
{
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(d->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) {
            snprintf(err, errlen, "%s: cannot create the lock file: %s", d->lock_path, strerror(errno));
            return -1;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            close(fd);
            if (e == EWOULDBLOCK)
                snprintf(err, errlen, "%s: another run is writing this output directory (it holds %s)", d->final_path,
                         d->lock_path);
            else
                snprintf(err, errlen, "%s: cannot lock: %s", d->lock_path, strerror(e));
            return -1;
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(d->lock_path, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
            d->lock_fd = fd;
            return 0;
        }
        close(fd); /* the file we locked was unlinked by its previous holder: lock the new one */
    }
    snprintf(err, errlen, "%s: cannot lock (the lock file keeps changing)", d->lock_path);
    return -1;
}

static void release_lock(tbr_out_dir *d)
{
    if (d->lock_fd < 0) return;
    unlink(d->lock_path); /* while still held: a waiter that opened it re-checks the inode */
    close(d->lock_fd);
    d->lock_fd = -1;
}

/* Removes every BASE.tmp-N in PARENT: under the lock they are leftovers of killed runs. */
static void remove_stale(const char *parent, const char *base)
{
    DIR *dir = opendir(parent);
    if (!dir) return;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (!is_tmp_of(e->d_name, base)) continue;
        char p[PATH_MAX];
        if (snprintf(p, sizeof p, "%s/%s", parent, e->d_name) >= (int)sizeof p) continue;
        tbr_remove_tree(p);
    }
    closedir(dir);
}

/* 1 when PATH is a directory with entries, 0 when empty, -1 when it is not a directory. */
static int dir_has_entries(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir) return -1;
    struct dirent *e;
    int n = 0;
    while (!n && (e = readdir(dir)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n = 1;
    closedir(dir);
    return n;
}

/* Refuses an existing OUT that a run without force must not replace. 0, or -1 with err. */
static int check_existing(const tbr_out_dir *d, char *err, size_t errlen)
{
    struct stat st;
    if (stat(d->final_path, &st) != 0) {
        if (errno == ENOENT) return 0;
        snprintf(err, errlen, "%s: %s", d->final_path, strerror(errno));
        return -1;
    }
    if (d->force) return 0;
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: exists and is not a directory (use --force to replace it)", d->final_path);
        return -1;
    }
    if (dir_has_entries(d->final_path) != 0) {
        snprintf(err, errlen, "%s: already exists and is not empty (use --force to replace it)", d->final_path);
        return -1;
    }
    return 0;
}

int tbr_out_dir_begin(tbr_out_dir *d, const char *out, int force, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->lock_fd = -1;
    if (errlen) err[0] = '\0';
    d->force = force;
    char parent[PATH_MAX / 2], base[PATH_MAX / 2 - 64]; /* sized so that the names below fit */
    split_path(out, parent, sizeof parent, base, sizeof base);
    if (!base[0] || !strcmp(base, ".") || !strcmp(base, "..") || strlen(out) >= sizeof base - 1) {
        snprintf(err, errlen, "%s: not usable as an output directory name", out);
        return -1;
    }
    snprintf(d->final_path, sizeof d->final_path, "%s", out);
    snprintf(d->lock_path, sizeof d->lock_path, "%s/%s.lock", parent, base);
    snprintf(d->tmp_path, sizeof d->tmp_path, "%s/%s" TMP_MARK "%ld", parent, base, (long)getpid());
    if (take_lock(d, err, errlen)) return -1;
    remove_stale(parent, base);
    if (check_existing(d, err, errlen) || mkdir(d->tmp_path, 0777) != 0) {
        if (d->lock_fd >= 0 && !err[0]) snprintf(err, errlen, "%s: cannot create: %s", d->tmp_path, strerror(errno));
        release_lock(d);
        return -1;
    }
    return 0;
}

int tbr_out_dir_commit(tbr_out_dir *d, char *err, size_t errlen)
{
    char old[PATH_MAX + 8];
    snprintf(old, sizeof old, "%s-old", d->tmp_path); /* still a BASE.tmp-N name: cleaned if we die */
    struct stat st;
    int had_old = lstat(d->final_path, &st) == 0;
    if (had_old && rename(d->final_path, old) != 0) {
        snprintf(err, errlen, "%s: cannot move the previous output aside: %s", d->final_path, strerror(errno));
        tbr_out_dir_abandon(d);
        return -1;
    }
    if (rename(d->tmp_path, d->final_path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", d->tmp_path, d->final_path, strerror(errno));
        if (had_old) rename(old, d->final_path);
        tbr_out_dir_abandon(d);
        return -1;
    }
    if (had_old) tbr_remove_tree(old);
    release_lock(d);
    return 0;
}

void tbr_out_dir_abandon(tbr_out_dir *d)
{
    tbr_remove_tree(d->tmp_path);
    release_lock(d);
}

int tbr_out_dir_keep_as(tbr_out_dir *d, const char *name)
{
    tbr_remove_tree(name);
    int rc = rename(d->tmp_path, name);
    int e = errno;
    if (rc != 0) tbr_remove_tree(d->tmp_path);
    release_lock(d);
    errno = e;
    return rc;
}

/* ---- cleanup on a signal ---------------------------------------------------------------
 * Only async-signal-safe calls (open, getdents64, unlinkat, close, unlink, raise): the
 * handler may interrupt malloc or stdio. The handler has to find the directory through
 * the one pointer below, set once before the handlers are installed (a signal handler
 * has no other way to reach its owner). */
static const tbr_out_dir *signal_dir;

/* Removes the contents of the directory open as fd, DEPTH levels deep at most. */
static void remove_contents_signal_safe(int fd, int depth)
{
    char buf[4096];
    long n;
    /* One pass to the end: removing entries does not disturb the directory's read position. */
    while ((n = getdents64(fd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            struct dirent64 *e = (struct dirent64 *)(buf + off);
            off += e->d_reclen;
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            if (unlinkat(fd, e->d_name, 0) == 0 || errno != EISDIR) continue;
            int sub = depth > 0 ? openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
            if (sub >= 0) {
                remove_contents_signal_safe(sub, depth - 1);
                close(sub);
            }
            unlinkat(fd, e->d_name, AT_REMOVEDIR);
        }
    }
}

static void on_fatal_signal(int sig)
{
    const tbr_out_dir *d = signal_dir;
    if (d) {
        int fd = open(d->tmp_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            remove_contents_signal_safe(fd, 4);
            close(fd);
        }
        rmdir(d->tmp_path);
        unlink(d->lock_path);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void tbr_out_dir_cleanup_on_signal(const tbr_out_dir *d)
{
    signal_dir = d;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}
