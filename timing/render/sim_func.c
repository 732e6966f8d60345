/* Functional back end of tbr-sim (see sim_func.h). */
#include "render/sim_func.h"
#include "core/util.h"
#include "blend_record.h"
#include "core/crc32.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_func_init(sim_func *fn, uint64_t surface_base)
{
    memset(fn, 0, sizeof *fn);
    fn->surf_zs = -1;
    for (unsigned i = 0; i < TBR_MAX_COLOR_BUFS; i++) fn->surf_cbuf[i] = -1;
    fn->next_addr = surface_base;
}

void sim_func_reset(sim_func *fn, uint64_t surface_base)
{
    sim_func_free(fn);
    sim_func_init(fn, surface_base);
}

void sim_func_free(sim_func *fn)
{
    for (size_t i = 0; i < fn->nsurfs; i++) {
        free(fn->surfs[i].mem.data);
        free(fn->surfs[i].cache);
        free(fn->surfs[i].zs);
    }
    free(fn->surfs);
    if (fn->tb_valid) tbr_tile_free(&fn->tb);
    free(fn->bin_start);
    free(fn->bin_items);
    free(fn->dsa);
    free(fn->blend);
    free(fn->bpath);
    for (size_t i = 0; i < fn->nprogs; i++) tbr_tgsi_free(fn->progs[i].prog);
    free(fn->progs);
    for (size_t i = 0; i < fn->cap_fsd; i++) free(fn->fsd[i].layer_data);
    free(fn->fsd);
    tbr_fs_fetch_log_free(&fn->flog);
    sim_rel_free(&fn->rel);
    sim_fetch_set_free(&fn->derived);
    memset(fn, 0, sizeof *fn);
}

/* Finds or creates the surface (resource, level, layer). -1 if the resource or its format
 * is unknown. */
static int find_surf(const sim_func *fn, uint32_t res, uint32_t level, uint32_t layer)
{
    for (size_t i = 0; i < fn->nsurfs; i++)
        if (fn->surfs[i].res == res && fn->surfs[i].level == level && fn->surfs[i].layer == layer) return (int)i;
    return -1;
}

static int get_surf(sim_func *fn, const sim_frame *f, uint32_t res, uint32_t level, uint32_t layer)
{
    int known = find_surf(fn, res, level, layer);
    if (known >= 0) return fn->surfs[known].raw ? -1 : known;
    const sim_resource *r = sim_frame_resource(f, res);
    if (!r) return -1;
    tbr_pixel_format fmt = tbr_format_from_name(r->rec.format_name);
    const tbr_format_info *fi = tbr_format_get_info(fmt);
    if (!fi) {
        fn->unknown_format_surfaces++;
        return -1;
    }
    if (fn->nsurfs == fn->cap_surfs) {
        fn->cap_surfs = fn->cap_surfs ? fn->cap_surfs * 2 : 16;
        fn->surfs = tbr_xrealloc(fn->surfs, fn->cap_surfs * sizeof *fn->surfs);
    }
    sim_surf *s = &fn->surfs[fn->nsurfs];
    memset(s, 0, sizeof *s);
    s->res = res;
    s->level = level;
    s->layer = layer;
    s->fmt = fmt;
    s->is_zs = !fi->is_color;
    s->w = r->rec.width >> level;
    if (!s->w) s->w = 1;
    s->h = r->rec.height >> level;
    if (!s->h) s->h = 1;
    size_t npix = (size_t)s->w * s->h;
    if (s->is_zs) {
        s->zs = tbr_xcalloc(npix, sizeof *s->zs);
    } else {
        s->mem.format = fmt;
        s->mem.width = s->w;
        s->mem.height = s->h;
        s->mem.stride = (size_t)s->w * fi->bytes;
        s->mem.data = tbr_xcalloc(npix, fi->bytes);
        s->cache = tbr_xcalloc(npix * 4, sizeof(float));
    }
    return (int)fn->nsurfs++;
}

/* Simulated address map: render targets are laid out linearly (softpipe's layout), 4 KiB
 * aligned, in order of first binding (docs/timing-model.md "Address map"). Surfaces
 * known earlier only for their contents (SURFACE_INIT of a sampled texture, computed
 * colors) get theirs then too, so the map does not depend on the trace's color coding. */
static void bind_surf(sim_func *fn, int k)
{
    if (k < 0 || fn->surfs[k].has_base) return;
    sim_surf *s = &fn->surfs[k];
    const tbr_format_info *fi = tbr_format_get_info(s->fmt);
    s->base = fn->next_addr;
    s->has_base = true;
    fn->next_addr += ((uint64_t)s->w * s->h * (fi ? fi->bytes : 4) + 4095) & ~(uint64_t)4095;
}

/* A sampled texture level the pixel back end cannot render (e.g. L8, A8, compressed):
 * its bytes only, for the sampler of computed colors (SURFACE_INIT of a texture). */
static int get_raw_surf(sim_func *fn, const tbr_rec_surface_init *r)
{
    int known = find_surf(fn, r->resource_id, r->level, r->layer);
    if (known >= 0) return fn->surfs[known].raw ? known : -1;
    if (!r->width || !r->height || !r->block_bytes || r->is_zs) return -1;
    if (fn->nsurfs == fn->cap_surfs) {
        fn->cap_surfs = fn->cap_surfs ? fn->cap_surfs * 2 : 16;
        fn->surfs = tbr_xrealloc(fn->surfs, fn->cap_surfs * sizeof *fn->surfs);
    }
    sim_surf *s = &fn->surfs[fn->nsurfs];
    memset(s, 0, sizeof *s);
    s->res = r->resource_id;
    s->level = r->level;
    s->layer = r->layer;
    s->fmt = TBR_PF_NONE;
    s->raw = true;
    s->w = r->width;
    s->h = r->height;
    s->mem.width = s->w;
    s->mem.height = s->h;
    s->mem.stride = (size_t)s->w * r->block_bytes;
    s->mem.data = tbr_xcalloc((size_t)s->w * s->h, r->block_bytes);
    return (int)fn->nsurfs++; /* never bound: no address */
}

/* ---- tile events applied to whole-surface images (surfaces not bound in the pass) ---- */
static void clip_rect(const sim_surf *s, const tbr_rec_tile *t, unsigned *x0, unsigned *y0, unsigned *x1, unsigned *y1)
{
    uint64_t ts = t->tile_size ? t->tile_size : 64;
    uint64_t a = (uint64_t)t->tile_x * ts, b = (uint64_t)t->tile_y * ts;
    *x0 = a < s->w ? (unsigned)a : s->w;
    *y0 = b < s->h ? (unsigned)b : s->h;
    *x1 = a + ts < s->w ? (unsigned)(a + ts) : s->w;
    *y1 = b + ts < s->h ? (unsigned)(b + ts) : s->h;
}

