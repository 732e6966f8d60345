/* Geometry/raster overlap across render passes (overlap.enabled; gpu.c, docs/timing-model.md
 * "Overlapping render passes") on synthetic two-pass traces, each run with overlap off and on,
 * and across frames (overlap.across_frames) on two-frame traces, each run with it off and on.
 * usage: test_overlap TBR_SIM_BINARY WORKDIR
 *        (TBR_SIM_TEST = overlap_two_pass | overlap_rtt | overlap_two_frame | overlap_frame_rtt)
 * Scene (32x32 B8G8R8A8 window = one 32x32 tile, 256 quads): pass 0 clears an offscreen
 * target T (resource 3) and draws one full-screen triangle pair into it; pass 1 clears the
 * window and draws the same into it. Each pass: one draw of 6 vertices, its geometry phase
 * dominated by the Command Processor (--set cp.cycles_per_draw=CP), its raster phase by the
 * fragment shader (FS_INSTR instructions x 256 quads over 4 Fragment Processors at one
 * instruction per cycle). The two passes are the same work, so by hand, with G and R the
 * geometry and raster time of one pass:
 *   one pass at a time:   G + R + G + R
 *   overlapped:           G + max(R, G) + R   (pass 1's geometry under pass 0's raster)
 *   two_pass: G >= CP, R >= 256 * FS_INSTR / 4; the measured totals must follow both
 *             formulas, with G and R taken from the sequential run's phase counters.
 *   rtt:      pass 1 samples T. From the fragment shader only: the raster rule (pass 1's
 *             raster after pass 0's last flush) holds, the geometry still overlaps. From
 *             the vertex shader too: pass 1's geometry waits for pass 0's flush, nothing
 *             overlaps, the total equals the sequential one. Frames identical every way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim_output.h"
#include "synth_trace.h"
#include "tbr/png_io.h"

#include "check.h"

#define BGRA     "PIPE_FORMAT_B8G8R8A8_UNORM"
#define CP       3000 /* cp.cycles_per_draw of the runs */
#define FS_INSTR 64
static const float RED[4] = {1, 0, 0, 1}, GREEN[4] = {0, 1, 0, 1};
static const char *g_sim;

enum { SAMPLE_NONE, SAMPLE_FS, SAMPLE_VS };

/* One pass: clear resource RES, draw SEQ full screen in color C (and EXTRA tiny
 * triangles that cover no pixel center: Parameter Buffer bytes, no fragments). */
static void pass(uint32_t seq, uint32_t res, const float c[4], int sample, int extra)
{
    synth_render_pass_default = res == 1;
    synth_render_pass(seq, 32, 32, res, 0);
    synth_clear(4, 0, 0, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, res);
    synth_draw_texture = sample != SAMPLE_NONE ? 3 : 0;
    synth_draw_vs_textures = sample == SAMPLE_VS;
    synth_draw(seq, 0, 0, 2);
    synth_draw_texture = synth_draw_vs_textures = 0;
    synth_prim(seq, 0, 0, 0, 32, 32);
    for (int i = 0; i < extra; i++) synth_prim(seq, (uint32_t)i + 1, 0.1f, 0.1f, 0.2f, 0.2f);
    synth_tile(TBR_REC_TILE_LOAD_CLEAR, 0, res);
    synth_quads(seq, 0, 0, 32, 32, c, 0, 0, 0);
    synth_tile(TBR_REC_TILE_STORE, 0, res);
}

/* Frame 0's resources and shaders, in each frame (a frame's RESOURCE records are its own). */
static void frame_setup(void)
{
    synth_resource(1, BGRA, 32, 32, 4, 1);
    synth_resource(3, BGRA, 32, 32, 4, 0);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, FS_INSTR);
    synth_prim_color = NULL;
}

/* Two frames. two_frame (sample < 0): each frame one pass on the window (frame 0 green,
 * frame 1 red). frame_rtt: frame 0 draws the window green, then renders T; frame 1 draws
 * the window red sampling T (SAMPLE_FS / SAMPLE_VS): it reads what frame 0's last pass
 * wrote. */
