/* Tests of the energy/power model (timing/energy*.c, timing/energy/dram_power.c).
 * Expected values are computed by hand in the comments from the formulas in
 * docs/energy-model.md. Usage: test_timing_energy GROUP CONFIG_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../timing/tcheck.h"
#include "core/config.h"
#include "memory/dram.h"
#include "energy/dram_power.h"
#include "energy/energy.h"
#include "energy/energy_models.h"

#define CHECK_NEAR(a, b, tol)                                                                                          \
    do {                                                                                                               \
        double a_ = (a), b_ = (b);                                                                                     \
        if (!(fabs(a_ - b_) <= (tol))) {                                                                               \
            fprintf(stderr, "%s:%d: %s ~= %s failed: %.9f != %.9f\n", __FILE__, __LINE__, #a, #b, a_, b_);             \
            t_failures++;                                                                                              \
        }                                                                                                              \
    } while (0)

/* 22 nm, 1.0 V vs the 45 nm, 0.9 V reference: s = (22/45) * (1/0.9)^2 = 0.6035665... */
#define S_22 ((22.0 / 45.0) / 0.81)

static tbr_config *defaults(void)
{
    tbr_config *cfg = tbr_config_new();
    char err[256];
    if (tbr_config_validate(cfg, err, sizeof err) != 0) {
        fprintf(stderr, "defaults invalid: %s\n", err);
        exit(1);
    }
    return cfg;
}

static tbr_energy_tech tech22(void)
{
    tbr_energy_tech t = {22, 1.0, 1.0, 0.1};
    return t;
}

/* ---- SRAM: capacity, width, ports, banks, leakage ---- */
static void test_sram(void)
{
    tbr_energy_tech t = tech22();
    /* 8 KiB, 64-bit, 1 bank, 1 port: E = 10 pJ * sqrt(8K/8K) * (0.5 + 0.5*64/64) * 1 * s = 6.035665 pJ */
    double a = tbr_em_sram_access_pj(&t, 8192, 64, 1, 1);
    CHECK_NEAR(a, 10.0 * S_22, 1e-9);
    CHECK_NEAR(a, 6.035665, 1e-6);
    /* 4x capacity: sqrt(4) = 2x */
    CHECK_NEAR(tbr_em_sram_access_pj(&t, 32768, 64, 1, 1) / a, 2.0, 1e-12);
    /* 128x capacity (1 MiB): sqrt(128) = 11.3137x (Horowitz: 100 pJ / 10 pJ = 10x) */
    CHECK_NEAR(tbr_em_sram_access_pj(&t, 1 << 20, 64, 1, 1) / a, sqrt(128.0), 1e-9);
    /* second port: cell pitch 1.5x -> 1.5x; 3 ports 2x */
    CHECK_NEAR(tbr_em_sram_access_pj(&t, 8192, 64, 1, 2) / a, 1.5, 1e-12);
    CHECK_NEAR(tbr_em_sram_access_pj(&t, 8192, 64, 1, 3) / a, 2.0, 1e-12);
    /* 512-bit access: 0.5 + 0.5*8 = 4.5x */
    CHECK_NEAR(tbr_em_sram_access_pj(&t, 8192, 512, 1, 1) / a, 4.5, 1e-12);
    /* 32 KiB in 4 banks: 0.5*sqrt(8K/8K) + 0.5*sqrt(32K/8K) = 0.5 + 1 = 1.5x */
    CHECK_NEAR(tbr_em_sram_access_pj(&t, 32768, 64, 4, 1) / a, 1.5, 1e-12);
    /* monotonic in capacity */
    double prev = 0;
    for (double c = 64; c <= 4 << 20; c *= 2) {
        double e = tbr_em_sram_access_pj(&t, c, 64, 1, 1);
        CHECK(e > prev);
        prev = e;
    }
    /* leakage: 8 KiB = 65536 bits x 1 nW = 65.536 uW = 0.065536 mW; 4x bits -> 4x */
    CHECK_NEAR(tbr_em_sram_leak_mw(&t, 65536, 1), 0.065536, 1e-12);
    CHECK_NEAR(tbr_em_sram_leak_mw(&t, 4 * 65536, 1), 4 * 0.065536, 1e-12);
    /* 2 ports: 8T / 6T */
    CHECK_NEAR(tbr_em_sram_leak_mw(&t, 65536, 2), 0.065536 * 8.0 / 6.0, 1e-12);

    /* through tbr_em_costs: a 3-port register file of 1 KiB x 128 bit
   * E = 10 * sqrt(1024/8192) * (0.5 + 0.5*2) * 2 * s = 10 * 0.353553 * 1.5 * 2 * s = 10.606602 * s = 6.401790 pJ */
    tbr_energy_geom g;
    memset(&g, 0, sizeof g);
    g.bytes = 1024;
    g.width_bits = 128;
    tbr_energy_costs c;
    char err[200];
    CHECK(tbr_em_costs(TBR_EK_REGFILE, &g, &t, &c, err, sizeof err) == 0);
    CHECK_NEAR(c.pj[TBR_EV_READ], 10.0 * sqrt(0.125) * 1.5 * 2.0 * S_22, 1e-9);
    CHECK_NEAR(c.pj[TBR_EV_READ], 6.401790, 1e-6);
    CHECK_EQ_U(c.bits, 8192);
    CHECK_NEAR(c.leak_mw, 8192 * 1e-6 * 10.0 / 6.0, 1e-12);
    /* technology scaling: 45 nm 0.9 V gives the reference 10 pJ exactly */
    tbr_energy_tech ref = {45, 0.9, 1.0, 0.1};
    CHECK_NEAR(tbr_em_sram_access_pj(&ref, 8192, 64, 1, 1), 10.0, 1e-12);
    /* ALU: vec4 FMA = 4 * (0.9 + 3.7) * s = 18.4 * s = 11.105624 pJ */
    memset(&g, 0, sizeof g);
    CHECK(tbr_em_costs(TBR_EK_ALU, &g, &t, &c, err, sizeof err) == 0);
    CHECK_NEAR(c.pj[TBR_EV_FMA], 18.4 * S_22, 1e-9);
    CHECK(c.priced[TBR_EV_SFU] && !c.priced[TBR_EV_READ]);
    /* CRC (RE Compute CRC: 8 x 1 KiB LUTs): 8 * E(1 KiB, 32 bit) + 7 XOR32
   * = 8 * 10*sqrt(1/8)*0.75*s + 7*0.05*s = (21.213203 + 0.35) * s = 13.014763 pJ */
    g.luts = 8;
    CHECK(tbr_em_costs(TBR_EK_CRC, &g, &t, &c, err, sizeof err) == 0);
    CHECK_NEAR(c.pj[TBR_EV_CRC], (8 * 10.0 * sqrt(0.125) * 0.75 + 0.35) * S_22, 1e-9);
    CHECK_EQ_U(c.bits, 8 * 8192);
    /* queue (register-array FIFO): the post-raster queue, 512 entries x 233 B (1864 bits), 2 ports
   * cells: 1864/64 * 10*sqrt(64/8192)*(0.5+0.5)*1.5 = 29.125 * 1.325825 = 38.614659
   * mux:   1864 * log2(512) * 0.1/32 = 1864 * 9 * 0.003125 = 52.425
   * dec:   512 * 0.003125 = 1.6
   * E = 92.639659 * s = 55.914198 pJ (per push and per pop; the capacity-law formula gave 520 pJ) */
    memset(&g, 0, sizeof g);
    g.entries = 512;
    g.width_bits = 1864;
    CHECK(tbr_em_costs(TBR_EK_QUEUE, &g, &t, &c, err, sizeof err) == 0);
    CHECK_NEAR(c.pj[TBR_EV_PUSH], (29.125 * 10.0 * sqrt(64.0 / 8192.0) * 1.5 + 52.425 + 1.6) * S_22, 1e-9);
    CHECK_NEAR(c.pj[TBR_EV_PUSH], 55.914198, 1e-5);
    CHECK_NEAR(c.pj[TBR_EV_POP], c.pj[TBR_EV_PUSH], 1e-12);
    CHECK_EQ_U(c.bits, 512 * 1864);
    /* width-proportional: 4x entries adds only 2 mux levels and 3 x 512 decoder rows
   * (1864*2 + 1536) * 0.003125 = 16.45 pJ at 45 nm */
    double e512 = c.pj[TBR_EV_PUSH];
    g.entries = 2048;
    CHECK(tbr_em_costs(TBR_EK_QUEUE, &g, &t, &c, err, sizeof err) == 0);
    CHECK_NEAR(c.pj[TBR_EV_PUSH] - e512, 16.45 * S_22, 1e-9);
    /* bad geometry is an error */
    memset(&g, 0, sizeof g);
    CHECK(tbr_em_costs(TBR_EK_SRAM, &g, &t, &c, err, sizeof err) == -1);
}

