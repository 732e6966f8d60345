/* Trace reader: validates header/footer/index up front, then decodes one
 * chunk at a time. Every size read from the file is checked against hard
 * limits and the real file size before it is used to allocate or read. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define NO_FRAME SIZE_MAX

#ifdef TBR_TRACE_FUZZING
int tbr_trace_fuzz_ignore_crc;
#endif

struct tbr_trace_reader {
    char *name;
    int fd; /* -1 for memory sources */
    const uint8_t *mem;
    uint64_t size;
    unsigned flags;

    char err[TBR_TRACE_ERROR_MAX];
    int failed; /* sticky until the next seek */

    uint16_t major, minor;
    char *meta;
    size_t meta_len;
    uint64_t data_start; /* first chunk offset = end of header + metadata */

    tbr_trace_frame_info *frames;
    size_t nframes;
    uint64_t total_records;
    int recovered, last_incomplete;
    uint64_t recovery_end;

    ZSTD_DCtx *dctx;
    uint8_t *cbuf;
    size_t ccap;
    uint8_t *ubuf;
    size_t ucap;

    /* iteration state */
    size_t cur; /* current frame index, NO_FRAME before the first */
    int frame_done;
    uint64_t next_chunk; /* offset of the next chunk to load */
    uint32_t chunks_left;
    uint32_t seq; /* expected index of the next chunk in the frame */
    uint64_t sum_records, sum_ubytes;
    uint64_t rec_in_frame; /* index of the next record within the frame */
    int chunk_loaded;
    uint64_t chunk_off;
    size_t ulen, upos;
    uint32_t chunk_recs_left;

    tbr_trace_reader_stats st;
};

/* Formats "NAME: at offset OFF: " (or "NAME: ") + extra + message into dst;
 * written piecewise so long names simply truncate the message. */
static void vset(char *dst, const char *name, int has_off, uint64_t off, const char *extra, const char *fmt, va_list ap)
{
    int n = has_off ? snprintf(dst, TBR_TRACE_ERROR_MAX, "%s: at offset %llu: %s", name, (unsigned long long)off, extra)
                    : snprintf(dst, TBR_TRACE_ERROR_MAX, "%s: %s", name, extra);
    if (n >= 0 && n < TBR_TRACE_ERROR_MAX) vsnprintf(dst + n, TBR_TRACE_ERROR_MAX - (size_t)n, fmt, ap);
}

