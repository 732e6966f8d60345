/* The record table and the decoder of decoded records (tbr/record_table.h). */
#include "tbr/record_table.h"

#include <stdlib.h>
#include <string.h>

#include "record_print.h"

struct tbr_rec_decoder {
    uint64_t types;
    tbr_rec_decoded rec;
    tbr_rec_quad *quads;
    size_t cap_quads;
    tbr_rec_texfetch *fetches;
    size_t cap_fetches;
    tbr_rec_texel *texels; /* every fetch's texels, one after the other */
    size_t cap_texels;
    tbr_rec_vertices_header vh;
    tbr_rec_vertex_group *groups;
    size_t cap_groups;
};

tbr_rec_decoder *tbr_rec_decoder_new(uint64_t types)
{
    tbr_rec_decoder *d = calloc(1, sizeof *d);
    if (d) d->types = types;
    return d;
}

void tbr_rec_decoder_set_types(tbr_rec_decoder *d, uint64_t types) { d->types = types; }

void tbr_rec_decoder_free(tbr_rec_decoder *d)
{
    if (!d) return;
    free(d->quads);
    free(d->fetches);
    free(d->texels);
    free(d->groups);
    free(d);
}

/* Room for `need` elements of `size` bytes in *arr (new elements zeroed): 0 or -1. */
static int room(void **arr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    void *np = realloc(*arr, nc * size);
    if (!np) return -1;
    memset((char *)np + *cap * size, 0, (nc - *cap) * size);
    *arr = np;
    *cap = nc;
    return 0;
}

/* ---- decode functions of the table ---- */

#define DECODE_ONE(fn, field)                                                                                          \
    static int dec_##field(tbr_rec_decoder *dec, tbr_rec_decoded *d)                                                   \
    {                                                                                                                  \
        (void)dec;                                                                                                     \
        if (fn(d->payload, d->len, &d->u.field)) {                                                                     \
            d->bad = TBR_REC_BAD_RECORD;                                                                               \
            return -1;                                                                                                 \
        }                                                                                                              \
        return 0;                                                                                                      \
    }
DECODE_ONE(tbr_rec_frame_end_decode, frame_end)
DECODE_ONE(tbr_rec_resource_decode, resource)
DECODE_ONE(tbr_rec_upload_decode, upload)
DECODE_ONE(tbr_rec_render_pass_decode, render_pass)
DECODE_ONE(tbr_rec_clear_decode, clear)
DECODE_ONE(tbr_rec_draw_decode, draw)
DECODE_ONE(tbr_rec_draw_end_decode, draw_end)
DECODE_ONE(tbr_rec_prim_decode, prim)
DECODE_ONE(tbr_rec_tile_decode, tile)
DECODE_ONE(tbr_rec_flush_decode, flush)
DECODE_ONE(tbr_rec_unsupported_decode, unsupported)
DECODE_ONE(tbr_rec_path_decode, path)
DECODE_ONE(tbr_rec_vs_textures_decode, vs_textures)
DECODE_ONE(tbr_rec_surface_init_decode, surface_init)
DECODE_ONE(tbr_rec_surface_check_decode, surface_check)
DECODE_ONE(tbr_rec_invalidate_decode, invalidate)
#undef DECODE_ONE

static int dec_shader_create(tbr_rec_decoder *dec, tbr_rec_decoded *d)
{
    (void)dec;
    if (tbr_rec_shader_create_decode(d->payload, d->len, &d->u.shader)) {
        d->bad = TBR_REC_BAD_RECORD;
        return -1;
    }
    return 0;
}

static int dec_shader(tbr_rec_decoder *dec, tbr_rec_decoded *d)
{
    (void)dec;
    if (tbr_rec_shader_decode(d->payload, d->len, &d->u.shader)) {
        d->bad = TBR_REC_BAD_RECORD;
        return -1;
    }
    return 0;
}

