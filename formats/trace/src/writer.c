/* Trace writer: buffers records into chunks, compresses each chunk into an
 * independent zstd frame, streams it to PATH.tmp, and on close appends the
 * frame index + footer and renames the file into place. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Compressed output is streamed to the file in slices of this size, so the
 * writer never holds a whole compressed chunk (matters for huge records). */
#define OUT_SLICE (128u * 1024u)

typedef struct index_entry {
    uint64_t number, offset, records, cbytes, ubytes;
    uint32_t chunks;
} index_entry;

struct tbr_trace_writer {
    char *path;
    char *tmp_path;
    int fd;
    uint64_t off; /* bytes written so far = current file offset */
    char err[TBR_TRACE_ERROR_MAX];
    atomic_int failed; /* set once, under `mu` when a worker exists; err is final then */

    size_t chunk_size;
    int level;
    int do_fsync;
    ZSTD_CCtx *cctx;
    uint8_t *out; /* OUT_SLICE bytes */

    tbr_buf chunk; /* pending chunk content */
    uint32_t chunk_records;

    int in_frame;
    int have_frame;       /* some frame was begun: enforces increasing numbers */
    uint64_t last_number; /* of the open (or last) frame */
    int frame_begins;     /* the next chunk handed on is its frame's first */
    /* chunk-writing side (the worker while a job is pending): */
    uint32_t chunk_seq; /* next chunk's index within the current frame */
    index_entry cur;    /* current frame's index entry */

    index_entry *index;
    size_t nindex, capindex;

    /* Background compression (options.background): flush_buffer hands the full chunk
     * buffer to one worker thread and continues with the spare one. One job at a time
     * and jobs in submission order, so the file is the same as without the worker. The
     * worker alone touches off/cur/chunk_seq/index/st chunk counters while a job is
     * pending; the caller waits for it (wait_idle) before reading them or writing the
     * file. A frame's last chunk completes its index entry on the chunk-writing side, so
     * end_frame does not wait for the compression (it would serialize it whenever a
     * frame fits in one chunk). */
    int background;
    pthread_t worker;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int job_pending, worker_stop;
    tbr_buf job; /* the chunk being compressed by the worker */
    uint32_t job_records, job_flags;
    int job_begins; /* first chunk of frame job_frame */
    uint64_t job_frame;

    tbr_trace_writer_stats st;
};

static void set_err(tbr_trace_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_err(tbr_trace_writer *w, const char *fmt, ...)
{
    if (w->background) pthread_mutex_lock(&w->mu);
    if (!w->failed) { /* keep the first (root-cause) error */
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->err, sizeof w->err, fmt, ap);
        va_end(ap);
        w->failed = 1;
    }
    if (w->background) pthread_mutex_unlock(&w->mu);
}

static void copy_err(tbr_trace_error *err, const char *msg)
{
    if (err) snprintf(err->msg, sizeof err->msg, "%s", msg);
}

static int write_all(tbr_trace_writer *w, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t k = write(w->fd, b, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            int e = k < 0 ? errno : ENOSPC;
            set_err(w, "%s: at offset %llu: write failed: %s", w->tmp_path, (unsigned long long)w->off, strerror(e));
            return -1;
        }
        b += k;
        n -= (size_t)k;
        w->off += (uint64_t)k;
        w->st.file_bytes += (uint64_t)k;
    }
    return 0;
}

static int pwrite_all(tbr_trace_writer *w, const void *p, size_t n, uint64_t at)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t k = pwrite(w->fd, b, n, (off_t)at);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            int e = k < 0 ? errno : ENOSPC;
            set_err(w, "%s: at offset %llu: write failed: %s", w->tmp_path, (unsigned long long)at, strerror(e));
            return -1;
        }
        b += k;
        n -= (size_t)k;
        at += (uint64_t)k;
    }
    return 0;
}

static int check_ok(tbr_trace_writer *w) { return w && !w->failed ? 0 : -1; }

