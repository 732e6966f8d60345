/* tbr-dump's text of each record type (record_print.h): the print entries of the record
 * table (tbr/record_table.h). */
#include "record_print.h"

#include <inttypes.h>
#include <string.h>

void tbr_rec_print_text_block(FILE *out, const char *text, size_t len, const char *indent)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && text[j] != '\n') j++;
        fprintf(out, "%s%.*s\n", indent, (int)(j - i), text + i);
        i = j + 1;
    }
}

static void print_surface(FILE *out, const char *name, const tbr_rec_surface *s)
{
    if (!s->valid) {
        fprintf(out, "      %s: none\n", name);
        return;
    }
    fprintf(out,
            "      %s: resource=%" PRIu32 " format=%" PRIu32 " level=%" PRIu32 " layers=%" PRIu32 "-%" PRIu32
            " %" PRIu32 "x%" PRIu32 "\n",
            name, s->resource_id, s->format, s->level, s->first_layer, s->last_layer, s->width, s->height);
}

static void print_quad_flags(FILE *out, uint32_t f)
{
    static const char *names[] = {"HAS_Z", "SHADED", "SHADE_OUT", "DEPTH_OUT", "BLENDED", "FACING_BACK"};
    int first = 1;
    for (int i = 0; i < 6; i++)
        if (f & (1u << i)) {
            fprintf(out, "%s%s", first ? "" : "|", names[i]);
            first = 0;
        }
    if (first) fprintf(out, "0");
}

static void print_textures(FILE *out, const tbr_rec_texture *tex, uint32_t n)
{
    for (uint32_t i = 0; i < n && i < TBR_REC_MAX_TEXTURES; i++) {
        const tbr_rec_texture *t = &tex[i];
        fprintf(out,
                "      texture unit %" PRIu32 ": resource=%" PRIu32 " format=%" PRIu32 " levels=%" PRIu32 "-%" PRIu32
                " wrap=%" PRIu32 ",%" PRIu32 ",%" PRIu32 " filter min=%" PRIu32 " mip=%" PRIu32 " mag=%" PRIu32
                " aniso=%" PRIu32 "\n",
                t->unit, t->resource_id, t->view_format, t->first_level, t->last_level, t->wrap_s, t->wrap_t, t->wrap_r,
                t->min_img_filter, t->min_mip_filter, t->mag_img_filter, t->max_anisotropy);
    }
}

static void print_draw_rec(FILE *out, const tbr_rec_draw *d, int verbose)
{
    fprintf(out,
            " seq=%" PRIu32 " mode=%" PRIu32 " start=%" PRIu32 " count=%" PRIu32 " instances=%" PRIu32
            " index_size=%" PRIu32 " vs=%" PRIu32 " fs=%" PRIu32 " internal=%" PRIu32 " early_z=%" PRIu32
            " depth=%" PRIu32 "/%" PRIu32 " func=%" PRIu32 " blend0=%" PRIu32 " cbufs=%" PRIu32 " textures=%" PRIu32
            "%s%s\n",
            d->seq, d->mode, d->start, d->count, d->instance_count, d->index_size, d->vs_id, d->fs_id, d->internal,
            d->early_z, d->depth_enabled, d->depth_writemask, d->depth_func, d->rt[0].blend_enable, d->nr_cbufs,
            d->num_textures, d->unsupported[0] ? " unsupported=" : "", d->unsupported);
    if (!verbose) return;
#define PX_(name) fprintf(out, "      %s=%" PRIu32 "\n", #name, d->name);
#define PF_(name) fprintf(out, "      %s=%.9g\n", #name, (double)d->name);
    TBR_REC_DRAW_FIELDS(PX_, PF_)
#undef PX_
#undef PF_
    fprintf(out, "      index_bias=%" PRId32 "\n", d->index_bias);
    for (int i = 0; i < 2; i++) {
        const tbr_rec_stencil *s = &d->stencil[i];
        fprintf(out,
                "      stencil[%d]: enabled=%" PRIu32 " func=%" PRIu32 " fail=%" PRIu32 " zpass=%" PRIu32
                " zfail=%" PRIu32 " valuemask=0x%" PRIx32 " writemask=0x%" PRIx32 " ref=%" PRIu32 "\n",
                i, s->enabled, s->func, s->fail_op, s->zpass_op, s->zfail_op, s->valuemask, s->writemask, s->ref);
    }
    for (uint32_t i = 0; i < d->nr_cbufs && i < TBR_REC_MAX_CBUFS; i++) {
        const tbr_rec_rt_blend *b = &d->rt[i];
        fprintf(out,
                "      rt[%" PRIu32 "]: format=%" PRIu32 " blend=%" PRIu32 " rgb=%" PRIu32 "(%" PRIu32 ",%" PRIu32
                ") alpha=%" PRIu32 "(%" PRIu32 ",%" PRIu32 ") colormask=0x%" PRIx32 "\n",
                i, d->cbuf_format[i], b->blend_enable, b->rgb_func, b->rgb_src, b->rgb_dst, b->alpha_func, b->alpha_src,
                b->alpha_dst, b->colormask);
    }
    fprintf(out, "      blend_color=(%g,%g,%g,%g)\n", (double)d->blend_color[0], (double)d->blend_color[1],
            (double)d->blend_color[2], (double)d->blend_color[3]);
    fprintf(out, "      viewport scale=(%g,%g,%g) translate=(%g,%g,%g)\n", (double)d->viewport_scale[0],
            (double)d->viewport_scale[1], (double)d->viewport_scale[2], (double)d->viewport_translate[0],
            (double)d->viewport_translate[1], (double)d->viewport_translate[2]);
    fprintf(out, "      scissor=(%" PRIu32 ",%" PRIu32 ")-(%" PRIu32 ",%" PRIu32 ")\n", d->scissor[0], d->scissor[1],
            d->scissor[2], d->scissor[3]);
    print_textures(out, d->textures, d->num_textures);
    for (int i = 0; i < (int)TBR_REC_MAX_CONSTBUFS; i++) {
        if (d->vs_const[i].size) fprintf(out, "      vs_const[%d]: %" PRIu32 " bytes\n", i, d->vs_const[i].size);
        if (d->fs_const[i].size) fprintf(out, "      fs_const[%d]: %" PRIu32 " bytes\n", i, d->fs_const[i].size);
    }
}

