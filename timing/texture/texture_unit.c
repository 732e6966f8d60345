/* Texture units of tbr-sim (thesis §2.2, §4.1, Table 4.1;
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
 */
#include "texture/texture_unit.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void texture_stats_register(texture_stats *ts, tbr_stats *st)
{
    ts->requests = tbr_stats_counter(st, "texture.requests",
                                     "TEX instructions executed by the fragment processors (executed streams)");
    ts->texels = tbr_stats_counter(st, "texture.texels", "texels read by those TEX instructions (TEXELS records)");
    ts->samples = tbr_stats_counter(st, "texture.bilinear_samples",
                                    "texture-unit filter operations: ceil(texels / 4) per TEX request (energy)");
    ts->lines = tbr_stats_counter(st, "texture.line_requests",
                                  "distinct texture-memory lines requested from the texture caches (per TEX)");
    ts->nolines = tbr_stats_counter(st, "texture.requests_without_texels",
                                    "TEX instructions with no recorded texels (no memory access)");
    ts->wait_cycles = tbr_stats_counter(st, "texture.wait_cycles",
                                        "sum over TEX instructions of the cycles their thread was blocked");
    ts->l2_reads = tbr_stats_counter(st, "texture.l2_reads",
                                     "lines the fragment processors' texture caches read from the L2 (their fills)");
    ts->line_latency = tbr_stats_average(st, "texture.line_latency",
                                         "cycles from a line request leaving the texture unit to its line coming back "
                                         "(local or remote cache, or L2)");
}

static uint64_t tex_issue(void *ctx, shader_core *c, uint32_t slot, uint32_t token, uint32_t ntex, uint32_t pc,
                          uint64_t now)
{
    tex_unit *u = ctx;
    sim_env *e = u->env;
    const sim_frame *f = e->frame;
    (void)c;
    tbr_stat_inc(u->stats->requests);
    uint32_t nfetch;
    const uint64_t *lines;
    const sim_fetch *qf = sim_quad_fetches(f, &e->fn->derived, token, &nfetch, &lines);
    const sim_fetch *fe = NULL;
    for (uint32_t k = ntex; k < nfetch; k++)
        if (qf[k].pc == pc) {
            fe = &qf[k];
            break;
        }
    if (!fe) /* the k-th TEX does not match: any fetch of this pc */
        for (uint32_t k = 0; k < nfetch && k < ntex; k++)
            if (qf[k].pc == pc) {
                fe = &qf[k];
                break;
            }
    if (!fe || !fe->nlines) {
        tbr_stat_inc(u->stats->nolines);
        return now + e->shader.lat_cls[SIM_CL_TEX];
    }
    tbr_stat_add(u->stats->texels, fe->ntexels);
    tbr_stat_add(u->stats->samples, (fe->ntexels + 3) / 4);
    tex_req *r = &u->req[slot];
    r->lines = lines + fe->first_line;
    r->nlines = fe->nlines;
    r->sent = r->back = 0;
    r->start = now;
    u->fifo[(u->head + u->count) % u->cap] = slot;
    u->count++;
    u->outstanding++;
    return SC_BLOCKED;
}

int tex_unit_init(tex_unit *u, sim_env *e, shader_core *core, const texture_stats *stats, uint32_t index, char *err,
                  size_t errlen)
{
    memset(u, 0, sizeof *u);
    u->env = e;
    u->core = core;
    u->stats = stats;
    snprintf(u->name, sizeof u->name, "texture_cache.%u", index);
    tbr_cache_params p;
    tbr_cache_params_from_config(e->cfg, "texture_cache", u->name, &p);
    u->tc = tbr_cache_new(&p, e->st, err, errlen);
    if (!u->tc) return -1;
    if (memsys_add_aux_cache_port(e->mem, u->name, u->tc) < 0) return memsys_port_error(u->name, err, errlen);
    u->node = index;
    u->installs = tbr_cache_installs(u->tc);
    tbr_occupancy_init(&u->line_lat, stats->line_latency);
    u->nuca = e->tex_nuca;
    if (u->nuca) tex_nuca_attach(u->nuca, index, u->tc);
    u->cap = core->threads;
    u->req = tbr_xcalloc(u->cap, sizeof *u->req);
    u->fifo = tbr_xcalloc(u->cap, sizeof *u->fifo);
    core->tex = tex_issue;
    core->tex_ctx = u;
    return 0;
}

