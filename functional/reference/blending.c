/* tbrsim: blending, bit-exact with Mesa 22.3.6 softpipe sp_quad_blend.c.
 * Re-implemented per pixel (softpipe's VEC4 macros work lane by lane, so a quad is
 * four independent pixels). Every float operation below is one rounded float
 * operation of softpipe, in the same order and with the same operands. */
#include "blending.h"

#include <string.h>

static int lookup(const char *name, const char *prefix, const char *const *tab, int n)
{
    if (!name) return -1;
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) == 0) name += pl;
    for (int i = 0; i < n; i++)
        if (tab[i] && strcmp(name, tab[i]) == 0) return i;
    return -1;
}

int tbr_blend_factor_from_name(const char *name)
{
    static const char *const t[0x1b] = {[0x01] = "ONE",
                                        [0x02] = "SRC_COLOR",
                                        [0x03] = "SRC_ALPHA",
                                        [0x04] = "DST_ALPHA",
                                        [0x05] = "DST_COLOR",
                                        [0x06] = "SRC_ALPHA_SATURATE",
                                        [0x07] = "CONST_COLOR",
                                        [0x08] = "CONST_ALPHA",
                                        [0x09] = "SRC1_COLOR",
                                        [0x0a] = "SRC1_ALPHA",
                                        [0x11] = "ZERO",
                                        [0x12] = "INV_SRC_COLOR",
                                        [0x13] = "INV_SRC_ALPHA",
                                        [0x14] = "INV_DST_ALPHA",
                                        [0x15] = "INV_DST_COLOR",
                                        [0x17] = "INV_CONST_COLOR",
                                        [0x18] = "INV_CONST_ALPHA",
                                        [0x19] = "INV_SRC1_COLOR",
                                        [0x1a] = "INV_SRC1_ALPHA"};
    return lookup(name, "PIPE_BLENDFACTOR_", t, 0x1b);
}

int tbr_blend_func_from_name(const char *name)
{
    static const char *const t[] = {"ADD", "SUBTRACT", "REVERSE_SUBTRACT", "MIN", "MAX"};
    return lookup(name, "PIPE_BLEND_", t, 5);
}

int tbr_logicop_from_name(const char *name)
{
    static const char *const t[] = {
        "CLEAR", "NOR",   "AND_INVERTED", "COPY_INVERTED", "AND_REVERSE", "INVERT",     "XOR", "NAND",
        "AND",   "EQUIV", "NOOP",         "OR_INVERTED",   "COPY",        "OR_REVERSE", "OR",  "SET"};
    return lookup(name, "PIPE_LOGICOP_", t, 16);
}

static bool is_dual_factor(tbr_blend_factor f)
{
    return f == TBR_BF_SRC1_COLOR || f == TBR_BF_SRC1_ALPHA || f == TBR_BF_INV_SRC1_COLOR || f == TBR_BF_INV_SRC1_ALPHA;
}

bool tbr_blend_is_dual(const tbr_blend_state *bs, unsigned cbuf)
{
    /* util_blend_state_is_dual(blend, cbuf): looks at rt[cbuf] (not rt[blend_buf]) */
    if (cbuf >= TBR_MAX_COLOR_BUFS) return false;
    const tbr_rt_blend_state *rt = &bs->rt[cbuf];
    return is_dual_factor(rt->rgb_src_factor) || is_dual_factor(rt->alpha_src_factor) ||
           is_dual_factor(rt->rgb_dst_factor) || is_dual_factor(rt->alpha_dst_factor);
}

tbr_blend_path tbr_blend_choose_path(const tbr_blend_state *bs, unsigned nr_cbufs, const tbr_pixel_format *cbuf_formats)
{
    const tbr_rt_blend_state *rt = &bs->rt[0];
    if (nr_cbufs == 0) return TBR_BLEND_PATH_NOOP;
    if (!bs->logicop_enable && rt->colormask == 0xf && nr_cbufs == 1) {
        if (cbuf_formats[0] == TBR_PF_NONE) return TBR_BLEND_PATH_NOOP;
        if (!rt->blend_enable) return TBR_BLEND_PATH_SINGLE_OUTPUT;
        if (rt->rgb_src_factor == rt->alpha_src_factor && rt->rgb_dst_factor == rt->alpha_dst_factor &&
            rt->rgb_func == rt->alpha_func && rt->alpha_func == TBR_BLEND_ADD) {
            if (rt->rgb_src_factor == TBR_BF_ONE && rt->rgb_dst_factor == TBR_BF_ONE) return TBR_BLEND_PATH_ADD_ONE_ONE;
            if (rt->rgb_src_factor == TBR_BF_SRC_ALPHA && rt->rgb_dst_factor == TBR_BF_INV_SRC_ALPHA)
                return TBR_BLEND_PATH_ADD_SRCA_INVSRCA;
        }
    }
    return TBR_BLEND_PATH_FALLBACK;
}

