/*
 * setup_coef.h - softpipe's triangle setup coefficients (sp_setup.c) computed from
 * a PRIM record: the interpolation coefficients of the position and of every
 * fragment-shader input, exactly as softpipe computes them, so that
 * tbr_tgsi_run_fs sees the inputs softpipe's fragment shader saw.
 */
#ifndef TBR_SETUP_COEF_H
#define TBR_SETUP_COEF_H

#include <stddef.h>
#include <stdint.h>

#include "tgsi_interp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The FS inputs' interpolation, as softpipe's setup sees it. */
struct tbr_setup_fs_info {
    unsigned num_inputs;
    struct tbr_tgsi_io inputs[TBR_TGSI_MAX_INPUTS];
    int flatshade; /* rasterizer state */
    int flatshade_first;
    int front_ccw;
    int half_pixel_center; /* setup's pixel_offset: 0.5 if set, else 0 */
    /* gl_FragCoord (POSITION input): FS properties and the framebuffer height */
    int coord_origin_lower_left, coord_pixel_center_integer;
    unsigned fb_height;
};

/* Coefficients of one triangle. */
struct tbr_setup_coefs {
    struct tbr_interp_coef pos;                         /* setup->posCoef */
    struct tbr_interp_coef inputs[TBR_TGSI_MAX_INPUTS]; /* setup->coef[fs input] */
    float face;                                         /* +1 front, -1 back */
};

/* Triangle v[3][nr_attrs][4] as in a PRIM record (attribute 0 = window position;
 * FS input i is attribute i + 1, sp_state_derived.c). 0 on success; -1 if the
 * triangle is one setup rejects (zero area / NaN) or something is unsupported
 * (message in why). */
int tbr_setup_triangle_coefs(const struct tbr_setup_fs_info *fs, const float (*const v[3])[4], unsigned nr_attrs,
                             struct tbr_setup_coefs *out, char *why, size_t whylen);

/* Only the depth plane (pos.a0[2], dadx[2], dady[2]) of triangle v, as
 * tbr_setup_triangle_coefs computes it (setup_tri_coefficients' posCoef z): records
 * minor 12 derive quad depths from it (depth_plane.h). 0, or -1 for a triangle setup
 * rejects (zero area / NaN). */
int tbr_setup_triangle_depth_plane(const float (*const v[3])[4], int half_pixel_center, struct tbr_interp_coef *pos);

#ifdef __cplusplus
}
#endif

#endif
