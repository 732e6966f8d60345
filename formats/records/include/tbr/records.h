/*
 * tbr/records.h - the RECORD SCHEMA of the GPU activity trace.
 *
 * The container (tbr/trace.h) stores typed records with opaque payloads; this
 * library defines what each record type contains, as C structs with
 * encode (struct -> tbr_buf payload) and decode (payload -> struct) functions.
 * Written by libtbr_functional (functional/), read by the timing simulator and
 * the tools. Field-by-field documentation: docs/trace-records.md.
 *
 * Conventions:
 *  - Enum-like values are Gallium (Mesa 22.3.6) values: PIPE_FUNC_*,
 *    PIPE_BLENDFACTOR_*, PIPE_BLEND_*, PIPE_FORMAT_*, PIPE_PRIM_*,
 *    PIPE_TEX_WRAP_*, PIPE_TEX_FILTER_*, PIPE_TEX_MIPFILTER_*, PIPE_STENCIL_OP_*,
 *    PIPE_FACE_*, PIPE_MASK_* (see docs/trace-records.md for the tables).
 *  - Integers are LEB128 varints unless said otherwise, floats raw IEEE-754.
 *  - Decoders return 0 on success, -1 if the payload is malformed (short,
 *    trailing bytes, out-of-range values). Pointers in decoded structs
 *    (text, constant data) point INTO the payload: valid until the next
 *    reader call.
 *  - Each frame is self-contained: a RESOURCE and a SHADER record describing
 *    an object appear in the frame before the first record referencing it.
 *  - Encoders append to the buffer (callers reset it); they return 0, or -1 if
 *    the buffer ran out of memory or a value does not fit the schema.
 */
