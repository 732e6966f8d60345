/* Tests of functional/reference/setup_coef.c: softpipe's triangle setup coefficients,
 * with values worked out by hand (exact in binary floating point). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "setup_coef.h"

static int failures;
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                       \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fprintf(stderr, "\n");                                                                                     \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

/* attribute 0 = window position (x, y, z, 1/w), attribute 1.. = FS inputs */
static float V[3][4][4];

static const float (*const *verts(void))[4]
{
    static const float(*v[3])[4];
    for (int i = 0; i < 3; i++) v[i] = (const float(*)[4])V[i];
    return v;
}

static void set_pos(int i, float x, float y, float z, float w)
{
    V[i][0][0] = x, V[i][0][1] = y, V[i][0][2] = z, V[i][0][3] = w;
}

static struct tbr_setup_fs_info info(unsigned n, unsigned interp)
{
    struct tbr_setup_fs_info fs;
    memset(&fs, 0, sizeof(fs));
    fs.num_inputs = n;
    for (unsigned i = 0; i < n; i++) {
        fs.inputs[i].semantic_name = TBR_TGSI_SEMANTIC_GENERIC;
        fs.inputs[i].semantic_index = (uint8_t)i;
        fs.inputs[i].interpolate = (uint8_t)interp;
        fs.inputs[i].usage_mask = 0xf;
    }
    fs.half_pixel_center = 1;
    fs.fb_height = 100;
    return fs;
}

/* A right triangle (0.5,0.5) (8.5,0.5) (0.5,4.5): attribute .x = x - 0.5 grows by 1 per
 * pixel in x, .y = 2 * (y - 0.5) by 2 per pixel in y, .z constant 3, .w = 1 at v2. */
static void linear(void)
{
    memset(V, 0, sizeof(V));
    set_pos(0, 0.5f, 0.5f, 0.25f, 1.0f);
    set_pos(1, 8.5f, 0.5f, 0.75f, 1.0f);
    set_pos(2, 0.5f, 4.5f, 0.25f, 1.0f);
    float a[3][4] = {{0, 0, 3, 0}, {8, 0, 3, 0}, {0, 8, 3, 1}};
    for (int i = 0; i < 3; i++) memcpy(V[i][1], a[i], sizeof(a[i]));
    struct tbr_setup_fs_info fs = info(1, TBR_TGSI_INTERPOLATE_LINEAR);
    struct tbr_setup_coefs c;
    char why[100];
    CHECK(tbr_setup_triangle_coefs(&fs, verts(), 2, &c, why, sizeof(why)) == 0, "%s", why);
    const struct tbr_interp_coef *k = &c.inputs[0];
    CHECK(k->dadx[0] == 1.0f && k->dady[0] == 0.0f, "x: dadx %g dady %g", k->dadx[0], k->dady[0]);
    /* value at pixel (x, y), sampled at (x, y) by tgsi_exec: a0 + x: vertex 0 at 0.5 has
     * 0 at offset-corrected origin -> a0 = 0 - (1 * (0.5 - 0.5)) = 0 */
    CHECK(k->a0[0] == 0.0f, "x: a0 %g", k->a0[0]);
    CHECK(k->dadx[1] == 0.0f && k->dady[1] == 2.0f && k->a0[1] == 0.0f, "y: %g %g %g", k->a0[1], k->dadx[1],
          k->dady[1]);
    CHECK(k->a0[2] == 3.0f && k->dadx[2] == 0.0f && k->dady[2] == 0.0f, "z constant");
    CHECK(k->dady[3] == 0.25f && k->dadx[3] == 0.0f, "w: dady %g", k->dady[3]);
    /* position z: 0.25 + (x - 0.5) / 16 */
    CHECK(c.pos.dadx[2] == 0.0625f && c.pos.dady[2] == 0.0f && c.pos.a0[2] == 0.25f, "pos z %g %g %g", c.pos.a0[2],
          c.pos.dadx[2], c.pos.dady[2]);
    /* calc_det = (v0 - v2) x (v1 - v2) = 0 * -4 - (-4 * 8) = 32 > 0: softpipe's facing is
     * (det < 0) ^ front_ccw, so front (+1), and back (-1) with front_ccw */
    CHECK(c.face == 1.0f, "face %g", c.face);
    fs.front_ccw = 1;
    CHECK(tbr_setup_triangle_coefs(&fs, verts(), 2, &c, why, sizeof(why)) == 0, "%s", why);
    CHECK(c.face == -1.0f, "face with front_ccw %g", c.face);
    /* without the half-pixel offset a0 moves by half a step */
    fs.half_pixel_center = 0;
    CHECK(tbr_setup_triangle_coefs(&fs, verts(), 2, &c, why, sizeof(why)) == 0, "%s", why);
    CHECK(c.inputs[0].a0[0] == -0.5f, "x a0 without offset %g", c.inputs[0].a0[0]);
}

