/*
 * tbr-test-functional-check: helper of the functional tests.
 *
 *   counts TRACE        decode every record of an activity trace (fails on any
 *                       malformed record) and print per-frame counts re-derived
 *                       from the QUADS/DRAW records as "frameN_key=value" lines;
 *                       also checks them against the FRAME_END / DRAW_END totals.
 *   pngeq A.png B.png   exit 0 if the decoded RGBA pixels are identical
 *   pngeq-rgb A B       the same, comparing R, G and B only (eglretrace -s PNGs are RGB)
 *   md5 A.png           print the pixel checksum (tbr_png_pixel_md5)
 *   rerender TRACE DIR  redo depth test, blending and tile quantization from the
 *                       trace alone and compare with the reference PNGs in DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tbr/png_io.h"
#include "tbr/records.h"
#include "tbr/trace.h"

#include "depth_plane.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static unsigned pc4(uint32_t m) { return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1); }

/* per-frame PATH table (ids are 1..n within a frame) */
struct cpath {
    uint32_t shader, stage, n;
    uint8_t *e;
};
static struct cpath *cpaths;
static uint32_t ncpaths;

static void cpaths_reset(void)
{
    for (uint32_t i = 0; i < ncpaths; i++) free(cpaths[i].e);
    free(cpaths);
    cpaths = NULL;
    ncpaths = 0;
}

static int cpaths_add(const tbr_rec_path *x)
{
    if (x->id == 0 || x->id > 10000000u) return -1;
    if (x->id > ncpaths) {
        struct cpath *np = realloc(cpaths, x->id * sizeof(*np));
        if (!np) return -1;
        memset(np + ncpaths, 0, (x->id - ncpaths) * sizeof(*np));
        cpaths = np;
        ncpaths = x->id;
    }
    struct cpath *c = &cpaths[x->id - 1];
    free(c->e);
    c->shader = x->shader_id;
    c->stage = x->stage;
    c->n = x->n;
    c->e = malloc((size_t)x->n * 3 + 1);
    if (!c->e) return -1;
    memcpy(c->e, x->entries, (size_t)x->n * 3);
    return 0;
}

static const struct cpath *cpath_get(uint32_t id)
{
    return (id && id <= ncpaths && cpaths[id - 1].e) ? &cpaths[id - 1] : NULL;
}

static int cpath_has_pc(const struct cpath *c, uint32_t pc)
{
    for (uint32_t i = 0; i < c->n; i++)
        if ((uint32_t)(c->e[3 * i] | (c->e[3 * i + 1] << 8)) == pc) return 1;
    return 0;
}

/* quads of the current draw, by ordinal */
struct cquad {
    int32_t x, y;
    uint32_t path;
    uint8_t mask, shaded;
};

/* A vertex-shader group of the last VERTICES record. */
struct vgroup {
    uint32_t path, n, index[4];
};

/* Per-frame counts, re-derived from the records. */
struct frame_counts {
    uint64_t draws, app_draws, quads, fragments, shaded_quads, shaded_fragments, depth_passed, blended, prims, clears,
        passes, shaders, tiles, uploads, paths, quads_no_path;
    uint64_t tx_fetches, tx_texels, tx_covered, tx_internal, tx_bad, tx_lanes[10], tx_has_pixel, tx_records;
    uint64_t v_vertices, v_groups, v_fetched, v_nopath, v_mismatch, v_records, v_indexed_dups;
    uint64_t vt_records, vt_fetches, vt_texels, vt_bad, vt_lanes[10], vt_at_index, vt_texture_records;
};

/* What counts() keeps while it reads the records: the open draw and its quads, the frame's
 * quad and texel keys, the vertices seen, vertex texturing (the draw's VS_TEXTURES, the
 * groups of the last VERTICES record, texture widths (RESOURCE) to locate a texel's index
 * x + y * level width). One record kind is counted by one function below. */
struct counts_state {
    uint64_t f; /* frame number */
    struct frame_counts c;
    int bad, oom;    /* oom: counts() returns 1 at once */
    int bad_derived; /* reported once per frame */
    int early, have_end;
    tbr_rec_draw_end de_sum;
    tbr_rec_draw draw;
    tbr_rec_prim prim;
    int draw_open;
    uint64_t *keys;
    size_t nkeys, capkeys;
    uint64_t *tkeys;
    size_t ntkeys, captkeys;
    struct cquad *dq;
    size_t ndq, capdq;
    tbr_rec_texel tx[TBR_REC_MAX_TEXELS_PER_FETCH];
    tbr_rec_vertices_header vh;
    uint8_t *vseen;
    size_t vseen_n;
    tbr_rec_vs_textures vst;
    struct vgroup *vg;
    size_t nvg, capvg;
    struct {
        uint32_t id, width;
    } res_w[4096];
    size_t nres_w;
    uint16_t prev_type;
};

static int count_draw(struct counts_state *s, const uint8_t *p, size_t n)
{
    s->vst.num_textures = 0;
    int drc = tbr_rec_draw_decode(p, n, &s->draw);
    s->c.draws++;
    s->c.app_draws += !s->draw.internal;
    s->early = (int)s->draw.early_z;
    s->ndq = 0;
    s->draw_open = 1;
    free(s->vseen);
    s->vseen = NULL;
    s->vseen_n = 0;
    if (drc == 0 && s->draw.index_size == 0 && s->draw.count <= (1u << 24)) {
        s->vseen_n = s->draw.count;
        s->vseen = calloc(s->vseen_n + 1, 1);
    }
    return drc;
}

static int count_draw_end(struct counts_state *s, const uint8_t *p, size_t n)
{
    tbr_rec_draw_end de;
    int drc = tbr_rec_draw_end_decode(p, n, &de);
    /* non-indexed: every vertex start..start+count-1 was fetched and shaded */
    if (s->draw_open && s->draw.index_size == 0 && s->draw.vs_id && !s->draw.rasterizer_discard) {
        size_t seen = 0;
        for (size_t k = 0; s->vseen && k < s->vseen_n; k++) seen += s->vseen[k];
        if (!s->vseen || seen != s->vseen_n) {
            fprintf(stderr, "frame %llu draw %u: %zu of %u vertices shaded\n", (unsigned long long)s->f, s->draw.seq,
                    seen, s->draw.count);
            s->c.v_mismatch++;
        }
    }
    s->draw_open = 0;
    s->de_sum.quads += de.quads;
    s->de_sum.shaded_fragments += de.shaded_fragments;
    s->de_sum.blended_fragments += de.blended_fragments;
    return drc;
}

