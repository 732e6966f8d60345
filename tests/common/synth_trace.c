/* Synthetic activity-trace writer of the timing tests: see synth_trace.h. */
#include "synth_trace.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static tbr_trace_writer *w;
static tbr_buf b;

uint32_t synth_draw_vertex_count = 6;
float synth_draw_blend_color0;
uint32_t synth_draw_texture;
uint32_t synth_draw_vs_textures;
int synth_draw_fs_kill;
uint32_t synth_draw_index_size, synth_draw_start, synth_draw_instances = 1;
uint32_t synth_render_pass_default = 1;
const float *synth_prim_color;
uint32_t synth_quad_prim;

tbr_trace_writer *synth_trace_writer(void) { return w; }
tbr_buf *synth_trace_buf(void) { return &b; }

void synth_trace_open(const char *dir, const char *producer)
{
    char p[1024], meta[256];
    mkdir(dir, 0777);
    snprintf(p, sizeof p, "%s/activity.tbrt", dir);
    snprintf(meta, sizeof meta, "producer=%s\nrecords_schema=" TBR_RECORDS_SCHEMA_TEXT "\n", producer);
    tbr_buf_init(&b);
    tbr_trace_error err;
    w = tbr_trace_writer_open(p, meta, &err);
    if (!w) {
        fprintf(stderr, "%s\n", err.msg);
        exit(2);
    }
}

void synth_trace_close(void)
{
    tbr_trace_error err;
    int rc = tbr_trace_writer_close(w, NULL, &err);
    w = NULL;
    tbr_buf_free(&b);
    if (rc) {
        fprintf(stderr, "%s\n", err.msg);
        exit(2);
    }
}

void synth_begin_frame(uint64_t frame) { tbr_trace_writer_begin_frame(w, frame); }
void synth_end_frame(void) { tbr_trace_writer_end_frame(w); }

void synth_resource(uint32_t id, const char *fmt, uint32_t wd, uint32_t ht, uint32_t bytes, int display)
{
    tbr_rec_resource r = {0};
    r.id = id;
    r.target = 2;
    r.width = wd;
    r.height = ht;
    r.depth = 1;
    r.array_size = 1;
    r.block_bytes = bytes;
    r.is_display_target = (uint32_t)display;
    snprintf(r.format_name, sizeof r.format_name, "%s", fmt);
    SYNTH_EMIT(TBR_REC_RESOURCE, tbr_rec_resource_encode, &r);
}

void synth_shader(uint32_t id, uint32_t stage, uint32_t ninstr)
{
    tbr_rec_shader s = {0};
    s.id = id;
    s.stage = stage;
    s.num_instructions = ninstr;
    s.parent_id = id;
    s.text = "END\n";
    s.text_len = 4;
    SYNTH_EMIT(TBR_REC_SHADER, tbr_rec_shader_encode, &s);
}

void synth_render_pass(uint32_t seq, uint32_t wd, uint32_t ht, uint32_t cres, uint32_t zres)
{
    tbr_rec_render_pass p = {0};
    p.seq = seq;
    p.width = wd;
    p.height = ht;
    p.layers = 1;
    p.nr_cbufs = 1;
    p.is_default = synth_render_pass_default;
    p.cbufs[0] = (tbr_rec_surface){1, cres, 0, 0, 0, 0, wd, ht};
    if (zres) p.zsbuf = (tbr_rec_surface){1, zres, 0, 0, 0, 0, wd, ht};
    SYNTH_EMIT(TBR_REC_RENDER_PASS, tbr_rec_render_pass_encode, &p);
}

void synth_clear(uint32_t buffers, float r, float g, float bl, float a, uint64_t zs)
{
    tbr_rec_clear c = {0};
    c.buffers = buffers;
    c.color_f[0] = r;
    c.color_f[1] = g;
    c.color_f[2] = bl;
    c.color_f[3] = a;
    c.depth = 1.0;
    c.zs_packed = zs;
    SYNTH_EMIT(TBR_REC_CLEAR, tbr_rec_clear_encode, &c);
}

void synth_tile(uint32_t kind, uint32_t is_zs, uint32_t res)
{
    tbr_rec_tile t = {kind, is_zs, 0, res, 0, 0, 0, 0, 64};
    SYNTH_EMIT(TBR_REC_TILE, tbr_rec_tile_encode, &t);
}

