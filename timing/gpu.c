/* tbr-sim's wiring (gpu.h): builds the units from the configuration, connects their ports
 * and runs one render pass at a time: the geometry + tiling phase (Command Processor to
 * Polygon List Builder) until every primitive is binned and the Parameter Buffer written,
 * the functional rendering of the pass's tiles, then the raster phase (Tile Fetcher and
 * Raster Units) until every tile is flushed (thesis §2.2: TBR renders a pass's tiles only
 * after all of its geometry is binned). All units tick every cycle, consumers before
 * producers so a token moves at most one stage per cycle, except in quiescent spans. */
#include "gpu.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define WATCHDOG_CYCLES 2000000u /* no unit progressed for this long = model deadlock */

/* Primitive Assembly's status as the Polygon List Builder asks for it. */
static bool geometry_upstream_done(const void *ctx) { return geometry_done(ctx); }

/* The Raster Units' status as the Tile Fetcher asks for it. */
static bool ru_unit_idle(const void *ctx, uint32_t unit) { return ru_idle(&((const gpu *)ctx)->ru[unit]); }
static uint32_t ru_unit_tiles_done(const void *ctx, uint32_t unit) { return ((const gpu *)ctx)->ru[unit].tiles_done; }

/* The environment the units see: shared parameters, the services. */
static void env_init(gpu *g, const tbr_config *cfg, tbr_stats *st)
{
    sim_env *e = &g->env;
    e->cfg = cfg;
    e->st = st;
    e->ncyc = 1;
    e->fn = &g->fn;
    e->tech = &g->tech;
    e->tiles = &g->tiles_data;
    e->tile_w = (unsigned)tbr_cfg_uint(cfg, "tile.width");
    e->tile_h = (unsigned)tbr_cfg_uint(cfg, "tile.height");
    e->shader.lat_alu = (uint32_t)tbr_cfg_uint(cfg, "shader.lat_alu");
    e->shader.lat_cls[SIM_CL_ALU] = e->shader.lat_alu;
    e->shader.lat_cls[SIM_CL_SFU] = (uint32_t)tbr_cfg_uint(cfg, "shader.lat_sfu");
    e->shader.lat_cls[SIM_CL_TEX] = (uint32_t)tbr_cfg_uint(cfg, "shader.lat_tex");
    e->shader.lat_cls[SIM_CL_CTRL] = (uint32_t)tbr_cfg_uint(cfg, "shader.lat_ctrl");
    e->shader.issue_width = (uint32_t)tbr_cfg_uint(cfg, "shader.issue_width");
    e->shader.fp_threads = (uint32_t)tbr_cfg_uint(cfg, "fragment.threads_per_processor");
    e->shader.vp_threads = (uint32_t)tbr_cfg_uint(cfg, "vertex.threads_per_processor");
    sim_func_init(e->fn, ADDR_SURFACE_BASE);
    g->restore_used = tbr_cfg_enum(cfg, "tile.restore") == 0;
}

/* Statistics of the pass loop and those shared by several units. */
static void register_stats(gpu *g, tbr_stats *st)
{
    g->cyc_total = tbr_stats_counter(st, "cycles.total", "simulated GPU cycles");
    g->cyc_geom =
        tbr_stats_counter(st, "cycles.geometry", "cycles until Primitive Assembly emitted the pass's last primitive");
    g->cyc_tiling =
        tbr_stats_counter(st, "cycles.tiling", "further cycles until the Polygon List Builder finished the pass");
    g->cyc_raster =
        tbr_stats_counter(st, "cycles.raster", "cycles of the raster phase (tile fetch to last tile flush)");
    g->frames = tbr_stats_counter(st, "frames", "frames simulated");
    g->passes = tbr_stats_counter(st, "passes", "render passes simulated");
    g->draws = tbr_stats_counter(st, "draws", "draw calls");
    g->prims = tbr_stats_counter(st, "prims", "primitives that reached setup (PRIM records)");
    raster_stats_register(&g->raster, st);
    hsr_visibility_init(&g->hsr, g->env.cfg, st);
    if (g->hsr.enabled) g->raster.q_hsr_tested = tbr_stats_counter(st, "quads.hsr_tested", "quads tested by HSR");
    g->mask_mismatch = tbr_stats_counter(st, "func.mask_mismatch_quads",
                                         "quads whose recomputed depth/stencil/blend mask differs from the trace");
    texture_stats_register(&g->tex_stats, st);
    g->env.instr_streamed = tbr_stats_counter(st, "shader.items_executed_stream",
                                              "work items run from their executed instruction stream (PATH)");
    g->env.instr_static = tbr_stats_counter(st, "shader.items_static_count",
                                            "work items run as the shader's static instruction count (no PATH)");
}

