/* tbrsim: render-target pixel formats, bit-exact with Mesa 22.3.6 util_format.
 * Re-implementation (not a copy) of the arithmetic of Mesa's generated
 * u_format_table.c pack/unpack functions; see pixel_formats.h. */
#include "pixel_formats.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ------------------------------------------------------------------ */
/* Format table                                                        */
/* ------------------------------------------------------------------ */

/* Packed/array unorm colors are described generically: each stored channel has a
 * bit offset, a width and the RGBA component it holds (0..3), or -1 for padding (X).
 * Unpack produces R,G,B from the channels present, missing R/G/B = 0, missing A = 1
 * (util_format swizzles PIPE_SWIZZLE_0 / PIPE_SWIZZLE_1). */
typedef struct {
    uint8_t shift, bits;
    int8_t comp;
} chan_desc;

typedef struct {
    tbr_format_info info;
    unsigned nchan;
    chan_desc chan[4];
} format_desc;

#define C(shift, bits, comp)                                                                                           \
    {                                                                                                                  \
        shift, bits, comp                                                                                              \
    }
#define COLOR_UNORM(F, bytes, alpha, n, ...)                                                                           \
    [TBR_PF_##F] = {{TBR_PF_##F, "PIPE_FORMAT_" #F, bytes, true, false, false, true, false, alpha}, n, {__VA_ARGS__}}
#define COLOR_FLOAT(F, bytes)                                                                                          \
    [TBR_PF_##F] = {{TBR_PF_##F, "PIPE_FORMAT_" #F, bytes, true, false, false, false, true, true}, 0, {{0, 0, 0}}}
#define ZS(F, bytes, d, s)                                                                                             \
    [TBR_PF_##F] = {{TBR_PF_##F, "PIPE_FORMAT_" #F, bytes, false, d, s, false, false, false}, 0, {{0, 0, 0}}}

static const format_desc formats[TBR_PF_COUNT] = {
    COLOR_UNORM(B8G8R8A8_UNORM, 4, true, 4, C(0, 8, 2), C(8, 8, 1), C(16, 8, 0), C(24, 8, 3)),
    COLOR_UNORM(B8G8R8X8_UNORM, 4, false, 3, C(0, 8, 2), C(8, 8, 1), C(16, 8, 0)),
    COLOR_UNORM(R8G8B8A8_UNORM, 4, true, 4, C(0, 8, 0), C(8, 8, 1), C(16, 8, 2), C(24, 8, 3)),
    COLOR_UNORM(R8G8B8X8_UNORM, 4, false, 3, C(0, 8, 0), C(8, 8, 1), C(16, 8, 2)),
    COLOR_UNORM(A8R8G8B8_UNORM, 4, true, 4, C(0, 8, 3), C(8, 8, 0), C(16, 8, 1), C(24, 8, 2)),
    COLOR_UNORM(X8R8G8B8_UNORM, 4, false, 3, C(8, 8, 0), C(16, 8, 1), C(24, 8, 2)),
    COLOR_UNORM(A8B8G8R8_UNORM, 4, true, 4, C(0, 8, 3), C(8, 8, 2), C(16, 8, 1), C(24, 8, 0)),
    COLOR_UNORM(X8B8G8R8_UNORM, 4, false, 3, C(8, 8, 2), C(16, 8, 1), C(24, 8, 0)),
    COLOR_UNORM(R8_UNORM, 1, false, 1, C(0, 8, 0)),
    COLOR_UNORM(R8G8_UNORM, 2, false, 2, C(0, 8, 0), C(8, 8, 1)),
    COLOR_UNORM(R5G6B5_UNORM, 2, false, 3, C(0, 5, 0), C(5, 6, 1), C(11, 5, 2)),
    COLOR_UNORM(B5G6R5_UNORM, 2, false, 3, C(0, 5, 2), C(5, 6, 1), C(11, 5, 0)),
    COLOR_UNORM(R4G4B4A4_UNORM, 2, true, 4, C(0, 4, 0), C(4, 4, 1), C(8, 4, 2), C(12, 4, 3)),
    COLOR_UNORM(B4G4R4A4_UNORM, 2, true, 4, C(0, 4, 2), C(4, 4, 1), C(8, 4, 0), C(12, 4, 3)),
    COLOR_UNORM(A4B4G4R4_UNORM, 2, true, 4, C(0, 4, 3), C(4, 4, 2), C(8, 4, 1), C(12, 4, 0)),
    COLOR_UNORM(R5G5B5A1_UNORM, 2, true, 4, C(0, 5, 0), C(5, 5, 1), C(10, 5, 2), C(15, 1, 3)),
    COLOR_UNORM(B5G5R5A1_UNORM, 2, true, 4, C(0, 5, 2), C(5, 5, 1), C(10, 5, 0), C(15, 1, 3)),
    COLOR_UNORM(A1B5G5R5_UNORM, 2, true, 4, C(0, 1, 3), C(1, 5, 2), C(6, 5, 1), C(11, 5, 0)),
    COLOR_UNORM(R10G10B10A2_UNORM, 4, true, 4, C(0, 10, 0), C(10, 10, 1), C(20, 10, 2), C(30, 2, 3)),
    COLOR_UNORM(B10G10R10A2_UNORM, 4, true, 4, C(0, 10, 2), C(10, 10, 1), C(20, 10, 0), C(30, 2, 3)),
    COLOR_FLOAT(R16G16B16A16_FLOAT, 8),
    COLOR_FLOAT(R32G32B32A32_FLOAT, 16),
    ZS(Z16_UNORM, 2, true, false),
    ZS(Z32_UNORM, 4, true, false),
    ZS(Z24_UNORM_S8_UINT, 4, true, true),
    ZS(Z24X8_UNORM, 4, true, false),
    ZS(S8_UINT_Z24_UNORM, 4, true, true),
    ZS(X8Z24_UNORM, 4, true, false),
    ZS(S8_UINT, 1, false, true),
    ZS(Z32_FLOAT, 4, true, false),
    ZS(Z32_FLOAT_S8X24_UINT, 8, true, true),
};

const tbr_format_info *tbr_format_get_info(tbr_pixel_format f)
{
    if ((int)f <= TBR_PF_NONE || f >= TBR_PF_COUNT || !formats[f].info.name) return NULL;
    return &formats[f].info;
}

const char *tbr_format_name(tbr_pixel_format f)
{
    const tbr_format_info *i = tbr_format_get_info(f);
    return i ? i->name : "PIPE_FORMAT_NONE";
}

tbr_pixel_format tbr_format_from_name(const char *name)
{
    static const char prefix[] = "PIPE_FORMAT_";
    if (!name) return TBR_PF_NONE;
    if (strncmp(name, prefix, sizeof prefix - 1) == 0) name += sizeof prefix - 1;
    for (int f = TBR_PF_NONE + 1; f < TBR_PF_COUNT; f++)
        if (formats[f].info.name && strcmp(formats[f].info.name + sizeof prefix - 1, name) == 0)
            return (tbr_pixel_format)f;
    return TBR_PF_NONE;
}

/* ------------------------------------------------------------------ */
/* Scalar helpers                                                      */
/* ------------------------------------------------------------------ */

static uint32_t f2bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bits2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float tbr_clampf(float x, float lo, float hi)
{
    /* Mesa: #define CLAMP(X, MIN, MAX) ((X)>(MIN) ? ((X)>(MAX) ? (MAX) : (X)) : (MIN)) */
    return x > lo ? (x > hi ? hi : x) : lo;
}

static inline uint8_t float_to_ubyte_inline(float f)
{
    if (!(f > 0.0f)) /* also NaN */
        return 0;
    if (f >= 1.0f) return 255;
    /* Mesa's trick: f*255/256 + 2^15 places round-to-nearest-even(f*255) in the low
   * mantissa bits; the two float operations are rounded separately (no FMA). */
    float t = f * (255.0f / 256.0f);
    t = t + 32768.0f;
    return (uint8_t)(f2bits(t) & 0xff);
}

uint8_t tbr_float_to_ubyte(float f) { return float_to_ubyte_inline(f); }

float tbr_ubyte_to_float(uint8_t ub) { return (float)ub * (1.0f / 255.0f); }

int tbr_util_iround(float f)
{
    /* util_iround on x86-64 (the fistp asm path is 32-bit x86 only). The argument is
   * always CLAMPed to [0, max] by the callers here, so the casts are defined. */
    if (f >= 0.0f) return (int)(f + 0.5f);
    return (int)(f - 0.5f);
}

uint16_t tbr_float_to_half_rtz(float val)
{
    /* IEEE binary32 -> binary16, rounding toward zero (what vcvtps2ph $3 and Mesa's
   * _mesa_float_to_half_rtz_slow both compute; NaN keeps the top mantissa bits as the
   * slow path does). */
    const uint32_t u = f2bits(val);
    const uint32_t m = u & 0x7fffff, e = (u >> 23) & 0xff, s = (u >> 31) & 1;
    if (e == 0xff) {
        if (m) {
            uint32_t hm = m >> 13;
            return (uint16_t)((s << 15) | (0x1f << 10) | (hm ? hm : 1));
        }
        return (uint16_t)((s << 15) | (0x1f << 10));
    }
    if (e == 0 && m == 0) return (uint16_t)(s << 15);
    int exp = (int)e - 127 + 15; /* biased half exponent */
    uint32_t mant = m | (e ? 0x800000u : 0);
    if (e == 0) exp = 1 - 127 + 15; /* float denormal: far below half range */
    if (exp >= 0x1f)                /* overflow: RTZ gives the largest finite half */
        return (uint16_t)((s << 15) | 0x7bff);
    if (exp <= 0) {
        /* half denormal: value = mant * 2^(e-150) ; half denorm unit 2^-24 */
        int shift = 14 - exp; /* 13 + (1 - exp) */
        uint32_t hm = shift >= 32 ? 0 : mant >> shift;
        return (uint16_t)((s << 15) | hm);
    }
    return (uint16_t)((s << 15) | ((uint32_t)exp << 10) | ((mant >> 13) & 0x3ff));
}

float tbr_half_to_float(uint16_t h)
{
    /* Exact widening (both Mesa paths are exact for non-NaN values). */
    const uint32_t s = (uint32_t)(h & 0x8000) << 16;
    uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0x1f) return bits2f(s | 0x7f800000u | (m << 13));
    if (e == 0) {
        if (m == 0) return bits2f(s);
        /* denormal: m * 2^-24 is exact in float */
        float v = (float)m * (1.0f / 16777216.0f);
        return s ? -v : v;
    }
    return bits2f(s | ((e + 112) << 23) | (m << 13));
}

uint32_t tbr_x86_f2u32(double v)
{
    if (v != v || v >= 9223372036854775808.0 || v < -9223372036854775808.0)
        return 0; /* cvttsd2si indefinite 0x8000000000000000, low 32 bits */
    return (uint32_t)(uint64_t)(int64_t)v;
}

uint16_t tbr_x86_f2u16(float v)
{
    if (v != v || v >= 2147483648.0f || v < -2147483648.0f) return 0; /* cvttss2si indefinite 0x80000000, low 16 bits */
    return (uint16_t)(uint32_t)(int32_t)v;
}

/* ------------------------------------------------------------------ */
/* Color pack / unpack                                                 */
/* ------------------------------------------------------------------ */

static uint32_t load_le(const uint8_t *p, unsigned n)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static void store_le(uint8_t *p, uint32_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

bool tbr_pack_rgba_float(tbr_pixel_format f, const float rgba[4], void *dst)
{
    const tbr_format_info *info = tbr_format_get_info(f);
    if (!info || !info->is_color) return false;
    uint8_t *d = dst;
    if (f == TBR_PF_R32G32B32A32_FLOAT) {
        memcpy(d, rgba, 16);
        return true;
    }
    if (f == TBR_PF_R16G16B16A16_FLOAT) {
        for (int c = 0; c < 4; c++) store_le(d + 2 * c, tbr_float_to_half_rtz(rgba[c]), 2);
        return true;
    }
    const format_desc *fd = &formats[f];
    uint32_t value = 0;
    for (unsigned i = 0; i < fd->nchan; i++) {
        const chan_desc *ch = &fd->chan[i];
        uint32_t v;
        if (ch->bits == 8) {
            v = float_to_ubyte_inline(rgba[ch->comp]); /* 8-bit unorm: float_to_ubyte */
        } else {
            /* other widths: util_iround(CLAMP(x, 0.0f, 1.0f) * max), max as float */
            const float maxv = (float)((1u << ch->bits) - 1);
            v = (uint32_t)tbr_util_iround(tbr_clampf(rgba[ch->comp], 0.0f, 1.0f) * maxv);
        }
        value |= (v & ((1u << ch->bits) - 1)) << ch->shift;
    }
    store_le(d, value, info->bytes); /* X (padding) bits are written as 0 */
    return true;
}

bool tbr_unpack_rgba_float(tbr_pixel_format f, const void *src, float rgba[4])
{
    const tbr_format_info *info = tbr_format_get_info(f);
    if (!info || !info->is_color) return false;
    const uint8_t *s = src;
    if (f == TBR_PF_R32G32B32A32_FLOAT) {
        memcpy(rgba, s, 16);
        return true;
    }
    if (f == TBR_PF_R16G16B16A16_FLOAT) {
        for (int c = 0; c < 4; c++) rgba[c] = tbr_half_to_float((uint16_t)load_le(s + 2 * c, 2));
        return true;
    }
    const format_desc *fd = &formats[f];
    const uint32_t value = load_le(s, info->bytes);
    rgba[0] = rgba[1] = rgba[2] = 0.0f;
    rgba[3] = 1.0f;
    for (unsigned i = 0; i < fd->nchan; i++) {
        const chan_desc *ch = &fd->chan[i];
        const uint32_t v = (value >> ch->shift) & ((1u << ch->bits) - 1);
        if (ch->bits == 8)
            rgba[ch->comp] = tbr_ubyte_to_float((uint8_t)v);
        else /* (float)(v * (1.0f/max)): a multiply by the float reciprocal, no division */
            rgba[ch->comp] = (float)v * (1.0f / (float)((1u << ch->bits) - 1));
    }
    return true;
}

/* 4-byte formats whose stored channels are all 8-bit unorm (RGBA8 / BGRA8 / ... / X
 * variants): the common render-target case, packed without the per-pixel table walk. */
static bool is_8bit_4byte(const format_desc *fd)
{
    if (fd->info.bytes != 4 || !fd->nchan) return false;
    for (unsigned i = 0; i < fd->nchan; i++)
        if (fd->chan[i].bits != 8) return false;
    return true;
}

/* float_to_ubyte without branches (same result: 0 for <= 0 and NaN, 255 for >= 1). */
static inline uint32_t float_to_ubyte_select(float f)
{
    float t = f * (255.0f / 256.0f);
    t = t + 32768.0f;
    uint32_t v = f >= 1.0f ? 255u : (f2bits(t) & 0xffu);
    return f > 0.0f ? v : 0u;
}

static inline void pack8_row(const float *rgba, size_t n, uint8_t *d, int sr, int sg, int sb, int sa)
{
    size_t i = 0;
#if defined(__SSE2__)
    /* The same operations on the pixel's four channels at once (IEEE single multiply, then
   * add, as the scalar code; compares false for NaN as its selects), then the channels
   * moved to their byte positions (RGBA or BGRA order; the X byte 0, as below). */
    const __m128 k_scale = _mm_set1_ps(255.0f / 256.0f), k_bias = _mm_set1_ps(32768.0f);
    const __m128 k_one = _mm_set1_ps(1.0f), k_zero = _mm_setzero_ps();
    const __m128i k_byte = _mm_set1_epi32(0xff), k_keep_alpha = _mm_set_epi32(sa >= 0 ? -1 : 0, -1, -1, -1);
    const bool bgra = sr == 16;
    if ((sr == 0 || sr == 16) && sg == 8 && sb == 16 - sr && (sa == 24 || sa < 0)) {
        for (; i < n; i++) {
            const __m128 f = _mm_loadu_ps(rgba + 4 * i);
            const __m128i bits = _mm_and_si128(_mm_castps_si128(_mm_add_ps(_mm_mul_ps(f, k_scale), k_bias)), k_byte);
            const __m128i ge1 = _mm_castps_si128(_mm_cmpge_ps(f, k_one)),
                          gt0 = _mm_castps_si128(_mm_cmpgt_ps(f, k_zero));
            __m128i v = _mm_or_si128(_mm_and_si128(ge1, k_byte), _mm_andnot_si128(ge1, bits));
            v = _mm_and_si128(_mm_and_si128(v, gt0), k_keep_alpha);
            if (bgra) v = _mm_shuffle_epi32(v, _MM_SHUFFLE(3, 0, 1, 2));
            v = _mm_packus_epi16(_mm_packs_epi32(v, v), v);
            const uint32_t px = (uint32_t)_mm_cvtsi128_si32(v);
            memcpy(d + 4 * i, &px, 4);
        }
    }
#endif
    for (; i < n; i++) {
        const float *c = rgba + 4 * i;
        uint32_t v =
            float_to_ubyte_select(c[0]) << sr | float_to_ubyte_select(c[1]) << sg | float_to_ubyte_select(c[2]) << sb;
        if (sa >= 0) v |= float_to_ubyte_select(c[3]) << sa;
        uint8_t *o = d + 4 * i; /* little-endian, unrolled (one store) */
        o[0] = (uint8_t)v;
        o[1] = (uint8_t)(v >> 8);
        o[2] = (uint8_t)(v >> 16);
        o[3] = (uint8_t)(v >> 24);
    }
}

bool tbr_pack_rgba_float_row(tbr_pixel_format f, const float *rgba, size_t n, void *dst)
{
    const tbr_format_info *info = tbr_format_get_info(f);
    if (!info || !info->is_color) return false;
    uint8_t *d = dst;
    switch (f) { /* component shifts as constants (-1: not stored) */
        case TBR_PF_B8G8R8A8_UNORM: pack8_row(rgba, n, d, 16, 8, 0, 24); break;
        case TBR_PF_B8G8R8X8_UNORM: pack8_row(rgba, n, d, 16, 8, 0, -1); break;
        case TBR_PF_R8G8B8A8_UNORM: pack8_row(rgba, n, d, 0, 8, 16, 24); break;
        case TBR_PF_R8G8B8X8_UNORM: pack8_row(rgba, n, d, 0, 8, 16, -1); break;
        default:
            for (size_t i = 0; i < n; i++) tbr_pack_rgba_float(f, rgba + 4 * i, d + i * info->bytes);
    }
    return true;
}

/* pack8_row's inverse, the same arithmetic as tbr_unpack_rgba_float (shifts of R, G, B
 * and A as constants, sa < 0: no alpha stored, 1.0): no per-channel table walk, so the
 * compiler vectorizes the row (tile loads are most of refract's functional time). */
static inline void unpack8_row(const uint8_t *s, size_t n, float *rgba, int sr, int sg, int sb, int sa)
{
    for (size_t i = 0; i < n; i++) {
        const uint32_t v = (uint32_t)s[4 * i] | (uint32_t)s[4 * i + 1] << 8 | (uint32_t)s[4 * i + 2] << 16 |
                           (uint32_t)s[4 * i + 3] << 24;
        float *c = rgba + 4 * i;
        c[0] = (float)((v >> sr) & 0xffu) * (1.0f / 255.0f);
        c[1] = (float)((v >> sg) & 0xffu) * (1.0f / 255.0f);
        c[2] = (float)((v >> sb) & 0xffu) * (1.0f / 255.0f);
        c[3] = sa >= 0 ? (float)((v >> sa) & 0xffu) * (1.0f / 255.0f) : 1.0f;
    }
}

bool tbr_unpack_rgba_float_row(tbr_pixel_format f, const void *src, size_t n, float *rgba)
{
    const tbr_format_info *info = tbr_format_get_info(f);
    if (!info || !info->is_color) return false;
    const format_desc *fd = &formats[f];
    const uint8_t *s = src;
    switch (f) { /* the formats pack_rgba_float_row has constants for */
        case TBR_PF_B8G8R8A8_UNORM: unpack8_row(s, n, rgba, 16, 8, 0, 24); return true;
        case TBR_PF_B8G8R8X8_UNORM: unpack8_row(s, n, rgba, 16, 8, 0, -1); return true;
        case TBR_PF_R8G8B8A8_UNORM: unpack8_row(s, n, rgba, 0, 8, 16, 24); return true;
        case TBR_PF_R8G8B8X8_UNORM: unpack8_row(s, n, rgba, 0, 8, 16, -1); return true;
        default: break;
    }
    if (!is_8bit_4byte(fd)) {
        for (size_t i = 0; i < n; i++) tbr_unpack_rgba_float(f, s + i * info->bytes, rgba + 4 * i);
        return true;
    }
    for (size_t i = 0; i < n; i++) { /* same arithmetic as tbr_unpack_rgba_float */
        const uint32_t value = load_le(s + 4 * i, 4);
        float *c = rgba + 4 * i;
        c[0] = c[1] = c[2] = 0.0f;
        c[3] = 1.0f;
        for (unsigned k = 0; k < fd->nchan; k++)
            c[fd->chan[k].comp] = tbr_ubyte_to_float((uint8_t)(value >> fd->chan[k].shift));
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* Depth / stencil                                                     */
/* ------------------------------------------------------------------ */

uint64_t tbr_zs_read_raw(tbr_pixel_format f, const void *src)
{
    const tbr_format_info *info = tbr_format_get_info(f);
    if (!info || info->is_color) return 0;
    const uint8_t *s = src;
    if (info->bytes == 8) return (uint64_t)load_le(s, 4) | ((uint64_t)load_le(s + 4, 4) << 32);
    return load_le(s, info->bytes);
}

void tbr_zs_write_raw(tbr_pixel_format f, uint64_t raw, void *dst)
{
    const tbr_format_info *info = tbr_format_get_info(f);
    if (!info || info->is_color) return;
    uint8_t *d = dst;
    if (info->bytes == 8) {
        store_le(d, (uint32_t)raw, 4);
        store_le(d + 4, (uint32_t)(raw >> 32), 4);
    } else {
        store_le(d, (uint32_t)raw, info->bytes);
    }
}

/* util_pack_z (u_pack_color.h) */
static uint32_t pack_z(tbr_pixel_format f, double z)
{
    if (f == TBR_PF_Z32_FLOAT) return f2bits((float)z);
    if (z <= 0.0) return 0;
    switch (f) {
        case TBR_PF_Z16_UNORM: return z >= 1.0 ? 0xffff : (uint32_t)lrint(z * 0xffff);
        case TBR_PF_Z32_UNORM: return z >= 1.0 ? 0xffffffffu : (uint32_t)llrint(z * 0xffffffff);
        case TBR_PF_Z24_UNORM_S8_UINT:
        case TBR_PF_Z24X8_UNORM: return z >= 1.0 ? 0xffffff : (uint32_t)lrint(z * 0xffffff);
        case TBR_PF_S8_UINT_Z24_UNORM:
        case TBR_PF_X8Z24_UNORM: return z >= 1.0 ? 0xffffff00u : ((uint32_t)lrint(z * 0xffffff)) << 8;
        default: return 0;
    }
}

uint64_t tbr_pack_z_stencil_clear(tbr_pixel_format f, double z, uint8_t s)
{
    if (f == TBR_PF_Z32_FLOAT_S8X24_UINT) {
        /* util_pack64_z: z == 0 -> 0, else float bits */
        uint64_t packed = z == 0 ? 0 : f2bits((float)z);
        return packed | ((uint64_t)s << 32);
    }
    uint32_t packed = pack_z(f, z);
    switch (f) {
        case TBR_PF_Z24_UNORM_S8_UINT: packed |= (uint32_t)s << 24; break;
        case TBR_PF_S8_UINT_Z24_UNORM:
        case TBR_PF_S8_UINT: packed |= s; break;
        default: break;
    }
    return packed;
}

uint64_t tbr_zs_depth_bits(tbr_pixel_format f)
{
    switch (f) {
        case TBR_PF_Z16_UNORM: return 0xffff;
        case TBR_PF_Z32_UNORM:
        case TBR_PF_Z32_FLOAT: return 0xffffffffu;
        case TBR_PF_Z24_UNORM_S8_UINT:
        case TBR_PF_Z24X8_UNORM: return 0x00ffffff;
        case TBR_PF_S8_UINT_Z24_UNORM:
        case TBR_PF_X8Z24_UNORM: return 0xffffff00u;
        case TBR_PF_Z32_FLOAT_S8X24_UINT: return 0xffffffffu;
        default: return 0;
    }
}

uint64_t tbr_zs_stencil_bits(tbr_pixel_format f)
{
    switch (f) {
        case TBR_PF_Z24_UNORM_S8_UINT: return 0xff000000u;
        case TBR_PF_S8_UINT_Z24_UNORM: return 0xff;
        case TBR_PF_S8_UINT: return 0xff;
        case TBR_PF_Z32_FLOAT_S8X24_UINT: return 0xff00000000ull;
        default: return 0;
    }
}
