/* tbr-sample-branchy: shaders with discard, branches and loops (OpenGL ES 3.0, depth test).
 *
 * Four indexed draws of textured-less quads whose fragment shaders diverge per pixel:
 *  1. an escape-time fractal whose loop runs a data-dependent number of iterations
 *     (break), so the lanes of a 2x2 quad leave the loop at different times;
 *  2. a perforated panel in front that discards fragments in a moving hole
 *     pattern and writes depth: discard forces the depth test after shading (late Z);
 *  3. a panel behind it, drawn afterwards, that picks one of three colour
 *     computations per pixel (if / else if / else), visible only through the holes
 *     and therefore mostly rejected by the depth test;
 *  4. round "coins" cut out of quads with discard, with a loop whose trip count
 *     comes from a uniform.
 * (ATTILA Sec. on shader execution; thesis ch. 3: shader instruction mix.) */
#include "common/sample.h"

#include <GLES3/gl3.h>

static const char *const k_vs = "#version 300 es\n"
                                "layout(location = 0) in vec3 a_pos;\n"
                                "layout(location = 1) in vec2 a_uv;\n"
                                "uniform vec2 u_offset;\n"
                                "out vec2 v_uv;\n"
                                "void main() {\n"
                                "  v_uv = a_uv;\n"
                                "  gl_Position = vec4(a_pos.xy + u_offset, a_pos.z, 1.0);\n"
                                "}\n";

static const char *const k_fractal_fs = "#version 300 es\n"
                                        "precision highp float;\n"
                                        "uniform float u_zoom;\n"
                                        "in vec2 v_uv;\n"
                                        "out vec4 o_color;\n"
                                        "void main() {\n"
                                        "  vec2 c = vec2(-0.3, 0.0) + (v_uv - 0.5) * vec2(3.0, 2.4) * u_zoom;\n"
                                        "  vec2 z = vec2(0.0);\n"
                                        "  int i;\n"
                                        "  for (i = 0; i < 20; i++) {\n"
                                        "    z = vec2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;\n"
                                        "    if (dot(z, z) > 4.0) break;\n"
                                        "  }\n"
                                        "  float t = float(i) / 20.0;\n"
                                        "  o_color = vec4(t, t * t, 0.3 + 0.7 * (1.0 - t), 1.0);\n"
                                        "}\n";

static const char *const k_perforated_fs = "#version 300 es\n"
                                           "precision mediump float;\n"
                                           "uniform float u_phase;\n"
                                           "in vec2 v_uv;\n"
                                           "out vec4 o_color;\n"
                                           "void main() {\n"
                                           "  vec2 cell = fract(v_uv * vec2(6.0, 4.0) + vec2(u_phase, 0.0)) - 0.5;\n"
                                           "  if (dot(cell, cell) < 0.09) discard;\n"
                                           "  float stripe = step(0.5, fract(v_uv.y * 12.0));\n"
                                           "  o_color = vec4(0.55 + 0.2 * stripe, 0.5, 0.45, 1.0);\n"
                                           "}\n";

static const char *const k_select_fs =
    "#version 300 es\n"
    "precision mediump float;\n"
    "in vec2 v_uv;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "  vec3 c;\n"
    "  float k = v_uv.x + 0.5 * v_uv.y;\n"
    "  if (k < 0.5) {\n"
    "    c = vec3(1.0, 0.3, 0.2) * (0.5 + 0.5 * sin(v_uv.x * 40.0));\n"
    "  } else if (k < 1.0) {\n"
    "    c = vec3(0.2, 1.0, 0.4) * smoothstep(0.2, 0.8, fract(v_uv.y * 7.0));\n"
    "  } else {\n"
    "    c = vec3(0.3, 0.4, 1.0) * (0.6 + 0.4 * cos(v_uv.y * 25.0 + v_uv.x * 9.0));\n"
    "  }\n"
    "  o_color = vec4(c, 1.0);\n"
    "}\n";

static const char *const k_coin_fs = "#version 300 es\n"
                                     "precision mediump float;\n"
                                     "uniform int u_rings;\n"
                                     "in vec2 v_uv;\n"
                                     "out vec4 o_color;\n"
                                     "void main() {\n"
                                     "  vec2 p = v_uv * 2.0 - 1.0;\n"
                                     "  float r2 = dot(p, p);\n"
                                     "  if (r2 > 1.0) discard;\n"
                                     "  float shade = 0.0;\n"
                                     "  for (int i = 0; i < u_rings; i++) {\n"
                                     "    float edge = float(i + 1) / float(u_rings);\n"
                                     "    if (r2 < edge * edge) { shade = float(i) / float(u_rings); break; }\n"
                                     "  }\n"
                                     "  o_color = vec4(1.0, 0.85 - 0.4 * shade, 0.2 + 0.3 * shade, 1.0);\n"
                                     "}\n";

