/* tbr-sim GPU top level (see gpu.h): builds the units from the configuration and runs
 * one render pass at a time: the geometry + tiling phase (Command Processor to Polygon
 * List Builder) until every primitive is binned and the Parameter Buffer written, then
 * the raster phase (Tile Fetcher and Raster Units) until every tile is flushed (thesis
 * §2.2: TBR renders a pass's tiles only after all of its geometry is binned). All
 * units tick every cycle, consumers before producers so a token moves at most one
 * stage per cycle. */
#include "gpu.h"

#include <stdlib.h>
#include <string.h>

#define WATCHDOG_CYCLES 2000000u /* no unit progressed for this long = model deadlock */

gpu *gpu_new(const tbr_config *cfg, tbr_stats *st, char *err, size_t errlen)
{
    gpu *g = calloc(1, sizeof *g);
    if (!g) abort();
    g->cfg = cfg;
    g->st = st;
    g->ncyc = 1;
    g->skip_idle = true;
    g->mem = memsys_new(cfg, st, err, errlen);
    if (!g->mem) {
        free(g);
        return NULL;
    }
    g->tile_w = (unsigned)tbr_cfg_uint(cfg, "tile.width");
    g->tile_h = (unsigned)tbr_cfg_uint(cfg, "tile.height");
    g->cp_cycles = (uint32_t)tbr_cfg_uint(cfg, "cp.cycles_per_draw");
    g->bytes_per_attr = (uint32_t)tbr_cfg_uint(cfg, "vertex_fetch.bytes_per_attr");
    g->plb_tpc = (uint32_t)tbr_cfg_uint(cfg, "plb.tiles_per_cycle");
    g->attrs_pc = (uint32_t)tbr_cfg_uint(cfg, "raster.attrs_per_cycle");
    g->raster_qpc =
        g->attrs_pc / 4 ? g->attrs_pc / 4 : 1; /* 4 attributes per quad: 16 -> 4 quads/cycle (thesis §4.1) */
    g->raster_setup = (uint32_t)tbr_cfg_uint(cfg, "raster.setup_cycles");
    g->ez_qpc = (uint32_t)tbr_cfg_uint(cfg, "early_z.quads_per_cycle");
    g->blend_qpc = (uint32_t)tbr_cfg_uint(cfg, "blend.quads_per_cycle");
    g->zlat = (uint32_t)tbr_cfg_uint(cfg, "depth_buffer.latency");
    g->clat = (uint32_t)tbr_cfg_uint(cfg, "color_buffer.latency");
    g->lat_alu = (uint32_t)tbr_cfg_uint(cfg, "shader.lat_alu");
    g->lat_cls[SIM_CL_ALU] = g->lat_alu;
    g->lat_cls[SIM_CL_SFU] = (uint32_t)tbr_cfg_uint(cfg, "shader.lat_sfu");
    g->lat_cls[SIM_CL_TEX] = (uint32_t)tbr_cfg_uint(cfg, "shader.lat_tex");
    g->lat_cls[SIM_CL_CTRL] = (uint32_t)tbr_cfg_uint(cfg, "shader.lat_ctrl");
    g->issue_width = (uint32_t)tbr_cfg_uint(cfg, "shader.issue_width");
    g->fp_threads = (uint32_t)tbr_cfg_uint(cfg, "fragment.threads_per_processor");
    g->vp_threads = (uint32_t)tbr_cfg_uint(cfg, "vertex.threads_per_processor");
    g->tf_pipelined = tbr_cfg_bool(cfg, "tile.fetcher_pipelined");
    g->order_kind = tbr_cfg_enum(cfg, "tile.order");
    sim_func_init(&g->fn, ADDR_SURFACE_BASE);

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
    g->q_raster = tbr_stats_counter(st, "quads.rasterized", "quads emitted by the rasterizers");
    g->q_ztested = tbr_stats_counter(st, "quads.early_z_tested", "quads tested by Early-Z");
    g->q_zkilled = tbr_stats_counter(st, "quads.early_z_killed", "quads removed by Early-Z");
    g->q_late_z = tbr_stats_counter(st, "quads.late_z", "quads depth-tested after shading (no early Z)");
    g->q_shaded = tbr_stats_counter(st, "quads.shaded", "quads dispatched to fragment processors");
    g->q_blended = tbr_stats_counter(st, "quads.blended", "quads written by the Blending unit");
    g->frag_blended = tbr_stats_counter(st, "fragments.blended", "fragments written by the Blending unit");
    g->tiles = tbr_stats_counter(st, "tiles.rendered", "tiles rendered (all passes)");
    g->tile_cycles =
        tbr_stats_histogram(st, "tiles.cycles", "cycles between consecutive tile completions of a Raster Unit", 64, 64);
    g->mask_mismatch = tbr_stats_counter(st, "func.mask_mismatch_quads",
                                         "quads whose recomputed depth/stencil/blend mask differs from the trace");
    g->tile_loads =
        tbr_stats_counter(st, "tiles.buffer_load_lines", "tile buffer lines loaded from memory (pass without clear)");
    g->tile_flush_lines =
        tbr_stats_counter(st, "tiles.flush_lines", "color buffer lines written to memory at tile end");

    /* Rendering / Transaction Elimination (RE paper sec. III, IV-C; docs/techniques.md) */
    g->restore_used = tbr_cfg_enum(cfg, "tile.restore") == 0;
    g->re_enabled = tbr_cfg_bool(cfg, "re.enabled");
    g->te_enabled = tbr_cfg_bool(cfg, "te.enabled");
    g->re_refresh = (uint32_t)tbr_cfg_uint(cfg, "re.refresh_period");
    g->re_compare_cycles = (uint32_t)tbr_cfg_uint(cfg, "re.compare_cycles");
    g->re_sb.dbl = tbr_cfg_enum(cfg, "re.buffering") == 1;
    g->te_sb.dbl = tbr_cfg_enum(cfg, "te.buffering") == 1;
    su_init(&g->su, (uint32_t)tbr_cfg_uint(cfg, "re.crc_cycles_per_subblock"),
            tbr_cfg_enum(cfg, "re.accumulate_unit") == 0,
            (uint32_t)tbr_cfg_uint(cfg, "re.accumulate_cycles_per_subblock"),
            (uint32_t)tbr_cfg_uint(cfg, "re.combine_cycles"), (uint32_t)tbr_cfg_uint(cfg, "re.ot_queue_entries"), st);
    g->re_fr_on = tbr_stats_counter(st, "re.frames_enabled", "frames in which RE could skip tiles");
    g->re_fr_upload =
        tbr_stats_counter(st, "re.frames_disabled_upload",
                          "frames with RE disabled: UPLOAD to a texture (non-buffer resource, sec. III-E)");
    g->re_fr_shader = tbr_stats_counter(st, "re.frames_disabled_shader",
                                        "frames with RE disabled: SHADER_CREATE of an application shader (sec. III-E)");
    g->re_fr_bufup = tbr_stats_counter(
        st, "re.frames_buffer_uploads_only",
        "frames whose uploads all went to buffers (RE stays enabled: PRIM attributes and DRAW constants are signed)");
    g->re_fr_internal =
        tbr_stats_counter(st, "re.frames_internal_shader_creates",
                          "frames with SHADER_CREATEs of Mesa-internal shaders only (RE stays enabled)");
    g->re_fr_zsclear = tbr_stats_counter(st, "re.frames_zs_clear_writes",
                                         "frames with a depth-only/stencil-only clear written to memory (UPLOAD "
                                         "flagged CLEAR_WRITE: part of the clear, RE stays enabled)");
    g->re_fr_multi = tbr_stats_counter(st, "re.frames_disabled_multipass",
                                       "frames with RE disabled: more than one render pass (sec. III-E)");
    g->re_fr_refresh =
        tbr_stats_counter(st, "re.frames_disabled_refresh", "frames with RE disabled for the periodic refresh");
    g->re_fr_noref = tbr_stats_counter(st, "re.frames_no_reference",
                                       "RE-enabled frames without a valid reference frame in the Signature Buffer");
    g->re_skipped =
        tbr_stats_counter(st, "re.tiles_skipped", "tiles whose raster pipeline was skipped (equal signatures)");
    g->re_rendered =
        tbr_stats_counter(st, "re.tiles_rendered", "tiles rendered in passes where RE computed signatures");
    g->re_equal_in =
        tbr_stats_counter(st, "re.tiles_equal_inputs", "tiles whose signature equals the reference frame's");
    g->re_fn = tbr_stats_counter(st, "re.tiles_equal_colors_diff_inputs",
                                 "tiles with equal colors but different signatures (false negatives, RE Fig. 15a)");
    g->re_fp =
        tbr_stats_counter(st, "re.false_positives", "tiles with equal signatures but different colors (must be 0)");
    g->re_unsignable = tbr_stats_counter(st, "re.tiles_unsignable",
                                         "tiles whose colors depend on more than the signed inputs (never skipped)");
    g->te_flushes = tbr_stats_counter(st, "te.flushes", "color buffer flushes checked by Transaction Elimination");
    g->te_elim_n =
        tbr_stats_counter(st, "te.flushes_eliminated", "flushes dropped: color signature equals the reference frame's");
    g->te_bytes = tbr_stats_counter(st, "te.bytes_saved", "frame-buffer write bytes saved by Transaction Elimination");
    g->te_sb_n = tbr_stats_counter(st, "te.crc_subblocks", "64-bit subblocks signed by the TE Compute CRC unit");
    g->te_cmp = tbr_stats_counter(st, "te.sigbuf_accesses", "TE Signature Buffer reads + writes");
    g->te_fp = tbr_stats_counter(st, "te.false_positives", "eliminated flushes whose colors differed (must be 0)");
    g->ru_policy = tbr_cfg_enum(cfg, "tile.ru_assignment");
    g->ptr_imbalance =
        tbr_stats_counter(st, "ptr.tile_imbalance", "per pass: tiles of the busiest minus the least busy Raster Unit");

    texture_stats_init(g);
    /* instruction caches: inst_cache.count = 1 -> one shared by vertex and fragment
   * processors, >= 2 -> one each (thesis Table 4.1: x2) */
    g->icache_on = true;
    g->nicu = tbr_cfg_uint(cfg, "inst_cache.count") >= 2 ? 2 : 1;
    for (uint32_t i = 0; i < g->nicu; i++) icache_init(g, &g->icu[i], i);
    geometry_init(g);
    plb_init(g);
    tf_init(g);
    g->nru = (uint32_t)tbr_cfg_uint(cfg, "tile.raster_units");
    g->ru = calloc(g->nru, sizeof *g->ru);
    if (!g->ru) abort();
    for (uint32_t i = 0; i < g->nru; i++) ru_init(g, &g->ru[i], i);
    g->ru_assigned = calloc(g->nru, sizeof *g->ru_assigned);
    g->ru_tiles = calloc(g->nru, sizeof *g->ru_tiles);
    g->ru_active = calloc(g->nru, sizeof *g->ru_active);
    if (!g->ru_assigned || !g->ru_tiles || !g->ru_active) abort();
    for (uint32_t i = 0; i < g->nru; i++) {
        g->ru_tiles[i] = tbr_stats_counterf(st, "tiles rendered by this Raster Unit", "ru%u.tiles", i);
        g->ru_active[i] = tbr_stats_counterf(st, "cycles with a tile in this Raster Unit", "ru%u.active_cycles", i);
    }
    memsys_register_stats(g->mem, st);
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
    free(g->ru_assigned);
    free(g->ru_tiles);
    free(g->ru_active);
    su_free(&g->su);
    sigbuf_free(&g->re_sb);
    sigbuf_free(&g->te_sb);
    free(g->re_skip);
    free(g->te_elim);
    free(g->pt_begin);
    free(g->pt_cycles);
    free(g->pt_frags);
    free(g->pt_ru);
    free(g->ft_cycles);
    free(g->ft_frags);
    free(g->ft_ru);
    free(g->ft_re);
    free(g->ft_te);
    tile_snap_free(&g->snap);
    free(g->scratch);
    tf_free(g);
    plb_free(g);
    geometry_free(g);
    for (uint32_t i = 0; i < g->nicu; i++) icache_free(&g->icu[i]);
    memsys_free(g->mem);
    tbr_energy_free(g->en);
    sim_func_free(&g->fn);
    free(g);
}

