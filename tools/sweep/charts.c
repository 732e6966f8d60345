/* The summary table and the study's charts: one SVG per statistic, bars per workload and
 * configuration normalised to the normalize configuration (the documents' figures), and
 * an HTML page with the table. Text stays text (SVG <text>), written through temp names. */
#include "charts.h"

#include "pictures.h"

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

/* One statistic's chart: the shared bar chart (tools/common, SVG), a group per workload, a
 * bar per configuration, values normalised like the summary table. */
static int svg_chart(FILE *o, const sweep_plan *pl, const sw_cell_result *res, size_t s)
{
    const sweep_file *sf = &pl->sf;
    const char *base = sf->normalize ? sf->normalize : sf->configs[0].name;
    const char **groups = calloc(sf->nworkloads, sizeof *groups), **series = calloc(sf->nconfigs, sizeof *series);
    double *v = calloc(pl->ncells, sizeof *v);
    if (!groups || !series || !v) abort();
    for (size_t w = 0; w < sf->nworkloads; w++) groups[w] = sf->workloads[w].name;
    for (size_t c = 0; c < sf->nconfigs; c++) series[c] = sf->configs[c].name;
    for (size_t i = 0; i < pl->ncells; i++) v[i] = normalised(pl, res, i, s); /* cells are workload-major */
    char title[300], ylabel[200];
    snprintf(title, sizeof title, "%s (normalised to %s)", sf->stats[s], base);
    snprintf(ylabel, sizeof ylabel, "value / %s", base);
    pic_chart c = {(int)sf->nworkloads, (int)sf->nconfigs, groups, series, v, title, ylabel, 1};
    int rc = pic_barchart_svg(&c, o, NULL);
    free(groups);
    free(series);
    free(v);
    return rc;
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
    if (svg_chart(o, j->pl, j->res, j->stat))
        fprintf(stderr, "tbr-sweep: chart of %s: write error\n", j->pl->sf.stats[j->stat]);
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
            pic_xml_text(o, r->key_value[k]);
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
    pic_xml_text(o, name);
    fprintf(o, "</title>\n<style>body{font-family:sans-serif} table{border-collapse:collapse} "
               "td,th{border:1px solid #ccc;padding:2px 6px} td.n{text-align:right}</style></head><body>\n<h1>");
    pic_xml_text(o, name);
    fprintf(o, "</h1>\n");
    html_table(o, j);
    for (size_t s = 0; s < j->pl->sf.nstats; s++) {
        fprintf(o, "<p><img src=\"");
        pic_xml_text(o, j->pl->sf.stats[s]);
        fprintf(o, ".svg\" alt=\"");
        pic_xml_text(o, j->pl->sf.stats[s]);
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
