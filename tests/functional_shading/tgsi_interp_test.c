/*
 * Tests of the TGSI fragment-shader interpreter (functional/reference/tgsi_*):
 * parsing real tgsi_dump texts of glmark2 shaders and rejecting what is not
 * implemented, per-opcode arithmetic as Mesa's tgsi_exec does it (operation
 * order, NaN and division cases, integer ops), input interpolation, execution
 * masks of divergent control flow and kills, and the texture instructions'
 * argument marshalling to the sampler.
 * Usage: tgsi_interp_test GROUP DATA_DIR   (GROUP: parse ops interp flow tex untracked)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgsi_interp.h"

static int failures;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                                   \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Same float, bit for bit (NaN-safe, -0 distinct). */
static int same(float a, float b) { return bits(a) == bits(b); }

static char *read_text(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static struct tbr_tgsi_program *parse_ok(const char *text)
{
    char err[256];
    struct tbr_tgsi_program *p = tbr_tgsi_parse(text, err, sizeof err);
    if (!p) {
        fprintf(stderr, "unexpected parse failure: %s\n--\n%s\n", err, text);
        failures++;
    }
    return p;
}

/* Parse must fail with a message containing `why`. */
static void parse_fails(const char *text, const char *why)
{
    char err[256];
    struct tbr_tgsi_program *p = tbr_tgsi_parse(text, err, sizeof err);
    if (p) {
        fprintf(stderr, "parse unexpectedly succeeded (wanted '%s'):\n%s\n", why, text);
        failures++;
        tbr_tgsi_free(p);
        return;
    }
    if (!strstr(err, why)) {
        fprintf(stderr, "parse failed with '%s', wanted '%s'\n", err, why);
        failures++;
    }
}

/* ---- a quad with simple defaults ---------------------------------------- */

struct test_quad {
    struct tbr_tgsi_fs_quad q;
    struct tbr_interp_coef pos;
    struct tbr_interp_coef coef[TBR_TGSI_MAX_INPUTS];
    uint32_t consts[64];
};

static void quad_init(struct test_quad *t)
{
    memset(t, 0, sizeof *t);
    t->q.x0 = 10.0f;
    t->q.y0 = 20.0f;
    t->pos.a0[3] = 1.0f; /* w = 1 everywhere */
    t->q.pos_coef = &t->pos;
    t->q.coef = t->coef;
    t->q.face = 1.0f;
    t->q.non_helper_mask = 0xf;
    t->q.consts[0] = t->consts;
    t->q.const_bytes[0] = sizeof t->consts;
}

static void set_const(struct test_quad *t, unsigned reg, float x, float y, float z, float w)
{
    t->consts[reg * 4 + 0] = bits(x);
    t->consts[reg * 4 + 1] = bits(y);
    t->consts[reg * 4 + 2] = bits(z);
    t->consts[reg * 4 + 3] = bits(w);
}

static void set_const_u(struct test_quad *t, unsigned reg, uint32_t x, uint32_t y, uint32_t z, uint32_t w)
{
    t->consts[reg * 4 + 0] = x;
    t->consts[reg * 4 + 1] = y;
    t->consts[reg * 4 + 2] = z;
    t->consts[reg * 4 + 3] = w;
}

/* Run `body` (instructions after the header) with OUT[0] COLOR and CONST[0][0..15]. */
static int run_body(struct test_quad *t, const char *body, struct tbr_tgsi_fs_result *r)
{
    char text[4096];
    snprintf(text, sizeof text, "FRAG\nDCL OUT[0], COLOR\nDCL CONST[0][0..15]\nDCL TEMP[0..3]\n%s", body);
    struct tbr_tgsi_program *p = parse_ok(text);
    if (!p) return -2;
    int rc = tbr_tgsi_run_fs(p, &t->q, r);
    tbr_tgsi_free(p);
    return rc;
}

/* OUT[0] channel c, lane 0, of a body whose result is the same in every lane. */
static float op_result(struct test_quad *t, const char *body, unsigned c)
{
    struct tbr_tgsi_fs_result r;
    int rc = run_body(t, body, &r);
    if (rc != 0) {
        fprintf(stderr, "run failed (%d) for:\n%s\n", rc, body);
        failures++;
        return NAN;
    }
    for (unsigned l = 1; l < 4; l++) CHECK(same(r.outputs[0][c][l], r.outputs[0][c][0]));
    return r.outputs[0][c][0];
}

/* ---- parse ---------------------------------------------------------------- */

static void test_parse(const char *data)
{
    char *text = read_text(data, "glmark2_texture.tgsi");
    struct tbr_tgsi_program *p = parse_ok(text);
    if (p) {
        CHECK(tbr_tgsi_num_inputs(p) == 1);
        CHECK(tbr_tgsi_num_outputs(p) == 1);
        const struct tbr_tgsi_io *in = tbr_tgsi_input(p, 0);
        CHECK(in && in->semantic_name == TBR_TGSI_SEMANTIC_GENERIC && in->semantic_index == 0);
        CHECK(in && in->interpolate == TBR_TGSI_INTERPOLATE_PERSPECTIVE && in->usage_mask == 0x3);
        const struct tbr_tgsi_io *out = tbr_tgsi_output(p, 0);
        CHECK(out && out->semantic_name == TBR_TGSI_SEMANTIC_COLOR);
        CHECK(tbr_tgsi_uses_texture(p));
        CHECK(tbr_tgsi_color0_writes_all_cbufs(p));
        CHECK(tbr_tgsi_input(p, 1) == NULL);
    }
    tbr_tgsi_free(p);
    free(text);

    text = read_text(data, "glmark2_bump.tgsi");
    p = parse_ok(text);
    if (p) {
        CHECK(!tbr_tgsi_uses_texture(p));
        CHECK(tbr_tgsi_input(p, 0)->usage_mask == 0x7);
    }
    tbr_tgsi_free(p);
    free(text);

    text = read_text(data, "glmark2_jellyfish.tgsi");
    p = parse_ok(text);
    if (p) {
        CHECK(tbr_tgsi_num_inputs(p) == 4);
        CHECK(tbr_tgsi_input(p, 3)->semantic_index == 3);
    }
    tbr_tgsi_free(p);
    free(text);

    /* terrain has "IMM[1] FLT32 {    1.0000, ...}": the 4-decimal text does not
     * identify a float, so the shader is rejected... */
    text = read_text(data, "glmark2_terrain.tgsi");
    parse_fails(text, "FLT32 immediate IMM[1]");
    /* ...but the same shader dumped with TGSI_DUMP_FLOAT_AS_HEX parses. */
    char *hex = strstr(text, "IMM[1] FLT32 {");
    CHECK(hex != NULL);
    if (hex) {
        const char *repl = "IMM[1] FLT32 {0x3f800000, 0x00000000, 0x00000000, 0x00000000}";
        char *eol = strchr(hex, '\n');
        size_t tail = strlen(eol);
        memmove(hex + strlen(repl), eol, tail + 1);
        memcpy(hex, repl, strlen(repl));
        p = parse_ok(text);
        tbr_tgsi_free(p);
    }
    free(text);

    /* FLT32 text that names exactly one float is accepted (ulp > 1e-4 there) */
    struct test_quad t;
    quad_init(&t);
    parse_fails("FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 {    0.5000,     0.0000,     0.0000,     0.0000}\n"
                "  0: MOV OUT[0], IMM[0]\n  1: END\n",
                "FLT32");
    p = parse_ok("FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 {16777216.0000, 4096.0000, -8192.0000, 2048.5000}\n"
                 "  0: MOV OUT[0], IMM[0]\n  1: END\n");
    if (p) {
        struct tbr_tgsi_fs_result r;
        CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == 0);
        CHECK(same(r.outputs[0][0][0], 16777216.0f) && same(r.outputs[0][2][3], -8192.0f));
        CHECK(same(r.outputs[0][3][1], 2048.5f));
    }
    tbr_tgsi_free(p);

    /* modifiers, swizzles, _SAT, 2D constants, labels all parse */
    p = parse_ok("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE, CENTROID\nDCL OUT[0], COLOR\n"
                 "DCL CONST[0][0..1]\nDCL CONST[1][0]\nDCL TEMP[0..1], LOCAL\n"
                 "IMM[0] UINT32 {0, 1, 2, 3}\nIMM[1] INT32 {-1, 0, 5, -7}\n"
                 "  0: ADD_SAT TEMP[0].xz, -|CONST[0][1].wzyx|, CONST[1][0]\n"
                 "  1: IF TEMP[0].xxxx :3\n  2:   MOV TEMP[1], IN[0]\n  3: ELSE :5\n"
                 "  4:   MOV TEMP[1], -IN[0].yyyy\n  5: ENDIF\n  6: MOV OUT[0], TEMP[1]\n  7: END\n");
    tbr_tgsi_free(p);

    /* rejections, each with a message naming the problem */
    parse_fails("VERT\nDCL IN[0]\n  0: END\n", "not a fragment shader");
    parse_fails("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\nDCL ADDR[0]\n  0: END\n", "ADDR");
    parse_fails("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0..3]\n  0: MOV OUT[0], TEMP[ADDR[0].x+1]\n  1: END\n", "indirect");
    parse_fails("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\n  0: BFI OUT[0], TEMP[0], TEMP[0], TEMP[0], TEMP[0]\n  1: END\n",
                "opcode BFI not supported");
    parse_fails("FRAG\nDCL SV[0], POSITION\nDCL OUT[0], COLOR\n  0: END\n", "SV");
    parse_fails("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\n  0: UADD OUT[0], |TEMP[0]|, TEMP[0]\n  1: END\n",
                "absolute value on an integer source");
    parse_fails("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\n  0: IF TEMP[0].xxxx :2\n  1: ELSE :2\n"
                "  2: ENDIF\n  3: END\n",
                "not to its ELSE");
    parse_fails(
        "FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\nDCL SAMP[0]\n  0: TEX OUT[0], TEMP[0], SAMP[0], CUBEARRAY\n  1: END\n",
        "texture target");
    parse_fails("FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\n  0: MOV OUT[0], IN[0]\n  1: END\n",
                "IN[0] read but not declared");
    parse_fails("FRAG\nDCL OUT[0], SAMPLEMASK\n  0: END\n", "declaration attribute");
    parse_fails("FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT64 {1.0, 2.0}\n  0: END\n", "immediate type");
    parse_fails("FRAG\nDCL OUT[0], COLOR\n  0: MOV OUT[0], OUT[0]\n", "END");
    parse_fails("FRAG\nPROPERTY FS_BLEND_EQUATION_ADVANCED 1\n  0: END\n", "property");

    /* the opcode list names what the terrain shader needs */
    const char *ops = tbr_tgsi_supported_opcodes();
    CHECK(strstr(ops, "FSGE ") && strstr(ops, "UCMP ") && strstr(ops, "LRP ") && strstr(ops, "TEX "));
    CHECK(!strstr(ops, "BFI "));
}

