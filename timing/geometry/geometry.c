/* Geometry pipeline of tbr-sim (thesis §2.2, Fig. 2.x "Geometry Pipeline"; Table 4.1):
 * Command Processor -> Vertex Fetcher (+ Vertex Cache) -> vertex input queue -> Vertex
 * Processors -> vertex output queue -> Primitive Assembly -> primitive queue -> Polygon
 * List Builder (plb.c).
 *
 * With VERTICES records (docs/trace-records.md, schema minor 1) the work items of a
 * draw are its VS groups (up to 4 vertices): the Vertex Fetcher requests each group's
 * distinct vertex-buffer lines (fetch layout + indices -> resource addresses, mapped in
 * sim_trace.c) through the Vertex Cache, and a Vertex Processor thread runs the group's
 * executed VS stream (PATH). Without them (older traces) the vertex work of a draw is
 * DRAW.count * instance_count vertices, each fetching nr_attrs (of the draw's first
 * PRIM) * vertex_fetch.bytes_per_attr bytes from a per-draw window of the vertex-buffer
 * region, and running vs num_instructions instructions. Primitive Assembly emits the
 * draw's recorded PRIMs (those that reached softpipe's setup) as the proportional
 * number of work items has arrived. */
#include <stdlib.h>
#include <string.h>

#include "geometry/geometry.h"
#include "core/util.h"

#include <stdio.h>

int geometry_init(geometry_unit *ge, sim_env *env, icache_unit *icache, shader_pool *pool, char *err, size_t errlen)
{
    memset(ge, 0, sizeof *ge);
    ge->env = env;
    ge->cp_cycles = (uint32_t)tbr_cfg_uint(env->cfg, "cp.cycles_per_draw");
    ge->bytes_per_attr = (uint32_t)tbr_cfg_uint(env->cfg, "vertex_fetch.bytes_per_attr");
    ge->index_fetch = tbr_cfg_bool(env->cfg, "vertex_fetch.indices");
    tbr_cache_params p;
    tbr_cache_params_from_config(env->cfg, "vertex_cache", "vertex_cache", &p);
    ge->vcache = tbr_cache_new(&p, env->st, err, errlen);
    if (!ge->vcache) return -1;
    if (memsys_add_cache_port(env->mem, "vertex_cache", ge->vcache) < 0)
        return memsys_port_error("vertex_cache", err, errlen);
    simq_init(&ge->vertex_in, (uint32_t)tbr_cfg_uint(env->cfg, "queue.vertex_in"));
    simq_init(&ge->vertex_out, (uint32_t)tbr_cfg_uint(env->cfg, "queue.vertex_out"));
    simq_init(&ge->prim_q, (uint32_t)tbr_cfg_uint(env->cfg, "queue.primitive"));
    ge->pa_rate = tbr_cfg_double(env->cfg, "prim_assembly.tris_per_cycle");
    uint32_t threads = env->shader.vp_threads;
    ge->pool = pool;
    if (pool) { /* unified: the pool's cores, its thread budget (shader_pool.h) */
        ge->nvp = pool->ncores;
        ge->vp = shader_pool_contexts(pool, SP_CLIENT_VERTEX);
        threads = pool->threads;
    } else {
        ge->nvp = (uint32_t)tbr_cfg_uint(env->cfg, "vertex.processors");
        ge->vp = tbr_xcalloc(ge->nvp, sizeof *ge->vp);
    }
    for (uint32_t i = 0; i < ge->nvp; i++) {
        if (!pool) {
            char name[32];
            snprintf(name, sizeof name, "vp%u", i);
            sc_init(&ge->vp[i], threads, env->shader.issue_width, env->shader.lat_alu, env->st, name);
            sc_set_latencies(&ge->vp[i], env->shader.lat_cls);
        }
        icache_attach(icache, &ge->vp[i]);
    }
    simq_init(&ge->vp_order, ge->nvp * threads + 1);
    if (vtex_unit_init(&ge->vt, env, ge->vp, ge->nvp, threads, err, errlen)) return -1;
    ge->cp_busy = tbr_stats_counter(env->st, "cp.busy_cycles", "Command Processor cycles decoding draws");
    ge->vf_busy = tbr_stats_counter(env->st, "vf.busy_cycles", "Vertex Fetcher cycles that sent a request");
    ge->vf_stall = tbr_stats_counter(env->st, "vf.stall_cycles",
                                     "Vertex Fetcher cycles blocked (cache queue or vertex queue full)");
    ge->pa_busy = tbr_stats_counter(env->st, "pa.busy_cycles", "Primitive Assembly cycles that emitted a primitive");
    ge->pa_stall =
        tbr_stats_counter(env->st, "pa.stall_cycles", "Primitive Assembly cycles blocked by a full primitive queue");
    ge->verts = tbr_stats_counter(env->st, "geometry.vertices", "vertices fetched and shaded");
    ge->vf_index_lines = tbr_stats_counter(env->st, "vf.index_lines",
                                           "index-buffer lines the Vertex Fetcher requested (vertex_fetch.indices)");
    tbr_occupancy_init(&ge->qocc_vin,
                       tbr_stats_average(env->st, "queue.vertex_in.occupancy", "vertex input queue entries per cycle"));
    tbr_occupancy_init(&ge->qocc_vout, tbr_stats_average(env->st, "queue.vertex_out.occupancy",
                                                         "vertex output queue entries per cycle"));
    tbr_occupancy_init(&ge->qocc_prim,
                       tbr_stats_average(env->st, "queue.primitive.occupancy", "primitive queue entries per cycle"));
    return 0;
}

