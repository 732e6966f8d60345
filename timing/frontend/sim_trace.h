/* tbr-sim front end: loads one frame of the GPU activity trace (docs/trace-records.md)
 * into flat arrays the Command Processor and the functional back end consume.
 *
 * The frame is split into render passes (RENDER_PASS records). Every pixel-affecting
 * record of a pass (QUADS, TILE events, CLEAR) becomes an ITEM in record order; the
 * Polygon List Builder bins the items into screen tiles, so replaying one tile's items
 * in order reproduces softpipe's per-pixel operation order exactly (the TILE events are
 * softpipe's only quantization points, docs/pixel-exactness.md).
 */
#ifndef TBR_SIM_TRACE_H
#define TBR_SIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tbr/record_table.h"
#include "tbr/records.h"
#include "tbr/trace.h"

/* The front end's state across frames: the shader table (SHADER texts, opcode classes,
 * code addresses), the texture / vertex-buffer address map, the memo slots of texel line
 * mapping (and the resource generation that invalidates them), and the record decoder.
 * Created by the driver (sim_main), one per trace; every frame loaded with it refers to it
 * (sim_frame.loader). */
typedef struct sim_loader sim_loader;

/* Address regions of the resources the trace names (the rest of the map is in gpu.h). */
#define ADDR_TEXTURE_BASE 0x200000000ull /* sampled textures, in order of first texel read */
#define ADDR_VBUF_BASE    0x300000000ull /* vertex buffers (VERTICES resource ids) */
#define ADDR_INDEX_BASE   0x360000000ull /* index buffers (not named by the trace): 16 MiB per draw of a frame */
#define ADDR_INDEX_SPAN   (ADDR_CODE_BASE - ADDR_INDEX_BASE)
#define ADDR_CODE_BASE    0x380000000ull /* shader code: 64 KiB per shader, in order of first use */

typedef enum { SIM_ITEM_QUAD = 0, SIM_ITEM_TILE = 1, SIM_ITEM_CLEAR = 2 } sim_item_kind;

typedef struct {
    uint32_t kind; /* sim_item_kind */
    uint32_t idx;  /* into quads / tiles / clears */
} sim_item;

/* sim_quad.flags bit beyond the trace's QUADS flags (0x3f): the quad came from a
 * COMPUTED QUADS record (records minor 5): no colors in the trace, the functional back
 * end computes them (functional/reference). */
#define SIM_QUAD_COMPUTED       0x40u
/* sim_quad.flags: a SHADED quad of a QUADS record with TBR_REC_QUADS_TEXELS_DERIVED
 * (records minor 6): no TEXELS fetches in the trace; the functional back end derives them
 * while it runs the quad's fragment shader, into its own sim_fetch_set (sim_derive_fetch). */
#define SIM_QUAD_TEXELS_DERIVED 0x80u

typedef struct {
    int32_t x, y;  /* even, window pixels, y down */
    uint32_t draw; /* index into frame draws */
    uint32_t prim; /* index into frame prims, UINT32_MAX if the PRIM was not recorded */
    uint8_t flags, in_mask, depth_mask, shade_mask, blend_mask;
    uint32_t z[4];
    uint32_t color;               /* index of the first float[4][4] block in colors (nr_cbufs blocks);
                   * a packed color buffer's block holds the packed pixels' bits in [0][j] */
    uint32_t exact;               /* index + 1 of the quad's first entry in exacts (0 = none) */
    uint32_t path;                /* SHADED: index + 1 of the FS PATH in paths (0 = no PATH recorded) */
    uint32_t first_fetch, nfetch; /* texture fetches of the quad (TEXELS), in fetches */
} sim_quad;

/* Instruction classes of TGSI opcodes (shader timing, docs/timing-model.md). */
enum { SIM_CL_ALU = 0, SIM_CL_SFU = 1, SIM_CL_TEX = 2, SIM_CL_CTRL = 3, SIM_CL_COUNT = 4 };
int sim_classify_opcode(const char *op, size_t n);

