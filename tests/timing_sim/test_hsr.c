/* TBDR Hidden Surface Removal (timing/raster/hsr.h, docs/techniques.md "Hidden Surface
 * Removal") on synthetic traces; each scene runs with hsr.enabled false and true and both
 * frames must be the same hand-computed picture.
 * usage: test_hsr TBR_SIM_BINARY WORKDIR   (TBR_SIM_TEST = hsr_opaque | hsr_fallback)
 * Scenes (B8G8R8A8 window, Z24S8 cleared to 1.0, depth LESS with writes):
 *  opaque:   8x8 window, one tile, drawn back to front (the worst order for Early-Z):
 *            red z=0xC00000 everywhere (16 quads), blue z=0x800000 on x<4 (8 quads), green
 *            z=0x400000 on x<2 (4 quads). Every fragment passes its depth test when it
 *            arrives: 28 quads / 112 fragments shaded on 64 pixels (overdraw 1.75). The
 *            picture is green x 0-1, blue x 2-3, red x 4-7; HSR shades each pixel once: 16
 *            quads (4 green, 4 blue, 8 red), removes 12 quads = 48 fragments (red x<4: 8
 *            quads, blue x<2: 4 quads).
 *  fallback: 16x8 window, tiles of 8x8 (tile 0: x<8, tile 1: x>=8): red z=0xC00000
 *            everywhere (32 quads); blue z=0x800000 on x<4 (8 quads, tile 0, opaque);
 *            blue with alpha 0.5 blended on 4<=x<8 without depth (8 quads, tile 0: passed
 *            through, the red under it is kept); green z=0x400000 from a shader that may
 *            discard on 8<=x<12 (8 quads, tile 1: the tile falls back). With HSR: tile 0
 *            decided, tile 1 fallen back; 32 fragments (8 red quads of x<4) removed, 32
 *            passed through; quads shaded 56 -> 48. Picture: blue x 0-3, (128,0,128,191)
 *            x 4-7 (red under half blue, as in test_sim's blend scene), green x 8-11, red
 *            x 12-15. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim_output.h"
#include "synth_trace.h"
#include "tbr/png_io.h"

#include "check.h"

static const char *g_sim;
static const float RED[4] = {1, 0, 0, 1}, BLUE[4] = {0, 0, 1, 1}, BLUE_HALF[4] = {0, 0, 1, 0.5f},
                   GREEN[4] = {0, 1, 0, 1};

/* Frame 0 with a cleared colour and depth buffer of W x H. */
static void begin_depth_frame(uint32_t w, uint32_t h)
{
    synth_begin_frame(0);
    synth_resource(1, "PIPE_FORMAT_B8G8R8A8_UNORM", w, h, 4, 1);
    synth_resource(2, "PIPE_FORMAT_Z24_UNORM_S8_UINT", w, h, 4, 0);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, 8);
    synth_render_pass(0, w, h, 1, 2);
    synth_clear(7, 0, 0, 0, 1, 0xffffff);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 1, 2);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1); /* softpipe's tile cache takes the cleared tiles */
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 1, 2);
}

static void end_depth_frame(uint32_t w, uint32_t h)
{
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_tile(TBR_REC_TILE_STORE, 1, 2);
    synth_frame_end(0, w, h);
    synth_end_frame();
    synth_trace_close();
}

/* Draw SEQ: one primitive over [x0,x1) x [0,h), its quads with colour C and depth z. */
static void rect_draw(uint32_t seq, int blend, int depth, int x0, int x1, int h, const float c[4], uint32_t z)
{
    synth_draw(seq, blend, depth, 2);
    synth_prim(seq, 0, (float)x0, 0, (float)x1, (float)h);
    synth_quads(seq, x0, 0, x1, h, c, z, depth, 0);
}

static void gen_opaque(const char *dir)
{
    synth_trace_open(dir, "test_hsr");
    begin_depth_frame(8, 8);
    rect_draw(0, 0, 1, 0, 8, 8, RED, 0xC00000);
    rect_draw(1, 0, 1, 0, 4, 8, BLUE, 0x800000);
    rect_draw(2, 0, 1, 0, 2, 8, GREEN, 0x400000);
    end_depth_frame(8, 8);
}

static void gen_fallback(const char *dir)
{
    synth_trace_open(dir, "test_hsr");
    begin_depth_frame(16, 8);
    rect_draw(0, 0, 1, 0, 16, 8, RED, 0xC00000);
    rect_draw(1, 0, 1, 0, 4, 8, BLUE, 0x800000);
    rect_draw(2, 1, 0, 4, 8, 8, BLUE_HALF, 0);
    synth_draw_fs_kill = 1;
    rect_draw(3, 0, 1, 8, 12, 8, GREEN, 0x400000);
    synth_draw_fs_kill = 0;
    end_depth_frame(16, 8);
}

/* Runs IN with hsr.enabled=MODE (and EXTRA) into WORK/NAME.MODE; its stats.json (malloc'd). */
static char *run_mode(const char *work, const char *in, const char *name, const char *mode, const char *extra)
{
    char out[1024], args[512], path[1100];
    snprintf(out, sizeof out, "%s/%s.%s", work, name, mode);
    snprintf(args, sizeof args, "--set hsr.enabled=%s %s", mode, extra);
    CHECK(sim_run(g_sim, in, out, args) == 0);
    snprintf(path, sizeof path, "%s/stats.json", out);
    char *j = sim_slurp(path);
    CHECK(j != NULL);
    return j;
}

