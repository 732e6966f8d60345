/* Synthetic GPU activity trace of a tiny known scene, for the tbr-dump and
 * tbr-characterize tests. Every value the tests assert is derived by hand in
 * the test scripts' comments from the description below.
 *
 * Usage: tools_characterize_gen_scene OUT [paths] [noschema]
 *        tools_characterize_gen_scene OUT texels
 *        tools_characterize_gen_scene OUT texloop
 *   paths     also write PATH records (executed FS instruction streams)
 *   noschema  omit records_schema from the metadata
 *   texels    write the TEXTURED scene instead (records_schema_minor=1 with
 *             TEXELS, VERTICES and VS PATH records), described below.
 *
 * Frame 5 (source frame number 5), screen 320x240:
 *   RESOURCE(1: 320x240 color), RENDER_PASS(seq 0, 320x240), CLEAR(color),
 *   SHADER_CREATE + SHADER for VS 10 (4 insns), FS 11 (5 insns: TEX MUL ADD
 *   MOV END), VS 12 (7 insns), FS 13 (3 insns: MOV MUL END),
 *   [paths: PATH 1 (fs 11: pcs 0..4, all lanes), PATH 2 (fs 13: pcs 0,1,2
 *    with lane masks F,3,F)],
 *   an unknown record (type 999, 3 bytes),
 *   DRAW 0 (vs 10, fs 11, count 6): full-screen quad = PRIM 0 (0,0)(320,0)
 *     (320,240) and PRIM 1 (0,0)(320,240)(0,240), 3 attributes each
 *     (position + 2). Quads: all 160x120 = 19200 even (x,y); quad (x,y)
 *     belongs to prim 0 if 3x >= 4y, else prim 1; prim 0's quads first,
 *     each in row-major order. All SHADED|SHADE_OUT|BLENDED, in_mask F,
 *     not early-z. Written in QUADS records of 1024 quads (19 records).
 *   DRAW_END 0, then
 *   DRAW 1 (vs 12, fs 13, count 6): square (64,64)-(96,96) = PRIM 0 (64,64)
 *     (96,64)(96,96) and PRIM 1 (64,64)(96,96)(64,96); quads (x,y) for
 *     x,y in 64..94 step 2 (256 quads), prim 0 if x-64 >= y-64; 1 QUADS
 *     record.
 *   DRAW_END 1, FLUSH, 20 TILE STORE events (5x4 tiles of 64), FRAME_END.
 * Frame 7: RENDER_PASS(seq 0, 320x240), CLEAR, FLUSH, FRAME_END (no draws).
 *
 * TEXTURED scene ("texels"): frames 0, 1, 2, each on a 128x64 screen:
 *   RESOURCE 1 (128x64 display target), RESOURCE 2 (128x64 texture
 *   R8G8B8A8, 4 bytes per texel, 1 level: a row = 512 bytes = 8 blocks of 64
 *   bytes, block c of row r = texels 16c..16c+15), RENDER_PASS 128x64,
 *   SHADER VS 10 (4 insns), FS 11 (TEX MOV END), PATH 3 (VS 10: pcs 0,1,2,3
 *   mask F), PATH 4 (VS 10: pcs 0,1,3 mask 3), PATH 1 (FS 11: pcs 0,1,2 mask
 *   F; frame 2: mask 3), DRAW 0 (vs 10, fs 11, count 6), VERTICES (draw 0:
 *   group path 3 indices 0..3, group path 4 indices 4,5), PRIM 0 and 1 (the
 *   full screen), the 64x32 = 2048 quads in row-major order (prim 0), all
 *   SHADED, in QUADS records of 1024 quads, each followed by a TEXELS record
 *   with one fetch (pc 0, unit 0, resource 2) per quad listing ALL 4 lanes:
 *   frame 0: nearest at 1:1: lane j of quad (x,y) reads texel (x+(j&1),
 *     y+(j>>1)), in_mask F;
 *   frame 1: bilinear: lane j at pixel (px,py) reads (px,py) (px+1,py)
 *     (px,py+1) (px+1,py+1), coordinates clamped to 127 / 63 (CLAMP_TO_EDGE);
 *   frame 2: as frame 0 but in_mask = shade_mask = blend_mask = 3 (lanes 2,
 *     3 are helper lanes, still listed in TEXELS), and the last quad has
 *     path 0 (no PATH: its lanes come from the shading mask).
 *   DRAW_END, FLUSH, FRAME_END (128x64).
 *
 * LOOP scene ("texloop"): frame 0, 4x2 screen, RESOURCE 1 (4x2 display),
 *   RESOURCE 2 (4x2 texture, 4 bytes per texel), RENDER_PASS 4x2, FS 12
 *   (BGNLOOP TEX ENDLOOP END: the loop runs twice, only lane 0 does the
 *   second iteration): PATH 1 = pcs 0,1,2,1,2,3 with masks F,F,F,1,1,F.
 *   DRAW 0 (vs 10, fs 12), PRIM 0, QUADS: (0,0) and (2,0), in_mask F, path
 *   1; TEXELS: per quad 2 fetches of pc 1 (nearest, 4 lanes each: lane j
 *   reads (x+(j&1), j>>1)). DRAW_END, FRAME_END.
 */
