/* Work-tile granularity and DFSL, dynamic fragment-shading load balancing (Emerald,
 * seeds/002 sec. 6; docs/techniques.md "DFSL"), at the tile-order and tile-to-unit
 * assignment hooks of the Tile Fetcher.
 *
 * tile.work_tile = N > 0: every frame uses N x N work tiles (static: MLB is N = 1, MLC
 * N = 10, SOPT the best N of a sweep). dfsl.enabled: the controller (dfsl.h) picks N per
 * frame from the frame times it measured. The frame time is what the paper measures, the
 * fragment-shading time: the cycles of the frame's raster phases (cycles.raster). Like a
 * driver reading performance counters, the technique reads the counters it reports per
 * work-tile size from the statistics registry (Raster Units' busy cycles, texture-cache
 * misses, tile-buffer line reads); they are looked up by name at the first pass. */
#include "techniques/dfsl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "techniques/technique.h"

#define DFSL_MAX_N 10 /* per-size statistics: Emerald's sizes 1..10 (dfsl.max_work_tile's range) */

/* ---- the schedule ---- */

/* Tiles of the base schedule grouped by work tile, the work tiles in order of first
 * appearance (so tile.order orders both), then dealt to the units round robin by work
 * tile and interleaved tile by tile. */
void work_tile_schedule(uint32_t *order, uint32_t tiles_x, uint32_t tiles_y, uint32_t n, uint32_t units,
                        uint32_t *unit_at)
{
    const uint32_t nt = tiles_x * tiles_y, wx = (tiles_x + n - 1) / n, nw = wx * ((tiles_y + n - 1) / n);
    uint32_t *rank = tbr_xcalloc(nw, sizeof *rank), *start = tbr_xcalloc(nw + 1, sizeof *start);
    uint32_t *sorted = tbr_xcalloc(nt, sizeof *sorted), *cur = tbr_xcalloc(2 * units, sizeof *cur);
    uint32_t *wt_of = tbr_xcalloc(nt, sizeof *wt_of), seen = 0;
    for (uint32_t w = 0; w < nw; w++) rank[w] = UINT32_MAX;
    for (uint32_t k = 0; k < nt; k++) {
        uint32_t t = order[k], w = (t / tiles_x) / n * wx + (t % tiles_x) / n;
        if (rank[w] == UINT32_MAX) rank[w] = seen++;
        wt_of[k] = rank[w];
        start[rank[w] + 1]++;
    }
    for (uint32_t r = 0; r < nw; r++) start[r + 1] += start[r];
    for (uint32_t k = 0; k < nt; k++) sorted[start[wt_of[k]]++] = order[k]; /* stable: base order inside */
    for (uint32_t r = nw; r > 0; r--) start[r] = start[r - 1];
    start[0] = 0;
    /* cur[2u] = unit u's work-tile rank, cur[2u + 1] = its next tile inside it */
    for (uint32_t u = 0; u < units; u++) cur[2 * u] = u, cur[2 * u + 1] = 0;
    for (uint32_t k = 0; k < nt;)
        for (uint32_t u = 0; u < units && k < nt; u++) {
            uint32_t *r = &cur[2 * u], *i = &cur[2 * u + 1];
            if (*r >= nw) continue;
            order[k] = sorted[start[*r] + *i];
            unit_at[k++] = u;
            if (start[*r] + ++*i == start[*r + 1]) *r += units, *i = 0;
        }
    free(rank), free(start), free(sorted), free(cur), free(wt_of);
}

/* ---- the controller (Algorithm 1) ---- */

void dfsl_ctl_init(dfsl_ctl *c, uint32_t max_n, uint32_t run_frames)
{
    memset(c, 0, sizeof *c);
    c->max_n = max_n ? max_n : 1;
    c->run_frames = run_frames ? run_frames : 1;
    c->evaluating = true;
    c->best_n = 1;
}

uint32_t dfsl_ctl_frame_begin(dfsl_ctl *c)
{
    c->n = c->evaluating ? c->pos + 1 : c->best_n;
    return c->n;
}

bool dfsl_ctl_frame_end(dfsl_ctl *c, uint64_t time)
{
    if (!c->evaluating) {
        if (++c->pos == c->run_frames) c->evaluating = true, c->pos = 0;
        return false;
    }
    if (c->pos == 0 || time < c->best_time) c->best_n = c->n, c->best_time = time;
    if (++c->pos == c->max_n) c->evaluating = false, c->pos = 0;
    return true;
}

/* ---- the technique ---- */

typedef struct {
    tbr_stat *frames, *raster_cycles, *texture_misses, *tile_reads;
} per_size_stats;