void tbr_rec_print_frame_end(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    (void)verbose;
    const tbr_rec_frame_end r = d->u.frame_end;
    fprintf(out,
            " frame=%" PRIu64 " %" PRIu32 "x%" PRIu32 " draws=%" PRIu64 " prims=%" PRIu64 " clears=%" PRIu64
            " quads=%" PRIu64 " shaded_quads=%" PRIu64 " shaded_fragments=%" PRIu64 " png=%s\n",
            r.frame, r.width, r.height, r.draws, r.prims, r.clears, r.quads, r.shaded_quads, r.shaded_fragments,
            r.png[0] ? r.png : "-");
}

void tbr_rec_print_resource(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    (void)verbose;
    const tbr_rec_resource *r = &d->u.resource;
    fprintf(out,
            " id=%" PRIu32 " target=%" PRIu32 " %s (%" PRIu32 ") %" PRIu32 "x%" PRIu32 "x%" PRIu32 " array=%" PRIu32
            " levels=0-%" PRIu32 " samples=%" PRIu32 " bind=0x%" PRIx32 " block_bytes=%" PRIu32 " display=%" PRIu32
            "\n",
            r->id, r->target, r->format_name, r->format, r->width, r->height, r->depth, r->array_size, r->last_level,
            r->nr_samples, r->bind, r->block_bytes, r->is_display_target);
}

void tbr_rec_print_upload(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    (void)verbose;
    const tbr_rec_upload *r = &d->u.upload;
    fprintf(out,
            " resource=%" PRIu32 " level=%" PRIu32 " box=(%" PRId32 ",%" PRId32 ",%" PRId32 " %" PRId32 "x%" PRId32
            "x%" PRId32 ") bytes=%" PRIu64 "\n",
            r->resource_id, r->level, r->box[0], r->box[1], r->box[2], r->box[3], r->box[4], r->box[5], r->bytes);
    if (r->flags & TBR_REC_UPLOAD_CLEAR_WRITE)
        fprintf(out, "      (the preceding CLEAR's memory write, not an application upload)\n");
    if (r->flags & TBR_REC_UPLOAD_TILE_CACHE)
        fprintf(out, "      (softpipe's tile cache writing rendered tiles back, not an application upload)\n");
}

static const char *stage_name(uint32_t stage)
{
    return stage == TBR_REC_STAGE_VS ? "VS" : stage == TBR_REC_STAGE_FS ? "FS" : "?";
}