void tex_unit_reset(tex_unit *u)
{
    tbr_cache_reset(u->tc);
    u->seen_installs = 0;
    tbr_occupancy_reset(&u->line_lat);
    memset(u->req, 0, u->cap * sizeof *u->req);
    memset(u->fifo, 0, u->cap * sizeof *u->fifo);
    u->head = u->count = u->outstanding = 0;
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

/* The private organisation (the default) keeps the unit's original, lean paths; a NUCA
 * organisation (u->nuca) takes the *_nuca ones. */
static bool nuca_quiet(const tex_unit *u)
{
    return !u->outstanding && tbr_cache_idle(u->tc) && tex_nuca_idle(u->nuca, u->node);
}

bool tex_unit_idle(const tex_unit *u) { return u->nuca ? nuca_quiet(u) : u->outstanding == 0 && tbr_cache_idle(u->tc); }

static uint64_t next_event_nuca(const tex_unit *u, uint64_t now)
{
    uint64_t ne = UINT64_MAX;
    if (nuca_quiet(u)) return ne;
    GPU_EVENT_AT(ne, now, tbr_memq_head_ready(tbr_cache_resp_out(u->tc)));
    GPU_EVENT_AT(ne, now, tex_nuca_next_event(u->nuca, u->node, now));
    if (u->count) return now; /* its request may wait for another node's inbox */
    GPU_EVENT_AT(ne, now, tbr_cache_next_event(u->tc, now));
    return ne;
}

uint64_t tex_unit_next_event(const tex_unit *u)
{
    uint64_t now = u->env->now, ne = UINT64_MAX;
    if (u->nuca) return next_event_nuca(u, now);
    if (!u->outstanding && tbr_cache_idle(u->tc)) return ne;
    GPU_EVENT_AT(ne, now, tbr_memq_head_ready(tbr_cache_resp_out(u->tc)));
    if (u->count && !tbr_memq_full(tbr_cache_req_in(u->tc))) return now;
    GPU_EVENT_AT(ne, now, tbr_cache_next_event(u->tc, now));
    return ne;
}

/* One line of slot m->id is back. */
static inline __attribute__((always_inline)) void line_back(tex_unit *u, const tbr_mem_msg *m, uint64_t now)
{
    const sim_env *e = u->env;
    uint32_t slot = (uint32_t)m->id;
    tex_req *r = &u->req[slot];
    tbr_occupancy_sample_n(&u->line_lat, (uint32_t)(now - m->issued), 1);
    if (++r->back == r->nlines) {
        tbr_stat_add(u->stats->wait_cycles, now + e->shader.lat_cls[SIM_CL_TEX] - r->start);
        sc_wake(u->core, slot, now + e->shader.lat_cls[SIM_CL_TEX]);
        u->outstanding--;
    }
}

/* The oldest access's next line (one line request per cycle, oldest access first) was
 * accepted. */
static inline __attribute__((always_inline)) void line_sent(tex_unit *u, tex_req *r)
{
    tbr_stat_inc(u->stats->lines);
    if (++r->sent == r->nlines) {
        u->head = (u->head + 1) % u->cap;
        u->count--;
    }
}

/* NUCA organisation: the cache's responses are this unit's lines or (src = requester + 1)
 * remote requesters' lines that go back over the mesh; lines also come back over the mesh;
 * requests go where tex_nuca_send puts them. */
static __attribute__((noinline)) void tick_nuca(tex_unit *u, uint64_t now)
{
    if (nuca_quiet(u)) return;
    tex_nuca_tick_node(u->nuca, u->node, now);
    tbr_memq *resp = tbr_cache_resp_out(u->tc);
    const tbr_mem_msg *m;
    while ((m = tbr_memq_peek(resp, now))) {
        if (m->src && !tex_nuca_reply(u->nuca, u->node, m, now)) break;
        if (!m->src) line_back(u, m, now);
        tbr_memq_pop(resp);
    }
    tbr_memq *in = tex_nuca_resp_inbox(u->nuca, u->node);
    while ((m = tbr_memq_peek(in, now))) {
        line_back(u, m, now);
        tbr_memq_pop(in);
    }
    if (u->count) {
        tex_req *r = &u->req[u->fifo[u->head]];
        tbr_mem_msg rq = {.addr = r->lines[r->sent], .id = u->fifo[u->head], .issued = now, .ready = now};
        if (tex_nuca_send(u->nuca, u->node, &rq, now)) line_sent(u, r);
    }
    tbr_cache_tick_n(u->tc, now, u->env->ncyc);
}

void tex_unit_tick(tex_unit *u)
{
    const sim_env *e = u->env;
    uint64_t now = e->now;
    if (u->nuca) {
        tick_nuca(u, now);
        return;
    }
    if (!u->outstanding && tbr_cache_idle(u->tc)) return;
    tbr_memq *resp = tbr_cache_resp_out(u->tc);
    const tbr_mem_msg *m;
    while ((m = tbr_memq_peek(resp, now))) {
        line_back(u, m, now);
        tbr_memq_pop(resp);
    }
    if (u->count) {
        uint32_t slot = u->fifo[u->head];
        tex_req *r = &u->req[slot];
        tbr_mem_msg rq = {.addr = r->lines[r->sent], .id = slot, .issued = now, .ready = now};
        if (tbr_memq_push(tbr_cache_req_in(u->tc), &rq)) line_sent(u, r);
    }
    tbr_cache_tick_n(u->tc, now, e->ncyc);
}

void tex_unit_fold_stats(tex_unit *u)
{
    tbr_stat_add(u->stats->l2_reads, *u->installs - u->seen_installs);
    u->seen_installs = *u->installs;
    tbr_occupancy_fold(&u->line_lat);
}