static void surf_event(sim_surf *s, const sim_tile_ev *e)
{
    unsigned x0, y0, x1, y1;
    clip_rect(s, &e->t, &x0, &y0, &x1, &y1);
    const tbr_format_info *fi = tbr_format_get_info(s->fmt);
    for (unsigned y = y0; y < y1; y++)
        for (unsigned x = x0; x < x1; x++) {
            size_t i = (size_t)y * s->w + x;
            if (s->is_zs) {
                if (e->t.kind == TBR_REC_TILE_LOAD_CLEAR || e->t.kind == TBR_REC_TILE_STORE_CLEAR)
                    s->zs[i] = e->zs_clear;
                continue;
            }
            uint8_t *m = s->mem.data + (size_t)y * s->mem.stride + (size_t)x * fi->bytes;
            float *c = s->cache + i * 4;
            switch (e->t.kind) {
                case TBR_REC_TILE_LOAD: tbr_unpack_rgba_float(s->fmt, m, c); break;
                case TBR_REC_TILE_LOAD_CLEAR: memcpy(c, e->clear_color, 4 * sizeof(float)); break;
                case TBR_REC_TILE_STORE: tbr_pack_rgba_float(s->fmt, c, m); break;
                case TBR_REC_TILE_STORE_CLEAR: tbr_pack_rgba_float(s->fmt, e->clear_color, m); break;
                default: break;
            }
        }
}

/* QUADS colors of a draw whose blending is off are packed in the render target's
 * format (schema 3): the blend stage gets unpack(packed), whose packing gives the same
 * pixel (docs/trace-records.md QUADS). */
static void unpack_quad_colors(const sim_func *fn, const sim_frame *f, const sim_quad *q, uint32_t packed_mask,
                               unsigned nr, float out[][4][4])
{
    for (unsigned cb = 0; cb < nr && cb < TBR_MAX_COLOR_BUFS; cb++) {
        const float(*block)[4] = f->colors[q->color + cb];
        if (!(packed_mask & (1u << cb))) {
            memcpy(out[cb], block, sizeof out[cb]);
            continue;
        }
        uint32_t bits[4];
        memcpy(bits, block[0], sizeof bits);
        for (int j = 0; j < 4; j++) {
            uint8_t bytes[4] = {(uint8_t)bits[j], (uint8_t)(bits[j] >> 8), (uint8_t)(bits[j] >> 16),
                                (uint8_t)(bits[j] >> 24)};
            float rgba[4] = {0, 0, 0, 0};
            tbr_unpack_rgba_float(fn->tb.cformat[cb], bytes, rgba);
            for (int c = 0; c < 4; c++) out[cb][c][j] = rgba[c];
        }
    }
}

/* ---- computed colors (records minor 5) ------------------------------------
 * A COMPUTED QUADS record carries no colors: the recorder verified that
 * functional/reference reproduces softpipe's fragment shader outputs from the trace (PRIM
 * attributes, DRAW state and constants, and the memory of the sampled textures, which
 * this back end holds: render targets it rendered, SURFACE_INIT for the rest). */
/* Counts a failure and keeps the first one's message (the summary reports it). */
static void count_failure(uint64_t *count, char *first, size_t first_len, const char *fmt, va_list ap)
{
    (*count)++;
    if (!first[0]) vsnprintf(first, first_len, fmt, ap);
}

static void compute_failed(sim_func *fn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    count_failure(&fn->quads_compute_failed, fn->first_compute_failure, sizeof fn->first_compute_failure, fmt, ap);
    va_end(ap);
}

static const struct tbr_tgsi_program *fs_program(sim_func *fn, const sim_frame *f, uint32_t id)
{
    for (size_t i = 0; i < fn->nprogs; i++)
        if (fn->progs[i].id == id) return fn->progs[i].prog;
    const char *text = sim_loader_shader_text(f->loader, id);
    char why[160];
    struct tbr_tgsi_program *p = text ? tbr_tgsi_parse(text, why, sizeof why) : NULL;
    if (fn->nprogs == fn->cap_progs) {
        fn->cap_progs = fn->cap_progs ? 2 * fn->cap_progs : 16;
        fn->progs = tbr_xrealloc(fn->progs, fn->cap_progs * sizeof *fn->progs);
    }
    fn->progs[fn->nprogs].id = id;
    fn->progs[fn->nprogs++].prog = p;
    return p;
}

/* A depth/stencil surface sampled as a texture: its raw words as the bytes of its memory
 * (little-endian, the format's size), refreshed whenever a draw samples it. */
static void zs_to_bytes(sim_surf *s)
{
    const tbr_format_info *fi = tbr_format_get_info(s->fmt);
    const unsigned bytes = fi ? fi->bytes : 4;
    if (!s->mem.data) {
        s->mem.format = s->fmt;
        s->mem.width = s->w;
        s->mem.height = s->h;
        s->mem.stride = (size_t)s->w * bytes;
        s->mem.data = tbr_xcalloc((size_t)s->w * s->h, bytes);
    }
    for (size_t i = 0; i < (size_t)s->w * s->h; i++)
        for (unsigned b = 0; b < bytes && b < 8; b++) s->mem.data[i * bytes + b] = (uint8_t)(s->zs[i] >> (8 * b));
}

/* The draw's shading state, the sampled levels read from this back end's surfaces. */
/* The levels of texture view v (DRAW entry t) from this back end's surfaces; a layered
 * view's layers go to fd's layer_data from index *used on. A level or layer it does not
 * hold stays NULL (tbr_fs_draw_set_view refuses the view). -1: too many layers. */
static int view_levels(sim_func *fn, sim_fs_draw *fd, const tbr_rec_texture *t, struct tbr_texture_view *v,
                       size_t *used)
{
    const int layered = v->target == 4 || v->target == 7 || v->target == 8; /* cube, 2D array, cube array */
    const uint32_t nl = layered ? t->last_layer + 1 : 0;
    if (layered && nl > TBR_FS_MAX_VIEW_LAYERS) return -1;
    for (uint32_t l = tbr_sampler_lowest_level(t->first_level); l <= t->last_level && l < TBR_SAMPLER_MAX_LEVELS; l++) {
        const uint8_t **ld = NULL;
        if (layered) {
            if (*used + nl > fd->cap_layer_data) return -1; /* sized by prepare_fs_draw */
            ld = &fd->layer_data[*used];
            *used += nl;
            for (uint32_t z = 0; z < nl; z++) {
                const int si = z < t->first_layer ? -1 : find_surf(fn, t->resource_id, l, z);
                if (si >= 0 && fn->surfs[si].is_zs) zs_to_bytes(&fn->surfs[si]);
                ld[z] = si < 0 ? NULL : fn->surfs[si].mem.data;
            }
        }
        const int si = find_surf(fn, t->resource_id, l, t->first_layer);
        if (si < 0) continue; /* level unknown: tbr_fs_draw_set_view refuses the view */
        if (fn->surfs[si].is_zs) zs_to_bytes(&fn->surfs[si]);
        v->levels[l].data = fn->surfs[si].mem.data;
        v->levels[l].row_stride = (uint32_t)fn->surfs[si].mem.stride;
        v->levels[l].layer_stride = 0;
        v->levels[l].layer_data = ld;
        v->levels[l].num_layers = nl;
    }
    return 0;
}

