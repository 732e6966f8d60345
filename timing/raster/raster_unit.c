/* Raster Unit (thesis §2.2 / §4.1, Table 4.1; one or more, §5.1 PTR):
 * Tile Queue -> Rasterizer -> Post-Rasterization Queue -> Early-Z (on-chip Depth
 * Buffer) -> per-Fragment-Processor input queues -> Fragment Processors -> in-order
 * merge -> Color Queue -> Blending (on-chip Color Buffer; late Z for draws without
 * early Z) -> Color Buffer flush to memory at tile end.
 *
 * Tile markers (BEGIN/END) flow through the queues, so each stage works on one tile at
 * a time while different stages may hold different tiles (the thesis' per-stage tile
 * barriers). The depth buffer is loaded from memory at BEGIN when the pass did not
 * start with a depth clear, the color buffer likewise; at END the color buffer is
 * written back (full lines), then the depth/stencil buffer as depth.store says.
 *
 * The fate of each quad (early-Z kill, shading, blending) is the trace's, which the
 * functional back end re-derives bit-exactly (sim_func.c) when the tile is rendered. */
#include <stdlib.h>
#include <string.h>

#include "raster/raster_unit.h"
#include "core/util.h"

#include <stdio.h>

#include "raster/prefetch.h"
#include "raster/tile_lines.h"
#include "tiling/tile_tokens.h"

void raster_stats_register(raster_stats *rs, tbr_stats *st)
{
    rs->q_raster = tbr_stats_counter(st, "quads.rasterized", "quads emitted by the rasterizers");
    rs->q_ztested = tbr_stats_counter(st, "quads.early_z_tested", "quads tested by Early-Z");
    rs->q_zkilled = tbr_stats_counter(st, "quads.early_z_killed", "quads removed by Early-Z");
    rs->q_late_z = tbr_stats_counter(st, "quads.late_z", "quads depth-tested after shading (no early Z)");
    rs->q_shaded = tbr_stats_counter(st, "quads.shaded", "quads dispatched to fragment processors");
    rs->q_blended = tbr_stats_counter(st, "quads.blended", "quads written by the Blending unit");
    rs->frag_blended = tbr_stats_counter(st, "fragments.blended", "fragments written by the Blending unit");
    rs->tiles = tbr_stats_counter(st, "tiles.rendered", "tiles rendered (all passes)");
    rs->tile_cycles =
        tbr_stats_histogram(st, "tiles.cycles", "cycles between consecutive tile completions of a Raster Unit", 64, 64);
    rs->tile_loads =
        tbr_stats_counter(st, "tiles.buffer_load_lines", "tile buffer lines loaded from memory (pass without clear)");
    rs->tile_flush_lines =
        tbr_stats_counter(st, "tiles.flush_lines", "color buffer lines written to memory at tile end");
    rs->tile_zs_store_lines = tbr_stats_counter(
        st, "tiles.depth_store_lines", "depth/stencil buffer lines written to memory at tile end (depth.store)");
    rs->tile_invalidated_bytes = tbr_stats_counter(
        st, "tiles.invalidated_store_bytes",
        "bytes of tile stores (color and depth/stencil) skipped because the application invalidated the buffer "
        "after the pass's last write (INVALIDATE records; depth.store / color.store auto)");
    rs->tile_undefined_load_bytes = tbr_stats_counter(
        st, "tiles.undefined_load_bytes",
        "bytes of tile buffer loads (color and depth/stencil) skipped because the plane's contents are undefined: "
        "invalidated earlier in the frame (INVALIDATE records, bound or not) and not written since "
        "(tile.restore=used)");
}

enum { ZS_STORE_AUTO, ZS_STORE_ALWAYS, ZS_STORE_NEVER }; /* depth.store, in the table's order */
enum { COLOR_STORE_AUTO, COLOR_STORE_ALWAYS };           /* color.store, in the table's order */

