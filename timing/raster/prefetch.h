/* Host-cache prefetches (no effect on results). The frame's quads are visited in tile
 * order, not in the trace order their records were stored in, so a quad's fetch records,
 * texture lines and instruction stream are cold when its Fragment Processor reaches them;
 * the quad waits in queues first (Early-Z -> Fragment Processor queue -> thread), which is
 * time to bring them in: the records when Early-Z passes the quad, the lines and the
 * stream when a thread takes it. */
#ifndef TBR_RASTER_PREFETCH_H
#define TBR_RASTER_PREFETCH_H

#include "frontend/sim_trace.h"

/* d: the fetches derived for the frame (sim_quad_fetches) */
static inline void prefetch_quad_records(const sim_frame *f, const sim_fetch_set *d, uint32_t qi, const sim_quad *q)
{
    uint32_t n;
    const uint64_t *lines;
    const sim_fetch *fe = sim_quad_fetches(f, d, qi, &n, &lines);
    if (n) __builtin_prefetch(fe);
    if (q->path) __builtin_prefetch(&f->paths[q->path - 1]);
}

static inline void prefetch_quad_data(const sim_frame *f, const sim_fetch_set *d, uint32_t qi, const sim_path *pa)
{
    uint32_t n;
    const uint64_t *lines;
    const sim_fetch *fe = sim_quad_fetches(f, d, qi, &n, &lines);
    for (uint32_t k = 0; k < n && k < 4; k++) __builtin_prefetch(&lines[fe[k].first_line]);
    if (pa) {
        __builtin_prefetch(f->pcls + pa->first);
        __builtin_prefetch(f->ppc + pa->first);
    }
}

#endif
