/*
 * functional.records_roundtrip: every record type of formats/records is
 * encoded, written through the container (tbr_trace writer, a real file),
 * read back and decoded; the decoded struct must equal the original. Also
 * checks that truncated payloads and trailing bytes are rejected.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tbr/records.h"
#include "tbr/trace.h"

static int failures;
#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                                   \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static uint32_t rng = 12345;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}
static float rndf(void) { return (float)(rnd() % 100000) / 997.0f - 30.0f; }

/* originals, kept so that pointer fields (text/constants) can be compared */
static tbr_rec_frame_end o_fe;
static tbr_rec_resource o_res;
static tbr_rec_upload o_up;
static tbr_rec_shader o_shc, o_sh;
static tbr_rec_render_pass o_rp;
static tbr_rec_clear o_cl;
static tbr_rec_draw o_dr;
static tbr_rec_vs_textures o_vt; /* the DRAW's textures as vertex-shader units */
static tbr_rec_draw_end o_de;
static tbr_rec_prim o_pr;
static tbr_rec_quad o_q[5];
static tbr_rec_tile o_ti;
static tbr_rec_flush o_fl;
static tbr_rec_unsupported o_un;
/* SURFACE_INIT: rows 2..4 of a 5x7 surface, 4 bytes per texel */
static uint8_t si_data[3 * 5 * 4];
static tbr_rec_surface_init o_si;
static const tbr_rec_surface_check o_sc = {42, 1, 2, 800, 600, 4, 0xdeadbeefu};
static const tbr_rec_invalidate o_inv = {43, 1u | 2u | (4u << 7)};
static const uint16_t path_pc[5] = {0, 1, 2, 5, 300};
static const uint8_t path_mask[5] = {15, 15, 3, 0, 8};
static const char shader_text[] = "FRAG\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IMM[0]\n  1: END\n";
static const float consts[8] = {1, 2, 3, 4, 0.5f, -1, 1e-7f, 3.25f};

/* TEXELS: a bilinear footprint per lane, a trilinear pair, a non-rectangular
 * group, extreme coordinates, an empty fetch, a quad ordinal going back */
static const tbr_rec_texel tx0[] = {
    {0, 1, 2, 10, 20}, {0, 1, 2, 11, 20}, {0, 1, 2, 10, 21}, {0, 1, 2, 11, 21}, {1, 1, 2, 11, 20},
    {1, 1, 2, 12, 20}, {1, 1, 2, 11, 21}, {1, 1, 2, 12, 21}, {2, 0, 0, 7, 7},   {3, 1, 2, 63, 0},
    {3, 1, 2, 0, 0},   {3, 1, 2, 63, 1},  {3, 1, 2, 0, 1},
};
static const tbr_rec_texel tx1[] = {
    {0, 2, 0, -5, 3},
    {0, 2, 0, -4, 3},
    {0, 2, 0, -5, 4},
    {0, 2, 0, -4, 4},
    {0, 3, 0, -2, 1},
    {0, 3, 0, -1, 1},
    {0, 3, 0, -2, 2},
    {0, 3, 0, -1, 2},
    {1, 3, 0, 4, 4},
    {1, 3, 0, 5, 4},
    {1, 3, 0, 5, 5},
    {1, 3, 0, 4, 5},
    {2, 0, 7, INT32_MIN, INT32_MAX},
    {3, 0, 0, INT32_MAX, INT32_MIN},
};
static const tbr_rec_texfetch o_tf[3] = {
    {5, 3, 0, 17, 13, tx0},
    {2, 300, 15, 18, 14, tx1},
    {2, 7, 1, 17, 0, NULL},
};
static tbr_rec_vertices_header o_vh;
static tbr_rec_vertex_group o_vg[2];

/* VERTICES: two groups with hashes, a NaN position and a repeated position. */
static void make_vertices(void)
{
    memset(&o_vh, 0, sizeof(o_vh));
    o_vh.draw_seq = 3;
    o_vh.vs_id = 12;
    o_vh.instance_id = 2;
    o_vh.start_instance = 1;
    o_vh.num_outputs = 3;
    o_vh.position_slot = 0;
    o_vh.nr_streams = 2;
    o_vh.streams[0] = (tbr_rec_vertex_stream){40, 0, 0, 16, 8, 104, 0};
    o_vh.streams[1] = (tbr_rec_vertex_stream){0, 1, 8, 16, 8, 104, 3};
    o_vh.fetched = 6;
    o_vh.count = 2;
    memset(o_vg, 0, sizeof(o_vg));
    o_vg[0].path = 7;
    o_vg[0].n = 4;
    o_vg[1].path = 8;
    o_vg[1].n = 2;
    const uint32_t idx[6] = {100, 3, 70000, 0, 4000000000u, 5};
    for (int i = 0; i < 6; i++) {
        tbr_rec_vertex_group *g = &o_vg[i / 4];
        g->index[i % 4] = idx[i];
        for (int k = 0; k < 4; k++) g->pos[i % 4][k] = rndf();
        g->out_hash[i % 4] = rnd();
    }
    uint32_t nanbits = 0x7fc12345u;
    memcpy(&o_vg[1].pos[1][3], &nanbits, 4);
    /* a position repeating an earlier one (coded as a back-reference, minor 7) */
    memcpy(o_vg[1].pos[0], o_vg[0].pos[1], sizeof(o_vg[1].pos[0]));
    o_vh.flags = TBR_REC_VERTICES_HASHES;
}

/* FRAME_END, RESOURCE, UPLOAD, SHADER_CREATE, SHADER, RENDER_PASS and CLEAR. */
static void make_setup_records(void)
{
    o_fe.frame = 7;
    o_fe.width = 320;
    o_fe.height = 240;
    o_fe.draws = 3;
    o_fe.quads = 19200;
    o_fe.shaded_quads = 19000;
    o_fe.shaded_fragments = 76000;
    o_fe.prims = 6;
    o_fe.clears = 1;
    strcpy(o_fe.png, "reference/frame_00007.png");

    o_res.id = 42;
    o_res.target = 2;
    o_res.format = 1;
    o_res.width = 320;
    o_res.height = 240;
    o_res.depth = 1;
    o_res.array_size = 1;
    o_res.last_level = 0;
    o_res.nr_samples = 0;
    o_res.bind = 0x12;
    o_res.block_bytes = 4;
    o_res.is_display_target = 1;
    strcpy(o_res.format_name, "PIPE_FORMAT_B8G8R8A8_UNORM");

    o_up.resource_id = 42;
    o_up.level = 2;
    int32_t box[6] = {0, 4, -1, 64, 32, 1};
    memcpy(o_up.box, box, sizeof(box));
    o_up.bytes = 8192;
    o_up.flags = TBR_REC_UPLOAD_CLEAR_WRITE | TBR_REC_UPLOAD_TILE_CACHE;

    o_shc.id = 9;
    o_shc.stage = TBR_REC_STAGE_FS;
    o_shc.internal = 1;
    o_shc.num_tokens = 55;
    o_shc.num_instructions = 2;
    o_shc.text_len = (uint32_t)strlen(shader_text);
    o_sh = o_shc;
    o_sh.parent_id = 8;
    o_sh.text = shader_text;

    o_rp.seq = 1;
    o_rp.width = 320;
    o_rp.height = 240;
    o_rp.layers = 1;
    o_rp.samples = 0;
    o_rp.nr_cbufs = 2;
    o_rp.is_default = 1;
    o_rp.cbufs[0] = (tbr_rec_surface){1, 42, 1, 0, 0, 0, 320, 240};
    o_rp.cbufs[1] = (tbr_rec_surface){0, 0, 0, 0, 0, 0, 0, 0};
    o_rp.zsbuf = (tbr_rec_surface){1, 43, 17, 1, 2, 3, 160, 120};

    o_cl.buffers = 4 | 1;
    o_cl.color_f[0] = 0.2f;
    o_cl.color_f[1] = 0.3f;
    o_cl.color_f[2] = NAN;
    o_cl.color_f[3] = 1.0f;
    memcpy(o_cl.color_ui, o_cl.color_f, sizeof(o_cl.color_ui));
    o_cl.depth = 0.999999;
    o_cl.stencil = 255;
    o_cl.zs_packed = 0xffffff00ffULL;
    o_cl.has_scissor = 1;
    o_cl.scissor[2] = 320;
    o_cl.scissor[3] = 240;
}

/* DRAW: every field set, textures and constants included. */
static void make_draw(void)
{
    /* draw: fill every scalar with distinct values */
    uint32_t k = 1;
#define X_(name) o_dr.name = k++;
#define F_(name) o_dr.name = (float)k++ * 0.25f;
    TBR_REC_DRAW_FIELDS(X_, F_)
#undef X_
#undef F_
    o_dr.nr_cbufs = 2;
    o_dr.index_bias = -5;
    for (int i = 0; i < 2; i++) o_dr.stencil[i] = (tbr_rec_stencil){1, 3, 1, 2, 3, 0xff, 0x0f, 7 + (uint32_t)i};
    for (uint32_t i = 0; i < TBR_REC_MAX_CBUFS; i++)
        o_dr.rt[i] = (tbr_rec_rt_blend){1, 0, 0x14, 0x3, 0, 1, 0x11, 0xf - i};
    for (int i = 0; i < 4; i++) o_dr.blend_color[i] = rndf();
    for (int i = 0; i < 3; i++) {
        o_dr.viewport_scale[i] = rndf();
        o_dr.viewport_translate[i] = rndf();
    }
    o_dr.scissor[2] = 320;
    o_dr.scissor[3] = 240;
    o_dr.cbuf_format[0] = 1;
    o_dr.cbuf_format[1] = 2;
    o_dr.num_textures = 2;
    for (uint32_t t = 0; t < 2; t++) {
        tbr_rec_texture *x = &o_dr.textures[t];
        uint32_t f[23];
        for (size_t i = 0; i < 23; i++) f[i] = rnd() % 1000;
        _Static_assert(offsetof(tbr_rec_texture, lod_bias) == sizeof(f), "texture layout");
        memcpy(x, f, sizeof(f));
        x->lod_bias = rndf();
        x->min_lod = rndf();
        x->max_lod = rndf();
        for (int i = 0; i < 4; i++) x->border_color[i] = rndf();
    }
    o_dr.vs_const[0].data = (const uint8_t *)consts;
    o_dr.vs_const[0].size = sizeof(consts);
    o_dr.fs_const[1].data = (const uint8_t *)consts + 4;
    o_dr.fs_const[1].size = 12;
    strcpy(o_dr.unsupported, "geometry_shader,polygon_stipple");
}

