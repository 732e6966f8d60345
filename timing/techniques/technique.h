/* Hook points at which research techniques plug into the pipeline (docs/extending.md).
 *
 * A technique is a file of techniques/ with a tbr_technique_desc (name, constructor)
 * listed in techniques.c's table. Its constructor reads its own parameters, registers its
 * own statistics and returns a tbr_technique_ops whose non-NULL members are the hooks it
 * uses in this configuration. Every technique is constructed, enabled or not: a disabled
 * one registers its statistics (they stay 0) and no hooks, so stats.json has the same keys
 * under every configuration and a study compares them column by column. The units call
 * the host (tbr_techniques)
 * at each hook point; the host calls the enabled techniques in table order. The pass
 * loop (gpu.c) holds no technique state and no technique branches.
 *
 * Hook points (the unit that calls each):
 * - frame_begin / pass_begin / pass_end                  wiring (gpu.c), per frame / pass
 * - draw_issued                                          Command Processor (geometry/)
 * - bin_can_accept, bin_accept, bin_dropped,
 *   bin_tile_can_push, bin_tile_push                     Polygon List Builder (tiling/plb.c)
 * - geometry_tick, geometry_idle, geometry_busy,
 *   geometry_progress                                    a unit of the technique that runs
 *                                                        beside the PLB in the geometry phase
 * - tile_render_begin / tile_render_end                  functional rendering of a tile
 * - tile_dispatch_cycles, (tile skip: the host's outcome) Tile Fetcher, before a tile BEGIN
 * - tile_order, tile_assign                              Tile Fetcher: schedule, Raster Unit of a tile
 * - flush_dropped (after the host's flush outcome)       Raster Unit's color flush
 * - energy                                               energy model set-up */
#ifndef TBR_TECHNIQUE_H
#define TBR_TECHNIQUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "core/stats.h"
#include "energy/energy.h"
#include "frontend/sim_trace.h"
#include "render/sim_func.h"
#include "techniques/signature_unit.h"
#include "techniques/transaction_elim.h"

/* frame_begin: a frame's first pass is about to run. */
typedef struct {
    const sim_frame *frame;
    const su_frame_data *signatures; /* PRIM / DRAW payload CRCs (re.enabled), else NULL */
} tbr_frame_info;

/* pass_begin: the pass's tiles are known (after the functional back end set it up). */
typedef struct {
    const sim_frame *frame;
    size_t pass;
    const sim_func *fn;
    uint32_t tiles_x, tiles_y, ntiles;
} tbr_pass_info;

/* Per-tile outcome of a hook: not decided by any technique this pass, no, yes. */
#define TBR_TILE_UNDECIDED (-1)

/* tile_render_begin / _end: functional rendering of one tile (values do not depend on
 * timing, so techniques that compare colors decide here, before the raster phase). */
typedef struct {
    sim_func *fn;
    unsigned tx, ty;
    uint32_t tile;
    const uint32_t *prims; /* the tile's Polygon List Builder list */
    uint32_t nprims;
    const tile_snap *snap; /* the tile before rendering, when a technique asked for it */
    bool same_packed;      /* after rendering: packed colors equal the snapshot's */
    bool same_all;         /* ... and the float contents too */
    int8_t *skip;          /* the tile's outcomes (TBR_TILE_UNDECIDED, 0, 1), settable */
    int8_t *flush_elim;
} tbr_tile_render;

/* Raster Units' progress for tile_assign: tiles each has finished (flushed). */
typedef uint32_t (*tbr_tiles_done_fn)(const void *ctx, uint32_t unit);

/* pass_begin's answer: what the technique needs from the host this pass. */
#define TBR_TECH_SNAPSHOT 1u /* snapshot each tile before rendering it */
#define TBR_TECH_BINNING  2u /* binning / geometry-phase hooks active (PLB probes every cycle) */
#define TBR_TECH_DISPATCH 4u /* tile_dispatch_cycles active (Tile Fetcher probes every cycle) */