void geometry_free(geometry_unit *ge)
{
    vtex_unit_free(&ge->vt);
    if (!ge->pool) { /* (the pool frees its own) */
        for (uint32_t i = 0; i < ge->nvp; i++) sc_free(&ge->vp[i]);
        free(ge->vp);
    }
    simq_free(&ge->vertex_in);
    simq_free(&ge->vertex_out);
    simq_free(&ge->prim_q);
    simq_free(&ge->vp_order);
    free(ge->vf_lines_left);
    tbr_cache_free(ge->vcache);
}

void geometry_reset(geometry_unit *ge)
{
    geometry_begin_pass(ge);
    ge->cp_busy_until = 0;
    ge->vf_draw = ge->vf_nverts = ge->vf_sent_lines = ge->vf_lines_per_vert = 0;
    ge->vf_done_head = ge->vf_outstanding = ge->vf_pushed = 0;
    ge->vf_groups = false;
    ge->vf_first_group = ge->vf_g = ge->vf_l = 0;
    if (ge->vf_lines_left) memset(ge->vf_lines_left, 0, ge->vf_cap * sizeof *ge->vf_lines_left);
    ge->vf_idx_lines = ge->vf_idx_period = 0;
    ge->vf_idx_base = 0;
    tbr_cache_reset(ge->vcache);
    simq_reset(&ge->vertex_in);
    simq_reset(&ge->vertex_out);
    simq_reset(&ge->prim_q);
    simq_reset(&ge->vp_order);
    if (!ge->pool) /* (the pool resets its own) */
        for (uint32_t i = 0; i < ge->nvp; i++) sc_reset(&ge->vp[i]);
    ge->vp_rr = 0;
    vtex_unit_reset(&ge->vt);
    ge->pa_need_prims = ge->pa_need_nv = ge->pa_need_nprims = 0;
    ge->pa_need = 0;
    ge->last_prim_cycle = ge->progress = 0;
    tbr_occupancy_reset(&ge->qocc_vin);
    tbr_occupancy_reset(&ge->qocc_vout);
    tbr_occupancy_reset(&ge->qocc_prim);
}

void geometry_begin_pass(geometry_unit *ge)
{
    ge->next_draw = 0;
    ge->cp_has_draw = false;
    ge->vf_active = false;
    ge->pa_draw = 0;
    ge->pa_verts = ge->pa_prims = 0;
    ge->pa_credit = 0;
}

/* Work items of a draw: its VS groups when VERTICES records exist, else its vertices. */
static uint32_t draw_verts(const sim_draw *d)
{
    if (d->nvgroups) return d->nvgroups;
    uint64_t n = (uint64_t)d->rec.count * (d->rec.instance_count ? d->rec.instance_count : 1);
    return n > 0x3fffffff ? 0x3fffffff : (uint32_t)n;
}

/* Vertices Primitive Assembly must have received before it can emit the draw's next
 * primitive (pa_prims + 1 of nprims, spread evenly over the nv vertices). */