/* DRAW_END, PRIM and five random QUADS. */
static void make_draw_end_prim_quads(void)
{
    o_de.seq = 3;
    o_de.prims = 2;
    o_de.quads = 100;
    o_de.shaded_quads = 90;
    o_de.shaded_fragments = 300;
    o_de.blended_fragments = 299;

    o_pr.draw_seq = 3;
    o_pr.index = 1;
    o_pr.kind = 3;
    o_pr.flags = TBR_REC_PRIM_CULLED;
    o_pr.det = -12.5f;
    o_pr.nr_attrs = 3;
    for (int v = 0; v < 3; v++)
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 4; c++) o_pr.v[v][a][c] = rndf();

    for (int i = 0; i < 5; i++) {
        tbr_rec_quad *q = &o_q[i];
        q->x = 2 * (int32_t)(rnd() % 160);
        q->y = 2 * (int32_t)(rnd() % 120);
        q->prim = rnd() % 4;
        q->prim_kind = 1 + rnd() % 3;
        q->flags = rnd() & 0x3f;
        q->in_mask = rnd() & 15;
        q->depth_mask = rnd() & 15;
        q->shade_mask = rnd() & 15;
        q->blend_mask = rnd() & 15;
        if (q->flags & TBR_REC_QUAD_SHADED) q->path = 1 + rnd() % 1000;
        if (q->flags & TBR_REC_QUAD_HAS_Z)
            for (int j = 0; j < 4; j++) q->z[j] = rnd();
        /* color buffer 0 float (with exact tile values of some channels), 1 packed */
        if (q->flags & TBR_REC_QUAD_BLENDED)
            for (int j = 0; j < 4; j++)
                if (q->blend_mask & (1u << j)) {
                    for (int ch = 0; ch < 4; ch++) q->color[0][ch][j] = rndf();
                    q->packed[1][j] = rnd();
                    q->exact_mask[0] |= (rnd() & 15u) << (4 * j);
                    for (int ch = 0; ch < 4; ch++)
                        if (q->exact_mask[0] & (1u << (4 * j + ch))) q->exact[0][ch][j] = rndf();
                }
    }
    o_q[0].x = -2; /* negative coordinates are representable */
}

/* TILE, FLUSH, UNSUPPORTED and SURFACE_INIT. */
static void make_other_records(void)
{
    o_ti = (tbr_rec_tile){TBR_REC_TILE_STORE, 0, 1, 42, 0, 0, 4, 3, 64};
    o_fl.flags = 5;
    strcpy(o_un.name, "compute");
    for (size_t i = 0; i < sizeof(si_data); i++) si_data[i] = (uint8_t)rnd();
    o_si = (tbr_rec_surface_init){.resource_id = 42,
                                  .level = 1,
                                  .layer = 2,
                                  .is_zs = 1,
                                  .format = 61,
                                  .width = 5,
                                  .height = 7,
                                  .block_bytes = 4,
                                  .y0 = 2,
                                  .rows = 3,
                                  .data = si_data};
}

/* The originals. Called in this order: the random values come from one generator. */
static void make_records(void)
{
    make_vertices();
    make_setup_records();
    make_draw();
    make_draw_end_prim_quads();
    make_other_records();
}

static int append(tbr_trace_writer *w, tbr_buf *b, uint16_t type, int rc)
{
    if (rc != 0) {
        fprintf(stderr, "encode of type %u failed\n", type);
        failures++;
        return -1;
    }
    return tbr_trace_writer_append_buf(w, type, b);
}

/* check that every strict prefix of a payload is rejected */
static void check_truncations(uint16_t type, const uint8_t *p, size_t n)
{
    for (size_t cut = 0; cut < n; cut++) {
        int rc = 0;
        union {
            tbr_rec_frame_end fe;
            tbr_rec_resource res;
            tbr_rec_upload up;
            tbr_rec_shader sh;
            tbr_rec_render_pass rp;
            tbr_rec_clear cl;
            tbr_rec_draw_end de;
            tbr_rec_tile ti;
            tbr_rec_flush fl;
            tbr_rec_unsupported un;
        } u;
        static tbr_rec_draw dr;
        static tbr_rec_prim pr;
        switch (type) {
            case TBR_REC_FRAME_END: rc = tbr_rec_frame_end_decode(p, cut, &u.fe); break;
            case TBR_REC_RESOURCE: rc = tbr_rec_resource_decode(p, cut, &u.res); break;
            case TBR_REC_UPLOAD: rc = tbr_rec_upload_decode(p, cut, &u.up); break;
            case TBR_REC_SHADER_CREATE: rc = tbr_rec_shader_create_decode(p, cut, &u.sh); break;
            case TBR_REC_SHADER: rc = tbr_rec_shader_decode(p, cut, &u.sh); break;
            case TBR_REC_RENDER_PASS: rc = tbr_rec_render_pass_decode(p, cut, &u.rp); break;
            case TBR_REC_CLEAR: rc = tbr_rec_clear_decode(p, cut, &u.cl); break;
            case TBR_REC_DRAW: rc = tbr_rec_draw_decode(p, cut, &dr); break;
            case TBR_REC_DRAW_END: rc = tbr_rec_draw_end_decode(p, cut, &u.de); break;
            case TBR_REC_PRIM: rc = tbr_rec_prim_decode(p, cut, &pr); break;
            case TBR_REC_TILE: rc = tbr_rec_tile_decode(p, cut, &u.ti); break;
            case TBR_REC_FLUSH: rc = tbr_rec_flush_decode(p, cut, &u.fl); break;
            case TBR_REC_UNSUPPORTED: rc = tbr_rec_unsupported_decode(p, cut, &u.un); break;
            case TBR_REC_PATH: {
                tbr_rec_path x;
                rc = tbr_rec_path_decode(p, cut, &x);
                break;
            }
            case TBR_REC_SURFACE_INIT: {
                tbr_rec_surface_init x;
                rc = tbr_rec_surface_init_decode(p, cut, &x);
                break;
            }
            case TBR_REC_SURFACE_CHECK: {
                tbr_rec_surface_check x;
                rc = tbr_rec_surface_check_decode(p, cut, &x);
                break;
            }
            case TBR_REC_INVALIDATE: {
                tbr_rec_invalidate x;
                rc = tbr_rec_invalidate_decode(p, cut, &x);
                break;
            }
            case TBR_REC_VS_TEXTURES: {
                static tbr_rec_vs_textures x;
                rc = tbr_rec_vs_textures_decode(p, cut, &x);
                break;
            }
            case TBR_REC_TEXELS:
            case TBR_REC_VS_TEXELS: {
                tbr_cursor c;
                tbr_rec_texels_header h;
                tbr_rec_texfetch f;
                static tbr_rec_texel t[64];
                rc = tbr_rec_texels_open(&c, p, cut, &h);
                for (uint32_t i = 0; rc == 0 && i < h.count; i++) rc = tbr_rec_texels_next(&c, &h, &f, t, 64);
                if (rc == 0) rc = tbr_rec_texels_close(&c);
                break;
            }
            case TBR_REC_VERTICES: {
                tbr_cursor c;
                static tbr_rec_vertices_header h;
                tbr_rec_vertex_group g;
                rc = tbr_rec_vertices_open(&c, p, cut, &h);
                for (uint32_t i = 0; rc == 0 && i < h.count; i++) rc = tbr_rec_vertices_next(&c, &h, &g);
                if (rc == 0) rc = tbr_rec_vertices_close(&c);
                break;
            }
            case TBR_REC_QUADS: {
                tbr_cursor c;
                tbr_rec_quads_header h;
                tbr_rec_quad q;
                rc = tbr_rec_quads_open(&c, p, cut, &h);
                for (uint32_t i = 0; rc == 0 && i < h.count; i++) rc = tbr_rec_quads_next(&c, &h, &q);
                if (rc == 0) rc = tbr_rec_quads_close(&c);
                break;
            }
            default: rc = -1;
        }
        if (rc == 0) {
            fprintf(stderr, "type %s: payload truncated to %zu of %zu bytes was accepted\n", tbr_rec_type_name(type),
                    cut, n);
            failures++;
            return;
        }
    }
}

static int same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

/* TEXELS (schema 2) corner cases: the coding predicts each fetch from the previous
 * fetch with the same (pc, unit, resource) key, so the cases below are the ones
 * where a prediction is absent, wrong or only partly usable. Every decoded texel
 * must equal the original; damaged payloads must fail cleanly. */
#define TXC_MAX_FETCHES 256
#define TXC_MAX_TEXELS  16384
static tbr_rec_texel txc_texels[TXC_MAX_TEXELS];
static tbr_rec_texfetch txc_fetches[TXC_MAX_FETCHES];
static uint32_t txc_nf, txc_nt;

static tbr_rec_texfetch *txc_fetch(uint32_t quad, uint32_t pc, uint32_t unit, uint32_t res)
{
    tbr_rec_texfetch *f = &txc_fetches[txc_nf++];
    *f = (tbr_rec_texfetch){quad, pc, unit, res, 0, &txc_texels[txc_nt]};
    return f;
}
static void txc_texel(tbr_rec_texfetch *f, uint32_t lane, uint32_t level, uint32_t layer, int32_t x, int32_t y)
{
    txc_texels[txc_nt++] = (tbr_rec_texel){lane, level, layer, x, y};
    f->n_texels++;
}
/* bilinear footprint with explicit second coordinates (wrap, clamp) */
static void txc_foot(tbr_rec_texfetch *f, uint32_t lane, uint32_t level, uint32_t layer, int32_t x0, int32_t y0,
                     int32_t x1, int32_t y1)
{
    txc_texel(f, lane, level, layer, x0, y0);
    txc_texel(f, lane, level, layer, x1, y0);
    txc_texel(f, lane, level, layer, x0, y1);
    txc_texel(f, lane, level, layer, x1, y1);
}

static int txc_decode_all(const uint8_t *p, size_t n, int compare)
{
    static tbr_rec_texel t[TBR_REC_MAX_TEXELS_PER_FETCH];
    tbr_cursor c;
    tbr_rec_texels_header h;
    if (tbr_rec_texels_open(&c, p, n, &h) != 0) return -1;
    if (compare) CHECK(h.draw_seq == 9 && h.count == txc_nf);
    for (uint32_t i = 0; i < h.count; i++) {
        tbr_rec_texfetch f;
        if (tbr_rec_texels_next(&c, &h, &f, t, TBR_REC_MAX_TEXELS_PER_FETCH) != 0) return -1;
        if (!compare || i >= txc_nf) continue;
        const tbr_rec_texfetch *o = &txc_fetches[i];
        CHECK(f.quad == o->quad && f.pc == o->pc && f.unit == o->unit && f.resource_id == o->resource_id &&
              f.n_texels == o->n_texels);
        for (uint32_t k = 0; k < f.n_texels && k < o->n_texels; k++)
            if (!same_bits(&t[k], &o->texels[k], sizeof(t[k]))) {
                fprintf(stderr, "fetch %u texel %u differs\n", i, k);
                failures++;
                break;
            }
    }
    return tbr_rec_texels_close(&c);
}