#ifndef TBR_RECORDS_H
#define TBR_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "tbr/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Schema version, stored in the container metadata as "records_schema=N".
 * A reader must refuse a different major. 2: TEXELS coded with prediction
 * (schema-1 TEXELS payloads are not readable by schema-2 readers and vice versa).
 * 3: QUADS header carries packed_mask (colors of non-blended draws stored in the
 * render target's format) and blended quads carry exact tile values. */
#define TBR_RECORDS_SCHEMA_VERSION 3
#define TBR_REC_STR_(x)            #x
#define TBR_REC_XSTR_(x)           TBR_REC_STR_(x)
#define TBR_RECORDS_SCHEMA_TEXT    TBR_REC_XSTR_(TBR_RECORDS_SCHEMA_VERSION) /* "3" */
/* Minor version (container metadata records_schema_minor): record types added
 * compatibly; readers skip types they do not know. 0: types 1-15;
 * 1: + TEXELS (16), VERTICES (17); 2: + SURFACE_INIT (18); 3: + VS_TEXELS (19),
 * VS_TEXTURES (20) (vertex texturing). Schema 2 started at minor 1 (all 17 types);
 * schema 3 continues at minor 3 (all 20 types); 4: + SURFACE_CHECK (21);
 * 5: QUADS records with computed colors (TBR_REC_QUADS_COMPUTED) and SURFACE_INIT
 * for sampled textures. A minor-4 reader rejects a COMPUTED QUADS record as corrupt.
 * 6: QUADS records whose shaded quads' texels are derived, not recorded
 * (TBR_REC_QUADS_TEXELS_DERIVED); a minor-5 reader rejects such a record as corrupt.
 * 7: VERTICES positions coded (back-references to repeated positions) and out_hash optional
 * (TBR_REC_VERTICES_HASHES); the decoder still reads the raw layout of minors 1-6, a
 * minor-6 reader rejects a minor-7 VERTICES record as corrupt.
 * 8: UPLOAD flag TBR_REC_UPLOAD_TILE_CACHE; a minor-7 reader rejects such a record as
 * corrupt. 9: TEXELS span footprints. 10: VERTICES without positions
 * (TBR_REC_VERTICES_NO_POSITIONS, the default); a minor-9 reader rejects such a record as
 * corrupt; records of minors 1-9 decode unchanged. 11: compact PRIM and QUADS (PRIM without
 * det when setup's calc_det gives it: TBR_REC_PRIM_DET_DERIVED; QUADS fields in separate
 * streams, positions as deltas: TBR_REC_QUADS_STREAMS); a minor-10 reader rejects such a
 * record as corrupt; records of minors 1-10 decode unchanged.
 * 11 also adds INVALIDATE (22). */
#define TBR_RECORDS_SCHEMA_MINOR   12

enum tbr_rec_type {
    TBR_REC_FRAME_END = 1,     /* last record of a completed frame (eglSwapBuffers) */
    TBR_REC_RESOURCE = 2,      /* description of a texture/render target/buffer */
    TBR_REC_UPLOAD = 3,        /* CPU write into a resource (texture/buffer upload) */
    TBR_REC_SHADER_CREATE = 4, /* a shader was created (sizes only) */
    TBR_REC_SHADER = 5,        /* shader text (TGSI), once per frame before first use */
    TBR_REC_RENDER_PASS = 6,   /* framebuffer binding (render targets) */
    TBR_REC_CLEAR = 7,
    TBR_REC_DRAW = 8,           /* draw call with its complete render state */
    TBR_REC_DRAW_END = 9,       /* all primitives/quads of the draw were emitted */
    TBR_REC_PRIM = 10,          /* primitive reaching triangle/line/point setup */
    TBR_REC_QUADS = 11,         /* batch of 2x2 quads from the rasterizer, with their fate */
    TBR_REC_TILE = 12,          /* softpipe tile-cache event (pack/unpack points) */
    TBR_REC_FLUSH = 13,         /* pipe->flush */
    TBR_REC_UNSUPPORTED = 14,   /* a feature the recorder does not model was used */
    TBR_REC_PATH = 15,          /* a distinct executed instruction path of a shader */
    TBR_REC_TEXELS = 16,        /* texels read by texture instructions of shaded quads (minor 1) */
    TBR_REC_VERTICES = 17,      /* vertex fetches, VS paths and outputs of a fetch run (minor 1) */
    TBR_REC_SURFACE_INIT = 18,  /* memory contents of a render target a window uses unwritten (minor 2) */
    TBR_REC_VS_TEXELS = 19,     /* texels read by the vertex shader in one VERTICES run (minor 3) */
    TBR_REC_VS_TEXTURES = 20,   /* the vertex-shader textures and samplers of a draw (minor 3) */
    TBR_REC_SURFACE_CHECK = 21, /* checksum of a render target's memory when a pass binds it (schema 3 minor 4) */
    TBR_REC_INVALIDATE = 22,    /* glInvalidateFramebuffer / glDiscardFramebufferEXT on a resource (minor 11) */
    TBR_REC_TYPE_COUNT
};

const char *tbr_rec_type_name(uint16_t type); /* "QUADS", ... or NULL if unknown */

#define TBR_REC_MAX_CBUFS                8u
#define TBR_REC_MAX_TEXTURES             16u
#define TBR_REC_MAX_CONSTBUFS            4u
#define TBR_REC_MAX_ATTRIBS              32u
#define TBR_REC_MAX_QUADS                1024u /* quads per QUADS record */
/* Render-target width / height of RENDER_PASS and FRAME_END records: the GL maximum
 * softpipe reports (GL_MAX_RENDERBUFFER_SIZE = 16384); larger values are malformed. */
#define TBR_REC_MAX_DIM                  16384u
/* Decode-time limits of the fields that size, count, index or shift something
 * (docs/trace-records.md "Limits"): a record outside them is malformed for every reader,
 * so no reader allocates, loops or shifts by a hostile value. The GL / softpipe maxima of
 * Mesa 22.3.6: */
#define TBR_REC_MAX_LEVEL                14u   /* mip level: 15 levels of a TBR_REC_MAX_DIM texture */
#define TBR_REC_MAX_LAYERS               2048u /* array layers, 3D depth, render-target layers */
#define TBR_REC_MAX_SAMPLES              32u
#define TBR_REC_MAX_BLOCK_BYTES          32u    /* bytes per texel / block (R64G64B64A64: 32) */
#define TBR_REC_MAX_TARGET               8u     /* PIPE_BUFFER (0) .. PIPE_TEXTURE_CUBE_ARRAY (8) */
#define TBR_REC_MAX_PATH                 16384u /* PATH entries (longer paths are truncated) */
#define TBR_REC_MAX_VERTEX_ELEMENT_BYTES 32u    /* VERTICES stream size (a vertex format's block) */

/* ---- FRAME_END ---------------------------------------------------------- */
typedef struct tbr_rec_frame_end {
    uint64_t frame;         /* 0-based swap count in the source trace */
    uint32_t width, height; /* default framebuffer (reference PNG) size */
    uint64_t draws, quads, shaded_quads, shaded_fragments, prims, clears;
    char png[64]; /* reference PNG path relative to TBR_OUT_DIR ("" if none) */
} tbr_rec_frame_end;

/* ---- RESOURCE ----------------------------------------------------------- */
typedef struct tbr_rec_resource {
    uint32_t id, target, format, width, height, depth, array_size, last_level;
    uint32_t nr_samples, bind, block_bytes, is_display_target;
    char format_name[64]; /* e.g. "PIPE_FORMAT_B8G8R8A8_UNORM" */
} tbr_rec_resource;

/* ---- UPLOAD ------------------------------------------------------------- */
/* UPLOAD flags (schema 3) */
#define TBR_REC_UPLOAD_CLEAR_WRITE                                                                                     \
    0x1u /* softpipe's memory write of the preceding CLEAR
                                         * (zs_partial: util_clear_depth_stencil), not a
                                         * CPU upload of the application */

/* UPLOAD flags (minor 8): softpipe's tile cache writing rendered tiles back through a
 * transfer when it lets go of a surface (the rendering is in the TILE events), not a CPU
 * write of new contents */
#define TBR_REC_UPLOAD_TILE_CACHE 0x2u
#define TBR_REC_UPLOAD_FLAGS      (TBR_REC_UPLOAD_CLEAR_WRITE | TBR_REC_UPLOAD_TILE_CACHE)

typedef struct tbr_rec_upload {
    uint32_t resource_id, level;
    int32_t box[6]; /* x, y, z, width, height, depth (texels; bytes for buffers) */
    uint64_t bytes;
    uint32_t flags; /* TBR_REC_UPLOAD_* (schema 3) */
} tbr_rec_upload;

/* ---- SHADER_CREATE / SHADER ---------------------------------------------- */
enum tbr_rec_stage { TBR_REC_STAGE_VS = 0, TBR_REC_STAGE_FS = 1 };

typedef struct tbr_rec_shader {
    uint32_t id, stage, internal, num_tokens, num_instructions;
    uint32_t parent_id; /* SHADER only: for FS variants, the SHADER_CREATE id they derive from (else = id) */
    uint32_t text_len;  /* bytes of TGSI text (both record types) */
    const char *text;   /* SHADER only: tgsi_dump text, NOT NUL-terminated; NULL in SHADER_CREATE */
} tbr_rec_shader;

/* ---- RENDER_PASS -------------------------------------------------------- */
typedef struct tbr_rec_surface {
    uint32_t valid, resource_id, format, level, first_layer, last_layer, width, height;
} tbr_rec_surface;

typedef struct tbr_rec_render_pass {
    uint32_t seq; /* render pass number within the frame (0-based) */
    uint32_t width, height, layers, samples, nr_cbufs;
    tbr_rec_surface cbufs[TBR_REC_MAX_CBUFS];
    tbr_rec_surface zsbuf;
    uint32_t is_default; /* cbuf 0 is the EGL surface's buffer */
} tbr_rec_render_pass;

/* ---- CLEAR -------------------------------------------------------------- */
typedef struct tbr_rec_clear {
    uint32_t buffers; /* PIPE_CLEAR_COLOR0 (4) << i, PIPE_CLEAR_DEPTH 1, PIPE_CLEAR_STENCIL 2 */
    float color_f[4];
    uint32_t color_ui[4];
    double depth;
    uint32_t stencil;
    uint64_t zs_packed;
    uint32_t zs_partial, has_scissor;
    uint32_t scissor[4];
} tbr_rec_clear;

/* ---- DRAW --------------------------------------------------------------- */
/* Scalar fields of the draw, in encoding order (X(name) for uint32, F(name)
 * for float). */
/* clang-format off */
#define TBR_REC_DRAW_FIELDS(X, F) \
    X(seq) X(mode) X(index_size) X(start) X(count) X(instance_count) X(start_instance) \
    X(min_index) X(max_index) X(vs_id) X(fs_id) X(internal) X(early_z) \
    X(fs_uses_kill) X(fs_writes_z) X(fs_writes_stencil) \
    X(flatshade) X(flatshade_first) X(light_twoside) X(front_ccw) X(cull_face) \
    X(fill_front) X(fill_back) X(scissor_enable) X(half_pixel_center) X(bottom_edge_rule) \
    X(multisample) X(rasterizer_discard) X(depth_clip_near) X(depth_clip_far) X(clip_halfz) \
    X(point_quad_rasterization) X(sprite_coord_enable) X(sprite_coord_mode) \
    X(line_smooth) X(poly_smooth) X(poly_stipple_enable) X(line_stipple_enable) \
    X(offset_tri) X(offset_line) X(offset_point) \
    F(offset_units) F(offset_scale) F(offset_clamp) F(point_size) F(line_width) \
    X(depth_enabled) X(depth_writemask) X(depth_func) \
    X(alpha_enabled) X(alpha_func) F(alpha_ref) \
    X(depth_bounds_test) F(depth_bounds_min) F(depth_bounds_max) \
    X(independent_blend_enable) X(logicop_enable) X(logicop_func) X(dither) \
    X(alpha_to_coverage) X(alpha_to_one) \
    X(nr_cbufs) X(zs_format) X(num_vs_textures)
/* clang-format on */

typedef struct tbr_rec_stencil {
    uint32_t enabled, func, fail_op, zpass_op, zfail_op, valuemask, writemask, ref;
} tbr_rec_stencil;

typedef struct tbr_rec_rt_blend {
    uint32_t blend_enable, rgb_func, rgb_src, rgb_dst, alpha_func, alpha_src, alpha_dst, colormask;
} tbr_rec_rt_blend;

typedef struct tbr_rec_texture {
    uint32_t unit; /* sampler view slot */
    uint32_t resource_id, view_format, first_level, last_level, first_layer, last_layer;
    uint32_t swizzle[4];
    uint32_t has_sampler, wrap_s, wrap_t, wrap_r, min_img_filter, min_mip_filter, mag_img_filter;
    uint32_t compare_mode, compare_func, normalized_coords, seamless_cube_map, max_anisotropy;
    float lod_bias, min_lod, max_lod;
    float border_color[4];
} tbr_rec_texture;

typedef struct tbr_rec_constbuf {
    uint32_t size;       /* bytes (0: unbound) */
    const uint8_t *data; /* into the payload */
} tbr_rec_constbuf;

typedef struct tbr_rec_draw {
#define TBR_REC_X_(name) uint32_t name;
#define TBR_REC_F_(name) float name;
    TBR_REC_DRAW_FIELDS(TBR_REC_X_, TBR_REC_F_)
#undef TBR_REC_X_
#undef TBR_REC_F_
    int32_t index_bias;
    tbr_rec_stencil stencil[2];
    tbr_rec_rt_blend rt[TBR_REC_MAX_CBUFS];
    float blend_color[4];
    float viewport_scale[3], viewport_translate[3];
    uint32_t scissor[4];
    uint32_t cbuf_format[TBR_REC_MAX_CBUFS];
    uint32_t num_textures; /* entries used in textures[] (bound units only) */
    tbr_rec_texture textures[TBR_REC_MAX_TEXTURES];
    tbr_rec_constbuf vs_const[TBR_REC_MAX_CONSTBUFS];
    tbr_rec_constbuf fs_const[TBR_REC_MAX_CONSTBUFS];
    char unsupported[256]; /* comma-separated feature names, "" if none */
} tbr_rec_draw;

/* ---- DRAW_END ----------------------------------------------------------- */
typedef struct tbr_rec_draw_end {
    uint32_t seq;
    uint64_t prims, quads, shaded_quads, shaded_fragments, blended_fragments;
} tbr_rec_draw_end;

/* ---- PRIM --------------------------------------------------------------- */
#define TBR_REC_PRIM_CULLED      0x1u
/* A coding bit of the payload's flags (minor 11), never in a decoded or encoded struct: the
 * triangle's det is left out because setup's calc_det of its window positions gives the
 * same bits; the decoder computes it (docs/trace-records.md PRIM). The encoder sets it
 * whenever that holds. */
#define TBR_REC_PRIM_DET_DERIVED 0x2u
typedef struct tbr_rec_prim {
    uint32_t draw_seq, index, kind, flags; /* kind: 1 point, 2 line, 3 triangle */
    float det;
    uint32_t nr_attrs;                  /* attribute 0 = window position x, y, z, w */
    float v[3][TBR_REC_MAX_ATTRIBS][4]; /* kind vertices used */
} tbr_rec_prim;

/* ---- QUADS -------------------------------------------------------------- */
#define TBR_REC_QUAD_HAS_Z       0x01u
#define TBR_REC_QUAD_SHADED      0x02u
#define TBR_REC_QUAD_SHADE_OUT   0x04u
#define TBR_REC_QUAD_DEPTH_OUT   0x08u
#define TBR_REC_QUAD_BLENDED     0x10u
#define TBR_REC_QUAD_FACING_BACK 0x20u

typedef struct tbr_rec_quad {
    int32_t x, y; /* top-left pixel, even; y down */
    uint32_t prim, prim_kind, flags;
    uint32_t in_mask, depth_mask, shade_mask, blend_mask; /* 4-bit, bit j = fragment j */
    uint32_t path;                        /* if SHADED: PATH id of the fragment shader execution (0 = not recorded) */
    uint32_t z[4];                        /* if HAS_Z */
    float color[TBR_REC_MAX_CBUFS][4][4]; /* [cbuf][rgba][fragment]; only blend_mask lanes stored, others 0 */
    /* Color buffers in the header's packed_mask (schema 3): instead of color, the
     * pixel as the render target stores it (little-endian, its format's bytes; 0 for
     * lanes not in blend_mask) */
    uint32_t packed[TBR_REC_MAX_CBUFS][4]; /* [cbuf][fragment] */
    /* Other color buffers (schema 3): exact tile values before this quad's blend,
     * for channels whose last write was stored packed: bit 4*j+ch of exact_mask[cb]
     * = exact[cb][ch][j] valid (only for lanes in blend_mask) */
    uint32_t exact_mask[TBR_REC_MAX_CBUFS];
    float exact[TBR_REC_MAX_CBUFS][4][4]; /* [cbuf][rgba][fragment] */
} tbr_rec_quad;

/* QUADS header flag (bit 31 of the packed_mask word, minor 5): the record's blended
 * quads carry no fragment colors (neither floats nor packed pixels): the recorder
 * verified that functional/reference recomputes every one of them bit-exactly from the
 * trace (docs/trace-records.md "Computed colors"); exact tile values are still given
 * for color buffers not in packed_mask. */
#define TBR_REC_QUADS_COMPUTED       0x80000000u
/* QUADS header flag (bit 30 of the packed_mask word, minor 6): no TEXELS record holds
 * fetches of this record's SHADED quads: the recorder verified that running the
 * fragment shader with functional/reference reads exactly the texels softpipe read
 * (same fetches, pc, unit, texels, order), so a reader derives them the same way
 * (docs/trace-records.md "Derived texels"). */
#define TBR_REC_QUADS_TEXELS_DERIVED 0x40000000u
/* bit 29 of the packed_mask word (minor 11): the quads' fields are in separate streams
 * (positions as deltas from the previous quad), docs/trace-records.md QUADS "Streams".
 * The recorder asks for it; the decoded quads are the same either way. */
#define TBR_REC_QUADS_STREAMS        0x20000000u
/* bit 28 of the packed_mask word (minor 12): the record's HAS_Z quads carry no depths
 * (they decode as 0): the recorder verified that softpipe's depth plane of the quad's
 * primitive, computed from its PRIM window positions and the DRAW state
 * (functional/reference depth_plane.h), gives the 4 depths bit for bit, so a reader
 * computes them the same way (docs/trace-records.md QUADS "Derived depths"). */
#define TBR_REC_QUADS_DEPTHS_DERIVED 0x10000000u
#define TBR_REC_QUADS_FLAGS                                                                                            \
    (TBR_REC_QUADS_COMPUTED | TBR_REC_QUADS_TEXELS_DERIVED | TBR_REC_QUADS_STREAMS | TBR_REC_QUADS_DEPTHS_DERIVED)
#define TBR_REC_QUADS_NSTREAMS 6u /* positions, prims, paths, masks, depths, colors */

typedef struct tbr_rec_quads_header {
    uint32_t draw_seq, nr_cbufs, count;
    uint32_t packed_mask;    /* bit i: color buffer i's colors are packed (schema 3) */
    uint32_t computed;       /* 1: colors omitted, computed by the reader (minor 5) */
    uint32_t texels_derived; /* 1: texels of the shaded quads omitted, derived (minor 6) */
    uint32_t streams;        /* 1: fields in streams, positions as deltas (minor 11) */
    uint32_t depths_derived; /* 1: depths omitted (decoded as 0), derived by the reader (minor 12) */
    /* depth predictor state of the encoder/decoder (schema 3): the previous quad with
     * HAS_Z in this record (docs/trace-records.md QUADS "Depth coding") */
    int have_prev_z;
    int32_t prev_x, prev_y;
    int64_t prev_z0, prev_dx, prev_dy;
    /* streams layout (minor 11): the previous quad's position, the quads decoded, and
     * the decoder's cursor over each stream */
    int32_t prev_qx, prev_qy;
    uint32_t decoded;
    tbr_cursor in[TBR_REC_QUADS_NSTREAMS];
} tbr_rec_quads_header;

/* ---- TILE --------------------------------------------------------------- */
enum tbr_rec_tile_kind {
    TBR_REC_TILE_LOAD = 1,
    TBR_REC_TILE_LOAD_CLEAR = 2,
    TBR_REC_TILE_STORE = 3,
    TBR_REC_TILE_STORE_CLEAR = 4,
    TBR_REC_TILE_CLEAR_ALL = 5
};
typedef struct tbr_rec_tile {
    uint32_t kind, is_zs, cbuf, resource_id, level, layer, tile_x, tile_y, tile_size;
} tbr_rec_tile;

/* ---- PATH --------------------------------------------------------------- */
/* n entries of (u16 pc, u8 active-lane mask), stored fixed-width in the payload:
 * read them with tbr_rec_path_pc() / tbr_rec_path_mask(). */
typedef struct tbr_rec_path {
    uint32_t id, shader_id, stage, truncated, n;
    const uint8_t *entries; /* 3 * n bytes (encode: may be NULL, then pc/mask arrays are used) */
    const uint16_t *pc;     /* encode only */
    const uint8_t *mask;    /* encode only */
} tbr_rec_path;

static inline uint16_t tbr_rec_path_pc(const tbr_rec_path *p, uint32_t i)
{
    return (uint16_t)(p->entries[3 * i] | (p->entries[3 * i + 1] << 8));
}
static inline uint8_t tbr_rec_path_mask(const tbr_rec_path *p, uint32_t i) { return p->entries[3 * i + 2]; }

/* ---- FLUSH / UNSUPPORTED ------------------------------------------------- */
typedef struct tbr_rec_flush {
    uint32_t flags;
} tbr_rec_flush;

typedef struct tbr_rec_unsupported {
    char name[64];
} tbr_rec_unsupported;

/* ---- encode / decode ------------------------------------------------------ */
int tbr_rec_frame_end_encode(tbr_buf *b, const tbr_rec_frame_end *r);
int tbr_rec_frame_end_decode(const uint8_t *p, size_t n, tbr_rec_frame_end *r);
int tbr_rec_resource_encode(tbr_buf *b, const tbr_rec_resource *r);
int tbr_rec_resource_decode(const uint8_t *p, size_t n, tbr_rec_resource *r);
int tbr_rec_upload_encode(tbr_buf *b, const tbr_rec_upload *r);
int tbr_rec_upload_decode(const uint8_t *p, size_t n, tbr_rec_upload *r);
/* SHADER_CREATE: text is not stored (text_len is). SHADER: text stored. */
int tbr_rec_shader_create_encode(tbr_buf *b, const tbr_rec_shader *r);
int tbr_rec_shader_create_decode(const uint8_t *p, size_t n, tbr_rec_shader *r);
int tbr_rec_shader_encode(tbr_buf *b, const tbr_rec_shader *r);
int tbr_rec_shader_decode(const uint8_t *p, size_t n, tbr_rec_shader *r);
int tbr_rec_render_pass_encode(tbr_buf *b, const tbr_rec_render_pass *r);
int tbr_rec_render_pass_decode(const uint8_t *p, size_t n, tbr_rec_render_pass *r);
int tbr_rec_clear_encode(tbr_buf *b, const tbr_rec_clear *r);
int tbr_rec_clear_decode(const uint8_t *p, size_t n, tbr_rec_clear *r);
int tbr_rec_draw_encode(tbr_buf *b, const tbr_rec_draw *r);
int tbr_rec_draw_decode(const uint8_t *p, size_t n, tbr_rec_draw *r);
int tbr_rec_draw_end_encode(tbr_buf *b, const tbr_rec_draw_end *r);
int tbr_rec_draw_end_decode(const uint8_t *p, size_t n, tbr_rec_draw_end *r);
int tbr_rec_prim_encode(tbr_buf *b, const tbr_rec_prim *r);
int tbr_rec_prim_decode(const uint8_t *p, size_t n, tbr_rec_prim *r);
int tbr_rec_tile_encode(tbr_buf *b, const tbr_rec_tile *r);
int tbr_rec_tile_decode(const uint8_t *p, size_t n, tbr_rec_tile *r);
int tbr_rec_flush_encode(tbr_buf *b, const tbr_rec_flush *r);
int tbr_rec_flush_decode(const uint8_t *p, size_t n, tbr_rec_flush *r);
int tbr_rec_unsupported_encode(tbr_buf *b, const tbr_rec_unsupported *r);
int tbr_rec_unsupported_decode(const uint8_t *p, size_t n, tbr_rec_unsupported *r);
int tbr_rec_path_encode(tbr_buf *b, const tbr_rec_path *r);
int tbr_rec_path_decode(const uint8_t *p, size_t n, tbr_rec_path *r);

/* ---- TEXELS (16) ----------------------------------------------------------
 * Texels read by softpipe's sampler for the quads of one draw: for each
 * execution of a texture instruction on a quad (a "fetch"), every texel
 * the filter read, per lane, in the order softpipe read them. */
#define TBR_REC_MAX_TEXELS_PER_FETCH 65536u
typedef struct tbr_rec_texel {
    uint32_t lane;         /* 0..3: fragment of the quad (helper lanes included) */
    uint32_t level, layer; /* mip level; layer/face/slice as the texture tile cache addresses it */
    int32_t x, y;          /* integer texel coordinates within the level (buffers: element in x) */
} tbr_rec_texel;

typedef struct tbr_rec_texfetch {
    uint32_t quad; /* ordinal of the quad within the draw (0-based, QUADS order) */
    uint32_t pc;   /* TGSI pc of the texture instruction */
    uint32_t unit; /* sampler view slot (DRAW textures[].unit) */
    uint32_t resource_id;
    uint32_t n_texels;
    const tbr_rec_texel *texels; /* encode: input; decode: the caller's buffer */
} tbr_rec_texfetch;

/* Decoder (and encoder) prediction state of a TEXELS record (docs/trace-records.md
 * "TEXELS (16)"): fetches are predicted from the previous fetch with the same
 * (pc, unit, resource) key. Internal; filled by tbr_rec_texels_open(). */
#define TBR_REC_TEXELS_KEYS        16u /* keys remembered per record */
#define TBR_REC_TEXELS_PRED_GROUPS 16u /* footprints of a key's last fetch kept for prediction */
typedef struct tbr_rec_texels_group {
    uint32_t lane, kind; /* kind: 0 single texel, 1 unit 2x2, 2 general 2x2, 3 span (minor 9) */
    uint32_t level, layer;
    int32_t x, y; /* first texel */
    uint32_t len; /* span: texels (x..x+len-1, y), >= 2; 0 for the other kinds */
} tbr_rec_texels_group;

typedef struct tbr_rec_texels_key {
    uint32_t pc, unit, resource_id;
    uint32_t has_prev; /* a fetch with this key was coded */
    uint32_t ngroups;  /* footprints of that fetch (shape kept only if <= PRED_GROUPS) */
    int64_t dx0, dy0;  /* movement of footprint 0 between the key's last two fetches */
    tbr_rec_texels_group g[TBR_REC_TEXELS_PRED_GROUPS];
} tbr_rec_texels_key;

typedef struct tbr_rec_texels_state {
    uint32_t nkeys, next_key;
    tbr_rec_texels_key keys[TBR_REC_TEXELS_KEYS];
} tbr_rec_texels_state;

typedef struct tbr_rec_texels_header {
    uint32_t draw_seq, count; /* count = fetches */
    /* decoder state */
    uint32_t prev_quad, decoded;
    tbr_cursor ops, coords; /* the record's two streams */
    tbr_rec_texels_state st;
} tbr_rec_texels_header;

int tbr_rec_texels_encode(tbr_buf *b, uint32_t draw_seq, const tbr_rec_texfetch *f, uint32_t count);
int tbr_rec_texels_open(tbr_cursor *c, const uint8_t *p, size_t n, tbr_rec_texels_header *h);
/* texels: caller buffer of cap entries (TBR_REC_MAX_TEXELS_PER_FETCH always suffices) */
int tbr_rec_texels_next(tbr_cursor *c, tbr_rec_texels_header *h, tbr_rec_texfetch *f, tbr_rec_texel *texels,
                        uint32_t cap);
int tbr_rec_texels_close(tbr_cursor *c);

/* ---- VERTICES (17) --------------------------------------------------------
 * One draw-module vertex fetch run: the fetch layout (vertex elements), then
 * every vertex-shader execution (up to 4 vertices) in order. */
#define TBR_REC_MAX_STREAMS 32u
typedef struct tbr_rec_vertex_stream {
    uint32_t resource_id; /* 0: user memory */
    uint32_t buffer_index, offset, stride, size, format, instance_divisor;
} tbr_rec_vertex_stream;

/* flags: the groups carry out_hash (tbr-replay --vertex-hashes; always set when
 * decoding a record written before minor 7, which always had them) */
#define TBR_REC_VERTICES_HASHES       0x1u
/* flags: the groups carry no positions (minor 10, the recorder's default; tbr-replay
 * --vertex-positions keeps them): pos decodes as 0. Not with TBR_REC_VERTICES_HASHES
 * (hashes are coded against the positions' back-references). */
#define TBR_REC_VERTICES_NO_POSITIONS 0x2u
/* A vertex's position may repeat the position of one of the previous
 * TBR_REC_VERTICES_BACK_WINDOW vertices of its record (minor 7 coding). */
#define TBR_REC_VERTICES_BACK_WINDOW  4096u

typedef struct tbr_rec_vertices_header {
    uint32_t draw_seq, vs_id, instance_id, start_instance;
    uint32_t num_outputs, position_slot; /* position_slot = UINT32_MAX: none */
    uint32_t flags;                      /* TBR_REC_VERTICES_HASHES, TBR_REC_VERTICES_NO_POSITIONS */
    uint32_t nr_streams;
    tbr_rec_vertex_stream streams[TBR_REC_MAX_STREAMS];
    uint32_t fetched; /* vertices fetched by the run */
    uint32_t count;   /* vertex groups that follow */
    /* decoder state */
    uint32_t prev_index;
    uint32_t layout;  /* 0: raw positions (minors 1-6), 1: coded (minor 7), 2: no positions (minor 10) */
    uint32_t decoded; /* vertices decoded so far */
    uint32_t recent[TBR_REC_VERTICES_BACK_WINDOW][4];   /* position bits, ring by vertex */
    uint32_t recent_hash[TBR_REC_VERTICES_BACK_WINDOW]; /* out_hash, same ring */
} tbr_rec_vertices_header;

typedef struct tbr_rec_vertex_group {
    uint32_t path;        /* PATH id (stage 0) of the VS execution */
    uint32_t n;           /* 1..4 vertices */
    uint32_t index[4];    /* fetched vertex index per lane */
    float pos[4][4];      /* clip-space position output per lane */
    uint32_t out_hash[4]; /* FNV-1a 32 of the other outputs' raw bits per lane;
                              * 0 unless the header has TBR_REC_VERTICES_HASHES */
} tbr_rec_vertex_group;

/* Writes the minor-7 layout (coded positions; out_hash only with
 * TBR_REC_VERTICES_HASHES), or with TBR_REC_VERTICES_NO_POSITIONS the minor-10 one (indices
 * only). The header's decoder state is ignored. */
int tbr_rec_vertices_encode(tbr_buf *b, const tbr_rec_vertices_header *h, const tbr_rec_vertex_group *g);
int tbr_rec_vertices_open(tbr_cursor *c, const uint8_t *p, size_t n, tbr_rec_vertices_header *h);
int tbr_rec_vertices_next(tbr_cursor *c, tbr_rec_vertices_header *h, tbr_rec_vertex_group *g);
int tbr_rec_vertices_close(tbr_cursor *c);

/* ---- SURFACE_INIT (18) ---------------------------------------------------
 * Rows y0 .. y0+rows-1 of a render-target surface (resource, level, layer) as
 * they are in memory when the recorded window first uses the surface without
 * having written it (hot start: the fast-forwarded frames wrote it). Raw texels
 * in the resource's format, width * block_bytes bytes per row, rows top to
 * bottom (softpipe's linear layout, y down). A surface's contents are split into
 * consecutive bands of at most TBR_REC_SURFACE_INIT_BAND_BYTES of data. */
#define TBR_REC_SURFACE_INIT_BAND_BYTES ((size_t)1 << 20)
#define TBR_REC_SURFACE_INIT_MAX_DIM    16384u
#define TBR_REC_SURFACE_INIT_MAX_BLOCK  16u
typedef struct tbr_rec_surface_init {
    uint32_t resource_id, level, layer;
    uint32_t is_zs;         /* 1: depth/stencil surface (raw words), 0: color */
    uint32_t format;        /* enum pipe_format of the resource */
    uint32_t width, height; /* the surface (level) size in pixels */
    uint32_t block_bytes;   /* bytes per texel */
    uint32_t y0, rows;      /* the band */
    const uint8_t *data;    /* rows * width * block_bytes bytes (decode: into the payload) */
} tbr_rec_surface_init;

/* SURFACE_CHECK (minor 4): zlib crc32 of a color render target's memory (rows of
 * width * block_bytes bytes, top to bottom) as softpipe holds it when a render pass
 * binds it, so the simulator can compare its own image of every render target, not
 * only the window's frames (docs/trace-records.md SURFACE_CHECK). */
typedef struct tbr_rec_surface_check {
    uint32_t resource_id, level, layer;
    uint32_t width, height, block_bytes;
    uint32_t crc;
} tbr_rec_surface_check;

int tbr_rec_surface_check_encode(tbr_buf *b, const tbr_rec_surface_check *r);
int tbr_rec_surface_check_decode(const uint8_t *p, size_t n, tbr_rec_surface_check *r);

/* INVALIDATE (minor 11): the application declared a resource's contents undefined
 * (pipe->invalidate_resource: glInvalidateFramebuffer / glDiscardFramebufferEXT), in
 * call order. buffers: which bindings of the current RENDER_PASS view the resource, with
 * CLEAR's bits (1 depth, 2 stencil: the components of the depth/stencil buffer's format;
 * 4 << i color buffer i); 0 = the current pass does not bind it (or no pass yet in the
 * frame). docs/trace-records.md INVALIDATE. */
typedef struct tbr_rec_invalidate {
    uint32_t resource_id;
    uint32_t buffers;
} tbr_rec_invalidate;

int tbr_rec_invalidate_encode(tbr_buf *b, const tbr_rec_invalidate *r);
int tbr_rec_invalidate_decode(const uint8_t *p, size_t n, tbr_rec_invalidate *r);

int tbr_rec_surface_init_encode(tbr_buf *b, const tbr_rec_surface_init *r);
int tbr_rec_surface_init_decode(const uint8_t *p, size_t n, tbr_rec_surface_init *r);

/* ---- VS_TEXELS (19) --------------------------------------------------------
 * Vertex texturing: texels the vertex shader read during the VERTICES record
 * written just before it. Same payload and API as TEXELS (tbr_rec_texels_*), with
 * tbr_rec_texfetch.quad = the GROUP ordinal within that VERTICES record, texel lane =
 * the group's lane (vertex; lanes < the group's n only), unit = VS sampler view
 * (VS_TEXTURES). */

/* ---- VS_TEXTURES (20) ------------------------------------------------------
 * The vertex-shader sampler views of a draw (DRAW.num_vs_textures > 0), written
 * right after its DRAW record; entries as DRAW textures (bound units only). */
typedef struct tbr_rec_vs_textures {
    uint32_t draw_seq;
    uint32_t num_textures;
    tbr_rec_texture textures[TBR_REC_MAX_TEXTURES];
} tbr_rec_vs_textures;

int tbr_rec_vs_textures_encode(tbr_buf *b, const tbr_rec_vs_textures *r);
int tbr_rec_vs_textures_decode(const uint8_t *p, size_t n, tbr_rec_vs_textures *r);

/* QUADS is streamed: header, then `count` quads.
 * Encode: tbr_rec_quads_begin() writes a header with a count placeholder;
 * append quads with tbr_rec_quads_add(); tbr_rec_quads_finish() patches the
 * count (the header is written as fixed-width u32s so it can be patched) and, for a
 * record begun with TBR_REC_QUADS_STREAMS (minor 11), splits the quads' fields, added
 * one quad after the other, into their streams.
 * Decode: tbr_rec_quads_open() reads the header into h and sets up cursor c;
 * call tbr_rec_quads_next() h->count times; then tbr_rec_quads_close()
 * checks that the payload was consumed exactly. */
/* h: the record's header and coding state, set by begin, used by add */
/* packed_mask may carry TBR_REC_QUADS_COMPUTED, TBR_REC_QUADS_TEXELS_DERIVED,
 * TBR_REC_QUADS_STREAMS and TBR_REC_QUADS_DEPTHS_DERIVED */
int tbr_rec_quads_begin(tbr_buf *b, tbr_rec_quads_header *h, uint32_t draw_seq, uint32_t nr_cbufs,
                        uint32_t packed_mask);
int tbr_rec_quads_add(tbr_buf *b, tbr_rec_quads_header *h, const tbr_rec_quad *q);
int tbr_rec_quads_finish(tbr_buf *b, uint32_t count);
/* Sets (on != 0) or clears TBR_REC_QUADS_TEXELS_DERIVED in an encoded record's header
 * (b holds the record from tbr_rec_quads_begin on): the recorder knows whether a
 * record's texels are derived only once softpipe reported them. */
int tbr_rec_quads_set_texels_derived(tbr_buf *b, int on);
int tbr_rec_quads_open(tbr_cursor *c, const uint8_t *p, size_t n, tbr_rec_quads_header *h);
/* Sets every field of q except the color/packed/exact entries of color buffers
 * >= h->nr_cbufs, which are left as they were. */
int tbr_rec_quads_next(tbr_cursor *c, tbr_rec_quads_header *h, tbr_rec_quad *q);
int tbr_rec_quads_close(tbr_cursor *c);

#ifdef __cplusplus
}
#endif

#endif /* TBR_RECORDS_H */
