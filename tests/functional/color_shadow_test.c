/* Unit test of the recorder's packed colors and tile-color shadow
 * (functional/src/color_shadow.c; docs/trace-records.md QUADS "Packed colors").
 * Values are worked out by hand from softpipe's conversions:
 *   float_to_ubyte(0.3f) = 76, 76 * (1/255.f) = 0.298039227f != 0.3f (flagged);
 *   1.0f -> 255 -> 1.0f and 0.0f -> 0 -> 0.0f (exact, not flagged);
 *   51 * (1/255.f) -> 51 -> the same float (exact). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "color_shadow.h"

static int failures;
#define CHECK(c)                                                                                                       \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                                      \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static tbr_rec_draw draw_state(int blend, unsigned colormask)
{
    tbr_rec_draw d;
    memset(&d, 0, sizeof d);
    d.nr_cbufs = 1;
    for (unsigned i = 0; i < TBR_REC_MAX_CBUFS; i++) {
        d.rt[i].colormask = colormask;
        d.rt[i].blend_enable = (uint32_t)blend;
        d.rt[i].rgb_func = d.rt[i].alpha_func = 0;  /* ADD */
        d.rt[i].rgb_src = d.rt[i].alpha_src = 0x3;  /* SRC_ALPHA */
        d.rt[i].rgb_dst = d.rt[i].alpha_dst = 0x13; /* INV_SRC_ALPHA */
    }
    return d;
}

static tbr_rec_quad quad(int x, int y, unsigned mask, const float rgba[4])
{
    tbr_rec_quad q;
    memset(&q, 0, sizeof q);
    q.x = x;
    q.y = y;
    q.flags = TBR_REC_QUAD_BLENDED;
    q.blend_mask = mask;
    for (int ch = 0; ch < 4; ch++)
        for (int j = 0; j < 4; j++) q.color[0][ch][j] = rgba[ch];
    return q;
}

/* Every value of every channel of every packable format survives unpack then pack. */
static void test_roundtrip(void)
{
    int formats = 0;
    for (int f = 1; f < TBR_PF_COUNT; f++) {
        if (!tbr_cs_format_packable((tbr_pixel_format)f)) continue;
        formats++;
        const tbr_format_info *info = tbr_format_get_info((tbr_pixel_format)f);
        const uint32_t bits = info->bytes * 8;
        /* every single-bit-range value: sweep each byte position fully, others fixed */
        for (uint32_t pos = 0; pos < bits; pos += 8)
            for (uint32_t v = 0; v < 256; v++) {
                uint32_t p = (0xA5C3E1F7u & (bits == 32 ? 0xffffffffu : ((1u << bits) - 1))) & ~(0xffu << pos);
                p |= v << pos;
                uint8_t b[4] = {(uint8_t)p, (uint8_t)(p >> 8), (uint8_t)(p >> 16), (uint8_t)(p >> 24)};
                float rgba[4];
                CHECK(tbr_unpack_rgba_float((tbr_pixel_format)f, b, rgba));
                uint8_t back[4] = {0, 0, 0, 0};
                CHECK(tbr_pack_rgba_float((tbr_pixel_format)f, rgba, back));
                /* X bits are written as 0: compare the stored channels only */
                float again[4];
                tbr_unpack_rgba_float((tbr_pixel_format)f, back, again);
                if (memcmp(again, rgba, sizeof rgba) != 0) {
                    fprintf(stderr, "%s: 0x%08x does not round-trip\n", info->name, p);
                    failures++;
                    return;
                }
            }
    }
    CHECK(formats >= 15); /* the 8-bit, 565/4444/5551 and 1010102 unorm formats */
    CHECK(!tbr_cs_format_packable(TBR_PF_R16G16B16A16_FLOAT));
    CHECK(!tbr_cs_format_packable(TBR_PF_Z24_UNORM_S8_UINT));
}