static uint64_t pa_vertices_needed(uint32_t pa_prims, uint32_t nv, uint32_t nprims)
{
    return ((uint64_t)(pa_prims + 1) * nv + nprims - 1) / nprims;
}

static uint64_t pa_vertices_needed_memo(geometry_unit *ge, uint32_t nv, uint32_t nprims)
{
    if (ge->pa_need_prims != ge->pa_prims || ge->pa_need_nv != nv || ge->pa_need_nprims != nprims) {
        ge->pa_need = pa_vertices_needed(ge->pa_prims, nv, nprims);
        ge->pa_need_prims = ge->pa_prims;
        ge->pa_need_nv = nv;
        ge->pa_need_nprims = nprims;
    }
    return ge->pa_need;
}

/* Index fetch: the first index line group g (of the draw's G) requests; group g reads
 * lines [idx_first(g), idx_first(g + 1)), so the lines go out in order, spread evenly. */
static uint32_t idx_first(const geometry_unit *ge, uint32_t g)
{
    return (uint32_t)(((uint64_t)g * ge->vf_idx_lines + ge->vf_nverts - 1) / ge->vf_nverts);
}

/* Lines group g requests: its index lines, then its vertex-buffer lines. */
static uint32_t group_lines(const geometry_unit *ge, const sim_vgroup *vg, uint32_t g)
{
    return vg->nlines + (ge->vf_idx_lines ? idx_first(ge, g + 1) - idx_first(ge, g) : 0);
}

/* Mirrors geometry_tick's decisions: every case that moves work (or changes state, like
 * Primitive Assembly's credit before it saturates) is an event now; the quiescent cases
 * are the ones that only count (a stalled request, a full queue, the Command Processor's
 * decode time, the processors' latencies). */
uint64_t geometry_next_event(const geometry_unit *ge)
{
    const sim_env *env = ge->env;
    const sim_frame *f = env->frame;
    const sim_pass *ps = &f->passes[env->pass];
    uint64_t now = env->now, ne = UINT64_MAX;
    GPU_EVENT_AT(ne, now, vtex_unit_next_event(&ge->vt));
    /* Primitive Assembly */
    double rate = ge->pa_rate, credit = ge->pa_credit + rate;
    if (credit > rate + 1) credit = rate + 1;
    if (credit != ge->pa_credit) return now;
    if (ge->pa_draw < ps->ndraws) {
        const sim_draw *d = &f->draws[ps->first_draw + ge->pa_draw];
        uint32_t nv = draw_verts(d);
        if (ge->pa_verts < nv) GPU_EVENT_AT(ne, now, simq_head_ready(&ge->vertex_out));
        if (ge->pa_prims < d->nprims && credit >= 1) {
            uint64_t need = pa_vertices_needed(ge->pa_prims, nv, d->nprims);
            if (ge->pa_verts >= need && !simq_full(&ge->prim_q)) return now;
        }
        if (ge->pa_verts == nv && ge->pa_prims == d->nprims) return now;
    }
    /* Vertex Processors: in-order retirement, issue, dispatch */
    if (ge->vp_order.count && !simq_full(&ge->vertex_out)) {
        uint64_t t = simq_head_ready(&ge->vp_order), done = sc_done_time(&ge->vp[ge->vp_order.buf[ge->vp_order.head]]);
        GPU_EVENT_AT(ne, now, t > done ? t : done);
    }
    for (uint32_t i = 0; i < ge->nvp; i++) GPU_EVENT_AT(ne, now, sc_next_event(&ge->vp[i], now));
    if (ge->vertex_in.count) {
        bool can = false;
        for (uint32_t i = 0; i < ge->nvp && !can; i++) can = sc_can_accept(&ge->vp[i]);
        if (can) GPU_EVENT_AT(ne, now, simq_head_ready(&ge->vertex_in));
    }
    /* Vertex Fetcher */
    GPU_EVENT_AT(ne, now, tbr_memq_head_ready(tbr_cache_resp_out(ge->vcache)));
    if (ge->vf_active) {
        bool req_full = tbr_memq_full(tbr_cache_req_in(ge->vcache));
        if (ge->vf_done_head == ge->vf_nverts && !ge->vf_outstanding) return now;
        if (ge->vf_groups) {
            if (ge->vf_done_head < ge->vf_nverts && ge->vf_lines_left[ge->vf_done_head] == 0 &&
                ge->vf_done_head < ge->vf_g && !simq_full(&ge->vertex_in))
                return now;
            if (ge->vf_g < ge->vf_nverts &&
                (group_lines(ge, &f->vgroups[ge->vf_first_group + ge->vf_g], ge->vf_g) == 0 || !req_full))
                return now;
        } else {
            if (ge->vf_done_head < ge->vf_nverts && ge->vf_lines_left[ge->vf_done_head] == 0 &&
                ge->vf_done_head < ge->vf_sent_lines / ge->vf_lines_per_vert && !simq_full(&ge->vertex_in))
                return now;
            if (ge->vf_sent_lines < ge->vf_nverts * ge->vf_lines_per_vert && !req_full) return now;
        }
    }
    /* Command Processor */
    if (!ge->cp_has_draw && ge->next_draw < ps->ndraws) return now;
    if (ge->cp_has_draw) {
        if (now < ge->cp_busy_until)
            GPU_EVENT_AT(ne, now, ge->cp_busy_until);
        else if (!ge->vf_active)
            return now;
    }
    GPU_EVENT_AT(ne, now, tbr_cache_next_event(ge->vcache, now));
    return ne;
}