#include "tbr/records.h"
#include "tbr/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tbr_trace_writer *w;
static tbr_buf b;

static void die(const char *what)
{
    fprintf(stderr, "gen_scene: %s: %s\n", what, w ? tbr_trace_writer_error(w) : "");
    exit(1);
}

static void emit(uint16_t type, int enc_rc)
{
    if (enc_rc != 0) die("encode");
    if (tbr_trace_writer_append_buf(w, type, &b) < 0) die("append");
    tbr_buf_reset(&b);
}

static void shader(uint32_t id, uint32_t stage, uint32_t ninsn, const char *text)
{
    tbr_rec_shader s;
    memset(&s, 0, sizeof s);
    s.id = id;
    s.stage = stage;
    s.num_tokens = 10 * ninsn;
    s.num_instructions = ninsn;
    s.parent_id = id;
    s.text = text;
    s.text_len = (uint32_t)strlen(text);
    emit(TBR_REC_SHADER_CREATE, tbr_rec_shader_create_encode(&b, &s));
    emit(TBR_REC_SHADER, tbr_rec_shader_encode(&b, &s));
}

static void begin_frame(uint64_t frame)
{
    if (tbr_trace_writer_begin_frame(w, frame) < 0) die("begin_frame");
}

static void end_frame(void)
{
    if (tbr_trace_writer_end_frame(w) < 0) die("end_frame");
}

/* 2D resource ID of WIDTHxHEIGHT, 4 bytes per texel, one level */
static void resource(uint32_t id, uint32_t format, uint32_t width, uint32_t height, int display_target,
                     const char *format_name)
{
    tbr_rec_resource res;
    memset(&res, 0, sizeof res);
    res.id = id;
    res.target = 2;
    res.format = format;
    res.width = width;
    res.height = height;
    res.depth = 1;
    res.array_size = 1;
    res.nr_samples = 1;
    res.block_bytes = 4;
    res.is_display_target = display_target;
    snprintf(res.format_name, sizeof res.format_name, "%s", format_name);
    emit(TBR_REC_RESOURCE, tbr_rec_resource_encode(&b, &res));
}

/* render pass seq 0 on the default framebuffer (resource 1), WIDTHxHEIGHT */
static void render_pass(uint32_t width, uint32_t height)
{
    tbr_rec_render_pass rp;
    memset(&rp, 0, sizeof rp);
    rp.seq = 0;
    rp.width = width;
    rp.height = height;
    rp.layers = 1;
    rp.samples = 1;
    rp.nr_cbufs = 1;
    rp.is_default = 1;
    rp.cbufs[0] = (tbr_rec_surface){1, 1, 1, 0, 0, 0, width, height};
    emit(TBR_REC_RENDER_PASS, tbr_rec_render_pass_encode(&b, &rp));
}