static void test_shadow(void)
{
    tbr_color_shadow cs;
    memset(&cs, 0, sizeof cs);
    tbr_cs_set_nr_cbufs(&cs, 1);
    tbr_cs_set_cbuf(&cs, 0, true, 7, 0, 0, 0, "PIPE_FORMAT_R8G8B8A8_UNORM");

    /* 1. an opaque draw: packed; 0.3 is not representable, 1.0 and 51/255 are */
    tbr_rec_draw opaque = draw_state(0, 0xf);
    CHECK(tbr_cs_begin_draw(&cs, &opaque, true) == 1u);
    CHECK(tbr_cs_begin_draw(&cs, &opaque, false) == 0u); /* --float-colors */
    CHECK(tbr_cs_begin_draw(&cs, &opaque, true) == 1u);
    const float c1[4] = {0.3f, 51 * (1.0f / 255.0f), 0.0f, 1.0f};
    tbr_rec_quad q = quad(64, 0, 0x5, c1); /* lanes 0 and 2: (64,0), (64,1) of tile (1,0) */
    CHECK(tbr_cs_quad(&cs, &q, 1) == 0);
    CHECK(q.packed[0][0] == (76u | 51u << 8 | 0u << 16 | 255u << 24));
    CHECK(q.packed[0][2] == q.packed[0][0]);
    CHECK(q.packed[0][1] == 0 && q.packed[0][3] == 0); /* not blended lanes */
    CHECK(cs.packed_fragments == 2);
    CHECK(cs.ntiles == 1);

    /* 2. a blended draw over lanes 0..3: only lane 0 and 2 have a packed R channel */
    tbr_rec_draw blend = draw_state(1, 0xf);
    CHECK(tbr_cs_begin_draw(&cs, &blend, true) == 0u);
    const float c2[4] = {1.0f, 0.0f, 0.0f, 0.5f};
    q = quad(64, 0, 0xf, c2);
    CHECK(tbr_cs_quad(&cs, &q, 1) == 0);
    CHECK(q.exact_mask[0] == (0x1u << 0 | 0x1u << 8)); /* R of lanes 0 and 2 */
    CHECK(q.exact[0][0][0] == 0.3f && q.exact[0][0][2] == 0.3f);
    CHECK(cs.exact_values == 2);
    /* 3. the blend wrote every channel: the simulator's value is exact again */
    q = quad(64, 0, 0xf, c2);
    CHECK(tbr_cs_quad(&cs, &q, 1) == 0);
    CHECK(q.exact_mask[0] == 0);

    /* 4. color mask: an opaque write of G only keeps R's flag... */
    const float c3[4] = {0.3f, 0.3f, 0.3f, 0.3f};
    CHECK(tbr_cs_begin_draw(&cs, &opaque, true) == 1u);
    q = quad(66, 0, 0x1, c3);
    CHECK(tbr_cs_quad(&cs, &q, 1) == 0); /* (66,0): R,G,B,A all flagged */
    tbr_rec_draw green = draw_state(0, 0x2);
    CHECK(tbr_cs_begin_draw(&cs, &green, true) == 1u);
    const float c4[4] = {0.9f, 1.0f, 0.9f, 0.9f};
    q = quad(66, 0, 0x1, c4);
    CHECK(tbr_cs_quad(&cs, &q, 1) == 0);
    CHECK(q.packed[0][0] == (255u << 8)); /* only G stored */
    CHECK(tbr_cs_begin_draw(&cs, &blend, true) == 0u);
    q = quad(66, 0, 0x1, c2);
    CHECK(tbr_cs_quad(&cs, &q, 1) == 0);
    CHECK(q.exact_mask[0] == 0xdu); /* R, B, A still softpipe's 0.3; G exact */
    CHECK(q.exact[0][0][0] == 0.3f && q.exact[0][2][0] == 0.3f && q.exact[0][3][0] == 0.3f);

    /* 5. softpipe stores the tile: its float copy is gone, nothing to give */
    CHECK(tbr_cs_begin_draw(&cs, &opaque, true) == 1u);
    q = quad(68, 2, 0xf, c1);
    CHECK(tbr_cs_quad(&cs, &q, 1) == 0);
    tbr_cs_tile_event(&cs, TBR_REC_TILE_STORE, 7, 0, 0, 1, 0);
    CHECK(cs.ntiles == 0);
    CHECK(tbr_cs_begin_draw(&cs, &blend, true) == 0u);
    q = quad(68, 2, 0xf, c2);
    CHECK(tbr_cs_quad(&cs, &q, 1) == 0);
    CHECK(q.exact_mask[0] == 0);

    /* 6. another surface's tile event leaves this one alone; CLEAR_ALL drops it */
    CHECK(tbr_cs_begin_draw(&cs, &opaque, true) == 1u);
    q = quad(0, 0, 0x1, c1);
    CHECK(tbr_cs_quad(&cs, &q, 1) == 0);
    tbr_cs_tile_event(&cs, TBR_REC_TILE_LOAD, 8, 0, 0, 0, 0);
    CHECK(cs.ntiles == 1);
    tbr_cs_tile_event(&cs, TBR_REC_TILE_CLEAR_ALL, 7, 0, 0, 0, 0);
    CHECK(cs.ntiles == 0);

    /* 7. formats that do not round-trip, logic ops and layered views are never packed */
    tbr_cs_set_cbuf(&cs, 0, true, 9, 0, 0, 0, "PIPE_FORMAT_R16G16B16A16_FLOAT");
    CHECK(tbr_cs_begin_draw(&cs, &opaque, true) == 0u);
    tbr_cs_set_cbuf(&cs, 0, true, 9, 0, 0, 3, "PIPE_FORMAT_R8G8B8A8_UNORM");
    CHECK(tbr_cs_begin_draw(&cs, &opaque, true) == 0u);
    tbr_cs_set_cbuf(&cs, 0, true, 9, 0, 0, 0, "PIPE_FORMAT_B8G8R8A8_UNORM");
    tbr_rec_draw logic = opaque;
    logic.logicop_enable = 1;
    CHECK(tbr_cs_begin_draw(&cs, &logic, true) == 0u);
    /* BGRA: R lands in byte 2 */
    CHECK(tbr_cs_begin_draw(&cs, &opaque, true) == 1u);
    q = quad(0, 0, 0x1, c1);
    CHECK(tbr_cs_quad(&cs, &q, 1) == 0);
    CHECK(q.packed[0][0] == (0u | 51u << 8 | 76u << 16 | 255u << 24));
    tbr_cs_free(&cs);
}

int main(void)
{
    test_roundtrip();
    test_shadow();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("color_shadow: all checks passed\n");
    return 0;
}
