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
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "tbr/png_io.h"
#include "tbr/records.h"
#include "tbr/trace.h"
#include "tbr_mesa_hooks.h"

#include "color_shadow.h"
#include "computed_colors.h"
#include "sampler.h"
#include "idset.h"

#define EXPORT __attribute__((visibility("default")))

/* GL / EGL subset used for the frame-end readback (values from the Khronos headers). */
typedef unsigned int GLenum;
typedef int GLint;
typedef unsigned int GLuint;
typedef int GLsizei;
typedef unsigned char GLubyte;
#define GL_NO_ERROR                  0
#define GL_RENDERER                  0x1F01
#define GL_VERSION                   0x1F02
#define GL_VENDOR                    0x1F00
#define GL_RGBA                      0x1908
#define GL_UNSIGNED_BYTE             0x1401
#define GL_FRAMEBUFFER               0x8D40
#define GL_READ_FRAMEBUFFER          0x8CA8
#define GL_DRAW_FRAMEBUFFER_BINDING  0x8CA6
#define GL_READ_FRAMEBUFFER_BINDING  0x8CAA
#define GL_PIXEL_PACK_BUFFER         0x88EB
#define GL_PIXEL_PACK_BUFFER_BINDING 0x88ED
#define GL_PACK_ALIGNMENT            0x0D05
#define GL_PACK_ROW_LENGTH           0x0D02
#define GL_PACK_SKIP_ROWS            0x0D03
#define GL_PACK_SKIP_PIXELS          0x0D04
#define GL_MAJOR_VERSION             0x821B
#define EGL_WIDTH                    0x3057
#define EGL_HEIGHT                   0x3056
#define EGL_DRAW                     0x3059

struct gl_fns {
    void (*Flush)(void);
    const GLubyte *(*GetString)(GLenum);
    GLenum (*GetError)(void);
    void (*GetIntegerv)(GLenum, GLint *);
    void (*BindFramebuffer)(GLenum, GLuint);
    void (*BindBuffer)(GLenum, GLuint);
    void (*PixelStorei)(GLenum, GLint);
    void (*ReadPixels)(GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, void *);
    void *(*GetCurrentDisplay)(void);
    void *(*GetCurrentSurface)(GLint);
    unsigned (*QuerySurface)(void *, void *, GLint, GLint *);
};

#define MAX_UNSUPPORTED 32

struct counters {
    uint64_t draws, internal_draws, quads, shaded_quads, shaded_fragments, blended_fragments;
    uint64_t prims, culled_prims, clears, uploads, upload_bytes, shaders_created, tiles, flushes;
    uint64_t texel_fetches, texels, vertices, vertex_groups, vertices_fetched;
    uint64_t vs_texel_fetches, vs_texels;
};

static struct state {
    int initialized;
    int ok; /* 0 after a fatal error: nothing more is recorded */
    char error[512];
    char out_dir[PATH_MAX];
    char trace_path[PATH_MAX];
    char status_path[PATH_MAX];
    uint64_t first, last; /* recording window, inclusive */
    int contexts;         /* live softpipe contexts */
    int contexts_created;
    int atexit_done;

    /* Several contexts (docs/instrumentation.md "Several contexts and threads").
     * Records of every context go into the one stream in submission order; the
     * issuing GL context is identified by libglapi's current-context pointer. */
    void *(*glapi_get_context)(void);
    int glapi_resolved;
    const void *pass_ctx; /* GL context of the current render pass */
    uint64_t context_switches;
    pthread_t gl_thread; /* thread of the last recorded GL work */
    int have_gl_thread;
    uint64_t thread_switches;
    /* 64x64 tiles held in a softpipe tile cache (loaded, not yet stored), with the
     * context that holds them: two contexts caching one tile at once is rejected */
    struct held_tile {
        const void *ctx;
        uint32_t resource_id, level, layer, tile_x, tile_y, is_zs;
    } * held;
    uint32_t nheld, cap_held;

    uint64_t frame; /* 0-based swap count */
    int paused;
    int gl_checked;
    struct gl_fns gl;
    char gl_renderer[128], gl_version[128];
    uint32_t width, height;

    tbr_trace_writer *writer;
    int frame_open;
    int writer_closed;
    tbr_buf buf;   /* scratch payload */
    tbr_buf quads; /* pending QUADS record */
    uint32_t quads_count, quads_cbufs;
    uint32_t quads_packed; /* QUADS packed_mask of the current draw */
    /* fragment shaders with TGSI_PROPERTY_FS_COLOR0_WRITES_ALL_CBUFS (gl_FragColor):
     * softpipe's blend stage gives output color 0 to every color buffer */
    struct fs_write_all {
        uint32_t id;
        int on;
    } * fs_wa;
    uint32_t nfs_wa, cap_fs_wa;
    int draw_write_all;          /* the current draw's fragment shader has it */
    uint32_t zs_clear_write_res; /* resource id + 1 whose next UPLOAD is a partial zs clear's write */
    uint64_t clear_writes;
    uint64_t surface_checks;
    tbr_rec_quads_header quads_hdr; /* coding state of the pending QUADS record */
    int pack_colors;                /* 0: TBR_FLOAT_COLORS=1, every color stored as float */
    /* VERTICES out_hash (records minor 7): only with TBR_VERTEX_HASHES=1 */
    int vertex_hashes;
    /* computed colors (records minor 5): 0 with TBR_RECORD_COLORS=1 */
    int compute_colors;
    tbr_computed_colors *cc;
    uint32_t quads_computed; /* the pending QUADS record is a COMPUTED one */
    uint32_t fb_height;      /* framebuffer of the latest framebuffer hook */
    /* sampled textures the simulator holds (SURFACE_INIT given, no upload since) */
    struct tex_known {
        uint32_t resource_id, level, layer, pass_sampled, frame_sampled;
        int given, dirty;
    } * tex;
    uint32_t ntex, cap_tex;
    uint64_t texture_inits, texture_init_bytes;
    tbr_color_shadow cs;  /* packed colors: softpipe's floats the trace may still need */
    uint32_t batch_first; /* draw ordinal of the first quad of the last quads() batch */
    /* pending TEXELS record (flushed right after the QUADS record) */
    tbr_rec_texfetch *tx_fetch;
    uint32_t tx_head, tx_nfetch, tx_capfetch; /* pending: [tx_head, tx_nfetch) */
    tbr_rec_texel *tx_texel;
    size_t tx_ntexel, tx_captexel;
    tbr_buf tx_buf;
    uint32_t tx_draw_seq;
    /* derived texels (records minor 6, docs/trace-records.md "Derived texels"): 0 with
     * TBR_RECORD_TEXELS=1 or without computed colors. softpipe reports a batch's texels
     * (texels hook) right after its quads (quads hook), so a batch waits for them
     * (a copy of its quads) and each quad's recomputation is compared with softpipe's
     * texels as it runs. A QUADS record is all derived or all recorded: a shaded quad
     * whose texels do not match starts a new record, so every record's flag is known
     * when it closes and the texels of derived ones are never copied. */
    int derive_texels;
    struct quads_closed {
        tbr_buf buf;
        uint32_t shaded;
        uint32_t fetches; /* of its shaded quads (recomputed) */
        int derivable;    /* every shaded quad's texels matched */
    } * closed;
    uint32_t nclosed, cap_closed;
    uint32_t open_first_ord, open_shaded, open_fetches; /* the pending QUADS record */
    int open_derivable;
    int open_derivable_known;                        /* set by the record's first shaded quad */
    uint32_t texel_reject_every, texel_reject_count; /* TBR_TEST_TEXEL_REJECT_EVERY */
    struct tbr_hook_quad *batch;                     /* the waiting batch (colors of its color buffers only) */
    uint32_t batch_n, cap_batch;
    int batch_waiting;
    uint32_t *slot_first; /* texels of batch slot k: [slot_first[k], slot_first[k + 1]) of */
    uint32_t *slot_order; /* t[slot_order[.]] (NULL order: t is already in slot order) */
    uint32_t cap_slot_first, cap_slot_order;
    uint64_t quads_texels_derived, quads_texels_recorded, quads_texels_mismatched;
    tbr_idset resources, shaders;
    tbr_buf last_pass; /* encoding of the current render pass (seq excluded) */
    uint32_t pass_seq, draw_seq;
    int in_draw;
    tbr_rec_draw_end draw_end;

    struct counters frame_cnt, total;
    uint64_t frames_recorded, recorded_first, recorded_last;
    int partial_last_frame;
    struct {
        char name[64];
        uint64_t count;
    } unsupported[MAX_UNSUPPORTED];
    int n_unsupported;

    /* per-frame table of distinct executed paths */
    struct path_entry {
        uint64_t hash;
        uint32_t id, shader, stage, n;
        size_t off;
    } * paths;
    uint32_t npaths, cap_paths;
    uint32_t *path_buckets; /* open addressing: index+1 into paths, 0 = empty */
    uint32_t nbuckets;
    tbr_buf path_arena; /* pc (u16 LE) + mask bytes, 3 per entry */
    int logical_open;   /* per-frame state initialised for S.frame */
    tbr_buf pending;    /* records waiting for the container frame: u16 type, u32 len, payload */
    uint64_t pending_count, trailing_dropped;
    uint64_t path_execs, path_records;

    /* hot start (docs/trace-records.md SURFACE_INIT): render-target surfaces whose
     * memory the trace accounts for since the window began (first event seen) */
    struct known_surface {
        uint32_t resource_id, level, layer, is_zs;
    } * known;
    uint32_t nknown, cap_known;
    struct tbr_hook_surface fb_zs; /* zsbuf of the latest framebuffer hook (map valid during its clear) */
    uint64_t surface_inits, surface_init_bytes;

    /* the reference PNG of the last frame, compressed on its own thread while the
     * replay goes on (one at a time; waited for before the next and at the end) */
    struct png_job {
        pthread_t thread;
        int running;
        char path[PATH_MAX + 64];
        uint8_t *px;
        uint32_t w, h;
        int rc;
        char err[TBR_PNG_ERR_SIZE];
    } png;
} S;

/* ------------------------------------------------------------------------ */
/* status / errors                                                          */
/* ------------------------------------------------------------------------ */

static void write_status(void);
static void texture_written(uint32_t res, uint32_t level);

static void fail(const char *fmt, ...)
{
    if (S.error[0] == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(S.error, sizeof(S.error), fmt, ap);
        va_end(ap);
        fprintf(stderr, "tbr_functional: error: %s\n", S.error);
    }
    S.ok = 0;
}

static void note_unsupported(const char *name)
{
    for (int i = 0; i < S.n_unsupported; i++) {
        if (strcmp(S.unsupported[i].name, name) == 0) {
            S.unsupported[i].count++;
            return;
        }
    }
    if (S.n_unsupported < MAX_UNSUPPORTED) {
        snprintf(S.unsupported[S.n_unsupported].name, sizeof(S.unsupported[0].name), "%s", name);
        S.unsupported[S.n_unsupported].count = 1;
        S.n_unsupported++;
    }
}