/* Per frame: rotate the Signature Buffers and decide whether RE may skip tiles this
 * frame (RE paper sec. III-E: not after texture uploads or application shader
 * creations, not with several render passes, optionally not every re.refresh_period
 * frames). Buffer uploads and Mesa-internal shader creations keep RE on (see
 * su_scan_record and docs/techniques.md). */
static void frame_start(gpu *g, const sim_frame *f)
{
    g->frame_index++;
    sigbuf_next_frame(&g->re_sb);
    sigbuf_next_frame(&g->te_sb);
    const su_frame_data *fd = g->sufd;
    g->re_sign_frame = g->re_enabled && fd && fd->valid && f->npasses == 1;
    /* An upload/creation may come after the frame's draws: this frame's signatures are
   * then no valid reference for the next frame either. */
    g->re_ref_invalid = fd && (fd->uploads || fd->shader_creates);
    g->re_skip_frame =
        g->re_sign_frame && !g->re_ref_invalid && !(g->re_refresh && g->frame_index % g->re_refresh == 0);
    if (!g->re_enabled) return;
    if (f->npasses != 1)
        tbr_stat_inc(g->re_fr_multi);
    else if (fd && fd->uploads)
        tbr_stat_inc(g->re_fr_upload);
    else if (fd && fd->shader_creates)
        tbr_stat_inc(g->re_fr_shader);
    else if (g->re_sign_frame && !g->re_skip_frame)
        tbr_stat_inc(g->re_fr_refresh);
    else if (g->re_skip_frame)
        tbr_stat_inc(g->re_fr_on);
    if (fd && !fd->uploads && fd->buffer_uploads) tbr_stat_inc(g->re_fr_bufup);
    if (fd && !fd->shader_creates && fd->internal_shader_creates) tbr_stat_inc(g->re_fr_internal);
    if (fd && fd->zs_clear_writes) tbr_stat_inc(g->re_fr_zsclear);
}

