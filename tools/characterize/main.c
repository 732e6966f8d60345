/* tbr-characterize: workload characterization of a GPU activity trace, per
 * trace and per frame: the columns of thesis Tables 3.2 (geometry) and 3.3
 * (fragments), and texture-block sharing between tiles / replication across
 * private texture caches when the trace has texel records.
 * Every metric is defined in docs/tools-characterize.md. */
#include "tbr/record_table.h"
#include "tbr/records.h"
#include "tbr/trace.h"
#include "texblocks.h"
#include "tool_args.h"
#include "tool_trace.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TBR_VERSION
#define TBR_VERSION "unknown"
#endif

enum { EXIT_OK = 0, EXIT_BAD = 2 };
enum { OUT_TEXT, OUT_CSV, OUT_JSON };

static const char *const prog = "tbr-characterize";

static void oom(void)
{
    fprintf(stderr, "%s: out of memory\n", prog);
    exit(EXIT_BAD);
}

/* ---- small u64 -> u64 hash map (open addressing, key+1 stored) ---------- */

typedef struct hmap {
    uint64_t *keys; /* 0 = empty, else key + 1 */
    uint64_t *vals;
    size_t cap, len;
} hmap;

static uint64_t hmix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static void hmap_free(hmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

static void hmap_clear(hmap *m)
{
    if (m->keys) memset(m->keys, 0, m->cap * sizeof *m->keys);
    m->len = 0;
}

static uint64_t *hmap_slot(hmap *m, uint64_t key, int create)
{
    if (create && (m->len + 1) * 2 > m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 64;
        hmap n = {calloc(ncap, sizeof(uint64_t)), calloc(ncap, sizeof(uint64_t)), ncap, 0};
        if (!n.keys || !n.vals) oom();
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i]) {
                size_t j = hmix(m->keys[i] - 1) & (ncap - 1);
                while (n.keys[j]) j = (j + 1) & (ncap - 1);
                n.keys[j] = m->keys[i];
                n.vals[j] = m->vals[i];
                n.len++;
            }
        hmap_free(m);
        *m = n;
    }
    if (!m->cap) return NULL;
    size_t j = hmix(key) & (m->cap - 1);
    while (m->keys[j]) {
        if (m->keys[j] == key + 1) return &m->vals[j];
        j = (j + 1) & (m->cap - 1);
    }
    if (!create) return NULL;
    m->keys[j] = key + 1;
    m->vals[j] = 0;
    m->len++;
    return &m->vals[j];
}

/* ---- TGSI instruction classes --------------------------------------------- */

enum { CL_ALU = 0, CL_TEX = 1, CL_FLOW = 2 };

static const char *const tex_ops[] = {"TEX",      "TEX_LZ",      "TXB",      "TXB2",        "TXD",      "TXF",
                                      "TXF_LZ",   "TXL",         "TXL2",     "TXP",         "TEX2",     "TG4",
                                      "SAMPLE",   "SAMPLE_B",    "SAMPLE_C", "SAMPLE_C_LZ", "SAMPLE_D", "SAMPLE_L",
                                      "SAMPLE_I", "SAMPLE_I_MS", "GATHER4",  NULL};
static const char *const flow_ops[] = {"IF",     "UIF",  "ELSE",    "ENDIF",     "BGNLOOP", "ENDLOOP", "BRK",
                                       "CONT",   "CAL",  "RET",     "END",       "NOP",     "BGNSUB",  "ENDSUB",
                                       "SWITCH", "CASE", "DEFAULT", "ENDSWITCH", NULL};

static int classify(const char *op, size_t n)
{
    char buf[32];
    if (n >= sizeof buf) return CL_ALU;
    memcpy(buf, op, n);
    buf[n] = '\0';
    size_t bl = strlen(buf);
    if (bl > 4 && strcmp(buf + bl - 4, "_SAT") == 0) buf[bl - 4] = '\0';
    for (int i = 0; tex_ops[i]; i++)
        if (strcmp(buf, tex_ops[i]) == 0) return CL_TEX;
    for (int i = 0; flow_ops[i]; i++)
        if (strcmp(buf, flow_ops[i]) == 0) return CL_FLOW;
    return CL_ALU;
}

typedef struct shader_info {
    uint32_t id, stage, num_instructions;
    int have_text;
    uint32_t n_alu, n_tex; /* static counts from the text */
    uint8_t *pc_class;     /* [pc] = CL_* (0xff = no such pc) */
    uint32_t npc;
} shader_info;

/* Everything tbr-characterize keeps while it reads a trace (main's, passed down). */
typedef struct state state;

static void shader_parse_text(shader_info *si, const char *text, size_t len)
{
    free(si->pc_class);
    si->pc_class = NULL;
    si->npc = 0;
    si->n_alu = si->n_tex = 0;
    size_t i = 0;
    while (i < len) {
        size_t e = i;
        while (e < len && text[e] != '\n') e++;
        size_t k = i;
        while (k < e && text[k] == ' ') k++;
        size_t d = k;
        uint64_t pc = 0;
        while (d < e && isdigit((unsigned char)text[d]) && pc < 1000000) pc = pc * 10 + (uint64_t)(text[d++] - '0');
        if (d > k && d < e && text[d] == ':') {
            d++;
            while (d < e && text[d] == ' ') d++;
            size_t o = d;
            while (o < e && (isupper((unsigned char)text[o]) || isdigit((unsigned char)text[o]) || text[o] == '_')) o++;
            if (o > d && pc < 1000000) {
                if (pc >= si->npc) {
                    uint32_t nn = (uint32_t)pc + 1;
                    uint8_t *c = realloc(si->pc_class, nn);
                    if (!c) oom();
                    memset(c + si->npc, 0xff, nn - si->npc);
                    si->pc_class = c;
                    si->npc = nn;
                }
                int cl = classify(text + d, o - d);
                si->pc_class[pc] = (uint8_t)cl;
                si->n_alu += cl == CL_ALU;
                si->n_tex += cl == CL_TEX;
            }
        }
        i = e + 1;
    }
    si->have_text = 1;
}

/* ---- accumulators ---------------------------------------------------------- */

typedef struct acc {
    uint64_t frames, draws, internal_draws;
    uint64_t vertices, vs_static_insns, vs_unknown_draws;
    uint64_t prims, prims_culled, prims_raster, attrs;
    uint64_t bins_bbox, bins_covered, tiles, prims_unbinned;
    uint64_t shaded_quads, shaded_frags;
    uint64_t fs_static_insns, fs_static_alu, fs_static_tex, fs_static_frags;
    uint64_t fs_exec_insns, fs_exec_alu, fs_exec_tex, fs_exec_frags, fs_exec_missing;
    uint64_t screen_pixels, frames_without_screen;
    uint64_t texel_records, texels;
    uint64_t texels_all_lanes, tex_fetches, tex_fetches_fallback, texels_unmatched;
    uint64_t vertex_records, vs_exec_verts, vs_exec_insns, vs_exec_missing, vs_draws_no_vertices;
    texblocks_result tb;
} acc;

static void acc_add(acc *a, const acc *b)
{
    const uint64_t *s = (const uint64_t *)b;
    uint64_t *d = (uint64_t *)a;
    for (size_t i = 0; i < sizeof(acc) / sizeof(uint64_t); i++) d[i] += s[i];
}

