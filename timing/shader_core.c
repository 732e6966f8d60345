/* Multithreaded in-order shader processor (see shader_core.h). */
#include "shader_core.h"

#include <stdio.h>
#include <stdlib.h>

void sc_init(shader_core *c, uint32_t threads, uint32_t issue_width, uint32_t lat, tbr_stats *st,
             const char *prefix)
{
  c->threads = threads ? threads : 1;
  c->issue_width = issue_width ? issue_width : 1;
  c->lat = lat ? lat : 1;
  for (int k = 0; k < SC_NCLASS; k++) c->lat_cls[k] = c->lat;
  c->t = calloc(c->threads, sizeof *c->t);
  c->order = calloc(c->threads, sizeof *c->order);
  c->free_slots = calloc(c->threads, sizeof *c->free_slots);
  c->pos_ready = calloc(c->threads, sizeof *c->pos_ready);
  c->pos_of = calloc(c->threads, sizeof *c->pos_of);
  if (!c->t || !c->order || !c->free_slots || !c->pos_ready || !c->pos_of) abort();
  c->head = c->count = 0;
  c->nwork = c->ntexwait = 0;
  c->nfree = c->threads;
  c->tex = NULL; c->ifetch = NULL;
  for (uint32_t i = 0; i < c->threads; i++) c->free_slots[i] = c->threads - 1 - i;
  c->busy = tbr_stats_counterf(st, "cycles with at least one instruction issued", "%s.busy_cycles", prefix);
  c->stall = tbr_stats_counterf(st, "cycles with resident work but nothing issued (latency)", "%s.stall_cycles", prefix);
  c->idle = tbr_stats_counterf(st, "cycles without resident work", "%s.idle_cycles", prefix);
  c->instr = tbr_stats_counterf(st, "instructions issued", "%s.instructions", prefix);
  c->items = tbr_stats_counterf(st, "work items (vertices or quads) completed", "%s.items", prefix);
  static const char *const cn[SC_NCLASS] = {"alu", "sfu", "tex", "ctrl"};
  for (int k = 0; k < SC_NCLASS; k++)
    c->cls_instr[k] = tbr_stats_counterf(st, "instructions issued of this class (executed streams; static counts are alu)",
                                         "%s.instr_%s", prefix, cn[k]);
  c->tex_stall = tbr_stats_counterf(st, "stall cycles in which every thread with work waits for its texels",
                                    "%s.tex_stall_cycles", prefix);
  c->streams = tbr_stats_counterf(st, "work items run from an executed instruction stream (PATH)", "%s.stream_items", prefix);
}

void sc_set_latencies(shader_core *c, const uint32_t lat[SC_NCLASS])
{
  for (int k = 0; k < SC_NCLASS; k++) c->lat_cls[k] = lat[k] ? lat[k] : 1;
}

void sc_free(shader_core *c)
{
  free(c->t); free(c->order); free(c->free_slots); free(c->pos_ready); free(c->pos_of);
  c->t = NULL; c->order = NULL; c->free_slots = NULL; c->pos_ready = NULL; c->pos_of = NULL;
}

bool sc_can_accept(const shader_core *c) { return c->nfree > 0; }