static void write_status(void)
{
    if (!S.status_path[0]) return;
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof(tmp), "%s.tmp", S.status_path);
    FILE *f = fopen(tmp, "w");
    if (!f) return;
    fprintf(f, "status=%s\n", S.ok ? "ok" : "error");
    fprintf(f, "error=%s\n", S.error);
    fprintf(f, "gl_renderer=%s\n", S.gl_renderer);
    fprintf(f, "gl_version=%s\n", S.gl_version);
    fprintf(f, "frames_window=%llu-%llu\n", (unsigned long long)S.first, (unsigned long long)S.last);
    fprintf(f, "swaps_seen=%llu\n", (unsigned long long)S.frame);
    fprintf(f, "frames_recorded=%llu\n", (unsigned long long)S.frames_recorded);
    if (S.frames_recorded) {
        fprintf(f, "first_frame=%llu\n", (unsigned long long)S.recorded_first);
        fprintf(f, "last_frame=%llu\n", (unsigned long long)S.recorded_last);
    } else {
        fprintf(f, "first_frame=\nlast_frame=\n");
    }
    fprintf(f, "width=%u\nheight=%u\n", S.width, S.height);
    const struct counters *c = &S.total;
    fprintf(f, "draws=%llu\ninternal_draws=%llu\nprims=%llu\nculled_prims=%llu\n", (unsigned long long)c->draws,
            (unsigned long long)c->internal_draws, (unsigned long long)c->prims, (unsigned long long)c->culled_prims);
    fprintf(f, "quads=%llu\nshaded_quads=%llu\nshaded_fragments=%llu\nblended_fragments=%llu\n",
            (unsigned long long)c->quads, (unsigned long long)c->shaded_quads, (unsigned long long)c->shaded_fragments,
            (unsigned long long)c->blended_fragments);
    fprintf(f, "clears=%llu\nuploads=%llu\nupload_bytes=%llu\nshaders_created=%llu\n", (unsigned long long)c->clears,
            (unsigned long long)c->uploads, (unsigned long long)c->upload_bytes,
            (unsigned long long)c->shaders_created);
    fprintf(f, "tile_events=%llu\nflushes=%llu\n", (unsigned long long)c->tiles, (unsigned long long)c->flushes);
    fprintf(f, "clear_writes=%llu\nsurface_checks=%llu\n", (unsigned long long)S.clear_writes,
            (unsigned long long)S.surface_checks);
    fprintf(f, "packed_fragments=%llu\nexact_values=%llu\nshadow_tiles_max=%llu\n",
            (unsigned long long)S.cs.packed_fragments, (unsigned long long)S.cs.exact_values,
            (unsigned long long)S.cs.shadow_tiles_max);
    fprintf(f, "fs_path_executions=%llu\nfs_path_records=%llu\n", (unsigned long long)S.path_execs,
            (unsigned long long)S.path_records);
    fprintf(f, "texel_fetches=%llu\ntexels=%llu\n", (unsigned long long)c->texel_fetches,
            (unsigned long long)c->texels);
    fprintf(f, "vertices_fetched=%llu\nvertices_shaded=%llu\nvertex_groups=%llu\n",
            (unsigned long long)c->vertices_fetched, (unsigned long long)c->vertices,
            (unsigned long long)c->vertex_groups);
    fprintf(f, "vs_texel_fetches=%llu\nvs_texels=%llu\n", (unsigned long long)c->vs_texel_fetches,
            (unsigned long long)c->vs_texels);
    fprintf(f, "surface_inits=%llu\nsurface_init_bytes=%llu\n", (unsigned long long)S.surface_inits,
            (unsigned long long)S.surface_init_bytes);
    {
        static const tbr_cc_stats none;
        const tbr_cc_stats *cs = S.cc ? tbr_cc_stats_get(S.cc) : &none;
        fprintf(f, "computed_colors=%d\nvertex_hashes=%d\n", S.compute_colors, S.vertex_hashes);
        fprintf(f,
                "quads_colors_computed=%llu\nquads_colors_recorded=%llu\n"
                "quads_colors_mismatched=%llu\n",
                (unsigned long long)cs->quads_computed, (unsigned long long)cs->quads_recorded,
                (unsigned long long)cs->quads_mismatched);
        fprintf(f, "draws_computable=%llu\ndraws_not_computable=%llu\nfirst_not_computable=%s\n",
                (unsigned long long)cs->draws_computable, (unsigned long long)cs->draws_not_computable,
                cs->first_reason);
        fprintf(f, "texture_inits=%llu\ntexture_init_bytes=%llu\n", (unsigned long long)S.texture_inits,
                (unsigned long long)S.texture_init_bytes);
        fprintf(f,
                "derived_texels=%d\nquads_texels_derived=%llu\nquads_texels_recorded=%llu\n"
                "quads_texels_mismatched=%llu\n",
                S.derive_texels, (unsigned long long)S.quads_texels_derived,
                (unsigned long long)S.quads_texels_recorded, (unsigned long long)S.quads_texels_mismatched);
    }
    fprintf(f, "unsupported=");
    for (int i = 0; i < S.n_unsupported; i++)
        fprintf(f, "%s%s:%llu", i ? "," : "", S.unsupported[i].name, (unsigned long long)S.unsupported[i].count);
    fprintf(f, "\n");
    fprintf(f, "partial_last_frame=%d\n", S.partial_last_frame);
    fprintf(f, "trailing_records_dropped=%llu\n", (unsigned long long)S.trailing_dropped);
    fprintf(f, "activity_trace=%s\n", S.writer_closed ? S.trace_path : "");
    fprintf(f, "contexts=%d\n", S.contexts);
    fprintf(f, "contexts_created=%d\n", S.contexts_created);
    fprintf(f, "context_switches=%llu\n", (unsigned long long)S.context_switches);
    fprintf(f, "thread_switches=%llu\n", (unsigned long long)S.thread_switches);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        unlink(tmp);
        return;
    }
    rename(tmp, S.status_path);
}

/* ------------------------------------------------------------------------ */
/* configuration                                                            */
/* ------------------------------------------------------------------------ */

static void finalize(void);

static void at_exit(void) { finalize(); }

static int parse_frames(const char *s, uint64_t *a, uint64_t *b)
{
    char *end;
    *a = 0;
    *b = UINT64_MAX;
    if (!s || !*s) return 0;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (end == s || errno) return -1;
    *a = x;
    if (*end == 0) {
        *b = x;
        return 0;
    }
    if (*end != '-') return -1;
    s = end + 1;
    if (*s == 0) return 0;
    unsigned long long y = strtoull(s, &end, 10);
    if (end == s || *end || errno || y < x) return -1;
    *b = y;
    return 0;
}

static void init_once(void)
{
    if (S.initialized) return;
    S.initialized = 1;
    S.ok = 1;
    tbr_buf_init(&S.buf);
    tbr_buf_init(&S.quads);
    tbr_buf_init(&S.tx_buf);
    tbr_buf_init(&S.last_pass);
    tbr_buf_init(&S.path_arena);
    tbr_buf_init(&S.pending);
    const char *out = getenv("TBR_OUT_DIR");
    if (!out || !*out) {
        fprintf(stderr, "tbr_functional: TBR_OUT_DIR is not set; nothing is recorded\n");
        S.ok = 0;
        return;
    }
    if (strlen(out) + 40 >= sizeof(S.out_dir)) {
        fprintf(stderr, "tbr_functional: TBR_OUT_DIR too long\n");
        S.ok = 0;
        return;
    }
    snprintf(S.out_dir, sizeof(S.out_dir), "%s", out);
    snprintf(S.status_path, sizeof(S.status_path), "%s/functional-status.txt", out);
    snprintf(S.trace_path, sizeof(S.trace_path), "%s/activity.tbrt", out);
    char ref[PATH_MAX];
    snprintf(ref, sizeof(ref), "%s/reference", out);
    if ((mkdir(out, 0777) != 0 && errno != EEXIST) || (mkdir(ref, 0777) != 0 && errno != EEXIST))
        fail("cannot create %s: %s", ref, strerror(errno));
    /* TBR_FLOAT_COLORS=1 (tbr-replay --float-colors): every QUADS color as float, as
     * before schema 3 (for checking the packed coding; same simulated results) */
    const char *fc = getenv("TBR_FLOAT_COLORS");
    S.pack_colors = !(fc && strcmp(fc, "1") == 0);
    /* TBR_RECORD_COLORS=1 (tbr-replay --record-colors): every blended quad's colors in
     * the trace, none computed (docs/trace-records.md "Computed colors") */
    const char *rc = getenv("TBR_RECORD_COLORS");
    S.compute_colors = !(rc && strcmp(rc, "1") == 0);
    if (S.compute_colors && !(S.cc = tbr_cc_create())) S.compute_colors = 0;
    /* TBR_VERTEX_HASHES=1 (tbr-replay --vertex-hashes): VERTICES groups carry out_hash,
     * which nothing in tbr-sim reads (docs/trace-records.md VERTICES) */
    const char *vh = getenv("TBR_VERTEX_HASHES");
    S.vertex_hashes = vh && strcmp(vh, "1") == 0;
    /* TBR_RECORD_TEXELS=1 (tbr-replay --record-texels): every shaded quad's texels in
     * TEXELS records, none derived (docs/trace-records.md "Derived texels") */
    const char *rt = getenv("TBR_RECORD_TEXELS");
    S.derive_texels = S.compute_colors && !(rt && strcmp(rt, "1") == 0);
    /* fault injection for the tests (functional.derived_texels): every N-th compared
     * quad is treated as if its texels differed, so records of both kinds alternate */
    const char *inj = getenv("TBR_TEST_TEXEL_REJECT_EVERY");
    S.texel_reject_every = inj ? (uint32_t)strtoul(inj, NULL, 10) : 0;
    if (parse_frames(getenv("TBR_FRAMES"), &S.first, &S.last) != 0)
        fail("TBR_FRAMES='%s' is not A, A-B or A-", getenv("TBR_FRAMES"));
    atexit(at_exit);
    write_status();
}

static int in_window(void) { return S.frame >= S.first && S.frame <= S.last; }

/* ------------------------------------------------------------------------ */
/* writing                                                                  */
/* ------------------------------------------------------------------------ */

/* The LOGICAL frame (per-frame sets and counters) starts with the first record
 * after a swap; the CONTAINER frame is begun only when a significant record
 * (draw, clear, frame end) arrives: until then records wait in S.pending, so
 * that work after the last swap without any draw or clear (context teardown
 * flushes) is dropped instead of forming an extra frame. */
static int ensure_frame(void)
{
    if (!S.ok || S.writer_closed) return -1;
    if (!S.logical_open) {
        S.logical_open = 1;
        memset(&S.frame_cnt, 0, sizeof(S.frame_cnt));
        tbr_idset_clear(&S.resources);
        tbr_idset_clear(&S.shaders);
        tbr_buf_reset(&S.last_pass);
        S.pass_seq = 0;
        S.draw_seq = 0;
        S.npaths = 0;
        tbr_buf_reset(&S.path_arena);
        tbr_buf_reset(&S.pending);
        S.pending_count = 0;
        if (S.path_buckets) memset(S.path_buckets, 0, S.nbuckets * sizeof(*S.path_buckets));
        /* a swap stored every tile: no float copy from before survives (safety net
         * against tile events missed outside the recorded frames) */
        tbr_cs_drop_all(&S.cs);
    }
    return 0;
}

static int significant(uint16_t type)
{
    return type == TBR_REC_DRAW || type == TBR_REC_CLEAR || type == TBR_REC_FRAME_END || type == TBR_REC_QUADS ||
           type == TBR_REC_PRIM || type == TBR_REC_DRAW_END || type == TBR_REC_PATH;
}

static int open_container_frame(void)
{
    if (!S.writer) {
        char meta[512];
        snprintf(meta, sizeof(meta),
                 "producer=tbr_functional " TBR_VERSION "\nrecords_schema=%d\n"
                 "records_schema_minor=%d\n"
                 "driver=softpipe\nmesa_version=22.3.6\ntile_size=64\n",
                 TBR_RECORDS_SCHEMA_VERSION, TBR_RECORDS_SCHEMA_MINOR);
        tbr_trace_error err;
        /* zstd runs on a second thread while softpipe renders on this one (the replay
         * itself is single-threaded); the file is the same as with inline compression.
         * 4 MiB chunks at zstd level 6 instead of the container defaults (1 MiB, 3): a
         * glmark2 terrain frame 5.17 -> 4.58 MB (-11%; levels 9-12 gain < 1% more), while
         * compressing a frame's ~50 MB stays well under a second next to softpipe's
         * seconds of rendering (docs/verification.md "Activity-trace size"). */
        tbr_trace_writer_options wopts = {.background = 1, .chunk_size = (size_t)4 << 20, .compression_level = 6};
        S.writer = tbr_trace_writer_open_ex(S.trace_path, meta, &wopts, &err);
        if (!S.writer) {
            fail("%s", err.msg);
            return -1;
        }
    }
    if (tbr_trace_writer_begin_frame(S.writer, S.frame) != 0) {
        fail("%s", tbr_trace_writer_error(S.writer));
        return -1;
    }
    S.frame_open = 1;
    /* replay the records that waited for the frame */
    size_t pos = 0;
    while (pos + 6 <= S.pending.len) {
        const uint8_t *h = S.pending.data + pos;
        uint16_t t = (uint16_t)(h[0] | (h[1] << 8));
        uint32_t len = (uint32_t)h[2] | ((uint32_t)h[3] << 8) | ((uint32_t)h[4] << 16) | ((uint32_t)h[5] << 24);
        if (tbr_trace_writer_append(S.writer, t, h + 6, len) != 0) {
            fail("%s", tbr_trace_writer_error(S.writer));
            return -1;
        }
        pos += 6 + (size_t)len;
    }
    tbr_buf_reset(&S.pending);
    S.pending_count = 0;
    return 0;
}

static void append_raw(uint16_t type, const tbr_buf *b)
{
    if (ensure_frame() != 0) return;
    if (!tbr_buf_ok(b)) {
        fail("out of memory encoding a %s record", tbr_rec_type_name(type));
        return;
    }
    if (!S.frame_open) {
        if (!significant(type)) {
            tbr_buf_put_u16(&S.pending, type);
            tbr_buf_put_u32(&S.pending, (uint32_t)b->len);
            tbr_buf_put_bytes(&S.pending, b->data, b->len);
            if (!tbr_buf_ok(&S.pending)) fail("out of memory (pending records)");
            S.pending_count++;
            return;
        }
        if (open_container_frame() != 0) return;
    }
    if (tbr_trace_writer_append_buf(S.writer, type, b) != 0) fail("%s", tbr_trace_writer_error(S.writer));
}

/* Writes the pending fetches of quads before draw ordinal keep_from (closed records) as
 * a TEXELS record; fetches of later quads (the open record) stay pending. Only quads of
 * records that are not derived have fetches here (process_quads copies no others).
 * Pending fetches are tx_fetch[tx_head .. tx_nfetch), in draw-ordinal order. The written
 * prefix is dropped by moving tx_head; the arrays are compacted only once the dropped
 * part outgrows the kept one (this runs after every quads batch, and moving the open
 * record's fetches each time would copy them over and over). */
static void flush_texels(uint32_t keep_from)
{
    uint32_t end = S.tx_head;
    while (end < S.tx_nfetch && S.tx_fetch[end].quad < keep_from) end++;
    if (end == S.tx_head) return;
    for (uint32_t i = S.tx_head; i < end; i++) /* offsets -> pointers (dropped next) */
        S.tx_fetch[i].texels = S.tx_texel + (size_t)(uintptr_t)S.tx_fetch[i].texels;
    tbr_buf_reset(&S.tx_buf);
    if (tbr_rec_texels_encode(&S.tx_buf, S.tx_draw_seq, &S.tx_fetch[S.tx_head], end - S.tx_head) != 0)
        fail("cannot encode a TEXELS record");
    else
        append_raw(TBR_REC_TEXELS, &S.tx_buf);
    S.tx_head = end;
    if (S.tx_head == S.tx_nfetch) {
        S.tx_head = S.tx_nfetch = 0;
        S.tx_ntexel = 0;
    } else if (S.tx_head > S.tx_nfetch - S.tx_head) {
        const size_t off0 = (size_t)(uintptr_t)S.tx_fetch[S.tx_head].texels;
        const uint32_t nkeep = S.tx_nfetch - S.tx_head;
        memmove(S.tx_fetch, &S.tx_fetch[S.tx_head], nkeep * sizeof(*S.tx_fetch));
        for (uint32_t i = 0; i < nkeep; i++)
            S.tx_fetch[i].texels = (const tbr_rec_texel *)((uintptr_t)S.tx_fetch[i].texels - off0);
        memmove(S.tx_texel, &S.tx_texel[off0], (S.tx_ntexel - off0) * sizeof(*S.tx_texel));
        S.tx_ntexel -= off0;
        S.tx_nfetch = nkeep;
        S.tx_head = 0;
    }
}

