/*
 * fs_quad.c - a draw's fragment shading on one quad, as softpipe's sp_fs_exec.c
 * exec_run and sp_quad_fs.c shade_quad do it (see fs_quad.h).
 */
#include "fs_quad.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIPE_TEXTURE_2D         2u /* enum pipe_texture_target */
#define PIPE_TEXTURE_CUBE       4u
#define PIPE_TEXTURE_RECT       5u
#define PIPE_TEXTURE_2D_ARRAY   7u
#define PIPE_TEXTURE_CUBE_ARRAY 8u

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

void tbr_fs_view_from_record(struct tbr_texture_view *v, const tbr_rec_texture *t)
{
    memset(v, 0, sizeof(*v));
    v->view_format = t->view_format;
    v->first_level = t->first_level;
    v->last_level = t->last_level;
    v->first_layer = t->first_layer;
    v->last_layer = t->last_layer;
    memcpy(v->swizzle, t->swizzle, sizeof(v->swizzle));
    v->wrap_s = t->wrap_s;
    v->wrap_t = t->wrap_t;
    v->wrap_r = t->wrap_r;
    v->min_img_filter = t->min_img_filter;
    v->min_mip_filter = t->min_mip_filter;
    v->mag_img_filter = t->mag_img_filter;
    v->compare_mode = t->compare_mode;
    v->compare_func = t->compare_func;
    v->normalized_coords = t->normalized_coords;
    v->seamless_cube_map = t->seamless_cube_map;
    v->max_anisotropy = t->max_anisotropy;
    v->lod_bias = t->lod_bias;
    v->min_lod = t->min_lod;
    v->max_lod = t->max_lod;
    memcpy(v->border_color, t->border_color, sizeof(v->border_color));
}

int tbr_fs_view_computable(const struct tbr_texture_view *v, char *why, size_t whylen)
{
    static const char *const target_names[] = {"buffer", "1D",       "2D",       "3D",        "cube",
                                               "rect",   "1D array", "2D array", "cube array"};
    /* layered targets: readers hold each layer of a level as its own surface
     * (SURFACE_INIT per layer, tbr_texture_level.layer_data) */
    const int layered =
        v->target == PIPE_TEXTURE_2D_ARRAY || v->target == PIPE_TEXTURE_CUBE || v->target == PIPE_TEXTURE_CUBE_ARRAY;
    if (v->target != PIPE_TEXTURE_2D && v->target != PIPE_TEXTURE_RECT && !layered)
        return fail(why, whylen, "texture target %u (%s)", v->target,
                    v->target < sizeof(target_names) / sizeof(target_names[0]) ? target_names[v->target] : "?") +
               1;
    if (!layered && (v->first_layer != 0 || v->last_layer != 0))
        return fail(why, whylen, "texture layers %u-%u", v->first_layer, v->last_layer) + 1;
    if (v->last_layer >= TBR_FS_MAX_VIEW_LAYERS)
        return fail(why, whylen, "texture layers %u-%u (more than %u)", v->first_layer, v->last_layer,
                    TBR_FS_MAX_VIEW_LAYERS) +
               1;
    if (v->first_level > v->last_level || v->last_level >= TBR_SAMPLER_MAX_LEVELS || v->last_level > v->res_last_level)
        return fail(why, whylen, "texture levels %u-%u", v->first_level, v->last_level) + 1;
    for (uint32_t l = v->first_level; l <= v->last_level; l++)
        if (!v->levels[l].data) return fail(why, whylen, "texture level %u not in memory", l) + 1;
    return tbr_sampler_supported(v, why, whylen);
}

uint32_t tbr_fs_program_units(const struct tbr_tgsi_program *prog) { return tbr_tgsi_sampler_views(prog); }