static sc_thread *new_thread(shader_core *c, uint32_t token, uint64_t now)
{
  uint32_t s = c->free_slots[--c->nfree];
  sc_thread *t = &c->t[s];
  t->token = token;
  t->ready = now + 1; /* dispatch takes a cycle */

  t->cls = NULL; t->pc = NULL; t->code = 0;
  t->pos = t->ntex = 0;
  t->blocked_tex = false;
  if (now + 1 < c->next_ready || c->count == 0) c->next_ready = now + 1;
  uint32_t pos = (c->head + c->count) % c->threads;
  c->order[pos] = s;
  c->pos_of[s] = pos;
  c->pos_ready[pos] = now + 1;
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
  if (!n) { sc_dispatch(c, token, 1, now); return; }
  sc_thread *t = new_thread(c, token, now);
  t->remaining = n;
  t->cls = cls; t->pc = pc; t->code = code;
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
  c->pos_ready[c->pos_of[slot]] = t->remaining ? ready : UINT64_MAX;
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

void sc_tick_n(shader_core *c, uint64_t now, uint64_t n)
{
  if (!c->count) { tbr_stat_add(c->idle, n); return; }
  /* Fast path (exact): every thread with work waits for its latency (the common case
   * with lat_alu > 1): nothing can issue this cycle (nor in the n - 1 cycles after it:
   * sc_next_event). */
  if (now < c->next_ready) {
    tbr_stat_add(c->stall, n);
    if (c->ntexwait && c->ntexwait == c->nwork) tbr_stat_add(c->tex_stall, n);
    return;
  }
  uint32_t issued = 0;
  bool full = false; /* stopped at the issue width with older-first threads left unscanned */
  uint32_t idx = c->head;
  for (uint32_t k = 0; k < c->count;) { /* oldest first */
    /* tight scan (no wrap test inside) to the next thread ready by now (pos_ready: the
     * thread's ready cycle, UINT64_MAX without work) */
    uint32_t lim = c->threads - idx < c->count - k ? c->threads - idx : c->count - k, j = 0;
    const uint64_t *pr = c->pos_ready + idx;
    while (j + 4 <= lim && pr[j] > now && pr[j + 1] > now && pr[j + 2] > now && pr[j + 3] > now) j += 4;
    while (j < lim && pr[j] > now) j++;
    k += j;
    idx += j;
    if (idx == c->threads) idx = 0;
    if (j == lim) continue; /* segment done (end of the ring or of the threads) */
    uint32_t pos = idx;
    if (++idx == c->threads) idx = 0;
    k++;
    uint32_t slot = c->order[pos];
    sc_thread *t = &c->t[slot];
    if (!t->cls) {
      t->remaining--;
      t->ready = now + c->lat;
      tbr_stat_inc(c->cls_instr[0]);
    } else {
      uint32_t p = t->pos;
      uint64_t fr = c->ifetch ? c->ifetch(c->ifetch_ctx, c, slot, t->code + (uint64_t)t->pc[p] * 16u, now) : 0;
      if (fr) { /* instruction-cache miss: woken by the fill (or retry) */
        t->ready = fr;
        c->pos_ready[pos] = fr;
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
        if (r == SC_BLOCKED) { t->blocked_tex = true; c->ntexwait++; }
        t->ready = r;
      }
    }
    issued++;
    if (!t->remaining && !t->blocked_tex) c->nwork--;
    c->pos_ready[pos] = t->remaining ? t->ready : UINT64_MAX;
    if (issued == c->issue_width && k < c->count) {
      /* Nothing more can issue this cycle: now + 1 is a valid lower bound of the next
       * ready cycle (this thread and the threads before it are not ready before then). */
      full = true;
      break;
    }
  }
  /* Else every resident thread was looked at: the next ready cycle is the minimum of
   * their (updated) pos_ready (a blocked or finished thread's is UINT64_MAX). */
  uint64_t next = UINT64_MAX;
  if (full) next = now + 1;
  else
    for (uint32_t left = c->count, i = c->head; left;) {
      uint32_t lim = c->threads - i < left ? c->threads - i : left;
      const uint64_t *pr = c->pos_ready + i;
      for (uint32_t j = 0; j < lim; j++) next = pr[j] < next ? pr[j] : next;
      left -= lim;
      i = 0;
    }
  c->next_ready = next;
  tbr_stat_add(c->instr, issued);
  if (issued) tbr_stat_inc(c->busy);
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
  c->head = (c->head + 1) % c->threads;
  c->count--;
  tbr_stat_inc(c->items);
}

bool sc_idle(const shader_core *c) { return c->count == 0; }
