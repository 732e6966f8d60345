/* Differential test: real Mesa softpipe (EGL surfaceless + GLES 3) against
 * the reference model. Each case clears a small FBO, draws up to three full-viewport quads
 * with constant colors / depth and given blend / depth / stencil state, reads the
 * pixels back, and compares them byte for byte with a re-render through the
 * simulator's functions (tile clear, depth/stencil test, blend, store).
 * The GL -> Gallium state translation mirrors st/mesa (st_atom_blend.c,
 * st_atom_depth.c): GL_MIN/GL_MAX force factors ONE, a zero colormask disables
 * blending, the blend color is passed unclamped, GLES never clamps fragment colors.
 * Exit: 0 all equal, 1 mismatches, 77 no usable softpipe context (a failure too).
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blending.h"
#include "depth_stencil.h"
#include "pixel_formats.h"
#include "tile_buffers.h"

#define W 4
#define H 4

enum { FB_RGBA8, FB_RGB565, FB_RGB8, FB_RGBA4, FB_RGB5A1, FB_COUNT };
enum { ZS_NONE, ZS_D24S8, ZS_D16, ZS_D32F, ZS_COUNT };

typedef struct {
    bool enable;
    GLenum src_rgb, dst_rgb, src_a, dst_a, eq_rgb, eq_a;
    bool mask[4];
    float color[4];
} gl_blend;

typedef struct {
    bool depth_test, depth_write;
    GLenum depth_func;
    bool stencil_test;
    GLenum sfunc, sfail, szfail, szpass;
    int sref;
    unsigned svmask, swmask;
} gl_ds;

typedef struct {
    float color[4];
    float z_ndc;
    gl_blend bl;
    gl_ds ds;
} draw_desc;

typedef struct {
    int fb, zs;
    float clear_color[4];
    float clear_depth;
    int clear_stencil;
    int ndraws;
    draw_desc d[3];
} case_desc;

static GLuint prog, fbo[FB_COUNT][ZS_COUNT];
static GLint loc_color, loc_z;

/* ---------------------------------------------------------------- GL side */

static GLuint compile(GLenum type, const char *src)
{
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "shader: %s\n", log);
        exit(1);
    }
    return s;
}

static bool gl_setup(void)
{
    static const char *vs = "#version 100\nattribute vec2 a_pos;\nuniform highp float u_z;\n"
                            "void main() { gl_Position = vec4(a_pos, u_z, 1.0); }\n";
    static const char *fs = "#version 100\nprecision highp float;\nuniform vec4 u_color;\n"
                            "void main() { gl_FragColor = u_color; }\n";
    prog = glCreateProgram();
    glAttachShader(prog, compile(GL_VERTEX_SHADER, vs));
    glAttachShader(prog, compile(GL_FRAGMENT_SHADER, fs));
    glBindAttribLocation(prog, 0, "a_pos");
    glLinkProgram(prog);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) return false;
    glUseProgram(prog);
    loc_color = glGetUniformLocation(prog, "u_color");
    loc_z = glGetUniformLocation(prog, "u_z");
    static const float quad[] = {-1, -1, 1, -1, -1, 1, 1, 1};
    GLuint vbo;
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    glEnableVertexAttribArray(0);

    static const GLenum cfmt[FB_COUNT] = {GL_RGBA8, GL_RGB565, GL_RGB8, GL_RGBA4, GL_RGB5_A1};
    static const GLenum zfmt[ZS_COUNT] = {0, GL_DEPTH24_STENCIL8, GL_DEPTH_COMPONENT16, GL_DEPTH_COMPONENT32F};
    for (int c = 0; c < FB_COUNT; c++) {
        for (int z = 0; z < ZS_COUNT; z++) {
            GLuint rb[2];
            glGenFramebuffers(1, &fbo[c][z]);
            glBindFramebuffer(GL_FRAMEBUFFER, fbo[c][z]);
            glGenRenderbuffers(2, rb);
            glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
            glRenderbufferStorage(GL_RENDERBUFFER, cfmt[c], W, H);
            glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
            if (z != ZS_NONE) {
                glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
                glRenderbufferStorage(GL_RENDERBUFFER, zfmt[z], W, H);
                glFramebufferRenderbuffer(GL_FRAMEBUFFER,
                                          z == ZS_D24S8 ? GL_DEPTH_STENCIL_ATTACHMENT : GL_DEPTH_ATTACHMENT,
                                          GL_RENDERBUFFER, rb[1]);
            }
            if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
                fprintf(stderr, "FBO %d/%d incomplete\n", c, z);
                return false;
            }
        }
    }
    glViewport(0, 0, W, H);
    glDisable(GL_DITHER); /* softpipe ignores it anyway */
    return glGetError() == GL_NO_ERROR;
}