/* Room in fd->layer_data for every layered view of draw d (levels x layers). */
static void reserve_layer_data(sim_fs_draw *fd, const tbr_rec_draw *d)
{
    size_t need = 0;
    for (uint32_t k = 0; k < d->num_textures && k < TBR_REC_MAX_TEXTURES; k++) {
        const tbr_rec_texture *t = &d->textures[k];
        if (t->last_layer < TBR_FS_MAX_VIEW_LAYERS) need += (size_t)(t->last_layer + 1) * TBR_SAMPLER_MAX_LEVELS;
    }
    if (need > fd->cap_layer_data) {
        fd->layer_data = tbr_xrealloc(fd->layer_data, need * sizeof *fd->layer_data);
        fd->cap_layer_data = need;
    }
}

static int prepare_fs_draw(sim_func *fn, const sim_frame *f, const sim_draw *sd, sim_fs_draw *fd)
{
    tbr_fs_draw *out = &fd->d;
    size_t nlayer_data = 0;
    const tbr_rec_draw *d = &sd->rec;
    const struct tbr_tgsi_program *prog = fs_program(fn, f, d->fs_id);
    char why[160];
    if (!prog) {
        compute_failed(fn, "draw %u: fragment shader %u not computable", d->seq, d->fs_id);
        return -1;
    }
    tbr_fs_draw_state st;
    memset(&st, 0, sizeof st);
    st.flatshade = (int)d->flatshade;
    st.flatshade_first = (int)d->flatshade_first;
    st.front_ccw = (int)d->front_ccw;
    st.half_pixel_center = (int)d->half_pixel_center;
    st.fb_height = fn->pass->rp.height;
    st.nr_cbufs = d->nr_cbufs;
    for (unsigned k = 0; k < 4; k++) {
        st.consts[k] = sd->fs_const_len[k] ? f->fs_consts + sd->fs_const_off[k] : NULL;
        st.const_bytes[k] = sd->fs_const_len[k];
    }
    if (tbr_fs_draw_prepare(out, prog, &st, why, sizeof why) != 0) {
        compute_failed(fn, "draw %u: %s", d->seq, why);
        return -1;
    }
    uint32_t used = tbr_fs_program_units(prog);
    reserve_layer_data(fd, d);
    for (uint32_t k = 0; k < d->num_textures && k < TBR_REC_MAX_TEXTURES; k++) {
        const tbr_rec_texture *t = &d->textures[k];
        if (t->unit >= TBR_FS_MAX_UNITS || !(used & (1u << t->unit))) continue;
        const sim_resource *r = sim_frame_resource(f, t->resource_id);
        if (!r) {
            compute_failed(fn, "draw %u: texture %u unknown", d->seq, t->resource_id);
            return -1;
        }
        struct tbr_texture_view v;
        tbr_fs_view_from_record(&v, t);
        v.target = r->rec.target;
        v.resource_format = r->rec.format;
        v.width0 = r->rec.width;
        v.height0 = r->rec.height;
        v.depth0 = r->rec.depth;
        v.array_size = r->rec.array_size;
        v.res_last_level = r->rec.last_level;
        if (view_levels(fn, fd, t, &v, &nlayer_data) != 0) {
            compute_failed(fn, "draw %u: texture %u has more than %u layers", d->seq, t->resource_id,
                           TBR_FS_MAX_VIEW_LAYERS);
            return -1;
        }
        if (tbr_fs_draw_set_view(out, t->unit, &v, why, sizeof why) != 0) {
            compute_failed(fn, "frame %llu draw %u unit %u: %s", (unsigned long long)f->number, d->seq, t->unit, why);
            return -1;
        }
    }
    return 0;
}

void sim_func_derive_texels(sim_func *fn, const sim_frame *f)
{
    fn->fetch_frame = f;
    if (f) sim_fetch_set_reset(&fn->derived, f);
}

static void derive_failed(sim_func *fn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    count_failure(&fn->texel_derive_failed, fn->first_derive_failure, sizeof fn->first_derive_failure, fmt, ap);
    va_end(ap);
}

/* The resource a draw's sampler unit reads (the DRAW record's texture of the unit; 0 if
 * none). */
static uint32_t unit_resource(const tbr_rec_draw *d, uint32_t unit)
{
    uint32_t id = 0;
    for (uint32_t k = 0; k < d->num_textures && k < TBR_REC_MAX_TEXTURES; k++)
        if (d->textures[k].unit == unit) id = d->textures[k].resource_id;
    return id;
}

/* The sampler's reports, mapped to lines at once (fn->rel). */
static void rel_fetch_obs(void *ctx, unsigned unit, unsigned pc)
{
    sim_func *fn = ctx;
    sim_rel_begin_fetch(&fn->rel, fn->fetch_frame, unit_resource(fn->rel_draw, unit), pc);
}
static void rel_texel_obs(void *ctx, unsigned lane, unsigned level, unsigned layer, int x, int y)
{
    (void)lane;
    sim_rel_texel(&((sim_func *)ctx)->rel, level, layer, x, y);
}
static void rel_footprint_obs(void *ctx, unsigned lane, unsigned level, unsigned layer, int x0, int x1, int y0, int y1)
{
    (void)lane;
    sim_rel_footprint(&((sim_func *)ctx)->rel, level, layer, x0, x1, y0, y1);
}

/* The derived fetches of the quad shaded last are incomplete. */
static bool derive_log_failed(const sim_func *fn) { return fn->rel_on ? fn->rel.failed : fn->flog.failed != 0; }

/* The quad's fetches from the log of its shading, into fn->derived as a TEXELS record gives
 * them (resource = the DRAW record's texture of the unit). */
static void add_derived_fetches(sim_func *fn, const sim_frame *f, uint32_t qi)
{
    if (fn->rel_on) {
        sim_derive_relative_fetches(fn->fetch_frame, &fn->derived, qi, &fn->rel);
        return;
    }
    const sim_quad *q = &f->quads[qi];
    const tbr_rec_draw *d = &f->draws[q->draw].rec;
    for (uint32_t i = 0; i < fn->flog.nfetch; i++) {
        const tbr_fs_fetch_log_entry *e = &fn->flog.fetch[i];
        tbr_rec_texfetch fe;
        memset(&fe, 0, sizeof fe);
        fe.quad = qi;
        fe.pc = e->pc;
        fe.unit = e->unit;
        fe.resource_id = unit_resource(d, e->unit);
        fe.n_texels = e->n;
        fe.texels = fn->flog.texel + e->first;
        sim_derive_fetch(fn->fetch_frame, &fn->derived, qi, &fe, fe.texels, e->footprints != 0);
    }
}

