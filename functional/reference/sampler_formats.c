/*
 * sampler_formats.c - texel unpacking as softpipe's texture tile cache does it
 * (sp_tex_tile_cache.c -> pipe_get_tile_rgba: the depth formats through u_tile.c's
 * z*_get_tile_rgba, all others through the generated util_format unpack_rgba_float
 * functions of Mesa 22.3.6), for the formats whose conversion is reproduced
 * exactly here. Each normalized channel is (float)value * (1.0f / max), the
 * single-precision product the generated code computes.
 */
#include "sampler_formats.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    KIND_UNORM,
    KIND_UNORM8,
    KIND_SRGB8,
    KIND_HALF,
    KIND_FLOAT,
    KIND_Z16,
    KIND_Z32_UNORM,
    KIND_Z24_LOW,
    KIND_Z24_HIGH,
    KIND_Z32_FLOAT
};

/* Output swizzle entries: 0..3 = channel index, S0 / S1 = constants. */
#define S0 TBR_SAMPLER_SWIZZLE_0
#define S1 TBR_SAMPLER_SWIZZLE_1

struct channel {
    uint8_t shift, bits;
};

struct tbr_sampler_format {
    uint32_t format;
    const char *name;
    uint8_t bytes, kind, nchannels;
    struct channel ch[4];
    uint8_t swizzle[4];
    uint8_t is_unorm; /* util_format_is_unorm: border color clamped to [0, 1] */
    /* sample_compare clamps the reference to [0, 1] unless the format's first
     * swizzle is a FLOAT channel or a constant (A8: swizzle[0] = 0) */
    uint8_t compare_float;
    uint8_t srgb_channels; /* KIND_SRGB8: memory channels decoded from sRGB (bit mask) */
};

