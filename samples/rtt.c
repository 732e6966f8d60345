/* tbr-sample-rtt: render to texture, then a full-screen post-process pass (OpenGL ES 3.0).
 *
 * Pass 1 renders a spinning, depth-tested pyramid pair into a 160x120 FBO (RGBA8
 * colour texture + 16-bit depth renderbuffer); the depth attachment is then
 * invalidated (glInvalidateFramebuffer), the hint a tiler uses to skip writing
 * depth back to memory.  Pass 2 draws one full-screen triangle into the 320x240
 * default framebuffer that samples the FBO texture several times per pixel
 * (chromatic offset, edge detection, vignette).  Render-target switches split a
 * frame into two render passes (thesis ch. 4: tiling per render target). */
#include "common/sample.h"

#include <GLES3/gl3.h>
#include <math.h>
#include <stdio.h>

#define RT_W 160
#define RT_H 120

static const char *const k_scene_vs = "#version 300 es\n"
                                      "layout(location = 0) in vec3 a_pos;\n"
                                      "layout(location = 1) in vec3 a_color;\n"
                                      "uniform mat4 u_mvp;\n"
                                      "out vec3 v_color;\n"
                                      "void main() {\n"
                                      "  v_color = a_color;\n"
                                      "  gl_Position = u_mvp * vec4(a_pos, 1.0);\n"
                                      "}\n";
static const char *const k_scene_fs = "#version 300 es\n"
                                      "precision mediump float;\n"
                                      "in vec3 v_color;\n"
                                      "out vec4 o_color;\n"
                                      "void main() { o_color = vec4(v_color, 1.0); }\n";
/* Full-screen triangle from gl_VertexID: no vertex attributes needed. */
static const char *const k_post_vs = "#version 300 es\n"
                                     "out vec2 v_uv;\n"
                                     "void main() {\n"
                                     "  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));\n"
                                     "  v_uv = p;\n"
                                     "  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n"
                                     "}\n";
static const char *const k_post_fs =
    "#version 300 es\n"
    "precision mediump float;\n"
    "uniform sampler2D u_scene;\n"
    "uniform float u_shift;\n"
    "in vec2 v_uv;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "  vec2 texel = vec2(1.0 / 160.0, 1.0 / 120.0);\n"
    "  vec2 d = (v_uv - 0.5) * u_shift;\n"
    "  vec3 c;\n"
    "  c.r = texture(u_scene, v_uv + d).r;\n"
    "  c.g = texture(u_scene, v_uv).g;\n"
    "  c.b = texture(u_scene, v_uv - d).b;\n"
    "  float l = dot(texture(u_scene, v_uv + vec2(texel.x, 0.0)).rgb, vec3(0.3, 0.6, 0.1));\n"
    "  float r = dot(texture(u_scene, v_uv - vec2(texel.x, 0.0)).rgb, vec3(0.3, 0.6, 0.1));\n"
    "  float u = dot(texture(u_scene, v_uv + vec2(0.0, texel.y)).rgb, vec3(0.3, 0.6, 0.1));\n"
    "  float b = dot(texture(u_scene, v_uv - vec2(0.0, texel.y)).rgb, vec3(0.3, 0.6, 0.1));\n"
    "  float edge = clamp(abs(l - r) + abs(u - b), 0.0, 1.0);\n"
    "  vec2 q = v_uv - 0.5;\n"
    "  float vignette = 1.0 - 1.6 * dot(q, q);\n"
    "  o_color = vec4((c + vec3(edge) * 0.8) * vignette, 1.0);\n"
    "}\n";