int ru_init(raster_unit *r, sim_env *env, uint32_t id, const raster_stats *stats, const texture_stats *ts,
            icache_unit *icache, const hsr_visibility *vis, shader_pool *pool, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->env = env;
    r->stats = stats;
    r->id = id;
    uint32_t attrs_pc = (uint32_t)tbr_cfg_uint(env->cfg, "raster.attrs_per_cycle");
    r->raster_qpc = attrs_pc / 4 ? attrs_pc / 4 : 1; /* 4 attributes per quad: 16 -> 4 quads/cycle (thesis §4.1) */
    r->raster_setup = (uint32_t)tbr_cfg_uint(env->cfg, "raster.setup_cycles");
    r->blend_qpc = (uint32_t)tbr_cfg_uint(env->cfg, "blend.quads_per_cycle");
    r->zs_store_mode = tbr_cfg_enum(env->cfg, "depth.store");
    r->color_store_mode = tbr_cfg_enum(env->cfg, "color.store");
    simq_init(&r->tile_q, (uint32_t)tbr_cfg_uint(env->cfg, "queue.tile"));
    simq_init(&r->post_raster, (uint32_t)tbr_cfg_uint(env->cfg, "queue.post_raster"));
    simq_init(&r->color_q, (uint32_t)tbr_cfg_uint(env->cfg, "queue.color"));
    uint32_t threads = env->shader.fp_threads;
    r->pool = pool;
    if (pool) { /* unified: its contexts on the pool's cores (shader_pool.h) */
        r->nfp = pool->ncores;
        r->fp = shader_pool_contexts(pool, 1 + id);
        threads = pool->threads;
    } else {
        r->nfp = (uint32_t)tbr_cfg_uint(env->cfg, "fragment.processors");
        r->fp = tbr_xcalloc(r->nfp, sizeof *r->fp);
    }
    r->fp_in = tbr_xcalloc(r->nfp, sizeof *r->fp_in);
    r->tu = tbr_xcalloc(r->nfp, sizeof *r->tu);
    uint32_t pre = (uint32_t)tbr_cfg_uint(env->cfg, "queue.pre_fragment");
    for (uint32_t i = 0; i < r->nfp; i++) {
        if (!pool) {
            char name[48];
            snprintf(name, sizeof name, "ru%u.fp%u", id, i);
            sc_init(&r->fp[i], threads, env->shader.issue_width, env->shader.lat_alu, env->st, name);
            sc_set_latencies(&r->fp[i], env->shader.lat_cls);
        }
        if (tex_unit_init(&r->tu[i], env, &r->fp[i], ts, id * r->nfp + i, err, errlen)) return -1;
        icache_attach(icache, &r->fp[i]);
        simq_init(&r->fp_in[i], pre);
    }
    /* Every ITEM token in `order` is a quad in some fp_in queue or resident in its FP
   * (threads are freed only when the merge pops them), so at most nfp * (pre + threads)
   * items whatever the quad mapping; tile markers use the rest. */
    simq_init(&r->order, r->nfp * (pre + threads) + 64);
    char name[48];
    snprintf(name, sizeof name, "ru%u.depth", id);
    r->zport = memsys_add_port(env->mem, name, 16);
    if (r->zport < 0) return memsys_port_error(name, err, errlen);
    early_z_init(&r->ez, env, id, stats->q_ztested, stats->q_zkilled, stats->q_shaded, stats->tile_loads, &stats->en);
    early_z_connect(&r->ez, &r->post_raster, r->fp_in, r->nfp, &r->order, memsys_req(env->mem, r->zport),
                    memsys_resp(env->mem, r->zport));
    if (vis->enabled) { /* TBDR: HSR loads the tile's depth through the depth port */
        r->hsr = tbr_xcalloc(1, sizeof *r->hsr);
        hsr_stage_init(r->hsr, env, id, vis, &stats->en, stats->q_hsr_tested, stats->tile_loads);
        hsr_stage_connect(r->hsr, &r->tile_q, memsys_req(env->mem, r->zport), memsys_resp(env->mem, r->zport),
                          &r->r_tiles_passed);
        early_z_use_hsr(&r->ez, vis);
        r->r_hsr_wait = tbr_stats_counterf(env->st, "Rasterizer cycles waiting for HSR to finish the next tile",
                                           "ru%u.rasterizer.hsr_wait_cycles", id);
    }
    snprintf(name, sizeof name, "ru%u.color", id);
    r->cport = memsys_add_port(env->mem, name, 16);
    if (r->cport < 0) return memsys_port_error(name, err, errlen);
    if (tbr_cfg_enum(env->cfg, "pipeline.organization") == RU_ORG_IMR) imr_ru_init(r);
#define C(field, fmt, desc) r->field = tbr_stats_counterf(env->st, desc, fmt, id)
    C(r_busy, "ru%u.rasterizer.busy_cycles", "Rasterizer cycles emitting quads or setting up primitives");
    C(r_stall, "ru%u.rasterizer.stall_cycles", "Rasterizer cycles blocked by a full post-rasterization queue");
    C(r_idle, "ru%u.rasterizer.idle_cycles", "Rasterizer cycles without input");
    C(b_busy, "ru%u.blend.busy_cycles", "Blending cycles blending, loading or flushing the color buffer");
    C(b_stall, "ru%u.blend.stall_cycles", "Blending cycles waiting for memory");
    C(b_idle, "ru%u.blend.idle_cycles", "Blending cycles without input");
#undef C
    char n2[64];
    snprintf(n2, sizeof n2, "ru%u.queue.tile.occupancy", id);
    tbr_occupancy_init(&r->qocc_tile, tbr_stats_average(env->st, n2, "tile queue entries per cycle"));
    snprintf(n2, sizeof n2, "ru%u.queue.post_raster.occupancy", id);
    tbr_occupancy_init(&r->qocc_post, tbr_stats_average(env->st, n2, "post-rasterization queue entries per cycle"));
    snprintf(n2, sizeof n2, "ru%u.queue.color.occupancy", id);
    tbr_occupancy_init(&r->qocc_color, tbr_stats_average(env->st, n2, "color queue entries per cycle"));
    return 0;
}

