/* The plan: cells, tasks and their paths (docs/sweeps.md "Output directory"). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep.h"

const char *sweep_state_name(sweep_state s)
{
    static const char *const names[] = {"pending", "running", "failed", "done"};
    return names[s];
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) abort();
    return p;
}

/* DIR/tbr-sim and DIR/tbr-replay where DIR holds this executable. */
static int find_tools(sweep_plan *pl, const char *self, char *err, size_t err_size)
{
    char exe[SW_PATH];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        if (!realpath(self, exe)) {
            snprintf(err, err_size, "cannot find the directory of %s", self);
            return -1;
        }
    } else {
        exe[n] = 0;
    }
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    snprintf(pl->sim, sizeof pl->sim, "%.4000s/tbr-sim", exe);
    snprintf(pl->replay, sizeof pl->replay, "%.4000s/tbr-replay", exe);
    if (access(pl->sim, X_OK)) {
        snprintf(err, err_size, "%s: not found (tbr-sweep runs the tbr-sim beside it)", pl->sim);
        return -1;
    }
    return 0;
}

/* The output directory, created, as an absolute path (Slurm tasks start elsewhere). */
static int set_output(sweep_plan *pl, const char *out, char *err, size_t err_size)
{
    char *rel = out ? strdup(out) : pl->sf.output ? sweep_resolve(&pl->sf, pl->sf.output) : NULL;
    if (!rel) {
        snprintf(err, err_size, "%s: no output directory ('output = DIR' in [sweep], or --out DIR)", pl->sf.path);
        return -1;
    }
    int rc = 0;
    if (sw_mkdirs(rel) || !realpath(rel, pl->out)) {
        snprintf(err, err_size, "%s: cannot create the output directory: %s", rel, strerror(errno));
        rc = -1;
    }
    free(rel);
    return rc;
}

/* Workload inputs: a dir must be a tbr-replay output; presets must exist. */
static int check_inputs(sweep_plan *pl, char *err, size_t err_size)
{
    const sweep_file *sf = &pl->sf;
    pl->inputs = xcalloc(sf->nworkloads, sizeof *pl->inputs);
    for (size_t i = 0; i < sf->nworkloads; i++) {
        const sweep_workload *w = &sf->workloads[i];
        char p[SW_PATH + 32];
        if (w->dir) {
            pl->inputs[i] = sweep_resolve(sf, w->dir);
            snprintf(p, sizeof p, "%s/activity.tbrt", pl->inputs[i]);
        } else {
            char *t = sweep_resolve(sf, w->trace);
            snprintf(p, sizeof p, "%s", t);
            free(t);
            pl->inputs[i] = malloc(SW_PATH + 64);
            if (!pl->inputs[i]) abort();
            snprintf(pl->inputs[i], SW_PATH + 64, "%s/replay/%s", pl->out, w->name);
        }
        if (access(p, R_OK)) {
            snprintf(err, err_size, "%s:%d: workload '%s': %s: %s%s", sf->path, w->line, w->name, p, strerror(errno),
                     w->dir ? " (dir must be a tbr-replay output directory)" : "");
            return -1;
        }
    }
    for (size_t c = 0; c < sf->nconfigs; c++)
        for (size_t k = 0; k < sf->configs[c].npresets; k++) {
            char *p = sweep_resolve(sf, sf->configs[c].presets[k]);
            int bad = access(p, R_OK);
            if (bad)
                snprintf(err, err_size, "%s:%d: configuration '%s': preset %s: %s", sf->path, sf->configs[c].line,
                         sf->configs[c].name, p, strerror(errno));
            free(p);
            if (bad) return -1;
        }
    return 0;
}

static void add_task(sweep_plan *pl, size_t cell, int sharded, uint64_t first, uint64_t last, uint64_t sim_first)
{
    const sweep_cell *c = &pl->cells[cell];
    const char *wn = pl->sf.workloads[c->w].name, *cn = pl->sf.configs[c->c].name;
    sweep_task *t = &pl->tasks[pl->ntasks++];
    char part[64];
    if (sharded)
        snprintf(part, sizeof part, "shard-%llu-%llu", (unsigned long long)first, (unsigned long long)last);
    else
        snprintf(part, sizeof part, "run");
    t->cell = cell;
    t->sharded = sharded;
    t->first = first;
    t->last = last;
    t->sim_first = sim_first;
    snprintf(t->dir, sizeof t->dir, "%.3800s/cells/%s/%s/%s", pl->out, wn, cn, part);
    snprintf(t->log, sizeof t->log, "%.3800s/logs/%s/%s/%s.log", pl->out, wn, cn, part);
}

