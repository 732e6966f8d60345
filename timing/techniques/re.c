/* Rendering Elimination as a technique (RE paper seeds/001; docs/techniques.md): the
 * Signature Unit beside the Polygon List Builder signs each tile's inputs while the
 * geometry is binned (binning and geometry-phase hooks); at tile dispatch the Tile
 * Fetcher spends re.compare_cycles reading and comparing the tile's signature with the
 * same pass's in the reference frame (signature_buffer.h: per render pass, and only
 * while memory still holds that pass's output), and a tile with equal signatures skips
 * its whole raster pipeline (tile_dispatch_cycles + the host's skip outcome). The
 * functional side decides the skip when the tile is rendered (tile_render hooks): the
 * frame buffer keeps its old colors, and the tile is rendered anyway to count false
 * positives / negatives. The mechanisms are in signature_unit.c (signature
 * computation, Signature Unit timing) and signature_buffer.c (Signature Buffer,
 * render-target write history). */
#include <stdlib.h>

#include "techniques/technique.h"

#include "core/util.h"

typedef struct {
    uint32_t refresh, compare_cycles;
    sig_unit su;
    sig_buffer sb;
    rt_history hist;
    uint64_t frame_index;
    const su_frame_data *fd;                  /* this frame's payload CRCs */
    bool sign_frame, skip_frame, ref_invalid; /* per frame (sec. III-E) */
    bool frame_signed, frame_had_ref;         /* a pass of this frame was signed / had a reference */
    bool pass_on;                             /* signatures computed in the current pass */
    bool onscreen;                            /* the pass draws into the EGL surface's buffer */
    bool last_pass;                           /* the frame's last pass */
    uint32_t pass_tiles, pass_skipped;
    sig_slot *slot;
    const sig_slot *ref;
    uint32_t sig; /* the tile being rendered: its signature, whether it covers its inputs */
    bool eligible;
    uint8_t *scratch;
    size_t scratch_cap;
    tbr_stat *fr_on, *fr_upload, *fr_shader, *fr_bufup, *fr_internal, *fr_zsclear, *fr_tcache, *fr_multi, *fr_refresh,
        *fr_noref;
    tbr_stat *ps_signed, *ps_compared, *ps_noref, *ps_rewritten, *ps_sampled;
    tbr_stat *skipped, *skipped_on, *skipped_off, *rendered, *equal_in, *false_neg, *false_pos, *unsignable;
} rendering_elim;

static void register_pass_stats(rendering_elim *re, tbr_stats *st)
{
    re->ps_signed = tbr_stats_counter(st, "re.passes_signed", "render passes with tiles whose signatures RE computed");
    re->ps_compared = tbr_stats_counter(st, "re.passes_compared",
                                        "signed passes compared with a sound reference pass (tiles may be skipped)");
    re->ps_noref = tbr_stats_counter(st, "re.passes_no_reference",
                                     "signed passes without a valid pass of the same render target and rank in the "
                                     "reference frame");
    re->ps_rewritten = tbr_stats_counter(st, "re.passes_disabled_target_rewritten",
                                         "signed passes not compared: another pass (or an upload) wrote their render "
                                         "target after the reference pass, so memory no longer holds its output");
    re->ps_sampled = tbr_stats_counter(st, "re.passes_disabled_samples_rendered",
                                       "signed passes not compared: a draw samples a texture written (rendered or "
                                       "uploaded) since the reference pass sampled it (the signature holds its id, "
                                       "not its contents)");
    re->skipped_on = tbr_stats_counter(st, "re.tiles_skipped_onscreen",
                                       "tiles skipped in passes drawing into the EGL surface's buffer");
    re->skipped_off =
        tbr_stats_counter(st, "re.tiles_skipped_offscreen", "tiles skipped in passes drawing into other targets");
}

