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
#include "shader/shader_core.h"
#include "techniques/technique.h"
#include "render/sim_func.h"
#include "core/sim_queue.h"
#include "frontend/sim_trace.h"
#include "core/stats.h"
#include "core/tile_stats.h"

/* Simulated address map (docs/timing-model.md "Address map"). */
#define ADDR_VERTEX_BASE    0x010000000ull /* vertex buffers of traces without VERTICES records: */
#define ADDR_VERTEX_WINDOW  0x001000000ull /* 16 MiB per draw of a frame, wrapping inside */
#define ADDR_VERTEX_SPAN    (ADDR_SURFACE_BASE - ADDR_VERTEX_BASE) /* [VERTEX_BASE, SURFACE_BASE) */
#define ADDR_PB_LIST_BASE   0x100000000ull                         /* Parameter Buffer per-tile pointer lists */
#define ADDR_PB_LIST_STRIDE 0x10000ull                             /* 64 KiB per tile = 16384 primitive pointers */
#define ADDR_PB_ATTR_BASE   0x180000000ull                         /* Parameter Buffer primitive attributes */
#define ADDR_SURFACE_BASE   0x040000000ull                         /* render targets (frame buffer, RTT textures) */

/* Raster Unit token encoding (tile queue, post-raster, color queues). */
/* fragment.quad_mapping values (index in the config enum list) */
#define RU_QMAP_INTERLEAVED 0
#define RU_QMAP_STRIPS      1
#define RU_QMAP_QUADRANT    2
#define RU_QMAP_ROUND_ROBIN 3

#define TOK_KIND(t) ((t) >> 30)
#define TOK_VAL(t)  ((t)&0x3fffffffu)
#define TOK_ITEM    0u /* prim (tile queue) or quad index */
#define TOK_BEGIN   1u /* tile begins */
#define TOK_END     2u /* tile ends */
#define TOK(k, v)   (((uint32_t)(k) << 30) | (uint32_t)(v))

typedef struct gpu gpu;

/* ---- Texture unit (one per Fragment Processor, texture_unit.c) ---- */
typedef struct {
    uint32_t first_line, nlines, sent, back;
    uint64_t start; /* cycle the TEX instruction issued */
} tex_req;

typedef struct {
    gpu *g;
    shader_core *core;
    tbr_cache *tc; /* the processor's Texture Cache (texture_cache.<i>) */
    char name[32];
    tex_req *req;                     /* per thread slot: its outstanding texture access */
    uint32_t *fifo, head, count, cap; /* slots with lines still to send, in issue order */
    uint32_t outstanding;             /* accesses not yet complete */
} tex_unit;

#define VTOK_GROUP 0x80000000u /* vertex token = frame VS group (VERTICES), else draw index */

/* ---- Vertex texture unit (texture_unit.c): serves the TEX instructions of every Vertex
 * Processor (vertex texturing, VS_TEXELS). vertex.texture_path = l2: lines are read from
 * the shared L2 directly (thesis Table 4.1 gives texture caches to the fragment
 * processors only); cache: through a vertex texture cache with the texture_cache.*
 * geometry (texture_cache.<fragment.processors>, as a unified-shader design would have). */
typedef struct {
    gpu *g;
    shader_core *cores; /* the Vertex Processors */
    uint32_t ncores, threads;
    tbr_cache *tc; /* NULL: l2 path */
    int port;      /* memsys port (l2 path) */
    tex_req *req;  /* per (processor, thread slot): id = processor * threads + slot */
    uint32_t *fifo, head, count, cap;
    uint32_t outstanding;
    tbr_stat *requests, *texels, *samples, *lines, *nolines, *wait_cycles;
} vtex_unit;

