/* Per-structure energy models (see energy_models.h, docs/energy-model.md).
 * Every constant below is listed in the doc's constant table with its source;
 * "estimate" marks values no publication gives directly. */
#include "energy/energy_models.h"
#include "core/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- reference constants: 45 nm, 0.9 V (Horowitz, ISSCC 2014, Fig. 1.1.9) ---- */
#define K_SRAM_E64       10.0               /* pJ: 64-bit read of an 8 KB SRAM (Horowitz) */
#define K_SRAM_CREF      8192.0             /* B: capacity of that SRAM */
#define K_SRAM_MIN_BYTES 64.0               /* below this an array is registers: no further decrease (estimate) */
#define K_WIDTH_FIXED    0.5                /* share of a 64-bit access independent of width (estimate) */
#define K_BANK_ROUTE     0.5                /* share of an access spent in global routing/H-tree (estimate) */
#define K_PORT_PITCH     0.5                /* cell pitch growth per extra port, each dimension (estimate) */
#define K_INT_ADD        0.1                /* pJ: 32-bit integer add (Horowitz) */
#define K_FADD           0.9                /* pJ: 32-bit FP add (Horowitz) */
#define K_FMUL           3.7                /* pJ: 32-bit FP multiply (Horowitz) */
#define K_FMA            (K_FADD + K_FMUL)  /* pJ: multiply-add = add + multiply (estimate) */
#define K_SFU            (2.0 * K_FMA)      /* pJ: table lookup + 2 FMA polynomial (estimate) */
#define K_H_ADD          0.4                /* pJ: 16-bit FP add (Horowitz) */
#define K_H_MUL          1.1                /* pJ: 16-bit FP multiply (Horowitz) */
#define K_XOR32          (0.5 * K_INT_ADD)  /* pJ: 32-bit XOR (estimate: half an adder) */
#define K_CMP_PER_BIT    (K_INT_ADD / 32.0) /* pJ/bit: comparator = subtractor (estimate) */
#define K_QUEUE_MUX_PER_BIT                                                                                            \
    K_CMP_PER_BIT /* pJ per bit per 2:1 mux level of a FIFO read mux/write bus (estimate: ~1 adder bit) */
#define K_QUEUE_DEC_PER_ROW K_CMP_PER_BIT /* pJ per entry of a FIFO row decoder (estimate: one gate ~ 1 adder bit) */
#define K_HOP_PER_BIT       0.25          /* pJ/bit/hop: router + 1 mm link (estimate, DSENT/ORION order) */
/* composite fixed-function operations, built from the primitives above */
#define K_TEX               (2.0 * K_FMA + 4.0 * K_INT_ADD + 12.0 * (K_H_MUL + 2.0 * K_H_ADD)) /* 32.4 */
#define K_QUAD              (12.0 * K_INT_ADD + 12.0 * 32.0 * K_CMP_PER_BIT)                   /* 2.4 */
#define K_ATTR              (4.0 * 2.0 * K_FMA)                                                /* 36.8 */
#define K_PRIM_SETUP        (3.0 * (2.0 * K_FMUL + K_FADD) + K_SFU)                            /* 34.1 */
#define K_BLEND             (16.0 * (2.0 * K_H_MUL + K_H_ADD))                                 /* 41.6 */
/* leakage */
#define K_LEAK_REF_V        1.0 /* V at which sram_leak_nw_per_bit is given */
#define K_LOGIC_REF_GHZ     0.8 /* clock at which logic leakage = fraction x peak dynamic power */
#define K_ADDR_BITS         40  /* physical address bits for derived tag widths (estimate) */
#define K_TAG_STATUS        2   /* valid + dirty bits per tag */

static uint32_t or1(uint32_t v) { return v ? v : 1; }

double tbr_em_dyn_scale(const tbr_energy_tech *t)
{
    double v = t->vdd / TBR_EM_REF_V;
    return (t->tech_nm / TBR_EM_REF_NM) * v * v;
}

double tbr_em_sram_access_pj(const tbr_energy_tech *t, double bytes, double width_bits, uint32_t banks, uint32_t ports)
{
    banks = or1(banks);
    ports = or1(ports);
    double c = bytes < K_SRAM_MIN_BYTES ? K_SRAM_MIN_BYTES : bytes;
    double cb = c / banks;
    if (cb < K_SRAM_MIN_BYTES) cb = K_SRAM_MIN_BYTES;
    double cap = (1.0 - K_BANK_ROUTE) * sqrt(cb / K_SRAM_CREF) + K_BANK_ROUTE * sqrt(c / K_SRAM_CREF);
    double width = K_WIDTH_FIXED + (1.0 - K_WIDTH_FIXED) * width_bits / 64.0;
    double port = 1.0 + K_PORT_PITCH * (double)(ports - 1);
    return K_SRAM_E64 * cap * width * port * tbr_em_dyn_scale(t);
}