/* Runs the fragment shader of quad qi (from the trace: verified by the recorder), giving
 * its colors (out) and, if its texels are derived and wanted, its fetches. */
static int shade_quad(sim_func *fn, const sim_frame *f, uint32_t qi, uint32_t di, float out[][4][4], bool derive)
{
    const sim_quad *q = &f->quads[qi];
    sim_fs_draw *fd = &fn->fsd[di];
    const sim_draw *sd = &f->draws[q->draw];
    if (fd->state == 0) fd->state = prepare_fs_draw(fn, f, sd, fd) == 0 ? 1 : -1;
    if (fd->state < 0) return -1;
    if (q->prim == UINT32_MAX || f->prims[q->prim].first_v == UINT32_MAX) {
        compute_failed(fn, "draw %u: quad of a primitive without attributes", sd->rec.seq);
        return -1;
    }
    if (fn->coef_prim != q->prim) {
        const sim_prim *p = &f->prims[q->prim];
        const float(*v[3])[4];
        for (int k = 0; k < 3; k++) v[k] = (const float(*)[4])f->prim_v[p->first_v + (size_t)k * p->nr_attrs];
        char why[120];
        if (tbr_setup_triangle_coefs(&fd->d.setup, v, p->nr_attrs, &fn->coefs, why, sizeof why) != 0) {
            compute_failed(fn, "draw %u: %s", sd->rec.seq, why);
            fn->coef_prim = UINT32_MAX;
            return -1;
        }
        fn->coef_prim = q->prim;
    }
    const unsigned mask = sd->rec.early_z ? q->depth_mask : q->in_mask;
    /* the recorder verified this quad (COMPUTED / TEXELS_DERIVED): no need to track stale
   * registers */
    int rc;
    if (derive && sim_loader_relative_lines(f->loader)) {
        fn->rel_on = true;
        fn->rel_draw = &sd->rec;
        sim_rel_reset(&fn->rel);
        rc = tbr_fs_quad_colors_verified_observed_footprints(&fd->d, &fn->coefs, q->x, q->y, mask, out, rel_fetch_obs,
                                                             rel_texel_obs, rel_footprint_obs, fn);
        sim_rel_end(&fn->rel);
    } else if (derive) {
        fn->rel_on = false;
        fn->flog.nfetch = fn->flog.ntexel = 0;
        fn->flog.failed = 0;
        rc = tbr_fs_quad_colors_logged(&fd->d, &fn->coefs, q->x, q->y, mask, out, 1, &fn->flog);
    } else {
        rc = tbr_fs_quad_colors_verified(&fd->d, &fn->coefs, q->x, q->y, mask, out);
    }
    if (rc != 0) {
        compute_failed(fn, "draw %u: shader execution unsupported", sd->rec.seq);
        return -1;
    }
    return 0;
}

/* Colors of a COMPUTED quad, as softpipe's fragment shader gave them to its blend stage;
 * its texels too if they are derived. */
static int compute_quad_colors(sim_func *fn, const sim_frame *f, uint32_t qi, uint32_t di, float out[][4][4],
                               bool derive)
{
    const uint64_t failed = fn->quads_compute_failed;
    if (shade_quad(fn, f, qi, di, out, derive) != 0) {
        if (fn->quads_compute_failed == failed) fn->quads_compute_failed++;
        return -1;
    }
    fn->quads_computed++;
    return 0;
}

/* The texel fetches of a shaded quad whose texels are derived, when it is not computed
 * for its colors (not blended, or colors recorded). */
static void derive_quad_texels(sim_func *fn, const sim_frame *f, uint32_t qi, uint32_t di)
{
    float out[TBR_FS_MAX_CBUFS][4][4];
    const uint64_t failed = fn->quads_compute_failed;
    const int rc = shade_quad(fn, f, qi, di, out, true);
    fn->quads_compute_failed = failed; /* counted as texel failures, not color failures */
    if (rc != 0 || derive_log_failed(fn)) {
        derive_failed(fn, "frame %llu draw %u quad (%d,%d): shader execution unsupported",
                      (unsigned long long)f->number, f->draws[f->quads[qi].draw].rec.seq, f->quads[qi].x,
                      f->quads[qi].y);
        return;
    }
    add_derived_fetches(fn, f, qi);
    fn->texel_quads_derived++;
}

/* Puts softpipe's exact tile values back where the tile holds the unpacked value of an
 * earlier packed write that this blend reads (QUADS exact_mask, schema 3). */
static void apply_exact(sim_func *fn, const sim_frame *f, const sim_quad *q)
{
    for (size_t k = q->exact - 1; k < f->nexacts; k++) {
        const sim_exact *e = &f->exacts[k];
        for (int j = 0; j < 4; j++) {
            if (!(e->mask & (0xfu << (4 * j)))) continue;
            float *px = tbr_tile_color_at(&fn->tb, e->cbuf, q->x - fn->tb.x0 + (j & 1), q->y - fn->tb.y0 + (j >> 1));
            if (!px) continue;
            for (int c = 0; c < 4; c++)
                if (e->mask & (1u << (4 * j + c))) px[c] = e->v[c][j];
        }
        if (e->last) break;
    }
}

/* SURFACE_CHECK records of the pass: softpipe's memory of a render target the pass binds
 * (written earlier in the window) against this back end's image of it, before anything
 * of the pass happens. The window's frames alone cannot show a wrong render target that
 * reaches them only through texture sampling (docs/pixel-exactness.md). */
static void check_surfaces(sim_func *fn, const sim_frame *f, size_t pass)
{
    for (size_t k = 0; k < f->nchecks; k++) {
        const sim_surface_check *c = &f->checks[k];
        if (c->pass != pass) continue;
        const int si = find_surf(fn, c->rec.resource_id, c->rec.level, c->rec.layer);
        const sim_surf *s = si >= 0 ? &fn->surfs[si] : NULL;
        const tbr_format_info *fi = s && !s->is_zs ? tbr_format_get_info(s->fmt) : NULL;
        if (!fi || s->w != c->rec.width || s->h != c->rec.height || fi->bytes != c->rec.block_bytes) {
            fn->surface_checks_skipped++;
            continue;
        }
        /* rows are stored back to back (stride = w * bytes, get_surf) */
        const uint32_t crc = tbr_crc32(0, s->mem.data, (size_t)s->h * s->mem.stride);
        fn->surface_checks++;
        if (crc != c->rec.crc) {
            if (!fn->surface_check_mismatches)
                snprintf(fn->first_check_mismatch, sizeof fn->first_check_mismatch,
                         "frame %llu pass %u: resource %u level %u layer %u (%ux%u)", (unsigned long long)f->number,
                         f->passes[pass].rp.seq, c->rec.resource_id, c->rec.level, c->rec.layer, c->rec.width,
                         c->rec.height);
            fn->surface_check_mismatches++;
        }
    }
}