/* SHADER_CREATE and SHADER */
void tbr_rec_print_shader(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    (void)verbose;
    const tbr_rec_shader *r = &d->u.shader;
    fprintf(out,
            " id=%" PRIu32 " stage=%s internal=%" PRIu32 " tokens=%" PRIu32 " instructions=%" PRIu32
            " text_len=%" PRIu32,
            r->id, stage_name(r->stage), r->internal, r->num_tokens, r->num_instructions, r->text_len);
    if (d->type == TBR_REC_SHADER) {
        fprintf(out, " parent=%" PRIu32 "\n", r->parent_id);
        if (r->text) tbr_rec_print_text_block(out, r->text, r->text_len, "      | ");
    } else {
        fprintf(out, "\n");
    }
}

void tbr_rec_print_render_pass(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    (void)verbose;
    const tbr_rec_render_pass *r = &d->u.render_pass;
    fprintf(out,
            " seq=%" PRIu32 " %" PRIu32 "x%" PRIu32 " layers=%" PRIu32 " samples=%" PRIu32 " default=%" PRIu32
            " cbufs=%" PRIu32 "\n",
            r->seq, r->width, r->height, r->layers, r->samples, r->is_default, r->nr_cbufs);
    for (uint32_t i = 0; i < r->nr_cbufs && i < TBR_REC_MAX_CBUFS; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "cbuf[%" PRIu32 "]", i);
        print_surface(out, nm, &r->cbufs[i]);
    }
    print_surface(out, "zsbuf", &r->zsbuf);
}

void tbr_rec_print_clear(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    (void)verbose;
    const tbr_rec_clear *r = &d->u.clear;
    fprintf(out,
            " buffers=0x%" PRIx32 " color=(%g,%g,%g,%g) depth=%g stencil=%" PRIu32 " zs_partial=%" PRIu32
            " scissor=%" PRIu32 "\n",
            r->buffers, (double)r->color_f[0], (double)r->color_f[1], (double)r->color_f[2], (double)r->color_f[3],
            r->depth, r->stencil, r->zs_partial, r->has_scissor);
}

void tbr_rec_print_draw(FILE *out, const tbr_rec_decoded *d, int verbose) { print_draw_rec(out, &d->u.draw, verbose); }

void tbr_rec_print_draw_end(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    (void)verbose;
    const tbr_rec_draw_end *r = &d->u.draw_end;
    fprintf(out,
            " seq=%" PRIu32 " prims=%" PRIu64 " quads=%" PRIu64 " shaded_quads=%" PRIu64 " shaded_fragments=%" PRIu64
            " blended_fragments=%" PRIu64 "\n",
            r->seq, r->prims, r->quads, r->shaded_quads, r->shaded_fragments, r->blended_fragments);
}

void tbr_rec_print_prim(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    const tbr_rec_prim *r = &d->u.prim;
    fprintf(out, " draw=%" PRIu32 " index=%" PRIu32 " kind=%s%s det=%g attrs=%" PRIu32, r->draw_seq, r->index,
            r->kind == 1   ? "point"
            : r->kind == 2 ? "line"
            : r->kind == 3 ? "triangle"
                           : "?",
            (r->flags & TBR_REC_PRIM_CULLED) ? " CULLED" : "", (double)r->det, r->nr_attrs);
    for (uint32_t v = 0; v < r->kind && v < 3; v++)
        fprintf(out, " (%g,%g,%g)", (double)r->v[v][0][0], (double)r->v[v][0][1], (double)r->v[v][0][2]);
    fprintf(out, "\n");
    if (verbose)
        for (uint32_t v = 0; v < r->kind && v < 3; v++)
            for (uint32_t a = 0; a < r->nr_attrs && a < TBR_REC_MAX_ATTRIBS; a++)
                fprintf(out, "      v%" PRIu32 ".attr%" PRIu32 " = (%g, %g, %g, %g)\n", v, a, (double)r->v[v][a][0],
                        (double)r->v[v][a][1], (double)r->v[v][a][2], (double)r->v[v][a][3]);
}

