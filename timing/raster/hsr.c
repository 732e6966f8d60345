/* Hidden Surface Removal (hsr.h; seeds/003 sec. II-C, Fig. 2). The decision is a tag
 * buffer: HSR tests every fragment of the tile in submission order (the trace's depth
 * and stencil results are those tests, made with each draw's own state); a fragment of an
 * opaque draw that passes becomes the pixel's visible fragment and hides the one before
 * it; a pass-through fragment (blending, colour mask, logic op) keeps the one before it
 * and is shaded itself; anything other than a quad in the tile's list (a clear, a tile
 * load/store event) keeps every pixel's visible fragment, since softpipe's image at that
 * point must hold it. */
#include "raster/hsr.h"

#include <stdlib.h>
#include <string.h>

#include "raster/tile_lines.h"
#include "tiling/tile_tokens.h"

hsr_draw_class hsr_classify_draw(const tbr_rec_draw *d)
{
    if (d->fs_uses_kill || d->alpha_enabled || d->alpha_to_coverage || d->fs_writes_z || d->fs_writes_stencil)
        return HSR_UNDECIDABLE;
    if (d->logicop_enable || d->nr_cbufs == 0) return HSR_PASS_THROUGH;
    for (uint32_t i = 0; i < d->nr_cbufs && i < TBR_REC_MAX_CBUFS; i++) {
        const tbr_rec_rt_blend *rt = &d->rt[d->independent_blend_enable ? i : 0];
        if (rt->blend_enable || rt->colormask != 0xf) return HSR_PASS_THROUGH;
    }
    return HSR_OPAQUE;
}

void hsr_visibility_init(hsr_visibility *v, const tbr_config *cfg, tbr_stats *st)
{
    memset(v, 0, sizeof *v);
    v->enabled = tbr_cfg_bool(cfg, "hsr.enabled");
    v->buffer_prims = (uint32_t)tbr_cfg_uint(cfg, "hsr.buffer_prims");
    v->tile_w = (uint32_t)tbr_cfg_uint(cfg, "tile.width");
    v->tile_h = (uint32_t)tbr_cfg_uint(cfg, "tile.height");
    size_t px = (size_t)v->tile_w * v->tile_h;
    v->tag_quad = tbr_xcalloc(px, sizeof *v->tag_quad);
    v->tag_lane = tbr_xcalloc(px, 1);
    v->written = tbr_xcalloc(px, 1);
    if (!v->enabled) return; /* statistics only when HSR exists */
    v->tiles_decided = tbr_stats_counter(st, "hsr.tiles_decided", "tiles whose visibility HSR decided");
    v->fallback_shader = tbr_stats_counter(
        st, "hsr.fallback_tiles_shader",
        "tiles rendered as plain TBR: a draw's visibility depends on its fragment shader (discard, alpha test, "
        "shader depth/stencil writes)");
    v->fallback_buffer = tbr_stats_counter(st, "hsr.fallback_tiles_buffer",
                                           "tiles rendered as plain TBR: more primitives than hsr.buffer_prims");
    v->frags_written = tbr_stats_counter(
        st, "hsr.fragments_written_before",
        "fragments of decided tiles that pass depth/stencil and write colour without HSR (overdraw before)");
    v->frags_removed = tbr_stats_counter(st, "hsr.fragments_removed",
                                         "fragments HSR removed: hidden by a later opaque fragment of the pixel");
    v->frags_passed = tbr_stats_counter(st, "hsr.fragments_passed_through",
                                        "fragments HSR could not decide and shaded (blending, colour mask, logic op)");
    v->quads_removed =
        tbr_stats_counter(st, "hsr.quads_removed", "quads with every fragment removed by HSR (not shaded)");
    v->pixels_written = tbr_stats_counter(
        st, "hsr.pixels_written",
        "pixels of decided tiles written at least once (overdraw = fragments written per pixel written)");
}

void hsr_visibility_free(hsr_visibility *v)
{
    free(v->keep);
    free(v->decided);
    free(v->tag_quad);
    free(v->tag_lane);
    free(v->written);
}

void hsr_visibility_begin_pass(hsr_visibility *v, const sim_frame *f, uint32_t ntiles)
{
    if (!v->enabled) return;
    if (f->nquads > v->cap_keep) {
        v->cap_keep = f->nquads;
        free(v->keep);
        v->keep = tbr_xcalloc(v->cap_keep, 1);
    }
    if (ntiles > v->cap_tiles) {
        v->cap_tiles = ntiles;
        free(v->decided);
        v->decided = tbr_xcalloc(v->cap_tiles, 1);
    }
    memset(v->decided, 0, ntiles);
}

