/* LPDDR4-style DRAM timing model with its memory controller
 * (thesis §4.2 / Table 4.1: dual-channel LPDDR4 at 1.2 GHz; details and the
 * sources of every default in docs/dram-model.md).
 *
 * Structure: channels x ranks x bank groups x banks x rows x columns,
 * open-page row buffers, one command per channel per DRAM cycle, one data
 * bus per channel. Each channel has its own request queue and scheduler
 * (FR-FCFS or FCFS), honours tRCD, CL, CWL, tRP, tRAS, tRRD, tFAW, tWR,
 * tWTR, tRTP, tCCD, bus turnaround, and refreshes each rank every tREFI
 * (all-bank REF, busy for tRFC). Commands are counted (ACT, PRE, RD, WR,
 * REF) for the energy model.
 *
 * Two interfaces:
 *  - DRAM clock: tbr_dram_enqueue() at the current DRAM cycle, tbr_dram_tick()
 *    simulates that cycle, tbr_dram_pop_response() returns completed
 *    requests whose ready cycle (in DRAM cycles) has been simulated.
 *  - GPU clock: tbr_dram_gpu_send / tbr_dram_gpu_advance / tbr_dram_gpu_recv
 *    cross the clock domains through two asynchronous FIFOs with integer
 *    edge arithmetic (no floating point; deterministic). See dram-model.md.
 *
 * Latency of a read that finds an idle channel (DRAM cycles, from enqueue to
 * response; B = request_bytes / (bus_width/8 * BL) bursts per request):
 *   row hit     CL + tCCD*(B-1) + BL/2 + ctrl_latency
 *   closed bank tRCD + (row hit)
 *   conflict    tRP + tRCD + (row hit)      (once tRAS/tRTP/tWR have elapsed)
 */
#ifndef TBR_TIMING_DRAM_H
#define TBR_TIMING_DRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "memory/memq.h"
#include "core/stats.h"

typedef struct {
    uint32_t ch, rank, bg, bank; /* bank: flat index within the rank (bg * banks_per_group + ba) */
    uint32_t row, col;           /* col: first column of the request */
} tbr_dram_coord;

typedef struct {
    uint64_t act, pre, rd, wr, ref;
    uint64_t reads, writes, row_hits, row_misses, row_conflicts;
    uint64_t bytes;
} tbr_dram_counts;

typedef struct tbr_dram tbr_dram;

/* Reads the dram.* parameters (and gpu.clock_mhz) from a validated config. */
tbr_dram *tbr_dram_new(const tbr_config *cfg, tbr_stats *stats, char *err, size_t errlen);
void tbr_dram_free(tbr_dram *d);
/* Back to the state tbr_dram_new gave it: no request, banks precharged, cycle 0 (gpu_reset). */
void tbr_dram_reset(tbr_dram *d);

void tbr_dram_decode(const tbr_dram *d, uint64_t addr, tbr_dram_coord *out);

/* ---- DRAM-clock interface ---- */
uint64_t tbr_dram_now(const tbr_dram *d); /* the DRAM cycle simulated by the next tick */
/* Would a request of that direction for addr be accepted now (room in its channel's
 * queue, or in its read queue / write buffer with the split controller)? */
bool tbr_dram_can_accept(const tbr_dram *d, uint64_t addr, bool write);
/* Enqueue at the current cycle; false if the channel queue is full. The
 * message's id/src/issued are returned unchanged in the response. */
bool tbr_dram_enqueue(tbr_dram *d, const tbr_mem_msg *m);
void tbr_dram_tick(tbr_dram *d);
/* A completed request (reads and writes) whose ready cycle has been
 * simulated; out->ready is the DRAM cycle of completion. */
bool tbr_dram_pop_response(tbr_dram *d, tbr_mem_msg *out);
/* Simulates the DRAM cycles up to target (now = target after), as tbr_dram_tick would,
 * without stepping cycles in which nothing can happen; the REFs of an idle channel are
 * applied in closed form. Responses stay queued for tbr_dram_pop_response. */
void tbr_dram_skip_to(tbr_dram *d, uint64_t target);
bool tbr_dram_idle(const tbr_dram *d);
/* Test hook: schedule every cycle with a plain scan of the whole queue in arrival order
 * (the FR-FCFS / FCFS definition) instead of the per-bank candidates and the wake-up
 * cycle. Both give the same commands at the same cycles (test timing.dram). */
void tbr_dram_set_reference_scan(tbr_dram *d, bool on);

/* ---- GPU-clock interface (clock-domain crossing) ---- */
/* Write a request into the GPU->DRAM FIFO at GPU cycle g; false if full. */
bool tbr_dram_gpu_send(tbr_dram *d, const tbr_mem_msg *m, uint64_t g);
/* Simulate every DRAM cycle that starts before the end of GPU cycle g. */
void tbr_dram_gpu_advance(tbr_dram *d, uint64_t g);
/* A response visible in the GPU domain at cycle g (out->ready in GPU cycles). */
bool tbr_dram_gpu_recv(tbr_dram *d, uint64_t g, tbr_mem_msg *out);
/* What the GPU side can observe of the crossing (idle-cycle skipping in memsys.c): the
 * GPU cycle the oldest response becomes visible (UINT64_MAX: none), and whether the
 * GPU->DRAM FIFO is full (tbr_dram_gpu_send would fail). */
uint64_t tbr_dram_gpu_resp_ready(const tbr_dram *d);
bool tbr_dram_gpu_req_full(const tbr_dram *d);
/* First DRAM edge at or after GPU edge g, and vice versa. */
uint64_t tbr_dram_gpu_to_dram_edge(const tbr_dram *d, uint64_t g);
uint64_t tbr_dram_dram_to_gpu_edge(const tbr_dram *d, uint64_t dc);

/* ---- results ---- */
void tbr_dram_get_counts(const tbr_dram *d, tbr_dram_counts *out);
/* Peak data bytes per DRAM cycle over all channels (2 beats per tCK). */
double tbr_dram_peak_bytes_per_cycle(const tbr_dram *d);
uint32_t tbr_dram_bursts_per_request(const tbr_dram *d);
/* Rank residency for the energy model, cumulative DRAM cycles summed over all ranks of
 * all channels up to tbr_dram_now(): `active` = cycles with at least one bank open
 * (active standby; from the ACT that opened the first bank to the PRE that closed the
 * last), `precharged` = the rest (precharge standby; refresh cycles included, the
 * energy model charges refresh as an excess over standby). No power-down states. */
void tbr_dram_rank_cycles(const tbr_dram *d, uint64_t *active, uint64_t *precharged);
/* Cycle of the most recent REF on (channel, rank), UINT64_MAX if none. */
uint64_t tbr_dram_last_refresh(const tbr_dram *d, uint32_t ch, uint32_t rank);

#endif
