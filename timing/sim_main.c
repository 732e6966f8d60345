/* tbr-sim: cycle-level TBR GPU timing simulator driven by a GPU activity trace.
 * Usage and behaviour: docs/timing-model.md. Exit status: 0 ok, 1 a check failed (a
 * rendered frame differs from its reference, or has no usable reference), 2 bad usage,
 * unusable input or an output that could not be written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/config.h"
#include "core/util.h"
#include "gpu.h"
#include "core/stats.h"
#include "tbr/frame_range.h"
#include "tbr/out_dir.h"
#include "tbr/out_file.h"
#include "tbr/png_io.h"
#include "tbr/records.h"

#ifndef TBR_VERSION
#define TBR_VERSION "0"
#endif

/* Units not modeled yet: printed in the summary and stats.json (never hidden). */
static const char *const k_unmodeled[] = {
    "traces without PATH/TEXELS/VERTICES records (schema minor 0 or no PATH): static instruction counts, all ALU, "
    "no texture or instruction fetch, DRAW.count vertices estimated per draw (instruction_source static)",
    "texture/render-target coherence",
    "index buffers are not named by the trace: each draw's indices have their own address window (no sharing "
    "across draws); no index fetch without VERTICES records",
    "clipping/culling cost before setup (primitives removed by the draw module are invisible)",
};

/* Added to that list for a trace recorded before INVALIDATE records (records minor < 11). */
static const char k_invalidation_unrecorded[] =
    "render-target invalidation (glInvalidateFramebuffer): not in this trace (records minor < 11, recorded before "
    "INVALIDATE records); depth.store=auto stores every written depth buffer but the window's at the swap, colors "
    "are always stored";

static void usage(FILE *o)
{
    fprintf(o, "usage: tbr-sim DIR_OR_TRACE -o OUT [--force] [--config FILE] [--set KEY=VALUE]... [--frames A-B] "
               "[--quiet] [--no-check] [--raw-alpha] [--no-skip] [--no-surface-init]\n"
               "       tbr-sim --list-params | -h | --help | --version\n"
               "  DIR_OR_TRACE  tbr-replay output directory (activity.tbrt + reference/) or an activity trace\n"
               "  -o, --output OUT  output directory: OUT/frames/frame_NNNNN.png, OUT/stats.json, OUT/tiles.json, "
               "OUT/summary.txt;\n"
               "                written as OUT.tmp-PID and renamed to OUT when complete; must not exist or be empty\n"
               "  --force       replace an existing OUT\n"
               "  --no-check    do not compare the frames with the reference PNGs (by default a frame that\n"
               "                differs, or whose reference is missing or unreadable, is a failed check)\n"
               "  --config FILE configuration file (key = value; see --list-params), repeatable\n"
               "  --set K=V     override one parameter, repeatable (applied after --config)\n"
               "  --frames A-B  simulate source frames A..B only (also A, A-)\n"
               "  -q, --quiet   no progress on stderr, no summary on stdout\n"
               "  --raw-alpha   write OUT/frames/ as RGBA PNGs with the framebuffer's alpha (default: opaque\n"
               "                RGB as the display shows them, the alpha in OUT/frames/alpha/ when not 255;\n"
               "                the check compares the framebuffer's RGBA either way)\n"
               "  --no-fast-forward  with --frames A-B, do not render the trace's frames before A\n"
               "                (by default they are rendered functionally, without timing, so that frame A\n"
               "                starts from the render-target contents they left)\n"
               "  --no-skip     tick every unit every cycle (no skipping of quiescent cycles; same results, slower)\n"
               "  --no-surface-init  ignore SURFACE_INIT records: render targets start from zeros\n"
               "                (shows what a recorded window owes to the frames before it)\n"
               "Exit status: 0 ok, 1 a frame differs from its reference or has no usable reference (a failed\n"
               "check), 2 bad usage, bad input or an output that could not be written.\n");
}

/* What the frame check found for one simulated frame. */
typedef enum {
    REF_NO_PICTURE,  /* no FRAME_END: nothing to compare */
    REF_NOT_CHECKED, /* --no-check */
    REF_BIT_EXACT,
    REF_DIFFERS,
    REF_MISSING,    /* no reference named, or the file does not exist: a failed check */
    REF_UNREADABLE, /* the file cannot be read or is not a PNG: a failed check */
} ref_result;

static const char *const k_ref_result_name[] = {"no_picture", "not_checked", "bit_exact",
                                                "differs",    "missing",     "unreadable"};

typedef struct {
    uint64_t frame, cycles;
    uint64_t end_cycle; /* its last tile flush, counted from the run's start: with frames
                         * overlapping, end_cycle minus the previous frame's is the frame's
                         * share of total_cycles (tbr-sweep sums those for shards) */
    ref_result ref;
    uint64_t diff_pixels;
    unsigned max_diff;
} frame_out;

/* The frame counts of a run (stats.json, summary.txt, the result line). */
typedef struct {
    uint64_t checked, bit_exact, differing, no_reference;
} check_counts;

/* The frame loop's state: its inputs, the frame and the RE scan, and what it leaves for
 * the outputs (per-frame results, the open tiles.json). */
