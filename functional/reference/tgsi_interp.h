/*
 * tgsi_interp.h - a TGSI fragment-shader interpreter that computes, for one
 * 2x2 quad, exactly the outputs Mesa 22.3.6's tgsi_exec computes in softpipe
 * (same IEEE single-precision operations in the same order, same helper-lane
 * and kill semantics). The program comes from the SHADER record's text
 * (tgsi_dump_str output, docs/trace-records.md).
 *
 * Anything not implemented (an opcode, register file, modifier, property) makes
 * tbr_tgsi_parse fail with a message naming it; callers then keep the recorded
 * colors. Nothing is approximated: a FLT32 immediate printed "%10.4f" (the
 * default of tgsi_dump_str) is accepted only if no other float prints the same
 * text; dumped with TGSI_DUMP_FLOAT_AS_HEX ("0x3f800000") every one is exact.
 * Implemented opcodes: tbr_tgsi_supported_opcodes().
 */
#ifndef TBR_TGSI_INTERP_H
#define TBR_TGSI_INTERP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TBR_TGSI_MAX_INPUTS  32
#define TBR_TGSI_MAX_OUTPUTS 16

/* TGSI semantic names (enum tgsi_semantic values of Mesa 22.3.6). */
enum tbr_tgsi_semantic {
    TBR_TGSI_SEMANTIC_POSITION = 0,
    TBR_TGSI_SEMANTIC_COLOR = 1,
    TBR_TGSI_SEMANTIC_BCOLOR = 2,
    TBR_TGSI_SEMANTIC_FOG = 3,
    TBR_TGSI_SEMANTIC_PSIZE = 4,
    TBR_TGSI_SEMANTIC_GENERIC = 5,
    TBR_TGSI_SEMANTIC_NORMAL = 6,
    TBR_TGSI_SEMANTIC_FACE = 7,
    TBR_TGSI_SEMANTIC_EDGEFLAG = 8,
    TBR_TGSI_SEMANTIC_PRIMID = 9,
    TBR_TGSI_SEMANTIC_INSTANCEID = 10,
    TBR_TGSI_SEMANTIC_VERTEXID = 11,
    TBR_TGSI_SEMANTIC_STENCIL = 12,
    TBR_TGSI_SEMANTIC_CLIPDIST = 13,
    TBR_TGSI_SEMANTIC_CLIPVERTEX = 14,
    TBR_TGSI_SEMANTIC_GRID_SIZE = 15,
    TBR_TGSI_SEMANTIC_BLOCK_ID = 16,
    TBR_TGSI_SEMANTIC_BLOCK_SIZE = 17,
    TBR_TGSI_SEMANTIC_THREAD_ID = 18,
    TBR_TGSI_SEMANTIC_TEXCOORD = 19,
    TBR_TGSI_SEMANTIC_PCOORD = 20,
};

/* TGSI interpolation modes (enum tgsi_interpolate_mode). */
enum tbr_tgsi_interpolate {
    TBR_TGSI_INTERPOLATE_CONSTANT = 0,
    TBR_TGSI_INTERPOLATE_LINEAR = 1,
    TBR_TGSI_INTERPOLATE_PERSPECTIVE = 2,
    TBR_TGSI_INTERPOLATE_COLOR = 3,
};

/* A declared input or output register. */
struct tbr_tgsi_io {
    uint8_t semantic_name; /* enum tbr_tgsi_semantic */
    uint8_t semantic_index;
    uint8_t interpolate; /* inputs: enum tbr_tgsi_interpolate */
    uint8_t usage_mask;  /* declared .xyzw components, bit 0 = x */
};

/* Setup's interpolation coefficients of one attribute (struct tgsi_interp_coef):
 * value(x, y) = a0 + dadx * x + dady * y, per channel. */
struct tbr_interp_coef {
    float a0[4], dadx[4], dady[4];
};

/* enum tgsi_sampler_control */
enum tbr_sampler_control {
    TBR_SAMPLER_LOD_NONE = 0,
    TBR_SAMPLER_LOD_BIAS = 1,
    TBR_SAMPLER_LOD_EXPLICIT = 2,
    TBR_SAMPLER_LOD_ZERO = 3,
    TBR_SAMPLER_DERIVS_EXPLICIT = 4,
    TBR_SAMPLER_GATHER = 5,
};

/* Texture access of the texture instructions, the same calls tgsi_exec makes
 * on struct tgsi_sampler (arguments as there: [lane] arrays of 4). */
struct tbr_tgsi_sampler {
    void *ctx;
    void (*get_samples)(void *ctx, unsigned sview_index, unsigned sampler_index, const float s[4], const float t[4],
                        const float r[4], const float c0[4], const float c1[4], float derivs[3][2][4],
                        const int8_t offset[3], enum tbr_sampler_control control, float rgba[4][4]);
    void (*get_dims)(void *ctx, unsigned sview_index, int level, int dims[4]);
    void (*get_texel)(void *ctx, unsigned sview_index, const int i[4], const int j[4], const int k[4], const int lod[4],
                      const int8_t offset[3], float rgba[4][4]);
};

