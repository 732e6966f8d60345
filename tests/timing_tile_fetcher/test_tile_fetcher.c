/* Unit test of the Tile Fetcher (timing/tiling/tile_fetcher.c; thesis §4.1.2, Fig. 4.5),
 * the unit alone with fake ports: its own environment (no memory system: env.mem == NULL,
 * so tf_init does not connect the Tile Cache to memsys; no techniques), a hand-written
 * Parameter Buffer, a stub memory that answers every Tile Cache miss after MEM_LAT
 * cycles, and a stub Raster Unit behind the one Tile Queue port that takes at most one
 * token per cycle and spends `render` cycles on each primitive.
 *
 * One simulated cycle `c` of the harness, in this order:
 *   1. tf_tick at env.now = c (stages 3, 4, arbiter, stage 1, then the Tile Cache tick);
 *   2. stub memory: every miss_out message ready at c goes to fill_in, ready at c + MEM_LAT;
 *   3. stub Raster Unit: if not busy, pops the Tile Queue head visible at c.
 * Cycles below are relative to the first tf_tick of the pass (cycle 0).
 *
 * Timing facts used in the hand computations (default configuration, thesis Table 4.1):
 *   - Tile Cache: 32 KiB, 4 ways, 64 B lines, 1 bank, latency 2, 8 MSHRs. A request
 *     pushed at cycle t is taken by the cache tick at the end of the same tf_tick;
 *     hit -> response visible at t+2; miss -> miss_out ready at t+2, the stub memory
 *     returns the fill ready at t+2+MEM_LAT, the cache takes it that cycle and the
 *     response is visible one cycle later: t+3+MEM_LAT.
 *   - A pointer response seen at cycle r queues the entry's attribute request for r+1.
 *   - Stage 1 runs after the arbiter, so a Primitive Pointer register loaded at cycle c
 *     is sent at c+1 at the earliest; tokens pushed at c are visible in the Tile Queue
 *     at c+1.
 *   - "Hit" lines are brought into the Tile Cache before the pass (warm-up, then the
 *     cache statistics are not looked at). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiling/tile_fetcher.h"
#include "tiling/tile_tokens.h"

#define MEM_LAT 50u
#define START   1000u /* absolute cycle of relative cycle 0 (after the warm-up) */
#define MAXLOG  256

typedef struct {
    sim_env env;
    tbr_techniques tech; /* none enabled */
    param_buffer pb;
    tile_fetcher tf;
    sim_queue tile_q; /* the stub Raster Unit's Tile Queue */
    sim_queue *tile_qs[1];
    bool ru_in_tile;
    tbr_config *cfg;
    tbr_stats *st;
    sim_frame fr;
    uint64_t now;    /* absolute cycle */
    uint32_t render; /* stub Raster Unit: cycles per primitive */
    uint64_t ru_busy_until;
    /* logs (relative cycles) */
    uint32_t npop;
    uint32_t pop_tok[MAXLOG];
    uint64_t pop_cyc[MAXLOG];
    uint32_t nreq;
    char req_kind[MAXLOG];
    uint64_t req_cyc[MAXLOG]; /* 'P' pointer / 'A' attribute */
    uint64_t done_cyc[64];    /* cycle the primitive's entry became complete (+1, 0 = not yet) */
} harness;