/* Counts one quad and keeps its position (distinct quads) and, for TEXELS, its data. */
static void count_quad(struct counts_state *s, const tbr_rec_quad *q)
{
    struct frame_counts *c = &s->c;
    c->quads++;
    c->fragments += pc4(q->in_mask);
    if (q->flags & TBR_REC_QUAD_SHADED) {
        c->shaded_quads++;
        if (q->path == 0 || q->path > c->paths) c->quads_no_path++;
        c->shaded_fragments += pc4(s->early ? q->depth_mask : q->in_mask);
    }
    if (q->flags & TBR_REC_QUAD_DEPTH_OUT) c->depth_passed += pc4(q->depth_mask);
    if (q->flags & TBR_REC_QUAD_BLENDED) c->blended += pc4(q->blend_mask);
    if (s->nkeys == s->capkeys) {
        s->capkeys = s->capkeys ? s->capkeys * 2 : 4096;
        s->keys = realloc(s->keys, s->capkeys * sizeof(*s->keys));
        if (!s->keys) {
            s->oom = 1;
            return;
        }
    }
    s->keys[s->nkeys++] = ((uint64_t)(uint32_t)q->x << 32) | (uint32_t)q->y;
    if (s->ndq == s->capdq) {
        s->capdq = s->capdq ? s->capdq * 2 : 4096;
        s->dq = realloc(s->dq, s->capdq * sizeof(*s->dq));
        if (!s->dq) {
            s->oom = 1;
            return;
        }
    }
    struct cquad *d = &s->dq[s->ndq++];
    d->x = q->x;
    d->y = q->y;
    d->path = q->path;
    d->shaded = (q->flags & TBR_REC_QUAD_SHADED) != 0;
    d->mask = (uint8_t)(s->early ? q->depth_mask : q->in_mask);
}

static int count_quads(struct counts_state *s, const uint8_t *p, size_t n)
{
    tbr_cursor c;
    tbr_rec_quads_header h;
    int drc = tbr_rec_quads_open(&c, p, n, &h);
    if (drc == 0 && h.texels_derived && !s->bad_derived) {
        /* records minor 6: its texels are not in TEXELS, the counts below would be short */
        fprintf(stderr,
                "frame %llu: QUADS with derived texels: the TEXELS counts need a "
                "trace recorded with TBR_RECORD_TEXELS=1 (tbr-replay --record-texels)\n",
                (unsigned long long)s->f);
        s->bad = s->bad_derived = 1;
    }
    for (uint32_t i = 0; drc == 0 && i < h.count; i++) {
        tbr_rec_quad q;
        drc = tbr_rec_quads_next(&c, &h, &q);
        count_quad(s, &q);
        if (s->oom) return 0;
    }
    if (drc == 0) drc = tbr_rec_quads_close(&c);
    return drc;
}

static int count_frame_end(struct counts_state *s, const uint8_t *p, size_t n)
{
    const struct frame_counts *c = &s->c;
    tbr_rec_frame_end fe;
    int drc = tbr_rec_frame_end_decode(p, n, &fe);
    s->have_end = 1;
    if (drc == 0 &&
        (fe.frame != s->f || fe.draws != c->draws || fe.quads != c->quads || fe.shaded_quads != c->shaded_quads ||
         fe.shaded_fragments != c->shaded_fragments || fe.prims != c->prims || fe.clears != c->clears)) {
        fprintf(stderr, "frame %llu: FRAME_END totals differ from the records\n", (unsigned long long)s->f);
        s->bad = 1;
    }
    return drc;
}

static int count_vs_textures(struct counts_state *s, const uint8_t *p, size_t n)
{
    s->c.vt_texture_records++;
    int drc = tbr_rec_vs_textures_decode(p, n, &s->vst);
    if (drc == 0 && (s->prev_type != TBR_REC_DRAW || !s->draw_open || s->vst.draw_seq != s->draw.seq ||
                     s->vst.num_textures == 0 || s->vst.num_textures > s->draw.num_vs_textures)) {
        fprintf(stderr, "frame %llu: VS_TEXTURES not right after its DRAW %u\n", (unsigned long long)s->f,
                s->vst.draw_seq);
        s->bad = 1;
    }
    return drc;
}

/* One VS_TEXELS fetch: of a group of the last VERTICES record, of a VS_TEXTURES unit with
 * that resource, at a pc of a VS PATH, lanes < group n; per lane, whether the first texel
 * is at the vertex index. */
static void count_vs_texel_fetch(struct counts_state *s, const tbr_rec_texfetch *fe)
{
    struct frame_counts *c = &s->c;
    c->vt_fetches++;
    c->vt_texels += fe->n_texels;
    const struct vgroup *g = fe->quad < s->nvg ? &s->vg[fe->quad] : NULL;
    const struct cpath *cp = g ? cpath_get(g->path) : NULL;
    int unit_ok = 0;
    for (uint32_t k = 0; k < s->vst.num_textures; k++)
        unit_ok |= s->vst.textures[k].unit == fe->unit && s->vst.textures[k].resource_id == fe->resource_id;
    int lanes_ok = 1;
    for (uint32_t k = 0; g && k < fe->n_texels; k++) lanes_ok &= s->tx[k].lane < g->n;
    if (!g || !cp || cp->stage != 0 || cp->shader != s->draw.vs_id || !cpath_has_pc(cp, fe->pc) || !unit_ok ||
        !lanes_ok) {
        c->vt_bad++;
        return;
    }
    uint32_t width = 0;
    for (size_t k = 0; k < s->nres_w; k++)
        if (s->res_w[k].id == fe->resource_id) width = s->res_w[k].width;
    for (uint32_t l = 0; l < g->n; l++) {
        uint32_t cnt = 0;
        for (uint32_t k = 0; k < fe->n_texels; k++) {
            const tbr_rec_texel *t = &s->tx[k];
            if (t->lane != l) continue;
            const uint32_t w = width >> t->level ? width >> t->level : 1;
            if (cnt++ == 0 && t->x >= 0 && t->y >= 0 && (uint64_t)t->x + (uint64_t)t->y * w == g->index[l])
                c->vt_at_index++;
        }
        c->vt_lanes[cnt < 9 ? cnt : 9]++;
    }
}

/* VS_TEXELS: right after its VERTICES record. */
static int count_vs_texels(struct counts_state *s, const uint8_t *p, size_t n)
{
    tbr_cursor c;
    tbr_rec_texels_header h;
    s->c.vt_records++;
    int drc = tbr_rec_texels_open(&c, p, n, &h);
    if (drc == 0 && (s->prev_type != TBR_REC_VERTICES || !s->draw_open || h.draw_seq != s->draw.seq)) {
        fprintf(stderr, "frame %llu: VS_TEXELS not right after a VERTICES record of draw %u\n",
                (unsigned long long)s->f, h.draw_seq);
        s->bad = 1;
    }
    for (uint32_t i = 0; drc == 0 && i < h.count; i++) {
        tbr_rec_texfetch fe;
        drc = tbr_rec_texels_next(&c, &h, &fe, s->tx, TBR_REC_MAX_TEXELS_PER_FETCH);
        if (drc != 0) break;
        count_vs_texel_fetch(s, &fe);
    }
    if (drc == 0) drc = tbr_rec_texels_close(&c);
    return drc;
}