double tbr_em_sram_leak_mw(const tbr_energy_tech *t, double bits, uint32_t ports)
{
    ports = or1(ports);
    double cell = (6.0 + 2.0 * (double)(ports - 1)) / 6.0; /* transistors per cell vs 6T */
    return bits * t->sram_leak_nw_per_bit * (t->vdd / K_LEAK_REF_V) * cell * 1e-6;
}

static double logic_leak_mw(const tbr_energy_tech *t, double peak_pj_per_cycle)
{
    return t->logic_leak_fraction * peak_pj_per_cycle * K_LOGIC_REF_GHZ; /* pJ x GHz = mW */
}

static void price(tbr_energy_costs *o, tbr_energy_event ev, double pj)
{
    o->pj[ev] = pj;
    o->priced[ev] = true;
}

int tbr_em_costs(tbr_energy_kind kind, const tbr_energy_geom *g, const tbr_energy_tech *t, tbr_energy_costs *o,
                 char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    const double s = tbr_em_dyn_scale(t);
    const double n = (double)or1(g->count);
    switch (kind) {
        case TBR_EK_SRAM:
        case TBR_EK_REGFILE: {
            uint32_t ports = g->ports ? g->ports : (kind == TBR_EK_REGFILE ? 3 : 1);
            if (!g->bytes || !g->width_bits) {
                tbr_set_err(err, errlen, "%s needs bytes and width_bits", tbr_em_kind_name(kind));
                return -1;
            }
            double e = tbr_em_sram_access_pj(t, (double)g->bytes, g->width_bits, g->banks, ports);
            price(o, TBR_EV_READ, e);
            price(o, TBR_EV_WRITE, e);
            o->bits = g->bytes * 8 * (uint64_t)n;
            o->leak_mw = tbr_em_sram_leak_mw(t, (double)o->bits, ports);
            return 0;
        }
        case TBR_EK_QUEUE: {
            /* A FIFO of N entries x W bits is a register array (docs/energy-model.md "Queues"):
     * every access moves exactly one entry, so its energy is W x the per-bit cost of a
     * register-sized array (the SRAM law at its 64 B register clamp, with the port
     * factor), plus an N:1 read-mux/write-bus tree of log2(N) levels per bit and an
     * N-output row decoder. The capacity N x W enters only through log2(N) and N. */
            uint32_t ports = g->ports ? g->ports : 2;
            if (!g->width_bits || (!g->entries && !g->bytes)) {
                tbr_set_err(err, errlen, "queue needs entries (or bytes) and width_bits");
                return -1;
            }
            uint64_t bytes = g->bytes ? g->bytes : ((uint64_t)g->entries * g->width_bits + 7) / 8;
            double entries = g->entries ? (double)g->entries : (double)bytes * 8.0 / g->width_bits;
            if (entries < 1.0) entries = 1.0;
            double w = (double)g->width_bits;
            double e_cells = w / 64.0 * tbr_em_sram_access_pj(t, K_SRAM_MIN_BYTES, 64.0, 1, ports);
            double e_mux = w * log2(entries) * K_QUEUE_MUX_PER_BIT * s;
            double e_dec = entries * K_QUEUE_DEC_PER_ROW * s;
            double e = e_cells + e_mux + e_dec;
            price(o, TBR_EV_PUSH, e);
            price(o, TBR_EV_POP, e);
            price(o, TBR_EV_WRITE, e);
            price(o, TBR_EV_READ, e);
            o->bits = bytes * 8 * (uint64_t)n;
            o->leak_mw = tbr_em_sram_leak_mw(t, (double)o->bits, ports);
            return 0;
        }
        case TBR_EK_CACHE: {
            uint32_t ways = or1(g->ways), ports = or1(g->ports);
            uint32_t line_bits = g->width_bits ? g->width_bits : 512;
            uint64_t line_bytes = line_bits / 8;
            if (!g->bytes || line_bytes == 0 || g->bytes % (line_bytes * ways)) {
                tbr_set_err(err, errlen, "cache needs bytes, a line of whole bytes and bytes %% (line*ways) == 0");
                return -1;
            }
            uint64_t sets = g->bytes / (line_bytes * ways);
            uint32_t tag = g->tag_bits;
            if (!tag) {
                int tb = K_ADDR_BITS - (int)tbr_ilog2(sets) - (int)tbr_ilog2(line_bytes);
                tag = (uint32_t)(tb < 1 ? 1 : tb) + K_TAG_STATUS;
            }
            double tag_bytes = (double)sets * ways * tag / 8.0;
            double e_tag = tbr_em_sram_access_pj(t, tag_bytes, (double)ways * tag, g->banks, ports);
            double e_cmp = ways * tag * K_CMP_PER_BIT * s;
            double e_line = tbr_em_sram_access_pj(t, (double)g->bytes, line_bits, g->banks, ports);
            double e_all = tbr_em_sram_access_pj(t, (double)g->bytes, (double)ways * line_bits, g->banks, ports);
            price(o, TBR_EV_READ, e_tag + e_cmp + (g->sequential ? e_line : e_all));
            price(o, TBR_EV_WRITE, e_tag + e_cmp + e_line);
            price(o, TBR_EV_TAG_LOOKUP, e_tag + e_cmp);
            o->bits = (uint64_t)n * (g->bytes * 8 + sets * ways * tag);
            o->leak_mw = tbr_em_sram_leak_mw(t, (double)o->bits, ports);
            return 0;
        }
        case TBR_EK_ALU: {
            double lanes = g->lanes ? g->lanes : 4;
            price(o, TBR_EV_INT, lanes * K_INT_ADD * s);
            price(o, TBR_EV_FADD, lanes * K_FADD * s);
            price(o, TBR_EV_FMUL, lanes * K_FMUL * s);
            price(o, TBR_EV_FMA, lanes * K_FMA * s);
            price(o, TBR_EV_SFU, K_SFU * s); /* scalar special-function unit */
            o->leak_mw = n * logic_leak_mw(t, (lanes * K_FMA + K_SFU) * s);
            return 0;
        }
        case TBR_EK_FIXED: {
            double ops = or1(g->lanes);
            price(o, TBR_EV_TEX, K_TEX * s);
            price(o, TBR_EV_QUAD, K_QUAD * s);
            price(o, TBR_EV_ATTR, K_ATTR * s);
            price(o, TBR_EV_PRIM_SETUP, K_PRIM_SETUP * s);
            price(o, TBR_EV_BLEND, K_BLEND * s);
            tbr_energy_event op = g->op == TBR_EV_READ ? TBR_EV_QUAD : g->op;
            if (!o->priced[op]) {
                tbr_set_err(err, errlen, "fixed-function op '%s' is not a fixed-function event", tbr_em_event_name(op));
                return -1;
            }
            o->leak_mw = n * logic_leak_mw(t, ops * o->pj[op]);
            return 0;
        }
        case TBR_EK_CRC: {
            if (g->multiplier) {
                /* 32 partial products (AND + 32-bit XOR row each) and the reduction modulo the
       * polynomial (about as many XOR rows): 64 XOR32 equivalents (estimate). */
                double e_mul = 64.0 * K_XOR32 * s;
                price(o, TBR_EV_CRC, e_mul);
                o->bits = 0;
                o->leak_mw = n * logic_leak_mw(t, e_mul);
                return 0;
            }
            uint32_t luts = or1(g->luts);
            double e_lut = tbr_em_sram_access_pj(t, 1024.0, 32.0, 1, 1);
            double e_xor = (double)(luts - 1) * K_XOR32 * s;
            price(o, TBR_EV_CRC, luts * e_lut + e_xor);
            price(o, TBR_EV_READ, e_lut);
            o->bits = (uint64_t)n * luts * 1024 * 8;
            o->leak_mw = tbr_em_sram_leak_mw(t, (double)o->bits, 1) + n * logic_leak_mw(t, e_xor);
            return 0;
        }
        case TBR_EK_COMPARATOR: {
            if (!g->width_bits) {
                tbr_set_err(err, errlen, "comparator needs width_bits");
                return -1;
            }
            double e = g->width_bits * K_CMP_PER_BIT * s;
            price(o, TBR_EV_CMP, e);
            o->leak_mw = n * logic_leak_mw(t, e * or1(g->lanes));
            return 0;
        }
        case TBR_EK_NOC: {
            if (!g->width_bits) {
                tbr_set_err(err, errlen, "interconnect needs width_bits (flit width)");
                return -1;
            }
            double e = g->width_bits * K_HOP_PER_BIT * s;
            price(o, TBR_EV_HOP, e);
            o->leak_mw = n * logic_leak_mw(t, e);
            return 0;
        }
        case TBR_EK_COUNT: break;
    }
    tbr_set_err(err, errlen, "unknown structure kind %d", (int)kind);
    return -1;
}

const char *tbr_em_event_name(tbr_energy_event ev)
{
    static const char *const names[TBR_EV_COUNT] = {"read", "write",      "tag_lookup", "push", "pop", "int",
                                                    "fadd", "fmul",       "fma",        "sfu",  "tex", "quad",
                                                    "attr", "prim_setup", "blend",      "crc",  "cmp", "hop"};
    return (unsigned)ev < TBR_EV_COUNT ? names[ev] : "?";
}

const char *tbr_em_kind_name(tbr_energy_kind k)
{
    static const char *const names[TBR_EK_COUNT] = {"sram",  "cache", "regfile",    "queue", "alu",
                                                    "fixed", "crc",   "comparator", "noc"};
    return (unsigned)k < TBR_EK_COUNT ? names[k] : "?";
}