static void clear(void)
{
    tbr_rec_clear c;
    memset(&c, 0, sizeof c);
    c.buffers = 4;
    c.color_f[3] = 1.0f;
    emit(TBR_REC_CLEAR, tbr_rec_clear_encode(&b, &c));
}

static void draw(uint32_t seq, uint32_t vs, uint32_t fs)
{
    static tbr_rec_draw d;
    memset(&d, 0, sizeof d);
    d.seq = seq;
    d.mode = 4; /* PIPE_PRIM_TRIANGLES */
    d.count = 6;
    d.instance_count = 1;
    d.max_index = 5;
    d.vs_id = vs;
    d.fs_id = fs;
    d.nr_cbufs = 1;
    d.cbuf_format[0] = 1;
    d.line_width = 1.0f;
    d.point_size = 1.0f;
    for (int i = 0; i < 8; i++) d.rt[i].colormask = 15;
    emit(TBR_REC_DRAW, tbr_rec_draw_encode(&b, &d));
}

static void prim(uint32_t seq, uint32_t index, const float xy[3][2])
{
    static tbr_rec_prim p;
    memset(&p, 0, sizeof p);
    p.draw_seq = seq;
    p.index = index;
    p.kind = 3;
    p.nr_attrs = 3;
    /* det = (x1-x0)(y2-y0) - (x2-x0)(y1-y0) */
    p.det = (xy[1][0] - xy[0][0]) * (xy[2][1] - xy[0][1]) - (xy[2][0] - xy[0][0]) * (xy[1][1] - xy[0][1]);
    for (int v = 0; v < 3; v++) {
        p.v[v][0][0] = xy[v][0];
        p.v[v][0][1] = xy[v][1];
        p.v[v][0][2] = 0.5f;
        p.v[v][0][3] = 1.0f;
        p.v[v][1][0] = xy[v][0] / 320.0f;
        p.v[v][1][1] = xy[v][1] / 240.0f;
        p.v[v][2][0] = 1.0f;
        p.v[v][2][3] = 1.0f;
    }
    emit(TBR_REC_PRIM, tbr_rec_prim_encode(&b, &p));
}

/* Quad batching. */
static uint32_t qcount, qseq;
static uint32_t quad_in_mask = 15; /* in/shade/blend mask of quad() */

/* textured scene: fetches of the quads of the pending QUADS record */
static int tex_mode;         /* 0 none, 1 nearest, 2 bilinear */
static uint32_t tex_ordinal; /* next quad ordinal of the draw */
static tbr_rec_texfetch tex_f[TBR_REC_MAX_QUADS];
static tbr_rec_texel tex_t[TBR_REC_MAX_QUADS * 16];
static uint32_t tex_nf, tex_nt;

static int32_t clampi(int32_t v, int32_t hi) { return v > hi ? hi : v; }

static void tex_quad(int32_t x, int32_t y)
{
    tbr_rec_texfetch *f = &tex_f[tex_nf++];
    memset(f, 0, sizeof *f);
    f->quad = tex_ordinal++;
    f->pc = 0;
    f->unit = 0;
    f->resource_id = 2;
    f->texels = &tex_t[tex_nt];
    for (uint32_t j = 0; j < 4; j++) {
        int32_t px = x + (int32_t)(j & 1), py = y + (int32_t)(j >> 1);
        if (tex_mode == 1) {
            tex_t[tex_nt++] = (tbr_rec_texel){j, 0, 0, px, py};
        } else {
            for (int k = 0; k < 4; k++)
                tex_t[tex_nt++] = (tbr_rec_texel){j, 0, 0, clampi(px + (k & 1), 127), clampi(py + (k >> 1), 63)};
        }
    }
    f->n_texels = (uint32_t)(&tex_t[tex_nt] - f->texels);
}

static void quads_flush(void)
{
    if (qcount == 0) return;
    if (tbr_rec_quads_finish(&b, qcount)) die("quads_finish");
    emit(TBR_REC_QUADS, 0);
    qcount = 0;
    if (tex_mode) {
        emit(TBR_REC_TEXELS, tbr_rec_texels_encode(&b, qseq, tex_f, tex_nf));
        tex_nf = tex_nt = 0;
    }
}

