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
 * The state has owners: each concern below is one object with its own init/free and
 * functions that take that object (and, explicitly, whatever other object they need).
 * The recorder (the end of the file) holds them all; the hooks only dispatch to them.
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

/* ======================================================================== */
/* status: the fatal error, unsupported features, counters                  */
/* ======================================================================== */

#define MAX_UNSUPPORTED 32

struct counters {
    uint64_t draws, internal_draws, quads, shaded_quads, shaded_fragments, blended_fragments;
    uint64_t prims, culled_prims, clears, uploads, upload_bytes, shaders_created, tiles, flushes;
    uint64_t texel_fetches, texels, vertices, vertex_groups, vertices_fetched;
    uint64_t vs_texel_fetches, vs_texels;
};

/* What the current frame (FRAME_END) and the whole recording (status file) counted. */
struct rec_counts {
    struct counters frame, total;
};

/* The recording's fatal error and the features it met but does not model. Every object
 * keeps a pointer to the recorder's one rec_status (given at its init): a fatal error
 * anywhere stops all recording. */
struct rec_status {
    int ok; /* 0 after a fatal error: nothing more is recorded */
    char error[512];
    struct {
        char name[64];
        uint64_t count;
    } unsupported[MAX_UNSUPPORTED];
    int n_unsupported;
};

static void rec_fail(struct rec_status *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void rec_fail(struct rec_status *st, const char *fmt, ...)
{
    if (st->error[0] == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->error, sizeof(st->error), fmt, ap);
        va_end(ap);
        fprintf(stderr, "tbr_functional: error: %s\n", st->error);
    }
    st->ok = 0;
}

static void rec_note_unsupported(struct rec_status *st, const char *name)
{
    for (int i = 0; i < st->n_unsupported; i++) {
        if (strcmp(st->unsupported[i].name, name) == 0) {
            st->unsupported[i].count++;
            return;
        }
    }
    if (st->n_unsupported < MAX_UNSUPPORTED) {
        snprintf(st->unsupported[st->n_unsupported].name, sizeof(st->unsupported[0].name), "%s", name);
        st->unsupported[st->n_unsupported].count = 1;
        st->n_unsupported++;
    }
}

static void copy_name(char *dst, size_t size, const char *src) { snprintf(dst, size, "%s", src ? src : ""); }

/* ======================================================================== */
/* record sink: how objects emit records                                    */
/* ======================================================================== */

/* Every record but QUADS and TEXELS goes out through the recorder, which first opens the
 * frame and writes the pending QUADS records of the draw (records keep their order). An
 * object that emits records takes the sink as a parameter instead of knowing the
 * recorder: encode into sink_buf(), then sink_emit() with the encoder's result. */
struct rec_sink {
    tbr_buf *buf; /* scratch payload */
    void (*emit)(void *ctx, uint16_t type, int encode_rc);
    void *ctx;
};

static inline tbr_buf *sink_buf(const struct rec_sink *k)
{
    tbr_buf_reset(k->buf);
    return k->buf;
}

static inline void sink_emit(const struct rec_sink *k, uint16_t type, int encode_rc)
{
    k->emit(k->ctx, type, encode_rc);
}

/* ======================================================================== */
/* stream writer: the activity trace file, its frames and pending records   */
/* ======================================================================== */

/* The LOGICAL frame (per-frame sets and counters) starts with the first record after a
 * swap; the CONTAINER frame is begun only when a significant record (draw, clear, frame
 * end) arrives: until then records wait in pending, so that work after the last swap
 * without any draw or clear (context teardown flushes) is dropped instead of forming an
 * extra frame. */
struct stream_writer {
    struct rec_status *st;
    char trace_path[PATH_MAX];
    tbr_trace_writer *writer; /* opened at the first container frame */
    int frame_open;           /* container frame begun */
    int closed;               /* the file is complete: nothing more is written */
    int logical_open;         /* the logical frame of `frame` began */
    uint64_t frame;           /* 0-based swap count */
    tbr_buf buf;              /* scratch payload of the record being encoded */
    tbr_buf pending;          /* records waiting for the container frame: u16 type, u32 len, payload */
    uint64_t pending_count, trailing_dropped;
};

static void sw_init(struct stream_writer *sw, struct rec_status *st)
{
    sw->st = st;
    tbr_buf_init(&sw->buf);
    tbr_buf_init(&sw->pending);
}

static void sw_set_path(struct stream_writer *sw, const char *out_dir)
{
    snprintf(sw->trace_path, sizeof(sw->trace_path), "%s/activity.tbrt", out_dir);
}

static int sw_ready(const struct stream_writer *sw) { return sw->st->ok && !sw->closed; }

/* Starts the logical frame if it is not open yet: returns 1 if it did (the caller resets
 * the other objects' per-frame state). */
static int sw_begin_logical(struct stream_writer *sw)
{
    if (sw->logical_open) return 0;
    sw->logical_open = 1;
    tbr_buf_reset(&sw->pending);
    sw->pending_count = 0;
    return 1;
}

static int significant(uint16_t type)
{
    return type == TBR_REC_DRAW || type == TBR_REC_CLEAR || type == TBR_REC_FRAME_END || type == TBR_REC_QUADS ||
           type == TBR_REC_PRIM || type == TBR_REC_DRAW_END || type == TBR_REC_PATH;
}

static int open_container_frame(struct stream_writer *sw)
{
    if (!sw->writer) {
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
        sw->writer = tbr_trace_writer_open_ex(sw->trace_path, meta, &wopts, &err);
        if (!sw->writer) {
            rec_fail(sw->st, "%s", err.msg);
            return -1;
        }
    }
    if (tbr_trace_writer_begin_frame(sw->writer, sw->frame) != 0) {
        rec_fail(sw->st, "%s", tbr_trace_writer_error(sw->writer));
        return -1;
    }
    sw->frame_open = 1;
    /* replay the records that waited for the frame */
    size_t pos = 0;
    while (pos + 6 <= sw->pending.len) {
        const uint8_t *h = sw->pending.data + pos;
        uint16_t t = (uint16_t)(h[0] | (h[1] << 8));
        uint32_t len = (uint32_t)h[2] | ((uint32_t)h[3] << 8) | ((uint32_t)h[4] << 16) | ((uint32_t)h[5] << 24);
        if (tbr_trace_writer_append(sw->writer, t, h + 6, len) != 0) {
            rec_fail(sw->st, "%s", tbr_trace_writer_error(sw->writer));
            return -1;
        }
        pos += 6 + (size_t)len;
    }
    tbr_buf_reset(&sw->pending);
    sw->pending_count = 0;
    return 0;
}

/* Appends one encoded record (the caller opened the logical frame). */
static void sw_append(struct stream_writer *sw, uint16_t type, const tbr_buf *b)
{
    if (!sw_ready(sw)) return;
    if (!tbr_buf_ok(b)) {
        rec_fail(sw->st, "out of memory encoding a %s record", tbr_rec_type_name(type));
        return;
    }
    if (!sw->frame_open) {
        if (!significant(type)) {
            tbr_buf_put_u16(&sw->pending, type);
            tbr_buf_put_u32(&sw->pending, (uint32_t)b->len);
            tbr_buf_put_bytes(&sw->pending, b->data, b->len);
            if (!tbr_buf_ok(&sw->pending)) rec_fail(sw->st, "out of memory (pending records)");
            sw->pending_count++;
            return;
        }
        if (open_container_frame(sw) != 0) return;
    }
    if (tbr_trace_writer_append_buf(sw->writer, type, b) != 0)
        rec_fail(sw->st, "%s", tbr_trace_writer_error(sw->writer));
}

/* Ends the frame (container and logical) after its FRAME_END record. */
static void sw_end_frame(struct stream_writer *sw)
{
    if (sw->frame_open && tbr_trace_writer_end_frame(sw->writer) != 0)
        rec_fail(sw->st, "%s", tbr_trace_writer_error(sw->writer));
    sw->frame_open = 0;
    sw->logical_open = 0;
}

static void sw_close(struct stream_writer *sw)
{
    if (sw->writer) {
        tbr_trace_error err;
        tbr_trace_writer *w = sw->writer;
        sw->writer = NULL;
        if (tbr_trace_writer_close(w, NULL, &err) != 0)
            rec_fail(sw->st, "%s", err.msg);
        else
            sw->closed = 1;
    }
}

/* At exit: records after the last swap without any draw or clear are dropped. */
static void sw_drop_trailing(struct stream_writer *sw)
{
    if (!sw->frame_open && sw->pending_count) {
        sw->trailing_dropped = sw->pending_count;
        tbr_buf_reset(&sw->pending);
        sw->pending_count = 0;
    }
}

/* At exit, after the partial last frame (if any) was completed: a complete file, or none
 * after an error. */
static void sw_finish(struct stream_writer *sw)
{
    if (!sw->writer) return;
    if (sw->frame_open) {
        if (tbr_trace_writer_end_frame(sw->writer) != 0) rec_fail(sw->st, "%s", tbr_trace_writer_error(sw->writer));
        sw->frame_open = 0;
    }
    if (sw->st->ok)
        sw_close(sw);
    else {
        tbr_trace_writer_abort(sw->writer);
        sw->writer = NULL;
    }
}

static void sw_free(struct stream_writer *sw)
{
    tbr_buf_free(&sw->buf);
    tbr_buf_free(&sw->pending);
}

/* ======================================================================== */
/* PNG writer: the reference PNG compressed on its own thread               */
/* ======================================================================== */

/* The reference PNG of the last frame, compressed on its own thread while the replay
 * goes on (one at a time; waited for before the next and at the end). */
struct png_writer {
    struct rec_status *st;
    pthread_t thread;
    int running;
    char path[PATH_MAX + 64];
    uint8_t *px;
    uint32_t w, h;
    int rc;
    char err[TBR_PNG_ERR_SIZE];
};

static void png_init(struct png_writer *pw, struct rec_status *st) { pw->st = st; }

static void *png_main(void *arg)
{
    struct png_writer *j = arg;
    j->rc = tbr_png_write_rgba8(j->path, j->px, j->w, j->h, (size_t)j->w * 4, j->err, sizeof(j->err));
    return NULL;
}

/* Waits for the PNG being written; its failure fails the recording. */
static int png_wait(struct png_writer *pw)
{
    if (!pw->running) return 0;
    pthread_join(pw->thread, NULL);
    pw->running = 0;
    free(pw->px);
    pw->px = NULL;
    if (pw->rc != 0) {
        rec_fail(pw->st, "%s", pw->err);
        return -1;
    }
    return 0;
}

/* Writes px (w x h RGBA, top row first; taken over) to png_path, on the PNG thread. */
static int png_start(struct png_writer *pw, const char *png_path, uint8_t *px, uint32_t w, uint32_t h)
{
    if (png_wait(pw) != 0) {
        free(px);
        return -1;
    }
    snprintf(pw->path, sizeof(pw->path), "%s", png_path);
    pw->px = px;
    pw->w = w;
    pw->h = h;
    pw->rc = 0;
    pw->err[0] = 0;
    if (pthread_create(&pw->thread, NULL, png_main, pw) == 0) {
        pw->running = 1;
        return 0;
    }
    png_main(pw); /* no thread: write it here */
    pw->px = NULL;
    free(px);
    if (pw->rc != 0) {
        rec_fail(pw->st, "%s", pw->err);
        return -1;
    }
    return 0;
}