/* The pending QUADS record becomes a closed one (written once its batch was compared). */
static void close_quads_record(void)
{
    if (!S.quads_count) return;
    if (S.nclosed == S.cap_closed) {
        uint32_t nc = S.cap_closed ? 2 * S.cap_closed : 8;
        struct quads_closed *n = realloc(S.closed, nc * sizeof(*n));
        if (!n) {
            fail("out of memory (QUADS records)");
            return;
        }
        memset(n + S.cap_closed, 0, (nc - S.cap_closed) * sizeof(*n));
        S.closed = n;
        S.cap_closed = nc;
    }
    if (tbr_rec_quads_finish(&S.quads, S.quads_count) != 0) fail("cannot finish a QUADS record");
    struct quads_closed *c = &S.closed[S.nclosed++];
    tbr_buf spare = c->buf; /* buffers are swapped, keeping their memory */
    c->buf = S.quads;
    S.quads = spare;
    tbr_buf_reset(&S.quads);
    c->shaded = S.open_shaded;
    c->fetches = S.open_fetches;
    c->derivable = S.open_derivable;
    S.quads_count = 0;
}

/* Writes the closed QUADS records (all: the pending one too) and the TEXELS of their
 * quads whose texels are not derived. Only once the last batch was compared. */
static void write_quads(int all)
{
    if (all) close_quads_record();
    for (uint32_t i = 0; i < S.nclosed; i++) {
        struct quads_closed *c = &S.closed[i];
        /* flagged only where texels are left out: a record whose quads read none needs no
         * recomputation for them */
        c->derivable = c->derivable && c->fetches > 0;
        if (c->derivable) {
            tbr_rec_quads_set_texels_derived(&c->buf, 1);
            S.quads_texels_derived += c->shaded;
        } else {
            S.quads_texels_recorded += c->shaded;
        }
        append_raw(TBR_REC_QUADS, &c->buf);
    }
    flush_texels(all ? UINT32_MAX : S.quads_count ? S.open_first_ord : (uint32_t)S.draw_end.quads);
    for (uint32_t i = 0; i < S.nclosed; i++) tbr_buf_reset(&S.closed[i].buf);
    S.nclosed = 0;
}

static void process_waiting_batch(void);

static void flush_quads(void)
{
    process_waiting_batch(); /* no texels hook came: the batch read no texel */
    write_quads(1);
}

/* Every non-QUADS record goes through here: pending quads come first. */
static void emit(uint16_t type, int rc)
{
    if (rc != 0) {
        fail("cannot encode a %s record", tbr_rec_type_name(type));
        return;
    }
    flush_quads();
    append_raw(type, &S.buf);
}

static void copy_name(char *dst, size_t size, const char *src) { snprintf(dst, size, "%s", src ? src : ""); }

static void describe_resource(const struct tbr_hook_resource *r)
{
    if (!r->id || tbr_idset_has(&S.resources, r->id)) return;
    if (ensure_frame() != 0) return;
    if (tbr_idset_add(&S.resources, r->id) < 0) {
        fail("out of memory");
        return;
    }
    tbr_rec_resource rec;
    memset(&rec, 0, sizeof(rec));
    rec.id = r->id;
    rec.target = r->target;
    rec.format = r->format;
    rec.width = r->width;
    rec.height = r->height;
    rec.depth = r->depth;
    rec.array_size = r->array_size;
    rec.last_level = r->last_level;
    rec.nr_samples = r->nr_samples;
    rec.bind = r->bind;
    rec.block_bytes = r->block_bytes;
    rec.is_display_target = r->is_display_target;
    copy_name(rec.format_name, sizeof(rec.format_name), r->format_name);
    tbr_buf_reset(&S.buf);
    emit(TBR_REC_RESOURCE, tbr_rec_resource_encode(&S.buf, &rec));
}

/* ------------------------------------------------------------------------ */
/* hooks                                                                    */
/* ------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------ */
/* several contexts and threads (docs/instrumentation.md)                   */
/* ------------------------------------------------------------------------ */

/* The GL context that issued the work being recorded: libglapi's current
 * context of the calling thread (a TLS read). softpipe creates one pipe_context
 * per GL context, and Mesa flushes the old context before it changes the current
 * one, so this names the pipe_context whose hooks run. NULL if libglapi cannot
 * be found (then context switches are not told apart). */
static const void *current_gl_context(void)
{
    if (!S.glapi_resolved) {
        S.glapi_resolved = 1;
        void *h = dlopen("libglapi.so.0", RTLD_LAZY | RTLD_NOLOAD);
        void *sym = dlsym(h ? h : RTLD_DEFAULT, "_glapi_get_context");
        memcpy(&S.glapi_get_context, &sym, sizeof(sym));
        if (h) dlclose(h); /* RTLD_NOLOAD: drops only the reference just taken */
    }
    return S.glapi_get_context ? S.glapi_get_context() : NULL;
}

/* softpipe runs every context's hooks through process-wide state (and so does
 * this library): GL work of two threads at the same time cannot be recorded.
 * Work of several threads one after another (apitrace's retrace) is fine. */
static void check_thread(void)
{
    pthread_t self = pthread_self();
    if (S.have_gl_thread && pthread_equal(S.gl_thread, self)) return;
    if (S.in_draw) {
        fail("GL work from two threads at the same time (a draw of one thread was still being "
             "recorded): softpipe's instrumentation records one thread at a time");
        return;
    }
    if (S.have_gl_thread) S.thread_switches++;
    S.gl_thread = self;
    S.have_gl_thread = 1;
}

static int recording(void)
{
    if (!(S.ok && !S.paused && S.contexts > 0 && in_window() && !S.writer_closed)) return 0;
    check_thread();
    return S.ok;
}

static int h_context_create(const struct tbr_hook_context_info *info)
{
    process_waiting_batch();
    init_once();
    S.contexts++;
    S.contexts_created++;
    if (info && info->driver && strcmp(info->driver, "softpipe") != 0)
        fail("driver is '%s', not softpipe", info->driver);
    return 0;
}

static void held_drop_context(const void *ctx)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < S.nheld; i++)
        if (S.held[i].ctx != ctx) S.held[k++] = S.held[i];
    S.nheld = k;
}

static void h_context_destroy(void)
{
    process_waiting_batch();
    if (S.contexts > 0) S.contexts--;
    /* st/mesa makes the dying context current while it is destroyed; softpipe
     * frees its tile caches without storing them */
    held_drop_context(current_gl_context());
    /* its tile caches are gone; other contexts' were stored when it became current */
    tbr_cs_drop_all(&S.cs);
}

/* Tile ownership across contexts. Each softpipe context has its own tile caches,
 * but a trace (and tbr-sim, which keeps one image per surface) has one copy of
 * each tile: a tile loaded by a context while another one still holds it
 * (rendering into a surface that another context has not flushed, e.g. with
 * EGL_CONTEXT_RELEASE_BEHAVIOR_NONE) has no correct representation. Mesa flushes
 * the old context at every eglMakeCurrent, so ordinary switches never hit this. */
static int same_surface(const struct held_tile *h, const struct tbr_hook_tile *t)
{
    return h->resource_id == t->resource_id && h->level == t->level && h->is_zs == t->is_zs;
}

static void track_tile(const struct tbr_hook_tile *t)
{
    const void *ctx = current_gl_context();
    if (!ctx) return;
    uint32_t i = 0, k = 0;
    switch (t->kind) {
        case TBR_HOOK_TILE_CLEAR_ALL: /* this context's cache of the surface emptied */
            for (i = 0; i < S.nheld; i++)
                if (!(S.held[i].ctx == ctx && same_surface(&S.held[i], t))) S.held[k++] = S.held[i];
            S.nheld = k;
            return;
        case TBR_HOOK_TILE_LOAD:
        case TBR_HOOK_TILE_LOAD_CLEAR:
            for (i = 0; i < S.nheld; i++) {
                struct held_tile *h = &S.held[i];
                if (!same_surface(h, t) || h->layer != t->layer || h->tile_x != t->tile_x || h->tile_y != t->tile_y)
                    continue;
                if (h->ctx != ctx)
                    fail("two GL contexts hold tile (%u,%u) of resource %u in their tile caches at "
                         "once (one renders to a surface the other has not flushed): the trace "
                         "cannot represent two copies of a tile",
                         t->tile_x, t->tile_y, t->resource_id);
                return;
            }
            if (S.nheld == S.cap_held) {
                uint32_t nc = S.cap_held ? S.cap_held * 2 : 256;
                struct held_tile *nh = realloc(S.held, nc * sizeof(*nh));
                if (!nh) {
                    fail("out of memory (tiles)");
                    return;
                }
                S.held = nh;
                S.cap_held = nc;
            }
            S.held[S.nheld++] =
                (struct held_tile){ctx, t->resource_id, t->level, t->layer, t->tile_x, t->tile_y, t->is_zs};
            return;
        default: /* STORE, STORE_CLEAR: the tile leaves the cache */
            for (i = 0; i < S.nheld; i++) {
                struct held_tile *h = &S.held[i];
                if (same_surface(h, t) && h->layer == t->layer && h->tile_x == t->tile_x && h->tile_y == t->tile_y) {
                    S.held[i] = S.held[--S.nheld];
                    return;
                }
            }
            return;
    }
}

/* ------------------------------------------------------------------------ */
/* hot start: initial contents of render targets (SURFACE_INIT)             */
/* ------------------------------------------------------------------------ */

/* A recorded window (--frames A-B) starts after fast-forwarded frames that wrote
 * render targets the trace never shows (ATTILA's hot start, issue #3). The first
 * event of a surface in the window tells whether the simulator needs its memory:
 * CLEAR_ALL overwrites every tile before any is read (LOAD_CLEAR/STORE_CLEAR), so
 * no; anything else (a tile LOAD, a depth-only/stencil-only clear that keeps the
 * other component in memory) reads memory nobody in the trace wrote, so its
 * contents are recorded first. At that moment no tile of the surface is in a
 * tile cache (softpipe flushes at every swap and framebuffer change), so memory
 * is the whole truth. Once per surface per trace: from then on the trace's own
 * events account for every write (CPU uploads into a render target excepted:
 * they are not represented, docs/trace-records.md). */
static struct known_surface *find_known(uint32_t res, uint32_t level, uint32_t layer, uint32_t is_zs)
{
    for (uint32_t i = 0; i < S.nknown; i++)
        if (S.known[i].resource_id == res && S.known[i].level == level && S.known[i].layer == layer &&
            S.known[i].is_zs == is_zs)
            return &S.known[i];
    return NULL;
}

/* Returns 1 if the surface is seen for the first time (and remembers it). */
static int first_use(uint32_t res, uint32_t level, uint32_t layer, uint32_t is_zs)
{
    if (!res || find_known(res, level, layer, is_zs)) return 0;
    if (S.nknown == S.cap_known) {
        uint32_t nc = S.cap_known ? S.cap_known * 2 : 16;
        struct known_surface *nk = realloc(S.known, nc * sizeof(*nk));
        if (!nk) {
            fail("out of memory (surfaces)");
            return 0;
        }
        S.known = nk;
        S.cap_known = nc;
    }
    S.known[S.nknown++] = (struct known_surface){res, level, layer, is_zs};
    return 1;
}

/* Writes the surface's memory as SURFACE_INIT bands (rows of width * block_bytes).
 * replace (optional, block_bytes entries): bytes of each texel replaced by value[]. */
static void emit_surface_init_masked(uint32_t res, uint32_t level, uint32_t layer, uint32_t is_zs, uint32_t format,
                                     uint32_t width, uint32_t height, uint32_t block_bytes, const void *map,
                                     uint32_t stride, const uint8_t *replace, const uint8_t *value)
{
    size_t row = (size_t)width * block_bytes;
    if (!map || !width || !height || !block_bytes || stride < row) {
        note_unsupported("surface_init_unmapped"); /* the simulator starts it from zeros */
        return;
    }
    uint32_t band = (uint32_t)(TBR_REC_SURFACE_INIT_BAND_BYTES / row);
    if (!band) band = 1;
    uint8_t *rows = malloc((size_t)band * row);
    if (!rows) {
        fail("out of memory (SURFACE_INIT)");
        return;
    }
    for (uint32_t y0 = 0; y0 < height && S.ok; y0 += band) {
        uint32_t n = height - y0 < band ? height - y0 : band;
        for (uint32_t y = 0; y < n; y++) /* drop the row padding */
            memcpy(rows + (size_t)y * row, (const uint8_t *)map + (size_t)(y0 + y) * stride, row);
        if (replace)
            for (size_t i = 0; i < (size_t)n * row; i++)
                if (replace[i % block_bytes]) rows[i] = value[i % block_bytes];
        tbr_rec_surface_init r = {
            .resource_id = res,
            .level = level,
            .layer = layer,
            .is_zs = is_zs,
            .format = format,
            .width = width,
            .height = height,
            .block_bytes = block_bytes,
            .y0 = y0,
            .rows = n,
            .data = rows,
        };
        tbr_buf_reset(&S.buf);
        emit(TBR_REC_SURFACE_INIT, tbr_rec_surface_init_encode(&S.buf, &r));
    }
    free(rows);
    S.surface_inits++;
    S.surface_init_bytes += (uint64_t)row * height;
}

