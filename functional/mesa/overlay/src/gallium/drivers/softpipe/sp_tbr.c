/*
 * sp_tbr.c - tbrsim instrumentation of softpipe (new file, not part of Mesa).
 *
 * Loads the recording library named by TBR_FUNCTIONAL_LIB (see
 * include/tbr_mesa_hooks.h) and translates softpipe state into the hook
 * structs. Quads are observed by three pass-through stages inserted into the
 * quad pipeline only while a library is loaded:
 *
 *     IN -> stage1 -> OBS1 -> stage2 -> OBS2 -> blend
 *
 * (stage1/stage2 = depth/shade with early Z, shade/depth otherwise), plus a
 * call in the depth test that hands over the integer depth values.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe/p_defines.h"
#include "pipe/p_shader_tokens.h"
#include "tgsi/tgsi_dump.h"
#include "tgsi/tgsi_parse.h"
#include "tgsi/tgsi_scan.h"
#include "nir.h"
#include "draw/draw_private.h"
#include "util/format/u_format.h"
#include "util/u_math.h"
#include "util/u_memory.h"
#include "util/u_pack_color.h"

#include "sp_context.h"
#include "sp_quad.h"
#include "sp_quad_pipe.h"
#include "sp_state.h"
#include "sp_texture.h"
#include "sp_tile_cache.h"
#include "sp_tbr.h"

#define SP_TBR_MAX_QUADS 16
#define SP_TBR_MAX_PATH 16384

const struct tbr_mesa_hooks *sp_tbr_hooks;
static unsigned sp_tbr_next_id;
bool sp_tbr_tex_on;
unsigned sp_tbr_tex_lane;
static struct sp_tbr *sp_tbr_tex_t; /* context whose FS or VS run enabled sp_tbr_tex_on */

struct sp_tbr {
   struct softpipe_context *sp;
   struct quad_stage in, obs1, obs2;
   bool draw_active;
   bool fb_valid;
   uint32_t prim_index;
   uint32_t prim_kind;
   unsigned nslots;
   struct quad_header *slot_ptr[SP_TBR_MAX_QUADS];
   struct tbr_hook_quad slot[SP_TBR_MAX_QUADS];
   struct tbr_hook_draw draw;
   struct tbr_hook_framebuffer fb;
   char unsupported[256];
   /* executed instruction path of the quad being shaded */
   unsigned shade_slot[SP_TBR_MAX_QUADS];
   unsigned shade_n, shade_pos;
   int cur_slot;
   unsigned path_len;
   bool path_truncated;
   uint16_t path_pc[SP_TBR_MAX_PATH];
   uint8_t path_mask[SP_TBR_MAX_PATH];
   /* texels read while shading the current quad batch */
   int cur_pc;
   unsigned tex_unit, tex_fetch;
   struct tbr_hook_texel *texels;
   unsigned ntexels, texels_cap;
   bool texels_lost;
   /* vertices of the current fetch run */
   bool vs_active;
   uint32_t vs_pos_slot, vs_num_outputs;
   struct tbr_hook_vertices verts;
   uint32_t *vidx;
   unsigned vidx_cap, vcount, vpos;
   struct tbr_hook_vertex_group *groups;
   unsigned groups_cap;
   /* texels read by the vertex shader in the current fetch run (vertex texturing):
    * vs_tex is set while the VS machine runs a group, whose index is verts.n_groups */
   bool vs_tex;
   unsigned vtex_fetch;
   struct tbr_hook_texel *vtexels;
   unsigned nvtexels, vtexels_cap;
};

static bool grow(void **buf, unsigned *cap, unsigned need, size_t elem);
static void vs_flush(struct sp_tbr *t);
static uint32_t fnv1a(uint32_t h, uint32_t v);

#ifdef TGSI_EXEC_TBR_HOOK
static void
path_add(struct sp_tbr *t, const struct tgsi_exec_machine *m, int pc)
{
   if (t->path_len < SP_TBR_MAX_PATH) {
      t->path_pc[t->path_len] = (uint16_t)pc;
      t->path_mask[t->path_len] = (uint8_t)(m->ExecMask & m->NonHelperMask & ~m->KillMask & 0xf);
      t->path_len++;
   } else {
      t->path_truncated = true;
   }
}

/* tgsi_exec callback for the draw module's vertex shader machine: one run =
 * up to 4 vertices of the current fetch run, in order. */
static void
vs_exec_hook(void *data, const struct tgsi_exec_machine *m, int pc)
{
   struct sp_tbr *t = data;
   if (!t->vs_active)
      return;
   if (pc == -1) {
      t->path_len = 0;
      t->path_truncated = false;
      /* vertex texturing: the draw module samples through softpipe's VS sampler
       * (sp_tgsi_get_samples), so the texel hooks see it while this is on */
      t->cur_pc = -1;
      t->vs_tex = true;
      sp_tbr_tex_on = true;
      sp_tbr_tex_t = t;
      return;
   }
   if (pc >= 0) {
      t->cur_pc = pc;
      path_add(t, m, pc);
      return;
   }
   sp_tbr_tex_on = false;
   t->vs_tex = false;
   if (!grow((void **)&t->groups, &t->groups_cap, t->verts.n_groups + 1, sizeof(*t->groups))) {
      sp_tbr_hooks->unsupported("vertices_dropped");
      return;
   }
   struct tbr_hook_vertex_group *g = &t->groups[t->verts.n_groups++];
   memset(g, 0, sizeof(*g));
   g->path_id = sp_tbr_hooks->exec_path(t->verts.vs_id, TBR_HOOK_STAGE_VS, t->path_pc,
                                        t->path_mask, t->path_len, t->path_truncated);
   g->n = util_bitcount(m->NonHelperMask & 0xf);
   for (unsigned j = 0; j < g->n; j++) {
      g->index[j] = t->vpos + j < t->vcount ? t->vidx[t->vpos + j] : ~0u;
      uint32_t h = 2166136261u;
      for (unsigned slot = 0; slot < t->vs_num_outputs && slot < PIPE_MAX_SHADER_OUTPUTS; slot++) {
         for (unsigned c = 0; c < 4; c++) {
            if (slot == t->vs_pos_slot)
               g->pos[j][c] = m->Outputs[slot].xyzw[c].f[j];
            else
               h = fnv1a(h, m->Outputs[slot].xyzw[c].u[j]);
         }
      }
      g->out_hash[j] = h;
   }
   t->vpos += g->n;
   if (t->vpos >= t->vcount)
      vs_flush(t);
}

