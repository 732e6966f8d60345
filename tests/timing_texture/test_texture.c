/* timing_texture.*: executed instruction streams (PATH), the texture unit + texture caches
 * (TEXELS), the Vertex Fetcher on VERTICES records (docs/timing-model.md "Shader
 * processors and texture unit"). Synthetic traces, hand-computed expectations.
 * usage: test_timing_texture TBR_SIM WORKDIR (TBR_SIM_TEST selects one test) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_output.h"
#include "frontend/sim_trace.h"
#include "synth_trace.h"

static const char *sim;
static int failures;
#define CHECK(c)                                                                                                       \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                                               \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

#define TEX_RES 10
/* FS: with_tex TEX instructions (pcs 0..with_tex-1), then nalu MOVs, END. */
static void emit_fs(uint32_t id, uint32_t nalu, int with_tex)
{
    static char text[65536];
    size_t o = 0;
    uint32_t pc = 0;
    o += (size_t)snprintf(text + o, sizeof text - o, "FRAG\nDCL IN[0], GENERIC[0]\nDCL OUT[0], COLOR\n");
    for (int t = 0; t < with_tex; t++)
        o += (size_t)snprintf(text + o, sizeof text - o, "  %u: TEX TEMP[0], TEMP[0], SAMP[0], 2D\n", pc++);
    for (uint32_t i = 0; i < nalu; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "  %u: MOV TEMP[1], TEMP[0]\n", pc++);
    o += (size_t)snprintf(text + o, sizeof text - o, "  %u: END\n", pc++);
    tbr_rec_shader s = {0};
    s.id = id;
    s.stage = 1;
    s.num_instructions = pc;
    s.parent_id = id;
    s.text = text;
    s.text_len = (uint32_t)o;
    SYNTH_EMIT(TBR_REC_SHADER, tbr_rec_shader_encode, &s);
}

/* PATH id 1 of shader id: every pc 0..n-1 once, all lanes active. */
static void emit_path(uint32_t pid, uint32_t shader, uint32_t stage, uint32_t n)
{
    uint16_t *pc = malloc(n * sizeof *pc);
    uint8_t *m = malloc(n);
    for (uint32_t i = 0; i < n; i++) {
        pc[i] = (uint16_t)i;
        m[i] = 0xf;
    }
    tbr_rec_path p = {0};
    p.id = pid;
    p.shader_id = shader;
    p.stage = stage;
    p.n = n;
    p.pc = pc;
    p.mask = m;
    SYNTH_EMIT(TBR_REC_PATH, tbr_rec_path_encode, &p);
    free(pc);
    free(m);
}

/* QUADS of draw seq: n quads along x (2k, y0), shaded with PATH pid (0 = none). */
static void emit_quads(uint32_t seq, uint32_t n, int y0, uint32_t pid)
{
    static tbr_rec_quad q;
    tbr_buf *b = synth_trace_buf();
    tbr_buf_reset(b);
    tbr_rec_quads_header qh;
    tbr_rec_quads_begin(b, &qh, seq, 1, 0);
    for (uint32_t k = 0; k < n; k++) {
        memset(&q, 0, sizeof q);
        q.x = (int)(2 * (k % 16));
        q.y = y0 + 2 * (int)(k / 16);
        q.prim = 0;
        q.prim_kind = 3;
        q.in_mask = 0xf;
        q.flags = TBR_REC_QUAD_SHADED | TBR_REC_QUAD_SHADE_OUT | TBR_REC_QUAD_DEPTH_OUT | TBR_REC_QUAD_BLENDED;
        q.path = pid;
        q.depth_mask = q.shade_mask = q.blend_mask = 0xf;
        for (int j = 0; j < 4; j++) {
            q.color[0][j][0] = 0.5f;
            q.color[0][j][3] = 1.0f;
        }
        if (tbr_rec_quads_add(b, &qh, &q)) abort();
    }
    tbr_rec_quads_finish(b, n);
    if (tbr_trace_writer_append_buf(synth_trace_writer(), TBR_REC_QUADS, b)) abort();
}

/* TEXELS of draw seq: TEX number i (pc i) of quad k reads the 2x2 footprint at fp(k, i). */
typedef void (*footprint_fn)(uint32_t k, uint32_t i, int *x, int *y);
static void emit_texels(uint32_t seq, uint32_t n, uint32_t ntex, footprint_fn fp)
{
    uint32_t nf = n * ntex;
    tbr_rec_texfetch *f = calloc(nf, sizeof *f);
    tbr_rec_texel *t = calloc((size_t)nf * 4, sizeof *t);
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t i = 0; i < ntex; i++) {
            uint32_t q = k * ntex + i;
            int x, y;
            fp(k, i, &x, &y);
            for (int j = 0; j < 4; j++) {
                tbr_rec_texel *e = &t[q * 4 + (uint32_t)j];
                e->lane = 0;
                e->x = x + (j & 1);
                e->y = y + (j >> 1);
            }
            f[q].quad = k;
            f[q].pc = i;
            f[q].unit = 0;
            f[q].resource_id = TEX_RES;
            f[q].n_texels = 4;
            f[q].texels = &t[q * 4];
        }
    tbr_buf *b = synth_trace_buf();
    tbr_buf_reset(b);
    if (tbr_rec_texels_encode(b, seq, f, nf)) abort();
    if (tbr_trace_writer_append_buf(synth_trace_writer(), TBR_REC_TEXELS, b)) abort();
    free(f);
    free(t);
}

