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

#endif
