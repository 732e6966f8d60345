/* tbr-report: a self-contained HTML report of tbr-sim runs (docs/tools-report.md). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pictures.h"
#include "tbr/out_dir.h"

#define MAX_RUNS 16

typedef struct {
    char *s;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        size_t room = b->cap - b->n;
        int k = vsnprintf(b->s ? b->s + b->n : NULL, room, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        size_t nc = (b->cap + (size_t)k + 1) * 2;
        char *ns = realloc(b->s, nc);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = nc;
    }
}

static void sb_esc(sbuf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            sb_add(b, "&lt;");
        else if (*s == '>')
            sb_add(b, "&gt;");
        else if (*s == '&')
            sb_add(b, "&amp;");
        else if (*s == '"')
            sb_add(b, "&quot;");
        else
            sb_add(b, "%c", *s);
    }
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tbr-report OUT_DIR [--reference DIR] [--compare LABEL=OUT_DIR...] [--label L]\n"
            "                  [--title TEXT] [--heatmap-frames N] -o REPORT_DIR [--force]\n"
            "  OUT_DIR          tbr-sim output directory (stats.json, frames/)\n"
            "  --reference DIR  tbr-replay directory (DIR/reference/frame_NNNNN.png) or a directory of frame PNGs\n"
            "  --compare L=DIR  further runs for the comparison charts (the main run comes first; repeatable,\n"
            "                   several L=DIR may follow one --compare)\n"
            "  --label L        label of the main run (default: baseline)\n"
            "  --heatmap-frames N  heatmaps for the first N frames (default 8)\n"
            "  -o, --output REPORT_DIR  written: index.html + PNG images and SVG charts beside it (opens from disk, no "
            "network); built as\n"
            "                   REPORT_DIR.tmp-PID and renamed when complete; must not exist or be empty\n"
            "  --force          replace an existing REPORT_DIR\n"
            "  -q, --quiet      accepted as by every tbrsim tool (this one prints no progress)\n"
            "  -h, --help;  -V, --version\n"
            "Exit: 0 ok, 2 bad usage or input.\n");
}

static int copy_png(const char *src, const char *dst, char *err, size_t n)
{
    tbr_image im = {0};
    if (tbr_png_read_rgba8(src, &im, err, n)) return -1;
    int r = tbr_png_write_image(dst, &im, err, n);
    tbr_image_free(&im);
    return r;
}

static int is_dir(const char *p)
{
    struct stat st;
    return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static int file_exists(const char *p)
{
    struct stat st;
    return !stat(p, &st) && S_ISREG(st.st_mode);
}

static const char *KEY_STATS[] = {"cycles.geometry", "cycles.tiling", "cycles.raster",    "quads.shaded",
                                  "tiles.rendered",  "dram.bytes",    "re.tiles_skipped", "te.flushes_eliminated"};
#define NKEY (sizeof KEY_STATS / sizeof KEY_STATS[0])
static const char *CMP_METRICS[] = {"total_cycles", "cycles.geometry", "cycles.tiling", "cycles.raster", "quads.shaded",
                                    "dram.bytes",   "energy_total",    "energy_gpu",    "energy_dram"};
#define NCMP (sizeof CMP_METRICS / sizeof CMP_METRICS[0])

static const char *SELFCHECK =
    "<script>\n"
    "/* self-check: every image decoded, no script or load errors (read by tests) */\n"
    "window.tbrErrors = [];\n"
    "window.addEventListener('error', function (e) {\n"
    "  var t = e.target;\n"
    "  window.tbrErrors.push(t && t.getAttribute && t.getAttribute('src') ? 'cannot load ' + t.getAttribute('src') : "
    "String(e.message));\n"
    "}, true);\n"
    "window.addEventListener('load', function () {\n"
    "  var im = document.images, bad = [];\n"
    "  for (var i = 0; i < im.length; i++) if (!(im[i].complete && im[i].naturalWidth > 0)) "
    "bad.push(im[i].getAttribute('src'));\n"
    "  var ok = bad.length === 0 && window.tbrErrors.length === 0;\n"
    "  var v = document.getElementById('selfcheck');\n"
    "  v.setAttribute('data-verdict', ok ? 'PASS' : 'FAIL');\n"
    "  v.textContent = 'image check: ' + (ok ? 'PASS' : 'FAIL') + ', ' + im.length + ' images' +\n"
    "    (bad.length ? ', broken: ' + bad.join(' ') : '') + (window.tbrErrors.length ? ', errors: ' + "
    "window.tbrErrors.join(' | ') : '');\n"
    "});\n"
    "</script>\n";