static void register_stats(rendering_elim *re, tbr_stats *st)
{
    re->fr_on = tbr_stats_counter(st, "re.frames_enabled", "frames in which RE could skip tiles");
    re->fr_upload = tbr_stats_counter(st, "re.frames_disabled_upload",
                                      "frames with RE disabled: UPLOAD to a texture (non-buffer resource, sec. III-E)");
    re->fr_shader = tbr_stats_counter(st, "re.frames_disabled_shader",
                                      "frames with RE disabled: SHADER_CREATE of an application shader (sec. III-E)");
    re->fr_bufup = tbr_stats_counter(
        st, "re.frames_buffer_uploads_only",
        "frames whose uploads all went to buffers (RE stays enabled: PRIM attributes and DRAW constants are signed)");
    re->fr_internal = tbr_stats_counter(st, "re.frames_internal_shader_creates",
                                        "frames with SHADER_CREATEs of Mesa-internal shaders only (RE stays enabled)");
    re->fr_zsclear = tbr_stats_counter(st, "re.frames_zs_clear_writes",
                                       "frames with a depth-only/stencil-only clear written to memory (UPLOAD "
                                       "flagged CLEAR_WRITE: part of the clear, RE stays enabled)");
    re->fr_tcache = tbr_stats_counter(st, "re.frames_tile_cache_writebacks",
                                      "frames with UPLOADs flagged TILE_CACHE (softpipe writing rendered tiles back "
                                      "when the frame buffer changes: not uploads, RE stays enabled)");
    re->fr_multi = tbr_stats_counter(st, "re.frames_multipass",
                                     "frames with more than one render pass (signed and compared pass by pass)");
    re->fr_refresh =
        tbr_stats_counter(st, "re.frames_disabled_refresh", "frames with RE disabled for the periodic refresh");
    re->fr_noref = tbr_stats_counter(st, "re.frames_no_reference",
                                     "RE-enabled frames in which no signed pass had a valid reference pass");
    re->skipped =
        tbr_stats_counter(st, "re.tiles_skipped", "tiles whose raster pipeline was skipped (equal signatures)");
    re->rendered = tbr_stats_counter(st, "re.tiles_rendered", "tiles rendered in passes where RE computed signatures");
    re->equal_in = tbr_stats_counter(st, "re.tiles_equal_inputs", "tiles whose signature equals the reference frame's");
    re->false_neg =
        tbr_stats_counter(st, "re.tiles_equal_colors_diff_inputs",
                          "tiles with equal colors but different signatures (false negatives, RE Fig. 15a)");
    re->false_pos =
        tbr_stats_counter(st, "re.false_positives", "tiles with equal signatures but different colors (must be 0)");
    re->unsignable = tbr_stats_counter(st, "re.tiles_unsignable",
                                       "tiles whose colors depend on more than the signed inputs (never skipped)");
    register_pass_stats(re, st);
}

/* Per frame: rotate the Signature Buffer and decide whether RE may skip tiles this frame
 * (sec. III-E: not after texture uploads or application shader creations, optionally
 * not every re.refresh_period frames). Buffer uploads and Mesa-internal shader
 * creations keep RE on (su_scan_record, docs/techniques.md). Every UPLOAD is a write in
 * the render-target history. */
static void re_frame_begin(void *self, const tbr_frame_info *fi)
{
    rendering_elim *re = self;
    const sim_frame *f = fi->frame;
    const su_frame_data *fd = fi->signatures;
    re->fd = fd;
    re->frame_index++;
    sigbuf_next_frame(&re->sb);
    rth_frame_begin(&re->hist, fd ? fd->upload_res : NULL, fd ? fd->nupload_res : 0);
    re->sign_frame = fd && fd->valid;
    re->frame_signed = re->frame_had_ref = false;
    /* An upload/creation may come after the frame's draws: this frame's signatures are
     * then no valid reference for the next frame either. */
    re->ref_invalid = fd && (fd->uploads || fd->shader_creates);
    re->skip_frame = re->sign_frame && !re->ref_invalid && !(re->refresh && re->frame_index % re->refresh == 0);
    if (fd && fd->uploads)
        tbr_stat_inc(re->fr_upload);
    else if (fd && fd->shader_creates)
        tbr_stat_inc(re->fr_shader);
    else if (re->sign_frame && !re->skip_frame)
        tbr_stat_inc(re->fr_refresh);
    else if (re->skip_frame)
        tbr_stat_inc(re->fr_on);
    if (f->npasses > 1) tbr_stat_inc(re->fr_multi);
    if (fd && !fd->uploads && fd->buffer_uploads) tbr_stat_inc(re->fr_bufup);
    if (fd && !fd->shader_creates && fd->internal_shader_creates) tbr_stat_inc(re->fr_internal);
    if (fd && fd->zs_clear_writes) tbr_stat_inc(re->fr_zsclear);
    if (fd && fd->tile_cache_writes) tbr_stat_inc(re->fr_tcache);
}

