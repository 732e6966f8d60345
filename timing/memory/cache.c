/* Set-associative write-back cache with LRU and MSHRs (see cache.h; caches
 * of thesis Table 4.1). */
#include "memory/cache.h"
#include "core/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t tag; /* line address (addr / line_bytes) */
    uint64_t lru; /* last-use stamp; smallest = least recently used */
    bool valid, dirty;
} line_t;

typedef struct {
    uint64_t addr, id, issued;
    uint32_t src;
    uint8_t write, wb;
} target_t;

typedef struct {
    bool used;
    uint64_t line;      /* line address being fetched */
    uint64_t allocated; /* cycle, for the miss-latency average */
    uint32_t ntargets;
    target_t *targets; /* mshr_targets entries */
} mshr_t;

struct tbr_cache {
    tbr_cache_params p;
    uint32_t sets, line_shift;
    line_t *lines; /* sets * ways */
    uint64_t *key; /* per line: tag + 1 if valid, else 0 (lookups scan only this dense array) */
    mshr_t *mshr;
    /* MSHR index by line: open addressing with linear probing (MSHR number, -1 = empty),
   * at least 4x the MSHRs so that a miss's lookup (every request that misses asks
   * whether its line is already being fetched) usually probes one slot instead of
   * comparing every MSHR. */
    int32_t *mshr_index;
    uint32_t index_mask;
    uint32_t mshrs_used;
    uint64_t stamp;
    uint64_t installs; /* lines installed (tbr_cache_installs) */
    /* The head of req_in is a miss that waits for a free MSHR. Only a fill (which frees an
   * MSHR and installs a line) or the head leaving can change that decision, so while it
   * holds the tick counts the stall without looking the request up again (texture caches
   * spend long stretches so). */
    bool head_waits_mshr;
    tbr_memq req_in, resp_out, miss_out, fill_in;
    struct {
        tbr_stat *accesses, *reads, *writes, *hits, *misses, *read_hits, *read_misses, *write_hits, *write_misses,
            *mshr_merges, *evictions, *writebacks, *fills, *mshr_full_stalls, *mshr_target_stalls, *bank_conflicts,
            *queue_stalls, *miss_latency;
    } st;
};

static bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

void tbr_cache_params_from_config(const tbr_config *cfg, const char *prefix, const char *name, tbr_cache_params *p)
{
    char k[96];
#define G(f) (snprintf(k, sizeof k, "%s." f, prefix), (uint32_t)tbr_cfg_uint(cfg, k))
    memset(p, 0, sizeof *p);
    p->name = name;
    snprintf(k, sizeof k, "%s.size_kb", prefix);
    p->size_bytes = tbr_cfg_uint(cfg, k) * 1024;
    p->ways = G("ways");
    p->line_bytes = G("line_bytes");
    p->banks = G("banks");
    p->latency = G("latency");
    p->mshrs = G("mshrs");
    p->mshr_targets = G("mshr_targets");
#undef G
    p->req_queue = p->resp_queue = p->miss_queue = p->fill_queue = 16;
}

