/* The sweep file (docs/sweeps.md "The sweep file"): workloads x configurations, the
 * statistics to collect. Parsing only (no file system access beyond reading the file),
 * so that the fuzzer (tests/tools_sweep/fuzz_sweep_file.c) can drive it. */
#ifndef TBR_SWEEP_FILE_H
#define TBR_SWEEP_FILE_H

#include <stddef.h>
#include <stdint.h>

#define SWEEP_ERR 1200

typedef struct {
    char *name;
    char *dir;             /* a tbr-replay output directory, or NULL */
    char *trace;           /* a trace to replay first, or NULL */
    char *replay_frames;   /* tbr-replay --frames (trace only), or NULL */
    int has_frames;        /* tbr-sim --frames FIRST-LAST */
    uint64_t first, last;  /* the simulated window */
    uint64_t shard_frames; /* K: frames per shard, 0 = not sharded */
    uint64_t warmup;       /* W: warm-up frames simulated, not counted, before each shard */
    int line;
} sweep_workload;

typedef struct {
    char *name;
    char **presets; /* tbr-sim --config FILE, in order */
    size_t npresets;
    char **sets; /* tbr-sim --set KEY=VALUE, in order */
    size_t nsets;
    int line;
} sweep_config;

typedef struct {
    char *path;     /* the sweep file as given */
    char *base_dir; /* its directory: relative paths in the file are relative to it */
    char *name;
    char *output; /* output directory (relative to base_dir unless absolute), or NULL */
    sweep_workload *workloads;
    size_t nworkloads;
    sweep_config *configs; /* grids already expanded, in file order */
    size_t nconfigs;
    char **stats; /* statistics to collect (tools/common metric names) */
    size_t nstats;
    char *normalize; /* configuration the summary and charts normalise to (default: first) */
} sweep_file;

/* Parses TEXT (LEN bytes) read from PATH. 0, or -1 with "PATH:LINE: problem" in err. */
int sweep_parse(const char *path, const char *text, size_t len, sweep_file *sf, char *err, size_t err_size);
/* Reads and parses PATH. 0, or -1 (err names the file, and the line if any). */
int sweep_load(const char *path, sweep_file *sf, char *err, size_t err_size);
void sweep_free(sweep_file *sf);

/* A path of the sweep file resolved against its directory (malloc'd). */
char *sweep_resolve(const sweep_file *sf, const char *p);

#endif
