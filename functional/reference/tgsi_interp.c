/*
 * tgsi_interp.c - execution of a parsed TGSI fragment shader on one quad, the
 * way Mesa 22.3.6's tgsi_exec.c does it for softpipe (sp_fs_exec.c exec_run):
 * the same single-precision operations in the same order and the same libm
 * calls (fmaxf/fminf for MAX/MIN and _SAT, powf(2, x) for EX2, logf(x) *
 * 1.442695f for LG2, ...), the same execution masks (helper lanes execute; KILL
 * only sets the kill mask) and the same argument marshalling of the texture
 * instructions to the sampler.
 *
 * tgsi_exec's registers are not reset between quads, so a lane that reads a
 * register this run has not written sees softpipe's leftovers. Every register
 * channel therefore carries a per-lane "valid" mask (computed in this run from
 * this run's inputs); values derived from invalid lanes stay invalid, so the
 * caller learns which outputs are reproduced. Branches and kills decided by an
 * invalid active lane abort the run.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tgsi_program.h"

#define ALL_LANES     0xfu
#define MAX_STEPS     1000000
#define MAX_NESTING   64
#define ROWS_ON_STACK 2048 /* larger programs allocate their rows */

/* One register channel in the quad's 4 lanes (a row, see TGSI_ROW_NULL). */
union lanes {
    float f[4];
    uint32_t u[4];
    int32_t i[4];
};

struct machine {
    const struct tbr_tgsi_program *prog;
    const struct tbr_tgsi_fs_quad *quad;
    union lanes *rows; /* prog->num_rows */
    /* per row: lanes computed in this run (bit n = lane n); only maintained if
     * track, the reads of softpipe's leftovers being invisible otherwise */
    uint8_t *valid;
    int track;
    unsigned exec_mask, cond_mask, loop_mask, cont_mask, kill_mask;
    unsigned cond_stack[MAX_NESTING], loop_stack[MAX_NESTING], cont_stack[MAX_NESTING];
    int loop_label_stack[MAX_NESTING];
    int cond_top, loop_top, cont_top, loop_label_top;
};

/* The per-operand helpers are small and run for every channel of every
 * instruction: inlined, their calls cost more than their work. */
#define HOT static inline __attribute__((always_inline))

static const union lanes zero_lanes = {{0.0f, 0.0f, 0.0f, 0.0f}};

static void update_exec_mask(struct machine *m) { m->exec_mask = m->cond_mask & m->loop_mask & m->cont_mask; }

/* tgsi_exec fetch_src_file_channel + fetch_source modifiers: the row of dst
 * channel chan, or tmp holding it with |x| then negation applied. */
HOT const union lanes *fetch(const struct machine *m, const struct tgsi_src *src, unsigned chan, union lanes *tmp)
{
    const union lanes *v = &m->rows[src->row[chan]];
    if (!src->mods) return v;
    *tmp = *v;
    if (src->mods & TGSI_MOD_ABS) /* float sources only (parser) */
        for (int l = 0; l < 4; l++) tmp->f[l] = fabsf(tmp->f[l]);
    if (src->mods & TGSI_MOD_NEG_FLOAT)
        for (int l = 0; l < 4; l++) tmp->f[l] = -tmp->f[l];
    else if (src->mods & TGSI_MOD_NEG_INT)
        for (int l = 0; l < 4; l++) tmp->u[l] = 0u - tmp->u[l];
    return tmp;
}

/* Valid lanes of what fetch returns (modifiers keep validity). */
HOT unsigned fetch_valid(const struct machine *m, const struct tgsi_src *src, unsigned chan)
{
    return m->track ? m->valid[src->row[chan]] : ALL_LANES;
}

/* tgsi_exec store_dest: only lanes of the execution mask; _SAT as
 * fminf(fmaxf(x, 0), 1) (NaN becomes 0). v_valid: v's valid lanes. */
HOT void store(struct machine *m, const struct tgsi_inst *in, unsigned chan, const union lanes *v, unsigned v_valid)
{
    const uint32_t row = in->dst.row + chan;
    union lanes *dst = &m->rows[row];
    const unsigned em = m->exec_mask;
    if (in->saturate) {
        for (unsigned l = 0; l < 4; l++)
            if (em & (1u << l)) dst->f[l] = fminf(fmaxf(v->f[l], 0.0f), 1.0f);
    } else if (em == ALL_LANES) {
        *dst = *v;
    } else {
        for (unsigned l = 0; l < 4; l++)
            if (em & (1u << l)) dst->u[l] = v->u[l];
    }
    if (m->track) m->valid[row] = (uint8_t)((m->valid[row] & ~em) | (v_valid & em));
}

/* Store the same value to every channel of the write mask (scalar opcodes, DPn). */
static void store_replicated(struct machine *m, const struct tgsi_inst *in, const union lanes *v, unsigned v_valid)
{
    for (unsigned c = 0; c < 4; c++)
        if (in->dst.write_mask & (1u << c)) store(m, in, c, v, v_valid);
}

/* Lane-wise operations of tgsi_exec's micro_* functions (absent sources: zero
 * lanes). Returns the lanes whose result C leaves undefined (Mesa's would be
 * whatever the hardware gives; we do not guess): they are not valid. */
