/*
 * libtbr_functional.so - the recording side of tbrsim's instrumented Mesa.
 *
 * Loaded by the patched softpipe/libEGL when TBR_FUNCTIONAL_LIB names it (see
 * functional/mesa/overlay/include/tbr_mesa_hooks.h). Writes, into TBR_OUT_DIR:
 *   activity.tbrt               GPU activity trace (formats/trace container,
 *                               records of formats/records)
 *   reference/frame_NNNNN.png   the default framebuffer at each recorded swap
 *   functional-status.txt       key=value summary (rewritten at each frame and at exit)
 * TBR_FRAMES=A-B (or A, or A-) limits recording to frames A..B (0-based swap
 * count); other frames are fast-forwarded with every hook returning at once.
 * Documentation: docs/instrumentation.md, docs/trace-records.md.
 *
 * The state has owners: each concern is one object in its own file, with its own
 * init/free and functions that take that object (and, as parameters, whatever other
 * object they need); this file holds the one recorder that owns them all, and the hooks,
 * which only dispatch to them:
 *   stream_writer.c   the trace file, container/logical frames, pending records
 *   quad_recorder.c   QUADS records of the draw and their TEXELS (derived or recorded)
 *   draws.c           SHADER*, DRAW, VS_TEXTURES, PRIM, VERTICES, VS_TEXELS, DRAW_END
 *   surfaces.c        RENDER_PASS, CLEAR, UPLOAD, TILE, SURFACE_INIT, SURFACE_CHECK
 *   contexts.c        GL contexts, threads, tiles held in tile caches
 *   resources.c       RESOURCE records      paths.c        PATH records
 *   readback.c        GL at the frame end   png_writer.c   the reference PNG thread
 *   rec_status.c      the fatal error, unsupported features, counters
 *   rec_sink.h        how objects emit records (through the recorder)
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tbr/frame_range.h"
#include "tbr/records.h"
#include "tbr/trace.h"
#include "tbr_mesa_hooks.h"

#include "color_shadow.h"
#include "computed_colors.h"
#include "contexts.h"
#include "draws.h"
#include "paths.h"
#include "png_writer.h"
#include "quad_recorder.h"
#include "readback.h"
#include "rec_sink.h"
#include "rec_status.h"
#include "resources.h"
#include "stream_writer.h"
#include "surfaces.h"

#define EXPORT __attribute__((visibility("default")))

struct recorder {
    int initialized;
    int atexit_done;
    char out_dir[PATH_MAX];
    char status_path[PATH_MAX];
    uint64_t first, last; /* recording window, inclusive */
    int paused;           /* the frame-end readback runs: its GL work is not recorded */
    int compute_colors;   /* computed colors (records minor 5): 0 with TBR_RECORD_COLORS=1 */
    uint64_t frames_recorded, recorded_first, recorded_last;
    int partial_last_frame;
    struct rec_status status;
    struct rec_counts counts;
    tbr_computed_colors *cc; /* NULL unless compute_colors */
    tbr_color_shadow cs;     /* packed colors: softpipe's floats the trace may still need */
    struct stream_writer sw;
    struct gl_contexts contexts;
    struct resource_table resources;
    struct surfaces surfaces;
    struct draw_recorder draws;
    struct quad_recorder quads;
    struct path_recorder paths;
    struct readback rb;
    struct png_writer png;
    struct rec_sink sink; /* emit_record on this recorder */
};

/* The one recorder of the process. Mesa calls the hooks as plain C functions without a
 * context argument (tbr_mesa_hooks.h), and the recording spans every GL context of the
 * process, so the hooks find their recorder here; nothing else refers to it. */
static struct recorder R;