static void gen_two_frame(const char *dir, int sample)
{
    synth_trace_open(dir, "test_overlap");
    synth_begin_frame(0);
    frame_setup();
    pass(0, 1, GREEN, SAMPLE_NONE, 0);
    if (sample >= 0) pass(1, 3, GREEN, SAMPLE_NONE, 0);
    synth_frame_end(0, 32, 32);
    synth_end_frame();
    synth_begin_frame(1);
    frame_setup();
    pass(2, 1, RED, sample >= 0 ? sample : SAMPLE_NONE, 0);
    synth_frame_end(1, 32, 32);
    synth_end_frame();
    synth_trace_close();
}

static void gen_two_pass(const char *dir, int sample, int extra)
{
    synth_trace_open(dir, "test_overlap");
    synth_begin_frame(0);
    synth_resource(1, BGRA, 32, 32, 4, 1);
    synth_resource(3, BGRA, 32, 32, 4, 0);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, FS_INSTR);
    synth_prim_color = NULL;
    pass(0, 3, GREEN, SAMPLE_NONE, 0);
    pass(1, 1, RED, sample, extra);
    synth_frame_end(0, 32, 32);
    synth_end_frame();
    synth_trace_close();
}

typedef struct {
    long long total, geom, raster, both, dep_wait, dep_passes, violations, pb_stall;
    long long both_frames, frame_dep_passes, frame_cycles[2]; /* across frames */
} run_figures;

/* The "cycles" of frame N in stats.json's "frames" array, -1 if absent. */
static long long frame_cycles(const char *json, unsigned n)
{
    char key[64];
    snprintf(key, sizeof key, "{\"frame\": %u, \"cycles\": ", n);
    const char *p = strstr(json, key);
    return p ? atoll(p + strlen(key)) : -1;
}

/* Runs tbr-sim with cp.cycles_per_draw=CP, overlap.enabled=OVERLAP and MORE (NULL: none);
 * 0 and its figures. */
static int run(const char *in, const char *out, int overlap, const char *more, run_figures *r)
{
    char extra[512], path[1024];
    snprintf(extra, sizeof extra, "--set cp.cycles_per_draw=%d --set overlap.enabled=%s %s", CP,
             overlap ? "true" : "false", more ? more : "");
    if (sim_run(g_sim, in, out, extra) != 0) return -1;
    snprintf(path, sizeof path, "%s/stats.json", out);
    char *j = sim_slurp(path);
    if (!j) return -1;
    r->total = sim_stat_value(j, "cycles.total");
    r->geom = sim_stat_value(j, "cycles.geometry") + sim_stat_value(j, "cycles.tiling");
    r->raster = sim_stat_value(j, "cycles.raster");
    r->both = sim_stat_value(j, "cycles.overlap_both_busy");
    r->dep_wait = sim_stat_value(j, "cycles.overlap_dependency_wait");
    r->dep_passes = sim_stat_value(j, "overlap.dependent_passes");
    r->violations = sim_stat_value(j, "overlap.dependency_violations");
    r->pb_stall = sim_stat_value(j, "cycles.overlap_pb_stall");
    r->both_frames = sim_stat_value(j, "cycles.overlap_across_frames");
    r->frame_dep_passes = sim_stat_value(j, "overlap.frame_dependent_passes");
    r->frame_cycles[0] = frame_cycles(j, 0);
    r->frame_cycles[1] = frame_cycles(j, 1);
    long long total_cycles = -1;
    const char *t = strstr(j, "\"total_cycles\": ");
    if (t) total_cycles = atoll(t + strlen("\"total_cycles\": "));
    CHECK(total_cycles == r->total); /* the clock at the end = the counted cycles */
    free(j);
    return 0;
}

