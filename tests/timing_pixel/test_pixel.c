/* Unit tests of the reference model (functional/reference/pixel_formats, depth_stencil, blending,
 * tile_buffers). Expected values are worked out by hand in the comments, following
 * Mesa 22.3.6 softpipe's arithmetic (float = IEEE single, each operation rounded).
 * Usage: test_pixel <group>   (groups: see main) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blending.h"
#include "depth_stencil.h"
#include "pixel_formats.h"
#include "tile_buffers.h"

static int failures;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                                   \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

#define CHECK_EQ_U(a, b)                                                                                               \
    do {                                                                                                               \
        unsigned long long va_ = (unsigned long long)(a), vb_ = (unsigned long long)(b);                               \
        if (va_ != vb_) {                                                                                              \
            fprintf(stderr, "%s:%d: %s = %llu (0x%llx), expected %llu (0x%llx)\n", __FILE__, __LINE__, #a, va_, va_,   \
                    vb_, vb_);                                                                                         \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

#define CHECK_EQ_F(a, b)                                                                                               \
    do {                                                                                                               \
        float va_ = (a), vb_ = (b);                                                                                    \
        if (memcmp(&va_, &vb_, 4) != 0) {                                                                              \
            fprintf(stderr, "%s:%d: %s = %.9g, expected %.9g\n", __FILE__, __LINE__, #a, (double)va_, (double)vb_);    \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

/* ------------------------------------------------------------------------------ */
static void test_formats(void)
{
    /* name lookup */
    CHECK_EQ_U(tbr_format_from_name("PIPE_FORMAT_B8G8R8A8_UNORM"), TBR_PF_B8G8R8A8_UNORM);
    CHECK_EQ_U(tbr_format_from_name("Z24_UNORM_S8_UINT"), TBR_PF_Z24_UNORM_S8_UINT);
    CHECK_EQ_U(tbr_format_from_name("PIPE_FORMAT_BOGUS"), TBR_PF_NONE);
    CHECK(strcmp(tbr_format_name(TBR_PF_R5G6B5_UNORM), "PIPE_FORMAT_R5G6B5_UNORM") == 0);
    for (int f = 1; f < TBR_PF_COUNT; f++) CHECK_EQ_U(tbr_format_from_name(tbr_format_name((tbr_pixel_format)f)), f);

    /* float_to_ubyte: t = f*(255/256) rounded to float, + 32768 rounded to a multiple of
     * 2^-8 (ties to even); the low mantissa byte is the result. */
    CHECK_EQ_U(tbr_float_to_ubyte(0.5f), 128);     /* 127.5 exactly: tie -> even 128 */
    CHECK_EQ_U(tbr_float_to_ubyte(0.25f), 64);     /* 63.75 -> 64 */
    CHECK_EQ_U(tbr_float_to_ubyte(1.0f / 256), 1); /* 0.99609375 -> 1 */
    CHECK_EQ_U(tbr_float_to_ubyte(1.0f / 512), 0); /* 0.498046875 -> 0 */
    /* 0.3f = 0.300000011920929; exact 0.3f*255 = 76.500003 would round to 77, but
     * fl(0.3f*0.99609375) = 0.298828125 (+0.0000001 lost) -> 76.5/256 -> tie -> 76. */
    CHECK_EQ_U(tbr_float_to_ubyte(0.3f), 76);
    /* 0.9f = 0.899999976; 0.9f*255 = 229.499994 would round to 229; Mesa gives 230 */
    CHECK_EQ_U(tbr_float_to_ubyte(0.9f), 230);
    CHECK_EQ_U(tbr_float_to_ubyte(0.6f), 153);
    CHECK_EQ_U(tbr_float_to_ubyte(0.998f), 254);      /* 254.49 */
    CHECK_EQ_U(tbr_float_to_ubyte(0.99999994f), 255); /* 254.99998 */
    CHECK_EQ_U(tbr_float_to_ubyte(-0.1f), 0);         /* clamp */
    CHECK_EQ_U(tbr_float_to_ubyte(-0.0f), 0);
    CHECK_EQ_U(tbr_float_to_ubyte(1.5f), 255); /* clamp */
    CHECK_EQ_U(tbr_float_to_ubyte(NAN), 0);    /* !(f > 0) */
    CHECK_EQ_U(tbr_float_to_ubyte(INFINITY), 255);
    /* round trip of every byte: ubyte_to_float then float_to_ubyte is the identity */
    for (int b = 0; b < 256; b++) CHECK_EQ_U(tbr_float_to_ubyte(tbr_ubyte_to_float((uint8_t)b)), b);
    /* ubyte_to_float(255) = 255 * fl(1/255) = 1.0 exactly; (0) = 0 */
    CHECK_EQ_F(tbr_ubyte_to_float(255), 1.0f);
    CHECK_EQ_F(tbr_ubyte_to_float(0), 0.0f);

    uint8_t px[16];
    float c[4];
    /* BGRA8 byte order: B, G, R, A in memory */
    const float col[4] = {1.0f, 0.5f, 0.25f, 0.0f};
    tbr_pack_rgba_float(TBR_PF_B8G8R8A8_UNORM, col, px);
    CHECK_EQ_U(px[0], 64);
    CHECK_EQ_U(px[1], 128);
    CHECK_EQ_U(px[2], 255);
    CHECK_EQ_U(px[3], 0);
    tbr_pack_rgba_float(TBR_PF_R8G8B8A8_UNORM, col, px);
    CHECK_EQ_U(px[0], 255);
    CHECK_EQ_U(px[1], 128);
    CHECK_EQ_U(px[2], 64);
    CHECK_EQ_U(px[3], 0);
    /* X8: padding byte written as 0; unpack gives A = 1 */
    memset(px, 0xee, sizeof px);
    tbr_pack_rgba_float(TBR_PF_B8G8R8X8_UNORM, col, px);
    CHECK_EQ_U(px[3], 0);
    px[3] = 0x12;
    tbr_unpack_rgba_float(TBR_PF_B8G8R8X8_UNORM, px, c);
    CHECK_EQ_F(c[3], 1.0f);
    CHECK_EQ_F(c[0], 1.0f);
    /* R8: G,B unpack to 0, A to 1 */
    px[0] = 255;
    tbr_unpack_rgba_float(TBR_PF_R8_UNORM, px, c);
    CHECK_EQ_F(c[0], 1.0f);
    CHECK_EQ_F(c[1], 0.0f);
    CHECK_EQ_F(c[2], 0.0f);
    CHECK_EQ_F(c[3], 1.0f);

    /* 565: util_iround(CLAMP(x,0,1) * max) = (int)(x*max + 0.5f)
     * (1.0, 0.5, 0.25): R = 31; G = 31.5+0.5 = 32; B = 7.75+0.5 -> 8
     * R5G6B5 (R in the low bits): 31 | 32<<5 | 8<<11 = 0x441F */
    const float c565[4] = {1.0f, 0.5f, 0.25f, 0.3f};
    tbr_pack_rgba_float(TBR_PF_R5G6B5_UNORM, c565, px);
    CHECK_EQ_U(px[0] | px[1] << 8, 0x441F);
    /* B5G6R5 (B in the low bits, the usual GL RGB565): 8 | 32<<5 | 31<<11 = 0xFC08 */
    tbr_pack_rgba_float(TBR_PF_B5G6R5_UNORM, c565, px);
    CHECK_EQ_U(px[0] | px[1] << 8, 0xFC08);
    /* clamping: R = -0.5 -> 0, G = 2.0 -> 63, B = NaN -> CLAMP gives 0: 63<<5 = 0x07E0 */
    const float cl[4] = {-0.5f, 2.0f, NAN, 1.0f};
    tbr_pack_rgba_float(TBR_PF_R5G6B5_UNORM, cl, px);
    CHECK_EQ_U(px[0] | px[1] << 8, 0x07E0);
    /* unpack 565: v * fl(1/31): 16 * fl(1/31) = 0.516129017 (not 16/31 rounded =
     * 0.516129032); 32 * fl(1/63) = 0.507936537 */
    px[0] = 16;
    px[1] = 32 >> 3; /* R = 16, G = (32 & 7) << 5 ... build explicitly: */
    {
        uint16_t v = 16 | (32 << 5) | (31 << 11);
        px[0] = (uint8_t)v;
        px[1] = (uint8_t)(v >> 8);
    }
    tbr_unpack_rgba_float(TBR_PF_R5G6B5_UNORM, px, c);
    CHECK_EQ_F(c[0], 0.516129017f);
    CHECK_EQ_F(c[1], 0.507936537f);
    CHECK_EQ_F(c[2], 1.0f);
    CHECK_EQ_F(c[3], 1.0f);
    /* 4444: 0.5*15 = 7.5 + 0.5 = 8 ; 0.2*15 = 3.0000000447 + .5 -> 3 */
    const float c4[4] = {0.5f, 0.2f, 1.0f, 0.0f};
    tbr_pack_rgba_float(TBR_PF_R4G4B4A4_UNORM, c4, px);
    CHECK_EQ_U(px[0] | px[1] << 8, 8 | 3 << 4 | 15 << 8 | 0 << 12);
    /* 5551: alpha 1 bit: 0.49 -> (int)(0.49+0.5) = 0; 0.5 -> 1 */
    const float c5a[4] = {0.0f, 0.0f, 0.0f, 0.49f}, c5b[4] = {0.0f, 0.0f, 0.0f, 0.5f};
    tbr_pack_rgba_float(TBR_PF_B5G5R5A1_UNORM, c5a, px);
    CHECK_EQ_U(px[1] >> 7, 0);
    tbr_pack_rgba_float(TBR_PF_B5G5R5A1_UNORM, c5b, px);
    CHECK_EQ_U(px[1] >> 7, 1);
    /* util_iround adds 0.5f in float: 0.49999997f + 0.5f = 1 - 2^-25 is a tie between
     * 1 - 2^-24 and 1.0 and rounds to even, 1.0 -> 1 (a true rounding would give 0) */
    CHECK_EQ_U(tbr_util_iround(0.49999997f), 1);
    /* half float RTZ: 1/3 -> 0x3555 (RTZ; RNE would also be 0x3555), 65519 -> 0x7bff
     * (RTZ never overflows to inf), 1e-8 -> 0 (below the smallest denormal 2^-24) */
    CHECK_EQ_U(tbr_float_to_half_rtz(1.0f), 0x3c00);
    CHECK_EQ_U(tbr_float_to_half_rtz(-2.0f), 0xc000);
    CHECK_EQ_U(tbr_float_to_half_rtz(65519.0f), 0x7bff);
    CHECK_EQ_U(tbr_float_to_half_rtz(1e9f), 0x7bff);
    CHECK_EQ_U(tbr_float_to_half_rtz(INFINITY), 0x7c00);
    CHECK_EQ_U(tbr_float_to_half_rtz(1e-8f), 0);
    CHECK_EQ_U(tbr_float_to_half_rtz(5.9604645e-8f), 1);   /* 2^-24 */
    CHECK_EQ_U(tbr_float_to_half_rtz(1.0009765f), 0x3c00); /* just below 1+2^-10: truncates */
    for (uint32_t h = 0; h < 0x7c00; h++)                  /* every finite half round-trips */
        CHECK_EQ_U(tbr_float_to_half_rtz(tbr_half_to_float((uint16_t)h)), h);

    /* x86 conversion emulation */
    CHECK_EQ_U(tbr_x86_f2u32(-0.5), 0);
    CHECK_EQ_U(tbr_x86_f2u32(-1.5), 0xffffffffu);
    CHECK_EQ_U(tbr_x86_f2u32(NAN), 0);
    CHECK_EQ_U(tbr_x86_f2u32(4294967296.0), 0);
    CHECK_EQ_U(tbr_x86_f2u16(-3.7f), 0xfffd);
    CHECK_EQ_U(tbr_x86_f2u16(70000.0f), 70000 & 0xffff);
}

