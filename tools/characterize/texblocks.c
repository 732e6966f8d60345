/* Texture-block sharing statistics (see texblocks.h). Accesses are kept as
 * (block, tile, processor) triples, deduplicated by sorting whenever the
 * array doubles, so memory is bounded by the distinct triples of a frame. */
#include "texblocks.h"

#include <stdlib.h>
#include <string.h>

typedef struct triple {
    uint64_t block, tile;
    uint32_t proc;
} triple;

struct texblocks {
    unsigned n;
    triple *v;
    size_t len, cap, compact_at;
    uint64_t accesses;
};

texblocks *texblocks_new(unsigned processors)
{
    if (processors < 1 || processors > TEXBLOCKS_MAX_PROCS) return NULL;
    texblocks *t = calloc(1, sizeof *t);
    if (t) {
        t->n = processors;
        t->compact_at = 1024;
    }
    return t;
}

void texblocks_free(texblocks *t)
{
    if (t) {
        free(t->v);
        free(t);
    }
}

static int cmp_triple(const void *a, const void *b)
{
    const triple *x = a, *y = b;
    if (x->block != y->block) return x->block < y->block ? -1 : 1;
    if (x->tile != y->tile) return x->tile < y->tile ? -1 : 1;
    return x->proc < y->proc ? -1 : x->proc > y->proc;
}

static void compact(texblocks *t)
{
    if (t->len < 2) return;
    qsort(t->v, t->len, sizeof *t->v, cmp_triple);
    size_t o = 1;
    for (size_t i = 1; i < t->len; i++)
        if (cmp_triple(&t->v[i], &t->v[o - 1]) != 0) t->v[o++] = t->v[i];
    t->len = o;
}

int texblocks_add(texblocks *t, uint64_t tile, unsigned processor, uint64_t block)
{
    if (processor >= t->n) return -1;
    if (t->len == t->cap) {
        if (t->len >= t->compact_at) {
            compact(t);
            if (t->len * 2 > t->compact_at) t->compact_at = t->len * 2;
        }
        if (t->len == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 1024;
            triple *nv = realloc(t->v, cap * sizeof *nv);
            if (!nv) return -1;
            t->v = nv;
            t->cap = cap;
        }
    }
    t->v[t->len++] = (triple){block, tile, processor};
    t->accesses++;
    return 0;
}

int texblocks_finish_frame(texblocks *t, texblocks_result *acc)
{
    compact(t);
    acc->accesses += t->accesses;
    size_t i = 0;
    while (i < t->len) {
        size_t j = i;
        uint64_t procs = 0;
        uint64_t min_dist = UINT64_MAX, prev_tile = 0;
        int have_prev = 0;
        while (j < t->len && t->v[j].block == t->v[i].block) {
            procs |= (uint64_t)1 << t->v[j].proc;
            if (have_prev && t->v[j].tile != prev_tile && t->v[j].tile - prev_tile < min_dist)
                min_dist = t->v[j].tile - prev_tile; /* sorted by tile: adjacent = closest */
            prev_tile = t->v[j].tile;
            have_prev = 1;
            j++;
        }
        acc->blocks++;
        if (min_dist == 1)
            acc->shared_d1++;
        else if (min_dist == 2)
            acc->shared_d2++;
        else if (min_dist != UINT64_MAX)
            acc->shared_far++;
        else
            acc->private_blocks++;
        unsigned k = 0;
        for (; procs; procs &= procs - 1) k++;
        acc->replication[k]++;
        i = j;
    }
    t->len = 0;
    t->accesses = 0;
    t->compact_at = 1024;
    return 0;
}

unsigned texblocks_map(enum texblocks_mapping m, unsigned n, unsigned qx, unsigned qy, unsigned qw, unsigned qh)
{
    if (n == 0 || qw == 0 || qh == 0) return 0;
    switch (m) {
        case TEXBLOCKS_MAP_STRIPS: return (unsigned)(((uint64_t)qx * n) / qw) % n;
        case TEXBLOCKS_MAP_QUADRANT: return ((qx * 2 >= qw) ? 1u : 0u) + ((qy * 2 >= qh) ? 2u : 0u);
        case TEXBLOCKS_MAP_RR:
        default: return (unsigned)(((uint64_t)qy * qw + qx) % n);
    }
}
