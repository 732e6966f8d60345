/* Tests of functional/reference/sampler.c (softpipe's texture sampler), with
 * expected values worked out by hand from Mesa 22.3.6 sp_tex_sample.c.
 * Usage: sampler_test <group>   (groups: see main) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"

static int failures;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                                   \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

/* bit-exact float comparison */
#define CHECK_F(a, b)                                                                                                  \
    do {                                                                                                               \
        float fa_ = (a), fb_ = (b);                                                                                    \
        if (memcmp(&fa_, &fb_, sizeof(float)) != 0) {                                                                  \
            fprintf(stderr, "%s:%d: %s = %.9g, expected %s = %.9g\n", __FILE__, __LINE__, #a, (double)fa_, #b,         \
                    (double)fb_);                                                                                      \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

#define CHECK_I(a, b)                                                                                                  \
    do {                                                                                                               \
        long ia_ = (long)(a), ib_ = (long)(b);                                                                         \
        if (ia_ != ib_) {                                                                                              \
            fprintf(stderr, "%s:%d: %s = %ld, expected %ld\n", __FILE__, __LINE__, #a, ia_, ib_);                      \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

/* Gallium values used here (p_defines.h, p_format.h of Mesa 22.3.6) */
enum { T_1D = 1, T_2D = 2, T_3D = 3, T_CUBE = 4, T_RECT = 5, T_2D_ARRAY = 7, T_BUFFER = 0 };
enum { W_REPEAT, W_CLAMP, W_EDGE, W_BORDER, W_MIRROR_REPEAT };
enum { MIP_NEAREST, MIP_LINEAR, MIP_NONE };
enum { F_NEAREST, F_LINEAR };
enum {
    FMT_R32G32B32A32_FLOAT = 16,
    FMT_R8G8B8A8_UNORM = 53,
    FMT_B8G8R8A8_UNORM = 54,
    FMT_R16G16B16A16_FLOAT = 83,
    FMT_B5G6R5_UNORM = 132,
    FMT_B4G4R4A4_UNORM = 130,
    FMT_B5G5R5A1_UNORM = 128,
    FMT_L8_UNORM = 133,
    FMT_A8_UNORM = 134,
    FMT_L8A8_UNORM = 136,
    FMT_Z16_UNORM = 140,
    FMT_Z32_UNORM = 142,
    FMT_Z24_UNORM_S8_UINT = 144,
    FMT_R8G8B8X8_UNORM = 190,
    FMT_ETC1_RGB8 = 277,
    FMT_R8_UNORM = 49,
    FMT_R8G8_UNORM = 50
};

/* Texture memory: up to 16 levels, packed (row_stride = width * bpp). */
struct tex {
    struct tbr_texture_view v;
    uint8_t *mem[TBR_SAMPLER_MAX_LEVELS];
    unsigned bpp;
};

static void tex_init(struct tex *t, unsigned target, unsigned format, unsigned bpp, unsigned w, unsigned h,
                     unsigned layers, unsigned levels)
{
    memset(t, 0, sizeof(*t));
    struct tbr_texture_view *v = &t->v;
    v->target = target;
    v->resource_format = v->view_format = format;
    v->width0 = w;
    v->height0 = h;
    v->depth0 = target == T_3D ? layers : 1;
    v->array_size = target == T_3D ? 1 : layers;
    v->res_last_level = v->last_level = levels - 1;
    v->last_layer = v->array_size - 1;
    for (int c = 0; c < 4; c++) v->swizzle[c] = (uint32_t)c;
    v->wrap_s = v->wrap_t = v->wrap_r = W_REPEAT;
    v->min_img_filter = v->mag_img_filter = F_NEAREST;
    v->min_mip_filter = MIP_NONE;
    v->normalized_coords = 1;
    v->min_lod = -1000.0f;
    v->max_lod = 1000.0f;
    t->bpp = bpp;
    for (unsigned l = 0; l < levels; l++) {
        unsigned lw = w >> l ? w >> l : 1, lh = h >> l ? h >> l : 1;
        unsigned ld = target == T_3D ? (layers >> l ? layers >> l : 1) : layers;
        t->mem[l] = calloc((size_t)lw * lh * ld, bpp);
        v->levels[l].data = t->mem[l];
        v->levels[l].row_stride = lw * bpp;
        v->levels[l].layer_stride = lw * lh * bpp;
    }
}

static void tex_free(struct tex *t)
{
    for (int l = 0; l < TBR_SAMPLER_MAX_LEVELS; l++) free(t->mem[l]);
}

/* observer: records (lane, level, layer, x, y); footprints: calls of the footprint
 * observer (observe_footprint), whose four texels are recorded like four observe calls */
#define OBS_MAX 256
struct obs {
    int n, footprints;
    int rec[OBS_MAX][5];
};

static void observe(void *ctx, unsigned lane, unsigned level, unsigned layer, int x, int y)
{
    struct obs *o = ctx;
    if (o->n < OBS_MAX) {
        int *r = o->rec[o->n];
        r[0] = (int)lane;
        r[1] = (int)level;
        r[2] = (int)layer;
        r[3] = x;
        r[4] = y;
    }
    o->n++;
}

static int obs_is(const struct obs *o, int i, int lane, int level, int layer, int x, int y)
{
    const int *r = o->rec[i];
    return i < o->n && r[0] == lane && r[1] == level && r[2] == layer && r[3] == x && r[4] == y;
}

/* Sample the same coordinates in all four lanes with implicit LOD (derivatives 0
 * -> lambda = log2(0) = -127: magnification) unless the caller passes coordinates. */
static void sample4(const struct tex *t, const float s[4], const float tt[4], const float r[4],
                    enum tbr_sampler_control control, const float c1[4], float rgba[4][4], struct obs *o)
{
    static const float zero[4] = {0, 0, 0, 0};
    float derivs[3][2][4];
    memset(derivs, 0, sizeof(derivs));
    const int8_t offset[3] = {0, 0, 0};
    if (o) o->n = 0;
    tbr_sampler_get_samples(&t->v, s, tt, r ? r : zero, zero, c1 ? c1 : zero, derivs, offset, control, rgba,
                            o ? observe : NULL, o);
}

static void sample1(const struct tex *t, float s, float tt, float rgba[4][4], struct obs *o)
{
    const float ss[4] = {s, s, s, s}, ts[4] = {tt, tt, tt, tt};
    sample4(t, ss, ts, NULL, TBR_SAMPLER_LOD_NONE, NULL, rgba, o);
}

static float u8(unsigned v) { return (float)v * (1.0f / 255.0f); }

/* ---- formats: texelFetch of one texel, converted as u_format / u_tile do ---- */
static void fetch1(struct tex *t, float rgba[4][4])
{
    const int zero[4] = {0, 0, 0, 0};
    tbr_sampler_get_texel(&t->v, zero, zero, zero, zero, NULL, rgba, NULL, NULL);
}

/* 8-bit formats: RGBA8, BGRA8, RGBX8, L8, A8, L8A8, RG8. */
static void test_formats_8bit(void)
{
    struct tex t;
    float c[4][4];
    tex_init(&t, T_2D, FMT_R8G8B8A8_UNORM, 4, 1, 1, 1, 1);
    memcpy(t.mem[0], (uint8_t[]){76, 0, 255, 128}, 4);
    fetch1(&t, c);
    CHECK_F(c[0][0], 76.0f * (1.0f / 255.0f));
    CHECK_F(c[1][0], 0.0f);
    CHECK_F(c[2][0], 1.0f);
    CHECK_F(c[3][0], 128.0f * (1.0f / 255.0f));
    CHECK_F(c[0][3], c[0][0]); /* all lanes fetch texel (0, 0) */
    tex_free(&t);

    tex_init(&t, T_2D, FMT_B8G8R8A8_UNORM, 4, 1, 1, 1, 1);
    memcpy(t.mem[0], (uint8_t[]){10, 20, 30, 40}, 4); /* memory order B G R A */
    fetch1(&t, c);
    CHECK_F(c[0][0], u8(30));
    CHECK_F(c[1][0], u8(20));
    CHECK_F(c[2][0], u8(10));
    CHECK_F(c[3][0], u8(40));
    tex_free(&t);

    tex_init(&t, T_2D, FMT_R8G8B8X8_UNORM, 4, 1, 1, 1, 1);
    memcpy(t.mem[0], (uint8_t[]){1, 2, 3, 0}, 4); /* X ignored, alpha 1 */
    fetch1(&t, c);
    CHECK_F(c[0][0], u8(1));
    CHECK_F(c[2][0], u8(3));
    CHECK_F(c[3][0], 1.0f);
    tex_free(&t);

    tex_init(&t, T_2D, FMT_L8_UNORM, 1, 1, 1, 1, 1);
    t.mem[0][0] = 200;
    fetch1(&t, c);
    CHECK_F(c[0][0], u8(200));
    CHECK_F(c[1][0], u8(200));
    CHECK_F(c[2][0], u8(200));
    CHECK_F(c[3][0], 1.0f);
    tex_free(&t);

    tex_init(&t, T_2D, FMT_A8_UNORM, 1, 1, 1, 1, 1);
    t.mem[0][0] = 7;
    fetch1(&t, c);
    CHECK_F(c[0][0], 0.0f);
    CHECK_F(c[2][0], 0.0f);
    CHECK_F(c[3][0], u8(7));
    tex_free(&t);

    tex_init(&t, T_2D, FMT_L8A8_UNORM, 2, 1, 1, 1, 1);
    memcpy(t.mem[0], (uint8_t[]){50, 60}, 2);
    fetch1(&t, c);
    CHECK_F(c[1][0], u8(50));
    CHECK_F(c[3][0], u8(60));
    tex_free(&t);

    tex_init(&t, T_2D, FMT_R8G8_UNORM, 2, 1, 1, 1, 1);
    memcpy(t.mem[0], (uint8_t[]){50, 60}, 2);
    fetch1(&t, c);
    CHECK_F(c[0][0], u8(50));
    CHECK_F(c[1][0], u8(60));
    CHECK_F(c[2][0], 0.0f);
    CHECK_F(c[3][0], 1.0f);
    tex_free(&t);
}

/* 16-bit packed formats: B5G6R5, B4G4R4A4, B5G5R5A1. */
static void test_formats_packed16(void)
{
    struct tex t;
    float c[4][4];
    /* B5G6R5: b bits 0-4, g 5-10, r 11-15; value = r 31, g 10, b 3 */
    tex_init(&t, T_2D, FMT_B5G6R5_UNORM, 2, 1, 1, 1, 1);
    {
        uint16_t v = (uint16_t)(31u << 11 | 10u << 5 | 3u);
        memcpy(t.mem[0], &v, 2);
    }
    fetch1(&t, c);
    CHECK_F(c[0][0], 31.0f * (1.0f / 31.0f));
    CHECK_F(c[1][0], 10.0f * (1.0f / 63.0f));
    CHECK_F(c[2][0], 3.0f * (1.0f / 31.0f));
    CHECK_F(c[3][0], 1.0f);
    tex_free(&t);

    /* B4G4R4A4: b 0-3, g 4-7, r 8-11, a 12-15 */
    tex_init(&t, T_2D, FMT_B4G4R4A4_UNORM, 2, 1, 1, 1, 1);
    {
        uint16_t v = (uint16_t)(1u << 12 | 2u << 8 | 3u << 4 | 4u);
        memcpy(t.mem[0], &v, 2);
    }
    fetch1(&t, c);
    CHECK_F(c[0][0], 2.0f * (1.0f / 15.0f));
    CHECK_F(c[1][0], 3.0f * (1.0f / 15.0f));
    CHECK_F(c[2][0], 4.0f * (1.0f / 15.0f));
    CHECK_F(c[3][0], 1.0f * (1.0f / 15.0f));
    tex_free(&t);

    tex_init(&t, T_2D, FMT_B5G5R5A1_UNORM, 2, 1, 1, 1, 1);
    {
        uint16_t v = (uint16_t)(1u << 15 | 5u << 10 | 6u << 5 | 7u);
        memcpy(t.mem[0], &v, 2);
    }
    fetch1(&t, c);
    CHECK_F(c[0][0], 5.0f * (1.0f / 31.0f));
    CHECK_F(c[1][0], 6.0f * (1.0f / 31.0f));
    CHECK_F(c[2][0], 7.0f * (1.0f / 31.0f));
    CHECK_F(c[3][0], 1.0f);
    tex_free(&t);
}

/* Half floats, sRGB and 32-bit floats. */
static void test_formats_float(void)
{
    struct tex t;
    float c[4][4];
    /* half floats: 1.0, -2.0, 0.5, 65504 (max), subnormal 2^-24 */
    tex_init(&t, T_2D, FMT_R16G16B16A16_FLOAT, 8, 2, 1, 1, 1);
    {
        uint16_t v[8] = {0x3c00, 0xc000, 0x3800, 0x7bff, 0x0001, 0x0000, 0x8000, 0x7c00};
        memcpy(t.mem[0], v, 16);
    }
    fetch1(&t, c);
    CHECK_F(c[0][0], 1.0f);
    CHECK_F(c[1][0], -2.0f);
    CHECK_F(c[2][0], 0.5f);
    CHECK_F(c[3][0], 65504.0f);
    {
        const int i[4] = {1, 1, 1, 1}, z[4] = {0, 0, 0, 0};
        tbr_sampler_get_texel(&t.v, i, z, z, z, NULL, c, NULL, NULL);
        CHECK_F(c[0][0], 1.0f / 16777216.0f);
        CHECK_F(c[1][0], 0.0f);
        CHECK_F(c[2][0], -0.0f);
        CHECK_F(c[3][0], 1.0f / 0.0f);
    }
    tex_free(&t);

    /* sRGB: Mesa's table entries are the "%.7e" decimals of the double-precision
     * curve (entry 183 differs from the double rounded directly, 0.473531485) */
    tex_init(&t, T_2D, 151 /* L8A8_SRGB */, 2, 3, 1, 1, 1);
    memcpy(t.mem[0], (uint8_t[]){183, 183, 10, 0, 255, 255}, 6);
    {
        const int i[4] = {0, 1, 2, 0}, z[4] = {0, 0, 0, 0};
        tbr_sampler_get_texel(&t.v, i, z, z, z, NULL, c, NULL, NULL);
        CHECK_F(c[0][0], 4.7353150e-01f);
        CHECK_F(c[2][0], 4.7353150e-01f);
        CHECK_F(c[3][0], u8(183));        /* alpha stays linear */
        CHECK_F(c[0][1], 3.0352698e-03f); /* linear segment: 10/255/12.92 */
        CHECK_F(c[0][2], 1.0f);
    }
    tex_free(&t);

    tex_init(&t, T_2D, FMT_R32G32B32A32_FLOAT, 16, 1, 1, 1, 1);
    memcpy(t.mem[0], (float[]){0.1f, -3.5f, 1e30f, 0.0f}, 16);
    fetch1(&t, c);
    CHECK_F(c[0][0], 0.1f);
    CHECK_F(c[1][0], -3.5f);
    CHECK_F(c[2][0], 1e30f);
    tex_free(&t);
}

/* Depth formats: Z16, Z24S8, Z32. */
static void test_formats_depth(void)
{
    struct tex t;
    float c[4][4];
    /* depth: u_tile.c puts depth in all channels; Z16 *(1/65535) in float,
     * Z24S8 / Z32 scaled in double then rounded */
    tex_init(&t, T_2D, FMT_Z16_UNORM, 2, 1, 1, 1, 1);
    {
        uint16_t v = 1000;
        memcpy(t.mem[0], &v, 2);
    }
    fetch1(&t, c);
    CHECK_F(c[0][0], 1000.0f * (1.0f / 65535.0f));
    CHECK_F(c[3][0], 1000.0f * (1.0f / 65535.0f));
    tex_free(&t);

    tex_init(&t, T_2D, FMT_Z24_UNORM_S8_UINT, 4, 1, 1, 1, 1);
    {
        uint32_t v = 0xab000000u | 12345678u; /* stencil 0xab in the top byte */
        memcpy(t.mem[0], &v, 4);
    }
    fetch1(&t, c);
    CHECK_F(c[0][0], (float)(12345678.0 * (1.0 / 16777215.0)));
    CHECK_F(c[3][0], c[0][0]);
    tex_free(&t);

    tex_init(&t, T_2D, FMT_Z32_UNORM, 4, 1, 1, 1, 1);
    {
        uint32_t v = 0x80000000u;
        memcpy(t.mem[0], &v, 4);
    }
    fetch1(&t, c);
    CHECK_F(c[0][0], (float)(2147483648.0 * (1.0 / 4294967295.0)));
    tex_free(&t);
}

static void test_formats(void)
{
    test_formats_8bit();
    test_formats_packed16();
    test_formats_float();
    test_formats_depth();
}

/* ---- wrap modes: width 5 (not a power of two: general paths), height 1 ---- */
static void wrap_tex(struct tex *t, unsigned wrap, unsigned filter)
{
    tex_init(t, T_2D, FMT_L8_UNORM, 1, 5, 1, 1, 1);
    const uint8_t vals[5] = {10, 20, 30, 40, 50};
    memcpy(t->mem[0], vals, 5);
    t->v.wrap_s = wrap;
    t->v.wrap_t = W_EDGE; /* y always texel 0 */
    t->v.min_img_filter = t->v.mag_img_filter = filter;
}

static void test_wrap(void)
{
    struct tex t;
    float c[4][4];
    struct obs o;

    /* linear REPEAT at s = 0: u = 0*5 - 0.5 = -0.5, floor -1 -> x0 = 4, x1 = 0,
     * w = frac(-0.5) = 0.5: 50 + 0.5 * (10 - 50) */
    wrap_tex(&t, W_REPEAT, F_LINEAR);
    sample1(&t, 0.0f, 0.5f, c, &o);
    CHECK_F(c[0][0], u8(50) + 0.5f * (u8(10) - u8(50)));
    CHECK_I(o.n, 16); /* 4 texels per lane, 4 lanes */
    CHECK(obs_is(&o, 0, 0, 0, 0, 4, 0));
    CHECK(obs_is(&o, 1, 0, 0, 0, 0, 0));
    CHECK(obs_is(&o, 2, 0, 0, 0, 4, 0)); /* y1 = y0 (CLAMP_TO_EDGE, height 1) */
    CHECK(obs_is(&o, 3, 0, 0, 0, 0, 0));
    CHECK(obs_is(&o, 4, 1, 0, 0, 4, 0)); /* then lane 1 */
    tex_free(&t);

    /* linear CLAMP_TO_EDGE at s = 0: x0 = -1 -> 0, x1 = 0, w = 0.5 -> texel 0 */
    wrap_tex(&t, W_EDGE, F_LINEAR);
    sample1(&t, 0.0f, 0.5f, c, &o);
    CHECK_F(c[0][0], u8(10) + 0.5f * (u8(10) - u8(10)));
    CHECK(obs_is(&o, 0, 0, 0, 0, 0, 0) && obs_is(&o, 1, 0, 0, 0, 0, 0));
    /* s = 1: u = 5 - 0.5 = 4.5, x0 = 4, x1 = 5 -> 4, w = 0.5 */
    sample1(&t, 1.0f, 0.5f, c, &o);
    CHECK(obs_is(&o, 0, 0, 0, 0, 4, 0) && obs_is(&o, 1, 0, 0, 0, 4, 0));
    /* nearest CLAMP_TO_EDGE: s = -3 -> 0, s = 0.99 -> 4.95 > 4.5 -> 4, s = 0.5 -> 2 */
    t.v.min_img_filter = t.v.mag_img_filter = F_NEAREST;
    sample1(&t, -3.0f, 0.5f, c, &o);
    CHECK_F(c[0][0], u8(10));
    CHECK_I(o.n, 4);
    sample1(&t, 0.99f, 0.5f, c, NULL);
    CHECK_F(c[0][0], u8(50));
    sample1(&t, 0.5f, 0.5f, c, NULL);
    CHECK_F(c[0][0], u8(30));
    tex_free(&t);

    /* CLAMP_TO_BORDER, linear at s = 0: u = CLAMP(0, -1, 5.5) - 0.5 = -0.5: x0 = -1 is
     * the border (not read), x1 = 0. Border 2.0 is clamped to 1.0 (unorm format). */
    wrap_tex(&t, W_BORDER, F_LINEAR);
    t.v.wrap_t = W_BORDER;
    t.v.border_color[0] = 2.0f;
    t.v.border_color[3] = 0.25f;
    {
        /* t = 0.5 with height 1: v = 0, y0 = 0, y1 = 1 (border), yw = 0 */
        sample1(&t, 0.0f, 0.5f, c, &o);
        const float top = 1.0f + 0.5f * (u8(10) - 1.0f);
        const float bottom = 1.0f + 0.5f * (1.0f - 1.0f);
        CHECK_F(c[0][0], top + 0.0f * (bottom - top));
        CHECK_I(o.n, 4); /* only (0, 0) per lane */
        CHECK(obs_is(&o, 0, 0, 0, 0, 0, 0) && obs_is(&o, 1, 1, 0, 0, 0, 0));
        CHECK_F(c[3][0], 0.25f + 0.5f * (1.0f - 0.25f)); /* L8 alpha = 1 */
    }
    /* nearest CLAMP_TO_BORDER far outside: border, no texel read */
    t.v.min_img_filter = t.v.mag_img_filter = F_NEAREST;
    sample1(&t, -1.0f, 0.5f, c, &o);
    CHECK_F(c[0][0], 1.0f);
    CHECK_F(c[3][0], 0.25f);
    CHECK_I(o.n, 0);
    tex_free(&t);

    /* MIRROR_REPEAT nearest at s = 1.125: floor 1 (odd) -> u = 1 - 0.125 = 0.875,
     * min = 1/10, max = 0.9 -> floor(0.875 * 5) = 4 */
    wrap_tex(&t, W_MIRROR_REPEAT, F_NEAREST);
    sample1(&t, 1.125f, 0.5f, c, NULL);
    CHECK_F(c[0][0], u8(50));
    /* s = 2.25: even -> u = 0.25 -> floor(1.25) = 1 */
    sample1(&t, 2.25f, 0.5f, c, NULL);
    CHECK_F(c[0][0], u8(20));
    /* linear at s = 1.5 (odd): u = 1 - 0.5 = 0.5; u = 0.5 * 5 + 0.5 = 3; x0 = 3,
     * x1 = 2, w = frac(1 - 3) = 0 */
    t.v.min_img_filter = t.v.mag_img_filter = F_LINEAR;
    sample1(&t, 1.5f, 0.5f, c, &o);
    CHECK(obs_is(&o, 0, 0, 0, 0, 3, 0) && obs_is(&o, 1, 0, 0, 0, 2, 0));
    CHECK_F(c[0][0], u8(40) + 0.0f * (u8(30) - u8(40)));
    tex_free(&t);

    /* CLAMP (GL_CLAMP) linear at s = 1: u = 5 - 0.5 = 4.5, x1 = 5 -> border */
    wrap_tex(&t, W_CLAMP, F_LINEAR);
    t.v.wrap_t = W_CLAMP;
    sample1(&t, 1.0f, 0.5f, c, &o);
    CHECK(obs_is(&o, 0, 0, 0, 0, 4, 0));
    CHECK_I(o.n, 4); /* (5, 0), (4, 1), (5, 1) are outside */
    tex_free(&t);

    /* unnormalized coordinates (RECT): nearest CLAMP_TO_EDGE s = 3.7 -> 3 */
    wrap_tex(&t, W_EDGE, F_NEAREST);
    t.v.target = T_RECT;
    t.v.normalized_coords = 0;
    sample1(&t, 3.7f, 0.5f, c, NULL);
    CHECK_F(c[0][0], u8(40));
    sample1(&t, 9.0f, 0.5f, c, NULL);
    CHECK_F(c[0][0], u8(50));
    tex_free(&t);
}

/* ---- LOD: 8x8 L8 texture with 4 levels of constant values 10, 20, 30, 40 ---- */
static void lod_tex(struct tex *t, unsigned mip, unsigned wrap)
{
    tex_init(t, T_2D, FMT_L8_UNORM, 1, 8, 8, 1, 4);
    for (unsigned l = 0; l < 4; l++) {
        unsigned n = (8 >> l) * (8 >> l);
        memset(t->mem[l], (int)(10 * (l + 1)), n);
    }
    t->v.min_mip_filter = mip;
    t->v.wrap_s = t->v.wrap_t = wrap;
}

/* s varies by ds per pixel in x: lambda = log2(ds * 8) */
static void sample_ds(const struct tex *t, float ds, float c[4][4], struct obs *o)
{
    const float s[4] = {0.5f, 0.5f + ds, 0.5f, 0.5f + ds}, tt[4] = {0.5f, 0.5f, 0.5f, 0.5f};
    sample4(t, s, tt, NULL, TBR_SAMPLER_LOD_NONE, NULL, c, o);
}

static void test_lod(void)
{
    struct tex t;
    float c[4][4];
    struct obs o;

    /* ds = 0.25: rho = 2, util_fast_log2(2) = 1 exactly -> nearest level 1 */
    lod_tex(&t, MIP_NEAREST, W_EDGE);
    sample_ds(&t, 0.25f, c, &o);
    CHECK_F(c[0][0], u8(20));
    CHECK(obs_is(&o, 0, 0, 1, 0, 2, 2)); /* level 1 is 4x4: s = 0.5 -> x = 2 */
    /* lod bias 0.5: lod 1.5 -> (int)(2.0) = level 2 */
    t.v.lod_bias = 0.5f;
    sample_ds(&t, 0.25f, c, NULL);
    CHECK_F(c[0][0], u8(30));
    /* max_lod 0.25 clamps: (int)(0.75) = level 0 */
    t.v.lod_bias = 0.0f;
    t.v.max_lod = 0.25f;
    sample_ds(&t, 0.25f, c, NULL);
    CHECK_F(c[0][0], u8(10));
    t.v.max_lod = 1000.0f;
    /* rho = 3: mantissa 0.5 -> table entry 128 = (float)log2(1.5): 1.585 -> level 2 */
    sample_ds(&t, 0.375f, c, NULL);
    CHECK_F(c[0][0], u8(30));
    /* huge derivatives: level clamped to last_level 3 */
    sample_ds(&t, 100.0f, c, NULL);
    CHECK_F(c[0][0], u8(40));
    /* explicit LOD (TXL) in c1: 2 -> level (int)2.5 = 2; per lane */
    {
        const float s[4] = {0.5f, 0.5f, 0.5f, 0.5f};
        const float lods[4] = {2.0f, 0.0f, 0.6f, 9.0f};
        sample4(&t, s, s, NULL, TBR_SAMPLER_LOD_EXPLICIT, lods, c, NULL);
        CHECK_F(c[0][0], u8(30));
        CHECK_F(c[0][1], u8(10)); /* lod 0 <= 0: magnification, first level */
        CHECK_F(c[0][2], u8(20)); /* (int)(1.1) = 1 */
        CHECK_F(c[0][3], u8(40));
        /* explicit derivatives (TXD): lambda per lane from derivs[coord][x/y][lane] */
        float derivs[3][2][4];
        memset(derivs, 0, sizeof(derivs));
        derivs[0][0][0] = 0.25f; /* rho 2: level 1 */
        derivs[1][1][1] = 0.5f;  /* rho 4: level 2 */
        const float zero[4] = {0, 0, 0, 0};
        tbr_sampler_get_samples(&t.v, s, s, zero, zero, zero, derivs, NULL, TBR_SAMPLER_DERIVS_EXPLICIT, c, NULL, NULL);
        CHECK_F(c[0][0], u8(20));
        CHECK_F(c[0][1], u8(30));
        CHECK_F(c[0][2], u8(10)); /* derivatives 0: log2(0) = -127 */
    }
    tex_free(&t);

    /* mip LINEAR, general path (wrap CLAMP_TO_EDGE): lod 1 -> blend levels 1 and 2
     * with weight frac(1) = 0: 8 texels per lane, result level 1 */
    lod_tex(&t, MIP_LINEAR, W_EDGE);
    t.v.min_img_filter = t.v.mag_img_filter = F_LINEAR;
    sample_ds(&t, 0.25f, c, &o);
    CHECK_F(c[0][0], u8(20) + 0.0f * (u8(30) - u8(20)));
    CHECK_I(o.n, 32);
    CHECK(obs_is(&o, 0, 0, 1, 0, 1, 1)); /* level 1 (4x4) s = 0.5: u = 1.5 -> 1, 2 */
    CHECK(obs_is(&o, 4, 0, 2, 0, 0, 0)); /* level 2 (2x2): u = 0.5 -> 0, 1 */
    CHECK(obs_is(&o, 5, 0, 2, 0, 1, 0));
    /* lod 1.5 (bias 0.5): halfway between levels 1 and 2 */
    t.v.lod_bias = 0.5f;
    sample_ds(&t, 0.25f, c, NULL);
    CHECK_F(c[0][0], u8(20) + 0.5f * (u8(30) - u8(20)));
    t.v.lod_bias = 0.0f;
    /* magnification (lod <= 0): only level 0, 4 texels per lane */
    sample_ds(&t, 0.0f, c, &o);
    CHECK_I(o.n, 16);
    CHECK_F(c[0][0], u8(10));
    tex_free(&t);

    /* mip NONE, min NEAREST / mag LINEAR: lod > 0 selects the min filter (1 texel),
     * lod <= 0 the mag filter (4 texels); always level first_level */
    lod_tex(&t, MIP_NONE, W_EDGE);
    t.v.min_img_filter = F_NEAREST;
    t.v.mag_img_filter = F_LINEAR;
    sample_ds(&t, 0.25f, c, &o);
    CHECK_I(o.n, 4);
    CHECK_F(c[0][0], u8(10));
    sample_ds(&t, 0.0f, c, &o);
    CHECK_I(o.n, 16);
    /* first_level 2 of the view: level 2 is sampled and lambda uses its size (2):
     * ds = 0.25 gives rho 0.5, lambda -1: magnification (4 texels) */
    t.v.first_level = 2;
    sample_ds(&t, 0.25f, c, &o);
    CHECK_I(o.n, 16);
    sample_ds(&t, 1.0f, c, &o); /* rho 2: minification, nearest */
    CHECK_I(o.n, 4);
    CHECK_F(c[0][0], u8(30));
    CHECK(obs_is(&o, 0, 0, 2, 0, 1, 1)); /* 2x2: s = 0.5 -> floor(1.0) = 1 */
    tex_free(&t);
}

/* ---- 2D power-of-two fast paths ---- */
static void test_pot(void)
{
    struct tex t;
    float c[4][4];
    struct obs o;

    /* REPEAT + LINEAR + mip LINEAR on a POT texture: mip_filter_linear_2d_linear_repeat_POT.
     * Magnification (lod -127 clamped to min_lod -1000 -> (int) = -127: level0 < 0 ->
     * first level, one bilinear footprint */
    lod_tex(&t, MIP_LINEAR, W_REPEAT);
    t.v.min_img_filter = t.v.mag_img_filter = F_LINEAR;
    sample_ds(&t, 0.0f, c, &o);
    CHECK_I(o.n, 16);
    CHECK_F(c[0][0], u8(10));
    /* lod -0.5 (min_lod): softpipe's POT path takes level0 = (int)-0.5 = 0 and blends
     * levels 0 and 1 with frac(-0.5) = 0.5, where the general path magnifies */
    t.v.min_lod = -0.5f;
    sample_ds(&t, 0.0f, c, &o);
    CHECK_I(o.n, 32);
    CHECK_F(c[0][0], u8(10) + 0.5f * (u8(20) - u8(10)));
    /* the same state without the fast path (wrap_t CLAMP_TO_EDGE): magnification */
    t.v.wrap_t = W_EDGE;
    sample_ds(&t, 0.0f, c, &o);
    CHECK_I(o.n, 16);
    CHECK_F(c[0][0], u8(10));
    tex_free(&t);

    /* the fast path wraps with & (size - 1): texel at s = -0.01 on width 8 -> u = -0.58,
     * x0 = -1 & 7 = 7, x1 = 0; xw = u - floor(u) */
    tex_init(&t, T_2D, FMT_L8_UNORM, 1, 8, 1, 1, 1);
    for (int x = 0; x < 8; x++) t.mem[0][x] = (uint8_t)(x * 30);
    t.v.min_img_filter = t.v.mag_img_filter = F_LINEAR;
    sample1(&t, -0.01f, 0.5f, c, &o);
    CHECK(obs_is(&o, 0, 0, 0, 0, 7, 0) && obs_is(&o, 1, 0, 0, 0, 0, 0));
    {
        const float u = -0.01f * 8.0f - 0.5f;
        const float xw = u - (float)-1;
        CHECK_F(c[0][0], u8(210) + xw * (u8(0) - u8(210)));
    }
    /* nearest REPEAT POT: s = 1.3 -> floor(10.4) = 10 & 7 = 2 */
    t.v.min_img_filter = t.v.mag_img_filter = F_NEAREST;
    sample1(&t, 1.3f, 0.5f, c, NULL);
    CHECK_F(c[0][0], u8(60));
    /* nearest CLAMP POT: s = 1.3 -> 10 clamped to 7 */
    t.v.wrap_s = t.v.wrap_t = W_CLAMP;
    sample1(&t, 1.3f, 0.5f, c, NULL);
    CHECK_F(c[0][0], u8(210));
    tex_free(&t);
}

/* ---- softpipe's texture tile cache aliasing (sampler.c fetch_group) ----
 * A 128x256 L8 texture, REPEAT, bilinear at s = 0.5, t = 1.0: u = 63.5, v = 255.5, the
 * footprint (63,255) (64,255) (63,0) (64,0) lies in 32x32 tiles (1,7) (2,7) (1,0) (2,0),
 * cache entries (tx + 9 ty) mod 16 = 0, 1, 1, 2: the third fetch reloads entry 1, so the
 * pointer softpipe kept for (64,255) reads tile (1,0) at the same in-tile position
 * (0,31): texel (32,31). The observer still reports the texels asked for. */
static float lerp_f(float a, float v0, float v1) { return v0 + a * (v1 - v0); }

static void test_aliasing(void)
{
    struct tex t;
    float c[4][4];
    struct obs o;
    tex_init(&t, T_2D, FMT_L8_UNORM, 1, 128, 256, 1, 1);
#define L8_AT(x, y) ((uint8_t)(((x)*7 + (y)*13) & 255))
    for (int y = 0; y < 256; y++)
        for (int x = 0; x < 128; x++) t.mem[0][y * 128 + x] = L8_AT(x, y);
    t.v.min_img_filter = t.v.mag_img_filter = F_LINEAR;
    sample1(&t, 0.5f, 1.0f, c, &o);
    CHECK(obs_is(&o, 0, 0, 0, 0, 63, 255) && obs_is(&o, 1, 0, 0, 0, 64, 255) && obs_is(&o, 2, 0, 0, 0, 63, 0) &&
          obs_is(&o, 3, 0, 0, 0, 64, 0));
    const float aliased = lerp_f(0.5f, lerp_f(0.5f, u8(L8_AT(63, 255)), u8(L8_AT(32, 31))),
                                 lerp_f(0.5f, u8(L8_AT(63, 0)), u8(L8_AT(64, 0))));
    const float plain = lerp_f(0.5f, lerp_f(0.5f, u8(L8_AT(63, 255)), u8(L8_AT(64, 255))),
                               lerp_f(0.5f, u8(L8_AT(63, 0)), u8(L8_AT(64, 0))));
    CHECK(aliased != plain);
    CHECK_F(c[0][0], aliased);
    /* distinct entries, nothing aliases: s = t = 0.25 -> u = 31.5,
     * v = 63.5 spans tiles (0,1) (1,1) (0,2) (1,2): entries 9, 10, 2, 3, all distinct */
    sample1(&t, 0.25f, 0.25f, c, &o);
    CHECK_F(c[0][0], lerp_f(0.5f, lerp_f(0.5f, u8(L8_AT(31, 63)), u8(L8_AT(32, 63))),
                            lerp_f(0.5f, u8(L8_AT(31, 64)), u8(L8_AT(32, 64)))));
#undef L8_AT
    tex_free(&t);
}

/* ---- footprint observer and prepared view state (tbr_sampler_get_samples_exact_prepared) ----
 * The same samples as tbr_sampler_get_samples_exact with the texel observer alone: the
 * same colors, bit for bit, and the same texels in the same order once the footprints
 * are expanded; the footprint observer gets the bilinear footprints inside a level. */
static void observe_footprint(void *ctx, unsigned lane, unsigned level, unsigned layer, int x0, int x1, int y0, int y1)
{
    struct obs *o = ctx;
    o->footprints++;
    observe(o, lane, level, layer, x0, y0);
    observe(o, lane, level, layer, x1, y0);
    observe(o, lane, level, layer, x0, y1);
    observe(o, lane, level, layer, x1, y1);
}

static float rnd(unsigned *seed, float lo, float hi)
{
    *seed = *seed * 1103515245u + 12345u;
    return lo + (hi - lo) * (float)((*seed >> 8) & 0xffff) / 65535.0f;
}

static void test_footprints(void)
{
    static const unsigned formats[][2] = {
        {FMT_R8G8B8A8_UNORM, 4}, {FMT_L8_UNORM, 1}, {FMT_R8G8B8X8_UNORM, 4}, {FMT_B5G6R5_UNORM, 2}};
    static const unsigned sizes[][2] = {{16, 16}, {64, 32}, {12, 20}};
    static const unsigned wraps[] = {W_REPEAT, W_EDGE, W_BORDER, W_MIRROR_REPEAT};
    unsigned seed = 7;
    int footprints = 0, samples = 0;
    for (size_t fi = 0; fi < sizeof(formats) / sizeof(formats[0]); fi++)
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
            for (size_t wi = 0; wi < sizeof(wraps) / sizeof(wraps[0]); wi++)
                for (unsigned mip = MIP_NEAREST; mip <= MIP_NONE; mip++) {
                    struct tex t;
                    tex_init(&t, T_2D, formats[fi][0], formats[fi][1], sizes[si][0], sizes[si][1], 1, 4);
                    for (unsigned l = 0; l < 4; l++) {
                        const unsigned w = sizes[si][0] >> l, h = sizes[si][1] >> l;
                        for (unsigned b = 0; b < w * h * formats[fi][1]; b++)
                            t.mem[l][b] = (uint8_t)(b * 37u + l * 101u + 5u);
                    }
                    t.v.wrap_s = t.v.wrap_t = wraps[wi];
                    t.v.min_mip_filter = mip;
                    t.v.min_img_filter = t.v.mag_img_filter = F_LINEAR;
                    t.v.border_color[0] = 0.25f;
                    struct tbr_sampler_prepared prepared;
                    tbr_sampler_prepare(&prepared, &t.v);
                    for (int k = 0; k < 20; k++) {
                        const float s0 = rnd(&seed, -1.5f, 2.5f), t0 = rnd(&seed, -1.5f, 2.5f);
                        const float d = rnd(&seed, 0.0f, 0.3f);
                        const float s[4] = {s0, s0 + d, s0, s0 + d};
                        const float tt[4] = {t0, t0, t0 + d, t0 + d};
                        const float zero[4] = {0, 0, 0, 0};
                        float derivs[3][2][4], plain[4][4], with_fp[4][4];
                        memset(derivs, 0, sizeof(derivs));
                        struct obs a, b;
                        memset(&a, 0, sizeof(a));
                        memset(&b, 0, sizeof(b));
                        const int exact_a = tbr_sampler_get_samples_exact(&t.v, s, tt, zero, zero, zero, derivs, NULL,
                                                                          TBR_SAMPLER_LOD_NONE, plain, observe, &a);
                        const int exact_b = tbr_sampler_get_samples_exact_prepared(
                            &t.v, &prepared, s, tt, zero, zero, zero, derivs, NULL, TBR_SAMPLER_LOD_NONE, with_fp,
                            observe, observe_footprint, &b);
                        CHECK_I(exact_b, exact_a);
                        CHECK(memcmp(plain, with_fp, sizeof(plain)) == 0);
                        CHECK_I(b.n, a.n);
                        CHECK(a.n <= OBS_MAX && memcmp(a.rec, b.rec, sizeof(a.rec[0]) * (size_t)a.n) == 0);
                        CHECK_I(a.footprints, 0);
                        footprints += b.footprints;
                        samples++;
                    }
                    tex_free(&t);
                }
    CHECK_I(samples, 4 * 3 * 4 * 3 * 20);
    CHECK(footprints > samples); /* most bilinear footprints lie inside their level */

    /* by hand: 8x8 L8, REPEAT, bilinear (the POT path), s = t = 0.5: u = v = 3.5, the
     * footprint (3,3) (4,3) (3,4) (4,4) in one call per lane */
    struct tex t;
    tex_init(&t, T_2D, FMT_L8_UNORM, 1, 8, 8, 1, 1);
    t.v.min_img_filter = t.v.mag_img_filter = F_LINEAR;
    struct tbr_sampler_prepared prepared;
    tbr_sampler_prepare(&prepared, &t.v);
    const float half[4] = {0.5f, 0.5f, 0.5f, 0.5f}, zero[4] = {0, 0, 0, 0};
    float derivs[3][2][4], c[4][4];
    memset(derivs, 0, sizeof(derivs));
    struct obs o;
    memset(&o, 0, sizeof(o));
    tbr_sampler_get_samples_exact_prepared(&t.v, &prepared, half, half, zero, zero, zero, derivs, NULL,
                                           TBR_SAMPLER_LOD_NONE, c, observe, observe_footprint, &o);
    CHECK_I(o.footprints, 4);
    CHECK_I(o.n, 16);
    CHECK(o.rec[4][0] == 1 && o.rec[4][3] == 3 && o.rec[4][4] == 3 && o.rec[7][3] == 4 && o.rec[7][4] == 4);
    tex_free(&t);
}

/* ---- swizzle, compare, cube, 3D, arrays, queries ---- */
/* View swizzle and gather (TG4). */
static void test_misc_swizzle_gather(void)
{
    struct tex t;
    float c[4][4];
    struct obs o;
    /* view swizzle (B, G, R, ONE) */
    tex_init(&t, T_2D, FMT_R8G8B8A8_UNORM, 4, 1, 1, 1, 1);
    memcpy(t.mem[0], (uint8_t[]){1, 2, 3, 4}, 4);
    t.v.swizzle[0] = 2;
    t.v.swizzle[2] = 0;
    t.v.swizzle[3] = 5;
    sample1(&t, 0.5f, 0.5f, c, NULL);
    CHECK_F(c[0][0], u8(3));
    CHECK_F(c[1][0], u8(2));
    CHECK_F(c[2][0], u8(1));
    CHECK_F(c[3][0], 1.0f);
    t.v.swizzle[1] = 4; /* ZERO */
    sample1(&t, 0.5f, 0.5f, c, NULL);
    CHECK_F(c[1][0], 0.0f);
    tex_free(&t);

    /* gather (TG4): component 1 of the bilinear footprint, returned in the order
     * (x0,y1) (x1,y1) (x1,y0) (x0,y0); the level comes from lod_bias, never the mag
     * filter; the view swizzle picks the component, no swizzle afterwards */
    tex_init(&t, T_2D, FMT_R8G8B8A8_UNORM, 4, 2, 2, 1, 1);
    for (int i = 0; i < 4; i++) memcpy(t.mem[0] + 4 * i, (uint8_t[]){(uint8_t)i, (uint8_t)(10 + i), 0, 0}, 4);
    {
        const float s[4] = {0.5f, 0.5f, 0.5f, 0.5f};
        float comp[4];
        const uint32_t one = 1;
        memcpy(&comp[0], &one, 4);
        sample4(&t, s, s, NULL, TBR_SAMPLER_GATHER, comp, c, &o);
        CHECK_F(c[0][0], u8(12)); /* texel (0, 1) */
        CHECK_F(c[1][0], u8(13)); /* (1, 1) */
        CHECK_F(c[2][0], u8(11)); /* (1, 0) */
        CHECK_F(c[3][0], u8(10)); /* (0, 0) */
        CHECK_I(o.n, 16);
        t.v.swizzle[1] = 0; /* component 1 now reads red */
        sample4(&t, s, s, NULL, TBR_SAMPLER_GATHER, comp, c, NULL);
        CHECK_F(c[0][0], u8(2));
        CHECK_F(c[3][0], u8(0));
    }
    tex_free(&t);
}

/* Shadow compare and the clamping of its reference. */
static void test_misc_shadow(void)
{
    struct tex t;
    float c[4][4];
    /* shadow compare on Z16, LEQUAL: reference r clamped to [0, 1], result in rgb, a = 1 */
    tex_init(&t, T_2D, FMT_Z16_UNORM, 2, 1, 1, 1, 1);
    {
        uint16_t v = 16384; /* 0.25 */
        memcpy(t.mem[0], &v, 2);
    }
    t.v.compare_mode = 1;
    t.v.compare_func = 3; /* LEQUAL */
    {
        const float s[4] = {0.5f, 0.5f, 0.5f, 0.5f}, r[4] = {0.5f, 0.2f, -1.0f, 0.26f};
        sample4(&t, s, s, r, TBR_SAMPLER_LOD_NONE, NULL, c, NULL);
        CHECK_F(c[0][0], 0.0f);
        CHECK_F(c[0][1], 1.0f);
        CHECK_F(c[0][2], 1.0f); /* -1 -> 0 <= 0.25 */
        CHECK_F(c[0][3], 0.0f); /* 0.26 <= 16384/65535 = 0.250004 is false */
        CHECK_F(c[2][1], 1.0f);
        CHECK_F(c[3][0], 1.0f);
    }
    tex_free(&t);

    /* the reference is clamped to [0, 1] for normalized depth (Z16: 2 -> 1, 1 > 1 is
     * false) but not for float depth (Z32F: 2 > 1) */
    for (int is_float = 0; is_float < 2; is_float++) {
        tex_init(&t, T_2D, is_float ? 143 : FMT_Z16_UNORM, is_float ? 4 : 2, 1, 1, 1, 1);
        if (is_float) {
            const float one = 1.0f;
            memcpy(t.mem[0], &one, 4);
        } else {
            const uint16_t one = 65535;
            memcpy(t.mem[0], &one, 2);
        }
        t.v.compare_mode = 1;
        t.v.compare_func = 4; /* GREATER */
        const float s[4] = {0.5f, 0.5f, 0.5f, 0.5f}, r[4] = {2.0f, 0.5f, 1.0f, 1.5f};
        sample4(&t, s, s, r, TBR_SAMPLER_LOD_NONE, NULL, c, NULL);
        CHECK_F(c[0][0], is_float ? 1.0f : 0.0f);
        CHECK_F(c[0][1], 0.0f);
        CHECK_F(c[0][2], 0.0f);
        CHECK_F(c[0][3], is_float ? 1.0f : 0.0f);
        tex_free(&t);
    }
}

/* Cube, 2D array and 3D textures. */
static void test_misc_targets(void)
{
    struct tex t;
    float c[4][4];
    struct obs o;
    /* cube, 2x2 faces, face f filled with 10 * (f + 1), nearest */
    tex_init(&t, T_CUBE, FMT_L8_UNORM, 1, 2, 2, 6, 1);
    for (int f = 0; f < 6; f++) memset(t.mem[0] + f * 4, 10 * (f + 1), 4);
    {
        const float s[4] = {1.0f, -1.0f, 0.1f, 0.2f};
        const float tt[4] = {0.0f, 0.2f, 1.0f, 0.1f};
        const float r[4] = {0.0f, 0.3f, -0.4f, -1.0f};
        sample4(&t, s, tt, r, TBR_SAMPLER_LOD_NONE, NULL, c, &o);
        CHECK_F(c[0][0], u8(10)); /* +X */
        CHECK_F(c[0][1], u8(20)); /* -X */
        CHECK_F(c[0][2], u8(30)); /* +Y */
        CHECK_F(c[0][3], u8(60)); /* -Z */
        /* +X at (1, 0, 0): sc = -rz / |rx| * 0.5 + 0.5 = 0.5 -> x = floor(1.0) = 1 */
        CHECK(obs_is(&o, 0, 0, 0, 0, 1, 1));
        CHECK(obs_is(&o, 3, 3, 0, 5, 0, 0)); /* -Z (0.2, 0.1, -1): sc = 0.4, tc = 0.45 */
    }
    tex_free(&t);

    /* 2D array: layer = floor(r + 0.5) clamped to the view's layers */
    tex_init(&t, T_2D_ARRAY, FMT_L8_UNORM, 1, 1, 1, 3, 1);
    t.mem[0][0] = 1;
    t.mem[0][1] = 2;
    t.mem[0][2] = 3;
    {
        const float s[4] = {0.5f, 0.5f, 0.5f, 0.5f}, r[4] = {0.4f, 0.6f, 7.0f, -2.0f};
        sample4(&t, s, s, r, TBR_SAMPLER_LOD_NONE, NULL, c, &o);
        CHECK_F(c[0][0], u8(1));
        CHECK_F(c[0][1], u8(2));
        CHECK_F(c[0][2], u8(3));
        CHECK_F(c[0][3], u8(1));
        CHECK(obs_is(&o, 2, 2, 0, 2, 0, 0));
    }
    tex_free(&t);

    /* 3D linear: 2x2x2, 8 texels per lane, z slice as the layer */
    tex_init(&t, T_3D, FMT_L8_UNORM, 1, 2, 2, 2, 1);
    for (int i = 0; i < 8; i++) t.mem[0][i] = (uint8_t)(i * 10);
    t.v.min_img_filter = t.v.mag_img_filter = F_LINEAR;
    t.v.wrap_s = t.v.wrap_t = t.v.wrap_r = W_EDGE;
    {
        const float s[4] = {0.5f, 0.5f, 0.5f, 0.5f};
        sample4(&t, s, s, s, TBR_SAMPLER_LOD_NONE, NULL, c, &o);
        CHECK_I(o.n, 32);
        CHECK(obs_is(&o, 0, 0, 0, 0, 0, 0) && obs_is(&o, 4, 0, 0, 1, 0, 0) && obs_is(&o, 7, 0, 0, 1, 1, 1));
        /* all weights 0.5 */
        const float a0 = u8(0) + 0.5f * (u8(10) - u8(0)), a1 = u8(20) + 0.5f * (u8(30) - u8(20));
        const float b0 = u8(40) + 0.5f * (u8(50) - u8(40)), b1 = u8(60) + 0.5f * (u8(70) - u8(60));
        const float a = a0 + 0.5f * (a1 - a0), b = b0 + 0.5f * (b1 - b0);
        CHECK_F(c[0][0], a + 0.5f * (b - a));
    }
    tex_free(&t);
}

/* TXQ and TXF. */
static void test_misc_txq_txf(void)
{
    struct tex t;
    float c[4][4];
    struct obs o;
    /* TXQ and TXF */
    tex_init(&t, T_2D, FMT_L8_UNORM, 1, 8, 4, 1, 4);
    t.v.first_level = 1;
    {
        int dims[4] = {-1, -1, -1, -1};
        tbr_sampler_get_dims(&t.v, 0, dims);
        CHECK_I(dims[0], 4);
        CHECK_I(dims[1], 2);
        CHECK_I(dims[3], 3);
        tbr_sampler_get_dims(&t.v, 2, dims);
        CHECK_I(dims[0], 1);
        CHECK_I(dims[1], 1);
        int untouched[4] = {-7, -7, -7, -7};
        tbr_sampler_get_dims(&t.v, 3, untouched); /* past the last level: unchanged */
        CHECK_I(untouched[0], -7);
    }
    t.mem[1][1 * 4 + 3] = 99; /* level 1 (4x2), texel (3, 1) */
    {
        const int i[4] = {3, 9, -5, 3}, j[4] = {1, 1, 1, 1}, z[4] = {0, 0, 0, 0};
        const int8_t off[3] = {0, 0, 0};
        o.n = 0;
        tbr_sampler_get_texel(&t.v, i, j, z, z, off, c, observe, &o);
        CHECK_F(c[0][0], u8(99));
        CHECK_F(c[0][1], u8(99)); /* x clamped to width - 1 */
        CHECK(obs_is(&o, 2, 2, 1, 0, 0, 1));
    }
    tex_free(&t);
}

static void test_misc(void)
{
    test_misc_swizzle_gather();
    test_misc_shadow();
    test_misc_targets();
    test_misc_txq_txf();
}

/* ---- unsupported cases are rejected with a reason ---- */
static void test_unsupported(void)
{
    struct tex t;
    char why[128];

    tex_init(&t, T_2D, FMT_R8G8B8A8_UNORM, 4, 4, 4, 1, 3);
    why[0] = 0;
    CHECK(tbr_sampler_supported(&t.v, why, sizeof(why)) == 1);

    t.v.min_mip_filter = MIP_LINEAR;
    t.v.max_anisotropy = 4; /* softpipe's EWA filter is reproduced (issue #24) */
    CHECK(tbr_sampler_supported(&t.v, why, sizeof(why)) == 1);
    t.v.min_mip_filter = MIP_NONE; /* softpipe filters isotropically without mipmaps */
    CHECK(tbr_sampler_supported(&t.v, why, sizeof(why)) == 1);
    t.v.max_anisotropy = 0;

    t.v.view_format = t.v.resource_format = FMT_ETC1_RGB8;
    CHECK(tbr_sampler_supported(&t.v, why, sizeof(why)) == 0);
    CHECK(strstr(why, "format") != NULL);
    t.v.view_format = t.v.resource_format = FMT_R8G8B8A8_UNORM;

    t.v.levels[1].data = NULL;
    CHECK(tbr_sampler_supported(&t.v, why, sizeof(why)) == 0);
    CHECK(strstr(why, "level 1") != NULL);
    t.v.last_level = 0; /* the view does not use level 1 */
    CHECK(tbr_sampler_supported(&t.v, why, sizeof(why)) == 1);

    t.v.target = T_BUFFER;
    CHECK(tbr_sampler_supported(&t.v, why, sizeof(why)) == 0);
    CHECK(strstr(why, "target") != NULL);
    t.v.target = T_2D;

    t.v.swizzle[0] = 6; /* PIPE_SWIZZLE_NONE */
    CHECK(tbr_sampler_supported(&t.v, why, sizeof(why)) == 0);
    t.v.swizzle[0] = 0;

    CHECK(tbr_sampler_control_supported(TBR_SAMPLER_GATHER, why, sizeof(why)) == 1);
    CHECK(tbr_sampler_control_supported(TBR_SAMPLER_LOD_BIAS, why, sizeof(why)) == 1);
    CHECK(tbr_sampler_control_supported((enum tbr_sampler_control)6, why, sizeof(why)) == 0);
    CHECK(strstr(why, "control") != NULL);
    tex_free(&t);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } groups[] = {{"formats", test_formats},   {"wrap", test_wrap},
                  {"lod", test_lod},           {"pot", test_pot},
                  {"misc", test_misc},         {"unsupported", test_unsupported},
                  {"aliasing", test_aliasing}, {"footprints", test_footprints}};
    if (argc != 2) {
        fprintf(stderr, "usage: sampler_test <group>\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
        if (strcmp(argv[1], groups[i].name) == 0) {
            groups[i].fn();
            if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
            return failures ? 1 : 0;
        }
    }
    fprintf(stderr, "unknown group %s\n", argv[1]);
    return 2;
}
