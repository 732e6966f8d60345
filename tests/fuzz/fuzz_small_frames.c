/* tbr-fuzz-small-frames DIR: small synthetic frames (at most 64 x 64 pixels) for the seed
 * corpus of fuzz_sim_frame, which simulates only frames that small (issue 22: a sample's
 * 320 x 240 frame took 17 ms per input). Each frame is written as DIR/NAME/activity.tbrt
 * by the timing tests' trace writer (tests/common/synth_trace.h); tbr-fuzz-seeds turns it
 * into a fuzz input. The frames cover what the samples' frames exercise in a few tiles:
 * depth test and late Z, blending, a discarding shader, a second pass rendered to a texture
 * that the next pass samples (fragment and vertex shader), several draws per tile. The
 * checked-in corpus/sim_frame/small-* are `tbr-fuzz-seeds frame DIR/NAME/activity.tbrt OUT 0
 * 16384` of these, with the first byte (fuzz_sim_frame's configuration) set per file.
 * Exit 0, or 2 (message printed) if a trace cannot be written. */
#include <stdio.h>

#include "synth_trace.h"

#define BGRA "PIPE_FORMAT_B8G8R8A8_UNORM"
static const float RED[4] = {1, 0, 0, 1}, GREEN[4] = {0, 1, 0, 1}, BLUE_HALF[4] = {0, 0, 1, 0.5f};

static void open_frame(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    synth_trace_open(path, "tbr-fuzz-small-frames");
    synth_begin_frame(0);
}

static void close_frame(uint32_t w, uint32_t h)
{
    synth_frame_end(0, w, h);
    synth_end_frame();
    synth_trace_close();
}

/* Draw SEQ: one rectangle [x0,x1) x [0,h) of colour C at depth Z. */
static void rect(uint32_t seq, int blend, int depth, int x0, int x1, int h, const float c[4], uint32_t z)
{
    synth_draw(seq, blend, depth, 2);
    synth_prim(seq, 0, (float)x0, 0, (float)x1, (float)h);
    synth_quads(seq, x0, 0, x1, h, c, z, depth, 0);
}

/* 64 x 48, colour and depth: opaque draws at decreasing depth, a blended one, a discarding one. */
static void depth_frame(const char *dir)
{
    open_frame(dir, "depth");
    synth_resource(1, BGRA, 64, 48, 4, 1);
    synth_resource(2, "PIPE_FORMAT_Z24_UNORM_S8_UINT", 64, 48, 4, 0);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, 8);
    synth_render_pass(0, 64, 48, 1, 2);
    synth_clear(7, 0, 0, 0, 1, 0xffffff);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 1, 2);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 1, 2);
    rect(0, 0, 1, 0, 64, 48, RED, 0xC00000);
    rect(1, 0, 1, 0, 40, 48, GREEN, 0x800000);
    rect(2, 1, 0, 8, 56, 48, BLUE_HALF, 0);
    synth_draw_fs_kill = 1;
    rect(3, 0, 1, 16, 32, 48, GREEN, 0x400000);
    synth_draw_fs_kill = 0;
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_tile(TBR_REC_TILE_STORE, 1, 2);
    close_frame(64, 48);
}

/* One 32 x 32 pass into resource RES drawn in colour C, sampling resource 3 (SAMPLE: 0 no,
 * 1 in the fragment shader, 2 in the vertex shader too). */
static void pass(uint32_t seq, uint32_t res, const float c[4], int sample)
{
    synth_render_pass_default = res == 1;
    synth_render_pass(seq, 32, 32, res, 0);
    synth_clear(4, 0, 0, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, res);
    synth_draw_texture = sample ? 3 : 0;
    synth_draw_vs_textures = sample == 2;
    synth_draw(seq, 0, 0, 2);
    synth_draw_texture = synth_draw_vs_textures = 0;
    synth_prim(seq, 0, 0, 0, 32, 32);
    synth_prim(seq, 1, 0.1f, 0.1f, 0.2f, 0.2f); /* covers no pixel centre */
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, res);
    synth_quads(seq, 0, 0, 32, 32, c, 0, 0, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, res);
    synth_render_pass_default = 1;
}

/* Render to texture, then the default framebuffer sampling it. */
static void two_pass_frame(const char *dir, const char *name, int sample)
{
    open_frame(dir, name);
    synth_resource(1, BGRA, 32, 32, 4, 1);
    synth_resource(3, BGRA, 32, 32, 4, 0);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, 16);
    pass(0, 3, GREEN, 0);
    pass(1, 1, RED, sample);
    close_frame(32, 32);
}

/* 64 x 64, colour only: three full-screen draws, the last blended. */
static void fill_frame(const char *dir)
{
    open_frame(dir, "fill");
    synth_resource(1, BGRA, 64, 64, 4, 1);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, 4);
    synth_render_pass(0, 64, 64, 1, 0);
    synth_clear(4, 0, 0, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
    for (uint32_t i = 0; i < 3; i++) rect(i, i == 2, 0, 0, 64, 64, i == 2 ? BLUE_HALF : RED, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    close_frame(64, 64);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tbr-fuzz-small-frames DIR\n");
        return 2;
    }
    depth_frame(argv[1]);
    two_pass_frame(argv[1], "rtt-fs", 1);
    two_pass_frame(argv[1], "rtt-vs", 2);
    fill_frame(argv[1]);
    return 0;
}
