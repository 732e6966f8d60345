/*
 * sampler.c - softpipe's texture sampler (Mesa 22.3.6 sp_tex_sample.c:
 * sp_tgsi_get_samples, sp_tgsi_get_dims, sp_tgsi_get_texel) recomputed with
 * the same single-precision operations in the same order, the same filter
 * dispatch (including the power-of-two 2D fast paths) and the same sequence of
 * texture tile cache reads, which the observer receives. See sampler.h.
 */
#include "sampler.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sampler_formats.h"

/* Gallium enums (p_defines.h) */
enum { TEX_BUFFER, TEX_1D, TEX_2D, TEX_3D, TEX_CUBE, TEX_RECT, TEX_1D_ARRAY, TEX_2D_ARRAY, TEX_CUBE_ARRAY };
enum {
    WRAP_REPEAT,
    WRAP_CLAMP,
    WRAP_CLAMP_TO_EDGE,
    WRAP_CLAMP_TO_BORDER,
    WRAP_MIRROR_REPEAT,
    WRAP_MIRROR_CLAMP,
    WRAP_MIRROR_CLAMP_TO_EDGE,
    WRAP_MIRROR_CLAMP_TO_BORDER
};
enum { MIP_NEAREST, MIP_LINEAR, MIP_NONE };
enum { FILTER_NEAREST, FILTER_LINEAR };
enum { SWZ_X, SWZ_Y, SWZ_Z, SWZ_W, SWZ_0, SWZ_1 };
enum { FUNC_NEVER, FUNC_LESS, FUNC_EQUAL, FUNC_LEQUAL, FUNC_GREATER, FUNC_NOTEQUAL, FUNC_GEQUAL, FUNC_ALWAYS };
enum { FACE_POS_X, FACE_NEG_X, FACE_POS_Y, FACE_NEG_Y, FACE_POS_Z, FACE_NEG_Z };
/* quad lanes (sp_quad.h) */
enum { QUAD_TOP_LEFT, QUAD_TOP_RIGHT, QUAD_BOTTOM_LEFT, QUAD_BOTTOM_RIGHT };

/* Mesa's macros (util/macros.h), with their exact comparison order (NaN behaviour). */
#define M_CLAMP(X, MIN, MAX) ((X) > (MIN) ? ((X) > (MAX) ? (MAX) : (X)) : (MIN))
#define M_MIN2(A, B)         ((A) < (B) ? (A) : (B))
#define M_MAX2(A, B)         ((A) > (B) ? (A) : (B))
#define M_MAX3(A, B, C)      ((A) > (B) ? M_MAX2(A, C) : M_MAX2(B, C))

struct quad_args {
    const float *s, *t, *p;
    const unsigned *faces;
    const int8_t *offset;
    enum tbr_sampler_control control; /* the anisotropic filter's LOD depends on it */
    const float *shader_lod_in;       /* the shader's own bias / lod, before compute_lambda_lod */
};

typedef void (*wrap_nearest_fn)(float s, unsigned size, int offset, int *icoord);
typedef void (*wrap_linear_fn)(float s, unsigned size, int offset, int *icoord0, int *icoord1, float *w);

struct sampler_state;
struct img_args;
typedef void (*img_filter_fn)(const struct sampler_state *st, const struct img_args *a,
                              float *rgba /* channel c at rgba[4 * c] */);
typedef void (*mip_filter_fn)(struct sampler_state *st, img_filter_fn min_filter, img_filter_fn mag_filter,
                              const struct quad_args *q, const float lod[4], float rgba[4][4]);

/* What sampling derives from the view alone (tbr_sampler_prepared holds one). */
struct view_state {
    const struct tbr_sampler_format *fmt;
    const uint8_t *unorm8_swizzle; /* tbr_sampler_format_unorm8_swizzle(fmt) */
    /* unorm8 formats, channel c = unorm8_table[p[u8_byte[c]] + u8_add[c]]: u8_add 0 for a
     * byte, or 256 / 512 (byte 0 read, then the constant 0 / 1 row of the table) */
    uint8_t u8_byte[4];
    uint16_t u8_add[4];
    unsigned bytes;
    float border[4];     /* sp_sview.border_color after sp_tgsi_get_samples' clamp */
    int pot2d;           /* sp_sview->pot2d */
    unsigned xpot, ypot; /* util_logbase2 of width0 / height0 */
    int need_swizzle;
    wrap_nearest_fn nearest_s, nearest_t, nearest_p;
    wrap_linear_fn linear_s, linear_t, linear_p;
    mip_filter_fn mip_filter; /* get_filters' choice without gather */
    img_filter_fn min_filter, mag_filter;
};

struct sampler_state {
    const struct tbr_texture_view *v;
    struct view_state vs;
    tbr_texel_observer observer;
    tbr_footprint_observer footprint_observer; /* NULL: footprints go to observer */
    void *observer_ctx;
    unsigned lane;
    int gather_only;         /* TG4: the linear filters return the 4 texels' component */
    unsigned gather_comp;    /* component to gather (0..3) */
    struct fetch_group *grp; /* the texels of the filter being evaluated (tile-cache aliasing) */
};

/* softpipe's texture tile cache (sp_tex_tile_cache.[ch]) is direct mapped: 16 entries of
 * 32x32 texel tiles, entry (tile x + 9 tile y + z + 7 level) mod 16, and its filters keep
 * POINTERS into it while they fetch the other texels of a footprint
 * (get_texel_quad_2d_no_border, get_texel_2d, ...). When a later fetch of the same
 * footprint loads another tile into the same entry, an earlier pointer then reads that
 * tile's texel at its own in-tile position. The group remembers the footprint's fetches
 * so that fetch_group_end can give each texel the value softpipe actually used. */
#define SP_TEX_TILE_LOG2    5
#define SP_TEX_TILE_ENTRIES 16u
struct fetch_group {
    int on, n;
    int inexact;    /* a value softpipe read is not knowable (stale cache contents) */
    int multi_tile; /* some fetch lies in another tile than the first one */
    struct {
        unsigned level, z;
        int x, y;
        float *out;
    } f[8];
};

struct img_args {
    float s, t, p;
    unsigned level, face;
    const int8_t *offset;
};

/* ---- Mesa's scalar helpers (u_math.h) ---- */

static int util_ifloor(float f)
{
    /* the non-x86-32 variant: both halves rounded to float and compared bitwise */
    double af = (3 << 22) + 0.5 + (double)f;
    double bf = (3 << 22) + 0.5 - (double)f;
    float fa = (float)af, fb = (float)bf;
    uint32_t ai, bi;
    memcpy(&ai, &fa, 4);
    memcpy(&bi, &fb, 4);
    return (int)(ai - bi) >> 1;
}

/* u_math.c's log2_table, computed the same way (util_init_math), and ubyte_to_float of
 * every byte (the unorm8 unpack: a table read instead of a conversion and a multiply).
 * Filled when the library is loaded, before any thread samples. */
#define LOG2_TABLE_SIZE (1u << 8)
static float log2_table[LOG2_TABLE_SIZE + 1];
static float unorm8_to_float[3 * 256]; /* then 256 x 0.0f, 256 x 1.0f (the constants) */
/* sp_tex_sample.c create_filter_table: the EWA filter's weights, exp(-2 r^2) */
#define WEIGHT_LUT_SIZE 1024
static float ewa_weight[WEIGHT_LUT_SIZE];
__attribute__((constructor)) static void init_tables(void)
{
    for (unsigned i = 0; i < WEIGHT_LUT_SIZE; ++i) {
        const float alpha = 2;
        const float r2 = (float)i / (float)(WEIGHT_LUT_SIZE - 1);
        ewa_weight[i] = (float)expf(-alpha * r2);
    }
    for (unsigned i = 0; i <= LOG2_TABLE_SIZE; i++) log2_table[i] = (float)log2(1.0 + i * (1.0 / LOG2_TABLE_SIZE));
    for (unsigned b = 0; b < 256; b++) {
        unorm8_to_float[b] = (float)b * (1.0f / 255.0f);
        unorm8_to_float[256 + b] = 0.0f;
        unorm8_to_float[512 + b] = 1.0f;
    }
}

static float util_fast_log2(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, 4);
    float epart = (float)((int)((bits & 0x7f800000u) >> 23) - 127);
    unsigned index = ((bits & 0x007fffffu) + (1u << (22 - 8))) >> (23 - 8);
    return epart + log2_table[index];
}

static unsigned util_logbase2(unsigned n) { return 31u - (unsigned)__builtin_clz(n | 1); }

static unsigned u_minify(unsigned value, unsigned level)
{
    unsigned v = level < 32 ? value >> level : 0;
    return v > 1 ? v : 1;
}

static int is_pot_or_zero(unsigned n) { return (n & (n - 1)) == 0; }

/* a + b and a * b on ints wrapping like the two's complement arithmetic softpipe's
 * compiled code does (where C leaves overflow undefined) */
