/* Running tbr-sim and reading its outputs (stats.json, frames/frame_NNNNN.png) in the
 * timing tests. Helpers that find a mismatch print it and return nonzero; counting
 * failures is left to the caller. */
#ifndef TBR_TEST_SIM_OUTPUT_H
#define TBR_TEST_SIM_OUTPUT_H

#include "tbr/png_io.h"

/* Runs `SIM IN -o OUT --quiet --force --no-check EXTRA` (EXTRA may be NULL; the synthetic
 * traces have no reference PNGs); its exit status, -1 if it did not exit. */
int sim_run(const char *sim, const char *in, const char *out, const char *extra);
/* The whole file PATH, NUL-terminated (malloc'd), or NULL. */
char *sim_slurp(const char *path);
/* Value of the counter NAME in stats.json ("NAME": {... "value": N}), -1 if absent. */
long long sim_stat_value(const char *json, const char *name);
/* Count of EVENT ("read", "write", "quad", ...) of the energy structure STRUCTURE in
 * stats.json's energy report (compact JSON: "structures":{STRUCTURE:{"kind"... "events":
 * {EVENT:{... "count":N}}}}), -1 if absent. */
long long sim_energy_event_count(const char *json, const char *structure, const char *event);
/* 1 (and a message) if pixel (X,Y) of IM is not (R,G,B,A), else 0. */
int sim_pixel_mismatch(const tbr_image *im, unsigned x, unsigned y, int r, int g, int b, int a);
/* Reads OUT/frames/frame_FRAME.png into IM; -1 (and a message) on error. */
int sim_read_frame_png(const char *out, unsigned frame, tbr_image *im);

#endif
