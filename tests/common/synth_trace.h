/* Writer of synthetic GPU activity traces for the timing tests (tests/timing_sim,
 * tests/timing_techniques), built on tbr_records/tbr_trace. One trace is open at a time
 * (synth_trace_open .. synth_trace_close); each synth_* helper appends one record (or one
 * QUADS record) to the current frame. Any encode/write error aborts; open/close errors
 * print and exit(2). The synth_draw_* / synth_prim_color / synth_quad_prim variables are
 * knobs a test sets before the helpers that read them (they keep their value). */
#ifndef TBR_TEST_SYNTH_TRACE_H
#define TBR_TEST_SYNTH_TRACE_H

#include <stdint.h>
#include <stdlib.h>

#include "tbr/records.h"
#include "tbr/trace.h"

/* The open trace's writer and its scratch record buffer (for records the helpers do not cover). */
tbr_trace_writer *synth_trace_writer(void);
tbr_buf *synth_trace_buf(void);
/* Encodes REC with ENCODE into the scratch buffer and appends it as a record of TYPE. */
#define SYNTH_EMIT(type, encode, rec)                                                                                  \
    do {                                                                                                               \
        tbr_buf *synth_b_ = synth_trace_buf();                                                                         \
        tbr_buf_reset(synth_b_);                                                                                       \
        if (encode(synth_b_, rec)) abort();                                                                            \
        if (tbr_trace_writer_append_buf(synth_trace_writer(), type, synth_b_)) abort();                                \
    } while (0)

/* Creates DIR and opens DIR/activity.tbrt (metadata "producer=PRODUCER", records_schema=TBR_RECORDS_SCHEMA_VERSION). */
void synth_trace_open(const char *dir, const char *producer);
void synth_trace_close(void);
void synth_begin_frame(uint64_t frame);
void synth_end_frame(void);

/* RESOURCE: 2D texture ID of WD x HT blocks of BYTES bytes in format FMT. */
void synth_resource(uint32_t id, const char *fmt, uint32_t wd, uint32_t ht, uint32_t bytes, int display);
/* SHADER: ID of STAGE with NINSTR instructions (text "END"). */
void synth_shader(uint32_t id, uint32_t stage, uint32_t ninstr);
extern uint32_t synth_render_pass_default; /* RENDER_PASS.is_default of synth_render_pass (default 1) */
/* RENDER_PASS: color resource CRES, depth/stencil ZRES (0 = none). */
void synth_render_pass(uint32_t seq, uint32_t wd, uint32_t ht, uint32_t cres, uint32_t zres);
/* CLEAR of BUFFERS to color (r,g,b,a), depth 1.0, packed z/stencil ZS. */
void synth_clear(uint32_t buffers, float r, float g, float b, float a, uint64_t zs);
/* TILE event KIND on tile (0,0) of resource RES (IS_ZS: depth/stencil), 64x64 softpipe tiles. */
void synth_tile(uint32_t kind, uint32_t is_zs, uint32_t res);

extern uint32_t synth_draw_vertex_count; /* DRAW.count of synth_draw (default 6) */
extern float synth_draw_blend_color0;    /* DRAW.blend_color[0] of synth_draw (default 0) */
extern uint32_t synth_draw_texture;      /* resource sampled by unit 0 of synth_draw's FS (default 0: none) */
extern int synth_draw_fs_kill;          /* synth_draw's FS may discard: fs_uses_kill, depth after shading (default 0) */
extern uint32_t synth_draw_index_size;  /* DRAW.index_size of synth_draw (default 0: not indexed) */
extern uint32_t synth_draw_start;       /* DRAW.start of synth_draw (default 0) */
extern uint32_t synth_draw_instances;   /* DRAW.instance_count of synth_draw (default 1) */
extern uint32_t synth_draw_vs_textures; /* DRAW.num_vs_textures of synth_draw (default 0) */
/* DRAW: triangles, VS 1, fragment shader FS_ID, one color buffer; BLEND: SRC_ALPHA /
 * INV_SRC_ALPHA blending; DEPTH: early-Z LESS test with writes. */
void synth_draw(uint32_t seq, int blend, int depth, uint32_t fs_id);

extern const float *synth_prim_color; /* attribute 1 (FS input color) of synth_prim, NULL = zeros (default) */
/* PRIM IDX of draw SEQ: triangle (x0,y0) (x1,y0) (x1,y1). */
void synth_prim(uint32_t seq, uint32_t idx, float x0, float y0, float x1, float y1);

extern uint32_t synth_quad_prim; /* QUAD.prim (index within the draw) of synth_quads (default 0) */
/* One QUADS record: the quads of the rectangle [x0,x1) x [y0,y1) (even bounds), color C,
 * z Z (with DEPTH), all shaded/written unless KILLED (early-Z killed). */
void synth_quads(uint32_t seq, int x0, int y0, int x1, int y1, const float c[4], uint32_t z, int depth, int killed);
/* The usual start of a frame: begin FRAME; RESOURCE 1 = WD x HT B8G8R8A8 display target;
 * SHADER 1 (VS, 4 instructions) and 2 (FS, FS_NINSTR); RENDER_PASS 0 on resource 1;
 * CLEAR of the color to (0,0,0,1); TILE CLEAR_ALL of resource 1. */
void synth_frame_begin_cleared(uint64_t frame, uint32_t wd, uint32_t ht, uint32_t fs_ninstr);
/* FLUSH then FRAME_END of frame F (WD x HT). */
void synth_frame_end(uint64_t f, uint32_t wd, uint32_t ht);

#endif
