/* Frame loader of tbr-sim (see sim_trace.h). */
#include "frontend/sim_trace.h"

#include "core/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tbr/record_table.h"

#include "depth_plane.h"

#define GROW(arr, n, cap)                                                                                              \
    do {                                                                                                               \
        if ((n) >= (cap)) {                                                                                            \
            size_t nc_ = (cap) ? (cap)*2 : 64;                                                                         \
            (arr) = tbr_xrealloc((arr), nc_ * sizeof *(arr));                                                          \
            (cap) = nc_;                                                                                               \
        }                                                                                                              \
    } while (0)

/* Shader instruction counts and per-pc opcode classes survive across frames (SHADER is
 * re-sent per frame anyway). */
typedef struct {
    uint32_t id, ninstr;
    uint8_t *cls;
    uint32_t npc;
    uint32_t code_slot;
    char *text;
} shader_info;

typedef struct {
    uint32_t id;
    uint64_t base;
} res_base;

/* Texel address (docs/timing-model.md "Texture unit"). `memo` keeps, per level, the
 * start of the last layer seen and the row length (a fetch reads one layer of one level,
 * or two levels: trilinear filtering alternates them). */
#define TEXEL_MEMO_LEVELS 16
typedef struct {
    uint32_t layer;
    uint64_t start, w;
} level_memo;
typedef struct {
    uint32_t valid;
    level_memo lv[TEXEL_MEMO_LEVELS];
} texel_memo; /* valid: bit per level */

/* The last resources fetches were mapped for, with their bases and level memos:
 * consecutive fetches (a quad's, a draw's) read the few textures of a draw. Valid while
 * the frame and its resource records are unchanged (res_gen); a memo depends only on
 * its record. Replaced round robin. */
#define TEX_MEMO_SLOTS 8
struct tex_memo_slot {
    bool valid;
    const sim_frame *f;
    uint64_t gen;
    uint32_t id;
    const tbr_rec_resource *rr;
    uint64_t base;
    texel_memo memo;
    bool compressed; /* res_block_dims of rr, found when the slot was filled */
    uint32_t block_w, block_h;
};

/* What a derived fetch's lines are computed from: the resource's record and level memo
 * (the base is not needed before the quad's fetches are added). Like the tex slots, valid
 * while the frame and its resource records are unchanged; a resource the frame does not
 * describe gets the 1x1 stand-in texture_base gives it. */
#define REL_SLOTS 8
struct rel_slot {
    bool valid;
    const sim_frame *f;
    uint64_t gen;
    uint32_t id;
    const tbr_rec_resource *rr;
    tbr_rec_resource dummy;
    texel_memo memo;
};

/* The front end's state across frames (sim_trace.h). */
struct sim_loader {
    /* Bumped whenever a frame's resource records may change (frame init, load start and
     * free, RESOURCE record, texture layout): invalidates the memo slots. */
    uint64_t res_gen;
    shader_info *shaders;
    size_t nshaders, cap_shaders;
    uint32_t code_slots;
    /* texture / vertex-buffer address map */
    int tiled;
    uint32_t tline, vline;
    res_base *tex, *vbuf;
    size_t ntex, cap_tex, nvbuf, cap_vbuf;
    uint64_t tex_next, vbuf_next;
    struct tex_memo_slot tex_slots[TEX_MEMO_SLOTS];
    unsigned tex_slot_next;
    struct rel_slot rel_slots[REL_SLOTS];
    unsigned rel_slot_next;
    tbr_rec_decoder *dec;
};

sim_loader *sim_loader_new(void)
{
    sim_loader *ld = calloc(1, sizeof *ld);
    if (!ld) return NULL;
    ld->tline = ld->vline = 64;
    ld->tex_next = ADDR_TEXTURE_BASE;
    ld->vbuf_next = ADDR_VBUF_BASE;
    ld->dec = tbr_rec_decoder_new(SIM_LOADER_TYPES);
    if (!ld->dec) {
        free(ld);
        return NULL;
    }
    return ld;
}

void sim_loader_free(sim_loader *ld)
{
    if (!ld) return;
    for (size_t i = 0; i < ld->nshaders; i++) {
        free(ld->shaders[i].cls);
        free(ld->shaders[i].text);
    }
    free(ld->shaders);
    free(ld->tex);
    free(ld->vbuf);
    tbr_rec_decoder_free(ld->dec);
    free(ld);
}

void sim_frame_init(sim_frame *f, sim_loader *ld)
{
    memset(f, 0, sizeof *f);
    f->loader = ld;
    ld->res_gen++;
}

void sim_frame_free(sim_frame *f)
{
    if (f->loader) f->loader->res_gen++;
    free(f->passes);
    free(f->draws);
    free(f->prims);
    free(f->quads);
    free(f->tiles);
    free(f->clears);
    free(f->items);
    free(f->colors);
    free(f->exacts);
    free(f->checks);
    free(f->res);
    free(f->cvals);
    free(f->paths);
    free(f->pcls);
    free(f->ppc);
    free(f->path_of_id);
    free(f->fetches);
    free(f->lines);
    free(f->vgroups);
    free(f->vfetches);
    free(f->inits);
    free(f->init_data);
    free(f->prim_v);
    free(f->fs_consts);
    memset(f, 0, sizeof *f);
}

void sim_frame_carry_over(sim_frame *dst, const sim_frame *src)
{
    if (dst == src) return;
    if (src->ncvals > dst->cap_cvals) {
        dst->cvals = tbr_xrealloc(dst->cvals, src->ncvals * sizeof *dst->cvals);
        dst->cap_cvals = src->ncvals;
    }
    if (src->ncvals) memcpy(dst->cvals, src->cvals, src->ncvals * sizeof *dst->cvals);
    dst->ncvals = src->ncvals;
}

const sim_resource *sim_frame_resource(const sim_frame *f, uint32_t id)
{
    for (size_t i = 0; i < f->nres; i++)
        if (f->res[i].id == id) return &f->res[i];
    return NULL;
}

static struct sim_clear_val *clear_val(sim_frame *f, uint32_t res, uint32_t level, uint32_t layer)
{
    for (size_t i = 0; i < f->ncvals; i++)
        if (f->cvals[i].res == res && f->cvals[i].level == level && f->cvals[i].layer == layer) return &f->cvals[i];
    GROW(f->cvals, f->ncvals, f->cap_cvals);
    struct sim_clear_val *c = &f->cvals[f->ncvals++];
    memset(c, 0, sizeof *c);
    c->res = res;
    c->level = level;
    c->layer = layer;
    return c;
}

static uint32_t shader_instr(const sim_loader *ld, uint32_t id)
{
    for (size_t i = 0; i < ld->nshaders; i++)
        if (ld->shaders[i].id == id) return ld->shaders[i].ninstr;
    return 0;
}

static shader_info *shader_find(const sim_loader *ld, uint32_t id)
{
    for (size_t i = 0; i < ld->nshaders; i++)
        if (ld->shaders[i].id == id) return &ld->shaders[i];
    return NULL;
}

const char *sim_loader_shader_text(const sim_loader *ld, uint32_t shader_id)
{
    const shader_info *si = shader_find(ld, shader_id);
    return si ? si->text : NULL;
}

uint64_t sim_loader_shader_code_addr(sim_loader *ld, uint32_t shader_id)
{
    shader_info *s = shader_find(ld, shader_id);
    if (!s) return ADDR_CODE_BASE;
    if (!s->code_slot) s->code_slot = ++ld->code_slots;
    return ADDR_CODE_BASE + (uint64_t)(s->code_slot - 1) * 0x10000u;
}

/* TGSI opcode classes. TEX: the sampling ops (one texture-unit access); SFU:
 * transcendental / divide ops; CTRL: flow control; everything else ALU (including
 * TXQ / LODQ-style queries, which read no texels). */
int sim_classify_opcode(const char *op, size_t n)
{
    static const char *const tex_ops[] = {"TEX",      "TEX_LZ",      "TXB",      "TXB2",        "TXD",      "TXF",
                                          "TXF_LZ",   "TXL",         "TXL2",     "TXP",         "TEX2",     "TG4",
                                          "SAMPLE",   "SAMPLE_B",    "SAMPLE_C", "SAMPLE_C_LZ", "SAMPLE_D", "SAMPLE_L",
                                          "SAMPLE_I", "SAMPLE_I_MS", "GATHER4",  NULL};
    static const char *const sfu_ops[] = {"RCP",  "RSQ",  "SQRT",  "EX2",  "LG2",  "POW",  "EXP", "LOG",
                                          "SIN",  "COS",  "SCS",   "DIV",  "IDIV", "UDIV", "MOD", "UMOD",
                                          "DRCP", "DRSQ", "DSQRT", "DDIV", "DRCP", NULL};
    static const char *const ctrl_ops[] = {
        "IF",  "UIF", "ELSE",   "ENDIF",  "BGNLOOP", "ENDLOOP", "BRK",     "BREAKC",    "CONT", "CAL",     "RET",
        "END", "NOP", "BGNSUB", "ENDSUB", "SWITCH",  "CASE",    "DEFAULT", "ENDSWITCH", "KILL", "KILL_IF", NULL};
    char buf[32];
    if (n >= sizeof buf) return SIM_CL_ALU;
    memcpy(buf, op, n);
    buf[n] = '\0';
    size_t bl = strlen(buf);
    if (bl > 4 && strcmp(buf + bl - 4, "_SAT") == 0) buf[bl - 4] = '\0';
    for (int i = 0; tex_ops[i]; i++)
        if (!strcmp(buf, tex_ops[i])) return SIM_CL_TEX;
    for (int i = 0; sfu_ops[i]; i++)
        if (!strcmp(buf, sfu_ops[i])) return SIM_CL_SFU;
    for (int i = 0; ctrl_ops[i]; i++)
        if (!strcmp(buf, ctrl_ops[i])) return SIM_CL_CTRL;
    return SIM_CL_ALU;
}