/* ---- opcode arithmetic ---------------------------------------------------- */

static void test_ops(void)
{
    struct test_quad t;
    quad_init(&t);

    /* DP3 accumulates x*x', then y*y' + acc, then z*z' + acc: with (1e8, 1, -1e8)
     * the 1 is lost (ulp(1e8) = 8) and the result is 0; pairing x with z first would give 1. */
    set_const(&t, 0, 1e8f, 1.0f, -1e8f, 5.0f);
    set_const(&t, 1, 1.0f, 1.0f, 1.0f, 1.0f);
    float dp3 = op_result(&t, "  0: DP3 OUT[0], CONST[0][0], CONST[0][1]\n  1: END\n", 2);
    CHECK(same(dp3, 0.0f));
    float dp4 = op_result(&t, "  0: DP4 OUT[0], CONST[0][0], CONST[0][1]\n  1: END\n", 0);
    CHECK(same(dp4, 5.0f));
    float dp2 = op_result(&t, "  0: DP2 OUT[0], CONST[0][0].xzyw, CONST[0][1]\n  1: END\n", 0);
    CHECK(same(dp2, 0.0f));

    /* MAD is not fused: 1.0000001 * 1.0000001 - 1.0000002 rounds the product first */
    float a = from_bits(0x3f800001), c = -from_bits(0x3f800002);
    set_const(&t, 2, a, a, c, 0.0f);
    volatile float prod = a * a;
    float expect_mad = prod + c;
    float mad = op_result(&t, "  0: MAD OUT[0], CONST[0][2].xxxx, CONST[0][2].yyyy, CONST[0][2].zzzz\n  1: END\n", 0);
    CHECK(same(mad, expect_mad));
    CHECK(!same(mad, fmaf(a, a, c))); /* a fused result differs here */

    /* LRP = s0 * (s1 - s2) + s2 */
    set_const(&t, 3, 0.1f, 0.1f, 0.1f, 0.0f);
    volatile float l0 = 0.1f, l1 = 0.1f, l2 = 0.1f;
    volatile float diff = l1 - l2;
    volatile float lprod = l0 * diff;
    float expect_lrp = lprod + l2;
    volatile float alt1 = l0 * l1, alt2 = (1.0f - l0) * l2;
    float alt_lrp = alt1 + alt2;
    float lrp = op_result(&t, "  0: LRP OUT[0], CONST[0][3].xxxx, CONST[0][3].yyyy, CONST[0][3].zzzz\n  1: END\n", 1);
    CHECK(same(lrp, expect_lrp));
    CHECK(!same(expect_lrp, alt_lrp)); /* the formula matters for these values */

    /* FLR / FRC / CEIL / TRUNC / ROUND of negatives */
    set_const(&t, 4, -1.5f, -1.25f, 2.5f, -0.5f);
    CHECK(same(op_result(&t, "  0: FLR OUT[0], CONST[0][4]\n  1: END\n", 0), -2.0f));
    CHECK(same(op_result(&t, "  0: FRC OUT[0], CONST[0][4]\n  1: END\n", 1), 0.75f));
    CHECK(same(op_result(&t, "  0: CEIL OUT[0], CONST[0][4]\n  1: END\n", 3), -0.0f));
    CHECK(same(op_result(&t, "  0: TRUNC OUT[0], CONST[0][4]\n  1: END\n", 0), -1.0f));
    CHECK(same(op_result(&t, "  0: ROUND OUT[0], CONST[0][4]\n  1: END\n", 2), 2.0f)); /* to even */
    CHECK(same(op_result(&t, "  0: ROUND OUT[0], CONST[0][4]\n  1: END\n", 0), -2.0f));

    /* DIV / RCP by zero, SQRT / RSQ */
    set_const(&t, 5, 1.0f, 0.0f, -1.0f, 4.0f);
    CHECK(isinf(op_result(&t, "  0: DIV OUT[0], CONST[0][5].xxxx, CONST[0][5].yyyy\n  1: END\n", 0)));
    CHECK(same(op_result(&t, "  0: DIV OUT[0], CONST[0][5].zzzz, CONST[0][5].yyyy\n  1: END\n", 0), -INFINITY));
    CHECK(isnan(op_result(&t, "  0: DIV OUT[0], CONST[0][5].yyyy, CONST[0][5].yyyy\n  1: END\n", 0)));
    CHECK(same(op_result(&t, "  0: RCP OUT[0], -CONST[0][5].yxxx\n  1: END\n", 3), -INFINITY));
    CHECK(same(op_result(&t, "  0: RSQ OUT[0], CONST[0][5].wxxx\n  1: END\n", 2), 0.5f));
    CHECK(same(op_result(&t, "  0: SQRT OUT[0], CONST[0][5].wwww\n  1: END\n", 1), 2.0f));
    /* scalar opcodes read .x after the swizzle and replicate */
    CHECK(same(op_result(&t, "  0: RCP OUT[0], CONST[0][5].wxyz\n  1: END\n", 1), 0.25f));

    /* EX2 = powf(2, x), LG2 = logf(x) * 1.442695f, POW = powf */
    set_const(&t, 6, 0.3f, 10.0f, 1.7f, 0.0f);
    volatile float x3 = 0.3f, x10 = 10.0f, x17 = 1.7f;
    CHECK(same(op_result(&t, "  0: EX2 OUT[0], CONST[0][6].xxxx\n  1: END\n", 0), powf(2.0f, x3)));
    volatile float ln10 = logf(x10);
    CHECK(same(op_result(&t, "  0: LG2 OUT[0], CONST[0][6].yyyy\n  1: END\n", 0), ln10 * 1.442695f));
    CHECK(same(op_result(&t, "  0: POW OUT[0], CONST[0][6].zzzz, CONST[0][6].yyyy\n  1: END\n", 0), powf(x17, x10)));

    /* _SAT clamps with fminf(fmaxf(x, 0), 1): NaN becomes 0 */
    set_const_u(&t, 7, 0x7fc00000u, bits(-0.5f), bits(2.0f), bits(0.25f));
    CHECK(same(op_result(&t, "  0: MOV_SAT OUT[0], CONST[0][7]\n  1: END\n", 0), 0.0f));
    CHECK(same(op_result(&t, "  0: MOV_SAT OUT[0], CONST[0][7]\n  1: END\n", 1), 0.0f));
    CHECK(same(op_result(&t, "  0: MOV_SAT OUT[0], CONST[0][7]\n  1: END\n", 2), 1.0f));
    CHECK(same(op_result(&t, "  0: MOV_SAT OUT[0], CONST[0][7]\n  1: END\n", 3), 0.25f));
    /* MOV keeps NaN bits; MAX with NaN gives the other operand (fmaxf) */
    CHECK(bits(op_result(&t, "  0: MOV OUT[0], CONST[0][7]\n  1: END\n", 0)) == 0x7fc00000u);
    CHECK(same(op_result(&t, "  0: MAX OUT[0], CONST[0][7].xxxx, CONST[0][7].wwww\n  1: END\n", 0), 0.25f));
    CHECK(same(op_result(&t, "  0: MIN OUT[0], CONST[0][7].yyyy, CONST[0][7].zzzz\n  1: END\n", 0), -0.5f));
    /* abs and negate are float sign operations */
    CHECK(same(op_result(&t, "  0: MOV OUT[0], -|CONST[0][7].wwww|\n  1: END\n", 0), -0.25f));

    /* comparisons: SLT gives 1.0/0.0, FSGE gives ~0/0, AND with 1.0f bits (terrain) */
    set_const(&t, 8, 1.0f, 2.0f, 0.0f, -0.0f);
    CHECK(same(op_result(&t, "  0: SLT OUT[0], CONST[0][8].xxxx, CONST[0][8].yyyy\n  1: END\n", 0), 1.0f));
    CHECK(bits(op_result(&t, "  0: FSGE OUT[0], CONST[0][8].zzzz, CONST[0][8].wwww\n  1: END\n", 0)) == ~0u);
    CHECK(bits(op_result(&t, "  0: FSLT OUT[0], CONST[0][8].zzzz, CONST[0][8].wwww\n  1: END\n", 0)) == 0u);
    CHECK(same(op_result(&t,
                         "  0: FSGE TEMP[0], CONST[0][8].yyyy, CONST[0][8].xxxx\n"
                         "  1: AND OUT[0], TEMP[0], CONST[0][8].xxxx\n  2: END\n",
                         0),
               1.0f));
    CHECK(same(op_result(&t, "  0: SSG OUT[0], CONST[0][8].wwww\n  1: END\n", 0), 0.0f));
    CHECK(same(op_result(&t, "  0: SSG OUT[0], -CONST[0][8].yyyy\n  1: END\n", 0), -1.0f));
    /* CMP: s0 < 0 ? s1 : s2 (-0 is not < 0); UCMP: s0 != 0 bits */
    CHECK(same(op_result(&t, "  0: CMP OUT[0], CONST[0][8].wwww, CONST[0][8].xxxx, CONST[0][8].yyyy\n  1: END\n", 0),
               2.0f));
    CHECK(same(op_result(&t, "  0: UCMP OUT[0], CONST[0][8].wwww, CONST[0][8].xxxx, CONST[0][8].yyyy\n  1: END\n", 0),
               1.0f));

    /* integer ops */
    set_const_u(&t, 9, 0xffffffffu, 7u, 0u, (uint32_t)-8);
    CHECK(bits(op_result(&t, "  0: UADD OUT[0], CONST[0][9].xxxx, CONST[0][9].yyyy\n  1: END\n", 0)) == 6u);
    /* '-' on an integer source is an integer negation */
    CHECK(bits(op_result(&t, "  0: UADD OUT[0], CONST[0][9].yyyy, -CONST[0][9].yyyy\n  1: END\n", 0)) == 0u);
    CHECK(bits(op_result(&t, "  0: IDIV OUT[0], CONST[0][9].yyyy, CONST[0][9].zzzz\n  1: END\n", 0)) == 0u);
    CHECK(bits(op_result(&t, "  0: UDIV OUT[0], CONST[0][9].yyyy, CONST[0][9].zzzz\n  1: END\n", 0)) == ~0u);
    CHECK(bits(op_result(&t, "  0: MOD OUT[0], CONST[0][9].yyyy, CONST[0][9].zzzz\n  1: END\n", 0)) == ~0u);
    CHECK(bits(op_result(&t, "  0: IDIV OUT[0], CONST[0][9].wwww, CONST[0][9].yyyy\n  1: END\n", 0)) == (uint32_t)-1);
    CHECK(bits(op_result(&t, "  0: ISHR OUT[0], CONST[0][9].wwww, CONST[0][9].yyyy\n  1: END\n", 0)) == (uint32_t)-1);
    CHECK(bits(op_result(&t, "  0: USHR OUT[0], CONST[0][9].wwww, CONST[0][9].yyyy\n  1: END\n", 0)) == 0x01ffffffu);
    CHECK(bits(op_result(&t, "  0: SHL OUT[0], CONST[0][9].yyyy, CONST[0][9].wwww\n  1: END\n", 0)) == 7u << 24);
    CHECK(bits(op_result(&t, "  0: IMAX OUT[0], CONST[0][9].xxxx, CONST[0][9].zzzz\n  1: END\n", 0)) == 0u);
    CHECK(bits(op_result(&t, "  0: UMAX OUT[0], CONST[0][9].xxxx, CONST[0][9].zzzz\n  1: END\n", 0)) == ~0u);
    CHECK(same(op_result(&t, "  0: I2F OUT[0], CONST[0][9].wwww\n  1: END\n", 0), -8.0f));
    CHECK(same(op_result(&t, "  0: U2F OUT[0], CONST[0][9].xxxx\n  1: END\n", 0), 4294967296.0f));
    set_const(&t, 10, 3.7f, -3.7f, 1e10f, 0.0f);
    CHECK(bits(op_result(&t, "  0: F2I OUT[0], CONST[0][10].xxxx\n  1: END\n", 0)) == 3u);
    CHECK(bits(op_result(&t, "  0: F2I OUT[0], CONST[0][10].yyyy\n  1: END\n", 0)) == (uint32_t)-3);
    /* out of range: C leaves it undefined, so the output is not reproduced */
    struct tbr_tgsi_fs_result r;
    CHECK(run_body(&t, "  0: F2I OUT[0], CONST[0][10].zzzz\n  1: END\n", &r) == -1);
    CHECK(r.output_lanes_valid[0][0] == 0);

    /* constants past the bound buffer read 0; unbound buffer 1 reads 0 */
    t.q.const_bytes[0] = 16;
    CHECK(same(op_result(&t, "  0: ADD OUT[0], CONST[0][1], CONST[0][0].yyyy\n  1: END\n", 0), 1.0f));
    t.q.const_bytes[0] = sizeof t.consts;
    CHECK(same(op_result(&t, "  0: MOV OUT[0], CONST[1][0]\n  1: END\n", 0), 0.0f));

    /* the write mask: unwritten channels are not reproduced */
    CHECK(run_body(&t, "  0: MOV OUT[0].xyz, CONST[0][1]\n  1: END\n", &r) == -1);
    CHECK(r.output_lanes_valid[0][3] == 0 && r.output_lanes_valid[0][2] == 0xf);
    /* undefined components of an immediate are stale in tgsi_exec */
    CHECK(run_body(&t, "IMM[0] UINT32 {1, 2}\n  0: MOV OUT[0], IMM[0].xyzw\n  1: END\n", &r) == -1);
    CHECK(r.output_lanes_valid[0][1] == 0xf && r.output_lanes_valid[0][2] == 0);
    /* a temporary read before it is written holds the previous quad's value */
    CHECK(run_body(&t, "  0: MOV OUT[0], TEMP[2]\n  1: END\n", &r) == -1);
    /* sources are all fetched before the destination is written (aliasing) */
    set_const(&t, 11, 1.0f, 2.0f, 3.0f, 4.0f);
    CHECK(run_body(&t,
                   "  0: MOV TEMP[0], CONST[0][11]\n  1: MOV TEMP[0], TEMP[0].wzyx\n"
                   "  2: MOV OUT[0], TEMP[0]\n  3: END\n",
                   &r) == 0);
    CHECK(same(r.outputs[0][0][0], 4.0f) && same(r.outputs[0][3][2], 1.0f));
}