tbr_cache *tbr_cache_new(const tbr_cache_params *p, tbr_stats *stats, char *err, size_t errlen)
{
    if (!p->ways || !is_pow2(p->line_bytes) || p->size_bytes % ((uint64_t)p->line_bytes * p->ways)) {
        tbr_set_err(err, errlen, "%s: size %llu not a multiple of line_bytes*ways", p->name,
                    (unsigned long long)p->size_bytes);
        return NULL;
    }
    uint64_t sets = p->size_bytes / ((uint64_t)p->line_bytes * p->ways);
    if (!is_pow2(sets) || !is_pow2(p->banks) || p->banks > sets || p->banks > 64) {
        tbr_set_err(err, errlen, "%s: sets (%llu) and banks (%u) must be powers of two, banks <= min(sets, 64)",
                    p->name, (unsigned long long)sets, p->banks);
        return NULL;
    }
    if (!p->mshrs || !p->mshr_targets || !p->latency) {
        tbr_set_err(err, errlen, "%s: mshrs, mshr_targets and latency must be >= 1", p->name);
        return NULL;
    }
    tbr_cache *c = tbr_xcalloc(1, sizeof *c);
    c->p = *p;
    c->sets = (uint32_t)sets;
    while ((1u << c->line_shift) < p->line_bytes) c->line_shift++;
    c->lines = tbr_xcalloc(sets * p->ways, sizeof *c->lines);
    c->key = tbr_xcalloc(sets * p->ways, sizeof *c->key);
    c->mshr = tbr_xcalloc(p->mshrs, sizeof *c->mshr);
    uint32_t index_size = 1;
    while (index_size < 4 * p->mshrs) index_size *= 2;
    c->index_mask = index_size - 1;
    c->mshr_index = tbr_xcalloc(index_size, sizeof *c->mshr_index);
    for (uint32_t i = 0; i < index_size; i++) c->mshr_index[i] = -1;
    for (uint32_t i = 0; i < p->mshrs; i++) c->mshr[i].targets = tbr_xcalloc(p->mshr_targets, sizeof(target_t));
    tbr_memq_init(&c->req_in, p->req_queue);
    tbr_memq_init(&c->resp_out, p->resp_queue);
    tbr_memq_init(&c->miss_out, p->miss_queue);
    tbr_memq_init(&c->fill_in, p->fill_queue);
    char n[160];
#define REG(field, what, desc)                                                                                         \
    (snprintf(n, sizeof n, "%s." what, p->name), c->st.field = tbr_stats_counter(stats, n, desc))
    REG(accesses, "accesses", "requests processed (hits + misses)");
    REG(reads, "reads", "read requests processed");
    REG(writes, "writes", "write requests processed (incl. write-backs from above)");
    REG(hits, "hits", "requests that hit");
    REG(misses, "misses", "requests that missed (primary + merged into an MSHR)");
    REG(read_hits, "read_hits", "read hits");
    REG(read_misses, "read_misses", "read misses");
    REG(write_hits, "write_hits", "write hits");
    REG(write_misses, "write_misses", "write misses");
    REG(mshr_merges, "mshr_merges", "misses merged into an outstanding MSHR (no new next-level request)");
    REG(evictions, "evictions", "valid lines replaced");
    REG(writebacks, "writebacks", "dirty lines written back to the next level");
    REG(fills, "fills", "lines filled from the next level");
    REG(mshr_full_stalls, "mshr_full_stalls", "cycles the request head waited for a free MSHR");
    REG(mshr_target_stalls, "mshr_target_stalls", "cycles the request head waited for a free MSHR target slot");
    REG(bank_conflicts, "bank_conflicts", "cycles request processing stopped on a busy bank");
    REG(queue_stalls, "queue_stalls", "cycles blocked by a full response/miss queue");
#undef REG
    snprintf(n, sizeof n, "%s.miss_latency", p->name);
    c->st.miss_latency = tbr_stats_average(stats, n, "cycles from MSHR allocation to fill");
    return c;
}

void tbr_cache_reset(tbr_cache *c)
{
    size_t nlines = (size_t)c->sets * c->p.ways;
    memset(c->lines, 0, nlines * sizeof *c->lines);
    memset(c->key, 0, nlines * sizeof *c->key);
    for (uint32_t i = 0; i < c->p.mshrs; i++) {
        target_t *t = c->mshr[i].targets;
        memset(&c->mshr[i], 0, sizeof c->mshr[i]);
        c->mshr[i].targets = t;
    }
    for (uint32_t i = 0; i <= c->index_mask; i++) c->mshr_index[i] = -1;
    c->mshrs_used = 0;
    c->stamp = c->installs = 0;
    c->head_waits_mshr = false;
    tbr_memq_reset(&c->req_in);
    tbr_memq_reset(&c->resp_out);
    tbr_memq_reset(&c->miss_out);
    tbr_memq_reset(&c->fill_in);
}

void tbr_cache_free(tbr_cache *c)
{
    if (!c) return;
    for (uint32_t i = 0; i < c->p.mshrs; i++) free(c->mshr[i].targets);
    free(c->mshr);
    free(c->mshr_index);
    free(c->lines);
    free(c->key);
    tbr_memq_free(&c->req_in);
    tbr_memq_free(&c->resp_out);
    tbr_memq_free(&c->miss_out);
    tbr_memq_free(&c->fill_in);
    free(c);
}

tbr_memq *tbr_cache_req_in(tbr_cache *c) { return &c->req_in; }
tbr_memq *tbr_cache_resp_out(tbr_cache *c) { return &c->resp_out; }
tbr_memq *tbr_cache_miss_out(tbr_cache *c) { return &c->miss_out; }
tbr_memq *tbr_cache_fill_in(tbr_cache *c) { return &c->fill_in; }
uint32_t tbr_cache_mshrs_used(const tbr_cache *c) { return c->mshrs_used; }
uint32_t tbr_cache_sets(const tbr_cache *c) { return c->sets; }
const uint64_t *tbr_cache_installs(const tbr_cache *c) { return &c->installs; }

