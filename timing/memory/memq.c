/* Bounded in-order message queue (see memq.h). */
#include "memory/memq.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>

void tbr_memq_init(tbr_memq *q, uint32_t capacity)
{
    q->cap = capacity ? capacity : 1;
    q->head = q->count = 0;
    q->head_ready = UINT64_MAX;
    q->wake = NULL;
    q->buf = tbr_xcalloc(q->cap, sizeof *q->buf);
}

void tbr_memq_reset(tbr_memq *q)
{
    q->head = q->count = 0;
    q->head_ready = UINT64_MAX;
}

void tbr_memq_free(tbr_memq *q)
{
    free(q->buf);
    q->buf = NULL;
    q->cap = q->count = q->head = 0;
    q->head_ready = UINT64_MAX;
}