/* ---- per-frame state ------------------------------------------------------- */

typedef struct draw_info {
    uint32_t vs_id, fs_id, early_z, has_vertices;
    uint64_t verts;
    float point_size, line_width;
} draw_info;

typedef struct path_info {
    uint64_t insns, alu, tex; /* lane-weighted */
    int classes_known;
    uint8_t *ent; /* FS: copy of the (u16 pc, u8 mask) entries */
    uint32_t n;
} path_info;

typedef struct res_info {
    uint32_t w, h, bb, bw, bh; /* level-0 size, bytes per block, block size in texels */
    uint64_t dense;            /* small number of the resource (block keys) */
} res_info;

struct state {
    /* S->shaders of the trace (kept across frames) */
    shader_info *shaders;
    size_t nshaders, capshaders;
    hmap shader_map; /* id -> index */
    unsigned tw, th;
    /* current render pass grid */
    int have_pass;
    uint32_t pass_w, pass_h, tiles_x, tiles_y;
    uint8_t *tile_mark; /* tiles_x*tiles_y, for the covered set of one primitive */
    uint32_t *touched;
    size_t ntouched, tile_cap;
    int have_cur_prim;
    uint32_t cur_draw, cur_prim;
    /* draws and paths of the frame */
    draw_info *draws;
    hmap draw_map; /* seq -> index */
    size_t ndraws, capdraws;
    path_info *paths;
    hmap path_map, vpath_map; /* FS / VS path id -> index */
    size_t npaths, cappaths;
    /* quads of the current draw (TEXELS refer to them by ordinal) */
    int have_qdraw;
    uint32_t qdraw;
    int32_t *qxy;   /* 2 per quad */
    uint8_t *qmask; /* shading input mask */
    uint32_t *qpath;
    size_t nq, capq;
    /* texture blocks */
    uint64_t tile_base; /* tile order number of the current pass's first tile */
    texblocks *tb;
    unsigned procs;
    enum texblocks_mapping mapping;
    int texel_capable;             /* records_schema_minor >= 1 or a TEXELS record was seen */
    uint64_t texels_derived_quads; /* shaded quads whose texels the trace leaves out (minor 6) */
    res_info *res;
    hmap res_map;
    size_t nres, capres;
    /* screen */
    int have_last_screen;
    uint64_t last_screen_pixels;
};

static shader_info *shader_get(state *S, uint32_t id, int create)
{
    uint64_t *s = hmap_slot(&S->shader_map, id, 0);
    if (s) return &S->shaders[*s];
    if (!create) return NULL;
    if (S->nshaders == S->capshaders) {
        S->capshaders = S->capshaders ? S->capshaders * 2 : 64;
        S->shaders = realloc(S->shaders, S->capshaders * sizeof *S->shaders);
        if (!S->shaders) oom();
    }
    shader_info *si = &S->shaders[S->nshaders];
    memset(si, 0, sizeof *si);
    si->id = id;
    *hmap_slot(&S->shader_map, id, 1) = S->nshaders++;
    return si;
}

static void finish_prim(state *S, acc *a)
{
    if (!S->have_cur_prim) return;
    a->bins_covered += S->ntouched;
    for (size_t i = 0; i < S->ntouched; i++) S->tile_mark[S->touched[i]] = 0;
    S->ntouched = 0;
    S->have_cur_prim = 0;
}

static void set_pass(state *S, acc *a, uint32_t w, uint32_t h)
{
    finish_prim(S, a);
    S->have_pass = 1;
    S->pass_w = w;
    S->pass_h = h;
    S->tiles_x = (w + S->tw - 1) / S->tw;
    S->tiles_y = (h + S->th - 1) / S->th;
    size_t n = (size_t)S->tiles_x * S->tiles_y;
    S->tile_base = a->tiles;
    if (n > S->tile_cap) {
        free(S->tile_mark);
        free(S->touched);
        S->tile_mark = calloc(n, 1);
        S->touched = malloc(n * sizeof *S->touched);
        if (!S->tile_mark || !S->touched) oom();
        S->tile_cap = n;
    }
    a->tiles += n;
}

static draw_info *draw_get(state *S, uint32_t seq)
{
    uint64_t *s = hmap_slot(&S->draw_map, seq, 0);
    return s ? &S->draws[*s] : NULL;
}

static void reset_frame_state(state *S)
{
    S->have_pass = 0;
    S->have_cur_prim = 0;
    S->ntouched = 0;
    if (S->tile_mark) memset(S->tile_mark, 0, S->tile_cap);
    hmap_clear(&S->draw_map);
    S->ndraws = 0;
    hmap_clear(&S->path_map);
    hmap_clear(&S->vpath_map);
    for (size_t i = 0; i < S->npaths; i++) free(S->paths[i].ent);
    S->npaths = 0;
    S->have_qdraw = 0;
    S->nq = 0;
}

static unsigned popcount4(uint32_t m) { return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1); }

/* Number of tiles of the current pass overlapped by [minx,maxx]x[miny,maxy]
 * (window coordinates), using pixel ranges floor(min) .. ceil(max)-1. */
static uint64_t bbox_tiles(state *S, double minx, double maxx, double miny, double maxy)
{
    if (!(minx <= maxx) || !(miny <= maxy)) /* also rejects NaN */
        return 0;
    double x0 = floor(minx), y0 = floor(miny);
    double x1 = ceil(maxx) - 1, y1 = ceil(maxy) - 1;
    if (x1 < x0) x1 = x0;
    if (y1 < y0) y1 = y0;
    if (x1 < 0 || y1 < 0 || x0 >= S->pass_w || y0 >= S->pass_h) return 0;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > S->pass_w - 1) x1 = S->pass_w - 1;
    if (y1 > S->pass_h - 1) y1 = S->pass_h - 1;
    uint64_t tx0 = (uint64_t)x0 / S->tw, tx1 = (uint64_t)x1 / S->tw;
    uint64_t ty0 = (uint64_t)y0 / S->th, ty1 = (uint64_t)y1 / S->th;
    return (tx1 - tx0 + 1) * (ty1 - ty0 + 1);
}

/* Texel block size of a format (compressed formats: the block's texels). */
static void format_block_dims(const char *name, uint32_t *bw, uint32_t *bh)
{
    unsigned w, h;
    const char *a = strstr(name, "ASTC_");
    *bw = *bh = 1;
    if (a && sscanf(a + 5, "%ux%u", &w, &h) == 2 && w >= 1 && h >= 1 && w <= 16 && h <= 16) {
        *bw = w;
        *bh = h;
    } else if (strstr(name, "DXT") || strstr(name, "RGTC") || strstr(name, "LATC") || strstr(name, "ETC") ||
               strstr(name, "BPTC") || strstr(name, "FXT1")) {
        *bw = 4;
        *bh = 4;
    }
}

/* Key of the 64-byte block holding texel (x, y) of (level, layer) in
 * softpipe's linear layout (sp_texture.c softpipe_resource_layout: row stride
 * = blocks per row x block bytes, image stride = row stride x block rows, no
 * padding): byte offset layer * image stride + (y / bh) * row stride +
 * (x / bw) * block bytes, block = offset / 64, keyed with the resource and level. */
