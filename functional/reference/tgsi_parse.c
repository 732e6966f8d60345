/*
 * tgsi_parse.c - parser of Mesa 22.3.6's tgsi_dump text of a fragment shader
 * (the SHADER record's text) into struct tbr_tgsi_program.
 *
 * The syntax is the one tgsi_dump.c prints: "FRAG", "PROPERTY NAME v",
 * "DCL FILE[..]...", "IMM[n] TYPE {...}", then "  n: OPCODE dst, srcs[, TARGET]
 * [, OFFSET][ :label]". Everything the interpreter does not execute exactly
 * (indirect addressing, SV/ADDR/IMAGE/BUFFER files, opcodes outside
 * TGSI_OPCODE_LIST, FLT32 immediates whose printed text does not identify a
 * single float, ...) is rejected with a message.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgsi_program.h"

const char *const tgsi_op_names[TGSI_OP_COUNT] = {
#define TGSI_OP_NAME(name) #name,
    TGSI_OPCODE_LIST(TGSI_OP_NAME)
#undef TGSI_OP_NAME
};

static const char *const file_names[] = {"NULL", "CONST", "IN", "OUT", "TEMP", "SAMP", "IMM"};

static const char *const semantic_names[] = {
    "POSITION",   "COLOR",     "BCOLOR",   "FOG",        "PSIZE",     "GENERIC",  "NORMAL",
    "FACE",       "EDGEFLAG",  "PRIM_ID",  "INSTANCEID", "VERTEXID",  "STENCIL",  "CLIPDIST",
    "CLIPVERTEX", "GRID_SIZE", "BLOCK_ID", "BLOCK_SIZE", "THREAD_ID", "TEXCOORD", "PCOORD",
};

static const char *const texture_names[TGSI_TEX_COUNT] = {
    "BUFFER",
    "1D",
    "2D",
    "3D",
    "CUBE",
    "RECT",
    "SHADOW1D",
    "SHADOW2D",
    "SHADOWRECT",
    "1D_ARRAY",
    "2D_ARRAY",
    "SHADOW1D_ARRAY",
    "SHADOW2D_ARRAY",
    "SHADOWCUBE",
    "2D_MSAA",
    "2D_ARRAY_MSAA",
    "CUBEARRAY",
    "SHADOWCUBEARRAY",
};

static const char *const interpolate_names[] = {"CONSTANT", "LINEAR", "PERSPECTIVE", "COLOR"};

struct parser {
    struct tbr_tgsi_program *prog;
    char *err;
    size_t errlen;
    unsigned line_no;
    unsigned insts_cap;
    int failed;
};

static int fail(struct parser *p, const char *fmt, ...)
{
    if (!p->failed && p->err && p->errlen) {
        int n = snprintf(p->err, p->errlen, "line %u: ", p->line_no);
        if (n >= 0 && (size_t)n < p->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    p->failed = 1;
    return -1;
}

static void skip_spaces(const char **s)
{
    while (**s == ' ' || **s == '\t') (*s)++;
}

/* Accept the literal word at *s (followed by a non-identifier character). */
static int accept_word(const char **s, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(*s, word, n) != 0) return 0;
    char c = (*s)[n];
    if (isalnum((unsigned char)c) || c == '_') return 0;
    *s += n;
    return 1;
}

static int accept_char(const char **s, char c)
{
    if (**s != c) return 0;
    (*s)++;
    return 1;
}

static int parse_int(const char **s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(*s, &end, 10);
    if (end == *s || errno) return 0;
    *out = v;
    *s = end;
    return 1;
}

/* The longest name of the table that starts at *s (names are a prefix of others:
 * "2D" / "2D_ARRAY", "SHADOW2D" / "SHADOW2D_ARRAY"). */
static int match_name(const char **s, const char *const *names, int count)
{
    int best = -1;
    size_t best_len = 0;
    for (int i = 0; i < count; i++) {
        size_t n = strlen(names[i]);
        if (n > best_len && strncmp(*s, names[i], n) == 0) {
            char c = (*s)[n];
            if (!(isalnum((unsigned char)c) || c == '_')) {
                best = i;
                best_len = n;
            }
        }
    }
    if (best >= 0) *s += best_len;
    return best;
}

/* Register file name; rejects files tgsi_exec has but we do not execute. */
static int parse_file(struct parser *p, const char **s)
{
    static const char *const unsupported[] = {"ADDR",   "SV",     "IMAGE",    "SVIEW",
                                              "BUFFER", "MEMORY", "CONSTBUF", "HWATOMIC"};
    for (size_t i = 0; i < sizeof unsupported / sizeof *unsupported; i++)
        if (strncmp(*s, unsupported[i], strlen(unsupported[i])) == 0 && (*s)[strlen(unsupported[i])] == '[')
            return fail(p, "register file %s not supported here", unsupported[i]);
    int f = match_name(s, file_names, (int)(sizeof file_names / sizeof *file_names));
    if (f < 0) return fail(p, "unknown register file at '%.20s'", *s);
    return f;
}

/* "[n]" with a plain index; indirect "[ADDR[0].x+1]" is rejected. */
static int parse_bracket_index(struct parser *p, const char **s, long *index)
{
    if (!accept_char(s, '[')) return fail(p, "expected '[' at '%.20s'", *s);
    if (isalpha((unsigned char)**s)) return fail(p, "indirect addressing not supported");
    if (!parse_int(s, index) || *index < 0) return fail(p, "bad register index at '%.20s'", *s);
    if (!accept_char(s, ']')) return fail(p, "expected ']' at '%.20s'", *s);
    return 0;
}

static int component_of(char c)
{
    switch (c) {
        case 'x': return 0;
        case 'y': return 1;
        case 'z': return 2;
        case 'w': return 3;
        default: return -1;
    }
}

/* ".xz" write mask / usage mask (components in order, each at most once). */
static int parse_mask(const char **s, uint8_t *mask)
{
    *mask = 0xf;
    if (**s != '.') return 0;
    (*s)++;
    uint8_t m = 0;
    int last = -1;
    while (component_of(**s) >= 0) {
        int c = component_of(**s);
        if (c <= last) return -1;
        m |= (uint8_t)(1u << c);
        last = c;
        (*s)++;
    }
    if (!m) return -1;
    *mask = m;
    return 0;
}

