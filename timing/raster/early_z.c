/* Early-Z stage of a Raster Unit (early_z.h; thesis §2.2, §4.1). Each cycle: drain the
 * depth buffer's memory responses; while a tile's depth is loading, send one load line
 * per cycle; otherwise take up to early_z.quads_per_cycle tokens from the
 * post-rasterization queue: a tile marker goes to the in-order merge queue (a BEGIN may
 * start the tile's depth load), a quad of an early-Z draw is tested (its fate is the
 * trace's: DEPTH_OUT and the depth mask), a quad that fails leaves, a surviving one waits
 * untested while its Fragment Processor's queue is full, then enters it with its merge
 * token depth_buffer.latency cycles later. */
#include "raster/early_z.h"

#include <stdio.h>
#include <string.h>

#include "raster/prefetch.h"
#include "raster/tile_lines.h"
#include "tiling/tile_tokens.h"

void early_z_init(early_z *z, sim_env *env, uint32_t unit, tbr_stat *tested, tbr_stat *killed, tbr_stat *shaded,
                  tbr_stat *tile_loads, const raster_energy *en)
{
    memset(z, 0, sizeof *z);
    z->env = env;
    z->en = en;
    z->tested = tested;
    z->killed = killed;
    z->shaded = shaded;
    z->tile_loads = tile_loads;
    z->quads_per_cycle = (uint32_t)tbr_cfg_uint(env->cfg, "early_z.quads_per_cycle");
    z->latency = (uint32_t)tbr_cfg_uint(env->cfg, "depth_buffer.latency");
    z->qmap = tbr_cfg_enum(env->cfg, "fragment.quad_mapping");
    z->qm_w = (uint32_t)tbr_cfg_uint(env->cfg, "tile.width") / 2;
    z->qm_h = (uint32_t)tbr_cfg_uint(env->cfg, "tile.height") / 2;
    z->busy = tbr_stats_counterf(env->st, "Early-Z cycles testing quads or loading the depth buffer",
                                 "ru%u.early_z.busy_cycles", unit);
    z->stall = tbr_stats_counterf(env->st, "Early-Z cycles blocked by full fragment-processor queues",
                                  "ru%u.early_z.stall_cycles", unit);
    z->idle = tbr_stats_counterf(env->st, "Early-Z cycles without input", "ru%u.early_z.idle_cycles", unit);
}

void early_z_connect(early_z *z, sim_queue *in, sim_queue *fp_in, uint32_t nfp, sim_queue *order, tbr_memq *mem_req,
                     tbr_memq *mem_resp)
{
    z->in = in;
    z->fp_in = fp_in;
    z->nfp = nfp;
    z->order = order;
    z->mem_req = mem_req;
    z->mem_resp = mem_resp;
    z->qm_ry = 1; /* quadrant: qm_ry = largest divisor of nfp <= sqrt(nfp) (nfp = 4: 2x2) */
    for (uint32_t d = 1; d * d <= nfp; d++)
        if (nfp % d == 0) z->qm_ry = d;
    z->qm_rx = nfp / z->qm_ry;
}

static bool mem_send(tbr_memq *req, uint64_t now, uint64_t addr, bool write)
{
    tbr_mem_msg m = {.addr = addr, .issued = now, .ready = now, .write = write, .wb = write};
    return tbr_memq_push(req, &m);
}

/* Fragment processor of quad q (docs/timing-model.md "Quad mapping"). (qx, qy): the
 * quad's position in its tile in 2x2-pixel units (tiles are aligned to the tile size). */
uint32_t early_z_quad_fp(const early_z *z, const sim_quad *q)
{
    uint32_t x = q->x > 0 ? (uint32_t)q->x : 0, y = q->y > 0 ? (uint32_t)q->y : 0;
    uint32_t qx = (x / 2) % z->qm_w, qy = (y / 2) % z->qm_h;
    switch (z->qmap) {
        case RU_QMAP_INTERLEAVED: return (qx + 2 * qy) % z->nfp;
        case RU_QMAP_STRIPS: return (uint32_t)((uint64_t)qy * z->nfp / z->qm_h);
        case RU_QMAP_QUADRANT: return (qy * z->qm_ry / z->qm_h) * z->qm_rx + qx * z->qm_rx / z->qm_w;
        default: return z->fp_rr; /* RU_QMAP_ROUND_ROBIN: by arrival */
    }
}

