/* tbr-sample-allchange: every screen tile changes every frame (OpenGL ES 2.0, VBO).
 *
 * A full-screen quad whose animated gradient shifts with the frame number, so every
 * pixel's color differs from the previous frame's (the phase step is far above one
 * 8-bit quantization step everywhere), plus a disc (triangle fan) moving across it.
 * The worst case for Rendering Elimination (RE paper sec. V: "benchmarks that lack
 * redundant tiles"): no tile can be skipped and the signature work is pure overhead. */
#include "common/sample.h"

#include <math.h>

static const char *const k_vs = "attribute vec2 a_pos;\n"
                                "uniform vec2 u_offset;\n"
                                "uniform float u_scale;\n"
                                "varying vec2 v_uv;\n"
                                "void main() {\n"
                                "  v_uv = a_pos * 0.5 + 0.5;\n"
                                "  gl_Position = vec4(a_pos * u_scale + u_offset, 0.0, 1.0);\n"
                                "}\n";
/* The gradient: three phase-shifted ramps in [0.1, 0.9]; u_phase grows by 0.125 per
 * frame, which moves every channel by at least 0.1 * 255 levels wherever its slope is
 * not zero, and the three channels never have zero slope at the same pixel. */
static const char *const k_fs = "precision mediump float;\n"
                                "uniform float u_phase;\n"
                                "uniform vec3 u_tint;\n"
                                "varying vec2 v_uv;\n"
                                "void main() {\n"
                                "  float t = v_uv.x * 0.7 + v_uv.y * 0.3 + u_phase;\n"
                                "  vec3 ramp = abs(fract(vec3(t, t + 0.333, t + 0.667)) * 2.0 - 1.0);\n"
                                "  gl_FragColor = vec4(u_tint * (0.1 + 0.8 * ramp), 1.0);\n"
                                "}\n";

#define DISC_SEGMENTS 24

int main(int argc, char **argv)
{
    static const struct sample_desc desc = {
        "allchange", "Every tile changes every frame: animated full-screen gradient and a moving disc (ES2).", 2, 0, 5,
    };
    struct sample s;
    int rc = sample_init(&s, &desc, argc, argv);
    if (rc || !s.dpy) return rc;

    static const char *const attribs[] = {"a_pos", NULL};
    GLuint prog = sample_program(k_vs, k_fs, attribs);
    GLint u_offset = glGetUniformLocation(prog, "u_offset");
    GLint u_scale = glGetUniformLocation(prog, "u_scale");
    GLint u_phase = glGetUniformLocation(prog, "u_phase");
    GLint u_tint = glGetUniformLocation(prog, "u_tint");

    /* Full-screen quad (triangle strip) then the disc (fan: centre + segments + 1). */
    float verts[2 * (4 + DISC_SEGMENTS + 2)];
    static const float quad[8] = {-1, -1, 1, -1, -1, 1, 1, 1};
    for (int i = 0; i < 8; i++) verts[i] = quad[i];
    verts[8] = 0.0f;
    verts[9] = 0.0f;
    for (int k = 0; k <= DISC_SEGMENTS; k++) {
        float a = 6.2831853f * (float)k / DISC_SEGMENTS;
        verts[10 + 2 * k] = cosf(a);
        verts[11 + 2 * k] = sinf(a);
    }
    GLuint vbo;
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof verts, verts, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (const void *)0);
    glUseProgram(prog);

    for (int f = 0; f < s.frames && !rc; f++) {
        glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        glUniform1f(u_phase, 0.125f * (float)f);
        glUniform2f(u_offset, 0.0f, 0.0f);
        glUniform1f(u_scale, 1.0f);
        glUniform3f(u_tint, 1.0f, 1.0f, 1.0f);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
        /* the disc crosses the screen left to right, inverted tint */
        glUniform2f(u_offset, -0.6f + 0.3f * (float)f, 0.1f * sinf((float)f));
        glUniform1f(u_scale, 0.3f);
        glUniform3f(u_tint, 0.5f, 0.9f, 0.4f);
        glDrawArrays(GL_TRIANGLE_FAN, 4, DISC_SEGMENTS + 2);
        rc = sample_end_frame(&s, f);
    }

    glDeleteBuffers(1, &vbo);
    glDeleteProgram(prog);
    sample_fini(&s);
    return rc;
}