/* ======================================================================== */
/* readback: GL/EGL at the frame end (renderer check, flush, glReadPixels)  */
/* ======================================================================== */

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

struct readback {
    struct rec_status *st;
    int checked; /* the renderer was checked (first swap) */
    struct gl_fns gl;
    char gl_renderer[128], gl_version[128];
    uint32_t width, height; /* of the last frame read */
};

static void rb_init(struct readback *rb, struct rec_status *st) { rb->st = st; }

static int resolve_gl(struct gl_fns *g, tbr_gl_proc (*gp)(const char *))
{
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

/* At the first swap: resolves the GL/EGL entry points and fails unless the renderer is
 * softpipe with an instrumented context (live_contexts > 0). */
static void rb_check_renderer(struct readback *rb, tbr_gl_proc (*gp)(const char *), int live_contexts)
{
    rb->checked = 1;
    if (resolve_gl(&rb->gl, gp) != 0) {
        rec_fail(rb->st, "cannot resolve the GL/EGL functions needed for readback");
        return;
    }
    const char *r = (const char *)rb->gl.GetString(GL_RENDERER);
    const char *v = (const char *)rb->gl.GetString(GL_VERSION);
    copy_name(rb->gl_renderer, sizeof(rb->gl_renderer), r);
    copy_name(rb->gl_version, sizeof(rb->gl_version), v);
    if (!r || strcmp(r, "softpipe") != 0)
        rec_fail(rb->st, "GL_RENDERER is '%s', not softpipe (is LD_LIBRARY_PATH set to the tbrsim Mesa?)",
                 r ? r : "(null)");
    if (live_contexts == 0) rec_fail(rb->st, "no instrumented softpipe context was created (wrong Mesa?)");
}

/* glFlush if it was resolved: 0 if not. */
static int rb_flush(struct readback *rb)
{
    if (!rb->gl.Flush) return 0;
    rb->gl.Flush();
    return 1;
}

/* Reads the default framebuffer (RGBA8, top row first) into *px (malloc'ed, w x h from
 * rb->width / rb->height), saving and restoring the GL state it changes. */
static int rb_read(struct readback *rb, uint8_t **px_out)
{
    struct gl_fns *g = &rb->gl;
    GLint w = 0, h = 0;
    void *dpy = g->GetCurrentDisplay();
    void *surf = g->GetCurrentSurface(EGL_DRAW);
    if (!dpy || !surf || !g->QuerySurface(dpy, surf, EGL_WIDTH, &w) || !g->QuerySurface(dpy, surf, EGL_HEIGHT, &h) ||
        w <= 0 || h <= 0) {
        rec_fail(rb->st, "cannot query the current EGL surface size");
        return -1;
    }
    rb->width = (uint32_t)w;
    rb->height = (uint32_t)h;
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
        rec_fail(rb->st, "out of memory for the readback");
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
        rec_fail(rb->st, "glReadPixels of the default framebuffer failed (GL error 0x%x)", err);
        return -1;
    }
    for (GLint y = 0; y < h / 2; y++) {
        uint8_t *a = px + (size_t)y * stride, *b = px + (size_t)(h - 1 - y) * stride;
        memcpy(row, a, stride);
        memcpy(a, b, stride);
        memcpy(b, row, stride);
    }
    free(row);
    *px_out = px;
    return 0;
}

/* ======================================================================== */
/* contexts: GL contexts, threads, tiles held in tile caches                */
/* ======================================================================== */

/* Several contexts (docs/instrumentation.md "Several contexts and threads"). Records of
 * every context go into the one stream in submission order; the issuing GL context is
 * identified by libglapi's current-context pointer. */
struct gl_contexts {
    struct rec_status *st;
    int live; /* live softpipe contexts */
    int created;
    void *(*glapi_get_context)(void);
    int glapi_resolved;
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
};

static void ctx_init(struct gl_contexts *c, struct rec_status *st) { c->st = st; }

static void ctx_free(struct gl_contexts *c)
{
    free(c->held);
    c->held = NULL;
    c->nheld = c->cap_held = 0;
}

/* The GL context that issued the work being recorded: libglapi's current
 * context of the calling thread (a TLS read). softpipe creates one pipe_context
 * per GL context, and Mesa flushes the old context before it changes the current
 * one, so this names the pipe_context whose hooks run. NULL if libglapi cannot
 * be found (then context switches are not told apart). */
static const void *ctx_current(struct gl_contexts *c)
{
    if (!c->glapi_resolved) {
        c->glapi_resolved = 1;
        void *h = dlopen("libglapi.so.0", RTLD_LAZY | RTLD_NOLOAD);
        void *sym = dlsym(h ? h : RTLD_DEFAULT, "_glapi_get_context");
        memcpy(&c->glapi_get_context, &sym, sizeof(sym));
        if (h) dlclose(h); /* RTLD_NOLOAD: drops only the reference just taken */
    }
    return c->glapi_get_context ? c->glapi_get_context() : NULL;
}

/* softpipe runs every context's hooks through process-wide state (and so does
 * this library): GL work of two threads at the same time cannot be recorded.
 * Work of several threads one after another (apitrace's retrace) is fine.
 * in_draw: a draw is being recorded. */
static void ctx_check_thread(struct gl_contexts *c, int in_draw)
{
    pthread_t self = pthread_self();
    if (c->have_gl_thread && pthread_equal(c->gl_thread, self)) return;
    if (in_draw) {
        rec_fail(c->st, "GL work from two threads at the same time (a draw of one thread was still being "
                        "recorded): softpipe's instrumentation records one thread at a time");
        return;
    }
    if (c->have_gl_thread) c->thread_switches++;
    c->gl_thread = self;
    c->have_gl_thread = 1;
}

static void ctx_created(struct gl_contexts *c, const struct tbr_hook_context_info *info)
{
    c->live++;
    c->created++;
    if (info && info->driver && strcmp(info->driver, "softpipe") != 0)
        rec_fail(c->st, "driver is '%s', not softpipe", info->driver);
}

static void ctx_destroyed(struct gl_contexts *c)
{
    if (c->live > 0) c->live--;
    /* st/mesa makes the dying context current while it is destroyed; softpipe
     * frees its tile caches without storing them */
    const void *ctx = ctx_current(c);
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->nheld; i++)
        if (c->held[i].ctx != ctx) c->held[k++] = c->held[i];
    c->nheld = k;
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

static void ctx_track_tile(struct gl_contexts *c, const struct tbr_hook_tile *t)
{
    const void *ctx = ctx_current(c);
    if (!ctx) return;
    uint32_t i = 0, k = 0;
    switch (t->kind) {
        case TBR_HOOK_TILE_CLEAR_ALL: /* this context's cache of the surface emptied */
            for (i = 0; i < c->nheld; i++)
                if (!(c->held[i].ctx == ctx && same_surface(&c->held[i], t))) c->held[k++] = c->held[i];
            c->nheld = k;
            return;
        case TBR_HOOK_TILE_LOAD:
        case TBR_HOOK_TILE_LOAD_CLEAR:
            for (i = 0; i < c->nheld; i++) {
                struct held_tile *h = &c->held[i];
                if (!same_surface(h, t) || h->layer != t->layer || h->tile_x != t->tile_x || h->tile_y != t->tile_y)
                    continue;
                if (h->ctx != ctx)
                    rec_fail(c->st,
                             "two GL contexts hold tile (%u,%u) of resource %u in their tile caches at "
                             "once (one renders to a surface the other has not flushed): the trace "
                             "cannot represent two copies of a tile",
                             t->tile_x, t->tile_y, t->resource_id);
                return;
            }
            if (c->nheld == c->cap_held) {
                uint32_t nc = c->cap_held ? c->cap_held * 2 : 256;
                struct held_tile *nh = realloc(c->held, nc * sizeof(*nh));
                if (!nh) {
                    rec_fail(c->st, "out of memory (tiles)");
                    return;
                }
                c->held = nh;
                c->cap_held = nc;
            }
            c->held[c->nheld++] =
                (struct held_tile){ctx, t->resource_id, t->level, t->layer, t->tile_x, t->tile_y, t->is_zs};
            return;
        default: /* STORE, STORE_CLEAR: the tile leaves the cache */
            for (i = 0; i < c->nheld; i++) {
                struct held_tile *h = &c->held[i];
                if (same_surface(h, t) && h->layer == t->layer && h->tile_x == t->tile_x && h->tile_y == t->tile_y) {
                    c->held[i] = c->held[--c->nheld];
                    return;
                }
            }
            return;
    }
}

/* 1 if a tile cache holds a tile of the color surface (its memory is then incomplete). */
static int ctx_color_tiles_held(const struct gl_contexts *c, uint32_t res, uint32_t level, uint32_t layer)
{
    for (uint32_t i = 0; i < c->nheld; i++)
        if (!c->held[i].is_zs && c->held[i].resource_id == res && c->held[i].level == level &&
            c->held[i].layer == layer)
            return 1;
    return 0;
}

/* ======================================================================== */
/* resources: RESOURCE records, once per resource per frame                 */
/* ======================================================================== */

struct resource_table {
    struct rec_status *st;
    tbr_idset described; /* this frame */
};

static void res_init(struct resource_table *rt, struct rec_status *st) { rt->st = st; }
static void res_new_frame(struct resource_table *rt) { tbr_idset_clear(&rt->described); }
static void res_free(struct resource_table *rt) { tbr_idset_free(&rt->described); }

static void res_describe(struct resource_table *rt, const struct tbr_hook_resource *r, const struct rec_sink *out)
{
    if (!r->id || tbr_idset_has(&rt->described, r->id)) return;
    if (!rt->st->ok) return;
    if (tbr_idset_add(&rt->described, r->id) < 0) {
        rec_fail(rt->st, "out of memory");
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
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_RESOURCE, tbr_rec_resource_encode(b, &rec));
}

/* ======================================================================== */
/* paths: the per-frame table of distinct executed instruction paths        */
/* ======================================================================== */

struct path_recorder {
    struct rec_status *st;
    struct path_entry {
        uint64_t hash;
        uint32_t id, shader, stage, n;
        size_t off;
    } * paths;
    uint32_t npaths, cap_paths;
    uint32_t *buckets; /* open addressing: index+1 into paths, 0 = empty */
    uint32_t nbuckets;
    tbr_buf arena; /* pc (u16 LE) + mask bytes, 3 per entry */
    uint64_t execs, records;
};

static void paths_init(struct path_recorder *pr, struct rec_status *st)
{
    pr->st = st;
    tbr_buf_init(&pr->arena);
}

static void paths_new_frame(struct path_recorder *pr)
{
    pr->npaths = 0;
    tbr_buf_reset(&pr->arena);
    if (pr->buckets) memset(pr->buckets, 0, pr->nbuckets * sizeof(*pr->buckets));
}