/* PIPE_FORMAT_* values of Mesa 22.3.6 (p_format.h enum order). */
static const struct tbr_sampler_format formats[] = {
    {13, "PIPE_FORMAT_R32_FLOAT", 4, KIND_FLOAT, 1, {{0, 32}}, {0, S0, S0, S1}, 0, 1, 0},
    {14, "PIPE_FORMAT_R32G32_FLOAT", 8, KIND_FLOAT, 2, {{0, 32}, {32, 32}}, {0, 1, S0, S1}, 0, 1, 0},
    {15, "PIPE_FORMAT_R32G32B32_FLOAT", 12, KIND_FLOAT, 3, {{0, 32}, {32, 32}, {64, 32}}, {0, 1, 2, S1}, 0, 1, 0},
    {16,
     "PIPE_FORMAT_R32G32B32A32_FLOAT",
     16,
     KIND_FLOAT,
     4,
     {{0, 32}, {32, 32}, {64, 32}, {96, 32}},
     {0, 1, 2, 3},
     0,
     1,
     0},
    {33, "PIPE_FORMAT_R16_UNORM", 2, KIND_UNORM, 1, {{0, 16}}, {0, S0, S0, S1}, 1, 0, 0},
    {49, "PIPE_FORMAT_R8_UNORM", 1, KIND_UNORM8, 1, {{0, 8}}, {0, S0, S0, S1}, 1, 0, 0},
    {50, "PIPE_FORMAT_R8G8_UNORM", 2, KIND_UNORM8, 2, {{0, 8}, {8, 8}}, {0, 1, S0, S1}, 1, 0, 0},
    {53, "PIPE_FORMAT_R8G8B8A8_UNORM", 4, KIND_UNORM8, 4, {{0, 8}, {8, 8}, {16, 8}, {24, 8}}, {0, 1, 2, 3}, 1, 0, 0},
    {54, "PIPE_FORMAT_B8G8R8A8_UNORM", 4, KIND_UNORM8, 4, {{0, 8}, {8, 8}, {16, 8}, {24, 8}}, {2, 1, 0, 3}, 1, 0, 0},
    {75, "PIPE_FORMAT_A8R8G8B8_UNORM", 4, KIND_UNORM8, 4, {{0, 8}, {8, 8}, {16, 8}, {24, 8}}, {1, 2, 3, 0}, 1, 0, 0},
    {80, "PIPE_FORMAT_R16_FLOAT", 2, KIND_HALF, 1, {{0, 16}}, {0, S0, S0, S1}, 0, 1, 0},
    {81, "PIPE_FORMAT_R16G16_FLOAT", 4, KIND_HALF, 2, {{0, 16}, {16, 16}}, {0, 1, S0, S1}, 0, 1, 0},
    {82, "PIPE_FORMAT_R16G16B16_FLOAT", 6, KIND_HALF, 3, {{0, 16}, {16, 16}, {32, 16}}, {0, 1, 2, S1}, 0, 1, 0},
    {83,
     "PIPE_FORMAT_R16G16B16A16_FLOAT",
     8,
     KIND_HALF,
     4,
     {{0, 16}, {16, 16}, {32, 16}, {48, 16}},
     {0, 1, 2, 3},
     0,
     1,
     0},
    {112,
     "PIPE_FORMAT_R10G10B10A2_UNORM",
     4,
     KIND_UNORM,
     4,
     {{0, 10}, {10, 10}, {20, 10}, {30, 2}},
     {0, 1, 2, 3},
     1,
     0,
     0},
    {116,
     "PIPE_FORMAT_B10G10R10A2_UNORM",
     4,
     KIND_UNORM,
     4,
     {{0, 10}, {10, 10}, {20, 10}, {30, 2}},
     {2, 1, 0, 3},
     1,
     0,
     0},
    {125, "PIPE_FORMAT_B8G8R8X8_UNORM", 4, KIND_UNORM8, 3, {{0, 8}, {8, 8}, {16, 8}}, {2, 1, 0, S1}, 1, 0, 0},
    {126, "PIPE_FORMAT_X8B8G8R8_UNORM", 4, KIND_UNORM8, 4, {{0, 8}, {8, 8}, {16, 8}, {24, 8}}, {3, 2, 1, S1}, 1, 0, 0},
    {127, "PIPE_FORMAT_X8R8G8B8_UNORM", 4, KIND_UNORM8, 4, {{0, 8}, {8, 8}, {16, 8}, {24, 8}}, {1, 2, 3, S1}, 1, 0, 0},
    {128, "PIPE_FORMAT_B5G5R5A1_UNORM", 2, KIND_UNORM, 4, {{0, 5}, {5, 5}, {10, 5}, {15, 1}}, {2, 1, 0, 3}, 1, 0, 0},
    {129, "PIPE_FORMAT_R4G4B4A4_UNORM", 2, KIND_UNORM, 4, {{0, 4}, {4, 4}, {8, 4}, {12, 4}}, {0, 1, 2, 3}, 1, 0, 0},
    {130, "PIPE_FORMAT_B4G4R4A4_UNORM", 2, KIND_UNORM, 4, {{0, 4}, {4, 4}, {8, 4}, {12, 4}}, {2, 1, 0, 3}, 1, 0, 0},
    {131, "PIPE_FORMAT_R5G6B5_UNORM", 2, KIND_UNORM, 3, {{0, 5}, {5, 6}, {11, 5}}, {0, 1, 2, S1}, 1, 0, 0},
    {132, "PIPE_FORMAT_B5G6R5_UNORM", 2, KIND_UNORM, 3, {{0, 5}, {5, 6}, {11, 5}}, {2, 1, 0, S1}, 1, 0, 0},
    {133, "PIPE_FORMAT_L8_UNORM", 1, KIND_UNORM8, 1, {{0, 8}}, {0, 0, 0, S1}, 1, 0, 0},
    {134, "PIPE_FORMAT_A8_UNORM", 1, KIND_UNORM8, 1, {{0, 8}}, {S0, S0, S0, 0}, 1, 1, 0},
    {135, "PIPE_FORMAT_I8_UNORM", 1, KIND_UNORM8, 1, {{0, 8}}, {0, 0, 0, 0}, 1, 0, 0},
    {136, "PIPE_FORMAT_L8A8_UNORM", 2, KIND_UNORM8, 2, {{0, 8}, {8, 8}}, {0, 0, 0, 1}, 1, 0, 0},
    {137, "PIPE_FORMAT_L16_UNORM", 2, KIND_UNORM, 1, {{0, 16}}, {0, 0, 0, S1}, 1, 0, 0},
    /* depth formats: u_tile.c puts the depth value in all four channels */
    {140, "PIPE_FORMAT_Z16_UNORM", 2, KIND_Z16, 1, {{0, 16}}, {0, 0, 0, 0}, 1, 0, 0},
    {142, "PIPE_FORMAT_Z32_UNORM", 4, KIND_Z32_UNORM, 1, {{0, 32}}, {0, 0, 0, 0}, 1, 0, 0},
    {143, "PIPE_FORMAT_Z32_FLOAT", 4, KIND_Z32_FLOAT, 1, {{0, 32}}, {0, 0, 0, 0}, 0, 1, 0},
    {144, "PIPE_FORMAT_Z24_UNORM_S8_UINT", 4, KIND_Z24_LOW, 1, {{0, 24}}, {0, 0, 0, 0}, 1, 0, 0},
    {145, "PIPE_FORMAT_S8_UINT_Z24_UNORM", 4, KIND_Z24_HIGH, 1, {{8, 24}}, {0, 0, 0, 0}, 1, 0, 0},
    {146, "PIPE_FORMAT_Z24X8_UNORM", 4, KIND_Z24_LOW, 1, {{0, 24}}, {0, 0, 0, 0}, 1, 0, 0},
    {147, "PIPE_FORMAT_X8Z24_UNORM", 4, KIND_Z24_HIGH, 1, {{8, 24}}, {0, 0, 0, 0}, 1, 0, 0},
    {178, "PIPE_FORMAT_A8B8G8R8_UNORM", 4, KIND_UNORM8, 4, {{0, 8}, {8, 8}, {16, 8}, {24, 8}}, {3, 2, 1, 0}, 1, 0, 0},
    {190, "PIPE_FORMAT_R8G8B8X8_UNORM", 4, KIND_UNORM8, 3, {{0, 8}, {8, 8}, {16, 8}}, {0, 1, 2, S1}, 1, 0, 0},
    /* sRGB: color channels through util_format_srgb_8unorm_to_linear_float, alpha
     * as unorm */
    {149, "PIPE_FORMAT_L8_SRGB", 1, KIND_SRGB8, 1, {{0, 8}}, {0, 0, 0, S1}, 1, 0, 0x1},
    {150, "PIPE_FORMAT_R8_SRGB", 1, KIND_SRGB8, 1, {{0, 8}}, {0, S0, S0, S1}, 1, 0, 0x1},
    {151, "PIPE_FORMAT_L8A8_SRGB", 2, KIND_SRGB8, 2, {{0, 8}, {8, 8}}, {0, 0, 0, 1}, 1, 0, 0x1},
    {152, "PIPE_FORMAT_R8G8_SRGB", 2, KIND_SRGB8, 2, {{0, 8}, {8, 8}}, {0, 1, S0, S1}, 1, 0, 0x3},
    {155, "PIPE_FORMAT_A8B8G8R8_SRGB", 4, KIND_SRGB8, 4, {{0, 8}, {8, 8}, {16, 8}, {24, 8}}, {3, 2, 1, 0}, 1, 0, 0xe},
    {156, "PIPE_FORMAT_X8B8G8R8_SRGB", 4, KIND_SRGB8, 4, {{0, 8}, {8, 8}, {16, 8}, {24, 8}}, {3, 2, 1, S1}, 1, 0, 0xe},
    {157, "PIPE_FORMAT_B8G8R8A8_SRGB", 4, KIND_SRGB8, 4, {{0, 8}, {8, 8}, {16, 8}, {24, 8}}, {2, 1, 0, 3}, 1, 0, 0x7},
    {158, "PIPE_FORMAT_B8G8R8X8_SRGB", 4, KIND_SRGB8, 3, {{0, 8}, {8, 8}, {16, 8}}, {2, 1, 0, S1}, 1, 0, 0x7},
    {159, "PIPE_FORMAT_A8R8G8B8_SRGB", 4, KIND_SRGB8, 4, {{0, 8}, {8, 8}, {16, 8}, {24, 8}}, {1, 2, 3, 0}, 1, 0, 0xe},
    {160, "PIPE_FORMAT_X8R8G8B8_SRGB", 4, KIND_SRGB8, 4, {{0, 8}, {8, 8}, {16, 8}, {24, 8}}, {1, 2, 3, S1}, 1, 0, 0xe},
    {161, "PIPE_FORMAT_R8G8B8A8_SRGB", 4, KIND_SRGB8, 4, {{0, 8}, {8, 8}, {16, 8}, {24, 8}}, {0, 1, 2, 3}, 1, 0, 0x7},
    {281, "PIPE_FORMAT_R8G8B8X8_SRGB", 4, KIND_SRGB8, 3, {{0, 8}, {8, 8}, {16, 8}}, {0, 1, 2, S1}, 1, 0, 0x7},
    {386, "PIPE_FORMAT_A1B5G5R5_UNORM", 2, KIND_UNORM, 4, {{0, 1}, {1, 5}, {6, 5}, {11, 5}}, {3, 2, 1, 0}, 1, 0, 0},
    {388, "PIPE_FORMAT_R5G5B5A1_UNORM", 2, KIND_UNORM, 4, {{0, 5}, {5, 5}, {10, 5}, {15, 1}}, {0, 1, 2, 3}, 1, 0, 0},
    {390, "PIPE_FORMAT_A4B4G4R4_UNORM", 2, KIND_UNORM, 4, {{0, 4}, {4, 4}, {8, 4}, {12, 4}}, {3, 2, 1, 0}, 1, 0, 0},
};