static void emit_surface_init(uint32_t res, uint32_t level, uint32_t layer, uint32_t is_zs, uint32_t format,
                              uint32_t width, uint32_t height, uint32_t block_bytes, const void *map, uint32_t stride)
{
    emit_surface_init_masked(res, level, layer, is_zs, format, width, height, block_bytes, map, stride, NULL, NULL);
}

/* Bytes of a combined depth/stencil texel (little-endian) that hold the stencil; 0 if
 * the format is not one of softpipe's combined formats. */
static int stencil_bytes(const char *format_name, uint8_t mask[8])
{
    memset(mask, 0, 8);
    if (!format_name) return 0;
    if (strcmp(format_name, "PIPE_FORMAT_Z24_UNORM_S8_UINT") == 0)
        mask[3] = 1;
    else if (strcmp(format_name, "PIPE_FORMAT_S8_UINT_Z24_UNORM") == 0)
        mask[0] = 1;
    else if (strcmp(format_name, "PIPE_FORMAT_Z32_FLOAT_S8X24_UINT") == 0)
        mask[4] = 1;
    else
        return 0;
    return 1;
}

static void emit_surface_checks(const struct tbr_hook_framebuffer *fb);

static void h_framebuffer(const struct tbr_hook_framebuffer *fb)
{
    process_waiting_batch();
    if (!recording()) return;
    if (ensure_frame() != 0) return;
    S.fb_zs = fb->zsbuf;
    S.fb_height = fb->height;
    tbr_cs_set_nr_cbufs(&S.cs, fb->nr_cbufs);
    for (uint32_t i = 0; i < fb->nr_cbufs && i < TBR_REC_MAX_CBUFS; i++) {
        const struct tbr_hook_surface *cb = &fb->cbufs[i];
        /* packed in the view's format only where it is the resource's too: tbr-sim
         * converts with the resource's (RESOURCE record) */
        const int same = cb->format_name && cb->res.format_name && strcmp(cb->format_name, cb->res.format_name) == 0;
        tbr_cs_set_cbuf(&S.cs, i, cb->valid != 0, cb->res.id, cb->level, cb->first_layer, cb->last_layer,
                        same ? cb->format_name : NULL);
    }
    tbr_rec_render_pass rp;
    memset(&rp, 0, sizeof(rp));
    rp.width = fb->width;
    rp.height = fb->height;
    rp.layers = fb->layers;
    rp.samples = fb->samples;
    rp.nr_cbufs = fb->nr_cbufs > TBR_REC_MAX_CBUFS ? TBR_REC_MAX_CBUFS : fb->nr_cbufs;
    const struct tbr_hook_surface *in[TBR_REC_MAX_CBUFS + 1];
    tbr_rec_surface *out[TBR_REC_MAX_CBUFS + 1];
    uint32_t n = 0;
    for (uint32_t i = 0; i < rp.nr_cbufs; i++) {
        in[n] = &fb->cbufs[i];
        out[n++] = &rp.cbufs[i];
    }
    in[n] = &fb->zsbuf;
    out[n++] = &rp.zsbuf;
    for (uint32_t i = 0; i < n; i++) {
        if (!in[i]->valid) continue;
        out[i]->valid = 1;
        out[i]->resource_id = in[i]->res.id;
        out[i]->format = in[i]->format;
        out[i]->level = in[i]->level;
        out[i]->first_layer = in[i]->first_layer;
        out[i]->last_layer = in[i]->last_layer;
        out[i]->width = in[i]->width;
        out[i]->height = in[i]->height;
    }
    rp.is_default = rp.nr_cbufs > 0 && fb->cbufs[0].valid && fb->cbufs[0].res.is_display_target;
    /* Same binding as the current pass, issued by the same GL context? (compare
     * encodings without seq). A switch of context ends the pass even with the same
     * binding: Mesa flushes the old context (its tile caches are stored), as a TBR
     * driver submits and resolves at a context switch. */
    tbr_buf_reset(&S.buf);
    if (tbr_rec_render_pass_encode(&S.buf, &rp) != 0) {
        fail("cannot encode a RENDER_PASS record");
        return;
    }
    const void *ctx = current_gl_context();
    int switched = S.last_pass.len > 0 && ctx != S.pass_ctx;
    if (!switched && S.last_pass.len == S.buf.len && memcmp(S.last_pass.data, S.buf.data, S.buf.len) == 0) return;
    if (switched) S.context_switches++;
    S.pass_ctx = ctx;
    tbr_buf_reset(&S.last_pass);
    tbr_buf_put_bytes(&S.last_pass, S.buf.data, S.buf.len);
    for (uint32_t i = 0; i < n; i++)
        if (in[i]->valid) describe_resource(&in[i]->res);
    rp.seq = S.pass_seq++;
    tbr_buf_reset(&S.buf);
    emit(TBR_REC_RENDER_PASS, tbr_rec_render_pass_encode(&S.buf, &rp));
    emit_surface_checks(fb);
}

/* SURFACE_CHECK (records minor 4): when a pass binds a color render target that the
 * window has written before and whose tiles no softpipe tile cache holds (its memory is
 * then complete), the crc32 of that memory, for tbr-sim to compare with its own image:
 * render targets that reach the window only through texture sampling are otherwise
 * never checked. */
static int surface_tiles_held(uint32_t res, uint32_t level, uint32_t layer)
{
    for (uint32_t i = 0; i < S.nheld; i++)
        if (!S.held[i].is_zs && S.held[i].resource_id == res && S.held[i].level == level && S.held[i].layer == layer)
            return 1;
    return 0;
}

static void emit_surface_checks(const struct tbr_hook_framebuffer *fb)
{
    for (uint32_t i = 0; i < fb->nr_cbufs && i < TBR_REC_MAX_CBUFS; i++) {
        const struct tbr_hook_surface *s = &fb->cbufs[i];
        if (!s->valid || !s->map || !s->width || !s->height || !s->res.block_bytes || s->res.block_bytes > 16 ||
            !find_known(s->res.id, s->level, s->first_layer, 0) ||
            surface_tiles_held(s->res.id, s->level, s->first_layer))
            continue;
        uLong crc = crc32(0L, Z_NULL, 0);
        const uint8_t *row = s->map;
        for (uint32_t y = 0; y < s->height; y++, row += s->stride)
            crc = crc32(crc, row, (uInt)(s->width * s->res.block_bytes));
        tbr_rec_surface_check r = {.resource_id = s->res.id,
                                   .level = s->level,
                                   .layer = s->first_layer,
                                   .width = s->width,
                                   .height = s->height,
                                   .block_bytes = s->res.block_bytes,
                                   .crc = (uint32_t)crc};
        S.surface_checks++;
        tbr_buf_reset(&S.buf);
        emit(TBR_REC_SURFACE_CHECK, tbr_rec_surface_check_encode(&S.buf, &r));
    }
}

static void h_clear(const struct tbr_hook_clear *c)
{
    process_waiting_batch();
    if (!recording()) return;
    tbr_rec_clear r;
    memset(&r, 0, sizeof(r));
    r.buffers = c->buffers;
    memcpy(r.color_f, c->color_f, sizeof(r.color_f));
    memcpy(r.color_ui, c->color_ui, sizeof(r.color_ui));
    r.depth = c->depth;
    r.stencil = c->stencil;
    r.zs_packed = c->zs_packed;
    r.zs_partial = c->zs_partial;
    r.has_scissor = c->has_scissor;
    memcpy(r.scissor, c->scissor, sizeof(r.scissor));
    /* A depth-only or stencil-only clear of a combined buffer keeps the other
     * component of memory: the first such use of the surface needs its contents.
     * softpipe calls the framebuffer hook right before this one (S.fb_zs is fresh). */
    const struct tbr_hook_surface *zs = &S.fb_zs;
    if (c->zs_partial && zs->valid && first_use(zs->res.id, zs->level, zs->first_layer, 1)) {
        /* The component being cleared is recorded as its cleared value (the clear that
         * follows writes it anyway): glmark2-style depth-only clears then leave a
         * uniform, nearly free record instead of the previous frame's depth. */
        uint8_t st[8], replace[8], value[8];
        int known = stencil_bytes(zs->res.format_name, st) && zs->res.block_bytes <= 8;
        for (int i = 0; i < 8; i++) {
            int stencil = st[i];
            replace[i] = (uint8_t)(known && ((c->buffers & 1u) ? !stencil : stencil) &&
                                   (stencil || i < 4)); /* Z32F_S8X24: bytes 5-7 unused */
            value[i] = (uint8_t)(c->zs_packed >> (8 * i));
        }
        emit_surface_init_masked(zs->res.id, zs->level, zs->first_layer, 1, zs->res.format, zs->width, zs->height,
                                 zs->res.block_bytes, zs->map, zs->stride, known ? replace : NULL, value);
    }
    /* softpipe then writes the cleared component into memory (util_clear_depth_stencil
     * maps the surface): that transfer's UPLOAD belongs to this clear */
    S.zs_clear_write_res = c->zs_partial && zs->valid ? zs->res.id + 1 : 0;
    S.frame_cnt.clears++;
    S.total.clears++;
    tbr_buf_reset(&S.buf);
    emit(TBR_REC_CLEAR, tbr_rec_clear_encode(&S.buf, &r));
}

static void h_upload(const struct tbr_hook_upload *u)
{
    process_waiting_batch();
    if (!recording()) return;
    if (ensure_frame() != 0) return;
    describe_resource(&u->res);
    tbr_rec_upload r;
    memset(&r, 0, sizeof(r));
    r.resource_id = u->res.id;
    r.level = u->level;
    memcpy(r.box, u->box, sizeof(r.box));
    r.bytes = u->bytes;
    /* softpipe's tile-cache write-back is rendering the trace shows (tile events),
     * not new contents the simulator lacks */
    if (!(u->flags & TBR_HOOK_UPLOAD_TILE_CACHE)) texture_written(u->res.id, u->level);
    if (S.zs_clear_write_res && S.zs_clear_write_res == u->res.id + 1) {
        r.flags = TBR_REC_UPLOAD_CLEAR_WRITE;
        S.clear_writes++;
    } else {
        S.total.uploads++;
        S.total.upload_bytes += u->bytes;
    }
    S.zs_clear_write_res = 0;
    tbr_buf_reset(&S.buf);
    emit(TBR_REC_UPLOAD, tbr_rec_upload_encode(&S.buf, &r));
}

static void note_fs_write_all(uint32_t id, int on)
{
    for (uint32_t i = 0; i < S.nfs_wa; i++)
        if (S.fs_wa[i].id == id) {
            S.fs_wa[i].on = on;
            return;
        }
    if (S.nfs_wa == S.cap_fs_wa) {
        uint32_t nc = S.cap_fs_wa ? 2 * S.cap_fs_wa : 64;
        struct fs_write_all *n = realloc(S.fs_wa, nc * sizeof(*n));
        if (!n) {
            fail("out of memory (shaders)");
            return;
        }
        S.fs_wa = n;
        S.cap_fs_wa = nc;
    }
    S.fs_wa[S.nfs_wa++] = (struct fs_write_all){id, on};
}

static int fs_write_all(uint32_t id)
{
    for (uint32_t i = 0; i < S.nfs_wa; i++)
        if (S.fs_wa[i].id == id) return S.fs_wa[i].on;
    return 0;
}

static void h_shader(const struct tbr_hook_shader *s)
{
    process_waiting_batch();
    if (!recording()) return;
    if (ensure_frame() != 0) return;
    if (s->created) {
        tbr_rec_shader c;
        memset(&c, 0, sizeof(c));
        c.id = s->id;
        c.stage = s->stage;
        c.internal = s->internal ? 1 : 0;
        c.num_tokens = s->num_tokens;
        c.num_instructions = s->num_instructions;
        c.text_len = s->text ? (uint32_t)strlen(s->text) : 0;
        S.total.shaders_created++;
        tbr_buf_reset(&S.buf);
        emit(TBR_REC_SHADER_CREATE, tbr_rec_shader_create_encode(&S.buf, &c));
        return;
    }
    if (tbr_idset_add(&S.shaders, s->id) < 0) {
        fail("out of memory");
        return;
    }
    tbr_rec_shader r;
    memset(&r, 0, sizeof(r));
    r.id = s->id;
    r.stage = s->stage;
    r.internal = s->internal ? 1 : 0;
    r.num_tokens = s->num_tokens;
    r.num_instructions = s->num_instructions;
    r.parent_id = s->parent_id;
    r.text = s->text;
    r.text_len = s->text ? (uint32_t)strlen(s->text) : 0;
    if (s->stage == TBR_HOOK_STAGE_FS) {
        note_fs_write_all(s->id, s->text && strstr(s->text, "PROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1"));
        if (S.compute_colors) tbr_cc_shader(S.cc, s->id, s->text);
    }
    tbr_buf_reset(&S.buf);
    emit(TBR_REC_SHADER, tbr_rec_shader_encode(&S.buf, &r));
}

static int h_shader_known(uint32_t id)
{
    /* Outside recording, claim it is known so that Mesa does not dump text. */
    if (!recording()) return 1;
    if (!S.logical_open) return 0;
    return tbr_idset_has(&S.shaders, id);
}

static void fill_constbufs(tbr_rec_constbuf *out, const struct tbr_hook_constbuf *in)
{
    for (uint32_t i = 0; i < TBR_REC_MAX_CONSTBUFS; i++) {
        out[i].data = in[i].data;
        out[i].size = in[i].data ? in[i].size : 0;
    }
}