static uint64_t block_key(const res_info *ri, uint32_t level, uint32_t layer, int32_t x, int32_t y)
{
    uint64_t w = ri->w >> (level < 31 ? level : 31), h = ri->h >> (level < 31 ? level : 31);
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    uint64_t nbx = (w + ri->bw - 1) / ri->bw, nby = (h + ri->bh - 1) / ri->bh;
    uint64_t stride = nbx * ri->bb, img = stride * nby;
    uint64_t ux = x < 0 ? 0 : (uint64_t)x, uy = y < 0 ? 0 : (uint64_t)y;
    uint64_t off = (uint64_t)layer * img + (uy / ri->bh) * stride + (ux / ri->bw) * ri->bb;
    uint64_t blk = off / 64;
    uint64_t key = (ri->dense << 44) | ((uint64_t)(level & 31) << 39) | (blk & ((1ULL << 39) - 1));
    if (ri->dense >= (1u << 20) || blk >= (1ULL << 39)) /* does not fit: hash (never in practice) */
        key = hmix(hmix(ri->dense) ^ hmix(((uint64_t)level << 48) ^ blk));
    return key;
}

static path_info *path_new(state *S)
{
    if (S->npaths == S->cappaths) {
        S->cappaths = S->cappaths ? S->cappaths * 2 : 64;
        S->paths = realloc(S->paths, S->cappaths * sizeof *S->paths);
        if (!S->paths) oom();
    }
    path_info *pi = &S->paths[S->npaths];
    memset(pi, 0, sizeof *pi);
    return pi;
}

/* The record types process_record reads (the others are skipped undecoded). */
#define CHARACTERIZE_TYPES                                                                                             \
    (TBR_REC_MASK(TBR_REC_SHADER_CREATE) | TBR_REC_MASK(TBR_REC_SHADER) | TBR_REC_MASK(TBR_REC_RENDER_PASS) |          \
     TBR_REC_MASK(TBR_REC_DRAW) | TBR_REC_MASK(TBR_REC_DRAW_END) | TBR_REC_MASK(TBR_REC_PRIM) |                        \
     TBR_REC_MASK(TBR_REC_PATH) | TBR_REC_MASK(TBR_REC_QUADS) | TBR_REC_MASK(TBR_REC_RESOURCE) |                       \
     TBR_REC_MASK(TBR_REC_TEXELS) | TBR_REC_MASK(TBR_REC_VERTICES) | TBR_REC_MASK(TBR_REC_FRAME_END))

/* A decoded record (CHARACTERIZE_TYPES) into the frame's accumulators. Returns 0, or 1
 * for FRAME_END. */
static int process_draw(state *S, acc *a, const tbr_rec_decoded *d)
{
    const tbr_rec_draw *dr = &d->u.draw;
    finish_prim(S, a);
    a->draws++;
    a->internal_draws += dr->internal != 0;
    uint64_t verts = (uint64_t)dr->count * (dr->instance_count ? dr->instance_count : 1);
    shader_info *vs = shader_get(S, dr->vs_id, 0);
    if (vs) {
        a->vertices += verts;
        a->vs_static_insns += verts * vs->num_instructions;
    } else {
        a->vs_unknown_draws++;
    }
    if (S->ndraws == S->capdraws) {
        S->capdraws = S->capdraws ? S->capdraws * 2 : 64;
        S->draws = realloc(S->draws, S->capdraws * sizeof *S->draws);
        if (!S->draws) oom();
    }
    draw_info *di = &S->draws[S->ndraws];
    di->vs_id = dr->vs_id;
    di->fs_id = dr->fs_id;
    di->early_z = dr->early_z;
    di->point_size = dr->point_size;
    di->line_width = dr->line_width;
    di->has_vertices = 0;
    di->verts = verts;
    *hmap_slot(&S->draw_map, dr->seq, 1) = S->ndraws++;
    S->have_qdraw = 1;
    S->qdraw = dr->seq;
    S->nq = 0;
    return 0;
}

static int process_prim(state *S, acc *a, const tbr_rec_decoded *d)
{
    const tbr_rec_prim *r = &d->u.prim;
    a->prims++;
    if (r->flags & TBR_REC_PRIM_CULLED) {
        a->prims_culled++;
        return 0;
    }
    a->prims_raster++;
    a->attrs += r->nr_attrs ? r->nr_attrs - 1 : 0;
    if (!S->have_pass || r->kind < 1 || r->kind > 3) {
        a->prims_unbinned++;
        return 0;
    }
    double minx = INFINITY, maxx = -INFINITY, miny = INFINITY, maxy = -INFINITY;
    for (uint32_t v = 0; v < r->kind; v++) {
        double x = r->v[v][0][0], y = r->v[v][0][1];
        if (isnan(x) || isnan(y)) {
            minx = NAN;
            break;
        }
        minx = fmin(minx, x);
        maxx = fmax(maxx, x);
        miny = fmin(miny, y);
        maxy = fmax(maxy, y);
    }
    if (r->kind < 3) { /* points and lines: widen by half their size */
        draw_info *di = draw_get(S, r->draw_seq);
        double h = di ? 0.5 * (r->kind == 1 ? di->point_size : di->line_width) : 0.5;
        minx -= h;
        maxx += h;
        miny -= h;
        maxy += h;
    }
    a->bins_bbox += bbox_tiles(S, minx, maxx, miny, maxy);
    return 0;
}

static int process_path(state *S, const tbr_rec_decoded *d)
{
    const tbr_rec_path *r = &d->u.path;
    if (r->stage == TBR_REC_STAGE_VS) {
        path_info *pi = path_new(S);
        for (uint32_t i = 0; i < r->n; i++) pi->insns += popcount4(tbr_rec_path_mask(r, i) & 15u);
        *hmap_slot(&S->vpath_map, r->id, 1) = S->npaths++;
        return 0;
    }
    if (r->stage != TBR_REC_STAGE_FS) return 0;
    path_info *pi = path_new(S);
    if (r->n) {
        pi->ent = malloc((size_t)r->n * 3);
        if (!pi->ent) oom();
        memcpy(pi->ent, r->entries, (size_t)r->n * 3);
        pi->n = r->n;
    }
    shader_info *si = shader_get(S, r->shader_id, 0);
    pi->classes_known = si && si->have_text;
    for (uint32_t i = 0; i < r->n; i++) {
        uint64_t lanes = popcount4(tbr_rec_path_mask(r, i) & 15u);
        uint16_t pc = tbr_rec_path_pc(r, i);
        pi->insns += lanes;
        if (pi->classes_known) {
            int cl = pc < si->npc ? si->pc_class[pc] : 0xff;
            if (cl == 0xff)
                pi->classes_known = 0;
            else if (cl == CL_ALU)
                pi->alu += lanes;
            else if (cl == CL_TEX)
                pi->tex += lanes;
        }
    }
    *hmap_slot(&S->path_map, r->id, 1) = S->npaths++;
    return 0;
}

