/* libFuzzer target: tbr-sim's frame load plus a bounded simulation of one small frame
 * (issue 22). The input's records (fuzz_input.h; the first byte picks the configuration)
 * are written as frame 0 of a container, loaded by the front end (frontend/sim_trace.h)
 * with the Rendering Elimination scan as tbr-sim does, and, if the frame is small, run
 * through gpu_run_frame (tbr-sim's entry point: the overlapped loop or pass by pass) and
 * the frame image made. A loader or simulator error is fine; a crash, sanitizer report,
 * leak or hang is a bug. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "core/stats.h"
#include "fuzz_input.h"
#include "gpu.h"
#include "techniques/signature_unit.h"

/* What a simulated frame may hold: every pass and the frame at most 64 x 64 pixels (16
 * tiles), 1024 quads. The simulation's cost is per pixel and per cycle (tile loads and
 * stores, DRAM): a 320 x 240 frame took 17 ms per input under the sanitizers, so the
 * campaign could not reach 10M executions. Larger frames are still loaded and scanned;
 * with bit 5 of the configuration byte set, frames up to the samples' size (320 x 256,
 * 4096 quads) are simulated too, so that inputs made from the samples' real frames (their
 * textures, shaders, vertex fetches) keep reaching the simulator: the seed
 * regress-vtex-null-vfetches has it (its bug is in a 320 x 240 frame). */
#define FUZZ_MAX_PIXELS       (64u * 64u)
#define FUZZ_MAX_QUADS        1024u
#define FUZZ_LARGE_MAX_PIXELS (320u * 256u)
#define FUZZ_LARGE_MAX_QUADS  4096u

static int write_container(const char *path, const uint8_t *data, size_t size)
{
    tbr_trace_error e;
    tbr_trace_writer *w = tbr_trace_writer_open(path, "records_schema=3\nrecords_schema_minor=7\n", &e);
    if (!w) return -1;
    tbr_trace_writer_begin_frame(w, 0);
    size_t pos = 1, len;
    uint16_t type;
    const uint8_t *p;
    while (fuzz_next_record(data, size, &pos, &type, &p, &len))
        if (type) tbr_trace_writer_append(w, type, p, len);
    tbr_trace_writer_end_frame(w);
    return tbr_trace_writer_close(w, NULL, &e);
}

static int small_frame(const sim_frame *f, int large)
{
    const uint64_t max_pixels = large ? FUZZ_LARGE_MAX_PIXELS : FUZZ_MAX_PIXELS;
    if (f->nquads > (large ? FUZZ_LARGE_MAX_QUADS : FUZZ_MAX_QUADS)) return 0;
    for (size_t i = 0; i < f->npasses; i++)
        if ((uint64_t)f->passes[i].rp.width * f->passes[i].rp.height > max_pixels) return 0;
    return (uint64_t)f->end.width * f->end.height <= max_pixels;
}

static void simulate(tbr_config *cfg, tbr_trace_reader *r, int large)
{
    char err[4096];
    tbr_stats *st = tbr_stats_new();
    gpu *g = gpu_new(cfg, st, err, sizeof err);
    sim_loader *ld = sim_loader_new();
    if (!g || !ld) abort();
    sim_loader_set_texture_layout(ld, 0, 64, 64);
    sim_frame fr;
    sim_frame_init(&fr, ld);
    su_scan scan;
    su_frame_data sfd;
    memset(&scan, 0, sizeof scan);
    memset(&sfd, 0, sizeof sfd);
    const sim_record_observer re_scan = {SU_SCAN_TYPES, su_scan_record, &scan};
    const sim_record_observer *obs = tbr_cfg_bool(cfg, "re.enabled") ? &re_scan : NULL;
    tbr_trace_frame_info fi;
    if (tbr_trace_reader_next_frame(r, &fi) > 0) {
        if (obs) su_scan_begin(&scan, &sfd);
        int lrc = sim_frame_load(&fr, r, fi.number, obs, err, sizeof err);
        if (obs && lrc == 0) {
            su_scan_end(&scan);
            sfd.valid = sfd.nprims == fr.nprims && sfd.ndraws == fr.ndraws;
            g->sufd = &sfd;
        }
        if (lrc == 0 && small_frame(&fr, large)) {
            gpu_tiles_frame_begin(g);
            int ok = gpu_run_frame(g, &fr, err, sizeof err) == 0;
            uint8_t *px;
            uint32_t w, h;
            if (ok && fr.has_end && sim_func_frame_rgba8(g->env.fn, &fr, &px, &w, &h, err, sizeof err) == 0) free(px);
        }
    }
    su_frame_data_free(&sfd);
    su_scan_free(&scan);
    sim_frame_free(&fr);
    sim_loader_free(ld);
    gpu_free(g);
    tbr_stats_free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) fuzz_scratch_path(path, sizeof path, "sim.tbrt");
    if (size < 1) return 0;
    tbr_trace_error e;
    tbr_trace_reader *r = write_container(path, data, size) ? NULL : tbr_trace_reader_open(path, &e);
    unlink(path); /* the reader has it open; nothing is left in /dev/shm, even after a crash */
    if (!r) return 0;
    tbr_config *cfg = tbr_config_new();
    char err[256];
    /* configuration byte: the techniques and the Raster Units that read the frame differently */
    if (data[0] & 1) tbr_config_set(cfg, "re.enabled", "true", "fuzz", err, sizeof err);
    if (data[0] & 2) tbr_config_set(cfg, "te.enabled", "true", "fuzz", err, sizeof err);
    if (data[0] & 4) tbr_config_set(cfg, "tile.raster_units", "2", "fuzz", err, sizeof err);
    if (data[0] & 8) tbr_config_set(cfg, "texture.layout", "tiled", "fuzz", err, sizeof err);
    /* both of gpu_run_frame's loops, whatever overlap's default */
    tbr_config_set(cfg, "overlap.enabled", data[0] & 16 ? "true" : "false", "fuzz", err, sizeof err);
    simulate(cfg, r, data[0] & 32);
    tbr_config_free(cfg);
    tbr_trace_reader_close(r);
    return 0;
}
