/* tbrsim: on-chip tile buffers, functionally equal to softpipe's tile cache entries
 * (sp_tile_cache.c, sp_clear.c, u_tile.c). Re-implemented, not copied. */
#include "tile_buffers.h"

#include <stdlib.h>
#include <string.h>

bool tbr_tile_init(tbr_tile_buffers *tb, unsigned w, unsigned h, unsigned nr_cbufs, const tbr_pixel_format *cformats,
                   tbr_pixel_format zsformat)
{
    memset(tb, 0, sizeof *tb);
    if (!w || !h || w > 4096 || h > 4096 || nr_cbufs > TBR_MAX_COLOR_BUFS) return false;
    tb->w = w;
    tb->h = h;
    tb->nr_cbufs = nr_cbufs;
    for (unsigned i = 0; i < nr_cbufs; i++) {
        tb->cformat[i] = cformats ? cformats[i] : TBR_PF_NONE;
        if (tb->cformat[i] == TBR_PF_NONE) continue;
        const tbr_format_info *info = tbr_format_get_info(tb->cformat[i]);
        if (!info || !info->is_color) goto fail;
        tb->color[i] = calloc((size_t)w * h * 4, sizeof(float));
        if (!tb->color[i]) goto fail;
    }
    tb->zsformat = zsformat;
    if (zsformat != TBR_PF_NONE) {
        const tbr_format_info *info = tbr_format_get_info(zsformat);
        if (!info || info->is_color) goto fail;
        tb->zs = calloc((size_t)w * h, sizeof(uint64_t));
        if (!tb->zs) goto fail;
    }
    return true;
fail:
    tbr_tile_free(tb);
    return false;
}

void tbr_tile_free(tbr_tile_buffers *tb)
{
    for (unsigned i = 0; i < TBR_MAX_COLOR_BUFS; i++) free(tb->color[i]);
    free(tb->zs);
    memset(tb, 0, sizeof *tb);
}

void tbr_tile_set_origin(tbr_tile_buffers *tb, int x0, int y0)
{
    tb->x0 = x0;
    tb->y0 = y0;
}

float *tbr_tile_color_at(tbr_tile_buffers *tb, unsigned cbuf, int x, int y)
{
    if (cbuf >= TBR_MAX_COLOR_BUFS || !tb->color[cbuf] || x < 0 || y < 0 || (unsigned)x >= tb->w ||
        (unsigned)y >= tb->h)
        return NULL;
    return tb->color[cbuf] + ((size_t)y * tb->w + (unsigned)x) * 4;
}

uint64_t *tbr_tile_zs_at(tbr_tile_buffers *tb, int x, int y)
{
    if (!tb->zs || x < 0 || y < 0 || (unsigned)x >= tb->w || (unsigned)y >= tb->h) return NULL;
    return tb->zs + (size_t)y * tb->w + (unsigned)x;
}

/* ---- clear ---- */

void tbr_tile_clear_color(tbr_tile_buffers *tb, unsigned cbuf, const float rgba[4])
{
    tbr_tile_clear_color_rect(tb, cbuf, rgba, tb->x0, tb->y0, tb->w, tb->h);
}

void tbr_tile_clear_zs(tbr_tile_buffers *tb, double depth, uint8_t stencil)
{
    if (!tb->zs) return;
    const uint64_t v = tbr_pack_z_stencil_clear(tb->zsformat, depth, stencil);
    const size_t n = (size_t)tb->w * tb->h;
    for (size_t i = 0; i < n; i++) tb->zs[i] = v;
}

bool tbr_tile_zs_clear_op(const tbr_tile_buffers *tb, bool clear_depth, bool clear_stencil, double depth,
                          uint8_t stencil, uint64_t *mask, uint64_t *value)
{
    if (!tb->zs || (!clear_depth && !clear_stencil)) return false;
    const tbr_format_info *info = tbr_format_get_info(tb->zsformat);
    const uint64_t v = tbr_pack_z_stencil_clear(tb->zsformat, depth, stencil);
    if (!(info->has_depth && info->has_stencil) || (clear_depth && clear_stencil)) {
        *mask = ~(uint64_t)0; /* softpipe_clear's lazy full clear: every word = v */
        *value = v;
        return true;
    }
    /* util_fill_zs_box: 4-byte formats keep ~mask of the old word; 8-byte
   * Z32_FLOAT_S8X24: keep everything but the 32 depth bits / the 8 stencil bits. */
    *mask = clear_depth ? tbr_zs_depth_bits(tb->zsformat) : tbr_zs_stencil_bits(tb->zsformat);
    *value = v & *mask;
    return true;
}