/* The sampled texture's format and bytes per block (gen; test_compressed changes them). */
static const char *tex_format = "PIPE_FORMAT_R8G8B8A8_UNORM";
static uint32_t tex_block_bytes = 4;

/* One frame, one 32x32 pass (one tile), one draw of n quads: FS = [TEX] + nalu MOVs + END.
 * tex_w x tex_h texture id 10 (tex_format, RGBA8 unless changed). path: emit PATH records
 * and quad paths. */
static void gen(const char *dir, uint32_t n, uint32_t nalu, int with_tex, int path, footprint_fn fp, uint32_t tex_w,
                uint32_t tex_h)
{
    synth_trace_open(dir, "test_timing_texture");
    synth_begin_frame(0);
    synth_resource(1, "PIPE_FORMAT_B8G8R8A8_UNORM", 32, 32, 4, 1);
    synth_resource(TEX_RES, tex_format, tex_w, tex_h, tex_block_bytes, 0);
    synth_shader(1, 0, 4);
    emit_fs(2, nalu, with_tex);
    synth_render_pass(0, 32, 32, 1, 0);
    synth_clear(4, 0, 0, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
    synth_draw(1, 0, 0, 2);
    synth_prim(1, 0, 0, 0, 32, 32);
    uint32_t ninstr = (uint32_t)with_tex + nalu + 1;
    if (path) emit_path(1, 2, 1, ninstr);
    emit_quads(1, n, 0, path ? 1 : 0);
    if (with_tex && fp) emit_texels(1, n, (uint32_t)with_tex, fp);
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_frame_end(0, 32, 32);
    synth_end_frame();
    synth_trace_close();
}

static long long stat_of(const char *out, const char *name)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/stats.json", out);
    char *j = sim_slurp(p);
    long long v = j ? sim_stat_value(j, name) : -1;
    free(j);
    return v;
}
static int source_is(const char *out, const char *src)
{
    char p[1200], pat[64];
    snprintf(p, sizeof p, "%s/stats.json", out);
    snprintf(pat, sizeof pat, "\"instruction_source\": \"%s\"", src);
    char *j = sim_slurp(p);
    int ok = j && strstr(j, pat);
    free(j);
    return ok;
}
static long long sum4(const char *out, const char *fmt)
{
    long long s = 0;
    for (int i = 0; i < 4; i++) {
        char k[64];
        snprintf(k, sizeof k, fmt, i);
        long long v = stat_of(out, k);
        if (v > 0) s += v;
    }
    return s;
}

/* Loads frame 0 of DIR with the given layout; the fetch lines of quad 0. */
static int load_lines(const char *dir, int tiled, uint64_t *lines, uint32_t cap)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/activity.tbrt", dir);
    tbr_trace_error e;
    tbr_trace_reader *r = tbr_trace_reader_open(p, &e);
    if (!r) {
        fprintf(stderr, "%s\n", e.msg);
        return -1;
    }
    sim_loader *ld = sim_loader_new();
    sim_loader_set_texture_layout(ld, tiled, 64, 64);
    sim_frame f;
    sim_frame_init(&f, ld);
    char err[512];
    int n = -1;
    tbr_trace_frame_info fi;
    if (tbr_trace_reader_next_frame(r, &fi) > 0 && sim_frame_load(&f, r, 0, NULL, err, sizeof err) == 0 && f.nquads &&
        f.quads[0].nfetch == 1) {
        const sim_fetch *fe = &f.fetches[f.quads[0].first_fetch];
        n = (int)fe->nlines;
        for (uint32_t i = 0; i < fe->nlines && i < cap; i++) lines[i] = f.lines[fe->first_line + i];
        CHECK(fe->ntexels == 4 && fe->pc == 0);
    }
    sim_frame_free(&f);
    sim_loader_free(ld);
    tbr_trace_reader_close(r);
    return n;
}

static void fp_fixed(uint32_t k, uint32_t i, int *x, int *y)
{
    (void)k;
    (void)i;
    *x = 1;
    *y = 1;
}
static void fp_row(uint32_t k, uint32_t i, int *x, int *y)
{
    (void)i;
    *x = 2 * (int)k;
    *y = 0;
}
/* TEX i of quad k reads texels 16m, 16m+1 (m = 16k + i) of rows 0 and 1 of a 4096x2
 * texture: two lines no other access touches */
