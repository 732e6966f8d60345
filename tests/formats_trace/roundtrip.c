/* Writer -> reader round trips, seeking, metadata, determinism, writer error
 * handling (misuse, unwritable directory, file-size limit, abort). */
#include "common.h"

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>

static char g_dir[512];

static void path_in(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", g_dir, name); }

/* Reads every frame sequentially and compares with the reference. */
static void check_sequential(const char *path, const ref_trace *t)
{
    tbr_trace_error e;
    tbr_trace_reader *r = tbr_trace_reader_open(path, &e);
    CHECK(r != NULL, "open %s: %s", path, e.msg);
    if (!r) return;
    tbr_trace_file_info fi;
    tbr_trace_reader_file_info(r, &fi);
    CHECK(fi.version_major == TBR_TRACE_VERSION_MAJOR && fi.version_minor == TBR_TRACE_VERSION_MINOR, "version");
    CHECK(fi.frame_count == t->nframes, "frame_count %llu want %zu", (unsigned long long)fi.frame_count, t->nframes);
    CHECK(fi.record_count == ref_total_records(t), "record_count");
    CHECK(!fi.recovered, "not recovered");
    CHECK(tbr_trace_reader_frame_count(r) == t->nframes, "frame_count()");

    /* next_record before any frame is current: end */
    uint16_t ty;
    const uint8_t *p;
    size_t len;
    CHECK(tbr_trace_reader_next_record(r, &ty, &p, &len) == 0, "no current frame");

    tbr_trace_frame_info info;
    size_t f = 0;
    int rc;
    while ((rc = tbr_trace_reader_next_frame(r, &info)) > 0) {
        CHECK(f < t->nframes, "too many frames");
        if (f >= t->nframes) break;
        const ref_frame *fr = &t->frames[f];
        CHECK(info.number == fr->number, "frame %zu number %llu want %llu", f, (unsigned long long)info.number,
              (unsigned long long)fr->number);
        CHECK(info.record_count == fr->n, "frame %zu record_count", f);
        CHECK(info.chunk_count >= 1, "chunk_count");
        int mism;
        size_t got = ref_compare_frame(r, fr, &rc, &mism);
        CHECK(rc == 0 && !mism && got == fr->n, "frame %zu: rc %d mismatch %d got %zu/%zu: %s", f, rc, mism, got, fr->n,
              tbr_trace_reader_error(r));
        /* end of frame is sticky */
        CHECK(tbr_trace_reader_next_record(r, &ty, &p, &len) == 0, "end of frame repeats");
        f++;
    }
    CHECK(rc == 0 && f == t->nframes, "end: rc %d frames %zu", rc, f);
    CHECK(tbr_trace_reader_next_frame(r, NULL) == 0, "past end stays at end");
    CHECK(tbr_trace_reader_next_record(r, &ty, &p, &len) == 0, "no record past end");
    tbr_trace_reader_close(r);
}

static void check_seek(const char *path, const ref_trace *t)
{
    tbr_trace_error e;
    tbr_trace_reader *r = tbr_trace_reader_open(path, &e);
    CHECK(r != NULL, "open: %s", e.msg);
    if (!r) return;
    size_t mid = t->nframes / 2;
    const ref_frame *fr = &t->frames[mid];
    int rc, mism;
    size_t got;

    CHECK(tbr_trace_reader_seek_frame(r, mid) == 0, "seek index");
    got = ref_compare_frame(r, fr, &rc, &mism);
    CHECK(rc == 0 && !mism && got == fr->n, "seek(mid) gives exactly that frame: %s", tbr_trace_reader_error(r));
    /* next_frame continues after the sought frame */
    tbr_trace_frame_info info;
    CHECK(tbr_trace_reader_next_frame(r, &info) == 1 && info.number == t->frames[mid + 1].number, "next after seek");
    got = ref_compare_frame(r, &t->frames[mid + 1], &rc, &mism);
    CHECK(rc == 0 && !mism && got == t->frames[mid + 1].n, "frame after seek");

    /* backwards, by number, and from the middle of a frame */
    for (size_t k = 0; k < t->nframes; k += 7) {
        size_t i = t->nframes - 1 - k;
        CHECK(tbr_trace_reader_seek_frame_number(r, t->frames[i].number) == 0, "seek number");
        uint16_t ty;
        const uint8_t *p;
        size_t len;
        if (t->frames[i].n) tbr_trace_reader_next_record(r, &ty, &p, &len); /* abandon mid-frame */
        CHECK(tbr_trace_reader_seek_frame(r, i) == 0, "re-seek");
        got = ref_compare_frame(r, &t->frames[i], &rc, &mism);
        CHECK(rc == 0 && !mism && got == t->frames[i].n, "seek back to %zu", i);
    }
    size_t idx;
    CHECK(tbr_trace_reader_find_frame(r, fr->number, &idx) == 0 && idx == mid, "find_frame");
    CHECK(tbr_trace_reader_find_frame(r, 3, &idx) < 0, "find missing");
    CHECK(tbr_trace_reader_frame_info(r, mid, &info) == 0 && info.number == fr->number && info.record_count == fr->n,
          "frame_info");
    CHECK(tbr_trace_reader_frame_info(r, t->nframes, &info) < 0, "frame_info out of range");
    CHECK(tbr_trace_reader_seek_frame_number(r, 3) < 0, "seek missing number fails");
    CHECK(strstr(tbr_trace_reader_error(r), "no frame number 3") != NULL, "msg: %s", tbr_trace_reader_error(r));
    CHECK(tbr_trace_reader_seek_frame(r, t->nframes) < 0, "seek out of range fails");
    CHECK(tbr_trace_reader_seek_frame(r, 0) == 0 && tbr_trace_reader_error(r)[0] == 0, "seek clears error");

    /* schema-level failure reporting */
    CHECK(tbr_trace_reader_seek_frame(r, 0) == 0, "seek 0");
    uint16_t ty;
    const uint8_t *p;
    size_t len;
    size_t nonempty = 0;
    while (nonempty < t->nframes && t->frames[nonempty].n == 0) nonempty++;
    if (nonempty < t->nframes) {
        tbr_trace_reader_seek_frame(r, nonempty);
        CHECK(tbr_trace_reader_next_record(r, &ty, &p, &len) == 1, "first record");
        CHECK(tbr_trace_reader_fail(r, "bad draw %d", 42) == -1, "fail returns -1");
        const char *m = tbr_trace_reader_error(r);
        CHECK(strstr(m, path) == m && strstr(m, ": at offset ") && strstr(m, "record 0: bad draw 42"),
              "fail message: %s", m);
        CHECK(tbr_trace_reader_next_record(r, &ty, &p, &len) == -1, "sticky after fail");
    }
    tbr_trace_reader_close(r);
}

static void test_roundtrip(void)
{
    char a[600], b[600], c[600];
    path_in(a, sizeof a, "a.trace");
    path_in(b, sizeof b, "b.trace");
    path_in(c, sizeof c, "c.trace");
    const char *meta = "source=foo.trace\ntool=tbr-replay 0.1\nmesa_build=abc123\nempty=\n";

    ref_trace t;
    ref_generate(&t, 12345, 60, 40, 600); /* some records exceed the 512 B chunks */
    tbr_trace_writer_stats ws;
    CHECK(ref_write(&t, a, meta, 512, &ws) == 0, "write a");
    char tmp[700];
    snprintf(tmp, sizeof tmp, "%s.tmp", a);
    CHECK(file_exists(a) && !file_exists(tmp), "renamed into place, no temp left");
    CHECK(ws.frames == t.nframes && ws.records == ref_total_records(&t), "writer stats counts");
    CHECK(ws.peak_buffer_bytes <= 512, "peak buffer %llu exceeds chunk size", (unsigned long long)ws.peak_buffer_bytes);
    CHECK(ws.chunks > t.nframes, "several chunks per frame (%llu)", (unsigned long long)ws.chunks);
    CHECK(ws.compressed_bytes > 0 && ws.uncompressed_bytes > ws.payload_bytes, "byte stats");
    size_t alen;
    uint8_t *abytes = read_whole(a, &alen);
    CHECK(abytes && ws.file_bytes == alen, "file_bytes %llu == size %zu", (unsigned long long)ws.file_bytes, alen);

    check_sequential(a, &t);
    check_seek(a, &t);

    /* metadata */
    tbr_trace_error e;
    tbr_trace_reader *r = tbr_trace_reader_open(a, &e);
    CHECK(r != NULL, "open: %s", e.msg);
    if (r) {
        size_t n;
        const char *m = tbr_trace_reader_metadata(r, &n);
        CHECK(n == strlen(meta) && strcmp(m, meta) == 0, "metadata blob");
        const char *v = tbr_trace_reader_metadata_get(r, "tool", &n);
        CHECK(v && n == 14 && memcmp(v, "tbr-replay 0.1", 14) == 0, "metadata tool");
        v = tbr_trace_reader_metadata_get(r, "mesa_build", &n);
        CHECK(v && n == 6 && memcmp(v, "abc123", 6) == 0, "metadata mesa_build");
        v = tbr_trace_reader_metadata_get(r, "empty", &n);
        CHECK(v && n == 0, "metadata empty value");
        CHECK(tbr_trace_reader_metadata_get(r, "sourc", &n) == NULL, "prefix is not a key");
        CHECK(tbr_trace_reader_metadata_get(r, "missing", &n) == NULL, "missing key");
        tbr_trace_reader_stats rs;
        tbr_trace_reader_get_stats(r, &rs);
        CHECK(rs.chunks_read == 0, "open decodes no chunks");
        tbr_trace_reader_seek_frame(r, t.nframes - 1);
        uint16_t ty;
        const uint8_t *p;
        size_t len;
        while (tbr_trace_reader_next_record(r, &ty, &p, &len) > 0)
            ;
        tbr_trace_reader_get_stats(r, &rs);
        tbr_trace_frame_info fi;
        tbr_trace_reader_frame_info(r, t.nframes - 1, &fi);
        CHECK(rs.chunks_read == fi.chunk_count, "seek decodes only that frame's chunks");
        tbr_trace_reader_close(r);
    }

    /* determinism: same records -> same bytes */
    CHECK(ref_write(&t, b, meta, 512, NULL) == 0, "write b");
    size_t blen;
    uint8_t *bbytes = read_whole(b, &blen);
    CHECK(abytes && bbytes && alen == blen && memcmp(abytes, bbytes, alen) == 0, "deterministic output");
    free(bbytes);
    /* background compression: the same bytes, chunk buffers of 2 x chunk size */
    tbr_trace_writer_stats bs;
    CHECK(ref_write_ex(&t, b, meta, 512, 1, &bs) == 0, "write b (background)");
    bbytes = read_whole(b, &blen);
    CHECK(abytes && bbytes && alen == blen && memcmp(abytes, bbytes, alen) == 0,
          "background compression writes the same file");
    CHECK(bs.chunks == ws.chunks && bs.compressed_bytes == ws.compressed_bytes && bs.peak_buffer_bytes == 2 * 512,
          "background stats: chunks %llu/%llu, peak %llu", (unsigned long long)bs.chunks, (unsigned long long)ws.chunks,
          (unsigned long long)bs.peak_buffer_bytes);
    free(abytes);
    free(bbytes);

    /* default chunk size, no metadata */
    CHECK(ref_write(&t, c, NULL, 0, &ws) == 0, "write c");
    CHECK(ws.peak_buffer_bytes <= TBR_TRACE_DEFAULT_CHUNK_SIZE, "default peak");
    check_sequential(c, &t);
    r = tbr_trace_reader_open(c, &e);
    if (r) {
        size_t n = 99;
        CHECK(strcmp(tbr_trace_reader_metadata(r, &n), "") == 0 && n == 0, "no metadata");
        tbr_trace_reader_close(r);
    }
    /* odd chunk size: the buffer cap is exact, not rounded up */
    CHECK(ref_write(&t, c, meta, 777, &ws) == 0, "write c (777)");
    CHECK(ws.peak_buffer_bytes == 777, "peak %llu == 777", (unsigned long long)ws.peak_buffer_bytes);
    check_sequential(c, &t);
    ref_free(&t);

    /* big records in a stream of small chunks, incl. one of the maximum size */
    ref_trace big = {0};
    big.nframes = 2;
    big.frames = xmalloc(2 * sizeof *big.frames);
    big.frames[0].number = 0;
    big.frames[0].n = 3;
    big.frames[1].number = UINT64_MAX; /* extreme frame numbers are legal */
    big.frames[1].n = 1;
    size_t sizes[4] = {10, TBR_TRACE_MAX_RECORD_SIZE, 0, 3 << 20};
    uint64_t s = 7;
    for (int fi = 0, k = 0; fi < 2; fi++) {
        big.frames[fi].recs = xmalloc(big.frames[fi].n * sizeof(ref_rec));
        for (size_t i = 0; i < big.frames[fi].n; i++, k++) {
            ref_rec *rr = &big.frames[fi].recs[i];
            rr->type = (uint16_t)(k + 1);
            rr->len = sizes[k];
            rr->data = xmalloc(rr->len);
            for (size_t j = 0; j < rr->len; j += 8) {
                uint64_t x = rng_next(&s);
                memcpy(rr->data + j, &x, rr->len - j < 8 ? rr->len - j : 8);
            }
        }
    }
    CHECK(ref_write(&big, c, "x=y", 4000, &ws) == 0, "write big");
    CHECK(ws.peak_buffer_bytes <= 4000, "big records do not grow the chunk buffer (%llu)",
          (unsigned long long)ws.peak_buffer_bytes);
    check_sequential(c, &big);
    /* oversized records bypass the buffer: the worker's queued chunk must land first */
    CHECK(ref_write_ex(&big, c, "x=y", 4000, 1, &ws) == 0, "write big (background)");
    check_sequential(c, &big);
    ref_free(&big);

    /* empty trace */
    ref_trace empty = {0, NULL};
    CHECK(ref_write(&empty, c, NULL, 0, NULL) == 0, "write empty");
    check_sequential(c, &empty);
}

static void test_writer_errors(void)
{
    char p[600], tmp[700];
    path_in(p, sizeof p, "err.trace");
    snprintf(tmp, sizeof tmp, "%s.tmp", p);
    tbr_trace_error e;
    uint8_t data[16] = {0};

    /* misuse */
    tbr_trace_writer *w = tbr_trace_writer_open(p, NULL, &e);
    CHECK(w != NULL, "open: %s", e.msg);
    CHECK(file_exists(tmp) && !file_exists(p), "writes to temp file");
    CHECK(tbr_trace_writer_append(w, 1, data, 4) < 0, "append outside frame");
    CHECK(strstr(tbr_trace_writer_error(w), "no frame is open"), "msg: %s", tbr_trace_writer_error(w));
    CHECK(tbr_trace_writer_begin_frame(w, 5) < 0, "errors are sticky");
    CHECK(tbr_trace_writer_close(w, NULL, &e) < 0, "close after error fails");
    CHECK(strstr(e.msg, "no frame is open") != NULL, "close reports first error: %s", e.msg);
    CHECK(!file_exists(tmp) && !file_exists(p), "temp removed after failed close");

    w = tbr_trace_writer_open(p, NULL, &e);
    CHECK(tbr_trace_writer_begin_frame(w, 5) == 0, "begin 5");
    CHECK(tbr_trace_writer_begin_frame(w, 6) < 0, "nested begin");
    tbr_trace_writer_abort(w);
    CHECK(!file_exists(tmp) && !file_exists(p), "abort removes temp");

    w = tbr_trace_writer_open(p, NULL, &e);
    tbr_trace_writer_begin_frame(w, 5);
    tbr_trace_writer_end_frame(w);
    CHECK(tbr_trace_writer_begin_frame(w, 5) < 0, "same number again");
    CHECK(strstr(tbr_trace_writer_error(w), "must increase"), "msg: %s", tbr_trace_writer_error(w));
    tbr_trace_writer_abort(w);

    w = tbr_trace_writer_open(p, NULL, &e);
    CHECK(tbr_trace_writer_end_frame(w) < 0, "end without begin");
    tbr_trace_writer_abort(w);

    w = tbr_trace_writer_open(p, NULL, &e);
    tbr_trace_writer_begin_frame(w, 1);
    CHECK(tbr_trace_writer_append(w, 1, data, TBR_TRACE_MAX_RECORD_SIZE + 1) < 0,
          "oversize record rejected before reading the payload");
    tbr_trace_writer_abort(w);

    w = tbr_trace_writer_open(p, NULL, &e);
    tbr_trace_writer_begin_frame(w, 1);
    CHECK(tbr_trace_writer_append(w, 1, NULL, 3) < 0, "NULL payload with length");
    tbr_trace_writer_abort(w);

    w = tbr_trace_writer_open(p, NULL, &e);
    tbr_trace_writer_begin_frame(w, 1);
    tbr_buf fb;
    tbr_buf_init(&fb);
    fb.failed = 1;
    CHECK(tbr_trace_writer_append_buf(w, 1, &fb) < 0, "failed tbr_buf rejected");
    tbr_trace_writer_abort(w);

    w = tbr_trace_writer_open(p, NULL, &e);
    tbr_trace_writer_begin_frame(w, 1);
    tbr_trace_writer_append(w, 1, data, 4);
    CHECK(tbr_trace_writer_close(w, NULL, &e) < 0, "close with open frame fails");
    CHECK(strstr(e.msg, "still open"), "msg: %s", e.msg);
    CHECK(!file_exists(tmp) && !file_exists(p), "nothing left");

    /* bad options / metadata */
    tbr_trace_writer_options o = {.chunk_size = 8};
    CHECK(tbr_trace_writer_open_ex(p, NULL, &o, &e) == NULL && strstr(e.msg, "chunk size"),
          "tiny chunk size rejected: %s", e.msg);
    o.chunk_size = 0;
    o.compression_level = 1000;
    CHECK(tbr_trace_writer_open_ex(p, NULL, &o, &e) == NULL && strstr(e.msg, "level"), "bad level rejected: %s", e.msg);
    char *bigmeta = xmalloc(TBR_TRACE_MAX_METADATA_SIZE + 2);
    memset(bigmeta, 'a', TBR_TRACE_MAX_METADATA_SIZE + 1);
    bigmeta[TBR_TRACE_MAX_METADATA_SIZE + 1] = 0;
    CHECK(tbr_trace_writer_open(p, bigmeta, &e) == NULL && strstr(e.msg, "metadata"), "oversized metadata rejected: %s",
          e.msg);
    free(bigmeta);
    CHECK(!file_exists(tmp), "no temp after open failures");

    /* unwritable directory */
    w = tbr_trace_writer_open("/nonexistent-tbr-dir/x/out.trace", NULL, &e);
    CHECK(w == NULL && strstr(e.msg, "/nonexistent-tbr-dir/x/out.trace") && strstr(e.msg, strerror(ENOENT)),
          "unwritable dir: %s", e.msg);

    /* abort keeps an existing file at PATH intact */
    ref_trace t;
    ref_generate(&t, 99, 4, 5, 100);
    CHECK(ref_write(&t, p, "v=1", 0, NULL) == 0, "write original");
    size_t n1, n2;
    uint8_t *before = read_whole(p, &n1);
    w = tbr_trace_writer_open(p, "v=2", &e);
    tbr_trace_writer_begin_frame(w, 1);
    tbr_trace_writer_append(w, 1, data, 16);
    tbr_trace_writer_abort(w);
    uint8_t *after = read_whole(p, &n2);
    CHECK(before && after && n1 == n2 && memcmp(before, after, n1) == 0, "abort leaves the previous file untouched");
    free(before);
    free(after);
    ref_free(&t);
    unlink(p);

    /* write errors (EFBIG stands in for ENOSPC): a file-size limit makes
     * write() fail part-way through; the error must surface and the temp
     * file must be removed. */
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 100000;
    void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");
    tbr_trace_writer_options small = {.chunk_size = 16384}; /* so appends reach the disk */
    w = tbr_trace_writer_open_ex(p, NULL, &small, &e);
    CHECK(w != NULL, "open under limit: %s", e.msg);
    int failed_at = -1;
    if (w) {
        uint8_t *rnd = xmalloc(4096);
        uint64_t s = 3;
        for (size_t j = 0; j < 4096; j++) rnd[j] = (uint8_t)rng_next(&s);
        tbr_trace_writer_begin_frame(w, 1);
        for (int i = 0; i < 200 && failed_at < 0; i++)
            if (tbr_trace_writer_append(w, 2, rnd, 4096) < 0) failed_at = i;
        free(rnd);
        CHECK(failed_at > 0, "append must fail once the limit is hit");
        CHECK(strstr(tbr_trace_writer_error(w), tmp) && strstr(tbr_trace_writer_error(w), "write failed") &&
                  strstr(tbr_trace_writer_error(w), "at offset"),
              "write error message: %s", tbr_trace_writer_error(w));
        tbr_trace_writer_end_frame(w);
        CHECK(tbr_trace_writer_close(w, NULL, &e) < 0, "close fails after write error");
    }
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, oldsig);
    CHECK(!file_exists(tmp) && !file_exists(p), "temp removed after write error");

    /* reader: missing file */
    CHECK(tbr_trace_reader_open(p, &e) == NULL && strstr(e.msg, p) && strstr(e.msg, strerror(ENOENT)),
          "missing file: %s", e.msg);
    CHECK(tbr_trace_reader_open(g_dir, &e) == NULL && strstr(e.msg, "regular file"), "directory: %s", e.msg);
}

int main(void)
{
    make_tmpdir(g_dir, sizeof g_dir, "roundtrip");
    test_roundtrip();
    test_writer_errors();
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", g_dir);
    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("roundtrip: all checks passed\n");
    return 0;
}
