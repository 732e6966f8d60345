/* The Parameter Buffer (thesis §2.2): what the Polygon List Builder writes to memory and
 * the Tile Fetcher reads back: per tile, the list of the primitives overlapping it (in
 * binning order), and per primitive the offset of its attributes. The timing model
 * reads the lists' contents from here and charges their memory traffic at the buffer's
 * list_base / attr_base (ADDR_PB_LIST_BASE / ADDR_PB_ATTR_BASE, sim_env.h; with
 * geometry/raster overlap each Parameter Buffer has its own region, gpu.c). */
#ifndef TBR_PARAMETER_BUFFER_H
#define TBR_PARAMETER_BUFFER_H

#include <stdint.h>

typedef struct {
    uint32_t *prims;
    uint32_t n, cap;
} tile_list;

typedef struct {
    tile_list *lists; /* per tile of the pass */
    uint32_t ntiles, cap_tiles;
    uint32_t *prim_attr_off; /* per frame primitive: offset of its attributes */
    uint32_t cap_prim;
    uint64_t list_base, attr_base; /* where its lists and attributes are in memory */
} param_buffer;

#endif
