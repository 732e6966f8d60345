/*
 * sampler_formats.h - texel unpacking to float, as softpipe's texture tile cache
 * converts texels (internal to the sampler; see sampler_formats.c).
 */
#ifndef TBR_SAMPLER_FORMATS_H
#define TBR_SAMPLER_FORMATS_H

#include <stdint.h>

struct tbr_sampler_format;

/* NULL if the format's conversion is not reproduced. */
const struct tbr_sampler_format *tbr_sampler_format_lookup(uint32_t pipe_format);
unsigned tbr_sampler_format_bytes(const struct tbr_sampler_format *f);
int tbr_sampler_format_is_unorm(const struct tbr_sampler_format *f);
/* sample_compare: the channel of swizzle[0] is FLOAT (compare value not clamped) */
int tbr_sampler_format_compare_is_float(const struct tbr_sampler_format *f);
const char *tbr_sampler_format_name(const struct tbr_sampler_format *f);
/* One texel at src to RGBA floats (texture tile cache contents). */
void tbr_sampler_format_unpack(const struct tbr_sampler_format *f, const uint8_t *src, float out[4]);

/* Byte-aligned 8-bit unorm formats (RGBA8 and the like, most textures): their
 * output swizzle, for the sampler to unpack inline with tbr_sampler_unpack_unorm8;
 * NULL for the other formats. */
const uint8_t *tbr_sampler_format_unorm8_swizzle(const struct tbr_sampler_format *f);

#define TBR_SAMPLER_SWIZZLE_0 4 /* swizzle entries: 0..3 = byte (channel), or a constant */
#define TBR_SAMPLER_SWIZZLE_1 5

/* ubyte_to_float of each channel, swizzled: what tbr_sampler_format_unpack gives. */
static inline void tbr_sampler_unpack_unorm8(const uint8_t swizzle[4], const uint8_t *src, float out[4])
{
    static const float constant[2] = {0.0f, 1.0f};
    for (unsigned c = 0; c < 4; c++) {
        const uint8_t s = swizzle[c];
        out[c] = s < TBR_SAMPLER_SWIZZLE_0 ? (float)src[s] * (1.0f / 255.0f) : constant[s - TBR_SAMPLER_SWIZZLE_0];
    }
}

#endif
