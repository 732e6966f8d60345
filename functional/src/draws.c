/* tbrsim recorder: shaders, draws, primitives, vertices (draws.h). */
#include "draws.h"

#include <stdlib.h>
#include <string.h>

#include "resources.h"
#include "surfaces.h"

void dr_init(struct draw_recorder *dr, struct rec_status *st) { dr->st = st; }

void dr_set_options(struct draw_recorder *dr, int pack_colors, int vertex_hashes, int vertex_positions)
{
    dr->pack_colors = pack_colors;
    dr->vertex_hashes = vertex_hashes;
    /* hashes are coded against the positions' back-references (records.h) */
    dr->vertex_positions = vertex_positions || vertex_hashes;
}

void dr_new_frame(struct draw_recorder *dr)
{
    tbr_idset_clear(&dr->shaders);
    dr->draw_seq = 0;
}

void dr_free(struct draw_recorder *dr)
{
    free(dr->fs_wa);
    dr->fs_wa = NULL;
    dr->nfs_wa = dr->cap_fs_wa = 0;
    tbr_idset_free(&dr->shaders);
    free(dr->groups);
    dr->groups = NULL;
    dr->cap_groups = 0;
    free(dr->vs_fetch);
    free(dr->vs_texel);
    dr->vs_fetch = NULL;
    dr->vs_texel = NULL;
    dr->cap_vs_fetch = dr->cap_vs_texel = 0;
}

static void note_fs_write_all(struct draw_recorder *dr, uint32_t id, int on)
{
    for (uint32_t i = 0; i < dr->nfs_wa; i++)
        if (dr->fs_wa[i].id == id) {
            dr->fs_wa[i].on = on;
            return;
        }
    if (dr->nfs_wa == dr->cap_fs_wa) {
        uint32_t nc = dr->cap_fs_wa ? 2 * dr->cap_fs_wa : 64;
        struct fs_write_all *n = realloc(dr->fs_wa, nc * sizeof(*n));
        if (!n) {
            rec_fail(dr->st, "out of memory (shaders)");
            return;
        }
        dr->fs_wa = n;
        dr->cap_fs_wa = nc;
    }
    dr->fs_wa[dr->nfs_wa++] = (struct fs_write_all){id, on};
}

static int fs_write_all(const struct draw_recorder *dr, uint32_t id)
{
    for (uint32_t i = 0; i < dr->nfs_wa; i++)
        if (dr->fs_wa[i].id == id) return dr->fs_wa[i].on;
    return 0;
}

/* A shader created (SHADER_CREATE), or one about to run whose text this frame lacks
 * (SHADER). cc: computed colors (NULL if off) learn fragment shaders. */
void dr_shader(struct draw_recorder *dr, const struct tbr_hook_shader *s, tbr_computed_colors *cc,
               struct rec_counts *counts, const struct rec_sink *out)
{
    if (s->created) {
        tbr_rec_shader c;
        memset(&c, 0, sizeof(c));
        c.id = s->id;
        c.stage = s->stage;
        c.internal = s->internal ? 1 : 0;
        c.num_tokens = s->num_tokens;
        c.num_instructions = s->num_instructions;
        c.text_len = s->text ? (uint32_t)strlen(s->text) : 0;
        counts->total.shaders_created++;
        tbr_buf *b = sink_buf(out);
        sink_emit(out, TBR_REC_SHADER_CREATE, tbr_rec_shader_create_encode(b, &c));
        return;
    }
    if (tbr_idset_add(&dr->shaders, s->id) < 0) {
        rec_fail(dr->st, "out of memory");
        return;
    }
    tbr_rec_shader r;
    memset(&r, 0, sizeof(r));
    r.id = s->id;
    r.stage = s->stage;
    r.internal = s->internal ? 1 : 0;
    r.num_tokens = s->num_tokens;
    r.num_instructions = s->num_instructions;
    r.parent_id = s->parent_id;
    r.text = s->text;
    r.text_len = s->text ? (uint32_t)strlen(s->text) : 0;
    if (s->stage == TBR_HOOK_STAGE_FS) {
        note_fs_write_all(dr, s->id, s->text && strstr(s->text, "PROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1"));
        if (cc) tbr_cc_shader(cc, s->id, s->text);
    }
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_SHADER, tbr_rec_shader_encode(b, &r));
}

