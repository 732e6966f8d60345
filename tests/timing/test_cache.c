/* timing.cache: hand-traced hit/miss/eviction/LRU sequence on a 2-set x
 * 2-way cache, MSHR merging, MSHR-full stalls, write-back behaviour
 * (timing/memory/cache.h). */
#include <stdlib.h>
#include <string.h>

#include "memory/cache.h"
#include "tcheck.h"

#define MEM_LAT 10 /* fake next level: fill ready MEM_LAT cycles after it takes the request */

typedef struct {
    tbr_cache *c;
    tbr_stats *s;
    uint64_t now;
    uint64_t mem_reads, wb_addr[16];
    unsigned nwb;
} rig;

static void rig_init(rig *r, uint32_t mshrs, uint32_t targets)
{
    memset(r, 0, sizeof *r);
    r->s = tbr_stats_new();
    /* 256 B / (64 B * 2 ways) = 2 sets; set = (addr >> 6) & 1 */
    tbr_cache_params p = {.name = "t",
                          .size_bytes = 256,
                          .ways = 2,
                          .line_bytes = 64,
                          .banks = 1,
                          .latency = 2,
                          .mshrs = mshrs,
                          .mshr_targets = targets,
                          .req_queue = 16,
                          .resp_queue = 16,
                          .miss_queue = 16,
                          .fill_queue = 16};
    char err[256];
    r->c = tbr_cache_new(&p, r->s, err, sizeof err);
    if (!r->c) {
        fprintf(stderr, "cache_new: %s\n", err);
        exit(1);
    }
}

static void rig_free(rig *r)
{
    tbr_cache_free(r->c);
    tbr_stats_free(r->s);
}

/* One cycle: next level takes ready requests (reads come back as fills
 * MEM_LAT later, write-backs are recorded), then the cache ticks. */
static void cycle(rig *r)
{
    const tbr_mem_msg *m;
    while ((m = tbr_memq_peek(tbr_cache_miss_out(r->c), r->now)) != NULL) {
        if (m->write) {
            if (r->nwb < 16) r->wb_addr[r->nwb++] = m->addr;
        } else {
            tbr_mem_msg f = *m;
            f.ready = r->now + MEM_LAT;
            r->mem_reads++;
            if (!tbr_memq_push(tbr_cache_fill_in(r->c), &f)) abort();
        }
        tbr_memq_pop(tbr_cache_miss_out(r->c));
    }
    tbr_cache_tick(r->c, r->now);
}

static void send(rig *r, uint64_t addr, int write, uint64_t id)
{
    tbr_mem_msg m = {.addr = addr, .id = id, .issued = r->now, .ready = r->now, .write = (uint8_t)write};
    if (!tbr_memq_push(tbr_cache_req_in(r->c), &m)) abort();
}

/* Run until `n` responses arrived; store them in order. */
static void run_until(rig *r, unsigned n, tbr_mem_msg *out, uint64_t *when)
{
    unsigned got = 0;
    for (int guard = 0; got < n && guard < 10000; guard++) {
        cycle(r);
        const tbr_mem_msg *m;
        while (got < n && (m = tbr_memq_peek(tbr_cache_resp_out(r->c), r->now)) != NULL) {
            out[got] = *m;
            when[got] = r->now;
            got++;
            tbr_memq_pop(tbr_cache_resp_out(r->c));
        }
        r->now++;
    }
    CHECK_EQ_U(got, n);
}

/* One access to completion: returns hit flag, latency in *lat. */
static int access1(rig *r, uint64_t addr, int write, uint64_t *lat)
{
    uint64_t t0 = r->now, when;
    tbr_mem_msg resp;
    send(r, addr, write, 0);
    run_until(r, 1, &resp, &when);
    CHECK_EQ_U(resp.addr, addr);
    *lat = when - t0;
    return resp.hit;
}

static uint64_t stat(rig *r, const char *name)
{
    tbr_stat *s = tbr_stats_find(r->s, name);
    CHECK(s != NULL);
    return tbr_stat_value(s);
}

