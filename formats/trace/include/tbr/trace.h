/*
 * tbr/trace.h - the GPU activity trace CONTAINER (generic, schema-agnostic).
 *
 * A trace file is a sequence of frames; each frame is a sequence of typed
 * records (uint16 type + opaque payload bytes). Records are packed into
 * independently zstd-compressed, CRC32-checked chunks; a per-frame index and
 * a footer at the end of the file allow seeking to any frame. The payload
 * schema (what a record of type T contains) is defined elsewhere
 * (formats/records/) on top of the tbr_buf / tbr_cursor helpers below.
 *
 * Byte layout, versioning rules and error behaviour: docs/trace-container.md.
 *
 * Conventions:
 *  - int-returning functions return 0 (or a positive count / 1 = "got one")
 *    on success and a negative value on error; pointer-returning functions
 *    return NULL on error.
 *  - Error text has the form "FILE: at offset N: problem" and is retrieved
 *    with tbr_trace_reader_error() / tbr_trace_writer_error(), or through a
 *    caller-provided tbr_trace_error for open/close (which may be NULL).
 *  - Not thread-safe; one reader/writer object per thread.
 */
#ifndef TBR_TRACE_H
#define TBR_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Container format version written by this library. A reader accepts files
 * with the same major version and ANY minor version (minor bumps only add
 * things an older reader may safely ignore); see docs/trace-container.md. */
#define TBR_TRACE_VERSION_MAJOR 1
#define TBR_TRACE_VERSION_MINOR 0

/* Largest record payload accepted by writer and reader (64 MiB). This bounds
 * the memory a reader may need for one record, whatever the file claims. */
#define TBR_TRACE_MAX_RECORD_SIZE    ((size_t)64 << 20)
/* Largest file-level metadata blob (1 MiB). */
#define TBR_TRACE_MAX_METADATA_SIZE  ((size_t)1 << 20)
/* Default / limits for the writer's chunk buffer (uncompressed bytes). */
#define TBR_TRACE_DEFAULT_CHUNK_SIZE ((size_t)1 << 20)
#define TBR_TRACE_MIN_CHUNK_SIZE     ((size_t)64)
#define TBR_TRACE_MAX_CHUNK_SIZE     ((size_t)16 << 20)

/* Caller-provided error text for functions that create/destroy objects. */
#define TBR_TRACE_ERROR_MAX 1024
typedef struct tbr_trace_error {
    char msg[TBR_TRACE_ERROR_MAX];
} tbr_trace_error;

/* ------------------------------------------------------------------------ */
/* Payload builder: growable byte buffer with a sticky out-of-memory flag.  */
/* All tbr_buf_put_* return 0 on success, -1 if the buffer has failed (then */
/* the buffer content is unspecified; check tbr_buf_ok() once at the end).  */
/* ------------------------------------------------------------------------ */
typedef struct tbr_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    int failed; /* sticky: an allocation failed */
} tbr_buf;

void tbr_buf_init(tbr_buf *b);
void tbr_buf_free(tbr_buf *b);                 /* releases memory, re-inits */
void tbr_buf_reset(tbr_buf *b);                /* len = 0, keeps capacity, clears failed */
int tbr_buf_ok(const tbr_buf *b);              /* 1 if no allocation failed */
int tbr_buf_reserve(tbr_buf *b, size_t extra); /* ensure cap >= len + extra */

int tbr_buf_put_u8(tbr_buf *b, uint8_t v);
int tbr_buf_put_u16(tbr_buf *b, uint16_t v); /* little-endian fixed width */
int tbr_buf_put_u32(tbr_buf *b, uint32_t v);
int tbr_buf_put_u64(tbr_buf *b, uint64_t v);
int tbr_buf_put_f32(tbr_buf *b, float v); /* IEEE-754 bits, LE; NaN payloads kept */
int tbr_buf_put_f64(tbr_buf *b, double v);
int tbr_buf_put_uvarint(tbr_buf *b, uint64_t v);             /* unsigned LEB128, 1..10 bytes */
int tbr_buf_put_svarint(tbr_buf *b, int64_t v);              /* zigzag then LEB128 */
int tbr_buf_put_bytes(tbr_buf *b, const void *p, size_t n);  /* raw, no length */
int tbr_buf_put_lbytes(tbr_buf *b, const void *p, size_t n); /* uvarint length + bytes */
int tbr_buf_put_str(tbr_buf *b, const char *s);              /* uvarint strlen + bytes (no NUL); NULL = "" */

