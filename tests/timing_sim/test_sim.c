/* tbr-sim tests on synthetic activity traces (written with tests/common/synth_trace.h).
 * usage: test_sim TBR_SIM_BINARY WORKDIR
 * Scenes (8x8 B8G8R8A8 window, one 32x32 tile unless said otherwise):
 *  blend:  clear to (0,0,0,1); draw 1 opaque red on x<4; draw 2 blue with alpha 0.5,
 *          SRC_ALPHA/INV_SRC_ALPHA, on 2<=x<6. Expected (RGBA8, hand-computed with
 *          float_to_ubyte: 0.5 -> 128, 0.75 -> 191):
 *            x 0-1 (255,0,0,255)  x 2-3 (128,0,128,191)  x 4-5 (0,0,128,191)  x 6-7 (0,0,0,255)
 *  load:   frame 0 clears to green (0,1,0,1) and stores; frame 1 has no clear: softpipe
 *          LOADs the tile, a red quad is drawn at (0,0): frame 1 = red 2x2 at the origin,
 *          green elsewhere, and the raster unit loads the color tile from memory
 *          (tiles.buffer_load_lines = 8 rows x 1 line of 32 B = 8 lines).
 *  depth:  Z24S8 cleared to 1.0; early-Z draws: red z=0x800000 on all 16 quads, blue
 *          z=0x400000 on the left half (passes), green z=0xC00000 everywhere (every quad
 *          killed): image = blue x<4, red x>=4; quads.early_z_killed = 16.
 *  depth_fbo: the depth scene on an FBO (RENDER_PASS.is_default 0; depth.store).
 *  depth_ro: the depth scene's buffers on an FBO, a color-only clear and one draw without
 *          depth test: the pass binds a depth/stencil buffer it never writes (depth.store).
 *  fill:   64x64 window (4 tiles), N draws of 1024 quads each (full screen), FS of
 *          `instr` instructions, no depth, no blending writes: fragment-bound when
 *          instr is large; used for throughput and scaling checks.
 *  tiles:  96x64 window = 3x2 tiles of 32x32 (tile 0..2 top row, 3..5 bottom row), cleared
 *          to black; frames 1..3 (frame 0 only creates the shaders): draw 0 = 16x16 quads
 *          filling tile 0 (1024 fragments), draw 1 = 4x2 quads in tile 1 (32), draw 2 =
 *          16x8 quads at x 64..95, y 32..47 = tile 5 (512) in frames 1 and 2, moved to
 *          x 32..63 = tile 4 in frame 3. Per-tile data (OUT/tiles.json) checked by hand.
 *  qmap:   32x32 window (one tile, 16x16 quads), draws of the quads of [0,w) x [0,h):
 *          per-FP quad counts under each fragment.quad_mapping (quad_mapping test). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim_output.h"
#include "synth_trace.h"
#include "tbr/png_io.h"

#include "check.h"

static void open_trace(const char *dir) { synth_trace_open(dir, "test_sim"); }

#define BGRA "PIPE_FORMAT_B8G8R8A8_UNORM"
static const float RED[4] = {1, 0, 0, 1}, BLUE_HALF[4] = {0, 0, 1, 0.5f}, BLUE[4] = {0, 0, 1, 1},
                   GREEN[4] = {0, 1, 0, 1};

static void gen_blend(const char *dir)
{
    open_trace(dir);
    synth_frame_begin_cleared(0, 8, 8, 2);
    synth_draw(0, 0, 0, 2);
    synth_prim(0, 0, 0, 0, 4, 8);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
    synth_quads(0, 0, 0, 4, 8, RED, 0, 0, 0);
    synth_draw(1, 1, 0, 2);
    synth_prim(1, 0, 2, 0, 6, 8);
    synth_quads(1, 2, 0, 6, 8, BLUE_HALF, 0, 0, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_frame_end(0, 8, 8);
    synth_end_frame();
    synth_trace_close();
}

static void gen_load(const char *dir)
{
    open_trace(dir);
    synth_begin_frame(0);
    synth_resource(1, BGRA, 8, 8, 4, 1);
    synth_render_pass(0, 8, 8, 1, 0);
    synth_clear(4, 0, 1, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
    synth_tile(TBR_REC_TILE_STORE_CLEAR, 0, 1);
    synth_frame_end(0, 8, 8);
    synth_end_frame();
    synth_begin_frame(1);
    synth_resource(1, BGRA, 8, 8, 4, 1);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, 2);
    synth_render_pass(0, 8, 8, 1, 0);
    synth_draw(0, 0, 0, 2);
    synth_prim(0, 0, 0, 0, 2, 2);
    synth_tile(TBR_REC_TILE_LOAD, 0, 1);
    synth_quads(0, 0, 0, 2, 2, RED, 0, 0, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_frame_end(1, 8, 8);
    synth_end_frame();
    synth_trace_close();
}

static void gen_depth(const char *dir)
{
    open_trace(dir);
    synth_begin_frame(0);
    synth_resource(1, BGRA, 8, 8, 4, 1);
    synth_resource(2, "PIPE_FORMAT_Z24_UNORM_S8_UINT", 8, 8, 4, 0);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, 2);
    synth_render_pass(0, 8, 8, 1, 2);
    synth_clear(7, 0, 0, 0, 1, 0xffffff);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 1, 2);
    synth_draw(0, 0, 1, 2);
    synth_prim(0, 0, 0, 0, 8, 8);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 1, 2);
    synth_quads(0, 0, 0, 8, 8, RED, 0x800000, 1, 0);
    synth_draw(1, 0, 1, 2);
    synth_prim(1, 0, 0, 0, 4, 8);
    synth_quads(1, 0, 0, 4, 8, BLUE, 0x400000, 1, 0);
    synth_draw(2, 0, 1, 2);
    synth_prim(2, 0, 0, 0, 8, 8);
    synth_quads(2, 0, 0, 8, 8, GREEN, 0xC00000, 1, 1);
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_tile(TBR_REC_TILE_STORE, 1, 2);
    synth_frame_end(0, 8, 8);
    synth_end_frame();
    synth_trace_close();
}

static void gen_depth_ro(const char *dir)
{
    synth_render_pass_default = 0;
    open_trace(dir);
    synth_begin_frame(0);
    synth_resource(1, BGRA, 8, 8, 4, 1);
    synth_resource(2, "PIPE_FORMAT_Z24_UNORM_S8_UINT", 8, 8, 4, 0);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, 2);
    synth_render_pass(0, 8, 8, 1, 2);
    synth_clear(4, 0, 0, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
    synth_draw(0, 0, 0, 2);
    synth_prim(0, 0, 0, 0, 8, 8);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
    synth_quads(0, 0, 0, 8, 8, RED, 0, 0, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_frame_end(0, 8, 8);
    synth_end_frame();
    synth_trace_close();
}

/* Frame 0 of the fill scene (header comment). */
static void fill_frame(uint32_t instr, int ndraws)
{
    synth_frame_begin_cleared(0, 64, 64, instr);
    for (int i = 0; i < ndraws; i++) {
        synth_draw((uint32_t)i, 0, 0, 2);
        synth_prim((uint32_t)i, 0, 0, 0, 64, 64);
        if (i == 0) synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
        synth_quads((uint32_t)i, 0, 0, 64, 64, RED, 0, 0, 0);
    }
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_frame_end(0, 64, 64);
    synth_end_frame();
}

static void gen_fill(const char *dir, uint32_t instr, int ndraws)
{
    open_trace(dir);
    fill_frame(instr, ndraws);
    synth_trace_close();
}

/* Quad mapping (fragment.quad_mapping): 32x32 window = one 32x32 tile (16x16 quads),
 * `ndraws` draws of the quads of [0,w) x [0,h), FS of `instr` instructions. */
