/*
 * tbr_mesa_hooks.h - the ONE interface between tbrsim's instrumented Mesa
 * (softpipe + libEGL, functional/mesa/) and the recording library
 * libtbr_functional.so (functional/src/).
 *
 * This header is copied into Mesa's top-level include/ by scripts/build-mesa
 * (overlay) and is also on the include path of the project's CMake targets.
 * It depends on nothing but <stdint.h>: Mesa-side code (sp_tbr.c, egl_tbr.c)
 * translates Gallium state into the plain structs below, so the library never
 * needs Mesa headers. All enum-like values are GALLIUM values (PIPE_FUNC_*,
 * PIPE_BLENDFACTOR_*, PIPE_FORMAT_*, PIPE_PRIM_*, PIPE_TEX_* ...) of Mesa
 * 22.3.6, passed through unchanged; docs/trace-records.md lists them.
 *
 * Loading: when the environment variable TBR_FUNCTIONAL_LIB names a shared
 * library, softpipe (context creation) and libEGL (first eglSwapBuffers)
 * dlopen() it (same path -> same instance) and call the function named
 * TBR_MESA_HOOKS_SYMBOL, which returns the table. A caller must check
 * version == TBR_MESA_HOOKS_VERSION and size >= sizeof(struct tbr_mesa_hooks)
 * it was compiled with; otherwise it ignores the library. When the variable is
 * unset nothing is loaded and Mesa behaves exactly like unpatched softpipe.
 *
 * Threading: softpipe is single-threaded; all hooks are called on the GL
 * thread, in API order.
 */
#ifndef TBR_MESA_HOOKS_H
#define TBR_MESA_HOOKS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TBR_MESA_HOOKS_VERSION 6u /* 2: texels, vertices; 3: surface memory (map, stride);
                                   * 4: vertex-shader textures and texels;
                                   * 5: sampled textures' memory (tbr_hook_texture.data),
                                   * upload flags, shader text floats in hex;
                                   * 6: invalidate (pipe->invalidate_resource) */
#define TBR_MESA_HOOKS_SYMBOL "tbr_mesa_hooks_get"

#define TBR_HOOK_MAX_CBUFS 8u
#define TBR_HOOK_MAX_TEXTURES 16u   /* shader units recorded per stage (fragment, vertex) */
#define TBR_HOOK_MAX_CONSTBUFS 4u   /* constant buffer slots recorded per stage */
#define TBR_HOOK_MAX_ATTRIBS 32u    /* setup vertex attributes (incl. position) */
#define TBR_HOOK_MAX_STREAMS 32u    /* vertex elements (PIPE_MAX_ATTRIBS) */
#define TBR_HOOK_MAX_LEVELS 16u     /* mipmap levels of a texture (SP_MAX_TEXTURE_2D_LEVELS = 15) */

/* A Gallium resource (texture, render target or buffer). id is a process-wide
 * counter assigned at creation, never reused. */
struct tbr_hook_resource {
    uint32_t id;
    uint32_t target;      /* enum pipe_texture_target */
    uint32_t format;      /* enum pipe_format */
    const char *format_name; /* util_format_name(), e.g. "PIPE_FORMAT_B8G8R8A8_UNORM" */
    uint32_t width, height, depth, array_size;
    uint32_t last_level, nr_samples;
    uint32_t bind;        /* PIPE_BIND_* */
    uint32_t block_bytes; /* util_format_get_blocksize() */
    uint32_t is_display_target; /* 1: the window-system (EGL surface) buffer */
};

/* A render-target view of a resource (one level, a layer range). */
struct tbr_hook_surface {
    uint32_t valid;       /* 0: no surface bound in this slot */
    struct tbr_hook_resource res;
    uint32_t format;      /* the view's pipe_format (may differ from res.format) */
    const char *format_name;
    uint32_t level, first_layer, last_layer;
    uint32_t width, height;
    /* version 3: the first layer's memory as softpipe's tile cache maps it (rows of
     * width * res.block_bytes bytes, stride bytes apart; NULL if not mapped). Valid
     * only during the hook call: the recorder reads the initial contents of a
     * surface a recorded window uses before writing it (SURFACE_INIT). */
    const void *map;
    uint32_t stride;
};