static void check_texels_coding(void)
{
    txc_nf = txc_nt = 0;
    /* first fetch of the record: no key yet; a trilinear fetch (levels 2 and 3 per
     * lane), then neighbouring quads moving by 2 texels (prediction hits) */
    for (uint32_t q = 0; q < 12; q++) {
        tbr_rec_texfetch *f = txc_fetch(q, 4, 0, 30);
        for (uint32_t lane = 0; lane < 4; lane++) {
            int32_t x = (int32_t)(2 * q + (lane & 1)), y = (int32_t)(lane >> 1);
            txc_foot(f, lane, 2, 0, x, y, x + 1, y + 1);
            txc_foot(f, lane, 3, 0, x / 2, y / 2, x / 2 + 1, y / 2 + 1);
        }
        /* a second texture instruction on the same quad (another key) */
        tbr_rec_texfetch *g = txc_fetch(q, 7, 1, 31);
        for (uint32_t lane = 0; lane < 4; lane++)
            txc_foot(g, lane, 0, 0, (int32_t)(100 - 3 * q), 5, (int32_t)(101 - 3 * q), 6);
    }
    /* level change between neighbours: lane 3 switches to level 3 (shape differs) */
    {
        tbr_rec_texfetch *f = txc_fetch(12, 4, 0, 30);
        for (uint32_t lane = 0; lane < 4; lane++) {
            uint32_t lv = lane == 3 ? 3 : 2;
            txc_foot(f, lane, lv, 0, 24, 0, 25, 1);
        }
    }
    /* wrapped footprints (REPEAT at x = w-1 and y = h-1) and clamp duplicates
     * (CLAMP_TO_EDGE: x1 = x0), and a 2x2 whose second column goes left */
    {
        tbr_rec_texfetch *f = txc_fetch(13, 7, 1, 31);
        txc_foot(f, 0, 0, 0, 63, 10, 0, 11);
        txc_foot(f, 1, 0, 0, 5, 31, 6, 0);
        txc_foot(f, 2, 0, 0, 0, 0, 0, 0);
        txc_foot(f, 3, 0, 0, 63, 63, 63, 63);
        tbr_rec_texfetch *g = txc_fetch(13, 7, 1, 31); /* same key again: same shape */
        txc_foot(g, 0, 0, 0, 63, 12, 0, 13);
        txc_foot(g, 1, 0, 0, 5, 33, 6, 2);
        txc_foot(g, 2, 0, 0, 0, 2, 0, 2);
        txc_foot(g, 3, 0, 0, 63, 63, 63, 63);
        tbr_rec_texfetch *h = txc_fetch(14, 7, 1, 31);
        txc_foot(h, 0, 0, 0, 9, 9, 8, 10);
    }
    /* nearest (single texels), layers (cube faces), three texels that almost form a
     * 2x2, and an empty fetch followed by another empty one (same empty shape) */
    {
        tbr_rec_texfetch *f = txc_fetch(15, 9, 2, 32);
        for (uint32_t lane = 0; lane < 4; lane++) txc_texel(f, lane, 0, lane + 1, (int32_t)lane, 0);
        txc_texel(f, 0, 1, 5, 1, 1);
        txc_texel(f, 0, 1, 5, 2, 1);
        txc_texel(f, 0, 1, 5, 1, 2);
        txc_fetch(15, 10, 2, 32);
        txc_fetch(16, 10, 2, 32);
    }
    /* extreme coordinates and residuals (escape coding), far apart levels */
    {
        tbr_rec_texfetch *f = txc_fetch(17, 11, 3, 33);
        txc_texel(f, 0, 0, 0, INT32_MIN, INT32_MAX);
        txc_texel(f, 1, 40, 0, INT32_MAX, INT32_MIN);
        txc_foot(f, 2, 0, 7, INT32_MAX, INT32_MIN, INT32_MIN, INT32_MAX);
        txc_texel(f, 3, 0, 0, -5, 3);
        tbr_rec_texfetch *g = txc_fetch(17, 11, 3, 33);
        txc_texel(g, 0, 0, 0, INT32_MAX, INT32_MIN);
        txc_texel(g, 1, 40, 0, INT32_MIN, INT32_MAX);
        txc_foot(g, 2, 0, 7, INT32_MIN, INT32_MAX, INT32_MAX, INT32_MIN);
        txc_texel(g, 3, 0, 0, 5, -3);
    }
    /* a fetch with more footprints than the prediction keeps (anisotropic), twice */
    for (uint32_t rep = 0; rep < 2; rep++) {
        tbr_rec_texfetch *f = txc_fetch(18 + rep, 12, 0, 34);
        for (uint32_t k = 0; k < TBR_REC_TEXELS_PRED_GROUPS + 9; k++)
            txc_foot(f, k & 3, 1, 0, (int32_t)(k * 3 + rep), (int32_t)k, (int32_t)(k * 3 + rep + 1), (int32_t)k + 1);
    }
    /* more keys than the record remembers (slots are reused), then the early keys
     * again; quad ordinals going back and jumping far ahead */
    for (uint32_t k = 0; k < 2 * TBR_REC_TEXELS_KEYS + 3; k++) {
        uint32_t pc = 100 + k % (TBR_REC_TEXELS_KEYS + 3);
        uint32_t quad = k == 5 ? 3 : k == 6 ? 4000000000u : 20 + k;
        tbr_rec_texfetch *f = txc_fetch(quad, pc, k % 4, 40 + k % 5);
        txc_foot(f, 0, k % 3, 0, (int32_t)k, (int32_t)(k * 2), (int32_t)k + 1, (int32_t)(k * 2 + 1));
    }
    /* anisotropic (EWA) footprints: per lane, rows of consecutive texels (spans,
     * minor 9) of 2-4 texels, the ellipse moving with the quad; then spans at the
     * coordinate limits and a span next to a 2x2 */
    const uint32_t ewa_first = txc_nf, ewa_texels_before = txc_nt;
    for (uint32_t q = 0; q < 12; q++) {
        tbr_rec_texfetch *f = txc_fetch(60 + q, 13, 0, 35);
        for (uint32_t lane = 0; lane < 4; lane++)
            for (int32_t r = 0; r < 4; r++) {
                const int32_t len = 2 + (int32_t)((lane + (uint32_t)r) % 3), x0 = (int32_t)(2 * q + lane) - r;
                for (int32_t k = 0; k < len; k++) txc_texel(f, lane, 1, 0, x0 + k, 10 + r);
            }
    }
    const uint32_t ewa_end = txc_nf, ewa_texels = txc_nt - ewa_texels_before;
    {
        tbr_rec_texfetch *f = txc_fetch(72, 14, 0, 35);
        for (int32_t k = 2; k >= 0; k--) txc_texel(f, 0, 0, 0, INT32_MAX - k, 0);
        for (int32_t k = 0; k < 2; k++) txc_texel(f, 1, 0, 0, INT32_MIN + k, INT32_MIN);
        for (int32_t k = 0; k < 5; k++) txc_texel(f, 2, 0, 3, 7 + k, 7);
        txc_foot(f, 2, 0, 3, 12, 7, 13, 8);
        txc_texel(f, 3, 0, 3, 20, 7);
        txc_texel(f, 3, 1, 3, 21, 7); /* another level: not the same span */
    }
    CHECK(txc_nf <= TXC_MAX_FETCHES && txc_nt <= TXC_MAX_TEXELS);
    {
        /* spans: the EWA rows cost less than half a byte per texel (texel by texel,
         * before minor 9: about two) */
        tbr_buf e;
        tbr_buf_init(&e);
        CHECK(tbr_rec_texels_encode(&e, 9, &txc_fetches[ewa_first], ewa_end - ewa_first) == 0);
        CHECK(2 * e.len < ewa_texels);
        tbr_buf_free(&e);
    }

    tbr_buf b;
    tbr_buf_init(&b);
    CHECK(tbr_rec_texels_encode(&b, 9, txc_fetches, txc_nf) == 0);
    CHECK(txc_decode_all(b.data, b.len, 1) == 0);
    /* the coding is compact where the prediction works: the 12 neighbouring
     * trilinear quads cost less than 3 bytes per footprint in all */
    tbr_buf small;
    tbr_buf_init(&small);
    CHECK(tbr_rec_texels_encode(&small, 9, txc_fetches, 24) == 0);
    CHECK(small.len < 24 * 8 * 3);
    /* every truncation and every single-byte change decodes cleanly or fails */
    for (size_t cut = 0; cut < b.len; cut++) CHECK(txc_decode_all(b.data, cut, 0) != 0);
    uint8_t *mut = malloc(b.len);
    if (mut) {
        for (size_t i = 0; i < b.len; i++)
            for (int bit = 0; bit < 8; bit += 3) {
                memcpy(mut, b.data, b.len);
                mut[i] ^= (uint8_t)(1u << bit);
                (void)txc_decode_all(mut, b.len, 0);
            }
        free(mut);
    }
    tbr_buf_free(&small);
    tbr_buf_free(&b);
}

/* QUADS depth coding (schema 3): plane prediction from the previous quad. Extreme and
 * far-apart depths round-trip; a plane's quads cost a few bytes each; a corrupt
 * residual that would leave the 32-bit range is rejected. */
static void check_depth_coding(void)
{
    static const uint32_t ext[][4] = {
        {0, 0xffffffffu, 0, 0xffffffffu},
        {0xffffffffu, 0, 0xffffffffu, 0},
        {0x7fffffffu, 0x80000000u, 1, 0xfffffffeu},
        {5, 5, 5, 5},
    };
    static const int32_t pos[][2] = {{-2, 0}, {30000, 40000}, {0, -2000000}, {2, 0}};
    tbr_buf b;
    tbr_buf_init(&b);
    tbr_rec_quads_header h;
    CHECK(tbr_rec_quads_begin(&b, &h, 1, 0, 0) == 0);
    tbr_rec_quad q[4 + 64];
    memset(q, 0, sizeof(q));
    for (int i = 0; i < 4; i++) {
        q[i].x = pos[i][0];
        q[i].y = pos[i][1];
        q[i].flags = TBR_REC_QUAD_HAS_Z;
        memcpy(q[i].z, ext[i], sizeof(q[i].z));
    }
    /* a Z24 plane z = 1000000 + 300 x - 77 y over a span of 64 quads */
    for (int i = 4; i < 68; i++) {
        q[i].x = 2 * (i - 4);
        q[i].y = 10;
        q[i].flags = TBR_REC_QUAD_HAS_Z;
        for (int j = 0; j < 4; j++)
            q[i].z[j] = (uint32_t)(1000000 + 300 * (q[i].x + (j & 1)) - 77 * (q[i].y + (j >> 1)));
    }
    for (int i = 0; i < 68; i++) CHECK(tbr_rec_quads_add(&b, &h, &q[i]) == 0);
    CHECK(tbr_rec_quads_finish(&b, 68) == 0);
    size_t plane_start = 0;
    tbr_cursor c;
    tbr_rec_quads_header d;
    CHECK(tbr_rec_quads_open(&c, b.data, b.len, &d) == 0);
    for (int i = 0; i < 68; i++) {
        tbr_rec_quad o;
        memset(&o, 0, sizeof(o));
        if (i == 5) plane_start = b.len - tbr_cursor_remaining(&c);
        CHECK(tbr_rec_quads_next(&c, &d, &o) == 0);
        CHECK(memcmp(o.z, q[i].z, sizeof(o.z)) == 0);
    }
    CHECK(tbr_rec_quads_close(&c) == 0);
    /* quads 5..67 continue the plane: x (zigzag varint: 1 byte below 64, else 2), y,
     * prim, flags, 2 masks, and 4 zero residuals of one byte each (16 bytes of u32
     * without the prediction) */
    size_t expect = 0;
    for (int i = 5; i < 68; i++) expect += q[i].x < 64 ? 10 : 11;
    CHECK(b.len - plane_start == expect);
    /* a residual putting z0 at 2^32: rejected */
    tbr_buf_reset(&b);
    tbr_buf_put_u32(&b, 1);
    tbr_buf_put_u32(&b, 0);
    tbr_buf_put_u32(&b, 1);
    tbr_buf_put_u32(&b, 0);
    tbr_buf_put_svarint(&b, 0); /* x */
    tbr_buf_put_svarint(&b, 0); /* y */
    tbr_buf_put_uvarint(&b, 0); /* prim */
    tbr_buf_put_u8(&b, TBR_REC_QUAD_HAS_Z);
    tbr_buf_put_u8(&b, 0);
    tbr_buf_put_u8(&b, 0);
    const size_t residuals = b.len;
    tbr_buf_put_svarint(&b, (int64_t)1 << 32);
    for (int k = 0; k < 3; k++) tbr_buf_put_svarint(&b, 0);
    CHECK(tbr_rec_quads_open(&c, b.data, b.len, &d) == 0);
    tbr_rec_quad o;
    CHECK(tbr_rec_quads_next(&c, &d, &o) != 0);
    /* the largest residual: no overflow, rejected */
    b.len = residuals;
    tbr_buf_put_svarint(&b, INT64_MAX);
    for (int k = 0; k < 3; k++) tbr_buf_put_svarint(&b, INT64_MIN);
    CHECK(tbr_rec_quads_open(&c, b.data, b.len, &d) == 0);
    CHECK(tbr_rec_quads_next(&c, &d, &o) != 0);
    tbr_buf_free(&b);
}

