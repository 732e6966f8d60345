/* Record schema encode/decode (tbr/records.h, docs/trace-records.md). */
#include "tbr/records.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* tbr_rec_type_name: the record table (record_table.c). */

/* ---- helpers -------------------------------------------------------------- */

static void put_u(tbr_buf *b, uint64_t v) { tbr_buf_put_uvarint(b, v); }
static void put_s(tbr_buf *b, int64_t v) { tbr_buf_put_svarint(b, v); }
static void put_f(tbr_buf *b, float v) { tbr_buf_put_f32(b, v); }

static int put_cstr(tbr_buf *b, const char *s, size_t max)
{
    size_t n = s ? strlen(s) : 0;
    if (n >= max) return -1;
    tbr_buf_put_lbytes(b, s ? s : "", n);
    return 0;
}

static int done(const tbr_buf *b, int rc) { return (rc == 0 && tbr_buf_ok(b)) ? 0 : -1; }

static uint32_t get_u(tbr_cursor *c) { return tbr_cursor_uvarint32(c); }
static uint64_t get_u64(tbr_cursor *c) { return tbr_cursor_uvarint(c); }
static float get_f(tbr_cursor *c) { return tbr_cursor_f32(c); }

static void get_cstr(tbr_cursor *c, char *out, size_t max)
{
    size_t n = 0;
    const uint8_t *p = tbr_cursor_lbytes(c, &n);
    if (!p || n >= max) {
        tbr_cursor_fail(c);
        out[0] = 0;
        return;
    }
    memcpy(out, p, n);
    out[n] = 0;
}

static int get_u_max(tbr_cursor *c, uint32_t max, uint32_t *out)
{
    uint32_t v = get_u(c);
    if (v > max) {
        tbr_cursor_fail(c);
        return -1;
    }
    *out = v;
    return 0;
}

static int finish(tbr_cursor *c) { return tbr_cursor_at_end(c) ? 0 : -1; }

/* Fails the cursor when a decoded value is above its documented limit (tbr/records.h
 * "Decode-time limits"); checked here, once per record, so that no reader sizes, loops or
 * shifts by a hostile value. */
static void limit(tbr_cursor *c, uint64_t v, uint64_t max)
{
    if (v > max) tbr_cursor_fail(c);
}

/* ---- FRAME_END ------------------------------------------------------------ */

int tbr_rec_frame_end_encode(tbr_buf *b, const tbr_rec_frame_end *r)
{
    put_u(b, r->frame);
    put_u(b, r->width);
    put_u(b, r->height);
    put_u(b, r->draws);
    put_u(b, r->quads);
    put_u(b, r->shaded_quads);
    put_u(b, r->shaded_fragments);
    put_u(b, r->prims);
    put_u(b, r->clears);
    return done(b, put_cstr(b, r->png, sizeof(r->png)));
}

int tbr_rec_frame_end_decode(const uint8_t *p, size_t n, tbr_rec_frame_end *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    memset(r, 0, sizeof(*r));
    r->frame = get_u64(&c);
    if (get_u_max(&c, TBR_REC_MAX_DIM, &r->width) || get_u_max(&c, TBR_REC_MAX_DIM, &r->height)) return -1;
    r->draws = get_u64(&c);
    r->quads = get_u64(&c);
    r->shaded_quads = get_u64(&c);
    r->shaded_fragments = get_u64(&c);
    r->prims = get_u64(&c);
    r->clears = get_u64(&c);
    get_cstr(&c, r->png, sizeof(r->png));
    return finish(&c);
}

/* ---- RESOURCE ------------------------------------------------------------- */

int tbr_rec_resource_encode(tbr_buf *b, const tbr_rec_resource *r)
{
    const uint32_t v[] = {r->id,         r->target,     r->format,     r->width, r->height,      r->depth,
                          r->array_size, r->last_level, r->nr_samples, r->bind,  r->block_bytes, r->is_display_target};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) put_u(b, v[i]);
    return done(b, put_cstr(b, r->format_name, sizeof(r->format_name)));
}

int tbr_rec_resource_decode(const uint8_t *p, size_t n, tbr_rec_resource *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    memset(r, 0, sizeof(*r));
    uint32_t *v[] = {&r->id,         &r->target,     &r->format,     &r->width, &r->height,      &r->depth,
                     &r->array_size, &r->last_level, &r->nr_samples, &r->bind,  &r->block_bytes, &r->is_display_target};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) *v[i] = get_u(&c);
    get_cstr(&c, r->format_name, sizeof(r->format_name));
    limit(&c, r->target, TBR_REC_MAX_TARGET);
    if (r->target != 0) limit(&c, r->width, TBR_REC_MAX_DIM); /* a buffer's width is its size in bytes */
    limit(&c, r->height, TBR_REC_MAX_DIM);
    limit(&c, r->depth, TBR_REC_MAX_LAYERS);
    limit(&c, r->array_size, TBR_REC_MAX_LAYERS);
    limit(&c, r->last_level, TBR_REC_MAX_LEVEL);
    limit(&c, r->nr_samples, TBR_REC_MAX_SAMPLES);
    limit(&c, r->block_bytes, TBR_REC_MAX_BLOCK_BYTES);
    return finish(&c);
}

/* ---- UPLOAD --------------------------------------------------------------- */

int tbr_rec_upload_encode(tbr_buf *b, const tbr_rec_upload *r)
{
    put_u(b, r->resource_id);
    put_u(b, r->level);
    for (int i = 0; i < 6; i++) put_s(b, r->box[i]);
    put_u(b, r->bytes);
    if (r->flags & ~TBR_REC_UPLOAD_FLAGS) return -1;
    put_u(b, r->flags);
    return done(b, 0);
}

int tbr_rec_upload_decode(const uint8_t *p, size_t n, tbr_rec_upload *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    memset(r, 0, sizeof(*r));
    r->resource_id = get_u(&c);
    r->level = get_u(&c);
    for (int i = 0; i < 6; i++) r->box[i] = tbr_cursor_svarint32(&c);
    r->bytes = get_u64(&c);
    r->flags = get_u(&c);
    if (r->flags & ~TBR_REC_UPLOAD_FLAGS) tbr_cursor_fail(&c);
    limit(&c, r->level, TBR_REC_MAX_LEVEL);
    return finish(&c);
}

/* ---- SHADER_CREATE / SHADER ----------------------------------------------- */

static void shader_put_common(tbr_buf *b, const tbr_rec_shader *r)
{
    put_u(b, r->id);
    put_u(b, r->stage);
    put_u(b, r->internal);
    put_u(b, r->num_tokens);
    put_u(b, r->num_instructions);
}

static void shader_get_common(tbr_cursor *c, tbr_rec_shader *r)
{
    memset(r, 0, sizeof(*r));
    r->id = get_u(c);
    r->stage = get_u(c);
    r->internal = get_u(c);
    r->num_tokens = get_u(c);
    r->num_instructions = get_u(c);
    if (r->stage > TBR_REC_STAGE_FS || r->internal > 1) tbr_cursor_fail(c);
}

int tbr_rec_shader_create_encode(tbr_buf *b, const tbr_rec_shader *r)
{
    shader_put_common(b, r);
    put_u(b, r->text_len);
    return done(b, 0);
}

int tbr_rec_shader_create_decode(const uint8_t *p, size_t n, tbr_rec_shader *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    shader_get_common(&c, r);
    r->text_len = get_u(&c);
    return finish(&c);
}

int tbr_rec_shader_encode(tbr_buf *b, const tbr_rec_shader *r)
{
    shader_put_common(b, r);
    put_u(b, r->parent_id);
    if (!r->text && r->text_len) return -1;
    tbr_buf_put_lbytes(b, r->text ? r->text : "", r->text_len);
    return done(b, 0);
}

int tbr_rec_shader_decode(const uint8_t *p, size_t n, tbr_rec_shader *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    shader_get_common(&c, r);
    r->parent_id = get_u(&c);
    size_t len = 0;
    const uint8_t *t = tbr_cursor_lbytes(&c, &len);
    if (t && len <= UINT32_MAX) {
        r->text = (const char *)t;
        r->text_len = (uint32_t)len;
    }
    return finish(&c);
}

/* ---- RENDER_PASS ---------------------------------------------------------- */

static void surface_put(tbr_buf *b, const tbr_rec_surface *s)
{
    put_u(b, s->valid);
    if (!s->valid) return;
    put_u(b, s->resource_id);
    put_u(b, s->format);
    put_u(b, s->level);
    put_u(b, s->first_layer);
    put_u(b, s->last_layer);
    put_u(b, s->width);
    put_u(b, s->height);
}

static void surface_get(tbr_cursor *c, tbr_rec_surface *s)
{
    memset(s, 0, sizeof(*s));
    s->valid = get_u(c);
    if (s->valid > 1) tbr_cursor_fail(c);
    if (!s->valid) return;
    s->resource_id = get_u(c);
    s->format = get_u(c);
    s->level = get_u(c);
    s->first_layer = get_u(c);
    s->last_layer = get_u(c);
    s->width = get_u(c);
    s->height = get_u(c);
    limit(c, s->level, TBR_REC_MAX_LEVEL);
    limit(c, s->last_layer, TBR_REC_MAX_LAYERS - 1);
    limit(c, s->first_layer, s->last_layer);
    limit(c, s->width, TBR_REC_MAX_DIM);
    limit(c, s->height, TBR_REC_MAX_DIM);
}

int tbr_rec_render_pass_encode(tbr_buf *b, const tbr_rec_render_pass *r)
{
    if (r->nr_cbufs > TBR_REC_MAX_CBUFS) return -1;
    put_u(b, r->seq);
    put_u(b, r->width);
    put_u(b, r->height);
    put_u(b, r->layers);
    put_u(b, r->samples);
    put_u(b, r->is_default);
    put_u(b, r->nr_cbufs);
    for (uint32_t i = 0; i < r->nr_cbufs; i++) surface_put(b, &r->cbufs[i]);
    surface_put(b, &r->zsbuf);
    return done(b, 0);
}

int tbr_rec_render_pass_decode(const uint8_t *p, size_t n, tbr_rec_render_pass *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    memset(r, 0, sizeof(*r));
    r->seq = get_u(&c);
    if (get_u_max(&c, TBR_REC_MAX_DIM, &r->width) || get_u_max(&c, TBR_REC_MAX_DIM, &r->height)) return -1;
    r->layers = get_u(&c);
    r->samples = get_u(&c);
    r->is_default = get_u(&c);
    limit(&c, r->layers, TBR_REC_MAX_LAYERS);
    limit(&c, r->samples, TBR_REC_MAX_SAMPLES);
    if (get_u_max(&c, TBR_REC_MAX_CBUFS, &r->nr_cbufs)) return -1;
    for (uint32_t i = 0; i < r->nr_cbufs; i++) surface_get(&c, &r->cbufs[i]);
    surface_get(&c, &r->zsbuf);
    return finish(&c);
}

