/* tbrsim recorder: the GL work of draws: shaders (SHADER_CREATE, SHADER), DRAW with
 * VS_TEXTURES, PRIM, VERTICES with VS_TEXELS, DRAW_END, and the FLUSH and UNSUPPORTED
 * records. The current draw's state is read by the quad recorder (quad_recorder.h). */
#ifndef TBR_DRAWS_H
#define TBR_DRAWS_H

#include <stdint.h>

#include "tbr/records.h"
#include "tbr_mesa_hooks.h"

#include "color_shadow.h"
#include "computed_colors.h"
#include "idset.h"
#include "rec_sink.h"
#include "rec_status.h"

struct surfaces;
struct resource_table;

struct draw_recorder {
    struct rec_status *st;
    int pack_colors;      /* 0: TBR_FLOAT_COLORS=1, every color stored as float */
    int vertex_hashes;    /* VERTICES out_hash (records minor 7): only with TBR_VERTEX_HASHES=1 */
    int vertex_positions; /* VERTICES positions (minor 10): only with TBR_VERTEX_POSITIONS=1 or hashes */
    tbr_idset shaders;    /* whose SHADER record this frame has */
    /* fragment shaders with TGSI_PROPERTY_FS_COLOR0_WRITES_ALL_CBUFS (gl_FragColor):
     * softpipe's blend stage gives output color 0 to every color buffer */
    struct fs_write_all {
        uint32_t id;
        int on;
    } * fs_wa;
    uint32_t nfs_wa, cap_fs_wa;
    /* the current draw */
    uint32_t draw_seq; /* next draw's seq in this frame */
    int in_draw;
    tbr_rec_draw rec; /* large: kept here, off the stack */
    tbr_rec_vs_textures vs_tex;
    tbr_rec_draw_end end;  /* its counts so far (QUADS records add theirs) */
    uint32_t quads_cbufs;  /* color buffers of its QUADS records */
    uint32_t quads_packed; /* QUADS packed_mask */
    int write_all;         /* its fragment shader writes color 0 to every color buffer */
    tbr_rec_prim prim;
    /* VERTICES and VS_TEXELS of a fetch run */
    tbr_rec_vertices_header vert;
    tbr_rec_vertex_group *groups;
    uint32_t cap_groups;
    tbr_rec_texfetch *vs_fetch;
    tbr_rec_texel *vs_texel;
    uint32_t cap_vs_fetch, cap_vs_texel;
};

void dr_init(struct draw_recorder *dr, struct rec_status *st);
void dr_set_options(struct draw_recorder *dr, int pack_colors, int vertex_hashes, int vertex_positions);
void dr_new_frame(struct draw_recorder *dr);
void dr_free(struct draw_recorder *dr);
/* A shader created (SHADER_CREATE), or one about to run whose text this frame lacks
 * (SHADER). cc: computed colors (NULL if off) learn fragment shaders. */
void dr_shader(struct draw_recorder *dr, const struct tbr_hook_shader *s, tbr_computed_colors *cc,
               struct rec_counts *counts, const struct rec_sink *out);
/* 1 if this frame has the shader's SHADER record. */
int dr_shader_known(const struct draw_recorder *dr, uint32_t id);
/* A draw begins: its DRAW record (RESOURCE records of its textures first), VS_TEXTURES,
 * and the state its quads are recorded with. cc (NULL if off) sets up the draw's
 * computed colors; surfaces gives tbr-sim the textures it samples. */
void dr_begin(struct draw_recorder *dr, const struct tbr_hook_draw *d, tbr_color_shadow *cs, tbr_computed_colors *cc,
              struct surfaces *surfaces, struct resource_table *resources, struct rec_counts *counts, uint64_t frame,
              const struct rec_sink *out);
/* The draw ends: returns 1 if one was being recorded (its DRAW_END is then due). */
int dr_leave(struct draw_recorder *dr);
void dr_emit_end(struct draw_recorder *dr, const struct rec_sink *out);
void dr_prim(struct draw_recorder *dr, const struct tbr_hook_prim *p, tbr_computed_colors *cc,
             struct rec_counts *counts, const struct rec_sink *out);
/* One draw-module fetch run: its VERTICES record (RESOURCE records of its streams
 * first), then its VS_TEXELS. */
void dr_vertices(struct draw_recorder *dr, const struct tbr_hook_vertices *v, struct resource_table *resources,
                 struct rec_counts *counts, const struct rec_sink *out);
void dr_flush(uint32_t flags, struct rec_counts *counts, const struct rec_sink *out);
void dr_unsupported(struct rec_status *st, const char *name, const struct rec_sink *out);

#endif
