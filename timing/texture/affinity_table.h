/* Affinity Table of DTM-NUCA (seeds/003 sec. III-A Fig. 3/4, sec. III-B, sec. IV).
 *
 * Texture blocks (cache lines) are grouped into pages of `page_blocks` consecutive blocks and
 * pages into `buckets` buckets (page p -> bucket p mod buckets, Fig. 3). One entry per bucket
 * holds a `counter_bits` saturating access counter per node (Fragment Processor + its Texture
 * Cache) and the bucket's current owner (Fig. 4).
 *
 * Centralized table (sec. III-B, IV-A): every texture access of node p to bucket b reads the
 * owner and increments p's counter. The first node to access a bucket owns it. When p's counter
 * saturates, p takes the ownership if its counter exceeds the owner's by more than
 * `hysteresis_pct` percent (the anti ping-pong margin; the paper gives no value), then every
 * counter of the bucket is halved. Every `epoch_accesses` accesses the owner of every accessed
 * bucket becomes the node with the largest counter (a tie keeps the owner if it is among the
 * largest, else the lowest node number) and all counters reset to 0.
 *
 * Distributed table (sec. IV-B): each node has its own copy, counting only its own accesses;
 * initially every node owns every bucket. At each epoch the copies are synchronised by
 * broadcast: the new owner of a bucket is the node with the largest counter (ties: lowest node
 * number), visible at node j `delay(owner, j)` cycles later (the broadcast crosses the mesh
 * while the nodes keep working); buckets nobody accessed keep their owners. Counters saturate
 * and are halved like the centralized ones but do not move the ownership between epochs (our
 * reading: a copy knows only its own counter). docs/techniques.md "DTM-NUCA".
 */
#ifndef TBR_AFFINITY_TABLE_H
#define TBR_AFFINITY_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t nodes, buckets, page_blocks, hysteresis_pct;
    uint16_t counter_max;
    uint64_t epoch_accesses;
    bool distributed;
    uint16_t *count; /* buckets x nodes: count[b * nodes + n] */
    int32_t *owner;  /* centralized: per bucket (-1: none yet); distributed: per node x bucket view */
    int32_t *next;   /* distributed: the synchronised owner each view takes at next_at */
    uint64_t *next_at;
    uint64_t in_epoch; /* accesses since the last epoch */
    uint64_t epochs, changes, saturations;
} affinity_table;

/* -1 with a message on an invalid geometry (0 nodes/buckets/page, counter_bits not 1..16). */
int at_init(affinity_table *t, uint32_t nodes, uint32_t buckets, uint32_t page_blocks, uint32_t counter_bits,
            uint32_t hysteresis_pct, uint64_t epoch_accesses, bool distributed, char *err, size_t errlen);
void at_free(affinity_table *t);

/* Bucket of a cache line number (block address): (line / page_blocks) mod buckets. */
uint32_t at_bucket(const affinity_table *t, uint64_t line);
/* The owner node `node` sees for `line` at cycle `now` (no side effects; a bucket with no owner
 * yet answers `node`: the first accessor will take it). */
uint32_t at_owner(const affinity_table *t, uint32_t node, uint64_t line, uint64_t now);
/* One access of `node` to `line` at `now`: returns the owner the access used (at_owner before
 * the update), updates the counters and ownership. An access that completes an epoch runs it
 * (*epoch_ended = true); delay(ctx, from, to) gives the distributed broadcast's latency. */
uint32_t at_access(affinity_table *t, uint32_t node, uint64_t line, uint64_t now, bool *epoch_ended,
                   uint64_t (*delay)(const void *ctx, uint32_t from, uint32_t to), const void *ctx);
/* Storage bits of one table copy: buckets x (nodes x counter_bits + owner bits). */
uint64_t at_bits(const affinity_table *t);

#endif