static void draw_states(sim_func *fn, const sim_frame *f, const sim_pass *ps)
{
    if (ps->ndraws > fn->cap_draw_state) {
        fn->cap_draw_state = ps->ndraws;
        fn->dsa = tbr_xrealloc(fn->dsa, ps->ndraws * sizeof *fn->dsa);
        fn->blend = tbr_xrealloc(fn->blend, ps->ndraws * sizeof *fn->blend);
        fn->bpath = tbr_xrealloc(fn->bpath, ps->ndraws * sizeof *fn->bpath);
    }
    if (ps->ndraws > fn->cap_fsd) {
        fn->fsd = tbr_xrealloc(fn->fsd, ps->ndraws * sizeof *fn->fsd);
        memset(fn->fsd + fn->cap_fsd, 0, (ps->ndraws - fn->cap_fsd) * sizeof *fn->fsd); /* no layer_data yet */
        fn->cap_fsd = ps->ndraws;
    }
    for (uint32_t k = 0; k < ps->ndraws; k++) fn->fsd[k].state = 0;
    fn->coef_prim = UINT32_MAX;
    tbr_pixel_format cf[TBR_MAX_COLOR_BUFS];
    unsigned nr = ps->rp.nr_cbufs < TBR_MAX_COLOR_BUFS ? ps->rp.nr_cbufs : TBR_MAX_COLOR_BUFS;
    for (unsigned i = 0; i < nr; i++) cf[i] = fn->surf_cbuf[i] >= 0 ? fn->surfs[fn->surf_cbuf[i]].fmt : TBR_PF_NONE;
    for (uint32_t k = 0; k < ps->ndraws; k++) {
        const tbr_rec_draw *d = &f->draws[ps->first_draw + k].rec;
        tbr_dsa_state *st = &fn->dsa[k];
        memset(st, 0, sizeof *st);
        st->depth_enabled = d->depth_enabled;
        st->depth_writemask = d->depth_writemask;
        st->depth_func = (tbr_compare_func)(d->depth_func & 7);
        for (int i = 0; i < 2; i++) {
            st->stencil[i].enabled = d->stencil[i].enabled;
            st->stencil[i].func = (tbr_compare_func)(d->stencil[i].func & 7);
            st->stencil[i].fail_op = (tbr_stencil_op)(d->stencil[i].fail_op & 7);
            st->stencil[i].zfail_op = (tbr_stencil_op)(d->stencil[i].zfail_op & 7);
            st->stencil[i].zpass_op = (tbr_stencil_op)(d->stencil[i].zpass_op & 7);
            st->stencil[i].valuemask = (uint8_t)d->stencil[i].valuemask;
            st->stencil[i].writemask = (uint8_t)d->stencil[i].writemask;
            st->stencil_ref[i] = (uint8_t)d->stencil[i].ref;
        }
        /* The alpha test needs the alpha of fragments that were not blended, which the
     * trace does not carry: the trace's depth_mask is used instead (see render). */
        st->alpha_enabled = false;
        st->depth_bounds_test = d->depth_bounds_test;
        st->depth_bounds_min = d->depth_bounds_min;
        st->depth_bounds_max = d->depth_bounds_max;
        st->depth_clamp = !d->depth_clip_near;
        st->viewport_scale_z = d->viewport_scale[2];
        st->viewport_translate_z = d->viewport_translate[2];

        tbr_blend_state *bs = &fn->blend[k];
        tbr_blend_state_from_draw(bs, d);
        fn->bpath[k] = tbr_blend_choose_path(bs, nr, cf);
    }
}

/* SURFACE_INIT bands of the pass: the memory of a render target as the recorded window
 * found it (hot start, docs/trace-records.md SURFACE_INIT). Functional only: it happened
 * before the window, so it costs no time or traffic. Applying it when the pass begins is
 * exact: the recorder emits it at the surface's first use in the window, so no earlier
 * record wrote the surface. */
static void apply_surface_inits(sim_func *fn, const sim_frame *f, size_t pass)
{
    for (size_t i = 0; i < f->ninits; i++) {
        const sim_surface_init *si = &f->inits[i];
        if (si->pass != pass || fn->ignore_surface_init) continue;
        const tbr_rec_surface_init *r = &si->rec;
        int k = get_surf(fn, f, r->resource_id, r->level, r->layer);
        if (k < 0) k = get_raw_surf(fn, r);
        sim_surf *s = k >= 0 ? &fn->surfs[k] : NULL;
        const tbr_format_info *fi = s && !s->raw ? tbr_format_get_info(s->fmt) : NULL;
        const unsigned bytes = s && s->raw ? (unsigned)(s->mem.stride / s->w) : fi ? fi->bytes : 0;
        if (!s || (!s->raw && !fi) || s->is_zs != (r->is_zs != 0) || s->w != r->width || s->h != r->height ||
            bytes != r->block_bytes) {
            fn->surface_init_skipped++;
            continue;
        }
        size_t row = (size_t)s->w * bytes;
        const uint8_t *src = f->init_data + si->data_off;
        for (uint32_t y = 0; y < r->rows; y++, src += row) {
            size_t sy = (size_t)r->y0 + y;
            if (!s->is_zs) {
                memcpy(s->mem.data + sy * s->mem.stride, src, row);
                continue;
            }
            for (unsigned x = 0; x < s->w; x++) { /* raw little-endian words, as softpipe's zs tile cache */
                uint64_t v = 0;
                for (unsigned b = 0; b < bytes && b < 8; b++) v |= (uint64_t)src[x * bytes + b] << (8 * b);
                s->zs[sy * s->w + x] = v;
            }
        }
        fn->surface_init_bands++;
    }
}