static void gen_qmap(const char *dir, int w, int h, uint32_t instr, int ndraws)
{
    open_trace(dir);
    synth_frame_begin_cleared(0, 32, 32, instr);
    for (int i = 0; i < ndraws; i++) {
        synth_draw((uint32_t)i, 0, 0, 2);
        synth_prim((uint32_t)i, 0, 0, 0, (float)w, (float)h);
        if (i == 0) synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
        synth_quads((uint32_t)i, 0, 0, w, h, RED, 0, 0, 0);
    }
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_frame_end(0, 32, 32);
    synth_end_frame();
    synth_trace_close();
}

static void tile_at(uint32_t kind, uint32_t res, uint32_t tx)
{
    tbr_rec_tile t = {kind, 0, 0, res, 0, 0, tx, 0, 64};
    SYNTH_EMIT(TBR_REC_TILE, tbr_rec_tile_encode, &t);
}

static void gen_tiles(const char *dir)
{
    open_trace(dir);
    for (uint32_t f = 0; f < 4; f++) {
        synth_begin_frame(f);
        synth_resource(1, BGRA, 96, 64, 4, 1);
        if (f == 0) {
            synth_shader(1, 0, 4);
            synth_shader(2, 1, 2);
        }
        synth_render_pass(0, 96, 64, 1, 0);
        synth_clear(4, 0, 0, 0, 1, 0);
        synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
        if (f > 0) {
            synth_draw(0, 0, 0, 2);
            synth_prim(0, 0, 0, 0, 31.5f, 31.5f); /* bounding boxes inside their tiles */
            tile_at(TBR_REC_TILE_LOAD_CLEAR, 1, 0);
            tile_at(TBR_REC_TILE_LOAD_CLEAR, 1, 1);
            synth_quads(0, 0, 0, 32, 32, RED, 0, 0, 0);
            synth_draw(1, 0, 0, 2);
            synth_prim(1, 0, 32, 0, 39.5f, 3.5f);
            synth_quads(1, 32, 0, 40, 4, GREEN, 0, 0, 0);
            int x0 = f == 3 ? 32 : 64;
            synth_draw(2, 0, 0, 2);
            synth_prim(2, 0, (float)x0, 32, (float)x0 + 31.5f, 47.5f);
            synth_quads(2, x0, 32, x0 + 32, 48, BLUE, 0, 0, 0);
        } else {
            tile_at(TBR_REC_TILE_LOAD_CLEAR, 1, 0);
            tile_at(TBR_REC_TILE_LOAD_CLEAR, 1, 1);
        }
        tile_at(TBR_REC_TILE_STORE, 1, 0);
        tile_at(TBR_REC_TILE_STORE, 1, 1);
        synth_frame_end(f, 96, 64);
        synth_end_frame();
    }
    synth_trace_close();
}

/* Vertex-heavy pass (the shape of glmark2 "terrain" frame 410's terrain pass: 393216
 * vertices, 25170 of 131072 triangles reach setup): one draw of VERTEX_HEAVY_VERTS
 * vertices of which a single triangle survives clipping/culling, so the pass's geometry
 * time (every vertex fetched from DRAM and shaded) is millions of cycles while the
 * frame has 1 primitive and 16 quads. The geometry-phase watchdog used to be a budget
 * of 2M + 64 * prims + 4 * quads cycles and reported this pass as a model deadlock. */