static int process_quads(state *S, acc *a, const tbr_rec_decoded *d)
{
    const tbr_rec_quads_header h = d->u.quads.h;
    draw_info *di = draw_get(S, h.draw_seq);
    shader_info *fs = di ? shader_get(S, di->fs_id, 0) : NULL;
    if (h.texels_derived) S->texels_derived_quads += h.count;
    if (!S->have_qdraw || S->qdraw != h.draw_seq) {
        S->have_qdraw = 1;
        S->qdraw = h.draw_seq;
        S->nq = 0;
    }
    for (uint32_t i = 0; i < h.count; i++) {
        const tbr_rec_quad q = d->u.quads.q[i];
        if (S->nq == S->capq) {
            S->capq = S->capq ? S->capq * 2 : 4096;
            S->qxy = realloc(S->qxy, S->capq * 2 * sizeof *S->qxy);
            S->qmask = realloc(S->qmask, S->capq);
            S->qpath = realloc(S->qpath, S->capq * sizeof *S->qpath);
            if (!S->qxy || !S->qmask || !S->qpath) oom();
        }
        S->qxy[2 * S->nq] = q.x;
        S->qxy[2 * S->nq + 1] = q.y;
        S->qmask[S->nq] =
            (q.flags & TBR_REC_QUAD_SHADED) ? (uint8_t)((di && di->early_z ? q.depth_mask : q.in_mask) & 15u) : 0;
        S->qpath[S->nq] = (q.flags & TBR_REC_QUAD_SHADED) ? q.path : 0;
        S->nq++;
        /* exact primitive/tile overlap: tiles holding a covered fragment */
        if (S->have_pass && q.in_mask) {
            if (!S->have_cur_prim || S->cur_draw != h.draw_seq || S->cur_prim != q.prim) {
                finish_prim(S, a);
                S->have_cur_prim = 1;
                S->cur_draw = h.draw_seq;
                S->cur_prim = q.prim;
            }
            for (int j = 0; j < 4; j++) {
                if (!(q.in_mask & (1u << j))) continue;
                int64_t fx = (int64_t)q.x + (j & 1), fy = (int64_t)q.y + (j >> 1);
                if (fx < 0 || fy < 0 || fx >= S->pass_w || fy >= S->pass_h) continue;
                uint32_t t = (uint32_t)(fy / S->th) * S->tiles_x + (uint32_t)(fx / S->tw);
                if (!S->tile_mark[t]) {
                    S->tile_mark[t] = 1;
                    S->touched[S->ntouched++] = t;
                }
            }
        }
        if (!(q.flags & TBR_REC_QUAD_SHADED)) continue;
        uint32_t frags = popcount4(di && di->early_z ? q.depth_mask : q.in_mask);
        a->shaded_quads++;
        a->shaded_frags += frags;
        if (fs) {
            a->fs_static_frags += frags;
            a->fs_static_insns += (uint64_t)frags * fs->num_instructions;
            if (fs->have_text) {
                a->fs_static_alu += (uint64_t)frags * fs->n_alu;
                a->fs_static_tex += (uint64_t)frags * fs->n_tex;
            }
        }
        uint64_t *ps = q.path ? hmap_slot(&S->path_map, q.path, 0) : NULL;
        if (ps && S->paths[*ps].classes_known) {
            const path_info *pi = &S->paths[*ps];
            a->fs_exec_frags += frags;
            a->fs_exec_insns += pi->insns;
            a->fs_exec_alu += pi->alu;
            a->fs_exec_tex += pi->tex;
        } else {
            a->fs_exec_missing += frags ? frags : 1;
        }
    }
    return 0;
}

static int process_resource(state *S, const tbr_rec_decoded *d)
{
    const tbr_rec_resource r = d->u.resource;
    if (hmap_slot(&S->res_map, r.id, 0)) return 0; /* ids are never reused: same resource */
    if (S->nres == S->capres) {
        S->capres = S->capres ? S->capres * 2 : 64;
        S->res = realloc(S->res, S->capres * sizeof *S->res);
        if (!S->res) oom();
    }
    res_info *ri = &S->res[S->nres];
    ri->w = r.width ? r.width : 1;
    ri->h = r.height ? r.height : 1;
    ri->bb = r.block_bytes ? r.block_bytes : 1;
    format_block_dims(r.format_name, &ri->bw, &ri->bh);
    ri->dense = S->nres;
    *hmap_slot(&S->res_map, r.id, 1) = S->nres++;
    return 0;
}

static int process_texels(state *S, acc *a, const tbr_rec_decoded *d)
{
    const tbr_rec_texels_header h = d->u.texels.h;
    S->texel_capable = 1;
    a->texel_records++;
    uint32_t prevq = UINT32_MAX, ppos = 0;
    uint64_t last_key = 0, last_tile = 0;
    unsigned last_proc = 0;
    int have_last = 0;
    for (uint32_t i = 0; i < h.count; i++) {
        const tbr_rec_texfetch f = d->u.texels.f[i];
        a->tex_fetches++;
        a->texels_all_lanes += f.n_texels;
        if (!S->have_qdraw || S->qdraw != h.draw_seq || f.quad >= S->nq) {
            a->texels_unmatched += f.n_texels;
            continue;
        }
        size_t qi = f.quad;
        if (f.quad != prevq) {
            prevq = f.quad;
            ppos = 0;
        }
        /* lanes: the PATH's active mask at this execution of pc (k-th
     * fetch of pc on the quad = k-th occurrence of pc in the path);
     * without it the quad's shading input mask */
        uint32_t mask = S->qmask[qi];
        uint64_t *ps = S->qpath[qi] ? hmap_slot(&S->path_map, S->qpath[qi], 0) : NULL;
        int found = 0;
        if (ps) {
            const path_info *pi = &S->paths[*ps];
            for (uint32_t k = ppos; k < pi->n; k++) {
                const uint8_t *e = pi->ent + 3 * (size_t)k;
                if ((uint32_t)(e[0] | (e[1] << 8)) == f.pc) {
                    mask = e[2] & 15u;
                    ppos = k + 1;
                    found = 1;
                    break;
                }
            }
        }
        if (!found) a->tex_fetches_fallback++;
        uint64_t *rs = hmap_slot(&S->res_map, f.resource_id, 0);
        const res_info *ri = rs ? &S->res[*rs] : NULL;
        for (uint32_t k = 0; k < f.n_texels; k++) {
            const tbr_rec_texel *t = &f.texels[k];
            if (!(mask & (1u << (t->lane & 3)))) continue;
            a->texels++;
            if (!ri || !S->have_pass) continue;
            int64_t px = (int64_t)S->qxy[2 * qi] + (t->lane & 1);
            int64_t py = (int64_t)S->qxy[2 * qi + 1] + (t->lane >> 1);
            if (px < 0 || py < 0 || px >= S->pass_w || py >= S->pass_h) continue;
            uint64_t tile = S->tile_base + (uint64_t)(py / S->th) * S->tiles_x + (uint64_t)(px / S->tw);
            unsigned proc = texblocks_map(S->mapping, S->procs, (unsigned)(px % S->tw) / 2, (unsigned)(py % S->th) / 2,
                                          (S->tw + 1) / 2, (S->th + 1) / 2);
            uint64_t key = block_key(ri, t->level, t->layer, t->x, t->y);
            if (have_last && key == last_key && tile == last_tile && proc == last_proc) continue;
            if (texblocks_add(S->tb, tile, proc, key)) oom();
            have_last = 1;
            last_key = key;
            last_tile = tile;
            last_proc = proc;
        }
    }
    return 0;
}

