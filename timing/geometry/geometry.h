/* Geometry pipeline (geometry.c; thesis §2.2, Table 4.1): Command Processor, Vertex
 * Fetcher + Vertex Cache, Vertex Processors (+ their texture unit), Primitive Assembly.
 * Ports: the Vertex Cache and the vertex texture path on the memory system, the
 * instruction cache its processors fetch through, and its output, prim_q (primitives for
 * the Polygon List Builder). The Command Processor calls the draw-issue hook. */
#ifndef TBR_GEOMETRY_H
#define TBR_GEOMETRY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sim_queue.h"
#include "memory/cache.h"
#include "shader/icache.h"
#include "shader/shader_core.h"
#include "shader/shader_pool.h"
#include "sim_env.h"
#include "texture/vertex_texture.h"

typedef struct {
    sim_env *env;
    uint32_t cp_cycles;      /* cp.cycles_per_draw */
    uint32_t bytes_per_attr; /* vertex_fetch.bytes_per_attr */
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
    /* index fetch (vertex_fetch.indices, docs/timing-model.md "Index fetch"): the draw's
     * index-buffer lines, spread over its VS groups ahead of their attribute lines */
    bool index_fetch;
    uint32_t vf_idx_lines, vf_idx_period; /* lines of all instances; lines of one instance */
    uint64_t vf_idx_base;                 /* the first line, in lines from ADDR_INDEX_BASE (wrapping) */
    tbr_stat *vf_index_lines;
    tbr_cache *vcache;
    sim_queue vertex_in, vertex_out, prim_q;
    /* Vertex Processors */
    shader_core *vp;   /* its own, or the unified pool's vertex contexts (pool != NULL) */
    shader_pool *pool; /* unified shader cores: dispatch asks the pool for a grant, the pool issues */
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

/* icache: the instruction cache the Vertex Processors fetch through; pool: the unified
 * shader cores the vertex work runs on (NULL: its own vertex.processors). -1 with err. */
int geometry_init(geometry_unit *ge, sim_env *env, icache_unit *icache, shader_pool *pool, char *err, size_t errlen);
void geometry_free(geometry_unit *ge);
void geometry_begin_pass(geometry_unit *ge);
/* Nothing in flight, caches and queues empty: the state geometry_init left (gpu_reset). */
void geometry_reset(geometry_unit *ge);
void geometry_tick(geometry_unit *ge);
/* end of the geometry phase: queue occupancies into their statistics */
void geometry_fold_stats(geometry_unit *ge);
bool geometry_done(const geometry_unit *ge);
uint64_t geometry_next_event(const geometry_unit *ge);

#endif