/* Primitive Assembly (prim_assembly.tris_per_cycle, thesis Table 4.1): takes shaded vertices in order, emits the draw's primitives as their vertices arrive. */
static inline __attribute__((always_inline)) void pa_tick(geometry_unit *ge)
{
    const sim_env *env = ge->env;
    const uint64_t n = env->ncyc;
    const sim_frame *f = env->frame;
    const sim_pass *ps = &f->passes[env->pass];
    uint64_t now = env->now;
    double rate = ge->pa_rate;
    ge->pa_credit += rate;
    if (ge->pa_credit > rate + 1) ge->pa_credit = rate + 1;
    bool pa_emitted = false, pa_blocked = false;
    while (ge->pa_draw < ps->ndraws) {
        const sim_draw *d = &f->draws[ps->first_draw + ge->pa_draw];
        uint32_t nv = draw_verts(d);
        uint32_t tok;
        for (int k = 0; k < 4 && ge->pa_verts < nv && simq_peek(&ge->vertex_out, now, &tok); k++) {
            simq_pop(&ge->vertex_out);
            ge->pa_verts++;
            ge->progress++;
        }
        while (ge->pa_prims < d->nprims && ge->pa_credit >= 1) {
            if (ge->pa_verts < pa_vertices_needed_memo(ge, nv, d->nprims)) break;
            if (!simq_push(&ge->prim_q, d->first_prim + ge->pa_prims, now + 1)) {
                pa_blocked = true;
                break;
            }
            ge->pa_prims++;
            ge->pa_credit -= 1;
            ge->progress++;
            pa_emitted = true;
            ge->last_prim_cycle = now;
        }
        if (ge->pa_verts == nv && ge->pa_prims == d->nprims) {
            ge->pa_draw++;
            ge->pa_verts = ge->pa_prims = 0;
            ge->progress++;
            continue;
        }
        break;
    }
    if (pa_emitted)
        tbr_stat_inc(ge->pa_busy);
    else if (pa_blocked)
        tbr_stat_add(ge->pa_stall, n);
}

