/* tbr-mutate-records: writes a record mutant of one frame of a GPU activity trace (issue 22,
 * "Crashes and memory"): a valid container whose records decode, with one field of a few
 * records changed to a hostile value (sizes, counts, indices, levels, shifts, enums), or
 * one payload byte changed. Used by bench/record-mutants to hunt crashes and hangs in the
 * readers (tbr-sim, tbr-characterize, tbr-dump), and by the fuzz targets' seed scripts.
 *
 *   tbr-mutate-records IN.tbrt OUT.tbrt SEED [FRAME_INDEX [MUTATIONS]]
 *
 * Deterministic for a seed. Writes only the frame FRAME_INDEX (0-based index in the
 * file; default 0; frames are self-contained, docs/trace-records.md "General rules") and
 * prints each mutation on stdout. Exit 0, or 2 on a bad input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tbr/record_table.h"
#include "tbr/records.h"
#include "tbr/trace.h"

static uint64_t rng_state;
static uint32_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

/* A hostile replacement for a 32-bit field holding `old`. */
static uint32_t hostile(uint32_t old)
{
    static const uint32_t values[] = {
        0,        1,          2,          3,          4,          5,          7,          8,          15,
        16,       17,         31,         32,         33,         63,         64,         65,         255,
        256,      1023,       1024,       1025,       4096,       16384,      16385,      65535,      65536,
        1u << 24, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 0x3f800000, 0x7f800000, 0xff800000, 0x7fc00000};
    switch (rnd() % 6) {
        case 0: return old + 1;
        case 1: return old - 1;
        case 2: return old * 2 + (rnd() & 1);
        case 3: return old ^ (1u << (rnd() % 32));
        case 4: return rnd();
        default: return values[rnd() % (sizeof values / sizeof values[0])];
    }
}

/* Replaces one aligned 32-bit word in [lo, hi) bytes of a struct; returns its offset. */
static size_t mutate_word(void *s, size_t lo, size_t hi)
{
    size_t nw = (hi - lo) / 4;
    if (!nw) return SIZE_MAX;
    size_t off = lo + 4 * (rnd() % nw);
    uint32_t v;
    memcpy(&v, (char *)s + off, 4);
    v = hostile(v);
    memcpy((char *)s + off, &v, 4);
    return off;
}

typedef struct {
    tbr_buf out;
    uint8_t *zeros; /* SURFACE_INIT data of a changed size */
    size_t nzeros;
} mut_ctx;

/* Re-encodes a one-piece record after changing one field: 0, or -1 if the encoder refuses
 * the value (the caller tries another). */