/* Compresses the concatenation of spans into one zstd frame and writes it as
 * a chunk. The header is written as a placeholder first and patched once the
 * compressed size and CRC are known; a crash in between leaves an all-zero
 * header, which readers (and recovery) treat as the end of valid data. */
struct span {
    const void *p;
    size_t n;
};

static int write_chunk(tbr_trace_writer *w, const struct span *spans, int nspans, uint32_t nrec, uint32_t flags)
{
    size_t usize = 0;
    for (int i = 0; i < nspans; i++) usize += spans[i].n;
    uint64_t at = w->off;
    uint8_t hdr[TBR_CHUNK_HEADER_SIZE] = {0};
    if (write_all(w, hdr, sizeof hdr) < 0) return -1;

    size_t rc = ZSTD_CCtx_reset(w->cctx, ZSTD_reset_session_only);
    if (!ZSTD_isError(rc)) rc = ZSTD_CCtx_setPledgedSrcSize(w->cctx, usize);
    if (ZSTD_isError(rc)) {
        set_err(w, "%s: at offset %llu: zstd: %s", w->tmp_path, (unsigned long long)at, ZSTD_getErrorName(rc));
        return -1;
    }
    uint32_t dcrc = 0;
    uint64_t csize = 0;
    for (int i = 0; i < nspans; i++) {
        int last = i == nspans - 1;
        ZSTD_inBuffer in = {spans[i].p, spans[i].n, 0};
        ZSTD_EndDirective mode = last ? ZSTD_e_end : ZSTD_e_continue;
        for (;;) {
            ZSTD_outBuffer out = {w->out, OUT_SLICE, 0};
            size_t left = ZSTD_compressStream2(w->cctx, &out, &in, mode);
            if (ZSTD_isError(left)) {
                set_err(w, "%s: at offset %llu: zstd: %s", w->tmp_path, (unsigned long long)at,
                        ZSTD_getErrorName(left));
                return -1;
            }
            if (out.pos) {
                dcrc = tbr_crc32(dcrc, w->out, out.pos);
                csize += out.pos;
                if (write_all(w, w->out, out.pos) < 0) return -1;
            }
            /* continue: done once input consumed; end: once fully flushed */
            if (last ? left == 0 : in.pos == in.size) break;
        }
    }
    if (csize > UINT32_MAX) { /* cannot happen for usize <= TBR_MAX_CHUNK_USIZE */
        set_err(w, "%s: at offset %llu: compressed chunk too large", w->tmp_path, (unsigned long long)at);
        return -1;
    }

    memcpy(hdr, TBR_CHUNK_MAGIC, 4);
    tbr_le32(hdr + 4, flags);
    tbr_le64(hdr + 8, w->cur.number);
    tbr_le32(hdr + 16, w->chunk_seq);
    tbr_le32(hdr + 20, nrec);
    tbr_le32(hdr + 24, (uint32_t)usize);
    tbr_le32(hdr + 28, (uint32_t)csize);
    tbr_le32(hdr + 32, dcrc);
    tbr_le32(hdr + 36, tbr_crc32(0, hdr, 36));
    if (pwrite_all(w, hdr, sizeof hdr, at) < 0) return -1;

    w->chunk_seq++;
    w->cur.chunks++;
    w->cur.records += nrec;
    w->cur.cbytes += TBR_CHUNK_HEADER_SIZE + csize;
    w->cur.ubytes += usize;
    w->st.chunks++;
    w->st.uncompressed_bytes += usize;
    w->st.compressed_bytes += csize;
    return 0;
}

/* A chunk in file order: starts the frame's index entry if it is its first chunk
 * (begins), completes it into the index if it is its last (TBR_CHUNK_FRAME_END). */
