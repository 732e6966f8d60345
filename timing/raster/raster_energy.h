/* The energy structures the Raster Unit's stages count inline (energy/energy.h handles,
 * shared by the Raster Units; NULL, and so not counted, until the wiring registers them:
 * gpu_energy.c). */
#ifndef TBR_RASTER_ENERGY_H
#define TBR_RASTER_ENERGY_H

#include <stdint.h>

#include "energy/energy.h"

typedef struct {
    tbr_energy_unit *setup, *raster, *depth, *color, *ztest;
    /* TBDR: the HSR stage's own structures (raster/hsr.h); IMR: the Z and color caches
     * (imr/rop_cache.h), which replace the tile buffers (depth and color NULL then) */
    tbr_energy_unit *hsr_setup, *hsr_raster, *hsr_depth, *hsr_ztest, *zcache, *ccache;
    uint64_t qpl_z, qpl_c; /* quad accesses of the depth / color buffer per memory line */
} raster_energy;

#endif