int dr_shader_known(const struct draw_recorder *dr, uint32_t id) { return tbr_idset_has(&dr->shaders, id); }

static void fill_constbufs(tbr_rec_constbuf *o, const struct tbr_hook_constbuf *in)
{
    for (uint32_t i = 0; i < TBR_REC_MAX_CONSTBUFS; i++) {
        o[i].data = in[i].data;
        o[i].size = in[i].data ? in[i].size : 0;
    }
}

/* Bound sampler views of one stage -> record entries (describing their resources);
 * returns the number of entries. */
static uint32_t fill_textures(tbr_rec_texture *o, const struct tbr_hook_texture *in, uint32_t n,
                              struct resource_table *resources, const struct rec_sink *out)
{
    uint32_t nt = 0;
    for (uint32_t i = 0; i < n && i < TBR_HOOK_MAX_TEXTURES; i++) {
        const struct tbr_hook_texture *t = &in[i];
        if (!t->valid) continue;
        res_describe(resources, &t->res, out);
        tbr_rec_texture *e = &o[nt++];
        e->unit = i;
        e->resource_id = t->res.id;
        e->view_format = t->view_format;
        e->first_level = t->first_level;
        e->last_level = t->last_level;
        e->first_layer = t->first_layer;
        e->last_layer = t->last_layer;
        memcpy(e->swizzle, t->swizzle, sizeof(e->swizzle));
        e->has_sampler = t->has_sampler;
        e->wrap_s = t->wrap_s;
        e->wrap_t = t->wrap_t;
        e->wrap_r = t->wrap_r;
        e->min_img_filter = t->min_img_filter;
        e->min_mip_filter = t->min_mip_filter;
        e->mag_img_filter = t->mag_img_filter;
        e->compare_mode = t->compare_mode;
        e->compare_func = t->compare_func;
        e->normalized_coords = t->normalized_coords;
        e->seamless_cube_map = t->seamless_cube_map;
        e->max_anisotropy = t->max_anisotropy;
        e->lod_bias = t->lod_bias;
        e->min_lod = t->min_lod;
        e->max_lod = t->max_lod;
        memcpy(e->border_color, t->border_color, sizeof(e->border_color));
    }
    return nt;
}

/* The DRAW record's scalars are TBR_REC_DRAW_FIELDS; the hook's draw has each of them
 * under the same name except seq (the recorder numbers draws itself), which the probe
 * below skips: DRAW_SKIP_<name> exists only for seq, and DRAW_SKIPPED(name) is 1 there,
 * 0 elsewhere. nr_cbufs is copied, then clamped by the caller. */
#define DRAW_SKIP_seq           ~, 1
#define DRAW_SECOND_(a, b, ...) b
#define DRAW_SECOND(...)        DRAW_SECOND_(__VA_ARGS__)
#define DRAW_SKIPPED(name)      DRAW_SECOND(DRAW_SKIP_##name, 0, ~)
#define DRAW_CAT_(a, b)         a##b
#define DRAW_CAT(a, b)          DRAW_CAT_(a, b)
#define DRAW_COPY_0(name)       r->name = d->name;
#define DRAW_COPY_1(name)
#define DRAW_COPY(name) DRAW_CAT(DRAW_COPY_, DRAW_SKIPPED(name))(name)

/* The draw's state, field by field (r was zeroed; seq, textures and names are set by
 * the caller). */