/* ---- interpolation ------------------------------------------------------- */

static void test_interp(void)
{
    struct test_quad t;
    quad_init(&t);
    t.q.x0 = 100.0f;
    t.q.y0 = 36.0f;
    /* w varies: perspective inputs divide by it */
    t.pos.a0[3] = 0.75f;
    t.pos.dadx[3] = 0.001f;
    t.pos.dady[3] = -0.0003f;
    for (unsigned i = 0; i < 5; i++)
        for (unsigned c = 0; c < 4; c++) {
            t.coef[i].a0[c] = 0.1f * (float)(i + 1) + 0.01f * (float)c;
            t.coef[i].dadx[c] = 0.0123f * (float)(c + 1);
            t.coef[i].dady[c] = -0.0071f * (float)(i + 2);
        }
    const char *text = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], LINEAR\n"
                       "DCL IN[2], GENERIC[2], CONSTANT\nDCL IN[3], COLOR, COLOR\nDCL IN[4], FACE, CONSTANT\n"
                       "DCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\nDCL OUT[2], COLOR[2]\nDCL OUT[3], COLOR[3]\n"
                       "DCL OUT[4], COLOR[4]\nIMM[0] UINT32 {0, 0, 0, 0}\n"
                       "  0: MOV OUT[0], IN[0]\n  1: MOV OUT[1], IN[1]\n  2: MOV OUT[2], IN[2]\n"
                       "  3: MOV OUT[3], IN[3]\n  4: MOV OUT[4], IN[4].xxxx\n  5: END\n";
    struct tbr_tgsi_program *p = parse_ok(text);
    if (!p) return;
    for (int flat = 0; flat < 2; flat++) {
        t.q.flatshade_color = flat;
        t.q.face = flat ? -1.0f : 1.0f;
        struct tbr_tgsi_fs_result r;
        CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == 0);
        CHECK(r.mask == 0xf && r.kill_mask == 0);
        const float x = t.q.x0, y = t.q.y0;
        float w[4];
        {
            const float dx = t.pos.dadx[3], dy = t.pos.dady[3];
            const float w0 = t.pos.a0[3] + dx * x + dy * y;
            w[0] = w0;
            w[1] = w0 + dx;
            w[2] = w0 + dy;
            w[3] = w0 + dx + dy;
        }
        for (unsigned c = 0; c < 4; c++) {
            for (unsigned i = 0; i < 4; i++) {
                const struct tbr_interp_coef *k = &t.coef[i];
                const float a0 = k->a0[c] + k->dadx[c] * x + k->dady[c] * y;
                const float lin[4] = {a0, a0 + k->dadx[c], a0 + k->dady[c], a0 + k->dadx[c] + k->dady[c]};
                int mode = i == 0 ? 2 : i == 1 ? 1 : i == 2 ? 0 : (flat ? 0 : 2);
                for (unsigned l = 0; l < 4; l++) {
                    float expect = mode == 0 ? k->a0[c] : mode == 1 ? lin[l] : lin[l] / w[l];
                    if (!same(r.outputs[i][c][l], expect))
                        fprintf(stderr, "input %u chan %u lane %u flat %d: %.9g, expected %.9g\n", i, c, l, flat,
                                r.outputs[i][c][l], expect);
                    CHECK(same(r.outputs[i][c][l], expect));
                }
            }
            for (unsigned l = 0; l < 4; l++) CHECK(same(r.outputs[4][c][l], t.q.face));
        }
        /* perspective differs from linear here (w != 1) */
        CHECK(!same(r.outputs[0][0][3], r.outputs[1][0][3] * 0.0f + r.outputs[0][0][3] * w[3]));
    }
    tbr_tgsi_free(p);

    /* a channel outside the declared usage mask is stale */
    p = parse_ok("FRAG\nDCL IN[0].xy, GENERIC[0], LINEAR\nDCL OUT[0], COLOR\n"
                 "  0: MOV OUT[0], IN[0].xyzw\n  1: END\n");
    if (p) {
        struct tbr_tgsi_fs_result r;
        CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == -1);
        CHECK(r.output_lanes_valid[0][1] == 0xf && r.output_lanes_valid[0][2] == 0);
    }
    tbr_tgsi_free(p);
}

