/* Polygon List Builder (plb.c; thesis §2.2, §4.1.2 Fig. 4.4). Ports: primitives in from
 * Primitive Assembly (a queue, plus whether it has emitted the pass's last one), the
 * Parameter Buffer out (pb: the tile lists and attribute offsets the Tile Fetcher reads;
 * their bytes go to memory through its memory-system port). Binning hooks let a technique
 * take each primitive and tile (e.g. RE's Signature Unit). */
#ifndef TBR_PLB_H
#define TBR_PLB_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sim_queue.h"
#include "sim_env.h"
#include "tiling/parameter_buffer.h"

typedef struct {
    sim_env *env;
    sim_queue *in;                          /* input port: primitives from Primitive Assembly */
    bool (*upstream_done)(const void *ctx); /* Primitive Assembly has emitted the pass's last one */
    const void *upstream;
    uint32_t tiles_per_cycle; /* plb.tiles_per_cycle */
    bool has_prim;
    uint32_t prim;
    uint32_t tx0, ty0, tx1, ty1, cx, cy; /* tile range being written */
    uint32_t attr_lines_left;
    uint64_t attr_addr;      /* next Parameter Buffer attribute byte */
    uint64_t attr_line_open; /* write-combining: line being filled (+1, 0 = none) */
    param_buffer pb;         /* its output: the tile lists and attribute offsets */
    int port;
    uint64_t progress;   /* events that moved work forward (deadlock watchdog) */
    uint64_t pass_bytes; /* Parameter Buffer bytes written in this pass (buffer capacity, gpu.c) */
    tbr_stat *busy, *stall, *idle, *bins, *culled, *pb_bytes;
} plb_unit;

/* -1 with err (no memory port left) */
int plb_init(plb_unit *p, sim_env *env, char *err, size_t errlen);
void plb_connect(plb_unit *p, sim_queue *in, bool (*upstream_done)(const void *ctx), const void *upstream);
void plb_free(plb_unit *p);
void plb_begin_pass(plb_unit *p);
/* No primitive in flight, empty lists (gpu_reset). */
void plb_reset(plb_unit *p);
void plb_tick(plb_unit *p);
bool plb_done(const plb_unit *p);
uint64_t plb_next_event(const plb_unit *p);

#endif
