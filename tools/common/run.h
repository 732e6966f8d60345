/* A tbr-sim output directory (stats.json, frames/, optional per-tile data and energy). */
#ifndef TBR_PIC_RUN_H
#define TBR_PIC_RUN_H
#include <stddef.h>

#include "json.h"

#define PIC_ERR 4800

typedef struct {
    char dir[4096];
    char stats_path[4200];
    pj_value *stats;        /* stats.json */
    pj_value *tiles_doc;    /* tiles.json when present (else NULL) */
    pj_value *energy_doc;   /* energy.json when present (else NULL) */
    const pj_value *tiles;  /* "tiles" object: stats.json "tiles" or tiles.json */
    const pj_value *energy; /* energy report: stats.json "energy" or energy.json */
} pic_run;

/* Load DIR/stats.json (required: an object with a "frames" array). 0 ok, -1 (message names the file). */
int pic_run_load(pic_run *r, const char *dir, char *err, size_t err_size);
void pic_run_free(pic_run *r);

size_t pic_run_frame_count(const pic_run *r);
/* i-th entry of "frames": frame number, cycles, bit_exact (-1 unknown) */
int pic_run_frame_info(const pic_run *r, size_t i, long *frame, double *cycles, int *bit_exact);
/* Index of frame number N in "frames", or -1. */
long pic_run_frame_index(const pic_run *r, long frame);
/* Path of the simulated frame PNG: DIR/frames/frame_NNNNN.png */
void pic_run_frame_path(const pic_run *r, long frame, char *buf, size_t n);

/* A run-level metric (see docs/tools-pictures.md "Metric names"). frame < 0 = total.
 * 0 ok, -1 not found (message names the file and the metric). */
int pic_run_metric(const pic_run *r, const char *name, long frame, double *out, char *err, size_t err_size);

/* Per-tile metrics of the heatmap. */
typedef enum {
    PIC_M_CYCLES,
    PIC_M_FRAGMENTS,
    PIC_M_OVERDRAW,
    PIC_M_RE_SKIPPED,
    PIC_M_TE_ELIMINATED,
    PIC_M_RASTER_UNIT,
    PIC_M_COUNT
} pic_tile_metric;

const char *pic_tile_metric_name(pic_tile_metric m); /* command-line name */
const char *pic_tile_metric_key(pic_tile_metric m);  /* JSON key */
int pic_tile_metric_parse(const char *s, pic_tile_metric *m);
int pic_tile_metric_categorical(pic_tile_metric m);

typedef struct {
    unsigned tile_w, tile_h, cols, rows;
    double *v; /* cols*rows values, row-major, row 0 = top of the frame PNG; NAN = no value */
    int categorical;
    int ncat; /* categorical: number of categories */
    const char *cat_label[16];
    char source[160]; /* where the values came from (legend/footnote) */
} pic_tile_grid;

/* Fill a grid for `frame` of an image of width x height. 0 ok, -1 (message says what is missing). */
int pic_run_tile_grid(const pic_run *r, long frame, pic_tile_metric m, unsigned width, unsigned height,
                      pic_tile_grid *g, char *err, size_t err_size);
void pic_tile_grid_free(pic_tile_grid *g);
#endif
