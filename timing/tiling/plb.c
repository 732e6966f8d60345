/* Polygon List Builder (thesis §2.2, §4.1.2 Fig. 4.4): bins every primitive that survived
 * setup into the screen tiles its bounding box overlaps and writes the Parameter Buffer
 * in main memory: the primitive's attributes (3 vertices x nr_attrs x 16 B, once) and one
 * 4-byte primitive pointer appended to each overlapped tile's list. Writes are combined
 * into full 64-byte lines (write-back of whole lines, no read-for-ownership); partial
 * list lines are written when the pass's binning ends. Culled primitives (setup
 * rejected them: back faces, zero area) are dropped, as the hardware culls before
 * binning. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tiling/plb.h"
#include "core/util.h"

#include "tiling/tile_order.h"

int plb_init(plb_unit *p, sim_env *env, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->env = env;
    p->tiles_per_cycle = (uint32_t)tbr_cfg_uint(env->cfg, "plb.tiles_per_cycle");
    p->pb.list_base = ADDR_PB_LIST_BASE;
    p->pb.attr_base = ADDR_PB_ATTR_BASE;
    p->port = memsys_add_port(env->mem, "plb", 16);
    if (p->port < 0) return memsys_port_error("plb", err, errlen);
    p->busy =
        tbr_stats_counter(env->st, "plb.busy_cycles", "Polygon List Builder cycles writing attributes or pointers");
    p->stall = tbr_stats_counter(env->st, "plb.stall_cycles", "Polygon List Builder cycles blocked by the memory port");
    p->idle = tbr_stats_counter(env->st, "plb.idle_cycles", "Polygon List Builder cycles without a primitive");
    p->bins = tbr_stats_counter(env->st, "plb.tile_bins", "primitive pointers written to tile lists");
    p->culled = tbr_stats_counter(env->st, "plb.culled_prims", "primitives dropped (culled by setup)");
    p->pb_bytes = tbr_stats_counter(env->st, "plb.pb_write_bytes", "Parameter Buffer bytes written (full lines)");
    return 0;
}

void plb_connect(plb_unit *p, sim_queue *in, bool (*upstream_done)(const void *ctx), const void *upstream)
{
    p->in = in;
    p->upstream_done = upstream_done;
    p->upstream = upstream;
}

void plb_free(plb_unit *p)
{
    for (uint32_t i = 0; i < p->pb.cap_tiles; i++) free(p->pb.lists[i].prims);
    free(p->pb.lists);
    free(p->pb.prim_attr_off);
}

void plb_reset(plb_unit *p)
{
    p->has_prim = false;
    p->prim = p->tx0 = p->ty0 = p->tx1 = p->ty1 = p->cx = p->cy = 0;
    p->attr_lines_left = 0;
    p->attr_addr = p->attr_line_open = 0;
    for (uint32_t i = 0; i < p->pb.cap_tiles; i++) p->pb.lists[i].n = 0;
    p->pb.ntiles = 0;
    if (p->pb.prim_attr_off) memset(p->pb.prim_attr_off, 0, p->pb.cap_prim * sizeof *p->pb.prim_attr_off);
    p->progress = p->pass_bytes = 0;
}

void plb_begin_pass(plb_unit *p)
{
    const sim_env *env = p->env;
    uint32_t nt = env->tiles_x * env->tiles_y;
    if (nt > p->pb.cap_tiles) {
        p->pb.lists = tbr_xrealloc(p->pb.lists, nt * sizeof *p->pb.lists);
        memset(p->pb.lists + p->pb.cap_tiles, 0, (nt - p->pb.cap_tiles) * sizeof *p->pb.lists);
        p->pb.cap_tiles = nt;
    }
    for (uint32_t i = 0; i < nt; i++) p->pb.lists[i].n = 0;
    p->pb.ntiles = nt;
    if (env->frame->nprims > p->pb.cap_prim) {
        p->pb.cap_prim = (uint32_t)env->frame->nprims;
        p->pb.prim_attr_off = tbr_xrealloc(p->pb.prim_attr_off, p->pb.cap_prim * sizeof *p->pb.prim_attr_off);
    }
    p->has_prim = false;
    p->pass_bytes = 0;
    p->attr_addr = 0;
    p->attr_line_open = 0;
    p->cx = UINT32_MAX; /* drain cursor for partial list lines (set when binning ends) */
}

static bool write_line(plb_unit *p, uint64_t addr)
{
    const sim_env *env = p->env;
    tbr_mem_msg m = {.addr = addr & ~(uint64_t)63, .issued = env->now, .ready = env->now, .write = 1, .wb = 1};
    if (!tbr_memq_push(memsys_req(env->mem, p->port), &m)) return false;
    tbr_stat_add(p->pb_bytes, 64);
    p->pass_bytes += 64;
    p->progress++;
    return true;
}

static uint32_t clampu(float v, unsigned size, unsigned n)
{
    if (!(v > 0)) return 0;
    float t = floorf(v) / (float)size;
    return t >= (float)n ? n - 1 : (uint32_t)t;
}

/* Mirrors plb_tick: quiescent while idle or while a line write waits for the port; with
 * Rendering Elimination on, every cycle with a primitive counts as an event. */
