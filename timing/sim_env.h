/* The simulation environment every unit of tbr-sim sees (docs/architecture.md "timing/"):
 * the clock, the pass being simulated, and the shared services (memory system, functional
 * back end, technique host, per-tile statistics, the shader processors' parameters and work
 * counters). It holds no unit:
 * a unit reaches its neighbours only through the ports (queues) and status callbacks the
 * wiring (gpu.c) connects at build time. The wiring owns it and advances the clock. */
#ifndef TBR_SIM_ENV_H
#define TBR_SIM_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "core/stats.h"
#include "core/tile_stats.h"
#include "energy/energy.h"
#include "frontend/sim_trace.h"
#include "memory/memsys.h"
#include "render/sim_func.h"
#include "shader/shader_core.h"
#include "techniques/technique.h"

/* Simulated address map (docs/timing-model.md "Address map"). */
#define ADDR_VERTEX_BASE    0x010000000ull /* vertex buffers of traces without VERTICES records: */
#define ADDR_VERTEX_WINDOW  0x001000000ull /* 16 MiB per draw of a frame, wrapping inside */
#define ADDR_VERTEX_SPAN    (ADDR_SURFACE_BASE - ADDR_VERTEX_BASE) /* [VERTEX_BASE, SURFACE_BASE) */
#define ADDR_PB_LIST_BASE   0x100000000ull                         /* Parameter Buffer per-tile pointer lists */
#define ADDR_PB_LIST_STRIDE 0x10000ull                             /* 64 KiB per tile = 16384 primitive pointers */
#define ADDR_PB_ATTR_BASE   0x180000000ull                         /* Parameter Buffer primitive attributes */
#define ADDR_SURFACE_BASE   0x040000000ull                         /* render targets (frame buffer, RTT textures) */

/* Shader processor parameters (shader.*, *.threads_per_processor), read once. */
typedef struct {
    uint32_t issue_width, lat_alu, fp_threads, vp_threads;
    uint32_t lat_cls[SC_NCLASS]; /* shader.lat_alu / lat_sfu / lat_tex / lat_ctrl */
} shader_params;

typedef struct sim_env {
    const tbr_config *cfg;
    tbr_stats *st;
    /* The clock. Idle-cycle skipping (docs/timing-model.md "Skipping quiescent cycles"):
     * the ticks of one loop iteration simulate the ncyc cycles [now, now + ncyc); ncyc > 1
     * only when every unit reported (its *_next_event) that nothing changes before
     * now + ncyc, so the units only count those cycles. */
    uint64_t now, ncyc;
    /* the pass being simulated and its tile grid */
    const sim_frame *frame;
    size_t pass;
    unsigned tile_w, tile_h, tiles_x, tiles_y;
    bool pass_loads_color, pass_loads_zs; /* the pass loads uncleared color / zs planes */
    /* tile.restore=used: planes not loaded because their contents are undefined
     * (sim_pass.color_undefined: color buffer bits; zs: pass_loads_zs was cleared for it) */
    uint32_t pass_undefined_color;
    bool pass_undefined_zs;
    shader_params shader;
    /* shared services */
    memsys *mem;
    sim_func *fn;
    tbr_techniques *tech;
    tile_stats *tiles;
    /* the Texture Caches' NUCA organisation (texture/tex_nuca.h; NULL: private caches) */
    struct tex_nuca *tex_nuca;
    /* shader work counters shared by the vertex and fragment processors */
    tbr_stat *instr_streamed, *instr_static;
} sim_env;

/* min helper for the units' *_next_event functions (the earliest cycle >= now at which
 * a unit's tick could change state; UINT64_MAX: it waits for another unit): a time
 * <= now ends the search. */
#define GPU_EVENT_AT(ne, now, t)                                                                                       \
    do {                                                                                                               \
        uint64_t t_ = (t);                                                                                             \
        if (t_ <= (now)) return (now);                                                                                 \
        if (t_ < (ne)) (ne) = t_;                                                                                      \
    } while (0)

#endif