#define VERTEX_HEAVY_VERTS 262144u
static void gen_vertex_heavy(const char *dir)
{
    open_trace(dir);
    synth_frame_begin_cleared(0, 8, 8, 2);
    synth_draw_vertex_count = VERTEX_HEAVY_VERTS;
    synth_draw(0, 0, 0, 2);
    synth_draw_vertex_count = 6;
    synth_prim(0, 0, 0, 0, 8, 8);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
    synth_quads(0, 0, 0, 8, 8, RED, 0, 0, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_frame_end(0, 8, 8);
    synth_end_frame();
    synth_trace_close();
}

/* Unified shader cores (shader.organization): a shading-bound vertex-heavy pass, one draw of
 * UNIFIED_VS_VERTS vertices whose VS runs UNIFIED_VS_INSTR instructions (static counts, 2 cycles
 * each at 1 instruction per cycle and core with enough threads), one triangle of 4 quads
 * reaching setup. */
#define UNIFIED_VS_VERTS 2048u
#define UNIFIED_VS_INSTR 512u
static void gen_vs_heavy(const char *dir)
{
    open_trace(dir);
    synth_begin_frame(0);
    synth_resource(1, BGRA, 8, 8, 4, 1);
    synth_shader(1, 0, UNIFIED_VS_INSTR);
    synth_shader(2, 1, 4);
    synth_render_pass(0, 8, 8, 1, 0);
    synth_clear(4, 0, 0, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
    synth_draw_vertex_count = UNIFIED_VS_VERTS;
    synth_draw(0, 0, 0, 2);
    synth_draw_vertex_count = 6;
    synth_prim(0, 0, 0, 0, 4, 4);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
    synth_quads(0, 0, 0, 4, 4, RED, 0, 0, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_frame_end(0, 8, 8);
    synth_end_frame();
    synth_trace_close();
}

/* The frame object {"frame": FRAME, ...} of a tiles.json written by tbr-sim: *beg at
 * its '{', *end just past its matching '}' (brackets counted; tbr-sim writes no strings
 * containing brackets). 0 if found. */
static int frame_object(const char *j, int frame, const char **beg, const char **end)
{
    char k[64];
    snprintf(k, sizeof k, "{\"frame\": %d,", frame);
    const char *p = j ? strstr(j, k) : NULL;
    if (!p) return -1;
    int depth = 0;
    for (const char *q = p; *q; q++) {
        if (*q == '{' || *q == '[')
            depth++;
        else if ((*q == '}' || *q == ']') && --depth == 0) {
            if (*q != '}') return -1;
            *beg = p;
            *end = q + 1;
            return 0;
        }
    }
    return -1; /* unterminated */
}

/* The grid size ("cols" x "rows") of a tiles.json; 0 if absent. */
static long long tiles_grid(const char *j)
{
    const char *c = j ? strstr(j, "\"cols\": ") : NULL, *r = j ? strstr(j, "\"rows\": ") : NULL;
    return c && r ? atoll(c + 8) * atoll(r + 8) : 0;
}

/* The 6 values of tiles.frames[frame].KEY in a tiles.json written by tbr-sim (-2 = null,
 * -3 = missing / malformed). KEY is looked up only inside that frame's object, and the
 * array must hold exactly cols*rows (= 6 in these tests) values. */
static void tile_values(const char *j, int frame, const char *key, long long v[6])
{
    for (int i = 0; i < 6; i++) v[i] = -3;
    const char *beg, *end;
    if (frame_object(j, frame, &beg, &end)) {
        fprintf(stderr, "tiles.json: no complete object for frame %d\n", frame);
        return;
    }
    long long n = tiles_grid(j);
    if (n != 6) {
        fprintf(stderr, "tiles.json: grid of %lld tiles, the tests expect 3x2\n", n);
        return;
    }
    char k[64];
    snprintf(k, sizeof k, "\"%s\": [", key);
    size_t kl = strlen(k);
    const char *p = NULL;
    for (const char *q = beg; q + kl <= end; q++)
        if (!strncmp(q, k, kl)) {
            p = q;
            break;
        }
    if (!p) {
        fprintf(stderr, "tiles.json: frame %d has no \"%s\" array\n", frame, key);
        return;
    }
    p += kl;
    long long tmp[6];
    for (long long i = 0;; i++) {
        if (p >= end) {
            fprintf(stderr, "tiles.json: frame %d \"%s\": unterminated array\n", frame, key);
            return;
        }
        long long x;
        if (!strncmp(p, "null", 4)) {
            x = -2;
            p += 4;
        } else {
            char *e;
            x = strtoll(p, &e, 10);
            if (e == p || x < 0) {
                fprintf(stderr, "tiles.json: frame %d \"%s\": bad value\n", frame, key);
                return;
            }
            p = e;
        }
        if (i >= n) { /* more values than tiles */
            fprintf(stderr, "tiles.json: frame %d \"%s\": more than %lld values\n", frame, key, n);
            return;
        }
        tmp[i] = x;
        if (*p == ']') {
            if (i + 1 != n) {
                fprintf(stderr, "tiles.json: frame %d \"%s\": %lld values, expected %lld\n", frame, key, i + 1, n);
                return;
            }
            break;
        }
        if (*p != ',') {
            fprintf(stderr, "tiles.json: frame %d \"%s\": malformed array\n", frame, key);
            return;
        }
        p++;
    }
    for (int i = 0; i < 6; i++) v[i] = tmp[i];
}

static void tiles_are(const char *j, int frame, const char *key, long long a, long long b, long long c, long long d,
                      long long e, long long f)
{
    long long v[6], x[6] = {a, b, c, d, e, f};
    tile_values(j, frame, key, v);
    for (int i = 0; i < 6; i++)
        if (v[i] != x[i]) {
            fprintf(stderr,
                    "tiles frame %d %s: [%lld,%lld,%lld,%lld,%lld,%lld], expected [%lld,%lld,%lld,%lld,%lld,%lld] (-2 "
                    "= null)\n",
                    frame, key, v[0], v[1], v[2], v[3], v[4], v[5], a, b, c, d, e, f);
            failures++;
            return;
        }
}

/* Energy: the fill frame (ndraws full-screen draws of FS `instr` instructions) followed,
 * when `idle`, by a frame with no render pass at all (zero work). */
static void gen_energy(const char *dir, uint32_t instr, int ndraws, int idle)
{
    open_trace(dir);
    fill_frame(instr, ndraws);
    if (idle) {
        synth_begin_frame(1);
        synth_frame_end(1, 64, 64);
        synth_end_frame();
    }
    synth_trace_close();
}

/* The number after "KEY": (JSON written without spaces by the energy report), searched
 * from p; -1e300 if absent. */
static double jnum_after(const char *p, const char *key)
{
    char k[256];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *q = p ? strstr(p, k) : NULL;
    return q ? strtod(q + strlen(k), NULL) : -1e300;
}
/* The "total" object of the energy report, or frame i's object. */
static const char *energy_section(const char *j, int frame)
{
    const char *e = j ? strstr(j, "\"energy\": {") : NULL;
    if (!e) return NULL;
    if (frame < 0) return strstr(e, "\"total\":{");
    const char *f = strstr(e, "\"frames\":[");
    for (int i = 0; f && i <= frame; i++) f = strstr(f + 1, "{\"label\":");
    return f;
}
/* dynamic (what=0) or static (1) energy of unit `name` in a section. */
static double unit_pj(const char *sec, const char *name, int what)
{
    char k[256];
    snprintf(k, sizeof k, "\"%s\":{\"dynamic_pj\":", name);
    const char *u = sec ? strstr(sec, "\"units\":{") : NULL;
    u = u ? strstr(u, k) : NULL;
    return u ? jnum_after(u, what ? "static_pj" : "dynamic_pj") : -1e300;
}

static int near(double a, double b, double rel)
{
    double d = a - b;
    if (d < 0) d = -d;
    return d <= rel * (b < 0 ? -b : b) + 1e-6;
}

static const char *g_sim;
static int run(const char *in, const char *out, const char *extra) { return sim_run(g_sim, in, out, extra); }
static void pixel_is(const tbr_image *im, unsigned x, unsigned y, int r, int g, int bl, int a)
{
    failures += sim_pixel_mismatch(im, x, y, r, g, bl, a);
}

static int read_png(const char *out, unsigned frame, tbr_image *im)
{
    return sim_read_frame_png(out, frame, im) ? (failures++, -1) : 0;
}

static void test_blend(const char *work)
{
    char in[1024], out[1024], out2[1024];
    tbr_image im;
    snprintf(in, sizeof in, "%s/blend", work);
    snprintf(out, sizeof out, "%s/blend.out", work);
    gen_blend(in);
    CHECK(run(in, out, NULL) == 0);
    if (!read_png(out, 0, &im)) {
        CHECK(im.width == 8 && im.height == 8);
        for (unsigned y = 0; y < 8; y++) {
            pixel_is(&im, 0, y, 255, 0, 0, 255);
            pixel_is(&im, 1, y, 255, 0, 0, 255);
            pixel_is(&im, 2, y, 128, 0, 128, 191);
            pixel_is(&im, 3, y, 128, 0, 128, 191);
            pixel_is(&im, 4, y, 0, 0, 128, 191);
            pixel_is(&im, 5, y, 0, 0, 128, 191);
            pixel_is(&im, 6, y, 0, 0, 0, 255);
            pixel_is(&im, 7, y, 0, 0, 0, 255);
        }
        tbr_image_free(&im);
    }
    char *j = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
    CHECK(j && strstr(j, "\"total_cycles\": "));
    /* 8 + 8 quads blended (each draw covers 4x8 px = 2x4 quads); 2 draws; 1 tile; no tile
     * load (the pass clears) */
    CHECK(sim_stat_value(j, "quads.blended") == 16);
    CHECK(sim_stat_value(j, "draws") == 2);
    CHECK(sim_stat_value(j, "tiles.rendered") == 1);
    CHECK(sim_stat_value(j, "tiles.buffer_load_lines") == 0);
    CHECK(sim_stat_value(j, "func.mask_mismatch_quads") == 0);
    /* color flush: 8 rows of 8 px x 4 B = 32 B -> 1 line each = 8 lines */
    CHECK(sim_stat_value(j, "tiles.flush_lines") == 8);
    free(j);
}

static void test_load(const char *work)
{
    char in[1024], out[1024], out2[1024];
    tbr_image im;
    snprintf(in, sizeof in, "%s/load", work);
    snprintf(out, sizeof out, "%s/load.out", work);
    gen_load(in);
    CHECK(run(in, out, NULL) == 0);
    if (!read_png(out, 1, &im)) {
        pixel_is(&im, 0, 0, 255, 0, 0, 255);
        pixel_is(&im, 1, 1, 255, 0, 0, 255);
        pixel_is(&im, 2, 0, 0, 255, 0, 255);
        pixel_is(&im, 7, 7, 0, 255, 0, 255);
        pixel_is(&im, 0, 2, 0, 255, 0, 255);
        tbr_image_free(&im);
    }
    char *j = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
    /* frame 1 does not clear: 8 color lines loaded (8 rows x 32 B); frame 0 clears: none */
    CHECK(j && sim_stat_value(j, "tiles.buffer_load_lines") == 8);
    free(j);
}

static void test_depth(const char *work)
{
    char in[1024], out[1024], out2[1024];
    tbr_image im;
    snprintf(in, sizeof in, "%s/depth", work);
    snprintf(out, sizeof out, "%s/depth.out", work);
    gen_depth(in);
    CHECK(run(in, out, NULL) == 0);
    if (!read_png(out, 0, &im)) {
        for (unsigned y = 0; y < 8; y++) {
            for (unsigned x = 0; x < 4; x++) pixel_is(&im, x, y, 0, 0, 255, 255);
            for (unsigned x = 4; x < 8; x++) pixel_is(&im, x, y, 255, 0, 0, 255);
        }
        tbr_image_free(&im);
    }
    char *j = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
    /* 16 + 8 + 16 quads tested early; the 16 green ones are killed */
    CHECK(j && sim_stat_value(j, "quads.early_z_tested") == 40);
    CHECK(j && sim_stat_value(j, "quads.early_z_killed") == 16);
    CHECK(j && sim_stat_value(j, "quads.shaded") == 24);
    CHECK(j && sim_stat_value(j, "func.mask_mismatch_quads") == 0);
    free(j);
}

/* depth.store (docs/timing-model.md "Tile buffer stores"): the depth scene's pass clears
 * its Z24S8 buffer and writes it; depth_fbo is the same pass on an FBO (RENDER_PASS not
 * default); depth_ro's FBO pass binds the buffer without writing it. One 32x32 tile
 * covers the 8x8 targets: 8 rows of 8 px x 4 B = 32 B, one line per row, for color and
 * for depth alike. A stored depth buffer is 8 lines after the 8 color lines on the color
 * port (16 writes). auto: depth_fbo's written depth is stored; the window's (depth) is
 * not, the frame's swap invalidating it; depth_ro's unwritten one is not. always stores
 * all three, never none. */
static void test_depth_store(const char *work)
{
    char dirs[3][1024], out[1024], st[1100];
    static const char *const scenes[3] = {"depth", "depth_fbo", "depth_ro"};
    for (int k = 0; k < 3; k++) {
        snprintf(dirs[k], sizeof dirs[k], "%s/%s", work, scenes[k]);
        synth_render_pass_default = k == 0;
        if (k < 2)
            gen_depth(dirs[k]);
        else
            gen_depth_ro(dirs[k]);
    }
    synth_render_pass_default = 1;
    static const struct {
        int scene;
        const char *mode;
        long long zlines;
    } runs[] = {{0, "auto", 0},  {0, "always", 8}, {0, "never", 0},  {1, "auto", 8}, {1, "always", 8},
                {1, "never", 0}, {2, "auto", 0},   {2, "always", 8}, {2, "never", 0}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char set[64];
        snprintf(set, sizeof set, "--set depth.store=%s", runs[i].mode);
        snprintf(out, sizeof out, "%s/%s_%s.out", work, scenes[runs[i].scene], runs[i].mode);
        CHECK(run(dirs[runs[i].scene], out, set) == 0);
        char *j = sim_slurp(strcat(strcpy(st, out), "/stats.json"));
        long long z = j ? sim_stat_value(j, "tiles.depth_store_lines") : -1;
        long long c = j ? sim_stat_value(j, "tiles.flush_lines") : -1;
        long long w = j ? sim_stat_value(j, "mem.ru0.color.writes") : -1;
        fprintf(stderr, "%s depth.store=%s: depth store lines %lld, color flush lines %lld, color port writes %lld\n",
                scenes[runs[i].scene], runs[i].mode, z, c, w);
        CHECK(z == runs[i].zlines && c == 8 && w == 8 + runs[i].zlines);
        free(j);
    }
}

static void test_determinism(const char *work)
{
    char in[1024], out[1024], out2[1024];
    snprintf(in, sizeof in, "%s/fill_det", work);
    gen_fill(in, 8, 2);
    snprintf(out, sizeof out, "%s/det1.out", work);
    snprintf(out2, sizeof out2, "%s/det2.out", work);
    CHECK(run(in, out, NULL) == 0);
    CHECK(run(in, out2, NULL) == 0);
    char a[1200], c[1200];
    snprintf(a, sizeof a, "%s/stats.json", out);
    snprintf(c, sizeof c, "%s/stats.json", out2);
    char *ja = sim_slurp(a), *jc = sim_slurp(c);
    CHECK(ja && jc && strcmp(ja, jc) == 0);
    free(ja);
    free(jc);
    snprintf(a, sizeof a, "%s/frames/frame_00000.png", out);
    snprintf(c, sizeof c, "%s/frames/frame_00000.png", out2);
    ja = sim_slurp(a);
    jc = sim_slurp(c);
    CHECK(ja && jc && strlen(ja) == strlen(jc) && memcmp(ja, jc, strlen(ja)) == 0);
    free(ja);
    free(jc);
}

static void test_throughput(const char *work)
{
    char in[1024], out[1024], out2[1024];
    /* 2 full-screen draws of 1024 quads, 1-instruction FS: the rasterizer limit is
     * attrs_per_cycle/4 quads per cycle, so the raster phase needs at least
     * 2048 / qpc cycles: >= 512 at the default (4 quads/cycle) and >= 2048 with
     * raster.attrs_per_cycle=4 (1 quad/cycle). Early-Z at 1 quad/cycle: >= 2048 too. */
    snprintf(in, sizeof in, "%s/fill_tp", work);
    gen_fill(in, 1, 2);
    long long base, slow_r, slow_z;
    snprintf(out, sizeof out, "%s/tp0.out", work);
    CHECK(run(in, out, NULL) == 0);
    char *j = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
    base = j ? sim_stat_value(j, "cycles.raster") : -1;
    CHECK(j && sim_stat_value(j, "quads.rasterized") == 2048);
    free(j);
    snprintf(out, sizeof out, "%s/tp1.out", work);
    CHECK(run(in, out, "--set raster.attrs_per_cycle=4") == 0);
    j = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
    slow_r = j ? sim_stat_value(j, "cycles.raster") : -1;
    free(j);
    snprintf(out, sizeof out, "%s/tp2.out", work);
    CHECK(run(in, out, "--set early_z.quads_per_cycle=1") == 0);
    j = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
    slow_z = j ? sim_stat_value(j, "cycles.raster") : -1;
    free(j);
    fprintf(stderr, "throughput: raster cycles default %lld, 1 quad/cycle rasterizer %lld, 1 quad/cycle early-Z %lld\n",
            base, slow_r, slow_z);
    CHECK(base >= 512);
    CHECK(slow_r >= 2048);
    CHECK(slow_z >= 2048);
    CHECK(slow_r > base && slow_z > base);
}

static void test_fp_scaling(const char *work)
{
    char in[1024], out[1024], out2[1024];
    /* Fragment-bound: 2048 quads x 64 instructions at 1 instr/cycle per FP = 131072
     * instruction-cycles; 4 FPs -> >= 32768 cycles, 2 FPs -> >= 65536. Halving the FPs
     * must scale the raster phase by close to 2 (accept 1.7 .. 2.1). */
    snprintf(in, sizeof in, "%s/fill_fp", work);
    gen_fill(in, 64, 2);
    snprintf(out, sizeof out, "%s/fp4.out", work);
    CHECK(run(in, out, NULL) == 0);
    char *j = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
    long long c4 = j ? sim_stat_value(j, "cycles.raster") : -1;
    free(j);
    snprintf(out, sizeof out, "%s/fp2.out", work);
    CHECK(run(in, out, "--set fragment.processors=2") == 0);
    j = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
    long long c2 = j ? sim_stat_value(j, "cycles.raster") : -1;
    free(j);
    fprintf(stderr, "fp scaling: raster cycles 4 FPs %lld, 2 FPs %lld (ratio %.3f)\n", c4, c2,
            c4 > 0 ? (double)c2 / (double)c4 : 0.0);
    CHECK(c4 >= 32768);
    CHECK(c2 >= 65536);
    CHECK(c4 > 0 && (double)c2 / (double)c4 >= 1.7 && (double)c2 / (double)c4 <= 2.1);
}

static void test_energy(const char *work)
{
    char in[1024], out[1024], out2[1024];
    /* docs/energy-model.md "Driven by tbr-sim" */
    snprintf(in, sizeof in, "%s/energy1", work);
    snprintf(out, sizeof out, "%s/energy1.out", work);
    gen_energy(in, 8, 1, 1);
    CHECK(run(in, out, NULL) == 0);
    char *j = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
    const char *tot = energy_section(j, -1), *f0 = energy_section(j, 0), *f1 = energy_section(j, 1);
    CHECK(tot && f0 && f1 && !energy_section(j, 2));
    if (tot && f0 && f1) {
        /* per-unit sums equal the GPU totals; groups, DRAM sources and frames add up */
        double dyn = 0, sta = 0;
        const char *u = strstr(tot, "\"units\":{"), *end = u ? strstr(u, "}}") : NULL;
        int nunits = 0;
        for (const char *q = u; q && end && (q = strstr(q, "{\"dynamic_pj\":")) && q < end; q++, nunits++) {
            dyn += jnum_after(q, "dynamic_pj");
            sta += jnum_after(q, "static_pj");
        }
        CHECK(nunits >= 25);
        CHECK(near(dyn, jnum_after(tot, "gpu_dynamic_pj"), 1e-9));
        CHECK(near(sta, jnum_after(tot, "gpu_static_pj"), 1e-9));
        CHECK(near(jnum_after(tot, "gpu_pj") + jnum_after(tot, "dram_pj"), jnum_after(tot, "total_pj"), 1e-9));
        const char *gr = strstr(tot, "\"groups\":{");
        CHECK(near(jnum_after(gr, "pj"),
                   jnum_after(tot, "gpu_pj") - unit_pj(tot, "primitive_table", 0) - unit_pj(tot, "primitive_table", 1),
                   1e-9)); /* baseline = all but ptr_tf */
        CHECK(!strstr(tot, "\"re\":{\"pj\""));
        const char *bs = strstr(tot, "\"by_source\":{");
        double srcsum = 0;
        static const char *const srcs[] = {"vertices",   "parameter_buffer", "textures", "color_flush",
                                           "tile_loads", "instructions",     "other",    "background"};
        for (int i = 0; i < 8; i++) srcsum += jnum_after(bs, srcs[i]);
        CHECK(near(srcsum, jnum_after(strstr(tot, "\"dram\":{"), "total_pj"), 1e-9));
        CHECK(jnum_after(bs, "vertices") > 0); /* 4 vertex fetch lines x ... reached the DRAM */
        CHECK(near(jnum_after(f0, "total_pj") + jnum_after(f1, "total_pj"), jnum_after(tot, "total_pj"), 1e-9));
        /* the fill frame: fragment work, exact residency */
        CHECK(unit_pj(f0, "fragment.alu", 0) > 0 && unit_pj(f0, "rasterizer", 0) > 0 && unit_pj(f0, "l2", 1) > 0);
        CHECK(strstr(f0, "\"residency_estimated\":0") || strstr(f0, "\"residency_estimated\":false"));
        /* the zero-work frame: no dynamic GPU energy, no DRAM command but refresh: only
         * static + DRAM background/refresh */
        const char *d1 = strstr(f1, "\"dram\":{");
        CHECK(jnum_after(f1, "gpu_dynamic_pj") == 0);
        CHECK(jnum_after(d1, "act") == 0 && jnum_after(d1, "pre") == 0 && jnum_after(d1, "rd") == 0 &&
              jnum_after(d1, "wr") == 0);
        CHECK(near(jnum_after(f1, "total_pj"),
                   jnum_after(f1, "gpu_static_pj") + jnum_after(d1, "ref") +
                       jnum_after(strstr(d1, "\"background\":{"), "total"),
                   1e-9));
        fprintf(stderr, "energy: frame 0 %.0f pJ (%llu cycles), idle frame %.0f pJ (%.0f cycles)\n",
                jnum_after(f0, "total_pj"), (unsigned long long)jnum_after(f0, "gpu_cycles"),
                jnum_after(f1, "total_pj"), jnum_after(f1, "gpu_cycles"));
    }
    char *sum = sim_slurp(strcat(strcpy(out2, out), "/summary.txt"));
    CHECK(sum && strstr(sum, "energy total: ") && strstr(sum, "energy frame 0: "));
    free(sum);

    /* doubling the fragment work (2 full-screen draws instead of 1): the fragment ALU and
     * register file execute exactly twice the instructions -> 2x their dynamic energy */
    snprintf(in, sizeof in, "%s/energy2", work);
    snprintf(out, sizeof out, "%s/energy2.out", work);
    gen_energy(in, 8, 2, 0);
    CHECK(run(in, out, NULL) == 0);
    char *j2 = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
    const char *t2 = energy_section(j2, -1);
    double fp1 = unit_pj(f0, "fragment.alu", 0) + unit_pj(f0, "fragment.regfile", 0);
    double fp2 = unit_pj(t2, "fragment.alu", 0) + unit_pj(t2, "fragment.regfile", 0);
    fprintf(stderr, "energy: fragment processors %.0f pJ (1 draw) vs %.0f pJ (2 draws)\n", fp1, fp2);
    CHECK(fp1 > 0 && fp2 / fp1 > 1.95 && fp2 / fp1 < 2.05);
    CHECK(unit_pj(t2, "rasterizer", 0) / unit_pj(f0, "rasterizer", 0) > 1.95);
    /* Rendering Elimination adds the "re" group: > 0, small next to the GPU total */
    snprintf(out, sizeof out, "%s/energy2_re.out", work);
    CHECK(run(in, out, "--set re.enabled=true") == 0);
    char *j3 = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
    const char *t3 = energy_section(j3, -1);
    const char *g3 = t3 ? strstr(t3, "\"re\":{\"pj\":") : NULL;
    double re = g3 ? jnum_after(g3, "pj") : -1, gpu3 = jnum_after(t3, "gpu_pj");
    fprintf(stderr, "energy: re group %.0f pJ of GPU %.0f pJ (%.3f %%)\n", re, gpu3, 100 * re / gpu3);
    CHECK(re > 0 && re < 0.02 * gpu3);
    CHECK(unit_pj(t3, "re.crc_compute", 0) > 0 && unit_pj(t3, "re.signature_buffer", 0) > 0);
    free(j);
    free(j2);
    free(j3);
}

/* tile_values' value for null */
enum { N = -2 };

/* The helper itself: a key is read from its own frame only, arrays hold exactly cols*rows
 * values (the "tiles.json: ..." lines below are expected). */
static void check_tile_values_helper(void)
{
    const char *hdr = "{\"tiles\": {\"tile_width\": 32, \"tile_height\": 32, \"cols\": 3, \"rows\": 2,\n \"frames\": [";
    const char *fr[] = {
        "\n  {\"frame\": 0,\n   \"cycles\": [1,2,3,4,5,6]}",                                        /* no "fragments" */
        ",\n  {\"frame\": 1,\n   \"fragments\": [7,null,9,10,11,12],\n   \"cycles\": [1,2,3,4,5]}", /* 5 */
        ",\n  {\"frame\": 2,\n   \"cycles\": [1,2,3,4,5,6,7]}",                                     /* 7 */
        "]}}\n"};
    char tj[1024];
    snprintf(tj, sizeof tj, "%s%s%s%s%s", hdr, fr[0], fr[1], fr[2], fr[3]);
    long long v[6];
    tile_values(tj, 0, "cycles", v);
    CHECK(v[0] == 1 && v[5] == 6);
    tile_values(tj, 1, "fragments", v);
    CHECK(v[0] == 7 && v[1] == N && v[5] == 12);
    tile_values(tj, 0, "fragments", v); /* frame 1's must not be used */
    CHECK(v[0] == -3);
    tile_values(tj, 1, "cycles", v); /* too short */
    CHECK(v[0] == -3);
    tile_values(tj, 2, "cycles", v); /* too long */
    CHECK(v[0] == -3);
    tile_values(tj, 3, "cycles", v); /* no such frame */
    CHECK(v[0] == -3);
}

/* tbr-heatmap (TBR_HEATMAP) on the tiles scene's output: fragments of frame 1 checked by pixel,
 * raster units of frame 2 drawn. */
static void tiles_heatmaps(const char *hm, const char *out)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' '%s' --frame 1 --metric fragments -o '%s/map_fragments.png'", hm, out, out);
    CHECK(system(cmd) == 0);
    tbr_image hmi;
    char p[1200], e[TBR_PNG_ERR_SIZE];
    snprintf(p, sizeof p, "%s/map_fragments.png", out);
    if (tbr_png_read_rgba8(p, &hmi, e, sizeof e) == 0) {
        /* tile 0 max (viridis top (253,231,37) over red), tile 2 min ((68,1,84) over black),
         * out = (153*C + 102*F + 127) / 255 (docs/tools-pictures.md) */
        pixel_is(&hmi, 16, 16, 254, 139, 22, 255);
        pixel_is(&hmi, 80, 16, 41, 1, 50, 255);
        tbr_image_free(&hmi);
    } else {
        fprintf(stderr, "%s\n", e);
        failures++;
    }
    snprintf(cmd, sizeof cmd, "'%s' '%s' --frame 2 --metric raster-unit -o '%s/map_ru.png'", hm, out, out);
    CHECK(system(cmd) == 0);
}

/* The tiles scene with Rendering Elimination and Transaction Elimination, TE alone, and
 * determinism of the RE+TE run. */
static void tiles_with_re_te(const char *work, const char *in, const char *hm)
{
    char out[1024], out2[1024];
    /* RE + TE (the SHADER records are no SHADER_CREATEs: RE on in every frame): frame 1 vs
     * the empty frame 0: tiles 2, 3, 4 (no primitive) skipped; frame 2 equals frame 1 (every
     * tile skipped); frame 3 moves the blue rectangle (tiles 4 and 5 rendered) */
    snprintf(out, sizeof out, "%s/tiles_re.out", work);
    CHECK(run(in, out, "--set tile.raster_units=2 --set re.enabled=true --set te.enabled=true") == 0);
    char *j = sim_slurp(strcat(strcpy(out2, out), "/tiles.json"));
    tiles_are(j, 0, "re_skipped", 0, 0, 0, 0, 0, 0); /* no reference yet */
    tiles_are(j, 1, "re_skipped", 0, 0, 1, 1, 1, 0);
    tiles_are(j, 1, "raster_unit", 0, 1, N, N, N, 1);
    tiles_are(j, 1, "fragments", 1024, 32, 0, 0, 0, 512);
    tiles_are(j, 2, "re_skipped", 1, 1, 1, 1, 1, 1);
    tiles_are(j, 3, "re_skipped", 1, 1, 1, 1, 0, 0);
    tiles_are(j, 2, "raster_unit", N, N, N, N, N, N);
    tiles_are(j, 3, "raster_unit", N, N, N, N, 0, 1); /* schedule positions 4 and 5 */
    tiles_are(j, 3, "fragments", 0, 0, 0, 0, 512, 0);
    tiles_are(j, 2, "cycles", N, N, N, N, N, N);
    tiles_are(j, 2, "te_eliminated", N, N, N, N, N, N); /* skipped: no flush */
    tiles_are(j, 3, "te_eliminated", N, N, N, N, 0, 0); /* colors changed: flushed */
    tiles_are(j, 1, "te_eliminated", 0, 0, N, N, N, 0); /* rendered tiles changed colors */
    tiles_are(j, 0, "te_eliminated", 0, 0, 0, 0, 0, 0); /* no TE reference yet */
    if (hm && *hm) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "'%s' '%s' --frame 3 --metric re-skipped -o '%s/map_re.png'", hm, out, out);
        CHECK(system(cmd) == 0);
    }
    free(j);
    /* TE alone: frame 2 repeats frame 1, every flush eliminated; RE off -> null */
    snprintf(out, sizeof out, "%s/tiles_te.out", work);
    CHECK(run(in, out, "--set tile.raster_units=2 --set te.enabled=true") == 0);
    j = sim_slurp(strcat(strcpy(out2, out), "/tiles.json"));
    tiles_are(j, 2, "te_eliminated", 1, 1, 1, 1, 1, 1);
    tiles_are(j, 3, "te_eliminated", 1, 1, 1, 1, 0, 0);
    tiles_are(j, 2, "re_skipped", N, N, N, N, N, N);
    tiles_are(j, 2, "raster_unit", 0, 1, 0, 1, 0, 1);
    free(j);
    snprintf(out, sizeof out, "%s/tiles_re.out", work);
    /* deterministic */
    snprintf(out2, sizeof out2, "%s/tiles_re2.out", work);
    CHECK(run(in, out2, "--set tile.raster_units=2 --set re.enabled=true --set te.enabled=true") == 0);
    char a[1200], bb[1200];
    snprintf(a, sizeof a, "%s/tiles.json", out);
    snprintf(bb, sizeof bb, "%s/tiles.json", out2);
    char *ja = sim_slurp(a), *jb = sim_slurp(bb);
    CHECK(ja && jb && !strcmp(ja, jb));
    free(ja);
    free(jb);
}