static int mutate_single(mut_ctx *m, const tbr_rec_decoded *d, char *what, size_t wl)
{
    tbr_buf *b = &m->out;
    tbr_buf_reset(b);
    size_t off = SIZE_MAX;
#define ONE(T, field, lo, hi, enc)                                                                                     \
    {                                                                                                                  \
        T r = d->u.field;                                                                                              \
        off = mutate_word(&r, lo, hi);                                                                                 \
        snprintf(what, wl, "word at byte %zu", off);                                                                   \
        return enc(b, &r);                                                                                             \
    }
    switch (d->type) {
        case TBR_REC_FRAME_END:
            ONE(tbr_rec_frame_end, frame_end, 0, offsetof(tbr_rec_frame_end, png), tbr_rec_frame_end_encode)
        case TBR_REC_RESOURCE:
            ONE(tbr_rec_resource, resource, 0, offsetof(tbr_rec_resource, format_name), tbr_rec_resource_encode)
        case TBR_REC_UPLOAD: ONE(tbr_rec_upload, upload, 0, sizeof(tbr_rec_upload), tbr_rec_upload_encode)
        case TBR_REC_SHADER_CREATE:
            ONE(tbr_rec_shader, shader, 0, offsetof(tbr_rec_shader, text_len), tbr_rec_shader_create_encode)
        case TBR_REC_SHADER: ONE(tbr_rec_shader, shader, 0, offsetof(tbr_rec_shader, text_len), tbr_rec_shader_encode)
        case TBR_REC_RENDER_PASS:
            ONE(tbr_rec_render_pass, render_pass, 0, sizeof(tbr_rec_render_pass), tbr_rec_render_pass_encode)
        case TBR_REC_CLEAR: ONE(tbr_rec_clear, clear, 0, sizeof(tbr_rec_clear), tbr_rec_clear_encode)
        case TBR_REC_DRAW: ONE(tbr_rec_draw, draw, 0, offsetof(tbr_rec_draw, vs_const), tbr_rec_draw_encode)
        case TBR_REC_DRAW_END: ONE(tbr_rec_draw_end, draw_end, 0, sizeof(tbr_rec_draw_end), tbr_rec_draw_end_encode)
        case TBR_REC_PRIM: ONE(tbr_rec_prim, prim, 0, offsetof(tbr_rec_prim, v) + 64, tbr_rec_prim_encode)
        case TBR_REC_TILE: ONE(tbr_rec_tile, tile, 0, sizeof(tbr_rec_tile), tbr_rec_tile_encode)
        case TBR_REC_FLUSH: ONE(tbr_rec_flush, flush, 0, sizeof(tbr_rec_flush), tbr_rec_flush_encode)
        case TBR_REC_PATH: {
            tbr_rec_path r = d->u.path;
            if (rnd() % 2) {
                off = mutate_word(&r, 0, offsetof(tbr_rec_path, n));
                snprintf(what, wl, "word at byte %zu", off);
                return tbr_rec_path_encode(b, &r);
            }
            if (!r.n) return -1;
            uint8_t *e = malloc(3 * (size_t)r.n);
            memcpy(e, r.entries, 3 * (size_t)r.n);
            uint32_t k = rnd() % r.n;
            uint32_t pc = hostile(e[3 * k] | e[3 * k + 1] << 8);
            e[3 * k] = (uint8_t)pc;
            e[3 * k + 1] = (uint8_t)(pc >> 8);
            e[3 * k + 2] = (uint8_t)hostile(e[3 * k + 2]);
            r.entries = e;
            snprintf(what, wl, "entry %u", k);
            int rc = tbr_rec_path_encode(b, &r);
            free(e);
            return rc;
        }
        case TBR_REC_VS_TEXTURES:
            ONE(tbr_rec_vs_textures, vs_textures, 0, sizeof(tbr_rec_vs_textures), tbr_rec_vs_textures_encode)
        case TBR_REC_SURFACE_CHECK:
            ONE(tbr_rec_surface_check, surface_check, 0, sizeof(tbr_rec_surface_check), tbr_rec_surface_check_encode)
        case TBR_REC_INVALIDATE:
            ONE(tbr_rec_invalidate, invalidate, 0, sizeof(tbr_rec_invalidate), tbr_rec_invalidate_encode)
        case TBR_REC_SURFACE_INIT: {
            tbr_rec_surface_init r = d->u.surface_init;
            off = mutate_word(&r, 0, offsetof(tbr_rec_surface_init, data));
            snprintf(what, wl, "word at byte %zu", off);
            uint64_t len = (uint64_t)r.rows * r.width * r.block_bytes;
            if (len != (uint64_t)d->u.surface_init.rows * d->u.surface_init.width * d->u.surface_init.block_bytes) {
                if (len > (64u << 20)) return -1; /* the container's record limit */
                if (len > m->nzeros) {
                    free(m->zeros);
                    m->zeros = calloc(1, len);
                    m->nzeros = len;
                }
                r.data = m->zeros;
            }
            return tbr_rec_surface_init_encode(b, &r);
        }
        default: return -1;
    }
#undef ONE
}