int ru_reset(raster_unit *r)
{
    if (r->hsr || r->zrop || r->pool) return -1; /* TBDR, IMR, unified shaders: no reset yet */
    simq_reset(&r->tile_q);
    simq_reset(&r->post_raster);
    simq_reset(&r->order);
    simq_reset(&r->color_q);
    for (uint32_t i = 0; i < r->nfp; i++) {
        simq_reset(&r->fp_in[i]);
        sc_reset(&r->fp[i]);
        tex_unit_reset(&r->tu[i]);
    }
    r->r_has_prim = r->r_in_tile = r->r_flushing = false;
    r->r_prim = r->r_tile = r->r_nitems = r->r_cursor = r->pend_end = 0;
    r->r_ready = 0;
    r->r_items = NULL;
    if (r->r_emitted) memset(r->r_emitted, 0, r->cap_emitted);
    early_z_reset(&r->ez);
    r->r_tiles_begun = r->r_tiles_passed = 0;
    r->c_tile = r->c_load_left = r->c_outstanding = 0;
    r->c_loading = r->flushing = false;
    r->flush_left = 0;
    r->pass_stores_zs = r->pass_zs_invalidated = false;
    r->pass_color_skip = r->flush_zs_lines = r->flush_zs_lpr = 0;
    r->tile_start_cycle = 0;
    r->tiles_done = 0;
    tbr_occupancy_reset(&r->qocc_tile);
    tbr_occupancy_reset(&r->qocc_post);
    tbr_occupancy_reset(&r->qocc_color);
    return 0;
}

void ru_free(raster_unit *r)
{
    for (uint32_t i = 0; i < r->nfp; i++) {
        if (!r->pool) sc_free(&r->fp[i]); /* (the pool frees its own) */
        simq_free(&r->fp_in[i]);
        tex_unit_free(&r->tu[i]);
    }
    if (!r->pool) free(r->fp);
    free(r->fp_in);
    free(r->tu);
    simq_free(&r->tile_q);
    simq_free(&r->post_raster);
    simq_free(&r->color_q);
    simq_free(&r->order);
    free(r->r_emitted);
    if (r->hsr) hsr_stage_free(r->hsr);
    free(r->hsr);
    imr_ru_free(r);
}

/* depth.store=auto: the pass wrote its depth/stencil buffer (a depth or stencil clear, or
 * a draw with depth writes or a stencil test, whose ops may write) and it is not
 * invalidated (Mesa freedreno resolves what a batch wrote unless invalidated). The one
 * invalidation the trace implies is the swap's: the window's depth/stencil is undefined
 * after eglSwapBuffers (EGL 1.4 sec. 3.9.1), Mesa's dri_flush invalidates it then
 * (__DRI2_FLUSH_INVALIDATE_ANCILLARY), so the frame's last pass binding it is not stored.
 * glInvalidateFramebuffer / glDiscardFramebufferEXT are INVALIDATE records (minor 11): the
 * loader marks the pass's attachments invalidated after their last write (ru_begin_pass). */
static bool pass_zs_dropped_at_swap(const sim_frame *f, size_t pass)
{
    const sim_pass *ps = &f->passes[pass];
    if (!ps->rp.is_default || !f->has_end) return false;
    for (size_t q = pass + 1; q < f->npasses; q++)
        if (f->passes[q].rp.zsbuf.valid && f->passes[q].rp.zsbuf.resource_id == ps->rp.zsbuf.resource_id) return false;
    return true;
}

static bool pass_writes_zs(const sim_env *env)
{
    const sim_frame *f = env->frame;
    const sim_pass *ps = &f->passes[env->pass];
    if (pass_zs_dropped_at_swap(f, env->pass)) return false;
    if (ps->zs_cleared) return true;
    for (uint32_t k = 0; k < ps->nitems; k++) {
        const sim_item *it = &f->items[ps->first_item + k];
        if (it->kind == SIM_ITEM_CLEAR && (f->clears[it->idx].buffers & 3u)) return true;
    }
    for (uint32_t k = 0; k < ps->ndraws; k++) {
        const tbr_rec_draw *d = &f->draws[ps->first_draw + k].rec;
        if (d->depth_enabled && d->depth_writemask) return true;
        for (int s = 0; s < 2; s++)
            if (d->stencil[s].enabled && d->stencil[s].writemask) return true;
    }
    return false;
}

void ru_begin_pass(raster_unit *r)
{
    const sim_env *env = r->env;
    const sim_pass *ps = &env->frame->passes[env->pass];
    r->pass_stores_zs = sim_func_zs_surface(env->fn) >= 0 && r->zs_store_mode != ZS_STORE_NEVER &&
                        (r->zs_store_mode == ZS_STORE_ALWAYS || pass_writes_zs(env));
    /* auto: a store the pass would make is skipped when the application invalidated the
     * buffer after its last write (freedreno's fd_invalidate_resource clears the batch's
     * resolve bits); counted in tiles.invalidated_store_bytes */
    r->pass_zs_invalidated = r->pass_stores_zs && r->zs_store_mode == ZS_STORE_AUTO && ps->zs_invalidated;
    if (r->pass_zs_invalidated) r->pass_stores_zs = false;
    r->pass_color_skip = r->color_store_mode == COLOR_STORE_AUTO ? ps->color_invalidated : 0;
    early_z_begin_pass(&r->ez);
    if (r->hsr) hsr_stage_begin_pass(r->hsr);
    if (r->zrop) /* IMR: what the Z cache drops at the pass end (as the tile store would skip) */
        imr_ru_begin_pass(r, r->zs_store_mode == ZS_STORE_AUTO &&
                                 (ps->zs_invalidated || pass_zs_dropped_at_swap(env->frame, env->pass)));
}

