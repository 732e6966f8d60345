/* The summary table and the study's charts: one SVG per statistic, bars per workload and
 * configuration normalised to the normalize configuration (the documents' figures), and
 * an HTML page with the table. Text stays text (SVG <text>), written through temp names. */
#include "charts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cell of workload W and the normalize configuration (default: the first). */
static const sw_cell_result *base_of(const sweep_plan *pl, const sw_cell_result *res, size_t w)
{
    size_t c = 0;
    for (size_t i = 0; pl->sf.normalize && i < pl->sf.nconfigs; i++)
        if (!strcmp(pl->sf.configs[i].name, pl->sf.normalize)) c = i;
    return &res[w * pl->sf.nconfigs + c];
}

/* RES's statistic S normalised to its workload's base; NAN when either is missing or 0. */
static double normalised(const sweep_plan *pl, const sw_cell_result *res, size_t cell, size_t s)
{
    const sw_cell_result *b = base_of(pl, res, pl->cells[cell].w);
    if (res[cell].state != ST_DONE || b->state != ST_DONE || b->stat[s] == 0) return NAN;
    return res[cell].stat[s] / b->stat[s];
}

/* One summary cell: normalised, or the raw value marked '=' when the base is 0 (counts
 * such as tiles skipped), or the cell's state when it has no result. */
static void summary_value(FILE *o, const sweep_plan *pl, const sw_cell_result *res, size_t i, size_t s, int width)
{
    char num[64];
    double v = normalised(pl, res, i, s);
    if (res[i].state != ST_DONE) {
        fprintf(o, " %*s", width, sweep_state_name(res[i].state));
    } else if (isnan(v)) {
        num[0] = '=';
        sw_format_number(res[i].stat[s], num + 1, sizeof num - 1);
        fprintf(o, " %*s", width, num);
    } else {
        fprintf(o, " %*.3f", width, v);
    }
}

void sw_summary_table(const sweep_plan *pl, const sw_cell_result *res, FILE *o)
{
    const char *base = pl->sf.normalize ? pl->sf.normalize : pl->sf.configs[0].name;
    int wname = 8, cname = 8, width[256];
    for (size_t w = 0; w < pl->sf.nworkloads; w++)
        if ((int)strlen(pl->sf.workloads[w].name) > wname) wname = (int)strlen(pl->sf.workloads[w].name);
    for (size_t c = 0; c < pl->sf.nconfigs; c++)
        if ((int)strlen(pl->sf.configs[c].name) > cname) cname = (int)strlen(pl->sf.configs[c].name);
    fprintf(o, "statistics normalised to configuration '%s' of the same workload ('=N': N itself, the base is 0)\n",
            base);
    fprintf(o, "%-*s %-*s", wname, "workload", cname, "config");
    for (size_t s = 0; s < pl->sf.nstats; s++) {
        width[s % 256] = strlen(pl->sf.stats[s]) > 10 ? (int)strlen(pl->sf.stats[s]) : 10;
        fprintf(o, " %*s", width[s % 256], pl->sf.stats[s]);
    }
    fprintf(o, " %s\n", "frames exact");
    for (size_t i = 0; i < pl->ncells; i++) {
        const sweep_cell *c = &pl->cells[i];
        fprintf(o, "%-*s %-*s", wname, pl->sf.workloads[c->w].name, cname, pl->sf.configs[c->c].name);
        for (size_t s = 0; s < pl->sf.nstats; s++) summary_value(o, pl, res, i, s, width[s % 256]);
        if (res[i].state == ST_DONE)
            fprintf(o, " %ld/%ld\n", res[i].frames_exact, res[i].frames_checked);
        else
            fprintf(o, " -\n");
    }
}

static void xml_text(FILE *o, const char *s)
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

static const char *const COLOURS[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define NCOLOURS (sizeof COLOURS / sizeof COLOURS[0])

/* The axis: the largest normalised value rounded up to a quarter. */
static double axis_max(const sweep_plan *pl, const sw_cell_result *res, size_t s)
{
    double m = 1;
    for (size_t i = 0; i < pl->ncells; i++) {
        double v = normalised(pl, res, i, s);
        if (!isnan(v) && v > m) m = v;
    }
    return ceil(m * 4) / 4;
}

static void svg_bars(FILE *o, const sweep_plan *pl, const sw_cell_result *res, size_t s, double top, int x0, int y0,
                     int h)
{
    const int bar = 14, gap = 24, nc = (int)pl->sf.nconfigs;
    for (size_t w = 0; w < pl->sf.nworkloads; w++) {
        int gx = x0 + gap / 2 + (int)w * (nc * bar + gap);
        for (int c = 0; c < nc; c++) {
            size_t cell = w * (size_t)nc + (size_t)c;
            double v = normalised(pl, res, cell, s);
            if (isnan(v)) continue;
            double bh = v / top * h;
            fprintf(o, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>", gx + c * bar,
                    y0 + h - bh, bar - 1, bh, COLOURS[(size_t)c % NCOLOURS]);
            xml_text(o, pl->sf.workloads[w].name);
            fputc('/', o);
            xml_text(o, pl->sf.configs[c].name);
            fprintf(o, ": %.4f</title></rect>\n", v);
        }
        fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\">", gx + nc * bar / 2, y0 + h + 16);
        xml_text(o, pl->sf.workloads[w].name);
        fprintf(o, "</text>\n");
    }
}