void tbr_tile_zs_apply(tbr_tile_buffers *tb, uint64_t mask, uint64_t value)
{
    if (!tb->zs || !mask) return;
    const size_t n = (size_t)tb->w * tb->h;
    uint64_t *zs = tb->zs;
    value &= mask;
    if (mask == ~(uint64_t)0) {
        for (size_t i = 0; i < n; i++) zs[i] = value;
        return;
    }
    for (size_t i = 0; i < n; i++) zs[i] = (zs[i] & ~mask) | value;
}

void tbr_tile_clear_zs_masked(tbr_tile_buffers *tb, bool clear_depth, bool clear_stencil, double depth, uint8_t stencil)
{
    uint64_t m, v;
    if (tbr_tile_zs_clear_op(tb, clear_depth, clear_stencil, depth, stencil, &m, &v)) tbr_tile_zs_apply(tb, m, v);
}

/* ---- load / store ---- */

/* Intersection of the screen rectangle (x, y, w, h) with the tile and, if s != NULL,
 * with the surface (u_clip_tile). Result in screen coordinates [*x0, *x1) x [*y0, *y1). */
static bool isect(const tbr_tile_buffers *tb, const tbr_surface *s, int x, int y, unsigned w, unsigned h, long *x0,
                  long *y0, long *x1, long *y1)
{
    long ax0 = x, ay0 = y, ax1 = (long)x + (long)w, ay1 = (long)y + (long)h;
    if (ax0 < tb->x0) ax0 = tb->x0;
    if (ay0 < tb->y0) ay0 = tb->y0;
    if (ax1 > (long)tb->x0 + (long)tb->w) ax1 = (long)tb->x0 + (long)tb->w;
    if (ay1 > (long)tb->y0 + (long)tb->h) ay1 = (long)tb->y0 + (long)tb->h;
    if (s) {
        if (ax0 < 0) ax0 = 0;
        if (ay0 < 0) ay0 = 0;
        if (ax1 > (long)s->width) ax1 = (long)s->width;
        if (ay1 > (long)s->height) ay1 = (long)s->height;
    }
    *x0 = ax0;
    *y0 = ay0;
    *x1 = ax1;
    *y1 = ay1;
    return ax0 < ax1 && ay0 < ay1;
}

static float *cpix(const tbr_tile_buffers *tb, unsigned cbuf, long sx, long sy)
{
    return tb->color[cbuf] + ((size_t)(sy - tb->y0) * tb->w + (size_t)(sx - tb->x0)) * 4;
}

static uint8_t *spix(const tbr_surface *s, long sx, long sy, unsigned bpp)
{
    return s->data + (size_t)sy * s->stride + (size_t)sx * bpp;
}

static bool color_ok(const tbr_tile_buffers *tb, unsigned cbuf, const tbr_surface *s)
{
    return cbuf < TBR_MAX_COLOR_BUFS && tb->color[cbuf] && (!s || s->format == tb->cformat[cbuf]);
}