/* ---- caches ---- */
static void test_cache(void)
{
    tbr_energy_tech t = tech22();
    tbr_energy_geom g;
    tbr_energy_costs c;
    char err[200];
    /* thesis L2: 2 MiB, 8-way, 64 B lines, 8 banks, sequential (tag, then one way).
   * sets = 2 MiB / (64 * 8) = 4096 -> tag = 40 - 12 - 6 + 2 = 24 bits.
   * data: 10 * (0.5*sqrt(256K/8K) + 0.5*sqrt(2M/8K)) * (0.5 + 0.5*8) * s
   *     = 10 * (2.828427 + 8) * 4.5 * s = 294.105428 pJ
   * tag:  96 KiB, 8 x 24 = 192 bits: 10 * (0.5*sqrt(1.5) + 0.5*sqrt(12)) * 2.0 * s = 28.300308 pJ
   * compare: 8 ways * 24 bits * 0.1/32 pJ * s = 0.362140 pJ
   * read = 322.767876 pJ; tag lookup = 28.662448 pJ */
    memset(&g, 0, sizeof g);
    g.bytes = 2 << 20;
    g.ways = 8;
    g.width_bits = 512;
    g.banks = 8;
    g.sequential = true;
    CHECK(tbr_em_costs(TBR_EK_CACHE, &g, &t, &c, err, sizeof err) == 0);
    CHECK_NEAR(c.pj[TBR_EV_READ], 322.767876, 1e-5);
    CHECK_NEAR(c.pj[TBR_EV_TAG_LOOKUP], 28.662448, 1e-5);
    CHECK_NEAR(c.pj[TBR_EV_WRITE], c.pj[TBR_EV_READ], 1e-9); /* sequential: one way either way */
    CHECK_EQ_U(c.bits, (2ull << 20) * 8 + 4096ull * 8 * 24);
    /* the same cache read in parallel reads 8 lines: data width term 0.5 + 0.5*64 = 32.5 */
    g.sequential = false;
    CHECK(tbr_em_costs(TBR_EK_CACHE, &g, &t, &c, err, sizeof err) == 0);
    CHECK_NEAR(c.pj[TBR_EV_READ] - 28.662448, 294.105428 * 32.5 / 4.5, 1e-4);
    /* associativity raises the tag part: 8 KiB 1-way vs 4-way (same capacity) */
    tbr_energy_costs c1, c4;
    memset(&g, 0, sizeof g);
    g.bytes = 8192;
    g.width_bits = 512;
    g.ways = 1;
    CHECK(tbr_em_costs(TBR_EK_CACHE, &g, &t, &c1, err, sizeof err) == 0);
    g.ways = 4;
    CHECK(tbr_em_costs(TBR_EK_CACHE, &g, &t, &c4, err, sizeof err) == 0);
    CHECK(c4.pj[TBR_EV_TAG_LOOKUP] > c1.pj[TBR_EV_TAG_LOOKUP]);
    CHECK(c4.pj[TBR_EV_READ] > c1.pj[TBR_EV_READ]);
    /* capacity: 32 KiB vs 8 KiB (same ways) costs more per access and leaks ~4x */
    tbr_energy_costs c32;
    g.bytes = 32768;
    CHECK(tbr_em_costs(TBR_EK_CACHE, &g, &t, &c32, err, sizeof err) == 0);
    CHECK(c32.pj[TBR_EV_READ] > c4.pj[TBR_EV_READ]);
    CHECK(c32.leak_mw > 3.9 * c4.leak_mw && c32.leak_mw < 4.0 * c4.leak_mw);
    g.bytes = 1000; /* not a multiple of line * ways */
    CHECK(tbr_em_costs(TBR_EK_CACHE, &g, &t, &c, err, sizeof err) == -1);
}