static void gl_apply(const draw_desc *d)
{
    if (d->bl.enable) {
        glEnable(GL_BLEND);
        glBlendFuncSeparate(d->bl.src_rgb, d->bl.dst_rgb, d->bl.src_a, d->bl.dst_a);
        glBlendEquationSeparate(d->bl.eq_rgb, d->bl.eq_a);
        glBlendColor(d->bl.color[0], d->bl.color[1], d->bl.color[2], d->bl.color[3]);
    } else {
        glDisable(GL_BLEND);
    }
    glColorMask(d->bl.mask[0], d->bl.mask[1], d->bl.mask[2], d->bl.mask[3]);
    if (d->ds.depth_test) {
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(d->ds.depth_func);
    } else {
        glDisable(GL_DEPTH_TEST);
    }
    glDepthMask(d->ds.depth_write);
    if (d->ds.stencil_test) {
        glEnable(GL_STENCIL_TEST);
        glStencilFunc(d->ds.sfunc, d->ds.sref, d->ds.svmask);
        glStencilOp(d->ds.sfail, d->ds.szfail, d->ds.szpass);
        glStencilMask(d->ds.swmask);
    } else {
        glDisable(GL_STENCIL_TEST);
    }
    glUniform4fv(loc_color, 1, d->color);
    glUniform1f(loc_z, d->z_ndc);
}

/* Reads back the pixels as bytes: RGBA8888 for 8-bit formats, the raw 16-bit word
 * (GL packed type) for 565/4444/5551. Returns bytes per pixel. */
static int gl_run(const case_desc *c, uint8_t *out)
{
    glBindFramebuffer(GL_FRAMEBUFFER, fbo[c->fb][c->zs]);
    glColorMask(1, 1, 1, 1);
    glDepthMask(1);
    glStencilMask(0xff);
    glDisable(GL_SCISSOR_TEST);
    glClearColor(c->clear_color[0], c->clear_color[1], c->clear_color[2], c->clear_color[3]);
    glClearDepthf(c->clear_depth);
    glClearStencil(c->clear_stencil);
    GLbitfield bits = GL_COLOR_BUFFER_BIT;
    if (c->zs != ZS_NONE) bits |= GL_DEPTH_BUFFER_BIT;
    if (c->zs == ZS_D24S8) bits |= GL_STENCIL_BUFFER_BIT;
    glClear(bits);
    for (int i = 0; i < c->ndraws; i++) {
        gl_apply(&c->d[i]);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    }
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    switch (c->fb) {
        case FB_RGB565: glReadPixels(0, 0, W, H, GL_RGB, GL_UNSIGNED_SHORT_5_6_5, out); return 2;
        case FB_RGBA4: glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_SHORT_4_4_4_4, out); return 2;
        case FB_RGB5A1: /* GLES allows only the implementation's read type here:
                    * GL_UNSIGNED_SHORT_1_5_5_5_REV (0x8366): R in the low bits, A bit 15 */
            glReadPixels(0, 0, W, H, GL_RGBA, 0x8366, out);
            return 2;
        default: glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, out); return 4;
    }
}

/* ------------------------------------------------------ simulator side */

static int gl_func(GLenum f) { return (int)(f - GL_NEVER); } /* GL_NEVER..GL_ALWAYS */

static tbr_stencil_op gl_sop(GLenum op)
{
    switch (op) {
        case GL_ZERO: return TBR_STENCIL_OP_ZERO;
        case GL_REPLACE: return TBR_STENCIL_OP_REPLACE;
        case GL_INCR: return TBR_STENCIL_OP_INCR;
        case GL_DECR: return TBR_STENCIL_OP_DECR;
        case GL_INCR_WRAP: return TBR_STENCIL_OP_INCR_WRAP;
        case GL_DECR_WRAP: return TBR_STENCIL_OP_DECR_WRAP;
        case GL_INVERT: return TBR_STENCIL_OP_INVERT;
        default: return TBR_STENCIL_OP_KEEP;
    }
}

