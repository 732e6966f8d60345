/* Early-Z stage of a Raster Unit (early_z.c; thesis §2.2, §4.1: on-chip Depth Buffer).
 * Ports: the post-rasterization queue in (quads and tile markers), the Fragment
 * Processors' input queues out (fragment.quad_mapping picks the processor), the in-order
 * merge queue out (a token per quad or marker, so Blending retires in order), and the
 * depth buffer's memory port (request / response queues: its loads at a tile's BEGIN when
 * the pass keeps the old depth). */
#ifndef TBR_EARLY_Z_H
#define TBR_EARLY_Z_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sim_queue.h"
#include "imr/hiz.h"
#include "imr/rop_cache.h"
#include "memory/memq.h"
#include "raster/hsr.h"
#include "raster/raster_energy.h"
#include "sim_env.h"

/* fragment.quad_mapping values (index in the config enum list) */
#define RU_QMAP_INTERLEAVED 0
#define RU_QMAP_STRIPS      1
#define RU_QMAP_QUADRANT    2
#define RU_QMAP_ROUND_ROBIN 3

typedef struct {
    sim_env *env;
    /* ports */
    sim_queue *in;    /* post-rasterization queue */
    sim_queue *fp_in; /* nfp Fragment Processor input queues */
    uint32_t nfp;
    sim_queue *order; /* in-order merge queue */
    tbr_memq *mem_req, *mem_resp;
    /* parameters */
    uint32_t quads_per_cycle; /* early_z.quads_per_cycle */
    uint32_t latency;         /* depth_buffer.latency */
    /* quad -> Fragment Processor (fragment.quad_mapping): RU_QMAP_*; quads per tile
     * row/column; quadrant regions qm_rx x qm_ry (qm_rx * qm_ry = nfp) */
    int qmap;
    uint32_t qm_w, qm_h, qm_rx, qm_ry, fp_rr;
    /* depth buffer load of the current tile */
    uint32_t z_tile, z_load_left, z_outstanding;
    bool z_loading;
    uint32_t tile;                                   /* tile whose quads it is passing (per-tile fragment counts) */
    uint32_t memo_quad, memo_fp;                     /* processor of quad memo_quad - 1 (a quad waiting for its
                                  * processor's queue asks every cycle; not for round_robin,
                                  * whose answer changes with fp_rr) */
    tbr_stat *tested, *killed, *shaded, *tile_loads; /* shared by the Raster Units */
    const raster_energy *en;                         /* the depth buffer's and Early-Z's energy */
    tbr_stat *busy, *stall, *idle;
    /* TBDR (hsr.h): HSR loaded the tile's depth and built it in advance; a quad it found
     * hidden fails here (seeds/003 sec. II-C). NULL: TBR. */
    const hsr_visibility *hsr;
    /* IMR (imr/rop_cache.h): the depth buffer is in memory behind this Z cache, accessed per
     * quad; misses of the next imr_lookahead queued quads are issued while one waits. NULL: TBR. */
    rop_cache *rop;
    uint32_t imr_lookahead;
    /* IMR with Hierarchical Z (imr/hiz.h): quads it rejects leave before the Z cache;
     * hiz_memo: quad index + 1 it has seen (it sees each quad once, in order). NULL: none. */
    hiz *hiz;
    uint32_t hiz_memo;
} early_z;

/* Raster Unit `unit`'s Early-Z: parameters, statistics (ru<unit>.early_z.*); tested,
 * killed, shaded, tile_loads: the Raster Units' shared counters; en: their energy structures. */
void early_z_init(early_z *z, sim_env *env, uint32_t unit, tbr_stat *tested, tbr_stat *killed, tbr_stat *shaded,
                  tbr_stat *tile_loads, const raster_energy *en);
void early_z_connect(early_z *z, sim_queue *in, sim_queue *fp_in, uint32_t nfp, sim_queue *order, tbr_memq *mem_req,
                     tbr_memq *mem_resp);
/* TBDR: the depth buffer comes from the HSR stage (vis decides which quads it hid). */
static inline void early_z_use_hsr(early_z *z, const hsr_visibility *vis) { z->hsr = vis; }
/* IMR: the depth buffer is in memory behind the Z cache `rop` (no tile loads). */
static inline void early_z_use_rop(early_z *z, rop_cache *rop, uint32_t lookahead)
{
    z->rop = rop;
    z->imr_lookahead = lookahead;
}
/* IMR: Hierarchical Z ahead of the Z cache. */
static inline void early_z_use_hiz(early_z *z, hiz *h) { z->hiz = h; }
/* a new pass: quad indices are the frame's */
static inline void early_z_begin_pass(early_z *z)
{
    z->memo_quad = 0;
    z->hiz_memo = 0;
}
/* No tile loading, no quad remembered (gpu_reset). */
static inline void early_z_reset(early_z *z)
{
    early_z_begin_pass(z);
    z->fp_rr = 0;
    z->z_tile = z->z_load_left = z->z_outstanding = 0;
    z->z_loading = false;
    z->tile = z->memo_fp = 0;
}
void early_z_tick(early_z *z);
uint64_t early_z_next_event(const early_z *z);
static inline bool early_z_idle(const early_z *z) { return !z->z_loading; }
/* The Fragment Processor of quad q (docs/timing-model.md "Quad mapping"). */
uint32_t early_z_quad_fp(const early_z *z, const sim_quad *q);

#endif
