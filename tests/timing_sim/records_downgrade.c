/* records_downgrade: copies an activity trace with its PRIM and QUADS records in the layouts
 * of records minor 10 (PRIM with its det stored, QUADS fields interleaved with absolute
 * positions, every depth stored) or minor 11 (`--minor 11`: QUADS streams and PRIM as they
 * are, every depth stored), with records_schema_minor set to match, so that a test can
 * check that a minor-12 reader still reads an older trace to the same results
 * (docs/trace-records.md, minors 11 and 12). The depths a minor-12 record leaves out are
 * computed from the PRIM and DRAW records as every reader does (depth_plane.h).
 *
 *   records_downgrade [--minor 10|11] IN.tbrt OUT.tbrt
 *
 * Prints how many records it rewrote that used a newer layout; exit 0, 1 if the input
 * holds none (nothing to test), 2 on bad usage or input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tbr/record_table.h"
#include "tbr/records.h"
#include "tbr/trace.h"

#include "depth_plane.h"

/* The current draw's depth state and its primitives' planes (derived depths, minor 12). */
struct draw_planes {
    tbr_depth_draw draw;
    tbr_depth_plane *plane;
    uint32_t n, cap;
};

static int add_plane(struct draw_planes *dp, const tbr_rec_prim *r)
{
    if (r->index != dp->n) return -1; /* PRIMs of a draw come in index order */
    if (dp->n == dp->cap) {
        uint32_t nc = dp->cap ? 2 * dp->cap : 1024;
        tbr_depth_plane *np = realloc(dp->plane, nc * sizeof *np);
        if (!np) return -1;
        dp->plane = np;
        dp->cap = nc;
    }
    tbr_depth_plane *p = &dp->plane[dp->n++];
    p->valid = 0;
    if (!(r->flags & TBR_REC_PRIM_CULLED) && r->nr_attrs >= 1) {
        const float(*const v[3])[4] = {r->v[0], r->v[1], r->v[2]};
        tbr_depth_plane_init(p, &dp->draw, r->kind, v);
    }
    return 0;
}

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

static int quads_old(tbr_buf *b, const tbr_rec_decoded *d, int minor, const struct draw_planes *dp)
{
    const tbr_rec_quads_header *h = &d->u.quads.h;
    const uint32_t mask = h->packed_mask | (h->computed ? TBR_REC_QUADS_COMPUTED : 0) |
                          (h->texels_derived ? TBR_REC_QUADS_TEXELS_DERIVED : 0) |
                          (minor >= 11 && h->streams ? TBR_REC_QUADS_STREAMS : 0);
    tbr_rec_quads_header eh;
    if (tbr_rec_quads_begin(b, &eh, h->draw_seq, h->nr_cbufs, mask)) return -1;
    for (uint32_t i = 0; i < h->count; i++) {
        tbr_rec_quad q = d->u.quads.q[i];
        if (h->depths_derived && (q.flags & TBR_REC_QUAD_HAS_Z) &&
            (q.prim >= dp->n || tbr_depth_plane_quad(&dp->plane[q.prim], &dp->draw, q.x, q.y, q.z) != 0))
            return -1;
        if (tbr_rec_quads_add(b, &eh, &q)) return -1;
    }
    return tbr_rec_quads_finish(b, h->count);
}

/* The metadata with records_schema_minor=minor. */
static void metadata_minor(const tbr_trace_reader *r, int minor, char *out, size_t cap)
{
    size_t len = 0;
    const char *m = tbr_trace_reader_metadata(r, &len);
    size_t o = 0;
    for (size_t i = 0; i < len && o + 64 < cap;) {
        const char *nl = memchr(m + i, '\n', len - i);
        const size_t line = nl ? (size_t)(nl - (m + i)) + 1 : len - i;
        if (strncmp(m + i, "records_schema_minor=", 21) == 0)
            o += (size_t)snprintf(out + o, cap - o, "records_schema_minor=%d\n", minor);
        else if (line < cap - o - 64) {
            memcpy(out + o, m + i, line);
            o += line;
        }
        i += line;
    }
    out[o] = 0;
}

static int copy_frame(tbr_trace_reader *r, tbr_trace_writer *w, tbr_rec_decoder *dec, tbr_buf *b, int minor,
                      struct draw_planes *dp, long *rewritten)
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
        if (type == TBR_REC_DRAW) {
            tbr_depth_draw_init(&dp->draw, &d->u.draw);
            dp->n = 0;
            if (tbr_trace_writer_append(w, type, p, n)) return -1;
            continue;
        }
        if (type == TBR_REC_PRIM) {
            if (add_plane(dp, &d->u.prim)) return -1;
            if (minor >= 11) {
                if (tbr_trace_writer_append(w, type, p, n)) return -1;
                continue;
            }
            prim_minor10(b, &d->u.prim);
            *rewritten += b->len != n;
        } else {
            if (quads_old(b, d, minor, dp)) return -1;
            *rewritten +=
                minor >= 11 ? d->u.quads.h.depths_derived : d->u.quads.h.streams || d->u.quads.h.depths_derived;
        }
        if (!tbr_buf_ok(b) || tbr_trace_writer_append_buf(w, type, b)) return -1;
    }
    return rc;
}

int main(int argc, char **argv)
{
    int minor = 10;
    if (argc == 5 && strcmp(argv[1], "--minor") == 0) {
        minor = atoi(argv[2]);
        argv += 2;
        argc -= 2;
    }
    if (argc != 3 || (minor != 10 && minor != 11)) {
        fprintf(stderr, "usage: records_downgrade [--minor 10|11] IN.tbrt OUT.tbrt\n");
        return 2;
    }
    tbr_trace_error err;
    tbr_trace_reader *r = tbr_trace_reader_open(argv[1], &err);
    if (!r) {
        fprintf(stderr, "records_downgrade: %s\n", err.msg);
        return 2;
    }
    static char meta[8192];
    metadata_minor(r, minor, meta, sizeof meta);
    tbr_trace_writer *w = tbr_trace_writer_open(argv[2], meta, &err);
    if (!w) {
        fprintf(stderr, "records_downgrade: %s\n", err.msg);
        return 2;
    }
    tbr_rec_decoder *dec =
        tbr_rec_decoder_new(TBR_REC_MASK(TBR_REC_DRAW) | TBR_REC_MASK(TBR_REC_PRIM) | TBR_REC_MASK(TBR_REC_QUADS));
    struct draw_planes dp = {0};
    tbr_buf b;
    tbr_buf_init(&b);
    tbr_trace_frame_info fi;
    long rewritten = 0;
    int rc;
    while ((rc = tbr_trace_reader_next_frame(r, &fi)) > 0) {
        if (tbr_trace_writer_begin_frame(w, fi.number) || copy_frame(r, w, dec, &b, minor, &dp, &rewritten) < 0 ||
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
    free(dp.plane);
    tbr_rec_decoder_free(dec);
    tbr_trace_reader_close(r);
    if (rc < 0) return 2;
    printf("records_downgrade: %ld PRIM/QUADS records rewritten in the minor-%d layouts\n", rewritten, minor);
    return rewritten ? 0 : 1;
}
