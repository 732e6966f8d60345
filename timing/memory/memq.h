/* Memory messages and the bounded FIFO queues that connect memory-hierarchy
 * units (project rule: explicit queues between units).
 *
 * A queue is in-order: a message becomes visible to the consumer at its
 * `ready` cycle, and a message that is not ready yet blocks the ones behind
 * it (a pipelined link, not a reorder buffer). Capacity is fixed; a
 * producer that finds it full must stall and count the stall.
 */
#ifndef TBR_TIMING_MEMQ_H
#define TBR_TIMING_MEMQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t addr;   /* byte address */
    uint64_t id;     /* requester's tag, returned unchanged in the response */
    uint64_t issued; /* cycle the original request was created (latency stats) */
    uint64_t ready;  /* cycle from which the consumer may take it */
    uint32_t src;    /* requester port / unit index */
    uint8_t write;   /* 1 = write */
    uint8_t wb;      /* 1 = full-line write-back from an upper cache: no response */
    uint8_t hit;     /* response only: 1 if it hit in the responding cache */
    uint8_t pad;
} tbr_mem_msg;

typedef struct {
    uint64_t head_ready; /* buf[head].ready, UINT64_MAX when empty: the consumers poll their
                        * queues every cycle, and this answers "anything visible?" from the
                        * queue struct alone (kept by push and pop; messages are not changed
                        * in place) */
    tbr_mem_msg *buf;
    uint64_t *wake; /* optional: the consumer's "earliest head_ready over my queues", lowered
                   * when a push makes this queue's head visible at an earlier cycle (the
                   * memory arbiter reads one word instead of polling every port queue) */
    uint32_t cap, head, count;
} tbr_memq;

void tbr_memq_init(tbr_memq *q, uint32_t capacity);
void tbr_memq_free(tbr_memq *q);
/* Empty again, as after tbr_memq_init (the wake pointer stays: it is wiring). */
void tbr_memq_reset(tbr_memq *q);

static inline bool tbr_memq_full(const tbr_memq *q) { return q->count == q->cap; }
static inline bool tbr_memq_empty(const tbr_memq *q) { return q->count == 0; }
static inline uint32_t tbr_memq_space(const tbr_memq *q) { return q->cap - q->count; }

/* Returns false (and does nothing) when full. */
static inline bool tbr_memq_push(tbr_memq *q, const tbr_mem_msg *m)
{
    if (q->count == q->cap) return false;
    uint32_t i = q->head + q->count;
    if (i >= q->cap) i -= q->cap;
    q->buf[i] = *m;
    if (q->count++ == 0) {
        q->head_ready = m->ready;
        if (q->wake && m->ready < *q->wake) *q->wake = m->ready;
    }
    return true;
}
/* Head message if it is ready at `now`, else NULL. */
static inline const tbr_mem_msg *tbr_memq_peek(const tbr_memq *q, uint64_t now)
{
    return q->head_ready <= now ? &q->buf[q->head] : NULL;
}
/* Cycle the head becomes visible (UINT64_MAX when empty). */
static inline uint64_t tbr_memq_head_ready(const tbr_memq *q) { return q->head_ready; }
/* Remove the head (call after a successful peek). */
static inline void tbr_memq_pop(tbr_memq *q)
{
    if (q->count == 0) return;
    q->head = q->head + 1 == q->cap ? 0 : q->head + 1;
    q->head_ready = --q->count ? q->buf[q->head].ready : UINT64_MAX;
}

#endif
