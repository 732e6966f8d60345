/* tbr-sim's wiring (thesis §2.2, §4.1, Table 4.1): builds the units of the TBR GPU from the
 * configuration, connects their ports (docs/timing-model.md "Structure") and runs one
 * render pass at a time: the geometry + tiling phase, the functional rendering of the
 * pass's tiles, the raster phase; with overlap.enabled, the next pass's geometry phase
 * during the current pass's raster phase. Only the wiring (gpu.c, gpu_energy.c) and tbr-sim's main
 * include this header (scripts/check-layering). */
#ifndef TBR_GPU_H
#define TBR_GPU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "memory/cache.h"
#include "core/config.h"
#include "energy/energy.h"
#include "memory/memsys.h"
#include "geometry/geometry.h"
#include "imr/prim_dispatch.h"
#include "raster/raster_unit.h"
#include "shader/icache.h"
#include "shader/shader_core.h"
#include "shader/shader_pool.h"
#include "sim_env.h"
#include "texture/texture_unit.h"
#include "texture/vertex_texture.h"
#include "techniques/technique.h"
#include "tiling/parameter_buffer.h"
#include "tiling/plb.h"
#include "tiling/tile_fetcher.h"
#include "tiling/tile_order.h"
#include "render/sim_func.h"
#include "core/sim_queue.h"
#include "frontend/sim_trace.h"
#include "core/stats.h"
#include "core/tile_stats.h"

typedef struct gpu gpu;
#define GPU_PLANE_MEMO 4
typedef struct {
    uint64_t base, end; /* [base, end): a surface's memory; empty when end = 0 */
    bool is_zs;
} gpu_plane_range;

#define GPU_MAX_PB 4 /* overlap.pb_buffers' maximum */

/* The frame after the one being simulated, loaded by the driver when the GPU asks for it
 * (gpu_set_frame_source); NULL: none (the trace or the --frames window ends, or it failed
 * to load: the driver notes which). */
typedef const sim_frame *(*gpu_next_frame_fn)(void *ctx);
typedef struct overlap_run overlap_run; /* gpu.c: the overlapped loop's state */

struct gpu {
    sim_env env; /* the clock, the pass, the shared services the units see */
    sim_func fn; /* the services env points to */
    tbr_techniques tech;
    tile_stats tiles_data;
    bool skip_idle;                 /* false: tick every cycle (tbr-sim --no-skip) */
    uint64_t skipped_cycles;        /* cycles simulated as part of a quiescent span (not a statistic) */
    uint32_t probe_gap, probe_wait; /* busy: the next events are asked only every probe_gap cycles */
    shader_pool *pool;              /* shader.organization = unified: the shared cores (NULL: split) */
    geometry_unit geo;
    plb_unit plb;
    tile_fetcher tf;
    raster_unit *ru;
    uint32_t nru;
    sim_queue **ru_tile_q; /* the Raster Units' Tile Queues (the Tile Fetcher's output ports) */
    uint32_t nicu;         /* 1 shared or 2 instruction caches */
    icache_unit icu[2];    /* 0: vertex processors, 1: fragment processors (nicu = 2) */
    texture_stats tex_stats;
    /* stats */
    tbr_stat *cyc_total, *cyc_geom, *cyc_tiling, *cyc_raster, *frames, *passes, *draws, *prims;
    /* lines of fetches of block-compressed textures (the frame's loader counts them) */
    tbr_stat *tex_compressed_lines;