/* Frame N of two runs is the same picture, red at pixel (0,0) unless green. */
static void same_frame(const char *a, const char *b, unsigned n, int green)
{
    tbr_image ia, ib;
    if (sim_read_frame_png(a, n, &ia)) {
        failures++;
        return;
    }
    if (sim_read_frame_png(b, n, &ib)) {
        failures++;
        tbr_image_free(&ia);
        return;
    }
    CHECK(ia.width == ib.width && ia.height == ib.height && ia.stride == ib.stride &&
          memcmp(ia.pixels, ib.pixels, (size_t)ia.height * ia.stride) == 0);
    CHECK(sim_pixel_mismatch(&ib, 0, 0, green ? 0 : 255, green ? 255 : 0, 0, 255) == 0);
    CHECK(sim_pixel_mismatch(&ib, 31, 31, green ? 0 : 255, green ? 255 : 0, 0, 255) == 0);
    tbr_image_free(&ia);
    tbr_image_free(&ib);
}

/* The frame PNGs of two one-frame runs are the same picture; pixel (0,0) is red. */
static void same_frames(const char *a, const char *b) { same_frame(a, b, 0, 0); }

static long long max_ll(long long a, long long b) { return a > b ? a : b; }

/* |a - b| <= tol * b */
static int close_to(long long a, long long b, double tol) { return (double)llabs(a - b) <= tol * (double)b; }

static void test_two_pass(const char *work)
{
    char in[1024], off[1024], on[1024];
    snprintf(in, sizeof in, "%s/two_pass", work);
    snprintf(off, sizeof off, "%s/two_pass_off.out", work);
    snprintf(on, sizeof on, "%s/two_pass_on.out", work);
    gen_two_pass(in, SAMPLE_NONE, 0);
    run_figures s = {0}, o = {0};
    CHECK(run(in, off, 0, NULL, &s) == 0);
    CHECK(run(in, on, 1, NULL, &o) == 0);
    long long g = s.geom / 2, r = s.raster / 2; /* one pass's geometry and raster time */
    long long hand = g + max_ll(r, g) + r;
    fprintf(stderr,
            "two_pass: G %lld R %lld; sequential %lld (G+R+G+R %lld); overlapped %lld (G+max(R,G)+R %lld), "
            "both busy %lld\n",
            g, r, s.total, 2 * (g + r), o.total, hand, o.both);
    /* the hand figures' premises: G and R at least what CP and the shader take */
    CHECK(g >= CP && g < CP + 2000);
    CHECK(r >= 256 * FS_INSTR / 4 && r < 256 * FS_INSTR / 4 + 2000);
    CHECK(s.total == s.geom + s.raster);
    /* overlapped: pass 1's geometry hidden under pass 0's raster; the passes share the
     * memory system, so allow 1% */
    CHECK(close_to(o.total, hand, 0.01));
    CHECK(o.total < s.total);
    CHECK(close_to(o.both, g < r ? g : r, 0.05));
    CHECK(o.dep_passes == 0 && o.violations == 0 && o.dep_wait == 0);
    same_frames(off, on);
    /* one Parameter Buffer: pass 1's geometry waits for pass 0's raster (sequential) */
    run_figures o1 = {0};
    snprintf(on, sizeof on, "%s/two_pass_pb1.out", work);
    CHECK(run(in, on, 1, "--set overlap.pb_buffers=1", &o1) == 0);
    CHECK(o1.total == s.total && o1.both == 0 && o1.pb_stall > 0);
    same_frames(off, on);
    /* capacity: pass 1 also writes 40 triangles of 2 attributes (40 x 3 x 2 x 16 B =
     * 3,840 B) into 1 KiB buffers: it takes the second buffer, fills it, then waits for
     * pass 0's to be freed (its last flush) */
    run_figures c = {0}, u = {0};
    snprintf(in, sizeof in, "%s/two_pass_big", work);
    gen_two_pass(in, SAMPLE_NONE, 40);
    snprintf(off, sizeof off, "%s/two_pass_big_off.out", work);
    snprintf(on, sizeof on, "%s/two_pass_big_1k.out", work);
    CHECK(run(in, off, 0, NULL, &s) == 0);
    CHECK(run(in, on, 1, "--set overlap.pb_buffer_kib=1", &c) == 0);
    snprintf(on, sizeof on, "%s/two_pass_big_on.out", work);
    CHECK(run(in, on, 1, NULL, &u) == 0);
    fprintf(stderr,
            "two_pass, 40 more triangles in pass 1: sequential %lld, overlapped %lld, with 1 KiB buffers %lld "
            "(stalled %lld)\n",
            s.total, u.total, c.total, c.pb_stall);
    CHECK(u.pb_stall == 0 && c.pb_stall > 0);
    CHECK(u.total < c.total && c.total <= s.total);
    same_frames(off, on);
}

