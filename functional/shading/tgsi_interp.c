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
#include <string.h>

#include "tgsi_program.h"

#define ALL_LANES 0xfu
#define MAX_STEPS 1000000
#define MAX_NESTING 64

struct chan {
    union {
        float f[4];
        uint32_t u[4];
        int32_t i[4];
    };
    unsigned valid; /* lanes computed in this run, bit n = lane n */
};

struct vec {
    struct chan c[4];
};

struct machine {
    const struct tbr_tgsi_program *prog;
    const struct tbr_tgsi_fs_quad *quad;
    unsigned exec_mask, cond_mask, loop_mask, cont_mask, kill_mask;
    unsigned cond_stack[MAX_NESTING], loop_stack[MAX_NESTING], cont_stack[MAX_NESTING];
    int loop_label_stack[MAX_NESTING];
    int cond_top, loop_top, cont_top, loop_label_top;
    struct vec inputs[TBR_TGSI_MAX_INPUTS];
    struct vec outputs[TBR_TGSI_MAX_OUTPUTS];
    struct vec temps[TGSI_MAX_TEMPS];
};

static const struct chan zero_chan = {{{0.0f, 0.0f, 0.0f, 0.0f}}, ALL_LANES};

static void update_exec_mask(struct machine *m)
{
    m->exec_mask = m->cond_mask & m->loop_mask & m->cont_mask;
}

/* tgsi_exec fetch_src_file_channel + fetch_source modifiers. */
static void fetch(const struct machine *m, const struct tgsi_src *src, unsigned chan, int integer,
                  struct chan *out)
{
    unsigned swz = src->swizzle[chan];
    switch (src->file) {
    case TGSI_F_CONST: {
        unsigned buf = src->has_dimension ? (unsigned)src->dimension : 0;
        const uint32_t *data = m->quad->consts[buf];
        uint64_t pos = (uint64_t)src->index * 4 + swz;
        uint32_t v = 0;
        /* out of the bound buffer's size: 0, as tgsi_exec's bounds check */
        if (data && pos < m->quad->const_bytes[buf] / 4)
            memcpy(&v, (const char *)data + pos * 4, sizeof v);
        for (int l = 0; l < 4; l++)
            out->u[l] = v;
        out->valid = ALL_LANES;
        break;
    }
    case TGSI_F_IN:
        *out = m->inputs[src->index].c[swz];
        break;
    case TGSI_F_TEMP:
        *out = m->temps[src->index].c[swz];
        break;
    case TGSI_F_OUT:
        *out = m->outputs[src->index].c[swz];
        break;
    case TGSI_F_IMM: {
        uint32_t v = m->prog->imm[src->index][swz];
        for (int l = 0; l < 4; l++)
            out->u[l] = v;
        /* components an immediate does not define are stale in tgsi_exec */
        out->valid = (m->prog->imm_valid[src->index] >> swz) & 1 ? ALL_LANES : 0;
        break;
    }
    default:
        *out = zero_chan;
        out->valid = 0;
        break;
    }
    if (src->absolute) /* float sources only (parser) */
        for (int l = 0; l < 4; l++)
            out->f[l] = fabsf(out->f[l]);
    if (src->negate) {
        for (int l = 0; l < 4; l++) {
            if (integer)
                out->u[l] = 0u - out->u[l];
            else
                out->f[l] = -out->f[l];
        }
    }
}

static void fetch_f(const struct machine *m, const struct tgsi_inst *in, unsigned s, unsigned chan,
                    struct chan *out)
{
    fetch(m, &in->src[s], chan, 0, out);
}

static void fetch_i(const struct machine *m, const struct tgsi_inst *in, unsigned s, unsigned chan,
                    struct chan *out)
{
    fetch(m, &in->src[s], chan, 1, out);
}

/* tgsi_exec store_dest: only lanes of the execution mask; _SAT as
 * fminf(fmaxf(x, 0), 1) (NaN becomes 0). */
static void store(struct machine *m, const struct tgsi_inst *in, unsigned chan, const struct chan *v)
{
    struct chan *dst;
    switch (in->dst.file) {
    case TGSI_F_TEMP: dst = &m->temps[in->dst.index].c[chan]; break;
    case TGSI_F_OUT: dst = &m->outputs[in->dst.index].c[chan]; break;
    default: return;
    }
    for (unsigned l = 0; l < 4; l++) {
        if (!(m->exec_mask & (1u << l)))
            continue;
        if (in->saturate)
            dst->f[l] = fminf(fmaxf(v->f[l], 0.0f), 1.0f);
        else
            dst->u[l] = v->u[l];
        dst->valid = (dst->valid & ~(1u << l)) | (v->valid & (1u << l));
    }
}