/* ---- zero activity: static energy only, = leakage x time ---- */
static void test_static(void)
{
    tbr_config *cfg = defaults();
    char err[256];
    tbr_energy *e = tbr_energy_new(cfg, err, sizeof err);
    CHECK(e != NULL);
    if (!e) return;
    tbr_energy_geom g;
    memset(&g, 0, sizeof g);
    g.bytes = 8192;
    g.width_bits = 64;
    tbr_energy_unit *u = tbr_energy_add(e, "buf", "baseline", TBR_EK_SRAM, &g, err, sizeof err);
    CHECK(u != NULL);
    CHECK(tbr_energy_add(e, "buf", "baseline", TBR_EK_SRAM, &g, err, sizeof err) == NULL); /* duplicate */
    /* 800000 cycles at 800 MHz = 1 ms; leakage 0.065536 mW -> 65.536 nJ = 65536 pJ */
    tbr_energy_frame_end(e, "idle", 800000, NULL, 0, NULL);
    tbr_energy_summary s;
    CHECK(tbr_energy_summary_of(e, 0, &s) == 0);
    CHECK_NEAR(s.seconds, 1e-3, 1e-15);
    CHECK_NEAR(s.gpu_dynamic_pj, 0.0, 0.0);
    CHECK_NEAR(s.gpu_static_pj, 65536.0, 1e-6);
    CHECK_NEAR(s.dram_pj, 0.0, 0.0);
    CHECK_NEAR(s.avg_power_w, 0.065536e-3, 1e-12);
    /* second frame: 10 reads of 6.035665 pJ + another 1 ms of leakage */
    tbr_energy_count(u, TBR_EV_READ, 10);
    tbr_energy_frame_end(e, "busy", 1600000, NULL, 0, NULL);
    CHECK(tbr_energy_summary_of(e, 1, &s) == 0);
    CHECK_NEAR(s.gpu_dynamic_pj, 10 * 10.0 * S_22, 1e-9);
    CHECK_NEAR(s.gpu_static_pj, 65536.0, 1e-6);
    CHECK(tbr_energy_summary_of(e, TBR_ENERGY_TOTAL, &s) == 0);
    CHECK_NEAR(s.gpu_static_pj, 2 * 65536.0, 1e-6);
    CHECK_NEAR(s.edp_js, s.total_pj * 1e-12 * 2e-3, 1e-24);
    CHECK(tbr_energy_summary_of(e, 2, &s) == -1);
    tbr_energy_free(e);
    tbr_config_free(cfg);
}