bool tbr_cache_idle(const tbr_cache *c)
{
    return c->mshrs_used == 0 && tbr_memq_empty(&c->req_in) && tbr_memq_empty(&c->resp_out) &&
           tbr_memq_empty(&c->miss_out) && tbr_memq_empty(&c->fill_in);
}

static uint32_t set_of(const tbr_cache *c, uint64_t line) { return (uint32_t)(line & (c->sets - 1)); }

static line_t *lookup(const tbr_cache *c, uint64_t line)
{
    size_t base = (size_t)set_of(c, line) * c->p.ways;
    const uint64_t *k = &c->key[base];
    for (uint32_t w = 0; w < c->p.ways; w++)
        if (k[w] == line + 1) return &c->lines[base + w];
    return NULL;
}

bool tbr_cache_contains(const tbr_cache *c, uint64_t addr, bool *dirty)
{
    line_t *l = lookup(c, addr >> c->line_shift);
    if (dirty) *dirty = l && l->dirty;
    return l != NULL;
}

uint64_t tbr_cache_for_each_dirty(const tbr_cache *c, void (*fn)(void *ctx, uint64_t addr), void *ctx)
{
    uint64_t n = 0;
    for (size_t i = 0; i < (size_t)c->sets * c->p.ways; i++) {
        const line_t *l = &c->lines[i];
        if (!l->valid || !l->dirty) continue;
        n++;
        if (fn) fn(ctx, l->tag << c->line_shift);
    }
    return n;
}

/* LRU victim: the first invalid way, else the least recently used. */
static line_t *victim(const tbr_cache *c, uint64_t line)
{
    line_t *s = &c->lines[(size_t)set_of(c, line) * c->p.ways];
    line_t *v = &s[0];
    for (uint32_t w = 0; w < c->p.ways; w++) {
        if (!s[w].valid) return &s[w];
        if (s[w].lru < v->lru) v = &s[w];
    }
    return v;
}

static uint32_t mshr_home(const tbr_cache *c, uint64_t line)
{
    return (uint32_t)((line * 0x9e3779b97f4a7c15ull) >> 32) & c->index_mask;
}

static mshr_t *find_mshr(const tbr_cache *c, uint64_t line)
{
    for (uint32_t h = mshr_home(c, line);; h = (h + 1) & c->index_mask) {
        int32_t i = c->mshr_index[h];
        if (i < 0) return NULL;
        if (c->mshr[i].line == line) return &c->mshr[i];
    }
}

static void mshr_index_add(tbr_cache *c, const mshr_t *ms)
{
    uint32_t h = mshr_home(c, ms->line);
    while (c->mshr_index[h] >= 0) h = (h + 1) & c->index_mask;
    c->mshr_index[h] = (int32_t)(ms - c->mshr);
}

/* Removal with backward shift (no tombstones): every entry after the hole that may move
 * to it (its home is not cyclically in (hole, its slot]) moves back. */
static void mshr_index_remove(tbr_cache *c, const mshr_t *ms)
{
    uint32_t hole = mshr_home(c, ms->line);
    while (c->mshr_index[hole] != (int32_t)(ms - c->mshr)) hole = (hole + 1) & c->index_mask;
    for (uint32_t k = (hole + 1) & c->index_mask; c->mshr_index[k] >= 0; k = (k + 1) & c->index_mask) {
        uint32_t home = mshr_home(c, c->mshr[c->mshr_index[k]].line);
        if (((k - home) & c->index_mask) >= ((k - hole) & c->index_mask)) {
            c->mshr_index[hole] = c->mshr_index[k];
            hole = k;
        }
    }
    c->mshr_index[hole] = -1;
}

/* Install `line` into the set, writing back a dirty victim. Returns NULL
 * (nothing changed) if the write-back cannot be queued this cycle. */