static tbr_blend_factor gl_bf(GLenum f)
{
    switch (f) {
        case GL_ONE: return TBR_BF_ONE;
        case GL_SRC_COLOR: return TBR_BF_SRC_COLOR;
        case GL_SRC_ALPHA: return TBR_BF_SRC_ALPHA;
        case GL_DST_ALPHA: return TBR_BF_DST_ALPHA;
        case GL_DST_COLOR: return TBR_BF_DST_COLOR;
        case GL_SRC_ALPHA_SATURATE: return TBR_BF_SRC_ALPHA_SATURATE;
        case GL_CONSTANT_COLOR: return TBR_BF_CONST_COLOR;
        case GL_CONSTANT_ALPHA: return TBR_BF_CONST_ALPHA;
        case GL_ONE_MINUS_SRC_COLOR: return TBR_BF_INV_SRC_COLOR;
        case GL_ONE_MINUS_SRC_ALPHA: return TBR_BF_INV_SRC_ALPHA;
        case GL_ONE_MINUS_DST_ALPHA: return TBR_BF_INV_DST_ALPHA;
        case GL_ONE_MINUS_DST_COLOR: return TBR_BF_INV_DST_COLOR;
        case GL_ONE_MINUS_CONSTANT_COLOR: return TBR_BF_INV_CONST_COLOR;
        case GL_ONE_MINUS_CONSTANT_ALPHA: return TBR_BF_INV_CONST_ALPHA;
        default: return TBR_BF_ZERO;
    }
}

static tbr_blend_func gl_eq(GLenum e)
{
    switch (e) {
        case GL_FUNC_SUBTRACT: return TBR_BLEND_SUBTRACT;
        case GL_FUNC_REVERSE_SUBTRACT: return TBR_BLEND_REVERSE_SUBTRACT;
        case GL_MIN: return TBR_BLEND_MIN;
        case GL_MAX: return TBR_BLEND_MAX;
        default: return TBR_BLEND_ADD;
    }
}

/* The pipe formats Mesa 22.3 picks for these renderbuffers on softpipe (the first
 * supported candidate of st_choose_format's table); the simulated bytes do not depend
 * on R/B order, only on channel widths and the presence of alpha. */
static const tbr_pixel_format sim_cfmt[FB_COUNT] = {
    TBR_PF_R8G8B8A8_UNORM, TBR_PF_B5G6R5_UNORM, TBR_PF_R8G8B8X8_UNORM,
    TBR_PF_A4B4G4R4_UNORM /* GL 4444 word: R in the high nibble */,
    TBR_PF_R5G5B5A1_UNORM /* GL 1555_REV word: R in the low bits, A in bit 15 */};
static const tbr_pixel_format sim_zfmt[ZS_COUNT] = {TBR_PF_NONE, TBR_PF_Z24_UNORM_S8_UINT, TBR_PF_Z16_UNORM,
                                                    TBR_PF_Z32_FLOAT};

static void sim_state(const draw_desc *d, bool has_alpha, tbr_blend_state *bs, tbr_dsa_state *ds)
{
    memset(bs, 0, sizeof *bs);
    tbr_rt_blend_state *rt = &bs->rt[0];
    rt->colormask = (uint8_t)((d->bl.mask[0] ? 1 : 0) | (d->bl.mask[1] ? 2 : 0) | (d->bl.mask[2] ? 4 : 0) |
                              (d->bl.mask[3] ? 8 : 0));
    if (d->bl.enable && rt->colormask) {
        rt->blend_enable = true;
        rt->rgb_func = gl_eq(d->bl.eq_rgb);
        rt->alpha_func = gl_eq(d->bl.eq_a);
        bool mm = d->bl.eq_rgb == GL_MIN || d->bl.eq_rgb == GL_MAX;
        rt->rgb_src_factor = mm ? TBR_BF_ONE : gl_bf(d->bl.src_rgb);
        rt->rgb_dst_factor = mm ? TBR_BF_ONE : gl_bf(d->bl.dst_rgb);
        mm = d->bl.eq_a == GL_MIN || d->bl.eq_a == GL_MAX;
        rt->alpha_src_factor = mm ? TBR_BF_ONE : gl_bf(d->bl.src_a);
        rt->alpha_dst_factor = mm ? TBR_BF_ONE : gl_bf(d->bl.dst_a);
    }
    if (!has_alpha && rt->blend_enable) {
        /* st_update_blend: softpipe sets PIPE_CAP_RGB_OVERRIDE_DST_ALPHA_BLEND, so for GL_RGB
     * base formats fix_xrgb_alpha() rewrites DST_ALPHA -> ONE, INV_DST_ALPHA and
     * SRC_ALPHA_SATURATE -> ZERO (the tile's alpha of an RGB target is NOT always 1:
     * a masked or cleared alpha keeps the raw float) */
        tbr_blend_factor *fs[4] = {&rt->rgb_src_factor, &rt->rgb_dst_factor, &rt->alpha_src_factor,
                                   &rt->alpha_dst_factor};
        for (int i = 0; i < 4; i++) {
            if (*fs[i] == TBR_BF_DST_ALPHA)
                *fs[i] = TBR_BF_ONE;
            else if (*fs[i] == TBR_BF_INV_DST_ALPHA || *fs[i] == TBR_BF_SRC_ALPHA_SATURATE)
                *fs[i] = TBR_BF_ZERO;
        }
    }
    memcpy(bs->blend_color, d->bl.color, sizeof bs->blend_color);

    memset(ds, 0, sizeof *ds);
    ds->depth_enabled = d->ds.depth_test;
    ds->depth_func = (tbr_compare_func)gl_func(d->ds.depth_func);
    ds->depth_writemask = d->ds.depth_test && d->ds.depth_write;
    if (d->ds.stencil_test) {
        tbr_stencil_face *f = &ds->stencil[0];
        f->enabled = true;
        f->func = (tbr_compare_func)gl_func(d->ds.sfunc);
        f->fail_op = gl_sop(d->ds.sfail);
        f->zfail_op = gl_sop(d->ds.szfail);
        f->zpass_op = gl_sop(d->ds.szpass);
        f->valuemask = (uint8_t)d->ds.svmask;
        f->writemask = (uint8_t)d->ds.swmask;
        int ref = d->ds.sref < 0 ? 0 : d->ds.sref > 255 ? 255 : d->ds.sref;
        ds->stencil_ref[0] = (uint8_t)ref;
    }
}

