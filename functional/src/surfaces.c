/* tbrsim recorder: render passes, hot start, surface checks, sampled textures
 * (surfaces.h). */
#include "surfaces.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "tbr/records.h"
#include "pixel_formats.h"
#include "sampler.h"

void surf_init(struct surfaces *s, struct rec_status *st)
{
    s->st = st;
    tbr_buf_init(&s->last_pass);
}

void surf_new_frame(struct surfaces *s)
{
    tbr_buf_reset(&s->last_pass);
    s->pass_seq = 0;
    s->pass_nr_cbufs = s->pass_zs_res = s->pass_zs_bits = 0;
}

void surf_free(struct surfaces *s)
{
    tbr_buf_free(&s->last_pass);
    free(s->tex);
    s->tex = NULL;
    s->ntex = s->cap_tex = 0;
    free(s->known);
    s->known = NULL;
    s->nknown = s->cap_known = 0;
}

/* ---- hot start: initial contents of render targets (SURFACE_INIT) ---------- */

/* A recorded window (--frames A-B) starts after fast-forwarded frames that wrote
 * render targets the trace never shows (ATTILA's hot start, issue #3). The first
 * event of a surface in the window tells whether the simulator needs its memory:
 * CLEAR_ALL overwrites every tile before any is read (LOAD_CLEAR/STORE_CLEAR), so
 * no; anything else (a tile LOAD, a depth-only/stencil-only clear that keeps the
 * other component in memory) reads memory nobody in the trace wrote, so its
 * contents are recorded first. At that moment no tile of the surface is in a
 * tile cache (softpipe flushes at every swap and framebuffer change), so memory
 * is the whole truth. Once per surface per trace: from then on the trace's own
 * events account for every write (CPU uploads into a render target excepted:
 * they are not represented, docs/trace-records.md). */
static struct known_surface *find_known(const struct surfaces *s, uint32_t res, uint32_t level, uint32_t layer,
                                        uint32_t is_zs)
{
    for (uint32_t i = 0; i < s->nknown; i++)
        if (s->known[i].resource_id == res && s->known[i].level == level && s->known[i].layer == layer &&
            s->known[i].is_zs == is_zs)
            return &s->known[i];
    return NULL;
}

/* Returns 1 if the surface is seen for the first time (and remembers it). */
static int first_use(struct surfaces *s, uint32_t res, uint32_t level, uint32_t layer, uint32_t is_zs)
{
    if (!res || find_known(s, res, level, layer, is_zs)) return 0;
    if (s->nknown == s->cap_known) {
        uint32_t nc = s->cap_known ? s->cap_known * 2 : 16;
        struct known_surface *nk = realloc(s->known, nc * sizeof(*nk));
        if (!nk) {
            rec_fail(s->st, "out of memory (surfaces)");
            return 0;
        }
        s->known = nk;
        s->cap_known = nc;
    }
    s->known[s->nknown++] = (struct known_surface){res, level, layer, is_zs};
    return 1;
}

/* A surface's memory: its identity, size and mapping. */
struct surface_mem {
    uint32_t res, level, layer, is_zs, format, width, height, block_bytes;
    const void *map;
    uint32_t stride;
};

/* Writes the surface's memory as SURFACE_INIT bands (rows of width * block_bytes).
 * replace (optional, block_bytes entries): bytes of each texel replaced by value[]. */
static void emit_surface_init_masked(struct surfaces *s, const struct surface_mem *m, const uint8_t *replace,
                                     const uint8_t *value, const struct rec_sink *out)
{
    size_t row = (size_t)m->width * m->block_bytes;
    if (!m->map || !m->width || !m->height || !m->block_bytes || m->stride < row) {
        rec_note_unsupported(s->st, "surface_init_unmapped"); /* the simulator starts it from zeros */
        return;
    }
    uint32_t band = (uint32_t)(TBR_REC_SURFACE_INIT_BAND_BYTES / row);
    if (!band) band = 1;
    uint8_t *rows = malloc((size_t)band * row);
    if (!rows) {
        rec_fail(s->st, "out of memory (SURFACE_INIT)");
        return;
    }
    for (uint32_t y0 = 0; y0 < m->height && s->st->ok; y0 += band) {
        uint32_t n = m->height - y0 < band ? m->height - y0 : band;
        for (uint32_t y = 0; y < n; y++) /* drop the row padding */
            memcpy(rows + (size_t)y * row, (const uint8_t *)m->map + (size_t)(y0 + y) * m->stride, row);
        if (replace)
            for (size_t i = 0; i < (size_t)n * row; i++)
                if (replace[i % m->block_bytes]) rows[i] = value[i % m->block_bytes];
        tbr_rec_surface_init r = {
            .resource_id = m->res,
            .level = m->level,
            .layer = m->layer,
            .is_zs = m->is_zs,
            .format = m->format,
            .width = m->width,
            .height = m->height,
            .block_bytes = m->block_bytes,
            .y0 = y0,
            .rows = n,
            .data = rows,
        };
        tbr_buf *b = sink_buf(out);
        sink_emit(out, TBR_REC_SURFACE_INIT, tbr_rec_surface_init_encode(b, &r));
    }
    free(rows);
    s->surface_inits++;
    s->surface_init_bytes += (uint64_t)row * m->height;
}