static int bad_item(tbr_rec_decoded *d, uint32_t i)
{
    d->bad = TBR_REC_BAD_ITEM;
    d->bad_item = i;
    return -1;
}

static int dec_quads(tbr_rec_decoder *dec, tbr_rec_decoded *d)
{
    tbr_cursor c;
    tbr_rec_quads_header *h = &d->u.quads.h;
    if (tbr_rec_quads_open(&c, d->payload, d->len, h)) {
        d->bad = TBR_REC_BAD_HEADER;
        return -1;
    }
    d->u.quads.q = dec->quads;
    for (uint32_t i = 0; i < h->count; i++) {
        if (room((void **)&dec->quads, &dec->cap_quads, (size_t)i + 1, sizeof *dec->quads)) return bad_item(d, i);
        d->u.quads.q = dec->quads;
        if (tbr_rec_quads_next(&c, h, &dec->quads[i])) return bad_item(d, i);
    }
    if (tbr_rec_quads_close(&c)) {
        d->bad = TBR_REC_BAD_TRAILING;
        return -1;
    }
    return 0;
}

static int dec_texels(tbr_rec_decoder *dec, tbr_rec_decoded *d)
{
    tbr_cursor c;
    tbr_rec_texels_header *h = &d->u.texels.h;
    if (tbr_rec_texels_open(&c, d->payload, d->len, h)) {
        d->bad = TBR_REC_BAD_HEADER;
        return -1;
    }
    size_t used = 0;
    int rc = 0;
    uint32_t i;
    for (i = 0; i < h->count; i++) {
        if (room((void **)&dec->fetches, &dec->cap_fetches, (size_t)i + 1, sizeof *dec->fetches) ||
            room((void **)&dec->texels, &dec->cap_texels, used + TBR_REC_MAX_TEXELS_PER_FETCH, sizeof *dec->texels) ||
            tbr_rec_texels_next(&c, h, &dec->fetches[i], dec->texels + used, TBR_REC_MAX_TEXELS_PER_FETCH)) {
            rc = bad_item(d, i);
            break;
        }
        dec->fetches[i].texels = (const tbr_rec_texel *)(uintptr_t)used; /* the pool may move: offsets first */
        used += dec->fetches[i].n_texels;
    }
    for (uint32_t k = 0; k < i; k++) dec->fetches[k].texels = dec->texels + (uintptr_t)dec->fetches[k].texels;
    d->u.texels.f = dec->fetches;
    if (rc) return rc;
    if (tbr_rec_texels_close(&c)) {
        d->bad = TBR_REC_BAD_TRAILING;
        return -1;
    }
    return 0;
}

static int dec_vertices(tbr_rec_decoder *dec, tbr_rec_decoded *d)
{
    tbr_cursor c;
    d->u.vertices.h = &dec->vh;
    d->u.vertices.g = dec->groups;
    if (tbr_rec_vertices_open(&c, d->payload, d->len, &dec->vh)) {
        d->bad = TBR_REC_BAD_HEADER;
        return -1;
    }
    for (uint32_t i = 0; i < dec->vh.count; i++) {
        if (room((void **)&dec->groups, &dec->cap_groups, (size_t)i + 1, sizeof *dec->groups)) return bad_item(d, i);
        d->u.vertices.g = dec->groups;
        if (tbr_rec_vertices_next(&c, &dec->vh, &dec->groups[i])) return bad_item(d, i);
    }
    if (tbr_rec_vertices_close(&c)) {
        d->bad = TBR_REC_BAD_TRAILING;
        return -1;
    }
    return 0;
}

/* ---- draw sequence numbers (read without decoding the record) ---- */

/* DRAW (seq), PRIM (draw_seq), TEXELS, VERTICES, VS_TEXELS, VS_TEXTURES (draw_seq): the
 * first field */
static int seq_first_field(const uint8_t *p, size_t n, uint32_t *seq)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    *seq = tbr_cursor_uvarint32(&c);
    return tbr_cursor_ok(&c) ? 1 : -1;
}