struct tbr_hook_framebuffer {
    uint32_t width, height, layers, samples;
    uint32_t nr_cbufs;
    struct tbr_hook_surface cbufs[TBR_HOOK_MAX_CBUFS];
    struct tbr_hook_surface zsbuf;
};

struct tbr_hook_clear {
    uint32_t buffers;     /* PIPE_CLEAR_COLOR0<<i | PIPE_CLEAR_DEPTH | PIPE_CLEAR_STENCIL */
    float color_f[4];     /* union pipe_color_union viewed as float */
    uint32_t color_ui[4]; /* ... and as uint (pure-integer formats) */
    double depth;
    uint32_t stencil;
    uint64_t zs_packed;   /* util_pack64_z_stencil(zsformat, depth, stencil); what the tile cache stores */
    uint32_t zs_partial;  /* 1: only depth or only stencil of a combined buffer: softpipe writes memory
                           * directly (util_clear_depth_stencil) after flushing the zs tile cache */
    uint32_t has_scissor; /* softpipe ignores it (whole surface is cleared) */
    uint32_t scissor[4];  /* minx, miny, maxx, maxy */
};

/* CPU writes into a resource (transfer unmap with PIPE_MAP_WRITE). */
struct tbr_hook_upload {
    struct tbr_hook_resource res;
    uint32_t level;
    int32_t box[6];       /* x, y, z, width, height, depth (texels; bytes for buffers) */
    uint64_t bytes;       /* bytes covered by the box in the resource's layout */
    uint32_t flags;       /* version 5: TBR_HOOK_UPLOAD_* */
};
/* the write-back of softpipe's tile cache (rendered tiles stored through its mapping of
 * the surface), not a CPU write */
#define TBR_HOOK_UPLOAD_TILE_CACHE 0x1u

enum tbr_hook_stage { TBR_HOOK_STAGE_VS = 0, TBR_HOOK_STAGE_FS = 1 };

struct tbr_hook_shader {
    uint32_t id;          /* process-wide, never reused */
    uint32_t stage;       /* enum tbr_hook_stage */
    uint32_t internal;    /* 1: made by Mesa (blitter, st/mesa clear/pbo/mipmap...), not the application */
    uint32_t num_tokens;
    uint32_t num_instructions;
    const char *text;     /* tgsi_dump_str() text; instruction N is pc N */
    uint32_t created;     /* 1: creation event (pipe->create_*_state); 0: text before first use in a frame.
                           * Created shaders are the API-level objects; FS ids used by draws are the
                           * executed variants (parent_id = the created shader's id). */
    uint32_t parent_id;
};

struct tbr_hook_texture {
    uint32_t valid;
    struct tbr_hook_resource res;
    uint32_t view_format;
    uint32_t first_level, last_level, first_layer, last_layer;
    uint32_t swizzle[4];  /* PIPE_SWIZZLE_* */
    uint32_t has_sampler;
    uint32_t wrap_s, wrap_t, wrap_r;          /* PIPE_TEX_WRAP_* */
    uint32_t min_img_filter, min_mip_filter, mag_img_filter; /* PIPE_TEX_FILTER_*, PIPE_TEX_MIPFILTER_* */
    uint32_t compare_mode, compare_func, normalized_coords, seamless_cube_map, max_anisotropy;
    float lod_bias, min_lod, max_lod;
    float border_color[4];
    /* version 5: the resource's memory as softpipe's sampler reads it (softpipe_resource:
     * data + level_offset[level], rows stride[level] bytes apart, layers/slices/faces
     * img_stride[level] bytes apart); data NULL if not available (display target,
     * buffer). Valid while the resource lives: the recorder computes fragment colors
     * from it (docs/trace-records.md "Computed colors"). */
    const void *data;
    uint32_t num_levels;  /* levels described (res.last_level + 1, at most TBR_HOOK_MAX_LEVELS) */
    uint64_t level_offset[TBR_HOOK_MAX_LEVELS];
    uint32_t stride[TBR_HOOK_MAX_LEVELS], img_stride[TBR_HOOK_MAX_LEVELS];
};

