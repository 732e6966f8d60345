/* libFuzzer target: tbr-sim's frame load plus a bounded simulation of one small frame
 * (issue 22). The input's records (fuzz_input.h; the first byte picks the configuration)
 * are written as frame 0 of a container, loaded by the front end (frontend/sim_trace.h)
 * with the Rendering Elimination scan as tbr-sim does, and, if the frame is small, run
 * through gpu_run_frame (tbr-sim's entry point: the overlapped loop or pass by pass) and
 * the frame image made. A loader or simulator error is fine; a crash, sanitizer report,
 * leak or hang is a bug. The GPU of each configuration is built once and reset between
 * inputs (gpu_reset; tests/fuzz/fuzz_sim_frame_reset.c checks that an input gives the same
 * result after others as on a new GPU). */
#include <stdbool.h>
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

/* The harness's state across inputs (libFuzzer's entry point has no context): the scratch
 * container's name and one GPU per configuration the configuration byte selects (its bits
 * 0-4), built at the first input that selects it and reset (gpu_reset) before each later
 * one. Building a GPU was half of each input's time (issue 22: ~450 statistics, caches,
 * DRAM, allocations under ASan). */
#define FUZZ_CONFIGS 32
typedef struct {
    tbr_config *cfg;
    tbr_stats *st;
    gpu *g;
    bool used; /* simulated since it was built or reset */
} fuzz_gpu;
typedef struct {
    char path[64];
    fuzz_gpu gpus[FUZZ_CONFIGS];
    uint64_t builds, resets; /* (the reset check counts them) */
} fuzz_state;

/* The configuration of a configuration byte: the techniques and the Raster Units that
 * read the frame differently; both of gpu_run_frame's loops, whatever overlap's default. */
static tbr_config *fuzz_config(uint8_t bits)
{
    tbr_config *cfg = tbr_config_new();
    char err[256];
    if (bits & 1) tbr_config_set(cfg, "re.enabled", "true", "fuzz", err, sizeof err);
    if (bits & 2) tbr_config_set(cfg, "te.enabled", "true", "fuzz", err, sizeof err);
    if (bits & 4) tbr_config_set(cfg, "tile.raster_units", "2", "fuzz", err, sizeof err);
    if (bits & 8) tbr_config_set(cfg, "texture.layout", "tiled", "fuzz", err, sizeof err);
    tbr_config_set(cfg, "overlap.enabled", bits & 16 ? "true" : "false", "fuzz", err, sizeof err);
    return cfg;
}

static void fuzz_gpu_drop(fuzz_gpu *c)
{
    gpu_free(c->g);
    tbr_stats_free(c->st);
    tbr_config_free(c->cfg);
    memset(c, 0, sizeof *c);
}

/* The GPU of configuration `bits`, as gpu_new leaves it: the cached one reset, or a new
 * one when there is none or its organisation has no reset. */
static gpu *fuzz_gpu_get(fuzz_state *s, uint8_t bits)
{
    fuzz_gpu *c = &s->gpus[bits % FUZZ_CONFIGS];
    if (c->g && c->used) {
        if (gpu_reset(c->g) == 0)
            s->resets++;
        else
            fuzz_gpu_drop(c);
    }
    if (!c->g) {
        char err[4096];
        c->cfg = fuzz_config(bits);
        c->st = tbr_stats_new();
        c->g = gpu_new(c->cfg, c->st, err, sizeof err);
        if (!c->g) abort();
        s->builds++;
    }
    c->used = true;
    return c->g;
}

/* (unused by the fuzzer, which never ends; the reset check frees its state) */
static void __attribute__((unused)) fuzz_state_free(fuzz_state *s)
{
    for (uint32_t k = 0; k < FUZZ_CONFIGS; k++)
        if (s->gpus[k].g) fuzz_gpu_drop(&s->gpus[k]);
}

/* What a simulation produced, for the reset check (fuzz_sim_frame_reset.c): every
 * statistic, the energy counts, the run's outcome and the frame's pixels, written to
 * `digest`. The fuzzer passes NULL: nothing is formatted. */