static inline uint32_t written_lanes(const sim_quad *q)
{
    return (q->flags & TBR_REC_QUAD_BLENDED) ? q->blend_mask : 0;
}

/* The tile falls back to TBR: a fragment whose visibility its shader decides. */
static bool tile_undecidable(const sim_frame *f, const uint32_t *items, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        const sim_item *it = &f->items[items[k]];
        if (it->kind != SIM_ITEM_QUAD || !f->quads[it->idx].in_mask) continue;
        if (hsr_classify_draw(&f->draws[f->quads[it->idx].draw].rec) == HSR_UNDECIDABLE) return true;
    }
    return false;
}

/* One quad through the tag buffer of the tile at (ox, oy). */
static void tag_quad(hsr_visibility *v, const sim_frame *f, uint32_t qi, int ox, int oy)
{
    const sim_quad *q = &f->quads[qi];
    uint32_t written = written_lanes(q);
    bool opaque = hsr_classify_draw(&f->draws[q->draw].rec) == HSR_OPAQUE;
    for (uint32_t j = 0; j < 4; j++) {
        if (!(written & (1u << j))) continue;
        int px = q->x - ox + (int)(j & 1), py = q->y - oy + (int)(j >> 1);
        if (px < 0 || py < 0 || (uint32_t)px >= v->tile_w || (uint32_t)py >= v->tile_h) continue;
        size_t p = (size_t)py * v->tile_w + (size_t)px;
        tbr_stat_inc(v->frags_written);
        if (!v->written[p]) tbr_stat_inc(v->pixels_written);
        v->written[p] = 1;
        if (!opaque) {
            tbr_stat_inc(v->frags_passed);
            v->tag_quad[p] = 0; /* the fragment under it stays */
            continue;
        }
        if (v->tag_quad[p]) {
            v->keep[v->tag_quad[p] - 1] &= (uint8_t) ~(1u << v->tag_lane[p]);
            tbr_stat_inc(v->frags_removed);
        }
        v->tag_quad[p] = qi + 1;
        v->tag_lane[p] = (uint8_t)j;
    }
}

void hsr_visibility_tile(hsr_visibility *v, const sim_func *fn, unsigned tx, unsigned ty, uint32_t nprims)
{
    if (!v->enabled) return;
    const sim_frame *f = fn->frame;
    uint32_t n;
    const uint32_t *items = sim_func_tile_items(fn, tx, ty, &n);
    for (uint32_t k = 0; k < n; k++)
        if (f->items[items[k]].kind == SIM_ITEM_QUAD) v->keep[f->items[items[k]].idx] = 0xf;
    uint32_t t = ty * fn->tiles_x + tx;
    if (nprims > v->buffer_prims) {
        tbr_stat_inc(v->fallback_buffer);
        return;
    }
    if (tile_undecidable(f, items, n)) {
        tbr_stat_inc(v->fallback_shader);
        return;
    }
    v->decided[t] = 1;
    tbr_stat_inc(v->tiles_decided);
    size_t px = (size_t)v->tile_w * v->tile_h;
    memset(v->tag_quad, 0, px * sizeof *v->tag_quad);
    memset(v->written, 0, px);
    int ox = (int)(tx * v->tile_w), oy = (int)(ty * v->tile_h);
    for (uint32_t k = 0; k < n; k++) {
        const sim_item *it = &f->items[items[k]];
        if (it->kind != SIM_ITEM_QUAD) { /* a clear or tile event sees every visible fragment */
            memset(v->tag_quad, 0, px * sizeof *v->tag_quad);
            continue;
        }
        tag_quad(v, f, it->idx, ox, oy);
    }
    for (uint32_t k = 0; k < n; k++) {
        const sim_item *it = &f->items[items[k]];
        if (it->kind == SIM_ITEM_QUAD && hsr_quad_removed(v, &f->quads[it->idx], it->idx))
            tbr_stat_inc(v->quads_removed);
    }
}

/* ---- the HSR stage of a Raster Unit (timing) ---- */