struct tbr_hook_stencil {
    uint32_t enabled, func, fail_op, zpass_op, zfail_op, valuemask, writemask, ref;
};

struct tbr_hook_rt_blend {
    uint32_t blend_enable, rgb_func, rgb_src, rgb_dst, alpha_func, alpha_src, alpha_dst, colormask;
};

struct tbr_hook_constbuf {
    const void *data;     /* NULL if unbound */
    uint32_t size;        /* bytes */
};

struct tbr_hook_draw {
    /* the call */
    uint32_t mode;        /* enum pipe_prim_type */
    uint32_t index_size;  /* 0 = non-indexed */
    uint32_t start, count, instance_count, start_instance;
    int32_t index_bias;
    uint32_t min_index, max_index;
    /* shaders */
    uint32_t vs_id, fs_id;        /* ids of tbr_hook_shader (fs: the executed variant) */
    uint32_t internal;            /* 1: the FS or VS is internal */
    uint32_t early_z;             /* 1: softpipe runs depth/stencil BEFORE shading */
    uint32_t fs_uses_kill, fs_writes_z, fs_writes_stencil;
    /* rasterizer */
    uint32_t flatshade, flatshade_first, light_twoside, front_ccw, cull_face;
    uint32_t fill_front, fill_back, scissor_enable, half_pixel_center, bottom_edge_rule;
    uint32_t multisample, rasterizer_discard, depth_clip_near, depth_clip_far, clip_halfz;
    uint32_t point_quad_rasterization, sprite_coord_enable, sprite_coord_mode;
    uint32_t line_smooth, poly_smooth, poly_stipple_enable, line_stipple_enable;
    uint32_t offset_tri, offset_line, offset_point;
    float offset_units, offset_scale, offset_clamp;
    float point_size, line_width;
    /* depth / stencil / alpha */
    uint32_t depth_enabled, depth_writemask, depth_func;
    struct tbr_hook_stencil stencil[2];    /* front, back */
    uint32_t alpha_enabled, alpha_func;
    float alpha_ref;
    uint32_t depth_bounds_test;
    float depth_bounds_min, depth_bounds_max;
    /* blend */
    uint32_t independent_blend_enable, logicop_enable, logicop_func, dither;
    uint32_t alpha_to_coverage, alpha_to_one;
    struct tbr_hook_rt_blend rt[TBR_HOOK_MAX_CBUFS];
    float blend_color[4];
    /* viewport 0 and scissor 0 */
    float viewport_scale[3], viewport_translate[3];
    uint32_t scissor[4];  /* minx, miny, maxx, maxy */
    /* render targets (formats repeated for convenience; the surfaces are in the framebuffer hook) */
    uint32_t nr_cbufs;
    uint32_t cbuf_format[TBR_HOOK_MAX_CBUFS];
    uint32_t zs_format;   /* 0 (PIPE_FORMAT_NONE) if no depth/stencil buffer */
    /* fragment textures and samplers */
    uint32_t num_textures;
    struct tbr_hook_texture textures[TBR_HOOK_MAX_TEXTURES];
    uint32_t num_vs_textures;     /* vertex-shader sampler views bound */
    /* version 4: vertex-shader textures and samplers (first num_vs_textures, at most
     * TBR_HOOK_MAX_TEXTURES); their texels come with the vertices hook */
    struct tbr_hook_texture vs_textures[TBR_HOOK_MAX_TEXTURES];
    /* constant buffers (slot 0..TBR_HOOK_MAX_CONSTBUFS-1) */
    struct tbr_hook_constbuf vs_const[TBR_HOOK_MAX_CONSTBUFS];
    struct tbr_hook_constbuf fs_const[TBR_HOOK_MAX_CONSTBUFS];
    /* features the recorder does not model: a NUL-terminated, comma-separated
     * list of names ("" if none), e.g. "geometry_shader,fs_writes_stencil" */
    const char *unsupported;
};