static void grow_register_counts(struct tbr_tgsi_program *prog, int file, long index)
{
    unsigned n = (unsigned)index + 1;
    if (file == TGSI_F_TEMP && n > prog->num_temps) prog->num_temps = n;
}

static int check_index(struct parser *p, int file, long index)
{
    long limit = 0;
    switch (file) {
        case TGSI_F_TEMP: limit = TGSI_MAX_TEMPS; break;
        case TGSI_F_IN: limit = TBR_TGSI_MAX_INPUTS; break;
        case TGSI_F_OUT: limit = TBR_TGSI_MAX_OUTPUTS; break;
        case TGSI_F_IMM: limit = TGSI_MAX_IMMS; break;
        case TGSI_F_CONST: limit = 1L << 24; break;
        case TGSI_F_SAMP: limit = 32; break;
        default: limit = 1; break;
    }
    if (index >= limit) return fail(p, "%s[%ld] out of the supported range", file_names[file], index);
    return 0;
}

/* The source data type tgsi_exec fetches with (FETCH vs IFETCH): decides whether
 * '-' is a float or integer negation, and '|x|' is only valid on floats. */
static int src_is_integer(int op, int src_index)
{
    switch (op) {
        case TGSI_OP_UCMP: return src_index == 0;
        case TGSI_OP_I2F:
        case TGSI_OP_NOT:
        case TGSI_OP_SHL:
        case TGSI_OP_AND:
        case TGSI_OP_OR:
        case TGSI_OP_MOD:
        case TGSI_OP_XOR:
        case TGSI_OP_IDIV:
        case TGSI_OP_IMAX:
        case TGSI_OP_IMIN:
        case TGSI_OP_INEG:
        case TGSI_OP_ISGE:
        case TGSI_OP_ISHR:
        case TGSI_OP_ISLT:
        case TGSI_OP_U2F:
        case TGSI_OP_UADD:
        case TGSI_OP_UDIV:
        case TGSI_OP_UMAD:
        case TGSI_OP_UMAX:
        case TGSI_OP_UMIN:
        case TGSI_OP_UMOD:
        case TGSI_OP_UMUL:
        case TGSI_OP_USEQ:
        case TGSI_OP_USGE:
        case TGSI_OP_USHR:
        case TGSI_OP_USLT:
        case TGSI_OP_USNE:
        case TGSI_OP_IABS:
        case TGSI_OP_ISSG:
        case TGSI_OP_IMUL_HI:
        case TGSI_OP_UMUL_HI:
        case TGSI_OP_UIF: return 1;
        case TGSI_OP_TXF: return src_index == 0;
        case TGSI_OP_TXQ: return src_index == 0;
        default: return 0;
    }
}

static int parse_src(struct parser *p, const char **s, int op, int src_index, struct tgsi_src *src)
{
    memset(src, 0, sizeof *src);
    for (int c = 0; c < 4; c++) src->swizzle[c] = (uint8_t)c;
    if (accept_char(s, '-')) src->negate = 1;
    if (accept_char(s, '|')) src->absolute = 1;
    int f = parse_file(p, s);
    if (f < 0) return -1;
    src->file = (uint8_t)f;
    long index;
    if (parse_bracket_index(p, s, &index)) return -1;
    if (**s == '[') {
        /* two-dimensional: the first subscript was the dimension */
        if (f != TGSI_F_CONST) return fail(p, "two-dimensional %s not supported", file_names[f]);
        src->has_dimension = 1;
        if (index >= 4) return fail(p, "constant buffer %ld not supported", index);
        src->dimension = (int32_t)index;
        if (parse_bracket_index(p, s, &index)) return -1;
    }
    if (**s == '(') return fail(p, "register array ids not supported");
    if (check_index(p, f, index)) return -1;
    src->index = (int32_t)index;
    grow_register_counts(p->prog, f, index);
    if (accept_char(s, '.')) {
        for (int c = 0; c < 4; c++) {
            int comp = component_of(**s);
            if (comp < 0) return fail(p, "bad swizzle at '%.20s'", *s);
            src->swizzle[c] = (uint8_t)comp;
            (*s)++;
        }
    }
    if (src->absolute && !accept_char(s, '|')) return fail(p, "expected closing '|'");
    if (f == TGSI_F_NULL || f == TGSI_F_SAMP) {
        if (f == TGSI_F_NULL || src->negate || src->absolute)
            return fail(p, "bad use of %s as a source", file_names[f]);
    }
    if (src_is_integer(op, src_index) && src->absolute)
        return fail(p, "absolute value on an integer source (%s) not supported", tgsi_op_names[op]);
    return 0;
}

static int parse_dst(struct parser *p, const char **s, struct tgsi_dst *dst)
{
    int f = parse_file(p, s);
    if (f < 0) return -1;
    if (f != TGSI_F_TEMP && f != TGSI_F_OUT && f != TGSI_F_NULL)
        return fail(p, "destination file %s not supported", file_names[f]);
    long index;
    if (parse_bracket_index(p, s, &index)) return -1;
    if (**s == '[' || **s == '(') return fail(p, "two-dimensional or array destination not supported");
    if (check_index(p, f, index)) return -1;
    if (f == TGSI_F_OUT && !p->prog->output_declared[index]) return fail(p, "OUT[%ld] written but not declared", index);
    grow_register_counts(p->prog, f, index);
    dst->file = (uint8_t)f;
    dst->index = (int32_t)index;
    if (parse_mask(s, &dst->write_mask)) return fail(p, "bad write mask at '%.20s'", *s);
    return 0;
}

struct op_shape {
    uint8_t num_dst, num_src, is_tex, has_label;
};