/* ---- Instruction cache (texture_unit.c): shared by the processors of one kind ---- */
typedef struct {
    gpu *g;
    tbr_cache *ic; /* inst_cache.<i> */
    char name[32];
    struct ic_wait {
        shader_core *core;
        uint32_t slot;
        uint64_t line;
    } * w;
    uint32_t nw, capw;
    tbr_stat *hits;   /* fetches that found their line (served by the pipelined fetch) */
    tbr_stat *misses; /* fetches that blocked their thread on a missing line */
    /* lines known present (line + 1, direct-mapped by line) while the cache has installed
   * nothing since (installs == memo_installs): a hit without the lookup */
    uint64_t memo[8], memo_installs;
    const uint64_t *installs;
} icache_unit;

typedef struct {
    uint32_t *prims;
    uint32_t n, cap;
} tile_list;

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
    uint32_t *prim_attr_off; /* per frame prim: offset of its attributes */
    uint32_t cap_prim;
    tile_list *lists; /* per tile of the pass */
    uint32_t ntiles, cap_tiles;
    int port;
    uint64_t progress; /* events that moved work forward (deadlock watchdog) */
    tbr_stat *busy, *stall, *idle, *bins, *culled, *pb_bytes;
} plb_unit;

/* ---- Tile Fetcher ---- */
typedef struct {
    uint32_t marker; /* 0 = primitive entry, else the TOK_BEGIN/TOK_END token to push */
    bool ptr_done;
    uint32_t tile, ru, prim, nattrs, pending, sent;
} pt_entry;

typedef struct {
    uint32_t *order;
    uint32_t norder, cap_order; /* tile schedule */
    uint32_t cur;               /* index in order of the tile being fetched */
    uint32_t pos;               /* next primitive of the current tile */
    bool began;                 /* BEGIN pushed for the current tile */
    pt_entry *pt;
    uint32_t npt;                                   /* Primitive Table entries (thesis §4.1.2: 16) */
    uint32_t ring_cap, pt_head, pt_count, pt_prims; /* in-order ring: entries + tile markers */
    uint32_t ru_of_cur;
    uint32_t dispatch_wait; /* cycles spent in the tile dispatch hook (e.g. RE compares signatures) */
    int ptr_reg;            /* PT entry waiting to send its pointer request, -1 none */
    sim_queue attr_wait;    /* PT entries whose attribute requests are pending issue */
    tbr_cache *tcache;
    uint64_t next_id;
    tbr_stat *busy, *stall, *idle, *ptr_reqs, *attr_reqs, *pt_full;
} tile_fetcher;

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
    const tbr_config *cfg;
    tbr_stats *st;
    memsys *mem;
    sim_func fn;
    const sim_frame *frame;
    size_t pass;
    uint64_t now;
    /* Idle-cycle skipping (docs/timing-model.md "Skipping quiescent cycles"): the ticks of
   * one loop iteration simulate the ncyc cycles [now, now + ncyc); ncyc > 1 only when
   * every unit reported (its *_next_event) that nothing changes before now + ncyc, so
   * the units only count those cycles (busy/stall/idle counters, occupancy samples). */
    uint64_t ncyc;
    bool skip_idle;                 /* false: tick every cycle (tbr-sim --no-skip) */
    uint64_t skipped_cycles;        /* cycles simulated as part of a quiescent span (not a statistic) */
    uint32_t probe_gap, probe_wait; /* busy: the next events are asked only every probe_gap cycles */
    unsigned tile_w, tile_h, tiles_x, tiles_y;
    geometry_unit geo;
    plb_unit plb;
    tile_fetcher tf;
    raster_unit *ru;
    uint32_t nru;
    uint32_t tiles_total_pass;
    /* parameters read once */
    uint32_t cp_cycles, bytes_per_attr, plb_tpc, raster_qpc, raster_setup, attrs_pc, ez_qpc, blend_qpc;
    uint32_t zlat, clat, lat_alu, issue_width, fp_threads, vp_threads;
    bool tf_pipelined;
    int order_kind;
    uint32_t lat_cls[SC_NCLASS]; /* shader.lat_alu / lat_sfu / lat_tex / lat_ctrl */
    uint32_t ntex_units;         /* texture caches created so far (global index) */
    bool icache_on;              /* instruction fetch modeled (executed streams only) */
    uint32_t nicu;               /* 1 shared or 2 instruction caches */
    icache_unit icu[2];          /* 0: vertex processors, 1: fragment processors (nicu = 2) */
    tbr_stat *tex_requests, *tex_texels, *tex_samples, *tex_lines, *tex_nolines, *tex_wait_cycles, *instr_streamed,
        *instr_static;
    /* stats */
    tbr_stat *cyc_total, *cyc_geom, *cyc_tiling, *cyc_raster, *frames, *passes, *draws, *prims;
    tbr_stat *q_raster, *q_ztested, *q_zkilled, *q_late_z, *q_shaded, *q_blended, *frag_blended, *tiles;
    tbr_stat *tile_cycles, *mask_mismatch, *tile_loads, *tile_flush_lines;
    bool restore_used;                    /* tile.restore = used */
    bool pass_loads_color, pass_loads_zs; /* the current pass loads uncleared color / zs planes */
    /* Research techniques (techniques/technique.h): RE, TE, PTR and the ones to come plug
     * in at the hook points the units call; their state and statistics are their own. */
    tbr_techniques tech;
    const su_frame_data *sufd; /* set per frame by the driver (sim_main): RE's payload CRCs */
    tbr_stat **ru_tiles, **ru_active;
    tile_stats tiles_data; /* per-tile statistics (tiles.json) */
    /* Energy accounting (sim_energy.c, docs/energy-model.md) */
    tbr_energy *en;
    tbr_energy_unit *eu_setup, *eu_raster, *eu_depth, *eu_color, *eu_ztest, *eu_noc;
    uint64_t en_qpl_z, en_qpl_c; /* quad accesses of the depth / color buffer per memory line */
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
uint64_t tf_next_event(const gpu *g);
uint64_t ru_next_event(const gpu *g, const raster_unit *r);
uint64_t tex_unit_next_event(const gpu *g, const tex_unit *u);
uint64_t icache_next_event(const gpu *g, const icache_unit *u);
/* min helper for the *_next_event functions: a time <= now ends the search */
#define GPU_EVENT_AT(ne, now, t)                                                                                       \
    do {                                                                                                               \
        uint64_t t_ = (t);                                                                                             \
        if (t_ <= (now)) return (now);                                                                                 \
        if (t_ < (ne)) (ne) = t_;                                                                                      \
    } while (0)