static void fp_far(uint32_t k, uint32_t i, int *x, int *y)
{
    *x = 16 * (int)(16 * k + i);
    *y = 0;
}

/* ---- derived_lines: fetches mapped as the sampler reports them ------------------------
 * sim_rel_* + sim_derive_relative_fetches (tbr-sim's derived texels, linear layout)
 * against the texel log mapped afterwards (sim_derive_fetch, per footprint or per
 * texel): random quads of random fetches (footprints of 2D arrays with mip levels, lone
 * texels, fetches without texels, a resource the frame does not describe) must give the
 * same fetches, lines and counts. */
static uint32_t rnd_state = 12345;
static uint32_t rnd(uint32_t n)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 8) % n;
}

/* One frame, nq quads (no TEXELS), textures 10 (100x60, 4 B/texel, levels 0-6, 3
 * layers) and 11 (37x23, 3 B/texel, levels 0-5). */
static void gen_mip(const char *dir, uint32_t nq)
{
    synth_trace_open(dir, "test_timing_texture");
    synth_begin_frame(0);
    synth_resource(1, "PIPE_FORMAT_B8G8R8A8_UNORM", 32, 32, 4, 1);
    tbr_rec_resource r = {0};
    r.id = TEX_RES;
    r.target = 3;
    r.width = 100;
    r.height = 60;
    r.depth = 1;
    r.array_size = 3;
    r.last_level = 6;
    r.block_bytes = 4;
    snprintf(r.format_name, sizeof r.format_name, "PIPE_FORMAT_R8G8B8A8_UNORM");
    SYNTH_EMIT(TBR_REC_RESOURCE, tbr_rec_resource_encode, &r);
    r.id = 11;
    r.target = 2;
    r.width = 37;
    r.height = 23;
    r.array_size = 1;
    r.last_level = 5;
    r.block_bytes = 3;
    snprintf(r.format_name, sizeof r.format_name, "PIPE_FORMAT_R8G8B8_UNORM");
    SYNTH_EMIT(TBR_REC_RESOURCE, tbr_rec_resource_encode, &r);
    synth_shader(1, 0, 4);
    emit_fs(2, 1, 1);
    synth_render_pass(0, 32, 32, 1, 0);
    synth_draw(1, 0, 0, 2);
    synth_prim(1, 0, 0, 0, 32, 32);
    emit_quads(1, nq, 0, 0);
    synth_frame_end(0, 32, 32);
    synth_end_frame();
    synth_trace_close();
}

static int load_frame(const char *dir, sim_frame *f, sim_loader *ld)
{
    char p[1200], err[512];
    snprintf(p, sizeof p, "%s/activity.tbrt", dir);
    tbr_trace_error e;
    tbr_trace_reader *r = tbr_trace_reader_open(p, &e);
    tbr_trace_frame_info fi;
    sim_frame_init(f, ld);
    int rc =
        r && tbr_trace_reader_next_frame(r, &fi) > 0 && sim_frame_load(f, r, 0, NULL, err, sizeof err) == 0 ? 0 : -1;
    if (r) tbr_trace_reader_close(r);
    return rc;
}

static uint32_t lvl(uint32_t d, uint32_t l)
{
    d >>= l;
    return d ? d : 1;
}