static void write_status(const struct recorder *r)
{
    if (!r->status_path[0]) return;
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof(tmp), "%s.tmp", r->status_path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        /* said on stderr (tbr-replay reads it): the status itself cannot carry it */
        fprintf(stderr, "tbr_functional: error: cannot create %s: %s\n", tmp, strerror(errno));
        return;
    }
    const struct rec_status *st = &r->status;
    fprintf(f, "status=%s\n", st->ok ? "ok" : "error");
    fprintf(f, "error=%s\n", st->error);
    fprintf(f, "gl_renderer=%s\n", r->rb.gl_renderer);
    fprintf(f, "gl_version=%s\n", r->rb.gl_version);
    fprintf(f, "frames_window=%llu-%llu\n", (unsigned long long)r->first, (unsigned long long)r->last);
    fprintf(f, "swaps_seen=%llu\n", (unsigned long long)r->sw.frame);
    fprintf(f, "frames_recorded=%llu\n", (unsigned long long)r->frames_recorded);
    if (r->frames_recorded) {
        fprintf(f, "first_frame=%llu\n", (unsigned long long)r->recorded_first);
        fprintf(f, "last_frame=%llu\n", (unsigned long long)r->recorded_last);
    } else {
        fprintf(f, "first_frame=\nlast_frame=\n");
    }
    fprintf(f, "width=%u\nheight=%u\n", r->rb.width, r->rb.height);
    const struct counters *c = &r->counts.total;
    fprintf(f, "draws=%llu\ninternal_draws=%llu\nprims=%llu\nculled_prims=%llu\n", (unsigned long long)c->draws,
            (unsigned long long)c->internal_draws, (unsigned long long)c->prims, (unsigned long long)c->culled_prims);
    fprintf(f, "quads=%llu\nshaded_quads=%llu\nshaded_fragments=%llu\nblended_fragments=%llu\n",
            (unsigned long long)c->quads, (unsigned long long)c->shaded_quads, (unsigned long long)c->shaded_fragments,
            (unsigned long long)c->blended_fragments);
    fprintf(f, "clears=%llu\nuploads=%llu\nupload_bytes=%llu\nshaders_created=%llu\n", (unsigned long long)c->clears,
            (unsigned long long)c->uploads, (unsigned long long)c->upload_bytes,
            (unsigned long long)c->shaders_created);
    fprintf(f, "tile_events=%llu\nflushes=%llu\n", (unsigned long long)c->tiles, (unsigned long long)c->flushes);
    fprintf(f, "clear_writes=%llu\nsurface_checks=%llu\n", (unsigned long long)r->surfaces.clear_writes,
            (unsigned long long)r->surfaces.surface_checks);
    fprintf(f, "invalidations=%llu\ninvalidations_bound=%llu\n", (unsigned long long)r->surfaces.invalidations,
            (unsigned long long)r->surfaces.invalidations_bound);
    fprintf(f, "packed_fragments=%llu\nexact_values=%llu\nshadow_tiles_max=%llu\n",
            (unsigned long long)r->cs.packed_fragments, (unsigned long long)r->cs.exact_values,
            (unsigned long long)r->cs.shadow_tiles_max);
    fprintf(f, "fs_path_executions=%llu\nfs_path_records=%llu\n", (unsigned long long)r->paths.execs,
            (unsigned long long)r->paths.records);
    fprintf(f, "texel_fetches=%llu\ntexels=%llu\n", (unsigned long long)c->texel_fetches,
            (unsigned long long)c->texels);
    fprintf(f, "vertices_fetched=%llu\nvertices_shaded=%llu\nvertex_groups=%llu\n",
            (unsigned long long)c->vertices_fetched, (unsigned long long)c->vertices,
            (unsigned long long)c->vertex_groups);
    fprintf(f, "vs_texel_fetches=%llu\nvs_texels=%llu\n", (unsigned long long)c->vs_texel_fetches,
            (unsigned long long)c->vs_texels);
    fprintf(f, "surface_inits=%llu\nsurface_init_bytes=%llu\n", (unsigned long long)r->surfaces.surface_inits,
            (unsigned long long)r->surfaces.surface_init_bytes);
    {
        static const tbr_cc_stats none;
        const tbr_cc_stats *cs = r->cc ? tbr_cc_stats_get(r->cc) : &none;
        fprintf(f, "computed_colors=%d\nvertex_hashes=%d\nvertex_positions=%d\n", r->compute_colors,
                r->draws.vertex_hashes, r->draws.vertex_positions);
        fprintf(f,
                "quads_colors_computed=%llu\nquads_colors_recorded=%llu\n"
                "quads_colors_mismatched=%llu\n",
                (unsigned long long)cs->quads_computed, (unsigned long long)cs->quads_recorded,
                (unsigned long long)cs->quads_mismatched);
        fprintf(f, "draws_computable=%llu\ndraws_not_computable=%llu\nfirst_not_computable=%s\n",
                (unsigned long long)cs->draws_computable, (unsigned long long)cs->draws_not_computable,
                cs->first_reason);
        fprintf(f, "texture_inits=%llu\ntexture_init_bytes=%llu\n", (unsigned long long)r->surfaces.texture_inits,
                (unsigned long long)r->surfaces.texture_init_bytes);
        fprintf(f,
                "derived_texels=%d\nquads_texels_derived=%llu\nquads_texels_recorded=%llu\n"
                "quads_texels_mismatched=%llu\n",
                r->quads.derive_texels, (unsigned long long)r->quads.texels_derived,
                (unsigned long long)r->quads.texels_recorded, (unsigned long long)r->quads.texels_mismatched);
        fprintf(
            f,
            "derived_depths=%d\nquads_depths_derived=%llu\nquads_depths_recorded=%llu\nquads_depths_mismatched=%llu\n",
            r->quads.derive_depths, (unsigned long long)r->quads.depths_derived,
            (unsigned long long)r->quads.depths_recorded, (unsigned long long)r->quads.depths_mismatched);
        fprintf(f, "texels_not_derived=");
        qr_write_causes(&r->quads, f);
        fprintf(f, "\n");
    }
    fprintf(f, "unsupported=");
    for (int i = 0; i < st->n_unsupported; i++)
        fprintf(f, "%s%s:%llu", i ? "," : "", st->unsupported[i].name, (unsigned long long)st->unsupported[i].count);
    fprintf(f, "\n");
    fprintf(f, "partial_last_frame=%d\n", r->partial_last_frame);
    fprintf(f, "trailing_records_dropped=%llu\n", (unsigned long long)r->sw.trailing_dropped);
    fprintf(f, "activity_trace=%s\n", r->sw.closed ? r->sw.trace_path : "");
    fprintf(f, "contexts=%d\n", r->contexts.live);
    fprintf(f, "contexts_created=%d\n", r->contexts.created);
    fprintf(f, "context_switches=%llu\n", (unsigned long long)r->surfaces.context_switches);
    fprintf(f, "thread_switches=%llu\n", (unsigned long long)r->contexts.thread_switches);
    int bad = ferror(f);
    errno = 0;
    if (fflush(f) != 0 || bad) bad = errno ? errno : EIO;
    if (fclose(f) != 0 && !bad) bad = errno ? errno : EIO;
    if (bad || rename(tmp, r->status_path) != 0) {
        fprintf(stderr, "tbr_functional: error: cannot write %s: %s\n", r->status_path, strerror(bad ? bad : errno));
        unlink(tmp);
    }
}

