#include "idset.h"

#include <string.h>

static uint32_t hash_id(uint32_t id)
{
    id ^= id >> 16;
    id *= 0x7feb352dU;
    id ^= id >> 15;
    id *= 0x846ca68bU;
    id ^= id >> 16;
    return id;
}

int tbr_idset_has(const tbr_idset *s, uint32_t id)
{
    if (!s->cap) return 0;
    for (uint32_t i = hash_id(id) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->ids[i] == 0) return 0;
        if (s->ids[i] == id) return s->gens[i] == s->gen;
    }
}

static int grow(tbr_idset *s)
{
    uint32_t ncap = s->cap ? s->cap * 2 : 64;
    uint32_t *ids = calloc(ncap, sizeof(*ids));
    uint32_t *gens = calloc(ncap, sizeof(*gens));
    if (!ids || !gens) {
        free(ids);
        free(gens);
        return -1;
    }
    uint32_t used = 0;
    for (uint32_t i = 0; i < s->cap; i++) {
        if (!s->ids[i] || s->gens[i] != s->gen) continue; /* drop stale generations while rehashing */
        uint32_t j = hash_id(s->ids[i]) & (ncap - 1);
        while (ids[j]) j = (j + 1) & (ncap - 1);
        ids[j] = s->ids[i];
        gens[j] = s->gen;
        used++;
    }
    free(s->ids);
    free(s->gens);
    s->ids = ids;
    s->gens = gens;
    s->cap = ncap;
    s->used = used;
    return 0;
}

int tbr_idset_add(tbr_idset *s, uint32_t id)
{
    if (id == 0) return -1;
    if ((s->used + 1) * 2 > s->cap && grow(s) != 0) return -1;
    for (uint32_t i = hash_id(id) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->ids[i] == 0) {
            s->ids[i] = id;
            s->gens[i] = s->gen;
            s->used++;
            s->count++;
            return 1;
        }
        if (s->ids[i] == id) {
            if (s->gens[i] == s->gen) return 0;
            s->gens[i] = s->gen;
            s->count++;
            return 1;
        }
    }
}

void tbr_idset_clear(tbr_idset *s)
{
    s->count = 0;
    if (++s->gen == 0) {
        /* wrapped: really clear */
        if (s->cap) {
            memset(s->ids, 0, s->cap * sizeof(*s->ids));
            memset(s->gens, 0, s->cap * sizeof(*s->gens));
        }
        s->used = 0;
        s->gen = 1;
    }
}

void tbr_idset_free(tbr_idset *s)
{
    free(s->ids);
    free(s->gens);
    memset(s, 0, sizeof(*s));
}