static void test_lru_sequence(void)
{
    rig r;
    rig_init(&r, 4, 4);
    const uint64_t A = 0x000, B = 0x080, C = 0x100, D = 0x040, E = 0x0C8; /* sets 0,0,0,1,1 */
    /* step: address, write, expected hit, expected evictions after, writebacks after
   * 1 R A  miss            set0 [A]
   * 2 R B  miss            set0 [A B]      LRU = A
   * 3 R A  hit             LRU = B
   * 4 R C  miss, evict B   set0 [A C]      LRU = A
   * 5 W A  hit, A dirty    LRU = C
   * 6 R D  miss            set1 [D]        (no eviction)
   * 7 R B  miss, evict C   set0 [A B]      LRU = A (clean C: no write-back)
   * 8 R C  miss, evict A   set0 [C B]      A dirty -> write-back of 0x000
   * 9 R E  miss            set1 [D E]
   * 10 R D+4 hit
   * Latencies: hit = latency 2; miss = 2 (tag check) + MEM_LAT + 1 (fill
   * to response) = 13. */
    struct {
        uint64_t a;
        int w, hit;
        unsigned ev, wb;
    } seq[] = {{A, 0, 0, 0, 0}, {B, 0, 0, 0, 0}, {A, 0, 1, 0, 0}, {C, 0, 0, 1, 0}, {A, 1, 1, 1, 0},
               {D, 0, 0, 1, 0}, {B, 0, 0, 2, 0}, {C, 0, 0, 3, 1}, {E, 0, 0, 3, 1}, {D + 4, 0, 1, 3, 1}};
    for (unsigned i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        uint64_t lat;
        int hit = access1(&r, seq[i].a, seq[i].w, &lat);
        if (hit != seq[i].hit) fprintf(stderr, "step %u: hit=%d expected %d\n", i + 1, hit, seq[i].hit);
        CHECK(hit == seq[i].hit);
        CHECK_EQ_U(lat, seq[i].hit ? 2 : 13);
        CHECK_EQ_U(stat(&r, "t.evictions"), seq[i].ev);
        CHECK_EQ_U(stat(&r, "t.writebacks"), seq[i].wb);
        if (i == 3) { /* LRU victim of step 4 was B */
            CHECK(tbr_cache_contains(r.c, A, NULL));
            CHECK(!tbr_cache_contains(r.c, B, NULL));
            CHECK(tbr_cache_contains(r.c, C, NULL));
        }
        if (i == 4) {
            bool dirty;
            CHECK(tbr_cache_contains(r.c, A, &dirty) && dirty);
        }
        if (i == 6) CHECK(!tbr_cache_contains(r.c, C, NULL) && tbr_cache_contains(r.c, A, NULL));
    }
    CHECK_EQ_U(r.nwb, 1);
    CHECK_EQ_U(r.wb_addr[0], A);
    CHECK_EQ_U(stat(&r, "t.accesses"), 10);
    CHECK_EQ_U(stat(&r, "t.hits"), 3);
    CHECK_EQ_U(stat(&r, "t.misses"), 7);
    CHECK_EQ_U(stat(&r, "t.write_hits"), 1);
    CHECK_EQ_U(stat(&r, "t.read_misses"), 7);
    CHECK_EQ_U(stat(&r, "t.fills"), 7);
    CHECK_EQ_U(r.mem_reads, 7);
    CHECK(tbr_stat_mean(tbr_stats_find(r.s, "t.miss_latency")) == 2.0 + MEM_LAT); /* alloc -> fill */
    CHECK(tbr_cache_idle(r.c));
    rig_free(&r);
}

static void test_mshr_merge(void)
{
    rig r;
    rig_init(&r, 4, 4);
    /* two reads to the same line (and one write) issued together: one bank,
   * so one per cycle; the 2nd and 3rd merge into the MSHR of the 1st */
    send(&r, 0x200, 0, 1);
    send(&r, 0x208, 0, 2);
    send(&r, 0x230, 1, 3);
    tbr_mem_msg out[3];
    uint64_t when[3];
    run_until(&r, 3, out, when);
    CHECK_EQ_U(r.mem_reads, 1); /* one request to the next level */
    CHECK_EQ_U(stat(&r, "t.misses"), 3);
    CHECK_EQ_U(stat(&r, "t.mshr_merges"), 2);
    CHECK_EQ_U(stat(&r, "t.bank_conflicts"), 2); /* cycle 0 and 1 each stop on the busy bank */
    /* all answered by the one fill: miss at 0 -> fill at 0+2+10 = 12 ->
   * responses ready at 13, in request order */
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_U(when[i], 13);
        CHECK_EQ_U(out[i].id, (uint64_t)(i + 1));
        CHECK(!out[i].hit);
    }
    bool dirty;
    CHECK(tbr_cache_contains(r.c, 0x200, &dirty) && dirty); /* merged write-allocate */
    rig_free(&r);
}