/* -v: the values a blended quad carries per color buffer and fragment */
static void print_quad_colors(FILE *out, const tbr_rec_quads_header *h, const tbr_rec_quad *q)
{
    for (uint32_t cb = 0; cb < h->nr_cbufs; cb++)
        for (int j = 0; j < 4; j++) {
            if (!(q->blend_mask & (1u << j))) continue;
            if (h->computed && ((h->packed_mask & (1u << cb)) || !q->exact_mask[cb]))
                continue; /* no values: functional/reference recomputes them */
            if (h->packed_mask & (1u << cb)) {
                fprintf(out, "        cbuf%" PRIu32 " frag%d pixel=0x%08" PRIx32 "\n", cb, j, q->packed[cb][j]);
                continue;
            }
            if (h->computed)
                fprintf(out, "        cbuf%" PRIu32 " frag%d rgba=computed", cb, j);
            else
                fprintf(out, "        cbuf%" PRIu32 " frag%d rgba=(%g,%g,%g,%g)", cb, j, (double)q->color[cb][0][j],
                        (double)q->color[cb][1][j], (double)q->color[cb][2][j], (double)q->color[cb][3][j]);
            const uint32_t em = (q->exact_mask[cb] >> (4 * j)) & 0xfu;
            if (em) {
                fprintf(out, " exact_dst=(");
                for (int ch = 0; ch < 4; ch++) {
                    if (em & (1u << ch))
                        fprintf(out, "%s%g", ch ? "," : "", (double)q->exact[cb][ch][j]);
                    else
                        fprintf(out, "%s-", ch ? "," : "");
                }
                fprintf(out, ")");
            }
            fprintf(out, "\n");
        }
}