/* One statistic's chart: axis with ticks every quarter, a bar per cell, legend. */
static void svg_chart(FILE *o, const sweep_plan *pl, const sw_cell_result *res, size_t s)
{
    const int nc = (int)pl->sf.nconfigs, x0 = 60, y0 = 40, h = 240;
    int plot_w = (int)pl->sf.nworkloads * (nc * 14 + 24), legend_y = y0 + h + 36;
    int width = x0 + plot_w + 20, height = legend_y + 18 * nc + 10;
    double top = axis_max(pl, res, s);
    fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\">\n",
            width, height);
    fprintf(o, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%d\" y=\"22\" font-size=\"15\">",
            x0);
    xml_text(o, pl->sf.stats[s]);
    fprintf(o, " (normalised to ");
    xml_text(o, pl->sf.normalize ? pl->sf.normalize : pl->sf.configs[0].name);
    fprintf(o, ")</text>\n");
    for (double t = 0; t <= top + 1e-9; t += 0.25) {
        double y = y0 + h - t / top * h;
        fprintf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", x0, x0 + plot_w, y, y,
                t == 1 ? "#444" : "#ddd");
        fprintf(o, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%.2f</text>\n", x0 - 6, y + 4, t);
    }
    svg_bars(o, pl, res, s, top, x0, y0, h);
    for (int c = 0; c < nc; c++) {
        int y = legend_y + 18 * c;
        fprintf(o,
                "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" "
                "font-size=\"12\">",
                x0, y, COLOURS[(size_t)c % NCOLOURS], x0 + 18, y + 11);
        xml_text(o, pl->sf.configs[c].name);
        fprintf(o, "</text>\n");
    }
    fprintf(o, "</svg>\n");
}

/* A file written through a temp name; WRITE fills it. */
static int write_through_tmp(const char *path, void (*write)(FILE *, const void *), const void *arg)
{
    char tmp[SW_PATH + 16];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *o = fopen(tmp, "w");
    if (!o) {
        perror(tmp);
        return -1;
    }
    write(o, arg);
    if (fclose(o) || rename(tmp, path)) {
        fprintf(stderr, "tbr-sweep: cannot write %s\n", path);
        remove(tmp);
        return -1;
    }
    return 0;
}

typedef struct {
    const sweep_plan *pl;
    const sw_cell_result *res;
    char **keys;
    size_t nkeys, stat;
} chart_job;

static void write_svg(FILE *o, const void *arg)
{
    const chart_job *j = arg;
    svg_chart(o, j->pl, j->res, j->stat);
}

static void html_table(FILE *o, const chart_job *j)
{
    const sweep_plan *pl = j->pl;
    char num[64];
    fprintf(o, "<table>\n<tr><th>workload</th><th>config</th>");
    for (size_t k = 0; k < j->nkeys; k++) fprintf(o, "<th>%s</th>", j->keys[k]);
    for (size_t s = 0; s < pl->sf.nstats; s++) fprintf(o, "<th>%s</th><th>norm.</th>", pl->sf.stats[s]);
    fprintf(o, "<th>frames bit-exact</th><th>status</th></tr>\n");
    for (size_t i = 0; i < pl->ncells; i++) {
        const sw_cell_result *r = &j->res[i];
        fprintf(o, "<tr><td>%s</td><td>%s</td>", pl->sf.workloads[pl->cells[i].w].name,
                pl->sf.configs[pl->cells[i].c].name);
        for (size_t k = 0; k < j->nkeys; k++) {
            fprintf(o, "<td>");
            xml_text(o, r->key_value[k]);
            fprintf(o, "</td>");
        }
        for (size_t s = 0; s < pl->sf.nstats; s++) {
            sw_format_number(r->stat[s], num, sizeof num);
            double v = normalised(pl, j->res, i, s);
            fprintf(o, "<td class=n>%s</td><td class=n>", r->state == ST_DONE ? num : "");
            if (!isnan(v)) fprintf(o, "%.3f", v);
            fprintf(o, "</td>");
        }
        fprintf(o, "<td>%ld/%ld</td><td>%s</td></tr>\n", r->frames_exact, r->frames_checked,
                sweep_state_name(r->state));
    }
    fprintf(o, "</table>\n");
}

static void write_html(FILE *o, const void *arg)
{
    const chart_job *j = arg;
    const char *name = j->pl->sf.name ? j->pl->sf.name : j->pl->sf.path;
    fprintf(o, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
    xml_text(o, name);
    fprintf(o, "</title>\n<style>body{font-family:sans-serif} table{border-collapse:collapse} "
               "td,th{border:1px solid #ccc;padding:2px 6px} td.n{text-align:right}</style></head><body>\n<h1>");
    xml_text(o, name);
    fprintf(o, "</h1>\n");
    html_table(o, j);
    for (size_t s = 0; s < j->pl->sf.nstats; s++) {
        fprintf(o, "<p><img src=\"");
        xml_text(o, j->pl->sf.stats[s]);
        fprintf(o, ".svg\" alt=\"");
        xml_text(o, j->pl->sf.stats[s]);
        fprintf(o, "\"></p>\n");
    }
    fprintf(o, "</body></html>\n");
}

int sw_charts(const sweep_plan *pl, const sw_cell_result *res, char **keys, size_t nkeys, const char *dir)
{
    char path[SW_PATH + 300];
    chart_job j = {pl, res, keys, nkeys, 0};
    if (sw_mkdirs(dir)) {
        perror(dir);
        return -1;
    }
    for (j.stat = 0; j.stat < pl->sf.nstats; j.stat++) {
        if (strchr(pl->sf.stats[j.stat], '/')) continue;
        snprintf(path, sizeof path, "%s/%s.svg", dir, pl->sf.stats[j.stat]);
        if (write_through_tmp(path, write_svg, &j)) return -1;
    }
    snprintf(path, sizeof path, "%s/index.html", dir);
    return write_through_tmp(path, write_html, &j);
}