/* ---- frames and records --------------------------------------------------- */

/* Opens the logical frame at its first record: every object's per-frame state starts
 * afresh. -1 if nothing can be recorded. */
static int ensure_frame(struct recorder *r)
{
    if (!sw_ready(&r->sw)) return -1;
    if (sw_begin_logical(&r->sw)) {
        memset(&r->counts.frame, 0, sizeof(r->counts.frame));
        res_new_frame(&r->resources);
        dr_new_frame(&r->draws);
        surf_new_frame(&r->surfaces);
        paths_new_frame(&r->paths);
        /* a swap stored every tile: no float copy from before survives (safety net
         * against tile events missed outside the recorded frames) */
        tbr_cs_drop_all(&r->cs);
    }
    return 0;
}

static void process_waiting(struct recorder *r) { qr_process_waiting(&r->quads, &r->draws, &r->cs, r->cc, &r->counts); }

static void flush_quads(struct recorder *r) { qr_flush(&r->quads, &r->draws, &r->cs, r->cc, &r->counts, &r->sw); }

/* The sink's emit: every non-QUADS record goes through here, pending quads first, except
 * for PRIM (minor 11): the quads of the draw's earlier primitives stay pending, so a QUADS
 * record holds the quads of many small primitives and its coding (position deltas, depth
 * prediction) runs across them; the quads still come after the PRIM they refer to
 * (docs/trace-records.md "General rules"). h_prim processed the waiting batch already. */
