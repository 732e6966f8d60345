/* The timing tests' check: a false condition is reported with its place and counted, and
 * the test's main returns 1 when `failures` is not 0. One per test program (tbr_test_synth
 * puts tests/common on the include path). */
#ifndef TBR_TEST_CHECK_H
#define TBR_TEST_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(c)                                                                                                       \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);                                      \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

#endif
