/* LPDDR4/LPDDR3 energy from IDD currents (see dram_power.h, docs/energy-model.md). */
#include "energy/dram_power.h"
#include "core/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/config.h"

/* The parameter still has its built-in value (LPDDR3 presets replace those only). */
static int is_default(const tbr_config *cfg, const char *name)
{
    return strcmp(tbr_cfg_origin(cfg, name), "default") == 0;
}

static const char *const k_rail[TBR_RAIL_COUNT] = {"vdd1", "vdd2", "vddq"};

/* LPDDR3 table: Micron/Elpida EDF8132A1MC (LPDDR3-1600, 4 Gb x32), the values
 * gem5's LPDDR3_1600_1x32 takes from that datasheet; VDDQ currents not given. */
typedef struct {
    const char *name;
    double v[TBR_RAIL_COUNT];
} lp3_row;
static const lp3_row k_lpddr3[] = {
    {"v", {1.8, 1.2, 1.2}},  {"idd0", {8, 60, 0}},    {"idd2p", {0.8, 1.8, 0}}, {"idd2n", {0.8, 26, 0}},
    {"idd3p", {1.4, 11, 0}}, {"idd3n", {2, 34, 0}},   {"idd4r", {2, 230, 0}},   {"idd4w", {2, 190, 0}},
    {"idd5", {28, 150, 0}},  {"idd6", {0.5, 1.8, 0}},
};
#define LPDDR3_IDD_TCK_NS 1.25

static double lp3(const char *name, int rail)
{
    for (size_t i = 0; i < sizeof k_lpddr3 / sizeof k_lpddr3[0]; i++)
        if (strcmp(k_lpddr3[i].name, name) == 0) return k_lpddr3[i].v[rail];
    return 0;
}

static void read_rail(const tbr_config *cfg, int lpddr3, const char *cur, double out[TBR_RAIL_COUNT])
{
    char key[96];
    for (int r = 0; r < TBR_RAIL_COUNT; r++) {
        if (strcmp(cur, "v") == 0)
            snprintf(key, sizeof key, "dram_power.%s_v", k_rail[r]);
        else
            snprintf(key, sizeof key, "dram_power.%s_%s_ma", cur, k_rail[r]);
        if (lpddr3 && is_default(cfg, key))
            out[r] = lp3(cur, r);
        else
            out[r] = tbr_cfg_double(cfg, key);
    }
}

int tbr_dram_power_params_from_config(const tbr_config *cfg, tbr_dram_power_params *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    const char *proto = tbr_cfg_str(cfg, "dram.protocol");
    int lpddr3 = strcmp(proto, "lpddr3") == 0;
    p->table = lpddr3 ? "lpddr3" : "lpddr4";
    read_rail(cfg, lpddr3, "v", p->v);
    read_rail(cfg, lpddr3, "idd0", p->idd0);
    read_rail(cfg, lpddr3, "idd2p", p->idd2p);
    read_rail(cfg, lpddr3, "idd2n", p->idd2n);
    read_rail(cfg, lpddr3, "idd3p", p->idd3p);
    read_rail(cfg, lpddr3, "idd3n", p->idd3n);
    read_rail(cfg, lpddr3, "idd4r", p->idd4r);
    read_rail(cfg, lpddr3, "idd4w", p->idd4w);
    read_rail(cfg, lpddr3, "idd5", p->idd5);
    read_rail(cfg, lpddr3, "idd6", p->idd6);
    if (lpddr3 && is_default(cfg, "dram_power.idd_tck_ps"))
        p->idd_tck_ns = LPDDR3_IDD_TCK_NS;
    else
        p->idd_tck_ns = (double)tbr_cfg_uint(cfg, "dram_power.idd_tck_ps") / 1000.0;
    p->io_pj_per_bit = tbr_cfg_double(cfg, "dram_power.io_pj_per_bit");
    p->channels = (uint32_t)tbr_cfg_uint(cfg, "dram.channels");
    p->ranks = (uint32_t)tbr_cfg_uint(cfg, "dram.ranks");
    p->bus_width = (uint32_t)tbr_cfg_uint(cfg, "dram.bus_width");
    p->burst_length = (uint32_t)tbr_cfg_uint(cfg, "dram.burst_length");
    p->tck_ns = (double)tbr_cfg_uint(cfg, "dram.tCK_ps") / 1000.0;
    p->tRAS = (uint32_t)tbr_cfg_uint(cfg, "dram.tRAS");
    p->tRP = (uint32_t)tbr_cfg_uint(cfg, "dram.tRP");
    p->tRFC = (uint32_t)tbr_cfg_uint(cfg, "dram.tRFC");
    p->tREFI = (uint32_t)tbr_cfg_uint(cfg, "dram.tREFI");
    p->refresh = tbr_cfg_bool(cfg, "dram.refresh");
    for (int r = 0; r < TBR_RAIL_COUNT; r++) {
        if (p->idd0[r] < p->idd3n[r] || p->idd0[r] < p->idd2n[r] || p->idd4r[r] < p->idd3n[r] ||
            p->idd4w[r] < p->idd3n[r] || p->idd5[r] < p->idd3n[r]) {
            tbr_set_err(err, errlen,
                        "dram_power: %s currents must satisfy IDD0 >= IDD3N, IDD2N and IDD4R, IDD4W, IDD5 >= IDD3N",
                        k_rail[r]);
            return -1;
        }
    }
    return 0;
}

