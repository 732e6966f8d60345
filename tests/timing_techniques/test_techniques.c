/* Tests of the research techniques of tbr-sim (docs/techniques.md): Rendering
 * Elimination (RE paper seeds/001 sec. III), Transaction Elimination (sec. IV-C) and the
 * Parallel Tile Rendering assignment policies (thesis ch. 5). Synthetic activity traces,
 * written with tests/common/synth_trace.h. usage: test_techniques TBR_SIM WORKDIR,
 * test selected by TBR_TECH_TEST.
 *
 * Window 64x64 B8G8R8A8 = 4 simulator tiles of 32x32 (t0 (0,0), t1 (1,0), t2 (0,1),
 * t3 (1,1)) inside one 64x64 softpipe tile. Scenes:
 *  casual (4 frames): each frame clears to black; draw 0 red square in t0; draw 1 green
 *    square in t1 (its DRAW.blend_color, unused with blending off, changes in frame 3);
 *    t2 empty; draw 2 blue 8x8 square in t3 at (32,32) in even frames, (48,48) in odd ones.
 *  swap (2 frames): t0 gets two overlapping primitives of one draw: P0 = full tile,
 *    P1 = top half. Frame 0: P0 red, P1 green. Frame 1: the two primitives exchange their
 *    attribute data (P0 = red top half, P1 = green full tile). The set of primitive
 *    blocks is the same, so an order-insensitive signature (XOR/sum of primitive CRCs)
 *    is equal in both frames and would keep frame 0's colors (bottom half red); frame 1
 *    must be all green.
 *  swapchain (6 frames, RE paper sec. IV-C double buffering): the default framebuffer
 *    alternates between two window buffers, A = resource 1 in even frames, B = resource 2
 *    in odd ones, each frame cleared to black: t0 red square (every frame); t1 green in
 *    even frames, blue in odd ones (differs from frame N-1, equals frame N-2); t2 empty;
 *    t3 blue 8x8 square at (32,32), at (48,48) in frame 5 only. Frames 0/2/4 are
 *    identical, and so are 1/3; frame 5 = frame 3 with t3's square moved.
 *  multipass (4 frames, two render passes each; docs/techniques.md "Several render
 *    passes"), in three variants:
 *    - static: pass 0 draws into an off-screen texture T (resource 3) a red square in t0,
 *      the same every frame; pass 1 draws into the window (resource 1) a quad in t0 that
 *      samples T (its colors: T's red) and the blue 8x8 square of the casual scene,
 *      at (32,32) in even frames, (48,48) in odd ones.
 *    - sample_changing: pass 0's square in T is red in even frames, green in odd ones;
 *      pass 1's draw sampling T is the same every frame (same DRAW, same PRIM: equal
 *      signatures), its colors follow T: red, green, red, green.
 *    - two_passes: both passes draw into the window: pass 0 clears it and draws the red
 *      square in t0 (the same every frame); pass 1 loads it (no clear) and draws the
 *      moving blue square. Memory holds pass 1's output when the next frame's pass 0
 *      begins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>

#include "core/crc32.h"
#include "sim_output.h"
#include "synth_trace.h"
#include "tbr/png_io.h"

#include "check.h"
static void open_trace(const char *dir) { synth_trace_open(dir, "test_techniques"); }

#define BGRA "PIPE_FORMAT_B8G8R8A8_UNORM"
static const float RED[4] = {1, 0, 0, 1}, BLUE_HALF[4] = {0, 0, 1, 0.5f}, BLUE[4] = {0, 0, 1, 1},
                   GREEN[4] = {0, 1, 0, 1};

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

#define CHECKEQ(json, name, want)                                                                                      \
    do {                                                                                                               \
        long long v_ = sim_stat_value(json, name);                                                                     \
        if (v_ != (want)) {                                                                                            \
            fprintf(stderr, "%s:%d: %s = %lld, expected %lld\n", __FILE__, __LINE__, name, v_, (long long)(want));     \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static void upload_flags(uint32_t res, uint32_t flags)
{
    tbr_rec_upload u = {0};
    u.resource_id = res;
    u.bytes = 64;
    u.flags = flags;
    SYNTH_EMIT(TBR_REC_UPLOAD, tbr_rec_upload_encode, &u);
}
static void upload(uint32_t res) { upload_flags(res, 0); }

/* Frame events that may disable RE (sec. III-E). */
enum { EV_UPLOAD_RT = 1, EV_UPLOAD_BUFFER, EV_UPLOAD_TEXTURE, EV_CREATE_INTERNAL, EV_CREATE_APP, EV_TILE_CACHE };
static void shader_create(uint32_t id, uint32_t internal)
{
    tbr_rec_shader s = {0};
    s.id = id;
    s.stage = 1;
    s.internal = internal;
    s.num_instructions = 4;
    s.parent_id = id;
    SYNTH_EMIT(TBR_REC_SHADER_CREATE, tbr_rec_shader_create_encode, &s);
}

/* One frame of the casual scene (header comment); `ev` adds an UPLOAD (to the render
 * target, to a vertex buffer = PIPE_BUFFER resource, to a texture) or a SHADER_CREATE
 * (Mesa-internal or application). */
