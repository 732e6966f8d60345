/* Bounded in-order message queue (see memq.h). */
#include "memq.h"

#include <stdio.h>
#include <stdlib.h>

void tbr_memq_init(tbr_memq *q, uint32_t capacity) {
  q->cap = capacity ? capacity : 1;
  q->head = q->count = 0;
  q->buf = calloc(q->cap, sizeof *q->buf);
  if (!q->buf) {
    fprintf(stderr, "tbr memq: out of memory\n");
    abort();
  }
}

void tbr_memq_free(tbr_memq *q) {
  free(q->buf);
  q->buf = NULL;
  q->cap = q->count = q->head = 0;
}

bool tbr_memq_push(tbr_memq *q, const tbr_mem_msg *m) {
  if (q->count == q->cap) return false;
  q->buf[(q->head + q->count) % q->cap] = *m;
  q->count++;
  return true;
}

const tbr_mem_msg *tbr_memq_peek(const tbr_memq *q, uint64_t now) {
  if (q->count == 0) return NULL;
  const tbr_mem_msg *m = &q->buf[q->head];
  return m->ready <= now ? m : NULL;
}

void tbr_memq_pop(tbr_memq *q) {
  if (q->count == 0) return;
  q->head = (q->head + 1) % q->cap;
  q->count--;
}