/* Store the same value to every channel of the write mask (scalar opcodes, DPn). */
static void store_replicated(struct machine *m, const struct tgsi_inst *in, const struct chan *v)
{
    for (unsigned c = 0; c < 4; c++)
        if (in->dst.write_mask & (1u << c))
            store(m, in, c, v);
}

/* Lane-wise operations of tgsi_exec's micro_* functions. d->valid is the AND of
 * the sources' (the caller passes all-valid channels for absent sources) and
 * loses lanes whose result C leaves undefined (Mesa's would be whatever the
 * hardware gives; we do not guess). */
static void alu(int op, const struct chan *a, const struct chan *b, const struct chan *c, struct chan *d)
{
    struct chan r;
    r.valid = a->valid & b->valid & c->valid;
    /* one lane loop per opcode (the switch outside the loop) */
#define LANES(stmt)                     \
    for (int l = 0; l < 4; l++) {       \
        const float fa = a->f[l], fb = b->f[l], fc = c->f[l]; \
        const int32_t ia = a->i[l], ib = b->i[l];             \
        const uint32_t ua = a->u[l], ub = b->u[l], uc = c->u[l]; \
        (void)fa; (void)fb; (void)fc; (void)ia; (void)ib; (void)ua; (void)ub; (void)uc; \
        stmt;                           \
    }                                   \
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
        LANES(if (fa >= -2147483648.0f && fa < 2147483648.0f) { r.i[l] = (int32_t)fa; }
              else { r.i[l] = 0; r.valid &= ~(1u << l); });
    case TGSI_OP_F2U:
        LANES(if (fa > -1.0f && fa < 4294967296.0f) { r.u[l] = (uint32_t)fa; }
              else { r.u[l] = 0; r.valid &= ~(1u << l); });
    case TGSI_OP_IDIV:
        LANES(if (ia == INT32_MIN && ib == -1) { r.i[l] = 0; r.valid &= ~(1u << l); } /* traps in tgsi_exec */
              else { r.i[l] = ib ? ia / ib : 0; });
    case TGSI_OP_MOD:
        LANES(if (ia == INT32_MIN && ib == -1) { r.i[l] = 0; r.valid &= ~(1u << l); }
              else { r.i[l] = ib ? ia % ib : -1; });
    default:
        memset(r.u, 0, sizeof r.u);
        r.valid = 0;
        break;
    }
#undef LANES
    *d = r;
}

/* Derivatives across the quad (lanes: 0 top-left, 1 top-right, 2 bottom-left,
 * 3 bottom-right), as micro_ddx / micro_ddy / *_fine. */
static void derivative(int op, const struct chan *a, struct chan *d)
{
    unsigned v = a->valid;
#define LANES_VALID(x, y) ((v >> (x)) & (v >> (y)) & 1u)
    switch (op) {
    case TGSI_OP_DDX:
        d->f[0] = d->f[1] = d->f[2] = d->f[3] = a->f[3] - a->f[2];
        d->valid = LANES_VALID(3, 2) ? ALL_LANES : 0;
        break;
    case TGSI_OP_DDY:
        d->f[0] = d->f[1] = d->f[2] = d->f[3] = a->f[2] - a->f[0];
        d->valid = LANES_VALID(2, 0) ? ALL_LANES : 0;
        break;
    case TGSI_OP_DDX_FINE:
        d->f[0] = d->f[1] = a->f[1] - a->f[0];
        d->f[2] = d->f[3] = a->f[3] - a->f[2];
        d->valid = (LANES_VALID(1, 0) ? 0x3u : 0) | (LANES_VALID(3, 2) ? 0xcu : 0);
        break;
    default: /* DDY_FINE */
        d->f[0] = d->f[2] = a->f[2] - a->f[0];
        d->f[1] = d->f[3] = a->f[3] - a->f[1];
        d->valid = (LANES_VALID(2, 0) ? 0x5u : 0) | (LANES_VALID(3, 1) ? 0xau : 0);
        break;
    }
#undef LANES_VALID
}

