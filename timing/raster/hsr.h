/* Hidden Surface Removal (hsr.c; seeds/003 sec. II-C, Fig. 2: TBDR): a phase at the head
 * of the raster pipeline with its own rasterizer, Early-Z test and depth buffer. While a
 * Raster Unit shades tile N, its HSR stage processes tile N+1's primitives to build that
 * tile's depth in advance, so tile N+1 shades only the visible fragments of its opaque
 * geometry. Two parts:
 *
 * - hsr_visibility (one, owned by the wiring): which fragments HSR removes, decided per
 *   tile when the tile is rendered functionally (values never depend on timing). The
 *   functional back end then writes no color for a removed fragment (sim_func.color_keep),
 *   so a wrong decision shows as a frame that is not bit-exact.
 * - hsr_stage (one per Raster Unit): the timing. Ports: the Tile Queue in (the Tile
 *   Fetcher's tokens), its own output queue to the Rasterizer (hsr.buffer_prims entries:
 *   the next tile's primitives held while the current one is shaded), the Raster Unit's
 *   depth-buffer memory port (the tile's old depth is loaded here, not by Early-Z), and a
 *   status: tiles the Rasterizer has finished (frees a depth buffer).
 *
 * The rule for fragments HSR cannot decide (docs/techniques.md "Hidden Surface Removal"):
 * blended, colour-masked or logic-op fragments pass through (they are shaded, and the
 * visible opaque fragment under them is kept); a tile with a draw whose visibility
 * depends on its fragment shader (discard / alpha test / alpha-to-coverage / shader depth
 * or stencil writes) or with more primitives than the HSR buffer holds falls
 * back to plain TBR. Depth function and mask changes are decided: HSR tests every
 * fragment in submission order with its own draw's state. */
#ifndef TBR_HSR_H
#define TBR_HSR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sim_queue.h"
#include "memory/memq.h"
#include "raster/raster_energy.h"
#include "sim_env.h"

/* What HSR can do with a draw's fragments. */
typedef enum {
    HSR_OPAQUE = 0,       /* no blending, full colour mask: a later fragment hides an earlier one */
    HSR_PASS_THROUGH = 1, /* shaded, and keeps what is under it (blending, colour mask, logic op) */
    HSR_UNDECIDABLE = 2   /* visibility known only after shading: the tile falls back */
} hsr_draw_class;
hsr_draw_class hsr_classify_draw(const tbr_rec_draw *d);

typedef struct {
    bool enabled;          /* hsr.enabled */
    uint32_t buffer_prims; /* hsr.buffer_prims */
    uint32_t tile_w, tile_h;
    /* per quad of the frame: colour lanes HSR keeps (0xf = all); valid for the tiles of the
     * pass rendered so far */
    uint8_t *keep;
    size_t cap_keep;
    /* per tile of the pass: 1 = HSR decided it, 0 = fell back to TBR */
    uint8_t *decided;
    size_t cap_tiles;
    /* tag buffer of the tile being decided: per pixel the visible opaque fragment so far
     * (quad index + 1, 0 = none) and its lane; pixels written at all */
    uint32_t *tag_quad;
    uint8_t *tag_lane, *written;
    tbr_stat *tiles_decided, *fallback_shader, *fallback_buffer, *frags_written, *frags_removed, *frags_passed,
        *quads_removed, *pixels_written;
} hsr_visibility;

/* Parameters (hsr.*) and statistics; tile size from tile.width/height. */
void hsr_visibility_init(hsr_visibility *v, const tbr_config *cfg, tbr_stats *st);
void hsr_visibility_free(hsr_visibility *v);
/* A pass of frame f begins (its quads and tiles). */
void hsr_visibility_begin_pass(hsr_visibility *v, const sim_frame *f, uint32_t ntiles);
/* Decides tile (tx, ty) of the pass (nprims: its Polygon List Builder list length) before
 * it is rendered: fills keep[] for its quads and decided[tile]. */
void hsr_visibility_tile(hsr_visibility *v, const sim_func *fn, unsigned tx, unsigned ty, uint32_t nprims);
/* Quad q of a decided tile is hidden whole: HSR removes it from shading. */
static inline bool hsr_quad_removed(const hsr_visibility *v, const sim_quad *q, uint32_t qi)
{
    uint32_t written = (q->flags & TBR_REC_QUAD_BLENDED) ? q->blend_mask : 0;
    return v->enabled && written && !(written & v->keep[qi]);
}

typedef struct {
    sim_env *env;
    const hsr_visibility *vis;
    /* ports */
    sim_queue *in; /* the Raster Unit's Tile Queue */
    sim_queue out; /* to the Rasterizer */
    tbr_memq *mem_req, *mem_resp;
    const uint32_t *consumer_tiles_done; /* tiles whose END the Rasterizer passed on */
    /* parameters */
    uint32_t quads_per_cycle, setup_cycles, tile_buffers;
    /* state */
    bool in_tile, tile_decided;
    uint32_t tile;
    const uint32_t *items;
    uint32_t nitems, cursor;
    uint64_t busy_until;
    uint32_t tiles_begun, tiles_ready; /* tiles started; tiles whose depth is complete */
    uint32_t z_load_left, z_outstanding;
    bool z_loading;
    const raster_energy *en;
    tbr_stat *busy, *stall, *idle, *quads_tested, *tile_loads;
} hsr_stage;

/* quads_tested, tile_loads: the Raster Units' shared counters (quads.hsr_tested,
 * tiles.buffer_load_lines) */
void hsr_stage_init(hsr_stage *h, sim_env *env, uint32_t unit, const hsr_visibility *vis, const raster_energy *en,
                    tbr_stat *quads_tested, tbr_stat *tile_loads);
void hsr_stage_connect(hsr_stage *h, sim_queue *in, tbr_memq *mem_req, tbr_memq *mem_resp,
                       const uint32_t *consumer_tiles_done);
void hsr_stage_free(hsr_stage *h);
void hsr_stage_begin_pass(hsr_stage *h);
void hsr_stage_tick(hsr_stage *h);
uint64_t hsr_stage_next_event(const hsr_stage *h);
bool hsr_stage_idle(const hsr_stage *h);
/* The Rasterizer may begin its k-th tile (counted from 0 over the run): HSR finished it. */
static inline bool hsr_stage_tile_ready(const hsr_stage *h, uint32_t k) { return h->tiles_ready > k; }

#endif