HOT unsigned alu(int op, const union lanes *a, const union lanes *b, const union lanes *c, union lanes *d)
{
    union lanes r;
    unsigned undefined = 0;
    /* one lane loop per opcode (the switch outside the loop) */
#define LANES(stmt)                                                                                                    \
    for (int l = 0; l < 4; l++) {                                                                                      \
        const float fa = a->f[l], fb = b->f[l], fc = c->f[l];                                                          \
        const int32_t ia = a->i[l], ib = b->i[l];                                                                      \
        const uint32_t ua = a->u[l], ub = b->u[l], uc = c->u[l];                                                       \
        (void)fa;                                                                                                      \
        (void)fb;                                                                                                      \
        (void)fc;                                                                                                      \
        (void)ia;                                                                                                      \
        (void)ib;                                                                                                      \
        (void)ua;                                                                                                      \
        (void)ub;                                                                                                      \
        (void)uc;                                                                                                      \
        stmt;                                                                                                          \
    }                                                                                                                  \
    break
    switch (op) {
        case TGSI_OP_MOV: LANES(r.u[l] = ua);
        case TGSI_OP_RCP: LANES(r.f[l] = 1.0f / fa);
        case TGSI_OP_RSQ: LANES(r.f[l] = 1.0f / sqrtf(fa));
        case TGSI_OP_SQRT: LANES(r.f[l] = sqrtf(fa));
        case TGSI_OP_EX2: LANES(r.f[l] = powf(2.0f, fa));
        case TGSI_OP_LG2: LANES(r.f[l] = logf(fa) * 1.442695f);
        case TGSI_OP_POW: LANES(r.f[l] = powf(fa, fb));
        case TGSI_OP_COS: LANES(r.f[l] = cosf(fa));
        case TGSI_OP_SIN: LANES(r.f[l] = sinf(fa));
        case TGSI_OP_MUL: LANES(r.f[l] = fa * fb);
        case TGSI_OP_ADD: LANES(r.f[l] = fa + fb);
        case TGSI_OP_DIV: LANES(r.f[l] = fa / fb);
        case TGSI_OP_MIN: LANES(r.f[l] = fminf(fa, fb));
        case TGSI_OP_MAX: LANES(r.f[l] = fmaxf(fa, fb));
        case TGSI_OP_SLT: LANES(r.f[l] = fa < fb ? 1.0f : 0.0f);
        case TGSI_OP_SGE: LANES(r.f[l] = fa >= fb ? 1.0f : 0.0f);
        case TGSI_OP_SEQ: LANES(r.f[l] = fa == fb ? 1.0f : 0.0f);
        case TGSI_OP_SGT: LANES(r.f[l] = fa > fb ? 1.0f : 0.0f);
        case TGSI_OP_SLE: LANES(r.f[l] = fa <= fb ? 1.0f : 0.0f);
        case TGSI_OP_SNE: LANES(r.f[l] = fa != fb ? 1.0f : 0.0f);
        case TGSI_OP_MAD: LANES(r.f[l] = fa * fb + fc);
        case TGSI_OP_LRP: LANES(r.f[l] = fa * (fb - fc) + fc);
        case TGSI_OP_LDEXP: LANES(r.f[l] = ldexpf(fa, ib));
        case TGSI_OP_FRC: LANES(r.f[l] = fa - floorf(fa));
        case TGSI_OP_FLR: LANES(r.f[l] = floorf(fa));
        case TGSI_OP_CEIL: LANES(r.f[l] = ceilf(fa));
        case TGSI_OP_TRUNC: LANES(r.f[l] = truncf(fa));
        case TGSI_OP_ROUND: LANES(r.f[l] = rintf(fa)); /* _mesa_roundevenf */
        case TGSI_OP_SSG: LANES(r.f[l] = fa < 0.0f ? -1.0f : fa > 0.0f ? 1.0f : 0.0f);
        case TGSI_OP_CMP: LANES(r.u[l] = fa < 0.0f ? ub : uc);
        case TGSI_OP_UCMP: LANES(r.u[l] = ua ? ub : uc);
        case TGSI_OP_FSEQ: LANES(r.u[l] = fa == fb ? ~0u : 0u);
        case TGSI_OP_FSGE: LANES(r.u[l] = fa >= fb ? ~0u : 0u);
        case TGSI_OP_FSLT: LANES(r.u[l] = fa < fb ? ~0u : 0u);
        case TGSI_OP_FSNE: LANES(r.u[l] = fa != fb ? ~0u : 0u);
        case TGSI_OP_I2F: LANES(r.f[l] = (float)ia);
        case TGSI_OP_U2F: LANES(r.f[l] = (float)ua);
        case TGSI_OP_NOT: LANES(r.u[l] = ~ua);
        case TGSI_OP_AND: LANES(r.u[l] = ua & ub);
        case TGSI_OP_OR: LANES(r.u[l] = ua | ub);
        case TGSI_OP_XOR: LANES(r.u[l] = ua ^ ub);
        case TGSI_OP_SHL: LANES(r.u[l] = ua << (ub & 0x1f));
        case TGSI_OP_USHR: LANES(r.u[l] = ua >> (ub & 0x1f));
        case TGSI_OP_ISHR: LANES(r.i[l] = ia >> (ib & 0x1f));
        case TGSI_OP_INEG: LANES(r.u[l] = 0u - ua);
        case TGSI_OP_IABS: LANES(r.u[l] = ia >= 0 ? ua : 0u - ua);
        case TGSI_OP_ISSG: LANES(r.i[l] = ia < 0 ? -1 : ia > 0 ? 1 : 0);
        case TGSI_OP_IMAX: LANES(r.i[l] = ia > ib ? ia : ib);
        case TGSI_OP_IMIN: LANES(r.i[l] = ia < ib ? ia : ib);
        case TGSI_OP_UMAX: LANES(r.u[l] = ua > ub ? ua : ub);
        case TGSI_OP_UMIN: LANES(r.u[l] = ua < ub ? ua : ub);
        case TGSI_OP_ISGE: LANES(r.i[l] = ia >= ib ? -1 : 0);
        case TGSI_OP_ISLT: LANES(r.i[l] = ia < ib ? -1 : 0);
        case TGSI_OP_USEQ: LANES(r.u[l] = ua == ub ? ~0u : 0u);
        case TGSI_OP_USNE: LANES(r.u[l] = ua != ub ? ~0u : 0u);
        case TGSI_OP_USGE: LANES(r.u[l] = ua >= ub ? ~0u : 0u);
        case TGSI_OP_USLT: LANES(r.u[l] = ua < ub ? ~0u : 0u);
        case TGSI_OP_UADD: LANES(r.u[l] = ua + ub);
        case TGSI_OP_UMUL: LANES(r.u[l] = ua * ub);
        case TGSI_OP_UMAD: LANES(r.u[l] = ua * ub + uc);
        case TGSI_OP_UDIV: LANES(r.u[l] = ub ? ua / ub : ~0u);
        case TGSI_OP_UMOD: LANES(r.u[l] = ub ? ua % ub : ~0u);
        case TGSI_OP_IMUL_HI: LANES(r.i[l] = (int32_t)(((int64_t)ia * (int64_t)ib) >> 32));
        case TGSI_OP_UMUL_HI: LANES(r.u[l] = (uint32_t)(((uint64_t)ua * (uint64_t)ub) >> 32));
        case TGSI_OP_F2I:
            LANES(
                if (fa >= -2147483648.0f && fa < 2147483648.0f) { r.i[l] = (int32_t)fa; } else {
                    r.i[l] = 0;
                    undefined |= 1u << l;
                });
        case TGSI_OP_F2U:
            LANES(
                if (fa > -1.0f && fa < 4294967296.0f) { r.u[l] = (uint32_t)fa; } else {
                    r.u[l] = 0;
                    undefined |= 1u << l;
                });
        case TGSI_OP_IDIV:
            LANES(
                if (ia == INT32_MIN && ib == -1) {
                    r.i[l] = 0;
                    undefined |= 1u << l;
                } /* traps in tgsi_exec */
                else { r.i[l] = ib ? ia / ib : 0; });
        case TGSI_OP_MOD:
            LANES(
                if (ia == INT32_MIN && ib == -1) {
                    r.i[l] = 0;
                    undefined |= 1u << l;
                } else { r.i[l] = ib ? ia % ib : -1; });
        default:
            memset(r.u, 0, sizeof r.u);
            undefined = ALL_LANES;
            break;
    }
#undef LANES
    *d = r;
    return undefined;
}

