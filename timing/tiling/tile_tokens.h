/* Tokens of the Tile Queue port (Tile Fetcher -> Raster Unit), also used by the Raster
 * Unit's internal queues (post-rasterization, color): a tile's primitives (or quads)
 * between BEGIN and END markers, so each stage works on one tile at a time while
 * different stages may hold different tiles (the thesis' per-stage tile barriers). */
#ifndef TBR_TILE_TOKENS_H
#define TBR_TILE_TOKENS_H

#include <stdint.h>

#define TOK_KIND(t) ((t) >> 30)
#define TOK_VAL(t)  ((t)&0x3fffffffu)
#define TOK_ITEM    0u /* prim (tile queue) or quad index */
#define TOK_BEGIN   1u /* tile begins */
#define TOK_END     2u /* tile ends */
#define TOK(k, v)   (((uint32_t)(k) << 30) | (uint32_t)(v))

#endif