static void test_tiles(const char *work)
{
    char in[1024], out[1024], out2[1024];
    tbr_image im;
    check_tile_values_helper();
    snprintf(in, sizeof in, "%s/tiles", work);
    snprintf(out, sizeof out, "%s/tiles.out", work);
    gen_tiles(in);
    CHECK(run(in, out, "--set tile.raster_units=2") == 0);
    char *j = sim_slurp(strcat(strcpy(out2, out), "/tiles.json"));
    CHECK(j && strstr(j, "{\"tiles\": {") &&
          strstr(j, "\"tile_width\": 32, \"tile_height\": 32, \"cols\": 3, \"rows\": 2,"));
    for (int f = 0; f < 4; f++) {
        long long v[6];
        /* static assignment, scanline order, 2 units: schedule position mod 2 */
        tiles_are(j, f, "raster_unit", 0, 1, 0, 1, 0, 1);
        tiles_are(j, f, "re_skipped", N, N, N, N, N, N);    /* RE off */
        tiles_are(j, f, "te_eliminated", N, N, N, N, N, N); /* TE off */
        tile_values(j, f, "cycles", v);
        for (int i = 0; i < 6; i++) CHECK(v[i] > 0);
    }
    tiles_are(j, 0, "fragments", 0, 0, 0, 0, 0, 0);
    tiles_are(j, 1, "fragments", 1024, 32, 0, 0, 0, 512); /* row 1 = y 32..63 = bottom of the PNG */
    tiles_are(j, 3, "fragments", 1024, 32, 0, 0, 512, 0);
    /* fragment-heavy tile 0 takes longer in its unit than the empty tile 2 */
    long long c[6];
    tile_values(j, 1, "cycles", c);
    CHECK(c[0] > c[2] && c[5] > c[2]);
    if (!read_png(out, 1, &im)) { /* orientation: the blue rectangle is in PNG rows 32..47 */
        pixel_is(&im, 70, 40, 0, 0, 255, 255);
        pixel_is(&im, 70, 8, 0, 0, 0, 255);
        tbr_image_free(&im);
    }
    const char *hm = getenv("TBR_HEATMAP");
    if (hm && *hm) tiles_heatmaps(hm, out);
    free(j);

    tiles_with_re_te(work, in, hm);
}