/* VERTICES position coding (minor 7): back-references to repeated positions within
 * the window, new positions raw; every position must come back bit for bit, special
 * values (NaN payloads, infinities, denormals, -0) included, and with hashes every
 * out_hash (XORed with the referenced vertex's). */
#define VXC_VERTS 4600
static tbr_rec_vertex_group vxc_groups[VXC_VERTS / 4];
static tbr_rec_vertices_header vxc_h, vxc_dec;

static void vxc_set(uint32_t v, const void *bits)
{
    tbr_rec_vertex_group *g = &vxc_groups[v / 4];
    memcpy(g->pos[v % 4], bits, 16);
}

/* decodes p; compares with vxc_groups when compare; returns 0 when it decoded */
static int vxc_decode(const uint8_t *p, size_t n, int compare, uint32_t want_flags)
{
    tbr_cursor c;
    if (tbr_rec_vertices_open(&c, p, n, &vxc_dec) != 0) return -1;
    if (compare) CHECK(vxc_dec.flags == want_flags && vxc_dec.count == vxc_h.count);
    for (uint32_t i = 0; i < vxc_dec.count; i++) {
        tbr_rec_vertex_group g;
        if (tbr_rec_vertices_next(&c, &vxc_dec, &g) != 0) return -1;
        if (!compare) continue;
        tbr_rec_vertex_group want = vxc_groups[i];
        if (!(want_flags & TBR_REC_VERTICES_HASHES)) memset(want.out_hash, 0, sizeof(want.out_hash));
        if (want_flags & TBR_REC_VERTICES_NO_POSITIONS) memset(want.pos, 0, sizeof(want.pos));
        if (!same_bits(&g, &want, sizeof(g))) {
            fprintf(stderr, "vertices coding: group %u differs\n", i);
            failures++;
            return -1;
        }
    }
    return tbr_rec_vertices_close(&c);
}

/* A coded record written by hand (no streams, n = 1 groups, positions 0 and no
 * back-reference except the last vertex's back), decoded; returns the decoder's
 * verdict. */
static int vxc_hand(tbr_buf *b, uint64_t streams_layout, uint32_t nverts, uint32_t last_back)
{
    tbr_buf_reset(b);
    for (int k = 0; k < 6; k++) tbr_buf_put_uvarint(b, 0); /* draw_seq .. position_slot + 1 */
    tbr_buf_put_uvarint(b, streams_layout);
    tbr_buf_put_uvarint(b, nverts); /* fetched */
    tbr_buf_put_uvarint(b, nverts); /* count */
    for (uint32_t v = 0; v < nverts; v++) {
        tbr_buf_put_uvarint(b, 0);              /* path */
        tbr_buf_put_uvarint(b, 1);              /* n */
        tbr_buf_put_svarint(b, 0);              /* dindex */
        if (streams_layout >> 6 == 3) continue; /* indices only (minor 10) */
        uint32_t back = v == nverts - 1 ? last_back : 0;
        tbr_buf_put_uvarint(b, back);
        if (!back)
            for (int k = 0; k < 4; k++) tbr_buf_put_f32(b, 0.0f);
        if (streams_layout >> 6 == 2) tbr_buf_put_u32(b, 0);
    }
    return vxc_decode(b->data, b->len, 0, 0);
}

static void check_vertices_coding(void)
{
    memset(&vxc_h, 0, sizeof(vxc_h));
    vxc_h.draw_seq = 5;
    vxc_h.num_outputs = 2;
    vxc_h.nr_streams = 32; /* the most: nr_streams and layout share a varint */
    vxc_h.count = VXC_VERTS / 4;
    vxc_h.fetched = VXC_VERTS;
    for (uint32_t i = 0; i < vxc_h.count; i++) {
        vxc_groups[i].path = i % 3;
        vxc_groups[i].n = 4;
        for (uint32_t j = 0; j < 4; j++) {
            vxc_groups[i].index[j] = 4 * i + j;
            vxc_groups[i].out_hash[j] = rnd();
        }
    }
    /* a grid row, then random bits */
    for (uint32_t v = 0; v < 64; v++) {
        float f[4] = {-1.0f + 0.03125f * (float)v, 0.5f, 0.25f + 1e-3f * (float)v, 1.0f};
        uint32_t b[4];
        memcpy(b, f, 16);
        vxc_set(v, b);
    }
    for (uint32_t v = 64; v < VXC_VERTS; v++) {
        uint32_t b[4] = {rnd(), rnd(), rnd(), rnd()};
        vxc_set(v, b);
    }
    /* special values */
    const uint32_t special[6][4] = {
        {0x7fc12345u, 0xffc00001u, 0x7f800001u, 0x3f800000u}, /* NaNs with payloads */
        {0x7f800000u, 0xff800000u, 0x80000000u, 0x00000000u}, /* +-inf, -0, +0 */
        {0x00000001u, 0x807fffffu, 0x00400000u, 0x00800000u}, /* denormals, min normal */
        {0xffffffffu, 0x00000000u, 0xffffffffu, 0x7fffffffu}, /* all-ones bit patterns */
        {0x7fc12345u, 0xffc00001u, 0x7f800001u, 0x3f800001u}, /* NaNs, last bit differs */
        {0x7fc12345u, 0xffc00001u, 0x7f800001u, 0x3f800000u}, /* repeats the first row */
    };
    for (uint32_t k = 0; k < 6; k++) vxc_set(70 + k, special[k]);
    /* back-references: the previous vertex, a few back, exactly the window (4096) and
     * one beyond it (coded afresh) */
    vxc_set(100, vxc_groups[99 / 4].pos[99 % 4]);
    vxc_set(110, vxc_groups[103 / 4].pos[103 % 4]);
    vxc_set(64 + 4096, vxc_groups[64 / 4].pos[64 % 4]);
    vxc_set(65 + 4097, vxc_groups[65 / 4].pos[65 % 4]);
    /* a run repeating 4 earlier vertices, as a non-indexed mesh shares corners */
    for (uint32_t v = 4300; v < 4500; v++) vxc_set(v, vxc_groups[(v % 4 + 4200) / 4].pos[v % 4]);
    /* a tail group of 2 */
    {
        tbr_rec_vertex_group *tail = &vxc_groups[vxc_h.count - 1];
        tail->n = 2;
        memset(&tail->index[2], 0, 2 * sizeof(tail->index[0])); /* decoded lanes >= n are 0 */
        memset(tail->pos[2], 0, 2 * sizeof(tail->pos[0]));
        memset(&tail->out_hash[2], 0, 2 * sizeof(tail->out_hash[0]));
    }
    vxc_h.fetched -= 2;

    tbr_buf b, b2;
    tbr_buf_init(&b);
    tbr_buf_init(&b2);
    /* positions, positions and hashes, neither (minor 10) */
    const uint32_t vxc_modes[3] = {0, TBR_REC_VERTICES_HASHES, TBR_REC_VERTICES_NO_POSITIONS};
    for (int mode = 0; mode < 3; mode++) {
        vxc_h.flags = vxc_modes[mode];
        tbr_buf_reset(&b);
        CHECK(tbr_rec_vertices_encode(&b, &vxc_h, vxc_groups) == 0);
        CHECK(vxc_decode(b.data, b.len, 1, vxc_h.flags) == 0);
        /* every truncation fails cleanly, a trailing byte is rejected */
        for (size_t cut = 0; cut < b.len; cut += 1 + cut / 64) CHECK(vxc_decode(b.data, cut, 0, 0) != 0);
        tbr_buf_put_u8(&b, 0);
        CHECK(vxc_decode(b.data, b.len, 0, 0) != 0);
    }
    /* hashes need the positions they are coded against; without positions a vertex
     * costs its index delta only */
    vxc_h.flags = TBR_REC_VERTICES_HASHES | TBR_REC_VERTICES_NO_POSITIONS;
    tbr_buf_reset(&b);
    CHECK(tbr_rec_vertices_encode(&b, &vxc_h, vxc_groups) != 0);
    vxc_h.flags = TBR_REC_VERTICES_NO_POSITIONS;
    tbr_buf_reset(&b);
    CHECK(tbr_rec_vertices_encode(&b, &vxc_h, vxc_groups) == 0);
    CHECK(b.len <= 10 + 32 * 7 + 4 + (size_t)vxc_h.count * 2 + VXC_VERTS * 2);
    /* repeated positions cost 2 bytes (dindex, back) instead of 17+: the run above */
    {
        static tbr_rec_vertices_header h;
        h = vxc_h;
        h.flags = 0;
        h.count = 4500 / 4;
        h.fetched = 4500;
        tbr_buf_reset(&b);
        CHECK(tbr_rec_vertices_encode(&b, &h, vxc_groups) == 0);
        h.count = 4300 / 4;
        h.fetched = 4300;
        tbr_buf_reset(&b2);
        CHECK(tbr_rec_vertices_encode(&b2, &h, vxc_groups) == 0);
        CHECK(b.len - b2.len <= 200 * 3 + 50 * 2);
    }
    /* the raw layout of minors 1-6 (nr_streams without layout bits, f32 positions,
     * u32 out_hash) still decodes; its flags say it has hashes */
    {
        vxc_h.flags = TBR_REC_VERTICES_HASHES;
        tbr_buf_reset(&b);
        tbr_buf_put_uvarint(&b, vxc_h.draw_seq);
        for (int k = 0; k < 3; k++) tbr_buf_put_uvarint(&b, 0); /* vs_id, instance_id, start_instance */
        tbr_buf_put_uvarint(&b, vxc_h.num_outputs);
        tbr_buf_put_uvarint(&b, 0); /* no position output */
        tbr_buf_put_uvarint(&b, 32);
        for (int k = 0; k < 32 * 7; k++) tbr_buf_put_uvarint(&b, 0);
        tbr_buf_put_uvarint(&b, vxc_h.fetched);
        tbr_buf_put_uvarint(&b, vxc_h.count);
        uint32_t prev = 0;
        for (uint32_t i = 0; i < vxc_h.count; i++) {
            tbr_buf_put_uvarint(&b, vxc_groups[i].path);
            tbr_buf_put_uvarint(&b, vxc_groups[i].n);
            for (uint32_t j = 0; j < vxc_groups[i].n; j++) {
                tbr_buf_put_svarint(&b, (int64_t)vxc_groups[i].index[j] - prev);
                prev = vxc_groups[i].index[j];
                for (int k = 0; k < 4; k++) tbr_buf_put_f32(&b, vxc_groups[i].pos[j][k]);
                tbr_buf_put_u32(&b, vxc_groups[i].out_hash[j]);
            }
        }
        CHECK(vxc_decode(b.data, b.len, 1, TBR_REC_VERTICES_HASHES) == 0);
        CHECK(vxc_dec.position_slot == UINT32_MAX && vxc_dec.nr_streams == 32);
    }
    /* damaged coded records: a back-reference before the record's first vertex or
     * beyond the window, an unknown layout, too many streams */
    CHECK(vxc_hand(&b, 64, 1, 0) == 0);
    CHECK(vxc_hand(&b, 128, 1, 0) == 0); /* layout 2: with hashes */
    CHECK(vxc_hand(&b, 64, 1, 1) != 0);  /* back 1 in the first vertex */
    CHECK(vxc_hand(&b, 64, 3, 3) != 0);  /* back 3 with 2 before it */
    CHECK(vxc_hand(&b, 128, 3, 2) == 0);
    CHECK(vxc_hand(&b, 64, 4097, 4096) == 0); /* exactly the window */
    CHECK(vxc_hand(&b, 64, 4098, 4097) != 0); /* beyond it */
    CHECK(vxc_hand(&b, 3 << 6, 5, 0) == 0);   /* layout 3: indices only (minor 10) */
    CHECK(vxc_dec.flags == TBR_REC_VERTICES_NO_POSITIONS);
    CHECK(vxc_hand(&b, 4 << 6, 1, 0) != 0);  /* layout 4 */
    CHECK(vxc_hand(&b, 64 + 33, 1, 0) != 0); /* 33 streams */
    tbr_buf_free(&b);
    tbr_buf_free(&b2);
}

