/* Transaction Elimination as a technique (RE paper seeds/001 sec. IV-C, ARM TE [16];
 * docs/techniques.md): when a tile is rendered (tile_render_end), the CRC32 of its packed
 * colors is compared with the Signature Buffer entry of the same tile in the same pass
 * of the frame that last wrote this frame buffer (signature_buffer.h); equal = the
 * tile's color flush is dropped (the host's flush outcome, read by the Raster Unit at
 * the flush). No time cost, as the paper assumes; the activity is counted. The CRC and
 * the snapshots are in transaction_elim.c. */
#include <stdlib.h>
#include <string.h>

#include "techniques/technique.h"

#include "core/util.h"

typedef struct {
    sig_buffer sb;
    rt_history hist;
    bool pass_on; /* a pass with tiles */
    uint32_t pass_tiles, pass_skipped;
    sig_slot *slot;
    const sig_slot *ref;
    tbr_stat *flushes, *eliminated, *bytes_saved, *subblocks, *false_pos, *sigbuf_accesses;
    tbr_stat *ps_compared, *ps_noref, *ps_rewritten;
} transaction_elim;

/* Every UPLOAD of the frame (fi->signatures: sim_main scans them for TE too) is a write
 * in the render-target history. */
static void te_frame_begin(void *self, const tbr_frame_info *fi)
{
    transaction_elim *te = self;
    sigbuf_next_frame(&te->sb);
    const su_frame_data *fd = fi->signatures;
    rth_frame_begin(&te->hist, fd ? fd->upload_res : NULL, fd ? fd->nupload_res : 0);
}

/* The reference is the reference frame's pass with the same render target and rank
 * (signature_buffer.h), only while memory still holds its colors: a dropped flush keeps
 * memory's bytes. Unlike RE, TE compares outputs, so what the pass samples is no matter. */
static unsigned te_pass_begin(void *self, const tbr_pass_info *pi)
{
    transaction_elim *te = self;
    uint64_t seq = rth_pass_begin(&te->hist, pi->fn, pi->frame, pi->pass);
    /* a pass without color buffers (a depth-only shadow map) has no color flush to drop */
    bool colors = false;
    for (unsigned i = 0; i < pi->fn->tb.nr_cbufs && i < TBR_MAX_COLOR_BUFS; i++) colors |= pi->fn->surf_cbuf[i] >= 0;
    te->pass_on = pi->ntiles && colors;
    te->pass_tiles = pi->ntiles;
    te->pass_skipped = 0;
    if (!te->pass_on) return 0;
    uint32_t tlen, target = re_target_crc(pi->fn, &tlen);
    te->slot = sigbuf_begin(&te->sb, target, pi->ntiles, seq);
    te->ref = sigbuf_ref(&te->sb, te->slot);
    if (!te->ref)
        tbr_stat_inc(te->ps_noref);
    else if (!rth_bound_unwritten_since(&te->hist, te->ref->seq)) {
        tbr_stat_inc(te->ps_rewritten);
        te->ref = NULL;
    } else
        tbr_stat_inc(te->ps_compared);
    return TBR_TECH_SNAPSHOT;
}

/* A tile RE skipped is not flushed: its CRC is stored, nothing is checked. */
static void te_tile_render_end(void *self, tbr_tile_render *tr)
{
    transaction_elim *te = self;
    if (!te->pass_on) return;
    uint64_t sb, bytes;
    uint32_t crc = te_tile_color_crc(tr->fn, tr->tx, tr->ty, &sb, &bytes);
    te->slot->sig[tr->tile] = crc;
    te->slot->ok[tr->tile] = 1;
    if (*tr->skip == 1) {
        te->pass_skipped++;
        return;
    }
    tbr_stat_add(te->subblocks, sb);
    tbr_stat_add(te->sigbuf_accesses, te->ref ? 2 : 1);
    tbr_stat_inc(te->flushes);
    *tr->flush_elim = 0;
    if (te->ref && te->ref->ok[tr->tile] && te->ref->sig[tr->tile] == crc) {
        *tr->flush_elim = 1;
        tbr_stat_inc(te->eliminated);
        if (!tr->same_packed) tbr_stat_inc(te->false_pos);
        tile_snap_restore(tr->snap, tr->fn, tr->tx, tr->ty, true); /* the write is dropped */
    }
}

static void te_flush_dropped(void *self, uint32_t tile, uint64_t bytes)
{
    (void)tile;
    tbr_stat_add(((transaction_elim *)self)->bytes_saved, bytes);
}

/* Bound surfaces are written unless RE skipped every tile of the pass. */
static void te_pass_render_end(void *self)
{
    transaction_elim *te = self;
    if (te->pass_on) te->slot->valid = true;
    rth_pass_end(&te->hist, te->pass_tiles && te->pass_skipped == te->pass_tiles);
}

