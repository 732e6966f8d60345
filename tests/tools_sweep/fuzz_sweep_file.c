/* libFuzzer target for the sweep-file parser (tools/sweep/sweep_file.c): any input is
 * parsed; an accepted file must have what sweep_parse promises (a workload, a
 * configuration, a statistic, names that are directory names). Any crash, sanitizer
 * report or leak is a bug. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sweep_file sf;
    char err[SWEEP_ERR];
    if (sweep_parse("fuzz/in.sweep", (const char *)data, size, &sf, err, sizeof err)) {
        if (strncmp(err, "fuzz/in.sweep:", 14)) abort(); /* every message names the file */
        return 0;
    }
    if (!sf.nworkloads || !sf.nconfigs || !sf.nstats) abort();
    for (size_t i = 0; i < sf.nconfigs; i++)
        if (!sf.configs[i].name[0] || strchr(sf.configs[i].name, '/')) abort();
    char *p = sweep_resolve(&sf, "x");
    free(p);
    sweep_free(&sf);
    return 0;
}
