/* tbr-sample-casual2d: a casual 2D game frame (OpenGL ES 2.0, client-side arrays).
 *
 * A static textured background, a static UI (panels and buttons), a score bar
 * that grows every 4th frame and one small sprite that moves a few pixels per
 * frame.  Most screen tiles get exactly the same inputs frame after frame: the
 * case Rendering Elimination targets (RE paper, Fig. 2 and Sec. III).
 *
 * This is the one sample that uses client-side vertex and index arrays (no
 * buffer objects): apitrace records them as "fake" memcpy calls plus blobs. */
#include "common/sample.h"

#include <math.h>
#include <stdint.h>

static const char *const k_tex_vs = "attribute vec2 a_pos;\n"
                                    "attribute vec2 a_uv;\n"
                                    "uniform vec2 u_offset;\n"
                                    "varying vec2 v_uv;\n"
                                    "void main() {\n"
                                    "  vec2 p = (a_pos + u_offset) / vec2(160.0, 120.0) - 1.0;\n"
                                    "  v_uv = a_uv;\n"
                                    "  gl_Position = vec4(p, 0.0, 1.0);\n"
                                    "}\n";
static const char *const k_tex_fs = "precision mediump float;\n"
                                    "uniform sampler2D u_tex;\n"
                                    "varying vec2 v_uv;\n"
                                    "void main() { gl_FragColor = texture2D(u_tex, v_uv); }\n";
static const char *const k_col_vs = "attribute vec2 a_pos;\n"
                                    "attribute vec4 a_color;\n"
                                    "varying vec4 v_color;\n"
                                    "void main() {\n"
                                    "  v_color = a_color;\n"
                                    "  gl_Position = vec4(a_pos / vec2(160.0, 120.0) - 1.0, 0.0, 1.0);\n"
                                    "}\n";
static const char *const k_col_fs = "precision mediump float;\n"
                                    "varying vec4 v_color;\n"
                                    "void main() { gl_FragColor = v_color; }\n";

#define MAX_RECTS 16
/* Colored UI rectangles, batched in one indexed draw from client memory. */
struct ui_vertex {
    float x, y;
    uint8_t rgba[4];
};
static struct ui_vertex ui_verts[MAX_RECTS * 4];
static GLushort ui_indices[MAX_RECTS * 6];
static int ui_count;

static void ui_rect(float x0, float y0, float x1, float y1, uint8_t r, uint8_t g, uint8_t b)
{
    if (ui_count >= MAX_RECTS) return;
    struct ui_vertex *v = &ui_verts[ui_count * 4];
    const float xs[4] = {x0, x1, x1, x0}, ys[4] = {y0, y0, y1, y1};
    for (int i = 0; i < 4; i++) {
        v[i].x = xs[i];
        v[i].y = ys[i];
        v[i].rgba[0] = r;
        v[i].rgba[1] = g;
        v[i].rgba[2] = b;
        v[i].rgba[3] = 255;
    }
    GLushort base = (GLushort)(ui_count * 4);
    const GLushort q[6] = {0, 1, 2, 0, 2, 3};
    for (int i = 0; i < 6; i++) ui_indices[ui_count * 6 + i] = (GLushort)(base + q[i]);
    ui_count++;
}

static GLuint make_background(void)
{
    static uint8_t px[256 * 256 * 4];
    for (int y = 0; y < 256; y++)
        for (int x = 0; x < 256; x++) {
            uint8_t *p = &px[(y * 256 + x) * 4];
            /* Sky above rolling hills (texture row 0 is the top of the screen):
             * smooth, so bilinear magnification to 320x240 is well defined. */
            int hill = 150 + (int)(18.0f * sinf((float)x * 0.05f) + 9.0f * sinf((float)x * 0.13f + 1.0f));
            if (y < hill) {
                p[0] = (uint8_t)(90 + y / 3);
                p[1] = (uint8_t)(140 + y / 4);
                p[2] = (uint8_t)(255 - y / 4);
            } else {
                p[0] = (uint8_t)(40 + (y - hill) / 2);
                p[1] = (uint8_t)(150 - (y - hill) / 3);
                p[2] = (uint8_t)(40 + (x % 32));
            }
            p[3] = 255;
        }
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 256, 256, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    return t;
}