/* ---- DRAM: hand-computed command sequence ---- */
static void test_dram_hand(void)
{
    tbr_config *cfg = defaults();
    char err[256];
    tbr_dram_power_params p;
    CHECK(tbr_dram_power_params_from_config(cfg, &p, err, sizeof err) == 0);
    tbr_dram_cmd_energy ce;
    tbr_dram_power_cmd_energy(&p, &ce);
    /* rails VDD1 1.8 V, VDD2 1.1 V, VDDQ 1.1 V; tCK 0.833 ns; IDD tCK 0.625 ns
   * E_ACT = [1.8*(3.5-2.25) + 1.1*(45-30) + 1.1*(0.75-0.75)] * tRAS(51*0.833 = 42.483 ns)
   *       = 18.75 mW * 42.483 ns = 796.55625 pJ */
    CHECK_NEAR(ce.act, 796.55625, 1e-6);
    /* E_PRE = [1.8*(3.5-2) + 1.1*(45-27)] * tRP(22*0.833 = 18.326) = 22.5 * 18.326 = 412.335 pJ */
    CHECK_NEAR(ce.pre, 412.335, 1e-6);
    /* E_RD = 1.1*(275-30) * (16/2 * 0.625 ns) + 4 pJ/bit * 16 bits * 16 beats = 1347.5 + 1024 = 2371.5 pJ */
    CHECK_NEAR(ce.rd, 2371.5, 1e-6);
    CHECK_NEAR(ce.rd_io, 1024.0, 1e-9);
    /* E_WR = 1.1*(210-30) * 5 ns + 1024 = 990 + 1024 = 2014 pJ */
    CHECK_NEAR(ce.wr, 2014.0, 1e-6);
    /* E_REF = [1.8*(10-2.25) + 1.1*(90-30)] * tRFC(456*0.833 = 379.848) = 79.95 * 379.848 = 30368.8476 pJ */
    CHECK_NEAR(ce.ref, 30368.8476, 1e-6);
    /* background: active standby 1.8*2.25 + 1.1*30 + 1.1*0.75 = 37.875 mW,
   * precharge standby 1.8*2 + 1.1*27 + 1.1*0.75 = 34.125 mW */
    CHECK_NEAR(ce.p_act_stby, 37.875, 1e-9);
    CHECK_NEAR(ce.p_pre_stby, 34.125, 1e-9);

    /* 1 ACT, 4 RD, 1 PRE, 1 REF over 10000 DRAM cycles; 2 ch x 2 ranks = 40000
   * rank-cycles: 3000 active standby, 37000 precharge standby.
   *   commands: 796.55625 + 412.335 + 4*2371.5 + 30368.8476 = 41063.73885
   *   act_stby: 37.875 mW * 3000 * 0.833 ns = 94649.625
   *   pre_stby: 34.125 mW * 37000 * 0.833 ns = 1051766.625
   *   total = 1187479.98885 pJ */
    tbr_dram_counts c;
    memset(&c, 0, sizeof c);
    c.act = 1;
    c.rd = 4;
    c.pre = 1;
    c.ref = 1;
    tbr_dram_residency r = {3000, 37000, 0, 0, 0};
    tbr_dram_energy d;
    tbr_dram_power_compute(&p, &c, 10000, &r, &d);
    CHECK_NEAR(d.act + d.pre + d.rd + d.wr + d.ref, 41063.73885, 1e-5);
    CHECK_NEAR(d.act_stby, 94649.625, 1e-5);
    CHECK_NEAR(d.pre_stby, 1051766.625, 1e-4);
    CHECK_NEAR(d.total, 1187479.98885, 1e-4);
    CHECK_NEAR(d.seconds, 10000 * 0.833e-9, 1e-18);
    CHECK(!d.residency_estimated);
    /* estimated residency: 1 ACT keeps a rank active tREFI/2 = 2342 cycles */
    tbr_dram_power_compute(&p, &c, 10000, NULL, &d);
    CHECK(d.residency_estimated);
    CHECK_NEAR(d.act_stby, 37.875 * 2342 * 0.833, 1e-6);
    CHECK_NEAR(d.pre_stby, 34.125 * (40000 - 2342) * 0.833, 1e-4);
    /* power-down / self-refresh states use IDD3P/IDD2P/IDD6:
   * 1000 rank-cycles of self refresh: (1.8*0.3 + 1.1*0.5 + 1.1*0.1) mW * 833 ns = 1.2 * 833 = 999.6 pJ */
    tbr_dram_residency r2 = {0, 0, 0, 0, 1000};
    memset(&c, 0, sizeof c);
    tbr_dram_power_compute(&p, &c, 250, &r2, &d);
    CHECK_NEAR(d.total, 999.6, 1e-9);
    /* overriding a current changes exactly its term: IDD4R on VDD2 275 -> 175 mA lowers E_RD by 1.1*100*5 = 550 pJ */
    CHECK(tbr_config_apply_override(cfg, "dram_power.idd4r_vdd2_ma=175", err, sizeof err) == 0 ||
          !tbr_param_find("dram_power.idd4r_vdd2_ma"));
    if (tbr_param_find("dram_power.idd4r_vdd2_ma")) {
        CHECK(tbr_dram_power_params_from_config(cfg, &p, err, sizeof err) == 0);
        tbr_dram_power_cmd_energy(&p, &ce);
        CHECK_NEAR(ce.rd, 2371.5 - 550.0, 1e-6);
        /* inconsistent currents are rejected */
        CHECK(tbr_config_apply_override(cfg, "dram_power.idd4r_vdd2_ma=10", err, sizeof err) == 0);
        CHECK(tbr_dram_power_params_from_config(cfg, &p, err, sizeof err) == -1);
    }
    tbr_config_free(cfg);
}

/* ---- end to end: the DRAM model's counts through the energy accounting ---- */
static char *report_json(const tbr_energy *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tbr_energy_report_json(e, f);
    fclose(f);
    return buf;
}