/* The quad reaches a Fragment Processor: its draw has no early Z or a fragment passed the
 * test (the trace's DEPTH_OUT and depth mask), and, under TBDR, HSR did not hide them all
 * (a draw without early Z that HSR decides has no depth test: hsr_classify_draw). */
static inline bool quad_survives(const early_z *z, const sim_frame *f, const sim_quad *q, uint32_t qi)
{
    if (f->draws[q->draw].rec.early_z && !((q->flags & TBR_REC_QUAD_DEPTH_OUT) && q->depth_mask)) return false;
    return !(z->hsr && hsr_quad_removed(z->hsr, q, qi));
}

/* IMR: the quad's depth lines through the Z cache (read, written when a fragment passes
 * and the draw writes depth); false while they are being read, with the misses of the
 * quads queued behind it issued meanwhile (ATTILA's Z test input queue). */
static __attribute__((noinline, cold)) bool imr_depth_access(early_z *z, const sim_frame *f, const sim_quad *q,
                                                             bool survives)
{
    bool write = survives && f->draws[q->draw].rec.depth_writemask;
    if (rop_cache_access(z->rop, q, write)) {
        rop_cache_count_energy(z->rop, q, z->en->zcache, true, write); /* the test reads, an update writes */
        return true;
    }
    for (uint32_t i = 1; i < z->in->count && i <= z->imr_lookahead; i++) {
        uint32_t tok = z->in->buf[(z->in->head + i) % z->in->cap];
        if (TOK_KIND(tok) != TOK_ITEM) break;
        const sim_quad *nq = &f->quads[TOK_VAL(tok)];
        if (f->draws[nq->draw].rec.early_z) rop_cache_prefetch(z->rop, nq);
    }
    return false;
}

/* IMR: Hierarchical Z sees quad qi (once): true when it rejects it (it leaves here,
 * neither tested against the Z cache nor shaded). */
static __attribute__((noinline, cold)) bool hiz_rejects(early_z *z, const sim_frame *f, const sim_quad *q, uint32_t qi)
{
    if (z->hiz_memo == qi + 1) return false;
    z->hiz_memo = qi + 1;
    uint64_t lines[2 * ROP_MAX_PLANES * 2];
    return hiz_quad(z->hiz, f, q, rop_cache_quad_lines(z->rop, q, lines));
}