/* Writes one record of every type (a frame of the trace at path). Returns -1 if the writer
 * cannot be opened; *qh is the QUADS record's header, reused by the refusal checks. */
static int write_records(const char *path, tbr_buf *b, tbr_rec_quads_header *qh)
{
    tbr_trace_error err;
    tbr_trace_writer *w = tbr_trace_writer_open(path, "records_schema=" TBR_RECORDS_SCHEMA_TEXT "\n", &err);
    if (!w) {
        fprintf(stderr, "writer: %s\n", err.msg);
        return -1;
    }
    CHECK(tbr_trace_writer_begin_frame(w, 7) == 0);
#define PUT(type, call)                                                                                                \
    do {                                                                                                               \
        tbr_buf_reset(b);                                                                                              \
        CHECK(append(w, b, type, call) == 0);                                                                          \
    } while (0)
    PUT(TBR_REC_RESOURCE, tbr_rec_resource_encode(b, &o_res));
    PUT(TBR_REC_UPLOAD, tbr_rec_upload_encode(b, &o_up));
    PUT(TBR_REC_SHADER_CREATE, tbr_rec_shader_create_encode(b, &o_shc));
    PUT(TBR_REC_SHADER, tbr_rec_shader_encode(b, &o_sh));
    PUT(TBR_REC_RENDER_PASS, tbr_rec_render_pass_encode(b, &o_rp));
    PUT(TBR_REC_CLEAR, tbr_rec_clear_encode(b, &o_cl));
    PUT(TBR_REC_DRAW, tbr_rec_draw_encode(b, &o_dr));
    PUT(TBR_REC_PRIM, tbr_rec_prim_encode(b, &o_pr));
    tbr_buf_reset(b);
    CHECK(tbr_rec_quads_begin(b, qh, 3, 2, 0x2) == 0);
    for (int i = 0; i < 5; i++) CHECK(tbr_rec_quads_add(b, qh, &o_q[i]) == 0);
    CHECK(tbr_rec_quads_finish(b, 5) == 0);
    CHECK(append(w, b, TBR_REC_QUADS, 0) == 0);
    PUT(TBR_REC_TILE, tbr_rec_tile_encode(b, &o_ti));
    PUT(TBR_REC_FLUSH, tbr_rec_flush_encode(b, &o_fl));
    PUT(TBR_REC_UNSUPPORTED, tbr_rec_unsupported_encode(b, &o_un));
    PUT(TBR_REC_TEXELS, tbr_rec_texels_encode(b, 3, o_tf, 3));
    PUT(TBR_REC_VERTICES, tbr_rec_vertices_encode(b, &o_vh, o_vg));
    PUT(TBR_REC_VS_TEXELS, tbr_rec_texels_encode(b, 3, o_tf, 3));
    memset(&o_vt, 0, sizeof(o_vt));
    o_vt.draw_seq = 3;
    o_vt.num_textures = o_dr.num_textures;
    memcpy(o_vt.textures, o_dr.textures, sizeof(o_vt.textures));
    PUT(TBR_REC_VS_TEXTURES, tbr_rec_vs_textures_encode(b, &o_vt));
    PUT(TBR_REC_DRAW_END, tbr_rec_draw_end_encode(b, &o_de));
    PUT(TBR_REC_SURFACE_INIT, tbr_rec_surface_init_encode(b, &o_si));
    PUT(TBR_REC_SURFACE_CHECK, tbr_rec_surface_check_encode(b, &o_sc));
    PUT(TBR_REC_INVALIDATE, tbr_rec_invalidate_encode(b, &o_inv));
    {
        tbr_rec_path pth = {.id = 4,
                            .shader_id = 9,
                            .stage = TBR_REC_STAGE_FS,
                            .truncated = 1,
                            .n = 5,
                            .pc = path_pc,
                            .mask = path_mask};
        PUT(TBR_REC_PATH, tbr_rec_path_encode(b, &pth));
    }
    PUT(TBR_REC_FRAME_END, tbr_rec_frame_end_encode(b, &o_fe));
    CHECK(tbr_trace_writer_end_frame(w) == 0);
    CHECK(tbr_trace_writer_close(w, NULL, &err) == 0);
#undef PUT
    return 0;
}

/* Invalid quads are refused by the QUADS encoder. */
static void check_refused_quads(tbr_buf *b, tbr_rec_quads_header *qh)
{
    tbr_rec_quad bad = o_q[1];
    bad.in_mask = 16;
    tbr_buf_reset(b);
    CHECK(tbr_rec_quads_add(b, qh, &bad) != 0);
    /* exact values only for lanes the blend stage wrote; packed buffers must exist */
    bad = o_q[1];
    bad.flags = TBR_REC_QUAD_BLENDED;
    bad.blend_mask = 0x1;
    bad.exact_mask[0] = 0x10;
    CHECK(tbr_rec_quads_add(b, qh, &bad) != 0);
    bad.exact_mask[0] = 0x1;
    CHECK(tbr_rec_quads_add(b, qh, &bad) == 0);
    CHECK(tbr_rec_quads_begin(b, qh, 3, 2, 0x4) != 0); /* packed buffer 2 of 2 */
}

/* PRIM: all attributes of a primitive setup kept; of a culled one (minor 5) only
 * the positions, and a culled one written with every attribute (older
 * recorders) still decodes whole */
static void check_prim_coding(void)
{
    tbr_rec_prim kept = o_pr, got;
    kept.flags = 0;
    tbr_buf pb;
    tbr_buf_init(&pb);
    CHECK(tbr_rec_prim_encode(&pb, &kept) == 0);
    const size_t full_len = pb.len;
    CHECK(tbr_rec_prim_decode(pb.data, pb.len, &got) == 0 && same_bits(&got, &kept, sizeof(got)));
    tbr_buf_reset(&pb);
    CHECK(tbr_rec_prim_encode(&pb, &o_pr) == 0);
    CHECK(pb.len + 3 * 2 * 16 == full_len); /* 3 vertices x 2 attributes left out */
    /* old layout: the culled flag over the full payload */
    tbr_buf_reset(&pb);
    CHECK(tbr_rec_prim_encode(&pb, &kept) == 0);
    pb.data[3] = (uint8_t)TBR_REC_PRIM_CULLED; /* varints draw_seq 3, index 1, kind 3, then flags */
    CHECK(tbr_rec_prim_decode(pb.data, pb.len, &got) == 0);
    CHECK(got.flags == TBR_REC_PRIM_CULLED && same_bits(got.v, kept.v, sizeof(got.v)));
    tbr_buf_free(&pb);
}

/* Compact PRIM and QUADS (minor 11). PRIM: det left out when calc_det of the window
 * positions gives its bits (special values included), kept otherwise; a hand-written
 * minor-10 payload (det stored) still decodes. QUADS streams: the same quads as the
 * minor-10 layout, far-apart and extreme positions and depths included; corrupt stream
 * lengths, bytes left in a stream and a position leaving int32 are rejected. */
static float calc_det(const tbr_rec_prim *r)
{
    const float ex = r->v[0][0][0] - r->v[2][0][0], ey = r->v[0][0][1] - r->v[2][0][1];
    const float fx = r->v[1][0][0] - r->v[2][0][0], fy = r->v[1][0][1] - r->v[2][0][1];
    return ex * fy - ey * fx;
}

static void check_prim_det(void)
{
    static const uint32_t special[] = {0x7fc01234u, 0xff800000u, 0x80000000u, 0x00000001u, 0x7f7fffffu};
    tbr_buf pb;
    tbr_buf_init(&pb);
    for (int t = 0; t < 7; t++) {
        tbr_rec_prim pr = o_pr, got;
        pr.flags = t & 1 ? TBR_REC_PRIM_CULLED : 0;
        if (t >= 2) memcpy(&pr.v[t % 3][0][t & 1], &special[t - 2], 4); /* NaN payload, -inf, -0, denormal, max */
        pr.det = calc_det(&pr);
        const size_t nattr = pr.flags ? 1 : pr.nr_attrs;
        tbr_buf_reset(&pb);
        CHECK(tbr_rec_prim_encode(&pb, &pr) == 0);
        CHECK(pb.len == 4 + 1 + 3 * nattr * 16); /* 4 one-byte varints and nr_attrs, no det */
        CHECK(pb.data[3] == (pr.flags | TBR_REC_PRIM_DET_DERIVED));
        CHECK(tbr_rec_prim_decode(pb.data, pb.len, &got) == 0);
        if (!pr.flags) CHECK(same_bits(&got, &pr, sizeof(got)));
        CHECK(same_bits(&got.det, &pr.det, 4) && got.flags == pr.flags);
    }
    /* det not calc_det's (a different rounding): stored, 4 bytes more */
    tbr_rec_prim pr = o_pr, got;
    pr.flags = 0;
    pr.det = calc_det(&pr);
    tbr_buf_reset(&pb);
    CHECK(tbr_rec_prim_encode(&pb, &pr) == 0);
    const size_t derived_len = pb.len;
    uint32_t bits;
    memcpy(&bits, &pr.det, 4);
    bits ^= 1;
    memcpy(&pr.det, &bits, 4);
    tbr_buf_reset(&pb);
    CHECK(tbr_rec_prim_encode(&pb, &pr) == 0);
    CHECK(pb.len == derived_len + 4 && pb.data[3] == 0);
    CHECK(tbr_rec_prim_decode(pb.data, pb.len, &got) == 0 && same_bits(&got, &pr, sizeof(got)));
    /* the coding bit is no struct flag; lines and triangles without positions keep det */
    pr.flags = TBR_REC_PRIM_DET_DERIVED;
    CHECK(tbr_rec_prim_encode(&pb, &pr) != 0);
    pr.flags = 0;
    pr.nr_attrs = 0;
    pr.det = 0.0f;
    tbr_buf_reset(&pb);
    CHECK(tbr_rec_prim_encode(&pb, &pr) == 0 && pb.data[3] == 0);
    pb.data[3] = TBR_REC_PRIM_DET_DERIVED; /* claims a derived det with nothing to derive it from */
    CHECK(tbr_rec_prim_decode(pb.data, pb.len, &got) != 0);
    /* hand-written minor-10 payload: line, det stored, one attribute */
    tbr_buf_reset(&pb);
    tbr_buf_put_uvarint(&pb, 9);
    tbr_buf_put_uvarint(&pb, 4);
    tbr_buf_put_uvarint(&pb, 2);
    tbr_buf_put_uvarint(&pb, 0);
    tbr_buf_put_f32(&pb, 0.25f);
    tbr_buf_put_uvarint(&pb, 1);
    for (int k = 0; k < 8; k++) tbr_buf_put_f32(&pb, (float)k);
    CHECK(tbr_rec_prim_decode(pb.data, pb.len, &got) == 0);
    CHECK(got.draw_seq == 9 && got.index == 4 && got.kind == 2 && got.det == 0.25f && got.v[1][0][3] == 7.0f);
    pb.data[3] = TBR_REC_PRIM_DET_DERIVED; /* a line has no calc_det */
    CHECK(tbr_rec_prim_decode(pb.data, pb.len - 4, &got) != 0);
    tbr_buf_free(&pb);
}

