/* collect: one CSV row per cell and a summary table (docs/sweeps.md "Results"). A sharded
 * cell's statistic is the sum over its shards of the per-frame values of the frames each
 * shard counts (its warm-up frames are simulated, not counted). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts.h"
#include "run.h"
#include "sweep.h"

/* Integers exactly; other values in the shortest form that reads back the same. */
void sw_format_number(double v, char *out, size_t n)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(out, n, "%.0f", v);
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, n, "%.*g", prec, v);
        if (strtod(out, NULL) == v) return;
    }
}

/* A shard's cycles: from the last flush of the frame before its first counted one (0 when
 * it simulates no warm-up frame) to its last counted frame's last flush. Frames overlap
 * (overlap.across_frames), so their own cycles add up to more than the run's total; these
 * spans add up to it exactly. -1 for a run whose stats.json has no end_cycle (older). */
static int shard_cycles(const pic_run *r, const sweep_task *t, double *out, char *err, size_t n)
{
    double end, base = 0;
    if (pic_run_metric(r, "end_cycle", (long)t->last, &end, err, n)) return -1;
    if (t->first > t->sim_first && pic_run_metric(r, "end_cycle", (long)t->first - 1, &base, err, n)) return -1;
    *out = end - base;
    return 0;
}

/* A task's statistic: the run's total, or the sum over the frames the shard counts. */
static int task_metric(const pic_run *r, const sweep_task *t, const char *name, double *out, char *err, size_t n)
{
    if (!t->sharded) return pic_run_metric(r, name, -1, out, err, n);
    if ((!strcmp(name, "total_cycles") || !strcmp(name, "cycles")) && !shard_cycles(r, t, out, err, n)) return 0;
    *out = 0;
    for (uint64_t f = t->first; f <= t->last; f++) {
        double v;
        if (pic_run_metric(r, name, (long)f, &v, err, n)) return -1;
        *out += v;
    }
    return 0;
}

static void count_frames(const pic_run *r, const sweep_task *t, long *checked, long *exact)
{
    for (size_t i = 0; i < pic_run_frame_count(r); i++) {
        long f;
        int be;
        pic_run_frame_info(r, i, &f, NULL, &be);
        if (t->sharded && ((uint64_t)f < t->first || (uint64_t)f > t->last)) continue;
        *checked += be >= 0;
        *exact += be == 1;
    }
}

/* Allocation failures end the program (nothing is half-written: outputs go through temp names). */
static void *xalloc(void *p)
{
    if (!p) abort();
    return p;
}

static void push_key(char ***arr, size_t *n, char *key)
{
    *arr = xalloc(realloc(*arr, (*n + 1) * sizeof **arr));
    (*arr)[(*n)++] = xalloc(key);
}

/* The configuration keys of the CSV: every key a 'set', 'vary' or preset file sets. */
static size_t config_keys(const sweep_plan *pl, char ***keys)
{
    size_t n = 0;
    *keys = NULL;
    for (size_t c = 0; c < pl->sf.nconfigs; c++) {
        const sweep_config *cf = &pl->sf.configs[c];
        char **cand = NULL;
        size_t nc = 0;
        for (size_t i = 0; i < cf->npresets; i++) {
            char *p = sweep_resolve(&pl->sf, cf->presets[i]);
            FILE *f = fopen(p, "r");
            char line[1024];
            while (f && fgets(line, sizeof line, f)) {
                char k[256];
                if (sscanf(line, " %255[A-Za-z0-9_.] =", k) == 1 && line[strspn(line, " \t")] != '#') {
                    push_key(&cand, &nc, strdup(k));
                }
            }
            if (f) fclose(f);
            free(p);
        }
        for (size_t i = 0; i < cf->nsets; i++) {
            push_key(&cand, &nc, strndup(cf->sets[i], (size_t)(strchr(cf->sets[i], '=') - cf->sets[i])));
        }
        for (size_t i = 0; i < nc; i++) {
            size_t k = 0;
            while (k < n && strcmp((*keys)[k], cand[i])) k++;
            if (k < n) {
                free(cand[i]);
                continue;
            }
            push_key(keys, &n, cand[i]);
        }
        free(cand);
    }
    return n;
}

static void csv_field(FILE *o, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, o);
        return;
    }
    fputc('"', o);
    for (; *s; s++) fprintf(o, *s == '"' ? "\"\"" : "%c", *s);
    fputc('"', o);
}

static void config_value(const pic_run *r, const char *key, char *out, size_t n)
{
    const pj_value *v = pj_get(pj_get(r->stats, "config"), key);
    out[0] = 0;
    if (!v) return;
    if (v->type == PJ_BOOL) snprintf(out, n, "%s", v->num ? "true" : "false");
    if (v->type == PJ_NUM) sw_format_number(v->num, out, n);
    if (v->type == PJ_STR) snprintf(out, n, "%s", v->str);
}

