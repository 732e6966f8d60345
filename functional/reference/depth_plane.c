/*
 * depth_plane.c - quad depths from a PRIM record's window positions and the DRAW state,
 * as softpipe computes them when the fragment shader does not write depth (records
 * minor 12, docs/trace-records.md QUADS "Derived depths").
 */
#include "depth_plane.h"

#include <string.h>

#include "sampler_formats.h"
#include "setup_coef.h"

void tbr_depth_draw_init(tbr_depth_draw *dd, const tbr_rec_draw *d)
{
    memset(dd, 0, sizeof(*dd));
    const struct tbr_sampler_format *sf = tbr_sampler_format_lookup(d->zs_format);
    dd->fmt = sf ? tbr_format_from_name(tbr_sampler_format_name(sf)) : TBR_PF_NONE;
    switch (dd->fmt) {
        case TBR_PF_Z16_UNORM:
        case TBR_PF_Z32_UNORM:
        case TBR_PF_Z24_UNORM_S8_UINT:
        case TBR_PF_Z24X8_UNORM:
        case TBR_PF_S8_UINT_Z24_UNORM:
        case TBR_PF_X8Z24_UNORM:
        case TBR_PF_Z32_FLOAT:
        case TBR_PF_Z32_FLOAT_S8X24_UINT: dd->derivable = !d->fs_writes_z; break;
        default: dd->derivable = 0; break;
    }
    /* softpipe's Z16 fast path (depth_interp_z16_*, chosen as tbr_ds_choose_path does)
     * steps the depth from a batch's first quad: batches are not in the trace, so a draw
     * that takes it keeps its depths (glmark2 terrain, sample rtt) */
    if (dd->fmt == TBR_PF_Z16_UNORM && d->depth_enabled && d->depth_writemask && !d->alpha_enabled &&
        !d->stencil[0].enabled && !d->depth_bounds_test && d->depth_clip_near && d->depth_func != TBR_FUNC_NEVER)
        dd->derivable = 0;
    /* sp_quad_depth_test.c: data.clamp = !rasterizer->depth_clip_near, range from viewport 0 */
    dd->st.depth_clamp = !d->depth_clip_near;
    dd->st.viewport_scale_z = d->viewport_scale[2];
    dd->st.viewport_translate_z = d->viewport_translate[2];
    dd->half_pixel_center = d->half_pixel_center != 0;
}

void tbr_depth_plane_init(tbr_depth_plane *p, const tbr_depth_draw *dd, uint32_t kind, const float (*const v[3])[4])
{
    p->valid = dd->derivable && kind == 3 && tbr_setup_triangle_depth_plane(v, dd->half_pixel_center, &p->pos) == 0;
}

int tbr_depth_plane_quad(const tbr_depth_plane *p, const tbr_depth_draw *dd, int32_t x, int32_t y, uint32_t z[4])
{
    if (!p->valid) return -1;
    float fz[4];
    tbr_interpolate_quad_depth(p->pos.a0[2], p->pos.dadx[2], p->pos.dady[2], x, y, fz);
    for (int j = 0; j < 4; j++) z[j] = tbr_depth_float_to_buffer(&dd->st, dd->fmt, fz[j]);
    return 0;
}