/* Derivatives across the quad (lanes: 0 top-left, 1 top-right, 2 bottom-left,
 * 3 bottom-right), as micro_ddx / micro_ddy / *_fine. v: a's valid lanes;
 * returns d's. */
static unsigned derivative(int op, const union lanes *a, unsigned v, union lanes *d)
{
#define LANES_VALID(x, y) ((v >> (x)) & (v >> (y)) & 1u)
    switch (op) {
        case TGSI_OP_DDX:
            d->f[0] = d->f[1] = d->f[2] = d->f[3] = a->f[3] - a->f[2];
            return LANES_VALID(3, 2) ? ALL_LANES : 0;
        case TGSI_OP_DDY:
            d->f[0] = d->f[1] = d->f[2] = d->f[3] = a->f[2] - a->f[0];
            return LANES_VALID(2, 0) ? ALL_LANES : 0;
        case TGSI_OP_DDX_FINE:
            d->f[0] = d->f[1] = a->f[1] - a->f[0];
            d->f[2] = d->f[3] = a->f[3] - a->f[2];
            return (LANES_VALID(1, 0) ? 0x3u : 0) | (LANES_VALID(3, 2) ? 0xcu : 0);
        default: /* DDY_FINE */
            d->f[0] = d->f[2] = a->f[2] - a->f[0];
            d->f[1] = d->f[3] = a->f[3] - a->f[1];
            return (LANES_VALID(2, 0) ? 0x5u : 0) | (LANES_VALID(3, 1) ? 0xau : 0);
    }
#undef LANES_VALID
}

static int op_is_scalar(int op)
{
    switch (op) {
        case TGSI_OP_RCP:
        case TGSI_OP_RSQ:
        case TGSI_OP_SQRT:
        case TGSI_OP_EX2:
        case TGSI_OP_LG2:
        case TGSI_OP_POW:
        case TGSI_OP_COS:
        case TGSI_OP_SIN: return 1;
        default: return 0;
    }
}

static int op_is_derivative(int op)
{
    return op == TGSI_OP_DDX || op == TGSI_OP_DDY || op == TGSI_OP_DDX_FINE || op == TGSI_OP_DDY_FINE;
}

/* exec_vector_unary/binary/trinary (and exec_ucmp): every channel of the write
 * mask is computed from its own source channels, then all are stored (a source
 * may be the destination). Sources are fetched as the parser's src_is_integer
 * says (TGSI_MOD_NEG_*). */
HOT void compute_channels(const struct machine *m, const struct tgsi_inst *in, const int op, union lanes result[4],
                          unsigned result_valid[4])
{
    const unsigned wm = in->dst.write_mask;
    for (unsigned c = 0; c < 4; c++) {
        if (!(wm & (1u << c))) continue;
        union lanes tmp[3];
        const union lanes *s[3] = {&zero_lanes, &zero_lanes, &zero_lanes};
        unsigned valid = ALL_LANES;
        for (unsigned i = 0; i < in->num_src; i++) {
            s[i] = fetch(m, &in->src[i], c, &tmp[i]);
            valid &= fetch_valid(m, &in->src[i], c);
        }
        if (op_is_derivative(op))
            result_valid[c] = derivative(op, s[0], valid, &result[c]);
        else
            result_valid[c] = valid & ~alu(op, s[0], s[1], s[2], &result[c]);
    }
}

/* compute_channels + store for a plain instruction (tgsi_inst.plain) when no
 * validity is tracked and every lane executes: each channel is computed from its
 * source rows straight into its destination row (alu reads its sources before it
 * writes), the same values the general path stores. */
HOT void compute_plain(struct machine *m, const struct tgsi_inst *in, const int op)
{
    const unsigned wm = in->dst.write_mask, ns = in->num_src;
    union lanes *rows = m->rows;
    for (unsigned c = 0; c < 4; c++) {
        if (!(wm & (1u << c))) continue;
        const union lanes *a = ns > 0 ? &rows[in->src[0].row[c]] : &zero_lanes;
        const union lanes *b = ns > 1 ? &rows[in->src[1].row[c]] : &zero_lanes;
        const union lanes *d = ns > 2 ? &rows[in->src[2].row[c]] : &zero_lanes;
        alu(op, a, b, d, &rows[in->dst.row + c]);
    }
}

/* A plain instruction (see exec_componentwise); the commonest opcodes have their own
 * copy of the channel loop with the opcode a constant. */
