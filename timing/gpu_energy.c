/* tbr-sim energy accounting (docs/energy-model.md "Driven by tbr-sim"): registers the
 * hardware structures with the energy model (timing/energy/energy.h), binds their events to the
 * statistics the units already count, hooks the pipeline queues, tags DRAM requests by
 * source and closes each frame with the GPU cycles, the DRAM command counts and the
 * DRAM rank residency. Inline counts (attributes, primitive setups, tile-buffer
 * accesses, Early-Z compares, interconnect flits) are in raster_unit.c and memsys.c. */
#include "gpu.h"

#include <stdio.h>
#include <string.h>

/* Who caused a DRAM request, from the simulated address map (gpu.h, sim_trace.h). Surface
 * reads are tile-buffer loads at tile start; surface writes are color flushes (or L2
 * write-backs of flushed lines); sampled textures have their own region. */
static tbr_dram_source classify(uint64_t a, bool write)
{
    if (a >= ADDR_CODE_BASE) return TBR_DSRC_INSTRUCTIONS;
    if (a >= ADDR_VBUF_BASE) return TBR_DSRC_VERTICES;
    if (a >= ADDR_TEXTURE_BASE) return TBR_DSRC_TEXTURES;
    if (a >= ADDR_PB_LIST_BASE) return TBR_DSRC_PARAMETER_BUFFER;
    if (a >= ADDR_SURFACE_BASE) return write ? TBR_DSRC_COLOR_FLUSH : TBR_DSRC_TILE_LOADS;
    if (a >= ADDR_VERTEX_BASE) return TBR_DSRC_VERTICES;
    return TBR_DSRC_OTHER;
}

/* Whether a render-target line lies in a depth/stencil surface (DRAM bytes by plane): the
 * surfaces found last are remembered as address ranges (a pass binds a few planes). */
static bool surface_is_depth(void *ctx, uint64_t a)
{
    gpu *g = ctx;
    for (unsigned k = 0; k < GPU_PLANE_MEMO; k++)
        if (a >= g->plane_memo[k].base && a < g->plane_memo[k].end) return g->plane_memo[k].is_zs;
    const sim_func *fn = g->env.fn;
    for (size_t i = 0; i < fn->nsurfs; i++) {
        const sim_surf *s = &fn->surfs[i];
        const tbr_format_info *fi = tbr_format_get_info(s->fmt);
        uint64_t end = s->base + (uint64_t)s->w * s->h * (fi ? fi->bytes : 4);
        if (s->has_base && a >= s->base && a < end) {
            g->plane_memo[g->plane_memo_next] = (gpu_plane_range){.base = s->base, .end = end, .is_zs = s->is_zs};
            g->plane_memo_next = (g->plane_memo_next + 1) % GPU_PLANE_MEMO;
            return s->is_zs;
        }
    }
    return false;
}

/* ---- dirty L2 lines at a frame's end and the run's end (docs/organisations.md) ---- */

enum { GPU_DIRTY_DEPTH, GPU_DIRTY_COLOR, GPU_DIRTY_PB, GPU_DIRTY_OTHER, GPU_DIRTY_KINDS };
static const char *const dirty_kind[GPU_DIRTY_KINDS] = {"depth", "color", "parameter_buffer", "other"};

typedef struct {
    gpu *g;
    uint64_t lines[GPU_DIRTY_KINDS];
} dirty_count;

/* A dirty line by what it holds: a render target's depth/stencil or color plane, the
 * Parameter Buffer, anything else (vertices or textures the GPU wrote). */
static void count_dirty(void *ctx, uint64_t a)
{
    dirty_count *dc = ctx;
    tbr_dram_source src = classify(a, true);
    int k = src == TBR_DSRC_PARAMETER_BUFFER ? GPU_DIRTY_PB
            : src != TBR_DSRC_COLOR_FLUSH    ? GPU_DIRTY_OTHER
            : surface_is_depth(dc->g, a)     ? GPU_DIRTY_DEPTH
                                             : GPU_DIRTY_COLOR;
    dc->lines[k]++;
}

static void dirty_stats_init(gpu *g)
{
    tbr_stats *st = g->env.st;
    for (int k = 0; k < GPU_DIRTY_KINDS; k++) {
        char name[96];
        snprintf(name, sizeof name, "l2.dirty_bytes_at_frame_end.%s", dirty_kind[k]);
        g->dirty_at_frame_end[k] = tbr_stats_average(
            st, name, "bytes of dirty L2 lines at a frame's end (not yet in the DRAM), one sample per frame");
        g->end_flush[k] = tbr_stats_counterf(
            st,
            "bytes a write-back of the L2's dirty lines after the last frame moves to the DRAM (counted, not timed)",
            "%s.%s", "dram.end_flush_bytes", dirty_kind[k]);
    }
    g->end_flush[GPU_DIRTY_KINDS] = tbr_stats_counter(
        st, "dram.end_flush_bytes",
        "bytes a write-back of the L2's dirty lines after the last frame moves to the DRAM (counted, not timed; "
        "dram.bytes + this = every byte the run wrote reaching memory)");
}