static float clamp01(float x) { return tbr_clampf(x, 0.0f, 1.0f); /* CLAMP(x, 0.0F, 1.0F): NaN -> 0 */ }

static float fmin_sp(float a, float b) { return a < b ? a : b; } /* VEC4_MIN */
static float fmax_sp(float a, float b) { return a > b ? a : b; } /* VEC4_MAX */

/* rebase_colors: formats without alpha get A = 1 in the tile (the only base format
 * among the supported render targets besides RGBA; L/LA/I are not render targets here) */
static void rebase(tbr_pixel_format f, float c[4])
{
    const tbr_format_info *info = tbr_format_get_info(f);
    if (info && info->is_color && !info->has_alpha) c[3] = 1.0f;
}

/* Source (first) term, RGB channel i (0..2). */
static float src_term_rgb(tbr_blend_factor f, int i, const float *s, const float *s1, const float *d, const float *k)
{
    switch (f) {
        case TBR_BF_ONE: return s[i];
        case TBR_BF_SRC_COLOR: return s[i] * s[i];
        case TBR_BF_SRC_ALPHA: return s[i] * s[3];
        case TBR_BF_DST_COLOR: return s[i] * d[i];
        case TBR_BF_DST_ALPHA: return s[i] * d[3];
        case TBR_BF_SRC_ALPHA_SATURATE: {
            float diff = 1.0f - d[3];
            return s[i] * fmin_sp(s[3], diff);
        }
        case TBR_BF_CONST_COLOR: return s[i] * k[i];
        case TBR_BF_CONST_ALPHA: return s[i] * k[3];
        case TBR_BF_SRC1_COLOR: return s[i] * s1[i];
        case TBR_BF_SRC1_ALPHA: return s[i] * s1[3];
        case TBR_BF_ZERO: return 0.0f;
        case TBR_BF_INV_SRC_COLOR: return s[i] * (1.0f - s[i]);
        case TBR_BF_INV_SRC_ALPHA: return s[i] * (1.0f - s[3]);
        case TBR_BF_INV_DST_ALPHA: return s[i] * (1.0f - d[3]);
        case TBR_BF_INV_DST_COLOR: return s[i] * (1.0f - d[i]);
        case TBR_BF_INV_CONST_COLOR: return s[i] * (1.0f - k[i]);
        case TBR_BF_INV_CONST_ALPHA: return s[i] * (1.0f - k[3]);
        case TBR_BF_INV_SRC1_COLOR: return s[i] * (1.0f - s1[i]);
        case TBR_BF_INV_SRC1_ALPHA: return s[i] * (1.0f - s1[3]);
    }
    return 0.0f;
}

/* Source term, alpha: *_COLOR factors act as their *_ALPHA counterparts;
 * SRC_ALPHA_SATURATE multiplies alpha by 1. */
static float src_term_a(tbr_blend_factor f, const float *s, const float *s1, const float *d, const float *k)
{
    switch (f) {
        case TBR_BF_ONE:
        case TBR_BF_SRC_ALPHA_SATURATE: return s[3];
        case TBR_BF_SRC_COLOR:
        case TBR_BF_SRC_ALPHA: return s[3] * s[3];
        case TBR_BF_DST_COLOR:
        case TBR_BF_DST_ALPHA: return s[3] * d[3];
        case TBR_BF_CONST_COLOR:
        case TBR_BF_CONST_ALPHA: return s[3] * k[3];
        case TBR_BF_ZERO: return 0.0f;
        case TBR_BF_INV_SRC_COLOR:
        case TBR_BF_INV_SRC_ALPHA: return s[3] * (1.0f - s[3]);
        case TBR_BF_INV_DST_COLOR:
        case TBR_BF_INV_DST_ALPHA: return s[3] * (1.0f - d[3]);
        case TBR_BF_INV_CONST_COLOR:
        case TBR_BF_INV_CONST_ALPHA: return s[3] * (1.0f - k[3]);
        case TBR_BF_SRC1_COLOR:
        case TBR_BF_SRC1_ALPHA: return s[3] * s1[3];
        case TBR_BF_INV_SRC1_COLOR:
        case TBR_BF_INV_SRC1_ALPHA: return s[3] * (1.0f - s1[3]);
    }
    return 0.0f;
}

