/* Differential test: texture sampling of the real Mesa softpipe (EGL surfaceless +
 * GLES 3.1) against functional/reference/sampler.c. Each case uploads a random
 * texture (2D in 14 formats incl. sRGB and depth, 3D, 2D array, cube, 2D shadow)
 * with all its mip levels, sets random wrap (incl. border) / filter / LOD /
 * base-max level / swizzle / compare state, and draws a full-viewport quad into
 * two RGBA32F color buffers with a fragment shader that writes the texture
 * instruction's result (texture, bias, textureLod, textureGrad, textureOffset,
 * texelFetch or textureGather) to the first and its coordinates to the second,
 * the coordinates being affine in gl_FragCoord (LODs vary with the case). Reading
 * both back gives, per 2x2 quad, the exact inputs of softpipe's sampler and its
 * results; the sampler must reproduce every result bit for bit. The GL -> Gallium
 * state follows st/mesa (samplerobj.c, st_atom_sampler.c: min_lod clamped to
 * >= 0, lod_bias 0, view levels = base..max level, GLES cube maps seamless).
 * Exit: 0 all equal, 1 mismatches, 77 no usable softpipe context (a failure too).
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#ifndef GL_TEXTURE_MAX_ANISOTROPY_EXT
#define GL_TEXTURE_MAX_ANISOTROPY_EXT 0x84FE
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"

#define FB 16 /* framebuffer size: 8x8 quads */

enum {
    FMT_RGBA8,
    FMT_RGB8,
    FMT_L8,
    FMT_LA8,
    FMT_A8,
    FMT_RGBA32F,
    FMT_RGBA16F,
    FMT_RGB565,
    FMT_RGBA4,
    FMT_RGB5A1,
    FMT_SRGB8_A8,
    FMT_SRGB8,
    FMT_COUNT
};
/* pipe_format: a format with the same memory layout and channel depths as the GL
 * upload (whichever softpipe format st/mesa picks, its texel values are these) */
static const struct {
    const char *name;
    GLenum internal, format, type;
    unsigned bpp, pipe_format;
} fmts[FMT_COUNT] = {
    {"RGBA8", GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, 4, 53},
    {"RGB8", GL_RGB8, GL_RGB, GL_UNSIGNED_BYTE, 4, 190}, /* softpipe stores RGBX */
    {"L8", GL_LUMINANCE, GL_LUMINANCE, GL_UNSIGNED_BYTE, 1, 133},
    {"LA8", GL_LUMINANCE_ALPHA, GL_LUMINANCE_ALPHA, GL_UNSIGNED_BYTE, 2, 136},
    {"A8", GL_ALPHA, GL_ALPHA, GL_UNSIGNED_BYTE, 1, 134},
    {"RGBA32F", GL_RGBA32F, GL_RGBA, GL_FLOAT, 16, 16},
    {"RGBA16F", GL_RGBA16F, GL_RGBA, GL_HALF_FLOAT, 8, 83},
    {"RGB565", GL_RGB565, GL_RGB, GL_UNSIGNED_SHORT_5_6_5, 2, 132},     /* B5G6R5 */
    {"RGBA4", GL_RGBA4, GL_RGBA, GL_UNSIGNED_SHORT_4_4_4_4, 2, 390},    /* A4B4G4R4 */
    {"RGB5A1", GL_RGB5_A1, GL_RGBA, GL_UNSIGNED_SHORT_5_5_5_1, 2, 386}, /* A1B5G5R5 */
    {"SRGB8_A8", GL_SRGB8_ALPHA8, GL_RGBA, GL_UNSIGNED_BYTE, 4, 161},
    {"SRGB8", GL_SRGB8, GL_RGB, GL_UNSIGNED_BYTE, 4, 281}, /* R8G8B8X8_SRGB */
};

static uint32_t rng = 12345;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}
static float rndf(void) { return (float)(rnd() & 0xffffff) / 16777216.0f; }

static GLuint compile(GLenum type, const char *src)
{
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024];
        glGetShaderInfoLog(s, sizeof(log), NULL, log);
        printf("shader compile failed: %s\n", log);
        exit(1);
    }
    return s;
}

static const char *vs_src = "#version 310 es\n"
                            "in vec2 p;\n"
                            "void main() { gl_Position = vec4(p, 0.0, 1.0); }\n";