/* The units, upstream first; each reads its own parameters. -1 with err. */
static int build_units(gpu *g, char *err, size_t errlen)
{
    const tbr_config *cfg = g->env.cfg;
    if (tbr_techniques_init(g->env.tech, cfg, g->env.st, err, errlen)) return -1;
    /* instruction caches: inst_cache.count = 1 -> one shared by vertex and fragment
     * processors, >= 2 -> one each (thesis Table 4.1: x2) */
    g->nicu = tbr_cfg_uint(cfg, "inst_cache.count") >= 2 ? 2 : 1;
    for (uint32_t i = 0; i < g->nicu; i++)
        if (icache_init(&g->icu[i], &g->env, i, err, errlen)) return -1;
    g->nru = (uint32_t)tbr_cfg_uint(cfg, "tile.raster_units");
    if (tbr_cfg_enum(cfg, "shader.organization") == 1) { /* unified shader cores (shader/shader_pool.h) */
        g->pool = tbr_xcalloc(1, sizeof *g->pool);
        shader_pool_init(g->pool, &g->env, 1 + g->nru);
    }
    if (geometry_init(&g->geo, &g->env, &g->icu[0], g->pool, err, errlen)) return -1;
    if (plb_init(&g->plb, &g->env, err, errlen)) return -1;
    if (tf_init(&g->tf, &g->env, &g->plb.pb, err, errlen)) return -1;
    /* the Texture Caches' organisation spans every Raster Unit's processors (seeds/003) */
    uint32_t ntex = g->nru * (g->pool ? g->pool->ncores : (uint32_t)tbr_cfg_uint(cfg, "fragment.processors"));
    if (tex_nuca_create(&g->env.tex_nuca, cfg, g->env.st, ntex, err, errlen)) return -1;
    g->ru = tbr_xcalloc(g->nru, sizeof *g->ru);
    for (uint32_t i = 0; i < g->nru; i++)
        if (ru_init(&g->ru[i], &g->env, i, &g->raster, &g->tex_stats, &g->icu[g->nicu - 1], &g->hsr, g->pool, err,
                    errlen))
            return -1;
    g->ru_tiles = tbr_xcalloc(g->nru, sizeof *g->ru_tiles);
    g->ru_active = tbr_xcalloc(g->nru, sizeof *g->ru_active);
    for (uint32_t i = 0; i < g->nru; i++) {
        g->ru_tiles[i] = tbr_stats_counterf(g->env.st, "tiles rendered by this Raster Unit", "ru%u.tiles", i);
        g->ru_active[i] =
            tbr_stats_counterf(g->env.st, "cycles with a tile in this Raster Unit", "ru%u.active_cycles", i);
    }
    return 0;
}

/* The ports between units: primitives to the PLB, the Parameter Buffer to the Tile
 * Fetcher (given at tf_init), tiles to the Raster Units' Tile Queues. */
