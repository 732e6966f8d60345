/*
 * computed_colors.h - the recorder's side of "computed colors" (records minor 5,
 * docs/trace-records.md "Computed colors"): for every blended quad, run the shared
 * functional shading library (functional/reference: softpipe's setup coefficients,
 * the TGSI interpreter and the sampler) on what the trace holds, compare with the
 * colors softpipe's fragment shader produced, and tell the writer whether the trace
 * may omit them. A quad is omitted only if every color value matches bit for bit.
 */
#ifndef TBR_COMPUTED_COLORS_H
#define TBR_COMPUTED_COLORS_H

#include <stdint.h>

#include "tbr/records.h"
#include "fs_quad.h"
#include "tbr_mesa_hooks.h"

#define TBR_CC_RING 8 /* primitives whose coefficients are kept (quads follow their PRIM) */

struct tbr_tgsi_program;
struct tbr_cc_shader;

typedef struct tbr_cc_stats {
    uint64_t quads_computed;   /* blended quads whose colors the trace omits */
    uint64_t quads_recorded;   /* blended quads whose colors are recorded */
    uint64_t quads_mismatched; /* ... of which the recomputation differed from softpipe */
    uint64_t draws_computable, draws_not_computable;
    char first_reason[160]; /* why the first non-computable draw was not */
} tbr_cc_stats;

typedef struct tbr_computed_colors tbr_computed_colors;

tbr_computed_colors *tbr_cc_create(void);
void tbr_cc_destroy(tbr_computed_colors *cc);
const tbr_cc_stats *tbr_cc_stats_get(const tbr_computed_colors *cc);

/* A fragment shader's text (SHADER record of an executed variant). */
void tbr_cc_shader(tbr_computed_colors *cc, uint32_t id, const char *text);

/* Start of a draw; textures: its DRAW record's texture units. fb_height: the
 * framebuffer's (gl_FragCoord). Returns 1 if its quads may be computed (program,
 * textures and state supported), else 0. */
int tbr_cc_begin_draw(tbr_computed_colors *cc, const struct tbr_hook_draw *d, const tbr_rec_texture *textures,
                      uint32_t num_textures, uint32_t fb_height);
/* The draw's fragment-shader sampler views (units with a view) the simulator must be
 * able to read: n entries of unit indices, valid until the next begin_draw. */
uint32_t tbr_cc_draw_units(const tbr_computed_colors *cc, const uint32_t **units);
/* The draw is no longer computed (e.g. a texture it samples cannot be given to the
 * simulator in time). */
void tbr_cc_disable_draw(tbr_computed_colors *cc, const char *why);
void tbr_cc_prim(tbr_computed_colors *cc, const struct tbr_hook_prim *p);
/* Shaded quad q. If q is blended: 1 if recomputing it gives exactly colors[cb][ch][lane]
 * for every cb < nr_cbufs, channel and lane in q->blend_mask (colors as the trace would
 * record them), else 0 (counted in the stats); 0 for other quads. obs (may be NULL, then
 * only blended quads are recomputed): told each sampler call and texel of the
 * recomputation (derived texels, records minor 6, compared with softpipe's by the
 * caller); *ran = 1 if the recomputation ran to its end (its calls are complete). */
typedef struct tbr_cc_texel_observer {
    tbr_fs_fetch_observer fetch;
    tbr_texel_observer texel;
    void *ctx;
} tbr_cc_texel_observer;
int tbr_cc_quad(tbr_computed_colors *cc, const struct tbr_hook_quad *q, const float (*colors)[4][4], uint32_t nr_cbufs,
                const tbr_cc_texel_observer *obs, int *ran);
/* Why the last tbr_cc_quad did not run to its end (*ran = 0): the draw's reason for not
 * being computed (as first_reason), or what stopped this quad. Valid until the next call. */
const char *tbr_cc_quad_cause(const tbr_computed_colors *cc);
/* Components (bit c = channel c) of PRIM attribute `slot` that the current draw's
 * fragment shader declares: FS input slot - 1 (setup_coef.h); all for the position
 * (slot 0), slots past its inputs and draws that are not computed. */
unsigned tbr_cc_attr_components(const tbr_computed_colors *cc, uint32_t slot);
/* The resource the current draw's sampler unit views (its DRAW record entry), 0 if the
 * draw is not computed or does not sample that unit. */
uint32_t tbr_cc_unit_resource(const tbr_computed_colors *cc, uint32_t unit);

#endif