/* The reference of the current pass (docs/techniques.md "Several render passes"): the
 * reference frame's pass with the same render target and rank, if memory still holds
 * its output (nothing wrote the target since) and what the pass samples has not been
 * written since that pass sampled it; else NULL, the reason counted. */
static const sig_slot *pass_reference(rendering_elim *re, const tbr_pass_info *pi)
{
    const sig_slot *ref = sigbuf_ref(&re->sb, re->slot);
    if (!ref) {
        tbr_stat_inc(re->ps_noref);
        return NULL;
    }
    if (!rth_bound_unwritten_since(&re->hist, ref->seq)) {
        tbr_stat_inc(re->ps_rewritten);
        return NULL;
    }
    if (!rth_samples_unwritten_since(&re->hist, pi->frame, pi->pass, ref->seq)) {
        tbr_stat_inc(re->ps_sampled);
        return NULL;
    }
    tbr_stat_inc(re->ps_compared);
    return ref;
}

static unsigned re_pass_begin(void *self, const tbr_pass_info *pi)
{
    rendering_elim *re = self;
    uint64_t seq = rth_pass_begin(&re->hist, pi->fn, pi->frame, pi->pass);
    re->pass_on = re->sign_frame && pi->ntiles;
    re->pass_tiles = pi->ntiles;
    re->pass_skipped = 0;
    re->last_pass = pi->pass + 1 == pi->frame->npasses;
    const sim_pass *ps = &pi->frame->passes[pi->pass];
    su_begin_pass(&re->su, re->pass_on, pi->frame, re->fd, pi->ntiles, (uint32_t)ps->first_draw, (uint32_t)ps->ndraws);
    if (!re->pass_on) return 0;
    re->onscreen = ps->rp.is_default != 0;
    uint32_t tlen;
    re->slot = sigbuf_begin(&re->sb, re_target_crc(pi->fn, &tlen), pi->ntiles, seq);
    re->frame_signed = true;
    tbr_stat_inc(re->ps_signed);
    re->ref = pass_reference(re, pi);
    if (re->ref) re->frame_had_ref = true;
    return TBR_TECH_SNAPSHOT | TBR_TECH_BINNING | TBR_TECH_DISPATCH;
}

/* The tile's signature over its Polygon List Builder list, before it is rendered. */
static void re_tile_render_begin(void *self, tbr_tile_render *tr)
{
    rendering_elim *re = self;
    if (!re->pass_on) return;
    re->sig = re_tile_signature(tr->fn, re->fd, tr->tx, tr->ty, tr->prims, tr->nprims, re->slot->target, &re->eligible,
                                &re->scratch, &re->scratch_cap);
    re->slot->sig[tr->tile] = re->sig;
    re->slot->ok[tr->tile] = re->eligible;
    if (!re->eligible) tbr_stat_inc(re->unsignable);
}