static void paths_free(struct path_recorder *pr)
{
    tbr_buf_free(&pr->arena);
    free(pr->paths);
    free(pr->buckets);
    pr->paths = NULL;
    pr->buckets = NULL;
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

static int path_equal(const struct path_recorder *pr, const struct path_entry *e, uint32_t shader, uint32_t stage,
                      const uint16_t *pc, const uint8_t *mask, uint32_t n)
{
    if (e->shader != shader || e->stage != stage || e->n != n) return 0;
    const uint8_t *a = pr->arena.data + e->off;
    for (uint32_t i = 0; i < n; i++)
        if (a[3 * i] != (pc[i] & 0xff) || a[3 * i + 1] != (pc[i] >> 8) || a[3 * i + 2] != mask[i]) return 0;
    return 1;
}

static int path_rehash(struct path_recorder *pr, uint32_t nb)
{
    uint32_t *b = calloc(nb, sizeof(*b));
    if (!b) return -1;
    for (uint32_t i = 0; i < pr->npaths; i++) {
        uint32_t k = (uint32_t)pr->paths[i].hash & (nb - 1);
        while (b[k]) k = (k + 1) & (nb - 1);
        b[k] = i + 1;
    }
    free(pr->buckets);
    pr->buckets = b;
    pr->nbuckets = nb;
    return 0;
}

/* One execution of a shader's instruction stream (pc and execution mask per executed
 * instruction): returns the id of its path in this frame, writing a PATH record the
 * first time the path occurs; 0 on failure. */
static uint32_t paths_exec(struct path_recorder *pr, uint32_t shader_id, uint32_t stage, const uint16_t *pc,
                           const uint8_t *mask, uint32_t n, uint32_t truncated, const struct rec_sink *out)
{
    pr->execs++;
    if (truncated) rec_note_unsupported(pr->st, "exec_path_truncated");
    uint64_t h = path_hash(shader_id, stage, pc, mask, n) ^ truncated;
    if ((pr->npaths + 1) * 2 > pr->nbuckets && path_rehash(pr, pr->nbuckets ? pr->nbuckets * 2 : 1024) != 0) {
        rec_fail(pr->st, "out of memory (paths)");
        return 0;
    }
    uint32_t k = (uint32_t)h & (pr->nbuckets - 1);
    for (; pr->buckets[k]; k = (k + 1) & (pr->nbuckets - 1)) {
        struct path_entry *e = &pr->paths[pr->buckets[k] - 1];
        if (e->hash == h && path_equal(pr, e, shader_id, stage, pc, mask, n)) return e->id;
    }
    if (pr->npaths == pr->cap_paths) {
        uint32_t nc = pr->cap_paths ? pr->cap_paths * 2 : 256;
        struct path_entry *np = realloc(pr->paths, nc * sizeof(*np));
        if (!np) {
            rec_fail(pr->st, "out of memory (paths)");
            return 0;
        }
        pr->paths = np;
        pr->cap_paths = nc;
    }
    struct path_entry *e = &pr->paths[pr->npaths];
    e->hash = h;
    e->id = pr->npaths + 1;
    e->shader = shader_id;
    e->stage = stage;
    e->n = n;
    e->off = pr->arena.len;
    for (uint32_t i = 0; i < n; i++) {
        tbr_buf_put_u16(&pr->arena, pc[i]);
        tbr_buf_put_u8(&pr->arena, mask[i]);
    }
    if (!tbr_buf_ok(&pr->arena)) {
        rec_fail(pr->st, "out of memory (paths)");
        return 0;
    }
    pr->buckets[k] = pr->npaths + 1;
    pr->npaths++;
    tbr_rec_path r = {.id = e->id,
                      .shader_id = shader_id,
                      .stage = stage,
                      .truncated = truncated ? 1 : 0,
                      .n = n,
                      .entries = pr->arena.data + e->off};
    pr->records++;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_PATH, tbr_rec_path_encode(b, &r));
    return e->id;
}

/* ======================================================================== */
/* surfaces: render passes, hot start, surface checks, sampled textures     */
/* ======================================================================== */

struct surfaces {
    struct rec_status *st;
    /* render passes */
    tbr_buf last_pass;    /* encoding of the current render pass (seq excluded) */
    uint32_t pass_seq;    /* this frame */
    const void *pass_ctx; /* GL context of the current render pass */
    uint64_t context_switches;
    struct tbr_hook_surface fb_zs; /* zsbuf of the latest framebuffer hook (map valid during its clear) */
    uint32_t fb_height;            /* framebuffer of the latest framebuffer hook */
    uint32_t zs_clear_write_res;   /* resource id + 1 whose next UPLOAD is a partial zs clear's write */
    uint64_t clear_writes;
    uint64_t surface_checks;
    /* hot start (docs/trace-records.md SURFACE_INIT): render-target surfaces whose
     * memory the trace accounts for since the window began (first event seen) */
    struct known_surface {
        uint32_t resource_id, level, layer, is_zs;
    } * known;
    uint32_t nknown, cap_known;
    uint64_t surface_inits, surface_init_bytes;
    /* sampled textures the simulator holds (SURFACE_INIT given, no upload since) */
    struct tex_known {
        uint32_t resource_id, level, layer, pass_sampled, frame_sampled;
        int given, dirty;
    } * tex;
    uint32_t ntex, cap_tex;
    uint64_t texture_inits, texture_init_bytes;
};

static void surf_init(struct surfaces *s, struct rec_status *st)
{
    s->st = st;
    tbr_buf_init(&s->last_pass);
}

static void surf_new_frame(struct surfaces *s)
{
    tbr_buf_reset(&s->last_pass);
    s->pass_seq = 0;
}

static void surf_free(struct surfaces *s)
{
    tbr_buf_free(&s->last_pass);
    free(s->tex);
    s->tex = NULL;
    s->ntex = s->cap_tex = 0;
    free(s->known);
    s->known = NULL;
    s->nknown = s->cap_known = 0;
}

/* ---- hot start: initial contents of render targets (SURFACE_INIT) ---------- */

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
static struct known_surface *find_known(const struct surfaces *s, uint32_t res, uint32_t level, uint32_t layer,
                                        uint32_t is_zs)
{
    for (uint32_t i = 0; i < s->nknown; i++)
        if (s->known[i].resource_id == res && s->known[i].level == level && s->known[i].layer == layer &&
            s->known[i].is_zs == is_zs)
            return &s->known[i];
    return NULL;
}

/* Returns 1 if the surface is seen for the first time (and remembers it). */
static int first_use(struct surfaces *s, uint32_t res, uint32_t level, uint32_t layer, uint32_t is_zs)
{
    if (!res || find_known(s, res, level, layer, is_zs)) return 0;
    if (s->nknown == s->cap_known) {
        uint32_t nc = s->cap_known ? s->cap_known * 2 : 16;
        struct known_surface *nk = realloc(s->known, nc * sizeof(*nk));
        if (!nk) {
            rec_fail(s->st, "out of memory (surfaces)");
            return 0;
        }
        s->known = nk;
        s->cap_known = nc;
    }
    s->known[s->nknown++] = (struct known_surface){res, level, layer, is_zs};
    return 1;
}

/* A surface's memory: its identity, size and mapping. */
struct surface_mem {
    uint32_t res, level, layer, is_zs, format, width, height, block_bytes;
    const void *map;
    uint32_t stride;
};

/* Writes the surface's memory as SURFACE_INIT bands (rows of width * block_bytes).
 * replace (optional, block_bytes entries): bytes of each texel replaced by value[]. */
static void emit_surface_init_masked(struct surfaces *s, const struct surface_mem *m, const uint8_t *replace,
                                     const uint8_t *value, const struct rec_sink *out)
{
    size_t row = (size_t)m->width * m->block_bytes;
    if (!m->map || !m->width || !m->height || !m->block_bytes || m->stride < row) {
        rec_note_unsupported(s->st, "surface_init_unmapped"); /* the simulator starts it from zeros */
        return;
    }
    uint32_t band = (uint32_t)(TBR_REC_SURFACE_INIT_BAND_BYTES / row);
    if (!band) band = 1;
    uint8_t *rows = malloc((size_t)band * row);
    if (!rows) {
        rec_fail(s->st, "out of memory (SURFACE_INIT)");
        return;
    }
    for (uint32_t y0 = 0; y0 < m->height && s->st->ok; y0 += band) {
        uint32_t n = m->height - y0 < band ? m->height - y0 : band;
        for (uint32_t y = 0; y < n; y++) /* drop the row padding */
            memcpy(rows + (size_t)y * row, (const uint8_t *)m->map + (size_t)(y0 + y) * m->stride, row);
        if (replace)
            for (size_t i = 0; i < (size_t)n * row; i++)
                if (replace[i % m->block_bytes]) rows[i] = value[i % m->block_bytes];
        tbr_rec_surface_init r = {
            .resource_id = m->res,
            .level = m->level,
            .layer = m->layer,
            .is_zs = m->is_zs,
            .format = m->format,
            .width = m->width,
            .height = m->height,
            .block_bytes = m->block_bytes,
            .y0 = y0,
            .rows = n,
            .data = rows,
        };
        tbr_buf *b = sink_buf(out);
        sink_emit(out, TBR_REC_SURFACE_INIT, tbr_rec_surface_init_encode(b, &r));
    }
    free(rows);
    s->surface_inits++;
    s->surface_init_bytes += (uint64_t)row * m->height;
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

/* A tile event: a surface's first one in the window (unless a full clear) gives its
 * memory first; then the TILE record. */
static void surf_tile(struct surfaces *s, const struct tbr_hook_tile *t, struct rec_counts *counts,
                      const struct rec_sink *out)
{
    if (first_use(s, t->resource_id, t->level, t->layer, t->is_zs) && t->kind != TBR_HOOK_TILE_CLEAR_ALL) {
        const struct surface_mem m = {t->resource_id, t->level,  t->layer,       t->is_zs, t->format,
                                      t->width,       t->height, t->block_bytes, t->map,   t->stride};
        emit_surface_init_masked(s, &m, NULL, NULL, out);
    }
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
    counts->total.tiles++;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_TILE, tbr_rec_tile_encode(b, &r));
}

/* SURFACE_CHECK (records minor 4): when a pass binds a color render target that the
 * window has written before and whose tiles no softpipe tile cache holds (its memory is
 * then complete), the crc32 of that memory, for tbr-sim to compare with its own image:
 * render targets that reach the window only through texture sampling are otherwise
 * never checked. */
static void emit_surface_checks(struct surfaces *s, const struct tbr_hook_framebuffer *fb,
                                const struct gl_contexts *contexts, const struct rec_sink *out)
{
    for (uint32_t i = 0; i < fb->nr_cbufs && i < TBR_REC_MAX_CBUFS; i++) {
        const struct tbr_hook_surface *c = &fb->cbufs[i];
        if (!c->valid || !c->map || !c->width || !c->height || !c->res.block_bytes || c->res.block_bytes > 16 ||
            !find_known(s, c->res.id, c->level, c->first_layer, 0) ||
            ctx_color_tiles_held(contexts, c->res.id, c->level, c->first_layer))
            continue;
        uLong crc = crc32(0L, Z_NULL, 0);
        const uint8_t *row = c->map;
        for (uint32_t y = 0; y < c->height; y++, row += c->stride)
            crc = crc32(crc, row, (uInt)(c->width * c->res.block_bytes));
        tbr_rec_surface_check r = {.resource_id = c->res.id,
                                   .level = c->level,
                                   .layer = c->first_layer,
                                   .width = c->width,
                                   .height = c->height,
                                   .block_bytes = c->res.block_bytes,
                                   .crc = (uint32_t)crc};
        s->surface_checks++;
        tbr_buf *b = sink_buf(out);
        sink_emit(out, TBR_REC_SURFACE_CHECK, tbr_rec_surface_check_encode(b, &r));
    }
}

