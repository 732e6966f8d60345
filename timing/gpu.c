/* tbr-sim GPU top level (see gpu.h): builds the units from the configuration and runs
 * one render pass at a time: the geometry + tiling phase (Command Processor to Polygon
 * List Builder) until every primitive is binned and the Parameter Buffer written, then
 * the raster phase (Tile Fetcher and Raster Units) until every tile is flushed (thesis
 * §2.2: TBR renders a pass's tiles only after all of its geometry is binned). All
 * units tick every cycle, consumers before producers so a token moves at most one
 * stage per cycle. */
#include "gpu.h"

#include <stdlib.h>
#include <string.h>

#define WATCHDOG_CYCLES 2000000u /* no unit progressed for this long = model deadlock */

gpu *gpu_new(const tbr_config *cfg, tbr_stats *st, char *err, size_t errlen)
{
  gpu *g = calloc(1, sizeof *g);
  if (!g) abort();
  g->cfg = cfg;
  g->st = st;
  g->mem = memsys_new(cfg, st, err, errlen);
  if (!g->mem) { free(g); return NULL; }
  g->tile_w = (unsigned)tbr_cfg_uint(cfg, "tile.width");
  g->tile_h = (unsigned)tbr_cfg_uint(cfg, "tile.height");
  g->cp_cycles = (uint32_t)tbr_cfg_uint(cfg, "cp.cycles_per_draw");
  g->bytes_per_attr = (uint32_t)tbr_cfg_uint(cfg, "vertex_fetch.bytes_per_attr");
  g->plb_tpc = (uint32_t)tbr_cfg_uint(cfg, "plb.tiles_per_cycle");
  g->attrs_pc = (uint32_t)tbr_cfg_uint(cfg, "raster.attrs_per_cycle");
  g->raster_qpc = g->attrs_pc / 4 ? g->attrs_pc / 4 : 1; /* 4 attributes per quad: 16 -> 4 quads/cycle (thesis §4.1) */
  g->raster_setup = (uint32_t)tbr_cfg_uint(cfg, "raster.setup_cycles");
  g->ez_qpc = (uint32_t)tbr_cfg_uint(cfg, "early_z.quads_per_cycle");
  g->blend_qpc = (uint32_t)tbr_cfg_uint(cfg, "blend.quads_per_cycle");
  g->zlat = (uint32_t)tbr_cfg_uint(cfg, "depth_buffer.latency");
  g->clat = (uint32_t)tbr_cfg_uint(cfg, "color_buffer.latency");
  g->lat_alu = (uint32_t)tbr_cfg_uint(cfg, "shader.lat_alu");
  g->issue_width = (uint32_t)tbr_cfg_uint(cfg, "shader.issue_width");
  g->fp_threads = (uint32_t)tbr_cfg_uint(cfg, "fragment.threads_per_processor");
  g->vp_threads = (uint32_t)tbr_cfg_uint(cfg, "vertex.threads_per_processor");
  g->tf_pipelined = tbr_cfg_bool(cfg, "tile.fetcher_pipelined");
  g->order_kind = tbr_cfg_enum(cfg, "tile.order");
  sim_func_init(&g->fn, ADDR_SURFACE_BASE);

  g->cyc_total = tbr_stats_counter(st, "cycles.total", "simulated GPU cycles");
  g->cyc_geom = tbr_stats_counter(st, "cycles.geometry", "cycles until Primitive Assembly emitted the pass's last primitive");
  g->cyc_tiling = tbr_stats_counter(st, "cycles.tiling", "further cycles until the Polygon List Builder finished the pass");
  g->cyc_raster = tbr_stats_counter(st, "cycles.raster", "cycles of the raster phase (tile fetch to last tile flush)");
  g->frames = tbr_stats_counter(st, "frames", "frames simulated");
  g->passes = tbr_stats_counter(st, "passes", "render passes simulated");
  g->draws = tbr_stats_counter(st, "draws", "draw calls");
  g->prims = tbr_stats_counter(st, "prims", "primitives that reached setup (PRIM records)");
  g->q_raster = tbr_stats_counter(st, "quads.rasterized", "quads emitted by the rasterizers");
  g->q_ztested = tbr_stats_counter(st, "quads.early_z_tested", "quads tested by Early-Z");
  g->q_zkilled = tbr_stats_counter(st, "quads.early_z_killed", "quads removed by Early-Z");
  g->q_late_z = tbr_stats_counter(st, "quads.late_z", "quads depth-tested after shading (no early Z)");
  g->q_shaded = tbr_stats_counter(st, "quads.shaded", "quads dispatched to fragment processors");
  g->q_blended = tbr_stats_counter(st, "quads.blended", "quads written by the Blending unit");
  g->frag_blended = tbr_stats_counter(st, "fragments.blended", "fragments written by the Blending unit");
  g->tiles = tbr_stats_counter(st, "tiles.rendered", "tiles rendered (all passes)");
  g->tile_cycles = tbr_stats_histogram(st, "tiles.cycles", "cycles between consecutive tile completions of a Raster Unit", 64, 64);
  g->mask_mismatch = tbr_stats_counter(st, "func.mask_mismatch_quads",
                                       "quads whose recomputed depth/stencil/blend mask differs from the trace");
  g->tile_loads = tbr_stats_counter(st, "tiles.buffer_load_lines", "tile buffer lines loaded from memory (pass without clear)");
  g->tile_flush_lines = tbr_stats_counter(st, "tiles.flush_lines", "color buffer lines written to memory at tile end");

  geometry_init(g);
  plb_init(g);
  tf_init(g);
  g->nru = (uint32_t)tbr_cfg_uint(cfg, "tile.raster_units");
  g->ru = calloc(g->nru, sizeof *g->ru);
  if (!g->ru) abort();
  for (uint32_t i = 0; i < g->nru; i++) ru_init(g, &g->ru[i], i);
  memsys_register_stats(g->mem, st);
  return g;
}