static void connect_units(gpu *g)
{
    plb_connect(&g->plb, &g->geo.prim_q, geometry_upstream_done, &g->geo);
    g->ru_tile_q = tbr_xcalloc(g->nru, sizeof *g->ru_tile_q);
    for (uint32_t i = 0; i < g->nru; i++) g->ru_tile_q[i] = &g->ru[i].tile_q;
    if (g->pool) { /* the pool reads the clients' input queues as their request ports */
        shader_pool_connect(g->pool, SP_CLIENT_VERTEX, &g->geo.vertex_in, 1);
        for (uint32_t i = 0; i < g->nru; i++) shader_pool_connect(g->pool, 1 + i, g->ru[i].fp_in, g->ru[i].nfp);
    }
    tf_connect(
        &g->tf,
        &(tf_raster_units){
            .n = g->nru, .tile_q = g->ru_tile_q, .idle = ru_unit_idle, .tiles_done = ru_unit_tiles_done, .ctx = g});
}

gpu *gpu_new(const tbr_config *cfg, tbr_stats *st, char *err, size_t errlen)
{
    gpu *g = tbr_xcalloc(1, sizeof *g);
    g->skip_idle = true;
    g->env.mem = memsys_new(cfg, st, err, errlen);
    if (!g->env.mem) {
        free(g);
        return NULL;
    }
    env_init(g, cfg, st);
    register_stats(g, st);
    if (build_units(g, err, errlen)) {
        gpu_free(g);
        return NULL;
    }
    connect_units(g);
    memsys_register_stats(g->env.mem, st);
    if (gpu_energy_init(g, err, errlen)) {
        gpu_free(g);
        return NULL;
    }
    return g;
}

void gpu_free(gpu *g)
{
    if (!g) return;
    for (uint32_t i = 0; i < g->nru; i++) ru_free(&g->ru[i]);
    free(g->ru);
    tex_nuca_free(g->env.tex_nuca);
    free(g->ru_tiles);
    free(g->ru_active);
    tbr_techniques_free(g->env.tech);
    tile_stats_free(g->env.tiles);
    tf_free(&g->tf);
    free(g->ru_tile_q);
    plb_free(&g->plb);
    geometry_free(&g->geo);
    if (g->pool) shader_pool_free(g->pool);
    free(g->pool);
    for (uint32_t i = 0; i < g->nicu; i++) icache_free(&g->icu[i]);
    memsys_free(g->env.mem);
    tbr_energy_free(g->en);
    sim_func_free(g->env.fn);
    hsr_visibility_free(&g->hsr);
    free(g);
}

/* Functional rendering of every tile of the pass (values do not depend on timing), with
 * the techniques' tile hooks around each tile (RE's skip decision, TE's flush check).
 * TBDR: HSR decides each tile first, and the tile is rendered without the colour writes
 * of the fragments it removed (a wrong decision would change the frame). */
static void render_pass_tiles(gpu *g)
{
    hsr_visibility_begin_pass(&g->hsr, g->env.frame, g->env.tiles_x * g->env.tiles_y);
    g->env.fn->color_keep = g->hsr.enabled ? g->hsr.keep : NULL;
    for (unsigned ty = 0; ty < g->env.tiles_y; ty++)
        for (unsigned tx = 0; tx < g->env.tiles_x; tx++) {
            uint32_t t = ty * g->env.tiles_x + tx;
            sim_tile_result tr;
            hsr_visibility_tile(&g->hsr, g->env.fn, tx, ty, g->plb.pb.lists[t].n);
            tbr_techniques_render_tile(g->env.tech, g->env.fn, tx, ty, g->plb.pb.lists[t].prims, g->plb.pb.lists[t].n,
                                       &tr);
            tbr_stat_add(g->mask_mismatch, tr.mask_mismatch);
        }
    tbr_techniques_pass_render_end(g->env.tech);
}

/* ---- per-tile data (docs/timing-model.md "Per-tile data", core/tile_stats.h) ---- */

void gpu_tiles_frame_begin(gpu *g) { tile_stats_frame_begin(g->env.tiles); }

/* The pass draws into the default framebuffer (the surface written as the frame PNG):
 * its resource id, else -1. */