    raster_stats raster; /* shared by the Raster Units */
    hsr_visibility hsr;  /* TBDR: what HSR removes (raster/hsr.h); off by default */
    tbr_stat *mask_mismatch;
    bool restore_used;         /* tile.restore = used */
    const su_frame_data *sufd; /* set per frame by the driver (sim_main): RE's payload CRCs */
    tbr_stat **ru_tiles, **ru_active;
    /* Geometry/raster overlap across a frame's render passes (overlap.*, docs/timing-model.md
     * "Overlapping render passes"); false: one pass at a time */
    bool overlap;
    uint32_t pb_buffers;               /* overlap.pb_buffers */
    uint64_t pb_buffer_bytes;          /* overlap.pb_buffer_kib in bytes (0: unbounded) */
    sim_env genv;                      /* with overlap, the geometry side's view: the pass being binned */
    param_buffer pb_store[GPU_MAX_PB]; /* binned passes' Parameter Buffers, by slot */
    struct {
        uint32_t held, slot; /* buffers it holds (0: none), the slot of its lists */
    } * pass_pb;             /* per pass of the frame (then of the next frame, with across_frames) */
    size_t pass_pb_cap;
    tbr_stat *cyc_both, *cyc_pb_stall, *cyc_dep_wait, *dep_passes, *dep_violations;
    /* overlap.across_frames: the next frame's geometry during the current frame's last raster
     * phase; the loop's state (overlap_run) then outlives gpu_run_frame */
    bool across_frames;
    overlap_run *ov;
    gpu_next_frame_fn next_frame;
    void *next_frame_ctx;
    uint64_t frame_first_cycle; /* the last frame gpu_run_frame completed: its first command's cycle */
    tbr_stat *cyc_both_frames, *frame_dep_passes;
    /* Energy accounting (gpu_energy.c, docs/energy-model.md) */
    tbr_energy *en;
    tbr_energy_unit *eu_noc;
    /* pipeline.organization = imr: primitives go from Primitive Assembly straight to the
     * Raster Unit (no PLB, Parameter Buffer or Tile Fetcher; docs/organisations.md) */
    bool imr;
    prim_dispatch pd;
    /* gpu_energy.c: the surfaces of the last DRAM lines classified by plane */
    gpu_plane_range plane_memo[GPU_PLANE_MEMO];
    unsigned plane_memo_next;
    /* gpu_energy.c: the L2's dirty bytes at each frame end and the run end's counted flush,
     * by what the lines hold (GPU_DIRTY_*; docs/organisations.md "Dirty lines at the end") */
    tbr_stat *dirty_at_frame_end[4], *end_flush[5];
};

/* gpu.c */
gpu *gpu_new(const tbr_config *cfg, tbr_stats *st, char *err, size_t errlen);
void gpu_free(gpu *g);
/* gpu_reset.c: back to the state gpu_new left (caches, DRAM, queues, techniques, the
 * functional back end, energy counts; statistics zero, their registrations kept), for
 * callers that simulate many unrelated frames with one configuration. -1 (nothing
 * changed) for an organisation with units that have no reset yet (TBDR, IMR, unified
 * shader cores, NUCA texture caches, DFSL): build a new GPU instead. */
int gpu_reset(gpu *g);
/* gpu.c: the overlapped loop's state (it outlives gpu_run_frame) back to its start */
void gpu_overlap_reset(gpu *g);
/* Simulates one pass of the loaded frame (functional rendering included). -1 on a
 * deadlock (watchdog) or unusable pass, with err. */
int gpu_run_pass(gpu *g, const sim_frame *f, size_t pass, char *err, size_t errlen);
/* Simulates every pass of the loaded frame: one at a time (gpu_run_pass), or with
 * overlap.enabled the geometry of a pass while the previous one is rastered. Returns when
 * the frame's last tile is flushed (frame_first_cycle: its first command's cycle); with
 * overlap.across_frames and a frame source, the next frame's geometry may have begun, and
 * the next call must simulate that frame. -1 with err. */
int gpu_run_frame(gpu *g, const sim_frame *f, char *err, size_t errlen);
/* With overlap.across_frames: when a frame that ends with a swap (FRAME_END) begins its
 * last pass's raster phase (its functional rendering done), the GPU asks next(ctx) for
 * the following frame, so that frame's geometry can overlap. Without a source (or with
 * across_frames off) each frame ends with an idle GPU, as before. */
void gpu_set_frame_source(gpu *g, gpu_next_frame_fn next, void *ctx);
/* Renders every pass of the frame functionally only (no cycles, statistics or energy):
 * frames before a --frames window, so the window starts from their render targets. */
int gpu_fast_forward_frame(gpu *g, const sim_frame *f, char *err, size_t errlen);
/* Per-tile data: forget the previous frame's (call before the frame's first pass). */
void gpu_tiles_frame_begin(gpu *g);
/* Writes the frame's per-tile entry of the "tiles" object ({"frame": N, "cycles": [...],
 * ...}) for a cols x rows grid (row-major, row 0 = the top row of the frame PNG); tiles
 * the frame has no value for are null. */
void gpu_tiles_write_frame(const gpu *g, FILE *o, uint64_t frame, uint32_t cols, uint32_t rows);

/* gpu_energy.c: register the energy structures (baseline, "re" when RE is enabled, "te"
 * when TE is, the interconnect), bind the statistics and hook the queues. */
int gpu_energy_init(gpu *g, char *err, size_t errlen);
/* End a frame for the energy model (derived counts, DRAM counts and rank residency). */
void gpu_energy_frame_end(gpu *g, const char *label);
/* The dirty lines the L2 holds at a frame's end (one sample of l2.dirty_bytes_at_frame_end.*,
 * before the frame's statistics are taken) and, after the last frame, the bytes a write-back
 * of them would move to the DRAM (dram.end_flush_bytes.*): counted, not timed, the lines
 * stay as they are. */
void gpu_dirty_lines_frame_end(gpu *g);
void gpu_dirty_lines_run_end(gpu *g);

#endif
