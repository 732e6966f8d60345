/* Z cache / color cache of the immediate-mode (IMR) organisation (rop_cache.c; ATTILA,
 * seeds/004 sec. 2 "Z and Stencil test", "Color Write": a 16 KB 4-way cache in front of
 * the depth/stencil or color buffer in GPU memory, with fast clear). Under IMR the depth
 * and color buffers live in memory: the Raster Unit's Early-Z, late Z and Blending access
 * them per quad through these caches instead of on-chip tile buffers.
 *
 * Model: set-associative, LRU, write-back and write-allocate with read for ownership, 64-B
 * lines (the memory system's line); a miss allocates its line at once (the victim, if
 * dirty, is written back first) and reads it through the cache's memory port; the
 * requesting stage waits until every line of its quad is present (up to `mshrs` lines in
 * flight, issued also for the quads queued behind it: rop_cache_prefetch). Planes: the
 * surfaces the pass binds (rop_cache_add_plane). A cleared plane is, with fast clear, a
 * per-line "cleared" flag (a miss on a cleared line needs no read; a write-back clears
 * the flag; at the pass end lines still cleared are written, the resolve), without fast
 * clear every line of the plane is written at the pass start. At the pass end
 * (rop_cache_begin_flush) every dirty line is written back, but those of a plane the
 * application invalidated after its last write (dropped: glInvalidateFramebuffer); clean
 * lines stay. A plane invalidated before the pass (not written since) is read by no miss. */
#ifndef TBR_ROP_CACHE_H
#define TBR_ROP_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "memory/memq.h"
#include "sim_env.h"

#define ROP_MAX_PLANES 9 /* depth/stencil + TBR_MAX_COLOR_BUFS color buffers */

typedef struct {
    uint64_t base, bytes; /* the surface's memory (linear rows, sim_env.h address map) */
    uint32_t w, h, bpp;
    /* per line: 1 = still in the fast-cleared state, 2 = undefined (the pass found the
     * attachment invalidated: a miss reads nothing, nothing is resolved); NULL: none */
    uint8_t *cleared;
    bool invalidated; /* invalidated after the pass's last write: the flush drops its dirty lines */
    uint8_t *stored;  /* compression: per line the memory lines it was last written as (0: all); NULL: off */
} rop_plane;

typedef struct {
    sim_env *env;
    tbr_memq *req, *resp; /* the cache's memory-system port */
    /* parameters (<prefix>.size_kb, .ways, .mshrs; imr.fast_clear) */
    uint32_t sets, ways, mshrs;
    bool fast_clear;
    /* imr.z_compression / imr.color_compression: 256-B lines (lb) of mpl = 4 memory lines, each
     * written back as block_lines(wb_ctx, address) of them (ATTILA's 64/128/192/256 B) */
    bool compress;
    uint32_t lb, mpl;
    uint32_t (*block_lines)(void *ctx, uint64_t addr);
    /* per way (set * ways + way): line number (address / 64), state, last use */
    uint64_t *tag, *lru;
    uint8_t *state;
    uint8_t *fill_left; /* per way being read: memory responses still due */
    uint64_t stamp;
    uint32_t pending; /* lines being read */
    rop_plane planes[ROP_MAX_PLANES];
    uint32_t nplanes;
    /* pass start without fast clear: clear writes left (plane, line) */
    uint32_t clr_plane;
    uint64_t clr_line;
    bool clearing;
    /* pass end: write-backs (way index), then the fast-clear resolve (plane, line) */
    bool flushing;
    uint32_t fl_way, fl_plane;
    uint64_t fl_line;
    tbr_stat *accesses, *misses, *reads, *writebacks, *clear_writes, *clear_fills, *resolves, *wait;
    tbr_stat *comp_writes, *comp_reads, *bytes_saved; /* compression only */
    tbr_stat *undefined_fills, *inval_bytes;          /* invalidation: reads and write-backs not made */
    /* told of every dirty line written back (the Z cache's Hierarchical Z update, imr/hiz.h); NULL: none */
    void (*on_writeback)(void *ctx, uint64_t addr, uint32_t bytes);
    void *wb_ctx;
} rop_cache;

/* The cache named `name` ("z_cache", "color_cache": statistics imr.<name>.*), sized by the
 * parameters imr.<name>.size_kb / .ways / .mshrs, on the memory port (req, resp). */
void rop_cache_init(rop_cache *c, sim_env *env, const char *name, tbr_memq *req, tbr_memq *resp);
void rop_cache_free(rop_cache *c);
/* A new pass: no planes (rop_cache_add_plane adds the pass's surfaces). */
void rop_cache_begin_pass(rop_cache *c);
/* Surface (base, w x h pixels of bpp bytes) is a plane of this pass; `cleared`: the pass
 * starts with a clear of it. */
void rop_cache_add_plane(rop_cache *c, uint64_t base, uint32_t w, uint32_t h, uint32_t bpp, bool cleared);
/* The plane added last starts undefined (invalidated earlier, not written since): its
 * misses read nothing (imr.<name>.undefined_fills), it has no resolve. */
void rop_cache_plane_undefined(rop_cache *c);
/* The plane added last is invalidated after the pass's last write of it: the pass-end flush
 * drops its dirty lines and fast-clear resolves instead of writing them
 * (imr.<name>.invalidated_bytes_saved). Evictions before the flush still write. */
void rop_cache_plane_invalidated(rop_cache *c);
/* The lines quad q touches in every plane (at most 2 per plane); returns their count. */
uint32_t rop_cache_quad_lines(const rop_cache *c, const sim_quad *q, uint64_t *lines);
/* One access of a quad: true when every line is present (counted, LRU updated, dirty if
 * `write`); false while the stage must wait (misses issued as the port and MSHRs allow). */
bool rop_cache_access(rop_cache *c, const sim_quad *q, bool write);
/* Energy of one access of quad q (docs/energy-model.md): each line it touches is read
 * (`read`: a depth test, a blend) and/or written (`write`) once in the cache's array `u`. */
void rop_cache_count_energy(const rop_cache *c, const sim_quad *q, tbr_energy_unit *u, bool read, bool write);
/* Issue the misses of a quad that waits behind the current one (no access counted). */
void rop_cache_prefetch(rop_cache *c, const sim_quad *q);
/* Memory responses (fills) and the pass start's clear writes / the pass end's flush. */
void rop_cache_tick(rop_cache *c);
uint64_t rop_cache_next_event(const rop_cache *c);
static inline bool rop_cache_clearing(const rop_cache *c) { return c->clearing; }
/* Pass end: write back the dirty lines, resolve the fast-cleared ones. */
void rop_cache_begin_flush(rop_cache *c);
static inline bool rop_cache_flushing(const rop_cache *c) { return c->flushing; }
static inline bool rop_cache_idle(const rop_cache *c) { return !c->pending && !c->clearing && !c->flushing; }

#endif