/* ------------------------------------------------------------------------------ */
static void test_depth(void)
{
    tbr_dsa_state st;
    memset(&st, 0, sizeof st);
    /* fragment z -> buffer: (unsigned)(z * scale), float scale, truncation */
    /* Z24: 0.5 * 16777215 = 8388607.5 (exact in float) -> 8388607 */
    CHECK_EQ_U(tbr_depth_float_to_buffer(&st, TBR_PF_Z24_UNORM_S8_UINT, 0.5f), 8388607);
    CHECK_EQ_U(tbr_depth_float_to_buffer(&st, TBR_PF_Z24_UNORM_S8_UINT, 1.0f), 16777215);
    CHECK_EQ_U(tbr_depth_float_to_buffer(&st, TBR_PF_Z24X8_UNORM, 0.0f), 0);
    /* 0.3f*16777215f = 5033164.5 after float rounding -> 5033164 */
    CHECK_EQ_U(tbr_depth_float_to_buffer(&st, TBR_PF_S8_UINT_Z24_UNORM, 0.3f), 5033164);
    /* Z16: 0.5*65535 = 32767.5 -> 32767 */
    CHECK_EQ_U(tbr_depth_float_to_buffer(&st, TBR_PF_Z16_UNORM, 0.5f), 32767);
    /* Z32F: the bits */
    CHECK_EQ_U(tbr_depth_float_to_buffer(&st, TBR_PF_Z32_FLOAT, 0.5f), 0x3f000000);
    /* the clear uses lrint (round half even) in double: 0.5 -> 8388607.5 -> 8388608 */
    CHECK_EQ_U(tbr_pack_z_stencil_clear(TBR_PF_Z24_UNORM_S8_UINT, 0.5, 0x12), 0x12800000);
    CHECK_EQ_U(tbr_pack_z_stencil_clear(TBR_PF_Z24_UNORM_S8_UINT, 1.0, 0), 0x00ffffff);
    CHECK_EQ_U(tbr_pack_z_stencil_clear(TBR_PF_S8_UINT_Z24_UNORM, 1.0, 0x34), 0xffffff34);
    CHECK_EQ_U(tbr_pack_z_stencil_clear(TBR_PF_Z16_UNORM, 0.5, 0), 32768); /* 32767.5 -> even */
    CHECK_EQ_U(tbr_pack_z_stencil_clear(TBR_PF_Z32_FLOAT_S8X24_UINT, 1.0, 7), 0x3f800000ull | (7ull << 32));
    /* so a fragment at z = 0.5 is LESS than a buffer cleared to 0.5 (8388607 < 8388608) */
    uint64_t zs[4];
    for (int j = 0; j < 4; j++) zs[j] = tbr_pack_z_stencil_clear(TBR_PF_Z24_UNORM_S8_UINT, 0.5, 0x12);
    st.depth_enabled = true;
    st.depth_writemask = true;
    st.depth_func = TBR_FUNC_LESS;
    tbr_ds_quad q = {.mask = 0xb, .z = {0.5f, 0.5f, 0.75f, 0.25f}};
    /* pixel 0: 8388607 < 8388608 pass; 1: pass; 2: not covered; 3: pass */
    unsigned m = tbr_ds_test_quad(&st, TBR_PF_Z24_UNORM_S8_UINT, true, &q, zs);
    CHECK_EQ_U(m, 0xb);
    CHECK_EQ_U(zs[0], 0x127fffff);           /* stencil 0x12 kept, depth replaced */
    CHECK_EQ_U(zs[2], 0x12800000);           /* not covered: untouched */
    CHECK_EQ_U(zs[3], 0x12000000 | 4194303); /* 0.25*16777215 = 4194303.75 -> 4194303 */
    /* write mask off: buffer unchanged, mask still computed */
    st.depth_writemask = false;
    st.depth_func = TBR_FUNC_GREATER;
    tbr_ds_quad q2 = {.mask = 0xf, .z = {0.6f, 0.4f, 0.9f, 0.1f}};
    zs[0] = zs[1] = zs[2] = zs[3] = 0x00800000; /* z = 8388608 */
    m = tbr_ds_test_quad(&st, TBR_PF_Z24_UNORM_S8_UINT, true, &q2, zs);
    CHECK_EQ_U(m, 0x5);
    CHECK_EQ_U(zs[0], 0x00800000);
    /* depth clamp: viewport scale 0.25, translate 0.5 -> near 0.25, far 0.75 */
    st.depth_clamp = true;
    st.viewport_scale_z = 0.25f;
    st.viewport_translate_z = 0.5f;
    CHECK_EQ_U(tbr_depth_float_to_buffer(&st, TBR_PF_Z16_UNORM, 1.0f), 49151); /* 0.75*65535=49151.25 */
    CHECK_EQ_U(tbr_depth_float_to_buffer(&st, TBR_PF_Z16_UNORM, 0.0f), 16383); /* 16383.75 */
    /* Z32_FLOAT compares as floats: -1.0f bits 0xbf800000 are "greater" as unsigned */
    CHECK(tbr_depth_compare(TBR_PF_Z32_FLOAT, TBR_FUNC_LESS, 0xbf800000u, 0x3f000000u));
    CHECK(!tbr_depth_compare(TBR_PF_Z24X8_UNORM, TBR_FUNC_LESS, 0xbf800000u, 0x3f000000u));

    /* pre-converted integer depth (trace QUADS z[]) is used instead of z[] */
    {
        tbr_dsa_state s2;
        memset(&s2, 0, sizeof s2);
        s2.depth_enabled = s2.depth_writemask = true;
        s2.depth_func = TBR_FUNC_LEQUAL;
        const uint32_t zi[4] = {100, 200, 300, 400};
        tbr_ds_quad qi = {.mask = 0xf, .z = {0.0f, 0.0f, 0.0f, 0.0f}, .zint = zi};
        uint64_t b[4] = {300, 300, 300, 300};
        CHECK_EQ_U(tbr_ds_test_quad(&s2, TBR_PF_Z24X8_UNORM, true, &qi, b), 0x7);
        CHECK_EQ_U(b[0], 100);
        CHECK_EQ_U(b[3], 300);
    }

    /* path choice */
    memset(&st, 0, sizeof st);
    CHECK_EQ_U(tbr_ds_choose_path(&st, TBR_PF_Z16_UNORM, true, true), TBR_DS_PATH_NOOP);
    st.depth_enabled = st.depth_writemask = true;
    st.depth_func = TBR_FUNC_LESS;
    CHECK_EQ_U(tbr_ds_choose_path(&st, TBR_PF_Z16_UNORM, true, true), TBR_DS_PATH_Z16_FAST);
    CHECK_EQ_U(tbr_ds_choose_path(&st, TBR_PF_Z24_UNORM_S8_UINT, true, true), TBR_DS_PATH_FALLBACK);
    CHECK_EQ_U(tbr_ds_choose_path(&st, TBR_PF_Z16_UNORM, true, false), TBR_DS_PATH_FALLBACK);
    CHECK_EQ_U(tbr_ds_choose_path(&st, TBR_PF_Z16_UNORM, false, true), TBR_DS_PATH_NOOP);

    /* Z16 fast path vs fallback: plane a0 = 0.25, dzdx = 0.001, dzdy = 0; batch of two
     * quads at x = 2 and x = 4, y = 0.
     *   z(x=2) = 0.25 + 0.001f*2 = 0.252000004 -> *65535 -> 16514, z(x=3) -> 16580
     *   step = (ushort)(0.001f * 65535) = 65
     * fast path, quad at x=4 (dx = 2): 16514 + 130 = 16644 and 16580 + 130 = 16710
     * fallback at x=4: z = 0.254000008 -> 16645, x=5 -> 16711 (one more). */
    tbr_tile_buffers tb;
    tbr_pixel_format none = TBR_PF_NONE;
    CHECK(tbr_tile_init(&tb, 8, 2, 0, &none, TBR_PF_Z16_UNORM));
    tbr_tile_clear_zs(&tb, 1.0, 0);
    int xs[2] = {2, 4}, ys[2] = {0, 0};
    unsigned masks[2] = {0xf, 0xf};
    tbr_tile_ds_z16_fast_batch(&tb, TBR_FUNC_LESS, 0.25f, 0.001f, 0.0f, xs, ys, masks, 2);
    CHECK_EQ_U(masks[0], 0xf);
    CHECK_EQ_U(masks[1], 0xf);
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 2, 0), 16514);
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 3, 0), 16580);
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 4, 0), 16644);
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 5, 0), 16710);
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 4, 1), 16644); /* dzdy = 0 */
    /* same quads through the fallback */
    tbr_tile_clear_zs(&tb, 1.0, 0);
    memset(&st, 0, sizeof st);
    st.depth_enabled = st.depth_writemask = true;
    st.depth_func = TBR_FUNC_LESS;
    tbr_ds_quad fq = {.mask = 0xf};
    tbr_interpolate_quad_depth(0.25f, 0.001f, 0.0f, 4, 0, fq.z);
    CHECK_EQ_U(tbr_tile_ds_quad(&tb, &st, 4, 0, &fq), 0xf);
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 4, 0), 16645);
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 5, 0), 16711);
    tbr_tile_free(&tb);

    /* alpha test (same stage): GEQUAL 0.5 on alphas 0.25, 0.5, 0.75, NaN -> 0b0110 */
    memset(&st, 0, sizeof st);
    st.alpha_enabled = true;
    st.alpha_func = TBR_FUNC_GEQUAL;
    st.alpha_ref = 0.5f;
    const float alphas[4] = {0.25f, 0.5f, 0.75f, NAN};
    tbr_ds_quad aq = {.mask = 0xf, .alpha = alphas};
    CHECK_EQ_U(tbr_ds_test_quad(&st, TBR_PF_NONE, false, &aq, zs), 0x6);
}