static int write_job(tbr_trace_writer *w, const struct span *spans, int nspans, uint32_t nrec, uint32_t flags,
                     int begins, uint64_t frame)
{
    if (begins) {
        w->chunk_seq = 0;
        memset(&w->cur, 0, sizeof w->cur);
        w->cur.number = frame;
        w->cur.offset = w->off; /* each frame starts a new chunk */
    }
    if (write_chunk(w, spans, nspans, nrec, flags) < 0) return -1;
    if (!(flags & TBR_CHUNK_FRAME_END)) return 0;
    if (w->nindex == w->capindex) {
        size_t ncap = w->capindex ? w->capindex * 2 : 64;
        index_entry *p = realloc(w->index, ncap * sizeof *p);
        if (!p) {
            set_err(w, "%s: out of memory for the frame index", w->path);
            return -1;
        }
        w->index = p;
        w->capindex = ncap;
    }
    w->index[w->nindex++] = w->cur;
    return 0;
}

static void *worker_main(void *arg)
{
    tbr_trace_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->job_pending && !w->worker_stop) pthread_cond_wait(&w->cv, &w->mu);
        if (!w->job_pending) break; /* stop requested and nothing left */
        pthread_mutex_unlock(&w->mu);
        if (!w->failed) {
            struct span s = {w->job.data, w->job.len};
            write_job(w, &s, 1, w->job_records, w->job_flags, w->job_begins, w->job_frame); /* errors go to set_err */
        }
        pthread_mutex_lock(&w->mu);
        w->job_pending = 0;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Waits until the worker has written every chunk handed to it. */
static void wait_idle(tbr_trace_writer *w)
{
    if (!w->background) return;
    pthread_mutex_lock(&w->mu);
    while (w->job_pending) pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

static int flush_buffer(tbr_trace_writer *w, uint32_t flags)
{
    const int begins = w->frame_begins;
    w->frame_begins = 0;
    if (w->background) {
        wait_idle(w);
        if (w->failed) return -1;
        tbr_buf full = w->chunk; /* swap: the worker takes the full buffer */
        w->chunk = w->job;
        w->job = full;
        pthread_mutex_lock(&w->mu);
        w->job_records = w->chunk_records;
        w->job_flags = flags;
        w->job_begins = begins;
        w->job_frame = w->last_number;
        w->job_pending = 1;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
    } else {
        struct span s = {w->chunk.data, w->chunk.len};
        if (write_job(w, &s, 1, w->chunk_records, flags, begins, w->last_number) < 0) return -1;
    }
    tbr_buf_reset(&w->chunk);
    w->chunk_records = 0;
    return 0;
}

static void stop_worker(tbr_trace_writer *w)
{
    if (!w->background) return;
    pthread_mutex_lock(&w->mu);
    w->worker_stop = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->worker, NULL); /* finishes a pending job first */
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    w->background = 0;
}

tbr_trace_writer *tbr_trace_writer_open(const char *path, const char *metadata, tbr_trace_error *err)
{
    return tbr_trace_writer_open_ex(path, metadata, NULL, err);
}

static void free_writer(tbr_trace_writer *w)
{
    stop_worker(w);
    tbr_buf_free(&w->job);
    if (w->fd >= 0) close(w->fd);
    ZSTD_freeCCtx(w->cctx);
    free(w->out);
    tbr_buf_free(&w->chunk);
    free(w->index);
    free(w->tmp_path);
    free(w->path);
    free(w);
}

