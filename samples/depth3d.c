/* tbr-sample-depth3d: a small 3D scene with depth testing (OpenGL ES 3.0, VAO/VBO/IBO).
 *
 * A ground plane, overlapping boxes and an instanced row of small cubes, seen by a
 * camera orbiting the scene (its angle depends on the frame number only).  The
 * boxes are drawn in a fixed order that is back-to-front for some camera angles
 * and front-to-back for others, so both overdraw and early-Z rejection occur
 * (thesis ch. 3 workload characterization: overdraw; ATTILA: early Z). */
#include "common/sample.h"

#include <GLES3/gl3.h>
#include <math.h>

static const char *const k_vs =
    "#version 300 es\n"
    "layout(location = 0) in vec3 a_pos;\n"
    "layout(location = 1) in vec3 a_normal;\n"
    "uniform mat4 u_viewproj;\n"
    "uniform mat4 u_model;\n"
    "uniform vec3 u_instance_step;\n"
    "out vec3 v_normal;\n"
    "out float v_fog;\n"
    "void main() {\n"
    "  vec4 world = u_model * vec4(a_pos, 1.0) + vec4(u_instance_step * float(gl_InstanceID), 0.0);\n"
    "  v_normal = mat3(u_model) * a_normal;\n"
    "  gl_Position = u_viewproj * world;\n"
    "  v_fog = clamp(gl_Position.w / 30.0, 0.0, 1.0);\n"
    "}\n";
static const char *const k_fs = "#version 300 es\n"
                                "precision mediump float;\n"
                                "uniform vec3 u_color;\n"
                                "in vec3 v_normal;\n"
                                "in float v_fog;\n"
                                "out vec4 o_color;\n"
                                "void main() {\n"
                                "  vec3 n = normalize(v_normal);\n"
                                "  float diffuse = max(dot(n, normalize(vec3(0.4, 0.9, 0.3))), 0.0);\n"
                                "  vec3 c = u_color * (0.25 + 0.75 * diffuse);\n"
                                "  o_color = vec4(mix(c, vec3(0.55, 0.6, 0.7), v_fog * v_fog), 1.0);\n"
                                "}\n";