/* Loads a done cell's values: stats[nstats], frames, config key values. 0 or -1 (err). */
static int cell_values(const sweep_plan *pl, const sweep_cell *c, char **keys, size_t nkeys, sw_cell_result *res,
                       char *err, size_t n)
{
    for (size_t k = 0; k < c->ntasks; k++) {
        const sweep_task *t = &pl->tasks[c->first_task + k];
        pic_run r;
        if (pic_run_load(&r, t->dir, err, n)) return -1;
        for (size_t s = 0; s < pl->sf.nstats; s++) {
            double v;
            if (task_metric(&r, t, pl->sf.stats[s], &v, err, n)) {
                pic_run_free(&r);
                return -1;
            }
            res->stat[s] += v;
        }
        count_frames(&r, t, &res->frames_checked, &res->frames_exact);
        for (size_t i = 0; k == 0 && i < nkeys; i++) config_value(&r, keys[i], res->key_value[i], 64);
        pic_run_free(&r);
    }
    return 0;
}

static void write_row(FILE *o, const sweep_plan *pl, const sweep_cell *c, size_t nkeys, const sw_cell_result *res)
{
    char num[64];
    fprintf(o, "%s,%s", pl->sf.workloads[c->w].name, pl->sf.configs[c->c].name);
    for (size_t i = 0; i < nkeys; i++) {
        fputc(',', o);
        csv_field(o, res->key_value[i]);
    }
    for (size_t s = 0; s < pl->sf.nstats; s++) {
        fputc(',', o);
        if (res->state == ST_DONE) {
            sw_format_number(res->stat[s], num, sizeof num);
            fputs(num, o);
        }
    }
    if (res->state == ST_DONE)
        fprintf(o, ",%ld,%ld,%zu,%s\n", res->frames_checked, res->frames_exact, c->ntasks,
                sweep_state_name(res->state));
    else
        fprintf(o, ",,,%zu,%s\n", c->ntasks, sweep_state_name(res->state));
}

static void write_header(FILE *o, const sweep_plan *pl, char **keys, size_t nkeys)
{
    fprintf(o, "workload,config");
    for (size_t i = 0; i < nkeys; i++) fprintf(o, ",%s", keys[i]);
    for (size_t s = 0; s < pl->sf.nstats; s++) fprintf(o, ",%s", pl->sf.stats[s]);
    fprintf(o, ",frames_checked,frames_bit_exact,tasks,status\n");
}

static int write_csv(const sweep_plan *pl, const char *path, char **keys, size_t nkeys, const sw_cell_result *res)
{
    char tmp[SW_PATH + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *o = fopen(tmp, "w");
    if (!o) {
        perror(tmp);
        return -1;
    }
    write_header(o, pl, keys, nkeys);
    for (size_t i = 0; i < pl->ncells; i++) write_row(o, pl, &pl->cells[i], nkeys, &res[i]);
    if (fclose(o) || rename(tmp, path)) {
        fprintf(stderr, "tbr-sweep: cannot write %s\n", path);
        remove(tmp);
        return -1;
    }
    return 0;
}

int collect(const sweep_plan *pl, const char *csv_path, const char *charts_dir)
{
    char **keys, err[PIC_ERR], path[SW_PATH + 32];
    size_t nkeys = config_keys(pl, &keys);
    sw_cell_result *res = xalloc(calloc(pl->ncells, sizeof *res));
    int status = 0, notdone = 0;
    for (size_t i = 0; i < pl->ncells && status == 0; i++) {
        const sweep_cell *c = &pl->cells[i];
        res[i].stat = xalloc(calloc(pl->sf.nstats, sizeof *res[i].stat));
        res[i].key_value = xalloc(calloc(nkeys + 1, sizeof *res[i].key_value));
        for (size_t k = 0; k < nkeys; k++) res[i].key_value[k] = xalloc(calloc(64, 1));
        res[i].state = plan_cell_state(pl, c);
        notdone += res[i].state != ST_DONE;
        if (res[i].state == ST_DONE && cell_values(pl, c, keys, nkeys, &res[i], err, sizeof err)) {
            fprintf(stderr, "tbr-sweep: %s\n", err);
            status = 2;
        }
    }
    if (!csv_path) snprintf(path, sizeof path, "%s/results.csv", pl->out);
    if (status == 0 && write_csv(pl, csv_path ? csv_path : path, keys, nkeys, res)) status = 2;
    if (status == 0) sw_summary_table(pl, res, stdout);
    if (status == 0 && charts_dir && sw_charts(pl, res, keys, nkeys, charts_dir)) status = 2;
    if (status == 0 && notdone) {
        fprintf(stderr, "tbr-sweep: %d of %zu cells not done (see 'tbr-sweep status')\n", notdone, pl->ncells);
        status = 1;
    }
    for (size_t i = 0; i < pl->ncells; i++) {
        for (size_t k = 0; res[i].key_value && k < nkeys; k++) free(res[i].key_value[k]);
        free(res[i].key_value);
        free(res[i].stat);
    }
    for (size_t k = 0; k < nkeys; k++) free(keys[k]);
    free(keys);
    free(res);
    return status;
}
