/* Hierarchical Z of the IMR organisation (hiz.h; ATTILA, seeds/004 sec. 2, Table 1). */
#include "imr/hiz.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "depth_stencil.h"

#define UNKNOWN UINT32_MAX

void hiz_init(hiz *h, sim_env *env, bool test)
{
    memset(h, 0, sizeof *h);
    h->test = test;
    h->block = (uint32_t)tbr_cfg_uint(env->cfg, "imr.hiz.block_size");
    h->capacity_blocks = (uint32_t)tbr_cfg_uint(env->cfg, "imr.hiz.capacity_blocks");
    if (!test) return; /* the depth image only (depth compression): no Hi-Z statistics */
#define C(field, name, desc) h->field = tbr_stats_counter(env->st, "imr.hiz." name, desc)
    C(tested, "quads_tested", "quads of draws whose depth test Hi-Z decides (LESS/LEQUAL/EQUAL, no stencil)");
    C(rejected, "quads_rejected", "quads Hi-Z rejected before Early-Z (every covered fragment fails the depth test)");
    C(lines_saved, "z_line_accesses_saved", "Z cache line accesses the rejected quads did not make");
    C(updates, "block_updates", "Hi-Z blocks set to their maximum depth at a Z cache write-back");
    C(invalidations, "block_invalidations",
      "Hi-Z blocks made unknown by a depth write that may raise depth (GREATER, GEQUAL, NOTEQUAL, ALWAYS)");
    C(contradictions, "contradictions",
      "quads Hi-Z would reject whose fragments the trace says passed (a model error; not rejected)");
    C(passes_off, "passes_off", "passes with a depth plane run without Hi-Z (a depth clear after a quad, or partial)");
#undef C
}

void hiz_free(hiz *h)
{
    free(h->depth);
    free(h->zmax);
}

/* Order-preserving key of a depth value in the buffer's encoding (integer formats: the
 * value; Z32_FLOAT: the float's bits made unsigned-sortable, -0 as +0). */
static inline uint32_t depth_key(int fmt, uint32_t z)
{
    if (fmt != TBR_PF_Z32_FLOAT && fmt != TBR_PF_Z32_FLOAT_S8X24_UINT) return z;
    if (z == 0x80000000u) z = 0;
    return (z & 0x80000000u) ? ~z : z | 0x80000000u;
}

/* How the pass's CLEAR items touch depth: 0 none, 1 one full clear before any quad (its
 * packed value in *packed), -1 a depth clear Hi-Z cannot follow (after a quad, scissored). */
static int pass_depth_clear(const sim_frame *f, const sim_pass *ps, uint64_t *packed)
{
    int r = 0;
    bool quad_seen = false;
    for (uint32_t i = 0; i < ps->nitems; i++) {
        const sim_item *it = &f->items[ps->first_item + i];
        if (it->kind == SIM_ITEM_QUAD) quad_seen = true;
        if (it->kind != SIM_ITEM_CLEAR) continue;
        const tbr_rec_clear *cl = &f->clears[it->idx];
        if (!(cl->buffers & 1u)) continue;           /* PIPE_CLEAR_DEPTH */
        if (quad_seen || cl->has_scissor) return -1; /* (zs_partial: the stencil bits are kept) */
        *packed = cl->zs_packed;
        r = 1;
    }
    return r;
}

static void *grow(void *p, size_t *cap, size_t n, size_t elem)
{
    if (n <= *cap) return p;
    free(p);
    *cap = n;
    return tbr_xcalloc(n, elem);
}

static void set_all(uint32_t *a, size_t n, uint32_t v)
{
    for (size_t i = 0; i < n; i++) a[i] = v;
}

