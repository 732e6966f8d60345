/* Energy and power accounting (see energy.h, docs/energy-model.md). */
#include "energy/energy.h"
#include "core/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- parameters (energy.*, dram_power.* in the table of timing/core/config.c) ---- */

/* ---- data ---- */

typedef struct {
    const tbr_stat *st;
    tbr_energy_event ev;
} binding;

typedef struct {
    tbr_energy_unit *h; /* public counters */
    char *name, *group;
    tbr_energy_kind kind;
    tbr_energy_geom geom;
    tbr_energy_costs c;
    binding *bind;
    size_t nbind;
    uint64_t last[TBR_EV_COUNT]; /* cumulative counts at the previous frame end */
    uint64_t tot[TBR_EV_COUNT];  /* counts summed over the frames */
} unit_t;

typedef struct {
    char *label;
    uint64_t gpu_cycles, dram_cycles;
    double seconds;
    size_t nunits;
    double *dyn, *stat; /* per unit, pJ */
    int has_dram;
    tbr_dram_energy dram;
    double by_src[TBR_DSRC_COUNT + 1];
} frame_t;

struct tbr_energy {
    tbr_energy_tech tech;
    double clock_ghz, dyn_scale, leak_scale;
    tbr_dram_power_params dp;
    unit_t *u;
    size_t nu, capu;
    frame_t *f;
    size_t nf, capf;
    uint64_t last_gpu, last_dram_cycles;
    tbr_dram_counts last_dram;
    tbr_dram_residency last_res;
    uint64_t src_rd[TBR_DSRC_COUNT], src_wr[TBR_DSRC_COUNT];
    uint64_t last_src_rd[TBR_DSRC_COUNT], last_src_wr[TBR_DSRC_COUNT];
    int warned_unpriced;
};

tbr_energy *tbr_energy_new(const tbr_config *cfg, char *err, size_t errlen)
{
    tbr_energy *e = tbr_xrealloc(NULL, sizeof *e);
    memset(e, 0, sizeof *e);
    e->tech.tech_nm = (double)tbr_cfg_uint(cfg, "gpu.tech_nm");
    e->tech.vdd = tbr_cfg_double(cfg, "gpu.voltage_v");
    e->tech.sram_leak_nw_per_bit = tbr_cfg_double(cfg, "energy.sram_leak_nw_per_bit");
    e->tech.logic_leak_fraction = tbr_cfg_double(cfg, "energy.logic_leak_fraction");
    e->dyn_scale = tbr_cfg_double(cfg, "energy.dynamic_scale");
    e->leak_scale = tbr_cfg_double(cfg, "energy.leakage_scale");
    e->clock_ghz = (double)tbr_cfg_uint(cfg, "gpu.clock_mhz") / 1000.0;
    if (tbr_dram_power_params_from_config(cfg, &e->dp, err, errlen) != 0) {
        free(e);
        return NULL;
    }
    return e;
}

void tbr_energy_free(tbr_energy *e)
{
    if (!e) return;
    for (size_t i = 0; i < e->nu; i++) {
        free(e->u[i].h);
        free(e->u[i].name);
        free(e->u[i].group);
        free(e->u[i].bind);
    }
    for (size_t i = 0; i < e->nf; i++) {
        free(e->f[i].label);
        free(e->f[i].dyn);
        free(e->f[i].stat);
    }
    free(e->u);
    free(e->f);
    free(e);
}

void tbr_energy_reset(tbr_energy *e)
{
    if (!e) return;
    for (size_t i = 0; i < e->nu; i++) {
        memset(e->u[i].h->ev, 0, sizeof e->u[i].h->ev);
        memset(e->u[i].last, 0, sizeof e->u[i].last);
        memset(e->u[i].tot, 0, sizeof e->u[i].tot);
    }
    for (size_t i = 0; i < e->nf; i++) {
        free(e->f[i].label);
        free(e->f[i].dyn);
        free(e->f[i].stat);
    }
    e->nf = 0;
    e->last_gpu = e->last_dram_cycles = 0;
    memset(&e->last_dram, 0, sizeof e->last_dram);
    memset(&e->last_res, 0, sizeof e->last_res);
    memset(e->src_rd, 0, sizeof e->src_rd);
    memset(e->src_wr, 0, sizeof e->src_wr);
    memset(e->last_src_rd, 0, sizeof e->last_src_rd);
    memset(e->last_src_wr, 0, sizeof e->last_src_wr);
    e->warned_unpriced = 0;
}

static unit_t *unit_of(const tbr_energy *e, const tbr_energy_unit *h)
{
    for (size_t i = 0; i < e->nu; i++)
        if (e->u[i].h == h) return &e->u[i];
    fprintf(stderr, "tbr energy: unknown unit handle\n");
    abort();
}

static size_t unit_index(const tbr_energy *e, const tbr_energy_unit *h) { return (size_t)(unit_of(e, h) - e->u); }

tbr_energy_unit *tbr_energy_find(const tbr_energy *e, const char *name)
{
    for (size_t i = 0; i < e->nu; i++)
        if (strcmp(e->u[i].name, name) == 0) return e->u[i].h;
    return NULL;
}

tbr_energy_unit *tbr_energy_add(tbr_energy *e, const char *name, const char *group, tbr_energy_kind kind,
                                const tbr_energy_geom *g, char *err, size_t errlen)
{
    if (!name || !*name || tbr_energy_find(e, name)) {
        tbr_set_err(err, errlen, "energy: structure name '%s' empty or already registered", name ? name : "");
        return NULL;
    }
    tbr_energy_costs c;
    char msg[200];
    if (tbr_em_costs(kind, g, &e->tech, &c, msg, sizeof msg) != 0) {
        tbr_set_err(err, errlen, "energy: %s: %s", name, msg);
        return NULL;
    }
    for (int ev = 0; ev < TBR_EV_COUNT; ev++) c.pj[ev] *= e->dyn_scale;
    c.leak_mw *= e->leak_scale;
    if (e->nu == e->capu) {
        e->capu = e->capu ? 2 * e->capu : 32;
        e->u = tbr_xrealloc(e->u, e->capu * sizeof *e->u);
    }
    unit_t *u = &e->u[e->nu++];
    memset(u, 0, sizeof *u);
    u->h = tbr_xrealloc(NULL, sizeof *u->h);
    memset(u->h, 0, sizeof *u->h);
    u->name = tbr_xstrdup(name);
    u->group = tbr_xstrdup(group && *group ? group : "baseline");
    u->kind = kind;
    u->geom = *g;
    u->c = c;
    return u->h;
}