/* One TEXELS fetch: of a shaded quad of the draw, at a pc of an FS PATH; per covered lane,
 * its texels (keys of distinct texels) and whether one is at the lane's pixel. */
static void count_texel_fetch(struct counts_state *s, const tbr_rec_texfetch *fe)
{
    struct frame_counts *c = &s->c;
    c->tx_fetches++;
    c->tx_texels += fe->n_texels;
    if (s->draw.internal) c->tx_internal += fe->n_texels;
    const struct cquad *q = fe->quad < s->ndq ? &s->dq[fe->quad] : NULL;
    const struct cpath *cp = q ? cpath_get(q->path) : NULL;
    if (!q || !q->shaded || !cp || cp->stage != 1 || cp->shader != s->draw.fs_id || !cpath_has_pc(cp, fe->pc)) {
        c->tx_bad++;
        return;
    }
    for (uint32_t l = 0; l < 4; l++) {
        if (!(q->mask & (1u << l))) continue;
        uint32_t cnt = 0;
        int has = 0;
        for (uint32_t k = 0; k < fe->n_texels; k++) {
            const tbr_rec_texel *t = &s->tx[k];
            if (t->lane != l) continue;
            cnt++;
            if (t->x == q->x + (int32_t)(l & 1) && t->y == q->y + (int32_t)(l >> 1)) has = 1;
            if (s->ntkeys == s->captkeys) {
                s->captkeys = s->captkeys ? s->captkeys * 2 : 65536;
                s->tkeys = realloc(s->tkeys, s->captkeys * sizeof(*s->tkeys));
                if (!s->tkeys) {
                    s->oom = 1;
                    return;
                }
            }
            s->tkeys[s->ntkeys++] = ((uint64_t)(fe->resource_id & 0xffffu) << 48) |
                                    ((uint64_t)(t->level & 0xffu) << 40) | ((uint64_t)(t->layer & 0xffu) << 32) |
                                    ((uint64_t)((uint32_t)t->y & 0xffffu) << 16) | ((uint32_t)t->x & 0xffffu);
        }
        c->tx_covered += cnt;
        c->tx_lanes[cnt < 9 ? cnt : 9]++;
        c->tx_has_pixel += has;
    }
}

static int count_texels(struct counts_state *s, const uint8_t *p, size_t n)
{
    tbr_cursor c;
    tbr_rec_texels_header h;
    s->c.tx_records++;
    int drc = tbr_rec_texels_open(&c, p, n, &h);
    if (drc == 0 && (!s->draw_open || h.draw_seq != s->draw.seq)) {
        fprintf(stderr, "frame %llu: TEXELS for draw %u outside it\n", (unsigned long long)s->f, h.draw_seq);
        s->bad = 1;
    }
    for (uint32_t i = 0; drc == 0 && i < h.count; i++) {
        tbr_rec_texfetch fe;
        drc = tbr_rec_texels_next(&c, &h, &fe, s->tx, TBR_REC_MAX_TEXELS_PER_FETCH);
        if (drc != 0) break;
        count_texel_fetch(s, &fe);
        if (s->oom) return 0;
    }
    if (drc == 0) drc = tbr_rec_texels_close(&c);
    return drc;
}

/* One vertex group: kept for VS_TEXELS; its vertices marked seen (non-indexed draws) or
 * checked for duplicates (indexed: idx holds the record's first 4096 indices). */
static void count_vertex_group(struct counts_state *s, const tbr_rec_vertex_group *g, uint32_t idx[4096],
                               uint32_t *nidx)
{
    struct frame_counts *c = &s->c;
    if (s->nvg == s->capvg) {
        s->capvg = s->capvg ? s->capvg * 2 : 256;
        s->vg = realloc(s->vg, s->capvg * sizeof(*s->vg));
        if (!s->vg) {
            s->oom = 1;
            return;
        }
    }
    s->vg[s->nvg].path = g->path;
    s->vg[s->nvg].n = g->n;
    memcpy(s->vg[s->nvg].index, g->index, sizeof(g->index));
    s->nvg++;
    const struct cpath *cp = cpath_get(g->path);
    if (!cp || cp->stage != 0 || cp->shader != s->vh.vs_id) c->v_nopath++;
    for (uint32_t j = 0; j < g->n; j++) {
        uint32_t v = g->index[j];
        if (s->draw.index_size == 0) {
            if (v < s->draw.start || v - s->draw.start >= s->vseen_n)
                c->v_mismatch++;
            else if (s->vseen)
                s->vseen[v - s->draw.start] = 1;
        } else if (*nidx < 4096) {
            for (uint32_t k = 0; k < *nidx; k++)
                if (idx[k] == v) c->v_indexed_dups++;
            idx[(*nidx)++] = v;
        }
    }
}

static int count_vertices(struct counts_state *s, const uint8_t *p, size_t n)
{
    tbr_cursor c;
    s->c.v_records++;
    int drc = tbr_rec_vertices_open(&c, p, n, &s->vh);
    if (drc == 0 && (!s->draw_open || s->vh.draw_seq != s->draw.seq || s->vh.vs_id != s->draw.vs_id)) {
        fprintf(stderr, "frame %llu: VERTICES for draw %u outside it\n", (unsigned long long)s->f, s->vh.draw_seq);
        s->bad = 1;
    }
    uint64_t in_rec = 0;
    s->nvg = 0;
    uint32_t idx[4096];
    uint32_t nidx = 0;
    for (uint32_t i = 0; drc == 0 && i < s->vh.count; i++) {
        tbr_rec_vertex_group g;
        drc = tbr_rec_vertices_next(&c, &s->vh, &g);
        if (drc != 0) break;
        s->c.v_groups++;
        s->c.v_vertices += g.n;
        in_rec += g.n;
        count_vertex_group(s, &g, idx, &nidx);
        if (s->oom) return 0;
    }
    s->c.v_fetched += s->vh.fetched;
    if (drc == 0 && in_rec != s->vh.fetched) {
        fprintf(stderr, "frame %llu draw %u: VERTICES fetched %u, shaded %llu\n", (unsigned long long)s->f,
                s->vh.draw_seq, s->vh.fetched, (unsigned long long)in_rec);
        s->c.v_mismatch++;
    }
    if (drc == 0) drc = tbr_rec_vertices_close(&c);
    return drc;
}