/* ------------------------------------------------------------------------------ */
static void test_stencil(void)
{
    /* ops with full write mask */
    CHECK_EQ_U(tbr_stencil_apply_op(TBR_STENCIL_OP_INCR, 255, 0, 0xff), 255);    /* saturate */
    CHECK_EQ_U(tbr_stencil_apply_op(TBR_STENCIL_OP_INCR_WRAP, 255, 0, 0xff), 0); /* wrap */
    CHECK_EQ_U(tbr_stencil_apply_op(TBR_STENCIL_OP_DECR, 0, 0, 0xff), 0);
    CHECK_EQ_U(tbr_stencil_apply_op(TBR_STENCIL_OP_DECR_WRAP, 0, 0, 0xff), 255);
    CHECK_EQ_U(tbr_stencil_apply_op(TBR_STENCIL_OP_INCR, 7, 0, 0xff), 8);
    CHECK_EQ_U(tbr_stencil_apply_op(TBR_STENCIL_OP_INVERT, 0x5a, 0, 0xff), 0xa5);
    CHECK_EQ_U(tbr_stencil_apply_op(TBR_STENCIL_OP_REPLACE, 0x5a, 0x33, 0xff), 0x33);
    CHECK_EQ_U(tbr_stencil_apply_op(TBR_STENCIL_OP_ZERO, 0x5a, 0x33, 0xff), 0);
    CHECK_EQ_U(tbr_stencil_apply_op(TBR_STENCIL_OP_KEEP, 0x5a, 0x33, 0xff), 0x5a);
    /* write mask 0x0f: INVERT 0x5a -> (0x0f & 0xa5) | (0xf0 & 0x5a) = 0x05 | 0x50 */
    CHECK_EQ_U(tbr_stencil_apply_op(TBR_STENCIL_OP_INVERT, 0x5a, 0, 0x0f), 0x55);
    /* INCR_WRAP 0xff with mask 0x0f: new 0x00 -> (0x00 & 0x0f) | (0xf0 & 0xff) = 0xf0 */
    CHECK_EQ_U(tbr_stencil_apply_op(TBR_STENCIL_OP_INCR_WRAP, 0xff, 0, 0x0f), 0xf0);
    /* compare: ref on the left, both masked */
    CHECK(tbr_stencil_compare(TBR_FUNC_LESS, 3, 5, 0xff));  /* 3 < 5 */
    CHECK(!tbr_stencil_compare(TBR_FUNC_LESS, 3, 5, 0x01)); /* 1 < 1 false */
    CHECK(tbr_stencil_compare(TBR_FUNC_EQUAL, 3, 5, 0x01)); /* 1 == 1 */
    CHECK(tbr_stencil_compare(TBR_FUNC_GREATER, 0x80, 0x7f, 0xff));

    /* full quad with two-sided stencil on Z24S8:
     * front: func EQUAL ref 1, fail ZERO, zfail INCR, zpass REPLACE(ref 1)...
     * back:  func ALWAYS, zpass INCR_WRAP, ref 9
     * buffer: depth 0.5 (8388608) stencil {1, 2, 1, 1}; z = {0.25, 0.25, 0.75, 0.25}
     * front-facing quad: p0: st pass, z pass -> REPLACE 1; p1: st fail -> ZERO;
     *                    p2: st pass, z fail -> INCR 1->2; p3: not covered.
     * mask -> 0x1 */
    tbr_dsa_state st;
    memset(&st, 0, sizeof st);
    st.depth_enabled = true;
    st.depth_writemask = true;
    st.depth_func = TBR_FUNC_LESS;
    st.stencil[0] = (tbr_stencil_face){
        true, TBR_FUNC_EQUAL, TBR_STENCIL_OP_ZERO, TBR_STENCIL_OP_INCR, TBR_STENCIL_OP_REPLACE, 0xff, 0xff};
    st.stencil[1] = (tbr_stencil_face){
        true, TBR_FUNC_ALWAYS, TBR_STENCIL_OP_KEEP, TBR_STENCIL_OP_KEEP, TBR_STENCIL_OP_INCR_WRAP, 0xff, 0xff};
    st.stencil_ref[0] = 1;
    st.stencil_ref[1] = 9;
    uint64_t zs[4] = {0x01800000, 0x02800000, 0x01800000, 0x01800000};
    tbr_ds_quad q = {.mask = 0x7, .z = {0.25f, 0.25f, 0.75f, 0.25f}};
    unsigned m = tbr_ds_test_quad(&st, TBR_PF_Z24_UNORM_S8_UINT, true, &q, zs);
    CHECK_EQ_U(m, 0x1);
    CHECK_EQ_U(zs[0], 0x01000000 | 4194303); /* depth written (0.25) stencil 1 */
    CHECK_EQ_U(zs[1], 0x00800000);           /* stencil zeroed, depth kept */
    CHECK_EQ_U(zs[2], 0x02800000);           /* zfail INCR */
    CHECK_EQ_U(zs[3], 0x01800000);           /* not covered */
    /* back-facing: all pass ALWAYS; z: 0.25 vs 0.25 (4194303 < 4194303 false) -> zfail KEEP;
     * pixel 1: 4194303 < 8388608 pass -> INCR_WRAP 0 -> 1. */
    q.facing_back = true;
    q.mask = 0x3;
    m = tbr_ds_test_quad(&st, TBR_PF_Z24_UNORM_S8_UINT, true, &q, zs);
    CHECK_EQ_U(m, 0x2);
    CHECK_EQ_U(zs[0], 0x01000000 | 4194303);
    CHECK_EQ_U(zs[1], 0x01000000 | 4194303);
    /* if stencil[1] is disabled, back faces use the front state */
    st.stencil[1].enabled = false;
    zs[0] = 0x05800000;
    q.mask = 0x1;
    m = tbr_ds_test_quad(&st, TBR_PF_Z24_UNORM_S8_UINT, true, &q, zs);
    CHECK_EQ_U(m, 0); /* EQUAL 1 vs 5 fails -> ZERO */
    CHECK_EQ_U(zs[0], 0x00800000);
    /* stencil without depth test: zpass op applies to stencil-passing pixels; S8X24 */
    memset(&st, 0, sizeof st);
    st.stencil[0] = (tbr_stencil_face){
        true, TBR_FUNC_NOTEQUAL, TBR_STENCIL_OP_KEEP, TBR_STENCIL_OP_KEEP, TBR_STENCIL_OP_DECR_WRAP, 0xff, 0xff};
    st.stencil_ref[0] = 3;
    uint64_t z8[4] = {0x3f000000ull | (3ull << 32), 0x3f000000ull | (0ull << 32), 0, 0};
    tbr_ds_quad q8 = {.mask = 0x3};
    m = tbr_ds_test_quad(&st, TBR_PF_Z32_FLOAT_S8X24_UINT, true, &q8, z8);
    CHECK_EQ_U(m, 0x2);
    CHECK_EQ_U(z8[0], 0x3f000000ull | (3ull << 32));
    CHECK_EQ_U(z8[1], 0x3f000000ull | (255ull << 32)); /* 0 - 1 wraps */
    /* names */
    CHECK_EQ_U(tbr_stencil_op_from_name("PIPE_STENCIL_OP_INCR_WRAP"), TBR_STENCIL_OP_INCR_WRAP);
    CHECK_EQ_U(tbr_compare_func_from_name("PIPE_FUNC_GEQUAL"), TBR_FUNC_GEQUAL);
    CHECK(tbr_compare_func_from_name("bogus") == -1);
}