/* formats[] indexed by PIPE_FORMAT (every sampler call looks its format up):
 * entry + 1, 0 if absent. Built once, on first use. */
#define MAX_FORMAT 512
static uint8_t format_index[MAX_FORMAT];
static atomic_int format_index_state; /* 0 not built, 1 building, 2 ready */

const struct tbr_sampler_format *tbr_sampler_format_lookup(uint32_t format)
{
    if (atomic_load_explicit(&format_index_state, memory_order_acquire) != 2) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&format_index_state, &expected, 1)) {
            for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
                if (formats[i].format < MAX_FORMAT && !format_index[formats[i].format])
                    format_index[formats[i].format] = (uint8_t)(i + 1);
            atomic_store_explicit(&format_index_state, 2, memory_order_release);
        } else {
            while (atomic_load_explicit(&format_index_state, memory_order_acquire) != 2)
                ;
        }
    }
    if (format < MAX_FORMAT) return format_index[format] ? &formats[format_index[format] - 1] : NULL;
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        if (formats[i].format == format) return &formats[i];
    return NULL;
}

const uint8_t *tbr_sampler_format_unorm8_swizzle(const struct tbr_sampler_format *f)
{
    return f->kind == KIND_UNORM8 ? f->swizzle : NULL;
}

unsigned tbr_sampler_format_bytes(const struct tbr_sampler_format *f) { return f->bytes; }
int tbr_sampler_format_is_unorm(const struct tbr_sampler_format *f) { return f->is_unorm; }
int tbr_sampler_format_compare_is_float(const struct tbr_sampler_format *f) { return f->compare_float; }
const char *tbr_sampler_format_name(const struct tbr_sampler_format *f) { return f->name; }