static void sim_run(const case_desc *c, uint8_t *out, int bpp)
{
    const tbr_pixel_format cf = sim_cfmt[c->fb];
    tbr_pixel_format zf = sim_zfmt[c->zs];
    tbr_tile_buffers tb;
    if (!tbr_tile_init(&tb, W, H, 1, &cf, zf)) {
        fprintf(stderr, "tile init failed\n");
        exit(1);
    }
    tbr_tile_clear_color(&tb, 0, c->clear_color);
    if (zf != TBR_PF_NONE) {
        double cd = c->clear_depth < 0 ? 0 : c->clear_depth > 1 ? 1 : c->clear_depth; /* glClearDepthf clamps */
        tbr_tile_clear_zs(&tb, (double)(float)cd, (uint8_t)(c->clear_stencil & 0xff));
    }
    for (int i = 0; i < c->ndraws; i++) {
        const draw_desc *d = &c->d[i];
        tbr_blend_state bs;
        tbr_dsa_state ds;
        sim_state(d, tbr_format_get_info(cf)->has_alpha, &bs, &ds);
        if (zf == TBR_PF_NONE) {
            ds.depth_enabled = ds.depth_writemask = false;
            ds.stencil[0].enabled = false;
        }
        if (zf != TBR_PF_Z24_UNORM_S8_UINT) ds.stencil[0].enabled = false;
        /* window z: draw module viewport transform z * 0.5f + 0.5f (w = 1) */
        float t = d->z_ndc * 0.5f;
        const float zw = t + 0.5f;
        const tbr_blend_path path = tbr_blend_choose_path(&bs, 1, &cf);
        for (int y = 0; y < H; y += 2)
            for (int x = 0; x < W; x += 2) {
                tbr_ds_quad q = {.mask = 0xf, .z = {zw, zw, zw, zw}};
                float alpha[4] = {d->color[3], d->color[3], d->color[3], d->color[3]};
                q.alpha = alpha;
                unsigned m = tbr_tile_ds_quad(&tb, &ds, x, y, &q);
                float col[1][4][4];
                for (int ch = 0; ch < 4; ch++)
                    for (int j = 0; j < 4; j++) col[0][ch][j] = d->color[ch];
                tbr_tile_blend_quad(&tb, &bs, path, x, y, m, (const float(*)[4][4])col, 1);
            }
    }
    uint8_t mem[W * H * 16];
    tbr_surface s = {cf, W, H, (size_t)W * tbr_format_get_info(cf)->bytes, mem};
    tbr_tile_store_color(&tb, 0, &s);
    /* GL rows are bottom-up, but every pixel is the same here except by construction; we
   * compare row-flipped anyway */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *p = mem + (size_t)y * s.stride + (size_t)x * tbr_format_get_info(cf)->bytes;
            uint8_t *o = out + ((size_t)(H - 1 - y) * W + x) * bpp;
            if (bpp == 2) {
                o[0] = p[0];
                o[1] = p[1];
            } else {
                memcpy(o, p, 4);
                if (!tbr_format_get_info(cf)->has_alpha) o[3] = 255;
            }
        }
    tbr_tile_free(&tb);
}