static line_t *install(tbr_cache *c, uint64_t line, uint64_t now)
{
    line_t *v = victim(c, line);
    if (v->valid && v->dirty) {
        if (tbr_memq_full(&c->miss_out)) return NULL;
        tbr_mem_msg wb = {.addr = v->tag << c->line_shift, .issued = now, .ready = now, .write = 1, .wb = 1};
        tbr_memq_push(&c->miss_out, &wb);
        tbr_stat_inc(c->st.writebacks);
    }
    if (v->valid) tbr_stat_inc(c->st.evictions);
    v->valid = true;
    v->dirty = false;
    v->tag = line;
    c->installs++;
    c->key[v - c->lines] = line + 1;
    v->lru = ++c->stamp;
    return v;
}

/* Handle one fill; false if it must wait (output queues full). */
static bool do_fill(tbr_cache *c, const tbr_mem_msg *m, uint64_t now)
{
    uint64_t line = m->addr >> c->line_shift;
    mshr_t *ms = find_mshr(c, line);
    if (!ms) {
        fprintf(stderr, "tbr cache %s: fill for line 0x%llx without an MSHR\n", c->p.name, (unsigned long long)m->addr);
        abort();
    }
    uint32_t need = 0;
    bool dirty = false;
    for (uint32_t i = 0; i < ms->ntargets; i++) {
        if (!ms->targets[i].wb) need++;
        if (ms->targets[i].write) dirty = true;
    }
    if (tbr_memq_space(&c->resp_out) < need) return false;
    line_t *l = install(c, line, now);
    if (!l) return false;
    l->dirty = dirty;
    for (uint32_t i = 0; i < ms->ntargets; i++) {
        const target_t *t = &ms->targets[i];
        if (t->wb) continue;
        tbr_mem_msg r = {.addr = t->addr,
                         .id = t->id,
                         .issued = t->issued,
                         .ready = now + 1,
                         .src = t->src,
                         .write = t->write,
                         .hit = 0};
        tbr_memq_push(&c->resp_out, &r);
    }
    tbr_stat_inc(c->st.fills);
    tbr_stat_sample(c->st.miss_latency, (double)(now - ms->allocated));
    ms->used = false;
    mshr_index_remove(c, ms);
    ms->ntargets = 0;
    c->mshrs_used--;
    return true;
}

typedef enum { R_DONE, R_STALL, R_STALL_NO_MSHR } req_result;

static void count_access(tbr_cache *c, const tbr_mem_msg *m, bool hit)
{
    tbr_stat_inc(c->st.accesses);
    tbr_stat_inc(m->write ? c->st.writes : c->st.reads);
    tbr_stat_inc(hit ? c->st.hits : c->st.misses);
    tbr_stat_inc(m->write ? (hit ? c->st.write_hits : c->st.write_misses)
                          : (hit ? c->st.read_hits : c->st.read_misses));
}

/* n: cycles this call stands for (stall counters; > 1 only for quiescent cycles). */
static req_result do_request(tbr_cache *c, const tbr_mem_msg *m, uint64_t now, uint64_t n)
{
    uint64_t line = m->addr >> c->line_shift;
    line_t *l = lookup(c, line);
    if (l) {
        if (!m->wb && tbr_memq_full(&c->resp_out)) {
            tbr_stat_add(c->st.queue_stalls, n);
            return R_STALL;
        }
        l->lru = ++c->stamp;
        if (m->write) l->dirty = true;
        if (!m->wb) {
            tbr_mem_msg r = *m;
            r.ready = now + c->p.latency;
            r.hit = 1;
            tbr_memq_push(&c->resp_out, &r);
        }
        count_access(c, m, true);
        return R_DONE;
    }
    mshr_t *ms = find_mshr(c, line);
    if (ms) {
        if (ms->ntargets == c->p.mshr_targets) {
            tbr_stat_add(c->st.mshr_target_stalls, n);
            return R_STALL;
        }
        ms->targets[ms->ntargets++] = (target_t){
            .addr = m->addr, .id = m->id, .issued = m->issued, .src = m->src, .write = m->write, .wb = m->wb};
        tbr_stat_inc(c->st.mshr_merges);
        count_access(c, m, false);
        return R_DONE;
    }
    if (m->wb) {
        /* full-line write miss: allocate without fetching */
        line_t *nl = install(c, line, now);
        if (!nl) {
            tbr_stat_add(c->st.queue_stalls, n);
            return R_STALL;
        }
        nl->dirty = true;
        count_access(c, m, false);
        return R_DONE;
    }
    if (c->mshrs_used == c->p.mshrs) {
        tbr_stat_add(c->st.mshr_full_stalls, n);
        return R_STALL_NO_MSHR;
    }
    if (tbr_memq_full(&c->miss_out)) {
        tbr_stat_add(c->st.queue_stalls, n);
        return R_STALL;
    }
    for (uint32_t i = 0; i < c->p.mshrs; i++)
        if (!c->mshr[i].used) {
            ms = &c->mshr[i];
            break;
        }
    ms->used = true;
    ms->line = line;
    mshr_index_add(c, ms);
    ms->allocated = now;
    ms->ntargets = 1;
    ms->targets[0] =
        (target_t){.addr = m->addr, .id = m->id, .issued = m->issued, .src = m->src, .write = m->write, .wb = 0};
    c->mshrs_used++;
    tbr_mem_msg f = {.addr = line << c->line_shift,
                     .id = (uint64_t)(ms - c->mshr),
                     .issued = now,
                     .ready = now + c->p.latency,
                     .src = 0,
                     .write = 0};
    tbr_memq_push(&c->miss_out, &f);
    count_access(c, m, false);
    return R_DONE;
}