static void test_rtt(const char *work)
{
    char in[1024], off[1024], on[1024];
    run_figures s = {0}, o = {0};
    /* T sampled by pass 1's fragment shader: raster order suffices, geometry overlaps */
    snprintf(in, sizeof in, "%s/rtt_fs", work);
    snprintf(off, sizeof off, "%s/rtt_fs_off.out", work);
    snprintf(on, sizeof on, "%s/rtt_fs_on.out", work);
    gen_two_pass(in, SAMPLE_FS, 0);
    CHECK(run(in, off, 0, NULL, &s) == 0);
    CHECK(run(in, on, 1, NULL, &o) == 0);
    fprintf(stderr, "rtt (fragment shader samples T): sequential %lld, overlapped %lld, both busy %lld\n", s.total,
            o.total, o.both);
    CHECK(o.dep_passes == 1 && o.violations == 0 && o.dep_wait == 0);
    CHECK(o.both > 0 && o.total < s.total);
    same_frames(off, on);
    /* T sampled by pass 1's vertex shader: its geometry waits for pass 0's last flush */
    snprintf(in, sizeof in, "%s/rtt_vs", work);
    snprintf(off, sizeof off, "%s/rtt_vs_off.out", work);
    snprintf(on, sizeof on, "%s/rtt_vs_on.out", work);
    gen_two_pass(in, SAMPLE_VS, 0);
    CHECK(run(in, off, 0, NULL, &s) == 0);
    CHECK(run(in, on, 1, NULL, &o) == 0);
    fprintf(stderr, "rtt (vertex shader samples T): sequential %lld, overlapped %lld, dependency wait %lld\n", s.total,
            o.total, o.dep_wait);
    CHECK(o.dep_passes == 1 && o.violations == 0);
    CHECK(o.both == 0 && o.dep_wait > 0);
    CHECK(o.total == s.total); /* the sequential schedule: G0, R0, then G1, R1 */
    same_frames(off, on);
}

/* Runs tbr-sim on the two-frame trace IN with overlap on, across frames ACROSS. */
static int run_frames(const char *in, const char *out, int across, run_figures *r)
{
    return run(in, out, 1, across ? "--set overlap.across_frames=true" : "--set overlap.across_frames=false", r);
}

/* One pass per frame, geometry G and raster R by hand as in two_pass:
 *   frame by frame:  G + R + G + R
 *   across frames:   G + max(R, G) + R (frame 1's geometry under frame 0's raster);
 *   frame 0's cycles G + R, frame 1's from its first command (at G) to its last flush:
 *   max(R, G) + R; their sum exceeds the total by the overlap. */
static void test_two_frame(const char *work)
{
    char in[1024], off[1024], on[1024];
    snprintf(in, sizeof in, "%s/two_frame", work);
    snprintf(off, sizeof off, "%s/two_frame_off.out", work);
    snprintf(on, sizeof on, "%s/two_frame_on.out", work);
    gen_two_frame(in, -1);
    run_figures s = {0}, o = {0};
    CHECK(run_frames(in, off, 0, &s) == 0);
    CHECK(run_frames(in, on, 1, &o) == 0);
    long long g = s.geom / 2, r = s.raster / 2;
    long long hand = g + max_ll(r, g) + r;
    fprintf(stderr,
            "two_frame: G %lld R %lld; frame by frame %lld (G+R+G+R %lld); across frames %lld (G+max(R,G)+R %lld), "
            "both busy %lld; frame cycles %lld + %lld\n",
            g, r, s.total, 2 * (g + r), o.total, hand, o.both_frames, o.frame_cycles[0], o.frame_cycles[1]);
    CHECK(g >= CP && g < CP + 2000);
    CHECK(r >= 256 * FS_INSTR / 4 && r < 256 * FS_INSTR / 4 + 2000);
    CHECK(s.total == s.geom + s.raster && s.both == 0 && s.both_frames == -1);
    CHECK(s.frame_cycles[0] + s.frame_cycles[1] == s.total);
    CHECK(close_to(o.total, hand, 0.01));
    CHECK(o.total < s.total);
    CHECK(close_to(o.both_frames, g < r ? g : r, 0.05) && o.both == o.both_frames);
    /* frame 0's raster shares the memory system with frame 1's geometry: 2% */
    CHECK(close_to(o.frame_cycles[0], g + r, 0.02) && close_to(o.frame_cycles[1], max_ll(r, g) + r, 0.02));
    CHECK(o.frame_cycles[0] + o.frame_cycles[1] > o.total);
    CHECK(o.frame_dep_passes == 0 && o.violations == 0 && o.dep_wait == 0);
    same_frame(off, on, 0, 1);
    same_frame(off, on, 1, 0);
    /* one Parameter Buffer: frame 1's geometry waits for frame 0's last flush */
    run_figures o1 = {0};
    snprintf(on, sizeof on, "%s/two_frame_pb1.out", work);
    CHECK(run(in, on, 1, "--set overlap.pb_buffers=1", &o1) == 0);
    CHECK(o1.total == s.total && o1.both == 0 && o1.pb_stall > 0);
    same_frame(off, on, 1, 0);
}