void tbr_energy_bind(tbr_energy *e, tbr_energy_unit *h, tbr_energy_event ev, const tbr_stat *st)
{
    if (!h || !st) return;
    unit_t *u = unit_of(e, h);
    u->bind = tbr_xrealloc(u->bind, (u->nbind + 1) * sizeof *u->bind);
    u->bind[u->nbind].st = st;
    u->bind[u->nbind].ev = ev;
    u->nbind++;
}

void tbr_energy_set_event_pj(tbr_energy *e, tbr_energy_unit *h, tbr_energy_event ev, double pj)
{
    unit_t *u = unit_of(e, h);
    u->c.pj[ev] = pj;
    u->c.priced[ev] = true;
}

void tbr_energy_set_leak_mw(tbr_energy *e, tbr_energy_unit *h, double mw) { unit_of(e, h)->c.leak_mw = mw; }

const tbr_energy_costs *tbr_energy_unit_costs(const tbr_energy *e, const tbr_energy_unit *h)
{
    return &unit_of(e, h)->c;
}

void tbr_energy_dram_source(tbr_energy *e, tbr_dram_source src, uint64_t reads, uint64_t writes)
{
    if ((unsigned)src >= TBR_DSRC_COUNT) src = TBR_DSRC_OTHER;
    e->src_rd[src] += reads;
    e->src_wr[src] += writes;
}

/* ---- frames ---- */

static void cum_counts(const unit_t *u, uint64_t out[TBR_EV_COUNT])
{
    for (int ev = 0; ev < TBR_EV_COUNT; ev++) out[ev] = u->h->ev[ev];
    for (size_t b = 0; b < u->nbind; b++) out[u->bind[b].ev] += tbr_stat_value(u->bind[b].st);
}

