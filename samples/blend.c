/* tbr-sample-blend: alpha-blended translucent layers and particles (OpenGL ES 2.0, VBO/IBO).
 *
 * An opaque checkerboard, three overlapping translucent panels (result depends on
 * their drawing order) and two particle systems: additive "sparks" and
 * alpha-blended "smoke" with a soft radial falloff computed in the fragment
 * shader.  Particle vertices are streamed into the VBO every frame with
 * glBufferSubData; all quads are drawn indexed from one static index buffer.
 *
 * Destination alpha is kept at 1.0 (glBlendFuncSeparate with ZERO, ONE for alpha)
 * so the frame does not depend on whether a snapshot includes the alpha channel. */
#include "common/sample.h"

#include <math.h>

static const char *const k_vs = "attribute vec2 a_pos;\n"
                                "attribute vec2 a_uv;\n"
                                "attribute vec4 a_color;\n"
                                "varying vec2 v_uv;\n"
                                "varying vec4 v_color;\n"
                                "void main() {\n"
                                "  v_uv = a_uv;\n"
                                "  v_color = a_color;\n"
                                "  gl_Position = vec4(a_pos / vec2(160.0, 120.0) - 1.0, 0.0, 1.0);\n"
                                "}\n";
static const char *const k_fs = "precision mediump float;\n"
                                "uniform float u_soft;\n"
                                "varying vec2 v_uv;\n"
                                "varying vec4 v_color;\n"
                                "void main() {\n"
                                "  float a = v_color.a;\n"
                                "  if (u_soft > 0.5) {\n"
                                "    float d = length(v_uv * 2.0 - 1.0);\n"
                                "    a *= 1.0 - smoothstep(0.2, 1.0, d);\n"
                                "  }\n"
                                "  gl_FragColor = vec4(v_color.rgb, a);\n"
                                "}\n";

struct vertex {
    float x, y, u, v;
    float rgba[4];
};

#define CHECKER_QUADS 48 /* 8 x 6 cells of 40 x 40 pixels */
#define PANEL_QUADS   3
#define SPARKS        24
#define SMOKE         16
#define STATIC_QUADS  (CHECKER_QUADS + PANEL_QUADS)
#define TOTAL_QUADS   (STATIC_QUADS + SPARKS + SMOKE)

static void quad(struct vertex *v, float x0, float y0, float x1, float y1, float r, float g, float b, float a)
{
    const float xs[4] = {x0, x1, x1, x0}, ys[4] = {y0, y0, y1, y1};
    const float us[4] = {0, 1, 1, 0}, vs[4] = {0, 0, 1, 1};
    for (int i = 0; i < 4; i++) {
        v[i].x = xs[i];
        v[i].y = ys[i];
        v[i].u = us[i];
        v[i].v = vs[i];
        v[i].rgba[0] = r;
        v[i].rgba[1] = g;
        v[i].rgba[2] = b;
        v[i].rgba[3] = a;
    }
}

/* Pseudo-random value in [0, 1) from a particle id and a salt. */
static float rnd(unsigned id, unsigned salt) { return (float)(sample_hash(id * 7919u + salt) & 0xffffu) / 65536.0f; }