/* Functional rendering of every tile of the pass, with the RE decision (skip = the
 * frame buffer keeps its colors: the tile is rendered only to measure false positives /
 * negatives, then its previous colors are put back) and the TE flush check. */
static void render_pass_tiles(gpu *g)
{
    uint32_t nt = g->tiles_x * g->tiles_y;
    if (nt > g->cap_tflags) {
        g->cap_tflags = nt;
        g->re_skip = realloc(g->re_skip, nt);
        g->te_elim = realloc(g->te_elim, nt);
        if (!g->re_skip || !g->te_elim) abort();
    }
    if (nt) {
        memset(g->re_skip, 0, nt);
        memset(g->te_elim, 0, nt);
    }
    uint32_t tlen, target = re_target_crc(&g->fn, &tlen);
    const sig_slot *ref = NULL, *teref = NULL;
    bool te_pass = g->te_enabled && g->frame->npasses == 1 && nt;
    if (g->re_pass) {
        sigbuf_begin(&g->re_sb, target, nt);
        ref = sigbuf_ref(&g->re_sb);
        if (g->re_skip_frame && !ref) tbr_stat_inc(g->re_fr_noref);
    }
    if (te_pass) {
        sigbuf_begin(&g->te_sb, target, nt);
        teref = sigbuf_ref(&g->te_sb);
    }
    for (unsigned ty = 0; ty < g->tiles_y; ty++)
        for (unsigned tx = 0; tx < g->tiles_x; tx++) {
            uint32_t t = ty * g->tiles_x + tx;
            bool elig = false;
            uint32_t sig = 0;
            if (g->re_pass) {
                sig = re_tile_signature(&g->fn, g->sufd, tx, ty, g->plb.lists[t].prims, g->plb.lists[t].n, target,
                                        &elig, &g->scratch, &g->scratch_cap);
                g->re_sb.s[2].sig[t] = sig;
                g->re_sb.s[2].ok[t] = elig;
                if (!elig) tbr_stat_inc(g->re_unsignable);
            }
            bool snap = g->re_pass || te_pass;
            if (snap) tile_snap_take(&g->snap, &g->fn, tx, ty);
            sim_tile_result tr;
            sim_func_render_tile(&g->fn, tx, ty, &tr);
            tbr_stat_add(g->mask_mismatch, tr.mask_mismatch);
            bool same_packed = snap && tile_snap_colors_equal(&g->snap, &g->fn, tx, ty, true);
            bool same_all = same_packed && tile_snap_colors_equal(&g->snap, &g->fn, tx, ty, false);
            if (g->re_pass) {
                if (ref) {
                    tbr_stat_inc(g->su.cmp);
                    bool eq = elig && ref->ok[t] && ref->sig[t] == sig;
                    if (eq)
                        tbr_stat_inc(g->re_equal_in);
                    else if (same_packed)
                        tbr_stat_inc(g->re_fn);
                    if (eq && !same_all) tbr_stat_inc(g->re_fp);
                    if (eq && g->re_skip_frame) {
                        g->re_skip[t] = 1;
                        tile_snap_restore(&g->snap, &g->fn, tx, ty, false); /* keep the frame buffer's colors */
                    }
                }
                tbr_stat_inc(g->re_skip[t] ? g->re_skipped : g->re_rendered);
            }
            if (te_pass) {
                uint64_t sb, bytes;
                uint32_t crc = te_tile_color_crc(&g->fn, tx, ty, &sb, &bytes);
                g->te_sb.s[2].sig[t] = crc;
                g->te_sb.s[2].ok[t] = 1;
                if (!g->re_skip[t]) {
                    tbr_stat_add(g->te_sb_n, sb);
                    tbr_stat_add(g->te_cmp, teref ? 2 : 1);
                    tbr_stat_inc(g->te_flushes);
                    if (teref && teref->ok[t] && teref->sig[t] == crc) {
                        g->te_elim[t] = 1;
                        tbr_stat_inc(g->te_elim_n);
                        if (!same_packed) tbr_stat_inc(g->te_fp);
                        tile_snap_restore(&g->snap, &g->fn, tx, ty, true); /* the write is dropped */
                    }
                }
            }
        }
    if (g->re_pass) g->re_sb.s[2].valid = !g->re_ref_invalid;
    if (te_pass) g->te_sb.s[2].valid = true;
}