static uint64_t sub0(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

static void attribute_dram(const tbr_dram_energy *d, const uint64_t rd[TBR_DSRC_COUNT],
                           const uint64_t wr[TBR_DSRC_COUNT], double out[TBR_DSRC_COUNT + 1])
{
    uint64_t R = 0, W = 0;
    for (int s = 0; s < TBR_DSRC_COUNT; s++) {
        R += rd[s];
        W += wr[s];
    }
    double assigned = 0;
    for (int s = 0; s < TBR_DSRC_COUNT; s++) {
        double v = 0;
        if (R) v += d->rd * (double)rd[s] / (double)R;
        if (W) v += d->wr * (double)wr[s] / (double)W;
        if (R + W) v += (d->act + d->pre) * (double)(rd[s] + wr[s]) / (double)(R + W);
        out[s] = v;
        assigned += v;
    }
    out[TBR_DSRC_COUNT] = d->total - assigned;
}

void tbr_energy_frame_end(tbr_energy *e, const char *label, uint64_t gpu_cycles, const tbr_dram_counts *dram,
                          uint64_t dram_cycles, const tbr_dram_residency *res)
{
    if (e->nf == e->capf) {
        e->capf = e->capf ? 2 * e->capf : 16;
        e->f = tbr_xrealloc(e->f, e->capf * sizeof *e->f);
    }
    frame_t *f = &e->f[e->nf++];
    memset(f, 0, sizeof *f);
    char def[32];
    snprintf(def, sizeof def, "frame%zu", e->nf - 1);
    f->label = tbr_xstrdup(label && *label ? label : def);
    f->gpu_cycles = sub0(gpu_cycles, e->last_gpu);
    e->last_gpu = gpu_cycles;
    f->seconds = (double)f->gpu_cycles / (e->clock_ghz * 1e9);
    f->nunits = e->nu;
    f->dyn = tbr_xrealloc(NULL, (e->nu ? e->nu : 1) * sizeof *f->dyn);
    f->stat = tbr_xrealloc(NULL, (e->nu ? e->nu : 1) * sizeof *f->stat);
    for (size_t i = 0; i < e->nu; i++) {
        unit_t *u = &e->u[i];
        uint64_t cum[TBR_EV_COUNT];
        cum_counts(u, cum);
        double dyn = 0;
        for (int ev = 0; ev < TBR_EV_COUNT; ev++) {
            uint64_t d = sub0(cum[ev], u->last[ev]);
            u->last[ev] = cum[ev];
            u->tot[ev] += d;
            if (d && !u->c.priced[ev] && !e->warned_unpriced) {
                fprintf(stderr, "tbr energy: warning: %s (%s) counts unpriced event '%s' (charged 0)\n", u->name,
                        tbr_em_kind_name(u->kind), tbr_em_event_name((tbr_energy_event)ev));
                e->warned_unpriced = 1;
            }
            dyn += (double)d * u->c.pj[ev];
        }
        f->dyn[i] = dyn;
        f->stat[i] = u->c.leak_mw * f->seconds * 1e9; /* mW x s = 1e9 pJ */
    }
    if (dram) {
        tbr_dram_counts d;
        memset(&d, 0, sizeof d);
        d.act = sub0(dram->act, e->last_dram.act);
        d.pre = sub0(dram->pre, e->last_dram.pre);
        d.rd = sub0(dram->rd, e->last_dram.rd);
        d.wr = sub0(dram->wr, e->last_dram.wr);
        d.ref = sub0(dram->ref, e->last_dram.ref);
        d.reads = sub0(dram->reads, e->last_dram.reads);
        d.writes = sub0(dram->writes, e->last_dram.writes);
        d.bytes = sub0(dram->bytes, e->last_dram.bytes);
        e->last_dram = *dram;
        f->dram_cycles = sub0(dram_cycles, e->last_dram_cycles);
        e->last_dram_cycles = dram_cycles;
        tbr_dram_residency r, *rp = NULL;
        if (res) {
            r.act_stby = sub0(res->act_stby, e->last_res.act_stby);
            r.pre_stby = sub0(res->pre_stby, e->last_res.pre_stby);
            r.act_pd = sub0(res->act_pd, e->last_res.act_pd);
            r.pre_pd = sub0(res->pre_pd, e->last_res.pre_pd);
            r.sref = sub0(res->sref, e->last_res.sref);
            e->last_res = *res;
            rp = &r;
        }
        tbr_dram_power_compute(&e->dp, &d, f->dram_cycles, rp, &f->dram);
        f->has_dram = 1;
    }
    uint64_t rd[TBR_DSRC_COUNT], wr[TBR_DSRC_COUNT];
    for (int s = 0; s < TBR_DSRC_COUNT; s++) {
        rd[s] = e->src_rd[s] - e->last_src_rd[s];
        wr[s] = e->src_wr[s] - e->last_src_wr[s];
        e->last_src_rd[s] = e->src_rd[s];
        e->last_src_wr[s] = e->src_wr[s];
    }
    attribute_dram(&f->dram, rd, wr, f->by_src);
}

size_t tbr_energy_frames(const tbr_energy *e) { return e->nf; }

static void add_dram(tbr_dram_energy *a, const tbr_dram_energy *b)
{
    a->act += b->act;
    a->pre += b->pre;
    a->rd += b->rd;
    a->wr += b->wr;
    a->ref += b->ref;
    a->rd_io += b->rd_io;
    a->wr_io += b->wr_io;
    a->act_stby += b->act_stby;
    a->pre_stby += b->pre_stby;
    a->act_pd += b->act_pd;
    a->pre_pd += b->pre_pd;
    a->sref += b->sref;
    a->background += b->background;
    a->total += b->total;
    a->seconds += b->seconds;
    a->residency_estimated |= b->residency_estimated;
}

int tbr_energy_summary_of(const tbr_energy *e, size_t frame, tbr_energy_summary *o)
{
    memset(o, 0, sizeof *o);
    size_t lo = 0, hi = e->nf;
    if (frame != TBR_ENERGY_TOTAL) {
        if (frame >= e->nf) return -1;
        lo = frame;
        hi = frame + 1;
    }
    for (size_t k = lo; k < hi; k++) {
        const frame_t *f = &e->f[k];
        for (size_t i = 0; i < f->nunits; i++) {
            o->gpu_dynamic_pj += f->dyn[i];
            o->gpu_static_pj += f->stat[i];
        }
        o->seconds += f->seconds;
        add_dram(&o->dram, &f->dram);
        for (int s = 0; s <= TBR_DSRC_COUNT; s++) o->dram_by_source[s] += f->by_src[s];
    }
    o->gpu_pj = o->gpu_dynamic_pj + o->gpu_static_pj;
    o->dram_pj = o->dram.total;
    o->total_pj = o->gpu_pj + o->dram_pj;
    o->avg_power_w = o->seconds > 0 ? o->total_pj * 1e-12 / o->seconds : 0;
    o->edp_js = o->total_pj * 1e-12 * o->seconds;
    return 0;
}

static double unit_sum(const tbr_energy *e, size_t frame, size_t idx, int stat)
{
    size_t lo = 0, hi = e->nf;
    if (frame != TBR_ENERGY_TOTAL) {
        if (frame >= e->nf) return 0;
        lo = frame;
        hi = frame + 1;
    }
    double s = 0;
    for (size_t k = lo; k < hi; k++)
        if (idx < e->f[k].nunits) s += stat ? e->f[k].stat[idx] : e->f[k].dyn[idx];
    return s;
}

double tbr_energy_unit_dynamic_pj(const tbr_energy *e, size_t frame, const tbr_energy_unit *u)
{
    return unit_sum(e, frame, unit_index(e, u), 0);
}
double tbr_energy_unit_static_pj(const tbr_energy *e, size_t frame, const tbr_energy_unit *u)
{
    return unit_sum(e, frame, unit_index(e, u), 1);
}
double tbr_energy_group_pj(const tbr_energy *e, size_t frame, const char *group)
{
    double s = 0;
    for (size_t i = 0; i < e->nu; i++)
        if (strcmp(e->u[i].group, group) == 0) s += unit_sum(e, frame, i, 0) + unit_sum(e, frame, i, 1);
    return s;
}

const char *tbr_dram_source_name(tbr_dram_source s)
{
    static const char *const n[TBR_DSRC_COUNT + 1] = {"vertices",   "parameter_buffer", "textures", "color_flush",
                                                      "tile_loads", "instructions",     "other",    "background"};
    return (unsigned)s <= TBR_DSRC_COUNT ? n[s] : "?";
}

/* ---- structure sets ---- */

static tbr_energy_unit *add_cache(tbr_energy *e, const tbr_config *cfg, tbr_stats *stats, const char *pfx,
                                  uint32_t count, bool sequential, char *err, size_t errlen)
{
    char k[96];
    tbr_energy_geom g;
    memset(&g, 0, sizeof g);
#define CU(f) (snprintf(k, sizeof k, "%s." f, pfx), (uint32_t)tbr_cfg_uint(cfg, k))
    g.bytes = (uint64_t)CU("size_kb") * 1024;
    g.ways = CU("ways");
    g.width_bits = CU("line_bytes") * 8;
    g.banks = CU("banks");
#undef CU
    g.count = count;
    g.sequential = sequential;
    tbr_energy_unit *u = tbr_energy_add(e, pfx, "baseline", TBR_EK_CACHE, &g, err, errlen);
    if (u && stats) {
        /* the cache model names its counters <prefix>.<what> (single instance)
     * or <prefix>.<i>.<what>; bind whatever exists */
        static const struct {
            const char *what;
            tbr_energy_event ev;
        } b[] = {{"hits", TBR_EV_READ},
                 {"misses", TBR_EV_TAG_LOOKUP},
                 {"fills", TBR_EV_WRITE},
                 {"write_hits", TBR_EV_WRITE}};
        for (size_t j = 0; j < sizeof b / sizeof b[0]; j++) {
            snprintf(k, sizeof k, "%s.%s", pfx, b[j].what);
            tbr_energy_bind(e, u, b[j].ev, tbr_stats_find(stats, k));
            for (uint32_t i = 0; i < count; i++) {
                snprintf(k, sizeof k, "%s.%u.%s", pfx, i, b[j].what);
                tbr_energy_bind(e, u, b[j].ev, tbr_stats_find(stats, k));
            }
        }
    }
    return u;
}

static int add_queue(tbr_energy *e, const tbr_config *cfg, const char *name, const char *entries_key,
                     const char *bytes_key, uint32_t count, char *err, size_t errlen)
{
    tbr_energy_geom g;
    memset(&g, 0, sizeof g);
    g.entries = (uint32_t)tbr_cfg_uint(cfg, entries_key);
    g.width_bits = (uint32_t)tbr_cfg_uint(cfg, bytes_key) * 8;
    g.count = count;
    return tbr_energy_add(e, name, "baseline", TBR_EK_QUEUE, &g, err, errlen) ? 0 : -1;
}

static int add_simple(tbr_energy *e, const char *name, const char *group, tbr_energy_kind k, const tbr_energy_geom *g,
                      char *err, size_t errlen)
{
    return tbr_energy_add(e, name, group, k, g, err, errlen) ? 0 : -1;
}

/* A tile buffer of the `pfx` geometry (depth_buffer / color_buffer .size_kb, .banks,
 * .bytes_per_pixel): one quad (4 pixels) per access; `count` instances. */
static int add_tile_buffer(tbr_energy *e, const tbr_config *cfg, const char *name, const char *pfx, const char *group,
                           uint32_t count, char *err, size_t errlen)
{
    char k[64];
    tbr_energy_geom g;
    memset(&g, 0, sizeof g);
    snprintf(k, sizeof k, "%s.size_kb", pfx);
    g.bytes = tbr_cfg_uint(cfg, k) * 1024;
    snprintf(k, sizeof k, "%s.banks", pfx);
    g.banks = (uint32_t)tbr_cfg_uint(cfg, k);
    snprintf(k, sizeof k, "%s.bytes_per_pixel", pfx);
    g.width_bits = 4 * (uint32_t)tbr_cfg_uint(cfg, k) * 8;
    g.count = count;
    return add_simple(e, name, group, TBR_EK_SRAM, &g, err, errlen);
}

/* IMR (docs/organisations.md; ATTILA sec. 2): the Z and color caches priced as the caches
 * they are (size, associativity, 64-B lines; 256-B lines with imr.z_compression for the Z
 * cache, imr.color_compression for the color cache, as rop_cache.c builds them; tags and
 * ways read in parallel like the other small caches). Events: every line a quad accesses
 * (counted by its stage: a read to test or blend, a write to update), a miss's tag lookup
 * and its fill (a read or a fast-clear fill: a write), a dirty line written back (a read).
 */
static int add_imr_caches(tbr_energy *e, const tbr_config *cfg, tbr_stats *stats, uint32_t rus, char *err,
                          size_t errlen)
{
    static const char *const names[] = {"z_cache", "color_cache"};
    for (int i = 0; i < 2; i++) {
        char k[64];
        tbr_energy_geom g;
        memset(&g, 0, sizeof g);
        snprintf(k, sizeof k, "imr.%s.size_kb", names[i]);
        g.bytes = tbr_cfg_uint(cfg, k) * 1024;
        snprintf(k, sizeof k, "imr.%s.ways", names[i]);
        g.ways = (uint32_t)tbr_cfg_uint(cfg, k);
        static const char *const compression[] = {"imr.z_compression", "imr.color_compression"};
        g.width_bits = (tbr_cfg_bool(cfg, compression[i]) ? 256 : 64) * 8;
        g.count = rus;
        snprintf(k, sizeof k, "imr.%s", names[i]);
        tbr_energy_unit *u = tbr_energy_add(e, k, "baseline", TBR_EK_CACHE, &g, err, errlen);
        if (!u) return -1;
        if (!stats) continue;
        snprintf(k, sizeof k, "imr.%s.line_misses", names[i]);
        tbr_energy_bind(e, u, TBR_EV_TAG_LOOKUP, tbr_stats_find(stats, k));
        tbr_energy_bind(e, u, TBR_EV_WRITE, tbr_stats_find(stats, k));
        snprintf(k, sizeof k, "imr.%s.line_writebacks", names[i]);
        tbr_energy_bind(e, u, TBR_EV_READ, tbr_stats_find(stats, k));
    }
    return 0;
}

/* TBDR (seeds/003 sec. II-C, Fig. 2): the HSR stage's own rasterizer, Early-Z and depth
 * buffers (raster/hsr.h), priced as the Raster Unit's equivalents: hsr.tile_buffers depth
 * buffers of the tile depth buffer's geometry, a rasterizer and 32-bit comparators at
 * hsr.quads_per_cycle, a primitive setup; group "hsr" (its share in the report). */
static int add_hsr(tbr_energy *e, const tbr_config *cfg, uint32_t rus, char *err, size_t errlen)
{
    uint32_t qpc = (uint32_t)tbr_cfg_uint(cfg, "hsr.quads_per_cycle");
    uint32_t bufs = (uint32_t)tbr_cfg_uint(cfg, "hsr.tile_buffers");
    if (add_tile_buffer(e, cfg, "hsr.depth_buffer", "depth_buffer", "hsr", rus * bufs, err, errlen)) return -1;
    tbr_energy_geom g;
    memset(&g, 0, sizeof g);
    g.op = TBR_EV_PRIM_SETUP;
    g.lanes = 1;
    g.count = rus;
    if (add_simple(e, "hsr.prim_setup", "hsr", TBR_EK_FIXED, &g, err, errlen)) return -1;
    g.op = TBR_EV_QUAD;
    g.lanes = qpc;
    if (add_simple(e, "hsr.rasterizer", "hsr", TBR_EK_FIXED, &g, err, errlen)) return -1;
    memset(&g, 0, sizeof g);
    g.width_bits = 32;
    g.lanes = 4 * qpc;
    g.count = rus;
    return add_simple(e, "hsr.early_z", "hsr", TBR_EK_COMPARATOR, &g, err, errlen);
}

int tbr_energy_add_baseline(tbr_energy *e, const tbr_config *cfg, tbr_stats *stats, char *err, size_t errlen)
{
    uint32_t vps = (uint32_t)tbr_cfg_uint(cfg, "vertex.processors");
    uint32_t fps = (uint32_t)tbr_cfg_uint(cfg, "fragment.processors"); /* per Raster Unit */
    uint32_t rus = (uint32_t)tbr_cfg_uint(cfg, "tile.raster_units");
    /* unified shader cores (shader.organization, docs/energy-model.md): P pool cores with
     * shader.pool_threads threads each; their ALUs and register files are the vertex.*
     * (min(vertex.processors, P - 1) of them) and fragment.* structures together, so the
     * leakage counts P cores. Every Raster Unit keeps a fragment context, a pre-fragment
     * queue and a texture unit and cache per pool core (raster/raster_unit.c ru_init). */
    const bool unified = tbr_cfg_enum(cfg, "shader.organization") == 1;
    uint64_t pool_threads = tbr_cfg_uint(cfg, "shader.pool_threads");
    if (!pool_threads) pool_threads = tbr_cfg_uint(cfg, "fragment.threads_per_processor");
    uint32_t frag_cores = fps * rus; /* split: every Raster Unit has its own fragment processors */
    if (unified) {
        uint32_t pool = (uint32_t)tbr_cfg_uint(cfg, "shader.pool_cores");
        if (!pool) pool = vps + fps * rus;
        fps = pool;
        vps = pool > 1 ? (vps < pool - 1 ? vps : pool - 1) : 1;
        frag_cores = pool > vps ? pool - vps : 1;
    }
    /* texture units, texture caches and pre-fragment queues: one per fragment processor of
     * every Raster Unit (texture_cache.<ru * fps + i>, texture/texture_unit.c) */
    const uint32_t per_fp = fps * rus;
    /* instruction caches: the simulator builds one shared or two (gpu.c build_units) */
    const uint32_t icaches = tbr_cfg_uint(cfg, "inst_cache.count") >= 2 ? 2 : 1;
    /* vertex.texture_path = cache: one more texture cache (texture_cache.vertex) */
    const bool vtc = tbr_cfg_enum(cfg, "vertex.texture_path") == 1;
    tbr_energy_unit *tcu = NULL;
    /* one vertex cache: the Vertex Fetcher reads through one shared cache (geometry.c;
     * vertex_cache.private is not modeled, timing/core/config.c) */
    if (!add_cache(e, cfg, stats, "vertex_cache", 1, false, err, errlen) ||
        !add_cache(e, cfg, stats, "tile_cache", 1, false, err, errlen) ||
        !(tcu = add_cache(e, cfg, stats, "texture_cache", per_fp + (vtc ? 1 : 0), false, err, errlen)) ||
        !add_cache(e, cfg, stats, "inst_cache", icaches, false, err, errlen) ||
        !add_cache(e, cfg, stats, "l2", 1, true, err, errlen))
        return -1;
    if (vtc && stats) { /* the vertex texture cache's counters (texture_unit.c) */
        tbr_energy_bind(e, tcu, TBR_EV_READ, tbr_stats_find(stats, "texture_cache.vertex.hits"));
        tbr_energy_bind(e, tcu, TBR_EV_TAG_LOOKUP, tbr_stats_find(stats, "texture_cache.vertex.misses"));
        tbr_energy_bind(e, tcu, TBR_EV_WRITE, tbr_stats_find(stats, "texture_cache.vertex.fills"));
    }
    tbr_energy_geom g;
    /* tile buffers, which the immediate-mode organisation does not build (its Z and color
     * caches instead: add_imr_caches) */
    if (tbr_cfg_enum(cfg, "pipeline.organization") == 1) {
        if (add_imr_caches(e, cfg, stats, rus, err, errlen)) return -1;
    } else {
        if (add_tile_buffer(e, cfg, "depth_buffer", "depth_buffer", "baseline", rus, err, errlen) ||
            add_tile_buffer(e, cfg, "color_buffer", "color_buffer", "baseline", rus, err, errlen))
            return -1;
    }
    if (add_queue(e, cfg, "queue.vertex_in", "queue.vertex_in", "queue.vertex_entry_bytes", 1, err, errlen) ||
        add_queue(e, cfg, "queue.vertex_out", "queue.vertex_out", "queue.vertex_entry_bytes", 1, err, errlen) ||
        add_queue(e, cfg, "queue.primitive", "queue.primitive", "queue.primitive_entry_bytes", 1, err, errlen) ||
        add_queue(e, cfg, "queue.tile", "queue.tile", "queue.primitive_entry_bytes", rus, err, errlen) ||
        add_queue(e, cfg, "queue.post_raster", "queue.post_raster", "queue.fragment_entry_bytes", rus, err, errlen) ||
        add_queue(e, cfg, "queue.pre_fragment", "queue.pre_fragment", "queue.fragment_entry_bytes", per_fp, err,
                  errlen) ||
        add_queue(e, cfg, "queue.color", "queue.color", "queue.color_entry_bytes", rus, err, errlen))
        return -1;
    /* shader processors: vec4 ALU + register file of 16 vec4 temporaries per
   * resident thread, 2 read + 1 write ports (estimate, docs/energy-model.md) */
    struct {
        const char *alu, *rf, *threads;
        uint32_t n;
    } sp[2] = {{"vertex.alu", "vertex.regfile", "vertex.threads_per_processor", vps},
               {"fragment.alu", "fragment.regfile", "fragment.threads_per_processor", frag_cores}};
    for (int i = 0; i < 2; i++) {
        memset(&g, 0, sizeof g);
        g.lanes = 4;
        g.count = sp[i].n;
        if (add_simple(e, sp[i].alu, "baseline", TBR_EK_ALU, &g, err, errlen)) return -1;
        memset(&g, 0, sizeof g);
        g.bytes = (unified ? pool_threads : tbr_cfg_uint(cfg, sp[i].threads)) * 16 * 16;
        g.width_bits = 128;
        g.ports = 3;
        g.count = sp[i].n;
        if (add_simple(e, sp[i].rf, "baseline", TBR_EK_REGFILE, &g, err, errlen)) return -1;
    }
    /* fixed-function units */
    memset(&g, 0, sizeof g);
    g.op = TBR_EV_PRIM_SETUP;
    g.lanes = 1;
    g.count = rus; /* one triangle setup per Raster Unit's rasterizer */
    if (add_simple(e, "prim_setup", "baseline", TBR_EK_FIXED, &g, err, errlen)) return -1;
    g.op = TBR_EV_QUAD;
    g.lanes = 4;
    g.count = rus;
    if (add_simple(e, "rasterizer", "baseline", TBR_EK_FIXED, &g, err, errlen)) return -1;
    g.op = TBR_EV_TEX;
    g.lanes = 1;
    g.count = per_fp;
    if (add_simple(e, "texture_unit", "baseline", TBR_EK_FIXED, &g, err, errlen)) return -1;
    g.op = TBR_EV_BLEND;
    g.lanes = (uint32_t)tbr_cfg_uint(cfg, "blend.quads_per_cycle");
    g.count = rus;
    if (add_simple(e, "blend", "baseline", TBR_EK_FIXED, &g, err, errlen)) return -1;
    memset(&g, 0, sizeof g);
    g.width_bits = 32;
    g.lanes = 4 * (uint32_t)tbr_cfg_uint(cfg, "early_z.quads_per_cycle");
    g.count = rus;
    if (add_simple(e, "early_z", "baseline", TBR_EK_COMPARATOR, &g, err, errlen)) return -1;
    if (tbr_cfg_bool(cfg, "hsr.enabled") && add_hsr(e, cfg, rus, err, errlen)) return -1;
    /* thesis §4.1.2: Primitive Table of the pipelined Tile Fetcher: 27 bits of
   * metadata + 16 attributes x 3 vertices x vec4 x 32 bit = 6171 bits/entry;
   * one attribute (384 bits) written or read per access */
    if (tbr_param_find("tile.fetcher_pipelined") && tbr_cfg_bool(cfg, "tile.fetcher_pipelined")) {
        memset(&g, 0, sizeof g);
        g.bytes = (tbr_cfg_uint(cfg, "tile.primitive_table_entries") * 6171 + 7) / 8;
        g.width_bits = 384;
        g.ports = 2;
        g.count = rus;
        if (add_simple(e, "primitive_table", "ptr_tf", TBR_EK_SRAM, &g, err, errlen)) return -1;
    }
    return 0;
}

int tbr_energy_add_re(tbr_energy *e, const tbr_config *cfg, uint32_t ot_entries, char *err, size_t errlen)
{
    uint64_t tw = tbr_cfg_uint(cfg, "tile.width"), th = tbr_cfg_uint(cfg, "tile.height");
    uint64_t tiles =
        ((tbr_cfg_uint(cfg, "screen.width") + tw - 1) / tw) * ((tbr_cfg_uint(cfg, "screen.height") + th - 1) / th);
    uint32_t id_bits = 1;
    while ((1ull << id_bits) < tiles) id_bits++;
    tbr_energy_geom g;
    memset(&g, 0, sizeof g);
    g.bytes = tiles * 2 * 4; /* two frames of 32-bit signatures */
    g.width_bits = 32;
    g.ports = 2;
    if (add_simple(e, "re.signature_buffer", "re", TBR_EK_SRAM, &g, err, errlen)) return -1;
    /* Compute CRC unit (Fig. 8): Sign subunit (8 LUTs) + Shift subunit (4 LUTs) per
   * subblock; with the combine Accumulate unit a second Shift subunit builds the shift
   * operator beside them (4 more LUTs). Accumulate: a Shift subunit (4 LUTs, Fig. 9) per
   * step, or the GF(2) multiplier per combine. */
    bool combine = tbr_cfg_enum(cfg, "re.accumulate_unit") == 0;
    memset(&g, 0, sizeof g);
    g.luts = combine ? 16 : 12;
    if (add_simple(e, "re.crc_compute", "re", TBR_EK_CRC, &g, err, errlen)) return -1;
    memset(&g, 0, sizeof g);
    if (combine)
        g.multiplier = true;
    else
        g.luts = 4;
    if (add_simple(e, "re.crc_accumulate", "re", TBR_EK_CRC, &g, err, errlen)) return -1;
    memset(&g, 0, sizeof g);
    g.entries = ot_entries ? ot_entries : 1;
    g.width_bits = id_bits;
    if (add_simple(e, "re.ot_queue", "re", TBR_EK_QUEUE, &g, err, errlen)) return -1;
    memset(&g, 0, sizeof g);
    g.bytes = (tiles + 7) / 8;
    g.width_bits = 1;
    if (add_simple(e, "re.constants_bitmap", "re", TBR_EK_SRAM, &g, err, errlen)) return -1;
    memset(&g, 0, sizeof g);
    g.width_bits = 32;
    if (add_simple(e, "re.signature_compare", "re", TBR_EK_COMPARATOR, &g, err, errlen)) return -1;
    return 0;
}

/* ---- reports ---- */

static void jkey(FILE *out, const char *k)
{
    tbr_json_string(out, k);
    fputc(':', out);
}

static void jnum(FILE *out, const char *k, double v)
{
    jkey(out, k);
    tbr_json_double(out, v);
}

/* Small magnitudes (seconds, J*s) in exponent notation: 6 decimals would round a
 * frame's time and EDP to 0. printf("%.9e") is deterministic. */
static void jsci(FILE *out, const char *k, double v)
{
    jkey(out, k);
    fprintf(out, "%.9e", v);
}

static void json_dram(FILE *out, const tbr_dram_energy *d, const double *src)
{
    fputc('{', out);
    jnum(out, "total_pj", d->total);
    fputc(',', out);
    jkey(out, "commands");
    fputc('{', out);
    jnum(out, "act", d->act);
    fputc(',', out);
    jnum(out, "pre", d->pre);
    fputc(',', out);
    jnum(out, "rd", d->rd);
    fputc(',', out);
    jnum(out, "wr", d->wr);
    fputc(',', out);
    jnum(out, "ref", d->ref);
    fputc(',', out);
    jnum(out, "rd_io", d->rd_io);
    fputc(',', out);
    jnum(out, "wr_io", d->wr_io);
    fputs("},", out);
    jkey(out, "background");
    fputc('{', out);
    jnum(out, "act_stby", d->act_stby);
    fputc(',', out);
    jnum(out, "pre_stby", d->pre_stby);
    fputc(',', out);
    jnum(out, "act_pd", d->act_pd);
    fputc(',', out);
    jnum(out, "pre_pd", d->pre_pd);
    fputc(',', out);
    jnum(out, "sref", d->sref);
    fputc(',', out);
    jnum(out, "total", d->background);
    fputs("},", out);
    jkey(out, "residency_estimated");
    fputs(d->residency_estimated ? "true" : "false", out);
    fputc(',', out);
    jkey(out, "by_source");
    fputc('{', out);
    for (int s = 0; s <= TBR_DSRC_COUNT; s++) {
        if (s) fputc(',', out);
        jnum(out, tbr_dram_source_name((tbr_dram_source)s), src[s]);
    }
    fputs("}}", out);
}

static void json_summary(FILE *out, const tbr_energy *e, size_t frame)
{
    tbr_energy_summary s;
    tbr_energy_summary_of(e, frame, &s);
    jsci(out, "seconds", s.seconds);
    fputc(',', out);
    jnum(out, "gpu_dynamic_pj", s.gpu_dynamic_pj);
    fputc(',', out);
    jnum(out, "gpu_static_pj", s.gpu_static_pj);
    fputc(',', out);
    jnum(out, "gpu_pj", s.gpu_pj);
    fputc(',', out);
    jnum(out, "dram_pj", s.dram_pj);
    fputc(',', out);
    jnum(out, "total_pj", s.total_pj);
    fputc(',', out);
    jnum(out, "avg_power_w", s.avg_power_w);
    fputc(',', out);
    jsci(out, "edp_js", s.edp_js);
    fputc(',', out);
    jkey(out, "dram");
    json_dram(out, &s.dram, s.dram_by_source);
    fputc(',', out);
    /* groups in registration order of their first unit */
    jkey(out, "groups");
    fputc('{', out);
    int first = 1;
    for (size_t i = 0; i < e->nu; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++) seen |= strcmp(e->u[j].group, e->u[i].group) == 0;
        if (seen) continue;
        double g = tbr_energy_group_pj(e, frame, e->u[i].group);
        if (!first) fputc(',', out);
        first = 0;
        jkey(out, e->u[i].group);
        fputc('{', out);
        jnum(out, "pj", g);
        fputc(',', out);
        jnum(out, "share_of_total", s.total_pj > 0 ? g / s.total_pj : 0);
        fputc('}', out);
    }
    fputs("},", out);
    jkey(out, "units");
    fputc('{', out);
    for (size_t i = 0; i < e->nu; i++) {
        if (i) fputc(',', out);
        jkey(out, e->u[i].name);
        fputc('{', out);
        jnum(out, "dynamic_pj", unit_sum(e, frame, i, 0));
        fputc(',', out);
        jnum(out, "static_pj", unit_sum(e, frame, i, 1));
        fputc('}', out);
    }
    fputc('}', out);
}