/* -------------------------------------------------------------- cases */

static uint32_t rng = 0x1234567;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}
static float rndf(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() & 0xffffff) / 16777216.0f; }

static const GLenum factors[] = {GL_ZERO,
                                 GL_ONE,
                                 GL_SRC_COLOR,
                                 GL_ONE_MINUS_SRC_COLOR,
                                 GL_DST_COLOR,
                                 GL_ONE_MINUS_DST_COLOR,
                                 GL_SRC_ALPHA,
                                 GL_ONE_MINUS_SRC_ALPHA,
                                 GL_DST_ALPHA,
                                 GL_ONE_MINUS_DST_ALPHA,
                                 GL_CONSTANT_COLOR,
                                 GL_ONE_MINUS_CONSTANT_COLOR,
                                 GL_CONSTANT_ALPHA,
                                 GL_ONE_MINUS_CONSTANT_ALPHA,
                                 GL_SRC_ALPHA_SATURATE};
#define NFACT (sizeof factors / sizeof factors[0])
static const GLenum eqs[] = {GL_FUNC_ADD, GL_FUNC_SUBTRACT, GL_FUNC_REVERSE_SUBTRACT, GL_MIN, GL_MAX};
static const GLenum sops[] = {GL_KEEP, GL_ZERO, GL_REPLACE, GL_INCR, GL_DECR, GL_INVERT, GL_INCR_WRAP, GL_DECR_WRAP};

static void default_draw(draw_desc *d)
{
    memset(d, 0, sizeof *d);
    d->bl.mask[0] = d->bl.mask[1] = d->bl.mask[2] = d->bl.mask[3] = true;
    d->bl.src_rgb = d->bl.src_a = GL_ONE;
    d->bl.dst_rgb = d->bl.dst_a = GL_ZERO;
    d->bl.eq_rgb = d->bl.eq_a = GL_FUNC_ADD;
    d->ds.depth_func = GL_LESS;
    d->ds.depth_write = true;
    d->ds.sfunc = GL_ALWAYS;
    d->ds.sfail = d->ds.szfail = d->ds.szpass = GL_KEEP;
    d->ds.svmask = d->ds.swmask = 0xff;
}

static void rnd_color(float c[4], float lo, float hi)
{
    for (int i = 0; i < 4; i++) c[i] = rndf(lo, hi);
}

static int ncases, nfail;
static int fails_by[8][FB_COUNT][ZS_COUNT];
static const char *cat_names[8] = {"blend-table",  "blend-random",   "depth-table",
                                   "depth-random", "stencil-random", "pack-boundary"};
static const char *fb_names[FB_COUNT] = {"RGBA8", "RGB565", "RGB8", "RGBA4", "RGB5_A1"};
static const char *zs_names[ZS_COUNT] = {"none", "D24S8", "D16", "D32F"};

static void run_case(const case_desc *c, int cat)
{
    const char *what = cat_names[cat];
    uint8_t got[W * H * 4], want[W * H * 4];
    memset(got, 0, sizeof got);
    memset(want, 0, sizeof want);
    int bpp = gl_run(c, got);
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) fprintf(stderr, "GL error 0x%x in %s fb=%s\n", err, what, fb_names[c->fb]);
    sim_run(c, want, bpp);
    ncases++;
    if (memcmp(got, want, (size_t)W * H * bpp) != 0) {
        nfail++;
        if (++fails_by[cat][c->fb][c->zs] <= 3) {
            fprintf(stderr, "MISMATCH %s fb=%s zs=%s: got", what, fb_names[c->fb], zs_names[c->zs]);
            for (int i = 0; i < bpp; i++) fprintf(stderr, " %u", got[i]);
            fprintf(stderr, " want");
            for (int i = 0; i < bpp; i++) fprintf(stderr, " %u", want[i]);
            fprintf(stderr, "\n  clear %.9g %.9g %.9g %.9g\n", (double)c->clear_color[0], (double)c->clear_color[1],
                    (double)c->clear_color[2], (double)c->clear_color[3]);
            for (int i = 0; i < c->ndraws; i++) {
                const draw_desc *d = &c->d[i];
                fprintf(stderr,
                        "  draw%d col %.9g %.9g %.9g %.9g z %.9g blend %d %#x %#x %#x %#x %#x %#x "
                        "mask %d%d%d%d K %.9g %.9g %.9g %.9g\n",
                        i, (double)d->color[0], (double)d->color[1], (double)d->color[2], (double)d->color[3],
                        (double)d->z_ndc, d->bl.enable, d->bl.src_rgb, d->bl.dst_rgb, d->bl.src_a, d->bl.dst_a,
                        d->bl.eq_rgb, d->bl.eq_a, d->bl.mask[0], d->bl.mask[1], d->bl.mask[2], d->bl.mask[3],
                        (double)d->bl.color[0], (double)d->bl.color[1], (double)d->bl.color[2], (double)d->bl.color[3]);
            }
        }
    }
}