/* tgsi_exec callback for the fragment shader machine: the shading stage runs
 * the quads in the order it received them (shade_slot[]). */
static void
fs_exec_hook(void *data, const struct tgsi_exec_machine *m, int pc)
{
   struct sp_tbr *t = data;
   if (!t->nslots)
      return;
   if (pc == -1) {
      t->cur_slot = t->shade_pos < t->shade_n ? (int)t->shade_slot[t->shade_pos++] : -1;
      t->path_len = 0;
      t->path_truncated = false;
      t->cur_pc = -1;
      sp_tbr_tex_on = t->cur_slot >= 0;
      sp_tbr_tex_t = t;
      return;
   }
   if (t->cur_slot < 0)
      return;
   t->cur_pc = pc;
   if (pc == -2) {
      sp_tbr_tex_on = false;
      t->slot[t->cur_slot].path_id =
         sp_tbr_hooks->exec_path(t->draw.fs_id, TBR_HOOK_STAGE_FS, t->path_pc, t->path_mask,
                                 t->path_len, t->path_truncated);
      t->cur_slot = -1;
      return;
   }
   path_add(t, m, pc);
}
#endif

static void
set_shade_list(struct sp_tbr *t, struct quad_header *quads[], unsigned nr);
static unsigned new_id(void);

/* ------------------------------------------------------------------------ */
/* Texels (sp_tex_sample.c calls these while sp_tbr_tex_on)                 */
/* ------------------------------------------------------------------------ */

void
sp_tbr_tex_fetch(unsigned unit)
{
   struct sp_tbr *t = sp_tbr_tex_t;
   t->tex_unit = unit;
   if (t->vs_tex)
      t->vtex_fetch++;
   else
      t->tex_fetch++;
   sp_tbr_tex_lane = 0;
}

static bool
grow(void **buf, unsigned *cap, unsigned need, size_t elem)
{
   if (need <= *cap)
      return true;
   unsigned ncap = *cap ? *cap : 256;
   while (ncap < need) {
      if (ncap > (1u << 26))
         return false;
      ncap *= 2;
   }
   void *n = REALLOC(*buf, (size_t)*cap * elem, (size_t)ncap * elem);
   if (!n)
      return false;
   *buf = n;
   *cap = ncap;
   return true;
}

void
sp_tbr_texel(const struct pipe_sampler_view *view, unsigned level, unsigned layer, int x, int y)
{
   struct sp_tbr *t = sp_tbr_tex_t;
   if (!t || (!t->vs_tex && t->cur_slot < 0) || !view->texture)
      return;
   struct tbr_hook_texel **buf = t->vs_tex ? &t->vtexels : &t->texels;
   unsigned *cap = t->vs_tex ? &t->vtexels_cap : &t->texels_cap;
   unsigned *n = t->vs_tex ? &t->nvtexels : &t->ntexels;
   if (!grow((void **)buf, cap, *n + 1, sizeof(**buf))) {
      if (!t->texels_lost)
         sp_tbr_hooks->unsupported("texels_dropped");
      t->texels_lost = true;
      return;
   }
   struct softpipe_resource *spr = softpipe_resource(view->texture);
   if (!spr->tbr_id)
      spr->tbr_id = new_id();
   struct tbr_hook_texel *e = &(*buf)[(*n)++];
   e->slot = t->vs_tex ? t->verts.n_groups : (uint32_t)t->cur_slot;
   e->fetch = t->vs_tex ? t->vtex_fetch : t->tex_fetch;
   e->pc = t->cur_pc < 0 ? 0 : (uint32_t)t->cur_pc;
   e->unit = t->tex_unit;
   e->lane = sp_tbr_tex_lane;
   e->resource_id = spr->tbr_id;
   e->level = level;
   e->layer = layer;
   e->x = x;
   e->y = y;
}

/* ------------------------------------------------------------------------ */
/* Vertices: draw-module fetch hook + VS machine hook                       */
/* ------------------------------------------------------------------------ */

static void
vs_flush(struct sp_tbr *t)
{
   if (!t->vcount && !t->verts.n_groups)
      return;
   t->verts.fetched = t->vcount;
   t->verts.groups = t->groups;
   t->verts.n_texels = t->nvtexels;
   t->verts.texels = t->vtexels;
   sp_tbr_hooks->vertices(&t->verts);
   t->vcount = t->vpos = 0;
   t->verts.n_groups = 0;
   t->nvtexels = 0;
   t->vtex_fetch = 0;
}

static void
vs_fetch_hook(void *data, const unsigned *elts, unsigned start, unsigned count)
{
   struct sp_tbr *t = data;
   if (!t->vs_active)
      return;
   vs_flush(t);
   if (!grow((void **)&t->vidx, &t->vidx_cap, count, sizeof(*t->vidx))) {
      sp_tbr_hooks->unsupported("vertices_dropped");
      return;
   }
   const struct draw_context *draw = t->sp->draw;
   const unsigned max_index = draw->pt.max_index;
   for (unsigned i = 0; i < count; i++) {
      unsigned idx = elts ? elts[i] : start + i;
      t->vidx[i] = MIN2(idx, max_index);
   }
   t->vcount = count;
   t->vpos = 0;
   t->verts.instance_id = draw->instance_id;
   t->verts.start_instance = draw->start_instance;
}

static uint32_t
fnv1a(uint32_t h, uint32_t v)
{
   for (unsigned b = 0; b < 4; b++) {
      h ^= (v >> (8 * b)) & 0xffu;
      h *= 16777619u;
   }
   return h;
}

static unsigned
new_id(void)
{
   return ++sp_tbr_next_id;
}