void gpu_free(gpu *g)
{
  if (!g) return;
  for (uint32_t i = 0; i < g->nru; i++) ru_free(&g->ru[i]);
  free(g->ru);
  tf_free(g);
  plb_free(g);
  geometry_free(g);
  memsys_free(g->mem);
  sim_func_free(&g->fn);
  free(g);
}

int gpu_run_pass(gpu *g, const sim_frame *f, size_t pass, char *err, size_t errlen)
{
  g->frame = f;
  g->pass = pass;
  if (sim_func_begin_pass(&g->fn, f, pass, g->tile_w, g->tile_h, err, errlen)) return -1;
  g->tiles_x = sim_func_tiles_x(&g->fn);
  g->tiles_y = sim_func_tiles_y(&g->fn);
  /* Functional rendering of the pass, tile by tile (values do not depend on timing). */
  for (unsigned ty = 0; ty < g->tiles_y; ty++)
    for (unsigned tx = 0; tx < g->tiles_x; tx++) {
      sim_tile_result tr;
      sim_func_render_tile(&g->fn, tx, ty, &tr);
      tbr_stat_add(g->mask_mismatch, tr.mask_mismatch);
    }
  tbr_stat_inc(g->passes);
  tbr_stat_add(g->draws, f->passes[pass].ndraws);
  for (uint32_t k = 0; k < f->passes[pass].ndraws; k++) tbr_stat_add(g->prims, f->draws[f->passes[pass].first_draw + k].nprims);

  /* geometry + tiling phase */
  uint64_t start = g->now;
  geometry_begin_pass(g);
  plb_begin_pass(g);
  g->geo.last_prim_cycle = start;
  uint64_t idle_since = g->now;
  while (!(plb_done(g) && memsys_idle(g->mem) && tbr_cache_idle(g->geo.vcache))) {
    memsys_tick(g->mem, g->now);
    plb_tick(g);
    geometry_tick(g);
    g->now++;
    if (g->now - idle_since > WATCHDOG_CYCLES + (uint64_t)f->nprims * 64 + (uint64_t)f->nquads * 4) {
      snprintf(err, errlen, "frame %llu pass %zu: geometry phase made no progress (model deadlock at cycle %llu)",
               (unsigned long long)f->number, pass, (unsigned long long)g->now);
      return -1;
    }
  }
  uint64_t geo_end = g->now;
  uint64_t geom = (g->geo.last_prim_cycle + 1 > start ? g->geo.last_prim_cycle + 1 : start) - start;
  if (geom > geo_end - start) geom = geo_end - start;
  tbr_stat_add(g->cyc_geom, geom);
  tbr_stat_add(g->cyc_tiling, geo_end - start - geom);

  /* raster phase */
  tf_begin_pass(g);
  for (uint32_t i = 0; i < g->nru; i++) g->ru[i].tile_start_cycle = g->now;
  uint64_t rstart = g->now;
  for (;;) {
    bool done = tf_done(g) && memsys_idle(g->mem);
    for (uint32_t i = 0; i < g->nru && done; i++) done = ru_idle(&g->ru[i]);
    if (done) break;
    memsys_tick(g->mem, g->now);
    for (uint32_t i = 0; i < g->nru; i++) ru_tick(g, &g->ru[i]);
    tf_tick(g);
    g->now++;
    if (g->now - rstart > WATCHDOG_CYCLES + (uint64_t)f->nquads * 1024 + (uint64_t)f->nprims * 1024) {
      snprintf(err, errlen, "frame %llu pass %zu: raster phase made no progress (model deadlock at cycle %llu)",
               (unsigned long long)f->number, pass, (unsigned long long)g->now);
      return -1;
    }
  }
  tbr_stat_add(g->cyc_raster, g->now - rstart);
  tbr_stat_add(g->cyc_total, g->now - start);
  sim_func_end_pass(&g->fn);
  return 0;
}