/* ---- CLEAR ---------------------------------------------------------------- */

int tbr_rec_clear_encode(tbr_buf *b, const tbr_rec_clear *r)
{
    put_u(b, r->buffers);
    for (int i = 0; i < 4; i++) put_f(b, r->color_f[i]);
    for (int i = 0; i < 4; i++) tbr_buf_put_u32(b, r->color_ui[i]);
    tbr_buf_put_f64(b, r->depth);
    put_u(b, r->stencil);
    put_u(b, r->zs_packed);
    put_u(b, r->zs_partial);
    put_u(b, r->has_scissor);
    for (int i = 0; i < 4; i++) put_u(b, r->scissor[i]);
    return done(b, 0);
}

int tbr_rec_clear_decode(const uint8_t *p, size_t n, tbr_rec_clear *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    memset(r, 0, sizeof(*r));
    r->buffers = get_u(&c);
    for (int i = 0; i < 4; i++) r->color_f[i] = get_f(&c);
    for (int i = 0; i < 4; i++) r->color_ui[i] = tbr_cursor_u32(&c);
    r->depth = tbr_cursor_f64(&c);
    r->stencil = get_u(&c);
    r->zs_packed = get_u64(&c);
    r->zs_partial = get_u(&c);
    r->has_scissor = get_u(&c);
    for (int i = 0; i < 4; i++) r->scissor[i] = get_u(&c);
    limit(&c, r->buffers, (4u << TBR_REC_MAX_CBUFS) - 1); /* depth, stencil, color 0..7 */
    return finish(&c);
}

/* ---- DRAW ----------------------------------------------------------------- */

static void constbuf_put(tbr_buf *b, const tbr_rec_constbuf *cb)
{
    tbr_buf_put_lbytes(b, cb->data, cb->data ? cb->size : 0);
}

static void constbuf_get(tbr_cursor *c, tbr_rec_constbuf *cb)
{
    size_t len = 0;
    const uint8_t *d = tbr_cursor_lbytes(c, &len);
    cb->data = (d && len) ? d : NULL;
    cb->size = (d && len <= UINT32_MAX) ? (uint32_t)len : 0;
}

/* A sampler view + sampler as DRAW and VS_TEXTURES carry it. */
static void texture_put(tbr_buf *b, const tbr_rec_texture *t)
{
    const uint32_t v[] = {t->unit,
                          t->resource_id,
                          t->view_format,
                          t->first_level,
                          t->last_level,
                          t->first_layer,
                          t->last_layer,
                          t->swizzle[0],
                          t->swizzle[1],
                          t->swizzle[2],
                          t->swizzle[3],
                          t->has_sampler,
                          t->wrap_s,
                          t->wrap_t,
                          t->wrap_r,
                          t->min_img_filter,
                          t->min_mip_filter,
                          t->mag_img_filter,
                          t->compare_mode,
                          t->compare_func,
                          t->normalized_coords,
                          t->seamless_cube_map,
                          t->max_anisotropy};
    for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) put_u(b, v[k]);
    put_f(b, t->lod_bias);
    put_f(b, t->min_lod);
    put_f(b, t->max_lod);
    for (int k = 0; k < 4; k++) put_f(b, t->border_color[k]);
}

static void texture_get(tbr_cursor *c, tbr_rec_texture *t)
{
    uint32_t *v[] = {&t->unit,
                     &t->resource_id,
                     &t->view_format,
                     &t->first_level,
                     &t->last_level,
                     &t->first_layer,
                     &t->last_layer,
                     &t->swizzle[0],
                     &t->swizzle[1],
                     &t->swizzle[2],
                     &t->swizzle[3],
                     &t->has_sampler,
                     &t->wrap_s,
                     &t->wrap_t,
                     &t->wrap_r,
                     &t->min_img_filter,
                     &t->min_mip_filter,
                     &t->mag_img_filter,
                     &t->compare_mode,
                     &t->compare_func,
                     &t->normalized_coords,
                     &t->seamless_cube_map,
                     &t->max_anisotropy};
    for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) *v[k] = get_u(c);
    t->lod_bias = get_f(c);
    t->min_lod = get_f(c);
    t->max_lod = get_f(c);
    for (int k = 0; k < 4; k++) t->border_color[k] = get_f(c);
}

int tbr_rec_draw_encode(tbr_buf *b, const tbr_rec_draw *r)
{
    if (r->nr_cbufs > TBR_REC_MAX_CBUFS || r->num_textures > TBR_REC_MAX_TEXTURES) return -1;
#define TBR_REC_X_(name) put_u(b, r->name);
#define TBR_REC_F_(name) put_f(b, r->name);
    TBR_REC_DRAW_FIELDS(TBR_REC_X_, TBR_REC_F_)
#undef TBR_REC_X_
#undef TBR_REC_F_
    put_s(b, r->index_bias);
    for (int i = 0; i < 2; i++) {
        const tbr_rec_stencil *s = &r->stencil[i];
        const uint32_t v[] = {s->enabled,  s->func,      s->fail_op,   s->zpass_op,
                              s->zfail_op, s->valuemask, s->writemask, s->ref};
        for (size_t k = 0; k < 8; k++) put_u(b, v[k]);
    }
    for (uint32_t i = 0; i < TBR_REC_MAX_CBUFS; i++) {
        const tbr_rec_rt_blend *t = &r->rt[i];
        const uint32_t v[] = {t->blend_enable, t->rgb_func,  t->rgb_src,   t->rgb_dst,
                              t->alpha_func,   t->alpha_src, t->alpha_dst, t->colormask};
        for (size_t k = 0; k < 8; k++) put_u(b, v[k]);
    }
    for (int i = 0; i < 4; i++) put_f(b, r->blend_color[i]);
    for (int i = 0; i < 3; i++) put_f(b, r->viewport_scale[i]);
    for (int i = 0; i < 3; i++) put_f(b, r->viewport_translate[i]);
    for (int i = 0; i < 4; i++) put_u(b, r->scissor[i]);
    for (uint32_t i = 0; i < r->nr_cbufs; i++) put_u(b, r->cbuf_format[i]);
    put_u(b, r->num_textures);
    for (uint32_t i = 0; i < r->num_textures; i++) texture_put(b, &r->textures[i]);
    for (uint32_t i = 0; i < TBR_REC_MAX_CONSTBUFS; i++) constbuf_put(b, &r->vs_const[i]);
    for (uint32_t i = 0; i < TBR_REC_MAX_CONSTBUFS; i++) constbuf_put(b, &r->fs_const[i]);
    return done(b, put_cstr(b, r->unsupported, sizeof(r->unsupported)));
}

int tbr_rec_draw_decode(const uint8_t *p, size_t n, tbr_rec_draw *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    memset(r, 0, sizeof(*r));
#define TBR_REC_X_(name) r->name = get_u(&c);
#define TBR_REC_F_(name) r->name = get_f(&c);
    TBR_REC_DRAW_FIELDS(TBR_REC_X_, TBR_REC_F_)
#undef TBR_REC_X_
#undef TBR_REC_F_
    if (r->nr_cbufs > TBR_REC_MAX_CBUFS) return -1;
    r->index_bias = tbr_cursor_svarint32(&c);
    for (int i = 0; i < 2; i++) {
        tbr_rec_stencil *s = &r->stencil[i];
        uint32_t *v[] = {&s->enabled,  &s->func,      &s->fail_op,   &s->zpass_op,
                         &s->zfail_op, &s->valuemask, &s->writemask, &s->ref};
        for (size_t k = 0; k < 8; k++) *v[k] = get_u(&c);
    }
    for (uint32_t i = 0; i < TBR_REC_MAX_CBUFS; i++) {
        tbr_rec_rt_blend *t = &r->rt[i];
        uint32_t *v[] = {&t->blend_enable, &t->rgb_func,  &t->rgb_src,   &t->rgb_dst,
                         &t->alpha_func,   &t->alpha_src, &t->alpha_dst, &t->colormask};
        for (size_t k = 0; k < 8; k++) *v[k] = get_u(&c);
    }
    for (int i = 0; i < 4; i++) r->blend_color[i] = get_f(&c);
    for (int i = 0; i < 3; i++) r->viewport_scale[i] = get_f(&c);
    for (int i = 0; i < 3; i++) r->viewport_translate[i] = get_f(&c);
    for (int i = 0; i < 4; i++) r->scissor[i] = get_u(&c);
    for (uint32_t i = 0; i < r->nr_cbufs; i++) r->cbuf_format[i] = get_u(&c);
    if (get_u_max(&c, TBR_REC_MAX_TEXTURES, &r->num_textures)) return -1;
    for (uint32_t i = 0; i < r->num_textures; i++) texture_get(&c, &r->textures[i]);
    for (uint32_t i = 0; i < TBR_REC_MAX_CONSTBUFS; i++) constbuf_get(&c, &r->vs_const[i]);
    for (uint32_t i = 0; i < TBR_REC_MAX_CONSTBUFS; i++) constbuf_get(&c, &r->fs_const[i]);
    get_cstr(&c, r->unsupported, sizeof(r->unsupported));
    return finish(&c);
}

/* ---- VS_TEXTURES ------------------------------------------------------------ */

int tbr_rec_vs_textures_encode(tbr_buf *b, const tbr_rec_vs_textures *r)
{
    if (r->num_textures > TBR_REC_MAX_TEXTURES) return -1;
    put_u(b, r->draw_seq);
    put_u(b, r->num_textures);
    for (uint32_t i = 0; i < r->num_textures; i++) texture_put(b, &r->textures[i]);
    return done(b, 0);
}

int tbr_rec_vs_textures_decode(const uint8_t *p, size_t n, tbr_rec_vs_textures *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    memset(r, 0, sizeof(*r));
    r->draw_seq = get_u(&c);
    if (get_u_max(&c, TBR_REC_MAX_TEXTURES, &r->num_textures)) return -1;
    for (uint32_t i = 0; i < r->num_textures; i++) texture_get(&c, &r->textures[i]);
    return finish(&c);
}

/* ---- DRAW_END ------------------------------------------------------------- */

int tbr_rec_draw_end_encode(tbr_buf *b, const tbr_rec_draw_end *r)
{
    put_u(b, r->seq);
    put_u(b, r->prims);
    put_u(b, r->quads);
    put_u(b, r->shaded_quads);
    put_u(b, r->shaded_fragments);
    put_u(b, r->blended_fragments);
    return done(b, 0);
}