static const struct tbr_mesa_hooks *
sp_tbr_load(void)
{
   static bool tried;
   if (tried)
      return sp_tbr_hooks;
   tried = true;

   const char *path = getenv("TBR_FUNCTIONAL_LIB");
   if (!path || !*path)
      return NULL;
   void *handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
   if (!handle) {
      fprintf(stderr, "tbrsim softpipe: cannot load TBR_FUNCTIONAL_LIB=%s: %s\n", path, dlerror());
      return NULL;
   }
   tbr_mesa_hooks_get_fn get = (tbr_mesa_hooks_get_fn)dlsym(handle, TBR_MESA_HOOKS_SYMBOL);
   const struct tbr_mesa_hooks *h = get ? get() : NULL;
   if (!h || h->version != TBR_MESA_HOOKS_VERSION || h->size < sizeof(*h)) {
      fprintf(stderr, "tbrsim softpipe: %s has no compatible %s (want version %u)\n",
              path, TBR_MESA_HOOKS_SYMBOL, TBR_MESA_HOOKS_VERSION);
      return NULL;
   }
   sp_tbr_hooks = h;
   return h;
}

static inline bool
recording(const struct softpipe_context *sp)
{
   return sp->tbr && sp_tbr_hooks->recording();
}

static void
add_unsupported(struct sp_tbr *t, const char *name)
{
   size_t len = strlen(t->unsupported);
   if (len + strlen(name) + 2 >= sizeof(t->unsupported))
      return;
   if (len)
      t->unsupported[len++] = ',';
   strcpy(t->unsupported + len, name);
}

/* ------------------------------------------------------------------------ */
/* Translation helpers                                                      */
/* ------------------------------------------------------------------------ */

static void
fill_resource(struct tbr_hook_resource *out, struct pipe_resource *res)
{
   memset(out, 0, sizeof(*out));
   if (!res)
      return;
   struct softpipe_resource *spr = softpipe_resource(res);
   if (!spr->tbr_id)
      spr->tbr_id = new_id();
   out->id = spr->tbr_id;
   out->target = res->target;
   out->format = res->format;
   out->format_name = util_format_name(res->format);
   out->width = res->width0;
   out->height = res->height0;
   out->depth = res->depth0;
   out->array_size = res->array_size;
   out->last_level = res->last_level;
   out->nr_samples = res->nr_samples;
   out->bind = res->bind;
   out->block_bytes = util_format_get_blocksize(res->format);
   out->is_display_target = spr->dt != NULL || (res->bind & PIPE_BIND_DISPLAY_TARGET) != 0;
}

static void
fill_surface(struct tbr_hook_surface *out, struct pipe_surface *ps)
{
   memset(out, 0, sizeof(*out));
   if (!ps || !ps->texture)
      return;
   out->valid = 1;
   fill_resource(&out->res, ps->texture);
   out->format = ps->format;
   out->format_name = util_format_name(ps->format);
   out->level = ps->u.tex.level;
   out->first_layer = ps->u.tex.first_layer;
   out->last_layer = ps->u.tex.last_layer;
   out->width = ps->width;
   out->height = ps->height;
}

/* The tile cache's mapping of the surface's first layer (version 3 hooks). */
static void
fill_surface_map(struct tbr_hook_surface *out, const struct softpipe_tile_cache *tc,
                 const struct pipe_surface *ps)
{
   if (!out->valid || !tc || tc->surface != ps || tc->num_maps < 1 || !tc->transfer_map ||
       !tc->transfer || !tc->transfer[0])
      return;
   out->map = tc->transfer_map[0];
   out->stride = tc->transfer[0]->stride;
}

static void
fill_framebuffer(struct sp_tbr *t)
{
   const struct pipe_framebuffer_state *fb = &t->sp->framebuffer;
   struct tbr_hook_framebuffer *o = &t->fb;
   memset(o, 0, sizeof(*o));
   o->width = fb->width;
   o->height = fb->height;
   o->layers = fb->layers;
   o->samples = fb->samples;
   o->nr_cbufs = MIN2(fb->nr_cbufs, TBR_HOOK_MAX_CBUFS);
   for (unsigned i = 0; i < o->nr_cbufs; i++) {
      fill_surface(&o->cbufs[i], fb->cbufs[i]);
      fill_surface_map(&o->cbufs[i], t->sp->cbuf_cache[i], fb->cbufs[i]);
   }
   fill_surface(&o->zsbuf, fb->zsbuf);
   fill_surface_map(&o->zsbuf, t->sp->zsbuf_cache, fb->zsbuf);
}

static void
send_shader_text(unsigned id, unsigned stage, unsigned internal, const struct tgsi_token *tokens,
                 unsigned created, unsigned parent_id)
{
   struct tgsi_shader_info info;
   tgsi_scan_shader(tokens, &info);
   size_t size = 4096;
   char *text = NULL;
   for (;;) {
      text = MALLOC(size);
      if (!text)
         return;
      /* tgsi_dump_str truncates silently; grow until the text fits with room to spare */
      /* floats in hex: tgsi_dump's decimals ("%10.4f") lose bits, and the recorder
       * re-executes the text (computed colors) */
      tgsi_dump_str(tokens, TGSI_DUMP_FLOAT_AS_HEX, text, size);
      if (strlen(text) + 2 < size)
         break;
      FREE(text);
      size *= 2;
   }
   struct tbr_hook_shader s = {
      .id = id, .stage = stage, .internal = internal,
      .num_tokens = tgsi_num_tokens(tokens),
      .num_instructions = info.num_instructions,
      .text = text,
      .created = created,
      .parent_id = parent_id,
   };
   sp_tbr_hooks->shader(&s);
   FREE(text);
}

static void
send_shader(unsigned id, unsigned stage, unsigned internal, const struct tgsi_token *tokens,
            unsigned parent_id)
{
   if (sp_tbr_hooks->shader_known(id))
      return;
   send_shader_text(id, stage, internal, tokens, 0, parent_id);
}

