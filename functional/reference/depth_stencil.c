/* tbrsim: depth/stencil/alpha quad tests, bit-exact with Mesa 22.3.6 softpipe
 * (sp_quad_depth_test.c, sp_quad_depth_test_tmp.h). Re-implemented, not copied. */
#include "depth_stencil.h"

#include <string.h>

static const char *const func_names[] = {"NEVER", "LESS", "EQUAL", "LEQUAL", "GREATER", "NOTEQUAL", "GEQUAL", "ALWAYS"};
static const char *const sop_names[] = {"KEEP", "ZERO", "REPLACE", "INCR", "DECR", "INCR_WRAP", "DECR_WRAP", "INVERT"};

static int lookup(const char *name, const char *prefix, const char *const *tab, int n)
{
    if (!name) return -1;
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) == 0) name += pl;
    for (int i = 0; i < n; i++)
        if (strcmp(name, tab[i]) == 0) return i;
    return -1;
}

int tbr_compare_func_from_name(const char *name) { return lookup(name, "PIPE_FUNC_", func_names, 8); }

int tbr_stencil_op_from_name(const char *name) { return lookup(name, "PIPE_STENCIL_OP_", sop_names, 8); }

void tbr_interpolate_quad_depth(float a0, float dzdx, float dzdy, int x0, int y0, float z[4])
{
    const float fx = (float)x0, fy = (float)y0;
    /* a0 + dzdx * fx + dzdy * fy, left to right, each operation rounded to float */
    float t = dzdx * fx;
    float z0 = a0 + t;
    t = dzdy * fy;
    z0 = z0 + t;
    z[0] = z0;
    z[1] = z0 + dzdx;
    z[2] = z0 + dzdy;
    float z3 = z0 + dzdx;
    z[3] = z3 + dzdy;
}

static void clamp_range(const tbr_dsa_state *st, float *minval, float *maxval)
{
    /* near_val = translate - scale; far_val = near_val + (scale * 2.0) in double */
    float near_val = st->viewport_translate_z - st->viewport_scale_z;
    float far_val = (float)((double)near_val + ((double)st->viewport_scale_z * 2.0));
    *minval = near_val < far_val ? near_val : far_val; /* MIN2(a, b) = a < b ? a : b */
    *maxval = near_val > far_val ? near_val : far_val; /* MAX2(a, b) = a > b ? a : b */
}

uint32_t tbr_depth_float_to_buffer(const tbr_dsa_state *st, tbr_pixel_format zsfmt, float z)
{
    if (st && st->depth_clamp) {
        float mn, mx;
        clamp_range(st, &mn, &mx);
        z = z > mn ? (z > mx ? mx : z) : mn; /* CLAMP(z, minval, maxval) */
    }
    switch (zsfmt) {
        case TBR_PF_Z16_UNORM: return tbr_x86_f2u32(z * 65535.0f);             /* float scale, (unsigned) truncation */
        case TBR_PF_Z32_UNORM: return tbr_x86_f2u32((double)z * 4294967295.0); /* double scale */
        case TBR_PF_Z24X8_UNORM:
        case TBR_PF_Z24_UNORM_S8_UINT:
        case TBR_PF_X8Z24_UNORM:
        case TBR_PF_S8_UINT_Z24_UNORM: return tbr_x86_f2u32(z * 16777215.0f);
        case TBR_PF_Z32_FLOAT:
        case TBR_PF_Z32_FLOAT_S8X24_UINT: {
            uint32_t u;
            memcpy(&u, &z, 4);
            return u;
        }
        default: return 0;
    }
}

void tbr_zs_split(tbr_pixel_format zsfmt, uint64_t raw, uint32_t *z, uint8_t *s)
{
    uint32_t zz = 0;
    uint8_t ss = 0; /* softpipe leaves stencilVals stale for depth-only formats */
    switch (zsfmt) {
        case TBR_PF_Z16_UNORM: zz = (uint32_t)raw & 0xffff; break;
        case TBR_PF_Z32_UNORM:
        case TBR_PF_Z32_FLOAT: zz = (uint32_t)raw; break;
        case TBR_PF_Z24X8_UNORM:
        case TBR_PF_Z24_UNORM_S8_UINT:
            zz = (uint32_t)raw & 0xffffff;
            ss = (uint8_t)((uint32_t)raw >> 24);
            break;
        case TBR_PF_X8Z24_UNORM:
        case TBR_PF_S8_UINT_Z24_UNORM:
            zz = (uint32_t)raw >> 8;
            ss = (uint8_t)(raw & 0xff);
            break;
        case TBR_PF_S8_UINT: ss = (uint8_t)raw; break;
        case TBR_PF_Z32_FLOAT_S8X24_UINT:
            zz = (uint32_t)raw;
            ss = (uint8_t)(raw >> 32);
            break;
        default: break;
    }
    if (z) *z = zz;
    if (s) *s = ss;
}