static int mutate_quads(mut_ctx *m, const tbr_rec_decoded *d, char *what, size_t wl)
{
    tbr_rec_quads_header h = d->u.quads.h;
    uint32_t n = h.count;
    tbr_rec_quad *q = malloc((n ? n : 1) * sizeof *q);
    memcpy(q, d->u.quads.q, n * sizeof *q);
    uint32_t mask = h.packed_mask | (h.computed ? TBR_REC_QUADS_COMPUTED : 0) |
                    (h.texels_derived ? TBR_REC_QUADS_TEXELS_DERIVED : 0) |
                    (h.depths_derived ? TBR_REC_QUADS_DEPTHS_DERIVED : 0);
    if (!n || rnd() % 4 == 0) {
        uint32_t hw[3] = {h.draw_seq, h.nr_cbufs, mask};
        size_t off = mutate_word(hw, 0, sizeof hw);
        snprintf(what, wl, "header word %zu", off / 4);
        h.draw_seq = hw[0];
        h.nr_cbufs = hw[1];
        mask = hw[2];
    } else {
        uint32_t k = rnd() % n;
        size_t off = mutate_word(&q[k], 0, offsetof(tbr_rec_quad, color) + (rnd() % 2 ? 0 : 64));
        snprintf(what, wl, "quad %u word at byte %zu", k, off);
    }
    tbr_buf *b = &m->out;
    tbr_buf_reset(b);
    tbr_rec_quads_header eh;
    int rc = tbr_rec_quads_begin(b, &eh, h.draw_seq, h.nr_cbufs, mask);
    for (uint32_t i = 0; i < n && rc == 0; i++) rc = tbr_rec_quads_add(b, &eh, &q[i]);
    if (rc == 0) rc = tbr_rec_quads_finish(b, n);
    free(q);
    return rc;
}

static int mutate_texels(mut_ctx *m, const tbr_rec_decoded *d, char *what, size_t wl)
{
    const tbr_rec_texels_header *h = &d->u.texels.h;
    uint32_t n = h->count, draw_seq = h->draw_seq;
    if (!n) return -1;
    tbr_rec_texfetch *f = malloc(n * sizeof *f);
    memcpy(f, d->u.texels.f, n * sizeof *f);
    size_t ntx = 0;
    for (uint32_t i = 0; i < n; i++) ntx += f[i].n_texels;
    tbr_rec_texel *tx = malloc((ntx ? ntx : 1) * sizeof *tx);
    size_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        memcpy(tx + at, f[i].texels, f[i].n_texels * sizeof *tx);
        f[i].texels = tx + at;
        at += f[i].n_texels;
    }
    uint32_t k = rnd() % n;
    if (rnd() % 5 == 0) {
        draw_seq = hostile(draw_seq);
        snprintf(what, wl, "draw_seq");
    } else if (!f[k].n_texels || rnd() % 2) {
        size_t off = mutate_word(&f[k], 0, offsetof(tbr_rec_texfetch, n_texels));
        snprintf(what, wl, "fetch %u word at byte %zu", k, off);
    } else {
        uint32_t t = rnd() % f[k].n_texels;
        size_t off = mutate_word((tbr_rec_texel *)&f[k].texels[t], 0, sizeof(tbr_rec_texel));
        snprintf(what, wl, "fetch %u texel %u word at byte %zu", k, t, off);
    }
    tbr_buf_reset(&m->out);
    int rc = tbr_rec_texels_encode(&m->out, draw_seq, f, n);
    free(f);
    free(tx);
    return rc;
}

static int mutate_vertices(mut_ctx *m, const tbr_rec_decoded *d, char *what, size_t wl)
{
    tbr_rec_vertices_header *h = malloc(sizeof *h);
    *h = *d->u.vertices.h;
    uint32_t n = h->count;
    tbr_rec_vertex_group *g = malloc((n ? n : 1) * sizeof *g);
    memcpy(g, d->u.vertices.g, n * sizeof *g);
    if (!n || rnd() % 2) {
        size_t off = mutate_word(h, 0, offsetof(tbr_rec_vertices_header, count));
        snprintf(what, wl, "header word at byte %zu", off);
    } else {
        uint32_t k = rnd() % n;
        size_t off = mutate_word(&g[k], 0, offsetof(tbr_rec_vertex_group, pos));
        snprintf(what, wl, "group %u word at byte %zu", k, off);
    }
    tbr_buf_reset(&m->out);
    int rc = tbr_rec_vertices_encode(&m->out, h, g);
    free(h);
    free(g);
    return rc;
}