/* Would do_request stall on m (no side effects; the same decisions in the same order)? */
static bool request_stalls(const tbr_cache *c, const tbr_mem_msg *m)
{
    uint64_t line = m->addr >> c->line_shift;
    if (lookup(c, line)) return !m->wb && tbr_memq_full(&c->resp_out);
    const mshr_t *ms = find_mshr(c, line);
    if (ms) return ms->ntargets == c->p.mshr_targets;
    if (m->wb) {
        const line_t *v = victim(c, line);
        return v->valid && v->dirty && tbr_memq_full(&c->miss_out);
    }
    return c->mshrs_used == c->p.mshrs || tbr_memq_full(&c->miss_out);
}

uint64_t tbr_cache_next_event(const tbr_cache *c, uint64_t now)
{
    uint64_t fill = tbr_memq_head_ready(&c->fill_in); /* a fill (or its stall) is an event */
    if (fill <= now) return now;
    uint64_t req = tbr_memq_head_ready(&c->req_in);
    if (req <= now) return c->head_waits_mshr || request_stalls(c, &c->req_in.buf[c->req_in.head]) ? fill : now;
    return req < fill ? req : fill;
}

void tbr_cache_tick(tbr_cache *c, uint64_t now) { tbr_cache_tick_n(c, now, 1); }

static void tick_work(tbr_cache *c, uint64_t now, uint64_t n);

/* Every cache is ticked every simulated cycle and most are idle or waiting at a given
 * one: this small entry (inlined into the callers with LTO) answers those cycles from
 * the two queue heads alone. */
void tbr_cache_tick_n(tbr_cache *c, uint64_t now, uint64_t n)
{
    if (tbr_memq_head_ready(&c->fill_in) > now) { /* no fill this cycle */
        if (tbr_memq_head_ready(&c->req_in) > now) return;
        if (c->head_waits_mshr) {
            tbr_stat_add(c->st.mshr_full_stalls, n);
            return;
        }
    }
    tick_work(c, now, n);
}

static __attribute__((noinline)) void tick_work(tbr_cache *c, uint64_t now, uint64_t n)
{
    /* 1. one fill per cycle (single fill port) */
    const tbr_mem_msg *f = tbr_memq_peek(&c->fill_in, now);
    if (f) {
        if (f->write) {
            tbr_memq_pop(&c->fill_in); /* ack of one of our write-backs */
        } else if (do_fill(c, f, now)) {
            tbr_memq_pop(&c->fill_in);
            c->head_waits_mshr = false;
        } else {
            tbr_stat_add(c->st.queue_stalls, n);
        }
    }
    /* 2. requests in order, one per bank per cycle */
    if (c->head_waits_mshr) {
        tbr_stat_add(c->st.mshr_full_stalls, n);
        return;
    }
    uint64_t banks_used = 0;
    const tbr_mem_msg *m;
    while ((m = tbr_memq_peek(&c->req_in, now)) != NULL) {
        uint32_t bank = set_of(c, m->addr >> c->line_shift) & (c->p.banks - 1);
        if (banks_used & (1ull << bank)) {
            tbr_stat_add(c->st.bank_conflicts, n);
            break;
        }
        req_result rr = do_request(c, m, now, n);
        if (rr != R_DONE) {
            c->head_waits_mshr = rr == R_STALL_NO_MSHR; /* m is the head: the ones before it left */
            break;
        }
        banks_used |= 1ull << bank;
        tbr_memq_pop(&c->req_in);
    }
}
