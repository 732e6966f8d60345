/* Texture units and instruction caches of tbr-sim (thesis §2.2, §4.1, Table 4.1;
 * ATTILA §4: a thread blocks on its texture access, other threads hide the latency).
 * docs/timing-model.md "Texture unit" / "Instruction caches".
 *
 * Texture unit (one per Fragment Processor): a TEX instruction of an executed stream
 * (PATH) takes the quad's next recorded fetch (TEXELS) of that pc; its texels were
 * mapped to distinct memory lines when the frame was loaded (sim_trace.c, texture.layout).
 * The unit sends the lines to the processor's Texture Cache, one line request per cycle,
 * in issue order; when the last line is back the thread continues shader.lat_tex
 * cycles later (address + filtering). A TEX with no recorded texels (trace without
 * TEXELS, border texels only) costs shader.lat_tex without memory access.
 *
 * Instruction cache (one for the vertex and one for the fragment processors): every
 * instruction of an executed stream is fetched at code(shader) + 16 * pc. A line
 * present in the cache is a hit with no extra delay (fetch is pipelined ahead of issue);
 * a missing line blocks the thread and is requested through the cache (L2 -> DRAM),
 * waking every thread waiting for it on the fill. */
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

void texture_stats_init(gpu *g)
{
    tbr_stats *st = g->st;
    g->tex_requests = tbr_stats_counter(st, "texture.requests",
                                        "TEX instructions executed by the fragment processors (executed streams)");
    g->tex_texels = tbr_stats_counter(st, "texture.texels", "texels read by those TEX instructions (TEXELS records)");
    g->tex_samples = tbr_stats_counter(st, "texture.bilinear_samples",
                                       "texture-unit filter operations: ceil(texels / 4) per TEX request (energy)");
    g->tex_lines = tbr_stats_counter(st, "texture.line_requests",
                                     "distinct texture-memory lines requested from the texture caches (per TEX)");
    g->tex_nolines = tbr_stats_counter(st, "texture.requests_without_texels",
                                       "TEX instructions with no recorded texels (no memory access)");
    g->tex_wait_cycles = tbr_stats_counter(st, "texture.wait_cycles",
                                           "sum over TEX instructions of the cycles their thread was blocked");
    g->instr_streamed = tbr_stats_counter(st, "shader.items_executed_stream",
                                          "work items run from their executed instruction stream (PATH)");
    g->instr_static = tbr_stats_counter(st, "shader.items_static_count",
                                        "work items run as the shader's static instruction count (no PATH)");
}

static uint64_t tex_issue(void *ctx, shader_core *c, uint32_t slot, uint32_t token, uint32_t ntex, uint32_t pc,
                          uint64_t now)
{
    tex_unit *u = ctx;
    gpu *g = u->g;
    const sim_frame *f = g->frame;
    (void)c;
    tbr_stat_inc(g->tex_requests);
    const sim_quad *q = &f->quads[token];
    const sim_fetch *fe = NULL;
    for (uint32_t k = ntex; k < q->nfetch; k++)
        if (f->fetches[q->first_fetch + k].pc == pc) {
            fe = &f->fetches[q->first_fetch + k];
            break;
        }
    if (!fe) /* the k-th TEX does not match: any fetch of this pc */
        for (uint32_t k = 0; k < q->nfetch && k < ntex; k++)
            if (f->fetches[q->first_fetch + k].pc == pc) {
                fe = &f->fetches[q->first_fetch + k];
                break;
            }
    if (!fe || !fe->nlines) {
        tbr_stat_inc(g->tex_nolines);
        return now + g->lat_cls[SIM_CL_TEX];
    }
    tbr_stat_add(g->tex_texels, fe->ntexels);
    tbr_stat_add(g->tex_samples, (fe->ntexels + 3) / 4);
    tex_req *r = &u->req[slot];
    r->first_line = fe->first_line;
    r->nlines = fe->nlines;
    r->sent = r->back = 0;
    r->start = now;
    u->fifo[(u->head + u->count) % u->cap] = slot;
    u->count++;
    u->outstanding++;
    return SC_BLOCKED;
}