typedef struct {
    tbr_trace_reader *r;
    const char *trace_path, *ref_dir, *out;
    uint64_t fa, fb; /* --frames */
    int quiet, no_fast_forward, no_check, raw_alpha;
    int invalidation_unrecorded; /* records minor < 11: no INVALIDATE records */
    tbr_config *cfg;
    tbr_stats *st;
    gpu *g;
    /* the frame simulated (fr[cur]) and, with overlap.across_frames, the next one, loaded
     * when the GPU asks for it (load_ahead) */
    sim_frame fr[2];
    unsigned cur;
    int ahead;        /* fr[cur ^ 1] holds frame ahead_number, whose geometry may have begun */
    int ahead_failed; /* loading it failed (message printed) */
    int trace_ended;  /* the reader returned no further frame */
    uint64_t ahead_number;
    const sim_record_observer *re_obs; /* the RE (or TE: uploads only) scan, NULL when both are off */
    su_scan scan;
    su_frame_data sfd;
    frame_out *fo;
    size_t nfo;
    tbr_out_file tiles; /* tiles.json, through a temp file (tiles.f NULL until the first picture) */
    uint32_t tiles_w, tiles_h, tiles_cols, tiles_rows;
    size_t tiles_n;
    struct timespec t0;
} sim_run;

/* Compares the frame's pixels with its reference frame (FRAME_END names it, relative to the
 * replay directory). A missing or unreadable reference is a failed check, said on stderr
 * like a differing frame: "3/3 checked" must never hide frames that were not. */
static void check_reference(const sim_run *run, frame_out *o, const uint8_t *px, uint32_t w, uint32_t h)
{
    char ref[4600], perr[TBR_PNG_ERR_SIZE];
    if (run->no_check) {
        o->ref = REF_NOT_CHECKED;
        return;
    }
    if (!run->fr[run->cur].end.png[0]) {
        o->ref = REF_MISSING;
        fprintf(stderr,
                "tbr-sim: frame %llu: the trace names no reference PNG: not checked (a failed check; "
                "--no-check if intended)\n",
                (unsigned long long)o->frame);
        return;
    }
    snprintf(ref, sizeof ref, "%s/%s", run->ref_dir, run->fr[run->cur].end.png);
    tbr_image ri;
    if (tbr_png_read_frame(ref, &ri, perr, sizeof perr) != 0) {
        struct stat sb;
        o->ref = stat(ref, &sb) != 0 && errno == ENOENT ? REF_MISSING : REF_UNREADABLE;
        fprintf(stderr, "tbr-sim: frame %llu: reference %s: %s: not checked (a failed check)\n",
                (unsigned long long)o->frame, o->ref == REF_MISSING ? "missing" : "unreadable", perr);
        return;
    }
    if (ri.width != w || ri.height != h) {
        o->diff_pixels = (uint64_t)w * h;
        o->max_diff = 255;
    } else {
        for (uint32_t y = 0; y < h; y++) {
            if (!memcmp(px + (size_t)y * w * 4, ri.pixels + y * ri.stride, (size_t)w * 4)) continue; /* equal row */
            for (uint32_t x = 0; x < w; x++) {
                const uint8_t *a = px + ((size_t)y * w + x) * 4, *b = ri.pixels + y * ri.stride + (size_t)x * 4;
                int d = 0;
                for (int k = 0; k < 4; k++) {
                    int dk = abs((int)a[k] - (int)b[k]);
                    if (dk > d) d = dk;
                }
                if (d) {
                    o->diff_pixels++;
                    if ((unsigned)d > o->max_diff) o->max_diff = (unsigned)d;
                }
            }
        }
    }
    o->ref = o->diff_pixels == 0 ? REF_BIT_EXACT : REF_DIFFERS;
    if (o->ref == REF_DIFFERS)
        fprintf(stderr,
                "tbr-sim: frame %llu DIFFERS from its reference %s: %llu pixel(s), max channel difference %u%s\n",
                (unsigned long long)o->frame, ref, (unsigned long long)o->diff_pixels, o->max_diff,
                ri.width != w || ri.height != h ? " (the sizes differ)" : "");
    tbr_image_free(&ri);
}

/* A frame with FRAME_END: its PNG, its per-tile data and the reference check. 0, or -1
 * (message printed). */
static int frame_picture(sim_run *run, frame_out *o, uint64_t number)
{
    char err[4096], path[4600], perr[TBR_PNG_ERR_SIZE];
    uint8_t *px;
    uint32_t w, h;
    if (sim_func_frame_rgba8(run->g->env.fn, &run->fr[run->cur], &px, &w, &h, err, sizeof err)) {
        fprintf(stderr, "tbr-sim: %s: %s\n", run->trace_path, err);
        return -1;
    }
    snprintf(path, sizeof path, "%s/frames/frame_%05llu.png", run->out, (unsigned long long)number);
    if (tbr_png_write_frame(path, px, w, h, (size_t)w * 4, run->raw_alpha, perr, sizeof perr)) {
        fprintf(stderr, "tbr-sim: %s\n", perr);
        free(px);
        return -1;
    }
    /* Per-tile data (OUT/tiles.json, docs/timing-model.md "Per-tile data"): the grid of
     * the first frame with a PNG, written frame by frame through a temp file. */
    if (!run->tiles.f) {
        run->tiles_w = (uint32_t)tbr_cfg_uint(run->cfg, "tile.width");
        run->tiles_h = (uint32_t)tbr_cfg_uint(run->cfg, "tile.height");
        run->tiles_cols = (w + run->tiles_w - 1) / run->tiles_w;
        run->tiles_rows = (h + run->tiles_h - 1) / run->tiles_h;
        snprintf(path, sizeof path, "%s/tiles.json", run->out);
        if (tbr_out_file_open(&run->tiles, path, err, sizeof err)) {
            fprintf(stderr, "tbr-sim: %s\n", err);
            free(px);
            return -1;
        }
        fprintf(run->tiles.f,
                "{\"tiles\": {\n \"tile_width\": %u, \"tile_height\": %u, \"cols\": %u, \"rows\": %u,\n"
                " \"fragments_are\": \"4 x shaded quads\",\n \"frames\": [",
                run->tiles_w, run->tiles_h, run->tiles_cols, run->tiles_rows);
    }
    if (run->tiles_n++) fputc(',', run->tiles.f);
    gpu_tiles_write_frame(run->g, run->tiles.f, number, run->tiles_cols, run->tiles_rows);
    check_reference(run, o, px, w, h);
    free(px);
    return 0;
}