#define SQ_N 80
static tbr_rec_quad sq_in[SQ_N];

static int sq_encode(tbr_buf *b, uint32_t flags, uint32_t n)
{
    tbr_rec_quads_header h;
    tbr_buf_reset(b);
    if (tbr_rec_quads_begin(b, &h, 3, 2, 0x2 | flags)) return -1;
    for (uint32_t i = 0; i < n; i++)
        if (tbr_rec_quads_add(b, &h, &sq_in[i])) return -1;
    return tbr_rec_quads_finish(b, n);
}

/* 0: every quad decoded equal to sq_in and the record read exactly; -1 otherwise */
static int sq_decode(const uint8_t *p, size_t n)
{
    tbr_cursor c;
    tbr_rec_quads_header h;
    if (tbr_rec_quads_open(&c, p, n, &h)) return -1;
    for (uint32_t i = 0; i < h.count; i++) {
        tbr_rec_quad q;
        memset(&q, 0, sizeof(q));
        if (tbr_rec_quads_next(&c, &h, &q) || !same_bits(&q, &sq_in[i], sizeof(q))) return -1;
    }
    return tbr_rec_quads_close(&c);
}

static void check_quads_streams(void)
{
    memset(sq_in, 0, sizeof(sq_in));
    for (int i = 0; i < 5; i++) sq_in[i] = o_q[i];
    static const int32_t far[][2] = {{INT32_MIN, INT32_MAX}, {INT32_MAX, INT32_MIN}, {0, 0}, {-2, 2000000}};
    for (int i = 5; i < 9; i++) { /* moves of almost 2^32, extreme depths */
        sq_in[i].x = far[i - 5][0];
        sq_in[i].y = far[i - 5][1];
        sq_in[i].flags = TBR_REC_QUAD_HAS_Z | TBR_REC_QUAD_SHADED;
        sq_in[i].path = UINT32_MAX;
        sq_in[i].prim = UINT32_MAX - (uint32_t)i;
        for (int j = 0; j < 4; j++) sq_in[i].z[j] = j & 1 ? UINT32_MAX : 0;
    }
    for (int i = 9; i < SQ_N; i++) { /* a span of a triangle: moves of (2, 0) */
        sq_in[i].x = 2 * i;
        sq_in[i].y = 6;
        sq_in[i].prim = (uint32_t)i / 8;
        sq_in[i].flags = TBR_REC_QUAD_HAS_Z | TBR_REC_QUAD_SHADED | TBR_REC_QUAD_DEPTH_OUT;
        sq_in[i].in_mask = sq_in[i].depth_mask = 15;
        sq_in[i].path = 7;
        for (int j = 0; j < 4; j++) sq_in[i].z[j] = (uint32_t)(5000 + 3 * (sq_in[i].x + (j & 1)) + 11 * (j >> 1));
    }
    tbr_buf rows, st;
    tbr_buf_init(&rows);
    tbr_buf_init(&st);
    CHECK(sq_encode(&rows, 0, SQ_N) == 0 && sq_decode(rows.data, rows.len) == 0); /* minor-10 layout */
    CHECK(sq_encode(&st, TBR_REC_QUADS_STREAMS, SQ_N) == 0 && sq_decode(st.data, st.len) == 0);
    CHECK(st.len < rows.len); /* the span's positions: 2 one-byte moves instead of x up to 2 bytes */
    tbr_cursor c;
    tbr_rec_quads_header h;
    CHECK(tbr_rec_quads_open(&c, st.data, st.len, &h) == 0 && h.streams == 1 && h.packed_mask == 0x2);
    CHECK(tbr_rec_quads_set_texels_derived(&st, 1) == 0);
    CHECK(tbr_rec_quads_open(&c, st.data, st.len, &h) == 0 && h.texels_derived == 1 && h.streams == 1);
    CHECK(sq_decode(st.data, st.len) == 0);
    /* a record without quads: six zero lengths */
    tbr_buf e;
    tbr_buf_init(&e);
    CHECK(sq_encode(&e, TBR_REC_QUADS_STREAMS, 0) == 0 && e.len == 16 + 6 && sq_decode(e.data, e.len) == 0);
    /* a byte more than the lengths say, or a length too long: refused at open */
    uint8_t *longer = malloc(st.len + 1);
    memcpy(longer, st.data, st.len);
    longer[st.len] = 0;
    CHECK(tbr_rec_quads_open(&c, longer, st.len + 1, &h) != 0);
    CHECK(tbr_rec_quads_open(&c, st.data, st.len - 1, &h) != 0);
    /* moving a byte from the positions' stream to the prims' one keeps the total: the
     * quads misparse or a stream has bytes left, never an equal decode */
    {
        tbr_cursor lc;
        tbr_cursor_init(&lc, st.data + 16, st.len - 16);
        uint64_t len[TBR_REC_QUADS_NSTREAMS];
        for (uint32_t k = 0; k < TBR_REC_QUADS_NSTREAMS; k++) len[k] = tbr_cursor_uvarint(&lc);
        CHECK(tbr_cursor_ok(&lc) && len[0] > 0);
        len[0]--;
        len[1]++;
        tbr_buf m;
        tbr_buf_init(&m);
        tbr_buf_put_bytes(&m, st.data, 16);
        for (uint32_t k = 0; k < TBR_REC_QUADS_NSTREAMS; k++) tbr_buf_put_uvarint(&m, len[k]);
        tbr_buf_put_bytes(&m, st.data + 16 + lc.pos, st.len - 16 - lc.pos);
        CHECK(m.len == st.len && sq_decode(m.data, m.len) != 0);
        tbr_buf_free(&m);
    }
    /* a move taking x past INT32_MAX: rejected */
    sq_in[0].x = INT32_MAX;
    CHECK(sq_encode(&e, TBR_REC_QUADS_STREAMS, 1) == 0 && sq_decode(e.data, e.len) == 0);
    static const uint8_t max_move[] = {0xfe, 0xff, 0xff, 0xff, 0x0f}; /* zigzag(INT32_MAX) */
    static const uint8_t past_max[] = {0x80, 0x80, 0x80, 0x80, 0x10}; /* zigzag(2^31) */
    CHECK(memcmp(e.data + 22, max_move, 5) == 0);
    memcpy(e.data + 22, past_max, 5);
    {
        tbr_cursor c2;
        tbr_rec_quads_header h2;
        tbr_rec_quad q2;
        CHECK(tbr_rec_quads_open(&c2, e.data, e.len, &h2) == 0 && tbr_rec_quads_next(&c2, &h2, &q2) != 0);
    }
    free(longer);
    tbr_buf_free(&e);
    tbr_buf_free(&rows);
    tbr_buf_free(&st);
}

/* computed colors (minor 5): the same quads without color values or packed
 * pixels; exact tile values of float buffers kept; header flag round-trips */
static void check_computed_colors(void)
{
    tbr_buf full, comp;
    tbr_buf_init(&full);
    tbr_buf_init(&comp);
    tbr_rec_quads_header hf, hc;
    CHECK(tbr_rec_quads_begin(&full, &hf, 3, 2, 0x2) == 0);
    CHECK(tbr_rec_quads_begin(&comp, &hc, 3, 2, 0x2 | TBR_REC_QUADS_COMPUTED) == 0);
    CHECK(hc.computed == 1 && hc.packed_mask == 0x2 && hf.computed == 0);
    for (int i = 0; i < 5; i++) {
        CHECK(tbr_rec_quads_add(&full, &hf, &o_q[i]) == 0);
        CHECK(tbr_rec_quads_add(&comp, &hc, &o_q[i]) == 0);
    }
    CHECK(tbr_rec_quads_finish(&full, 5) == 0 && tbr_rec_quads_finish(&comp, 5) == 0);
    CHECK(comp.len < full.len);
    tbr_cursor c;
    tbr_rec_quads_header h;
    CHECK(tbr_rec_quads_open(&c, comp.data, comp.len, &h) == 0);
    CHECK(h.computed == 1 && h.packed_mask == 0x2 && h.count == 5);
    int saw_exact = 0;
    for (uint32_t i = 0; i < h.count; i++) {
        tbr_rec_quad q, want = o_q[i];
        memset(&q, 0, sizeof(q)); /* buffers >= nr_cbufs are left as they were */
        CHECK(tbr_rec_quads_next(&c, &h, &q) == 0);
        memset(want.color, 0, sizeof(want.color));
        memset(want.packed, 0, sizeof(want.packed));
        CHECK(same_bits(&q, &want, sizeof(q)));
        saw_exact |= q.exact_mask[0] != 0;
    }
    CHECK(saw_exact); /* the test quads do carry exact values */
    CHECK(tbr_rec_quads_close(&c) == 0);
    /* a bit that is no flag (bit 28 is one since minor 12) names a color buffer past nr_cbufs */
    CHECK(tbr_rec_quads_begin(&comp, &hc, 3, 2, 0x08000000u) != 0);
    tbr_buf_free(&full);
    tbr_buf_free(&comp);
}

/* derived texels (minor 6): a header flag, set at encoding or patched into a
 * finished record; the quads are unchanged; both flags round-trip together */
static void check_derived_texels(void)
{
    tbr_buf plain, der;
    tbr_buf_init(&plain);
    tbr_buf_init(&der);
    tbr_rec_quads_header hp, hd;
    CHECK(tbr_rec_quads_begin(&plain, &hp, 3, 2, 0x2 | TBR_REC_QUADS_COMPUTED) == 0);
    CHECK(tbr_rec_quads_begin(&der, &hd, 3, 2, 0x2 | TBR_REC_QUADS_COMPUTED | TBR_REC_QUADS_TEXELS_DERIVED) == 0);
    CHECK(hp.texels_derived == 0 && hd.texels_derived == 1 && hd.computed == 1 && hd.packed_mask == 0x2);
    for (int i = 0; i < 5; i++) {
        CHECK(tbr_rec_quads_add(&plain, &hp, &o_q[i]) == 0);
        CHECK(tbr_rec_quads_add(&der, &hd, &o_q[i]) == 0);
    }
    CHECK(tbr_rec_quads_finish(&plain, 5) == 0 && tbr_rec_quads_finish(&der, 5) == 0);
    CHECK(plain.len == der.len && memcmp(plain.data, der.data, 12) == 0 &&
          memcmp(plain.data + 16, der.data + 16, plain.len - 16) == 0);
    tbr_cursor c;
    tbr_rec_quads_header h;
    CHECK(tbr_rec_quads_open(&c, plain.data, plain.len, &h) == 0);
    CHECK(h.texels_derived == 0 && h.computed == 1);
    CHECK(tbr_rec_quads_set_texels_derived(&plain, 1) == 0);
    CHECK(plain.len == der.len && memcmp(plain.data, der.data, plain.len) == 0);
    for (int on = 1; on >= 0; on--) {
        CHECK(tbr_rec_quads_set_texels_derived(&plain, on) == 0);
        CHECK(tbr_rec_quads_open(&c, plain.data, plain.len, &h) == 0);
        CHECK(h.texels_derived == (uint32_t)on && h.computed == 1 && h.packed_mask == 0x2 && h.count == 5);
        for (uint32_t i = 0; i < h.count; i++) {
            tbr_rec_quad q, want = o_q[i];
            memset(&q, 0, sizeof(q));
            CHECK(tbr_rec_quads_next(&c, &h, &q) == 0);
            memset(want.color, 0, sizeof(want.color));
            memset(want.packed, 0, sizeof(want.packed));
            CHECK(same_bits(&q, &want, sizeof(q)));
        }
        CHECK(tbr_rec_quads_close(&c) == 0);
    }
    /* a minor-5 reading (flag unknown) takes it for a color buffer: rejected */
    CHECK((TBR_REC_QUADS_TEXELS_DERIVED >> 2) != 0);
    tbr_buf short_buf;
    tbr_buf_init(&short_buf);
    CHECK(tbr_rec_quads_set_texels_derived(&short_buf, 1) != 0); /* no header */
    tbr_buf_free(&short_buf);
    tbr_buf_free(&plain);
    tbr_buf_free(&der);
}