/* Quad flags (struct tbr_hook_quad.flags). */
#define TBR_HOOK_QUAD_HAS_Z        0x01u /* z[] holds the depth test's integer values */
#define TBR_HOOK_QUAD_SHADED       0x02u /* the fragment shader ran on this quad */
#define TBR_HOOK_QUAD_SHADE_OUT    0x04u /* the shading stage passed it on (shade_mask valid) */
#define TBR_HOOK_QUAD_DEPTH_OUT    0x08u /* the depth/stencil/alpha stage passed it on (depth_mask valid) */
#define TBR_HOOK_QUAD_BLENDED      0x10u /* the blend stage received it (blend_mask, color valid) */
#define TBR_HOOK_QUAD_FACING_BACK  0x20u

/* One 2x2 quad as emitted by the rasterizer, with its fate in the quad
 * pipeline. Fragment j: 0 = (x,y), 1 = (x+1,y), 2 = (x,y+1), 3 = (x+1,y+1);
 * mask bit j = fragment j. y grows downwards (window origin top-left). */
struct tbr_hook_quad {
    int32_t x, y;         /* even */
    uint32_t prim;        /* index of the primitive within the draw (setup order) */
    uint32_t prim_kind;   /* 1 point, 2 line, 3 triangle */
    uint32_t flags;       /* TBR_HOOK_QUAD_* */
    uint32_t in_mask;     /* coverage from the rasterizer */
    uint32_t depth_mask;  /* after depth/stencil/alpha (if DEPTH_OUT) */
    uint32_t shade_mask;  /* after shading, i.e. coverage & ~kill (if SHADE_OUT) */
    uint32_t blend_mask;  /* mask the blend stage wrote with (if BLENDED) */
    uint32_t z[4];        /* depth test values (if HAS_Z), in the depth buffer's integer encoding */
    uint32_t path_id;     /* executed FS instruction path (exec_path id) if SHADED, 0 if not recorded */
    uint32_t nr_cbufs;
    float color[TBR_HOOK_MAX_CBUFS][4][4]; /* [cbuf][channel rgba][fragment]: FS output blended (if BLENDED) */
};

/* Setup-level primitive. */
#define TBR_HOOK_PRIM_CULLED 0x1u   /* rejected by setup (back face, zero area or NaN) */
struct tbr_hook_prim {
    uint32_t index;       /* same numbering as tbr_hook_quad.prim */
    uint32_t kind;        /* 1 point, 2 line, 3 triangle */
    uint32_t flags;       /* TBR_HOOK_PRIM_* */
    float det;            /* triangles: signed area*2 as computed by setup (calc_det) */
    uint32_t nr_attrs;    /* attribute 0 = window position (x, y, z, w) */
    const float (*v[3])[4]; /* v[i][attr][comp] for the kind's vertices */
};

/* Tile cache events: where softpipe converts between the surface's format and
 * its float/raw 64x64 tile cache. */
enum tbr_hook_tile_kind {
    TBR_HOOK_TILE_LOAD = 1,        /* tile read (unpacked) from the surface into the cache */
    TBR_HOOK_TILE_LOAD_CLEAR = 2,  /* tile initialised from the pending clear value (no read) */
    TBR_HOOK_TILE_STORE = 3,       /* cached tile written (packed) to the surface (eviction or flush) */
    TBR_HOOK_TILE_STORE_CLEAR = 4, /* pending clear written to the surface at flush (packed clear value) */
    TBR_HOOK_TILE_CLEAR_ALL = 5,   /* cache emptied without writing, every tile marked "pending clear" */
};

