/*
 * tbr/record_table.h - ONE table of the record types of the GPU activity trace
 * (docs/trace-records.md): per type its id, name, decode into a tagged record
 * (tbr_rec_decoded), print (tbr-dump's text) and the draw a record belongs to.
 *
 * Every reader of the trace (tbr-sim's frame loader and its Rendering Elimination
 * scan, tbr-dump, tbr-characterize) decodes records here and switches over decoded
 * records instead of payload bytes:
 *
 *     tbr_rec_decoder *dec = tbr_rec_decoder_new(TBR_REC_MASK(TBR_REC_DRAW) | ...);
 *     while (tbr_trace_reader_next_record(r, &type, &p, &n) > 0) {
 *         const tbr_rec_decoded *rec;
 *         int rc = tbr_rec_decode(dec, type, p, n, &rec);
 *         if (rc < 0) ... tbr_rec_decode_error_text(rec, msg, sizeof msg) ...
 *         if (rc == 0) switch (rec->type) { case TBR_REC_DRAW: use rec->u.draw; ... }
 *     }
 *
 * A decoder decodes only the types of its mask (a consumer is not stricter than the
 * fields it reads: a record it does not use is not checked). Streamed records (QUADS,
 * TEXELS, VS_TEXELS, VERTICES) are decoded whole: their items are in arrays the decoder
 * owns. Everything a decoded record points to (items, texts, constants, payload) is
 * valid until the next tbr_rec_decode call on the decoder or the next reader call.
 */
#ifndef TBR_RECORD_TABLE_H
#define TBR_RECORD_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tbr/records.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TBR_REC_MASK(type) ((uint64_t)1 << (type))
#define TBR_REC_MASK_ALL   (((uint64_t)1 << TBR_REC_TYPE_COUNT) - 2u) /* every known type (1 ..) */

/* Where a record failed to decode (tbr_rec_decoded.bad). */
enum tbr_rec_bad {
    TBR_REC_BAD_NONE = 0,
    TBR_REC_BAD_RECORD,   /* a record of one piece ("bad X record") */
    TBR_REC_BAD_HEADER,   /* a streamed record's header ("bad X header") */
    TBR_REC_BAD_ITEM,     /* its item bad_item ("bad quad 7 in QUADS"); the header is valid */
    TBR_REC_BAD_TRAILING, /* bytes after its last item ("trailing bytes in X"); header and items valid */
};

/* A decoded record: the type tag, the payload, and the fields of that type. */
typedef struct tbr_rec_decoded {
    uint16_t type;
    const uint8_t *payload; /* the record's bytes (e.g. the signed DRAW block of RE) */
    size_t len;
    enum tbr_rec_bad bad; /* set when tbr_rec_decode returned -1 */
    uint32_t bad_item;
    union {
        tbr_rec_frame_end frame_end;
        tbr_rec_resource resource;
        tbr_rec_upload upload;
        tbr_rec_shader shader; /* SHADER_CREATE and SHADER */
        tbr_rec_render_pass render_pass;
        tbr_rec_clear clear;
        tbr_rec_draw draw;
        tbr_rec_draw_end draw_end;
        tbr_rec_prim prim;
        tbr_rec_tile tile;
        tbr_rec_flush flush;
        tbr_rec_unsupported unsupported;
        tbr_rec_path path;
        tbr_rec_vs_textures vs_textures;
        tbr_rec_surface_init surface_init;
        tbr_rec_surface_check surface_check;
        tbr_rec_invalidate invalidate;
        struct {
            tbr_rec_quads_header h;
            tbr_rec_quad *q; /* h.count quads */
        } quads;
        struct { /* TEXELS and VS_TEXELS */
            tbr_rec_texels_header h;
            tbr_rec_texfetch *f; /* h.count fetches; f[i].texels into the decoder's texel pool */
        } texels;
        struct {
            const tbr_rec_vertices_header *h; /* (80 KiB of decoder state: the decoder's) */
            tbr_rec_vertex_group *g;          /* h->count groups */
        } vertices;
    } u;
} tbr_rec_decoded;

typedef struct tbr_rec_decoder tbr_rec_decoder;

/* A decoder of the record types in `types` (TBR_REC_MASK bits). NULL if out of memory. */
tbr_rec_decoder *tbr_rec_decoder_new(uint64_t types);
void tbr_rec_decoder_free(tbr_rec_decoder *d);
/* Changes the mask of the types the decoder decodes. */
void tbr_rec_decoder_set_types(tbr_rec_decoder *d, uint64_t types);
/* Decodes one record. Returns 0 (decoded), 1 (not decoded: a type outside the mask or
 * unknown to this build; *out has the type and payload only) or -1 (malformed: (*out)->bad
 * says where). *out points into the decoder. */
int tbr_rec_decode(tbr_rec_decoder *d, uint16_t type, const uint8_t *p, size_t n, const tbr_rec_decoded **out);
/* The message of a failed decode: "bad QUADS header", "bad quad 7 in QUADS", "trailing
 * bytes in QUADS", "bad DRAW record". */
void tbr_rec_decode_error_text(const tbr_rec_decoded *r, char *buf, size_t n);

/* ---- the table ---- */
typedef struct tbr_rec_type_info {
    uint16_t type;
    const char *name; /* "QUADS" */
    const char *item; /* streamed types: what an item is called in messages ("quad"); else NULL */
    /* decodes d->payload/len into the union of *d (the decoder's arrays for items): 0 or -1 */
    int (*decode)(tbr_rec_decoder *dec, tbr_rec_decoded *d);
    /* tbr-dump's text of a decoded record (after its "  [k] NAME" prefix) */
    void (*print)(FILE *out, const tbr_rec_decoded *d, int verbose);
    /* the draw sequence number the payload carries (read without decoding the rest, as a
     * --draw filter needs it): 1 and *seq, -1 if it does not read; NULL: carries none */
    int (*draw_seq)(const uint8_t *p, size_t n, uint32_t *seq);
} tbr_rec_type_info;

/* The table entry of a type, NULL if the type is unknown to this build. */
const tbr_rec_type_info *tbr_rec_type_info_of(uint16_t type);

/* tbr-dump's text of a record decoded by a decoder whose mask has its type: 0 printed,
 * 1 unknown type, -1 malformed (nothing printed; a streamed record with a bad item or
 * trailing bytes: its header and the items before the bad one, as a reader going item by
 * item prints them). */
int tbr_rec_print(FILE *out, const tbr_rec_decoded *d, int verbose);
/* The items of a decoded streamed record that are valid: its count, or the items before
 * the bad one (TBR_REC_BAD_ITEM); 0 for other types. */
uint32_t tbr_rec_items(const tbr_rec_decoded *d);
/* The draw a record carries (tbr_rec_type_info.draw_seq): 1, 0 if none, -1 unreadable. */
int tbr_rec_draw_seq(uint16_t type, const uint8_t *p, size_t n, uint32_t *seq);
/* Prints text line by line, each line prefixed with indent. */
void tbr_rec_print_text_block(FILE *out, const char *text, size_t len, const char *indent);

#ifdef __cplusplus
}
#endif

#endif /* TBR_RECORD_TABLE_H */
