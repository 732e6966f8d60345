/*
 * texblocks.h - texture-block sharing statistics for tbr-characterize,
 * independent of how texel accesses are recorded (the adapter that feeds it
 * from texel records lives in main.c). Definitions: docs/tools-characterize.md.
 *
 * Per frame, for every access (tile index in the tile processing order,
 * processor that shades the quad, texture block key):
 *  - inter-tile sharing (thesis Fig. 5.12): for each distinct block, the
 *    smallest distance |t - t'| between two distinct tiles that accessed it:
 *    1 -> "shared at distance 1", 2 -> "distance 2", > 2 -> "shared farther",
 *    only one tile -> "private";
 *  - replication (DTM-NUCA Fig. 1): for each distinct block, the number of
 *    distinct processors (private texture caches, unbounded capacity, filled
 *    during the frame) that accessed it: histogram over 1..N.
 */
#ifndef TBR_TEXBLOCKS_H
#define TBR_TEXBLOCKS_H

#include <stddef.h>
#include <stdint.h>

#define TEXBLOCKS_MAX_PROCS 64

typedef struct texblocks_result {
    uint64_t blocks;   /* distinct blocks accessed */
    uint64_t accesses; /* accesses fed */
    uint64_t shared_d1, shared_d2, shared_far, private_blocks;
    uint64_t replication[TEXBLOCKS_MAX_PROCS + 1]; /* [k] = blocks held by exactly k caches */
} texblocks_result;

typedef struct texblocks texblocks;

texblocks *texblocks_new(unsigned processors); /* 1..TEXBLOCKS_MAX_PROCS; NULL on error */
void texblocks_free(texblocks *t);
/* Records one access. Returns 0, -1 on out-of-memory or processor >= N. */
int texblocks_add(texblocks *t, uint64_t tile, unsigned processor, uint64_t block);
/* Computes the statistics of everything added since the last call (or
 * creation), adds them to *acc (which the caller zero-initialises), and
 * clears the accesses. Returns 0 or -1 on out-of-memory. */
int texblocks_finish_frame(texblocks *t, texblocks_result *acc);

/* Quad-to-processor mappings inside a tile (quad coordinates qx, qy within
 * the tile, the tile being qw x qh quads). */
enum texblocks_mapping {
    TEXBLOCKS_MAP_RR = 0,      /* row-major quad index modulo N (fine-grained) */
    TEXBLOCKS_MAP_STRIPS = 1,  /* N vertical strips of equal width */
    TEXBLOCKS_MAP_QUADRANT = 2 /* N = 4: top-left 0, top-right 1, bottom-left 2, bottom-right 3 */
};
unsigned texblocks_map(enum texblocks_mapping m, unsigned n, unsigned qx, unsigned qy, unsigned qw, unsigned qh);

#endif
