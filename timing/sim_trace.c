/* Frame loader of tbr-sim (see sim_trace.h). */
#include "sim_trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROW(arr, n, cap)                                                          \
  do {                                                                             \
    if ((n) >= (cap)) {                                                            \
      size_t nc_ = (cap) ? (cap) * 2 : 64;                                         \
      void *np_ = realloc((arr), nc_ * sizeof *(arr));                             \
      if (!np_) { fprintf(stderr, "tbr-sim: out of memory\n"); abort(); }         \
      (arr) = np_;                                                                 \
      (cap) = nc_;                                                                 \
    }                                                                              \
  } while (0)

void sim_frame_init(sim_frame *f) { memset(f, 0, sizeof *f); }

void sim_frame_free(sim_frame *f)
{
  free(f->passes); free(f->draws); free(f->prims); free(f->quads); free(f->tiles);
  free(f->clears); free(f->items); free(f->colors); free(f->res); free(f->cvals);
  memset(f, 0, sizeof *f);
}

const sim_resource *sim_frame_resource(const sim_frame *f, uint32_t id)
{
  for (size_t i = 0; i < f->nres; i++)
    if (f->res[i].id == id) return &f->res[i];
  return NULL;
}

static struct sim_clear_val *clear_val(sim_frame *f, uint32_t res, uint32_t level, uint32_t layer)
{
  for (size_t i = 0; i < f->ncvals; i++)
    if (f->cvals[i].res == res && f->cvals[i].level == level && f->cvals[i].layer == layer)
      return &f->cvals[i];
  GROW(f->cvals, f->ncvals, f->cap_cvals);
  struct sim_clear_val *c = &f->cvals[f->ncvals++];
  memset(c, 0, sizeof *c);
  c->res = res; c->level = level; c->layer = layer;
  return c;
}

/* Shader instruction counts survive across frames (SHADER is re-sent per frame anyway). */
typedef struct { uint32_t id, ninstr; } shader_info;
static shader_info *g_shaders;
static size_t g_nshaders, g_cap_shaders;

static uint32_t shader_instr(uint32_t id)
{
  for (size_t i = 0; i < g_nshaders; i++)
    if (g_shaders[i].id == id) return g_shaders[i].ninstr;
  return 0;
}

static int fail(char *err, size_t errlen, tbr_trace_reader *r, const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  tbr_trace_reader_fail(r, "%s", msg);
  snprintf(err, errlen, "%s", tbr_trace_reader_error(r));
  return -1;
}

static int find_draw(const sim_frame *f, uint32_t seq)
{
  for (size_t i = f->ndraws; i-- > 0;)
    if (f->draws[i].rec.seq == seq) return (int)i;
  return -1;
}

static void push_item(sim_frame *f, uint32_t kind, uint32_t idx)
{
  GROW(f->items, f->nitems, f->cap_items);
  f->items[f->nitems++] = (sim_item){kind, idx};
  if (f->npasses) f->passes[f->npasses - 1].nitems++;
}

