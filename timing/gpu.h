/* tbr-sim GPU top level: the units of the TBR baseline (thesis §2.2, §4.1, Table 4.1)
 * and the per-pass simulation loop. Unit state lives here; each unit's behaviour is in
 * its own file: geometry.c (Command Processor, Vertex Fetcher + Vertex Cache, Vertex
 * Processors, Primitive Assembly), plb.c (Polygon List Builder + Parameter Buffer),
 * tile_fetcher.c (Tile Scheduler order + pipelined Tile Fetcher with Primitive Table),
 * raster_unit.c (Rasterizer, Early-Z, Fragment Processors, Blending, tile buffer
 * load/flush), shader_core.c, memsys.c (L2 + DRAM). See docs/timing-model.md. */
#ifndef TBR_GPU_H
#define TBR_GPU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "memory/cache.h"
#include "core/config.h"
#include "energy/energy.h"
#include "memory/memsys.h"
#include "shader/icache.h"
#include "shader/shader_core.h"
#include "sim_env.h"
#include "texture/texture_unit.h"
#include "texture/vertex_texture.h"
#include "techniques/technique.h"
#include "tiling/parameter_buffer.h"
#include "tiling/tile_fetcher.h"
#include "tiling/tile_order.h"
#include "render/sim_func.h"
#include "core/sim_queue.h"
#include "frontend/sim_trace.h"
#include "core/stats.h"
#include "core/tile_stats.h"

/* fragment.quad_mapping values (index in the config enum list) */
#define RU_QMAP_INTERLEAVED 0
#define RU_QMAP_STRIPS      1
#define RU_QMAP_QUADRANT    2
#define RU_QMAP_ROUND_ROBIN 3

typedef struct gpu gpu;

/* ---- geometry ---- */
typedef struct {
    /* Command Processor */
    uint32_t next_draw; /* index within the pass */
    uint64_t cp_busy_until;
    bool cp_has_draw;
    /* Vertex Fetcher (one draw at a time) */
    bool vf_active;
    uint32_t vf_draw; /* frame draw index */
    uint32_t vf_nverts, vf_sent_lines, vf_lines_per_vert, vf_done_head, vf_outstanding;
    uint32_t vf_pushed;
    uint16_t *vf_lines_left;             /* per vertex (per VS group with VERTICES records) */
    bool vf_groups;                      /* the draw has VERTICES records: work items are VS groups */
    uint32_t vf_first_group, vf_g, vf_l; /* first frame vgroup; send cursor (group, line) */
    uint32_t vf_cap;
    tbr_cache *vcache;
    sim_queue vertex_in, vertex_out, prim_q;
    /* Vertex Processors */
    shader_core *vp;
    uint32_t nvp, vp_rr;
    sim_queue vp_order; /* VP index of each dispatched vertex, in order */
    vtex_unit vt;       /* their texture unit (vertex texturing) */
    /* Primitive Assembly: per draw in order */
    uint32_t pa_draw; /* index within the pass of the draw being assembled */
    uint32_t pa_verts, pa_prims;
    double pa_credit;
    /* the vertices primitive pa_need_prims + 1 of a draw with pa_need_nv vertices and
   * pa_need_nprims primitives needs (a division, asked every cycle; all zero: none) */
    uint32_t pa_need_prims, pa_need_nv, pa_need_nprims;
    uint64_t pa_need;
    double pa_rate; /* prim_assembly.tris_per_cycle (looked up once) */
    uint64_t last_prim_cycle;
    uint64_t progress; /* events that moved work forward (deadlock watchdog, gpu.c) */
    tbr_stat *cp_busy, *vf_busy, *vf_stall, *pa_busy, *pa_stall, *verts;
    tbr_occupancy qocc_vin, qocc_vout, qocc_prim;
} geometry_unit;

/* ---- Polygon List Builder ---- */
typedef struct {
    bool has_prim;
    uint32_t prim;
    uint32_t tx0, ty0, tx1, ty1, cx, cy; /* tile range being written */
    uint32_t attr_lines_left;
    uint64_t attr_addr;      /* next Parameter Buffer attribute byte */
    uint64_t attr_line_open; /* write-combining: line being filled (+1, 0 = none) */
    param_buffer pb;         /* its output: the tile lists and attribute offsets */
    int port;
    uint64_t progress; /* events that moved work forward (deadlock watchdog) */
    tbr_stat *busy, *stall, *idle, *bins, *culled, *pb_bytes;
} plb_unit;

/* ---- Raster Unit ---- */
typedef struct {
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
    /* early Z */
    uint32_t z_tile, z_load_left, z_outstanding;
    bool z_loading;
    /* fragment processors (+ their texture units) */
    shader_core *fp;
    tex_unit *tu;
    uint32_t nfp, fp_rr;
    /* quad -> FP (fragment.quad_mapping): RU_QMAP_*; quads per tile row/column; quadrant
   * regions qm_rx x qm_ry (qm_rx * qm_ry = nfp) */
    int qmap;
    uint32_t qm_w, qm_h, qm_rx, qm_ry;
    /* blending */
    uint32_t c_tile, c_load_left, c_outstanding;
    bool c_loading;
    uint32_t flush_left;
    bool flushing;
    uint64_t tile_start_cycle;
    uint32_t tiles_done;
    uint32_t ez_tile;           /* tile whose quads Early-Z is passing (per-tile fragment counts) */
    uint32_t ez_fp_quad, ez_fp; /* quad_fp of quad ez_fp_quad - 1 (a quad waiting for its
                               * Fragment Processor queue asks every cycle; not for
                               * round_robin, whose answer changes with fp_rr) */
    int zport, cport;
    tbr_stat *r_busy, *r_stall, *r_idle, *z_busy, *z_stall, *z_idle, *b_busy, *b_stall, *b_idle;
    tbr_occupancy qocc_tile, qocc_post, qocc_color;
} raster_unit;