uint64_t plb_next_event(const plb_unit *p)
{
    const sim_env *env = p->env;
    uint64_t now = env->now;
    bool port_full = tbr_memq_full(memsys_req(env->mem, p->port));
    if (!p->has_prim) {
        if (p->in->count) {
            uint64_t r = simq_head_ready(p->in);
            return r <= now ? now : r;
        }
        if (p->cx != UINT32_MAX && p->upstream_done(p->upstream) && p->cx < p->pb.ntiles)
            if (p->pb.lists[p->cx].n % 16 == 0 || !port_full) return now;
        return UINT64_MAX;
    }
    if (p->attr_lines_left) return port_full ? UINT64_MAX : now;
    if (tbr_techniques_binning(env->tech)) return now;
    uint32_t t = p->cy * env->tiles_x + p->cx;
    return (p->pb.lists[t].n + 1) % 16 == 0 && port_full ? UINT64_MAX : now;
}

void plb_tick(plb_unit *p)
{
    const sim_env *env = p->env;
    const sim_frame *f = env->frame;
    const uint64_t n = env->ncyc; /* cycles simulated by this call (> 1: quiescent, sim_env.h) */
    if (!p->has_prim) {
        uint32_t prim;
        if (simq_peek(p->in, env->now, &prim)) {
            const sim_prim *sp = &f->prims[prim];
            bool culled = (sp->flags & TBR_REC_PRIM_CULLED) || !p->pb.ntiles || sp->maxx < 0 || sp->maxy < 0 ||
                          sp->minx >= (float)(env->tiles_x * env->tile_w) ||
                          sp->miny >= (float)(env->tiles_y * env->tile_h);
            if (!culled && !tbr_techniques_bin_can_accept(env->tech)) { /* e.g. RE: attribute buffer full */
                tbr_stat_inc(p->stall);
                return;
            }
            simq_pop(p->in);
            p->progress++;
            if (culled) {
                tbr_techniques_bin_dropped(env->tech, prim);
                tbr_stat_inc(p->culled);
                tbr_stat_inc(p->busy);
                return;
            }
            p->has_prim = true;
            p->prim = prim;
            p->tx0 = clampu(sp->minx, env->tile_w, env->tiles_x);
            p->tx1 = clampu(sp->maxx, env->tile_w, env->tiles_x);
            p->ty0 = clampu(sp->miny, env->tile_h, env->tiles_y);
            p->ty1 = clampu(sp->maxy, env->tile_h, env->tiles_y);
            p->cx = p->tx0;
            p->cy = p->ty0;
            tbr_techniques_bin_accept(env->tech, prim, (p->tx1 - p->tx0 + 1) * (p->ty1 - p->ty0 + 1));
            uint32_t nv = sp->kind >= 1 && sp->kind <= 3 ? sp->kind : 3;
            uint64_t bytes = (uint64_t)nv * (sp->nr_attrs ? sp->nr_attrs : 1) * 16;
            p->pb.prim_attr_off[prim] = (uint32_t)p->attr_addr;
            uint64_t end = p->attr_addr + bytes;
            p->attr_lines_left = (uint32_t)(end / 64 - p->attr_addr / 64); /* lines completed by this primitive */
            p->attr_line_open = p->attr_addr / 64;
            p->attr_addr = end;
        } else {
            /* Binning finished: write the partial last line of every tile list. */
            if (p->cx != UINT32_MAX && p->upstream_done(p->upstream) && simq_empty(p->in)) {
                while (p->cx < p->pb.ntiles && p->pb.lists[p->cx].n % 16 == 0) p->cx++;
                if (p->cx < p->pb.ntiles) {
                    if (write_line(p, p->pb.list_base + (uint64_t)p->cx * ADDR_PB_LIST_STRIDE +
                                          (uint64_t)p->pb.lists[p->cx].n * 4)) {
                        p->cx++;
                        tbr_stat_inc(p->busy);
                    } else {
                        tbr_stat_add(p->stall, n);
                    }
                    return;
                }
            }
            tbr_stat_add(p->idle, n);
            return;
        }
    }
    /* Attributes first (one line per cycle), then tile pointers (plb.tiles_per_cycle). */
    if (p->attr_lines_left) {
        if (write_line(p, p->pb.attr_base + p->attr_line_open * 64)) {
            p->attr_line_open++;
            p->attr_lines_left--;
            tbr_stat_inc(p->busy);
        } else {
            tbr_stat_add(p->stall, n);
        }
        return;
    }
    bool stalled = false;
    for (uint32_t k = 0; k < p->tiles_per_cycle && p->has_prim; k++) {
        uint32_t t = p->cy * env->tiles_x + p->cx;
        tile_list *l = &p->pb.lists[t];
        if (!tbr_techniques_bin_tile_can_push(env->tech)) { /* e.g. RE: Overlapped-Tiles queue full */
            stalled = true;
            break;
        }
        if ((l->n + 1) % 16 == 0 &&
            !write_line(p, p->pb.list_base + (uint64_t)t * ADDR_PB_LIST_STRIDE + (uint64_t)l->n * 4)) {
            stalled = true;
            break;
        }
        if (l->n == l->cap) {
            l->cap = l->cap ? l->cap * 2 : 16;
            l->prims = tbr_xrealloc(l->prims, l->cap * sizeof *l->prims);
        }
        l->prims[l->n++] = p->prim;
        tbr_techniques_bin_tile_push(env->tech, t);
        tbr_stat_inc(p->bins);
        p->progress++;
        if (++p->cx > p->tx1) {
            p->cx = p->tx0;
            if (++p->cy > p->ty1) p->has_prim = false;
        }
    }
    if (stalled)
        tbr_stat_add(p->stall, n);
    else
        tbr_stat_inc(p->busy);
    if (!p->has_prim) p->cx = 0;
}

bool plb_done(const plb_unit *p)
{
    return p->upstream_done(p->upstream) && simq_empty(p->in) && !p->has_prim && p->cx >= p->pb.ntiles;
}