/* One executed instruction stream (PATH record): per instruction its class and pc. */
typedef struct {
    uint32_t shader, stage;
    uint32_t first, n; /* into frame pcls / ppc */
    uint64_t code;     /* code address of the shader (sim_loader_shader_code_addr) */
} sim_path;

/* One execution of a texture instruction on a quad (TEXELS fetch): the distinct memory
 * lines its texels map to under texture.layout (sim_loader_set_texture_layout). */
typedef struct {
    uint32_t quad; /* frame quad index */
    uint32_t pc, ntexels;
    uint32_t first_line, nlines; /* into frame lines */
} sim_fetch;

/* One VS group of a VERTICES record: PATH and the distinct vertex-buffer lines fetched. */
typedef struct {
    uint32_t path; /* index + 1 into paths (0 = none) */
    uint32_t n;    /* vertices */
    uint32_t draw; /* frame draw index */
    uint32_t first_line, nlines;
    uint32_t first_vfetch, nvfetch; /* vertex texturing (VS_TEXELS): fetches in vfetches */
} sim_vgroup;

/* Exact tile values a blended quad's destination had in softpipe where the simulator
 * holds the packed value of an earlier non-blended write (QUADS exact_mask, schema 3):
 * consecutive entries of one quad, the last one flagged. */
typedef struct {
    uint8_t cbuf, last;
    uint16_t mask; /* bit 4*j+ch: v[ch][j] */
    float v[4][4];
} sim_exact;

/* A render target's memory checksum when a pass binds it (SURFACE_CHECK, minor 4). */
typedef struct {
    tbr_rec_surface_check rec;
    uint32_t pass; /* index into passes */
} sim_surface_check;

typedef struct {
    tbr_rec_tile t;
    float clear_color[4]; /* color of the latest CLEAR of this surface (LOAD_CLEAR/STORE_CLEAR) */
    uint64_t zs_clear;    /* packed zs value of the latest depth/stencil CLEAR */
} sim_tile_ev;

typedef struct {
    uint32_t draw;
    uint32_t kind, flags, nr_attrs;
    uint32_t first_v;             /* triangles: 3 * nr_attrs attribute vectors in frame prim_v (vertex-major) */
    float minx, miny, maxx, maxy; /* window-space bounding box */
} sim_prim;

typedef struct {
    tbr_rec_draw rec;                          /* constant-buffer pointers are cleared (payload is gone) */
    uint32_t vs_instructions, fs_instructions; /* from SHADER records (0 if unknown) */
    uint32_t pass;
    uint32_t first_prim, nprims;
    uint64_t quads, shaded_quads;
    uint32_t first_quad, nquads;     /* quads are contiguous per draw */
    uint32_t packed_mask;            /* color buffers whose QUADS colors are packed (schema 3) */
    bool packed_known;               /* a QUADS record of the draw was read */
    uint32_t first_vgroup, nvgroups; /* VERTICES groups of the draw (contiguous) */
    uint32_t fs_const_off[TBR_REC_MAX_CONSTBUFS], fs_const_len[TBR_REC_MAX_CONSTBUFS]; /* in frame fs_consts */
    uint64_t vertices;                                                                 /* sum of VERTICES `fetched` */
} sim_draw;

typedef struct {
    tbr_rec_render_pass rp;
    uint32_t first_draw, ndraws;
    uint32_t first_item, nitems;
    uint32_t clears;                    /* number of CLEAR records in the pass */
    uint32_t color_cleared, zs_cleared; /* the pass starts with a full clear (no tile load needed) */
    /* INVALIDATE (records minor 11) after the pass's last write of the attachment: color
     * buffer bit i, the depth/stencil buffer (CLEAR's bits 1 | 2); the tile stores skip
     * them (depth.store / color.store auto) */
    uint32_t color_invalidated, zs_invalidated;
    /* attachments whose contents are undefined as the pass starts: invalidated (INVALIDATE
     * of the resource, bound or not) earlier in the frame and not written since (color
     * buffer bit i; the depth/stencil buffer); tile.restore=used does not load them
     * (docs/timing-model.md "Tile buffer loads") */
    uint32_t color_undefined;
    bool zs_undefined;
} sim_pass;