/* Destination (second) term, RGB channel i; d is the original dest. */
static float dst_term_rgb(tbr_blend_factor f, int i, const float *s, const float *s1, const float *d, const float *k)
{
    switch (f) {
        case TBR_BF_ONE: return d[i];
        case TBR_BF_SRC_COLOR: return d[i] * s[i];
        case TBR_BF_SRC_ALPHA: return d[i] * s[3];
        case TBR_BF_DST_ALPHA: return d[i] * d[3];
        case TBR_BF_DST_COLOR: return d[i] * d[i];
        case TBR_BF_SRC_ALPHA_SATURATE: {
            float diff = 1.0f - d[3];
            return d[i] * fmin_sp(s[3], diff);
        }
        case TBR_BF_CONST_COLOR: return d[i] * k[i];
        case TBR_BF_CONST_ALPHA: return d[i] * k[3];
        case TBR_BF_ZERO: return 0.0f;
        case TBR_BF_SRC1_COLOR: return d[i] * s1[i];
        case TBR_BF_SRC1_ALPHA: return d[i] * s1[3];
        case TBR_BF_INV_SRC_COLOR: return (1.0f - s[i]) * d[i];
        case TBR_BF_INV_SRC_ALPHA: return d[i] * (1.0f - s[3]);
        case TBR_BF_INV_DST_ALPHA: return (1.0f - d[3]) * d[i];
        case TBR_BF_INV_DST_COLOR: return d[i] * (1.0f - d[i]);
        case TBR_BF_INV_CONST_COLOR: return d[i] * (1.0f - k[i]);
        case TBR_BF_INV_CONST_ALPHA: return d[i] * (1.0f - k[3]);
        case TBR_BF_INV_SRC1_COLOR: return (1.0f - s1[i]) * d[i];
        case TBR_BF_INV_SRC1_ALPHA: return d[i] * (1.0f - s1[3]);
    }
    return 0.0f;
}

static float dst_term_a(tbr_blend_factor f, const float *s, const float *s1, const float *d, const float *k)
{
    switch (f) {
        case TBR_BF_ONE:
        case TBR_BF_SRC_ALPHA_SATURATE: return d[3];
        case TBR_BF_SRC_COLOR:
        case TBR_BF_SRC_ALPHA: return d[3] * s[3];
        case TBR_BF_DST_COLOR:
        case TBR_BF_DST_ALPHA: return d[3] * d[3];
        case TBR_BF_CONST_COLOR:
        case TBR_BF_CONST_ALPHA: return d[3] * k[3];
        case TBR_BF_ZERO: return 0.0f;
        case TBR_BF_INV_SRC_COLOR:
        case TBR_BF_INV_SRC_ALPHA: return d[3] * (1.0f - s[3]);
        case TBR_BF_INV_DST_COLOR:
        case TBR_BF_INV_DST_ALPHA: return (1.0f - d[3]) * d[3];
        case TBR_BF_INV_CONST_COLOR:
        case TBR_BF_INV_CONST_ALPHA: return d[3] * (1.0f - k[3]);
        case TBR_BF_SRC1_COLOR:
        case TBR_BF_SRC1_ALPHA: return d[3] * s1[3];
        case TBR_BF_INV_SRC1_COLOR:
        case TBR_BF_INV_SRC1_ALPHA: return d[3] * (1.0f - s1[3]);
    }
    return 0.0f;
}

static float combine(tbr_blend_func fn, float src, float dst)
{
    switch (fn) {
        case TBR_BLEND_ADD: return src + dst;
        case TBR_BLEND_SUBTRACT: return src - dst;
        case TBR_BLEND_REVERSE_SUBTRACT: return dst - src;
        case TBR_BLEND_MIN: return fmin_sp(src, dst);
        case TBR_BLEND_MAX: return fmax_sp(src, dst);
    }
    return src;
}

/* blend_quad for one pixel */
static void blend_one(const tbr_rt_blend_state *rt, const float s[4], const float *s1, const float d[4],
                      const float k[4], float out[4])
{
    static const float zero4[4] = {0, 0, 0, 0};
    if (!s1) s1 = zero4; /* never read unless a SRC1 factor is used, which implies dual source */
    float src[4], dst[4];
    for (int i = 0; i < 3; i++) src[i] = src_term_rgb(rt->rgb_src_factor, i, s, s1, d, k);
    src[3] = src_term_a(rt->alpha_src_factor, s, s1, d, k);
    for (int i = 0; i < 3; i++) dst[i] = dst_term_rgb(rt->rgb_dst_factor, i, s, s1, d, k);
    dst[3] = dst_term_a(rt->alpha_dst_factor, s, s1, d, k);
    for (int i = 0; i < 3; i++) out[i] = combine(rt->rgb_func, src[i], dst[i]);
    out[3] = combine(rt->alpha_func, src[3], dst[3]);
}