int tbr_fs_draw_prepare(tbr_fs_draw *d, const struct tbr_tgsi_program *prog, const tbr_fs_draw_state *st, char *why,
                        size_t whylen)
{
    memset(d, 0, sizeof(*d));
    d->prog = prog;
    unsigned ni = tbr_tgsi_num_inputs(prog);
    if (ni > TBR_TGSI_MAX_INPUTS) return fail(why, whylen, "%u inputs", ni);
    d->setup.num_inputs = ni;
    for (unsigned i = 0; i < ni; i++) d->setup.inputs[i] = *tbr_tgsi_input(prog, i);
    d->setup.flatshade = st->flatshade;
    d->setup.flatshade_first = st->flatshade_first;
    d->setup.front_ccw = st->front_ccw;
    d->setup.half_pixel_center = st->half_pixel_center;
    d->setup.coord_origin_lower_left = tbr_tgsi_coord_origin_lower_left(prog);
    d->setup.coord_pixel_center_integer = tbr_tgsi_coord_pixel_center_integer(prog);
    d->setup.fb_height = st->fb_height;
    for (int i = 0; i < 4; i++) {
        d->consts[i] = st->consts[i];
        d->const_bytes[i] = st->const_bytes[i];
    }
    if (st->nr_cbufs > TBR_FS_MAX_CBUFS) return fail(why, whylen, "%u color buffers", st->nr_cbufs);
    d->nr_cbufs = st->nr_cbufs;
    const int all = tbr_tgsi_color0_writes_all_cbufs(prog);
    for (unsigned cb = 0; cb < st->nr_cbufs; cb++) {
        d->color_output[cb] = -1;
        for (unsigned o = 0; o < tbr_tgsi_num_outputs(prog); o++) {
            const struct tbr_tgsi_io *io = tbr_tgsi_output(prog, o);
            if (io->semantic_name == TBR_TGSI_SEMANTIC_COLOR && io->semantic_index == (all ? 0u : cb))
                d->color_output[cb] = (int)o;
        }
        if (d->color_output[cb] < 0) return fail(why, whylen, "no color output for color buffer %u", cb);
    }
    return 0;
}

int tbr_fs_draw_set_view(tbr_fs_draw *d, unsigned unit, const struct tbr_texture_view *v, char *why, size_t whylen)
{
    if (unit >= TBR_FS_MAX_UNITS) return fail(why, whylen, "sampler unit %u", unit);
    if (!tbr_fs_view_computable(v, why, whylen)) return -1;
    d->views[unit] = *v;
    tbr_sampler_prepare(&d->prepared[unit], &d->views[unit]);
    d->view_valid |= 1u << unit;
    return 0;
}

/* tgsi_sampler callbacks on the draw's views; an access the library cannot answer
 * exactly marks the run failed. */
struct run_ctx {
    const tbr_fs_draw *d;
    int failed;
    tbr_fs_fetch_observer fetch_obs; /* optional: each sampler call and its texels */
    tbr_texel_observer texel_obs;
    tbr_footprint_observer footprint_obs; /* optional: bilinear footprints at once */
    void *obs_ctx;
    unsigned pc; /* of the texture instruction calling the sampler */
};

static const struct tbr_texture_view *view_of(struct run_ctx *c, unsigned sview, unsigned sampler)
{
    if (sview >= TBR_FS_MAX_UNITS || sview != sampler || !(c->d->view_valid & (1u << sview))) {
        c->failed = 1;
        return NULL;
    }
    return &c->d->views[sview];
}

static void cb_get_samples(void *ctx, unsigned sview_index, unsigned sampler_index, const float s[4], const float t[4],
                           const float r[4], const float c0[4], const float c1[4], float derivs[3][2][4],
                           const int8_t offset[3], enum tbr_sampler_control control, float rgba[4][4])
{
    struct run_ctx *c = ctx;
    const struct tbr_texture_view *v = view_of(c, sview_index, sampler_index);
    if (v && !tbr_sampler_control_supported(control, NULL, 0)) {
        c->failed = 1;
        v = NULL;
    }
    if (!v) {
        memset(rgba, 0, 16 * sizeof(float));
        return;
    }
    if (c->fetch_obs) c->fetch_obs(c->obs_ctx, sview_index, c->pc);
    if (!tbr_sampler_get_samples_exact_prepared(v, &c->d->prepared[sview_index], s, t, r, c0, c1, derivs, offset,
                                                control, rgba, c->texel_obs, c->footprint_obs, c->obs_ctx))
        c->failed = 1; /* softpipe used stale texture-cache contents */
}

static void cb_get_dims(void *ctx, unsigned sview_index, int level, int dims[4])
{
    struct run_ctx *c = ctx;
    const struct tbr_texture_view *v = view_of(c, sview_index, sview_index);
    if (!v) {
        memset(dims, 0, 4 * sizeof(int));
        return;
    }
    tbr_sampler_get_dims(v, level, dims);
}