/* ---- control flow, kills, helper lanes ----------------------------------- */

/* IN[0] LINEAR with x = 0, 1, 0, 1 and y = 0, 0, 1, 1 across the quad's lanes. */
static void lane_coords(struct test_quad *t)
{
    t->coef[0].a0[0] = -t->q.x0;
    t->coef[0].dadx[0] = 1.0f;
    t->coef[0].a0[1] = -t->q.y0;
    t->coef[0].dady[1] = 1.0f;
}

static struct tbr_tgsi_program *flow_program(const char *body)
{
    char text[4096];
    snprintf(text, sizeof text,
             "FRAG\nDCL IN[0].xy, GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL TEMP[0..3]\n"
             "IMM[0] UINT32 {1065353216, 1073741824, 0, 1077936128}\n%s",
             body);
    return parse_ok(text);
}

static void test_flow(void)
{
    struct test_quad t;
    quad_init(&t);
    lane_coords(&t);
    struct tbr_tgsi_fs_result r;

    /* divergent IF/ELSE: lanes 1, 3 (x = 1) take THEN, lanes 0, 2 ELSE */
    struct tbr_tgsi_program *p =
        flow_program("  0: MOV OUT[0], IMM[0].zzzz\n  1: IF IN[0].xxxx :3\n  2:   MOV OUT[0].x, IMM[0].xxxx\n"
                     "  3: ELSE :5\n  4:   MOV OUT[0].y, IMM[0].yyyy\n  5: ENDIF\n  6: END\n");
    if (p) {
        CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == 0);
        for (unsigned l = 0; l < 4; l++) {
            int then = l & 1;
            CHECK(same(r.outputs[0][0][l], then ? 1.0f : 0.0f));
            CHECK(same(r.outputs[0][1][l], then ? 0.0f : 2.0f));
        }
        /* no lane takes THEN (x = 0 everywhere): the jump to ELSE */
        t.coef[0].dadx[0] = 0.0f;
        t.coef[0].a0[0] = 0.0f;
        CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == 0);
        for (unsigned l = 0; l < 4; l++) CHECK(same(r.outputs[0][0][l], 0.0f) && same(r.outputs[0][1][l], 2.0f));
        lane_coords(&t);
    }
    tbr_tgsi_free(p);

    /* a lane that writes the output only in one branch keeps a stale value */
    p = flow_program("  0: MOV OUT[0], IMM[0].zzzz\n  1: IF IN[0].yyyy :3\n  2:   MOV OUT[0].x, IMM[0].xxxx\n"
                     "  3: ENDIF\n  4: MOV TEMP[0].x, IMM[0].zzzz\n  5: IF IN[0].xxxx :7\n"
                     "  6:   MOV TEMP[0].x, IMM[0].wwww\n  7: ENDIF\n  8: ADD OUT[0].y, TEMP[0].xxxx, IMM[0].xxxx\n"
                     "  9: END\n");
    if (p) {
        CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == 0);
        CHECK(same(r.outputs[0][1][1], 4.0f) && same(r.outputs[0][1][0], 1.0f));
        CHECK(same(r.outputs[0][0][2], 1.0f) && same(r.outputs[0][0][0], 0.0f));
    }
    tbr_tgsi_free(p);
    p = flow_program("  0: IF IN[0].xxxx :2\n  1:   MOV OUT[0], IMM[0].xxxx\n  2: ENDIF\n  3: END\n");
    if (p) {
        CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == -1);
        CHECK(r.output_lanes_valid[0][0] == 0xa);
        /* fine when the lanes without a value are not kept (helper lanes) */
        t.q.non_helper_mask = 0xa;
        CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == 0);
        CHECK(r.mask == 0xa);
        t.q.non_helper_mask = 0xf;
    }
    tbr_tgsi_free(p);

    /* loop with a per-lane trip count: count up to x + 2y + 1 (1, 2, 3, 4) */
    p = flow_program("  0: MOV TEMP[0].x, IMM[0].zzzz\n  1: MAD TEMP[1].x, IN[0].yyyy, IMM[0].yyyy, IN[0].xxxx\n"
                     "  2: ADD TEMP[1].x, TEMP[1].xxxx, IMM[0].xxxx\n  3: BGNLOOP :8\n"
                     "  4:   FSGE TEMP[2].x, TEMP[0].xxxx, TEMP[1].xxxx\n  5:   UIF TEMP[2].xxxx :7\n"
                     "  6:     BRK\n  7:   ENDIF\n  8:   ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\n"
                     "  9: ENDLOOP :3\n 10: MOV OUT[0], TEMP[0].xxxx\n 11: END\n");
    if (p) {
        CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == 0);
        for (unsigned l = 0; l < 4; l++) CHECK(same(r.outputs[0][0][l], (float)(1 + (l & 1) + 2 * (l >> 1))));
    }
    tbr_tgsi_free(p);
    /* CONT skips the rest of the iteration for the lanes that execute it */
    p = flow_program(
        "  0: MOV TEMP[0].xy, IMM[0].zzzz\n  1: BGNLOOP :9\n  2:   ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\n"
        "  3:   FSGE TEMP[2].x, TEMP[0].xxxx, IMM[0].wwww\n  4:   UIF TEMP[2].xxxx :6\n"
        "  5:     BRK\n  6:   ENDIF\n  7:   UIF IN[0].xxxx :9\n  8:     CONT\n  9:   ENDIF\n"
        " 10:   ADD TEMP[0].y, TEMP[0].yyyy, IMM[0].xxxx\n 11: ENDLOOP :1\n"
        " 12: MOV OUT[0], TEMP[0].xyxy\n 13: END\n");
    if (p) {
        /* UIF tests bits: x = 1.0f is nonzero. Lanes 1, 3 never reach the y increment. */
        CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == 0);
        for (unsigned l = 0; l < 4; l++) {
            CHECK(same(r.outputs[0][0][l], 3.0f));
            CHECK(same(r.outputs[0][1][l], (l & 1) ? 0.0f : 2.0f));
        }
    }
    tbr_tgsi_free(p);
    /* an endless loop is cut off */
    p = flow_program("  0: MOV OUT[0], IMM[0].zzzz\n  1: BGNLOOP :2\n  2: ENDLOOP :1\n  3: END\n");
    if (p) CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == -1);
    tbr_tgsi_free(p);

    /* KILL_IF kills lanes with any component < 0; killed lanes keep executing */
    p = flow_program("  0: ADD TEMP[0], IN[0].xyxy, -IMM[0].xxxx\n  1: KILL_IF TEMP[0].xxyy\n"
                     "  2: MOV OUT[0], IMM[0].xxxx\n  3: END\n");
    if (p) {
        /* x - 1 < 0 or y - 1 < 0 except lane 3 */
        CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == 0);
        CHECK(r.kill_mask == 0x7 && r.mask == 0x8);
        CHECK(r.output_lanes_valid[0][0] == 0xf);
        t.q.non_helper_mask = 0x7;
        CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == 0);
        CHECK(r.kill_mask == 0x7 && r.mask == 0x0);
        t.q.non_helper_mask = 0xf;
    }
    tbr_tgsi_free(p);
    /* KILL inside a branch only kills the lanes executing it */
    p = flow_program("  0: MOV OUT[0], IMM[0].xxxx\n  1: IF IN[0].yyyy :3\n  2:   KILL\n  3: ENDIF\n  4: END\n");
    if (p) {
        CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == 0);
        CHECK(r.kill_mask == 0xc && r.mask == 0x3);
    }
    tbr_tgsi_free(p);

    /* helper lanes execute: derivatives use them (lane 3 is a helper here) */
    t.coef[0].dadx[0] = 0.5f;
    t.coef[0].a0[0] = -0.5f * t.q.x0;
    t.coef[0].dady[1] = 0.25f;
    t.coef[0].a0[1] = -0.25f * t.q.y0;
    p = flow_program("  0: MUL TEMP[0], IN[0].xyxy, IN[0].xyxy\n  1: DDX OUT[0].xy, TEMP[0]\n"
                     "  2: DDY OUT[0].zw, TEMP[0]\n  3: END\n");
    if (p) {
        t.q.non_helper_mask = 0x7;
        CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == 0);
        CHECK(r.mask == 0x7);
        /* coarse DDX = lane 3 - lane 2 (x: 0.5^2 - 0), DDY = lane 2 - lane 0 (y: 0.25^2 - 0) */
        for (unsigned l = 0; l < 4; l++) {
            CHECK(same(r.outputs[0][0][l], 0.25f));
            CHECK(same(r.outputs[0][3][l], 0.0625f));
        }
        t.q.non_helper_mask = 0xf;
    }
    tbr_tgsi_free(p);
}

