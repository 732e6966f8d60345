/* Multithreaded in-order shader processor (see shader_core.h). */
#include "shader/shader_core.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sc_init(shader_core *c, uint32_t threads, uint32_t issue_width, uint32_t lat, tbr_stats *st, const char *prefix)
{
    c->threads = threads ? threads : 1;
    c->issue_width = issue_width ? issue_width : 1;
    c->lat = lat ? lat : 1;
    for (int k = 0; k < SC_NCLASS; k++) c->lat_cls[k] = c->lat;
    c->t = tbr_xcalloc(c->threads, sizeof *c->t);
    c->order = tbr_xcalloc(c->threads, sizeof *c->order);
    c->free_slots = tbr_xcalloc(c->threads, sizeof *c->free_slots);
    c->pos_ready = tbr_xcalloc(c->threads, sizeof *c->pos_ready);
    c->pos_of = tbr_xcalloc(c->threads, sizeof *c->pos_of);
    c->pos_live = tbr_xcalloc((c->threads + 63) / 64, sizeof *c->pos_live);
    c->tex = NULL;
    c->ifetch = NULL;
    sc_reset(c);
    c->busy = tbr_stats_counterf(st, "cycles with at least one instruction issued", "%s.busy_cycles", prefix);
    c->stall =
        tbr_stats_counterf(st, "cycles with resident work but nothing issued (latency)", "%s.stall_cycles", prefix);
    c->idle = tbr_stats_counterf(st, "cycles without resident work", "%s.idle_cycles", prefix);
    c->instr = tbr_stats_counterf(st, "instructions issued", "%s.instructions", prefix);
    c->items = tbr_stats_counterf(st, "work items (vertices or quads) completed", "%s.items", prefix);
    static const char *const cn[SC_NCLASS] = {"alu", "sfu", "tex", "ctrl"};
    for (int k = 0; k < SC_NCLASS; k++)
        c->cls_instr[k] =
            tbr_stats_counterf(st, "instructions issued of this class (executed streams; static counts are alu)",
                               "%s.instr_%s", prefix, cn[k]);
    c->tex_stall = tbr_stats_counterf(st, "stall cycles in which every thread with work waits for its texels",
                                      "%s.tex_stall_cycles", prefix);
    c->streams =
        tbr_stats_counterf(st, "work items run from an executed instruction stream (PATH)", "%s.stream_items", prefix);
}

void sc_reset(shader_core *c)
{
    memset(c->t, 0, c->threads * sizeof *c->t);
    memset(c->order, 0, c->threads * sizeof *c->order);
    memset(c->pos_of, 0, c->threads * sizeof *c->pos_of);
    memset(c->pos_live, 0, (c->threads + 63) / 64 * sizeof *c->pos_live);
    for (uint32_t i = 0; i < c->threads; i++) c->pos_ready[i] = UINT64_MAX;
    c->head = c->count = 0;
    c->nwork = c->ntexwait = 0;
    c->next_ready = 0;
    c->nfree = c->threads;
    for (uint32_t i = 0; i < c->threads; i++) c->free_slots[i] = c->threads - 1 - i;
}

void sc_set_latencies(shader_core *c, const uint32_t lat[SC_NCLASS])
{
    for (int k = 0; k < SC_NCLASS; k++) c->lat_cls[k] = lat[k] ? lat[k] : 1;
}

void sc_free(shader_core *c)
{
    free(c->t);
    free(c->order);
    free(c->free_slots);
    free(c->pos_ready);
    free(c->pos_of);
    free(c->pos_live);
    c->t = NULL;
    c->order = NULL;
    c->free_slots = NULL;
    c->pos_ready = NULL;
    c->pos_of = NULL;
    c->pos_live = NULL;
}

bool sc_can_accept(const shader_core *c) { return c->nfree > 0; }

/* pos_ready[pos] = ready, keeping pos_live (the positions whose thread has work). */
static inline void set_pos_ready(shader_core *c, uint32_t pos, uint64_t ready)
{
    c->pos_ready[pos] = ready;
    uint64_t bit = 1ull << (pos & 63);
    if (ready != UINT64_MAX)
        c->pos_live[pos >> 6] |= bit;
    else
        c->pos_live[pos >> 6] &= ~bit;
}

static sc_thread *new_thread(shader_core *c, uint32_t token, uint64_t now)
{
    uint32_t s = c->free_slots[--c->nfree];
    sc_thread *t = &c->t[s];
    t->token = token;
    t->ready = now + 1; /* dispatch takes a cycle */

    t->cls = NULL;
    t->pc = NULL;
    t->code = 0;
    t->pos = t->ntex = 0;
    t->blocked_tex = false;
    if (now + 1 < c->next_ready || c->count == 0) c->next_ready = now + 1;
    uint32_t pos = (c->head + c->count) % c->threads;
    c->order[pos] = s;
    c->pos_of[s] = pos;
    set_pos_ready(c, pos, now + 1);
    c->count++;
    c->nwork++;
    return t;
}

void sc_dispatch(shader_core *c, uint32_t token, uint32_t ninstr, uint64_t now)
{
    sc_thread *t = new_thread(c, token, now);
    t->remaining = ninstr ? ninstr : 1;
}

void sc_dispatch_stream(shader_core *c, uint32_t token, const uint8_t *cls, const uint16_t *pc, uint32_t n,
                        uint64_t code, uint64_t now)
{
    if (!n) {
        sc_dispatch(c, token, 1, now);
        return;
    }
    sc_thread *t = new_thread(c, token, now);
    t->remaining = n;
    t->cls = cls;
    t->pc = pc;
    t->code = code;
    tbr_stat_inc(c->streams);
}