static int op_is_scalar(int op)
{
    switch (op) {
    case TGSI_OP_RCP: case TGSI_OP_RSQ: case TGSI_OP_SQRT: case TGSI_OP_EX2: case TGSI_OP_LG2:
    case TGSI_OP_POW: case TGSI_OP_COS: case TGSI_OP_SIN:
        return 1;
    default:
        return 0;
    }
}

/* exec_vector_unary/binary/trinary (and exec_ucmp): every channel of the write
 * mask is computed from its own source channels, then all are stored. */
static void exec_componentwise(struct machine *m, const struct tgsi_inst *in)
{
    struct chan result[4];
    for (unsigned c = 0; c < 4; c++) {
        if (!(in->dst.write_mask & (1u << c)))
            continue;
        struct chan s[3] = {zero_chan, zero_chan, zero_chan};
        for (unsigned i = 0; i < in->num_src; i++) {
            /* same data type decision as the parser's src_is_integer */
            int integer;
            switch (in->op) {
            case TGSI_OP_UCMP: integer = i == 0; break;
            case TGSI_OP_I2F: case TGSI_OP_NOT: case TGSI_OP_SHL: case TGSI_OP_AND:
            case TGSI_OP_OR: case TGSI_OP_MOD: case TGSI_OP_XOR: case TGSI_OP_IDIV:
            case TGSI_OP_IMAX: case TGSI_OP_IMIN: case TGSI_OP_INEG: case TGSI_OP_ISGE:
            case TGSI_OP_ISHR: case TGSI_OP_ISLT: case TGSI_OP_U2F: case TGSI_OP_UADD:
            case TGSI_OP_UDIV: case TGSI_OP_UMAD: case TGSI_OP_UMAX: case TGSI_OP_UMIN:
            case TGSI_OP_UMOD: case TGSI_OP_UMUL: case TGSI_OP_USEQ: case TGSI_OP_USGE:
            case TGSI_OP_USHR: case TGSI_OP_USLT: case TGSI_OP_USNE: case TGSI_OP_IABS:
            case TGSI_OP_ISSG: case TGSI_OP_IMUL_HI: case TGSI_OP_UMUL_HI:
                integer = 1;
                break;
            default:
                integer = 0;
                break;
            }
            fetch(m, &in->src[i], c, integer, &s[i]);
        }
        if (in->op == TGSI_OP_DDX || in->op == TGSI_OP_DDY || in->op == TGSI_OP_DDX_FINE ||
            in->op == TGSI_OP_DDY_FINE)
            derivative(in->op, &s[0], &result[c]);
        else
            alu(in->op, &s[0], &s[1], &s[2], &result[c]);
    }
    for (unsigned c = 0; c < 4; c++)
        if (in->dst.write_mask & (1u << c))
            store(m, in, c, &result[c]);
}

/* exec_scalar_unary/binary: source .x (after swizzle), result replicated. */
static void exec_scalar(struct machine *m, const struct tgsi_inst *in)
{
    struct chan a, b = zero_chan, r;
    fetch_f(m, in, 0, 0, &a);
    if (in->num_src > 1)
        fetch_f(m, in, 1, 0, &b);
    alu(in->op, &a, &b, &zero_chan, &r);
    store_replicated(m, in, &r);
}

/* exec_dp2/dp3/dp4: x*x, then y*y + acc, z*z + acc, ... (MAD, not fused). */
static void exec_dot(struct machine *m, const struct tgsi_inst *in, unsigned n)
{
    struct chan a, b, acc;
    fetch_f(m, in, 0, 0, &a);
    fetch_f(m, in, 1, 0, &b);
    alu(TGSI_OP_MUL, &a, &b, &zero_chan, &acc);
    for (unsigned c = 1; c < n; c++) {
        fetch_f(m, in, 0, c, &a);
        fetch_f(m, in, 1, c, &b);
        alu(TGSI_OP_MAD, &a, &b, &acc, &acc);
    }
    store_replicated(m, in, &acc);
}

static void set_all(struct chan *c, float v)
{
    for (int l = 0; l < 4; l++)
        c->f[l] = v;
    c->valid = ALL_LANES;
}