/* _mesa_half_to_float as the F16C instruction computes it (Mesa uses vcvtph2ps
 * on CPUs that have it): exact conversion, signaling NaNs quieted. */
static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13) | (mant ? 0x400000u : 0);
    } else if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {
            int e = -1;
            do {
                mant <<= 1;
                e++;
            } while (!(mant & 0x400));
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((mant & 0x3ff) << 13);
        }
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* util_format_srgb_8unorm_to_linear_float_table: Mesa's format_srgb.py evaluates
 * the sRGB curve in double precision and prints each entry with "%.7e" into C
 * source, so an entry is that 8-digit decimal rounded to float (which differs from
 * rounding the double directly for a few entries). Built once, on first use. */
static float srgb_table[256];
static atomic_int srgb_state; /* 0 not built, 1 building, 2 ready */

static const float *srgb_to_linear_table(void)
{
    if (atomic_load_explicit(&srgb_state, memory_order_acquire) == 2) return srgb_table;
    int expected = 0;
    if (atomic_compare_exchange_strong(&srgb_state, &expected, 1)) {
        for (int i = 0; i < 256; i++) {
            const double x = i / 255.0;
            const double linear = x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4);
            char text[40];
            snprintf(text, sizeof(text), "%.7e", linear);
            srgb_table[i] = strtof(text, NULL);
        }
        atomic_store_explicit(&srgb_state, 2, memory_order_release);
    } else {
        while (atomic_load_explicit(&srgb_state, memory_order_acquire) != 2)
            ;
    }
    return srgb_table;
}