typedef struct {
    void (*destroy)(void *self);
    void (*frame_begin)(void *self, const tbr_frame_info *fi);
    unsigned (*pass_begin)(void *self, const tbr_pass_info *pi);
    void (*pass_render_end)(void *self); /* after the pass's last tile_render_end */
    /* after the raster phase: tiles each Raster Unit rendered in the pass */
    void (*pass_end)(void *self, const uint32_t *tiles_per_unit, uint32_t nunits);
    void (*draw_issued)(void *self, uint32_t draw);
    bool (*bin_can_accept)(void *self);
    void (*bin_accept)(void *self, uint32_t prim, uint32_t ntiles);
    void (*bin_dropped)(void *self, uint32_t prim);
    bool (*bin_tile_can_push)(void *self);
    void (*bin_tile_push)(void *self, uint32_t tile);
    void (*geometry_tick)(void *self);
    bool (*geometry_idle)(const void *self);
    bool (*geometry_busy)(const void *self); /* works this cycle (idle-cycle skipping) */
    uint64_t (*geometry_progress)(const void *self);
    void (*tile_render_begin)(void *self, tbr_tile_render *tr);
    void (*tile_render_end)(void *self, tbr_tile_render *tr);
    uint32_t (*tile_dispatch_cycles)(void *self);
    /* a tile's color flush of `bytes` was dropped (its flush outcome is 1) */
    void (*flush_dropped)(void *self, uint32_t tile, uint64_t bytes);
    /* the pass's tile schedule (order: row-major tile indices in tile.order), which the
     * technique providing tile_assign may rewrite (work tiles, techniques/dfsl.c) */
    void (*tile_order)(void *self, uint32_t *order, uint32_t tiles_x, uint32_t tiles_y, uint32_t nunits);
    /* Raster Unit for the schedule's index-th tile; one technique may provide it */
    uint32_t (*tile_assign)(void *self, uint32_t index, uint32_t nunits, tbr_tiles_done_fn done, const void *ctx);
    int (*energy)(void *self, tbr_energy *en, const tbr_config *cfg, char *err, size_t errlen);
    /* back to the state create left, statistics aside (gpu_reset); NULL: the technique
     * has no reset, and a GPU with it is rebuilt instead */
    void (*reset)(void *self);
} tbr_technique_ops;

typedef struct {
    const char *name;
    /* NULL with err on failure; *ops = the hooks of this configuration */
    void *(*create)(const tbr_config *cfg, tbr_stats *st, const tbr_technique_ops **ops, char *err, size_t errlen);
} tbr_technique_desc;

/* ---- the host: the enabled techniques and the per-tile outcomes of the pass ---- */
#define TBR_MAX_TECHNIQUES 8
typedef struct {
    uint32_t n;
    void *self[TBR_MAX_TECHNIQUES];
    const tbr_technique_ops *ops[TBR_MAX_TECHNIQUES];
    int assigner; /* technique providing tile_assign, -1: static interleaving */
    unsigned pass_flags;
    int8_t *skip, *flush_elim; /* per tile of the pass */
    uint32_t ntiles, cap;
    tile_snap snap;
} tbr_techniques;

int tbr_techniques_init(tbr_techniques *h, const tbr_config *cfg, tbr_stats *st, char *err, size_t errlen);
/* Every technique back to the state its create left (gpu_reset); -1 if one has no reset. */
int tbr_techniques_reset(tbr_techniques *h);
/* The reset of a technique whose ops call no hook but destroy (it is off). */
void tbr_technique_reset_nothing(void *self);
void tbr_techniques_free(tbr_techniques *h);
void tbr_techniques_frame_begin(tbr_techniques *h, const tbr_frame_info *fi);
void tbr_techniques_pass_begin(tbr_techniques *h, const tbr_pass_info *pi);
/* Renders tile (tx, ty) with the functional back end between the render hooks. */
void tbr_techniques_render_tile(tbr_techniques *h, sim_func *fn, unsigned tx, unsigned ty, const uint32_t *prims,
                                uint32_t nprims, sim_tile_result *res);
void tbr_techniques_pass_render_end(tbr_techniques *h);
void tbr_techniques_pass_end(tbr_techniques *h, const uint32_t *tiles_per_unit, uint32_t nunits);
int tbr_techniques_energy(tbr_techniques *h, tbr_energy *en, const tbr_config *cfg, char *err, size_t errlen);

/* The draw-issue, binning and geometry-phase hooks (the *_hooks functions) run only in
 * passes where a technique's pass_begin asked for them (TBR_TECH_BINNING), so the geometry
 * loop pays one flag test otherwise. */