/* Bytes of a combined depth/stencil texel (little-endian) that hold the stencil; 0 if
 * the format is not one of softpipe's combined formats. */
static int stencil_bytes(const char *format_name, uint8_t mask[8])
{
    memset(mask, 0, 8);
    if (!format_name) return 0;
    if (strcmp(format_name, "PIPE_FORMAT_Z24_UNORM_S8_UINT") == 0)
        mask[3] = 1;
    else if (strcmp(format_name, "PIPE_FORMAT_S8_UINT_Z24_UNORM") == 0)
        mask[0] = 1;
    else if (strcmp(format_name, "PIPE_FORMAT_Z32_FLOAT_S8X24_UINT") == 0)
        mask[4] = 1;
    else
        return 0;
    return 1;
}

/* A tile event: a surface's first one in the window (unless a full clear) gives its
 * memory first; then the TILE record. */
void surf_tile(struct surfaces *s, const struct tbr_hook_tile *t, struct rec_counts *counts, const struct rec_sink *out)
{
    if (first_use(s, t->resource_id, t->level, t->layer, t->is_zs) && t->kind != TBR_HOOK_TILE_CLEAR_ALL) {
        const struct surface_mem m = {t->resource_id, t->level,  t->layer,       t->is_zs, t->format,
                                      t->width,       t->height, t->block_bytes, t->map,   t->stride};
        emit_surface_init_masked(s, &m, NULL, NULL, out);
    }
    tbr_rec_tile r = {
        .kind = t->kind,
        .is_zs = t->is_zs,
        .cbuf = t->cbuf,
        .resource_id = t->resource_id,
        .level = t->level,
        .layer = t->layer,
        .tile_x = t->tile_x,
        .tile_y = t->tile_y,
        .tile_size = t->tile_size,
    };
    counts->total.tiles++;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_TILE, tbr_rec_tile_encode(b, &r));
}

/* SURFACE_CHECK (records minor 4): when a pass binds a color render target that the
 * window has written before and whose tiles no softpipe tile cache holds (its memory is
 * then complete), the crc32 of that memory, for tbr-sim to compare with its own image:
 * render targets that reach the window only through texture sampling are otherwise
 * never checked. */
static void emit_surface_checks(struct surfaces *s, const struct tbr_hook_framebuffer *fb,
                                const struct gl_contexts *contexts, const struct rec_sink *out)
{
    for (uint32_t i = 0; i < fb->nr_cbufs && i < TBR_REC_MAX_CBUFS; i++) {
        const struct tbr_hook_surface *c = &fb->cbufs[i];
        if (!c->valid || !c->map || !c->width || !c->height || !c->res.block_bytes || c->res.block_bytes > 16 ||
            !find_known(s, c->res.id, c->level, c->first_layer, 0) ||
            ctx_color_tiles_held(contexts, c->res.id, c->level, c->first_layer))
            continue;
        uLong crc = crc32(0L, Z_NULL, 0);
        const uint8_t *row = c->map;
        for (uint32_t y = 0; y < c->height; y++, row += c->stride)
            crc = crc32(crc, row, (uInt)(c->width * c->res.block_bytes));
        tbr_rec_surface_check r = {.resource_id = c->res.id,
                                   .level = c->level,
                                   .layer = c->first_layer,
                                   .width = c->width,
                                   .height = c->height,
                                   .block_bytes = c->res.block_bytes,
                                   .crc = (uint32_t)crc};
        s->surface_checks++;
        tbr_buf *b = sink_buf(out);
        sink_emit(out, TBR_REC_SURFACE_CHECK, tbr_rec_surface_check_encode(b, &r));
    }
}