static void dirty_lines(gpu *g, dirty_count *dc)
{
    memset(dc, 0, sizeof *dc);
    dc->g = g;
    tbr_cache_for_each_dirty(memsys_l2(g->env.mem), count_dirty, dc);
}

/* One sample per frame: a frame's value is the level at its end; the run's mean, min and max
 * are over the frames. */
void gpu_dirty_lines_frame_end(gpu *g)
{
    if (!g->end_flush[0]) return;
    dirty_count dc;
    dirty_lines(g, &dc);
    uint64_t line = tbr_cfg_uint(g->env.cfg, "l2.line_bytes");
    for (int k = 0; k < GPU_DIRTY_KINDS; k++) tbr_stat_hsample(g->dirty_at_frame_end[k], dc.lines[k] * line);
}

void gpu_dirty_lines_run_end(gpu *g)
{
    if (!g->end_flush[0]) return;
    dirty_count dc;
    dirty_lines(g, &dc);
    uint64_t line = tbr_cfg_uint(g->env.cfg, "l2.line_bytes");
    for (int k = 0; k < GPU_DIRTY_KINDS; k++) {
        tbr_stat_add(g->end_flush[k], dc.lines[k] * line);
        tbr_stat_add(g->end_flush[GPU_DIRTY_KINDS], dc.lines[k] * line);
    }
}

static void hook(sim_queue *q, tbr_energy_unit *u)
{
    if (!u) return;
    q->en_push = &u->ev[TBR_EV_PUSH];
    q->en_pop = &u->ev[TBR_EV_POP];
}

#define FIND(n) tbr_energy_find(g->en, n)

