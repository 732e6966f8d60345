/* tbr-sample-mipmap: mip-mapped texturing on several texture units (OpenGL ES 2.0, VBO/IBO).
 *
 * A floor plane receding to the horizon samples two textures: unit 0 a 256x256
 * pattern with generated mipmaps and trilinear filtering (LINEAR_MIPMAP_LINEAR),
 * unit 1 a 128x128 texture whose mip levels are uploaded one by one with
 * distinct tints and sampled bilinearly from the nearest level
 * (LINEAR_MIPMAP_NEAREST), which makes the chosen LOD visible.  A wall quad
 * samples unit 2, a 64x64 "video" texture partially rewritten with
 * glTexSubImage2D every second frame (mipmaps regenerated after each update),
 * plus unit 0 again.  The camera glides forward with the frame number, so the
 * texture footprint of every pixel changes (texture-cache behaviour, DTM-NUCA). */
#include "common/sample.h"

#include <math.h>
#include <stdint.h>

static const char *const k_vs = "attribute vec3 a_pos;\n"
                                "attribute vec2 a_uv;\n"
                                "uniform mat4 u_mvp;\n"
                                "varying vec2 v_uv;\n"
                                "void main() {\n"
                                "  v_uv = a_uv;\n"
                                "  gl_Position = u_mvp * vec4(a_pos, 1.0);\n"
                                "}\n";
static const char *const k_floor_fs = "precision mediump float;\n"
                                      "uniform sampler2D u_pattern;\n" /* unit 0, trilinear */
                                      "uniform sampler2D u_levels;\n"  /* unit 1, bilinear from the nearest mip level */
                                      "varying vec2 v_uv;\n"
                                      "void main() {\n"
                                      "  vec4 a = texture2D(u_pattern, v_uv * 6.0);\n"
                                      "  vec4 b = texture2D(u_levels, v_uv * 3.0);\n"
                                      "  gl_FragColor = vec4(a.rgb * (0.45 + 0.55 * b.rgb), 1.0);\n"
                                      "}\n";
static const char *const k_wall_fs = "precision mediump float;\n"
                                     "uniform sampler2D u_pattern;\n" /* unit 0 */
                                     "uniform sampler2D u_video;\n"   /* unit 2, updated with glTexSubImage2D */
                                     "varying vec2 v_uv;\n"
                                     "void main() {\n"
                                     "  vec4 v = texture2D(u_video, v_uv);\n"
                                     "  vec4 p = texture2D(u_pattern, v_uv * 2.0);\n"
                                     "  gl_FragColor = vec4(mix(v.rgb, p.rgb, 0.25), 1.0);\n"
                                     "}\n";

static void set_filters(GLenum min, GLenum mag, GLenum wrap)
{
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, (GLint)min);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, (GLint)mag);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, (GLint)wrap);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, (GLint)wrap);
}

static GLuint make_pattern(void)
{
    static uint8_t px[256 * 256 * 4];
    for (int y = 0; y < 256; y++)
        for (int x = 0; x < 256; x++) {
            uint8_t *p = &px[(y * 256 + x) * 4];
            int check = ((x >> 5) ^ (y >> 5)) & 1;
            int line = (x & 31) < 2 || (y & 31) < 2; /* thin lines alias without mipmaps */
            p[0] = (uint8_t)(line ? 20 : check ? 220 : 60 + x / 4);
            p[1] = (uint8_t)(line ? 20 : check ? 200 : 80 + y / 4);
            p[2] = (uint8_t)(line ? 20 : check ? 150 : 120);
            p[3] = 255;
        }
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 256, 256, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
    glGenerateMipmap(GL_TEXTURE_2D);
    set_filters(GL_LINEAR_MIPMAP_LINEAR, GL_LINEAR, GL_REPEAT);
    return t;
}

static GLuint make_levels(void)
{
    /* One tint per level (128 down to 1): the LOD softpipe picks is visible on screen. */
    static const uint8_t tint[8][3] = {
        {255, 255, 255}, {255, 120, 120}, {120, 255, 120}, {120, 120, 255},
        {255, 255, 100}, {255, 100, 255}, {100, 255, 255}, {160, 160, 160},
    };
    static uint8_t px[128 * 128 * 4];
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    for (int level = 0, size = 128; size >= 1; level++, size /= 2) {
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++) {
                uint8_t *p = &px[(y * size + x) * 4];
                int dots = size >= 8 && ((x % 8) < 4) != ((y % 8) < 4);
                for (int c = 0; c < 3; c++) p[c] = (uint8_t)(dots ? tint[level][c] * 3 / 4 : tint[level][c]);
                p[3] = 255;
            }
        glTexImage2D(GL_TEXTURE_2D, level, GL_RGBA, size, size, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
    }
    set_filters(GL_LINEAR_MIPMAP_NEAREST, GL_LINEAR, GL_REPEAT);
    return t;
}