/* Fragment shader: c = m * gl_FragCoord.xy + off (mat2x4: every component affine);
 * o1 = the coordinates the texture instruction uses, o0 = its result. */
enum { MODE_IMPLICIT, MODE_BIAS, MODE_LOD, MODE_GRAD, MODE_OFFSET, MODE_FETCH, MODE_GATHER, MODE_COUNT };
enum { TGT_2D, TGT_3D, TGT_2D_ARRAY, TGT_CUBE, TGT_SHADOW2D, TGT_COUNT };
static const char *const sampler_types[TGT_COUNT] = {"sampler2D", "sampler3D", "sampler2DArray", "samplerCube",
                                                     "sampler2DShadow"};
static const char *const coord_exprs[TGT_COUNT] = {"c.xy", "c.xyz", "c.xyz", "c.xyz", "c.xyz"};
#define OFFSET_X 1
#define OFFSET_Y (-2)
/* textureGather's (constant) component per target */
static const unsigned gather_comp[TGT_COUNT] = {2, 0, 1, 3, 0};

static int mode_valid(int target, int mode)
{
    if ((mode == MODE_GRAD || mode == MODE_OFFSET) && target != TGT_2D && target != TGT_SHADOW2D) return 0;
    if (mode == MODE_FETCH && (target == TGT_CUBE || target == TGT_SHADOW2D)) return 0;
    if (mode == MODE_GATHER && target == TGT_3D) return 0;
    return 1;
}

static GLuint make_program(int target, int mode)
{
    char fs[2048], call[256];
    const char *cc = coord_exprs[target];
    switch (mode) {
        case MODE_IMPLICIT: snprintf(call, sizeof(call), "texture(tex, %s)", cc); break;
        case MODE_BIAS: snprintf(call, sizeof(call), "texture(tex, %s, c.w)", cc); break;
        case MODE_LOD: snprintf(call, sizeof(call), "textureLod(tex, %s, c.w)", cc); break;
        case MODE_GRAD: snprintf(call, sizeof(call), "textureGrad(tex, %s, gx, gy)", cc); break;
        case MODE_OFFSET:
            snprintf(call, sizeof(call), "textureOffset(tex, %s, ivec2(%d, %d))", cc, OFFSET_X, OFFSET_Y);
            break;
        case MODE_GATHER:
            if (target == TGT_SHADOW2D)
                snprintf(call, sizeof(call), "textureGather(tex, c.xy, c.z)");
            else
                snprintf(call, sizeof(call), "textureGather(tex, %s, %u)", cc, gather_comp[target]);
            break;
        default:
            snprintf(call, sizeof(call), "texelFetch(tex, ivec%d(%s), int(c.w))", target == TGT_2D ? 2 : 3, cc);
            break;
    }
    snprintf(fs, sizeof(fs),
             "#version 310 es\n"
             "precision highp float;\n"
             "uniform highp %s tex;\n"
             "uniform mat2x4 m;\n"
             "uniform vec4 off;\n"
             "uniform vec2 gx, gy;\n"
             "layout(location = 0) out vec4 o0;\n"
             "layout(location = 1) out vec4 o1;\n"
             "void main() {\n"
             "  vec4 c = m * gl_FragCoord.xy + off;\n"
             "  o1 = %s;\n"
             "  o0 = %s(%s);\n"
             "}\n",
             sampler_types[target], mode == MODE_FETCH ? "vec4(ivec4(c))" : "c",
             target == TGT_SHADOW2D && mode != MODE_GATHER ? "vec4" : "", call);
    GLuint p = glCreateProgram();
    glAttachShader(p, compile(GL_VERTEX_SHADER, vs_src));
    glAttachShader(p, compile(GL_FRAGMENT_SHADER, fs));
    glBindAttribLocation(p, 0, "p");
    glLinkProgram(p);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        printf("link failed\n");
        exit(1);
    }
    return p;
}

/* random half float, finite, |x| in [2^-14, 4) or 0 */
static uint16_t rnd_half(void)
{
    uint32_t r = rnd();
    if ((r & 15) == 0) return 0;
    uint16_t exp = (uint16_t)(1 + (r >> 4) % 16); /* 2^-14 .. 2^1 */
    return (uint16_t)((r >> 20 & 1) << 15 | exp << 10 | ((r >> 8) & 0x3ff));
}