/* ---- sampled textures for computed colors --------------------------------- */
/* tbr-sim computes a quad's colors from the memory of the textures it samples. It
 * holds render targets it rendered itself (and those SURFACE_INIT gave it); any
 * other sampled level (CPU uploads, or contents from before the recorded window) is
 * given to it as SURFACE_INIT bands before the first draw that samples it, and again
 * after every upload into it. */
static struct tex_known *find_tex(uint32_t res, uint32_t level, uint32_t layer)
{
    for (uint32_t i = 0; i < S.ntex; i++)
        if (S.tex[i].resource_id == res && S.tex[i].level == level && S.tex[i].layer == layer) return &S.tex[i];
    return NULL;
}

static struct tex_known *get_tex(uint32_t res, uint32_t level, uint32_t layer)
{
    struct tex_known *t = find_tex(res, level, layer);
    if (t) return t;
    if (S.ntex == S.cap_tex) {
        uint32_t nc = S.cap_tex ? 2 * S.cap_tex : 32;
        struct tex_known *n = realloc(S.tex, nc * sizeof(*n));
        if (!n) return NULL;
        S.tex = n;
        S.cap_tex = nc;
    }
    t = &S.tex[S.ntex++];
    memset(t, 0, sizeof(*t));
    t->resource_id = res;
    t->level = level;
    t->layer = layer;
    t->pass_sampled = UINT32_MAX;
    return t;
}

/* A CPU write into (res, level): the simulator's copy, if any, is stale. */
static void texture_written(uint32_t res, uint32_t level)
{
    for (uint32_t i = 0; i < S.ntex; i++)
        if (S.tex[i].resource_id == res && S.tex[i].level == level) {
            S.tex[i].given = 0;
            S.tex[i].dirty = 1;
        }
    if (!find_tex(res, level, 0)) {
        struct tex_known *t = get_tex(res, level, 0);
        if (t) t->dirty = 1;
    }
}

static void give_sampled_textures(const struct tbr_hook_draw *d)
{
    const uint32_t *units;
    uint32_t n = tbr_cc_draw_units(S.cc, &units);
    for (uint32_t k = 0; k < n; k++) {
        const struct tbr_hook_texture *t = &d->textures[units[k]];
        for (uint32_t l = tbr_sampler_lowest_level(t->first_level); l <= t->last_level && l < t->num_levels; l++) {
            const uint32_t layer = t->first_layer;
            struct tex_known *tk = get_tex(t->res.id, l, layer);
            if (!tk) {
                tbr_cc_disable_draw(S.cc, "out of memory (textures)");
                return;
            }
            /* rendered in the trace (its tile events are accounted for) and not written
             * by the CPU since: the simulator has it */
            const int has =
                tk->given || (!tk->dirty && (find_known(t->res.id, l, layer, 0) || find_known(t->res.id, l, layer, 1)));
            if (!has) {
                /* a SURFACE_INIT applies from the start of its pass: not if an earlier
                 * draw of this pass sampled other contents of it */
                if (tk->pass_sampled == S.pass_seq && tk->frame_sampled == (uint32_t)S.frame) {
                    tbr_cc_disable_draw(S.cc, "texture changed within a render pass");
                    return;
                }
                uint32_t w = t->res.width >> l, h = t->res.height >> l;
                w = w ? w : 1;
                h = h ? h : 1;
                const uint8_t *map = (const uint8_t *)t->data + t->level_offset[l] + (size_t)layer * t->img_stride[l];
                const uint64_t before = S.surface_inits, before_bytes = S.surface_init_bytes;
                emit_surface_init(t->res.id, l, layer, 0, t->res.format, w, h, t->res.block_bytes, t->data ? map : NULL,
                                  t->stride[l]);
                if (S.surface_inits == before) {
                    tbr_cc_disable_draw(S.cc, "texture memory unavailable");
                    return;
                }
                /* counted apart from the hot-start SURFACE_INITs of render targets */
                S.surface_inits = before;
                S.surface_init_bytes = before_bytes;
                S.texture_inits++;
                S.texture_init_bytes += (uint64_t)w * h * t->res.block_bytes;
                tk->given = 1;
                tk->dirty = 0;
            }
            tk->pass_sampled = S.pass_seq;
            tk->frame_sampled = (uint32_t)S.frame;
        }
    }
}

static tbr_rec_draw draw_rec; /* large: keep off the stack */
static tbr_rec_vs_textures vs_tex_rec;
static uint32_t fill_textures(tbr_rec_texture *out, const struct tbr_hook_texture *in, uint32_t n);

static void h_draw_begin(const struct tbr_hook_draw *d)
{
    process_waiting_batch();
    if (!recording()) return;
    if (ensure_frame() != 0) return;
    tbr_rec_draw *r = &draw_rec;
    memset(r, 0, sizeof(*r));
    r->seq = S.draw_seq++;
/* clang-format off */
#define COPY(name) r->name = d->name;
    COPY(mode) COPY(index_size) COPY(start) COPY(count) COPY(instance_count)
    COPY(start_instance) COPY(min_index) COPY(max_index) COPY(vs_id) COPY(fs_id)
    COPY(internal) COPY(early_z) COPY(fs_uses_kill) COPY(fs_writes_z) COPY(fs_writes_stencil)
    COPY(flatshade) COPY(flatshade_first) COPY(light_twoside) COPY(front_ccw) COPY(cull_face)
    COPY(fill_front) COPY(fill_back) COPY(scissor_enable) COPY(half_pixel_center)
    COPY(bottom_edge_rule) COPY(multisample) COPY(rasterizer_discard) COPY(depth_clip_near)
    COPY(depth_clip_far) COPY(clip_halfz) COPY(point_quad_rasterization)
    COPY(sprite_coord_enable) COPY(sprite_coord_mode) COPY(line_smooth) COPY(poly_smooth)
    COPY(poly_stipple_enable) COPY(line_stipple_enable) COPY(offset_tri) COPY(offset_line)
    COPY(offset_point) COPY(offset_units) COPY(offset_scale) COPY(offset_clamp)
    COPY(point_size) COPY(line_width) COPY(depth_enabled) COPY(depth_writemask)
    COPY(depth_func) COPY(alpha_enabled) COPY(alpha_func) COPY(depth_bounds_test)
    COPY(depth_bounds_min) COPY(depth_bounds_max) COPY(independent_blend_enable)
    COPY(logicop_enable) COPY(logicop_func) COPY(dither) COPY(alpha_to_coverage)
    COPY(alpha_to_one) COPY(zs_format) COPY(num_vs_textures) COPY(index_bias)
#undef COPY
        /* clang-format on */
        r->alpha_ref = d->alpha_ref;
    r->nr_cbufs = d->nr_cbufs > TBR_REC_MAX_CBUFS ? TBR_REC_MAX_CBUFS : d->nr_cbufs;
    for (int i = 0; i < 2; i++) {
        r->stencil[i].enabled = d->stencil[i].enabled;
        r->stencil[i].func = d->stencil[i].func;
        r->stencil[i].fail_op = d->stencil[i].fail_op;
        r->stencil[i].zpass_op = d->stencil[i].zpass_op;
        r->stencil[i].zfail_op = d->stencil[i].zfail_op;
        r->stencil[i].valuemask = d->stencil[i].valuemask;
        r->stencil[i].writemask = d->stencil[i].writemask;
        r->stencil[i].ref = d->stencil[i].ref;
    }
    for (uint32_t i = 0; i < TBR_REC_MAX_CBUFS; i++) {
        r->rt[i].blend_enable = d->rt[i].blend_enable;
        r->rt[i].rgb_func = d->rt[i].rgb_func;
        r->rt[i].rgb_src = d->rt[i].rgb_src;
        r->rt[i].rgb_dst = d->rt[i].rgb_dst;
        r->rt[i].alpha_func = d->rt[i].alpha_func;
        r->rt[i].alpha_src = d->rt[i].alpha_src;
        r->rt[i].alpha_dst = d->rt[i].alpha_dst;
        r->rt[i].colormask = d->rt[i].colormask;
    }
    memcpy(r->blend_color, d->blend_color, sizeof(r->blend_color));
    memcpy(r->viewport_scale, d->viewport_scale, sizeof(r->viewport_scale));
    memcpy(r->viewport_translate, d->viewport_translate, sizeof(r->viewport_translate));
    memcpy(r->scissor, d->scissor, sizeof(r->scissor));
    for (uint32_t i = 0; i < r->nr_cbufs; i++) r->cbuf_format[i] = d->cbuf_format[i];
    r->num_textures = fill_textures(r->textures, d->textures, d->num_textures);
    fill_constbufs(r->vs_const, d->vs_const);
    fill_constbufs(r->fs_const, d->fs_const);
    copy_name(r->unsupported, sizeof(r->unsupported), d->unsupported);
    if (d->unsupported && d->unsupported[0]) {
        char tmp[256];
        copy_name(tmp, sizeof(tmp), d->unsupported);
        for (char *tok = strtok(tmp, ","); tok; tok = strtok(NULL, ",")) note_unsupported(tok);
    }
    /* vertex texturing (minor 3): RESOURCE records before the DRAW, VS_TEXTURES after it */
    tbr_rec_vs_textures *vt = &vs_tex_rec;
    memset(vt, 0, sizeof(*vt));
    vt->draw_seq = r->seq;
    vt->num_textures = fill_textures(vt->textures, d->vs_textures, d->num_vs_textures);
    S.frame_cnt.draws++;
    S.total.draws++;
    if (d->internal) S.total.internal_draws++;
    S.in_draw = 1;
    memset(&S.draw_end, 0, sizeof(S.draw_end));
    S.draw_end.seq = r->seq;
    S.quads_cbufs = r->nr_cbufs;
    S.quads_packed = tbr_cs_begin_draw(&S.cs, r, S.pack_colors);
    S.draw_write_all = fs_write_all(r->fs_id);
    S.zs_clear_write_res = 0;
    if (S.compute_colors && tbr_cc_begin_draw(S.cc, d, r->textures, r->num_textures, S.fb_height))
        give_sampled_textures(d);
    tbr_buf_reset(&S.buf);
    emit(TBR_REC_DRAW, tbr_rec_draw_encode(&S.buf, r));
    if (vt->num_textures) {
        tbr_buf_reset(&S.buf);
        emit(TBR_REC_VS_TEXTURES, tbr_rec_vs_textures_encode(&S.buf, vt));
    }
}

/* Bound sampler views of one stage -> record entries (describing their resources);
 * returns the number of entries. */
static uint32_t fill_textures(tbr_rec_texture *out, const struct tbr_hook_texture *in, uint32_t n)
{
    uint32_t nt = 0;
    for (uint32_t i = 0; i < n && i < TBR_HOOK_MAX_TEXTURES; i++) {
        const struct tbr_hook_texture *t = &in[i];
        if (!t->valid) continue;
        describe_resource(&t->res);
        tbr_rec_texture *o = &out[nt++];
        o->unit = i;
        o->resource_id = t->res.id;
        o->view_format = t->view_format;
        o->first_level = t->first_level;
        o->last_level = t->last_level;
        o->first_layer = t->first_layer;
        o->last_layer = t->last_layer;
        memcpy(o->swizzle, t->swizzle, sizeof(o->swizzle));
        o->has_sampler = t->has_sampler;
        o->wrap_s = t->wrap_s;
        o->wrap_t = t->wrap_t;
        o->wrap_r = t->wrap_r;
        o->min_img_filter = t->min_img_filter;
        o->min_mip_filter = t->min_mip_filter;
        o->mag_img_filter = t->mag_img_filter;
        o->compare_mode = t->compare_mode;
        o->compare_func = t->compare_func;
        o->normalized_coords = t->normalized_coords;
        o->seamless_cube_map = t->seamless_cube_map;
        o->max_anisotropy = t->max_anisotropy;
        o->lod_bias = t->lod_bias;
        o->min_lod = t->min_lod;
        o->max_lod = t->max_lod;
        memcpy(o->border_color, t->border_color, sizeof(o->border_color));
    }
    return nt;
}

static void h_draw_end(void)
{
    process_waiting_batch(); /* a quads batch followed by no texels hook */
    if (!S.in_draw) return;
    S.in_draw = 0;
    if (!recording()) return;
    tbr_buf_reset(&S.buf);
    emit(TBR_REC_DRAW_END, tbr_rec_draw_end_encode(&S.buf, &S.draw_end));
}

static tbr_rec_prim prim_rec;

static void h_prim(const struct tbr_hook_prim *p)
{
    process_waiting_batch();
    if (!recording() || !S.in_draw) return;
    tbr_rec_prim *r = &prim_rec;
    r->draw_seq = S.draw_end.seq;
    r->index = p->index;
    r->kind = p->kind;
    r->flags = p->flags;
    r->det = p->det;
    r->nr_attrs = p->nr_attrs > TBR_REC_MAX_ATTRIBS ? TBR_REC_MAX_ATTRIBS : p->nr_attrs;
    /* Components the fragment shader does not declare are written as 0: softpipe leaves
     * those it was not given (a vec2 varying's z, w) uninitialized, so their bytes
     * changed from replay to replay. Colors are computed from exactly these values. */
    unsigned keep[TBR_REC_MAX_ATTRIBS];
    for (uint32_t a = 0; a < r->nr_attrs; a++) keep[a] = S.compute_colors ? tbr_cc_attr_components(S.cc, a) : 0xfu;
    for (uint32_t v = 0; v < p->kind && v < 3; v++)
        for (uint32_t a = 0; a < r->nr_attrs; a++)
            for (int k = 0; k < 4; k++) r->v[v][a][k] = (keep[a] >> k) & 1u ? p->v[v][a][k] : 0.0f;
    S.draw_end.prims++;
    S.frame_cnt.prims++;
    S.total.prims++;
    if (p->flags & TBR_HOOK_PRIM_CULLED) S.total.culled_prims++;
    if (S.compute_colors) {
        struct tbr_hook_prim as_recorded = *p;
        as_recorded.nr_attrs = r->nr_attrs;
        for (uint32_t v = 0; v < 3; v++) as_recorded.v[v] = (const float(*)[4])r->v[v];
        tbr_cc_prim(S.cc, &as_recorded);
    }
    tbr_buf_reset(&S.buf);
    emit(TBR_REC_PRIM, tbr_rec_prim_encode(&S.buf, r));
}

