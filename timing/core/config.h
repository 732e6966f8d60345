/* Timing-simulator configuration: one declarative parameter table.
 *
 * Every parameter of the timing models lives in a single static table
 * (config.c): name, type, default, unit, range or allowed values, help text
 * and the design document it comes from. A tbr_config holds one value per
 * table entry; it starts from the defaults, is updated from `key = value`
 * config files and `--set key=value` overrides, and is then validated as a
 * whole (cross-parameter checks). Unknown keys, malformed values and values
 * out of range are errors; nothing is silently ignored. See
 * docs/timing-config.md.
 */
#ifndef TBR_TIMING_CONFIG_H
#define TBR_TIMING_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    TBR_P_INT,    /* signed 64-bit integer, decimal or 0x hex */
    TBR_P_UINT,   /* unsigned 64-bit integer, decimal or 0x hex */
    TBR_P_DOUBLE, /* finite double */
    TBR_P_BOOL,   /* true/false, yes/no, on/off, 1/0 */
    TBR_P_ENUM,   /* one of the '|'-separated names in `allowed` */
    TBR_P_STRING, /* free text (validated by the cross-parameter checks) */
} tbr_param_type;

typedef struct {
    const char *name; /* hierarchical, e.g. "l2.size_kb" */
    tbr_param_type type;
    const char *def;     /* default, written as in a config file */
    const char *unit;    /* "" when dimensionless */
    double min, max;     /* inclusive range for INT/UINT/DOUBLE */
    const char *allowed; /* ENUM: "a|b|c"; NULL otherwise */
    const char *help;
    const char *source; /* design document / table the default comes from */
} tbr_param_desc;

typedef struct tbr_config tbr_config;

/* The static table. */
size_t tbr_param_count(void);
const tbr_param_desc *tbr_param_at(size_t i);
const tbr_param_desc *tbr_param_find(const char *name);
const char *tbr_param_type_name(tbr_param_type t);
/* Why KEY is in the table but not modeled yet (any value but its default is rejected), or NULL. */
const char *tbr_param_not_modeled(const char *name);

/* A configuration holding the built-in defaults. Never NULL (aborts on OOM). */
tbr_config *tbr_config_new(void);
void tbr_config_free(tbr_config *cfg);

/* All functions returning int: 0 on success, -1 on error with a message in
 * err (which names the file:line or "--set" the error comes from). */

/* Set one parameter from its text form. `where` ("file:line", "--set") is
 * recorded as the value's origin and used in error messages. */
int tbr_config_set(tbr_config *cfg, const char *key, const char *value, const char *where, char *err, size_t errlen);
/* Parse config text: `key = value` lines, '#' starts a comment, blank lines
 * ignored. A key given twice in the same text is an error. `name` is used
 * as the file name in messages. */
int tbr_config_parse_text(tbr_config *cfg, const char *text, const char *name, char *err, size_t errlen);
int tbr_config_load_file(tbr_config *cfg, const char *path, char *err, size_t errlen);
/* Apply one "key=value" command-line override. */
int tbr_config_apply_override(tbr_config *cfg, const char *kv, char *err, size_t errlen);
/* Cross-parameter consistency checks; call after all files/overrides. */
int tbr_config_validate(const tbr_config *cfg, char *err, size_t errlen);

/* Typed getters. The name must exist with a matching type: a mismatch is a
 * programming error and aborts (models read their parameters once, at
 * construction). ENUM values can be read as string or as index. */
int64_t tbr_cfg_int(const tbr_config *cfg, const char *name);
uint64_t tbr_cfg_uint(const tbr_config *cfg, const char *name);
double tbr_cfg_double(const tbr_config *cfg, const char *name);
bool tbr_cfg_bool(const tbr_config *cfg, const char *name);
const char *tbr_cfg_str(const tbr_config *cfg, const char *name);
int tbr_cfg_enum(const tbr_config *cfg, const char *name);
/* "default", "file:line" or "--set". */
const char *tbr_cfg_origin(const tbr_config *cfg, const char *name);
/* Canonical text of a value (as it would be written in a config file). */
void tbr_cfg_format(const tbr_config *cfg, size_t i, char *buf, size_t len);

/* Compare two configurations; returns the number of differing parameters
 * and writes the first difference into diff. */
size_t tbr_config_diff(const tbr_config *a, const tbr_config *b, char *diff, size_t difflen);

/* The table, human readable (--list-params). */
void tbr_params_print(FILE *out);
/* Effective configuration as a loadable config file (with help/origin
 * comments), and as a JSON object in table order. */
void tbr_config_dump_text(const tbr_config *cfg, FILE *out);
void tbr_config_dump_json(const tbr_config *cfg, FILE *out);

#endif