/* One mutation of record d into m->out: 0 done, -1 not possible this time. */
static int mutate(mut_ctx *m, const tbr_rec_decoded *d, char *what, size_t wl)
{
    if (d->len && rnd() % 4 == 0) { /* a raw byte (any field, any type) */
        tbr_buf_reset(&m->out);
        tbr_buf_put_bytes(&m->out, d->payload, d->len);
        size_t at = rnd() % d->len;
        m->out.data[at] = (uint8_t)(rnd() % 3 ? rnd() : hostile(m->out.data[at]));
        snprintf(what, wl, "raw byte %zu", at);
        return 0;
    }
    switch (d->type) {
        case TBR_REC_QUADS: return mutate_quads(m, d, what, wl);
        case TBR_REC_TEXELS:
        case TBR_REC_VS_TEXELS: return mutate_texels(m, d, what, wl);
        case TBR_REC_VERTICES: return mutate_vertices(m, d, what, wl);
        default: return mutate_single(m, d, what, wl);
    }
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 6) {
        fprintf(stderr, "usage: tbr-mutate-records IN.tbrt OUT.tbrt SEED [FRAME_INDEX [MUTATIONS]]\n");
        return 2;
    }
    rng_state = strtoull(argv[3], NULL, 10) * 2654435761u + 1;
    size_t fi = argc > 4 ? strtoul(argv[4], NULL, 10) : 0;
    unsigned nmut = argc > 5 ? (unsigned)strtoul(argv[5], NULL, 10) : 1 + rnd() % 3;
    tbr_trace_error e;
    tbr_trace_reader *r = tbr_trace_reader_open(argv[1], &e);
    if (!r) {
        fprintf(stderr, "tbr-mutate-records: %s\n", e.msg);
        return 2;
    }
    tbr_trace_frame_info info;
    if (tbr_trace_reader_frame_info(r, fi, &info) || tbr_trace_reader_seek_frame(r, fi)) {
        fprintf(stderr, "tbr-mutate-records: %s: no frame index %zu\n", argv[1], fi);
        return 2;
    }
    size_t ml;
    const char *meta = tbr_trace_reader_metadata(r, &ml);
    char *metadata = calloc(1, ml + 1);
    memcpy(metadata, meta, ml);
    /* pass 1: count the frame's records, pick the ones to mutate */
    uint16_t type;
    const uint8_t *p;
    size_t n;
    size_t nrec = 0;
    while (tbr_trace_reader_next_record(r, &type, &p, &n) > 0) nrec++;
    if (!nrec) return 2;
    size_t *pick = malloc(nmut * sizeof *pick);
    for (unsigned i = 0; i < nmut; i++) pick[i] = rnd() % nrec;
    tbr_trace_writer *w = tbr_trace_writer_open(argv[2], metadata, &e);
    if (!w) {
        fprintf(stderr, "tbr-mutate-records: %s\n", e.msg);
        return 2;
    }
    tbr_rec_decoder *dec = tbr_rec_decoder_new(TBR_REC_MASK_ALL);
    mut_ctx m = {0};
    tbr_buf_init(&m.out);
    tbr_trace_reader_seek_frame(r, fi);
    tbr_trace_writer_begin_frame(w, info.number);
    for (size_t k = 0; tbr_trace_reader_next_record(r, &type, &p, &n) > 0; k++) {
        unsigned times = 0;
        for (unsigned i = 0; i < nmut; i++) times += pick[i] == k;
        const tbr_rec_decoded *d;
        if (!times || tbr_rec_decode(dec, type, p, n, &d) != 0) {
            tbr_trace_writer_append(w, type, p, n);
            continue;
        }
        char what[96] = "";
        int rc = -1;
        for (int tries = 0; tries < 50 && rc; tries++) rc = mutate(&m, d, what, sizeof what);
        if (rc) {
            tbr_trace_writer_append(w, type, p, n);
            continue;
        }
        printf("record %zu %s: %s\n", k, tbr_rec_type_name(type) ? tbr_rec_type_name(type) : "?", what);
        tbr_trace_writer_append_buf(w, type, &m.out);
    }
    tbr_trace_writer_end_frame(w);
    int rc = tbr_trace_writer_close(w, NULL, &e);
    if (rc) fprintf(stderr, "tbr-mutate-records: %s\n", e.msg);
    tbr_rec_decoder_free(dec);
    tbr_buf_free(&m.out);
    free(m.zeros);
    free(pick);
    free(metadata);
    tbr_trace_reader_close(r);
    return rc ? 2 : 0;
}