static struct op_shape op_shape(int op)
{
    struct op_shape sh = {1, 1, 0, 0};
    switch (op) {
        case TGSI_OP_MUL:
        case TGSI_OP_ADD:
        case TGSI_OP_DP3:
        case TGSI_OP_DP4:
        case TGSI_OP_DST:
        case TGSI_OP_MIN:
        case TGSI_OP_MAX:
        case TGSI_OP_SLT:
        case TGSI_OP_SGE:
        case TGSI_OP_LDEXP:
        case TGSI_OP_POW:
        case TGSI_OP_SEQ:
        case TGSI_OP_SGT:
        case TGSI_OP_SLE:
        case TGSI_OP_SNE:
        case TGSI_OP_DIV:
        case TGSI_OP_DP2:
        case TGSI_OP_SHL:
        case TGSI_OP_AND:
        case TGSI_OP_OR:
        case TGSI_OP_MOD:
        case TGSI_OP_XOR:
        case TGSI_OP_FSEQ:
        case TGSI_OP_FSGE:
        case TGSI_OP_FSLT:
        case TGSI_OP_FSNE:
        case TGSI_OP_IDIV:
        case TGSI_OP_IMAX:
        case TGSI_OP_IMIN:
        case TGSI_OP_ISGE:
        case TGSI_OP_ISHR:
        case TGSI_OP_ISLT:
        case TGSI_OP_UADD:
        case TGSI_OP_UDIV:
        case TGSI_OP_UMAX:
        case TGSI_OP_UMIN:
        case TGSI_OP_UMOD:
        case TGSI_OP_UMUL:
        case TGSI_OP_USEQ:
        case TGSI_OP_USGE:
        case TGSI_OP_USHR:
        case TGSI_OP_USLT:
        case TGSI_OP_USNE:
        case TGSI_OP_IMUL_HI:
        case TGSI_OP_UMUL_HI: sh.num_src = 2; break;
        case TGSI_OP_MAD:
        case TGSI_OP_LRP:
        case TGSI_OP_CMP:
        case TGSI_OP_UMAD:
        case TGSI_OP_UCMP: sh.num_src = 3; break;
        case TGSI_OP_TEX:
        case TGSI_OP_TXP:
        case TGSI_OP_TXB:
        case TGSI_OP_TXL:
        case TGSI_OP_TXF:
        case TGSI_OP_TXQ:
            sh.num_src = 2;
            sh.is_tex = 1;
            break;
        case TGSI_OP_TXD:
            sh.num_src = 4;
            sh.is_tex = 1;
            break;
        case TGSI_OP_KILL:
        case TGSI_OP_BRK:
        case TGSI_OP_CONT:
        case TGSI_OP_NOP:
        case TGSI_OP_END:
        case TGSI_OP_ENDIF:
            sh.num_dst = 0;
            sh.num_src = 0;
            break;
        case TGSI_OP_ELSE:
        case TGSI_OP_BGNLOOP:
        case TGSI_OP_ENDLOOP:
            sh.num_dst = 0;
            sh.num_src = 0;
            sh.has_label = 1;
            break;
        case TGSI_OP_IF:
        case TGSI_OP_UIF:
            sh.num_dst = 0;
            sh.num_src = 1;
            sh.has_label = 1;
            break;
        case TGSI_OP_KILL_IF: sh.num_dst = 0; break;
        default: break;
    }
    return sh;
}

/* Texture targets whose argument marshalling we implement, per instruction
 * (the asserts of tgsi_exec's exec_tex / exec_txd / exec_txf are rejections). */
static int tex_target_supported(int op, int target)
{
    switch (op) {
        case TGSI_OP_TEX:
            return target == TGSI_TEX_1D || target == TGSI_TEX_2D || target == TGSI_TEX_3D || target == TGSI_TEX_CUBE ||
                   target == TGSI_TEX_RECT || target == TGSI_TEX_SHADOW1D || target == TGSI_TEX_SHADOW2D ||
                   target == TGSI_TEX_SHADOWRECT || target == TGSI_TEX_1D_ARRAY || target == TGSI_TEX_2D_ARRAY ||
                   target == TGSI_TEX_SHADOW1D_ARRAY || target == TGSI_TEX_SHADOW2D_ARRAY ||
                   target == TGSI_TEX_SHADOWCUBE;
        case TGSI_OP_TXB:
        case TGSI_OP_TXL:
        case TGSI_OP_TXP:
            /* the bias / lod / divisor comes from src0.w: not with a 4th coordinate */
            return target == TGSI_TEX_1D || target == TGSI_TEX_2D || target == TGSI_TEX_3D || target == TGSI_TEX_CUBE ||
                   target == TGSI_TEX_RECT || target == TGSI_TEX_SHADOW1D || target == TGSI_TEX_SHADOW2D ||
                   target == TGSI_TEX_SHADOWRECT || target == TGSI_TEX_1D_ARRAY || target == TGSI_TEX_2D_ARRAY ||
                   target == TGSI_TEX_SHADOW1D_ARRAY;
        case TGSI_OP_TXD:
            return target == TGSI_TEX_1D || target == TGSI_TEX_2D || target == TGSI_TEX_RECT || target == TGSI_TEX_3D ||
                   target == TGSI_TEX_CUBE || target == TGSI_TEX_SHADOW1D || target == TGSI_TEX_1D_ARRAY ||
                   target == TGSI_TEX_SHADOW1D_ARRAY || target == TGSI_TEX_SHADOW2D || target == TGSI_TEX_SHADOWRECT ||
                   target == TGSI_TEX_2D_ARRAY || target == TGSI_TEX_SHADOW2D_ARRAY || target == TGSI_TEX_SHADOWCUBE;
        case TGSI_OP_TXF:
            return target == TGSI_TEX_1D || target == TGSI_TEX_2D || target == TGSI_TEX_3D || target == TGSI_TEX_RECT ||
                   target == TGSI_TEX_1D_ARRAY || target == TGSI_TEX_2D_ARRAY || target == TGSI_TEX_SHADOW1D ||
                   target == TGSI_TEX_SHADOW2D || target == TGSI_TEX_SHADOWRECT || target == TGSI_TEX_SHADOW1D_ARRAY ||
                   target == TGSI_TEX_SHADOW2D_ARRAY || target == TGSI_TEX_BUFFER;
        case TGSI_OP_TXQ: return target != TGSI_TEX_2D_MSAA && target != TGSI_TEX_2D_ARRAY_MSAA;
        default: return 0;
    }
}

