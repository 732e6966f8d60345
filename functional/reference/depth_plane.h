/*
 * depth_plane.h - the 4 depths softpipe's depth test compares for a quad of a triangle,
 * from what the trace holds: the PRIM record's window positions (setup's posCoef z plane,
 * sp_setup.c) and the DRAW record's state (interpolate_quad_depth and convert_quad_depth,
 * sp_quad_depth_test.c). Records minor 12 leave out the QUADS depths this gives bit for
 * bit (docs/trace-records.md QUADS "Derived depths"): the recorder compares, every
 * reader computes them with these functions.
 */
#ifndef TBR_DEPTH_PLANE_H
#define TBR_DEPTH_PLANE_H

#include <stdint.h>

#include "tbr/records.h"
#include "depth_stencil.h"
#include "tgsi_interp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The draw's part: depth format, clamp, pixel centre. */
typedef struct tbr_depth_draw {
    int derivable; /* 0: fragment shader writes depth, depth format unknown, or softpipe's Z16 fast path */
    tbr_pixel_format fmt;
    tbr_dsa_state st; /* depth clamp and viewport z only */
    int half_pixel_center;
} tbr_depth_draw;

/* One triangle's plane. */
typedef struct tbr_depth_plane {
    int valid; /* 0: not a triangle setup accepts (zero area, NaN), or the draw is not derivable */
    struct tbr_interp_coef pos;
} tbr_depth_plane;

void tbr_depth_draw_init(tbr_depth_draw *dd, const tbr_rec_draw *d);
/* kind: PRIM kind (only triangles have a plane); v: the vertices (attribute 0 = window
 * position), as in the PRIM record. */
void tbr_depth_plane_init(tbr_depth_plane *p, const tbr_depth_draw *dd, uint32_t kind, const float (*const v[3])[4]);
/* The quad's 4 depths in the depth buffer's integer encoding (as QUADS z[]); 0, or -1 if
 * p has no plane. */
int tbr_depth_plane_quad(const tbr_depth_plane *p, const tbr_depth_draw *dd, int32_t x, int32_t y, uint32_t z[4]);

#ifdef __cplusplus
}
#endif

#endif