uint64_t tbr_zs_merge(tbr_pixel_format zsfmt, uint32_t z, uint8_t s)
{
    switch (zsfmt) {
        case TBR_PF_Z16_UNORM: return (uint16_t)z;
        case TBR_PF_Z24X8_UNORM:
        case TBR_PF_Z32_UNORM:
        case TBR_PF_Z32_FLOAT: return z; /* Z24X8: X bits written as given (0 after split) */
        case TBR_PF_Z24_UNORM_S8_UINT: return ((uint32_t)s << 24) | z;
        case TBR_PF_S8_UINT_Z24_UNORM: return (uint32_t)(z << 8) | s;
        case TBR_PF_X8Z24_UNORM: return (uint32_t)(z << 8);
        case TBR_PF_S8_UINT: return s;
        case TBR_PF_Z32_FLOAT_S8X24_UINT: return (uint64_t)z | ((uint64_t)s << 32);
        default: return 0;
    }
}

static bool cmp_u(tbr_compare_func f, uint32_t a, uint32_t b)
{
    switch (f) {
        case TBR_FUNC_LESS: return a < b;
        case TBR_FUNC_EQUAL: return a == b;
        case TBR_FUNC_LEQUAL: return a <= b;
        case TBR_FUNC_GREATER: return a > b;
        case TBR_FUNC_NOTEQUAL: return a != b;
        case TBR_FUNC_GEQUAL: return a >= b;
        case TBR_FUNC_ALWAYS: return true;
        default: return false;
    }
}

static bool cmp_f(tbr_compare_func f, float a, float b)
{
    switch (f) {
        case TBR_FUNC_LESS: return a < b;
        case TBR_FUNC_EQUAL: return a == b;
        case TBR_FUNC_LEQUAL: return a <= b;
        case TBR_FUNC_GREATER: return a > b;
        case TBR_FUNC_NOTEQUAL: return a != b;
        case TBR_FUNC_GEQUAL: return a >= b;
        case TBR_FUNC_ALWAYS: return true;
        default: return false;
    }
}

bool tbr_depth_compare(tbr_pixel_format zsfmt, tbr_compare_func func, uint32_t frag, uint32_t buf)
{
    if (zsfmt == TBR_PF_Z32_FLOAT || zsfmt == TBR_PF_Z32_FLOAT_S8X24_UINT) {
        float a, b;
        memcpy(&a, &frag, 4);
        memcpy(&b, &buf, 4);
        return cmp_f(func, a, b);
    }
    return cmp_u(func, frag, buf);
}

bool tbr_stencil_compare(tbr_compare_func func, uint8_t ref, uint8_t val, uint8_t valuemask)
{
    /* do_stencil_test: (ref & mask) FUNC (val & mask), ref on the left */
    return cmp_u(func, (uint8_t)(ref & valuemask), (uint8_t)(val & valuemask));
}

uint8_t tbr_stencil_apply_op(tbr_stencil_op op, uint8_t val, uint8_t ref, uint8_t writemask)
{
    uint8_t n = val;
    switch (op) {
        case TBR_STENCIL_OP_KEEP: break;
        case TBR_STENCIL_OP_ZERO: n = 0; break;
        case TBR_STENCIL_OP_REPLACE: n = ref; break;
        case TBR_STENCIL_OP_INCR:
            if (val < 0xff) n = (uint8_t)(val + 1);
            break;
        case TBR_STENCIL_OP_DECR:
            if (val > 0) n = (uint8_t)(val - 1);
            break;
        case TBR_STENCIL_OP_INCR_WRAP: n = (uint8_t)(val + 1); break;
        case TBR_STENCIL_OP_DECR_WRAP: n = (uint8_t)(val - 1); break;
        case TBR_STENCIL_OP_INVERT: n = (uint8_t)~val; break;
    }
    return (uint8_t)((writemask & n) | (~writemask & val));
}

/* state of one quad while being tested, like softpipe's struct depth_data */
typedef struct {
    uint32_t bz[4], qz[4];
    uint8_t sv[4];
    const uint8_t *shader_refs;
} dsq;