static void casual_frame(uint32_t f, int ev)
{
    synth_begin_frame(f);
    synth_resource(1, BGRA, 64, 64, 4, 1);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, 4);
    if (ev == EV_UPLOAD_RT) upload(1);
    if (ev == EV_TILE_CACHE) upload_flags(1, TBR_REC_UPLOAD_TILE_CACHE); /* softpipe's write-back */
    if (ev == EV_UPLOAD_BUFFER || ev == EV_UPLOAD_TEXTURE) {
        tbr_rec_resource r = {0};
        r.id = 7;
        r.target = ev == EV_UPLOAD_BUFFER ? 0 /* PIPE_BUFFER */ : 2 /* PIPE_TEXTURE_2D */;
        r.width = ev == EV_UPLOAD_BUFFER ? 4096 : 16;
        r.height = ev == EV_UPLOAD_BUFFER ? 1 : 16;
        r.depth = 1;
        r.array_size = 1;
        r.block_bytes = ev == EV_UPLOAD_BUFFER ? 1 : 4;
        snprintf(r.format_name, sizeof r.format_name, "%s", ev == EV_UPLOAD_BUFFER ? "PIPE_FORMAT_R8_UNORM" : BGRA);
        SYNTH_EMIT(TBR_REC_RESOURCE, tbr_rec_resource_encode, &r);
        upload(7);
    }
    if (ev == EV_CREATE_INTERNAL || ev == EV_CREATE_APP) shader_create(9, ev == EV_CREATE_INTERNAL);
    synth_render_pass(0, 64, 64, 1, 0);
    synth_clear(4, 0, 0, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
    synth_quad_prim = 0;
    synth_draw_blend_color0 = 0;
    synth_prim_color = RED;
    synth_draw(0, 0, 0, 2);
    synth_prim(0, 0, 0, 0, 31.5f, 31.5f);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
    synth_quads(0, 0, 0, 32, 32, RED, 0, 0, 0);
    synth_draw_blend_color0 = f == 3 ? 0.5f : 0;
    synth_prim_color = GREEN;
    synth_draw(1, 0, 0, 2);
    synth_prim(1, 0, 32, 0, 63.5f, 31.5f);
    synth_quads(1, 32, 0, 64, 32, GREEN, 0, 0, 0);
    synth_draw_blend_color0 = 0;
    synth_prim_color = BLUE;
    int o = (f & 1) ? 48 : 32;
    synth_draw(2, 0, 0, 2);
    synth_prim(2, 0, (float)o, (float)o, o + 7.5f, o + 7.5f);
    synth_quads(2, o, o, o + 8, o + 8, BLUE, 0, 0, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_frame_end(f, 64, 64);
    synth_end_frame();
}

static void gen_casual_ev(const char *dir, int ev_frame, int ev)
{
    open_trace(dir);
    for (uint32_t f = 0; f < 4; f++) casual_frame(f, (int)f == ev_frame ? ev : 0);
    synth_trace_close();
}

static void gen_casual(const char *dir, int upload_frame)
{
    open_trace(dir);
    for (uint32_t f = 0; f < 4; f++) casual_frame(f, (int)f == upload_frame ? EV_UPLOAD_RT : 0);
    synth_trace_close();
}

static void gen_swap(const char *dir)
{
    open_trace(dir);
    for (uint32_t f = 0; f < 2; f++) {
        synth_frame_begin_cleared(f, 64, 64, 4);
        synth_draw_blend_color0 = 0;
        const float *c0 = f ? GREEN : RED, *c1 = f ? RED : GREEN;
        synth_draw(0, 0, 0, 2);
        /* frame 0: P0 full tile, P1 top half; frame 1: the primitives' data swapped */
        if (!f) {
            synth_prim_color = c0;
            synth_prim(0, 0, 0, 0, 31.5f, 31.5f);
            synth_prim_color = c1;
            synth_prim(0, 1, 0, 0, 31.5f, 15.5f);
            synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
            synth_quad_prim = 0;
            synth_quads(0, 0, 0, 32, 32, c0, 0, 0, 0);
            synth_quad_prim = 1;
            synth_quads(0, 0, 0, 32, 16, c1, 0, 0, 0);
        } else {
            synth_prim_color = c1;
            synth_prim(0, 0, 0, 0, 31.5f, 15.5f);
            synth_prim_color = c0;
            synth_prim(0, 1, 0, 0, 31.5f, 31.5f);
            synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
            synth_quad_prim = 0;
            synth_quads(0, 0, 0, 32, 16, c1, 0, 0, 0);
            synth_quad_prim = 1;
            synth_quads(0, 0, 0, 32, 32, c0, 0, 0, 0);
        }
        synth_quad_prim = 0;
        synth_tile(TBR_REC_TILE_STORE, 0, 1);
        synth_frame_end(f, 64, 64);
        synth_end_frame();
    }
    synth_trace_close();
}

/* One frame of the swapchain scene (header comment). */
static void swapchain_frame(uint32_t f)
{
    uint32_t target = (f & 1) ? 2 : 1;
    synth_begin_frame(f);
    synth_resource(1, BGRA, 64, 64, 4, 1);
    synth_resource(2, BGRA, 64, 64, 4, 1);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, 4);
    synth_render_pass(0, 64, 64, target, 0);
    synth_clear(4, 0, 0, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, target);
    synth_quad_prim = 0;
    synth_draw_blend_color0 = 0;
    synth_prim_color = RED;
    synth_draw(0, 0, 0, 2);
    synth_prim(0, 0, 0, 0, 31.5f, 31.5f);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, target);
    synth_quads(0, 0, 0, 32, 32, RED, 0, 0, 0);
    const float *c1 = (f & 1) ? BLUE : GREEN;
    synth_prim_color = c1;
    synth_draw(1, 0, 0, 2);
    synth_prim(1, 0, 32, 0, 63.5f, 31.5f);
    synth_quads(1, 32, 0, 64, 32, c1, 0, 0, 0);
    int o = f == 5 ? 48 : 32;
    synth_prim_color = BLUE;
    synth_draw(2, 0, 0, 2);
    synth_prim(2, 0, (float)o, (float)o, o + 7.5f, o + 7.5f);
    synth_quads(2, o, o, o + 8, o + 8, BLUE, 0, 0, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, target);
    synth_frame_end(f, 64, 64);
    synth_end_frame();
}

enum { SWAPCHAIN_FRAMES = 6 };
static void gen_swapchain(const char *dir)
{
    open_trace(dir);
    for (uint32_t f = 0; f < SWAPCHAIN_FRAMES; f++) swapchain_frame(f);
    synth_trace_close();
}