static void emit_record(void *ctx, uint16_t type, int encode_rc)
{
    struct recorder *r = ctx;
    if (encode_rc != 0) {
        rec_fail(&r->status, "cannot encode a %s record", tbr_rec_type_name(type));
        return;
    }
    const int open = ensure_frame(r) == 0;
    if (type != TBR_REC_PRIM) flush_quads(r);
    if (open) sw_append(&r->sw, type, &r->sw.buf);
}

/* ---- configuration -------------------------------------------------------- */

static void finalize(struct recorder *r);

static void at_exit(void) { finalize(&R); }

/* TBR_FRAMES (set by tbr-replay from its --frames): "A-B", "A" or "A-"; unset or empty: every
 * frame. The project's one frame-range parser (formats/util). */
static int parse_frames(const char *s, uint64_t *a, uint64_t *b)
{
    *a = 0;
    *b = UINT64_MAX;
    if (!s || !*s) return 0;
    return tbr_frame_range_parse(s, TBR_FRAMES_SINGLE | TBR_FRAMES_OPEN, a, b) == TBR_FRAMES_OK ? 0 : -1;
}

static int env_is_1(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "1") == 0;
}

/* The objects, wired to the status and the sink. */
static void init_objects(struct recorder *r)
{
    struct rec_status *st = &r->status;
    sw_init(&r->sw, st);
    ctx_init(&r->contexts, st);
    res_init(&r->resources, st);
    surf_init(&r->surfaces, st);
    dr_init(&r->draws, st);
    qr_init(&r->quads, st);
    paths_init(&r->paths, st);
    rb_init(&r->rb, st);
    pngw_init(&r->png, st, env_is_1("TBR_RAW_ALPHA")); /* tbr-replay --raw-alpha */
    r->sink = (struct rec_sink){.buf = &r->sw.buf, .emit = emit_record, .ctx = r};
}

/* The options of the environment (tbr-replay sets them). */
static void read_options(struct recorder *r)
{
    /* TBR_FLOAT_COLORS=1 (tbr-replay --float-colors): every QUADS color as float, as
     * before schema 3 (for checking the packed coding; same simulated results) */
    const int pack_colors = !env_is_1("TBR_FLOAT_COLORS");
    /* TBR_RECORD_COLORS=1 (tbr-replay --record-colors): every blended quad's colors in
     * the trace, none computed (docs/trace-records.md "Computed colors") */
    r->compute_colors = !env_is_1("TBR_RECORD_COLORS");
    if (r->compute_colors && !(r->cc = tbr_cc_create())) r->compute_colors = 0;
    /* TBR_VERTEX_HASHES=1 (tbr-replay --vertex-hashes): VERTICES groups carry out_hash,
     * which nothing in tbr-sim reads (docs/trace-records.md VERTICES); positions too
     * only with TBR_VERTEX_POSITIONS=1 (--vertex-positions, minor 10) */
    dr_set_options(&r->draws, pack_colors, env_is_1("TBR_VERTEX_HASHES"), env_is_1("TBR_VERTEX_POSITIONS"));
    /* TBR_RECORD_TEXELS=1 (tbr-replay --record-texels): every shaded quad's texels in
     * TEXELS records, none derived (docs/trace-records.md "Derived texels") */
    const int derive_texels = r->compute_colors && !env_is_1("TBR_RECORD_TEXELS");
    /* fault injection for the tests (functional.derived_texels): every N-th compared
     * quad is treated as if its texels differed, so records of both kinds alternate */
    const char *inj = getenv("TBR_TEST_TEXEL_REJECT_EVERY");
    qr_set_options(&r->quads, derive_texels, inj ? (uint32_t)strtoul(inj, NULL, 10) : 0);
    /* TBR_RECORD_DEPTHS=1: every depth in QUADS, none derived (records minor 12,
     * docs/trace-records.md QUADS "Derived depths"); TBR_TEST_DEPTH_REJECT_EVERY=N
     * (tests): every N-th derivable quad is recorded, so records of both kinds alternate */
    const char *zinj = getenv("TBR_TEST_DEPTH_REJECT_EVERY");
    qr_set_depth_options(&r->quads, !env_is_1("TBR_RECORD_DEPTHS"), zinj ? (uint32_t)strtoul(zinj, NULL, 10) : 0);
}

