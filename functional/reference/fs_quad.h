/*
 * fs_quad.h - one draw's fragment shading, bit-exact with softpipe: the TGSI
 * program, setup's interpolation info, constants and sampler views of the draw,
 * and the colors of one quad of one of its triangles. Used identically by the
 * recorder (to verify that a quad's colors may be left out of the trace) and by
 * tbr-sim (to compute them), so both run the same code on the same inputs.
 */
#ifndef TBR_FS_QUAD_H
#define TBR_FS_QUAD_H

#include <stddef.h>
#include <stdint.h>

#include "tbr/records.h"

#include "sampler.h"
#include "setup_coef.h"
#include "tgsi_interp.h"

#define TBR_FS_MAX_CBUFS       8
#define TBR_FS_MAX_UNITS       16
#define TBR_FS_MAX_VIEW_LAYERS 256 /* layers (array layers, cube faces) of a view whose fetches are computed */

typedef struct tbr_fs_draw {
    const struct tbr_tgsi_program *prog;
    struct tbr_setup_fs_info setup;
    const void *consts[4];
    unsigned const_bytes[4];
    struct tbr_texture_view views[TBR_FS_MAX_UNITS];        /* by sampler-view unit */
    struct tbr_sampler_prepared prepared[TBR_FS_MAX_UNITS]; /* of views[u] */
    uint32_t view_valid;                                    /* bit u: views[u] bound */
    unsigned nr_cbufs;
    int color_output[TBR_FS_MAX_CBUFS]; /* output register giving cbuf's color */
} tbr_fs_draw;

/* The shading inputs of a draw that do not depend on the program's text. */
typedef struct tbr_fs_draw_state {
    int flatshade, flatshade_first, front_ccw, half_pixel_center;
    unsigned fb_height, nr_cbufs;
    const void *consts[4];
    unsigned const_bytes[4];
} tbr_fs_draw_state;

/* v's view and sampler fields from a DRAW record's texture unit; everything else (the
 * resource fields, the levels' memory) zero, for the caller to fill. */
void tbr_fs_view_from_record(struct tbr_texture_view *v, const tbr_rec_texture *t);

/* 1 if a sampler view can be computed with (2D/RECT single-layer texture whose sampled
 * levels are in memory and a sampler the library reproduces), else 0 and why. */
int tbr_fs_view_computable(const struct tbr_texture_view *v, char *why, size_t whylen);

/* Prepares d (views are added afterwards with tbr_fs_draw_set_view). 0, or -1 + why
 * if the program's outputs cannot give the draw's color buffers. */
int tbr_fs_draw_prepare(tbr_fs_draw *d, const struct tbr_tgsi_program *prog, const tbr_fs_draw_state *st, char *why,
                        size_t whylen);
/* 0, or -1 + why if the view is not computable. */
int tbr_fs_draw_set_view(tbr_fs_draw *d, unsigned unit, const struct tbr_texture_view *v, char *why, size_t whylen);
/* Sampler-view units the program uses (bit u), from its declarations. */
uint32_t tbr_fs_program_units(const struct tbr_tgsi_program *prog);

/* Colors of one quad: out[cb][ch][lane] for cb < d->nr_cbufs, exactly the values
 * softpipe's blend stage receives. coefs: tbr_setup_triangle_coefs of the quad's
 * triangle; x, y: the quad's even pixel; mask: the lanes entering the shader.
 * 0, or -1 if the execution hit something unsupported. */
int tbr_fs_quad_colors(const tbr_fs_draw *d, const struct tbr_setup_coefs *coefs, int x, int y, unsigned mask,
                       float out[][4][4]);

/* The same for a quad already known to be reproducible (tbr-sim: the quads the
 * recorder verified and left out): skips the interpreter's validity tracking
 * (tbr_tgsi_fs_quad.skip_validity), so a quad that is not reproducible gives wrong
 * colors instead of -1. */
int tbr_fs_quad_colors_verified(const tbr_fs_draw *d, const struct tbr_setup_coefs *coefs, int x, int y, unsigned mask,
                                float out[][4][4]);

/* The same, reporting each sampler call (fetch_obs, with its sampler-view unit and the
 * texture instruction's pc) and the texels it reads (texel_obs, softpipe's order);
 * either may be NULL. */
typedef void (*tbr_fs_fetch_observer)(void *ctx, unsigned unit, unsigned pc);
int tbr_fs_quad_colors_observed(const tbr_fs_draw *d, const struct tbr_setup_coefs *coefs, int x, int y, unsigned mask,
                                float out[][4][4], tbr_fs_fetch_observer fetch_obs, tbr_texel_observer texel_obs,
                                void *obs_ctx);

/* tbr_fs_quad_colors_observed on a quad known to be reproducible, or for a caller that
 * compares the result itself (the recorder): without validity tracking, as
 * tbr_fs_quad_colors_verified. */
int tbr_fs_quad_colors_verified_observed(const tbr_fs_draw *d, const struct tbr_setup_coefs *coefs, int x, int y,
                                         unsigned mask, float out[][4][4], tbr_fs_fetch_observer fetch_obs,
                                         tbr_texel_observer texel_obs, void *obs_ctx);

/* tbr_fs_quad_colors_verified_observed with a footprint observer too: the texels of a
 * bilinear footprint inside its level reach footprint_obs in one call (NULL: texel_obs
 * gets them one by one), the others texel_obs. */
int tbr_fs_quad_colors_verified_observed_footprints(const tbr_fs_draw *d, const struct tbr_setup_coefs *coefs, int x,
                                                    int y, unsigned mask, float out[][4][4],
                                                    tbr_fs_fetch_observer fetch_obs, tbr_texel_observer texel_obs,
                                                    tbr_footprint_observer footprint_obs, void *obs_ctx);

/* The texel fetches of one quad's shading as a TEXELS record lists them (derived texels,
 * records minor 6, docs/trace-records.md): per sampler call that read at least one
 * texel (softpipe's hook reports none for a call that read only border texels), its pc,
 * unit and texels in softpipe's order. Reused quad after quad (reset, then appended). */
typedef struct tbr_fs_fetch_log_entry {
    uint32_t pc, unit;
    uint32_t first, n;   /* texels[first .. first + n) */
    uint32_t footprints; /* 1: every texel came in a bilinear footprint (tbr_footprint_observer):
                               * texels first + 4k .. + 3 are (x0,y0) (x1,y0) (x0,y1) (x1,y1) of one
                               * lane, level and layer */
} tbr_fs_fetch_log_entry;
typedef struct tbr_fs_fetch_log {
    tbr_fs_fetch_log_entry *fetch;
    uint32_t nfetch, cap_fetch;
    tbr_rec_texel *texel;
    uint32_t ntexel, cap_texel;
    int failed; /* out of memory, or a fetch of more than TBR_REC_MAX_TEXELS_PER_FETCH */
} tbr_fs_fetch_log;
void tbr_fs_fetch_log_free(tbr_fs_fetch_log *log);

/* Colors (as tbr_fs_quad_colors, or tbr_fs_quad_colors_verified if verified != 0) of one
 * quad, appending its fetches to log (log->failed: incomplete). */
int tbr_fs_quad_colors_logged(const tbr_fs_draw *d, const struct tbr_setup_coefs *coefs, int x, int y, unsigned mask,
                              float out[][4][4], int verified, tbr_fs_fetch_log *log);

#endif
