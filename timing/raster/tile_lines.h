/* The memory lines a tile of a surface covers (the tile buffers' loads and flushes:
 * Early-Z's depth buffer, Blending's color buffer). */
#ifndef TBR_TILE_LINES_H
#define TBR_TILE_LINES_H

#include <stdint.h>

#include "sim_env.h"

/* Lines of surface s covered by tile t: row-major, lines_per_row per row. */
static inline uint32_t tile_line_count(const sim_env *env, const sim_surf *s, uint32_t tile, uint32_t *lpr)
{
    uint32_t tx = tile % env->tiles_x, ty = tile / env->tiles_x;
    uint32_t x0 = tx * env->tile_w, y0 = ty * env->tile_h;
    if (x0 >= s->w || y0 >= s->h) {
        *lpr = 0;
        return 0;
    }
    uint32_t w = s->w - x0 < env->tile_w ? s->w - x0 : env->tile_w;
    uint32_t h = s->h - y0 < env->tile_h ? s->h - y0 : env->tile_h;
    uint32_t bpp = tbr_format_get_info(s->fmt)->bytes;
    uint64_t a = (uint64_t)x0 * bpp, b = a + (uint64_t)w * bpp - 1;
    *lpr = (uint32_t)(b / 64 - a / 64 + 1);
    return *lpr * h;
}

static inline uint64_t tile_line_addr(const sim_env *env, const sim_surf *s, uint32_t tile, uint32_t k, uint32_t lpr)
{
    uint32_t tx = tile % env->tiles_x, ty = tile / env->tiles_x;
    uint32_t bpp = tbr_format_get_info(s->fmt)->bytes;
    uint64_t stride = (uint64_t)s->w * bpp;
    uint64_t row = ty * env->tile_h + k / lpr;
    uint64_t a = s->base + row * stride + (uint64_t)tx * env->tile_w * bpp;
    return (a & ~(uint64_t)63) + (uint64_t)(k % lpr) * 64;
}

#endif
