/* Small helpers shared by the simulator's files: allocation that never returns NULL (out of
 * memory is a message and exit status 2, as for any unusable input), error messages into a
 * caller's buffer, integer log2. */
#ifndef TBR_CORE_UTIL_H
#define TBR_CORE_UTIL_H

#include <stddef.h>
#include <stdint.h>

void *tbr_xcalloc(size_t n, size_t size);
void *tbr_xrealloc(void *p, size_t n);
char *tbr_xstrdup(const char *s);
/* printf into err[errlen] (nothing when err is NULL or errlen 0) */
void tbr_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* floor(log2(x)), 0 for x <= 1 */
static inline uint32_t tbr_ilog2(uint64_t x)
{
    uint32_t n = 0;
    while (x > 1) {
        x >>= 1;
        n++;
    }
    return n;
}

#endif