typedef struct {
    tbr_stats *st;
    bool dynamic;
    uint32_t static_n, nunits, n;
    dfsl_ctl ctl;
    bool frame_open;
    uint64_t frame_time;
    uint32_t *unit_at, cap;
    /* counters read per pass (looked up at the first pass) and their values at its start */
    bool looked_up;
    tbr_stat *raster, **active, **tex_miss, **reads;
    uint32_t ntex, nreads;
    uint64_t raster0, tex0, reads0, *active0;
    tbr_stat *work_tile, *eval_frames, *run_phase_frames, *busy_max, *busy_mean;
    per_size_stats per[DFSL_MAX_N];
} dfsl_tech;

static uint64_t sum_of(tbr_stat *const *s, uint32_t n)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < n; i++) v += tbr_stat_value(s[i]);
    return v;
}

/* The counters the technique reports, found by name: every texture cache's misses and
 * every Raster Unit's depth and color port reads (tile-buffer loads). */
static void look_up(dfsl_tech *d)
{
    char name[64];
    d->looked_up = true;
    d->raster = tbr_stats_find(d->st, "cycles.raster");
    d->active = tbr_xcalloc(d->nunits, sizeof *d->active);
    d->active0 = tbr_xcalloc(d->nunits, sizeof *d->active0);
    d->reads = tbr_xcalloc(2 * d->nunits, sizeof *d->reads);
    for (uint32_t u = 0; u < d->nunits; u++) {
        snprintf(name, sizeof name, "ru%u.active_cycles", u);
        d->active[u] = tbr_stats_find(d->st, name);
        snprintf(name, sizeof name, "mem.ru%u.depth.reads", u);
        d->reads[d->nreads++] = tbr_stats_find(d->st, name);
        snprintf(name, sizeof name, "mem.ru%u.color.reads", u);
        d->reads[d->nreads++] = tbr_stats_find(d->st, name);
    }
    for (;; d->ntex++) {
        snprintf(name, sizeof name, "texture_cache.%u.misses", d->ntex);
        if (!tbr_stats_find(d->st, name)) break;
    }
    d->tex_miss = tbr_xcalloc(d->ntex ? d->ntex : 1, sizeof *d->tex_miss);
    for (uint32_t i = 0; i < d->ntex; i++) {
        snprintf(name, sizeof name, "texture_cache.%u.misses", i);
        d->tex_miss[i] = tbr_stats_find(d->st, name);
    }
}

static void dfsl_frame_begin(void *self, const tbr_frame_info *fi)
{
    dfsl_tech *d = self;
    (void)fi;
    if (d->dynamic) {
        if (d->frame_open) dfsl_ctl_frame_end(&d->ctl, d->frame_time);
        bool eval = d->ctl.evaluating;
        d->n = dfsl_ctl_frame_begin(&d->ctl);
        tbr_stat_inc(eval ? d->eval_frames : d->run_phase_frames);
    }
    d->frame_open = true;
    d->frame_time = 0;
    tbr_stat_add(d->work_tile, d->n);
    if (d->n <= DFSL_MAX_N) tbr_stat_inc(d->per[d->n - 1].frames);
}

static unsigned dfsl_pass_begin(void *self, const tbr_pass_info *pi)
{
    dfsl_tech *d = self;
    (void)pi;
    if (!d->looked_up) look_up(d);
    d->raster0 = tbr_stat_value(d->raster);
    d->tex0 = sum_of(d->tex_miss, d->ntex);
    d->reads0 = sum_of(d->reads, d->nreads);
    for (uint32_t u = 0; u < d->nunits; u++) d->active0[u] = tbr_stat_value(d->active[u]);
    return 0;
}

static void dfsl_tile_order(void *self, uint32_t *order, uint32_t tiles_x, uint32_t tiles_y, uint32_t nunits)
{
    dfsl_tech *d = self;
    uint32_t nt = tiles_x * tiles_y;
    if (nt > d->cap) {
        d->unit_at = tbr_xrealloc(d->unit_at, (size_t)nt * sizeof *d->unit_at);
        d->cap = nt;
    }
    work_tile_schedule(order, tiles_x, tiles_y, d->n, nunits, d->unit_at);
}

static uint32_t dfsl_assign(void *self, uint32_t index, uint32_t nunits, tbr_tiles_done_fn done, const void *ctx)
{
    const dfsl_tech *d = self;
    (void)done;
    (void)ctx;
    return index < d->cap ? d->unit_at[index] % nunits : index % nunits;
}

/* Per pass: its raster cycles count toward the frame time; the busiest Raster Unit's and
 * the mean unit's busy cycles (balance = max / mean); misses and loads of this size. */
static void dfsl_pass_end(void *self, const uint32_t *tiles_per_unit, uint32_t nunits)
{
    dfsl_tech *d = self;
    (void)tiles_per_unit;
    (void)nunits;
    uint64_t cycles = tbr_stat_value(d->raster) - d->raster0, hi = 0, sum = 0;
    d->frame_time += cycles;
    for (uint32_t u = 0; u < d->nunits; u++) {
        uint64_t busy = tbr_stat_value(d->active[u]) - d->active0[u];
        if (busy > hi) hi = busy;
        sum += busy;
    }
    tbr_stat_add(d->busy_max, hi);
    tbr_stat_add(d->busy_mean, (sum + d->nunits / 2) / d->nunits);
    if (d->n > DFSL_MAX_N) return;
    const per_size_stats *p = &d->per[d->n - 1];
    tbr_stat_add(p->raster_cycles, cycles);
    tbr_stat_add(p->texture_misses, sum_of(d->tex_miss, d->ntex) - d->tex0);
    tbr_stat_add(p->tile_reads, sum_of(d->reads, d->nreads) - d->reads0);
}

