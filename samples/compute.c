/* tbr-sample-compute: an OpenGL ES 3.1 compute shader writes a 64x64 texture every frame
 * (glDispatchCompute + imageStore), then a full-screen pass samples it.
 *
 * Not one of the checked-in sample traces (TBR_SAMPLES): tbr-sim does not model compute
 * work, so tbr-replay refuses traces that dispatch it (docs/samples.md "compute"); the
 * sample exists to show that refusal and what --allow-unsupported then gives
 * (test replay.compute). */
#include "common/sample.h"

#include <GLES3/gl31.h>
#include <stdio.h>

#define TEX_SIZE 64

static const char *const k_cs = "#version 310 es\n"
                                "layout(local_size_x = 8, local_size_y = 8) in;\n"
                                "layout(rgba8, binding = 0) writeonly uniform highp image2D u_img;\n"
                                "uniform float u_t;\n"
                                "void main() {\n"
                                "  vec2 p = vec2(gl_GlobalInvocationID.xy) / 64.0;\n"
                                "  float ring = fract(length(p - 0.5) * 4.0 - u_t);\n"
                                "  imageStore(u_img, ivec2(gl_GlobalInvocationID.xy), vec4(ring, p.x, p.y, 1.0));\n"
                                "}\n";
/* Full-screen triangle from gl_VertexID: no vertex attributes needed. */
static const char *const k_vs = "#version 310 es\n"
                                "out vec2 v_uv;\n"
                                "void main() {\n"
                                "  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));\n"
                                "  v_uv = p;\n"
                                "  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n"
                                "}\n";
static const char *const k_fs = "#version 310 es\n"
                                "precision mediump float;\n"
                                "uniform sampler2D u_tex;\n"
                                "in vec2 v_uv;\n"
                                "out vec4 o_color;\n"
                                "void main() { o_color = vec4(texture(u_tex, v_uv).rgb, 1.0); }\n";

static GLuint compute_program(void)
{
    GLuint sh = glCreateShader(GL_COMPUTE_SHADER), prog = glCreateProgram();
    glShaderSource(sh, 1, &k_cs, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (ok) {
        glAttachShader(prog, sh);
        glLinkProgram(prog);
        glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    }
    if (!ok) {
        char log[2048] = "";
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        fprintf(stderr, "tbr-sample-compute: compute shader: %s\n", log);
        return 0;
    }
    glDeleteShader(sh);
    return prog;
}

int main(int argc, char **argv)
{
    static const struct sample_desc desc = {
        "compute", "An ES 3.1 compute shader writes a texture that a full-screen pass samples.", 3, 0, 5,
    };
    struct sample s;
    int rc = sample_init(&s, &desc, argc, argv);
    if (rc || !s.dpy) return rc;

    GLuint cs_prog = compute_program();
    if (!cs_prog) {
        sample_fini(&s);
        return 1;
    }
    GLuint draw_prog = sample_program(k_vs, k_fs, NULL);
    GLint u_t = glGetUniformLocation(cs_prog, "u_t");
    glUseProgram(draw_prog);
    glUniform1i(glGetUniformLocation(draw_prog, "u_tex"), 0);

    GLuint tex, vao;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, TEX_SIZE, TEX_SIZE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);

    for (int f = 0; f < s.frames && !rc; f++) {
        glUseProgram(cs_prog);
        glUniform1f(u_t, 0.1f * (float)f);
        glBindImageTexture(0, tex, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
        glDispatchCompute(TEX_SIZE / 8, TEX_SIZE / 8, 1);
        glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);

        glViewport(0, 0, SAMPLE_WIDTH, SAMPLE_HEIGHT);
        glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        glUseProgram(draw_prog);
        glBindTexture(GL_TEXTURE_2D, tex);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        rc = sample_end_frame(&s, f);
    }
    glDeleteVertexArrays(1, &vao);
    glDeleteTextures(1, &tex);
    glDeleteProgram(cs_prog);
    glDeleteProgram(draw_prog);
    int frc = sample_fini(&s);
    return rc ? rc : frc;
}