static void video_frame(uint8_t *px, int w, int h, int phase)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = &px[(y * w + x) * 4];
            int ring = ((x - w / 2) * (x - w / 2) + (y - h / 2) * (y - h / 2) + phase * 40) / 24;
            p[0] = (uint8_t)(ring * 9);
            p[1] = (uint8_t)(128 + (ring & 1) * 100);
            p[2] = (uint8_t)(255 - ring * 7);
            p[3] = 255;
        }
}

int main(int argc, char **argv)
{
    static const struct sample_desc desc = {
        "mipmap", "Mip-mapped textures: trilinear and bilinear filtering on 3 units, glTexSubImage2D updates (ES2).",
        2,        24,
        5,
    };
    struct sample s;
    int rc = sample_init(&s, &desc, argc, argv);
    if (rc || !s.dpy) return rc;

    static const char *const attribs[] = {"a_pos", "a_uv", NULL};
    GLuint floor_prog = sample_program(k_vs, k_floor_fs, attribs);
    GLuint wall_prog = sample_program(k_vs, k_wall_fs, attribs);
    glUseProgram(floor_prog);
    glUniform1i(glGetUniformLocation(floor_prog, "u_pattern"), 0);
    glUniform1i(glGetUniformLocation(floor_prog, "u_levels"), 1);
    glUseProgram(wall_prog);
    glUniform1i(glGetUniformLocation(wall_prog, "u_pattern"), 0);
    glUniform1i(glGetUniformLocation(wall_prog, "u_video"), 2);
    GLint floor_mvp = glGetUniformLocation(floor_prog, "u_mvp");
    GLint wall_mvp = glGetUniformLocation(wall_prog, "u_mvp");

    glActiveTexture(GL_TEXTURE0);
    GLuint pattern = make_pattern();
    glActiveTexture(GL_TEXTURE1);
    GLuint levels = make_levels();
    glActiveTexture(GL_TEXTURE2);
    static uint8_t video[64 * 64 * 4];
    video_frame(video, 64, 64, 0);
    GLuint video_tex;
    glGenTextures(1, &video_tex);
    glBindTexture(GL_TEXTURE_2D, video_tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 64, 64, 0, GL_RGBA, GL_UNSIGNED_BYTE, video);
    glGenerateMipmap(GL_TEXTURE_2D);
    set_filters(GL_LINEAR_MIPMAP_LINEAR, GL_LINEAR, GL_CLAMP_TO_EDGE);

    /* Floor: a 40 x 40 plane at y = 0; wall: an 8 x 5 quad standing at z = -6. */
    static const float verts[] = {
        -20, 0,    20, 0, 0, 20, 0,    20, 1, 0, 20, 0,    -20, 1, 1, -20, 0,    -20, 0, 1,
        -2,  0.5f, -6, 0, 0, 6,  0.5f, -6, 1, 0, 6,  5.5f, -6,  1, 1, -2,  5.5f, -6,  0, 1,
    };
    static const GLushort indices[] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7};
    GLuint bufs[2];
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
        if (f > 0 && f % 2 == 0) {
            /* Rewrite the centre 32x32 of the video texture, then rebuild its mips. */
            static uint8_t sub[32 * 32 * 4];
            video_frame(sub, 32, 32, f);
            glActiveTexture(GL_TEXTURE2);
            glTexSubImage2D(GL_TEXTURE_2D, 0, 16, 16, 32, 32, GL_RGBA, GL_UNSIGNED_BYTE, sub);
            glGenerateMipmap(GL_TEXTURE_2D);
        }
        float eye[3] = {0.5f * sinf(0.3f * (float)f), 1.6f, 10.0f - 0.6f * (float)f};
        const float center[3] = {eye[0] * 0.5f, 1.2f, eye[2] - 8.0f}, up[3] = {0, 1, 0};
        float proj[16], view[16], mvp[16];
        mat4_perspective(proj, 1.0f, (float)SAMPLE_WIDTH / SAMPLE_HEIGHT, 0.3f, 60.0f);
        mat4_look_at(view, eye, center, up);
        mat4_mul(mvp, proj, view);

        glClearColor(0.7f, 0.8f, 0.95f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        glUseProgram(wall_prog);
        glUniformMatrix4fv(wall_mvp, 1, GL_FALSE, mvp);
        glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, (const void *)(6 * sizeof(GLushort)));
        glUseProgram(floor_prog);
        glUniformMatrix4fv(floor_mvp, 1, GL_FALSE, mvp);
        glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, (const void *)0);

        rc = sample_end_frame(&s, f);
    }

    glDeleteTextures(1, &pattern);
    glDeleteTextures(1, &levels);
    glDeleteTextures(1, &video_tex);
    glDeleteBuffers(2, bufs);
    glDeleteProgram(floor_prog);
    glDeleteProgram(wall_prog);
    sample_fini(&s);
    return rc;
}
