/* Unit tests of the texture caches' NUCA organisations (timing/texture/affinity_table.c,
 * tex_mesh.c, tex_nuca.c; seeds/003, docs/techniques.md "DTM-NUCA"), with hand-worked
 * expectations. TBR_SIM_TEST selects one: affinity, affinity_dist, mesh, remote_hit. */
#include <stdlib.h>
#include <string.h>

#include "../timing/tcheck.h"
#include "core/config.h"
#include "core/stats.h"
#include "memory/cache.h"
#include "texture/affinity_table.h"
#include "texture/tex_mesh.h"
#include "texture/tex_nuca.h"

static uint32_t acc(affinity_table *t, uint32_t node, uint64_t line, uint32_t times, uint64_t now, bool *epoch)
{
    uint32_t o = 0;
    for (uint32_t i = 0; i < times; i++) o = at_access(t, node, line, now, epoch, NULL, NULL);
    return o;
}

/* Centralized table: 4 nodes, 8 buckets, 2-block pages, 3-bit counters (max 7), 25 % margin,
 * 20-access epochs. Lines 0, 1, 16, 17 are pages 0, 0, 8, 8 = bucket 0; line 2 = bucket 1. */
static void test_affinity(void)
{
    affinity_table t;
    char err[128];
    bool ep = false;
    CHECK(at_init(&t, 4, 8, 2, 3, 25, 20, false, err, sizeof err) == 0);
    CHECK_EQ_U(at_bits(&t), 8 * (4 * 3 + 2));
    CHECK_EQ_U(at_bucket(&t, 0), 0);
    CHECK_EQ_U(at_bucket(&t, 1), 0);
    CHECK_EQ_U(at_bucket(&t, 2), 1);
    CHECK_EQ_U(at_bucket(&t, 17), 0);
    CHECK_EQ_U(acc(&t, 2, 0, 1, 0, &ep), 2);  /* first accessor takes bucket 0: c = {0,0,1,0} */
    CHECK_EQ_U(acc(&t, 1, 1, 5, 0, &ep), 2);  /* c = {0,5,1,0} */
    CHECK_EQ_U(acc(&t, 2, 17, 2, 0, &ep), 2); /* c = {0,5,3,0} */
    /* node 1 reaches 7 (saturated) > 3 + 3*25/100 = 3: it takes the bucket, all halve: {0,3,1,0};
     * the accesses themselves still used owner 2 */
    CHECK_EQ_U(acc(&t, 1, 0, 2, 0, &ep), 2);
    CHECK_EQ_U(t.owner[0], 1);
    CHECK_EQ_U(t.count[1], 3);
    CHECK_EQ_U(t.count[2], 1);
    CHECK_EQ_U(t.saturations, 1);
    CHECK_EQ_U(acc(&t, 3, 2, 4, 0, &ep), 3); /* bucket 1: owner 3, c3 = 4 */
    CHECK_EQ_U(acc(&t, 0, 0, 5, 0, &ep), 1); /* bucket 0: {5,3,1,0}, 19 accesses */
    CHECK(!ep);
    /* the 20th access ends the epoch: bucket 0 goes to the largest counter (node 0, 5) */
    CHECK_EQ_U(acc(&t, 2, 16, 1, 0, &ep), 1);
    CHECK(ep);
    CHECK_EQ_U(t.epochs, 1);
    CHECK_EQ_U(at_owner(&t, 3, 0, 0), 0);
    CHECK_EQ_U(at_owner(&t, 1, 2, 0), 3);
    CHECK_EQ_U(at_owner(&t, 1, 4, 0), 1); /* bucket 2 has no owner: the asker */
    CHECK_EQ_U(t.changes, 2);
    for (uint32_t i = 0; i < 8 * 4; i++) CHECK_EQ_U(t.count[i], 0);
    /* the margin holds: node 0 owns bucket 3 with 6; node 1 saturates at 7, not > 6 + 6*25/100 = 7 */
    CHECK_EQ_U(acc(&t, 0, 6, 6, 0, &ep), 0);
    CHECK_EQ_U(acc(&t, 1, 6, 7, 0, &ep), 0);
    CHECK_EQ_U(t.owner[3], 0);
    CHECK_EQ_U(t.count[3 * 4 + 0], 3);
    CHECK_EQ_U(t.count[3 * 4 + 1], 3);
    at_free(&t);
}

static uint64_t delay_2x(const void *ctx, uint32_t from, uint32_t to)
{
    (void)ctx;
    return (from > to ? from - to : to - from) * 2u + 1;
}

/* Distributed tables: 4 nodes, 4 buckets, 1-block pages, 4-bit counters, 10-access epochs,
 * broadcast delay |from - to| * 2 + 1 cycles. */