static void blend_cases(void)
{
    /* exhaustive factor pairs x equations on RGBA8, one fixed "awkward" color set */
    for (int fb = 0; fb < FB_COUNT; fb++) {
        const bool exhaustive = fb == FB_RGBA8;
        for (size_t s = 0; s < NFACT; s++)
            for (size_t d = 0; d < NFACT; d++)
                for (size_t e = 0; e < 5; e++) {
                    if (!exhaustive && (rnd() % 8) != 0) continue;
                    case_desc c;
                    memset(&c, 0, sizeof c);
                    c.fb = fb;
                    c.zs = ZS_NONE;
                    c.ndraws = 2;
                    const float cc[4] = {0.1f, 0.2f, 0.7f, 0.4f};
                    memcpy(c.clear_color, cc, sizeof cc);
                    default_draw(&c.d[0]);
                    const float a[4] = {0.3f, 0.6f, 0.9f, 0.7f};
                    memcpy(c.d[0].color, a, sizeof a);
                    c.d[0].bl.mask[1] = false; /* keep G from the clear: one channel never packed */
                    default_draw(&c.d[1]);
                    const float b[4] = {0.8f, 0.15f, 0.45f, 0.35f};
                    memcpy(c.d[1].color, b, sizeof b);
                    c.d[1].bl.enable = true;
                    c.d[1].bl.src_rgb = factors[s];
                    c.d[1].bl.dst_rgb = factors[d];
                    c.d[1].bl.src_a = factors[(s + 3) % NFACT];
                    c.d[1].bl.dst_a = factors[(d + 5) % NFACT];
                    c.d[1].bl.eq_rgb = eqs[e];
                    c.d[1].bl.eq_a = eqs[(e + 1) % 5];
                    const float k[4] = {0.33f, 0.66f, 0.2f, 0.55f};
                    memcpy(c.d[1].bl.color, k, sizeof k);
                    run_case(&c, 0);
                }
    }
    /* random: colors out of [0,1] too (clear color, shader output, constant) */
    for (int i = 0; i < 3000; i++) {
        case_desc c;
        memset(&c, 0, sizeof c);
        c.fb = (int)(rnd() % FB_COUNT);
        c.zs = ZS_NONE;
        c.ndraws = 2 + (int)(rnd() % 2);
        rnd_color(c.clear_color, -0.3f, 1.3f);
        for (int k = 0; k < c.ndraws; k++) {
            draw_desc *d = &c.d[k];
            default_draw(d);
            rnd_color(d->color, -0.3f, 1.3f);
            d->bl.enable = k > 0 || (rnd() % 4) == 0;
            d->bl.src_rgb = factors[rnd() % NFACT];
            d->bl.dst_rgb = factors[rnd() % NFACT];
            d->bl.src_a = factors[rnd() % NFACT];
            d->bl.dst_a = factors[rnd() % NFACT];
            if (rnd() % 3 == 0) { /* common fast-path states */
                static const GLenum pairs[2][2] = {{GL_ONE, GL_ONE}, {GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA}};
                int p = (int)(rnd() % 2);
                d->bl.src_rgb = d->bl.src_a = pairs[p][0];
                d->bl.dst_rgb = d->bl.dst_a = pairs[p][1];
            }
            d->bl.eq_rgb = eqs[rnd() % 5];
            d->bl.eq_a = (rnd() % 2) ? d->bl.eq_rgb : eqs[rnd() % 5];
            if (rnd() % 4 == 0)
                for (int m = 0; m < 4; m++) d->bl.mask[m] = rnd() % 2;
            rnd_color(d->bl.color, -0.3f, 1.3f);
        }
        run_case(&c, 1);
    }
}

/* Quantization at rounding boundaries: values within a few ulps of (k + 0.5) / max for
 * every k, written by a plain draw (single_output_color) or by a clear only. */