/* ---- texture argument marshalling ---------------------------------------- */

struct fake_sampler {
    int calls;
    unsigned sview, sampler;
    float s[4], t[4], r[4], c0[4], c1[4];
    int had_derivs;
    float derivs[3][2][4];
    int8_t offset[3];
    enum tbr_sampler_control control;
    int texel_calls, ti[4], tj[4], tk[4], tlod[4];
    int dims_level;
};

static void fake_get_samples(void *ctx, unsigned sview_index, unsigned sampler_index, const float s[4],
                             const float t[4], const float r[4], const float c0[4], const float c1[4],
                             float derivs[3][2][4], const int8_t offset[3], enum tbr_sampler_control control,
                             float rgba[4][4])
{
    struct fake_sampler *f = ctx;
    f->calls++;
    f->sview = sview_index;
    f->sampler = sampler_index;
    memcpy(f->s, s, sizeof f->s);
    memcpy(f->t, t, sizeof f->t);
    memcpy(f->r, r, sizeof f->r);
    memcpy(f->c0, c0, sizeof f->c0);
    memcpy(f->c1, c1, sizeof f->c1);
    f->had_derivs = derivs != NULL;
    if (derivs) memcpy(f->derivs, derivs, sizeof f->derivs);
    memcpy(f->offset, offset, sizeof f->offset);
    f->control = control;
    for (int c = 0; c < 4; c++)
        for (int l = 0; l < 4; l++) rgba[c][l] = (float)(10 * c + l);
}