static void init_once(struct recorder *r)
{
    if (r->initialized) return;
    r->initialized = 1;
    r->status.ok = 1;
    init_objects(r);
    const char *out = getenv("TBR_OUT_DIR");
    if (!out || !*out) {
        fprintf(stderr, "tbr_functional: TBR_OUT_DIR is not set; nothing is recorded\n");
        r->status.ok = 0;
        return;
    }
    if (strlen(out) + 40 >= sizeof(r->out_dir)) {
        fprintf(stderr, "tbr_functional: TBR_OUT_DIR too long\n");
        r->status.ok = 0;
        return;
    }
    snprintf(r->out_dir, sizeof(r->out_dir), "%s", out);
    snprintf(r->status_path, sizeof(r->status_path), "%s/functional-status.txt", out);
    sw_set_path(&r->sw, out);
    char ref[PATH_MAX];
    snprintf(ref, sizeof(ref), "%s/reference", out);
    if ((mkdir(out, 0777) != 0 && errno != EEXIST) || (mkdir(ref, 0777) != 0 && errno != EEXIST))
        rec_fail(&r->status, "cannot create %s: %s", ref, strerror(errno));
    read_options(r);
    if (parse_frames(getenv("TBR_FRAMES"), &r->first, &r->last) != 0)
        rec_fail(&r->status, "TBR_FRAMES='%s' is not A, A-B or A-", getenv("TBR_FRAMES"));
    /* TBR_FRAME_BASE=N (tbr-replay on a trace cut by apitrace gltrim): the trace's first
     * swap is swap N of the source, so frame numbers, PNG names and the window are the
     * source's (docs/instrumentation.md) */
    const char *base = getenv("TBR_FRAME_BASE");
    if (base && *base) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(base, &end, 10);
        if (errno || *end || base[0] == '-')
            rec_fail(&r->status, "TBR_FRAME_BASE='%s' is not a frame number", base);
        else
            r->sw.frame = n;
    }
    atexit(at_exit);
    write_status(r);
}

static int in_window(const struct recorder *r) { return r->sw.frame >= r->first && r->sw.frame <= r->last; }

static int recording(void)
{
    struct recorder *r = &R;
    if (!(r->status.ok && !r->paused && r->contexts.live > 0 && in_window(r) && !r->sw.closed)) return 0;
    ctx_check_thread(&r->contexts, r->draws.in_draw);
    return r->status.ok;
}

/* ---- hooks ---------------------------------------------------------------- */

/* Every hook but quads, texels and exec_path first processes a quad batch still waiting
 * for texels: no texels hook came for it. */

static int h_context_create(const struct tbr_hook_context_info *info)
{
    struct recorder *r = &R;
    process_waiting(r);
    init_once(r);
    ctx_created(&r->contexts, info);
    return 0;
}

static void h_context_destroy(void)
{
    struct recorder *r = &R;
    process_waiting(r);
    ctx_destroyed(&r->contexts);
    /* its tile caches are gone; other contexts' were stored when it became current */
    tbr_cs_drop_all(&r->cs);
}

static void h_framebuffer(const struct tbr_hook_framebuffer *fb)
{
    struct recorder *r = &R;
    process_waiting(r);
    if (!recording() || ensure_frame(r) != 0) return;
    surf_framebuffer(&r->surfaces, fb, &r->cs, &r->contexts, &r->resources, &r->sink);
}

static void h_clear(const struct tbr_hook_clear *c)
{
    struct recorder *r = &R;
    process_waiting(r);
    if (!recording()) return;
    surf_clear(&r->surfaces, c, &r->counts, &r->sink);
}

static void h_upload(const struct tbr_hook_upload *u)
{
    struct recorder *r = &R;
    process_waiting(r);
    if (!recording() || ensure_frame(r) != 0) return;
    surf_upload(&r->surfaces, u, &r->resources, &r->counts, &r->sink);
}

static void h_shader(const struct tbr_hook_shader *s)
{
    struct recorder *r = &R;
    process_waiting(r);
    if (!recording() || ensure_frame(r) != 0) return;
    dr_shader(&r->draws, s, r->cc, &r->counts, &r->sink);
}

static int h_shader_known(uint32_t id)
{
    struct recorder *r = &R;
    /* Outside recording, claim it is known so that Mesa does not dump text. */
    if (!recording()) return 1;
    if (!r->sw.logical_open) return 0;
    return dr_shader_known(&r->draws, id);
}