void tbr_rec_print_quads(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    const tbr_rec_quads_header *h = &d->u.quads.h;
    fprintf(out, " draw=%" PRIu32 " cbufs=%" PRIu32 " count=%" PRIu32, h->draw_seq, h->nr_cbufs, h->count);
    if (h->packed_mask) fprintf(out, " packed=%#" PRIx32, h->packed_mask);
    if (h->computed) fprintf(out, " colors=computed");
    if (h->texels_derived) fprintf(out, " texels=derived");
    if (h->depths_derived) fprintf(out, " depths=derived");
    fprintf(out, "\n");
    const uint32_t n = tbr_rec_items(d);
    for (uint32_t i = 0; i < n; i++) {
        const tbr_rec_quad *q = &d->u.quads.q[i];
        fprintf(out, "      (%" PRId32 ",%" PRId32 ") prim=%" PRIu32 " flags=", q->x, q->y, q->prim);
        print_quad_flags(out, q->flags);
        if (q->flags & TBR_REC_QUAD_SHADED) fprintf(out, " path=%" PRIu32, q->path);
        fprintf(out, " in=%" PRIx32 " depth=%" PRIx32 " shade=%" PRIx32 " blend=%" PRIx32, q->in_mask, q->depth_mask,
                q->shade_mask, q->blend_mask);
        if ((q->flags & TBR_REC_QUAD_HAS_Z) && h->depths_derived)
            fprintf(out, " z=derived");
        else if (q->flags & TBR_REC_QUAD_HAS_Z)
            fprintf(out, " z=%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32, q->z[0], q->z[1], q->z[2], q->z[3]);
        fprintf(out, "\n");
        if (verbose && (q->flags & TBR_REC_QUAD_BLENDED)) print_quad_colors(out, h, q);
    }
}

static const char *tile_kind_name(uint32_t k)
{
    switch (k) {
        case TBR_REC_TILE_LOAD: return "LOAD";
        case TBR_REC_TILE_LOAD_CLEAR: return "LOAD_CLEAR";
        case TBR_REC_TILE_STORE: return "STORE";
        case TBR_REC_TILE_STORE_CLEAR: return "STORE_CLEAR";
        case TBR_REC_TILE_CLEAR_ALL: return "CLEAR_ALL";
        default: return "?";
    }
}

void tbr_rec_print_tile(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    (void)verbose;
    const tbr_rec_tile *r = &d->u.tile;
    fprintf(out,
            " %s %s cbuf=%" PRIu32 " resource=%" PRIu32 " level=%" PRIu32 " layer=%" PRIu32 " tile=(%" PRIu32
            ",%" PRIu32 ") size=%" PRIu32 "\n",
            tile_kind_name(r->kind), r->is_zs ? "zs" : "color", r->cbuf, r->resource_id, r->level, r->layer, r->tile_x,
            r->tile_y, r->tile_size);
}

void tbr_rec_print_flush(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    (void)verbose;
    fprintf(out, " flags=0x%" PRIx32 "\n", d->u.flush.flags);
}

void tbr_rec_print_unsupported(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    (void)verbose;
    fprintf(out, " name=%s\n", d->u.unsupported.name);
}

void tbr_rec_print_path(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    const tbr_rec_path *r = &d->u.path;
    fprintf(out, " id=%" PRIu32 " shader=%" PRIu32 " stage=%s truncated=%" PRIu32 " n=%" PRIu32 "\n", r->id,
            r->shader_id, stage_name(r->stage), r->truncated, r->n);
    if (verbose) {
        for (uint32_t i = 0; i < r->n; i++)
            fprintf(out, "      pc=%u mask=%x\n", (unsigned)tbr_rec_path_pc(r, i), (unsigned)tbr_rec_path_mask(r, i));
    } else if (r->n) {
        /* compact: pc:mask, up to 32 entries */
        fprintf(out, "      pc:mask");
        for (uint32_t i = 0; i < r->n && i < 32; i++)
            fprintf(out, " %u:%x", (unsigned)tbr_rec_path_pc(r, i), (unsigned)tbr_rec_path_mask(r, i));
        if (r->n > 32) fprintf(out, " ... (%" PRIu32 " more; -v shows all)", r->n - 32);
        fprintf(out, "\n");
    }
}

void tbr_rec_print_vs_textures(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    (void)verbose;
    const tbr_rec_vs_textures *r = &d->u.vs_textures;
    fprintf(out, " draw=%" PRIu32 " textures=%" PRIu32 "\n", r->draw_seq, r->num_textures);
    print_textures(out, r->textures, r->num_textures);
}

/* -v: a fetch's texels per lane in read order, "L<level>/<layer>:" when they change */
static void print_fetch_texels(FILE *out, const tbr_rec_texfetch *f, const uint32_t per_lane[4])
{
    for (uint32_t lane = 0; lane < 4; lane++) {
        if (!per_lane[lane]) continue;
        fprintf(out, "        lane %" PRIu32 ":", lane);
        uint32_t cl = UINT32_MAX, cz = UINT32_MAX;
        for (uint32_t k = 0; k < f->n_texels; k++) {
            const tbr_rec_texel *t = &f->texels[k];
            if (t->lane != lane) continue;
            if (t->level != cl || t->layer != cz) {
                fprintf(out, " L%" PRIu32 "/%" PRIu32 ":", t->level, t->layer);
                cl = t->level;
                cz = t->layer;
            }
            fprintf(out, " (%" PRId32 ",%" PRId32 ")", t->x, t->y);
        }
        fprintf(out, "\n");
    }
}

/* TEXELS and VS_TEXELS (same payload; VS_TEXELS: "quad" is the group of the preceding
 * VERTICES record) */
void tbr_rec_print_texels(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    const char *unit_name = d->type == TBR_REC_VS_TEXELS ? "group" : "quad";
    const tbr_rec_texels_header *h = &d->u.texels.h;
    fprintf(out, " draw=%" PRIu32 " fetches=%" PRIu32 "\n", h->draw_seq, h->count);
    const uint32_t n = tbr_rec_items(d);
    for (uint32_t i = 0; i < n; i++) {
        const tbr_rec_texfetch *f = &d->u.texels.f[i];
        uint32_t per_lane[4] = {0, 0, 0, 0}, lo = UINT32_MAX, hi = 0;
        for (uint32_t k = 0; k < f->n_texels; k++) {
            per_lane[f->texels[k].lane & 3]++;
            if (f->texels[k].level < lo) lo = f->texels[k].level;
            if (f->texels[k].level > hi) hi = f->texels[k].level;
        }
        fprintf(out,
                "      %s=%" PRIu32 " pc=%" PRIu32 " unit=%" PRIu32 " resource=%" PRIu32 " texels=%" PRIu32
                " per_lane=%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32,
                unit_name, f->quad, f->pc, f->unit, f->resource_id, f->n_texels, per_lane[0], per_lane[1], per_lane[2],
                per_lane[3]);
        if (f->n_texels) fprintf(out, lo == hi ? " level=%" PRIu32 : " levels=%" PRIu32, lo);
        if (f->n_texels && lo != hi) fprintf(out, "-%" PRIu32, hi);
        fprintf(out, "\n");
        if (verbose) print_fetch_texels(out, f, per_lane);
    }
}

void tbr_rec_print_vertices(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    const tbr_rec_vertices_header *h = d->u.vertices.h;
    fprintf(out, " draw=%" PRIu32 " vs=%" PRIu32 " instance=%" PRIu32 " start_instance=%" PRIu32 " outputs=%" PRIu32,
            h->draw_seq, h->vs_id, h->instance_id, h->start_instance, h->num_outputs);
    if (h->position_slot == UINT32_MAX)
        fprintf(out, " position=none");
    else
        fprintf(out, " position=OUT[%" PRIu32 "]", h->position_slot);
    const int hashes = (h->flags & TBR_REC_VERTICES_HASHES) != 0;
    const int positions = !(h->flags & TBR_REC_VERTICES_NO_POSITIONS);
    fprintf(out, " streams=%" PRIu32 " fetched=%" PRIu32 " groups=%" PRIu32 "%s hashes=%s\n", h->nr_streams, h->fetched,
            h->count, positions ? "" : " positions=no", hashes ? "yes" : "no");
    for (uint32_t i = 0; i < h->nr_streams && i < TBR_REC_MAX_STREAMS; i++) {
        const tbr_rec_vertex_stream *st = &h->streams[i];
        fprintf(out,
                "      stream[%" PRIu32 "] resource=%" PRIu32 "%s buffer=%" PRIu32 " offset=%" PRIu32 " stride=%" PRIu32
                " size=%" PRIu32 " format=%" PRIu32 " divisor=%" PRIu32 "\n",
                i, st->resource_id, st->resource_id ? "" : "(user memory)", st->buffer_index, st->offset, st->stride,
                st->size, st->format, st->instance_divisor);
    }
    const uint32_t n = tbr_rec_items(d);
    for (uint32_t i = 0; i < n; i++) {
        const tbr_rec_vertex_group *g = &d->u.vertices.g[i];
        fprintf(out, "      group path=%" PRIu32 " n=%" PRIu32 " index=", g->path, g->n);
        for (uint32_t j = 0; j < g->n && j < 4; j++) fprintf(out, "%s%" PRIu32, j ? "," : "", g->index[j]);
        fprintf(out, "\n");
        if (verbose && positions)
            for (uint32_t j = 0; j < g->n && j < 4; j++) {
                fprintf(out, "        index %" PRIu32 " pos=(%g,%g,%g,%g)", g->index[j], (double)g->pos[j][0],
                        (double)g->pos[j][1], (double)g->pos[j][2], (double)g->pos[j][3]);
                if (hashes) fprintf(out, " out_hash=%08" PRIx32, g->out_hash[j]);
                fprintf(out, "\n");
            }
    }
}

void tbr_rec_print_surface_check(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    (void)verbose;
    const tbr_rec_surface_check *r = &d->u.surface_check;
    fprintf(out,
            " resource=%" PRIu32 " level=%" PRIu32 " layer=%" PRIu32 " %" PRIu32 "x%" PRIu32 " block_bytes=%" PRIu32
            " crc32=0x%08" PRIx32 "\n",
            r->resource_id, r->level, r->layer, r->width, r->height, r->block_bytes, r->crc);
}

void tbr_rec_print_invalidate(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    (void)verbose;
    const tbr_rec_invalidate *r = &d->u.invalidate;
    fprintf(out, " resource=%" PRIu32 " buffers=0x%" PRIx32 "%s%s", r->resource_id, r->buffers,
            (r->buffers & 1u) ? " depth" : "", (r->buffers & 2u) ? " stencil" : "");
    for (uint32_t i = 0; i < TBR_REC_MAX_CBUFS; i++)
        if (r->buffers & (4u << i)) fprintf(out, " color%" PRIu32, i);
    fprintf(out, "%s\n", r->buffers ? "" : " (not bound by the current pass)");
}

void tbr_rec_print_surface_init(FILE *out, const tbr_rec_decoded *d, int verbose)
{
    (void)verbose;
    const tbr_rec_surface_init *r = &d->u.surface_init;
    size_t n = (size_t)r->rows * r->width * r->block_bytes;
    uint32_t h = 2166136261u; /* FNV-1a 32 of the band's bytes: compare contents across runs */
    size_t distinct_from_first = 0;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ r->data[i]) * 16777619u;
        distinct_from_first += r->data[i] != r->data[i % r->block_bytes];
    }
    fprintf(out,
            " %s resource=%" PRIu32 " level=%" PRIu32 " layer=%" PRIu32 " format=%" PRIu32 " size=%" PRIu32 "x%" PRIu32
            " block_bytes=%" PRIu32 " rows=%" PRIu32 "..%" PRIu32 " bytes=%zu fnv=%08" PRIx32 "%s\n",
            r->is_zs ? "zs" : "color", r->resource_id, r->level, r->layer, r->format, r->width, r->height,
            r->block_bytes, r->y0, r->y0 + r->rows - 1, n, h, distinct_from_first ? "" : " uniform");
}