typedef struct {
    uint32_t id;
    tbr_rec_resource rec;
} sim_resource;

/* One SURFACE_INIT band: memory contents of a render target that the recorded window
 * uses before writing it (hot start). Applied when the pass it appears in begins. */
typedef struct {
    tbr_rec_surface_init rec; /* rec.data is NULL here: the bytes are at data_off in init_data */
    uint32_t pass;            /* index into passes */
    size_t data_off;
} sim_surface_init;

typedef struct {
    sim_loader *loader; /* the owner of the state the frame's loading and fetch mapping share */
    uint64_t number;
    bool has_end;
    tbr_rec_frame_end end;
    sim_pass *passes;
    size_t npasses, cap_passes;
    sim_draw *draws;
    size_t ndraws, cap_draws;
    sim_prim *prims;
    size_t nprims, cap_prims;
    sim_quad *quads;
    size_t nquads, cap_quads;
    sim_tile_ev *tiles;
    size_t ntiles, cap_tiles;
    tbr_rec_clear *clears;
    size_t nclears, cap_clears;
    sim_item *items;
    size_t nitems, cap_items;
    float (*colors)[4][4];
    size_t ncolors, cap_colors;
    sim_exact *exacts;
    size_t nexacts, cap_exacts;
    sim_resource *res;
    size_t nres, cap_res;
    sim_path *paths;
    size_t npaths, cap_paths;
    uint8_t *pcls;
    size_t npcls, cap_pcls; /* instruction class per path entry */
    uint16_t *ppc;
    size_t nppc, cap_ppc; /* pc per path entry */
    uint32_t *path_of_id;
    size_t cap_path_of_id; /* PATH id -> index + 1 */
    sim_fetch *fetches;
    size_t nfetches, cap_fetches;
    uint64_t *lines;
    size_t nlines, cap_lines;
    sim_vgroup *vgroups;
    size_t nvgroups, cap_vgroups;
    sim_fetch *vfetches;
    size_t nvfetches, cap_vfetches; /* VS_TEXELS (quad = frame vgroup) */
    sim_surface_init *inits;
    size_t ninits, cap_inits;
    float (*prim_v)[4];
    size_t nprim_v, cap_prim_v; /* triangle vertex attributes (computed colors) */
    uint8_t *fs_consts;
    size_t nfs_consts, cap_fs_consts; /* draws' fragment-shader constants */
    uint64_t computed_quads;          /* quads of COMPUTED QUADS records */
    uint64_t derived_texel_quads;     /* quads with SIM_QUAD_TEXELS_DERIVED */
    sim_surface_check *checks;
    size_t nchecks, cap_checks;
    uint8_t *init_data;
    size_t ninit_data, cap_init_data;
    uint64_t texels, texel_fetches, vertex_records, vertex_records_ignored;
    uint64_t vs_texels, vs_texel_fetches;
    uint64_t compressed_texture_lines; /* lines of TEXELS/VS_TEXELS fetches of block-compressed textures */
    uint64_t uploads, upload_bytes, unsupported, flushes;
    uint64_t invalidations; /* INVALIDATE records (minor 11) */
    /* resources whose contents are undefined now: invalidated and not written since, in this
     * frame (sim_pass.color_undefined); at most SIM_MAX_UNDEFINED, further ones are not
     * followed (they are loaded, as before) */
#define SIM_MAX_UNDEFINED 16
    uint32_t undefined_res[SIM_MAX_UNDEFINED];
    uint32_t nundefined;
    /* latest clear value per surface; kept across frames (a pending clear may outlive a
   * frame boundary only in theory, but costs nothing to keep) */
    struct sim_clear_val {
        uint32_t res, level, layer;
        float color[4];
        uint64_t zs;
    } * cvals;
    size_t ncvals, cap_cvals;
} sim_frame;