void tbr_tile_clear_color_rect(tbr_tile_buffers *tb, unsigned cbuf, const float rgba[4], int x, int y, unsigned w,
                               unsigned h)
{
    long x0, y0, x1, y1;
    if (!color_ok(tb, cbuf, NULL) || !isect(tb, NULL, x, y, w, h, &x0, &y0, &x1, &y1)) return;
    /* clear_tile_rgba: an all-zero color (-0.0 included) is a memset to +0.0 */
    const bool zero = rgba[0] == 0.0f && rgba[1] == 0.0f && rgba[2] == 0.0f && rgba[3] == 0.0f;
    static const float z4[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (long sx = x0; sx < x1; sx++) /* first row, then copies of it */
        memcpy(cpix(tb, cbuf, sx, y0), zero ? z4 : rgba, 4 * sizeof(float));
    for (long sy = y0 + 1; sy < y1; sy++)
        memcpy(cpix(tb, cbuf, x0, sy), cpix(tb, cbuf, x0, y0), (size_t)(x1 - x0) * 4 * sizeof(float));
}

bool tbr_tile_store_uniform_color_rect(const tbr_tile_buffers *tb, unsigned cbuf, tbr_surface *s, int x, int y,
                                       unsigned w, unsigned h)
{
    if (!color_ok(tb, cbuf, s)) return false;
    const unsigned bpp = tbr_format_get_info(s->format)->bytes;
    long x0, y0, x1, y1;
    if (!isect(tb, s, x, y, w, h, &x0, &y0, &x1, &y1)) return true;
    uint8_t px[16]; /* every pixel holds the same floats: pack once, copy */
    tbr_pack_rgba_float(s->format, cpix(tb, cbuf, x0, y0), px);
    for (long sx = x0; sx < x1; sx++) memcpy(spix(s, sx, y0, bpp), px, bpp);
    for (long sy = y0 + 1; sy < y1; sy++) memcpy(spix(s, x0, sy, bpp), spix(s, x0, y0, bpp), (size_t)(x1 - x0) * bpp);
    return true;
}

bool tbr_tile_load_color_rect(tbr_tile_buffers *tb, unsigned cbuf, const tbr_surface *s, int x, int y, unsigned w,
                              unsigned h)
{
    if (!color_ok(tb, cbuf, s)) return false;
    const unsigned bpp = tbr_format_get_info(s->format)->bytes;
    long x0, y0, x1, y1;
    if (isect(tb, s, x, y, w, h, &x0, &y0, &x1, &y1))
        for (long sy = y0; sy < y1; sy++) /* rows are contiguous in both */
            tbr_unpack_rgba_float_row(s->format, spix(s, x0, sy, bpp), (size_t)(x1 - x0), cpix(tb, cbuf, x0, sy));
    return true;
}

bool tbr_tile_store_color_rect(const tbr_tile_buffers *tb, unsigned cbuf, tbr_surface *s, int x, int y, unsigned w,
                               unsigned h)
{
    if (!color_ok(tb, cbuf, s)) return false;
    const unsigned bpp = tbr_format_get_info(s->format)->bytes;
    long x0, y0, x1, y1;
    if (isect(tb, s, x, y, w, h, &x0, &y0, &x1, &y1))
        for (long sy = y0; sy < y1; sy++) /* rows are contiguous in both */
            tbr_pack_rgba_float_row(s->format, cpix(tb, cbuf, x0, sy), (size_t)(x1 - x0), spix(s, x0, sy, bpp));
    return true;
}

void tbr_tile_requantize_color_rect(tbr_tile_buffers *tb, unsigned cbuf, int x, int y, unsigned w, unsigned h)
{
    long x0, y0, x1, y1;
    if (!color_ok(tb, cbuf, NULL) || !isect(tb, NULL, x, y, w, h, &x0, &y0, &x1, &y1)) return;
    uint8_t tmp[16];
    for (long sy = y0; sy < y1; sy++)
        for (long sx = x0; sx < x1; sx++) {
            float *c = cpix(tb, cbuf, sx, sy);
            tbr_pack_rgba_float(tb->cformat[cbuf], c, tmp);
            tbr_unpack_rgba_float(tb->cformat[cbuf], tmp, c);
        }
}

bool tbr_tile_load_color(tbr_tile_buffers *tb, unsigned cbuf, const tbr_surface *s)
{
    return tbr_tile_load_color_rect(tb, cbuf, s, tb->x0, tb->y0, tb->w, tb->h);
}

bool tbr_tile_store_color(const tbr_tile_buffers *tb, unsigned cbuf, tbr_surface *s)
{
    return tbr_tile_store_color_rect(tb, cbuf, s, tb->x0, tb->y0, tb->w, tb->h);
}

bool tbr_tile_load_zs(tbr_tile_buffers *tb, const tbr_surface *s)
{
    if (!tb->zs || s->format != tb->zsformat) return false;
    const unsigned bpp = tbr_format_get_info(s->format)->bytes;
    long x0, y0, x1, y1;
    if (isect(tb, s, tb->x0, tb->y0, tb->w, tb->h, &x0, &y0, &x1, &y1))
        for (long sy = y0; sy < y1; sy++)
            for (long sx = x0; sx < x1; sx++)
                tb->zs[(size_t)(sy - tb->y0) * tb->w + (size_t)(sx - tb->x0)] =
                    tbr_zs_read_raw(s->format, spix(s, sx, sy, bpp));
    return true;
}

bool tbr_tile_store_zs(const tbr_tile_buffers *tb, tbr_surface *s)
{
    if (!tb->zs || s->format != tb->zsformat) return false;
    const unsigned bpp = tbr_format_get_info(s->format)->bytes;
    long x0, y0, x1, y1;
    if (isect(tb, s, tb->x0, tb->y0, tb->w, tb->h, &x0, &y0, &x1, &y1))
        for (long sy = y0; sy < y1; sy++)
            for (long sx = x0; sx < x1; sx++)
                tbr_zs_write_raw(s->format, tb->zs[(size_t)(sy - tb->y0) * tb->w + (size_t)(sx - tb->x0)],
                                 spix(s, sx, sy, bpp));
    return true;
}

void tbr_tile_requantize_color(tbr_tile_buffers *tb, unsigned cbuf)
{
    tbr_tile_requantize_color_rect(tb, cbuf, tb->x0, tb->y0, tb->w, tb->h);
}

/* ---- quad operations ---- */

unsigned tbr_tile_ds_quad(tbr_tile_buffers *tb, const tbr_dsa_state *st, int x, int y, const tbr_ds_quad *q)
{
    uint64_t zs[4] = {0, 0, 0, 0};
    uint64_t *p[4];
    const bool have_zs = tb->zs != NULL;
    for (int j = 0; j < 4; j++) {
        p[j] = have_zs ? tbr_tile_zs_at(tb, x - tb->x0 + (j & 1), y - tb->y0 + (j >> 1)) : NULL;
        if (p[j]) zs[j] = *p[j];
    }
    unsigned mask = tbr_ds_test_quad(st, tb->zsformat, have_zs, q, zs);
    for (int j = 0; j < 4; j++)
        if (p[j]) *p[j] = zs[j];
    return mask;
}

void tbr_tile_ds_z16_fast_batch(tbr_tile_buffers *tb, tbr_compare_func func, float a0, float dzdx, float dzdy,
                                const int *x, const int *y, unsigned *masks, unsigned nr)
{
    if (tb->zsformat != TBR_PF_Z16_UNORM || !tb->zs) return;
    /* same algorithm as tbr_ds_z16_fast_batch, on the tile's raw words */
    if (!nr) return;
    const int ix = x[0], iy = y[0];
    float z[4];
    tbr_interpolate_quad_depth(a0, dzdx, dzdy, ix, iy, z);
    uint16_t init[4];
    for (int j = 0; j < 4; j++) init[j] = tbr_x86_f2u16(z[j] * 65535.0f);
    const uint16_t step = tbr_x86_f2u16(dzdx * 65535.0f);
    for (unsigned i = 0; i < nr; i++) {
        const int dx = x[i] - ix;
        unsigned m = 0;
        for (int j = 0; j < 4; j++) {
            const uint16_t idepth = (uint16_t)(uint32_t)((int)init[j] + dx * (int)step);
            uint64_t *p = tbr_tile_zs_at(tb, ix + dx + (j & 1) - tb->x0, iy + (j >> 1) - tb->y0);
            if (!(masks[i] & (1u << j)) || !p) continue;
            const uint16_t cur = (uint16_t)*p;
            if (tbr_depth_compare(TBR_PF_Z16_UNORM, func, idepth, cur) || func == TBR_FUNC_ALWAYS) {
                *p = idepth;
                m |= 1u << j;
            }
        }
        masks[i] = m;
    }
}

void tbr_tile_blend_quad(tbr_tile_buffers *tb, const tbr_blend_state *bs, tbr_blend_path path, int x, int y,
                         unsigned mask, const float (*colors)[4][4], unsigned ncolors)
{
    if (path == TBR_BLEND_PATH_NOOP || ncolors == 0) return;
    const unsigned ncb = tbr_blend_path_cbufs(path, tb->nr_cbufs);
    for (unsigned cb = 0; cb < ncb; cb++) {
        if (!tb->color[cb]) continue;
        const unsigned ci = bs->fs_color0_writes_all_cbufs ? 0 : cb;
        if (ci >= ncolors) continue;
        const bool dual = path == TBR_BLEND_PATH_FALLBACK && !bs->fs_color0_writes_all_cbufs &&
                          tbr_blend_is_dual(bs, cb) && cb + 1 < ncolors;
        for (int j = 0; j < 4; j++) {
            if (!(mask & (1u << j))) continue;
            float *d = tbr_tile_color_at(tb, cb, x - tb->x0 + (j & 1), y - tb->y0 + (j >> 1));
            if (!d) continue;
            float src[4], src1[4], out[4];
            for (int c = 0; c < 4; c++) {
                src[c] = colors[ci][c][j];
                src1[c] = dual ? colors[cb + 1][c][j] : 0.0f;
            }
            tbr_blend_pixel(bs, path, cb, tb->cformat[cb], src, dual ? src1 : NULL, d, out);
            memcpy(d, out, sizeof out);
        }
    }
}