/* Cells in workload-major order; a sharded workload's cells get one task per shard. */
static void lay_out(sweep_plan *pl)
{
    const sweep_file *sf = &pl->sf;
    size_t ntasks = 0;
    for (size_t w = 0; w < sf->nworkloads; w++) {
        const sweep_workload *wl = &sf->workloads[w];
        size_t per = wl->shard_frames ? (size_t)((wl->last - wl->first) / wl->shard_frames + 1) : 1;
        ntasks += per * sf->nconfigs;
    }
    pl->ncells = sf->nworkloads * sf->nconfigs;
    pl->cells = xcalloc(pl->ncells, sizeof *pl->cells);
    pl->tasks = xcalloc(ntasks, sizeof *pl->tasks);
    for (size_t w = 0, i = 0; w < sf->nworkloads; w++) {
        const sweep_workload *wl = &sf->workloads[w];
        for (size_t c = 0; c < sf->nconfigs; c++, i++) {
            sweep_cell *cell = &pl->cells[i];
            cell->w = w;
            cell->c = c;
            cell->first_task = pl->ntasks;
            if (!wl->shard_frames) {
                add_task(pl, i, 0, wl->first, wl->last, wl->first);
            } else {
                for (uint64_t s = wl->first; s <= wl->last; s += wl->shard_frames) {
                    uint64_t e = wl->last - s < wl->shard_frames ? wl->last : s + wl->shard_frames - 1;
                    uint64_t sim_first = s - wl->first < wl->warmup ? wl->first : s - wl->warmup;
                    add_task(pl, i, 1, s, e, sim_first);
                    if (e == wl->last) break;
                }
            }
            cell->ntasks = pl->ntasks - cell->first_task;
        }
    }
}

int plan_load(sweep_plan *pl, const char *sweep_path, const char *out, const char *self, char *err, size_t err_size)
{
    memset(pl, 0, sizeof *pl);
    if (sweep_load(sweep_path, &pl->sf, err, err_size)) return -1;
    if (find_tools(pl, self, err, err_size) || set_output(pl, out, err, err_size) || check_inputs(pl, err, err_size)) {
        plan_free(pl);
        return -1;
    }
    lay_out(pl);
    return 0;
}

void plan_free(sweep_plan *pl)
{
    for (size_t i = 0; pl->inputs && i < pl->sf.nworkloads; i++) free(pl->inputs[i]);
    free(pl->inputs);
    free(pl->cells);
    free(pl->tasks);
    sweep_free(&pl->sf);
    memset(pl, 0, sizeof *pl);
}

int plan_needs_replay(const sweep_plan *pl, size_t w) { return pl->sf.workloads[w].trace != NULL; }

void plan_replay_paths(const sweep_plan *pl, size_t w, char *log, size_t n)
{
    snprintf(log, n, "%.3800s/logs/%s/replay.log", pl->out, pl->sf.workloads[w].name);
}

/* DIR complete: DIR/done; failed: DIR.failed; running (or interrupted): DIR.tmp. */
static sweep_state dir_state(const char *dir)
{
    char p[SW_PATH + 16];
    snprintf(p, sizeof p, "%s/done", dir);
    if (sw_exists(p)) return ST_DONE;
    snprintf(p, sizeof p, "%s.failed", dir);
    if (sw_exists(p)) return ST_FAILED;
    snprintf(p, sizeof p, "%s.tmp", dir);
    if (sw_exists(p)) return ST_RUNNING;
    return ST_PENDING;
}

sweep_state plan_replay_state(const sweep_plan *pl, size_t w)
{
    return plan_needs_replay(pl, w) ? dir_state(pl->inputs[w]) : ST_DONE;
}

sweep_state plan_task_state(const sweep_task *t) { return dir_state(t->dir); }

sweep_state plan_cell_state(const sweep_plan *pl, const sweep_cell *c)
{
    int n[4] = {0};
    for (size_t i = 0; i < c->ntasks; i++) n[plan_task_state(&pl->tasks[c->first_task + i])]++;
    if (n[ST_FAILED]) return ST_FAILED;
    if (n[ST_RUNNING]) return ST_RUNNING;
    if (n[ST_DONE] == (int)c->ntasks) return ST_DONE;
    return ST_PENDING;
}