static int64_t pass_default_res(const gpu *g)
{
    if (!g->env.fn->have_default) return -1;
    const sim_pass *ps = &g->env.frame->passes[g->env.pass];
    for (unsigned i = 0; i < ps->rp.nr_cbufs && i < TBR_MAX_COLOR_BUFS; i++) {
        int si = sim_func_cbuf_surface(g->env.fn, i);
        if (si < 0) continue;
        const sim_surf *s = sim_func_surface(g->env.fn, si);
        if (s->res == g->env.fn->default_res && s->level == 0 && !s->is_zs) return s->res;
    }
    return -1;
}

void gpu_tiles_write_frame(const gpu *g, FILE *o, uint64_t frame, uint32_t cols, uint32_t rows)
{
    tile_stats_write_frame(g->env.tiles, o, frame, cols, rows);
}

/* ---- Idle-cycle skipping (docs/timing-model.md "Skipping quiescent cycles") ----
 * Before each cycle the loop asks every unit for its next event (the earliest cycle at
 * which its tick could change state, assuming no other unit does before then). If that
 * is later than now, cycles [now, next) are quiescent: every unit would only repeat the
 * same counting, so one call of each tick simulates all of them (g->env.ncyc cycles; the
 * memory system may cut the span short when the DRAM, which keeps running on its own
 * clock, produces something the GPU side would see). Spans end at the cycle at which a
 * deadlock watchdog fires, so it fires at the same cycle as without skipping. */
#define SKIP_MAX_SPAN 65536u /* bounds the DRAM's catch-up loop per call */

static uint64_t geometry_phase_next_event(const gpu *g)
{
    uint64_t now = g->env.now, ne = UINT64_MAX;
    if (tbr_techniques_geometry_busy(g->env.tech)) return now; /* a technique's unit works */
    /* the most frequent "now" first (terrain: a Vertex Processor issues in half the probes);
   * the answer does not depend on the order */
    for (uint32_t i = 0; i < g->geo.nvp; i++)
        if (sc_may_issue_now(&g->geo.vp[i], now)) return now;
    if (g->pool) GPU_EVENT_AT(ne, now, shader_pool_next_event(g->pool));
    GPU_EVENT_AT(ne, now, geometry_next_event(&g->geo));
    GPU_EVENT_AT(ne, now, plb_next_event(&g->plb));
    GPU_EVENT_AT(ne, now, icache_next_event(&g->icu[0]));
    GPU_EVENT_AT(ne, now, memsys_next_event(g->env.mem, now));
    return ne;
}

static uint64_t raster_phase_next_event(const gpu *g)
{
    uint64_t now = g->env.now, ne = UINT64_MAX;
    /* the most frequent "now" first (terrain: a Fragment Processor issues in 84% of the
   * probes); the answer does not depend on the order */
    for (uint32_t i = 0; i < g->nru; i++)
        for (uint32_t k = 0; k < g->ru[i].nfp; k++)
            if (sc_may_issue_now(&g->ru[i].fp[k], now)) return now;
    if (g->pool) GPU_EVENT_AT(ne, now, shader_pool_next_event(g->pool));
    for (uint32_t i = 0; i < g->nru; i++) GPU_EVENT_AT(ne, now, ru_next_event(&g->ru[i]));
    GPU_EVENT_AT(ne, now, tf_next_event(&g->tf));
    GPU_EVENT_AT(ne, now, icache_next_event(&g->icu[g->nicu - 1]));
    GPU_EVENT_AT(ne, now, memsys_next_event(g->env.mem, now));
    return ne;
}

/* Cycles the next loop iteration simulates: 1, or the quiescent span up to the next
 * event, not beyond cycle `limit` (the cycle after which the phase's watchdog fires). */