/* Everything a fragment shader execution reads besides the program. */
struct tbr_tgsi_fs_quad {
    float x0, y0;                           /* the quad's upper-left pixel (even), as floats */
    const struct tbr_interp_coef *pos_coef; /* setup's position coefficients (z, w used) */
    const struct tbr_interp_coef *coef;     /* per input register i: setup's coef[i] */
    int flatshade_color;                    /* rasterizer flatshade: COLOR inputs are constant */
    float face;                             /* +1 front-facing, -1 back-facing (machine->Face) */
    unsigned non_helper_mask;               /* lanes covered (quad->inout.mask entering the shader) */
    const void *consts[4];                  /* constant buffer slots, NULL if unbound */
    unsigned const_bytes[4];
    const struct tbr_tgsi_sampler *sampler;
    /* 1: skip the per-lane validity tracking (see tbr_tgsi_fs_result), which is
     * only needed to decide whether a quad is reproducible. For quads known to be
     * (tbr-sim runs those the recorder verified): same values, but stale reads go
     * undetected, output_lanes_valid is all set and run() does not fail on them. */
    int skip_validity;
    /* optional: set to the pc of the texture instruction before each sampler call
     * (get_samples / get_texel), for callers that attribute the texels it reads */
    unsigned *sampler_pc;
    /* the caller reads only the outputs below the program's num_outputs: the result's
     * others are left as they were instead of zeroed (~1 KB per quad) */
    int declared_outputs_only;
};

struct tbr_tgsi_fs_result {
    float outputs[TBR_TGSI_MAX_OUTPUTS][4][4]; /* [output register][channel][lane] (machine->Outputs) */
    unsigned kill_mask;                        /* lanes killed (KILL / KILL_IF) */
    unsigned mask;                             /* non_helper_mask & ~kill_mask: what softpipe keeps */
    /* [output register][channel]: lanes whose value this run computed. tgsi_exec's
     * registers persist from quad to quad, so a lane the shader did not write (or
     * computed from such a stale value) holds whatever softpipe's previous quads
     * left there; those lanes are not reproduced (their outputs here are 0). */
    uint8_t output_lanes_valid[TBR_TGSI_MAX_OUTPUTS][4];
};

struct tbr_tgsi_program;

/* Parse a fragment shader's TGSI text. NULL (and a message in err) if it is not a
 * fragment shader or uses something the interpreter does not implement. */
struct tbr_tgsi_program *tbr_tgsi_parse(const char *text, char *err, size_t errlen);
void tbr_tgsi_free(struct tbr_tgsi_program *prog);

unsigned tbr_tgsi_num_inputs(const struct tbr_tgsi_program *prog);  /* highest IN index + 1 */
unsigned tbr_tgsi_num_outputs(const struct tbr_tgsi_program *prog); /* highest OUT index + 1 */
const struct tbr_tgsi_io *tbr_tgsi_input(const struct tbr_tgsi_program *prog, unsigned i);
const struct tbr_tgsi_io *tbr_tgsi_output(const struct tbr_tgsi_program *prog, unsigned i);
int tbr_tgsi_uses_texture(const struct tbr_tgsi_program *prog);
/* PROPERTY FS_COLOR0_WRITES_ALL_CBUFS */
int tbr_tgsi_color0_writes_all_cbufs(const struct tbr_tgsi_program *prog);

/* PROPERTY FS_COORD_ORIGIN LOWER_LEFT / FS_COORD_PIXEL_CENTER INTEGER (they shape
 * softpipe's POSITION input coefficients, which the caller supplies). */
int tbr_tgsi_coord_origin_lower_left(const struct tbr_tgsi_program *prog);
int tbr_tgsi_coord_pixel_center_integer(const struct tbr_tgsi_program *prog);
/* Sampler units the program's instructions use (bit u = SAMP[u] operand). */
uint32_t tbr_tgsi_sampler_views(const struct tbr_tgsi_program *prog);

/* The opcodes the interpreter executes, names as tgsi_dump prints them, separated
 * by spaces. Any other opcode makes tbr_tgsi_parse fail. */
const char *tbr_tgsi_supported_opcodes(void);

/* Run the shader on one quad, as softpipe's exec_run does. 0 on success, -1 if
 * the execution hit something unsupported at run time (result then invalid):
 * a loop running too long, a branch or kill decided by a stale register (see
 * output_lanes_valid), or an output softpipe uses (COLOR: xyzw, POSITION: z,
 * STENCIL: y) that is not reproduced in a lane of result->mask. */
int tbr_tgsi_run_fs(const struct tbr_tgsi_program *prog, const struct tbr_tgsi_fs_quad *quad,
                    struct tbr_tgsi_fs_result *result);

#ifdef __cplusplus
}
#endif

#endif
