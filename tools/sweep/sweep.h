/* tbr-sweep's plan: the sweep file's cells (workload x configuration) and the tasks that
 * produce them (one tbr-sim run, or one per frame shard), with their files under the
 * output directory (docs/sweeps.md "Output directory"). */
#ifndef TBR_SWEEP_H
#define TBR_SWEEP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sweep_file.h"

#define SW_PATH 4096

/* One tbr-sim run: a whole cell, or one shard of it. */
typedef struct {
    size_t cell;          /* index into sweep_plan.cells */
    int sharded;          /* counted frames are first..last of a sharded window */
    uint64_t first, last; /* counted frames (sharded), or the --frames window (has_frames) */
    uint64_t sim_first;   /* first simulated frame: first - warm-up, clamped to the window */
    char dir[SW_PATH];    /* final output directory (complete when DIR/done exists) */
    char log[SW_PATH];    /* tbr-sim's stdout and stderr */
} sweep_task;

/* A workload x configuration. */
typedef struct {
    size_t w, c;
    size_t first_task, ntasks;
} sweep_cell;

typedef struct {
    sweep_file sf;
    char out[SW_PATH];    /* absolute output directory */
    char sim[SW_PATH];    /* tbr-sim beside tbr-sweep */
    char replay[SW_PATH]; /* tbr-replay beside tbr-sweep */
    char **inputs;        /* per workload: the tbr-replay directory tbr-sim reads */
    sweep_cell *cells;
    size_t ncells;
    sweep_task *tasks;
    size_t ntasks;
} sweep_plan;

typedef enum { ST_PENDING, ST_RUNNING, ST_FAILED, ST_DONE } sweep_state;
const char *sweep_state_name(sweep_state s);

/* Loads the sweep file and lays out its cells and tasks under OUT (NULL: the file's
 * 'output'). Checks that dir workloads are tbr-replay outputs and preset files exist.
 * 0, or -1 (message in err). */
int plan_load(sweep_plan *pl, const char *sweep_path, const char *out, const char *self, char *err, size_t err_size);
void plan_free(sweep_plan *pl);

/* A workload's replay (trace workloads): output, temp and failure paths and its log. */
int plan_needs_replay(const sweep_plan *pl, size_t w);
void plan_replay_paths(const sweep_plan *pl, size_t w, char *log, size_t n);
sweep_state plan_replay_state(const sweep_plan *pl, size_t w);

sweep_state plan_task_state(const sweep_task *t);
sweep_state plan_cell_state(const sweep_plan *pl, const sweep_cell *c);

/* Prints the cells, tasks and commands (tbr-sweep plan). */
void plan_print(const sweep_plan *pl);

/* The tbr-sim command of a task (argv, NULL-terminated; free with plan_argv_free). */
char **plan_task_argv(const sweep_plan *pl, const sweep_task *t, const char *outdir);
char **plan_replay_argv(const sweep_plan *pl, size_t w, const char *outdir);
void plan_argv_free(char **argv);

/* exec.c: running tasks. A task (or a replay) is started as a child process writing to a
 * temp directory, and finished (done marker + rename, or a failure marker) when it exits. */
pid_t task_start(const sweep_plan *pl, size_t task);
int task_finish(const sweep_plan *pl, size_t task, int wait_status); /* 0 done, -1 failed */
pid_t replay_start(const sweep_plan *pl, size_t w);
int replay_finish(const sweep_plan *pl, size_t w, int wait_status);
/* Start, wait, finish: what a Slurm array task runs. 0 done, -1 failed. */
int task_run(const sweep_plan *pl, size_t task);
int replay_run(const sweep_plan *pl, size_t w);
/* run --local: every unfinished replay, then every unfinished task, JOBS at a time.
 * Exit status: 0 all done, 1 some failed, 130 interrupted. */
int run_local(const sweep_plan *pl, int jobs);
/* Helpers shared with slurm.c and collect.c. */
int sw_mkdirs(const char *path);
int sw_rmtree(const char *path);
int sw_write_file(const char *path, const char *text); /* temp name + rename */
int sw_exists(const char *path);

/* slurm.c: run --slurm. */
int run_slurm(const sweep_plan *pl, const char *self, int chunk, int wait, char **sbatch_opts, int nopts);
/* tbr-sweep task --list FILE --index I --chunk C: the array task's share. */
int run_listed(const sweep_plan *pl, const char *list, long index, long chunk);

/* collect.c */
int collect(const sweep_plan *pl, const char *csv_path, const char *charts_dir);

#endif