void tbr_energy_report_json(const tbr_energy *e, FILE *out)
{
    fputc('{', out);
    jkey(out, "model");
    fputc('{', out);
    jnum(out, "tech_nm", e->tech.tech_nm);
    fputc(',', out);
    jnum(out, "vdd", e->tech.vdd);
    fputc(',', out);
    jnum(out, "clock_ghz", e->clock_ghz);
    fputc(',', out);
    jkey(out, "dram_table");
    tbr_json_string(out, e->dp.table);
    fputs("},", out);
    jkey(out, "structures");
    fputc('{', out);
    for (size_t i = 0; i < e->nu; i++) {
        const unit_t *u = &e->u[i];
        if (i) fputc(',', out);
        jkey(out, u->name);
        fputc('{', out);
        jkey(out, "kind");
        tbr_json_string(out, tbr_em_kind_name(u->kind));
        fputc(',', out);
        jkey(out, "group");
        tbr_json_string(out, u->group);
        fputc(',', out);
        jnum(out, "count", u->geom.count ? u->geom.count : 1);
        fputc(',', out);
        jnum(out, "bits", (double)u->c.bits);
        fputc(',', out);
        jnum(out, "leak_mw", u->c.leak_mw);
        fputc(',', out);
        jkey(out, "events");
        fputc('{', out);
        int first = 1;
        for (int ev = 0; ev < TBR_EV_COUNT; ev++) {
            if (!u->c.priced[ev] && !u->tot[ev]) continue;
            if (!first) fputc(',', out);
            first = 0;
            jkey(out, tbr_em_event_name((tbr_energy_event)ev));
            fputc('{', out);
            jnum(out, "pj_each", u->c.pj[ev]);
            fputc(',', out);
            jnum(out, "count", (double)u->tot[ev]);
            fputc(',', out);
            jnum(out, "pj", (double)u->tot[ev] * u->c.pj[ev]);
            fputc('}', out);
        }
        fputs("}}", out);
    }
    fputs("},", out);
    jkey(out, "total");
    fputc('{', out);
    json_summary(out, e, TBR_ENERGY_TOTAL);
    fputs("},", out);
    jkey(out, "frames");
    fputc('[', out);
    for (size_t k = 0; k < e->nf; k++) {
        if (k) fputc(',', out);
        fputc('{', out);
        jkey(out, "label");
        tbr_json_string(out, e->f[k].label);
        fputc(',', out);
        jnum(out, "gpu_cycles", (double)e->f[k].gpu_cycles);
        fputc(',', out);
        jnum(out, "dram_cycles", (double)e->f[k].dram_cycles);
        fputc(',', out);
        json_summary(out, e, k);
        fputc('}', out);
    }
    fputs("]}\n", out);
}

