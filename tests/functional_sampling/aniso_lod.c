/* tbr-test-aniso-lod: which mip level an anisotropic sampler reads, per LOD bias and
 * footprint (OpenGL ES 3.0, headless like the samples; issue 24 section 1).
 *
 * A 256x256 texture whose 9 mip levels are flat colours, red = 28 * level, is
 * sampled with LINEAR_MIPMAP_LINEAR and GL_TEXTURE_MAX_ANISOTROPY_EXT 4.  Every
 * 16x16 cell of the pbuffer uses one footprint (texels per pixel along x and y,
 * constant over the cell because uv is a linear function of gl_FragCoord) and one
 * shader bias, texture(t, uv, bias); a second row set uses textureGrad with the
 * same derivatives and no bias.  The program reads every cell's centre back and
 * prints one line per cell:
 *   bias|grad DUxDV BIAS level L.LL expect E.EE rgba R G B A
 * L = red / 28 (a fractional level when the sampler blends two levels) and E the
 * anisotropic LOD of the GL spec (EXT_texture_filter_anisotropic: log2 of the
 * minor axis, the major axis divided by the anisotropy limit if longer) plus the
 * bias, clamped to the level range.  tests/functional_sampling/aniso_lod.sh runs it
 * on the project's softpipe and on Debian's llvmpipe and compares the levels. */
#include "common/sample.h"

#include <GLES3/gl3.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define TEX_SIZE            256
#define TEX_LEVELS          9
#define RED_PER_LEVEL       28
#define CELL                16
#define MAX_ANISOTROPY      4.0f
#define GL_MAX_ANISO_EXT    0x84FE /* GL_TEXTURE_MAX_ANISOTROPY_EXT */
#define GL_MAX_ANISO_LIMITS 0x84FF /* GL_MAX_TEXTURE_MAX_ANISOTROPY_EXT */

static const char *const k_vs = "#version 300 es\n"
                                "in vec2 a_pos;\n"
                                "void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }\n";
/* uv from the window position: the footprint is exactly u_scale texels per pixel. */
static const char *const k_fs = "#version 300 es\n"
                                "precision highp float;\n"
                                "uniform sampler2D u_tex;\n"
                                "uniform vec2 u_scale;\n"
                                "uniform float u_bias;\n"
                                "uniform int u_grad;\n"
                                "out vec4 o_color;\n"
                                "void main() {\n"
                                "  vec2 uv = gl_FragCoord.xy * u_scale;\n"
                                "  if (u_grad != 0)\n"
                                "    o_color = textureGrad(u_tex, uv, vec2(u_scale.x, 0.0), vec2(0.0, u_scale.y));\n"
                                "  else\n"
                                "    o_color = texture(u_tex, uv, u_bias);\n"
                                "}\n";

struct footprint {
    float du, dv; /* texels per pixel along x and y */
};
static const struct footprint k_footprints[] = {{8, 2}, {2, 8}, {16, 4}, {32, 8}, {4, 4}, {32, 4}, {1, 0.25f}};
static const float k_biases[] = {-1.0f, 0.0f, 0.5f, 1.0f, 2.0f};
#define N_FOOTPRINTS (int)(sizeof k_footprints / sizeof k_footprints[0])
#define N_BIASES     (int)(sizeof k_biases / sizeof k_biases[0])