/* ---- per-tile data (docs/timing-model.md "Per-tile data") ---- */

void gpu_tiles_frame_begin(gpu *g) { g->ft_valid = false; }

/* The pass draws into the default framebuffer (the surface written as the frame PNG):
 * its resource id, else -1. */
static int64_t pass_default_res(const gpu *g)
{
    if (!g->fn.have_default) return -1;
    const sim_pass *ps = &g->frame->passes[g->pass];
    for (unsigned i = 0; i < ps->rp.nr_cbufs && i < TBR_MAX_COLOR_BUFS; i++) {
        int si = sim_func_cbuf_surface(&g->fn, i);
        if (si < 0) continue;
        const sim_surf *s = sim_func_surface(&g->fn, si);
        if (s->res == g->fn.default_res && s->level == 0 && !s->is_zs) return s->res;
    }
    return -1;
}

static void tiles_pass_begin(gpu *g, uint32_t nt)
{
    if (nt > g->cap_pt) {
        g->pt_begin = realloc(g->pt_begin, nt * sizeof *g->pt_begin);
        g->pt_cycles = realloc(g->pt_cycles, nt * sizeof *g->pt_cycles);
        g->pt_frags = realloc(g->pt_frags, nt * sizeof *g->pt_frags);
        g->pt_ru = realloc(g->pt_ru, nt * sizeof *g->pt_ru);
        if (!g->pt_begin || !g->pt_cycles || !g->pt_frags || !g->pt_ru) abort();
        g->cap_pt = nt;
    }
    for (uint32_t t = 0; t < g->cap_pt; t++) {
        g->pt_begin[t] = g->pt_cycles[t] = g->pt_frags[t] = 0;
        g->pt_ru[t] = -1;
    }
}