int sim_frame_load(sim_frame *f, tbr_trace_reader *r, uint64_t number, char *err, size_t errlen)
{
  f->number = number;
  f->has_end = false;
  memset(&f->end, 0, sizeof f->end);
  f->npasses = f->ndraws = f->nprims = f->nquads = f->ntiles = f->nclears = 0;
  f->nitems = f->ncolors = f->nres = 0;
  f->uploads = f->upload_bytes = f->unsupported = f->flushes = 0;

  uint16_t type;
  const uint8_t *p;
  size_t n;
  int rc;
  static tbr_rec_prim prim;  /* large (12 KiB): keep off the stack */
  static tbr_rec_quad q;
  static tbr_rec_draw draw;
  while ((rc = tbr_trace_reader_next_record(r, &type, &p, &n)) > 0) {
    switch (type) {
    case TBR_REC_FRAME_END:
      if (tbr_rec_frame_end_decode(p, n, &f->end)) return fail(err, errlen, r, "bad FRAME_END record");
      f->has_end = true;
      break;
    case TBR_REC_RESOURCE: {
      tbr_rec_resource res;
      if (tbr_rec_resource_decode(p, n, &res)) return fail(err, errlen, r, "bad RESOURCE record");
      size_t i;
      for (i = 0; i < f->nres && f->res[i].id != res.id; i++) {}
      if (i == f->nres) { GROW(f->res, f->nres, f->cap_res); f->nres++; }
      f->res[i].id = res.id;
      f->res[i].rec = res;
      break;
    }
    case TBR_REC_UPLOAD: {
      tbr_rec_upload u;
      if (tbr_rec_upload_decode(p, n, &u)) return fail(err, errlen, r, "bad UPLOAD record");
      f->uploads++;
      f->upload_bytes += u.bytes;
      break;
    }
    case TBR_REC_SHADER_CREATE:
      break;
    case TBR_REC_SHADER: {
      tbr_rec_shader s;
      if (tbr_rec_shader_decode(p, n, &s)) return fail(err, errlen, r, "bad SHADER record");
      size_t i;
      for (i = 0; i < g_nshaders && g_shaders[i].id != s.id; i++) {}
      if (i == g_nshaders) { GROW(g_shaders, g_nshaders, g_cap_shaders); g_nshaders++; }
      g_shaders[i].id = s.id;
      g_shaders[i].ninstr = s.num_instructions;
      break;
    }
    case TBR_REC_RENDER_PASS: {
      GROW(f->passes, f->npasses, f->cap_passes);
      sim_pass *ps = &f->passes[f->npasses++];
      memset(ps, 0, sizeof *ps);
      if (tbr_rec_render_pass_decode(p, n, &ps->rp)) return fail(err, errlen, r, "bad RENDER_PASS record");
      ps->first_draw = (uint32_t)f->ndraws;
      ps->first_item = (uint32_t)f->nitems;
      break;
    }
    case TBR_REC_CLEAR: {
      if (!f->npasses) return fail(err, errlen, r, "CLEAR before any RENDER_PASS");
      GROW(f->clears, f->nclears, f->cap_clears);
      tbr_rec_clear *c = &f->clears[f->nclears];
      if (tbr_rec_clear_decode(p, n, c)) return fail(err, errlen, r, "bad CLEAR record");
      sim_pass *ps = &f->passes[f->npasses - 1];
      for (uint32_t i = 0; i < ps->rp.nr_cbufs && i < TBR_REC_MAX_CBUFS; i++) {
        if (!(c->buffers & (4u << i)) || !ps->rp.cbufs[i].valid) continue;
        struct sim_clear_val *cv = clear_val(f, ps->rp.cbufs[i].resource_id, ps->rp.cbufs[i].level,
                                             ps->rp.cbufs[i].first_layer);
        memcpy(cv->color, c->color_f, sizeof cv->color);
        if (ps->ndraws == 0) ps->color_cleared |= 1u << i;
      }
      if ((c->buffers & 3u) && ps->rp.zsbuf.valid && !c->zs_partial) {
        struct sim_clear_val *cv = clear_val(f, ps->rp.zsbuf.resource_id, ps->rp.zsbuf.level,
                                             ps->rp.zsbuf.first_layer);
        cv->zs = c->zs_packed;
        if (ps->ndraws == 0) ps->zs_cleared = 1;
      }
      ps->clears++;
      push_item(f, SIM_ITEM_CLEAR, (uint32_t)f->nclears);
      f->nclears++;
      break;
    }
    case TBR_REC_DRAW: {
      if (!f->npasses) return fail(err, errlen, r, "DRAW before any RENDER_PASS");
      if (tbr_rec_draw_decode(p, n, &draw)) return fail(err, errlen, r, "bad DRAW record");
      GROW(f->draws, f->ndraws, f->cap_draws);
      sim_draw *d = &f->draws[f->ndraws++];
      memset(d, 0, sizeof *d);
      d->rec = draw;
      memset(d->rec.vs_const, 0, sizeof d->rec.vs_const);
      memset(d->rec.fs_const, 0, sizeof d->rec.fs_const);
      d->vs_instructions = shader_instr(draw.vs_id);
      d->fs_instructions = shader_instr(draw.fs_id);
      d->pass = (uint32_t)f->npasses - 1;
      d->first_prim = (uint32_t)f->nprims;
      d->first_quad = (uint32_t)f->nquads;
      f->passes[f->npasses - 1].ndraws++;
      break;
    }
    case TBR_REC_DRAW_END:
      break;
    case TBR_REC_PRIM: {
      if (tbr_rec_prim_decode(p, n, &prim)) return fail(err, errlen, r, "bad PRIM record");
      int d = find_draw(f, prim.draw_seq);
      if (d < 0) return fail(err, errlen, r, "PRIM of unknown draw %u", prim.draw_seq);
      if (prim.index != f->draws[d].nprims || (size_t)d != f->ndraws - 1)
        return fail(err, errlen, r, "PRIM index %u of draw %u out of order", prim.index, prim.draw_seq);
      GROW(f->prims, f->nprims, f->cap_prims);
      sim_prim *sp = &f->prims[f->nprims++];
      sp->draw = (uint32_t)d;
      sp->kind = prim.kind;
      sp->flags = prim.flags;
      sp->nr_attrs = prim.nr_attrs;
      unsigned nv = prim.kind >= 1 && prim.kind <= 3 ? prim.kind : 1;
      sp->minx = sp->maxx = prim.v[0][0][0];
      sp->miny = sp->maxy = prim.v[0][0][1];
      for (unsigned v = 1; v < nv; v++) {
        float x = prim.v[v][0][0], y = prim.v[v][0][1];
        if (x < sp->minx) sp->minx = x;
        if (x > sp->maxx) sp->maxx = x;
        if (y < sp->miny) sp->miny = y;
        if (y > sp->maxy) sp->maxy = y;
      }
      if (prim.kind != 3) { /* points/lines: widen by half the point size / line width */
        float h = (prim.kind == 1 ? f->draws[d].rec.point_size : f->draws[d].rec.line_width) * 0.5f + 1.0f;
        sp->minx -= h; sp->miny -= h; sp->maxx += h; sp->maxy += h;
      }
      f->draws[d].nprims++;
      break;
    }
    case TBR_REC_QUADS: {
      tbr_cursor c;
      tbr_rec_quads_header h;
      if (tbr_rec_quads_open(&c, p, n, &h)) return fail(err, errlen, r, "bad QUADS header");
      int d = find_draw(f, h.draw_seq);
      if (d < 0) return fail(err, errlen, r, "QUADS of unknown draw %u", h.draw_seq);
      if ((size_t)d != f->ndraws - 1) return fail(err, errlen, r, "QUADS of draw %u after a later DRAW", h.draw_seq);
      sim_draw *sd = &f->draws[d];
      for (uint32_t i = 0; i < h.count; i++) {
        if (tbr_rec_quads_next(&c, &h, &q)) return fail(err, errlen, r, "bad quad %u in QUADS", i);
        GROW(f->quads, f->nquads, f->cap_quads);
        sim_quad *sq = &f->quads[f->nquads];
        sq->x = q.x; sq->y = q.y;
        sq->draw = (uint32_t)d;
        sq->prim = q.prim < sd->nprims ? sd->first_prim + q.prim : UINT32_MAX;
        sq->flags = (uint8_t)q.flags;
        sq->in_mask = (uint8_t)q.in_mask; sq->depth_mask = (uint8_t)q.depth_mask;
        sq->shade_mask = (uint8_t)q.shade_mask; sq->blend_mask = (uint8_t)q.blend_mask;
        memcpy(sq->z, q.z, sizeof sq->z);
        sq->color = (uint32_t)f->ncolors;
        if (q.flags & TBR_REC_QUAD_BLENDED) {
          for (uint32_t cb = 0; cb < h.nr_cbufs && cb < TBR_REC_MAX_CBUFS; cb++) {
            GROW(f->colors, f->ncolors, f->cap_colors);
            memcpy(f->colors[f->ncolors++], q.color[cb], sizeof q.color[cb]);
          }
        }
        sd->nquads++;
        sd->quads++;
        if (q.flags & TBR_REC_QUAD_SHADED) sd->shaded_quads++;
        push_item(f, SIM_ITEM_QUAD, (uint32_t)f->nquads);
        f->nquads++;
      }
      if (tbr_rec_quads_close(&c)) return fail(err, errlen, r, "trailing bytes in QUADS");
      break;
    }
    case TBR_REC_TILE: {
      GROW(f->tiles, f->ntiles, f->cap_tiles);
      sim_tile_ev *te = &f->tiles[f->ntiles];
      memset(te, 0, sizeof *te);
      if (tbr_rec_tile_decode(p, n, &te->t)) return fail(err, errlen, r, "bad TILE record");
      struct sim_clear_val *cv = clear_val(f, te->t.resource_id, te->t.level, te->t.layer);
      memcpy(te->clear_color, cv->color, sizeof te->clear_color);
      te->zs_clear = cv->zs;
      if (!f->npasses) { /* events before the first pass of the frame: a pass-less item list */
        GROW(f->passes, f->npasses, f->cap_passes);
        sim_pass *ps = &f->passes[f->npasses++];
        memset(ps, 0, sizeof *ps);
        ps->first_item = (uint32_t)f->nitems;
      }
      push_item(f, SIM_ITEM_TILE, (uint32_t)f->ntiles);
      f->ntiles++;
      break;
    }
    case TBR_REC_FLUSH:
      f->flushes++;
      break;
    case TBR_REC_UNSUPPORTED:
      f->unsupported++;
      break;
    default:
      break; /* unknown record types: newer minor schema additions are skipped */
    }
  }
  if (rc < 0) {
    snprintf(err, errlen, "%s", tbr_trace_reader_error(r));
    return -1;
  }
  return 0;
}