void hsr_stage_init(hsr_stage *h, sim_env *env, uint32_t unit, const hsr_visibility *vis, const raster_energy *en,
                    tbr_stat *quads_tested, tbr_stat *tile_loads)
{
    memset(h, 0, sizeof *h);
    h->env = env;
    h->vis = vis;
    h->en = en;
    h->quads_tested = quads_tested;
    h->tile_loads = tile_loads;
    h->quads_per_cycle = (uint32_t)tbr_cfg_uint(env->cfg, "hsr.quads_per_cycle");
    h->setup_cycles = (uint32_t)tbr_cfg_uint(env->cfg, "hsr.setup_cycles");
    h->tile_buffers = (uint32_t)tbr_cfg_uint(env->cfg, "hsr.tile_buffers");
    /* a decided tile's tokens fit beside the END of the tile before it (hsr.h) */
    simq_init(&h->out, vis->buffer_prims + 2);
    h->busy = tbr_stats_counterf(env->st, "HSR cycles testing quads, setting up primitives or loading depth",
                                 "ru%u.hsr.busy_cycles", unit);
    h->stall = tbr_stats_counterf(env->st, "HSR cycles blocked: all depth buffers in use or its output queue full",
                                  "ru%u.hsr.stall_cycles", unit);
    h->idle = tbr_stats_counterf(env->st, "HSR cycles without input", "ru%u.hsr.idle_cycles", unit);
}

void hsr_stage_connect(hsr_stage *h, sim_queue *in, tbr_memq *mem_req, tbr_memq *mem_resp,
                       const uint32_t *consumer_tiles_done)
{
    h->in = in;
    h->mem_req = mem_req;
    h->mem_resp = mem_resp;
    h->consumer_tiles_done = consumer_tiles_done;
}

void hsr_stage_free(hsr_stage *h) { simq_free(&h->out); }

void hsr_stage_begin_pass(hsr_stage *h) { h->busy_until = 0; }

/* Quads of primitive p in the tile from the cursor on (quads of earlier or unknown
 * primitives count too: the tile's quads are tested once, in list order). */
static uint32_t prim_quads(hsr_stage *h, uint32_t p)
{
    const sim_frame *f = h->env->frame;
    uint32_t nq = 0;
    while (h->cursor < h->nitems) {
        const sim_item *it = &f->items[h->items[h->cursor]];
        if (it->kind == SIM_ITEM_QUAD) {
            uint32_t qp = f->quads[it->idx].prim;
            if (qp != UINT32_MAX && qp > p) break;
            nq++;
        }
        h->cursor++;
    }
    return nq;
}

/* The tile's quads tested from the cursor on: busy for setup + their test time. */
static void test_quads(hsr_stage *h, uint32_t nq, uint32_t setup)
{
    const sim_env *env = h->env;
    h->busy_until = env->now + setup + (nq + h->quads_per_cycle - 1) / h->quads_per_cycle;
    tbr_stat_add(h->quads_tested, nq);
    tbr_energy_count(h->en->hsr_raster, TBR_EV_QUAD, nq); /* HSR's rasterizer: the quad's edge tests */
    tbr_energy_count(h->en->hsr_depth, TBR_EV_READ, nq);  /* its depth buffer: read, 4 compares, write */
    tbr_energy_count(h->en->hsr_ztest, TBR_EV_CMP, 4ull * nq);
    tbr_energy_count(h->en->hsr_depth, TBR_EV_WRITE, nq);
}

static bool mem_send(tbr_memq *req, uint64_t now, uint64_t addr)
{
    tbr_mem_msg m = {.addr = addr, .issued = now, .ready = now};
    return tbr_memq_push(req, &m);
}

/* BEGIN: a depth buffer is free; the tile's old depth is loaded when the pass keeps it. */
static void begin_tile(hsr_stage *h, uint32_t tile)
{
    const sim_env *env = h->env;
    h->in_tile = true;
    h->tile = tile;
    h->tile_decided = h->vis->decided[tile] != 0;
    h->items = sim_func_tile_items(env->fn, tile % env->tiles_x, tile / env->tiles_x, &h->nitems);
    h->cursor = 0;
    h->tiles_begun++;
    int zs = sim_func_zs_surface(env->fn);
    if (zs >= 0 && !env->frame->passes[env->pass].zs_cleared && env->pass_loads_zs) {
        uint32_t lpr;
        h->z_load_left = tile_line_count(env, sim_func_surface(env->fn, zs), tile, &lpr);
        h->z_outstanding = 0;
        h->z_loading = h->z_load_left > 0;
    }
}

