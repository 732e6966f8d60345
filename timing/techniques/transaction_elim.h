/* Transaction Elimination (RE paper seeds/001 sec. IV-C, ARM TE [16]) and the per-tile
 * color snapshots the Rendering Elimination statistics need.
 *
 * TE: at a tile's Color Buffer flush, a CRC32 of the tile's packed colors (every bound
 * color buffer, the bytes the flush would write) is compared with the Signature Buffer
 * entry of the same tile of the frame that last wrote this frame buffer (previous frame,
 * or the one before when double-buffered); equal = the flush is dropped. No time cost
 * (as the paper assumes), activity counted. Docs: docs/techniques.md. */
#ifndef TBR_TRANSACTION_ELIM_H
#define TBR_TRANSACTION_ELIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render/sim_func.h"

/* Colors (packed memory bytes + softpipe float contents) and depth of one tile of the
 * bound surfaces, saved before rendering it. */
typedef struct {
    uint8_t *buf;
    size_t len, cap;
    size_t mem_len; /* bytes of packed colors at the start of buf */
} tile_snap;

void tile_snap_free(tile_snap *s);
void tile_snap_take(tile_snap *s, const sim_func *fn, unsigned tx, unsigned ty);
/* Restores everything (skipped tile keeps the old frame buffer), or only the packed
 * colors (eliminated flush: memory keeps the old bytes). */
void tile_snap_restore(const tile_snap *s, sim_func *fn, unsigned tx, unsigned ty, bool colors_only);
/* True if the tile's current packed colors (and, unless packed_only, its float
 * contents) equal the snapshot's. */
bool tile_snap_colors_equal(const tile_snap *s, const sim_func *fn, unsigned tx, unsigned ty, bool packed_only);
/* CRC32 of the tile's packed colors (rows of every bound color buffer, zero-padded to
 * whole 64-bit subblocks); *subblocks = Compute CRC work. */
uint32_t te_tile_color_crc(const sim_func *fn, unsigned tx, unsigned ty, uint64_t *subblocks, uint64_t *bytes);

#endif