/* The multipass scene (header comment). */
enum { MP_STATIC, MP_SAMPLE_CHANGING, MP_TWO_PASSES };
enum { MULTIPASS_FRAMES = 4 };
static void multipass_frame(uint32_t f, int variant)
{
    const uint32_t tex = variant == MP_TWO_PASSES ? 1 : 3; /* pass 0's target */
    const float *tcol = variant == MP_SAMPLE_CHANGING && (f & 1) ? GREEN : RED;
    synth_begin_frame(f);
    synth_resource(1, BGRA, 64, 64, 4, 1);
    synth_resource(3, BGRA, 64, 64, 4, 0);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, 4);
    synth_quad_prim = 0;
    synth_draw_blend_color0 = 0;
    /* pass 0: T (or the window) cleared, the square in t0 */
    synth_render_pass_default = tex == 1;
    synth_render_pass(0, 64, 64, tex, 0);
    synth_clear(4, 0, 0, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, tex);
    synth_prim_color = tcol;
    synth_draw(0, 0, 0, 2);
    synth_prim(0, 0, 0, 0, 31.5f, 31.5f);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, tex);
    synth_quads(0, 0, 0, 32, 32, tcol, 0, 0, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, tex);
    /* pass 1: the window */
    synth_render_pass_default = 1;
    synth_render_pass(1, 64, 64, 1, 0);
    if (variant == MP_TWO_PASSES) {
        synth_tile(TBR_REC_TILE_LOAD, 0, 1);
    } else {
        synth_clear(4, 0, 0, 0, 1, 0);
        synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
        synth_prim_color = NULL; /* texture coordinates: the same every frame */
        synth_draw_texture = 3;
        synth_draw(1, 0, 0, 2);
        synth_draw_texture = 0;
        synth_prim(1, 0, 0, 0, 31.5f, 31.5f);
        synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
        synth_quads(1, 0, 0, 32, 32, tcol, 0, 0, 0); /* what T holds at t0 */
    }
    if (variant != MP_SAMPLE_CHANGING) {
        int o = (f & 1) ? 48 : 32;
        const uint32_t seq = variant == MP_TWO_PASSES ? 1 : 2;
        synth_prim_color = BLUE;
        synth_draw(seq, 0, 0, 2);
        synth_prim(seq, 0, (float)o, (float)o, o + 7.5f, o + 7.5f);
        synth_quads(seq, o, o, o + 8, o + 8, BLUE, 0, 0, 0);
    }
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_frame_end(f, 64, 64);
    synth_end_frame();
}

static void gen_multipass(const char *dir, int variant)
{
    open_trace(dir);
    for (uint32_t f = 0; f < MULTIPASS_FRAMES; f++) multipass_frame(f, variant);
    synth_trace_close();
}

static void gen_fill(const char *dir, uint32_t instr, int ndraws)
{
    open_trace(dir);
    synth_frame_begin_cleared(0, 64, 64, instr);
    synth_prim_color = NULL;
    synth_quad_prim = 0;
    for (int i = 0; i < ndraws; i++) {
        synth_draw((uint32_t)i, 1, 0, 2);
        synth_prim((uint32_t)i, 0, 0, 0, 63.5f, 63.5f);
        if (i == 0) synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
        synth_quads((uint32_t)i, 0, 0, 64, 64, i & 1 ? BLUE_HALF : RED, 0, 0, 0);
    }
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_frame_end(0, 64, 64);
    synth_end_frame();
    synth_trace_close();
}

/* gen_fill with `nframes` equal frames. */
static void gen_fill_frames(const char *dir, uint32_t instr, int ndraws, uint32_t nframes)
{
    open_trace(dir);
    for (uint32_t f = 0; f < nframes; f++) {
        synth_frame_begin_cleared(f, 64, 64, instr);
        synth_prim_color = NULL;
        synth_quad_prim = 0;
        for (int i = 0; i < ndraws; i++) {
            synth_draw((uint32_t)i, 1, 0, 2);
            synth_prim((uint32_t)i, 0, 0, 0, 63.5f, 63.5f);
            if (i == 0) synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, 1);
            synth_quads((uint32_t)i, 0, 0, 64, 64, i & 1 ? BLUE_HALF : RED, 0, 0, 0);
        }
        synth_tile(TBR_REC_TILE_STORE, 0, 1);
        synth_frame_end(f, 64, 64);
        synth_end_frame();
    }
    synth_trace_close();
}

static int same_file(const char *a, const char *b2)
{
    char *x = sim_slurp(a), *y = sim_slurp(b2);
    int r = x && y && strcmp(x, y) == 0; /* PNG bytes: compared up to the first NUL, then sizes */
    if (r) {
        FILE *fa = fopen(a, "rb"), *fb = fopen(b2, "rb");
        int ca, cb;
        do {
            ca = fgetc(fa);
            cb = fgetc(fb);
        } while (ca == cb && ca != EOF);
        r = ca == cb;
        fclose(fa);
        fclose(fb);
    }
    free(x);
    free(y);
    return r;
}

static char g_dir[900];
static char *sim_stats(const char *trace, const char *name, const char *extra, int want_rc)
{
    char out[1200], in[1200], p[1300];
    snprintf(in, sizeof in, "%s/%s", g_dir, trace);
    snprintf(out, sizeof out, "%s/out_%s", g_dir, name);
    int rc = run(in, out, extra);
    if (rc != want_rc) {
        fprintf(stderr, "tbr-sim %s %s: exit %d\n", trace, extra, rc);
        failures++;
    }
    snprintf(p, sizeof p, "%s/stats.json", out);
    char *j = sim_slurp(p);
    if (!j) {
        fprintf(stderr, "no %s\n", p);
        failures++;
        j = calloc(1, 1);
    }
    return j;
}

/* Every frame of out_A is byte-identical to out_B's (PNG files). */
static void frames_identical(const char *out_a, const char *out_b, unsigned nframes)
{
    for (unsigned f = 0; f < nframes; f++) {
        char a[1300], c[1300];
        snprintf(a, sizeof a, "%s/%s/frames/frame_%05u.png", g_dir, out_a, f);
        snprintf(c, sizeof c, "%s/%s/frames/frame_%05u.png", g_dir, out_b, f);
        if (!same_file(a, c)) {
            fprintf(stderr, "frame %u: %s differs from %s\n", f, out_a, out_b);
            failures++;
        }
    }
}

/* The swapchain frames' expected pixels: red t0, t1 green (even) / blue (odd), black t2,
 * blue square at (32,32) or, in frame 5, at (48,48) with (32,32) black. A tile skipped
 * or a flush eliminated against the wrong frame keeps the other buffer's or frame's
 * colors and fails here. */