static int parse_instruction(struct parser *p, const char *s)
{
    struct tbr_tgsi_program *prog = p->prog;
    long number;
    if (!parse_int(&s, &number) || !accept_char(&s, ':')) return fail(p, "bad instruction line");
    if (number != (long)prog->num_insts)
        return fail(p, "instruction numbered %ld, expected %u", number, prog->num_insts);
    skip_spaces(&s);
    const char *name = s;
    while (isalnum((unsigned char)*s) || *s == '_') s++;
    size_t name_len = (size_t)(s - name);
    struct tgsi_inst inst;
    memset(&inst, 0, sizeof inst);
    inst.label = -1;
    /* Suffixes: _SAT then _PRECISE (tgsi_dump order). _PRECISE has no effect in tgsi_exec. */
    if (name_len > 8 && strncmp(name + name_len - 8, "_PRECISE", 8) == 0) name_len -= 8;
    if (name_len > 4 && strncmp(name + name_len - 4, "_SAT", 4) == 0) {
        /* DDX_FINE etc. do not end in _SAT, so this is unambiguous */
        inst.saturate = 1;
        name_len -= 4;
    }
    int op = -1;
    for (int i = 0; i < TGSI_OP_COUNT; i++)
        if (strlen(tgsi_op_names[i]) == name_len && strncmp(tgsi_op_names[i], name, name_len) == 0) op = i;
    if (op < 0) return fail(p, "opcode %.*s not supported", (int)name_len, name);
    inst.op = (uint8_t)op;
    struct op_shape sh = op_shape(op);
    inst.num_dst = sh.num_dst;
    inst.num_src = sh.num_src;
    int first = 1;
    if (sh.num_dst) {
        skip_spaces(&s);
        if (parse_dst(p, &s, &inst.dst)) return -1;
        first = 0;
    }
    for (int i = 0; i < sh.num_src; i++) {
        if (!first && !accept_char(&s, ',')) return fail(p, "expected ',' at '%.20s'", s);
        skip_spaces(&s);
        if (parse_src(p, &s, op, i, &inst.src[i])) return -1;
        first = 0;
    }
    if (sh.is_tex) {
        if (!accept_char(&s, ',')) return fail(p, "expected texture target");
        skip_spaces(&s);
        int t = match_name(&s, texture_names, TGSI_TEX_COUNT);
        if (t < 0 || !tex_target_supported(op, t))
            return fail(p, "texture target '%.16s' not supported for %s", t < 0 ? s : texture_names[t],
                        tgsi_op_names[op]);
        inst.tex_target = (uint8_t)t;
        int sampler_src = op == TGSI_OP_TXD ? 3 : 1;
        if (inst.src[sampler_src].file != TGSI_F_SAMP) return fail(p, "%s without a SAMP operand", tgsi_op_names[op]);
        for (int i = 0; i < sh.num_src; i++)
            if (i != sampler_src && inst.src[i].file == TGSI_F_SAMP) return fail(p, "SAMP used as a coordinate");
        if (accept_char(&s, ',')) {
            /* texel offset: FILE[n].xyz */
            skip_spaces(&s);
            struct tgsi_src *off = &inst.offset;
            int f = parse_file(p, &s);
            if (f < 0) return -1;
            if (f != TGSI_F_IMM && f != TGSI_F_TEMP && f != TGSI_F_CONST && f != TGSI_F_IN)
                return fail(p, "texel offset from %s not supported", file_names[f]);
            long index;
            if (parse_bracket_index(p, &s, &index) || check_index(p, f, index)) return -1;
            if (f == TGSI_F_CONST) return fail(p, "texel offset from CONST not supported");
            off->file = (uint8_t)f;
            off->index = (int32_t)index;
            grow_register_counts(prog, f, index);
            if (!accept_char(&s, '.')) return fail(p, "bad texel offset swizzle");
            for (int c = 0; c < 3; c++) {
                int comp = component_of(*s);
                if (comp < 0) return fail(p, "bad texel offset swizzle");
                off->swizzle[c] = (uint8_t)comp;
                s++;
            }
            inst.num_offsets = 1;
            if (*s == ',') return fail(p, "more than one texel offset not supported");
        }
        if (op == TGSI_OP_TXQ && inst.num_offsets) return fail(p, "TXQ with an offset");
        prog->uses_texture = 1;
    } else if (!first && *s == ',') {
        return fail(p, "unexpected operand at '%.20s'", s);
    }
    skip_spaces(&s);
    if (accept_char(&s, ':')) {
        long label;
        if (!sh.has_label || !parse_int(&s, &label) || label < 0) return fail(p, "bad label");
        inst.label = (int32_t)label;
        skip_spaces(&s);
    }
    if (*s) return fail(p, "trailing text '%.20s'", s);
    if ((op == TGSI_OP_IF || op == TGSI_OP_UIF || op == TGSI_OP_ELSE) && inst.label < 0)
        return fail(p, "%s without a label", tgsi_op_names[op]);
    if (prog->num_insts >= TGSI_MAX_INSTS) return fail(p, "too many instructions");
    if (prog->num_insts == p->insts_cap) {
        unsigned cap = p->insts_cap ? p->insts_cap * 2 : 64;
        struct tgsi_inst *grown = realloc(prog->insts, cap * sizeof *grown);
        if (!grown) return fail(p, "out of memory");
        prog->insts = grown;
        p->insts_cap = cap;
    }
    prog->insts[prog->num_insts++] = inst;
    return 0;
}

/* A FLT32 immediate is printed "%10.4f": accept it only if that text names
 * exactly one float (no other float prints the same), else the value is lost. */