/* Energy structures (group "te"): Signature Buffer (two frames x tiles x 32-bit CRC),
 * Compute CRC unit (8 LUTs, RE sec. III-D / IV-C), the 32-bit comparator; events: the
 * sub-blocks signed, Signature Buffer accesses (reads and writes cost the same), one
 * compare per checked flush. */
static int te_energy(void *self, tbr_energy *e, const tbr_config *cfg, char *err, size_t errlen)
{
    const transaction_elim *te = self;
    uint64_t tw = tbr_cfg_uint(cfg, "tile.width"), th = tbr_cfg_uint(cfg, "tile.height");
    uint64_t tiles =
        ((tbr_cfg_uint(cfg, "screen.width") + tw - 1) / tw) * ((tbr_cfg_uint(cfg, "screen.height") + th - 1) / th);
    tbr_energy_geom gm;
    memset(&gm, 0, sizeof gm);
    gm.bytes = tiles * 2 * 4;
    gm.width_bits = 32;
    gm.ports = 2;
    if (!tbr_energy_add(e, "te.signature_buffer", "te", TBR_EK_SRAM, &gm, err, errlen)) return -1;
    memset(&gm, 0, sizeof gm);
    gm.luts = 8;
    if (!tbr_energy_add(e, "te.crc_compute", "te", TBR_EK_CRC, &gm, err, errlen)) return -1;
    memset(&gm, 0, sizeof gm);
    gm.width_bits = 32;
    if (!tbr_energy_add(e, "te.signature_compare", "te", TBR_EK_COMPARATOR, &gm, err, errlen)) return -1;
    tbr_energy_bind(e, tbr_energy_find(e, "te.crc_compute"), TBR_EV_CRC, te->subblocks);
    tbr_energy_bind(e, tbr_energy_find(e, "te.signature_buffer"), TBR_EV_READ, te->sigbuf_accesses);
    tbr_energy_bind(e, tbr_energy_find(e, "te.signature_compare"), TBR_EV_CMP, te->flushes);
    return 0;
}

static void te_destroy(void *self)
{
    transaction_elim *te = self;
    sigbuf_free(&te->sb);
    rth_free(&te->hist);
    free(te);
}

/* The state te_create left: no reference frame, no history (gpu_reset). */
static void te_reset(void *self)
{
    transaction_elim *te = self;
    bool dbl = te->sb.dbl;
    sigbuf_free(&te->sb);
    te->sb.dbl = dbl;
    rth_free(&te->hist);
    te->pass_on = false;
    te->pass_tiles = te->pass_skipped = 0;
    te->slot = NULL;
    te->ref = NULL;
}

static const tbr_technique_ops te_on = {
    .destroy = te_destroy,
    .reset = te_reset,
    .frame_begin = te_frame_begin,
    .pass_begin = te_pass_begin,
    .pass_render_end = te_pass_render_end,
    .tile_render_end = te_tile_render_end,
    .flush_dropped = te_flush_dropped,
    .energy = te_energy,
};
static const tbr_technique_ops te_off = {.destroy = te_destroy, .reset = te_reset};

/* Parameters: te.* (core/config.c's table). */
static void *te_create(const tbr_config *cfg, tbr_stats *st, const tbr_technique_ops **ops, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    transaction_elim *te = tbr_xcalloc(1, sizeof *te);
    te->sb.dbl = tbr_cfg_enum(cfg, "te.buffering") == 1;
    te->flushes = tbr_stats_counter(st, "te.flushes", "color buffer flushes checked by Transaction Elimination");
    te->eliminated =
        tbr_stats_counter(st, "te.flushes_eliminated", "flushes dropped: color signature equals the reference frame's");
    te->bytes_saved =
        tbr_stats_counter(st, "te.bytes_saved", "frame-buffer write bytes saved by Transaction Elimination");
    te->subblocks = tbr_stats_counter(st, "te.crc_subblocks", "64-bit subblocks signed by the TE Compute CRC unit");
    te->sigbuf_accesses = tbr_stats_counter(st, "te.sigbuf_accesses", "TE Signature Buffer reads + writes");
    te->false_pos = tbr_stats_counter(st, "te.false_positives", "eliminated flushes whose colors differed (must be 0)");
    te->ps_compared =
        tbr_stats_counter(st, "te.passes_compared", "passes whose flushes were checked against a reference pass");
    te->ps_noref = tbr_stats_counter(st, "te.passes_no_reference",
                                     "passes without a pass of the same render target and rank in the reference frame");
    te->ps_rewritten =
        tbr_stats_counter(st, "te.passes_disabled_target_rewritten",
                          "passes not checked: their render target was written after the reference pass");
    *ops = tbr_cfg_bool(cfg, "te.enabled") ? &te_on : &te_off;
    return te;
}

const tbr_technique_desc tbr_technique_te = {.name = "te", .create = te_create};