int main(int argc, char **argv)
{
    static const struct sample_desc desc = {
        "blend", "Alpha-blended translucent panels and particles (ES2, streamed VBO, indexed draws).", 2, 0, 5,
    };
    struct sample s;
    int rc = sample_init(&s, &desc, argc, argv);
    if (rc || !s.dpy) return rc;

    static const char *const attribs[] = {"a_pos", "a_uv", "a_color", NULL};
    GLuint prog = sample_program(k_vs, k_fs, attribs);
    GLint u_soft = glGetUniformLocation(prog, "u_soft");

    static struct vertex verts[TOTAL_QUADS * 4];
    static GLushort indices[TOTAL_QUADS * 6];
    for (int q = 0; q < TOTAL_QUADS; q++) {
        static const GLushort k[6] = {0, 1, 2, 0, 2, 3};
        for (int i = 0; i < 6; i++) indices[q * 6 + i] = (GLushort)(q * 4 + k[i]);
    }
    for (int cy = 0; cy < 6; cy++)
        for (int cx = 0; cx < 8; cx++) {
            float c = ((cx + cy) & 1) ? 0.75f : 0.35f;
            quad(&verts[(cy * 8 + cx) * 4], cx * 40.0f, cy * 40.0f, cx * 40.0f + 40.0f, cy * 40.0f + 40.0f, c, c,
                 c * 0.9f, 1.0f);
        }
    /* Overlapping panels: red, green, blue at 50-60% opacity. */
    quad(&verts[(CHECKER_QUADS + 0) * 4], 30, 40, 190, 170, 0.9f, 0.1f, 0.1f, 0.55f);
    quad(&verts[(CHECKER_QUADS + 1) * 4], 110, 80, 270, 210, 0.1f, 0.8f, 0.2f, 0.5f);
    quad(&verts[(CHECKER_QUADS + 2) * 4], 70, 20, 230, 130, 0.1f, 0.3f, 0.9f, 0.6f);

    GLuint bufs[2];
    glGenBuffers(2, bufs);
    glBindBuffer(GL_ARRAY_BUFFER, bufs[0]);
    glBufferData(GL_ARRAY_BUFFER, sizeof verts, verts, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, bufs[1]);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof indices, indices, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(struct vertex), (const void *)0);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, sizeof(struct vertex), (const void *)(2 * sizeof(float)));
    glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, sizeof(struct vertex), (const void *)(4 * sizeof(float)));
    glUseProgram(prog);
    glDisable(GL_DEPTH_TEST);

    for (int f = 0; f < s.frames && !rc; f++) {
        /* Particles move along fixed trajectories parameterized by the frame number. */
        struct vertex *p = &verts[STATIC_QUADS * 4];
        for (unsigned i = 0; i < SPARKS; i++) {
            float t = rnd(i, 1) + 0.04f * (float)f;
            float x = 20.0f + 280.0f * rnd(i, 2) + 30.0f * sinf(6.2831853f * t);
            float y = 20.0f + 200.0f * fmodf(rnd(i, 3) + 0.05f * (float)f, 1.0f);
            float r = 10.0f + 14.0f * rnd(i, 4);
            quad(p, x - r, y - r, x + r, y + r, 1.0f, 0.5f + 0.5f * rnd(i, 5), 0.2f, 0.8f);
            p += 4;
        }
        for (unsigned i = 0; i < SMOKE; i++) {
            float x = 40.0f + 240.0f * rnd(i, 6) + 3.0f * (float)f;
            float y = 30.0f + 160.0f * rnd(i, 7) + 4.0f * (float)f;
            float r = 25.0f + 30.0f * rnd(i, 8);
            float g = 0.3f + 0.5f * rnd(i, 9);
            quad(p, x - r, y - r, x + r, y + r, g, g, g + 0.1f, 0.45f);
            p += 4;
        }
        glBufferSubData(GL_ARRAY_BUFFER, STATIC_QUADS * 4 * sizeof(struct vertex),
                        (SPARKS + SMOKE) * 4 * sizeof(struct vertex), &verts[STATIC_QUADS * 4]);

        glClearColor(0.05f, 0.05f, 0.15f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);

        /* Opaque background. */
        glDisable(GL_BLEND);
        glUniform1f(u_soft, 0.0f);
        glDrawElements(GL_TRIANGLES, CHECKER_QUADS * 6, GL_UNSIGNED_SHORT, (const void *)0);

        /* Translucent panels, "over" operator, in a fixed order. */
        glEnable(GL_BLEND);
        glBlendEquation(GL_FUNC_ADD);
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
        glDrawElements(GL_TRIANGLES, PANEL_QUADS * 6, GL_UNSIGNED_SHORT,
                       (const void *)(CHECKER_QUADS * 6 * sizeof(GLushort)));

        /* Additive sparks (order independent up to saturation). */
        glUniform1f(u_soft, 1.0f);
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE, GL_ZERO, GL_ONE);
        glDrawElements(GL_TRIANGLES, SPARKS * 6, GL_UNSIGNED_SHORT,
                       (const void *)(STATIC_QUADS * 6 * sizeof(GLushort)));

        /* Alpha-blended smoke on top (order dependent). */
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
        glDrawElements(GL_TRIANGLES, SMOKE * 6, GL_UNSIGNED_SHORT,
                       (const void *)((STATIC_QUADS + SPARKS) * 6 * sizeof(GLushort)));

        rc = sample_end_frame(&s, f);
    }

    glDeleteBuffers(2, bufs);
    glDeleteProgram(prog);
    sample_fini(&s);
    return rc;
}