/* Quads in clip space: x0, y0, x1, y1, z. */
static const float k_quads[][5] = {
    {-1.0f, -1.0f, 0.1f, 1.0f, 0.9f},       /* fractal, far */
    {-0.15f, -0.7f, 0.95f, 0.7f, 0.2f},     /* perforated panel, near */
    {-0.4f, -0.95f, 0.8f, 0.85f, 0.5f},     /* selection panel, between */
    {-0.08f, -0.08f, 0.08f, 0.1067f, 0.0f}, /* coin, nearest (moved per instance) */
};
#define NQUADS 4

int main(int argc, char **argv)
{
    static const struct sample_desc desc = {
        "branchy", "Divergent shaders: loops with break, discard (late Z), branches (ES3, depth test).", 3, 24, 5,
    };
    struct sample s;
    int rc = sample_init(&s, &desc, argc, argv);
    if (rc || !s.dpy) return rc;

    GLuint progs[4] = {
        sample_program(k_vs, k_fractal_fs, NULL),
        sample_program(k_vs, k_perforated_fs, NULL),
        sample_program(k_vs, k_select_fs, NULL),
        sample_program(k_vs, k_coin_fs, NULL),
    };
    GLint u_offset[4];
    for (int i = 0; i < 4; i++) u_offset[i] = glGetUniformLocation(progs[i], "u_offset");
    GLint u_zoom = glGetUniformLocation(progs[0], "u_zoom");
    GLint u_phase = glGetUniformLocation(progs[1], "u_phase");
    GLint u_rings = glGetUniformLocation(progs[3], "u_rings");

    float verts[NQUADS * 4 * 5];
    GLushort indices[NQUADS * 6];
    for (int q = 0; q < NQUADS; q++) {
        const float *r = k_quads[q];
        const float xs[4] = {r[0], r[2], r[2], r[0]}, ys[4] = {r[1], r[1], r[3], r[3]};
        const float us[4] = {0, 1, 1, 0}, vs[4] = {0, 0, 1, 1};
        for (int i = 0; i < 4; i++) {
            float *v = &verts[(q * 4 + i) * 5];
            v[0] = xs[i];
            v[1] = ys[i];
            v[2] = r[4];
            v[3] = us[i];
            v[4] = vs[i];
        }
        static const GLushort k[6] = {0, 1, 2, 0, 2, 3};
        for (int i = 0; i < 6; i++) indices[q * 6 + i] = (GLushort)(q * 4 + k[i]);
    }
    GLuint vao, bufs[2];
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
    glDepthFunc(GL_LESS);

    for (int f = 0; f < s.frames && !rc; f++) {
        glClearColor(0.08f, 0.08f, 0.1f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);

        glUseProgram(progs[0]);
        glUniform2f(u_offset[0], 0.0f, 0.0f);
        glUniform1f(u_zoom, 1.0f - 0.06f * (float)f);
        glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, (const void *)(0 * 6 * sizeof(GLushort)));

        glUseProgram(progs[1]);
        glUniform2f(u_offset[1], 0.0f, 0.0f);
        glUniform1f(u_phase, 0.1f * (float)f);
        glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, (const void *)(1 * 6 * sizeof(GLushort)));

        glUseProgram(progs[2]);
        glUniform2f(u_offset[2], 0.0f, 0.0f);
        glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, (const void *)(2 * 6 * sizeof(GLushort)));

        glUseProgram(progs[3]);
        glUniform1i(u_rings, 3 + f % 4);
        for (int c = 0; c < 5; c++) {
            glUniform2f(u_offset[3], -0.7f + 0.33f * (float)c + 0.02f * (float)f, 0.55f - 0.25f * (float)(c & 1));
            glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, (const void *)(3 * 6 * sizeof(GLushort)));
        }

        rc = sample_end_frame(&s, f);
    }

    glDeleteBuffers(2, bufs);
    glDeleteVertexArrays(1, &vao);
    for (int i = 0; i < 4; i++) glDeleteProgram(progs[i]);
    sample_fini(&s);
    return rc;
}
