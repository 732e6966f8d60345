/* records_downgrade: copies an activity trace with its PRIM and QUADS records in the layouts
 * of records minor 10 (PRIM with its det stored, QUADS fields interleaved with absolute
 * positions) and records_schema_minor=10, so that a test can check that a minor-11 reader
 * still reads an older trace to the same results (docs/trace-records.md, minor 11).
 *
 *   records_downgrade IN.tbrt OUT.tbrt
 *
 * Prints how many records it rewrote that used the minor-11 layouts; exit 0, 1 if the
 * input holds none (nothing to test), 2 on bad usage or input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tbr/record_table.h"
#include "tbr/records.h"
#include "tbr/trace.h"

/* The minor-10 PRIM payload: det always stored. */
static void prim_minor10(tbr_buf *b, const tbr_rec_prim *r)
{
    tbr_buf_put_uvarint(b, r->draw_seq);
    tbr_buf_put_uvarint(b, r->index);
    tbr_buf_put_uvarint(b, r->kind);
    tbr_buf_put_uvarint(b, r->flags);
    tbr_buf_put_f32(b, r->det);
    tbr_buf_put_uvarint(b, r->nr_attrs);
    const uint32_t stored = (r->flags & TBR_REC_PRIM_CULLED) && r->nr_attrs ? 1 : r->nr_attrs;
    for (uint32_t v = 0; v < r->kind; v++)
        for (uint32_t a = 0; a < stored; a++)
            for (int k = 0; k < 4; k++) tbr_buf_put_f32(b, r->v[v][a][k]);
}

static int quads_minor10(tbr_buf *b, const tbr_rec_decoded *d)
{
    const tbr_rec_quads_header *h = &d->u.quads.h;
    const uint32_t mask = h->packed_mask | (h->computed ? TBR_REC_QUADS_COMPUTED : 0) |
                          (h->texels_derived ? TBR_REC_QUADS_TEXELS_DERIVED : 0);
    tbr_rec_quads_header eh;
    if (tbr_rec_quads_begin(b, &eh, h->draw_seq, h->nr_cbufs, mask)) return -1;
    for (uint32_t i = 0; i < h->count; i++)
        if (tbr_rec_quads_add(b, &eh, &d->u.quads.q[i])) return -1;
    return tbr_rec_quads_finish(b, h->count);
}

/* The metadata with records_schema_minor=10. */
static void metadata_minor10(const tbr_trace_reader *r, char *out, size_t cap)
{
    size_t len = 0;
    const char *m = tbr_trace_reader_metadata(r, &len);
    size_t o = 0;
    for (size_t i = 0; i < len && o + 64 < cap;) {
        const char *nl = memchr(m + i, '\n', len - i);
        const size_t line = nl ? (size_t)(nl - (m + i)) + 1 : len - i;
        if (strncmp(m + i, "records_schema_minor=", 21) == 0)
            o += (size_t)snprintf(out + o, cap - o, "records_schema_minor=10\n");
        else if (line < cap - o - 64) {
            memcpy(out + o, m + i, line);
            o += line;
        }
        i += line;
    }
    out[o] = 0;
}

static int copy_frame(tbr_trace_reader *r, tbr_trace_writer *w, tbr_rec_decoder *dec, tbr_buf *b, long *rewritten)
{
    uint16_t type;
    const uint8_t *p;
    size_t n;
    int rc;
    while ((rc = tbr_trace_reader_next_record(r, &type, &p, &n)) > 0) {
        const tbr_rec_decoded *d;
        if (tbr_rec_decode(dec, type, p, n, &d) != 0) {
            if (tbr_trace_writer_append(w, type, p, n)) return -1;
            continue;
        }
        tbr_buf_reset(b);
        if (type == TBR_REC_PRIM) {
            prim_minor10(b, &d->u.prim);
            *rewritten += b->len != n;
        } else {
            if (quads_minor10(b, d)) return -1;
            *rewritten += d->u.quads.h.streams;
        }
        if (!tbr_buf_ok(b) || tbr_trace_writer_append_buf(w, type, b)) return -1;
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: records_downgrade IN.tbrt OUT.tbrt\n");
        return 2;
    }
    tbr_trace_error err;
    tbr_trace_reader *r = tbr_trace_reader_open(argv[1], &err);
    if (!r) {
        fprintf(stderr, "records_downgrade: %s\n", err.msg);
        return 2;
    }
    static char meta[8192];
    metadata_minor10(r, meta, sizeof meta);
    tbr_trace_writer *w = tbr_trace_writer_open(argv[2], meta, &err);
    if (!w) {
        fprintf(stderr, "records_downgrade: %s\n", err.msg);
        return 2;
    }
    tbr_rec_decoder *dec = tbr_rec_decoder_new(TBR_REC_MASK(TBR_REC_PRIM) | TBR_REC_MASK(TBR_REC_QUADS));
    tbr_buf b;
    tbr_buf_init(&b);
    tbr_trace_frame_info fi;
    long rewritten = 0;
    int rc;
    while ((rc = tbr_trace_reader_next_frame(r, &fi)) > 0) {
        if (tbr_trace_writer_begin_frame(w, fi.number) || copy_frame(r, w, dec, &b, &rewritten) < 0 ||
            tbr_trace_writer_end_frame(w)) {
            rc = -1;
            break;
        }
    }
    if (rc < 0) fprintf(stderr, "records_downgrade: %s%s\n", tbr_trace_reader_error(r), tbr_trace_writer_error(w));
    if (tbr_trace_writer_close(w, NULL, &err)) {
        fprintf(stderr, "records_downgrade: %s\n", err.msg);
        rc = -1;
    }
    tbr_buf_free(&b);
    tbr_rec_decoder_free(dec);
    tbr_trace_reader_close(r);
    if (rc < 0) return 2;
    printf("records_downgrade: %ld PRIM/QUADS records rewritten in the minor-10 layouts\n", rewritten);
    return rewritten ? 0 : 1;
}