static void dfsl_destroy(void *self)
{
    dfsl_tech *d = self;
    free(d->unit_at), free(d->active), free(d->active0), free(d->reads), free(d->tex_miss);
    free(d);
}

static const tbr_technique_ops dfsl_on = {.destroy = dfsl_destroy,
                                          .frame_begin = dfsl_frame_begin,
                                          .pass_begin = dfsl_pass_begin,
                                          .tile_order = dfsl_tile_order,
                                          .tile_assign = dfsl_assign,
                                          .pass_end = dfsl_pass_end};
/* off, no hook but destroy is ever called: nothing changes to reset */
static const tbr_technique_ops dfsl_off = {.destroy = dfsl_destroy, .reset = tbr_technique_reset_nothing};

static void register_stats(dfsl_tech *d, tbr_stats *st)
{
    d->work_tile = tbr_stats_counter(st, "dfsl.work_tile",
                                     "work-tile size N of each frame (per frame: the frame's N; total: their sum)");
    d->eval_frames = tbr_stats_counter(st, "dfsl.evaluation_frames", "frames of DFSL's evaluation phases");
    d->run_phase_frames = tbr_stats_counter(st, "dfsl.run_phase_frames", "frames of DFSL's run phases");
    d->busy_max = tbr_stats_counter(st, "dfsl.ru_busy_max_cycles",
                                    "per pass, the busiest Raster Unit's cycles with a tile (balance = max / mean)");
    d->busy_mean = tbr_stats_counter(st, "dfsl.ru_busy_mean_cycles",
                                     "per pass, the Raster Units' mean cycles with a tile (rounded)");
    for (uint32_t n = 1; n <= DFSL_MAX_N; n++) {
        per_size_stats *p = &d->per[n - 1];
        p->frames = tbr_stats_counterf(st, "frames rendered with this work-tile size", "dfsl.wt%u.frames", n);
        p->raster_cycles = tbr_stats_counterf(st, "raster-phase cycles of the frames with this work-tile size",
                                              "dfsl.wt%u.raster_cycles", n);
        p->texture_misses = tbr_stats_counterf(st, "texture-cache (L1) misses of the frames with this work-tile size",
                                               "dfsl.wt%u.texture_misses", n);
        p->tile_reads = tbr_stats_counterf(
            st, "depth/color tile-buffer line reads from memory of the frames with this work-tile size",
            "dfsl.wt%u.tile_buffer_reads", n);
    }
}

/* Parameters: tile.work_tile, dfsl.enabled, dfsl.max_work_tile, dfsl.run_frames (read
 * with tile.raster_units and tile.ru_assignment, which must leave the assignment to it). */
static void *dfsl_create(const tbr_config *cfg, tbr_stats *st, const tbr_technique_ops **ops, char *err, size_t errlen)
{
    dfsl_tech *d = tbr_xcalloc(1, sizeof *d);
    d->st = st;
    d->dynamic = tbr_cfg_bool(cfg, "dfsl.enabled");
    d->static_n = (uint32_t)tbr_cfg_uint(cfg, "tile.work_tile");
    d->nunits = (uint32_t)tbr_cfg_uint(cfg, "tile.raster_units");
    dfsl_ctl_init(&d->ctl, (uint32_t)tbr_cfg_uint(cfg, "dfsl.max_work_tile"),
                  (uint32_t)tbr_cfg_uint(cfg, "dfsl.run_frames"));
    d->n = d->static_n;
    register_stats(d, st);
    *ops = &dfsl_off;
    if (!d->dynamic && !d->static_n) return d;
    const char *what = d->dynamic ? "dfsl.enabled" : "tile.work_tile";
    if (d->dynamic && d->static_n)
        tbr_set_err(err, errlen, "dfsl.enabled chooses the work-tile size itself: tile.work_tile must be 0");
    else if (d->nunits < 2)
        tbr_set_err(err, errlen, "%s distributes tiles over Raster Units: tile.raster_units must be 2 or more", what);
    else if (tbr_cfg_enum(cfg, "tile.ru_assignment") != 0)
        tbr_set_err(err, errlen, "%s assigns the tiles itself: tile.ru_assignment must be static", what);
    else {
        *ops = &dfsl_on;
        return d;
    }
    dfsl_destroy(d);
    return NULL;
}

const tbr_technique_desc tbr_technique_dfsl = {.name = "dfsl", .create = dfsl_create};