static void h_draw_begin(const struct tbr_hook_draw *d)
{
    struct recorder *r = &R;
    process_waiting(r);
    if (!recording() || ensure_frame(r) != 0) return;
    dr_begin(&r->draws, d, &r->cs, r->cc, &r->surfaces, &r->resources, &r->counts, r->sw.frame, &r->sink);
    r->quads.depth_draw_set = 0; /* the new draw's depth state is taken at its first primitive */
}

static void h_draw_end(void)
{
    struct recorder *r = &R;
    process_waiting(r); /* a quads batch followed by no texels hook */
    if (!dr_leave(&r->draws)) return;
    if (!recording()) return;
    dr_emit_end(&r->draws, &r->sink);
}

static void h_prim(const struct tbr_hook_prim *p)
{
    struct recorder *r = &R;
    process_waiting(r);
    if (!recording() || !r->draws.in_draw) return;
    dr_prim(&r->draws, p, r->cc, &r->counts, &r->sink);
    qr_prim(&r->quads, p, &r->draws);
}

static void h_quads(const struct tbr_hook_quad *qs, uint32_t n)
{
    struct recorder *r = &R;
    if (!recording() || !r->draws.in_draw) return;
    if (ensure_frame(r) != 0) return;
    qr_quads(&r->quads, qs, n, &r->draws, &r->cs, r->cc, &r->counts, &r->sw);
}

static void h_texels(const struct tbr_hook_texel *t, uint32_t n)
{
    struct recorder *r = &R;
    if (!recording() || !r->draws.in_draw) return;
    qr_texels(&r->quads, t, n, &r->draws, &r->cs, r->cc, &r->counts, &r->sw);
}

static void h_vertices(const struct tbr_hook_vertices *v)
{
    struct recorder *r = &R;
    process_waiting(r);
    if (!recording() || !r->draws.in_draw || ensure_frame(r) != 0) return;
    dr_vertices(&r->draws, v, &r->resources, &r->counts, &r->sink);
}

static void h_tile(const struct tbr_hook_tile *t)
{
    struct recorder *r = &R;
    process_waiting(r);
    if (!recording()) return;
    ctx_track_tile(&r->contexts, t);
    if (!t->is_zs) tbr_cs_tile_event(&r->cs, t->kind, t->resource_id, t->level, t->layer, t->tile_x, t->tile_y);
    surf_tile(&r->surfaces, t, &r->counts, &r->sink);
}

static void h_flush(uint32_t flags)
{
    struct recorder *r = &R;
    process_waiting(r);
    if (!recording()) return;
    dr_flush(flags, &r->counts, &r->sink);
}

static void h_invalidate(const struct tbr_hook_resource *res)
{
    struct recorder *r = &R;
    process_waiting(r);
    if (!recording() || ensure_frame(r) != 0) return;
    surf_invalidate(&r->surfaces, res, &r->resources, &r->sink);
}

static uint32_t h_exec_path(uint32_t shader_id, uint32_t stage, const uint16_t *pc, const uint8_t *mask, uint32_t n,
                            uint32_t truncated)
{
    struct recorder *r = &R;
    if (!recording() || ensure_frame(r) != 0) return 0;
    return paths_exec(&r->paths, shader_id, stage, pc, mask, n, truncated, &r->sink);
}

static void h_unsupported(const char *name)
{
    struct recorder *r = &R;
    process_waiting(r);
    if (!recording()) return;
    dr_unsupported(&r->status, name, &r->sink);
}

/* ---- frame end ------------------------------------------------------------ */

/* A recorded frame ends: glFlush (recorded), the readback and its PNG (not recorded),
 * FRAME_END. */