/* ------------------------------------------------------------------------------ */
/* One blend through the fallback with rgb and alpha factors/func given. */
static void blend1(tbr_blend_factor sf, tbr_blend_factor df, tbr_blend_func fn, const float s[4], const float d[4],
                   float out[4])
{
    tbr_blend_state bs;
    memset(&bs, 0, sizeof bs);
    bs.rt[0] = (tbr_rt_blend_state){true, fn, fn, sf, df, sf, df, 0xf};
    bs.blend_color[0] = 0.25f;
    bs.blend_color[1] = 0.5f;
    bs.blend_color[2] = 0.75f;
    bs.blend_color[3] = 0.125f;
    /* R32G32B32A32_FLOAT: no clamping, so the raw blend arithmetic is visible */
    tbr_blend_pixel(&bs, TBR_BLEND_PATH_FALLBACK, 0, TBR_PF_R32G32B32A32_FLOAT, s, NULL, d, out);
}

/* The blend tests' operands: src S = (0.75, 0.5, 0.25, 0.5), dst D = (0.5, 0.25, 1.0, 0.25),
 * const K = (0.25, 0.5, 0.75, 0.125) (set by blend1); all products below are exact in float. */
static const float S[4] = {0.75f, 0.5f, 0.25f, 0.5f}, D[4] = {0.5f, 0.25f, 1.0f, 0.25f};

/* Source factors: with dst factor ZERO and ADD, out = S * srcfactor. */
static void test_blend_src_factors(void)
{
    float out[4];
    struct {
        tbr_blend_factor f;
        float rgba[4]; /* S * factor (rgb with the rgb factor, a with the alpha version) */
    } srcf[] = {
        {TBR_BF_ONE, {0.75f, 0.5f, 0.25f, 0.5f}},
        {TBR_BF_ZERO, {0, 0, 0, 0}},
        {TBR_BF_SRC_COLOR, {0.5625f, 0.25f, 0.0625f, 0.25f}},   /* S*S; a: Sa*Sa */
        {TBR_BF_SRC_ALPHA, {0.375f, 0.25f, 0.125f, 0.25f}},     /* S*0.5 */
        {TBR_BF_DST_COLOR, {0.375f, 0.125f, 0.25f, 0.125f}},    /* S*D; a: 0.5*0.25 */
        {TBR_BF_DST_ALPHA, {0.1875f, 0.125f, 0.0625f, 0.125f}}, /* S*0.25 */
        /* min(Sa, 1-Da) = min(0.5, 0.75) = 0.5 for rgb; alpha factor is 1 */
        {TBR_BF_SRC_ALPHA_SATURATE, {0.375f, 0.25f, 0.125f, 0.5f}},
        {TBR_BF_CONST_COLOR, {0.1875f, 0.25f, 0.1875f, 0.0625f}},         /* S*K; a: 0.5*0.125 */
        {TBR_BF_CONST_ALPHA, {0.09375f, 0.0625f, 0.03125f, 0.0625f}},     /* S*0.125 */
        {TBR_BF_INV_SRC_COLOR, {0.1875f, 0.25f, 0.1875f, 0.25f}},         /* S*(1-S); a: 0.5*0.5 */
        {TBR_BF_INV_SRC_ALPHA, {0.375f, 0.25f, 0.125f, 0.25f}},           /* S*0.5 */
        {TBR_BF_INV_DST_COLOR, {0.375f, 0.375f, 0.0f, 0.375f}},           /* S*(1-D); a: 0.5*0.75 */
        {TBR_BF_INV_DST_ALPHA, {0.5625f, 0.375f, 0.1875f, 0.375f}},       /* S*0.75 */
        {TBR_BF_INV_CONST_COLOR, {0.5625f, 0.25f, 0.0625f, 0.4375f}},     /* S*(1-K); a: 0.5*0.875 */
        {TBR_BF_INV_CONST_ALPHA, {0.65625f, 0.4375f, 0.21875f, 0.4375f}}, /* S*0.875 */
    };
    for (size_t i = 0; i < sizeof srcf / sizeof srcf[0]; i++) {
        blend1(srcf[i].f, TBR_BF_ZERO, TBR_BLEND_ADD, S, D, out);
        for (int c = 0; c < 4; c++) {
            if (memcmp(&out[c], &srcf[i].rgba[c], 4)) {
                fprintf(stderr, "src factor 0x%x chan %d: %.9g expected %.9g\n", srcf[i].f, c, (double)out[c],
                        (double)srcf[i].rgba[c]);
                failures++;
            }
        }
    }
}

/* Destination factors: with src factor ZERO and ADD, out = D * dstfactor. */
static void test_blend_dst_factors(void)
{
    float out[4];
    /* dst factors with src factor ZERO: out = D * factor */
    struct {
        tbr_blend_factor f;
        float rgba[4];
    } dstf[] = {
        {TBR_BF_ONE, {0.5f, 0.25f, 1.0f, 0.25f}},
        {TBR_BF_SRC_COLOR, {0.375f, 0.125f, 0.25f, 0.125f}},       /* D*S; a: Da*Sa */
        {TBR_BF_SRC_ALPHA, {0.25f, 0.125f, 0.5f, 0.125f}},         /* D*0.5 */
        {TBR_BF_DST_COLOR, {0.25f, 0.0625f, 1.0f, 0.0625f}},       /* D*D */
        {TBR_BF_DST_ALPHA, {0.125f, 0.0625f, 0.25f, 0.0625f}},     /* D*0.25 */
        {TBR_BF_SRC_ALPHA_SATURATE, {0.25f, 0.125f, 0.5f, 0.25f}}, /* D*0.5; a: D*1 */
        {TBR_BF_CONST_COLOR, {0.125f, 0.125f, 0.75f, 0.03125f}},
        {TBR_BF_CONST_ALPHA, {0.0625f, 0.03125f, 0.125f, 0.03125f}},
        {TBR_BF_INV_SRC_COLOR, {0.125f, 0.125f, 0.75f, 0.125f}}, /* D*(1-S) */
        {TBR_BF_INV_SRC_ALPHA, {0.25f, 0.125f, 0.5f, 0.125f}},
        {TBR_BF_INV_DST_COLOR, {0.25f, 0.1875f, 0.0f, 0.1875f}},     /* D*(1-D) */
        {TBR_BF_INV_DST_ALPHA, {0.375f, 0.1875f, 0.75f, 0.1875f}},   /* D*0.75 */
        {TBR_BF_INV_CONST_COLOR, {0.375f, 0.125f, 0.25f, 0.21875f}}, /* D*(1-K) */
        {TBR_BF_INV_CONST_ALPHA, {0.4375f, 0.21875f, 0.875f, 0.21875f}},
    };
    for (size_t i = 0; i < sizeof dstf / sizeof dstf[0]; i++) {
        blend1(TBR_BF_ZERO, dstf[i].f, TBR_BLEND_ADD, S, D, out);
        for (int c = 0; c < 4; c++) {
            if (memcmp(&out[c], &dstf[i].rgba[c], 4)) {
                fprintf(stderr, "dst factor 0x%x chan %d: %.9g expected %.9g\n", dstf[i].f, c, (double)out[c],
                        (double)dstf[i].rgba[c]);
                failures++;
            }
        }
    }
}

