/* Functional back end of tbr-sim: the memory image of every render target (frame buffer
 * and render-to-texture surfaces) and the on-chip tile buffers of a Raster Unit.
 *
 * Pixel values come from the reference model (bit-exact with softpipe). Softpipe quantizes
 * colors only at its own 64x64 tile-cache events (TILE records); the tile buffers here
 * therefore keep float colors and pack/unpack exactly at those events, replayed on our
 * tile grid with the _rect functions (docs/pixel-exactness.md, docs/timing-model.md
 * "Functional model"). Between tiles/passes the float contents live in a per-surface
 * float image (the state softpipe's cache would hold); the timing model charges the TBR
 * load/store traffic of the tile buffers separately.
 */
#ifndef TBR_SIM_FUNC_H
#define TBR_SIM_FUNC_H

#include <stdbool.h>
#include <stdint.h>

#include "fs_quad.h"
#include "frontend/sim_trace.h"
#include "tile_buffers.h"

typedef struct sim_surf {
    uint32_t res, level, layer;
    tbr_pixel_format fmt;
    bool is_zs;
    unsigned w, h;
    tbr_surface mem; /* color: surface bytes in the format; zs: unused */
    float *cache;    /* color: w*h*4 floats (softpipe tile-cache contents) */
    uint64_t *zs;    /* zs: w*h raw words */
    uint64_t base;   /* simulated address (assigned by the address map when first bound) */
    bool has_base;
    bool raw; /* a sampled texture in a format the pixel back end does not render:
                    * mem holds its bytes (block_bytes per texel), never a render target */
} sim_surf;

/* A draw of the current pass whose colors are computed (lazily prepared). */
typedef struct {
    int state; /* 0 not prepared, 1 ready, -1 cannot be computed */
    tbr_fs_draw d;
    /* layered textures (arrays, cube maps): per view level the memory of each layer,
     * this back end's surfaces (tbr_texture_level.layer_data points in here) */
    const uint8_t **layer_data;
    size_t cap_layer_data;
} sim_fs_draw;

/* Per-tile functional results the timing model uses. */
typedef struct {
    uint32_t quads, ztested, zkilled, shaded, blended_quads, blended_frags;
    uint32_t mask_mismatch; /* quads whose recomputed depth/stencil mask differs from the trace */
} sim_tile_result;

typedef struct sim_func {
    sim_surf *surfs;
    size_t nsurfs, cap_surfs;
    /* current pass */
    const sim_frame *frame;
    const sim_pass *pass;
    unsigned tile_w, tile_h, tiles_x, tiles_y;
    int surf_cbuf[TBR_MAX_COLOR_BUFS]; /* index into surfs, -1 unbound */
    int surf_zs;
    tbr_tile_buffers tb;
    bool tb_valid;
    uint32_t *bin_start; /* CSR: items of tile t are bin_items[bin_start[t] .. bin_start[t+1]) */
    uint32_t *bin_items;
    size_t cap_bins, cap_bin_items;
    tbr_dsa_state *dsa; /* per draw of the pass */
    tbr_blend_state *blend;
    tbr_blend_path *bpath;
    size_t cap_draw_state;
    /* default framebuffer (the target at FRAME_END) */
    uint32_t default_res;
    bool have_default;
    uint64_t mask_mismatch_total, unknown_format_surfaces;
    uint64_t next_addr; /* address allocator for surfaces */
    /* hot start (SURFACE_INIT records) */
    bool ignore_surface_init;                          /* tbr-sim --no-surface-init: start every surface from zeros */
    uint64_t surface_init_bands, surface_init_skipped; /* applied / unusable (unknown or mismatched surface) */
    /* render-target checks (SURFACE_CHECK records): compared / differing / not comparable */
    uint64_t surface_checks, surface_check_mismatches, surface_checks_skipped;
    char first_check_mismatch[160];
    /* computed colors (COMPUTED QUADS records, functional/reference) */
    struct sim_fs_prog {
        uint32_t id;
        struct tbr_tgsi_program *prog;
    } * progs;
    size_t nprogs, cap_progs;
    sim_fs_draw *fsd; /* per draw of the pass */
    size_t cap_fsd;
    uint32_t coef_prim; /* frame prim index of coefs (UINT32_MAX: none) */
    struct tbr_setup_coefs coefs;
    uint64_t quads_computed, quads_compute_failed;
    char first_compute_failure[160];
    /* derived texels (records minor 6): the frame whose derived quads get fetches
     * (sim_func_derive_texels; NULL: not derived, e.g. fast-forward frames), and the
     * fetches derived for it: this back end's output, read by the texture units through
     * sim_quad_fetches; the loaded frame is not edited */
    const sim_frame *fetch_frame;
    sim_fetch_set derived;
    tbr_fs_fetch_log flog;
    /* or, when sim_loader_relative_lines(), mapped to lines as the sampler reports them
   * (rel_on: the last derived quad used rel; rel_draw: its draw, for the units' textures) */
    sim_rel_fetches rel;
    bool rel_on;
    const tbr_rec_draw *rel_draw;
    uint64_t texel_quads_derived, texel_derive_failed;
    /* TBDR (set by the wiring, timing/raster/hsr.h): per frame quad the colour lanes HSR
     * kept; a removed lane writes no colour (its depth/stencil still update). NULL: all. */
    const uint8_t *color_keep;
    char first_derive_failure[160];
} sim_func;

void sim_func_init(sim_func *fn, uint64_t surface_base);
void sim_func_free(sim_func *fn);
/* No surface, program or pass: sim_func_init's state (gpu_reset). */
void sim_func_reset(sim_func *fn, uint64_t surface_base);

/* Starts a pass: creates/binds its surfaces, applies the pass's tile events of surfaces
 * that are not bound (they do not interleave with its quads), bins its items into
 * tiles of tile_w x tile_h. Returns 0, -1 with err on an unusable pass. */
int sim_func_begin_pass(sim_func *fn, const sim_frame *f, size_t pass, unsigned tile_w, unsigned tile_h, char *err,
                        size_t errlen);
unsigned sim_func_tiles_x(const sim_func *fn);
unsigned sim_func_tiles_y(const sim_func *fn);
/* Item indices (into frame->items) binned to tile (tx, ty), in record order. */
const uint32_t *sim_func_tile_items(const sim_func *fn, unsigned tx, unsigned ty, uint32_t *count);
/* Renders one tile: load tile buffers, replay the tile's items, write back. */
void sim_func_render_tile(sim_func *fn, unsigned tx, unsigned ty, sim_tile_result *res);
void sim_func_end_pass(sim_func *fn);
/* Frame f's passes follow: the texel fetches of its SIM_QUAD_TEXELS_DERIVED quads are
 * derived into fn->derived (emptied here) while sim_func_render_tile shades them, before
 * each pass's raster phase reads them; NULL: they are not derived (frames that are only
 * rendered, not timed). */
void sim_func_derive_texels(sim_func *fn, const sim_frame *f);

const sim_surf *sim_func_surface(const sim_func *fn, int idx);
int sim_func_cbuf_surface(const sim_func *fn, unsigned cbuf);
int sim_func_zs_surface(const sim_func *fn);

/* Default framebuffer of the frame as RGBA8 rows top to bottom (the reference PNG's
 * layout: glReadPixels + row flip = surface row order). Allocates *out (free()).
 * Returns 0, -1 with err if none is known. */
int sim_func_frame_rgba8(sim_func *fn, const sim_frame *f, uint8_t **out, uint32_t *w, uint32_t *h, char *err,
                         size_t errlen);

#endif