/* 1.0f / (2^bits - 1), folded in single precision like the generated code's
 * (1.0f/0xff)-style constants */
static const float unorm_scale[17] = {
    0.0f,           1.0f / 1.0f,    1.0f / 3.0f,     1.0f / 7.0f,     1.0f / 15.0f,   1.0f / 31.0f,
    1.0f / 63.0f,   1.0f / 127.0f,  1.0f / 255.0f,   1.0f / 511.0f,   1.0f / 1023.0f, 1.0f / 2047.0f,
    1.0f / 4095.0f, 1.0f / 8191.0f, 1.0f / 16383.0f, 1.0f / 32767.0f, 1.0f / 65535.0f};

/* little-endian load of up to 8 bytes */
static uint64_t read_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n && i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void tbr_sampler_format_unpack(const struct tbr_sampler_format *f, const uint8_t *src, float out[4])
{
    if (f->kind == KIND_UNORM8) { /* channel c is byte c */
        tbr_sampler_unpack_unorm8(f->swizzle, src, out);
        return;
    }
    float ch[4] = {0, 0, 0, 0};
    switch (f->kind) {
        case KIND_UNORM8: /* byte-aligned 8-bit channels: ubyte_to_float */
            for (unsigned c = 0; c < f->nchannels; c++) ch[c] = (float)src[c] * (1.0f / 255.0f);
            break;
        case KIND_UNORM: {
            const uint64_t v = f->bytes == 4 ? (uint64_t)((uint32_t)src[0] | (uint32_t)src[1] << 8 |
                                                          (uint32_t)src[2] << 16 | (uint32_t)src[3] << 24)
                                             : read_le(src, f->bytes);
            for (unsigned c = 0; c < f->nchannels; c++) {
                const unsigned bits = f->ch[c].bits;
                const uint32_t x = (uint32_t)(v >> f->ch[c].shift) & ((1u << bits) - 1);
                ch[c] = (float)x * unorm_scale[bits];
            }
            break;
        }
        case KIND_SRGB8: {
            const float *table = srgb_to_linear_table();
            for (unsigned c = 0; c < f->nchannels; c++) {
                const uint8_t x = src[f->ch[c].shift / 8];
                ch[c] = (f->srgb_channels >> c & 1) ? table[x] : (float)x * (1.0f / 255.0f);
            }
            break;
        }
        case KIND_HALF:
            for (unsigned c = 0; c < f->nchannels; c++)
                ch[c] = half_to_float((uint16_t)read_le(src + f->ch[c].shift / 8, 2));
            break;
        case KIND_FLOAT:
        case KIND_Z32_FLOAT:
            for (unsigned c = 0; c < f->nchannels; c++) memcpy(&ch[c], src + f->ch[c].shift / 8, 4);
            break;
        case KIND_Z16: {
            const float scale = 1.0f / 65535.0f;
            ch[0] = (float)(uint16_t)read_le(src, 2) * scale;
            break;
        }
        case KIND_Z32_UNORM: {
            const double scale = 1.0 / (double)0xffffffff;
            ch[0] = (float)((double)(uint32_t)read_le(src, 4) * scale);
            break;
        }
        case KIND_Z24_LOW: {
            const double scale = 1.0 / ((1 << 24) - 1);
            ch[0] = (float)(scale * (double)((uint32_t)read_le(src, 4) & 0xffffff));
            break;
        }
        case KIND_Z24_HIGH: {
            const double scale = 1.0 / ((1 << 24) - 1);
            ch[0] = (float)(scale * (double)((uint32_t)read_le(src, 4) >> 8));
            break;
        }
    }
    for (unsigned c = 0; c < 4; c++) {
        uint8_t s = f->swizzle[c];
        out[c] = s == S0 ? 0.0f : s == S1 ? 1.0f : ch[s];
    }
}