static void test_vertex_heavy(const char *work)
{
    char in[1024], out[1024], out2[1024];
    tbr_image im;
    snprintf(in, sizeof in, "%s/vertex_heavy", work);
    snprintf(out, sizeof out, "%s/vertex_heavy.out", work);
    gen_vertex_heavy(in);
    CHECK(run(in, out, NULL) == 0); /* simulated (no false deadlock) and bit-exact */
    char *j = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
    CHECK(j && sim_stat_value(j, "geometry.vertices") == VERTEX_HEAVY_VERTS);
    CHECK(j && sim_stat_value(j, "quads.blended") == 16);
    /* the regression's premise: geometry alone outlasts the old 2M-cycle budget */
    const char *tc = j ? strstr(j, "\"total_cycles\": ") : NULL;
    CHECK(tc && atoll(tc + 16) > 2 * (2000000 + 64 + 16 * 4));
    if (!read_png(out, 0, &im)) {
        pixel_is(&im, 0, 0, 255, 0, 0, 255);
        pixel_is(&im, 7, 7, 255, 0, 0, 255);
        tbr_image_free(&im);
    }
    free(j);
}

/* Unified vs split shader cores with the same total core count (4 vertex + 4 fragment
 * processors = a pool of 8 cores; docs/timing-model.md "Unified shader cores"). Passes run
 * one phase at a time, so under unified cores each phase has all 8 cores:
 *  - vertex-heavy (gen_vs_heavy): 2048 vertices x 512 instructions = 1,048,576 issue slots;
 *    4 Vertex Processors need >= 262,144 geometry cycles, 8 pool cores >= 131,072 (the vertex
 *    fetch, about 40 cycles per vertex over 4 MSHRs = ~82,000, stays below both): the geometry
 *    phase must shrink to about half (accept 0.45 .. 0.6), the tiny raster phase stay within
 *    10%, and every instruction be vertex work;
 *  - fragment-heavy (the fill scene, as fp_scaling: 2048 quads x 64 instructions): 4 Fragment
 *    Processors >= 32,768 raster cycles, 8 pool cores >= 16,384: the raster phase must shrink
 *    to about half (0.45 .. 0.6) and the geometry phase (2 draws, 2 triangles) not change.
 * Both directions are "faster": with sequential phases the pool never has both kinds of work
 * at once (the arbitration: timing_units.shader_pool). Frames stay bit-exact (exit 0). */