tbr_trace_writer *tbr_trace_writer_open_ex(const char *path, const char *metadata, const tbr_trace_writer_options *opts,
                                           tbr_trace_error *err)
{
    if (err) err->msg[0] = 0;
    if (!path || !*path) {
        copy_err(err, "tbr_trace_writer_open: empty path");
        return NULL;
    }
    size_t meta_len = metadata ? strlen(metadata) : 0;
    if (meta_len > TBR_TRACE_MAX_METADATA_SIZE) {
        if (err)
            snprintf(err->msg, sizeof err->msg, "%s: metadata is %zu bytes (limit %zu)", path, meta_len,
                     TBR_TRACE_MAX_METADATA_SIZE);
        return NULL;
    }
    size_t chunk_size = opts && opts->chunk_size ? opts->chunk_size : TBR_TRACE_DEFAULT_CHUNK_SIZE;
    int level = opts && opts->compression_level ? opts->compression_level : 3;
    if (chunk_size < TBR_TRACE_MIN_CHUNK_SIZE || chunk_size > TBR_TRACE_MAX_CHUNK_SIZE) {
        if (err)
            snprintf(err->msg, sizeof err->msg, "%s: chunk size %zu outside [%zu, %zu]", path, chunk_size,
                     TBR_TRACE_MIN_CHUNK_SIZE, TBR_TRACE_MAX_CHUNK_SIZE);
        return NULL;
    }
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
        if (err)
            snprintf(err->msg, sizeof err->msg, "%s: zstd level %d outside [%d, %d]", path, level, ZSTD_minCLevel(),
                     ZSTD_maxCLevel());
        return NULL;
    }

    tbr_trace_writer *w = calloc(1, sizeof *w);
    if (!w) {
        copy_err(err, "tbr_trace_writer_open: out of memory");
        return NULL;
    }
    w->fd = -1;
    w->chunk_size = chunk_size;
    w->level = level;
    w->do_fsync = opts && opts->fsync;
    tbr_buf_init(&w->chunk);
    size_t plen = strlen(path);
    w->path = malloc(plen + 1);
    w->tmp_path = malloc(plen + 5);
    w->out = malloc(OUT_SLICE);
    w->cctx = ZSTD_createCCtx();
    /* Exactly chunk_size (not tbr_buf's power-of-two growth): the buffer
     * never grows afterwards, which is what bounds the writer's memory. */
    w->chunk.data = malloc(chunk_size);
    w->chunk.cap = chunk_size;
    if (!w->path || !w->tmp_path || !w->out || !w->cctx || !w->chunk.data) {
        copy_err(err, "tbr_trace_writer_open: out of memory");
        free_writer(w);
        return NULL;
    }
    memcpy(w->path, path, plen + 1);
    memcpy(w->tmp_path, path, plen);
    memcpy(w->tmp_path + plen, ".tmp", 5);
    w->st.peak_buffer_bytes = w->chunk.cap;

    /* Fixed parameters, single-threaded: the same records always give the
     * same bytes (for a given zstd version). */
    size_t rc = ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level);
    if (!ZSTD_isError(rc)) rc = ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1);
    if (!ZSTD_isError(rc)) rc = ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 0);
    if (ZSTD_isError(rc)) {
        if (err) snprintf(err->msg, sizeof err->msg, "%s: zstd: %s", path, ZSTD_getErrorName(rc));
        free_writer(w);
        return NULL;
    }

    w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (w->fd < 0) {
        if (err) snprintf(err->msg, sizeof err->msg, "%s: cannot create: %s", w->tmp_path, strerror(errno));
        free_writer(w);
        return NULL;
    }

    uint8_t hdr[TBR_FILE_HEADER_SIZE];
    memcpy(hdr, TBR_FILE_MAGIC, 8);
    tbr_le16(hdr + 8, TBR_TRACE_VERSION_MAJOR);
    tbr_le16(hdr + 10, TBR_TRACE_VERSION_MINOR);
    tbr_le32(hdr + 12, 0); /* feature flags: none defined in 1.0 */
    tbr_le32(hdr + 16, (uint32_t)meta_len);
    uint32_t crc = tbr_crc32(0, hdr, 20);
    crc = tbr_crc32(crc, metadata ? metadata : "", meta_len);
    tbr_le32(hdr + 20, crc);
    if (write_all(w, hdr, sizeof hdr) < 0 || write_all(w, metadata, meta_len) < 0) {
        copy_err(err, w->err);
        tbr_trace_writer_abort(w);
        return NULL;
    }
    if (opts && opts->background) {
        /* Without a thread or the spare buffer, stay synchronous: same file either way. */
        w->job.data = malloc(chunk_size);
        w->job.cap = chunk_size;
        if (w->job.data && pthread_mutex_init(&w->mu, NULL) == 0) {
            if (pthread_cond_init(&w->cv, NULL) == 0) {
                if (pthread_create(&w->worker, NULL, worker_main, w) == 0) {
                    w->background = 1;
                    w->st.peak_buffer_bytes = 2 * w->chunk.cap;
                } else {
                    pthread_cond_destroy(&w->cv);
                    pthread_mutex_destroy(&w->mu);
                }
            } else {
                pthread_mutex_destroy(&w->mu);
            }
        }
    }
    return w;
}