static void copy_draw_state(tbr_rec_draw *r, const struct tbr_hook_draw *d)
{
    TBR_REC_DRAW_FIELDS(DRAW_COPY, DRAW_COPY)
    r->index_bias = d->index_bias;
    r->nr_cbufs = d->nr_cbufs > TBR_REC_MAX_CBUFS ? TBR_REC_MAX_CBUFS : d->nr_cbufs;
    for (int i = 0; i < 2; i++) {
        r->stencil[i].enabled = d->stencil[i].enabled;
        r->stencil[i].func = d->stencil[i].func;
        r->stencil[i].fail_op = d->stencil[i].fail_op;
        r->stencil[i].zpass_op = d->stencil[i].zpass_op;
        r->stencil[i].zfail_op = d->stencil[i].zfail_op;
        r->stencil[i].valuemask = d->stencil[i].valuemask;
        r->stencil[i].writemask = d->stencil[i].writemask;
        r->stencil[i].ref = d->stencil[i].ref;
    }
    for (uint32_t i = 0; i < TBR_REC_MAX_CBUFS; i++) {
        r->rt[i].blend_enable = d->rt[i].blend_enable;
        r->rt[i].rgb_func = d->rt[i].rgb_func;
        r->rt[i].rgb_src = d->rt[i].rgb_src;
        r->rt[i].rgb_dst = d->rt[i].rgb_dst;
        r->rt[i].alpha_func = d->rt[i].alpha_func;
        r->rt[i].alpha_src = d->rt[i].alpha_src;
        r->rt[i].alpha_dst = d->rt[i].alpha_dst;
        r->rt[i].colormask = d->rt[i].colormask;
    }
    memcpy(r->blend_color, d->blend_color, sizeof(r->blend_color));
    memcpy(r->viewport_scale, d->viewport_scale, sizeof(r->viewport_scale));
    memcpy(r->viewport_translate, d->viewport_translate, sizeof(r->viewport_translate));
    memcpy(r->scissor, d->scissor, sizeof(r->scissor));
    for (uint32_t i = 0; i < r->nr_cbufs; i++) r->cbuf_format[i] = d->cbuf_format[i];
}

/* A draw begins: its DRAW record (RESOURCE records of its textures first), VS_TEXTURES,
 * and the state its quads are recorded with. cc (NULL if off) sets up the draw's
 * computed colors; surfaces gives tbr-sim the textures it samples. */
void dr_begin(struct draw_recorder *dr, const struct tbr_hook_draw *d, tbr_color_shadow *cs, tbr_computed_colors *cc,
              struct surfaces *surfaces, struct resource_table *resources, struct rec_counts *counts, uint64_t frame,
              const struct rec_sink *out)
{
    tbr_rec_draw *r = &dr->rec;
    memset(r, 0, sizeof(*r));
    r->seq = dr->draw_seq++;
    copy_draw_state(r, d);
    r->num_textures = fill_textures(r->textures, d->textures, d->num_textures, resources, out);
    fill_constbufs(r->vs_const, d->vs_const);
    fill_constbufs(r->fs_const, d->fs_const);
    rec_copy_name(r->unsupported, sizeof(r->unsupported), d->unsupported);
    if (d->unsupported && d->unsupported[0]) {
        char tmp[256];
        rec_copy_name(tmp, sizeof(tmp), d->unsupported);
        for (char *tok = strtok(tmp, ","); tok; tok = strtok(NULL, ",")) rec_note_unsupported(dr->st, tok);
    }
    /* vertex texturing (minor 3): RESOURCE records before the DRAW, VS_TEXTURES after it */
    tbr_rec_vs_textures *vt = &dr->vs_tex;
    memset(vt, 0, sizeof(*vt));
    vt->draw_seq = r->seq;
    vt->num_textures = fill_textures(vt->textures, d->vs_textures, d->num_vs_textures, resources, out);
    counts->frame.draws++;
    counts->total.draws++;
    if (d->internal) counts->total.internal_draws++;
    dr->in_draw = 1;
    memset(&dr->end, 0, sizeof(dr->end));
    dr->end.seq = r->seq;
    dr->quads_cbufs = r->nr_cbufs;
    dr->quads_packed = tbr_cs_begin_draw(cs, r, dr->pack_colors);
    dr->write_all = fs_write_all(dr, r->fs_id);
    surf_draw_begins(surfaces);
    if (cc && tbr_cc_begin_draw(cc, d, r->textures, r->num_textures, surfaces->fb_height))
        surf_give_sampled_textures(surfaces, cc, d, frame, out);
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_DRAW, tbr_rec_draw_encode(b, r));
    if (vt->num_textures) {
        b = sink_buf(out);
        sink_emit(out, TBR_REC_VS_TEXTURES, tbr_rec_vs_textures_encode(b, vt));
    }
}

/* The draw ends: returns 1 if one was being recorded (its DRAW_END is then due). */
int dr_leave(struct draw_recorder *dr)
{
    if (!dr->in_draw) return 0;
    dr->in_draw = 0;
    return 1;
}

