/* The technique host (technique.h): builds the techniques the configuration enables,
 * calls their hooks in table order, and keeps the per-tile outcomes of the pass (skipped
 * tiles, eliminated flushes) that the Tile Fetcher, the Raster Units and tiles.json read.
 * Adding a technique: a file with its tbr_technique_desc, one line in the table below
 * (docs/extending.md). */
#include "techniques/technique.h"

#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Table order is hook order: RE decides a tile's skip before TE checks its flush. */
static const tbr_technique_desc *const technique_table[] = {
    &tbr_technique_re,
    &tbr_technique_te,
    &tbr_technique_ptr,
    &tbr_technique_dfsl,
};

#define EACH(h, hook)                                                                                                  \
    for (uint32_t i_ = 0; i_ < (h)->n; i_++)                                                                           \
        if ((h)->ops[i_]->hook)
#define CALL(h, hook, ...) (h)->ops[i_]->hook((h)->self[i_], __VA_ARGS__)

int tbr_techniques_init(tbr_techniques *h, const tbr_config *cfg, tbr_stats *st, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    h->assigner = -1;
    for (size_t k = 0; k < sizeof technique_table / sizeof technique_table[0]; k++) {
        const tbr_technique_desc *d = technique_table[k];
        if (h->n == TBR_MAX_TECHNIQUES) {
            snprintf(err, errlen, "more than %d techniques", TBR_MAX_TECHNIQUES);
            return -1;
        }
        const tbr_technique_ops *ops = NULL;
        void *self = d->create(cfg, st, &ops, err, errlen);
        if (!self) return -1;
        h->self[h->n] = self;
        h->ops[h->n] = ops;
        if (ops->tile_assign) {
            if (h->assigner >= 0) {
                snprintf(err, errlen, "technique %s: a second tile-to-unit assignment", d->name);
                h->n++;
                return -1;
            }
            h->assigner = (int)h->n;
        }
        h->n++;
    }
    return 0;
}

void tbr_technique_reset_nothing(void *self) { (void)self; }

int tbr_techniques_reset(tbr_techniques *h)
{
    for (uint32_t i = 0; i < h->n; i++)
        if (!h->ops[i]->reset) return -1;
    EACH(h, reset) h->ops[i_]->reset(h->self[i_]);
    h->pass_flags = 0;
    h->ntiles = 0;
    if (h->cap) {
        memset(h->skip, 0, h->cap);
        memset(h->flush_elim, 0, h->cap);
    }
    return 0;
}

void tbr_techniques_free(tbr_techniques *h)
{
    EACH(h, destroy) h->ops[i_]->destroy(h->self[i_]);
    free(h->skip);
    free(h->flush_elim);
    tile_snap_free(&h->snap);
    memset(h, 0, sizeof *h);
}

void tbr_techniques_frame_begin(tbr_techniques *h, const tbr_frame_info *fi)
{
    EACH(h, frame_begin) CALL(h, frame_begin, fi);
}

/* Outcomes start undecided; the pass's flags are the union of the techniques' answers. */
void tbr_techniques_pass_begin(tbr_techniques *h, const tbr_pass_info *pi)
{
    if (pi->ntiles > h->cap) {
        h->skip = tbr_xrealloc(h->skip, pi->ntiles);
        h->flush_elim = tbr_xrealloc(h->flush_elim, pi->ntiles);
        h->cap = pi->ntiles;
    }
    h->ntiles = pi->ntiles;
    if (pi->ntiles) {
        memset(h->skip, TBR_TILE_UNDECIDED, pi->ntiles);
        memset(h->flush_elim, TBR_TILE_UNDECIDED, pi->ntiles);
    }
    h->pass_flags = 0;
    EACH(h, pass_begin) h->pass_flags |= CALL(h, pass_begin, pi);
}

void tbr_techniques_render_tile(tbr_techniques *h, sim_func *fn, unsigned tx, unsigned ty, const uint32_t *prims,
                                uint32_t nprims, sim_tile_result *res)
{
    uint32_t tile = ty * sim_func_tiles_x(fn) + tx;
    tbr_tile_render tr = {.fn = fn,
                          .tx = tx,
                          .ty = ty,
                          .tile = tile,
                          .prims = prims,
                          .nprims = nprims,
                          .skip = &h->skip[tile],
                          .flush_elim = &h->flush_elim[tile]};
    EACH(h, tile_render_begin) CALL(h, tile_render_begin, &tr);
    bool snap = h->pass_flags & TBR_TECH_SNAPSHOT;
    if (snap) tile_snap_take(&h->snap, fn, tx, ty);
    sim_func_render_tile(fn, tx, ty, res);
    if (snap) {
        tr.snap = &h->snap;
        tr.same_packed = tile_snap_colors_equal(&h->snap, fn, tx, ty, true);
        tr.same_all = tr.same_packed && tile_snap_colors_equal(&h->snap, fn, tx, ty, false);
    }
    EACH(h, tile_render_end) CALL(h, tile_render_end, &tr);
}