static void test_dram_end2end(void)
{
    tbr_config *cfg = defaults();
    char err[256];
    tbr_stats *st = tbr_stats_new();
    tbr_dram *d = tbr_dram_new(cfg, st, err, sizeof err);
    tbr_energy *e = tbr_energy_new(cfg, err, sizeof err);
    CHECK(d && e);
    if (!d || !e) return;
    /* 64 sequential texture reads, then 16 color-flush writes to another region */
    int sent = 0;
    uint64_t guard = 0;
    while (sent < 80 && guard++ < 100000) {
        tbr_mem_msg m;
        memset(&m, 0, sizeof m);
        m.addr = sent < 64 ? (uint64_t)sent * 64 : 0x40000000ull + (uint64_t)(sent - 64) * 64;
        m.write = sent >= 64;
        m.id = (uint64_t)sent;
        if (tbr_dram_can_accept(d, m.addr, m.write) && tbr_dram_enqueue(d, &m)) {
            tbr_energy_dram_source(e, m.write ? TBR_DSRC_COLOR_FLUSH : TBR_DSRC_TEXTURES, !m.write, m.write);
            sent++;
        }
        tbr_dram_tick(d);
        tbr_mem_msg r;
        while (tbr_dram_pop_response(d, &r)) {}
    }
    while (!tbr_dram_idle(d) && guard++ < 200000) {
        tbr_dram_tick(d);
        tbr_mem_msg r;
        while (tbr_dram_pop_response(d, &r)) {}
    }
    CHECK_EQ_U(sent, 80);
    tbr_dram_counts c;
    tbr_dram_get_counts(d, &c);
    CHECK_EQ_U(c.rd, 64 * tbr_dram_bursts_per_request(d)); /* 2 bursts per 64 B request */
    CHECK_EQ_U(c.wr, 16 * tbr_dram_bursts_per_request(d));
    uint64_t dcyc = tbr_dram_now(d);
    uint64_t gcyc = dcyc * 2 / 3; /* 800 / 1200 MHz */
    tbr_energy_frame_end(e, "f0", gcyc, &c, dcyc, NULL);
    tbr_energy_summary s;
    CHECK(tbr_energy_summary_of(e, 0, &s) == 0);
    tbr_dram_power_params p;
    tbr_dram_power_params_from_config(cfg, &p, err, sizeof err);
    tbr_dram_cmd_energy ce;
    tbr_dram_power_cmd_energy(&p, &ce);
    /* per-command totals equal counts x per-command energies */
    CHECK_NEAR(s.dram.act, (double)c.act * ce.act, 1e-6);
    CHECK_NEAR(s.dram.rd, 128 * 2371.5, 1e-6);
    CHECK_NEAR(s.dram.wr, 32 * 2014.0, 1e-6);
    CHECK_NEAR(s.dram.ref, (double)c.ref * ce.ref, 1e-6);
    /* commands + background = total; background covers all rank-cycles */
    double cmd = s.dram.act + s.dram.pre + s.dram.rd + s.dram.wr + s.dram.ref;
    CHECK_NEAR(cmd + s.dram.background, s.dram.total, 1e-6 * s.dram.total);
    CHECK(s.dram.background >= 34.125 * 4 * (double)dcyc * 0.833 - 1e-6);
    CHECK(s.dram.background <= 37.875 * 4 * (double)dcyc * 0.833 + 1e-6);
    /* by source sums to the total; textures get all RD + 64/80 of ACT/PRE */
    double sum = 0;
    for (int k = 0; k <= TBR_DSRC_COUNT; k++) sum += s.dram_by_source[k];
    CHECK_NEAR(sum, s.dram.total, 1e-6 * s.dram.total);
    CHECK_NEAR(s.dram_by_source[TBR_DSRC_TEXTURES], s.dram.rd + (s.dram.act + s.dram.pre) * 64.0 / 80.0, 1e-6);
    CHECK_NEAR(s.dram_by_source[TBR_DSRC_COLOR_FLUSH], s.dram.wr + (s.dram.act + s.dram.pre) * 16.0 / 80.0, 1e-6);
    CHECK_NEAR(s.dram_by_source[TBR_DSRC_COUNT], s.dram.ref + s.dram.background, 1e-6 * s.dram.total);
    CHECK_NEAR(s.dram_pj, s.dram.total, 0);
    char *js = report_json(e);
    CHECK_STR_CONTAINS(js, "\"total\":{\"seconds\":");
    CHECK_STR_CONTAINS(js, "\"frames\":[{\"label\":\"f0\"");
    CHECK_STR_CONTAINS(js, "\"dram\":{\"total_pj\":");
    CHECK_STR_CONTAINS(js, "\"commands\":{\"act\":");
    CHECK_STR_CONTAINS(js, "\"by_source\":{\"vertices\":");
    CHECK_STR_CONTAINS(js, "\"textures\":");
    CHECK_STR_CONTAINS(js, "\"color_flush\":");
    CHECK_STR_CONTAINS(js, "\"background\":{\"act_stby\":");
    CHECK_STR_CONTAINS(js, "\"avg_power_w\":");
    CHECK_STR_CONTAINS(js, "\"edp_js\":");
    CHECK_STR_CONTAINS(js, "\"residency_estimated\":true");
    free(js);
    /* second frame without activity: only background (+ refreshes) */
    for (int i = 0; i < 12000; i++) tbr_dram_tick(d);
    tbr_dram_counts c2;
    tbr_dram_get_counts(d, &c2);
    tbr_energy_frame_end(e, "f1", tbr_dram_now(d) * 2 / 3, &c2, tbr_dram_now(d), NULL);
    CHECK(tbr_energy_summary_of(e, 1, &s) == 0);
    CHECK_NEAR(s.dram.rd + s.dram.wr, 0.0, 0.0);
    CHECK_NEAR(s.dram.ref, (double)(c2.ref - c.ref) * ce.ref, 1e-6);
    CHECK(c2.ref > c.ref); /* 12000 cycles > tREFI: every rank refreshed */
    tbr_energy_free(e);
    tbr_dram_free(d);
    tbr_stats_free(st);
    tbr_config_free(cfg);
}

/* ---- baseline + RE structure sets, report determinism ---- */
static void test_report(void)
{
    tbr_config *cfg = defaults();
    char err[256];
    tbr_energy *e = tbr_energy_new(cfg, err, sizeof err);
    CHECK(e != NULL);
    if (!e) return;
    CHECK(tbr_energy_add_baseline(e, cfg, NULL, err, sizeof err) == 0);
    if (t_failures) fprintf(stderr, "baseline: %s\n", err);
    CHECK(tbr_energy_add_re(e, cfg, 64, err, sizeof err) == 0);
    tbr_energy_unit *l2 = tbr_energy_find(e, "l2");
    tbr_energy_unit *sb = tbr_energy_find(e, "re.signature_buffer");
    tbr_energy_unit *crc = tbr_energy_find(e, "re.crc_compute");
    CHECK(l2 && sb && crc && tbr_energy_find(e, "texture_cache") && tbr_energy_find(e, "fragment.alu"));
    if (!l2 || !sb || !crc) return;
    /* the L2 registered from the config prices a read as the hand value above */
    CHECK_NEAR(tbr_energy_unit_costs(e, l2)->pj[TBR_EV_READ], 322.767876, 1e-5);
    /* Signature Buffer: 60 x 34 = 2040 tiles x 2 frames x 4 B = 16320 B */
    CHECK_EQ_U(tbr_energy_unit_costs(e, sb)->bits, 16320 * 8);
    tbr_energy_count(l2, TBR_EV_READ, 1000);
    tbr_energy_count(crc, TBR_EV_CRC, 100);
    tbr_energy_count(sb, TBR_EV_READ, 50);
    tbr_energy_count(sb, TBR_EV_WRITE, 50);
    tbr_energy_frame_end(e, "f0", 80000, NULL, 0, NULL);
    /* L2 dynamic = 1000 x 322.767876 pJ */
    CHECK_NEAR(tbr_energy_unit_dynamic_pj(e, 0, l2), 322767.876, 1e-2);
    /* override: a published per-access figure replaces the model's */
    tbr_energy_set_event_pj(e, l2, TBR_EV_READ, 500.0);
    tbr_energy_count(l2, TBR_EV_READ, 10);
    tbr_energy_frame_end(e, "f1", 160000, NULL, 0, NULL);
    CHECK_NEAR(tbr_energy_unit_dynamic_pj(e, 1, l2), 5000.0, 1e-9);
    tbr_energy_summary s;
    tbr_energy_summary_of(e, TBR_ENERGY_TOTAL, &s);
    double re = tbr_energy_group_pj(e, TBR_ENERGY_TOTAL, "re");
    double base = tbr_energy_group_pj(e, TBR_ENERGY_TOTAL, "baseline");
    double ptr = tbr_energy_group_pj(e, TBR_ENERGY_TOTAL, "ptr_tf");
    CHECK(re > 0 && base > re);
    CHECK_NEAR(re + base + ptr, s.gpu_pj, 1e-6 * s.gpu_pj);
    /* deterministic output */
    char *a = report_json(e), *b = report_json(e);
    CHECK(a && b && strcmp(a, b) == 0);
    CHECK_STR_CONTAINS(a, "\"re.signature_buffer\":{\"kind\":\"sram\",\"group\":\"re\"");
    CHECK_STR_CONTAINS(a, "\"groups\":{\"baseline\":");
    /* balanced JSON */
    int depth = 0, bad = 0;
    for (const char *q = a; q && *q; q++) {
        if (*q == '{' || *q == '[') depth++;
        if (*q == '}' || *q == ']') bad |= --depth < 0;
    }
    CHECK(!bad && depth == 0);
    free(a);
    free(b);
    char *txt = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&txt, &len);
    tbr_energy_report_text(e, f);
    fclose(f);
    CHECK_STR_CONTAINS(txt, "total (2 frames):");
    CHECK_STR_CONTAINS(txt, "group re");
    CHECK_STR_CONTAINS(txt, "energy-delay product");
    free(txt);
    tbr_energy_free(e);
    tbr_config_free(cfg);
}

