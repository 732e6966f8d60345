/* Hierarchical Z of the immediate-mode (IMR) organisation (hiz.c; ATTILA, seeds/004 sec. 2
 * and Table 1: "a Hierarchical Z buffer is used to remove non visible fragment tiles at a
 * fast rate without accessing GPU memory", on chip, 256 KB for up to 4096x4096; Green et
 * al. [17]). One conservative depth per block of block x block pixels of the pass's depth
 * plane: an upper bound of every depth stored in the block. A quad of a draw whose depth
 * test it can decide (LESS, LEQUAL, EQUAL; no stencil, no shader-written depth) whose every
 * covered fragment fails against that bound is rejected before Early-Z reads the Z cache
 * (before shading for draws tested after shading): it would fail the depth test anyway.
 *
 * Update rule (as ATTILA's Z Stencil test feeds its HZ: the written block's maximum when
 * the Z cache writes a line back): a Z cache write-back of a depth line sets each block
 * the line overlaps to the maximum of the block's depths at that moment; a clear sets
 * every block to the clear depth; a depth write by a draw whose test does not only lower
 * depths (GREATER, GEQUAL, NOTEQUAL, ALWAYS) sets its block to "unknown" (never rejects)
 * at once. The block maxima come from the depth buffer as the quads leave the Hi-Z stage
 * in submission order (the trace's depth values and depth-test results), so the bound
 * holds for every later quad. A pass keeps the blocks of the previous pass when it uses
 * the same depth surface; otherwise they start unknown. A pass with a depth clear after its
 * first quad, or a partial one, runs without Hi-Z. Each rejection is checked against the
 * trace: a rejected quad whose fragments the trace says passed would be a model error, is
 * counted (imr.hiz.contradictions) and not rejected. Frames do not depend on it (the
 * functional back end renders every pass the same way). */
#ifndef TBR_HIZ_H
#define TBR_HIZ_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_env.h"

typedef struct {
    bool test; /* imr.hierarchical_z: test quads (else only the depth image, for depth compression) */
    uint32_t block, capacity_blocks; /* imr.hiz.block_size, imr.hiz.capacity_blocks */
    /* the pass's depth plane */
    bool active; /* Hi-Z tests this pass's quads */
    uint64_t base, bytes;
    uint32_t w, h, bpp, bw, bh; /* pixels, bytes per pixel, blocks per row / column */
    int fmt;
    uint32_t *depth; /* w * h depth keys (order-preserving), as the quads leave the stage */
    uint32_t *zmax;  /* bw * bh upper bounds (keys); UINT32_MAX: unknown */
    size_t cap_depth, cap_zmax;
    uint64_t kept_base; /* the surface the blocks describe (0: none) */
    uint32_t kept_w, kept_h;
    tbr_stat *tested, *rejected, *lines_saved, *updates, *invalidations, *contradictions, *passes_off;
} hiz;

/* Parameters imr.hiz.*, statistics imr.hiz.*; test = false: no Hi-Z test, only the depth
 * image that depth compression reads (hiz_block_lines). */
void hiz_init(hiz *h, sim_env *env, bool test);
void hiz_free(hiz *h);
/* Pass `pass` of f starts, before the functional back end renders it: zs is its depth
 * surface's memory image (NULL: none), as the pass finds it. */
void hiz_begin_pass(hiz *h, const sim_frame *f, size_t pass, const sim_surf *zs);
/* Quad q (frame index qi) reaches the stage, in submission order (once per quad): true
 * when Hi-Z rejects it; z_lines: the Z cache lines it would read (statistics). Records its
 * depth writes. */
bool hiz_quad(hiz *h, const sim_frame *f, const sim_quad *q, uint32_t z_lines);
/* The Z cache wrote back `bytes` at address `addr`. */
void hiz_line_written(void *h, uint64_t addr, uint32_t bytes);
/* Depth compression: the 64-B memory lines (1-3, or 4 uncompressed) the 256-B block at
 * `addr` of the depth plane takes, from the depth image (only 4-byte depth formats
 * compress; the stencil bits are taken as constant). */
uint32_t hiz_block_lines(void *h, uint64_t addr);

#endif