static inline uint64_t tbr_zigzag_encode(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(0 - ((uint64_t)v >> 63)); }
static inline int64_t tbr_zigzag_decode(uint64_t v)
{
    /* Done in unsigned arithmetic then converted: avoids signed overflow UB. */
    uint64_t u = (v >> 1) ^ (0 - (v & 1));
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
}

/* ------------------------------------------------------------------------ */
/* Payload cursor: bounds-checked reads with a sticky error flag. After an  */
/* overrun (or malformed/out-of-range varint) every read returns 0 / NULL   */
/* and the position no longer advances; check tbr_cursor_ok() at the end.   */
/* ------------------------------------------------------------------------ */
typedef struct tbr_cursor {
    const uint8_t *data;
    size_t len;
    size_t pos;
    int error; /* sticky */
} tbr_cursor;

void tbr_cursor_init(tbr_cursor *c, const void *data, size_t len);
int tbr_cursor_ok(const tbr_cursor *c);     /* 1 if no error so far */
int tbr_cursor_at_end(const tbr_cursor *c); /* ok and every byte consumed */
size_t tbr_cursor_remaining(const tbr_cursor *c);
void tbr_cursor_fail(tbr_cursor *c); /* let schema code flag bad values */

/* n raw bytes: pointer into the payload, NULL on overrun (n == 0 gives a
 * non-NULL pointer when the cursor is ok). The fixed-size and varint reads are inline:
 * record decoding calls them per value (the simulator's trace front end). */