/* Returns how many fetches the two frames got (0 on a mismatch). */
static size_t derived_lines_case(const char *dir, uint32_t nq, uint32_t line_bytes)
{
    sim_loader *ld = sim_loader_new();
    sim_loader_set_texture_layout(ld, 0, line_bytes, 64);
    CHECK(sim_loader_relative_lines(ld));
    sim_frame fr, fl; /* relative / logged */
    if (load_frame(dir, &fr, ld) || load_frame(dir, &fl, ld) || fr.nquads != nq || fl.nquads != nq) {
        CHECK(!"frames load");
        sim_loader_free(ld);
        return 0;
    }
    sim_rel_fetches rf = {0};
    sim_fetch_set dr = {0}, dl = {0}; /* the fetches derived for fr / fl */
    sim_fetch_set_reset(&dr, &fr);
    sim_fetch_set_reset(&dl, &fl);
    static tbr_rec_texel tx[4096];
    const uint32_t ids[3] = {TEX_RES, 11, 99};
    const uint32_t w0[3] = {100, 37, 1}, h0[3] = {60, 23, 1}, levels[3] = {7, 6, 1}, layers[3] = {3, 1, 1};
    for (uint32_t q = 0; q < nq; q++) {
        sim_rel_reset(&rf);
        const uint32_t nf = rnd(5);
        for (uint32_t i = 0; i < nf; i++) {
            const uint32_t t = rnd(3), pc = rnd(8);
            sim_rel_begin_fetch(&rf, &fr, ids[t], pc);
            const uint32_t items = rnd(4) == 0 ? 0 : 1 + rnd(12);
            uint32_t n = 0;
            bool footprints = true;
            for (uint32_t k = 0; k < items && n + 4 <= 4096; k++) {
                const uint32_t level = rnd(levels[t]), layer = rnd(layers[t]);
                const uint32_t w = lvl(w0[t], level), h = lvl(h0[t], level);
                const int32_t x0 = (int32_t)rnd(w), y0 = (int32_t)rnd(h);
                if (rnd(5) == 0) { /* a lone texel */
                    sim_rel_texel(&rf, level, layer, x0, y0);
                    tx[n++] = (tbr_rec_texel){(uint32_t)rnd(4), level, layer, x0, y0};
                    footprints = false;
                    continue;
                }
                const int32_t x1 = (uint32_t)x0 + 1 < w ? x0 + 1 : 0,
                              y1 = (uint32_t)y0 + 1 < h ? y0 + 1 : 0; /* (repeat) */
                const uint32_t lane = rnd(4);
                sim_rel_footprint(&rf, level, layer, x0, x1, y0, y1);
                tx[n++] = (tbr_rec_texel){lane, level, layer, x0, y0};
                tx[n++] = (tbr_rec_texel){lane, level, layer, x1, y0};
                tx[n++] = (tbr_rec_texel){lane, level, layer, x0, y1};
                tx[n++] = (tbr_rec_texel){lane, level, layer, x1, y1};
            }
            if (!n) continue; /* the fetch log drops a fetch without texels */
            tbr_rec_texfetch fe = {0};
            fe.quad = q;
            fe.pc = pc;
            fe.resource_id = ids[t];
            fe.n_texels = n;
            fe.texels = tx;
            sim_derive_fetch(&fl, &dl, q, &fe, tx, footprints);
        }
        sim_rel_end(&rf);
        CHECK(!rf.failed);
        sim_derive_relative_fetches(&fr, &dr, q, &rf);
    }
    size_t same = dr.nfetches == dl.nfetches && dr.texels == dl.texels && dr.texel_fetches == dl.texel_fetches;
    for (uint32_t q = 0; same && q < nq; q++)
        same = dr.count[q] == dl.count[q] && (!dr.count[q] || dr.first[q] == dl.first[q]);
    for (size_t i = 0; same && i < dr.nfetches; i++) {
        const sim_fetch *a = &dr.fetches[i], *b = &dl.fetches[i];
        same = a->quad == b->quad && a->pc == b->pc && a->ntexels == b->ntexels && a->nlines == b->nlines &&
               !memcmp(&dr.lines[a->first_line], &dl.lines[b->first_line], a->nlines * sizeof *dr.lines);
    }
    CHECK(same);
    CHECK(fr.nfetches == 0 && fl.nfetches == 0); /* the loaded frames are not edited */
    same = same ? dr.nfetches : 0;
    sim_fetch_set_free(&dr);
    sim_fetch_set_free(&dl);
    sim_rel_free(&rf);
    sim_frame_free(&fr);
    sim_frame_free(&fl);
    sim_loader_free(ld);
    return same;
}

static void test_lines(const char *work)
{
    char in[1200];
    char out[1200];
    /* One quad, one TEX reading the 2x2 footprint (1,1) (2,1) (1,2) (2,2) of a 64x64
     * RGBA8 texture (4 B/texel), the first texture of the run: base 0x2_0000_0000.
     * linear: texel (x,y) at base + (y*64 + x)*4: rows 1 and 2 -> bytes 260..267 and
     * 516..523 -> lines base+0x100 and base+0x200. tiled (4x4-texel blocks of 64 B,
     * block (x/4, y/4) at ((y/4)*16 + x/4)*64): all four in block 0 -> line base. */
    snprintf(in, sizeof in, "%s/one", work);
    gen(in, 1, 2, 1, 1, fp_fixed, 64, 64);
    uint64_t l[8] = {0};
    int n = load_lines(in, 0, l, 8);
    CHECK(n == 2 && l[0] == 0x200000100ull && l[1] == 0x200000200ull);
    fprintf(stderr, "linear: %d lines %#llx %#llx\n", n, (unsigned long long)l[0], (unsigned long long)l[1]);
    n = load_lines(in, 1, l, 8);
    CHECK(n == 1 && l[0] == 0x200000000ull);
    fprintf(stderr, "tiled: %d lines %#llx\n", n, (unsigned long long)l[0]);
    /* through tbr-sim: 1 TEX, 4 texels, 2 line requests (linear), both cold misses */
    snprintf(out, sizeof out, "%s/one.out", work);
    CHECK(sim_run(sim, in, out, NULL) == 0);
    CHECK(source_is(out, "mixed")); /* FS executed stream, VS static count (no VERTICES) */
    CHECK(stat_of(out, "texture.requests") == 1);
    CHECK(stat_of(out, "texture.texels") == 4);
    CHECK(stat_of(out, "texture.line_requests") == 2);
    CHECK(sum4(out, "texture_cache.%d.misses") == 2 && sum4(out, "texture_cache.%d.hits") == 0);
    CHECK(stat_of(out, "ru0.fp0.instr_tex") == 1 && stat_of(out, "ru0.fp0.instr_alu") == 2 &&
          stat_of(out, "ru0.fp0.instr_ctrl") == 1);
    snprintf(out, sizeof out, "%s/one_tiled.out", work);
    CHECK(sim_run(sim, in, out, "--set texture.layout=tiled") == 0);
    CHECK(stat_of(out, "texture.line_requests") == 1);
    /* the same trace without PATH records: static count, no texture access */
    snprintf(in, sizeof in, "%s/one_static", work);
    gen(in, 1, 2, 1, 0, fp_fixed, 64, 64);
    snprintf(out, sizeof out, "%s/one_static.out", work);
    CHECK(sim_run(sim, in, out, NULL) == 0);
    CHECK(source_is(out, "static"));
    CHECK(stat_of(out, "texture.requests") == 0);
}

