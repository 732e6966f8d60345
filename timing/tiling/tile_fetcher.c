/* Tile Scheduler and Tile Fetcher (thesis §4.1.2, Fig. 4.4 / 4.5; §5.1 for several
 * Raster Units).
 *
 * Scheduler: tiles in scanline (baseline), Z-order (Morton) or snake order
 * (tile.order), assigned statically round robin to the Raster Units (thesis §5.1), or
 * rewritten by the tile-order hook (work tiles: techniques/dfsl.c).
 *
 * Fetcher, four stages: (1) compute the address of the next primitive pointer of the
 * tile into the Primitive Pointer register and reserve a Primitive Table entry (16
 * entries); (2) when the pointer arrives, compute the attribute addresses (Attribute
 * Pointer register); (3) each returned attribute decrements the entry's pending count;
 * (4) the OLDEST complete entry is pushed to its Raster Unit's Tile Queue (in order).
 * An arbiter sends at most one request per cycle to the single-ported Tile Cache,
 * attributes first. With tile.fetcher_pipelined the next tile is fetched while the
 * current one renders; otherwise the fetcher waits for the Raster Units to drain
 * (the thesis' baseline design). One attribute = 3 vertices x 16 B. */
#include <stdlib.h>
#include <string.h>

#include "tiling/tile_fetcher.h"
#include "core/util.h"

#include <stdio.h>

#include "tiling/tile_order.h"
#include "tiling/tile_tokens.h"

int tf_init(tile_fetcher *t, sim_env *env, const param_buffer *pb, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->env = env;
    t->pb = pb;
    t->pipelined = tbr_cfg_bool(env->cfg, "tile.fetcher_pipelined");
    t->order_kind = tbr_cfg_enum(env->cfg, "tile.order");
    tbr_cache_params p;
    tbr_cache_params_from_config(env->cfg, "tile_cache", "tile_cache", &p);
    t->tcache = tbr_cache_new(&p, env->st, err, errlen);
    if (!t->tcache) return -1;
    /* env->mem == NULL: the owner services the Tile Cache's miss_out/fill_in itself (unit test
     * seam, tests/timing_tile_fetcher/); the simulator always has a memory system. */
    if (env->mem && memsys_add_cache_port(env->mem, "tile_cache", t->tcache) < 0)
        return memsys_port_error("tile_cache", err, errlen);
    t->npt = (uint32_t)tbr_cfg_uint(env->cfg, "tile.primitive_table_entries");
    t->ring_cap = t->npt + 64;
    t->pt = tbr_xcalloc(t->ring_cap, sizeof *t->pt);
    simq_init(&t->attr_wait, t->ring_cap);
    t->busy = tbr_stats_counter(env->st, "tf.busy_cycles", "Tile Fetcher cycles that sent a Tile Cache request");
    t->stall = tbr_stats_counter(env->st, "tf.stall_cycles", "Tile Fetcher cycles with work but no request sent");
    t->idle = tbr_stats_counter(env->st, "tf.idle_cycles", "Tile Fetcher cycles without work");
    t->ptr_reqs = tbr_stats_counter(env->st, "tf.pointer_requests", "primitive pointer reads");
    t->attr_reqs = tbr_stats_counter(env->st, "tf.attribute_requests", "primitive attribute reads");
    t->pt_full = tbr_stats_counter(env->st, "tf.primitive_table_full_cycles",
                                   "cycles stage 1 waited for a Primitive Table entry");
    return 0;
}

void tf_connect(tile_fetcher *t, const tf_raster_units *rus) { t->rus = *rus; }

void tf_free(tile_fetcher *t)
{
    free(t->pt);
    free(t->order);
    simq_free(&t->attr_wait);
    tbr_cache_free(t->tcache);
}

void tf_reset(tile_fetcher *t)
{
    if (t->order) memset(t->order, 0, t->cap_order * sizeof *t->order);
    t->norder = t->cur = t->pos = 0;
    t->began = false;
    memset(t->pt, 0, t->ring_cap * sizeof *t->pt);
    t->pt_head = t->pt_count = t->pt_prims = 0;
    t->ru_of_cur = t->dispatch_wait = 0;
    t->ptr_reg = 0; /* as tf_init left it; tf_begin_pass sets -1 */
    simq_reset(&t->attr_wait);
    tbr_cache_reset(t->tcache);
    t->next_id = 0;
}