void sc_wake(shader_core *c, uint32_t slot, uint64_t ready)
{
    sc_thread *t = &c->t[slot];
    if (t->blocked_tex) {
        t->blocked_tex = false;
        c->ntexwait--;
        if (!t->remaining) c->nwork--; /* its last instruction was the texture access */
    }
    t->ready = ready;
    set_pos_ready(c, c->pos_of[slot], t->remaining ? ready : UINT64_MAX);
    if (ready < c->next_ready) c->next_ready = ready;
}

uint64_t sc_next_event(const shader_core *c, uint64_t now)
{
    if (!c->count) return UINT64_MAX;
    return c->next_ready > now ? c->next_ready : now;
}

uint64_t sc_done_time(const shader_core *c)
{
    if (!c->count) return UINT64_MAX;
    const sc_thread *t = &c->t[c->order[c->head]];
    return t->remaining ? UINT64_MAX : t->ready;
}

void sc_tick(shader_core *c, uint64_t now) { sc_tick_n(c, now, 1); }

/* The first live position in [from, hi), else hi. */
static inline uint32_t next_live(const shader_core *c, uint32_t from, uint32_t hi)
{
    while (from < hi) {
        uint32_t w = from >> 6;
        uint64_t m = c->pos_live[w] & (~0ull << (from & 63));
        if (m) {
            uint32_t p = (w << 6) + (uint32_t)__builtin_ctzll(m);
            return p < hi ? p : hi;
        }
        from = (w + 1) << 6;
    }
    return hi;
}

/* sc_tick_n's issuing cycles: resident work and now >= next_ready (n == 1). */
void sc_tick_issue(shader_core *c, uint64_t now)
{
    uint32_t issued = 0;
    bool full = false; /* stopped at the issue width with older-first threads left unscanned */
    /* Oldest first: the ring positions [head, head + count) in two segments (to the end of
   * the ring, then from 0), visiting only the live ones (pos_live: threads with work; a
   * thread blocked on a texture or finished has pos_ready UINT64_MAX and would be
   * skipped by the ready test anyway). */
    uint32_t end = c->head + c->count;
    for (int seg = 0; seg < 2 && !full; seg++) {
        uint32_t lo = seg ? 0 : c->head;
        uint32_t hi = seg ? (end > c->threads ? end - c->threads : 0) : (end < c->threads ? end : c->threads);
        uint32_t off0 = seg ? c->threads - c->head : 0; /* position - lo + off0 = age rank */
        for (uint32_t pos = next_live(c, lo, hi); pos < hi; pos = next_live(c, pos + 1, hi)) {
            if (c->pos_ready[pos] > now) continue;
            uint32_t slot = c->order[pos];
            sc_thread *t = &c->t[slot];
            if (!t->cls) {
                t->remaining--;
                t->ready = now + c->lat;
                tbr_stat_inc(c->cls_instr[0]);
            } else {
                uint32_t p = t->pos;
                uint64_t fr =
                    c->ifetch ? c->ifetch(c->ifetch_ctx, c, slot, t->code + (uint64_t)t->pc[p] * 16u, now) : 0;
                if (fr) { /* instruction-cache miss: woken by the fill (or retry) */
                    t->ready = fr;
                    set_pos_ready(c, pos, fr);
                    continue;
                }
                uint8_t k2 = t->cls[p] < SC_NCLASS ? t->cls[p] : 0;
                t->pos++;
                t->remaining--;
                tbr_stat_inc(c->cls_instr[k2]);
                t->ready = now + c->lat_cls[k2];
                if (k2 == 2 && c->tex) {
                    uint64_t r = c->tex(c->tex_ctx, c, slot, t->token, t->ntex, t->pc[p], now);
                    t->ntex++;
                    if (r == SC_BLOCKED) {
                        t->blocked_tex = true;
                        c->ntexwait++;
                    }
                    t->ready = r;
                }
            }
            issued++;
            if (!t->remaining && !t->blocked_tex) c->nwork--;
            set_pos_ready(c, pos, t->remaining ? t->ready : UINT64_MAX);
            if (issued == c->issue_width && pos - lo + off0 + 1 < c->count) {
                /* Nothing more can issue this cycle: now + 1 is a valid lower bound of the next
         * ready cycle (this thread and the threads before it are not ready before then). */
                full = true;
                break;
            }
        }
    }
    /* Else every resident thread was looked at: the next ready cycle is the minimum of
   * their (updated) pos_ready (a blocked or finished thread's is UINT64_MAX, not live). */
    uint64_t next = UINT64_MAX;
    if (full)
        next = now + 1;
    else
        for (uint32_t w = 0, nw = (c->threads + 63) / 64; w < nw; w++)
            for (uint64_t m = c->pos_live[w]; m; m &= m - 1) {
                uint64_t r = c->pos_ready[w * 64 + (uint32_t)__builtin_ctzll(m)];
                next = r < next ? r : next;
            }
    c->next_ready = next;
    tbr_stat_add(c->instr, issued);
    if (issued)
        tbr_stat_inc(c->busy);
    else {
        tbr_stat_inc(c->stall);
        if (c->ntexwait && c->ntexwait == c->nwork) tbr_stat_inc(c->tex_stall);
    }
}

bool sc_peek_done(const shader_core *c, uint64_t now, uint32_t *token)
{
    if (!c->count) return false;
    const sc_thread *t = &c->t[c->order[c->head]];
    if (t->remaining || t->ready > now) return false;
    *token = t->token;
    return true;
}

void sc_pop_done(shader_core *c)
{
    c->free_slots[c->nfree++] = c->order[c->head];
    set_pos_ready(c, c->head, UINT64_MAX); /* already: a finished thread has no work */
    c->head = (c->head + 1) % c->threads;
    c->count--;
    tbr_stat_inc(c->items);
}

bool sc_idle(const shader_core *c) { return c->count == 0; }