/* Color surfaces bound in the pass: line j of the tile over all of them (a store leaves
 * out the color buffers in skip). */
static uint32_t color_lines(const sim_env *env, uint32_t tile, bool for_load, uint32_t skip, int *surfs,
                            uint32_t *counts, uint32_t *lprs, uint32_t *nsurf)
{
    const sim_pass *ps = &env->frame->passes[env->pass];
    uint32_t total = 0;
    *nsurf = 0;
    for (unsigned i = 0; i < ps->rp.nr_cbufs && i < TBR_MAX_COLOR_BUFS; i++) {
        int si = sim_func_cbuf_surface(env->fn, i);
        if (si < 0) continue;
        if (for_load &&
            ((ps->color_cleared & (1u << i)) || !env->pass_loads_color || (env->pass_undefined_color & (1u << i))))
            continue;
        if (!for_load && (skip & (1u << i))) continue;
        const sim_surf *s = sim_func_surface(env->fn, si);
        surfs[*nsurf] = si;
        counts[*nsurf] = tile_line_count(env, s, tile, &lprs[*nsurf]);
        total += counts[*nsurf];
        (*nsurf)++;
    }
    return total;
}

static uint64_t color_line_addr(const sim_env *env, uint32_t tile, uint32_t k, const int *surfs, const uint32_t *counts,
                                const uint32_t *lprs, uint32_t nsurf)
{
    for (uint32_t i = 0; i < nsurf; i++) {
        if (k < counts[i]) return tile_line_addr(env, sim_func_surface(env->fn, surfs[i]), tile, k, lprs[i]);
        k -= counts[i];
    }
    return 0;
}

/* Per-tile data: the tile's last flush line has been sent (its time in the unit ends). */
static void tile_flushed(const sim_env *env, uint32_t tile, uint64_t end)
{
    tile_stats_tile_end(env->tiles, tile, end);
}

static bool mem_send(const sim_env *env, int port, uint64_t addr, bool write)
{
    tbr_mem_msg m = {.addr = addr, .issued = env->now, .ready = env->now, .write = write, .wb = write};
    return tbr_memq_push(memsys_req(env->mem, port), &m);
}

/* The next depth/stencil line of the tile's store (after its color lines) to the color
 * port, the tile buffers' write-back path; false if the port is full. The depth buffer
 * is read for it (Early-Z's structure). */
static bool zs_store_line(raster_unit *r)
{
    const sim_env *env = r->env;
    const sim_surf *zs = sim_func_surface(env->fn, sim_func_zs_surface(env->fn));
    uint64_t a = tile_line_addr(env, zs, r->c_tile, r->flush_zs_lines - r->flush_left, r->flush_zs_lpr);
    if (!mem_send(env, r->cport, a, true)) return false;
    tbr_stat_inc(r->stats->tile_zs_store_lines);
    tbr_energy_count(r->stats->en.depth, TBR_EV_READ, r->stats->en.qpl_z); /* stored line read from the depth buffer */
    return true;
}

/* The address of the current flush's next color line (its lines come before the
 * depth/stencil ones). */
static uint64_t next_color_flush_line(const raster_unit *r)
{
    int surfs[TBR_MAX_COLOR_BUFS];
    uint32_t counts[TBR_MAX_COLOR_BUFS], lprs[TBR_MAX_COLOR_BUFS], ns;
    uint32_t total = color_lines(r->env, r->c_tile, false, r->pass_color_skip, surfs, counts, lprs, &ns);
    return color_line_addr(r->env, r->c_tile, total - (r->flush_left - r->flush_zs_lines), surfs, counts, lprs, ns);
}

/* The bytes of the tile's loads skipped because the planes are undefined (whole lines, as a
 * load reads them); the depth/stencil load would be Early-Z's or HSR's. */
static void count_undefined_load(raster_unit *r)
{
    const sim_env *env = r->env;
    const sim_pass *ps = &env->frame->passes[env->pass];
    uint32_t lpr, lines = 0;
    for (unsigned i = 0; i < ps->rp.nr_cbufs && i < TBR_MAX_COLOR_BUFS; i++) {
        int si = sim_func_cbuf_surface(env->fn, i);
        if (si >= 0 && (env->pass_undefined_color & (1u << i)))
            lines += tile_line_count(env, sim_func_surface(env->fn, si), r->c_tile, &lpr);
    }
    int zs = sim_func_zs_surface(env->fn);
    if (env->pass_undefined_zs && zs >= 0)
        lines += tile_line_count(env, sim_func_surface(env->fn, zs), r->c_tile, &lpr);
    tbr_stat_add(r->stats->tile_undefined_load_bytes, (uint64_t)lines * 64);
}

/* The bytes of the tile's stores that invalidation skipped (whole lines, as a store
 * writes them). */
