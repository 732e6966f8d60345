/* Primitive dispatch of the immediate-mode (IMR) organisation (prim_dispatch.c; ATTILA,
 * seeds/004 sec. 2: Primitive Assembly -> Clipping -> Triangle Setup -> Fragment
 * Generation, one triangle per cycle, no binning). It takes the primitives Primitive
 * Assembly emits, in submission order, and hands them to the Raster Unit's input queue as
 * one "tile" covering the whole render target: BEGIN, the primitives, END once Primitive
 * Assembly is done. No Polygon List Builder, no Parameter Buffer, no Tile Fetcher. */
#ifndef TBR_PRIM_DISPATCH_H
#define TBR_PRIM_DISPATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sim_queue.h"
#include "sim_env.h"

typedef struct {
    const sim_env *env;
    sim_queue *in, *out; /* Primitive Assembly's prim_q; the Raster Unit's tile queue */
    bool (*upstream_done)(const void *ctx);
    const void *upstream;
    bool begun, ended;
    uint64_t sent; /* primitives handed on (progress) */
    tbr_stat *prims, *stall;
} prim_dispatch;

void prim_dispatch_init(prim_dispatch *d, const sim_env *env, tbr_stats *st);
void prim_dispatch_connect(prim_dispatch *d, sim_queue *in, sim_queue *out, bool (*upstream_done)(const void *ctx),
                           const void *upstream);
void prim_dispatch_begin_pass(prim_dispatch *d);
void prim_dispatch_tick(prim_dispatch *d);
uint64_t prim_dispatch_next_event(const prim_dispatch *d);
static inline bool prim_dispatch_done(const prim_dispatch *d) { return d->ended; }

#endif
