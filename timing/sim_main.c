/* tbr-sim: cycle-level TBR GPU timing simulator driven by a GPU activity trace.
 * Usage and behaviour: docs/timing-model.md. Exit status: 0 ok, 1 a check failed (a
 * rendered frame differs from its reference), 2 bad usage or unusable input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/config.h"
#include "gpu.h"
#include "core/stats.h"
#include "tbr/frame_range.h"
#include "tbr/png_io.h"
#include "tbr/records.h"

#ifndef TBR_VERSION
#define TBR_VERSION "0"
#endif

/* Units not modeled yet: printed in the summary and stats.json (never hidden). */
static const char *k_unmodeled[] = {
    "traces without PATH/TEXELS/VERTICES records (schema minor 0 or no PATH): static instruction counts, all ALU, "
    "no texture or instruction fetch, DRAW.count vertices estimated per draw (instruction_source static)",
    "index buffer fetch, texture compression (a block = a texel), texture/render-target coherence",
    "clipping/culling cost before setup (primitives removed by the draw module are invisible)",
    "geometry/raster overlap across render passes and frames (passes run one after another)",
    "depth buffer store to memory (discarded at tile end)",
    "Rendering Elimination / Transaction Elimination only in frames with a single render pass",
};

static void usage(FILE *o)
{
    fprintf(o, "usage: tbr-sim DIR_OR_TRACE -o OUT [--config FILE] [--set KEY=VALUE]... [--frames A-B] [--quiet] "
               "[--no-skip] [--no-surface-init]\n"
               "       tbr-sim --list-params | --help | --version\n"
               "  DIR_OR_TRACE  tbr-replay output directory (activity.tbrt + reference/) or an activity trace\n"
               "  -o OUT        output directory: OUT/frames/frame_NNNNN.png, OUT/stats.json, OUT/tiles.json, "
               "OUT/summary.txt\n"
               "  --config FILE configuration file (key = value; see --list-params), repeatable\n"
               "  --set K=V     override one parameter, repeatable (applied after --config)\n"
               "  --frames A-B  simulate source frames A..B only (also A, A-)\n"
               "  --quiet       no progress on stderr, no summary on stdout\n"
               "  --no-fast-forward  with --frames A-B, do not render the trace's frames before A\n"
               "                (by default they are rendered functionally, without timing, so that frame A\n"
               "                starts from the render-target contents they left)\n"
               "  --no-skip     tick every unit every cycle (no skipping of quiescent cycles; same results, slower)\n"
               "  --no-surface-init  ignore SURFACE_INIT records: render targets start from zeros\n"
               "                (shows what a recorded window owes to the frames before it)\n"
               "Exit status: 0 ok, 1 a frame differs from the reference, 2 bad usage or input.\n");
}

static int mkdir_p(const char *p)
{
    if (mkdir(p, 0777) == 0 || errno == EEXIST) return 0;
    return -1;
}

typedef struct {
    uint64_t frame, cycles;
    int has_ref, match;
    uint64_t diff_pixels;
    unsigned max_diff;
} frame_out;