static void push_arg(char ***argv, size_t *n, const char *s)
{
    *argv = realloc(*argv, (*n + 2) * sizeof **argv);
    if (!*argv) abort();
    (*argv)[*n] = strdup(s);
    if (!(*argv)[*n]) abort();
    (*argv)[++*n] = NULL;
}

char **plan_task_argv(const sweep_plan *pl, const sweep_task *t, const char *outdir)
{
    const sweep_cell *cell = &pl->cells[t->cell];
    const sweep_config *c = &pl->sf.configs[cell->c];
    const sweep_workload *w = &pl->sf.workloads[cell->w];
    char **argv = NULL;
    size_t n = 0;
    push_arg(&argv, &n, pl->sim);
    push_arg(&argv, &n, pl->inputs[cell->w]);
    push_arg(&argv, &n, "-o");
    push_arg(&argv, &n, outdir);
    for (size_t i = 0; i < c->npresets; i++) {
        char *p = sweep_resolve(&pl->sf, c->presets[i]);
        push_arg(&argv, &n, "--config");
        push_arg(&argv, &n, p);
        free(p);
    }
    for (size_t i = 0; i < c->nsets; i++) {
        push_arg(&argv, &n, "--set");
        push_arg(&argv, &n, c->sets[i]);
    }
    if (t->sharded || w->has_frames) {
        char fr[64];
        snprintf(fr, sizeof fr, "%llu-%llu", (unsigned long long)t->sim_first, (unsigned long long)t->last);
        push_arg(&argv, &n, "--frames");
        push_arg(&argv, &n, fr);
    }
    return argv;
}

char **plan_replay_argv(const sweep_plan *pl, size_t w, const char *outdir)
{
    const sweep_workload *wl = &pl->sf.workloads[w];
    char **argv = NULL;
    size_t n = 0;
    char *trace = sweep_resolve(&pl->sf, wl->trace);
    push_arg(&argv, &n, pl->replay);
    push_arg(&argv, &n, trace);
    push_arg(&argv, &n, "-o");
    push_arg(&argv, &n, outdir);
    push_arg(&argv, &n, "--force");
    if (wl->replay_frames) {
        push_arg(&argv, &n, "--frames");
        push_arg(&argv, &n, wl->replay_frames);
    }
    free(trace);
    return argv;
}

void plan_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++) free(argv[i]);
    free(argv);
}

static void print_argv(char **argv)
{
    for (size_t i = 0; argv[i]; i++) printf("%s%s", i ? " " : "", argv[i]);
}

void plan_print(const sweep_plan *pl)
{
    const sweep_file *sf = &pl->sf;
    printf("sweep %s: %zu workloads x %zu configurations = %zu cells, %zu tasks\noutput %s\n",
           sf->name ? sf->name : sf->path, sf->nworkloads, sf->nconfigs, pl->ncells, pl->ntasks, pl->out);
    for (size_t w = 0; w < sf->nworkloads; w++) {
        if (!plan_needs_replay(pl, w)) continue;
        char **argv = plan_replay_argv(pl, w, pl->inputs[w]);
        printf("replay %s [%s]: ", sf->workloads[w].name, sweep_state_name(plan_replay_state(pl, w)));
        print_argv(argv);
        printf("\n");
        plan_argv_free(argv);
    }
    for (size_t i = 0; i < pl->ncells; i++) {
        const sweep_cell *c = &pl->cells[i];
        printf("cell %zu %s/%s [%s]\n", i, sf->workloads[c->w].name, sf->configs[c->c].name,
               sweep_state_name(plan_cell_state(pl, c)));
        for (size_t k = 0; k < c->ntasks; k++) {
            const sweep_task *t = &pl->tasks[c->first_task + k];
            char **argv = plan_task_argv(pl, t, t->dir);
            if (t->sharded)
                printf("  task %zu frames %llu-%llu (warm-up from %llu): ", c->first_task + k,
                       (unsigned long long)t->first, (unsigned long long)t->last, (unsigned long long)t->sim_first);
            else
                printf("  task %zu: ", c->first_task + k);
            print_argv(argv);
            printf("\n");
            plan_argv_free(argv);
        }
    }
    printf("statistics:");
    for (size_t i = 0; i < sf->nstats; i++) printf(" %s", sf->stats[i]);
    printf("\n");
}