/* Compare with the reference pass; a skipped tile keeps the frame buffer's colors. */
static void re_tile_render_end(void *self, tbr_tile_render *tr)
{
    rendering_elim *re = self;
    if (!re->pass_on) return;
    bool skip = false;
    if (re->ref) {
        tbr_stat_inc(re->su.cmp);
        bool eq = re->eligible && re->ref->ok[tr->tile] && re->ref->sig[tr->tile] == re->sig;
        if (eq)
            tbr_stat_inc(re->equal_in);
        else if (tr->same_packed)
            tbr_stat_inc(re->false_neg);
        if (eq && !tr->same_all) tbr_stat_inc(re->false_pos);
        if (eq && re->skip_frame) {
            skip = true;
            tile_snap_restore(tr->snap, tr->fn, tr->tx, tr->ty, false);
        }
    }
    *tr->skip = skip ? 1 : 0;
    if (skip) {
        re->pass_skipped++;
        tbr_stat_inc(re->onscreen ? re->skipped_on : re->skipped_off);
    }
    tbr_stat_inc(skip ? re->skipped : re->rendered);
}

/* The pass's signatures are complete; its bound surfaces are written unless every tile
 * was skipped. After the frame's last pass: did any pass have a reference? */
static void re_pass_render_end(void *self)
{
    rendering_elim *re = self;
    if (re->pass_on) re->slot->valid = !re->ref_invalid;
    rth_pass_end(&re->hist, re->pass_tiles && re->pass_skipped == re->pass_tiles);
    if (re->last_pass && re->skip_frame && re->frame_signed && !re->frame_had_ref) tbr_stat_inc(re->fr_noref);
}

static uint32_t re_dispatch_cycles(void *self)
{
    const rendering_elim *re = self;
    return re->pass_on ? re->compare_cycles : 0; /* read and compare two signatures (sec. III-C) */
}

/* The Signature Unit's side of binning (sec. III-F, Fig. 7). */
static void re_draw_issued(void *self, uint32_t draw) { su_draw_issue(&((rendering_elim *)self)->su, draw); }
static bool re_bin_can_accept(void *self) { return su_can_accept(&((rendering_elim *)self)->su); }
static void re_bin_accept(void *self, uint32_t prim, uint32_t ntiles)
{
    su_accept(&((rendering_elim *)self)->su, prim, ntiles);
}
static void re_bin_dropped(void *self, uint32_t prim) { su_prim_dropped(&((rendering_elim *)self)->su, prim); }
static bool re_bin_tile_can_push(void *self) { return su_ot_has_room(&((rendering_elim *)self)->su); }
static void re_bin_tile_push(void *self, uint32_t tile) { su_ot_push(&((rendering_elim *)self)->su, tile); }
static void re_geometry_tick(void *self) { su_tick(&((rendering_elim *)self)->su); }
static bool re_geometry_idle(const void *self) { return su_idle(&((const rendering_elim *)self)->su); }
static bool re_geometry_busy(const void *self)
{
    /* computing: primitives, or a drawcall's constants (su_tick works while
     * dsigned < dissued even without queued primitives) */
    const sig_unit *u = &((const rendering_elim *)self)->su;
    return u->on && (u->jcount || u->dsigned < u->dissued);
}
static uint64_t re_geometry_progress(const void *self) { return ((const rendering_elim *)self)->su.progress; }

static int re_energy(void *self, tbr_energy *en, const tbr_config *cfg, char *err, size_t errlen)
{
    const sig_unit *u = &((rendering_elim *)self)->su;
    if (tbr_energy_add_re(en, cfg, (uint32_t)tbr_cfg_uint(cfg, "re.ot_queue_entries"), err, errlen)) return -1;
    tbr_energy_unit *sb = tbr_energy_find(en, "re.signature_buffer"), *bm = tbr_energy_find(en, "re.constants_bitmap"),
                    *ot = tbr_energy_find(en, "re.ot_queue");
    tbr_energy_bind(en, sb, TBR_EV_READ, u->sb_read);
    tbr_energy_bind(en, sb, TBR_EV_WRITE, u->sb_write);
    tbr_energy_bind(en, tbr_energy_find(en, "re.crc_compute"), TBR_EV_CRC, u->compute_sb);
    tbr_energy_bind(en, tbr_energy_find(en, "re.crc_accumulate"), TBR_EV_CRC, u->combine ? u->combines : u->acc_sb);
    tbr_energy_bind(en, ot, TBR_EV_PUSH, u->ot_push);
    tbr_energy_bind(en, ot, TBR_EV_POP, u->ot_pop);
    tbr_energy_bind(en, bm, TBR_EV_READ, u->bm_read);
    tbr_energy_bind(en, bm, TBR_EV_WRITE, u->bm_write);
    tbr_energy_bind(en, bm, TBR_EV_WRITE, u->bm_clear);
    tbr_energy_bind(en, tbr_energy_find(en, "re.signature_compare"), TBR_EV_CMP, u->cmp);
    return 0;
}