int tbr_rec_draw_end_decode(const uint8_t *p, size_t n, tbr_rec_draw_end *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    memset(r, 0, sizeof(*r));
    r->seq = get_u(&c);
    r->prims = get_u64(&c);
    r->quads = get_u64(&c);
    r->shaded_quads = get_u64(&c);
    r->shaded_fragments = get_u64(&c);
    r->blended_fragments = get_u64(&c);
    return finish(&c);
}

/* ---- PRIM ----------------------------------------------------------------- */

static uint32_t prim_nverts(uint32_t kind) { return (kind >= 1 && kind <= 3) ? kind : 0; }

/* softpipe's calc_det (sp_setup.c): edge vectors e = v0 - v2, f = v1 - v2, det = e x f;
 * float operations in this order, no contraction (-ffp-contract=off, CMakeLists.txt). */
static float prim_calc_det(const tbr_rec_prim *r)
{
    const float ex = r->v[0][0][0] - r->v[2][0][0];
    const float ey = r->v[0][0][1] - r->v[2][0][1];
    const float fx = r->v[1][0][0] - r->v[2][0][0];
    const float fy = r->v[1][0][1] - r->v[2][0][1];
    return ex * fy - ey * fx;
}

int tbr_rec_prim_encode(tbr_buf *b, const tbr_rec_prim *r)
{
    uint32_t nv = prim_nverts(r->kind);
    if (!nv || r->nr_attrs > TBR_REC_MAX_ATTRIBS || (r->flags & TBR_REC_PRIM_DET_DERIVED)) return -1;
    /* minor 11: det is left out when the reader's calc_det gives the same bits (always,
     * for what softpipe's setup records) */
    uint32_t flags = r->flags;
    if (r->kind == 3 && r->nr_attrs) {
        const float det = prim_calc_det(r);
        if (memcmp(&det, &r->det, sizeof det) == 0) flags |= TBR_REC_PRIM_DET_DERIVED;
    }
    put_u(b, r->draw_seq);
    put_u(b, r->index);
    put_u(b, r->kind);
    put_u(b, flags);
    if (!(flags & TBR_REC_PRIM_DET_DERIVED)) put_f(b, r->det);
    put_u(b, r->nr_attrs);
    /* minor 5: a primitive setup culled shades nothing; only its window position */
    const uint32_t stored = (r->flags & TBR_REC_PRIM_CULLED) && r->nr_attrs ? 1 : r->nr_attrs;
    for (uint32_t v = 0; v < nv; v++)
        for (uint32_t a = 0; a < stored; a++)
            for (int k = 0; k < 4; k++) put_f(b, r->v[v][a][k]);
    return done(b, 0);
}

int tbr_rec_prim_decode(const uint8_t *p, size_t n, tbr_rec_prim *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    memset(r, 0, sizeof(*r));
    r->draw_seq = get_u(&c);
    r->index = get_u(&c);
    r->kind = get_u(&c);
    r->flags = get_u(&c);
    const int det_derived = (r->flags & TBR_REC_PRIM_DET_DERIVED) != 0;
    r->flags &= ~TBR_REC_PRIM_DET_DERIVED;
    if (!det_derived) r->det = get_f(&c);
    uint32_t nv = prim_nverts(r->kind);
    if (!nv || get_u_max(&c, TBR_REC_MAX_ATTRIBS, &r->nr_attrs)) return -1;
    if (det_derived && (r->kind != 3 || !r->nr_attrs)) return -1; /* no positions to derive it from */
    /* a culled primitive carries its window positions only (minor 5) or, written by
     * older recorders, every attribute: the payload's length tells which */
    uint32_t stored = r->nr_attrs;
    if ((r->flags & TBR_REC_PRIM_CULLED) && r->nr_attrs && tbr_cursor_remaining(&c) == (size_t)nv * 16u) stored = 1;
    for (uint32_t v = 0; v < nv; v++)
        for (uint32_t a = 0; a < stored; a++)
            for (int k = 0; k < 4; k++) r->v[v][a][k] = get_f(&c);
    if (det_derived) r->det = prim_calc_det(r);
    return finish(&c);
}

/* ---- QUADS ---------------------------------------------------------------- */

/* The streams of a minor-11 record (TBR_REC_QUADS_STREAMS): each field kind apart, so
 * the container's compressor sees homogeneous runs (docs/trace-records.md QUADS
 * "Streams"). */
enum { QS_POS, QS_PRIM, QS_PATH, QS_MASKS, QS_Z, QS_COLORS };

int tbr_rec_quads_begin(tbr_buf *b, tbr_rec_quads_header *h, uint32_t draw_seq, uint32_t nr_cbufs, uint32_t packed_mask)
{
    memset(h, 0, sizeof(*h));
    const uint32_t packed = packed_mask & ~TBR_REC_QUADS_FLAGS;
    if (nr_cbufs > TBR_REC_MAX_CBUFS || (packed >> nr_cbufs)) return -1;
    h->draw_seq = draw_seq;
    h->nr_cbufs = nr_cbufs;
    h->packed_mask = packed;
    h->computed = (packed_mask & TBR_REC_QUADS_COMPUTED) != 0;
    h->texels_derived = (packed_mask & TBR_REC_QUADS_TEXELS_DERIVED) != 0;
    h->streams = (packed_mask & TBR_REC_QUADS_STREAMS) != 0;
    h->depths_derived = (packed_mask & TBR_REC_QUADS_DEPTHS_DERIVED) != 0;
    tbr_buf_put_u32(b, draw_seq);
    tbr_buf_put_u32(b, nr_cbufs);
    tbr_buf_put_u32(b, 0); /* count, patched by finish */
    tbr_buf_put_u32(b, packed_mask);
    return done(b, 0);
}

/* Depth coding (schema 3): the 4 depths of a quad lie (nearly) on the primitive's plane.
 * z0 is predicted from the previous quad with depths in the record, moved by its
 * per-pixel steps (dx = z1 - z0, dy = z2 - z0); dx and dy from the previous ones; z3
 * from z0 + dx + dy. Residuals as zigzag varints: exact for any 32-bit values (float
 * depth bits too, only less compactly). */
static void z_predict(const tbr_rec_quads_header *h, int32_t x, int32_t y, int64_t *p0, int64_t *pdx, int64_t *pdy)
{
    if (!h->have_prev_z) {
        *p0 = *pdx = *pdy = 0;
        return;
    }
    *pdx = h->prev_dx;
    *pdy = h->prev_dy;
    const int64_t mx = (int64_t)x - h->prev_x, my = (int64_t)y - h->prev_y;
    /* |steps| < 2^33 and |moves| <= 2^20: no overflow */
    if (mx < -(1 << 20) || mx > (1 << 20) || my < -(1 << 20) || my > (1 << 20)) {
        *p0 = h->prev_z0;
        return;
    }
    *p0 = h->prev_z0 + mx * h->prev_dx + my * h->prev_dy;
    if (*p0 < 0 || *p0 > (int64_t)UINT32_MAX) /* keep residuals small and in range */
        *p0 = h->prev_z0;
}

static int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }

static void z_remember(tbr_rec_quads_header *h, int32_t x, int32_t y, const uint32_t z[4])
{
    h->have_prev_z = 1;
    h->prev_x = x;
    h->prev_y = y;
    h->prev_z0 = z[0];
    h->prev_dx = (int64_t)z[1] - z[0];
    h->prev_dy = (int64_t)z[2] - z[0];
}

/* exact_mask bits allowed by blend_mask: nibble j (4*j..4*j+3) for each lane j */
static uint32_t lanes_to_bits(uint32_t lanes)
{
    uint32_t m = 0;
    for (int j = 0; j < 4; j++)
        if (lanes & (1u << j)) m |= 0xfu << (4 * j);
    return m;
}

/* The position: absolute (minors up to 10), or (streams) the move from the previous
 * quad of the record ((0, 0) before the first), in 64 bits so any int32 pair codes. */
static void quad_put_pos(tbr_rec_quads_header *h, tbr_buf *b, const tbr_rec_quad *q)
{
    if (!h->streams) {
        put_s(b, q->x);
        put_s(b, q->y);
        return;
    }
    put_s(b, (int64_t)q->x - h->prev_qx);
    put_s(b, (int64_t)q->y - h->prev_qy);
    h->prev_qx = q->x;
    h->prev_qy = q->y;
}

static void quad_put_z(tbr_rec_quads_header *h, tbr_buf *b, const tbr_rec_quad *q)
{
    int64_t p0, pdx, pdy;
    z_predict(h, q->x, q->y, &p0, &pdx, &pdy);
    const int64_t dx = (int64_t)q->z[1] - q->z[0], dy = (int64_t)q->z[2] - q->z[0];
    put_s(b, (int64_t)q->z[0] - p0);
    put_s(b, dx - pdx);
    put_s(b, dy - pdy);
    put_s(b, (int64_t)q->z[3] - ((int64_t)q->z[0] + dx + dy));
    z_remember(h, q->x, q->y, q->z);
}

static int quad_put_colors(const tbr_rec_quads_header *h, tbr_buf *b, const tbr_rec_quad *q)
{
    const uint32_t allowed = lanes_to_bits(q->blend_mask);
    for (uint32_t cb = 0; cb < h->nr_cbufs; cb++) {
        if (h->packed_mask & (1u << cb)) {
            if (!h->computed)
                for (int j = 0; j < 4; j++)
                    if (q->blend_mask & (1u << j)) tbr_buf_put_u32(b, q->packed[cb][j]);
            continue;
        }
        if (!h->computed)
            for (int j = 0; j < 4; j++)
                if (q->blend_mask & (1u << j))
                    for (int ch = 0; ch < 4; ch++) put_f(b, q->color[cb][ch][j]);
        if (q->exact_mask[cb] & ~allowed) return -1;
        put_u(b, q->exact_mask[cb]);
        for (int j = 0; j < 4; j++)
            for (int ch = 0; ch < 4; ch++)
                if (q->exact_mask[cb] & (1u << (4 * j + ch))) put_f(b, q->exact[cb][ch][j]);
    }
    return 0;
}

/* One quad's fields, each into its stream's buffer (all the same buffer while a record
 * is being added to: tbr_rec_quads_finish splits them). */
