/* Primitive dispatch of the IMR organisation (prim_dispatch.h). */
#include "imr/prim_dispatch.h"

#include <string.h>

#include "tiling/tile_tokens.h"

void prim_dispatch_init(prim_dispatch *d, const sim_env *env, tbr_stats *st)
{
    memset(d, 0, sizeof *d);
    d->env = env;
    d->prims = tbr_stats_counter(st, "imr.prims_dispatched", "primitives handed to the rasterizer in submission order");
    d->stall =
        tbr_stats_counter(st, "imr.dispatch_stall_cycles", "cycles a primitive waited for the rasterizer's queue");
}

void prim_dispatch_connect(prim_dispatch *d, sim_queue *in, sim_queue *out, bool (*upstream_done)(const void *ctx),
                           const void *upstream)
{
    d->in = in;
    d->out = out;
    d->upstream_done = upstream_done;
    d->upstream = upstream;
}

void prim_dispatch_begin_pass(prim_dispatch *d) { d->begun = d->ended = false; }

/* One token per cycle (ATTILA Table 1: one triangle per cycle into setup). */
void prim_dispatch_tick(prim_dispatch *d)
{
    uint64_t now = d->env->now;
    if (d->ended) return;
    if (!d->begun) {
        if (simq_push(d->out, TOK(TOK_BEGIN, 0), now + 1)) d->begun = true;
        return;
    }
    uint32_t p;
    if (simq_peek(d->in, now, &p)) {
        if (simq_push(d->out, TOK(TOK_ITEM, p), now + 1)) {
            simq_pop(d->in);
            d->sent++;
            tbr_stat_inc(d->prims);
        } else {
            tbr_stat_add(d->stall, d->env->ncyc);
        }
        return;
    }
    if (simq_empty(d->in) && d->upstream_done(d->upstream) && simq_push(d->out, TOK(TOK_END, 0), now + 1))
        d->ended = true;
}

uint64_t prim_dispatch_next_event(const prim_dispatch *d)
{
    uint64_t now = d->env->now;
    if (d->ended) return UINT64_MAX;
    if (!d->begun) return now;
    if (d->in->count) {
        uint64_t t = simq_head_ready(d->in);
        return t > now ? t : (simq_full(d->out) ? UINT64_MAX : now);
    }
    /* the end marker: Primitive Assembly's last primitive is an event of its own */
    return d->upstream_done(d->upstream) && !simq_full(d->out) ? now : UINT64_MAX;
}
