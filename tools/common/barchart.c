#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pictures.h"

static const pic_rgb WHITE = {255, 255, 255}, INK = {32, 32, 32}, GRIDC = {222, 222, 222}, REFC = {150, 150, 150};

static double nice_step(double range)
{
    double raw = range / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}

static void fmt_value(const pic_chart *c, double v, char *buf, size_t n)
{
    if (c->normalized)
        snprintf(buf, n, "%.2f", v);
    else
        pic_fmt_number(v, buf, n);
}

int pic_barchart_render(const pic_chart *c, tbr_image *out, pic_chart_layout *lay, char *err, size_t err_size)
{
    const int s = 2, pad = 6 * s, th = pic_text_height(s), BW = 26 * s, PH = 300;
    double maxv = 0;
    for (int i = 0; i < c->ngroups * c->nseries; i++)
        if (!isnan(c->v[i]) && c->v[i] > maxv) maxv = c->v[i];
    if (maxv <= 0) maxv = 1;
    double step = nice_step(maxv * 1.08);
    double ymax = step * ceil(maxv * 1.08 / step);
    int nticks = (int)lround(ymax / step);
    char buf[64];
    int tickw = 0;
    for (int t = 0; t <= nticks; t++) {
        fmt_value(c, t * step, buf, sizeof buf);
        if (c->normalized) snprintf(buf, sizeof buf, "%.2g", t * step);
        int w = pic_text_width(buf, s);
        if (w > tickw) tickw = w;
    }
    int ML = pad + th + pad + tickw + pad; /* rotated y label is written as a title line instead */
    int MT = pad + th + pad + th + pad;    /* title, y label */
    int gw[64], plotw = BW / 2;
    if (c->ngroups > 64) {
        snprintf(err, err_size, "bar chart: at most 64 groups");
        return -1;
    }
    for (int gi = 0; gi < c->ngroups; gi++) {
        int w = c->nseries * BW + BW;
        int lw = pic_text_width(c->group[gi], s) + 2 * s;
        gw[gi] = lw > w ? lw : w;
        plotw += gw[gi];
    }
    int legw = 0;
    for (int si = 0; si < c->nseries; si++) {
        int w = 8 * s + 3 * s + pic_text_width(c->series[si], s);
        if (w > legw) legw = w;
    }
    int titlew = pic_text_width(c->title ? c->title : "", s) + 2 * pad;
    int CW = ML + plotw + pad + legw + pad;
    if (CW < titlew) CW = titlew;
    int CH = MT + PH + pad + th + pad;
    if (tbr_image_alloc(out, (uint32_t)CW, (uint32_t)CH)) {
        snprintf(err, err_size, "bar chart: cannot allocate");
        return -1;
    }
    pic_fill(out, WHITE);
    int y0 = MT + PH; /* baseline row (axis) */
    if (c->title) pic_text(out, pad, pad, c->title, s, INK);
    if (c->ylabel) pic_text(out, pad, pad + th + pad, c->ylabel, s, INK);
    for (int t = 0; t <= nticks; t++) {
        int y = y0 - (int)lround(t * step / ymax * PH);
        if (t) pic_fill_rect(out, ML, y, plotw, 1, GRIDC);
        pic_fill_rect(out, ML - 2 * s, y, 2 * s, 1, INK);
        if (c->normalized)
            snprintf(buf, sizeof buf, "%.2g", t * step);
        else
            fmt_value(c, t * step, buf, sizeof buf);
        pic_text(out, ML - 3 * s - pic_text_width(buf, s), y - th / 2, buf, s, INK);
    }
    if (c->normalized && ymax >= 1) {
        int y = y0 - (int)lround(1.0 / ymax * PH);
        for (int x = ML; x < ML + plotw; x += 6) pic_fill_rect(out, x, y, 3, 1, REFC);
    }
    int gx = ML + BW / 2;
    for (int gi = 0; gi < c->ngroups; gi++) {
        int bx0 = gx + (gw[gi] - c->nseries * BW) / 2;
        for (int si = 0; si < c->nseries; si++) {
            double v = c->v[gi * c->nseries + si];
            if (isnan(v)) continue;
            int h = (int)lround((v < 0 ? 0 : v) / ymax * PH);
            int bx = bx0 + si * BW;
            pic_fill_rect(out, bx + s, y0 - h, BW - 2 * s, h, pic_category_color(si));
            fmt_value(c, v, buf, sizeof buf);
            int ls = pic_text_width(buf, s) <= BW ? s : 1;
            int lw = pic_text_width(buf, ls);
            pic_text(out, bx + (BW - lw) / 2, y0 - h - 2 * s - pic_text_height(ls), buf, ls, INK);
        }
        int lw = pic_text_width(c->group[gi], s);
        pic_text(out, gx + (gw[gi] - lw) / 2, y0 + pad, c->group[gi], s, INK);
        gx += gw[gi];
    }
    pic_fill_rect(out, ML, y0, plotw, 1, INK);      /* x axis */
    pic_fill_rect(out, ML - 1, MT, 1, PH + 1, INK); /* y axis */
    int lx = ML + plotw + pad, ly = MT;
    for (int si = 0; si < c->nseries; si++) {
        pic_fill_rect(out, lx, ly, 8 * s, 8 * s, pic_category_color(si));
        pic_text(out, lx + 8 * s + 3 * s, ly + (8 * s - th) / 2, c->series[si], s, INK);
        ly += 8 * s + 3 * s;
    }
    if (lay) {
        lay->plot_top = MT;
        lay->plot_bottom = y0;
        lay->ymax = ymax;
    }
    return 0;
}