struct tbr_hook_tile {
    uint32_t kind;        /* enum tbr_hook_tile_kind */
    uint32_t is_zs;       /* 1: depth/stencil cache, 0: color cache */
    uint32_t cbuf;        /* color buffer index (is_zs == 0) */
    uint32_t resource_id, level, layer;
    uint32_t tile_x, tile_y; /* in tiles (tile_size pixels) */
    uint32_t tile_size;   /* 64 */
    /* version 3: the memory of the surface layer (as tbr_hook_surface.map; the
     * event's effect on it has not happened yet), its size and format */
    const void *map;
    uint32_t stride;
    uint32_t width, height;  /* the surface (level) size in pixels */
    uint32_t format;         /* enum pipe_format of the resource */
    uint32_t block_bytes;
};

/* One texel read by softpipe's sampler for a fragment quad (texels hook) or, since
 * version 4, for a vertex-shader group (tbr_hook_vertices.texels): every access to the
 * texture tile cache (get_texel_*_no_border), in the order the filter made
 * them. Texels outside the level (border color) read no memory and are not
 * reported. Coordinates are those the tile cache is addressed with: level,
 * layer (2D: the view's first layer; array: layer; cube: 6*layer+face; 3D: z;
 * 1D array: 0, with y = layer), integer x, y (buffers: element index in x). */
struct tbr_hook_texel {
    uint32_t slot;        /* index in the quad batch of the quads() call just made;
                           * vertex texels: index in tbr_hook_vertices.groups */
    uint32_t fetch;       /* sampler call number within the batch / vertex run (one per
                           * texture instruction execution) */
    uint32_t pc;          /* TGSI pc of the texture instruction */
    uint32_t unit;        /* sampler view slot */
    uint32_t lane;        /* 0..3: the quad fragment (vertex texels: the group's lane, i.e.
                           * vertex; the sampler runs all 4 lanes, also those >= group n) */
    uint32_t resource_id;
    uint32_t level, layer;
    int32_t x, y;
};

/* A vertex element as the draw module fetches it: the element of vertex index
 * i is read at byte offset + i * stride of the resource (instance_divisor != 0:
 * index = start_instance + instance_id / instance_divisor). */
struct tbr_hook_vertex_stream {
    struct tbr_hook_resource res; /* res.id == 0: user memory (client-side array) */
    uint32_t buffer_index;/* vertex buffer slot */
    uint32_t offset;      /* buffer_offset + src_offset (bytes) */
    uint32_t stride;      /* bytes */
    uint32_t size;        /* bytes read per vertex (util_format_get_blocksize(src_format)) */
    uint32_t format;      /* enum pipe_format of the element */
    uint32_t instance_divisor;
};

/* One execution of the vertex shader on up to 4 vertices (tgsi_exec lanes). */
struct tbr_hook_vertex_group {
    uint32_t path_id;     /* exec_path id of the executed VS instruction stream */
    uint32_t n;           /* vertices (lanes) 1..4 */
    uint32_t index[4];    /* vertex index fetched for each lane (after index bias and the
                           * draw module's clamp to max_index) */
    float pos[4][4];      /* [lane][xyzw]: clip-space position output */
    uint32_t out_hash[4]; /* per lane: FNV-1a 32 of the raw bytes of every other output
                           * (slot order, x,y,z,w f32 little-endian) */
};

/* The vertices of one vertex-fetch run (one draw-module chunk): fetch layout,
 * then the VS groups in execution order. */
struct tbr_hook_vertices {
    uint32_t vs_id;
    uint32_t instance_id, start_instance;
    uint32_t num_outputs, position_slot; /* VS outputs (position_slot = ~0u if none) */
    uint32_t nr_streams;
    struct tbr_hook_vertex_stream streams[TBR_HOOK_MAX_STREAMS];
    uint32_t fetched;     /* vertices fetched by the run */
    uint32_t n_groups;
    const struct tbr_hook_vertex_group *groups;
    /* version 4: texels the vertex shader read during this run (vertex texturing),
     * in the order the sampler read them; slot = group index, unit = VS sampler view
     * (tbr_hook_draw.vs_textures) */
    uint32_t n_texels;
    const struct tbr_hook_texel *texels;
};