/* Loads a frame to simulate, each record decoded once: the front end and, with RE on, the
 * Signature Unit's scan in the same pass. 0, or -1 (message printed). */
static int load_frame(sim_run *run, unsigned slot, uint64_t number)
{
    char err[4096];
    if (run->re_obs) su_scan_begin(&run->scan, &run->sfd);
    int lrc = sim_frame_load(&run->fr[slot], run->r, number, run->re_obs, err, sizeof err);
    if (lrc) {
        if (lrc == SIM_LOAD_OBSERVER_FAILED) /* the RE scan's error */
            fprintf(stderr, "tbr-sim: %s: %s\n", run->trace_path, err);
        else
            fprintf(stderr, "tbr-sim: %s\n", err);
        return -1;
    }
    run->g->sufd = NULL;
    if (run->re_obs) {
        su_scan_end(&run->scan);
        run->sfd.valid = run->sfd.nprims == run->fr[slot].nprims && run->sfd.ndraws == run->fr[slot].ndraws;
        run->g->sufd = &run->sfd;
    }
    return 0;
}

/* Simulates one loaded frame and writes its outputs. 0, or -1 (message printed). */
static int simulate_frame(sim_run *run, uint64_t number)
{
    char err[4096];
    gpu *g = run->g;
    gpu_tiles_frame_begin(g);
    if (gpu_run_frame(g, &run->fr[run->cur], err, sizeof err)) {
        fprintf(stderr, "tbr-sim: %s: %s\n", run->trace_path, err);
        return -1;
    }
    tbr_stat_inc(g->frames);
    gpu_dirty_lines_frame_end(g);
    char label[32];
    snprintf(label, sizeof label, "frame %llu", (unsigned long long)number);
    tbr_stats_snapshot(run->st, label);
    gpu_energy_frame_end(g, label);
    run->fo = tbr_xrealloc(run->fo, (run->nfo + 1) * sizeof *run->fo);
    frame_out *o = &run->fo[run->nfo++];
    memset(o, 0, sizeof *o);
    o->frame = number;
    o->ref = REF_NO_PICTURE;
    o->cycles = g->env.now - g->frame_first_cycle; /* from its first command */
    o->end_cycle = g->env.now;
    if (run->fr[run->cur].has_end && frame_picture(run, o, number)) return -1;
    if (!run->quiet) {
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double s = (double)(t1.tv_sec - run->t0.tv_sec) + (double)(t1.tv_nsec - run->t0.tv_nsec) * 1e-9;
        fprintf(stderr, "tbr-sim: frame %llu: %llu cycles, %zu passes, %zu quads%s; %.0f cycles/s\n",
                (unsigned long long)number, (unsigned long long)o->cycles, run->fr[run->cur].npasses,
                run->fr[run->cur].nquads,
                o->ref == REF_BIT_EXACT                             ? ", matches reference"
                : o->ref == REF_DIFFERS                             ? ", DIFFERS from reference"
                : o->ref == REF_MISSING || o->ref == REF_UNREADABLE ? ", NO usable reference"
                                                                    : "",
                s > 0 ? (double)g->env.now / s : 0.0);
    }
    return 0;
}

/* The GPU asks for the frame after fr[cur] (overlap.across_frames, gpu_set_frame_source):
 * the trace's next frame if it is in the --frames window, into the other sim_frame. Frames
 * are read in trace order, and the GPU asks only once fr[cur] is rendered functionally. */
static const sim_frame *load_ahead(void *ctx)
{
    sim_run *run = ctx;
    tbr_trace_frame_info fi;
    int rc = tbr_trace_reader_next_frame(run->r, &fi);
    if (rc <= 0) {
        run->trace_ended = 1;
        if (rc < 0) {
            fprintf(stderr, "tbr-sim: %s\n", tbr_trace_reader_error(run->r));
            run->ahead_failed = 1;
        }
        return NULL;
    }
    if (fi.number > run->fb || fi.number < run->fa) return NULL; /* the frame loop skips what follows */
    unsigned next = run->cur ^ 1;
    sim_frame_carry_over(&run->fr[next], &run->fr[run->cur]);
    if (load_frame(run, next, fi.number)) {
        run->ahead_failed = 1;
        return NULL;
    }
    run->ahead = 1;
    run->ahead_number = fi.number;
    return &run->fr[next];
}

/* Simulates the loaded frame `number` and every frame loaded ahead after it. 0, or -1
 * (message printed). */
static int simulate_frames_from(sim_run *run, uint64_t number)
{
    for (;;) {
        run->ahead = 0;
        if (simulate_frame(run, number) || run->ahead_failed) return -1;
        if (!run->ahead) return 0;
        run->cur ^= 1;
        number = run->ahead_number;
    }
}

/* The frame loop: frames before --frames A fast-forwarded (functional only), A..B
 * simulated. Returns 0, or 2 (message printed). */