/* The records counted by their number only (decoded to check them). */
static int count_simple(struct counts_state *s, uint16_t type, const uint8_t *p, size_t n)
{
    struct frame_counts *c = &s->c;
    union {
        tbr_rec_clear clear;
        tbr_rec_render_pass rp;
        tbr_rec_shader shader;
        tbr_rec_resource res;
        tbr_rec_surface_init si;
        tbr_rec_upload upload;
        tbr_rec_tile tile;
        tbr_rec_flush flush;
        tbr_rec_surface_check sc;
        tbr_rec_invalidate inv;
    } x;
    int drc = 0;
    switch (type) {
        case TBR_REC_PRIM:
            drc = tbr_rec_prim_decode(p, n, &s->prim);
            c->prims++;
            break;
        case TBR_REC_CLEAR:
            drc = tbr_rec_clear_decode(p, n, &x.clear);
            c->clears++;
            break;
        case TBR_REC_RENDER_PASS:
            drc = tbr_rec_render_pass_decode(p, n, &x.rp);
            c->passes++;
            break;
        case TBR_REC_SHADER:
            drc = tbr_rec_shader_decode(p, n, &x.shader);
            c->shaders++;
            break;
        case TBR_REC_SHADER_CREATE: drc = tbr_rec_shader_create_decode(p, n, &x.shader); break;
        case TBR_REC_RESOURCE:
            drc = tbr_rec_resource_decode(p, n, &x.res);
            if (drc == 0 && s->nres_w < sizeof(s->res_w) / sizeof(s->res_w[0])) {
                s->res_w[s->nres_w].id = x.res.id;
                s->res_w[s->nres_w++].width = x.res.width;
            }
            break;
        /* a surface read before any write in the recorded frames (docs/trace-records.md) */
        case TBR_REC_SURFACE_INIT: drc = tbr_rec_surface_init_decode(p, n, &x.si); break;
        case TBR_REC_UPLOAD:
            drc = tbr_rec_upload_decode(p, n, &x.upload);
            c->uploads++;
            break;
        case TBR_REC_TILE:
            drc = tbr_rec_tile_decode(p, n, &x.tile);
            c->tiles++;
            break;
        case TBR_REC_FLUSH: drc = tbr_rec_flush_decode(p, n, &x.flush); break;
        case TBR_REC_SURFACE_CHECK: drc = tbr_rec_surface_check_decode(p, n, &x.sc); break;
        case TBR_REC_INVALIDATE: drc = tbr_rec_invalidate_decode(p, n, &x.inv); break;
        default: fprintf(stderr, "frame %llu: unknown record type %u\n", (unsigned long long)s->f, type); s->bad = 1;
    }
    return drc;
}

/* Decodes and counts one record. Returns the decoder's result (nonzero: malformed). */
static int count_record(struct counts_state *s, uint16_t type, const uint8_t *p, size_t n)
{
    switch (type) {
        case TBR_REC_DRAW: return count_draw(s, p, n);
        case TBR_REC_DRAW_END: return count_draw_end(s, p, n);
        case TBR_REC_QUADS: return count_quads(s, p, n);
        case TBR_REC_FRAME_END: return count_frame_end(s, p, n);
        case TBR_REC_VS_TEXTURES: return count_vs_textures(s, p, n);
        case TBR_REC_VS_TEXELS: return count_vs_texels(s, p, n);
        case TBR_REC_TEXELS: return count_texels(s, p, n);
        case TBR_REC_VERTICES: return count_vertices(s, p, n);
        case TBR_REC_PATH: {
            tbr_rec_path x;
            int drc = tbr_rec_path_decode(p, n, &x);
            s->c.paths++;
            if (drc == 0 && cpaths_add(&x) != 0) {
                fprintf(stderr, "frame %llu: bad PATH id %u\n", (unsigned long long)s->f, x.id);
                s->bad = 1;
            }
            return drc;
        }
        case TBR_REC_UNSUPPORTED: {
            tbr_rec_unsupported x;
            int drc = tbr_rec_unsupported_decode(p, n, &x);
            printf("frame%llu_unsupported=%s\n", (unsigned long long)s->f, x.name);
            return drc;
        }
        default: return count_simple(s, type, p, n);
    }
}

/* Distinct values of keys[0..n) (sorted here). */
static size_t count_distinct(uint64_t *keys, size_t n)
{
    if (n) qsort(keys, n, sizeof(*keys), cmp_u64);
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) distinct += (i == 0 || keys[i] != keys[i - 1]);
    return distinct;
}

/* The frame's "frameN_key=value" lines. */
static void print_frame_counts(struct counts_state *s)
{
    const struct frame_counts *c = &s->c;
    size_t distinct = count_distinct(s->keys, s->nkeys);
    unsigned long long F = (unsigned long long)s->f;
    printf("frame%llu_complete=%d\n", F, s->have_end);
    printf("frame%llu_draws=%llu\nframe%llu_app_draws=%llu\n", F, (unsigned long long)c->draws, F,
           (unsigned long long)c->app_draws);
    printf("frame%llu_quads=%llu\nframe%llu_distinct_quads=%zu\n", F, (unsigned long long)c->quads, F, distinct);
    printf("frame%llu_fragments=%llu\n", F, (unsigned long long)c->fragments);
    printf("frame%llu_shaded_quads=%llu\nframe%llu_shaded_fragments=%llu\n", F, (unsigned long long)c->shaded_quads, F,
           (unsigned long long)c->shaded_fragments);
    printf("frame%llu_depth_passed=%llu\n", F, (unsigned long long)c->depth_passed);
    printf("frame%llu_blended_fragments=%llu\n", F, (unsigned long long)c->blended);
    printf("frame%llu_prims=%llu\nframe%llu_clears=%llu\nframe%llu_render_passes=%llu\n", F,
           (unsigned long long)c->prims, F, (unsigned long long)c->clears, F, (unsigned long long)c->passes);
    printf("frame%llu_shaders=%llu\nframe%llu_tile_events=%llu\nframe%llu_uploads=%llu\n", F,
           (unsigned long long)c->shaders, F, (unsigned long long)c->tiles, F, (unsigned long long)c->uploads);
    printf("frame%llu_paths=%llu\nframe%llu_shaded_quads_without_path=%llu\n", F, (unsigned long long)c->paths, F,
           (unsigned long long)c->quads_no_path);
    size_t tdistinct = count_distinct(s->tkeys, s->ntkeys);
    printf("frame%llu_texel_records=%llu\nframe%llu_texel_fetches=%llu\nframe%llu_texels=%llu\n", F,
           (unsigned long long)c->tx_records, F, (unsigned long long)c->tx_fetches, F,
           (unsigned long long)c->tx_texels);
    printf("frame%llu_texels_internal=%llu\nframe%llu_texel_fetches_bad=%llu\n", F, (unsigned long long)c->tx_internal,
           F, (unsigned long long)c->tx_bad);
    printf("frame%llu_texels_covered=%llu\nframe%llu_texels_distinct=%zu\n", F, (unsigned long long)c->tx_covered, F,
           tdistinct);
    printf("frame%llu_texel_lane_has_pixel=%llu\n", F, (unsigned long long)c->tx_has_pixel);
    for (int k = 0; k < 10; k++)
        if (c->tx_lanes[k])
            printf("frame%llu_texel_lanes_%d%s=%llu\n", F, k, k == 9 ? "_or_more" : "",
                   (unsigned long long)c->tx_lanes[k]);
    printf("frame%llu_vertex_records=%llu\nframe%llu_vertices=%llu\nframe%llu_vertex_groups=%llu\n", F,
           (unsigned long long)c->v_records, F, (unsigned long long)c->v_vertices, F, (unsigned long long)c->v_groups);
    printf("frame%llu_vertices_fetched=%llu\nframe%llu_vertex_groups_without_path=%llu\n", F,
           (unsigned long long)c->v_fetched, F, (unsigned long long)c->v_nopath);
    printf("frame%llu_vertex_draw_mismatch=%llu\nframe%llu_vertex_indexed_duplicates=%llu\n", F,
           (unsigned long long)c->v_mismatch, F, (unsigned long long)c->v_indexed_dups);
    printf("frame%llu_vs_texture_records=%llu\nframe%llu_vs_texel_records=%llu\n", F,
           (unsigned long long)c->vt_texture_records, F, (unsigned long long)c->vt_records);
    printf("frame%llu_vs_texel_fetches=%llu\nframe%llu_vs_texels=%llu\n", F, (unsigned long long)c->vt_fetches, F,
           (unsigned long long)c->vt_texels);
    printf("frame%llu_vs_texel_fetches_bad=%llu\nframe%llu_vs_texel_at_vertex_index=%llu\n", F,
           (unsigned long long)c->vt_bad, F, (unsigned long long)c->vt_at_index);
    for (int k = 0; k < 10; k++)
        if (c->vt_lanes[k])
            printf("frame%llu_vs_texel_lanes_%d%s=%llu\n", F, k, k == 9 ? "_or_more" : "",
                   (unsigned long long)c->vt_lanes[k]);
}