/* Error located at a file offset: "NAME: at offset OFF: ...". */
static int fail_at(tbr_trace_reader *r, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(tbr_trace_reader *r, uint64_t off, const char *fmt, ...)
{
    if (r->failed) return -1;
    va_list ap;
    va_start(ap, fmt);
    vset(r->err, r->name, 1, off, "", fmt, ap);
    va_end(ap);
    r->failed = 1;
    return -1;
}

/* Error not tied to file content (API misuse, system errors). */
static int fail_api(tbr_trace_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail_api(tbr_trace_reader *r, const char *fmt, ...)
{
    if (r->failed) return -1;
    va_list ap;
    va_start(ap, fmt);
    vset(r->err, r->name, 0, 0, "", fmt, ap);
    va_end(ap);
    r->failed = 1;
    return -1;
}

/* Reads exactly n bytes at off; anything past EOF is reported as truncation
 * of the named structure. */
static int read_at(tbr_trace_reader *r, uint64_t off, void *dst, size_t n, const char *what)
{
    if (off > r->size || n > r->size - off)
        return fail_at(r, off, "truncated file: %s needs %zu bytes but the file ends at offset %llu", what, n,
                       (unsigned long long)r->size);
    if (!n) return 0;
    if (r->mem) {
        memcpy(dst, r->mem + off, n);
        return 0;
    }
    uint8_t *b = dst;
    while (n) {
        ssize_t k = pread(r->fd, b, n, (off_t)off);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return fail_at(r, off, "read error in %s: %s", what, strerror(errno));
        if (k == 0) /* file shrank after open */
            return fail_at(r, off, "truncated file: unexpected end of file in %s", what);
        b += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

static int grow(tbr_trace_reader *r, uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    uint8_t *p = realloc(*buf, need);
    if (!p) return fail_api(r, "out of memory (%zu bytes)", need);
    *buf = p;
    *cap = need;
    if (r->ccap + r->ucap > r->st.peak_buffer_bytes) r->st.peak_buffer_bytes = r->ccap + r->ucap;
    return 0;
}

/* ---------------------------------------------------------------- header */

static int read_header(tbr_trace_reader *r)
{
    uint8_t h[TBR_FILE_HEADER_SIZE];
    size_t avail = r->size < 8 ? (size_t)r->size : 8;
    uint8_t m[8];
    if (read_at(r, 0, m, avail, "file magic") < 0) return -1;
    /* Check the magic on whatever is there first: a short non-trace file is
     * "not a trace", not "truncated". */
    if (memcmp(m, TBR_FILE_MAGIC, avail) != 0) return fail_at(r, 0, "bad magic: not a tbrsim GPU activity trace");
    if (read_at(r, 0, h, sizeof h, "file header") < 0) return -1;
    r->major = tbr_rd16(h + 8);
    r->minor = tbr_rd16(h + 10);
    /* Version before anything else: another major version may lay out the
     * rest of the header differently. */
    if (r->major != TBR_TRACE_VERSION_MAJOR)
        return fail_at(r, 8,
                       "unsupported container version %u.%u (this reader supports major "
                       "version %u, any minor)",
                       r->major, r->minor, TBR_TRACE_VERSION_MAJOR);
    uint32_t flags = tbr_rd32(h + 12);
    uint32_t mlen = tbr_rd32(h + 16);
    if (mlen > TBR_TRACE_MAX_METADATA_SIZE)
        return fail_at(r, 16, "metadata length %u exceeds the %zu-byte limit", mlen, TBR_TRACE_MAX_METADATA_SIZE);
    /* Blame the length field (offset 16) rather than reporting a truncated
     * metadata block at 24: the length is the likelier culprit. */
    if (mlen > r->size - TBR_FILE_HEADER_SIZE)
        return fail_at(r, 16, "metadata length %u runs past the end of the %llu-byte file", mlen,
                       (unsigned long long)r->size);
    r->meta = malloc((size_t)mlen + 1);
    if (!r->meta) return fail_api(r, "out of memory");
    if (read_at(r, TBR_FILE_HEADER_SIZE, r->meta, mlen, "metadata") < 0) return -1;
    r->meta[mlen] = 0;
    r->meta_len = mlen;
    uint32_t crc = tbr_crc32(tbr_crc32(0, h, 20), r->meta, mlen);
    if (TBR_CRC_BAD(crc, tbr_rd32(h + 20)))
        return fail_at(r, 0, "file header checksum mismatch (header or metadata corrupt)");
    if (flags != 0)
        return fail_at(r, 12, "unsupported feature flags 0x%x in version %u.%u file", flags, r->major, r->minor);
    r->data_start = TBR_FILE_HEADER_SIZE + (uint64_t)mlen;
    return 0;
}

/* ---------------------------------------------------------- footer/index */

static int read_index(tbr_trace_reader *r)
{
    uint64_t data_start = r->data_start;
    if (r->size < data_start + TBR_FOOTER_SIZE)
        return fail_at(r, r->size,
                       "truncated or incomplete file: no room for the %u-byte footer "
                       "(writer did not finish?)",
                       TBR_FOOTER_SIZE);
    uint64_t foot_off = r->size - TBR_FOOTER_SIZE;
    uint8_t f[TBR_FOOTER_SIZE];
    if (read_at(r, foot_off, f, sizeof f, "footer") < 0) return -1;
    if (memcmp(f + 32, TBR_FOOTER_MAGIC, 8) != 0)
        return fail_at(r, foot_off,
                       "truncated or incomplete file: no footer at end of file (writer did "
                       "not finish, or file cut short)");
    if (TBR_CRC_BAD(tbr_crc32(0, f, 28), tbr_rd32(f + 28))) return fail_at(r, foot_off, "footer checksum mismatch");
    uint64_t index_off = tbr_rd64(f);
    uint64_t nframes = tbr_rd64(f + 8);
    uint64_t total = tbr_rd64(f + 16);
    uint32_t index_crc = tbr_rd32(f + 24);
    if (index_off < data_start || index_off > foot_off || foot_off - index_off < TBR_INDEX_HEADER_SIZE)
        return fail_at(r, foot_off, "footer: index offset %llu outside the file body", (unsigned long long)index_off);
    uint64_t isize = foot_off - index_off;
    if (nframes > (isize - TBR_INDEX_HEADER_SIZE) / TBR_INDEX_ENTRY_SIZE ||
        isize != TBR_INDEX_HEADER_SIZE + nframes * TBR_INDEX_ENTRY_SIZE)
        return fail_at(r, foot_off, "footer: frame count %llu does not match the %llu-byte index",
                       (unsigned long long)nframes, (unsigned long long)isize);
    if (isize > SIZE_MAX) return fail_at(r, index_off, "index too large");

    uint8_t *ix = malloc((size_t)isize);
    r->frames = calloc(nframes ? (size_t)nframes : 1, sizeof *r->frames);
    if (!ix || !r->frames) {
        free(ix);
        return fail_api(r, "out of memory for a %llu-frame index", (unsigned long long)nframes);
    }
    int rc = -1;
    if (read_at(r, index_off, ix, (size_t)isize, "frame index") < 0) goto out;
    if (TBR_CRC_BAD(tbr_crc32(0, ix, (size_t)isize), index_crc)) {
        fail_at(r, index_off, "frame index checksum mismatch");
        goto out;
    }
    if (memcmp(ix, TBR_INDEX_MAGIC, TBR_INDEX_HEADER_SIZE) != 0) {
        fail_at(r, index_off, "bad frame index magic");
        goto out;
    }
    /* The index passed its CRC, but a buggy/hostile writer could still have
     * produced inconsistent entries: check they tile the body exactly. */
    uint64_t expect_off = data_start, sum = 0;
    for (size_t i = 0; i < nframes; i++) {
        const uint8_t *e = ix + TBR_INDEX_HEADER_SIZE + i * TBR_INDEX_ENTRY_SIZE;
        uint64_t eoff = index_off + TBR_INDEX_HEADER_SIZE + i * TBR_INDEX_ENTRY_SIZE;
        tbr_trace_frame_info *fi = &r->frames[i];
        fi->number = tbr_rd64(e);
        fi->offset = tbr_rd64(e + 8);
        fi->chunk_count = tbr_rd32(e + 16);
        fi->record_count = tbr_rd64(e + 24);
        fi->compressed_bytes = tbr_rd64(e + 32);
        fi->uncompressed_bytes = tbr_rd64(e + 40);
        if (i && fi->number <= r->frames[i - 1].number) {
            fail_at(r, eoff, "frame index entry %zu: frame number %llu not after %llu", i,
                    (unsigned long long)fi->number, (unsigned long long)r->frames[i - 1].number);
            goto out;
        }
        if (fi->offset != expect_off || fi->compressed_bytes > index_off - fi->offset) {
            fail_at(r, eoff,
                    "frame index entry %zu: frame %llu chunks at [%llu, +%llu) do not "
                    "follow the previous frame (expected offset %llu, index at %llu)",
                    i, (unsigned long long)fi->number, (unsigned long long)fi->offset,
                    (unsigned long long)fi->compressed_bytes, (unsigned long long)expect_off,
                    (unsigned long long)index_off);
            goto out;
        }
        if (tbr_rd32(e + 20) != 0 || fi->chunk_count == 0 ||
            fi->chunk_count > fi->compressed_bytes / TBR_CHUNK_HEADER_SIZE ||
            fi->uncompressed_bytes > (uint64_t)fi->chunk_count * TBR_MAX_CHUNK_USIZE ||
            fi->record_count > fi->uncompressed_bytes / 2) {
            fail_at(r, eoff,
                    "frame index entry %zu: implausible counts (chunks %u, records %llu, "
                    "bytes %llu/%llu)",
                    i, fi->chunk_count, (unsigned long long)fi->record_count, (unsigned long long)fi->compressed_bytes,
                    (unsigned long long)fi->uncompressed_bytes);
            goto out;
        }
        expect_off += fi->compressed_bytes;
        sum += fi->record_count;
    }
    if (expect_off != index_off) {
        fail_at(r, index_off, "frame index: frames end at offset %llu, not at the index",
                (unsigned long long)expect_off);
        goto out;
    }
    if (sum != total) {
        fail_at(r, foot_off, "footer: total record count %llu differs from the index sum %llu",
                (unsigned long long)total, (unsigned long long)sum);
        goto out;
    }
    r->nframes = (size_t)nframes;
    r->total_records = total;
    rc = 0;
out:
    free(ix);
    return rc;
}

/* --------------------------------------------------------------- chunks */

typedef struct chunk_hdr {
    uint32_t flags, seq, nrec, usize, csize, dcrc;
    uint64_t frame;
} chunk_hdr;

/* Reads and validates a chunk header at off; `limit` is where the region the
 * chunk must fit in ends. */
static int read_chunk_header(tbr_trace_reader *r, uint64_t off, uint64_t limit, chunk_hdr *c)
{
    uint8_t h[TBR_CHUNK_HEADER_SIZE];
    if (off > limit || limit - off < TBR_CHUNK_HEADER_SIZE)
        return fail_at(r, off, "chunk header would extend past its frame/file end (%llu)", (unsigned long long)limit);
    if (read_at(r, off, h, sizeof h, "chunk header") < 0) return -1;
    if (memcmp(h, TBR_CHUNK_MAGIC, 4) != 0) return fail_at(r, off, "bad chunk magic");
    if (TBR_CRC_BAD(tbr_crc32(0, h, 36), tbr_rd32(h + 36))) return fail_at(r, off, "chunk header checksum mismatch");
    c->flags = tbr_rd32(h + 4);
    c->frame = tbr_rd64(h + 8);
    c->seq = tbr_rd32(h + 16);
    c->nrec = tbr_rd32(h + 20);
    c->usize = tbr_rd32(h + 24);
    c->csize = tbr_rd32(h + 28);
    c->dcrc = tbr_rd32(h + 32);
    if (c->flags & ~TBR_CHUNK_FRAME_END) return fail_at(r, off, "chunk has unknown flags 0x%x", c->flags);
    if (c->usize > TBR_MAX_CHUNK_USIZE)
        return fail_at(r, off, "chunk claims %u uncompressed bytes (limit %zu)", c->usize, (size_t)TBR_MAX_CHUNK_USIZE);
    if (c->csize > ZSTD_compressBound(c->usize) || c->csize == 0)
        return fail_at(r, off, "chunk claims %u compressed bytes for %u uncompressed", c->csize, c->usize);
    if (c->csize > limit - off - TBR_CHUNK_HEADER_SIZE)
        return fail_at(r, off, "chunk data (%u bytes) extends past its frame/file end at offset %llu", c->csize,
                       (unsigned long long)limit);
    if (c->nrec > c->usize / 2) /* every record takes >= 2 bytes */
        return fail_at(r, off, "chunk claims %u records in %u bytes", c->nrec, c->usize);
    return 0;
}

/* Reads the compressed data of a validated chunk and checks its CRC. */
static int read_chunk_data(tbr_trace_reader *r, uint64_t off, const chunk_hdr *c)
{
    if (grow(r, &r->cbuf, &r->ccap, c->csize) < 0) return -1;
    if (read_at(r, off + TBR_CHUNK_HEADER_SIZE, r->cbuf, c->csize, "chunk data") < 0) return -1;
    if (TBR_CRC_BAD(tbr_crc32(0, r->cbuf, c->csize), c->dcrc)) return fail_at(r, off, "chunk data checksum mismatch");
    return 0;
}

static int decompress_chunk(tbr_trace_reader *r, uint64_t off, const chunk_hdr *c)
{
    /* Exactly one zstd frame that declares exactly usize bytes. */
    unsigned long long fcs = ZSTD_getFrameContentSize(r->cbuf, c->csize);
    size_t flen = ZSTD_findFrameCompressedSize(r->cbuf, c->csize);
    if (fcs != c->usize || ZSTD_isError(flen) || flen != c->csize)
        return fail_at(r, off, "chunk data is not a single zstd frame of %u bytes", c->usize);
    if (grow(r, &r->ubuf, &r->ucap, c->usize ? c->usize : 1) < 0) return -1;
    size_t got = ZSTD_decompressDCtx(r->dctx, r->ubuf, r->ucap, r->cbuf, c->csize);
    if (ZSTD_isError(got)) return fail_at(r, off, "chunk decompression failed: %s", ZSTD_getErrorName(got));
    if (got != c->usize) return fail_at(r, off, "chunk decompressed to %zu bytes, header says %u", got, c->usize);
    r->st.chunks_read++;
    r->st.compressed_bytes_read += c->csize;
    r->st.uncompressed_bytes_read += c->usize;
    return 0;
}

/* ------------------------------------------------------------ recovery */

/* Rebuilds the frame list from chunk headers. Stops (without error) at the
 * first chunk that is damaged, incomplete or out of sequence. */
static int recover_scan(tbr_trace_reader *r)
{
    size_t cap = 0;
    uint64_t off = r->data_start;
    int open_frame = 0; /* last frame has not seen its FRAME_END chunk */
    free(r->frames);
    r->frames = NULL;
    r->nframes = 0;
    r->total_records = 0;
    for (;;) {
        chunk_hdr c;
        if (read_chunk_header(r, off, r->size, &c) < 0 || read_chunk_data(r, off, &c) < 0) break;
        tbr_trace_frame_info *last = r->nframes ? &r->frames[r->nframes - 1] : NULL;
        if (c.seq == 0) {
            if (open_frame || (last && c.frame <= last->number)) break;
            if (r->nframes == cap) {
                size_t ncap = cap ? cap * 2 : 64;
                tbr_trace_frame_info *p = realloc(r->frames, ncap * sizeof *p);
                if (!p) {
                    r->failed = 0;
                    return fail_api(r, "out of memory during recovery scan");
                }
                r->frames = p;
                cap = ncap;
            }
            last = &r->frames[r->nframes++];
            memset(last, 0, sizeof *last);
            last->number = c.frame;
            last->offset = off;
        } else if (!open_frame || c.frame != last->number || c.seq != last->chunk_count) {
            break;
        }
        last->chunk_count++;
        last->record_count += c.nrec;
        last->compressed_bytes += TBR_CHUNK_HEADER_SIZE + (uint64_t)c.csize;
        last->uncompressed_bytes += c.usize;
        r->total_records += c.nrec;
        open_frame = !(c.flags & TBR_CHUNK_FRAME_END);
        off += TBR_CHUNK_HEADER_SIZE + (uint64_t)c.csize;
    }
    /* The scan ends on an error by design; it is not the reader's error. */
    r->failed = 0;
    r->err[0] = 0;
    r->recovered = 1;
    r->last_incomplete = open_frame;
    r->recovery_end = off;
    return 0;
}

/* ---------------------------------------------------------------- open */

static tbr_trace_reader *open_common(tbr_trace_reader *r, const tbr_trace_reader_options *opts, tbr_trace_error *err)
{
    r->flags = opts ? opts->flags : 0;
    r->cur = NO_FRAME;
    r->dctx = ZSTD_createDCtx();
    if (!r->dctx) {
        fail_api(r, "out of memory");
        goto fail;
    }
    if (read_header(r) < 0) goto fail;
    if (read_index(r) < 0) {
        if (!(r->flags & TBR_TRACE_READ_RECOVER)) goto fail;
        r->failed = 0;
        r->err[0] = 0;
        if (recover_scan(r) < 0) goto fail;
    }
    return r;
fail:
    if (err) snprintf(err->msg, sizeof err->msg, "%s", r->err);
    tbr_trace_reader_close(r);
    return NULL;
}

static tbr_trace_reader *alloc_reader(const char *name, tbr_trace_error *err)
{
    if (err) err->msg[0] = 0;
    tbr_trace_reader *r = calloc(1, sizeof *r);
    if (r) {
        r->fd = -1;
        size_t n = strlen(name);
        r->name = malloc(n + 1);
        if (r->name) {
            memcpy(r->name, name, n + 1);
            return r;
        }
        free(r);
    }
    if (err) snprintf(err->msg, sizeof err->msg, "%s: out of memory", name);
    return NULL;
}

tbr_trace_reader *tbr_trace_reader_open(const char *path, tbr_trace_error *err)
{
    return tbr_trace_reader_open_ex(path, NULL, err);
}

tbr_trace_reader *tbr_trace_reader_open_ex(const char *path, const tbr_trace_reader_options *opts, tbr_trace_error *err)
{
    tbr_trace_reader *r = alloc_reader(path ? path : "(null)", err);
    if (!r) return NULL;
    struct stat sb;
    /* (O_NONBLOCK: a FIFO is refused below instead of waiting for a writer) */
    r->fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
    if (r->fd < 0) {
        fail_api(r, "cannot open: %s", path ? strerror(errno) : "NULL path");
    } else if (fstat(r->fd, &sb) < 0) {
        fail_api(r, "cannot stat: %s", strerror(errno));
    } else if (!S_ISREG(sb.st_mode)) {
        fail_api(r, "not a regular file (the reader needs to seek)");
    } else {
        r->size = (uint64_t)sb.st_size;
        return open_common(r, opts, err);
    }
    if (err) snprintf(err->msg, sizeof err->msg, "%s", r->err);
    tbr_trace_reader_close(r);
    return NULL;
}

tbr_trace_reader *tbr_trace_reader_open_mem(const void *data, size_t size, const char *name,
                                            const tbr_trace_reader_options *opts, tbr_trace_error *err)
{
    static const uint8_t empty[1];
    tbr_trace_reader *r = alloc_reader(name ? name : "(memory)", err);
    if (!r) return NULL;
    r->mem = data ? data : empty; /* non-NULL marks a memory source */
    r->size = data ? size : 0;
    return open_common(r, opts, err);
}

void tbr_trace_reader_close(tbr_trace_reader *r)
{
    if (!r) return;
    if (r->fd >= 0) close(r->fd);
    ZSTD_freeDCtx(r->dctx);
    free(r->cbuf);
    free(r->ubuf);
    free(r->frames);
    free(r->meta);
    free(r->name);
    free(r);
}

/* ------------------------------------------------------------- queries */

const char *tbr_trace_reader_error(const tbr_trace_reader *r) { return r && r->failed ? r->err : ""; }

const char *tbr_trace_reader_name(const tbr_trace_reader *r) { return r ? r->name : ""; }

void tbr_trace_reader_file_info(const tbr_trace_reader *r, tbr_trace_file_info *out)
{
    memset(out, 0, sizeof *out);
    out->version_major = r->major;
    out->version_minor = r->minor;
    out->file_size = r->size;
    out->frame_count = r->nframes;
    out->record_count = r->total_records;
    out->recovered = r->recovered;
    out->last_frame_incomplete = r->last_incomplete;
    out->recovery_end = r->recovery_end;
}

void tbr_trace_reader_get_stats(const tbr_trace_reader *r, tbr_trace_reader_stats *out) { *out = r->st; }

const char *tbr_trace_reader_metadata(const tbr_trace_reader *r, size_t *len)
{
    if (len) *len = r->meta_len;
    return r->meta ? r->meta : "";
}

const char *tbr_trace_reader_metadata_get(const tbr_trace_reader *r, const char *key, size_t *len)
{
    size_t klen = strlen(key);
    const char *p = r->meta, *end = r->meta + r->meta_len;
    while (p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        if ((size_t)(eol - p) > klen && memcmp(p, key, klen) == 0 && p[klen] == '=') {
            if (len) *len = (size_t)(eol - p - klen - 1);
            return p + klen + 1;
        }
        p = nl ? nl + 1 : end;
    }
    if (len) *len = 0;
    return NULL;
}

size_t tbr_trace_reader_frame_count(const tbr_trace_reader *r) { return r->nframes; }

int tbr_trace_reader_frame_info(const tbr_trace_reader *r, size_t index, tbr_trace_frame_info *out)
{
    if (index >= r->nframes) return -1;
    *out = r->frames[index];
    return 0;
}

int tbr_trace_reader_find_frame(const tbr_trace_reader *r, uint64_t number, size_t *index)
{
    size_t lo = 0, hi = r->nframes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->frames[mid].number < number)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < r->nframes && r->frames[lo].number == number) {
        if (index) *index = lo;
        return 0;
    }
    return -1;
}

/* ----------------------------------------------------------- iteration */

static void enter_frame(tbr_trace_reader *r, size_t index)
{
    r->failed = 0;
    r->err[0] = 0;
    r->cur = index;
    r->chunk_loaded = 0;
    r->chunk_recs_left = 0;
    r->sum_records = r->sum_ubytes = 0;
    r->rec_in_frame = 0;
    r->seq = 0;
    if (index < r->nframes) {
        r->frame_done = 0;
        r->next_chunk = r->frames[index].offset;
        r->chunks_left = r->frames[index].chunk_count;
    } else {
        r->frame_done = 1;
        r->chunks_left = 0;
    }
}

int tbr_trace_reader_seek_frame(tbr_trace_reader *r, size_t index)
{
    if (index >= r->nframes) {
        r->failed = 0;
        return fail_api(r, "seek: frame index %zu out of range (%zu frames)", index, r->nframes);
    }
    enter_frame(r, index);
    return 0;
}

int tbr_trace_reader_seek_frame_number(tbr_trace_reader *r, uint64_t number)
{
    size_t i;
    if (tbr_trace_reader_find_frame(r, number, &i) < 0) {
        r->failed = 0;
        return fail_api(r, "seek: no frame number %llu in the trace", (unsigned long long)number);
    }
    enter_frame(r, i);
    return 0;
}

int tbr_trace_reader_next_frame(tbr_trace_reader *r, tbr_trace_frame_info *info)
{
    size_t next = r->cur == NO_FRAME ? 0 : r->cur + 1;
    if (r->cur != NO_FRAME && r->cur >= r->nframes) next = r->nframes; /* stay at the end */
    enter_frame(r, next);
    if (next >= r->nframes) return 0;
    if (info) *info = r->frames[next];
    return 1;
}

static int load_next_chunk(tbr_trace_reader *r)
{
    const tbr_trace_frame_info *fi = &r->frames[r->cur];
    uint64_t off = r->next_chunk;
    uint64_t frame_end = fi->offset + fi->compressed_bytes;
    chunk_hdr c;
    if (read_chunk_header(r, off, frame_end, &c) < 0) return -1;
    if (c.frame != fi->number || c.seq != r->seq)
        return fail_at(r, off, "chunk belongs to frame %llu chunk %u, expected frame %llu chunk %u",
                       (unsigned long long)c.frame, c.seq, (unsigned long long)fi->number, r->seq);
    int last = r->chunks_left == 1;
    int may_lack_end = r->recovered && r->last_incomplete && r->cur == r->nframes - 1;
    if ((c.flags & TBR_CHUNK_FRAME_END) ? !last : (last && !may_lack_end))
        return fail_at(r, off, "chunk frame-end flag inconsistent with the index");
    if (read_chunk_data(r, off, &c) < 0 || decompress_chunk(r, off, &c) < 0) return -1;
    r->chunk_loaded = 1;
    r->chunk_off = off;
    r->ulen = c.usize;
    r->upos = 0;
    r->chunk_recs_left = c.nrec;
    r->chunks_left--;
    r->seq++;
    r->next_chunk = off + TBR_CHUNK_HEADER_SIZE + c.csize;
    r->sum_records += c.nrec;
    r->sum_ubytes += c.usize;
    return 0;
}

int tbr_trace_reader_next_record(tbr_trace_reader *r, uint16_t *type, const uint8_t **payload, size_t *len)
{
    if (r->failed) return -1;
    if (r->cur == NO_FRAME || r->frame_done) return 0;
    while (r->chunk_recs_left == 0) {
        if (r->chunk_loaded && r->upos != r->ulen)
            return fail_at(r, r->chunk_off, "chunk has %zu bytes after its last record", r->ulen - r->upos);
        if (r->chunks_left == 0) {
            const tbr_trace_frame_info *fi = &r->frames[r->cur];
            if (r->sum_records != fi->record_count || r->sum_ubytes != fi->uncompressed_bytes ||
                r->next_chunk != fi->offset + fi->compressed_bytes)
                return fail_at(r, fi->offset,
                               "frame %llu: chunk contents (%llu records, %llu bytes) do not "
                               "match the index (%llu records, %llu bytes)",
                               (unsigned long long)fi->number, (unsigned long long)r->sum_records,
                               (unsigned long long)r->sum_ubytes, (unsigned long long)fi->record_count,
                               (unsigned long long)fi->uncompressed_bytes);
            r->frame_done = 1;
            r->chunk_loaded = 0;
            return 0;
        }
        if (load_next_chunk(r) < 0) return -1;
    }
    tbr_cursor c;
    tbr_cursor_init(&c, r->ubuf + r->upos, r->ulen - r->upos);
    uint64_t t = tbr_cursor_uvarint(&c);
    uint64_t n = tbr_cursor_uvarint(&c);
    if (!tbr_cursor_ok(&c) || t > UINT16_MAX || n > TBR_TRACE_MAX_RECORD_SIZE || n > tbr_cursor_remaining(&c))
        return fail_at(r, r->chunk_off,
                       "frame %llu, record %llu: malformed record header at byte %zu of the "
                       "chunk data",
                       (unsigned long long)r->frames[r->cur].number, (unsigned long long)r->rec_in_frame, r->upos);
    const uint8_t *p = tbr_cursor_bytes(&c, (size_t)n);
    r->upos += c.pos;
    r->chunk_recs_left--;
    r->rec_in_frame++;
    *type = (uint16_t)t;
    *payload = p;
    *len = (size_t)n;
    return 1;
}

int tbr_trace_reader_fail(tbr_trace_reader *r, const char *fmt, ...)
{
    if (r->failed) return -1;
    char where[96] = "";
    int located = r->cur != NO_FRAME && r->cur < r->nframes && r->rec_in_frame;
    if (located)
        snprintf(where, sizeof where, "frame %llu, record %llu: ", (unsigned long long)r->frames[r->cur].number,
                 (unsigned long long)(r->rec_in_frame - 1));
    va_list ap;
    va_start(ap, fmt);
    vset(r->err, r->name, located, r->chunk_off, where, fmt, ap);
    va_end(ap);
    r->failed = 1;
    return -1;
}