/* The record types the loader decodes (SHADER_CREATE, DRAW_END, FLUSH, UNSUPPORTED and
 * VS_TEXTURES are only counted or skipped). */
#define SIM_LOADER_TYPES                                                                                               \
    (TBR_REC_MASK_ALL &                                                                                                \
     ~(TBR_REC_MASK(TBR_REC_SHADER_CREATE) | TBR_REC_MASK(TBR_REC_DRAW_END) | TBR_REC_MASK(TBR_REC_FLUSH) |            \
       TBR_REC_MASK(TBR_REC_UNSUPPORTED) | TBR_REC_MASK(TBR_REC_VS_TEXTURES)))

/* NULL if out of memory. The default address map: linear textures, 64-byte lines. */
sim_loader *sim_loader_new(void);
void sim_loader_free(sim_loader *ld);
/* Texture / vertex-buffer address map (docs/timing-model.md "Address map"): set before
 * loading frames. tiled: 4x4-texel blocks; line_bytes: texture-cache line size. */
void sim_loader_set_texture_layout(sim_loader *ld, int tiled, uint32_t line_bytes, uint32_t vline_bytes);
/* TGSI text of a shader (SHADER record, kept across frames), NULL if never seen. */
const char *sim_loader_shader_text(const sim_loader *ld, uint32_t shader_id);
/* Code address of a shader (instruction fetch: 16 B per TGSI instruction). */
uint64_t sim_loader_shader_code_addr(sim_loader *ld, uint32_t shader_id);

/* A frame with no content, loaded with ld (sim_frame_load). */
void sim_frame_init(sim_frame *f, sim_loader *ld);
void sim_frame_free(sim_frame *f);
/* Before loading the frame after src into another sim_frame dst (tbr-sim loads a frame
 * ahead with overlap.across_frames): what a frame keeps for the next (the latest clear
 * values) copied from src. */
void sim_frame_carry_over(sim_frame *dst, const sim_frame *src);

/* Another reader of the same records in the same pass (tbr-sim's Rendering Elimination
 * scan, techniques/signature_unit.h): record() is called for every record of a type in
 * `types`, decoded (rec->bad set if it did not decode and the loader does not read that
 * type itself), in trace order. It returns 0, or -1 with a message in err. */
typedef struct {
    uint64_t types;
    int (*record)(void *ctx, const tbr_rec_decoded *rec, char *err, size_t errlen);
    void *ctx;
} sim_record_observer;
#define SIM_LOAD_OBSERVER_FAILED (-2)

/* Reads the current frame of r (after tbr_trace_reader_next_frame/seek) with f's loader,
 * each record decoded once; obs (may be NULL) sees the records of its types. Returns 0, -1
 * with a message naming the file/record in err, or SIM_LOAD_OBSERVER_FAILED with the
 * observer's message in err (the frame loaded: the loader's errors come first). Keeps
 * resources known from earlier frames of the same reader only if they are re-declared
 * (frames are self-contained). */
int sim_frame_load(sim_frame *f, tbr_trace_reader *r, uint64_t number, const sim_record_observer *obs, char *err,
                   size_t errlen);
const sim_resource *sim_frame_resource(const sim_frame *f, uint32_t id);
/* The fetches the functional back end derives for a frame's SIM_QUAD_TEXELS_DERIVED quads
 * (records minor 6): its output, kept beside the loaded frame, which stays read-only. A
 * fetch's first_line indexes the set's lines. */
typedef struct {
    sim_fetch *fetches;
    size_t nfetches, cap_fetches;
    uint64_t *lines;
    size_t nlines, cap_lines;
    uint32_t *first, *count; /* per frame quad: its derived fetches */
    size_t cap_quads;
    uint64_t texels, texel_fetches;
} sim_fetch_set;
/* Empty, for frame f's quads. */
void sim_fetch_set_reset(sim_fetch_set *d, const sim_frame *f);
void sim_fetch_set_free(sim_fetch_set *d);
/* A quad's fetches and the lines their first_line indexes: the derived ones when d has any
 * for it, else the frame's (TEXELS). */