/* The command line. */
struct report_options {
    const char *dir, *refdir, *outdir, *title, *mainlabel;
    const char *clabel[MAX_RUNS], *cdir[MAX_RUNS]; /* --compare LABEL=OUT_DIR */
    int nc, force;
    long hframes;
};

/* Reads the pairs LABEL=OUT_DIR that follow --compare at argv[*i]. Returns 0 or 2. */
static int parse_compare(int argc, char **argv, int *i, struct report_options *o)
{
    int got = 0;
    while (*i + 1 < argc && argv[*i + 1][0] != '-' && strchr(argv[*i + 1], '=')) {
        char *arg = argv[++*i], *eq = strchr(arg, '=');
        if (eq == arg || !eq[1]) {
            fprintf(stderr, "tbr-report: '%s' is not LABEL=OUT_DIR\n", arg);
            return 2;
        }
        if (o->nc + 1 >= MAX_RUNS) {
            fprintf(stderr, "tbr-report: too many --compare runs\n");
            return 2;
        }
        *eq = 0;
        o->clabel[o->nc] = arg;
        o->cdir[o->nc++] = eq + 1;
        got++;
    }
    if (!got) {
        fprintf(stderr, "tbr-report: --compare needs LABEL=OUT_DIR\n");
        return 2;
    }
    return 0;
}

/* Fills *o from the command line. Returns -1 to go on, or the exit status when main must
 * return at once (help, version, bad usage). */