static GLuint make_sprite(void)
{
    static uint8_t px[32 * 32 * 4];
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 32; x++) {
            uint8_t *p = &px[(y * 32 + x) * 4];
            int dx = 2 * x - 31, dy = 2 * y - 31, d2 = dx * dx + dy * dy;
            int inside = d2 < 30 * 30;
            p[0] = (uint8_t)(inside ? 255 - d2 / 8 : 0);
            p[1] = (uint8_t)(inside ? 200 - d2 / 10 : 0);
            p[2] = (uint8_t)(inside ? 40 : 0);
            p[3] = (uint8_t)(inside ? 255 : 0);
        }
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 32, 32, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    return t;
}

int main(int argc, char **argv)
{
    static const struct sample_desc desc = {
        "casual2d", "Casual 2D game: static background and UI, one small moving sprite (ES2, client-side arrays).",
        2,          0,
        5,
    };
    struct sample s;
    int rc = sample_init(&s, &desc, argc, argv);
    if (rc || !s.dpy) return rc;

    static const char *const tex_attribs[] = {"a_pos", "a_uv", NULL};
    static const char *const col_attribs[] = {"a_pos", "a_color", NULL};
    GLuint tex_prog = sample_program(k_tex_vs, k_tex_fs, tex_attribs);
    GLuint col_prog = sample_program(k_col_vs, k_col_fs, col_attribs);
    GLint u_offset = glGetUniformLocation(tex_prog, "u_offset");
    glUseProgram(tex_prog);
    glUniform1i(glGetUniformLocation(tex_prog, "u_tex"), 0);
    GLuint bg_tex = make_background();
    GLuint sprite_tex = make_sprite();

    /* Client-side arrays: buffer bindings stay 0 for the whole program. */
    static const float bg_quad[] = {0, 0, 0, 1, 320, 0, 1, 1, 0, 240, 0, 0, 320, 240, 1, 0};
    static const float sprite_quad[] = {0, 0, 0, 1, 24, 0, 1, 1, 0, 24, 0, 0, 24, 24, 1, 0};

    glDisable(GL_DEPTH_TEST);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);

    for (int f = 0; f < s.frames && !rc; f++) {
        glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);

        /* Background. */
        glUseProgram(tex_prog);
        glDisable(GL_BLEND);
        glBindTexture(GL_TEXTURE_2D, bg_tex);
        glUniform2f(u_offset, 0.0f, 0.0f);
        glEnableVertexAttribArray(0);
        glEnableVertexAttribArray(1);
        glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), bg_quad);
        glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), bg_quad + 2);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);

        /* Static UI plus a score bar that grows every 4th frame. */
        ui_count = 0;
        ui_rect(0, 216, 320, 240, 30, 30, 60);                        /* top bar */
        ui_rect(6, 221, 106, 235, 10, 10, 20);                        /* score slot */
        ui_rect(8, 223, 8 + 4 * (1 + f / 4 % 24), 233, 250, 210, 40); /* score fill */
        ui_rect(0, 0, 320, 28, 40, 40, 70);                           /* bottom bar */
        for (int b = 0; b < 4; b++)                                   /* buttons */
            ui_rect(12 + b * 76, 4, 80 + b * 76, 24, (uint8_t)(80 + b * 40), 90, (uint8_t)(200 - b * 30));
        ui_rect(290, 40, 314, 200, 60, 60, 90); /* side panel */
        glUseProgram(col_prog);
        glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(struct ui_vertex), &ui_verts[0].x);
        glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(struct ui_vertex), ui_verts[0].rgba);
        glDrawElements(GL_TRIANGLES, ui_count * 6, GL_UNSIGNED_SHORT, ui_indices);

        /* The sprite: moves 5 px right and bobs vertically, so only the few tiles
         * it touches (now and in the previous frame) change. */
        glUseProgram(tex_prog);
        glEnable(GL_BLEND);
        glBindTexture(GL_TEXTURE_2D, sprite_tex);
        glUniform2f(u_offset, (float)(40 + (f * 5) % 220), (float)(90 + (f % 6) * 3));
        glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), sprite_quad);
        glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), sprite_quad + 2);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);

        rc = sample_end_frame(&s, f);
    }

    glDeleteTextures(1, &bg_tex);
    glDeleteTextures(1, &sprite_tex);
    glDeleteProgram(tex_prog);
    glDeleteProgram(col_prog);
    sample_fini(&s);
    return rc;
}
