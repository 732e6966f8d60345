/*
 * setup_coef.c - softpipe's triangle setup coefficients (sp_setup.c
 * setup_sort_vertices / setup_tri_coefficients of Mesa 22.3.6), recomputed from a
 * PRIM record with the same float operations in the same order, so the
 * interpolated fragment-shader inputs are bit for bit those softpipe used.
 */
#include "setup_coef.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef const float (*tbr_vertex)[4];

struct tri_setup {
    tbr_vertex vmin, vmid, vmax, vprovoke;
    float ebot_dx, ebot_dy, emaj_dx, emaj_dy;
    float oneoverarea;
    float pixel_offset;
};

static int fail(char *why, size_t whylen, const char *fmt, ...)
{
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Bottom-to-top order of the vertices by window y, ties resolved as softpipe does. */
static void sort_vertices(struct tri_setup *s, tbr_vertex v0, tbr_vertex v1, tbr_vertex v2)
{
    float y0 = v0[0][1], y1 = v1[0][1], y2 = v2[0][1];
    if (y0 <= y1) {
        if (y1 <= y2) {
            s->vmin = v0, s->vmid = v1, s->vmax = v2;
        } else if (y2 <= y0) {
            s->vmin = v2, s->vmid = v0, s->vmax = v1;
        } else {
            s->vmin = v0, s->vmid = v2, s->vmax = v1;
        }
    } else {
        if (y0 <= y2) {
            s->vmin = v1, s->vmid = v0, s->vmax = v2;
        } else if (y2 <= y1) {
            s->vmin = v2, s->vmid = v1, s->vmax = v0;
        } else {
            s->vmin = v1, s->vmid = v2, s->vmax = v0;
        }
    }
}

static void linear_coef(const struct tri_setup *s, struct tbr_interp_coef *c, unsigned ch, const float v[3])
{
    float botda = v[1] - v[0];
    float majda = v[2] - v[0];
    float a = s->ebot_dy * majda - botda * s->emaj_dy;
    float b = s->emaj_dx * botda - majda * s->ebot_dx;
    float dadx = a * s->oneoverarea;
    float dady = b * s->oneoverarea;
    c->dadx[ch] = dadx;
    c->dady[ch] = dady;
    c->a0[ch] = v[0] - (dadx * (s->vmin[0][0] - s->pixel_offset) + dady * (s->vmin[0][1] - s->pixel_offset));
}

/* Perspective: the plane of value * (1/w); the shader divides by interpolated 1/w. */
static void persp_coef(const struct tri_setup *s, struct tbr_interp_coef *c, unsigned ch, const float v[3])
{
    float mina = v[0] * s->vmin[0][3];
    float mida = v[1] * s->vmid[0][3];
    float maxa = v[2] * s->vmax[0][3];
    float botda = mida - mina;
    float majda = maxa - mina;
    float a = s->ebot_dy * majda - botda * s->emaj_dy;
    float b = s->emaj_dx * botda - majda * s->ebot_dx;
    float dadx = a * s->oneoverarea;
    float dady = b * s->oneoverarea;
    c->dadx[ch] = dadx;
    c->dady[ch] = dady;
    c->a0[ch] = mina - (dadx * (s->vmin[0][0] - s->pixel_offset) + dady * (s->vmin[0][1] - s->pixel_offset));
}

/* setup_sort_vertices and softpipe's edge setup: the bottom and major edges and 1/area
 * (sp_setup.c setup_sort_vertices); -1 for a zero-area or NaN triangle. */
static int setup_edges(struct tri_setup *s, const float (*const v[3])[4])
{
    sort_vertices(s, v[0], v[1], v[2]);
    s->ebot_dx = s->vmid[0][0] - s->vmin[0][0];
    s->ebot_dy = s->vmid[0][1] - s->vmin[0][1];
    s->emaj_dx = s->vmax[0][0] - s->vmin[0][0];
    s->emaj_dy = s->vmax[0][1] - s->vmin[0][1];
    float area = s->emaj_dx * s->ebot_dy - s->ebot_dx * s->emaj_dy;
    s->oneoverarea = 1.0f / area;
    return isinf(s->oneoverarea) || isnan(s->oneoverarea) ? -1 : 0;
}

int tbr_setup_triangle_depth_plane(const float (*const v[3])[4], int half_pixel_center, struct tbr_interp_coef *pos)
{
    struct tri_setup s;
    memset(pos, 0, sizeof(*pos));
    if (setup_edges(&s, v)) return -1;
    s.pixel_offset = half_pixel_center ? 0.5f : 0.0f;
    const float vv[3] = {s.vmin[0][2], s.vmid[0][2], s.vmax[0][2]};
    linear_coef(&s, pos, 2, vv);
    return 0;
}

int tbr_setup_triangle_coefs(const struct tbr_setup_fs_info *fs, const float (*const v[3])[4], unsigned nr_attrs,
                             struct tbr_setup_coefs *out, char *why, size_t whylen)
{
    struct tri_setup s;
    memset(out, 0, sizeof(*out));
    if (fs->num_inputs > TBR_TGSI_MAX_INPUTS) return fail(why, whylen, "%u fragment-shader inputs", fs->num_inputs);

    /* calc_det: edge vectors e = v0 - v2, f = v1 - v2; the facing comes from its sign. */
    float ex = v[0][0][0] - v[2][0][0];
    float ey = v[0][0][1] - v[2][0][1];
    float fx = v[1][0][0] - v[2][0][0];
    float fy = v[1][0][1] - v[2][0][1];
    float det = ex * fy - ey * fx;

    s.vprovoke = fs->flatshade_first ? v[0] : v[2];
    if (setup_edges(&s, v)) return fail(why, whylen, "zero-area or NaN triangle");
    s.pixel_offset = fs->half_pixel_center ? 0.5f : 0.0f;
    /* 0 front, 1 back (setup->facing) */
    unsigned facing = (unsigned)((det < 0.0) ^ (fs->front_ccw != 0));
    out->face = facing ? -1.0f : 1.0f;

    float vv[3];
    vv[0] = s.vmin[0][2], vv[1] = s.vmid[0][2], vv[2] = s.vmax[0][2];
    linear_coef(&s, &out->pos, 2, vv);
    vv[0] = s.vmin[0][3], vv[1] = s.vmid[0][3], vv[2] = s.vmax[0][3];
    linear_coef(&s, &out->pos, 3, vv);

    for (unsigned i = 0; i < fs->num_inputs; i++) {
        const struct tbr_tgsi_io *in = &fs->inputs[i];
        struct tbr_interp_coef *c = &out->inputs[i];
        unsigned slot = i + 1; /* softpipe's "extremely pointless index map" */
        enum { CONSTANT, LINEAR, PERSPECTIVE, POS } mode;
        switch (in->interpolate) {
            case TBR_TGSI_INTERPOLATE_CONSTANT: mode = CONSTANT; break;
            case TBR_TGSI_INTERPOLATE_LINEAR: mode = LINEAR; break;
            case TBR_TGSI_INTERPOLATE_PERSPECTIVE: mode = PERSPECTIVE; break;
            case TBR_TGSI_INTERPOLATE_COLOR:
                if (in->semantic_name != TBR_TGSI_SEMANTIC_COLOR)
                    return fail(why, whylen, "COLOR interpolation of a non-color input");
                mode = fs->flatshade ? CONSTANT : PERSPECTIVE;
                break;
            default: return fail(why, whylen, "interpolation mode %u", in->interpolate);
        }
        if (in->semantic_name == TBR_TGSI_SEMANTIC_POSITION)
            mode = POS;
        else if (slot >= nr_attrs)
            return fail(why, whylen, "input %u: the primitive has only %u attributes", i, nr_attrs);
        switch (mode) {
            case CONSTANT:
                for (unsigned ch = 0; ch < 4; ch++) {
                    c->dadx[ch] = 0;
                    c->dady[ch] = 0;
                    c->a0[ch] = s.vprovoke[slot][ch];
                }
                break;
            case LINEAR:
            case PERSPECTIVE:
                for (unsigned ch = 0; ch < 4; ch++) {
                    vv[0] = s.vmin[slot][ch], vv[1] = s.vmid[slot][ch], vv[2] = s.vmax[slot][ch];
                    if (mode == LINEAR)
                        linear_coef(&s, c, ch, vv);
                    else
                        persp_coef(&s, c, ch, vv);
                }
                break;
            case POS: { /* setup_fragcoord_coeff */
                float center = fs->coord_pixel_center_integer ? 0.0f : 0.5f;
                c->a0[0] = center;
                c->dadx[0] = 1.0f;
                c->dady[0] = 0.0f;
                c->a0[1] = (fs->coord_origin_lower_left ? (float)(fs->fb_height - 1) : 0.0f) + center;
                c->dadx[1] = 0.0f;
                c->dady[1] = fs->coord_origin_lower_left ? -1.0f : 1.0f;
                for (unsigned ch = 2; ch < 4; ch++) {
                    c->a0[ch] = out->pos.a0[ch];
                    c->dadx[ch] = out->pos.dadx[ch];
                    c->dady[ch] = out->pos.dady[ch];
                }
                break;
            }
        }
        if (in->semantic_name == TBR_TGSI_SEMANTIC_FACE) {
            c->a0[0] = (float)facing * -2.0f + 1.0f;
            c->dadx[0] = 0.0f;
            c->dady[0] = 0.0f;
        }
    }
    return 0;
}
