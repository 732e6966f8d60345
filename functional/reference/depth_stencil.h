/* tbrsim: functional part of the Early-Z / late-Z unit (depth bounds, alpha, stencil
 * and depth tests), bit-exact with Mesa 22.3.6 softpipe sp_quad_depth_test.c.
 *
 * Unit of work: a 2x2 quad, pixel j at (x0 + (j & 1), y0 + (j >> 1)), coverage mask
 * bit j. Depth/stencil pixels are the raw stored words of the depth buffer format
 * (see pixel_formats.h), exactly like softpipe's tile cache keeps them.
 * Enum values equal Gallium's PIPE_* values, so numbers from a trace can be cast.
 */
#ifndef TBR_DEPTH_STENCIL_H
#define TBR_DEPTH_STENCIL_H

#include <stdbool.h>
#include <stdint.h>

#include "pixel_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { /* = PIPE_FUNC_* */
               TBR_FUNC_NEVER = 0,
               TBR_FUNC_LESS,
               TBR_FUNC_EQUAL,
               TBR_FUNC_LEQUAL,
               TBR_FUNC_GREATER,
               TBR_FUNC_NOTEQUAL,
               TBR_FUNC_GEQUAL,
               TBR_FUNC_ALWAYS
} tbr_compare_func;

typedef enum { /* = PIPE_STENCIL_OP_* */
               TBR_STENCIL_OP_KEEP = 0,
               TBR_STENCIL_OP_ZERO,
               TBR_STENCIL_OP_REPLACE,
               TBR_STENCIL_OP_INCR,
               TBR_STENCIL_OP_DECR,
               TBR_STENCIL_OP_INCR_WRAP,
               TBR_STENCIL_OP_DECR_WRAP,
               TBR_STENCIL_OP_INVERT
} tbr_stencil_op;

/* Name lookup ("PIPE_FUNC_LESS" / "LESS", "PIPE_STENCIL_OP_INCR_WRAP" / "INCR_WRAP").
 * Return -1 if unknown. */
int tbr_compare_func_from_name(const char *name);
int tbr_stencil_op_from_name(const char *name);

typedef struct {
    bool enabled; /* stencil[1].enabled = two-sided stencil */
    tbr_compare_func func;
    tbr_stencil_op fail_op, zfail_op, zpass_op;
    uint8_t valuemask, writemask;
} tbr_stencil_face;

/* pipe_depth_stencil_alpha_state + stencil_ref + the bits of rasterizer/viewport state
 * the depth stage reads. */
typedef struct {
    bool depth_enabled;
    bool depth_writemask;
    tbr_compare_func depth_func;
    tbr_stencil_face stencil[2]; /* [0] front, [1] back */
    uint8_t stencil_ref[2];
    bool alpha_enabled;
    tbr_compare_func alpha_func;
    float alpha_ref;
    bool depth_bounds_test;
    double depth_bounds_min, depth_bounds_max;
    /* depth clamp (softpipe: data.clamp = !rasterizer->depth_clip_near) with the range
   * derived from the viewport: near = translate[2] - scale[2],
   * far = near + scale[2] * 2.0 (in double, stored to float). */
    bool depth_clamp;
    float viewport_scale_z, viewport_translate_z;
    /* occlusion query active: forces the fallback path in softpipe */
    bool occlusion_query;
} tbr_dsa_state;

/* ---- building blocks ---- */

/* interpolate_quad_depth: z of the 4 pixels from the triangle's z plane
 * (posCoef a0[2], dadx[2], dady[2]) and the quad origin. */
void tbr_interpolate_quad_depth(float a0, float dzdx, float dzdy, int x0, int y0, float z[4]);

/* convert_quad_depth for one value: float fragment z -> integer compared and stored
 * in the depth buffer (truncation, not rounding; Z32_FLOAT: the float's bits). The
 * depth clamp (if enabled in st) is applied first. */
uint32_t tbr_depth_float_to_buffer(const tbr_dsa_state *st, tbr_pixel_format zsfmt, float z);

/* Split / merge a raw depth-stencil word into (depth value, stencil value) as
 * get_depth_stencil_values / write_depth_stencil_values do. */
void tbr_zs_split(tbr_pixel_format zsfmt, uint64_t raw, uint32_t *z, uint8_t *s);
uint64_t tbr_zs_merge(tbr_pixel_format zsfmt, uint32_t z, uint8_t s);

/* Single compare as the depth test does it (Z32_FLOAT formats compare as floats). */
bool tbr_depth_compare(tbr_pixel_format zsfmt, tbr_compare_func func, uint32_t frag, uint32_t buf);
bool tbr_stencil_compare(tbr_compare_func func, uint8_t ref, uint8_t val, uint8_t valuemask);
/* apply_stencil_op for one pixel (ref: state ref or shader ref), then the write mask. */
uint8_t tbr_stencil_apply_op(tbr_stencil_op op, uint8_t val, uint8_t ref, uint8_t writemask);

/* ---- the quad test ---- */

typedef struct {
    unsigned mask;    /* coverage in, 4 bits */
    bool facing_back; /* quad->input.facing (1 = back) */
    float z[4];       /* quad->output.depth[]: interpolated or shader-written */
    /* If non-NULL: the 4 depth values already in the buffer's integer encoding (e.g. the
   * trace's QUADS z[], which includes the Z16 fast path's incremental values); used
   * instead of converting z[]. */
    const uint32_t *zint;
    const float *alpha;                /* output.color[0][3][4] for the alpha test (NULL if off) */
    const uint8_t *shader_stencil_ref; /* 4 values if the FS writes stencil, else NULL */
} tbr_ds_quad;

/* depth_test_quads_fallback for one quad: depth-bounds test, alpha test, stencil and
 * depth tests, stencil ops and depth/stencil write-back into zs[4] (raw words of the
 * 4 pixels, read and written). have_zs = a depth/stencil buffer is bound.
 * Returns the surviving coverage mask. */
unsigned tbr_ds_test_quad(const tbr_dsa_state *st, tbr_pixel_format zsfmt, bool have_zs, const tbr_ds_quad *q,
                          uint64_t zs[4]);

/* Which path softpipe's choose_depth_test takes. */
typedef enum {
    TBR_DS_PATH_NOOP,     /* depth_noop: quads pass untouched */
    TBR_DS_PATH_Z16_FAST, /* depth_interp_z16_<func>_write */
    TBR_DS_PATH_FALLBACK  /* depth_test_quads_fallback */
} tbr_ds_path;

/* interp_depth = !fs writes_z || early_depth. */
tbr_ds_path tbr_ds_choose_path(const tbr_dsa_state *st, tbr_pixel_format zsfmt, bool have_zs, bool interp_depth);

/* The Z16 fast path for one batch of quads (one call of the stage's run(): the quads
 * softpipe's setup emitted together, in order; all on the same row). Depth is derived
 * from the plane of quads[0]: init = (ushort)(z * 65535.0f) per pixel of the first quad,
 * then idepth = init + dx * (ushort)(dzdx * 65535.0f) in 16-bit wrap-around arithmetic.
 * depth16 rows of the pixels are addressed through get_z16(ctx, x, y).
 * masks[i] is updated to the surviving coverage. */
typedef uint16_t *(*tbr_z16_accessor)(void *ctx, int x, int y);
void tbr_ds_z16_fast_batch(tbr_compare_func func, float a0, float dzdx, float dzdy, const int *x0, const int *y0,
                           unsigned *masks, unsigned nr, tbr_z16_accessor get_z16, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