static void stencil_ops(dsq *d, unsigned mask, tbr_stencil_op op, uint8_t ref, uint8_t wm)
{
    for (int j = 0; j < 4; j++)
        if (mask & (1u << j))
            d->sv[j] = tbr_stencil_apply_op(op, d->sv[j], d->shader_refs ? d->shader_refs[j] : ref, wm);
}

/* depth_test_quad: returns the new mask; updates bz if depth writes are on */
static unsigned depth_test(const tbr_dsa_state *st, tbr_pixel_format f, dsq *d, unsigned mask)
{
    unsigned zmask = 0;
    for (int j = 0; j < 4; j++)
        if (tbr_depth_compare(f, st->depth_func, d->qz[j], d->bz[j])) zmask |= 1u << j;
    if (st->depth_func == TBR_FUNC_NEVER) zmask = 0;
    mask &= zmask;
    if (mask && st->depth_writemask)
        for (int j = 0; j < 4; j++)
            if (mask & (1u << j)) d->bz[j] = d->qz[j];
    return mask;
}

static unsigned depth_stencil_test(const tbr_dsa_state *st, tbr_pixel_format f, dsq *d, unsigned mask, bool back)
{
    const int face = (st->stencil[1].enabled && back) ? 1 : 0;
    const tbr_stencil_face *sf = &st->stencil[face];
    const uint8_t ref = st->stencil_ref[face];

    unsigned pass = 0;
    for (int j = 0; j < 4; j++) {
        uint8_t r = d->shader_refs ? d->shader_refs[j] : ref;
        if (sf->func == TBR_FUNC_ALWAYS || tbr_stencil_compare(sf->func, r, d->sv[j], sf->valuemask)) pass |= 1u << j;
    }
    if (sf->func == TBR_FUNC_NEVER) pass = 0;
    const unsigned fail = mask & ~pass;
    mask &= pass;
    if (sf->fail_op != TBR_STENCIL_OP_KEEP) stencil_ops(d, fail, sf->fail_op, ref, sf->writemask);

    if (mask) {
        if (st->depth_enabled) {
            const unsigned orig = mask;
            mask = depth_test(st, f, d, mask);
            if (sf->zfail_op != TBR_STENCIL_OP_KEEP) stencil_ops(d, orig & ~mask, sf->zfail_op, ref, sf->writemask);
            if (sf->zpass_op != TBR_STENCIL_OP_KEEP) stencil_ops(d, orig & mask, sf->zpass_op, ref, sf->writemask);
        } else {
            stencil_ops(d, mask, sf->zpass_op, ref, sf->writemask);
        }
    }
    return mask;
}

static bool alpha_pass(tbr_compare_func f, float a, float ref) { return cmp_f(f, a, ref); }

static tbr_pixel_format depth_only(tbr_pixel_format f)
{
    /* util_format_get_depth_only */
    switch (f) {
        case TBR_PF_Z24_UNORM_S8_UINT: return TBR_PF_Z24X8_UNORM;
        case TBR_PF_S8_UINT_Z24_UNORM: return TBR_PF_X8Z24_UNORM;
        case TBR_PF_Z32_FLOAT_S8X24_UINT: return TBR_PF_Z32_FLOAT;
        default: return f;
    }
}

