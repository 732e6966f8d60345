/* libFuzzer target: the picture tools' JSON readers (tools/common: json.c, run.c; issue 22).
 * The input is parsed as stats.json and read as tbr-report / tbr-heatmap / tbr-barchart read
 * a run: frames, run-level metrics, every per-tile grid. Errors are fine; a crash, sanitizer
 * report, leak or hang is a bug. */
#include <stdint.h>
#include <string.h>

#include "json.h"
#include "run.h"

static const char *const metrics[] = {"cycles",           "frames",          "energy.total_uj",
                                      "quads.rasterized", "dram.bytes_read", "re.tiles_skipped",
                                      "no.such",          "cycles.total",    NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[PIC_ERR];
    pj_value *v = pj_parse((const char *)data, size, err, sizeof err);
    if (!v) return 0;
    pic_run r;
    memset(&r, 0, sizeof r);
    strcpy(r.dir, "/nonexistent");
    r.stats = v;
    r.tiles = pj_get(v, "tiles");
    r.energy = pj_get(v, "energy");
    (void)pj_path(v, "config.tile.width");
    size_t nf = pic_run_frame_count(&r);
    long first = -1;
    for (size_t i = 0; i < nf; i++) {
        long frame;
        double cycles;
        int exact;
        if (pic_run_frame_info(&r, i, &frame, &cycles, &exact) == 0 && first < 0) first = frame;
    }
    (void)pic_run_frame_index(&r, first);
    double d;
    for (int k = 0; metrics[k]; k++) {
        (void)pic_run_metric(&r, metrics[k], -1, &d, err, sizeof err);
        (void)pic_run_metric(&r, metrics[k], first, &d, err, sizeof err);
    }
    for (int m = 0; m < PIC_M_COUNT; m++) {
        pic_tile_grid g;
        memset(&g, 0, sizeof g);
        if (pic_run_tile_grid(&r, first, (pic_tile_metric)m, 64, 48, &g, err, sizeof err) == 0) pic_tile_grid_free(&g);
    }
    pj_free(v);
    return 0;
}
