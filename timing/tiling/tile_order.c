/* The Tile Scheduler's order (tile_order.h). */
#include "tiling/tile_order.h"

void tile_schedule_order(int kind, unsigned tx, unsigned ty, uint32_t *out)
{
    uint32_t n = 0;
    if (kind == TBR_TILE_ORDER_ZORDER) { /* walk the Morton curve of the enclosing power-of-two square */
        unsigned side = 1;
        while (side < tx || side < ty) side <<= 1;
        for (uint32_t m = 0; m < side * side; m++) {
            uint32_t x = 0, y = 0;
            for (unsigned b = 0; b < 16; b++) {
                x |= ((m >> (2 * b)) & 1u) << b;
                y |= ((m >> (2 * b + 1)) & 1u) << b;
            }
            if (x < tx && y < ty) out[n++] = y * tx + x;
        }
        return;
    }
    for (unsigned y = 0; y < ty; y++)
        for (unsigned i = 0; i < tx; i++) {
            unsigned x = (kind == TBR_TILE_ORDER_SNAKE && (y & 1)) ? tx - 1 - i : i;
            out[n++] = y * tx + x;
        }
}