/* derived depths (minor 12), interleaved and streams layouts: the record carries no depths
 * (they decode as 0, the header says derived), everything else reads back unchanged */
static void check_derived_depths(void)
{
    for (int streams = 0; streams < 2; streams++) {
        tbr_buf plain, der;
        tbr_buf_init(&plain);
        tbr_buf_init(&der);
        tbr_rec_quads_header hp, hd;
        const uint32_t base = 0x2 | (streams ? TBR_REC_QUADS_STREAMS : 0);
        CHECK(tbr_rec_quads_begin(&plain, &hp, 3, 2, base) == 0);
        CHECK(tbr_rec_quads_begin(&der, &hd, 3, 2, base | TBR_REC_QUADS_DEPTHS_DERIVED) == 0);
        CHECK(hp.depths_derived == 0 && hd.depths_derived == 1 && hd.packed_mask == 0x2);
        int with_z = 0;
        for (int i = 0; i < 5; i++) {
            CHECK(tbr_rec_quads_add(&plain, &hp, &o_q[i]) == 0);
            CHECK(tbr_rec_quads_add(&der, &hd, &o_q[i]) == 0);
            with_z += (o_q[i].flags & TBR_REC_QUAD_HAS_Z) != 0;
        }
        CHECK(with_z > 0);
        CHECK(tbr_rec_quads_finish(&plain, 5) == 0 && tbr_rec_quads_finish(&der, 5) == 0);
        CHECK(der.len + 4 * (size_t)with_z <= plain.len);
        tbr_cursor c;
        tbr_rec_quads_header h;
        CHECK(tbr_rec_quads_open(&c, der.data, der.len, &h) == 0);
        CHECK(h.depths_derived == 1 && h.streams == (uint32_t)streams && h.count == 5);
        for (uint32_t i = 0; i < h.count; i++) {
            tbr_rec_quad q, want = o_q[i];
            memset(&q, 0, sizeof(q));
            CHECK(tbr_rec_quads_next(&c, &h, &q) == 0);
            memset(want.z, 0, sizeof(want.z));
            CHECK(same_bits(&q, &want, sizeof(q)));
        }
        CHECK(tbr_rec_quads_close(&c) == 0);
        tbr_buf_free(&plain);
        tbr_buf_free(&der);
    }
}

/* Invalid values of the other record types are refused by their encoders. */
static void check_refused_values(tbr_buf *b)
{
    tbr_rec_upload badu = o_up;
    badu.flags = 0x4; /* unknown flag (0x1 CLEAR_WRITE, 0x2 TILE_CACHE are defined) */
    CHECK(tbr_rec_upload_encode(b, &badu) != 0);
    tbr_rec_tile badt = o_ti;
    badt.kind = 9;
    CHECK(tbr_rec_tile_encode(b, &badt) != 0);
    tbr_rec_texel badtx[1] = {{4, 0, 0, 0, 0}};
    tbr_rec_texfetch badf = {0, 0, 0, 1, 1, badtx};
    CHECK(tbr_rec_texels_encode(b, 0, &badf, 1) != 0);
    tbr_rec_vertex_group badg = o_vg[0];
    badg.n = 5;
    CHECK(tbr_rec_vertices_encode(b, &o_vh, &badg) != 0);
    badg.n = 0;
    CHECK(tbr_rec_vertices_encode(b, &o_vh, &badg) != 0);
    tbr_rec_vs_textures badvt = o_vt;
    badvt.num_textures = TBR_REC_MAX_TEXTURES + 1;
    CHECK(tbr_rec_vs_textures_encode(b, &badvt) != 0);
    tbr_rec_surface_init badsi = o_si;
    badsi.rows = 6; /* past the surface's last row */
    CHECK(tbr_rec_surface_init_encode(b, &badsi) != 0);
    badsi = o_si;
    badsi.block_bytes = 0;
    CHECK(tbr_rec_surface_init_encode(b, &badsi) != 0);
    badsi = o_si;
    badsi.data = NULL;
    CHECK(tbr_rec_surface_init_encode(b, &badsi) != 0);
}

/* DRAW: pointer fields compared by content, the rest bit for bit. */
static void check_draw_record(const uint8_t *p, size_t n, const uint8_t *longer)
{
    static tbr_rec_draw dr;
    CHECK(tbr_rec_draw_decode(p, n, &dr) == 0);
    /* compare pointers separately, then the rest with them zeroed */
    for (uint32_t i = 0; i < TBR_REC_MAX_CONSTBUFS; i++) {
        CHECK(dr.vs_const[i].size == o_dr.vs_const[i].size);
        CHECK(dr.fs_const[i].size == o_dr.fs_const[i].size);
        if (dr.vs_const[i].size) CHECK(memcmp(dr.vs_const[i].data, o_dr.vs_const[i].data, dr.vs_const[i].size) == 0);
        if (dr.fs_const[i].size) CHECK(memcmp(dr.fs_const[i].data, o_dr.fs_const[i].data, dr.fs_const[i].size) == 0);
    }
    static tbr_rec_draw a, c2;
    a = dr;
    c2 = o_dr;
    memset(a.vs_const, 0, sizeof(a.vs_const));
    memset(a.fs_const, 0, sizeof(a.fs_const));
    memset(c2.vs_const, 0, sizeof(c2.vs_const));
    memset(c2.fs_const, 0, sizeof(c2.fs_const));
    CHECK(same_bits(&a, &c2, sizeof(a)));
    CHECK(tbr_rec_draw_decode(longer, n + 1, &dr) != 0);
}

static void check_prim_record(const uint8_t *p, size_t n, const uint8_t *longer)
{
    static tbr_rec_prim pr;
    CHECK(tbr_rec_prim_decode(p, n, &pr) == 0);
    {
        /* culled: window positions only (minor 5); the other attributes read 0 */
        tbr_rec_prim want = o_pr;
        for (int v = 0; v < 3; v++)
            for (uint32_t a = 1; a < TBR_REC_MAX_ATTRIBS; a++) memset(want.v[v][a], 0, sizeof(want.v[v][a]));
        CHECK(same_bits(&pr, &want, sizeof(pr)));
    }
    CHECK(tbr_rec_prim_decode(longer, n + 1, &pr) != 0);
}

static void check_quads_record(const uint8_t *p, size_t n, const uint8_t *longer)
{
    tbr_cursor c;
    tbr_rec_quads_header h;
    CHECK(tbr_rec_quads_open(&c, p, n, &h) == 0);
    CHECK(h.draw_seq == 3 && h.nr_cbufs == 2 && h.count == 5 && h.packed_mask == 0x2);
    for (uint32_t i = 0; i < h.count && i < 5; i++) {
        tbr_rec_quad q;
        memset(&q, 0, sizeof(q)); /* buffers >= nr_cbufs are left as they were */
        CHECK(tbr_rec_quads_next(&c, &h, &q) == 0);
        CHECK(same_bits(&q, &o_q[i], sizeof(q)));
    }
    CHECK(tbr_rec_quads_close(&c) == 0);
    tbr_cursor c2;
    CHECK(tbr_rec_quads_open(&c2, longer, n + 1, &h) == 0);
    for (uint32_t i = 0; i < h.count; i++) {
        tbr_rec_quad q;
        CHECK(tbr_rec_quads_next(&c2, &h, &q) == 0);
    }
    CHECK(tbr_rec_quads_close(&c2) != 0);
}

/* TEXELS and VS_TEXELS: the same payload (VS_TEXELS: quad = VS group). */
static void check_texels_record(const uint8_t *p, size_t n, const uint8_t *longer)
{
    tbr_cursor c;
    tbr_rec_texels_header h;
    static tbr_rec_texel t[64];
    CHECK(tbr_rec_texels_open(&c, p, n, &h) == 0);
    CHECK(h.draw_seq == 3 && h.count == 3);
    for (uint32_t i = 0; i < h.count && i < 3; i++) {
        tbr_rec_texfetch f;
        CHECK(tbr_rec_texels_next(&c, &h, &f, t, 64) == 0);
        CHECK(f.quad == o_tf[i].quad && f.pc == o_tf[i].pc && f.unit == o_tf[i].unit &&
              f.resource_id == o_tf[i].resource_id && f.n_texels == o_tf[i].n_texels);
        for (uint32_t k = 0; k < f.n_texels && k < o_tf[i].n_texels; k++)
            CHECK(same_bits(&t[k], &o_tf[i].texels[k], sizeof(t[k])));
    }
    CHECK(tbr_rec_texels_close(&c) == 0);
    /* too small a caller buffer is refused */
    tbr_rec_texfetch f;
    CHECK(tbr_rec_texels_open(&c, p, n, &h) == 0);
    CHECK(tbr_rec_texels_next(&c, &h, &f, t, 12) != 0);
    /* trailing byte */
    CHECK(tbr_rec_texels_open(&c, longer, n + 1, &h) == 0);
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < h.count; i++) rc = tbr_rec_texels_next(&c, &h, &f, t, 64);
    CHECK(rc == 0 && tbr_rec_texels_close(&c) != 0);
}

static void check_vertices_record(const uint8_t *p, size_t n, const uint8_t *longer)
{
    tbr_cursor c;
    static tbr_rec_vertices_header h;
    CHECK(tbr_rec_vertices_open(&c, p, n, &h) == 0);
    CHECK(same_bits(&h, &o_vh, offsetof(tbr_rec_vertices_header, prev_index)));
    for (uint32_t i = 0; i < h.count && i < 2; i++) {
        tbr_rec_vertex_group g;
        CHECK(tbr_rec_vertices_next(&c, &h, &g) == 0);
        CHECK(same_bits(&g, &o_vg[i], sizeof(g)));
    }
    CHECK(tbr_rec_vertices_close(&c) == 0);
    CHECK(tbr_rec_vertices_open(&c, longer, n + 1, &h) == 0);
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < h.count; i++) {
        tbr_rec_vertex_group g;
        rc = tbr_rec_vertices_next(&c, &h, &g);
    }
    CHECK(rc == 0 && tbr_rec_vertices_close(&c) != 0);
}

static void check_surface_init_record(const uint8_t *p, size_t n, const uint8_t *longer, tbr_buf *b)
{
    tbr_rec_surface_init x;
    CHECK(tbr_rec_surface_init_decode(p, n, &x) == 0);
    CHECK(x.data != NULL && memcmp(x.data, si_data, sizeof(si_data)) == 0);
    tbr_rec_surface_init xs = x, os = o_si;
    xs.data = os.data = NULL;
    CHECK(same_bits(&xs, &os, sizeof(xs)));
    CHECK(tbr_rec_surface_init_decode(longer, n + 1, &x) != 0);
    /* a data length that disagrees with rows * width * block_bytes is refused:
     * re-encode with one row less but keep the payload's byte count */
    tbr_buf_reset(b);
    tbr_rec_surface_init fewer = o_si;
    fewer.rows = 2;
    CHECK(tbr_rec_surface_init_encode(b, &fewer) == 0);
    CHECK(tbr_rec_surface_init_decode(b->data, b->len, &x) == 0 && x.rows == 2);
    size_t hdr = b->len - 1 - 2 * 5 * 4; /* fields, then a 1-byte length (40) */
    CHECK(b->data[hdr] == 40);
    b->data[hdr] = 39;
    CHECK(tbr_rec_surface_init_decode(b->data, b->len - 1, &x) != 0);
}

