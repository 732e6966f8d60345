/*
 * tbr-functional-known-geometry: a tiny GLES2 program whose per-frame work is
 * known analytically, captured with `apitrace trace --api egl` by the
 * functional tests (tests/functional/CMakeLists.txt).
 *
 * 320x240 pbuffer (surfaceless EGL), 16-bit depth. Rectangles are given in
 * window pixels with edges on pixel boundaries, so exactly the pixels inside
 * are covered (pixel centres at +0.5). Frames:
 *   0: clear; one full-screen rectangle, blended     -> 76800 fragments, 19200 distinct quads
 *   1: clear color+depth; depth test LESS (Z16 fast path): rect A [40,200)x[40,160) z=0.5,
 *      then rect B [120,280)x[80,200) z=0.25 (in front), then rect C [0,80)x[0,60) z=0.75
 *      behind A where they overlap.
 *   2: clear; rect [0,64)x[0,64) whose fragment shader discards x < 32 (late Z not
 *      involved: no depth), plus 3 GL_POINTS of size 1 and one horizontal GL_LINES.
 * Prints the expected counts on stdout as key=value lines when run with --expect.
 */
#include "known_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 240

/* rectangle in window pixels (y down from the top, like the PNGs) at depth z in [0,1] */
static void rect(float x0, float y0, float x1, float y1, float z)
{
    float nz = z * 2.0f - 1.0f;
    float v[] = {
        x0, y0, nz, x1, y0, nz, x1, y1, nz, x0, y0, nz, x1, y1, nz, x0, y1, nz,
    };
    for (int i = 0; i < 6; i++) {
        v[i * 3 + 0] = v[i * 3 + 0] / (W / 2.0f) - 1.0f;
        v[i * 3 + 1] = 1.0f - v[i * 3 + 1] / (H / 2.0f);
    }
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, v);
    glDrawArrays(GL_TRIANGLES, 0, 6);
}

static const char *vs_src = "attribute vec3 a_pos;\n"
                            "void main() { gl_Position = vec4(a_pos, 1.0); gl_PointSize = 1.0; }\n";
static const char *fs_color = "precision mediump float;\n"
                              "uniform vec4 u_color;\n"
                              "void main() { gl_FragColor = u_color; }\n";
static const char *fs_discard = "precision mediump float;\n"
                                "uniform vec4 u_color;\n"
                                "void main() { if (gl_FragCoord.x < 32.0) discard; gl_FragColor = u_color; }\n";

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--expect") == 0) {
        /* frame 1: A = 160x120 = 19200 fragments, B = 160x120 = 19200, C = 80x60 = 4800.
         * Fragments reaching the depth test = 43200; passing: A all 19200 (cleared to 1.0),
         * B all 19200 (0.25 < everything), C: only where not covered by A:
         * C = [0,80)x[0,60), A = [40,200)x[40,160): overlap [40,80)x[40,60) = 40x20 = 800
         * -> C passes 4000. Frame 2: 64x64 rect = 4096 covered, 2048 survive the discard;
         * 3 points = 3 fragments; line from (100.5,200.5) to (140.5,200.5) = 40 fragments. */
        printf("frames=3\n");
        printf("frame0_draws=1\nframe0_fragments=76800\nframe0_distinct_quads=19200\n");
        printf("frame0_blended_fragments=76800\n");
        printf("frame1_draws=3\nframe1_fragments=43200\nframe1_depth_passed=42400\n");
        printf("frame2_draws=3\nframe2_fragments=4139\nframe2_blended_fragments=2091\n");
        /* vertices: non-indexed draws of 6 (rect), 3 (points), 2 (line) vertices, shaded
         * 4 at a time: frame 0 one rect, frame 1 three, frame 2 rect + points + line */
        printf("frame0_vertices=6\nframe0_vertex_groups=2\nframe1_vertices=18\n");
        printf("frame1_vertex_groups=6\nframe2_vertices=11\nframe2_vertex_groups=4\n");
        for (int f = 0; f < 3; f++)
            printf("frame%d_vertex_groups_without_path=0\nframe%d_vertex_draw_mismatch=0\n", f, f);
        return 0;
    }
    struct known_app app;
    known_app_init(&app, "known_geometry", W, H, 16);

    static const char *const attribs[] = {"a_pos", NULL};
    GLuint p_color = known_program(&app, vs_src, fs_color, attribs);
    GLuint p_discard = known_program(&app, vs_src, fs_discard, attribs);
    glViewport(0, 0, W, H);
    glEnableVertexAttribArray(0);

    /* frame 0 */
    glClearColor(0.2f, 0.3f, 0.4f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(p_color);
    glUniform4f(glGetUniformLocation(p_color, "u_color"), 0.9f, 0.5f, 0.1f, 0.37f);
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
    rect(0, 0, W, H, 0.5f);
    glDisable(GL_BLEND);
    eglSwapBuffers(app.dpy, app.surf);

    /* frame 1 */
    glClearDepthf(1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    GLint loc = glGetUniformLocation(p_color, "u_color");
    glUniform4f(loc, 1.0f, 0.0f, 0.0f, 1.0f);
    rect(40, 40, 200, 160, 0.5f);
    glUniform4f(loc, 0.0f, 1.0f, 0.0f, 1.0f);
    rect(120, 80, 280, 200, 0.25f);
    glUniform4f(loc, 0.0f, 0.0f, 1.0f, 1.0f);
    rect(0, 0, 80, 60, 0.75f);
    glDisable(GL_DEPTH_TEST);
    eglSwapBuffers(app.dpy, app.surf);

    /* frame 2 */
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(p_discard);
    glUniform4f(glGetUniformLocation(p_discard, "u_color"), 1.0f, 1.0f, 0.0f, 1.0f);
    rect(0, 0, 64, 64, 0.5f);
    glUseProgram(p_color);
    glUniform4f(glGetUniformLocation(p_color, "u_color"), 1.0f, 1.0f, 1.0f, 1.0f);
    {
        /* pixel centres (200.5, 100.5), (210.5, 100.5), (220.5, 100.5) */
        float pts[] = {200.5f, 100.5f, 210.5f, 100.5f, 220.5f, 100.5f};
        float v[9];
        for (int i = 0; i < 3; i++) {
            v[i * 3 + 0] = pts[i * 2] / (W / 2.0f) - 1.0f;
            v[i * 3 + 1] = 1.0f - pts[i * 2 + 1] / (H / 2.0f);
            v[i * 3 + 2] = 0.0f;
        }
        glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, v);
        glDrawArrays(GL_POINTS, 0, 3);
        float l[] = {100.5f / (W / 2.0f) - 1.0f, 1.0f - 200.5f / (H / 2.0f), 0.0f,
                     140.5f / (W / 2.0f) - 1.0f, 1.0f - 200.5f / (H / 2.0f), 0.0f};
        glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, l);
        glDrawArrays(GL_LINES, 0, 2);
    }
    eglSwapBuffers(app.dpy, app.surf);

    known_app_fini(&app);
    return 0;
}