static int quad_put(tbr_rec_quads_header *h, tbr_buf *const out[TBR_REC_QUADS_NSTREAMS], const tbr_rec_quad *q)
{
    if ((q->flags & ~0x3fu) || q->in_mask > 15 || q->depth_mask > 15 || q->shade_mask > 15 || q->blend_mask > 15 ||
        q->prim_kind > 3)
        return -1;
    quad_put_pos(h, out[QS_POS], q);
    put_u(out[QS_PRIM], q->prim);
    tbr_buf_put_u8(out[QS_PRIM], (uint8_t)(q->flags | (q->prim_kind << 6)));
    if (q->flags & TBR_REC_QUAD_SHADED) put_u(out[QS_PATH], q->path);
    tbr_buf_put_u8(out[QS_MASKS], (uint8_t)(q->in_mask | (q->depth_mask << 4)));
    tbr_buf_put_u8(out[QS_MASKS], (uint8_t)(q->shade_mask | (q->blend_mask << 4)));
    if ((q->flags & TBR_REC_QUAD_HAS_Z) && !h->depths_derived) quad_put_z(h, out[QS_Z], q);
    if (q->flags & TBR_REC_QUAD_BLENDED) return quad_put_colors(h, out[QS_COLORS], q);
    return 0;
}

int tbr_rec_quads_add(tbr_buf *b, tbr_rec_quads_header *h, const tbr_rec_quad *q)
{
    if (h->nr_cbufs > TBR_REC_MAX_CBUFS || (h->packed_mask >> h->nr_cbufs)) return -1;
    tbr_buf *const out[TBR_REC_QUADS_NSTREAMS] = {b, b, b, b, b, b};
    if (quad_put(h, out, q)) return -1;
    return done(b, 0);
}

/* Clears a decoded quad: only the color buffers of the record (the struct is ~1.2 KB and
 * this runs for every quad of a trace). */
static void quad_clear(const tbr_rec_quads_header *h, tbr_rec_quad *q)
{
    memset(q, 0, offsetof(tbr_rec_quad, color));
    for (uint32_t cb = 0; cb < h->nr_cbufs && cb < TBR_REC_MAX_CBUFS; cb++) {
        memset(q->color[cb], 0, sizeof(q->color[cb]));
        memset(q->packed[cb], 0, sizeof(q->packed[cb]));
        q->exact_mask[cb] = 0;
        memset(q->exact[cb], 0, sizeof(q->exact[cb]));
    }
}

static void quad_get_pos(tbr_rec_quads_header *h, tbr_cursor *c, tbr_rec_quad *q)
{
    if (!h->streams) {
        q->x = tbr_cursor_svarint32(c);
        q->y = tbr_cursor_svarint32(c);
        return;
    }
    const int64_t x = (int64_t)h->prev_qx + tbr_cursor_svarint(c);
    const int64_t y = (int64_t)h->prev_qy + tbr_cursor_svarint(c);
    if (x < INT32_MIN || x > INT32_MAX || y < INT32_MIN || y > INT32_MAX) { /* also catches wrapped moves */
        tbr_cursor_fail(c);
        return;
    }
    h->prev_qx = q->x = (int32_t)x;
    h->prev_qy = q->y = (int32_t)y;
}

static int quad_get_z(tbr_rec_quads_header *h, tbr_cursor *c, tbr_rec_quad *q)
{
    int64_t p0, pdx, pdy;
    z_predict(h, q->x, q->y, &p0, &pdx, &pdy);
    /* corrupt residuals may be any int64: add with wrap-around (no overflow), then
     * every depth must be a 32-bit value */
    const int64_t z0 = wrap_add(p0, tbr_cursor_svarint(c));
    const int64_t dx = wrap_add(pdx, tbr_cursor_svarint(c));
    const int64_t dy = wrap_add(pdy, tbr_cursor_svarint(c));
    const int64_t r3 = tbr_cursor_svarint(c);
    const int64_t z[4] = {z0, wrap_add(z0, dx), wrap_add(z0, dy), wrap_add(wrap_add(wrap_add(z0, dx), dy), r3)};
    for (int j = 0; j < 4; j++) {
        if (z[j] < 0 || z[j] > (int64_t)UINT32_MAX) {
            tbr_cursor_fail(c);
            return -1;
        }
        q->z[j] = (uint32_t)z[j];
    }
    z_remember(h, q->x, q->y, q->z);
    return 0;
}

static int quad_get_colors(const tbr_rec_quads_header *h, tbr_cursor *c, tbr_rec_quad *q)
{
    const uint32_t allowed = lanes_to_bits(q->blend_mask);
    for (uint32_t cb = 0; cb < h->nr_cbufs; cb++) {
        if (h->packed_mask & (1u << cb)) {
            if (!h->computed)
                for (int j = 0; j < 4; j++)
                    if (q->blend_mask & (1u << j)) q->packed[cb][j] = tbr_cursor_u32(c);
            continue;
        }
        if (!h->computed)
            for (int j = 0; j < 4; j++)
                if (q->blend_mask & (1u << j))
                    for (int ch = 0; ch < 4; ch++) q->color[cb][ch][j] = get_f(c);
        q->exact_mask[cb] = get_u(c);
        if (q->exact_mask[cb] & ~allowed) {
            tbr_cursor_fail(c);
            return -1;
        }
        for (int j = 0; j < 4; j++)
            for (int ch = 0; ch < 4; ch++)
                if (q->exact_mask[cb] & (1u << (4 * j + ch))) q->exact[cb][ch][j] = get_f(c);
    }
    return 0;
}

/* One quad's fields from their streams (all the same cursor in a record without streams,
 * and while tbr_rec_quads_finish splits a record): 0, or -1 with a cursor failed. */
static int quad_get(tbr_rec_quads_header *h, tbr_cursor *const in[TBR_REC_QUADS_NSTREAMS], tbr_rec_quad *q)
{
    quad_clear(h, q);
    quad_get_pos(h, in[QS_POS], q);
    q->prim = get_u(in[QS_PRIM]);
    uint8_t f = tbr_cursor_u8(in[QS_PRIM]);
    q->flags = f & 0x3fu;
    q->prim_kind = f >> 6;
    if (q->flags & TBR_REC_QUAD_SHADED) q->path = get_u(in[QS_PATH]);
    uint8_t m1 = tbr_cursor_u8(in[QS_MASKS]);
    uint8_t m2 = tbr_cursor_u8(in[QS_MASKS]);
    q->in_mask = m1 & 15u;
    q->depth_mask = m1 >> 4;
    q->shade_mask = m2 & 15u;
    q->blend_mask = m2 >> 4;
    if ((q->flags & TBR_REC_QUAD_HAS_Z) && !h->depths_derived && quad_get_z(h, in[QS_Z], q)) return -1;
    if ((q->flags & TBR_REC_QUAD_BLENDED) && quad_get_colors(h, in[QS_COLORS], q)) return -1;
    for (uint32_t s = 0; s < TBR_REC_QUADS_NSTREAMS; s++)
        if (!tbr_cursor_ok(in[s])) return -1;
    return 0;
}

static int quads_read_header(tbr_cursor *c, tbr_rec_quads_header *h);

/* A streams record was added to quad by quad, every field into the record: split the
 * fields into their streams (decoding the quads as written, encoding them again apart),
 * then write `u length` of each stream and the streams after the header. */
static int quads_split_streams(tbr_buf *b, uint32_t count)
{
    tbr_rec_quads_header rh, wh;
    tbr_cursor hc;
    tbr_cursor_init(&hc, b->data, b->len);
    if (quads_read_header(&hc, &rh) || !rh.streams) return -1;
    wh = rh;
    tbr_buf sb[TBR_REC_QUADS_NSTREAMS];
    tbr_buf *out[TBR_REC_QUADS_NSTREAMS];
    for (uint32_t s = 0; s < TBR_REC_QUADS_NSTREAMS; s++) tbr_buf_init(&sb[s]), out[s] = &sb[s];
    /* read the quads as added (interleaved), not through the streams open() set up */
    tbr_rec_quads_header row = rh;
    tbr_cursor rc;
    tbr_cursor_init(&rc, b->data + 16, b->len - 16);
    tbr_cursor *const in[TBR_REC_QUADS_NSTREAMS] = {&rc, &rc, &rc, &rc, &rc, &rc};
    tbr_rec_quad q;
    int rc_ = 0;
    for (uint32_t i = 0; i < count && rc_ == 0; i++) {
        if (quad_get(&row, in, &q) || quad_put(&wh, out, &q)) rc_ = -1;
    }
    if (rc_ == 0 && !tbr_cursor_at_end(&rc)) rc_ = -1;
    if (rc_ == 0) {
        b->len = 16;
        for (uint32_t s = 0; s < TBR_REC_QUADS_NSTREAMS; s++) put_u(b, sb[s].len);
        for (uint32_t s = 0; s < TBR_REC_QUADS_NSTREAMS; s++) tbr_buf_put_bytes(b, sb[s].data, sb[s].len);
        for (uint32_t s = 0; s < TBR_REC_QUADS_NSTREAMS; s++)
            if (!tbr_buf_ok(&sb[s])) rc_ = -1;
    }
    for (uint32_t s = 0; s < TBR_REC_QUADS_NSTREAMS; s++) tbr_buf_free(&sb[s]);
    return rc_ == 0 && tbr_buf_ok(b) ? 0 : -1;
}

int tbr_rec_quads_finish(tbr_buf *b, uint32_t count)
{
    if (!tbr_buf_ok(b) || b->len < 16 || count > TBR_REC_MAX_QUADS) return -1;
    uint8_t *p = b->data + 8;
    p[0] = (uint8_t)count;
    p[1] = (uint8_t)(count >> 8);
    p[2] = (uint8_t)(count >> 16);
    p[3] = (uint8_t)(count >> 24);
    const uint8_t streams_bit = (uint8_t)(TBR_REC_QUADS_STREAMS >> 24); /* in byte 3 of the packed_mask word */
    if (b->data[15] & streams_bit) return quads_split_streams(b, count);
    return 0;
}

int tbr_rec_quads_set_texels_derived(tbr_buf *b, int on)
{
    if (!tbr_buf_ok(b) || b->len < 16) return -1;
    uint8_t *p = b->data + 12; /* the packed_mask word, little-endian: bit 30 is in byte 3 */
    const uint8_t bit = (uint8_t)(TBR_REC_QUADS_TEXELS_DERIVED >> 24);
    p[3] = on ? (uint8_t)(p[3] | bit) : (uint8_t)(p[3] & ~bit);
    return 0;
}

/* Streams record: the lengths after the header, each stream a cursor of its own; c stays
 * before them until the last quad was read with every stream used up exactly. */
static int quads_open_streams(tbr_cursor *c, tbr_rec_quads_header *h)
{
    uint64_t len[TBR_REC_QUADS_NSTREAMS], total = 0;
    tbr_cursor lc = *c;
    for (uint32_t s = 0; s < TBR_REC_QUADS_NSTREAMS; s++) {
        len[s] = tbr_cursor_uvarint(&lc);
        total += len[s] > SIZE_MAX / 8 ? SIZE_MAX / 8 : len[s]; /* no wrap-around */
    }
    if (!tbr_cursor_ok(&lc) || total != tbr_cursor_remaining(&lc)) return -1;
    const uint8_t *p = lc.data + lc.pos;
    for (uint32_t s = 0; s < TBR_REC_QUADS_NSTREAMS; s++) {
        tbr_cursor_init(&h->in[s], p, (size_t)len[s]);
        p += len[s];
    }
    *c = lc;                                                               /* past the lengths */
    if (h->count == 0) (void)tbr_cursor_bytes(c, tbr_cursor_remaining(c)); /* nothing to read: all lengths 0 */
    return 0;
}