static int parse_args(int argc, char **argv, struct report_options *o)
{
    memset(o, 0, sizeof *o);
    o->mainlabel = "baseline";
    o->hframes = 8;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) continue; /* prints no progress: nothing to silence */
        if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            printf("tbr-report %s\n", TBR_VERSION);
            return 0;
        }
        if (!strcmp(a, "--force")) {
            o->force = 1;
            continue;
        }
        if ((!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--reference") || !strcmp(a, "--compare") ||
             !strcmp(a, "--label") || !strcmp(a, "--title") || !strcmp(a, "--heatmap-frames")) &&
            i + 1 >= argc) {
            fprintf(stderr, "tbr-report: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "-o") || !strcmp(a, "--output"))
            o->outdir = argv[++i];
        else if (!strcmp(a, "--reference"))
            o->refdir = argv[++i];
        else if (!strcmp(a, "--label"))
            o->mainlabel = argv[++i];
        else if (!strcmp(a, "--title"))
            o->title = argv[++i];
        else if (!strcmp(a, "--heatmap-frames")) {
            char *e;
            o->hframes = strtol(argv[++i], &e, 10);
            if (*e || o->hframes < 0) {
                fprintf(stderr, "tbr-report: bad --heatmap-frames '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--compare")) {
            if (parse_compare(argc, argv, &i, o)) return 2;
        } else if (a[0] == '-') {
            fprintf(stderr, "tbr-report: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (!o->dir)
            o->dir = a;
        else {
            fprintf(stderr, "tbr-report: unexpected argument '%s'\n", a);
            return 2;
        }
    }
    if (!o->dir || !o->outdir) {
        fprintf(stderr, "tbr-report: need OUT_DIR and -o REPORT_DIR\n");
        usage(stderr);
        return 2;
    }
    return -1;
}

/* What the report's sections share: the loaded runs (the main run first), the HTML being
 * built and scratch buffers. Functions that can fail print "tbr-report: <err>" and return
 * nonzero; the report is then not written (exit 2). */
struct report {
    pic_run runs[MAX_RUNS];
    const char *labels[MAX_RUNS];
    int nr;
    const char *outdir, *refdir;
    char refbase[4200]; /* where the reference frames are, when refdir is given */
    sbuf h;
    char err[PIC_ERR];
    char p1[8192], p2[8192];
};

/* Loads the main run and the --compare runs, finds the reference frames and makes the
 * report directory's parent (the report itself is built beside it: main). */
static int load_inputs(struct report *rep, const struct report_options *o)
{
    for (int c = -1; c < o->nc; c++) {
        if (pic_run_load(&rep->runs[rep->nr], c < 0 ? o->dir : o->cdir[c], rep->err, sizeof rep->err)) {
            fprintf(stderr, "tbr-report: %s\n", rep->err);
            return 2;
        }
        rep->labels[rep->nr++] = c < 0 ? o->mainlabel : o->clabel[c];
    }
    rep->refbase[0] = '\0';
    if (o->refdir) {
        snprintf(rep->refbase, sizeof rep->refbase, "%s/reference", o->refdir);
        if (!is_dir(rep->refbase)) snprintf(rep->refbase, sizeof rep->refbase, "%s", o->refdir);
        if (!is_dir(rep->refbase)) {
            fprintf(stderr, "tbr-report: %s: not a directory\n", o->refdir);
            return 2;
        }
    }
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", o->outdir);
    char *slash = strrchr(parent, '/');
    while (slash && slash > parent && slash[1] == '\0') { /* trailing slashes */
        *slash = '\0';
        slash = strrchr(parent, '/');
    }
    if (slash && slash > parent) {
        *slash = '\0';
        if (pic_mkdirs(parent, rep->err, sizeof rep->err)) {
            fprintf(stderr, "tbr-report: %s\n", rep->err);
            return 2;
        }
    }
    return 0;
}

/* The page head (style, self-check script) and the title block. */
static void html_head(struct report *rep, const char *title)
{
    sbuf *h = &rep->h;
    sb_add(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
    sb_esc(h, title ? title : "tbr-sim report");
    sb_add(h,
           "</title>\n%s<style>\nbody{font-family:sans-serif;margin:1.5em;color:#222}\n"
           "table{border-collapse:collapse;margin:0.5em 0 1.5em}\ntd,th{border:1px solid #bbb;padding:3px "
           "8px;text-align:right}\n"
           "th{background:#eee}\ntd.l,th.l{text-align:left}\n.ok{color:#070}.bad{color:#b00;font-weight:bold}\n"
           "figure{display:inline-block;margin:0 1em 1em 0;vertical-align:top}\nfigcaption{font-size:90%%;color:#444}\n"
           "img{max-width:100%%;image-rendering:pixelated;border:1px solid #ccc}\n.note{color:#666;font-size:90%%}\n"
           "</style></head><body>\n<h1>",
           SELFCHECK);
    sb_esc(h, title ? title : "tbr-sim report");
    sb_add(h, "</h1>\n<p class=\"note\">run: ");
    sb_esc(h, rep->runs[0].dir);
    if (rep->refdir) {
        sb_add(h, " &middot; reference: ");
        sb_esc(h, rep->refdir);
    }
    sb_add(h, " &middot; tbr-report %s</p>\n", TBR_VERSION);
}

/* One row of the summary table per run: frames, cycles, bit-exactness, key statistics. */
static void summary_table(struct report *rep)
{
    sbuf *h = &rep->h;
    sb_add(
        h,
        "<h2>Summary</h2>\n<table><tr><th class=\"l\">run</th><th>frames</th><th>total cycles</th><th>bit-exact</th>");
    for (size_t k = 0; k < NKEY; k++) sb_add(h, "<th>%s</th>", KEY_STATS[k]);
    sb_add(h, "<th>energy total (pJ)</th></tr>\n");
    for (int r = 0; r < rep->nr; r++) {
        pic_run *run = &rep->runs[r];
        double v;
        size_t n = pic_run_frame_count(run);
        int exact = 0, checked = 0;
        for (size_t i = 0; i < n; i++) {
            int be;
            pic_run_frame_info(run, i, NULL, NULL, &be);
            if (be >= 0) {
                checked++;
                exact += be;
            }
        }
        sb_add(h, "<tr><td class=\"l\">");
        sb_esc(h, rep->labels[r]);
        sb_add(h, "</td><td>%zu</td>", n);
        if (!pic_run_metric(run, "total_cycles", -1, &v, rep->err, sizeof rep->err))
            sb_add(h, "<td>%.0f</td>", v);
        else
            sb_add(h, "<td>n/a</td>");
        if (checked)
            sb_add(h, "<td class=\"%s\">%d / %d</td>", exact == checked ? "ok" : "bad", exact, checked);
        else
            sb_add(h, "<td>not checked</td>");
        for (size_t k = 0; k < NKEY; k++) {
            if (!pic_run_metric(run, KEY_STATS[k], -1, &v, rep->err, sizeof rep->err))
                sb_add(h, "<td>%.0f</td>", v);
            else
                sb_add(h, "<td>&ndash;</td>");
        }
        if (!pic_run_metric(run, "energy_total", -1, &v, rep->err, sizeof rep->err))
            sb_add(h, "<td>%.6g</td>", v);
        else
            sb_add(h, "<td>n/a</td>");
        sb_add(h, "</tr>\n");
    }
    sb_add(h, "</table>\n");
}

/* The per-frame table of the main run. */
static void frames_table(struct report *rep)
{
    sbuf *h = &rep->h;
    pic_run *R = &rep->runs[0];
    size_t nf = pic_run_frame_count(R);
    sb_add(h, "<h2>Frames</h2>\n<table><tr><th>frame</th><th>cycles</th><th>bit-exact</th><th>differing "
              "pixels</th><th>max channel diff</th></tr>\n");
    const pj_value *fa = pj_get(R->stats, "frames");
    for (size_t i = 0; i < nf; i++) {
        long fr;
        double cyc, d;
        int be;
        pic_run_frame_info(R, i, &fr, &cyc, &be);
        sb_add(h, "<tr><td>%ld</td><td>%.0f</td><td class=\"%s\">%s</td>", fr, cyc,
               be == 1   ? "ok"
               : be == 0 ? "bad"
                         : "",
               be == 1   ? "yes"
               : be == 0 ? "NO"
                         : "not checked");
        if (!pj_number(pj_get(&fa->items[i], "diff_pixels"), &d))
            sb_add(h, "<td>%.0f</td>", d);
        else
            sb_add(h, "<td>&ndash;</td>");
        if (!pj_number(pj_get(&fa->items[i], "max_diff"), &d))
            sb_add(h, "<td>%.0f</td>", d);
        else
            sb_add(h, "<td>&ndash;</td>");
        sb_add(h, "</tr>\n");
    }
    sb_add(h, "</table>\n");
}

/* chart_frame_cycles.svg: cycles per frame of every run (only for 1..64 frames). */
static int chart_frame_cycles(struct report *rep)
{
    pic_run *R = &rep->runs[0];
    size_t nf = pic_run_frame_count(R);
    int nr = rep->nr;
    if (!(nf > 0 && nf <= 64)) return 0;
    double *cv = calloc(nf * (size_t)nr, sizeof *cv);
    const char **gl = calloc(nf, sizeof *gl);
    char(*gbuf)[24] = calloc(nf, sizeof *gbuf);
    if (!cv || !gl || !gbuf) {
        free(gl);
        free(gbuf);
        free(cv);
        fprintf(stderr, "tbr-report: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < nf; i++) {
        long fr;
        pic_run_frame_info(R, i, &fr, NULL, NULL);
        snprintf(gbuf[i], sizeof gbuf[i], "F%ld", fr);
        gl[i] = gbuf[i];
        for (int r = 0; r < nr; r++)
            if (pic_run_metric(&rep->runs[r], "cycles", fr, &cv[i * (size_t)nr + (size_t)r], rep->err, sizeof rep->err))
                cv[i * (size_t)nr + (size_t)r] = NAN;
    }
    pic_chart c = {(int)nf, nr, gl, rep->labels, cv, "cycles per frame", "GPU cycles", 0};
    snprintf(rep->p1, sizeof rep->p1, "%s/chart_frame_cycles.svg", rep->outdir);
    int bad = pic_barchart_svg_file(&c, rep->p1, rep->err, sizeof rep->err);
    free(gl);
    free(gbuf);
    free(cv);
    if (bad) {
        fprintf(stderr, "tbr-report: %s\n", rep->err);
        return 2;
    }
    sb_add(&rep->h, "<figure><img src=\"chart_frame_cycles.svg\" alt=\"cycles per frame\"><figcaption>GPU cycles per "
                    "frame, all runs</figcaption></figure>\n");
    return 0;
}

/* chart_compare.svg: the metrics present in every run, normalized to the main run (only
 * with --compare). */
static int chart_compare(struct report *rep)
{
    int nr = rep->nr;
    if (nr <= 1) return 0;
    const char *gm[NCMP];
    double v[NCMP * MAX_RUNS];
    int ng = 0;
    for (size_t m = 0; m < NCMP; m++) {
        int all = 1;
        for (int r = 0; r < nr && all; r++)
            if (pic_run_metric(&rep->runs[r], CMP_METRICS[m], -1, &v[ng * nr + r], rep->err, sizeof rep->err)) all = 0;
        if (!all || !(v[ng * nr] > 0)) continue;
        double base = v[ng * nr];
        for (int r = 0; r < nr; r++) v[ng * nr + r] /= base;
        gm[ng++] = CMP_METRICS[m];
    }
    if (!ng) return 0;
    char t[300];
    snprintf(t, sizeof t, "normalized to %s", rep->labels[0]);
    pic_chart c = {ng, nr, gm, rep->labels, v, t, "value / first run", 1};
    snprintf(rep->p1, sizeof rep->p1, "%s/chart_compare.svg", rep->outdir);
    if (pic_barchart_svg_file(&c, rep->p1, rep->err, sizeof rep->err)) {
        fprintf(stderr, "tbr-report: %s\n", rep->err);
        return 2;
    }
    sb_add(&rep->h, "<figure><img src=\"chart_compare.svg\" alt=\"comparison\"><figcaption>statistics normalized to ");
    sb_esc(&rep->h, rep->labels[0]);
    sb_add(&rep->h, " (metrics present in every run)</figcaption></figure>\n");
    return 0;
}

/* Copies frame fr's reference image (if there is one) beside the report and adds it. */
static int reference_image(struct report *rep, long fr)
{
    snprintf(rep->p1, sizeof rep->p1, "%s/frame_%05ld.png", rep->refbase, fr);
    snprintf(rep->p2, sizeof rep->p2, "%s/ref_%05ld.png", rep->outdir, fr);
    if (file_exists(rep->p1)) {
        if (copy_png(rep->p1, rep->p2, rep->err, sizeof rep->err)) {
            fprintf(stderr, "tbr-report: %s\n", rep->err);
            return 2;
        }
        sb_add(&rep->h,
               "<figure><img src=\"ref_%05ld.png\" alt=\"reference frame %ld\"><figcaption>reference frame "
               "%ld</figcaption></figure>",
               fr, fr, fr);
    } else {
        sb_add(&rep->h, "<figure><figcaption class=\"bad\">reference frame %ld missing: ", fr);
        sb_esc(&rep->h, rep->p1);
        sb_add(&rep->h, "</figcaption></figure>");
    }
    return 0;
}

/* Reference and simulated images of every frame of the main run, side by side. */
static int frame_images(struct report *rep)
{
    pic_run *R = &rep->runs[0];
    size_t nf = pic_run_frame_count(R);
    sb_add(&rep->h, "<h2>Frames: reference and simulated</h2>\n");
    for (size_t i = 0; i < nf; i++) {
        long fr;
        pic_run_frame_info(R, i, &fr, NULL, NULL);
        sb_add(&rep->h, "<div>");
        if (rep->refdir && reference_image(rep, fr)) return 2;
        pic_run_frame_path(R, fr, rep->p1, sizeof rep->p1);
        snprintf(rep->p2, sizeof rep->p2, "%s/sim_%05ld.png", rep->outdir, fr);
        if (copy_png(rep->p1, rep->p2, rep->err, sizeof rep->err)) {
            fprintf(stderr, "tbr-report: %s\n", rep->err);
            return 2;
        }
        sb_add(&rep->h,
               "<figure><img src=\"sim_%05ld.png\" alt=\"simulated frame %ld\"><figcaption>simulated frame "
               "%ld</figcaption></figure></div>\n",
               fr, fr, fr);
    }
    return 0;
}

/* The heatmaps of one frame over its simulated image; a metric the run lacks is marked in
 * miss[] with the reason in missing[]. */
static int frame_heatmaps(struct report *rep, long fr, char missing[PIC_M_COUNT][PIC_ERR], int miss[PIC_M_COUNT])
{
    pic_run *R = &rep->runs[0];
    tbr_image bg = {0};
    pic_run_frame_path(R, fr, rep->p1, sizeof rep->p1);
    if (tbr_png_read_rgba8(rep->p1, &bg, rep->err, sizeof rep->err)) {
        fprintf(stderr, "tbr-report: %s\n", rep->err);
        return 2;
    }
    sb_add(&rep->h, "<div>");
    for (int m = 0; m < PIC_M_COUNT; m++) {
        const char *name = pic_tile_metric_name((pic_tile_metric)m);
        pic_tile_grid g;
        if (pic_run_tile_grid(R, fr, (pic_tile_metric)m, bg.width, bg.height, &g, missing[m], sizeof missing[m])) {
            miss[m] = 1;
            continue;
        }
        tbr_image img = {0};
        snprintf(rep->p2, sizeof rep->p2, "%s/heat_%s_%05ld.png", rep->outdir, name, fr);
        int bad = pic_heatmap_render(&bg, &g, name, fr, NAN, NAN, &img, NULL, rep->err, sizeof rep->err) ||
                  tbr_png_write_image(rep->p2, &img, rep->err, sizeof rep->err);
        tbr_image_free(&img);
        if (bad) {
            pic_tile_grid_free(&g);
            tbr_image_free(&bg);
            fprintf(stderr, "tbr-report: %s\n", rep->err);
            return 2;
        }
        sb_add(&rep->h,
               "<figure><img src=\"heat_%s_%05ld.png\" alt=\"%s frame %ld\"><figcaption>%s, frame %ld<br><span "
               "class=\"note\">",
               name, fr, name, fr, name, fr);
        sb_esc(&rep->h, g.source);
        sb_add(&rep->h, "</span></figcaption></figure>");
        pic_tile_grid_free(&g);
    }
    sb_add(&rep->h, "</div>\n");
    tbr_image_free(&bg);
    return 0;
}

/* Per-tile heatmaps of the first hframes frames, then the list of metrics not available. */
static int heatmaps(struct report *rep, long hframes)
{
    pic_run *R = &rep->runs[0];
    size_t nf = pic_run_frame_count(R);
    sb_add(&rep->h, "<h2>Per-tile heatmaps</h2>\n");
    static char missing[PIC_M_COUNT][PIC_ERR];
    int miss[PIC_M_COUNT] = {0};
    for (size_t i = 0; i < nf && (long)i < hframes; i++) {
        long fr;
        pic_run_frame_info(R, i, &fr, NULL, NULL);
        if (frame_heatmaps(rep, fr, missing, miss)) return 2;
    }
    int anymiss = 0;
    for (int m = 0; m < PIC_M_COUNT; m++) anymiss |= miss[m];
    if (anymiss) {
        sb_add(&rep->h, "<p class=\"note\">Not available:</p><ul class=\"note\">\n");
        for (int m = 0; m < PIC_M_COUNT; m++)
            if (miss[m]) {
                sb_add(&rep->h, "<li>");
                sb_esc(&rep->h, missing[m]);
                sb_add(&rep->h, "</li>\n");
            }
        sb_add(&rep->h, "</ul>\n");
    }
    return 0;
}

/* Ends the page and writes index.html (atomically). */
static int write_index(struct report *rep)
{
    sb_add(&rep->h,
           "<p id=\"selfcheck\" class=\"note\" data-verdict=\"pending\">image check: pending</p>\n</body></html>\n");
    if (rep->h.oom) {
        fprintf(stderr, "tbr-report: out of memory\n");
        return 2;
    }
    snprintf(rep->p1, sizeof rep->p1, "%s/index.html", rep->outdir);
    if (pic_write_file_atomic(rep->p1, rep->h.s, rep->h.n, rep->err, sizeof rep->err)) {
        fprintf(stderr, "tbr-report: %s\n", rep->err);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static struct report_options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;

    /* Static: the runs and buffers are large. */
    static struct report rep;
    rep.refdir = o.refdir;
    rc = load_inputs(&rep, &o);
    /* REPORT_DIR is built as REPORT_DIR.tmp-PID and renamed when complete (tbr/out_dir.h):
     * never a page of one run with the pictures of another. */
    tbr_out_dir od;
    if (!rc && tbr_out_dir_begin(&od, o.outdir, o.force, rep.err, sizeof rep.err)) {
        fprintf(stderr, "tbr-report: %s\n", rep.err);
        rc = 2;
        od.lock_fd = -1;
    } else if (!rc) {
        tbr_out_dir_cleanup_on_signal(&od);
        rep.outdir = od.tmp_path;
    }
    if (!rc) {
        html_head(&rep, o.title);
        summary_table(&rep);
        frames_table(&rep);
        sb_add(&rep.h, "<h2>Charts</h2>\n");
        rc = chart_frame_cycles(&rep);
    }
    if (!rc) rc = chart_compare(&rep);
    if (!rc) rc = frame_images(&rep);
    if (!rc) rc = heatmaps(&rep, o.hframes);
    if (!rc) rc = write_index(&rep);
    if (rep.outdir && rc)
        tbr_out_dir_abandon(&od);
    else if (rep.outdir && tbr_out_dir_commit(&od, rep.err, sizeof rep.err)) {
        fprintf(stderr, "tbr-report: %s\n", rep.err);
        rc = 2;
    }
    free(rep.h.s);
    for (int r = 0; r < rep.nr; r++) pic_run_free(&rep.runs[r]);
    return rc;
}