static void fake_get_dims(void *ctx, unsigned sview_index, int level, int dims[4])
{
    struct fake_sampler *f = ctx;
    f->dims_level = level;
    dims[0] = 64 >> level;
    dims[1] = 32 >> level;
    dims[2] = 1;
    dims[3] = (int)sview_index;
}

static void fake_get_texel(void *ctx, unsigned sview_index, const int i[4], const int j[4], const int k[4],
                           const int lod[4], const int8_t offset[3], float rgba[4][4])
{
    struct fake_sampler *f = ctx;
    (void)sview_index;
    f->texel_calls++;
    memcpy(f->ti, i, sizeof f->ti);
    memcpy(f->tj, j, sizeof f->tj);
    memcpy(f->tk, k, sizeof f->tk);
    memcpy(f->tlod, lod, sizeof f->tlod);
    memcpy(f->offset, offset, sizeof f->offset);
    for (int c = 0; c < 4; c++)
        for (int l = 0; l < 4; l++) rgba[c][l] = (float)(i[l] + 100 * c);
}

static int run_tex(struct test_quad *t, struct fake_sampler *f, const char *body, struct tbr_tgsi_fs_result *r)
{
    char text[4096];
    snprintf(text, sizeof text,
             "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SAMP[3]\n"
             "DCL SVIEW[3], 2D, FLOAT\nDCL TEMP[0..3]\nIMM[0] INT32 {-3, 2, 7, 0}\n%s",
             body);
    struct tbr_tgsi_program *p = parse_ok(text);
    if (!p) return -2;
    memset(f, 0, sizeof *f);
    int rc = tbr_tgsi_run_fs(p, &t->q, r);
    tbr_tgsi_free(p);
    return rc;
}

