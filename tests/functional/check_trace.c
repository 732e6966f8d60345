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

static int counts(const char *path)
{
    tbr_trace_error err;
    tbr_trace_reader *r = tbr_trace_reader_open(path, &err);
    if (!r) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    int bad = 0, rc;
    tbr_trace_frame_info fi;
    static tbr_rec_draw draw;
    static tbr_rec_prim prim;
    uint64_t *keys = NULL;
    size_t nkeys = 0, capkeys = 0;
    uint64_t *tkeys = NULL;
    size_t ntkeys = 0, captkeys = 0;
    struct cquad *dq = NULL;
    size_t ndq = 0, capdq = 0;
    static tbr_rec_texel tx[TBR_REC_MAX_TEXELS_PER_FETCH];
    static tbr_rec_vertices_header vh;
    uint8_t *vseen = NULL;
    size_t vseen_n = 0;
    int draw_open = 0;
    /* vertex texturing: the draw's VS_TEXTURES, the groups of the last VERTICES record,
     * texture widths (RESOURCE) to locate a texel's index x + y * level width */
    static tbr_rec_vs_textures vst;
    struct vgroup {
        uint32_t path, n, index[4];
    } *vg = NULL;
    size_t nvg = 0, capvg = 0;
    struct {
        uint32_t id, width;
    } res_w[4096];
    size_t nres_w = 0;
    uint16_t prev_type = 0;
    printf("frames=%zu\n", tbr_trace_reader_frame_count(r));
    while ((rc = tbr_trace_reader_next_frame(r, &fi)) > 0) {
        uint64_t f = fi.number;
        uint64_t draws = 0, app_draws = 0, quads = 0, fragments = 0, shaded_quads = 0, shaded_fragments = 0,
                 depth_passed = 0, blended = 0, prims = 0, clears = 0, passes = 0, shaders = 0, tiles = 0, uploads = 0,
                 paths = 0, quads_no_path = 0;
        int bad_derived = 0; /* reported once */
        uint64_t tx_fetches = 0, tx_texels = 0, tx_covered = 0, tx_internal = 0, tx_bad = 0, tx_lanes[10] = {0},
                 tx_has_pixel = 0, tx_records = 0;
        uint64_t v_vertices = 0, v_groups = 0, v_fetched = 0, v_nopath = 0, v_mismatch = 0, v_records = 0,
                 v_indexed_dups = 0;
        uint64_t vt_records = 0, vt_fetches = 0, vt_texels = 0, vt_bad = 0, vt_lanes[10] = {0}, vt_at_index = 0,
                 vt_texture_records = 0;
        cpaths_reset();
        ntkeys = 0;
        int early = 0, have_end = 0;
        tbr_rec_draw_end de_sum;
        memset(&de_sum, 0, sizeof(de_sum));
        nkeys = 0;
        uint16_t type;
        const uint8_t *p;
        size_t n;
        while ((rc = tbr_trace_reader_next_record(r, &type, &p, &n)) > 0) {
            int drc = 0;
            switch (type) {
                case TBR_REC_DRAW:
                    vst.num_textures = 0;
                    drc = tbr_rec_draw_decode(p, n, &draw);
                    draws++;
                    app_draws += !draw.internal;
                    early = (int)draw.early_z;
                    ndq = 0;
                    draw_open = 1;
                    free(vseen);
                    vseen = NULL;
                    vseen_n = 0;
                    if (drc == 0 && draw.index_size == 0 && draw.count <= (1u << 24)) {
                        vseen_n = draw.count;
                        vseen = calloc(vseen_n + 1, 1);
                    }
                    break;
                case TBR_REC_DRAW_END: {
                    tbr_rec_draw_end de;
                    drc = tbr_rec_draw_end_decode(p, n, &de);
                    /* non-indexed: every vertex start..start+count-1 was fetched and shaded */
                    if (draw_open && draw.index_size == 0 && draw.vs_id && !draw.rasterizer_discard) {
                        size_t seen = 0;
                        for (size_t k = 0; vseen && k < vseen_n; k++) seen += vseen[k];
                        if (!vseen || seen != vseen_n) {
                            fprintf(stderr, "frame %llu draw %u: %zu of %u vertices shaded\n", (unsigned long long)f,
                                    draw.seq, seen, draw.count);
                            v_mismatch++;
                        }
                    }
                    draw_open = 0;
                    de_sum.quads += de.quads;
                    de_sum.shaded_fragments += de.shaded_fragments;
                    de_sum.blended_fragments += de.blended_fragments;
                    break;
                }
                case TBR_REC_PRIM:
                    drc = tbr_rec_prim_decode(p, n, &prim);
                    prims++;
                    break;
                case TBR_REC_QUADS: {
                    tbr_cursor c;
                    tbr_rec_quads_header h;
                    drc = tbr_rec_quads_open(&c, p, n, &h);
                    if (drc == 0 && h.texels_derived && !bad_derived) {
                        /* records minor 6: its texels are not in TEXELS, the counts below would
                     * be short */
                        fprintf(stderr,
                                "frame %llu: QUADS with derived texels: the TEXELS counts need a "
                                "trace recorded with TBR_RECORD_TEXELS=1 (tbr-replay --record-texels)\n",
                                (unsigned long long)fi.number);
                        bad = bad_derived = 1;
                    }
                    for (uint32_t i = 0; drc == 0 && i < h.count; i++) {
                        tbr_rec_quad q;
                        drc = tbr_rec_quads_next(&c, &h, &q);
                        quads++;
                        fragments += pc4(q.in_mask);
                        if (q.flags & TBR_REC_QUAD_SHADED) {
                            shaded_quads++;
                            if (q.path == 0 || q.path > paths) quads_no_path++;
                            shaded_fragments += pc4(early ? q.depth_mask : q.in_mask);
                        }
                        if (q.flags & TBR_REC_QUAD_DEPTH_OUT) depth_passed += pc4(q.depth_mask);
                        if (q.flags & TBR_REC_QUAD_BLENDED) blended += pc4(q.blend_mask);
                        if (nkeys == capkeys) {
                            capkeys = capkeys ? capkeys * 2 : 4096;
                            keys = realloc(keys, capkeys * sizeof(*keys));
                            if (!keys) return 1;
                        }
                        keys[nkeys++] = ((uint64_t)(uint32_t)q.x << 32) | (uint32_t)q.y;
                        if (ndq == capdq) {
                            capdq = capdq ? capdq * 2 : 4096;
                            dq = realloc(dq, capdq * sizeof(*dq));
                            if (!dq) return 1;
                        }
                        dq[ndq].x = q.x;
                        dq[ndq].y = q.y;
                        dq[ndq].path = q.path;
                        dq[ndq].shaded = (q.flags & TBR_REC_QUAD_SHADED) != 0;
                        dq[ndq].mask = (uint8_t)(early ? q.depth_mask : q.in_mask);
                        ndq++;
                    }
                    if (drc == 0) drc = tbr_rec_quads_close(&c);
                    break;
                }
                case TBR_REC_FRAME_END: {
                    tbr_rec_frame_end fe;
                    drc = tbr_rec_frame_end_decode(p, n, &fe);
                    have_end = 1;
                    if (drc == 0 &&
                        (fe.frame != f || fe.draws != draws || fe.quads != quads || fe.shaded_quads != shaded_quads ||
                         fe.shaded_fragments != shaded_fragments || fe.prims != prims || fe.clears != clears)) {
                        fprintf(stderr, "frame %llu: FRAME_END totals differ from the records\n",
                                (unsigned long long)f);
                        bad = 1;
                    }
                    break;
                }
                case TBR_REC_CLEAR: {
                    tbr_rec_clear x;
                    drc = tbr_rec_clear_decode(p, n, &x);
                    clears++;
                    break;
                }
                case TBR_REC_RENDER_PASS: {
                    tbr_rec_render_pass x;
                    drc = tbr_rec_render_pass_decode(p, n, &x);
                    passes++;
                    break;
                }
                case TBR_REC_SHADER: {
                    tbr_rec_shader x;
                    drc = tbr_rec_shader_decode(p, n, &x);
                    shaders++;
                    break;
                }
                case TBR_REC_SHADER_CREATE: {
                    tbr_rec_shader x;
                    drc = tbr_rec_shader_create_decode(p, n, &x);
                    break;
                }
                case TBR_REC_RESOURCE: {
                    tbr_rec_resource x;
                    drc = tbr_rec_resource_decode(p, n, &x);
                    if (drc == 0 && nres_w < sizeof(res_w) / sizeof(res_w[0])) {
                        res_w[nres_w].id = x.id;
                        res_w[nres_w++].width = x.width;
                    }
                    break;
                }
                case TBR_REC_SURFACE_INIT: {
                    /* a surface read before any write in the recorded frames (docs/trace-records.md) */
                    tbr_rec_surface_init x;
                    drc = tbr_rec_surface_init_decode(p, n, &x);
                    break;
                }
                case TBR_REC_VS_TEXTURES:
                    vt_texture_records++;
                    drc = tbr_rec_vs_textures_decode(p, n, &vst);
                    if (drc == 0 && (prev_type != TBR_REC_DRAW || !draw_open || vst.draw_seq != draw.seq ||
                                     vst.num_textures == 0 || vst.num_textures > draw.num_vs_textures)) {
                        fprintf(stderr, "frame %llu: VS_TEXTURES not right after its DRAW %u\n", (unsigned long long)f,
                                vst.draw_seq);
                        bad = 1;
                    }
                    break;
                case TBR_REC_VS_TEXELS: {
                    /* right after its VERTICES record; per fetch: a group of it, a VS_TEXTURES
                 * unit with that resource, a VS PATH holding the pc, lanes < group n */
                    tbr_cursor c;
                    tbr_rec_texels_header h;
                    vt_records++;
                    drc = tbr_rec_texels_open(&c, p, n, &h);
                    if (drc == 0 && (prev_type != TBR_REC_VERTICES || !draw_open || h.draw_seq != draw.seq)) {
                        fprintf(stderr, "frame %llu: VS_TEXELS not right after a VERTICES record of draw %u\n",
                                (unsigned long long)f, h.draw_seq);
                        bad = 1;
                    }
                    for (uint32_t i = 0; drc == 0 && i < h.count; i++) {
                        tbr_rec_texfetch fe;
                        drc = tbr_rec_texels_next(&c, &h, &fe, tx, TBR_REC_MAX_TEXELS_PER_FETCH);
                        if (drc != 0) break;
                        vt_fetches++;
                        vt_texels += fe.n_texels;
                        const struct vgroup *g = fe.quad < nvg ? &vg[fe.quad] : NULL;
                        const struct cpath *cp = g ? cpath_get(g->path) : NULL;
                        int unit_ok = 0;
                        for (uint32_t k = 0; k < vst.num_textures; k++)
                            unit_ok |= vst.textures[k].unit == fe.unit && vst.textures[k].resource_id == fe.resource_id;
                        int lanes_ok = 1;
                        for (uint32_t k = 0; g && k < fe.n_texels; k++) lanes_ok &= tx[k].lane < g->n;
                        if (!g || !cp || cp->stage != 0 || cp->shader != draw.vs_id || !cpath_has_pc(cp, fe.pc) ||
                            !unit_ok || !lanes_ok) {
                            vt_bad++;
                            continue;
                        }
                        uint32_t width = 0;
                        for (size_t k = 0; k < nres_w; k++)
                            if (res_w[k].id == fe.resource_id) width = res_w[k].width;
                        for (uint32_t l = 0; l < g->n; l++) {
                            uint32_t cnt = 0;
                            for (uint32_t k = 0; k < fe.n_texels; k++) {
                                const tbr_rec_texel *t = &tx[k];
                                if (t->lane != l) continue;
                                const uint32_t w = width >> t->level ? width >> t->level : 1;
                                if (cnt++ == 0 && t->x >= 0 && t->y >= 0 &&
                                    (uint64_t)t->x + (uint64_t)t->y * w == g->index[l])
                                    vt_at_index++;
                            }
                            vt_lanes[cnt < 9 ? cnt : 9]++;
                        }
                    }
                    if (drc == 0) drc = tbr_rec_texels_close(&c);
                    break;
                }
                case TBR_REC_UPLOAD: {
                    tbr_rec_upload x;
                    drc = tbr_rec_upload_decode(p, n, &x);
                    uploads++;
                    break;
                }
                case TBR_REC_TILE: {
                    tbr_rec_tile x;
                    drc = tbr_rec_tile_decode(p, n, &x);
                    tiles++;
                    break;
                }
                case TBR_REC_FLUSH: {
                    tbr_rec_flush x;
                    drc = tbr_rec_flush_decode(p, n, &x);
                    break;
                }
                case TBR_REC_PATH: {
                    tbr_rec_path x;
                    drc = tbr_rec_path_decode(p, n, &x);
                    paths++;
                    if (drc == 0 && cpaths_add(&x) != 0) {
                        fprintf(stderr, "frame %llu: bad PATH id %u\n", (unsigned long long)f, x.id);
                        bad = 1;
                    }
                    break;
                }
                case TBR_REC_TEXELS: {
                    tbr_cursor c;
                    tbr_rec_texels_header h;
                    tx_records++;
                    drc = tbr_rec_texels_open(&c, p, n, &h);
                    if (drc == 0 && (!draw_open || h.draw_seq != draw.seq)) {
                        fprintf(stderr, "frame %llu: TEXELS for draw %u outside it\n", (unsigned long long)f,
                                h.draw_seq);
                        bad = 1;
                    }
                    for (uint32_t i = 0; drc == 0 && i < h.count; i++) {
                        tbr_rec_texfetch fe;
                        drc = tbr_rec_texels_next(&c, &h, &fe, tx, TBR_REC_MAX_TEXELS_PER_FETCH);
                        if (drc != 0) break;
                        tx_fetches++;
                        tx_texels += fe.n_texels;
                        if (draw.internal) tx_internal += fe.n_texels;
                        const struct cquad *q = fe.quad < ndq ? &dq[fe.quad] : NULL;
                        const struct cpath *cp = q ? cpath_get(q->path) : NULL;
                        if (!q || !q->shaded || !cp || cp->stage != 1 || cp->shader != draw.fs_id ||
                            !cpath_has_pc(cp, fe.pc)) {
                            tx_bad++;
                            continue;
                        }
                        for (uint32_t l = 0; l < 4; l++) {
                            if (!(q->mask & (1u << l))) continue;
                            uint32_t cnt = 0;
                            int has = 0;
                            for (uint32_t k = 0; k < fe.n_texels; k++) {
                                const tbr_rec_texel *t = &tx[k];
                                if (t->lane != l) continue;
                                cnt++;
                                if (t->x == q->x + (int32_t)(l & 1) && t->y == q->y + (int32_t)(l >> 1)) has = 1;
                                if (ntkeys == captkeys) {
                                    captkeys = captkeys ? captkeys * 2 : 65536;
                                    tkeys = realloc(tkeys, captkeys * sizeof(*tkeys));
                                    if (!tkeys) return 1;
                                }
                                tkeys[ntkeys++] =
                                    ((uint64_t)(fe.resource_id & 0xffffu) << 48) |
                                    ((uint64_t)(t->level & 0xffu) << 40) | ((uint64_t)(t->layer & 0xffu) << 32) |
                                    ((uint64_t)((uint32_t)t->y & 0xffffu) << 16) | ((uint32_t)t->x & 0xffffu);
                            }
                            tx_covered += cnt;
                            tx_lanes[cnt < 9 ? cnt : 9]++;
                            tx_has_pixel += has;
                        }
                    }
                    if (drc == 0) drc = tbr_rec_texels_close(&c);
                    break;
                }
                case TBR_REC_VERTICES: {
                    tbr_cursor c;
                    v_records++;
                    drc = tbr_rec_vertices_open(&c, p, n, &vh);
                    if (drc == 0 && (!draw_open || vh.draw_seq != draw.seq || vh.vs_id != draw.vs_id)) {
                        fprintf(stderr, "frame %llu: VERTICES for draw %u outside it\n", (unsigned long long)f,
                                vh.draw_seq);
                        bad = 1;
                    }
                    uint64_t in_rec = 0;
                    nvg = 0;
                    uint32_t idx[4096];
                    uint32_t nidx = 0;
                    for (uint32_t i = 0; drc == 0 && i < vh.count; i++) {
                        tbr_rec_vertex_group g;
                        drc = tbr_rec_vertices_next(&c, &vh, &g);
                        if (drc != 0) break;
                        v_groups++;
                        v_vertices += g.n;
                        in_rec += g.n;
                        if (nvg == capvg) {
                            capvg = capvg ? capvg * 2 : 256;
                            vg = realloc(vg, capvg * sizeof(*vg));
                            if (!vg) return 1;
                        }
                        vg[nvg].path = g.path;
                        vg[nvg].n = g.n;
                        memcpy(vg[nvg].index, g.index, sizeof(g.index));
                        nvg++;
                        const struct cpath *cp = cpath_get(g.path);
                        if (!cp || cp->stage != 0 || cp->shader != vh.vs_id) v_nopath++;
                        for (uint32_t j = 0; j < g.n; j++) {
                            uint32_t v = g.index[j];
                            if (draw.index_size == 0) {
                                if (v < draw.start || v - draw.start >= vseen_n)
                                    v_mismatch++;
                                else if (vseen)
                                    vseen[v - draw.start] = 1;
                            } else if (nidx < 4096) {
                                for (uint32_t k = 0; k < nidx; k++)
                                    if (idx[k] == v) v_indexed_dups++;
                                idx[nidx++] = v;
                            }
                        }
                    }
                    v_fetched += vh.fetched;
                    if (drc == 0 && in_rec != vh.fetched) {
                        fprintf(stderr, "frame %llu draw %u: VERTICES fetched %u, shaded %llu\n", (unsigned long long)f,
                                vh.draw_seq, vh.fetched, (unsigned long long)in_rec);
                        v_mismatch++;
                    }
                    if (drc == 0) drc = tbr_rec_vertices_close(&c);
                    break;
                }
                case TBR_REC_UNSUPPORTED: {
                    tbr_rec_unsupported x;
                    drc = tbr_rec_unsupported_decode(p, n, &x);
                    printf("frame%llu_unsupported=%s\n", (unsigned long long)f, x.name);
                    break;
                }
                case TBR_REC_SURFACE_CHECK: {
                    tbr_rec_surface_check x;
                    drc = tbr_rec_surface_check_decode(p, n, &x);
                    break;
                }
                default: fprintf(stderr, "frame %llu: unknown record type %u\n", (unsigned long long)f, type); bad = 1;
            }
            if (drc != 0) {
                fprintf(stderr, "frame %llu: malformed %s record\n", (unsigned long long)f, tbr_rec_type_name(type));
                bad = 1;
            }
            prev_type = type;
        }
        if (rc < 0) break;
        if (de_sum.quads != quads || de_sum.shaded_fragments != shaded_fragments ||
            de_sum.blended_fragments != blended) {
            fprintf(stderr, "frame %llu: DRAW_END totals differ from the QUADS records\n", (unsigned long long)f);
            bad = 1;
        }
        if (nkeys) qsort(keys, nkeys, sizeof(*keys), cmp_u64);
        size_t distinct = 0;
        for (size_t i = 0; i < nkeys; i++) distinct += (i == 0 || keys[i] != keys[i - 1]);
        unsigned long long F = (unsigned long long)f;
        printf("frame%llu_complete=%d\n", F, have_end);
        printf("frame%llu_draws=%llu\nframe%llu_app_draws=%llu\n", F, (unsigned long long)draws, F,
               (unsigned long long)app_draws);
        printf("frame%llu_quads=%llu\nframe%llu_distinct_quads=%zu\n", F, (unsigned long long)quads, F, distinct);
        printf("frame%llu_fragments=%llu\n", F, (unsigned long long)fragments);
        printf("frame%llu_shaded_quads=%llu\nframe%llu_shaded_fragments=%llu\n", F, (unsigned long long)shaded_quads, F,
               (unsigned long long)shaded_fragments);
        printf("frame%llu_depth_passed=%llu\n", F, (unsigned long long)depth_passed);
        printf("frame%llu_blended_fragments=%llu\n", F, (unsigned long long)blended);
        printf("frame%llu_prims=%llu\nframe%llu_clears=%llu\nframe%llu_render_passes=%llu\n", F,
               (unsigned long long)prims, F, (unsigned long long)clears, F, (unsigned long long)passes);
        printf("frame%llu_shaders=%llu\nframe%llu_tile_events=%llu\nframe%llu_uploads=%llu\n", F,
               (unsigned long long)shaders, F, (unsigned long long)tiles, F, (unsigned long long)uploads);
        printf("frame%llu_paths=%llu\nframe%llu_shaded_quads_without_path=%llu\n", F, (unsigned long long)paths, F,
               (unsigned long long)quads_no_path);
        if (ntkeys) qsort(tkeys, ntkeys, sizeof(*tkeys), cmp_u64);
        size_t tdistinct = 0;
        for (size_t i = 0; i < ntkeys; i++) tdistinct += (i == 0 || tkeys[i] != tkeys[i - 1]);
        printf("frame%llu_texel_records=%llu\nframe%llu_texel_fetches=%llu\nframe%llu_texels=%llu\n", F,
               (unsigned long long)tx_records, F, (unsigned long long)tx_fetches, F, (unsigned long long)tx_texels);
        printf("frame%llu_texels_internal=%llu\nframe%llu_texel_fetches_bad=%llu\n", F, (unsigned long long)tx_internal,
               F, (unsigned long long)tx_bad);
        printf("frame%llu_texels_covered=%llu\nframe%llu_texels_distinct=%zu\n", F, (unsigned long long)tx_covered, F,
               tdistinct);
        printf("frame%llu_texel_lane_has_pixel=%llu\n", F, (unsigned long long)tx_has_pixel);
        for (int k = 0; k < 10; k++)
            if (tx_lanes[k])
                printf("frame%llu_texel_lanes_%d%s=%llu\n", F, k, k == 9 ? "_or_more" : "",
                       (unsigned long long)tx_lanes[k]);
        printf("frame%llu_vertex_records=%llu\nframe%llu_vertices=%llu\nframe%llu_vertex_groups=%llu\n", F,
               (unsigned long long)v_records, F, (unsigned long long)v_vertices, F, (unsigned long long)v_groups);
        printf("frame%llu_vertices_fetched=%llu\nframe%llu_vertex_groups_without_path=%llu\n", F,
               (unsigned long long)v_fetched, F, (unsigned long long)v_nopath);
        printf("frame%llu_vertex_draw_mismatch=%llu\nframe%llu_vertex_indexed_duplicates=%llu\n", F,
               (unsigned long long)v_mismatch, F, (unsigned long long)v_indexed_dups);
        printf("frame%llu_vs_texture_records=%llu\nframe%llu_vs_texel_records=%llu\n", F,
               (unsigned long long)vt_texture_records, F, (unsigned long long)vt_records);
        printf("frame%llu_vs_texel_fetches=%llu\nframe%llu_vs_texels=%llu\n", F, (unsigned long long)vt_fetches, F,
               (unsigned long long)vt_texels);
        printf("frame%llu_vs_texel_fetches_bad=%llu\nframe%llu_vs_texel_at_vertex_index=%llu\n", F,
               (unsigned long long)vt_bad, F, (unsigned long long)vt_at_index);
        for (int k = 0; k < 10; k++)
            if (vt_lanes[k])
                printf("frame%llu_vs_texel_lanes_%d%s=%llu\n", F, k, k == 9 ? "_or_more" : "",
                       (unsigned long long)vt_lanes[k]);
    }
    if (rc < 0) {
        fprintf(stderr, "%s\n", tbr_trace_reader_error(r));
        bad = 1;
    }
    free(keys);
    free(tkeys);
    free(dq);
    free(vseen);
    free(vg);
    cpaths_reset();
    tbr_trace_reader_close(r);
    return bad;
}