/* CLEAR's depth (1) and stencil (2) bits for the components of a depth/stencil format
 * (softpipe's: Z16, Z24 and Z32 variants, S8 alone or combined). */
static uint32_t zs_component_bits(const char *format_name)
{
    if (!format_name) return 3u;
    uint32_t bits = 0;
    if (strstr(format_name, "Z16") || strstr(format_name, "Z24") || strstr(format_name, "Z32")) bits |= 1u;
    if (strstr(format_name, "S8")) bits |= 2u;
    return bits ? bits : 3u;
}

/* What INVALIDATE records name: the resources the new pass binds, per attachment. */
static void remember_pass_bindings(struct surfaces *s, const struct tbr_hook_framebuffer *fb, uint32_t nr_cbufs)
{
    s->pass_nr_cbufs = nr_cbufs;
    for (uint32_t i = 0; i < nr_cbufs; i++) s->pass_cbuf_res[i] = fb->cbufs[i].valid ? fb->cbufs[i].res.id : 0;
    s->pass_zs_res = fb->zsbuf.valid ? fb->zsbuf.res.id : 0;
    s->pass_zs_bits = fb->zsbuf.valid ? zs_component_bits(fb->zsbuf.res.format_name) : 0;
}

/* The framebuffer binding: the color shadow learns it; a binding that differs from the
 * current pass's (or comes from another GL context) starts a RENDER_PASS. */
void surf_framebuffer(struct surfaces *s, const struct tbr_hook_framebuffer *fb, tbr_color_shadow *cs,
                      struct gl_contexts *contexts, struct resource_table *resources, const struct rec_sink *out)
{
    s->fb_zs = fb->zsbuf;
    s->fb_height = fb->height;
    tbr_cs_set_nr_cbufs(cs, fb->nr_cbufs);
    for (uint32_t i = 0; i < fb->nr_cbufs && i < TBR_REC_MAX_CBUFS; i++) {
        const struct tbr_hook_surface *cb = &fb->cbufs[i];
        /* packed in the view's format only where it is the resource's too: tbr-sim
         * converts with the resource's (RESOURCE record) */
        const int same = cb->format_name && cb->res.format_name && strcmp(cb->format_name, cb->res.format_name) == 0;
        tbr_cs_set_cbuf(cs, i, cb->valid != 0, cb->res.id, cb->level, cb->first_layer, cb->last_layer,
                        same ? cb->format_name : NULL);
    }
    tbr_rec_render_pass rp;
    memset(&rp, 0, sizeof(rp));
    rp.width = fb->width;
    rp.height = fb->height;
    rp.layers = fb->layers;
    rp.samples = fb->samples;
    rp.nr_cbufs = fb->nr_cbufs > TBR_REC_MAX_CBUFS ? TBR_REC_MAX_CBUFS : fb->nr_cbufs;
    const struct tbr_hook_surface *in[TBR_REC_MAX_CBUFS + 1];
    tbr_rec_surface *o[TBR_REC_MAX_CBUFS + 1];
    uint32_t n = 0;
    for (uint32_t i = 0; i < rp.nr_cbufs; i++) {
        in[n] = &fb->cbufs[i];
        o[n++] = &rp.cbufs[i];
    }
    in[n] = &fb->zsbuf;
    o[n++] = &rp.zsbuf;
    for (uint32_t i = 0; i < n; i++) {
        if (!in[i]->valid) continue;
        o[i]->valid = 1;
        o[i]->resource_id = in[i]->res.id;
        o[i]->format = in[i]->format;
        o[i]->level = in[i]->level;
        o[i]->first_layer = in[i]->first_layer;
        o[i]->last_layer = in[i]->last_layer;
        o[i]->width = in[i]->width;
        o[i]->height = in[i]->height;
    }
    rp.is_default = rp.nr_cbufs > 0 && fb->cbufs[0].valid && fb->cbufs[0].res.is_display_target;
    /* Same binding as the current pass, issued by the same GL context? (compare
     * encodings without seq). A switch of context ends the pass even with the same
     * binding: Mesa flushes the old context (its tile caches are stored), as a TBR
     * driver submits and resolves at a context switch. */
    tbr_buf *b = sink_buf(out);
    if (tbr_rec_render_pass_encode(b, &rp) != 0) {
        rec_fail(s->st, "cannot encode a RENDER_PASS record");
        return;
    }
    const void *ctx = ctx_current(contexts);
    int switched = s->last_pass.len > 0 && ctx != s->pass_ctx;
    if (!switched && s->last_pass.len == b->len && memcmp(s->last_pass.data, b->data, b->len) == 0) return;
    if (switched) s->context_switches++;
    s->pass_ctx = ctx;
    tbr_buf_reset(&s->last_pass);
    tbr_buf_put_bytes(&s->last_pass, b->data, b->len);
    for (uint32_t i = 0; i < n; i++)
        if (in[i]->valid) res_describe(resources, &in[i]->res, out);
    rp.seq = s->pass_seq++;
    remember_pass_bindings(s, fb, rp.nr_cbufs);
    b = sink_buf(out);
    sink_emit(out, TBR_REC_RENDER_PASS, tbr_rec_render_pass_encode(b, &rp));
    emit_surface_checks(s, fb, contexts, out);
}