static unsigned popcount4(uint32_t m) { return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1); }

/* softpipe's texel k of a batch in slot order (order: NULL if t already is) */
static inline const struct tbr_hook_texel *hook_texel_at(const struct tbr_hook_texel *t, const uint32_t *order,
                                                         uint32_t k)
{
    return &t[order ? order[k] : k];
}

/* End of the fetch starting at texel i (< to): consecutive entries with the same (slot,
 * fetch) are one texture instruction execution, split at TBR_REC_MAX_TEXELS_PER_FETCH
 * (as a TEXELS record holds them). */
static uint32_t hook_fetch_end(const struct tbr_hook_texel *t, const uint32_t *order, uint32_t i, uint32_t to)
{
    const struct tbr_hook_texel *first = hook_texel_at(t, order, i);
    uint32_t j = i + 1;
    while (j < to && hook_texel_at(t, order, j)->slot == first->slot &&
           hook_texel_at(t, order, j)->fetch == first->fetch && j - i < TBR_REC_MAX_TEXELS_PER_FETCH)
        j++;
    return j;
}

/* Appends softpipe's texels k in [from, to) (hook_texel_at) to the pending TEXELS record
 * as fetches of draw ordinal quad (UINT32_MAX: of their slot's quad). */
static int pending_add_texels(uint32_t quad, const struct tbr_hook_texel *t, const uint32_t *order, uint32_t from,
                              uint32_t to)
{
    S.tx_draw_seq = S.draw_end.seq;
    for (uint32_t i = from; i < to;) {
        const struct tbr_hook_texel *first = hook_texel_at(t, order, i);
        const uint32_t j = hook_fetch_end(t, order, i, to);
        if (S.tx_nfetch == S.tx_capfetch) {
            uint32_t nc = S.tx_capfetch ? S.tx_capfetch * 2 : 1024;
            tbr_rec_texfetch *nf = realloc(S.tx_fetch, nc * sizeof(*nf));
            if (!nf) {
                fail("out of memory (texels)");
                return -1;
            }
            S.tx_fetch = nf;
            S.tx_capfetch = nc;
        }
        if (S.tx_ntexel + (j - i) > S.tx_captexel) {
            size_t nc = S.tx_captexel ? S.tx_captexel : 16384;
            while (nc < S.tx_ntexel + (j - i)) nc *= 2;
            tbr_rec_texel *nt = realloc(S.tx_texel, nc * sizeof(*nt));
            if (!nt) {
                fail("out of memory (texels)");
                return -1;
            }
            S.tx_texel = nt;
            S.tx_captexel = nc;
        }
        tbr_rec_texfetch *f = &S.tx_fetch[S.tx_nfetch++];
        f->quad = quad == UINT32_MAX ? S.batch_first + first->slot : quad;
        f->pc = first->pc;
        f->unit = first->unit;
        f->resource_id = first->resource_id;
        f->n_texels = j - i;
        f->texels = (const tbr_rec_texel *)(uintptr_t)S.tx_ntexel; /* offset until flush */
        for (uint32_t k = i; k < j; k++) {
            const struct tbr_hook_texel *h = hook_texel_at(t, order, k);
            tbr_rec_texel *o = &S.tx_texel[S.tx_ntexel++];
            o->lane = h->lane & 3u;
            o->level = h->level;
            o->layer = h->layer;
            o->x = h->x;
            o->y = h->y;
        }
        i = j;
    }
    return 0;
}

/* A quad's recomputation compared, texel by texel as it runs, with softpipe's texels
 * of that quad (t[order(k)], k in [pos, end)): the same fetches in the same order (a
 * sampler call that reads no texel has no entry in either), each with the same pc,
 * unit, resource and texels (lane, level, layer, x, y) in the same order. */
struct texel_cmp {
    const struct tbr_hook_texel *t;
    const uint32_t *order;
    uint32_t start, pos, end;
    uint32_t unit, pc; /* of the recomputation's current sampler call */
    uint32_t n;        /* texels it read so far */
    uint32_t fetch;    /* softpipe's fetch number matched by that call */
    uint32_t fetches;  /* sampler calls that read texels */
    int ok;
    int too_long; /* a call read more texels than a TEXELS fetch holds */
};

static void cmp_fetch(void *ctx, unsigned unit, unsigned pc)
{
    struct texel_cmp *c = ctx;
    c->unit = unit;
    c->pc = pc;
    c->n = 0;
}

static void cmp_texel(void *ctx, unsigned lane, unsigned level, unsigned layer, int x, int y)
{
    struct texel_cmp *c = ctx;
    if (!c->ok) return;
    if (c->pos >= c->end) {
        c->ok = 0;
        return;
    }
    const struct tbr_hook_texel *h = hook_texel_at(c->t, c->order, c->pos);
    if (c->n == 0) {
        /* the call's first texel: softpipe's previous fetch must have ended here */
        const struct tbr_hook_texel *prev = c->pos > c->start ? hook_texel_at(c->t, c->order, c->pos - 1) : NULL;
        if ((prev && prev->fetch == h->fetch) || h->pc != c->pc || h->unit != c->unit ||
            h->resource_id != tbr_cc_unit_resource(S.cc, c->unit)) {
            c->ok = 0;
            return;
        }
        c->fetch = h->fetch;
        c->fetches++;
    } else if (h->fetch != c->fetch || c->n == TBR_REC_MAX_TEXELS_PER_FETCH) {
        /* softpipe's fetch ended earlier, or its record would split this one */
        c->too_long = c->n == TBR_REC_MAX_TEXELS_PER_FETCH;
        c->ok = 0;
        return;
    }
    c->n++;
    if ((h->lane & 3u) != lane || h->level != level || h->layer != layer || h->x != x || h->y != y) c->ok = 0;
    c->pos++;
}

/* slot_first / slot_order for the batch's n slots and softpipe's texels t[nt]. */
static int index_batch_texels(uint32_t n, const struct tbr_hook_texel *t, uint32_t nt, const uint32_t **order)
{
    *order = NULL;
    if (n + 1 > S.cap_slot_first) {
        uint32_t *ns = realloc(S.slot_first, (n + 1) * sizeof(*ns));
        if (!ns) return fail("out of memory (quad batch)"), -1;
        S.slot_first = ns;
        S.cap_slot_first = n + 1;
    }
    memset(S.slot_first, 0, (n + 1) * sizeof(*S.slot_first));
    int sorted = 1;
    for (uint32_t k = 0; k < nt; k++) {
        if (t[k].slot >= n) return fail("texels hook: slot %u of a batch of %u quads", t[k].slot, n), -1;
        S.slot_first[t[k].slot + 1]++;
        if (k && t[k].slot < t[k - 1].slot) sorted = 0;
    }
    for (uint32_t k = 0; k < n; k++) S.slot_first[k + 1] += S.slot_first[k];
    if (sorted) return 0;
    if (nt > S.cap_slot_order) {
        uint32_t *no = realloc(S.slot_order, nt * sizeof(*no));
        if (!no) return fail("out of memory (quad batch)"), -1;
        S.slot_order = no;
        S.cap_slot_order = nt;
    }
    for (uint32_t k = 0; k < nt; k++) /* stable: a slot's texels keep softpipe's order */
        S.slot_order[S.slot_first[t[k].slot]++] = k;
    for (uint32_t k = n; k > 0; k--) /* the pass above moved each start to its end */
        S.slot_first[k] = S.slot_first[k - 1];
    S.slot_first[0] = 0;
    *order = S.slot_order;
    return 0;
}

static void count_texels(const struct tbr_hook_texel *t, uint32_t n)
{
    for (uint32_t i = 0; i < n;) {
        const uint32_t j = hook_fetch_end(t, NULL, i, n);
        S.frame_cnt.texel_fetches++;
        S.total.texel_fetches++;
        S.frame_cnt.texels += j - i;
        S.total.texels += j - i;
        i = j;
    }
}

/* One batch of quads into the pending QUADS record. compare (derived texels): t, nt are
 * softpipe's texels of the batch (none if the texels hook did not come); each shaded
 * quad's recomputation is compared with them, and the texels of quads in records that
 * are not derived go to the pending TEXELS record. */
static void process_quads(const struct tbr_hook_quad *qs, uint32_t n, const struct tbr_hook_texel *t, uint32_t nt,
                          int compare)
{
    const uint32_t *order = NULL;
    if (compare && index_batch_texels(n, t, nt, &order) != 0) return;
    for (uint32_t i = 0; i < n; i++) {
        const struct tbr_hook_quad *q = &qs[i];
        tbr_rec_quad r;
        r.x = q->x;
        r.y = q->y;
        r.prim = q->prim;
        r.prim_kind = q->prim_kind;
        r.flags = q->flags & 0x3fu;
        r.in_mask = q->in_mask & 15u;
        r.depth_mask = q->depth_mask & 15u;
        r.shade_mask = q->shade_mask & 15u;
        r.blend_mask = q->blend_mask & 15u;
        r.path = (q->flags & TBR_HOOK_QUAD_SHADED) ? q->path_id : 0;
        memcpy(r.z, q->z, sizeof(r.z));
        uint32_t nc = S.quads_cbufs < q->nr_cbufs ? S.quads_cbufs : q->nr_cbufs;
        /* the encoder reads the record's color buffers only (S.quads_cbufs): clearing
         * all TBR_REC_MAX_CBUFS of them per quad was a measurable cost */
        memset(r.color, 0, S.quads_cbufs * sizeof(r.color[0]));
        memcpy(r.color, q->color, nc * sizeof(r.color[0]));
        if (S.draw_write_all) /* what blend_fallback blends into every color buffer */
            for (uint32_t c = 1; c < nc; c++) memcpy(r.color[c], q->color[0], sizeof(r.color[c]));
        memset(r.packed, 0, S.quads_cbufs * sizeof(r.packed[0]));
        memset(r.exact_mask, 0, S.quads_cbufs * sizeof(r.exact_mask[0]));
        /* computed colors: a QUADS record is all computed or all recorded; a change
         * starts the next record (order is kept: records follow each other) */
        uint32_t computed = 0;
        const int shaded = (q->flags & TBR_HOOK_QUAD_SHADED) != 0;
        struct texel_cmp cmp = {.t = t, .order = order, .ok = 1};
        if (compare) {
            cmp.start = cmp.pos = S.slot_first[i];
            cmp.end = S.slot_first[i + 1];
        }
        const tbr_cc_texel_observer obs = {cmp_fetch, cmp_texel, &cmp};
        int ran = 0;
        if (S.compute_colors && (q->flags & TBR_HOOK_QUAD_BLENDED))
            computed = (uint32_t)tbr_cc_quad(S.cc, q, (const float(*)[4][4])r.color, nc, compare ? &obs : NULL, &ran);
        else {
            if (compare && shaded) /* killed, or failed a late depth test */
                tbr_cc_quad(S.cc, q, (const float(*)[4][4])r.color, nc, &obs, &ran);
            if (S.quads_count) computed = S.quads_computed; /* nothing to store: keep the record going */
        }
        int texels_ok = compare && shaded && ran && cmp.ok && cmp.pos == cmp.end;
        if (compare && shaded && ran && !texels_ok && !cmp.too_long)
            S.quads_texels_mismatched++; /* recomputed, and softpipe read other texels */
        if (texels_ok && S.texel_reject_every && ++S.texel_reject_count % S.texel_reject_every == 0)
            texels_ok = 0; /* injected: not a mismatch */
        if (S.quads_count && (computed != S.quads_computed ||
                              (compare && shaded && S.open_derivable_known && texels_ok != S.open_derivable)))
            close_quads_record();
        if (S.quads_count == 0) {
            if (tbr_rec_quads_begin(&S.quads, &S.quads_hdr, S.draw_end.seq, S.quads_cbufs,
                                    S.quads_packed | (computed ? TBR_REC_QUADS_COMPUTED : 0))) {
                fail("cannot start a QUADS record");
                return;
            }
            S.quads_computed = computed;
            S.open_first_ord = (uint32_t)S.draw_end.quads;
            S.open_shaded = S.open_fetches = 0;
            S.open_derivable = 0;
            S.open_derivable_known = 0;
        }
        if (shaded) {
            S.open_shaded++;
            if (compare && !S.open_derivable_known) {
                S.open_derivable = texels_ok;
                S.open_derivable_known = 1;
            }
            if (texels_ok) S.open_fetches += cmp.fetches;
            if (compare && !S.open_derivable && cmp.end > cmp.start &&
                pending_add_texels((uint32_t)S.draw_end.quads, t, order, cmp.start, cmp.end) != 0)
                return;
        }
        if (tbr_cs_quad(&S.cs, &r, nc) != 0) {
            fail("out of memory (color shadow)");
            return;
        }
        if (tbr_rec_quads_add(&S.quads, &S.quads_hdr, &r) != 0) {
            fail("cannot encode a quad");
            return;
        }
        S.quads_count++;
        /* counters */
        S.draw_end.quads++;
        unsigned shaded_in = 0;
        if (q->flags & TBR_HOOK_QUAD_SHADED) {
            S.draw_end.shaded_quads++;
            shaded_in = popcount4(draw_rec.early_z ? q->depth_mask : q->in_mask);
            S.draw_end.shaded_fragments += shaded_in;
        }
        if (q->flags & TBR_HOOK_QUAD_BLENDED) S.draw_end.blended_fragments += popcount4(q->blend_mask);
        S.frame_cnt.quads++;
        S.total.quads++;
        if (q->flags & TBR_HOOK_QUAD_SHADED) {
            S.frame_cnt.shaded_quads++;
            S.total.shaded_quads++;
            S.frame_cnt.shaded_fragments += shaded_in;
            S.total.shaded_fragments += shaded_in;
        }
        if (q->flags & TBR_HOOK_QUAD_BLENDED) S.total.blended_fragments += popcount4(q->blend_mask);
        if (S.quads_count >= 256) close_quads_record();
    }
}