/* ---- per-unit counts: every Raster Unit brings its own fragment processors' structures ----
 * fragment.processors is per Raster Unit (raster/raster_unit.c), so two Raster Units have
 * twice the texture caches, texture units, pre-fragment queues, fragment ALUs and register
 * files, and each RU's tile buffers, queues and fixed-function units; the geometry side and
 * the L2 stay one. Static energy over 1 ms (800000 cycles at 800 MHz), hand-worked:
 * texture cache 8 KiB, 2-way, 64 B lines: 64 sets, tag 40 - 6 - 6 + 2 = 30 bits, so
 * 65536 + 64 x 2 x 30 = 69376 bits x 1 nW = 69376 pJ per cache;
 * fragment register file 64 threads x 16 x 16 B = 131072 bits x 1 nW x 10/6 (3 ports)
 * = 218453.33 pJ per processor. The second RU's texture caches (texture_cache.4..7, named
 * by texture_unit.c) are bound too: 10 hits of texture_cache.5 cost 10 reads. */
static tbr_energy *model_with_rus(const char *rus, tbr_stats *st)
{
    tbr_config *cfg = tbr_config_new();
    char err[256];
    CHECK(tbr_config_set(cfg, "tile.raster_units", rus, "test", err, sizeof err) == 0);
    CHECK(tbr_config_validate(cfg, err, sizeof err) == 0);
    for (unsigned i = 0; i < 8; i++) tbr_stats_counterf(st, "test", "texture_cache.%u.hits", i);
    tbr_stat_add(tbr_stats_find(st, "texture_cache.5.hits"), 10);
    tbr_energy *e = tbr_energy_new(cfg, err, sizeof err);
    CHECK(e && tbr_energy_add_baseline(e, cfg, st, err, sizeof err) == 0);
    if (e) tbr_energy_frame_end(e, "f", 800000, NULL, 0, NULL);
    tbr_config_free(cfg);
    return e;
}

static void test_raster_units(void)
{
    tbr_stats *st1 = tbr_stats_new(), *st2 = tbr_stats_new();
    tbr_energy *one = model_with_rus("1", st1), *two = model_with_rus("2", st2);
    CHECK(one && two);
    if (!one || !two) return;
#define STATIC(e, n) tbr_energy_unit_static_pj(e, TBR_ENERGY_TOTAL, tbr_energy_find(e, n))
    CHECK_NEAR(STATIC(one, "texture_cache"), 4 * 69376.0, 1e-6);
    CHECK_NEAR(STATIC(two, "texture_cache"), 8 * 69376.0, 1e-6);
    CHECK_NEAR(STATIC(one, "fragment.regfile"), 4 * 131072.0 * 10 / 6, 1e-6);
    CHECK_NEAR(STATIC(two, "fragment.regfile"), 8 * 131072.0 * 10 / 6, 1e-6);
    static const char *const per_ru[] = {
        "fragment.alu",      "texture_unit", "queue.pre_fragment", "depth_buffer", "color_buffer", "queue.tile",
        "queue.post_raster", "queue.color",  "prim_setup",         "rasterizer",   "blend",        "early_z"};
    for (size_t i = 0; i < sizeof per_ru / sizeof per_ru[0]; i++) {
        double a = STATIC(one, per_ru[i]), b = STATIC(two, per_ru[i]);
        if (!(a > 0 && fabs(b - 2 * a) <= 1e-9 * b))
            fprintf(stderr, "%s: 1 RU %.3f pJ, 2 RUs %.3f pJ\n", per_ru[i], a, b);
        CHECK(a > 0 && fabs(b - 2 * a) <= 1e-9 * b);
    }
    static const char *const shared[] = {"vertex_cache", "tile_cache",     "inst_cache",      "l2",
                                         "vertex.alu",   "vertex.regfile", "queue.vertex_in", "queue.primitive"};
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++)
        CHECK_NEAR(STATIC(two, shared[i]), STATIC(one, shared[i]), 1e-9);
