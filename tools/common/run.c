#include "run.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tbr/out_dir.h"
#include "tiling/tile_order.h"

int pic_run_load(pic_run *r, const char *dir, char *err, size_t err_size)
{
    memset(r, 0, sizeof *r);
    if (strlen(dir) >= sizeof r->dir - 32) {
        snprintf(err, err_size, "%s: path too long", dir);
        return -1;
    }
    if (tbr_out_dir_is_unfinished(dir)) {
        snprintf(err, err_size,
                 "%s: an unfinished tbr-sim output (named *.tmp-N: the run was interrupted or is still running)", dir);
        return -1;
    }
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    snprintf(r->stats_path, sizeof r->stats_path, "%s/stats.json", dir);
    r->stats = pj_parse_file(r->stats_path, err, err_size);
    if (!r->stats) return -1;
    if (r->stats->type != PJ_OBJ || !pj_get(r->stats, "frames") || pj_get(r->stats, "frames")->type != PJ_ARR) {
        snprintf(err, err_size, "%s: not a tbr-sim stats.json (no \"frames\" array)", r->stats_path);
        pic_run_free(r);
        return -1;
    }
    char p[4300];
    r->tiles = pj_get(r->stats, "tiles");
    snprintf(p, sizeof p, "%s/tiles.json", dir);
    if (!r->tiles && access(p, F_OK) == 0) {
        r->tiles_doc = pj_parse_file(p, err, err_size);
        if (!r->tiles_doc) {
            pic_run_free(r);
            return -1;
        }
        r->tiles = pj_get(r->tiles_doc, "tiles") ? pj_get(r->tiles_doc, "tiles") : r->tiles_doc;
    }
    r->energy = pj_get(r->stats, "energy");
    snprintf(p, sizeof p, "%s/energy.json", dir);
    if (!r->energy && access(p, F_OK) == 0) {
        r->energy_doc = pj_parse_file(p, err, err_size);
        if (!r->energy_doc) {
            pic_run_free(r);
            return -1;
        }
        r->energy = r->energy_doc;
    }
    return 0;
}

void pic_run_free(pic_run *r)
{
    pj_free(r->stats);
    pj_free(r->tiles_doc);
    pj_free(r->energy_doc);
    r->stats = r->tiles_doc = r->energy_doc = NULL;
    r->tiles = r->energy = NULL;
}

size_t pic_run_frame_count(const pic_run *r)
{
    const pj_value *f = pj_get(r->stats, "frames");
    return f ? f->n : 0;
}

int pic_run_frame_info(const pic_run *r, size_t i, long *frame, double *cycles, int *bit_exact)
{
    const pj_value *e = pj_at(pj_get(r->stats, "frames"), i);
    double d;
    if (!e) return -1;
    /* a frame number outside 0..2^53 (a damaged stats.json) is -1, which no frame has:
     * converting it to long was undefined (issue 22, found by fuzz_json) */
    if (frame) *frame = pj_number(pj_get(e, "frame"), &d) ? (long)i : d >= 0 && d <= 9007199254740992.0 ? (long)d : -1;
    if (cycles) *cycles = pj_number(pj_get(e, "cycles"), &d) ? NAN : d;
    if (bit_exact) {
        const pj_value *b = pj_get(e, "bit_exact");
        const pj_value *c = pj_get(e, "reference_checked");
        *bit_exact = (!b || b->type != PJ_BOOL || (c && c->type == PJ_BOOL && !c->num)) ? -1 : (int)b->num;
    }
    return 0;
}

long pic_run_frame_index(const pic_run *r, long frame)
{
    size_t n = pic_run_frame_count(r);
    for (size_t i = 0; i < n; i++) {
        long f;
        pic_run_frame_info(r, i, &f, NULL, NULL);
        if (f == frame) return (long)i;
    }
    return -1;
}

void pic_run_frame_path(const pic_run *r, long frame, char *buf, size_t n)
{
    snprintf(buf, n, "%s/frames/frame_%05ld.png", r->dir, frame);
}

/* stats.stats[name] -> number (counter / average: "value"; histogram: value.sum) */
static int stat_value(const pj_value *s, double *out)
{
    if (!s) return -1;
    if (!pj_number(s, out)) return 0;
    const pj_value *v = pj_get(s, "value");
    if (!pj_number(v, out)) return 0;
    if (v && v->type == PJ_OBJ && !pj_number(pj_get(v, "sum"), out)) return 0;
    return -1;
}