/* Unit cube centred on the origin: 6 faces x 4 vertices (position, normal). */
static void build_cube(float *v, GLushort *idx)
{
    static const float n[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (int f = 0; f < 6; f++) {
        /* Two tangent axes so that (u x w) == n, giving counter-clockwise faces. */
        float u[3] = {n[f][1], n[f][2], n[f][0]};
        float w[3] = {n[f][1] * u[2] - n[f][2] * u[1], n[f][2] * u[0] - n[f][0] * u[2],
                      n[f][0] * u[1] - n[f][1] * u[0]};
        static const float corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
        for (int c = 0; c < 4; c++) {
            float *p = &v[(f * 4 + c) * 6];
            for (int k = 0; k < 3; k++) {
                p[k] = 0.5f * (n[f][k] + corner[c][0] * u[k] + corner[c][1] * w[k]);
                p[3 + k] = n[f][k];
            }
        }
        static const GLushort q[6] = {0, 1, 2, 0, 2, 3};
        for (int i = 0; i < 6; i++) idx[f * 6 + i] = (GLushort)(f * 4 + q[i]);
    }
}

int main(int argc, char **argv)
{
    static const struct sample_desc desc = {
        "depth3d", "3D scene with depth test, overlapping objects and a moving camera (ES3, VBO/IBO, instancing).",
        3,         24,
        5,
    };
    struct sample s;
    int rc = sample_init(&s, &desc, argc, argv);
    if (rc || !s.dpy) return rc;

    GLuint prog = sample_program(k_vs, k_fs, NULL);
    GLint u_viewproj = glGetUniformLocation(prog, "u_viewproj");
    GLint u_model = glGetUniformLocation(prog, "u_model");
    GLint u_color = glGetUniformLocation(prog, "u_color");
    GLint u_step = glGetUniformLocation(prog, "u_instance_step");

    /* Cube (24 vertices) followed by the ground quad (4 vertices) in one VBO. */
    float verts[(24 + 4) * 6];
    GLushort indices[36 + 6];
    build_cube(verts, indices);
    static const float ground[4 * 6] = {
        -1, 0, -1, 0, 1, 0, -1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, -1, 0, 1, 0,
    };
    for (int i = 0; i < 24; i++) verts[24 * 6 + i] = ground[i];
    static const GLushort gq[6] = {24, 25, 26, 24, 26, 27};
    for (int i = 0; i < 6; i++) indices[36 + i] = gq[i];

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
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (const void *)0);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (const void *)(3 * sizeof(float)));

    glUseProgram(prog);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);

    /* Boxes: position (x, z), size (sx, sy, sz), colour.  Listed far-to-near for the
     * starting camera; as the camera orbits the order stops matching depth. */
    static const float boxes[][9] = {
        {0.0f, -4.0f, 6.0f, 3.0f, 1.0f, 0.8f, 0.3f, 0.3f, 0.0f},
        {-1.5f, -1.5f, 2.0f, 2.5f, 2.0f, 0.3f, 0.8f, 0.3f, 0.3f},
        {1.2f, -1.0f, 1.5f, 1.5f, 1.5f, 0.3f, 0.4f, 0.9f, -0.4f},
        {0.0f, 0.5f, 1.0f, 4.0f, 1.0f, 0.9f, 0.8f, 0.2f, 0.0f},
        {-0.8f, 2.0f, 1.8f, 1.0f, 1.2f, 0.8f, 0.4f, 0.9f, 0.7f},
    };

    for (int f = 0; f < s.frames && !rc; f++) {
        float angle = 0.3f + 0.07f * (float)f;
        float eye[3] = {9.0f * sinf(angle), 3.5f, 9.0f * cosf(angle)};
        static const float center[3] = {0.0f, 0.8f, 0.0f}, up[3] = {0.0f, 1.0f, 0.0f};
        float proj[16], view[16], viewproj[16];
        mat4_perspective(proj, 0.9f, (float)SAMPLE_WIDTH / SAMPLE_HEIGHT, 0.5f, 40.0f);
        mat4_look_at(view, eye, center, up);
        mat4_mul(viewproj, proj, view);

        glClearColor(0.55f, 0.6f, 0.7f, 1.0f);
        glClearDepthf(1.0f);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        glUniformMatrix4fv(u_viewproj, 1, GL_FALSE, viewproj);
        glUniform3f(u_step, 0.0f, 0.0f, 0.0f);

        float model[16], rot[16], m[16];
        for (unsigned b = 0; b < sizeof boxes / sizeof boxes[0]; b++) {
            const float *bx = boxes[b];
            /* model = T * R * S: scale the unit cube, turn it, place it on the ground. */
            mat4_translate_scale(m, bx[0], bx[3] * 0.5f, bx[1], 1.0f, 1.0f, 1.0f);
            mat4_rotate_y(rot, bx[8] + (b == 3 ? 0.15f * (float)f : 0.0f));
            mat4_mul(model, m, rot);
            mat4_translate_scale(m, 0.0f, 0.0f, 0.0f, bx[2], bx[3], bx[4]);
            mat4_mul(model, model, m);
            glUniformMatrix4fv(u_model, 1, GL_FALSE, model);
            glUniform3f(u_color, bx[5], bx[6], bx[7]);
            glDrawElements(GL_TRIANGLES, 36, GL_UNSIGNED_SHORT, (const void *)0);
        }

        /* Ground last: mostly hidden behind the boxes, rejected by the depth test. */
        mat4_translate_scale(model, 0.0f, 0.0f, 0.0f, 12.0f, 1.0f, 12.0f);
        glUniformMatrix4fv(u_model, 1, GL_FALSE, model);
        glUniform3f(u_color, 0.45f, 0.5f, 0.35f);
        glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, (const void *)(36 * sizeof(GLushort)));

        /* An instanced row of small cubes crossing the scene. */
        mat4_translate_scale(model, -5.0f, 0.35f, 3.0f, 0.7f, 0.7f, 0.7f);
        glUniformMatrix4fv(u_model, 1, GL_FALSE, model);
        glUniform3f(u_step, 1.25f, 0.0f, -0.9f);
        glUniform3f(u_color, 0.9f, 0.9f, 0.95f);
        glDrawElementsInstanced(GL_TRIANGLES, 36, GL_UNSIGNED_SHORT, (const void *)0, 9);

        rc = sample_end_frame(&s, f);
    }

    glDeleteBuffers(2, bufs);
    glDeleteVertexArrays(1, &vao);
    glDeleteProgram(prog);
    sample_fini(&s);
    return rc;
}