/* Vertex Processors: in-order retirement across processors, then dispatch of the next work item (round robin). */
static inline __attribute__((always_inline)) void vp_tick(geometry_unit *ge)
{
    const sim_env *env = ge->env;
    const uint64_t n = env->ncyc;
    const sim_frame *f = env->frame;
    uint64_t now = env->now;
    uint32_t vpi;
    while (simq_peek(&ge->vp_order, now, &vpi)) {
        uint32_t tok;
        if (!sc_peek_done(&ge->vp[vpi], now, &tok)) break;
        if (!simq_push(&ge->vertex_out, tok, now + 1)) break;
        sc_pop_done(&ge->vp[vpi]);
        simq_pop(&ge->vp_order);
        ge->progress++;
    }
    if (!ge->pool) /* (unified: the pool issues, shader_pool_tick) */
        for (uint32_t i = 0; i < ge->nvp; i++) sc_tick_n(&ge->vp[i], now, n);
    vtex_unit_tick(&ge->vt);
    uint32_t tok;
    if (simq_peek(&ge->vertex_in, now, &tok)) {
        for (uint32_t k = 0; k < ge->nvp; k++) {
            uint32_t i = (ge->vp_rr + k) % ge->nvp;
            if (ge->pool ? !shader_pool_may_dispatch(ge->pool, SP_CLIENT_VERTEX, i) : !sc_can_accept(&ge->vp[i]))
                continue;
            if (tok & VTOK_GROUP) {
                const sim_vgroup *vg = &f->vgroups[tok & ~VTOK_GROUP];
                if (vg->path) {
                    const sim_path *pa = &f->paths[vg->path - 1];
                    sc_dispatch_stream(&ge->vp[i], tok, f->pcls + pa->first, f->ppc + pa->first, pa->n, pa->code, now);
                    tbr_stat_inc(env->instr_streamed);
                } else {
                    sc_dispatch(&ge->vp[i], tok, f->draws[vg->draw].vs_instructions, now);
                    tbr_stat_inc(env->instr_static);
                }
            } else {
                sc_dispatch(&ge->vp[i], tok, f->draws[tok].vs_instructions, now);
                tbr_stat_inc(env->instr_static);
            }
            simq_push(&ge->vp_order, i, now + 1);
            simq_pop(&ge->vertex_in);
            ge->vp_rr = (i + 1) % ge->nvp;
            ge->progress++;
            break;
        }
    }
}

/* The Vertex Fetcher's request of the cycle for a draw with index lines: group vf_g's
 * index lines, then its vertex-buffer lines (the plain path below without them). */
static void vf_send_indexed(geometry_unit *ge)
{
    const sim_env *env = ge->env;
    const sim_frame *f = env->frame;
    while (ge->vf_g < ge->vf_nverts && group_lines(ge, &f->vgroups[ge->vf_first_group + ge->vf_g], ge->vf_g) == 0) {
        ge->vf_g++;
        ge->vf_l = 0;
    }
    if (ge->vf_g >= ge->vf_nverts) return;
    const sim_vgroup *vg = &f->vgroups[ge->vf_first_group + ge->vf_g];
    uint32_t i0 = idx_first(ge, ge->vf_g), ni = idx_first(ge, ge->vf_g + 1) - i0;
    uint64_t idx_line = ge->vf_idx_base + (i0 + ge->vf_l) % ge->vf_idx_period;
    uint64_t addr =
        ge->vf_l < ni ? ADDR_INDEX_BASE + idx_line * 64 % ADDR_INDEX_SPAN : f->lines[vg->first_line + ge->vf_l - ni];
    tbr_mem_msg rq = {.addr = addr, .id = ge->vf_g, .issued = env->now, .ready = env->now};
    if (!tbr_memq_push(tbr_cache_req_in(ge->vcache), &rq)) {
        tbr_stat_add(ge->vf_stall, env->ncyc);
        return;
    }
    if (ge->vf_l < ni) tbr_stat_inc(ge->vf_index_lines);
    if (++ge->vf_l == ni + vg->nlines) {
        ge->vf_g++;
        ge->vf_l = 0;
    }
    ge->vf_outstanding++;
    tbr_stat_inc(ge->vf_busy);
    ge->progress++;
}

