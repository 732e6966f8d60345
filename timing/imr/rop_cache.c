/* Z cache / color cache of the IMR organisation (rop_cache.h; ATTILA, seeds/004 sec. 2). */
#include "imr/rop_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define RC_VALID   1u
#define RC_DIRTY   2u
#define RC_PENDING 4u  /* being read; present once the response arrives */
#define RC_FRESH   8u  /* filled, not used yet: a prefetch may not evict it (the waiting quad needs it) */
#define MEM_LINE   64u /* the memory system's line: every message moves one */

void rop_cache_init(rop_cache *c, sim_env *env, const char *name, tbr_memq *req, tbr_memq *resp)
{
    memset(c, 0, sizeof *c);
    c->env = env;
    c->req = req;
    c->resp = resp;
    char k[64];
    snprintf(k, sizeof k, "imr.%s.ways", name);
    c->ways = (uint32_t)tbr_cfg_uint(env->cfg, k);
    /* ATTILA seeds/004 sec. 5: with compression the lines are 256-B blocks, else 64 B */
    snprintf(k, sizeof k, "imr.%s", strcmp(name, "z_cache") == 0 ? "z_compression" : "color_compression");
    c->compress = tbr_cfg_bool(env->cfg, k);
    c->lb = c->compress ? 4 * MEM_LINE : MEM_LINE;
    c->mpl = c->lb / MEM_LINE;
    snprintf(k, sizeof k, "imr.%s.size_kb", name);
    uint32_t lines = (uint32_t)(tbr_cfg_uint(env->cfg, k) * 1024 / c->lb);
    c->sets = lines / c->ways ? lines / c->ways : 1;
    snprintf(k, sizeof k, "imr.%s.mshrs", name);
    c->mshrs = (uint32_t)tbr_cfg_uint(env->cfg, k);
    c->fast_clear = tbr_cfg_bool(env->cfg, "imr.fast_clear");
    size_t n = (size_t)c->sets * c->ways;
    c->tag = tbr_xcalloc(n, sizeof *c->tag);
    c->lru = tbr_xcalloc(n, sizeof *c->lru);
    c->state = tbr_xcalloc(n, 1);
    c->fill_left = tbr_xcalloc(n, 1);
#define C(field, what, desc) c->field = tbr_stats_counterf(env->st, desc, "imr.%s." what, name)
    C(accesses, "line_accesses", "line accesses of quads (hits + misses)");
    C(misses, "line_misses", "line accesses that allocated a line (read or fast-clear fill)");
    C(reads, "line_reads", "lines read from memory (misses of lines not in the cleared state)");
    C(writebacks, "line_writebacks", "dirty lines written to memory (evictions and the pass-end flush)");
    C(clear_writes, "clear_line_writes", "lines written by a clear at the pass start (imr.fast_clear = false)");
    C(clear_fills, "clear_fills", "misses on lines in the fast-cleared state (no read)");
    C(resolves, "resolve_line_writes", "fast-cleared lines never written back, written at the pass end");
    C(wait, "wait_cycles", "cycles a quad waited for this cache (lines in flight, no MSHR or port)");
    C(undefined_fills, "undefined_fills",
      "misses on lines of a plane whose contents are undefined (invalidated earlier in the frame, not written "
      "since; tile.restore=used): no read");
    C(inval_bytes, "invalidated_bytes_saved",
      "bytes of dirty lines and fast-clear resolves not written at the pass end because the application invalidated "
      "the plane after its last write (depth.store / color.store auto)");
    if (c->compress) {
        C(comp_writes, "compressed_writes", "256-B blocks written to memory in fewer than 4 memory lines (compressed)");
        C(comp_reads, "compressed_reads", "256-B blocks read from memory in fewer than 4 memory lines (compressed)");
        C(bytes_saved, "compression_bytes_saved", "bytes not moved to or from memory thanks to compression");
    }
#undef C
}

static void planes_free(rop_cache *c)
{
    for (uint32_t i = 0; i < c->nplanes; i++) {
        free(c->planes[i].cleared);
        free(c->planes[i].stored);
    }
    c->nplanes = 0;
}

void rop_cache_free(rop_cache *c)
{
    planes_free(c);
    free(c->tag);
    free(c->lru);
    free(c->state);
    free(c->fill_left);
}

void rop_cache_begin_pass(rop_cache *c) { planes_free(c); }

static uint64_t plane_lines(const rop_cache *c, const rop_plane *p)
{
    return (p->base + p->bytes + c->lb - 1) / c->lb - p->base / c->lb;
}