static int process_vertices(state *S, acc *a, const tbr_rec_decoded *d)
{
    const tbr_rec_vertices_header *h = d->u.vertices.h;
    a->vertex_records++;
    draw_info *di = draw_get(S, h->draw_seq);
    if (di) di->has_vertices = 1;
    for (uint32_t i = 0; i < h->count; i++) {
        const tbr_rec_vertex_group g = d->u.vertices.g[i];
        uint64_t *ps = hmap_slot(&S->vpath_map, g.path, 0);
        a->vs_exec_verts += g.n;
        if (ps)
            a->vs_exec_insns += S->paths[*ps].insns;
        else
            a->vs_exec_missing += g.n;
    }
    return 0;
}

static int process_record(state *S, acc *a, const tbr_rec_decoded *d)
{
    const uint16_t type = d->type;
    switch (type) {
        case TBR_REC_SHADER_CREATE:
        case TBR_REC_SHADER: {
            const tbr_rec_shader r = d->u.shader;
            shader_info *si = shader_get(S, r.id, 1);
            si->stage = r.stage;
            si->num_instructions = r.num_instructions;
            if (type == TBR_REC_SHADER && r.text && !si->have_text) shader_parse_text(si, r.text, r.text_len);
            return 0;
        }
        case TBR_REC_RENDER_PASS: {
            set_pass(S, a, d->u.render_pass.width, d->u.render_pass.height);
            return 0;
        }
        case TBR_REC_DRAW: return process_draw(S, a, d);
        case TBR_REC_DRAW_END: {
            finish_prim(S, a);
            draw_info *di = draw_get(S, d->u.draw_end.seq);
            if (di && !di->has_vertices && di->verts) a->vs_draws_no_vertices++;
            return 0;
        }
        case TBR_REC_PRIM: return process_prim(S, a, d);
        case TBR_REC_PATH: return process_path(S, d);
        case TBR_REC_QUADS: return process_quads(S, a, d);
        case TBR_REC_RESOURCE: return process_resource(S, d);
        case TBR_REC_TEXELS: return process_texels(S, a, d);
        case TBR_REC_VERTICES: return process_vertices(S, a, d);
        case TBR_REC_FRAME_END: {
            const tbr_rec_frame_end r = d->u.frame_end;
            S->have_last_screen = 1;
            S->last_screen_pixels = (uint64_t)r.width * r.height;
            a->screen_pixels += S->last_screen_pixels;
            return 1; /* marks "frame had FRAME_END" */
        }
        default: return 0; /* other known types carry nothing we measure; unknown ones are skipped */
    }
}

/* ---- output ---------------------------------------------------------------- */

typedef struct metrics {
    double v[16];
    int ok[16];
    int fs_exec, vs_exec;
} metrics;

enum {
    M_DRAWS_PER_FRAME,
    M_VS_IPV,
    M_PRIMS_PER_DRAW,
    M_PRIMS_PER_TILE_BBOX,
    M_PRIMS_PER_TILE_COV,
    M_FRAGS_PER_PRIM,
    M_ATTRS_PER_PRIM,
    M_FS_IPF,
    M_ALU_PER_TEX,
    M_TEXELS_PER_FRAG,
    M_OVERDRAW,
    M_SHARED_D1,
    M_SHARED_D2,
    M_REPL_UNIQUE,
    M_TEXELS_PER_TEX,
    M_COUNT
};

static const char *const mnames[M_COUNT] = {
    "draws_per_frame", "vs_insns_per_vertex", "prims_per_draw",    "prims_per_tile_bbox", "prims_per_tile_covered",
    "frags_per_prim",  "attrs_per_prim",      "fs_insns_per_frag", "alu_per_tex",         "texels_per_frag",
    "overdraw",        "tex_shared_d1",       "tex_shared_d2",     "tex_unique_blocks",   "texels_per_tex",
};

static int texel_ok(state *S, const acc *a);

static void ratio(metrics *m, int i, double num, double den)
{
    m->ok[i] = den > 0;
    m->v[i] = den > 0 ? num / den : 0;
}

static void compute(state *S, const acc *a, metrics *m)
{
    memset(m, 0, sizeof *m);
    ratio(m, M_DRAWS_PER_FRAME, (double)a->draws, (double)a->frames);
    m->vs_exec = a->vs_exec_verts > 0 && a->vs_exec_missing == 0;
    if (m->vs_exec)
        ratio(m, M_VS_IPV, (double)a->vs_exec_insns, (double)a->vs_exec_verts);
    else
        ratio(m, M_VS_IPV, (double)a->vs_static_insns, (double)a->vertices);
    ratio(m, M_PRIMS_PER_DRAW, (double)a->prims, (double)a->draws);
    ratio(m, M_PRIMS_PER_TILE_BBOX, (double)a->bins_bbox, (double)a->tiles);
    ratio(m, M_PRIMS_PER_TILE_COV, (double)a->bins_covered, (double)a->tiles);
    ratio(m, M_FRAGS_PER_PRIM, (double)a->shaded_frags, (double)a->prims_raster);
    ratio(m, M_ATTRS_PER_PRIM, (double)a->attrs, (double)a->prims_raster);
    m->fs_exec = a->fs_exec_missing == 0 && a->fs_exec_frags > 0;
    if (m->fs_exec) {
        ratio(m, M_FS_IPF, (double)a->fs_exec_insns, (double)a->fs_exec_frags);
        ratio(m, M_ALU_PER_TEX, (double)a->fs_exec_alu, (double)a->fs_exec_tex);
    } else {
        ratio(m, M_FS_IPF, (double)a->fs_static_insns, (double)a->fs_static_frags);
        ratio(m, M_ALU_PER_TEX, (double)a->fs_static_alu, (double)a->fs_static_tex);
    }
    if (texel_ok(S, a)) {
        ratio(m, M_TEXELS_PER_FRAG, (double)a->texels, (double)a->shaded_frags);
        ratio(m, M_SHARED_D1, (double)a->tb.shared_d1, (double)a->tb.blocks);
        ratio(m, M_SHARED_D2, (double)a->tb.shared_d2, (double)a->tb.blocks);
        ratio(m, M_REPL_UNIQUE, (double)a->tb.replication[1], (double)a->tb.blocks);
        ratio(m, M_TEXELS_PER_TEX, (double)a->texels, (double)(m->fs_exec ? a->fs_exec_tex : a->fs_static_tex));
    }
    if (a->frames_without_screen == 0) ratio(m, M_OVERDRAW, (double)a->shaded_frags, (double)a->screen_pixels);
}

/* Texel metrics are n/a where the trace derives texels instead of recording them: the
 * TEXELS records would undercount. */
static int texel_ok(state *S, const acc *a)
{
    return (a->texel_records || S->texel_capable) && !S->texels_derived_quads;
}

struct opts {
    int out;
    unsigned procs;
    enum texblocks_mapping mapping;
    int have_frames;
    uint64_t frame_lo, frame_hi;
};

static const char *fs_label(const metrics *m) { return m->fs_exec ? "executed" : "static"; }

static const char *vs_label(const metrics *m) { return m->vs_exec ? "executed" : "static"; }