/* channels: 4 = RGBA; 3 = RGB only (eglretrace -s writes RGB PNGs, so a frame whose
 * framebuffer alpha is not 1 differs in alpha alone: docs/instrumentation.md) */
static int pngeq(const char *a, const char *b, size_t channels)
{
    tbr_image x, y;
    char err[TBR_PNG_ERR_SIZE];
    if (tbr_png_read_rgba8(a, &x, err, sizeof(err)) != 0 || tbr_png_read_rgba8(b, &y, err, sizeof(err)) != 0) {
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

static int rerender(const char *trace, const char *refdir)
{
    tbr_trace_error err;
    tbr_trace_reader *r = tbr_trace_reader_open(trace, &err);
    if (!r) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    static tbr_rec_draw draw;
    int rc, bad = 0, have_draw = 0;
    struct surf *cb = NULL, *zs = NULL;
    uint64_t depth_checked = 0, depth_mismatch = 0, blended = 0, unsupported = 0, passes = 0;
    tbr_trace_frame_info fi;
    while ((rc = tbr_trace_reader_next_frame(r, &fi)) > 0) {
        uint16_t type;
        const uint8_t *p;
        size_t n;
        struct surf *last_cb = NULL;
        while ((rc = tbr_trace_reader_next_record(r, &type, &p, &n)) > 0) {
            if (type == TBR_REC_RESOURCE) {
                tbr_rec_resource res;
                if (tbr_rec_resource_decode(p, n, &res) != 0) return 1;
                if (res.id < MAX_RES) {
                    res_ok[res.id] = format_ok(res.format_name) ? 1 : 2;
                    byte_channels(res.format_name, res_byte_channel[res.id]);
                }
            } else if (type == TBR_REC_RENDER_PASS) {
                tbr_rec_render_pass rp;
                if (tbr_rec_render_pass_decode(p, n, &rp) != 0) return 1;
                passes++;
                cb = zs = NULL;
                if (rp.nr_cbufs > 1 || (rp.nr_cbufs == 1 && !rp.cbufs[0].valid)) {
                    fprintf(stderr, "rerender: MRT / holes not modelled\n");
                    unsupported++;
                    continue;
                }
                if (rp.nr_cbufs == 1) {
                    uint32_t id = rp.cbufs[0].resource_id;
                    if (id >= MAX_RES || res_ok[id] != 1) {
                        fprintf(stderr, "rerender: color format not modelled\n");
                        unsupported++;
                        continue;
                    }
                    cb = get_surf(&rp.cbufs[0], 0);
                    last_cb = cb;
                }
                if (rp.zsbuf.valid) zs = get_surf(&rp.zsbuf, 1);
            } else if (type == TBR_REC_CLEAR) {
                tbr_rec_clear c;
                if (tbr_rec_clear_decode(p, n, &c) != 0) return 1;
                if ((c.buffers & 4) && cb) memcpy(cb->clear_color, c.color_f, sizeof(cb->clear_color));
                if ((c.buffers & 1) && zs)
                    for (size_t i = 0; i < (size_t)zs->w * zs->h; i++) zs->depth[i] = (uint32_t)c.zs_packed;
            } else if (type == TBR_REC_TILE) {
                tbr_rec_tile t;
                if (tbr_rec_tile_decode(p, n, &t) != 0) return 1;
                tile_event(&t);
            } else if (type == TBR_REC_DRAW) {
                if (tbr_rec_draw_decode(p, n, &draw) != 0) return 1;
                have_draw = 1;
                if (draw.stencil[0].enabled || draw.alpha_enabled || draw.logicop_enable) {
                    fprintf(stderr, "rerender: stencil/alpha test/logicop not modelled\n");
                    unsupported++;
                }
            } else if (type == TBR_REC_QUADS && have_draw) {
                tbr_cursor c;
                tbr_rec_quads_header h;
                if (tbr_rec_quads_open(&c, p, n, &h) != 0) return 1;
                for (uint32_t qi = 0; qi < h.count; qi++) {
                    tbr_rec_quad q;
                    if (tbr_rec_quads_next(&c, &h, &q) != 0) return 1;
                    /* depth: redo the test from the recorded values */
                    if (draw.depth_enabled && zs && (q.flags & TBR_REC_QUAD_HAS_Z)) {
                        uint32_t in = draw.early_z ? q.in_mask : q.shade_mask;
                        uint32_t mine = 0;
                        for (int j = 0; j < 4; j++) {
                            int x = q.x + (j & 1), y = q.y + (j >> 1);
                            if (!(in & (1u << j)) || x < 0 || y < 0 || (uint32_t)x >= zs->w || (uint32_t)y >= zs->h)
                                continue;
                            size_t i = (size_t)y * zs->w + (uint32_t)x;
                            if (depth_pass(draw.depth_func, q.z[j], zs->depth[i])) {
                                mine |= 1u << j;
                                if (draw.depth_writemask) zs->depth[i] = q.z[j];
                            }
                        }
                        uint32_t theirs = (q.flags & TBR_REC_QUAD_DEPTH_OUT) ? q.depth_mask : 0;
                        depth_checked++;
                        if (mine != theirs) depth_mismatch++;
                    }
                    if (!(q.flags & TBR_REC_QUAD_BLENDED) || !cb) continue;
                    const tbr_rec_rt_blend *bl = &draw.rt[0];
                    for (int j = 0; j < 4; j++) {
                        if (!(q.blend_mask & (1u << j))) continue;
                        int x = q.x + (j & 1), y = q.y + (j >> 1);
                        if (x < 0 || y < 0 || (uint32_t)x >= cb->w || (uint32_t)y >= cb->h) continue;
                        size_t i = (size_t)y * cb->w + (uint32_t)x;
                        if (!cb->cached[i]) {
                            fprintf(stderr, "rerender: blend into a tile that is not cached (%d,%d)\n", x, y);
                            bad = 1;
                            continue;
                        }
                        float src[4], out[4];
                        if (h.packed_mask & 1u) {
                            /* the pixel in the surface's byte order: unpack it */
                            for (int k = 0; k < 4; k++)
                                src[res_byte_channel[cb->res][k]] = unpack_unorm8((uint8_t)(q.packed[0][j] >> (8 * k)));
                        } else {
                            for (int ch = 0; ch < 4; ch++) src[ch] = q.color[0][ch][j];
                            /* softpipe's float where an earlier write was stored packed */
                            for (int ch = 0; ch < 4; ch++)
                                if (q.exact_mask[0] & (1u << (4 * j + ch))) cb->cache[i * 4 + ch] = q.exact[0][ch][j];
                        }
                        if (!bl->blend_enable) {
                            memcpy(out, src, sizeof(out));
                        } else {
                            for (int ch = 0; ch < 4; ch++)
                                src[ch] = clamp01(src[ch]); /* UNORM target: softpipe clamps */
                            for (int ch = 0; ch < 4; ch++) {
                                float sf, df;
                                uint32_t fs = ch < 3 ? bl->rgb_src : bl->alpha_src;
                                uint32_t fd = ch < 3 ? bl->rgb_dst : bl->alpha_dst;
                                uint32_t fn = ch < 3 ? bl->rgb_func : bl->alpha_func;
                                if (factor(fs, src, &sf, ch) || factor(fd, src, &df, ch) || fn != 0) {
                                    unsupported++;
                                    sf = 1.0f;
                                    df = 0.0f;
                                }
                                float s = src[ch] * sf;
                                float d = cb->cache[i * 4 + ch] * df;
                                out[ch] = clamp01(s + d);
                            }
                        }
                        for (int ch = 0; ch < 4; ch++)
                            if (bl->colormask & (1u << ch)) cb->cache[i * 4 + ch] = out[ch];
                        blended++;
                    }
                }
            } else if (type == TBR_REC_FRAME_END) {
                tbr_rec_frame_end fe;
                if (tbr_rec_frame_end_decode(p, n, &fe) != 0) return 1;
                /* the default framebuffer: the last color surface of the frame with the
                 * EGL surface's size */
                struct surf *m = NULL;
                for (int i = nsurfs - 1; i >= 0 && !m; i--)
                    if (&surfs[i] == last_cb && surfs[i].w == fe.width && surfs[i].h == fe.height) m = &surfs[i];
                if (!m) {
                    fprintf(stderr, "rerender: frame %llu: default framebuffer not identified\n",
                            (unsigned long long)fe.frame);
                    unsupported++;
                    continue;
                }
                char path[4096];
                snprintf(path, sizeof(path), "%s/%s", refdir, fe.png);
                tbr_image ref;
                char perr[TBR_PNG_ERR_SIZE];
                if (tbr_png_read_rgba8(path, &ref, perr, sizeof(perr)) != 0) {
                    fprintf(stderr, "%s\n", perr);
                    return 1;
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
                                        (unsigned long long)fe.frame, x, y, a[0], a[1], a[2], a[3], b[0], b[1], b[2],
                                        b[3]);
                            }
                            diff++;
                        }
                printf("frame%llu_rerender_diff_pixels=%llu\n", (unsigned long long)fe.frame, (unsigned long long)diff);
                if (diff || ref.width != m->w || ref.height != m->h) bad = 1;
                tbr_image_free(&ref);
            }
        }
        if (rc < 0) break;
    }
    if (rc < 0) {
        fprintf(stderr, "%s\n", tbr_trace_reader_error(r));
        bad = 1;
    }
    printf("rerender_render_passes=%llu\nrerender_surfaces=%d\n", (unsigned long long)passes, nsurfs);
    printf("rerender_blended_fragments=%llu\nrerender_depth_quads_checked=%llu\n"
           "rerender_depth_mismatches=%llu\nrerender_unsupported=%llu\n",
           (unsigned long long)blended, (unsigned long long)depth_checked, (unsigned long long)depth_mismatch,
           (unsigned long long)unsupported);
    if (depth_mismatch || unsupported) bad = 1;
    for (int i = 0; i < nsurfs; i++) {
        free(surfs[i].mem);
        free(surfs[i].cache);
        free(surfs[i].cached);
        free(surfs[i].depth);
    }
    tbr_trace_reader_close(r);
    return bad;
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