static void write_digest(FILE *digest, gpu *g, tbr_stats *st, int rc, const char *err, const uint8_t *px, uint32_t w,
                         uint32_t h)
{
    fprintf(digest, "rc %d %s\n", rc, rc ? err : "");
    tbr_stats_dump_text(st, digest);
    gpu_energy_frame_end(g, "frame");
    tbr_energy_report_text(g->en, digest);
    fprintf(digest, "frame %ux%u\n", px ? w : 0, px ? h : 0);
    if (px) fwrite(px, 4, (size_t)w * h, digest);
}

/* Runs the loaded frame on the GPU of configuration `bits`. */
static void simulate_frame(fuzz_state *s, uint8_t bits, sim_frame *fr, su_frame_data *sfd, bool signed_frame,
                           FILE *digest)
{
    gpu *g = fuzz_gpu_get(s, bits);
    fuzz_gpu *c = &s->gpus[bits % FUZZ_CONFIGS];
    char err[4096] = "";
    if (signed_frame) g->sufd = sfd;
    gpu_tiles_frame_begin(g);
    int rc = gpu_run_frame(g, fr, err, sizeof err);
    uint8_t *px = NULL;
    uint32_t w = 0, h = 0;
    if (rc == 0 && fr->has_end && sim_func_frame_rgba8(g->env.fn, fr, &px, &w, &h, err, sizeof err)) px = NULL;
    if (digest) write_digest(digest, g, c->st, rc, err, px, w, h);
    free(px);
    g->sufd = NULL;
    /* a failed run may leave work in flight: build this configuration's GPU anew rather
     * than trust the reset with a state no successful frame ends in */
    if (rc) fuzz_gpu_drop(c);
}

static void simulate(fuzz_state *s, uint8_t bits, tbr_trace_reader *r, FILE *digest)
{
    char err[4096];
    sim_loader *ld = sim_loader_new();
    if (!ld) abort();
    sim_loader_set_texture_layout(ld, 0, 64, 64);
    sim_frame fr;
    sim_frame_init(&fr, ld);
    su_scan scan;
    su_frame_data sfd;
    memset(&scan, 0, sizeof scan);
    memset(&sfd, 0, sizeof sfd);
    const sim_record_observer re_scan = {SU_SCAN_TYPES, su_scan_record, &scan};
    const sim_record_observer *obs = bits & 1 ? &re_scan : NULL; /* re.enabled */
    tbr_trace_frame_info fi;
    if (tbr_trace_reader_next_frame(r, &fi) > 0) {
        if (obs) su_scan_begin(&scan, &sfd);
        int lrc = sim_frame_load(&fr, r, fi.number, obs, err, sizeof err);
        if (obs && lrc == 0) {
            su_scan_end(&scan);
            sfd.valid = sfd.nprims == fr.nprims && sfd.ndraws == fr.ndraws;
        }
        if (lrc == 0 && small_frame(&fr, bits & 32)) simulate_frame(s, bits & 31, &fr, &sfd, obs != NULL, digest);
    }
    su_frame_data_free(&sfd);
    su_scan_free(&scan);
    sim_frame_free(&fr);
    sim_loader_free(ld);
}

/* One input (the configuration byte, then the frame's records; fuzz_input.h). */
static void fuzz_sim_frame_run(fuzz_state *s, const uint8_t *data, size_t size, FILE *digest)
{
    if (!s->path[0]) fuzz_scratch_path(s->path, sizeof s->path, "sim.tbrt");
    if (size < 1) return;
    tbr_trace_error e;
    tbr_trace_reader *r = write_container(s->path, data, size) ? NULL : tbr_trace_reader_open(s->path, &e);
    unlink(s->path); /* the reader has it open; nothing is left in /dev/shm, even after a crash */
    if (!r) return;
    simulate(s, data[0], r, digest);
    tbr_trace_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fuzz_state state; /* lives as long as the process: its GPUs stay reachable */
    fuzz_sim_frame_run(&state, data, size, NULL);
    return 0;
}
