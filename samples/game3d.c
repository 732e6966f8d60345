/* tbr-sample-game3d: the texturing of an ES 3.0 3D game (OpenGL ES 3.0, VBO/IBO).
 *
 * Built to hit what real 3D games use and what the recorder may not derive texels
 * for (issue #24 section 2, docs/trace-records.md "Derived texels"):
 * - a terrain floor sampling a mipmapped 2D texture with anisotropic filtering
 *   (GL_TEXTURE_MAX_ANISOTROPY_EXT 4, LINEAR_MIPMAP_LINEAR) and a shader bias
 *   (texture(s, uv, bias)), blended with a 2D ARRAY texture (terrain layers picked
 *   per fragment);
 * - a wall with an sRGB texture read with textureLod and textureGrad, and a
 *   reflection looked up in a CUBE map;
 * - a crate with a packed float texture (GL_R11F_G11F_B10F). The game of the issue
 *   uses ASTC, which softpipe's ES 3.1 does not expose; ETC2 (ES 3.0 core) cannot be
 *   captured: apitrace's tracer raises GL_INVALID_ENUM in glCompressedTexImage2D on
 *   ES contexts (found with this sample), so a format the reference sampler lacks
 *   stands for the compressed one;
 * - an overlay (HUD) with a plain bilinear 2D texture, which is derived today.
 * The camera moves with the frame number, so footprints change from frame to frame. */
#include "common/sample.h"

#include <GLES3/gl3.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#ifndef GL_TEXTURE_MAX_ANISOTROPY_EXT
#define GL_TEXTURE_MAX_ANISOTROPY_EXT 0x84FE
#endif

static const char *const k_vs = "#version 300 es\n"
                                "in vec3 a_pos;\n"
                                "in vec2 a_uv;\n"
                                "uniform mat4 u_mvp;\n"
                                "uniform vec3 u_eye;\n"
                                "out vec2 v_uv;\n"
                                "out vec3 v_view;\n"
                                "void main() {\n"
                                "  v_uv = a_uv;\n"
                                "  v_view = a_pos - u_eye;\n"
                                "  gl_Position = u_mvp * vec4(a_pos, 1.0);\n"
                                "}\n";
static const char *const k_floor_fs = "#version 300 es\n"
                                      "precision mediump float;\n"
                                      "precision mediump sampler2DArray;\n"
                                      "uniform sampler2D u_ground;\n"      /* aniso 4, trilinear */
                                      "uniform sampler2DArray u_layers;\n" /* 4 layers, trilinear */
                                      "in vec2 v_uv;\n"
                                      "in vec3 v_view;\n"
                                      "out vec4 o_color;\n"
                                      "void main() {\n"
                                      "  vec4 g = texture(u_ground, v_uv * 8.0, 0.5);\n"
                                      "  float layer = floor(mod(v_uv.x * 4.0 + v_uv.y * 2.0, 4.0));\n"
                                      "  vec4 l = texture(u_layers, vec3(v_uv * 5.0, layer));\n"
                                      "  o_color = vec4(g.rgb * (0.5 + 0.5 * l.rgb), 1.0);\n"
                                      "}\n";
static const char *const k_wall_fs = "#version 300 es\n"
                                     "precision mediump float;\n"
                                     "uniform sampler2D u_brick;\n" /* sRGB, mipmapped */
                                     "uniform samplerCube u_sky;\n"
                                     "in vec2 v_uv;\n"
                                     "in vec3 v_view;\n"
                                     "out vec4 o_color;\n"
                                     "void main() {\n"
                                     "  vec4 a = textureLod(u_brick, v_uv * 2.0, 1.0);\n"
                                     "  vec4 b = textureGrad(u_brick, v_uv * 3.0, dFdx(v_uv) * 2.0, dFdy(v_uv));\n"
                                     "  vec3 r = reflect(normalize(v_view), vec3(0.0, 0.0, 1.0));\n"
                                     "  vec4 s = texture(u_sky, r);\n"
                                     "  o_color = vec4(mix(a.rgb * b.rgb, s.rgb, 0.3), 1.0);\n"
                                     "}\n";