static const char *energy_alias(const char *name)
{
    if (!strcmp(name, "energy_total")) return "total_pj";
    if (!strcmp(name, "energy_gpu")) return "gpu_pj";
    if (!strcmp(name, "energy_dram")) return "dram_pj";
    if (!strcmp(name, "energy_gpu_dynamic")) return "gpu_dynamic_pj";
    if (!strcmp(name, "energy_gpu_static")) return "gpu_static_pj";
    if (!strcmp(name, "edp")) return "edp_js";
    return NULL;
}

int pic_run_metric(const pic_run *r, const char *name, long frame, double *out, char *err, size_t err_size)
{
    const char *ek = energy_alias(name);
    if (frame < 0) {
        if (!strcmp(name, "total_cycles") || !strcmp(name, "cycles")) {
            if (!pj_number(pj_get(r->stats, "total_cycles"), out)) return 0;
        }
        if (ek) {
            if (r->energy && !pj_number(pj_get(pj_get(r->energy, "total"), ek), out)) return 0;
            snprintf(err, err_size,
                     "%s: no energy report (expected \"energy\": {\"total\": {\"%s\": ...}} in stats.json or "
                     "%s/energy.json) for metric '%s'",
                     r->stats_path, ek, r->dir, name);
            return -1;
        }
        if (!pj_number(pj_get(r->stats, name), out)) return 0;
        if (!stat_value(pj_get(pj_get(r->stats, "stats"), "stats")
                            ? pj_get(pj_get(pj_get(r->stats, "stats"), "stats"), name)
                            : NULL,
                        out))
            return 0;
        if (!pj_number(pj_path(r->stats, name), out)) return 0;
        if (r->energy && !strncmp(name, "energy.", 7) && !pj_number(pj_path(r->energy, name + 7), out)) return 0;
    } else {
        long idx = pic_run_frame_index(r, frame);
        if (idx < 0) {
            snprintf(err, err_size, "%s: no frame %ld", r->stats_path, frame);
            return -1;
        }
        if (!strcmp(name, "end_cycle")) { /* the frame's last flush, from the run's start */
            const pj_value *fr = pj_get(r->stats, "frames");
            if (fr && fr->type == PJ_ARR && (size_t)idx < fr->n &&
                !pj_number(pj_get(&fr->items[idx], "end_cycle"), out))
                return 0;
            snprintf(err, err_size, "%s: frame %ld has no end_cycle", r->stats_path, frame);
            return -1;
        }
        if (!strcmp(name, "total_cycles") || !strcmp(name, "cycles")) {
            double c;
            pic_run_frame_info(r, (size_t)idx, NULL, &c, NULL);
            if (!isnan(c)) {
                *out = c;
                return 0;
            }
        }
        if (ek) {
            const pj_value *fr = pj_get(r->energy, "frames");
            if (fr && fr->type == PJ_ARR && (size_t)idx < fr->n && !pj_number(pj_get(&fr->items[idx], ek), out))
                return 0;
            snprintf(err, err_size, "%s: no per-frame energy for metric '%s' frame %ld", r->stats_path, name, frame);
            return -1;
        }
        /* stats.frames[i] is the i-th simulated frame, frames[i] (its "frame" is that index,
         * not the frame number: docs/timing-model.md, top) */
        const pj_value *sf = pj_get(pj_get(r->stats, "stats"), "frames");
        if (sf && sf->type == PJ_ARR && (size_t)idx < sf->n &&
            !pj_number(pj_get(pj_get(&sf->items[idx], "stats"), name), out))
            return 0;
    }
    snprintf(err, err_size, "%s: no metric '%s'%s", r->stats_path, name, frame >= 0 ? " for this frame" : "");
    return -1;
}

static const char *const TM_NAME[PIC_M_COUNT] = {"cycles",     "fragments",     "overdraw",
                                                 "re-skipped", "te-eliminated", "raster-unit"};
static const char *const TM_KEY[PIC_M_COUNT] = {"cycles",     "fragments",     "overdraw",
                                                "re_skipped", "te_eliminated", "raster_unit"};