int gpu_energy_init(gpu *g, char *err, size_t errlen)
{
    const tbr_config *cfg = g->env.cfg;
    g->en = tbr_energy_new(cfg, err, errlen);
    if (!g->en) return -1;
    /* baseline: caches bound to <cache>.hits/.misses/.fills/.write_hits; Primitive Table
   * (group "ptr_tf") when the Tile Fetcher is pipelined */
    if (tbr_energy_add_baseline(g->en, cfg, g->env.st, err, errlen)) return -1;
    dirty_stats_init(g);
    /* the techniques' structures and events (groups "re", "te", ...) */
    if (tbr_techniques_energy(g->env.tech, g->en, cfg, err, errlen)) return -1;
    /* port arbiter <-> L2 interconnect: 128-bit flits, one hop (estimate) */
    tbr_energy_geom gm;
    memset(&gm, 0, sizeof gm);
    gm.width_bits = 128;
    g->eu_noc = tbr_energy_add(g->en, "interconnect", "baseline", TBR_EK_NOC, &gm, err, errlen);
    if (!g->eu_noc) return -1;
    memsys_set_energy(g->env.mem, g->en, g->eu_noc, 128, classify);
    memsys_set_plane_classifier(g->env.mem, surface_is_depth, g);
    /* the texture caches' NUCA organisation: its mesh and Affinity Table(s) (group "dtm") */
    if (g->env.tex_nuca && tex_nuca_energy(g->env.tex_nuca, g->en, err, errlen)) return -1;

    g->raster.en.setup = FIND("prim_setup");
    g->raster.en.raster = FIND("rasterizer");
    g->raster.en.depth = FIND("depth_buffer");
    g->raster.en.color = FIND("color_buffer");
    g->raster.en.ztest = FIND("early_z");
    g->raster.en.hsr_setup = FIND("hsr.prim_setup"); /* TBDR only */
    g->raster.en.hsr_raster = FIND("hsr.rasterizer");
    g->raster.en.hsr_depth = FIND("hsr.depth_buffer");
    g->raster.en.hsr_ztest = FIND("hsr.early_z");
    g->raster.en.zcache = FIND("imr.z_cache"); /* IMR only */
    g->raster.en.ccache = FIND("imr.color_cache");
    uint64_t line = tbr_cfg_uint(cfg, "l2.line_bytes");
    uint64_t zb = 4 * tbr_cfg_uint(cfg, "depth_buffer.bytes_per_pixel"),
             cb = 4 * tbr_cfg_uint(cfg, "color_buffer.bytes_per_pixel");
    g->raster.en.qpl_z = zb ? (line + zb - 1) / zb : 1;
    g->raster.en.qpl_c = cb ? (line + cb - 1) / cb : 1;

    /* queues (thesis Table 4.1): every push/pop of a token */
    hook(&g->geo.vertex_in, FIND("queue.vertex_in"));
    hook(&g->geo.vertex_out, FIND("queue.vertex_out"));
    hook(&g->geo.prim_q, FIND("queue.primitive"));
    for (uint32_t i = 0; i < g->nru; i++) {
        raster_unit *r = &g->ru[i];
        hook(&r->tile_q, FIND("queue.tile"));
        hook(&r->post_raster, FIND("queue.post_raster"));
        hook(&r->color_q, FIND("queue.color"));
        for (uint32_t j = 0; j < r->nfp; j++) hook(&r->fp_in[j], FIND("queue.pre_fragment"));
    }

    /* shader processors: instructions priced by class (executed streams, PATH): ALU = one
   * vec4 FMA, SFU = one special-function op, flow control = one integer op, TEX = one
   * texture-unit request (its samples are priced below); every instruction reads 2 and
   * writes 1 register. Static counts (no PATH) are all ALU, as before. */
    tbr_energy_unit *valu = FIND("vertex.alu"), *vrf = FIND("vertex.regfile");
    tbr_energy_unit *falu = FIND("fragment.alu"), *frf = FIND("fragment.regfile");
    for (uint32_t i = 0; i < g->geo.nvp; i++) {
        const shader_core *c = &g->geo.vp[i];
        const tbr_stat *s = c->instr;
        tbr_energy_bind(g->en, valu, TBR_EV_FMA, c->cls_instr[SIM_CL_ALU]);
        tbr_energy_bind(g->en, valu, TBR_EV_SFU, c->cls_instr[SIM_CL_SFU]);
        tbr_energy_bind(g->en, valu, TBR_EV_INT, c->cls_instr[SIM_CL_CTRL]);
        tbr_energy_bind(g->en, vrf, TBR_EV_READ, s);
        tbr_energy_bind(g->en, vrf, TBR_EV_READ, s);
        tbr_energy_bind(g->en, vrf, TBR_EV_WRITE, s);
    }
    /* a fragment-processor thread is a 2x2 quad and `instructions` counts the FS
   * instructions issued per quad (docs/timing-model.md), while the ALU and register file
   * are priced per fragment (one vec4 op / one 128-bit register): each issued quad
   * instruction is 4 fragment instructions, so every binding is made 4 times */
    for (uint32_t i = 0; i < g->nru; i++)
        for (uint32_t j = 0; j < g->ru[i].nfp; j++) {
            const shader_core *c = &g->ru[i].fp[j];
            const tbr_stat *s = c->instr;
            for (int px = 0; px < 4; px++) {
                tbr_energy_bind(g->en, falu, TBR_EV_FMA, c->cls_instr[SIM_CL_ALU]);
                tbr_energy_bind(g->en, falu, TBR_EV_SFU, c->cls_instr[SIM_CL_SFU]);
                tbr_energy_bind(g->en, falu, TBR_EV_INT, c->cls_instr[SIM_CL_CTRL]);
                tbr_energy_bind(g->en, frf, TBR_EV_READ, s);
                tbr_energy_bind(g->en, frf, TBR_EV_READ, s);
                tbr_energy_bind(g->en, frf, TBR_EV_WRITE, s);
            }
        }
    /* texture unit: one TBR_EV_TEX per bilinear sample (4 texels of a lane, rounded up per
   * TEX request); texture caches are bound by tbr_energy_add_baseline
   * (texture_cache.<i>.hits/misses/fills); instruction caches: every fetch that found its
   * line reads the array once (the cache model counts the misses and fills) */
    tbr_energy_bind(g->en, FIND("texture_unit"), TBR_EV_TEX, g->tex_stats.samples);
    tbr_energy_bind(g->en, FIND("texture_unit"), TBR_EV_TEX, g->geo.vt.samples); /* vertex texturing */
    tbr_energy_unit *icu = FIND("inst_cache");
    for (uint32_t i = 0; i < g->nicu; i++) tbr_energy_bind(g->en, icu, TBR_EV_READ, g->icu[i].hits);
    /* fixed function */
    tbr_energy_bind(g->en, g->raster.en.raster, TBR_EV_QUAD, g->raster.q_raster);
    tbr_energy_bind(g->en, FIND("blend"), TBR_EV_BLEND, g->raster.q_blended);
    /* Primitive Table: each attribute written when it arrives, read when sent to the RU */
    tbr_energy_unit *pt = FIND("primitive_table");
    tbr_energy_bind(g->en, pt, TBR_EV_WRITE, g->tf.attr_reqs);
    tbr_energy_bind(g->en, pt, TBR_EV_READ, g->tf.attr_reqs);
    return 0;
}

void gpu_energy_frame_end(gpu *g, const char *label)
{
    if (!g->en) return;
    tbr_dram *d = memsys_dram(g->env.mem);
    tbr_dram_counts dc;
    tbr_dram_get_counts(d, &dc);
    tbr_dram_residency res;
    memset(&res, 0, sizeof res);
    tbr_dram_rank_cycles(d, &res.act_stby, &res.pre_stby);
    tbr_energy_frame_end(g->en, label, g->env.now, &dc, tbr_dram_now(d), &res);
}