/* Blend functions with ONE, ONE (and SRC_ALPHA, ONE for MIN/MAX) on S, D. */
static void test_blend_funcs(void)
{
    float out[4];
    /* funcs with ONE, ONE on S, D */
    blend1(TBR_BF_ONE, TBR_BF_ONE, TBR_BLEND_ADD, S, D, out); /* S+D */
    CHECK_EQ_F(out[0], 1.25f);
    CHECK_EQ_F(out[2], 1.25f);
    CHECK_EQ_F(out[3], 0.75f);
    blend1(TBR_BF_ONE, TBR_BF_ONE, TBR_BLEND_SUBTRACT, S, D, out); /* S-D */
    CHECK_EQ_F(out[0], 0.25f);
    CHECK_EQ_F(out[2], -0.75f);
    CHECK_EQ_F(out[3], 0.25f);
    blend1(TBR_BF_ONE, TBR_BF_ONE, TBR_BLEND_REVERSE_SUBTRACT, S, D, out); /* D-S */
    CHECK_EQ_F(out[0], -0.25f);
    CHECK_EQ_F(out[2], 0.75f);
    CHECK_EQ_F(out[3], -0.25f);
    /* MIN/MAX ignore... no: softpipe applies the factors before MIN/MAX.
     * SRC_ALPHA/ONE MIN: src term R = 0.375, dst term 0.5 -> 0.375 */
    blend1(TBR_BF_SRC_ALPHA, TBR_BF_ONE, TBR_BLEND_MIN, S, D, out);
    CHECK_EQ_F(out[0], 0.375f);
    CHECK_EQ_F(out[1], 0.25f);
    CHECK_EQ_F(out[2], 0.125f);
    CHECK_EQ_F(out[3], 0.25f); /* min(0.5*0.5, 0.25) */
    blend1(TBR_BF_SRC_ALPHA, TBR_BF_ONE, TBR_BLEND_MAX, S, D, out);
    CHECK_EQ_F(out[0], 0.5f);
    CHECK_EQ_F(out[1], 0.25f);
    CHECK_EQ_F(out[2], 1.0f);
    CHECK_EQ_F(out[3], 0.25f);
}

/* Separate RGB/alpha state, and the clamps of unorm targets (source, output, constant color). */
static void test_blend_clamping(void)
{
    float out[4];
    /* separate RGB / alpha + clamping on a unorm target:
     * rgb: SRC_ALPHA, INV_SRC_ALPHA, ADD; alpha: ONE, ONE, ADD on BGRA8
     * S = (1.5, -0.5, 0.25, 0.5) is clamped first -> (1.0, 0, 0.25, 0.5)
     * R = 1*0.5 + 0.5*0.5 = 0.75 ; G = 0 + 0.125 = 0.125 ; B = 0.125 + 0.5 = 0.625
     * A = 0.5 + 0.25 = 0.75 */
    tbr_blend_state bs;
    memset(&bs, 0, sizeof bs);
    bs.rt[0] = (tbr_rt_blend_state){
        true, TBR_BLEND_ADD, TBR_BLEND_ADD, TBR_BF_SRC_ALPHA, TBR_BF_INV_SRC_ALPHA, TBR_BF_ONE, TBR_BF_ONE, 0xf};
    tbr_pixel_format bgra = TBR_PF_B8G8R8A8_UNORM;
    tbr_blend_path path = tbr_blend_choose_path(&bs, 1, &bgra);
    CHECK_EQ_U(path, TBR_BLEND_PATH_FALLBACK);
    const float S2[4] = {1.5f, -0.5f, 0.25f, 0.5f};
    tbr_blend_pixel(&bs, path, 0, bgra, S2, NULL, D, out);
    CHECK_EQ_F(out[0], 0.75f);
    CHECK_EQ_F(out[1], 0.125f);
    CHECK_EQ_F(out[2], 0.625f);
    CHECK_EQ_F(out[3], 0.75f);
    /* output clamp: ONE/ONE ADD on unorm: 0.75+0.5 = 1.25 -> 1.0 */
    bs.rt[0] =
        (tbr_rt_blend_state){true, TBR_BLEND_ADD, TBR_BLEND_ADD, TBR_BF_ONE, TBR_BF_ONE, TBR_BF_ONE, TBR_BF_ONE, 0xf};
    path = tbr_blend_choose_path(&bs, 1, &bgra);
    CHECK_EQ_U(path, TBR_BLEND_PATH_ADD_ONE_ONE);
    tbr_blend_pixel(&bs, path, 0, bgra, S, NULL, D, out);
    CHECK_EQ_F(out[0], 1.0f);
    CHECK_EQ_F(out[1], 0.75f);
    CHECK_EQ_F(out[2], 1.0f);
    CHECK_EQ_F(out[3], 0.75f);
    /* constant color is clamped for unorm targets: K = (2, -1, 0.5, 0.5) -> (1, 0, .5, .5)
     * CONST_COLOR, ZERO: S*K = (0.75, 0, 0.125, 0.25) */
    bs.rt[0] = (tbr_rt_blend_state){true,        TBR_BLEND_ADD,      TBR_BLEND_ADD, TBR_BF_CONST_COLOR,
                                    TBR_BF_ZERO, TBR_BF_CONST_COLOR, TBR_BF_ZERO,   0xf};
    bs.blend_color[0] = 2.0f;
    bs.blend_color[1] = -1.0f;
    bs.blend_color[2] = 0.5f;
    bs.blend_color[3] = 0.5f;
    tbr_blend_pixel(&bs, TBR_BLEND_PATH_FALLBACK, 0, bgra, S, NULL, D, out);
    CHECK_EQ_F(out[0], 0.75f);
    CHECK_EQ_F(out[1], 0.0f);
    CHECK_EQ_F(out[2], 0.125f);
    CHECK_EQ_F(out[3], 0.25f);
    /* float target: not clamped: (1.5, -0.5, 0.125, 0.25) */
    tbr_blend_pixel(&bs, TBR_BLEND_PATH_FALLBACK, 0, TBR_PF_R32G32B32A32_FLOAT, S, NULL, D, out);
    CHECK_EQ_F(out[0], 1.5f);
    CHECK_EQ_F(out[1], -0.5f);
}