static void swapchain_pixels(const char *out)
{
    char p[1200];
    tbr_image im;
    snprintf(p, sizeof p, "%s/%s", g_dir, out);
    for (unsigned f = 0; f < SWAPCHAIN_FRAMES; f++) {
        if (read_png(p, f, &im)) continue;
        pixel_is(&im, 5, 5, 255, 0, 0, 255);
        if (f & 1)
            pixel_is(&im, 40, 10, 0, 0, 255, 255);
        else
            pixel_is(&im, 40, 10, 0, 255, 0, 255);
        pixel_is(&im, 10, 40, 0, 0, 0, 255);
        pixel_is(&im, 34, 34, 0, 0, f == 5 ? 0 : 255, 255);
        pixel_is(&im, 50, 50, 0, 0, f == 5 ? 255 : 0, 255);
        tbr_image_free(&im);
    }
}

static void test_crc(void)
{
    /* Our CRC32 = zlib's on messages of every length 0..300 and a known vector. */
    uint8_t m[4096];
    for (size_t i = 0; i < sizeof m; i++) m[i] = (uint8_t)(i * 131u + 7u);
    CHECK(tbr_crc32(0, "123456789", 9) == 0xCBF43926u); /* the standard check value */
    for (size_t n = 0; n <= 300; n++) CHECK(tbr_crc32(0, m, n) == (uint32_t)crc32(0, m, (uInt)n));
    /* Sign subunit (8 LUTs) and Algorithm 2 (64-bit subblocks) */
    for (size_t o = 0; o < 64; o++) CHECK(tbr_crc32_sign64(m + o) == (uint32_t)crc32(0, m + o, 8));
    for (size_t n = 0; n <= 4096; n += 8) CHECK(tbr_crc32_blocks64(m, n) == (uint32_t)crc32(0, m, (uInt)n));
    /* combine vs zlib, and Algorithm 3 (iterated 64-bit shifts) vs combine */
    for (size_t a = 0; a <= 512; a += 37)
        for (size_t l = 0; l <= 1024; l += 61) {
            uint32_t ca = (uint32_t)crc32(0, m, (uInt)a), cb = (uint32_t)crc32(0, m + a, (uInt)l);
            CHECK(tbr_crc32_combine(ca, cb, l) == (uint32_t)crc32_combine(ca, cb, (z_off_t)l));
            CHECK(tbr_crc32_combine(ca, cb, l) == (uint32_t)crc32(0, m, (uInt)(a + l)));
            if (l % 8 == 0) CHECK((tbr_crc32_accumulate64(ca, l / 8) ^ cb) == (uint32_t)crc32(0, m, (uInt)(a + l)));
        }
    /* A tile message of blocks (constants, prim, prim) accumulated like the Signature Unit
     * equals the CRC32 of the concatenated message. */
    uint32_t sig = tbr_crc32_blocks64(m, 96);
    sig = tbr_crc32_accumulate64(sig, 13) ^ tbr_crc32_blocks64(m + 96, 104);
    sig = tbr_crc32_accumulate64(sig, 13) ^ tbr_crc32_blocks64(m + 200, 104);
    CHECK(sig == (uint32_t)crc32(0, m, 304));
    /* The combine Accumulate unit (re.accumulate_unit=combine): the shift operator built
     * one Shift step per subblock beside Algorithm 2 equals zlib's crc32_combine_gen, and
     * one multiplication by it equals zlib's crc32_combine_op and the iterated shifts. */
    uint32_t op = tbr_crc32_op_identity();
    for (uint64_t n = 0; n <= 80; n++) {
        CHECK(op == (uint32_t)crc32_combine_gen((z_off_t)(8 * n)));
        uint32_t ca = (uint32_t)crc32(0, m, 40), cb = (uint32_t)crc32(0, m + 40, (uInt)(8 * n));
        CHECK(tbr_crc32_combine_op(ca, cb, op) == (uint32_t)crc32_combine_op(ca, cb, op));
        CHECK(tbr_crc32_combine_op(ca, cb, op) == (uint32_t)crc32(0, m, (uInt)(40 + 8 * n)));
        CHECK(tbr_crc32_combine_op(ca, cb, op) == (tbr_crc32_accumulate64(ca, n) ^ cb));
        op = tbr_crc32_shift64(op);
    }
    /* Order matters: swapping two blocks changes the CRC (the XOR of the two does not). */
    uint32_t s1 = tbr_crc32_combine(tbr_crc32(0, m, 104), tbr_crc32(0, m + 104, 104), 104);
    uint32_t s2 = tbr_crc32_combine(tbr_crc32(0, m + 104, 104), tbr_crc32(0, m, 104), 104);
    CHECK(s1 != s2);
}

static void test_re_casual(void)
{
    char p[1200];
    tbr_image im;
    snprintf(p, sizeof p, "%s/casual", g_dir);
    gen_casual(p, -1);
    char *j = sim_stats("casual", "re", "--set re.enabled=true", 0);
    /* frame 1: t0, t1, t2 equal to frame 0 (t3's square moved): 3 skipped, 1 rendered;
     * frame 2: same, 3 + 1; frame 3: t1's blend color changed -> t0, t2 skipped, t1 (equal
     * colors, different inputs: a false negative) and t3 rendered. Frame 0: 4 rendered.
     * skipped 3+3+2 = 8, rendered 4+1+1+2 = 8, equal inputs 8, false negatives 1. */
    CHECKEQ(j, "re.tiles_skipped", 8);
    CHECKEQ(j, "re.tiles_rendered", 8);
    CHECKEQ(j, "re.tiles_equal_inputs", 8);
    CHECKEQ(j, "re.tiles_equal_colors_diff_inputs", 1);
    CHECKEQ(j, "re.false_positives", 0);
    CHECKEQ(j, "re.frames_enabled", 4);
    CHECKEQ(j, "re.frames_no_reference", 1);
    CHECKEQ(j, "re.su.primitives", 12);
    CHECKEQ(j, "tiles.rendered", 8); /* only non-skipped tiles reach the Raster Unit */
    free(j);
    /* frame 3 (odd): red t0, green t1, black t2, blue square at (48,48), (32,32) black again */
    snprintf(p, sizeof p, "%s/out_re", g_dir);
    if (!read_png(p, 3, &im)) {
        pixel_is(&im, 5, 5, 255, 0, 0, 255);
        pixel_is(&im, 40, 10, 0, 255, 0, 255);
        pixel_is(&im, 10, 40, 0, 0, 0, 255);
        pixel_is(&im, 50, 50, 0, 0, 255, 255);
        pixel_is(&im, 34, 34, 0, 0, 0, 255);
        tbr_image_free(&im);
    }
    /* every frame identical to the run without RE */
    char *j0 = sim_stats("casual", "base", "", 0);
    free(j0);
    for (unsigned f = 0; f < 4; f++) {
        char a[1300], c[1300];
        snprintf(a, sizeof a, "%s/out_re/frames/frame_%05u.png", g_dir, f);
        snprintf(c, sizeof c, "%s/out_base/frames/frame_%05u.png", g_dir, f);
        CHECK(same_file(a, c));
    }
    /* double buffering on a single-buffer trace: never a valid reference, nothing skipped */
    j = sim_stats("casual", "re_dbl", "--set re.enabled=true --set re.buffering=double", 0);
    CHECKEQ(j, "re.tiles_skipped", 0);
    free(j);
    /* refresh every 2nd frame: frames 2 (index 2 of 1-based 1..4 -> frames 1 and 3) */
    j = sim_stats("casual", "re_refresh", "--set re.enabled=true --set re.refresh_period=2", 0);
    CHECKEQ(j, "re.frames_disabled_refresh", 2); /* simulated frames #2 and #4 = frames 1, 3 */
    CHECKEQ(j, "re.tiles_skipped", 3);           /* frame 2 only */
    free(j);
}