void tex_unit_init(gpu *g, tex_unit *u, shader_core *core)
{
    memset(u, 0, sizeof *u);
    u->g = g;
    u->core = core;
    snprintf(u->name, sizeof u->name, "texture_cache.%u", g->ntex_units++);
    tbr_cache_params p;
    tbr_cache_params_from_config(g->cfg, "texture_cache", u->name, &p);
    char err[256];
    u->tc = tbr_cache_new(&p, g->st, err, sizeof err);
    if (!u->tc) {
        fprintf(stderr, "tbr-sim: texture cache: %s\n", err);
        abort();
    }
    memsys_add_aux_cache_port(g->mem, u->name, u->tc);
    u->cap = core->threads;
    u->req = calloc(u->cap, sizeof *u->req);
    u->fifo = calloc(u->cap, sizeof *u->fifo);
    if (!u->req || !u->fifo) abort();
    core->tex = tex_issue;
    core->tex_ctx = u;
}

void tex_unit_free(tex_unit *u)
{
    tbr_cache_free(u->tc);
    free(u->req);
    free(u->fifo);
    u->tc = NULL;
    u->req = NULL;
    u->fifo = NULL;
}

bool tex_unit_idle(const tex_unit *u) { return u->outstanding == 0 && tbr_cache_idle(u->tc); }

uint64_t tex_unit_next_event(const gpu *g, const tex_unit *u)
{
    uint64_t now = g->now, ne = UINT64_MAX;
    if (!u->outstanding && tbr_cache_idle(u->tc)) return ne;
    GPU_EVENT_AT(ne, now, tbr_memq_head_ready(tbr_cache_resp_out(u->tc)));
    if (u->count && !tbr_memq_full(tbr_cache_req_in(u->tc))) return now;
    GPU_EVENT_AT(ne, now, tbr_cache_next_event(u->tc, now));
    return ne;
}

void tex_unit_tick(gpu *g, tex_unit *u)
{
    if (!u->outstanding && tbr_cache_idle(u->tc)) return;
    uint64_t now = g->now;
    const sim_frame *f = g->frame;
    tbr_memq *resp = tbr_cache_resp_out(u->tc);
    const tbr_mem_msg *m;
    while ((m = tbr_memq_peek(resp, now))) {
        uint32_t slot = (uint32_t)m->id;
        tex_req *r = &u->req[slot];
        if (++r->back == r->nlines) {
            tbr_stat_add(g->tex_wait_cycles, now + g->lat_cls[SIM_CL_TEX] - r->start);
            sc_wake(u->core, slot, now + g->lat_cls[SIM_CL_TEX]);
            u->outstanding--;
        }
        tbr_memq_pop(resp);
    }
    if (u->count) { /* one line request per cycle, oldest access first */
        uint32_t slot = u->fifo[u->head];
        tex_req *r = &u->req[slot];
        tbr_mem_msg rq = {.addr = f->lines[r->first_line + r->sent], .id = slot, .issued = now, .ready = now};
        if (tbr_memq_push(tbr_cache_req_in(u->tc), &rq)) {
            tbr_stat_inc(g->tex_lines);
            if (++r->sent == r->nlines) {
                u->head = (u->head + 1) % u->cap;
                u->count--;
            }
        }
    }
    tbr_cache_tick_n(u->tc, now, g->ncyc);
}

/* ---- instruction caches ---- */
static uint64_t ic_fetch(void *ctx, shader_core *c, uint32_t slot, uint64_t addr, uint64_t now)
{
    icache_unit *u = ctx;
    (void)now;
    uint64_t line = addr / 64 * 64;
    uint64_t *memo = &u->memo[(line / 64) & 7];
    if (*u->installs != u->memo_installs) { /* a line was installed (maybe evicting one) */
        memset(u->memo, 0, sizeof u->memo);
        u->memo_installs = *u->installs;
    } else if (*memo == line + 1) {
        tbr_stat_inc(u->hits);
        return 0;
    }
    bool dirty;
    if (tbr_cache_contains(u->ic, line, &dirty)) {
        *memo = line + 1;
        tbr_stat_inc(u->hits);
        return 0;
    }
    /* miss: request the line (merged by the cache's MSHRs) and block the thread */
    bool pending = false;
    for (uint32_t i = 0; i < u->nw; i++) {
        if (u->w[i].core == c && u->w[i].slot == slot) return SC_BLOCKED; /* already waiting */
        if (u->w[i].line == line) pending = true;
    }
    if (!pending) { /* one request per missing line; later fetches of it wait for the same fill */
        tbr_mem_msg rq = {.addr = line, .id = line, .issued = now, .ready = now};
        if (!tbr_memq_push(tbr_cache_req_in(u->ic), &rq)) return now + 1; /* queue full: retry next cycle */
    }
    tbr_stat_inc(u->misses);
    if (u->nw == u->capw) {
        u->capw = u->capw ? u->capw * 2 : 64;
        u->w = realloc(u->w, u->capw * sizeof *u->w);
        if (!u->w) abort();
    }
    u->w[u->nw++] = (struct ic_wait){c, slot, line};
    return SC_BLOCKED;
}

