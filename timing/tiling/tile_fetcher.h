/* Tile Scheduler and Tile Fetcher (tile_fetcher.c; thesis §4.1.2, Fig. 4.4 / 4.5).
 * Ports: reads the Parameter Buffer (through its own Tile Cache, a memory-system port),
 * pushes tokens (tile_tokens.h) into each Raster Unit's Tile Queue; asks the Raster Units
 * whether they are idle (baseline fetcher: the next tile waits for them to drain) and
 * how many tiles each has finished (tile-to-unit assignment hook). */
#ifndef TBR_TILE_FETCHER_H
#define TBR_TILE_FETCHER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sim_queue.h"
#include "memory/cache.h"
#include "sim_env.h"
#include "tiling/parameter_buffer.h"

typedef struct {
    uint32_t marker; /* 0 = primitive entry, else the TOK_BEGIN/TOK_END token to push */
    bool ptr_done;
    uint32_t tile, ru, prim, nattrs, pending, sent;
} pt_entry;

/* The Raster Units as the Tile Fetcher sees them. */
typedef struct {
    uint32_t n;
    sim_queue **tile_q;                                     /* per unit: its Tile Queue (output port) */
    bool (*idle)(const void *ctx, uint32_t unit);           /* the unit has nothing in flight */
    uint32_t (*tiles_done)(const void *ctx, uint32_t unit); /* tiles it has flushed so far */
    const void *ctx;
} tf_raster_units;

typedef struct {
    sim_env *env;
    const param_buffer *pb;
    tf_raster_units rus;
    bool pipelined; /* tile.fetcher_pipelined */
    int order_kind; /* tile.order */
    uint32_t *order;
    uint32_t norder, cap_order; /* tile schedule */
    uint32_t cur;               /* index in order of the tile being fetched */
    uint32_t pos;               /* next primitive of the current tile */
    bool began;                 /* BEGIN pushed for the current tile */
    pt_entry *pt;
    uint32_t npt;                                   /* Primitive Table entries (thesis §4.1.2: 16) */
    uint32_t ring_cap, pt_head, pt_count, pt_prims; /* in-order ring: entries + tile markers */
    uint32_t ru_of_cur;
    uint32_t dispatch_wait; /* cycles spent in the tile dispatch hook (e.g. RE compares signatures) */
    int ptr_reg;            /* PT entry waiting to send its pointer request, -1 none */
    sim_queue attr_wait;    /* PT entries whose attribute requests are pending issue */
    tbr_cache *tcache;
    uint64_t next_id;
    tbr_stat *busy, *stall, *idle, *ptr_reqs, *attr_reqs, *pt_full;
} tile_fetcher;

/* Reads tile.* parameters, creates the Tile Cache (on env->mem's port; env->mem NULL: the
 * owner services the cache's miss/fill queues itself, as a unit test does). -1 with err. */
int tf_init(tile_fetcher *t, sim_env *env, const param_buffer *pb, char *err, size_t errlen);
void tf_connect(tile_fetcher *t, const tf_raster_units *rus);
void tf_free(tile_fetcher *t);
void tf_begin_pass(tile_fetcher *t);
/* Nothing in flight, its Tile Cache empty (gpu_reset). */
void tf_reset(tile_fetcher *t);
void tf_tick(tile_fetcher *t);
bool tf_done(const tile_fetcher *t);
uint64_t tf_next_event(const tile_fetcher *t);

#endif
