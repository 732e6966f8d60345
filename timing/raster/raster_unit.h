/* Raster Unit (raster_unit.c; thesis §2.2, §4.1, Fig. 4.6): Rasterizer, Early-Z (on-chip
 * Depth Buffer), Fragment Processors (+ their texture units), in-order merge, Blending
 * (on-chip Color Buffer), tile buffer load/flush. Ports: its Tile Queue (input, filled by
 * the Tile Fetcher), depth and color memory-system ports, the texture caches' ports, the
 * instruction cache its Fragment Processors fetch through; the flush hook decides a
 * tile's color flush (e.g. TE). */
#ifndef TBR_RASTER_UNIT_H
#define TBR_RASTER_UNIT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sim_queue.h"
#include "shader/icache.h"
#include "shader/shader_core.h"
#include "shader/shader_pool.h"
#include "sim_env.h"
#include "raster/early_z.h"
#include "raster/hsr.h"
#include "imr/rop_cache.h"
#include "raster/raster_energy.h"
#include "texture/texture_unit.h"

/* Statistics summed over the Raster Units (quads.*, fragments.*, tiles.*). */
typedef struct {
    tbr_stat *q_hsr_tested; /* quads tested by the HSR stages (NULL without HSR) */
    tbr_stat *q_raster, *q_ztested, *q_zkilled, *q_late_z, *q_shaded, *q_blended, *frag_blended, *tiles;
    tbr_stat *tile_cycles, *tile_loads, *tile_flush_lines, *tile_zs_store_lines;
    tbr_stat *tile_invalidated_bytes;    /* stores skipped because the application invalidated the buffer */
    tbr_stat *tile_undefined_load_bytes; /* loads skipped: the plane's contents are undefined (invalidated) */
    raster_energy en;                    /* the energy structures the stages count inline */
} raster_stats;
void raster_stats_register(raster_stats *rs, tbr_stats *st);

typedef struct {
    sim_env *env;
    const raster_stats *stats;
    /* parameters (raster.*, early_z.*, blend.*, depth_buffer.*, color_buffer.*) */
    uint32_t raster_qpc, raster_setup, blend_qpc;
    uint32_t id;
    sim_queue tile_q, post_raster, *fp_in, order, color_q;
    /* rasterizer */
    bool r_has_prim;
    uint32_t r_prim;
    uint64_t r_ready;
    uint32_t r_tile;
    bool r_in_tile;
    const uint32_t *r_items;
    uint32_t r_nitems, r_cursor;
    uint8_t *r_emitted;
    uint32_t cap_emitted; /* per item of the tile: already emitted */
    uint32_t pend_end;    /* END token waiting to be pushed after remaining quads */
    bool r_flushing;
    early_z ez; /* its Early-Z stage (early_z.h) */
    /* TBDR (hsr.h): the HSR stage between the Tile Queue and the Rasterizer, or NULL */
    hsr_stage *hsr;
    uint32_t r_tiles_begun, r_tiles_passed; /* tiles the Rasterizer began / passed END of */
    tbr_stat *r_hsr_wait;
    /* fragment processors (+ their texture units) */
    shader_core *fp;   /* its own, or its contexts on the unified pool's cores (pool != NULL) */
    shader_pool *pool; /* unified shader cores: dispatch asks the pool for a grant, the pool issues */
    tex_unit *tu;
    uint32_t nfp;
    /* blending */
    uint32_t c_tile, c_load_left, c_outstanding;
    bool c_loading;
    uint32_t flush_left;
    bool flushing;
    /* depth.store (docs/timing-model.md "Tile buffer stores"): the mode, whether this pass
     * writes its depth/stencil tiles back, and the current flush's depth/stencil lines
     * (sent after its color lines) */
    int zs_store_mode, color_store_mode;
    bool pass_stores_zs;
    bool pass_zs_invalidated; /* auto skips the depth/stencil store: INVALIDATE after the last write */
    uint32_t pass_color_skip; /* color buffers whose store auto skips (INVALIDATE after the last write) */
    uint32_t flush_zs_lines, flush_zs_lpr;
    uint64_t tile_start_cycle;
    uint32_t tiles_done;
    int zport, cport;
    tbr_stat *r_busy, *r_stall, *r_idle, *b_busy, *b_stall, *b_idle;
    tbr_occupancy qocc_tile, qocc_post, qocc_color;
    /* IMR (pipeline.organization = imr; imr_blend.c): Z and color caches on the depth and
     * color ports instead of tile buffers; NULL under TBR */
    rop_cache *zrop, *crop;
    hiz *hiz;                          /* imr.hierarchical_z (NULL: off) */
    uint32_t imr_lookahead, imr_zdone; /* imr_zdone: quad index + 1 whose late Z is done */
    bool imr_flushing;
} raster_unit;

