/* tbrsim: render-target pixel formats, bit-exact with Mesa 22.3.6 util_format.
 *
 * Formats are identified by their Gallium name ("PIPE_FORMAT_B8G8R8A8_UNORM"; the
 * "PIPE_FORMAT_" prefix is optional on input) because the GPU activity trace records
 * them by name. Every conversion here re-implements the arithmetic of Mesa's
 * generated util_format pack_rgba_float / unpack_rgba(_float) functions and the
 * helpers they call (float_to_ubyte, ubyte_to_float, util_iround, CLAMP), step by
 * step in single precision, so that results are equal bit for bit. The project
 * compiles with -std=c11, which implies -ffp-contract=off: no FMA contraction.
 * See docs/pixel-exactness.md.
 */
#ifndef TBR_PIXEL_FORMATS_H
#define TBR_PIXEL_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tbr_pixel_format {
    TBR_PF_NONE = 0,
    /* color, 8 bits per channel */
    TBR_PF_B8G8R8A8_UNORM,
    TBR_PF_B8G8R8X8_UNORM,
    TBR_PF_R8G8B8A8_UNORM,
    TBR_PF_R8G8B8X8_UNORM,
    TBR_PF_A8R8G8B8_UNORM,
    TBR_PF_X8R8G8B8_UNORM,
    TBR_PF_A8B8G8R8_UNORM,
    TBR_PF_X8B8G8R8_UNORM,
    TBR_PF_R8_UNORM,
    TBR_PF_R8G8_UNORM,
    /* color, packed 16/32-bit words */
    TBR_PF_R5G6B5_UNORM,
    TBR_PF_B5G6R5_UNORM,
    TBR_PF_R4G4B4A4_UNORM,
    TBR_PF_B4G4R4A4_UNORM,
    TBR_PF_A4B4G4R4_UNORM,
    TBR_PF_R5G5B5A1_UNORM,
    TBR_PF_B5G5R5A1_UNORM,
    TBR_PF_A1B5G5R5_UNORM,
    TBR_PF_R10G10B10A2_UNORM,
    TBR_PF_B10G10R10A2_UNORM,
    /* color, float */
    TBR_PF_R16G16B16A16_FLOAT,
    TBR_PF_R32G32B32A32_FLOAT,
    /* depth / stencil */
    TBR_PF_Z16_UNORM,
    TBR_PF_Z32_UNORM,
    TBR_PF_Z24_UNORM_S8_UINT,
    TBR_PF_Z24X8_UNORM,
    TBR_PF_S8_UINT_Z24_UNORM,
    TBR_PF_X8Z24_UNORM,
    TBR_PF_S8_UINT,
    TBR_PF_Z32_FLOAT,
    TBR_PF_Z32_FLOAT_S8X24_UINT,
    TBR_PF_COUNT
} tbr_pixel_format;

typedef struct tbr_format_info {
    tbr_pixel_format format;
    const char *name; /* full Gallium name, e.g. "PIPE_FORMAT_B8G8R8A8_UNORM" */
    unsigned bytes;   /* bytes per pixel in memory */
    bool is_color;
    bool has_depth, has_stencil;
    /* color only: */
    bool normalized; /* desc->channel[0].normalized: softpipe clamps colors to [0,1] */
    bool is_float;   /* desc->channel[0].type == FLOAT: logic ops are skipped */
    bool has_alpha;  /* util_format_has_alpha(): false => blend stage sets A = 1 */
} tbr_format_info;

/* Name lookup; returns TBR_PF_NONE if unknown/unsupported. */
tbr_pixel_format tbr_format_from_name(const char *name);
const char *tbr_format_name(tbr_pixel_format f);                /* "PIPE_FORMAT_..." */
const tbr_format_info *tbr_format_get_info(tbr_pixel_format f); /* NULL if invalid */

/* ---- scalar helpers, identical to Mesa's ---- */
uint8_t tbr_float_to_ubyte(float f);           /* util/u_math.h float_to_ubyte */
float tbr_ubyte_to_float(uint8_t ub);          /* (float)ub * (1.0f/255.0f) */
int tbr_util_iround(float f);                  /* x86-64 build: (int)(f + 0.5f) / (int)(f - 0.5f) */
float tbr_clampf(float x, float lo, float hi); /* Mesa CLAMP(): NaN -> lo */
uint16_t tbr_float_to_half_rtz(float f);       /* _mesa_float_to_float16_rtz */
float tbr_half_to_float(uint16_t h);           /* _mesa_half_to_float */

/* ---- color pack / unpack (one pixel) ----
 * pack: util_format_pack_description(f)->pack_rgba_float for one pixel; writes
 *       info->bytes bytes (little-endian layout, as on the x86-64 host).
 * unpack: util_format_unpack_rgba for one pixel (missing channels: 0, alpha: 1).
 * Return false for non-color formats. */
bool tbr_pack_rgba_float(tbr_pixel_format f, const float rgba[4], void *dst);
bool tbr_unpack_rgba_float(tbr_pixel_format f, const void *src, float rgba[4]);
/* The same for n consecutive pixels (rgba: 4 floats per pixel; dst/src: n * bytes);
 * results equal n calls of the one-pixel functions (a faster loop for 8-bit formats). */
bool tbr_pack_rgba_float_row(tbr_pixel_format f, const float *rgba, size_t n, void *dst);
bool tbr_unpack_rgba_float_row(tbr_pixel_format f, const void *src, size_t n, float *rgba);

/* ---- depth / stencil raw words ----
 * The tile buffer keeps depth/stencil pixels as the raw stored word (as softpipe's
 * tile cache does: depth16/depth32/depth64/stencil8), zero-extended to 64 bits. */
uint64_t tbr_zs_read_raw(tbr_pixel_format f, const void *src);
void tbr_zs_write_raw(tbr_pixel_format f, uint64_t raw, void *dst);

/* util_pack64_z_stencil(format, z, s): the packed value softpipe_clear puts in every
 * pixel of a cleared depth/stencil buffer (lrint rounding, NOT the truncation used for
 * fragments). */
uint64_t tbr_pack_z_stencil_clear(tbr_pixel_format f, double z, uint8_t s);

/* Masks for a partial clear of a combined depth+stencil format
 * (util_fill_zs_box with need_rmw): bits of the raw word belonging to depth or stencil. */
uint64_t tbr_zs_depth_bits(tbr_pixel_format f);
uint64_t tbr_zs_stencil_bits(tbr_pixel_format f);

/* Emulation of GCC x86-64 float->integer conversions used by softpipe where the C
 * result would be undefined (negative or out of range values):
 *   (unsigned)(float|double) -> cvtts[sd]2si to a 64-bit register, low 32 bits kept;
 *   (unsigned short)(float)  -> cvttss2si to a 32-bit register, low 16 bits kept.
 * NaN / overflow give the "integer indefinite" value 0x8000... whose low bits are 0. */
uint32_t tbr_x86_f2u32(double v);
uint16_t tbr_x86_f2u16(float v);

#ifdef __cplusplus
}
#endif
#endif
