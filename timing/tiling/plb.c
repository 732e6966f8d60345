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

#include "gpu.h"

void plb_init(gpu *g)
{
    plb_unit *p = &g->plb;
    memset(p, 0, sizeof *p);
    p->port = memsys_add_port(g->env.mem, "plb", 16);
    p->busy =
        tbr_stats_counter(g->env.st, "plb.busy_cycles", "Polygon List Builder cycles writing attributes or pointers");
    p->stall =
        tbr_stats_counter(g->env.st, "plb.stall_cycles", "Polygon List Builder cycles blocked by the memory port");
    p->idle = tbr_stats_counter(g->env.st, "plb.idle_cycles", "Polygon List Builder cycles without a primitive");
    p->bins = tbr_stats_counter(g->env.st, "plb.tile_bins", "primitive pointers written to tile lists");
    p->culled = tbr_stats_counter(g->env.st, "plb.culled_prims", "primitives dropped (culled by setup)");
    p->pb_bytes = tbr_stats_counter(g->env.st, "plb.pb_write_bytes", "Parameter Buffer bytes written (full lines)");
}

void plb_free(gpu *g)
{
    plb_unit *p = &g->plb;
    for (uint32_t i = 0; i < p->pb.cap_tiles; i++) free(p->pb.lists[i].prims);
    free(p->pb.lists);
    free(p->pb.prim_attr_off);
}

void plb_begin_pass(gpu *g)
{
    plb_unit *p = &g->plb;
    uint32_t nt = g->env.tiles_x * g->env.tiles_y;
    if (nt > p->pb.cap_tiles) {
        p->pb.lists = realloc(p->pb.lists, nt * sizeof *p->pb.lists);
        if (!p->pb.lists) abort();
        memset(p->pb.lists + p->pb.cap_tiles, 0, (nt - p->pb.cap_tiles) * sizeof *p->pb.lists);
        p->pb.cap_tiles = nt;
    }
    for (uint32_t i = 0; i < nt; i++) p->pb.lists[i].n = 0;
    p->pb.ntiles = nt;
    if (g->env.frame->nprims > p->pb.cap_prim) {
        p->pb.cap_prim = (uint32_t)g->env.frame->nprims;
        p->pb.prim_attr_off = realloc(p->pb.prim_attr_off, p->pb.cap_prim * sizeof *p->pb.prim_attr_off);
        if (!p->pb.prim_attr_off) abort();
    }
    p->has_prim = false;
    p->attr_addr = 0;
    p->attr_line_open = 0;
    p->cx = UINT32_MAX; /* drain cursor for partial list lines (set when binning ends) */
}

