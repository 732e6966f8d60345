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
  c->t = calloc(c->threads, sizeof *c->t);
  c->order = calloc(c->threads, sizeof *c->order);
  c->free_slots = calloc(c->threads, sizeof *c->free_slots);
  if (!c->t || !c->order || !c->free_slots) abort();
  c->head = c->count = 0;
  c->nfree = c->threads;
  for (uint32_t i = 0; i < c->threads; i++) c->free_slots[i] = c->threads - 1 - i;
  c->busy = tbr_stats_counterf(st, "cycles with at least one instruction issued", "%s.busy_cycles", prefix);
  c->stall = tbr_stats_counterf(st, "cycles with resident work but nothing issued (latency)", "%s.stall_cycles", prefix);
  c->idle = tbr_stats_counterf(st, "cycles without resident work", "%s.idle_cycles", prefix);
  c->instr = tbr_stats_counterf(st, "instructions issued", "%s.instructions", prefix);
  c->items = tbr_stats_counterf(st, "work items (vertices or quads) completed", "%s.items", prefix);
}

void sc_free(shader_core *c)
{
  free(c->t); free(c->order); free(c->free_slots);
  c->t = NULL; c->order = NULL; c->free_slots = NULL;
}

bool sc_can_accept(const shader_core *c) { return c->nfree > 0; }

void sc_dispatch(shader_core *c, uint32_t token, uint32_t ninstr, uint64_t now)
{
  uint32_t s = c->free_slots[--c->nfree];
  c->t[s].token = token;
  c->t[s].remaining = ninstr ? ninstr : 1;
  c->t[s].ready = now + 1; /* dispatch takes a cycle */
  if (now + 1 < c->next_ready || c->count == 0) c->next_ready = now + 1;
  c->order[(c->head + c->count) % c->threads] = s;
  c->count++;
}

void sc_tick(shader_core *c, uint64_t now)
{
  if (!c->count) { tbr_stat_inc(c->idle); return; }
  /* Fast path (exact): every thread with work waits for its latency (the common case
   * with lat_alu > 1): nothing can issue this cycle. */
  if (now < c->next_ready) { tbr_stat_inc(c->stall); return; }
  uint32_t issued = 0;
  uint64_t next = UINT64_MAX;
  uint32_t idx = c->head;
  for (uint32_t k = 0; k < c->count; k++) { /* oldest first */
    sc_thread *t = &c->t[c->order[idx]];
    if (++idx == c->threads) idx = 0;
    if (!t->remaining) continue;
    if (issued < c->issue_width && t->ready <= now) {
      t->remaining--;
      t->ready = now + c->lat;
      issued++;
      if (!t->remaining) continue;
    }
    if (t->ready < next) next = t->ready;
  }
  c->next_ready = next;
  tbr_stat_add(c->instr, issued);
  tbr_stat_inc(issued ? c->busy : c->stall);
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