void tbr_techniques_draw_issued_hooks(tbr_techniques *h, uint32_t draw);
bool tbr_techniques_bin_can_accept_hooks(tbr_techniques *h);
void tbr_techniques_bin_accept_hooks(tbr_techniques *h, uint32_t prim, uint32_t ntiles);
void tbr_techniques_bin_dropped_hooks(tbr_techniques *h, uint32_t prim);
bool tbr_techniques_bin_tile_can_push_hooks(tbr_techniques *h);
void tbr_techniques_bin_tile_push_hooks(tbr_techniques *h, uint32_t tile);
void tbr_techniques_geometry_tick_hooks(tbr_techniques *h);
bool tbr_techniques_geometry_idle_hooks(const tbr_techniques *h);
bool tbr_techniques_geometry_busy_hooks(const tbr_techniques *h);
uint64_t tbr_techniques_geometry_progress_hooks(const tbr_techniques *h);
#define TBR_BINNING_(h) ((h)->pass_flags & TBR_TECH_BINNING)
static inline void tbr_techniques_draw_issued(tbr_techniques *h, uint32_t draw)
{
    if (TBR_BINNING_(h)) tbr_techniques_draw_issued_hooks(h, draw);
}
static inline bool tbr_techniques_bin_can_accept(tbr_techniques *h)
{
    return !TBR_BINNING_(h) || tbr_techniques_bin_can_accept_hooks(h);
}
static inline void tbr_techniques_bin_accept(tbr_techniques *h, uint32_t prim, uint32_t ntiles)
{
    if (TBR_BINNING_(h)) tbr_techniques_bin_accept_hooks(h, prim, ntiles);
}
static inline void tbr_techniques_bin_dropped(tbr_techniques *h, uint32_t prim)
{
    if (TBR_BINNING_(h)) tbr_techniques_bin_dropped_hooks(h, prim);
}
static inline bool tbr_techniques_bin_tile_can_push(tbr_techniques *h)
{
    return !TBR_BINNING_(h) || tbr_techniques_bin_tile_can_push_hooks(h);
}
static inline void tbr_techniques_bin_tile_push(tbr_techniques *h, uint32_t tile)
{
    if (TBR_BINNING_(h)) tbr_techniques_bin_tile_push_hooks(h, tile);
}
static inline void tbr_techniques_geometry_tick(tbr_techniques *h)
{
    if (TBR_BINNING_(h)) tbr_techniques_geometry_tick_hooks(h);
}
static inline bool tbr_techniques_geometry_idle(const tbr_techniques *h)
{
    return !TBR_BINNING_(h) || tbr_techniques_geometry_idle_hooks(h);
}
static inline bool tbr_techniques_geometry_busy(const tbr_techniques *h)
{
    return TBR_BINNING_(h) && tbr_techniques_geometry_busy_hooks(h);
}
/* (a monotonic count within a pass: the geometry phase's deadlock watchdog compares it) */
static inline uint64_t tbr_techniques_geometry_progress(const tbr_techniques *h)
{
    return TBR_BINNING_(h) ? tbr_techniques_geometry_progress_hooks(h) : 0;
}
uint32_t tbr_techniques_dispatch_cycles(tbr_techniques *h);
/* The assigning technique's tile_order, if any, on the Tile Fetcher's schedule of the pass. */
void tbr_techniques_order(tbr_techniques *h, uint32_t *order, uint32_t tiles_x, uint32_t tiles_y, uint32_t nunits);
uint32_t tbr_techniques_assign(tbr_techniques *h, uint32_t index, uint32_t nunits, tbr_tiles_done_fn done,
                               const void *ctx);

static inline bool tbr_techniques_binning(const tbr_techniques *h) { return h->pass_flags & TBR_TECH_BINNING; }
static inline bool tbr_techniques_dispatching(const tbr_techniques *h) { return h->pass_flags & TBR_TECH_DISPATCH; }
/* The tile's outcome this pass: skipped (its raster pipeline does not run). */
static inline bool tbr_techniques_tile_skipped(const tbr_techniques *h, uint32_t tile)
{
    return tile < h->ntiles && h->skip[tile] == 1;
}
/* Raster Unit, at a tile's color flush of `bytes`: true when a technique eliminated it. */
bool tbr_techniques_flush(tbr_techniques *h, uint32_t tile, uint64_t bytes);

extern const tbr_technique_desc tbr_technique_re, tbr_technique_te, tbr_technique_ptr, tbr_technique_dfsl;

#endif