static uint64_t span(const gpu *g, uint64_t next_event, uint64_t limit)
{
    if (next_event > limit) next_event = limit;
    if (next_event <= g->env.now + 1) return 1;
    uint64_t n = next_event - g->env.now;
    return n > SKIP_MAX_SPAN ? SKIP_MAX_SPAN : n;
}

/* The span of the next iteration. Asking every unit for its next event costs time in
 * busy stretches, where the answer is "now" cycle after cycle: after each such answer
 * the next question waits 1, 2, 4, then 4 cycles (each of those cycles is simply
 * ticked, which is always exact); a skipped span resets this. */
#define PROBE_GAP_MAX 4u
static uint64_t next_span(gpu *g, bool raster, uint64_t limit)
{
    if (!g->skip_idle) return 1;
    if (g->probe_wait) {
        g->probe_wait--;
        return 1;
    }
    uint64_t n = span(g, raster ? raster_phase_next_event(g) : geometry_phase_next_event(g), limit);
    if (n > 1)
        g->probe_gap = 0;
    else {
        g->probe_gap = g->probe_gap ? (g->probe_gap * 2 > PROBE_GAP_MAX ? PROBE_GAP_MAX : g->probe_gap * 2) : 1;
        g->probe_wait = g->probe_gap;
    }
    return n;
}

/* Monotonic count of geometry + tiling phase events that moved work forward. */
static uint64_t geometry_progress(const gpu *g)
{
    return g->geo.progress + g->plb.progress + tbr_techniques_geometry_progress(g->env.tech);
}

int gpu_fast_forward_frame(gpu *g, const sim_frame *f, char *err, size_t errlen)
{
    sim_func_derive_texels(g->env.fn, NULL); /* no timing: no texels needed */
    g->env.fn->color_keep = NULL;            /* no HSR decisions for frames not timed */
    for (size_t p = 0; p < f->npasses; p++) {
        if (sim_func_begin_pass(g->env.fn, f, p, g->env.tile_w, g->env.tile_h, err, errlen)) return -1;
        const unsigned tx_n = sim_func_tiles_x(g->env.fn), ty_n = sim_func_tiles_y(g->env.fn);
        for (unsigned ty = 0; ty < ty_n; ty++)
            for (unsigned tx = 0; tx < tx_n; tx++) {
                sim_tile_result tr;
                sim_func_render_tile(g->env.fn, tx, ty, &tr);
            }
        sim_func_end_pass(g->env.fn);
    }
    return 0;
}

/* The frame's pass `pass` begins: the functional back end sets it up (tile grid), the
 * techniques hear of it, the pass's counters. -1 with err (unusable pass). */
static int pass_begin(gpu *g, const sim_frame *f, size_t pass, char *err, size_t errlen)
{
    g->env.frame = f;
    /* a new frame: its derived texels start empty (render_pass_tiles derives them, before
     * each pass's raster phase reads them) */
    if (pass == 0) sim_func_derive_texels(g->env.fn, f);
    g->env.pass = pass;
    if (sim_func_begin_pass(g->env.fn, f, pass, g->env.tile_w, g->env.tile_h, err, errlen)) return -1;
    g->env.tiles_x = sim_func_tiles_x(g->env.fn);
    g->env.tiles_y = sim_func_tiles_y(g->env.fn);
    uint32_t nt = g->env.tiles_x * g->env.tiles_y;
    if (pass == 0) tbr_techniques_frame_begin(g->env.tech, &(tbr_frame_info){.frame = f, .signatures = g->sufd});
    tbr_techniques_pass_begin(g->env.tech, &(tbr_pass_info){.frame = f,
                                                            .pass = pass,
                                                            .fn = g->env.fn,
                                                            .tiles_x = g->env.tiles_x,
                                                            .tiles_y = g->env.tiles_y,
                                                            .ntiles = nt});
    tbr_stat_inc(g->passes);
    tbr_stat_add(g->draws, f->passes[pass].ndraws);
    for (uint32_t k = 0; k < f->passes[pass].ndraws; k++)
        tbr_stat_add(g->prims, f->draws[f->passes[pass].first_draw + k].nprims);
    return 0;
}

