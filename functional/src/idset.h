/* Small open-addressing set of nonzero uint32 ids, with O(1) clear via a
 * generation counter (per-frame "already described" sets). */
#ifndef TBR_FUNCTIONAL_IDSET_H
#define TBR_FUNCTIONAL_IDSET_H

#include <stdint.h>
#include <stdlib.h>

typedef struct tbr_idset {
    uint32_t *ids;
    uint32_t *gens;
    uint32_t cap;   /* power of two */
    uint32_t count; /* entries of the current generation */
    uint32_t used;  /* slots holding any id (any generation) */
    uint32_t gen;
} tbr_idset;

/* Returns 1 if id is in the set (current generation). */
int tbr_idset_has(const tbr_idset *s, uint32_t id);
/* Adds id; returns 1 if newly added, 0 if present, -1 out of memory. */
int tbr_idset_add(tbr_idset *s, uint32_t id);
/* Forgets every id (O(1) except when the generation counter wraps). */
void tbr_idset_clear(tbr_idset *s);
void tbr_idset_free(tbr_idset *s);

#endif
