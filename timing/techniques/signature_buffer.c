/* Signature Buffer per render pass and render-target write history (see
 * signature_buffer.h; RE paper seeds/001 sec. III-E, IV-C; docs/techniques.md). */
#include "techniques/signature_buffer.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* ---------------- Signature Buffer ---------------- */

void sigbuf_free(sig_buffer *b)
{
    for (int i = 0; i < 3; i++) {
        for (uint32_t k = 0; k < b->f[i].cap; k++) {
            free(b->f[i].pass[k].sig);
            free(b->f[i].pass[k].ok);
        }
        free(b->f[i].pass);
    }
    memset(b, 0, sizeof *b);
}

void sigbuf_next_frame(sig_buffer *b)
{
    sig_frame_slots t = b->f[0];
    b->f[0] = b->f[1];
    b->f[1] = b->f[2];
    b->f[2] = t;
    b->f[2].npass = 0;
}

sig_slot *sigbuf_begin(sig_buffer *b, uint32_t target, uint32_t ntiles, uint64_t seq)
{
    sig_frame_slots *fr = &b->f[2];
    if (fr->npass == fr->cap) { /* slots grow with the passes of a frame; kept for reuse */
        uint32_t nc = fr->cap ? fr->cap * 2 : 4;
        fr->pass = tbr_xrealloc(fr->pass, nc * sizeof *fr->pass);
        memset(fr->pass + fr->cap, 0, (nc - fr->cap) * sizeof *fr->pass);
        fr->cap = nc;
    }
    uint32_t occ = 0;
    for (uint32_t k = 0; k < fr->npass; k++) occ += fr->pass[k].target == target;
    sig_slot *s = &fr->pass[fr->npass++];
    if (ntiles > s->cap) {
        s->cap = ntiles;
        s->sig = tbr_xrealloc(s->sig, ntiles * sizeof *s->sig);
        s->ok = tbr_xrealloc(s->ok, ntiles);
    }
    if (ntiles) memset(s->ok, 0, ntiles); /* (a pass of 0 pixels has no tiles and maybe no array yet) */
    s->ntiles = ntiles;
    s->target = target;
    s->occurrence = occ;
    s->seq = seq;
    s->valid = false;
    return s;
}

/* The reference frame is the one that last wrote the same buffer: the previous frame,
 * or the one before it when double-buffered (sec. IV-C); in it, the pass with the same
 * bound surfaces and the same rank among the passes binding them. */
const sig_slot *sigbuf_ref(const sig_buffer *b, const sig_slot *cur)
{
    const sig_frame_slots *fr = b->dbl ? &b->f[0] : &b->f[1];
    for (uint32_t k = 0; k < fr->npass; k++) {
        const sig_slot *r = &fr->pass[k];
        if (r->target == cur->target && r->occurrence == cur->occurrence)
            return r->valid && r->ntiles == cur->ntiles ? r : NULL;
    }
    return NULL;
}

/* ---------------- render-target write history ---------------- */

void rth_free(rt_history *h)
{
    free(h->w);
    free(h->prev_up);
    memset(h, 0, sizeof *h);
}

/* Write times: pass number s renders at 2s; what is written as the pass begins (the
 * tile events of surfaces it does not bind) is written at 2s - 1, before the pass
 * samples anything. */
#define AT_RENDER(seq) (2 * (seq))
#define AT_BEGIN(seq)  (2 * (seq)-1)

static void note_write(rt_history *h, uint32_t res, uint32_t level, uint32_t layer, uint64_t at)
{
    for (uint32_t i = 0; i < h->n; i++)
        if (h->w[i].res == res && h->w[i].level == level && h->w[i].layer == layer) {
            if (at > h->w[i].at) h->w[i].at = at;
            return;
        }
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 16;
        h->w = tbr_xrealloc(h->w, h->cap * sizeof *h->w);
    }
    h->w[h->n++] = (rt_write){res, level, layer, at};
}

/* An UPLOAD may come anywhere in its frame: it counts as a write just before the
 * frame's first pass and again just after its last one (the next frame's boundary), so
 * every pass of the frame compares as older and as newer than it. */