static void test_tex(void)
{
    struct test_quad t;
    quad_init(&t);
    /* IN[0] = per lane (lane+1) * (1, 2, 3, 4) + (0.5, 0.25, 0.125, 2) */
    const float base[4] = {0.5f, 0.25f, 0.125f, 2.0f};
    for (unsigned c = 0; c < 4; c++) {
        t.coef[0].a0[c] = base[c] - (float)(c + 1) * (t.q.x0 + 2.0f * t.q.y0);
        t.coef[0].dadx[c] = (float)(c + 1);
        t.coef[0].dady[c] = 2.0f * (float)(c + 1);
    }
    struct fake_sampler f;
    struct tbr_tgsi_sampler sampler = {&f, fake_get_samples, fake_get_dims, fake_get_texel};
    t.q.sampler = &sampler;
    struct tbr_tgsi_fs_result r;
    float in[4][4]; /* [chan][lane] as the interpreter computes them */
    for (unsigned c = 0; c < 4; c++) {
        const float a0 = t.coef[0].a0[c] + t.coef[0].dadx[c] * t.q.x0 + t.coef[0].dady[c] * t.q.y0;
        in[c][0] = a0;
        in[c][1] = a0 + t.coef[0].dadx[c];
        in[c][2] = a0 + t.coef[0].dady[c];
        in[c][3] = a0 + t.coef[0].dadx[c] + t.coef[0].dady[c];
    }

    /* TEX 2D: s, t from src0.xy, the rest 0, unit from SAMP, result through the write mask */
    CHECK(run_tex(&t, &f, "  0: MOV OUT[0], IN[0]\n  1: TEX OUT[0].yw, IN[0].yxzw, SAMP[3], 2D\n  2: END\n", &r) == 0);
    CHECK(f.calls == 1 && f.sview == 3 && f.sampler == 3 && !f.had_derivs);
    CHECK(f.control == TBR_SAMPLER_LOD_NONE);
    for (unsigned l = 0; l < 4; l++) {
        CHECK(same(f.s[l], in[1][l]) && same(f.t[l], in[0][l]));
        CHECK(same(f.r[l], 0.0f) && same(f.c0[l], 0.0f) && same(f.c1[l], 0.0f));
        CHECK(same(r.outputs[0][1][l], (float)(10 + l)) && same(r.outputs[0][3][l], (float)(30 + l)));
        CHECK(same(r.outputs[0][0][l], in[0][l]));
    }
    CHECK(f.offset[0] == 0 && f.offset[1] == 0 && f.offset[2] == 0);

    /* TXP: coordinates and shadow reference divided by src0.w; c1 = 0 */
    CHECK(run_tex(&t, &f, "  0: TXP OUT[0], IN[0], SAMP[0], SHADOW2D\n  1: END\n", &r) == 0);
    CHECK(f.control == TBR_SAMPLER_LOD_NONE && f.sview == 0);
    for (unsigned l = 0; l < 4; l++) {
        CHECK(same(f.s[l], in[0][l] / in[3][l]) && same(f.t[l], in[1][l] / in[3][l]));
        CHECK(same(f.r[l], in[2][l] / in[3][l]));
        CHECK(same(f.c0[l], 0.0f) && same(f.c1[l], 0.0f));
    }

    /* TXB: bias from src0.w into c1 */
    CHECK(run_tex(&t, &f, "  0: TXB OUT[0], IN[0], SAMP[0], 2D\n  1: END\n", &r) == 0);
    CHECK(f.control == TBR_SAMPLER_LOD_BIAS);
    for (unsigned l = 0; l < 4; l++) CHECK(same(f.s[l], in[0][l]) && same(f.r[l], 0.0f) && same(f.c1[l], in[3][l]));

    /* TXL on a cube: s, t, r = xyz, lod in c1 */
    CHECK(run_tex(&t, &f, "  0: TXL OUT[0], -IN[0], SAMP[0], CUBE\n  1: END\n", &r) == 0);
    CHECK(f.control == TBR_SAMPLER_LOD_EXPLICIT);
    for (unsigned l = 0; l < 4; l++) {
        CHECK(same(f.r[l], -in[2][l]) && same(f.c1[l], -in[3][l]) && same(f.c0[l], 0.0f));
    }

    /* TEX SHADOWCUBE: the reference in c0 (src0.w) */
    CHECK(run_tex(&t, &f, "  0: TEX OUT[0], IN[0], SAMP[0], SHADOWCUBE\n  1: END\n", &r) == 0);
    for (unsigned l = 0; l < 4; l++) CHECK(same(f.c0[l], in[3][l]) && same(f.r[l], in[2][l]));

    /* TEX 1D: only s */
    CHECK(run_tex(&t, &f, "  0: TEX OUT[0], IN[0], SAMP[0], 1D\n  1: END\n", &r) == 0);
    CHECK(same(f.t[2], 0.0f) && same(f.s[2], in[0][2]));

    /* texel offsets come from lane 0 of the offset register */
    CHECK(run_tex(&t, &f, "  0: TEX OUT[0], IN[0], SAMP[0], 2D, IMM[0].yxz\n  1: END\n", &r) == 0);
    CHECK(f.offset[0] == 2 && f.offset[1] == -3 && f.offset[2] == 7);

    /* TXD: derivatives of src1 / src2 per coordinate */
    CHECK(run_tex(&t, &f, "  0: TXD OUT[0], IN[0], IN[0].yyyy, -IN[0].zzzz, SAMP[0], 2D\n  1: END\n", &r) == 0);
    CHECK(f.had_derivs && f.control == TBR_SAMPLER_DERIVS_EXPLICIT);
    CHECK(same(f.derivs[0][0][1], in[1][1]) && same(f.derivs[1][1][2], -in[2][2]));
    CHECK(same(f.derivs[2][0][0], 0.0f) && same(f.r[0], 0.0f));

    /* TXF: integer coordinates and lod (src0.w) */
    CHECK(run_tex(&t, &f, "  0: F2I TEMP[0], IN[0]\n  1: TXF OUT[0], TEMP[0], SAMP[0], 2D\n  2: END\n", &r) == 0);
    CHECK(f.texel_calls == 1);
    for (unsigned l = 0; l < 4; l++) {
        CHECK(f.ti[l] == (int)in[0][l] && f.tj[l] == (int)in[1][l] && f.tk[l] == 0);
        CHECK(f.tlod[l] == (int)in[3][l]);
        CHECK(same(r.outputs[0][2][l], (float)((int)in[0][l] + 200)));
    }

    /* TXQ: level from lane 0 of src0.x */
    CHECK(run_tex(&t, &f, "  0: TXQ TEMP[0], IMM[0].yyyy, SAMP[3], 2D\n  1: I2F OUT[0], TEMP[0]\n  2: END\n", &r) == 0);
    CHECK(f.dims_level == 2 && same(r.outputs[0][0][1], 16.0f) && same(r.outputs[0][3][0], 3.0f));

    /* a coordinate that is stale in any lane (even an inactive one) spoils the LOD
     * of the whole quad: nothing of the result is reproduced */
    CHECK(run_tex(&t, &f,
                  "  0: IF IN[0].xxxx :2\n  1:   MOV TEMP[1], IN[0]\n  2: ENDIF\n"
                  "  3: TEX OUT[0], TEMP[1], SAMP[0], 2D\n  4: END\n",
                  &r) == 0);
    t.coef[0].a0[0] -= in[0][0]; /* lane 0 x = 0: lane 0 skips the MOV */
    CHECK(run_tex(&t, &f,
                  "  0: IF IN[0].xxxx :2\n  1:   MOV TEMP[1], IN[0]\n  2: ENDIF\n"
                  "  3: TEX OUT[0], TEMP[1], SAMP[0], 2D\n  4: END\n",
                  &r) == -1);
    CHECK(f.calls == 1 && r.output_lanes_valid[0][0] == 0);

    /* no sampler: the run fails rather than guessing */
    t.q.sampler = NULL;
    CHECK(run_tex(&t, &f, "  0: TEX OUT[0], IN[0], SAMP[0], 2D\n  1: END\n", &r) == -1);
}