static bool write_line(gpu *g, uint64_t addr)
{
    tbr_mem_msg m = {.addr = addr & ~(uint64_t)63, .issued = g->env.now, .ready = g->env.now, .write = 1, .wb = 1};
    if (!tbr_memq_push(memsys_req(g->env.mem, g->plb.port), &m)) return false;
    tbr_stat_add(g->plb.pb_bytes, 64);
    g->plb.progress++;
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
uint64_t plb_next_event(const gpu *g)
{
    const plb_unit *p = &g->plb;
    uint64_t now = g->env.now;
    bool port_full = tbr_memq_full(memsys_req(g->env.mem, p->port));
    if (!p->has_prim) {
        if (g->geo.prim_q.count) {
            uint64_t r = simq_head_ready(&g->geo.prim_q);
            return r <= now ? now : r;
        }
        if (p->cx != UINT32_MAX && geometry_done(g) && p->cx < p->pb.ntiles)
            if (p->pb.lists[p->cx].n % 16 == 0 || !port_full) return now;
        return UINT64_MAX;
    }
    if (p->attr_lines_left) return port_full ? UINT64_MAX : now;
    if (tbr_techniques_binning(g->env.tech)) return now;
    uint32_t t = p->cy * g->env.tiles_x + p->cx;
    return (p->pb.lists[t].n + 1) % 16 == 0 && port_full ? UINT64_MAX : now;
}

void plb_tick(gpu *g)
{
    plb_unit *p = &g->plb;
    const sim_frame *f = g->env.frame;
    const uint64_t n = g->env.ncyc; /* cycles simulated by this call (> 1: quiescent, gpu.h) */
    if (!p->has_prim) {
        uint32_t prim;
        if (simq_peek(&g->geo.prim_q, g->env.now, &prim)) {
            const sim_prim *sp = &f->prims[prim];
            bool culled = (sp->flags & TBR_REC_PRIM_CULLED) || !p->pb.ntiles || sp->maxx < 0 || sp->maxy < 0 ||
                          sp->minx >= (float)(g->env.tiles_x * g->env.tile_w) ||
                          sp->miny >= (float)(g->env.tiles_y * g->env.tile_h);
            if (!culled && !tbr_techniques_bin_can_accept(g->env.tech)) { /* e.g. RE: attribute buffer full */
                tbr_stat_inc(p->stall);
                return;
            }
            simq_pop(&g->geo.prim_q);
            p->progress++;
            if (culled) {
                tbr_techniques_bin_dropped(g->env.tech, prim);
                tbr_stat_inc(p->culled);
                tbr_stat_inc(p->busy);
                return;
            }
            p->has_prim = true;
            p->prim = prim;
            p->tx0 = clampu(sp->minx, g->env.tile_w, g->env.tiles_x);
            p->tx1 = clampu(sp->maxx, g->env.tile_w, g->env.tiles_x);
            p->ty0 = clampu(sp->miny, g->env.tile_h, g->env.tiles_y);
            p->ty1 = clampu(sp->maxy, g->env.tile_h, g->env.tiles_y);
            p->cx = p->tx0;
            p->cy = p->ty0;
            tbr_techniques_bin_accept(g->env.tech, prim, (p->tx1 - p->tx0 + 1) * (p->ty1 - p->ty0 + 1));
            uint32_t nv = sp->kind >= 1 && sp->kind <= 3 ? sp->kind : 3;
            uint64_t bytes = (uint64_t)nv * (sp->nr_attrs ? sp->nr_attrs : 1) * 16;
            p->pb.prim_attr_off[prim] = (uint32_t)p->attr_addr;
            uint64_t end = p->attr_addr + bytes;
            p->attr_lines_left = (uint32_t)(end / 64 - p->attr_addr / 64); /* lines completed by this primitive */
            p->attr_line_open = p->attr_addr / 64;
            p->attr_addr = end;
        } else {
            /* Binning finished: write the partial last line of every tile list. */
            if (p->cx != UINT32_MAX && geometry_done(g) && simq_empty(&g->geo.prim_q)) {
                while (p->cx < p->pb.ntiles && p->pb.lists[p->cx].n % 16 == 0) p->cx++;
                if (p->cx < p->pb.ntiles) {
                    if (write_line(g, ADDR_PB_LIST_BASE + (uint64_t)p->cx * ADDR_PB_LIST_STRIDE +
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
        if (write_line(g, ADDR_PB_ATTR_BASE + p->attr_line_open * 64)) {
            p->attr_line_open++;
            p->attr_lines_left--;
            tbr_stat_inc(p->busy);
        } else {
            tbr_stat_add(p->stall, n);
        }
        return;
    }
    bool stalled = false;
    for (uint32_t k = 0; k < g->plb_tpc && p->has_prim; k++) {
        uint32_t t = p->cy * g->env.tiles_x + p->cx;
        tile_list *l = &p->pb.lists[t];
        if (!tbr_techniques_bin_tile_can_push(g->env.tech)) { /* e.g. RE: Overlapped-Tiles queue full */
            stalled = true;
            break;
        }
        if ((l->n + 1) % 16 == 0 &&
            !write_line(g, ADDR_PB_LIST_BASE + (uint64_t)t * ADDR_PB_LIST_STRIDE + (uint64_t)l->n * 4)) {
            stalled = true;
            break;
        }
        if (l->n == l->cap) {
            l->cap = l->cap ? l->cap * 2 : 16;
            l->prims = realloc(l->prims, l->cap * sizeof *l->prims);
            if (!l->prims) abort();
        }
        l->prims[l->n++] = p->prim;
        tbr_techniques_bin_tile_push(g->env.tech, t);
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

bool plb_done(const gpu *g)
{
    const plb_unit *p = &g->plb;
    return geometry_done(g) && simq_empty(&g->geo.prim_q) && !p->has_prim && p->cx >= p->pb.ntiles;
}