static void load_depth_line(hsr_stage *h)
{
    const sim_env *env = h->env;
    const sim_surf *s = sim_func_surface(env->fn, sim_func_zs_surface(env->fn));
    uint32_t lpr, total = tile_line_count(env, s, h->tile, &lpr);
    if (h->z_load_left &&
        mem_send(h->mem_req, env->now, tile_line_addr(env, s, h->tile, total - h->z_load_left, lpr))) {
        h->z_load_left--;
        h->z_outstanding++;
        tbr_stat_inc(h->tile_loads);
        tbr_energy_count(h->en->hsr_depth, TBR_EV_WRITE, h->en->qpl_z); /* loaded line into HSR's depth buffer */
    }
    if (!h->z_load_left && !h->z_outstanding) {
        h->z_loading = false;
        if (!h->tile_decided) h->tiles_ready++; /* a fallback tile waits only for its depth */
    }
}

/* One token of the Tile Queue; false when it cannot move this cycle. */
static bool take_token(hsr_stage *h, uint32_t tok)
{
    const sim_env *env = h->env;
    if (TOK_KIND(tok) == TOK_BEGIN) {
        if (h->tiles_begun - *h->consumer_tiles_done >= h->tile_buffers || !simq_push(&h->out, tok, env->now + 1))
            return false;
        begin_tile(h, TOK_VAL(tok));
        if (!h->tile_decided && !h->z_loading) h->tiles_ready++;
        return true;
    }
    if (TOK_KIND(tok) == TOK_END) {
        if (h->tile_decided && h->cursor < h->nitems) { /* the quads no fetched primitive claimed */
            test_quads(h, prim_quads(h, UINT32_MAX - 1), 0);
            return false;
        }
        if (!simq_push(&h->out, tok, env->now + 1)) return false;
        if (h->tile_decided) h->tiles_ready++;
        h->in_tile = false;
        return true;
    }
    if (!simq_push(&h->out, tok, env->now + 1)) return false;
    if (h->tile_decided) {
        test_quads(h, prim_quads(h, TOK_VAL(tok)), h->setup_cycles);
        tbr_energy_count(h->en->hsr_setup, TBR_EV_PRIM_SETUP, 1);
    }
    return true;
}

void hsr_stage_tick(hsr_stage *h)
{
    const sim_env *env = h->env;
    uint64_t now = env->now, nc = env->ncyc;
    while (tbr_memq_peek(h->mem_resp, now)) {
        if (h->z_outstanding) h->z_outstanding--;
        tbr_memq_pop(h->mem_resp);
    }
    if (h->z_loading) {
        load_depth_line(h);
        tbr_stat_add(h->busy, nc);
        return;
    }
    if (now < h->busy_until) {
        tbr_stat_add(h->busy, nc);
        return;
    }
    uint32_t tok;
    if (!simq_peek(h->in, now, &tok)) {
        tbr_stat_add(h->idle, nc);
        return;
    }
    if (take_token(h, tok)) {
        simq_pop(h->in);
        tbr_stat_inc(h->busy);
    } else if (now < h->busy_until) {
        tbr_stat_inc(h->busy); /* END: the tile's last quads */
    } else {
        tbr_stat_add(h->stall, nc);
    }
}

/* Mirrors hsr_stage_tick: a memory response, a load line the port can take, the end of a
 * test, a token that can move. A token blocked by a full output queue or by busy depth
 * buffers waits for the Rasterizer's event. */
uint64_t hsr_stage_next_event(const hsr_stage *h)
{
    const sim_env *env = h->env;
    uint64_t now = env->now, ne = UINT64_MAX;
    GPU_EVENT_AT(ne, now, tbr_memq_head_ready(h->mem_resp));
    if (h->z_loading) {
        if (h->z_load_left ? !tbr_memq_full(h->mem_req) : !h->z_outstanding) return now;
        return ne;
    }
    if (now < h->busy_until) {
        GPU_EVENT_AT(ne, now, h->busy_until);
        return ne;
    }
    if (!h->in->count) return ne;
    uint64_t t = simq_head_ready(h->in);
    if (t > now) {
        GPU_EVENT_AT(ne, now, t);
        return ne;
    }
    uint32_t tok = h->in->buf[h->in->head];
    if (TOK_KIND(tok) == TOK_BEGIN && h->tiles_begun - *h->consumer_tiles_done >= h->tile_buffers) return ne;
    if (TOK_KIND(tok) == TOK_END && h->tile_decided && h->cursor < h->nitems) return now;
    if (simq_full(&h->out)) return ne;
    return now;
}

bool hsr_stage_idle(const hsr_stage *h)
{
    return !h->in_tile && !h->z_loading && simq_empty(&h->out) && simq_empty(h->in);
}