static const char *const k_plain_fs = "#version 300 es\n"
                                      "precision mediump float;\n"
                                      "uniform sampler2D u_tex;\n"
                                      "in vec2 v_uv;\n"
                                      "in vec3 v_view;\n"
                                      "out vec4 o_color;\n"
                                      "void main() {\n"
                                      "  o_color = texture(u_tex, v_uv);\n"
                                      "}\n";

static void set_filters(GLenum target, GLenum min, GLenum mag, GLenum wrap)
{
    glTexParameteri(target, GL_TEXTURE_MIN_FILTER, (GLint)min);
    glTexParameteri(target, GL_TEXTURE_MAG_FILTER, (GLint)mag);
    glTexParameteri(target, GL_TEXTURE_WRAP_S, (GLint)wrap);
    glTexParameteri(target, GL_TEXTURE_WRAP_T, (GLint)wrap);
    if (target == GL_TEXTURE_CUBE_MAP) glTexParameteri(target, GL_TEXTURE_WRAP_R, (GLint)wrap);
}

/* size x size RGBA8 pattern of a kind (0 ground, 1 layer tint, 2 brick, 3 sky face, 4 hud) */
static void pattern(uint8_t *px, int size, int kind, int variant)
{
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            uint8_t *p = &px[(y * size + x) * 4];
            unsigned h = sample_hash((unsigned)(x * 131 + y * 7919 + variant * 104729));
            int check = ((x * 8 / size) ^ (y * 8 / size)) & 1;
            switch (kind) {
                case 0:
                    p[0] = (uint8_t)(70 + (h & 31) + check * 40);
                    p[1] = (uint8_t)(110 + ((h >> 5) & 31) + check * 30);
                    p[2] = (uint8_t)(40 + ((h >> 10) & 15));
                    break;
                case 1:
                    p[0] = (uint8_t)(variant == 0 ? 220 : 90 + (h & 63));
                    p[1] = (uint8_t)(variant == 1 ? 220 : 90 + ((h >> 6) & 63));
                    p[2] = (uint8_t)(variant == 2 ? 220 : 90 + ((h >> 12) & 63));
                    break;
                case 2: {
                    int row = y / (size / 8), mortar = (y % (size / 8)) < 1 || ((x + row * size / 8) % (size / 4)) < 1;
                    p[0] = (uint8_t)(mortar ? 200 : 150 + (h & 31));
                    p[1] = (uint8_t)(mortar ? 200 : 60 + ((h >> 5) & 31));
                    p[2] = (uint8_t)(mortar ? 190 : 40 + ((h >> 10) & 15));
                    break;
                }
                case 3:
                    p[0] = (uint8_t)(60 + variant * 30);
                    p[1] = (uint8_t)(120 + y * 100 / size);
                    p[2] = (uint8_t)(200 + check * 40);
                    break;
                default:
                    p[0] = (uint8_t)(check ? 255 : 30);
                    p[1] = (uint8_t)(x * 255 / size);
                    p[2] = (uint8_t)(y * 255 / size);
                    break;
            }
            p[3] = 255;
        }
}

static GLuint make_2d(int size, int kind, GLenum internal, GLenum min)
{
    static uint8_t px[128 * 128 * 4];
    pattern(px, size, kind, 0);
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexImage2D(GL_TEXTURE_2D, 0, (GLint)internal, size, size, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
    glGenerateMipmap(GL_TEXTURE_2D);
    set_filters(GL_TEXTURE_2D, min, GL_LINEAR, GL_REPEAT);
    return t;
}

static GLuint make_layers(void)
{
    static uint8_t px[64 * 64 * 4 * 4];
    for (int l = 0; l < 4; l++) pattern(px + l * 64 * 64 * 4, 64, 1, l);
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D_ARRAY, t);
    glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_RGBA8, 64, 64, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
    glGenerateMipmap(GL_TEXTURE_2D_ARRAY);
    set_filters(GL_TEXTURE_2D_ARRAY, GL_LINEAR_MIPMAP_LINEAR, GL_LINEAR, GL_REPEAT);
    return t;
}