const char *pic_tile_metric_name(pic_tile_metric m) { return TM_NAME[m]; }
const char *pic_tile_metric_key(pic_tile_metric m) { return TM_KEY[m]; }
int pic_tile_metric_categorical(pic_tile_metric m)
{
    return m == PIC_M_RE_SKIPPED || m == PIC_M_TE_ELIMINATED || m == PIC_M_RASTER_UNIT;
}

int pic_tile_metric_parse(const char *s, pic_tile_metric *m)
{
    for (int i = 0; i < PIC_M_COUNT; i++)
        if (!strcmp(s, TM_NAME[i]) || !strcmp(s, TM_KEY[i])) {
            *m = (pic_tile_metric)i;
            return 0;
        }
    return -1;
}

void pic_tile_grid_free(pic_tile_grid *g)
{
    free(g->v);
    g->v = NULL;
}

static unsigned cfg_uint(const pic_run *r, const char *key, unsigned dflt)
{
    double d;
    if (!pj_number(pj_get(pj_get(r->stats, "config"), key), &d) && d >= 1 && d < 1e6) return (unsigned)d;
    return dflt;
}

static void set_categories(pic_tile_grid *g, pic_tile_metric m)
{
    g->categorical = pic_tile_metric_categorical(m);
    if (m == PIC_M_RE_SKIPPED) {
        g->ncat = 2;
        g->cat_label[0] = "rendered";
        g->cat_label[1] = "skipped";
    }
    if (m == PIC_M_TE_ELIMINATED) {
        g->ncat = 2;
        g->cat_label[0] = "flushed";
        g->cat_label[1] = "flush eliminated";
    }
    if (m == PIC_M_RASTER_UNIT) {
        static const char *const RU[16] = {"RU0", "RU1", "RU2",  "RU3",  "RU4",  "RU5",  "RU6",  "RU7",
                                           "RU8", "RU9", "RU10", "RU11", "RU12", "RU13", "RU14", "RU15"};
        for (int i = 0; i < 16; i++) g->cat_label[i] = RU[i];
        g->ncat = 1;
        for (size_t i = 0; i < (size_t)g->cols * g->rows; i++)
            if (!isnan(g->v[i]) && g->v[i] + 1 > g->ncat) g->ncat = g->v[i] >= 15 ? 16 : (int)g->v[i] + 1;
        if (g->ncat > 16) g->ncat = 16;
    }
}

/* Static assignment (tile.ru_assignment=static): RU = schedule position mod units, in the
 * Tile Scheduler's order (timing/tiling/tile_order.c). */
static int derive_raster_unit(const pic_run *r, pic_tile_grid *g, char *err, size_t err_size)
{
    const pj_value *cfg = pj_get(r->stats, "config");
    const pj_value *pol = pj_get(cfg, "tile.ru_assignment");
    const pj_value *ord = pj_get(cfg, "tile.order");
    unsigned nru = cfg_uint(r, "tile.raster_units", 1);
    if (nru > 1 && (!pol || pol->type != PJ_STR || strcmp(pol->str, "static"))) {
        snprintf(err, err_size,
                 "%s: no per-tile data (key \"tiles\".frames[].raster_unit) and tile.ru_assignment is not static: the "
                 "raster unit of each tile cannot be derived",
                 r->stats_path);
        return -1;
    }
    int kind = 0;
    if (ord && ord->type == PJ_STR)
        kind = !strcmp(ord->str, "zorder")  ? TBR_TILE_ORDER_ZORDER
               : !strcmp(ord->str, "snake") ? TBR_TILE_ORDER_SNAKE
                                            : TBR_TILE_ORDER_SCANLINE;
    uint32_t *order = malloc((size_t)g->cols * g->rows * sizeof *order);
    if (!order) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    tile_schedule_order(kind, g->cols, g->rows, order);
    for (size_t pos = 0; pos < (size_t)g->cols * g->rows; pos++) g->v[order[pos]] = (double)(pos % nru);
    free(order);
    snprintf(g->source, sizeof g->source, "derived from the configuration (static assignment, %u RU)", nru);
    return 0;
}