static void
fill_texture(struct tbr_hook_texture *o, struct pipe_sampler_view *view,
             const struct pipe_sampler_state *samp)
{
   memset(o, 0, sizeof(*o));
   if (!view || !view->texture)
      return;
   o->valid = 1;
   fill_resource(&o->res, view->texture);
   o->view_format = view->format;
   if (view->target != PIPE_BUFFER) {
      o->first_level = view->u.tex.first_level;
      o->last_level = view->u.tex.last_level;
      o->first_layer = view->u.tex.first_layer;
      o->last_layer = view->u.tex.last_layer;
   }
   if (view->target != PIPE_BUFFER && !softpipe_resource(view->texture)->dt) {
      const struct softpipe_resource *spr = softpipe_resource(view->texture);
      unsigned levels = view->texture->last_level + 1;
      if (levels > TBR_HOOK_MAX_LEVELS)
         levels = TBR_HOOK_MAX_LEVELS;
      if (levels > SP_MAX_TEXTURE_2D_LEVELS)
         levels = SP_MAX_TEXTURE_2D_LEVELS;
      o->data = spr->data;
      o->num_levels = levels;
      for (unsigned l = 0; l < levels; l++) {
         o->level_offset[l] = spr->level_offset[l];
         o->stride[l] = spr->stride[l];
         o->img_stride[l] = spr->img_stride[l];
      }
   }
   o->swizzle[0] = view->swizzle_r;
   o->swizzle[1] = view->swizzle_g;
   o->swizzle[2] = view->swizzle_b;
   o->swizzle[3] = view->swizzle_a;
   if (samp) {
      o->has_sampler = 1;
      o->wrap_s = samp->wrap_s;
      o->wrap_t = samp->wrap_t;
      o->wrap_r = samp->wrap_r;
      o->min_img_filter = samp->min_img_filter;
      o->min_mip_filter = samp->min_mip_filter;
      o->mag_img_filter = samp->mag_img_filter;
      o->compare_mode = samp->compare_mode;
      o->compare_func = samp->compare_func;
      o->normalized_coords = !samp->unnormalized_coords;
      o->seamless_cube_map = samp->seamless_cube_map;
      o->max_anisotropy = samp->max_anisotropy;
      o->lod_bias = samp->lod_bias;
      o->min_lod = samp->min_lod;
      o->max_lod = samp->max_lod;
      memcpy(o->border_color, samp->border_color.f, sizeof(o->border_color));
   }
}

static void
fill_constbufs(struct tbr_hook_constbuf *o, struct softpipe_context *sp, unsigned stage)
{
   for (unsigned i = 0; i < TBR_HOOK_MAX_CONSTBUFS; i++) {
      o[i].data = sp->mapped_constants[stage][i];
      o[i].size = o[i].data ? sp->const_buffer_size[stage][i] : 0;
   }
}

/* ------------------------------------------------------------------------ */
/* Quad observer stages                                                     */
/* ------------------------------------------------------------------------ */

static struct sp_tbr *
tbr_of(struct quad_stage *qs)
{
   return qs->softpipe->tbr;
}

static struct tbr_hook_quad *
find_slot(struct sp_tbr *t, const struct quad_header *q)
{
   for (unsigned i = 0; i < t->nslots; i++)
      if (t->slot_ptr[i] == q)
         return &t->slot[i];
   return NULL;
}

static void
obs_begin(struct quad_stage *qs)
{
   qs->next->begin(qs->next);
}

static void
obs_destroy(struct quad_stage *qs)
{
   (void)qs;
}

static void
in_run(struct quad_stage *qs, struct quad_header *quads[], unsigned nr)
{
   struct sp_tbr *t = tbr_of(qs);
   if (!t->draw_active || t->nslots || nr > SP_TBR_MAX_QUADS) {
      if (t->draw_active && nr > SP_TBR_MAX_QUADS)
         sp_tbr_hooks->unsupported("quad_batch_too_large");
      qs->next->run(qs->next, quads, nr);
      return;
   }
   const bool early = t->sp->early_depth;
   for (unsigned i = 0; i < nr; i++) {
      const struct quad_header *q = quads[i];
      struct tbr_hook_quad *s = &t->slot[i];
      t->slot_ptr[i] = quads[i];
      s->x = q->input.x0;
      s->y = q->input.y0;
      s->prim = t->prim_index ? t->prim_index - 1 : 0;
      s->prim_kind = q->input.prim;
      s->flags = (q->input.facing ? TBR_HOOK_QUAD_FACING_BACK : 0) |
                 (early ? 0 : TBR_HOOK_QUAD_SHADED);
      s->in_mask = q->inout.mask;
      s->depth_mask = s->shade_mask = s->blend_mask = 0;
      s->path_id = 0;
      s->nr_cbufs = t->fb.nr_cbufs;
   }
   t->nslots = nr;
   t->shade_n = t->shade_pos = 0;
   t->cur_slot = -1;
   if (!early)
      set_shade_list(t, quads, nr);
   t->ntexels = 0;
   t->tex_fetch = 0;
   qs->next->run(qs->next, quads, nr);
   sp_tbr_tex_on = false;
   sp_tbr_hooks->quads(t->slot, nr);
   if (t->ntexels)
      sp_tbr_hooks->texels(t->texels, t->ntexels);
   t->ntexels = 0;
   t->nslots = 0;
}

static void
obs_mark(struct sp_tbr *t, struct quad_header *quads[], unsigned nr, bool depth_out,
         bool blend)
{
   const bool early = t->sp->early_depth;
   for (unsigned i = 0; i < nr; i++) {
      struct tbr_hook_quad *s = find_slot(t, quads[i]);
      if (!s)
         continue;
      unsigned mask = quads[i]->inout.mask;
      if (depth_out) {
         s->flags |= TBR_HOOK_QUAD_DEPTH_OUT;
         s->depth_mask = mask;
         if (early)
            s->flags |= TBR_HOOK_QUAD_SHADED;
      } else {
         s->flags |= TBR_HOOK_QUAD_SHADE_OUT;
         s->shade_mask = mask;
      }
      if (blend) {
         s->flags |= TBR_HOOK_QUAD_BLENDED;
         s->blend_mask = mask;
         for (unsigned c = 0; c < s->nr_cbufs; c++)
            memcpy(s->color[c], quads[i]->output.color[c], sizeof(s->color[c]));
      }
   }
}

