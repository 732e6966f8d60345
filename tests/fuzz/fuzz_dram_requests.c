/* libFuzzer target: tbr-dramsim's request-trace parser (timing/memory/dramsim_trace.h;
 * issue 22). The input is written to a file and parsed; errors are fine, a crash,
 * sanitizer report, leak or hang is a bug. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "memory/dramsim_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) fuzz_scratch_path(path, sizeof path, "dram.txt");
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    if (fwrite(data, 1, size, f) != size) size = 0;
    if (fclose(f) || !size) return 0;
    treq *reqs = NULL;
    size_t n = 0;
    char err[512];
    int rc = tbr_dramsim_load_trace(path, &reqs, &n, err, sizeof err);
    unlink(path); /* nothing left in /dev/shm (a crashing input leaves its file: the reproducer) */
    if (rc == 0) {
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++) sum += reqs[i].addr ^ reqs[i].cycle;
        if (sum == 1) fprintf(stderr, "%llu\n", (unsigned long long)sum);
        free(reqs);
    }
    return 0;
}
