/* The Tile Scheduler's order (thesis §4.1.2, tile.order): scanline, Z-order (Morton walk
 * of the enclosing power-of-two square) or snake (odd rows right to left). Shared by the
 * Tile Fetcher and the tools that derive a tile's Raster Unit from the configuration. */
#ifndef TBR_TILE_ORDER_H
#define TBR_TILE_ORDER_H

#include <stdint.h>

enum { TBR_TILE_ORDER_SCANLINE, TBR_TILE_ORDER_ZORDER, TBR_TILE_ORDER_SNAKE }; /* tile.order's enum order */

/* out[k] = the k-th tile (row-major index) of a tx x ty grid; out has tx * ty entries. */
void tile_schedule_order(int kind, unsigned tx, unsigned ty, uint32_t *out);

#endif