void synth_draw(uint32_t seq, int blend, int depth, uint32_t fs_id)
{
    static tbr_rec_draw d;
    memset(&d, 0, sizeof d);
    d.seq = seq;
    d.mode = 4;
    d.count = synth_draw_vertex_count;
    d.instance_count = synth_draw_instances;
    d.index_size = synth_draw_index_size;
    d.start = synth_draw_start;
    d.vs_id = 1;
    d.fs_id = fs_id;
    d.nr_cbufs = 1;
    d.depth_clip_near = 1;
    d.depth_clip_far = 1;
    d.early_z = depth && !synth_draw_fs_kill ? 1 : 0; /* softpipe tests depth after a discarding FS */
    d.fs_uses_kill = synth_draw_fs_kill ? 1 : 0;
    d.depth_enabled = depth ? 1 : 0;
    d.depth_writemask = depth ? 1 : 0;
    d.depth_func = 1; /* LESS */
    for (int i = 0; i < 8; i++) {
        d.rt[i].colormask = 0xf;
        d.rt[i].rgb_src = d.rt[i].alpha_src = 0x1;
        d.rt[i].rgb_dst = d.rt[i].alpha_dst = 0x11;
        if (blend) {
            d.rt[i].blend_enable = 1;
            d.rt[i].rgb_src = d.rt[i].alpha_src = 0x3;
            d.rt[i].rgb_dst = d.rt[i].alpha_dst = 0x13;
        }
    }
    d.viewport_scale[2] = 0.5f;
    d.viewport_translate[2] = 0.5f;
    d.blend_color[0] = synth_draw_blend_color0;
    d.num_vs_textures = synth_draw_vs_textures;
    if (synth_draw_texture) {
        d.num_textures = 1;
        d.textures[0].resource_id = synth_draw_texture;
        d.textures[0].has_sampler = 1;
        d.textures[0].normalized_coords = 1;
    }
    SYNTH_EMIT(TBR_REC_DRAW, tbr_rec_draw_encode, &d);
}

void synth_prim(uint32_t seq, uint32_t idx, float x0, float y0, float x1, float y1)
{
    static tbr_rec_prim p;
    memset(&p, 0, sizeof p);
    p.draw_seq = seq;
    p.index = idx;
    p.kind = 3;
    p.nr_attrs = 2;
    p.det = 1;
    p.v[0][0][0] = x0;
    p.v[0][0][1] = y0;
    p.v[1][0][0] = x1;
    p.v[1][0][1] = y0;
    p.v[2][0][0] = x1;
    p.v[2][0][1] = y1;
    if (synth_prim_color)
        for (int v = 0; v < 3; v++) memcpy(p.v[v][1], synth_prim_color, 16);
    SYNTH_EMIT(TBR_REC_PRIM, tbr_rec_prim_encode, &p);
}

void synth_quads(uint32_t seq, int x0, int y0, int x1, int y1, const float c[4], uint32_t z, int depth, int killed)
{
    static tbr_rec_quad q;
    uint32_t n = 0;
    tbr_buf_reset(&b);
    tbr_rec_quads_header qh;
    tbr_rec_quads_begin(&b, &qh, seq, 1, 0);
    for (int y = y0; y < y1; y += 2)
        for (int x = x0; x < x1; x += 2) {
            memset(&q, 0, sizeof q);
            q.x = x;
            q.y = y;
            q.prim = synth_quad_prim;
            q.prim_kind = 3;
            q.in_mask = 0xf;
            q.flags = depth ? TBR_REC_QUAD_HAS_Z : 0;
            for (int j = 0; j < 4; j++) q.z[j] = z;
            if (!killed) {
                q.flags |= TBR_REC_QUAD_SHADED | TBR_REC_QUAD_SHADE_OUT | TBR_REC_QUAD_DEPTH_OUT | TBR_REC_QUAD_BLENDED;
                q.depth_mask = q.shade_mask = q.blend_mask = 0xf;
                for (int k = 0; k < 4; k++)
                    for (int j = 0; j < 4; j++) q.color[0][k][j] = c[k];
            }
            if (tbr_rec_quads_add(&b, &qh, &q)) abort();
            n++;
        }
    tbr_rec_quads_finish(&b, n);
    if (tbr_trace_writer_append_buf(w, TBR_REC_QUADS, &b)) abort();
}

void synth_frame_end(uint64_t f, uint32_t wd, uint32_t ht)
{
    tbr_rec_flush fl = {0};
    SYNTH_EMIT(TBR_REC_FLUSH, tbr_rec_flush_encode, &fl);
    tbr_rec_frame_end e = {0};
    e.frame = f;
    e.width = wd;
    e.height = ht;
    SYNTH_EMIT(TBR_REC_FRAME_END, tbr_rec_frame_end_encode, &e);
}

void synth_frame_begin_cleared(uint64_t frame, uint32_t wd, uint32_t ht, uint32_t fs_ninstr)
{
    synth_begin_frame(frame);
    synth_resource(1, "PIPE_FORMAT_B8G8R8A8_UNORM", wd, ht, 4, 1);
    synth_shader(1, 0, 4);
    synth_shader(2, 1, fs_ninstr);
    synth_render_pass(0, wd, ht, 1, 0);
    synth_clear(4, 0, 0, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
}
