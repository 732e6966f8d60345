/* Shared helpers (util.h). */
#include "core/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t n)
{
    fprintf(stderr, "tbrsim: out of memory (allocating %zu bytes)\n", n);
    exit(2);
}

void *tbr_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) out_of_memory(n * size);
    return p;
}

void *tbr_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) out_of_memory(n);
    return q;
}

char *tbr_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = tbr_xrealloc(NULL, n);
    memcpy(d, s, n);
    return d;
}

void tbr_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}