/* ---- untracked runs (skip_validity, tbr-sim's verified quads) ------------
 * Without validity tracking, componentwise instructions without modifiers, _SAT or
 * cross-channel aliasing store each channel as soon as it is computed (tgsi_inst
 * plain); the others compute every channel first. Both runs must give the values
 * tgsi_exec computes, including when a channel reads a row an earlier channel of the
 * same instruction writes, and under a partial execution mask. */
struct untracked_case {
    const char *body;
    float expect[4][4]; /* [lane][channel] of OUT[0] */
};

static void test_untracked(void)
{
    struct test_quad t;
    quad_init(&t);
    lane_coords(&t); /* IN[0] = (lane x, lane y) */
    struct untracked_case cases[5];
    for (unsigned l = 0; l < 4; l++) {
        const float x = (float)(l & 1), y = (float)(l >> 1);
        /* IMM[0] = (1, 2, 0, 3) */
        cases[0].body = "  0: MOV TEMP[0], IMM[0]\n  1: ADD TEMP[0], TEMP[0], IN[0].xyxy\n"
                        "  2: MOV TEMP[0], TEMP[0].yzwx\n  3: MOV OUT[0], TEMP[0]\n  4: END\n";
        const float c0[4] = {2 + y, x, 3 + y, 1 + x};
        cases[1].body = "  0: MOV TEMP[1], IMM[0].wzyx\n"
                        "  1: MAD TEMP[1].xyz, TEMP[1].zxyw, IN[0].xxyy, TEMP[1].yzxw\n"
                        "  2: MOV OUT[0], TEMP[1]\n  3: END\n";
        const float c1[4] = {2 * x, 3 * x + 2, 3, 1};
        cases[2].body = "  0: MOV TEMP[0], IMM[0]\n  1: IF IN[0].xxxx :3\n"
                        "  2:   ADD TEMP[0].xy, TEMP[0].yxxx, IMM[0].wwww\n  3: ENDIF\n"
                        "  4: MOV OUT[0], TEMP[0]\n  5: END\n";
        const float c2[4] = {x ? 5.0f : 1.0f, x ? 4.0f : 2.0f, 0, 3};
        cases[3].body = "  0: ADD TEMP[2], IN[0].xyxy, IMM[0]\n  1: MUL TEMP[2].yw, TEMP[2], -IMM[0].xxxx\n"
                        "  2: MOV TEMP[2].x, TEMP[2].wwww\n  3: MOV OUT[0], TEMP[2]\n  4: END\n";
        const float c3[4] = {-(3 + y), -(2 + y), x, -(3 + y)};
        /* modifiers: -|src|, and a negated source that is the destination row of its own
         * channel */
        cases[4].body = "  0: ADD TEMP[3], -|IN[0].xyxy|, IMM[0]\n"
                        "  1: MAD TEMP[3].xy, -TEMP[3].xyxx, IMM[0].yyyy, TEMP[3].xyxx\n"
                        "  2: MOV OUT[0], TEMP[3]\n  3: END\n";
        const float c4[4] = {-(1 - x) * 2 + (1 - x), -(2 - y) * 2 + (2 - y), -x + 0.0f, -y + 3};
        memcpy(cases[4].expect[l], c4, sizeof c4);
        memcpy(cases[0].expect[l], c0, sizeof c0);
        memcpy(cases[1].expect[l], c1, sizeof c1);
        memcpy(cases[2].expect[l], c2, sizeof c2);
        memcpy(cases[3].expect[l], c3, sizeof c3);
    }
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct tbr_tgsi_program *p = flow_program(cases[k].body);
        if (!p) continue;
        for (int skip = 0; skip < 2; skip++) {
            struct tbr_tgsi_fs_result r;
            t.q.skip_validity = skip;
            CHECK(tbr_tgsi_run_fs(p, &t.q, &r) == 0);
            for (unsigned c = 0; c < 4; c++)
                for (unsigned l = 0; l < 4; l++)
                    if (!same(r.outputs[0][c][l], cases[k].expect[l][c])) {
                        fprintf(stderr, "case %u skip_validity %d: OUT[0] channel %u lane %u = %g, want %g\n", k, skip,
                                c, l, r.outputs[0][c][l], cases[k].expect[l][c]);
                        failures++;
                    }
        }
        tbr_tgsi_free(p);
    }
    t.q.skip_validity = 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s parse|ops|interp|flow|tex|untracked DATA_DIR\n", argv[0]);
        return 2;
    }
    const char *group = argv[1];
    if (!strcmp(group, "parse"))
        test_parse(argv[2]);
    else if (!strcmp(group, "ops"))
        test_ops();
    else if (!strcmp(group, "interp"))
        test_interp();
    else if (!strcmp(group, "flow"))
        test_flow();
    else if (!strcmp(group, "tex"))
        test_tex();
    else if (!strcmp(group, "untracked"))
        test_untracked();
    else {
        fprintf(stderr, "unknown group %s\n", group);
        return 2;
    }
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("tgsi %s: ok\n", group);
    return 0;
}