void rth_frame_begin(rt_history *h, const uint32_t *upload_res, size_t n)
{
    uint64_t boundary = AT_RENDER(++h->seq);
    for (size_t i = 0; i < h->nprev; i++) note_write(h, h->prev_up[i], UINT32_MAX, 0, boundary);
    if (n > h->cap_prev) {
        h->cap_prev = n;
        h->prev_up = tbr_xrealloc(h->prev_up, n * sizeof *h->prev_up);
    }
    h->nprev = n;
    for (size_t i = 0; i < n; i++) {
        h->prev_up[i] = upload_res[i];
        note_write(h, upload_res[i], UINT32_MAX, 0, boundary);
    }
}

static bool is_bound(const rt_history *h, uint32_t res, uint32_t level, uint32_t layer)
{
    for (uint32_t i = 0; i < h->nbound; i++)
        if (h->bound[i].res == res && h->bound[i].level == level && h->bound[i].layer == layer) return true;
    return false;
}

uint64_t rth_pass_begin(rt_history *h, const sim_func *fn, const sim_frame *f, size_t pass)
{
    uint64_t seq = ++h->seq;
    h->nbound = 0;
    for (unsigned i = 0; i <= TBR_MAX_COLOR_BUFS; i++) {
        int k = i < TBR_MAX_COLOR_BUFS ? fn->surf_cbuf[i] : fn->surf_zs;
        if (k < 0) continue;
        const sim_surf *s = &fn->surfs[k];
        h->bound[h->nbound++] = (rt_write){s->res, s->level, s->layer, AT_RENDER(seq)};
    }
    /* SURFACE_INIT bands are no writes: they give the simulator what memory held before
     * the window or since the surface's last UPLOAD (itself a write), docs/trace-records.md */
    /* sim_func_begin_pass applies the tile events of surfaces the pass does not bind at
     * once; a skipped tile restores only the bound surfaces */
    const sim_pass *ps = &f->passes[pass];
    for (uint32_t k = 0; k < ps->nitems; k++) {
        const sim_item *it = &f->items[ps->first_item + k];
        if (it->kind != SIM_ITEM_TILE) continue;
        const tbr_rec_tile *t = &f->tiles[it->idx].t;
        if (!is_bound(h, t->resource_id, t->level, t->layer))
            note_write(h, t->resource_id, t->level, t->layer, AT_BEGIN(seq));
    }
    return seq;
}

/* Last write of (res, level, layer), or of any of res's surfaces when level is UINT32_MAX. */
static uint64_t last_write(const rt_history *h, uint32_t res, uint32_t level, uint32_t layer)
{
    uint64_t last = 0;
    for (uint32_t i = 0; i < h->n; i++) {
        const rt_write *w = &h->w[i];
        if (w->res != res) continue;
        if (level != UINT32_MAX && w->level != UINT32_MAX && (w->level != level || w->layer != layer)) continue;
        if (w->at > last) last = w->at;
    }
    return last;
}

bool rth_bound_unwritten_since(const rt_history *h, uint64_t ref_seq)
{
    for (uint32_t i = 0; i < h->nbound; i++)
        if (last_write(h, h->bound[i].res, h->bound[i].level, h->bound[i].layer) > AT_RENDER(ref_seq)) return false;
    return true;
}

bool rth_samples_unwritten_since(const rt_history *h, const sim_frame *f, size_t pass, uint64_t ref_seq)
{
    const sim_pass *ps = &f->passes[pass];
    for (uint32_t k = 0; k < ps->ndraws; k++) {
        const tbr_rec_draw *d = &f->draws[ps->first_draw + k].rec;
        uint32_t nt = d->num_textures < TBR_REC_MAX_TEXTURES ? d->num_textures : TBR_REC_MAX_TEXTURES;
        for (uint32_t i = 0; i < nt; i++)
            if (last_write(h, d->textures[i].resource_id, UINT32_MAX, 0) >= AT_RENDER(ref_seq)) return false;
    }
    return true;
}

void rth_pass_end(rt_history *h, bool all_tiles_skipped)
{
    if (all_tiles_skipped) return;
    for (uint32_t i = 0; i < h->nbound; i++)
        note_write(h, h->bound[i].res, h->bound[i].level, h->bound[i].layer, h->bound[i].at);
}