void tf_begin_pass(tile_fetcher *t)
{
    const sim_env *env = t->env;
    uint32_t n = env->tiles_x * env->tiles_y;
    if (n > t->cap_order) {
        t->order = tbr_xrealloc(t->order, n * sizeof *t->order);
        t->cap_order = n;
    }
    tile_schedule_order(t->order_kind, env->tiles_x, env->tiles_y, t->order);
    tbr_techniques_order(env->tech, t->order, env->tiles_x, env->tiles_y, t->rus.n); /* e.g. work tiles */
    t->norder = n;
    t->cur = t->pos = 0;
    t->began = false;
    t->dispatch_wait = 0;
    t->pt_head = t->pt_count = t->pt_prims = 0;
    t->ptr_reg = -1;
}

static pt_entry *ring_push(tile_fetcher *t)
{
    pt_entry *e = &t->pt[(t->pt_head + t->pt_count) % t->ring_cap];
    memset(e, 0, sizeof *e);
    e->ru = t->ru_of_cur;
    t->pt_count++;
    return e;
}

static bool all_ru_idle(const tile_fetcher *t)
{
    for (uint32_t i = 0; i < t->rus.n; i++)
        if (!t->rus.idle(t->rus.ctx, i)) return false;
    return true;
}

/* Raster Unit for the next tile: the tile-to-unit assignment hook (e.g. PTR's policies,
 * techniques/ptr.c), interleaved over the schedule without one. */
static uint32_t pick_ru(const tile_fetcher *t)
{
    return tbr_techniques_assign(t->env->tech, t->cur, t->rus.n, t->rus.tiles_done, t->rus.ctx);
}

/* Mirrors tf_tick: quiescent while the oldest entry waits for its responses or for room
 * in its Raster Unit's Tile Queue, requests wait for the Tile Cache queue, and stage 1
 * waits for a Primitive Table entry or (baseline fetcher) for the Raster Units. */
uint64_t tf_next_event(const tile_fetcher *t)
{
    const sim_env *env = t->env;
    uint64_t now = env->now, ne = UINT64_MAX;
    GPU_EVENT_AT(ne, now, tbr_memq_head_ready(tbr_cache_resp_out(t->tcache)));
    if (t->pt_count) { /* stage 4 */
        const pt_entry *e = &t->pt[t->pt_head];
        if ((e->marker || (e->ptr_done && !e->pending && e->sent == e->nattrs)) && !simq_full(t->rus.tile_q[e->ru]))
            return now;
    }
    bool req_full = tbr_memq_full(tbr_cache_req_in(t->tcache)); /* arbiter */
    uint64_t attr = simq_head_ready(&t->attr_wait);
    if (attr <= now) {
        if (!req_full) return now;
    } else {
        GPU_EVENT_AT(ne, now, attr);
        if (t->ptr_reg >= 0 && !req_full) return now;
    }
    if (t->ptr_reg < 0 && t->cur < t->norder && t->pt_count < t->ring_cap) { /* stage 1 */
        uint32_t tile = t->order[t->cur];
        if (!t->began) {
            if (tbr_techniques_dispatching(env->tech) || t->pipelined || (t->pt_count == 0 && all_ru_idle(t)))
                return now;
        } else if (t->pos >= t->pb->lists[tile].n || t->pt_prims < t->npt) {
            return now;
        }
    }
    GPU_EVENT_AT(ne, now, tbr_cache_next_event(t->tcache, now));
    return ne;
}