static GLuint make_sky(void)
{
    static uint8_t px[32 * 32 * 4];
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_CUBE_MAP, t);
    for (int face = 0; face < 6; face++) {
        pattern(px, 32, 3, face);
        glTexImage2D((GLenum)(GL_TEXTURE_CUBE_MAP_POSITIVE_X + face), 0, GL_RGBA8, 32, 32, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                     px);
    }
    set_filters(GL_TEXTURE_CUBE_MAP, GL_LINEAR, GL_LINEAR, GL_CLAMP_TO_EDGE);
    return t;
}

/* 64x64 packed HDR color (GL_R11F_G11F_B10F, a format games use for light maps and
 * render targets), uploaded from floats. */
static GLuint make_packed_float(void)
{
    static float px[64 * 64 * 3];
    for (int i = 0; i < 64 * 64; i++) {
        unsigned h = sample_hash((unsigned)i);
        px[i * 3 + 0] = (float)(i % 64) / 40.0f;
        px[i * 3 + 1] = (float)(i / 64) / 50.0f;
        px[i * 3 + 2] = (float)(h & 255) / 255.0f;
    }
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R11F_G11F_B10F, 64, 64, 0, GL_RGB, GL_FLOAT, px);
    set_filters(GL_TEXTURE_2D, GL_LINEAR, GL_LINEAR, GL_REPEAT);
    return t;
}

/* GL errors by step (--verbose): a sample must end its frames without errors */
static void check_step(const struct sample *s, const char *step)
{
    GLenum e = glGetError();
    if (e != GL_NO_ERROR && s->verbose) fprintf(stderr, "tbr-sample-game3d: GL error 0x%04x after %s\n", e, step);
}

static GLuint program_with_units(const char *fs, const char *const *units)
{
    static const char *const attribs[] = {"a_pos", "a_uv", NULL};
    GLuint p = sample_program(k_vs, fs, attribs);
    glUseProgram(p);
    for (int i = 0; units[i]; i++) glUniform1i(glGetUniformLocation(p, units[i]), i);
    return p;
}

static void draw_with(GLuint prog, const float mvp[16], const float eye[3], int first, int count)
{
    glUseProgram(prog);
    glUniformMatrix4fv(glGetUniformLocation(prog, "u_mvp"), 1, GL_FALSE, mvp);
    glUniform3fv(glGetUniformLocation(prog, "u_eye"), 1, eye);
    glDrawElements(GL_TRIANGLES, count, GL_UNSIGNED_SHORT, (const void *)(first * sizeof(GLushort)));
}