static void quad(uint32_t seq, int32_t x, int32_t y, uint32_t primi, uint32_t path)
{
    if (qcount && qseq != seq) quads_flush();
    static tbr_rec_quads_header qh;
    if (qcount == 0 && tbr_rec_quads_begin(&b, &qh, seq, 1, 0)) die("quads_begin");
    qseq = seq;
    static tbr_rec_quad q;
    memset(&q, 0, sizeof q);
    q.x = x;
    q.y = y;
    q.prim = primi;
    q.prim_kind = 3;
    q.flags = TBR_REC_QUAD_SHADED | TBR_REC_QUAD_SHADE_OUT | TBR_REC_QUAD_BLENDED;
    q.path = path;
    q.in_mask = quad_in_mask;
    q.shade_mask = quad_in_mask;
    q.blend_mask = quad_in_mask;
    for (int j = 0; j < 4; j++) q.color[0][3][j] = 1.0f;
    if (tbr_rec_quads_add(&b, &qh, &q)) die("quads_add");
    if (tex_mode) tex_quad(x, y);
    if (++qcount == TBR_REC_MAX_QUADS) quads_flush();
}

static void draw_end_rec(uint32_t seq, uint64_t prims, uint64_t quads, uint64_t frags)
{
    tbr_rec_draw_end e = {seq, prims, quads, quads, frags, frags};
    emit(TBR_REC_DRAW_END, tbr_rec_draw_end_encode(&b, &e));
}

static void draw_end(uint32_t seq, uint64_t quads)
{
    quads_flush();
    draw_end_rec(seq, 2, quads, quads * 4);
}

static void flush(void)
{
    tbr_rec_flush f = {0};
    emit(TBR_REC_FLUSH, tbr_rec_flush_encode(&b, &f));
}

/* FRAME_END of a WIDTHxHEIGHT frame; with_png: the reference PNG path is set */
static void frame_end_rec(uint64_t frame, uint32_t width, uint32_t height, uint64_t draws, uint64_t quads,
                          uint64_t frags, uint64_t prims, uint64_t clears, int with_png)
{
    tbr_rec_frame_end e;
    memset(&e, 0, sizeof e);
    e.frame = frame;
    e.width = width;
    e.height = height;
    e.draws = draws;
    e.quads = quads;
    e.shaded_quads = quads;
    e.shaded_fragments = frags;
    e.prims = prims;
    e.clears = clears;
    if (with_png) snprintf(e.png, sizeof e.png, "reference/frame_%05llu.png", (unsigned long long)frame);
    emit(TBR_REC_FRAME_END, tbr_rec_frame_end_encode(&b, &e));
}

static void frame_end(uint64_t frame, uint64_t draws, uint64_t quads, uint64_t prims)
{
    frame_end_rec(frame, 320, 240, draws, quads, quads * 4, prims, 1, 1);
}

static void path_rec_stage(uint32_t id, uint32_t shader_id, uint32_t stage, uint32_t n, const uint16_t *pc,
                           const uint8_t *mask)
{
    tbr_rec_path p;
    memset(&p, 0, sizeof p);
    p.id = id;
    p.shader_id = shader_id;
    p.stage = stage;
    p.n = n;
    p.pc = pc;
    p.mask = mask;
    emit(TBR_REC_PATH, tbr_rec_path_encode(&b, &p));
}

static void path_rec(uint32_t id, uint32_t shader_id, uint32_t n, const uint16_t *pc, const uint8_t *mask)
{
    path_rec_stage(id, shader_id, TBR_REC_STAGE_FS, n, pc, mask);
}