void surf_clear(struct surfaces *s, const struct tbr_hook_clear *c, struct rec_counts *counts,
                const struct rec_sink *out)
{
    tbr_rec_clear r;
    memset(&r, 0, sizeof(r));
    r.buffers = c->buffers;
    memcpy(r.color_f, c->color_f, sizeof(r.color_f));
    memcpy(r.color_ui, c->color_ui, sizeof(r.color_ui));
    r.depth = c->depth;
    r.stencil = c->stencil;
    r.zs_packed = c->zs_packed;
    r.zs_partial = c->zs_partial;
    r.has_scissor = c->has_scissor;
    memcpy(r.scissor, c->scissor, sizeof(r.scissor));
    /* A depth-only or stencil-only clear of a combined buffer keeps the other
     * component of memory: the first such use of the surface needs its contents.
     * softpipe calls the framebuffer hook right before this one (fb_zs is fresh). */
    const struct tbr_hook_surface *zs = &s->fb_zs;
    if (c->zs_partial && zs->valid && first_use(s, zs->res.id, zs->level, zs->first_layer, 1)) {
        /* The component being cleared is recorded as its cleared value (the clear that
         * follows writes it anyway): glmark2-style depth-only clears then leave a
         * uniform, nearly free record instead of the previous frame's depth. */
        uint8_t st[8], replace[8], value[8];
        int known = stencil_bytes(zs->res.format_name, st) && zs->res.block_bytes <= 8;
        for (int i = 0; i < 8; i++) {
            int stencil = st[i];
            replace[i] = (uint8_t)(known && ((c->buffers & 1u) ? !stencil : stencil) &&
                                   (stencil || i < 4)); /* Z32F_S8X24: bytes 5-7 unused */
            value[i] = (uint8_t)(c->zs_packed >> (8 * i));
        }
        const struct surface_mem m = {zs->res.id, zs->level,  zs->first_layer,     1,       zs->res.format,
                                      zs->width,  zs->height, zs->res.block_bytes, zs->map, zs->stride};
        emit_surface_init_masked(s, &m, known ? replace : NULL, value, out);
    }
    /* softpipe then writes the cleared component into memory (util_clear_depth_stencil
     * maps the surface): that transfer's UPLOAD belongs to this clear */
    s->zs_clear_write_res = c->zs_partial && zs->valid ? zs->res.id + 1 : 0;
    counts->frame.clears++;
    counts->total.clears++;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_CLEAR, tbr_rec_clear_encode(b, &r));
}

/* ---- sampled textures for computed colors --------------------------------- */
/* tbr-sim computes a quad's colors from the memory of the textures it samples. It
 * holds render targets it rendered itself (and those SURFACE_INIT gave it); any
 * other sampled level (CPU uploads, or contents from before the recorded window) is
 * given to it as SURFACE_INIT bands before the first draw that samples it, and again
 * after every upload into it. */
static struct tex_known *find_tex(struct surfaces *s, uint32_t res, uint32_t level, uint32_t layer)
{
    for (uint32_t i = 0; i < s->ntex; i++)
        if (s->tex[i].resource_id == res && s->tex[i].level == level && s->tex[i].layer == layer) return &s->tex[i];
    return NULL;
}