/* sum_r V_r * (a_r - b_r), in mW when currents are mA */
static double rail_sum(const tbr_dram_power_params *p, const double *a, const double *b)
{
    double s = 0;
    for (int r = 0; r < TBR_RAIL_COUNT; r++) s += p->v[r] * (a[r] - (b ? b[r] : 0.0));
    return s;
}

void tbr_dram_power_cmd_energy(const tbr_dram_power_params *p, tbr_dram_cmd_energy *o)
{
    memset(o, 0, sizeof *o);
    double t_burst = (double)p->burst_length / 2.0 * p->idd_tck_ns;
    double bits = (double)p->bus_width * p->burst_length;
    o->act = rail_sum(p, p->idd0, p->idd3n) * p->tRAS * p->tck_ns;
    o->pre = rail_sum(p, p->idd0, p->idd2n) * p->tRP * p->tck_ns;
    o->rd_io = p->io_pj_per_bit * bits;
    o->wr_io = p->io_pj_per_bit * bits;
    o->rd = rail_sum(p, p->idd4r, p->idd3n) * t_burst + o->rd_io;
    o->wr = rail_sum(p, p->idd4w, p->idd3n) * t_burst + o->wr_io;
    o->ref = rail_sum(p, p->idd5, p->idd3n) * p->tRFC * p->tck_ns;
    o->p_act_stby = rail_sum(p, p->idd3n, NULL);
    o->p_pre_stby = rail_sum(p, p->idd2n, NULL);
    o->p_act_pd = rail_sum(p, p->idd3p, NULL);
    o->p_pre_pd = rail_sum(p, p->idd2p, NULL);
    o->p_sref = rail_sum(p, p->idd6, NULL);
}

void tbr_dram_power_estimate_residency(const tbr_dram_power_params *p, const tbr_dram_counts *c, uint64_t dram_cycles,
                                       tbr_dram_residency *o)
{
    memset(o, 0, sizeof *o);
    uint64_t total = dram_cycles * p->channels * p->ranks;
    uint64_t act = 0;
    if (c->act) {
        /* open-page: a bank stays open until a conflict or the next refresh;
     * an ACT keeps its rank active for half a refresh interval on average */
        if (p->refresh) {
            uint64_t per = p->tREFI / 2;
            act = c->act > total / (per ? per : 1) ? total : c->act * per;
        } else {
            act = total;
        }
        if (act > total) act = total;
    }
    o->act_stby = act;
    o->pre_stby = total - act;
}

void tbr_dram_power_compute(const tbr_dram_power_params *p, const tbr_dram_counts *c, uint64_t dram_cycles,
                            const tbr_dram_residency *res, tbr_dram_energy *o)
{
    memset(o, 0, sizeof *o);
    tbr_dram_cmd_energy e;
    tbr_dram_power_cmd_energy(p, &e);
    tbr_dram_residency est;
    if (!res) {
        tbr_dram_power_estimate_residency(p, c, dram_cycles, &est);
        res = &est;
        o->residency_estimated = 1;
    }
    o->act = (double)c->act * e.act;
    o->pre = (double)c->pre * e.pre;
    o->rd = (double)c->rd * e.rd;
    o->wr = (double)c->wr * e.wr;
    o->rd_io = (double)c->rd * e.rd_io;
    o->wr_io = (double)c->wr * e.wr_io;
    o->ref = (double)c->ref * e.ref;
    /* mW x ns = pJ */
    o->act_stby = (double)res->act_stby * p->tck_ns * e.p_act_stby;
    o->pre_stby = (double)res->pre_stby * p->tck_ns * e.p_pre_stby;
    o->act_pd = (double)res->act_pd * p->tck_ns * e.p_act_pd;
    o->pre_pd = (double)res->pre_pd * p->tck_ns * e.p_pre_pd;
    o->sref = (double)res->sref * p->tck_ns * e.p_sref;
    o->background = o->act_stby + o->pre_stby + o->act_pd + o->pre_pd + o->sref;
    o->total = o->act + o->pre + o->rd + o->wr + o->ref + o->background;
    o->seconds = (double)dram_cycles * p->tck_ns * 1e-9;
}
