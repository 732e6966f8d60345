/* tbr-sim's wiring (thesis §2.2, §4.1, Table 4.1): builds the units of the TBR GPU from the
 * configuration, connects their ports (docs/timing-model.md "Structure") and runs one
 * render pass at a time: the geometry + tiling phase, the functional rendering of the
 * pass's tiles, the raster phase. Only the wiring (gpu.c, gpu_energy.c) and tbr-sim's main
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
    raster_stats raster; /* shared by the Raster Units */
    hsr_visibility hsr;  /* TBDR: what HSR removes (raster/hsr.h); off by default */
    tbr_stat *mask_mismatch;
    bool restore_used;         /* tile.restore = used */
    const su_frame_data *sufd; /* set per frame by the driver (sim_main): RE's payload CRCs */
    tbr_stat **ru_tiles, **ru_active;
    /* Energy accounting (gpu_energy.c, docs/energy-model.md) */
    tbr_energy *en;
    tbr_energy_unit *eu_noc;
};

/* gpu.c */
gpu *gpu_new(const tbr_config *cfg, tbr_stats *st, char *err, size_t errlen);
void gpu_free(gpu *g);
/* Simulates one pass of the loaded frame (functional rendering included). -1 on a
 * deadlock (watchdog) or unusable pass, with err. */
int gpu_run_pass(gpu *g, const sim_frame *f, size_t pass, char *err, size_t errlen);
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

#endif