static int run_frames(sim_run *run)
{
    char err[4096];
    tbr_trace_frame_info fi;
    int rc = 0;
    while (!run->trace_ended && (rc = tbr_trace_reader_next_frame(run->r, &fi)) > 0) {
        if (fi.number > run->fb) continue;
        if (fi.number < run->fa) {
            /* Fast-forward (docs/timing-model.md "Frames"): the frame's functional effect on the
             * render targets, no timing, statistics or output. */
            if (run->no_fast_forward) continue;
            if (!run->quiet)
                fprintf(stderr, "tbr-sim: frame %llu: fast-forward (functional only)\n", (unsigned long long)fi.number);
            if (sim_frame_load(&run->fr[run->cur], run->r, fi.number, NULL, err, sizeof err) ||
                gpu_fast_forward_frame(run->g, &run->fr[run->cur], err, sizeof err)) {
                fprintf(stderr, "tbr-sim: %s: %s\n", run->trace_path, err);
                return 2;
            }
            continue;
        }
        if (load_frame(run, run->cur, fi.number) || simulate_frames_from(run, fi.number)) return 2;
    }
    gpu_dirty_lines_run_end(run->g); /* what the run leaves in the L2 for the DRAM */
    if (rc < 0) {
        fprintf(stderr, "tbr-sim: %s\n", tbr_trace_reader_error(run->r));
        return 2;
    }
    return 0;
}

/* tbr-sim's command line. */
#define TBR_SIM_MAX_CONFIGS 64
#define TBR_SIM_MAX_SETS    256
typedef struct {
    const char *in, *out;
    const char *configs[TBR_SIM_MAX_CONFIGS];
    int nconfigs;
    const char *sets[TBR_SIM_MAX_SETS];
    int nsets;
    uint64_t fa, fb; /* --frames */
    int quiet, no_skip, no_surface_init, no_fast_forward, no_check, force, raw_alpha;
} options;

/* -1: go on; else the exit status (--help, --version, --list-params, a usage error). */
static int parse_args(int argc, char **argv, options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->fb = UINT64_MAX;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--version")) {
            printf("tbr-sim %s\n", TBR_VERSION);
            return 0;
        }
        if (!strcmp(a, "--list-params")) {
            tbr_params_print(stdout);
            return 0;
        }
        if (!strcmp(a, "--raw-alpha")) {
            opt->raw_alpha = 1;
            continue;
        }
        if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            opt->quiet = 1;
            continue;
        }
        if (!strcmp(a, "--no-skip")) {
            opt->no_skip = 1;
            continue;
        }
        if (!strcmp(a, "--no-surface-init")) {
            opt->no_surface_init = 1;
            continue;
        }
        if (!strcmp(a, "--no-fast-forward")) {
            opt->no_fast_forward = 1;
            continue;
        }
        if (!strcmp(a, "--no-check")) {
            opt->no_check = 1;
            continue;
        }
        if (!strcmp(a, "--force")) {
            opt->force = 1;
            continue;
        }
        if ((!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--config") || !strcmp(a, "--set") ||
             !strcmp(a, "--frames")) &&
            i + 1 >= argc) {
            fprintf(stderr, "tbr-sim: %s needs a value (see --help)\n", a);
            return 2;
        }
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            opt->out = argv[++i];
            continue;
        }
        if (!strcmp(a, "--config")) {
            if (opt->nconfigs == TBR_SIM_MAX_CONFIGS) {
                fprintf(stderr, "tbr-sim: too many --config options (max %d)\n", TBR_SIM_MAX_CONFIGS);
                return 2;
            }
            opt->configs[opt->nconfigs++] = argv[++i];
            continue;
        }
        if (!strcmp(a, "--set")) {
            if (opt->nsets == TBR_SIM_MAX_SETS) {
                fprintf(stderr, "tbr-sim: too many --set options (max %d)\n", TBR_SIM_MAX_SETS);
                return 2;
            }
            opt->sets[opt->nsets++] = argv[++i];
            continue;
        }
        if (!strcmp(a, "--frames")) {
            const char *s = argv[++i];
            const enum tbr_frames_status fs =
                tbr_frame_range_parse(s, TBR_FRAMES_SINGLE | TBR_FRAMES_OPEN, &opt->fa, &opt->fb);
            if (fs != TBR_FRAMES_OK) {
                fprintf(stderr, "tbr-sim: --frames '%s': expected %s\n", s,
                        fs == TBR_FRAMES_BAD_END ? "A-B with A <= B" : "A-B, A or A-");
                return 2;
            }
            continue;
        }
        if (a[0] == '-') {
            fprintf(stderr, "tbr-sim: unknown option '%s' (see --help)\n", a);
            return 2;
        }
        if (opt->in) {
            fprintf(stderr, "tbr-sim: more than one input given ('%s', '%s')\n", opt->in, a);
            return 2;
        }
        opt->in = a;
    }
    if (!opt->in || !opt->out) {
        usage(stderr);
        return 2;
    }
    return -1;
}

/* The configuration: defaults, --config files, --set overrides, cross-checks. */
static tbr_config *load_config(const options *opt, char *err, size_t errlen)
{
    tbr_config *cfg = tbr_config_new();
    for (int i = 0; i < opt->nconfigs; i++)
        if (tbr_config_load_file(cfg, opt->configs[i], err, errlen)) goto fail;
    for (int i = 0; i < opt->nsets; i++)
        if (tbr_config_apply_override(cfg, opt->sets[i], err, errlen)) goto fail;
    if (tbr_config_validate(cfg, err, errlen)) goto fail;
    return cfg;
fail:
    tbr_config_free(cfg);
    return NULL;
}