static int has_ext(const char *name)
{
    const char *e = (const char *)glGetString(GL_EXTENSIONS);
    return e && strstr(e, name) != NULL;
}

#define GL_CLAMP_TO_BORDER_EXT      0x812D
#define GL_TEXTURE_BORDER_COLOR_EXT 0x1004
static const GLenum gl_wraps[4] = {GL_REPEAT, GL_CLAMP_TO_EDGE, GL_MIRRORED_REPEAT, GL_CLAMP_TO_BORDER_EXT};
static const unsigned pipe_wraps[4] = {0, 2, 4, 3};
static unsigned num_wraps = 3; /* 4 with EXT_texture_border_clamp */
static const GLenum gl_min_filters[6] = {GL_NEAREST,
                                         GL_LINEAR,
                                         GL_NEAREST_MIPMAP_NEAREST,
                                         GL_LINEAR_MIPMAP_NEAREST,
                                         GL_NEAREST_MIPMAP_LINEAR,
                                         GL_LINEAR_MIPMAP_LINEAR};
static const GLenum gl_targets[TGT_COUNT] = {GL_TEXTURE_2D, GL_TEXTURE_3D, GL_TEXTURE_2D_ARRAY, GL_TEXTURE_CUBE_MAP,
                                             GL_TEXTURE_2D};
static const unsigned pipe_targets[TGT_COUNT] = {2, 3, 7, 4, 2};

static int float_linear;

/* Optional: with SAMPLER_DIFF_TEXELS=FILE every texel the sampler reads is written
 * to FILE as "case qx qy lane level layer x y", in order, to compare with the
 * TEXELS records of the same run under the recorder (tbr-dump -v -t quads,texels). */
static FILE *texel_log;
static int log_case, log_qx, log_qy;

static void log_texel(void *ctx, unsigned lane, unsigned level, unsigned layer, int x, int y)
{
    (void)ctx;
    fprintf(texel_log, "%d %d %d %u %u %u %d %d\n", log_case, log_qx, log_qy, lane, level, layer, x, y);
}

/* One random case: texture, sampler state, coordinate mapping; draws and compares.
 * Returns the number of mismatching pixels. */
/* One function: one random case whose phases (texture, sampler state, coordinates, draw,
 * comparison) share its state and draw from rnd() in this order, read top to bottom. */