void rop_cache_add_plane(rop_cache *c, uint64_t base, uint32_t w, uint32_t h, uint32_t bpp, bool cleared)
{
    if (c->nplanes >= ROP_MAX_PLANES) return;
    rop_plane *p = &c->planes[c->nplanes++];
    *p = (rop_plane){.base = base, .bytes = (uint64_t)w * h * bpp, .w = w, .h = h, .bpp = bpp};
    if (c->compress) p->stored = tbr_xcalloc(plane_lines(c, p), 1);
    if (!cleared || !p->bytes) return;
    /* the clear replaces what the cache holds of the plane */
    uint64_t l0 = base / c->lb, l1 = l0 + plane_lines(c, p);
    for (size_t i = 0; i < (size_t)c->sets * c->ways; i++)
        if ((c->state[i] & RC_VALID) && !(c->state[i] & RC_PENDING) && c->tag[i] >= l0 && c->tag[i] < l1)
            c->state[i] = 0;
    if (c->fast_clear) {
        p->cleared = tbr_xcalloc(plane_lines(c, p), 1);
        memset(p->cleared, 1, plane_lines(c, p));
    } else if (!c->clearing) {
        c->clearing = true;
        c->clr_plane = c->nplanes - 1;
        c->clr_line = 0;
    }
}

void rop_cache_plane_undefined(rop_cache *c)
{
    if (!c->nplanes) return;
    rop_plane *p = &c->planes[c->nplanes - 1];
    if (p->cleared || !p->bytes) return; /* (a cleared plane is defined) */
    p->cleared = tbr_xcalloc(plane_lines(c, p), 1);
    memset(p->cleared, 2, plane_lines(c, p));
}

void rop_cache_plane_invalidated(rop_cache *c)
{
    if (c->nplanes) c->planes[c->nplanes - 1].invalidated = true;
}

uint32_t rop_cache_quad_lines(const rop_cache *c, const sim_quad *q, uint64_t *lines)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->nplanes; i++) {
        const rop_plane *p = &c->planes[i];
        if (q->x < 0 || q->y < 0 || (uint32_t)q->x >= p->w || (uint32_t)q->y >= p->h) continue;
        for (uint32_t dy = 0; dy < 2 && (uint32_t)q->y + dy < p->h; dy++) {
            uint64_t a = p->base + ((uint64_t)((uint32_t)q->y + dy) * p->w + (uint32_t)q->x) * p->bpp;
            uint32_t w = (uint32_t)q->x + 1 < p->w ? 2 : 1;
            uint64_t first = a / c->lb, last = (a + (uint64_t)w * p->bpp - 1) / c->lb;
            for (uint64_t l = first; l <= last; l++) lines[n++] = l;
        }
    }
    return n;
}

static int find_way(const rop_cache *c, uint64_t line)
{
    uint32_t set = (uint32_t)(line % c->sets);
    for (uint32_t w = 0; w < c->ways; w++) {
        uint32_t i = set * c->ways + w;
        if ((c->state[i] & RC_VALID) && c->tag[i] == line) return (int)i;
    }
    return -1;
}

/* The plane holding `line` and its index in the plane, or NULL. */
static rop_plane *plane_of(rop_cache *c, uint64_t line, uint64_t *idx)
{
    for (uint32_t i = 0; i < c->nplanes; i++) {
        rop_plane *p = &c->planes[i];
        uint64_t l0 = p->base / c->lb;
        if (line >= l0 && line < l0 + plane_lines(c, p)) {
            *idx = line - l0;
            return p;
        }
    }
    return NULL;
}

/* Moves cache line `line` as its first n memory lines (a compressed block: ATTILA's 64,
 * 128 or 192 B; else all of them); false (nothing sent) while the port lacks room. */
static bool send(rop_cache *c, uint64_t line, bool write, uint32_t n)
{
    if (c->req->cap - c->req->count < n) return false;
    for (uint32_t k = 0; k < n; k++) {
        tbr_mem_msg m = {.addr = line * c->lb + k * MEM_LINE,
                         .issued = c->env->now,
                         .ready = c->env->now,
                         .write = write,
                         .wb = write};
        tbr_memq_push(c->req, &m);
    }
    return true;
}

