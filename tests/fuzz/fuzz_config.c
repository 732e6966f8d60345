/* libFuzzer target: the simulator's configuration parser (timing/core/config.c; issue 22):
 * the input as a configuration file, then each of its lines as a --set override, then the
 * validation and both dumps. Errors are fine; a crash, sanitizer report, leak or hang is a
 * bug. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink) sink = fopen("/dev/null", "w");
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    char err[1024];
    tbr_config *cfg = tbr_config_new();
    (void)tbr_config_parse_text(cfg, text, "fuzz.cfg", err, sizeof err);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        (void)tbr_config_apply_override(cfg, line, err, sizeof err);
    (void)tbr_config_validate(cfg, err, sizeof err);
    tbr_config_dump_text(cfg, sink);
    tbr_config_dump_json(cfg, sink);
    tbr_config_free(cfg);
    free(text);
    return 0;
}
