/* Instruction cache shared by the shader processors of one kind (icache.c). */
#ifndef TBR_ICACHE_H
#define TBR_ICACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "memory/cache.h"
#include "shader/shader_core.h"
#include "sim_env.h"

typedef struct {
    sim_env *env;
    tbr_cache *ic; /* inst_cache.<i> */
    char name[32];
    struct ic_wait {
        shader_core *core;
        uint32_t slot;
        uint64_t line;
    } * w;
    uint32_t nw, capw;
    tbr_stat *hits;   /* fetches that found their line (served by the pipelined fetch) */
    tbr_stat *misses; /* fetches that blocked their thread on a missing line */
    /* lines known present (line + 1, direct-mapped by line) while the cache has installed
   * nothing since (installs == memo_installs): a hit without the lookup */
    uint64_t memo[8], memo_installs;
    const uint64_t *installs;
} icache_unit;

/* inst_cache.<idx>: its cache, its memory-system port and statistics. -1 with err. */
int icache_init(icache_unit *u, sim_env *e, uint32_t idx, char *err, size_t errlen);
void icache_free(icache_unit *u);
/* Its cache empty, no fetch waiting (gpu_reset). */
void icache_reset(icache_unit *u);
/* The core's instruction fetches go through this cache. */
void icache_attach(icache_unit *u, shader_core *core);
void icache_tick(icache_unit *u);
bool icache_idle(const icache_unit *u);
uint64_t icache_next_event(const icache_unit *u);

#endif