static void test_affinity_dist(void)
{
    affinity_table t;
    char err[128];
    bool ep = false;
    CHECK(at_init(&t, 4, 4, 1, 4, 25, 10, true, err, sizeof err) == 0);
    for (uint32_t n = 0; n < 4; n++) CHECK_EQ_U(at_owner(&t, n, 1, 0), n); /* every node owns every bucket */
    CHECK_EQ_U(at_access(&t, 0, 0, 90, &ep, delay_2x, NULL), 0);
    at_access(&t, 0, 0, 90, &ep, delay_2x, NULL);
    at_access(&t, 0, 0, 90, &ep, delay_2x, NULL);
    for (int i = 0; i < 5; i++) CHECK_EQ_U(at_access(&t, 1, 0, 95, &ep, delay_2x, NULL), 1);
    CHECK_EQ_U(at_access(&t, 2, 1, 99, &ep, delay_2x, NULL), 2);
    CHECK(!ep);
    at_access(&t, 2, 1, 100, &ep, delay_2x, NULL); /* 10th access: epoch at cycle 100 */
    CHECK(ep);
    /* bucket 0 -> node 1 (5 > 3), seen by node 3 at 100 + 2*2 + 1 = 105, by node 0 at 103 */
    CHECK_EQ_U(at_owner(&t, 3, 0, 104), 3);
    CHECK_EQ_U(at_owner(&t, 3, 0, 105), 1);
    CHECK_EQ_U(at_owner(&t, 0, 0, 102), 0);
    CHECK_EQ_U(at_owner(&t, 0, 0, 103), 1);
    CHECK_EQ_U(at_owner(&t, 3, 1, 200), 2); /* bucket 1 -> node 2 */
    CHECK_EQ_U(at_owner(&t, 0, 2, 200), 0); /* bucket 2 untouched: each keeps its view */
    CHECK_EQ_U(at_owner(&t, 3, 2, 200), 3);
    /* a tie goes to the lowest node: bucket 3, nodes 3 and 0 five accesses each */
    for (int i = 0; i < 5; i++) at_access(&t, 3, 3, 300, &ep, delay_2x, NULL);
    for (int i = 0; i < 5; i++) at_access(&t, 0, 3, 300, &ep, delay_2x, NULL);
    CHECK(ep);
    CHECK_EQ_U(t.epochs, 2);
    CHECK_EQ_U(at_owner(&t, 3, 3, 400), 0);
    at_free(&t);
}

/* 3x3 mesh, 2 cycles per hop, 16-byte links: node 0 (0,0) -> node 8 (2,2) is 4 hops. */
static void test_mesh(void)
{
    tex_mesh m;
    tex_mesh_init(&m, 9, 2, 16, 64);
    CHECK_EQ_U(m.cols, 3);
    CHECK_EQ_U(tex_mesh_hops(&m, 0, 8), 4);
    CHECK_EQ_U(tex_mesh_hops(&m, 2, 6), 4);
    CHECK_EQ_U(tex_mesh_hops(&m, 4, 4), 0);
    CHECK_EQ_U(tex_mesh_centre(&m), 4);
    CHECK_EQ_U(tex_mesh_send(&m, 0, 8, 8, 100), 100 + 4 * 2);            /* one flit */
    CHECK_EQ_U(tex_mesh_send(&m, 0, 8, 64, 1000), 1000 + 4 * 2 + 3);     /* four flits: the tail 3 behind */
    CHECK_EQ_U(tex_mesh_send(&m, 0, 8, 64, 1000), 1000 + 4 + 4 * 2 + 3); /* waits 4 for the first link */
    CHECK_EQ_U(m.stall_cycles, 4);
    CHECK_EQ_U(m.hops, 12);
    CHECK_EQ_U(m.flit_hops, 4 + 16 + 16);
    /* injected later but earlier in time: the link is free at 990 (reserved 1000..1007) */
    CHECK_EQ_U(tex_mesh_send(&m, 0, 1, 8, 990), 992);
    /* ... and at 1001 it is not: the flit waits for 1008 */
    CHECK_EQ_U(tex_mesh_send(&m, 0, 1, 8, 1001), 1010);
    CHECK_EQ_U(m.stall_cycles, 4 + 7);
    CHECK_EQ_U(tex_mesh_send(&m, 5, 5, 64, 7), 7);
    /* 5 nodes on a 3x2 grid: node 3 (0,1) -> node 2 (2,0) routes X through the empty (2,1) */
    tex_mesh_free(&m);
    tex_mesh_init(&m, 5, 1, 16, 64);
    CHECK_EQ_U(tex_mesh_send(&m, 3, 2, 8, 0), 3);
    tex_mesh_free(&m);
}

/* Stand-in for the L2: every miss comes back 10 cycles later. */
static void fake_l2(tbr_cache *c, uint64_t now)
{
    const tbr_mem_msg *m;
    while ((m = tbr_memq_peek(tbr_cache_miss_out(c), now))) {
        tbr_mem_msg f = *m;
        f.ready = now + 10;
        if (!tbr_memq_push(tbr_cache_fill_in(c), &f)) break;
        tbr_memq_pop(tbr_cache_miss_out(c));
    }
}