/* "  12: TEX TEMP[0], ..." lines of the tgsi_dump text -> class of pc 12. */
static void shader_parse(shader_info *si, const char *text, size_t len)
{
    free(si->cls);
    si->cls = NULL;
    si->npc = 0;
    size_t i = 0;
    while (i < len) {
        size_t e = i;
        while (e < len && text[e] != '\n') e++;
        size_t k = i;
        while (k < e && text[k] == ' ') k++;
        size_t d = k;
        uint32_t pc = 0;
        while (d < e && text[d] >= '0' && text[d] <= '9' && pc < 1000000) pc = pc * 10 + (uint32_t)(text[d++] - '0');
        if (d > k && d < e && text[d] == ':' && pc < 65536) {
            d++;
            while (d < e && text[d] == ' ') d++;
            size_t o = d;
            while (o < e &&
                   ((text[o] >= 'A' && text[o] <= 'Z') || (text[o] >= '0' && text[o] <= '9') || text[o] == '_'))
                o++;
            if (o > d) {
                if (pc >= si->npc) {
                    uint8_t *c = tbr_xrealloc(si->cls, pc + 1);
                    memset(c + si->npc, SIM_CL_ALU, pc + 1 - si->npc);
                    si->cls = c;
                    si->npc = pc + 1;
                }
                si->cls[pc] = (uint8_t)sim_classify_opcode(text + d, o - d);
            }
        }
        i = e + 1;
    }
}

/* ---- texture / vertex-buffer address map -------------------------------------------- */

void sim_loader_set_texture_layout(sim_loader *ld, int tiled, uint32_t line_bytes, uint32_t vline_bytes)
{
    ld->res_gen++;
    ld->tiled = tiled;
    ld->tline = line_bytes ? line_bytes : 64;
    ld->vline = vline_bytes ? vline_bytes : 64;
}

static uint32_t lvl_dim(uint32_t d, uint32_t l)
{
    d = l < 32 ? d >> l : 0;
    return d ? d : 1;
}
static uint32_t res_layers(const tbr_rec_resource *r, uint32_t l)
{
    if (r->depth > 1) return lvl_dim(r->depth, l); /* 3D */
    return r->array_size ? r->array_size : 1;
}
static uint32_t res_bpp(const tbr_rec_resource *r) { return r->block_bytes ? r->block_bytes : 4; }

/* Block-compressed formats (docs/timing-model.md "Compressed textures"): bw x bh texels
 * share one block of RESOURCE.block_bytes bytes (Gallium's block size: 8 or 16). Names as
 * Mesa 22.3.6's p_format.h spells them; what softpipe samples natively is ETC1, S3TC
 * (DXT), RGTC/LATC and BPTC; ETC2/EAC and ASTC reach it transcoded by st/mesa, as
 * uncompressed RESOURCEs. false (1x1) for every other format. */
static bool res_block_dims(const tbr_rec_resource *r, uint32_t *bw, uint32_t *bh)
{
    static const struct {
        const char *prefix;
        uint32_t w, h;
    } k_blocks[] = {{"DXT", 4, 4},  {"RGTC", 4, 4}, {"LATC", 4, 4}, {"ETC", 4, 4},
                    {"BPTC", 4, 4}, {"ATC_", 4, 4}, {"FXT1", 8, 4}};
    *bw = *bh = 1;
    if (r->block_bytes != 8 && r->block_bytes != 16) return false; /* (every compressed block is) */
    const char *n = r->format_name;
    if (strncmp(n, "PIPE_FORMAT_", 12) != 0) return false;
    n += 12;
    unsigned w, h;
    if (strncmp(n, "ASTC_", 5) == 0 && sscanf(n + 5, "%ux%u", &w, &h) == 2 && w && h && w <= 12 && h <= 12) {
        *bw = w;
        *bh = h;
        return true;
    }
    for (size_t i = 0; i < sizeof k_blocks / sizeof k_blocks[0]; i++)
        if (strncmp(n, k_blocks[i].prefix, strlen(k_blocks[i].prefix)) == 0) {
            *bw = k_blocks[i].w;
            *bh = k_blocks[i].h;
            return true;
        }
    return false;
}

/* bytes of one layer of level l: linear rows, or whole 4x4-texel blocks when tiled; a
 * compressed format's rows of blocks (its own layout whatever texture.layout says) */
static uint64_t layer_bytes(int tiled, const tbr_rec_resource *r, uint32_t l)
{
    uint64_t w = lvl_dim(r->width, l), h = lvl_dim(r->height, l), b = res_bpp(r);
    uint32_t bw, bh;
    if (b >= 8 && res_block_dims(r, &bw, &bh)) return ((w + bw - 1) / bw) * ((h + bh - 1) / bh) * b;
    if (tiled) return ((w + 3) / 4) * ((h + 3) / 4) * 16 * b;
    return w * h * b;
}
static uint64_t level_offset(int tiled, const tbr_rec_resource *r, uint32_t level)
{
    uint64_t off = 0;
    for (uint32_t l = 0; l < level && l <= r->last_level; l++) off += layer_bytes(tiled, r, l) * res_layers(r, l);
    return off;
}
static uint64_t res_size(int tiled, const tbr_rec_resource *r) { return level_offset(tiled, r, r->last_level + 1); }

static bool find_base(const res_base *arr, size_t n, uint32_t id, uint64_t *base)
{
    for (size_t i = 0; i < n; i++)
        if (arr[i].id == id) {
            *base = arr[i].base;
            return true;
        }
    return false;
}

static uint64_t alloc_base(res_base **arr, size_t *n, size_t *cap, uint64_t *next, uint32_t id, uint64_t size)
{
    uint64_t b;
    if (find_base(*arr, *n, id, &b)) return b;
    GROW(*arr, *n, *cap);
    (*arr)[*n].id = id;
    (*arr)[*n].base = *next;
    (*n)++;
    *next += (size + 4095) & ~(uint64_t)4095;
    if (size == 0) *next += 4096;
    return (*arr)[*n - 1].base;
}

/* The memo of (level, layer), filled if needed (`other`: the memo of a level beyond
 * the array). */
static inline const level_memo *level_memo_of(int tiled, const tbr_rec_resource *r, texel_memo *memo, uint32_t level,
                                              uint32_t layer, level_memo *other)
{
    level_memo *m = level < TEXEL_MEMO_LEVELS ? &memo->lv[level] : other;
    if (m == other || !(memo->valid >> level & 1) || m->layer != layer) {
        if (m != other) memo->valid |= 1u << level;
        m->layer = layer;
        m->start = level_offset(tiled, r, level) + (uint64_t)layer * layer_bytes(tiled, r, level);
        m->w = lvl_dim(r->width, level);
    }
    return m;
}

static uint64_t texel_addr(int tiled, const tbr_rec_resource *r, uint64_t base, const tbr_rec_texel *t,
                           texel_memo *memo)
{
    uint64_t x = (uint32_t)t->x, y = (uint32_t)t->y;
    level_memo other;
    const level_memo *m = level_memo_of(tiled, r, memo, t->level, t->layer, &other);
    uint64_t a = base + m->start, w = m->w, b = res_bpp(r);
    if (tiled) return a + ((y / 4) * ((w + 3) / 4) + x / 4) * 16 * b + ((y % 4) * 4 + x % 4) * b;
    return a + (y * w + x) * b;
}