static void count_invalidated_store(raster_unit *r)
{
    const sim_env *env = r->env;
    const sim_pass *ps = &env->frame->passes[env->pass];
    uint32_t lpr, lines = 0;
    for (unsigned i = 0; i < ps->rp.nr_cbufs && i < TBR_MAX_COLOR_BUFS; i++) {
        int si = sim_func_cbuf_surface(env->fn, i);
        if (si >= 0 && (r->pass_color_skip & (1u << i)))
            lines += tile_line_count(env, sim_func_surface(env->fn, si), r->c_tile, &lpr);
    }
    if (r->pass_zs_invalidated)
        lines += tile_line_count(env, sim_func_surface(env->fn, sim_func_zs_surface(env->fn)), r->c_tile, &lpr);
    tbr_stat_add(r->stats->tile_invalidated_bytes, (uint64_t)lines * 64);
}

static inline __attribute__((always_inline)) void blend_tick(raster_unit *r)
{
    const sim_env *env = r->env;
    uint64_t now = env->now;
    const uint64_t n = env->ncyc; /* cycles simulated by this call (> 1: quiescent, sim_env.h) */
    const sim_frame *f = env->frame;
    const tbr_mem_msg *m;
    while ((m = tbr_memq_peek(memsys_resp(env->mem, r->cport), now))) {
        if (r->c_outstanding) r->c_outstanding--;
        tbr_memq_pop(memsys_resp(env->mem, r->cport));
    }
    int surfs[TBR_MAX_COLOR_BUFS];
    uint32_t counts[TBR_MAX_COLOR_BUFS], lprs[TBR_MAX_COLOR_BUFS], ns;
    if (r->c_loading) {
        uint32_t total = color_lines(env, r->c_tile, true, 0, surfs, counts, lprs, &ns);
        if (r->c_load_left &&
            mem_send(env, r->cport, color_line_addr(env, r->c_tile, total - r->c_load_left, surfs, counts, lprs, ns),
                     false)) {
            r->c_load_left--;
            r->c_outstanding++;
            tbr_stat_add(r->stats->tile_loads, 1);
            tbr_energy_count(r->stats->en.color, TBR_EV_WRITE,
                             r->stats->en.qpl_c); /* loaded line written into the color buffer */
        }
        if (!r->c_load_left && !r->c_outstanding) r->c_loading = false;
        tbr_stat_add(r->b_stall, n);
        return;
    }
    if (r->flushing) {
        if (r->flush_left <= r->flush_zs_lines) { /* the color lines are out: depth/stencil */
            if (zs_store_line(r)) {
                r->flush_left--;
                tbr_stat_inc(r->b_busy);
            } else {
                tbr_stat_add(r->b_stall, n);
            }
        } else if (mem_send(env, r->cport, next_color_flush_line(r), true)) {
            r->flush_left--;
            tbr_stat_inc(r->stats->tile_flush_lines);
            tbr_energy_count(r->stats->en.color, TBR_EV_READ,
                             r->stats->en.qpl_c); /* flushed line read from the color buffer */
            tbr_stat_inc(r->b_busy);
        } else {
            tbr_stat_add(r->b_stall, n);
        }
        if (!r->flush_left) {
            r->flushing = false;
            tile_flushed(env, r->c_tile, now + 1);
            r->tiles_done++;
            tbr_stat_inc(r->stats->tiles);
            tbr_stat_hsample(r->stats->tile_cycles, now + 1 - r->tile_start_cycle);
            r->tile_start_cycle = now + 1;
        }
        return;
    }
    uint32_t done = 0, tok;
    while (done < r->blend_qpc && simq_peek(&r->color_q, now, &tok)) {
        if (TOK_KIND(tok) == TOK_BEGIN) {
            r->c_tile = TOK_VAL(tok);
            simq_pop(&r->color_q);
            r->c_load_left = color_lines(env, r->c_tile, true, 0, surfs, counts, lprs, &ns);
            if (env->pass_undefined_color || env->pass_undefined_zs) count_undefined_load(r);
            r->c_outstanding = 0;
            r->c_loading = r->c_load_left > 0;
            if (r->c_loading) break;
            continue;
        }
        if (TOK_KIND(tok) == TOK_END) {
            simq_pop(&r->color_q);
            r->flush_left = color_lines(env, r->c_tile, false, r->pass_color_skip, surfs, counts, lprs, &ns);
            if (r->pass_color_skip || r->pass_zs_invalidated) count_invalidated_store(r);
            if (tbr_techniques_flush(env->tech, r->c_tile, (uint64_t)r->flush_left * 64))
                r->flush_left = 0; /* a technique dropped the flush (e.g. TE, RE paper sec. IV-C) */
            r->flush_zs_lines = 0;
            if (r->pass_stores_zs) { /* (TE compares colors: the depth store stays) */
                r->flush_zs_lines = tile_line_count(env, sim_func_surface(env->fn, sim_func_zs_surface(env->fn)),
                                                    r->c_tile, &r->flush_zs_lpr);
                r->flush_left += r->flush_zs_lines;
            }
            r->flushing = true;
            if (!r->flush_left) { /* nothing bound: tile done at once */
                r->flushing = false;
                tile_flushed(env, r->c_tile, now + 1);
                r->tiles_done++;
                tbr_stat_inc(r->stats->tiles);
                tbr_stat_hsample(r->stats->tile_cycles, now + 1 - r->tile_start_cycle);
                r->tile_start_cycle = now + 1;
            }
            done++;
            break;
        }
        const sim_quad *q = &f->quads[TOK_VAL(tok)];
        if (!f->draws[q->draw].rec.early_z) {
            tbr_stat_inc(r->stats->q_late_z);
            tbr_energy_count(r->stats->en.depth, TBR_EV_READ, 1); /* late Z: read, 4 compares, write */
            tbr_energy_count(r->stats->en.depth, TBR_EV_WRITE, 1);
            tbr_energy_count(r->stats->en.ztest, TBR_EV_CMP, 4);
        }
        tbr_energy_count(r->stats->en.color, TBR_EV_WRITE, 1); /* the quad's colors into the color buffer */
        if ((q->flags & TBR_REC_QUAD_BLENDED) && q->blend_mask) {
            tbr_energy_count(r->stats->en.color, TBR_EV_READ, 1); /* blending reads the destination */
            tbr_stat_inc(r->stats->q_blended);
            tbr_stat_add(r->stats->frag_blended, (uint64_t)__builtin_popcount(q->blend_mask));
        }
        simq_pop(&r->color_q);
        done++;
    }
    if (done)
        tbr_stat_inc(r->b_busy);
    else if (r->c_loading)
        tbr_stat_add(r->b_stall, n);
    else
        tbr_stat_add(r->b_idle, n);
}