struct gpu {
    sim_env env; /* the clock, the pass, the shared services the units see */
    sim_func fn; /* the services env points to */
    tbr_techniques tech;
    tile_stats tiles_data;
    bool skip_idle;                 /* false: tick every cycle (tbr-sim --no-skip) */
    uint64_t skipped_cycles;        /* cycles simulated as part of a quiescent span (not a statistic) */
    uint32_t probe_gap, probe_wait; /* busy: the next events are asked only every probe_gap cycles */
    geometry_unit geo;
    plb_unit plb;
    tile_fetcher tf;
    raster_unit *ru;
    uint32_t nru;
    sim_queue **ru_tile_q; /* the Raster Units' Tile Queues (the Tile Fetcher's output ports) */
    uint32_t tiles_total_pass;
    /* parameters read once */
    uint32_t cp_cycles, bytes_per_attr, plb_tpc, raster_qpc, raster_setup, attrs_pc, ez_qpc, blend_qpc;
    uint32_t zlat, clat;
    bool icache_on;     /* instruction fetch modeled (executed streams only) */
    uint32_t nicu;      /* 1 shared or 2 instruction caches */
    icache_unit icu[2]; /* 0: vertex processors, 1: fragment processors (nicu = 2) */
    texture_stats tex_stats;
    /* stats */
    tbr_stat *cyc_total, *cyc_geom, *cyc_tiling, *cyc_raster, *frames, *passes, *draws, *prims;
    tbr_stat *q_raster, *q_ztested, *q_zkilled, *q_late_z, *q_shaded, *q_blended, *frag_blended, *tiles;
    tbr_stat *tile_cycles, *mask_mismatch, *tile_loads, *tile_flush_lines;
    bool restore_used;         /* tile.restore = used */
    const su_frame_data *sufd; /* set per frame by the driver (sim_main): RE's payload CRCs */
    tbr_stat **ru_tiles, **ru_active;
    /* Energy accounting (sim_energy.c, docs/energy-model.md) */
    tbr_energy *en;
    tbr_energy_unit *eu_noc;
};

/* gpu.c */
gpu *gpu_new(const tbr_config *cfg, tbr_stats *st, char *err, size_t errlen);
void gpu_free(gpu *g);
/* Simulates one pass of the loaded frame (functional rendering included). -1 on a
 * deadlock (watchdog) or unusable pass, with err. */
int gpu_run_pass(gpu *g, sim_frame *f, size_t pass, char *err, size_t errlen);
/* Renders every pass of the frame functionally only (no cycles, statistics or energy):
 * frames before a --frames window, so the window starts from their render targets. */
int gpu_fast_forward_frame(gpu *g, const sim_frame *f, char *err, size_t errlen);
/* Per-tile data: forget the previous frame's (call before the frame's first pass). */
void gpu_tiles_frame_begin(gpu *g);
/* Writes the frame's per-tile entry of the "tiles" object ({"frame": N, "cycles": [...],
 * ...}) for a cols x rows grid (row-major, row 0 = the top row of the frame PNG); tiles
 * the frame has no value for are null. */
void gpu_tiles_write_frame(const gpu *g, FILE *o, uint64_t frame, uint32_t cols, uint32_t rows);

/* sim_energy.c: register the energy structures (baseline, "re" when RE is enabled, "te"
 * when TE is, the interconnect), bind the statistics and hook the queues. */
int gpu_energy_init(gpu *g, char *err, size_t errlen);
/* End a frame for the energy model (derived counts, DRAM counts and rank residency). */
void gpu_energy_frame_end(gpu *g, const char *label);

/* Idle-cycle skipping: each unit's earliest cycle >= g->now at which its tick could
 * change state, given that no other unit changes anything before then (UINT64_MAX:
 * nothing of its own; it waits for another unit). Returning too early only costs speed. */
uint64_t geometry_next_event(const gpu *g);
uint64_t plb_next_event(const gpu *g);
uint64_t ru_next_event(const gpu *g, const raster_unit *r);
/* unit entry points */
void geometry_init(gpu *g);
void geometry_free(gpu *g);
void geometry_begin_pass(gpu *g);
void geometry_tick(gpu *g);
void geometry_fold_stats(gpu *g); /* end of the geometry phase: queue occupancies into their stats */
bool geometry_done(const gpu *g);
void plb_init(gpu *g);
void plb_free(gpu *g);
void plb_begin_pass(gpu *g);
void plb_tick(gpu *g);
bool plb_done(const gpu *g);
void ru_init(gpu *g, raster_unit *r, uint32_t id);
void ru_free(raster_unit *r);
void ru_tick(gpu *g, raster_unit *r);
void ru_fold_stats(raster_unit *r); /* end of the raster phase: queue occupancies into their stats */
bool ru_idle(const raster_unit *r);

#endif