/* Compression accounting of a block moved as n of its mpl memory lines. */
static void count_compressed(rop_cache *c, uint32_t n, bool write)
{
    if (!c->compress || n >= c->mpl) return;
    tbr_stat_inc(write ? c->comp_writes : c->comp_reads);
    tbr_stat_add(c->bytes_saved, (uint64_t)(c->mpl - n) * MEM_LINE);
}

/* The memory lines dirty way i is written as (compressed: by its content). */
static uint32_t wb_lines(rop_cache *c, uint32_t i, const rop_plane *p)
{
    return c->compress && p && c->block_lines ? c->block_lines(c->wb_ctx, c->tag[i] * c->lb) : c->mpl;
}

/* Writes back way i if dirty (false: the port is full). The line's cleared state ends. */
static bool write_back(rop_cache *c, uint32_t i)
{
    if (!(c->state[i] & RC_DIRTY)) return true;
    uint64_t idx;
    rop_plane *p = plane_of(c, c->tag[i], &idx);
    uint32_t n = wb_lines(c, i, p);
    if (!send(c, c->tag[i], true, n)) return false;
    tbr_stat_inc(c->writebacks);
    count_compressed(c, n, true);
    if (p && p->stored) p->stored[idx] = (uint8_t)n;
    if (c->on_writeback) c->on_writeback(c->wb_ctx, c->tag[i] * c->lb, c->lb);
    if (p && p->cleared) p->cleared[idx] = 0;
    c->state[i] &= (uint8_t)~RC_DIRTY;
    return true;
}

/* Allocates `line` (a miss): the LRU way not in flight (nor fresh, for a prefetch) of its
 * set, written back if dirty; read unless in the fast-cleared state. false: no way, MSHR
 * or port free this cycle. */
static bool allocate(rop_cache *c, uint64_t line, bool prefetch)
{
    uint64_t idx;
    rop_plane *p = plane_of(c, line, &idx);
    bool cleared = p && p->cleared && p->cleared[idx];
    if (!cleared && c->pending >= c->mshrs) return false;
    uint32_t set = (uint32_t)(line % c->sets);
    int v = -1;
    for (uint32_t w = 0; w < c->ways; w++) {
        uint32_t i = set * c->ways + w;
        uint8_t s = c->state[i];
        if (s & RC_PENDING) continue;
        if (prefetch && (s & RC_FRESH)) continue;
        if (!(s & RC_VALID)) {
            v = (int)i;
            break;
        }
        if (v < 0 || c->lru[i] < c->lru[v]) v = (int)i;
    }
    uint32_t n = p && p->stored && p->stored[idx] ? p->stored[idx] : c->mpl; /* as the block was last written */
    if (v < 0 || !write_back(c, (uint32_t)v)) return false;
    if (!cleared && !send(c, line, false, n)) return false;
    tbr_stat_inc(c->misses);
    c->tag[v] = line;
    c->lru[v] = ++c->stamp;
    if (cleared) {
        tbr_stat_inc(p->cleared[idx] == 2 ? c->undefined_fills : c->clear_fills);
        c->state[v] = RC_VALID | RC_FRESH;
    } else {
        tbr_stat_inc(c->reads);
        count_compressed(c, n, false);
        c->state[v] = RC_VALID | RC_PENDING;
        c->fill_left[v] = (uint8_t)n;
        c->pending++;
    }
    return true;
}

bool rop_cache_access(rop_cache *c, const sim_quad *q, bool write)
{
    uint64_t lines[2 * ROP_MAX_PLANES * 2];
    if (c->clearing) { /* the clear's writes go first */
        tbr_stat_add(c->wait, c->env->ncyc);
        return false;
    }
    uint32_t n = rop_cache_quad_lines(c, q, lines);
    bool ready = true;
    int way[2 * ROP_MAX_PLANES * 2];
    for (uint32_t k = 0; k < n; k++) {
        way[k] = find_way(c, lines[k]);
        if (way[k] < 0) {
            allocate(c, lines[k], false);
            ready = false;
        } else if (c->state[way[k]] & RC_PENDING)
            ready = false;
    }
    if (!ready) {
        tbr_stat_add(c->wait, c->env->ncyc);
        return false;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = (uint32_t)way[k];
        c->lru[i] = ++c->stamp;
        c->state[i] = (uint8_t)((c->state[i] & ~RC_FRESH) | (write ? RC_DIRTY : 0));
    }
    tbr_stat_add(c->accesses, n);
    return true;
}