static void re_destroy(void *self)
{
    rendering_elim *re = self;
    su_free(&re->su);
    sigbuf_free(&re->sb);
    rth_free(&re->hist);
    free(re->scratch);
    free(re);
}

/* The state re_create left: no reference frame, no history (gpu_reset). */
static void re_reset(void *self)
{
    rendering_elim *re = self;
    su_reset(&re->su);
    bool dbl = re->sb.dbl;
    sigbuf_free(&re->sb);
    re->sb.dbl = dbl;
    rth_free(&re->hist);
    re->frame_index = 0;
    re->fd = NULL;
    re->sign_frame = re->skip_frame = re->ref_invalid = false;
    re->frame_signed = re->frame_had_ref = re->pass_on = re->onscreen = re->last_pass = false;
    re->pass_tiles = re->pass_skipped = 0;
    re->slot = NULL;
    re->ref = NULL;
    re->sig = 0;
    re->eligible = false;
}

static const tbr_technique_ops re_on = {
    .destroy = re_destroy,
    .reset = re_reset,
    .frame_begin = re_frame_begin,
    .pass_begin = re_pass_begin,
    .pass_render_end = re_pass_render_end,
    .draw_issued = re_draw_issued,
    .bin_can_accept = re_bin_can_accept,
    .bin_accept = re_bin_accept,
    .bin_dropped = re_bin_dropped,
    .bin_tile_can_push = re_bin_tile_can_push,
    .bin_tile_push = re_bin_tile_push,
    .geometry_tick = re_geometry_tick,
    .geometry_idle = re_geometry_idle,
    .geometry_busy = re_geometry_busy,
    .geometry_progress = re_geometry_progress,
    .tile_render_begin = re_tile_render_begin,
    .tile_render_end = re_tile_render_end,
    .tile_dispatch_cycles = re_dispatch_cycles,
    .energy = re_energy,
};
static const tbr_technique_ops re_off = {.destroy = re_destroy, .reset = re_reset};

/* Parameters: re.* (core/config.c's table; RE paper sec. III-IV). */
static void *re_create(const tbr_config *cfg, tbr_stats *st, const tbr_technique_ops **ops, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    rendering_elim *re = tbr_xcalloc(1, sizeof *re);
    re->refresh = (uint32_t)tbr_cfg_uint(cfg, "re.refresh_period");
    re->compare_cycles = (uint32_t)tbr_cfg_uint(cfg, "re.compare_cycles");
    re->sb.dbl = tbr_cfg_enum(cfg, "re.buffering") == 1;
    su_init(&re->su, (uint32_t)tbr_cfg_uint(cfg, "re.crc_cycles_per_subblock"),
            tbr_cfg_enum(cfg, "re.accumulate_unit") == 0,
            (uint32_t)tbr_cfg_uint(cfg, "re.accumulate_cycles_per_subblock"),
            (uint32_t)tbr_cfg_uint(cfg, "re.combine_cycles"), (uint32_t)tbr_cfg_uint(cfg, "re.ot_queue_entries"), st);
    register_stats(re, st);
    *ops = tbr_cfg_bool(cfg, "re.enabled") ? &re_on : &re_off;
    return re;
}

const tbr_technique_desc tbr_technique_re = {.name = "re", .create = re_create};