/* Blending disabled: the paths, colormask, and the alpha of formats without alpha. */
static void test_blend_disabled(void)
{
    float out[4];
    tbr_pixel_format bgra = TBR_PF_B8G8R8A8_UNORM;
    const float S2[4] = {1.5f, -0.5f, 0.25f, 0.5f};
    /* blending disabled: single_output_color keeps 1.5 in the tile (no clamp), while the
     * fallback (taken when colormask != 0xf) clamps the incoming color to 1.0 */
    tbr_blend_state bs;
    memset(&bs, 0, sizeof bs);
    bs.rt[0].colormask = 0xf;
    tbr_blend_path path = tbr_blend_choose_path(&bs, 1, &bgra);
    CHECK_EQ_U(path, TBR_BLEND_PATH_SINGLE_OUTPUT);
    tbr_blend_pixel(&bs, path, 0, bgra, S2, NULL, D, out);
    CHECK_EQ_F(out[0], 1.5f);
    CHECK_EQ_F(out[1], -0.5f);
    bs.rt[0].colormask = TBR_MASK_R | TBR_MASK_G | TBR_MASK_A; /* B masked */
    path = tbr_blend_choose_path(&bs, 1, &bgra);
    CHECK_EQ_U(path, TBR_BLEND_PATH_FALLBACK);
    tbr_blend_pixel(&bs, path, 0, bgra, S2, NULL, D, out);
    CHECK_EQ_F(out[0], 1.0f);
    CHECK_EQ_F(out[1], 0.0f);
    CHECK_EQ_F(out[2], 1.0f /* D */);
    CHECK_EQ_F(out[3], 0.5f);
    /* formats without alpha: A forced to 1 in the tile (rebase), even if masked */
    tbr_pixel_format bgrx = TBR_PF_B8G8R8X8_UNORM;
    bs.rt[0].colormask = 0xf;
    tbr_blend_pixel(&bs, TBR_BLEND_PATH_SINGLE_OUTPUT, 0, bgrx, S, NULL, D, out);
    CHECK_EQ_F(out[3], 1.0f);
    /* ... so DST_ALPHA reads 1 afterwards: SRC=DST_ALPHA -> S*1 */
    bs.rt[0] = (tbr_rt_blend_state){true,        TBR_BLEND_ADD, TBR_BLEND_ADD, TBR_BF_DST_ALPHA,
                                    TBR_BF_ZERO, TBR_BF_ONE,    TBR_BF_ZERO,   0xf};
    const float Dx[4] = {0.5f, 0.25f, 1.0f, 1.0f};
    tbr_blend_pixel(&bs, TBR_BLEND_PATH_FALLBACK, 0, bgrx, S, NULL, Dx, out);
    CHECK_EQ_F(out[0], 0.75f);
    CHECK_EQ_F(out[3], 1.0f);
}

/* Logic op XOR on bytes, and the names of factors, functions and logic ops. */
static void test_blend_logicop_and_names(void)
{
    float out[4];
    /* logic op XOR on bytes: S=(0.75->191, 0.5->128, 0.25->64, 0.5->128)
     * D=(0.5->128, 0.25->64, 1->255, 0.25->64): 191^128=63, 128^64=192, 64^255=191,
     * 128^64=192 -> ubyte_to_float */
    tbr_blend_state bs;
    memset(&bs, 0, sizeof bs);
    bs.logicop_enable = true;
    bs.logicop_func = TBR_LOGICOP_XOR;
    bs.rt[0].colormask = 0xf;
    tbr_pixel_format rgba = TBR_PF_R8G8B8A8_UNORM;
    tbr_blend_path path = tbr_blend_choose_path(&bs, 1, &rgba);
    CHECK_EQ_U(path, TBR_BLEND_PATH_FALLBACK);
    tbr_blend_pixel(&bs, path, 0, rgba, S, NULL, D, out);
    CHECK_EQ_F(out[0], tbr_ubyte_to_float(63));
    CHECK_EQ_F(out[1], tbr_ubyte_to_float(192));
    CHECK_EQ_F(out[2], tbr_ubyte_to_float(191));
    CHECK_EQ_F(out[3], tbr_ubyte_to_float(192));
    /* names */
    CHECK_EQ_U(tbr_blend_factor_from_name("PIPE_BLENDFACTOR_INV_SRC_ALPHA"), TBR_BF_INV_SRC_ALPHA);
    CHECK_EQ_U(tbr_blend_factor_from_name("ZERO"), TBR_BF_ZERO);
    CHECK_EQ_U(tbr_blend_func_from_name("PIPE_BLEND_REVERSE_SUBTRACT"), TBR_BLEND_REVERSE_SUBTRACT);
    CHECK_EQ_U(tbr_logicop_from_name("PIPE_LOGICOP_XOR"), TBR_LOGICOP_XOR);
    CHECK(tbr_blend_factor_from_name("PIPE_BLENDFACTOR_BOGUS") == -1);
}

static void test_blend(void)
{
    test_blend_src_factors();
    test_blend_dst_factors();
    test_blend_funcs();
    test_blend_clamping();
    test_blend_disabled();
    test_blend_logicop_and_names();
}

/* The fast paths must agree with blend_fallback bit for bit (random inputs). */
static uint32_t rng_state = 12345;
static float rndf(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (float)((rng_state >> 8) & 0xffff) / 65536.0f * 1.5f - 0.25f; /* [-0.25, 1.25) */
}

static void test_fastpaths(void)
{
    const tbr_pixel_format fmts[] = {TBR_PF_B8G8R8A8_UNORM, TBR_PF_B8G8R8X8_UNORM, TBR_PF_R5G6B5_UNORM,
                                     TBR_PF_R16G16B16A16_FLOAT};
    const tbr_blend_factor pairs[2][2] = {{TBR_BF_ONE, TBR_BF_ONE}, {TBR_BF_SRC_ALPHA, TBR_BF_INV_SRC_ALPHA}};
    for (size_t fi = 0; fi < 4; fi++) {
        for (int p = 0; p < 2; p++) {
            tbr_blend_state bs;
            memset(&bs, 0, sizeof bs);
            bs.rt[0] = (tbr_rt_blend_state){true,        TBR_BLEND_ADD, TBR_BLEND_ADD, pairs[p][0],
                                            pairs[p][1], pairs[p][0],   pairs[p][1],   0xf};
            tbr_blend_path fast = tbr_blend_choose_path(&bs, 1, &fmts[fi]);
            CHECK_EQ_U(fast, p ? TBR_BLEND_PATH_ADD_SRCA_INVSRCA : TBR_BLEND_PATH_ADD_ONE_ONE);
            for (int i = 0; i < 20000; i++) {
                float s[4], d[4], a[4], b[4];
                for (int c = 0; c < 4; c++) {
                    s[c] = rndf();
                    d[c] = rndf();
                }
                tbr_blend_pixel(&bs, fast, 0, fmts[fi], s, NULL, d, a);
                tbr_blend_pixel(&bs, TBR_BLEND_PATH_FALLBACK, 0, fmts[fi], s, NULL, d, b);
                if (memcmp(a, b, sizeof a)) {
                    failures++;
                    fprintf(stderr, "fast path %d differs from fallback (fmt %zu)\n", p, fi);
                    break;
                }
            }
        }
    }
}

/* The row converters (tile loads and stores: constant-shift paths for the 8-bit RGBA /
 * BGRA formats, a generic one for the others) give bit for bit what the per-pixel
 * tbr_unpack_rgba_float / tbr_pack_rgba_float give, for every color format. */
static void test_row_conversions(void)
{
    enum { N = 67 }; /* not a multiple of a vector width */
    for (int f = TBR_PF_NONE + 1; f < TBR_PF_COUNT; f++) {
        const tbr_format_info *info = tbr_format_get_info((tbr_pixel_format)f);
        if (!info || !info->is_color) continue;
        uint8_t bytes[N * 16], packed_row[N * 16], packed_px[N * 16];
        float row[N * 4], px[N * 4], in[N * 4];
        for (int rep = 0; rep < 50; rep++) {
            for (size_t i = 0; i < sizeof bytes; i++) {
                rng_state = rng_state * 1103515245u + 12345u;
                bytes[i] = (uint8_t)(rng_state >> 16);
            }
            if (f == TBR_PF_R32G32B32A32_FLOAT || f == TBR_PF_R16G16B16A16_FLOAT) /* no NaN payloads */
                for (int i = 0; i < N * 4; i++) {
                    float v = rndf();
                    if (f == TBR_PF_R32G32B32A32_FLOAT)
                        memcpy(bytes + 4 * i, &v, 4);
                    else {
                        uint16_t h = tbr_float_to_half_rtz(v);
                        memcpy(bytes + 2 * i, &h, 2);
                    }
                }
            CHECK(tbr_unpack_rgba_float_row((tbr_pixel_format)f, bytes, N, row));
            for (int i = 0; i < N; i++)
                tbr_unpack_rgba_float((tbr_pixel_format)f, bytes + (size_t)i * info->bytes, px + 4 * i);
            if (memcmp(row, px, sizeof row)) {
                failures++;
                fprintf(stderr, "unpack row differs from per-pixel unpack (%s)\n", info->name);
                break;
            }
            static const float special[] = {0.0f,   1.0f,          -0.0f,           NAN,         INFINITY,  -INFINITY,
                                            1e-40f, 0.5f / 255.0f, 254.5f / 255.0f, 0.99999994f, 1.0000001f};
            for (int i = 0; i < N * 4; i++) /* incl. the ends, NaN, infinities, a denormal */
                in[i] = (i % 7 == 0) ? special[(i / 7 + rep) % (sizeof special / sizeof special[0])] : rndf();
            memset(packed_row, 0, sizeof packed_row);
            memset(packed_px, 0, sizeof packed_px);
            CHECK(tbr_pack_rgba_float_row((tbr_pixel_format)f, in, N, packed_row));
            for (int i = 0; i < N; i++)
                tbr_pack_rgba_float((tbr_pixel_format)f, in + 4 * i, packed_px + (size_t)i * info->bytes);
            if (memcmp(packed_row, packed_px, (size_t)N * info->bytes)) {
                failures++;
                fprintf(stderr, "pack row differs from per-pixel pack (%s)\n", info->name);
                break;
            }
        }
    }
}