/* Raster Unit `id`: its queues, Fragment Processors (their texture units use ts, their
 * instruction fetches go through icache), memory ports and statistics; with hsr.enabled an
 * HSR stage deciding by vis. pool: the unified shader cores its fragment work runs on
 * (client 1 + id; quads mapped over all of the pool's cores, one texture unit and cache
 * per core), NULL: its own fragment.processors. -1 with err. */
int ru_init(raster_unit *r, sim_env *env, uint32_t id, const raster_stats *stats, const texture_stats *ts,
            icache_unit *icache, const hsr_visibility *vis, shader_pool *pool, char *err, size_t errlen);
/* a new pass (its quad indices) */
void ru_begin_pass(raster_unit *r);
void ru_free(raster_unit *r);
/* Nothing in flight, queues and caches empty, counters at ru_init's values (gpu_reset).
 * -1: an organisation it has no reset for (HSR stage, IMR caches, unified shader cores). */
int ru_reset(raster_unit *r);
void ru_tick(raster_unit *r);
/* end of the raster phase: queue occupancies into their statistics */
void ru_fold_stats(raster_unit *r);
bool ru_idle(const raster_unit *r);

/* ---- The Raster Unit under the immediate-mode organisation (imr_blend.c; ATTILA
 * seeds/004 sec. 2): pipeline.organization = imr puts its depth and color buffers in memory
 * behind a Z cache and a color cache (imr/rop_cache.h) on its depth and color memory
 * ports; Early-Z tests through the Z cache (early_z.c), late Z and Blending go through
 * imr_blend_tick; the pass (one "tile": the whole render target) ends with the caches'
 * flush. */
#define RU_ORG_TBR 0 /* pipeline.organization values (index in the config enum list) */
#define RU_ORG_IMR 1
/* The Z and color caches, on the unit's depth and color ports (after they are added). */
void imr_ru_init(raster_unit *r);
void imr_ru_free(raster_unit *r);
/* The pass's planes: its depth/stencil surface for the Z cache, its color buffers for the
 * color cache (cleared ones as the pass's clears say). */
/* zs_dropped: the pass's depth/stencil is invalidated after its last write (depth.store=auto:
 * INVALIDATE, or the window's at the swap), so its dirty lines are dropped at the pass end. */
void imr_ru_begin_pass(raster_unit *r, bool zs_dropped);
/* The pass starts, before the functional back end renders it: Hierarchical Z reads the
 * depth plane as the pass finds it (imr/hiz.h). */
void imr_ru_pass_start(raster_unit *r);
/* Blending under IMR: per quad late Z (draws without early Z) and the color write
 * through the caches; at the pass's END marker the caches' flush. */
void imr_blend_tick(raster_unit *r) __attribute__((noinline, cold)); /* (keeps TBR's ru_tick as it was) */
/* The earliest event of the caches and of the pass-end flush. */
uint64_t imr_ru_next_event(const raster_unit *r) __attribute__((noinline, cold));
uint64_t ru_next_event(const raster_unit *r);

#endif