/* The fixed-width header and the record's flags; the coding state starts afresh. */
static int quads_read_header(tbr_cursor *c, tbr_rec_quads_header *h)
{
    h->draw_seq = tbr_cursor_u32(c);
    h->nr_cbufs = tbr_cursor_u32(c);
    h->count = tbr_cursor_u32(c);
    h->packed_mask = tbr_cursor_u32(c);
    h->computed = (h->packed_mask & TBR_REC_QUADS_COMPUTED) != 0;
    h->texels_derived = (h->packed_mask & TBR_REC_QUADS_TEXELS_DERIVED) != 0;
    h->streams = (h->packed_mask & TBR_REC_QUADS_STREAMS) != 0;
    h->depths_derived = (h->packed_mask & TBR_REC_QUADS_DEPTHS_DERIVED) != 0;
    h->packed_mask &= ~TBR_REC_QUADS_FLAGS;
    h->have_prev_z = 0;
    h->prev_qx = h->prev_qy = 0;
    h->decoded = 0;
    return tbr_cursor_ok(c) && h->nr_cbufs <= TBR_REC_MAX_CBUFS && h->count <= TBR_REC_MAX_QUADS &&
                   !(h->packed_mask >> h->nr_cbufs)
               ? 0
               : -1;
}

int tbr_rec_quads_open(tbr_cursor *c, const uint8_t *p, size_t n, tbr_rec_quads_header *h)
{
    tbr_cursor_init(c, p, n);
    if (quads_read_header(c, h) || (h->streams && quads_open_streams(c, h))) {
        tbr_cursor_fail(c);
        return -1;
    }
    return 0;
}

int tbr_rec_quads_next(tbr_cursor *c, tbr_rec_quads_header *h, tbr_rec_quad *q)
{
    if (!h->streams) {
        tbr_cursor *const in[TBR_REC_QUADS_NSTREAMS] = {c, c, c, c, c, c};
        return quad_get(h, in, q) || !tbr_cursor_ok(c) ? -1 : 0;
    }
    tbr_cursor *const in[TBR_REC_QUADS_NSTREAMS] = {&h->in[0], &h->in[1], &h->in[2], &h->in[3], &h->in[4], &h->in[5]};
    if (h->decoded >= h->count || quad_get(h, in, q)) {
        tbr_cursor_fail(c);
        return -1;
    }
    if (++h->decoded == h->count) { /* the record is read: c at its end if every stream is */
        int all = 1;
        for (uint32_t s = 0; s < TBR_REC_QUADS_NSTREAMS; s++) all &= tbr_cursor_at_end(&h->in[s]);
        if (all) (void)tbr_cursor_bytes(c, tbr_cursor_remaining(c));
    }
    return 0;
}

int tbr_rec_quads_close(tbr_cursor *c) { return finish(c); }

/* ---- TILE / FLUSH / UNSUPPORTED ------------------------------------------- */

int tbr_rec_tile_encode(tbr_buf *b, const tbr_rec_tile *r)
{
    if (r->kind < TBR_REC_TILE_LOAD || r->kind > TBR_REC_TILE_CLEAR_ALL) return -1;
    const uint32_t v[] = {r->kind,  r->is_zs,  r->cbuf,   r->resource_id, r->level,
                          r->layer, r->tile_x, r->tile_y, r->tile_size};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) put_u(b, v[i]);
    return done(b, 0);
}

int tbr_rec_tile_decode(const uint8_t *p, size_t n, tbr_rec_tile *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    memset(r, 0, sizeof(*r));
    uint32_t *v[] = {&r->kind,  &r->is_zs,  &r->cbuf,   &r->resource_id, &r->level,
                     &r->layer, &r->tile_x, &r->tile_y, &r->tile_size};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) *v[i] = get_u(&c);
    if (r->kind < TBR_REC_TILE_LOAD || r->kind > TBR_REC_TILE_CLEAR_ALL) return -1;
    limit(&c, r->is_zs, 1);
    limit(&c, r->cbuf, TBR_REC_MAX_CBUFS - 1);
    limit(&c, r->level, TBR_REC_MAX_LEVEL);
    limit(&c, r->layer, TBR_REC_MAX_LAYERS - 1);
    /* softpipe's tiles are 64 pixels; any power of two up to the render-target size, and
     * the tile inside it */
    if (!r->tile_size || (r->tile_size & (r->tile_size - 1))) tbr_cursor_fail(&c);
    limit(&c, r->tile_size, TBR_REC_MAX_DIM);
    limit(&c, r->tile_x, TBR_REC_MAX_DIM / (r->tile_size ? r->tile_size : 1) - 1);
    limit(&c, r->tile_y, TBR_REC_MAX_DIM / (r->tile_size ? r->tile_size : 1) - 1);
    return finish(&c);
}

int tbr_rec_flush_encode(tbr_buf *b, const tbr_rec_flush *r)
{
    put_u(b, r->flags);
    return done(b, 0);
}

int tbr_rec_flush_decode(const uint8_t *p, size_t n, tbr_rec_flush *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    r->flags = get_u(&c);
    return finish(&c);
}

int tbr_rec_unsupported_encode(tbr_buf *b, const tbr_rec_unsupported *r)
{
    return done(b, put_cstr(b, r->name, sizeof(r->name)));
}

int tbr_rec_unsupported_decode(const uint8_t *p, size_t n, tbr_rec_unsupported *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    get_cstr(&c, r->name, sizeof(r->name));
    return finish(&c);
}

/* ---- PATH ----------------------------------------------------------------- */

int tbr_rec_path_encode(tbr_buf *b, const tbr_rec_path *r)
{
    if (r->stage > TBR_REC_STAGE_FS || r->truncated > 1) return -1;
    put_u(b, r->id);
    put_u(b, r->shader_id);
    put_u(b, r->stage);
    put_u(b, r->truncated);
    put_u(b, r->n);
    if (r->entries) {
        tbr_buf_put_bytes(b, r->entries, (size_t)r->n * 3);
    } else {
        if (r->n && (!r->pc || !r->mask)) return -1;
        for (uint32_t i = 0; i < r->n; i++) {
            tbr_buf_put_u16(b, r->pc[i]);
            tbr_buf_put_u8(b, r->mask[i]);
        }
    }
    return done(b, 0);
}

int tbr_rec_path_decode(const uint8_t *p, size_t n, tbr_rec_path *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    memset(r, 0, sizeof(*r));
    r->id = get_u(&c);
    r->shader_id = get_u(&c);
    r->stage = get_u(&c);
    r->truncated = get_u(&c);
    r->n = get_u(&c);
    if (r->stage > TBR_REC_STAGE_FS || r->truncated > 1 || r->n > TBR_REC_MAX_PATH ||
        (size_t)r->n * 3 > tbr_cursor_remaining(&c))
        return -1;
    r->entries = tbr_cursor_bytes(&c, (size_t)r->n * 3);
    return finish(&c);
}

/* ---- TEXELS --------------------------------------------------------------- */
/* Schema 2 coding (docs/trace-records.md "TEXELS (16)"): a fetch's texels are cut
 * into footprints (single texels or 2x2 groups); the footprint SHAPE (lane, kind,
 * level, layer of each) goes to the ops stream, usually as "same shape as the
 * previous fetch with this key", and each footprint's first texel goes to the
 * coords stream as the residual from a prediction made from that previous fetch
 * (neighbouring quads read neighbouring texels). Encoder and decoder run the
 * same state updates (texels_predict / texels_remember). */

#define TX_KIND_SINGLE     0u
#define TX_KIND_UNIT       1u    /* (x,y) (x+1,y) (x,y+1) (x+1,y+1) */
#define TX_KIND_GENERAL    2u    /* (x0,y0) (x1,y0) (x0,y1) (x1,y1), x1/y1 given */
#define TX_KIND_SPAN       3u    /* (x,y) (x+1,y) ... (x+len-1,y), len >= 2 given (minor 9) */
#define TX_G_NEWLL         0x10u /* group header: level and layer follow */
#define TX_F_KEY_MASK      0x1fu /* fetch byte: 0 new key, k = key slot k-1 */
#define TX_F_SAME_SHAPE    0x20u
#define TX_F_DQUAD_SHIFT   6 /* 0..2 = dquad, 3 = s dquad follows */
#define TX_MAX_RESIDUAL    ((int64_t)1 << 50)
#define TX_MAX_LEVEL_SHIFT 16

static uint32_t tx_group_size(uint32_t kind, uint32_t len)
{
    return kind == TX_KIND_SINGLE ? 1u : kind == TX_KIND_SPAN ? len : 4u;
}

/* Footprint starting at t[0] (left texels remain): kind, and *len for a span. A 2x2
 * footprint is taken first (bilinear); else a row of consecutive texels (the rows of an
 * anisotropic (EWA) footprint, docs/trace-records.md "TEXELS (16)"); else one texel. */
static uint32_t tx_group_at(const tbr_rec_texel *t, uint32_t left, uint32_t *len)
{
    *len = 0;
    if (left >= 4) {
        int same = 1;
        for (int k = 1; k < 4; k++)
            if (t[k].lane != t[0].lane || t[k].level != t[0].level || t[k].layer != t[0].layer) same = 0;
        if (same && t[1].y == t[0].y && t[2].x == t[0].x && t[3].x == t[1].x && t[3].y == t[2].y) {
            if ((int64_t)t[1].x == (int64_t)t[0].x + 1 && (int64_t)t[2].y == (int64_t)t[0].y + 1) return TX_KIND_UNIT;
            return TX_KIND_GENERAL;
        }
    }
    uint32_t n = 1;
    while (n < left && t[n].lane == t[0].lane && t[n].level == t[0].level && t[n].layer == t[0].layer &&
           t[n].y == t[0].y && (int64_t)t[n].x == (int64_t)t[0].x + n)
        n++;
    if (n < 2) return TX_KIND_SINGLE;
    *len = n;
    return TX_KIND_SPAN;
}

/* floor(v / 2^d) for d > 0, v * 2^-d for d < 0 (|d| clamped) */
static int64_t tx_scale(int64_t v, int64_t d)
{
    if (d > TX_MAX_LEVEL_SHIFT) d = TX_MAX_LEVEL_SHIFT;
    if (d < -TX_MAX_LEVEL_SHIFT) d = -TX_MAX_LEVEL_SHIFT;
    if (d >= 0) return v >= 0 ? v >> d : -((-v - 1) >> d) - 1;
    return v * ((int64_t)1 << -d);
}

