/* Instruction cache of tbr-sim (thesis Table 4.1: one for the vertex and one for the
 * fragment processors; docs/timing-model.md "Instruction caches"): every instruction of an
 * executed stream is fetched at code(shader) + 16 * pc. A line present in the cache is a
 * hit with no extra delay (fetch is pipelined ahead of issue); a missing line blocks the
 * thread and is requested through the cache (L2 -> DRAM), waking every thread waiting for
 * it on the fill. */
#include "shader/icache.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t ic_fetch(void *ctx, shader_core *c, uint32_t slot, uint64_t addr, uint64_t now)
{
    icache_unit *u = ctx;
    (void)now;
    uint64_t line = addr / 64 * 64;
    uint64_t *memo = &u->memo[(line / 64) & 7];
    if (*u->installs != u->memo_installs) { /* a line was installed (maybe evicting one) */
        memset(u->memo, 0, sizeof u->memo);
        u->memo_installs = *u->installs;
    } else if (*memo == line + 1) {
        tbr_stat_inc(u->hits);
        return 0;
    }
    bool dirty;
    if (tbr_cache_contains(u->ic, line, &dirty)) {
        *memo = line + 1;
        tbr_stat_inc(u->hits);
        return 0;
    }
    /* miss: request the line (merged by the cache's MSHRs) and block the thread */
    bool pending = false;
    for (uint32_t i = 0; i < u->nw; i++) {
        if (u->w[i].core == c && u->w[i].slot == slot) return SC_BLOCKED; /* already waiting */
        if (u->w[i].line == line) pending = true;
    }
    if (!pending) { /* one request per missing line; later fetches of it wait for the same fill */
        tbr_mem_msg rq = {.addr = line, .id = line, .issued = now, .ready = now};
        if (!tbr_memq_push(tbr_cache_req_in(u->ic), &rq)) return now + 1; /* queue full: retry next cycle */
    }
    tbr_stat_inc(u->misses);
    if (u->nw == u->capw) {
        u->capw = u->capw ? u->capw * 2 : 64;
        u->w = tbr_xrealloc(u->w, u->capw * sizeof *u->w);
    }
    u->w[u->nw++] = (struct ic_wait){c, slot, line};
    return SC_BLOCKED;
}

int icache_init(icache_unit *u, sim_env *e, uint32_t idx, char *err, size_t errlen)
{
    memset(u, 0, sizeof *u);
    u->env = e;
    snprintf(u->name, sizeof u->name, "inst_cache.%u", idx);
    tbr_cache_params p;
    tbr_cache_params_from_config(e->cfg, "inst_cache", u->name, &p);
    u->ic = tbr_cache_new(&p, e->st, err, errlen);
    if (!u->ic) return -1;
    u->installs = tbr_cache_installs(u->ic);
    if (memsys_add_aux_cache_port(e->mem, u->name, u->ic) < 0) return memsys_port_error(u->name, err, errlen);
    u->hits = tbr_stats_counterf(e->st, "instruction fetches whose line was present (pipelined, no delay)",
                                 "%s.fetch_hits", u->name);
    u->misses = tbr_stats_counterf(e->st, "instruction fetches that blocked their thread on a missing line",
                                   "%s.fetch_misses", u->name);
    return 0;
}

void icache_reset(icache_unit *u)
{
    tbr_cache_reset(u->ic);
    u->nw = 0;
    memset(u->memo, 0, sizeof u->memo);
    u->memo_installs = 0;
}

void icache_free(icache_unit *u)
{
    tbr_cache_free(u->ic);
    free(u->w);
    u->ic = NULL;
    u->w = NULL;
}

void icache_attach(icache_unit *u, shader_core *core)
{
    core->ifetch = ic_fetch;
    core->ifetch_ctx = u;
}

bool icache_idle(const icache_unit *u) { return u->nw == 0 && tbr_cache_idle(u->ic); }

uint64_t icache_next_event(const icache_unit *u)
{
    uint64_t now = u->env->now, ne = UINT64_MAX;
    if (!u->nw && tbr_cache_idle(u->ic)) return ne;
    GPU_EVENT_AT(ne, now, tbr_memq_head_ready(tbr_cache_resp_out(u->ic)));
    GPU_EVENT_AT(ne, now, tbr_cache_next_event(u->ic, now));
    return ne;
}

void icache_tick(icache_unit *u)
{
    const sim_env *e = u->env;
    if (!u->nw && tbr_cache_idle(u->ic)) return;
    uint64_t now = e->now;
    tbr_memq *resp = tbr_cache_resp_out(u->ic);
    const tbr_mem_msg *m;
    while ((m = tbr_memq_peek(resp, now))) {
        uint64_t line = m->id;
        for (uint32_t i = 0; i < u->nw;) {
            if (u->w[i].line == line) {
                sc_wake(u->w[i].core, u->w[i].slot, now + 1);
                u->w[i] = u->w[--u->nw];
            } else {
                i++;
            }
        }
        tbr_memq_pop(resp);
    }
    tbr_cache_tick_n(u->ic, now, e->ncyc);
}
