/* tbr-capture-test-glsl: a program that picks its shading-language version from what
 * the context offers, as real programs do (issue 24, 1b: a video player chose
 * `#version 320 es` because its capture ran on llvmpipe's ES 3.2, and the trace then
 * failed to replay on softpipe's ES 3.1).  It reads GL_MAJOR/MINOR_VERSION and compiles
 * its shaders with `#version 320 es` on ES 3.2, `310 es` on ES 3.1, else `300 es`;
 * `--glsl NNN` forces one.  Draws a triangle whose color changes per frame; prints the
 * version it chose on stderr.  EGL surfaceless pbuffer, like the samples. */
#include "common/sample.h"

#include <GLES3/gl3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char vs_body[] = "in vec2 pos;\n"
                              "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
static const char fs_body[] = "precision mediump float;\n"
                              "uniform vec4 color;\n"
                              "out vec4 frag;\n"
                              "void main() { frag = color; }\n";

static int context_glsl_version(void)
{
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    if (major > 3 || (major == 3 && minor >= 2)) return 320;
    if (major == 3 && minor == 1) return 310;
    return 300;
}

int main(int argc, char **argv)
{
    static const struct sample_desc desc = {
        "capture-test-glsl",
        "Picks #version 320/310/300 es from the context's ES version; --glsl NNN forces one.",
        3,
        0,
        3,
    };
    int forced = 0, n = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--glsl") && i + 1 < argc)
            forced = atoi(argv[++i]);
        else
            argv[n++] = argv[i];
    }
    struct sample s;
    int rc = sample_init(&s, &desc, n, argv);
    if (rc || !s.dpy) return rc;
    int version = forced ? forced : context_glsl_version();
    fprintf(stderr, "tbr-capture-test-glsl: %s: using #version %d es\n", (const char *)glGetString(GL_VERSION),
            version);
    char vs[512], fs[512];
    snprintf(vs, sizeof vs, "#version %d es\n%s", version, vs_body);
    snprintf(fs, sizeof fs, "#version %d es\n%s", version, fs_body);
    static const char *const attribs[] = {"pos", NULL};
    GLuint prog = sample_program(vs, fs, attribs);
    static const float tri[] = {-0.8f, -0.8f, 0.8f, -0.8f, 0.0f, 0.8f};
    GLuint vbo;
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof tri, tri, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
    glEnableVertexAttribArray(0);
    glUseProgram(prog);
    GLint color = glGetUniformLocation(prog, "color");
    for (int f = 0; f < s.frames; f++) {
        glClearColor(0.1f, 0.1f, 0.2f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        glUniform4f(color, 0.25f * (float)(f % 4), 0.6f, 0.3f, 1.0f);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        rc = sample_end_frame(&s, f);
        if (rc) return rc;
    }
    glDeleteBuffers(1, &vbo);
    glDeleteProgram(prog);
    return sample_fini(&s);
}
