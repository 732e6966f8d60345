/* tbrsim: functional part of the Blending unit, bit-exact with Mesa 22.3.6 softpipe
 * sp_quad_blend.c (blend_fallback, the fast paths, logic ops, color mask, clamping and
 * "rebase" of formats without alpha). Colors are floats as in softpipe's tile cache;
 * quantization happens only when a tile buffer is stored (tile_buffers.h).
 * Enum values equal Gallium's PIPE_* values. No dithering: softpipe never dithers.
 */
#ifndef TBR_BLENDING_H
#define TBR_BLENDING_H

#include <stdbool.h>
#include <stdint.h>

#include "pixel_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TBR_MAX_COLOR_BUFS 8

typedef enum { /* = PIPE_BLENDFACTOR_* */
               TBR_BF_ONE = 0x1,
               TBR_BF_SRC_COLOR,
               TBR_BF_SRC_ALPHA,
               TBR_BF_DST_ALPHA,
               TBR_BF_DST_COLOR,
               TBR_BF_SRC_ALPHA_SATURATE,
               TBR_BF_CONST_COLOR,
               TBR_BF_CONST_ALPHA,
               TBR_BF_SRC1_COLOR,
               TBR_BF_SRC1_ALPHA,
               TBR_BF_ZERO = 0x11,
               TBR_BF_INV_SRC_COLOR,
               TBR_BF_INV_SRC_ALPHA,
               TBR_BF_INV_DST_ALPHA,
               TBR_BF_INV_DST_COLOR,
               TBR_BF_INV_CONST_COLOR = 0x17,
               TBR_BF_INV_CONST_ALPHA,
               TBR_BF_INV_SRC1_COLOR,
               TBR_BF_INV_SRC1_ALPHA
} tbr_blend_factor;

typedef enum { /* = PIPE_BLEND_* */
               TBR_BLEND_ADD = 0,
               TBR_BLEND_SUBTRACT,
               TBR_BLEND_REVERSE_SUBTRACT,
               TBR_BLEND_MIN,
               TBR_BLEND_MAX
} tbr_blend_func;

typedef enum { /* = PIPE_LOGICOP_* */
               TBR_LOGICOP_CLEAR = 0,
               TBR_LOGICOP_NOR,
               TBR_LOGICOP_AND_INVERTED,
               TBR_LOGICOP_COPY_INVERTED,
               TBR_LOGICOP_AND_REVERSE,
               TBR_LOGICOP_INVERT,
               TBR_LOGICOP_XOR,
               TBR_LOGICOP_NAND,
               TBR_LOGICOP_AND,
               TBR_LOGICOP_EQUIV,
               TBR_LOGICOP_NOOP,
               TBR_LOGICOP_OR_INVERTED,
               TBR_LOGICOP_COPY,
               TBR_LOGICOP_OR_REVERSE,
               TBR_LOGICOP_OR,
               TBR_LOGICOP_SET
} tbr_logicop;

/* Name lookup (with or without the PIPE_BLENDFACTOR_ / PIPE_BLEND_ / PIPE_LOGICOP_
 * prefix). Return -1 if unknown. */
int tbr_blend_factor_from_name(const char *name);
int tbr_blend_func_from_name(const char *name);
int tbr_logicop_from_name(const char *name);

#define TBR_MASK_R 0x1
#define TBR_MASK_G 0x2
#define TBR_MASK_B 0x4
#define TBR_MASK_A 0x8

typedef struct {
    bool blend_enable;
    tbr_blend_func rgb_func, alpha_func;
    tbr_blend_factor rgb_src_factor, rgb_dst_factor, alpha_src_factor, alpha_dst_factor;
    uint8_t colormask; /* TBR_MASK_* bits */
} tbr_rt_blend_state;

/* pipe_blend_state + blend color + the other inputs blend_fallback reads. */
typedef struct {
    bool independent_blend_enable;
    bool logicop_enable;
    tbr_logicop logicop_func;
    tbr_rt_blend_state rt[TBR_MAX_COLOR_BUFS];
    float blend_color[4];            /* unclamped, as set by set_blend_color */
    bool clamp_fragment_color;       /* rasterizer->clamp_fragment_color */
    bool fs_color0_writes_all_cbufs; /* TGSI_PROPERTY_FS_COLOR0_WRITES_ALL_CBUFS */
} tbr_blend_state;

/* Which function softpipe's choose_blend_quad runs. */
typedef enum {
    TBR_BLEND_PATH_NOOP,             /* no color buffers */
    TBR_BLEND_PATH_SINGLE_OUTPUT,    /* single_output_color: plain copy */
    TBR_BLEND_PATH_ADD_ONE_ONE,      /* blend_single_add_one_one */
    TBR_BLEND_PATH_ADD_SRCA_INVSRCA, /* blend_single_add_src_alpha_inv_src_alpha */
    TBR_BLEND_PATH_FALLBACK          /* blend_fallback */
} tbr_blend_path;

/* nr_cbufs = framebuffer.nr_cbufs; cbuf_formats[i] = TBR_PF_NONE for an unbound slot. */
tbr_blend_path tbr_blend_choose_path(const tbr_blend_state *bs, unsigned nr_cbufs,
                                     const tbr_pixel_format *cbuf_formats);

/* How many color buffers (0 .. n) the chosen path writes: blend_fallback all nr_cbufs,
 * the single-buffer fast paths buffer 0, blend_noop none. */
static inline unsigned tbr_blend_path_cbufs(tbr_blend_path path, unsigned nr_cbufs)
{
    return path == TBR_BLEND_PATH_FALLBACK ? nr_cbufs : path == TBR_BLEND_PATH_NOOP ? 0u : 1u;
}

/* Per-pixel blend of one color buffer, exactly as the chosen path does it.
 *  src:  fragment shader output for this cbuf (output.color[cbuf], or color[0] when
 *        fs_color0_writes_all_cbufs); src1: second dual-source output
 *        (output.color[cbuf+1]) or NULL;
 *  dst:  current float color in the tile buffer;
 *  out:  the new float color to store in the tile buffer (only for covered pixels).
 * Returns false if the path/state is not supported (never for valid states). */
bool tbr_blend_pixel(const tbr_blend_state *bs, tbr_blend_path path, unsigned cbuf, tbr_pixel_format cbuf_format,
                     const float src[4], const float *src1, const float dst[4], float out[4]);

/* True if the render target's blend state reads SRC1 factors (util_blend_state_is_dual). */
bool tbr_blend_is_dual(const tbr_blend_state *bs, unsigned cbuf);

#ifdef __cplusplus
}
#endif
#endif