static void cb_get_texel(void *ctx, unsigned sview_index, const int i[4], const int j[4], const int k[4],
                         const int lod[4], const int8_t offset[3], float rgba[4][4])
{
    struct run_ctx *c = ctx;
    const struct tbr_texture_view *v = view_of(c, sview_index, sview_index);
    if (!v) {
        memset(rgba, 0, 16 * sizeof(float));
        return;
    }
    if (c->fetch_obs) c->fetch_obs(c->obs_ctx, sview_index, c->pc);
    tbr_sampler_get_texel(v, i, j, k, lod, offset, rgba, c->texel_obs, c->obs_ctx);
}

int tbr_fs_quad_colors(const tbr_fs_draw *d, const struct tbr_setup_coefs *coefs, int x, int y, unsigned mask,
                       float out[][4][4])
{
    return tbr_fs_quad_colors_observed(d, coefs, x, y, mask, out, NULL, NULL, NULL);
}

static int run_quad(const tbr_fs_draw *d, const struct tbr_setup_coefs *coefs, int x, int y, unsigned mask,
                    float out[][4][4], int skip_validity, tbr_fs_fetch_observer fetch_obs, tbr_texel_observer texel_obs,
                    tbr_footprint_observer footprint_obs, void *obs_ctx);

int tbr_fs_quad_colors_verified(const tbr_fs_draw *d, const struct tbr_setup_coefs *coefs, int x, int y, unsigned mask,
                                float out[][4][4])
{
    return run_quad(d, coefs, x, y, mask, out, 1, NULL, NULL, NULL, NULL);
}

int tbr_fs_quad_colors_observed(const tbr_fs_draw *d, const struct tbr_setup_coefs *coefs, int x, int y, unsigned mask,
                                float out[][4][4], tbr_fs_fetch_observer fetch_obs, tbr_texel_observer texel_obs,
                                void *obs_ctx)
{
    return run_quad(d, coefs, x, y, mask, out, 0, fetch_obs, texel_obs, NULL, obs_ctx);
}

int tbr_fs_quad_colors_verified_observed(const tbr_fs_draw *d, const struct tbr_setup_coefs *coefs, int x, int y,
                                         unsigned mask, float out[][4][4], tbr_fs_fetch_observer fetch_obs,
                                         tbr_texel_observer texel_obs, void *obs_ctx)
{
    return run_quad(d, coefs, x, y, mask, out, 1, fetch_obs, texel_obs, NULL, obs_ctx);
}

int tbr_fs_quad_colors_verified_observed_footprints(const tbr_fs_draw *d, const struct tbr_setup_coefs *coefs, int x,
                                                    int y, unsigned mask, float out[][4][4],
                                                    tbr_fs_fetch_observer fetch_obs, tbr_texel_observer texel_obs,
                                                    tbr_footprint_observer footprint_obs, void *obs_ctx)
{
    return run_quad(d, coefs, x, y, mask, out, 1, fetch_obs, texel_obs, footprint_obs, obs_ctx);
}

static int run_quad(const tbr_fs_draw *d, const struct tbr_setup_coefs *coefs, int x, int y, unsigned mask,
                    float out[][4][4], int skip_validity, tbr_fs_fetch_observer fetch_obs, tbr_texel_observer texel_obs,
                    tbr_footprint_observer footprint_obs, void *obs_ctx)
{
    struct run_ctx rc = {d, 0, fetch_obs, texel_obs, footprint_obs, obs_ctx, 0};
    struct tbr_tgsi_sampler smp = {&rc, cb_get_samples, cb_get_dims, cb_get_texel};
    struct tbr_tgsi_fs_quad q;
    memset(&q, 0, sizeof(q));
    q.x0 = (float)x;
    q.y0 = (float)y;
    q.pos_coef = &coefs->pos;
    q.coef = coefs->inputs;
    q.flatshade_color = d->setup.flatshade;
    q.face = coefs->face;
    q.non_helper_mask = mask;
    for (int i = 0; i < 4; i++) {
        q.consts[i] = d->consts[i];
        q.const_bytes[i] = d->const_bytes[i];
    }
    q.sampler = &smp;
    q.skip_validity = skip_validity;
    q.sampler_pc = fetch_obs ? &rc.pc : NULL;
    q.declared_outputs_only = 1; /* color_output[] are outputs of the program */
    struct tbr_tgsi_fs_result res;
    if (tbr_tgsi_run_fs(d->prog, &q, &res) != 0 || rc.failed) return -1;
    for (unsigned cb = 0; cb < d->nr_cbufs; cb++) memcpy(out[cb], res.outputs[d->color_output[cb]], sizeof(out[cb]));
    return 0;
}