static void test_re_swap(void)
{
    char p[1200];
    tbr_image im;
    snprintf(p, sizeof p, "%s/swap", g_dir);
    gen_swap(p);
    char *j = sim_stats("swap", "re", "--set re.enabled=true", 0);
    /* frame 1: t0's inputs differ (primitive order of the swapped data) -> rendered;
     * t1..t3 empty in both frames -> 3 skipped. */
    CHECKEQ(j, "re.tiles_skipped", 3);
    CHECKEQ(j, "re.tiles_rendered", 5);
    CHECKEQ(j, "re.false_positives", 0);
    free(j);
    /* frame 0: red full tile, then green top half: top green, bottom red. frame 1: red
     * top half, then green full tile: all green (a wrong skip would keep red at y=20). */
    snprintf(p, sizeof p, "%s/out_re", g_dir);
    if (!read_png(p, 0, &im)) {
        pixel_is(&im, 4, 4, 0, 255, 0, 255);
        pixel_is(&im, 4, 20, 255, 0, 0, 255);
        tbr_image_free(&im);
    }
    if (!read_png(p, 1, &im)) {
        pixel_is(&im, 4, 4, 0, 255, 0, 255);
        pixel_is(&im, 4, 20, 0, 255, 0, 255);
        tbr_image_free(&im);
    }
}

static void test_re_upload(void)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/casual_up", g_dir);
    gen_casual(p, 2);
    char *j = sim_stats("casual_up", "re", "--set re.enabled=true", 0);
    /* frame 2 uploads: RE off in it, and its signatures are no reference for frame 3:
     * only frame 1 skips (t0, t1, t2). */
    CHECKEQ(j, "re.frames_disabled_upload", 1);
    CHECKEQ(j, "re.tiles_skipped", 3);
    CHECKEQ(j, "re.frames_no_reference", 2); /* frames 0 and 3 */
    CHECKEQ(j, "re.false_positives", 0);
    free(j);
    /* the same with the frame-2 event being an upload to a texture (disables RE, like
     * above), an upload to a buffer (does not: vertex/index/constant data is signed
     * through the PRIM attributes and DRAW constants), a Mesa-internal SHADER_CREATE
     * (does not) or an application SHADER_CREATE (does): 3 skipped tiles when
     * disabled, the 8 of re_casual when not; an UPLOAD into the render target flagged
     * TILE_CACHE (softpipe writing back what the pass rendered, records minor 8) does not
     * disable it either */
    static const struct {
        const char *name;
        int ev;
        long long skipped, dis_up, dis_sh, bufonly, internal;
    } k[] = {{"casual_tex", EV_UPLOAD_TEXTURE, 3, 1, 0, 0, 0},
             {"casual_buf", EV_UPLOAD_BUFFER, 8, 0, 0, 1, 0},
             {"casual_int", EV_CREATE_INTERNAL, 8, 0, 0, 0, 1},
             {"casual_app", EV_CREATE_APP, 3, 0, 1, 0, 0},
             {"casual_tcache", EV_TILE_CACHE, 8, 0, 0, 0, 0}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", g_dir, k[i].name);
        gen_casual_ev(p, 2, k[i].ev);
        j = sim_stats(k[i].name, k[i].name, "--set re.enabled=true", 0);
        CHECKEQ(j, "re.tiles_skipped", k[i].skipped);
        CHECKEQ(j, "re.frames_disabled_upload", k[i].dis_up);
        CHECKEQ(j, "re.frames_disabled_shader", k[i].dis_sh);
        CHECKEQ(j, "re.frames_buffer_uploads_only", k[i].bufonly);
        CHECKEQ(j, "re.frames_internal_shader_creates", k[i].internal);
        CHECKEQ(j, "re.frames_tile_cache_writebacks", k[i].ev == EV_TILE_CACHE);
        CHECKEQ(j, "re.false_positives", 0);
        free(j);
    }
}

static void test_te_static(void)
{
    char p[1200];
    tbr_image im;
    snprintf(p, sizeof p, "%s/casual", g_dir);
    gen_casual(p, -1);
    char *j = sim_stats("casual", "te", "--set te.enabled=true", 0);
    /* 16 flushes; frames 1-3: t0, t1 (equal colors even in frame 3), t2 unchanged, t3
     * changed: 9 eliminated; a 32x32 BGRA tile = 32 rows x 2 lines x 64 B = 4096 B. */
    CHECKEQ(j, "te.flushes", 16);
    CHECKEQ(j, "te.flushes_eliminated", 9);
    CHECKEQ(j, "te.bytes_saved", 9 * 4096);
    CHECKEQ(j, "te.false_positives", 0);
    CHECKEQ(j, "tiles.flush_lines", 7 * 64);
    free(j);
    snprintf(p, sizeof p, "%s/out_te", g_dir);
    if (!read_png(p, 3, &im)) {
        pixel_is(&im, 40, 10, 0, 255, 0, 255);
        pixel_is(&im, 50, 50, 0, 0, 255, 255);
        tbr_image_free(&im);
    }
    /* RE and TE together: TE checks only the 8 rendered tiles; of them t1 in frame 3 */
    j = sim_stats("casual", "rete", "--set te.enabled=true --set re.enabled=true", 0);
    CHECKEQ(j, "te.flushes", 8);
    CHECKEQ(j, "te.flushes_eliminated", 1);
    free(j);
}