/* The framebuffer binding: the color shadow learns it; a binding that differs from the
 * current pass's (or comes from another GL context) starts a RENDER_PASS. */
static void surf_framebuffer(struct surfaces *s, const struct tbr_hook_framebuffer *fb, tbr_color_shadow *cs,
                             struct gl_contexts *contexts, struct resource_table *resources, const struct rec_sink *out)
{
    s->fb_zs = fb->zsbuf;
    s->fb_height = fb->height;
    tbr_cs_set_nr_cbufs(cs, fb->nr_cbufs);
    for (uint32_t i = 0; i < fb->nr_cbufs && i < TBR_REC_MAX_CBUFS; i++) {
        const struct tbr_hook_surface *cb = &fb->cbufs[i];
        /* packed in the view's format only where it is the resource's too: tbr-sim
         * converts with the resource's (RESOURCE record) */
        const int same = cb->format_name && cb->res.format_name && strcmp(cb->format_name, cb->res.format_name) == 0;
        tbr_cs_set_cbuf(cs, i, cb->valid != 0, cb->res.id, cb->level, cb->first_layer, cb->last_layer,
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
    tbr_rec_surface *o[TBR_REC_MAX_CBUFS + 1];
    uint32_t n = 0;
    for (uint32_t i = 0; i < rp.nr_cbufs; i++) {
        in[n] = &fb->cbufs[i];
        o[n++] = &rp.cbufs[i];
    }
    in[n] = &fb->zsbuf;
    o[n++] = &rp.zsbuf;
    for (uint32_t i = 0; i < n; i++) {
        if (!in[i]->valid) continue;
        o[i]->valid = 1;
        o[i]->resource_id = in[i]->res.id;
        o[i]->format = in[i]->format;
        o[i]->level = in[i]->level;
        o[i]->first_layer = in[i]->first_layer;
        o[i]->last_layer = in[i]->last_layer;
        o[i]->width = in[i]->width;
        o[i]->height = in[i]->height;
    }
    rp.is_default = rp.nr_cbufs > 0 && fb->cbufs[0].valid && fb->cbufs[0].res.is_display_target;
    /* Same binding as the current pass, issued by the same GL context? (compare
     * encodings without seq). A switch of context ends the pass even with the same
     * binding: Mesa flushes the old context (its tile caches are stored), as a TBR
     * driver submits and resolves at a context switch. */
    tbr_buf *b = sink_buf(out);
    if (tbr_rec_render_pass_encode(b, &rp) != 0) {
        rec_fail(s->st, "cannot encode a RENDER_PASS record");
        return;
    }
    const void *ctx = ctx_current(contexts);
    int switched = s->last_pass.len > 0 && ctx != s->pass_ctx;
    if (!switched && s->last_pass.len == b->len && memcmp(s->last_pass.data, b->data, b->len) == 0) return;
    if (switched) s->context_switches++;
    s->pass_ctx = ctx;
    tbr_buf_reset(&s->last_pass);
    tbr_buf_put_bytes(&s->last_pass, b->data, b->len);
    for (uint32_t i = 0; i < n; i++)
        if (in[i]->valid) res_describe(resources, &in[i]->res, out);
    rp.seq = s->pass_seq++;
    b = sink_buf(out);
    sink_emit(out, TBR_REC_RENDER_PASS, tbr_rec_render_pass_encode(b, &rp));
    emit_surface_checks(s, fb, contexts, out);
}

static void surf_clear(struct surfaces *s, const struct tbr_hook_clear *c, struct rec_counts *counts,
                       const struct rec_sink *out)
{
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
     * softpipe calls the framebuffer hook right before this one (fb_zs is fresh). */
    const struct tbr_hook_surface *zs = &s->fb_zs;
    if (c->zs_partial && zs->valid && first_use(s, zs->res.id, zs->level, zs->first_layer, 1)) {
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
        const struct surface_mem m = {zs->res.id, zs->level,  zs->first_layer,     1,       zs->res.format,
                                      zs->width,  zs->height, zs->res.block_bytes, zs->map, zs->stride};
        emit_surface_init_masked(s, &m, known ? replace : NULL, value, out);
    }
    /* softpipe then writes the cleared component into memory (util_clear_depth_stencil
     * maps the surface): that transfer's UPLOAD belongs to this clear */
    s->zs_clear_write_res = c->zs_partial && zs->valid ? zs->res.id + 1 : 0;
    counts->frame.clears++;
    counts->total.clears++;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_CLEAR, tbr_rec_clear_encode(b, &r));
}

/* ---- sampled textures for computed colors --------------------------------- */
/* tbr-sim computes a quad's colors from the memory of the textures it samples. It
 * holds render targets it rendered itself (and those SURFACE_INIT gave it); any
 * other sampled level (CPU uploads, or contents from before the recorded window) is
 * given to it as SURFACE_INIT bands before the first draw that samples it, and again
 * after every upload into it. */
static struct tex_known *find_tex(struct surfaces *s, uint32_t res, uint32_t level, uint32_t layer)
{
    for (uint32_t i = 0; i < s->ntex; i++)
        if (s->tex[i].resource_id == res && s->tex[i].level == level && s->tex[i].layer == layer) return &s->tex[i];
    return NULL;
}

static struct tex_known *get_tex(struct surfaces *s, uint32_t res, uint32_t level, uint32_t layer)
{
    struct tex_known *t = find_tex(s, res, level, layer);
    if (t) return t;
    if (s->ntex == s->cap_tex) {
        uint32_t nc = s->cap_tex ? 2 * s->cap_tex : 32;
        struct tex_known *n = realloc(s->tex, nc * sizeof(*n));
        if (!n) return NULL;
        s->tex = n;
        s->cap_tex = nc;
    }
    t = &s->tex[s->ntex++];
    memset(t, 0, sizeof(*t));
    t->resource_id = res;
    t->level = level;
    t->layer = layer;
    t->pass_sampled = UINT32_MAX;
    return t;
}

/* A CPU write into (res, level): the simulator's copy, if any, is stale. */
static void texture_written(struct surfaces *s, uint32_t res, uint32_t level)
{
    for (uint32_t i = 0; i < s->ntex; i++)
        if (s->tex[i].resource_id == res && s->tex[i].level == level) {
            s->tex[i].given = 0;
            s->tex[i].dirty = 1;
        }
    if (!find_tex(s, res, level, 0)) {
        struct tex_known *t = get_tex(s, res, level, 0);
        if (t) t->dirty = 1;
    }
}

static void surf_upload(struct surfaces *s, const struct tbr_hook_upload *u, struct resource_table *resources,
                        struct rec_counts *counts, const struct rec_sink *out)
{
    res_describe(resources, &u->res, out);
    tbr_rec_upload r;
    memset(&r, 0, sizeof(r));
    r.resource_id = u->res.id;
    r.level = u->level;
    memcpy(r.box, u->box, sizeof(r.box));
    r.bytes = u->bytes;
    /* softpipe's tile-cache write-back is rendering the trace shows (tile events),
     * not new contents the simulator lacks */
    if (!(u->flags & TBR_HOOK_UPLOAD_TILE_CACHE)) texture_written(s, u->res.id, u->level);
    if (s->zs_clear_write_res && s->zs_clear_write_res == u->res.id + 1) {
        r.flags = TBR_REC_UPLOAD_CLEAR_WRITE;
        s->clear_writes++;
    } else {
        counts->total.uploads++;
        counts->total.upload_bytes += u->bytes;
    }
    s->zs_clear_write_res = 0;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_UPLOAD, tbr_rec_upload_encode(b, &r));
}

/* A draw begins: a partial zs clear's write is no longer pending. */
static void surf_draw_begins(struct surfaces *s) { s->zs_clear_write_res = 0; }

/* Gives tbr-sim the memory of every level the computed-colors draw samples that it does
 * not hold (SURFACE_INIT); disables the draw's computation where that is impossible.
 * frame: the swap count (a texture is sampled at most per pass of a frame). */
static void surf_give_sampled_textures(struct surfaces *s, tbr_computed_colors *cc, const struct tbr_hook_draw *d,
                                       uint64_t frame, const struct rec_sink *out)
{
    const uint32_t *units;
    uint32_t n = tbr_cc_draw_units(cc, &units);
    for (uint32_t k = 0; k < n; k++) {
        const struct tbr_hook_texture *t = &d->textures[units[k]];
        for (uint32_t l = tbr_sampler_lowest_level(t->first_level); l <= t->last_level && l < t->num_levels; l++) {
            const uint32_t layer = t->first_layer;
            struct tex_known *tk = get_tex(s, t->res.id, l, layer);
            if (!tk) {
                tbr_cc_disable_draw(cc, "out of memory (textures)");
                return;
            }
            /* rendered in the trace (its tile events are accounted for) and not written
             * by the CPU since: the simulator has it */
            const int has =
                tk->given ||
                (!tk->dirty && (find_known(s, t->res.id, l, layer, 0) || find_known(s, t->res.id, l, layer, 1)));
            if (!has) {
                /* a SURFACE_INIT applies from the start of its pass: not if an earlier
                 * draw of this pass sampled other contents of it */
                if (tk->pass_sampled == s->pass_seq && tk->frame_sampled == (uint32_t)frame) {
                    tbr_cc_disable_draw(cc, "texture changed within a render pass");
                    return;
                }
                uint32_t w = t->res.width >> l, h = t->res.height >> l;
                w = w ? w : 1;
                h = h ? h : 1;
                const uint8_t *map = (const uint8_t *)t->data + t->level_offset[l] + (size_t)layer * t->img_stride[l];
                const uint64_t before = s->surface_inits, before_bytes = s->surface_init_bytes;
                const struct surface_mem m = {
                    t->res.id,   l, layer, 0, t->res.format, w, h, t->res.block_bytes, t->data ? map : NULL,
                    t->stride[l]};
                emit_surface_init_masked(s, &m, NULL, NULL, out);
                if (s->surface_inits == before) {
                    tbr_cc_disable_draw(cc, "texture memory unavailable");
                    return;
                }
                /* counted apart from the hot-start SURFACE_INITs of render targets */
                s->surface_inits = before;
                s->surface_init_bytes = before_bytes;
                s->texture_inits++;
                s->texture_init_bytes += (uint64_t)w * h * t->res.block_bytes;
                tk->given = 1;
                tk->dirty = 0;
            }
            tk->pass_sampled = s->pass_seq;
            tk->frame_sampled = (uint32_t)frame;
        }
    }
}

/* ======================================================================== */
/* draws: shaders, draws, primitives, vertices, flushes                     */
/* ======================================================================== */