unsigned tbr_ds_test_quad(const tbr_dsa_state *st, tbr_pixel_format zsfmt, bool have_zs, const tbr_ds_quad *q,
                          uint64_t zs[4])
{
    unsigned mask = q->mask & 0xf;
    dsq d;
    memset(&d, 0, sizeof d);
    d.shader_refs = q->shader_stencil_ref;

    if (have_zs && st->depth_bounds_test) {
        const tbr_pixel_format df = depth_only(zsfmt);
        unsigned pass = 0;
        for (int j = 0; j < 4; j++) {
            uint32_t bz;
            tbr_zs_split(zsfmt, zs[j], &bz, NULL);
            if (df == TBR_PF_Z32_FLOAT) {
                float zf;
                memcpy(&zf, &bz, 4);
                double z = zf;
                if (z >= st->depth_bounds_min && z <= st->depth_bounds_max) pass |= 1u << j;
            } else {
                uint32_t imin, imax;
                const double mn = st->depth_bounds_min, mx = st->depth_bounds_max;
                if (df == TBR_PF_Z16_UNORM) {
                    imin = tbr_x86_f2u32(mn * 65535.0) & 0xffff;
                    imax = tbr_x86_f2u32(mx * 65535.0) & 0xffff;
                } else if (df == TBR_PF_Z32_UNORM) {
                    imin = tbr_x86_f2u32(mn * 4294967295.0);
                    imax = tbr_x86_f2u32(mx * 4294967295.0);
                } else {
                    imin = tbr_x86_f2u32(mn * 16777215.0) & 0xffffff;
                    imax = tbr_x86_f2u32(mx * 16777215.0) & 0xffffff;
                }
                if (bz >= imin && bz <= imax) pass |= 1u << j;
            }
        }
        mask &= pass;
        if (!mask) return 0;
    }

    if (st->alpha_enabled) {
        unsigned pass = 0;
        if (st->alpha_func == TBR_FUNC_ALWAYS) {
            pass = 0xf;
        } else if (st->alpha_func != TBR_FUNC_NEVER && q->alpha) {
            for (int j = 0; j < 4; j++)
                if (alpha_pass(st->alpha_func, q->alpha[j], st->alpha_ref)) pass |= 1u << j;
        }
        mask &= pass;
        if (!mask) return 0;
    }

    if (have_zs && (st->depth_enabled || st->stencil[0].enabled)) {
        for (int j = 0; j < 4; j++) tbr_zs_split(zsfmt, zs[j], &d.bz[j], &d.sv[j]);
        if (st->depth_enabled)
            for (int j = 0; j < 4; j++) d.qz[j] = q->zint ? q->zint[j] : tbr_depth_float_to_buffer(st, zsfmt, q->z[j]);

        if (st->stencil[0].enabled) {
            mask = depth_stencil_test(st, zsfmt, &d, mask, q->facing_back);
            for (int j = 0; j < 4; j++) /* written back for all 4 pixels, as softpipe does */
                zs[j] = tbr_zs_merge(zsfmt, d.bz[j], d.sv[j]);
        } else {
            mask = depth_test(st, zsfmt, &d, mask);
            if (!mask) return 0;
            if (st->depth_writemask)
                for (int j = 0; j < 4; j++) zs[j] = tbr_zs_merge(zsfmt, d.bz[j], d.sv[j]);
        }
    }
    return mask;
}

tbr_ds_path tbr_ds_choose_path(const tbr_dsa_state *st, tbr_pixel_format zsfmt, bool have_zs, bool interp_depth)
{
    bool depth = st->depth_enabled, depthwrite = st->depth_writemask, stencil = st->stencil[0].enabled;
    if (!have_zs) depth = depthwrite = stencil = false;
    const bool alpha = st->alpha_enabled, occl = st->occlusion_query, clipped = st->depth_clamp,
               bounds = st->depth_bounds_test;
    if (!alpha && !depth && !occl && !clipped && !stencil && !bounds) return TBR_DS_PATH_NOOP;
    if (!alpha && interp_depth && depth && depthwrite && !occl && !clipped && !stencil && !bounds &&
        zsfmt == TBR_PF_Z16_UNORM && st->depth_func != TBR_FUNC_NEVER)
        return TBR_DS_PATH_Z16_FAST;
    return TBR_DS_PATH_FALLBACK;
}

void tbr_ds_z16_fast_batch(tbr_compare_func func, float a0, float dzdx, float dzdy, const int *x0, const int *y0,
                           unsigned *masks, unsigned nr, tbr_z16_accessor get_z16, void *ctx)
{
    if (!nr) return;
    const int ix = x0[0], iy = y0[0];
    float z[4];
    tbr_interpolate_quad_depth(a0, dzdx, dzdy, ix, iy, z);
    const float scale = 65535.0f;
    uint16_t init[4];
    for (int j = 0; j < 4; j++) init[j] = tbr_x86_f2u16(z[j] * scale);
    const uint16_t step = tbr_x86_f2u16(dzdx * scale);

    for (unsigned i = 0; i < nr; i++) {
        const int dx = x0[i] - ix;
        const unsigned outmask = masks[i];
        unsigned mask = 0;
        for (int j = 0; j < 4; j++) {
            /* (ushort)(init + dx * step): int arithmetic, truncated to 16 bits */
            const uint16_t idepth = (uint16_t)(uint32_t)((int)init[j] + dx * (int)step);
            /* softpipe addresses all quads of the batch on the first quad's row */
            uint16_t *p = get_z16(ctx, ix + dx + (j & 1), iy + (j >> 1));
            if (!(outmask & (1u << j)) || !p) continue;
            if (func == TBR_FUNC_ALWAYS || cmp_u(func, idepth, *p)) {
                *p = idepth;
                mask |= 1u << j;
            }
        }
        masks[i] = mask;
    }
}
