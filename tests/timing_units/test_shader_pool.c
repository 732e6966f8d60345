/* timing_units.shader_pool: the unified shader cores' arbitration (timing/shader/shader_pool.c)
 * alone, with fake request ports: one core (shader.pool_cores = 1), a vertex client and one
 * Raster Unit (client 1). The test plays the clients: each cycle it ticks the pool, then
 * dispatches the head of a client's queue if the pool granted it the core.
 *
 * Dispatch (8 threads, work items of 100 ALU instructions, so nothing retires; one dispatch
 * per cycle on the core). Queues: vertex V0..V3, fragment F0..F3.
 *  A. every item visible at cycle 0:
 *     fixed_vertex_first   V V V V F F F F  (cycles 0-3 contended: fragment waits 4)
 *     fixed_fragment_first F F F F V V V V
 *     share 25 %           V F F F V F V V  (contended wins v/f: 0/0 -> V; 1/0: 100 <= 25? no
 *                          -> F; 1/1, 1/2 -> F; 1/3: 100 <= 100 -> V; 2/3: 200 <= 125? no -> F;
 *                          then only vertex work is left)
 *     cycle 8: no free thread: one full-thread wait per type
 *  B. vertex items visible at 0, 3, 3, 3; fragment items at 1, 1, 1, 1:
 *     oldest_first         V F F F F V V V  (cycle 3 and 4: the fragment head (1) is older
 *                          than the vertex head (3))
 *     fixed_vertex_first   V F F V V V F F  (cycle 3: the vertex head is visible and wins;
 *                          the fragment work waits in cycles 3-5)
 *
 * Issue (lat_alu 1, issue width 1): one vertex and one fragment thread of 3 instructions
 * each, dispatched at cycle 0 (both may issue from cycle 1); the type that issued at each of
 * cycles 1..6:
 *     fixed_vertex_first   V V V F F F   (fragment issue waits 3)
 *     fixed_fragment_first F F F V V V
 *     oldest_first         F V F V F V   (the types alternate in contended cycles, fragment
 *                          first; cycle 6 has only the vertex thread left; fragment waits 2)
 *     share 25 %           V F F F V V   (contended issue counts 0/0 -> V, 1/0 .. 1/2 -> F) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../timing/tcheck.h"
#include "shader/shader_pool.h"

typedef struct {
    tbr_config *cfg;
    tbr_stats *st;
    sim_env env;
    shader_pool pool;
    sim_queue vq, fq; /* the clients' request ports */
} rig;