static void
set_shade_list(struct sp_tbr *t, struct quad_header *quads[], unsigned nr)
{
   t->shade_n = 0;
   t->shade_pos = 0;
   for (unsigned i = 0; i < nr; i++)
      for (unsigned k = 0; k < t->nslots; k++)
         if (t->slot_ptr[k] == quads[i])
            t->shade_slot[t->shade_n++] = k;
}

static void
obs1_run(struct quad_stage *qs, struct quad_header *quads[], unsigned nr)
{
   struct sp_tbr *t = tbr_of(qs);
   if (t->nslots) {
      obs_mark(t, quads, nr, t->sp->early_depth, false);
      if (t->sp->early_depth)
         set_shade_list(t, quads, nr);
   }
   qs->next->run(qs->next, quads, nr);
}

static void
obs2_run(struct quad_stage *qs, struct quad_header *quads[], unsigned nr)
{
   struct sp_tbr *t = tbr_of(qs);
   if (t->nslots)
      obs_mark(t, quads, nr, !t->sp->early_depth, true);
   qs->next->run(qs->next, quads, nr);
}

void
sp_tbr_build_quad_pipeline(struct softpipe_context *sp)
{
   struct sp_tbr *t = sp->tbr;
   if (!t)
      return;
   struct quad_stage *s1 = sp->quad.first;
   struct quad_stage *s2 = s1->next;
   t->obs1.next = s2;
   s1->next = &t->obs1;
   t->obs2.next = s2->next;
   s2->next = &t->obs2;
   t->in.next = s1;
   sp->quad.first = &t->in;
}

void
sp_tbr_quad_depth(struct softpipe_context *sp, const struct quad_header *quad,
                  const unsigned z[4])
{
   struct sp_tbr *t = sp->tbr;
   if (!t || !t->nslots)
      return;
   struct tbr_hook_quad *s = find_slot(t, quad);
   if (!s)
      return;
   s->flags |= TBR_HOOK_QUAD_HAS_Z;
   memcpy(s->z, z, sizeof(s->z));
}

void
sp_tbr_quad_depth16(struct softpipe_context *sp, const struct quad_header *quad,
                    const unsigned short z[4])
{
   unsigned z32[4] = { z[0], z[1], z[2], z[3] };
   sp_tbr_quad_depth(sp, quad, z32);
}

/* ------------------------------------------------------------------------ */
/* Context, draws, clears, flushes, uploads, shaders                        */
/* ------------------------------------------------------------------------ */

void
sp_tbr_context_init(struct softpipe_context *sp)
{
   const struct tbr_mesa_hooks *h = sp_tbr_load();
   if (!h)
      return;
   struct tbr_hook_context_info info = {
      .driver = "softpipe",
#ifdef PACKAGE_VERSION
      .mesa_version = PACKAGE_VERSION,
#else
      .mesa_version = "unknown",
#endif
      .tile_size = TILE_SIZE,
      .tile_cache_entries = NUM_ENTRIES,
   };
   if (h->context_create(&info) != 0)
      return;
   struct sp_tbr *t = CALLOC_STRUCT(sp_tbr);
   if (!t)
      return;
   t->sp = sp;
   struct quad_stage *stages[3] = { &t->in, &t->obs1, &t->obs2 };
   for (unsigned i = 0; i < 3; i++) {
      stages[i]->softpipe = sp;
      stages[i]->begin = obs_begin;
      stages[i]->destroy = obs_destroy;
   }
   t->in.run = in_run;
   t->obs1.run = obs1_run;
   t->obs2.run = obs2_run;
   sp->tbr = t;
}

void
sp_tbr_context_destroy(struct softpipe_context *sp)
{
   if (!sp->tbr)
      return;
   sp_tbr_hooks->context_destroy();
   if (sp_tbr_tex_t == sp->tbr) {
      sp_tbr_tex_t = NULL;
      sp_tbr_tex_on = false;
   }
   FREE(sp->tbr->texels);
   FREE(sp->tbr->vidx);
   FREE(sp->tbr->groups);
   FREE(sp->tbr->vtexels);
   FREE(sp->tbr);
   sp->tbr = NULL;
}

/* Vertex fetch layout of the draw (softpipe's vertex elements and buffers) and
 * the VS/fetch hooks. */
static void
fill_vertex_streams(struct sp_tbr *t)
{
   struct softpipe_context *sp = t->sp;
   struct draw_context *draw = sp->draw;
   struct tbr_hook_vertices *v = &t->verts;
   memset(v, 0, sizeof(*v));
   t->vcount = t->vpos = 0;
   t->nvtexels = 0;
   t->vtex_fetch = 0;
   t->vs_tex = false;
   v->vs_id = t->draw.vs_id;
   v->num_outputs = draw->vs.num_vs_outputs;
   v->position_slot = draw->vs.position_output < v->num_outputs ? draw->vs.position_output : ~0u;
   t->vs_num_outputs = v->num_outputs;
   t->vs_pos_slot = v->position_slot;
   const struct sp_velems_state *ve = sp->velems;
   v->nr_streams = ve ? MIN2(ve->count, TBR_HOOK_MAX_STREAMS) : 0;
   for (unsigned i = 0; i < v->nr_streams; i++) {
      const struct pipe_vertex_element *e = &ve->velem[i];
      struct tbr_hook_vertex_stream *o = &v->streams[i];
      if (e->vertex_buffer_index >= PIPE_MAX_ATTRIBS)
         continue;
      const struct pipe_vertex_buffer *vb = &sp->vertex_buffer[e->vertex_buffer_index];
      if (!vb->is_user_buffer && vb->buffer.resource)
         fill_resource(&o->res, vb->buffer.resource);
      o->buffer_index = e->vertex_buffer_index;
      o->offset = vb->buffer_offset + e->src_offset;
      o->stride = vb->stride;
      o->size = util_format_get_blocksize(e->src_format);
      o->format = e->src_format;
      o->instance_divisor = e->instance_divisor;
   }
   if (!sp->vs)
      return;
   t->vs_active = true;
   draw->tbr_fetch_hook = vs_fetch_hook;
   draw->tbr_fetch_data = t;
#ifdef TGSI_EXEC_TBR_HOOK
   if (draw->vs.tgsi.machine) {
      draw->vs.tgsi.machine->tbr_exec_hook = vs_exec_hook;
      draw->vs.tgsi.machine->tbr_exec_data = t;
   }
#endif
}