static struct tex_known *get_tex(struct surfaces *s, uint32_t res, uint32_t level, uint32_t layer)
{
    struct tex_known *t = find_tex(s, res, level, layer);
    if (t) return t;
    if (s->ntex == s->cap_tex) {
        uint32_t nc = s->cap_tex ? 2 * s->cap_tex : 32;
        struct tex_known *n = realloc(s->tex, nc * sizeof(*n));
        if (!n) return NULL;
        s->tex = n;
        s->cap_tex = nc;
    }
    t = &s->tex[s->ntex++];
    memset(t, 0, sizeof(*t));
    t->resource_id = res;
    t->level = level;
    t->layer = layer;
    t->pass_sampled = UINT32_MAX;
    return t;
}

/* A CPU write into (res, level): the simulator's copy, if any, is stale. */
static void texture_written(struct surfaces *s, uint32_t res, uint32_t level)
{
    for (uint32_t i = 0; i < s->ntex; i++)
        if (s->tex[i].resource_id == res && s->tex[i].level == level) {
            s->tex[i].given = 0;
            s->tex[i].dirty = 1;
        }
    if (!find_tex(s, res, level, 0)) {
        struct tex_known *t = get_tex(s, res, level, 0);
        if (t) t->dirty = 1;
    }
}

void surf_upload(struct surfaces *s, const struct tbr_hook_upload *u, struct resource_table *resources,
                 struct rec_counts *counts, const struct rec_sink *out)
{
    res_describe(resources, &u->res, out);
    tbr_rec_upload r;
    memset(&r, 0, sizeof(r));
    r.resource_id = u->res.id;
    r.level = u->level;
    memcpy(r.box, u->box, sizeof(r.box));
    r.bytes = u->bytes;
    /* softpipe's tile-cache write-back is rendering the trace shows (tile events),
     * not new contents the simulator lacks */
    if (!(u->flags & TBR_HOOK_UPLOAD_TILE_CACHE)) texture_written(s, u->res.id, u->level);
    if (s->zs_clear_write_res && s->zs_clear_write_res == u->res.id + 1) {
        r.flags = TBR_REC_UPLOAD_CLEAR_WRITE;
        s->clear_writes++;
    } else {
        counts->total.uploads++;
        counts->total.upload_bytes += u->bytes;
    }
    s->zs_clear_write_res = 0;
    if (u->flags & TBR_HOOK_UPLOAD_TILE_CACHE) r.flags |= TBR_REC_UPLOAD_TILE_CACHE;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_UPLOAD, tbr_rec_upload_encode(b, &r));
}

/* The record says which attachments of the current pass the resource is: tbr-sim then
 * skips their tile stores at the pass's end unless the pass writes them again
 * (docs/trace-records.md INVALIDATE). Mesa calls it in API order, before the tile stores
 * of the framebuffer change that ends the pass. */
void surf_invalidate(struct surfaces *s, const struct tbr_hook_resource *res, struct resource_table *resources,
                     const struct rec_sink *out)
{
    res_describe(resources, res, out);
    tbr_rec_invalidate r = {.resource_id = res->id, .buffers = 0};
    if (res->id && s->pass_zs_res == res->id) r.buffers |= s->pass_zs_bits;
    for (uint32_t i = 0; i < s->pass_nr_cbufs; i++)
        if (res->id && s->pass_cbuf_res[i] == res->id) r.buffers |= 4u << i;
    s->invalidations++;
    if (r.buffers) s->invalidations_bound++;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_INVALIDATE, tbr_rec_invalidate_encode(b, &r));
}

/* A draw begins: a partial zs clear's write is no longer pending. */
void surf_draw_begins(struct surfaces *s) { s->zs_clear_write_res = 0; }

/* Gives tbr-sim the memory of every level the computed-colors draw samples that it does
 * not hold (SURFACE_INIT); disables the draw's computation where that is impossible.
 * frame: the swap count (a texture is sampled at most per pass of a frame). */
/* The layers of texture t a computed draw can sample: every array layer or cube face of
 * the view for layered targets (fs_quad.c tbr_fs_view_computable), else the view's one. */