/* The TEXTURED scene (header comment). */
static void texel_frame(uint64_t frame)
{
    begin_frame(frame);
    resource(1, 1, 128, 64, 1, "PIPE_FORMAT_B8G8R8A8_UNORM");
    resource(2, 31, 128, 64, 0, "PIPE_FORMAT_R8G8B8A8_UNORM");
    render_pass(128, 64);
    clear();
    shader(10, TBR_REC_STAGE_VS, 4,
           "VERT\n  0: MOV TEMP[0], IN[0]\n  1: MUL TEMP[0], TEMP[0], CONST[0]\n"
           "  2: MOV OUT[1], IN[1]\n  3: END\n");
    shader(11, TBR_REC_STAGE_FS, 3,
           "FRAG\nDCL SAMP[0]\n  0: TEX TEMP[0], IN[0], SAMP[0], 2D\n"
           "  1: MOV OUT[0], TEMP[0]\n  2: END\n");
    static const uint16_t vpc3[] = {0, 1, 2, 3}, vpc4[] = {0, 1, 3}, fpc[] = {0, 1, 2};
    static const uint8_t vm3[] = {15, 15, 15, 15}, vm4[] = {3, 3, 3};
    static const uint8_t fmF[] = {15, 15, 15}, fm3[] = {3, 3, 3};
    path_rec_stage(3, 10, TBR_REC_STAGE_VS, 4, vpc3, vm3);
    path_rec_stage(4, 10, TBR_REC_STAGE_VS, 3, vpc4, vm4);
    path_rec(1, 11, 3, fpc, frame == 2 ? fm3 : fmF);
    draw(0, 10, 11);
    {
        static tbr_rec_vertices_header vh;
        tbr_rec_vertex_group g[2];
        memset(&vh, 0, sizeof vh);
        memset(g, 0, sizeof g);
        vh.draw_seq = 0;
        vh.vs_id = 10;
        vh.num_outputs = 2;
        vh.position_slot = 0;
        vh.nr_streams = 1;
        vh.streams[0] = (tbr_rec_vertex_stream){7, 0, 0, 16, 16, 31, 0};
        vh.fetched = 6;
        vh.count = 2;
        /* out_hash recorded (tbr-replay --vertex-hashes) except in frame 1 */
        vh.flags = frame == 1 ? 0 : TBR_REC_VERTICES_HASHES;
        g[0].path = 3;
        g[0].n = 4;
        g[1].path = 4;
        g[1].n = 2;
        for (uint32_t i = 0; i < 6; i++) {
            tbr_rec_vertex_group *gg = &g[i / 4];
            gg->index[i % 4] = i;
            gg->pos[i % 4][0] = (i & 1) ? 1.0f : -1.0f;
            gg->pos[i % 4][1] = (i & 2) ? 1.0f : -1.0f;
            gg->pos[i % 4][3] = 1.0f;
            gg->out_hash[i % 4] = 0x811c9dc5u + i;
        }
        emit(TBR_REC_VERTICES, tbr_rec_vertices_encode(&b, &vh, g));
    }
    const float t0[3][2] = {{0, 0}, {128, 0}, {128, 64}};
    const float t1[3][2] = {{0, 0}, {128, 64}, {0, 64}};
    prim(0, 0, t0);
    prim(0, 1, t1);
    tex_mode = frame == 1 ? 2 : 1;
    tex_ordinal = 0;
    quad_in_mask = frame == 2 ? 3 : 15;
    uint64_t n = 0;
    for (int y = 0; y < 64; y += 2)
        for (int x = 0; x < 128; x += 2) {
            quad(0, x, y, 0, frame == 2 && x == 126 && y == 62 ? 0 : 1);
            n++;
        }
    quads_flush();
    uint32_t frags = (uint32_t)n * (frame == 2 ? 2 : 4);
    draw_end_rec(0, 2, n, frags);
    tex_mode = 0;
    quad_in_mask = 15;
    flush();
    frame_end_rec(frame, 128, 64, 1, n, frags, 2, 1, 0);
    end_frame();
}