static void test_hits(const char *work)
{
    char in[1200];
    char out[1200];
    /* 16 quads, quad k reads (2k..2k+1, 0..1) of a 64x64 RGBA8 texture; one FP with one
     * thread, so the quads access the one texture cache strictly one after another.
     * linear: row 0 bytes 8k..8k+7 -> line 0 (k < 8) or 64 (k >= 8); row 1 -> line 256
     * or 320: 32 line requests, 4 cold misses, 28 hits.
     * tiled: quad k is inside block k/2 (one 64 B line): 16 requests, 8 misses, 8 hits. */
    snprintf(in, sizeof in, "%s/row", work);
    gen(in, 16, 2, 1, 1, fp_row, 64, 64);
    const char *one = "--set fragment.processors=1 --set fragment.threads_per_processor=1";
    snprintf(out, sizeof out, "%s/row_linear.out", work);
    CHECK(sim_run(sim, in, out, one) == 0);
    long long req = stat_of(out, "texture.line_requests"), h = stat_of(out, "texture_cache.0.hits"),
              m = stat_of(out, "texture_cache.0.misses");
    fprintf(stderr, "linear: %lld line requests, %lld hits, %lld misses\n", req, h, m);
    CHECK(req == 32 && h == 28 && m == 4);
    CHECK(stat_of(out, "mem.texture_cache.0.reads") == 4);
    char extra[256];
    snprintf(extra, sizeof extra, "%s --set texture.layout=tiled", one);
    snprintf(out, sizeof out, "%s/row_tiled.out", work);
    CHECK(sim_run(sim, in, out, extra) == 0);
    req = stat_of(out, "texture.line_requests");
    h = stat_of(out, "texture_cache.0.hits");
    m = stat_of(out, "texture_cache.0.misses");
    fprintf(stderr, "tiled: %lld line requests, %lld hits, %lld misses\n", req, h, m);
    CHECK(req == 16 && h == 8 && m == 8);
    /* default 4 FPs: quads round-robin over 4 texture caches; every request is a hit or a
     * miss of one of them */
    snprintf(out, sizeof out, "%s/row4.out", work);
    CHECK(sim_run(sim, in, out, NULL) == 0);
    CHECK(sum4(out, "texture_cache.%d.hits") + sum4(out, "texture_cache.%d.misses") == 32);
}

static void test_dram(const char *work)
{
    char in[1200];
    char out[1200];
    /* Acceptance: a texture-bound trace slows down when the DRAM CAS latency rises
     * (dram.tCL 24 -> 120 tCK = +80 GPU cycles per DRAM read); an ALU-bound one does not.
     * Texture-bound: 16 quads, each a chain of 16 dependent TEX instructions whose two
     * lines no other access touches (every TEX waits for DRAM), 2 ALU ops: 4 quads per FP
     * cannot hide the latency. ALU-bound: 256 quads of 64 ALU ops, no TEX. Same (default)
     * configuration for both. */
    snprintf(in, sizeof in, "%s/texbound", work);
    gen(in, 16, 2, 16, 1, fp_far, 4096, 2);
    const char *slow = "--set dram.tCL=120";
    snprintf(out, sizeof out, "%s/tex_fast.out", work);
    CHECK(sim_run(sim, in, out, NULL) == 0);
    long long t0 = stat_of(out, "cycles.raster");
    long long tm = sum4(out, "texture_cache.%d.misses");
    snprintf(out, sizeof out, "%s/tex_slow.out", work);
    CHECK(sim_run(sim, in, out, slow) == 0);
    long long t1 = stat_of(out, "cycles.raster");
    snprintf(in, sizeof in, "%s/alubound", work);
    gen(in, 256, 64, 0, 1, NULL, 64, 64);
    snprintf(out, sizeof out, "%s/alu_fast.out", work);
    CHECK(sim_run(sim, in, out, NULL) == 0);
    long long a0 = stat_of(out, "cycles.raster");
    snprintf(out, sizeof out, "%s/alu_slow.out", work);
    CHECK(sim_run(sim, in, out, slow) == 0);
    long long a1 = stat_of(out, "cycles.raster");
    fprintf(stderr,
            "texture-bound raster cycles %lld -> %lld (tCL 24 -> 120), texture-cache misses %lld; ALU-bound %lld "
            "-> %lld\n",
            t0, t1, tm, a0, a1);
    CHECK(tm == 16 * 16 * 2);
    CHECK(t0 > 0 && (double)t1 >= 1.1 * (double)t0);
    /* the ALU-bound trace touches DRAM only for the final color flush (4 lines) */
    CHECK(a0 > 0 && (double)a1 <= 1.02 * (double)a0);
}