static void pass_restore_planes(gpu *g, const sim_frame *f, size_t pass)
{
    /* Which uncleared planes the raster phase loads (tile.restore): with `used`, as a
   * TBR driver restores them (Mesa freedreno batch_draw_tracking): depth/stencil only if
   * a draw of the pass tests depth or stencil (GL writes neither without its test),
   * colors only if the pass draws at all. A plane nothing reads is not loaded; the
   * timing model never stores depth/stencil, so such a load was never used. Frames are
   * unaffected (functional rendering does not depend on timing). */
    g->env.pass_loads_color = g->env.pass_loads_zs = true;
    if (g->restore_used) {
        const sim_pass *ps = &f->passes[pass];
        bool zs_used = false;
        for (uint32_t k = 0; k < ps->ndraws && !zs_used; k++) {
            const tbr_rec_draw *d = &f->draws[ps->first_draw + k].rec;
            zs_used = d->depth_enabled || d->stencil[0].enabled || d->stencil[1].enabled;
        }
        g->env.pass_loads_zs = zs_used;
        g->env.pass_loads_color = ps->ndraws > 0;
    }
}

/* Geometry + tiling phase: until every primitive is binned and the Parameter Buffer is
 * written. -1 with err on a model deadlock. */
static int geometry_phase(gpu *g, const sim_frame *f, size_t pass, char *err, size_t errlen)
{
    uint64_t start = g->env.now;
    geometry_begin_pass(&g->geo);
    plb_begin_pass(&g->plb);
    g->geo.last_prim_cycle = start;
    /* Deadlock watchdog: the phase fails only if no unit moved work forward (a vertex
   * request, response, hand-off or shading, a primitive assembled or binned, a Parameter
   * Buffer line written, a CRC step) for WATCHDOG_CYCLES. It is not a budget on the
   * phase's length: a pass's geometry time grows with its vertex count, which the
   * frame's primitive and quad counts do not bound (a draw whose triangles are mostly
   * clipped or culled before setup still fetches and shades all of its vertices). */
    uint64_t idle_since = g->env.now;
    uint64_t progress = geometry_progress(g);
    while (!(plb_done(&g->plb) && tbr_techniques_geometry_idle(g->env.tech) && memsys_idle(g->env.mem) &&
             tbr_cache_idle(g->geo.vcache) && icache_idle(&g->icu[0]))) {
        g->env.ncyc = next_span(g, false, idle_since + WATCHDOG_CYCLES + 1);
        memsys_tick_n(g->env.mem, g->env.now, &g->env.ncyc); /* first: may shorten the span */
        if (g->pool) shader_pool_tick(g->pool);              /* before its clients: grants, issue */
        tbr_techniques_geometry_tick(g->env.tech);
        plb_tick(&g->plb);
        geometry_tick(&g->geo);
        icache_tick(&g->icu[0]);
        if (g->env.ncyc > 1) g->skipped_cycles += g->env.ncyc;
        g->env.now += g->env.ncyc;
        uint64_t pr = geometry_progress(g);
        if (pr != progress) {
            progress = pr;
            idle_since = g->env.now;
        }
        if (g->env.now - idle_since > WATCHDOG_CYCLES) {
            geometry_fold_stats(&g->geo);
            snprintf(err, errlen, "frame %llu pass %zu: geometry phase made no progress (model deadlock at cycle %llu)",
                     (unsigned long long)f->number, pass, (unsigned long long)g->env.now);
            return -1;
        }
    }
    geometry_fold_stats(&g->geo);
    uint64_t geo_end = g->env.now;
    uint64_t geom = (g->geo.last_prim_cycle + 1 > start ? g->geo.last_prim_cycle + 1 : start) - start;
    if (geom > geo_end - start) geom = geo_end - start;
    tbr_stat_add(g->cyc_geom, geom);
    tbr_stat_add(g->cyc_tiling, geo_end - start - geom);
    return 0;
}