int main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    const char *configs[64];
    int nconfigs = 0;
    const char *sets[256];
    int nsets = 0;
    uint64_t fa = 0, fb = UINT64_MAX;
    int quiet = 0, no_skip = 0, no_surface_init = 0, no_fast_forward = 0;
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
        if (!strcmp(a, "--quiet")) {
            quiet = 1;
            continue;
        }
        if (!strcmp(a, "--no-skip")) {
            no_skip = 1;
            continue;
        }
        if (!strcmp(a, "--no-surface-init")) {
            no_surface_init = 1;
            continue;
        }
        if (!strcmp(a, "--no-fast-forward")) {
            no_fast_forward = 1;
            continue;
        }
        if ((!strcmp(a, "-o") || !strcmp(a, "--config") || !strcmp(a, "--set") || !strcmp(a, "--frames")) &&
            i + 1 >= argc) {
            fprintf(stderr, "tbr-sim: %s needs a value (see --help)\n", a);
            return 2;
        }
        if (!strcmp(a, "-o")) {
            out = argv[++i];
            continue;
        }
        if (!strcmp(a, "--config")) {
            if (nconfigs < 64) configs[nconfigs++] = argv[++i];
            continue;
        }
        if (!strcmp(a, "--set")) {
            if (nsets < 256) sets[nsets++] = argv[++i];
            continue;
        }
        if (!strcmp(a, "--frames")) {
            const char *s = argv[++i];
            const enum tbr_frames_status fs = tbr_frame_range_parse(s, TBR_FRAMES_SINGLE | TBR_FRAMES_OPEN, &fa, &fb);
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
        if (in) {
            fprintf(stderr, "tbr-sim: more than one input given ('%s', '%s')\n", in, a);
            return 2;
        }
        in = a;
    }
    if (!in || !out) {
        usage(stderr);
        return 2;
    }

    char err[4096];
    tbr_config *cfg = tbr_config_new();
    for (int i = 0; i < nconfigs; i++)
        if (tbr_config_load_file(cfg, configs[i], err, sizeof err)) {
            fprintf(stderr, "tbr-sim: %s\n", err);
            tbr_config_free(cfg);
            return 2;
        }
    for (int i = 0; i < nsets; i++)
        if (tbr_config_apply_override(cfg, sets[i], err, sizeof err)) {
            fprintf(stderr, "tbr-sim: %s\n", err);
            tbr_config_free(cfg);
            return 2;
        }
    if (tbr_config_validate(cfg, err, sizeof err)) {
        fprintf(stderr, "tbr-sim: %s\n", err);
        tbr_config_free(cfg);
        return 2;
    }

    /* input: a directory (activity.tbrt inside) or the trace itself */
    char trace_path[4096], ref_dir[4096] = "";
    struct stat sb;
    if (stat(in, &sb) != 0) {
        fprintf(stderr, "tbr-sim: %s: %s\n", in, strerror(errno));
        tbr_config_free(cfg);
        return 2;
    }
    if (S_ISDIR(sb.st_mode)) {
        snprintf(trace_path, sizeof trace_path, "%s/activity.tbrt", in);
        snprintf(ref_dir, sizeof ref_dir, "%s", in);
    } else {
        snprintf(trace_path, sizeof trace_path, "%s", in);
        const char *sl = strrchr(in, '/');
        if (sl)
            snprintf(ref_dir, sizeof ref_dir, "%.*s", (int)(sl - in), in);
        else
            snprintf(ref_dir, sizeof ref_dir, ".");
    }
    tbr_trace_error terr;
    tbr_trace_reader *r = tbr_trace_reader_open(trace_path, &terr);
    if (!r) {
        fprintf(stderr, "tbr-sim: %s\n", terr.msg);
        tbr_config_free(cfg);
        return 2;
    }
    size_t mlen;
    const char *schema = tbr_trace_reader_metadata_get(r, "records_schema", &mlen);
    if (schema && !(mlen == strlen(TBR_RECORDS_SCHEMA_TEXT) && !memcmp(schema, TBR_RECORDS_SCHEMA_TEXT, mlen))) {
        fprintf(stderr,
                "tbr-sim: %s: records_schema=%.*s is not supported (expected " TBR_RECORDS_SCHEMA_TEXT
                "; re-record the trace with this build's tbr-replay)\n",
                trace_path, (int)mlen, schema);
        tbr_trace_reader_close(r);
        tbr_config_free(cfg);
        return 2;
    }

    char path[4600];
    snprintf(path, sizeof path, "%s/frames", out);
    if (mkdir_p(out) || mkdir_p(path)) {
        fprintf(stderr, "tbr-sim: cannot create %s: %s\n", path, strerror(errno));
        tbr_trace_reader_close(r);
        tbr_config_free(cfg);
        return 2;
    }

    tbr_stats *st = tbr_stats_new();
    gpu *g = gpu_new(cfg, st, err, sizeof err);
    if (!g) {
        fprintf(stderr, "tbr-sim: %s\n", err);
        tbr_stats_free(st);
        tbr_trace_reader_close(r);
        tbr_config_free(cfg);
        return 2;
    }
    g->skip_idle = !no_skip;
    g->fn.ignore_surface_init = no_surface_init != 0;

    /* The front end (frontend/sim_trace.h): its state across frames, and the address map. */
    sim_loader *ld = sim_loader_new();
    if (!ld) {
        fprintf(stderr, "tbr-sim: out of memory\n");
        gpu_free(g);
        tbr_stats_free(st);
        tbr_trace_reader_close(r);
        tbr_config_free(cfg);
        return 2;
    }
    sim_loader_set_texture_layout(ld, strcmp(tbr_cfg_str(cfg, "texture.layout"), "tiled") == 0,
                                  (uint32_t)tbr_cfg_uint(cfg, "texture_cache.line_bytes"),
                                  (uint32_t)tbr_cfg_uint(cfg, "vertex_cache.line_bytes"));
    /* Rendering Elimination signs PRIM / DRAW payloads the frame loader drops: its scan
     * reads the records in the loader's pass (docs/techniques.md). */
    su_frame_data sfd;
    memset(&sfd, 0, sizeof sfd);
    su_scan scan;
    memset(&scan, 0, sizeof scan);
    const sim_record_observer re_scan = {SU_SCAN_TYPES, su_scan_record, &scan};
    const sim_record_observer *re_obs = tbr_cfg_bool(cfg, "re.enabled") ? &re_scan : NULL;
    sim_frame fr;
    sim_frame_init(&fr, ld);
    frame_out *fo = NULL;
    size_t nfo = 0;
    FILE *tiles_o = NULL;
    char tiles_tmp[4700];
    uint32_t tiles_w = 0, tiles_h = 0, tiles_cols = 0, tiles_rows = 0;
    size_t tiles_n = 0;
    int rc = 0, status = 0;
    tbr_trace_frame_info fi;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while ((rc = tbr_trace_reader_next_frame(r, &fi)) > 0) {
        if (fi.number > fb) continue;
        if (fi.number < fa) {
            /* Fast-forward (docs/timing-model.md "Frames"): the frame's functional effect on the
       * render targets, no timing, statistics or output. */
            if (no_fast_forward) continue;
            if (!quiet)
                fprintf(stderr, "tbr-sim: frame %llu: fast-forward (functional only)\n", (unsigned long long)fi.number);
            if (sim_frame_load(&fr, r, fi.number, NULL, err, sizeof err) ||
                gpu_fast_forward_frame(g, &fr, err, sizeof err)) {
                fprintf(stderr, "tbr-sim: %s: %s\n", trace_path, err);
                status = 2;
                break;
            }
            continue;
        }
        if (re_obs) su_scan_begin(&scan, &sfd);
        int lrc = sim_frame_load(&fr, r, fi.number, re_obs, err, sizeof err);
        if (lrc) {
            if (lrc == SIM_LOAD_OBSERVER_FAILED) /* the RE scan's error */
                fprintf(stderr, "tbr-sim: %s: %s\n", trace_path, err);
            else
                fprintf(stderr, "tbr-sim: %s\n", err);
            status = 2;
            break;
        }
        g->sufd = NULL;
        if (re_obs) {
            su_scan_end(&scan);
            sfd.valid = sfd.nprims == fr.nprims && sfd.ndraws == fr.ndraws;
            g->sufd = &sfd;
        }
        uint64_t c0 = g->now;
        gpu_tiles_frame_begin(g);
        for (size_t p = 0; p < fr.npasses; p++)
            if (gpu_run_pass(g, &fr, p, err, sizeof err)) {
                fprintf(stderr, "tbr-sim: %s: %s\n", trace_path, err);
                status = 2;
                break;
            }
        if (status) break;
        tbr_stat_inc(g->frames);
        char label[32];
        snprintf(label, sizeof label, "frame %llu", (unsigned long long)fi.number);
        tbr_stats_snapshot(st, label);
        gpu_energy_frame_end(g, label);
        fo = realloc(fo, (nfo + 1) * sizeof *fo);
        if (!fo) abort();
        frame_out *o = &fo[nfo++];
        memset(o, 0, sizeof *o);
        o->frame = fi.number;
        o->cycles = g->now - c0;
        if (fr.has_end) {
            uint8_t *px;
            uint32_t w, h;
            if (sim_func_frame_rgba8(&g->fn, &fr, &px, &w, &h, err, sizeof err)) {
                fprintf(stderr, "tbr-sim: %s: %s\n", trace_path, err);
                status = 2;
                break;
            }
            snprintf(path, sizeof path, "%s/frames/frame_%05llu.png", out, (unsigned long long)fi.number);
            char perr[TBR_PNG_ERR_SIZE];
            if (tbr_png_write_rgba8(path, px, w, h, (size_t)w * 4, perr, sizeof perr)) {
                fprintf(stderr, "tbr-sim: %s\n", perr);
                free(px);
                status = 2;
                break;
            }
            /* Per-tile data (OUT/tiles.json, docs/timing-model.md "Per-tile data"): the grid of
       * the first frame with a PNG, written frame by frame through a temp file. */
            if (!tiles_o) {
                tiles_w = (uint32_t)tbr_cfg_uint(cfg, "tile.width");
                tiles_h = (uint32_t)tbr_cfg_uint(cfg, "tile.height");
                tiles_cols = (w + tiles_w - 1) / tiles_w;
                tiles_rows = (h + tiles_h - 1) / tiles_h;
                snprintf(tiles_tmp, sizeof tiles_tmp, "%s/tiles.json.tmp", out);
                tiles_o = fopen(tiles_tmp, "w");
                if (!tiles_o) {
                    fprintf(stderr, "tbr-sim: %s: %s\n", tiles_tmp, strerror(errno));
                    free(px);
                    status = 2;
                    break;
                }
                fprintf(tiles_o,
                        "{\"tiles\": {\n \"tile_width\": %u, \"tile_height\": %u, \"cols\": %u, \"rows\": %u,\n"
                        " \"fragments_are\": \"4 x shaded quads\",\n \"frames\": [",
                        tiles_w, tiles_h, tiles_cols, tiles_rows);
            }
            if (tiles_n++) fputc(',', tiles_o);
            gpu_tiles_write_frame(g, tiles_o, fi.number, tiles_cols, tiles_rows);
            /* Check against the reference frame when the replay directory has it. */
            char ref[4600];
            snprintf(ref, sizeof ref, "%s/%s", ref_dir, fr.end.png[0] ? fr.end.png : "");
            tbr_image ri;
            if (fr.end.png[0] && tbr_png_read_rgba8(ref, &ri, perr, sizeof perr) == 0) {
                o->has_ref = 1;
                if (ri.width != w || ri.height != h) {
                    o->diff_pixels = (uint64_t)w * h;
                    o->max_diff = 255;
                } else {
                    for (uint32_t y = 0; y < h; y++) {
                        if (!memcmp(px + (size_t)y * w * 4, ri.pixels + y * ri.stride, (size_t)w * 4))
                            continue; /* equal row */
                        for (uint32_t x = 0; x < w; x++) {
                            const uint8_t *a = px + ((size_t)y * w + x) * 4,
                                          *b = ri.pixels + y * ri.stride + (size_t)x * 4;
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
                o->match = o->diff_pixels == 0;
                tbr_image_free(&ri);
            }
            free(px);
        }
        if (!quiet) {
            clock_gettime(CLOCK_MONOTONIC, &t1);
            double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
            fprintf(stderr, "tbr-sim: frame %llu: %llu cycles, %zu passes, %zu quads%s; %.0f cycles/s\n",
                    (unsigned long long)fi.number, (unsigned long long)o->cycles, fr.npasses, fr.nquads,
                    o->has_ref ? (o->match ? ", matches reference" : ", DIFFERS from reference") : "",
                    s > 0 ? (double)g->now / s : 0.0);
        }
    }
    if (rc < 0 && !status) {
        fprintf(stderr, "tbr-sim: %s\n", tbr_trace_reader_error(r));
        status = 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;

    uint64_t ndiff = 0, nref = 0;
    for (size_t i = 0; i < nfo; i++) {
        nref += (uint64_t)fo[i].has_ref;
        ndiff += (uint64_t)(fo[i].has_ref && !fo[i].match);
    }
    if (!status) {
        /* stats.json (deterministic: no wall-clock values), written through a temp file */
        char tmp[4700];
        snprintf(path, sizeof path, "%s/stats.json", out);
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *o = fopen(tmp, "w");
        if (!o) {
            fprintf(stderr, "tbr-sim: %s: %s\n", tmp, strerror(errno));
            status = 2;
        } else {
            fprintf(o, "{\n\"tool\": \"tbr-sim\",\n\"version\": \"%s\",\n\"total_cycles\": %llu,\n", TBR_VERSION,
                    (unsigned long long)g->now);
            fprintf(o, "\"render_target_checks\": %llu,\n\"render_target_mismatches\": %llu,\n",
                    (unsigned long long)g->fn.surface_checks, (unsigned long long)g->fn.surface_check_mismatches);
            fprintf(o, "\"computed_color_quads\": %llu,\n\"computed_color_failures\": %llu,\n",
                    (unsigned long long)g->fn.quads_computed, (unsigned long long)g->fn.quads_compute_failed);
            fprintf(o, "\"derived_texel_quads\": %llu,\n\"derived_texel_failures\": %llu,\n",
                    (unsigned long long)g->fn.texel_quads_derived, (unsigned long long)g->fn.texel_derive_failed);
            fprintf(o,
                    "\"frames_simulated\": %zu,\n\"frames_checked\": %llu,\n\"frames_differing\": %llu,\n\"frames\": [",
                    nfo, (unsigned long long)nref, (unsigned long long)ndiff);
            for (size_t i = 0; i < nfo; i++)
                fprintf(o,
                        "%s\n  {\"frame\": %llu, \"cycles\": %llu, \"reference_checked\": %s, \"bit_exact\": %s, "
                        "\"diff_pixels\": %llu, \"max_diff\": %u}",
                        i ? "," : "", (unsigned long long)fo[i].frame, (unsigned long long)fo[i].cycles,
                        fo[i].has_ref ? "true" : "false", fo[i].has_ref && fo[i].match ? "true" : "false",
                        (unsigned long long)fo[i].diff_pixels, fo[i].max_diff);
            {
                uint64_t ex = tbr_stat_value(g->instr_streamed), sta = tbr_stat_value(g->instr_static);
                fprintf(o, "\n],\n\"instruction_source\": \"%s\",", ex && sta ? "mixed" : ex ? "executed" : "static");
            }
            fprintf(o, "\n\"not_modeled\": [");
            for (size_t i = 0; i < sizeof k_unmodeled / sizeof *k_unmodeled; i++) {
                fprintf(o, "%s", i ? ", " : "");
                tbr_json_string(o, k_unmodeled[i]);
            }
            fprintf(o, "],\n\"config\": ");
            tbr_config_dump_json(cfg, o);
            fprintf(o, ",\n\"energy\": ");
            tbr_energy_report_json(g->en, o);
            fprintf(o, ",\n\"stats\": ");
            tbr_stats_dump_json(st, o);
            fprintf(o, "\n}\n");
            if (fclose(o) != 0 || rename(tmp, path) != 0) {
                fprintf(stderr, "tbr-sim: cannot write %s\n", path);
                remove(tmp);
                status = 2;
            }
        }
        /* per-tile data */
        snprintf(path, sizeof path, "%s/tiles.json", out);
        if (tiles_o) {
            fprintf(tiles_o, "\n ]}}\n");
            int bad = fclose(tiles_o) != 0;
            tiles_o = NULL;
            if (bad || rename(tiles_tmp, path) != 0) {
                fprintf(stderr, "tbr-sim: cannot write %s\n", path);
                remove(tiles_tmp);
                status = 2;
            }
        } else {
            remove(path); /* no frame with a PNG: no stale per-tile data of an earlier run */
        }
        /* text summary */
        snprintf(path, sizeof path, "%s/summary.txt", out);
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        o = fopen(tmp, "w");
        if (o) {
            fprintf(o, "tbr-sim %s: %s\n", TBR_VERSION, trace_path);
            fprintf(o, "frames simulated: %zu, total cycles: %llu\n", nfo, (unsigned long long)g->now);
            {
                uint64_t ex = tbr_stat_value(g->instr_streamed), sta = tbr_stat_value(g->instr_static);
                fprintf(o,
                        "instruction source: %s (work items from executed streams %llu, static counts %llu); texture "
                        "requests %llu, texels %llu, lines %llu\n",
                        ex && sta ? "mixed"
                        : ex      ? "executed"
                                  : "static",
                        (unsigned long long)ex, (unsigned long long)sta,
                        (unsigned long long)tbr_stat_value(g->tex_requests),
                        (unsigned long long)tbr_stat_value(g->tex_texels),
                        (unsigned long long)tbr_stat_value(g->tex_lines));
            }
            fprintf(o, "surface init (hot start): %llu SURFACE_INIT bands applied, %llu unusable%s\n",
                    (unsigned long long)g->fn.surface_init_bands, (unsigned long long)g->fn.surface_init_skipped,
                    g->fn.ignore_surface_init ? " (ignored: --no-surface-init)" : "");
            fprintf(o, "render-target checks (SURFACE_CHECK): %llu compared, %llu differ%s%s%s, %llu not comparable\n",
                    (unsigned long long)g->fn.surface_checks, (unsigned long long)g->fn.surface_check_mismatches,
                    g->fn.surface_check_mismatches ? " (first: " : "", g->fn.first_check_mismatch,
                    g->fn.surface_check_mismatches ? ")" : "", (unsigned long long)g->fn.surface_checks_skipped);
            fprintf(o, "computed colors (COMPUTED QUADS): %llu quads computed, %llu could not be%s%s%s\n",
                    (unsigned long long)g->fn.quads_computed, (unsigned long long)g->fn.quads_compute_failed,
                    g->fn.quads_compute_failed ? " (first: " : "", g->fn.first_compute_failure,
                    g->fn.quads_compute_failed ? ")" : "");
            fprintf(o, "derived texels (TEXELS_DERIVED QUADS): %llu quads derived, %llu could not be%s%s%s\n",
                    (unsigned long long)g->fn.texel_quads_derived, (unsigned long long)g->fn.texel_derive_failed,
                    g->fn.texel_derive_failed ? " (first: " : "", g->fn.first_derive_failure,
                    g->fn.texel_derive_failed ? ")" : "");
            for (size_t i = 0; i < nfo; i++) {
                fprintf(o, "  frame %llu: %llu cycles", (unsigned long long)fo[i].frame,
                        (unsigned long long)fo[i].cycles);
                if (fo[i].has_ref)
                    fprintf(o,
                            fo[i].match ? ", bit-exact with the reference\n"
                                        : ", DIFFERS: %llu pixels, max channel difference %u\n",
                            (unsigned long long)fo[i].diff_pixels, fo[i].max_diff);
                else
                    fprintf(o, ", no reference to check\n");
            }
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
                    fprintf(o,
                            "energy total: %.3f uJ (GPU %.3f uJ, DRAM %.3f uJ), average power %.3f W, EDP %.6g J*s\n",
                            es.total_pj * 1e-6, es.gpu_pj * 1e-6, es.dram_pj * 1e-6, es.avg_power_w, es.edp_js);
            }
            fprintf(o, "not modeled yet:\n");
            for (size_t i = 0; i < sizeof k_unmodeled / sizeof *k_unmodeled; i++)
                fprintf(o, "  - %s\n", k_unmodeled[i]);
            fprintf(o, "statistics (totals):\n");
            tbr_stats_dump_text(st, o);
            fprintf(o, "energy (docs/energy-model.md):\n");
            tbr_energy_report_text(g->en, o);
            fclose(o);
            rename(tmp, path);
        }
        if (!quiet) {
            printf("tbr-sim: %zu frames, %llu cycles, %llu/%llu checked frames bit-exact; %.0f simulated cycles/s "
                   "(%.1f%% of the cycles in skipped quiescent spans); summary: %s\n",
                   nfo, (unsigned long long)g->now, (unsigned long long)(nref - ndiff), (unsigned long long)nref,
                   secs > 0 ? (double)g->now / secs : 0.0,
                   g->now ? 100.0 * (double)g->skipped_cycles / (double)g->now : 0.0, path);
        }
        if (g->fn.surface_check_mismatches)
            fprintf(stderr, "tbr-sim: %llu render-target check(s) differ from softpipe's memory (first: %s)\n",
                    (unsigned long long)g->fn.surface_check_mismatches, g->fn.first_check_mismatch);
        if (g->fn.quads_compute_failed)
            fprintf(stderr, "tbr-sim: %llu quad(s) with computed colors could not be computed (first: %s)\n",
                    (unsigned long long)g->fn.quads_compute_failed, g->fn.first_compute_failure);
        if (g->fn.texel_derive_failed)
            fprintf(stderr, "tbr-sim: %llu quad(s) with derived texels could not be derived (first: %s)\n",
                    (unsigned long long)g->fn.texel_derive_failed, g->fn.first_derive_failure);
        if (!status &&
            (ndiff || g->fn.surface_check_mismatches || g->fn.quads_compute_failed || g->fn.texel_derive_failed))
            status = 1;
    }
    if (tiles_o) {
        fclose(tiles_o);
        remove(tiles_tmp);
    }
    free(fo);
    su_frame_data_free(&sfd);
    su_scan_free(&scan);
    sim_frame_free(&fr);
    sim_loader_free(ld);
    gpu_free(g);
    tbr_stats_free(st);
    tbr_trace_reader_close(r);
    tbr_config_free(cfg);
    return status;
}