static void test_threads(const char *work)
{
    char in[1200];
    char out[1200];
    /* Fixed texture latency: all 256 quads read the same footprint (hits after the first
     * access), shader.lat_tex=60; FS = TEX + 16 MOV + END = 18 instructions.
     * 1 thread/FP: each quad waits for its TEX: >= 256/4 x (60 + 16 x 2) cycles.
     * 64 threads/FP: the latency overlaps other quads' ALU work: close to the issue bound
     * 256/4 x 18 = 1152 cycles. */
    snprintf(in, sizeof in, "%s/fixed", work);
    gen(in, 256, 16, 1, 1, fp_fixed, 64, 64);
    snprintf(out, sizeof out, "%s/t1.out", work);
    CHECK(sim_run(sim, in, out, "--set shader.lat_tex=60 --set fragment.threads_per_processor=1") == 0);
    long long c1 = stat_of(out, "cycles.raster"), st1 = sum4(out, "ru0.fp%d.tex_stall_cycles");
    snprintf(out, sizeof out, "%s/t64.out", work);
    CHECK(sim_run(sim, in, out, "--set shader.lat_tex=60 --set fragment.threads_per_processor=64") == 0);
    long long c64 = stat_of(out, "cycles.raster"), st64 = sum4(out, "ru0.fp%d.tex_stall_cycles");
    fprintf(stderr,
            "1 thread: %lld raster cycles (tex stall %lld); 64 threads: %lld (tex stall %lld); issue bound 1152\n", c1,
            st1, c64, st64);
    CHECK(c1 >= 64 * (60 + 32));
    CHECK(c64 > 0 && c64 <= 1152 * 13 / 10 + 300);
    CHECK(st1 > st64);
}

/* The vertices scene (test_vertices) into dir: one draw (synth_draw's knobs say whether
 * it is indexed), 2 VS groups. */
static void gen_vertices(const char *dir)
{
    const char *in = dir;
    synth_trace_open(in, "test_timing_texture");
    synth_begin_frame(0);
    synth_resource(1, "PIPE_FORMAT_B8G8R8A8_UNORM", 32, 32, 4, 1);
    synth_resource(20, "PIPE_FORMAT_R8_UNORM", 96, 1, 1, 0);
    tbr_rec_shader s = {0};
    s.id = 1;
    s.stage = 0;
    s.num_instructions = 3;
    s.parent_id = 1;
    s.text = "VERT\n  0: MOV OUT[0], IN[0]\n  1: RCP TEMP[0].x, IN[0].wwww\n  2: END\n";
    s.text_len = (uint32_t)strlen(s.text);
    SYNTH_EMIT(TBR_REC_SHADER, tbr_rec_shader_encode, &s);
    emit_fs(2, 2, 0);
    synth_render_pass(0, 32, 32, 1, 0);
    synth_clear(4, 0, 0, 0, 1, 0);
    synth_tile(TBR_REC_TILE_CLEAR_ALL, 0, 1);
    synth_draw(1, 0, 0, 2);
    emit_path(1, 1, 0, 3);
    static tbr_rec_vertices_header h;
    memset(&h, 0, sizeof h);
    h.draw_seq = 1;
    h.vs_id = 1;
    h.num_outputs = 1;
    h.position_slot = 0;
    h.nr_streams = 1;
    h.streams[0] = (tbr_rec_vertex_stream){20, 0, 0, 16, 16, 0, 0};
    h.fetched = 6;
    h.count = 2;
    tbr_rec_vertex_group gr[2];
    memset(gr, 0, sizeof gr);
    gr[0].path = 1;
    gr[0].n = 4;
    gr[1].path = 1;
    gr[1].n = 2;
    for (int i = 0; i < 4; i++) gr[0].index[i] = (uint32_t)i;
    for (int i = 0; i < 2; i++) gr[1].index[i] = (uint32_t)(4 + i);
    tbr_buf *b = synth_trace_buf();
    tbr_buf_reset(b);
    if (tbr_rec_vertices_encode(b, &h, gr)) abort();
    if (tbr_trace_writer_append_buf(synth_trace_writer(), TBR_REC_VERTICES, b)) abort();
    synth_prim(1, 0, 0, 0, 32, 32);
    synth_prim(1, 1, 0, 0, 32, 32);
    synth_tile(TBR_REC_TILE_STORE, 0, 1);
    synth_frame_end(0, 32, 32);
    synth_end_frame();
    synth_trace_close();
}

