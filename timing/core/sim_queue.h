/* Bounded in-order FIFO of 32-bit tokens (primitive / quad / tile ids) between pipeline
 * units of tbr-sim: the explicit queues of thesis Table 4.1 (tile queue, post-raster
 * queue, pre-fragment queues, color queue). A producer that finds it full stalls and
 * counts the stall; occupancy is sampled every cycle by the owner. Memory requests use
 * tbr_memq (memq.h) instead. */
#ifndef TBR_SIM_QUEUE_H
#define TBR_SIM_QUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"

typedef struct {
    uint32_t *buf;
    uint64_t *ready; /* cycle from which the consumer may take the entry */
    uint32_t cap, head, count;
    uint64_t *en_push, *en_pop; /* energy event counters (energy.h handle), NULL = not counted */
} sim_queue;

static inline void simq_init(sim_queue *q, uint32_t cap)
{
    q->buf = tbr_xcalloc(cap ? cap : 1, sizeof *q->buf);
    q->ready = tbr_xcalloc(cap ? cap : 1, sizeof *q->ready);
    q->cap = cap ? cap : 1;
    q->head = q->count = 0;
    q->en_push = q->en_pop = NULL;
}
static inline void simq_free(sim_queue *q)
{
    free(q->buf);
    free(q->ready);
    q->buf = NULL;
    q->ready = NULL;
}
/* Empty again (gpu_reset); capacity and energy counters stay. */
static inline void simq_reset(sim_queue *q) { q->head = q->count = 0; }
static inline bool simq_full(const sim_queue *q) { return q->count == q->cap; }
static inline bool simq_empty(const sim_queue *q) { return q->count == 0; }
static inline bool simq_push(sim_queue *q, uint32_t v, uint64_t ready)
{
    if (q->count == q->cap) return false;
    uint32_t i = q->head + q->count;
    if (i >= q->cap) i -= q->cap;
    q->buf[i] = v;
    q->ready[i] = ready;
    q->count++;
    if (q->en_push) (*q->en_push)++;
    return true;
}
/* Head visible at cycle now? */
static inline bool simq_peek(const sim_queue *q, uint64_t now, uint32_t *v)
{
    if (!q->count || q->ready[q->head] > now) return false;
    *v = q->buf[q->head];
    return true;
}
/* Cycle the head becomes visible (UINT64_MAX when empty): the queue's next event for its
 * consumer (idle-cycle skipping, docs/timing-model.md "Skipping quiescent cycles"). */
static inline uint64_t simq_head_ready(const sim_queue *q) { return q->count ? q->ready[q->head] : UINT64_MAX; }
static inline void simq_pop(sim_queue *q)
{
    q->head = q->head + 1 == q->cap ? 0 : q->head + 1;
    q->count--;
    if (q->en_pop) (*q->en_pop)++;
}

#endif