/* Frame 1 samples T, which frame 0's last pass renders. From the fragment shader: frame
 * 1's raster follows frame 0's last flush (raster order), its geometry still overlaps.
 * From the vertex shader: frame 1's geometry waits for that flush, nothing of frame 1
 * overlaps frame 0, the total equals the frame-by-frame one. */
static void test_frame_rtt(const char *work)
{
    char in[1024], off[1024], on[1024];
    run_figures s = {0}, o = {0};
    snprintf(in, sizeof in, "%s/frame_rtt_fs", work);
    snprintf(off, sizeof off, "%s/frame_rtt_fs_off.out", work);
    snprintf(on, sizeof on, "%s/frame_rtt_fs_on.out", work);
    gen_two_frame(in, SAMPLE_FS);
    CHECK(run_frames(in, off, 0, &s) == 0);
    CHECK(run_frames(in, on, 1, &o) == 0);
    fprintf(stderr,
            "frame_rtt (fragment shader samples T): frame by frame %lld, across frames %lld, both busy %lld, "
            "dependent passes %lld\n",
            s.total, o.total, o.both_frames, o.frame_dep_passes);
    CHECK(o.frame_dep_passes == 1 && o.violations == 0 && o.dep_wait == 0);
    CHECK(o.both_frames > 0 && o.total < s.total);
    same_frame(off, on, 0, 1);
    same_frame(off, on, 1, 0);
    snprintf(in, sizeof in, "%s/frame_rtt_vs", work);
    snprintf(off, sizeof off, "%s/frame_rtt_vs_off.out", work);
    snprintf(on, sizeof on, "%s/frame_rtt_vs_on.out", work);
    gen_two_frame(in, SAMPLE_VS);
    CHECK(run_frames(in, off, 0, &s) == 0);
    CHECK(run_frames(in, on, 1, &o) == 0);
    fprintf(stderr, "frame_rtt (vertex shader samples T): frame by frame %lld, across frames %lld, wait %lld\n",
            s.total, o.total, o.dep_wait);
    CHECK(o.frame_dep_passes == 1 && o.violations == 0);
    CHECK(o.both_frames == 0 && o.dep_wait > 0);
    CHECK(o.total == s.total);
    same_frame(off, on, 0, 1);
    same_frame(off, on, 1, 0);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_overlap TBR_SIM WORKDIR\n");
        return 2;
    }
    g_sim = argv[1];
    const char *work = argv[2];
    mkdir(work, 0777);
    const char *which = getenv("TBR_SIM_TEST");
    if (!which || !strcmp(which, "overlap_two_pass")) test_two_pass(work);
    if (!which || !strcmp(which, "overlap_rtt")) test_rtt(work);
    if (!which || !strcmp(which, "overlap_two_frame")) test_two_frame(work);
    if (!which || !strcmp(which, "overlap_frame_rtt")) test_frame_rtt(work);
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