static void test_vertices(const char *work)
{
    char in[1200];
    char out[1200];
    /* VERTICES: one draw, 2 VS groups (4 + 2 vertices, indices 0..5) with a VS PATH of 3
     * instructions; one stream of buffer resource 20 (16 B per vertex, stride 16):
     * vertices 0-3 -> line 0 of the buffer, 4-5 -> line 64: 2 vertex-cache requests. */
    snprintf(in, sizeof in, "%s/verts", work);
    gen_vertices(in);
    snprintf(out, sizeof out, "%s/verts.out", work);
    CHECK(sim_run(sim, in, out, NULL) == 0);
    long long vr = stat_of(out, "vertex_cache.reads"), gv = stat_of(out, "geometry.vertices");
    long long vs = sum4(out, "vp%d.stream_items"), sfu = sum4(out, "vp%d.instr_sfu");
    fprintf(stderr, "vertex cache reads %lld, vertices %lld, VS stream items %lld, VS SFU instr %lld\n", vr, gv, vs,
            sfu);
    CHECK(vr == 2 && gv == 6 && vs == 2 && sfu == 2);
}

/* Index fetch (vertex_fetch.indices, docs/timing-model.md "Index fetch"): the vertices
 * scene's draw made indexed. The index lines go through the Vertex Cache ahead of the
 * groups' 2 vertex-buffer lines, group g taking lines [ceil(g*L/2), ceil((g+1)*L/2)).
 *  a) 6 indices of 2 B from element 0: bytes 0..11 of the draw's window = 1 line, sent
 *     with group 0: 1 + 2 = 3 Vertex Cache reads.
 *  b) 100 indices of 4 B from element 10, 2 instances: bytes 40..439 = lines 0..6 = 7
 *     lines per instance, 14 in all (group 0 the first instance's 7, group 1 the second's,
 *     the same addresses): 14 + 2 = 16 reads, of which 7 + 2 distinct lines reach the L2.
 *  c) b) with vertex_fetch.indices=false, and a non-indexed draw: the 2 vertex lines. */
static void test_indices(const char *work)
{
    char in[1200], out[1200];
    static const struct {
        const char *name;
        uint32_t isize, start, count, inst;
        const char *set;
        long long reads, idx, l2;
    } runs[] = {{"a", 2, 0, 6, 1, NULL, 3, 1, 3},
                {"b", 4, 10, 100, 2, NULL, 16, 14, 9},
                {"c", 4, 10, 100, 2, "--set vertex_fetch.indices=false", 2, 0, 2},
                {"plain", 0, 0, 6, 1, NULL, 2, 0, 2}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        synth_draw_index_size = runs[i].isize;
        synth_draw_start = runs[i].start;
        synth_draw_vertex_count = runs[i].count;
        synth_draw_instances = runs[i].inst;
        snprintf(in, sizeof in, "%s/idx_%s", work, runs[i].name);
        gen_vertices(in);
        snprintf(out, sizeof out, "%s/idx_%s.out", work, runs[i].name);
        CHECK(sim_run(sim, in, out, runs[i].set) == 0);
        long long vr = stat_of(out, "vertex_cache.reads"), il = stat_of(out, "vf.index_lines"),
                  l2 = stat_of(out, "mem.vertex_cache.reads"), gv = stat_of(out, "geometry.vertices");
        fprintf(stderr, "%s: vertex cache reads %lld, index lines %lld, L2 reads %lld, vertices %lld\n", runs[i].name,
                vr, il, l2, gv);
        CHECK(vr == runs[i].reads && il == runs[i].idx && l2 == runs[i].l2 && gv == 6);
    }
    synth_draw_index_size = synth_draw_start = 0;
    synth_draw_vertex_count = 6;
    synth_draw_instances = 1;
}

/* TEX of quad k reads texels (8k..8k+1, 0..1). */
static void fp_stride8(uint32_t k, uint32_t i, int *x, int *y)
{
    (void)i;
    *x = 8 * (int)k;
    *y = 0;
}

/* Compressed textures fetched as blocks (docs/timing-model.md "Compressed textures"):
 * 64 quads, quad k reads the 2x2 footprint at (8k, 0) of a 512x64 texture; one FP, one
 * thread (the requests in order through one texture cache).
 *  RGBA8: rows 0 and 1 are 2048 B apart, texels 8k, 8k+1 at 32k..32k+7: 2 lines per
 *         fetch (128 requests), 32 distinct lines per row: 64 L2 reads.
 *  ETC1_RGB8 (4x4 blocks of 8 B): the footprint is inside block (2k, 0) at 16k: 1 line
 *         per fetch (64 requests), lines 0..1008 step 64: 16 L2 reads.
 *  DXT5_RGBA (4x4, 16 B): block 2k at 32k: 64 requests, 32 L2 reads.
 *  ASTC_8x8 (8x8, 16 B): block k at 16k: 64 requests, 16 L2 reads. */