void tf_tick(tile_fetcher *t)
{
    const sim_env *env = t->env;
    uint64_t now = env->now;
    const uint64_t n = env->ncyc ? env->ncyc : 1; /* cycles simulated by this call (> 1: quiescent, sim_env.h) */
    /* stage 3: responses from the Tile Cache */
    const tbr_mem_msg *m;
    tbr_memq *resp = tbr_cache_resp_out(t->tcache);
    while ((m = tbr_memq_peek(resp, now))) {
        pt_entry *e = &t->pt[(m->id >> 1) % t->ring_cap];
        if (m->id & 1) {
            if (e->pending) e->pending--;
        } else {
            e->ptr_done = true;
            simq_push(&t->attr_wait, (uint32_t)(m->id >> 1), now + 1);
        }
        tbr_memq_pop(resp);
    }
    /* stage 4: in-order push of the oldest entry into its Raster Unit's Tile Queue */
    while (t->pt_count) {
        pt_entry *e = &t->pt[t->pt_head];
        sim_queue *tq = t->rus.tile_q[e->ru];
        uint32_t tok;
        if (e->marker)
            tok = e->marker;
        else if (e->ptr_done && !e->pending && e->sent == e->nattrs)
            tok = TOK(TOK_ITEM, e->prim);
        else
            break;
        if (!simq_push(tq, tok, now + 1)) break;
        if (!e->marker) t->pt_prims--;
        t->pt_head = (t->pt_head + 1) % t->ring_cap;
        t->pt_count--;
    }
    /* arbiter: one request per cycle to the single-ported Tile Cache, attributes first */
    bool sent = false;
    tbr_memq *req = tbr_cache_req_in(t->tcache);
    uint32_t ei;
    if (simq_peek(&t->attr_wait, now, &ei)) {
        pt_entry *e = &t->pt[ei];
        tbr_mem_msg rq = {.addr = t->pb->attr_base + t->pb->prim_attr_off[e->prim] + (uint64_t)e->sent * 48,
                          .id = ((uint64_t)ei << 1) | 1,
                          .issued = now,
                          .ready = now};
        if (tbr_memq_push(req, &rq)) {
            sent = true;
            tbr_stat_inc(t->attr_reqs);
            if (++e->sent == e->nattrs) simq_pop(&t->attr_wait);
        }
    } else if (t->ptr_reg >= 0) {
        pt_entry *e = &t->pt[t->ptr_reg];
        tbr_mem_msg rq = {.addr = t->pb->list_base + (uint64_t)e->tile * ADDR_PB_LIST_STRIDE + (uint64_t)t->pos * 4 - 4,
                          .id = (uint64_t)t->ptr_reg << 1,
                          .issued = now,
                          .ready = now};
        if (tbr_memq_push(req, &rq)) {
            sent = true;
            tbr_stat_inc(t->ptr_reqs);
            t->ptr_reg = -1;
        }
    }
    /* stage 1: next primitive pointer of the current tile */
    bool waiting = false;
    if (t->ptr_reg < 0 && t->cur < t->norder && t->pt_count < t->ring_cap) {
        uint32_t tile = t->order[t->cur];
        /* tile dispatch hook: a technique's cycles before the tile starts (e.g. RE reads and
         * compares its signatures, sec. III-C), or the tile is skipped (RE: equal
         * signatures, the whole raster pipeline is skipped) */
        uint32_t dispatch_cycles =
            !t->began && tbr_techniques_dispatching(env->tech) ? tbr_techniques_dispatch_cycles(env->tech) : 0;
        if (!t->began && t->dispatch_wait < dispatch_cycles) {
            t->dispatch_wait++;
            waiting = true;
        } else if (!t->began && tbr_techniques_tile_skipped(env->tech, tile)) {
            t->dispatch_wait = 0;
            t->cur++;
        } else if (!t->began) {
            if (t->pipelined || (t->pt_count == 0 && all_ru_idle(t))) {
                t->dispatch_wait = 0;
                t->ru_of_cur = pick_ru(t);
                pt_entry *e = ring_push(t);
                e->marker = TOK(TOK_BEGIN, tile);
                e->tile = tile;
                t->began = true;
                t->pos = 0;
            } else {
                waiting = true;
            }
        } else if (t->pos < t->pb->lists[tile].n) {
            if (t->pt_prims < t->npt) {
                pt_entry *e = ring_push(t);
                e->tile = tile;
                e->prim = t->pb->lists[tile].prims[t->pos];
                e->nattrs = env->frame->prims[e->prim].nr_attrs ? env->frame->prims[e->prim].nr_attrs : 1;
                e->pending = e->nattrs;
                t->pt_prims++;
                t->pos++;
                t->ptr_reg = (int)((t->pt_head + t->pt_count - 1) % t->ring_cap);
            } else {
                tbr_stat_add(t->pt_full, n);
                waiting = true;
            }
        } else {
            pt_entry *e = ring_push(t);
            e->marker = TOK(TOK_END, tile);
            e->tile = tile;
            t->cur++;
            t->began = false;
        }
    }
    if (sent)
        tbr_stat_inc(t->busy);
    else if (t->pt_count || t->cur < t->norder || waiting)
        tbr_stat_add(t->stall, n);
    else
        tbr_stat_add(t->idle, n);
    tbr_cache_tick_n(t->tcache, now, n);
}

bool tf_done(const tile_fetcher *t) { return t->cur >= t->norder && !t->pt_count && tbr_cache_idle(t->tcache); }