void
sp_tbr_draw_begin(struct softpipe_context *sp, const struct pipe_draw_info *info,
                  const struct pipe_draw_start_count_bias *dr)
{
   struct sp_tbr *t = sp->tbr;
   if (!t)
      return;
   t->draw_active = false;
   if (!sp_tbr_hooks->recording())
      return;
   t->draw_active = true;
   t->prim_index = 0;
   t->unsupported[0] = 0;
   fill_framebuffer(t);

   struct tbr_hook_draw *d = &t->draw;
   memset(d, 0, sizeof(*d));
   d->mode = info->mode;
   d->index_size = info->index_size;
   d->start = dr->start;
   d->count = dr->count;
   d->index_bias = info->index_size ? dr->index_bias : 0;
   d->instance_count = info->instance_count;
   d->start_instance = info->start_instance;
   d->min_index = info->min_index;
   d->max_index = info->max_index;

   /* shaders */
   if (sp->vs) {
      if (!sp->vs->tbr_id)
         sp->vs->tbr_id = new_id();
      d->vs_id = sp->vs->tbr_id;
      send_shader(d->vs_id, TBR_HOOK_STAGE_VS, sp->vs->tbr_internal, sp->vs->shader.tokens,
                  d->vs_id);
   }
   if (sp->fs_variant) {
      struct sp_fragment_shader_variant *v = sp->fs_variant;
      if (!v->tbr_id)
         v->tbr_id = new_id();
      d->fs_id = v->tbr_id;
      if (sp->fs && !sp->fs->tbr_id)
         sp->fs->tbr_id = new_id();
      send_shader(d->fs_id, TBR_HOOK_STAGE_FS, sp->fs ? sp->fs->tbr_internal : 1, v->tokens,
                  sp->fs ? sp->fs->tbr_id : 0);
      d->fs_uses_kill = v->info.uses_kill;
      d->fs_writes_z = v->info.writes_z;
      d->fs_writes_stencil = v->info.writes_stencil;
   }
   d->internal = (sp->fs && sp->fs->tbr_internal) || (sp->vs && sp->vs->tbr_internal);
   d->early_z = sp->early_depth;
   if (sp->gs && sp->gs->shader.tokens)
      add_unsupported(t, "geometry_shader");
   if (d->fs_writes_stencil)
      add_unsupported(t, "fs_writes_stencil");

   /* rasterizer */
   const struct pipe_rasterizer_state *r = sp->rasterizer;
   if (r) {
      d->flatshade = r->flatshade;
      d->flatshade_first = r->flatshade_first;
      d->light_twoside = r->light_twoside;
      d->front_ccw = r->front_ccw;
      d->cull_face = r->cull_face;
      d->fill_front = r->fill_front;
      d->fill_back = r->fill_back;
      d->scissor_enable = r->scissor;
      d->half_pixel_center = r->half_pixel_center;
      d->bottom_edge_rule = r->bottom_edge_rule;
      d->multisample = r->multisample;
      d->rasterizer_discard = r->rasterizer_discard;
      d->depth_clip_near = r->depth_clip_near;
      d->depth_clip_far = r->depth_clip_far;
      d->clip_halfz = r->clip_halfz;
      d->point_quad_rasterization = r->point_quad_rasterization;
      d->sprite_coord_enable = r->sprite_coord_enable;
      d->sprite_coord_mode = r->sprite_coord_mode;
      d->line_smooth = r->line_smooth;
      d->poly_smooth = r->poly_smooth;
      d->poly_stipple_enable = r->poly_stipple_enable;
      d->line_stipple_enable = r->line_stipple_enable;
      d->offset_tri = r->offset_tri;
      d->offset_line = r->offset_line;
      d->offset_point = r->offset_point;
      d->offset_units = r->offset_units;
      d->offset_scale = r->offset_scale;
      d->offset_clamp = r->offset_clamp;
      d->point_size = r->point_size;
      d->line_width = r->line_width;
      if (r->line_smooth || r->poly_smooth || r->point_smooth)
         add_unsupported(t, "smooth_aa");
      if (r->poly_stipple_enable)
         add_unsupported(t, "polygon_stipple");
      if (r->clamp_fragment_color)
         add_unsupported(t, "clamp_fragment_color");
   }

   /* depth / stencil / alpha */
   const struct pipe_depth_stencil_alpha_state *z = sp->depth_stencil;
   if (z) {
      d->depth_enabled = z->depth_enabled;
      d->depth_writemask = z->depth_writemask;
      d->depth_func = z->depth_func;
      for (unsigned i = 0; i < 2; i++) {
         d->stencil[i].enabled = z->stencil[i].enabled;
         d->stencil[i].func = z->stencil[i].func;
         d->stencil[i].fail_op = z->stencil[i].fail_op;
         d->stencil[i].zpass_op = z->stencil[i].zpass_op;
         d->stencil[i].zfail_op = z->stencil[i].zfail_op;
         d->stencil[i].valuemask = z->stencil[i].valuemask;
         d->stencil[i].writemask = z->stencil[i].writemask;
         d->stencil[i].ref = sp->stencil_ref.ref_value[i];
      }
      d->alpha_enabled = z->alpha_enabled;
      d->alpha_func = z->alpha_func;
      d->alpha_ref = z->alpha_ref_value;
      d->depth_bounds_test = z->depth_bounds_test;
      d->depth_bounds_min = (float)z->depth_bounds_min;
      d->depth_bounds_max = (float)z->depth_bounds_max;
   }

   /* blend */
   const struct pipe_blend_state *b = sp->blend;
   if (b) {
      d->independent_blend_enable = b->independent_blend_enable;
      d->logicop_enable = b->logicop_enable;
      d->logicop_func = b->logicop_func;
      d->dither = b->dither;
      d->alpha_to_coverage = b->alpha_to_coverage;
      d->alpha_to_one = b->alpha_to_one;
      for (unsigned i = 0; i < TBR_HOOK_MAX_CBUFS; i++) {
         const struct pipe_rt_blend_state *rt = &b->rt[b->independent_blend_enable ? i : 0];
         d->rt[i].blend_enable = rt->blend_enable;
         d->rt[i].rgb_func = rt->rgb_func;
         d->rt[i].rgb_src = rt->rgb_src_factor;
         d->rt[i].rgb_dst = rt->rgb_dst_factor;
         d->rt[i].alpha_func = rt->alpha_func;
         d->rt[i].alpha_src = rt->alpha_src_factor;
         d->rt[i].alpha_dst = rt->alpha_dst_factor;
         d->rt[i].colormask = rt->colormask;
      }
      if (b->advanced_blend_func)
         add_unsupported(t, "advanced_blend");
   }
   memcpy(d->blend_color, sp->blend_color.color, sizeof(d->blend_color));

   memcpy(d->viewport_scale, sp->viewports[0].scale, sizeof(d->viewport_scale));
   memcpy(d->viewport_translate, sp->viewports[0].translate, sizeof(d->viewport_translate));
   d->scissor[0] = sp->scissors[0].minx;
   d->scissor[1] = sp->scissors[0].miny;
   d->scissor[2] = sp->scissors[0].maxx;
   d->scissor[3] = sp->scissors[0].maxy;

   d->nr_cbufs = t->fb.nr_cbufs;
   for (unsigned i = 0; i < d->nr_cbufs; i++)
      d->cbuf_format[i] = t->fb.cbufs[i].valid ? t->fb.cbufs[i].format : 0;
   d->zs_format = t->fb.zsbuf.valid ? t->fb.zsbuf.format : 0;
   if (sp->framebuffer.nr_cbufs > TBR_HOOK_MAX_CBUFS)
      add_unsupported(t, "too_many_render_targets");
   if (sp->framebuffer.samples > 1)
      add_unsupported(t, "multisample");

   /* fragment textures */
   unsigned nviews = sp->num_sampler_views[PIPE_SHADER_FRAGMENT];
   if (nviews > TBR_HOOK_MAX_TEXTURES) {
      add_unsupported(t, "too_many_textures");
      nviews = TBR_HOOK_MAX_TEXTURES;
   }
   d->num_textures = nviews;
   for (unsigned i = 0; i < nviews; i++)
      fill_texture(&d->textures[i], sp->sampler_views[PIPE_SHADER_FRAGMENT][i],
                   i < sp->num_samplers[PIPE_SHADER_FRAGMENT] ?
                      sp->samplers[PIPE_SHADER_FRAGMENT][i] : NULL);
   d->num_vs_textures = sp->num_sampler_views[PIPE_SHADER_VERTEX];
   if (d->num_vs_textures > TBR_HOOK_MAX_TEXTURES) {
      add_unsupported(t, "too_many_textures");
      d->num_vs_textures = TBR_HOOK_MAX_TEXTURES;
   }
   for (unsigned i = 0; i < d->num_vs_textures; i++)
      fill_texture(&d->vs_textures[i], sp->sampler_views[PIPE_SHADER_VERTEX][i],
                   i < sp->num_samplers[PIPE_SHADER_VERTEX] ?
                      sp->samplers[PIPE_SHADER_VERTEX][i] : NULL);

   fill_constbufs(d->vs_const, sp, PIPE_SHADER_VERTEX);
   fill_constbufs(d->fs_const, sp, PIPE_SHADER_FRAGMENT);

   d->unsupported = t->unsupported;
#ifdef TGSI_EXEC_TBR_HOOK
   sp->fs_machine->tbr_exec_hook = fs_exec_hook;
   sp->fs_machine->tbr_exec_data = t;
#endif
   fill_vertex_streams(t);
   sp_tbr_hooks->framebuffer(&t->fb);
   sp_tbr_hooks->draw_begin(d);
}

