/* Parallel Tile Rendering's tile-to-unit assignment (thesis §5.1; docs/techniques.md):
 * with several Raster Units (tile.raster_units), tile.ru_assignment picks the unit of
 * each tile the Tile Fetcher dispatches (tile_assign hook):
 * - static: interleaved round robin over the schedule (the host's default: no hook);
 * - fastest: the unit with the fewest tiles assigned and not yet flushed (lowest id on
 *   ties);
 * - mixed: fastest, ties broken round robin after the last chosen unit.
 * Statistic ptr.tile_imbalance: per pass, tiles of the busiest minus the least busy unit. */
#include <stdlib.h>
#include <string.h>

#include "techniques/technique.h"

#include "core/util.h"

enum { PTR_STATIC, PTR_FASTEST, PTR_MIXED }; /* tile.ru_assignment, in its enum order */

typedef struct {
    int policy;
    uint32_t nunits;
    uint32_t *assigned; /* per Raster Unit: tiles assigned so far (all passes) */
    uint32_t last;      /* unit chosen last (mixed) */
    tbr_stat *imbalance;
} ptr_policy;

static uint32_t ptr_assign(void *self, uint32_t index, uint32_t nunits, tbr_tiles_done_fn done, const void *ctx)
{
    ptr_policy *p = self;
    (void)index;
    uint32_t best = 0, fewest = UINT32_MAX;
    for (uint32_t k = 0; k < nunits && k < p->nunits; k++) {
        uint32_t i = p->policy == PTR_MIXED ? (p->last + 1 + k) % nunits : k;
        uint32_t queued = p->assigned[i] - done(ctx, i);
        if (queued < fewest) {
            fewest = queued;
            best = i;
        }
    }
    p->last = best;
    p->assigned[best]++;
    return best;
}

static void ptr_pass_end(void *self, const uint32_t *tiles_per_unit, uint32_t nunits)
{
    ptr_policy *p = self;
    if (!nunits) return;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t i = 0; i < nunits; i++) {
        if (tiles_per_unit[i] < lo) lo = tiles_per_unit[i];
        if (tiles_per_unit[i] > hi) hi = tiles_per_unit[i];
    }
    tbr_stat_add(p->imbalance, hi - lo);
}

static void ptr_destroy(void *self)
{
    ptr_policy *p = self;
    free(p->assigned);
    free(p);
}

static void ptr_reset(void *self)
{
    ptr_policy *p = self;
    memset(p->assigned, 0, p->nunits * sizeof *p->assigned);
    p->last = 0;
}

static const tbr_technique_ops ptr_static = {.destroy = ptr_destroy, .pass_end = ptr_pass_end, .reset = ptr_reset};
static const tbr_technique_ops ptr_balanced = {
    .destroy = ptr_destroy, .pass_end = ptr_pass_end, .tile_assign = ptr_assign, .reset = ptr_reset};

/* Parameters: tile.ru_assignment, tile.raster_units. */
static void *ptr_create(const tbr_config *cfg, tbr_stats *st, const tbr_technique_ops **ops, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    ptr_policy *p = tbr_xcalloc(1, sizeof *p);
    p->policy = tbr_cfg_enum(cfg, "tile.ru_assignment");
    p->nunits = (uint32_t)tbr_cfg_uint(cfg, "tile.raster_units");
    p->assigned = tbr_xcalloc(p->nunits, sizeof *p->assigned);
    p->imbalance =
        tbr_stats_counter(st, "ptr.tile_imbalance", "per pass: tiles of the busiest minus the least busy Raster Unit");
    *ops = p->policy == PTR_STATIC ? &ptr_static : &ptr_balanced;
    return p;
}

const tbr_technique_desc tbr_technique_ptr = {.name = "ptr", .create = ptr_create};