static long run_case(int cs, GLuint prog[TGT_COUNT][MODE_COUNT], long *samples)
{
    int target = (int)(rnd() % TGT_COUNT);
    int mode = (int)(rnd() % MODE_COUNT);
    if (!mode_valid(target, mode)) mode = MODE_LOD;
    /* depth textures without compare: st/mesa's swizzle is not modelled (below), so
     * no gather from them */
    const int depth_fmt = target == TGT_SHADOW2D || (target == TGT_2D && mode != MODE_GATHER && rnd() % 6 == 0);
    const int compare = target == TGT_SHADOW2D;
    int f = depth_fmt ? -1 : (int)(rnd() % FMT_COUNT);
    if (target != TGT_2D && f >= 0) f = FMT_RGBA8;
    const int z32f = depth_fmt && (rnd() & 1);
    const unsigned bpp = depth_fmt ? (z32f ? 4 : 2) : fmts[f].bpp;
    static const unsigned sizes[][2] = {{16, 16}, {8, 4}, {13, 7}, {1, 1}, {32, 8}, {5, 9}};
    unsigned w = sizes[rnd() % 6][0], h = sizes[(unsigned)cs % 6][1], d = 1, layers = 1;
    if (target == TGT_CUBE) h = w = 1u << (rnd() % 4);
    if (target == TGT_3D) d = 1 + rnd() % 5;
    if (target == TGT_2D_ARRAY) layers = 1 + rnd() % 4;
    if (target == TGT_CUBE) layers = 6;
    unsigned nlevels = 1;
    while ((w >> nlevels) || (h >> nlevels) || (d >> nlevels)) nlevels++;

    struct tbr_texture_view v;
    memset(&v, 0, sizeof(v));
    v.target = pipe_targets[target];
    v.resource_format = v.view_format = depth_fmt ? (z32f ? 143 : 140) : fmts[f].pipe_format;
    v.width0 = w;
    v.height0 = h;
    v.depth0 = d;
    v.array_size = layers;
    v.last_layer = layers - 1;
    v.res_last_level = nlevels - 1;
    for (int c = 0; c < 4; c++) v.swizzle[c] = (uint32_t)c;
    const int gather = mode == MODE_GATHER;
    /* Depth textures: st/mesa's view swizzle (DEPTH_TEXTURE_MODE) depends on GL
     * front-end bookkeeping ((d, 0, 0, 1) or (d, d, d, 1)); only channel 0 is
     * compared for them. Color textures get a random GL_TEXTURE_SWIZZLE_*. */
    if (depth_fmt) v.swizzle[1] = v.swizzle[2] = 4, v.swizzle[3] = 5;
    v.normalized_coords = 1;
    v.seamless_cube_map = target == TGT_CUBE; /* GLES: always seamless */

    const GLenum gt = gl_targets[target];
    GLuint tex;
    glGenTextures(1, &tex);
    glBindTexture(gt, tex);
    uint8_t *mem[16] = {0};
    for (unsigned l = 0; l < nlevels; l++) {
        const unsigned lw = w >> l ? w >> l : 1, lh = h >> l ? h >> l : 1;
        const unsigned ld = target == TGT_3D ? (d >> l ? d >> l : 1) : layers;
        const size_t texels = (size_t)lw * lh * ld;
        mem[l] = malloc(texels * bpp);
        uint8_t *up = malloc(texels * 16);
        for (size_t i = 0; i < texels; i++) {
            uint8_t *t = mem[l] + i * bpp;
            if (depth_fmt) {
                if (z32f) {
                    float x = rndf();
                    memcpy(t, &x, 4);
                    memcpy(up + 4 * i, &x, 4);
                } else {
                    uint16_t x = (uint16_t)rnd();
                    memcpy(t, &x, 2);
                    memcpy(up + 2 * i, &x, 2);
                }
                continue;
            }
            switch (f) {
                case FMT_RGBA8:
                case FMT_SRGB8_A8:
                    for (int c = 0; c < 4; c++) t[c] = up[i * 4 + c] = (uint8_t)rnd();
                    break;
                case FMT_RGB8:
                case FMT_SRGB8:
                    for (int c = 0; c < 3; c++) t[c] = up[i * 3 + c] = (uint8_t)rnd();
                    t[3] = 0xff;
                    break;
                case FMT_L8:
                case FMT_A8: t[0] = up[i] = (uint8_t)rnd(); break;
                case FMT_LA8:
                    t[0] = up[i * 2] = (uint8_t)rnd();
                    t[1] = up[i * 2 + 1] = (uint8_t)rnd();
                    break;
                case FMT_RGBA32F:
                    for (int c = 0; c < 4; c++) {
                        float x = rndf() * 4.0f - 2.0f;
                        memcpy(t + 4 * c, &x, 4);
                        memcpy(up + 16 * i + 4 * c, &x, 4);
                    }
                    break;
                case FMT_RGB565:
                case FMT_RGBA4:
                case FMT_RGB5A1: {
                    uint16_t x = (uint16_t)rnd();
                    memcpy(t, &x, 2);
                    memcpy(up + 2 * i, &x, 2);
                    break;
                }
                default: /* RGBA16F */
                    for (int c = 0; c < 4; c++) {
                        uint16_t x = rnd_half();
                        memcpy(t + 2 * c, &x, 2);
                        memcpy(up + 8 * i + 2 * c, &x, 2);
                    }
                    break;
            }
        }
        const GLint ifmt = depth_fmt ? (z32f ? GL_DEPTH_COMPONENT32F : GL_DEPTH_COMPONENT16) : (GLint)fmts[f].internal;
        const GLenum pfmt = depth_fmt ? GL_DEPTH_COMPONENT : fmts[f].format;
        const GLenum ptype = depth_fmt ? (z32f ? GL_FLOAT : GL_UNSIGNED_SHORT) : fmts[f].type;
        if (target == TGT_3D || target == TGT_2D_ARRAY)
            glTexImage3D(gt, (GLint)l, ifmt, (GLsizei)lw, (GLsizei)lh, (GLsizei)ld, 0, pfmt, ptype, up);
        else if (target == TGT_CUBE)
            for (unsigned face = 0; face < 6; face++)
                glTexImage2D(GL_TEXTURE_CUBE_MAP_POSITIVE_X + face, (GLint)l, ifmt, (GLsizei)lw, (GLsizei)lh, 0, pfmt,
                             ptype, up + (size_t)face * lw * lh * bpp);
        else
            glTexImage2D(gt, (GLint)l, ifmt, (GLsizei)lw, (GLsizei)lh, 0, pfmt, ptype, up);
        free(up);
        v.levels[l].data = mem[l];
        v.levels[l].row_stride = lw * bpp;
        v.levels[l].layer_stride = lw * lh * bpp;
    }

    /* sampler state */
    /* CLAMP_TO_BORDER only for formats whose view swizzle st/mesa leaves alone (RGB,
     * L, LA, A textures get a format swizzle that also applies to the border) */
    const unsigned nw = depth_fmt || fmts[f].format == GL_RGBA ? num_wraps : 3;
    const unsigned ws = rnd() % nw, wt = rnd() % nw, wr = rnd() % nw;
    unsigned minf = rnd() % 6, magf = rnd() % 2;
    if ((f == FMT_RGBA32F && !float_linear) || (depth_fmt && !compare)) {
        minf = (minf == 2) ? 2 : 0; /* not filterable: nearest only */
        magf = 0;
    }
    glTexParameteri(gt, GL_TEXTURE_WRAP_S, (GLint)gl_wraps[ws]);
    glTexParameteri(gt, GL_TEXTURE_WRAP_T, (GLint)gl_wraps[wt]);
    glTexParameteri(gt, GL_TEXTURE_WRAP_R, (GLint)gl_wraps[wr]);
    glTexParameteri(gt, GL_TEXTURE_MIN_FILTER, (GLint)gl_min_filters[minf]);
    glTexParameteri(gt, GL_TEXTURE_MAG_FILTER, magf ? GL_LINEAR : GL_NEAREST);
    v.wrap_s = pipe_wraps[ws];
    v.wrap_t = pipe_wraps[wt];
    v.wrap_r = pipe_wraps[wr];
    v.min_img_filter = (minf == 1 || minf == 3 || minf == 5) ? 1 : 0;
    v.min_mip_filter = minf < 2 ? 2 /* NONE */ : (minf < 4 ? 0 /* NEAREST */ : 1 /* LINEAR */);
    v.mag_img_filter = magf;
    if (nw == 4 && rnd() % 2) {
        float bc[4];
        for (int c = 0; c < 4; c++) bc[c] = rndf() * 2.0f - 0.5f;
        glTexParameterfv(gt, GL_TEXTURE_BORDER_COLOR_EXT, bc);
        memcpy(v.border_color, bc, sizeof(bc));
    }
    if (!depth_fmt && rnd() % 4 == 0) {
        static const GLenum swz_gl[6] = {GL_RED, GL_GREEN, GL_BLUE, GL_ALPHA, GL_ZERO, GL_ONE};
        static const GLenum swz_pname[4] = {GL_TEXTURE_SWIZZLE_R, GL_TEXTURE_SWIZZLE_G, GL_TEXTURE_SWIZZLE_B,
                                            GL_TEXTURE_SWIZZLE_A};
        for (int c = 0; c < 4; c++) {
            const unsigned sw = rnd() % 6;
            glTexParameteri(gt, swz_pname[c], (GLint)swz_gl[sw]);
            v.swizzle[c] = sw; /* PIPE_SWIZZLE_X..W, 0, 1 */
        }
    }
    v.min_lod = 0.0f;
    v.max_lod = 1000.0f;
    if (compare) {
        static const GLenum funcs[8] = {GL_NEVER,   GL_LESS,     GL_EQUAL,  GL_LEQUAL,
                                        GL_GREATER, GL_NOTEQUAL, GL_GEQUAL, GL_ALWAYS};
        const unsigned func = rnd() % 8;
        glTexParameteri(gt, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
        glTexParameteri(gt, GL_TEXTURE_COMPARE_FUNC, (GLint)funcs[func]);
        v.compare_mode = 1;
        v.compare_func = func;
    }
    if (rnd() % 4 == 0) {
        const float lo = rndf() * 2.0f, hi = lo + rndf() * 3.0f;
        glTexParameterf(gt, GL_TEXTURE_MIN_LOD, lo);
        glTexParameterf(gt, GL_TEXTURE_MAX_LOD, hi);
        v.min_lod = lo;
        v.max_lod = hi;
    }
    if (v.min_mip_filter == 1 && rnd() % 3 == 0) {
        /* anisotropic filtering (softpipe's EWA filter, issue #24) */
        const unsigned aniso = 2u << (rnd() % 4);
        glTexParameterf(gt, GL_TEXTURE_MAX_ANISOTROPY_EXT, (float)aniso);
        v.max_anisotropy = aniso;
    }
    unsigned base = 0, maxl = nlevels - 1;
    if (nlevels > 2 && rnd() % 4 == 0) {
        base = 1 + rnd() % (nlevels - 2);
        maxl = base + rnd() % (nlevels - base);
        glTexParameteri(gt, GL_TEXTURE_BASE_LEVEL, (GLint)base);
        glTexParameteri(gt, GL_TEXTURE_MAX_LEVEL, (GLint)maxl);
    }
    v.first_level = base;
    v.last_level = maxl;

    char why[128];
    if (!tbr_sampler_supported(&v, why, sizeof(why))) {
        printf("case %d: unexpectedly unsupported: %s\n", cs, why);
        return 1;
    }

    /* c = m * fragcoord + off: texture-space steps 2^[-4, 5) texels per pixel */
    const float scale = (float)(1 << (rnd() % 9)) / 16.0f * (0.5f + rndf());
    const float ang = rndf() * 6.2831853f;
    const float ca = scale * cosf(ang), sa = scale * sinf(ang);
    /* column-major mat2x4: column 0 multiplies fragcoord.x */
    float mm[8] = {ca / (float)w, sa / (float)h, 0, 0, -sa / (float)w, ca / (float)h, 0, 0};
    float off[4] = {rndf() * 4.0f - 2.0f, rndf() * 4.0f - 2.0f, 0, rndf() * 6.0f - 2.0f};
    mm[3] = (rndf() - 0.5f) * 0.2f; /* lod / bias varies across the quad */
    mm[7] = (rndf() - 0.5f) * 0.2f;
    switch (target) {
        case TGT_3D:
            mm[2] = (rndf() - 0.5f) * scale / (float)d;
            mm[6] = (rndf() - 0.5f) * scale / (float)d;
            off[2] = rndf() * 2.0f - 0.5f;
            break;
        case TGT_2D_ARRAY:
            mm[2] = (rndf() - 0.5f) * 0.5f; /* layer index */
            off[2] = rndf() * (float)(layers + 2) - 1.0f;
            break;
        case TGT_CUBE: /* direction: map xy to [-1.5, 1.5], z around +-1 */
            mm[0] *= (float)w * 0.2f;
            mm[1] *= (float)h * 0.2f;
            mm[4] *= (float)w * 0.2f;
            mm[5] *= (float)h * 0.2f;
            mm[2] = (rndf() - 0.5f) * 0.1f;
            mm[6] = (rndf() - 0.5f) * 0.1f;
            off[0] = rndf() * 3.0f - 1.5f;
            off[1] = rndf() * 3.0f - 1.5f;
            off[2] = (rnd() & 1 ? 1.0f : -1.0f) * (0.3f + rndf());
            break;
        case TGT_SHADOW2D: /* reference depth */
            mm[2] = (rndf() - 0.5f) * 0.05f;
            mm[6] = (rndf() - 0.5f) * 0.05f;
            off[2] = rndf() * 1.4f - 0.2f;
            break;
        default: break;
    }
    if (mode == MODE_FETCH) { /* integer texel coordinates, spilling past the edges */
        for (int i = 0; i < 8; i++) mm[i] = (rndf() - 0.5f) * 3.0f;
        off[0] = rndf() * (float)w * 1.5f - 2.0f;
        off[1] = rndf() * (float)h * 1.5f - 2.0f;
        off[2] = rndf() * (float)(target == TGT_3D ? d : layers) * 1.5f - 1.0f;
        off[3] = rndf() * (float)nlevels * 1.3f - 1.0f;
    }
    const float gx[2] = {(rndf() - 0.5f) * 4.0f * scale / (float)w, (rndf() - 0.5f) * 4.0f * scale / (float)h};
    const float gy[2] = {(rndf() - 0.5f) * 4.0f * scale / (float)w, (rndf() - 0.5f) * 4.0f * scale / (float)h};
    const GLuint pg = prog[target][mode];
    glUseProgram(pg);
    glUniform1i(glGetUniformLocation(pg, "tex"), 0);
    glUniformMatrix2x4fv(glGetUniformLocation(pg, "m"), 1, GL_FALSE, mm);
    glUniform4fv(glGetUniformLocation(pg, "off"), 1, off);
    glUniform2fv(glGetUniformLocation(pg, "gx"), 1, gx);
    glUniform2fv(glGetUniformLocation(pg, "gy"), 1, gy);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);

    static float color[FB * FB * 4], coord[FB * FB * 4];
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    glReadPixels(0, 0, FB, FB, GL_RGBA, GL_FLOAT, color);
    glReadBuffer(GL_COLOR_ATTACHMENT1);
    glReadPixels(0, 0, FB, FB, GL_RGBA, GL_FLOAT, coord);
    if (glGetError() != GL_NO_ERROR) {
        printf("FAIL: GL error in case %d\n", cs);
        exit(1);
    }

    /* quads: lanes (x, y) (x+1, y) (x, y+1) (x+1, y+1) of softpipe's surface rows */
    long bad_pixels = 0;
    for (int qy = 0; qy < FB; qy += 2) {
        for (int qx = 0; qx < FB; qx += 2) {
            float s[4], t[4], r[4], q[4], rgba[4][4], derivs[3][2][4];
            int pix[4];
            for (int j = 0; j < 4; j++) {
                pix[j] = (qy + (j >> 1)) * FB + qx + (j & 1);
                s[j] = coord[pix[j] * 4];
                t[j] = coord[pix[j] * 4 + 1];
                r[j] = coord[pix[j] * 4 + 2];
                q[j] = coord[pix[j] * 4 + 3];
                derivs[0][0][j] = gx[0];
                derivs[1][0][j] = gx[1];
                derivs[0][1][j] = gy[0];
                derivs[1][1][j] = gy[1];
                derivs[2][0][j] = derivs[2][1][j] = 0.0f;
            }
            log_case = cs;
            log_qx = qx;
            log_qy = qy;
            const tbr_texel_observer obs = texel_log ? log_texel : NULL;
            const int8_t offs[3] = {mode == MODE_OFFSET ? OFFSET_X : 0, mode == MODE_OFFSET ? OFFSET_Y : 0, 0};
            if (mode == MODE_FETCH) {
                int ii[4], jj[4], kk[4], ll[4];
                for (int j = 0; j < 4; j++) {
                    ii[j] = (int)s[j];
                    jj[j] = (int)t[j];
                    kk[j] = (int)r[j];
                    ll[j] = (int)q[j];
                }
                tbr_sampler_get_texel(&v, ii, jj, kk, ll, offs, rgba, obs, NULL);
            } else {
                static const enum tbr_sampler_control controls[MODE_COUNT] = {
                    TBR_SAMPLER_LOD_NONE, TBR_SAMPLER_LOD_BIAS, TBR_SAMPLER_LOD_EXPLICIT, TBR_SAMPLER_DERIVS_EXPLICIT,
                    TBR_SAMPLER_LOD_NONE, TBR_SAMPLER_LOD_NONE, TBR_SAMPLER_GATHER};
                float c1[4];
                memcpy(c1, q, sizeof(c1));
                if (gather) /* tgsi_exec: the component as an unsigned in lod_in */
                    for (int j = 0; j < 4; j++) memcpy(&c1[j], &gather_comp[target], 4);
                tbr_sampler_get_samples(&v, s, t, r, q, c1, derivs, offs, controls[mode], rgba, obs, NULL);
            }
            for (int j = 0; j < 4; j++) {
                (*samples)++;
                int bad = 0;
                for (int c = 0; c < (depth_fmt && !gather ? 1 : 4); c++)
                    if (memcmp(&rgba[c][j], &color[pix[j] * 4 + c], 4) != 0) bad = 1;
                if (bad && bad_pixels++ < 2)
                    printf("case %d (target %u fmt %u %ux%ux%u layers %u levels %u-%u wrap "
                           "%u,%u,%u min %u mip %u mag %u lod [%g,%g] mode %d cmp %u) pixel "
                           "(%d,%d) coord (%.9g %.9g %.9g %.9g): softpipe (%.9g %.9g %.9g %.9g) "
                           "sampler (%.9g %.9g %.9g %.9g)\n",
                           cs, v.target, v.view_format, w, h, d, layers, base, maxl, v.wrap_s, v.wrap_t, v.wrap_r,
                           v.min_img_filter, v.min_mip_filter, v.mag_img_filter, (double)v.min_lod, (double)v.max_lod,
                           mode, v.compare_func, qx + (j & 1), qy + (j >> 1), (double)s[j], (double)t[j], (double)r[j],
                           (double)q[j], (double)color[pix[j] * 4], (double)color[pix[j] * 4 + 1],
                           (double)color[pix[j] * 4 + 2], (double)color[pix[j] * 4 + 3], (double)rgba[0][j],
                           (double)rgba[1][j], (double)rgba[2][j], (double)rgba[3][j]);
            }
        }
    }
    glDeleteTextures(1, &tex);
    for (unsigned l = 0; l < nlevels; l++) free(mem[l]);
    return bad_pixels;
}

