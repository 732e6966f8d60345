#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pictures.h"

static const pic_rgb BG = {24, 24, 24}, FG = {235, 235, 235}, GRID = {0, 0, 0};

int pic_heatmap_scale(unsigned width)
{
    int s = (int)(width / 400);
    return s < 1 ? 1 : s > 4 ? 4 : s;
}

int pic_heatmap_render(const tbr_image *bg, const pic_tile_grid *g, const char *metric, long frame, double range_min,
                       double range_max, tbr_image *out, unsigned *legend_y, char *err, size_t err_size)
{
    const unsigned W = bg->width, H = bg->height;
    const int s = pic_heatmap_scale(W), pad = 4 * s, th = pic_text_height(s), barh = 10 * s;
    size_t n = (size_t)g->cols * g->rows;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (!isnan(g->v[i])) {
            if (g->v[i] < lo) lo = g->v[i];
            if (g->v[i] > hi) hi = g->v[i];
        }
    if (!isnan(range_min)) lo = range_min;
    if (!isnan(range_max)) hi = range_max;
    if (isinf(lo)) lo = hi = 0;

    char title[256], lmin[32], lmax[32];
    snprintf(title, sizeof title, "%s - frame %ld", metric, frame);
    pic_fmt_number(lo, lmin, sizeof lmin);
    pic_fmt_number(hi, lmax, sizeof lmax);
    int gradw = 128 * s;
    int need = pic_text_width(title, s);
    int row2 = 0;
    if (g->categorical) {
        for (int c = 0; c < g->ncat; c++) row2 += barh + 2 * s + pic_text_width(g->cat_label[c], s) + 3 * pad;
    } else {
        row2 = pic_text_width(lmin, s) + pad + gradw + pad + pic_text_width(lmax, s);
    }
    if (row2 > need) need = row2;
    unsigned CW = W, LH = (unsigned)(3 * pad + th + barh + pad);
    if ((unsigned)(need + 2 * pad) > CW) CW = (unsigned)(need + 2 * pad);
    if (tbr_image_alloc(out, CW, H + LH)) {
        snprintf(err, err_size, "heatmap: cannot allocate %ux%u", CW, H + LH);
        return -1;
    }
    pic_fill(out, BG);
    for (unsigned y = 0; y < H; y++) {
        const uint8_t *src = bg->pixels + (size_t)y * bg->stride;
        uint8_t *dst = out->pixels + (size_t)y * out->stride;
        for (unsigned x = 0; x < W; x++) {
            dst[4 * x] = src[4 * x];
            dst[4 * x + 1] = src[4 * x + 1];
            dst[4 * x + 2] = src[4 * x + 2];
            dst[4 * x + 3] = 255;
        }
    }
    for (unsigned ty = 0; ty < g->rows; ty++)
        for (unsigned tx = 0; tx < g->cols; tx++) {
            double v = g->v[(size_t)ty * g->cols + tx];
            if (isnan(v)) continue;
            int x0 = (int)(tx * g->tile_w), y0 = (int)(ty * g->tile_h);
            if (x0 >= (int)W || y0 >= (int)H) continue;
            int w = (int)g->tile_w, h = (int)g->tile_h;
            if (x0 + w > (int)W) w = (int)W - x0;
            if (y0 + h > (int)H) h = (int)H - y0;
            pic_rgb c;
            if (g->categorical)
                c = pic_category_color((int)v);
            else
                c = pic_colormap(hi > lo ? (v - lo) / (hi - lo) : 0.0);
            pic_blend_rect(out, x0, y0, w, h, c, PIC_HEAT_ALPHA);
        }
    /* tile grid: 1-pixel lines on each tile's top and left edge, only for tiles >= 16 px */
    if (g->tile_w >= 16 && g->tile_h >= 16) {
        for (unsigned tx = 1; tx < g->cols; tx++) pic_blend_rect(out, (int)(tx * g->tile_w), 0, 1, (int)H, GRID, 64);
        for (unsigned ty = 1; ty < g->rows; ty++) pic_blend_rect(out, 0, (int)(ty * g->tile_h), (int)W, 1, GRID, 64);
    }
    /* legend */
    int ly = (int)H + pad;
    pic_text(out, pad, ly, title, s, FG);
    int y2 = ly + th + pad, x = pad;
    if (g->categorical) {
        for (int c = 0; c < g->ncat; c++) {
            pic_fill_rect(out, x, y2, barh, barh, pic_category_color(c));
            pic_rect_outline(out, x, y2, barh, barh, FG);
            x += barh + 2 * s;
            pic_text(out, x, y2 + (barh - th) / 2, g->cat_label[c], s, FG);
            x += pic_text_width(g->cat_label[c], s) + 3 * pad;
        }
    } else {
        pic_text(out, x, y2 + (barh - th) / 2, lmin, s, FG);
        x += pic_text_width(lmin, s) + pad;
        for (int i = 0; i < gradw; i++)
            pic_fill_rect(out, x + i, y2, 1, barh, pic_colormap(gradw > 1 ? (double)i / (gradw - 1) : 0));
        pic_rect_outline(out, x - 1, y2 - 1, gradw + 2, barh + 2, FG);
        x += gradw + pad;
        pic_text(out, x, y2 + (barh - th) / 2, lmax, s, FG);
    }
    if (legend_y) *legend_y = H;
    return 0;
}