/* stats.json (deterministic: no wall-clock values), written through a temp file. 0 or 2. */
static int write_stats_json(const sim_run *run, const check_counts *cc)
{
    const gpu *g = run->g;
    const frame_out *fo = run->fo;
    const size_t nfo = run->nfo;
    char path[4600], err[PATH_MAX + 256];
    tbr_out_file of;
    snprintf(path, sizeof path, "%s/stats.json", run->out);
    if (tbr_out_file_open(&of, path, err, sizeof err)) {
        fprintf(stderr, "tbr-sim: %s\n", err);
        return 2;
    }
    FILE *o = of.f;
    {
        fprintf(o, "{\n\"tool\": \"tbr-sim\",\n\"version\": \"%s\",\n\"total_cycles\": %llu,\n", TBR_VERSION,
                (unsigned long long)g->env.now);
        fprintf(o, "\"render_target_checks\": %llu,\n\"render_target_mismatches\": %llu,\n",
                (unsigned long long)g->env.fn->surface_checks, (unsigned long long)g->env.fn->surface_check_mismatches);
        fprintf(o, "\"computed_color_quads\": %llu,\n\"computed_color_failures\": %llu,\n",
                (unsigned long long)g->env.fn->quads_computed, (unsigned long long)g->env.fn->quads_compute_failed);
        fprintf(o, "\"derived_texel_quads\": %llu,\n\"derived_texel_failures\": %llu,\n",
                (unsigned long long)g->env.fn->texel_quads_derived, (unsigned long long)g->env.fn->texel_derive_failed);
        fprintf(o,
                "\"frames_simulated\": %zu,\n\"reference_check\": %s,\n\"frames_checked\": %llu,\n"
                "\"frames_bit_exact\": %llu,\n\"frames_differing\": %llu,\n\"frames_without_reference\": %llu,\n"
                "\"frames\": [",
                nfo, run->no_check ? "false" : "true", (unsigned long long)cc->checked,
                (unsigned long long)cc->bit_exact, (unsigned long long)cc->differing,
                (unsigned long long)cc->no_reference);
        for (size_t i = 0; i < nfo; i++) {
            const int checked = fo[i].ref == REF_BIT_EXACT || fo[i].ref == REF_DIFFERS;
            fprintf(o,
                    "%s\n  {\"frame\": %llu, \"cycles\": %llu, \"end_cycle\": %llu, \"reference\": \"%s\", "
                    "\"reference_checked\": %s, "
                    "\"bit_exact\": %s, \"diff_pixels\": %llu, \"max_diff\": %u}",
                    i ? "," : "", (unsigned long long)fo[i].frame, (unsigned long long)fo[i].cycles,
                    (unsigned long long)fo[i].end_cycle, k_ref_result_name[fo[i].ref], checked ? "true" : "false",
                    fo[i].ref == REF_BIT_EXACT ? "true" : "false", (unsigned long long)fo[i].diff_pixels,
                    fo[i].max_diff);
        }
        {
            uint64_t ex = tbr_stat_value(g->env.instr_streamed), sta = tbr_stat_value(g->env.instr_static);
            fprintf(o, "\n],\n\"instruction_source\": \"%s\",", ex && sta ? "mixed" : ex ? "executed" : "static");
        }
        fprintf(o, "\n\"not_modeled\": [");
        for (size_t i = 0; i < sizeof k_unmodeled / sizeof *k_unmodeled; i++) {
            fprintf(o, "%s", i ? ", " : "");
            tbr_json_string(o, k_unmodeled[i]);
        }
        if (run->invalidation_unrecorded) {
            fprintf(o, ", ");
            tbr_json_string(o, k_invalidation_unrecorded);
        }
        fprintf(o, "],\n\"config\": ");
        tbr_config_dump_json(run->cfg, o);
        fprintf(o, ",\n\"energy\": ");
        tbr_energy_report_json(g->en, o);
        fprintf(o, ",\n\"stats\": ");
        tbr_stats_dump_json(run->st, o);
        fprintf(o, "\n}\n");
    }
    if (tbr_out_file_commit(&of, err, sizeof err)) {
        fprintf(stderr, "tbr-sim: %s\n", err);
        return 2;
    }
    return 0;
}

/* tiles.json: the per-tile data gathered frame by frame, closed and renamed. 0 or 2. */
static int finish_tiles_json(sim_run *run)
{
    char err[PATH_MAX + 256];
    if (!run->tiles.f) return 0; /* no frame with a PNG: no per-tile data */
    fprintf(run->tiles.f, "\n ]}}\n");
    if (tbr_out_file_commit(&run->tiles, err, sizeof err)) {
        fprintf(stderr, "tbr-sim: %s\n", err);
        return 2;
    }
    return 0;
}

/* The frame-check line of summary.txt and of the result on stdout. */
static void print_check_counts(FILE *o, const sim_run *run, const check_counts *cc)
{
    if (run->no_check)
        fprintf(o, "reference check off (--no-check)");
    else
        fprintf(o, "reference check: %llu frames checked, %llu bit-exact, %llu differ, %llu without a usable reference",
                (unsigned long long)cc->checked, (unsigned long long)cc->bit_exact, (unsigned long long)cc->differing,
                (unsigned long long)cc->no_reference);
}

/* One frame's line in summary.txt. */
static void print_frame_line(FILE *o, const frame_out *f)
{
    fprintf(o, "  frame %llu: %llu cycles", (unsigned long long)f->frame, (unsigned long long)f->cycles);
    switch (f->ref) {
        case REF_BIT_EXACT: fprintf(o, ", bit-exact with the reference\n"); break;
        case REF_DIFFERS:
            fprintf(o, ", DIFFERS: %llu pixels, max channel difference %u\n", (unsigned long long)f->diff_pixels,
                    f->max_diff);
            break;
        case REF_MISSING: fprintf(o, ", NOT CHECKED: reference missing\n"); break;
        case REF_UNREADABLE: fprintf(o, ", NOT CHECKED: reference unreadable\n"); break;
        case REF_NOT_CHECKED: fprintf(o, ", not checked (--no-check)\n"); break;
        case REF_NO_PICTURE: fprintf(o, ", no picture (no FRAME_END)\n"); break;
    }
}

