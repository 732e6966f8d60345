/* tbrsim recorder: surfaces: render passes (RENDER_PASS), clears and uploads, the hot
 * start (SURFACE_INIT of render targets at their first use in the window), SURFACE_CHECK,
 * TILE records, and the sampled textures tbr-sim is given for computed colors. */
#ifndef TBR_SURFACES_H
#define TBR_SURFACES_H

#include <stdint.h>

#include "tbr/trace.h"
#include "tbr_mesa_hooks.h"

#include "color_shadow.h"
#include "computed_colors.h"
#include "contexts.h"
#include "rec_sink.h"
#include "rec_status.h"
#include "resources.h"

struct surfaces {
    struct rec_status *st;
    /* render passes */
    tbr_buf last_pass;    /* encoding of the current render pass (seq excluded) */
    uint32_t pass_seq;    /* this frame */
    const void *pass_ctx; /* GL context of the current render pass */
    uint64_t context_switches;
    struct tbr_hook_surface fb_zs; /* zsbuf of the latest framebuffer hook (map valid during its clear) */
    uint32_t fb_height;            /* framebuffer of the latest framebuffer hook */
    uint32_t zs_clear_write_res;   /* resource id + 1 whose next UPLOAD is a partial zs clear's write */
    uint64_t clear_writes;
    uint64_t surface_checks;
    /* the current RENDER_PASS's bindings (resource ids, 0 = none; INVALIDATE's buffers) */
    uint32_t pass_cbuf_res[TBR_HOOK_MAX_CBUFS], pass_nr_cbufs, pass_zs_res, pass_zs_bits;
    uint64_t invalidations, invalidations_bound;
    /* hot start (docs/trace-records.md SURFACE_INIT): render-target surfaces whose
     * memory the trace accounts for since the window began (first event seen) */
    struct known_surface {
        uint32_t resource_id, level, layer, is_zs;
    } * known;
    uint32_t nknown, cap_known;
    uint64_t surface_inits, surface_init_bytes;
    /* sampled textures the simulator holds (SURFACE_INIT given, no upload since) */
    struct tex_known {
        uint32_t resource_id, level, layer, pass_sampled, frame_sampled;
        int given, dirty;
    } * tex;
    uint32_t ntex, cap_tex;
    uint64_t texture_inits, texture_init_bytes;
};

void surf_init(struct surfaces *s, struct rec_status *st);
void surf_new_frame(struct surfaces *s);
void surf_free(struct surfaces *s);
/* The framebuffer binding: the color shadow learns it; a binding that differs from the
 * current pass's (or comes from another GL context) starts a RENDER_PASS. */
void surf_framebuffer(struct surfaces *s, const struct tbr_hook_framebuffer *fb, tbr_color_shadow *cs,
                      struct gl_contexts *contexts, struct resource_table *resources, const struct rec_sink *out);
void surf_clear(struct surfaces *s, const struct tbr_hook_clear *c, struct rec_counts *counts,
                const struct rec_sink *out);
void surf_upload(struct surfaces *s, const struct tbr_hook_upload *u, struct resource_table *resources,
                 struct rec_counts *counts, const struct rec_sink *out);
/* A tile event: a surface's first one in the window (unless a full clear) gives its
 * memory first; then the TILE record. */
void surf_tile(struct surfaces *s, const struct tbr_hook_tile *t, struct rec_counts *counts,
               const struct rec_sink *out);
/* pipe->invalidate_resource (glInvalidateFramebuffer / glDiscardFramebufferEXT): an
 * INVALIDATE record naming the bindings of the current pass that view the resource. */
void surf_invalidate(struct surfaces *s, const struct tbr_hook_resource *res, struct resource_table *resources,
                     const struct rec_sink *out);
/* A draw begins: a partial zs clear's write is no longer pending. */
void surf_draw_begins(struct surfaces *s);
/* Gives tbr-sim the memory of every level the computed-colors draw samples that it does
 * not hold (SURFACE_INIT); disables the draw's computation where that is impossible.
 * frame: the swap count. */
void surf_give_sampled_textures(struct surfaces *s, tbr_computed_colors *cc, const struct tbr_hook_draw *d,
                                uint64_t frame, const struct rec_sink *out);

#endif
