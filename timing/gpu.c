/* tbr-sim's wiring (gpu.h): builds the units from the configuration, connects their ports
 * and runs one render pass at a time: the geometry + tiling phase (Command Processor to
 * Polygon List Builder) until every primitive is binned and the Parameter Buffer written,
 * the functional rendering of the pass's tiles, then the raster phase (Tile Fetcher and
 * Raster Units) until every tile is flushed (thesis §2.2: TBR renders a pass's tiles only
 * after all of its geometry is binned). With overlap.enabled the next pass's geometry
 * phase runs during the current pass's raster phase (below, "Geometry/raster overlap").
 * All units tick every cycle, consumers before producers so a token moves at most one
 * stage per cycle, except in quiescent spans. */
#include "gpu.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* The per-cycle helpers the phase loops share: inlined into each loop as they were when
 * each loop had its own copy (bench/sim-speed; docs/verification.md). */
#define HOT static inline __attribute__((always_inline))

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
    g->cyc_total = tbr_stats_counter(
        st, "cycles.total",
        "simulated GPU cycles, each counted once: from the first frame's first command to the last frame's last tile "
        "flush; a frame's cycles run from its first command to its last tile flush, and with overlap.across_frames "
        "the next frame's geometry may begin during a frame's last raster phase, so consecutive frames overlap and "
        "their sum may exceed this total (without it, it is their sum)");
    g->cyc_geom =
        tbr_stats_counter(st, "cycles.geometry", "cycles until Primitive Assembly emitted the pass's last primitive");
    g->cyc_tiling =
        tbr_stats_counter(st, "cycles.tiling", "further cycles until the Polygon List Builder finished the pass");
    g->cyc_raster =
        tbr_stats_counter(st, "cycles.raster", "cycles of the raster phase (tile fetch to last tile flush)");
    g->frames = tbr_stats_counter(st, "frames", "frames simulated");
    g->passes = tbr_stats_counter(st, "passes", "render passes simulated");
    g->draws = tbr_stats_counter(st, "draws", "draw calls");
    g->tex_compressed_lines = tbr_stats_counter(st, "texture.compressed_lines",
                                                "texture line requests of TEXELS fetches of block-compressed textures");
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
    if (!g->overlap) return; /* off: the statistics of one pass at a time, unchanged */
    g->cyc_both = tbr_stats_counter(st, "cycles.overlap_both_busy",
                                    "cycles in which a pass's geometry phase and another pass's raster phase both ran");
    g->cyc_pb_stall = tbr_stats_counter(
        st, "cycles.overlap_pb_stall",
        "cycles the geometry phase waited for a free Parameter Buffer (to begin a pass, or to write more)");
    g->cyc_dep_wait = tbr_stats_counter(st, "cycles.overlap_dependency_wait",
                                        "cycles the next pass's geometry waited for an earlier pass's last tile flush "
                                        "(its vertex shaders sample a render target that pass writes)");
    g->dep_passes = tbr_stats_counter(st, "overlap.dependent_passes",
                                      "passes that sample or load a render target an earlier pass of the frame writes");
    g->dep_violations = tbr_stats_counter(
        st, "overlap.dependency_violations",
        "dependent passes whose raster began before the writer's last tile flush (a model error: must be 0)");
    if (!g->across_frames) return;
    g->cyc_both_frames =
        tbr_stats_counter(st, "cycles.overlap_across_frames",
                          "cycles in which the next frame's geometry phase and this frame's raster phase both ran "
                          "(part of cycles.overlap_both_busy)");
    g->frame_dep_passes = tbr_stats_counter(
        st, "overlap.frame_dependent_passes",
        "passes that sample or load a render target the previous frame writes (rastered after its last tile flush; "
        "one rastered before counts in overlap.dependency_violations)");
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
    /* with overlap the geometry side sees the pass it bins (genv), the raster side the
     * pass it rasters (env) */
    g->genv = g->env;
    sim_env *genv = g->overlap ? &g->genv : &g->env;
    if (geometry_init(&g->geo, genv, &g->icu[0], g->pool, err, errlen)) return -1;
    if (plb_init(&g->plb, genv, err, errlen)) return -1;
    g->imr = tbr_cfg_enum(cfg, "pipeline.organization") == RU_ORG_IMR;
    if (g->imr) prim_dispatch_init(&g->pd, &g->env, g->env.st);
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
    if (g->imr)
        prim_dispatch_connect(&g->pd, &g->geo.prim_q, &g->ru[0].tile_q, geometry_upstream_done, &g->geo);
    else
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

static overlap_run *overlap_run_new(void); /* below, with the overlapped loop */