struct draw_recorder {
    struct rec_status *st;
    int pack_colors;   /* 0: TBR_FLOAT_COLORS=1, every color stored as float */
    int vertex_hashes; /* VERTICES out_hash (records minor 7): only with TBR_VERTEX_HASHES=1 */
    tbr_idset shaders; /* whose SHADER record this frame has */
    /* fragment shaders with TGSI_PROPERTY_FS_COLOR0_WRITES_ALL_CBUFS (gl_FragColor):
     * softpipe's blend stage gives output color 0 to every color buffer */
    struct fs_write_all {
        uint32_t id;
        int on;
    } * fs_wa;
    uint32_t nfs_wa, cap_fs_wa;
    /* the current draw */
    uint32_t draw_seq; /* next draw's seq in this frame */
    int in_draw;
    tbr_rec_draw rec; /* large: kept here, off the stack */
    tbr_rec_vs_textures vs_tex;
    tbr_rec_draw_end end;  /* its counts so far (QUADS records add theirs) */
    uint32_t quads_cbufs;  /* color buffers of its QUADS records */
    uint32_t quads_packed; /* QUADS packed_mask */
    int write_all;         /* its fragment shader writes color 0 to every color buffer */
    tbr_rec_prim prim;
    /* VERTICES and VS_TEXELS of a fetch run */
    tbr_rec_vertices_header vert;
    tbr_rec_vertex_group *groups;
    uint32_t cap_groups;
    tbr_rec_texfetch *vs_fetch;
    tbr_rec_texel *vs_texel;
    uint32_t cap_vs_fetch, cap_vs_texel;
};

static void dr_init(struct draw_recorder *dr, struct rec_status *st) { dr->st = st; }

static void dr_set_options(struct draw_recorder *dr, int pack_colors, int vertex_hashes)
{
    dr->pack_colors = pack_colors;
    dr->vertex_hashes = vertex_hashes;
}

static void dr_new_frame(struct draw_recorder *dr)
{
    tbr_idset_clear(&dr->shaders);
    dr->draw_seq = 0;
}

static void dr_free(struct draw_recorder *dr)
{
    free(dr->fs_wa);
    dr->fs_wa = NULL;
    dr->nfs_wa = dr->cap_fs_wa = 0;
    tbr_idset_free(&dr->shaders);
    free(dr->groups);
    dr->groups = NULL;
    dr->cap_groups = 0;
    free(dr->vs_fetch);
    free(dr->vs_texel);
    dr->vs_fetch = NULL;
    dr->vs_texel = NULL;
    dr->cap_vs_fetch = dr->cap_vs_texel = 0;
}

static void note_fs_write_all(struct draw_recorder *dr, uint32_t id, int on)
{
    for (uint32_t i = 0; i < dr->nfs_wa; i++)
        if (dr->fs_wa[i].id == id) {
            dr->fs_wa[i].on = on;
            return;
        }
    if (dr->nfs_wa == dr->cap_fs_wa) {
        uint32_t nc = dr->cap_fs_wa ? 2 * dr->cap_fs_wa : 64;
        struct fs_write_all *n = realloc(dr->fs_wa, nc * sizeof(*n));
        if (!n) {
            rec_fail(dr->st, "out of memory (shaders)");
            return;
        }
        dr->fs_wa = n;
        dr->cap_fs_wa = nc;
    }
    dr->fs_wa[dr->nfs_wa++] = (struct fs_write_all){id, on};
}

static int fs_write_all(const struct draw_recorder *dr, uint32_t id)
{
    for (uint32_t i = 0; i < dr->nfs_wa; i++)
        if (dr->fs_wa[i].id == id) return dr->fs_wa[i].on;
    return 0;
}

/* A shader created (SHADER_CREATE), or one about to run whose text this frame lacks
 * (SHADER). cc: computed colors (NULL if off) learn fragment shaders. */
static void dr_shader(struct draw_recorder *dr, const struct tbr_hook_shader *s, tbr_computed_colors *cc,
                      struct rec_counts *counts, const struct rec_sink *out)
{
    if (s->created) {
        tbr_rec_shader c;
        memset(&c, 0, sizeof(c));
        c.id = s->id;
        c.stage = s->stage;
        c.internal = s->internal ? 1 : 0;
        c.num_tokens = s->num_tokens;
        c.num_instructions = s->num_instructions;
        c.text_len = s->text ? (uint32_t)strlen(s->text) : 0;
        counts->total.shaders_created++;
        tbr_buf *b = sink_buf(out);
        sink_emit(out, TBR_REC_SHADER_CREATE, tbr_rec_shader_create_encode(b, &c));
        return;
    }
    if (tbr_idset_add(&dr->shaders, s->id) < 0) {
        rec_fail(dr->st, "out of memory");
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
        note_fs_write_all(dr, s->id, s->text && strstr(s->text, "PROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1"));
        if (cc) tbr_cc_shader(cc, s->id, s->text);
    }
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_SHADER, tbr_rec_shader_encode(b, &r));
}

static int dr_shader_known(const struct draw_recorder *dr, uint32_t id) { return tbr_idset_has(&dr->shaders, id); }

static void fill_constbufs(tbr_rec_constbuf *o, const struct tbr_hook_constbuf *in)
{
    for (uint32_t i = 0; i < TBR_REC_MAX_CONSTBUFS; i++) {
        o[i].data = in[i].data;
        o[i].size = in[i].data ? in[i].size : 0;
    }
}

/* Bound sampler views of one stage -> record entries (describing their resources);
 * returns the number of entries. */
static uint32_t fill_textures(tbr_rec_texture *o, const struct tbr_hook_texture *in, uint32_t n,
                              struct resource_table *resources, const struct rec_sink *out)
{
    uint32_t nt = 0;
    for (uint32_t i = 0; i < n && i < TBR_HOOK_MAX_TEXTURES; i++) {
        const struct tbr_hook_texture *t = &in[i];
        if (!t->valid) continue;
        res_describe(resources, &t->res, out);
        tbr_rec_texture *e = &o[nt++];
        e->unit = i;
        e->resource_id = t->res.id;
        e->view_format = t->view_format;
        e->first_level = t->first_level;
        e->last_level = t->last_level;
        e->first_layer = t->first_layer;
        e->last_layer = t->last_layer;
        memcpy(e->swizzle, t->swizzle, sizeof(e->swizzle));
        e->has_sampler = t->has_sampler;
        e->wrap_s = t->wrap_s;
        e->wrap_t = t->wrap_t;
        e->wrap_r = t->wrap_r;
        e->min_img_filter = t->min_img_filter;
        e->min_mip_filter = t->min_mip_filter;
        e->mag_img_filter = t->mag_img_filter;
        e->compare_mode = t->compare_mode;
        e->compare_func = t->compare_func;
        e->normalized_coords = t->normalized_coords;
        e->seamless_cube_map = t->seamless_cube_map;
        e->max_anisotropy = t->max_anisotropy;
        e->lod_bias = t->lod_bias;
        e->min_lod = t->min_lod;
        e->max_lod = t->max_lod;
        memcpy(e->border_color, t->border_color, sizeof(e->border_color));
    }
    return nt;
}

/* The DRAW record's scalars are TBR_REC_DRAW_FIELDS; the hook's draw has each of them
 * under the same name except seq (the recorder numbers draws itself), which the probe
 * below skips: DRAW_SKIP_<name> exists only for seq, and DRAW_SKIPPED(name) is 1 there,
 * 0 elsewhere. nr_cbufs is copied, then clamped by the caller. */
#define DRAW_SKIP_seq           ~, 1
#define DRAW_SECOND_(a, b, ...) b
#define DRAW_SECOND(...)        DRAW_SECOND_(__VA_ARGS__)
#define DRAW_SKIPPED(name)      DRAW_SECOND(DRAW_SKIP_##name, 0, ~)
#define DRAW_CAT_(a, b)         a##b
#define DRAW_CAT(a, b)          DRAW_CAT_(a, b)
#define DRAW_COPY_0(name)       r->name = d->name;
#define DRAW_COPY_1(name)
#define DRAW_COPY(name) DRAW_CAT(DRAW_COPY_, DRAW_SKIPPED(name))(name)

/* The draw's state, field by field (r was zeroed; seq, textures and names are set by
 * the caller). */
static void copy_draw_state(tbr_rec_draw *r, const struct tbr_hook_draw *d)
{
    TBR_REC_DRAW_FIELDS(DRAW_COPY, DRAW_COPY)
    r->index_bias = d->index_bias;
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
}

/* A draw begins: its DRAW record (RESOURCE records of its textures first), VS_TEXTURES,
 * and the state its quads are recorded with. cc (NULL if off) sets up the draw's
 * computed colors; surfaces gives tbr-sim the textures it samples. */
static void dr_begin(struct draw_recorder *dr, const struct tbr_hook_draw *d, tbr_color_shadow *cs,
                     tbr_computed_colors *cc, struct surfaces *surfaces, struct resource_table *resources,
                     struct rec_counts *counts, uint64_t frame, const struct rec_sink *out)
{
    tbr_rec_draw *r = &dr->rec;
    memset(r, 0, sizeof(*r));
    r->seq = dr->draw_seq++;
    copy_draw_state(r, d);
    r->num_textures = fill_textures(r->textures, d->textures, d->num_textures, resources, out);
    fill_constbufs(r->vs_const, d->vs_const);
    fill_constbufs(r->fs_const, d->fs_const);
    copy_name(r->unsupported, sizeof(r->unsupported), d->unsupported);
    if (d->unsupported && d->unsupported[0]) {
        char tmp[256];
        copy_name(tmp, sizeof(tmp), d->unsupported);
        for (char *tok = strtok(tmp, ","); tok; tok = strtok(NULL, ",")) rec_note_unsupported(dr->st, tok);
    }
    /* vertex texturing (minor 3): RESOURCE records before the DRAW, VS_TEXTURES after it */
    tbr_rec_vs_textures *vt = &dr->vs_tex;
    memset(vt, 0, sizeof(*vt));
    vt->draw_seq = r->seq;
    vt->num_textures = fill_textures(vt->textures, d->vs_textures, d->num_vs_textures, resources, out);
    counts->frame.draws++;
    counts->total.draws++;
    if (d->internal) counts->total.internal_draws++;
    dr->in_draw = 1;
    memset(&dr->end, 0, sizeof(dr->end));
    dr->end.seq = r->seq;
    dr->quads_cbufs = r->nr_cbufs;
    dr->quads_packed = tbr_cs_begin_draw(cs, r, dr->pack_colors);
    dr->write_all = fs_write_all(dr, r->fs_id);
    surf_draw_begins(surfaces);
    if (cc && tbr_cc_begin_draw(cc, d, r->textures, r->num_textures, surfaces->fb_height))
        surf_give_sampled_textures(surfaces, cc, d, frame, out);
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_DRAW, tbr_rec_draw_encode(b, r));
    if (vt->num_textures) {
        b = sink_buf(out);
        sink_emit(out, TBR_REC_VS_TEXTURES, tbr_rec_vs_textures_encode(b, vt));
    }
}

/* The draw ends: returns 1 if one was being recorded (its DRAW_END is then due). */
static int dr_leave(struct draw_recorder *dr)
{
    if (!dr->in_draw) return 0;
    dr->in_draw = 0;
    return 1;
}

static void dr_emit_end(struct draw_recorder *dr, const struct rec_sink *out)
{
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_DRAW_END, tbr_rec_draw_end_encode(b, &dr->end));
}

