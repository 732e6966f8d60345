/* tbr-fuzz-seeds: seed inputs of the record fuzz targets (fuzz_input.h) from a frame of an
 * activity trace (the checked-in corpora under tests/fuzz/corpus/ were made with it from
 * the samples' replays; bench/fuzz --seeds shows how).
 *
 *   tbr-fuzz-seeds records IN.tbrt OUT_PREFIX FRAME_INDEX MAX_BYTES
 *       windows of consecutive records of at most MAX_BYTES, one file per window that adds
 *       a record type the earlier windows lack (OUT_PREFIX-N)
 *   tbr-fuzz-seeds frame IN.tbrt OUT_FILE FRAME_INDEX MAX_BYTES
 *       the frame's first records up to MAX_BYTES, then its FRAME_END: a small frame for
 *       fuzz_sim_frame (first byte: configuration 0)
 * Exit 0, or 2 on bad usage or input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tbr/records.h"
#include "tbr/trace.h"

static void put_record(tbr_buf *b, uint16_t type, const uint8_t *p, size_t n)
{
    tbr_buf_put_u8(b, (uint8_t)type);
    tbr_buf_put_uvarint(b, n);
    tbr_buf_put_bytes(b, p, n);
}

static int write_file(const char *path, const tbr_buf *b)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->data, 1, b->len, f) != b->len || fclose(f)) {
        fprintf(stderr, "tbr-fuzz-seeds: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 6 || (strcmp(argv[1], "records") && strcmp(argv[1], "frame"))) {
        fprintf(stderr, "usage: tbr-fuzz-seeds records|frame IN.tbrt OUT FRAME_INDEX MAX_BYTES\n");
        return 2;
    }
    const int frame_mode = !strcmp(argv[1], "frame");
    const size_t fi = strtoul(argv[4], NULL, 10), max = strtoul(argv[5], NULL, 10);
    tbr_trace_error e;
    tbr_trace_reader *r = tbr_trace_reader_open(argv[2], &e);
    if (!r || tbr_trace_reader_seek_frame(r, fi)) {
        fprintf(stderr, "tbr-fuzz-seeds: %s: %s\n", argv[2], r ? "no such frame" : e.msg);
        return 2;
    }
    tbr_buf b, end;
    tbr_buf_init(&b);
    tbr_buf_init(&end);
    if (frame_mode) tbr_buf_put_u8(&b, 0); /* the configuration byte */
    uint64_t seen = 0, window = 0;
    int nfiles = 0, rc = 0;
    uint16_t type;
    const uint8_t *p;
    size_t n;
    while (rc == 0 && tbr_trace_reader_next_record(r, &type, &p, &n) > 0) {
        if (n + 8 > max) continue;
        if (frame_mode) {
            if (type == TBR_REC_FRAME_END)
                put_record(&end, type, p, n);
            else if (b.len + n + 8 <= max)
                put_record(&b, type, p, n);
            continue;
        }
        if (b.len + n + 8 > max) { /* the window is full: kept if it adds a type */
            if (window & ~seen) {
                char path[4096];
                snprintf(path, sizeof path, "%s-%d", argv[3], nfiles++);
                rc = write_file(path, &b);
                seen |= window;
            }
            tbr_buf_reset(&b);
            window = 0;
        }
        put_record(&b, type, p, n);
        window |= (uint64_t)1 << (type & 63);
    }
    if (rc == 0 && frame_mode) {
        tbr_buf_put_bytes(&b, end.data, end.len);
        rc = write_file(argv[3], &b);
    } else if (rc == 0 && (window & ~seen)) {
        char path[4096];
        snprintf(path, sizeof path, "%s-%d", argv[3], nfiles++);
        rc = write_file(path, &b);
    }
    tbr_buf_free(&b);
    tbr_buf_free(&end);
    tbr_trace_reader_close(r);
    return rc ? 2 : 0;
}