/* Run the nine nodes until node `who` gets its line back; returns that cycle. */
static uint64_t run_until_back(tex_nuca *f, tbr_cache **tc, uint32_t who, uint64_t now, uint64_t addr)
{
    bool sent = false;
    for (; now < 100000; now++)
        for (uint32_t n = 0; n < 9; n++) {
            tex_nuca_tick_node(f, n, now);
            const tbr_mem_msg *m;
            while ((m = tbr_memq_peek(tbr_cache_resp_out(tc[n]), now))) {
                if (m->src && !tex_nuca_reply(f, n, m, now)) break;
                bool mine = !m->src && n == who;
                tbr_memq_pop(tbr_cache_resp_out(tc[n]));
                if (mine) return now;
            }
            if (n == who && tbr_memq_peek(tex_nuca_resp_inbox(f, n), now)) return now;
            if (n == who && !sent) {
                tbr_mem_msg rq = {.addr = addr, .id = 1, .issued = now, .ready = now};
                sent = tex_nuca_send(f, n, &rq, now);
            }
            fake_l2(tc[n], now);
            tbr_cache_tick(tc[n], now);
        }
    return 0;
}

/* Centralized DTM-NUCA on 9 nodes (3x3), 1 cycle/hop, 16 B links, 2-cycle texture caches,
 * Affinity Table at node 4. Node 8 misses line L first (it takes L's bucket and fills L from
 * L2); then node 0 reads L: a remote hit over k = 4 hops, at
 *   2 (local tag check) + 2*2 + 1 (table round trip, 2 hops each way) + 4 (request)
 *   + 2 (node 8's cache hit) + 4 + 3 (the line's 4 flits back) = 20 cycles. */
static void test_remote_hit(void)
{
    tbr_config *cfg = tbr_config_new();
    tbr_stats *st = tbr_stats_new();
    char err[256];
    CHECK(tbr_config_set(cfg, "texture_cache.organization", "dtm_nuca", "test", err, sizeof err) == 0);
    CHECK(tbr_config_set(cfg, "texture_cache.latency", "2", "test", err, sizeof err) == 0);
    CHECK(tbr_config_set(cfg, "noc.link_bytes", "16", "test", err, sizeof err) == 0);
    tex_nuca *f = NULL;
    CHECK(tex_nuca_create(&f, cfg, st, 9, err, sizeof err) == 0 && f);
    if (!f) return;
    tbr_cache *tc[9];
    char names[9][16];
    for (uint32_t n = 0; n < 9; n++) {
        tbr_cache_params p;
        snprintf(names[n], sizeof names[n], "tc%u", n);
        tbr_cache_params_from_config(cfg, "texture_cache", names[n], &p);
        tc[n] = tbr_cache_new(&p, st, err, sizeof err);
        tex_nuca_attach(f, n, tc[n]);
    }
    const uint64_t L = 0x10000;
    uint64_t back = run_until_back(f, tc, 8, 0, L);
    CHECK(back > 0);
    CHECK(tbr_cache_contains(tc[8], L, NULL));
    uint64_t t = 1000;
    CHECK_EQ_U(run_until_back(f, tc, 0, t, L), t + 20);
    CHECK(!tbr_cache_contains(tc[0], L, NULL)); /* no replica at the requester */
    CHECK_EQ_U(tbr_stat_value(tbr_stats_find(st, "nuca.local_misses")), 1);
    CHECK_EQ_U(tbr_stat_value(tbr_stats_find(st, "nuca.remote_hits")), 1);
    CHECK_EQ_U(tbr_stat_value(tbr_stats_find(st, "nuca.table_accesses")), 2);
    /* hops: node 8's lookup 2 + 2; node 0's lookup 2 + 2, request 4, line 4 */
    CHECK_EQ_U(tbr_stat_value(tbr_stats_find(st, "nuca.mesh_hops")), 16);
    for (uint32_t n = 0; n < 9; n++) tbr_cache_free(tc[n]);
    tex_nuca_free(f);
    tbr_stats_free(st);
    tbr_config_free(cfg);
}

int main(void)
{
    const char *which = getenv("TBR_SIM_TEST");
    if (!which) which = "";
    if (!strcmp(which, "affinity"))
        test_affinity();
    else if (!strcmp(which, "affinity_dist"))
        test_affinity_dist();
    else if (!strcmp(which, "mesh"))
        test_mesh();
    else if (!strcmp(which, "remote_hit"))
        test_remote_hit();
    else {
        fprintf(stderr, "test_nuca: TBR_SIM_TEST must be affinity, affinity_dist, mesh or remote_hit\n");
        return 2;
    }
    return T_RESULT();
}
