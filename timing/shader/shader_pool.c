/* Unified shader cores (see shader_pool.h; docs/timing-model.md "Unified shader cores").
 *
 * Dispatch arbitration, per cycle: a core with a free thread has one dispatch port. The
 * vertex work (one request port, any core) searches the cores from a round-robin position
 * and takes the first core with a free thread that it wins; a core is contended when a
 * Raster Unit also has a quad for it (its input queue's head is visible) and the vertex
 * search examines it. Who wins a contended core:
 *   fixed_vertex_first: vertex; fixed_fragment_first: fragment;
 *   oldest_first: the request visible first (the queue heads' ready cycles; a tie goes to
 *                 vertex, the upstream work);
 *   share: vertex while its contended wins on that core are at most
 *          shader.vertex_share_percent of them (won_v * 100 <= share * (won_v + won_f)).
 * Every other core with a free thread goes to the oldest Raster Unit request for it.
 *
 * Issue arbitration, per core and cycle in which two or more contexts may issue: the
 * first context in the order below issues up to the issue width, the next what is left:
 *   fixed_vertex_first / fixed_fragment_first: that type first;
 *   oldest_first: the types alternate (within a type, issue is already oldest first);
 *   share: vertex first while its instructions issued in such cycles are at most the
 *          share of them.
 * Fragment contexts (several Raster Units) keep Raster Unit order. */
#include "shader/shader_pool.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t shader_pool_cores_configured(const tbr_config *cfg)
{
    uint32_t n = (uint32_t)tbr_cfg_uint(cfg, "shader.pool_cores");
    if (n) return n;
    return (uint32_t)(tbr_cfg_uint(cfg, "vertex.processors") +
                      tbr_cfg_uint(cfg, "fragment.processors") * tbr_cfg_uint(cfg, "tile.raster_units"));
}

static void register_type_stats(sp_type_stats *t, tbr_stats *st, const char *type)
{
    t->instr = tbr_stats_counterf(st, "instructions issued by the pool's cores for this work type",
                                  "shader_pool.%s.instructions", type);
    t->arb_waits = tbr_stats_counterf(
        st,
        "arbitration waits: cycles in which a request of this type was visible (fragment: per Raster Unit and core) "
        "and a core it could use had a free thread, but another request won the dispatch port",
        "shader_pool.%s.arbitration_waits", type);
    t->full_waits = tbr_stats_counterf(st,
                                       "cycles in which a request of this type was visible (fragment: per Raster Unit "
                                       "and core) but no core it could use had a free thread",
                                       "shader_pool.%s.full_waits", type);
    t->issue_waits = tbr_stats_counterf(
        st, "core-cycles in which this type's threads could issue but the other type used the core's issue width",
        "shader_pool.%s.issue_waits", type);
    t->contended_won = tbr_stats_counterf(st, "dispatch ports won when both types wanted the core",
                                          "shader_pool.%s.contended_grants", type);
}

void shader_pool_init(shader_pool *p, sim_env *env, uint32_t nclients)
{
    memset(p, 0, sizeof *p);
    const tbr_config *cfg = env->cfg;
    p->env = env;
    p->ncores = shader_pool_cores_configured(cfg);
    p->nclients = nclients;
    p->threads = (uint32_t)tbr_cfg_uint(cfg, "shader.pool_threads");
    if (!p->threads) p->threads = env->shader.fp_threads;
    p->issue_width = env->shader.issue_width ? env->shader.issue_width : 1;
    p->arb = (uint32_t)tbr_cfg_enum(cfg, "shader.arbitration");
    p->vertex_share = (uint32_t)tbr_cfg_uint(cfg, "shader.vertex_share_percent");
    p->ctx = tbr_xcalloc((size_t)nclients * p->ncores, sizeof *p->ctx);
    for (uint32_t c = 0; c < nclients; c++)
        for (uint32_t k = 0; k < p->ncores; k++) {
            char name[48];
            if (c == SP_CLIENT_VERTEX)
                snprintf(name, sizeof name, "shader_pool.core%u.vertex", k);
            else
                snprintf(name, sizeof name, "shader_pool.core%u.ru%u", k, c - 1);
            shader_core *sc = &p->ctx[c * p->ncores + k];
            sc_init(sc, p->threads, p->issue_width, env->shader.lat_alu, env->st, name);
            sc_set_latencies(sc, env->shader.lat_cls);
        }
    p->req = tbr_xcalloc(1 + (size_t)(nclients - 1) * p->ncores, sizeof *p->req);
    p->grant = tbr_xcalloc(p->ncores, sizeof *p->grant);
    p->free_threads = tbr_xcalloc(p->ncores, sizeof *p->free_threads);
    p->won = tbr_xcalloc(2 * (size_t)p->ncores, sizeof *p->won);
    p->issued = tbr_xcalloc(2 * (size_t)p->ncores, sizeof *p->issued);
    p->vertex_turn = tbr_xcalloc(p->ncores, sizeof *p->vertex_turn);
    p->order = tbr_xcalloc(nclients, sizeof *p->order);
    for (uint32_t k = 0; k < p->ncores; k++) p->grant[k] = SP_NO_GRANT;
    register_type_stats(&p->ty[SP_VERTEX], env->st, "vertex");
    register_type_stats(&p->ty[SP_FRAGMENT], env->st, "fragment");
    p->vertex_share_st = tbr_stats_average(env->st, "shader_pool.vertex_instruction_share",
                                           "vertex work's share of the instructions the pool issued (0..1)");
}