/* Counts the records of one frame and prints its counts. Returns the reader's result
 * (< 0: error), or 2 when out of memory. */
static int count_frame(struct counts_state *s, tbr_trace_reader *r, uint64_t frame)
{
    s->f = frame;
    memset(&s->c, 0, sizeof s->c);
    s->bad_derived = 0;
    cpaths_reset();
    s->ntkeys = 0;
    s->early = s->have_end = 0;
    memset(&s->de_sum, 0, sizeof(s->de_sum));
    s->nkeys = 0;
    uint16_t type;
    const uint8_t *p;
    size_t n;
    int rc;
    while ((rc = tbr_trace_reader_next_record(r, &type, &p, &n)) > 0) {
        int drc = count_record(s, type, p, n);
        if (s->oom) return 2;
        if (drc != 0) {
            fprintf(stderr, "frame %llu: malformed %s record\n", (unsigned long long)s->f, tbr_rec_type_name(type));
            s->bad = 1;
        }
        s->prev_type = type;
    }
    if (rc < 0) return rc;
    if (s->de_sum.quads != s->c.quads || s->de_sum.shaded_fragments != s->c.shaded_fragments ||
        s->de_sum.blended_fragments != s->c.blended) {
        fprintf(stderr, "frame %llu: DRAW_END totals differ from the QUADS records\n", (unsigned long long)s->f);
        s->bad = 1;
    }
    print_frame_counts(s);
    return rc;
}

static int counts(const char *path)
{
    tbr_trace_error err;
    tbr_trace_reader *r = tbr_trace_reader_open(path, &err);
    if (!r) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    /* Static: the state holds large tables. */
    static struct counts_state s;
    int rc;
    tbr_trace_frame_info fi;
    printf("frames=%zu\n", tbr_trace_reader_frame_count(r));
    while ((rc = tbr_trace_reader_next_frame(r, &fi)) > 0) {
        rc = count_frame(&s, r, fi.number);
        if (rc == 2) return 1; /* out of memory */
        if (rc < 0) break;
    }
    if (rc < 0) {
        fprintf(stderr, "%s\n", tbr_trace_reader_error(r));
        s.bad = 1;
    }
    free(s.keys);
    free(s.tkeys);
    free(s.dq);
    free(s.vseen);
    free(s.vg);
    cpaths_reset();
    tbr_trace_reader_close(r);
    return s.bad;
}

/* channels: 4 = RGBA; 3 = RGB only (eglretrace -s writes RGB PNGs, so a frame whose
 * framebuffer alpha is not 1 differs in alpha alone: docs/instrumentation.md) */
