/* The Raster Unit under IMR (raster_unit.h "immediate-mode organisation"; ATTILA seeds/004
 * sec. 2 "Color Write": the stage works through a color cache backed by memory). */
#include "raster/raster_unit.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tiling/tile_tokens.h"

/* Color compression (imr.color_compression; docs/organisations.md "Color compression"):
 * ATTILA's 256-B compressed blocks and 64/128/192/256-B levels (seeds/004 sec. 2, 5: its
 * depth scheme) applied to color, the level chosen by the block's content as a palette
 * (indexed) encoder would store it: its d distinct pixel values once plus ceil(log2 d) bits
 * per pixel, rounded up to 64-B memory lines (a uniform block, e.g. cleared, takes one). An
 * assumption: ATTILA's Color Write has no compression (its Z stage's follows ATI's methods,
 * refs [18] HyperZ, [19] offset compression). The content is the pass's final image (the functional back end
 * renders the pass before it is timed), exact for the pass-end write-back. */
static uint32_t palette_lines(const uint8_t *px, uint32_t n, uint32_t bpp)
{
    enum { MAX_PX = 256 };
    const uint8_t *distinct[MAX_PX];
    uint32_t d = 0;
    for (uint32_t i = 0; i < n && i < MAX_PX; i++) {
        uint32_t k = 0;
        while (k < d && memcmp(distinct[k], px + (size_t)i * bpp, bpp) != 0) k++;
        if (k == d) distinct[d++] = px + (size_t)i * bpp;
    }
    uint32_t bits = 0;
    while ((1u << bits) < d) bits++;
    uint64_t bytes = (uint64_t)d * bpp + ((uint64_t)n * bits + 7) / 8;
    uint64_t lines = (bytes + 63) / 64;
    return lines < 4 ? (uint32_t)lines : 4;
}

static uint32_t color_block_lines(void *ctx, uint64_t a)
{
    const raster_unit *r = ctx;
    const sim_env *env = r->env;
    const sim_pass *ps = &env->frame->passes[env->pass];
    for (unsigned i = 0; i < ps->rp.nr_cbufs && i < TBR_MAX_COLOR_BUFS; i++) {
        int si = sim_func_cbuf_surface(env->fn, i);
        if (si < 0) continue;
        const sim_surf *s = sim_func_surface(env->fn, si);
        uint32_t bpp = tbr_format_get_info(s->fmt)->bytes;
        uint64_t bytes = (uint64_t)s->w * s->h * bpp;
        if (a < s->base || a >= s->base + bytes) continue;
        /* a block straddling the surface's end, or pixels not whole in it: uncompressed */
        if (!s->mem.data || !bpp || a + 256 > s->base + bytes || 256 % bpp || (a - s->base) % bpp) return 4;
        return palette_lines(s->mem.data + (a - s->base), 256 / bpp, bpp);
    }
    return 4;
}

void imr_ru_init(raster_unit *r)
{
    sim_env *env = r->env;
    r->zrop = tbr_xcalloc(1, sizeof *r->zrop);
    r->crop = tbr_xcalloc(1, sizeof *r->crop);
    rop_cache_init(r->zrop, env, "z_cache", memsys_req(env->mem, r->zport), memsys_resp(env->mem, r->zport));
    rop_cache_init(r->crop, env, "color_cache", memsys_req(env->mem, r->cport), memsys_resp(env->mem, r->cport));
    r->imr_lookahead = (uint32_t)tbr_cfg_uint(env->cfg, "imr.miss_lookahead");
    early_z_use_rop(&r->ez, r->zrop, r->imr_lookahead);
    if (r->crop->compress) {
        r->crop->block_lines = color_block_lines;
        r->crop->wb_ctx = r;
    }
    bool test = tbr_cfg_bool(env->cfg, "imr.hierarchical_z");
    if (test || r->zrop->compress) { /* (compression reads Hi-Z's depth image) */
        r->hiz = tbr_xcalloc(1, sizeof *r->hiz);
        hiz_init(r->hiz, env, test);
        r->zrop->on_writeback = hiz_line_written; /* ATTILA: the Z unit updates HZ as it writes blocks */
        r->zrop->block_lines = hiz_block_lines;
        r->zrop->wb_ctx = r->hiz;
        early_z_use_hiz(&r->ez, r->hiz);
    }
}

void imr_ru_pass_start(raster_unit *r)
{
    if (!r->hiz) return;
    const sim_env *env = r->env;
    int zs = sim_func_zs_surface(env->fn);
    hiz_begin_pass(r->hiz, env->frame, env->pass, zs >= 0 ? sim_func_surface(env->fn, zs) : NULL);
}

void imr_ru_free(raster_unit *r)
{
    if (r->zrop) rop_cache_free(r->zrop);
    if (r->crop) rop_cache_free(r->crop);
    free(r->zrop);
    free(r->crop);
    if (r->hiz) hiz_free(r->hiz);
    free(r->hiz);
}

static void add_plane(rop_cache *c, const sim_surf *s, bool cleared)
{
    rop_cache_add_plane(c, s->base, s->w, s->h, tbr_format_get_info(s->fmt)->bytes, cleared);
}

/* Invalidation (docs/timing-model.md "Tile buffer loads", "IMR"): a plane the pass finds
 * undefined is read by no miss (as the tile load is skipped), a plane invalidated after the
 * pass's last write is not written back (as the tile store is skipped). */