int pic_run_tile_grid(const pic_run *r, long frame, pic_tile_metric m, unsigned width, unsigned height,
                      pic_tile_grid *g, char *err, size_t err_size)
{
    memset(g, 0, sizeof *g);
    const pj_value *t = r->tiles;
    g->tile_w = cfg_uint(r, "tile.width", 32);
    g->tile_h = cfg_uint(r, "tile.height", 32);
    double d;
    if (t) {
        if (!pj_number(pj_get(t, "tile_width"), &d)) g->tile_w = d >= 1 && d <= 4096 ? (unsigned)d : 0;
        if (!pj_number(pj_get(t, "tile_height"), &d)) g->tile_h = d >= 1 && d <= 4096 ? (unsigned)d : 0;
    }
    /* sizes from files are checked before they divide anything (tbr-sim's range: 4..256) */
    if (g->tile_w < 1 || g->tile_w > 4096 || g->tile_h < 1 || g->tile_h > 4096) {
        snprintf(err, err_size,
                 "%s (or tiles.json beside it): bad tile size (tile_width / tile_height or tile.width / tile.height "
                 "not in 1..4096)",
                 r->stats_path);
        return -1;
    }
    g->cols = (width + g->tile_w - 1) / g->tile_w;
    g->rows = (height + g->tile_h - 1) / g->tile_h;
    if (t) {
        if (!pj_number(pj_get(t, "cols"), &d)) g->cols = d >= 1 && d <= (1u << 24) ? (unsigned)d : 0;
        if (!pj_number(pj_get(t, "rows"), &d)) g->rows = d >= 1 && d <= (1u << 24) ? (unsigned)d : 0;
    }
    size_t n = (size_t)g->cols * g->rows;
    if (n == 0 || n > (1u << 24)) {
        snprintf(err, err_size, "%s: bad tile grid %ux%u", r->stats_path, g->cols, g->rows);
        return -1;
    }
    g->v = malloc(n * sizeof *g->v);
    if (!g->v) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) g->v[i] = NAN;

    const pj_value *fe = NULL;
    const pj_value *frames = pj_get(t, "frames");
    for (size_t i = 0; frames && frames->type == PJ_ARR && i < frames->n; i++)
        if (!pj_number(pj_get(&frames->items[i], "frame"), &d) && d == (double)frame) fe = &frames->items[i];
    const char *key = pic_tile_metric_key(m);
    const pj_value *arr = pj_get(fe, key);
    int derived_overdraw = 0;
    if (!arr && m == PIC_M_OVERDRAW) {
        arr = pj_get(fe, "fragments");
        derived_overdraw = arr != NULL;
    }
    const char *src = r->tiles_doc ? "tiles.json" : "stats.json";
    if (arr) {
        if (arr->type != PJ_ARR || arr->n != n) {
            snprintf(err, err_size,
                     "%s: tiles.frames[frame %ld].%s must be an array of %zu values (%u x %u tiles), has %zu", src,
                     frame, key, n, g->cols, g->rows, arr->type == PJ_ARR ? arr->n : (size_t)0);
            pic_tile_grid_free(g);
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            if (pj_number(&arr->items[i], &d)) continue; /* null = no value */
            if (derived_overdraw) {
                unsigned tx = (unsigned)(i % g->cols), ty = (unsigned)(i / g->cols);
                unsigned w = g->tile_w, h = g->tile_h;
                if ((tx + 1) * g->tile_w > width) w = width > tx * g->tile_w ? width - tx * g->tile_w : 0;
                if ((ty + 1) * g->tile_h > height) h = height > ty * g->tile_h ? height - ty * g->tile_h : 0;
                d = w && h ? d / ((double)w * h) : NAN;
            }
            g->v[i] = d;
        }
        snprintf(g->source, sizeof g->source, "%s: tiles.frames[%ld].%s%s", src, frame,
                 derived_overdraw ? "fragments / tile pixels" : key, "");
    } else if (m == PIC_M_RASTER_UNIT) {
        if (derive_raster_unit(r, g, err, err_size)) {
            pic_tile_grid_free(g);
            return -1;
        }
    } else {
        snprintf(err, err_size,
                 "%s: no per-tile data for metric '%s' in frame %ld (expected \"tiles\": {\"frames\": [{\"frame\": "
                 "%ld, \"%s\": [%zu values]}]} in stats.json or %s/tiles.json; tbr-sim does not write it yet)",
                 r->stats_path, pic_tile_metric_name(m), frame, frame, key, n, r->dir);
        pic_tile_grid_free(g);
        return -1;
    }
    set_categories(g, m);
    return 0;
}