int sim_func_begin_pass(sim_func *fn, const sim_frame *f, size_t pass, unsigned tile_w, unsigned tile_h, char *err,
                        size_t errlen)
{
    const sim_pass *ps = &f->passes[pass];
    fn->frame = f;
    fn->pass = ps;
    fn->tile_w = tile_w;
    fn->tile_h = tile_h;
    for (unsigned i = 0; i < TBR_MAX_COLOR_BUFS; i++) fn->surf_cbuf[i] = -1;
    fn->surf_zs = -1;
    unsigned nr = ps->rp.nr_cbufs < TBR_MAX_COLOR_BUFS ? ps->rp.nr_cbufs : TBR_MAX_COLOR_BUFS;
    unsigned w = ps->rp.width, h = ps->rp.height;
    for (unsigned i = 0; i < nr; i++) {
        const tbr_rec_surface *s = &ps->rp.cbufs[i];
        if (!s->valid) continue;
        fn->surf_cbuf[i] = get_surf(fn, f, s->resource_id, s->level, s->first_layer);
        if (fn->surf_cbuf[i] >= 0 && fn->surfs[fn->surf_cbuf[i]].is_zs) fn->surf_cbuf[i] = -1;
        bind_surf(fn, fn->surf_cbuf[i]);
    }
    if (ps->rp.zsbuf.valid) {
        fn->surf_zs = get_surf(fn, f, ps->rp.zsbuf.resource_id, ps->rp.zsbuf.level, ps->rp.zsbuf.first_layer);
        if (fn->surf_zs >= 0 && !fn->surfs[fn->surf_zs].is_zs) fn->surf_zs = -1;
        bind_surf(fn, fn->surf_zs);
    }
    check_surfaces(fn, f, pass);
    apply_surface_inits(fn, f, pass);
    /* Remember the default framebuffer: EGL window buffer, or a target of the frame's size. */
    if (nr && fn->surf_cbuf[0] >= 0 && f->has_end) {
        const sim_surf *s0 = &fn->surfs[fn->surf_cbuf[0]];
        if (ps->rp.is_default || (s0->w == f->end.width && s0->h == f->end.height && s0->level == 0)) {
            fn->default_res = s0->res;
            fn->have_default = true;
        }
    }

    tbr_pixel_format cf[TBR_MAX_COLOR_BUFS];
    for (unsigned i = 0; i < nr; i++) cf[i] = fn->surf_cbuf[i] >= 0 ? fn->surfs[fn->surf_cbuf[i]].fmt : TBR_PF_NONE;
    if (fn->tb_valid) {
        tbr_tile_free(&fn->tb);
        fn->tb_valid = false;
    }
    if (!tbr_tile_init(&fn->tb, tile_w, tile_h, nr, cf, fn->surf_zs >= 0 ? fn->surfs[fn->surf_zs].fmt : TBR_PF_NONE)) {
        snprintf(err, errlen, "frame %llu pass %u: cannot allocate %ux%u tile buffers", (unsigned long long)f->number,
                 ps->rp.seq, tile_w, tile_h);
        return -1;
    }
    fn->tb_valid = true;
    draw_states(fn, f, ps);

    if (!w || !h) { /* pass-less events: take the bound surfaces' size (none: no tiles) */
        w = h = 0;
    }
    fn->tiles_x = (w + tile_w - 1) / tile_w;
    fn->tiles_y = (h + tile_h - 1) / tile_h;
    size_t ntiles = (size_t)fn->tiles_x * fn->tiles_y;
    if (ntiles + 1 > fn->cap_bins) {
        fn->cap_bins = ntiles + 1;
        fn->bin_start = tbr_xrealloc(fn->bin_start, fn->cap_bins * sizeof *fn->bin_start);
    }
    memset(fn->bin_start, 0, (ntiles + 1) * sizeof *fn->bin_start);

    /* Two passes over the items (count, fill): CSR tile lists in record order. Events of
   * surfaces not bound here are applied to their images at once, in order. */
    for (int fill = 0; fill < 2; fill++) {
        uint32_t *pos = NULL;
        if (fill) {
            for (size_t t = 0; t < ntiles; t++) fn->bin_start[t + 1] += fn->bin_start[t];
            if (fn->bin_start[ntiles] > fn->cap_bin_items) {
                fn->cap_bin_items = fn->bin_start[ntiles];
                fn->bin_items = tbr_xrealloc(fn->bin_items, fn->cap_bin_items * sizeof *fn->bin_items);
            }
            pos = tbr_xcalloc(ntiles ? ntiles : 1, sizeof *pos);
            memcpy(pos, fn->bin_start, ntiles * sizeof *pos);
        }
#define BIN(t, it)                                                                                                     \
    do {                                                                                                               \
        if (fill)                                                                                                      \
            fn->bin_items[pos[t]++] = (it);                                                                            \
        else                                                                                                           \
            fn->bin_start[(t) + 1]++;                                                                                  \
    } while (0)
        for (uint32_t k = 0; k < ps->nitems; k++) {
            uint32_t it = ps->first_item + k;
            const sim_item *item = &f->items[it];
            if (item->kind == SIM_ITEM_QUAD) {
                const sim_quad *q = &f->quads[item->idx];
                if (q->x < 0 || q->y < 0) continue;
                unsigned tx = (unsigned)q->x / tile_w, ty = (unsigned)q->y / tile_h;
                if (tx >= fn->tiles_x || ty >= fn->tiles_y) continue;
                BIN(ty * fn->tiles_x + tx, it);
            } else if (item->kind == SIM_ITEM_TILE) {
                const sim_tile_ev *e = &f->tiles[item->idx];
                if (e->t.kind == TBR_REC_TILE_CLEAR_ALL) continue;
                int bound = -1;
                if (e->t.is_zs) {
                    if (fn->surf_zs >= 0 && fn->surfs[fn->surf_zs].res == e->t.resource_id &&
                        fn->surfs[fn->surf_zs].level == e->t.level && fn->surfs[fn->surf_zs].layer == e->t.layer)
                        bound = 0;
                } else {
                    for (unsigned i = 0; i < nr; i++)
                        if (fn->surf_cbuf[i] >= 0 && fn->surfs[fn->surf_cbuf[i]].res == e->t.resource_id &&
                            fn->surfs[fn->surf_cbuf[i]].level == e->t.level &&
                            fn->surfs[fn->surf_cbuf[i]].layer == e->t.layer)
                            bound = (int)i;
                }
                if (bound < 0) {
                    if (fill) {
                        int s = get_surf(fn, f, e->t.resource_id, e->t.level, e->t.layer);
                        if (s >= 0 && fn->surfs[s].is_zs == (e->t.is_zs != 0)) surf_event(&fn->surfs[s], e);
                    }
                    continue;
                }
                uint64_t ts = e->t.tile_size ? e->t.tile_size : 64;
                uint64_t x0 = e->t.tile_x * ts, y0 = e->t.tile_y * ts, x1 = x0 + ts, y1 = y0 + ts;
                for (uint64_t ty = y0 / tile_h; ty < fn->tiles_y && ty * tile_h < y1; ty++)
                    for (uint64_t tx = x0 / tile_w; tx < fn->tiles_x && tx * tile_w < x1; tx++)
                        BIN(ty * fn->tiles_x + tx, it);
            } else if (item->kind == SIM_ITEM_CLEAR) {
                const tbr_rec_clear *c = &f->clears[item->idx];
                if (!(c->zs_partial && (c->buffers & 3u))) continue; /* full clears act through TILE events */
                for (size_t t = 0; t < ntiles; t++) BIN(t, it);
            }
        }
#undef BIN
        free(pos);
    }
    (void)err;
    return 0;
}