static inline int add_wrap(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
static inline int mul_wrap(int a, int b) { return (int)((unsigned)a * (unsigned)b); }

static inline float frac(float f) { return f - floorf(f); }
static inline float lerp(float a, float v0, float v1) { return v0 + a * (v1 - v0); }
static inline float lerp_2d(float a, float b, float v00, float v10, float v01, float v11)
{
    const float temp0 = lerp(a, v00, v10);
    const float temp1 = lerp(a, v01, v11);
    return lerp(b, temp0, temp1);
}
/* lerp_2d of the four channels of a bilinear footprint's texels at once, into rgba[4 * c]:
 * the same single-precision operations per channel (element-wise vector arithmetic,
 * no contraction), four channels per instruction. */
typedef float float4 __attribute__((vector_size(16)));
static inline __attribute__((always_inline)) void lerp_2d_texels(float *rgba, float a, float b, float tx[4][4])
{
    float4 v00, v10, v01, v11;
    memcpy(&v00, tx[0], sizeof(v00));
    memcpy(&v10, tx[1], sizeof(v10));
    memcpy(&v01, tx[2], sizeof(v01));
    memcpy(&v11, tx[3], sizeof(v11));
    const float4 va = {a, a, a, a}, vb = {b, b, b, b};
    const float4 temp0 = v00 + va * (v10 - v00);
    const float4 temp1 = v01 + va * (v11 - v01);
    const float4 r = temp0 + vb * (temp1 - temp0);
    for (int c = 0; c < 4; c++) rgba[4 * c] = r[c];
}

static inline float lerp_3d(float a, float b, float c, float v000, float v100, float v010, float v110, float v001,
                            float v101, float v011, float v111)
{
    const float temp0 = lerp_2d(a, b, v000, v100, v010, v110);
    const float temp1 = lerp_2d(a, b, v001, v101, v011, v111);
    return lerp(c, temp0, temp1);
}

/* ---- texel access: one tile cache read each ---- */

/* tbr_sampler_unpack_unorm8 by table, without a test per channel (a constant channel reads
 * its row of the table). The indices are the view's u8_byte / u8_add, read by the caller
 * into locals before the stores (the compiler would reread them after each store through
 * a byte pointer), once per footprint in fetch_footprint. */
struct unorm8_indices {
    unsigned b[4], a[4];
};
static inline __attribute__((always_inline)) struct unorm8_indices unorm8_indices_of(const struct sampler_state *st)
{
    const struct unorm8_indices ix = {{st->vs.u8_byte[0], st->vs.u8_byte[1], st->vs.u8_byte[2], st->vs.u8_byte[3]},
                                      {st->vs.u8_add[0], st->vs.u8_add[1], st->vs.u8_add[2], st->vs.u8_add[3]}};
    return ix;
}
static inline __attribute__((always_inline)) void unpack_unorm8(const struct unorm8_indices *ix, const uint8_t *p,
                                                                float out[4])
{
    const float r = unorm8_to_float[p[ix->b[0]] + ix->a[0]], g = unorm8_to_float[p[ix->b[1]] + ix->a[1]],
                b = unorm8_to_float[p[ix->b[2]] + ix->a[2]], a = unorm8_to_float[p[ix->b[3]] + ix->a[3]];
    out[0] = r;
    out[1] = g;
    out[2] = b;
    out[3] = a;
}

static inline void unpack(const struct sampler_state *st, const uint8_t *p, float out[4])
{
    if (st->vs.unorm8_swizzle) {
        const struct unorm8_indices ix = unorm8_indices_of(st);
        unpack_unorm8(&ix, p, out);
    } else
        tbr_sampler_format_unpack(st->vs.fmt, p, out);
}

static inline __attribute__((always_inline)) void group_add(const struct sampler_state *st, unsigned level, unsigned z,
                                                            int x, int y, float *out)
{
    struct fetch_group *g = st->grp;
    if (!g || !g->on) return;
    if (g->n >= 8) {
        g->inexact = 1;
        return;
    }
    if (g->n && !g->multi_tile)
        g->multi_tile = level != g->f[0].level || z != g->f[0].z || ((x ^ g->f[0].x) >> SP_TEX_TILE_LOG2) != 0 ||
                        ((y ^ g->f[0].y) >> SP_TEX_TILE_LOG2) != 0;
    g->f[g->n].level = level;
    g->f[g->n].z = z;
    g->f[g->n].x = x;
    g->f[g->n].y = y;
    g->f[g->n].out = out;
    g->n++;
}

/* Layer z of a level (NULL if it is not given). */
static inline const uint8_t *layer_base(const struct tbr_texture_level *l, unsigned z)
{
    if (!l->layer_data) return l->data + (size_t)z * l->layer_stride;
    return z < l->num_layers ? l->layer_data[z] : NULL;
}

/* The memory of texel (x, y) of layer/slice z of a level, as the tile cache addresses
 * it; NULL outside the level or when its contents are not given. 1D textures: y is the
 * layer (the tile cache's transfer of a 1D array has one row per layer). */
static inline __attribute__((always_inline)) const uint8_t *texel_bytes(const struct sampler_state *st, unsigned level,
                                                                        unsigned z, int x, int y)
{
    const struct tbr_texture_view *v = st->v;
    const int is_1d = v->target == TEX_1D || v->target == TEX_1D_ARRAY;
    const unsigned rows = is_1d ? v->array_size : u_minify(v->height0, level);
    const unsigned layers = v->target == TEX_3D ? u_minify(v->depth0, level) : v->array_size;
    const struct tbr_texture_level *l = level < TBR_SAMPLER_MAX_LEVELS ? &v->levels[level] : NULL;
    if (!l || !l->data || x < 0 || y < 0 || x >= (int)u_minify(v->width0, level) || (unsigned)y >= rows || z >= layers)
        return NULL;
    const uint8_t *base = layer_base(l, z);
    return base ? base + (size_t)y * l->row_stride + (size_t)x * st->vs.bytes : NULL;
}

static void group_begin(const struct sampler_state *st)
{
    if (st->grp) {
        st->grp->on = 1;
        st->grp->n = 0;
        st->grp->multi_tile = 0;
    }
}

static unsigned tile_entry(unsigned level, unsigned z, int x, int y)
{
    return ((unsigned)(x >> SP_TEX_TILE_LOG2) + (unsigned)(y >> SP_TEX_TILE_LOG2) * 9u + z + level * 7u) %
           SP_TEX_TILE_ENTRIES;
}

/* The values softpipe's pointers give once all of the footprint's tiles are fetched
 * (group_end, when they lie in several tiles). */
static void group_end_multi_tile(const struct sampler_state *st)
{
    struct fetch_group *g = st->grp;
    for (int k = 0; k < g->n; k++) {
        const unsigned ek = tile_entry(g->f[k].level, g->f[k].z, g->f[k].x, g->f[k].y);
        int j = -1;
        for (int i = g->n - 1; i > k; i--)
            if (tile_entry(g->f[i].level, g->f[i].z, g->f[i].x, g->f[i].y) == ek) {
                j = i;
                break;
            }
        if (j < 0 || (g->f[j].level == g->f[k].level && g->f[j].z == g->f[k].z &&
                      (g->f[j].x >> SP_TEX_TILE_LOG2) == (g->f[k].x >> SP_TEX_TILE_LOG2) &&
                      (g->f[j].y >> SP_TEX_TILE_LOG2) == (g->f[k].y >> SP_TEX_TILE_LOG2)))
            continue; /* the entry still holds k's tile */
        const int mask = (1 << SP_TEX_TILE_LOG2) - 1;
        const int x = (g->f[j].x & ~mask) | (g->f[k].x & mask);
        const int y = (g->f[j].y & ~mask) | (g->f[k].y & mask);
        const uint8_t *p = texel_bytes(st, g->f[j].level, g->f[j].z, x, y);
        if (!p) {
            g->inexact = 1; /* outside the level: whatever the entry held before */
            continue;
        }
        unpack(st, p, g->f[k].out);
    }
}

static inline __attribute__((always_inline)) void group_end(const struct sampler_state *st)
{
    struct fetch_group *g = st->grp;
    if (!g || !g->on) return;
    g->on = 0;
    /* The common case: the whole footprint lies in one tile, so every entry still holds
     * the tile its pointers were taken from. */
    if (g->multi_tile) group_end_multi_tile(st);
}

static void fetch(const struct sampler_state *st, unsigned level, unsigned layer, int x, int y, unsigned mem_layer,
                  float out[4])
{
    if (st->observer) st->observer(st->observer_ctx, st->lane, level, layer, x, y);
    /* Defensive: softpipe never reads outside the level on the paths accepted
     * by tbr_sampler_supported with finite coordinates. */
    const uint8_t *p = texel_bytes(st, level, mem_layer, x, y);
    if (!p) {
        out[0] = out[1] = out[2] = out[3] = 0.0f;
        return;
    }
    unpack(st, p, out);
    group_add(st, level, mem_layer, x, y, out);
}

/* The four texels of a bilinear footprint, (x0,y0) (x1,y0) (x0,y1) (x1,y1) of
 * one level and layer, as a fetch group of their own: the same reads, in the same
 * order and with the same values, as group_begin, four fetch() calls of a 2D texture
 * and group_end, but the level's bounds checked once and the bytes unpacked directly
 * when all four are inside (always, on the paths that call this with wrapped
 * coordinates); the group is recorded only when the footprint spans tiles (only then
 * can an entry alias, group_end_multi_tile). */
static void fetch_footprint(const struct sampler_state *st, unsigned level, unsigned layer, int x0, int x1, int y0,
                            int y1, float tx[4][4])
{
    const struct tbr_texture_view *v = st->v;
    const struct tbr_texture_level *l = level < TBR_SAMPLER_MAX_LEVELS ? &v->levels[level] : NULL;
    const int is_1d = v->target == TEX_1D || v->target == TEX_1D_ARRAY;
    const unsigned layers = v->target == TEX_3D ? u_minify(v->depth0, level) : v->array_size;
    const uint8_t *base = l && l->data && layer < layers ? layer_base(l, layer) : NULL;
    if (is_1d || !base || x0 < 0 || x1 < 0 || y0 < 0 || y1 < 0 || M_MAX2(x0, x1) >= (int)u_minify(v->width0, level) ||
        M_MAX2(y0, y1) >= (int)u_minify(v->height0, level)) {
        group_begin(st);
        fetch(st, level, layer, x0, y0, layer, tx[0]);
        fetch(st, level, layer, x1, y0, layer, tx[1]);
        fetch(st, level, layer, x0, y1, layer, tx[2]);
        fetch(st, level, layer, x1, y1, layer, tx[3]);
        group_end(st);
        return;
    }
    const int xs[4] = {x0, x1, x0, x1}, ys[4] = {y0, y0, y1, y1};
    const size_t row_stride = l->row_stride, bytes = st->vs.bytes;
    const uint8_t *row0 = base + (size_t)y0 * row_stride, *row1 = base + (size_t)y1 * row_stride;
    const uint8_t *p[4] = {row0 + (size_t)x0 * bytes, row0 + (size_t)x1 * bytes, row1 + (size_t)x0 * bytes,
                           row1 + (size_t)x1 * bytes};
    if (st->vs.unorm8_swizzle) { /* unpack() of the four, its table indices read once */
        const struct unorm8_indices ix = unorm8_indices_of(st);
        for (int k = 0; k < 4; k++) unpack_unorm8(&ix, p[k], tx[k]);
    } else {
        for (int k = 0; k < 4; k++) unpack(st, p[k], tx[k]);
    }
    /* (the observers see the texels after their bytes are read: they only log them) */
    if (st->footprint_observer)
        st->footprint_observer(st->observer_ctx, st->lane, level, layer, x0, x1, y0, y1);
    else if (st->observer)
        for (int k = 0; k < 4; k++) st->observer(st->observer_ctx, st->lane, level, layer, xs[k], ys[k]);
    /* the footprint spans tiles if its corners do */
    struct fetch_group *g = st->grp;
    if (!g || (((x0 ^ x1) >> SP_TEX_TILE_LOG2) == 0 && ((y0 ^ y1) >> SP_TEX_TILE_LOG2) == 0)) return;
    for (int k = 0; k < 4; k++) {
        g->f[k].level = level;
        g->f[k].z = layer;
        g->f[k].x = xs[k];
        g->f[k].y = ys[k];
        g->f[k].out = tx[k];
    }
    g->n = 4;
    g->multi_tile = 1;
    group_end_multi_tile(st);
}

/* get_texel_2d_no_border / get_texel_3d_no_border: tile cache addressed with layer z */
static void texel_3d_nb(const struct sampler_state *st, unsigned level, int x, int y, int z, float out[4])
{
    fetch(st, level, (unsigned)z, x, y, (unsigned)z, out);
}

/* get_texel_2d_no_border with addr.z = 0 and y = the layer (1D, 1D arrays: the
 * transfer spans all layers as rows) */
static void texel_1d_nb(const struct sampler_state *st, unsigned level, int x, int layer, float out[4])
{
    fetch(st, level, 0, x, layer, 0, out);
}

static void texel_2d(const struct sampler_state *st, unsigned level, unsigned layer, int x, int y, float out[4])
{
    const struct tbr_texture_view *v = st->v;
    if (x < 0 || x >= (int)u_minify(v->width0, level) || y < 0 || y >= (int)u_minify(v->height0, level)) {
        memcpy(out, st->vs.border, sizeof(st->vs.border));
        return;
    }
    texel_3d_nb(st, level, x, y, (int)layer, out);
}

static void texel_1d_array(const struct sampler_state *st, unsigned level, int x, int layer, float out[4])
{
    if (x < 0 || x >= (int)u_minify(st->v->width0, level)) {
        memcpy(out, st->vs.border, sizeof(st->vs.border));
        return;
    }
    texel_1d_nb(st, level, x, layer, out);
}

static void texel_3d(const struct sampler_state *st, unsigned level, int x, int y, int z, float out[4])
{
    const struct tbr_texture_view *v = st->v;
    if (x < 0 || x >= (int)u_minify(v->width0, level) || y < 0 || y >= (int)u_minify(v->height0, level) || z < 0 ||
        z >= (int)u_minify(v->depth0, level)) {
        memcpy(out, st->vs.border, sizeof(st->vs.border));
        return;
    }
    texel_3d_nb(st, level, x, y, z, out);
}

/* ---- wrap modes (normalized coordinates) ---- */

static inline int repeat(int coord, unsigned size) { return (int)(((unsigned)coord + size * 1024) % size); }

static void wrap_nearest_repeat(float s, unsigned size, int offset, int *icoord)
{
    const int i = util_ifloor(s * size);
    *icoord = repeat(add_wrap(i, offset), size);
}

static void wrap_nearest_clamp(float s, unsigned size, int offset, int *icoord)
{
    s *= size;
    s += offset;
    if (s <= 0.0F)
        *icoord = 0;
    else if (s >= size)
        *icoord = (int)size - 1;
    else
        *icoord = util_ifloor(s);
}

static inline __attribute__((always_inline)) void wrap_nearest_clamp_to_edge(float s, unsigned size, int offset,
                                                                             int *icoord)
{
    const float min = 0.5F;
    const float max = (float)size - 0.5F;
    s *= size;
    s += offset;
    if (s < min)
        *icoord = 0;
    else if (s > max)
        *icoord = (int)size - 1;
    else
        *icoord = util_ifloor(s);
}

static void wrap_nearest_clamp_to_border(float s, unsigned size, int offset, int *icoord)
{
    const float min = -0.5F;
    const float max = size + 0.5F;
    s *= size;
    s += offset;
    if (s <= min)
        *icoord = -1;
    else if (s >= max)
        *icoord = (int)size;
    else
        *icoord = util_ifloor(s);
}

static void wrap_nearest_mirror_repeat(float s, unsigned size, int offset, int *icoord)
{
    const float min = 1.0F / (2.0F * size);
    const float max = 1.0F - min;
    int flr;
    float u;
    s += (float)offset / size;
    flr = util_ifloor(s);
    u = frac(s);
    if (flr & 1) u = 1.0F - u;
    if (u < min)
        *icoord = 0;
    else if (u > max)
        *icoord = (int)size - 1;
    else
        *icoord = util_ifloor(u * size);
}

static void wrap_nearest_mirror_clamp(float s, unsigned size, int offset, int *icoord)
{
    const float u = fabsf(s * size + offset);
    if (u <= 0.0F)
        *icoord = 0;
    else if (u >= size)
        *icoord = (int)size - 1;
    else
        *icoord = util_ifloor(u);
}

static void wrap_nearest_mirror_clamp_to_edge(float s, unsigned size, int offset, int *icoord)
{
    const float min = 0.5F;
    const float max = (float)size - 0.5F;
    const float u = fabsf(s * size + offset);
    if (u < min)
        *icoord = 0;
    else if (u > max)
        *icoord = (int)size - 1;
    else
        *icoord = util_ifloor(u);
}

static void wrap_nearest_mirror_clamp_to_border(float s, unsigned size, int offset, int *icoord)
{
    const float min = -0.5F;
    const float max = (float)size + 0.5F;
    const float u = fabsf(s * size + offset);
    if (u < min)
        *icoord = -1;
    else if (u > max)
        *icoord = (int)size;
    else
        *icoord = util_ifloor(u);
}

static void wrap_linear_repeat(float s, unsigned size, int offset, int *icoord0, int *icoord1, float *w)
{
    const float u = s * size - 0.5F;
    *icoord0 = repeat(add_wrap(util_ifloor(u), offset), size);
    *icoord1 = repeat(*icoord0 + 1, size);
    *w = frac(u);
}

static void wrap_linear_clamp(float s, unsigned size, int offset, int *icoord0, int *icoord1, float *w)
{
    const float x = s * size + offset;
    const float u = M_CLAMP(x, 0.0F, (float)size) - 0.5f;
    *icoord0 = util_ifloor(u);
    *icoord1 = *icoord0 + 1;
    *w = frac(u);
}

static inline __attribute__((always_inline)) void wrap_linear_clamp_to_edge(float s, unsigned size, int offset,
                                                                            int *icoord0, int *icoord1, float *w)
{
    const float x = s * size + offset;
    const float u = M_CLAMP(x, 0.0F, (float)size) - 0.5f;
    *icoord0 = util_ifloor(u);
    *icoord1 = *icoord0 + 1;
    if (*icoord0 < 0) *icoord0 = 0;
    if (*icoord1 >= (int)size) *icoord1 = (int)size - 1;
    *w = frac(u);
}

static void wrap_linear_clamp_to_border(float s, unsigned size, int offset, int *icoord0, int *icoord1, float *w)
{
    const float min = -1.0F;
    const float max = (float)size + 0.5F;
    const float x = s * size + offset;
    const float u = M_CLAMP(x, min, max) - 0.5f;
    *icoord0 = util_ifloor(u);
    *icoord1 = *icoord0 + 1;
    *w = frac(u);
}

static void wrap_linear_mirror_repeat(float s, unsigned size, int offset, int *icoord0, int *icoord1, float *w)
{
    int flr;
    float u;
    int no_mirror;
    s += (float)offset / size;
    flr = util_ifloor(s);
    no_mirror = !(flr & 1);
    u = frac(s);
    if (no_mirror) {
        u = u * size - 0.5F;
    } else {
        u = 1.0F - u;
        u = u * size + 0.5F;
    }
    *icoord0 = util_ifloor(u);
    *icoord1 = no_mirror ? *icoord0 + 1 : *icoord0 - 1;
    if (*icoord0 < 0) *icoord0 = 1 + *icoord0;
    if (*icoord0 >= (int)size) *icoord0 = (int)size - 1;
    if (*icoord1 >= (int)size) *icoord1 = (int)size - 1;
    if (*icoord1 < 0) *icoord1 = 1 + *icoord1;
    *w = no_mirror ? frac(u) : frac(1.0f - u);
}

static void wrap_linear_mirror_clamp(float s, unsigned size, int offset, int *icoord0, int *icoord1, float *w)
{
    float u = fabsf(s * size + offset);
    if (u >= size) u = (float)size;
    u -= 0.5F;
    *icoord0 = util_ifloor(u);
    *icoord1 = *icoord0 + 1;
    *w = frac(u);
}

static void wrap_linear_mirror_clamp_to_edge(float s, unsigned size, int offset, int *icoord0, int *icoord1, float *w)
{
    float u = fabsf(s * size + offset);
    if (u >= size) u = (float)size;
    u -= 0.5F;
    *icoord0 = util_ifloor(u);
    *icoord1 = *icoord0 + 1;
    if (*icoord0 < 0) *icoord0 = 0;
    if (*icoord1 >= (int)size) *icoord1 = (int)size - 1;
    *w = frac(u);
}

static void wrap_linear_mirror_clamp_to_border(float s, unsigned size, int offset, int *icoord0, int *icoord1, float *w)
{
    const float min = -0.5F;
    const float max = size + 0.5F;
    const float t = fabsf(s * size + offset);
    const float u = M_CLAMP(t, min, max) - 0.5F;
    *icoord0 = util_ifloor(u);
    *icoord1 = *icoord0 + 1;
    *w = frac(u);
}

/* ---- wrap modes (unnormalized coordinates, RECT) ---- */

static void wrap_nearest_unorm_clamp(float s, unsigned size, int offset, int *icoord)
{
    const int c = add_wrap(util_ifloor(s), offset);
    *icoord = M_CLAMP(c, 0, (int)size - 1);
}

static void wrap_nearest_unorm_clamp_to_border(float s, unsigned size, int offset, int *icoord)
{
    const float x = s + offset;
    *icoord = util_ifloor(M_CLAMP(x, -0.5F, (float)size + 0.5F));
}

static void wrap_nearest_unorm_clamp_to_edge(float s, unsigned size, int offset, int *icoord)
{
    const float x = s + offset;
    *icoord = util_ifloor(M_CLAMP(x, 0.5F, (float)size - 0.5F));
}

static void wrap_linear_unorm_clamp(float s, unsigned size, int offset, int *icoord0, int *icoord1, float *w)
{
    const float x = s + offset - 0.5F;
    const float u = M_CLAMP(x, 0.0f, (float)size - 1.0f);
    *icoord0 = util_ifloor(u);
    *icoord1 = *icoord0 + 1;
    *w = frac(u);
}

static void wrap_linear_unorm_clamp_to_border(float s, unsigned size, int offset, int *icoord0, int *icoord1, float *w)
{
    const float x = s + offset;
    const float u = M_CLAMP(x, -0.5F, (float)size + 0.5F) - 0.5F;
    *icoord0 = util_ifloor(u);
    *icoord1 = *icoord0 + 1;
    if (*icoord1 > (int)size - 1) *icoord1 = (int)size - 1;
    *w = frac(u);
}

static void wrap_linear_unorm_clamp_to_edge(float s, unsigned size, int offset, int *icoord0, int *icoord1, float *w)
{
    const float x = s + offset;
    const float u = M_CLAMP(x, +0.5F, (float)size - 0.5F) - 0.5F;
    *icoord0 = util_ifloor(u);
    *icoord1 = *icoord0 + 1;
    if (*icoord1 > (int)size - 1) *icoord1 = (int)size - 1;
    *w = frac(u);
}

static wrap_nearest_fn nearest_wrap(unsigned mode, int normalized)
{
    if (!normalized) {
        switch (mode) {
            case WRAP_CLAMP_TO_EDGE: return wrap_nearest_unorm_clamp_to_edge;
            case WRAP_CLAMP_TO_BORDER: return wrap_nearest_unorm_clamp_to_border;
            default: return wrap_nearest_unorm_clamp; /* softpipe's fallback for illegal modes too */
        }
    }
    switch (mode) {
        case WRAP_CLAMP: return wrap_nearest_clamp;
        case WRAP_CLAMP_TO_EDGE: return wrap_nearest_clamp_to_edge;
        case WRAP_CLAMP_TO_BORDER: return wrap_nearest_clamp_to_border;
        case WRAP_MIRROR_REPEAT: return wrap_nearest_mirror_repeat;
        case WRAP_MIRROR_CLAMP: return wrap_nearest_mirror_clamp;
        case WRAP_MIRROR_CLAMP_TO_EDGE: return wrap_nearest_mirror_clamp_to_edge;
        case WRAP_MIRROR_CLAMP_TO_BORDER: return wrap_nearest_mirror_clamp_to_border;
        default: return wrap_nearest_repeat;
    }
}

static wrap_linear_fn linear_wrap(unsigned mode, int normalized)
{
    if (!normalized) {
        switch (mode) {
            case WRAP_CLAMP_TO_EDGE: return wrap_linear_unorm_clamp_to_edge;
            case WRAP_CLAMP_TO_BORDER: return wrap_linear_unorm_clamp_to_border;
            default: return wrap_linear_unorm_clamp;
        }
    }
    switch (mode) {
        case WRAP_CLAMP: return wrap_linear_clamp;
        case WRAP_CLAMP_TO_EDGE: return wrap_linear_clamp_to_edge;
        case WRAP_CLAMP_TO_BORDER: return wrap_linear_clamp_to_border;
        case WRAP_MIRROR_REPEAT: return wrap_linear_mirror_repeat;
        case WRAP_MIRROR_CLAMP: return wrap_linear_mirror_clamp;
        case WRAP_MIRROR_CLAMP_TO_EDGE: return wrap_linear_mirror_clamp_to_edge;
        case WRAP_MIRROR_CLAMP_TO_BORDER: return wrap_linear_mirror_clamp_to_border;
        default: return wrap_linear_repeat;
    }
}

static inline int coord_to_layer(float coord, unsigned first_layer, unsigned last_layer)
{
    const int c = util_ifloor(coord + 0.5F);
    return M_CLAMP(c, (int)first_layer, (int)last_layer);
}

/* ---- image filters ---- */

static inline unsigned pot_level_size(unsigned base_pot, unsigned level)
{
    return (base_pot >= level) ? (1u << (base_pot - level)) : 1;
}

static void store(float *rgba, const float tx[4])
{
    for (int c = 0; c < 4; c++) rgba[4 * c] = tx[c];
}

static void img_filter_2d_linear_repeat_POT(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    const unsigned xpot = pot_level_size(st->vs.xpot, a->level);
    const unsigned ypot = pot_level_size(st->vs.ypot, a->level);
    const float u = (a->s * xpot - 0.5F) + a->offset[0];
    const float v = (a->t * ypot - 0.5F) + a->offset[1];
    const int uflr = util_ifloor(u);
    const int vflr = util_ifloor(v);
    const float xw = u - (float)uflr;
    const float yw = v - (float)vflr;
    const int x0 = (int)((unsigned)uflr & (xpot - 1));
    const int y0 = (int)((unsigned)vflr & (ypot - 1));
    /* softpipe reads the four from one tile when they lie in it; same texels
     * and order as the general case */
    const int x1 = (int)((unsigned)(x0 + 1) & (xpot - 1));
    const int y1 = (int)((unsigned)(y0 + 1) & (ypot - 1));
    const unsigned layer = st->v->first_layer;
    float tx[4][4];
    fetch_footprint(st, a->level, layer, x0, x1, y0, y1, tx); /* texel_3d_nb x 4 */
    lerp_2d_texels(rgba, xw, yw, tx);
}

static void img_filter_2d_nearest_repeat_POT(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    const unsigned xpot = pot_level_size(st->vs.xpot, a->level);
    const unsigned ypot = pot_level_size(st->vs.ypot, a->level);
    const float u = a->s * xpot + a->offset[0];
    const float v = a->t * ypot + a->offset[1];
    const int x0 = (int)((unsigned)util_ifloor(u) & (xpot - 1));
    const int y0 = (int)((unsigned)util_ifloor(v) & (ypot - 1));
    float tx[4];
    texel_3d_nb(st, a->level, x0, y0, (int)st->v->first_layer, tx);
    store(rgba, tx);
}

static void img_filter_2d_nearest_clamp_POT(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    const unsigned xpot = pot_level_size(st->vs.xpot, a->level);
    const unsigned ypot = pot_level_size(st->vs.ypot, a->level);
    const float u = a->s * xpot + a->offset[0];
    const float v = a->t * ypot + a->offset[1];
    int x0 = util_ifloor(u), y0 = util_ifloor(v);
    if (x0 < 0)
        x0 = 0;
    else if (x0 > (int)xpot - 1)
        x0 = (int)xpot - 1;
    if (y0 < 0)
        y0 = 0;
    else if (y0 > (int)ypot - 1)
        y0 = (int)ypot - 1;
    float tx[4];
    texel_3d_nb(st, a->level, x0, y0, (int)st->v->first_layer, tx);
    store(rgba, tx);
}

static void img_filter_1d_nearest(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    const unsigned width = u_minify(st->v->width0, a->level);
    int x;
    float tx[4];
    st->vs.nearest_s(a->s, width, a->offset[0], &x);
    texel_1d_array(st, a->level, x, (int)st->v->first_layer, tx);
    store(rgba, tx);
}

static void img_filter_1d_array_nearest(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    const unsigned width = u_minify(st->v->width0, a->level);
    const int layer = coord_to_layer(a->t, st->v->first_layer, st->v->last_layer);
    int x;
    float tx[4];
    st->vs.nearest_s(a->s, width, a->offset[0], &x);
    texel_1d_array(st, a->level, x, layer, tx);
    store(rgba, tx);
}

/* img_filter_2d_nearest with the wrap functions given (constants where it is inlined) */
static inline __attribute__((always_inline)) void filter_2d_nearest(const struct sampler_state *st,
                                                                    const struct img_args *a, float *rgba,
                                                                    wrap_nearest_fn nearest_s,
                                                                    wrap_nearest_fn nearest_t)
{
    const unsigned width = u_minify(st->v->width0, a->level);
    const unsigned height = u_minify(st->v->height0, a->level);
    int x, y;
    float tx[4];
    nearest_s(a->s, width, a->offset[0], &x);
    nearest_t(a->t, height, a->offset[1], &y);
    texel_2d(st, a->level, st->v->first_layer, x, y, tx);
    store(rgba, tx);
}

static void img_filter_2d_nearest(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    filter_2d_nearest(st, a, rgba, st->vs.nearest_s, st->vs.nearest_t);
}

/* the same for CLAMP_TO_EDGE in s and t (normalized), the wrap code inlined */
static void img_filter_2d_nearest_clamp_to_edge(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    filter_2d_nearest(st, a, rgba, wrap_nearest_clamp_to_edge, wrap_nearest_clamp_to_edge);
}

static void img_filter_2d_array_nearest(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    const unsigned width = u_minify(st->v->width0, a->level);
    const unsigned height = u_minify(st->v->height0, a->level);
    const int layer = coord_to_layer(a->p, st->v->first_layer, st->v->last_layer);
    int x, y;
    float tx[4];
    st->vs.nearest_s(a->s, width, a->offset[0], &x);
    st->vs.nearest_t(a->t, height, a->offset[1], &y);
    texel_2d(st, a->level, (unsigned)layer, x, y, tx);
    store(rgba, tx);
}

static void img_filter_cube_nearest(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    const unsigned width = u_minify(st->v->width0, a->level);
    const unsigned height = u_minify(st->v->height0, a->level);
    const int layerface = (int)(a->face + st->v->first_layer);
    int x, y;
    float tx[4];
    /* seamless: nearest within a level always clamps to the edge */
    if (st->v->seamless_cube_map) {
        wrap_nearest_clamp_to_edge(a->s, width, a->offset[0], &x);
        wrap_nearest_clamp_to_edge(a->t, height, a->offset[1], &y);
    } else {
        st->vs.nearest_s(a->s, width, a->offset[0], &x);
        st->vs.nearest_t(a->t, height, a->offset[1], &y);
    }
    texel_2d(st, a->level, (unsigned)layerface, x, y, tx);
    store(rgba, tx);
}

static int cube_array_layer(const struct sampler_state *st, float p)
{
    const int l = add_wrap(mul_wrap(6, util_ifloor(p + 0.5f)), (int)st->v->first_layer);
    return M_CLAMP(l, (int)st->v->first_layer, (int)st->v->last_layer - 5);
}

static void img_filter_cube_array_nearest(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    const unsigned width = u_minify(st->v->width0, a->level);
    const unsigned height = u_minify(st->v->height0, a->level);
    const int layerface = cube_array_layer(st, a->p) + (int)a->face;
    int x, y;
    float tx[4];
    st->vs.nearest_s(a->s, width, a->offset[0], &x);
    st->vs.nearest_t(a->t, height, a->offset[1], &y);
    texel_2d(st, a->level, (unsigned)layerface, x, y, tx);
    store(rgba, tx);
}

static void img_filter_3d_nearest(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    const unsigned width = u_minify(st->v->width0, a->level);
    const unsigned height = u_minify(st->v->height0, a->level);
    const unsigned depth = u_minify(st->v->depth0, a->level);
    int x, y, z;
    float tx[4];
    st->vs.nearest_s(a->s, width, a->offset[0], &x);
    st->vs.nearest_t(a->t, height, a->offset[1], &y);
    st->vs.nearest_p(a->p, depth, a->offset[2], &z);
    texel_3d(st, a->level, x, y, z, tx);
    store(rgba, tx);
}

static void img_filter_1d_linear(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    const unsigned width = u_minify(st->v->width0, a->level);
    int x0, x1;
    float xw, tx0[4], tx1[4];
    st->vs.linear_s(a->s, width, a->offset[0], &x0, &x1, &xw);
    group_begin(st);
    texel_1d_array(st, a->level, x0, (int)st->v->first_layer, tx0);
    texel_1d_array(st, a->level, x1, (int)st->v->first_layer, tx1);
    group_end(st);
    for (int c = 0; c < 4; c++) rgba[4 * c] = lerp(xw, tx0[c], tx1[c]);
}

static void img_filter_1d_array_linear(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    const unsigned width = u_minify(st->v->width0, a->level);
    const int layer = coord_to_layer(a->t, st->v->first_layer, st->v->last_layer);
    int x0, x1;
    float xw, tx0[4], tx1[4];
    st->vs.linear_s(a->s, width, a->offset[0], &x0, &x1, &xw);
    group_begin(st);
    texel_1d_array(st, a->level, x0, layer, tx0);
    texel_1d_array(st, a->level, x1, layer, tx1);
    group_end(st);
    for (int c = 0; c < 4; c++) rgba[4 * c] = lerp(xw, tx0[c], tx1[c]);
}

/* get_gather_value: result channel c is texel {2, 3, 1, 0}[c] of the footprint
 * (x0,y0) (x1,y0) (x0,y1) (x1,y1), component = the view's swizzle of gather_comp */
static float gather_value(const struct sampler_state *st, int c, float tx[4][4])
{
    static const int texel_of_channel[4] = {2, 3, 1, 0};
    const unsigned swizzle = st->v->swizzle[st->gather_comp];
    if (swizzle == SWZ_0) return 0.0f;
    if (swizzle == SWZ_1) return 1.0f; /* oneval: no pure integer formats */
    return tx[texel_of_channel[c]][swizzle];
}

static inline __attribute__((always_inline)) void lerp_quad(const struct sampler_state *st, float *rgba, float xw,
                                                            float yw, float tx[4][4])
{
    if (st->gather_only)
        for (int c = 0; c < 4; c++) rgba[4 * c] = gather_value(st, c, tx);
    else
        lerp_2d_texels(rgba, xw, yw, tx);
}

/* img_filter_2d_linear with the wrap functions given (constants where it is inlined) */
static inline __attribute__((always_inline)) void filter_2d_linear(const struct sampler_state *st,
                                                                   const struct img_args *a, float *rgba,
                                                                   wrap_linear_fn linear_s, wrap_linear_fn linear_t)
{
    const unsigned width = u_minify(st->v->width0, a->level);
    const unsigned height = u_minify(st->v->height0, a->level);
    const unsigned layer = st->v->first_layer;
    int x0, y0, x1, y1;
    float xw, yw, tx[4][4];
    linear_s(a->s, width, a->offset[0], &x0, &x1, &xw);
    linear_t(a->t, height, a->offset[1], &y0, &y1, &yw);
    if (x0 >= 0 && x1 >= 0 && y0 >= 0 && y1 >= 0 && M_MAX2(x0, x1) < (int)width && M_MAX2(y0, y1) < (int)height) {
        fetch_footprint(st, a->level, layer, x0, x1, y0, y1, tx); /* texel_2d x 4, no border */
    } else {
        group_begin(st);
        texel_2d(st, a->level, layer, x0, y0, tx[0]);
        texel_2d(st, a->level, layer, x1, y0, tx[1]);
        texel_2d(st, a->level, layer, x0, y1, tx[2]);
        texel_2d(st, a->level, layer, x1, y1, tx[3]);
        group_end(st);
    }
    lerp_quad(st, rgba, xw, yw, tx);
}

static void img_filter_2d_linear(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    filter_2d_linear(st, a, rgba, st->vs.linear_s, st->vs.linear_t);
}

/* the same for CLAMP_TO_EDGE in s and t (normalized), the wrap code inlined */
static void img_filter_2d_linear_clamp_to_edge(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    filter_2d_linear(st, a, rgba, wrap_linear_clamp_to_edge, wrap_linear_clamp_to_edge);
}

static void img_filter_2d_array_linear(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    const unsigned width = u_minify(st->v->width0, a->level);
    const unsigned height = u_minify(st->v->height0, a->level);
    const unsigned layer = (unsigned)coord_to_layer(a->p, st->v->first_layer, st->v->last_layer);
    int x0, y0, x1, y1;
    float xw, yw, tx[4][4];
    st->vs.linear_s(a->s, width, a->offset[0], &x0, &x1, &xw);
    st->vs.linear_t(a->t, height, a->offset[1], &y0, &y1, &yw);
    group_begin(st);
    texel_2d(st, a->level, layer, x0, y0, tx[0]);
    texel_2d(st, a->level, layer, x1, y0, tx[1]);
    texel_2d(st, a->level, layer, x0, y1, tx[2]);
    texel_2d(st, a->level, layer, x1, y1, tx[3]);
    group_end(st);
    lerp_quad(st, rgba, xw, yw, tx);
}

/* Seamless cube maps: the face a texel off the edge of face `face` falls on
 * and its coordinates there (sp_tex_sample.c's face_array, get_next_xcoord,
 * get_next_ycoord; fall-off index 0 = x-, 1 = x+, 2 = y-, 3 = y+). */
static const unsigned next_face[6][4] = {
    {FACE_POS_Z, FACE_NEG_Z, FACE_POS_Y, FACE_NEG_Y}, /* +X */
    {FACE_NEG_Z, FACE_POS_Z, FACE_POS_Y, FACE_NEG_Y}, /* -X */
    {FACE_NEG_X, FACE_POS_X, FACE_NEG_Z, FACE_POS_Z}, /* +Y */
    {FACE_NEG_X, FACE_POS_X, FACE_POS_Z, FACE_NEG_Z}, /* -Y */
    {FACE_NEG_X, FACE_POS_X, FACE_POS_Y, FACE_NEG_Y}, /* +Z */
    {FACE_POS_X, FACE_NEG_X, FACE_POS_Y, FACE_NEG_Y}, /* -Z */
};

static int next_xcoord(unsigned face, unsigned fall, int max, int xc, int yc)
{
    if ((face == 0 && fall != 1) || (face == 1 && fall == 0) || (face == 4 && fall == 0) || (face == 5 && fall == 0))
        return max;
    if ((face == 1 && fall != 0) || (face == 0 && fall == 1) || (face == 4 && fall == 1) || (face == 5 && fall == 1))
        return 0;
    if ((face == 4 && fall >= 2) || (face == 2 && fall == 3) || (face == 3 && fall == 2)) return xc;
    if ((face == 5 && fall >= 2) || (face == 2 && fall == 2) || (face == 3 && fall == 3)) return max - xc;
    if ((face == 2 && fall == 0) || (face == 3 && fall == 1)) return yc;
    return max - yc;
}

static int next_ycoord(unsigned face, unsigned fall, int max, int xc, int yc)
{
    if (fall <= 1 && (face <= 1 || face >= 4)) return yc;
    if (face == 2 || (face == 4 && fall == 3) || (face == 5 && fall == 2)) return 0;
    if (face == 3 || (face == 4 && fall == 2) || (face == 5 && fall == 3)) return max;
    if ((face == 0 && fall == 3) || (face == 1 && fall == 2)) return xc;
    return max - xc;
}

static void texel_cube_seamless(const struct sampler_state *st, unsigned level, int x, int y, int layer, unsigned face,
                                float out[4])
{
    const int max_x = (int)u_minify(st->v->width0, level);
    int new_x = x, new_y = y;
    int fall = -1;
    if (x < 0) {
        if (y < 0 || y >= max_x) y = M_CLAMP(y, 0, max_x - 1);
        fall = 0;
    } else if (x >= max_x) {
        if (y < 0 || y >= max_x) y = M_CLAMP(y, 0, max_x - 1);
        fall = 1;
    } else if (y < 0) {
        fall = 2;
    } else if (y >= max_x) {
        fall = 3;
    }
    if (fall >= 0) {
        new_x = next_xcoord(face, (unsigned)fall, max_x - 1, x, y);
        new_y = next_ycoord(face, (unsigned)fall, max_x - 1, x, y);
        face = next_face[face][fall];
    }
    texel_3d_nb(st, level, new_x, new_y, layer + (int)face, out);
}

static void cube_linear_common(const struct sampler_state *st, const struct img_args *a, int layer, float *rgba)
{
    const unsigned width = u_minify(st->v->width0, a->level);
    const unsigned height = u_minify(st->v->height0, a->level);
    int x0, y0, x1, y1;
    float xw, yw, tx[4][4];
    if (st->v->seamless_cube_map) {
        wrap_linear_clamp_to_border(a->s, width, a->offset[0], &x0, &x1, &xw);
        wrap_linear_clamp_to_border(a->t, height, a->offset[1], &y0, &y1, &yw);
        group_begin(st);
        texel_cube_seamless(st, a->level, x0, y0, layer, a->face, tx[0]);
        texel_cube_seamless(st, a->level, x1, y0, layer, a->face, tx[1]);
        texel_cube_seamless(st, a->level, x0, y1, layer, a->face, tx[2]);
        texel_cube_seamless(st, a->level, x1, y1, layer, a->face, tx[3]);
        group_end(st);
    } else {
        const unsigned lf = (unsigned)layer + a->face;
        st->vs.linear_s(a->s, width, a->offset[0], &x0, &x1, &xw);
        st->vs.linear_t(a->t, height, a->offset[1], &y0, &y1, &yw);
        group_begin(st);
        texel_2d(st, a->level, lf, x0, y0, tx[0]);
        texel_2d(st, a->level, lf, x1, y0, tx[1]);
        texel_2d(st, a->level, lf, x0, y1, tx[2]);
        texel_2d(st, a->level, lf, x1, y1, tx[3]);
        group_end(st);
    }
    lerp_quad(st, rgba, xw, yw, tx);
}

static void img_filter_cube_linear(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    cube_linear_common(st, a, (int)st->v->first_layer, rgba);
}

static void img_filter_cube_array_linear(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    cube_linear_common(st, a, cube_array_layer(st, a->p), rgba);
}

static void img_filter_3d_linear(const struct sampler_state *st, const struct img_args *a, float *rgba)
{
    const unsigned width = u_minify(st->v->width0, a->level);
    const unsigned height = u_minify(st->v->height0, a->level);
    const unsigned depth = u_minify(st->v->depth0, a->level);
    int x0, x1, y0, y1, z0, z1;
    float xw, yw, zw, tx[8][4];
    st->vs.linear_s(a->s, width, a->offset[0], &x0, &x1, &xw);
    st->vs.linear_t(a->t, height, a->offset[1], &y0, &y1, &yw);
    st->vs.linear_p(a->p, depth, a->offset[2], &z0, &z1, &zw);
    group_begin(st);
    texel_3d(st, a->level, x0, y0, z0, tx[0]);
    texel_3d(st, a->level, x1, y0, z0, tx[1]);
    texel_3d(st, a->level, x0, y1, z0, tx[2]);
    texel_3d(st, a->level, x1, y1, z0, tx[3]);
    texel_3d(st, a->level, x0, y0, z1, tx[4]);
    texel_3d(st, a->level, x1, y0, z1, tx[5]);
    texel_3d(st, a->level, x0, y1, z1, tx[6]);
    texel_3d(st, a->level, x1, y1, z1, tx[7]);
    group_end(st);
    for (int c = 0; c < 4; c++)
        rgba[4 * c] =
            lerp_3d(xw, yw, zw, tx[0][c], tx[1][c], tx[2][c], tx[3][c], tx[4][c], tx[5][c], tx[6][c], tx[7][c]);
}

/* get_img_filter (without gather) */
static img_filter_fn get_img_filter(const struct sampler_state *st, unsigned filter)
{
    const struct tbr_texture_view *v = st->v;
    switch (v->target) {
        case TEX_1D: return filter == FILTER_NEAREST ? img_filter_1d_nearest : img_filter_1d_linear;
        case TEX_1D_ARRAY: return filter == FILTER_NEAREST ? img_filter_1d_array_nearest : img_filter_1d_array_linear;
        case TEX_2D:
        case TEX_RECT:
            if (!st->gather_only && st->vs.pot2d && v->wrap_s == v->wrap_t && v->normalized_coords) {
                if (v->wrap_s == WRAP_REPEAT)
                    return filter == FILTER_NEAREST ? img_filter_2d_nearest_repeat_POT
                                                    : img_filter_2d_linear_repeat_POT;
                if (v->wrap_s == WRAP_CLAMP && filter == FILTER_NEAREST) return img_filter_2d_nearest_clamp_POT;
            }
            if (filter != FILTER_NEAREST && st->vs.linear_s == wrap_linear_clamp_to_edge &&
                st->vs.linear_t == wrap_linear_clamp_to_edge)
                return img_filter_2d_linear_clamp_to_edge;
            if (filter == FILTER_NEAREST && st->vs.nearest_s == wrap_nearest_clamp_to_edge &&
                st->vs.nearest_t == wrap_nearest_clamp_to_edge)
                return img_filter_2d_nearest_clamp_to_edge;
            return filter == FILTER_NEAREST ? img_filter_2d_nearest : img_filter_2d_linear;
        case TEX_2D_ARRAY: return filter == FILTER_NEAREST ? img_filter_2d_array_nearest : img_filter_2d_array_linear;
        case TEX_CUBE: return filter == FILTER_NEAREST ? img_filter_cube_nearest : img_filter_cube_linear;
        case TEX_CUBE_ARRAY:
            return filter == FILTER_NEAREST ? img_filter_cube_array_nearest : img_filter_cube_array_linear;
        default: /* TEX_3D */ return filter == FILTER_NEAREST ? img_filter_3d_nearest : img_filter_3d_linear;
    }
}

/* ---- level of detail ---- */

static float lambda_from_derivs(const struct tbr_texture_view *v, float dsdx, float dsdy, float dtdx, float dtdy,
                                float dpdx, float dpdy)
{
    dsdx = fabsf(dsdx);
    dsdy = fabsf(dsdy);
    dtdx = fabsf(dtdx);
    dtdy = fabsf(dtdy);
    dpdx = fabsf(dpdx);
    dpdy = fabsf(dpdy);
    const unsigned fl = v->first_level;
    switch (v->target) {
        case TEX_1D:
        case TEX_1D_ARRAY: {
            const float rho = M_MAX2(dsdx, dsdy) * u_minify(v->width0, fl);
            return util_fast_log2(rho);
        }
        case TEX_2D:
        case TEX_2D_ARRAY:
        case TEX_RECT: {
            const float maxx = M_MAX2(dsdx, dsdy) * u_minify(v->width0, fl);
            const float maxy = M_MAX2(dtdx, dtdy) * u_minify(v->height0, fl);
            const float rho = M_MAX2(maxx, maxy);
            return util_fast_log2(rho);
        }
        case TEX_CUBE:
        case TEX_CUBE_ARRAY: {
            const float maxx = M_MAX2(dsdx, dsdy);
            const float maxy = M_MAX2(dtdx, dtdy);
            const float maxz = M_MAX2(dpdx, dpdy);
            const float rho = M_MAX3(maxx, maxy, maxz) * u_minify(v->width0, fl) / 2.0f;
            return util_fast_log2(rho);
        }
        default: { /* 3D */
            const float maxx = M_MAX2(dsdx, dsdy) * u_minify(v->width0, fl);
            const float maxy = M_MAX2(dtdx, dtdy) * u_minify(v->height0, fl);
            const float maxz = M_MAX2(dpdx, dpdy) * u_minify(v->depth0, fl);
            const float rho = M_MAX3(maxx, maxy, maxz);
            return util_fast_log2(rho);
        }
    }
}

/* compute_lambda_{1d,2d,3d,cube}: derivatives from the quad's coordinates */
static float compute_lambda(const struct tbr_texture_view *v, const float s[4], const float t[4], const float p[4])
{
    return lambda_from_derivs(v, s[QUAD_BOTTOM_RIGHT] - s[QUAD_BOTTOM_LEFT], s[QUAD_TOP_LEFT] - s[QUAD_BOTTOM_LEFT],
                              t[QUAD_BOTTOM_RIGHT] - t[QUAD_BOTTOM_LEFT], t[QUAD_TOP_LEFT] - t[QUAD_BOTTOM_LEFT],
                              p[QUAD_BOTTOM_RIGHT] - p[QUAD_BOTTOM_LEFT], p[QUAD_TOP_LEFT] - p[QUAD_BOTTOM_LEFT]);
}

/* compute_lambda_lod */
static void compute_lambda_lod(const struct tbr_texture_view *v, const float s[4], const float t[4], const float p[4],
                               float derivs[3][2][4], const float lod_in[4], enum tbr_sampler_control control,
                               float lod[4])
{
    const float lod_bias = v->lod_bias;
    float lambda;
    switch (control) {
        case TBR_SAMPLER_LOD_NONE:
            lambda = compute_lambda(v, s, t, p) + lod_bias;
            lod[0] = lod[1] = lod[2] = lod[3] = lambda;
            break;
        case TBR_SAMPLER_DERIVS_EXPLICIT:
            for (int i = 0; i < 4; i++)
                lod[i] = lambda_from_derivs(v, derivs[0][0][i], derivs[0][1][i], derivs[1][0][i], derivs[1][1][i],
                                            derivs[2][0][i], derivs[2][1][i]);
            break;
        case TBR_SAMPLER_LOD_BIAS:
            lambda = compute_lambda(v, s, t, p) + lod_bias;
            for (int i = 0; i < 4; i++) lod[i] = lambda + lod_in[i];
            break;
        case TBR_SAMPLER_LOD_EXPLICIT:
            for (int i = 0; i < 4; i++) lod[i] = lod_in[i] + lod_bias;
            break;
        default: /* LOD_ZERO, GATHER */ lod[0] = lod[1] = lod[2] = lod[3] = lod_bias; break;
    }
    for (int i = 0; i < 4; i++) lod[i] = M_CLAMP(lod[i], v->min_lod, v->max_lod);
}

/* ---- mipmap filters ---- */

static void set_lane(struct sampler_state *st, struct img_args *a, const struct quad_args *q, int j)
{
    st->lane = (unsigned)j;
    a->s = q->s[j];
    a->t = q->t[j];
    a->p = q->p[j];
    a->face = q->faces[j];
    a->offset = q->offset;
}

/* An image filter call; clamp_2d_linear (a constant where it is inlined): the filter is
 * img_filter_2d_linear_clamp_to_edge, called inlined (the mip filters specialised for it,
 * get_filters). */
static inline __attribute__((always_inline)) void call_img_filter(const struct sampler_state *st, img_filter_fn filter,
                                                                  const struct img_args *a, float *rgba,
                                                                  int clamp_2d_linear)
{
    if (clamp_2d_linear)
        filter_2d_linear(st, a, rgba, wrap_linear_clamp_to_edge, wrap_linear_clamp_to_edge);
    else
        filter(st, a, rgba);
}

static inline __attribute__((always_inline)) void
mip_filter_linear_with(struct sampler_state *st, img_filter_fn min_filter, img_filter_fn mag_filter,
                       const struct quad_args *q, const float lod[4], float rgba[4][4], int clamp_2d_linear)
{
    const struct tbr_texture_view *v = st->v;
    struct img_args a;
    for (int j = 0; j < 4; j++) {
        const int level0 = (int)v->first_level + (int)lod[j];
        set_lane(st, &a, q, j);
        if (lod[j] <= 0.0 || level0 >= (int)v->last_level) { /* magnified, or past the last level */
            const int mag = lod[j] <= 0.0;
            a.level = mag ? v->first_level : v->last_level;
            call_img_filter(st, mag ? mag_filter : min_filter, &a, &rgba[0][j], clamp_2d_linear);
        } else {
            const float level_blend = frac(lod[j]);
            float rgbax[4][4];
            for (int k = 0; k < 2; k++) {
                a.level = (unsigned)level0 + (unsigned)k;
                call_img_filter(st, min_filter, &a, &rgbax[0][k], clamp_2d_linear);
            }
            for (int c = 0; c < 4; c++) rgba[c][j] = lerp(level_blend, rgbax[c][0], rgbax[c][1]);
        }
    }
}

static void mip_filter_linear(struct sampler_state *st, img_filter_fn min_filter, img_filter_fn mag_filter,
                              const struct quad_args *q, const float lod[4], float rgba[4][4])
{
    mip_filter_linear_with(st, min_filter, mag_filter, q, lod, rgba, 0);
}

static void mip_filter_nearest(struct sampler_state *st, img_filter_fn min_filter, img_filter_fn mag_filter,
                               const struct quad_args *q, const float lod[4], float rgba[4][4])
{
    const struct tbr_texture_view *v = st->v;
    struct img_args a;
    for (int j = 0; j < 4; j++) {
        set_lane(st, &a, q, j);
        if (lod[j] <= 0.0f && !st->gather_only) {
            a.level = v->first_level;
            mag_filter(st, &a, &rgba[0][j]);
        } else {
            const int level = (int)v->first_level + (int)(lod[j] + 0.5F);
            a.level = (unsigned)M_MIN2(level, (int)v->last_level);
            min_filter(st, &a, &rgba[0][j]);
        }
    }
}

static void mip_filter_none(struct sampler_state *st, img_filter_fn min_filter, img_filter_fn mag_filter,
                            const struct quad_args *q, const float lod[4], float rgba[4][4])
{
    struct img_args a;
    for (int j = 0; j < 4; j++) {
        set_lane(st, &a, q, j);
        a.level = st->v->first_level;
        if (lod[j] <= 0.0f)
            mag_filter(st, &a, &rgba[0][j]);
        else
            min_filter(st, &a, &rgba[0][j]);
    }
}

static inline __attribute__((always_inline)) void
mip_filter_none_no_filter_select_with(struct sampler_state *st, img_filter_fn mag_filter, const struct quad_args *q,
                                      float rgba[4][4], int clamp_2d_linear)
{
    struct img_args a;
    for (int j = 0; j < 4; j++) {
        set_lane(st, &a, q, j);
        a.level = st->v->first_level;
        call_img_filter(st, mag_filter, &a, &rgba[0][j], clamp_2d_linear);
    }
}

static void mip_filter_none_no_filter_select(struct sampler_state *st, img_filter_fn min_filter,
                                             img_filter_fn mag_filter, const struct quad_args *q, const float lod[4],
                                             float rgba[4][4])
{
    (void)min_filter;
    (void)lod;
    mip_filter_none_no_filter_select_with(st, mag_filter, q, rgba, 0);
}

static void mip_filter_linear_2d_linear_repeat_POT(struct sampler_state *st, img_filter_fn min_filter,
                                                   img_filter_fn mag_filter, const struct quad_args *q,
                                                   const float lod[4], float rgba[4][4])
{
    (void)min_filter;
    (void)mag_filter;
    const struct tbr_texture_view *v = st->v;
    struct img_args a;
    for (int j = 0; j < 4; j++) {
        const int level0 = (int)v->first_level + (int)lod[j];
        set_lane(st, &a, q, j);
        /* one unsigned comparison catches both negative and large level0 */
        if ((unsigned)level0 >= v->last_level) {
            a.level = level0 < 0 ? v->first_level : v->last_level;
            img_filter_2d_linear_repeat_POT(st, &a, &rgba[0][j]);
        } else {
            const float level_blend = frac(lod[j]);
            float rgbax[4][4];
            a.level = (unsigned)level0;
            img_filter_2d_linear_repeat_POT(st, &a, &rgbax[0][0]);
            a.level = (unsigned)level0 + 1;
            img_filter_2d_linear_repeat_POT(st, &a, &rgbax[0][1]);
            for (int c = 0; c < 4; c++) rgba[c][j] = lerp(level_blend, rgbax[c][0], rgbax[c][1]);
        }
    }
}

/* mip_filter_linear and mip_filter_none_no_filter_select for a 2D view whose min and mag
 * filters are both img_filter_2d_linear_clamp_to_edge (get_filters' choice): the same
 * code, the filter inlined (terrain's post-processing passes sample such views). */
static void mip_filter_linear_2d_linear_clamp_to_edge(struct sampler_state *st, img_filter_fn min_filter,
                                                      img_filter_fn mag_filter, const struct quad_args *q,
                                                      const float lod[4], float rgba[4][4])
{
    mip_filter_linear_with(st, min_filter, mag_filter, q, lod, rgba, 1);
}

static void mip_filter_none_2d_linear_clamp_to_edge(struct sampler_state *st, img_filter_fn min_filter,
                                                    img_filter_fn mag_filter, const struct quad_args *q,
                                                    const float lod[4], float rgba[4][4])
{
    (void)min_filter;
    (void)lod;
    mip_filter_none_no_filter_select_with(st, mag_filter, q, rgba, 1);
}

/* softpipe_create_sampler_state's filter_funcs choice + get_filters */
/* ---- anisotropic filtering (sp_tex_sample.c img_filter_2d_ewa, mip_filter_linear_aniso) ---- */

/* Weights and texels of one lane's EWA footprint, read 4 at a time as softpipe buffers
 * them (its args.p is the BUFFER slot's p, kept). */
static void ewa_flush(struct sampler_state *st, img_filter_fn min_filter, const struct quad_args *q, struct img_args *a,
                      const float sb[4], const float tb[4], const float wb[4], unsigned n, float num[4])
{
    float tmp[4][4];
    for (unsigned jj = 0; jj < n; jj++) {
        a->s = sb[jj];
        a->t = tb[jj];
        a->p = q->p[jj];
        min_filter(st, a, &tmp[0][jj]);
        for (int c = 0; c < 4; c++) num[c] += wb[jj] * tmp[c][jj];
    }
}

/* Heckbert's elliptical weighted average over level `level` (>= 0) of the view. */
static void img_filter_2d_ewa(struct sampler_state *st, img_filter_fn min_filter, const struct quad_args *q,
                              unsigned level, float dudx, float dvdx, float dudy, float dvdy, float rgba[4][4])
{
    const struct tbr_texture_view *v = st->v;
    const float scaling = 1.0f / (float)(1u << level);
    const int width = (int)u_minify(v->width0, level), height = (int)u_minify(v->height0, level);
    const float ux = dudx * scaling, vx = dvdx * scaling, uy = dudy * scaling, vy = dvdy * scaling;
    float A = vx * vx + vy * vy + 1;
    float B = -2 * (ux * vx + uy * vy);
    float C = ux * ux + uy * uy + 1;
    const float F = A * C - B * B / 4.0f;
    const float d = -B * B + 4.0f * C * A;
    const float box_u = 2.0f / d * sqrtf(d * C * F), box_v = 2.0f / d * sqrtf(A * d * F);
    const double form_scale = (double)(WEIGHT_LUT_SIZE - 1) / F;
    A *= form_scale;
    B *= form_scale;
    C *= form_scale;
    const float ddq = 2 * A;
    struct img_args a = {0, 0, 0, level, 0, q->offset};
    for (int j = 0; j < 4; j++) {
        st->lane = (unsigned)j;
        const float tex_u = -0.5F + q->s[j] * v->width0 * scaling, tex_v = -0.5F + q->t[j] * v->height0 * scaling;
        const int u0 = (int)floorf(tex_u - box_u), u1 = (int)ceilf(tex_u + box_u);
        const int v0 = (int)floorf(tex_v - box_v), v1 = (int)ceilf(tex_v + box_v);
        const float U = u0 - tex_u;
        float num[4] = {0.0F, 0.0F, 0.0F, 0.0F}, den = 0, sb[4], tb[4], wb[4];
        unsigned n = 0;
        a.face = q->faces[j];
        for (int vv = v0; vv <= v1; ++vv) {
            const float V = vv - tex_v;
            float dq = A * (2 * U + 1) + B * V;
            float qv = (C * V + B * U) * V + A * U * U;
            for (int u = u0; u <= u1; ++u) {
                if (qv < WEIGHT_LUT_SIZE) {
                    const int qi = qv >= 0.0F ? qv : 0;
                    const float weight = ewa_weight[qi];
                    wb[n] = weight;
                    sb[n] = u / ((float)width);
                    tb[n] = vv / ((float)height);
                    if (++n == 4) {
                        ewa_flush(st, min_filter, q, &a, sb, tb, wb, n, num);
                        n = 0;
                    }
                    den += weight;
                }
                qv += dq;
                dq += ddq;
            }
        }
        if (n > 0) ewa_flush(st, min_filter, q, &a, sb, tb, wb, n, num);
        if (den <= 0.0F) { /* no texel inside the ellipse: the lane's own coordinates */
            float tmp[4][4];
            a.s = q->s[j];
            a.t = q->t[j];
            a.p = q->p[j];
            min_filter(st, &a, &tmp[0][j]);
            den = 1;
            for (int c = 0; c < 4; c++) num[c] = tmp[c][j];
        }
        for (int c = 0; c < 4; c++) rgba[c][j] = num[c] / den;
    }
}

/* mip_filter_linear_aniso of Mesa 22.3.6 with our patch 0007 (issue #24 section 1): for
 * an LOD bias, compute_lod adds the shader's own bias to the anisotropic lambda (unpatched
 * softpipe added compute_lambda_lod's final LOD, counting the bias twice); explicit
 * derivatives keep lod[] (the "XXX FIXME" in softpipe); the level comes from lane 0's LOD;
 * no interpolation between levels. Its min filter is the nearest one. */
static void mip_filter_linear_aniso(struct sampler_state *st, img_filter_fn min_filter, img_filter_fn mag_filter,
                                    const struct quad_args *q, const float lod_in[4], float rgba[4][4])
{
    (void)mag_filter;
    const struct tbr_texture_view *v = st->v;
    const float s_to_u = u_minify(v->width0, v->first_level), t_to_v = u_minify(v->height0, v->first_level);
    const float *s = q->s, *t = q->t;
    const float dudx = (s[QUAD_BOTTOM_RIGHT] - s[QUAD_BOTTOM_LEFT]) * s_to_u;
    const float dudy = (s[QUAD_TOP_LEFT] - s[QUAD_BOTTOM_LEFT]) * s_to_u;
    const float dvdx = (t[QUAD_BOTTOM_RIGHT] - t[QUAD_BOTTOM_LEFT]) * t_to_v;
    const float dvdy = (t[QUAD_TOP_LEFT] - t[QUAD_BOTTOM_LEFT]) * t_to_v;
    float lod[4];
    if (q->control == TBR_SAMPLER_LOD_BIAS || q->control == TBR_SAMPLER_LOD_NONE ||
        q->control == TBR_SAMPLER_DERIVS_EXPLICIT) {
        const float px2 = dudx * dudx + dvdx * dvdx, py2 = dudy * dudy + dvdy * dvdy;
        const float max_ecc = (float)(v->max_anisotropy * v->max_anisotropy);
        const float pmax2 = px2 < py2 ? py2 : px2;
        float pmin2 = px2 < py2 ? px2 : py2;
        if (pmax2 / pmin2 > max_ecc) pmin2 = pmax2 / max_ecc;
        const float lambda = 0.5F * util_fast_log2(pmin2) + v->lod_bias;
        for (int i = 0; i < 4; i++) /* compute_lod */
            lod[i] = q->control == TBR_SAMPLER_LOD_NONE ? M_CLAMP(lambda, v->min_lod, v->max_lod)
                     : q->control == TBR_SAMPLER_DERIVS_EXPLICIT
                         ? lod_in[i]
                         : M_CLAMP(lambda + q->shader_lod_in[i], v->min_lod, v->max_lod);
    } else { /* explicit LOD, LOD zero */
        for (int i = 0; i < 4; i++)
            lod[i] = q->control == TBR_SAMPLER_LOD_EXPLICIT ? M_CLAMP(lod_in[i], v->min_lod, v->max_lod)
                                                            : M_CLAMP(v->lod_bias, v->min_lod, v->max_lod);
    }
    const int level0 = (int)v->first_level + (int)lod[0];
    if (level0 < 0 || level0 >= 31) { /* softpipe passes it on as an unsigned level: not reproducible */
        if (st->grp) st->grp->inexact = 1;
        memset(rgba, 0, 16 * sizeof(float));
        return;
    }
    if (level0 >= (int)v->last_level) { /* the ellipse covers the whole image */
        struct img_args a;
        for (int j = 0; j < 4; j++) {
            set_lane(st, &a, q, j);
            a.level = v->last_level;
            min_filter(st, &a, &rgba[0][j]);
        }
        return;
    }
    img_filter_2d_ewa(st, min_filter, q, (unsigned)level0, dudx, dvdx, dudy, dvdy, rgba);
}

static mip_filter_fn get_filters(const struct sampler_state *st, img_filter_fn *min, img_filter_fn *mag)
{
    const struct tbr_texture_view *v = st->v;
    if (st->gather_only) {
        /* mip NEAREST with the LINEAR filter in its gather form; no mag filter */
        *min = get_img_filter(st, FILTER_LINEAR);
        *mag = NULL;
        return mip_filter_nearest;
    }
    const int min_mag_equal_repeat_linear = v->min_mip_filter == MIP_LINEAR && v->min_img_filter == v->mag_img_filter &&
                                            v->normalized_coords && v->wrap_s == WRAP_REPEAT &&
                                            v->wrap_t == WRAP_REPEAT && v->min_img_filter == FILTER_LINEAR &&
                                            v->max_anisotropy <= 1;
    if (st->vs.pot2d && min_mag_equal_repeat_linear) {
        *min = *mag = NULL;
        return mip_filter_linear_2d_linear_repeat_POT;
    }
    if (v->min_mip_filter == MIP_LINEAR && v->max_anisotropy > 1) { /* its min filter becomes NEAREST */
        *min = get_img_filter(st, FILTER_NEAREST);
        *mag = v->mag_img_filter == FILTER_NEAREST ? *min : get_img_filter(st, v->mag_img_filter);
        return mip_filter_linear_aniso;
    }
    *min = get_img_filter(st, v->min_img_filter);
    *mag = v->min_img_filter == v->mag_img_filter ? *min : get_img_filter(st, v->mag_img_filter);
    if (*min == img_filter_2d_linear_clamp_to_edge && *mag == *min) {
        if (v->min_mip_filter == MIP_LINEAR) return mip_filter_linear_2d_linear_clamp_to_edge;
        if (v->min_mip_filter == MIP_NONE) return mip_filter_none_2d_linear_clamp_to_edge;
    }
    switch (v->min_mip_filter) {
        case MIP_NONE:
            return v->min_img_filter == v->mag_img_filter ? mip_filter_none_no_filter_select : mip_filter_none;
        case MIP_NEAREST: return mip_filter_nearest;
        default: return mip_filter_linear;
    }
}

/* ---- compare and swizzle ---- */

static void sample_compare(const struct sampler_state *st, const float c0[4], float rgba[4][4])
{
    float pc[4];
    int k[4][4];
    for (int j = 0; j < 4; j++)
        pc[j] = tbr_sampler_format_compare_is_float(st->vs.fmt) ? c0[j] : M_CLAMP(c0[j], 0.0F, 1.0F);
    /* gather compares all four gathered texels, otherwise the first channel */
    const int channels = st->gather_only ? 4 : 1;
    for (int ch = 0; ch < channels; ch++) {
        for (int j = 0; j < 4; j++) {
            const float r = rgba[ch][j];
            int *kk = &k[ch][j];
            switch (st->v->compare_func) {
                case FUNC_LESS: *kk = pc[j] < r; break;
                case FUNC_LEQUAL: *kk = pc[j] <= r; break;
                case FUNC_GREATER: *kk = pc[j] > r; break;
                case FUNC_GEQUAL: *kk = pc[j] >= r; break;
                case FUNC_EQUAL: *kk = pc[j] == r; break;
                case FUNC_NOTEQUAL: *kk = pc[j] != r; break;
                case FUNC_ALWAYS: *kk = 1; break;
                default: *kk = 0; break;
            }
        }
    }
    for (int j = 0; j < 4; j++) {
        if (st->gather_only) {
            for (int ch = 0; ch < 4; ch++) rgba[ch][j] = (float)k[ch][j];
        } else {
            rgba[0][j] = (float)k[0][j];
            rgba[1][j] = (float)k[0][j];
            rgba[2][j] = (float)k[0][j];
            rgba[3][j] = 1.0F;
        }
    }
}

static void do_swizzling(const struct tbr_texture_view *v, float rgba[4][4])
{
    float in[4][4];
    memcpy(in, rgba, sizeof(in));
    for (int c = 0; c < 4; c++) {
        const unsigned sw = v->swizzle[c];
        const float constant = sw == SWZ_0 ? 0.0f : 1.0f; /* oneval: no pure integer formats */
        if (sw == SWZ_0 || sw == SWZ_1)
            for (int j = 0; j < 4; j++) rgba[c][j] = constant;
        else
            memcpy(rgba[c], in[sw], sizeof(rgba[c]));
    }
}

/* ---- public interface ---- */

static int any_swizzle(const struct tbr_texture_view *v)
{
    return v->swizzle[0] != SWZ_X || v->swizzle[1] != SWZ_Y || v->swizzle[2] != SWZ_Z || v->swizzle[3] != SWZ_W;
}

/* The view's part of the sampler state (what tbr_sampler_prepare stores). */
static void view_state_init(struct view_state *vs, const struct tbr_texture_view *v)
{
    memset(vs, 0, sizeof(*vs));
    vs->fmt = tbr_sampler_format_lookup(v->view_format);
    vs->bytes = vs->fmt ? tbr_sampler_format_bytes(vs->fmt) : 0;
    vs->unorm8_swizzle = vs->fmt ? tbr_sampler_format_unorm8_swizzle(vs->fmt) : NULL;
    for (int c = 0; c < 4 && vs->unorm8_swizzle; c++) {
        const uint8_t sw = vs->unorm8_swizzle[c];
        vs->u8_byte[c] = sw < TBR_SAMPLER_SWIZZLE_0 ? sw : 0;
        vs->u8_add[c] = sw < TBR_SAMPLER_SWIZZLE_0 ? 0 : sw == TBR_SAMPLER_SWIZZLE_0 ? 256 : 512;
    }
    vs->pot2d = is_pot_or_zero(v->width0) && is_pot_or_zero(v->height0) && is_pot_or_zero(v->depth0) &&
                (v->target == TEX_2D || v->target == TEX_RECT);
    vs->xpot = util_logbase2(v->width0);
    vs->ypot = util_logbase2(v->height0);
    vs->need_swizzle = any_swizzle(v);
    vs->nearest_s = nearest_wrap(v->wrap_s, v->normalized_coords);
    vs->nearest_t = nearest_wrap(v->wrap_t, v->normalized_coords);
    vs->nearest_p = nearest_wrap(v->wrap_r, v->normalized_coords);
    vs->linear_s = linear_wrap(v->wrap_s, v->normalized_coords);
    vs->linear_t = linear_wrap(v->wrap_t, v->normalized_coords);
    vs->linear_p = linear_wrap(v->wrap_r, v->normalized_coords);
    /* sp_tgsi_get_samples: the border color clamped for normalized formats */
    for (int c = 0; c < 4; c++)
        vs->border[c] = vs->fmt && tbr_sampler_format_is_unorm(vs->fmt) ? M_CLAMP(v->border_color[c], 0.0f, 1.0f)
                                                                        : v->border_color[c];
    struct sampler_state st = {.v = v, .vs = *vs}; /* gather_only 0 */
    vs->mip_filter = get_filters(&st, &vs->min_filter, &vs->mag_filter);
}

/* prepared: the bytes of the view's view_state_init (tbr_sampler_prepared), or NULL to
 * compute it. */
static void init_state(struct sampler_state *st, const struct tbr_texture_view *v, const unsigned char *prepared,
                       tbr_texel_observer observer, tbr_footprint_observer footprint_observer, void *observer_ctx)
{
    st->v = v;
    if (prepared)
        memcpy(&st->vs, prepared, sizeof(st->vs));
    else
        view_state_init(&st->vs, v);
    st->observer = observer;
    st->footprint_observer = footprint_observer;
    st->observer_ctx = observer_ctx;
    st->lane = 0;
    st->gather_only = 0;
    st->gather_comp = 0;
    st->grp = NULL;
}

static int fail(char *why, size_t whylen, const char *fmt, unsigned a, unsigned b)
{
    if (why && whylen) snprintf(why, whylen, fmt, a, b);
    return 0;
}

int tbr_sampler_control_supported(enum tbr_sampler_control control, char *why, size_t whylen)
{
    if (control > TBR_SAMPLER_GATHER) return fail(why, whylen, "sampler control %u", (unsigned)control, 0);
    return 1;
}

int tbr_sampler_supported(const struct tbr_texture_view *v, char *why, size_t whylen)
{
    const struct tbr_sampler_format *f = tbr_sampler_format_lookup(v->view_format);
    if (v->target == TEX_BUFFER || v->target > TEX_CUBE_ARRAY)
        return fail(why, whylen, "texture target %u", v->target, 0);
    if (!f) {
        if (why && whylen) snprintf(why, whylen, "format %u", v->view_format);
        return 0;
    }
    if (v->resource_format != v->view_format) {
        const struct tbr_sampler_format *rf = tbr_sampler_format_lookup(v->resource_format);
        if (!rf || tbr_sampler_format_bytes(rf) != tbr_sampler_format_bytes(f))
            return fail(why, whylen, "view format %u of a resource of format %u", v->view_format, v->resource_format);
    }
    if (!v->width0 || !v->height0 || !v->depth0 || !v->array_size) return fail(why, whylen, "empty texture", 0, 0);
    for (int c = 0; c < 4; c++)
        if (v->swizzle[c] > SWZ_1) return fail(why, whylen, "swizzle %u", v->swizzle[c], 0);
    if (v->wrap_s > WRAP_MIRROR_CLAMP_TO_BORDER || v->wrap_t > WRAP_MIRROR_CLAMP_TO_BORDER ||
        v->wrap_r > WRAP_MIRROR_CLAMP_TO_BORDER)
        return fail(why, whylen, "wrap mode", 0, 0);
    if (v->min_img_filter > FILTER_LINEAR || v->mag_img_filter > FILTER_LINEAR || v->min_mip_filter > MIP_NONE)
        return fail(why, whylen, "filter %u/%u", v->min_img_filter, v->min_mip_filter);
    if (v->compare_mode > 1 || v->compare_func > FUNC_ALWAYS)
        return fail(why, whylen, "compare mode %u func %u", v->compare_mode, v->compare_func);
    if (v->first_level > v->last_level || v->last_level > v->res_last_level ||
        v->res_last_level >= TBR_SAMPLER_MAX_LEVELS)
        return fail(why, whylen, "levels %u-%u", v->first_level, v->last_level);
    if (v->first_layer > v->last_layer) return fail(why, whylen, "layers %u-%u", v->first_layer, v->last_layer);
    {
        unsigned layers = v->target == TEX_3D ? v->depth0 : v->array_size;
        if (v->last_layer >= layers && v->target != TEX_3D)
            return fail(why, whylen, "layers %u-%u", v->first_layer, v->last_layer);
        if ((v->target == TEX_CUBE || v->target == TEX_CUBE_ARRAY) &&
            (v->last_layer < v->first_layer + 5 || v->width0 != v->height0))
            return fail(why, whylen, "cube layers %u-%u", v->first_layer, v->last_layer);
    }
    for (unsigned l = tbr_sampler_lowest_level(v->first_level); l <= v->last_level; l++) {
        const struct tbr_texture_level *lv = &v->levels[l];
        if (!lv->data) return fail(why, whylen, "contents of level %u unknown", l, 0);
        if (!lv->layer_data) continue;
        /* layers kept apart: every layer the view can address must be given */
        const unsigned first = v->target == TEX_3D ? 0 : v->first_layer;
        const unsigned end = v->target == TEX_3D ? u_minify(v->depth0, l) : v->last_layer + 1;
        if (lv->num_layers < end) return fail(why, whylen, "level %u: %u layers given", l, lv->num_layers);
        for (unsigned z = first; z < end; z++)
            if (!lv->layer_data[z]) return fail(why, whylen, "contents of level %u layer %u unknown", l, z);
    }
    return 1;
}

static void get_samples(const struct tbr_texture_view *view, const unsigned char *prepared, const float s[4],
                        const float t[4], const float r[4], const float c0[4], const float c1[4], float derivs[3][2][4],
                        const int8_t offset[3], enum tbr_sampler_control control, float rgba[4][4],
                        tbr_texel_observer observer, tbr_footprint_observer footprint_observer, void *observer_ctx,
                        struct fetch_group *grp)
{
    static const int8_t zero_offset[3] = {0, 0, 0};
    static const float zero4[4] = {0, 0, 0, 0};
    static const unsigned zero_faces[4] = {0, 0, 0, 0};
    struct sampler_state st;
    init_state(&st, view, prepared, observer, footprint_observer, observer_ctx);
    st.grp = grp;
    if (!c0) c0 = zero4;
    if (!c1) c1 = zero4;
    if (control == TBR_SAMPLER_GATHER) {
        /* get_gather_component: the component travels in lod_in's bits */
        uint32_t bits;
        memcpy(&bits, &c1[0], 4);
        st.gather_only = 1;
        st.gather_comp = bits & 3;
    }

    float compare_values[4] = {0, 0, 0, 0};
    if (view->compare_mode) {
        /* prepare_compare_values */
        const float *src = view->target == TEX_2D_ARRAY || view->target == TEX_CUBE ? c0
                           : view->target == TEX_CUBE_ARRAY                         ? c1
                                                                                    : r;
        memcpy(compare_values, src, sizeof(compare_values));
    }
    float lod[4];
    compute_lambda_lod(view, s, t, r, derivs, c1, control, lod);

    struct quad_args q = {s, t, r, zero_faces, offset ? offset : zero_offset, control, c1};
    float cs[4], ct[4], cp[4];
    unsigned faces[4];
    if (view->target == TEX_CUBE || view->target == TEX_CUBE_ARRAY) {
        /* convert_cube: one face per lane, 2D coordinates on it */
        for (int j = 0; j < 4; j++) {
            const float rx = s[j], ry = t[j], rz = r[j];
            const float arx = fabsf(rx), ary = fabsf(ry), arz = fabsf(rz);
            cp[j] = c0[j];
            if (arx >= ary && arx >= arz) {
                const float sign = (rx >= 0.0F) ? 1.0F : -1.0F;
                const float ima = -0.5F / fabsf(s[j]);
                faces[j] = rx >= 0.0F ? FACE_POS_X : FACE_NEG_X;
                cs[j] = sign * r[j] * ima + 0.5F;
                ct[j] = t[j] * ima + 0.5F;
            } else if (ary >= arx && ary >= arz) {
                const float sign = (ry >= 0.0F) ? 1.0F : -1.0F;
                const float ima = -0.5F / fabsf(t[j]);
                faces[j] = ry >= 0.0F ? FACE_POS_Y : FACE_NEG_Y;
                cs[j] = -s[j] * ima + 0.5F;
                ct[j] = sign * -r[j] * ima + 0.5F;
            } else {
                const float sign = (rz >= 0.0F) ? 1.0F : -1.0F;
                const float ima = -0.5F / fabsf(r[j]);
                faces[j] = rz >= 0.0F ? FACE_POS_Z : FACE_NEG_Z;
                cs[j] = sign * -s[j] * ima + 0.5F;
                ct[j] = t[j] * ima + 0.5F;
            }
        }
        q.s = cs;
        q.t = ct;
        q.p = cp;
        q.faces = faces;
    }

    img_filter_fn min_filter = st.vs.min_filter, mag_filter = st.vs.mag_filter;
    mip_filter_fn filter = st.gather_only ? get_filters(&st, &min_filter, &mag_filter) : st.vs.mip_filter;
    filter(&st, min_filter, mag_filter, &q, lod, rgba);
    if (view->compare_mode) sample_compare(&st, compare_values, rgba);
    if (st.vs.need_swizzle && !st.gather_only) do_swizzling(view, rgba);
}

void tbr_sampler_get_samples(const struct tbr_texture_view *view, const float s[4], const float t[4], const float r[4],
                             const float c0[4], const float c1[4], float derivs[3][2][4], const int8_t offset[3],
                             enum tbr_sampler_control control, float rgba[4][4], tbr_texel_observer observer,
                             void *observer_ctx)
{
    struct fetch_group grp;
    memset(&grp, 0, sizeof(grp));
    get_samples(view, NULL, s, t, r, c0, c1, derivs, offset, control, rgba, observer, NULL, observer_ctx, &grp);
}

int tbr_sampler_get_samples_exact(const struct tbr_texture_view *view, const float s[4], const float t[4],
                                  const float r[4], const float c0[4], const float c1[4], float derivs[3][2][4],
                                  const int8_t offset[3], enum tbr_sampler_control control, float rgba[4][4],
                                  tbr_texel_observer observer, void *observer_ctx)
{
    return tbr_sampler_get_samples_exact_prepared(view, NULL, s, t, r, c0, c1, derivs, offset, control, rgba, observer,
                                                  NULL, observer_ctx);
}

_Static_assert(sizeof(struct view_state) <= sizeof(((struct tbr_sampler_prepared *)0)->u.bytes),
               "TBR_SAMPLER_PREPARED_BYTES too small");

void tbr_sampler_prepare(struct tbr_sampler_prepared *p, const struct tbr_texture_view *view)
{
    memset(p, 0, sizeof(*p));
    struct view_state vs;
    view_state_init(&vs, view);
    memcpy(p->u.bytes, &vs, sizeof(vs));
}

int tbr_sampler_get_samples_exact_prepared(const struct tbr_texture_view *view,
                                           const struct tbr_sampler_prepared *prepared, const float s[4],
                                           const float t[4], const float r[4], const float c0[4], const float c1[4],
                                           float derivs[3][2][4], const int8_t offset[3],
                                           enum tbr_sampler_control control, float rgba[4][4],
                                           tbr_texel_observer observer, tbr_footprint_observer footprint_observer,
                                           void *observer_ctx)
{
    struct fetch_group grp; /* entries f[k] are read only below n */
    grp.on = grp.n = grp.inexact = grp.multi_tile = 0;
    get_samples(view, prepared ? prepared->u.bytes : NULL, s, t, r, c0, c1, derivs, offset, control, rgba, observer,
                footprint_observer, observer_ctx, &grp);
    return !grp.inexact;
}

void tbr_sampler_get_dims(const struct tbr_texture_view *v, int level, int dims[4])
{
    /* sp_get_dims: a level past the view's last leaves dims untouched */
    level += (int)v->first_level;
    if (level > (int)v->last_level || level < 0) return;
    dims[3] = (int)(v->last_level - v->first_level + 1);
    dims[0] = (int)u_minify(v->width0, (unsigned)level);
    switch (v->target) {
        case TEX_1D_ARRAY: dims[1] = (int)(v->last_layer - v->first_layer + 1); return;
        case TEX_1D: return;
        case TEX_2D_ARRAY:
            dims[2] = (int)(v->last_layer - v->first_layer + 1);
            dims[1] = (int)u_minify(v->height0, (unsigned)level);
            return;
        case TEX_2D:
        case TEX_CUBE:
        case TEX_RECT: dims[1] = (int)u_minify(v->height0, (unsigned)level); return;
        case TEX_3D:
            dims[1] = (int)u_minify(v->height0, (unsigned)level);
            dims[2] = (int)u_minify(v->depth0, (unsigned)level);
            return;
        case TEX_CUBE_ARRAY:
            dims[1] = (int)u_minify(v->height0, (unsigned)level);
            dims[2] = (int)(v->last_layer - v->first_layer + 1) / 6;
            return;
        default: return;
    }
}

void tbr_sampler_get_texel(const struct tbr_texture_view *v, const int i[4], const int j[4], const int k[4],
                           const int lod[4], const int8_t offset[3], float rgba[4][4], tbr_texel_observer observer,
                           void *observer_ctx)
{
    static const int8_t zero_offset[3] = {0, 0, 0};
    struct sampler_state st;
    init_state(&st, v, NULL, observer, NULL, observer_ctx);
    if (!offset) offset = zero_offset;
    const int fl = (int)v->first_level, ll = (int)v->last_level;
    const int lv = add_wrap(lod[0], fl);
    const unsigned level = (unsigned)M_CLAMP(lv, fl, ll);
    const int width = (int)u_minify(v->width0, level);
    const int height = (int)u_minify(v->height0, level);
    const int depth = (int)u_minify(v->depth0, level);
    const int first_layer = (int)v->first_layer, last_layer = (int)v->last_layer;
    memset(rgba, 0, sizeof(float) * 16);
    for (int q = 0; q < 4; q++) {
        float tx[4];
        int x, y, z;
        st.lane = (unsigned)q;
        switch (v->target) {
            case TEX_1D:
                x = add_wrap(i[q], offset[0]);
                x = M_CLAMP(x, 0, width - 1);
                texel_1d_nb(&st, level, x, first_layer, tx);
                break;
            case TEX_1D_ARRAY:
                x = add_wrap(i[q], offset[0]);
                x = M_CLAMP(x, 0, width - 1);
                y = M_CLAMP(j[q], first_layer, last_layer);
                texel_1d_nb(&st, level, x, y, tx);
                break;
            case TEX_2D:
            case TEX_RECT:
                x = add_wrap(i[q], offset[0]);
                x = M_CLAMP(x, 0, width - 1);
                y = add_wrap(j[q], offset[1]);
                y = M_CLAMP(y, 0, height - 1);
                texel_3d_nb(&st, level, x, y, first_layer, tx);
                break;
            case TEX_2D_ARRAY:
                x = add_wrap(i[q], offset[0]);
                x = M_CLAMP(x, 0, width - 1);
                y = add_wrap(j[q], offset[1]);
                y = M_CLAMP(y, 0, height - 1);
                z = M_CLAMP(k[q], first_layer, last_layer);
                texel_3d_nb(&st, level, x, y, z, tx);
                break;
            case TEX_3D:
                x = add_wrap(i[q], offset[0]);
                x = M_CLAMP(x, 0, width - 1);
                y = add_wrap(j[q], offset[1]);
                y = M_CLAMP(y, 0, height - 1);
                z = add_wrap(k[q], offset[2]);
                z = M_CLAMP(z, 0, depth - 1);
                texel_3d_nb(&st, level, x, y, z, tx);
                break;
            default: /* cubes: undefined for TXF in softpipe (assert) */ continue;
        }
        for (int c = 0; c < 4; c++) rgba[c][q] = tx[c];
    }
    if (st.vs.need_swizzle) do_swizzling(v, rgba);
}