static void end_recorded_frame(struct recorder *r)
{
    rb_flush(&r->rb); /* rasterizes nothing new (softpipe draws synchronously) but packs the tile caches */
    r->paused = 1;
    char rel[64], path[PATH_MAX + 64];
    snprintf(rel, sizeof(rel), "reference/frame_%05llu.png", (unsigned long long)r->sw.frame);
    snprintf(path, sizeof(path), "%s/%s", r->out_dir, rel);
    uint8_t *px;
    if (rb_read(&r->rb, &px) == 0) pngw_start(&r->png, path, px, r->rb.width, r->rb.height);
    r->paused = 0;
    if (!r->status.ok || ensure_frame(r) != 0) return;
    const struct counters *fc = &r->counts.frame;
    tbr_rec_frame_end fe;
    memset(&fe, 0, sizeof(fe));
    fe.frame = r->sw.frame;
    fe.width = r->rb.width;
    fe.height = r->rb.height;
    fe.draws = fc->draws;
    fe.quads = fc->quads;
    fe.shaded_quads = fc->shaded_quads;
    fe.shaded_fragments = fc->shaded_fragments;
    fe.prims = fc->prims;
    fe.clears = fc->clears;
    rec_copy_name(fe.png, sizeof(fe.png), rel);
    tbr_buf *b = sink_buf(&r->sink);
    sink_emit(&r->sink, TBR_REC_FRAME_END, tbr_rec_frame_end_encode(b, &fe));
    sw_end_frame(&r->sw);
    if (!r->frames_recorded) r->recorded_first = r->sw.frame;
    r->recorded_last = r->sw.frame;
    r->frames_recorded++;
}

static void h_swap_buffers(tbr_gl_proc (*gp)(const char *))
{
    struct recorder *r = &R;
    process_waiting(r);
    init_once(r);
    if (!r->rb.checked && r->status_path[0]) rb_check_renderer(&r->rb, gp, r->contexts.live);
    if (r->status.ok && in_window(r) && !r->sw.closed) {
        end_recorded_frame(r);
    } else if (r->status.ok && r->sw.frame < r->first) {
        /* A fast-forwarded frame: store softpipe's tile caches as a recorded swap does
         * (a pbuffer swap flushes nothing by itself). The frames before the window then
         * quantize where a full recording would, and the window starts with every render
         * target in memory, which SURFACE_INIT relies on. */
        rb_flush(&r->rb);
    }
    r->sw.frame++;
    if (r->sw.frame > r->last && r->sw.writer) {
        /* window done: the rest is fast-forward. tbr-replay stops the replay once the
         * status counts every frame, so the last PNG must be complete before that */
        pngw_wait(&r->png);
        sw_close(&r->sw);
    }
    write_status(r);
    if (!r->status.ok && r->status.error[0] && r->rb.checked && strstr(r->status.error, "not softpipe")) {
        fprintf(stderr, "tbr_functional: refusing to record a non-softpipe renderer\n");
        exit(3);
    }
}

static void finalize(struct recorder *r)
{
    if (r->atexit_done || !r->initialized) return;
    r->atexit_done = 1;
    pngw_wait(&r->png); /* the last frame's PNG is complete before the status says so */
    sw_drop_trailing(&r->sw);
    if (r->sw.writer && r->sw.frame_open) {
        /* draws/clears after the last swap: kept, marked partial (no FRAME_END) */
        flush_quads(r);
        r->partial_last_frame = 1;
    }
    sw_finish(&r->sw);
    write_status(r);
    sw_free(&r->sw);
    qr_free(&r->quads);
    surf_free(&r->surfaces);
    tbr_cs_free(&r->cs);
    tbr_cc_destroy(r->cc);
    r->cc = NULL;
    r->compute_colors = 0;
    dr_free(&r->draws);
    res_free(&r->resources);
    paths_free(&r->paths);
    ctx_free(&r->contexts);
}

static const struct tbr_mesa_hooks hooks = {
    .version = TBR_MESA_HOOKS_VERSION,
    .size = sizeof(struct tbr_mesa_hooks),
    .context_create = h_context_create,
    .context_destroy = h_context_destroy,
    .recording = recording,
    .swap_buffers = h_swap_buffers,
    .framebuffer = h_framebuffer,
    .clear = h_clear,
    .upload = h_upload,
    .shader = h_shader,
    .shader_known = h_shader_known,
    .draw_begin = h_draw_begin,
    .draw_end = h_draw_end,
    .prim = h_prim,
    .quads = h_quads,
    .tile = h_tile,
    .flush = h_flush,
    .unsupported = h_unsupported,
    .exec_path = h_exec_path,
    .texels = h_texels,
    .vertices = h_vertices,
    .invalidate = h_invalidate,
};

EXPORT const struct tbr_mesa_hooks *tbr_mesa_hooks_get(void) { return &hooks; }
