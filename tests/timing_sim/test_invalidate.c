/* Tile stores honouring invalidation (INVALIDATE records, records minor 11; depth.store and
 * color.store, docs/timing-model.md "Tile buffer stores") on a synthetic two-pass frame.
 * usage: test_invalidate TBR_SIM_BINARY WORKDIR
 *        (TBR_SIM_TEST = color_invalidate | undefined_load | imr_undefined_load)
 * Scene (8x8 targets, one 32x32 tile): pass 0 on an FBO (color resource 3 B8G8R8A8, depth
 * resource 4 Z24S8) clears both and draws green with depth writes; then INVALIDATE records
 * as the case says; pass 1 clears the window (resource 1) and draws red: the frame is red.
 * Every surface's tile is 8 rows of 8 px x 4 B = 32 B, one 64-byte line per row: a store is
 * 8 lines (512 B) per surface. By hand, with the FBO pass storing its color (8 lines) and
 * its depth (8 lines, written in an FBO pass: depth.store=auto stores it) and the window's
 * color (8 lines):
 *   color invalidated, auto:                 flush 8, depth 8, skipped 512 B
 *   color invalidated, color.store=always:   flush 16, depth 8, skipped 0
 *   color + depth invalidated, auto:         flush 8, depth 0, skipped 1024 B
 *   the same with depth.store=always:        flush 8, depth 8, skipped 512 B (always ignores it)
 *   color invalidated, then drawn again:     flush 16, depth 8, skipped 0
 *   INVALIDATE of a resource not bound:      flush 16, depth 8, skipped 0
 * The color port writes the flush and depth lines; every run's frame is the red window
 * (timing only: invalidation changes no pixel). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim_output.h"
#include "synth_trace.h"
#include "tbr/png_io.h"

#include "check.h"

#define BGRA "PIPE_FORMAT_B8G8R8A8_UNORM"
static const float RED[4] = {1, 0, 0, 1}, GREEN[4] = {0, 1, 0, 1};
static const char *g_sim;

enum { INV_COLOR = 1, INV_DEPTH = 2, INV_REDRAW = 4, INV_UNBOUND = 8 };

static void invalidate(uint32_t res, uint32_t buffers)
{
    tbr_rec_invalidate r = {res, buffers};
    SYNTH_EMIT(TBR_REC_INVALIDATE, tbr_rec_invalidate_encode, &r);
}

static void gen(const char *dir, int how)
{
    synth_trace_open(dir, "test_invalidate");
    synth_begin_frame(0);
    synth_resource(1, BGRA, 8, 8, 4, 1);
    synth_resource(3, BGRA, 8, 8, 4, 0);
    synth_resource(4, "PIPE_FORMAT_Z24_UNORM_S8_UINT", 8, 8, 4, 0);
    synth_resource(5, BGRA, 8, 8, 4, 0);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, 2);
    synth_render_pass_default = 0;
    synth_render_pass(0, 8, 8, 3, 4);
    synth_clear(7, 0, 0, 0, 1, 0xffffff);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 3);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 1, 4);
    synth_draw(0, 0, 1, 2);
    synth_prim(0, 0, 0, 0, 8, 8);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 3);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 1, 4);
    synth_quads(0, 0, 0, 8, 8, GREEN, 0x800000, 1, 0);
    if (how & INV_COLOR) invalidate(3, 4u); /* color buffer 0 of the pass */
    if (how & INV_DEPTH) invalidate(4, 3u); /* its depth/stencil buffer */
    if (how & INV_UNBOUND) invalidate(5, 0u);
    if (how & INV_REDRAW) { /* written again after the invalidation: stored */
        synth_draw(1, 0, 0, 2);
        synth_prim(1, 0, 0, 0, 8, 8);
        synth_quads(1, 0, 0, 8, 8, GREEN, 0, 0, 0);
    }
    synth_tile(TBR_REC_TILE_STORE, 0, 3);
    synth_tile(TBR_REC_TILE_STORE, 1, 4);
    synth_render_pass_default = 1;
    synth_render_pass(1, 8, 8, 1, 0);
    synth_clear(4, 0, 0, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
    synth_draw(how & INV_REDRAW ? 2 : 1, 0, 0, 2);
    synth_prim(how & INV_REDRAW ? 2 : 1, 0, 0, 0, 8, 8);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
    synth_quads(how & INV_REDRAW ? 2 : 1, 0, 0, 8, 8, RED, 0, 0, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_frame_end(0, 8, 8);
    synth_end_frame();
    synth_trace_close();
}

static void test_color_invalidate(const char *work)
{
    static const struct {
        const char *name;
        int how;
        const char *set;
        long long flush, depth, skipped;
    } cases[] = {
        {"color_auto", INV_COLOR, "", 8, 8, 512},
        {"color_always", INV_COLOR, "--set color.store=always", 16, 8, 0},
        {"both_auto", INV_COLOR | INV_DEPTH, "", 8, 0, 1024},
        {"both_depth_always", INV_COLOR | INV_DEPTH, "--set depth.store=always", 8, 8, 512},
        {"redrawn", INV_COLOR | INV_REDRAW, "", 16, 8, 0},
        {"unbound", INV_UNBOUND, "", 16, 8, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char in[1024], out[1100], path[1200];
        snprintf(in, sizeof in, "%s/%s", work, cases[i].name);
        snprintf(out, sizeof out, "%s.out", in);
        gen(in, cases[i].how);
        /* one render pass at a time, whatever overlap.enabled's default */
        char extra[256];
        snprintf(extra, sizeof extra, "--set overlap.enabled=false %s", cases[i].set);
        CHECK(sim_run(g_sim, in, out, extra) == 0);
        tbr_image im;
        if (sim_read_frame_png(out, 0, &im) == 0) {
            CHECK(sim_pixel_mismatch(&im, 0, 0, 255, 0, 0, 255) == 0 &&
                  sim_pixel_mismatch(&im, 7, 7, 255, 0, 0, 255) == 0);
            tbr_image_free(&im);
        } else {
            failures++;
        }
        snprintf(path, sizeof path, "%s/stats.json", out);
        char *j = sim_slurp(path);
        long long f = j ? sim_stat_value(j, "tiles.flush_lines") : -1;
        long long z = j ? sim_stat_value(j, "tiles.depth_store_lines") : -1;
        long long s = j ? sim_stat_value(j, "tiles.invalidated_store_bytes") : -1;
        long long w = j ? sim_stat_value(j, "mem.ru0.color.writes") : -1;
        fprintf(stderr, "%s: flush lines %lld, depth store lines %lld, skipped %lld B, color port writes %lld\n",
                cases[i].name, f, z, s, w);
        CHECK(f == cases[i].flush && z == cases[i].depth && s == cases[i].skipped && w == f + z);
        free(j);
    }
}

/* Loads skipped for undefined contents (tile.restore=used; docs/timing-model.md "Tile buffer
 * loads"): pass 0 renders the FBO (color 3, depth 4: cleared, green drawn with depth), pass 1
 * another FBO (color 5, cleared), pass 2 the first FBO again without a clear (a green draw
 * tested and writing depth: it loads both planes, 8 lines each), pass 3 the window (cleared,
 * red). Between them, as the case says: INVALIDATE of
 * the FBO's resources while pass 1 binds neither (buffers 0), an UPLOAD to the color
 * resource after that (written again: defined), or INVALIDATE of the color bound in pass 0
 * after its last write. By hand (8 lines = 512 B per plane):
 *   nothing invalidated:                       loads 16, skipped 0
 *   both invalidated in pass 1 (unbound):      loads 0,  skipped 1024
 *   the same with tile.restore=always:         loads 16, skipped 0
 *   only color invalidated in pass 1:          loads 8,  skipped 512
 *   both invalidated, then color uploaded:     loads 8,  skipped 512
 *   color invalidated at the end of pass 0:    loads 8,  skipped 512 (and its store, 512 B)
 * Every run's frame is the red window. */
enum { UND_BOTH = 1, UND_COLOR = 2, UND_UPLOAD = 4, UND_IN_PASS0 = 8, UND_BIG5 = 16 };

static void gen_undefined(const char *dir, int how)
{
    synth_trace_open(dir, "test_invalidate");
    synth_begin_frame(0);
    synth_resource(1, BGRA, 8, 8, 4, 1);
    synth_resource(3, BGRA, 8, 8, 4, 0);
    synth_resource(4, "PIPE_FORMAT_Z24_UNORM_S8_UINT", 8, 8, 4, 0);
    const int w5 = how & UND_BIG5 ? 64 : 8; /* 64x8: 32 lines, evicting a 1 KiB IMR cache */
    synth_resource(5, BGRA, (uint32_t)w5, 8, 4, 0);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, 2);
    synth_render_pass_default = 0;
    synth_render_pass(0, 8, 8, 3, 4);
    synth_clear(7, 0, 0, 0, 1, 0xffffff);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 3);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 1, 4);
    synth_draw(0, 0, 1, 2);
    synth_prim(0, 0, 0, 0, 8, 8);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 3);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 1, 4);
    synth_quads(0, 0, 0, 8, 8, GREEN, 0x800000, 1, 0);
    if (how & UND_IN_PASS0) invalidate(3, 4u);
    synth_tile(TBR_REC_TILE_STORE, 0, 3);
    synth_tile(TBR_REC_TILE_STORE, 1, 4);
    synth_render_pass(1, (uint32_t)w5, 8, 5, 0);
    synth_clear(4, 0, 0, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 5);
    if (how & (UND_BOTH | UND_COLOR)) invalidate(3, 0u); /* not bound by this pass */
    if (how & UND_BOTH) invalidate(4, 0u);
    if (how & UND_UPLOAD) {
        tbr_rec_upload u = {.resource_id = 3, .box = {0, 0, 0, 8, 8, 1}, .bytes = 256};
        SYNTH_EMIT(TBR_REC_UPLOAD, tbr_rec_upload_encode, &u);
    }
    synth_draw(1, 0, 0, 2);
    synth_prim(1, 0, 0, 0, (float)w5, 8);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 5);
    synth_quads(1, 0, 0, w5, 8, GREEN, 0, 0, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, 5);
    synth_render_pass(2, 8, 8, 3, 4);
    synth_draw(2, 0, 1, 2);
    synth_prim(2, 0, 0, 0, 8, 8);
    synth_tile(TBR_REC_TILE_LOAD, 0, 3);
    synth_tile(TBR_REC_TILE_LOAD, 1, 4);
    synth_quads(2, 0, 0, 8, 8, GREEN, 0x400000, 1, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, 3);
    synth_tile(TBR_REC_TILE_STORE, 1, 4);
    synth_render_pass_default = 1;
    synth_render_pass(3, 8, 8, 1, 0);
    synth_clear(4, 0, 0, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
    synth_draw(3, 0, 0, 2);
    synth_prim(3, 0, 0, 0, 8, 8);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
    synth_quads(3, 0, 0, 8, 8, RED, 0, 0, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_frame_end(0, 8, 8);
    synth_end_frame();
    synth_trace_close();
}

static void test_undefined_load(const char *work)
{
    static const struct {
        const char *name;
        int how;
        const char *set;
        long long loads, skipped, store_skipped;
    } cases[] = {
        {"und_none", 0, "", 16, 0, 0},
        {"und_both", UND_BOTH, "", 0, 1024, 0},
        {"und_both_always", UND_BOTH, "--set tile.restore=always", 16, 0, 0},
        {"und_color", UND_COLOR, "", 8, 512, 0},
        {"und_uploaded", UND_BOTH | UND_UPLOAD, "", 8, 512, 0},
        {"und_in_pass0", UND_IN_PASS0, "", 8, 512, 512},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char in[1024], out[1100], path[1200];
        snprintf(in, sizeof in, "%s/%s", work, cases[i].name);
        snprintf(out, sizeof out, "%s.out", in);
        gen_undefined(in, cases[i].how);
        char extra[256];
        snprintf(extra, sizeof extra, "--set overlap.enabled=false %s", cases[i].set);
        CHECK(sim_run(g_sim, in, out, extra) == 0);
        tbr_image im;
        if (sim_read_frame_png(out, 0, &im) == 0) {
            CHECK(sim_pixel_mismatch(&im, 0, 0, 255, 0, 0, 255) == 0 &&
                  sim_pixel_mismatch(&im, 7, 7, 255, 0, 0, 255) == 0);
            tbr_image_free(&im);
        } else {
            failures++;
        }
        snprintf(path, sizeof path, "%s/stats.json", out);
        char *j = sim_slurp(path);
        long long l = j ? sim_stat_value(j, "tiles.buffer_load_lines") : -1;
        long long s = j ? sim_stat_value(j, "tiles.undefined_load_bytes") : -1;
        long long st = j ? sim_stat_value(j, "tiles.invalidated_store_bytes") : -1;
        long long r = j ? sim_stat_value(j, "mem.ru0.color.reads") + sim_stat_value(j, "mem.ru0.depth.reads") : -1;
        fprintf(stderr, "%s: load lines %lld, skipped %lld B, store skipped %lld B, color+depth port reads %lld\n",
                cases[i].name, l, s, st, r);
        CHECK(l == cases[i].loads && s == cases[i].skipped && st == cases[i].store_skipped && r == l);
        free(j);
    }
}

/* The same under IMR (docs/organisations.md "Invalidation"): with 1 KiB caches (16 lines, 4
 * sets of 4 ways) and a 64x8 FBO in pass 1 (32 lines: every set sees 8 new lines), the
 * color lines pass 0 left in the color cache are evicted, so pass 2's draw misses on the 4
 * lines of the 8x8 color plane (256 B). Nothing invalidated: 4 line reads. Both resources
 * invalidated in pass 1: the plane starts undefined, its 4 misses read nothing
 * (imr.color_cache.undefined_fills 4, line reads 0). Pass 2's depth lines are still cached
 * (no other pass has depth): no depth read either way. */
static void test_imr_undefined(const char *work)
{
    static const struct {
        const char *name;
        int how;
        long long reads, undefined;
    } cases[] = {{"imr_und_none", UND_BIG5, 4, 0}, {"imr_und_both", UND_BIG5 | UND_BOTH, 0, 4}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char in[1024], out[1100], path[1200];
        snprintf(in, sizeof in, "%s/%s", work, cases[i].name);
        snprintf(out, sizeof out, "%s.out", in);
        gen_undefined(in, cases[i].how);
        CHECK(sim_run(g_sim, in, out,
                      "--set pipeline.organization=imr --set imr.color_cache.size_kb=1 --set imr.z_cache.size_kb=1") ==
              0);
        tbr_image im;
        if (sim_read_frame_png(out, 0, &im) == 0) {
            CHECK(sim_pixel_mismatch(&im, 0, 0, 255, 0, 0, 255) == 0);
            tbr_image_free(&im);
        } else {
            failures++;
        }
        snprintf(path, sizeof path, "%s/stats.json", out);
        char *j = sim_slurp(path);
        long long r = j ? sim_stat_value(j, "imr.color_cache.line_reads") : -1;
        long long u = j ? sim_stat_value(j, "imr.color_cache.undefined_fills") : -1;
        long long zr = j ? sim_stat_value(j, "mem.ru0.depth.reads") : -1;
        fprintf(stderr, "%s: color line reads %lld, undefined fills %lld, depth reads %lld\n", cases[i].name, r, u, zr);
        CHECK(r == cases[i].reads && u == cases[i].undefined && zr == 0);
        free(j);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_invalidate TBR_SIM WORKDIR\n");
        return 2;
    }
    g_sim = argv[1];
    const char *work = argv[2];
    mkdir(work, 0777);
    const char *which = getenv("TBR_SIM_TEST");
    if (!which || !strcmp(which, "color_invalidate")) test_color_invalidate(work);
    if (!which || !strcmp(which, "undefined_load")) test_undefined_load(work);
    if (!which || !strcmp(which, "imr_undefined_load")) test_imr_undefined(work);
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
