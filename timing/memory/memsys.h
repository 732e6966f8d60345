/* Memory system of tbr-sim: the shared L2 cache (cache.h) in front of the LPDDR4 DRAM
 * (dram.h), and the interconnect that connects the GPU's memory clients to the L2
 * (thesis Table 4.1, §4.2). Each client is a port: either an L1 cache (vertex cache,
 * tile cache: its miss_out/fill_in queues) or a unit that accesses memory directly
 * (Polygon List Builder writes, tile buffer loads/stores). The arbiter forwards one
 * request per port per cycle, round robin, stamps the port number into `src`, and routes
 * L2 responses back by it; statistics are kept per port ("by source").
 */
#ifndef TBR_SIM_MEMSYS_H
#define TBR_SIM_MEMSYS_H

#include <stdbool.h>
#include <stdint.h>

#include "memory/cache.h"
#include "core/config.h"
#include "memory/dram.h"
#include "energy/energy.h"
#include "memory/memq.h"
#include "core/stats.h"

#define MEMSYS_MAX_PORTS 160

typedef struct memsys memsys;

memsys *memsys_new(const tbr_config *cfg, tbr_stats *st, char *err, size_t errlen);
void memsys_free(memsys *m);
/* Back to its state after construction and wiring: L2 and DRAM empty, no request queued,
 * the arbiter at its first port (gpu_reset). */
void memsys_reset(memsys *m);
/* Port for an upper-level cache: reads its miss_out, writes its fill_in. */
/* The memsys_add_* functions return the port's index, or -1 when every port is taken
 * (memsys_port_error writes the message and returns -1). */
int memsys_port_error(const char *name, char *err, size_t errlen);
int memsys_add_cache_port(memsys *m, const char *name, tbr_cache *c);
/* Port with queues owned by the memory system: the client pushes requests into
 * memsys_req(m, port) and pops responses from memsys_resp(m, port) (full-line
 * write-backs, wb = 1, get none). */
int memsys_add_port(memsys *m, const char *name, uint32_t qcap);
/* Like memsys_add_cache_port, but arbitrated after the other ports in a rotation of its
 * own (texture and instruction caches): with these idle the arbitration of the other
 * ports is exactly what it was without them. */
int memsys_add_aux_cache_port(memsys *m, const char *name, tbr_cache *c);
/* Like memsys_add_port, but in no rotation: served after the aux ports every cycle, so
 * while it is idle the arbitration of every other port is exactly what it was without
 * it (vertex texture fetches from the L2). At most one; returns -1 for a second. */
int memsys_add_late_port(memsys *m, const char *name, uint32_t qcap);
tbr_memq *memsys_req(memsys *m, int port);
tbr_memq *memsys_resp(memsys *m, int port);
void memsys_tick(memsys *m, uint64_t now);
/* Idle-cycle skipping (docs/timing-model.md "Skipping quiescent cycles"):
 * memsys_next_event = the earliest cycle >= now at which the arbiter, the L2 or the
 * DRAM crossing could move a message (as far as the GPU side knows at now; UINT64_MAX:
 * none). memsys_tick_n simulates the quiescent cycles [now, now + *n): the DRAM runs
 * cycle by cycle on its own clock, and *n is cut short at the first cycle at which the
 * GPU side would see a change coming from it (a response becoming visible, room in the
 * GPU->DRAM FIFO for a waiting request, the DRAM becoming idle). Call it before the
 * other units' ticks, which then simulate the (possibly shortened) *n cycles. */
uint64_t memsys_next_event(const memsys *m, uint64_t now);
void memsys_tick_n(memsys *m, uint64_t now, uint64_t *n);
bool memsys_idle(const memsys *m);
tbr_cache *memsys_l2(memsys *m);
tbr_dram *memsys_dram(memsys *m);
void memsys_register_stats(memsys *m, tbr_stats *st);
/* Energy accounting (docs/energy-model.md): `noc` is charged one hop per flit of
 * `flit_bits` crossing the port arbiter <-> L2 interconnect (a request's header flit, plus
 * line/flit data flits for writes and read responses); every request sent to the DRAM is
 * tagged with the source `classify(addr, write)` returns. */
void memsys_set_energy(memsys *m, tbr_energy *e, tbr_energy_unit *noc, uint32_t flit_bits,
                       tbr_dram_source (*classify)(uint64_t addr, bool write));
/* Splits the render-target DRAM bytes (sources color_flush and tile_loads) into
 * dram.surface_bytes.color / .depth: is_depth(ctx, addr) says whether the line is in a
 * depth/stencil surface (call after memsys_set_energy). */
void memsys_set_plane_classifier(memsys *m, bool (*is_depth)(void *ctx, uint64_t addr), void *ctx);

#endif
