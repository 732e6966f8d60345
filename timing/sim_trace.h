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

#include "tbr/records.h"
#include "tbr/trace.h"

typedef enum { SIM_ITEM_QUAD = 0, SIM_ITEM_TILE = 1, SIM_ITEM_CLEAR = 2 } sim_item_kind;

typedef struct {
  uint32_t kind; /* sim_item_kind */
  uint32_t idx;  /* into quads / tiles / clears */
} sim_item;

typedef struct {
  int32_t x, y;       /* even, window pixels, y down */
  uint32_t draw;      /* index into frame draws */
  uint32_t prim;      /* index into frame prims, UINT32_MAX if the PRIM was not recorded */
  uint8_t flags, in_mask, depth_mask, shade_mask, blend_mask;
  uint32_t z[4];
  uint32_t color; /* index of the first float[4][4] block in colors (nr_cbufs blocks) */
} sim_quad;

typedef struct {
  tbr_rec_tile t;
  float clear_color[4]; /* color of the latest CLEAR of this surface (LOAD_CLEAR/STORE_CLEAR) */
  uint64_t zs_clear;    /* packed zs value of the latest depth/stencil CLEAR */
} sim_tile_ev;

typedef struct {
  uint32_t draw;
  uint32_t kind, flags, nr_attrs;
  float minx, miny, maxx, maxy; /* window-space bounding box */
} sim_prim;

typedef struct {
  tbr_rec_draw rec;        /* constant-buffer pointers are cleared (payload is gone) */
  uint32_t vs_instructions, fs_instructions; /* from SHADER records (0 if unknown) */
  uint32_t pass;
  uint32_t first_prim, nprims;
  uint64_t quads, shaded_quads;
  uint32_t first_quad, nquads; /* quads are contiguous per draw */
} sim_draw;

typedef struct {
  tbr_rec_render_pass rp;
  uint32_t first_draw, ndraws;
  uint32_t first_item, nitems;
  uint32_t clears; /* number of CLEAR records in the pass */
  uint32_t color_cleared, zs_cleared; /* the pass starts with a full clear (no tile load needed) */
} sim_pass;

typedef struct {
  uint32_t id;
  tbr_rec_resource rec;
} sim_resource;

typedef struct {
  uint64_t number;
  bool has_end;
  tbr_rec_frame_end end;
  sim_pass *passes;       size_t npasses, cap_passes;
  sim_draw *draws;        size_t ndraws, cap_draws;
  sim_prim *prims;        size_t nprims, cap_prims;
  sim_quad *quads;        size_t nquads, cap_quads;
  sim_tile_ev *tiles;     size_t ntiles, cap_tiles;
  tbr_rec_clear *clears;  size_t nclears, cap_clears;
  sim_item *items;        size_t nitems, cap_items;
  float (*colors)[4][4];  size_t ncolors, cap_colors;
  sim_resource *res;      size_t nres, cap_res;
  uint64_t uploads, upload_bytes, unsupported, flushes;
  /* latest clear value per surface; kept across frames (a pending clear may outlive a
   * frame boundary only in theory, but costs nothing to keep) */
  struct sim_clear_val { uint32_t res, level, layer; float color[4]; uint64_t zs; } *cvals;
  size_t ncvals, cap_cvals;
} sim_frame;

void sim_frame_init(sim_frame *f);
void sim_frame_free(sim_frame *f);
/* Reads the current frame of r (after tbr_trace_reader_next_frame/seek). Returns 0, or -1
 * with a message naming the file/record in err. Keeps resources known from earlier frames
 * of the same reader only if they are re-declared (frames are self-contained). */
int sim_frame_load(sim_frame *f, tbr_trace_reader *r, uint64_t number, char *err, size_t errlen);
const sim_resource *sim_frame_resource(const sim_frame *f, uint32_t id);

#endif
