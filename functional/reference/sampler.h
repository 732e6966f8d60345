/*
 * sampler.h - texture sampling bit-exact with Mesa 22.3.6 softpipe
 * (sp_tex_sample.c: sp_tgsi_get_samples and what it dispatches to, texels
 * converted to float as softpipe's texture tile cache does), reading the texture
 * from memory in softpipe's linear layout.
 *
 * Only the cases implemented exactly are accepted: tbr_sampler_supported() says
 * whether a view/sampler combination is one of them; callers keep recorded
 * colors otherwise. Nothing is approximated.
 */
#ifndef TBR_SAMPLER_H
#define TBR_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "tgsi_interp.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TBR_SAMPLER_MAX_LEVELS 16

/* One mipmap level of the resource in memory (softpipe_resource layout:
 * rows row_stride bytes apart, layers/slices/faces layer_stride bytes apart). */
struct tbr_texture_level {
    const uint8_t *data; /* NULL: level contents unknown (sampling it is unsupported) */
    uint32_t row_stride, layer_stride;
    /* non-NULL: the level's layers (array layers, cube faces) are kept apart (tbr-sim
     * holds one memory image per surface): layer z at layer_data[z], z < num_layers;
     * then layer_stride is unused */
    const uint8_t *const *layer_data;
    uint32_t num_layers;
};

/* A sampler view with its sampler state: the DRAW record's texture unit fields
 * plus the RESOURCE record of the viewed resource (docs/trace-records.md). All
 * enums are Gallium values (PIPE_TEXTURE_*, PIPE_FORMAT_*, PIPE_TEX_WRAP_*, ...). */
struct tbr_texture_view {
    /* resource */
    uint32_t target, resource_format;
    uint32_t width0, height0, depth0, array_size, res_last_level;
    struct tbr_texture_level levels[TBR_SAMPLER_MAX_LEVELS];
    /* view */
    uint32_t view_format;
    uint32_t first_level, last_level, first_layer, last_layer;
    uint32_t swizzle[4]; /* PIPE_SWIZZLE_* */
    /* sampler */
    uint32_t wrap_s, wrap_t, wrap_r;
    uint32_t min_img_filter, min_mip_filter, mag_img_filter;
    uint32_t compare_mode, compare_func, normalized_coords, seamless_cube_map, max_anisotropy;
    float lod_bias, min_lod, max_lod;
    float border_color[4];
};

/* Called for every texel the filter reads from memory, in softpipe's order
 * (the accesses its texture tile cache serves: level, layer/face/slice, x, y).
 * Texels outside the level (border color) are not reported. */
typedef void (*tbr_texel_observer)(void *ctx, unsigned lane, unsigned level, unsigned layer, int x, int y);

/* Optional companion of the texel observer: the four texels of a 2x2 bilinear footprint
 * that lies inside the level, (x0,y0) (x1,y0) (x0,y1) (x1,y1), in one call where the texel
 * observer would get four (the same texels, in the same order); footprints the sampler
 * does not read as one go to the texel observer. Lets a caller that logs texels handle
 * a footprint at once (tbr-sim's derived texels). */
typedef void (*tbr_footprint_observer)(void *ctx, unsigned lane, unsigned level, unsigned layer, int x0, int x1, int y0,
                                       int y1);

/* The lowest level sampling a view may read: first_level - 1, because softpipe's 2D POT
 * mipmap path reads it for negative LODs; whoever provides the levels' memory must
 * provide this one too. */
static inline uint32_t tbr_sampler_lowest_level(uint32_t first_level) { return first_level ? first_level - 1 : 0; }

/* 1 if sampling this view reproduces softpipe exactly; otherwise 0 with the
 * reason in why (e.g. "format PIPE_FORMAT_ETC1_RGB8", "anisotropic filtering"). */
int tbr_sampler_supported(const struct tbr_texture_view *view, char *why, size_t whylen);

/* 1 if get_samples with this control is reproduced (all enum values, TG4's
 * TBR_SAMPLER_GATHER included); otherwise 0 with the reason in why. */
int tbr_sampler_control_supported(enum tbr_sampler_control control, char *why, size_t whylen);

/* tgsi_sampler::get_samples for one quad (sp_tgsi_get_samples). Arguments as
 * there, [lane] arrays: s, t, r = coordinates (r: the third one, `p` in softpipe);
 * c0 = shadow reference of 2D arrays and cubes, cube-array index; c1 = `lod_in`:
 * the LOD bias (TXB) or explicit LOD (TXL), shadow reference of cube arrays,
 * for TBR_SAMPLER_GATHER the component to gather as an unsigned in c1[0]'s bits;
 * derivs[coord][0 = d/dx, 1 = d/dy][lane] for TBR_SAMPLER_DERIVS_EXPLICIT (TXD);
 * offset = texel offsets (NULL: none). rgba[channel][lane]. The observer (may be
 * NULL) gets every texel read. */
void tbr_sampler_get_samples(const struct tbr_texture_view *view, const float s[4], const float t[4], const float r[4],
                             const float c0[4], const float c1[4], float derivs[3][2][4], const int8_t offset[3],
                             enum tbr_sampler_control control, float rgba[4][4], tbr_texel_observer observer,
                             void *observer_ctx);

/* The same; 0 if some value softpipe used is not knowable from memory (its texture tile
 * cache aliasing a texel of the footprint to a tile position outside the level: stale
 * cache contents), 1 otherwise. The values softpipe used are reproduced, aliasing
 * included (see sampler.c fetch_group). */
int tbr_sampler_get_samples_exact(const struct tbr_texture_view *view, const float s[4], const float t[4],
                                  const float r[4], const float c0[4], const float c1[4], float derivs[3][2][4],
                                  const int8_t offset[3], enum tbr_sampler_control control, float rgba[4][4],
                                  tbr_texel_observer observer, void *observer_ctx);

/* What sampling derives from a view alone (its format's unpacking, border color, wrap
 * and filter choices): tbr_sampler_prepare computes it once for the calls below instead
 * of every call computing it again. Opaque; valid while the view is unchanged. */
#define TBR_SAMPLER_PREPARED_BYTES 192
struct tbr_sampler_prepared {
    union {
        void *align_pointer;
        double align_double;
        unsigned char bytes[TBR_SAMPLER_PREPARED_BYTES];
    } u;
};
void tbr_sampler_prepare(struct tbr_sampler_prepared *p, const struct tbr_texture_view *view);

/* tbr_sampler_get_samples_exact with the view's prepared state (NULL: computed here) and
 * bilinear footprints reported through footprint_observer (may be NULL). */
int tbr_sampler_get_samples_exact_prepared(const struct tbr_texture_view *view,
                                           const struct tbr_sampler_prepared *prepared, const float s[4],
                                           const float t[4], const float r[4], const float c0[4], const float c1[4],
                                           float derivs[3][2][4], const int8_t offset[3],
                                           enum tbr_sampler_control control, float rgba[4][4],
                                           tbr_texel_observer observer, tbr_footprint_observer footprint_observer,
                                           void *observer_ctx);

/* tgsi_sampler::get_dims and ::get_texel (TXQ, TXF). */
void tbr_sampler_get_dims(const struct tbr_texture_view *view, int level, int dims[4]);
void tbr_sampler_get_texel(const struct tbr_texture_view *view, const int i[4], const int j[4], const int k[4],
                           const int lod[4], const int8_t offset[3], float rgba[4][4], tbr_texel_observer observer,
                           void *observer_ctx);

#ifdef __cplusplus
}
#endif

#endif