static uint32_t logic(tbr_logicop op, uint32_t s, uint32_t d)
{
    switch (op) {
        case TBR_LOGICOP_CLEAR: return 0;
        case TBR_LOGICOP_NOR: return ~(s | d);
        case TBR_LOGICOP_AND_INVERTED: return ~s & d;
        case TBR_LOGICOP_COPY_INVERTED: return ~s;
        case TBR_LOGICOP_AND_REVERSE: return s & ~d;
        case TBR_LOGICOP_INVERT: return ~d;
        case TBR_LOGICOP_XOR: return d ^ s;
        case TBR_LOGICOP_NAND: return ~(s & d);
        case TBR_LOGICOP_AND: return s & d;
        case TBR_LOGICOP_EQUIV: return ~(s ^ d);
        case TBR_LOGICOP_NOOP: return d;
        case TBR_LOGICOP_OR_INVERTED: return ~s | d;
        case TBR_LOGICOP_COPY: return s;
        case TBR_LOGICOP_OR_REVERSE: return s | ~d;
        case TBR_LOGICOP_OR: return s | d;
        case TBR_LOGICOP_SET: return ~0u;
    }
    return s;
}

bool tbr_blend_pixel(const tbr_blend_state *bs, tbr_blend_path path, unsigned cbuf, tbr_pixel_format cbuf_format,
                     const float src[4], const float *src1, const float dst[4], float out[4])
{
    const tbr_format_info *info = tbr_format_get_info(cbuf_format);
    if (!info || !info->is_color || cbuf >= TBR_MAX_COLOR_BUFS) return false;
    const bool clamp = info->normalized; /* bqs->clamp[cbuf] */
    float s[4];
    memcpy(s, src, sizeof s);

    switch (path) {
        case TBR_BLEND_PATH_NOOP: memcpy(out, dst, 4 * sizeof(float)); return true;

        case TBR_BLEND_PATH_SINGLE_OUTPUT:
            /* no clamp for unorm targets here: packing clamps later */
            if (bs->clamp_fragment_color)
                for (int i = 0; i < 4; i++) s[i] = clamp01(s[i]);
            rebase(cbuf_format, s);
            memcpy(out, s, sizeof s);
            return true;

        case TBR_BLEND_PATH_ADD_ONE_ONE:
            if (clamp || bs->clamp_fragment_color)
                for (int i = 0; i < 4; i++) s[i] = clamp01(s[i]);
            for (int i = 0; i < 4; i++) out[i] = s[i] + dst[i];
            if (clamp)
                for (int i = 0; i < 4; i++) out[i] = clamp01(out[i]);
            rebase(cbuf_format, out);
            return true;

        case TBR_BLEND_PATH_ADD_SRCA_INVSRCA: {
            if (clamp || bs->clamp_fragment_color)
                for (int i = 0; i < 4; i++) s[i] = clamp01(s[i]);
            float srcv[4], dstv[4];
            const float a = s[3];
            for (int i = 0; i < 4; i++) srcv[i] = s[i] * a;
            const float oma = 1.0f - a;
            for (int i = 0; i < 4; i++) dstv[i] = dst[i] * oma;
            for (int i = 0; i < 4; i++) out[i] = srcv[i] + dstv[i];
            if (clamp)
                for (int i = 0; i < 4; i++) out[i] = clamp01(out[i]);
            rebase(cbuf_format, out);
            return true;
        }

        case TBR_BLEND_PATH_FALLBACK: {
            const unsigned bbuf = bs->independent_blend_enable ? cbuf : 0;
            const tbr_rt_blend_state *rt = &bs->rt[bbuf];
            float k[4];
            for (int i = 0; i < 4; i++) /* blend_color_clamped = SATURATE(blend_color) */
                k[i] = clamp ? clamp01(bs->blend_color[i]) : bs->blend_color[i];
            const float *s1 = tbr_blend_is_dual(bs, cbuf) ? src1 : NULL;

            if (clamp || bs->clamp_fragment_color)
                for (int i = 0; i < 4; i++) s[i] = clamp01(s[i]);

            float c[4];
            memcpy(c, s, sizeof c);
            if (bs->logicop_enable) {
                if (!info->is_float) {
                    /* logicop_quad: both to ubyte with float_to_ubyte, op on bytes, back to float */
                    for (int i = 0; i < 4; i++) {
                        uint32_t r = logic(bs->logicop_func, tbr_float_to_ubyte(s[i]), tbr_float_to_ubyte(dst[i]));
                        c[i] = tbr_ubyte_to_float((uint8_t)r);
                    }
                }
            } else if (rt->blend_enable) {
                blend_one(rt, s, s1, dst, k, c);
                if (clamp)
                    for (int i = 0; i < 4; i++) c[i] = clamp01(c[i]);
            }
            rebase(cbuf_format, c);
            if (rt->colormask != 0xf)
                for (int i = 0; i < 4; i++)
                    if (!(rt->colormask & (1u << i))) c[i] = dst[i];
            memcpy(out, c, sizeof c);
            return true;
        }
    }
    return false;
}