/* Prediction of footprint g's first texel. cur0 = footprint 0 of this fetch (g > 0),
 * prev = footprint g-1 of this fetch (g > 0). */
static void tx_predict(const tbr_rec_texels_key *k, uint32_t g, uint32_t level, uint32_t layer,
                       const tbr_rec_texels_group *cur0, const tbr_rec_texels_group *prev, int64_t *px, int64_t *py)
{
    uint32_t kept = k->ngroups < TBR_REC_TEXELS_PRED_GROUPS ? k->ngroups : TBR_REC_TEXELS_PRED_GROUPS;
    if (k->has_prev && g < kept && k->g[g].level == level && k->g[g].layer == layer) {
        const tbr_rec_texels_group *kg = &k->g[g];
        if (g == 0) { /* the footprint moves as it did between the two fetches before */
            *px = (int64_t)kg->x + k->dx0;
            *py = (int64_t)kg->y + k->dy0;
        } else if (cur0->level == k->g[0].level && cur0->layer == k->g[0].layer) {
            /* same placement relative to footprint 0 as in the previous fetch */
            *px = (int64_t)cur0->x + ((int64_t)kg->x - k->g[0].x);
            *py = (int64_t)cur0->y + ((int64_t)kg->y - k->g[0].y);
        } else {
            *px = kg->x;
            *py = kg->y;
        }
        return;
    }
    const tbr_rec_texels_group *ref = g ? prev : (k->has_prev && kept ? &k->g[0] : NULL);
    if (!ref) {
        *px = *py = 0;
        return;
    }
    /* another mip level: coordinates scale by 2 per level */
    int64_t d = (int64_t)level - (int64_t)ref->level;
    *px = tx_scale(ref->x, d);
    *py = tx_scale(ref->y, d);
}

/* After a fetch of n groups (the first PRED_GROUPS of them in g[]). */
static void tx_remember(tbr_rec_texels_key *k, const tbr_rec_texels_group *g, uint32_t n)
{
    uint32_t kept = k->ngroups < TBR_REC_TEXELS_PRED_GROUPS ? k->ngroups : TBR_REC_TEXELS_PRED_GROUPS;
    if (k->has_prev && kept && n && k->g[0].level == g[0].level && k->g[0].layer == g[0].layer) {
        k->dx0 = (int64_t)g[0].x - k->g[0].x;
        k->dy0 = (int64_t)g[0].y - k->g[0].y;
    } else {
        k->dx0 = k->dy0 = 0;
    }
    uint32_t m = n < TBR_REC_TEXELS_PRED_GROUPS ? n : TBR_REC_TEXELS_PRED_GROUPS;
    memcpy(k->g, g, m * sizeof(*g));
    k->ngroups = n;
    k->has_prev = 1;
}

static tbr_rec_texels_key *tx_new_key(tbr_rec_texels_state *st, uint32_t pc, uint32_t unit, uint32_t res,
                                      uint32_t *slot)
{
    *slot = st->next_key;
    st->next_key = (st->next_key + 1) % TBR_REC_TEXELS_KEYS;
    if (st->nkeys < TBR_REC_TEXELS_KEYS) st->nkeys++;
    tbr_rec_texels_key *k = &st->keys[*slot];
    memset(k, 0, sizeof(*k));
    k->pc = pc;
    k->unit = unit;
    k->resource_id = res;
    return k;
}

static int tx_same_shape(const tbr_rec_texels_key *k, const tbr_rec_texels_group *g, uint32_t n)
{
    if (!k->has_prev || k->ngroups != n || n > TBR_REC_TEXELS_PRED_GROUPS) return 0;
    for (uint32_t i = 0; i < n; i++)
        if (k->g[i].lane != g[i].lane || k->g[i].kind != g[i].kind || k->g[i].level != g[i].level ||
            k->g[i].layer != g[i].layer || k->g[i].len != g[i].len)
            return 0;
    return 1;
}

/* (rx, ry) residual pair: one byte zigzag(rx) | zigzag(ry) << 4 when zigzag(rx) < 15
 * and zigzag(ry) < 16 (|r| <= 7: most of them), else byte 15 and two s. */
#define TX_RES_ESCAPE 15u
static void tx_put_residual(tbr_buf *b, int64_t rx, int64_t ry)
{
    uint64_t zx = tbr_zigzag_encode(rx), zy = tbr_zigzag_encode(ry);
    if (zx < TX_RES_ESCAPE && zy < 16) {
        tbr_buf_put_u8(b, (uint8_t)(zx | zy << 4));
    } else {
        tbr_buf_put_u8(b, TX_RES_ESCAPE);
        put_s(b, rx);
        put_s(b, ry);
    }
}

static void tx_get_residual(tbr_cursor *c, int64_t *rx, int64_t *ry)
{
    uint8_t v = tbr_cursor_u8(c);
    if ((v & 15u) == TX_RES_ESCAPE) {
        *rx = tbr_cursor_svarint(c);
        *ry = tbr_cursor_svarint(c);
    } else {
        *rx = tbr_zigzag_decode(v & 15u);
        *ry = tbr_zigzag_decode(v >> 4);
    }
}

int tbr_rec_texels_encode(tbr_buf *b, uint32_t draw_seq, const tbr_rec_texfetch *f, uint32_t count)
{
    static const tbr_rec_texels_state empty;
    tbr_rec_texels_state st = empty;
    tbr_buf ops, co;
    tbr_buf_init(&ops);
    tbr_buf_init(&co);
    uint32_t prev_quad = 0;
    int rc = 0;
    for (uint32_t i = 0; i < count && rc == 0; i++) {
        const tbr_rec_texfetch *x = &f[i];
        if (x->n_texels > TBR_REC_MAX_TEXELS_PER_FETCH || (x->n_texels && !x->texels)) {
            rc = -1;
            break;
        }
        /* footprints: the first PRED_GROUPS in g[], all counted */
        tbr_rec_texels_group g[TBR_REC_TEXELS_PRED_GROUPS];
        uint32_t ng = 0;
        for (uint32_t k = 0; k < x->n_texels;) {
            const tbr_rec_texel *t = &x->texels[k];
            if (t->lane > 3) {
                rc = -1;
                break;
            }
            uint32_t len;
            uint32_t kind = tx_group_at(t, x->n_texels - k, &len);
            if (ng < TBR_REC_TEXELS_PRED_GROUPS)
                g[ng] = (tbr_rec_texels_group){t->lane, kind, t->level, t->layer, t->x, t->y, len};
            ng++;
            k += tx_group_size(kind, len);
        }
        if (rc) break;
        uint32_t slot = TBR_REC_TEXELS_KEYS;
        for (uint32_t s = 0; s < st.nkeys; s++)
            if (st.keys[s].pc == x->pc && st.keys[s].unit == x->unit && st.keys[s].resource_id == x->resource_id) {
                slot = s;
                break;
            }
        int newkey = slot == TBR_REC_TEXELS_KEYS;
        tbr_rec_texels_key *key = newkey ? tx_new_key(&st, x->pc, x->unit, x->resource_id, &slot) : &st.keys[slot];
        int same = tx_same_shape(key, g, ng);
        int64_t dq = (int64_t)x->quad - (int64_t)prev_quad;
        prev_quad = x->quad;
        uint32_t dqc = dq >= 0 && dq <= 2 ? (uint32_t)dq : 3u;
        tbr_buf_put_u8(
            &ops, (uint8_t)((newkey ? 0u : slot + 1u) | (same ? TX_F_SAME_SHAPE : 0u) | (dqc << TX_F_DQUAD_SHIFT)));
        if (dqc == 3) put_s(&ops, dq);
        if (newkey) {
            put_u(&ops, x->pc);
            put_u(&ops, x->unit);
            put_u(&ops, x->resource_id);
        }
        if (!same) put_u(&ops, ng);
        uint32_t level = 0, layer = 0, gi = 0;
        tbr_rec_texels_group cur0 = {0}, prev = {0};
        for (uint32_t k = 0; k < x->n_texels; gi++) {
            const tbr_rec_texel *t = &x->texels[k];
            uint32_t len;
            uint32_t kind = tx_group_at(t, x->n_texels - k, &len);
            if (!same) {
                int newll = t->level != level || t->layer != layer;
                tbr_buf_put_u8(&ops, (uint8_t)(kind | (t->lane << 2) | (newll ? TX_G_NEWLL : 0u)));
                if (newll) {
                    put_u(&ops, t->level);
                    put_u(&ops, t->layer);
                }
                if (kind == TX_KIND_SPAN) put_u(&ops, len - 2);
            }
            level = t->level;
            layer = t->layer;
            int64_t px, py;
            tx_predict(key, gi, level, layer, &cur0, &prev, &px, &py);
            tx_put_residual(&co, (int64_t)t->x - px, (int64_t)t->y - py);
            if (kind == TX_KIND_GENERAL) {
                put_s(&co, (int64_t)t[1].x - t->x);
                put_s(&co, (int64_t)t[2].y - t->y);
            }
            prev = (tbr_rec_texels_group){t->lane, kind, level, layer, t->x, t->y, len};
            if (gi == 0) cur0 = prev;
            k += tx_group_size(kind, len);
        }
        tx_remember(key, g, ng);
    }
    if (rc == 0) {
        put_u(b, draw_seq);
        put_u(b, count);
        put_u(b, ops.len);
        put_u(b, co.len);
        tbr_buf_put_bytes(b, ops.data, ops.len);
        tbr_buf_put_bytes(b, co.data, co.len);
        if (!tbr_buf_ok(&ops) || !tbr_buf_ok(&co)) rc = -1;
    }
    tbr_buf_free(&ops);
    tbr_buf_free(&co);
    return done(b, rc);
}

int tbr_rec_texels_open(tbr_cursor *c, const uint8_t *p, size_t n, tbr_rec_texels_header *h)
{
    tbr_cursor_init(c, p, n);
    memset(h, 0, sizeof(*h));
    h->draw_seq = get_u(c);
    h->count = get_u(c);
    uint64_t ops_len = get_u64(c), co_len = get_u64(c);
    /* every fetch takes at least 1 ops byte */
    if (!tbr_cursor_ok(c) || ops_len > tbr_cursor_remaining(c) || co_len > tbr_cursor_remaining(c) - ops_len ||
        h->count > ops_len || (h->count == 0 && (ops_len || co_len))) {
        tbr_cursor_fail(c);
        return -1;
    }
    const uint8_t *ops = tbr_cursor_bytes(c, ops_len);
    const uint8_t *co = tbr_cursor_bytes(c, co_len);
    tbr_cursor_init(&h->ops, ops, ops_len);
    tbr_cursor_init(&h->coords, co, co_len);
    return 0;
}