static void test_unified(const char *work)
{
    char in[1024], out[1024], out2[1024];
    long long geo[2][2], ras[2][2], vinstr = -1, share_frag = -1;
    static const char *const org[2] = {"--set shader.organization=split", "--set shader.organization=unified"};
    for (int scene = 0; scene < 2; scene++) {
        snprintf(in, sizeof in, "%s/%s", work, scene ? "fill" : "vs_heavy");
        if (scene)
            gen_fill(in, 64, 2);
        else
            gen_vs_heavy(in);
        for (int u = 0; u < 2; u++) {
            snprintf(out, sizeof out, "%s/%s.%s.out", work, scene ? "fill" : "vs_heavy", u ? "unified" : "split");
            CHECK(run(in, out, org[u]) == 0);
            char *j = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
            geo[scene][u] = j ? sim_stat_value(j, "cycles.geometry") : -1;
            ras[scene][u] = j ? sim_stat_value(j, "cycles.raster") : -1;
            if (j && u && !scene) vinstr = sim_stat_value(j, "shader_pool.vertex.instructions");
            if (j && u && scene) share_frag = sim_stat_value(j, "shader_pool.fragment.instructions");
            free(j);
        }
    }
    double rg = geo[0][0] > 0 ? (double)geo[0][1] / (double)geo[0][0] : 0,
           rr = ras[1][0] > 0 ? (double)ras[1][1] / (double)ras[1][0] : 0;
    fprintf(stderr,
            "unified: vertex-heavy geometry cycles split %lld unified %lld (%.3f), raster %lld / %lld; "
            "fragment-heavy raster cycles split %lld unified %lld (%.3f), geometry %lld / %lld\n",
            geo[0][0], geo[0][1], rg, ras[0][0], ras[0][1], ras[1][0], ras[1][1], rr, geo[1][0], geo[1][1]);
    CHECK(geo[0][0] >= 262144 && geo[0][1] >= 131072);
    CHECK(rg >= 0.45 && rg <= 0.6);
    CHECK(ras[0][0] > 0 && ras[0][1] * 10 <= ras[0][0] * 11 && ras[0][1] * 10 >= ras[0][0] * 9);
    CHECK(vinstr == (long long)UNIFIED_VS_VERTS * UNIFIED_VS_INSTR);
    CHECK(ras[1][0] >= 32768 && ras[1][1] >= 16384);
    CHECK(rr >= 0.45 && rr <= 0.6);
    CHECK(geo[1][0] == geo[1][1]);
    CHECK(share_frag == 2048LL * 64);
}