/* ---- fetch log (derived texels) ---- */

void tbr_fs_fetch_log_free(tbr_fs_fetch_log *log)
{
    free(log->fetch);
    free(log->texel);
    memset(log, 0, sizeof(*log));
}

/* A sampler call that reads no texel is dropped when the next one starts (or at the end). */
static void log_fetch(void *ctx, unsigned unit, unsigned pc)
{
    tbr_fs_fetch_log *log = ctx;
    if (log->nfetch && log->fetch[log->nfetch - 1].n == 0) log->nfetch--;
    if (log->nfetch == log->cap_fetch) {
        uint32_t nc = log->cap_fetch ? 2 * log->cap_fetch : 64;
        tbr_fs_fetch_log_entry *n = realloc(log->fetch, nc * sizeof(*n));
        if (!n) {
            log->failed = 1;
            return;
        }
        log->fetch = n;
        log->cap_fetch = nc;
    }
    log->fetch[log->nfetch++] = (tbr_fs_fetch_log_entry){pc, unit, log->ntexel, 0, 1};
}

/* Room for n more texels in the current fetch: its entry, or NULL (nothing to log to,
 * or failed). */
static tbr_fs_fetch_log_entry *texel_room(tbr_fs_fetch_log *log, uint32_t n)
{
    if (!log->nfetch || log->failed) return NULL;
    tbr_fs_fetch_log_entry *f = &log->fetch[log->nfetch - 1];
    if (f->n > TBR_REC_MAX_TEXELS_PER_FETCH - n) { /* the hook's record would split it */
        log->failed = 1;
        return NULL;
    }
    if (log->cap_texel - log->ntexel < n) {
        uint32_t nc = log->cap_texel ? 2 * log->cap_texel : 1024;
        tbr_rec_texel *t = realloc(log->texel, nc * sizeof(*t));
        if (!t) {
            log->failed = 1;
            return NULL;
        }
        log->texel = t;
        log->cap_texel = nc;
    }
    return f;
}

static void log_texel(void *ctx, unsigned lane, unsigned level, unsigned layer, int x, int y)
{
    tbr_fs_fetch_log *log = ctx;
    tbr_fs_fetch_log_entry *f = texel_room(log, 1);
    if (!f) return;
    log->texel[log->ntexel++] = (tbr_rec_texel){lane, level, layer, x, y};
    f->n++;
    f->footprints = 0;
}

/* The four texels of a bilinear footprint, as four log_texel calls would log them. */
static void log_footprint(void *ctx, unsigned lane, unsigned level, unsigned layer, int x0, int x1, int y0, int y1)
{
    tbr_fs_fetch_log *log = ctx;
    tbr_fs_fetch_log_entry *f = texel_room(log, 4);
    if (!f) return;
    tbr_rec_texel *t = log->texel + log->ntexel;
    t[0] = (tbr_rec_texel){lane, level, layer, x0, y0};
    t[1] = (tbr_rec_texel){lane, level, layer, x1, y0};
    t[2] = (tbr_rec_texel){lane, level, layer, x0, y1};
    t[3] = (tbr_rec_texel){lane, level, layer, x1, y1};
    log->ntexel += 4;
    f->n += 4;
}

int tbr_fs_quad_colors_logged(const tbr_fs_draw *d, const struct tbr_setup_coefs *coefs, int x, int y, unsigned mask,
                              float out[][4][4], int verified, tbr_fs_fetch_log *log)
{
    int rc = run_quad(d, coefs, x, y, mask, out, verified != 0, log_fetch, log_texel, log_footprint, log);
    if (log->nfetch && log->fetch[log->nfetch - 1].n == 0) log->nfetch--;
    return rc;
}