unsigned sim_func_tiles_x(const sim_func *fn) { return fn->tiles_x; }
unsigned sim_func_tiles_y(const sim_func *fn) { return fn->tiles_y; }

const uint32_t *sim_func_tile_items(const sim_func *fn, unsigned tx, unsigned ty, uint32_t *count)
{
    size_t t = (size_t)ty * fn->tiles_x + tx;
    *count = fn->bin_start[t + 1] - fn->bin_start[t];
    return *count ? fn->bin_items + fn->bin_start[t] : NULL; /* (a pass of no items: maybe no array) */
}

/* Copy between the tile buffers and the surfaces' float / raw images. */
static void tile_xfer(sim_func *fn, bool load)
{
    tbr_tile_buffers *tb = &fn->tb;
    for (unsigned i = 0; i < tb->nr_cbufs; i++) {
        if (fn->surf_cbuf[i] < 0) continue;
        sim_surf *s = &fn->surfs[fn->surf_cbuf[i]];
        for (unsigned y = 0; y < tb->h; y++) {
            int sy = tb->y0 + (int)y;
            if (sy >= (int)s->h) break;
            for (unsigned x = 0; x < tb->w; x++) {
                int sx = tb->x0 + (int)x;
                if (sx >= (int)s->w) break;
                float *c = tbr_tile_color_at(tb, i, (int)x, (int)y);
                float *m = s->cache + ((size_t)sy * s->w + (size_t)sx) * 4;
                if (load)
                    memcpy(c, m, 4 * sizeof(float));
                else
                    memcpy(m, c, 4 * sizeof(float));
            }
        }
    }
    if (fn->surf_zs >= 0) {
        sim_surf *s = &fn->surfs[fn->surf_zs];
        for (unsigned y = 0; y < tb->h; y++) {
            int sy = tb->y0 + (int)y;
            if (sy >= (int)s->h) break;
            for (unsigned x = 0; x < tb->w; x++) {
                int sx = tb->x0 + (int)x;
                if (sx >= (int)s->w) break;
                uint64_t *z = tbr_tile_zs_at(tb, (int)x, (int)y);
                uint64_t *m = &s->zs[(size_t)sy * s->w + (size_t)sx];
                if (load)
                    *z = *m;
                else
                    *m = *z;
            }
        }
    }
}

static void tile_event(sim_func *fn, const sim_tile_ev *e)
{
    tbr_tile_buffers *tb = &fn->tb;
    unsigned ts = e->t.tile_size ? e->t.tile_size : 64;
    int x = (int)(e->t.tile_x * ts), y = (int)(e->t.tile_y * ts);
    if (e->t.is_zs) {
        if (e->t.kind != TBR_REC_TILE_LOAD_CLEAR && e->t.kind != TBR_REC_TILE_STORE_CLEAR) return;
        for (int py = 0; py < (int)tb->h; py++)
            for (int px = 0; px < (int)tb->w; px++) {
                int sx = tb->x0 + px, sy = tb->y0 + py;
                if (sx < x || sy < y || sx >= x + (int)ts || sy >= y + (int)ts) continue;
                uint64_t *z = tbr_tile_zs_at(tb, px, py);
                if (z) *z = e->zs_clear;
            }
        return;
    }
    for (unsigned i = 0; i < tb->nr_cbufs; i++) {
        if (fn->surf_cbuf[i] < 0) continue;
        sim_surf *s = &fn->surfs[fn->surf_cbuf[i]];
        if (s->res != e->t.resource_id || s->level != e->t.level || s->layer != e->t.layer) continue;
        switch (e->t.kind) {
            case TBR_REC_TILE_LOAD: tbr_tile_load_color_rect(tb, i, &s->mem, x, y, ts, ts); break;
            case TBR_REC_TILE_LOAD_CLEAR: tbr_tile_clear_color_rect(tb, i, e->clear_color, x, y, ts, ts); break;
            case TBR_REC_TILE_STORE: tbr_tile_store_color_rect(tb, i, &s->mem, x, y, ts, ts); break;
            case TBR_REC_TILE_STORE_CLEAR:
                /* The tile is not cached in softpipe (pending clear): its float contents are dead,
       * so writing the clear color through the tile buffer is safe. */
                tbr_tile_clear_color_rect(tb, i, e->clear_color, x, y, ts, ts);
                tbr_tile_store_uniform_color_rect(tb, i, &s->mem, x, y, ts, ts); /* the rect was just cleared */
                break;
            default: break;
        }
    }
}