static void test_quad_mapping(const char *work)
{
    char in[1024], out[1024], out2[1024];
    /* Quads of [0,12) x [0,20) in the one 32x32 tile: qx 0..5, qy 0..9, 60 quads, 4 FPs
     * (docs/timing-model.md "Quad mapping"). Per-FP quads (ru0.fp<i>.items), by hand:
     *  interleaved fp = (qx + 2*qy) % 4: even rows 0,1,2,3,0,1, odd rows 2,3,0,1,2,3;
     *              5 rows of each -> 15 15 15 15
     *  strips      fp = qy * 4 / 16 = qy / 4: rows 0-3 -> 0 (24), 4-7 -> 1 (24), 8-9 -> 2 (12)
     *              -> 24 24 12 0
     *  quadrant    2x2 regions of 8x8 quads: all qx < 8; qy < 8 -> 0 (48), qy 8-9 -> 2 (12)
     *              -> 48 0 12 0
     *  round_robin arrival order 0,1,2,3,0,... -> 15 15 15 15 */
    static const char *maps[4] = {"interleaved", "strips", "quadrant", "round_robin"};
    static const long long want[4][4] = {{15, 15, 15, 15}, {24, 24, 12, 0}, {48, 0, 12, 0}, {15, 15, 15, 15}};
    snprintf(in, sizeof in, "%s/qmap", work);
    gen_qmap(in, 12, 20, 4, 1);
    for (int m = 0; m < 4; m++) {
        char extra[128];
        snprintf(out, sizeof out, "%s/qmap_%s.out", work, maps[m]);
        snprintf(extra, sizeof extra, "--set fragment.quad_mapping=%s", maps[m]);
        CHECK(run(in, out, extra) == 0); /* nonzero if the frame is not bit-exact */
        char *j = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
        for (int i = 0; i < 4; i++) {
            char name[64];
            snprintf(name, sizeof name, "ru0.fp%d.items", i);
            long long v = j ? sim_stat_value(j, name) : -1;
            if (v != want[m][i]) {
                fprintf(stderr, "quad_mapping %s: %s = %lld, expected %lld\n", maps[m], name, v, want[m][i]);
                failures++;
            }
        }
        CHECK(j && sim_stat_value(j, "quads.shaded") == 60);
        free(j);
    }
    /* the default is interleaved: same counts without --set */
    snprintf(out, sizeof out, "%s/qmap_default.out", work);
    CHECK(run(in, out, NULL) == 0);
    char *j = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
    for (int i = 0; i < 4; i++) {
        char name[64];
        snprintf(name, sizeof name, "ru0.fp%d.items", i);
        CHECK(j && sim_stat_value(j, name) == 15);
    }
    free(j);
    /* Skewed scene: 4 draws of the top-left 8x8 quads ([0,16) x [0,16)), 64-instruction
     * FS (fragment-bound). quadrant puts all 256 quads on FP 0 (>= 256 * 64 = 16384
     * cycles at 1 instr/cycle); interleaved gives each FP 2 quads per row = 64 quads
     * (>= 4096 cycles). quadrant must be clearly slower (> 3x). */
    snprintf(in, sizeof in, "%s/qmap_skew", work);
    gen_qmap(in, 16, 16, 64, 4);
    long long cyc[2] = {-1, -1};
    for (int m = 0; m < 2; m++) {
        const char *map = m ? "quadrant" : "interleaved";
        char extra[128];
        snprintf(out, sizeof out, "%s/qmap_skew_%s.out", work, map);
        snprintf(extra, sizeof extra, "--set fragment.quad_mapping=%s", map);
        CHECK(run(in, out, extra) == 0);
        j = sim_slurp(strcat(strcpy(out2, out), "/stats.json"));
        cyc[m] = j ? sim_stat_value(j, "cycles.raster") : -1;
        CHECK(j && sim_stat_value(j, "ru0.fp0.items") == (m ? 256 : 64));
        CHECK(j && sim_stat_value(j, "ru0.fp3.items") == (m ? 0 : 64));
        free(j);
    }
    fprintf(stderr, "quad mapping skew: raster cycles interleaved %lld, quadrant %lld\n", cyc[0], cyc[1]);
    CHECK(cyc[0] >= 4096 && cyc[1] >= 16384);
    CHECK(cyc[0] > 0 && cyc[1] > 3 * cyc[0]);
}

