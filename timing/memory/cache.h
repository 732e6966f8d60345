/* Set-associative cache model (one instance per hardware cache: vertex,
 * tile, texture, instruction, L2; thesis Table 4.1).
 *
 * Organisation: sets x ways, LRU replacement, `banks` banks selected by the
 * low bits of the set index (one access per bank per cycle), a fixed hit
 * latency, and MSHRs that merge later misses to a line already being
 * fetched (one request to the next level per missing line).
 *
 * Policy: write-back, write-allocate. A write miss fetches the line like a
 * read and marks it dirty on fill; a dirty victim is written back to the
 * next level as a full-line write (wb = 1, no response expected). A write
 * with wb = 1 (an upper cache's write-back) that misses allocates the line
 * without fetching it, because it overwrites the whole line.
 *
 * Interface (tick-driven, explicit queues; see memq.h):
 *   req_in   <- requests from the level above (or a processor)
 *   resp_out -> responses to the level above (one per request, except wb)
 *   miss_out -> line fetches and write-backs to the next level
 *   fill_in  <- responses from the next level (write acks are dropped)
 * The owner moves messages between queues of connected units and calls
 * tbr_cache_tick() once per cycle with a non-decreasing cycle number.
 * Responses keep the request's id/src/issued; miss_out messages carry src 0
 * (an interconnect shared by several caches stamps its port number in src
 * and routes the fill back by it). Fills are matched to MSHRs by address.
 *
 * Timing of one request taken from req_in at cycle t:
 *   hit          : response ready at t + latency
 *   primary miss : fetch ready in miss_out at t + latency (tag check first);
 *                  on the fill taken at cycle f every merged requester gets
 *                  its response ready at f + 1 (fill-to-forward cycle)
 *   merged miss  : response with the primary's fill
 * Per cycle: at most one fill is processed (one fill port), then up to
 * `banks` requests in order; processing stops at the first request that
 * cannot proceed (bank conflict, MSHRs full, MSHR targets full, output
 * queue full), and that cycle is counted as a stall of the given kind.
 */
#ifndef TBR_TIMING_CACHE_H
#define TBR_TIMING_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "memory/memq.h"
#include "core/stats.h"

typedef struct {
    const char *name; /* stat prefix, e.g. "l2" or "texture_cache.0" */
    uint64_t size_bytes;
    uint32_t ways, line_bytes, banks, latency;
    uint32_t mshrs, mshr_targets;
    uint32_t req_queue, resp_queue, miss_queue, fill_queue; /* queue capacities */
} tbr_cache_params;

typedef struct tbr_cache tbr_cache;

/* Fill params from the config parameters "<prefix>.size_kb" etc.; queue
 * capacities default to 16. `name` is the stat prefix (kept by pointer). */
void tbr_cache_params_from_config(const tbr_config *cfg, const char *prefix, const char *name, tbr_cache_params *p);

/* NULL with a message in err when the geometry is invalid. */
tbr_cache *tbr_cache_new(const tbr_cache_params *p, tbr_stats *stats, char *err, size_t errlen);
void tbr_cache_free(tbr_cache *c);
/* Empty (no valid line, MSHR or queued message), as tbr_cache_new made it (gpu_reset). */
void tbr_cache_reset(tbr_cache *c);

tbr_memq *tbr_cache_req_in(tbr_cache *c);
tbr_memq *tbr_cache_resp_out(tbr_cache *c);
tbr_memq *tbr_cache_miss_out(tbr_cache *c);
tbr_memq *tbr_cache_fill_in(tbr_cache *c);

void tbr_cache_tick(tbr_cache *c, uint64_t now);
/* Idle-cycle skipping (docs/timing-model.md "Skipping quiescent cycles"):
 * tbr_cache_next_event = the earliest cycle >= now at which a tick could change the
 * cache's state, assuming its queues are not changed by others meanwhile (UINT64_MAX:
 * none; a blocked request head waits for another unit). tbr_cache_tick_n simulates the
 * n cycles [now, now + n); n > 1 only when they are all quiescent (its stall counters
 * count every one of them). */
uint64_t tbr_cache_next_event(const tbr_cache *c, uint64_t now);
void tbr_cache_tick_n(tbr_cache *c, uint64_t now, uint64_t n);

/* Inspection (tests, debugging). */
bool tbr_cache_contains(const tbr_cache *c, uint64_t addr, bool *dirty);
/* Calls fn(ctx, line address) for every dirty line; returns their count. */
uint64_t tbr_cache_for_each_dirty(const tbr_cache *c, void (*fn)(void *ctx, uint64_t addr), void *ctx);
/* Count of lines installed so far: the set of present lines changes only when it does,
 * so a tbr_cache_contains answer stays valid while this is unchanged. */
const uint64_t *tbr_cache_installs(const tbr_cache *c);
uint32_t tbr_cache_mshrs_used(const tbr_cache *c);
uint32_t tbr_cache_sets(const tbr_cache *c);
/* No queued work and no outstanding miss. */
bool tbr_cache_idle(const tbr_cache *c);

#endif