static void text_summary(FILE *out, const tbr_energy *e, size_t frame, int units)
{
    tbr_energy_summary s;
    tbr_energy_summary_of(e, frame, &s);
    fprintf(out, "  time %.9f s, total %.3f uJ (GPU %.3f uJ: dynamic %.3f, static %.3f; DRAM %.3f uJ)\n", s.seconds,
            s.total_pj * 1e-6, s.gpu_pj * 1e-6, s.gpu_dynamic_pj * 1e-6, s.gpu_static_pj * 1e-6, s.dram_pj * 1e-6);
    fprintf(out, "  average power %.6f W, energy-delay product %.6e J*s\n", s.avg_power_w, s.edp_js);
    const tbr_dram_energy *d = &s.dram;
    fprintf(out, "  DRAM by command (uJ): ACT %.3f PRE %.3f RD %.3f (I/O %.3f) WR %.3f (I/O %.3f) REF %.3f\n",
            d->act * 1e-6, d->pre * 1e-6, d->rd * 1e-6, d->rd_io * 1e-6, d->wr * 1e-6, d->wr_io * 1e-6, d->ref * 1e-6);
    fprintf(out, "  DRAM background (uJ): act_stby %.3f pre_stby %.3f act_pd %.3f pre_pd %.3f sref %.3f%s\n",
            d->act_stby * 1e-6, d->pre_stby * 1e-6, d->act_pd * 1e-6, d->pre_pd * 1e-6, d->sref * 1e-6,
            d->residency_estimated ? " (residency estimated)" : "");
    fprintf(out, "  DRAM by source (uJ):");
    for (int k = 0; k <= TBR_DSRC_COUNT; k++)
        fprintf(out, " %s %.3f", tbr_dram_source_name((tbr_dram_source)k), s.dram_by_source[k] * 1e-6);
    fputc('\n', out);
    for (size_t i = 0; i < e->nu; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++) seen |= strcmp(e->u[j].group, e->u[i].group) == 0;
        if (seen) continue;
        double g = tbr_energy_group_pj(e, frame, e->u[i].group);
        fprintf(out, "  group %-10s %12.3f uJ  %7.3f %% of total\n", e->u[i].group, g * 1e-6,
                s.total_pj > 0 ? 100.0 * g / s.total_pj : 0.0);
    }
    if (!units) return;
    fprintf(out, "  %-24s %-10s %-8s %14s %14s\n", "structure", "kind", "group", "dynamic_uJ", "static_uJ");
    for (size_t i = 0; i < e->nu; i++)
        fprintf(out, "  %-24s %-10s %-8s %14.6f %14.6f\n", e->u[i].name, tbr_em_kind_name(e->u[i].kind), e->u[i].group,
                unit_sum(e, frame, i, 0) * 1e-6, unit_sum(e, frame, i, 1) * 1e-6);
}

