/*
 * tbr-functional-known-texture: a tiny GLES2 program whose texel footprints are
 * known analytically, captured with `apitrace trace --api egl` by
 * functional.texels (tests/functional/texels.sh).
 *
 * 320x240 pbuffer (surfaceless EGL). Every frame draws one full-screen
 * rectangle (2 triangles, non-indexed, 6 vertices) whose texture coordinates
 * map pixel centres to texel centres: s = (x + 0.5) / 320, t = (row + 0.5) / 240
 * with row counted from the TOP, so fragment (x, row) samples texel (x, row).
 *   0: 320x240 texture, NEAREST, CLAMP_TO_EDGE: 1 texel per fragment, texel = pixel,
 *      76800 fragments -> 76800 texels, 76800 distinct.
 *   1: same texture, LINEAR: 4 texels per fragment (2x2 footprint whose first texel is
 *      the pixel's: u - 0.5 = x exactly) -> 307200.
 *   2: 512x512 texture with all 10 mip levels uploaded (no glGenerateMipmap), REPEAT,
 *      LINEAR_MIPMAP_LINEAR, minified on the same rectangle: lambda =
 *      log2(max(512/320, 512/240)) = 1.09 -> levels 1 and 2, 8 texels per fragment
 *      -> 614400; every texel of levels 1 and 2 is read: 65536 + 16384 distinct.
 *   3: indexed draw: glDrawElements(GL_TRIANGLES, 6 indices over 4 vertices) with the
 *      frame-0 texture: 4 vertices fetched and shaded (unique indices), 76800 texels.
 * Prints the expected counts on stdout as key=value lines when run with --expect.
 */
#include "known_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 240

static const char *vs_src = "attribute vec2 a_pos;\n"
                            "attribute vec2 a_tc;\n"
                            "varying vec2 v_tc;\n"
                            "void main() { v_tc = a_tc; gl_Position = vec4(a_pos, 0.0, 1.0); }\n";
static const char *fs_src = "precision highp float;\n"
                            "uniform sampler2D u_tex;\n"
                            "varying vec2 v_tc;\n"
                            "void main() { gl_FragColor = texture2D(u_tex, v_tc); }\n";

/* full-screen rectangle: x, y (NDC), s, t (t = 0 at the top row) */
static const float quad[] = {
    -1.0f, 1.0f, 0.0f, 0.0f, 1.0f, 1.0f,  1.0f, 0.0f, 1.0f,  -1.0f, 1.0f, 1.0f,
    -1.0f, 1.0f, 0.0f, 0.0f, 1.0f, -1.0f, 1.0f, 1.0f, -1.0f, -1.0f, 0.0f, 1.0f,
};
static const float corners[] = {
    -1.0f, 1.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f, 0.0f, 1.0f, -1.0f, 1.0f, 1.0f, -1.0f, -1.0f, 0.0f, 1.0f,
};
static const GLushort corner_idx[] = {0, 1, 2, 0, 2, 3};

static void pattern(unsigned char *p, int w, int h, int seed)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            unsigned char *t = p + 4 * (y * w + x);
            t[0] = (unsigned char)(x * 7 + seed);
            t[1] = (unsigned char)(y * 5 + seed * 3);
            t[2] = (unsigned char)((x ^ y) + seed * 11);
            t[3] = 255;
        }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--expect") == 0) {
        printf("frames=4\n");
        for (int f = 0; f < 4; f++) printf("frame%d_fragments=76800\n", f);
        printf("frame0_texels_covered=76800\nframe0_texel_lanes_1=76800\n");
        printf("frame0_texel_lane_has_pixel=76800\nframe0_texels_distinct=76800\n");
        printf("frame1_texels_covered=307200\nframe1_texel_lanes_4=76800\n");
        printf("frame1_texel_lane_has_pixel=76800\n");
        printf("frame2_texels_covered=614400\nframe2_texel_lanes_8=76800\n");
        /* levels 1 (256x256) and 2 (128x128) are read entirely */
        printf("frame2_texels_distinct=81920\n");
        printf("frame3_texels_covered=76800\nframe3_texel_lanes_1=76800\n");
        printf("frame3_texel_lane_has_pixel=76800\n");
        for (int f = 0; f < 3; f++) printf("frame%d_vertices=6\nframe%d_vertex_groups=2\n", f, f);
        printf("frame3_vertices=4\nframe3_vertex_groups=1\n");
        for (int f = 0; f < 4; f++)
            printf("frame%d_vertex_groups_without_path=0\nframe%d_vertex_draw_mismatch=0\n"
                   "frame%d_texel_fetches_bad=0\n",
                   f, f, f);
        return 0;
    }
    struct known_app app;
    known_app_init(&app, "known_texture", W, H, 0);

    static const char *const attribs[] = {"a_pos", "a_tc", NULL};
    GLuint p = known_program(&app, vs_src, fs_src, attribs);
    glUseProgram(p);
    glUniform1i(glGetUniformLocation(p, "u_tex"), 0);
    glViewport(0, 0, W, H);

    GLuint vbo[3];
    glGenBuffers(3, vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo[0]);
    glBufferData(GL_ARRAY_BUFFER, sizeof(quad), quad, GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, vbo[1]);
    glBufferData(GL_ARRAY_BUFFER, sizeof(corners), corners, GL_STATIC_DRAW);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, vbo[2]);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(corner_idx), corner_idx, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);

    GLuint tex[2];
    glGenTextures(2, tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    unsigned char *img = malloc(512 * 512 * 4);
    if (!img) known_die(&app, "malloc");
    glBindTexture(GL_TEXTURE_2D, tex[0]);
    pattern(img, W, H, 0);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, W, H, 0, GL_RGBA, GL_UNSIGNED_BYTE, img);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D, tex[1]);
    for (int l = 0, s = 512; s >= 1; l++, s /= 2) {
        pattern(img, s, s, l * 40);
        glTexImage2D(GL_TEXTURE_2D, l, GL_RGBA, s, s, 0, GL_RGBA, GL_UNSIGNED_BYTE, img);
    }
    free(img);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);

    for (int f = 0; f < 4; f++) {
        glClear(GL_COLOR_BUFFER_BIT);
        glBindTexture(GL_TEXTURE_2D, tex[f == 2 ? 1 : 0]);
        if (f != 2) {
            GLint filt = f == 1 ? GL_LINEAR : GL_NEAREST;
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filt);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filt);
        }
        glBindBuffer(GL_ARRAY_BUFFER, vbo[f == 3 ? 1 : 0]);
        glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 16, (const void *)0);
        glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 16, (const void *)8);
        if (f == 3)
            glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, (const void *)0);
        else
            glDrawArrays(GL_TRIANGLES, 0, 6);
        eglSwapBuffers(app.dpy, app.surf);
    }

    known_app_fini(&app);
    return 0;
}