static void dr_prim(struct draw_recorder *dr, const struct tbr_hook_prim *p, tbr_computed_colors *cc,
                    struct rec_counts *counts, const struct rec_sink *out)
{
    tbr_rec_prim *r = &dr->prim;
    r->draw_seq = dr->end.seq;
    r->index = p->index;
    r->kind = p->kind;
    r->flags = p->flags;
    r->det = p->det;
    r->nr_attrs = p->nr_attrs > TBR_REC_MAX_ATTRIBS ? TBR_REC_MAX_ATTRIBS : p->nr_attrs;
    /* Components the fragment shader does not declare are written as 0: softpipe leaves
     * those it was not given (a vec2 varying's z, w) uninitialized, so their bytes
     * changed from replay to replay. Colors are computed from exactly these values. */
    unsigned keep[TBR_REC_MAX_ATTRIBS];
    for (uint32_t a = 0; a < r->nr_attrs; a++) keep[a] = cc ? tbr_cc_attr_components(cc, a) : 0xfu;
    for (uint32_t v = 0; v < p->kind && v < 3; v++)
        for (uint32_t a = 0; a < r->nr_attrs; a++)
            for (int k = 0; k < 4; k++) r->v[v][a][k] = (keep[a] >> k) & 1u ? p->v[v][a][k] : 0.0f;
    dr->end.prims++;
    counts->frame.prims++;
    counts->total.prims++;
    if (p->flags & TBR_HOOK_PRIM_CULLED) counts->total.culled_prims++;
    if (cc) {
        struct tbr_hook_prim as_recorded = *p;
        as_recorded.nr_attrs = r->nr_attrs;
        for (uint32_t v = 0; v < 3; v++) as_recorded.v[v] = (const float(*)[4])r->v[v];
        tbr_cc_prim(cc, &as_recorded);
    }
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_PRIM, tbr_rec_prim_encode(b, r));
}

/* Vertex texturing (minor 3): the run's texels as a VS_TEXELS record right after its
 * VERTICES record. Consecutive texels with the same (group, fetch) are one texture
 * instruction execution on one group; the sampler computes all 4 lanes, texels of
 * lanes beyond the group's vertices (stale inputs, no vertex) are dropped. */
static void vs_texels(struct draw_recorder *dr, const struct tbr_hook_vertices *v, struct rec_counts *counts,
                      const struct rec_sink *out)
{
    uint32_t nfetch = 0, ntexel = 0;
    const struct tbr_hook_texel *t = v->texels;
    if (v->n_texels > dr->cap_vs_texel || v->n_texels > dr->cap_vs_fetch) {
        uint32_t nc = v->n_texels;
        tbr_rec_texfetch *nf = realloc(dr->vs_fetch, nc * sizeof(*nf));
        if (nf) dr->vs_fetch = nf;
        tbr_rec_texel *nt = realloc(dr->vs_texel, nc * sizeof(*nt));
        if (nt) dr->vs_texel = nt;
        if (!nf || !nt) {
            rec_fail(dr->st, "out of memory (vertex texels)");
            return;
        }
        dr->cap_vs_fetch = dr->cap_vs_texel = nc;
    }
    tbr_rec_texfetch *fetch = dr->vs_fetch;
    tbr_rec_texel *texel = dr->vs_texel;
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
                counts->frame.vs_texel_fetches++;
                counts->total.vs_texel_fetches++;
                counts->frame.vs_texels += f->n_texels;
                counts->total.vs_texels += f->n_texels;
            }
        }
        i = j;
    }
    if (!nfetch) return;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_VS_TEXELS, tbr_rec_texels_encode(b, dr->vert.draw_seq, fetch, nfetch));
}

/* One draw-module fetch run: its VERTICES record (RESOURCE records of its streams
 * first), then its VS_TEXELS. */
static void dr_vertices(struct draw_recorder *dr, const struct tbr_hook_vertices *v, struct resource_table *resources,
                        struct rec_counts *counts, const struct rec_sink *out)
{
    tbr_rec_vertices_header *h = &dr->vert;
    memset(h, 0, sizeof(*h));
    h->draw_seq = dr->end.seq;
    h->vs_id = v->vs_id;
    h->instance_id = v->instance_id;
    h->start_instance = v->start_instance;
    h->num_outputs = v->num_outputs;
    h->position_slot = v->position_slot;
    h->flags = dr->vertex_hashes ? TBR_REC_VERTICES_HASHES : 0;
    h->nr_streams = v->nr_streams < TBR_REC_MAX_STREAMS ? v->nr_streams : TBR_REC_MAX_STREAMS;
    for (uint32_t i = 0; i < h->nr_streams; i++) {
        const struct tbr_hook_vertex_stream *s = &v->streams[i];
        res_describe(resources, &s->res, out);
        h->streams[i] = (tbr_rec_vertex_stream){s->res.id, s->buffer_index, s->offset,          s->stride,
                                                s->size,   s->format,       s->instance_divisor};
    }
    h->fetched = v->fetched;
    h->count = v->n_groups;
    if (v->n_groups > dr->cap_groups) {
        uint32_t nc = dr->cap_groups ? dr->cap_groups : 64;
        while (nc < v->n_groups) nc *= 2;
        tbr_rec_vertex_group *ng = realloc(dr->groups, nc * sizeof(*ng));
        if (!ng) {
            rec_fail(dr->st, "out of memory (vertices)");
            return;
        }
        dr->groups = ng;
        dr->cap_groups = nc;
    }
    uint64_t nverts = 0;
    for (uint32_t i = 0; i < v->n_groups; i++) {
        const struct tbr_hook_vertex_group *g = &v->groups[i];
        tbr_rec_vertex_group *o = &dr->groups[i];
        o->path = g->path_id;
        o->n = g->n;
        memcpy(o->index, g->index, sizeof(o->index));
        memcpy(o->pos, g->pos, sizeof(o->pos));
        if (dr->vertex_hashes) memcpy(o->out_hash, g->out_hash, sizeof(o->out_hash));
        nverts += g->n;
    }
    counts->frame.vertices += nverts;
    counts->total.vertices += nverts;
    counts->frame.vertex_groups += v->n_groups;
    counts->total.vertex_groups += v->n_groups;
    counts->frame.vertices_fetched += v->fetched;
    counts->total.vertices_fetched += v->fetched;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_VERTICES, tbr_rec_vertices_encode(b, h, dr->groups));
    if (v->n_texels) vs_texels(dr, v, counts, out);
}

static void dr_flush(uint32_t flags, struct rec_counts *counts, const struct rec_sink *out)
{
    tbr_rec_flush r = {.flags = flags};
    counts->total.flushes++;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_FLUSH, tbr_rec_flush_encode(b, &r));
}

static void dr_unsupported(struct rec_status *st, const char *name, const struct rec_sink *out)
{
    rec_note_unsupported(st, name);
    tbr_rec_unsupported r;
    copy_name(r.name, sizeof(r.name), name);
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_UNSUPPORTED, tbr_rec_unsupported_encode(b, &r));
}

/* ======================================================================== */
/* quads: QUADS records of the current draw and their texels                */
/* ======================================================================== */

/* Derived texels (records minor 6, docs/trace-records.md "Derived texels"): 0 with
 * TBR_RECORD_TEXELS=1 or without computed colors. softpipe reports a batch's texels
 * (texels hook) right after its quads (quads hook), so a batch waits for them (a copy of
 * its quads) and each quad's recomputation is compared with softpipe's texels as it runs.
 * A QUADS record is all derived or all recorded: a shaded quad whose texels do not match
 * starts a new record, so every record's flag is known when it closes and the texels of
 * derived ones are never copied. The functions take the current draw (dr), the color
 * shadow, computed colors (cc, NULL if off) and counters they update. */
struct quad_recorder {
    struct rec_status *st;
    int derive_texels;
    uint32_t texel_reject_every, texel_reject_count; /* TBR_TEST_TEXEL_REJECT_EVERY */
    /* the pending QUADS record */
    tbr_buf quads;
    uint32_t quads_count;
    tbr_rec_quads_header hdr; /* its coding state */
    uint32_t quads_computed;  /* it is a COMPUTED one */
    uint32_t open_first_ord, open_shaded, open_fetches;
    int open_derivable;
    int open_derivable_known; /* set by the record's first shaded quad */
    /* closed QUADS records, written once their batch was compared */
    struct quads_closed {
        tbr_buf buf;
        uint32_t shaded;
        uint32_t fetches; /* of its shaded quads (recomputed) */
        int derivable;    /* every shaded quad's texels matched */
    } * closed;
    uint32_t nclosed, cap_closed;
    /* the batch waiting for its texels (colors of its color buffers only) */
    struct tbr_hook_quad *batch;
    uint32_t batch_n, cap_batch;
    int batch_waiting;
    uint32_t batch_first; /* draw ordinal of the first quad of the last quads() batch */
    uint32_t *slot_first; /* texels of batch slot k: [slot_first[k], slot_first[k + 1]) of */
    uint32_t *slot_order; /* t[slot_order[.]] (NULL order: t is already in slot order) */
    uint32_t cap_slot_first, cap_slot_order;
    /* pending TEXELS record (flushed right after the QUADS record) */
    tbr_rec_texfetch *tx_fetch;
    uint32_t tx_head, tx_nfetch, tx_capfetch; /* pending: [tx_head, tx_nfetch) */
    tbr_rec_texel *tx_texel;
    size_t tx_ntexel, tx_captexel;
    tbr_buf tx_buf;
    uint32_t tx_draw_seq;
    uint64_t texels_derived, texels_recorded, texels_mismatched; /* quads */
};

static void qr_init(struct quad_recorder *qr, struct rec_status *st)
{
    qr->st = st;
    tbr_buf_init(&qr->quads);
    tbr_buf_init(&qr->tx_buf);
}

static void qr_set_options(struct quad_recorder *qr, int derive_texels, uint32_t texel_reject_every)
{
    qr->derive_texels = derive_texels;
    qr->texel_reject_every = texel_reject_every;
}

static void qr_free(struct quad_recorder *qr)
{
    tbr_buf_free(&qr->quads);
    for (uint32_t i = 0; i < qr->cap_closed; i++) tbr_buf_free(&qr->closed[i].buf);
    free(qr->closed);
    qr->closed = NULL;
    qr->nclosed = qr->cap_closed = 0;
    free(qr->batch);
    qr->batch = NULL;
    qr->batch_n = qr->cap_batch = 0;
    free(qr->slot_first);
    free(qr->slot_order);
    qr->slot_first = qr->slot_order = NULL;
    qr->cap_slot_first = qr->cap_slot_order = 0;
    qr->derive_texels = 0;
    qr->batch_waiting = 0;
    free(qr->tx_fetch);
    free(qr->tx_texel);
    tbr_buf_free(&qr->tx_buf);
    qr->tx_fetch = NULL;
    qr->tx_texel = NULL;
    qr->tx_head = qr->tx_nfetch = 0;
    qr->tx_ntexel = 0;
    qr->tx_capfetch = 0;
    qr->tx_captexel = 0;
}

