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
  c->order[(c->head + c->count) % c->threads] = s;
  c->count++;
}

void sc_tick(shader_core *c, uint64_t now)
{
  if (!c->count) { tbr_stat_inc(c->idle); return; }
  uint32_t issued = 0;
  for (uint32_t k = 0; k < c->count && issued < c->issue_width; k++) { /* oldest first */
    sc_thread *t = &c->t[c->order[(c->head + k) % c->threads]];
    if (t->remaining && t->ready <= now) {
      t->remaining--;
      t->ready = now + c->lat;
      issued++;
    }
  }
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
