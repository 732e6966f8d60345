/* Transaction Elimination and tile color snapshots (see transaction_elim.h). */
#include "techniques/transaction_elim.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc32.h"

typedef struct {
    unsigned x0, y0, x1, y1;
} rect;

static rect tile_rect(const sim_func *fn, const sim_surf *s, unsigned tx, unsigned ty)
{
    rect r = {tx * fn->tile_w, ty * fn->tile_h, (tx + 1) * fn->tile_w, (ty + 1) * fn->tile_h};
    if (r.x0 > s->w) r.x0 = s->w;
    if (r.y0 > s->h) r.y0 = s->h;
    if (r.x1 > s->w) r.x1 = s->w;
    if (r.y1 > s->h) r.y1 = s->h;
    return r;
}

static size_t bpp(const sim_surf *s)
{
    const tbr_format_info *fi = tbr_format_get_info(s->fmt);
    return fi ? fi->bytes : 0;
}

/* Visits every region of the tile: op 0 = packed color rows, 1 = float rows, 2 = zs rows.
 * fn_cb(ptr, bytes) for each row, in a fixed order (mem rows of all cbufs first). */
typedef void (*row_cb)(void *ctx, uint8_t *p, size_t n);

static void visit(const sim_func *fn, unsigned tx, unsigned ty, int what, row_cb cb, void *ctx)
{
    if (what == 2) {
        if (fn->surf_zs < 0) return;
        const sim_surf *s = &fn->surfs[fn->surf_zs];
        rect r = tile_rect(fn, s, tx, ty);
        for (unsigned y = r.y0; y < r.y1; y++)
            cb(ctx, (uint8_t *)(s->zs + (size_t)y * s->w + r.x0), (r.x1 - r.x0) * sizeof *s->zs);
        return;
    }
    for (unsigned i = 0; i < fn->tb.nr_cbufs && i < TBR_MAX_COLOR_BUFS; i++) {
        if (fn->surf_cbuf[i] < 0) continue;
        const sim_surf *s = &fn->surfs[fn->surf_cbuf[i]];
        rect r = tile_rect(fn, s, tx, ty);
        size_t b = bpp(s);
        for (unsigned y = r.y0; y < r.y1; y++) {
            if (what == 0)
                cb(ctx, s->mem.data + (size_t)y * s->mem.stride + (size_t)r.x0 * b, (r.x1 - r.x0) * b);
            else
                cb(ctx, (uint8_t *)(s->cache + ((size_t)y * s->w + r.x0) * 4), (r.x1 - r.x0) * 4 * sizeof(float));
        }
    }
}

typedef struct {
    tile_snap *s;
} take_ctx;
static void take_row(void *ctx, uint8_t *p, size_t n)
{
    tile_snap *s = ((take_ctx *)ctx)->s;
    if (s->len + n > s->cap) {
        s->cap = (s->len + n) * 2;
        s->buf = tbr_xrealloc(s->buf, s->cap);
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
}

void tile_snap_free(tile_snap *s)
{
    free(s->buf);
    memset(s, 0, sizeof *s);
}

void tile_snap_take(tile_snap *s, const sim_func *fn, unsigned tx, unsigned ty)
{
    take_ctx c = {s};
    s->len = 0;
    visit(fn, tx, ty, 0, take_row, &c);
    s->mem_len = s->len;
    visit(fn, tx, ty, 1, take_row, &c);
    visit(fn, tx, ty, 2, take_row, &c);
}

typedef struct {
    const tile_snap *s;
    size_t off;
    bool eq;
} put_ctx;
static void put_row(void *ctx, uint8_t *p, size_t n)
{
    put_ctx *c = ctx;
    memcpy(p, c->s->buf + c->off, n);
    c->off += n;
}
static void cmp_row(void *ctx, uint8_t *p, size_t n)
{
    put_ctx *c = ctx;
    if (memcmp(p, c->s->buf + c->off, n)) c->eq = false;
    c->off += n;
}

void tile_snap_restore(const tile_snap *s, sim_func *fn, unsigned tx, unsigned ty, bool colors_only)
{
    put_ctx c = {s, 0, true};
    visit(fn, tx, ty, 0, put_row, &c);
    if (colors_only) return;
    visit(fn, tx, ty, 1, put_row, &c);
    visit(fn, tx, ty, 2, put_row, &c);
}

bool tile_snap_colors_equal(const tile_snap *s, const sim_func *fn, unsigned tx, unsigned ty, bool packed_only)
{
    put_ctx c = {s, 0, true};
    visit(fn, tx, ty, 0, cmp_row, &c);
    if (!packed_only) visit(fn, tx, ty, 1, cmp_row, &c);
    return c.eq;
}

typedef struct {
    uint32_t crc;
    uint64_t len;
} crc_ctx;
static void crc_row(void *ctx, uint8_t *p, size_t n)
{
    crc_ctx *c = ctx;
    c->crc = tbr_crc32(c->crc, p, n);
    c->len += n;
}

uint32_t te_tile_color_crc(const sim_func *fn, unsigned tx, unsigned ty, uint64_t *subblocks, uint64_t *bytes)
{
    crc_ctx c = {0, 0};
    visit(fn, tx, ty, 0, crc_row, &c);
    static const uint8_t zero[8];
    if (c.len % 8) {
        size_t pad = 8 - c.len % 8;
        c.crc = tbr_crc32(c.crc, zero, pad);
        c.len += pad;
    }
    *subblocks = c.len / 8;
    *bytes = c.len;
    return c.crc;
}