#undef STATIC
    tbr_energy_unit *tc = tbr_energy_find(two, "texture_cache");
    CHECK_NEAR(tbr_energy_unit_dynamic_pj(two, TBR_ENERGY_TOTAL, tc),
               10 * tbr_energy_unit_costs(two, tc)->pj[TBR_EV_READ], 1e-9);
    CHECK_NEAR(tbr_energy_unit_dynamic_pj(one, TBR_ENERGY_TOTAL, tbr_energy_find(one, "texture_cache")), 0.0, 0.0);
    tbr_energy_free(one);
    tbr_energy_free(two);
    tbr_stats_free(st1);
    tbr_stats_free(st2);
}

/* ---- the organisations' structures (docs/organisations.md, issue #19's fairness review) ----
 * A model of the defaults with `sets` (KEY=VALUE, NULL-terminated) and statistics `st`, over
 * 1 ms (800000 cycles at 800 MHz: 1 nW of leakage = 1 pJ). */
static tbr_energy *model_with(const char *const *sets, tbr_stats *st)
{
    tbr_config *cfg = tbr_config_new();
    char err[256];
    for (; *sets; sets++) CHECK(tbr_config_apply_override(cfg, *sets, err, sizeof err) == 0);
    CHECK(tbr_config_validate(cfg, err, sizeof err) == 0);
    tbr_energy *e = tbr_energy_new(cfg, err, sizeof err);
    CHECK(e && tbr_energy_add_baseline(e, cfg, st, err, sizeof err) == 0);
    if (e) tbr_energy_frame_end(e, "f", 800000, NULL, 0, NULL);
    tbr_config_free(cfg);
    return e;
}

#define STATIC(e, n)    tbr_energy_unit_static_pj(e, TBR_ENERGY_TOTAL, tbr_energy_find(e, n))
#define PRICE(e, n, ev) tbr_energy_unit_costs(e, tbr_energy_find(e, n))->pj[ev]

/* TBDR: the HSR stage's rasterizer, Early-Z and depth buffers are structures of their own,
 * priced as the Raster Unit's (hsr.tile_buffers = 2 depth buffers of 4 KiB: 2 x 32768 bits
 * x 1 nW = 65536 pJ); TBR has none of them. Before issue #19's fix HSR had none: its
 * accesses were charged to the Raster Unit's depth buffer and its leakage to nothing. */
static void test_org_hsr(void)
{
    static const char *const tbdr_sets[] = {"hsr.enabled=true", NULL}, *const none[] = {NULL};
    tbr_stats *st = tbr_stats_new();
    tbr_energy *tbr = model_with(none, st), *tbdr = model_with(tbdr_sets, st);
    CHECK(tbr && tbdr);
    CHECK(tbr_energy_find(tbr, "hsr.depth_buffer") == NULL && tbr_energy_find(tbr, "hsr.rasterizer") == NULL);
    CHECK(tbr_energy_find(tbdr, "hsr.depth_buffer") != NULL);
    if (tbr_energy_find(tbdr, "hsr.depth_buffer")) {
        CHECK_NEAR(STATIC(tbdr, "hsr.depth_buffer"), 65536.0, 1e-6);
        CHECK_NEAR(STATIC(tbdr, "hsr.depth_buffer"), 2 * STATIC(tbdr, "depth_buffer"), 1e-6);
        CHECK_NEAR(PRICE(tbdr, "hsr.depth_buffer", TBR_EV_READ), PRICE(tbdr, "depth_buffer", TBR_EV_READ), 1e-12);
    }
    static const char *const twins[][2] = {
        {"hsr.rasterizer", "rasterizer"}, {"hsr.early_z", "early_z"}, {"hsr.prim_setup", "prim_setup"}};
    for (size_t i = 0; i < 3; i++) {
        CHECK(tbr_energy_find(tbdr, twins[i][0]) != NULL);
        if (tbr_energy_find(tbdr, twins[i][0])) CHECK_NEAR(STATIC(tbdr, twins[i][0]), STATIC(tbdr, twins[i][1]), 1e-9);
    }
    CHECK(tbr_energy_group_pj(tbdr, TBR_ENERGY_TOTAL, "hsr") > 0);
    tbr_energy_free(tbr);
    tbr_energy_free(tbdr);
    tbr_stats_free(st);
}

/* IMR: no tile buffers; the Z and color caches priced as 16 KiB 4-way caches of 64-B lines:
 * 64 sets, tag 40 - 6 - 6 + 2 = 30 bits, 131072 + 64 x 4 x 30 = 138752 bits (138752 pJ over
 * 1 ms); with imr.z_compression the Z cache's lines are 256 B: 16 sets, tag 40 - 4 - 8 + 2 =
 * 30 bits, 131072 + 16 x 4 x 30 = 132992 bits. 10 misses (tag lookup + fill) and 3
 * write-backs (a read) of the bound statistics. Before issue #19's fix they were charged
 * as the 4 KiB tile buffers (6.4 pJ per quad access). */