/* Raster phase: until every tile is flushed. -1 with err on a model deadlock. */
static int raster_phase(gpu *g, const sim_frame *f, size_t pass, char *err, size_t errlen)
{
    uint32_t nt = g->env.tiles_x * g->env.tiles_y;
    uint32_t tiles0[16] = {0};
    for (uint32_t i = 0; i < g->nru && i < 16; i++) tiles0[i] = g->ru[i].tiles_done;
    tile_stats_pass_begin(g->env.tiles, nt);
    tf_begin_pass(&g->tf);
    for (uint32_t i = 0; i < g->nru; i++) {
        g->ru[i].tile_start_cycle = g->env.now;
        ru_begin_pass(&g->ru[i]);
    }
    uint64_t rstart = g->env.now;
    const uint64_t raster_limit = WATCHDOG_CYCLES + (uint64_t)f->nquads * 1024 + (uint64_t)f->nprims * 1024;
    for (;;) {
        bool done = tf_done(&g->tf) && memsys_idle(g->env.mem) && icache_idle(&g->icu[g->nicu - 1]);
        for (uint32_t i = 0; i < g->nru && done; i++) done = ru_idle(&g->ru[i]);
        if (done) break;
        g->env.ncyc = next_span(g, true, rstart + raster_limit + 1);
        memsys_tick_n(g->env.mem, g->env.now, &g->env.ncyc); /* first: may shorten the span */
        icache_tick(&g->icu[g->nicu - 1]);
        if (g->pool) shader_pool_tick(g->pool); /* before its clients: grants, issue */
        for (uint32_t i = 0; i < g->nru; i++) {
            if (!ru_idle(&g->ru[i])) tbr_stat_add(g->ru_active[i], g->env.ncyc);
            ru_tick(&g->ru[i]);
        }
        tf_tick(&g->tf);
        if (g->env.ncyc > 1) g->skipped_cycles += g->env.ncyc;
        g->env.now += g->env.ncyc;
        if (g->env.now - rstart > raster_limit) {
            for (uint32_t i = 0; i < g->nru; i++) ru_fold_stats(&g->ru[i]);
            snprintf(err, errlen, "frame %llu pass %zu: raster phase made no progress (model deadlock at cycle %llu)",
                     (unsigned long long)f->number, pass, (unsigned long long)g->env.now);
            return -1;
        }
    }
    for (uint32_t i = 0; i < g->nru; i++) ru_fold_stats(&g->ru[i]);
    uint32_t tiles_pass[16], nr = g->nru < 16 ? g->nru : 16;
    for (uint32_t i = 0; i < nr; i++) {
        tiles_pass[i] = g->ru[i].tiles_done - tiles0[i];
        tbr_stat_add(g->ru_tiles[i], tiles_pass[i]);
    }
    tbr_techniques_pass_end(g->env.tech, tiles_pass, nr);
    tbr_stat_add(g->cyc_raster, g->env.now - rstart);
    return 0;
}

int gpu_run_pass(gpu *g, const sim_frame *f, size_t pass, char *err, size_t errlen)
{
    if (pass_begin(g, f, pass, err, errlen)) return -1;
    pass_restore_planes(g, f, pass);
    uint64_t start = g->env.now;
    if (geometry_phase(g, f, pass, err, errlen)) return -1;
    /* Functional rendering of the pass, tile by tile, after binning (RE signs each tile's
     * Polygon List Builder list). */
    render_pass_tiles(g);
    if (raster_phase(g, f, pass, err, errlen)) return -1;
    tbr_stat_add(g->cyc_total, g->env.now - start);
    tile_stats_pass_end(g->env.tiles, pass_default_res(g), g->env.tiles_x, g->env.tiles_y, g->tech.skip,
                        g->tech.flush_elim);
    sim_func_end_pass(g->env.fn);
    return 0;
}