gpu *gpu_new(const tbr_config *cfg, tbr_stats *st, char *err, size_t errlen)
{
    gpu *g = tbr_xcalloc(1, sizeof *g);
    g->skip_idle = true;
    /* Rendering Elimination signs each pass's tiles during its binning and checks them
     * during its raster phase: with it, passes stay one at a time; IMR has no Parameter
     * Buffer to overlap through (docs/timing-model.md "Overlapping render passes") */
    g->overlap = tbr_cfg_bool(cfg, "overlap.enabled") && !tbr_cfg_bool(cfg, "re.enabled") &&
                 tbr_cfg_enum(cfg, "pipeline.organization") != RU_ORG_IMR;
    g->across_frames = g->overlap && tbr_cfg_bool(cfg, "overlap.across_frames");
    if (g->overlap) g->ov = overlap_run_new();
    g->pb_buffers = (uint32_t)tbr_cfg_uint(cfg, "overlap.pb_buffers");
    g->pb_buffer_bytes = tbr_cfg_uint(cfg, "overlap.pb_buffer_kib") * 1024;
    g->env.mem = memsys_new(cfg, st, err, errlen);
    if (!g->env.mem) {
        free(g->ov);
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
    for (uint32_t k = 0; k < GPU_MAX_PB; k++) {
        for (uint32_t i = 0; i < g->pb_store[k].cap_tiles; i++) free(g->pb_store[k].lists[i].prims);
        free(g->pb_store[k].lists);
        free(g->pb_store[k].prim_attr_off);
    }
    free(g->pass_pb);
    free(g->ov);
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
static void render_pass_tiles(gpu *g, const param_buffer *pb)
{
    hsr_visibility_begin_pass(&g->hsr, g->env.frame, g->env.tiles_x * g->env.tiles_y);
    g->env.fn->color_keep = g->hsr.enabled ? g->hsr.keep : NULL;
    for (unsigned ty = 0; ty < g->env.tiles_y; ty++)
        for (unsigned tx = 0; tx < g->env.tiles_x; tx++) {
            uint32_t t = ty * g->env.tiles_x + tx;
            sim_tile_result tr;
            hsr_visibility_tile(&g->hsr, g->env.fn, tx, ty, pb->lists[t].n);
            tbr_techniques_render_tile(g->env.tech, g->env.fn, tx, ty, pb->lists[t].prims, pb->lists[t].n, &tr);
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

/* The geometry units' next event; with_plb: the Polygon List Builder's too (TBR; IMR has
 * none). Inlined with a constant flag: each caller gets its own copy. */
static inline __attribute__((always_inline)) uint64_t geometry_units_next_event(const gpu *g, bool with_plb)
{
    uint64_t now = g->env.now, ne = UINT64_MAX;
    if (tbr_techniques_geometry_busy(g->env.tech)) return now; /* a technique's unit works */
    /* the most frequent "now" first (terrain: a Vertex Processor issues in half the probes);
   * the answer does not depend on the order */
    for (uint32_t i = 0; i < g->geo.nvp; i++)
        if (sc_may_issue_now(&g->geo.vp[i], now)) return now;
    if (g->pool) GPU_EVENT_AT(ne, now, shader_pool_next_event(g->pool));
    GPU_EVENT_AT(ne, now, geometry_next_event(&g->geo));
    if (with_plb) GPU_EVENT_AT(ne, now, plb_next_event(&g->plb));
    GPU_EVENT_AT(ne, now, icache_next_event(&g->icu[0]));
    GPU_EVENT_AT(ne, now, memsys_next_event(g->env.mem, now));
    return ne;
}

HOT uint64_t geometry_phase_next_event(const gpu *g) { return geometry_units_next_event(g, true); }

/* The raster units' next event; with_tf: the Tile Fetcher's too (TBR; IMR has none). */
static inline __attribute__((always_inline)) uint64_t raster_units_next_event(const gpu *g, bool with_tf)
{
    uint64_t now = g->env.now, ne = UINT64_MAX;
    /* the most frequent "now" first (terrain: a Fragment Processor issues in 84% of the
   * probes); the answer does not depend on the order */
    for (uint32_t i = 0; i < g->nru; i++)
        for (uint32_t k = 0; k < g->ru[i].nfp; k++)
            if (sc_may_issue_now(&g->ru[i].fp[k], now)) return now;
    if (g->pool) GPU_EVENT_AT(ne, now, shader_pool_next_event(g->pool));
    for (uint32_t i = 0; i < g->nru; i++) GPU_EVENT_AT(ne, now, ru_next_event(&g->ru[i]));
    if (with_tf) GPU_EVENT_AT(ne, now, tf_next_event(&g->tf));
    GPU_EVENT_AT(ne, now, icache_next_event(&g->icu[g->nicu - 1]));
    GPU_EVENT_AT(ne, now, memsys_next_event(g->env.mem, now));
    return ne;
}

HOT uint64_t raster_phase_next_event(const gpu *g) { return raster_units_next_event(g, true); }

/* The phases a loop iteration ticks (a bit set): with overlap, both. */
#define PHASE_GEOMETRY 1u
#define PHASE_RASTER   2u

HOT uint64_t phases_next_event(const gpu *g, unsigned phases)
{
    if (phases == PHASE_GEOMETRY) return geometry_phase_next_event(g);
    if (phases == PHASE_RASTER) return raster_phase_next_event(g);
    uint64_t a = geometry_phase_next_event(g);
    if (a <= g->env.now) return a;
    uint64_t b = raster_phase_next_event(g);
    return a < b ? a : b;
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
HOT uint64_t next_span(gpu *g, unsigned phases, uint64_t limit)
{
    if (!g->skip_idle) return 1;
    if (g->probe_wait) {
        g->probe_wait--;
        return 1;
    }
    uint64_t n = span(g, phases_next_event(g, phases), limit);
    if (n > 1)
        g->probe_gap = 0;
    else {
        g->probe_gap = g->probe_gap ? (g->probe_gap * 2 > PROBE_GAP_MAX ? PROBE_GAP_MAX : g->probe_gap * 2) : 1;
        g->probe_wait = g->probe_gap;
    }
    return n;
}

/* Monotonic count of geometry + tiling phase events that moved work forward. */
HOT uint64_t geometry_progress(const gpu *g)
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

/* IMR: the functional back end's "tile" is the pass's whole render target (the pixels
 * do not depend on the tile size, docs/timing-model.md "Functional model"). */
static void imr_tile_size(gpu *g, const sim_pass *ps)
{
    g->env.tile_w = ps->rp.width > 2 ? (ps->rp.width + 1u) & ~1u : 2;
    g->env.tile_h = ps->rp.height > 2 ? (ps->rp.height + 1u) & ~1u : 2;
}

/* The pass's counters (passes, draws, primitives), at its geometry phase's start. */
static void count_pass(gpu *g, const sim_frame *f, size_t pass)
{
    tbr_stat_inc(g->passes);
    tbr_stat_add(g->draws, f->passes[pass].ndraws);
    for (uint32_t k = 0; k < f->passes[pass].ndraws; k++)
        tbr_stat_add(g->prims, f->draws[f->passes[pass].first_draw + k].nprims);
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
    if (g->imr) imr_tile_size(g, &f->passes[pass]);
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
    if (pass == 0) tbr_stat_add(g->tex_compressed_lines, f->compressed_texture_lines);
    return 0;
}

static void pass_restore_planes(gpu *g, const sim_frame *f, size_t pass)
{
    /* Which uncleared planes the raster phase loads (tile.restore): with `used`, as a
   * TBR driver restores them (Mesa freedreno batch_draw_tracking): depth/stencil only if
   * a draw of the pass tests depth or stencil (GL writes neither without its test),
   * colors only if the pass draws at all. A plane nothing reads is not loaded (nor stored:
   * depth.store=auto stores only a depth/stencil plane the pass writes). Frames are
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
    /* with `used`, nor planes whose contents are undefined (invalidated and not written since:
     * sim_pass.color_undefined, docs/timing-model.md "Tile buffer loads") */
    const sim_pass *ps = &f->passes[pass];
    g->env.pass_undefined_color =
        g->restore_used && g->env.pass_loads_color ? ps->color_undefined & ~ps->color_cleared : 0;
    g->env.pass_undefined_zs = g->restore_used && g->env.pass_loads_zs && ps->zs_undefined && !ps->zs_cleared;
    if (g->env.pass_undefined_zs) g->env.pass_loads_zs = false;
}

/* ---- The two phases as separately tickable halves (one pass at a time below; both at
 * once with overlap further down): begin, tick the units for env.ncyc cycles, end. ---- */

static void geometry_begin(gpu *g)
{
    geometry_begin_pass(&g->geo);
    plb_begin_pass(&g->plb);
    g->geo.last_prim_cycle = g->env.now;
}

/* Consumers before producers. */
HOT void geometry_tick_units(gpu *g, bool tick_plb, bool tick_icache)
{
    tbr_techniques_geometry_tick(g->env.tech);
    if (tick_plb) plb_tick(&g->plb);
    geometry_tick(&g->geo);
    if (tick_icache) icache_tick(&g->icu[0]);
}

/* The geometry units have finished the pass (memory aside). */
HOT bool geometry_units_done(const gpu *g, bool check_icache)
{
    return plb_done(&g->plb) && tbr_techniques_geometry_idle(g->env.tech) && tbr_cache_idle(g->geo.vcache) &&
           (!check_icache || icache_idle(&g->icu[0]));
}

/* cycles.geometry / cycles.tiling of a phase that began at `start` */
static void geometry_end(gpu *g, uint64_t start)
{
    geometry_fold_stats(&g->geo);
    uint64_t geo_end = g->env.now;
    uint64_t geom = (g->geo.last_prim_cycle + 1 > start ? g->geo.last_prim_cycle + 1 : start) - start;
    if (geom > geo_end - start) geom = geo_end - start;
    tbr_stat_add(g->cyc_geom, geom);
    tbr_stat_add(g->cyc_tiling, geo_end - start - geom);
}

static int geometry_deadlock(gpu *g, const sim_frame *f, size_t pass, char *err, size_t errlen)
{
    geometry_fold_stats(&g->geo);
    snprintf(err, errlen, "frame %llu pass %zu: geometry phase made no progress (model deadlock at cycle %llu)",
             (unsigned long long)f->number, pass, (unsigned long long)g->env.now);
    return -1;
}

/* Geometry + tiling phase: until every primitive is binned and the Parameter Buffer is
 * written. -1 with err on a model deadlock. */
static int geometry_phase(gpu *g, const sim_frame *f, size_t pass, char *err, size_t errlen)
{
    uint64_t start = g->env.now;
    geometry_begin(g);
    /* Deadlock watchdog: the phase fails only if no unit moved work forward (a vertex
   * request, response, hand-off or shading, a primitive assembled or binned, a Parameter
   * Buffer line written, a CRC step) for WATCHDOG_CYCLES. It is not a budget on the
   * phase's length: a pass's geometry time grows with its vertex count, which the
   * frame's primitive and quad counts do not bound (a draw whose triangles are mostly
   * clipped or culled before setup still fetches and shades all of its vertices). */
    uint64_t idle_since = g->env.now;
    uint64_t progress = geometry_progress(g);
    while (!(geometry_units_done(g, false) && memsys_idle(g->env.mem) && icache_idle(&g->icu[0]))) {
        g->env.ncyc = next_span(g, PHASE_GEOMETRY, idle_since + WATCHDOG_CYCLES + 1);
        memsys_tick_n(g->env.mem, g->env.now, &g->env.ncyc); /* first: may shorten the span */
        if (g->pool) shader_pool_tick(g->pool);              /* before its clients: grants, issue */
        geometry_tick_units(g, true, true);
        if (g->env.ncyc > 1) g->skipped_cycles += g->env.ncyc;
        g->env.now += g->env.ncyc;
        uint64_t pr = geometry_progress(g);
        if (pr != progress) {
            progress = pr;
            idle_since = g->env.now;
        }
        if (g->env.now - idle_since > WATCHDOG_CYCLES) return geometry_deadlock(g, f, pass, err, errlen);
    }
    geometry_end(g, start);
    return 0;
}

/* The Raster Units' tile counts at the phase's start (tiles_pass in raster_end). */
typedef struct {
    uint32_t tiles0[16];
    uint64_t start, limit;
} raster_mark;

static void raster_begin(gpu *g, const sim_frame *f, raster_mark *m)
{
    uint32_t nt = g->env.tiles_x * g->env.tiles_y;
    memset(m->tiles0, 0, sizeof m->tiles0);
    for (uint32_t i = 0; i < g->nru && i < 16; i++) m->tiles0[i] = g->ru[i].tiles_done;
    tile_stats_pass_begin(g->env.tiles, nt);
    tf_begin_pass(&g->tf);
    for (uint32_t i = 0; i < g->nru; i++) {
        g->ru[i].tile_start_cycle = g->env.now;
        ru_begin_pass(&g->ru[i]);
    }
    m->start = g->env.now;
    m->limit = WATCHDOG_CYCLES + (uint64_t)f->nquads * 1024 + (uint64_t)f->nprims * 1024;
}

/* Consumers before producers. */
HOT void raster_tick_units(gpu *g, bool tick_icache)
{
    if (tick_icache) icache_tick(&g->icu[g->nicu - 1]);
    for (uint32_t i = 0; i < g->nru; i++) {
        if (!ru_idle(&g->ru[i])) tbr_stat_add(g->ru_active[i], g->env.ncyc);
        ru_tick(&g->ru[i]);
    }
    tf_tick(&g->tf);
}

/* Every tile is flushed (memory aside). */
HOT bool raster_units_done(const gpu *g, bool check_icache)
{
    bool done = tf_done(&g->tf) && (!check_icache || icache_idle(&g->icu[g->nicu - 1]));
    for (uint32_t i = 0; i < g->nru && done; i++) done = ru_idle(&g->ru[i]);
    return done;
}

static void raster_end(gpu *g, const raster_mark *m)
{
    for (uint32_t i = 0; i < g->nru; i++) ru_fold_stats(&g->ru[i]);
    uint32_t tiles_pass[16], nr = g->nru < 16 ? g->nru : 16;
    for (uint32_t i = 0; i < nr; i++) {
        tiles_pass[i] = g->ru[i].tiles_done - m->tiles0[i];
        tbr_stat_add(g->ru_tiles[i], tiles_pass[i]);
    }
    tbr_stat_add(g->cyc_raster, g->env.now - m->start); /* before pass_end: DFSL reads it */
    tbr_techniques_pass_end(g->env.tech, tiles_pass, nr);
}

/* ---- Immediate mode (pipeline.organization = imr; docs/organisations.md) ----
 * One loop for the whole pass: geometry and raster run at the same time, the primitives
 * flowing from Primitive Assembly through the dispatch to the Raster Unit in submission
 * order (ATTILA seeds/004 sec. 2); the pass's one "tile" is rendered functionally first. */
static uint64_t imr_next_event(const gpu *g)
{
    /* both phases' units but the Polygon List Builder and the Tile Fetcher (IMR has
     * neither), and the primitive dispatch between them */
    uint64_t now = g->env.now, ne = geometry_units_next_event(g, false);
    if (ne <= now) return ne;
    GPU_EVENT_AT(ne, now, raster_units_next_event(g, false));
    GPU_EVENT_AT(ne, now, prim_dispatch_next_event(&g->pd));
    return ne;
}

static bool imr_pass_done(const gpu *g)
{
    return prim_dispatch_done(&g->pd) && ru_idle(&g->ru[0]) && memsys_idle(g->env.mem) &&
           tbr_cache_idle(g->geo.vcache) && icache_idle(&g->icu[0]) && icache_idle(&g->icu[g->nicu - 1]);
}

static void imr_tick(gpu *g)
{
    memsys_tick_n(g->env.mem, g->env.now, &g->env.ncyc); /* first: may shorten the span */
    if (g->pool) shader_pool_tick(g->pool);              /* before its clients: grants, issue */
    icache_tick(&g->icu[g->nicu - 1]);
    if (!ru_idle(&g->ru[0])) tbr_stat_add(g->ru_active[0], g->env.ncyc);
    ru_tick(&g->ru[0]);
    prim_dispatch_tick(&g->pd);
    geometry_tick(&g->geo);
    if (g->nicu > 1) icache_tick(&g->icu[0]);
}

static int imr_pass(gpu *g, const sim_frame *f, size_t pass, char *err, size_t errlen)
{
    sim_tile_result tr;
    imr_ru_pass_start(&g->ru[0]); /* before the pass is rendered */
    tbr_techniques_render_tile(g->env.tech, g->env.fn, 0, 0, NULL, 0, &tr);
    tbr_stat_add(g->mask_mismatch, tr.mask_mismatch);
    tbr_techniques_pass_render_end(g->env.tech);
    uint64_t start = g->env.now;
    uint32_t tiles0 = g->ru[0].tiles_done;
    geometry_begin_pass(&g->geo);
    g->geo.last_prim_cycle = start;
    prim_dispatch_begin_pass(&g->pd);
    tile_stats_pass_begin(g->env.tiles, 1);
    g->ru[0].tile_start_cycle = start;
    ru_begin_pass(&g->ru[0]);
    uint64_t idle_since = start, progress = 0;
    while (!imr_pass_done(g)) {
        g->env.ncyc = g->skip_idle ? span(g, imr_next_event(g), idle_since + WATCHDOG_CYCLES + 1) : 1;
        imr_tick(g);
        if (g->env.ncyc > 1) g->skipped_cycles += g->env.ncyc;
        g->env.now += g->env.ncyc;
        const raster_unit *r = &g->ru[0];
        uint64_t pr = geometry_progress(g) + g->pd.sent + tbr_stat_value(g->raster.q_raster) +
                      tbr_stat_value(g->raster.q_ztested) + tbr_stat_value(g->raster.q_shaded) + r->tiles_done +
                      tbr_stat_value(r->crop->accesses) + tbr_stat_value(r->zrop->writebacks) +
                      tbr_stat_value(r->crop->writebacks) + tbr_stat_value(r->zrop->resolves) +
                      tbr_stat_value(r->crop->resolves) + tbr_stat_value(r->zrop->clear_writes) +
                      tbr_stat_value(r->crop->clear_writes);
        if (pr != progress) {
            progress = pr;
            idle_since = g->env.now;
        }
        if (g->env.now - idle_since > WATCHDOG_CYCLES) {
            geometry_fold_stats(&g->geo);
            ru_fold_stats(&g->ru[0]);
            snprintf(err, errlen,
                     "frame %llu pass %zu: immediate-mode pass made no progress (model deadlock at cycle %llu)",
                     (unsigned long long)f->number, pass, (unsigned long long)g->env.now);
            return -1;
        }
    }
    geometry_fold_stats(&g->geo);
    ru_fold_stats(&g->ru[0]);
    uint32_t tiles_pass = g->ru[0].tiles_done - tiles0;
    tbr_stat_add(g->ru_tiles[0], tiles_pass);
    tbr_techniques_pass_end(g->env.tech, &tiles_pass, 1);
    uint64_t geom = g->geo.last_prim_cycle + 1 > start ? g->geo.last_prim_cycle + 1 - start : 0;
    tbr_stat_add(g->cyc_geom, geom < g->env.now - start ? geom : g->env.now - start);
    tbr_stat_add(g->cyc_raster, g->env.now - start); /* (overlaps the geometry) */
    return 0;
}

static int raster_deadlock(gpu *g, const sim_frame *f, size_t pass, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < g->nru; i++) ru_fold_stats(&g->ru[i]);
    snprintf(err, errlen, "frame %llu pass %zu: raster phase made no progress (model deadlock at cycle %llu)",
             (unsigned long long)f->number, pass, (unsigned long long)g->env.now);
    return -1;
}

/* Raster phase: until every tile is flushed. -1 with err on a model deadlock. */
static int raster_phase(gpu *g, const sim_frame *f, size_t pass, char *err, size_t errlen)
{
    raster_mark m;
    raster_begin(g, f, &m);
    for (;;) {
        if (raster_units_done(g, true) && memsys_idle(g->env.mem)) break;
        g->env.ncyc = next_span(g, PHASE_RASTER, m.start + m.limit + 1);
        memsys_tick_n(g->env.mem, g->env.now, &g->env.ncyc); /* first: may shorten the span */
        if (g->pool) shader_pool_tick(g->pool);              /* before its clients: grants, issue */
        raster_tick_units(g, true);
        if (g->env.ncyc > 1) g->skipped_cycles += g->env.ncyc;
        g->env.now += g->env.ncyc;
        if (g->env.now - m.start > m.limit) return raster_deadlock(g, f, pass, err, errlen);
    }
    raster_end(g, &m);
    return 0;
}

/* The pass's raster phase is over: its per-tile data, the functional pass. */
static void pass_end(gpu *g)
{
    tile_stats_pass_end(g->env.tiles, pass_default_res(g), g->env.tiles_x, g->env.tiles_y, g->tech.skip,
                        g->tech.flush_elim);
    sim_func_end_pass(g->env.fn);
}

int gpu_run_pass(gpu *g, const sim_frame *f, size_t pass, char *err, size_t errlen)
{
    if (pass_begin(g, f, pass, err, errlen)) return -1;
    count_pass(g, f, pass);
    pass_restore_planes(g, f, pass);
    uint64_t start = g->env.now;
    if (g->imr) {
        if (imr_pass(g, f, pass, err, errlen)) return -1;
    } else {
        if (geometry_phase(g, f, pass, err, errlen)) return -1;
        /* Functional rendering of the pass, tile by tile, after binning (RE signs each tile's
         * Polygon List Builder list). */
        render_pass_tiles(g, &g->plb.pb);
        if (raster_phase(g, f, pass, err, errlen)) return -1;
    }
    tbr_stat_add(g->cyc_total, g->env.now - start);
    pass_end(g);
    return 0;
}

/* ---- Geometry/raster overlap across a frame's render passes and across frames
 * (docs/timing-model.md "Overlapping render passes"; RE sec. II: the Geometry and Raster
 * Pipelines are decoupled, as a tiler's vertex/tiler and fragment jobs). The geometry
 * phase of pass p + 1 runs while pass p is rastered, into another Parameter Buffer; raster
 * phases stay in pass order, each after the previous one's last tile flush, so a pass that
 * samples or loads what an earlier pass wrote always finds it flushed. The functional
 * rendering of a pass happens at its raster phase's start: in pass order, as without
 * overlap. With overlap.across_frames the passes of the next frame follow those of the
 * current one in the same queue: the loop's state outlives gpu_run_frame, which returns
 * when the current frame's last tile is flushed (its picture is then complete). ---- */

#define PB_REGION 0x20000000ull /* each Parameter Buffer slot's share of the list and attribute regions */

/* The passes in flight are numbered across two frames: 0 .. n[0]-1 those of f[0] (the
 * frame gpu_run_frame completes), then those of f[1] (the next frame, once asked for).
 * Raster phases only ever run passes of f[0]: f[1]'s first begins after f[0] completed. */
struct overlap_run {
    const sim_frame *f[2];
    size_t n[2];             /* their passes (n[1] = 0 while f[1] is NULL) */
    uint64_t frame_start[2]; /* each frame's first command: its first geometry phase's start */
    bool next_asked;         /* f[0]'s next frame was asked for */
    const sim_frame *prev;   /* the frame before f[0] when f[0] was loaded ahead (valid until f[0]'s
                              * next frame is loaded, after its last raster phase began), else NULL */
    size_t ngeo, nras;       /* passes whose geometry / raster phase has ended */
    bool geo_on, ras_on;     /* pass ngeo's geometry / pass nras's raster phase runs */
    uint64_t geo_start, idle_since, progress;
    uint64_t last_end; /* the previous frame's last tile flush (cycles.total counts from here) */
    raster_mark rm;
};

static overlap_run *overlap_run_new(void) { return tbr_xcalloc(1, sizeof(overlap_run)); }

/* gpu_reset (gpu_reset.c): the overlapped loop's state, as overlap_run_new left it. */
void gpu_overlap_reset(gpu *g)
{
    if (g->ov) memset(g->ov, 0, sizeof *g->ov);
    g->frame_first_cycle = 0;
}

/* The frame and frame-local pass of in-flight pass i. */
static const sim_frame *ov_pass(const overlap_run *r, size_t i, size_t *pass)
{
    if (i < r->n[0]) {
        *pass = i;
        return r->f[0];
    }
    *pass = i - r->n[0];
    return r->f[1];
}

/* Pass q writes resource res (as a color or depth/stencil buffer). */
static bool pass_writes(const sim_pass *q, uint32_t res)
{
    for (unsigned i = 0; i < q->rp.nr_cbufs && i < TBR_MAX_COLOR_BUFS; i++)
        if (q->rp.cbufs[i].valid && q->rp.cbufs[i].resource_id == res) return true;
    return q->rp.zsbuf.valid && q->rp.zsbuf.resource_id == res;
}

/* Pass p of f reads what pass q (of f or an earlier frame) writes: a texture its draws
 * sample (vertex_only: draws whose vertex shaders sample textures; all their textures
 * count, as the trace does not say which units the vertex shader uses) or, unless
 * vertex_only, a render target it loads (not cleared at its start). The window's back
 * buffer of the next frame is loaded only if that frame's first pass does not clear it. */
static bool pass_reads_from(const sim_frame *f, size_t p, const sim_pass *pq, bool vertex_only)
{
    const sim_pass *pp = &f->passes[p];
    for (uint32_t k = 0; k < pp->ndraws; k++) {
        const tbr_rec_draw *d = &f->draws[pp->first_draw + k].rec;
        if (vertex_only && !d->num_vs_textures) continue;
        for (uint32_t t = 0; t < d->num_textures && t < TBR_REC_MAX_TEXTURES; t++)
            if (pass_writes(pq, d->textures[t].resource_id)) return true;
    }
    if (vertex_only) return false;
    for (unsigned i = 0; i < pp->rp.nr_cbufs && i < TBR_MAX_COLOR_BUFS; i++)
        if (pp->rp.cbufs[i].valid && !(pp->color_cleared & (1u << i)) && pass_writes(pq, pp->rp.cbufs[i].resource_id))
            return true;
    return pp->rp.zsbuf.valid && !pp->zs_cleared && pass_writes(pq, pp->rp.zsbuf.resource_id);
}

/* In-flight pass i reads what in-flight pass q writes. */
static bool ov_reads_from(const overlap_run *r, size_t i, size_t q, bool vertex_only)
{
    size_t p, pq;
    const sim_frame *f = ov_pass(r, i, &p), *fq = ov_pass(r, q, &pq);
    return pass_reads_from(f, p, &fq->passes[pq], vertex_only);
}

/* Parameter Buffers held by the passes binned but not yet rastered to the end. */
static uint32_t pb_held_by_binned(const gpu *g, const overlap_run *r)
{
    uint32_t n = 0;
    for (size_t q = r->nras; q < r->ngeo; q++) n += g->pass_pb[q].held;
    return n;
}

/* Why the next pass's geometry cannot begin now: 0 it can, 1 no free Parameter Buffer,
 * 2 its vertex shaders sample what a pass not yet flushed writes. */
static int geometry_blocked(const gpu *g, const overlap_run *r)
{
    if (pb_held_by_binned(g, r) >= g->pb_buffers) return 1;
    for (size_t q = r->nras; q < r->ngeo; q++)
        if (ov_reads_from(r, r->ngeo, q, true)) return 2;
    return 0;
}

/* The lowest buffer slot no binned pass uses (< pb_buffers: fewer passes are binned);
 * the same buffer as without overlap when the previous pass is already flushed. */
static uint32_t free_slot(const gpu *g, const overlap_run *r)
{
    for (uint32_t s = 0;; s++) {
        bool used = false;
        for (size_t q = r->nras; q < r->ngeo && !used; q++) used = g->pass_pb[q].slot == s;
        if (!used) return s;
    }
}

/* Pass ngeo's geometry begins: the geometry side's view of the pass (its tile grid from
 * the render pass's size, as the functional back end computes it), its buffer. */
static void ov_geometry_begin(gpu *g, overlap_run *r)
{
    size_t p;
    const sim_frame *f = ov_pass(r, r->ngeo, &p);
    const sim_pass *ps = &f->passes[p];
    g->genv = g->env;
    g->genv.frame = f;
    g->genv.pass = p;
    unsigned w = ps->rp.width, h = ps->rp.height, tw = g->env.tile_w, th = g->env.tile_h;
    g->genv.tiles_x = w && h ? (w + tw - 1) / tw : 0;
    g->genv.tiles_y = w && h ? (h + th - 1) / th : 0;
    uint32_t slot = free_slot(g, r);
    g->pass_pb[r->ngeo].slot = slot;
    g->plb.pb.list_base = ADDR_PB_LIST_BASE + slot * PB_REGION;
    g->plb.pb.attr_base = ADDR_PB_ATTR_BASE + slot * PB_REGION;
    count_pass(g, f, p);
    if (p == 0) r->frame_start[r->ngeo < r->n[0] ? 0 : 1] = g->env.now;
    geometry_begin(g);
    g->pass_pb[r->ngeo].held = 1;
    r->geo_on = true;
    r->geo_start = r->idle_since = g->env.now;
    r->progress = geometry_progress(g);
}

/* Pass ngeo is binned: its Parameter Buffer waits for the raster phase. */
static void ov_geometry_end(gpu *g, overlap_run *r)
{
    geometry_end(g, r->geo_start);
    param_buffer *slot = &g->pb_store[g->pass_pb[r->ngeo].slot], t = *slot;
    *slot = g->plb.pb;
    g->plb.pb = t;
    r->ngeo++;
    r->geo_on = false;
}

/* Room for n in-flight passes' buffer records. */
static void pass_pb_reserve(gpu *g, size_t n)
{
    if (n <= g->pass_pb_cap) return;
    g->pass_pb = tbr_xrealloc(g->pass_pb, n * sizeof *g->pass_pb);
    g->pass_pb_cap = n;
}

/* overlap.across_frames: f[0]'s last pass begins its raster phase, its functional
 * rendering done, so the driver may load the next frame now (frames are loaded, rendered
 * and checked in order); only after a swap (FRAME_END), as a frame ended otherwise may
 * be read back. */
static void ask_next_frame(gpu *g, overlap_run *r)
{
    if (r->next_asked || r->nras + 1 != r->n[0]) return;
    r->next_asked = true;
    if (!g->across_frames || !g->next_frame || !r->f[0]->has_end) return;
    r->f[1] = g->next_frame(g->next_frame_ctx);
    r->n[1] = r->f[1] ? r->f[1]->npasses : 0;
    pass_pb_reserve(g, r->n[0] + r->n[1]);
}

/* Pass nras's raster phase begins (its geometry has ended, the previous pass's raster
 * too): the functional pass, its tiles rendered, the Tile Fetcher on its buffer. */
static int ov_raster_begin(gpu *g, overlap_run *r, char *err, size_t errlen)
{
    size_t p = r->nras;
    const sim_frame *f = r->f[0];
    const param_buffer *pb = &g->pb_store[g->pass_pb[p].slot];
    if (pass_begin(g, f, p, err, errlen)) return -1;
    if (g->env.tiles_x * g->env.tiles_y != pb->ntiles) {
        snprintf(err, errlen, "frame %llu pass %zu: %ux%u tiles, but %u were binned (model error)",
                 (unsigned long long)f->number, p, g->env.tiles_x, g->env.tiles_y, pb->ntiles);
        return -1;
    }
    pass_restore_planes(g, f, p);
    bool dependent = false;
    for (size_t q = 0; q < p; q++)
        if (pass_reads_from(f, p, &f->passes[q], false)) {
            dependent = true;
            if (q >= r->nras) tbr_stat_inc(g->dep_violations); /* the writer is not flushed */
        }
    if (dependent) tbr_stat_inc(g->dep_passes);
    /* a pass reading the previous frame (loaded ahead): that frame's last flush is behind */
    bool reads_prev = false;
    for (size_t q = 0; r->prev && q < r->prev->npasses && !reads_prev; q++)
        reads_prev = pass_reads_from(f, p, &r->prev->passes[q], false);
    if (reads_prev) {
        tbr_stat_inc(g->frame_dep_passes);
        if (g->env.now < r->last_end) tbr_stat_inc(g->dep_violations);
    }
    g->tf.pb = pb;
    render_pass_tiles(g, pb);
    raster_begin(g, f, &r->rm);
    r->ras_on = true;
    ask_next_frame(g, r);
    return 0;
}

static void ov_raster_end(gpu *g, overlap_run *r)
{
    raster_end(g, &r->rm);
    pass_end(g);
    g->pass_pb[r->nras].held = 0;
    r->nras++;
    r->ras_on = false;
}

/* With a buffer capacity: the pass being binned takes another buffer when it has filled
 * its own; true if none is free while an earlier pass holds one (the Polygon List
 * Builder waits). A pass alone may exceed them all: it is not split (incremental
 * rendering is not modeled). */
static bool pb_full(gpu *g, const overlap_run *r)
{
    if (!g->pb_buffer_bytes || g->plb.pass_bytes < g->pass_pb[r->ngeo].held * g->pb_buffer_bytes) return false;
    uint32_t others = pb_held_by_binned(g, r);
    if (others && others + g->pass_pb[r->ngeo].held >= g->pb_buffers) return true;
    g->pass_pb[r->ngeo].held++;
    return false;
}

/* The phase ends at cycle now (before the begins): a phase ends when its units have; with
 * the other phase running, the memory system need not be idle, only the Parameter Buffer
 * writes handed to it. */
static void ov_ends(gpu *g, overlap_run *r)
{
    bool mem_idle = memsys_idle(g->env.mem);
    if (r->geo_on && geometry_units_done(g, g->nicu == 2 || !r->ras_on) &&
        (r->ras_on ? tbr_memq_empty(memsys_req(g->env.mem, g->plb.port)) : mem_idle))
        ov_geometry_end(g, r);
    if (r->ras_on && raster_units_done(g, g->nicu == 2 || !r->geo_on) && (r->geo_on || mem_idle)) ov_raster_end(g, r);
}

/* The phase begins at cycle now. -1 with err. */
static int ov_begins(gpu *g, overlap_run *r, int *geo_wait, char *err, size_t errlen)
{
    if (!r->ras_on && r->nras < r->ngeo && ov_raster_begin(g, r, err, errlen)) return -1;
    *geo_wait = 0;
    if (!r->geo_on && r->ngeo < r->n[0] + r->n[1]) {
        *geo_wait = geometry_blocked(g, r);
        if (!*geo_wait) ov_geometry_begin(g, r);
    }
    return 0;
}

/* One loop iteration's cycles: the running phases' units. */
static void ov_tick(gpu *g, const overlap_run *r, bool plb_waits)
{
    memsys_tick_n(g->env.mem, g->env.now, &g->env.ncyc); /* first: may shorten the span */
    g->genv.now = g->env.now;
    g->genv.ncyc = g->env.ncyc;
    if (g->pool) shader_pool_tick(g->pool); /* once per cycle, before both phases' clients */
    if (r->ras_on) raster_tick_units(g, true);
    if (r->geo_on) geometry_tick_units(g, !plb_waits, g->nicu == 2 || !r->ras_on);
}

static void ov_account(gpu *g, const overlap_run *r, bool plb_waits, int geo_wait)
{
    uint64_t n = g->env.ncyc;
    if (r->geo_on && r->ras_on && !plb_waits) {
        tbr_stat_add(g->cyc_both, n);
        if (r->ngeo >= r->n[0]) tbr_stat_add(g->cyc_both_frames, n); /* the next frame's geometry */
    }
    if (plb_waits || geo_wait == 1) tbr_stat_add(g->cyc_pb_stall, n);
    if (geo_wait == 2) tbr_stat_add(g->cyc_dep_wait, n);
}

/* gpu_run_frame is given frame f: the frame loaded ahead (its passes move to the front of
 * the queue), else a new one on an idle GPU. -1 with err when f is neither. */
static int ov_enter(gpu *g, overlap_run *r, const sim_frame *f, char *err, size_t errlen)
{
    if (r->f[1]) {
        if (r->f[1] != f) {
            snprintf(err, errlen, "frame %llu simulated while frame %llu was loaded ahead (driver error)",
                     (unsigned long long)f->number, (unsigned long long)r->f[1]->number);
            return -1;
        }
        size_t n0 = r->n[0];
        if (r->n[1]) memmove(g->pass_pb, g->pass_pb + n0, r->n[1] * sizeof *g->pass_pb);
        r->ngeo -= n0;
        r->nras -= n0;
        r->prev = r->f[0];
        r->f[0] = f;
        r->n[0] = r->n[1];
        r->frame_start[0] = r->ngeo || r->geo_on ? r->frame_start[1] : g->env.now;
    } else {
        *r = (overlap_run){.f = {f, NULL}, .n = {f->npasses, 0}, .last_end = r->last_end};
        r->frame_start[0] = g->env.now;
        pass_pb_reserve(g, f->npasses);
    }
    r->f[1] = NULL;
    r->n[1] = 0;
    r->next_asked = false;
    return 0;
}

static int run_overlapped(gpu *g, const sim_frame *f, char *err, size_t errlen)
{
    overlap_run *r = g->ov;
    if (ov_enter(g, r, f, err, errlen)) return -1;
    while (r->nras < r->n[0]) {
        int geo_wait;
        if (ov_begins(g, r, &geo_wait, err, errlen)) return -1;
        if (!r->geo_on && !r->ras_on) {
            snprintf(err, errlen, "frame %llu: pass %zu waits for nothing (model error)", (unsigned long long)f->number,
                     r->nras);
            return -1;
        }
        bool plb_waits = r->geo_on && pb_full(g, r);
        uint64_t limit = UINT64_MAX;
        if (r->geo_on) limit = r->idle_since + WATCHDOG_CYCLES + 1;
        if (r->ras_on && r->rm.start + r->rm.limit + 1 < limit) limit = r->rm.start + r->rm.limit + 1;
        g->env.ncyc = next_span(g, (r->geo_on ? PHASE_GEOMETRY : 0) | (r->ras_on ? PHASE_RASTER : 0), limit);
        ov_tick(g, r, plb_waits);
        ov_account(g, r, plb_waits, geo_wait);
        if (g->env.ncyc > 1) g->skipped_cycles += g->env.ncyc;
        g->env.now += g->env.ncyc;
        if (r->geo_on) {
            uint64_t pr = geometry_progress(g);
            if (pr != r->progress || plb_waits) { /* waiting for the raster phase is not a deadlock */
                r->progress = pr;
                r->idle_since = g->env.now;
            }
            if (g->env.now - r->idle_since > WATCHDOG_CYCLES) {
                size_t gp;
                const sim_frame *gf = ov_pass(r, r->ngeo, &gp);
                return geometry_deadlock(g, gf, gp, err, errlen);
            }
        }
        if (r->ras_on && g->env.now - r->rm.start > r->rm.limit) return raster_deadlock(g, f, r->nras, err, errlen);
        ov_ends(g, r);
    }
    /* the frame's cycles run from its first command; the total counts each cycle once
     * (from the previous frame's end when the frames overlapped; a clock set back by a
     * reset between runs is not an overlap) */
    g->frame_first_cycle = r->frame_start[0];
    bool overlapped = r->last_end > r->frame_start[0] && r->last_end <= g->env.now;
    tbr_stat_add(g->cyc_total, g->env.now - (overlapped ? r->last_end : r->frame_start[0]));
    r->last_end = g->env.now;
    return 0;
}

void gpu_set_frame_source(gpu *g, gpu_next_frame_fn next, void *ctx)
{
    g->next_frame = next;
    g->next_frame_ctx = ctx;
}

int gpu_run_frame(gpu *g, const sim_frame *f, char *err, size_t errlen)
{
    if (g->overlap) return run_overlapped(g, f, err, errlen);
    g->frame_first_cycle = g->env.now;
    for (size_t p = 0; p < f->npasses; p++)
        if (gpu_run_pass(g, f, p, err, errlen)) return -1;
    return 0;
}