static inline __attribute__((always_inline)) void merge_tick(raster_unit *r)
{
    const sim_env *env = r->env;
    uint32_t tok, n = 0;
    while (n < r->blend_qpc && simq_peek(&r->order, env->now, &tok)) {
        uint32_t out = tok;
        if (TOK_KIND(tok) == TOK_ITEM) {
            if (!sc_peek_done(&r->fp[TOK_VAL(tok)], env->now, &out)) break;
            if (simq_full(&r->color_q)) break;
            sc_pop_done(&r->fp[TOK_VAL(tok)]);
            out = TOK(TOK_ITEM, out);
        }
        if (!simq_push(&r->color_q, out, env->now + 1)) break;
        simq_pop(&r->order);
        n++;
    }
}

static inline __attribute__((always_inline)) void fp_tick(raster_unit *r)
{
    const sim_env *env = r->env;
    const sim_frame *f = env->frame;
    for (uint32_t i = 0; i < r->nfp; i++) {
        uint32_t qi;
        if ((r->pool ? shader_pool_may_dispatch(r->pool, 1 + r->id, i) : sc_can_accept(&r->fp[i])) &&
            simq_peek(&r->fp_in[i], env->now, &qi)) {
            const sim_quad *q = &f->quads[qi];
            if (q->path) { /* executed instruction stream (PATH) */
                const sim_path *pa = &f->paths[q->path - 1];
                prefetch_quad_data(f, &env->fn->derived, qi, pa);
                sc_dispatch_stream(&r->fp[i], qi, f->pcls + pa->first, f->ppc + pa->first, pa->n, pa->code, env->now);
                tbr_stat_inc(env->instr_streamed);
            } else { /* old trace: the shader's static instruction count, all ALU */
                sc_dispatch(&r->fp[i], qi, f->draws[q->draw].fs_instructions, env->now);
                tbr_stat_inc(env->instr_static);
            }
            simq_pop(&r->fp_in[i]);
        }
        if (!r->pool) sc_tick_n(&r->fp[i], env->now, env->ncyc); /* (unified: shader_pool_tick) */
        tex_unit_tick(&r->tu[i]);
    }
}

static bool emit_quad(raster_unit *r, uint32_t k)
{
    const sim_env *env = r->env;
    if (!simq_push(&r->post_raster, TOK(TOK_ITEM, env->frame->items[r->r_items[k]].idx), env->now + 1)) return false;
    r->r_emitted[k] = 1;
    tbr_stat_inc(r->stats->q_raster);
    if (r->stats->en.raster) { /* attribute interpolation: every attribute of the primitive for 4 pixels */
        uint32_t p = env->frame->quads[env->frame->items[r->r_items[k]].idx].prim;
        uint32_t na = p != UINT32_MAX && env->frame->prims[p].nr_attrs ? env->frame->prims[p].nr_attrs : 1;
        tbr_energy_count(r->stats->en.raster, TBR_EV_ATTR, 4ull * na);
    }
    return true;
}