/* After the raster phase: a pass that renders the default framebuffer adds its tiles to
 * the frame's (a pass into another default surface than the one gathered so far starts
 * over). cycles and fragments are summed over such passes; RE/TE flags and the Raster
 * Unit are the last pass's. */
static void tiles_pass_end(gpu *g, uint32_t nt, bool te_pass)
{
    int64_t res = pass_default_res(g);
    if (res < 0 || !nt) return;
    if (!g->ft_valid || g->ft_res != (uint32_t)res || g->ft_cols != g->tiles_x || g->ft_rows != g->tiles_y) {
        if (nt > g->cap_ft) {
            g->ft_cycles = realloc(g->ft_cycles, nt * sizeof *g->ft_cycles);
            g->ft_frags = realloc(g->ft_frags, nt * sizeof *g->ft_frags);
            g->ft_ru = realloc(g->ft_ru, nt * sizeof *g->ft_ru);
            g->ft_re = realloc(g->ft_re, nt);
            g->ft_te = realloc(g->ft_te, nt);
            if (!g->ft_cycles || !g->ft_frags || !g->ft_ru || !g->ft_re || !g->ft_te) abort();
            g->cap_ft = nt;
        }
        for (uint32_t t = 0; t < nt; t++) {
            g->ft_cycles[t] = -1;
            g->ft_frags[t] = 0;
            g->ft_ru[t] = -1;
        }
        g->ft_valid = true;
        g->ft_res = (uint32_t)res;
        g->ft_cols = g->tiles_x;
        g->ft_rows = g->tiles_y;
    }
    for (uint32_t t = 0; t < nt; t++) {
        bool skipped = g->re_pass && g->re_skip[t];
        if (g->pt_ru[t] >= 0) {
            g->ft_cycles[t] = (g->ft_cycles[t] < 0 ? 0 : g->ft_cycles[t]) + (int64_t)g->pt_cycles[t];
            g->ft_ru[t] = g->pt_ru[t];
        }
        g->ft_frags[t] += (int64_t)g->pt_frags[t];
        g->ft_re[t] = (int8_t)(g->re_pass ? (skipped ? 1 : 0) : -1);
        g->ft_te[t] = (int8_t)(te_pass && !skipped ? (g->te_elim[t] ? 1 : 0) : -1);
    }
}