static int parse_flt32(const char **s, uint32_t *bits)
{
    skip_spaces(s);
    const char *start = *s;
    char *end;
    if (start[0] == '0' && start[1] == 'x') {
        /* tgsi_dump_str with TGSI_DUMP_FLOAT_AS_HEX: the exact bits */
        errno = 0;
        unsigned long long v = strtoull(start + 2, &end, 16);
        if (end != start + 10 || errno || v > 0xffffffffull) return -1;
        *bits = (uint32_t)v;
        *s = end;
        return 0;
    }
    double v = strtod(start, &end);
    if (end == start || !isfinite(v)) return -1;
    *s = end;
    float f = (float)v;
    char text[64], printed[64];
    size_t len = (size_t)(end - start);
    if (len >= sizeof text) return -1;
    memcpy(text, start, len);
    text[len] = 0;
    snprintf(printed, sizeof printed, "%.4f", (double)f);
    if (strcmp(printed, text) != 0) return -1;
    /* neighbours must print differently */
    float below = nextafterf(f, -INFINITY), above = nextafterf(f, INFINITY);
    char nb[64], na[64];
    snprintf(nb, sizeof nb, "%.4f", (double)below);
    snprintf(na, sizeof na, "%.4f", (double)above);
    if (strcmp(nb, text) == 0 || strcmp(na, text) == 0) return -2;
    memcpy(bits, &f, sizeof f);
    return 0;
}

static int parse_immediate(struct parser *p, const char *s)
{
    struct tbr_tgsi_program *prog = p->prog;
    long index;
    if (parse_bracket_index(p, &s, &index)) return -1;
    if (index != (long)prog->num_imms || index >= TGSI_MAX_IMMS)
        return fail(p, "immediate IMM[%ld] out of order or too many", index);
    skip_spaces(&s);
    int type;
    if (accept_word(&s, "FLT32"))
        type = 0;
    else if (accept_word(&s, "UINT32"))
        type = 1;
    else if (accept_word(&s, "INT32"))
        type = 2;
    else
        return fail(p, "immediate type '%.10s' not supported", s);
    skip_spaces(&s);
    if (!accept_char(&s, '{')) return fail(p, "expected '{'");
    unsigned n = 0;
    for (;;) {
        skip_spaces(&s);
        if (accept_char(&s, '}')) break;
        if (n && !accept_char(&s, ',')) return fail(p, "expected ',' in immediate");
        if (n >= 4) return fail(p, "more than 4 immediate components");
        uint32_t bits;
        if (type == 0) {
            int r = parse_flt32(&s, &bits);
            if (r == -2)
                return fail(p,
                            "FLT32 immediate IMM[%ld] component %u: the printed text does not "
                            "identify the float (tgsi_dump prints 4 decimals)",
                            index, n);
            if (r) return fail(p, "bad FLT32 immediate");
        } else {
            skip_spaces(&s);
            char *end;
            errno = 0;
            if (type == 1) {
                if (*s == '-') return fail(p, "negative UINT32 immediate");
                unsigned long long v = strtoull(s, &end, 10);
                if (end == s || errno || v > 0xffffffffull) return fail(p, "bad UINT32 immediate");
                bits = (uint32_t)v;
            } else {
                long long v = strtoll(s, &end, 10);
                if (end == s || errno || v < INT32_MIN || v > INT32_MAX) return fail(p, "bad INT32 immediate");
                bits = (uint32_t)(int32_t)v;
            }
            s = end;
        }
        prog->imm[index][n] = bits;
        prog->imm_valid[index] |= (uint8_t)(1u << n);
        n++;
    }
    skip_spaces(&s);
    if (*s) return fail(p, "trailing text after immediate");
    prog->num_imms++;
    return 0;
}