void shader_pool_free(shader_pool *p)
{
    for (uint32_t i = 0; p->ctx && i < p->nclients * p->ncores; i++) sc_free(&p->ctx[i]);
    free(p->ctx);
    free(p->req);
    free(p->grant);
    free(p->free_threads);
    free(p->won);
    free(p->issued);
    free(p->vertex_turn);
    free(p->order);
    memset(p, 0, sizeof *p);
}

void shader_pool_connect(shader_pool *p, uint32_t client, const sim_queue *queues, uint32_t nqueues)
{
    if (client == SP_CLIENT_VERTEX) {
        p->req[0] = queues;
        return;
    }
    for (uint32_t k = 0; k < nqueues && k < p->ncores; k++) p->req[1 + (client - 1) * p->ncores + k] = &queues[k];
}

/* The request port's head is visible at cycle now: its ready cycle, else UINT64_MAX. */
static inline uint64_t request_age(const sim_queue *q, uint64_t now)
{
    if (!q || !q->count) return UINT64_MAX;
    uint64_t r = simq_head_ready(q);
    return r <= now ? r : UINT64_MAX;
}

/* The oldest Raster Unit request for core k (its client in *client), UINT64_MAX if none. */
static uint64_t fragment_request(const shader_pool *p, uint32_t k, uint64_t now, uint32_t *client)
{
    uint64_t best = UINT64_MAX;
    *client = SP_NO_GRANT;
    for (uint32_t c = 1; c < p->nclients; c++) {
        uint64_t a = request_age(p->req[1 + (c - 1) * p->ncores + k], now);
        if (a < best) {
            best = a;
            *client = c;
        }
    }
    return best;
}

/* A contended core: does the vertex work win it? (the file's comment) */
static bool vertex_wins(const shader_pool *p, uint32_t k, uint64_t vage, uint64_t fage)
{
    switch (p->arb) {
        case SP_ARB_VERTEX_FIRST: return true;
        case SP_ARB_FRAGMENT_FIRST: return false;
        case SP_ARB_OLDEST_FIRST: return vage <= fage;
        default: {
            uint64_t v = p->won[2 * k + SP_VERTEX], f = p->won[2 * k + SP_FRAGMENT];
            return v * 100 <= (uint64_t)p->vertex_share * (v + f);
        }
    }
}

/* Per core: who may dispatch this cycle (grant[]); the waits count ncyc cycles. */
static void arbitrate_dispatch(shader_pool *p, uint64_t now, uint64_t ncyc)
{
    const uint32_t n = p->ncores;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t used = 0;
        for (uint32_t c = 0; c < p->nclients; c++) used += p->ctx[c * n + k].count;
        p->free_threads[k] = used < p->threads ? p->threads - used : 0;
        p->grant[k] = SP_NO_GRANT;
    }
    uint64_t vage = request_age(p->req[0], now);
    if (vage != UINT64_MAX) {
        uint32_t k = p->vertex_rr;
        bool any_free = false;
        for (uint32_t i = 0; i < n; i++, k = k + 1 == n ? 0 : k + 1) {
            if (!p->free_threads[k]) continue;
            any_free = true;
            uint32_t fc;
            uint64_t fage = fragment_request(p, k, now, &fc);
            if (fage == UINT64_MAX) { /* uncontended */
                p->grant[k] = SP_CLIENT_VERTEX;
                break;
            }
            bool v = vertex_wins(p, k, vage, fage);
            p->won[2 * k + (v ? SP_VERTEX : SP_FRAGMENT)]++;
            tbr_stat_inc(p->ty[v ? SP_VERTEX : SP_FRAGMENT].contended_won);
            if (v) {
                p->grant[k] = SP_CLIENT_VERTEX;
                break;
            }
            p->grant[k] = fc;
        }
        if (p->grant[k] == SP_CLIENT_VERTEX)
            p->vertex_rr = k + 1 == n ? 0 : k + 1;
        else
            tbr_stat_add(any_free ? p->ty[SP_VERTEX].arb_waits : p->ty[SP_VERTEX].full_waits, ncyc);
    }
    for (uint32_t k = 0; k < n; k++) {
        for (uint32_t c = 1; c < p->nclients; c++) {
            if (request_age(p->req[1 + (c - 1) * n + k], now) == UINT64_MAX) continue;
            if (p->grant[k] == SP_NO_GRANT && p->free_threads[k]) {
                uint32_t fc;
                fragment_request(p, k, now, &fc);
                p->grant[k] = fc;
            }
            if (p->grant[k] != c)
                tbr_stat_add(p->free_threads[k] ? p->ty[SP_FRAGMENT].arb_waits : p->ty[SP_FRAGMENT].full_waits, ncyc);
        }
    }
}