void icache_init(gpu *g, icache_unit *u, uint32_t idx)
{
    memset(u, 0, sizeof *u);
    u->g = g;
    snprintf(u->name, sizeof u->name, "inst_cache.%u", idx);
    tbr_cache_params p;
    tbr_cache_params_from_config(g->cfg, "inst_cache", u->name, &p);
    char err[256];
    u->ic = tbr_cache_new(&p, g->st, err, sizeof err);
    if (!u->ic) {
        fprintf(stderr, "tbr-sim: instruction cache: %s\n", err);
        abort();
    }
    u->installs = tbr_cache_installs(u->ic);
    memsys_add_aux_cache_port(g->mem, u->name, u->ic);
    u->hits = tbr_stats_counterf(g->st, "instruction fetches whose line was present (pipelined, no delay)",
                                 "%s.fetch_hits", u->name);
    u->misses = tbr_stats_counterf(g->st, "instruction fetches that blocked their thread on a missing line",
                                   "%s.fetch_misses", u->name);
}

void icache_free(icache_unit *u)
{
    tbr_cache_free(u->ic);
    free(u->w);
    u->ic = NULL;
    u->w = NULL;
}

void icache_attach(icache_unit *u, shader_core *core)
{
    core->ifetch = ic_fetch;
    core->ifetch_ctx = u;
}

bool icache_idle(const icache_unit *u) { return u->nw == 0 && tbr_cache_idle(u->ic); }

uint64_t icache_next_event(const gpu *g, const icache_unit *u)
{
    uint64_t now = g->now, ne = UINT64_MAX;
    if (!u->nw && tbr_cache_idle(u->ic)) return ne;
    GPU_EVENT_AT(ne, now, tbr_memq_head_ready(tbr_cache_resp_out(u->ic)));
    GPU_EVENT_AT(ne, now, tbr_cache_next_event(u->ic, now));
    return ne;
}

void icache_tick(gpu *g, icache_unit *u)
{
    if (!u->nw && tbr_cache_idle(u->ic)) return;
    uint64_t now = g->now;
    tbr_memq *resp = tbr_cache_resp_out(u->ic);
    const tbr_mem_msg *m;
    while ((m = tbr_memq_peek(resp, now))) {
        uint64_t line = m->id;
        for (uint32_t i = 0; i < u->nw;) {
            if (u->w[i].line == line) {
                sc_wake(u->w[i].core, u->w[i].slot, now + 1);
                u->w[i] = u->w[--u->nw];
            } else {
                i++;
            }
        }
        tbr_memq_pop(resp);
    }
    tbr_cache_tick_n(u->ic, now, g->ncyc);
}

/* ---- vertex texture unit ----
 * Vertex texturing (VS_TEXELS, docs/timing-model.md "Vertex texturing"): a Vertex
 * Processor's TEX instruction takes its group's next recorded fetch of that pc; the
 * fetch's lines are requested one per cycle, oldest access first, from the L2 (baseline)
 * or the vertex texture cache; the thread continues shader.lat_tex cycles after the last
 * line is back. Without VS_TEXELS a TEX costs shader.lat_tex, as before. */
static uint64_t vtex_issue(void *ctx, shader_core *c, uint32_t slot, uint32_t token, uint32_t ntex, uint32_t pc,
                           uint64_t now)
{
    vtex_unit *u = ctx;
    gpu *g = u->g;
    const sim_frame *f = g->frame;
    tbr_stat_inc(u->requests);
    const sim_fetch *fe = NULL;
    if (token & VTOK_GROUP) {
        const sim_vgroup *vg = &f->vgroups[token & ~VTOK_GROUP];
        const sim_fetch *vf = f->vfetches + vg->first_vfetch;
        for (uint32_t k = ntex; k < vg->nvfetch && !fe; k++)
            if (vf[k].pc == pc) fe = &vf[k];
        for (uint32_t k = 0; k < vg->nvfetch && k < ntex && !fe; k++) /* the k-th TEX does not match */
            if (vf[k].pc == pc) fe = &vf[k];
    }
    if (!fe || !fe->nlines) {
        tbr_stat_inc(u->nolines);
        return now + g->lat_cls[SIM_CL_TEX];
    }
    tbr_stat_add(u->texels, fe->ntexels);
    tbr_stat_add(u->samples, (fe->ntexels + 3) / 4);
    uint32_t id = (uint32_t)(c - u->cores) * u->threads + slot;
    tex_req *r = &u->req[id];
    r->first_line = fe->first_line;
    r->nlines = fe->nlines;
    r->sent = r->back = 0;
    r->start = now;
    u->fifo[(u->head + u->count) % u->cap] = id;
    u->count++;
    u->outstanding++;
    return SC_BLOCKED;
}

