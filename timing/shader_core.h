/* Multithreaded in-order programmable processor (Vertex and Fragment Processors,
 * thesis §2.2 / Table 4.1; ATTILA §3 multithreading). Each resident thread runs one work
 * item (a vertex or a 2x2 quad); every cycle up to issue_width instructions are issued
 * from the oldest ready threads; an instruction makes its thread wait `lat` cycles.
 * Work items complete in dispatch order (in-order retirement). Until instruction-stream
 * records exist every instruction is modeled as an ALU op (docs/timing-model.md). */
#ifndef TBR_SHADER_CORE_H
#define TBR_SHADER_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "stats.h"

typedef struct {
  uint32_t token, remaining;
  uint64_t ready;
} sc_thread;

typedef struct {
  uint32_t threads, issue_width, lat;
  sc_thread *t;
  uint32_t *order; /* thread slots in dispatch order (ring) */
  uint32_t head, count;
  uint32_t *free_slots, nfree;
  uint64_t next_ready; /* no resident thread with work is ready before this cycle (a lower bound) */
  tbr_stat *busy, *stall, *idle, *instr, *items;
} shader_core;

void sc_init(shader_core *c, uint32_t threads, uint32_t issue_width, uint32_t lat, tbr_stats *st,
             const char *prefix);
void sc_free(shader_core *c);
bool sc_can_accept(const shader_core *c);
void sc_dispatch(shader_core *c, uint32_t token, uint32_t ninstr, uint64_t now);
void sc_tick(shader_core *c, uint64_t now);
/* Oldest work item, if finished by cycle now. */
bool sc_peek_done(const shader_core *c, uint64_t now, uint32_t *token);
void sc_pop_done(shader_core *c);
bool sc_idle(const shader_core *c);

#endif