static void test_re_double(void)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/swapchain", g_dir);
    gen_swapchain(p);
    char *j = sim_stats("swapchain", "base", "", 0);
    free(j);
    swapchain_pixels("out_base");
    /* double: frames 0 and 1 have no frame N-2; frames 2, 3, 4 equal frame N-2 in all 4
     * tiles (skipped, though t1 differs from frame N-1); frame 5's t3 differs from frame
     * 3: skipped 4+4+4+3 = 15, rendered 4+4+0+0+0+1 = 9, 4 compares in each of frames
     * 2-5. The skipped tiles keep the colors frame N-2 left in the same buffer. */
    j = sim_stats("swapchain", "re_dbl", "--set re.enabled=true --set re.buffering=double", 0);
    CHECKEQ(j, "re.tiles_skipped", 15);
    CHECKEQ(j, "re.tiles_rendered", 9);
    CHECKEQ(j, "re.tiles_equal_inputs", 15);
    CHECKEQ(j, "re.compares", 16);
    CHECKEQ(j, "re.tiles_equal_colors_diff_inputs", 0);
    CHECKEQ(j, "re.false_positives", 0);
    CHECKEQ(j, "re.frames_enabled", SWAPCHAIN_FRAMES);
    CHECKEQ(j, "re.frames_no_reference", 2);
    CHECKEQ(j, "tiles.rendered", 9);
    free(j);
    swapchain_pixels("out_re_dbl");
    frames_identical("out_re_dbl", "out_base", SWAPCHAIN_FRAMES);
    /* single: frame N-1 wrote the other buffer, so it is no reference (its colors are
     * not in this frame's buffer): nothing compared, nothing skipped, not even t0, whose
     * inputs differ from frame N-1's only in the target; t1 (different colors in frame
     * N-1) could never be skipped. */
    j = sim_stats("swapchain", "re_single", "--set re.enabled=true --set re.buffering=single", 0);
    CHECKEQ(j, "re.tiles_skipped", 0);
    CHECKEQ(j, "re.tiles_rendered", 4 * SWAPCHAIN_FRAMES);
    CHECKEQ(j, "re.compares", 0);
    CHECKEQ(j, "re.false_positives", 0);
    CHECKEQ(j, "re.frames_no_reference", SWAPCHAIN_FRAMES);
    free(j);
    swapchain_pixels("out_re_single");
    frames_identical("out_re_single", "out_base", SWAPCHAIN_FRAMES);
}

static void test_te_double(void)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/swapchain", g_dir);
    gen_swapchain(p);
    /* double: 24 flushes; frames 2-4 equal frame N-2 in all 4 tiles, frame 5 in t0-t2:
     * 15 eliminated, 15 x 4096 B saved, 9 x 64 lines flushed. */
    char *j = sim_stats("swapchain", "te_dbl", "--set te.enabled=true --set te.buffering=double", 0);
    CHECKEQ(j, "te.flushes", 4 * SWAPCHAIN_FRAMES);
    CHECKEQ(j, "te.flushes_eliminated", 15);
    CHECKEQ(j, "te.bytes_saved", 15 * 4096);
    CHECKEQ(j, "te.false_positives", 0);
    CHECKEQ(j, "tiles.flush_lines", 9 * 64);
    free(j);
    swapchain_pixels("out_te_dbl");
    /* single: frame N-1 wrote the other buffer: no reference, every flush written */
    j = sim_stats("swapchain", "te_single", "--set te.enabled=true --set te.buffering=single", 0);
    CHECKEQ(j, "te.flushes", 4 * SWAPCHAIN_FRAMES);
    CHECKEQ(j, "te.flushes_eliminated", 0);
    CHECKEQ(j, "te.false_positives", 0);
    CHECKEQ(j, "tiles.flush_lines", 4 * SWAPCHAIN_FRAMES * 64);
    free(j);
    swapchain_pixels("out_te_single");
    /* RE and TE double together: TE sees only the 9 rendered tiles (frames 0-1 without
     * reference, frame 5's changed t3): none eliminated */
    j = sim_stats("swapchain", "rete_dbl",
                  "--set re.enabled=true --set re.buffering=double --set te.enabled=true --set te.buffering=double", 0);
    CHECKEQ(j, "re.tiles_skipped", 15);
    CHECKEQ(j, "te.flushes", 9);
    CHECKEQ(j, "te.flushes_eliminated", 0);
    CHECKEQ(j, "tiles.flush_lines", 9 * 64);
    free(j);
    swapchain_pixels("out_rete_dbl");
}

/* The multipass frames' expected pixels: t0 = T's color (red, or in sample_changing
 * green in odd frames), the blue square at (32,32) in even frames, (48,48) in odd ones
 * (none in sample_changing), black elsewhere. A pass skipped or a flush dropped against
 * a reference memory no longer holds keeps another frame's colors and fails here. */
static void multipass_pixels(const char *out, int variant)
{
    char p[1200];
    tbr_image im;
    snprintf(p, sizeof p, "%s/%s", g_dir, out);
    for (unsigned f = 0; f < MULTIPASS_FRAMES; f++) {
        if (read_png(p, f, &im)) continue;
        int green = variant == MP_SAMPLE_CHANGING && (f & 1), square = variant != MP_SAMPLE_CHANGING;
        pixel_is(&im, 5, 5, green ? 0 : 255, green ? 255 : 0, 0, 255);
        pixel_is(&im, 40, 10, 0, 0, 0, 255);
        pixel_is(&im, 10, 40, 0, 0, 0, 255);
        pixel_is(&im, 34, 34, 0, 0, square && !(f & 1) ? 255 : 0, 255);
        pixel_is(&im, 50, 50, 0, 0, square && (f & 1) ? 255 : 0, 255);
        tbr_image_free(&im);
    }
}

