/* Bounded memory: ~200 MB of incompressible records go through the writer
 * and back through the reader while the buffers each side holds stay capped
 * by the chunk size (or the largest record), not by the amount of data. */
#include "common.h"

#include <zstd.h>

#define TOTAL_BYTES ((uint64_t)200 << 20)
#define CHUNK       ((size_t)1 << 20)
#define BIG         ((size_t)3 << 20) /* a few records larger than a chunk */

/* Payload of record i is a pure function of i, so the reader can verify it
 * without keeping a copy. */
static size_t fill_record(uint64_t i, uint8_t *buf)
{
    uint64_t s = i * 0x9E3779B97F4A7C15ULL + 1;
    size_t len = (i % 997 == 500) ? BIG : (size_t)(rng_next(&s) % 65536);
    for (size_t j = 0; j < len; j += 8) {
        uint64_t x = rng_next(&s);
        memcpy(buf + j, &x, len - j < 8 ? len - j : 8);
    }
    return len;
}

int main(void)
{
    char dir[512], path[600];
    make_tmpdir(dir, sizeof dir, "bounded");
    snprintf(path, sizeof path, "%s/big.trace", dir);
    uint8_t *buf = xmalloc(BIG + 8);
    uint8_t *buf2 = xmalloc(BIG + 8);

    tbr_trace_writer_options o = {.chunk_size = CHUNK, .compression_level = 1};
    tbr_trace_error e;
    tbr_trace_writer *w = tbr_trace_writer_open_ex(path, "test=bounded", &o, &e);
    CHECK(w != NULL, "open: %s", e.msg);
    if (!w) return 1;
    uint64_t written = 0, nrec = 0, frame = 0;
    tbr_trace_writer_stats ws;
    uint64_t max_peak_during = 0;
    while (written < TOTAL_BYTES) {
        if (nrec % 2000 == 0) {
            if (nrec) tbr_trace_writer_end_frame(w);
            tbr_trace_writer_begin_frame(w, frame++);
        }
        size_t len = fill_record(nrec, buf);
        if (tbr_trace_writer_append(w, (uint16_t)(nrec % 7), buf, len) < 0) break;
        written += len;
        nrec++;
        if (nrec % 512 == 0) {
            tbr_trace_writer_get_stats(w, &ws);
            if (ws.peak_buffer_bytes > max_peak_during) max_peak_during = ws.peak_buffer_bytes;
            /* data is streamed out, not accumulated */
            CHECK(ws.file_bytes + CHUNK + BIG >= ws.payload_bytes, "writer holds back data: file %llu payload %llu",
                  (unsigned long long)ws.file_bytes, (unsigned long long)ws.payload_bytes);
        }
    }
    CHECK(tbr_trace_writer_error(w)[0] == 0, "writer: %s", tbr_trace_writer_error(w));
    tbr_trace_writer_end_frame(w);
    CHECK(tbr_trace_writer_close(w, &ws, &e) == 0, "close: %s", e.msg);

    CHECK(ws.payload_bytes == written && ws.records == nrec, "stats totals");
    CHECK(ws.payload_bytes >= TOTAL_BYTES, "wrote %llu bytes", (unsigned long long)written);
    CHECK(ws.peak_buffer_bytes <= CHUNK && max_peak_during <= CHUNK, "writer chunk buffer exceeded its cap: %llu > %zu",
          (unsigned long long)ws.peak_buffer_bytes, CHUNK);
    CHECK(ws.compressed_bytes >= ws.uncompressed_bytes / 100 * 99, "incompressible data really is (%llu -> %llu)",
          (unsigned long long)ws.uncompressed_bytes, (unsigned long long)ws.compressed_bytes);
    uint64_t nbig = (nrec + 496) / 997; /* records with i % 997 == 500 */
    CHECK(ws.chunks >= (ws.uncompressed_bytes - nbig * (BIG + 16)) / CHUNK + nbig,
          "chunks are capped at the chunk size (%llu chunks)", (unsigned long long)ws.chunks);
    printf("wrote %llu records, %llu payload bytes, %llu chunks, %llu file bytes, peak buffer %llu\n",
           (unsigned long long)nrec, (unsigned long long)ws.payload_bytes, (unsigned long long)ws.chunks,
           (unsigned long long)ws.file_bytes, (unsigned long long)ws.peak_buffer_bytes);

    /* read back: verify content and the reader's buffer peak */
    tbr_trace_reader *r = tbr_trace_reader_open(path, &e);
    CHECK(r != NULL, "reader open: %s", e.msg);
    if (r) {
        uint64_t i = 0;
        int rc, bad = 0;
        while ((rc = tbr_trace_reader_next_frame(r, NULL)) > 0) {
            uint16_t ty;
            const uint8_t *p;
            size_t len;
            while ((rc = tbr_trace_reader_next_record(r, &ty, &p, &len)) > 0) {
                size_t want = fill_record(i, buf2);
                if (ty != i % 7 || len != want || memcmp(p, buf2, len) != 0) bad++;
                i++;
            }
            if (rc < 0) break;
        }
        CHECK(rc == 0, "read: %s", tbr_trace_reader_error(r));
        CHECK(i == nrec && bad == 0, "read back %llu/%llu records, %d differ", (unsigned long long)i,
              (unsigned long long)nrec, bad);
        tbr_trace_reader_stats rs;
        tbr_trace_reader_get_stats(r, &rs);
        size_t maxu = BIG + 16;
        CHECK(rs.peak_buffer_bytes <= maxu + ZSTD_compressBound(maxu), "reader buffers exceeded one chunk each: %llu",
              (unsigned long long)rs.peak_buffer_bytes);
        CHECK(rs.uncompressed_bytes_read == ws.uncompressed_bytes, "reader byte stats");
        printf("reader peak buffers %llu bytes\n", (unsigned long long)rs.peak_buffer_bytes);
        tbr_trace_reader_close(r);
    }
    unlink(path);
    rmdir(dir);
    free(buf);
    free(buf2);
    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("bounded: all checks passed\n");
    return 0;
}
