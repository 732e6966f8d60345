/* Vertex texture unit of tbr-sim. Vertex texturing (VS_TEXELS, docs/timing-model.md "Vertex texturing"): a Vertex
 * Processor's TEX instruction takes its group's next recorded fetch of that pc; the
 * fetch's lines are requested one per cycle, oldest access first, from the L2 (baseline)
 * or the vertex texture cache; the thread continues shader.lat_tex cycles after the last
 * line is back. Without VS_TEXELS a TEX costs shader.lat_tex, as before. */
#include "texture/vertex_texture.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t vtex_issue(void *ctx, shader_core *c, uint32_t slot, uint32_t token, uint32_t ntex, uint32_t pc,
                           uint64_t now)
{
    vtex_unit *u = ctx;
    sim_env *e = u->env;
    const sim_frame *f = e->frame;
    tbr_stat_inc(u->requests);
    const sim_fetch *fe = NULL;
    if (token & VTOK_GROUP) {
        const sim_vgroup *vg = &f->vgroups[token & ~VTOK_GROUP];
        /* a frame without vertex fetches has no array (null + 0 is undefined: fuzz_sim_frame) */
        const sim_fetch *vf = vg->nvfetch ? f->vfetches + vg->first_vfetch : NULL;
        for (uint32_t k = ntex; k < vg->nvfetch && !fe; k++)
            if (vf[k].pc == pc) fe = &vf[k];
        for (uint32_t k = 0; k < vg->nvfetch && k < ntex && !fe; k++) /* the k-th TEX does not match */
            if (vf[k].pc == pc) fe = &vf[k];
    }
    if (!fe || !fe->nlines) {
        tbr_stat_inc(u->nolines);
        return now + e->shader.lat_cls[SIM_CL_TEX];
    }
    tbr_stat_add(u->texels, fe->ntexels);
    tbr_stat_add(u->samples, (fe->ntexels + 3) / 4);
    uint32_t id = (uint32_t)(c - u->cores) * u->threads + slot;
    tex_req *r = &u->req[id];
    r->lines = f->lines + fe->first_line;
    r->nlines = fe->nlines;
    r->sent = r->back = 0;
    r->start = now;
    u->fifo[(u->head + u->count) % u->cap] = id;
    u->count++;
    u->outstanding++;
    return SC_BLOCKED;
}

int vtex_unit_init(vtex_unit *u, sim_env *e, shader_core *cores, uint32_t ncores, uint32_t threads, char *err,
                   size_t errlen)
{
    memset(u, 0, sizeof *u);
    u->env = e;
    u->cores = cores;
    u->ncores = ncores;
    u->threads = threads;
    u->port = -1;
    if (tbr_cfg_enum(e->cfg, "vertex.texture_path") == 1) { /* cache */
        char name[32];
        snprintf(name, sizeof name, "texture_cache.vertex");
        tbr_cache_params p;
        tbr_cache_params_from_config(e->cfg, "texture_cache", name, &p);
        u->tc = tbr_cache_new(&p, e->st, err, errlen);
        if (!u->tc) return -1;
        if (memsys_add_aux_cache_port(e->mem, name, u->tc) < 0) return memsys_port_error(name, err, errlen);
    } else {
        u->port = memsys_add_late_port(e->mem, "vertex_texture", 16);
        if (u->port < 0) return memsys_port_error("vertex_texture", err, errlen);
    }
    u->cap = ncores * threads;
    u->req = tbr_xcalloc(u->cap, sizeof *u->req);
    u->fifo = tbr_xcalloc(u->cap, sizeof *u->fifo);
    for (uint32_t i = 0; i < ncores; i++) {
        cores[i].tex = vtex_issue;
        cores[i].tex_ctx = u;
    }
    tbr_stats *st = e->st;
    u->requests = tbr_stats_counter(st, "vertex_texture.requests",
                                    "TEX instructions executed by the vertex processors (executed streams)");
    u->texels =
        tbr_stats_counter(st, "vertex_texture.texels", "texels read by those TEX instructions (VS_TEXELS records)");
    u->samples = tbr_stats_counter(st, "vertex_texture.bilinear_samples",
                                   "vertex texture filter operations: ceil(texels / 4) per TEX request (energy)");
    u->lines = tbr_stats_counter(
        st, "vertex_texture.line_requests",
        "distinct texture-memory lines requested by vertex TEX instructions (L2 or vertex texture cache)");
    u->nolines = tbr_stats_counter(st, "vertex_texture.requests_without_texels",
                                   "vertex TEX instructions with no recorded texels (no memory access)");
    u->wait_cycles = tbr_stats_counter(st, "vertex_texture.wait_cycles",
                                       "sum over vertex TEX instructions of the cycles their thread was blocked");
    return 0;
}