void tbr_energy_report_text(const tbr_energy *e, FILE *out)
{
    fprintf(out, "energy model: %.0f nm, %.2f V, %.0f MHz; DRAM table %s\n", e->tech.tech_nm, e->tech.vdd,
            e->clock_ghz * 1000.0, e->dp.table);
    fprintf(out, "structures:\n  %-24s %-10s %-8s %12s %10s  energy per event (pJ)\n", "name", "kind", "group", "bits",
            "leak_mW");
    for (size_t i = 0; i < e->nu; i++) {
        const unit_t *u = &e->u[i];
        fprintf(out, "  %-24s %-10s %-8s %12llu %10.4f ", u->name, tbr_em_kind_name(u->kind), u->group,
                (unsigned long long)u->c.bits, u->c.leak_mw);
        for (int ev = 0; ev < TBR_EV_COUNT; ev++)
            if (u->c.priced[ev]) fprintf(out, " %s=%.3f", tbr_em_event_name((tbr_energy_event)ev), u->c.pj[ev]);
        fputc('\n', out);
    }
    for (size_t k = 0; k < e->nf; k++) {
        fprintf(out, "frame %zu (%s): %llu GPU cycles\n", k, e->f[k].label, (unsigned long long)e->f[k].gpu_cycles);
        text_summary(out, e, k, 0);
    }
    fprintf(out, "total (%zu frames):\n", e->nf);
    text_summary(out, e, TBR_ENERGY_TOTAL, 1);
}