static void print_json_row(state *S, const char *indent, const acc *a, const metrics *m, const struct opts *o)
{
    for (int i = 0; i < M_COUNT; i++) {
        printf("%s\"%s\": ", indent, mnames[i]);
        if (m->ok[i])
            printf("%.6f,\n", m->v[i]);
        else
            printf("null,\n");
    }
    printf("%s\"vs_insns_source\": \"%s\",\n", indent, vs_label(m));
    printf("%s\"fs_insns_source\": \"%s\",\n", indent, fs_label(m));
    printf("%s\"texel_metrics\": \"%s\",\n", indent, texel_ok(S, a) ? "computed" : "n/a (trace has no texel records)");
    printf("%s\"replication\": ", indent);
    if (!texel_ok(S, a) || !a->tb.blocks) {
        printf("null,\n");
    } else {
        printf("[");
        for (unsigned k = 1; k <= o->procs; k++)
            printf("%s%.6f", k > 1 ? ", " : "",
                   a->tb.blocks ? (double)a->tb.replication[k] / (double)a->tb.blocks : 0.0);
        printf("],\n");
    }
    printf("%s\"counts\": {\"frames\": %" PRIu64 ", \"draws\": %" PRIu64 ", \"internal_draws\": %" PRIu64
           ", \"vertices\": %" PRIu64 ", \"prims\": %" PRIu64 ", \"prims_culled\": %" PRIu64
           ", \"prims_rasterized\": %" PRIu64 ", \"prims_unbinned\": %" PRIu64 ", \"tiles\": %" PRIu64
           ", \"bins_bbox\": %" PRIu64 ", \"bins_covered\": %" PRIu64 ", \"shaded_quads\": %" PRIu64
           ", \"shaded_fragments\": %" PRIu64 ", \"screen_pixels\": %" PRIu64
           ", \"fs_fragments_without_path\": %" PRIu64 ", \"vs_unknown_draws\": %" PRIu64
           ", \"texel_records\": %" PRIu64 ", \"texels\": %" PRIu64 ", \"texels_all_lanes\": %" PRIu64
           ", \"tex_fetches\": %" PRIu64 ", \"tex_fetches_lane_fallback\": %" PRIu64 ", \"texels_unmatched\": %" PRIu64
           ", \"tex_blocks\": %" PRIu64 ", \"tex_shared_d1\": %" PRIu64 ", \"tex_shared_d2\": %" PRIu64
           ", \"tex_shared_far\": %" PRIu64 ", \"tex_private\": %" PRIu64 ", \"vertex_records\": %" PRIu64
           ", \"vs_exec_vertices\": %" PRIu64 ", \"vs_exec_insns\": %" PRIu64 ", \"vs_vertices_without_path\": %" PRIu64
           ", \"vs_draws_without_vertices\": %" PRIu64 "}\n",
           indent, a->frames, a->draws, a->internal_draws, a->vertices, a->prims, a->prims_culled, a->prims_raster,
           a->prims_unbinned, a->tiles, a->bins_bbox, a->bins_covered, a->shaded_quads, a->shaded_frags,
           a->screen_pixels, a->fs_exec_missing, a->vs_unknown_draws, a->texel_records, a->texels, a->texels_all_lanes,
           a->tex_fetches, a->tex_fetches_fallback, a->texels_unmatched, a->tb.blocks, a->tb.shared_d1, a->tb.shared_d2,
           a->tb.shared_far, a->tb.private_blocks, a->vertex_records, a->vs_exec_verts, a->vs_exec_insns,
           a->vs_exec_missing, a->vs_draws_no_vertices);
}

static void print_csv_row(const char *frame, const acc *a, const metrics *m)
{
    printf("%s", frame);
    for (int i = 0; i < M_COUNT; i++) {
        if (m->ok[i])
            printf(",%.6f", m->v[i]);
        else
            printf(",");
    }
    printf(",%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", vs_label(m), fs_label(m),
           a->draws, a->prims, a->prims_culled, a->shaded_frags, a->screen_pixels, a->tiles);
}

static void fmt_val(char *buf, size_t n, const metrics *m, int i)
{
    if (m->ok[i])
        snprintf(buf, n, "%.2f", m->v[i]);
    else
        snprintf(buf, n, "n/a");
}

static const char *const mapping_names[] = {"rr", "strips", "quadrant"};
#define NA_TEXEL "n/a (trace has no texel records)"