static inline uint32_t type_of(uint32_t client) { return client == SP_CLIENT_VERTEX ? SP_VERTEX : SP_FRAGMENT; }

/* A context denied the issue port this cycle counts like a cycle with nothing ready. */
static void count_no_issue(shader_core *c, uint64_t n)
{
    if (!c->count) {
        tbr_stat_add(c->idle, n);
        return;
    }
    tbr_stat_add(c->stall, n);
    if (c->ntexwait && c->ntexwait == c->nwork) tbr_stat_add(c->tex_stall, n);
}

/* Core k's contexts in issue order for a contended cycle (the file's comment). */
static void issue_order(shader_pool *p, uint32_t k)
{
    bool vfirst;
    switch (p->arb) {
        case SP_ARB_VERTEX_FIRST: vfirst = true; break;
        case SP_ARB_FRAGMENT_FIRST: vfirst = false; break;
        case SP_ARB_OLDEST_FIRST:
            vfirst = p->vertex_turn[k];
            p->vertex_turn[k] = !p->vertex_turn[k];
            break;
        default: {
            uint64_t v = p->issued[2 * k + SP_VERTEX], f = p->issued[2 * k + SP_FRAGMENT];
            vfirst = v * 100 <= (uint64_t)p->vertex_share * (v + f);
        }
    }
    uint32_t i = 0;
    if (vfirst) p->order[i++] = SP_CLIENT_VERTEX;
    for (uint32_t c = 1; c < p->nclients; c++) p->order[i++] = c;
    if (!vfirst) p->order[i++] = SP_CLIENT_VERTEX;
}

/* One cycle (or a quiescent span of n) of core k. */
static void issue_core(shader_pool *p, uint32_t k, uint64_t now, uint64_t n)
{
    const uint32_t nc = p->ncores;
    uint32_t ready = 0;
    for (uint32_t c = 0; c < p->nclients; c++) ready += sc_may_issue_now(&p->ctx[c * nc + k], now);
    bool contended = n == 1 && ready >= 2;
    if (contended)
        issue_order(p, k);
    else
        for (uint32_t c = 0; c < p->nclients; c++) p->order[c] = c;
    uint32_t width = p->issue_width;
    uint64_t vi = 0, fi = 0;
    for (uint32_t i = 0; i < p->nclients; i++) {
        uint32_t c = p->order[i];
        shader_core *sc = &p->ctx[c * nc + k];
        if (!width) {
            if (sc_may_issue_now(sc, now)) tbr_stat_inc(p->ty[type_of(c)].issue_waits);
            count_no_issue(sc, n);
            continue;
        }
        uint64_t before = tbr_stat_value(sc->instr);
        sc->issue_width = width; /* what the contexts before it left of the core's issue port */
        sc_tick_n(sc, now, n);
        sc->issue_width = p->issue_width;
        uint64_t issued = tbr_stat_value(sc->instr) - before;
        width -= (uint32_t)issued;
        if (c == SP_CLIENT_VERTEX)
            vi += issued;
        else
            fi += issued;
    }
    if (contended) {
        p->issued[2 * k + SP_VERTEX] += vi;
        p->issued[2 * k + SP_FRAGMENT] += fi;
    }
    tbr_stat_add(p->ty[SP_VERTEX].instr, vi);
    tbr_stat_add(p->ty[SP_FRAGMENT].instr, fi);
    if (vi) tbr_stat_sample_n(p->vertex_share_st, 1.0, vi);
    if (fi) tbr_stat_sample_n(p->vertex_share_st, 0.0, fi);
}

void shader_pool_tick(shader_pool *p)
{
    const uint64_t now = p->env->now, n = p->env->ncyc;
    for (uint32_t k = 0; k < p->ncores; k++) issue_core(p, k, now, n);
    /* (a quiescent span, n > 1, grants nothing a client could use: its waits repeat n times) */
    arbitrate_dispatch(p, now, n);
}

uint64_t shader_pool_next_event(const shader_pool *p)
{
    uint64_t now = p->env->now, ne = UINT64_MAX;
    for (uint32_t i = 0; i < p->nclients * p->ncores; i++) GPU_EVENT_AT(ne, now, sc_next_event(&p->ctx[i], now));
    return ne;
}

bool shader_pool_idle(const shader_pool *p)
{
    for (uint32_t i = 0; i < p->nclients * p->ncores; i++)
        if (!sc_idle(&p->ctx[i])) return false;
    return true;
}