void hiz_begin_pass(hiz *h, const sim_frame *f, size_t pass, const sim_surf *zs)
{
    h->active = false;
    if (!zs || !zs->zs) {
        h->kept_base = 0;
        return;
    }
    const sim_pass *ps = &f->passes[pass];
    uint64_t packed = 0;
    int clear = pass_depth_clear(f, ps, &packed);
    bool same = h->kept_base == zs->base && h->kept_w == zs->w && h->kept_h == zs->h;
    h->kept_base = 0;
    if (clear < 0) {
        if (h->test) tbr_stat_inc(h->passes_off);
        return;
    }
    h->fmt = zs->fmt;
    h->w = zs->w;
    h->h = zs->h;
    h->bpp = tbr_format_get_info(zs->fmt)->bytes;
    h->base = zs->base;
    h->bytes = (uint64_t)zs->w * zs->h * h->bpp;
    h->bw = (zs->w + h->block - 1) / h->block;
    h->bh = (zs->h + h->block - 1) / h->block;
    size_t npx = (size_t)zs->w * zs->h, nb = (size_t)h->bw * h->bh;
    h->depth = grow(h->depth, &h->cap_depth, npx, sizeof *h->depth);
    uint32_t *keep = same ? h->zmax : NULL;
    if (!same) h->zmax = grow(h->zmax, &h->cap_zmax, nb, sizeof *h->zmax);
    uint32_t z;
    uint8_t s;
    if (clear) {
        tbr_zs_split(zs->fmt, packed, &z, &s);
        set_all(h->depth, npx, depth_key(h->fmt, z));
        set_all(h->zmax, nb, depth_key(h->fmt, z));
    } else {
        for (size_t i = 0; i < npx; i++) {
            tbr_zs_split(zs->fmt, zs->zs[i], &z, &s);
            h->depth[i] = depth_key(h->fmt, z);
        }
        if (!keep) set_all(h->zmax, nb, UNKNOWN);
    }
    h->kept_base = zs->base;
    h->kept_w = zs->w;
    h->kept_h = zs->h;
    h->active = true;
}

/* Every covered fragment of q fails `func` against the block bound zmax. */
static bool quad_fails(const hiz *h, const sim_quad *q, uint32_t func, uint32_t zmax)
{
    if (!q->in_mask || zmax == UNKNOWN) return false;
    for (uint32_t j = 0; j < 4; j++) {
        if (!(q->in_mask & (1u << j))) continue;
        uint32_t k = depth_key(h->fmt, q->z[j]);
        if (func == TBR_FUNC_LESS ? k < zmax : k <= zmax) return false;
    }
    return true;
}

/* The quad's depth writes (the trace's passing fragments), in submission order; a write
 * that may raise depth makes the block unknown. */
static void record_writes(hiz *h, const tbr_rec_draw *d, const sim_quad *q, uint32_t blk)
{
    if (!d->depth_enabled || !d->depth_writemask || !(q->flags & TBR_REC_QUAD_DEPTH_OUT) || !q->depth_mask) return;
    bool lowers = d->depth_func == TBR_FUNC_LESS || d->depth_func == TBR_FUNC_LEQUAL || d->depth_func == TBR_FUNC_EQUAL;
    bool has_z = (q->flags & TBR_REC_QUAD_HAS_Z) != 0;
    for (uint32_t j = 0; j < 4; j++) {
        uint32_t x = (uint32_t)q->x + (j & 1u), y = (uint32_t)q->y + (j >> 1);
        if (!(q->depth_mask & (1u << j)) || x >= h->w || y >= h->h) continue;
        h->depth[(size_t)y * h->w + x] = has_z ? depth_key(h->fmt, q->z[j]) : UNKNOWN;
    }
    if (h->test && (!lowers || !has_z) && h->zmax[blk] != UNKNOWN) {
        h->zmax[blk] = UNKNOWN;
        tbr_stat_inc(h->invalidations);
    }
}

bool hiz_quad(hiz *h, const sim_frame *f, const sim_quad *q, uint32_t z_lines)
{
    if (!h->active || q->x < 0 || q->y < 0 || (uint32_t)q->x >= h->w || (uint32_t)q->y >= h->h) return false;
    const tbr_rec_draw *d = &f->draws[q->draw].rec;
    uint32_t blk = ((uint32_t)q->y / h->block) * h->bw + (uint32_t)q->x / h->block;
    bool decides =
        h->test && d->depth_enabled && !d->stencil[0].enabled && !d->stencil[1].enabled && !d->fs_writes_z &&
        (q->flags & TBR_REC_QUAD_HAS_Z) && blk < h->capacity_blocks &&
        (d->depth_func == TBR_FUNC_LESS || d->depth_func == TBR_FUNC_LEQUAL || d->depth_func == TBR_FUNC_EQUAL);
    if (decides) {
        tbr_stat_inc(h->tested);
        if (quad_fails(h, q, d->depth_func, h->zmax[blk])) {
            if (!((q->flags & TBR_REC_QUAD_DEPTH_OUT) && q->depth_mask)) {
                tbr_stat_inc(h->rejected);
                tbr_stat_add(h->lines_saved, z_lines);
                return true;
            }
            tbr_stat_inc(h->contradictions);
        }
    }
    record_writes(h, d, q, blk);
    return false;
}