static void test_mshr_full(void)
{
    rig r;
    rig_init(&r, 2, 4); /* two MSHRs */
    send(&r, 0x400, 0, 1);
    send(&r, 0x500, 0, 2);
    send(&r, 0x600, 0, 3);
    tbr_mem_msg out[3];
    uint64_t when[3];
    run_until(&r, 3, out, when);
    /* cycle 0: miss 0x400 (MSHR 1), cycle 1: miss 0x500 (MSHR 2),
   * cycles 2..11: 0x600 stalls, no MSHR free (10 stall cycles),
   * cycle 12: fill of 0x400 (0+2+10) frees an MSHR, 0x600 allocates;
   * responses: 0x400 at 13, 0x500 at 14 (fill at 1+2+10 = 13),
   * 0x600 at 12+2+10+1 = 25. */
    CHECK_EQ_U(stat(&r, "t.mshr_full_stalls"), 10);
    CHECK_EQ_U(r.mem_reads, 3);
    CHECK_EQ_U(when[0], 13);
    CHECK_EQ_U(when[1], 14);
    CHECK_EQ_U(when[2], 25);
    CHECK_EQ_U(out[2].id, 3);
    rig_free(&r);
}

static void test_targets_full_and_wb(void)
{
    rig r;
    rig_init(&r, 2, 2); /* two targets per MSHR */
    send(&r, 0x800, 0, 1);
    send(&r, 0x810, 0, 2);
    send(&r, 0x820, 0, 3); /* third request to the line: no target slot */
    tbr_mem_msg out[3];
    uint64_t when[3];
    run_until(&r, 3, out, when);
    /* cycle 0 allocate, cycle 1 merge, cycles 2..11 target stalls, fill at 12
   * frees the MSHR and in the same cycle 0x820 hits the new line:
   * response at 12 + 2 = 14 */
    CHECK_EQ_U(stat(&r, "t.mshr_target_stalls"), 10);
    CHECK_EQ_U(when[2], 14);
    CHECK(out[2].hit);
    CHECK_EQ_U(r.mem_reads, 1);
    /* full-line write-back from an upper level to an absent line: allocated
   * dirty without a fetch and without a response */
    tbr_mem_msg wb = {.addr = 0x900, .ready = r.now, .write = 1, .wb = 1};
    tbr_memq_push(tbr_cache_req_in(r.c), &wb);
    for (int i = 0; i < 5; i++) {
        cycle(&r);
        r.now++;
    }
    bool dirty;
    CHECK(tbr_cache_contains(r.c, 0x900, &dirty) && dirty);
    CHECK_EQ_U(r.mem_reads, 1);
    CHECK(tbr_memq_empty(tbr_cache_resp_out(r.c)));
    rig_free(&r);
}

int main(void)
{
    test_lru_sequence();
    test_mshr_merge();
    test_mshr_full();
    test_targets_full_and_wb();
    /* invalid geometry is refused with a message */
    tbr_cache_params p = {.name = "bad",
                          .size_bytes = 192,
                          .ways = 2,
                          .line_bytes = 64,
                          .banks = 1,
                          .latency = 1,
                          .mshrs = 1,
                          .mshr_targets = 1,
                          .req_queue = 1,
                          .resp_queue = 1,
                          .miss_queue = 1,
                          .fill_queue = 1};
    char err[256];
    CHECK(tbr_cache_new(&p, NULL, err, sizeof err) == NULL);
    CHECK_STR_CONTAINS(err, "bad");
    /* params from the config table: thesis L2 = 2 MiB / (64 B * 8) = 4096 sets */
    tbr_config *cfg = tbr_config_new();
    tbr_cache_params lp;
    tbr_cache_params_from_config(cfg, "l2", "l2", &lp);
    tbr_cache *l2 = tbr_cache_new(&lp, NULL, err, sizeof err);
    CHECK(l2 != NULL);
    CHECK_EQ_U(tbr_cache_sets(l2), 4096);
    CHECK_EQ_U(lp.latency, 18);
    tbr_cache_free(l2);
    tbr_config_free(cfg);
    return T_RESULT();
}