int main(int argc, char **argv)
{
    static const struct sample_desc desc = {
        "rtt", "Render to texture (160x120 FBO) then a full-screen post-process pass (ES3).", 3, 0, 5,
    };
    struct sample s;
    int rc = sample_init(&s, &desc, argc, argv);
    if (rc || !s.dpy) return rc;

    GLuint scene_prog = sample_program(k_scene_vs, k_scene_fs, NULL);
    GLuint post_prog = sample_program(k_post_vs, k_post_fs, NULL);
    GLint u_mvp = glGetUniformLocation(scene_prog, "u_mvp");
    GLint u_shift = glGetUniformLocation(post_prog, "u_shift");
    glUseProgram(post_prog);
    glUniform1i(glGetUniformLocation(post_prog, "u_scene"), 0);

    /* Offscreen target. */
    GLuint color_tex, depth_rb, fbo;
    glGenTextures(1, &color_tex);
    glBindTexture(GL_TEXTURE_2D, color_tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, RT_W, RT_H, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glGenRenderbuffers(1, &depth_rb);
    glBindRenderbuffer(GL_RENDERBUFFER, depth_rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT16, RT_W, RT_H);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color_tex, 0);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_rb);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        fprintf(stderr, "tbr-sample-rtt: framebuffer incomplete\n");
        sample_fini(&s);
        return 1;
    }

    /* Two square pyramids (apex up and apex down), 5 vertices each: position, colour. */
    static const float verts[] = {
        -1,    0,    -1,    1,     0.2f, 0.2f, 1,    0,    -1,    0.2f, 1,     0.2f, 1,    0,    1,
        0.2f,  0.2f, 1,     -1,    0,    1,    1,    1,    0.2f,  0,    1.6f,  0,    1,    1,    1,
        -0.7f, 0,    -0.7f, 0.9f,  0.5f, 0.1f, 0.7f, 0,    -0.7f, 0.1f, 0.9f,  0.9f, 0.7f, 0,    0.7f,
        0.6f,  0.1f, 0.9f,  -0.7f, 0,    0.7f, 0.1f, 0.5f, 0.2f,  0,    -1.2f, 0,    0.2f, 0.2f, 0.2f,
    };
    static const GLushort indices[] = {
        0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4, 0, 2, 1, 0, 3, 2, 5, 9, 6, 6, 9, 7, 7, 9, 8, 8, 9, 5,
    };
    GLuint vaos[2], bufs[2];
    glGenVertexArrays(2, vaos);
    glBindVertexArray(vaos[0]);
    glGenBuffers(2, bufs);
    glBindBuffer(GL_ARRAY_BUFFER, bufs[0]);
    glBufferData(GL_ARRAY_BUFFER, sizeof verts, verts, GL_STATIC_DRAW);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, bufs[1]);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof indices, indices, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (const void *)0);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (const void *)(3 * sizeof(float)));
    glBindVertexArray(vaos[1]); /* empty VAO for the attribute-less post pass */

    for (int f = 0; f < s.frames && !rc; f++) {
        /* Pass 1: scene into the FBO. */
        glBindFramebuffer(GL_FRAMEBUFFER, fbo);
        glViewport(0, 0, RT_W, RT_H);
        glEnable(GL_DEPTH_TEST);
        glClearColor(0.1f, 0.12f, 0.2f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        glUseProgram(scene_prog);
        glBindVertexArray(vaos[0]);
        float proj[16], view[16], vp[16], model[16], mvp[16];
        const float eye[3] = {0.0f, 1.5f, 4.5f}, center[3] = {0.0f, 0.3f, 0.0f}, up[3] = {0, 1, 0};
        mat4_perspective(proj, 0.9f, (float)RT_W / RT_H, 0.5f, 20.0f);
        mat4_look_at(view, eye, center, up);
        mat4_mul(vp, proj, view);
        for (int obj = 0; obj < 2; obj++) {
            float rot[16], tr[16];
            mat4_rotate_y(rot, (obj ? -0.21f : 0.13f) * (float)f + (float)obj);
            mat4_translate_scale(tr, obj ? 0.9f : -0.8f, obj ? 0.8f : 0.0f, obj ? 0.4f : 0.0f, 1, 1, 1);
            mat4_mul(model, tr, rot);
            mat4_mul(mvp, vp, model);
            glUniformMatrix4fv(u_mvp, 1, GL_FALSE, mvp);
            if (obj == 0)
                glDrawElements(GL_TRIANGLES, 18, GL_UNSIGNED_SHORT, (const void *)0);
            else
                glDrawElements(GL_TRIANGLES, 12, GL_UNSIGNED_SHORT, (const void *)(18 * sizeof(GLushort)));
        }
        /* The depth buffer is not needed after this pass. */
        const GLenum discard[] = {GL_DEPTH_ATTACHMENT};
        glInvalidateFramebuffer(GL_FRAMEBUFFER, 1, discard);

        /* Pass 2: post-process into the default framebuffer. */
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glViewport(0, 0, SAMPLE_WIDTH, SAMPLE_HEIGHT);
        glDisable(GL_DEPTH_TEST);
        /* Cleared although fully overwritten: on a tiler a clear avoids loading the
         * old tile contents from memory. */
        glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        glUseProgram(post_prog);
        glUniform1f(u_shift, 0.01f + 0.004f * (float)(f % 4));
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, color_tex);
        glBindVertexArray(vaos[1]);
        glDrawArrays(GL_TRIANGLES, 0, 3);

        rc = sample_end_frame(&s, f);
    }

    glDeleteVertexArrays(2, vaos);
    glDeleteBuffers(2, bufs);
    glDeleteFramebuffers(1, &fbo);
    glDeleteRenderbuffers(1, &depth_rb);
    glDeleteTextures(1, &color_tex);
    glDeleteProgram(scene_prog);
    glDeleteProgram(post_prog);
    sample_fini(&s);
    return rc;
}
