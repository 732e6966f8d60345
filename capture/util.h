/* Small helpers shared by the tbr-capture sources: messages, growable strings,
 * JSON string escaping, environment lists and time. */
#ifndef TBR_CAPTURE_UTIL_H
#define TBR_CAPTURE_UTIL_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>

/* Set by the SIGINT/SIGTERM handler: every wait loop checks it and unwinds. */
extern volatile sig_atomic_t g_interrupted;

void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A progress message (what tbr-capture is doing): like msg, but not printed when quiet
 * (-q/--quiet); warnings and errors go through msg. */
void note(int quiet, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct strbuf {
    char *s;
    size_t len, cap;
};
void sb_append(struct strbuf *b, const char *s, size_t n);
void sb_puts(struct strbuf *b, const char *s);
void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a quoted JSON string ("null" when s is NULL). */
void sb_json_str(struct strbuf *b, const char *s);
void sb_free(struct strbuf *b);

/* An editable copy of an environment (NULL-terminated "NAME=value" strings). */
struct env {
    char **v;
    size_t n;
};
void env_init_from_current(struct env *e);
void env_set(struct env *e, const char *name, const char *value);
void env_unset(struct env *e, const char *name);
const char *env_get(const struct env *e, const char *name);
void env_free(struct env *e);

double now_seconds(void); /* monotonic */
void sleep_seconds(double s);

/* Resolves a program name like execvp would.  Returns a malloc'd path or NULL. */
char *find_program(const char *name);

/* Removes a directory tree we created (work directories only). */
void remove_tree(const char *path);

#endif
