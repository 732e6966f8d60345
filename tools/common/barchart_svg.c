/* The bar chart as SVG (docs/tools-pictures.md "Charts"): the layout of pic_barchart_render,
 * with text as SVG text (crisp at any zoom, searchable) instead of the bitmap font. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pictures.h"

#define SVG_PLOT_H 300
#define SVG_BAR_W  28
#define SVG_FONT   13

static double svg_nice_step(double range)
{
    double raw = range / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}

void pic_xml_text(FILE *o, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", o);
        else if (*s == '>')
            fputs("&gt;", o);
        else if (*s == '&')
            fputs("&amp;", o);
        else if (*s == '"')
            fputs("&quot;", o);
        else
            fputc(*s, o);
    }
}

static void svg_value(const pic_chart *c, double v, char *buf, size_t n)
{
    if (c->normalized)
        snprintf(buf, n, "%.2f", v);
    else
        pic_fmt_number(v, buf, n);
}

/* Text width estimate (SVG has no text metrics before rendering): 0.62 em per character. */
static int svg_text_w(const char *s) { return (int)(strlen(s) * SVG_FONT * 0.62) + 1; }

/* The bars of group GI at X (its width GW), their value labels and the group label. */
static void svg_group(FILE *o, const pic_chart *c, int gi, int x, int gw, int y0, double ymax)
{
    char buf[64];
    int bx0 = x + (gw - c->nseries * SVG_BAR_W) / 2;
    for (int si = 0; si < c->nseries; si++) {
        double v = c->v[gi * c->nseries + si];
        if (isnan(v)) continue;
        double h = (v < 0 ? 0 : v) / ymax * SVG_PLOT_H;
        pic_rgb col = pic_category_color(si);
        int bx = bx0 + si * SVG_BAR_W;
        svg_value(c, v, buf, sizeof buf);
        fprintf(o,
                "<rect class=\"bar\" x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"#%02x%02x%02x\"><title>",
                bx + 2, y0 - h, SVG_BAR_W - 4, h, col.r, col.g, col.b);
        pic_xml_text(o, c->group[gi]);
        fputs(" / ", o);
        pic_xml_text(o, c->series[si]);
        fprintf(o, ": %s</title></rect>\n", buf);
        fprintf(o, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"%d\">%s</text>\n", bx + SVG_BAR_W / 2,
                y0 - h - 3, SVG_FONT - 4, buf);
    }
    fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", x + gw / 2, y0 + SVG_FONT + 6);
    pic_xml_text(o, c->group[gi]);
    fputs("</text>\n", o);
}

/* Axis ticks every nice step, grid lines, the reference line at 1 when normalised. */
static void svg_axis(FILE *o, const pic_chart *c, int ml, int plotw, int y0, double step, double ymax)
{
    char buf[64];
    for (int t = 0; t <= (int)lround(ymax / step); t++) {
        double y = y0 - t * step / ymax * SVG_PLOT_H;
        fprintf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"#dedede\"/>\n", ml, ml + plotw, y, y);
        if (c->normalized)
            snprintf(buf, sizeof buf, "%.2g", t * step);
        else
            svg_value(c, t * step, buf, sizeof buf);
        fprintf(o, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n", ml - 6, y + SVG_FONT / 3.0, buf);
    }
    if (c->normalized && ymax >= 1) {
        double y = y0 - 1.0 / ymax * SVG_PLOT_H;
        fprintf(o,
                "<line class=\"ref\" x1=\"%d\" x2=\"%d\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"#969696\" "
                "stroke-dasharray=\"3 3\"/>\n",
                ml, ml + plotw, y, y);
    }
    fprintf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#202020\"/>\n", ml, ml + plotw, y0, y0);
    fprintf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#202020\"/>\n", ml, ml, y0 - SVG_PLOT_H, y0);
}

int pic_barchart_svg(const pic_chart *c, FILE *o, pic_chart_layout *lay)
{
    double maxv = 0;
    for (int i = 0; i < c->ngroups * c->nseries; i++)
        if (!isnan(c->v[i]) && c->v[i] > maxv) maxv = c->v[i];
    if (maxv <= 0) maxv = 1;
    double step = svg_nice_step(maxv * 1.08), ymax = step * ceil(maxv * 1.08 / step);
    int ml = 70, mt = 2 * SVG_FONT + 24, y0 = mt + SVG_PLOT_H, plotw = SVG_BAR_W / 2, legw = 0;
    for (int gi = 0; gi < c->ngroups; gi++) {
        int w = (c->nseries + 1) * SVG_BAR_W, lw = svg_text_w(c->group[gi]) + 8;
        plotw += lw > w ? lw : w;
    }
    for (int si = 0; si < c->nseries; si++)
        if (svg_text_w(c->series[si]) + 20 > legw) legw = svg_text_w(c->series[si]) + 20;
    int width = ml + plotw + 12 + legw + 12, height = y0 + SVG_FONT + 20;
    if (width < svg_text_w(c->title ? c->title : "") + 20) width = svg_text_w(c->title ? c->title : "") + 20;
    fprintf(o,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"DejaVu Sans, sans-serif\" font-size=\"%d\">\n<rect width=\"%d\" height=\"%d\" "
            "fill=\"white\"/>\n",
            width, height, width, height, SVG_FONT, width, height);
    fprintf(o, "<text x=\"8\" y=\"%d\" font-size=\"%d\">", SVG_FONT + 6, SVG_FONT + 2);
    pic_xml_text(o, c->title ? c->title : "");
    fprintf(o, "</text>\n<text x=\"8\" y=\"%d\">", 2 * SVG_FONT + 14);
    pic_xml_text(o, c->ylabel ? c->ylabel : "");
    fputs("</text>\n", o);
    svg_axis(o, c, ml, plotw, y0, step, ymax);
    for (int gi = 0, x = ml + SVG_BAR_W / 2; gi < c->ngroups; gi++) {
        int w = (c->nseries + 1) * SVG_BAR_W, lw = svg_text_w(c->group[gi]) + 8, gw = lw > w ? lw : w;
        svg_group(o, c, gi, x, gw, y0, ymax);
        x += gw;
    }
    for (int si = 0, lx = ml + plotw + 12; si < c->nseries; si++) {
        pic_rgb col = pic_category_color(si);
        int ly = mt + si * (SVG_FONT + 8);
        fprintf(o,
                "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#%02x%02x%02x\"/><text x=\"%d\" y=\"%d\">",
                lx, ly, col.r, col.g, col.b, lx + 18, ly + 11);
        pic_xml_text(o, c->series[si]);
        fputs("</text>\n", o);
    }
    fputs("</svg>\n", o);
    if (lay) {
        lay->plot_top = y0 - SVG_PLOT_H;
        lay->plot_bottom = y0;
        lay->ymax = ymax;
    }
    return ferror(o) ? -1 : 0;
}

int pic_barchart_svg_file(const pic_chart *c, const char *path, char *err, size_t err_size)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *o = fopen(tmp, "w");
    if (!o) {
        snprintf(err, err_size, "%s: cannot write", tmp);
        return -1;
    }
    int bad = pic_barchart_svg(c, o, NULL);
    if (fclose(o) || bad || rename(tmp, path)) {
        snprintf(err, err_size, "%s: cannot write", path);
        remove(tmp);
        return -1;
    }
    return 0;
}
