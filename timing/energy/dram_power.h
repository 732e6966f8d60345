/* LPDDR4/LPDDR3 energy from datasheet IDD currents (docs/energy-model.md).
 *
 * The method of Micron's power calculators (TN-41-01) and of DRAMsim3 /
 * DRAMPower, applied per voltage rail r (VDD1, VDD2, VDDQ) of one die
 * channel (= one rank of one channel of the DRAM model):
 *   E_ACT = sum_r V_r (IDD0_r  - IDD3N_r) tRAS
 *   E_PRE = sum_r V_r (IDD0_r  - IDD2N_r) tRP
 *   E_RD  = sum_r V_r (IDD4R_r - IDD3N_r) (BL/2) tCK_idd + e_io * bus_width * BL   (per burst)
 *   E_WR  = sum_r V_r (IDD4W_r - IDD3N_r) (BL/2) tCK_idd + e_io * bus_width * BL   (per burst)
 *   E_REF = sum_r V_r (IDD5_r  - IDD3N_r) tRFC                                      (all-bank)
 *   P_bg  = sum_r V_r IDD{3N,2N,3P,2P,6}_r    for active / precharge standby,
 *           active / precharge power-down, self refresh residency
 * mA x V x ns = pJ. tRAS, tRP, tRFC come from the dram.* timing parameters;
 * tCK_idd is the clock at which the datasheet measured IDD4R/W (Micron
 * scales read/write power with the data rate, so the energy per burst is
 * the datasheet's). Background is charged for every rank-cycle, refresh
 * adds its excess over active standby (DRAMsim3 convention).
 */
#ifndef TBR_TIMING_DRAM_POWER_H
#define TBR_TIMING_DRAM_POWER_H

#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "memory/dram.h"

enum { TBR_RAIL_VDD1, TBR_RAIL_VDD2, TBR_RAIL_VDDQ, TBR_RAIL_COUNT };

typedef struct {
    double v[TBR_RAIL_COUNT]; /* V */
    /* currents per rail, mA, of one die channel */
    double idd0[TBR_RAIL_COUNT], idd2p[TBR_RAIL_COUNT], idd2n[TBR_RAIL_COUNT], idd3p[TBR_RAIL_COUNT],
        idd3n[TBR_RAIL_COUNT], idd4r[TBR_RAIL_COUNT], idd4w[TBR_RAIL_COUNT], idd5[TBR_RAIL_COUNT], idd6[TBR_RAIL_COUNT];
    double idd_tck_ns;    /* clock period at which IDD4R/W were specified */
    double io_pj_per_bit; /* data I/O energy per transferred bit (both link ends) */
    /* device/timing, from dram.* */
    uint32_t channels, ranks, bus_width, burst_length;
    double tck_ns;
    uint32_t tRAS, tRP, tRFC, tREFI;
    int refresh;
    const char *table; /* "lpddr4", "lpddr3" (built-in table used for defaulted currents) */
} tbr_dram_power_params;

/* Energy per command of one rank (pJ) and background power of one rank (mW). */
typedef struct {
    double act, pre, rd, wr, ref; /* rd/wr per burst, incl. I/O */
    double rd_io, wr_io;          /* I/O part of rd/wr */
    double p_act_stby, p_pre_stby, p_act_pd, p_pre_pd, p_sref;
} tbr_dram_cmd_energy;

/* Rank-cycles (summed over all ranks of all channels) spent in each state. */
typedef struct {
    uint64_t act_stby, pre_stby, act_pd, pre_pd, sref;
} tbr_dram_residency;

/* Energy breakdown (pJ). Invariant: total = sum of the command parts
 * (act..ref, rd/wr include I/O) + background. */
typedef struct {
    double act, pre, rd, wr, ref;                    /* command energies (rd/wr incl. I/O) */
    double rd_io, wr_io;                             /* I/O part of rd and wr */
    double act_stby, pre_stby, act_pd, pre_pd, sref; /* background by state */
    double background;                               /* sum of the five states */
    double total;
    double seconds;          /* elapsed time the background covers */
    int residency_estimated; /* 1 when no residency was given (see doc) */
} tbr_dram_energy;

/* From a validated config: dram.* geometry/timing and dram_power.* currents.
 * With dram.protocol = lpddr3, currents and voltages still at their
 * (LPDDR4) defaults are replaced by the built-in LPDDR3 table. */
int tbr_dram_power_params_from_config(const tbr_config *cfg, tbr_dram_power_params *p, char *err, size_t errlen);
void tbr_dram_power_cmd_energy(const tbr_dram_power_params *p, tbr_dram_cmd_energy *out);

/* Energy of `c` (commands; per-burst RD/WR counts as the DRAM model reports
 * them) over `dram_cycles` DRAM cycles. `res` may be NULL: then the rank
 * residency is estimated from the ACT count (docs/energy-model.md). */
void tbr_dram_power_compute(const tbr_dram_power_params *p, const tbr_dram_counts *c, uint64_t dram_cycles,
                            const tbr_dram_residency *res, tbr_dram_energy *out);
/* The estimate used when no residency is given. */
void tbr_dram_power_estimate_residency(const tbr_dram_power_params *p, const tbr_dram_counts *c, uint64_t dram_cycles,
                                       tbr_dram_residency *out);

#endif
