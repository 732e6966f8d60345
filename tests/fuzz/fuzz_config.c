/* libFuzzer target: the simulator's configuration parser (timing/core/config.c; issue 22):
 * the input as a configuration file, then each of its lines as a --set override, then the
 * validation and the text of every value the input set, as both dumps write it. Errors
 * are fine; a crash, sanitizer report, leak or hang is a bug. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/stats.h"

/* What the dumps (tbr_config_dump_text/json) write of a parameter that depends on the
 * input: its value's canonical text (JSON-escaped in the JSON dump) and its origin. The
 * rest of a dump is the same table text for every input: formatting all parameters'
 * help, range and value twice per input was 88% of this target's time (callgrind), and
 * the whole dumps are checked on real configurations by timing.config and the CLI tests.
 * DEFAULTS holds each parameter's default text (the same for every input). */
static void format_set_values(const tbr_config *cfg, char (*defaults)[512], FILE *sink)
{
    for (size_t i = 0; i < tbr_param_count(); i++) {
        char val[512];
        tbr_cfg_format(cfg, i, val, sizeof val);
        if (!strcmp(val, defaults[i])) continue;
        const char *name = tbr_param_at(i)->name;
        fprintf(sink, "%s = %s (%s)\n", name, val, tbr_cfg_origin(cfg, name));
        tbr_json_string(sink, val);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    static char(*defaults)[512];
    if (!sink) {
        sink = fopen("/dev/null", "w");
        defaults = calloc(tbr_param_count(), sizeof *defaults);
        tbr_config *def = tbr_config_new();
        for (size_t i = 0; i < tbr_param_count(); i++) tbr_cfg_format(def, i, defaults[i], sizeof defaults[i]);
        tbr_config_free(def);
    }
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
    format_set_values(cfg, defaults, sink);
    tbr_config_free(cfg);
    free(text);
    return 0;
}
