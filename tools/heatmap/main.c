/* tbr-heatmap: per-tile metric of one frame drawn over the frame (docs/tools-pictures.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pictures.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: tbr-heatmap OUT_DIR --frame N --metric METRIC -o MAP.png [--over IMAGE.png]\n"
               "                   [--min X] [--max Y]\n"
               "  OUT_DIR        a tbr-sim output directory (stats.json, frames/)\n"
               "  --frame N      frame number (default: the first frame in stats.json)\n"
               "  --metric M     cycles | fragments | overdraw | re-skipped | te-eliminated | raster-unit\n"
               "  -o, --output MAP.png  output PNG (written atomically)\n"
               "  --over IMAGE   draw over IMAGE (e.g. the reference frame) instead of OUT_DIR/frames/frame_NNNNN.png\n"
               "  --min/--max    colour scale range (default: the frame's min/max over tiles)\n"
               "  -q, --quiet    accepted as by every tbrsim tool (this one prints no progress)\n"
               "  -h, --help     this help;  -V, --version  print the version\n"
               "Exit: 0 ok, 2 bad usage or input.\n");
}

static int parse_double(const char *s, double *out)
{
    char *e;
    errno = 0;
    *out = strtod(s, &e);
    return (!*s || *e || errno) ? -1 : 0;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *metric_s = NULL, *outp = NULL, *over = NULL;
    long frame = -1;
    double rmin = NAN, rmax = NAN;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) continue; /* prints no progress: nothing to silence */
        if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            printf("tbr-heatmap %s\n", TBR_VERSION);
            return 0;
        }
        if ((!strcmp(a, "--frame") || !strcmp(a, "--metric") || !strcmp(a, "-o") || !strcmp(a, "--output") ||
             !strcmp(a, "--over") || !strcmp(a, "--min") || !strcmp(a, "--max")) &&
            !has) {
            fprintf(stderr, "tbr-heatmap: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--frame")) {
            char *e;
            frame = strtol(argv[++i], &e, 10);
            if (!*argv[i] || *e || frame < 0) {
                fprintf(stderr, "tbr-heatmap: bad --frame '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--metric"))
            metric_s = argv[++i];
        else if (!strcmp(a, "-o") || !strcmp(a, "--output"))
            outp = argv[++i];
        else if (!strcmp(a, "--over"))
            over = argv[++i];
        else if (!strcmp(a, "--min") || !strcmp(a, "--max")) {
            if (parse_double(argv[i + 1], !strcmp(a, "--min") ? &rmin : &rmax)) {
                fprintf(stderr, "tbr-heatmap: bad %s '%s'\n", a, argv[i + 1]);
                return 2;
            }
            i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "tbr-heatmap: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (!dir)
            dir = a;
        else {
            fprintf(stderr, "tbr-heatmap: unexpected argument '%s'\n", a);
            return 2;
        }
    }
    if (!dir || !metric_s || !outp) {
        fprintf(stderr, "tbr-heatmap: need OUT_DIR, --metric and -o\n");
        usage(stderr);
        return 2;
    }
    pic_tile_metric m;
    if (pic_tile_metric_parse(metric_s, &m)) {
        fprintf(
            stderr,
            "tbr-heatmap: unknown metric '%s' (cycles, fragments, overdraw, re-skipped, te-eliminated, raster-unit)\n",
            metric_s);
        return 2;
    }
    static char err[PIC_ERR];
    pic_run run;
    if (pic_run_load(&run, dir, err, sizeof err)) {
        fprintf(stderr, "tbr-heatmap: %s\n", err);
        return 2;
    }
    if (frame < 0) {
        if (pic_run_frame_info(&run, 0, &frame, NULL, NULL)) {
            fprintf(stderr, "tbr-heatmap: %s: no frames\n", run.stats_path);
            pic_run_free(&run);
            return 2;
        }
    } else if (pic_run_frame_index(&run, frame) < 0) {
        fprintf(stderr, "tbr-heatmap: %s: no frame %ld\n", run.stats_path, frame);
        pic_run_free(&run);
        return 2;
    }
    char bgpath[4400];
    if (over)
        snprintf(bgpath, sizeof bgpath, "%s", over);
    else
        pic_run_frame_path(&run, frame, bgpath, sizeof bgpath);
    tbr_image bg = {0}, out = {0};
    pic_tile_grid g = {0};
    int rc = 2;
    if (tbr_png_read_rgba8(bgpath, &bg, err, sizeof err)) {
        fprintf(stderr, "tbr-heatmap: %s\n", err);
        goto done;
    }
    if (pic_run_tile_grid(&run, frame, m, bg.width, bg.height, &g, err, sizeof err)) {
        fprintf(stderr, "tbr-heatmap: %s\n", err);
        goto done;
    }
    if (pic_heatmap_render(&bg, &g, pic_tile_metric_name(m), frame, rmin, rmax, &out, NULL, err, sizeof err) ||
        tbr_png_write_image(outp, &out, err, sizeof err)) {
        fprintf(stderr, "tbr-heatmap: %s\n", err);
        goto done;
    }
    rc = 0;
done:
    tbr_image_free(&bg);
    tbr_image_free(&out);
    pic_tile_grid_free(&g);
    pic_run_free(&run);
    return rc;
}