static int tx_fail(tbr_cursor *c)
{
    tbr_cursor_fail(c);
    return -1;
}

int tbr_rec_texels_next(tbr_cursor *c, tbr_rec_texels_header *h, tbr_rec_texfetch *f, tbr_rec_texel *texels,
                        uint32_t cap)
{
    tbr_cursor *o = &h->ops, *co = &h->coords;
    memset(f, 0, sizeof(*f));
    if (h->decoded >= h->count) return tx_fail(c);
    uint8_t fb = tbr_cursor_u8(o);
    uint32_t dqc = fb >> TX_F_DQUAD_SHIFT;
    int64_t dq = dqc == 3 ? tbr_cursor_svarint(o) : (int64_t)dqc;
    if (!tbr_cursor_ok(o) || dq < -(int64_t)UINT32_MAX || dq > (int64_t)UINT32_MAX) return tx_fail(c);
    int64_t q = (int64_t)h->prev_quad + dq;
    if (q < 0 || q > UINT32_MAX) return tx_fail(c);
    f->quad = (uint32_t)q;
    h->prev_quad = f->quad;
    uint32_t code = fb & TX_F_KEY_MASK;
    tbr_rec_texels_state *st = &h->st;
    tbr_rec_texels_key *key;
    if (code == 0) {
        uint32_t pc = get_u(o), unit = get_u(o), res = get_u(o), slot;
        key = tx_new_key(st, pc, unit, res, &slot);
    } else {
        if (code > st->nkeys) return tx_fail(c);
        key = &st->keys[code - 1];
    }
    f->pc = key->pc;
    f->unit = key->unit;
    f->resource_id = key->resource_id;
    int same = (fb & TX_F_SAME_SHAPE) != 0;
    uint32_t ng;
    if (same) {
        if (!key->has_prev || key->ngroups > TBR_REC_TEXELS_PRED_GROUPS) return tx_fail(c);
        ng = key->ngroups;
    } else {
        ng = get_u(o);
        if (ng > TBR_REC_MAX_TEXELS_PER_FETCH) return tx_fail(c);
    }
    if (!tbr_cursor_ok(o) || (ng && !texels)) return tx_fail(c);
    f->texels = texels;
    tbr_rec_texels_group g[TBR_REC_TEXELS_PRED_GROUPS];
    tbr_rec_texels_group cur0 = {0}, prev = {0};
    uint32_t level = 0, layer = 0, nt = 0;
    for (uint32_t gi = 0; gi < ng; gi++) {
        tbr_rec_texels_group cg;
        if (same) {
            cg = key->g[gi];
        } else {
            uint8_t hdr = tbr_cursor_u8(o);
            if (!tbr_cursor_ok(o) || (hdr & ~(3u | (3u << 2) | TX_G_NEWLL))) return tx_fail(c);
            if (hdr & TX_G_NEWLL) {
                uint32_t nl = get_u(o), ny = get_u(o);
                if (nl == level && ny == layer) /* canonical: NEWLL only on change */
                    return tx_fail(c);
                level = nl;
                layer = ny;
            }
            cg.kind = hdr & 3u;
            cg.lane = (hdr >> 2) & 3u;
            cg.level = level;
            cg.layer = layer;
            cg.len = 0;
            if (cg.kind == TX_KIND_SPAN) {
                const uint32_t extra = get_u(o); /* len - 2 */
                if (!tbr_cursor_ok(o) || extra > TBR_REC_MAX_TEXELS_PER_FETCH - 2) return tx_fail(c);
                cg.len = extra + 2;
            }
        }
        int64_t px, py;
        tx_predict(key, gi, cg.level, cg.layer, &cur0, &prev, &px, &py);
        int64_t rx, ry;
        tx_get_residual(co, &rx, &ry);
        if (rx < -TX_MAX_RESIDUAL || rx > TX_MAX_RESIDUAL || ry < -TX_MAX_RESIDUAL || ry > TX_MAX_RESIDUAL)
            return tx_fail(c);
        int64_t x = px + rx, y = py + ry;
        if (x < INT32_MIN || x > INT32_MAX || y < INT32_MIN || y > INT32_MAX) return tx_fail(c);
        cg.x = (int32_t)x;
        cg.y = (int32_t)y;
        int64_t x1 = cg.kind == TX_KIND_UNIT ? x + 1 : x, y1 = cg.kind == TX_KIND_UNIT ? y + 1 : y;
        if (cg.kind == TX_KIND_GENERAL) {
            int64_t ddx = tbr_cursor_svarint(co), ddy = tbr_cursor_svarint(co);
            if (ddx < -TX_MAX_RESIDUAL || ddx > TX_MAX_RESIDUAL || ddy < -TX_MAX_RESIDUAL || ddy > TX_MAX_RESIDUAL)
                return tx_fail(c);
            x1 = x + ddx;
            y1 = y + ddy;
        }
        uint32_t size = tx_group_size(cg.kind, cg.len);
        if (cg.kind == TX_KIND_SPAN) x1 = x + (int64_t)size - 1;
        if (!tbr_cursor_ok(co) || x1 < INT32_MIN || x1 > INT32_MAX || y1 < INT32_MIN || y1 > INT32_MAX ||
            nt + size > cap || nt + size > TBR_REC_MAX_TEXELS_PER_FETCH)
            return tx_fail(c);
        tbr_rec_texel t0 = {cg.lane, cg.level, cg.layer, cg.x, cg.y};
        texels[nt] = t0;
        for (uint32_t k = 1; cg.kind == TX_KIND_SPAN && k < size; k++) {
            texels[nt + k] = t0;
            texels[nt + k].x = (int32_t)(x + k);
        }
        if (cg.kind == TX_KIND_UNIT || cg.kind == TX_KIND_GENERAL) {
            texels[nt + 1] = t0;
            texels[nt + 1].x = (int32_t)x1;
            texels[nt + 2] = t0;
            texels[nt + 2].y = (int32_t)y1;
            texels[nt + 3] = texels[nt + 1];
            texels[nt + 3].y = (int32_t)y1;
        }
        nt += size;
        if (gi < TBR_REC_TEXELS_PRED_GROUPS) g[gi] = cg;
        prev = cg;
        if (gi == 0) cur0 = cg;
    }
    f->n_texels = nt;
    tx_remember(key, g, ng);
    h->decoded++;
    /* the streams end exactly with the last fetch */
    if (h->decoded == h->count && (!tbr_cursor_at_end(o) || !tbr_cursor_at_end(co))) return tx_fail(c);
    return tbr_cursor_ok(c) ? 0 : -1;
}

int tbr_rec_texels_close(tbr_cursor *c) { return finish(c); }

/* ---- VERTICES ------------------------------------------------------------- */

/* The streams count shares its varint with the layout (docs/trace-records.md
 * VERTICES): nr_streams + 64 * layout, layout 0 = raw positions and hashes
 * (minors 1-6), 1 = coded positions, 2 = coded positions and hashes, 3 = neither
 * (minor 10: nothing in tbr-sim reads them, PRIM holds what setup receives). */
#define VTX_LAYOUT_SHIFT 6
enum { VTX_RAW = 0, VTX_CODED = 1, VTX_CODED_HASHES = 2, VTX_INDICES = 3 };

/* minor-7 position coding: per vertex `u back`; back > 0 = the position of the
 * vertex `back` places earlier in the record; back = 0 = the 4 components follow as
 * f32. Clip positions repeat a lot (non-indexed meshes: a vertex per triangle
 * corner); new positions stay raw because zstd finds their repeats across records
 * (deltas measured worse on refract, shading and jellyfish: docs/trace-records.md). */
typedef struct vtx_seen {
    uint32_t bits[4];
    uint32_t ord_plus_1;
    uint32_t hash;  /* that vertex's out_hash */
    uint32_t epoch; /* the encode call that wrote it; any other: an empty slot */
} vtx_seen;

/* The table is reused from call to call (one per thread) and its first `cap` slots
 * serve a record: zeroing a table sized for each record (calloc) cost more than the
 * coding on large draws. Lookups give the same result for any table size. */
static _Thread_local vtx_seen *vtx_table;
static _Thread_local size_t vtx_table_cap;
static _Thread_local uint32_t vtx_epoch;

static uint32_t vtx_pos_hash(const uint32_t v[4])
{
    uint64_t a = ((uint64_t)v[0] << 32 | v[1]) * 0x9E3779B97F4A7C15ull;
    uint64_t b = ((uint64_t)v[2] << 32 | v[3]) * 0xC2B2AE3D27D4EB4Full;
    return (uint32_t)((a ^ (b >> 7)) >> 32);
}