static void pack_cases(void)
{
    static const int fbs[] = {FB_RGBA8, FB_RGB565, FB_RGBA4, FB_RGB5A1};
    static const int maxv[] = {255, 31, 15, 31};
    for (int fi = 0; fi < 4; fi++) {
        float vals[4];
        int nv = 0;
        for (int k = 0; k < maxv[fi]; k++)
            for (int u = -3; u <= 3; u++) {
                float v = (float)((k + 0.5) / maxv[fi]);
                for (int i = 0; i < (u < 0 ? -u : u); i++) v = nextafterf(v, u < 0 ? 0.0f : 1.0f);
                vals[nv++] = v;
                if (nv < 4) continue;
                nv = 0;
                for (int clear_only = 0; clear_only < 2; clear_only++) {
                    case_desc c;
                    memset(&c, 0, sizeof c);
                    c.fb = fbs[fi];
                    c.zs = ZS_NONE;
                    memcpy(c.clear_color, vals, sizeof vals);
                    if (!clear_only) {
                        c.ndraws = 1;
                        default_draw(&c.d[0]);
                        /* rotate channels so each value is tried on R, G and B */
                        for (int ch = 0; ch < 4; ch++) c.d[0].color[ch] = vals[(ch + 1) % 4];
                    }
                    run_case(&c, 5);
                }
            }
    }
}

static void depth_cases(void)
{
    static const GLenum funcs[] = {GL_NEVER,   GL_LESS,     GL_EQUAL,  GL_LEQUAL,
                                   GL_GREATER, GL_NOTEQUAL, GL_GEQUAL, GL_ALWAYS};
    /* window depths near quantization boundaries: clear vs fragment rounding */
    static const float zws[] = {0.0f, 0.5f, 1.0f,        0.3f,        0.25f, 0.75f, 0.1f,
                                0.9f, 0.6f, 0.50000006f, 0.49999997f, 0.7f,  0.2f};
    const int nz = (int)(sizeof zws / sizeof zws[0]);
    for (int zs = ZS_D24S8; zs < ZS_COUNT; zs++)
        for (int f = 0; f < 8; f++)
            for (int i = 0; i < nz; i++)
                for (int j = 0; j < nz; j++) {
                    if (i != j && (rnd() % 3) != 0) continue;
                    case_desc c;
                    memset(&c, 0, sizeof c);
                    c.fb = FB_RGBA8;
                    c.zs = zs;
                    c.clear_depth = zws[i];
                    c.ndraws = 2;
                    const float cc[4] = {0.0f, 0.0f, 0.0f, 1.0f};
                    memcpy(c.clear_color, cc, sizeof cc);
                    /* draw 1 at zws[j] against the clear with func f; draw 2 at zws[i] with EQUAL:
           * shows whether the fragment conversion equals the clear conversion */
                    default_draw(&c.d[0]);
                    c.d[0].ds.depth_test = true;
                    c.d[0].ds.depth_func = funcs[f];
                    c.d[0].z_ndc = (zws[j] - 0.5f) * 2.0f;
                    const float a[4] = {1.0f, 0.0f, 0.0f, 1.0f};
                    memcpy(c.d[0].color, a, sizeof a);
                    default_draw(&c.d[1]);
                    c.d[1].ds.depth_test = true;
                    c.d[1].ds.depth_func = (rnd() % 2) ? GL_EQUAL : GL_LEQUAL;
                    c.d[1].ds.depth_write = false;
                    c.d[1].z_ndc = (zws[i] - 0.5f) * 2.0f;
                    const float b[4] = {0.0f, 1.0f, 0.0f, 1.0f};
                    memcpy(c.d[1].color, b, sizeof b);
                    c.d[1].bl.mask[0] = false;
                    run_case(&c, 2);
                }
    /* random z */
    for (int i = 0; i < 1500; i++) {
        case_desc c;
        memset(&c, 0, sizeof c);
        c.fb = FB_RGBA8;
        c.zs = ZS_D24S8 + (int)(rnd() % 3);
        c.clear_depth = rndf(0.0f, 1.0f);
        c.ndraws = 3;
        const float cc[4] = {0.0f, 0.0f, 0.0f, 1.0f};
        memcpy(c.clear_color, cc, sizeof cc);
        for (int k = 0; k < 3; k++) {
            draw_desc *d = &c.d[k];
            default_draw(d);
            d->ds.depth_test = true;
            d->ds.depth_func = funcs[rnd() % 8];
            d->ds.depth_write = rnd() % 2;
            float zw = (rnd() % 2) ? rndf(0.0f, 1.0f) : (k ? c.clear_depth : rndf(0.0f, 1.0f));
            /* |z_ndc| <= 1: outside, the constant-z quad is clipped away entirely */
            d->z_ndc = (rnd() % 3 == 0) ? rndf(-1.0f, 1.0f) : (zw - 0.5f) * 2.0f;
            d->color[k] = 1.0f;
            d->color[3] = 1.0f;
            d->bl.mask[0] = k == 0;
            d->bl.mask[1] = k == 1;
            d->bl.mask[2] = k == 2;
        }
        run_case(&c, 3);
    }
}