/* Vertex Fetcher: responses, in-order hand-off of complete vertices (or VS groups), one line request per cycle. */
static inline __attribute__((always_inline)) void vf_tick(geometry_unit *ge)
{
    const sim_env *env = ge->env;
    const uint64_t n = env->ncyc;
    const sim_frame *f = env->frame;
    uint64_t now = env->now;
    const tbr_mem_msg *m;
    tbr_memq *resp = tbr_cache_resp_out(ge->vcache);
    while ((m = tbr_memq_peek(resp, now))) {
        if (ge->vf_active && m->id < ge->vf_nverts && ge->vf_lines_left[m->id]) ge->vf_lines_left[m->id]--;
        if (ge->vf_outstanding) ge->vf_outstanding--;
        tbr_memq_pop(resp);
        ge->progress++;
    }
    if (ge->vf_active && ge->vf_groups) {
        /* VERTICES: each VS group's distinct vertex-buffer lines (resource address map) */
        while (ge->vf_done_head < ge->vf_nverts && ge->vf_lines_left[ge->vf_done_head] == 0 &&
               ge->vf_done_head < ge->vf_g) {
            if (!simq_push(&ge->vertex_in, VTOK_GROUP | (ge->vf_first_group + ge->vf_done_head), now + 1)) break;
            tbr_stat_add(ge->verts, f->vgroups[ge->vf_first_group + ge->vf_done_head].n);
            ge->vf_done_head++;
            ge->progress++;
        }
        if (ge->vf_idx_lines) {
            vf_send_indexed(ge);
        } else {
            while (ge->vf_g < ge->vf_nverts && f->vgroups[ge->vf_first_group + ge->vf_g].nlines == 0) {
                ge->vf_g++;
                ge->vf_l = 0;
            }
        }
        if (!ge->vf_idx_lines && ge->vf_g < ge->vf_nverts) {
            const sim_vgroup *vg = &f->vgroups[ge->vf_first_group + ge->vf_g];
            tbr_mem_msg rq = {.addr = f->lines[vg->first_line + ge->vf_l], .id = ge->vf_g, .issued = now, .ready = now};
            if (tbr_memq_push(tbr_cache_req_in(ge->vcache), &rq)) {
                if (++ge->vf_l == vg->nlines) {
                    ge->vf_g++;
                    ge->vf_l = 0;
                }
                ge->vf_outstanding++;
                tbr_stat_inc(ge->vf_busy);
                ge->progress++;
            } else {
                tbr_stat_add(ge->vf_stall, n);
            }
        }
        if (ge->vf_done_head == ge->vf_nverts && !ge->vf_outstanding) ge->vf_active = false;
    } else if (ge->vf_active) {
        while (ge->vf_done_head < ge->vf_nverts && ge->vf_lines_left[ge->vf_done_head] == 0 &&
               ge->vf_done_head < ge->vf_sent_lines / ge->vf_lines_per_vert) {
            if (!simq_push(&ge->vertex_in, ge->vf_draw, now + 1)) break;
            ge->vf_done_head++;
            tbr_stat_inc(ge->verts);
            ge->progress++;
        }
        if (ge->vf_sent_lines < ge->vf_nverts * ge->vf_lines_per_vert) {
            uint32_t v = ge->vf_sent_lines / ge->vf_lines_per_vert, l = ge->vf_sent_lines % ge->vf_lines_per_vert;
            uint64_t bpv = (uint64_t)ge->vf_lines_per_vert * 64;
            /* Wrap inside the vertex span so a frame with many draws never aliases render targets. */
            uint64_t off =
                ((uint64_t)ge->vf_draw * ADDR_VERTEX_WINDOW + (uint64_t)v * bpv + l * 64u) % ADDR_VERTEX_SPAN;
            tbr_mem_msg rq = {.addr = ADDR_VERTEX_BASE + off, .id = v, .issued = now, .ready = now};
            if (tbr_memq_push(tbr_cache_req_in(ge->vcache), &rq)) {
                ge->vf_sent_lines++;
                ge->vf_outstanding++;
                tbr_stat_inc(ge->vf_busy);
                ge->progress++;
            } else {
                tbr_stat_add(ge->vf_stall, n);
            }
        }
        if (ge->vf_done_head == ge->vf_nverts && !ge->vf_outstanding) ge->vf_active = false;
    }
}

/* The draw's index-buffer lines (vertex_fetch.indices): an indexed draw with VERTICES
 * records reads DRAW.count indices of index_size bytes from element DRAW.start, once per
 * instance. The trace does not name the index buffer (docs/trace-records.md VERTICES):
 * each draw of a frame gets a 16 MiB window of the index region, so a draw's lines
 * repeat only within the draw (its instances) and at the same draw of later frames. */
static void index_lines(geometry_unit *ge, const sim_draw *d)
{
    ge->vf_idx_lines = 0;
    if (!ge->index_fetch || !ge->vf_groups || !d->rec.index_size || !d->rec.count || !ge->vf_nverts) return;
    uint64_t a0 = (uint64_t)ge->vf_draw * 0x1000000ull + (uint64_t)d->rec.start * d->rec.index_size;
    uint64_t a1 = a0 + (uint64_t)d->rec.count * d->rec.index_size; /* offsets in the region (wrapping) */
    uint64_t per = (a1 + 63) / 64 - a0 / 64, inst = d->rec.instance_count ? d->rec.instance_count : 1;
    uint64_t total = per * inst, cap = (uint64_t)ge->vf_nverts * 1024; /* (a group's count is 16 bits) */
    ge->vf_idx_base = a0 / 64;
    ge->vf_idx_period = (uint32_t)(per < UINT32_MAX ? per : UINT32_MAX);
    ge->vf_idx_lines = (uint32_t)(total < cap ? total : cap);
}