static inline const uint8_t *tbr_cursor_bytes(tbr_cursor *c, size_t n)
{
    static const uint8_t empty[1];
    if (c->error || n > c->len - c->pos) {
        c->error = 1;
        return NULL;
    }
    /* A zero-length read of an empty (data == NULL) cursor still succeeds. */
    const uint8_t *p = c->data ? c->data + c->pos : empty;
    c->pos += n;
    return p;
}
static inline uint64_t tbr_cursor_le_(tbr_cursor *c, size_t n)
{
    const uint8_t *p = tbr_cursor_bytes(c, n);
    uint64_t v = 0;
    if (!p) return 0;
    for (size_t i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static inline uint8_t tbr_cursor_u8(tbr_cursor *c) { return (uint8_t)tbr_cursor_le_(c, 1); }
static inline uint16_t tbr_cursor_u16(tbr_cursor *c) { return (uint16_t)tbr_cursor_le_(c, 2); }
static inline uint32_t tbr_cursor_u32(tbr_cursor *c) { return (uint32_t)tbr_cursor_le_(c, 4); }
static inline uint64_t tbr_cursor_u64(tbr_cursor *c) { return tbr_cursor_le_(c, 8); }
static inline float tbr_cursor_f32(tbr_cursor *c)
{
    uint32_t u = tbr_cursor_u32(c);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline double tbr_cursor_f64(tbr_cursor *c)
{
    uint64_t u = tbr_cursor_u64(c);
    double d;
    memcpy(&d, &u, 8);
    return d;
}
uint64_t tbr_cursor_uvarint_multi(tbr_cursor *c); /* any length (out of line) */
static inline uint64_t tbr_cursor_uvarint(tbr_cursor *c)
{
    if (!c->error && c->pos < c->len && c->data[c->pos] < 0x80)
        return c->data[c->pos++]; /* one byte: the common case */
    return tbr_cursor_uvarint_multi(c);
}
static inline uint32_t tbr_cursor_uvarint32(tbr_cursor *c) /* error if value > UINT32_MAX */
{
    uint64_t v = tbr_cursor_uvarint(c);
    if (v > UINT32_MAX) {
        c->error = 1;
        return 0;
    }
    return (uint32_t)v;
}
static inline int64_t tbr_cursor_svarint(tbr_cursor *c) { return tbr_zigzag_decode(tbr_cursor_uvarint(c)); }
static inline int32_t tbr_cursor_svarint32(tbr_cursor *c) /* error if out of int32 range */
{
    int64_t v = tbr_cursor_svarint(c);
    if (v < INT32_MIN || v > INT32_MAX) {
        c->error = 1;
        return 0;
    }
    return (int32_t)v;
}
/* uvarint length + bytes (as written by put_lbytes/put_str); NOT NUL-terminated. */
const uint8_t *tbr_cursor_lbytes(tbr_cursor *c, size_t *len);

/* ------------------------------------------------------------------------ */
/* Writer                                                                   */
/* ------------------------------------------------------------------------ */
typedef struct tbr_trace_writer tbr_trace_writer;

typedef struct tbr_trace_writer_options {
    size_t chunk_size;     /* uncompressed chunk buffer cap; 0 = default (1 MiB) */
    int compression_level; /* zstd level; 0 = default (3) */
    int fsync;             /* nonzero: fsync the file before the final rename */
    int background;        /* nonzero: compress and write each full chunk on a worker
                             * thread while the caller fills the next one (the file is
                             * byte-identical; one more chunk buffer of memory) */
} tbr_trace_writer_options;

typedef struct tbr_trace_writer_stats {
    uint64_t frames;
    uint64_t records;
    uint64_t chunks;
    uint64_t payload_bytes;      /* sum of record payload lengths */
    uint64_t uncompressed_bytes; /* chunk contents before compression (payload + record headers) */
    uint64_t compressed_bytes;   /* chunk contents after compression */
    uint64_t file_bytes;         /* everything written: header, chunk headers, index, footer */
    uint64_t peak_buffer_bytes;  /* largest chunk-buffer capacity ever held (bounded-memory check) */
} tbr_trace_writer_stats;

/* Creates PATH.tmp; the file appears at PATH only after a successful
 * tbr_trace_writer_close(). metadata: NUL-terminated text, conventionally
 * "key=value\n" lines (may be NULL). Returns NULL on error (text in *err). */
tbr_trace_writer *tbr_trace_writer_open(const char *path, const char *metadata, tbr_trace_error *err);
tbr_trace_writer *tbr_trace_writer_open_ex(const char *path, const char *metadata, const tbr_trace_writer_options *opts,
                                           tbr_trace_error *err);
/* frame_number must be strictly greater than the previous frame's (it is the
 * source trace's frame number; it need not start at 0 nor be contiguous). */
int tbr_trace_writer_begin_frame(tbr_trace_writer *w, uint64_t frame_number);
/* Only inside a frame. len <= TBR_TRACE_MAX_RECORD_SIZE; payload may be NULL
 * when len == 0. Records larger than the chunk size get a chunk of their own. */
int tbr_trace_writer_append(tbr_trace_writer *w, uint16_t type, const void *payload, size_t len);
int tbr_trace_writer_append_buf(tbr_trace_writer *w, uint16_t type, const tbr_buf *payload);
int tbr_trace_writer_end_frame(tbr_trace_writer *w);
/* Any error is sticky: every later call fails, and close() then removes the
 * temp file. */
const char *tbr_trace_writer_error(const tbr_trace_writer *w); /* "" if none */
void tbr_trace_writer_get_stats(const tbr_trace_writer *w, tbr_trace_writer_stats *out);
/* Writes index + footer, renames PATH.tmp to PATH and frees w (always, even on
 * failure). Fails if a frame is still open or an earlier error occurred; on
 * failure the temp file is removed and nothing is left at PATH by this call.
 * stats (may be NULL) receives the final stats. */
int tbr_trace_writer_close(tbr_trace_writer *w, tbr_trace_writer_stats *stats, tbr_trace_error *err);
/* Discards everything: removes the temp file, frees w. NULL is a no-op. */
void tbr_trace_writer_abort(tbr_trace_writer *w);

/* ------------------------------------------------------------------------ */
/* Reader                                                                   */
/* ------------------------------------------------------------------------ */
typedef struct tbr_trace_reader tbr_trace_reader;

/* Recovery mode: if the footer/index is missing or damaged (e.g. the writer
 * crashed), rebuild the frame list by scanning chunk headers from the start
 * and stop at the first damaged/incomplete chunk. The last recovered frame
 * may be incomplete (see tbr_trace_file_info.recovered). Without this flag
 * such files are rejected as truncated/incomplete. */
#define TBR_TRACE_READ_RECOVER 1u

typedef struct tbr_trace_reader_options {
    unsigned flags; /* TBR_TRACE_READ_* */
} tbr_trace_reader_options;

typedef struct tbr_trace_file_info {
    uint16_t version_major;
    uint16_t version_minor;
    uint64_t file_size;
    uint64_t frame_count;
    uint64_t record_count;     /* sum over frames */
    int recovered;             /* 1: index rebuilt by a recovery scan */
    int last_frame_incomplete; /* recovery only: last frame lacks its end marker */
    uint64_t recovery_end;     /* recovery only: offset where the chunk scan stopped */
} tbr_trace_file_info;

typedef struct tbr_trace_frame_info {
    uint64_t number;      /* source trace frame number */
    uint64_t offset;      /* file offset of the frame's first chunk */
    uint32_t chunk_count; /* >= 1 (an empty frame has one empty chunk) */
    uint64_t record_count;
    uint64_t compressed_bytes;   /* on-disk bytes of the frame's chunks, headers included */
    uint64_t uncompressed_bytes; /* decompressed chunk contents (record headers + payloads) */
} tbr_trace_frame_info;

typedef struct tbr_trace_reader_stats {
    uint64_t chunks_read;
    uint64_t compressed_bytes_read;
    uint64_t uncompressed_bytes_read;
    uint64_t peak_buffer_bytes; /* largest compressed + uncompressed buffers held */
} tbr_trace_reader_stats;

/* Validates header, footer and index (or scans, in recovery mode). Returns
 * NULL with text in *err if the file is unreadable, corrupt, truncated or of
 * an incompatible version. */
tbr_trace_reader *tbr_trace_reader_open(const char *path, tbr_trace_error *err);
tbr_trace_reader *tbr_trace_reader_open_ex(const char *path, const tbr_trace_reader_options *opts,
                                           tbr_trace_error *err);
/* Reads from memory (not copied: data must outlive the reader); name is used
 * in error messages. For tests and fuzzing. */
tbr_trace_reader *tbr_trace_reader_open_mem(const void *data, size_t size, const char *name,
                                            const tbr_trace_reader_options *opts, tbr_trace_error *err);
void tbr_trace_reader_close(tbr_trace_reader *r); /* NULL is a no-op */

const char *tbr_trace_reader_error(const tbr_trace_reader *r); /* "" if none */
const char *tbr_trace_reader_name(const tbr_trace_reader *r);
void tbr_trace_reader_file_info(const tbr_trace_reader *r, tbr_trace_file_info *out);
void tbr_trace_reader_get_stats(const tbr_trace_reader *r, tbr_trace_reader_stats *out);

/* Whole metadata blob, NUL-terminated (len excludes the NUL); "" if none. */
const char *tbr_trace_reader_metadata(const tbr_trace_reader *r, size_t *len);
/* Value of the first "key=value" line with this key: pointer into the blob
 * (NOT NUL-terminated) and its length in *len; NULL if absent. */
const char *tbr_trace_reader_metadata_get(const tbr_trace_reader *r, const char *key, size_t *len);

size_t tbr_trace_reader_frame_count(const tbr_trace_reader *r);
int tbr_trace_reader_frame_info(const tbr_trace_reader *r, size_t index, tbr_trace_frame_info *out);
/* Index of the frame with this source frame number (binary search); -1 if
 * there is none (no error is recorded). */
int tbr_trace_reader_find_frame(const tbr_trace_reader *r, uint64_t number, size_t *index);

/* Frame iteration. The reader has a "current frame"; initially none (before
 * the first frame). next_frame() moves to the following frame (the first one
 * initially) and returns 1, 0 when there are no more frames, -1 on error.
 * seek_frame*() make the given frame current without decoding earlier ones.
 * info may be NULL. Typical loop:
 *     while ((rc = tbr_trace_reader_next_frame(r, &fi)) > 0)
 *         while ((rc = tbr_trace_reader_next_record(r, &t, &p, &n)) > 0) ...
 *     if (rc < 0) fprintf(stderr, "%s\n", tbr_trace_reader_error(r));       */
int tbr_trace_reader_next_frame(tbr_trace_reader *r, tbr_trace_frame_info *info);
int tbr_trace_reader_seek_frame(tbr_trace_reader *r, size_t index);
int tbr_trace_reader_seek_frame_number(tbr_trace_reader *r, uint64_t number);

/* Next record of the current frame: 1 and (*type, *payload, *len) -- payload
 * valid until the next reader call; 0 at the end of the frame (or when no
 * frame is current); -1 on error (corruption is detected here for chunk
 * contents). Errors are sticky until the next seek/next_frame. */
int tbr_trace_reader_next_record(tbr_trace_reader *r, uint16_t *type, const uint8_t **payload, size_t *len);

/* For schema decoders: records an error located at the current record
 * ("FILE: at offset N: frame F, record K: <message>", N = the record's chunk
 * offset) and returns -1; next_record() then fails until the next seek. */
int tbr_trace_reader_fail(tbr_trace_reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif /* TBR_TRACE_H */