static int parse_declaration(struct parser *p, const char *s)
{
    struct tbr_tgsi_program *prog = p->prog;
    if (strncmp(s, "SVIEW[", 6) == 0 || strncmp(s, "SAMP[", 5) == 0) {
        /* sampler state and views: the sampler callbacks know them */
        return 0;
    }
    int f = parse_file(p, &s);
    if (f < 0) return -1;
    if (f != TGSI_F_IN && f != TGSI_F_OUT && f != TGSI_F_TEMP && f != TGSI_F_CONST)
        return fail(p, "declaration of %s not supported", file_names[f]);
    long first, last;
    if (f == TGSI_F_CONST && strncmp(s, "[", 1) == 0) {
        /* "CONST[0..3]" or "CONST[1][0..3]" */
        const char *t = s + 1;
        long a;
        if (parse_int(&t, &a) && *t == ']' && t[1] == '[') {
            if (a >= 4) return fail(p, "constant buffer %ld not supported", a);
            s = t + 1;
        }
    }
    if (!accept_char(&s, '[') || !parse_int(&s, &first) || first < 0) return fail(p, "bad declaration range");
    last = first;
    if (accept_char(&s, '.')) {
        if (!accept_char(&s, '.') || !parse_int(&s, &last) || last < first) return fail(p, "bad declaration range");
    }
    if (!accept_char(&s, ']')) return fail(p, "bad declaration range");
    uint8_t usage;
    if (parse_mask(&s, &usage)) return fail(p, "bad usage mask");
    if (f == TGSI_F_CONST) {
        /* bounds come from the bound buffer's size at run time */
        return 0;
    }
    if (check_index(p, f, last)) return -1;
    if (f == TGSI_F_TEMP) {
        grow_register_counts(prog, f, last);
        /* ", ARRAY(n)" / ", LOCAL" only matter for indirect addressing, which we reject */
        return 0;
    }
    int semantic = -1, semantic_index = 0, interpolate = TBR_TGSI_INTERPOLATE_CONSTANT;
    while (accept_char(&s, ',')) {
        skip_spaces(&s);
        int v;
        /* the semantic comes first: "DCL IN[0], COLOR, COLOR" is COLOR interpolated as COLOR */
        if (semantic < 0 &&
            (v = match_name(&s, semantic_names, (int)(sizeof semantic_names / sizeof *semantic_names))) >= 0) {
            semantic = v;
            if (accept_char(&s, '[')) {
                long si;
                if (!parse_int(&s, &si) || si < 0 || si > 255 || !accept_char(&s, ']'))
                    return fail(p, "bad semantic index");
                semantic_index = (int)si;
            }
        } else if ((v = match_name(&s, interpolate_names, 4)) >= 0) {
            interpolate = v;
        } else if (accept_word(&s, "CENTER") || accept_word(&s, "CENTROID") || accept_word(&s, "SAMPLE")) {
            /* tgsi_exec evaluates every input at the pixel center regardless */
        } else {
            return fail(p, "declaration attribute '%.20s' not supported", s);
        }
    }
    skip_spaces(&s);
    if (*s) return fail(p, "trailing text in declaration: '%.20s'", s);
    if (semantic < 0) return fail(p, "declaration without a semantic");
    if (f == TGSI_F_IN) {
        if (prog->num_input_decls >= TGSI_MAX_DECLS) return fail(p, "too many input declarations");
        if (semantic == TBR_TGSI_SEMANTIC_FACE && first != last) return fail(p, "FACE input range");
        struct tgsi_input_decl *d = &prog->input_decls[prog->num_input_decls++];
        d->first = (int)first;
        d->last = (int)last;
        d->usage_mask = usage;
        d->semantic_name = (uint8_t)semantic;
        d->interpolate = (uint8_t)interpolate;
        for (long i = first; i <= last; i++) {
            struct tbr_tgsi_io *io = &prog->inputs[i];
            io->semantic_name = (uint8_t)semantic;
            io->semantic_index = (uint8_t)(semantic_index + (i - first));
            io->interpolate = (uint8_t)interpolate;
            io->usage_mask = usage;
            prog->input_declared[i] = 1;
            if ((unsigned)i + 1 > prog->num_inputs) prog->num_inputs = (unsigned)i + 1;
        }
    } else {
        /* softpipe's exec_run consumes COLOR, POSITION (z) and STENCIL (y) */
        if (semantic != TBR_TGSI_SEMANTIC_COLOR && semantic != TBR_TGSI_SEMANTIC_POSITION &&
            semantic != TBR_TGSI_SEMANTIC_STENCIL)
            return fail(p, "fragment output semantic %s not supported", semantic_names[semantic]);
        for (long i = first; i <= last; i++) {
            struct tbr_tgsi_io *io = &prog->outputs[i];
            io->semantic_name = (uint8_t)semantic;
            io->semantic_index = (uint8_t)(semantic_index + (i - first));
            io->usage_mask = usage;
            prog->output_declared[i] = 1;
            if ((unsigned)i + 1 > prog->num_outputs) prog->num_outputs = (unsigned)i + 1;
        }
    }
    return 0;
}

static int parse_property(struct parser *p, const char *s)
{
    struct tbr_tgsi_program *prog = p->prog;
    if (accept_word(&s, "FS_COLOR0_WRITES_ALL_CBUFS")) {
        long v;
        skip_spaces(&s);
        if (!parse_int(&s, &v)) return fail(p, "bad property value");
        prog->color0_writes_all_cbufs = v != 0;
    } else if (accept_word(&s, "FS_COORD_ORIGIN")) {
        skip_spaces(&s);
        if (accept_word(&s, "UPPER_LEFT"))
            prog->coord_origin_lower_left = 0;
        else if (accept_word(&s, "LOWER_LEFT"))
            prog->coord_origin_lower_left = 1;
        else
            return fail(p, "bad FS_COORD_ORIGIN");
    } else if (accept_word(&s, "FS_COORD_PIXEL_CENTER")) {
        skip_spaces(&s);
        if (accept_word(&s, "HALF_INTEGER"))
            prog->coord_pixel_center_integer = 0;
        else if (accept_word(&s, "INTEGER"))
            prog->coord_pixel_center_integer = 1;
        else
            return fail(p, "bad FS_COORD_PIXEL_CENTER");
    } else if (accept_word(&s, "FS_EARLY_DEPTH_STENCIL") || accept_word(&s, "FS_DEPTH_LAYOUT") ||
               accept_word(&s, "NEXT_SHADER") || accept_word(&s, "SEPARABLE_PROGRAM") ||
               accept_word(&s, "LEGACY_MATH_RULES")) {
        /* not read by tgsi_exec */
        return 0;
    } else {
        return fail(p, "property '%.30s' not supported", s);
    }
    return 0;
}

/* Control flow must nest (IF/ELSE/ENDIF, BGNLOOP/ENDLOOP) and the IF/ELSE
 * labels must point at the matching ELSE/ENDIF, as tgsi_exec's jumps assume. */
static int check_control_flow(struct parser *p)
{
    struct tbr_tgsi_program *prog = p->prog;
    int stack[64];
    int depth = 0;
    for (unsigned pc = 0; pc < prog->num_insts; pc++) {
        const struct tgsi_inst *in = &prog->insts[pc];
        switch (in->op) {
            case TGSI_OP_IF:
            case TGSI_OP_UIF:
            case TGSI_OP_BGNLOOP:
                if (depth == 64) return fail(p, "control flow nested too deep");
                stack[depth++] = (int)pc;
                break;
            case TGSI_OP_ELSE: {
                if (!depth) return fail(p, "ELSE outside IF");
                const struct tgsi_inst *open = &prog->insts[stack[depth - 1]];
                if (open->op != TGSI_OP_IF && open->op != TGSI_OP_UIF) return fail(p, "ELSE outside IF");
                if (open->label != (int)pc)
                    return fail(p, "IF at %d jumps to %d, not to its ELSE at %u", stack[depth - 1], open->label, pc);
                stack[depth - 1] = (int)pc;
                break;
            }
            case TGSI_OP_ENDIF: {
                if (!depth) return fail(p, "ENDIF outside IF");
                const struct tgsi_inst *open = &prog->insts[stack[depth - 1]];
                if (open->op != TGSI_OP_IF && open->op != TGSI_OP_UIF && open->op != TGSI_OP_ELSE)
                    return fail(p, "ENDIF outside IF");
                if (open->label != (int)pc)
                    return fail(p, "branch at %d jumps to %d, not to its ENDIF at %u", stack[depth - 1], open->label,
                                pc);
                depth--;
                break;
            }
            case TGSI_OP_ENDLOOP:
                if (!depth || prog->insts[stack[depth - 1]].op != TGSI_OP_BGNLOOP)
                    return fail(p, "ENDLOOP without BGNLOOP");
                depth--;
                break;
            case TGSI_OP_BRK:
            case TGSI_OP_CONT: {
                int in_loop = 0;
                for (int i = 0; i < depth; i++)
                    if (prog->insts[stack[i]].op == TGSI_OP_BGNLOOP) in_loop = 1;
                if (!in_loop) return fail(p, "%s outside a loop", tgsi_op_names[in->op]);
                break;
            }
            default: break;
        }
    }
    if (depth) return fail(p, "unterminated control flow");
    if (!prog->num_insts || prog->insts[prog->num_insts - 1].op != TGSI_OP_END)
        return fail(p, "program does not end with END");
    return 0;
}