/* Command Processor: decodes the next draw (cp.cycles_per_draw) and hands it to the Vertex Fetcher. */
static inline __attribute__((always_inline)) void cp_tick(geometry_unit *ge)
{
    const sim_env *env = ge->env;
    const uint64_t n = env->ncyc;
    const sim_frame *f = env->frame;
    const sim_pass *ps = &f->passes[env->pass];
    uint64_t now = env->now;
    if (!ge->cp_has_draw && ge->next_draw < ps->ndraws) {
        ge->cp_has_draw = true;
        ge->cp_busy_until = now + ge->cp_cycles;
        /* RE sec. III-F: the draw's constants reach the Signature Unit with the draw
     * command and are signed while its vertices are fetched and shaded. */
        tbr_techniques_draw_issued(env->tech, ps->first_draw + ge->next_draw);
    }
    if (ge->cp_has_draw) {
        if (now < ge->cp_busy_until)
            tbr_stat_add(ge->cp_busy, n);
        else if (!ge->vf_active) {
            uint32_t di = ps->first_draw + ge->next_draw;
            const sim_draw *d = &f->draws[di];
            ge->vf_draw = di;
            ge->vf_nverts = draw_verts(d);
            ge->vf_groups = d->nvgroups > 0;
            ge->vf_first_group = d->first_vgroup;
            ge->vf_g = ge->vf_l = 0;
            uint32_t attrs = d->nprims ? f->prims[d->first_prim].nr_attrs : 1;
            if (!attrs) attrs = 1;
            ge->vf_lines_per_vert = (attrs * ge->bytes_per_attr + 63) / 64;
            if (ge->vf_nverts > ge->vf_cap) {
                ge->vf_cap = ge->vf_nverts;
                free(ge->vf_lines_left);
                ge->vf_lines_left = tbr_xrealloc(NULL, ge->vf_cap * sizeof *ge->vf_lines_left);
            }
            index_lines(ge, d);
            for (uint32_t v = 0; v < ge->vf_nverts; v++)
                ge->vf_lines_left[v] = ge->vf_groups ? (uint16_t)group_lines(ge, &f->vgroups[d->first_vgroup + v], v)
                                                     : (uint16_t)(uint8_t)ge->vf_lines_per_vert;
            ge->vf_sent_lines = ge->vf_done_head = ge->vf_outstanding = 0;
            ge->vf_active = ge->vf_nverts > 0;
            ge->next_draw++;
            ge->cp_has_draw = false;
            ge->progress++;
        }
    }
}

/* One call simulates env->ncyc cycles; stages run consumers first, so a token moves at
 * most one stage per cycle. */
void geometry_tick(geometry_unit *ge)
{
    const uint64_t n = ge->env->ncyc; /* cycles simulated by this call (> 1: quiescent, sim_env.h) */
    pa_tick(ge);
    vp_tick(ge);
    vf_tick(ge);
    cp_tick(ge);
    tbr_cache_tick_n(ge->vcache, ge->env->now, n);
    tbr_occupancy_sample_n(&ge->qocc_vin, ge->vertex_in.count, n);
    tbr_occupancy_sample_n(&ge->qocc_vout, ge->vertex_out.count, n);
    tbr_occupancy_sample_n(&ge->qocc_prim, ge->prim_q.count, n);
}

void geometry_fold_stats(geometry_unit *ge)
{
    tbr_occupancy_fold(&ge->qocc_vin);
    tbr_occupancy_fold(&ge->qocc_vout);
    tbr_occupancy_fold(&ge->qocc_prim);
}

bool geometry_done(const geometry_unit *ge)
{
    const sim_env *env = ge->env;
    const sim_pass *ps = &env->frame->passes[env->pass];
    if (ge->next_draw < ps->ndraws || ge->cp_has_draw || ge->vf_active || ge->pa_draw < ps->ndraws) return false;
    if (!simq_empty(&ge->vertex_in) || !simq_empty(&ge->vertex_out) || !simq_empty(&ge->vp_order)) return false;
    if (!vtex_unit_idle(&ge->vt)) return false;
    return true;
}