void imr_ru_begin_pass(raster_unit *r, bool zs_dropped)
{
    const sim_env *env = r->env;
    const sim_pass *ps = &env->frame->passes[env->pass];
    rop_cache_begin_pass(r->zrop);
    rop_cache_begin_pass(r->crop);
    r->imr_zdone = 0;
    int zs = sim_func_zs_surface(env->fn);
    if (zs >= 0) {
        add_plane(r->zrop, sim_func_surface(env->fn, zs), ps->zs_cleared);
        if (env->pass_undefined_zs) rop_cache_plane_undefined(r->zrop);
        if (zs_dropped) rop_cache_plane_invalidated(r->zrop);
    }
    for (unsigned i = 0; i < ps->rp.nr_cbufs && i < TBR_MAX_COLOR_BUFS; i++) {
        int si = sim_func_cbuf_surface(env->fn, i);
        if (si < 0) continue;
        add_plane(r->crop, sim_func_surface(env->fn, si), (ps->color_cleared >> i) & 1u);
        if (env->pass_undefined_color & (1u << i)) rop_cache_plane_undefined(r->crop);
        if (r->pass_color_skip & (1u << i)) rop_cache_plane_invalidated(r->crop);
    }
}

/* Issue the misses of the quads queued behind the waiting one. */
static void lookahead(raster_unit *r, const sim_frame *f)
{
    const sim_queue *q = &r->color_q;
    for (uint32_t i = 1; i < q->count && i <= r->imr_lookahead; i++) {
        uint32_t tok = q->buf[(q->head + i) % q->cap];
        if (TOK_KIND(tok) != TOK_ITEM) break;
        const sim_quad *nq = &f->quads[TOK_VAL(tok)];
        const tbr_rec_draw *d = &f->draws[nq->draw].rec;
        if (!d->early_z && d->depth_enabled) rop_cache_prefetch(r->zrop, nq);
        rop_cache_prefetch(r->crop, nq);
    }
}

/* The quad's late Z (draws without early Z that test depth) and color write; false while
 * a cache is reading its lines. */
static bool quad_access(raster_unit *r, const sim_frame *f, uint32_t qi)
{
    const sim_quad *q = &f->quads[qi];
    const tbr_rec_draw *d = &f->draws[q->draw].rec;
    if (!d->early_z && d->depth_enabled && r->imr_zdone != qi + 1) {
        if (!rop_cache_access(r->zrop, q, d->depth_writemask && q->depth_mask)) return false;
        r->imr_zdone = qi + 1;
    }
    return rop_cache_access(r->crop, q, true);
}

static void pass_flushed(raster_unit *r, uint64_t end)
{
    tile_stats_tile_end(r->env->tiles, r->c_tile, end);
    r->tiles_done++;
    tbr_stat_inc(r->stats->tiles);
    tbr_stat_hsample(r->stats->tile_cycles, end - r->tile_start_cycle);
    r->tile_start_cycle = end;
}

/* Per quad the same counts as Blending under TBR (raster_unit.c blend_tick); the energy of
 * the Z and color caches' line accesses (no tile buffers under IMR). */
static void count_quad(raster_unit *r, const sim_frame *f, const sim_quad *q)
{
    const tbr_rec_draw *d = &f->draws[q->draw].rec;
    bool blended = (q->flags & TBR_REC_QUAD_BLENDED) && q->blend_mask;
    if (!d->early_z) {
        tbr_stat_inc(r->stats->q_late_z);
        if (d->depth_enabled)
            rop_cache_count_energy(r->zrop, q, r->stats->en.zcache, true, d->depth_writemask && q->depth_mask);
        tbr_energy_count(r->stats->en.ztest, TBR_EV_CMP, 4);
    }
    rop_cache_count_energy(r->crop, q, r->stats->en.ccache, blended, true);
    if (blended) {
        tbr_stat_inc(r->stats->q_blended);
        tbr_stat_add(r->stats->frag_blended, (uint64_t)__builtin_popcount(q->blend_mask));
    }
}

void imr_blend_tick(raster_unit *r)
{
    const sim_env *env = r->env;
    const uint64_t now = env->now, n = env->ncyc;
    const sim_frame *f = env->frame;
    rop_cache_tick(r->zrop);
    rop_cache_tick(r->crop);
    if (r->imr_flushing) {
        if (!rop_cache_flushing(r->zrop) && !rop_cache_flushing(r->crop)) {
            r->imr_flushing = false;
            pass_flushed(r, now + 1);
        }
        tbr_stat_add(r->b_stall, n);
        return;
    }
    uint32_t done = 0, tok;
    bool waiting = false;
    while (done < r->blend_qpc && simq_peek(&r->color_q, now, &tok)) {
        if (TOK_KIND(tok) == TOK_BEGIN) {
            r->c_tile = TOK_VAL(tok);
            simq_pop(&r->color_q);
            continue;
        }
        if (TOK_KIND(tok) == TOK_END) {
            simq_pop(&r->color_q);
            rop_cache_begin_flush(r->zrop);
            rop_cache_begin_flush(r->crop);
            r->imr_flushing = true;
            done++;
            break;
        }
        if (!quad_access(r, f, TOK_VAL(tok))) {
            lookahead(r, f);
            waiting = true;
            break;
        }
        count_quad(r, f, &f->quads[TOK_VAL(tok)]);
        simq_pop(&r->color_q);
        done++;
    }
    if (done)
        tbr_stat_inc(r->b_busy);
    else if (waiting)
        tbr_stat_add(r->b_stall, n);
    else
        tbr_stat_add(r->b_idle, n);
}

uint64_t imr_ru_next_event(const raster_unit *r)
{
    uint64_t now = r->env->now, ne = UINT64_MAX;
    if (r->imr_flushing) return now;
    GPU_EVENT_AT(ne, now, rop_cache_next_event(r->zrop));
    GPU_EVENT_AT(ne, now, rop_cache_next_event(r->crop));
    return ne;
}