void rop_cache_count_energy(const rop_cache *c, const sim_quad *q, tbr_energy_unit *u, bool read, bool write)
{
    if (!u) return;
    uint64_t lines[2 * ROP_MAX_PLANES * 2];
    uint32_t n = rop_cache_quad_lines(c, q, lines);
    if (read) tbr_energy_count(u, TBR_EV_READ, n);
    if (write) tbr_energy_count(u, TBR_EV_WRITE, n);
}

void rop_cache_prefetch(rop_cache *c, const sim_quad *q)
{
    if (c->clearing) return;
    uint64_t lines[2 * ROP_MAX_PLANES * 2];
    uint32_t n = rop_cache_quad_lines(c, q, lines);
    for (uint32_t k = 0; k < n; k++)
        if (find_way(c, lines[k]) < 0 && !allocate(c, lines[k], true)) return;
}

/* One line of the pass end's flush or resolve per cycle; false when done. */
static bool flush_step(rop_cache *c)
{
    size_t n = (size_t)c->sets * c->ways;
    while (c->fl_way < n) {
        if (c->state[c->fl_way] & RC_DIRTY) {
            uint64_t idx;
            rop_plane *p = plane_of(c, c->tag[c->fl_way], &idx);
            if (p && p->invalidated) { /* dropped, as at the invalidation: no write, no resolve */
                tbr_stat_add(c->inval_bytes, (uint64_t)wb_lines(c, c->fl_way, p) * MEM_LINE);
                if (p->cleared) p->cleared[idx] = 0;
                c->state[c->fl_way++] = 0; /* (the line leaves the cache: its data is undefined) */
                continue;
            }
            if (write_back(c, c->fl_way)) c->fl_way++;
            return true;
        }
        c->fl_way++;
    }
    while (c->fl_plane < c->nplanes) {
        rop_plane *p = &c->planes[c->fl_plane];
        while (p->cleared && c->fl_line < plane_lines(c, p)) {
            uint32_t n = c->compress ? 1 : c->mpl;               /* a block of one value: the best level */
            if (p->cleared[c->fl_line] != 1 || p->invalidated) { /* undefined, or dropped */
                if (p->cleared[c->fl_line] == 1) tbr_stat_add(c->inval_bytes, (uint64_t)n * MEM_LINE);
                p->cleared[c->fl_line++] = 0;
                continue;
            }
            if (!send(c, p->base / c->lb + c->fl_line, true, n)) return true;
            tbr_stat_inc(c->resolves);
            count_compressed(c, n, true);
            if (p->stored) p->stored[c->fl_line] = (uint8_t)n;
            p->cleared[c->fl_line++] = 0;
            return true;
        }
        c->fl_plane++;
        c->fl_line = 0;
    }
    return false;
}

/* One clear write per cycle at the pass start (no fast clear); false when done. */
static bool clear_step(rop_cache *c)
{
    for (; c->clr_plane < c->nplanes; c->clr_plane++, c->clr_line = 0) {
        const rop_plane *p = &c->planes[c->clr_plane];
        if (c->clr_line < plane_lines(c, p)) {
            uint32_t n = c->compress ? 1 : c->mpl; /* a block of one value: the best level */
            if (send(c, p->base / c->lb + c->clr_line, true, n)) {
                count_compressed(c, n, true);
                if (p->stored) p->stored[c->clr_line] = (uint8_t)n;
                c->clr_line++;
                tbr_stat_inc(c->clear_writes);
            }
            return true;
        }
    }
    return false;
}

void rop_cache_tick(rop_cache *c)
{
    const tbr_mem_msg *m;
    while ((m = tbr_memq_peek(c->resp, c->env->now))) {
        int i = find_way(c, m->addr / c->lb);
        if (i >= 0 && (c->state[i] & RC_PENDING) && --c->fill_left[i] == 0) {
            c->state[i] = (uint8_t)((c->state[i] & ~RC_PENDING) | RC_FRESH);
            c->lru[i] = ++c->stamp;
            c->pending--;
        }
        tbr_memq_pop(c->resp);
    }
    if (c->clearing) c->clearing = clear_step(c);
    if (c->flushing) c->flushing = flush_step(c);
}

uint64_t rop_cache_next_event(const rop_cache *c)
{
    uint64_t now = c->env->now;
    if ((c->clearing || c->flushing) && !tbr_memq_full(c->req)) return now;
    uint64_t t = tbr_memq_head_ready(c->resp);
    return t < now ? now : t;
}

void rop_cache_begin_flush(rop_cache *c)
{
    c->flushing = true;
    c->fl_way = c->fl_plane = 0;
    c->fl_line = 0;
}