/* ------------------------------------------------------------------------------ */
static void test_tile(void)
{
    /* clear -> store -> load round trip on a 32x32 BGRA8 tile placed at (32, 0) of a
     * 48x40 surface (partially outside: only 16x32 pixels are stored). */
    tbr_pixel_format f = TBR_PF_B8G8R8A8_UNORM;
    tbr_tile_buffers tb;
    CHECK(tbr_tile_init(&tb, TBR_TILE_DEFAULT_W, TBR_TILE_DEFAULT_H, 1, &f, TBR_PF_Z24_UNORM_S8_UINT));
    tbr_tile_set_origin(&tb, 32, 0);
    const float cc[4] = {0.3f, 0.6f, 0.9f, 0.5f};
    tbr_tile_clear_color(&tb, 0, cc);
    /* the tile holds the raw float clear color, not the packed one */
    CHECK_EQ_F(tbr_tile_color_at(&tb, 0, 5, 5)[0], 0.3f);
    uint8_t mem[48 * 40 * 4];
    memset(mem, 0xab, sizeof mem);
    tbr_surface s = {f, 48, 40, 48 * 4, mem};
    CHECK(tbr_tile_store_color(&tb, 0, &s));
    /* bytes B,G,R,A = float_to_ubyte(0.9, 0.6, 0.3, 0.5) = 230, 153, 76, 128 */
    const uint8_t *p = mem + (size_t)3 * 48 * 4 + 40 * 4;
    CHECK_EQ_U(p[0], 230);
    CHECK_EQ_U(p[1], 153);
    CHECK_EQ_U(p[2], 76);
    CHECK_EQ_U(p[3], 128);
    CHECK_EQ_U(mem[31 * 4], 0xab);                       /* left of the tile: untouched */
    CHECK_EQ_U(mem[(size_t)31 * 48 * 4 + 47 * 4], 230);  /* last pixel of the tile in the surface */
    CHECK_EQ_U(mem[(size_t)32 * 48 * 4 + 47 * 4], 0xab); /* below the tile: untouched */
    /* reload into a fresh tile: 76/255 etc. (NOT 0.3) */
    tbr_tile_buffers tb2;
    CHECK(tbr_tile_init(&tb2, 32, 32, 1, &f, TBR_PF_NONE));
    tbr_tile_set_origin(&tb2, 32, 0);
    CHECK(tbr_tile_load_color(&tb2, 0, &s));
    float *c = tbr_tile_color_at(&tb2, 0, 8, 3);
    CHECK_EQ_F(c[0], 76 * (1.0f / 255.0f));
    CHECK_EQ_F(c[2], 230 * (1.0f / 255.0f));
    CHECK(c[0] != 0.3f);
    /* requantize = store + load */
    tbr_tile_requantize_color(&tb, 0);
    CHECK(memcmp(tbr_tile_color_at(&tb, 0, 8, 3), c, 16) == 0);
    /* -0.0 clear -> +0.0 (memset path) */
    const float nz[4] = {-0.0f, 0.0f, -0.0f, 0.0f};
    tbr_tile_clear_color(&tb, 0, nz);
    CHECK_EQ_F(tbr_tile_color_at(&tb, 0, 0, 0)[0], 0.0f);

    /* depth/stencil: clear, partial clears, raw store/load */
    tbr_tile_clear_zs(&tb, 0.5, 0x12);
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 1, 1), 0x12800000);
    tbr_tile_clear_zs_masked(&tb, false, true, 1.0, 0x34); /* stencil only */
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 1, 1), 0x34800000);
    tbr_tile_clear_zs_masked(&tb, true, false, 1.0, 0x56); /* depth only */
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 1, 1), 0x34ffffff);
    uint32_t zmem[48 * 40];
    memset(zmem, 0, sizeof zmem);
    tbr_surface zs = {TBR_PF_Z24_UNORM_S8_UINT, 48, 40, 48 * 4, (uint8_t *)zmem};
    CHECK(tbr_tile_store_zs(&tb, &zs));
    CHECK_EQ_U(zmem[2 * 48 + 33], 0x34ffffff);
    CHECK_EQ_U(zmem[2 * 48 + 31], 0);
    tbr_tile_clear_zs(&tb, 0.0, 0);
    CHECK(tbr_tile_load_zs(&tb, &zs));
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 4, 4), 0x34ffffff);
    /* a run of clears composed into one word operation (sim_func_render_tile) equals the
     * clears applied one by one: here on a tile with distinct words */
    {
        static const struct {
            bool d, s;
            double z;
            uint8_t st;
        } seq[] = {{true, false, 0.25, 0x77},
                   {false, true, 0.0, 0x9a},
                   {true, false, 0.75, 0x01},
                   {true, true, 0.125, 0x42},
                   {false, true, 1.0, 0xc3}};
        for (size_t run = 1; run <= sizeof seq / sizeof seq[0]; run++) {
            for (int y = 0; y < 32; y++)
                for (int x = 0; x < 32; x++) *tbr_tile_zs_at(&tb, x, y) = 0x9e3779b9u * (uint32_t)(y * 32 + x + 1);
            tbr_tile_buffers one;
            CHECK(tbr_tile_init(&one, 32, 32, 1, &f, TBR_PF_Z24_UNORM_S8_UINT));
            memcpy(tbr_tile_zs_at(&one, 0, 0), tbr_tile_zs_at(&tb, 0, 0), 32 * 32 * sizeof(uint64_t));
            uint64_t cm = 0, cv = 0;
            for (size_t k = 0; k < run; k++) {
                uint64_t m, v;
                CHECK(tbr_tile_zs_clear_op(&tb, seq[k].d, seq[k].s, seq[k].z, seq[k].st, &m, &v));
                cv = (cv & ~m) | v;
                cm |= m;
                tbr_tile_clear_zs_masked(&one, seq[k].d, seq[k].s, seq[k].z, seq[k].st);
            }
            tbr_tile_zs_apply(&tb, cm, cv);
            CHECK(memcmp(tbr_tile_zs_at(&one, 0, 0), tbr_tile_zs_at(&tb, 0, 0), 32 * 32 * sizeof(uint64_t)) == 0);
            if (run == 3) CHECK(*tbr_tile_zs_at(&tb, 5, 5) >> 24 == 0x9a); /* stencil kept by the depth-only clears */
            tbr_tile_free(&one);
        }
    }

    /* 565 store/load round trip of a clear: (0.5, 0.5, 0.5) -> R 15.5+.5=16, G 31.5+.5=32,
     * B 16 -> 0x8410 ; reload R = 16*fl(1/31) = 0.516129017 */
    tbr_pixel_format f565 = TBR_PF_R5G6B5_UNORM;
    tbr_tile_buffers t5;
    CHECK(tbr_tile_init(&t5, 4, 4, 1, &f565, TBR_PF_NONE));
    const float half[4] = {0.5f, 0.5f, 0.5f, 0.5f};
    tbr_tile_clear_color(&t5, 0, half);
    uint16_t m565[16];
    tbr_surface s5 = {f565, 4, 4, 8, (uint8_t *)m565};
    CHECK(tbr_tile_store_color(&t5, 0, &s5));
    CHECK_EQ_U(m565[5], 0x8410);
    CHECK(tbr_tile_load_color(&t5, 0, &s5));
    CHECK_EQ_F(tbr_tile_color_at(&t5, 0, 1, 1)[0], 0.516129017f);
    CHECK_EQ_F(tbr_tile_color_at(&t5, 0, 1, 1)[3], 1.0f);
    tbr_tile_free(&t5);
    tbr_tile_free(&tb2);
    tbr_tile_free(&tb);

    CHECK(!tbr_tile_init(&tb, 0, 4, 1, &f, TBR_PF_NONE));

    /* rectangle variants (replaying softpipe's 64x64 tile events on an 8x8 tile at
     * (8, 8)): clear rect (10,10)-(13,13) only inside the tile; store the rect
     * (12,12,64,64) clipped to tile (to 16) and surface (to 14): pixels 12..13 */
    CHECK(tbr_tile_init(&tb, 8, 8, 1, &f, TBR_PF_NONE));
    tbr_tile_set_origin(&tb, 8, 8);
    const float one[4] = {1.0f, 1.0f, 1.0f, 1.0f}, zero4[4] = {0, 0, 0, 0};
    tbr_tile_clear_color(&tb, 0, zero4);
    tbr_tile_clear_color_rect(&tb, 0, one, 10, 10, 4, 4);
    CHECK_EQ_F(tbr_tile_color_at(&tb, 0, 2, 2)[0], 1.0f); /* screen (10,10) */
    CHECK_EQ_F(tbr_tile_color_at(&tb, 0, 5, 5)[0], 1.0f); /* screen (13,13) */
    CHECK_EQ_F(tbr_tile_color_at(&tb, 0, 6, 6)[0], 0.0f); /* screen (14,14) */
    CHECK_EQ_F(tbr_tile_color_at(&tb, 0, 1, 2)[0], 0.0f); /* screen (9,10) */
    uint8_t sm[14 * 14 * 4];
    memset(sm, 0x11, sizeof sm);
    tbr_surface ss = {f, 14, 14, 14 * 4, sm};
    CHECK(tbr_tile_store_color_rect(&tb, 0, &ss, 12, 12, 64, 64));
    CHECK_EQ_U(sm[(13 * 14 + 13) * 4], 255); /* (13,13) stored: white */
    CHECK_EQ_U(sm[(12 * 14 + 12) * 4], 255);
    CHECK_EQ_U(sm[(11 * 14 + 11) * 4], 0x11); /* outside the rect */
    /* requantize a rect: 0.3 -> 76/255 inside, raw 0.3 outside */
    const float c3[4] = {0.3f, 0.3f, 0.3f, 0.3f};
    tbr_tile_clear_color(&tb, 0, c3);
    tbr_tile_requantize_color_rect(&tb, 0, 8, 8, 2, 2);
    CHECK_EQ_F(tbr_tile_color_at(&tb, 0, 1, 1)[0], 76 * (1.0f / 255.0f));
    CHECK_EQ_F(tbr_tile_color_at(&tb, 0, 2, 2)[0], 0.3f);
    /* load rect from the surface: (12,12) is white again */
    CHECK(tbr_tile_load_color_rect(&tb, 0, &ss, 12, 12, 1, 1));
    CHECK_EQ_F(tbr_tile_color_at(&tb, 0, 4, 4)[0], 1.0f);
    CHECK_EQ_F(tbr_tile_color_at(&tb, 0, 5, 5)[0], 0.3f);
    tbr_tile_free(&tb);
}

