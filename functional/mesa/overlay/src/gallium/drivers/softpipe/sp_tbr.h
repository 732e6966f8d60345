/*
 * sp_tbr.h - tbrsim instrumentation of softpipe (new file, not part of Mesa).
 *
 * Every hook is a call behind `if (unlikely(sp_tbr_hooks))`: sp_tbr_hooks is
 * NULL unless the environment variable TBR_FUNCTIONAL_LIB named a loadable
 * recording library when the first softpipe context was created, so an
 * uninstrumented run executes no new code besides that test.
 * See tbrsim docs/instrumentation.md.
 */
#ifndef SP_TBR_H
#define SP_TBR_H

#include <stdbool.h>
#include "pipe/p_state.h"
#include "tbr_mesa_hooks.h"

struct softpipe_context;
struct softpipe_tile_cache;
struct quad_header;
struct pipe_shader_state;
struct pipe_transfer;

extern const struct tbr_mesa_hooks *sp_tbr_hooks;

#define SP_TBR(call) do { if (unlikely(sp_tbr_hooks)) sp_tbr_##call; } while (0)

void sp_tbr_context_init(struct softpipe_context *sp);
void sp_tbr_context_destroy(struct softpipe_context *sp);
void sp_tbr_build_quad_pipeline(struct softpipe_context *sp);
void sp_tbr_draw_begin(struct softpipe_context *sp, const struct pipe_draw_info *info,
                       const struct pipe_draw_start_count_bias *draw);
void sp_tbr_draw_end(struct softpipe_context *sp);
void sp_tbr_clear(struct softpipe_context *sp, unsigned buffers,
                  const struct pipe_scissor_state *scissor,
                  const union pipe_color_union *color, double depth, unsigned stencil);
void sp_tbr_flush(struct softpipe_context *sp, unsigned flags);
void sp_tbr_invalidate_resource(struct softpipe_context *sp, struct pipe_resource *res);
void sp_tbr_transfer_unmap(struct pipe_context *pipe, struct pipe_transfer *transfer);
void sp_tbr_shader_internal(struct softpipe_context *sp,
                            const struct pipe_shader_state *templ, unsigned *internal);
void sp_tbr_shader_created(struct softpipe_context *sp, unsigned stage,
                           const struct pipe_shader_state *shader,
                           unsigned *id, unsigned internal);
void sp_tbr_quad_depth(struct softpipe_context *sp, const struct quad_header *quad,
                       const unsigned z[4]);
void sp_tbr_quad_depth16(struct softpipe_context *sp, const struct quad_header *quad,
                         const unsigned short z[4]);
void sp_tbr_prim(struct softpipe_context *sp, unsigned kind, const float (*v0)[4],
                 const float (*v1)[4], const float (*v2)[4], unsigned nr_attrs,
                 float det, bool culled);
void sp_tbr_tile(struct softpipe_tile_cache *tc, unsigned kind, unsigned x, unsigned y,
                 unsigned layer);

/* Texel recording (sp_tex_sample.c). sp_tbr_tex_on is true only while the
 * fragment shader runs on a recorded quad, so the sampler's inner loops test
 * one global when nothing is recorded. */
extern bool sp_tbr_tex_on;
extern unsigned sp_tbr_tex_lane;
struct pipe_sampler_view;
void sp_tbr_tex_fetch(unsigned unit);
void sp_tbr_texel(const struct pipe_sampler_view *view, unsigned level, unsigned layer,
                  int x, int y);
#define SP_TBR_TEX_FETCH(unit) \
   do { if (unlikely(sp_tbr_tex_on)) sp_tbr_tex_fetch(unit); } while (0)
#define SP_TBR_TEX_LANE(j) \
   do { if (unlikely(sp_tbr_tex_on)) sp_tbr_tex_lane = (j); } while (0)
#define SP_TBR_TEXEL(sview, level, layer, x, y) \
   do { if (unlikely(sp_tbr_tex_on)) sp_tbr_texel(&(sview)->base, level, layer, x, y); } while (0)

#endif /* SP_TBR_H */