/* Columns [x0,x1) of frame 0 of WORK/NAME.MODE are (r,g,b,a) on every row. */
static void columns_are(const char *work, const char *name, const char *mode, unsigned x0, unsigned x1, int r, int g,
                        int b, int a)
{
    char out[1024];
    snprintf(out, sizeof out, "%s/%s.%s", work, name, mode);
    tbr_image im;
    if (sim_read_frame_png(out, 0, &im)) {
        failures++;
        return;
    }
    for (unsigned y = 0; y < im.height; y++)
        for (unsigned x = x0; x < x1; x++) failures += sim_pixel_mismatch(&im, x, y, r, g, b, a);
    tbr_image_free(&im);
}

static void test_opaque(const char *work)
{
    char in[1024];
    snprintf(in, sizeof in, "%s/opaque", work);
    gen_opaque(in);
    static const char *modes[] = {"false", "true"};
    for (int m = 0; m < 2; m++) {
        char *j = run_mode(work, in, "opaque", modes[m], "");
        if (!j) continue;
        CHECK(sim_stat_value(j, "func.mask_mismatch_quads") == 0);
        CHECK(sim_stat_value(j, "quads.shaded") == (m ? 16 : 28)); /* each pixel once under TBDR */
        if (m) {
            CHECK(sim_stat_value(j, "hsr.tiles_decided") == 1);
            CHECK(sim_stat_value(j, "hsr.fragments_written_before") == 112);
            CHECK(sim_stat_value(j, "hsr.pixels_written") == 64);
            CHECK(sim_stat_value(j, "hsr.fragments_removed") == 48);
            CHECK(sim_stat_value(j, "hsr.quads_removed") == 12);
            CHECK(sim_stat_value(j, "quads.hsr_tested") == 28);
            CHECK(sim_stat_value(j, "hsr.fallback_tiles_shader") == 0);
            /* HSR's accesses are charged to its own structures (issue #19: they went to the
             * Raster Unit's depth buffer and its rasterizer cost nothing): each tested quad
             * is rasterized, read and written in HSR's depth buffer, 4 compares */
            CHECK(sim_energy_event_count(j, "hsr.rasterizer", "quad") == 28);
            CHECK(sim_energy_event_count(j, "hsr.depth_buffer", "read") == 28);
            CHECK(sim_energy_event_count(j, "hsr.depth_buffer", "write") == 28);
            CHECK(sim_energy_event_count(j, "hsr.early_z", "cmp") == 4 * 28);
        } else {
            CHECK(sim_stat_value(j, "hsr.fragments_removed") == -1);            /* no HSR statistics in TBR */
            CHECK(sim_energy_event_count(j, "hsr.depth_buffer", "read") == -1); /* nor HSR structures */
        }
        columns_are(work, "opaque", modes[m], 0, 2, 0, 255, 0, 255);
        columns_are(work, "opaque", modes[m], 2, 4, 0, 0, 255, 255);
        columns_are(work, "opaque", modes[m], 4, 8, 255, 0, 0, 255);
        free(j);
    }
}

static void test_fallback(const char *work)
{
    char in[1024];
    snprintf(in, sizeof in, "%s/fallback", work);
    gen_fallback(in);
    static const char *modes[] = {"false", "true"};
    for (int m = 0; m < 2; m++) {
        char *j = run_mode(work, in, "fallback", modes[m], "--set tile.width=8 --set tile.height=8");
        if (!j) continue;
        CHECK(sim_stat_value(j, "func.mask_mismatch_quads") == 0);
        CHECK(sim_stat_value(j, "tiles.rendered") == 2);
        CHECK(sim_stat_value(j, "quads.shaded") == (m ? 48 : 56));
        if (m) {
            CHECK(sim_stat_value(j, "hsr.tiles_decided") == 1);
            CHECK(sim_stat_value(j, "hsr.fallback_tiles_shader") == 1);
            CHECK(sim_stat_value(j, "hsr.fallback_tiles_buffer") == 0);
            CHECK(sim_stat_value(j, "hsr.fragments_removed") == 32);
            CHECK(sim_stat_value(j, "hsr.fragments_passed_through") == 32);
            CHECK(sim_stat_value(j, "hsr.quads_removed") == 8);
        }
        columns_are(work, "fallback", modes[m], 0, 4, 0, 0, 255, 255);
        columns_are(work, "fallback", modes[m], 4, 8, 128, 0, 128, 191);
        columns_are(work, "fallback", modes[m], 8, 12, 0, 255, 0, 255);
        columns_are(work, "fallback", modes[m], 12, 16, 255, 0, 0, 255);
        free(j);
    }
    /* a tile with more primitives than the HSR buffer holds falls back too */
    char *j = run_mode(work, in, "fallback_buffer", "true",
                       "--set tile.width=8 --set tile.height=8 "
                       "--set hsr.buffer_prims=1");
    if (j) {
        CHECK(sim_stat_value(j, "hsr.fallback_tiles_buffer") == 2);
        CHECK(sim_stat_value(j, "hsr.fragments_removed") == 0);
        CHECK(sim_stat_value(j, "quads.shaded") == 56);
        free(j);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_hsr TBR_SIM WORKDIR\n");
        return 2;
    }
    g_sim = argv[1];
    const char *work = argv[2];
    mkdir(work, 0777);
    const char *which = getenv("TBR_SIM_TEST");
    if (!which || !strcmp(which, "hsr_opaque")) test_opaque(work);
    if (!which || !strcmp(which, "hsr_fallback")) test_fallback(work);
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