void
sp_tbr_draw_end(struct softpipe_context *sp)
{
   struct sp_tbr *t = sp->tbr;
   if (!t || !t->draw_active)
      return;
   t->draw_active = false;
#ifdef TGSI_EXEC_TBR_HOOK
   sp->fs_machine->tbr_exec_hook = NULL;
   sp->fs_machine->tbr_exec_data = NULL;
#endif
   vs_flush(t);
   t->vs_active = false;
   t->vs_tex = false;
   sp->draw->tbr_fetch_hook = NULL;
   sp->draw->tbr_fetch_data = NULL;
#ifdef TGSI_EXEC_TBR_HOOK
   if (sp->draw->vs.tgsi.machine) {
      sp->draw->vs.tgsi.machine->tbr_exec_hook = NULL;
      sp->draw->vs.tgsi.machine->tbr_exec_data = NULL;
   }
#endif
   sp_tbr_hooks->draw_end();
}

void
sp_tbr_prim(struct softpipe_context *sp, unsigned kind, const float (*v0)[4],
            const float (*v1)[4], const float (*v2)[4], unsigned nr_attrs,
            float det, bool culled)
{
   struct sp_tbr *t = sp->tbr;
   if (!t || !t->draw_active)
      return;
   struct tbr_hook_prim p = {
      .index = t->prim_index++,
      .kind = kind,
      .flags = culled ? TBR_HOOK_PRIM_CULLED : 0,
      .det = det,
      .nr_attrs = MIN2(nr_attrs, TBR_HOOK_MAX_ATTRIBS),
      .v = { v0, v1, v2 },
   };
   sp_tbr_hooks->prim(&p);
}