void gpu_tiles_write_frame(const gpu *g, FILE *o, uint64_t frame, uint32_t cols, uint32_t rows)
{
    static const char *const keys[] = {"cycles", "fragments", "re_skipped", "te_eliminated", "raster_unit"};
    fprintf(o, "\n  {\"frame\": %llu", (unsigned long long)frame);
    for (int k = 0; k < 5; k++) {
        fprintf(o, ",\n   \"%s\": [", keys[k]);
        for (uint32_t ty = 0; ty < rows; ty++)
            for (uint32_t tx = 0; tx < cols; tx++) {
                int64_t v = -1;
                if (g->ft_valid && tx < g->ft_cols && ty < g->ft_rows) {
                    /* simulator tile (tx, ty) covers surface rows [ty*tile_h, ...): PNG rows are
           * surface rows, so no flip */
                    uint32_t t = ty * g->ft_cols + tx;
                    switch (k) {
                        case 0: v = g->ft_cycles[t]; break;
                        case 1: v = g->ft_frags[t]; break;
                        case 2: v = g->ft_re[t]; break;
                        case 3: v = g->ft_te[t]; break;
                        default: v = g->ft_ru[t]; break;
                    }
                }
                const char *sep = ty == 0 && tx == 0 ? "" : ",";
                if (v < 0)
                    fprintf(o, "%snull", sep);
                else
                    fprintf(o, "%s%lld", sep, (long long)v);
            }
        fputc(']', o);
    }
    fputc('}', o);
}

/* ---- Idle-cycle skipping (docs/timing-model.md "Skipping quiescent cycles") ----
 * Before each cycle the loop asks every unit for its next event (the earliest cycle at
 * which its tick could change state, assuming no other unit does before then). If that
 * is later than now, cycles [now, next) are quiescent: every unit would only repeat the
 * same counting, so one call of each tick simulates all of them (g->ncyc cycles; the
 * memory system may cut the span short when the DRAM, which keeps running on its own
 * clock, produces something the GPU side would see). Spans end at the cycle at which a
 * deadlock watchdog fires, so it fires at the same cycle as without skipping. */
#define SKIP_MAX_SPAN 65536u /* bounds the DRAM's catch-up loop per call */

static uint64_t geometry_phase_next_event(const gpu *g)
{
    uint64_t now = g->now, ne = UINT64_MAX;
    /* Signature Unit computing: primitives, or a drawcall's constants (su_tick works
   * while dsigned < dissued even without queued primitives) */
    if (g->su.on && (g->su.jcount || g->su.dsigned < g->su.dissued)) return now;
    /* the most frequent "now" first (terrain: a Vertex Processor issues in half the probes);
   * the answer does not depend on the order */
    for (uint32_t i = 0; i < g->geo.nvp; i++)
        if (sc_may_issue_now(&g->geo.vp[i], now)) return now;
    GPU_EVENT_AT(ne, now, geometry_next_event(g));
    GPU_EVENT_AT(ne, now, plb_next_event(g));
    GPU_EVENT_AT(ne, now, icache_next_event(g, &g->icu[0]));
    GPU_EVENT_AT(ne, now, memsys_next_event(g->mem, now));
    return ne;
}

static uint64_t raster_phase_next_event(const gpu *g)
{
    uint64_t now = g->now, ne = UINT64_MAX;
    /* the most frequent "now" first (terrain: a Fragment Processor issues in 84% of the
   * probes); the answer does not depend on the order */
    for (uint32_t i = 0; i < g->nru; i++)
        for (uint32_t k = 0; k < g->ru[i].nfp; k++)
            if (sc_may_issue_now(&g->ru[i].fp[k], now)) return now;
    for (uint32_t i = 0; i < g->nru; i++) GPU_EVENT_AT(ne, now, ru_next_event(g, &g->ru[i]));
    GPU_EVENT_AT(ne, now, tf_next_event(g));
    GPU_EVENT_AT(ne, now, icache_next_event(g, &g->icu[g->nicu - 1]));
    GPU_EVENT_AT(ne, now, memsys_next_event(g->mem, now));
    return ne;
}