/* Writes the pending fetches of quads before draw ordinal keep_from (closed records) as
 * a TEXELS record; fetches of later quads (the open record) stay pending. Only quads of
 * records that are not derived have fetches here (process_quads copies no others).
 * Pending fetches are tx_fetch[tx_head .. tx_nfetch), in draw-ordinal order. The written
 * prefix is dropped by moving tx_head; the arrays are compacted only once the dropped
 * part outgrows the kept one (this runs after every quads batch, and moving the open
 * record's fetches each time would copy them over and over). */
static void flush_texels(struct quad_recorder *qr, uint32_t keep_from, struct stream_writer *sw)
{
    uint32_t end = qr->tx_head;
    while (end < qr->tx_nfetch && qr->tx_fetch[end].quad < keep_from) end++;
    if (end == qr->tx_head) return;
    for (uint32_t i = qr->tx_head; i < end; i++) /* offsets -> pointers (dropped next) */
        qr->tx_fetch[i].texels = qr->tx_texel + (size_t)(uintptr_t)qr->tx_fetch[i].texels;
    tbr_buf_reset(&qr->tx_buf);
    if (tbr_rec_texels_encode(&qr->tx_buf, qr->tx_draw_seq, &qr->tx_fetch[qr->tx_head], end - qr->tx_head) != 0)
        rec_fail(qr->st, "cannot encode a TEXELS record");
    else
        sw_append(sw, TBR_REC_TEXELS, &qr->tx_buf);
    qr->tx_head = end;
    if (qr->tx_head == qr->tx_nfetch) {
        qr->tx_head = qr->tx_nfetch = 0;
        qr->tx_ntexel = 0;
    } else if (qr->tx_head > qr->tx_nfetch - qr->tx_head) {
        const size_t off0 = (size_t)(uintptr_t)qr->tx_fetch[qr->tx_head].texels;
        const uint32_t nkeep = qr->tx_nfetch - qr->tx_head;
        memmove(qr->tx_fetch, &qr->tx_fetch[qr->tx_head], nkeep * sizeof(*qr->tx_fetch));
        for (uint32_t i = 0; i < nkeep; i++)
            qr->tx_fetch[i].texels = (const tbr_rec_texel *)((uintptr_t)qr->tx_fetch[i].texels - off0);
        memmove(qr->tx_texel, &qr->tx_texel[off0], (qr->tx_ntexel - off0) * sizeof(*qr->tx_texel));
        qr->tx_ntexel -= off0;
        qr->tx_nfetch = nkeep;
        qr->tx_head = 0;
    }
}

/* The pending QUADS record becomes a closed one (written once its batch was compared). */
static void close_quads_record(struct quad_recorder *qr)
{
    if (!qr->quads_count) return;
    if (qr->nclosed == qr->cap_closed) {
        uint32_t nc = qr->cap_closed ? 2 * qr->cap_closed : 8;
        struct quads_closed *n = realloc(qr->closed, nc * sizeof(*n));
        if (!n) {
            rec_fail(qr->st, "out of memory (QUADS records)");
            return;
        }
        memset(n + qr->cap_closed, 0, (nc - qr->cap_closed) * sizeof(*n));
        qr->closed = n;
        qr->cap_closed = nc;
    }
    if (tbr_rec_quads_finish(&qr->quads, qr->quads_count) != 0) rec_fail(qr->st, "cannot finish a QUADS record");
    struct quads_closed *c = &qr->closed[qr->nclosed++];
    tbr_buf spare = c->buf; /* buffers are swapped, keeping their memory */
    c->buf = qr->quads;
    qr->quads = spare;
    tbr_buf_reset(&qr->quads);
    c->shaded = qr->open_shaded;
    c->fetches = qr->open_fetches;
    c->derivable = qr->open_derivable;
    qr->quads_count = 0;
}

/* Writes the closed QUADS records (all: the pending one too) and the TEXELS of their
 * quads whose texels are not derived. Only once the last batch was compared. */