static void process_waiting_batch(void)
{
    if (!S.batch_waiting) return;
    S.batch_waiting = 0;
    process_quads(S.batch, S.batch_n, NULL, 0, 1);
}

static void h_quads(const struct tbr_hook_quad *qs, uint32_t n)
{
    if (!recording() || !S.in_draw) return;
    if (ensure_frame() != 0) return;
    process_waiting_batch(); /* the previous batch had no texels hook */
    write_quads(0);
    S.batch_first = (uint32_t)S.draw_end.quads;
    if (!S.derive_texels) {
        process_quads(qs, n, NULL, 0, 0);
        return;
    }
    /* wait for the batch's texels (the next hook call, if it read any): a copy, since
     * softpipe reuses qs for its next batch */
    if (n > S.cap_batch) {
        struct tbr_hook_quad *nb = realloc(S.batch, n * sizeof(*nb));
        if (!nb) {
            fail("out of memory (quad batch)");
            return;
        }
        S.batch = nb;
        S.cap_batch = n;
    }
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t nc = qs[i].nr_cbufs < TBR_HOOK_MAX_CBUFS ? qs[i].nr_cbufs : TBR_HOOK_MAX_CBUFS;
        memcpy(&S.batch[i], &qs[i], offsetof(struct tbr_hook_quad, color) + nc * sizeof(qs[i].color[0]));
    }
    S.batch_n = n;
    S.batch_waiting = 1;
}

/* Texels of the batch just given to h_quads (its slot k = draw ordinal batch_first + k). */
static void h_texels(const struct tbr_hook_texel *t, uint32_t n)
{
    if (!recording() || !S.in_draw) return;
    if (S.tx_nfetch > S.tx_head && S.tx_draw_seq != S.draw_end.seq)
        flush_texels(UINT32_MAX); /* never: a DRAW record flushed them (its quads are written) */
    count_texels(t, n);
    if (S.batch_waiting) {
        S.batch_waiting = 0;
        process_quads(S.batch, S.batch_n, t, n, 1);
    } else if (pending_add_texels(UINT32_MAX, t, NULL, 0, n) != 0) {
        return;
    }
    if (S.tx_ntexel > (1u << 20))
        write_quads(1);
    else
        write_quads(0);
}

static tbr_rec_vertices_header vert_rec;
static void vs_texels(const struct tbr_hook_vertices *v);
static tbr_rec_vertex_group *vert_groups;
static uint32_t vert_cap;

static void h_vertices(const struct tbr_hook_vertices *v)
{
    process_waiting_batch();
    if (!recording() || !S.in_draw || ensure_frame() != 0) return;
    tbr_rec_vertices_header *h = &vert_rec;
    memset(h, 0, sizeof(*h));
    h->draw_seq = S.draw_end.seq;
    h->vs_id = v->vs_id;
    h->instance_id = v->instance_id;
    h->start_instance = v->start_instance;
    h->num_outputs = v->num_outputs;
    h->position_slot = v->position_slot;
    h->flags = S.vertex_hashes ? TBR_REC_VERTICES_HASHES : 0;
    h->nr_streams = v->nr_streams < TBR_REC_MAX_STREAMS ? v->nr_streams : TBR_REC_MAX_STREAMS;
    for (uint32_t i = 0; i < h->nr_streams; i++) {
        const struct tbr_hook_vertex_stream *s = &v->streams[i];
        describe_resource(&s->res);
        h->streams[i] = (tbr_rec_vertex_stream){s->res.id, s->buffer_index, s->offset,          s->stride,
                                                s->size,   s->format,       s->instance_divisor};
    }
    h->fetched = v->fetched;
    h->count = v->n_groups;
    if (v->n_groups > vert_cap) {
        uint32_t nc = vert_cap ? vert_cap : 64;
        while (nc < v->n_groups) nc *= 2;
        tbr_rec_vertex_group *ng = realloc(vert_groups, nc * sizeof(*ng));
        if (!ng) {
            fail("out of memory (vertices)");
            return;
        }
        vert_groups = ng;
        vert_cap = nc;
    }
    uint64_t nverts = 0;
    for (uint32_t i = 0; i < v->n_groups; i++) {
        const struct tbr_hook_vertex_group *g = &v->groups[i];
        tbr_rec_vertex_group *o = &vert_groups[i];
        o->path = g->path_id;
        o->n = g->n;
        memcpy(o->index, g->index, sizeof(o->index));
        memcpy(o->pos, g->pos, sizeof(o->pos));
        if (S.vertex_hashes) memcpy(o->out_hash, g->out_hash, sizeof(o->out_hash));
        nverts += g->n;
    }
    S.frame_cnt.vertices += nverts;
    S.total.vertices += nverts;
    S.frame_cnt.vertex_groups += v->n_groups;
    S.total.vertex_groups += v->n_groups;
    S.frame_cnt.vertices_fetched += v->fetched;
    S.total.vertices_fetched += v->fetched;
    tbr_buf_reset(&S.buf);
    emit(TBR_REC_VERTICES, tbr_rec_vertices_encode(&S.buf, h, vert_groups));
    if (v->n_texels) vs_texels(v);
}

/* Vertex texturing (minor 3): the run's texels as a VS_TEXELS record right after its
 * VERTICES record. Consecutive texels with the same (group, fetch) are one texture
 * instruction execution on one group; the sampler computes all 4 lanes, texels of
 * lanes beyond the group's vertices (stale inputs, no vertex) are dropped. */
static void vs_texels(const struct tbr_hook_vertices *v)
{
    static tbr_rec_texfetch *fetch;
    static tbr_rec_texel *texel;
    static uint32_t capfetch, captexel;
    uint32_t nfetch = 0, ntexel = 0;
    const struct tbr_hook_texel *t = v->texels;
    if (v->n_texels > captexel || v->n_texels > capfetch) {
        uint32_t nc = v->n_texels;
        tbr_rec_texfetch *nf = realloc(fetch, nc * sizeof(*nf));
        if (nf) fetch = nf;
        tbr_rec_texel *nt = realloc(texel, nc * sizeof(*nt));
        if (nt) texel = nt;
        if (!nf || !nt) {
            fail("out of memory (vertex texels)");
            return;
        }
        capfetch = captexel = nc;
    }
    for (uint32_t i = 0; i < v->n_texels;) {
        uint32_t j = i + 1;
        while (j < v->n_texels && t[j].slot == t[i].slot && t[j].fetch == t[i].fetch &&
               j - i < TBR_REC_MAX_TEXELS_PER_FETCH)
            j++;
        if (t[i].slot < v->n_groups) {
            const uint32_t lanes = v->groups[t[i].slot].n;
            tbr_rec_texfetch *f = &fetch[nfetch];
            f->quad = t[i].slot;
            f->pc = t[i].pc;
            f->unit = t[i].unit;
            f->resource_id = t[i].resource_id;
            f->texels = &texel[ntexel];
            f->n_texels = 0;
            for (uint32_t k = i; k < j; k++) {
                if (t[k].lane >= lanes) continue;
                texel[ntexel++] = (tbr_rec_texel){t[k].lane, t[k].level, t[k].layer, t[k].x, t[k].y};
                f->n_texels++;
            }
            if (f->n_texels) {
                nfetch++;
                S.frame_cnt.vs_texel_fetches++;
                S.total.vs_texel_fetches++;
                S.frame_cnt.vs_texels += f->n_texels;
                S.total.vs_texels += f->n_texels;
            }
        }
        i = j;
    }
    if (!nfetch) return;
    tbr_buf_reset(&S.buf);
    emit(TBR_REC_VS_TEXELS, tbr_rec_texels_encode(&S.buf, vert_rec.draw_seq, fetch, nfetch));
}

static void h_tile(const struct tbr_hook_tile *t)
{
    process_waiting_batch();
    if (!recording()) return;
    track_tile(t);
    if (!t->is_zs) tbr_cs_tile_event(&S.cs, t->kind, t->resource_id, t->level, t->layer, t->tile_x, t->tile_y);
    if (first_use(t->resource_id, t->level, t->layer, t->is_zs) && t->kind != TBR_HOOK_TILE_CLEAR_ALL)
        emit_surface_init(t->resource_id, t->level, t->layer, t->is_zs, t->format, t->width, t->height, t->block_bytes,
                          t->map, t->stride);
    tbr_rec_tile r = {
        .kind = t->kind,
        .is_zs = t->is_zs,
        .cbuf = t->cbuf,
        .resource_id = t->resource_id,
        .level = t->level,
        .layer = t->layer,
        .tile_x = t->tile_x,
        .tile_y = t->tile_y,
        .tile_size = t->tile_size,
    };
    S.total.tiles++;
    tbr_buf_reset(&S.buf);
    emit(TBR_REC_TILE, tbr_rec_tile_encode(&S.buf, &r));
}

static void h_flush(uint32_t flags)
{
    process_waiting_batch();
    if (!recording()) return;
    tbr_rec_flush r = {.flags = flags};
    S.total.flushes++;
    tbr_buf_reset(&S.buf);
    emit(TBR_REC_FLUSH, tbr_rec_flush_encode(&S.buf, &r));
}

static uint64_t path_hash(uint32_t shader, uint32_t stage, const uint16_t *pc, const uint8_t *mask, uint32_t n)
{
    uint64_t h = 1469598103934665603ULL;
#define MIX(v)                                                                                                         \
    do {                                                                                                               \
        h ^= (uint64_t)(v);                                                                                            \
        h *= 1099511628211ULL;                                                                                         \
    } while (0)
    MIX(shader);
    MIX(stage);
    MIX(n);
    for (uint32_t i = 0; i < n; i++) {
        MIX(pc[i]);
        MIX(mask[i]);
    }
#undef MIX
    return h;
}

static int path_equal(const struct path_entry *e, uint32_t shader, uint32_t stage, const uint16_t *pc,
                      const uint8_t *mask, uint32_t n)
{
    if (e->shader != shader || e->stage != stage || e->n != n) return 0;
    const uint8_t *a = S.path_arena.data + e->off;
    for (uint32_t i = 0; i < n; i++)
        if (a[3 * i] != (pc[i] & 0xff) || a[3 * i + 1] != (pc[i] >> 8) || a[3 * i + 2] != mask[i]) return 0;
    return 1;
}

static int path_rehash(uint32_t nb)
{
    uint32_t *b = calloc(nb, sizeof(*b));
    if (!b) return -1;
    for (uint32_t i = 0; i < S.npaths; i++) {
        uint32_t k = (uint32_t)S.paths[i].hash & (nb - 1);
        while (b[k]) k = (k + 1) & (nb - 1);
        b[k] = i + 1;
    }
    free(S.path_buckets);
    S.path_buckets = b;
    S.nbuckets = nb;
    return 0;
}

static uint32_t h_exec_path(uint32_t shader_id, uint32_t stage, const uint16_t *pc, const uint8_t *mask, uint32_t n,
                            uint32_t truncated)
{
    if (!recording() || ensure_frame() != 0) return 0;
    S.path_execs++;
    if (truncated) note_unsupported("exec_path_truncated");
    uint64_t h = path_hash(shader_id, stage, pc, mask, n) ^ truncated;
    if ((S.npaths + 1) * 2 > S.nbuckets && path_rehash(S.nbuckets ? S.nbuckets * 2 : 1024) != 0) {
        fail("out of memory (paths)");
        return 0;
    }
    uint32_t k = (uint32_t)h & (S.nbuckets - 1);
    for (; S.path_buckets[k]; k = (k + 1) & (S.nbuckets - 1)) {
        struct path_entry *e = &S.paths[S.path_buckets[k] - 1];
        if (e->hash == h && path_equal(e, shader_id, stage, pc, mask, n)) return e->id;
    }
    if (S.npaths == S.cap_paths) {
        uint32_t nc = S.cap_paths ? S.cap_paths * 2 : 256;
        struct path_entry *np = realloc(S.paths, nc * sizeof(*np));
        if (!np) {
            fail("out of memory (paths)");
            return 0;
        }
        S.paths = np;
        S.cap_paths = nc;
    }
    struct path_entry *e = &S.paths[S.npaths];
    e->hash = h;
    e->id = S.npaths + 1;
    e->shader = shader_id;
    e->stage = stage;
    e->n = n;
    e->off = S.path_arena.len;
    for (uint32_t i = 0; i < n; i++) {
        tbr_buf_put_u16(&S.path_arena, pc[i]);
        tbr_buf_put_u8(&S.path_arena, mask[i]);
    }
    if (!tbr_buf_ok(&S.path_arena)) {
        fail("out of memory (paths)");
        return 0;
    }
    S.path_buckets[k] = S.npaths + 1;
    S.npaths++;
    tbr_rec_path r = {.id = e->id,
                      .shader_id = shader_id,
                      .stage = stage,
                      .truncated = truncated ? 1 : 0,
                      .n = n,
                      .entries = S.path_arena.data + e->off};
    S.path_records++;
    tbr_buf_reset(&S.buf);
    emit(TBR_REC_PATH, tbr_rec_path_encode(&S.buf, &r));
    return e->id;
}