/* Cycles the next loop iteration simulates: 1, or the quiescent span up to the next
 * event, not beyond cycle `limit` (the cycle after which the phase's watchdog fires). */
static uint64_t span(const gpu *g, uint64_t next_event, uint64_t limit)
{
    if (next_event > limit) next_event = limit;
    if (next_event <= g->now + 1) return 1;
    uint64_t n = next_event - g->now;
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
static uint64_t geometry_progress(const gpu *g) { return g->geo.progress + g->plb.progress + g->su.progress; }

int gpu_fast_forward_frame(gpu *g, const sim_frame *f, char *err, size_t errlen)
{
    sim_func_derive_texels(&g->fn, NULL); /* no timing: no texels needed */
    for (size_t p = 0; p < f->npasses; p++) {
        if (sim_func_begin_pass(&g->fn, f, p, g->tile_w, g->tile_h, err, errlen)) return -1;
        const unsigned tx_n = sim_func_tiles_x(&g->fn), ty_n = sim_func_tiles_y(&g->fn);
        for (unsigned ty = 0; ty < ty_n; ty++)
            for (unsigned tx = 0; tx < tx_n; tx++) {
                sim_tile_result tr;
                sim_func_render_tile(&g->fn, tx, ty, &tr);
            }
        sim_func_end_pass(&g->fn);
    }
    return 0;
}

int gpu_run_pass(gpu *g, sim_frame *f, size_t pass, char *err, size_t errlen)
{
    g->frame = f;
    sim_func_derive_texels(&g->fn, f); /* before the raster phase reads them (render_pass_tiles) */
    g->pass = pass;
    if (sim_func_begin_pass(&g->fn, f, pass, g->tile_w, g->tile_h, err, errlen)) return -1;
    g->tiles_x = sim_func_tiles_x(&g->fn);
    g->tiles_y = sim_func_tiles_y(&g->fn);
    if (pass == 0) frame_start(g, f);
    uint32_t nt = g->tiles_x * g->tiles_y;
    g->re_pass = g->re_sign_frame && nt;
    su_begin_pass(&g->su, g->re_pass, f, g->sufd, nt, (uint32_t)f->passes[pass].first_draw,
                  (uint32_t)f->passes[pass].ndraws);
    tbr_stat_inc(g->passes);
    tbr_stat_add(g->draws, f->passes[pass].ndraws);
    for (uint32_t k = 0; k < f->passes[pass].ndraws; k++)
        tbr_stat_add(g->prims, f->draws[f->passes[pass].first_draw + k].nprims);

    /* Which uncleared planes the raster phase loads (tile.restore): with `used`, as a
   * TBR driver restores them (Mesa freedreno batch_draw_tracking): depth/stencil only if
   * a draw of the pass tests depth or stencil (GL writes neither without its test),
   * colors only if the pass draws at all. A plane nothing reads is not loaded; the
   * timing model never stores depth/stencil, so such a load was never used. Frames are
   * unaffected (functional rendering does not depend on timing). */
    g->pass_loads_color = g->pass_loads_zs = true;
    if (g->restore_used) {
        const sim_pass *ps = &f->passes[pass];
        bool zs_used = false;
        for (uint32_t k = 0; k < ps->ndraws && !zs_used; k++) {
            const tbr_rec_draw *d = &f->draws[ps->first_draw + k].rec;
            zs_used = d->depth_enabled || d->stencil[0].enabled || d->stencil[1].enabled;
        }
        g->pass_loads_zs = zs_used;
        g->pass_loads_color = ps->ndraws > 0;
    }

    /* geometry + tiling phase */
    uint64_t start = g->now;
    geometry_begin_pass(g);
    plb_begin_pass(g);
    g->geo.last_prim_cycle = start;
    /* Deadlock watchdog: the phase fails only if no unit moved work forward (a vertex
   * request, response, hand-off or shading, a primitive assembled or binned, a Parameter
   * Buffer line written, a CRC step) for WATCHDOG_CYCLES. It is not a budget on the
   * phase's length: a pass's geometry time grows with its vertex count, which the
   * frame's primitive and quad counts do not bound (a draw whose triangles are mostly
   * clipped or culled before setup still fetches and shades all of its vertices). */
    uint64_t idle_since = g->now;
    uint64_t progress = geometry_progress(g);
    while (!(plb_done(g) && su_idle(&g->su) && memsys_idle(g->mem) && tbr_cache_idle(g->geo.vcache) &&
             icache_idle(&g->icu[0]))) {
        g->ncyc = next_span(g, false, idle_since + WATCHDOG_CYCLES + 1);
        memsys_tick_n(g->mem, g->now, &g->ncyc); /* first: may shorten the span */
        su_tick(&g->su);
        plb_tick(g);
        geometry_tick(g);
        icache_tick(g, &g->icu[0]);
        if (g->ncyc > 1) g->skipped_cycles += g->ncyc;
        g->now += g->ncyc;
        uint64_t pr = geometry_progress(g);
        if (pr != progress) {
            progress = pr;
            idle_since = g->now;
        }
        if (g->now - idle_since > WATCHDOG_CYCLES) {
            geometry_fold_stats(g);
            snprintf(err, errlen, "frame %llu pass %zu: geometry phase made no progress (model deadlock at cycle %llu)",
                     (unsigned long long)f->number, pass, (unsigned long long)g->now);
            return -1;
        }
    }
    geometry_fold_stats(g);
    uint64_t geo_end = g->now;
    uint64_t geom = (g->geo.last_prim_cycle + 1 > start ? g->geo.last_prim_cycle + 1 : start) - start;
    if (geom > geo_end - start) geom = geo_end - start;
    tbr_stat_add(g->cyc_geom, geom);
    tbr_stat_add(g->cyc_tiling, geo_end - start - geom);

    /* Functional rendering of the pass, tile by tile (values do not depend on timing),
   * after binning: RE signs each tile's Polygon List Builder list. */
    render_pass_tiles(g);

    /* raster phase */
    uint32_t tiles0[16] = {0};
    for (uint32_t i = 0; i < g->nru && i < 16; i++) tiles0[i] = g->ru[i].tiles_done;
    tiles_pass_begin(g, nt);
    tf_begin_pass(g);
    for (uint32_t i = 0; i < g->nru; i++) {
        g->ru[i].tile_start_cycle = g->now;
        g->ru[i].ez_fp_quad = 0; /* quad indices are the frame's */
    }
    uint64_t rstart = g->now;
    const uint64_t raster_limit = WATCHDOG_CYCLES + (uint64_t)f->nquads * 1024 + (uint64_t)f->nprims * 1024;
    for (;;) {
        bool done = tf_done(g) && memsys_idle(g->mem) && icache_idle(&g->icu[g->nicu - 1]);
        for (uint32_t i = 0; i < g->nru && done; i++) done = ru_idle(&g->ru[i]);
        if (done) break;
        g->ncyc = next_span(g, true, rstart + raster_limit + 1);
        memsys_tick_n(g->mem, g->now, &g->ncyc); /* first: may shorten the span */
        icache_tick(g, &g->icu[g->nicu - 1]);
        for (uint32_t i = 0; i < g->nru; i++) {
            if (!ru_idle(&g->ru[i])) tbr_stat_add(g->ru_active[i], g->ncyc);
            ru_tick(g, &g->ru[i]);
        }
        tf_tick(g);
        if (g->ncyc > 1) g->skipped_cycles += g->ncyc;
        g->now += g->ncyc;
        if (g->now - rstart > raster_limit) {
            for (uint32_t i = 0; i < g->nru; i++) ru_fold_stats(&g->ru[i]);
            snprintf(err, errlen, "frame %llu pass %zu: raster phase made no progress (model deadlock at cycle %llu)",
                     (unsigned long long)f->number, pass, (unsigned long long)g->now);
            return -1;
        }
    }
    for (uint32_t i = 0; i < g->nru; i++) ru_fold_stats(&g->ru[i]);
    uint32_t tmin = UINT32_MAX, tmax = 0;
    for (uint32_t i = 0; i < g->nru && i < 16; i++) {
        uint32_t d = g->ru[i].tiles_done - tiles0[i];
        tbr_stat_add(g->ru_tiles[i], d);
        if (d < tmin) tmin = d;
        if (d > tmax) tmax = d;
    }
    if (g->nru) tbr_stat_add(g->ptr_imbalance, tmax - tmin);
    tbr_stat_add(g->cyc_raster, g->now - rstart);
    tbr_stat_add(g->cyc_total, g->now - start);
    tiles_pass_end(g, nt, g->te_enabled && f->npasses == 1 && nt);
    sim_func_end_pass(&g->fn);
    return 0;
}
