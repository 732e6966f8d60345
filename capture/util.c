#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

volatile sig_atomic_t g_interrupted;

void msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("tbr-capture: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void note(int quiet, const char *fmt, ...)
{
    if (quiet) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("tbr-capture: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        msg("out of memory");
        abort();
    }
    return p;
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        msg("out of memory");
        abort();
    }
    return p;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

void sb_append(struct strbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        b->s = xrealloc(b->s, cap);
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void sb_puts(struct strbuf *b, const char *s) { sb_append(b, s, strlen(s)); }

void sb_printf(struct strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *tmp = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(tmp, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_append(b, tmp, (size_t)n);
    free(tmp);
}

void sb_json_str(struct strbuf *b, const char *s)
{
    if (!s) {
        sb_puts(b, "null");
        return;
    }
    sb_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            sb_append(b, e, 2);
        } else if (*p == '\n') {
            sb_puts(b, "\\n");
        } else if (*p == '\t') {
            sb_puts(b, "\\t");
        } else if (*p < 0x20) {
            sb_printf(b, "\\u%04x", *p);
        } else {
            sb_append(b, (const char *)p, 1);
        }
    }
    sb_puts(b, "\"");
}

void sb_free(struct strbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

void env_init_from_current(struct env *e)
{
    size_t n = 0;
    while (environ && environ[n]) n++;
    e->v = xmalloc((n + 1) * sizeof *e->v);
    for (size_t i = 0; i < n; i++) e->v[i] = xstrdup(environ[i]);
    e->v[n] = NULL;
    e->n = n;
}

static size_t env_find(const struct env *e, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < e->n; i++)
        if (!strncmp(e->v[i], name, len) && e->v[i][len] == '=') return i;
    return (size_t)-1;
}

void env_set(struct env *e, const char *name, const char *value)
{
    char *kv = xasprintf("%s=%s", name, value);
    size_t i = env_find(e, name);
    if (i != (size_t)-1) {
        free(e->v[i]);
        e->v[i] = kv;
        return;
    }
    e->v = xrealloc(e->v, (e->n + 2) * sizeof *e->v);
    e->v[e->n++] = kv;
    e->v[e->n] = NULL;
}

void env_unset(struct env *e, const char *name)
{
    size_t i = env_find(e, name);
    if (i == (size_t)-1) return;
    free(e->v[i]);
    memmove(&e->v[i], &e->v[i + 1], (e->n - i) * sizeof *e->v); /* moves the NULL too */
    e->n--;
}

const char *env_get(const struct env *e, const char *name)
{
    size_t i = env_find(e, name);
    return i == (size_t)-1 ? NULL : e->v[i] + strlen(name) + 1;
}

void env_free(struct env *e)
{
    for (size_t i = 0; i < e->n; i++) free(e->v[i]);
    free(e->v);
    e->v = NULL;
    e->n = 0;
}

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void sleep_seconds(double s)
{
    if (s <= 0) return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) && errno == EINTR && !g_interrupted) {}
}

static int is_exec_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *find_program(const char *name)
{
    if (!name || !*name) return NULL;
    if (strchr(name, '/')) return is_exec_file(name) ? xstrdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        char *cand = len ? xasprintf("%.*s/%s", (int)len, path, name) : xasprintf("./%s", name);
        if (is_exec_file(cand)) return cand;
        free(cand);
        path += len;
        if (*path == ':') path++;
    }
    return NULL;
}

void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
            char *p = xasprintf("%s/%s", path, de->d_name);
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(p);
            else
                unlink(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(path);
}