int tbr_trace_writer_begin_frame(tbr_trace_writer *w, uint64_t frame_number)
{
    if (check_ok(w) < 0) return -1;
    if (w->in_frame) {
        set_err(w, "%s: begin_frame(%llu): frame %llu is still open", w->path, (unsigned long long)frame_number,
                (unsigned long long)w->last_number);
        return -1;
    }
    if (w->have_frame && frame_number <= w->last_number) {
        set_err(w, "%s: begin_frame(%llu): frame numbers must increase (previous %llu)", w->path,
                (unsigned long long)frame_number, (unsigned long long)w->last_number);
        return -1;
    }
    w->in_frame = 1;
    w->have_frame = 1;
    w->last_number = frame_number;
    w->frame_begins = 1;
    return 0;
}

int tbr_trace_writer_append(tbr_trace_writer *w, uint16_t type, const void *payload, size_t len)
{
    if (check_ok(w) < 0) return -1;
    if (!w->in_frame) {
        set_err(w, "%s: append(type %u): no frame is open (call begin_frame first)", w->path, type);
        return -1;
    }
    if (len > TBR_TRACE_MAX_RECORD_SIZE) {
        set_err(w, "%s: append(type %u): record of %zu bytes exceeds the %zu-byte limit", w->path, type, len,
                TBR_TRACE_MAX_RECORD_SIZE);
        return -1;
    }
    if (!payload && len) {
        set_err(w, "%s: append(type %u): NULL payload with length %zu", w->path, type, len);
        return -1;
    }
    uint8_t rh[TBR_RECORD_HEADER_MAX];
    size_t hl = 0;
    uint64_t v = type;
    while (v >= 0x80) {
        rh[hl++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    rh[hl++] = (uint8_t)v;
    v = len;
    while (v >= 0x80) {
        rh[hl++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    rh[hl++] = (uint8_t)v;
    size_t rec = hl + len;

    /* Keep each chunk's content <= chunk_size: start a new chunk if this
     * record does not fit in the current one. */
    if (w->chunk.len && (rec > w->chunk_size - w->chunk.len || w->chunk_records == UINT32_MAX))
        if (flush_buffer(w, 0) < 0) return -1;
    if (rec > w->chunk_size) {
        /* Oversized record: compressed straight from the caller's memory into
         * a chunk of its own, so the buffer never grows past chunk_size. */
        struct span s[2] = {{rh, hl}, {payload, len}};
        wait_idle(w); /* chunks stay in order */
        const int begins = w->frame_begins;
        w->frame_begins = 0;
        if (w->failed || write_job(w, s, 2, 1, 0, begins, w->last_number) < 0) return -1;
    } else {
        tbr_buf_put_bytes(&w->chunk, rh, hl);
        tbr_buf_put_bytes(&w->chunk, payload, len);
        if (!tbr_buf_ok(&w->chunk)) { /* cannot happen: capacity reserved at open */
            set_err(w, "%s: out of memory", w->path);
            return -1;
        }
        w->chunk_records++;
    }
    if (w->chunk.cap > w->st.peak_buffer_bytes) w->st.peak_buffer_bytes = w->chunk.cap;
    w->st.records++;
    w->st.payload_bytes += len;
    return 0;
}

int tbr_trace_writer_append_buf(tbr_trace_writer *w, uint16_t type, const tbr_buf *payload)
{
    if (check_ok(w) < 0) return -1;
    if (!payload || !tbr_buf_ok(payload)) {
        set_err(w, "%s: append(type %u): payload buffer is in a failed state", w->path, type);
        return -1;
    }
    return tbr_trace_writer_append(w, type, payload->data, payload->len);
}

int tbr_trace_writer_end_frame(tbr_trace_writer *w)
{
    if (check_ok(w) < 0) return -1;
    if (!w->in_frame) {
        set_err(w, "%s: end_frame: no frame is open", w->path);
        return -1;
    }
    /* The final chunk carries the frame-end flag; it may be empty (empty
     * frame, or the frame ended with an oversized record). It completes the frame's
     * index entry where it is written: no wait, the next frame is recorded while it
     * is compressed. */
    if (flush_buffer(w, TBR_CHUNK_FRAME_END) < 0) return -1;
    w->in_frame = 0;
    w->st.frames++;
    return 0;
}

const char *tbr_trace_writer_error(const tbr_trace_writer *w) { return w ? w->err : ""; }

void tbr_trace_writer_get_stats(const tbr_trace_writer *w, tbr_trace_writer_stats *out)
{
    if (w && out) {
        wait_idle((tbr_trace_writer *)w); /* the worker updates the chunk counters */
        *out = w->st;
    }
}

static int write_index_and_footer(tbr_trace_writer *w)
{
    uint64_t index_off = w->off;
    uint64_t total = 0;
    uint8_t e[TBR_INDEX_ENTRY_SIZE];
    uint32_t crc = tbr_crc32(0, TBR_INDEX_MAGIC, TBR_INDEX_HEADER_SIZE);
    if (write_all(w, TBR_INDEX_MAGIC, TBR_INDEX_HEADER_SIZE) < 0) return -1;
    /* Entry by entry: the index is small relative to the chunks, and this
     * avoids a second copy of it in memory. */
    for (size_t i = 0; i < w->nindex; i++) {
        const index_entry *x = &w->index[i];
        tbr_le64(e, x->number);
        tbr_le64(e + 8, x->offset);
        tbr_le32(e + 16, x->chunks);
        tbr_le32(e + 20, 0);
        tbr_le64(e + 24, x->records);
        tbr_le64(e + 32, x->cbytes);
        tbr_le64(e + 40, x->ubytes);
        crc = tbr_crc32(crc, e, sizeof e);
        total += x->records;
        if (write_all(w, e, sizeof e) < 0) return -1;
    }
    uint8_t f[TBR_FOOTER_SIZE];
    tbr_le64(f, index_off);
    tbr_le64(f + 8, w->nindex);
    tbr_le64(f + 16, total);
    tbr_le32(f + 24, crc);
    tbr_le32(f + 28, tbr_crc32(0, f, 28));
    memcpy(f + 32, TBR_FOOTER_MAGIC, 8);
    return write_all(w, f, sizeof f);
}

int tbr_trace_writer_close(tbr_trace_writer *w, tbr_trace_writer_stats *stats, tbr_trace_error *err)
{
    if (err) err->msg[0] = 0;
    if (!w) {
        copy_err(err, "tbr_trace_writer_close: NULL writer");
        return -1;
    }
    stop_worker(w); /* writes the chunk it holds; the rest is single-threaded */
    if (!w->failed && w->in_frame)
        set_err(w, "%s: close: frame %llu is still open (call end_frame first)", w->path,
                (unsigned long long)w->last_number);
    if (!w->failed) write_index_and_footer(w);
    if (!w->failed && w->do_fsync && fsync(w->fd) < 0) set_err(w, "%s: fsync failed: %s", w->tmp_path, strerror(errno));
    if (!w->failed) {
        /* close() can report delayed write errors (e.g. NFS quota). */
        int rc = close(w->fd);
        w->fd = -1;
        if (rc < 0) set_err(w, "%s: close failed: %s", w->tmp_path, strerror(errno));
    }
    if (!w->failed && rename(w->tmp_path, w->path) < 0)
        set_err(w, "%s: cannot rename %s into place: %s", w->path, w->tmp_path, strerror(errno));
    if (stats) *stats = w->st;
    if (w->failed) {
        copy_err(err, w->err);
        tbr_trace_writer_abort(w);
        return -1;
    }
    free_writer(w);
    return 0;
}

void tbr_trace_writer_abort(tbr_trace_writer *w)
{
    if (!w) return;
    if (w->fd >= 0) {
        close(w->fd);
        w->fd = -1;
    }
    unlink(w->tmp_path);
    free_writer(w);
}