static void check_surface_check_record(const uint8_t *p, size_t n, const uint8_t *longer, tbr_buf *b)
{
    tbr_rec_surface_check x;
    CHECK(tbr_rec_surface_check_decode(p, n, &x) == 0);
    CHECK(same_bits(&x, &o_sc, sizeof(x)));
    CHECK(tbr_rec_surface_check_decode(longer, n + 1, &x) != 0);
    tbr_rec_surface_check bad = o_sc;
    bad.block_bytes = 0;
    tbr_buf_reset(b);
    CHECK(tbr_rec_surface_check_encode(b, &bad) != 0);
}

/* INVALIDATE (minor 11): depth, stencil and color buffer 7; a color buffer beyond 7 is
 * refused by the encoder and the decoder. */
static void check_invalidate_record(const uint8_t *p, size_t n, const uint8_t *longer, tbr_buf *b)
{
    tbr_rec_invalidate x;
    CHECK(tbr_rec_invalidate_decode(p, n, &x) == 0);
    CHECK(same_bits(&x, &o_inv, sizeof(x)));
    CHECK(tbr_rec_invalidate_decode(longer, n + 1, &x) != 0);
    tbr_rec_invalidate bad = o_inv;
    bad.buffers = 4u << 8;
    tbr_buf_reset(b);
    CHECK(tbr_rec_invalidate_encode(b, &bad) != 0);
    const uint8_t too_big[] = {43, 0x80, 0x08}; /* buffers = 1024 */
    CHECK(tbr_rec_invalidate_decode(too_big, sizeof too_big, &x) != 0);
}

/* FRAME_END, RESOURCE, UPLOAD, SHADER_CREATE, SHADER, RENDER_PASS and CLEAR decoded and compared. */
static void check_setup_record(uint16_t type, const uint8_t *p, size_t n, const uint8_t *longer)
{
    switch (type) {
        case TBR_REC_FRAME_END: {
            tbr_rec_frame_end x;
            CHECK(tbr_rec_frame_end_decode(p, n, &x) == 0);
            CHECK(same_bits(&x, &o_fe, sizeof(x)));
            CHECK(tbr_rec_frame_end_decode(longer, n + 1, &x) != 0);
            break;
        }
        case TBR_REC_RESOURCE: {
            tbr_rec_resource x;
            CHECK(tbr_rec_resource_decode(p, n, &x) == 0);
            CHECK(same_bits(&x, &o_res, sizeof(x)));
            CHECK(tbr_rec_resource_decode(longer, n + 1, &x) != 0);
            break;
        }
        case TBR_REC_UPLOAD: {
            tbr_rec_upload x;
            CHECK(tbr_rec_upload_decode(p, n, &x) == 0);
            CHECK(same_bits(&x, &o_up, sizeof(x)));
            CHECK(tbr_rec_upload_decode(longer, n + 1, &x) != 0);
            break;
        }
        case TBR_REC_SHADER_CREATE: {
            tbr_rec_shader x;
            CHECK(tbr_rec_shader_create_decode(p, n, &x) == 0);
            CHECK(x.id == o_shc.id && x.stage == o_shc.stage && x.internal == o_shc.internal &&
                  x.num_tokens == o_shc.num_tokens && x.num_instructions == o_shc.num_instructions &&
                  x.text_len == o_shc.text_len && x.text == NULL);
            CHECK(tbr_rec_shader_create_decode(longer, n + 1, &x) != 0);
            break;
        }
        case TBR_REC_SHADER: {
            tbr_rec_shader x;
            CHECK(tbr_rec_shader_decode(p, n, &x) == 0);
            CHECK(x.id == o_sh.id && x.stage == o_sh.stage && x.internal == o_sh.internal &&
                  x.num_tokens == o_sh.num_tokens && x.parent_id == o_sh.parent_id &&
                  x.num_instructions == o_sh.num_instructions && x.text_len == o_sh.text_len);
            CHECK(x.text && memcmp(x.text, shader_text, x.text_len) == 0);
            CHECK(tbr_rec_shader_decode(longer, n + 1, &x) != 0);
            break;
        }
        case TBR_REC_RENDER_PASS: {
            tbr_rec_render_pass x;
            CHECK(tbr_rec_render_pass_decode(p, n, &x) == 0);
            CHECK(same_bits(&x, &o_rp, sizeof(x)));
            CHECK(tbr_rec_render_pass_decode(longer, n + 1, &x) != 0);
            break;
        }
        case TBR_REC_CLEAR: {
            tbr_rec_clear x;
            CHECK(tbr_rec_clear_decode(p, n, &x) == 0);
            CHECK(same_bits(&x, &o_cl, sizeof(x))); /* NaN compared bitwise */
            CHECK(tbr_rec_clear_decode(longer, n + 1, &x) != 0);
            break;
        }
        default: break;
    }
}

/* DRAW_END, TILE, FLUSH, UNSUPPORTED, PATH and VS_TEXTURES decoded and compared. */
static void check_small_record(uint16_t type, const uint8_t *p, size_t n, const uint8_t *longer)
{
    switch (type) {
        case TBR_REC_DRAW_END: {
            tbr_rec_draw_end x;
            CHECK(tbr_rec_draw_end_decode(p, n, &x) == 0);
            CHECK(same_bits(&x, &o_de, sizeof(x)));
            CHECK(tbr_rec_draw_end_decode(longer, n + 1, &x) != 0);
            break;
        }
        case TBR_REC_TILE: {
            tbr_rec_tile x;
            CHECK(tbr_rec_tile_decode(p, n, &x) == 0);
            CHECK(same_bits(&x, &o_ti, sizeof(x)));
            CHECK(tbr_rec_tile_decode(longer, n + 1, &x) != 0);
            break;
        }
        case TBR_REC_FLUSH: {
            tbr_rec_flush x;
            CHECK(tbr_rec_flush_decode(p, n, &x) == 0);
            CHECK(x.flags == o_fl.flags);
            CHECK(tbr_rec_flush_decode(longer, n + 1, &x) != 0);
            break;
        }
        case TBR_REC_UNSUPPORTED: {
            tbr_rec_unsupported x;
            CHECK(tbr_rec_unsupported_decode(p, n, &x) == 0);
            CHECK(strcmp(x.name, o_un.name) == 0);
            CHECK(tbr_rec_unsupported_decode(longer, n + 1, &x) != 0);
            break;
        }
        case TBR_REC_PATH: {
            tbr_rec_path x;
            CHECK(tbr_rec_path_decode(p, n, &x) == 0);
            CHECK(x.id == 4 && x.shader_id == 9 && x.stage == TBR_REC_STAGE_FS && x.truncated == 1 && x.n == 5);
            for (uint32_t i = 0; i < x.n && i < 5; i++)
                CHECK(tbr_rec_path_pc(&x, i) == path_pc[i] && tbr_rec_path_mask(&x, i) == path_mask[i]);
            CHECK(tbr_rec_path_decode(longer, n + 1, &x) != 0);
            break;
        }
        case TBR_REC_VS_TEXTURES: {
            static tbr_rec_vs_textures x;
            CHECK(tbr_rec_vs_textures_decode(p, n, &x) == 0);
            CHECK(same_bits(&x, &o_vt, sizeof(x)));
            CHECK(tbr_rec_vs_textures_decode(longer, n + 1, &x) != 0);
            break;
        }
        default: break;
    }
}

/* Checks one record read back: it decodes to the original, and with a trailing byte it is
 * rejected. */
static void check_record(uint16_t type, const uint8_t *p, size_t n, const uint8_t *longer, tbr_buf *b)
{
    switch (type) {
        case TBR_REC_FRAME_END:
        case TBR_REC_RESOURCE:
        case TBR_REC_UPLOAD:
        case TBR_REC_SHADER_CREATE:
        case TBR_REC_SHADER:
        case TBR_REC_RENDER_PASS:
        case TBR_REC_CLEAR: check_setup_record(type, p, n, longer); break;
        case TBR_REC_DRAW_END:
        case TBR_REC_TILE:
        case TBR_REC_FLUSH:
        case TBR_REC_UNSUPPORTED:
        case TBR_REC_PATH:
        case TBR_REC_VS_TEXTURES: check_small_record(type, p, n, longer); break;
        case TBR_REC_DRAW: check_draw_record(p, n, longer); break;
        case TBR_REC_PRIM: check_prim_record(p, n, longer); break;
        case TBR_REC_QUADS: check_quads_record(p, n, longer); break;
        case TBR_REC_TEXELS:
        case TBR_REC_VS_TEXELS: check_texels_record(p, n, longer); break;
        case TBR_REC_VERTICES: check_vertices_record(p, n, longer); break;
        case TBR_REC_SURFACE_INIT: check_surface_init_record(p, n, longer, b); break;
        case TBR_REC_SURFACE_CHECK: check_surface_check_record(p, n, longer, b); break;
        case TBR_REC_INVALIDATE: check_invalidate_record(p, n, longer, b); break;
        default: CHECK(!"unknown record type");
    }
}

/* Reads the trace back: one frame, each record type once, each record checked. Returns -1
 * if the reader cannot be opened. */
static int read_records(const char *path, tbr_buf *b)
{
    tbr_trace_error err;
    tbr_trace_reader *r = tbr_trace_reader_open(path, &err);
    if (!r) {
        fprintf(stderr, "reader: %s\n", err.msg);
        return -1;
    }
    tbr_trace_frame_info fi;
    CHECK(tbr_trace_reader_next_frame(r, &fi) == 1);
    CHECK(fi.number == 7);
    uint16_t type;
    const uint8_t *p;
    size_t n;
    int seen[TBR_REC_TYPE_COUNT] = {0};
    while (tbr_trace_reader_next_record(r, &type, &p, &n) == 1) {
        CHECK(type < TBR_REC_TYPE_COUNT && tbr_rec_type_name(type) != NULL);
        if (type >= TBR_REC_TYPE_COUNT) continue;
        seen[type]++;
        check_truncations(type, p, n);
        /* a trailing byte is rejected too (except QUADS, checked by close) */
        uint8_t *longer = malloc(n + 1);
        memcpy(longer, p, n);
        longer[n] = 0;
        check_record(type, p, n, longer, b);
        free(longer);
    }
    CHECK(*tbr_trace_reader_error(r) == 0);
    for (int t = 1; t < TBR_REC_TYPE_COUNT; t++) {
        if (seen[t] != 1) {
            fprintf(stderr, "record type %s seen %d times\n", tbr_rec_type_name((uint16_t)t), seen[t]);
            failures++;
        }
    }
    tbr_trace_reader_close(r);
    return 0;
}

int main(void)
{
    make_records();
    check_texels_coding();
    check_vertices_coding();
    check_depth_coding();
    char path[] = "/tmp/tbr-records-rt-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        return 1;
    }
    close(fd);
    tbr_buf b;
    tbr_buf_init(&b);
    tbr_rec_quads_header qh;
    if (write_records(path, &b, &qh) != 0) return 1;

    check_refused_quads(&b, &qh);
    check_prim_coding();
    check_prim_det();
    check_quads_streams();
    check_computed_colors();
    check_derived_texels();
    check_derived_depths();
    check_refused_values(&b);

    if (read_records(path, &b) != 0) return 1;
    tbr_buf_free(&b);
    unlink(path);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("all %d record types round-trip\n", TBR_REC_TYPE_COUNT - 1);
    return 0;
}