static int pngeq(const char *a, const char *b, size_t channels)
{
    tbr_image x, y;
    char err[TBR_PNG_ERR_SIZE];
    if (tbr_png_read_frame(a, &x, err, sizeof(err)) != 0 || tbr_png_read_frame(b, &y, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    int rc = 0;
    if (x.width != y.width || x.height != y.height) {
        fprintf(stderr, "size differs: %ux%u vs %ux%u\n", x.width, x.height, y.width, y.height);
        rc = 1;
    } else {
        uint64_t diff = 0;
        for (uint32_t yy = 0; yy < x.height; yy++) {
            for (uint32_t xx = 0; xx < x.width; xx++) {
                const uint8_t *p = x.pixels + yy * x.stride + xx * 4;
                const uint8_t *q = y.pixels + yy * y.stride + xx * 4;
                if (memcmp(p, q, channels) != 0) {
                    if (!diff)
                        fprintf(stderr, "first difference at (%u,%u): %u,%u,%u,%u vs %u,%u,%u,%u\n", xx, yy, p[0], p[1],
                                p[2], p[3], q[0], q[1], q[2], q[3]);
                    diff++;
                }
            }
        }
        if (diff) {
            fprintf(stderr, "%llu pixels differ\n", (unsigned long long)diff);
            rc = 1;
        }
    }
    tbr_image_free(&x);
    tbr_image_free(&y);
    return rc;
}

/* ---- rerender: a minimal re-implementation of softpipe's depth test, blend and
 * tile-cache quantization driven ONLY by the trace, compared with the reference
 * PNGs. Supports what the known-geometry program uses: one 8-bit UNORM RGBA
 * color buffer, blend off or ADD with factors ZERO/ONE/SRC_ALPHA/INV_SRC_ALPHA,
 * color mask, and a depth test on 16/24/32-bit integer depth values. ---- */

#define BF_ONE           0x1
#define BF_SRC_ALPHA     0x3
#define BF_ZERO          0x11
#define BF_INV_SRC_ALPHA 0x13

static uint8_t pack_unorm8(float f)
{
    /* round to nearest (ties as the float addition rounds: to even), clamp, NaN -> 0 */
    if (!(f > 0.0f)) return 0;
    if (f >= 1.0f) return 255;
    union {
        float f;
        uint32_t u;
    } v;
    v.f = f * (255.0f / 256.0f) + 32768.0f;
    return (uint8_t)v.u;
}

static float unpack_unorm8(uint8_t u) { return (float)u * (1.0f / 255.0f); }

static float clamp01(float f) { return f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f); }

static int factor(uint32_t f, const float src[4], float *out, int ch)
{
    (void)ch;
    switch (f) {
        case BF_ONE: *out = 1.0f; return 0;
        case BF_ZERO: *out = 0.0f; return 0;
        case BF_SRC_ALPHA: *out = src[3]; return 0;
        case BF_INV_SRC_ALPHA: *out = 1.0f - src[3]; return 0;
        default: return -1;
    }
}

static int depth_pass(uint32_t func, uint32_t z, uint32_t d)
{
    switch (func) {
        case 0: return 0;
        case 1: return z < d;
        case 2: return z == d;
        case 3: return z <= d;
        case 4: return z > d;
        case 5: return z != d;
        case 6: return z >= d;
        default: return 1;
    }
}

/* One modelled surface (resource, level, layer): 4x8-bit UNORM color (MEM bytes +
 * CACHE floats) or a depth buffer (raw integers). */
struct surf {
    uint32_t res, level, layer, w, h, is_zs;
    uint8_t *mem;    /* RGBA8 */
    float *cache;    /* RGBA float */
    uint8_t *cached; /* per pixel: CACHE valid */
    uint32_t *depth;
    float clear_color[4];
};

#define MAX_SURFS 256
static struct surf surfs[MAX_SURFS];
static int nsurfs;

static struct surf *find_surf(uint32_t res, uint32_t level, uint32_t layer)
{
    for (int i = 0; i < nsurfs; i++)
        if (surfs[i].res == res && surfs[i].level == level && surfs[i].layer == layer) return &surfs[i];
    return NULL;
}

static struct surf *get_surf(const tbr_rec_surface *rs, int is_zs)
{
    struct surf *s = find_surf(rs->resource_id, rs->level, rs->first_layer);
    if (s) return s;
    if (nsurfs == MAX_SURFS) return NULL;
    s = &surfs[nsurfs++];
    memset(s, 0, sizeof(*s));
    s->res = rs->resource_id;
    s->level = rs->level;
    s->layer = rs->first_layer;
    s->w = rs->width;
    s->h = rs->height;
    s->is_zs = (uint32_t)is_zs;
    size_t np = (size_t)s->w * s->h;
    if (is_zs) {
        s->depth = calloc(np ? np : 1, sizeof(uint32_t));
    } else {
        s->mem = calloc(np ? np : 1, 4);
        s->cache = calloc(np ? np : 1, 4 * sizeof(float));
        s->cached = calloc(np ? np : 1, 1);
    }
    return s;
}

static void tile_event(const tbr_rec_tile *t)
{
    if (t->is_zs) return; /* raw integers: loads/stores do not change values */
    struct surf *m = find_surf(t->resource_id, t->level, t->layer);
    if (!m) return;
    uint32_t x0 = t->tile_x * t->tile_size, y0 = t->tile_y * t->tile_size;
    if (t->kind == TBR_REC_TILE_CLEAR_ALL) {
        memset(m->cached, 0, (size_t)m->w * m->h);
        return;
    }
    for (uint32_t y = y0; y < y0 + t->tile_size && y < m->h; y++) {
        for (uint32_t x = x0; x < x0 + t->tile_size && x < m->w; x++) {
            size_t i = (size_t)y * m->w + x;
            for (int c = 0; c < 4; c++) {
                switch (t->kind) {
                    case TBR_REC_TILE_LOAD: m->cache[i * 4 + c] = unpack_unorm8(m->mem[i * 4 + c]); break;
                    case TBR_REC_TILE_LOAD_CLEAR: m->cache[i * 4 + c] = m->clear_color[c]; break;
                    case TBR_REC_TILE_STORE: m->mem[i * 4 + c] = pack_unorm8(m->cache[i * 4 + c]); break;
                    case TBR_REC_TILE_STORE_CLEAR: m->mem[i * 4 + c] = pack_unorm8(m->clear_color[c]); break;
                }
            }
            if (t->kind == TBR_REC_TILE_LOAD || t->kind == TBR_REC_TILE_LOAD_CLEAR) m->cached[i] = 1;
            if (t->kind == TBR_REC_TILE_STORE) m->cached[i] = 0;
        }
    }
}

/* formats the model implements: 4 x 8-bit UNORM with alpha */
static int format_ok(const char *name)
{
    return strstr(name, "R8G8B8A8_UNORM") || strstr(name, "B8G8R8A8_UNORM") || strstr(name, "A8R8G8B8_UNORM") ||
           strstr(name, "A8B8G8R8_UNORM");
}

#define MAX_RES 4096
static uint8_t res_ok[MAX_RES];              /* 1 ok, 2 unsupported format */
static uint8_t res_byte_channel[MAX_RES][4]; /* memory byte k holds channel (0=R..3=A) */

static void byte_channels(const char *name, uint8_t out[4])
{
    static const struct {
        const char *fmt;
        uint8_t ch[4];
    } t[] = {
        {"R8G8B8A8_UNORM", {0, 1, 2, 3}},
        {"B8G8R8A8_UNORM", {2, 1, 0, 3}},
        {"A8R8G8B8_UNORM", {3, 0, 1, 2}},
        {"A8B8G8R8_UNORM", {3, 2, 1, 0}},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (strstr(name, t[i].fmt)) {
            memcpy(out, t[i].ch, 4);
            return;
        }
}

/* What rerender() keeps while it reads the records: the current draw, the bound color and
 * depth surfaces (last_cb: the frame's last color surface), the counts. */
struct rerender_state {
    tbr_rec_draw draw;
    int have_draw, bad;
    /* derived depths (records minor 12): the draw's depth state, its primitives' planes */
    tbr_depth_draw depth_draw;
    tbr_depth_plane *plane;
    uint32_t nplanes, cap_planes;
    struct surf *cb, *zs, *last_cb;
    uint64_t depth_checked, depth_mismatch, blended, unsupported, passes;
};

/* Record handlers: 0, or -1 when a record does not decode or a reference image cannot be
 * read (rerender() then returns 1 at once). */

static int rerender_resource(const uint8_t *p, size_t n)
{
    tbr_rec_resource res;
    if (tbr_rec_resource_decode(p, n, &res) != 0) return -1;
    if (res.id < MAX_RES) {
        res_ok[res.id] = format_ok(res.format_name) ? 1 : 2;
        byte_channels(res.format_name, res_byte_channel[res.id]);
    }
    return 0;
}

static int rerender_render_pass(struct rerender_state *s, const uint8_t *p, size_t n)
{
    tbr_rec_render_pass rp;
    if (tbr_rec_render_pass_decode(p, n, &rp) != 0) return -1;
    s->passes++;
    s->cb = s->zs = NULL;
    if (rp.nr_cbufs > 1 || (rp.nr_cbufs == 1 && !rp.cbufs[0].valid)) {
        fprintf(stderr, "rerender: MRT / holes not modelled\n");
        s->unsupported++;
        return 0;
    }
    if (rp.nr_cbufs == 1) {
        uint32_t id = rp.cbufs[0].resource_id;
        if (id >= MAX_RES || res_ok[id] != 1) {
            fprintf(stderr, "rerender: color format not modelled\n");
            s->unsupported++;
            return 0;
        }
        s->cb = get_surf(&rp.cbufs[0], 0);
        s->last_cb = s->cb;
    }
    if (rp.zsbuf.valid) s->zs = get_surf(&rp.zsbuf, 1);
    return 0;
}

static int rerender_clear(struct rerender_state *s, const uint8_t *p, size_t n)
{
    tbr_rec_clear c;
    if (tbr_rec_clear_decode(p, n, &c) != 0) return -1;
    if ((c.buffers & 4) && s->cb) memcpy(s->cb->clear_color, c.color_f, sizeof(s->cb->clear_color));
    if ((c.buffers & 1) && s->zs)
        for (size_t i = 0; i < (size_t)s->zs->w * s->zs->h; i++) s->zs->depth[i] = (uint32_t)c.zs_packed;
    return 0;
}

/* Depth: redoes the quad's test from the recorded values and compares the masks. */
static void rerender_depth(struct rerender_state *s, const tbr_rec_quad *q)
{
    const tbr_rec_draw *draw = &s->draw;
    struct surf *zs = s->zs;
    uint32_t in = draw->early_z ? q->in_mask : q->shade_mask;
    uint32_t mine = 0;
    for (int j = 0; j < 4; j++) {
        int x = q->x + (j & 1), y = q->y + (j >> 1);
        if (!(in & (1u << j)) || x < 0 || y < 0 || (uint32_t)x >= zs->w || (uint32_t)y >= zs->h) continue;
        size_t i = (size_t)y * zs->w + (uint32_t)x;
        if (depth_pass(draw->depth_func, q->z[j], zs->depth[i])) {
            mine |= 1u << j;
            if (draw->depth_writemask) zs->depth[i] = q->z[j];
        }
    }
    uint32_t theirs = (q->flags & TBR_REC_QUAD_DEPTH_OUT) ? q->depth_mask : 0;
    s->depth_checked++;
    if (mine != theirs) s->depth_mismatch++;
}

/* Blends src into the cached pixel dst (UNORM target) as render target 0 says. */
static void blend_pixel(struct rerender_state *s, const tbr_rec_rt_blend *bl, float src[4], const float dst[4],
                        float out[4])
{
    if (!bl->blend_enable) {
        memcpy(out, src, 4 * sizeof(float));
        return;
    }
    for (int ch = 0; ch < 4; ch++) src[ch] = clamp01(src[ch]); /* UNORM target: softpipe clamps */
    for (int ch = 0; ch < 4; ch++) {
        float sf, df;
        uint32_t fs = ch < 3 ? bl->rgb_src : bl->alpha_src;
        uint32_t fd = ch < 3 ? bl->rgb_dst : bl->alpha_dst;
        uint32_t fn = ch < 3 ? bl->rgb_func : bl->alpha_func;
        if (factor(fs, src, &sf, ch) || factor(fd, src, &df, ch) || fn != 0) {
            s->unsupported++;
            sf = 1.0f;
            df = 0.0f;
        }
        float sv = src[ch] * sf;
        float d = dst[ch] * df;
        out[ch] = clamp01(sv + d);
    }
}

/* Blending: redoes it for each lane the quad blended, into the cached color tile. */
static void rerender_blend(struct rerender_state *s, const tbr_rec_quad *q, const tbr_rec_quads_header *h)
{
    struct surf *cb = s->cb;
    const tbr_rec_rt_blend *bl = &s->draw.rt[0];
    for (int j = 0; j < 4; j++) {
        if (!(q->blend_mask & (1u << j))) continue;
        int x = q->x + (j & 1), y = q->y + (j >> 1);
        if (x < 0 || y < 0 || (uint32_t)x >= cb->w || (uint32_t)y >= cb->h) continue;
        size_t i = (size_t)y * cb->w + (uint32_t)x;
        if (!cb->cached[i]) {
            fprintf(stderr, "rerender: blend into a tile that is not cached (%d,%d)\n", x, y);
            s->bad = 1;
            continue;
        }
        float src[4], out[4];
        if (h->packed_mask & 1u) {
            /* the pixel in the surface's byte order: unpack it */
            for (int k = 0; k < 4; k++)
                src[res_byte_channel[cb->res][k]] = unpack_unorm8((uint8_t)(q->packed[0][j] >> (8 * k)));
        } else {
            for (int ch = 0; ch < 4; ch++) src[ch] = q->color[0][ch][j];
            /* softpipe's float where an earlier write was stored packed */
            for (int ch = 0; ch < 4; ch++)
                if (q->exact_mask[0] & (1u << (4 * j + ch))) cb->cache[i * 4 + ch] = q->exact[0][ch][j];
        }
        blend_pixel(s, bl, src, &cb->cache[i * 4], out);
        for (int ch = 0; ch < 4; ch++)
            if (bl->colormask & (1u << ch)) cb->cache[i * 4 + ch] = out[ch];
        s->blended++;
    }
}

static int rerender_prim(struct rerender_state *s, const uint8_t *p, size_t n)
{
    static tbr_rec_prim pr; /* large */
    if (tbr_rec_prim_decode(p, n, &pr) != 0) return -1;
    if (s->nplanes == s->cap_planes) {
        uint32_t nc = s->cap_planes ? 2 * s->cap_planes : 1024;
        tbr_depth_plane *np = realloc(s->plane, nc * sizeof *np);
        if (!np) return -1;
        s->plane = np;
        s->cap_planes = nc;
    }
    tbr_depth_plane *pl = &s->plane[s->nplanes++];
    pl->valid = 0;
    if (pr.index + 1 == s->nplanes && !(pr.flags & TBR_REC_PRIM_CULLED) && pr.nr_attrs >= 1) {
        const float(*const v[3])[4] = {pr.v[0], pr.v[1], pr.v[2]};
        tbr_depth_plane_init(pl, &s->depth_draw, pr.kind, v);
    }
    return 0;
}

static int rerender_quads(struct rerender_state *s, const uint8_t *p, size_t n)
{
    tbr_cursor c;
    tbr_rec_quads_header h;
    if (tbr_rec_quads_open(&c, p, n, &h) != 0) return -1;
    for (uint32_t qi = 0; qi < h.count; qi++) {
        tbr_rec_quad q;
        if (tbr_rec_quads_next(&c, &h, &q) != 0) return -1;
        if (h.depths_derived && (q.flags & TBR_REC_QUAD_HAS_Z) &&
            (q.prim >= s->nplanes || tbr_depth_plane_quad(&s->plane[q.prim], &s->depth_draw, q.x, q.y, q.z) != 0)) {
            fprintf(stderr, "rerender: derived depths of a quad of primitive %u without a plane\n", q.prim);
            return -1;
        }
        if (s->draw.depth_enabled && s->zs && (q.flags & TBR_REC_QUAD_HAS_Z)) rerender_depth(s, &q);
        if (!(q.flags & TBR_REC_QUAD_BLENDED) || !s->cb) continue;
        rerender_blend(s, &q, &h);
    }
    return 0;
}

/* FRAME_END: compares the default framebuffer (the last color surface of the frame with the
 * EGL surface's size) with the frame's reference PNG. */
static int rerender_frame_end(struct rerender_state *s, const uint8_t *p, size_t n, const char *refdir)
{
    tbr_rec_frame_end fe;
    if (tbr_rec_frame_end_decode(p, n, &fe) != 0) return -1;
    struct surf *m = NULL;
    for (int i = nsurfs - 1; i >= 0 && !m; i--)
        if (&surfs[i] == s->last_cb && surfs[i].w == fe.width && surfs[i].h == fe.height) m = &surfs[i];
    if (!m) {
        fprintf(stderr, "rerender: frame %llu: default framebuffer not identified\n", (unsigned long long)fe.frame);
        s->unsupported++;
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", refdir, fe.png);
    tbr_image ref;
    char perr[TBR_PNG_ERR_SIZE];
    if (tbr_png_read_frame(path, &ref, perr, sizeof(perr)) != 0) {
        fprintf(stderr, "%s\n", perr);
        return -1;
    }
    uint64_t diff = 0;
    for (uint32_t y = 0; y < m->h && y < ref.height; y++)
        for (uint32_t x = 0; x < m->w && x < ref.width; x++)
            if (memcmp(m->mem + ((size_t)y * m->w + x) * 4, ref.pixels + y * ref.stride + x * 4, 4)) {
                if (!diff) {
                    const uint8_t *a = m->mem + ((size_t)y * m->w + x) * 4;
                    const uint8_t *b = ref.pixels + y * ref.stride + x * 4;
                    fprintf(stderr,
                            "frame %llu: first difference at (%u,%u): model %u,%u,%u,%u reference "
                            "%u,%u,%u,%u\n",
                            (unsigned long long)fe.frame, x, y, a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
                }
                diff++;
            }
    printf("frame%llu_rerender_diff_pixels=%llu\n", (unsigned long long)fe.frame, (unsigned long long)diff);
    if (diff || ref.width != m->w || ref.height != m->h) s->bad = 1;
    tbr_image_free(&ref);
    return 0;
}

static int rerender_record(struct rerender_state *s, uint16_t type, const uint8_t *p, size_t n, const char *refdir)
{
    if (type == TBR_REC_RESOURCE) return rerender_resource(p, n);
    if (type == TBR_REC_RENDER_PASS) return rerender_render_pass(s, p, n);
    if (type == TBR_REC_CLEAR) return rerender_clear(s, p, n);
    if (type == TBR_REC_TILE) {
        tbr_rec_tile t;
        if (tbr_rec_tile_decode(p, n, &t) != 0) return -1;
        tile_event(&t);
    } else if (type == TBR_REC_DRAW) {
        if (tbr_rec_draw_decode(p, n, &s->draw) != 0) return -1;
        s->have_draw = 1;
        tbr_depth_draw_init(&s->depth_draw, &s->draw);
        s->nplanes = 0;
        if (s->draw.stencil[0].enabled || s->draw.alpha_enabled || s->draw.logicop_enable) {
            fprintf(stderr, "rerender: stencil/alpha test/logicop not modelled\n");
            s->unsupported++;
        }
    } else if (type == TBR_REC_PRIM && s->have_draw) {
        return rerender_prim(s, p, n);
    } else if (type == TBR_REC_QUADS && s->have_draw) {
        return rerender_quads(s, p, n);
    } else if (type == TBR_REC_FRAME_END) {
        return rerender_frame_end(s, p, n, refdir);
    }
    return 0;
}

static int rerender(const char *trace, const char *refdir)
{
    tbr_trace_error err;
    tbr_trace_reader *r = tbr_trace_reader_open(trace, &err);
    if (!r) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    /* Static: the state holds the draw record. */
    static struct rerender_state s;
    int rc;
    tbr_trace_frame_info fi;
    while ((rc = tbr_trace_reader_next_frame(r, &fi)) > 0) {
        uint16_t type;
        const uint8_t *p;
        size_t n;
        s.last_cb = NULL;
        while ((rc = tbr_trace_reader_next_record(r, &type, &p, &n)) > 0)
            if (rerender_record(&s, type, p, n, refdir) != 0) return 1;
        if (rc < 0) break;
    }
    if (rc < 0) {
        fprintf(stderr, "%s\n", tbr_trace_reader_error(r));
        s.bad = 1;
    }
    printf("rerender_render_passes=%llu\nrerender_surfaces=%d\n", (unsigned long long)s.passes, nsurfs);
    printf("rerender_blended_fragments=%llu\nrerender_depth_quads_checked=%llu\n"
           "rerender_depth_mismatches=%llu\nrerender_unsupported=%llu\n",
           (unsigned long long)s.blended, (unsigned long long)s.depth_checked, (unsigned long long)s.depth_mismatch,
           (unsigned long long)s.unsupported);
    free(s.plane);
    if (s.depth_mismatch || s.unsupported) s.bad = 1;
    for (int i = 0; i < nsurfs; i++) {
        free(surfs[i].mem);
        free(surfs[i].cache);
        free(surfs[i].cached);
        free(surfs[i].depth);
    }
    tbr_trace_reader_close(r);
    return s.bad;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "rerender") == 0) return rerender(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "counts") == 0) return counts(argv[2]);
    if (argc == 4 && strcmp(argv[1], "pngeq") == 0) return pngeq(argv[2], argv[3], 4);
    if (argc == 4 && strcmp(argv[1], "pngeq-rgb") == 0) return pngeq(argv[2], argv[3], 3);
    if (argc == 3 && strcmp(argv[1], "md5") == 0) {
        char hex[33], err[TBR_PNG_ERR_SIZE];
        if (tbr_png_pixel_md5(argv[2], hex, err, sizeof(err)) != 0) {
            fprintf(stderr, "%s\n", err);
            return 2;
        }
        printf("%s\n", hex);
        return 0;
    }
    fprintf(stderr, "usage: %s counts TRACE | pngeq[-rgb] A.png B.png | md5 A.png | rerender TRACE OUTDIR\n", argv[0]);
    return 2;
}
