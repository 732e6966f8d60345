/* Minimal assertion helpers for the timing tests: report file:line and
 * keep going, the exit status tells ctest whether anything failed. */
#ifndef TBR_TESTS_TIMING_TCHECK_H
#define TBR_TESTS_TIMING_TCHECK_H

#include <stdio.h>
#include <string.h>

static int t_failures;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                                   \
            t_failures++;                                                                                              \
        }                                                                                                              \
    } while (0)

#define CHECK_EQ_U(a, b)                                                                                               \
    do {                                                                                                               \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);                                 \
        if (a_ != b_) {                                                                                                \
            fprintf(stderr, "%s:%d: %s == %s failed: %llu != %llu\n", __FILE__, __LINE__, #a, #b, a_, b_);             \
            t_failures++;                                                                                              \
        }                                                                                                              \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                                                                \
    do {                                                                                                               \
        const char *h_ = (hay), *n_ = (needle);                                                                        \
        if (!h_ || !strstr(h_, n_)) {                                                                                  \
            fprintf(stderr, "%s:%d: '%s' does not contain '%s'\n", __FILE__, __LINE__, h_ ? h_ : "(null)", n_);        \
            t_failures++;                                                                                              \
        }                                                                                                              \
    } while (0)

#define T_RESULT() (t_failures ? (fprintf(stderr, "%d check(s) failed\n", t_failures), 1) : 0)

#endif