int main(int argc, char **argv)
{
    static const struct sample_desc desc = {
        "game3d",
        "An ES 3.0 game's texturing: anisotropic filtering with bias, array, cube, sRGB, textureLod/Grad, R11G11B10F.",
        3,
        24,
        5,
    };
    struct sample s;
    int rc = sample_init(&s, &desc, argc, argv);
    if (rc || !s.dpy) return rc;

    static const char *const floor_units[] = {"u_ground", "u_layers", NULL};
    static const char *const wall_units[] = {"u_brick", "u_sky", NULL};
    static const char *const plain_units[] = {"u_tex", NULL};
    GLuint floor_prog = program_with_units(k_floor_fs, floor_units);
    GLuint wall_prog = program_with_units(k_wall_fs, wall_units);
    GLuint plain_prog = program_with_units(k_plain_fs, plain_units);

    glActiveTexture(GL_TEXTURE0);
    GLuint ground = make_2d(128, 0, GL_RGBA8, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameterf(GL_TEXTURE_2D, GL_TEXTURE_MAX_ANISOTROPY_EXT, 4.0f);
    check_step(&s, "ground");
    GLuint brick = make_2d(128, 2, GL_SRGB8_ALPHA8, GL_LINEAR_MIPMAP_LINEAR);
    GLuint hud = make_2d(64, 4, GL_RGBA8, GL_LINEAR);
    check_step(&s, "brick, hud");
    GLuint crate = make_packed_float();
    check_step(&s, "crate");
    glActiveTexture(GL_TEXTURE1);
    GLuint layers = make_layers();
    check_step(&s, "layers");
    GLuint sky = make_sky();
    check_step(&s, "sky");

    /* floor 40 x 40 at y = 0; wall 8 x 5 at z = -6; crate face 2 x 2 at z = -2; HUD in clip space */
    static const float verts[] = {
        -20, 0,    20,    0, 0, 20,    0,    20,    1, 0, 20,    0,     -20,   1, 1, -20, 0,     -20,   0, 1,
        -2,  0.5f, -6,    0, 0, 6,     0.5f, -6,    1, 0, 6,     5.5f,  -6,    1, 1, -2,  5.5f,  -6,    0, 1,
        -3,  0.2f, -2,    0, 0, -1,    0.2f, -2.5f, 1, 0, -1,    2.2f,  -2.5f, 1, 1, -3,  2.2f,  -2,    0, 1,
        -1,  -1,   0.99f, 0, 0, -0.6f, -1,   0.99f, 1, 0, -0.6f, -0.7f, 0.99f, 1, 1, -1,  -0.7f, 0.99f, 0, 1,
    };
    static const GLushort indices[] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7, 8, 9, 10, 8, 10, 11, 12, 13, 14, 12, 14, 15};
    GLuint bufs[2], vao;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(2, bufs);
    glBindBuffer(GL_ARRAY_BUFFER, bufs[0]);
    glBufferData(GL_ARRAY_BUFFER, sizeof verts, verts, GL_STATIC_DRAW);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, bufs[1]);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof indices, indices, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 5 * sizeof(float), (const void *)0);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 5 * sizeof(float), (const void *)(3 * sizeof(float)));
    glEnable(GL_DEPTH_TEST);

    for (int f = 0; f < s.frames && !rc; f++) {
        float eye[3] = {0.8f * sinf(0.4f * (float)f), 1.4f, 9.0f - 0.7f * (float)f};
        const float center[3] = {eye[0] * 0.3f, 1.0f, eye[2] - 8.0f}, up[3] = {0, 1, 0};
        float proj[16], view[16], mvp[16], identity[16];
        mat4_perspective(proj, 1.0f, (float)SAMPLE_WIDTH / SAMPLE_HEIGHT, 0.3f, 60.0f);
        mat4_look_at(view, eye, center, up);
        mat4_mul(mvp, proj, view);
        mat4_identity(identity);

        glClearColor(0.5f, 0.6f, 0.8f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, ground);
        glActiveTexture(GL_TEXTURE1);
        glBindTexture(GL_TEXTURE_2D_ARRAY, layers);
        draw_with(floor_prog, mvp, eye, 0, 6);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, brick);
        glActiveTexture(GL_TEXTURE1);
        glBindTexture(GL_TEXTURE_CUBE_MAP, sky);
        draw_with(wall_prog, mvp, eye, 6, 6);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, crate);
        draw_with(plain_prog, mvp, eye, 12, 6);
        glBindTexture(GL_TEXTURE_2D, hud);
        draw_with(plain_prog, identity, eye, 18, 6);

        rc = sample_end_frame(&s, f);
    }

    GLuint textures[] = {ground, brick, hud, crate, layers, sky};
    glDeleteTextures(6, textures);
    glDeleteBuffers(2, bufs);
    glDeleteVertexArrays(1, &vao);
    glDeleteProgram(floor_prog);
    glDeleteProgram(wall_prog);
    glDeleteProgram(plain_prog);
    sample_fini(&s);
    return rc;
}