static void print_text(state *S, const char *path, const acc *tot, const metrics *mt, const acc *frames,
                       const uint64_t *numbers, size_t nf, const struct opts *o)
{
    char b[64];
    printf("%s: %" PRIu64 " frame%s, tile size %ux%u\n", path, tot->frames, tot->frames == 1 ? "" : "s", S->tw, S->th);
    printf("\n%-50s %12s\n", "Geometry (thesis Table 3.2)", "trace");
    static const struct {
        int m;
        const char *label;
    } geo[] = {
        {M_DRAWS_PER_FRAME, "draw calls per frame"},
        {M_VS_IPV, NULL},
        {M_PRIMS_PER_DRAW, "primitives per draw call"},
        {M_PRIMS_PER_TILE_BBOX, "primitives per tile (bounding box)"},
        {M_PRIMS_PER_TILE_COV, "primitives per tile (covered fragments)"},
    };
    for (size_t i = 0; i < sizeof geo / sizeof geo[0]; i++) {
        fmt_val(b, sizeof b, mt, geo[i].m);
        char vl[64];
        snprintf(vl, sizeof vl, "VS instructions per vertex (%s)", vs_label(mt));
        printf("  %-48s %12s\n", geo[i].label ? geo[i].label : vl, b);
    }
    printf("Fragments (thesis Table 3.3)\n");
    char lab[96];
    fmt_val(b, sizeof b, mt, M_FRAGS_PER_PRIM);
    printf("  %-48s %12s\n", "fragments per primitive", b);
    fmt_val(b, sizeof b, mt, M_ATTRS_PER_PRIM);
    printf("  %-48s %12s\n", "attributes per primitive", b);
    snprintf(lab, sizeof lab, "FS instructions per fragment (%s)", fs_label(mt));
    fmt_val(b, sizeof b, mt, M_FS_IPF);
    printf("  %-48s %12s\n", lab, b);
    snprintf(lab, sizeof lab, "ALU per TEX instruction (%s)", fs_label(mt));
    fmt_val(b, sizeof b, mt, M_ALU_PER_TEX);
    printf("  %-48s %12s\n", lab, b);
    if (texel_ok(S, tot)) {
        fmt_val(b, sizeof b, mt, M_TEXELS_PER_FRAG);
        printf("  %-48s %12s\n", "texels per fragment", b);
    } else {
        printf("  %-48s %12s\n", "texels per fragment", NA_TEXEL);
    }
    snprintf(lab, sizeof lab, "texels per texture instruction (%s)", fs_label(mt));
    if (texel_ok(S, tot)) {
        fmt_val(b, sizeof b, mt, M_TEXELS_PER_TEX);
        printf("  %-48s %12s\n", lab, b);
    } else {
        printf("  %-48s %12s\n", "texels per texture instruction", NA_TEXEL);
    }
    fmt_val(b, sizeof b, mt, M_OVERDRAW);
    printf("  %-48s %12s\n", "overdraw (shaded fragments / screen pixels)", b);
    printf("Texture blocks (thesis Fig. 5.12, DTM-NUCA Fig. 1)\n");
    if (!texel_ok(S, tot)) {
        printf("  %-48s %12s\n", "blocks shared with a tile at distance 1", NA_TEXEL);
        printf("  %-48s %12s\n", "blocks shared with a tile at distance 2", NA_TEXEL);
        snprintf(lab, sizeof lab, "replication over %u caches (%s mapping)", o->procs, mapping_names[o->mapping]);
        printf("  %-48s %12s\n", lab, NA_TEXEL);
    } else {
        fmt_val(b, sizeof b, mt, M_SHARED_D1);
        printf("  %-48s %12s\n", "blocks shared with a tile at distance 1", b);
        fmt_val(b, sizeof b, mt, M_SHARED_D2);
        printf("  %-48s %12s\n", "blocks shared with a tile at distance 2", b);
        for (unsigned k = 1; k <= o->procs; k++) {
            snprintf(lab, sizeof lab, "blocks in exactly %u of %u caches (%s)", k, o->procs, mapping_names[o->mapping]);
            if (tot->tb.blocks)
                snprintf(b, sizeof b, "%.2f", (double)tot->tb.replication[k] / (double)tot->tb.blocks);
            else
                snprintf(b, sizeof b, "n/a");
            printf("  %-48s %12s\n", lab, b);
        }
    }
    if (tot->frames_without_screen)
        printf("note: %" PRIu64 " frame(s) without FRAME_END and no earlier screen size: overdraw "
               "n/a\n",
               tot->frames_without_screen);
    if (tot->vs_unknown_draws)
        printf("note: %" PRIu64 " draw(s) whose vertex shader is not in the trace are left out of "
               "VS instructions per vertex\n",
               tot->vs_unknown_draws);
    if (tot->prims_unbinned)
        printf("note: %" PRIu64 " primitive(s) outside any RENDER_PASS were not binned\n", tot->prims_unbinned);
    if (tot->tex_fetches_fallback)
        printf("note: %" PRIu64 " texture fetch(es) whose quad has no PATH entry "
               "for the pc: lanes from the quad's shading mask\n",
               tot->tex_fetches_fallback);
    if (tot->texels_unmatched)
        printf("note: %" PRIu64 " texel(s) of fetches naming an unknown quad were ignored\n", tot->texels_unmatched);
    if (S->texels_derived_quads)
        printf("note: texel metrics n/a: the trace derives the texels of quads in %" PRIu64 " QUADS "
               "entries instead of recording them (records minor 6); replay with "
               "tbr-replay --record-texels\n",
               S->texels_derived_quads);

    printf("\nPer frame (vs_ipv from column vs_src; fs_ipf and alu/tex from column fs_src):\n");
    printf("%10s %6s %8s %6s %10s %9s %9s %10s %10s %8s %8s %6s %8s %8s\n", "frame", "draws", "vs_ipv", "vs_src",
           "prims/draw", "p/tile_bb", "p/tile_cv", "frags/prim", "attrs/prim", "fs_ipf", "alu/tex", "fs_src", "tx/frag",
           "overdraw");
    for (size_t i = 0; i < nf; i++) {
        metrics m;
        compute(S, &frames[i], &m);
        char v[M_COUNT][32];
        for (int k = 0; k < M_COUNT; k++) fmt_val(v[k], sizeof v[k], &m, k);
        printf("%10" PRIu64 " %6" PRIu64 " %8s %6s %10s %9s %9s %10s %10s %8s %8s %6s %8s %8s\n", numbers[i],
               frames[i].draws, v[M_VS_IPV], m.vs_exec ? "exec" : "static", v[M_PRIMS_PER_DRAW],
               v[M_PRIMS_PER_TILE_BBOX], v[M_PRIMS_PER_TILE_COV], v[M_FRAGS_PER_PRIM], v[M_ATTRS_PER_PRIM], v[M_FS_IPF],
               v[M_ALU_PER_TEX], m.fs_exec ? "exec" : "static", v[M_TEXELS_PER_FRAG], v[M_OVERDRAW]);
    }
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: %s [OPTIONS] TRACE|REPLAY_DIR\n"
            "Workload characterization of a tbrsim GPU activity trace, per trace and\n"
            "per frame: thesis Table 3.2 (draw calls per frame, VS instructions per\n"
            "vertex, primitives per draw call, primitives per tile), Table 3.3\n"
            "(fragments and attributes per primitive, FS instructions per fragment,\n"
            "ALU per TEX instruction, texels per fragment, overdraw) and texture-block\n"
            "sharing between tiles / replication across private texture caches.\n"
            "Definitions: docs/tools-characterize.md.\n"
            "\n"
            "Options:\n"
            "  -t, --tile-size=WxH   tile size for primitives per tile (default 32x32)\n"
            "  -f, --frame=N|A-B     only frames with these source frame numbers\n"
            "  -p, --processors=N    private texture caches for replication (default 4)\n"
            "  -m, --mapping=NAME    quad-to-processor mapping: rr (default), strips,\n"
            "                        quadrant (needs 4 processors)\n"
            "  -c, --csv             CSV: one row per frame, then the row 'all'\n"
            "      --json            JSON\n"
            "  -q, --quiet           accepted as by every tbrsim tool (this one prints no\n"
            "                        progress; errors and warnings still go to stderr)\n"
            "  -h, --help            show this help\n"
            "  -V, --version         show the version\n"
            "\n"
            "Instruction counts are 'executed' when every shaded quad (FS) / every\n"
            "vertex group of the VERTICES records (VS) refers to a recorded\n"
            "instruction stream (PATH records), otherwise 'static' (the shader's\n"
            "instruction count, weighted per fragment/vertex); the label says which.\n"
            "Texel metrics need texel records (TEXELS, records_schema_minor >= 1);\n"
            "without them, or where the trace derives texels (tbr-replay without\n"
            "--record-texels, records_schema_minor >= 6), they are n/a. Texels count only lanes active at the texture\n"
            "instruction (PATH mask; helper lanes excluded).\n"
            "Exit status: 0 ok, 2 bad usage or unreadable/corrupt/truncated trace.\n",
            prog);
}

static void bad_usage(const char *fmt, const char *arg) { tbr_tool_bad_usage(prog, fmt, arg); }

/* The command line into o and the tile size; -1: go on, else the exit status (--help,
 * --version). Usage errors exit here (bad_usage). */
static int parse_args(int argc, char **argv, struct opts *o, unsigned *tw, unsigned *th)
{
    static const struct option longopts[] = {
        {"tile-size", required_argument, NULL, 't'},
        {"frame", required_argument, NULL, 'f'},
        {"processors", required_argument, NULL, 'p'},
        {"mapping", required_argument, NULL, 'm'},
        {"csv", no_argument, NULL, 'c'},
        {"json", no_argument, NULL, 'J'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":t:f:p:m:cqhV", longopts, NULL)) != -1) {
        switch (ch) {
            case 't': {
                unsigned w, h;
                char extra;
                if (sscanf(optarg, "%ux%u%c", &w, &h, &extra) != 2 || w < 1 || h < 1 || w > 4096 || h > 4096)
                    bad_usage("bad --tile-size '%s' (expected WxH, 1..4096, e.g. 32x32)", optarg);
                *tw = w;
                *th = h;
                break;
            }
            case 'f':
                tbr_tool_parse_frames(prog, optarg, &o->frame_lo, &o->frame_hi);
                o->have_frames = 1;
                break;
            case 'p': {
                uint64_t v;
                if (tbr_tool_parse_u64(optarg, &v) || v < 1 || v > TEXBLOCKS_MAX_PROCS)
                    bad_usage("bad --processors '%s' (expected 1..64)", optarg);
                o->procs = (unsigned)v;
                break;
            }
            case 'm': {
                int found = -1;
                for (int i = 0; i < 3; i++)
                    if (strcmp(optarg, mapping_names[i]) == 0) found = i;
                if (found < 0) bad_usage("unknown --mapping '%s' (rr, strips, quadrant)", optarg);
                o->mapping = (enum texblocks_mapping)found;
                break;
            }
            case 'c': o->out = OUT_CSV; break;
            case 'J': o->out = OUT_JSON; break;
            case 'q': break; /* nothing to silence (one convention across the tools) */
            case 'h': usage(stdout); return EXIT_OK;
            case 'V': printf("%s %s\n", prog, TBR_VERSION); return EXIT_OK;
            default: tbr_tool_bad_option(prog, argv, ch);
        }
    }
    if (o->mapping == TEXBLOCKS_MAP_QUADRANT && o->procs != 4)
        bad_usage("%s", "--mapping quadrant needs --processors 4");
    return -1;
}