/* ------------------------------------------------------------------------------ */
/* A small render on a 4x4 BGRA8 + Z24S8 tile, checked against hand-computed bytes:
 *  clear color (0, 0, 0, 1), depth 1.0, stencil 0
 *  A: quad (0,0) mask 0xF, z 0.5, color (1, 0, 0, 1), no blending, depth LESS + write
 *  B: quad (0,0) mask 0x3, z 0.25, color (0, 0, 1, 0.5), SRC_ALPHA/INV_SRC_ALPHA ADD
 *     top pixels: (0*0.5 + 1*0.5, 0, 1*0.5 + 0, 0.5*0.5 + 1*0.5) = (0.5, 0, 0.5, 0.75)
 *  C: quad (0,0) mask 0xC, z 0.75: fails LESS against 0.5 -> unchanged
 *  D: quad (2,2) mask 0x9, z 0.9, color (0.2, 0.4, 0.6, 0.8), ONE/ONE ADD
 *     pixels (2,2),(3,3): clear + color = (0.2, 0.4, 0.6, 1.8 -> clamped 1.0)
 *  bytes (B, G, R, A):
 *   (0,0),(1,0): B 128, G 0, R 128, A float_to_ubyte(0.75) = 191 (191.25)
 *   (0,1),(1,1): 0, 0, 255, 255
 *   (2,2),(3,3): float_to_ubyte(0.6f)=153, (0.4f)=102, (0.2f)=51, 255
 *   others: 0, 0, 0, 255 */
static void test_render(void)
{
    tbr_pixel_format f = TBR_PF_B8G8R8A8_UNORM;
    tbr_tile_buffers tb;
    CHECK(tbr_tile_init(&tb, 4, 4, 1, &f, TBR_PF_Z24_UNORM_S8_UINT));
    const float clear[4] = {0, 0, 0, 1};
    tbr_tile_clear_color(&tb, 0, clear);
    tbr_tile_clear_zs(&tb, 1.0, 0);

    tbr_dsa_state ds;
    memset(&ds, 0, sizeof ds);
    ds.depth_enabled = ds.depth_writemask = true;
    ds.depth_func = TBR_FUNC_LESS;
    tbr_blend_state opaque, alpha, add;
    memset(&opaque, 0, sizeof opaque);
    opaque.rt[0].colormask = 0xf;
    alpha = opaque;
    alpha.rt[0] = (tbr_rt_blend_state){true,
                                       TBR_BLEND_ADD,
                                       TBR_BLEND_ADD,
                                       TBR_BF_SRC_ALPHA,
                                       TBR_BF_INV_SRC_ALPHA,
                                       TBR_BF_SRC_ALPHA,
                                       TBR_BF_INV_SRC_ALPHA,
                                       0xf};
    add = opaque;
    add.rt[0] =
        (tbr_rt_blend_state){true, TBR_BLEND_ADD, TBR_BLEND_ADD, TBR_BF_ONE, TBR_BF_ONE, TBR_BF_ONE, TBR_BF_ONE, 0xf};

    struct {
        int x, y;
        unsigned mask;
        float z;
        float col[4];
        const tbr_blend_state *bs;
    } draws[] = {
        {0, 0, 0xf, 0.5f, {1, 0, 0, 1}, &opaque},
        {0, 0, 0x3, 0.25f, {0, 0, 1, 0.5f}, &alpha},
        {0, 0, 0xc, 0.75f, {0, 1, 0, 1}, &opaque},
        {2, 2, 0x9, 0.9f, {0.2f, 0.4f, 0.6f, 0.8f}, &add},
    };
    for (size_t i = 0; i < sizeof draws / sizeof draws[0]; i++) {
        tbr_ds_quad q = {.mask = draws[i].mask};
        for (int j = 0; j < 4; j++) q.z[j] = draws[i].z;
        unsigned m = tbr_tile_ds_quad(&tb, &ds, draws[i].x, draws[i].y, &q);
        float colors[1][4][4];
        for (int c = 0; c < 4; c++)
            for (int j = 0; j < 4; j++) colors[0][c][j] = draws[i].col[c];
        tbr_blend_path path = tbr_blend_choose_path(draws[i].bs, 1, &f);
        tbr_tile_blend_quad(&tb, draws[i].bs, path, draws[i].x, draws[i].y, m, (const float(*)[4][4])colors, 1);
    }
    uint8_t mem[4 * 4 * 4];
    tbr_surface s = {f, 4, 4, 16, mem};
    CHECK(tbr_tile_store_color(&tb, 0, &s));
    static const uint8_t expect[4][4][4] = {
        {{128, 0, 128, 191}, {128, 0, 128, 191}, {0, 0, 0, 255}, {0, 0, 0, 255}},
        {{0, 0, 255, 255}, {0, 0, 255, 255}, {0, 0, 0, 255}, {0, 0, 0, 255}},
        {{0, 0, 0, 255}, {0, 0, 0, 255}, {153, 102, 51, 255}, {0, 0, 0, 255}},
        {{0, 0, 0, 255}, {0, 0, 0, 255}, {0, 0, 0, 255}, {153, 102, 51, 255}},
    };
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            for (int c = 0; c < 4; c++)
                if (mem[y * 16 + x * 4 + c] != expect[y][x][c]) {
                    fprintf(stderr, "render pixel (%d,%d) byte %d = %u expected %u\n", x, y, c, mem[y * 16 + x * 4 + c],
                            expect[y][x][c]);
                    failures++;
                }
    /* depth: (0,0) 0.25 -> 4194303; (0,1) 0.5 -> 8388607; (2,2) 0.9 -> 15099493 */
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 0, 0), 4194303);
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 0, 1), 8388607);
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 2, 2), tbr_depth_float_to_buffer(&ds, TBR_PF_Z24X8_UNORM, 0.9f));
    CHECK_EQ_U(*tbr_tile_zs_at(&tb, 3, 2), 0xffffff);
    tbr_tile_free(&tb);
}

int main(int argc, char **argv)
{
    const char *g = argc > 1 ? argv[1] : "all";
    int all = strcmp(g, "all") == 0, ran = 0;
    if (all || !strcmp(g, "formats")) {
        test_formats();
        ran = 1;
    }
    if (all || !strcmp(g, "depth")) {
        test_depth();
        ran = 1;
    }
    if (all || !strcmp(g, "stencil")) {
        test_stencil();
        ran = 1;
    }
    if (all || !strcmp(g, "blend")) {
        test_blend();
        ran = 1;
    }
    if (all || !strcmp(g, "fastpaths")) {
        test_fastpaths();
        test_row_conversions();
        ran = 1;
    }
    if (all || !strcmp(g, "tile")) {
        test_tile();
        ran = 1;
    }
    if (all || !strcmp(g, "render")) {
        test_render();
        ran = 1;
    }
    if (!ran) {
        fprintf(stderr, "unknown group %s\n", g);
        return 2;
    }
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("ok %s\n", g);
    return 0;
}
