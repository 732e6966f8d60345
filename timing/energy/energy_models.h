/* Per-structure energy-per-event and leakage models (docs/energy-model.md).
 *
 * Pure functions: from a structure type and its geometry, plus the
 * technology (node, Vdd), compute the energy of each event the structure
 * can perform (pJ) and its leakage power (mW). The constants are taken at a
 * reference point (45 nm, 0.9 V: Horowitz, ISSCC 2014, "Computing's energy
 * problem") and scaled to the configured node and voltage:
 *     E(node, V) = E_ref * (node / 45 nm) * (V / 0.9 V)^2
 * SRAM-like arrays follow a square-root capacity law fitted to Horowitz'
 * 8 KB / 32 KB / 1 MB figures; see the doc for every constant's origin and
 * which ones are estimates.
 */
#ifndef TBR_TIMING_ENERGY_MODELS_H
#define TBR_TIMING_ENERGY_MODELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Events a structure can be charged for. Not every kind prices every event:
 * an event a kind does not price costs 0 and is reported as "unpriced". */
typedef enum {
    TBR_EV_READ,       /* array read (SRAM, register file; cache hit with data) */
    TBR_EV_WRITE,      /* array write (cache: write hit or line fill) */
    TBR_EV_TAG_LOOKUP, /* cache tag check without data access (miss) */
    TBR_EV_PUSH,       /* queue/FIFO enqueue */
    TBR_EV_POP,        /* queue/FIFO dequeue */
    TBR_EV_INT,        /* ALU: integer / logic / move op (per instruction, all lanes) */
    TBR_EV_FADD,       /* ALU: FP add/compare */
    TBR_EV_FMUL,       /* ALU: FP multiply */
    TBR_EV_FMA,        /* ALU: FP multiply-add (mad, dot-product step) */
    TBR_EV_SFU,        /* ALU: special function (rcp, rsq, exp, log, sin, cos) */
    TBR_EV_TEX,        /* texture unit: one bilinear sample (address + filter) */
    TBR_EV_QUAD,       /* rasterizer: one 2x2 quad rasterized (edge tests) */
    TBR_EV_ATTR,       /* rasterizer: one vec4 attribute interpolated for one pixel */
    TBR_EV_PRIM_SETUP, /* primitive setup: edge equations + 1/w of one triangle */
    TBR_EV_BLEND,      /* blending: one quad blended (4 px x 4 channels) */
    TBR_EV_CRC,        /* CRC unit: one sub-block signed (all LUTs read + XOR tree) */
    TBR_EV_CMP,        /* comparator: one comparison of `width_bits` */
    TBR_EV_HOP,        /* interconnect: one flit of `width_bits` over one hop */
    TBR_EV_COUNT
} tbr_energy_event;

typedef enum {
    TBR_EK_SRAM,       /* plain SRAM array (tile buffers, signature buffer, tables) */
    TBR_EK_CACHE,      /* set-associative cache: data + tag arrays + comparators */
    TBR_EK_REGFILE,    /* multi-ported register file (SRAM model with ports) */
    TBR_EK_QUEUE,      /* FIFO: entries x entry width, 1 read + 1 write port */
    TBR_EK_ALU,        /* SIMD shader ALU, `lanes` lanes */
    TBR_EK_FIXED,      /* fixed-function datapath (rasterizer, texture, blend, setup) */
    TBR_EK_CRC,        /* table-based CRC32 unit: `luts` LUTs of 256 x 32 bit */
    TBR_EK_COMPARATOR, /* `width_bits`-bit comparator */
    TBR_EK_NOC,        /* router + link, `width_bits`-bit flits */
    TBR_EK_COUNT
} tbr_energy_kind;

typedef struct {
    uint64_t bytes;      /* capacity: SRAM, REGFILE, CACHE (data); QUEUE: 0 = entries * width */
    uint32_t width_bits; /* access width: SRAM/REGFILE word, CACHE line, QUEUE entry, CMP, NOC flit */
    uint32_t ways;       /* CACHE associativity (0 = 1) */
    uint32_t banks;      /* SRAM/CACHE/REGFILE banks (0 = 1) */
    uint32_t ports;      /* read+write ports (0 = kind default: 1, REGFILE 3, QUEUE 2) */
    uint32_t tag_bits;   /* CACHE tag width incl. valid/dirty (0 = derived from 40-bit addresses) */
    uint32_t entries;    /* QUEUE entries */
    uint32_t lanes;      /* ALU lanes / FIXED operations per cycle for leakage (0 = 1 / 4 for ALU) */
    uint32_t luts;       /* CRC: number of 1 KiB LUTs (RE: 8) */
    bool multiplier;     /* CRC: a 32x32 GF(2) multiplier (CRC combine) instead of LUTs */
    uint32_t count;      /* identical instances (0 = 1): leakage x count; events are summed over them */
    bool sequential;     /* CACHE: tag first, then one data way (else all ways in parallel) */
    tbr_energy_event op; /* FIXED: main operation, sets the leakage (0 = TBR_EV_READ = use TBR_EV_QUAD) */
} tbr_energy_geom;

typedef struct {
    double tech_nm;              /* technology node */
    double vdd;                  /* supply voltage */
    double sram_leak_nw_per_bit; /* SRAM cell + periphery leakage per bit at 1.0 V */
    double logic_leak_fraction;  /* logic leakage as a fraction of peak dynamic power at 800 MHz */
} tbr_energy_tech;

typedef struct {
    double pj[TBR_EV_COUNT]; /* energy per event (pJ), all instances' events alike */
    bool priced[TBR_EV_COUNT];
    double leak_mw; /* leakage power of ALL instances (mW) */
    uint64_t bits;  /* storage bits of all instances (0 for logic) */
} tbr_energy_costs;

/* Reference point of the dynamic constants. */
#define TBR_EM_REF_NM 45.0
#define TBR_EM_REF_V  0.9

/* Dynamic-energy scale factor from the reference point to `t`. */
double tbr_em_dyn_scale(const tbr_energy_tech *t);
/* Energy (pJ, at `t`) of one access of `width_bits` to an SRAM array of
 * `bytes` organized in `banks` banks with `ports` ports. */
double tbr_em_sram_access_pj(const tbr_energy_tech *t, double bytes, double width_bits, uint32_t banks, uint32_t ports);
/* Leakage (mW) of `bits` SRAM bits with `ports` ports. */
double tbr_em_sram_leak_mw(const tbr_energy_tech *t, double bits, uint32_t ports);

/* Fill `out` for one structure. Returns 0, or -1 with a message in err
 * when the geometry is unusable (zero capacity, width, ...). */
int tbr_em_costs(tbr_energy_kind kind, const tbr_energy_geom *g, const tbr_energy_tech *t, tbr_energy_costs *out,
                 char *err, size_t errlen);

const char *tbr_em_event_name(tbr_energy_event ev);
const char *tbr_em_kind_name(tbr_energy_kind k);

#endif