/* Block (bx, by)'s maximum depth key. */
static uint32_t block_max(const hiz *h, uint32_t bx, uint32_t by)
{
    uint32_t x0 = bx * h->block, y0 = by * h->block, m = 0;
    uint32_t x1 = x0 + h->block < h->w ? x0 + h->block : h->w, y1 = y0 + h->block < h->h ? y0 + h->block : h->h;
    for (uint32_t y = y0; y < y1; y++) {
        const uint32_t *row = &h->depth[(size_t)y * h->w];
        for (uint32_t x = x0; x < x1; x++)
            if (row[x] > m) m = row[x];
    }
    return m;
}

void hiz_line_written(void *ctx, uint64_t a, uint32_t bytes)
{
    hiz *h = ctx;
    if (!h->active || !h->test) return;
    if (a + bytes <= h->base || a >= h->base + h->bytes) return;
    uint64_t p0 = a > h->base ? (a - h->base) / h->bpp : 0;
    uint64_t p1 = (a + bytes - h->base + h->bpp - 1) / h->bpp; /* one past the last pixel */
    if (p1 > (uint64_t)h->w * h->h) p1 = (uint64_t)h->w * h->h;
    for (uint64_t p = p0; p < p1;) {
        uint32_t y = (uint32_t)(p / h->w), x = (uint32_t)(p % h->w);
        uint32_t bx = x / h->block, by = y / h->block, blk = by * h->bw + bx;
        if (blk < h->capacity_blocks) {
            h->zmax[blk] = block_max(h, bx, by);
            tbr_stat_inc(h->updates);
        }
        uint64_t next_block = (uint64_t)y * h->w + (bx + 1) * h->block; /* first pixel of the next block in the row */
        if ((bx + 1) * h->block >= h->w) next_block = (uint64_t)(y + 1) * h->w;
        p = next_block;
    }
}

/* ATTILA's depth compressor (seeds/004 sec. 2 "depth compression"; its public simulator's
 * Hilo levels): a 256-B block of 64 32-bit words is stored in 64, 128 or 192 B when the
 * high 27, 19 or 11 bits of every word are one of 4 references (the block's minimum and
 * maximum high parts and their neighbours toward each other), else in 256 B. */
static bool hilo_fits(const uint32_t *v, uint32_t n, uint32_t low_bits)
{
    uint32_t mn = UINT32_MAX, mx = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t hi = v[i] >> low_bits;
        mn = hi < mn ? hi : mn;
        mx = hi > mx ? hi : mx;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t hi = v[i] >> low_bits;
        if (hi != mn && hi != mx && hi != mn + 1 && hi != mx - 1) return false;
    }
    return true;
}

uint32_t hiz_block_lines(void *ctx, uint64_t a)
{
    const hiz *h = ctx;
    static const uint32_t low_bits[3] = {5, 13, 21};
    if (!h->active || h->bpp != 4 || a < h->base || a + 256 > h->base + h->bytes) return 4;
    uint32_t v[64];
    const uint32_t *px = &h->depth[(a - h->base) / 4];
    bool high_z = h->fmt == TBR_PF_S8_UINT_Z24_UNORM || h->fmt == TBR_PF_X8Z24_UNORM; /* depth in bits 8-31 */
    for (uint32_t i = 0; i < 64; i++) v[i] = high_z && px[i] != UNKNOWN ? px[i] << 8 : px[i];
    for (uint32_t k = 0; k < 3; k++)
        if (hilo_fits(v, 64, low_bits[k])) return k + 1;
    return 4;
}