static inline const sim_fetch *sim_quad_fetches(const sim_frame *f, const sim_fetch_set *d, uint32_t quad, uint32_t *n,
                                                const uint64_t **lines)
{
    if (d && quad < d->cap_quads && d->count[quad]) {
        *n = d->count[quad];
        *lines = d->lines;
        return d->fetches + d->first[quad];
    }
    *n = f->quads[quad].nfetch;
    *lines = f->lines;
    return *n ? f->fetches + f->quads[quad].first_fetch : NULL; /* (no fetches: maybe no array) */
}
/* Appends a derived fetch of frame quad `quad` (its texels in softpipe's order, as a TEXELS
 * fetch) to d, mapped to memory lines like a recorded one under the frame's address map. A
 * quad's fetches must be added together, in order. footprints: the texels are whole
 * bilinear footprints (tbr_fs_fetch_log_entry.footprints), mapped per footprint. */
void sim_derive_fetch(const sim_frame *f, sim_fetch_set *d, uint32_t quad, const tbr_rec_texfetch *fe,
                      const tbr_rec_texel *tx, bool footprints);

/* Derived fetches mapped to lines while the sampler reports their texels (tbr-sim's
 * functional back end, sim_func.c), instead of logging the texels and mapping them
 * afterwards (sim_derive_fetch): usable when sim_loader_relative_lines() says so (linear
 * layout, a power-of-two line of at most 4 KiB, so a line is its texture's base, which is
 * 4 KiB aligned, plus the line of the texel's offset in the texture). Each fetch keeps its
 * distinct lines relative to its texture's base; the base is assigned when the quad's
 * fetches are added (sim_derive_relative_fetches), in fetch order, as
 * sim_derive_fetch does, so addresses and lines are the same. */
typedef struct {
    uint32_t pc, resource_id, ntexels;
    uint32_t first, nlines; /* into sim_rel_fetches.lines */
} sim_rel_fetch;
typedef struct {
    sim_rel_fetch *fetch;
    size_t nfetch, cap_fetch;
    uint64_t *lines;
    size_t nlines, cap_lines;
    bool failed;    /* a fetch of more than TBR_REC_MAX_TEXELS_PER_FETCH texels */
    bool open;      /* fetch[nfetch - 1] takes texels */
    uint64_t last;  /* the line added last to the open fetch */
    void *res;      /* the open fetch's texture (a memo slot of the frame's loader) */
    int tiled;      /* the loader's address map (sim_rel_begin_fetch) */
    uint32_t tline; /* texture-cache line bytes */
} sim_rel_fetches;
/* Derived fetches can be mapped as the sampler reports them under ld's address map. */
bool sim_loader_relative_lines(const sim_loader *ld);
/* Starts a quad (forgets the previous quad's fetches). */
void sim_rel_reset(sim_rel_fetches *rf);
/* Starts a fetch of the frame's resource resource_id by the instruction at pc; ends the
 * open one (a fetch without texels is dropped, as the fetch log drops it). */
void sim_rel_begin_fetch(sim_rel_fetches *rf, const sim_frame *f, uint32_t resource_id, uint32_t pc);
/* A bilinear footprint (tbr_footprint_observer) / one texel of the open fetch (ignored
 * when no fetch is open). */
void sim_rel_footprint(sim_rel_fetches *rf, uint32_t level, uint32_t layer, int32_t x0, int32_t x1, int32_t y0,
                       int32_t y1);
void sim_rel_texel(sim_rel_fetches *rf, uint32_t level, uint32_t layer, int32_t x, int32_t y);
/* Ends the open fetch. */
void sim_rel_end(sim_rel_fetches *rf);
/* Appends the quad's fetches (after sim_rel_end, unless failed) for frame quad `quad` to d:
 * the same fetches, lines and counts as sim_derive_fetch of each logged fetch. */
void sim_derive_relative_fetches(const sim_frame *f, sim_fetch_set *d, uint32_t quad, const sim_rel_fetches *rf);
void sim_rel_free(sim_rel_fetches *rf);

#endif