void dr_emit_end(struct draw_recorder *dr, const struct rec_sink *out)
{
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_DRAW_END, tbr_rec_draw_end_encode(b, &dr->end));
}

void dr_prim(struct draw_recorder *dr, const struct tbr_hook_prim *p, tbr_computed_colors *cc,
             struct rec_counts *counts, const struct rec_sink *out)
{
    tbr_rec_prim *r = &dr->prim;
    r->draw_seq = dr->end.seq;
    r->index = p->index;
    r->kind = p->kind;
    r->flags = p->flags;
    r->det = p->det;
    r->nr_attrs = p->nr_attrs > TBR_REC_MAX_ATTRIBS ? TBR_REC_MAX_ATTRIBS : p->nr_attrs;
    /* Components the fragment shader does not declare are written as 0: softpipe leaves
     * those it was not given (a vec2 varying's z, w) uninitialized, so their bytes
     * changed from replay to replay. Colors are computed from exactly these values. */
    unsigned keep[TBR_REC_MAX_ATTRIBS];
    for (uint32_t a = 0; a < r->nr_attrs; a++) keep[a] = cc ? tbr_cc_attr_components(cc, a) : 0xfu;
    for (uint32_t v = 0; v < p->kind && v < 3; v++)
        for (uint32_t a = 0; a < r->nr_attrs; a++)
            for (int k = 0; k < 4; k++) r->v[v][a][k] = (keep[a] >> k) & 1u ? p->v[v][a][k] : 0.0f;
    dr->end.prims++;
    counts->frame.prims++;
    counts->total.prims++;
    if (p->flags & TBR_HOOK_PRIM_CULLED) counts->total.culled_prims++;
    if (cc) {
        struct tbr_hook_prim as_recorded = *p;
        as_recorded.nr_attrs = r->nr_attrs;
        for (uint32_t v = 0; v < 3; v++) as_recorded.v[v] = (const float(*)[4])r->v[v];
        tbr_cc_prim(cc, &as_recorded);
    }
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_PRIM, tbr_rec_prim_encode(b, r));
}

/* Vertex texturing (minor 3): the run's texels as a VS_TEXELS record right after its
 * VERTICES record. Consecutive texels with the same (group, fetch) are one texture
 * instruction execution on one group; the sampler computes all 4 lanes, texels of
 * lanes beyond the group's vertices (stale inputs, no vertex) are dropped. */
static void vs_texels(struct draw_recorder *dr, const struct tbr_hook_vertices *v, struct rec_counts *counts,
                      const struct rec_sink *out)
{
    uint32_t nfetch = 0, ntexel = 0;
    const struct tbr_hook_texel *t = v->texels;
    if (v->n_texels > dr->cap_vs_texel || v->n_texels > dr->cap_vs_fetch) {
        uint32_t nc = v->n_texels;
        tbr_rec_texfetch *nf = realloc(dr->vs_fetch, nc * sizeof(*nf));
        if (nf) dr->vs_fetch = nf;
        tbr_rec_texel *nt = realloc(dr->vs_texel, nc * sizeof(*nt));
        if (nt) dr->vs_texel = nt;
        if (!nf || !nt) {
            rec_fail(dr->st, "out of memory (vertex texels)");
            return;
        }
        dr->cap_vs_fetch = dr->cap_vs_texel = nc;
    }
    tbr_rec_texfetch *fetch = dr->vs_fetch;
    tbr_rec_texel *texel = dr->vs_texel;
    for (uint32_t i = 0; i < v->n_texels;) {
        uint32_t j = i + 1;
        while (j < v->n_texels && t[j].slot == t[i].slot && t[j].fetch == t[i].fetch &&
               j - i < TBR_REC_MAX_TEXELS_PER_FETCH)
            j++;
        if (t[i].slot < v->n_groups) {
            const uint32_t lanes = v->groups[t[i].slot].n;
            tbr_rec_texfetch *f = &fetch[nfetch];
            f->quad = t[i].slot;
            f->pc = t[i].pc;
            f->unit = t[i].unit;
            f->resource_id = t[i].resource_id;
            f->texels = &texel[ntexel];
            f->n_texels = 0;
            for (uint32_t k = i; k < j; k++) {
                if (t[k].lane >= lanes) continue;
                texel[ntexel++] = (tbr_rec_texel){t[k].lane, t[k].level, t[k].layer, t[k].x, t[k].y};
                f->n_texels++;
            }
            if (f->n_texels) {
                nfetch++;
                counts->frame.vs_texel_fetches++;
                counts->total.vs_texel_fetches++;
                counts->frame.vs_texels += f->n_texels;
                counts->total.vs_texels += f->n_texels;
            }
        }
        i = j;
    }
    if (!nfetch) return;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_VS_TEXELS, tbr_rec_texels_encode(b, dr->vert.draw_seq, fetch, nfetch));
}