static void test_org_imr(void)
{
    static const char *const imr_sets[] = {"pipeline.organization=imr", NULL};
    static const char *const comp_sets[] = {"pipeline.organization=imr", "imr.z_compression=true", NULL};
    tbr_stats *st = tbr_stats_new(), *st2 = tbr_stats_new();
    tbr_stat_add(tbr_stats_counter(st, "imr.z_cache.line_misses", "test"), 10);
    tbr_stat_add(tbr_stats_counter(st, "imr.z_cache.line_writebacks", "test"), 3);
    tbr_energy *imr = model_with(imr_sets, st), *comp = model_with(comp_sets, st2);
    CHECK(imr && comp);
    CHECK(tbr_energy_find(imr, "depth_buffer") == NULL && tbr_energy_find(imr, "color_buffer") == NULL);
    tbr_energy_unit *z = tbr_energy_find(imr, "imr.z_cache");
    CHECK(z != NULL && tbr_energy_find(imr, "imr.color_cache") != NULL && tbr_energy_find(comp, "imr.z_cache"));
    if (!z || !tbr_energy_find(imr, "imr.color_cache") || !tbr_energy_find(comp, "imr.z_cache")) goto done;
    CHECK_NEAR(STATIC(imr, "imr.z_cache"), 138752.0, 1e-6);
    CHECK_NEAR(STATIC(imr, "imr.color_cache"), 138752.0, 1e-6);
    CHECK_NEAR(STATIC(comp, "imr.z_cache"), 132992.0, 1e-6);
    tbr_energy_geom g;
    memset(&g, 0, sizeof g);
    g.bytes = 16384;
    g.ways = 4;
    g.width_bits = 512;
    tbr_energy_tech t = tech22();
    tbr_energy_costs c;
    char err[128];
    CHECK(tbr_em_costs(TBR_EK_CACHE, &g, &t, &c, err, sizeof err) == 0);
    CHECK_NEAR(PRICE(imr, "imr.z_cache", TBR_EV_READ), c.pj[TBR_EV_READ], 1e-9);
    CHECK_NEAR(PRICE(imr, "imr.z_cache", TBR_EV_WRITE), c.pj[TBR_EV_WRITE], 1e-9);
    CHECK(c.pj[TBR_EV_READ] > 20 * 6.4); /* a cache access, not a tile-buffer quad access */
    CHECK_NEAR(tbr_energy_unit_dynamic_pj(imr, TBR_ENERGY_TOTAL, z),
               10 * (c.pj[TBR_EV_TAG_LOOKUP] + c.pj[TBR_EV_WRITE]) + 3 * c.pj[TBR_EV_READ], 1e-6);
done:
    tbr_energy_free(imr);
    tbr_energy_free(comp);
    tbr_stats_free(st);
    tbr_stats_free(st2);
}

/* vertex_cache.private: the model builds one vertex cache (the Vertex Fetcher's), so one is
 * charged (4 KiB 2-way 64-B lines: 32 sets, tag 40 - 5 - 6 + 2 = 31 bits, 32768 + 32 x 2 x 31
 * = 34752 bits), and `true` is rejected as not modeled. Before issue #19's fix `true` was
 * accepted and charged 4 caches (one per vertex processor). */
static void test_org_vertex_cache(void)
{
    static const char *const none[] = {NULL};
    tbr_stats *st = tbr_stats_new();
    tbr_energy *e = model_with(none, st);
    CHECK(e != NULL);
    CHECK_NEAR(STATIC(e, "vertex_cache"), 34752.0, 1e-6);
    tbr_config *cfg = tbr_config_new();
    char err[256];
    CHECK(tbr_config_apply_override(cfg, "vertex_cache.private=true", err, sizeof err) != 0);
    CHECK_STR_CONTAINS(err, "not modeled yet");
    tbr_config_free(cfg);
    tbr_energy_free(e);
    tbr_stats_free(st);
}
#undef STATIC
#undef PRICE

/* ---- presets load and build an energy model; LPDDR3 presets pick the LPDDR3 table ---- */
static void test_presets(const char *dir)
{
    static const char *const files[] = {"thesis-baseline.conf", "re-mali450.conf", "dtm-nuca-32.conf"};
    for (size_t i = 0; i < 3; i++) {
        char path[1024], err[256];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        tbr_config *cfg = tbr_config_new();
        int ok =
            tbr_config_load_file(cfg, path, err, sizeof err) == 0 && tbr_config_validate(cfg, err, sizeof err) == 0;
        if (!ok) fprintf(stderr, "%s: %s\n", path, err);
        CHECK(ok);
        tbr_energy *e = ok ? tbr_energy_new(cfg, err, sizeof err) : NULL;
        CHECK(e != NULL);
        if (e) {
            CHECK(tbr_energy_add_baseline(e, cfg, NULL, err, sizeof err) == 0);
            CHECK(tbr_energy_add_re(e, cfg, 64, err, sizeof err) == 0);
            char *js = report_json(e);
            int lp3 = strcmp(tbr_cfg_str(cfg, "dram.protocol"), "lpddr3") == 0;
            CHECK_STR_CONTAINS(js, lp3 ? "\"dram_table\":\"lpddr3\"" : "\"dram_table\":\"lpddr4\"");
            free(js);
            if (lp3) {
                /* LPDDR3 (EDF8132A1MC): E_ACT = [1.8*(8-2) + 1.2*(60-34)] * tRAS
         * = 42 mW * tRAS; per-preset tRAS and tCK from the config */
                tbr_dram_power_params p;
                tbr_dram_cmd_energy ce;
                CHECK(tbr_dram_power_params_from_config(cfg, &p, err, sizeof err) == 0);
                tbr_dram_power_cmd_energy(&p, &ce);
                CHECK_NEAR(ce.act, 42.0 * p.tRAS * p.tck_ns, 1e-9);
            }
            tbr_energy_free(e);
        }
        tbr_config_free(cfg);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s GROUP [CONFIG_DIR]\n", argv[0]);
        return 2;
    }
    const char *g = argv[1];
    const char *dir = argc > 2 ? argv[2] : "configs";
    if (!strcmp(g, "sram"))
        test_sram();
    else if (!strcmp(g, "cache"))
        test_cache();
    else if (!strcmp(g, "static"))
        test_static();
    else if (!strcmp(g, "dram_hand"))
        test_dram_hand();
    else if (!strcmp(g, "dram_end2end"))
        test_dram_end2end();
    else if (!strcmp(g, "report"))
        test_report();
    else if (!strcmp(g, "raster_units"))
        test_raster_units();
    else if (!strcmp(g, "organisations")) {
        test_org_hsr();
        test_org_imr();
        test_org_vertex_cache();
    } else if (!strcmp(g, "presets"))
        test_presets(dir);
    else {
        fprintf(stderr, "unknown group %s\n", g);
        return 2;
    }
    return T_RESULT();
}