/* Every IN read must be declared (tgsi_exec would read stale registers). */
static int check_registers(struct parser *p)
{
    struct tbr_tgsi_program *prog = p->prog;
    for (unsigned pc = 0; pc < prog->num_insts; pc++) {
        const struct tgsi_inst *in = &prog->insts[pc];
        for (unsigned i = 0; i < in->num_src; i++) {
            const struct tgsi_src *s = &in->src[i];
            if (s->file == TGSI_F_IN && !prog->input_declared[s->index])
                return fail(p, "IN[%d] read but not declared", s->index);
            if (s->file == TGSI_F_IMM && (unsigned)s->index >= prog->num_imms)
                return fail(p, "IMM[%d] read but not defined", s->index);
            if (s->file == TGSI_F_OUT && !prog->output_declared[s->index])
                return fail(p, "OUT[%d] read but not declared", s->index);
        }
        if (in->num_offsets) {
            const struct tgsi_src *s = &in->offset;
            if ((s->file == TGSI_F_IN && !prog->input_declared[s->index]) ||
                (s->file == TGSI_F_IMM && (unsigned)s->index >= prog->num_imms))
                return fail(p, "texel offset register not declared");
        }
    }
    return 0;
}

/* Machine rows of the register file a source reads or a destination writes
 * (channel x; see TGSI_ROW_NULL in tgsi_program.h). */
static uint32_t register_row(const struct tbr_tgsi_program *prog, int file, int32_t index)
{
    switch (file) {
        case TGSI_F_TEMP: return prog->row_temps + 4u * (uint32_t)index;
        case TGSI_F_IN: return prog->row_inputs + 4u * (uint32_t)index;
        case TGSI_F_OUT: return prog->row_outputs + 4u * (uint32_t)index;
        case TGSI_F_IMM: return prog->row_imms + 4u * (uint32_t)index;
        default: return TGSI_ROW_NULL;
    }
}

/* The constant row of CONST[buffer][dword / 4].(dword % 4), added if new. */
static int const_row(struct tbr_tgsi_program *prog, unsigned *cap, uint32_t buffer, uint64_t dword, uint32_t *row)
{
    for (unsigned k = 0; k < prog->num_const_slots; k++)
        if (prog->const_slots[k].buffer == buffer && prog->const_slots[k].dword == dword) {
            *row = prog->row_consts + k;
            return 0;
        }
    if (prog->num_const_slots == *cap) {
        unsigned n = *cap ? *cap * 2 : 16;
        struct tgsi_const_slot *grown = realloc(prog->const_slots, n * sizeof *grown);
        if (!grown) return -1;
        prog->const_slots = grown;
        *cap = n;
    }
    prog->const_slots[prog->num_const_slots] = (struct tgsi_const_slot){buffer, dword};
    *row = prog->row_consts + prog->num_const_slots++;
    return 0;
}

static int resolve_src(struct tbr_tgsi_program *prog, unsigned *cap, struct tgsi_src *src, int integer,
                       int with_modifiers)
{
    src->mods = 0;
    if (with_modifiers) {
        if (src->absolute) src->mods |= TGSI_MOD_ABS;
        if (src->negate) src->mods |= integer ? TGSI_MOD_NEG_INT : TGSI_MOD_NEG_FLOAT;
    }
    for (unsigned c = 0; c < 4; c++) {
        if (src->file == TGSI_F_CONST) {
            uint32_t buffer = src->has_dimension ? (uint32_t)src->dimension : 0;
            if (const_row(prog, cap, buffer, (uint64_t)src->index * 4 + src->swizzle[c], &src->row[c])) return -1;
        } else {
            uint32_t base = register_row(prog, src->file, src->index);
            src->row[c] = base == TGSI_ROW_NULL ? TGSI_ROW_NULL : base + src->swizzle[c];
        }
    }
    return 0;
}