/* Perspective: the plane of value * (1/w); w per vertex 1, 0.5, 0.25. */
static void perspective(void)
{
    memset(V, 0, sizeof(V));
    set_pos(0, 0.5f, 0.5f, 0, 1.0f);
    set_pos(1, 4.5f, 0.5f, 0, 0.5f);
    set_pos(2, 0.5f, 4.5f, 0, 0.25f);
    float a[3] = {8.0f, 8.0f, 8.0f}; /* constant 8: premultiplied 8, 4, 2 */
    for (int i = 0; i < 3; i++) V[i][1][0] = a[i];
    struct tbr_setup_fs_info fs = info(1, TBR_TGSI_INTERPOLATE_PERSPECTIVE);
    struct tbr_setup_coefs c;
    char why[100];
    CHECK(tbr_setup_triangle_coefs(&fs, verts(), 2, &c, why, sizeof(why)) == 0, "%s", why);
    /* 8/w plane: 8 at (0,0) offset origin, -4/4 = -1 per pixel in x, -6/4 = -1.5 in y */
    CHECK(c.inputs[0].a0[0] == 8.0f && c.inputs[0].dadx[0] == -1.0f && c.inputs[0].dady[0] == -1.5f, "persp %g %g %g",
          c.inputs[0].a0[0], c.inputs[0].dadx[0], c.inputs[0].dady[0]);
    /* 1/w interpolates linearly: 1, -0.125 per x, -0.1875 per y: 8 * (1/w) == premultiplied */
    CHECK(c.pos.a0[3] == 1.0f && c.pos.dadx[3] == -0.125f && c.pos.dady[3] == -0.1875f, "pos w %g %g %g", c.pos.a0[3],
          c.pos.dadx[3], c.pos.dady[3]);
}

/* Flat (CONSTANT) inputs take the provoking vertex: the last, or the first with
 * flatshade_first; COLOR inputs are flat only with flatshade. FACE and POSITION
 * are set up specially. */
static void special_inputs(void)
{
    memset(V, 0, sizeof(V));
    set_pos(0, 0.5f, 0.5f, 0, 1);
    set_pos(1, 4.5f, 0.5f, 0, 1);
    set_pos(2, 0.5f, 4.5f, 0, 1);
    for (int i = 0; i < 3; i++)
        for (int a = 1; a < 4; a++)
            for (int ch = 0; ch < 4; ch++) V[i][a][ch] = (float)(10 * i + a);
    struct tbr_setup_fs_info fs = info(3, TBR_TGSI_INTERPOLATE_CONSTANT);
    fs.inputs[1].semantic_name = TBR_TGSI_SEMANTIC_COLOR;
    fs.inputs[1].interpolate = TBR_TGSI_INTERPOLATE_COLOR;
    fs.inputs[2].semantic_name = TBR_TGSI_SEMANTIC_POSITION;
    fs.inputs[2].interpolate = TBR_TGSI_INTERPOLATE_LINEAR;
    struct tbr_setup_coefs c;
    char why[100];
    CHECK(tbr_setup_triangle_coefs(&fs, verts(), 4, &c, why, sizeof(why)) == 0, "%s", why);
    CHECK(c.inputs[0].a0[0] == 21.0f && c.inputs[0].dadx[0] == 0.0f, "flat: last vertex %g", c.inputs[0].a0[0]);
    CHECK(c.inputs[1].dadx[0] != 0.0f, "color input not flat without flatshade");
    CHECK(c.inputs[2].a0[0] == 0.5f && c.inputs[2].dadx[0] == 1.0f && c.inputs[2].a0[1] == 0.5f &&
              c.inputs[2].dady[1] == 1.0f,
          "gl_FragCoord upper left");
    fs.flatshade = 1;
    fs.flatshade_first = 1;
    fs.coord_origin_lower_left = 1;
    CHECK(tbr_setup_triangle_coefs(&fs, verts(), 4, &c, why, sizeof(why)) == 0, "%s", why);
    CHECK(c.inputs[0].a0[0] == 1.0f, "flat: first vertex %g", c.inputs[0].a0[0]);
    CHECK(c.inputs[1].a0[0] == 2.0f && c.inputs[1].dadx[0] == 0.0f, "color flat with flatshade");
    CHECK(c.inputs[2].a0[1] == 99.5f && c.inputs[2].dady[1] == -1.0f, "gl_FragCoord lower left %g", c.inputs[2].a0[1]);
    fs.inputs[0].semantic_name = TBR_TGSI_SEMANTIC_FACE;
    CHECK(tbr_setup_triangle_coefs(&fs, verts(), 4, &c, why, sizeof(why)) == 0, "%s", why);
    CHECK(c.inputs[0].a0[0] == 1.0f && c.inputs[0].dadx[0] == 0.0f, "face (front) %g", c.inputs[0].a0[0]);
    fs.front_ccw = 1;
    CHECK(tbr_setup_triangle_coefs(&fs, verts(), 4, &c, why, sizeof(why)) == 0, "%s", why);
    CHECK(c.inputs[0].a0[0] == -1.0f, "face (back) %g", c.inputs[0].a0[0]);
}

static void rejected(void)
{
    memset(V, 0, sizeof(V));
    set_pos(0, 0.5f, 0.5f, 0, 1);
    set_pos(1, 4.5f, 0.5f, 0, 1);
    set_pos(2, 8.5f, 0.5f, 0, 1); /* zero area */
    struct tbr_setup_fs_info fs = info(1, TBR_TGSI_INTERPOLATE_LINEAR);
    struct tbr_setup_coefs c;
    char why[100] = "";
    CHECK(tbr_setup_triangle_coefs(&fs, verts(), 2, &c, why, sizeof(why)) != 0, "zero area accepted");
    CHECK(strstr(why, "zero-area") != NULL, "reason '%s'", why);
    set_pos(2, 0.5f, 4.5f, 0, 1);
    CHECK(tbr_setup_triangle_coefs(&fs, verts(), 1, &c, why, sizeof(why)) != 0, "input without attribute accepted");
}

int main(void)
{
    linear();
    perspective();
    special_inputs();
    rejected();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("setup_coef: all checks passed\n");
    return 0;
}
