#include "unsupported_calls.h"
#include "subprocess.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Compute work runs on softpipe during the replay, but nothing of it is recorded: the
 * resources it writes change under tbr-sim, whose frames then differ from the references
 * (measured on samples/compute.c: 4 of 5 frames differ). */
static const char *const unsupported[] = {"glDispatchCompute", "glDispatchComputeIndirect"};
#define NUNSUPPORTED (sizeof unsupported / sizeof unsupported[0])

int tbr_find_unsupported_calls(const char *trace, char *summary, size_t size)
{
    char *out = NULL;
    char *argv[] = {"apitrace", "dump", "--color=never", "--grep=^glDispatchCompute", (char *)trace, NULL};
    if (tbr_run_capture(argv, NULL, &out, 1) != 0 || !out) {
        free(out);
        return -1;
    }
    long count[NUNSUPPORTED] = {0}, first[NUNSUPPORTED] = {0};
    /* dump lines: "56 glDispatchCompute(num_groups_x = 8, ...)" */
    for (char *line = out; line && *line;) {
        char *end = strchr(line, '\n');
        char *name = strchr(line, ' ');
        for (size_t k = 0; name && k < NUNSUPPORTED; k++) {
            size_t n = strlen(unsupported[k]);
            if (!strncmp(name + 1, unsupported[k], n) && name[1 + n] == '(' && !count[k]++)
                first[k] = strtol(line, NULL, 10);
        }
        line = end ? end + 1 : NULL;
    }
    free(out);
    size_t used = 0;
    summary[0] = '\0';
    for (size_t k = 0; k < NUNSUPPORTED; k++)
        if (count[k] && used < size)
            used += (size_t)snprintf(summary + used, size - used, "%s%s x%ld (first at call %ld)", used ? ", " : "",
                                     unsupported[k], count[k], first[k]);
    return 0;
}