/* summary.txt: the figures a reader looks at first, then every statistic. 0 or 2. */
static int write_summary(const sim_run *run, const check_counts *cc)
{
    const gpu *g = run->g;
    const frame_out *fo = run->fo;
    const size_t nfo = run->nfo;
    char path[4600], err[PATH_MAX + 256];
    tbr_out_file of;
    snprintf(path, sizeof path, "%s/summary.txt", run->out);
    if (tbr_out_file_open(&of, path, err, sizeof err)) {
        fprintf(stderr, "tbr-sim: %s\n", err);
        return 2;
    }
    FILE *o = of.f;
    {
        fprintf(o, "tbr-sim %s: %s\n", TBR_VERSION, run->trace_path);
        fprintf(o, "frames simulated: %zu, total cycles: %llu\n", nfo, (unsigned long long)g->env.now);
        if (g->across_frames)
            fprintf(o, "cycles: a frame's from its first command to its last tile flush; the next frame's geometry "
                       "may run during a frame's last raster phase (overlap.across_frames), so consecutive frames "
                       "overlap and the total (first command of the first frame to the last flush of the last) is "
                       "at most their sum\n");
        else /* with overlap, a frame's passes overlap each other but not the next frame's */
            fprintf(o, "cycles: a frame's from its first command to its last tile flush; frames do not overlap, "
                       "so the total (first command of the first frame to the last flush of the last) is their sum\n");
        print_check_counts(o, run, cc);
        fputc('\n', o);
        {
            uint64_t ex = tbr_stat_value(g->env.instr_streamed), sta = tbr_stat_value(g->env.instr_static);
            fprintf(o,
                    "instruction source: %s (work items from executed streams %llu, static counts %llu); texture "
                    "requests %llu, texels %llu, lines %llu\n",
                    ex && sta ? "mixed"
                    : ex      ? "executed"
                              : "static",
                    (unsigned long long)ex, (unsigned long long)sta,
                    (unsigned long long)tbr_stat_value(g->tex_stats.requests),
                    (unsigned long long)tbr_stat_value(g->tex_stats.texels),
                    (unsigned long long)tbr_stat_value(g->tex_stats.lines));
        }
        fprintf(o, "surface init (hot start): %llu SURFACE_INIT bands applied, %llu unusable%s\n",
                (unsigned long long)g->env.fn->surface_init_bands, (unsigned long long)g->env.fn->surface_init_skipped,
                g->env.fn->ignore_surface_init ? " (ignored: --no-surface-init)" : "");
        fprintf(o, "render-target checks (SURFACE_CHECK): %llu compared, %llu differ%s%s%s, %llu not comparable\n",
                (unsigned long long)g->env.fn->surface_checks, (unsigned long long)g->env.fn->surface_check_mismatches,
                g->env.fn->surface_check_mismatches ? " (first: " : "", g->env.fn->first_check_mismatch,
                g->env.fn->surface_check_mismatches ? ")" : "", (unsigned long long)g->env.fn->surface_checks_skipped);
        fprintf(o, "computed colors (COMPUTED QUADS): %llu quads computed, %llu could not be%s%s%s\n",
                (unsigned long long)g->env.fn->quads_computed, (unsigned long long)g->env.fn->quads_compute_failed,
                g->env.fn->quads_compute_failed ? " (first: " : "", g->env.fn->first_compute_failure,
                g->env.fn->quads_compute_failed ? ")" : "");
        fprintf(o, "derived texels (TEXELS_DERIVED QUADS): %llu quads derived, %llu could not be%s%s%s\n",
                (unsigned long long)g->env.fn->texel_quads_derived, (unsigned long long)g->env.fn->texel_derive_failed,
                g->env.fn->texel_derive_failed ? " (first: " : "", g->env.fn->first_derive_failure,
                g->env.fn->texel_derive_failed ? ")" : "");
        for (size_t i = 0; i < nfo; i++) print_frame_line(o, &fo[i]);
        {
            tbr_energy_summary es;
            for (size_t i = 0; i < tbr_energy_frames(g->en); i++)
                if (tbr_energy_summary_of(g->en, i, &es) == 0)
                    fprintf(o,
                            "  energy frame %llu: %.3f uJ (GPU %.3f uJ: dynamic %.3f, static %.3f; DRAM %.3f uJ), "
                            "%.3f W\n",
                            (unsigned long long)fo[i].frame, es.total_pj * 1e-6, es.gpu_pj * 1e-6,
                            es.gpu_dynamic_pj * 1e-6, es.gpu_static_pj * 1e-6, es.dram_pj * 1e-6, es.avg_power_w);
            if (tbr_energy_summary_of(g->en, TBR_ENERGY_TOTAL, &es) == 0)
                fprintf(o, "energy total: %.3f uJ (GPU %.3f uJ, DRAM %.3f uJ), average power %.3f W, EDP %.6g J*s\n",
                        es.total_pj * 1e-6, es.gpu_pj * 1e-6, es.dram_pj * 1e-6, es.avg_power_w, es.edp_js);
        }
        fprintf(o, "not modeled yet:\n");
        for (size_t i = 0; i < sizeof k_unmodeled / sizeof *k_unmodeled; i++) fprintf(o, "  - %s\n", k_unmodeled[i]);
        if (run->invalidation_unrecorded) fprintf(o, "  - %s\n", k_invalidation_unrecorded);
        fprintf(o, "statistics (totals):\n");
        tbr_stats_dump_text(run->st, o);
        fprintf(o, "energy (docs/energy-model.md):\n");
        tbr_energy_report_text(g->en, o);
    }
    if (tbr_out_file_commit(&of, err, sizeof err)) {
        fprintf(stderr, "tbr-sim: %s\n", err);
        return 2;
    }
    return 0;
}