static void write_quads(struct quad_recorder *qr, int all, const struct draw_recorder *dr, struct stream_writer *sw)
{
    if (all) close_quads_record(qr);
    for (uint32_t i = 0; i < qr->nclosed; i++) {
        struct quads_closed *c = &qr->closed[i];
        /* flagged only where texels are left out: a record whose quads read none needs no
         * recomputation for them */
        c->derivable = c->derivable && c->fetches > 0;
        if (c->derivable) {
            tbr_rec_quads_set_texels_derived(&c->buf, 1);
            qr->texels_derived += c->shaded;
        } else {
            qr->texels_recorded += c->shaded;
        }
        sw_append(sw, TBR_REC_QUADS, &c->buf);
    }
    flush_texels(qr, all ? UINT32_MAX : qr->quads_count ? qr->open_first_ord : (uint32_t)dr->end.quads, sw);
    for (uint32_t i = 0; i < qr->nclosed; i++) tbr_buf_reset(&qr->closed[i].buf);
    qr->nclosed = 0;
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
 * as fetches of draw ordinal quad (UINT32_MAX: of their slot's quad). draw_seq: the
 * current draw's. */
static int pending_add_texels(struct quad_recorder *qr, uint32_t draw_seq, uint32_t quad,
                              const struct tbr_hook_texel *t, const uint32_t *order, uint32_t from, uint32_t to)
{
    qr->tx_draw_seq = draw_seq;
    for (uint32_t i = from; i < to;) {
        const struct tbr_hook_texel *first = hook_texel_at(t, order, i);
        const uint32_t j = hook_fetch_end(t, order, i, to);
        if (qr->tx_nfetch == qr->tx_capfetch) {
            uint32_t nc = qr->tx_capfetch ? qr->tx_capfetch * 2 : 1024;
            tbr_rec_texfetch *nf = realloc(qr->tx_fetch, nc * sizeof(*nf));
            if (!nf) {
                rec_fail(qr->st, "out of memory (texels)");
                return -1;
            }
            qr->tx_fetch = nf;
            qr->tx_capfetch = nc;
        }
        if (qr->tx_ntexel + (j - i) > qr->tx_captexel) {
            size_t nc = qr->tx_captexel ? qr->tx_captexel : 16384;
            while (nc < qr->tx_ntexel + (j - i)) nc *= 2;
            tbr_rec_texel *nt = realloc(qr->tx_texel, nc * sizeof(*nt));
            if (!nt) {
                rec_fail(qr->st, "out of memory (texels)");
                return -1;
            }
            qr->tx_texel = nt;
            qr->tx_captexel = nc;
        }
        tbr_rec_texfetch *f = &qr->tx_fetch[qr->tx_nfetch++];
        f->quad = quad == UINT32_MAX ? qr->batch_first + first->slot : quad;
        f->pc = first->pc;
        f->unit = first->unit;
        f->resource_id = first->resource_id;
        f->n_texels = j - i;
        f->texels = (const tbr_rec_texel *)(uintptr_t)qr->tx_ntexel; /* offset until flush */
        for (uint32_t k = i; k < j; k++) {
            const struct tbr_hook_texel *h = hook_texel_at(t, order, k);
            tbr_rec_texel *o = &qr->tx_texel[qr->tx_ntexel++];
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
    const tbr_computed_colors *cc; /* the draw's sampler units */
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
            h->resource_id != tbr_cc_unit_resource(c->cc, c->unit)) {
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
static int index_batch_texels(struct quad_recorder *qr, uint32_t n, const struct tbr_hook_texel *t, uint32_t nt,
                              const uint32_t **order)
{
    *order = NULL;
    if (n + 1 > qr->cap_slot_first) {
        uint32_t *ns = realloc(qr->slot_first, (n + 1) * sizeof(*ns));
        if (!ns) return rec_fail(qr->st, "out of memory (quad batch)"), -1;
        qr->slot_first = ns;
        qr->cap_slot_first = n + 1;
    }
    memset(qr->slot_first, 0, (n + 1) * sizeof(*qr->slot_first));
    int sorted = 1;
    for (uint32_t k = 0; k < nt; k++) {
        if (t[k].slot >= n) return rec_fail(qr->st, "texels hook: slot %u of a batch of %u quads", t[k].slot, n), -1;
        qr->slot_first[t[k].slot + 1]++;
        if (k && t[k].slot < t[k - 1].slot) sorted = 0;
    }
    for (uint32_t k = 0; k < n; k++) qr->slot_first[k + 1] += qr->slot_first[k];
    if (sorted) return 0;
    if (nt > qr->cap_slot_order) {
        uint32_t *no = realloc(qr->slot_order, nt * sizeof(*no));
        if (!no) return rec_fail(qr->st, "out of memory (quad batch)"), -1;
        qr->slot_order = no;
        qr->cap_slot_order = nt;
    }
    for (uint32_t k = 0; k < nt; k++) /* stable: a slot's texels keep softpipe's order */
        qr->slot_order[qr->slot_first[t[k].slot]++] = k;
    for (uint32_t k = n; k > 0; k--) /* the pass above moved each start to its end */
        qr->slot_first[k] = qr->slot_first[k - 1];
    qr->slot_first[0] = 0;
    *order = qr->slot_order;
    return 0;
}

static void count_texels(const struct tbr_hook_texel *t, uint32_t n, struct rec_counts *counts)
{
    for (uint32_t i = 0; i < n;) {
        const uint32_t j = hook_fetch_end(t, NULL, i, n);
        counts->frame.texel_fetches++;
        counts->total.texel_fetches++;
        counts->frame.texels += j - i;
        counts->total.texels += j - i;
        i = j;
    }
}

/* The QUADS record entry of hook quad q (the draw's color buffers only). */
static void quad_entry(tbr_rec_quad *r, const struct tbr_hook_quad *q, const struct draw_recorder *dr, uint32_t nc)
{
    r->x = q->x;
    r->y = q->y;
    r->prim = q->prim;
    r->prim_kind = q->prim_kind;
    r->flags = q->flags & 0x3fu;
    r->in_mask = q->in_mask & 15u;
    r->depth_mask = q->depth_mask & 15u;
    r->shade_mask = q->shade_mask & 15u;
    r->blend_mask = q->blend_mask & 15u;
    r->path = (q->flags & TBR_HOOK_QUAD_SHADED) ? q->path_id : 0;
    memcpy(r->z, q->z, sizeof(r->z));
    /* the encoder reads the record's color buffers only (quads_cbufs): clearing all
     * TBR_REC_MAX_CBUFS of them per quad was a measurable cost */
    memset(r->color, 0, dr->quads_cbufs * sizeof(r->color[0]));
    memcpy(r->color, q->color, nc * sizeof(r->color[0]));
    if (dr->write_all) /* what blend_fallback blends into every color buffer */
        for (uint32_t c = 1; c < nc; c++) memcpy(r->color[c], q->color[0], sizeof(r->color[c]));
    memset(r->packed, 0, dr->quads_cbufs * sizeof(r->packed[0]));
    memset(r->exact_mask, 0, dr->quads_cbufs * sizeof(r->exact_mask[0]));
}

/* Counts one recorded quad in the draw, frame and totals. */
static void count_quad(const struct tbr_hook_quad *q, struct draw_recorder *dr, struct rec_counts *counts)
{
    dr->end.quads++;
    unsigned shaded_in = 0;
    if (q->flags & TBR_HOOK_QUAD_SHADED) {
        dr->end.shaded_quads++;
        shaded_in = popcount4(dr->rec.early_z ? q->depth_mask : q->in_mask);
        dr->end.shaded_fragments += shaded_in;
    }
    if (q->flags & TBR_HOOK_QUAD_BLENDED) dr->end.blended_fragments += popcount4(q->blend_mask);
    counts->frame.quads++;
    counts->total.quads++;
    if (q->flags & TBR_HOOK_QUAD_SHADED) {
        counts->frame.shaded_quads++;
        counts->total.shaded_quads++;
        counts->frame.shaded_fragments += shaded_in;
        counts->total.shaded_fragments += shaded_in;
    }
    if (q->flags & TBR_HOOK_QUAD_BLENDED) counts->total.blended_fragments += popcount4(q->blend_mask);
}

/* One batch of quads into the pending QUADS record. compare (derived texels): t, nt are
 * softpipe's texels of the batch (none if the texels hook did not come); each shaded
 * quad's recomputation is compared with them, and the texels of quads in records that
 * are not derived go to the pending TEXELS record. */
static void process_quads(struct quad_recorder *qr, const struct tbr_hook_quad *qs, uint32_t n,
                          const struct tbr_hook_texel *t, uint32_t nt, int compare, struct draw_recorder *dr,
                          tbr_color_shadow *cs, tbr_computed_colors *cc, struct rec_counts *counts)
{
    const uint32_t *order = NULL;
    if (compare && index_batch_texels(qr, n, t, nt, &order) != 0) return;
    for (uint32_t i = 0; i < n; i++) {
        const struct tbr_hook_quad *q = &qs[i];
        tbr_rec_quad r;
        uint32_t nc = dr->quads_cbufs < q->nr_cbufs ? dr->quads_cbufs : q->nr_cbufs;
        quad_entry(&r, q, dr, nc);
        /* computed colors: a QUADS record is all computed or all recorded; a change
         * starts the next record (order is kept: records follow each other) */
        uint32_t computed = 0;
        const int shaded = (q->flags & TBR_HOOK_QUAD_SHADED) != 0;
        struct texel_cmp cmp = {.cc = cc, .t = t, .order = order, .ok = 1};
        if (compare) {
            cmp.start = cmp.pos = qr->slot_first[i];
            cmp.end = qr->slot_first[i + 1];
        }
        const tbr_cc_texel_observer obs = {cmp_fetch, cmp_texel, &cmp};
        int ran = 0;
        if (cc && (q->flags & TBR_HOOK_QUAD_BLENDED))
            computed = (uint32_t)tbr_cc_quad(cc, q, (const float(*)[4][4])r.color, nc, compare ? &obs : NULL, &ran);
        else {
            if (compare && shaded) /* killed, or failed a late depth test */
                tbr_cc_quad(cc, q, (const float(*)[4][4])r.color, nc, &obs, &ran);
            if (qr->quads_count) computed = qr->quads_computed; /* nothing to store: keep the record going */
        }
        int texels_ok = compare && shaded && ran && cmp.ok && cmp.pos == cmp.end;
        if (compare && shaded && ran && !texels_ok && !cmp.too_long)
            qr->texels_mismatched++; /* recomputed, and softpipe read other texels */
        if (texels_ok && qr->texel_reject_every && ++qr->texel_reject_count % qr->texel_reject_every == 0)
            texels_ok = 0; /* injected: not a mismatch */
        if (qr->quads_count && (computed != qr->quads_computed ||
                                (compare && shaded && qr->open_derivable_known && texels_ok != qr->open_derivable)))
            close_quads_record(qr);
        if (qr->quads_count == 0) {
            if (tbr_rec_quads_begin(&qr->quads, &qr->hdr, dr->end.seq, dr->quads_cbufs,
                                    dr->quads_packed | (computed ? TBR_REC_QUADS_COMPUTED : 0))) {
                rec_fail(qr->st, "cannot start a QUADS record");
                return;
            }
            qr->quads_computed = computed;
            qr->open_first_ord = (uint32_t)dr->end.quads;
            qr->open_shaded = qr->open_fetches = 0;
            qr->open_derivable = 0;
            qr->open_derivable_known = 0;
        }
        if (shaded) {
            qr->open_shaded++;
            if (compare && !qr->open_derivable_known) {
                qr->open_derivable = texels_ok;
                qr->open_derivable_known = 1;
            }
            if (texels_ok) qr->open_fetches += cmp.fetches;
            if (compare && !qr->open_derivable && cmp.end > cmp.start &&
                pending_add_texels(qr, dr->end.seq, (uint32_t)dr->end.quads, t, order, cmp.start, cmp.end) != 0)
                return;
        }
        if (tbr_cs_quad(cs, &r, nc) != 0) {
            rec_fail(qr->st, "out of memory (color shadow)");
            return;
        }
        if (tbr_rec_quads_add(&qr->quads, &qr->hdr, &r) != 0) {
            rec_fail(qr->st, "cannot encode a quad");
            return;
        }
        qr->quads_count++;
        count_quad(q, dr, counts);
        if (qr->quads_count >= 256) close_quads_record(qr);
    }
}

/* A batch that waited for its texels gets none (another hook came first). */
static void qr_process_waiting(struct quad_recorder *qr, struct draw_recorder *dr, tbr_color_shadow *cs,
                               tbr_computed_colors *cc, struct rec_counts *counts)
{
    if (!qr->batch_waiting) return;
    qr->batch_waiting = 0;
    process_quads(qr, qr->batch, qr->batch_n, NULL, 0, 1, dr, cs, cc, counts);
}

/* Writes every pending QUADS record (and TEXELS): before any other record. */
static void qr_flush(struct quad_recorder *qr, struct draw_recorder *dr, tbr_color_shadow *cs, tbr_computed_colors *cc,
                     struct rec_counts *counts, struct stream_writer *sw)
{
    qr_process_waiting(qr, dr, cs, cc, counts); /* no texels hook came: the batch read no texel */
    write_quads(qr, 1, dr, sw);
}

/* A batch of quads of the current draw (the frame is open). */
static void qr_quads(struct quad_recorder *qr, const struct tbr_hook_quad *qs, uint32_t n, struct draw_recorder *dr,
                     tbr_color_shadow *cs, tbr_computed_colors *cc, struct rec_counts *counts, struct stream_writer *sw)
{
    qr_process_waiting(qr, dr, cs, cc, counts); /* the previous batch had no texels hook */
    write_quads(qr, 0, dr, sw);
    qr->batch_first = (uint32_t)dr->end.quads;
    if (!qr->derive_texels) {
        process_quads(qr, qs, n, NULL, 0, 0, dr, cs, cc, counts);
        return;
    }
    /* wait for the batch's texels (the next hook call, if it read any): a copy, since
     * softpipe reuses qs for its next batch */
    if (n > qr->cap_batch) {
        struct tbr_hook_quad *nb = realloc(qr->batch, n * sizeof(*nb));
        if (!nb) {
            rec_fail(qr->st, "out of memory (quad batch)");
            return;
        }
        qr->batch = nb;
        qr->cap_batch = n;
    }
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t nc = qs[i].nr_cbufs < TBR_HOOK_MAX_CBUFS ? qs[i].nr_cbufs : TBR_HOOK_MAX_CBUFS;
        memcpy(&qr->batch[i], &qs[i], offsetof(struct tbr_hook_quad, color) + nc * sizeof(qs[i].color[0]));
    }
    qr->batch_n = n;
    qr->batch_waiting = 1;
}

/* Texels of the batch just given to qr_quads (its slot k = draw ordinal batch_first + k). */
static void qr_texels(struct quad_recorder *qr, const struct tbr_hook_texel *t, uint32_t n, struct draw_recorder *dr,
                      tbr_color_shadow *cs, tbr_computed_colors *cc, struct rec_counts *counts,
                      struct stream_writer *sw)
{
    if (qr->tx_nfetch > qr->tx_head && qr->tx_draw_seq != dr->end.seq)
        flush_texels(qr, UINT32_MAX, sw); /* never: a DRAW record flushed them (its quads are written) */
    count_texels(t, n, counts);
    if (qr->batch_waiting) {
        qr->batch_waiting = 0;
        process_quads(qr, qr->batch, qr->batch_n, t, n, 1, dr, cs, cc, counts);
    } else if (pending_add_texels(qr, dr->end.seq, UINT32_MAX, t, NULL, 0, n) != 0) {
        return;
    }
    if (qr->tx_ntexel > (1u << 20))
        write_quads(qr, 1, dr, sw);
    else
        write_quads(qr, 0, dr, sw);
}

/* ======================================================================== */
/* the recorder: owns every object; the hooks dispatch to them              */
/* ======================================================================== */

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
    if (!f) return;
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
        fprintf(f, "computed_colors=%d\nvertex_hashes=%d\n", r->compute_colors, r->draws.vertex_hashes);
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
    if (fclose(f) != 0 || bad) {
        unlink(tmp);
        return;
    }
    rename(tmp, r->status_path);
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

/* The sink's emit: every non-QUADS record goes through here, pending quads first. */
static void emit_record(void *ctx, uint16_t type, int encode_rc)
{
    struct recorder *r = ctx;
    if (encode_rc != 0) {
        rec_fail(&r->status, "cannot encode a %s record", tbr_rec_type_name(type));
        return;
    }
    const int open = ensure_frame(r) == 0;
    flush_quads(r);
    if (open) sw_append(&r->sw, type, &r->sw.buf);
}

/* ---- configuration -------------------------------------------------------- */

static void finalize(struct recorder *r);

static void at_exit(void) { finalize(&R); }

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
    png_init(&r->png, st);
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
     * which nothing in tbr-sim reads (docs/trace-records.md VERTICES) */
    dr_set_options(&r->draws, pack_colors, env_is_1("TBR_VERTEX_HASHES"));
    /* TBR_RECORD_TEXELS=1 (tbr-replay --record-texels): every shaded quad's texels in
     * TEXELS records, none derived (docs/trace-records.md "Derived texels") */
    const int derive_texels = r->compute_colors && !env_is_1("TBR_RECORD_TEXELS");
    /* fault injection for the tests (functional.derived_texels): every N-th compared
     * quad is treated as if its texels differed, so records of both kinds alternate */
    const char *inj = getenv("TBR_TEST_TEXEL_REJECT_EVERY");
    qr_set_options(&r->quads, derive_texels, inj ? (uint32_t)strtoul(inj, NULL, 10) : 0);
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
    r->rb.gl.Flush(); /* rasterizes nothing new (softpipe draws synchronously) but packs the tile caches */
    r->paused = 1;
    char rel[64], path[PATH_MAX + 64];
    snprintf(rel, sizeof(rel), "reference/frame_%05llu.png", (unsigned long long)r->sw.frame);
    snprintf(path, sizeof(path), "%s/%s", r->out_dir, rel);
    uint8_t *px;
    if (rb_read(&r->rb, &px) == 0) png_start(&r->png, path, px, r->rb.width, r->rb.height);
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
    copy_name(fe.png, sizeof(fe.png), rel);
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
        png_wait(&r->png);
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
    png_wait(&r->png); /* the last frame's PNG is complete before the status says so */
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
};

EXPORT const struct tbr_mesa_hooks *tbr_mesa_hooks_get(void) { return &hooks; }
