/* Affinity Table of DTM-NUCA (see affinity_table.h; seeds/003 sec. III, IV). */
#include "texture/affinity_table.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

int at_init(affinity_table *t, uint32_t nodes, uint32_t buckets, uint32_t page_blocks, uint32_t counter_bits,
            uint32_t hysteresis_pct, uint64_t epoch_accesses, bool distributed, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (!nodes || !buckets || !page_blocks || !epoch_accesses || counter_bits < 1 || counter_bits > 16) {
        tbr_set_err(err, errlen,
                    "affinity table: nodes, buckets, page_blocks, epoch_accesses must be >= 1 and "
                    "counter_bits 1..16");
        return -1;
    }
    t->nodes = nodes;
    t->buckets = buckets;
    t->page_blocks = page_blocks;
    t->hysteresis_pct = hysteresis_pct;
    t->counter_max = (uint16_t)((1u << counter_bits) - 1);
    t->epoch_accesses = epoch_accesses;
    t->distributed = distributed;
    t->count = tbr_xcalloc((size_t)buckets * nodes, sizeof *t->count);
    size_t views = distributed ? (size_t)nodes * buckets : buckets;
    t->owner = tbr_xcalloc(views, sizeof *t->owner);
    if (distributed) {
        t->next = tbr_xcalloc(views, sizeof *t->next);
        t->next_at = tbr_xcalloc(views, sizeof *t->next_at);
        for (size_t i = 0; i < views; i++) { /* sec. IV-B: initially every node owns every bucket */
            t->owner[i] = t->next[i] = (int32_t)(i / buckets);
            t->next_at[i] = UINT64_MAX;
        }
    } else {
        for (size_t i = 0; i < views; i++) t->owner[i] = -1;
    }
    return 0;
}

void at_free(affinity_table *t)
{
    free(t->count);
    free(t->owner);
    free(t->next);
    free(t->next_at);
    memset(t, 0, sizeof *t);
}

uint32_t at_bucket(const affinity_table *t, uint64_t line) { return (uint32_t)((line / t->page_blocks) % t->buckets); }

uint32_t at_owner(const affinity_table *t, uint32_t node, uint64_t line, uint64_t now)
{
    uint32_t b = at_bucket(t, line);
    if (t->distributed) {
        size_t v = (size_t)node * t->buckets + b;
        return (uint32_t)(now >= t->next_at[v] ? t->next[v] : t->owner[v]);
    }
    return t->owner[b] < 0 ? node : (uint32_t)t->owner[b];
}

/* The node with the largest counter of bucket b (-1 when all are 0); a tie keeps `keep` when it
 * is among the largest, else the lowest node number. */
static int32_t largest(const affinity_table *t, uint32_t b, int32_t keep)
{
    const uint16_t *c = &t->count[(size_t)b * t->nodes];
    int32_t best = -1;
    for (uint32_t n = 0; n < t->nodes; n++)
        if (c[n] && (best < 0 || c[n] > c[best])) best = (int32_t)n;
    if (best >= 0 && keep >= 0 && c[keep] == c[best]) best = keep;
    return best;
}

static void run_epoch(affinity_table *t, uint64_t now, uint64_t (*delay)(const void *, uint32_t, uint32_t),
                      const void *ctx)
{
    for (uint32_t b = 0; b < t->buckets; b++) {
        if (t->distributed) {
            int32_t w = largest(t, b, -1);
            if (w >= 0)
                for (uint32_t j = 0; j < t->nodes; j++) {
                    size_t v = (size_t)j * t->buckets + b;
                    if (now >= t->next_at[v]) t->owner[v] = t->next[v]; /* the previous sync has landed */
                    t->next[v] = w;
                    t->next_at[v] = now + (delay ? delay(ctx, (uint32_t)w, j) : 0);
                    if (t->owner[v] != w) t->changes++;
                }
        } else {
            int32_t w = largest(t, b, t->owner[b]);
            if (w >= 0 && w != t->owner[b]) {
                t->owner[b] = w;
                t->changes++;
            }
        }
        memset(&t->count[(size_t)b * t->nodes], 0, t->nodes * sizeof *t->count);
    }
    t->in_epoch = 0;
    t->epochs++;
}

/* Node n's counter of bucket b saturated: sec. III-B's reset event. */
static void saturate(affinity_table *t, uint32_t b, uint32_t n)
{
    uint16_t *c = &t->count[(size_t)b * t->nodes];
    t->saturations++;
    if (!t->distributed) {
        int32_t o = t->owner[b];
        uint64_t margin = o < 0 ? 0 : (uint64_t)c[o] + (uint64_t)c[o] * t->hysteresis_pct / 100;
        if (o != (int32_t)n && c[n] > margin) {
            t->owner[b] = (int32_t)n;
            t->changes++;
        }
    }
    for (uint32_t k = 0; k < t->nodes; k++) c[k] >>= 1;
}

uint32_t at_access(affinity_table *t, uint32_t node, uint64_t line, uint64_t now, bool *epoch_ended,
                   uint64_t (*delay)(const void *ctx, uint32_t from, uint32_t to), const void *ctx)
{
    uint32_t b = at_bucket(t, line);
    uint32_t used = at_owner(t, node, line, now);
    if (!t->distributed && t->owner[b] < 0) t->owner[b] = (int32_t)node; /* first accessor owns it */
    uint16_t *c = &t->count[(size_t)b * t->nodes + node];
    if (*c < t->counter_max) ++*c;
    if (*c == t->counter_max) saturate(t, b, node);
    *epoch_ended = ++t->in_epoch >= t->epoch_accesses;
    if (*epoch_ended) run_epoch(t, now, delay, ctx);
    return used;
}

uint64_t at_bits(const affinity_table *t)
{
    uint32_t owner_bits = 0;
    while ((1u << owner_bits) < t->nodes) owner_bits++;
    uint32_t counter_bits = 0;
    while ((1u << counter_bits) <= t->counter_max) counter_bits++;
    return (uint64_t)t->buckets * ((uint64_t)t->nodes * counter_bits + owner_bits);
}