/* The input: a tbr-replay directory (activity.tbrt inside, reference/ beside) or the trace
 * itself (references in its directory). NULL with the message printed. */
static tbr_trace_reader *open_input(const char *in, char *trace_path, size_t tlen, char *ref_dir, size_t rlen)
{
    struct stat sb;
    if (stat(in, &sb) != 0) {
        fprintf(stderr, "tbr-sim: %s: %s\n", in, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(sb.st_mode)) {
        snprintf(trace_path, tlen, "%s/activity.tbrt", in);
        snprintf(ref_dir, rlen, "%s", in);
    } else {
        snprintf(trace_path, tlen, "%s", in);
        const char *sl = strrchr(in, '/');
        if (sl)
            snprintf(ref_dir, rlen, "%.*s", (int)(sl - in), in);
        else
            snprintf(ref_dir, rlen, ".");
    }
    if (tbr_out_dir_is_unfinished(ref_dir)) {
        fprintf(stderr,
                "tbr-sim: %s: an unfinished tbr-replay output (the replay was interrupted or is still "
                "running): not used\n",
                ref_dir);
        return NULL;
    }
    tbr_trace_error terr;
    tbr_trace_reader *r = tbr_trace_reader_open(trace_path, &terr);
    if (!r) {
        fprintf(stderr, "tbr-sim: %s\n", terr.msg);
        return NULL;
    }
    size_t mlen;
    const char *schema = tbr_trace_reader_metadata_get(r, "records_schema", &mlen);
    if (schema && !(mlen == strlen(TBR_RECORDS_SCHEMA_TEXT) && !memcmp(schema, TBR_RECORDS_SCHEMA_TEXT, mlen))) {
        fprintf(stderr,
                "tbr-sim: %s: records_schema=%.*s is not supported (expected " TBR_RECORDS_SCHEMA_TEXT
                "; re-record the trace with this build's tbr-replay)\n",
                trace_path, (int)mlen, schema);
        tbr_trace_reader_close(r);
        return NULL;
    }
    return r;
}

/* The trace's records_schema_minor (0 when absent). */
static unsigned long records_minor(tbr_trace_reader *r)
{
    size_t mlen;
    const char *v = tbr_trace_reader_metadata_get(r, "records_schema_minor", &mlen);
    unsigned long m = 0;
    for (size_t i = 0; v && i < mlen && v[i] >= '0' && v[i] <= '9' && m < 1000000; i++)
        m = m * 10 + (unsigned long)(v[i] - '0');
    return m;
}

/* After the outputs: the one-line result on stdout, the functional back end's failures on
 * stderr; the exit status (1 when a frame or a check differs). */
static int report(const sim_run *run, const char *final_out, double secs, const check_counts *cc)
{
    const gpu *g = run->g;
    const sim_func *fn = g->env.fn;
    if (!run->quiet) {
        printf("tbr-sim: %zu frames, %llu cycles; ", run->nfo, (unsigned long long)g->env.now);
        print_check_counts(stdout, run, cc);
        printf("; %.0f simulated cycles/s (%.1f%% of the cycles in skipped quiescent spans); summary: %s/summary.txt\n",
               secs > 0 ? (double)g->env.now / secs : 0.0,
               g->env.now ? 100.0 * (double)g->skipped_cycles / (double)g->env.now : 0.0, final_out);
    }
    if (fn->surface_check_mismatches)
        fprintf(stderr, "tbr-sim: %llu render-target check(s) differ from softpipe's memory (first: %s)\n",
                (unsigned long long)fn->surface_check_mismatches, fn->first_check_mismatch);
    if (fn->quads_compute_failed)
        fprintf(stderr, "tbr-sim: %llu quad(s) with computed colors could not be computed (first: %s)\n",
                (unsigned long long)fn->quads_compute_failed, fn->first_compute_failure);
    if (fn->texel_derive_failed)
        fprintf(stderr, "tbr-sim: %llu quad(s) with derived texels could not be derived (first: %s)\n",
                (unsigned long long)fn->texel_derive_failed, fn->first_derive_failure);
    if (cc->no_reference)
        fprintf(stderr,
                "tbr-sim: %llu frame(s) without a usable reference were not checked: a failed check "
                "(--no-check to simulate without checking)\n",
                (unsigned long long)cc->no_reference);
    return cc->differing || cc->no_reference || fn->surface_check_mismatches || fn->quads_compute_failed ||
                   fn->texel_derive_failed
               ? 1
               : 0;
}

/* Simulates the selected frames and writes the outputs; the exit status. */
static int simulate(const options *opt, tbr_config *cfg, tbr_trace_reader *r, const char *trace_path,
                    const char *ref_dir, const char *out_dir)
{
    char err[4096];
    tbr_stats *st = tbr_stats_new();
    gpu *g = gpu_new(cfg, st, err, sizeof err);
    if (!g) {
        fprintf(stderr, "tbr-sim: %s\n", err);
        tbr_stats_free(st);
        return 2;
    }
    g->skip_idle = !opt->no_skip;
    g->env.fn->ignore_surface_init = opt->no_surface_init != 0;
    /* The front end (frontend/sim_trace.h): its state across frames, and the address map. */
    sim_loader *ld = sim_loader_new();
    if (!ld) {
        fprintf(stderr, "tbr-sim: out of memory\n");
        gpu_free(g);
        tbr_stats_free(st);
        return 2;
    }
    sim_loader_set_texture_layout(ld, strcmp(tbr_cfg_str(cfg, "texture.layout"), "tiled") == 0,
                                  (uint32_t)tbr_cfg_uint(cfg, "texture_cache.line_bytes"),
                                  (uint32_t)tbr_cfg_uint(cfg, "vertex_cache.line_bytes"));
    sim_run run;
    memset(&run, 0, sizeof run);
    run.r = r;
    run.trace_path = trace_path;
    run.invalidation_unrecorded = records_minor(r) < 11;
    run.ref_dir = ref_dir;
    run.out = out_dir;
    run.no_check = opt->no_check;
    run.fa = opt->fa;
    run.fb = opt->fb;
    run.quiet = opt->quiet;
    run.raw_alpha = opt->raw_alpha;
    run.no_fast_forward = opt->no_fast_forward;
    run.cfg = cfg;
    run.st = st;
    run.g = g;
    /* Rendering Elimination signs PRIM / DRAW payloads the frame loader drops: its scan
     * reads the records in the loader's pass (docs/techniques.md). */
    const sim_record_observer re_scan = {SU_SCAN_TYPES, su_scan_record, &run.scan};
    /* Transaction Elimination alone needs only the frame's uploads (render-target writes) */
    const sim_record_observer te_scan = {SU_SCAN_WRITE_TYPES, su_scan_record, &run.scan};
    run.re_obs = tbr_cfg_bool(cfg, "re.enabled") ? &re_scan : tbr_cfg_bool(cfg, "te.enabled") ? &te_scan : NULL;
    sim_frame_init(&run.fr[0], ld);
    sim_frame_init(&run.fr[1], ld);
    gpu_set_frame_source(g, load_ahead, &run);
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &run.t0);
    int status = run_frames(&run);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - run.t0.tv_sec) + (double)(t1.tv_nsec - run.t0.tv_nsec) * 1e-9;
    check_counts cc = {0, 0, 0, 0};
    for (size_t i = 0; i < run.nfo; i++) {
        cc.checked += run.fo[i].ref == REF_BIT_EXACT || run.fo[i].ref == REF_DIFFERS;
        cc.bit_exact += run.fo[i].ref == REF_BIT_EXACT;
        cc.differing += run.fo[i].ref == REF_DIFFERS;
        cc.no_reference += run.fo[i].ref == REF_MISSING || run.fo[i].ref == REF_UNREADABLE;
    }
    if (!status) status = write_stats_json(&run, &cc);
    if (!status) status = finish_tiles_json(&run);
    if (!status) status = write_summary(&run, &cc);
    if (!status) status = report(&run, opt->out, secs, &cc);
    tbr_out_file_discard(&run.tiles);
    free(run.fo);
    su_frame_data_free(&run.sfd);
    su_scan_free(&run.scan);
    sim_frame_free(&run.fr[0]);
    sim_frame_free(&run.fr[1]);
    sim_loader_free(ld);
    gpu_free(g);
    tbr_stats_free(st);
    return status;
}

