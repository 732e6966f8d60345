/* tbr-barchart: statistics of several runs as a grouped bar chart (docs/tools-pictures.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pictures.h"

#define MAX_RUNS    16
#define MAX_METRICS 32

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tbr-barchart -o CHART.svg|CHART.png --metric M[,M...] [--normalize-to LABEL | --absolute]\n"
            "                    [--title TEXT] LABEL=OUT_DIR...\n"
            "  LABEL=OUT_DIR    a run (tbr-sim output directory) and its legend label; 1-%d runs\n"
            "  --metric LIST    comma-separated: total_cycles, energy_total, energy_gpu, energy_dram,\n"
            "                   any statistic of stats.json (cycles.raster, dram.bytes, re.tiles_skipped...)\n"
            "                   or a dotted JSON path; repeatable; at most %d\n"
            "  --normalize-to L divide each metric by run L's value (default: the first run)\n"
            "  --absolute       plot raw values (no normalization)\n"
            "  -o, --output CHART.svg  output SVG (text as text), or PNG when the name ends in .png (written\n"
            "                   atomically)\n"
            "  -q, --quiet      accepted as by every tbrsim tool (this one prints no progress)\n"
            "  -h, --help;  -V, --version\n"
            "Exit: 0 ok, 2 bad usage or input.\n",
            MAX_RUNS, MAX_METRICS);
}

int main(int argc, char **argv)
{
    const char *outp = NULL, *norm = NULL, *title = NULL;
    int absolute = 0;
    char *metrics[MAX_METRICS];
    int nm = 0, nr = 0;
    const char *labels[MAX_RUNS];
    const char *dirs[MAX_RUNS];
    char *mbuf[MAX_METRICS];
    int nmbuf = 0, rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) continue; /* prints no progress: nothing to silence */
        if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            printf("tbr-barchart %s\n", TBR_VERSION);
            return 0;
        }
        if ((!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--metric") || !strcmp(a, "--normalize-to") ||
             !strcmp(a, "--title")) &&
            i + 1 >= argc) {
            fprintf(stderr, "tbr-barchart: %s needs a value\n", a);
            goto out;
        }
        if (!strcmp(a, "-o") || !strcmp(a, "--output"))
            outp = argv[++i];
        else if (!strcmp(a, "--normalize-to"))
            norm = argv[++i];
        else if (!strcmp(a, "--title"))
            title = argv[++i];
        else if (!strcmp(a, "--absolute"))
            absolute = 1;
        else if (!strcmp(a, "--metric")) {
            if (nmbuf == MAX_METRICS) {
                fprintf(stderr, "tbr-barchart: too many --metric\n");
                goto out;
            }
            char *list = strdup(argv[++i]);
            if (!list) goto out;
            mbuf[nmbuf++] = list;
            for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
                if (nm == MAX_METRICS) {
                    fprintf(stderr, "tbr-barchart: at most %d metrics\n", MAX_METRICS);
                    goto out;
                }
                metrics[nm++] = tok;
            }
        } else if (a[0] == '-') {
            fprintf(stderr, "tbr-barchart: unknown option '%s'\n", a);
            usage(stderr);
            goto out;
        } else {
            const char *eq = strchr(a, '=');
            if (!eq || eq == a || !eq[1]) {
                fprintf(stderr, "tbr-barchart: '%s' is not LABEL=OUT_DIR\n", a);
                goto out;
            }
            if (nr == MAX_RUNS) {
                fprintf(stderr, "tbr-barchart: at most %d runs\n", MAX_RUNS);
                goto out;
            }
            ((char *)eq)[0] = 0; /* argv strings are writable */
            labels[nr] = a;
            dirs[nr++] = eq + 1;
        }
    }
    if (!outp || !nm || !nr) {
        fprintf(stderr, "tbr-barchart: need -o, --metric and at least one LABEL=OUT_DIR\n");
        usage(stderr);
        goto out;
    }
    if (absolute && norm) {
        fprintf(stderr, "tbr-barchart: --absolute and --normalize-to exclude each other\n");
        goto out;
    }
    int ref = 0;
    if (norm) {
        ref = -1;
        for (int r = 0; r < nr; r++)
            if (!strcmp(labels[r], norm)) ref = r;
        if (ref < 0) {
            fprintf(stderr, "tbr-barchart: --normalize-to '%s' is not one of the run labels\n", norm);
            goto out;
        }
    }
    static char err[PIC_ERR];
    double v[MAX_METRICS * MAX_RUNS];
    for (int r = 0; r < nr; r++) {
        pic_run run;
        if (pic_run_load(&run, dirs[r], err, sizeof err)) {
            fprintf(stderr, "tbr-barchart: %s\n", err);
            goto out;
        }
        for (int mi = 0; mi < nm; mi++)
            if (pic_run_metric(&run, metrics[mi], -1, &v[mi * nr + r], err, sizeof err)) {
                fprintf(stderr, "tbr-barchart: %s\n", err);
                pic_run_free(&run);
                goto out;
            }
        pic_run_free(&run);
    }
    if (!absolute)
        for (int mi = 0; mi < nm; mi++) {
            double base = v[mi * nr + ref];
            if (!(base > 0) && !(base < 0)) {
                fprintf(stderr, "tbr-barchart: %s/stats.json: metric '%s' is 0: cannot normalize to run '%s'\n",
                        dirs[ref], metrics[mi], labels[ref]);
                goto out;
            }
            double b = base;
            for (int r = 0; r < nr; r++) v[mi * nr + r] /= b;
        }
    char t[256], yl[256];
    if (!title) {
        if (absolute)
            snprintf(t, sizeof t, "statistics per run");
        else
            snprintf(t, sizeof t, "normalized to %s", labels[ref]);
        title = t;
    }
    snprintf(yl, sizeof yl, absolute ? "value" : "value / %s", labels[ref]);
    pic_chart c = {nm, nr, (const char *const *)metrics, labels, v, title, yl, !absolute};
    size_t olen = strlen(outp);
    if (olen < 4 || strcmp(outp + olen - 4, ".png")) {
        if (pic_barchart_svg_file(&c, outp, err, sizeof err)) {
            fprintf(stderr, "tbr-barchart: %s\n", err);
            goto out;
        }
        rc = 0;
        goto out;
    }
    tbr_image img = {0};
    if (pic_barchart_render(&c, &img, NULL, err, sizeof err) || tbr_png_write_image(outp, &img, err, sizeof err)) {
        fprintf(stderr, "tbr-barchart: %s\n", err);
        tbr_image_free(&img);
        goto out;
    }
    tbr_image_free(&img);
    rc = 0;
out:
    for (int i = 0; i < nmbuf; i++) free(mbuf[i]);
    return rc;
}