static void sampled_layers(const struct tbr_hook_texture *t, uint32_t *first, uint32_t *end)
{
    const uint32_t target = t->res.target; /* enum pipe_texture_target: 4 cube, 7 2D array, 8 cube array */
    const int layered = target == 4 || target == 7 || target == 8;
    *first = t->first_layer;
    *end = layered ? t->last_layer + 1 : t->first_layer + 1;
}

/* Gives tbr-sim level l, layer `layer` of texture t (SURFACE_INIT) unless it holds it;
 * 0 if the draw can still be computed, -1 if it was disabled. */
static int give_texture_layer(struct surfaces *s, tbr_computed_colors *cc, const struct tbr_hook_texture *t, uint32_t l,
                              uint32_t layer, uint64_t frame, const struct rec_sink *out)
{
    struct tex_known *tk = find_tex(s, t->res.id, l, layer);
    if (!tk) {
        /* CPU writes are tracked per level (texture_written marks the layers known then
         * and layer 0): a layer first seen here after one may be stale, so it is given */
        const int maybe_written = layer > 0 && find_tex(s, t->res.id, l, 0) != NULL;
        tk = get_tex(s, t->res.id, l, layer);
        if (tk && maybe_written) tk->dirty = 1;
    }
    if (!tk) {
        tbr_cc_disable_draw(cc, "out of memory (textures)");
        return -1;
    }
    /* rendered in the trace (its tile events are accounted for) and not written by the
     * CPU since: the simulator has it, if it renders the format (not sRGB, for one:
     * then what the trace rendered into it is given again in each pass that samples it) */
    const int rendered = find_known(s, t->res.id, l, layer, 0) || find_known(s, t->res.id, l, layer, 1);
    const int sim_renders = tbr_format_get_info(tbr_format_from_name(t->res.format_name)) != NULL;
    const int this_pass = tk->pass_sampled == s->pass_seq && tk->frame_sampled == (uint32_t)frame;
    const int has = sim_renders ? tk->given || (!tk->dirty && rendered) : tk->given && (!rendered || this_pass);
    if (!has) {
        /* a SURFACE_INIT applies from the start of its pass: not if an earlier
         * draw of this pass sampled other contents of it */
        if (this_pass) {
            tbr_cc_disable_draw(cc, "texture changed within a render pass");
            return -1;
        }
        uint32_t w = t->res.width >> l, h = t->res.height >> l;
        w = w ? w : 1;
        h = h ? h : 1;
        const uint8_t *map = (const uint8_t *)t->data + t->level_offset[l] + (size_t)layer * t->img_stride[l];
        const uint64_t before = s->surface_inits, before_bytes = s->surface_init_bytes;
        const struct surface_mem m = {
            t->res.id, l, layer, 0, t->res.format, w, h, t->res.block_bytes, t->data ? map : NULL, t->stride[l]};
        emit_surface_init_masked(s, &m, NULL, NULL, out);
        if (s->surface_inits == before) {
            tbr_cc_disable_draw(cc, "texture memory unavailable");
            return -1;
        }
        /* counted apart from the hot-start SURFACE_INITs of render targets */
        s->surface_inits = before;
        s->surface_init_bytes = before_bytes;
        s->texture_inits++;
        s->texture_init_bytes += (uint64_t)w * h * t->res.block_bytes;
        tk->given = 1;
        tk->dirty = 0;
    }
    tk->pass_sampled = s->pass_seq;
    tk->frame_sampled = (uint32_t)frame;
    return 0;
}

/* Gives tbr-sim the memory of every level (and layer) the computed-colors draw samples
 * that it does not hold (SURFACE_INIT); disables the draw's computation where that is
 * impossible. frame: the swap count (a texture is sampled at most per pass of a frame). */
void surf_give_sampled_textures(struct surfaces *s, tbr_computed_colors *cc, const struct tbr_hook_draw *d,
                                uint64_t frame, const struct rec_sink *out)
{
    const uint32_t *units;
    uint32_t n = tbr_cc_draw_units(cc, &units);
    for (uint32_t k = 0; k < n; k++) {
        const struct tbr_hook_texture *t = &d->textures[units[k]];
        uint32_t first, end;
        sampled_layers(t, &first, &end);
        for (uint32_t l = tbr_sampler_lowest_level(t->first_level); l <= t->last_level && l < t->num_levels; l++)
            for (uint32_t layer = first; layer < end; layer++)
                if (give_texture_layer(s, cc, t, l, layer, frame, out) != 0) return;
    }
}