int tbr_rec_vertices_encode(tbr_buf *b, const tbr_rec_vertices_header *h, const tbr_rec_vertex_group *g)
{
    const uint32_t known = TBR_REC_VERTICES_HASHES | TBR_REC_VERTICES_NO_POSITIONS;
    if (h->nr_streams > TBR_REC_MAX_STREAMS || (h->count && !g) || (h->flags & ~known) || h->flags == known) return -1;
    const int hashes = (h->flags & TBR_REC_VERTICES_HASHES) != 0;
    const int positions = !(h->flags & TBR_REC_VERTICES_NO_POSITIONS);
    put_u(b, h->draw_seq);
    put_u(b, h->vs_id);
    put_u(b, h->instance_id);
    put_u(b, h->start_instance);
    put_u(b, h->num_outputs);
    put_u(b, (uint64_t)h->position_slot + 1 > UINT32_MAX ? 0 : (uint64_t)h->position_slot + 1);
    const uint64_t layout = !positions ? VTX_INDICES : hashes ? VTX_CODED_HASHES : VTX_CODED;
    put_u(b, h->nr_streams + (layout << VTX_LAYOUT_SHIFT));
    for (uint32_t i = 0; i < h->nr_streams; i++) {
        const tbr_rec_vertex_stream *s = &h->streams[i];
        put_u(b, s->resource_id);
        put_u(b, s->buffer_index);
        put_u(b, s->offset);
        put_u(b, s->stride);
        put_u(b, s->size);
        put_u(b, s->format);
        put_u(b, s->instance_divisor);
    }
    put_u(b, h->fetched);
    put_u(b, h->count);
    /* open-addressing table: position bits -> latest vertex ordinal (load <= 1/2) */
    uint64_t nverts = (uint64_t)h->count * 4;
    size_t cap = 16;
    while (cap < 2 * nverts) cap *= 2;
    if (cap > vtx_table_cap) {
        free(vtx_table);
        vtx_table = calloc(cap, sizeof(*vtx_table));
        vtx_table_cap = vtx_table ? cap : 0;
        vtx_epoch = 0;
        if (!vtx_table) return -1;
    }
    if (++vtx_epoch == 0) { /* wrapped: stale epochs could match again */
        memset(vtx_table, 0, vtx_table_cap * sizeof(*vtx_table));
        vtx_epoch = 1;
    }
    vtx_seen *seen = vtx_table;
    const uint32_t epoch = vtx_epoch;
    int64_t prev = 0;
    uint32_t ord = 0;
    int rc = 0;
    for (uint32_t i = 0; i < h->count && rc == 0; i++) {
        if (g[i].n < 1 || g[i].n > 4) {
            rc = -1;
            break;
        }
        put_u(b, g[i].path);
        put_u(b, g[i].n);
        for (uint32_t j = 0; j < g[i].n; j++, ord++) {
            put_s(b, (int64_t)g[i].index[j] - prev);
            prev = g[i].index[j];
            if (!positions) continue;
            uint32_t v[4];
            memcpy(v, g[i].pos[j], sizeof(v));
            size_t slot = vtx_pos_hash(v) & (cap - 1);
            while (seen[slot].epoch == epoch && memcmp(seen[slot].bits, v, sizeof(v))) slot = (slot + 1) & (cap - 1);
            uint32_t back = seen[slot].epoch == epoch ? ord - (seen[slot].ord_plus_1 - 1) : 0;
            if (back > TBR_REC_VERTICES_BACK_WINDOW)
                back = 0; /* too far: coded afresh, later vertices refer to this one */
            put_u(b, back);
            if (!back)
                for (int k = 0; k < 4; k++) tbr_buf_put_u32(b, v[k]);
            /* a repeated position mostly has repeated varyings too: XOR with the hash of
             * the vertex referred to */
            if (hashes) tbr_buf_put_u32(b, g[i].out_hash[j] ^ (back ? seen[slot].hash : 0));
            memcpy(seen[slot].bits, v, sizeof(v));
            seen[slot].ord_plus_1 = ord + 1;
            seen[slot].hash = g[i].out_hash[j];
            seen[slot].epoch = epoch;
        }
    }
    return done(b, rc);
}

int tbr_rec_vertices_open(tbr_cursor *c, const uint8_t *p, size_t n, tbr_rec_vertices_header *h)
{
    tbr_cursor_init(c, p, n);
    memset(h, 0, offsetof(tbr_rec_vertices_header, recent)); /* the ring is written before it is read */
    h->draw_seq = get_u(c);
    h->vs_id = get_u(c);
    h->instance_id = get_u(c);
    h->start_instance = get_u(c);
    h->num_outputs = get_u(c);
    h->position_slot = get_u(c) - 1u; /* 0 -> UINT32_MAX */
    uint32_t streams_layout = get_u(c);
    h->nr_streams = streams_layout & ((1u << VTX_LAYOUT_SHIFT) - 1);
    uint32_t layout = streams_layout >> VTX_LAYOUT_SHIFT;
    if (h->nr_streams > TBR_REC_MAX_STREAMS || layout > VTX_INDICES) {
        tbr_cursor_fail(c);
        return -1;
    }
    h->layout = layout == VTX_RAW ? 0 : layout == VTX_INDICES ? 2 : 1;
    h->flags = layout == VTX_CODED     ? 0
               : layout == VTX_INDICES ? TBR_REC_VERTICES_NO_POSITIONS
                                       : TBR_REC_VERTICES_HASHES;
    for (uint32_t i = 0; i < h->nr_streams; i++) {
        tbr_rec_vertex_stream *s = &h->streams[i];
        s->resource_id = get_u(c);
        s->buffer_index = get_u(c);
        s->offset = get_u(c);
        s->stride = get_u(c);
        s->size = get_u(c);
        s->format = get_u(c);
        s->instance_divisor = get_u(c);
        limit(c, s->buffer_index, TBR_REC_MAX_ATTRIBS - 1);
        limit(c, s->size, TBR_REC_MAX_VERTEX_ELEMENT_BYTES);
    }
    h->fetched = get_u(c);
    h->count = get_u(c);
    /* a group takes at least path, n and one vertex: layout 0 2 + 21 bytes, coded
     * 2 + 2 (+ 4 with hashes), indices only 2 + 1 */
    uint64_t min_group = h->layout == 0 ? 23 : h->layout == 2 ? 3 : (h->flags & TBR_REC_VERTICES_HASHES) ? 8 : 4;
    if (!tbr_cursor_ok(c) || (uint64_t)h->count * min_group > tbr_cursor_remaining(c)) return -1;
    return 0;
}

int tbr_rec_vertices_next(tbr_cursor *c, tbr_rec_vertices_header *h, tbr_rec_vertex_group *g)
{
    memset(g, 0, sizeof(*g));
    g->path = get_u(c);
    g->n = get_u(c);
    if (!tbr_cursor_ok(c) || g->n < 1 || g->n > 4) {
        tbr_cursor_fail(c);
        return -1;
    }
    const uint32_t mask = TBR_REC_VERTICES_BACK_WINDOW - 1;
    for (uint32_t j = 0; j < g->n; j++) {
        int64_t v = (int64_t)h->prev_index + tbr_cursor_svarint(c);
        if (v < 0 || v > UINT32_MAX) {
            tbr_cursor_fail(c);
            return -1;
        }
        g->index[j] = (uint32_t)v;
        h->prev_index = g->index[j];
        if (h->layout == 2) continue; /* indices only (minor 10) */
        if (h->layout == 0) {
            for (int k = 0; k < 4; k++) g->pos[j][k] = get_f(c);
            g->out_hash[j] = tbr_cursor_u32(c);
        } else {
            uint32_t back = get_u(c);
            uint32_t *cur = h->recent[h->decoded & mask];
            if (back > h->decoded || back > TBR_REC_VERTICES_BACK_WINDOW) {
                tbr_cursor_fail(c);
                return -1;
            }
            uint32_t hash_base = 0;
            if (back) {
                uint32_t from = (h->decoded - back) & mask;
                memmove(cur, h->recent[from], 4 * sizeof(uint32_t));
                hash_base = h->recent_hash[from];
            } else {
                for (int k = 0; k < 4; k++) cur[k] = tbr_cursor_u32(c);
            }
            memcpy(g->pos[j], cur, sizeof(g->pos[j]));
            if (h->flags & TBR_REC_VERTICES_HASHES) g->out_hash[j] = tbr_cursor_u32(c) ^ hash_base;
            h->recent_hash[h->decoded & mask] = g->out_hash[j];
            h->decoded++;
        }
    }
    return tbr_cursor_ok(c) ? 0 : -1;
}

int tbr_rec_vertices_close(tbr_cursor *c) { return finish(c); }

/* ---- SURFACE_INIT ----------------------------------------------------------- */

static int surface_init_valid(const tbr_rec_surface_init *r)
{
    return r->width >= 1 && r->height >= 1 && r->width <= TBR_REC_SURFACE_INIT_MAX_DIM &&
           r->height <= TBR_REC_SURFACE_INIT_MAX_DIM && r->block_bytes >= 1 &&
           r->block_bytes <= TBR_REC_SURFACE_INIT_MAX_BLOCK && r->is_zs <= 1 && r->rows >= 1 && r->y0 < r->height &&
           r->rows <= r->height - r->y0 && r->level <= TBR_REC_MAX_LEVEL && r->layer < TBR_REC_MAX_LAYERS;
}

int tbr_rec_surface_check_encode(tbr_buf *b, const tbr_rec_surface_check *r)
{
    if (!r->width || !r->height || !r->block_bytes || r->block_bytes > 16) return -1;
    const uint32_t v[] = {r->resource_id, r->level, r->layer, r->width, r->height, r->block_bytes};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) put_u(b, v[i]);
    tbr_buf_put_u32(b, r->crc);
    return done(b, 0);
}

int tbr_rec_surface_check_decode(const uint8_t *p, size_t n, tbr_rec_surface_check *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    memset(r, 0, sizeof(*r));
    uint32_t *v[] = {&r->resource_id, &r->level, &r->layer, &r->width, &r->height, &r->block_bytes};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) *v[i] = get_u(&c);
    r->crc = tbr_cursor_u32(&c);
    if (!tbr_cursor_ok(&c) || !r->width || !r->height || !r->block_bytes || r->block_bytes > 16) return -1;
    limit(&c, r->level, TBR_REC_MAX_LEVEL);
    limit(&c, r->layer, TBR_REC_MAX_LAYERS - 1);
    limit(&c, r->width, TBR_REC_MAX_DIM);
    limit(&c, r->height, TBR_REC_MAX_DIM);
    return finish(&c);
}

int tbr_rec_invalidate_encode(tbr_buf *b, const tbr_rec_invalidate *r)
{
    if (r->buffers >= (4u << TBR_REC_MAX_CBUFS)) return -1;
    put_u(b, r->resource_id);
    put_u(b, r->buffers);
    return done(b, 0);
}

int tbr_rec_invalidate_decode(const uint8_t *p, size_t n, tbr_rec_invalidate *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    memset(r, 0, sizeof(*r));
    r->resource_id = get_u(&c);
    r->buffers = get_u(&c);
    if (!tbr_cursor_ok(&c)) return -1;
    limit(&c, r->buffers, (4u << TBR_REC_MAX_CBUFS) - 1);
    return finish(&c);
}

int tbr_rec_surface_init_encode(tbr_buf *b, const tbr_rec_surface_init *r)
{
    if (!surface_init_valid(r) || !r->data) return -1;
    const uint32_t v[] = {r->resource_id, r->level,  r->layer,       r->is_zs, r->format,
                          r->width,       r->height, r->block_bytes, r->y0,    r->rows};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) put_u(b, v[i]);
    tbr_buf_put_lbytes(b, r->data, (size_t)r->rows * r->width * r->block_bytes);
    return done(b, 0);
}

int tbr_rec_surface_init_decode(const uint8_t *p, size_t n, tbr_rec_surface_init *r)
{
    tbr_cursor c;
    tbr_cursor_init(&c, p, n);
    memset(r, 0, sizeof(*r));
    uint32_t *v[] = {&r->resource_id, &r->level,  &r->layer,       &r->is_zs, &r->format,
                     &r->width,       &r->height, &r->block_bytes, &r->y0,    &r->rows};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) *v[i] = get_u(&c);
    size_t len = 0;
    r->data = tbr_cursor_lbytes(&c, &len);
    if (!tbr_cursor_ok(&c) || !r->data || !surface_init_valid(r) || len != (size_t)r->rows * r->width * r->block_bytes)
        return -1;
    return finish(&c);
}
