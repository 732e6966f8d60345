/* Unified shader cores (shader.organization = unified; ATTILA §2 and §4: one pool of
 * unified shaders fed by the Streamer and the fragment FIFO; Emerald §3: vertex and
 * fragment work on the same SIMT cores). The pool owns `ncores` cores; each core has one
 * thread budget (shader.pool_threads resident threads, vertex and fragment work together)
 * and one issue port (shader.issue_width instructions per cycle). Work of each client
 * (client 0: the geometry unit's vertex work; client 1 + r: Raster Unit r's fragment
 * work) lives in its own context of the core, a shader_core whose threads retire in
 * dispatch order among that client's work only, so one client never waits behind the
 * other's unfinished items.
 *
 * Ports: each client's request queue(s), read by the pool (the vertex input queue, any
 * core; a Raster Unit's per-core input queues, that core), and per core a dispatch grant
 * the clients ask for (shader_pool_may_dispatch) before they dispatch; the contexts'
 * texture and instruction-fetch hooks stay the clients' (texture cache k of Raster Unit
 * r serves its fragment work on core k).
 *
 * Each cycle (shader_pool_tick, before the clients' ticks) the pool decides, per core, who
 * may take its dispatch port (one new thread per core and cycle, if the core has a free
 * thread) and in which order the contexts use its issue width, by shader.arbitration
 * (docs/timing-model.md "Unified shader cores"). */
#ifndef TBR_SHADER_POOL_H
#define TBR_SHADER_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sim_queue.h"
#include "core/stats.h"
#include "shader/shader_core.h"
#include "sim_env.h"

enum { SP_ARB_VERTEX_FIRST, SP_ARB_FRAGMENT_FIRST, SP_ARB_OLDEST_FIRST, SP_ARB_SHARE };
#define SP_CLIENT_VERTEX 0u /* client 1 + r: Raster Unit r's fragment work */
#define SP_NO_GRANT      UINT32_MAX

/* Work types for the arbitration and the statistics. */
enum { SP_VERTEX, SP_FRAGMENT, SP_NTYPES };

typedef struct {
    tbr_stat *instr;         /* instructions issued */
    tbr_stat *arb_waits;     /* request-cycles without a grant although a core had a free thread */
    tbr_stat *full_waits;    /* request-cycles without a grant: no free thread (on any core / on its core) */
    tbr_stat *issue_waits;   /* core-cycles the type could issue but the other type used the issue width */
    tbr_stat *contended_won; /* contended dispatch grants won */
} sp_type_stats;

typedef struct shader_pool {
    sim_env *env;
    uint32_t ncores, nclients, threads, issue_width, arb, vertex_share;
    shader_core *ctx;       /* [client * ncores + core] */
    const sim_queue **req;  /* request ports: [0] vertex (any core); [1 + r * ncores + k] Raster Unit r, core k */
    uint32_t *grant;        /* per core: the client that may dispatch to it this cycle, or SP_NO_GRANT */
    uint32_t *free_threads; /* per core, this cycle: pool.threads minus the resident threads of every context */
    uint32_t vertex_rr;     /* the core the vertex work's search for a core starts at (round robin) */
    uint64_t *won;          /* [core * 2 + type]: contended dispatch grants won (share) */
    uint64_t *issued;       /* [core * 2 + type]: instructions issued in contended cycles (share) */
    uint8_t *vertex_turn;   /* per core: oldest_first's issue alternation (1: vertex first) */
    uint32_t *order;        /* scratch: the contexts of a core in issue order */
    sp_type_stats ty[SP_NTYPES];
    tbr_stat *vertex_share_st; /* AVERAGE: 1 per vertex instruction, 0 per fragment instruction */
} shader_pool;

/* The pool of env's configuration (shader.pool_cores, pool_threads, arbitration,
 * vertex_share_percent; issue width and latencies from env->shader) for `nclients`
 * clients (1 + the number of Raster Units); registers its statistics. */
void shader_pool_init(shader_pool *p, sim_env *env, uint32_t nclients);
void shader_pool_free(shader_pool *p);
/* Cores the unified organisation has for this configuration (shader.pool_cores, 0 = the
 * split organisation's total). */
uint32_t shader_pool_cores_configured(const tbr_config *cfg);
/* The client's contexts, one per core (ncores shader_cores, contiguous). */
static inline shader_core *shader_pool_contexts(shader_pool *p, uint32_t client) { return &p->ctx[client * p->ncores]; }
/* The client's request port(s): the vertex client one queue (work for any core), a
 * fragment client one queue per core. */
void shader_pool_connect(shader_pool *p, uint32_t client, const sim_queue *queues, uint32_t nqueues);
/* Arbitration, then issue on every core (one call = env->ncyc cycles). */
void shader_pool_tick(shader_pool *p);
/* Granted this cycle: the client may dispatch one work item to the core. */
static inline bool shader_pool_may_dispatch(const shader_pool *p, uint32_t client, uint32_t core)
{
    return p->grant[core] == client;
}
/* Earliest cycle >= now at which a context could issue (UINT64_MAX: none). */
uint64_t shader_pool_next_event(const shader_pool *p);
bool shader_pool_idle(const shader_pool *p);

#endif