int main(int argc, char **argv)
{
    int ncases = argc > 1 ? atoi(argv[1]) : 1500;
    const char *log_path = getenv("SAMPLER_DIFF_TEXELS");
    if (log_path && !(texel_log = fopen(log_path, "w"))) {
        printf("FAIL: cannot write %s\n", log_path);
        return 1;
    }
    PFNEGLGETPLATFORMDISPLAYEXTPROC gpd =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDisplay dpy =
        gpd ? gpd(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL) : eglGetDisplay(EGL_DEFAULT_DISPLAY);
    EGLint maj, min;
    if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &maj, &min)) {
        printf("FAIL: no EGL surfaceless display\n");
        return 77;
    }
    static const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
                                      EGL_NONE};
    EGLConfig cfg;
    EGLint n = 0;
    if (!eglBindAPI(EGL_OPENGL_ES_API) || !eglChooseConfig(dpy, cfg_attr, &cfg, 1, &n) || n < 1) {
        printf("FAIL: no GLES3 EGL config\n");
        return 77;
    }
    static const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
    if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        printf("FAIL: no GLES3 context\n");
        return 77;
    }
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    if (!renderer || !strstr(renderer, "softpipe")) {
        printf("FAIL: renderer is %s, not softpipe\n", renderer ? renderer : "(null)");
        return 77;
    }
    if (!has_ext("GL_EXT_color_buffer_float")) {
        printf("FAIL: no EXT_color_buffer_float (RGBA32F render targets)\n");
        return 77;
    }
    float_linear = has_ext("GL_OES_texture_float_linear");
    if (has_ext("GL_EXT_texture_border_clamp")) num_wraps = 4;

    GLuint fbo, rt[2];
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glGenTextures(2, rt);
    for (int i = 0; i < 2; i++) {
        glBindTexture(GL_TEXTURE_2D, rt[i]);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, FB, FB, 0, GL_RGBA, GL_FLOAT, NULL);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0 + (GLenum)i, GL_TEXTURE_2D, rt[i], 0);
    }
    static const GLenum bufs[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
    glDrawBuffers(2, bufs);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        printf("FAIL: RGBA32F framebuffer incomplete\n");
        return 77;
    }
    glViewport(0, 0, FB, FB);
    static GLuint prog[TGT_COUNT][MODE_COUNT];
    for (int t = 0; t < TGT_COUNT; t++)
        for (int m = 0; m < MODE_COUNT; m++)
            if (mode_valid(t, m)) prog[t][m] = make_program(t, m);
    static const float quad[8] = {-1, -1, 1, -1, -1, 1, 1, 1};
    GLuint vbo;
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof(quad), quad, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    glEnableVertexAttribArray(0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);

    long mismatches = 0, samples = 0;
    for (int cs = 0; cs < ncases; cs++) mismatches += run_case(cs, prog, &samples);
    printf("%d cases, %ld samples, %ld mismatches\n", ncases, samples, mismatches);
    if (texel_log) fclose(texel_log);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
    return mismatches ? 1 : 0;
}