static void exec_plain(struct machine *m, const struct tgsi_inst *in)
{
    switch (in->op) {
/* clang-format off */
#define PLAIN(name)                                                            \
    case TGSI_OP_##name:                                                       \
        compute_plain(m, in, TGSI_OP_##name);                                  \
        return;
    PLAIN(MOV) PLAIN(ADD) PLAIN(MUL) PLAIN(MAD) PLAIN(FLR) PLAIN(MIN) PLAIN(MAX)
    PLAIN(LRP) PLAIN(DIV) PLAIN(FSGE) PLAIN(AND) PLAIN(CMP) PLAIN(FRC)
#undef PLAIN
            /* clang-format on */
            default : compute_plain(m, in, in->op);
        return;
    }
}

static __attribute__((noinline)) void exec_general(struct machine *m, const struct tgsi_inst *in)
{
    union lanes result[4];
    unsigned result_valid[4];
    switch (in->op) {
        /* The commonest opcodes get their own copy of the channel loop, with the
     * opcode a constant (alu's switch then folds to its one case) rather than
     * decided per channel. */
/* clang-format off */
#define SPECIALIZED(name)                                                      \
    case TGSI_OP_##name:                                                       \
        compute_channels(m, in, TGSI_OP_##name, result, result_valid);         \
        break;
    SPECIALIZED(MOV) SPECIALIZED(ADD) SPECIALIZED(MUL) SPECIALIZED(MAD) SPECIALIZED(FLR)
    SPECIALIZED(MIN) SPECIALIZED(MAX) SPECIALIZED(LRP) SPECIALIZED(DIV) SPECIALIZED(FSGE)
    SPECIALIZED(AND) SPECIALIZED(CMP) SPECIALIZED(FRC)
#undef SPECIALIZED
            /* clang-format on */
            default : compute_channels(m, in, in->op, result, result_valid);
        break;
    }
    for (unsigned c = 0; c < 4; c++)
        if (in->dst.write_mask & (1u << c)) store(m, in, c, &result[c], result_valid[c]);
}

/* The plain path apart from the general one, whose result arrays make a heavier call. */
HOT void exec_componentwise(struct machine *m, const struct tgsi_inst *in)
{
    if (in->plain && !m->track && m->exec_mask == ALL_LANES && !op_is_derivative(in->op))
        exec_plain(m, in);
    else
        exec_general(m, in);
}

/* exec_scalar_unary/binary: source .x (after swizzle), result replicated. */
static void exec_scalar(struct machine *m, const struct tgsi_inst *in)
{
    union lanes ta, tb, r;
    const union lanes *a = fetch(m, &in->src[0], 0, &ta), *b = &zero_lanes;
    unsigned valid = fetch_valid(m, &in->src[0], 0);
    if (in->num_src > 1) {
        b = fetch(m, &in->src[1], 0, &tb);
        valid &= fetch_valid(m, &in->src[1], 0);
    }
    valid &= ~alu(in->op, a, b, &zero_lanes, &r);
    store_replicated(m, in, &r, valid);
}

/* exec_dp2/dp3/dp4: x*x, then y*y + acc, z*z + acc, ... (MAD, not fused). */
static void exec_dot(struct machine *m, const struct tgsi_inst *in, unsigned n)
{
    union lanes ta, tb, acc;
    const union lanes *a = fetch(m, &in->src[0], 0, &ta), *b = fetch(m, &in->src[1], 0, &tb);
    for (int l = 0; l < 4; l++) acc.f[l] = a->f[l] * b->f[l];
    for (unsigned c = 1; c < n; c++) {
        a = fetch(m, &in->src[0], c, &ta);
        b = fetch(m, &in->src[1], c, &tb);
        for (int l = 0; l < 4; l++) acc.f[l] = a->f[l] * b->f[l] + acc.f[l];
    }
    unsigned valid = ALL_LANES;
    if (m->track)
        for (unsigned c = 0; c < n; c++) valid &= fetch_valid(m, &in->src[0], c) & fetch_valid(m, &in->src[1], c);
    store_replicated(m, in, &acc, valid);
}

static void set_all(union lanes *c, float v)
{
    for (int l = 0; l < 4; l++) c->f[l] = v;
}

/* A fetched channel as a value (the exec_* below modify their copies). */
static void fetch_copy(const struct machine *m, const struct tgsi_inst *in, unsigned s, unsigned chan, union lanes *out,
                       unsigned *valid)
{
    union lanes tmp;
    *out = *fetch(m, &in->src[s], chan, &tmp);
    *valid = fetch_valid(m, &in->src[s], chan);
}

static void exec_lit(struct machine *m, const struct tgsi_inst *in)
{
    unsigned wm = in->dst.write_mask;
    union lanes one, r0, r1, r2, dz, dy;
    unsigned v0 = 0, v1, v2;
    set_all(&one, 1.0f);
    if (wm & 0x6) {
        fetch_copy(m, in, 0, 0, &r0, &v0);
        if (wm & 0x4) {
            union lanes p128, m128;
            set_all(&p128, 128.0f);
            set_all(&m128, -128.0f);
            fetch_copy(m, in, 0, 1, &r1, &v1);
            alu(TGSI_OP_MAX, &r1, &zero_lanes, &zero_lanes, &r1);
            fetch_copy(m, in, 0, 3, &r2, &v2);
            alu(TGSI_OP_MIN, &r2, &p128, &zero_lanes, &r2);
            alu(TGSI_OP_MAX, &r2, &m128, &zero_lanes, &r2);
            alu(TGSI_OP_POW, &r1, &r2, &zero_lanes, &r1);
            v1 &= v2;
            /* micro_lt(0, r0, r1, 0): 0 < r0 ? r1 : 0 */
            for (int l = 0; l < 4; l++) dz.f[l] = 0.0f < r0.f[l] ? r1.f[l] : 0.0f;
            store(m, in, 2, &dz, v0 & v1);
        }
        if (wm & 0x2) {
            alu(TGSI_OP_MAX, &r0, &zero_lanes, &zero_lanes, &dy);
            store(m, in, 1, &dy, v0);
        }
    }
    if (wm & 0x1) store(m, in, 0, &one, ALL_LANES);
    if (wm & 0x8) store(m, in, 3, &one, ALL_LANES);
}

static void exec_dst(struct machine *m, const struct tgsi_inst *in)
{
    unsigned wm = in->dst.write_mask;
    union lanes a, b, d[4];
    unsigned va, vb, v[4] = {ALL_LANES, ALL_LANES, ALL_LANES, ALL_LANES};
    set_all(&d[0], 1.0f);
    if (wm & 0x2) {
        fetch_copy(m, in, 0, 1, &a, &va);
        fetch_copy(m, in, 1, 1, &b, &vb);
        alu(TGSI_OP_MUL, &a, &b, &zero_lanes, &d[1]);
        v[1] = va & vb;
    }
    if (wm & 0x4) fetch_copy(m, in, 0, 2, &d[2], &v[2]);
    if (wm & 0x8) fetch_copy(m, in, 1, 3, &d[3], &v[3]);
    for (unsigned c = 0; c < 4; c++)
        if (wm & (1u << c)) store(m, in, c, &d[c], v[c]);
}

static void exec_exp(struct machine *m, const struct tgsi_inst *in)
{
    unsigned wm = in->dst.write_mask;
    union lanes r0, r1, r2, one;
    unsigned v0;
    set_all(&one, 1.0f);
    fetch_copy(m, in, 0, 0, &r0, &v0);
    alu(TGSI_OP_FLR, &r0, &zero_lanes, &zero_lanes, &r1);
    if (wm & 0x1) {
        alu(TGSI_OP_EX2, &r1, &zero_lanes, &zero_lanes, &r2);
        store(m, in, 0, &r2, v0);
    }
    if (wm & 0x2) {
        for (int l = 0; l < 4; l++) /* micro_sub: r0 - r1 */
            r2.f[l] = r0.f[l] - r1.f[l];
        store(m, in, 1, &r2, v0);
    }
    if (wm & 0x4) {
        alu(TGSI_OP_EX2, &r0, &zero_lanes, &zero_lanes, &r2);
        store(m, in, 2, &r2, v0);
    }
    if (wm & 0x8) store(m, in, 3, &one, ALL_LANES);
}

static void exec_log(struct machine *m, const struct tgsi_inst *in)
{
    unsigned wm = in->dst.write_mask;
    union lanes r0, r1, r2, one;
    unsigned v0;
    set_all(&one, 1.0f);
    fetch_copy(m, in, 0, 0, &r0, &v0);
    for (int l = 0; l < 4; l++) r2.f[l] = fabsf(r0.f[l]);
    alu(TGSI_OP_LG2, &r2, &zero_lanes, &zero_lanes, &r1);
    alu(TGSI_OP_FLR, &r1, &zero_lanes, &zero_lanes, &r0);
    if (wm & 0x1) store(m, in, 0, &r0, v0);
    if (wm & 0x2) {
        alu(TGSI_OP_EX2, &r0, &zero_lanes, &zero_lanes, &r0);
        alu(TGSI_OP_DIV, &r2, &r0, &zero_lanes, &r0);
        store(m, in, 1, &r0, v0);
    }
    if (wm & 0x4) store(m, in, 2, &r1, v0);
    if (wm & 0x8) store(m, in, 3, &one, ALL_LANES);
}

/* tgsi_util_get_texture_coord_dim */
static int tex_coord_dim(int target)
{
    switch (target) {
        case TGSI_TEX_BUFFER:
        case TGSI_TEX_1D:
        case TGSI_TEX_SHADOW1D: return 1;
        case TGSI_TEX_2D:
        case TGSI_TEX_RECT:
        case TGSI_TEX_1D_ARRAY:
        case TGSI_TEX_SHADOW2D:
        case TGSI_TEX_SHADOWRECT:
        case TGSI_TEX_SHADOW1D_ARRAY:
        case TGSI_TEX_2D_MSAA: return 2;
        case TGSI_TEX_3D:
        case TGSI_TEX_CUBE:
        case TGSI_TEX_2D_ARRAY:
        case TGSI_TEX_SHADOWCUBE:
        case TGSI_TEX_SHADOW2D_ARRAY:
        case TGSI_TEX_2D_ARRAY_MSAA: return 3;
        default: return 4;
    }
}

/* tgsi_util_get_shadow_ref_src_index */
static int tex_shadow_ref(int target)
{
    switch (target) {
        case TGSI_TEX_SHADOW1D:
        case TGSI_TEX_SHADOW2D:
        case TGSI_TEX_SHADOWRECT:
        case TGSI_TEX_SHADOW1D_ARRAY: return 2;
        case TGSI_TEX_SHADOWCUBE:
        case TGSI_TEX_SHADOW2D_ARRAY:
        case TGSI_TEX_2D_MSAA:
        case TGSI_TEX_2D_ARRAY_MSAA: return 3;
        case TGSI_TEX_SHADOWCUBEARRAY: return 4;
        default: return -1;
    }
}

/* fetch_texel_offsets: lane 0 of the offset register, truncated to int8 (no
 * modifiers: the operand is resolved without them). */
static unsigned fetch_offsets(const struct machine *m, const struct tgsi_inst *in, int8_t offsets[3])
{
    offsets[0] = offsets[1] = offsets[2] = 0;
    if (!in->num_offsets) return ALL_LANES;
    unsigned valid = ALL_LANES;
    for (unsigned k = 0; k < 3; k++) {
        union lanes tmp;
        const union lanes *v = fetch(m, &in->offset, k, &tmp);
        offsets[k] = (int8_t)(uint8_t)(v->u[0] & 0xffu);
        if (!(fetch_valid(m, &in->offset, k) & 1u)) valid = 0;
    }
    return valid;
}

static unsigned quad_valid(unsigned valid) { return valid == ALL_LANES ? ALL_LANES : 0; }

static void store_texel_result(struct machine *m, const struct tgsi_inst *in, float rgba[4][4], unsigned valid)
{
    if (!m->track && !in->saturate && m->exec_mask == ALL_LANES) {
        /* store()'s case of every lane, nothing to clamp or track: a row copy per channel */
        for (unsigned c = 0; c < 4; c++)
            if (in->dst.write_mask & (1u << c)) memcpy(&m->rows[in->dst.row + c], rgba[c], sizeof(union lanes));
        return;
    }
    for (unsigned c = 0; c < 4; c++) {
        if (!(in->dst.write_mask & (1u << c))) continue;
        union lanes r;
        memcpy(r.f, rgba[c], sizeof r.f);
        store(m, in, c, &r, valid);
    }
}

enum tex_modifier { TEX_MOD_NONE, TEX_MOD_PROJECTED, TEX_MOD_LOD_BIAS, TEX_MOD_EXPLICIT_LOD };

/* exec_tex: coordinates of src0 to s, t, r, c0 (dim first, then the shadow
 * reference), the src0.w modifier to c1 (or a projective divide of each fetched
 * coordinate), the rest 0. The sampler sees all four lanes (LOD from the quad),
 * so the result is valid only if every argument is valid in every lane. */
static int exec_tex(struct machine *m, const struct tgsi_inst *in, enum tex_modifier modifier)
{
    const struct tbr_tgsi_sampler *sampler = m->quad->sampler;
    if (!sampler || !sampler->get_samples) return -1;
    unsigned unit = (unsigned)in->src[1].index;
    int8_t offsets[3];
    unsigned valid = fetch_offsets(m, in, offsets);
    int dim = tex_coord_dim(in->tex_target);
    int shadow_ref = tex_shadow_ref(in->tex_target);
    const union lanes *args[5];
    union lanes r[5];
    unsigned r_valid[5], args_valid[5];
    const union lanes *proj = NULL;
    unsigned proj_valid = ALL_LANES;
    enum tbr_sampler_control control = TBR_SAMPLER_LOD_NONE;

    for (int i = 0; i < 5; i++) {
        args[i] = &zero_lanes;
        args_valid[i] = ALL_LANES;
    }
    if (modifier != TEX_MOD_NONE) {
        fetch_copy(m, in, 0, 3, &r[4], &r_valid[4]);
        if (modifier == TEX_MOD_PROJECTED) {
            proj = &r[4];
            proj_valid = r_valid[4];
        } else {
            args[4] = &r[4];
            args_valid[4] = r_valid[4];
        }
        if (modifier == TEX_MOD_EXPLICIT_LOD)
            control = TBR_SAMPLER_LOD_EXPLICIT;
        else if (modifier == TEX_MOD_LOD_BIAS)
            control = TBR_SAMPLER_LOD_BIAS;
    }
    for (int i = 0; i < dim; i++) {
        fetch_copy(m, in, 0, (unsigned)i, &r[i], &r_valid[i]);
        if (proj) {
            for (int l = 0; l < 4; l++) r[i].f[l] = r[i].f[l] / proj->f[l];
            r_valid[i] &= proj_valid;
        }
        args[i] = &r[i];
        args_valid[i] = r_valid[i];
    }
    if (shadow_ref >= 0) {
        fetch_copy(m, in, (unsigned)shadow_ref / 4, (unsigned)shadow_ref % 4, &r[shadow_ref], &r_valid[shadow_ref]);
        if (proj) {
            for (int l = 0; l < 4; l++) r[shadow_ref].f[l] = r[shadow_ref].f[l] / proj->f[l];
            r_valid[shadow_ref] &= proj_valid;
        }
        args[shadow_ref] = &r[shadow_ref];
        args_valid[shadow_ref] = r_valid[shadow_ref];
    }
    for (int i = 0; i < 5; i++) valid &= quad_valid(args_valid[i]);
    float rgba[4][4];
    memset(rgba, 0, sizeof rgba);
    if (m->quad->sampler_pc) *m->quad->sampler_pc = (unsigned)(in - m->prog->insts);
    sampler->get_samples(sampler->ctx, unit, unit, args[0]->f, args[1]->f, args[2]->f, args[3]->f, args[4]->f, NULL,
                         offsets, control, rgba);
    store_texel_result(m, in, rgba, valid);
    return 0;
}

/* exec_txd: explicit derivatives from src1 (d/dx) and src2 (d/dy). */
static int exec_txd(struct machine *m, const struct tgsi_inst *in)
{
    const struct tbr_tgsi_sampler *sampler = m->quad->sampler;
    if (!sampler || !sampler->get_samples) return -1;
    unsigned unit = (unsigned)in->src[3].index;
    int8_t offsets[3];
    unsigned valid = fetch_offsets(m, in, offsets);
    float derivs[3][2][4];
    memset(derivs, 0, sizeof derivs);
    union lanes r[4];
    const union lanes *args[5] = {&zero_lanes, &zero_lanes, &zero_lanes, &zero_lanes, &zero_lanes};
    int coords, deriv_chans;
    switch (in->tex_target) {
        case TGSI_TEX_1D:
            coords = 1;
            deriv_chans = 1;
            break;
        case TGSI_TEX_SHADOW1D:
        case TGSI_TEX_1D_ARRAY:
        case TGSI_TEX_SHADOW1D_ARRAY:
            coords = 3;
            deriv_chans = 1;
            break;
        case TGSI_TEX_2D:
        case TGSI_TEX_RECT:
            coords = 2;
            deriv_chans = 2;
            break;
        case TGSI_TEX_SHADOW2D:
        case TGSI_TEX_SHADOWRECT:
        case TGSI_TEX_2D_ARRAY:
        case TGSI_TEX_SHADOW2D_ARRAY:
            coords = 4;
            deriv_chans = 2;
            break;
        default: /* 3D, CUBE, SHADOWCUBE */
            coords = 4;
            deriv_chans = 3;
            break;
    }
    for (int i = 0; i < coords; i++) {
        unsigned v;
        fetch_copy(m, in, 0, (unsigned)i, &r[i], &v);
        args[i] = &r[i];
        valid &= quad_valid(v);
    }
    for (int d = 0; d < deriv_chans; d++) {
        union lanes dx, dy;
        unsigned vx, vy;
        fetch_copy(m, in, 1, (unsigned)d, &dx, &vx);
        fetch_copy(m, in, 2, (unsigned)d, &dy, &vy);
        memcpy(derivs[d][0], dx.f, sizeof dx.f);
        memcpy(derivs[d][1], dy.f, sizeof dy.f);
        valid &= quad_valid(vx) & quad_valid(vy);
    }
    float rgba[4][4];
    memset(rgba, 0, sizeof rgba);
    if (m->quad->sampler_pc) *m->quad->sampler_pc = (unsigned)(in - m->prog->insts);
    sampler->get_samples(sampler->ctx, unit, unit, args[0]->f, args[1]->f, args[2]->f, args[3]->f, args[4]->f, derivs,
                         offsets, TBR_SAMPLER_DERIVS_EXPLICIT, rgba);
    store_texel_result(m, in, rgba, valid);
    return 0;
}

/* exec_txf: integer coordinates and lod (src0.w); each lane is independent.
 * Coordinates the target does not use are uninitialised in tgsi_exec; 0 here. */
static int exec_txf(struct machine *m, const struct tgsi_inst *in)
{
    const struct tbr_tgsi_sampler *sampler = m->quad->sampler;
    if (!sampler || !sampler->get_texel) return -1;
    unsigned unit = (unsigned)in->src[1].index;
    int8_t offsets[3];
    unsigned valid = fetch_offsets(m, in, offsets);
    union lanes r[4] = {zero_lanes, zero_lanes, zero_lanes, zero_lanes};
    unsigned r_valid[4] = {ALL_LANES, ALL_LANES, ALL_LANES, ALL_LANES};
    int coords;
    switch (in->tex_target) {
        case TGSI_TEX_3D:
        case TGSI_TEX_2D_ARRAY:
        case TGSI_TEX_SHADOW2D_ARRAY: coords = 3; break;
        case TGSI_TEX_2D:
        case TGSI_TEX_RECT:
        case TGSI_TEX_SHADOW1D_ARRAY:
        case TGSI_TEX_SHADOW2D:
        case TGSI_TEX_SHADOWRECT:
        case TGSI_TEX_1D_ARRAY: coords = 2; break;
        default: coords = 1; break;
    }
    fetch_copy(m, in, 0, 3, &r[3], &r_valid[3]);
    for (int i = coords - 1; i >= 0; i--) fetch_copy(m, in, 0, (unsigned)i, &r[i], &r_valid[i]);
    for (int i = 0; i < 4; i++) valid &= r_valid[i];
    float rgba[4][4];
    memset(rgba, 0, sizeof rgba);
    if (m->quad->sampler_pc) *m->quad->sampler_pc = (unsigned)(in - m->prog->insts);
    sampler->get_texel(sampler->ctx, unit, r[0].i, r[1].i, r[2].i, r[3].i, offsets, rgba);
    store_texel_result(m, in, rgba, valid);
    return 0;
}

/* exec_txq: the level is lane 0 of src0.x; one answer for the quad. */
static int exec_txq(struct machine *m, const struct tgsi_inst *in)
{
    const struct tbr_tgsi_sampler *sampler = m->quad->sampler;
    if (!sampler || !sampler->get_dims) return -1;
    union lanes level;
    unsigned level_valid;
    fetch_copy(m, in, 0, 0, &level, &level_valid);
    int dims[4] = {0, 0, 0, 0};
    sampler->get_dims(sampler->ctx, (unsigned)in->src[1].index, level.i[0], dims);
    unsigned valid = level_valid & 1u ? ALL_LANES : 0;
    for (unsigned c = 0; c < 4; c++) {
        if (!(in->dst.write_mask & (1u << c))) continue;
        union lanes r;
        for (int l = 0; l < 4; l++) r.i[l] = dims[c];
        store(m, in, c, &r, valid);
    }
    return 0;
}

/* exec_kill_if: lanes where any (distinct) swizzled component is < 0, among
 * the executing lanes. */
static int exec_kill_if(struct machine *m, const struct tgsi_inst *in)
{
    unsigned kill = 0, tested = 0;
    for (unsigned c = 0; c < 4; c++) {
        unsigned swz = in->src[0].swizzle[c];
        if (tested & (1u << swz)) continue;
        tested |= 1u << swz;
        union lanes tmp;
        const union lanes *v = fetch(m, &in->src[0], c, &tmp);
        if ((fetch_valid(m, &in->src[0], c) & m->exec_mask) != m->exec_mask) return -1;
        for (unsigned l = 0; l < 4; l++)
            if (v->f[l] < 0.0f) kill |= 1u << l;
    }
    m->kill_mask |= kill & m->exec_mask;
    return 0;
}

static int exec_if(struct machine *m, const struct tgsi_inst *in, int *pc)
{
    if (m->cond_top >= MAX_NESTING) return -1;
    m->cond_stack[m->cond_top++] = m->cond_mask;
    union lanes tmp;
    const union lanes *v = fetch(m, &in->src[0], 0, &tmp); /* UIF: integer negation (parser) */
    /* only the executing lanes' decisions are observable (see file comment) */
    if ((fetch_valid(m, &in->src[0], 0) & m->exec_mask) != m->exec_mask) return -1;
    for (unsigned l = 0; l < 4; l++) {
        int taken = in->op == TGSI_OP_UIF ? v->u[l] != 0 : v->f[l] != 0.0f;
        if (!taken) m->cond_mask &= ~(1u << l);
    }
    update_exec_mask(m);
    if (!m->cond_mask) *pc = in->label;
    return 0;
}

/* exec_declaration for fragment inputs: FACE gets machine->Face in x; the others
 * are evaluated at the quad from setup's coefficients (eval_*_coef). */
static void interpolate_inputs(struct machine *m, const float quad_x[4], const float quad_y[4], const float quad_w[4])
{
    const struct tbr_tgsi_program *prog = m->prog;
    const struct tbr_tgsi_fs_quad *q = m->quad;
    for (unsigned d = 0; d < prog->num_input_decls; d++) {
        const struct tgsi_input_decl *decl = &prog->input_decls[d];
        if (decl->semantic_name == TBR_TGSI_SEMANTIC_FACE) {
            const uint32_t row = prog->row_inputs + 4u * (uint32_t)decl->first;
            set_all(&m->rows[row], q->face);
            if (m->track) m->valid[row] = ALL_LANES;
            continue;
        }
        int mode = decl->interpolate;
        if (mode == TBR_TGSI_INTERPOLATE_COLOR)
            mode = q->flatshade_color ? TBR_TGSI_INTERPOLATE_CONSTANT : TBR_TGSI_INTERPOLATE_PERSPECTIVE;
        for (unsigned c = 0; c < 4; c++) {
            if (!(decl->usage_mask & (1u << c))) continue;
            for (int i = decl->first; i <= decl->last; i++) {
                const struct tbr_interp_coef *coef = &q->coef[i];
                const uint32_t row = prog->row_inputs + 4u * (uint32_t)i + c;
                union lanes *in = &m->rows[row];
                if (m->track) m->valid[row] = ALL_LANES;
                if (mode == TBR_TGSI_INTERPOLATE_CONSTANT) {
                    for (int l = 0; l < 4; l++) in->f[l] = coef->a0[c];
                    continue;
                }
                const float dadx = coef->dadx[c], dady = coef->dady[c];
                const float a0 = coef->a0[c] + dadx * quad_x[0] + dady * quad_y[0];
                const float v[4] = {a0, a0 + dadx, a0 + dady, a0 + dadx + dady};
                /* the mode decided outside the lane loops: each vectorizes */
                if (mode == TBR_TGSI_INTERPOLATE_PERSPECTIVE)
                    for (int l = 0; l < 4; l++) in->f[l] = v[l] / quad_w[l];
                else
                    for (int l = 0; l < 4; l++) in->f[l] = v[l];
            }
        }
    }
}

/* The rows a run starts from: registers 0 (never valid: tgsi_exec would hold
 * leftovers), immediates, and the constants the program reads from the bound
 * buffers (out of a buffer's size: 0, as tgsi_exec's bounds check). */
static void init_rows(struct machine *m)
{
    const struct tbr_tgsi_program *prog = m->prog;
    const struct tbr_tgsi_fs_quad *q = m->quad;
    memset(m->rows, 0, prog->row_imms * sizeof *m->rows);
    memcpy(&m->rows[prog->row_imms], prog->imm_rows, (size_t)prog->num_imms * 4 * sizeof *m->rows);
    for (unsigned k = 0; k < prog->num_const_slots; k++) {
        const struct tgsi_const_slot *slot = &prog->const_slots[k];
        const char *data = q->consts[slot->buffer];
        uint32_t v = 0;
        if (data && slot->dword < q->const_bytes[slot->buffer] / 4) memcpy(&v, data + slot->dword * 4, sizeof v);
        union lanes *row = &m->rows[prog->row_consts + k];
        for (int l = 0; l < 4; l++) row->u[l] = v;
    }
    if (!m->track) return;
    memset(m->valid, 0, prog->row_imms);
    /* components an immediate does not define are stale in tgsi_exec */
    for (unsigned i = 0; i < prog->num_imms; i++)
        for (unsigned c = 0; c < 4; c++)
            m->valid[prog->row_imms + 4 * i + c] = (prog->imm_valid[i] >> c) & 1u ? ALL_LANES : 0;
    memset(&m->valid[prog->row_consts], ALL_LANES, prog->num_const_slots);
}

static int execute(struct machine *m)
{
    const struct tbr_tgsi_program *prog = m->prog;
    int pc = 0;
    for (long steps = 0; pc >= 0; steps++) {
        if (steps >= MAX_STEPS || pc >= (int)prog->num_insts) return -1;
        const struct tgsi_inst *in = &prog->insts[pc];
        pc++;
        int rc = 0;
        switch (in->op) {
            case TGSI_OP_DP2: exec_dot(m, in, 2); break;
            case TGSI_OP_DP3: exec_dot(m, in, 3); break;
            case TGSI_OP_DP4: exec_dot(m, in, 4); break;
            case TGSI_OP_LIT: exec_lit(m, in); break;
            case TGSI_OP_DST: exec_dst(m, in); break;
            case TGSI_OP_EXP: exec_exp(m, in); break;
            case TGSI_OP_LOG: exec_log(m, in); break;
            case TGSI_OP_TEX: rc = exec_tex(m, in, TEX_MOD_NONE); break;
            case TGSI_OP_TXB: rc = exec_tex(m, in, TEX_MOD_LOD_BIAS); break;
            case TGSI_OP_TXL: rc = exec_tex(m, in, TEX_MOD_EXPLICIT_LOD); break;
            case TGSI_OP_TXP: rc = exec_tex(m, in, TEX_MOD_PROJECTED); break;
            case TGSI_OP_TXD: rc = exec_txd(m, in); break;
            case TGSI_OP_TXF: rc = exec_txf(m, in); break;
            case TGSI_OP_TXQ: rc = exec_txq(m, in); break;
            case TGSI_OP_KILL: m->kill_mask |= m->exec_mask; break;
            case TGSI_OP_KILL_IF: rc = exec_kill_if(m, in); break;
            case TGSI_OP_IF:
            case TGSI_OP_UIF: rc = exec_if(m, in, &pc); break;
            case TGSI_OP_ELSE: {
                unsigned prev = m->cond_stack[m->cond_top - 1];
                m->cond_mask = ~m->cond_mask & prev;
                update_exec_mask(m);
                if (!m->cond_mask) pc = in->label;
                break;
            }
            case TGSI_OP_ENDIF:
                m->cond_mask = m->cond_stack[--m->cond_top];
                update_exec_mask(m);
                break;
            case TGSI_OP_BGNLOOP:
                if (m->loop_top >= MAX_NESTING) return -1;
                m->loop_stack[m->loop_top++] = m->loop_mask;
                m->cont_stack[m->cont_top++] = m->cont_mask;
                m->loop_label_stack[m->loop_label_top++] = pc - 1;
                break;
            case TGSI_OP_ENDLOOP:
                m->cont_mask = m->cont_stack[m->cont_top - 1];
                update_exec_mask(m);
                if (m->exec_mask) {
                    pc = m->loop_label_stack[m->loop_label_top - 1] + 1;
                } else {
                    m->loop_mask = m->loop_stack[--m->loop_top];
                    m->cont_mask = m->cont_stack[--m->cont_top];
                    m->loop_label_top--;
                }
                update_exec_mask(m);
                break;
            case TGSI_OP_BRK:
                m->loop_mask &= ~m->exec_mask;
                update_exec_mask(m);
                break;
            case TGSI_OP_CONT:
                m->cont_mask &= ~m->exec_mask;
                update_exec_mask(m);
                break;
            case TGSI_OP_NOP: break;
            case TGSI_OP_END: pc = -1; break;
            default:
                if (op_is_scalar(in->op))
                    exec_scalar(m, in);
                else
                    exec_componentwise(m, in);
                break;
        }
        if (rc) return -1;
    }
    return 0;
}

int tbr_tgsi_run_fs(const struct tbr_tgsi_program *prog, const struct tbr_tgsi_fs_quad *quad,
                    struct tbr_tgsi_fs_result *result)
{
    struct machine m;
    union lanes rows_on_stack[ROWS_ON_STACK];
    uint8_t valid_on_stack[ROWS_ON_STACK];
    m.prog = prog;
    m.quad = quad;
    m.track = !quad->skip_validity;
    m.rows = rows_on_stack;
    m.valid = valid_on_stack;
    if (prog->num_rows > ROWS_ON_STACK) {
        m.rows = malloc(prog->num_rows * sizeof *m.rows);
        m.valid = malloc(prog->num_rows);
        if (!m.rows || !m.valid) {
            free(m.rows);
            free(m.valid);
            return -1;
        }
    }
    m.kill_mask = 0;
    m.exec_mask = m.cond_mask = m.loop_mask = m.cont_mask = ALL_LANES;
    m.cond_top = m.loop_top = m.cont_top = m.loop_label_top = 0;
    init_rows(&m);

    /* sp_fs_exec.c setup_pos_vector: QuadPos x, y per lane; z, w from setup's
     * position coefficients, a0 + dadx * x + dady * y (+ dadx, + dady per lane) */
    const float x = quad->x0, y = quad->y0;
    const float quad_x[4] = {x, x + 1, x, x + 1};
    const float quad_y[4] = {y, y, y + 1, y + 1};
    float quad_w[4];
    {
        const struct tbr_interp_coef *pc = quad->pos_coef;
        const float dadx = pc->dadx[3], dady = pc->dady[3];
        const float a0 = pc->a0[3] + dadx * x + dady * y;
        quad_w[0] = a0;
        quad_w[1] = a0 + dadx;
        quad_w[2] = a0 + dady;
        quad_w[3] = a0 + dadx + dady;
    }
    interpolate_inputs(&m, quad_x, quad_y, quad_w);

    int rc = execute(&m);

    /* the outputs below num_outputs are all written next: only the rest is zeroed */
    const unsigned nout = prog->num_outputs < TBR_TGSI_MAX_OUTPUTS ? prog->num_outputs : TBR_TGSI_MAX_OUTPUTS;
    if (nout < TBR_TGSI_MAX_OUTPUTS && !quad->declared_outputs_only) {
        memset(result->outputs[nout], 0, (TBR_TGSI_MAX_OUTPUTS - nout) * sizeof result->outputs[0]);
        memset(result->output_lanes_valid[nout], 0,
               (TBR_TGSI_MAX_OUTPUTS - nout) * sizeof result->output_lanes_valid[0]);
    }
    result->kill_mask = m.kill_mask;
    result->mask = quad->non_helper_mask & ~m.kill_mask & ALL_LANES;
    for (unsigned i = 0; i < prog->num_outputs && i < TBR_TGSI_MAX_OUTPUTS; i++) {
        for (unsigned c = 0; c < 4; c++) {
            const uint32_t row = prog->row_outputs + 4 * i + c;
            const union lanes *o = &m.rows[row];
            const unsigned valid = m.track ? m.valid[row] : ALL_LANES;
            result->output_lanes_valid[i][c] = (uint8_t)valid;
            for (unsigned l = 0; l < 4; l++) result->outputs[i][c][l] = valid & (1u << l) ? o->f[l] : 0.0f;
        }
        if (!prog->output_declared[i] || !m.track) continue;
        unsigned needed; /* channels exec_run copies out */
        switch (prog->outputs[i].semantic_name) {
            case TBR_TGSI_SEMANTIC_COLOR: needed = 0xf; break;
            case TBR_TGSI_SEMANTIC_POSITION: needed = 0x4; break;
            default: needed = 0x2; break; /* STENCIL */
        }
        for (unsigned c = 0; c < 4; c++)
            if ((needed & (1u << c)) && (m.valid[prog->row_outputs + 4 * i + c] & result->mask) != result->mask)
                rc = -1;
    }
    if (m.rows != rows_on_stack) {
        free(m.rows);
        free(m.valid);
    }
    return rc;
}