void vtex_unit_init(gpu *g, vtex_unit *u, shader_core *cores, uint32_t ncores, uint32_t threads)
{
    memset(u, 0, sizeof *u);
    u->g = g;
    u->cores = cores;
    u->ncores = ncores;
    u->threads = threads;
    u->port = -1;
    if (tbr_cfg_enum(g->cfg, "vertex.texture_path") == 1) { /* cache */
        char name[32];
        snprintf(name, sizeof name, "texture_cache.vertex");
        tbr_cache_params p;
        tbr_cache_params_from_config(g->cfg, "texture_cache", name, &p);
        char err[256];
        u->tc = tbr_cache_new(&p, g->st, err, sizeof err);
        if (!u->tc) {
            fprintf(stderr, "tbr-sim: vertex texture cache: %s\n", err);
            abort();
        }
        memsys_add_aux_cache_port(g->mem, name, u->tc);
    } else {
        u->port = memsys_add_late_port(g->mem, "vertex_texture", 16);
        if (u->port < 0) abort();
    }
    u->cap = ncores * threads;
    u->req = calloc(u->cap, sizeof *u->req);
    u->fifo = calloc(u->cap, sizeof *u->fifo);
    if (!u->req || !u->fifo) abort();
    for (uint32_t i = 0; i < ncores; i++) {
        cores[i].tex = vtex_issue;
        cores[i].tex_ctx = u;
    }
    tbr_stats *st = g->st;
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
uint64_t vtex_unit_next_event(const gpu *g, const vtex_unit *u)
{
    uint64_t now = g->now, ne = UINT64_MAX;
    if (vtex_unit_idle(u)) return ne;
    const tbr_memq *resp = u->tc ? tbr_cache_resp_out(u->tc) : memsys_resp(g->mem, u->port);
    const tbr_memq *req = u->tc ? tbr_cache_req_in(u->tc) : memsys_req(g->mem, u->port);
    GPU_EVENT_AT(ne, now, tbr_memq_head_ready(resp));
    if (u->count && !tbr_memq_full(req)) return now;
    if (u->tc) GPU_EVENT_AT(ne, now, tbr_cache_next_event(u->tc, now));
    return ne;
}

void vtex_unit_tick(gpu *g, vtex_unit *u)
{
    if (vtex_unit_idle(u)) return;
    uint64_t now = g->now;
    const sim_frame *f = g->frame;
    tbr_memq *resp = u->tc ? tbr_cache_resp_out(u->tc) : memsys_resp(g->mem, u->port);
    tbr_memq *req = u->tc ? tbr_cache_req_in(u->tc) : memsys_req(g->mem, u->port);
    const tbr_mem_msg *m;
    while ((m = tbr_memq_peek(resp, now))) {
        uint32_t id = (uint32_t)m->id;
        tex_req *r = &u->req[id];
        if (++r->back == r->nlines) {
            tbr_stat_add(u->wait_cycles, now + g->lat_cls[SIM_CL_TEX] - r->start);
            sc_wake(&u->cores[id / u->threads], id % u->threads, now + g->lat_cls[SIM_CL_TEX]);
            u->outstanding--;
        }
        tbr_memq_pop(resp);
    }
    if (u->count) { /* one line request per cycle, oldest access first */
        uint32_t id = u->fifo[u->head];
        tex_req *r = &u->req[id];
        tbr_mem_msg rq = {.addr = f->lines[r->first_line + r->sent], .id = id, .issued = now, .ready = now};
        if (tbr_memq_push(req, &rq)) {
            tbr_stat_inc(u->lines);
            if (++r->sent == r->nlines) {
                u->head = (u->head + 1) % u->cap;
                u->count--;
            }
        }
    }
    if (u->tc) tbr_cache_tick_n(u->tc, now, g->ncyc);
}