void tbr_techniques_pass_render_end(tbr_techniques *h)
{
    EACH(h, pass_render_end) h->ops[i_]->pass_render_end(h->self[i_]);
}

void tbr_techniques_pass_end(tbr_techniques *h, const uint32_t *tiles_per_unit, uint32_t nunits)
{
    EACH(h, pass_end) CALL(h, pass_end, tiles_per_unit, nunits);
}

int tbr_techniques_energy(tbr_techniques *h, tbr_energy *en, const tbr_config *cfg, char *err, size_t errlen)
{
    EACH(h, energy) if (CALL(h, energy, en, cfg, err, errlen)) return -1;
    return 0;
}

void tbr_techniques_draw_issued_hooks(tbr_techniques *h, uint32_t draw)
{
    EACH(h, draw_issued) CALL(h, draw_issued, draw);
}

/* Back-pressure hooks: every technique must agree (each counts its own stall). */
bool tbr_techniques_bin_can_accept_hooks(tbr_techniques *h)
{
    EACH(h, bin_can_accept) if (!h->ops[i_]->bin_can_accept(h->self[i_])) return false;
    return true;
}

void tbr_techniques_bin_accept_hooks(tbr_techniques *h, uint32_t prim, uint32_t ntiles)
{
    EACH(h, bin_accept) CALL(h, bin_accept, prim, ntiles);
}

void tbr_techniques_bin_dropped_hooks(tbr_techniques *h, uint32_t prim)
{
    EACH(h, bin_dropped) CALL(h, bin_dropped, prim);
}

bool tbr_techniques_bin_tile_can_push_hooks(tbr_techniques *h)
{
    EACH(h, bin_tile_can_push) if (!h->ops[i_]->bin_tile_can_push(h->self[i_])) return false;
    return true;
}

void tbr_techniques_bin_tile_push_hooks(tbr_techniques *h, uint32_t tile)
{
    EACH(h, bin_tile_push) CALL(h, bin_tile_push, tile);
}

void tbr_techniques_geometry_tick_hooks(tbr_techniques *h)
{
    EACH(h, geometry_tick) h->ops[i_]->geometry_tick(h->self[i_]);
}

bool tbr_techniques_geometry_idle_hooks(const tbr_techniques *h)
{
    EACH(h, geometry_idle) if (!h->ops[i_]->geometry_idle(h->self[i_])) return false;
    return true;
}

bool tbr_techniques_geometry_busy_hooks(const tbr_techniques *h)
{
    EACH(h, geometry_busy) if (h->ops[i_]->geometry_busy(h->self[i_])) return true;
    return false;
}

uint64_t tbr_techniques_geometry_progress_hooks(const tbr_techniques *h)
{
    uint64_t p = 0;
    EACH(h, geometry_progress) p += h->ops[i_]->geometry_progress(h->self[i_]);
    return p;
}

/* Cycles before the Tile Fetcher may start a tile (the longest any technique needs). */
uint32_t tbr_techniques_dispatch_cycles(tbr_techniques *h)
{
    uint32_t c = 0;
    EACH(h, tile_dispatch_cycles)
    {
        uint32_t x = h->ops[i_]->tile_dispatch_cycles(h->self[i_]);
        if (x > c) c = x;
    }
    return c;
}

bool tbr_techniques_flush(tbr_techniques *h, uint32_t tile, uint64_t bytes)
{
    if (tile >= h->ntiles || h->flush_elim[tile] != 1) return false;
    EACH(h, flush_dropped) CALL(h, flush_dropped, tile, bytes);
    return true;
}

/* Without an assigning technique, tiles go to the Raster Units interleaved in schedule
 * order (thesis §5.1's static assignment). */
uint32_t tbr_techniques_assign(tbr_techniques *h, uint32_t index, uint32_t nunits, tbr_tiles_done_fn done,
                               const void *ctx)
{
    if (nunits <= 1) return 0;
    if (h->assigner < 0) return index % nunits;
    return h->ops[h->assigner]->tile_assign(h->self[h->assigner], index, nunits, done, ctx);
}

void tbr_techniques_order(tbr_techniques *h, uint32_t *order, uint32_t tiles_x, uint32_t tiles_y, uint32_t nunits)
{
    /* one Raster Unit: nothing to assign (as tbr_techniques_assign; a unit test's host is empty) */
    if (nunits > 1 && h->assigner >= 0 && (uint32_t)h->assigner < h->n && h->ops[h->assigner]->tile_order)
        h->ops[h->assigner]->tile_order(h->self[h->assigner], order, tiles_x, tiles_y, nunits);
}