static void exec_lit(struct machine *m, const struct tgsi_inst *in)
{
    unsigned wm = in->dst.write_mask;
    struct chan one, r0, r1, r2, dz, dy, zero = zero_chan;
    set_all(&one, 1.0f);
    if (wm & 0x6) {
        fetch_f(m, in, 0, 0, &r0);
        if (wm & 0x4) {
            struct chan p128, m128;
            set_all(&p128, 128.0f);
            set_all(&m128, -128.0f);
            fetch_f(m, in, 0, 1, &r1);
            alu(TGSI_OP_MAX, &r1, &zero, &zero, &r1);
            fetch_f(m, in, 0, 3, &r2);
            alu(TGSI_OP_MIN, &r2, &p128, &zero, &r2);
            alu(TGSI_OP_MAX, &r2, &m128, &zero, &r2);
            alu(TGSI_OP_POW, &r1, &r2, &zero, &r1);
            /* micro_lt(0, r0, r1, 0): 0 < r0 ? r1 : 0 */
            dz.valid = r0.valid & r1.valid;
            for (int l = 0; l < 4; l++)
                dz.f[l] = 0.0f < r0.f[l] ? r1.f[l] : 0.0f;
            store(m, in, 2, &dz);
        }
        if (wm & 0x2) {
            alu(TGSI_OP_MAX, &r0, &zero, &zero, &dy);
            store(m, in, 1, &dy);
        }
    }
    if (wm & 0x1)
        store(m, in, 0, &one);
    if (wm & 0x8)
        store(m, in, 3, &one);
}

static void exec_dst(struct machine *m, const struct tgsi_inst *in)
{
    unsigned wm = in->dst.write_mask;
    struct chan a, b, d[4];
    set_all(&d[0], 1.0f);
    if (wm & 0x2) {
        fetch_f(m, in, 0, 1, &a);
        fetch_f(m, in, 1, 1, &b);
        alu(TGSI_OP_MUL, &a, &b, &zero_chan, &d[1]);
    }
    if (wm & 0x4)
        fetch_f(m, in, 0, 2, &d[2]);
    if (wm & 0x8)
        fetch_f(m, in, 1, 3, &d[3]);
    for (unsigned c = 0; c < 4; c++)
        if (wm & (1u << c))
            store(m, in, c, &d[c]);
}

static void exec_exp(struct machine *m, const struct tgsi_inst *in)
{
    unsigned wm = in->dst.write_mask;
    struct chan r0, r1, r2, one;
    set_all(&one, 1.0f);
    fetch_f(m, in, 0, 0, &r0);
    alu(TGSI_OP_FLR, &r0, &zero_chan, &zero_chan, &r1);
    if (wm & 0x1) {
        alu(TGSI_OP_EX2, &r1, &zero_chan, &zero_chan, &r2);
        store(m, in, 0, &r2);
    }
    if (wm & 0x2) {
        struct chan neg = r1;
        for (int l = 0; l < 4; l++) /* micro_sub: r0 - r1 */
            r2.f[l] = r0.f[l] - neg.f[l];
        r2.valid = r0.valid & r1.valid;
        store(m, in, 1, &r2);
    }
    if (wm & 0x4) {
        alu(TGSI_OP_EX2, &r0, &zero_chan, &zero_chan, &r2);
        store(m, in, 2, &r2);
    }
    if (wm & 0x8)
        store(m, in, 3, &one);
}

static void exec_log(struct machine *m, const struct tgsi_inst *in)
{
    unsigned wm = in->dst.write_mask;
    struct chan r0, r1, r2, one;
    set_all(&one, 1.0f);
    fetch_f(m, in, 0, 0, &r0);
    r2 = r0;
    for (int l = 0; l < 4; l++)
        r2.f[l] = fabsf(r0.f[l]);
    alu(TGSI_OP_LG2, &r2, &zero_chan, &zero_chan, &r1);
    alu(TGSI_OP_FLR, &r1, &zero_chan, &zero_chan, &r0);
    if (wm & 0x1)
        store(m, in, 0, &r0);
    if (wm & 0x2) {
        alu(TGSI_OP_EX2, &r0, &zero_chan, &zero_chan, &r0);
        alu(TGSI_OP_DIV, &r2, &r0, &zero_chan, &r0);
        store(m, in, 1, &r0);
    }
    if (wm & 0x4)
        store(m, in, 2, &r1);
    if (wm & 0x8)
        store(m, in, 3, &one);
}