static void test_skip_equivalence(const char *work)
{
    char in[1024];
    /* Skipping quiescent cycles (docs/timing-model.md) must not change any result: every
     * scene x configuration is simulated with and without --no-skip; stats.json,
     * tiles.json and the frame PNGs must be byte-identical, and skipping must have
     * happened (the progress line's share of skipped cycles) in the memory-bound scenes. */
    static const char *const cfgs[] = {
        "",
        "--set re.enabled=true --set te.enabled=true --set tile.raster_units=2 --set tile.ru_assignment=mixed",
        "--set tile.fetcher_pipelined=false --set fragment.quad_mapping=round_robin --set dram.scheduler=fcfs "
        "--set l2.mshrs=2 --set queue.post_raster=8 --set queue.pre_fragment=2",
        /* unified shader cores with few threads: cores full while requests wait */
        "--set shader.organization=unified --set shader.pool_threads=2 --set shader.lat_alu=40 --set "
        "tile.raster_units=2",
    };
    const char *scenes[] = {"load", "tiles", "fill", "depth"};
    double skipped_max = 0;
    for (int sc = 0; sc < 4; sc++) {
        snprintf(in, sizeof in, "%s/skip_%s", work, scenes[sc]);
        if (sc == 0)
            gen_load(in);
        else if (sc == 1)
            gen_tiles(in);
        else if (sc == 2)
            gen_fill(in, 24, 3);
        else
            gen_depth(in);
        for (int c = 0; c < 4; c++) {
            char o[2][1100], cmd[8192];
            for (int v = 0; v < 2; v++) {
                /* --force: a rerun of the test in the same build tree replaces its earlier outputs
                 * (tbr-sim refuses a non-empty output directory without it). */
                snprintf(o[v], sizeof o[v], "%s/skip_%s_%d_%s.out", work, scenes[sc], c, v ? "noskip" : "skip");
                snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' --force --no-check %s %s > '%s.log' 2>/dev/null", g_sim,
                         in, o[v], cfgs[c], v ? "--no-skip" : "", o[v]);
                CHECK(system(cmd) == 0);
            }
            static const char *const files[] = {"stats.json", "tiles.json", "frames/frame_00000.png",
                                                "frames/frame_00001.png"};
            for (int k = 0; k < 4; k++) {
                char a[1200], b2[1200];
                snprintf(a, sizeof a, "%s/%s", o[0], files[k]);
                snprintf(b2, sizeof b2, "%s/%s", o[1], files[k]);
                FILE *fa = fopen(a, "rb"), *fb = fopen(b2, "rb");
                if (k >= 2 && !fa && !fb) continue; /* scene without that frame */
                int same = fa && fb;
                while (same) {
                    int x = fgetc(fa), y = fgetc(fb);
                    if (x != y) same = 0;
                    if (x == EOF || y == EOF) break;
                }
                if (!same) {
                    fprintf(stderr, "skip_equivalence: %s config %d: %s differs\n", scenes[sc], c, files[k]);
                    failures++;
                }
                if (fa) fclose(fa);
                if (fb) fclose(fb);
            }
            char lg[1200];
            snprintf(lg, sizeof lg, "%s.log", o[0]);
            char *l = sim_slurp(lg);
            const char *pct = l ? strstr(l, "cycles/s (") : NULL;
            double sk = pct ? atof(pct + 10) : -1;
            CHECK(sk >= 0);
            if (sk > skipped_max) skipped_max = sk;
            free(l);
        }
    }
    fprintf(stderr, "skip_equivalence: largest share of skipped cycles %.1f%%\n", skipped_max);
    CHECK(skipped_max > 10);
}

/* A frame whose RENDER_PASS (w x h) or FRAME_END (fw x fh) claims a huge render target
 * (hostile input, issue 22): the decoder rejects sizes above TBR_REC_MAX_DIM. */
static void gen_huge(const char *dir, uint32_t w, uint32_t h, uint32_t fw, uint32_t fh)
{
    open_trace(dir);
    synth_begin_frame(0);
    synth_resource(1, BGRA, 8, 8, 4, 1);
    synth_render_pass(0, w, h, 1, 0);
    synth_clear(4, 0, 1, 0, 1, 0);
    synth_frame_end(0, fw, fh);
    synth_end_frame();
    synth_trace_close();
}

static void test_cli(const char *work)
{
    char in[1024], out[1024];
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' --version >/dev/null", g_sim);
    CHECK(system(cmd) == 0);
    snprintf(out, sizeof out, "%s/cli.out", work);
    CHECK(run("/nonexistent/trace", out, NULL) == 2);
    snprintf(in, sizeof in, "%s/blend", work);
    gen_blend(in);
    CHECK(run(in, out, "--set no.such=1") == 2);
    CHECK(run(in, out, "--frames 3-1") == 2);
    /* a render target beyond the GL maximum is malformed input (exit 2), not an allocation
     * of gigabytes (a RENDER_PASS 2^31 rows high grew tbr-sim to 24 GB; a FRAME_END as wide
     * made it abort) */
    snprintf(in, sizeof in, "%s/huge_pass", work);
    gen_huge(in, 8, 1u << 31, 8, 8);
    CHECK(run(in, out, NULL) == 2);
    snprintf(in, sizeof in, "%s/huge_frame_end", work);
    gen_huge(in, 8, 8, 1u << 31, 8);
    CHECK(run(in, out, NULL) == 2);
    snprintf(in, sizeof in, "%s/max_pass", work);
    gen_huge(in, 8, 16384, 8, 8); /* the largest allowed height still runs */
    CHECK(run(in, out, NULL) == 0);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_sim TBR_SIM WORKDIR\n");
        return 2;
    }
    g_sim = argv[1];
    const char *work = argv[2];
    mkdir(work, 0777);
    const char *which = getenv("TBR_SIM_TEST");
    /* One function per test (TBR_SIM_TEST names one; unset runs them all, in this order). */
    static const struct {
        const char *name;
        void (*run)(const char *work);
    } tests[] = {{"blend", test_blend},
                 {"load", test_load},
                 {"depth", test_depth},
                 {"depth_store", test_depth_store},
                 {"determinism", test_determinism},
                 {"throughput", test_throughput},
                 {"fp_scaling", test_fp_scaling},
                 {"energy", test_energy},
                 {"tiles", test_tiles},
                 {"vertex_heavy", test_vertex_heavy},
                 {"unified", test_unified},
                 {"quad_mapping", test_quad_mapping},
                 {"skip_equivalence", test_skip_equivalence},
                 {"cli", test_cli}};
    for (size_t t = 0; t < sizeof tests / sizeof tests[0]; t++)
        if (!which || !strcmp(which, tests[t].name)) tests[t].run(work);
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