void sim_func_render_tile(sim_func *fn, unsigned tx, unsigned ty, sim_tile_result *res)
{
    memset(res, 0, sizeof *res);
    const sim_frame *f = fn->frame;
    const sim_pass *ps = fn->pass;
    tbr_tile_set_origin(&fn->tb, (int)(tx * fn->tile_w), (int)(ty * fn->tile_h));
    tile_xfer(fn, true);
    uint32_t n;
    const uint32_t *items = sim_func_tile_items(fn, tx, ty, &n);
    unsigned nr = fn->tb.nr_cbufs;
    /* Depth/stencil clears are word operations on the whole tile; a run of them, with only
   * color TILE events between (which do not touch depth/stencil), is composed and applied
   * once, before the next item that uses the depth/stencil buffer. */
    uint64_t clear_m = 0, clear_v = 0;
    for (uint32_t k = 0; k < n; k++) {
        const sim_item *item = &f->items[items[k]];
        if (item->kind == SIM_ITEM_CLEAR) {
            const tbr_rec_clear *c = &f->clears[item->idx];
            uint64_t m, v;
            if (tbr_tile_zs_clear_op(&fn->tb, c->buffers & 1u, (c->buffers & 2u) != 0, c->depth, (uint8_t)c->stencil,
                                     &m, &v)) {
                clear_v = (clear_v & ~m) | v;
                clear_m |= m;
            }
            continue;
        }
        if (item->kind == SIM_ITEM_TILE && !f->tiles[item->idx].t.is_zs) { /* color only */
            tile_event(fn, &f->tiles[item->idx]);
            continue;
        }
        if (clear_m) {
            tbr_tile_zs_apply(&fn->tb, clear_m, clear_v);
            clear_m = clear_v = 0;
        }
        if (item->kind == SIM_ITEM_TILE) {
            tile_event(fn, &f->tiles[item->idx]);
            continue;
        }
        const sim_quad *q = &f->quads[item->idx];
        const sim_draw *d = &f->draws[q->draw];
        uint32_t di = q->draw - ps->first_draw;
        /* derived texels: the quad's fetches come from running its shader, here (once) */
        bool derive = fn->fetch_frame && (q->flags & SIM_QUAD_TEXELS_DERIVED);
        res->quads++;
        bool early = d->rec.early_z != 0;
        unsigned in;
        if (early)
            in = q->in_mask;
        else
            in = (q->flags & TBR_REC_QUAD_SHADE_OUT) ? q->shade_mask : 0;
        unsigned mask = 0;
        if (in) {
            tbr_ds_quad dq;
            memset(&dq, 0, sizeof dq);
            dq.mask = in;
            dq.facing_back = (q->flags & TBR_REC_QUAD_FACING_BACK) != 0;
            dq.zint = (q->flags & TBR_REC_QUAD_HAS_Z) ? q->z : NULL;
            mask = tbr_tile_ds_quad(&fn->tb, &fn->dsa[di], q->x, q->y, &dq);
            res->ztested++;
        }
        unsigned trace_depth = (q->flags & TBR_REC_QUAD_DEPTH_OUT) ? q->depth_mask : 0;
        if (d->rec.alpha_enabled) mask &= trace_depth; /* alpha test: see draw_states() */
        if (in && !mask) res->zkilled++;
        if (q->flags & TBR_REC_QUAD_SHADED) res->shaded++;
        unsigned blend = mask;
        if (early) {
            unsigned shade_out = (q->flags & TBR_REC_QUAD_SHADE_OUT) ? q->shade_mask : 0;
            unsigned kill = trace_depth & ~shade_out;
            blend = mask & ~kill;
        }
        unsigned trace_blend = (q->flags & TBR_REC_QUAD_BLENDED) ? q->blend_mask : 0;
        if (blend != trace_blend || (in && mask != trace_depth)) res->mask_mismatch++;
        if (fn->color_keep) blend &= fn->color_keep[item->idx];
        if (blend && (q->flags & TBR_REC_QUAD_BLENDED) && nr) {
            /* (no colors in the frame when every blended quad's are computed) */
            const float(*colors)[4][4] = f->colors ? (const float(*)[4][4])f->colors[q->color] : NULL;
            float unpacked[TBR_MAX_COLOR_BUFS][4][4];
            if (q->flags & SIM_QUAD_COMPUTED) {
                /* the float outputs, as softpipe's tile holds them (no packing) */
                memset(unpacked, 0, sizeof unpacked);
                if (compute_quad_colors(fn, f, item->idx, di, unpacked, derive) == 0 && derive) {
                    if (derive_log_failed(fn)) {
                        derive_failed(fn, "frame %llu draw %u: texel log incomplete", (unsigned long long)f->number,
                                      d->rec.seq);
                    } else {
                        add_derived_fetches(fn, f, item->idx);
                        fn->texel_quads_derived++;
                    }
                } else if (derive) {
                    derive_failed(fn, "frame %llu draw %u: quad not computed", (unsigned long long)f->number,
                                  d->rec.seq);
                }
                derive = false;
                colors = (const float(*)[4][4])unpacked;
            } else if (d->packed_mask) {
                colors = (const float(*)[4][4])unpacked;
                unpack_quad_colors(fn, f, q, d->packed_mask, nr, unpacked);
            }
            if (q->exact) apply_exact(fn, f, q);
            tbr_tile_blend_quad(&fn->tb, &fn->blend[di], fn->bpath[di], q->x, q->y, blend, colors, nr);
            res->blended_quads++;
            res->blended_frags += (uint32_t)__builtin_popcount(blend);
        }
        if (derive) derive_quad_texels(fn, f, item->idx, di);
    }
    if (clear_m) tbr_tile_zs_apply(&fn->tb, clear_m, clear_v);
    tile_xfer(fn, false);
    fn->mask_mismatch_total += res->mask_mismatch;
}

void sim_func_end_pass(sim_func *fn) { fn->pass = NULL; }

const sim_surf *sim_func_surface(const sim_func *fn, int idx)
{
    return idx >= 0 && (size_t)idx < fn->nsurfs ? &fn->surfs[idx] : NULL;
}
int sim_func_cbuf_surface(const sim_func *fn, unsigned cbuf)
{
    return cbuf < TBR_MAX_COLOR_BUFS ? fn->surf_cbuf[cbuf] : -1;
}
int sim_func_zs_surface(const sim_func *fn) { return fn->surf_zs; }

int sim_func_frame_rgba8(sim_func *fn, const sim_frame *f, uint8_t **out, uint32_t *w, uint32_t *h, char *err,
                         size_t errlen)
{
    const sim_surf *s = NULL;
    if (fn->have_default)
        for (size_t i = 0; i < fn->nsurfs; i++)
            if (fn->surfs[i].res == fn->default_res && fn->surfs[i].level == 0 && !fn->surfs[i].is_zs)
                s = &fn->surfs[i];
    if (!s) { /* no pass of this run drew to it: a display target of the frame's size */
        for (size_t i = 0; i < f->nres; i++) {
            const tbr_rec_resource *r = &f->res[i].rec;
            if (r->is_display_target && r->width == f->end.width && r->height == f->end.height) {
                int k = get_surf(fn, f, r->id, 0, 0);
                if (k >= 0 && !fn->surfs[k].is_zs) s = &fn->surfs[k];
                break;
            }
        }
    }
    if (!s) {
        snprintf(err, errlen, "frame %llu: no default framebuffer of %ux%u found in the trace",
                 (unsigned long long)f->number, f->end.width, f->end.height);
        return -1;
    }
    *w = f->end.width ? f->end.width : s->w;
    *h = f->end.height ? f->end.height : s->h;
    uint8_t *px = tbr_xcalloc((size_t)*w * *h, 4);
    const tbr_format_info *fi = tbr_format_get_info(s->fmt);
    /* The conversion is a function of the pixel's bytes: a pixel equal to the previous one
   * (runs of the clear color, flat regions) reuses its result. */
    const size_t bpp = fi->bytes;
    const uint8_t *prev = NULL;
    uint8_t prev_out[4] = {0};
    for (uint32_t y = 0; y < *h && y < s->h; y++)
        for (uint32_t x = 0; x < *w && x < s->w; x++) {
            const uint8_t *src = s->mem.data + (size_t)y * s->mem.stride + (size_t)x * bpp;
            uint8_t *o = px + ((size_t)y * *w + x) * 4;
            if (prev && memcmp(src, prev, bpp) == 0) {
                memcpy(o, prev_out, 4);
                continue;
            }
            float c[4];
            tbr_unpack_rgba_float(s->fmt, src, c);
            for (int k = 0; k < 4; k++) o[k] = tbr_float_to_ubyte(c[k]);
            prev = src;
            memcpy(prev_out, o, 4);
        }
    *out = px;
    return 0;
}