static void test_re_multipass(void)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/mp_static", g_dir);
    gen_multipass(p, MP_STATIC);
    char *j = sim_stats("mp_static", "base", "", 0);
    free(j);
    multipass_pixels("out_base", MP_STATIC);
    /* frame 0: no reference, 2 x 4 tiles rendered. Frames 1-3: pass 0 (off-screen T)
     * equals frame N-1's pass 0 in all 4 tiles: skipped, so T is not written; pass 1's
     * reference is frame N-1's pass 1, T unwritten since it sampled T: t0-t2 skipped,
     * t3 (the moving square) rendered. Skipped 3 x (4 + 3) = 21 (12 off-screen, 9
     * on-screen), rendered 8 + 3 = 11. */
    j = sim_stats("mp_static", "re", "--set re.enabled=true", 0);
    CHECKEQ(j, "re.tiles_skipped", 21);
    CHECKEQ(j, "re.tiles_skipped_offscreen", 12);
    CHECKEQ(j, "re.tiles_skipped_onscreen", 9);
    CHECKEQ(j, "re.tiles_rendered", 11);
    CHECKEQ(j, "re.tiles_equal_inputs", 21);
    CHECKEQ(j, "re.false_positives", 0);
    CHECKEQ(j, "re.frames_multipass", MULTIPASS_FRAMES);
    CHECKEQ(j, "re.frames_enabled", MULTIPASS_FRAMES);
    CHECKEQ(j, "re.frames_no_reference", 1);
    CHECKEQ(j, "re.passes_signed", 2 * MULTIPASS_FRAMES);
    CHECKEQ(j, "re.passes_compared", 6);
    CHECKEQ(j, "re.passes_no_reference", 2);
    CHECKEQ(j, "re.passes_disabled_target_rewritten", 0);
    CHECKEQ(j, "re.passes_disabled_samples_rendered", 0);
    CHECKEQ(j, "tiles.rendered", 11);
    free(j);
    multipass_pixels("out_re", MP_STATIC);
    frames_identical("out_re", "out_base", MULTIPASS_FRAMES);
    /* TE: the same tiles have equal colors in frames 1-3: 21 of 32 flushes dropped */
    j = sim_stats("mp_static", "te", "--set te.enabled=true", 0);
    CHECKEQ(j, "te.flushes", 2 * 4 * MULTIPASS_FRAMES);
    CHECKEQ(j, "te.flushes_eliminated", 21);
    CHECKEQ(j, "te.false_positives", 0);
    CHECKEQ(j, "te.passes_compared", 6);
    free(j);
    multipass_pixels("out_te", MP_STATIC);
    frames_identical("out_te", "out_base", MULTIPASS_FRAMES);
}

/* Cases where a weaker rule renders a wrong frame. */
static void test_re_multipass_unsound(void)
{
    char p[1200];
    /* sample_changing: pass 0 rewrites T's t0 every frame (t1-t3 skipped: 9, T written);
     * pass 1 samples T with the same DRAW and PRIM every frame: equal signatures, but T
     * changed since frame N-1's pass 1 sampled it, so pass 1 is not compared (3 passes).
     * Comparing it would skip t0 and keep frame N-1's color (red in frame 1). */
    snprintf(p, sizeof p, "%s/mp_sample", g_dir);
    gen_multipass(p, MP_SAMPLE_CHANGING);
    char *j = sim_stats("mp_sample", "base", "", 0);
    free(j);
    multipass_pixels("out_base", MP_SAMPLE_CHANGING);
    j = sim_stats("mp_sample", "re", "--set re.enabled=true", 0);
    CHECKEQ(j, "re.tiles_skipped", 9);
    CHECKEQ(j, "re.tiles_skipped_offscreen", 9);
    CHECKEQ(j, "re.passes_disabled_samples_rendered", 3);
    CHECKEQ(j, "re.passes_compared", 3);
    CHECKEQ(j, "re.false_positives", 0);
    free(j);
    multipass_pixels("out_re", MP_SAMPLE_CHANGING);
    frames_identical("out_re", "out_base", MULTIPASS_FRAMES);
    /* two_passes: the window is written by both passes of every frame, so neither pass's
     * reference is what memory holds (frame N-1's pass 1 wrote after its pass 0; this
     * frame's pass 0 wrote before its pass 1): 6 passes not compared, nothing skipped.
     * Skipping pass 0's tiles (equal inputs every frame) would keep frame N-1's square,
     * which pass 1 then loads: (32,32) still blue in frame 1. */
    snprintf(p, sizeof p, "%s/mp_two", g_dir);
    gen_multipass(p, MP_TWO_PASSES);
    j = sim_stats("mp_two", "base", "", 0);
    free(j);
    multipass_pixels("out_base", MP_TWO_PASSES);
    j = sim_stats("mp_two", "re", "--set re.enabled=true", 0);
    CHECKEQ(j, "re.tiles_skipped", 0);
    CHECKEQ(j, "re.passes_disabled_target_rewritten", 6);
    CHECKEQ(j, "re.passes_no_reference", 2);
    CHECKEQ(j, "re.false_positives", 0);
    free(j);
    multipass_pixels("out_re", MP_TWO_PASSES);
    frames_identical("out_re", "out_base", MULTIPASS_FRAMES);
    /* TE likewise: pass 0's black t3 equals frame N-1's pass 0, but memory holds pass 1's
     * square there; dropping that flush would keep it */
    j = sim_stats("mp_two", "te", "--set te.enabled=true", 0);
    CHECKEQ(j, "te.flushes_eliminated", 0);
    CHECKEQ(j, "te.passes_disabled_target_rewritten", 6);
    CHECKEQ(j, "te.false_positives", 0);
    free(j);
    multipass_pixels("out_te", MP_TWO_PASSES);
    frames_identical("out_te", "out_base", MULTIPASS_FRAMES);
}