static int seq_draw_end(const uint8_t *p, size_t n, uint32_t *seq)
{
    tbr_rec_draw_end r;
    if (tbr_rec_draw_end_decode(p, n, &r)) return -1;
    *seq = r.seq;
    return 1;
}

static int seq_quads(const uint8_t *p, size_t n, uint32_t *seq)
{
    tbr_cursor c;
    tbr_rec_quads_header h;
    if (tbr_rec_quads_open(&c, p, n, &h)) return -1;
    *seq = h.draw_seq;
    return 1;
}

/* ---- the table ---- */

/* clang-format off */
static const tbr_rec_type_info k_table[TBR_REC_TYPE_COUNT] = {
    [TBR_REC_FRAME_END]     = {TBR_REC_FRAME_END, "FRAME_END", NULL, dec_frame_end, tbr_rec_print_frame_end, NULL},
    [TBR_REC_RESOURCE]      = {TBR_REC_RESOURCE, "RESOURCE", NULL, dec_resource, tbr_rec_print_resource, NULL},
    [TBR_REC_UPLOAD]        = {TBR_REC_UPLOAD, "UPLOAD", NULL, dec_upload, tbr_rec_print_upload, NULL},
    [TBR_REC_SHADER_CREATE] = {TBR_REC_SHADER_CREATE, "SHADER_CREATE", NULL, dec_shader_create, tbr_rec_print_shader,
                               NULL},
    [TBR_REC_SHADER]        = {TBR_REC_SHADER, "SHADER", NULL, dec_shader, tbr_rec_print_shader, NULL},
    [TBR_REC_RENDER_PASS]   = {TBR_REC_RENDER_PASS, "RENDER_PASS", NULL, dec_render_pass, tbr_rec_print_render_pass,
                               NULL},
    [TBR_REC_CLEAR]         = {TBR_REC_CLEAR, "CLEAR", NULL, dec_clear, tbr_rec_print_clear, NULL},
    [TBR_REC_DRAW]          = {TBR_REC_DRAW, "DRAW", NULL, dec_draw, tbr_rec_print_draw, seq_first_field},
    [TBR_REC_DRAW_END]      = {TBR_REC_DRAW_END, "DRAW_END", NULL, dec_draw_end, tbr_rec_print_draw_end, seq_draw_end},
    [TBR_REC_PRIM]          = {TBR_REC_PRIM, "PRIM", NULL, dec_prim, tbr_rec_print_prim, seq_first_field},
    [TBR_REC_QUADS]         = {TBR_REC_QUADS, "QUADS", "quad", dec_quads, tbr_rec_print_quads, seq_quads},
    [TBR_REC_TILE]          = {TBR_REC_TILE, "TILE", NULL, dec_tile, tbr_rec_print_tile, NULL},
    [TBR_REC_FLUSH]         = {TBR_REC_FLUSH, "FLUSH", NULL, dec_flush, tbr_rec_print_flush, NULL},
    [TBR_REC_UNSUPPORTED]   = {TBR_REC_UNSUPPORTED, "UNSUPPORTED", NULL, dec_unsupported, tbr_rec_print_unsupported,
                               NULL},
    [TBR_REC_PATH]          = {TBR_REC_PATH, "PATH", NULL, dec_path, tbr_rec_print_path, NULL},
    [TBR_REC_TEXELS]        = {TBR_REC_TEXELS, "TEXELS", "fetch", dec_texels, tbr_rec_print_texels, seq_first_field},
    [TBR_REC_VERTICES]      = {TBR_REC_VERTICES, "VERTICES", "group", dec_vertices, tbr_rec_print_vertices,
                               seq_first_field},
    [TBR_REC_SURFACE_INIT]  = {TBR_REC_SURFACE_INIT, "SURFACE_INIT", NULL, dec_surface_init,
                               tbr_rec_print_surface_init, NULL},
    [TBR_REC_VS_TEXELS]     = {TBR_REC_VS_TEXELS, "VS_TEXELS", "fetch", dec_texels, tbr_rec_print_texels,
                               seq_first_field},
    [TBR_REC_VS_TEXTURES]   = {TBR_REC_VS_TEXTURES, "VS_TEXTURES", NULL, dec_vs_textures, tbr_rec_print_vs_textures,
                               seq_first_field},
    [TBR_REC_SURFACE_CHECK] = {TBR_REC_SURFACE_CHECK, "SURFACE_CHECK", NULL, dec_surface_check,
                               tbr_rec_print_surface_check, NULL},
    [TBR_REC_INVALIDATE]    = {TBR_REC_INVALIDATE, "INVALIDATE", NULL, dec_invalidate, tbr_rec_print_invalidate, NULL},
};
/* clang-format on */