/* texture_unit.c */
void tex_unit_init(gpu *g, tex_unit *u, shader_core *core);
void tex_unit_free(tex_unit *u);
void tex_unit_tick(gpu *g, tex_unit *u);
bool tex_unit_idle(const tex_unit *u);
void vtex_unit_init(gpu *g, vtex_unit *u, shader_core *cores, uint32_t ncores, uint32_t threads);
void vtex_unit_free(vtex_unit *u);
void vtex_unit_tick(gpu *g, vtex_unit *u);
bool vtex_unit_idle(const vtex_unit *u);
uint64_t vtex_unit_next_event(const gpu *g, const vtex_unit *u);
void icache_init(gpu *g, icache_unit *u, uint32_t idx);
void icache_free(icache_unit *u);
void icache_attach(icache_unit *u, shader_core *core);
void icache_tick(gpu *g, icache_unit *u);
bool icache_idle(const icache_unit *u);
void texture_stats_init(gpu *g);

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
void tf_init(gpu *g);
void tf_free(gpu *g);
void tf_begin_pass(gpu *g);
void tf_tick(gpu *g);
bool tf_done(const gpu *g);
void tile_schedule_order(int kind, unsigned tx, unsigned ty, uint32_t *out);
void ru_init(gpu *g, raster_unit *r, uint32_t id);
void ru_free(raster_unit *r);
void ru_tick(gpu *g, raster_unit *r);
void ru_fold_stats(raster_unit *r); /* end of the raster phase: queue occupancies into their stats */
bool ru_idle(const raster_unit *r);

#endif