int tgsi_resolve_operands(struct tbr_tgsi_program *prog)
{
    /* output registers written or read, declared or not (tgsi_exec has them all) */
    uint32_t outputs = prog->num_outputs;
    for (unsigned pc = 0; pc < prog->num_insts; pc++) {
        const struct tgsi_inst *in = &prog->insts[pc];
        if (in->num_dst && in->dst.file == TGSI_F_OUT && (uint32_t)in->dst.index + 1 > outputs)
            outputs = (uint32_t)in->dst.index + 1;
        for (unsigned i = 0; i < in->num_src; i++)
            if (in->src[i].file == TGSI_F_OUT && (uint32_t)in->src[i].index + 1 > outputs)
                outputs = (uint32_t)in->src[i].index + 1;
    }
    prog->row_temps = TGSI_ROW_FIRST_REG;
    prog->row_inputs = prog->row_temps + 4 * prog->num_temps;
    prog->row_outputs = prog->row_inputs + 4 * prog->num_inputs;
    prog->row_imms = prog->row_outputs + 4 * outputs;
    prog->row_consts = prog->row_imms + 4 * prog->num_imms;
    prog->imm_rows = calloc((size_t)prog->num_imms * 4 + 1, sizeof *prog->imm_rows);
    if (!prog->imm_rows) return -1;
    for (unsigned i = 0; i < prog->num_imms; i++)
        for (unsigned c = 0; c < 4; c++)
            for (unsigned l = 0; l < 4; l++) prog->imm_rows[i * 4 + c][l] = prog->imm[i][c];
    unsigned cap = 0;
    for (unsigned pc = 0; pc < prog->num_insts; pc++) {
        struct tgsi_inst *in = &prog->insts[pc];
        in->dst.row = in->num_dst && in->dst.file != TGSI_F_NULL ? register_row(prog, in->dst.file, in->dst.index)
                                                                 : TGSI_ROW_SINK;
        for (unsigned i = 0; i < in->num_src; i++)
            if (resolve_src(prog, &cap, &in->src[i], src_is_integer(in->op, (int)i), 1)) return -1;
        /* fetch_texel_offsets fetches the offset without its modifiers */
        if (in->num_offsets && resolve_src(prog, &cap, &in->offset, 1, 0)) return -1;
        in->plain = !in->saturate;
        for (unsigned i = 0; i < in->num_src; i++) {
            if (in->src[i].mods) in->plain = 0;
            for (unsigned c = 0; c < 4; c++)
                for (unsigned later = c + 1; later < 4; later++)
                    if ((in->dst.write_mask >> c & 1u) && (in->dst.write_mask >> later & 1u) &&
                        in->src[i].row[later] == in->dst.row + c)
                        in->plain = 0;
        }
    }
    prog->num_rows = prog->row_consts + prog->num_const_slots;
    return 0;
}

struct tbr_tgsi_program *tbr_tgsi_parse(const char *text, char *err, size_t errlen)
{
    struct parser p = {0};
    p.err = err;
    p.errlen = errlen;
    if (err && errlen) err[0] = 0;
    struct tbr_tgsi_program *prog = calloc(1, sizeof *prog);
    if (!prog) {
        fail(&p, "out of memory");
        return NULL;
    }
    p.prog = prog;
    if (!text) {
        fail(&p, "no text");
        tbr_tgsi_free(prog);
        return NULL;
    }
    int seen_header = 0;
    const char *line = text;
    char buf[1024];
    while (*line && !p.failed) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        p.line_no++;
        if (len >= sizeof buf) {
            fail(&p, "line too long");
            break;
        }
        memcpy(buf, line, len);
        buf[len] = 0;
        while (len && (buf[len - 1] == ' ' || buf[len - 1] == '\r' || buf[len - 1] == '\t')) buf[--len] = 0;
        line = nl ? nl + 1 : line + len;
        const char *s = buf;
        skip_spaces(&s);
        if (!*s) continue;
        if (!seen_header) {
            if (strcmp(s, "FRAG") != 0) {
                fail(&p, "not a fragment shader (header '%.10s')", s);
                break;
            }
            seen_header = 1;
            continue;
        }
        if (accept_word(&s, "PROPERTY")) {
            skip_spaces(&s);
            parse_property(&p, s);
        } else if (accept_word(&s, "DCL")) {
            skip_spaces(&s);
            parse_declaration(&p, s);
        } else if (strncmp(s, "IMM[", 4) == 0) {
            s += 3;
            parse_immediate(&p, s);
        } else if (isdigit((unsigned char)*s)) {
            parse_instruction(&p, s);
        } else {
            fail(&p, "unrecognised line '%.30s'", s);
        }
    }
    if (!p.failed && !seen_header) fail(&p, "empty shader text");
    if (!p.failed) check_control_flow(&p);
    if (!p.failed) check_registers(&p);
    if (!p.failed && tgsi_resolve_operands(prog)) fail(&p, "out of memory");
    if (p.failed) {
        tbr_tgsi_free(prog);
        return NULL;
    }
    return prog;
}

void tbr_tgsi_free(struct tbr_tgsi_program *prog)
{
    if (!prog) return;
    free(prog->insts);
    free(prog->const_slots);
    free(prog->imm_rows);
    free(prog);
}

unsigned tbr_tgsi_num_inputs(const struct tbr_tgsi_program *prog) { return prog->num_inputs; }
unsigned tbr_tgsi_num_outputs(const struct tbr_tgsi_program *prog) { return prog->num_outputs; }

const struct tbr_tgsi_io *tbr_tgsi_input(const struct tbr_tgsi_program *prog, unsigned i)
{
    return i < prog->num_inputs && prog->input_declared[i] ? &prog->inputs[i] : NULL;
}

const struct tbr_tgsi_io *tbr_tgsi_output(const struct tbr_tgsi_program *prog, unsigned i)
{
    return i < prog->num_outputs && prog->output_declared[i] ? &prog->outputs[i] : NULL;
}

int tbr_tgsi_uses_texture(const struct tbr_tgsi_program *prog) { return prog->uses_texture; }

int tbr_tgsi_color0_writes_all_cbufs(const struct tbr_tgsi_program *prog) { return prog->color0_writes_all_cbufs; }

uint32_t tbr_tgsi_sampler_views(const struct tbr_tgsi_program *prog)
{
    uint32_t units = 0;
    for (unsigned i = 0; i < prog->num_insts; i++)
        for (unsigned k = 0; k < prog->insts[i].num_src && k < 4; k++) {
            const struct tgsi_src *src = &prog->insts[i].src[k];
            if (src->file == TGSI_F_SAMP && src->index >= 0 && src->index < 32) units |= 1u << src->index;
        }
    return units;
}

int tbr_tgsi_coord_origin_lower_left(const struct tbr_tgsi_program *prog) { return prog->coord_origin_lower_left; }

int tbr_tgsi_coord_pixel_center_integer(const struct tbr_tgsi_program *prog)
{
    return prog->coord_pixel_center_integer;
}

const char *tbr_tgsi_supported_opcodes(void)
{
#define TGSI_OP_WORD(name) #name " "
    return TGSI_OPCODE_LIST(TGSI_OP_WORD);
#undef TGSI_OP_WORD
}