/* tgsi_util_get_texture_coord_dim */
static int tex_coord_dim(int target)
{
    switch (target) {
    case TGSI_TEX_BUFFER: case TGSI_TEX_1D: case TGSI_TEX_SHADOW1D:
        return 1;
    case TGSI_TEX_2D: case TGSI_TEX_RECT: case TGSI_TEX_1D_ARRAY: case TGSI_TEX_SHADOW2D:
    case TGSI_TEX_SHADOWRECT: case TGSI_TEX_SHADOW1D_ARRAY: case TGSI_TEX_2D_MSAA:
        return 2;
    case TGSI_TEX_3D: case TGSI_TEX_CUBE: case TGSI_TEX_2D_ARRAY: case TGSI_TEX_SHADOWCUBE:
    case TGSI_TEX_SHADOW2D_ARRAY: case TGSI_TEX_2D_ARRAY_MSAA:
        return 3;
    default:
        return 4;
    }
}

/* tgsi_util_get_shadow_ref_src_index */
static int tex_shadow_ref(int target)
{
    switch (target) {
    case TGSI_TEX_SHADOW1D: case TGSI_TEX_SHADOW2D: case TGSI_TEX_SHADOWRECT:
    case TGSI_TEX_SHADOW1D_ARRAY:
        return 2;
    case TGSI_TEX_SHADOWCUBE: case TGSI_TEX_SHADOW2D_ARRAY: case TGSI_TEX_2D_MSAA:
    case TGSI_TEX_2D_ARRAY_MSAA:
        return 3;
    case TGSI_TEX_SHADOWCUBEARRAY:
        return 4;
    default:
        return -1;
    }
}

/* fetch_texel_offsets: lane 0 of the offset register, truncated to int8. */
static unsigned fetch_offsets(const struct machine *m, const struct tgsi_inst *in, int8_t offsets[3])
{
    offsets[0] = offsets[1] = offsets[2] = 0;
    if (!in->num_offsets)
        return ALL_LANES;
    struct tgsi_src src = in->offset;
    unsigned valid = ALL_LANES;
    src.negate = src.absolute = 0;
    for (unsigned k = 0; k < 3; k++) {
        struct chan v;
        fetch(m, &src, k, 1, &v);
        offsets[k] = (int8_t)(uint8_t)(v.u[0] & 0xffu);
        if (!(v.valid & 1u))
            valid = 0;
    }
    return valid;
}

static unsigned quad_valid(const struct chan *c)
{
    return c->valid == ALL_LANES ? ALL_LANES : 0;
}