int main(int argc, char **argv)
{
    options opt;
    int rc = parse_args(argc, argv, &opt);
    if (rc >= 0) return rc;
    char err[4096];
    tbr_config *cfg = load_config(&opt, err, sizeof err);
    if (!cfg) {
        fprintf(stderr, "tbr-sim: %s\n", err);
        return 2;
    }
    char trace_path[4096], ref_dir[4096] = "";
    tbr_trace_reader *r = open_input(opt.in, trace_path, sizeof trace_path, ref_dir, sizeof ref_dir);
    if (!r) {
        tbr_config_free(cfg);
        return 2;
    }
    /* OUT is built as OUT.tmp-PID and renamed when complete (tbr/out_dir.h): it never holds
     * a mix of two runs, and an interrupted run leaves the previous OUT as it was. */
    tbr_out_dir od;
    char path[PATH_MAX + 16];
    struct stat so, si;
    if (stat(opt.out, &so) == 0 && stat(ref_dir, &si) == 0 && so.st_dev == si.st_dev && so.st_ino == si.st_ino) {
        /* --force would replace the replay the run reads */
        fprintf(stderr, "tbr-sim: -o %s is the input's directory: choose another output directory\n", opt.out);
        rc = 2;
    } else if (tbr_out_dir_begin(&od, opt.out, opt.force, err, sizeof err)) {
        fprintf(stderr, "tbr-sim: %s\n", err);
        rc = 2;
    } else {
        tbr_out_dir_cleanup_on_signal(&od);
        snprintf(path, sizeof path, "%s/frames", od.tmp_path);
        if (mkdir(path, 0777) != 0) {
            fprintf(stderr, "tbr-sim: %s: cannot create: %s\n", path, strerror(errno));
            rc = 2;
        } else {
            rc = simulate(&opt, cfg, r, trace_path, ref_dir, od.tmp_path);
        }
        /* A failed check (1) still publishes its outputs: they show what differs. */
        if (rc == 2)
            tbr_out_dir_abandon(&od);
        else if (tbr_out_dir_commit(&od, err, sizeof err)) {
            fprintf(stderr, "tbr-sim: %s\n", err);
            rc = 2;
        }
    }
    tbr_trace_reader_close(r);
    tbr_config_free(cfg);
    if (tbr_stdout_close("tbr-sim")) rc = 2;
    return rc;
}