static void rig_init(rig *r, const char *arb, const char *share)
{
    char err[256], kv[128];
    memset(r, 0, sizeof *r);
    r->cfg = tbr_config_new();
    r->st = tbr_stats_new();
    const char *sets[] = {"shader.organization=unified", "shader.pool_cores=1", "shader.pool_threads=8"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        if (tbr_config_apply_override(r->cfg, sets[i], err, sizeof err)) fprintf(stderr, "%s\n", err), exit(2);
    snprintf(kv, sizeof kv, "shader.arbitration=%s", arb);
    if (tbr_config_apply_override(r->cfg, kv, err, sizeof err)) fprintf(stderr, "%s\n", err), exit(2);
    snprintf(kv, sizeof kv, "shader.vertex_share_percent=%s", share);
    if (tbr_config_apply_override(r->cfg, kv, err, sizeof err)) fprintf(stderr, "%s\n", err), exit(2);
    r->env.cfg = r->cfg;
    r->env.st = r->st;
    r->env.ncyc = 1;
    r->env.shader.issue_width = 1;
    r->env.shader.lat_alu = 1;
    for (int k = 0; k < SC_NCLASS; k++) r->env.shader.lat_cls[k] = 1;
    r->env.shader.fp_threads = 64;
    shader_pool_init(&r->pool, &r->env, 2);
    simq_init(&r->vq, 16);
    simq_init(&r->fq, 16);
    shader_pool_connect(&r->pool, SP_CLIENT_VERTEX, &r->vq, 1);
    shader_pool_connect(&r->pool, 1, &r->fq, 1);
}

static void rig_free(rig *r)
{
    shader_pool_free(&r->pool);
    simq_free(&r->vq);
    simq_free(&r->fq);
    tbr_stats_free(r->st);
    tbr_config_free(r->cfg);
}

static uint64_t stat(const rig *r, const char *name) { return tbr_stat_value(tbr_stats_find(r->st, name)); }

/* Cycles from..to-1: tick the pool, then the granted client dispatches its queue's head.
 * got[c - from] = 'V', 'F' or '.' (no dispatch). */
static void run_dispatch(rig *r, uint32_t from, uint32_t to, char *got)
{
    for (uint32_t c = from; c < to; c++, got++) {
        r->env.now = c;
        shader_pool_tick(&r->pool);
        uint32_t tok;
        *got = '.';
        if (shader_pool_may_dispatch(&r->pool, SP_CLIENT_VERTEX, 0) && simq_peek(&r->vq, c, &tok)) {
            sc_dispatch(&shader_pool_contexts(&r->pool, SP_CLIENT_VERTEX)[0], tok, 100, c);
            simq_pop(&r->vq);
            *got = 'V';
        } else if (shader_pool_may_dispatch(&r->pool, 1, 0) && simq_peek(&r->fq, c, &tok)) {
            sc_dispatch(&shader_pool_contexts(&r->pool, 1)[0], tok, 100, c);
            simq_pop(&r->fq);
            *got = 'F';
        }
    }
    *got = 0;
}

static void dispatch_case(const char *arb, const char *share, const uint64_t vready[4], const uint64_t fready[4],
                          const char *want, uint64_t frag_arb_waits)
{
    rig r;
    rig_init(&r, arb, share);
    for (uint32_t i = 0; i < 4; i++) {
        simq_push(&r.vq, i, vready[i]);
        simq_push(&r.fq, 100 + i, fready[i]);
    }
    char got[16];
    run_dispatch(&r, 0, 8, got);
    if (strcmp(got, want)) {
        fprintf(stderr, "dispatch %s (share %s): got %s, want %s\n", arb, share, got, want);
        t_failures++;
    }
    if (frag_arb_waits != UINT64_MAX) CHECK_EQ_U(stat(&r, "shader_pool.fragment.arbitration_waits"), frag_arb_waits);
    /* cycle 8: the core's 8 threads are taken; a ninth item of each type waits for a thread */
    simq_push(&r.vq, 9, 8);
    simq_push(&r.fq, 109, 8);
    run_dispatch(&r, 8, 9, got);
    CHECK_EQ_U(got[0], '.');
    CHECK_EQ_U(stat(&r, "shader_pool.vertex.full_waits"), 1);
    CHECK_EQ_U(stat(&r, "shader_pool.fragment.full_waits"), 1);
    rig_free(&r);
}

static void issue_case(const char *arb, const char *share, const char *want, uint64_t frag_issue_waits)
{
    rig r;
    rig_init(&r, arb, share);
    shader_core *v = &shader_pool_contexts(&r.pool, SP_CLIENT_VERTEX)[0], *f = &shader_pool_contexts(&r.pool, 1)[0];
    sc_dispatch(v, 1, 3, 0);
    sc_dispatch(f, 2, 3, 0);
    char got[8];
    for (uint32_t c = 1; c <= 6; c++) {
        r.env.now = c;
        uint64_t v0 = stat(&r, "shader_pool.vertex.instructions"), f0 = stat(&r, "shader_pool.fragment.instructions");
        shader_pool_tick(&r.pool);
        uint64_t dv = stat(&r, "shader_pool.vertex.instructions") - v0,
                 df = stat(&r, "shader_pool.fragment.instructions") - f0;
        got[c - 1] = dv && !df ? 'V' : df && !dv ? 'F' : '?';
    }
    got[6] = 0;
    if (strcmp(got, want)) {
        fprintf(stderr, "issue %s (share %s): got %s, want %s\n", arb, share, got, want);
        t_failures++;
    }
    if (frag_issue_waits != UINT64_MAX) CHECK_EQ_U(stat(&r, "shader_pool.fragment.issue_waits"), frag_issue_waits);
    CHECK_EQ_U(stat(&r, "shader_pool.core0.vertex.busy_cycles"), 3);
    CHECK_EQ_U(stat(&r, "shader_pool.core0.ru0.busy_cycles"), 3);
    rig_free(&r);
}

int main(void)
{
    const uint64_t at0[4] = {0, 0, 0, 0}, v_b[4] = {0, 3, 3, 3}, f_b[4] = {1, 1, 1, 1};
    dispatch_case("fixed_vertex_first", "50", at0, at0, "VVVVFFFF", 4);
    dispatch_case("fixed_fragment_first", "50", at0, at0, "FFFFVVVV", 0);
    dispatch_case("share", "25", at0, at0, "VFFFVFVV", 2);
    dispatch_case("oldest_first", "50", v_b, f_b, "VFFFFVVV", 0);
    dispatch_case("fixed_vertex_first", "50", v_b, f_b, "VFFVVVFF", 3);

    issue_case("fixed_vertex_first", "50", "VVVFFF", 3);
    issue_case("fixed_fragment_first", "50", "FFFVVV", 0);
    issue_case("oldest_first", "50", "FVFVFV", 2);
    issue_case("share", "25", "VFFFVV", 1);

    if (t_failures) fprintf(stderr, "timing_units.shader_pool: %d failure(s)\n", t_failures);
    return t_failures ? 1 : 0;
}
