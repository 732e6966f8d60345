/* tbr-dramsim's request-trace parser (dramsim_main.c; format in docs/dram-model.md),
 * exposed for its fuzz target (tests/fuzz/fuzz_dram_requests.c). */
#ifndef TBR_DRAMSIM_TRACE_H
#define TBR_DRAMSIM_TRACE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t addr, cycle;
    int write;
} treq;

/* Reads the whole trace PATH ("-" = stdin): 0 and the requests in *out (malloc'd), or -1
 * with a file:line message on bad input. */
int tbr_dramsim_load_trace(const char *path, treq **out, size_t *n_out, char *err, size_t errlen);

#endif