static GLuint make_level_texture(void)
{
    static unsigned char px[TEX_SIZE * TEX_SIZE * 4];
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    for (int level = 0, size = TEX_SIZE; level < TEX_LEVELS; level++, size /= 2) {
        for (int i = 0; i < size * size; i++) {
            px[4 * i] = (unsigned char)(RED_PER_LEVEL * level);
            px[4 * i + 1] = (unsigned char)(255 - RED_PER_LEVEL * level);
            px[4 * i + 2] = 64;
            px[4 * i + 3] = 255;
        }
        glTexImage2D(GL_TEXTURE_2D, level, GL_RGBA, size, size, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
    }
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
    glTexParameterf(GL_TEXTURE_2D, GL_MAX_ANISO_EXT, MAX_ANISOTROPY);
    return t;
}

/* The spec's anisotropic LOD for an axis-aligned footprint, clamped to the levels. */
static float expected_lod(const struct footprint *f, float bias)
{
    float major = f->du > f->dv ? f->du : f->dv, minor = f->du > f->dv ? f->dv : f->du;
    if (major / minor > MAX_ANISOTROPY) minor = major / MAX_ANISOTROPY;
    float lod = log2f(minor) + bias;
    return lod < 0 ? 0 : lod > TEX_LEVELS - 1 ? TEX_LEVELS - 1 : lod;
}

static void draw_cell(int col, int row)
{
    const float x0 = 2.0f * (float)(col * CELL) / SAMPLE_WIDTH - 1.0f;
    const float y0 = 2.0f * (float)(row * CELL) / SAMPLE_HEIGHT - 1.0f;
    const float x1 = x0 + 2.0f * CELL / SAMPLE_WIDTH, y1 = y0 + 2.0f * CELL / SAMPLE_HEIGHT;
    const float v[12] = {x0, y0, x1, y0, x1, y1, x0, y0, x1, y1, x0, y1};
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, v);
    glDrawArrays(GL_TRIANGLES, 0, 6);
}

static void print_cell(const char *kind, const struct footprint *f, float bias, int col, int row)
{
    unsigned char rgba[4];
    glReadPixels(col * CELL + CELL / 2, row * CELL + CELL / 2, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    printf("%s %gx%g %+.1f level %.2f expect %.2f rgba %u %u %u %u\n", kind, (double)f->du, (double)f->dv, (double)bias,
           (double)rgba[0] / RED_PER_LEVEL, (double)expected_lod(f, bias), rgba[0], rgba[1], rgba[2], rgba[3]);
}

int main(int argc, char **argv)
{
    static const struct sample_desc desc = {
        "aniso-lod", "Mip level read by an anisotropic sampler per LOD bias and footprint (ES3).", 3, 0, 1,
    };
    struct sample s;
    int rc = sample_init(&s, &desc, argc, argv);
    if (rc || !s.dpy) return rc;
    const char *ext = (const char *)glGetString(GL_EXTENSIONS);
    if (!ext || !strstr(ext, "GL_EXT_texture_filter_anisotropic")) {
        fprintf(stderr, "tbr-test-aniso-lod: GL_EXT_texture_filter_anisotropic is not offered\n");
        sample_fini(&s);
        return 1;
    }
    GLfloat limit = 0;
    glGetFloatv(GL_MAX_ANISO_LIMITS, &limit);
    printf("renderer %s\nmax_anisotropy_limit %g\n", (const char *)glGetString(GL_RENDERER), (double)limit);

    static const char *const attribs[] = {"a_pos", NULL};
    GLuint prog = sample_program(k_vs, k_fs, attribs);
    glUseProgram(prog);
    glUniform1i(glGetUniformLocation(prog, "u_tex"), 0);
    GLint scale = glGetUniformLocation(prog, "u_scale"), bias = glGetUniformLocation(prog, "u_bias");
    GLint grad = glGetUniformLocation(prog, "u_grad");
    GLuint tex = make_level_texture();
    glEnableVertexAttribArray(0);

    for (int frame = 0; frame < s.frames && !rc; frame++) {
        glClearColor(0, 0, 0, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        /* Rows 0..N_BIASES-1: texture(t, uv, bias); row N_BIASES: textureGrad. */
        for (int fp = 0; fp < N_FOOTPRINTS; fp++) {
            glUniform2f(scale, k_footprints[fp].du / TEX_SIZE, k_footprints[fp].dv / TEX_SIZE);
            glUniform1i(grad, 0);
            for (int b = 0; b < N_BIASES; b++) {
                glUniform1f(bias, k_biases[b]);
                draw_cell(fp, b);
            }
            glUniform1i(grad, 1);
            draw_cell(fp, N_BIASES);
        }
        for (int fp = 0; fp < N_FOOTPRINTS && frame == 0; fp++) {
            for (int b = 0; b < N_BIASES; b++) print_cell("bias", &k_footprints[fp], k_biases[b], fp, b);
            print_cell("grad", &k_footprints[fp], 0.0f, fp, N_BIASES);
        }
        rc = sample_end_frame(&s, frame);
    }
    glDeleteTextures(1, &tex);
    glDeleteProgram(prog);
    sample_fini(&s);
    return rc;
}