static void texloop_frame(void)
{
    begin_frame(0);
    resource(1, 0, 4, 2, 1, "PIPE_FORMAT_R8G8B8A8_UNORM");
    resource(2, 0, 4, 2, 0, "PIPE_FORMAT_R8G8B8A8_UNORM");
    render_pass(4, 2);
    shader(10, TBR_REC_STAGE_VS, 2, "VERT\n  0: MOV OUT[0], IN[0]\n  1: END\n");
    shader(12, TBR_REC_STAGE_FS, 4,
           "FRAG\n  0: BGNLOOP\n  1: TEX TEMP[0], IN[0], SAMP[0], 2D\n  2: ENDLOOP\n"
           "  3: END\n");
    static const uint16_t pc[] = {0, 1, 2, 1, 2, 3};
    static const uint8_t m[] = {15, 15, 15, 1, 1, 15};
    path_rec(1, 12, 6, pc, m);
    draw(0, 10, 12);
    const float t0[3][2] = {{0, 0}, {4, 0}, {4, 2}};
    prim(0, 0, t0);
    tex_mode = 0;
    quad(0, 0, 0, 0, 1);
    quad(0, 2, 0, 0, 1);
    quads_flush();
    tbr_rec_texfetch f[4];
    tbr_rec_texel t[16];
    for (uint32_t i = 0; i < 4; i++) {
        int32_t x = (int32_t)(i / 2) * 2;
        f[i] = (tbr_rec_texfetch){i / 2, 1, 0, 2, 4, &t[4 * i]};
        for (uint32_t j = 0; j < 4; j++)
            t[4 * i + j] = (tbr_rec_texel){j, 0, 0, x + (int32_t)(j & 1), (int32_t)(j >> 1)};
    }
    emit(TBR_REC_TEXELS, tbr_rec_texels_encode(&b, 0, f, 4));
    draw_end_rec(0, 1, 2, 8);
    frame_end_rec(0, 4, 2, 1, 2, 8, 1, 0, 0);
    end_frame();
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT [paths] [noschema]\n", argv[0]);
        return 2;
    }
    int paths = 0, noschema = 0, texels = 0, texloop = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "paths") == 0)
            paths = 1;
        else if (strcmp(argv[i], "texels") == 0)
            texels = 1;
        else if (strcmp(argv[i], "texloop") == 0)
            texloop = 1;
        else if (strcmp(argv[i], "noschema") == 0)
            noschema = 1;
    }
    tbr_trace_error err;
    tbr_trace_writer_options wo = {.chunk_size = 4096}; /* small chunks: several per frame */
    if (texels || texloop) {
        tbr_trace_error terr;
        w = tbr_trace_writer_open_ex(argv[1],
                                     "producer=gen_scene\nrecords_schema=" TBR_RECORDS_SCHEMA_TEXT
                                     "\nrecords_schema_minor=1\n"
                                     "driver=softpipe\ntile_size=64\n",
                                     &wo, &terr);
        if (!w) {
            fprintf(stderr, "gen_scene: %s\n", terr.msg);
            return 1;
        }
        tbr_buf_init(&b);
        if (texloop)
            texloop_frame();
        else
            for (uint64_t f = 0; f < 3; f++) texel_frame(f);
        tbr_buf_free(&b);
        if (tbr_trace_writer_close(w, NULL, &terr) < 0) {
            fprintf(stderr, "gen_scene: %s\n", terr.msg);
            return 1;
        }
        return 0;
    }
    w = tbr_trace_writer_open_ex(argv[1],
                                 noschema ? "producer=gen_scene\n"
                                          : "producer=gen_scene\nrecords_schema=" TBR_RECORDS_SCHEMA_TEXT "\n"
                                            "driver=softpipe\ntile_size=64\n",
                                 &wo, &err);
    if (!w) {
        fprintf(stderr, "gen_scene: %s\n", err.msg);
        return 1;
    }
    tbr_buf_init(&b);

    /* ---- frame 5 ---- */
    begin_frame(5);
    resource(1, 1, 320, 240, 1, "PIPE_FORMAT_B8G8R8A8_UNORM");
    render_pass(320, 240);
    clear();
    shader(10, TBR_REC_STAGE_VS, 4,
           "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n  0: MOV OUT[0], IN[0]\n"
           "  1: MOV OUT[1], IN[1]\n  2: MOV OUT[2], IN[2]\n  3: END\n");
    shader(11, TBR_REC_STAGE_FS, 5,
           "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], PERSPECTIVE\n"
           "DCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0]\n"
           "IMM[0] FLT32 {    0.5000,     0.5000,     0.5000,     0.0000}\n"
           "  0: TEX TEMP[0], IN[0], SAMP[0], 2D\n"
           "  1: MUL TEMP[0], TEMP[0], IN[1]\n"
           "  2: ADD TEMP[0], TEMP[0], IMM[0]\n"
           "  3: MOV OUT[0], TEMP[0]\n"
           "  4: END\n");
    shader(12, TBR_REC_STAGE_VS, 7,
           "VERT\n  0: MOV TEMP[0], IN[0]\n  1: MUL TEMP[0], TEMP[0], CONST[0]\n"
           "  2: ADD TEMP[0], TEMP[0], CONST[1]\n  3: MOV OUT[0], TEMP[0]\n"
           "  4: MOV OUT[1], IN[1]\n  5: MOV OUT[2], IN[2]\n  6: END\n");
    shader(13, TBR_REC_STAGE_FS, 3,
           "FRAG\nDCL IN[1], GENERIC[1], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n"
           "  0: MOV_SAT TEMP[0], IN[1]\n"
           "  1: MUL OUT[0], TEMP[0], IMM[0]\n"
           "  2: END\n");
    if (paths) {
        static const uint16_t pc1[] = {0, 1, 2, 3, 4};
        static const uint8_t m1[] = {15, 15, 15, 15, 15};
        static const uint16_t pc2[] = {0, 1, 2};
        static const uint8_t m2[] = {15, 3, 15};
        path_rec(1, 11, 5, pc1, m1);
        path_rec(2, 13, 3, pc2, m2);
    }
    {
        const uint8_t junk[3] = {1, 2, 3};
        if (tbr_trace_writer_append(w, 999, junk, sizeof junk) < 0) die("append unknown");
    }

    draw(0, 10, 11);
    const float t0[3][2] = {{0, 0}, {320, 0}, {320, 240}};
    const float t1[3][2] = {{0, 0}, {320, 240}, {0, 240}};
    prim(0, 0, t0);
    prim(0, 1, t1);
    uint64_t n0 = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int y = 0; y < 240; y += 2)
            for (int x = 0; x < 320; x += 2) {
                int mine = 3 * x >= 4 * y ? 0 : 1;
                if (mine == pass) {
                    quad(0, x, y, (uint32_t)pass, paths ? 1 : 0);
                    n0++;
                }
            }
    draw_end(0, n0);

    draw(1, 12, 13);
    const float s0[3][2] = {{64, 64}, {96, 64}, {96, 96}};
    const float s1[3][2] = {{64, 64}, {96, 96}, {64, 96}};
    prim(1, 0, s0);
    prim(1, 1, s1);
    uint64_t n1 = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int y = 64; y < 96; y += 2)
            for (int x = 64; x < 96; x += 2) {
                int mine = x - 64 >= y - 64 ? 0 : 1;
                if (mine == pass) {
                    quad(1, x, y, (uint32_t)pass, paths ? 2 : 0);
                    n1++;
                }
            }
    draw_end(1, n1);
    flush();
    for (uint32_t ty = 0; ty < 4; ty++)
        for (uint32_t tx = 0; tx < 5; tx++) {
            tbr_rec_tile t = {TBR_REC_TILE_STORE, 0, 0, 1, 0, 0, tx, ty, 64};
            emit(TBR_REC_TILE, tbr_rec_tile_encode(&b, &t));
        }
    frame_end(5, 2, n0 + n1, 4);
    end_frame();

    /* ---- frame 7 ---- */
    begin_frame(7);
    render_pass(320, 240);
    clear();
    flush();
    frame_end(7, 0, 0, 0);
    end_frame();

    tbr_buf_free(&b);
    if (tbr_trace_writer_close(w, NULL, &err) < 0) {
        fprintf(stderr, "gen_scene: %s\n", err.msg);
        return 1;
    }
    return 0;
}
