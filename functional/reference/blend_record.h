/* tbrsim: the blend state of a recorded draw (DRAW record) as the pixel back end's
 * tbr_blend_state. Shared by the simulator's functional back end (sim_func.c) and the
 * recorder (functional/src/tbr_functional.c), which runs the same pixel arithmetic on
 * its shadow of softpipe's tile colors (docs/trace-records.md QUADS "packed colors"). */
#ifndef TBR_BLEND_RECORD_H
#define TBR_BLEND_RECORD_H

#include <string.h>

#include "blending.h"
#include "tbr/records.h"

static inline void tbr_blend_state_from_draw(tbr_blend_state *bs, const tbr_rec_draw *d)
{
    memset(bs, 0, sizeof *bs);
    bs->independent_blend_enable = d->independent_blend_enable;
    bs->logicop_enable = d->logicop_enable;
    bs->logicop_func = (tbr_logicop)(d->logicop_func & 15);
    for (unsigned i = 0; i < TBR_MAX_COLOR_BUFS && i < TBR_REC_MAX_CBUFS; i++) {
        bs->rt[i].blend_enable = d->rt[i].blend_enable;
        bs->rt[i].rgb_func = (tbr_blend_func)d->rt[i].rgb_func;
        bs->rt[i].alpha_func = (tbr_blend_func)d->rt[i].alpha_func;
        bs->rt[i].rgb_src_factor = (tbr_blend_factor)d->rt[i].rgb_src;
        bs->rt[i].rgb_dst_factor = (tbr_blend_factor)d->rt[i].rgb_dst;
        bs->rt[i].alpha_src_factor = (tbr_blend_factor)d->rt[i].alpha_src;
        bs->rt[i].alpha_dst_factor = (tbr_blend_factor)d->rt[i].alpha_dst;
        bs->rt[i].colormask = (uint8_t)d->rt[i].colormask;
    }
    memcpy(bs->blend_color, d->blend_color, sizeof bs->blend_color);
}

/* Channels the chosen path writes into the tile for a covered pixel of color buffer
 * cbuf (TBR_MASK_* bits): only blend_fallback applies the color mask; the fast paths
 * are chosen only with a full mask. */
static inline unsigned tbr_blend_written_channels(const tbr_blend_state *bs, tbr_blend_path path, unsigned cbuf)
{
    if (path == TBR_BLEND_PATH_NOOP) return 0;
    if (path != TBR_BLEND_PATH_FALLBACK) return 0xfu;
    return bs->rt[bs->independent_blend_enable ? cbuf : 0].colormask & 0xfu;
}

#endif
