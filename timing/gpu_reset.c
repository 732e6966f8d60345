/* gpu_reset (gpu.h): a built GPU back to the state gpu_new left, so that a caller that
 * simulates many unrelated frames with one configuration (tests/fuzz/fuzz_sim_frame.c)
 * builds it once. Each unit resets the state it owns (its *_reset beside its *_init);
 * this file only calls them and clears the wiring's own per-run fields. The statistics
 * keep their registrations and return to zero. Organisations whose units have no reset
 * yet are refused (-1): the caller builds a new GPU for them. */
#include "gpu.h"

#include <string.h>

/* The clock and the pass of a view of the environment, as env_init left them. */
static void env_reset(sim_env *e)
{
    e->now = 0;
    e->ncyc = 1;
    e->frame = NULL;
    e->pass = 0;
    e->tile_w = (unsigned)tbr_cfg_uint(e->cfg, "tile.width"); /* (IMR sets the pass's size) */
    e->tile_h = (unsigned)tbr_cfg_uint(e->cfg, "tile.height");
    e->tiles_x = e->tiles_y = 0;
    e->pass_loads_color = e->pass_loads_zs = false;
}

/* The Parameter Buffers the overlapped loop swaps with the Polygon List Builder's. */
static void pb_store_reset(gpu *g)
{
    for (uint32_t k = 0; k < GPU_MAX_PB; k++) {
        param_buffer *pb = &g->pb_store[k];
        for (uint32_t i = 0; i < pb->cap_tiles; i++) pb->lists[i].n = 0;
        pb->ntiles = 0;
    }
    if (g->pass_pb) memset(g->pass_pb, 0, g->pass_pb_cap * sizeof *g->pass_pb);
    g->plb.pb.list_base = ADDR_PB_LIST_BASE; /* as plb_init and tf_init left them */
    g->plb.pb.attr_base = ADDR_PB_ATTR_BASE;
    g->tf.pb = &g->plb.pb;
}

int gpu_reset(gpu *g)
{
    /* units without a reset: TBDR's HSR, IMR's caches, unified shader cores, NUCA
     * texture caches (ru_reset and tbr_techniques_reset refuse theirs) */
    if (g->hsr.enabled || g->imr || g->pool || g->env.tex_nuca) return -1;
    if (tbr_techniques_reset(g->env.tech)) return -1;
    for (uint32_t i = 0; i < g->nru; i++)
        if (ru_reset(&g->ru[i])) return -1;
    env_reset(&g->env);
    env_reset(&g->genv);
    sim_func_reset(g->env.fn, ADDR_SURFACE_BASE);
    tile_stats_reset(g->env.tiles);
    memsys_reset(g->env.mem);
    for (uint32_t i = 0; i < g->nicu; i++) icache_reset(&g->icu[i]);
    geometry_reset(&g->geo);
    plb_reset(&g->plb);
    tf_reset(&g->tf);
    pb_store_reset(g);
    gpu_overlap_reset(g);
    tbr_energy_reset(g->en);
    memset(g->plane_memo, 0, sizeof g->plane_memo);
    g->plane_memo_next = 0;
    g->skipped_cycles = 0;
    g->probe_gap = g->probe_wait = 0;
    g->sufd = NULL;
    tbr_stats_reset(g->env.st);
    return 0;
}