static void store_texel_result(struct machine *m, const struct tgsi_inst *in, float rgba[4][4],
                               unsigned valid)
{
    for (unsigned c = 0; c < 4; c++) {
        if (!(in->dst.write_mask & (1u << c)))
            continue;
        struct chan r;
        memcpy(r.f, rgba[c], sizeof r.f);
        r.valid = valid;
        store(m, in, c, &r);
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
    if (!sampler || !sampler->get_samples)
        return -1;
    unsigned unit = (unsigned)in->src[1].index;
    int8_t offsets[3];
    unsigned valid = fetch_offsets(m, in, offsets);
    int dim = tex_coord_dim(in->tex_target);
    int shadow_ref = tex_shadow_ref(in->tex_target);
    const struct chan *args[5];
    struct chan r[5];
    const struct chan *proj = NULL;
    enum tbr_sampler_control control = TBR_SAMPLER_LOD_NONE;

    for (int i = 0; i < 5; i++)
        args[i] = &zero_chan;
    if (modifier != TEX_MOD_NONE) {
        fetch_f(m, in, 0, 3, &r[4]);
        if (modifier == TEX_MOD_PROJECTED)
            proj = &r[4];
        else
            args[4] = &r[4];
        if (modifier == TEX_MOD_EXPLICIT_LOD)
            control = TBR_SAMPLER_LOD_EXPLICIT;
        else if (modifier == TEX_MOD_LOD_BIAS)
            control = TBR_SAMPLER_LOD_BIAS;
    }
    for (int i = 0; i < dim; i++) {
        fetch_f(m, in, 0, (unsigned)i, &r[i]);
        if (proj) {
            for (int l = 0; l < 4; l++)
                r[i].f[l] = r[i].f[l] / proj->f[l];
            r[i].valid &= proj->valid;
        }
        args[i] = &r[i];
    }
    if (shadow_ref >= 0) {
        fetch_f(m, in, (unsigned)shadow_ref / 4, (unsigned)shadow_ref % 4, &r[shadow_ref]);
        if (proj) {
            for (int l = 0; l < 4; l++)
                r[shadow_ref].f[l] = r[shadow_ref].f[l] / proj->f[l];
            r[shadow_ref].valid &= proj->valid;
        }
        args[shadow_ref] = &r[shadow_ref];
    }
    for (int i = 0; i < 5; i++)
        valid &= quad_valid(args[i]);
    float rgba[4][4];
    memset(rgba, 0, sizeof rgba);
    sampler->get_samples(sampler->ctx, unit, unit, args[0]->f, args[1]->f, args[2]->f, args[3]->f,
                         args[4]->f, NULL, offsets, control, rgba);
    store_texel_result(m, in, rgba, valid);
    return 0;
}

/* exec_txd: explicit derivatives from src1 (d/dx) and src2 (d/dy). */
static int exec_txd(struct machine *m, const struct tgsi_inst *in)
{
    const struct tbr_tgsi_sampler *sampler = m->quad->sampler;
    if (!sampler || !sampler->get_samples)
        return -1;
    unsigned unit = (unsigned)in->src[3].index;
    int8_t offsets[3];
    unsigned valid = fetch_offsets(m, in, offsets);
    float derivs[3][2][4];
    memset(derivs, 0, sizeof derivs);
    struct chan r[4];
    const struct chan *args[5] = {&zero_chan, &zero_chan, &zero_chan, &zero_chan, &zero_chan};
    int coords, deriv_chans;
    switch (in->tex_target) {
    case TGSI_TEX_1D: coords = 1; deriv_chans = 1; break;
    case TGSI_TEX_SHADOW1D: case TGSI_TEX_1D_ARRAY: case TGSI_TEX_SHADOW1D_ARRAY:
        coords = 3; deriv_chans = 1; break;
    case TGSI_TEX_2D: case TGSI_TEX_RECT: coords = 2; deriv_chans = 2; break;
    case TGSI_TEX_SHADOW2D: case TGSI_TEX_SHADOWRECT: case TGSI_TEX_2D_ARRAY:
    case TGSI_TEX_SHADOW2D_ARRAY:
        coords = 4; deriv_chans = 2; break;
    default: /* 3D, CUBE, SHADOWCUBE */
        coords = 4; deriv_chans = 3; break;
    }
    for (int i = 0; i < coords; i++) {
        fetch_f(m, in, 0, (unsigned)i, &r[i]);
        args[i] = &r[i];
        valid &= quad_valid(&r[i]);
    }
    for (int d = 0; d < deriv_chans; d++) {
        struct chan dx, dy;
        fetch_f(m, in, 1, (unsigned)d, &dx);
        fetch_f(m, in, 2, (unsigned)d, &dy);
        memcpy(derivs[d][0], dx.f, sizeof dx.f);
        memcpy(derivs[d][1], dy.f, sizeof dy.f);
        valid &= quad_valid(&dx) & quad_valid(&dy);
    }
    float rgba[4][4];
    memset(rgba, 0, sizeof rgba);
    sampler->get_samples(sampler->ctx, unit, unit, args[0]->f, args[1]->f, args[2]->f, args[3]->f,
                         args[4]->f, derivs, offsets, TBR_SAMPLER_DERIVS_EXPLICIT, rgba);
    store_texel_result(m, in, rgba, valid);
    return 0;
}

/* exec_txf: integer coordinates and lod (src0.w); each lane is independent.
 * Coordinates the target does not use are uninitialised in tgsi_exec; 0 here. */
static int exec_txf(struct machine *m, const struct tgsi_inst *in)
{
    const struct tbr_tgsi_sampler *sampler = m->quad->sampler;
    if (!sampler || !sampler->get_texel)
        return -1;
    unsigned unit = (unsigned)in->src[1].index;
    int8_t offsets[3];
    unsigned valid = fetch_offsets(m, in, offsets);
    struct chan r[4] = {zero_chan, zero_chan, zero_chan, zero_chan};
    int coords;
    switch (in->tex_target) {
    case TGSI_TEX_3D: case TGSI_TEX_2D_ARRAY: case TGSI_TEX_SHADOW2D_ARRAY:
        coords = 3; break;
    case TGSI_TEX_2D: case TGSI_TEX_RECT: case TGSI_TEX_SHADOW1D_ARRAY: case TGSI_TEX_SHADOW2D:
    case TGSI_TEX_SHADOWRECT: case TGSI_TEX_1D_ARRAY:
        coords = 2; break;
    default:
        coords = 1; break;
    }
    fetch_i(m, in, 0, 3, &r[3]);
    for (int i = coords - 1; i >= 0; i--)
        fetch_i(m, in, 0, (unsigned)i, &r[i]);
    for (int i = 0; i < 4; i++)
        valid &= r[i].valid;
    float rgba[4][4];
    memset(rgba, 0, sizeof rgba);
    sampler->get_texel(sampler->ctx, unit, r[0].i, r[1].i, r[2].i, r[3].i, offsets, rgba);
    store_texel_result(m, in, rgba, valid);
    return 0;
}

/* exec_txq: the level is lane 0 of src0.x; one answer for the quad. */
static int exec_txq(struct machine *m, const struct tgsi_inst *in)
{
    const struct tbr_tgsi_sampler *sampler = m->quad->sampler;
    if (!sampler || !sampler->get_dims)
        return -1;
    struct chan level;
    fetch_i(m, in, 0, 0, &level);
    int dims[4] = {0, 0, 0, 0};
    sampler->get_dims(sampler->ctx, (unsigned)in->src[1].index, level.i[0], dims);
    unsigned valid = level.valid & 1u ? ALL_LANES : 0;
    for (unsigned c = 0; c < 4; c++) {
        if (!(in->dst.write_mask & (1u << c)))
            continue;
        struct chan r;
        for (int l = 0; l < 4; l++)
            r.i[l] = dims[c];
        r.valid = valid;
        store(m, in, c, &r);
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
        if (tested & (1u << swz))
            continue;
        tested |= 1u << swz;
        struct chan v;
        fetch_f(m, in, 0, c, &v);
        if ((v.valid & m->exec_mask) != m->exec_mask)
            return -1;
        for (unsigned l = 0; l < 4; l++)
            if (v.f[l] < 0.0f)
                kill |= 1u << l;
    }
    m->kill_mask |= kill & m->exec_mask;
    return 0;
}

static int exec_if(struct machine *m, const struct tgsi_inst *in, int *pc)
{
    if (m->cond_top >= MAX_NESTING)
        return -1;
    m->cond_stack[m->cond_top++] = m->cond_mask;
    struct chan v;
    if (in->op == TGSI_OP_UIF)
        fetch_i(m, in, 0, 0, &v);
    else
        fetch_f(m, in, 0, 0, &v);
    /* only the executing lanes' decisions are observable (see file comment) */
    if ((v.valid & m->exec_mask) != m->exec_mask)
        return -1;
    for (unsigned l = 0; l < 4; l++) {
        int taken = in->op == TGSI_OP_UIF ? v.u[l] != 0 : v.f[l] != 0.0f;
        if (!taken)
            m->cond_mask &= ~(1u << l);
    }
    update_exec_mask(m);
    if (!m->cond_mask)
        *pc = in->label;
    return 0;
}

/* exec_declaration for fragment inputs: FACE gets machine->Face in x; the others
 * are evaluated at the quad from setup's coefficients (eval_*_coef). */
static void interpolate_inputs(struct machine *m, const float quad_x[4], const float quad_y[4],
                               const float quad_w[4])
{
    const struct tbr_tgsi_program *prog = m->prog;
    const struct tbr_tgsi_fs_quad *q = m->quad;
    for (unsigned d = 0; d < prog->num_input_decls; d++) {
        const struct tgsi_input_decl *decl = &prog->input_decls[d];
        if (decl->semantic_name == TBR_TGSI_SEMANTIC_FACE) {
            struct chan *x = &m->inputs[decl->first].c[0];
            set_all(x, q->face);
            continue;
        }
        int mode = decl->interpolate;
        if (mode == TBR_TGSI_INTERPOLATE_COLOR)
            mode = q->flatshade_color ? TBR_TGSI_INTERPOLATE_CONSTANT : TBR_TGSI_INTERPOLATE_PERSPECTIVE;
        for (unsigned c = 0; c < 4; c++) {
            if (!(decl->usage_mask & (1u << c)))
                continue;
            for (int i = decl->first; i <= decl->last; i++) {
                const struct tbr_interp_coef *coef = &q->coef[i];
                struct chan *in = &m->inputs[i].c[c];
                in->valid = ALL_LANES;
                if (mode == TBR_TGSI_INTERPOLATE_CONSTANT) {
                    for (int l = 0; l < 4; l++)
                        in->f[l] = coef->a0[c];
                    continue;
                }
                const float dadx = coef->dadx[c], dady = coef->dady[c];
                const float a0 = coef->a0[c] + dadx * quad_x[0] + dady * quad_y[0];
                const float v[4] = {a0, a0 + dadx, a0 + dady, a0 + dadx + dady};
                for (int l = 0; l < 4; l++)
                    in->f[l] = mode == TBR_TGSI_INTERPOLATE_PERSPECTIVE ? v[l] / quad_w[l] : v[l];
            }
        }
    }
}

static int execute(struct machine *m)
{
    const struct tbr_tgsi_program *prog = m->prog;
    int pc = 0;
    for (long steps = 0; pc >= 0; steps++) {
        if (steps >= MAX_STEPS || pc >= (int)prog->num_insts)
            return -1;
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
        case TGSI_OP_IF: case TGSI_OP_UIF: rc = exec_if(m, in, &pc); break;
        case TGSI_OP_ELSE: {
            unsigned prev = m->cond_stack[m->cond_top - 1];
            m->cond_mask = ~m->cond_mask & prev;
            update_exec_mask(m);
            if (!m->cond_mask)
                pc = in->label;
            break;
        }
        case TGSI_OP_ENDIF:
            m->cond_mask = m->cond_stack[--m->cond_top];
            update_exec_mask(m);
            break;
        case TGSI_OP_BGNLOOP:
            if (m->loop_top >= MAX_NESTING)
                return -1;
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
        case TGSI_OP_NOP:
            break;
        case TGSI_OP_END:
            pc = -1;
            break;
        default:
            if (op_is_scalar(in->op))
                exec_scalar(m, in);
            else
                exec_componentwise(m, in);
            break;
        }
        if (rc)
            return -1;
    }
    return 0;
}

