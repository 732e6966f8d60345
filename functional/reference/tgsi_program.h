/*
 * tgsi_program.h - the parsed form of a TGSI fragment shader, shared by the
 * parser (tgsi_parse.c) and the interpreter (tgsi_interp.c). Internal to the
 * tbr_reference library.
 */
#ifndef TBR_TGSI_PROGRAM_H
#define TBR_TGSI_PROGRAM_H

#include <stdint.h>

#include "tgsi_interp.h"

/* Register files we execute (enum tgsi_file_type subset). */
enum tgsi_file {
    TGSI_F_NULL,
    TGSI_F_CONST,
    TGSI_F_IN,
    TGSI_F_OUT,
    TGSI_F_TEMP,
    TGSI_F_SAMP,
    TGSI_F_IMM,
};

/* Opcodes the interpreter implements (names as tgsi_dump prints them). */
/* clang-format off */
#define TGSI_OPCODE_LIST(X) \
    X(MOV) X(LIT) X(RCP) X(RSQ) X(EXP) X(LOG) X(MUL) X(ADD) X(DP3) X(DP4) \
    X(DST) X(MIN) X(MAX) X(SLT) X(SGE) X(MAD) X(LRP) X(SQRT) X(LDEXP) X(FRC) \
    X(FLR) X(ROUND) X(EX2) X(LG2) X(POW) X(COS) X(DDX) X(DDY) X(KILL) X(SEQ) \
    X(SGT) X(SIN) X(SLE) X(SNE) X(TEX) X(TXD) X(TXP) X(SSG) X(CMP) X(TXB) \
    X(DIV) X(DP2) X(TXL) X(BRK) X(IF) X(UIF) X(ELSE) X(ENDIF) X(DDX_FINE) \
    X(DDY_FINE) X(CEIL) X(I2F) X(NOT) X(TRUNC) X(SHL) X(AND) X(OR) X(MOD) \
    X(XOR) X(TXF) X(TXQ) X(CONT) X(BGNLOOP) X(ENDLOOP) X(NOP) X(FSEQ) X(FSGE) \
    X(FSLT) X(FSNE) X(KILL_IF) X(END) X(F2I) X(IDIV) X(IMAX) X(IMIN) X(INEG) \
    X(ISGE) X(ISHR) X(ISLT) X(F2U) X(U2F) X(UADD) X(UDIV) X(UMAD) X(UMAX) \
    X(UMIN) X(UMOD) X(UMUL) X(USEQ) X(USGE) X(USHR) X(USLT) X(USNE) X(UCMP) \
    X(IABS) X(ISSG) X(IMUL_HI) X(UMUL_HI)
/* clang-format on */

enum tgsi_op {
#define TGSI_OP_ENUM(name) TGSI_OP_##name,
    TGSI_OPCODE_LIST(TGSI_OP_ENUM)
#undef TGSI_OP_ENUM
        TGSI_OP_COUNT
};

/* Texture targets (enum tgsi_texture_type values). */
enum tgsi_tex_target {
    TGSI_TEX_BUFFER = 0,
    TGSI_TEX_1D,
    TGSI_TEX_2D,
    TGSI_TEX_3D,
    TGSI_TEX_CUBE,
    TGSI_TEX_RECT,
    TGSI_TEX_SHADOW1D,
    TGSI_TEX_SHADOW2D,
    TGSI_TEX_SHADOWRECT,
    TGSI_TEX_1D_ARRAY,
    TGSI_TEX_2D_ARRAY,
    TGSI_TEX_SHADOW1D_ARRAY,
    TGSI_TEX_SHADOW2D_ARRAY,
    TGSI_TEX_SHADOWCUBE,
    TGSI_TEX_2D_MSAA,
    TGSI_TEX_2D_ARRAY_MSAA,
    TGSI_TEX_CUBEARRAY,
    TGSI_TEX_SHADOWCUBEARRAY,
    TGSI_TEX_COUNT
};

/* Source modifiers as the interpreter applies them (tgsi_resolve_operands): the
 * negation's data type is the instruction's source type (FETCH vs IFETCH). */
enum {
    TGSI_MOD_ABS = 1,
    TGSI_MOD_NEG_FLOAT = 2,
    TGSI_MOD_NEG_INT = 4,
};