typedef void (*tbr_gl_proc)(void);

struct tbr_hook_context_info {
    const char *driver;   /* "softpipe" */
    const char *mesa_version; /* "22.3.6" */
    uint32_t tile_size, tile_cache_entries;
};

struct tbr_mesa_hooks {
    uint32_t version;     /* TBR_MESA_HOOKS_VERSION */
    uint32_t size;        /* sizeof(struct tbr_mesa_hooks) */

    /* softpipe context created / destroyed. context_create returns 0 if the
     * library accepts the context (hooks will be called), nonzero otherwise. */
    int (*context_create)(const struct tbr_hook_context_info *info);
    void (*context_destroy)(void);

    /* 1 if the current frame is recorded (inside TBR_FRAMES and not paused).
     * Cheap; Mesa calls it at each draw/clear/upload before building structs. */
    int (*recording)(void);

    /* eglSwapBuffers / eglSwapBuffersWithDamage*, called before the pbuffer
     * early return with the EGL display lock dropped: end of frame. The
     * library may call GL through get_proc_address (eglGetProcAddress). */
    void (*swap_buffers)(tbr_gl_proc (*get_proc_address)(const char *name));

    void (*framebuffer)(const struct tbr_hook_framebuffer *fb);
    void (*clear)(const struct tbr_hook_clear *clear);
    void (*upload)(const struct tbr_hook_upload *upload);
    void (*shader)(const struct tbr_hook_shader *shader); /* at creation (may be called again before use) */
    int (*shader_known)(uint32_t id); /* 1 if the shader's text was already given in this frame */
    void (*draw_begin)(const struct tbr_hook_draw *draw);
    void (*draw_end)(void);
    void (*prim)(const struct tbr_hook_prim *prim);
    void (*quads)(const struct tbr_hook_quad *quads, uint32_t n);
    void (*tile)(const struct tbr_hook_tile *tile);
    void (*flush)(uint32_t flags);
    /* A feature the recorder cannot represent was hit (name, e.g. "compute"). */
    void (*unsupported)(const char *name);
    /* One execution of a shader on a 4-lane group: the dynamic sequence of TGSI
     * pcs with the active-lane mask (ExecMask & NonHelperMask & ~KillMask) before
     * each instruction; truncated = 1 if longer than Mesa's buffer. Returns the
     * path's id in the current frame (identical sequences get the same id). */
    uint32_t (*exec_path)(uint32_t shader_id, uint32_t stage, const uint16_t *pc,
                          const uint8_t *mask, uint32_t n, uint32_t truncated);
    /* version 2 */
    /* Texels read while shading the quads of the quads() call just made
     * (called right after it, only if there were any). */
    void (*texels)(const struct tbr_hook_texel *t, uint32_t n);
    /* Vertex fetch + vertex shading of one draw-module chunk. */
    void (*vertices)(const struct tbr_hook_vertices *v);
    /* version 6 */
    /* pipe->invalidate_resource: the application declared the resource's contents
     * undefined. In Mesa 22.3.6 only glInvalidateFramebuffer / glDiscardFramebufferEXT
     * reach it (st/mesa's discard_framebuffer, per attachment whose resource is a single
     * 2D level and layer; a packed depth/stencil buffer only when both are listed);
     * glInvalidateSubFramebuffer does nothing, buffer invalidation needs a cap softpipe
     * does not have, and the surfaceless EGL platform's swap invalidates nothing.
     * softpipe keeps the contents (a hint it may ignore): pixels are unchanged. Called
     * in API order, so after the draws of the pass that wrote the resource and before
     * the tile stores of the framebuffer change that follows. */
    void (*invalidate)(const struct tbr_hook_resource *res);
};

typedef const struct tbr_mesa_hooks *(*tbr_mesa_hooks_get_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* TBR_MESA_HOOKS_H */