int tbr_tgsi_run_fs(const struct tbr_tgsi_program *prog, const struct tbr_tgsi_fs_quad *quad,
                    struct tbr_tgsi_fs_result *result)
{
    struct machine m;
    m.prog = prog;
    m.quad = quad;
    m.kill_mask = 0;
    m.exec_mask = m.cond_mask = m.loop_mask = m.cont_mask = ALL_LANES;
    m.cond_top = m.loop_top = m.cont_top = m.loop_label_top = 0;
    for (unsigned i = 0; i < TBR_TGSI_MAX_INPUTS; i++)
        for (unsigned c = 0; c < 4; c++)
            m.inputs[i].c[c].valid = 0;
    for (unsigned i = 0; i < TBR_TGSI_MAX_OUTPUTS; i++)
        for (unsigned c = 0; c < 4; c++)
            m.outputs[i].c[c] = (struct chan){{{0}}, 0};
    for (unsigned i = 0; i < prog->num_temps; i++)
        for (unsigned c = 0; c < 4; c++)
            m.temps[i].c[c].valid = 0;

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

    memset(result, 0, sizeof *result);
    result->kill_mask = m.kill_mask;
    result->mask = quad->non_helper_mask & ~m.kill_mask & ALL_LANES;
    for (unsigned i = 0; i < prog->num_outputs && i < TBR_TGSI_MAX_OUTPUTS; i++) {
        for (unsigned c = 0; c < 4; c++) {
            const struct chan *o = &m.outputs[i].c[c];
            result->output_lanes_valid[i][c] = (uint8_t)o->valid;
            for (unsigned l = 0; l < 4; l++)
                result->outputs[i][c][l] = o->valid & (1u << l) ? o->f[l] : 0.0f;
        }
        if (!prog->output_declared[i])
            continue;
        unsigned needed; /* channels exec_run copies out */
        switch (prog->outputs[i].semantic_name) {
        case TBR_TGSI_SEMANTIC_COLOR: needed = 0xf; break;
        case TBR_TGSI_SEMANTIC_POSITION: needed = 0x4; break;
        default: needed = 0x2; break; /* STENCIL */
        }
        for (unsigned c = 0; c < 4; c++)
            if ((needed & (1u << c)) && (m.outputs[i].c[c].valid & result->mask) != result->mask)
                rc = -1;
    }
    return rc;
}