struct tgsi_src {
    uint8_t file;       /* enum tgsi_file */
    uint8_t swizzle[4]; /* component read for dst channel x, y, z, w */
    uint8_t negate, absolute;
    uint8_t has_dimension; /* CONST[d][i] */
    int32_t index;
    int32_t dimension;
    /* resolved by tgsi_resolve_operands: */
    uint8_t mods;    /* TGSI_MOD_* */
    uint32_t row[4]; /* machine row read for dst channel x, y, z, w (swizzle applied) */
};

struct tgsi_dst {
    uint8_t file; /* TEMP, OUT or NULL */
    uint8_t write_mask;
    int32_t index;
    uint32_t row; /* machine row of channel x (resolved); y, z, w follow */
};

struct tgsi_inst {
    uint8_t op; /* enum tgsi_op */
    uint8_t saturate;
    uint8_t num_dst, num_src;
    uint8_t tex_target;  /* enum tgsi_tex_target, texture instructions */
    uint8_t num_offsets; /* 0 or 1 */
    /* resolved by tgsi_resolve_operands: no source modifiers, no _SAT, and no
     * channel's store overwrites a row a later channel of the write mask reads, so a
     * componentwise opcode may store each channel as soon as it is computed */
    uint8_t plain;
    int32_t label; /* IF/UIF/ELSE: target pc; -1 if none */
    struct tgsi_dst dst;
    struct tgsi_src src[4];
    struct tgsi_src offset; /* texel offset register (swizzle[0..2] used) */
};

/* One "DCL IN[a..b]" in program order (tgsi_exec evaluates them in order). */
struct tgsi_input_decl {
    int first, last;
    uint8_t usage_mask;
    uint8_t semantic_name;
    uint8_t interpolate;
};

/* The interpreter's registers are one array of rows, a row being one channel of
 * one register in the 4 lanes of the quad; operands are resolved to rows once, at
 * parse time, so an execution indexes the array instead of decoding files and
 * swizzles per fetch. Layout (tbr_tgsi_program row_* fields):
 *   TGSI_ROW_NULL   reads as 0, never valid (a source tgsi_exec does not fetch)
 *   TGSI_ROW_SINK.. 4 rows written by a NULL destination, never read
 *   temps, inputs, outputs: 4 rows per register (x, y, z, w)
 *   immediates: 4 rows per IMM, the bit pattern in every lane
 *   constants: one row per distinct (buffer, index, component) the program reads,
 *   filled per run from the bound constant buffers (tgsi_const_slot) */
#define TGSI_ROW_NULL      0u
#define TGSI_ROW_SINK      1u
#define TGSI_ROW_FIRST_REG 5u

struct tgsi_const_slot {
    uint32_t buffer; /* constant buffer slot (CONST[d][i]: d, else 0) */
    uint64_t dword;  /* index * 4 + component */
};

#define TGSI_MAX_TEMPS 256
#define TGSI_MAX_IMMS  256
#define TGSI_MAX_INSTS 4096
#define TGSI_MAX_DECLS 64

struct tbr_tgsi_program {
    unsigned num_inputs, num_outputs, num_temps, num_imms, num_insts;
    unsigned num_input_decls;
    struct tgsi_input_decl input_decls[TGSI_MAX_DECLS];
    struct tbr_tgsi_io inputs[TBR_TGSI_MAX_INPUTS];
    struct tbr_tgsi_io outputs[TBR_TGSI_MAX_OUTPUTS];
    uint8_t input_declared[TBR_TGSI_MAX_INPUTS];
    uint8_t output_declared[TBR_TGSI_MAX_OUTPUTS];
    uint32_t imm[TGSI_MAX_IMMS][4];   /* bit patterns */
    uint8_t imm_valid[TGSI_MAX_IMMS]; /* components given, bit 0 = x */
    int uses_texture;
    int color0_writes_all_cbufs;
    int coord_origin_lower_left;    /* PROPERTY FS_COORD_ORIGIN LOWER_LEFT */
    int coord_pixel_center_integer; /* PROPERTY FS_COORD_PIXEL_CENTER INTEGER */
    struct tgsi_inst *insts;
    /* execution layout (see TGSI_ROW_NULL) */
    uint32_t row_temps, row_inputs, row_outputs, row_imms, row_consts, num_rows;
    unsigned num_const_slots;
    struct tgsi_const_slot *const_slots;
    uint32_t (*imm_rows)[4]; /* [num_imms * 4]: IMM[i] component c in every lane */
};

/* Fills the execution layout and every operand's rows (end of tbr_tgsi_parse).
 * 0, or -1 if out of memory. */
int tgsi_resolve_operands(struct tbr_tgsi_program *prog);

extern const char *const tgsi_op_names[TGSI_OP_COUNT];

#endif
