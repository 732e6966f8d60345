/* Work-tile granularity and DFSL (Emerald, seeds/002 sec. 6; docs/techniques.md "DFSL"):
 * the two pure pieces of the technique (dfsl.c), apart so that tests can drive them.
 *
 * Work tiles (sec. 6, Fig. 15): the screen's tiles are grouped in N x N work tiles; the
 * k-th work tile of the schedule goes to Raster Unit k mod units. The Tile Fetcher, one
 * in-order stream, visits the units' tile lists interleaved (one tile of unit 0, one of
 * unit 1, ...) so that every unit has work while the lists last; with N = 1 this is the
 * static interleaving of the plain schedule.
 *
 * The DFSL controller (sec. 6.3, Algorithm 1): an evaluation phase renders one frame with
 * each candidate size 1..max_n, then the size with the lowest measured frame time (the
 * smallest on a tie) is used for run_frames frames, then the next evaluation begins. */
#ifndef TBR_DFSL_H
#define TBR_DFSL_H

#include <stdbool.h>
#include <stdint.h>

/* Rewrites order (in: the Tile Fetcher's schedule by tile.order, row-major tile indices of a
 * tiles_x x tiles_y grid; out: the dispatch order) for n x n work tiles and `units` Raster
 * Units; unit_at[k] = the unit of order[k]. The work tiles are ordered by their first tile
 * in the schedule, the tiles inside one keep the schedule's order. Both arrays have
 * tiles_x * tiles_y entries. */
void work_tile_schedule(uint32_t *order, uint32_t tiles_x, uint32_t tiles_y, uint32_t n, uint32_t units,
                        uint32_t *unit_at);

typedef struct {
    uint32_t max_n, run_frames;
    bool evaluating;
    uint32_t pos;       /* frames done in the current phase */
    uint32_t n;         /* the size of the frame in flight */
    uint32_t best_n;    /* the evaluation's winner so far */
    uint64_t best_time; /* its measured frame time */
} dfsl_ctl;

void dfsl_ctl_init(dfsl_ctl *c, uint32_t max_n, uint32_t run_frames);
/* The work-tile size for the next frame. */
uint32_t dfsl_ctl_frame_begin(dfsl_ctl *c);
/* That frame took `time` (cycles of its raster phases); true when it was an evaluation frame. */
bool dfsl_ctl_frame_end(dfsl_ctl *c, uint64_t time);

#endif
