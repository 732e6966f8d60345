/*
 * tbr-functional-known-vtex: a tiny GLES2 program whose VERTEX shader samples a
 * texture (a height map, like glmark2 terrain), with texel reads known
 * analytically; captured with `apitrace trace --api egl` by functional.vtex
 * (tests/functional/vtex.sh).
 *
 * 64x64 pbuffer. Every frame draws 34 separate triangles (GL_TRIANGLES, non-indexed,
 * 102 vertices). Vertex i samples a 16x16 texture with texture2DLod(.., 0.0) at the
 * centre of texel (i % 16, i / 16), displaces its y by the red channel and passes the
 * texel colour to the fragment shader (so the image depends on what the VS read).
 *   0: NEAREST: 1 texel per vertex -> 102 texels, texel index x + 16 y = i.
 *   1: LINEAR:  4 texels per vertex (2x2 footprint whose first texel is (i % 16, i / 16),
 *      CLAMP_TO_EDGE duplicates at the right edge) -> 408 texels.
 * 102 = 25 groups of 4 vertices + one of 2: the sampler also runs the 2 empty lanes of
 * the last group, whose texels must not be recorded. One texture instruction per group.
 * Prints the expected counts on stdout as key=value lines when run with --expect.
 */
#include "known_app.h"

#include <stdio.h>
#include <string.h>

#define W     64
#define H     64
#define TEX   16
#define TRIS  34
#define VERTS (3 * TRIS)

static const char *vs_src = "attribute vec2 a_pos;\n"
                            "attribute vec2 a_tc;\n"
                            "uniform sampler2D u_height;\n"
                            "varying vec4 v_col;\n"
                            "void main() {\n"
                            "  vec4 h = texture2DLod(u_height, a_tc, 0.0);\n"
                            "  v_col = h;\n"
                            "  gl_Position = vec4(a_pos.x, a_pos.y + h.r * 0.05, 0.0, 1.0);\n"
                            "}\n";
static const char *fs_src = "precision mediump float;\n"
                            "varying vec4 v_col;\n"
                            "void main() { gl_FragColor = v_col; }\n";

int main(int argc, char **argv)
{
    const int groups = (VERTS + 3) / 4;
    if (argc > 1 && strcmp(argv[1], "--expect") == 0) {
        printf("frames=2\n");
        for (int f = 0; f < 2; f++)
            printf("frame%d_vertices=%d\nframe%d_vertex_groups=%d\n"
                   "frame%d_vs_texture_records=1\nframe%d_vs_texel_records=1\n"
                   "frame%d_vs_texel_fetches=%d\nframe%d_vs_texel_fetches_bad=0\n"
                   "frame%d_vs_texel_at_vertex_index=%d\nframe%d_vertex_groups_without_path=0\n"
                   "frame%d_texel_fetches_bad=0\n",
                   f, VERTS, f, groups, f, f, f, groups, f, f, VERTS, f, f);
        printf("frame0_vs_texels=%d\nframe0_vs_texel_lanes_1=%d\n", VERTS, VERTS);
        printf("frame1_vs_texels=%d\nframe1_vs_texel_lanes_4=%d\n", 4 * VERTS, VERTS);
        return 0;
    }
    struct known_app app;
    known_app_init(&app, "known_vtex", W, H, 0);
    GLint vtex_units = 0;
    glGetIntegerv(GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS, &vtex_units);
    if (vtex_units < 1) known_die(&app, "vertex texture units");

    static const char *const attribs[] = {"a_pos", "a_tc", NULL};
    GLuint p = known_program(&app, vs_src, fs_src, attribs);
    glUseProgram(p);
    glUniform1i(glGetUniformLocation(p, "u_height"), 0);
    glViewport(0, 0, W, H);

    /* triangle k in cell (k % 6, k / 6) of a 6x6 grid; vertex i -> texel (i % 16, i / 16) */
    static float v[VERTS][4];
    for (int i = 0; i < VERTS; i++) {
        const int k = i / 3, c = i % 3;
        const float x0 = -1.0f + (float)(k % 6) / 3.0f, y0 = -1.0f + (float)(k / 6) / 3.0f;
        v[i][0] = x0 + (c == 1 ? 0.3f : 0.0f);
        v[i][1] = y0 + (c == 2 ? 0.3f : 0.0f);
        v[i][2] = ((float)(i % TEX) + 0.5f) / TEX;
        v[i][3] = ((float)(i / TEX) + 0.5f) / TEX;
    }
    GLuint vbo;
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof(v), v, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 16, (const void *)0);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 16, (const void *)8);
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);

    static unsigned char img[TEX * TEX * 4];
    for (int y = 0; y < TEX; y++)
        for (int x = 0; x < TEX; x++) {
            unsigned char *t = img + 4 * (y * TEX + x);
            t[0] = (unsigned char)(x * 16 + y);
            t[1] = (unsigned char)(y * 13 + 40);
            t[2] = (unsigned char)((x ^ y) * 9);
            t[3] = 255;
        }
    GLuint tex;
    glGenTextures(1, &tex);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, TEX, TEX, 0, GL_RGBA, GL_UNSIGNED_BYTE, img);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);

    for (int f = 0; f < 2; f++) {
        const GLint filt = f == 0 ? GL_NEAREST : GL_LINEAR;
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filt);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filt);
        glClear(GL_COLOR_BUFFER_BIT);
        glDrawArrays(GL_TRIANGLES, 0, VERTS);
        eglSwapBuffers(app.dpy, app.surf);
    }

    known_app_fini(&app);
    return 0;
}