/* texel_addr of a compressed texture: the address of the texel's block (rows of blocks) */
static uint64_t block_addr(const tbr_rec_resource *r, uint64_t base, const tbr_rec_texel *t, texel_memo *memo,
                           uint32_t bw, uint32_t bh)
{
    level_memo other;
    const level_memo *m = level_memo_of(0, r, memo, t->level, t->layer, &other);
    uint64_t blocks_per_row = (m->w + bw - 1) / bw;
    return base + m->start + ((uint64_t)(uint32_t)t->y / bh * blocks_per_row + (uint32_t)t->x / bw) * res_bpp(r);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Ascending sort of a fetch's line addresses (usually a few: insertion sort). */
static void sort_u64(uint64_t *v, size_t n)
{
    if (n > 32) {
        qsort(v, n, sizeof *v, cmp_u64);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        uint64_t x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static void add_line_unique(sim_frame *f, uint32_t first, uint64_t line)
{
    for (size_t i = first; i < f->nlines; i++)
        if (f->lines[i] == line) return;
    GROW(f->lines, f->nlines, f->cap_lines);
    f->lines[f->nlines++] = line;
}

/* The resource's RECORD (a 1x1 stand-in if the frame does not describe it) and its
 * base address, assigned on first use. */
/* The frame's record of a resource; one the frame does not describe gets a 1x1, 4-byte
 * stand-in, filled into *dummy. */
static const tbr_rec_resource *resource_record(const sim_frame *f, uint32_t resource_id, tbr_rec_resource *dummy)
{
    const sim_resource *rs = sim_frame_resource(f, resource_id);
    if (rs) return &rs->rec;
    memset(dummy, 0, sizeof *dummy);
    dummy->width = dummy->height = 1;
    dummy->block_bytes = 4;
    return dummy;
}

static uint64_t texture_base(sim_loader *ld, const sim_frame *f, uint32_t resource_id, const tbr_rec_resource **rr,
                             tbr_rec_resource *dummy)
{
    *rr = resource_record(f, resource_id, dummy);
    uint64_t b;
    if (find_base(ld->tex, ld->ntex, resource_id, &b)) return b; /* (the size is needed only for a new base) */
    return alloc_base(&ld->tex, &ld->ntex, &ld->cap_tex, &ld->tex_next, resource_id, res_size(ld->tiled, *rr));
}

/* The slot of resource `id` of frame f (its record, base and level memo), filled on a
 * miss; NULL if the frame does not describe the resource (rr is then `dummy`, the memo
 * the caller's). */
static struct tex_memo_slot *texture_slot(sim_loader *ld, const sim_frame *f, uint32_t id, const tbr_rec_resource **rr,
                                          uint64_t *base, tbr_rec_resource *dummy)
{
    for (unsigned i = 0; i < TEX_MEMO_SLOTS; i++) {
        struct tex_memo_slot *sl = &ld->tex_slots[i];
        if (sl->valid && sl->id == id && sl->f == f && sl->gen == ld->res_gen) {
            *rr = sl->rr;
            *base = sl->base;
            return sl;
        }
    }
    *base = texture_base(ld, f, id, rr, dummy);
    if (*rr == dummy) return NULL; /* (a stand-in lives on the caller's stack) */
    struct tex_memo_slot *sl = &ld->tex_slots[ld->tex_slot_next];
    ld->tex_slot_next = (ld->tex_slot_next + 1) % TEX_MEMO_SLOTS;
    sl->valid = true;
    sl->f = f;
    sl->gen = ld->res_gen;
    sl->id = id;
    sl->rr = *rr;
    sl->base = *base;
    sl->memo.valid = 0;
    sl->compressed = res_block_dims(*rr, &sl->block_w, &sl->block_h);
    return sl;
}

/* The lines of a fetch whose texels are whole bilinear footprints (texels 4k..4k+3:
 * (x0,y0) (x1,y0) (x0,y1) (x1,y1) of one level and layer), linear layout: per footprint
 * two row addresses and the lines of x0 and x1 in each, the same lines texel_addr gives
 * texel by texel. Returns how many were stored in fl (each line once). */
static size_t footprint_lines(int tiled, const tbr_rec_resource *rr, uint64_t base, texel_memo *memo,
                              const tbr_rec_texel *tx, uint32_t ntexels, uint64_t line_mask, uint64_t *fl)
{
    const uint64_t b = res_bpp(rr);
    size_t nl = 0;
    uint64_t last = UINT64_MAX; /* the line looked at last */
    for (uint32_t k = 0; k + 3 < ntexels; k += 4) {
        const tbr_rec_texel *t00 = &tx[k], *t11 = &tx[k + 3];
        level_memo other;
        const level_memo *m = level_memo_of(tiled, rr, memo, t00->level, t00->layer, &other);
        const uint64_t level_base = base + m->start, row = m->w * b;
        const uint64_t x0 = (uint32_t)t00->x * b, x1 = (uint32_t)t11->x * b;
        const uint64_t row0 = level_base + (uint32_t)t00->y * row, row1 = level_base + (uint32_t)t11->y * row;
        const uint64_t lines[4] = {(row0 + x0) & line_mask, (row0 + x1) & line_mask, (row1 + x0) & line_mask,
                                   (row1 + x1) & line_mask};
        /* the lanes' footprints share most lines (4-5 distinct in a fetch of 16-32 texels on
     * terrain): each is stored once */
        for (int j = 0; j < 4; j++) {
            if (lines[j] == last) continue;
            last = lines[j];
            size_t i = 0;
            while (i < nl && fl[i] != last) i++;
            if (i == nl) fl[nl++] = last;
        }
    }
    return nl;
}

/* A TEXELS / VS_TEXELS fetch -> its distinct texture lines (ascending), appended to lines.
 * footprints: its texels are whole bilinear footprints (footprint_lines). true if the
 * texture is block-compressed (its texels were mapped to their blocks). */
static bool map_fetch_lines(const sim_frame *f, uint64_t **lines, size_t *nlines, size_t *cap_lines, sim_fetch *sf,
                            const tbr_rec_texfetch *fe, const tbr_rec_texel *tx, bool footprints)
{
    tbr_rec_resource dummy;
    const tbr_rec_resource *rr = NULL;
    uint64_t base = 0;
    texel_memo memo_local, *memo;
    sim_loader *ld = f->loader;
    struct tex_memo_slot *sl = texture_slot(ld, f, fe->resource_id, &rr, &base, &dummy);
    if (sl) {
        memo = &sl->memo;
    } else {
        memo_local.valid = 0;
        memo = &memo_local;
    }
    sf->pc = fe->pc;
    sf->ntexels = fe->n_texels;
    sf->first_line = (uint32_t)*nlines;
    while (*nlines + fe->n_texels > *cap_lines) GROW(*lines, *cap_lines, *cap_lines);
    uint64_t *fl = *lines + sf->first_line;
    const uint32_t tline = ld->tline;
    const bool pow2 = !(tline & (tline - 1));
    size_t nl = 0, u = 0;
    uint32_t bw = sl ? sl->block_w : 1, bh = sl ? sl->block_h : 1; /* (a stand-in is 4 B: never compressed) */
    const bool compressed = sl && sl->compressed;
    if (compressed) {
        for (uint32_t k = 0; k < fe->n_texels; k++) {
            uint64_t a = block_addr(rr, base, &tx[k], memo, bw, bh);
            uint64_t line = pow2 ? a & ~(uint64_t)(tline - 1) : a / tline * tline;
            if (nl && fl[nl - 1] == line) continue;
            fl[nl++] = line;
        }
    } else if (footprints && pow2 && !ld->tiled && fe->n_texels % 4 == 0) {
        nl = footprint_lines(ld->tiled, rr, base, memo, tx, fe->n_texels, ~(uint64_t)(tline - 1), fl);
    } else {
        for (uint32_t k = 0; k < fe->n_texels; k++) {
            uint64_t a = texel_addr(ld->tiled, rr, base, &tx[k], memo);
            uint64_t line = pow2 ? a & ~(uint64_t)(tline - 1) : a / tline * tline;
            if (nl && fl[nl - 1] == line) continue; /* neighbouring texels share lines: the set is the same */
            fl[nl++] = line;
        }
    }
    sort_u64(fl, nl);
    for (size_t k = 0; k < nl; k++)
        if (!u || fl[k] != fl[u - 1]) fl[u++] = fl[k];
    *nlines = sf->first_line + u;
    sf->nlines = (uint32_t)u;
    return compressed;
}

void sim_fetch_set_reset(sim_fetch_set *d, const sim_frame *f)
{
    if (f->nquads > d->cap_quads) {
        free(d->first);
        free(d->count);
        d->cap_quads = f->nquads;
        d->first = tbr_xcalloc(d->cap_quads, sizeof *d->first);
        d->count = tbr_xcalloc(d->cap_quads, sizeof *d->count);
    } else if (d->cap_quads) {
        memset(d->count, 0, d->cap_quads * sizeof *d->count);
    }
    d->nfetches = d->nlines = 0;
    d->texels = d->texel_fetches = 0;
}

void sim_fetch_set_free(sim_fetch_set *d)
{
    free(d->fetches);
    free(d->lines);
    free(d->first);
    free(d->count);
    memset(d, 0, sizeof *d);
}

/* The next derived fetch of quad (its quad's first one starts the quad's range). */
static sim_fetch *derived_fetch_slot(sim_fetch_set *d, uint32_t quad)
{
    if (!d->count[quad]) d->first[quad] = (uint32_t)d->nfetches;
    GROW(d->fetches, d->nfetches, d->cap_fetches);
    sim_fetch *sf = &d->fetches[d->nfetches++];
    sf->quad = quad;
    d->count[quad]++;
    d->texel_fetches++;
    return sf;
}

void sim_derive_fetch(const sim_frame *f, sim_fetch_set *d, uint32_t quad, const tbr_rec_texfetch *fe,
                      const tbr_rec_texel *tx, bool footprints)
{
    sim_fetch *sf = derived_fetch_slot(d, quad);
    map_fetch_lines(f, &d->lines, &d->nlines, &d->cap_lines, sf, fe, tx, footprints);
    d->texels += fe->n_texels;
}

/* ---- derived fetches mapped as the sampler reports them (sim_rel_*) ---- */

bool sim_loader_relative_lines(const sim_loader *ld)
{
    return !ld->tiled && !(ld->tline & (ld->tline - 1)) && ld->tline <= 4096 && ADDR_TEXTURE_BASE % 4096 == 0;
}

void sim_rel_reset(sim_rel_fetches *rf)
{
    rf->nfetch = rf->nlines = 0;
    rf->failed = rf->open = false;
}

void sim_rel_end(sim_rel_fetches *rf)
{
    if (!rf->open) return;
    rf->open = false;
    sim_rel_fetch *fe = &rf->fetch[rf->nfetch - 1];
    if (!fe->ntexels) { /* no texel: dropped */
        rf->nfetch--;
        rf->nlines = fe->first;
        return;
    }
    uint64_t *fl = rf->lines + fe->first;
    size_t nl = rf->nlines - fe->first, u = 0;
    sort_u64(fl, nl);
    for (size_t k = 0; k < nl; k++)
        if (!u || fl[k] != fl[u - 1]) fl[u++] = fl[k];
    fe->nlines = (uint32_t)u;
    rf->nlines = fe->first + u;
}

void sim_rel_begin_fetch(sim_rel_fetches *rf, const sim_frame *f, uint32_t resource_id, uint32_t pc)
{
    sim_rel_end(rf);
    sim_loader *ld = f->loader;
    struct rel_slot *sl = NULL;
    for (unsigned i = 0; i < REL_SLOTS; i++)
        if (ld->rel_slots[i].valid && ld->rel_slots[i].id == resource_id && ld->rel_slots[i].f == f &&
            ld->rel_slots[i].gen == ld->res_gen) {
            sl = &ld->rel_slots[i];
            break;
        }
    if (!sl) {
        sl = &ld->rel_slots[ld->rel_slot_next];
        ld->rel_slot_next = (ld->rel_slot_next + 1) % REL_SLOTS;
        sl->valid = true;
        sl->f = f;
        sl->gen = ld->res_gen;
        sl->id = resource_id;
        sl->rr = resource_record(f, resource_id, &sl->dummy);
        sl->memo.valid = 0;
    }
    GROW(rf->fetch, rf->nfetch, rf->cap_fetch);
    rf->fetch[rf->nfetch++] = (sim_rel_fetch){pc, resource_id, 0, (uint32_t)rf->nlines, 0};
    rf->open = true;
    rf->last = UINT64_MAX;
    rf->res = sl;
    rf->tiled = ld->tiled;
    rf->tline = ld->tline;
}

/* A line of the open fetch, relative to its texture's base: stored once (a fetch's
 * texels share a few lines: 4-5 on terrain). */
static inline void rel_add_line(sim_rel_fetches *rf, uint64_t line)
{
    if (line == rf->last) return;
    rf->last = line;
    const size_t first = rf->fetch[rf->nfetch - 1].first;
    for (size_t i = first; i < rf->nlines; i++)
        if (rf->lines[i] == line) return;
    GROW(rf->lines, rf->nlines, rf->cap_lines);
    rf->lines[rf->nlines++] = line;
}

/* texel_room's limit: false (and the quad failed) past TBR_REC_MAX_TEXELS_PER_FETCH */
static inline bool rel_count(sim_rel_fetches *rf, uint32_t n)
{
    if (!rf->open || rf->failed) return false;
    sim_rel_fetch *fe = &rf->fetch[rf->nfetch - 1];
    if (fe->ntexels > TBR_REC_MAX_TEXELS_PER_FETCH - n) {
        rf->failed = true;
        return false;
    }
    fe->ntexels += n;
    return true;
}

/* (footprint_lines and texel_addr, linear layout, without the base) */
void sim_rel_footprint(sim_rel_fetches *rf, uint32_t level, uint32_t layer, int32_t x0, int32_t x1, int32_t y0,
                       int32_t y1)
{
    if (!rel_count(rf, 4)) return;
    struct rel_slot *sl = rf->res;
    const tbr_rec_resource *rr = sl->rr;
    const uint64_t b = res_bpp(rr), line_mask = ~(uint64_t)(rf->tline - 1);
    level_memo other;
    const level_memo *m = level_memo_of(rf->tiled, rr, &sl->memo, level, layer, &other);
    const uint64_t row = m->w * b;
    const uint64_t xb0 = (uint32_t)x0 * b, xb1 = (uint32_t)x1 * b;
    const uint64_t row0 = m->start + (uint32_t)y0 * row, row1 = m->start + (uint32_t)y1 * row;
    rel_add_line(rf, (row0 + xb0) & line_mask);
    rel_add_line(rf, (row0 + xb1) & line_mask);
    rel_add_line(rf, (row1 + xb0) & line_mask);
    rel_add_line(rf, (row1 + xb1) & line_mask);
}

void sim_rel_texel(sim_rel_fetches *rf, uint32_t level, uint32_t layer, int32_t x, int32_t y)
{
    if (!rel_count(rf, 1)) return;
    struct rel_slot *sl = rf->res;
    level_memo other;
    const level_memo *m = level_memo_of(rf->tiled, sl->rr, &sl->memo, level, layer, &other);
    const uint64_t a = m->start + ((uint64_t)(uint32_t)y * m->w + (uint32_t)x) * res_bpp(sl->rr);
    rel_add_line(rf, a & ~(uint64_t)(rf->tline - 1));
}

void sim_derive_relative_fetches(const sim_frame *f, sim_fetch_set *d, uint32_t quad, const sim_rel_fetches *rf)
{
    for (size_t i = 0; i < rf->nfetch; i++) {
        const sim_rel_fetch *fe = &rf->fetch[i];
        tbr_rec_resource dummy;
        const tbr_rec_resource *rr;
        uint64_t base;
        texture_slot(f->loader, f, fe->resource_id, &rr, &base, &dummy); /* the base, in fetch order */
        sim_fetch *sf = derived_fetch_slot(d, quad);
        sf->pc = fe->pc;
        sf->ntexels = fe->ntexels;
        sf->first_line = (uint32_t)d->nlines;
        sf->nlines = fe->nlines;
        while (d->nlines + fe->nlines > d->cap_lines) GROW(d->lines, d->cap_lines, d->cap_lines);
        for (uint32_t k = 0; k < fe->nlines; k++) d->lines[d->nlines++] = base + rf->lines[fe->first + k];
        d->texels += fe->ntexels;
    }
}

void sim_rel_free(sim_rel_fetches *rf)
{
    free(rf->fetch);
    free(rf->lines);
    memset(rf, 0, sizeof *rf);
}

/* One sim_frame_load call: where errors go, and the vgroups of the last VERTICES record,
 * which a VS_TEXELS record refers to. */
typedef struct {
    tbr_trace_reader *r;
    char *err;
    size_t errlen;
    size_t vrec_first, vrec_count;
} load_ctx;

static int fail(load_ctx *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tbr_trace_reader_fail(c->r, "%s", msg);
    snprintf(c->err, c->errlen, "%s", tbr_trace_reader_error(c->r));
    return -1;
}

/* A record that did not decode: "bad X record", "bad quad 7 in QUADS", ... */
static int fail_decode(load_ctx *c, const tbr_rec_decoded *d)
{
    char msg[128];
    tbr_rec_decode_error_text(d, msg, sizeof msg);
    return fail(c, "%s", msg);
}

static int find_draw(const sim_frame *f, uint32_t seq)
{
    for (size_t i = f->ndraws; i-- > 0;)
        if (f->draws[i].rec.seq == seq) return (int)i;
    return -1;
}

static void push_item(sim_frame *f, uint32_t kind, uint32_t idx)
{
    GROW(f->items, f->nitems, f->cap_items);
    f->items[f->nitems++] = (sim_item){kind, idx};
    if (f->npasses) f->passes[f->npasses - 1].nitems++;
}

/* Events before the first pass of the frame (TILE, SURFACE_INIT): a pass-less item list. */
static void ensure_pass(sim_frame *f)
{
    if (f->npasses) return;
    GROW(f->passes, f->npasses, f->cap_passes);
    sim_pass *ps = &f->passes[f->npasses++];
    memset(ps, 0, sizeof *ps);
    ps->first_item = (uint32_t)f->nitems;
}

static void load_resource(sim_frame *f, const tbr_rec_resource *res)
{
    size_t i;
    for (i = 0; i < f->nres && f->res[i].id != res->id; i++) {}
    if (i == f->nres) {
        GROW(f->res, f->nres, f->cap_res);
        f->nres++;
    }
    f->res[i].id = res->id;
    f->res[i].rec = *res;
    f->loader->res_gen++;
}

static int load_shader(sim_frame *f, const tbr_rec_shader *s, load_ctx *c)
{
    sim_loader *ld = f->loader;
    size_t i;
    for (i = 0; i < ld->nshaders && ld->shaders[i].id != s->id; i++) {}
    if (i == ld->nshaders) {
        GROW(ld->shaders, ld->nshaders, ld->cap_shaders);
        memset(&ld->shaders[ld->nshaders], 0, sizeof ld->shaders[ld->nshaders]);
        ld->nshaders++;
    }
    shader_info *si = &ld->shaders[i];
    si->id = s->id;
    si->ninstr = s->num_instructions;
    if (s->text && s->text_len) {
        shader_parse(si, s->text, s->text_len);
        if (!si->text) { /* ids are never reused: the text never changes */
            si->text = malloc(s->text_len + 1);
            if (!si->text) return fail(c, "out of memory (shader text)");
            memcpy(si->text, s->text, s->text_len);
            si->text[s->text_len] = 0;
        }
    }
    return 0;
}

static void load_path(sim_frame *f, const tbr_rec_path *pr)
{
    if (pr->id >= (1u << 24)) return;
    if (pr->id >= f->cap_path_of_id) {
        size_t nc = f->cap_path_of_id ? f->cap_path_of_id : 256;
        while (nc <= pr->id) nc *= 2;
        uint32_t *np = tbr_xrealloc(f->path_of_id, nc * sizeof *np);
        memset(np + f->cap_path_of_id, 0, (nc - f->cap_path_of_id) * sizeof *np);
        f->path_of_id = np;
        f->cap_path_of_id = nc;
    }
    const shader_info *si = shader_find(f->loader, pr->shader_id);
    GROW(f->paths, f->npaths, f->cap_paths);
    sim_path *sp = &f->paths[f->npaths];
    sp->shader = pr->shader_id;
    sp->stage = pr->stage;
    sp->first = (uint32_t)f->npcls;
    sp->n = pr->n;
    sp->code = sim_loader_shader_code_addr(f->loader, pr->shader_id);
    for (uint32_t k = 0; k < pr->n; k++) {
        uint16_t pc = tbr_rec_path_pc(pr, k);
        GROW(f->pcls, f->npcls, f->cap_pcls);
        GROW(f->ppc, f->nppc, f->cap_ppc);
        f->pcls[f->npcls++] = (uint8_t)(si && pc < si->npc ? si->cls[pc] : SIM_CL_ALU);
        f->ppc[f->nppc++] = pc;
    }
    f->npaths++;
    f->path_of_id[pr->id] = (uint32_t)f->npaths;
}

static int load_texels(sim_frame *f, const tbr_rec_decoded *d, load_ctx *c)
{
    const tbr_rec_texels_header *h = &d->u.texels.h;
    int di = find_draw(f, h->draw_seq);
    if (di < 0) return 0; /* not a draw of this frame's passes: no quads to attach to (fetches unread) */
    const sim_draw *sd = &f->draws[di];
    const uint32_t n = d->bad == TBR_REC_BAD_ITEM ? d->bad_item : h->count;
    for (uint32_t i = 0; i < n; i++) {
        const tbr_rec_texfetch *fe = &d->u.texels.f[i];
        if (fe->quad >= sd->nquads) continue;
        GROW(f->fetches, f->nfetches, f->cap_fetches);
        sim_fetch *sf = &f->fetches[f->nfetches++];
        sf->quad = sd->first_quad + fe->quad;
        /* the fetch's distinct lines, in ascending address order */
        if (map_fetch_lines(f, &f->lines, &f->nlines, &f->cap_lines, sf, fe, fe->texels, false))
            f->compressed_texture_lines += sf->nlines;
        f->texels += fe->n_texels;
        f->texel_fetches++;
    }
    return d->bad ? fail_decode(c, d) : 0;
}

/* The distinct vertex-buffer lines of a VS group, appended to lines. */
static void vgroup_lines(sim_frame *f, sim_vgroup *g, const tbr_rec_vertices_header *h, const tbr_rec_vertex_group *vg)
{
    sim_loader *ld = f->loader;
    g->first_line = (uint32_t)f->nlines;
    for (uint32_t v = 0; v < vg->n && v < 4; v++)
        for (uint32_t s2 = 0; s2 < h->nr_streams && s2 < TBR_REC_MAX_STREAMS; s2++) {
            const tbr_rec_vertex_stream *st = &h->streams[s2];
            uint64_t idx = st->instance_divisor ? (uint64_t)h->start_instance + h->instance_id / st->instance_divisor
                                                : vg->index[v];
            uint64_t base;
            if (st->resource_id) {
                const sim_resource *rs = sim_frame_resource(f, st->resource_id);
                base = alloc_base(&ld->vbuf, &ld->nvbuf, &ld->cap_vbuf, &ld->vbuf_next, st->resource_id,
                                  rs ? (uint64_t)rs->rec.width * (rs->rec.block_bytes ? rs->rec.block_bytes : 1)
                                     : 1u << 20);
            } else { /* client array: the draw's window of the vertex region (as before) */
                base = 0x010000000ull + ((uint64_t)(f->ndraws - 1) << 24);
            }
            uint64_t a0 = base + st->offset + idx * st->stride, a1 = a0 + (st->size ? st->size : 1) - 1;
            for (uint64_t l = a0 / ld->vline; l <= a1 / ld->vline; l++)
                add_line_unique(f, g->first_line, l * ld->vline);
        }
    g->nlines = (uint32_t)f->nlines - g->first_line;
}

static int load_vertices(sim_frame *f, const tbr_rec_decoded *d, load_ctx *c)
{
    const tbr_rec_vertices_header *h = d->u.vertices.h;
    int di = find_draw(f, h->draw_seq);
    /* the groups of a draw must be contiguous: a record of another than the latest draw
     * is ignored (that draw keeps the groups it has, or the per-draw estimate) */
    c->vrec_first = f->nvgroups;
    c->vrec_count = 0;
    if (di < 0 || (size_t)di != f->ndraws - 1 ||
        (f->draws[di].nvgroups && f->vgroups[f->nvgroups - 1].draw != (uint32_t)di)) {
        f->vertex_records_ignored++;
        return 0; /* (groups unread) */
    }
    sim_draw *sd = &f->draws[di];
    if (!sd->nvgroups) sd->first_vgroup = (uint32_t)f->nvgroups;
    const uint32_t n = d->bad == TBR_REC_BAD_ITEM ? d->bad_item : h->count;
    for (uint32_t i = 0; i < n; i++) {
        const tbr_rec_vertex_group *vg = &d->u.vertices.g[i];
        GROW(f->vgroups, f->nvgroups, f->cap_vgroups);
        sim_vgroup *g = &f->vgroups[f->nvgroups++];
        g->path = vg->path < f->cap_path_of_id ? f->path_of_id[vg->path] : 0;
        g->n = vg->n;
        g->draw = (uint32_t)di;
        g->first_vfetch = g->nvfetch = 0;
        c->vrec_count++;
        vgroup_lines(f, g, h, vg);
        sd->nvgroups++;
    }
    if (d->bad == TBR_REC_BAD_ITEM) return fail_decode(c, d);
    sd->vertices += h->fetched;
    f->vertex_records++;
    return d->bad ? fail_decode(c, d) : 0;
}

/* vertex texturing (minor 3): fetches of the groups of the VERTICES record just before
 * (fetch.quad = group ordinal in it); a group's fetches are contiguous in vfetches */
static int load_vs_texels(sim_frame *f, const tbr_rec_decoded *d, load_ctx *c)
{
    const uint32_t n = d->bad == TBR_REC_BAD_ITEM ? d->bad_item : d->u.texels.h.count;
    for (uint32_t i = 0; i < n; i++) {
        const tbr_rec_texfetch *fe = &d->u.texels.f[i];
        if (fe->quad >= c->vrec_count) continue; /* its VERTICES record was ignored */
        sim_vgroup *g = &f->vgroups[c->vrec_first + fe->quad];
        if (g->nvfetch && g->first_vfetch + g->nvfetch != f->nvfetches) continue; /* out of order */
        if (!g->nvfetch) g->first_vfetch = (uint32_t)f->nvfetches;
        GROW(f->vfetches, f->nvfetches, f->cap_vfetches);
        sim_fetch *sf = &f->vfetches[f->nvfetches++];
        sf->quad = (uint32_t)(c->vrec_first + fe->quad);
        if (map_fetch_lines(f, &f->lines, &f->nlines, &f->cap_lines, sf, fe, fe->texels, false))
            f->compressed_texture_lines += sf->nlines;
        g->nvfetch++;
        f->vs_texels += fe->n_texels;
        f->vs_texel_fetches++;
    }
    return d->bad ? fail_decode(c, d) : 0;
}

/* ---- Undefined contents (docs/timing-model.md "Tile buffer loads"): a resource the
 * application invalidated is undefined until something writes it again (GLES 3.0
 * sec. 4.5 InvalidateFramebuffer; EXT_discard_framebuffer), so a later pass that binds it
 * without clearing it need not load it. Followed per frame, per resource (what
 * pipe->invalidate_resource invalidates); writes are clears, draws writing the
 * attachment, uploads (not softpipe's own tile-cache write-back) and hot-start bands. ---- */

static void undefined_remove(sim_frame *f, uint32_t res)
{
    for (uint32_t i = 0; i < f->nundefined; i++)
        if (f->undefined_res[i] == res) {
            f->undefined_res[i] = f->undefined_res[--f->nundefined];
            return;
        }
}

static bool undefined_has(const sim_frame *f, uint32_t res)
{
    for (uint32_t i = 0; i < f->nundefined; i++)
        if (f->undefined_res[i] == res) return true;
    return false;
}

static void undefined_add(sim_frame *f, uint32_t res)
{
    if (!undefined_has(f, res) && f->nundefined < SIM_MAX_UNDEFINED) f->undefined_res[f->nundefined++] = res;
}

/* A new pass: which of its attachments start undefined. */
static void pass_mark_undefined(sim_frame *f, sim_pass *ps)
{
    if (!f->nundefined) return;
    for (uint32_t i = 0; i < ps->rp.nr_cbufs && i < TBR_REC_MAX_CBUFS; i++)
        if (ps->rp.cbufs[i].valid && undefined_has(f, ps->rp.cbufs[i].resource_id)) ps->color_undefined |= 1u << i;
    ps->zs_undefined = ps->rp.zsbuf.valid && undefined_has(f, ps->rp.zsbuf.resource_id);
}

/* Pass attachments written by a clear (buffers: CLEAR's bits) or a draw are defined again. */
static void pass_defines(sim_frame *f, const sim_pass *ps, uint32_t color_bits, bool zs)
{
    if (!f->nundefined) return;
    for (uint32_t i = 0; i < ps->rp.nr_cbufs && i < TBR_REC_MAX_CBUFS; i++)
        if ((color_bits & (1u << i)) && ps->rp.cbufs[i].valid) undefined_remove(f, ps->rp.cbufs[i].resource_id);
    if (zs && ps->rp.zsbuf.valid) undefined_remove(f, ps->rp.zsbuf.resource_id);
}

static void load_clear(sim_frame *f, const tbr_rec_clear *rc)
{
    GROW(f->clears, f->nclears, f->cap_clears);
    tbr_rec_clear *cl = &f->clears[f->nclears];
    *cl = *rc;
    sim_pass *ps = &f->passes[f->npasses - 1];
    for (uint32_t i = 0; i < ps->rp.nr_cbufs && i < TBR_REC_MAX_CBUFS; i++) {
        if (!(cl->buffers & (4u << i)) || !ps->rp.cbufs[i].valid) continue;
        struct sim_clear_val *cv =
            clear_val(f, ps->rp.cbufs[i].resource_id, ps->rp.cbufs[i].level, ps->rp.cbufs[i].first_layer);
        memcpy(cv->color, cl->color_f, sizeof cv->color);
        if (ps->ndraws == 0) ps->color_cleared |= 1u << i;
    }
    if ((cl->buffers & 3u) && ps->rp.zsbuf.valid && !cl->zs_partial) {
        struct sim_clear_val *cv = clear_val(f, ps->rp.zsbuf.resource_id, ps->rp.zsbuf.level, ps->rp.zsbuf.first_layer);
        cv->zs = cl->zs_packed;
        if (ps->ndraws == 0) ps->zs_cleared = 1;
    }
    ps->color_invalidated &= ~(cl->buffers >> 2); /* written again after an invalidation */
    if (!cl->zs_partial)
        ps->zs_invalidated &= ~(cl->buffers & 3u);
    else if (cl->buffers & 3u)
        ps->zs_invalidated = 0; /* (the other component is kept, so defined) */
    pass_defines(f, ps, cl->buffers >> 2, (cl->buffers & 3u) != 0);
    ps->clears++;
    push_item(f, SIM_ITEM_CLEAR, (uint32_t)f->nclears);
    f->nclears++;
}

/* A draw after an INVALIDATE in the same pass writes what it renders again: its color
 * buffers with a non-zero color mask, the depth/stencil buffer with depth writes or a
 * stencil write mask (freedreno sets the resolve bits at every draw, freedreno_draw.c). */
static void draw_revalidates(sim_frame *f, sim_pass *ps, const tbr_rec_draw *d)
{
    if (!ps->color_invalidated && !ps->zs_invalidated && !f->nundefined) return;
    uint32_t colors = 0;
    for (uint32_t i = 0; i < TBR_REC_MAX_CBUFS; i++)
        if (d->rt[i].colormask) colors |= 1u << i;
    bool zs = (d->depth_enabled && d->depth_writemask) || (d->stencil[0].enabled && d->stencil[0].writemask) ||
              (d->stencil[1].enabled && d->stencil[1].writemask);
    ps->color_invalidated &= ~colors;
    if (zs) ps->zs_invalidated = 0;
    pass_defines(f, ps, colors, zs);
}

/* INVALIDATE (minor 11): the bindings of the current pass it names are undefined from
 * here on, until the pass writes them again (the pass's stores skip them); the resource,
 * bound or not (buffers 0), is undefined for the passes that follow until written
 * (sim_pass.color_undefined: their loads skip it). */
static void load_invalidate(sim_frame *f, const tbr_rec_invalidate *inv)
{
    f->invalidations++;
    undefined_add(f, inv->resource_id);
    if (!f->npasses) return;
    sim_pass *ps = &f->passes[f->npasses - 1];
    for (uint32_t i = 0; i < ps->rp.nr_cbufs && i < TBR_REC_MAX_CBUFS; i++)
        if ((inv->buffers & (4u << i)) && ps->rp.cbufs[i].valid) ps->color_invalidated |= 1u << i;
    if ((inv->buffers & 3u) && ps->rp.zsbuf.valid) ps->zs_invalidated |= inv->buffers & 3u;
}

static int load_draw(sim_frame *f, const tbr_rec_draw *draw, load_ctx *c)
{
    GROW(f->draws, f->ndraws, f->cap_draws);
    sim_draw *d = &f->draws[f->ndraws++];
    memset(d, 0, sizeof *d);
    d->rec = *draw;
    for (unsigned k = 0; k < TBR_REC_MAX_CONSTBUFS; k++) { /* kept for computed colors */
        const uint32_t len = draw->fs_const[k].data ? draw->fs_const[k].size : 0;
        while (f->nfs_consts + len > f->cap_fs_consts) {
            size_t nc = f->cap_fs_consts ? 2 * f->cap_fs_consts : 4096;
            uint8_t *nb = realloc(f->fs_consts, nc);
            if (!nb) return fail(c, "out of memory (constants)");
            f->fs_consts = nb;
            f->cap_fs_consts = nc;
        }
        d->fs_const_off[k] = (uint32_t)f->nfs_consts;
        d->fs_const_len[k] = len;
        if (len) memcpy(f->fs_consts + f->nfs_consts, draw->fs_const[k].data, len);
        f->nfs_consts += len;
    }
    memset(d->rec.vs_const, 0, sizeof d->rec.vs_const);
    memset(d->rec.fs_const, 0, sizeof d->rec.fs_const);
    d->vs_instructions = shader_instr(f->loader, draw->vs_id);
    d->fs_instructions = shader_instr(f->loader, draw->fs_id);
    d->pass = (uint32_t)f->npasses - 1;
    draw_revalidates(f, &f->passes[d->pass], draw);
    d->first_prim = (uint32_t)f->nprims;
    d->first_quad = (uint32_t)f->nquads;
    f->passes[f->npasses - 1].ndraws++;
    /* texture addresses in order of the first draw binding them (docs/timing-model.md
     * "Address map"): known before any texel is read, whether the trace records the
     * texels or tbr-sim derives them while rendering (records minor 6) */
    for (uint32_t k = 0; k < draw->num_textures && k < TBR_REC_MAX_TEXTURES; k++) {
        tbr_rec_resource dummy;
        const tbr_rec_resource *rr;
        (void)texture_base(f->loader, f, draw->textures[k].resource_id, &rr, &dummy);
    }
    return 0;
}

static int load_prim(sim_frame *f, const tbr_rec_prim *prim, load_ctx *c)
{
    int d = find_draw(f, prim->draw_seq);
    if (d < 0) return fail(c, "PRIM of unknown draw %u", prim->draw_seq);
    if (prim->index != f->draws[d].nprims || (size_t)d != f->ndraws - 1)
        return fail(c, "PRIM index %u of draw %u out of order", prim->index, prim->draw_seq);
    GROW(f->prims, f->nprims, f->cap_prims);
    sim_prim *sp = &f->prims[f->nprims++];
    sp->draw = (uint32_t)d;
    sp->kind = prim->kind;
    sp->flags = prim->flags;
    sp->nr_attrs = prim->nr_attrs;
    sp->first_v = UINT32_MAX;
    if (prim->kind == 3 && !(prim->flags & TBR_REC_PRIM_CULLED)) {
        sp->first_v = (uint32_t)f->nprim_v;
        for (unsigned v = 0; v < 3; v++)
            for (unsigned a = 0; a < prim->nr_attrs && a < TBR_REC_MAX_ATTRIBS; a++) {
                GROW(f->prim_v, f->nprim_v, f->cap_prim_v);
                memcpy(f->prim_v[f->nprim_v++], prim->v[v][a], sizeof(float[4]));
            }
    }
    unsigned nv = prim->kind >= 1 && prim->kind <= 3 ? prim->kind : 1;
    sp->minx = sp->maxx = prim->v[0][0][0];
    sp->miny = sp->maxy = prim->v[0][0][1];
    for (unsigned v = 1; v < nv; v++) {
        float x = prim->v[v][0][0], y = prim->v[v][0][1];
        if (x < sp->minx) sp->minx = x;
        if (x > sp->maxx) sp->maxx = x;
        if (y < sp->miny) sp->miny = y;
        if (y > sp->maxy) sp->maxy = y;
    }
    if (prim->kind != 3) { /* points/lines: widen by half the point size / line width */
        float h = (prim->kind == 1 ? f->draws[d].rec.point_size : f->draws[d].rec.line_width) * 0.5f + 1.0f;
        sp->minx -= h;
        sp->miny -= h;
        sp->maxx += h;
        sp->maxy += h;
    }
    f->draws[d].nprims++;
    return 0;
}

/* A blended quad's colors (unless computed) and exact tile values. */
static void quad_colors(sim_frame *f, sim_quad *sq, const tbr_rec_quads_header *h, const tbr_rec_quad *q)
{
    for (uint32_t cb = 0; cb < h->nr_cbufs && cb < TBR_REC_MAX_CBUFS; cb++) {
        const bool packed = (h->packed_mask & (1u << cb)) != 0;
        if (!h->computed) { /* computed: the back end computes the colors */
            GROW(f->colors, f->ncolors, f->cap_colors);
            if (packed) { /* the bits, unpacked by the back end (it knows the format) */
                memset(f->colors[f->ncolors], 0, sizeof f->colors[f->ncolors]);
                memcpy(f->colors[f->ncolors][0], q->packed[cb], sizeof q->packed[cb]);
            } else {
                memcpy(f->colors[f->ncolors], q->color[cb], sizeof q->color[cb]);
            }
            f->ncolors++;
        }
        if (!packed && q->exact_mask[cb]) {
            GROW(f->exacts, f->nexacts, f->cap_exacts);
            sim_exact *e = &f->exacts[f->nexacts];
            if (!sq->exact)
                sq->exact = (uint32_t)f->nexacts + 1;
            else
                f->exacts[f->nexacts - 1].last = 0;
            e->cbuf = (uint8_t)cb;
            e->last = 1;
            e->mask = (uint16_t)q->exact_mask[cb];
            memcpy(e->v, q->exact[cb], sizeof e->v);
            f->nexacts++;
        }
    }
}

static void load_quad(sim_frame *f, uint32_t d, const tbr_rec_quads_header *h, const tbr_rec_quad *q)
{
    sim_draw *sd = &f->draws[d];
    GROW(f->quads, f->nquads, f->cap_quads);
    sim_quad *sq = &f->quads[f->nquads];
    sq->x = q->x;
    sq->y = q->y;
    sq->draw = d;
    sq->prim = q->prim < sd->nprims ? sd->first_prim + q->prim : UINT32_MAX;
    sq->flags = (uint8_t)(q->flags | (h->computed ? SIM_QUAD_COMPUTED : 0) |
                          (h->texels_derived && (q->flags & TBR_REC_QUAD_SHADED) ? SIM_QUAD_TEXELS_DERIVED : 0));
    if (sq->flags & SIM_QUAD_TEXELS_DERIVED) f->derived_texel_quads++;
    if (h->computed) f->computed_quads++;
    sq->in_mask = (uint8_t)q->in_mask;
    sq->depth_mask = (uint8_t)q->depth_mask;
    sq->shade_mask = (uint8_t)q->shade_mask;
    sq->blend_mask = (uint8_t)q->blend_mask;
    memcpy(sq->z, q->z, sizeof sq->z);
    sq->path = (q->flags & TBR_REC_QUAD_SHADED) && q->path && q->path < f->cap_path_of_id ? f->path_of_id[q->path] : 0;
    sq->first_fetch = sq->nfetch = 0;
    sq->color = (uint32_t)f->ncolors;
    sq->exact = 0;
    if (q->flags & TBR_REC_QUAD_BLENDED) quad_colors(f, sq, h, q);
    sd->nquads++;
    sd->quads++;
    if (q->flags & TBR_REC_QUAD_SHADED) sd->shaded_quads++;
    push_item(f, SIM_ITEM_QUAD, (uint32_t)f->nquads);
    f->nquads++;
}

/* Derived depths of a QUADS record (records minor 12, docs/trace-records.md QUADS
 * "Derived depths"): the plane of the quads' primitive from its PRIM window positions,
 * kept while consecutive quads share the primitive. */
typedef struct {
    int on;
    tbr_depth_draw draw;
    uint32_t prim; /* draw's primitive index of plane, UINT32_MAX: none yet */
    tbr_depth_plane plane;
} derived_depths;

static int derive_depths(const sim_frame *f, const sim_draw *sd, derived_depths *dz, tbr_rec_quad *q)
{
    if (q->prim != dz->prim) {
        dz->prim = q->prim;
        dz->plane.valid = 0;
        if (q->prim < sd->nprims) {
            const sim_prim *sp = &f->prims[sd->first_prim + q->prim];
            if (sp->first_v != UINT32_MAX && sp->nr_attrs >= 1) {
                const float(*const v[3])[4] = {&f->prim_v[sp->first_v], &f->prim_v[sp->first_v + sp->nr_attrs],
                                               &f->prim_v[sp->first_v + 2 * sp->nr_attrs]};
                tbr_depth_plane_init(&dz->plane, &dz->draw, sp->kind, v);
            }
        }
    }
    return tbr_depth_plane_quad(&dz->plane, &dz->draw, q->x, q->y, q->z);
}

static int load_quads(sim_frame *f, const tbr_rec_decoded *d, load_ctx *c)
{
    const tbr_rec_quads_header *h = &d->u.quads.h;
    int di = find_draw(f, h->draw_seq);
    if (di < 0) return fail(c, "QUADS of unknown draw %u", h->draw_seq);
    if ((size_t)di != f->ndraws - 1) return fail(c, "QUADS of draw %u after a later DRAW", h->draw_seq);
    sim_draw *sd = &f->draws[di];
    /* the back end blends the pass's color buffers from each quad's color blocks (one per
     * color buffer of the record): fewer would read past the quad's */
    if (h->nr_cbufs != f->passes[sd->pass].rp.nr_cbufs)
        return fail(c, "QUADS of draw %u with %u color buffers in a pass of %u", h->draw_seq, h->nr_cbufs,
                    f->passes[sd->pass].rp.nr_cbufs);
    if (sd->packed_known && sd->packed_mask != h->packed_mask)
        return fail(c, "QUADS of draw %u with packed_mask %#x after %#x", h->draw_seq, h->packed_mask, sd->packed_mask);
    sd->packed_mask = h->packed_mask;
    sd->packed_known = true;
    const uint32_t n = d->bad == TBR_REC_BAD_ITEM ? d->bad_item : h->count;
    derived_depths dz = {.on = h->depths_derived != 0, .prim = UINT32_MAX};
    if (dz.on) tbr_depth_draw_init(&dz.draw, &sd->rec);
    for (uint32_t i = 0; i < n; i++) {
        const tbr_rec_quad *q = &d->u.quads.q[i];
        /* a quad lies in a render target: even window coordinates below TBR_REC_MAX_DIM (the
         * record coding itself takes any int32, docs/trace-records.md "Limits") */
        if (q->x < 0 || q->y < 0 || q->x >= (int32_t)TBR_REC_MAX_DIM || q->y >= (int32_t)TBR_REC_MAX_DIM ||
            (q->x & 1) || (q->y & 1))
            return fail(c, "quad %u of QUADS of draw %u at (%d, %d): outside a render target", i, h->draw_seq, q->x,
                        q->y);
        if (dz.on && (q->flags & TBR_REC_QUAD_HAS_Z)) {
            tbr_rec_quad qz = *q;
            if (derive_depths(f, sd, &dz, &qz) != 0)
                return fail(c,
                            "quad %u of QUADS of draw %u (primitive %u): its depths are derived (records minor 12) "
                            "but the primitive has no depth plane",
                            i, h->draw_seq, q->prim);
            load_quad(f, (uint32_t)di, h, &qz);
            continue;
        }
        load_quad(f, (uint32_t)di, h, q);
    }
    return d->bad ? fail_decode(c, d) : 0;
}

static void load_tile(sim_frame *f, const tbr_rec_tile *t)
{
    GROW(f->tiles, f->ntiles, f->cap_tiles);
    sim_tile_ev *te = &f->tiles[f->ntiles];
    memset(te, 0, sizeof *te);
    te->t = *t;
    struct sim_clear_val *cv = clear_val(f, te->t.resource_id, te->t.level, te->t.layer);
    memcpy(te->clear_color, cv->color, sizeof te->clear_color);
    te->zs_clear = cv->zs;
    ensure_pass(f);
    push_item(f, SIM_ITEM_TILE, (uint32_t)f->ntiles);
    f->ntiles++;
}

static int load_surface_init(sim_frame *f, const tbr_rec_surface_init *si, load_ctx *c)
{
    size_t len = (size_t)si->rows * si->width * si->block_bytes;
    ensure_pass(f); /* before the first pass of the frame: a pass-less item list, as TILE */
    if (f->ninit_data + len > f->cap_init_data) {
        size_t nc = f->cap_init_data ? f->cap_init_data : 1 << 20;
        while (nc < f->ninit_data + len) nc *= 2;
        uint8_t *nd = realloc(f->init_data, nc);
        if (!nd) return fail(c, "out of memory (SURFACE_INIT)");
        f->init_data = nd;
        f->cap_init_data = nc;
    }
    memcpy(f->init_data + f->ninit_data, si->data, len);
    GROW(f->inits, f->ninits, f->cap_inits);
    sim_surface_init *it = &f->inits[f->ninits++];
    it->rec = *si;
    it->rec.data = NULL;
    it->pass = (uint32_t)f->npasses - 1;
    it->data_off = f->ninit_data;
    f->ninit_data += len;
    return 0;
}

/* One decoded record into the frame. A streamed record that failed in an item or after
 * its items (d->bad) is taken up to there, then reported, as a record read item by item
 * would be. */
static int load_record(sim_frame *f, const tbr_rec_decoded *d, load_ctx *c)
{
    switch (d->type) {
        case TBR_REC_FRAME_END:
            f->end = d->u.frame_end;
            f->has_end = true;
            return 0;
        case TBR_REC_RESOURCE: load_resource(f, &d->u.resource); return 0;
        case TBR_REC_UPLOAD:
            f->uploads++;
            f->upload_bytes += d->u.upload.bytes;
            /* (softpipe's tile-cache write-back of a pass is not an application write) */
            if (!(d->u.upload.flags & TBR_REC_UPLOAD_TILE_CACHE)) undefined_remove(f, d->u.upload.resource_id);
            return 0;
        case TBR_REC_SHADER: return load_shader(f, &d->u.shader, c);
        case TBR_REC_PATH: load_path(f, &d->u.path); return 0;
        case TBR_REC_TEXELS: return load_texels(f, d, c);
        case TBR_REC_VERTICES: return load_vertices(f, d, c);
        case TBR_REC_VS_TEXELS: return load_vs_texels(f, d, c);
        case TBR_REC_RENDER_PASS: {
            GROW(f->passes, f->npasses, f->cap_passes);
            sim_pass *ps = &f->passes[f->npasses++];
            memset(ps, 0, sizeof *ps);
            ps->rp = d->u.render_pass;
            ps->first_draw = (uint32_t)f->ndraws;
            ps->first_item = (uint32_t)f->nitems;
            pass_mark_undefined(f, ps);
            return 0;
        }
        case TBR_REC_CLEAR: load_clear(f, &d->u.clear); return 0;
        case TBR_REC_DRAW: return load_draw(f, &d->u.draw, c);
        case TBR_REC_PRIM: return load_prim(f, &d->u.prim, c);
        case TBR_REC_QUADS: return load_quads(f, d, c);
        case TBR_REC_TILE: load_tile(f, &d->u.tile); return 0;
        case TBR_REC_SURFACE_CHECK:
            if (!f->npasses) return 0; /* only meaningful right after a RENDER_PASS */
            GROW(f->checks, f->nchecks, f->cap_checks);
            f->checks[f->nchecks].rec = d->u.surface_check;
            f->checks[f->nchecks].pass = (uint32_t)f->npasses - 1;
            f->nchecks++;
            return 0;
        case TBR_REC_SURFACE_INIT:
            undefined_remove(f, d->u.surface_init.resource_id);
            return load_surface_init(f, &d->u.surface_init, c);
        case TBR_REC_INVALIDATE: load_invalidate(f, &d->u.invalidate); return 0;
        default: return 0;
    }
}

static void frame_reset(sim_frame *f, uint64_t number)
{
    f->loader->res_gen++;
    f->number = number;
    f->has_end = false;
    memset(&f->end, 0, sizeof f->end);
    f->npasses = f->ndraws = f->nprims = f->nquads = f->ntiles = f->nclears = 0;
    f->nprim_v = f->nfs_consts = 0;
    f->computed_quads = 0;
    f->derived_texel_quads = 0;
    f->nitems = f->ncolors = f->nres = f->nexacts = f->nchecks = 0;
    f->npaths = f->npcls = f->nppc = f->nfetches = f->nlines = f->nvgroups = 0;
    f->texels = f->texel_fetches = f->vertex_records = f->vertex_records_ignored = 0;
    f->nvfetches = 0;
    f->vs_texels = f->vs_texel_fetches = f->compressed_texture_lines = 0;
    if (f->path_of_id) memset(f->path_of_id, 0, f->cap_path_of_id * sizeof *f->path_of_id);
    f->uploads = f->upload_bytes = f->unsupported = f->flushes = 0;
    f->invalidations = 0;
    f->nundefined = 0;
    f->ninits = f->ninit_data = 0;
}

/* fetches grouped by quad, keeping record order within a quad (counting sort) */
static void group_fetches(sim_frame *f)
{
    if (!f->nfetches) return;
    for (size_t i = 0; i < f->nfetches; i++) f->quads[f->fetches[i].quad].nfetch++;
    uint32_t acc = 0;
    for (size_t q2 = 0; q2 < f->nquads; q2++) {
        f->quads[q2].first_fetch = acc;
        acc += f->quads[q2].nfetch;
        f->quads[q2].nfetch = 0;
    }
    sim_fetch *sorted = tbr_xcalloc(f->nfetches, sizeof *sorted);
    for (size_t i = 0; i < f->nfetches; i++) {
        sim_quad *sq = &f->quads[f->fetches[i].quad];
        sorted[sq->first_fetch + sq->nfetch++] = f->fetches[i];
    }
    memcpy(f->fetches, sorted, f->nfetches * sizeof *sorted);
    free(sorted);
}

int sim_frame_load(sim_frame *f, tbr_trace_reader *r, uint64_t number, const sim_record_observer *obs, char *err,
                   size_t errlen)
{
    sim_loader *ld = f->loader;
    frame_reset(f, number);
    load_ctx c = {r, err, errlen, 0, 0};
    tbr_rec_decoder_set_types(ld->dec, SIM_LOADER_TYPES | (obs ? obs->types : 0));
    char obs_err[256] = "";
    bool obs_failed = false;
    uint16_t type;
    const uint8_t *p;
    size_t n;
    int rc;
    while ((rc = tbr_trace_reader_next_record(r, &type, &p, &n)) > 0) {
        /* (checked before the record is read, as always) */
        if (type == TBR_REC_CLEAR && !f->npasses) return fail(&c, "CLEAR before any RENDER_PASS");
        if (type == TBR_REC_DRAW && !f->npasses) return fail(&c, "DRAW before any RENDER_PASS");
        const tbr_rec_decoded *d;
        int dr = tbr_rec_decode(ld->dec, type, p, n, &d);
        const bool mine = type < 64 && (SIM_LOADER_TYPES & TBR_REC_MASK(type));
        if (dr < 0 && mine && (d->bad == TBR_REC_BAD_RECORD || d->bad == TBR_REC_BAD_HEADER)) return fail_decode(&c, d);
        if (obs && !obs_failed && type < 64 && (obs->types & TBR_REC_MASK(type)) && (!mine || dr == 0) &&
            obs->record(obs->ctx, d, obs_err, sizeof obs_err))
            obs_failed = true; /* reported once the frame loaded: the loader's errors come first */
        if (!mine) {
            if (type == TBR_REC_FLUSH) f->flushes++;
            if (type == TBR_REC_UNSUPPORTED) f->unsupported++;
            continue; /* (unknown record types: newer minor schema additions are skipped) */
        }
        if (load_record(f, d, &c)) return -1;
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s", tbr_trace_reader_error(r));
        return -1;
    }
    group_fetches(f);
    if (obs_failed) {
        snprintf(err, errlen, "%s", obs_err);
        return SIM_LOAD_OBSERVER_FAILED;
    }
    return 0;
}
