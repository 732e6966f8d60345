/* Per-tile statistics (tile_stats.h). */
#include "core/tile_stats.h"

#include "core/util.h"

#include <stdlib.h>
#include <string.h>

void tile_stats_reset(tile_stats *ts)
{
    tile_stats_free(ts);
    memset(ts, 0, sizeof *ts);
}

void tile_stats_free(tile_stats *ts)
{
    free(ts->begin);
    free(ts->cycles);
    free(ts->frags);
    free(ts->unit);
    free(ts->f_cycles);
    free(ts->f_frags);
    free(ts->f_unit);
    free(ts->f_skip);
    free(ts->f_elim);
}

void tile_stats_pass_begin(tile_stats *ts, uint32_t ntiles)
{
    if (ntiles > ts->cap) {
        ts->begin = tbr_xrealloc(ts->begin, ntiles * sizeof *ts->begin);
        ts->cycles = tbr_xrealloc(ts->cycles, ntiles * sizeof *ts->cycles);
        ts->frags = tbr_xrealloc(ts->frags, ntiles * sizeof *ts->frags);
        ts->unit = tbr_xrealloc(ts->unit, ntiles * sizeof *ts->unit);
        ts->cap = ntiles;
    }
    for (uint32_t t = 0; t < ts->cap; t++) {
        ts->begin[t] = ts->cycles[t] = ts->frags[t] = 0;
        ts->unit[t] = -1;
    }
}

static void frame_grid(tile_stats *ts, uint32_t nt, int64_t res, uint32_t cols, uint32_t rows)
{
    if (nt > ts->f_cap) {
        ts->f_cycles = tbr_xrealloc(ts->f_cycles, nt * sizeof *ts->f_cycles);
        ts->f_frags = tbr_xrealloc(ts->f_frags, nt * sizeof *ts->f_frags);
        ts->f_unit = tbr_xrealloc(ts->f_unit, nt * sizeof *ts->f_unit);
        ts->f_skip = tbr_xrealloc(ts->f_skip, nt);
        ts->f_elim = tbr_xrealloc(ts->f_elim, nt);
        ts->f_cap = nt;
    }
    for (uint32_t t = 0; t < nt; t++) {
        ts->f_cycles[t] = -1;
        ts->f_frags[t] = 0;
        ts->f_unit[t] = -1;
    }
    ts->valid = true;
    ts->res = (uint32_t)res;
    ts->cols = cols;
    ts->rows = rows;
}

/* cycles and fragments are summed over the frame's passes; outcomes and the Raster Unit
 * are the last pass's. */
void tile_stats_pass_end(tile_stats *ts, int64_t default_res, uint32_t cols, uint32_t rows, const int8_t *skip,
                         const int8_t *flush_elim)
{
    uint32_t nt = cols * rows;
    if (default_res < 0 || !nt) return;
    if (!ts->valid || ts->res != (uint32_t)default_res || ts->cols != cols || ts->rows != rows)
        frame_grid(ts, nt, default_res, cols, rows);
    for (uint32_t t = 0; t < nt; t++) {
        if (ts->unit[t] >= 0) {
            ts->f_cycles[t] = (ts->f_cycles[t] < 0 ? 0 : ts->f_cycles[t]) + (int64_t)ts->cycles[t];
            ts->f_unit[t] = ts->unit[t];
        }
        ts->f_frags[t] += (int64_t)ts->frags[t];
        ts->f_skip[t] = skip[t];
        ts->f_elim[t] = flush_elim[t];
    }
}

static int64_t tile_value(const tile_stats *ts, int key, uint32_t t)
{
    switch (key) {
        case 0: return ts->f_cycles[t];
        case 1: return ts->f_frags[t];
        case 2: return ts->f_skip[t];
        case 3: return ts->f_elim[t];
        default: return ts->f_unit[t];
    }
}

void tile_stats_write_frame(const tile_stats *ts, FILE *o, uint64_t frame, uint32_t cols, uint32_t rows)
{
    static const char *const keys[] = {"cycles", "fragments", "re_skipped", "te_eliminated", "raster_unit"};
    fprintf(o, "\n  {\"frame\": %llu", (unsigned long long)frame);
    for (int k = 0; k < 5; k++) {
        fprintf(o, ",\n   \"%s\": [", keys[k]);
        for (uint32_t ty = 0; ty < rows; ty++)
            for (uint32_t tx = 0; tx < cols; tx++) {
                /* simulator tile (tx, ty) covers surface rows [ty*tile_h, ...): PNG rows are
                 * surface rows, so no flip */
                int64_t v = -1;
                if (ts->valid && tx < ts->cols && ty < ts->rows) v = tile_value(ts, k, ty * ts->cols + tx);
                const char *sep = ty == 0 && tx == 0 ? "" : ",";
                if (v < 0)
                    fprintf(o, "%snull", sep);
                else
                    fprintf(o, "%s%lld", sep, (long long)v);
            }
        fputc(']', o);
    }
    fputc('}', o);
}
