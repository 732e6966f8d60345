/* Per-tile statistics (docs/timing-model.md "Per-tile data"; tbr-sim's tiles.json): each
 * tile's raster time, fragments, Raster Unit, and the techniques' outcomes (RE skip, TE
 * flush elimination), for the current pass and summed over the passes of a frame that
 * render the default framebuffer. The Raster Units report tile begin / end / fragments;
 * the pass loop reports pass boundaries. */
#ifndef TBR_TILE_STATS_H
#define TBR_TILE_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    /* the current pass, per tile */
    uint64_t *begin, *cycles, *frags;
    int32_t *unit; /* Raster Unit, -1 = not rasterized */
    uint32_t cap;
    /* the frame: passes that render the default framebuffer (cycles and fragments summed,
     * flags and unit of the last such pass); -1 = no value */
    int64_t *f_cycles, *f_frags;
    int32_t *f_unit;
    int8_t *f_skip, *f_elim;
    uint32_t f_cap, cols, rows, res;
    bool valid;
} tile_stats;

void tile_stats_free(tile_stats *ts);
/* No data, as a zeroed tile_stats (gpu_reset). */
void tile_stats_reset(tile_stats *ts);
/* Forget the previous frame's (before the frame's first pass). */
static inline void tile_stats_frame_begin(tile_stats *ts) { ts->valid = false; }
void tile_stats_pass_begin(tile_stats *ts, uint32_t ntiles);
/* A Raster Unit's rasterizer begins the tile / its last flush line is sent / Early-Z
 * passed fragments of it. */
static inline void tile_stats_tile_begin(tile_stats *ts, uint32_t tile, uint64_t cycle, uint32_t unit)
{
    if (tile >= ts->cap) return;
    ts->begin[tile] = cycle;
    ts->unit[tile] = (int32_t)unit;
}
static inline void tile_stats_tile_end(tile_stats *ts, uint32_t tile, uint64_t cycle)
{
    if (tile < ts->cap && ts->unit[tile] >= 0) ts->cycles[tile] = cycle - ts->begin[tile];
}
static inline void tile_stats_fragments(tile_stats *ts, uint32_t tile, uint32_t n)
{
    if (tile < ts->cap) ts->frags[tile] += n;
}
/* After the raster phase of a pass with cols x rows tiles: when it renders the default
 * framebuffer (resource default_res >= 0), its tiles join the frame's (a pass into
 * another default surface than the one gathered so far starts over). skip / flush_elim:
 * the techniques' per-tile outcomes (-1 undecided, 0, 1). */
void tile_stats_pass_end(tile_stats *ts, int64_t default_res, uint32_t cols, uint32_t rows, const int8_t *skip,
                         const int8_t *flush_elim);
/* Writes the frame's entry of the "tiles" object ({"frame": N, "cycles": [...], ...}) for
 * a cols x rows grid (row-major, row 0 = the top row of the frame PNG); tiles without a
 * value are null. */
void tile_stats_write_frame(const tile_stats *ts, FILE *o, uint64_t frame, uint32_t cols, uint32_t rows);

#endif