static void test_ptr(void)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/fill", g_dir);
    gen_fill(p, 64, 2);
    char *j1 = sim_stats("fill", "ru1", "", 0);
    long long c1 = sim_stat_value(j1, "cycles.raster");
    const char *pol[] = {"static", "fastest", "mixed"};
    for (int n = 2; n <= 4; n += 2)
        for (int k = 0; k < 3; k++) {
            char name[64], extra[200], a[1300], pc[1300];
            snprintf(name, sizeof name, "ru%d_%s", n, pol[k]);
            snprintf(extra, sizeof extra, "--set tile.raster_units=%d --set tile.ru_assignment=%s", n, pol[k]);
            char *j = sim_stats("fill", name, extra, 0);
            long long c = sim_stat_value(j, "cycles.raster");
            snprintf(a, sizeof a, "%s/out_ru1/frames/frame_00000.png", g_dir);
            snprintf(pc, sizeof pc, "%s/out_%s/frames/frame_00000.png", g_dir, name);
            CHECK(same_file(a, pc)); /* bit-exact with 1 Raster Unit */
            /* 4 tiles of equal work: each of n units gets 4/n tiles */
            CHECKEQ(j, "ru0.tiles", 4 / n);
            CHECKEQ(j, "ru1.tiles", 4 / n);
            CHECKEQ(j, "ptr.tile_imbalance", 0);
            double sp = (double)c1 / (double)c;
            printf("%d RUs %s: raster cycles %lld vs %lld: speedup %.3f\n", n, pol[k], c, c1, sp);
            CHECK(sp > (n == 2 ? 1.9 : 3.6) && sp < n + 0.01);
            free(j);
        }
    free(j1);
}

/* DFSL on 5 equal frames of the fill scene (4 tiles of equal work), 2 Raster Units,
 * candidates 1..2, run phase of 2 frames. N = 1 deals the tiles 0 1 0 1 (each unit 2);
 * N = 2 is one work tile: all 4 on unit 0, about twice the raster cycles. So: frame 0
 * evaluates N = 1, frame 1 N = 2, frames 2-3 run with N = 1 (the faster), frame 4
 * evaluates N = 1 again: sizes 1+2+1+1+1 = 6, 4 frames with N = 1, 1 with N = 2, 3
 * evaluation and 2 run-phase frames; the N = 2 frame's busiest unit works 2x the mean
 * (one unit idle). Every frame equals the run without DFSL; static N = 1 is the plain
 * interleaving (same raster cycles). */
static void test_dfsl(void)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/fill5", g_dir);
    gen_fill_frames(p, 64, 2, 5);
    char *j0 = sim_stats("fill5", "plain", "--set tile.raster_units=2", 0);
    char *j1 = sim_stats("fill5", "wt1", "--set tile.raster_units=2 --set tile.work_tile=1", 0);
    char *j2 = sim_stats("fill5", "wt2", "--set tile.raster_units=2 --set tile.work_tile=2", 0);
    char *jd = sim_stats("fill5", "dfsl",
                         "--set tile.raster_units=2 --set dfsl.enabled=true --set dfsl.max_work_tile=2 "
                         "--set dfsl.run_frames=2",
                         0);
    long long c0 = sim_stat_value(j0, "cycles.raster"), c1 = sim_stat_value(j1, "cycles.raster"),
              c2 = sim_stat_value(j2, "cycles.raster");
    printf("raster cycles (5 frames): plain %lld, N=1 %lld, N=2 %lld\n", c0, c1, c2);
    CHECK(c1 == c0);
    CHECK(c2 > c1 * 18 / 10 && c2 < c1 * 21 / 10);
    CHECKEQ(jd, "dfsl.work_tile", 6);
    CHECKEQ(jd, "dfsl.wt1.frames", 4);
    CHECKEQ(jd, "dfsl.wt2.frames", 1);
    CHECKEQ(jd, "dfsl.evaluation_frames", 3);
    CHECKEQ(jd, "dfsl.run_phase_frames", 2);
    CHECKEQ(jd, "ru0.tiles", 4 * 2 + 4);
    CHECKEQ(jd, "ru1.tiles", 4 * 2);
    long long w1 = sim_stat_value(jd, "dfsl.wt1.raster_cycles"), w2 = sim_stat_value(jd, "dfsl.wt2.raster_cycles");
    CHECK(w2 > w1 / 4 * 18 / 10);
    CHECK(sim_stat_value(jd, "cycles.raster") == w1 + w2);
    long long bmax = sim_stat_value(j2, "dfsl.ru_busy_max_cycles"),
              bmean = sim_stat_value(j2, "dfsl.ru_busy_mean_cycles");
    CHECK(bmax >= 2 * bmean - 5 && bmax <= 2 * bmean + 5);
    for (unsigned f = 0; f < 5; f++) {
        char a[1300], b[1300];
        snprintf(a, sizeof a, "%s/out_plain/frames/frame_%05u.png", g_dir, f);
        snprintf(b, sizeof b, "%s/out_dfsl/frames/frame_%05u.png", g_dir, f);
        CHECK(same_file(a, b));
    }
    free(j0), free(j1), free(j2), free(jd);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_techniques TBR_SIM WORKDIR\n");
        return 2;
    }
    g_sim = argv[1];
    snprintf(g_dir, sizeof g_dir, "%s", argv[2]);
    mkdir(g_dir, 0777);
    const char *t = getenv("TBR_TECH_TEST");
    if (!t) t = "";
    /* One function per test, named by TBR_TECH_TEST. */
    static const struct {
        const char *name;
        void (*run)(void);
    } tests[] = {{"crc", test_crc},
                 {"re_casual", test_re_casual},
                 {"re_swap", test_re_swap},
                 {"re_upload", test_re_upload},
                 {"te_static", test_te_static},
                 {"re_double", test_re_double},
                 {"te_double", test_te_double},
                 {"re_multipass", test_re_multipass},
                 {"re_multipass_unsound", test_re_multipass_unsound},
                 {"ptr", test_ptr},
                 {"dfsl", test_dfsl}};
    size_t k = 0;
    while (k < sizeof tests / sizeof tests[0] && strcmp(t, tests[k].name)) k++;
    if (k < sizeof tests / sizeof tests[0]) {
        tests[k].run();
    } else {
        fprintf(stderr, "unknown TBR_TECH_TEST '%s'\n", t);
        return 2;
    }
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