static int failures;
#define CHECK_EQ(what, got, want)                                                                                      \
    do {                                                                                                               \
        unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want);                            \
        if (g_ != w_) {                                                                                                \
            fprintf(stderr, "FAIL %s:%d: %s = %llu, expected %llu\n", __FILE__, __LINE__, what, g_, w_);               \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static void mem_stub(harness *h)
{
    tile_fetcher *t = &h->tf;
    tbr_memq *mo = tbr_cache_miss_out(t->tcache), *fi = tbr_cache_fill_in(t->tcache);
    const tbr_mem_msg *m;
    while ((m = tbr_memq_peek(mo, h->now))) {
        tbr_mem_msg f = *m;
        f.ready = h->now + MEM_LAT;
        if (!f.wb && !tbr_memq_push(fi, &f)) break;
        tbr_memq_pop(mo);
    }
}

/* Bring one line into the Tile Cache before the pass (cycles < START). */
static void warm(harness *h, uint64_t addr)
{
    tile_fetcher *t = &h->tf;
    tbr_mem_msg rq = {.addr = addr, .id = 0, .issued = h->now, .ready = h->now};
    if (!tbr_memq_push(tbr_cache_req_in(t->tcache), &rq)) abort();
    for (int i = 0; i < 200; i++) {
        tbr_cache_tick(t->tcache, h->now);
        mem_stub(h);
        tbr_memq *rs = tbr_cache_resp_out(t->tcache);
        bool got = tbr_memq_peek(rs, h->now) != NULL;
        if (got) tbr_memq_pop(rs);
        h->now++;
        if (got) return;
    }
    abort();
}

/* The stub Raster Unit's status ports: idle when its Tile Queue is empty and it is not
 * inside a tile (what ru_idle answers for a unit that only has a Tile Queue). */
static bool stub_ru_idle(const void *ctx, uint32_t unit)
{
    const harness *h = ctx;
    (void)unit;
    return !h->ru_in_tile && simq_empty(&h->tile_q);
}
static uint32_t stub_ru_tiles_done(const void *ctx, uint32_t unit)
{
    (void)ctx;
    (void)unit;
    return 0;
}

/* ntiles tiles in one row; tile k holds the primitives lists[k][0..n[k]-1]; primitive p
 * has one attribute (3 vertices x 16 B) at Parameter Buffer offset attr_off[p]. */
static void setup(harness *h, uint32_t ntiles, const uint32_t *const *lists, const uint32_t *n, uint32_t nprims,
                  const uint32_t *attr_off, bool pipelined, uint32_t tq_cap)
{
    memset(h, 0, sizeof *h);
    char err[256];
    h->cfg = tbr_config_new();
    h->st = tbr_stats_new();
    if (!h->cfg || !h->st) abort();
    if (tbr_config_set(h->cfg, "tile.fetcher_pipelined", pipelined ? "true" : "false", "test", err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    h->env.cfg = h->cfg;
    h->env.st = h->st;
    h->env.mem = NULL; /* the stub memory services the Tile Cache */
    h->env.tech = &h->tech;
    h->env.tiles_x = ntiles;
    h->env.tiles_y = 1;
    simq_init(&h->tile_q, tq_cap);
    h->tile_qs[0] = &h->tile_q;
    h->pb.lists = calloc(ntiles, sizeof *h->pb.lists);
    h->pb.prim_attr_off = calloc(nprims, sizeof *h->pb.prim_attr_off);
    h->fr.prims = calloc(nprims, sizeof *h->fr.prims);
    if (!h->pb.lists || !h->pb.prim_attr_off || !h->fr.prims) abort();
    for (uint32_t k = 0; k < ntiles; k++) {
        h->pb.lists[k].prims = calloc(n[k] ? n[k] : 1, sizeof(uint32_t));
        if (!h->pb.lists[k].prims) abort();
        memcpy(h->pb.lists[k].prims, lists[k], n[k] * sizeof(uint32_t));
        h->pb.lists[k].n = h->pb.lists[k].cap = n[k];
    }
    h->pb.ntiles = ntiles;
    h->pb.list_base = ADDR_PB_LIST_BASE; /* as the Polygon List Builder's first buffer */
    h->pb.attr_base = ADDR_PB_ATTR_BASE;
    for (uint32_t p = 0; p < nprims; p++) {
        h->pb.prim_attr_off[p] = attr_off[p];
        h->fr.prims[p].nr_attrs = 1;
    }
    h->fr.nprims = nprims;
    h->env.frame = &h->fr;
    if (tf_init(&h->tf, &h->env, &h->pb, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    tf_connect(&h->tf,
               &(tf_raster_units){
                   .n = 1, .tile_q = h->tile_qs, .idle = stub_ru_idle, .tiles_done = stub_ru_tiles_done, .ctx = h});
}

static void begin(harness *h)
{
    h->now = START;
    tf_begin_pass(&h->tf);
}

static uint64_t rel(const harness *h) { return h->now - START; }

static void step(harness *h)
{
    tile_fetcher *t = &h->tf;
    h->env.now = h->now;
    uint64_t a0 = tbr_stat_value(t->attr_reqs), p0 = tbr_stat_value(t->ptr_reqs);
    tf_tick(t);
    if (h->nreq < MAXLOG && tbr_stat_value(t->attr_reqs) != a0) {
        h->req_kind[h->nreq] = 'A';
        h->req_cyc[h->nreq++] = rel(h);
    }
    if (h->nreq < MAXLOG && tbr_stat_value(t->ptr_reqs) != p0) {
        h->req_kind[h->nreq] = 'P';
        h->req_cyc[h->nreq++] = rel(h);
    }
    /* completion of each primitive's Primitive Table entry (pointer + all attributes back) */
    for (uint32_t i = 0; i < t->pt_count; i++) {
        const pt_entry *e = &t->pt[(t->pt_head + i) % t->ring_cap];
        if (!e->marker && e->ptr_done && !e->pending && e->sent == e->nattrs && e->prim < 64 && !h->done_cyc[e->prim])
            h->done_cyc[e->prim] = rel(h) + 1;
    }
    /* an entry completed and pushed in the same cycle leaves the table within this tf_tick:
   * its token is in the Tile Queue with ready = now + 1 */
    const sim_queue *q = &h->tile_q;
    for (uint32_t i = 0; i < q->count; i++) {
        uint32_t k = (q->head + i) % q->cap, tk = q->buf[k];
        if (q->ready[k] == h->now + 1 && TOK_KIND(tk) == TOK_ITEM && TOK_VAL(tk) < 64 && !h->done_cyc[TOK_VAL(tk)])
            h->done_cyc[TOK_VAL(tk)] = rel(h) + 1;
    }
    mem_stub(h);
    /* stub Raster Unit */
    uint32_t tok;
    if (h->now >= h->ru_busy_until && simq_peek(&h->tile_q, h->now, &tok)) {
        simq_pop(&h->tile_q);
        if (h->npop < MAXLOG) {
            h->pop_tok[h->npop] = tok;
            h->pop_cyc[h->npop++] = rel(h);
        }
        if (TOK_KIND(tok) == TOK_BEGIN)
            h->ru_in_tile = true;
        else if (TOK_KIND(tok) == TOK_END)
            h->ru_in_tile = false;
        else
            h->ru_busy_until = h->now + h->render;
    }
    h->now++;
}

static void run(harness *h)
{
    for (int i = 0; i < 100000; i++) {
        step(h);
        if (tf_done(&h->tf) && simq_empty(&h->tile_q) && h->now >= h->ru_busy_until) return;
    }
    fprintf(stderr, "FAIL: the Tile Fetcher did not finish\n");
    failures++;
}

static void teardown(harness *h)
{
    tf_free(&h->tf);
    for (uint32_t k = 0; k < h->env.tiles_x; k++) free(h->pb.lists[k].prims);
    free(h->pb.lists);
    free(h->pb.prim_attr_off);
    simq_free(&h->tile_q);
    free(h->fr.prims);
    tbr_stats_free(h->st);
    tbr_config_free(h->cfg);
}

static void dump(const harness *h)
{
    if (!getenv("TF_TRACE")) return;
    for (uint32_t i = 0; i < h->nreq; i++)
        fprintf(stderr, "req %c @%llu\n", h->req_kind[i], (unsigned long long)h->req_cyc[i]);
    for (uint32_t i = 0; i < h->npop; i++)
        fprintf(stderr, "pop kind %u val %u @%llu\n", TOK_KIND(h->pop_tok[i]), TOK_VAL(h->pop_tok[i]),
                (unsigned long long)h->pop_cyc[i]);
    for (uint32_t p = 0; p < 64; p++)
        if (h->done_cyc[p]) fprintf(stderr, "prim %u complete @%llu\n", p, (unsigned long long)h->done_cyc[p] - 1);
}

#define LIST_ADDR(tile, pos) (ADDR_PB_LIST_BASE + (uint64_t)(tile)*ADDR_PB_LIST_STRIDE + (uint64_t)(pos)*4)
#define ATTR_ADDR(off)       (ADDR_PB_ATTR_BASE + (uint64_t)(off))

/* 1. Primitive Table ordering. One tile with primitives A = 0, B = 1 (program order A, B).
 * The pointer line and B's attribute line are warm; A's attribute line misses.
 *   c0  stage 1: BEGIN marker            c1  BEGIN pushed (visible c2); reserve A
 *   c2  P(A) sent, hit -> resp c4; reserve B        c3  P(B) sent -> resp c5; END marker
 *   c4  A's pointer back -> A(A) queued for c5
 *   c5  A(A) sent: miss -> miss_out c7 -> fill c57 -> response visible c58 (5+3+50)
 *   c5  B's pointer back -> A(B) queued for c6
 *   c6  A(B) sent: hit -> response c8: B is complete at c8, A only at c58.
 *   c58 stage 4 pushes A, B and END in order (visible c59); the stub Raster Unit
 *       (render 0, one token per cycle) pops BEGIN c2, A c59, B c60, END c61. */
static void test_ordering(harness *h)
{
    static const uint32_t l0[] = {0, 1};
    const uint32_t *lists[] = {l0};
    const uint32_t n[] = {2};
    const uint32_t off[] = {0, 4096}; /* different lines (Tile Cache sets 0 and 64) */
    setup(h, 1, lists, n, 2, off, true, 16);
    warm(h, LIST_ADDR(0, 0));
    warm(h, ATTR_ADDR(4096));
    begin(h);
    run(h);
    dump(h);
    CHECK_EQ("B complete cycle", h->done_cyc[1] - 1, 8);
    CHECK_EQ("A complete cycle", h->done_cyc[0] - 1, 58);
    CHECK_EQ("tokens popped", h->npop, 4);
    CHECK_EQ("token 0 (BEGIN 0)", h->pop_tok[0], TOK(TOK_BEGIN, 0));
    CHECK_EQ("token 1 (prim A)", h->pop_tok[1], TOK(TOK_ITEM, 0));
    CHECK_EQ("token 2 (prim B)", h->pop_tok[2], TOK(TOK_ITEM, 1));
    CHECK_EQ("token 3 (END 0)", h->pop_tok[3], TOK(TOK_END, 0));
    CHECK_EQ("A popped at", h->pop_cyc[1], 59);
    CHECK_EQ("B popped at", h->pop_cyc[2], 60);
    teardown(h);
}

/* 2. Primitive Table capacity (16 entries). One tile with 17 primitives 0..16; every
 * pointer and attribute line is warm except primitive 0's attribute line, so primitive 0
 * holds the in-order table until its miss returns and nothing can leave before it.
 * Request pattern (same reasoning as test 3): primitives go in groups of three, group j
 * = primitives 3j..3j+2: pointers at 2+6j, 3+6j, 4+6j, attributes at 5+6j, 6+6j, 7+6j
 * (the fourth pointer of a group is loaded at 4+6j but loses the port to the three
 * attributes). Primitive 15 (group 5) is loaded at c28 (when P14 frees the register),
 * P15 is sent at c32; from c32 stage 1 finds 16 primitives in the table.
 * A0 (sent c5) misses: response visible 5+3+50 = c58, when stage 4 pushes 0..15 (all
 * complete; A15 went at c35) and stage 1 reserves primitive 16 in the same cycle.
 *   tf.primitive_table_full_cycles = c32..c57 = 26 cycles;
 *   P16 sent at c59 (with unlimited entries: c33, the first free port cycle after P15 -> 26
 *   cycles later); 16 pointer requests before c58; resp c61, A16 c62 (resp c64);
 *   Raster Unit pops primitives 0..15 at c59..c74, 16 at c75, END at c76. */
static void test_capacity(harness *h)
{
    uint32_t l0[17], off[17];
    for (uint32_t p = 0; p < 17; p++) {
        l0[p] = p;
        off[p] = p ? 4096 + 64 * p : 0;
    }
    const uint32_t *lists[] = {l0};
    const uint32_t n[] = {17};
    setup(h, 1, lists, n, 17, off, true, 64);
    warm(h, LIST_ADDR(0, 0));
    warm(h, LIST_ADDR(0, 16));
    for (uint32_t p = 1; p < 17; p++) warm(h, ATTR_ADDR(off[p]));
    begin(h);
    run(h);
    dump(h);
    CHECK_EQ("tf.primitive_table_full_cycles", tbr_stat_value(h->tf.pt_full), 26);
    uint32_t before = 0;
    uint64_t p15 = 0, p16 = 0, np = 0;
    for (uint32_t i = 0; i < h->nreq; i++)
        if (h->req_kind[i] == 'P') {
            if (h->req_cyc[i] < 58) before++;
            if (np == 15) p15 = h->req_cyc[i];
            if (np == 16) p16 = h->req_cyc[i];
            np++;
        }
    CHECK_EQ("pointer requests", np, 17);
    CHECK_EQ("pointer requests before c58", before, 16);
    CHECK_EQ("P15 cycle", p15, 32);
    CHECK_EQ("P16 cycle", p16, 59);
    CHECK_EQ("primitive 0 complete", h->done_cyc[0] - 1, 58);
    CHECK_EQ("primitive 15 complete", h->done_cyc[15] - 1, 37);
    CHECK_EQ("tokens popped", h->npop, 19);
    for (uint32_t i = 1; i < 18 && i < h->npop; i++) {
        char what[64];
        snprintf(what, sizeof what, "token %u", i);
        CHECK_EQ(what, h->pop_tok[i], TOK(TOK_ITEM, i - 1));
        snprintf(what, sizeof what, "token %u cycle", i);
        CHECK_EQ(what, h->pop_cyc[i], 58 + i);
    }
    teardown(h);
}

/* 3. Attributes-first arbiter. One tile with primitives 0..3, everything warm (hits).
 *   c1 reserve 0; c2 P0 (resp c4), reserve 1; c3 P1 (resp c5), reserve 2;
 *   c4 P2 (resp c6), reserve 3 -> Primitive Pointer register holds primitive 3;
 *   c4 P0's response queues A0 for c5; c5 P1's -> A1 for c6; c6 P2's -> A2 for c7.
 *   c5: A0 and the pointer of 3 compete -> A0 wins; c6: A1 wins; c7: A2 wins;
 *   c8: attribute queue empty -> P3 goes (resp c10 -> A3 at c11).
 * Request log: P@2 P@3 P@4 A@5 A@6 A@7 P@8 A@11 (a pointer-first arbiter would send P3 at c5). */
static void test_arbiter(harness *h)
{
    static const uint32_t l0[] = {0, 1, 2, 3};
    const uint32_t *lists[] = {l0};
    const uint32_t n[] = {4};
    const uint32_t off[] = {4096, 4096 + 64, 4096 + 128, 4096 + 192};
    setup(h, 1, lists, n, 4, off, true, 16);
    warm(h, LIST_ADDR(0, 0));
    for (uint32_t p = 0; p < 4; p++) warm(h, ATTR_ADDR(off[p]));
    begin(h);
    run(h);
    dump(h);
    static const char kind[] = "PPPAAAPA";
    static const uint64_t cyc[] = {2, 3, 4, 5, 6, 7, 8, 11};
    CHECK_EQ("requests", h->nreq, 8);
    for (uint32_t i = 0; i < 8 && i < h->nreq; i++) {
        char what[64];
        snprintf(what, sizeof what, "request %u kind", i);
        CHECK_EQ(what, h->req_kind[i], kind[i]);
        snprintf(what, sizeof what, "request %u cycle", i);
        CHECK_EQ(what, h->req_cyc[i], cyc[i]);
    }
    teardown(h);
}

/* 4. Pipelined vs baseline. Two tiles, one primitive each (0 in tile 0, 1 in tile 1),
 * everything warm; the stub Raster Unit spends 20 cycles per primitive.
 * Pipelined (tile.fetcher_pipelined=true):
 *   c0 BEGIN0; c1 reserve 0; c2 P0 (resp c4), END0 marker, RU pops BEGIN0;
 *   c3 BEGIN1 marker (does not wait for the Raster Unit); c4 reserve 1;
 *   c5 A0 (resp c7; P1 waits: attributes first); c6 P1 (resp c8), END1 marker;
 *   c7 push prim 0, END0, BEGIN1 (visible c8); c8 RU pops prim 0, busy until c28;
 *   c9 A1 (resp c11); c11 push prim 1, END1.
 *   RU: END0 c28, BEGIN1 c29, prim 1 c30 (busy until c50), END1 c50.
 * Baseline (false): tile 1's BEGIN waits until the table is empty and the Raster Unit is
 *   idle: END0 popped c28 (after tf_tick) -> BEGIN1 marker c29; c30 BEGIN1 pushed (visible
 *   c31), reserve 1; c31 P1 (resp c33), RU pops BEGIN1; c34 A1 (resp c36); c36 push
 *   prim 1, END1 (visible c37); RU pops prim 1 c37 (busy until c57), END1 c57.
 * Difference: 57 - 50 = 7 cycles = prim 1 reaches the Raster Unit at c37 instead of c30
 * (in the pipelined case tile 1 was fetched during cycles 3..11, under tile 0's render). */
static uint64_t run_two_tiles(harness *h, bool pipelined, uint64_t *end0, uint64_t *prim1)
{
    static const uint32_t l0[] = {0}, l1[] = {1};
    const uint32_t *lists[] = {l0, l1};
    const uint32_t n[] = {1, 1};
    const uint32_t off[] = {4096, 4096 + 64};
    setup(h, 2, lists, n, 2, off, pipelined, 16);
    h->render = 20;
    warm(h, LIST_ADDR(0, 0));
    warm(h, LIST_ADDR(1, 0));
    warm(h, ATTR_ADDR(off[0]));
    warm(h, ATTR_ADDR(off[1]));
    begin(h);
    run(h);
    dump(h);
    CHECK_EQ("tokens popped", h->npop, 6);
    *end0 = h->npop > 2 ? h->pop_cyc[2] : 0;
    *prim1 = h->npop > 4 ? h->pop_cyc[4] : 0;
    /* tile 1's pointer request: c6 pipelined (during tile 0's render, c8..c28), c31 baseline */
    CHECK_EQ("requests", h->nreq, 4);
    CHECK_EQ("tile 1 pointer request kind", h->nreq > 2 ? h->req_kind[2] : 0, 'P');
    CHECK_EQ("tile 1 pointer request cycle", h->nreq > 2 ? h->req_cyc[2] : 0, pipelined ? 6 : 31);
    uint64_t end1 = h->npop > 5 ? h->pop_cyc[5] : 0;
    teardown(h);
    return end1;
}

static void test_pipelined(harness *h)
{
    uint64_t e0p, e0b, p1p, p1b;
    uint64_t p = run_two_tiles(h, true, &e0p, &p1p);
    uint64_t b = run_two_tiles(h, false, &e0b, &p1b);
    CHECK_EQ("pipelined: END0 popped at", e0p, 28);
    CHECK_EQ("pipelined: prim 1 popped at", p1p, 30);
    CHECK_EQ("baseline: prim 1 popped at", p1b, 37);
    CHECK_EQ("pipelined: END1 popped at", p, 50);
    CHECK_EQ("baseline: END0 popped at", e0b, 28);
    CHECK_EQ("baseline: END1 popped at", b, 57);
    CHECK_EQ("baseline - pipelined", b - p, 7);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    harness h;
    if (!strcmp(which, "ordering"))
        test_ordering(&h);
    else if (!strcmp(which, "capacity"))
        test_capacity(&h);
    else if (!strcmp(which, "arbiter"))
        test_arbiter(&h);
    else if (!strcmp(which, "pipelined"))
        test_pipelined(&h);
    else {
        fprintf(stderr, "usage: %s ordering|capacity|arbiter|pipelined\n", argv[0]);
        return 2;
    }
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("ok %s\n", which);
    return 0;
}