void early_z_tick(early_z *z)
{
    const sim_env *env = z->env;
    uint64_t now = env->now;
    const uint64_t nc = env->ncyc; /* cycles simulated by this call (> 1: quiescent, sim_env.h) */
    const sim_frame *f = env->frame;
    const tbr_mem_msg *m;
    while (!z->hsr && !z->rop && (m = tbr_memq_peek(z->mem_resp, now))) { /* (TBDR: HSR's port, IMR: the Z cache's) */
        if (z->z_outstanding) z->z_outstanding--;
        tbr_memq_pop(z->mem_resp);
    }
    if (z->z_loading) {
        int zs = sim_func_zs_surface(env->fn);
        uint32_t lpr, total = tile_line_count(env, sim_func_surface(env->fn, zs), z->z_tile, &lpr);
        if (z->z_load_left &&
            mem_send(z->mem_req, now,
                     tile_line_addr(env, sim_func_surface(env->fn, zs), z->z_tile, total - z->z_load_left, lpr),
                     false)) {
            z->z_load_left--;
            z->z_outstanding++;
            tbr_stat_add(z->tile_loads, 1);
            tbr_energy_count(z->en->depth, TBR_EV_WRITE, z->en->qpl_z); /* loaded line written into the depth buffer */
        }
        if (!z->z_load_left && !z->z_outstanding) z->z_loading = false;
        tbr_stat_add(z->busy, nc);
        return;
    }
    uint32_t n = 0, tok;
    bool blocked = false;
    while (n < z->quads_per_cycle && simq_peek(z->in, now, &tok)) {
        if (simq_full(z->order)) {
            blocked = true;
            break;
        }
        if (TOK_KIND(tok) != TOK_ITEM) {
            simq_pop(z->in);
            simq_push(z->order, tok, now + z->latency);
            if (TOK_KIND(tok) == TOK_BEGIN) {
                z->tile = TOK_VAL(tok);
                int zs = sim_func_zs_surface(env->fn);
                const sim_pass *ps = &f->passes[env->pass];
                if (zs >= 0 && !ps->zs_cleared && env->pass_loads_zs && !z->hsr && !z->rop) {
                    uint32_t lpr;
                    z->z_tile = TOK_VAL(tok);
                    z->z_load_left = tile_line_count(env, sim_func_surface(env->fn, zs), z->z_tile, &lpr);
                    z->z_outstanding = 0;
                    z->z_loading = z->z_load_left > 0;
                    if (z->z_loading) {
                        n++;
                        break;
                    }
                }
            }
            n++;
            continue;
        }
        const sim_quad *q = &f->quads[TOK_VAL(tok)];
        if (z->hiz && hiz_rejects(z, f, q, TOK_VAL(tok))) {
            simq_pop(z->in);
            n++;
            continue;
        }
        bool early = f->draws[q->draw].rec.early_z != 0;
        bool survives = quad_survives(z, f, q, TOK_VAL(tok));
        uint32_t fp;
        if (z->memo_quad == TOK_VAL(tok) + 1 && z->qmap != RU_QMAP_ROUND_ROBIN)
            fp = z->memo_fp;
        else {
            fp = early_z_quad_fp(z, q);
            z->memo_quad = TOK_VAL(tok) + 1;
            z->memo_fp = fp;
        }
        /* A surviving quad waits here, untested, until its Fragment Processor queue has room:
     * the test (and its depth-buffer energy) happens once, when the quad can move on. */
        if (survives && simq_full(&z->fp_in[fp])) {
            blocked = true;
            break;
        }
        if (z->rop && early && !imr_depth_access(z, f, q, survives)) {
            blocked = true;
            break;
        }
        if (early) {
            tbr_stat_inc(z->tested);
            tbr_energy_count(z->en->depth, TBR_EV_READ, 1); /* Early-Z: read, 4 compares, write if any passes */
            tbr_energy_count(z->en->ztest, TBR_EV_CMP, 4);
            if (!survives) { /* all fragments failed (or HSR found them hidden) */
                tbr_stat_inc(z->killed);
                simq_pop(z->in);
                n++;
                continue;
            }
        } else if (!survives) { /* TBDR: hidden by a later opaque fragment of a depth-less draw */
            tbr_stat_inc(z->killed);
            simq_pop(z->in);
            n++;
            continue;
        }
        if (early) tbr_energy_count(z->en->depth, TBR_EV_WRITE, 1);
        if (!simq_push(&z->fp_in[fp], TOK_VAL(tok), now + z->latency)) {
            blocked = true;
            break;
        }
        prefetch_quad_records(f, &env->fn->derived, TOK_VAL(tok), q);
        simq_push(z->order, TOK(TOK_ITEM, fp), now + z->latency);
        if (z->qmap == RU_QMAP_ROUND_ROBIN) z->fp_rr = (fp + 1) % z->nfp;
        tbr_stat_inc(z->shaded);
        tile_stats_fragments(env->tiles, z->tile, 4);
        simq_pop(z->in);
        n++;
    }
    if (n)
        tbr_stat_inc(z->busy);
    else if (blocked)
        tbr_stat_add(z->stall, nc);
    else
        tbr_stat_add(z->idle, nc);
}

/* Mirrors early_z_tick: a memory response, a load line the port can take, a finished
 * load, a marker, a quad that fails (it leaves now) or a surviving quad whose processor
 * queue has room are events now; a surviving quad waiting for a full queue has none of
 * its own (that queue's pop is the Fragment Processor's event). */
uint64_t early_z_next_event(const early_z *z)
{
    const sim_env *env = z->env;
    const sim_frame *f = env->frame;
    uint64_t now = env->now, ne = UINT64_MAX;
    if (!z->hsr && !z->rop) GPU_EVENT_AT(ne, now, tbr_memq_head_ready(z->mem_resp));
    if (z->z_loading) {
        if (z->z_load_left ? !tbr_memq_full(z->mem_req) : !z->z_outstanding) return now;
    } else if (z->in->count) {
        uint64_t t = simq_head_ready(z->in);
        if (t > now)
            GPU_EVENT_AT(ne, now, t);
        else if (!simq_full(z->order)) {
            uint32_t tok = z->in->buf[z->in->head];
            if (TOK_KIND(tok) != TOK_ITEM) return now;
            if (z->hiz && z->hiz_memo != TOK_VAL(tok) + 1) return now; /* Hi-Z may reject it now */
            const sim_quad *q = &f->quads[TOK_VAL(tok)];
            bool survives = quad_survives(z, f, q, TOK_VAL(tok));
            if (!survives || !simq_full(&z->fp_in[early_z_quad_fp(z, q)])) return now;
        }
    }
    return ne;
}