/* One draw-module fetch run: its VERTICES record (RESOURCE records of its streams
 * first), then its VS_TEXELS. */
void dr_vertices(struct draw_recorder *dr, const struct tbr_hook_vertices *v, struct resource_table *resources,
                 struct rec_counts *counts, const struct rec_sink *out)
{
    tbr_rec_vertices_header *h = &dr->vert;
    memset(h, 0, sizeof(*h));
    h->draw_seq = dr->end.seq;
    h->vs_id = v->vs_id;
    h->instance_id = v->instance_id;
    h->start_instance = v->start_instance;
    h->num_outputs = v->num_outputs;
    h->position_slot = v->position_slot;
    h->flags = dr->vertex_hashes ? TBR_REC_VERTICES_HASHES : 0;
    if (!dr->vertex_positions) h->flags |= TBR_REC_VERTICES_NO_POSITIONS;
    h->nr_streams = v->nr_streams < TBR_REC_MAX_STREAMS ? v->nr_streams : TBR_REC_MAX_STREAMS;
    for (uint32_t i = 0; i < h->nr_streams; i++) {
        const struct tbr_hook_vertex_stream *s = &v->streams[i];
        res_describe(resources, &s->res, out);
        h->streams[i] = (tbr_rec_vertex_stream){s->res.id, s->buffer_index, s->offset,          s->stride,
                                                s->size,   s->format,       s->instance_divisor};
    }
    h->fetched = v->fetched;
    h->count = v->n_groups;
    if (v->n_groups > dr->cap_groups) {
        uint32_t nc = dr->cap_groups ? dr->cap_groups : 64;
        while (nc < v->n_groups) nc *= 2;
        tbr_rec_vertex_group *ng = realloc(dr->groups, nc * sizeof(*ng));
        if (!ng) {
            rec_fail(dr->st, "out of memory (vertices)");
            return;
        }
        dr->groups = ng;
        dr->cap_groups = nc;
    }
    uint64_t nverts = 0;
    for (uint32_t i = 0; i < v->n_groups; i++) {
        const struct tbr_hook_vertex_group *g = &v->groups[i];
        tbr_rec_vertex_group *o = &dr->groups[i];
        o->path = g->path_id;
        o->n = g->n;
        memcpy(o->index, g->index, sizeof(o->index));
        if (dr->vertex_positions) memcpy(o->pos, g->pos, sizeof(o->pos));
        if (dr->vertex_hashes) memcpy(o->out_hash, g->out_hash, sizeof(o->out_hash));
        nverts += g->n;
    }
    counts->frame.vertices += nverts;
    counts->total.vertices += nverts;
    counts->frame.vertex_groups += v->n_groups;
    counts->total.vertex_groups += v->n_groups;
    counts->frame.vertices_fetched += v->fetched;
    counts->total.vertices_fetched += v->fetched;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_VERTICES, tbr_rec_vertices_encode(b, h, dr->groups));
    if (v->n_texels) vs_texels(dr, v, counts, out);
}

void dr_flush(uint32_t flags, struct rec_counts *counts, const struct rec_sink *out)
{
    tbr_rec_flush r = {.flags = flags};
    counts->total.flushes++;
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_FLUSH, tbr_rec_flush_encode(b, &r));
}

void dr_unsupported(struct rec_status *st, const char *name, const struct rec_sink *out)
{
    rec_note_unsupported(st, name);
    tbr_rec_unsupported r;
    rec_copy_name(r.name, sizeof(r.name), name);
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_UNSUPPORTED, tbr_rec_unsupported_encode(b, &r));
}