void vtex_unit_reset(vtex_unit *u)
{
    if (u->tc) tbr_cache_reset(u->tc);
    memset(u->req, 0, u->cap * sizeof *u->req);
    memset(u->fifo, 0, u->cap * sizeof *u->fifo);
    u->head = u->count = u->outstanding = 0;
}

void vtex_unit_free(vtex_unit *u)
{
    tbr_cache_free(u->tc);
    free(u->req);
    free(u->fifo);
    u->tc = NULL;
    u->req = NULL;
    u->fifo = NULL;
}

bool vtex_unit_idle(const vtex_unit *u) { return u->outstanding == 0 && (!u->tc || tbr_cache_idle(u->tc)); }

/* Mirrors vtex_unit_tick: a response becoming visible and a line request that its queue
 * can take are events; a request waiting for room in a full queue has none of its own
 * (the memory system or the cache that drains the queue has one), and in-flight lines
 * are the L2's / the DRAM's / the cache's events. */
uint64_t vtex_unit_next_event(const vtex_unit *u)
{
    const sim_env *e = u->env;
    uint64_t now = e->now, ne = UINT64_MAX;
    if (vtex_unit_idle(u)) return ne;
    const tbr_memq *resp = u->tc ? tbr_cache_resp_out(u->tc) : memsys_resp(e->mem, u->port);
    const tbr_memq *req = u->tc ? tbr_cache_req_in(u->tc) : memsys_req(e->mem, u->port);
    GPU_EVENT_AT(ne, now, tbr_memq_head_ready(resp));
    if (u->count && !tbr_memq_full(req)) return now;
    if (u->tc) GPU_EVENT_AT(ne, now, tbr_cache_next_event(u->tc, now));
    return ne;
}

void vtex_unit_tick(vtex_unit *u)
{
    const sim_env *e = u->env;
    if (vtex_unit_idle(u)) return;
    uint64_t now = e->now;
    tbr_memq *resp = u->tc ? tbr_cache_resp_out(u->tc) : memsys_resp(e->mem, u->port);
    tbr_memq *req = u->tc ? tbr_cache_req_in(u->tc) : memsys_req(e->mem, u->port);
    const tbr_mem_msg *m;
    while ((m = tbr_memq_peek(resp, now))) {
        uint32_t id = (uint32_t)m->id;
        tex_req *r = &u->req[id];
        if (++r->back == r->nlines) {
            tbr_stat_add(u->wait_cycles, now + e->shader.lat_cls[SIM_CL_TEX] - r->start);
            sc_wake(&u->cores[id / u->threads], id % u->threads, now + e->shader.lat_cls[SIM_CL_TEX]);
            u->outstanding--;
        }
        tbr_memq_pop(resp);
    }
    if (u->count) { /* one line request per cycle, oldest access first */
        uint32_t id = u->fifo[u->head];
        tex_req *r = &u->req[id];
        tbr_mem_msg rq = {.addr = r->lines[r->sent], .id = id, .issued = now, .ready = now};
        if (tbr_memq_push(req, &rq)) {
            tbr_stat_inc(u->lines);
            if (++r->sent == r->nlines) {
                u->head = (u->head + 1) % u->cap;
                u->count--;
            }
        }
    }
    if (u->tc) tbr_cache_tick_n(u->tc, now, e->ncyc);
}