static void test_compressed(const char *work)
{
    static const struct {
        const char *name, *fmt;
        uint32_t bytes;
        long long req, l2, comp;
    } runs[] = {{"rgba8", "PIPE_FORMAT_R8G8B8A8_UNORM", 4, 128, 64, 0},
                {"etc1", "PIPE_FORMAT_ETC1_RGB8", 8, 64, 16, 64},
                {"dxt5", "PIPE_FORMAT_DXT5_RGBA", 16, 64, 32, 64},
                {"astc8", "PIPE_FORMAT_ASTC_8x8", 16, 64, 16, 64}};
    const char *one = "--set fragment.processors=1 --set fragment.threads_per_processor=1";
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char in[1200], out[1200];
        tex_format = runs[i].fmt;
        tex_block_bytes = runs[i].bytes;
        snprintf(in, sizeof in, "%s/%s", work, runs[i].name);
        gen(in, 64, 2, 1, 1, fp_stride8, 512, 64);
        snprintf(out, sizeof out, "%s/%s.out", work, runs[i].name);
        CHECK(sim_run(sim, in, out, one) == 0);
        long long req = stat_of(out, "texture.line_requests"), l2 = stat_of(out, "mem.texture_cache.0.reads"),
                  comp = stat_of(out, "texture.compressed_lines");
        fprintf(stderr, "%s: %lld line requests, %lld L2 reads, %lld compressed lines\n", runs[i].name, req, l2, comp);
        CHECK(req == runs[i].req && l2 == runs[i].l2 && comp == runs[i].comp);
    }
    tex_format = "PIPE_FORMAT_R8G8B8A8_UNORM";
    tex_block_bytes = 4;
}

static void test_determinism(const char *work)
{
    char cmd[6000];
    char in[1200];
    snprintf(in, sizeof in, "%s/det", work);
    gen(in, 200, 4, 1, 1, fp_row, 512, 64);
    char o1[1200], o2[1200];
    snprintf(o1, sizeof o1, "%s/d1.out", work);
    snprintf(o2, sizeof o2, "%s/d2.out", work);
    CHECK(sim_run(sim, in, o1, NULL) == 0);
    CHECK(sim_run(sim, in, o2, NULL) == 0);
    snprintf(cmd, sizeof cmd,
             "cmp -s '%s/stats.json' '%s/stats.json' && cmp -s '%s/frames/frame_00000.png' '%s/frames/frame_00000.png'",
             o1, o2, o1, o2);
    CHECK(system(cmd) == 0);
}

static void test_derived_lines(const char *work)
{
    char in[1200];
    snprintf(in, sizeof in, "%s/mip", work);
    gen_mip(in, 400);
    const uint32_t line_bytes[3] = {64, 32, 4096};
    for (int k = 0; k < 3; k++) {
        const size_t n = derived_lines_case(in, 400, line_bytes[k]);
        fprintf(stderr, "derived_lines: %u-byte lines: %zu fetches equal\n", line_bytes[k], n);
        CHECK(n > 500);
    }
    /* layouts whose lines are not the base plus an offset's line: the texel log path */
    sim_loader *ld = sim_loader_new();
    sim_loader_set_texture_layout(ld, 1, 64, 64);
    CHECK(!sim_loader_relative_lines(ld));
    sim_loader_set_texture_layout(ld, 0, 48, 64);
    CHECK(!sim_loader_relative_lines(ld));
    sim_loader_set_texture_layout(ld, 0, 8192, 64);
    CHECK(!sim_loader_relative_lines(ld));
    sim_loader_free(ld);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s TBR_SIM WORKDIR\n", argv[0]);
        return 2;
    }
    sim = argv[1];
    const char *work = argv[2];
    const char *which = getenv("TBR_SIM_TEST");
    char cmd[6000];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", work, work);
    if (system(cmd) != 0) return 2;

    /* One function per test (TBR_SIM_TEST names one; unset runs them all, in this order). */
    static const struct {
        const char *name;
        void (*run)(const char *work);
    } tests[] = {{"lines", test_lines},
                 {"hits", test_hits},
                 {"dram", test_dram},
                 {"threads", test_threads},
                 {"vertices", test_vertices},
                 {"indices", test_indices},
                 {"compressed", test_compressed},
                 {"determinism", test_determinism},
                 {"derived_lines", test_derived_lines}};
    for (size_t t = 0; t < sizeof tests / sizeof tests[0]; t++)
        if (!which || !strcmp(which, tests[t].name)) tests[t].run(work);
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