const tbr_rec_type_info *tbr_rec_type_info_of(uint16_t type)
{
    return type < TBR_REC_TYPE_COUNT && k_table[type].name ? &k_table[type] : NULL;
}

const char *tbr_rec_type_name(uint16_t type)
{
    const tbr_rec_type_info *ti = tbr_rec_type_info_of(type);
    return ti ? ti->name : NULL;
}

int tbr_rec_decode(tbr_rec_decoder *d, uint16_t type, const uint8_t *p, size_t n, const tbr_rec_decoded **out)
{
    tbr_rec_decoded *r = &d->rec;
    r->type = type;
    r->payload = p;
    r->len = n;
    r->bad = TBR_REC_BAD_NONE;
    r->bad_item = 0;
    *out = r;
    const tbr_rec_type_info *ti = tbr_rec_type_info_of(type);
    if (!ti || type >= 64 || !(d->types & TBR_REC_MASK(type))) return 1;
    return ti->decode(d, r) ? -1 : 0;
}

void tbr_rec_decode_error_text(const tbr_rec_decoded *r, char *buf, size_t n)
{
    const tbr_rec_type_info *ti = tbr_rec_type_info_of(r->type);
    const char *name = ti ? ti->name : "?";
    switch (r->bad) {
        case TBR_REC_BAD_HEADER: snprintf(buf, n, "bad %s header", name); break;
        case TBR_REC_BAD_ITEM:
            snprintf(buf, n, "bad %s %u in %s", ti && ti->item ? ti->item : "item", (unsigned)r->bad_item, name);
            break;
        case TBR_REC_BAD_TRAILING: snprintf(buf, n, "trailing bytes in %s", name); break;
        default: snprintf(buf, n, "bad %s record", name); break;
    }
}

int tbr_rec_print(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    const tbr_rec_type_info *ti = tbr_rec_type_info_of(d->type);
    if (!ti) return 1;
    if (d->bad == TBR_REC_BAD_RECORD || d->bad == TBR_REC_BAD_HEADER) return -1;
    ti->print(out, d, verbose); /* (a damaged streamed record: up to its bad item, as read item by item) */
    return d->bad == TBR_REC_BAD_NONE ? 0 : -1;
}

uint32_t tbr_rec_items(const tbr_rec_decoded *d)
{
    if (d->bad == TBR_REC_BAD_ITEM) return d->bad_item;
    switch (d->type) {
        case TBR_REC_QUADS: return d->u.quads.h.count;
        case TBR_REC_TEXELS:
        case TBR_REC_VS_TEXELS: return d->u.texels.h.count;
        case TBR_REC_VERTICES: return d->u.vertices.h->count;
        default: return 0;
    }
}

int tbr_rec_draw_seq(uint16_t type, const uint8_t *p, size_t n, uint32_t *seq)
{
    const tbr_rec_type_info *ti = tbr_rec_type_info_of(type);
    return ti && ti->draw_seq ? ti->draw_seq(p, n, seq) : 0;
}