int main(int argc, char **argv)
{
    struct opts o = {OUT_TEXT, 4, TEXBLOCKS_MAP_RR, 0, 0, 0};
    state st; /* what is kept while the trace is read, passed to every function */
    memset(&st, 0, sizeof st);
    state *S = &st;
    S->tw = S->th = 32;
    int rc_args = parse_args(argc, argv, &o, &S->tw, &S->th);
    if (rc_args >= 0) return rc_args;
    const char *path = tbr_tool_trace_operand(prog, argc, argv);

    tbr_trace_reader *r = tbr_tool_open_trace(prog, path);
    if (!r) return EXIT_BAD;
    if (!tbr_tool_records_schema_ok(r, prog, path, 0)) {
        tbr_trace_reader_close(r);
        return EXIT_BAD;
    }

    size_t slen;
    const char *minor = tbr_trace_reader_metadata_get(r, "records_schema_minor", &slen);
    if (minor && slen > 0 && !(slen == 1 && minor[0] == '0'))
        S->texel_capable = 1; /* minor >= 1: TEXELS exist when textures are sampled */
    S->procs = o.procs;
    S->mapping = o.mapping;
    S->tb = texblocks_new(o.procs);
    tbr_rec_decoder *dec = tbr_rec_decoder_new(CHARACTERIZE_TYPES);
    if (!S->tb || !dec) oom();
    size_t nframes = tbr_trace_reader_frame_count(r);
    acc *frames = calloc(nframes ? nframes : 1, sizeof *frames);
    uint64_t *numbers = calloc(nframes ? nframes : 1, sizeof *numbers);
    if (!frames || !numbers) oom();
    size_t nf = 0;
    acc tot;
    memset(&tot, 0, sizeof tot);
    int status = EXIT_OK;
    tbr_tool_frames it;
    tbr_tool_frames_init(&it, r, o.have_frames, o.frame_lo, o.frame_hi);
    size_t i;
    tbr_trace_frame_info fi;
    while (tbr_tool_frames_next(&it, &i, &fi)) {
        if (tbr_trace_reader_seek_frame(r, i) < 0) {
            status = EXIT_BAD;
            break;
        }
        reset_frame_state(S);
        acc *a = &frames[nf];
        a->frames = 1;
        int had_end = 0, rc;
        uint16_t type;
        const uint8_t *p;
        size_t len;
        while ((rc = tbr_trace_reader_next_record(r, &type, &p, &len)) > 0) {
            const tbr_rec_decoded *d;
            int pr = tbr_rec_decode(dec, type, p, len, &d);
            if (pr < 0) {
                tbr_tool_fail_malformed(r, type, len);
                rc = -1;
                break;
            }
            pr = pr == 0 ? process_record(S, a, d) : 0;
            if (pr == 1) had_end = 1;
        }
        if (rc < 0) {
            status = EXIT_BAD;
            break;
        }
        finish_prim(S, a);
        if (texblocks_finish_frame(S->tb, &a->tb)) oom();
        if (!had_end) {
            if (S->have_last_screen)
                a->screen_pixels += S->last_screen_pixels;
            else
                a->frames_without_screen++;
        }
        numbers[nf++] = fi.number;
        acc_add(&tot, a);
    }
    if (status != EXIT_OK) {
        fprintf(stderr, "%s: %s\n", prog, tbr_trace_reader_error(r));
    } else {
        if (o.have_frames && nf == 0) tbr_tool_warn_no_frames(prog, o.frame_lo, o.frame_hi);
        metrics mt;
        compute(S, &tot, &mt);
        if (o.out == OUT_TEXT) {
            print_text(S, path, &tot, &mt, frames, numbers, nf, &o);
        } else if (o.out == OUT_CSV) {
            printf("frame");
            for (int k = 0; k < M_COUNT; k++) printf(",%s", mnames[k]);
            printf(",vs_insns_source,fs_insns_source,draws,prims,prims_culled,shaded_fragments,"
                   "screen_pixels,tiles\n");
            for (size_t i = 0; i < nf; i++) {
                metrics m;
                char num[32];
                compute(S, &frames[i], &m);
                snprintf(num, sizeof num, "%" PRIu64, numbers[i]);
                print_csv_row(num, &frames[i], &m);
            }
            print_csv_row("all", &tot, &mt);
        } else {
            printf("{\n  \"file\": \"");
            for (const char *c = path; *c; c++) {
                if (*c == '"' || *c == '\\')
                    printf("\\%c", *c);
                else if ((unsigned char)*c < 0x20)
                    printf("\\u%04x", (unsigned)(unsigned char)*c);
                else
                    putchar(*c);
            }
            printf("\",\n  \"tile_size\": [%u, %u],\n  \"processors\": %u,\n"
                   "  \"mapping\": \"%s\",\n  \"trace\": {\n",
                   S->tw, S->th, o.procs, mapping_names[o.mapping]);
            print_json_row(S, "    ", &tot, &mt, &o);
            printf("  },\n  \"frames\": [");
            for (size_t i = 0; i < nf; i++) {
                metrics m;
                compute(S, &frames[i], &m);
                printf("%s\n    {\n      \"frame\": %" PRIu64 ",\n", i ? "," : "", numbers[i]);
                print_json_row(S, "      ", &frames[i], &m, &o);
                printf("    }");
            }
            printf("\n  ]\n}\n");
        }
    }
    free(frames);
    free(numbers);
    for (size_t i = 0; i < S->nshaders; i++) free(S->shaders[i].pc_class);
    free(S->shaders);
    hmap_free(&S->shader_map);
    hmap_free(&S->draw_map);
    hmap_free(&S->path_map);
    hmap_free(&S->vpath_map);
    hmap_free(&S->res_map);
    for (size_t i = 0; i < S->npaths; i++) free(S->paths[i].ent);
    free(S->draws);
    free(S->paths);
    free(S->res);
    free(S->qxy);
    free(S->qmask);
    free(S->qpath);
    tbr_rec_decoder_free(dec);
    texblocks_free(S->tb);
    free(S->tile_mark);
    free(S->touched);
    tbr_trace_reader_close(r);
    if (status == EXIT_OK && tbr_tool_flush_stdout(prog) < 0) return EXIT_BAD;
    return status;
}