static inline __attribute__((always_inline)) void rasterizer_tick(raster_unit *r)
{
    const sim_env *env = r->env;
    uint64_t now = env->now;
    const uint64_t n = env->ncyc; /* cycles simulated by this call (> 1: quiescent, sim_env.h) */
    const sim_frame *f = env->frame;
    uint32_t emitted = 0;
    bool blocked = false;
    if (r->r_flushing) { /* END: quads not matched to a fetched primitive, then the marker */
        while (r->r_cursor < r->r_nitems && emitted < r->raster_qpc) {
            uint32_t k = r->r_cursor;
            if (f->items[r->r_items[k]].kind != SIM_ITEM_QUAD || r->r_emitted[k]) {
                r->r_cursor++;
                continue;
            }
            if (!emit_quad(r, k)) {
                blocked = true;
                break;
            }
            emitted++;
            r->r_cursor++;
        }
        if (r->r_cursor >= r->r_nitems && !blocked && emitted < r->raster_qpc) {
            if (simq_push(&r->post_raster, TOK(TOK_END, r->r_tile), now + 1)) {
                r->r_flushing = false;
                r->r_in_tile = false;
                r->r_tiles_passed++;
                emitted++;
            } else {
                blocked = true;
            }
        }
    } else if (r->r_has_prim) {
        if (now < r->r_ready) {
            tbr_stat_add(r->r_busy, n);
            return;
        }
        /* quads of this primitive in the tile, in order; quads of earlier or unknown
     * primitives are skipped (they go out at END) */
        uint32_t k = r->r_cursor;
        while (k < r->r_nitems && emitted < r->raster_qpc) {
            const sim_item *it = &f->items[r->r_items[k]];
            if (it->kind != SIM_ITEM_QUAD || r->r_emitted[k]) {
                k++;
                continue;
            }
            uint32_t p = f->quads[it->idx].prim;
            if (p == UINT32_MAX || p < r->r_prim) {
                k++;
                continue;
            }
            if (p > r->r_prim) {
                r->r_has_prim = false;
                break;
            }
            if (!emit_quad(r, k)) {
                blocked = true;
                break;
            }
            emitted++;
            k++;
        }
        if (k >= r->r_nitems) r->r_has_prim = false;
        while (r->r_cursor < r->r_nitems &&
               (f->items[r->r_items[r->r_cursor]].kind != SIM_ITEM_QUAD || r->r_emitted[r->r_cursor]))
            r->r_cursor++;
        if (!emitted && !blocked) r->r_has_prim = false;
    } else {
        uint32_t tok;
        sim_queue *in = r->hsr ? &r->hsr->out : &r->tile_q;
        if (simq_peek(in, now, &tok)) {
            if (TOK_KIND(tok) == TOK_BEGIN && r->hsr && !hsr_stage_tile_ready(r->hsr, r->r_tiles_begun)) {
                tbr_stat_add(r->r_hsr_wait, n); /* the tile's depth is not built yet */
                return;
            } else if (TOK_KIND(tok) == TOK_BEGIN) {
                if (simq_push(&r->post_raster, tok, now + 1)) {
                    simq_pop(in);
                    r->r_tiles_begun++;
                    r->r_tile = TOK_VAL(tok);
                    r->r_in_tile = true;
                    tile_stats_tile_begin(env->tiles, r->r_tile, now, r->id);
                    r->r_items =
                        sim_func_tile_items(env->fn, r->r_tile % env->tiles_x, r->r_tile / env->tiles_x, &r->r_nitems);
                    if (r->r_nitems > r->cap_emitted) {
                        r->cap_emitted = r->r_nitems;
                        free(r->r_emitted);
                        r->r_emitted = tbr_xrealloc(NULL, r->cap_emitted);
                    }
                    if (r->r_nitems) memset(r->r_emitted, 0, r->r_nitems); /* (NULL until a tile has items) */
                    r->r_cursor = 0;
                    emitted++;
                } else {
                    blocked = true;
                }
            } else if (TOK_KIND(tok) == TOK_END) {
                simq_pop(in);
                r->r_flushing = true;
                r->r_cursor = 0;
                emitted++;
            } else {
                simq_pop(in);
                r->r_has_prim = true;
                r->r_prim = TOK_VAL(tok);
                r->r_ready = now + r->raster_setup;
                tbr_energy_count(r->stats->en.setup, TBR_EV_PRIM_SETUP, 1); /* per primitive per tile (TBR) */
                emitted++;
            }
        }
    }
    if (emitted)
        tbr_stat_inc(r->r_busy);
    else if (blocked)
        tbr_stat_add(r->r_stall, n);
    else if (r->r_has_prim || r->r_flushing)
        tbr_stat_inc(r->r_busy);
    else
        tbr_stat_add(r->r_idle, n);
}

void ru_tick(raster_unit *r)
{
    const sim_env *env = r->env;
    if (r->crop)
        imr_blend_tick(r);
    else
        blend_tick(r);
    merge_tick(r);
    fp_tick(r);
    early_z_tick(&r->ez);
    rasterizer_tick(r);
    if (r->hsr) hsr_stage_tick(r->hsr);
    tbr_occupancy_sample_n(&r->qocc_tile, r->tile_q.count, env->ncyc);
    tbr_occupancy_sample_n(&r->qocc_post, r->post_raster.count, env->ncyc);
    tbr_occupancy_sample_n(&r->qocc_color, r->color_q.count, env->ncyc);
}