static void stencil_cases(void)
{
    static const GLenum funcs[] = {GL_NEVER,   GL_LESS,     GL_EQUAL,  GL_LEQUAL,
                                   GL_GREATER, GL_NOTEQUAL, GL_GEQUAL, GL_ALWAYS};
    for (int i = 0; i < 3000; i++) {
        case_desc c;
        memset(&c, 0, sizeof c);
        c.fb = FB_RGBA8;
        c.zs = ZS_D24S8;
        static const int svals[] = {0, 1, 254, 255, 0x5a, 0x80};
        c.clear_stencil = (rnd() % 2) ? svals[rnd() % 6] : (int)(rnd() % 256);
        c.clear_depth = 0.5f;
        c.ndraws = 3;
        const float cc[4] = {0.0f, 0.0f, 0.0f, 1.0f};
        memcpy(c.clear_color, cc, sizeof cc);
        for (int k = 0; k < 3; k++) {
            draw_desc *d = &c.d[k];
            default_draw(d);
            d->ds.stencil_test = true;
            d->ds.depth_test = rnd() % 2;
            d->ds.depth_func = funcs[rnd() % 8];
            d->ds.depth_write = rnd() % 2;
            d->z_ndc = rndf(-1.0f, 1.0f);
            d->ds.sfunc = funcs[rnd() % 8];
            d->ds.sref = (rnd() % 2) ? svals[rnd() % 6] : (int)(rnd() % 256);
            d->ds.svmask = (rnd() % 2) ? 0xff : (rnd() & 0xff);
            d->ds.swmask = (rnd() % 2) ? 0xff : (rnd() & 0xff);
            d->ds.sfail = sops[rnd() % 8];
            d->ds.szfail = sops[rnd() % 8];
            d->ds.szpass = sops[rnd() % 8];
            d->color[k] = 1.0f;
            d->color[3] = 1.0f;
            d->bl.mask[0] = k == 0;
            d->bl.mask[1] = k == 1;
            d->bl.mask[2] = k == 2;
        }
        /* each draw writes its own channel: the pixel shows which draws passed */
        run_case(&c, 4);
    }
}

int main(void)
{
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
        printf("FAIL: cannot create a surfaceless GLES3 context\n");
        return 77;
    }
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    printf("GL_RENDERER = %s, GL_VERSION = %s\n", renderer ? renderer : "?", (const char *)glGetString(GL_VERSION));
    if (!renderer || !strstr(renderer, "softpipe")) {
        fprintf(stderr, "FAIL: renderer is not softpipe (LD_LIBRARY_PATH?)\n");
        return 1;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (!gl_setup()) {
        fprintf(stderr, "FAIL: GL setup\n");
        return 1;
    }
    for (int f = 0; f < FB_COUNT; f++) {
        GLint rf = 0, rt = 0;
        glBindFramebuffer(GL_FRAMEBUFFER, fbo[f][ZS_NONE]);
        glGetIntegerv(GL_IMPLEMENTATION_COLOR_READ_FORMAT, &rf);
        glGetIntegerv(GL_IMPLEMENTATION_COLOR_READ_TYPE, &rt);
        printf("%s: implementation read format 0x%x type 0x%x\n", fb_names[f], rf, rt);
    }
    pack_cases();
    printf("pack: %d cases, %d mismatches\n", ncases, nfail);
    int p0 = ncases, pf = nfail;
    blend_cases();
    int b = ncases, bf = nfail;
    (void)p0;
    (void)pf;
    printf("blend: %d cases, %d mismatches\n", b - p0, bf - pf);
    depth_cases();
    printf("depth: %d cases, %d mismatches\n", ncases - b, nfail - bf);
    int d = ncases, df = nfail;
    stencil_cases();
    printf("stencil: %d cases, %d mismatches\n", ncases - d, nfail - df);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
    for (int k = 0; k < 6; k++)
        for (int f = 0; f < FB_COUNT; f++)
            for (int z = 0; z < ZS_COUNT; z++)
                if (fails_by[k][f][z])
                    printf("  %s fb=%s zs=%s: %d mismatches\n", cat_names[k], fb_names[f], zs_names[z],
                           fails_by[k][f][z]);
    printf("total: %d cases, %d mismatches\n", ncases, nfail);
    return nfail ? 1 : 0;
}
