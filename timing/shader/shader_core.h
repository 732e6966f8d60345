/* Multithreaded in-order programmable processor (Vertex and Fragment Processors,
 * thesis §2.2 / Table 4.1; ATTILA §3 multithreading). Each resident thread runs one work
 * item (a vertex group or a 2x2 quad); every cycle up to issue_width instructions are
 * issued from the oldest ready threads; an instruction makes its thread wait the
 * latency of its class (shader.lat_alu / lat_sfu / lat_tex / lat_ctrl). Work items
 * complete in dispatch order (in-order retirement).
 *
 * A work item is either a static count of instructions (all ALU: traces without PATH
 * records) or an executed instruction stream (PATH: per-instruction classes and pcs).
 * A TEX instruction with a texture hook blocks its thread until the texture unit wakes
 * it (sc_wake); other threads keep issuing (latency hiding, ATTILA §4). With an
 * instruction-cache hook every issued instruction is fetched by address first; a miss
 * blocks the thread until sc_wake. */
#ifndef TBR_SHADER_CORE_H
#define TBR_SHADER_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/stats.h"

#define SC_NCLASS  4 /* SIM_CL_ALU, SFU, TEX, CTRL (sim_trace.h) */
#define SC_BLOCKED UINT64_MAX

typedef struct {
    uint32_t token, remaining;
    uint64_t ready;
    const uint8_t *cls; /* NULL: static count, every instruction ALU */
    const uint16_t *pc;
    uint64_t code;      /* code address of the shader (instruction fetch) */
    uint32_t pos, ntex; /* next stream position; TEX instructions issued so far */
    bool blocked_tex;
} sc_thread;

typedef struct shader_core shader_core;
/* Texture hook: thread `slot` running `token` issued its ntex-th (0-based) TEX
 * instruction at pc. Return the cycle the thread may continue, or SC_BLOCKED (the unit
 * calls sc_wake later). */
typedef uint64_t (*sc_tex_fn)(void *ctx, shader_core *c, uint32_t slot, uint32_t token, uint32_t ntex, uint32_t pc,
                              uint64_t now);
/* Instruction-fetch hook: 0 = hit (issue now); else the cycle the thread may retry, or
 * SC_BLOCKED (the cache calls sc_wake on the fill). */
typedef uint64_t (*sc_ifetch_fn)(void *ctx, shader_core *c, uint32_t slot, uint64_t addr, uint64_t now);

struct shader_core {
    uint32_t threads, issue_width, lat;
    uint32_t lat_cls[SC_NCLASS];
    sc_thread *t;
    uint32_t *order; /* thread slots in dispatch order (ring) */
    uint32_t head, count;
    uint32_t *free_slots, nfree;
    uint64_t *pos_ready;      /* per position in `order`: that thread's ready cycle if it has
                        * instructions left, else UINT64_MAX (kept with sc_thread.ready; the
                        * issue scan reads only this array, in dispatch order) */
    uint32_t *pos_of;         /* slot -> its position in `order` */
    uint64_t *pos_live;       /* bit per position: pos_ready != UINT64_MAX (the issue scan and the
                         * next-ready minimum visit only these; set_pos_ready keeps it) */
    uint32_t nwork, ntexwait; /* threads with instructions left; of them blocked on a texture */
    uint64_t next_ready;      /* no resident thread with work is ready before this cycle (a lower bound) */
    sc_tex_fn tex;
    void *tex_ctx;
    sc_ifetch_fn ifetch;
    void *ifetch_ctx;
    tbr_stat *busy, *stall, *idle, *instr, *items;
    tbr_stat *cls_instr[SC_NCLASS], *tex_stall, *streams;
};

void sc_init(shader_core *c, uint32_t threads, uint32_t issue_width, uint32_t lat, tbr_stats *st, const char *prefix);
/* Per-class latencies (ALU, SFU, TEX, CTRL) for executed streams. */
void sc_set_latencies(shader_core *c, const uint32_t lat[SC_NCLASS]);
void sc_free(shader_core *c);
/* No thread resident, every slot free (sc_init's state; gpu_reset). */
void sc_reset(shader_core *c);
bool sc_can_accept(const shader_core *c);
void sc_dispatch(shader_core *c, uint32_t token, uint32_t ninstr, uint64_t now);
/* Dispatch an executed stream of n instructions (classes cls, pcs pc). */
void sc_dispatch_stream(shader_core *c, uint32_t token, const uint8_t *cls, const uint16_t *pc, uint32_t n,
                        uint64_t code, uint64_t now);
/* A blocked thread may continue at cycle `ready`. */
void sc_wake(shader_core *c, uint32_t slot, uint64_t ready);
void sc_tick(shader_core *c, uint64_t now);
/* Idle-cycle skipping (docs/timing-model.md "Skipping quiescent cycles"): the earliest
 * cycle >= now at which sc_tick could issue or change state (UINT64_MAX: no resident
 * thread can issue before another unit wakes it); sc_tick_n simulates the n cycles
 * [now, now + n), n > 1 only when they are quiescent; sc_done_time is the cycle the oldest
 * work item finishes if it has no instructions left (else UINT64_MAX). */
uint64_t sc_next_event(const shader_core *c, uint64_t now);
/* sc_next_event(c, now) <= now: a thread may issue now (inline for the cycle-skipping
 * probes, which ask it first: it is the most frequent answer "now") */
static inline bool sc_may_issue_now(const shader_core *c, uint64_t now) { return c->count && c->next_ready <= now; }
void sc_tick_issue(shader_core *c, uint64_t now);
/* The cycles in which nothing can issue (no resident work, or every thread with work
 * waiting for its latency: now < next_ready, and so for the n - 1 cycles after it) only
 * count; they are about half of all calls, so they are decided here, inline in the
 * caller, and only issuing cycles call sc_tick_issue. */
static inline void sc_tick_n(shader_core *c, uint64_t now, uint64_t n)
{
    if (!c->count) {
        tbr_stat_add(c->idle, n);
        return;
    }
    if (now < c->next_ready) {
        tbr_stat_add(c->stall, n);
        if (c->ntexwait && c->ntexwait == c->nwork) tbr_stat_add(c->tex_stall, n);
        return;
    }
    sc_tick_issue(c, now); /* n == 1: a span of n > 1 cycles is quiescent */
}
uint64_t sc_done_time(const shader_core *c);
/* Oldest work item, if finished by cycle now. */
bool sc_peek_done(const shader_core *c, uint64_t now, uint32_t *token);
void sc_pop_done(shader_core *c);
bool sc_idle(const shader_core *c);

#endif