void ru_fold_stats(raster_unit *r)
{
    tbr_occupancy_fold(&r->qocc_tile);
    tbr_occupancy_fold(&r->qocc_post);
    tbr_occupancy_fold(&r->qocc_color);
    for (uint32_t i = 0; i < r->nfp; i++) tex_unit_fold_stats(&r->tu[i]);
}

/* Mirrors ru_tick's stages (same order of decisions): every case that moves a token,
 * a quad or a memory line is an event now; the quiescent cases only count (a load or
 * flush waiting for the memory port or for its responses, a stage blocked by a full
 * queue, a primitive's setup time, the Fragment Processors' latencies). */
uint64_t ru_next_event(const raster_unit *r)
{
    const sim_env *env = r->env;
    uint64_t now = env->now, ne = UINT64_MAX;
    const sim_frame *f = env->frame;
    /* Blending */
    /* (IMR: the caches' fills, clears and flushes) */
    GPU_EVENT_AT(ne, now, r->crop ? imr_ru_next_event(r) : tbr_memq_head_ready(memsys_resp(env->mem, r->cport)));
    bool cport_full = tbr_memq_full(memsys_req(env->mem, r->cport));
    if (r->c_loading) {
        if (r->c_load_left ? !cport_full : !r->c_outstanding) return now;
    } else if (r->flushing) {
        if (!r->flush_left || !cport_full) return now;
    } else {
        GPU_EVENT_AT(ne, now, simq_head_ready(&r->color_q));
    }
    /* in-order merge */
    if (r->order.count && !simq_full(&r->color_q)) {
        uint32_t tok = r->order.buf[r->order.head];
        uint64_t t = simq_head_ready(&r->order);
        if (TOK_KIND(tok) == TOK_ITEM) {
            uint64_t d = sc_done_time(&r->fp[TOK_VAL(tok)]);
            if (d > t) t = d;
        }
        GPU_EVENT_AT(ne, now, t);
    }
    /* Fragment Processors and their texture units */
    for (uint32_t i = 0; i < r->nfp; i++) {
        if (sc_can_accept(&r->fp[i])) GPU_EVENT_AT(ne, now, simq_head_ready(&r->fp_in[i]));
        GPU_EVENT_AT(ne, now, sc_next_event(&r->fp[i], now));
        GPU_EVENT_AT(ne, now, tex_unit_next_event(&r->tu[i]));
    }
    GPU_EVENT_AT(ne, now, early_z_next_event(&r->ez));
    /* Rasterizer */
    bool post_full = simq_full(&r->post_raster);
    if (r->r_flushing) {
        if (!post_full) return now;
        if (r->r_cursor < r->r_nitems &&
            (f->items[r->r_items[r->r_cursor]].kind != SIM_ITEM_QUAD || r->r_emitted[r->r_cursor]))
            return now; /* the cursor moves */
    } else if (r->r_has_prim) {
        if (now < r->r_ready)
            GPU_EVENT_AT(ne, now, r->r_ready);
        else {
            if (!post_full) return now;
            if (r->r_cursor >= r->r_nitems || f->items[r->r_items[r->r_cursor]].kind != SIM_ITEM_QUAD ||
                r->r_emitted[r->r_cursor])
                return now;           /* the cursor moves or the primitive ends */
            uint32_t k = r->r_cursor; /* blocked only if the next quad to emit is this primitive's */
            for (; k < r->r_nitems; k++) {
                const sim_item *it = &f->items[r->r_items[k]];
                if (it->kind != SIM_ITEM_QUAD || r->r_emitted[k]) continue;
                uint32_t p = f->quads[it->idx].prim;
                if (p == UINT32_MAX || p < r->r_prim) continue;
                if (p > r->r_prim) return now;
                break;
            }
            if (k >= r->r_nitems) return now;
        }
    } else {
        const sim_queue *in = r->hsr ? &r->hsr->out : &r->tile_q;
        if (in->count) {
            uint64_t t = simq_head_ready(in);
            bool begin = TOK_KIND(in->buf[in->head]) == TOK_BEGIN;
            if (t > now)
                GPU_EVENT_AT(ne, now, t);
            else if (!begin || (!post_full && (!r->hsr || hsr_stage_tile_ready(r->hsr, r->r_tiles_begun))))
                return now; /* (a tile HSR has not finished waits for HSR's event) */
        }
    }
    if (r->hsr) GPU_EVENT_AT(ne, now, hsr_stage_next_event(r->hsr));
    return ne;
}

bool ru_idle(const raster_unit *r)
{
    if (r->r_has_prim || r->r_in_tile || r->r_flushing || !early_z_idle(&r->ez) || r->c_loading || r->flushing)
        return false;
    if (r->hsr && !hsr_stage_idle(r->hsr)) return false;
    if (r->crop && (r->imr_flushing || !rop_cache_idle(r->zrop) || !rop_cache_idle(r->crop))) return false;
    if (!simq_empty(&r->tile_q) || !simq_empty(&r->post_raster) || !simq_empty(&r->color_q) || !simq_empty(&r->order))
        return false;
    for (uint32_t i = 0; i < r->nfp; i++)
        if (!simq_empty(&r->fp_in[i]) || !sc_idle(&r->fp[i]) || !tex_unit_idle(&r->tu[i])) return false;
    return true;
}
