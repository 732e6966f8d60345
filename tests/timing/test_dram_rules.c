/* timing.dram_rules: one exact-latency case per DRAM timing rule (each case is built so
 * that its rule is the binding constraint: removing the rule's enforcement changes the
 * asserted cycle), and hand-worked cases of the split controller (write drain at its
 * watermarks holding reads back, per-bank round robin, read-after-write forwarding).
 *
 * Configuration of every case (docs/dram-model.md): 1 channel, x32 bus, BL16 -> one
 * 64 B burst per request, refresh off, ctrl_latency 0 (a request is ready when its data
 * ends), default LPDDR4 timings: CL 24, CWL 12, tRCD 22, tRP 22, tRAS 51, tRRD 12,
 * tFAW 48, tWR 22, tWTR 12, tRTP 9, tCCD 8, tRTRS 2, burst 8 cycles.
 * Address map ro:ra:bg:ba:co:ch above a 6-bit offset: bits 6-11 column, then bank (3
 * bits; with 2 bank groups: 2 bits bank + 1 bit group, bank index = group*4 + bank),
 * bit 15 rank, bits 16.. row.
 */
#include <stdlib.h>
#include <string.h>

#include "memory/dram.h"
#include "tcheck.h"

#define MAXSETS 24

static tbr_dram *make(const char *const *extra)
{
    const char *base[] = {"dram.channels=1", "dram.bus_width=32", "dram.refresh=false", "dram.ctrl_latency=0"};
    tbr_config *cfg = tbr_config_new();
    char err[512];
    for (size_t i = 0; i < sizeof base / sizeof *base; i++)
        CHECK(tbr_config_apply_override(cfg, base[i], err, sizeof err) == 0);
    for (; extra && *extra; extra++)
        if (tbr_config_apply_override(cfg, *extra, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            exit(1);
        }
    tbr_dram *d = tbr_dram_new(cfg, NULL, err, sizeof err);
    if (!d) {
        fprintf(stderr, "dram_new: %s\n", err);
        exit(1);
    }
    tbr_config_free(cfg);
    return d;
}

static uint64_t addr(uint32_t rank, uint32_t bank, uint32_t row, uint32_t col)
{
    return (uint64_t)row << 16 | (uint64_t)rank << 15 | (uint64_t)bank << 12 | (uint64_t)col << 6;
}

static void enq(tbr_dram *d, uint64_t a, int write, uint64_t id)
{
    tbr_mem_msg m = {.addr = a, .id = id, .issued = tbr_dram_now(d), .write = (uint8_t)write};
    CHECK(tbr_dram_enqueue(d, &m));
}

/* Ticks until the DRAM is idle; ready[id] = completion cycle of response id. */
static void drain(tbr_dram *d, uint64_t *ready, unsigned n)
{
    tbr_mem_msg r;
    for (int guard = 0; guard < 100000 && !tbr_dram_idle(d); guard++) {
        tbr_dram_tick(d);
        while (tbr_dram_pop_response(d, &r))
            if (r.id < n) ready[r.id] = r.ready;
    }
    CHECK(tbr_dram_idle(d));
}

static void tick_to(tbr_dram *d, uint64_t t)
{
    while (tbr_dram_now(d) < t) tbr_dram_tick(d);
}

/* Opens row 0 of each listed (rank, bank) and waits until idle (and beyond tRAS etc.);
 * returns the cycle after. */
static uint64_t warm(tbr_dram *d, const uint32_t (*rb)[2], unsigned n)
{
    uint64_t ready[16];
    for (unsigned i = 0; i < n; i++) enq(d, addr(rb[i][0], rb[i][1], 0, 63), 0, 100 + i);
    drain(d, ready, 0);
    uint64_t t = tbr_dram_now(d) + 200;
    tick_to(d, t);
    return t;
}

static void test_trrd_tfaw(void)
{
    uint64_t r[8] = {0};
    /* tRRD: ACT b0 @0, ACT b1 @12; RD b0 @22, RD b1 @34 (tRCD after its ACT); data of
     * b1 ends 34+24+8 = 66 (without tRRD: ACT @1, RD @30 by tCCD -> 62) */
    tbr_dram *d = make(NULL);
    enq(d, addr(0, 0, 0, 0), 0, 0);
    enq(d, addr(0, 1, 0, 0), 0, 1);
    drain(d, r, 2);
    CHECK_EQ_U(r[0], 22 + 24 + 8);
    CHECK_EQ_U(r[1], 12 + 22 + 24 + 8);
    tbr_dram_free(d);
    /* tFAW 60: ACTs @0, 12, 24, 36 (tRRD), the fifth @60 (not 48); its RD @82 -> 114 */
    const char *faw[] = {"dram.tFAW=60", NULL};
    d = make(faw);
    for (unsigned b = 0; b < 5; b++) enq(d, addr(0, b, 0, 0), 0, b);
    drain(d, r, 5);
    CHECK_EQ_U(r[3], 36 + 22 + 24 + 8);
    CHECK_EQ_U(r[4], 60 + 22 + 24 + 8);
    tbr_dram_free(d);
}

static void test_twtr_twr_trtp_tras(void)
{
    uint64_t r[4] = {0};
    /* tWTR: W b0 and R b1 at 0: ACT @0 / @12, WR @22, write data 34..42; RD not before
     * 42 + tWTR 12 = 54 -> 54+24+8 = 86 (without tWTR: RD @34 -> 66) */
    tbr_dram *d = make(NULL);
    enq(d, addr(0, 0, 0, 0), 1, 0);
    enq(d, addr(0, 1, 0, 0), 0, 1);
    drain(d, r, 2);
    CHECK_EQ_U(r[0], 22 + 12 + 8);
    CHECK_EQ_U(r[1], 42 + 12 + 24 + 8);
    tbr_dram_free(d);
    /* tWR: W row 0 then R row 1, same bank: WR @22, data ends 42, PRE @42+22 = 64 (tRAS
     * would allow 51), ACT @86, RD @108 -> 140 */
    d = make(NULL);
    enq(d, addr(0, 0, 0, 0), 1, 0);
    enq(d, addr(0, 0, 1, 0), 0, 1);
    drain(d, r, 2);
    CHECK_EQ_U(r[1], 64 + 22 + 22 + 24 + 8);
    tbr_dram_free(d);
    /* tRAS: R row 0 then R row 1: RD @22, PRE @51 (tRTP allows 31), ACT @73, RD @95 -> 127 */
    d = make(NULL);
    enq(d, addr(0, 0, 0, 0), 0, 0);
    enq(d, addr(0, 0, 1, 0), 0, 1);
    drain(d, r, 2);
    CHECK_EQ_U(r[1], 51 + 22 + 22 + 24 + 8);
    tbr_dram_free(d);
    /* tRTP 40: the same, PRE @22+40 = 62 -> 138 */
    const char *rtp[] = {"dram.tRTP=40", NULL};
    d = make(rtp);
    enq(d, addr(0, 0, 0, 0), 0, 0);
    enq(d, addr(0, 0, 1, 0), 0, 1);
    drain(d, r, 2);
    CHECK_EQ_U(r[1], 62 + 22 + 22 + 24 + 8);
    tbr_dram_free(d);
}

static void test_trtrs_ccd_ranks(void)
{
    uint64_t r[4] = {0};
    /* tRTRS: R rank 0 and R rank 1 at 0: ACT @0 / @1 (other rank: no tRRD), RD r0 @22
     * (data 46..54), RD r1 waits for the bus: 54 + 2 - 24 = 32 (tCCD allows 30) -> 64 */
    tbr_dram *d = make(NULL);
    enq(d, addr(0, 0, 0, 0), 0, 0);
    enq(d, addr(1, 0, 0, 0), 0, 1);
    drain(d, r, 2);
    CHECK_EQ_U(r[1], 32 + 24 + 8);
    tbr_dram_free(d);
    /* cross-rank WR -> RD with rows open: WR r0 @T (data T+12..T+20); RD r1: the bus allows
     * T-2, tWTR is per rank; tCCD across ranks (default) -> RD @T+8 -> T+40; with
     * dram.tCCD_across_ranks=false only one command per cycle -> RD @T+1 -> T+33 */
    static const uint32_t rb[][2] = {{0, 0}, {1, 0}};
    for (int across = 1; across >= 0; across--) {
        const char *sets[] = {across ? "dram.tCCD_across_ranks=true" : "dram.tCCD_across_ranks=false", NULL};
        d = make(sets);
        uint64_t t = warm(d, rb, 2);
        enq(d, addr(0, 0, 0, 1), 1, 0);
        enq(d, addr(1, 0, 0, 1), 0, 1);
        drain(d, r, 2);
        CHECK_EQ_U(r[1] - t, (across ? 8u : 1u) + 24 + 8);
        tbr_dram_free(d);
    }
}

/* Two row hits at T to banks (0, a) and (0, b), rows open: the second column command's
 * cycle after T, from the second request's completion. */
static uint64_t second_col(const char *const *sets, uint32_t a, uint32_t b, int first_write)
{
    uint64_t r[2] = {0};
    const uint32_t rb[][2] = {{0, a}, {0, b}};
    tbr_dram *d = make(sets);
    uint64_t t = warm(d, rb, 2);
    enq(d, addr(0, a, 0, 1), first_write, 0);
    enq(d, addr(0, b, 0, 1), 0, 1);
    drain(d, r, 2);
    tbr_dram_free(d);
    return r[1] - t - 24 - 8;
}

static void test_bank_groups(void)
{
    /* 2 bank groups of 4 banks: banks 0 and 1 share group 0, bank 4 is in group 1 */
    const char *ccd[] = {"dram.bankgroups=2", "dram.tCCD_L=12", NULL};
    CHECK_EQ_U(second_col(ccd, 0, 1, 0), 12); /* tCCD_L, same group */
    CHECK_EQ_U(second_col(ccd, 0, 4, 0), 8);  /* tCCD_S, other group */
    /* WR @T, data ends T+20; RD same group T+20+tWTR_L 20 = T+40, other group T+20+12 */
    const char *wtr[] = {"dram.bankgroups=2", "dram.tWTR_L=20", NULL};
    CHECK_EQ_U(second_col(wtr, 0, 1, 1), 40);
    CHECK_EQ_U(second_col(wtr, 0, 4, 1), 32);
    /* tRRD_L 20: ACT b0 @0, ACT b1 (same group) @20 -> RD @42 -> 74; b4 @12 -> 66 */
    const char *rrd[] = {"dram.bankgroups=2", "dram.tRRD_L=20", NULL};
    for (uint32_t other = 1; other <= 4; other += 3) {
        uint64_t r[2] = {0};
        tbr_dram *d = make(rrd);
        enq(d, addr(0, 0, 0, 0), 0, 0);
        enq(d, addr(0, other, 0, 0), 0, 1);
        drain(d, r, 2);
        CHECK_EQ_U(r[1], (other == 1 ? 20u : 12u) + 22 + 24 + 8);
        tbr_dram_free(d);
    }
}

static void test_tppd(void)
{
    /* rows 0 open in banks 0 and 1; conflicts to row 1 of both at T: PRE b0 @T, PRE b1
     * @T+20 (tPPD; else T+1), ACT b0 @T+22, ACT b1 @T+42 (else T+34 by tRRD), RD @T+64
     * -> T+96 (else T+88) */
    static const uint32_t rb[][2] = {{0, 0}, {0, 1}};
    for (int ppd = 0; ppd <= 1; ppd++) {
        const char *sets[] = {ppd ? "dram.tPPD=20" : "dram.tPPD=0", NULL};
        uint64_t r[2] = {0};
        tbr_dram *d = make(sets);
        uint64_t t = warm(d, rb, 2);
        enq(d, addr(0, 0, 1, 0), 0, 0);
        enq(d, addr(0, 1, 1, 0), 0, 1);
        drain(d, r, 2);
        CHECK_EQ_U(r[1] - t, (ppd ? 42u : 34u) + 22 + 24 + 8);
        tbr_dram_free(d);
    }
}

/* Split controller: per-bank command queues, write buffer of 8 with watermarks 4 / 1 and
 * no idle drain. */
static void test_write_drain(void)
{
    const char *sets[] = {"dram.queue_structure=per_bank", "dram.queue_size=8",         "dram.write_high_watermark=4",
                          "dram.write_low_watermark=1",    "dram.write_idle_drain=100", NULL};
    tbr_stats *st = tbr_stats_new();
    tbr_config *cfg = tbr_config_new();
    char err[256];
    const char *base[] = {"dram.channels=1", "dram.bus_width=32", "dram.refresh=false", "dram.ctrl_latency=0"};
    for (size_t i = 0; i < 4; i++) CHECK(tbr_config_apply_override(cfg, base[i], err, sizeof err) == 0);
    for (const char *const *s = sets; *s; s++) CHECK(tbr_config_apply_override(cfg, *s, err, sizeof err) == 0);
    tbr_dram *d = tbr_dram_new(cfg, st, err, sizeof err);
    CHECK(d != NULL);
    tbr_config_free(cfg);
    uint64_t r[8] = {0};
    /* three writes (banks 0-2 of rank 0): below the high watermark they wait, answered
     * (posted) at once, and the controller is idle */
    for (unsigned i = 0; i < 3; i++) enq(d, addr(0, i, 0, 0), 1, i);
    drain(d, r, 8);
    tick_to(d, 1000);
    tbr_dram_counts c;
    tbr_dram_get_counts(d, &c);
    CHECK_EQ_U(c.wr, 0);
    CHECK_EQ_U(r[0], 0);
    /* the fourth write reaches the watermark: the drain moves 4 - 1 = 3 writes (cycles
     * 1000-1002), holding back the read enqueued with it (rank 1: no tRRD/tWTR coupling),
     * which moves at 1003: ACT @1004, RD @1031 (tRCD allows 1026, but the first write's WR
     * @1001+22 = 1023 holds column commands until 1031 by tCCD) -> 1063; without the
     * drain it would move at 1000: ACT @1001, RD @1023 -> 1055 */
    enq(d, addr(0, 3, 0, 0), 1, 3);
    enq(d, addr(1, 0, 0, 0), 0, 4);
    drain(d, r, 8);
    CHECK_EQ_U(r[4], 1023 + 8 + 24 + 8);
    tbr_dram_get_counts(d, &c);
    CHECK_EQ_U(c.wr, 3); /* one write stays buffered (the low watermark) */
    CHECK_EQ_U(tbr_stat_value(tbr_stats_find(st, "dram.write_drains")), 1);
    /* a read of a buffered write's line is answered from the write buffer (ctrl 0 -> at
     * once); the buffered write is the youngest of the four (bank 3) */
    uint64_t t = tbr_dram_now(d);
    enq(d, addr(0, 3, 0, 0), 0, 5);
    drain(d, r, 8);
    CHECK_EQ_U(r[5], t);
    CHECK_EQ_U(tbr_stat_value(tbr_stats_find(st, "dram.reads_forwarded")), 1);
    tbr_dram_free(d);
    tbr_stats_free(st);
}

/* Per-bank round robin: rows open in banks 0-2; then hits to bank 0, 0, 1, 2 at once.
 * FR-FCFS (unified) serves them oldest first; the per-bank queues serve one command per
 * queue in turn: 0, 1, 2, 0. Completion order by id. */
static void rr_order(const char *structure, uint64_t *order)
{
    const char *sets[] = {structure, NULL};
    static const uint32_t rb[][2] = {{0, 0}, {0, 1}, {0, 2}};
    tbr_dram *d = make(sets);
    warm(d, rb, 3);
    const uint32_t bank[4] = {0, 0, 1, 2};
    for (unsigned i = 0; i < 4; i++) enq(d, addr(0, bank[i], 0, 1 + i), 0, i);
    tbr_mem_msg m;
    unsigned got = 0;
    for (int guard = 0; guard < 10000 && got < 4; guard++) {
        tbr_dram_tick(d);
        while (got < 4 && tbr_dram_pop_response(d, &m)) order[got++] = m.id;
    }
    CHECK_EQ_U(got, 4);
    tbr_dram_free(d);
}

static void test_round_robin(void)
{
    uint64_t o[4];
    rr_order("dram.queue_structure=unified", o);
    CHECK(o[0] == 0 && o[1] == 1 && o[2] == 2 && o[3] == 3);
    rr_order("dram.queue_structure=per_bank", o);
    CHECK(o[0] == 0 && o[1] == 2 && o[2] == 3 && o[3] == 1);
}

/* tbr_dram_skip_to over a long idle span (refresh on, default geometry: 2 channels x 2
 * ranks) ends in the same state as ticking every cycle with the reference scan: the same
 * REF/PRE/ACT counts, last REF cycles, rank residency, and the same latency of a request
 * after the span. The span starts with open rows (the first REFs must close them). */
static void test_skip_idle(void)
{
    tbr_config *cfg = tbr_config_new();
    char err[256];
    tbr_dram *a = tbr_dram_new(cfg, NULL, err, sizeof err), *b = tbr_dram_new(cfg, NULL, err, sizeof err);
    tbr_config_free(cfg);
    tbr_dram_set_reference_scan(b, true);
    const uint64_t span = 2000003, probe = 0x12340;
    tbr_dram *m[2] = {a, b};
    uint64_t lat[2];
    for (int k = 0; k < 2; k++) {
        for (uint64_t i = 0; i < 4; i++) enq(m[k], i * 0x40, 0, i); /* both channels, a row open in each */
        if (k == 0)
            tbr_dram_skip_to(m[k], span);
        else
            tick_to(m[k], span);
        tbr_mem_msg r;
        while (tbr_dram_pop_response(m[k], &r)) {}
        enq(m[k], probe, 0, 9);
        uint64_t t0 = tbr_dram_now(m[k]);
        for (int g = 0; g < 100000 && !tbr_dram_pop_response(m[k], &r); g++) tbr_dram_tick(m[k]);
        lat[k] = r.ready - t0;
    }
    CHECK_EQ_U(tbr_dram_now(a), tbr_dram_now(b));
    CHECK_EQ_U(lat[0], lat[1]);
    tbr_dram_counts ca, cb;
    tbr_dram_get_counts(a, &ca);
    tbr_dram_get_counts(b, &cb);
    CHECK_EQ_U(ca.ref, cb.ref);
    CHECK(ca.ref >= 4 * (span / 4685 - 1));
    CHECK_EQ_U(ca.pre, cb.pre);
    CHECK_EQ_U(ca.act, cb.act);
    for (uint32_t c = 0; c < 2; c++)
        for (uint32_t r = 0; r < 2; r++) CHECK_EQ_U(tbr_dram_last_refresh(a, c, r), tbr_dram_last_refresh(b, c, r));
    uint64_t act[2], pre[2];
    tbr_dram_rank_cycles(a, &act[0], &pre[0]);
    tbr_dram_rank_cycles(b, &act[1], &pre[1]);
    CHECK_EQ_U(act[0], act[1]);
    CHECK_EQ_U(pre[0], pre[1]);
    tbr_dram_free(a);
    tbr_dram_free(b);
}

/* Page policy. A read of row 0 at 0: ACT @0, RD @22 -> 54. (a) another read of the row
 * enqueued at 60: open -> row hit, RD @60 -> 92; closed and open_adaptive (nothing else
 * queued) auto-precharged at max(tRAS 51, 22 + tRTP) = 51 -> ACT @73, RD @95 -> 127.
 * (b) both reads enqueued at 0: open and open_adaptive (the second is queued) serve the
 * second as a hit, RD @30 -> 62; closed closes after the first -> 127. */
static void test_page_policy(void)
{
    const char *pol[] = {"dram.page_policy=open", "dram.page_policy=closed", "dram.page_policy=open_adaptive"};
    const uint64_t later[] = {92, 127, 127}, together[] = {62, 127, 62};
    for (int p = 0; p < 3; p++) {
        const char *sets[] = {pol[p], NULL};
        uint64_t r[2] = {0};
        tbr_dram *d = make(sets);
        enq(d, addr(0, 0, 0, 0), 0, 0);
        tick_to(d, 60);
        enq(d, addr(0, 0, 0, 1), 0, 1);
        drain(d, r, 2);
        CHECK_EQ_U(r[0], 54);
        CHECK_EQ_U(r[1], later[p]);
        tbr_dram_free(d);
        d = make(sets);
        enq(d, addr(0, 0, 0, 0), 0, 0);
        enq(d, addr(0, 0, 0, 1), 0, 1);
        drain(d, r, 2);
        CHECK_EQ_U(r[1], together[p]);
        tbr_dram_free(d);
    }
}

int main(void)
{
    test_page_policy();
    test_skip_idle();
    test_trrd_tfaw();
    test_twtr_twr_trtp_tras();
    test_trtrs_ccd_ranks();
    test_bank_groups();
    test_tppd();
    test_write_drain();
    test_round_robin();
    return T_RESULT();
}
