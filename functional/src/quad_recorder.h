/* tbrsim recorder: the QUADS records of the current draw and their texels (TEXELS, or
 * derived: records minor 6, docs/trace-records.md "Derived texels").
 *
 * Derived texels are off with TBR_RECORD_TEXELS=1 or without computed colors. softpipe
 * reports a batch's texels (texels hook) right after its quads (quads hook), so a batch
 * waits for them (a copy of its quads) and each quad's recomputation is compared with
 * softpipe's texels as it runs. A QUADS record is all derived or all recorded: a shaded
 * quad whose texels do not match starts a new record, so every record's flag is known
 * when it closes and the texels of derived ones are never copied. The functions take the
 * current draw (dr), the color shadow, computed colors (cc, NULL if off), the counters
 * they update and the stream the records go to. */
#ifndef TBR_QUAD_RECORDER_H
#define TBR_QUAD_RECORDER_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "tbr/records.h"
#include "tbr/trace.h"
#include "tbr_mesa_hooks.h"

#include "depth_plane.h"

#include "color_shadow.h"
#include "computed_colors.h"
#include "draws.h"
#include "rec_status.h"
#include "stream_writer.h"

#define QR_MAX_CAUSES 32 /* distinct causes kept; later ones are counted as "other" */
#define QR_DEPTH_RING 8  /* primitives whose depth planes are kept (quads follow their PRIM) */

struct quad_recorder {
    struct rec_status *st;
    int derive_texels;
    uint32_t texel_reject_every, texel_reject_count; /* TBR_TEST_TEXEL_REJECT_EVERY */
    /* derived depths (records minor 12): the current draw's depth state and the planes of
     * its latest primitives; TBR_TEST_DEPTH_REJECT_EVERY=N treats every N-th derivable quad
     * as if its depths differed (tests: records of both kinds in one draw) */
    int derive_depths;
    uint32_t depth_reject_every, depth_reject_count;
    tbr_depth_draw depth_draw;
    uint32_t depth_draw_seq;
    int depth_draw_set;
    struct qr_depth_prim {
        uint32_t index;
        tbr_depth_plane plane;
    } depth_ring[QR_DEPTH_RING];
    uint32_t depth_ring_next;
    uint64_t depths_derived, depths_recorded, depths_mismatched; /* HAS_Z quads */
    int open_depths_derived;                                     /* the pending record leaves its depths out */
    /* the pending QUADS record */
    tbr_buf quads;
    uint32_t quads_count;
    tbr_rec_quads_header hdr; /* its coding state */
    uint32_t quads_computed;  /* it is a COMPUTED one */
    uint32_t open_first_ord, open_shaded, open_fetches;
    int open_derivable;
    int open_derivable_known; /* set by the record's first shaded quad */
    /* closed QUADS records, written once their batch was compared */
    struct quads_closed {
        tbr_buf buf;
        uint32_t shaded;
        uint32_t fetches; /* of its shaded quads (recomputed) */
        int derivable;    /* every shaded quad's texels matched */
    } * closed;
    uint32_t nclosed, cap_closed;
    /* the batch waiting for its texels (colors of its color buffers only) */
    struct tbr_hook_quad *batch;
    uint32_t batch_n, cap_batch;
    int batch_waiting;
    uint32_t batch_first; /* draw ordinal of the first quad of the last quads() batch */
    uint32_t *slot_first; /* texels of batch slot k: [slot_first[k], slot_first[k + 1]) of */
    uint32_t *slot_order; /* t[slot_order[.]] (NULL order: t is already in slot order) */
    uint32_t cap_slot_first, cap_slot_order;
    /* pending TEXELS record (flushed right after the QUADS record) */
    tbr_rec_texfetch *tx_fetch;
    uint32_t tx_head, tx_nfetch, tx_capfetch; /* pending: [tx_head, tx_nfetch) */
    tbr_rec_texel *tx_texel;
    size_t tx_ntexel, tx_captexel;
    tbr_buf tx_buf;
    uint32_t tx_draw_seq;
    uint64_t texels_derived, texels_recorded, texels_mismatched; /* quads */
    /* why texels were recorded instead of derived (functional-status.txt
     * texels_not_derived): per cause, the shaded quads and softpipe's texels */
    struct texel_cause {
        char name[96];
        uint64_t quads, texels;
    } causes[QR_MAX_CAUSES];
    uint32_t ncauses;
};

void qr_init(struct quad_recorder *qr, struct rec_status *st);
void qr_set_options(struct quad_recorder *qr, int derive_texels, uint32_t texel_reject_every);
/* Derived depths (records minor 12): on unless TBR_RECORD_DEPTHS=1. */
void qr_set_depth_options(struct quad_recorder *qr, int derive_depths, uint32_t depth_reject_every);
/* A primitive of the current draw reached setup (its depth plane, for derived depths). */
void qr_prim(struct quad_recorder *qr, const struct tbr_hook_prim *p, const struct draw_recorder *dr);
void qr_free(struct quad_recorder *qr);
/* Writes the causes as "name:quads:texels" items, most texels first, comma-separated. */
void qr_write_causes(const struct quad_recorder *qr, FILE *f);
/* A batch that waited for its texels gets none (another hook came first). */
void qr_process_waiting(struct quad_recorder *qr, struct draw_recorder *dr, tbr_color_shadow *cs,
                        tbr_computed_colors *cc, struct rec_counts *counts);
/* Writes every pending QUADS record (and TEXELS): before any other record. */
void qr_flush(struct quad_recorder *qr, struct draw_recorder *dr, tbr_color_shadow *cs, tbr_computed_colors *cc,
              struct rec_counts *counts, struct stream_writer *sw);
/* A batch of quads of the current draw (the frame is open). */
void qr_quads(struct quad_recorder *qr, const struct tbr_hook_quad *qs, uint32_t n, struct draw_recorder *dr,
              tbr_color_shadow *cs, tbr_computed_colors *cc, struct rec_counts *counts, struct stream_writer *sw);
/* Texels of the batch just given to qr_quads (its slot k = draw ordinal batch_first + k). */
void qr_texels(struct quad_recorder *qr, const struct tbr_hook_texel *t, uint32_t n, struct draw_recorder *dr,
               tbr_color_shadow *cs, tbr_computed_colors *cc, struct rec_counts *counts, struct stream_writer *sw);

#endif