static void h_unsupported(const char *name)
{
    process_waiting_batch();
    if (!recording()) return;
    note_unsupported(name);
    tbr_rec_unsupported r;
    copy_name(r.name, sizeof(r.name), name);
    tbr_buf_reset(&S.buf);
    emit(TBR_REC_UNSUPPORTED, tbr_rec_unsupported_encode(&S.buf, &r));
}

/* ------------------------------------------------------------------------ */
/* frame end                                                                */
/* ------------------------------------------------------------------------ */

static int resolve_gl(tbr_gl_proc (*gp)(const char *))
{
    struct gl_fns *g = &S.gl;
#define GET(field, name)                                                                                               \
    do {                                                                                                               \
        tbr_gl_proc p_ = gp(name);                                                                                     \
        memcpy(&g->field, &p_, sizeof(p_));                                                                            \
    } while (0)
    GET(Flush, "glFlush");
    GET(GetString, "glGetString");
    GET(GetError, "glGetError");
    GET(GetIntegerv, "glGetIntegerv");
    GET(BindFramebuffer, "glBindFramebuffer");
    GET(BindBuffer, "glBindBuffer");
    GET(PixelStorei, "glPixelStorei");
    GET(ReadPixels, "glReadPixels");
    GET(GetCurrentDisplay, "eglGetCurrentDisplay");
    GET(GetCurrentSurface, "eglGetCurrentSurface");
    GET(QuerySurface, "eglQuerySurface");
#undef GET
    return g->Flush && g->GetString && g->GetError && g->GetIntegerv && g->BindFramebuffer && g->BindBuffer &&
                   g->PixelStorei && g->ReadPixels && g->GetCurrentDisplay && g->GetCurrentSurface && g->QuerySurface
               ? 0
               : -1;
}

static void check_renderer(tbr_gl_proc (*gp)(const char *))
{
    S.gl_checked = 1;
    if (resolve_gl(gp) != 0) {
        fail("cannot resolve the GL/EGL functions needed for readback");
        return;
    }
    const char *r = (const char *)S.gl.GetString(GL_RENDERER);
    const char *v = (const char *)S.gl.GetString(GL_VERSION);
    copy_name(S.gl_renderer, sizeof(S.gl_renderer), r);
    copy_name(S.gl_version, sizeof(S.gl_version), v);
    if (!r || strcmp(r, "softpipe") != 0)
        fail("GL_RENDERER is '%s', not softpipe (is LD_LIBRARY_PATH set to the tbrsim Mesa?)", r ? r : "(null)");
    if (S.contexts == 0) fail("no instrumented softpipe context was created (wrong Mesa?)");
}

static void *png_job_main(void *arg)
{
    struct png_job *j = arg;
    j->rc = tbr_png_write_rgba8(j->path, j->px, j->w, j->h, (size_t)j->w * 4, j->err, sizeof(j->err));
    return NULL;
}

/* Waits for the PNG being written; its failure fails the recording. */
static int png_job_wait(void)
{
    struct png_job *j = &S.png;
    if (!j->running) return 0;
    pthread_join(j->thread, NULL);
    j->running = 0;
    free(j->px);
    j->px = NULL;
    if (j->rc != 0) {
        fail("%s", j->err);
        return -1;
    }
    return 0;
}

/* Writes px (w x h RGBA, top row first; taken over) to png_path, on the PNG thread. */
static int png_job_start(const char *png_path, uint8_t *px, uint32_t w, uint32_t h)
{
    if (png_job_wait() != 0) {
        free(px);
        return -1;
    }
    struct png_job *j = &S.png;
    snprintf(j->path, sizeof(j->path), "%s", png_path);
    j->px = px;
    j->w = w;
    j->h = h;
    j->rc = 0;
    j->err[0] = 0;
    if (pthread_create(&j->thread, NULL, png_job_main, j) == 0) {
        j->running = 1;
        return 0;
    }
    png_job_main(j); /* no thread: write it here */
    j->px = NULL;
    free(px);
    if (j->rc != 0) {
        fail("%s", j->err);
        return -1;
    }
    return 0;
}

static int readback(const char *png_path)
{
    struct gl_fns *g = &S.gl;
    GLint w = 0, h = 0;
    void *dpy = g->GetCurrentDisplay();
    void *surf = g->GetCurrentSurface(EGL_DRAW);
    if (!dpy || !surf || !g->QuerySurface(dpy, surf, EGL_WIDTH, &w) || !g->QuerySurface(dpy, surf, EGL_HEIGHT, &h) ||
        w <= 0 || h <= 0) {
        fail("cannot query the current EGL surface size");
        return -1;
    }
    S.width = (uint32_t)w;
    S.height = (uint32_t)h;
    while (g->GetError() != GL_NO_ERROR) {}
    GLint draw_fb = 0, read_fb = 0, pack_buf = 0, align = 4, row_len = 0, skip_rows = 0, skip_px = 0, major = 2;
    g->GetIntegerv(GL_MAJOR_VERSION, &major);
    if (g->GetError() != GL_NO_ERROR) major = 2;
    int es3 = major >= 3;
    g->GetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_fb);
    g->GetIntegerv(GL_PACK_ALIGNMENT, &align);
    if (es3) {
        g->GetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fb);
        g->GetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buf);
        g->GetIntegerv(GL_PACK_ROW_LENGTH, &row_len);
        g->GetIntegerv(GL_PACK_SKIP_ROWS, &skip_rows);
        g->GetIntegerv(GL_PACK_SKIP_PIXELS, &skip_px);
    }
    size_t stride = (size_t)w * 4;
    uint8_t *px = malloc(stride * (size_t)h);
    uint8_t *row = malloc(stride);
    if (!px || !row) {
        free(px);
        free(row);
        fail("out of memory for the readback");
        return -1;
    }
    if (es3) {
        g->BindFramebuffer(GL_READ_FRAMEBUFFER, 0);
        g->BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        g->PixelStorei(GL_PACK_ROW_LENGTH, 0);
        g->PixelStorei(GL_PACK_SKIP_ROWS, 0);
        g->PixelStorei(GL_PACK_SKIP_PIXELS, 0);
    } else {
        g->BindFramebuffer(GL_FRAMEBUFFER, 0);
    }
    g->PixelStorei(GL_PACK_ALIGNMENT, 1);
    g->ReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
    GLenum err = g->GetError();
    /* restore */
    g->PixelStorei(GL_PACK_ALIGNMENT, align);
    if (es3) {
        g->PixelStorei(GL_PACK_ROW_LENGTH, row_len);
        g->PixelStorei(GL_PACK_SKIP_ROWS, skip_rows);
        g->PixelStorei(GL_PACK_SKIP_PIXELS, skip_px);
        g->BindBuffer(GL_PIXEL_PACK_BUFFER, (GLuint)pack_buf);
        g->BindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)read_fb);
    } else {
        g->BindFramebuffer(GL_FRAMEBUFFER, (GLuint)draw_fb);
    }
    if (err != GL_NO_ERROR) {
        free(px);
        free(row);
        fail("glReadPixels of the default framebuffer failed (GL error 0x%x)", err);
        return -1;
    }
    for (GLint y = 0; y < h / 2; y++) {
        uint8_t *a = px + (size_t)y * stride, *b = px + (size_t)(h - 1 - y) * stride;
        memcpy(row, a, stride);
        memcpy(a, b, stride);
        memcpy(b, row, stride);
    }
    free(row);
    return png_job_start(png_path, px, (uint32_t)w, (uint32_t)h);
}

static void close_writer(void)
{
    if (S.writer) {
        tbr_trace_error err;
        tbr_trace_writer *w = S.writer;
        S.writer = NULL;
        if (tbr_trace_writer_close(w, NULL, &err) != 0)
            fail("%s", err.msg);
        else
            S.writer_closed = 1;
    }
}

static void h_swap_buffers(tbr_gl_proc (*gp)(const char *))
{
    process_waiting_batch();
    init_once();
    if (!S.gl_checked && S.status_path[0]) check_renderer(gp);
    if (S.ok && in_window() && !S.writer_closed) {
        S.gl.Flush(); /* rasterizes nothing new (softpipe draws synchronously) but packs the tile caches */
        S.paused = 1;
        char rel[64], path[PATH_MAX + 64];
        snprintf(rel, sizeof(rel), "reference/frame_%05llu.png", (unsigned long long)S.frame);
        snprintf(path, sizeof(path), "%s/%s", S.out_dir, rel);
        readback(path);
        S.paused = 0;
        if (S.ok && ensure_frame() == 0) {
            tbr_rec_frame_end fe;
            memset(&fe, 0, sizeof(fe));
            fe.frame = S.frame;
            fe.width = S.width;
            fe.height = S.height;
            fe.draws = S.frame_cnt.draws;
            fe.quads = S.frame_cnt.quads;
            fe.shaded_quads = S.frame_cnt.shaded_quads;
            fe.shaded_fragments = S.frame_cnt.shaded_fragments;
            fe.prims = S.frame_cnt.prims;
            fe.clears = S.frame_cnt.clears;
            copy_name(fe.png, sizeof(fe.png), rel);
            tbr_buf_reset(&S.buf);
            emit(TBR_REC_FRAME_END, tbr_rec_frame_end_encode(&S.buf, &fe));
            if (S.frame_open && tbr_trace_writer_end_frame(S.writer) != 0) fail("%s", tbr_trace_writer_error(S.writer));
            S.frame_open = 0;
            S.logical_open = 0;
            if (!S.frames_recorded) S.recorded_first = S.frame;
            S.recorded_last = S.frame;
            S.frames_recorded++;
        }
    } else if (S.ok && S.frame < S.first && S.gl.Flush) {
        /* A fast-forwarded frame: store softpipe's tile caches as a recorded swap does
         * (a pbuffer swap flushes nothing by itself). The frames before the window then
         * quantize where a full recording would, and the window starts with every render
         * target in memory, which SURFACE_INIT relies on. */
        S.gl.Flush();
    }
    S.frame++;
    if (S.frame > S.last && S.writer) {
        /* window done: the rest is fast-forward. tbr-replay stops the replay once the
         * status counts every frame, so the last PNG must be complete before that */
        png_job_wait();
        close_writer();
    }
    write_status();
    if (!S.ok && S.error[0] && S.gl_checked && strstr(S.error, "not softpipe")) {
        fprintf(stderr, "tbr_functional: refusing to record a non-softpipe renderer\n");
        exit(3);
    }
}

static void finalize(void)
{
    if (S.atexit_done || !S.initialized) return;
    S.atexit_done = 1;
    png_job_wait(); /* the last frame's PNG is complete before the status says so */
    if (!S.frame_open && S.pending_count) {
        /* records after the last swap without any draw or clear: dropped */
        S.trailing_dropped = S.pending_count;
        tbr_buf_reset(&S.pending);
        S.pending_count = 0;
    }
    if (S.writer) {
        if (S.frame_open) {
            /* draws/clears after the last swap: kept, marked partial (no FRAME_END) */
            flush_quads();
            S.partial_last_frame = 1;
            if (tbr_trace_writer_end_frame(S.writer) != 0) fail("%s", tbr_trace_writer_error(S.writer));
            S.frame_open = 0;
        }
        if (S.ok)
            close_writer();
        else {
            tbr_trace_writer_abort(S.writer);
            S.writer = NULL;
        }
    }
    write_status();
    tbr_buf_free(&S.buf);
    tbr_buf_free(&S.quads);
    for (uint32_t i = 0; i < S.cap_closed; i++) tbr_buf_free(&S.closed[i].buf);
    free(S.closed);
    S.closed = NULL;
    S.nclosed = S.cap_closed = 0;
    free(S.batch);
    S.batch = NULL;
    S.batch_n = S.cap_batch = 0;
    free(S.slot_first);
    free(S.slot_order);
    S.slot_first = S.slot_order = NULL;
    S.cap_slot_first = S.cap_slot_order = 0;
    tbr_buf_free(&S.last_pass);
    tbr_cs_free(&S.cs);
    tbr_cc_destroy(S.cc);
    S.cc = NULL;
    S.compute_colors = 0;
    S.derive_texels = 0;
    S.batch_waiting = 0;
    free(S.tex);
    S.tex = NULL;
    S.ntex = S.cap_tex = 0;
    free(S.fs_wa);
    S.fs_wa = NULL;
    S.nfs_wa = S.cap_fs_wa = 0;
    tbr_idset_free(&S.resources);
    tbr_idset_free(&S.shaders);
    tbr_buf_free(&S.path_arena);
    tbr_buf_free(&S.pending);
    free(S.paths);
    free(S.path_buckets);
    free(S.held);
    S.held = NULL;
    free(S.known);
    S.known = NULL;
    S.nknown = S.cap_known = 0;
    S.nheld = S.cap_held = 0;
    free(S.tx_fetch);
    free(S.tx_texel);
    tbr_buf_free(&S.tx_buf);
    free(vert_groups);
    vert_groups = NULL;
    vert_cap = 0;
    S.tx_fetch = NULL;
    S.tx_texel = NULL;
    S.tx_head = S.tx_nfetch = 0;
    S.tx_ntexel = 0;
    S.tx_capfetch = 0;
    S.tx_captexel = 0;
    S.paths = NULL;
    S.path_buckets = NULL;
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
};

EXPORT const struct tbr_mesa_hooks *tbr_mesa_hooks_get(void) { return &hooks; }