void
sp_tbr_clear(struct softpipe_context *sp, unsigned buffers,
             const struct pipe_scissor_state *scissor,
             const union pipe_color_union *color, double depth, unsigned stencil)
{
   struct sp_tbr *t = sp->tbr;
   if (!recording(sp))
      return;
   fill_framebuffer(t);
   struct tbr_hook_clear c;
   memset(&c, 0, sizeof(c));
   c.buffers = buffers;
   memcpy(c.color_f, color->f, sizeof(c.color_f));
   memcpy(c.color_ui, color->ui, sizeof(c.color_ui));
   c.depth = depth;
   c.stencil = stencil;
   struct pipe_surface *zs = sp->framebuffer.zsbuf;
   unsigned zsb = buffers & PIPE_CLEAR_DEPTHSTENCIL;
   if (zs && zsb) {
      c.zs_packed = util_pack64_z_stencil(zs->format, depth, stencil);
      c.zs_partial = util_format_is_depth_and_stencil(zs->texture->format) &&
                     zsb != PIPE_CLEAR_DEPTHSTENCIL;
   }
   if (scissor) {
      c.has_scissor = 1;
      c.scissor[0] = scissor->minx;
      c.scissor[1] = scissor->miny;
      c.scissor[2] = scissor->maxx;
      c.scissor[3] = scissor->maxy;
   }
   sp_tbr_hooks->framebuffer(&t->fb);
   sp_tbr_hooks->clear(&c);
}

void
sp_tbr_flush(struct softpipe_context *sp, unsigned flags)
{
   if (recording(sp))
      sp_tbr_hooks->flush(flags);
}

/* glInvalidateFramebuffer / glDiscardFramebufferEXT (hooks version 6): only told to
 * the recorder, softpipe itself keeps the contents. */
void
sp_tbr_invalidate_resource(struct softpipe_context *sp, struct pipe_resource *res)
{
   if (!res || !recording(sp))
      return;
   struct tbr_hook_resource r;
   fill_resource(&r, res);
   sp_tbr_hooks->invalidate(&r);
}

void
sp_tbr_transfer_unmap(struct pipe_context *pipe, struct pipe_transfer *transfer)
{
   struct softpipe_context *sp = softpipe_context(pipe);
   if (!(transfer->usage & PIPE_MAP_WRITE) || !recording(sp))
      return;
   struct pipe_resource *res = transfer->resource;
   struct tbr_hook_upload u;
   memset(&u, 0, sizeof(u));
   fill_resource(&u.res, res);
   u.level = transfer->level;
   u.box[0] = transfer->box.x;
   u.box[1] = transfer->box.y;
   u.box[2] = transfer->box.z;
   u.box[3] = transfer->box.width;
   u.box[4] = transfer->box.height;
   u.box[5] = transfer->box.depth;
   /* softpipe's own tile caches write rendered tiles back through a transfer: not a
    * CPU write (the trace's tile events account for it) */
   for (unsigned i = 0; i < PIPE_MAX_COLOR_BUFS; i++) {
      const struct softpipe_tile_cache *tc = sp->cbuf_cache[i];
      for (int m = 0; tc && m < tc->num_maps; m++)
         if (tc->transfer[m] == transfer)
            u.flags |= TBR_HOOK_UPLOAD_TILE_CACHE;
   }
   for (int m = 0; sp->zsbuf_cache && m < sp->zsbuf_cache->num_maps; m++)
      if (sp->zsbuf_cache->transfer[m] == transfer)
         u.flags |= TBR_HOOK_UPLOAD_TILE_CACHE;
   if (res->target == PIPE_BUFFER) {
      u.bytes = (uint64_t)transfer->box.width;
   } else {
      u.bytes = (uint64_t)util_format_get_nblocksx(res->format, transfer->box.width) *
                util_format_get_blocksize(res->format) *
                util_format_get_nblocksy(res->format, transfer->box.height) *
                (uint64_t)MAX2(transfer->box.depth, 1);
   }
   sp_tbr_hooks->upload(&u);
}

void
sp_tbr_shader_internal(struct softpipe_context *sp, const struct pipe_shader_state *templ,
                       unsigned *internal)
{
   /* before creation: nir_to_tgsi() frees the NIR */
   if (!sp->tbr)
      return;
   *internal = templ->type != PIPE_SHADER_IR_NIR ||
               (templ->ir.nir && ((const nir_shader *)templ->ir.nir)->info.internal);
}

void
sp_tbr_shader_created(struct softpipe_context *sp, unsigned stage,
                      const struct pipe_shader_state *shader,
                      unsigned *id, unsigned internal)
{
   if (!sp->tbr)
      return;
   *id = new_id();
   if (recording(sp) && shader->tokens)
      send_shader_text(*id, stage == PIPE_SHADER_VERTEX ? TBR_HOOK_STAGE_VS : TBR_HOOK_STAGE_FS,
                       internal, shader->tokens, 1, 0);
}

/* ------------------------------------------------------------------------ */
/* Tile cache                                                               */
/* ------------------------------------------------------------------------ */

void
sp_tbr_tile(struct softpipe_tile_cache *tc, unsigned kind, unsigned x, unsigned y,
            unsigned layer)
{
   struct softpipe_context *sp = softpipe_context(tc->pipe);
   if (!recording(sp) || !tc->surface)
      return;
   struct tbr_hook_tile e;
   memset(&e, 0, sizeof(e));
   e.kind = kind;
   e.is_zs = tc->depth_stencil;
   for (unsigned i = 0; i < PIPE_MAX_COLOR_BUFS; i++)
      if (sp->cbuf_cache[i] == tc)
         e.cbuf = i;
   struct tbr_hook_resource r;
   fill_resource(&r, tc->surface->texture);
   e.resource_id = r.id;
   e.level = tc->surface->u.tex.level;
   e.layer = tc->surface->u.tex.first_layer + layer;
   e.tile_x = x;
   e.tile_y = y;
   e.tile_size = TILE_SIZE;
   if ((int)layer < tc->num_maps && tc->transfer_map && tc->transfer && tc->transfer[layer]) {
      e.map = tc->transfer_map[layer];
      e.stride = tc->transfer[layer]->stride;
   }
   e.width = tc->surface->width;
   e.height = tc->surface->height;
   e.format = r.format;
   e.block_bytes = r.block_bytes;
   sp_tbr_hooks->tile(&e);
}
