/* Test workload for tbr-capture (tests/capture): tbr-capture-test-app.
 *
 * Renders a few frames with an OpenGL ES 3.0 context and
 *  - uploads an ETC2 texture with glCompressedTexImage2D: apitrace's wrapper for it
 *    queries GL_UNPACK_COMPRESSED_BLOCK_* (desktop-only enums), which raises
 *    GL_INVALID_ENUM on an ES context while tracing only; the program then reads
 *    and ignores that error with glGetError;
 *  - with --app-error, also makes a genuine error of its own
 *    (glEnable(GL_TEXTURE_2D), invalid on ES) that a replay reproduces;
 *  - with --exit-before-swap, creates its context, draws and exits with status 3
 *    before its first eglSwapBuffers.
 * It never fails because of GL errors: it exists to produce them. */
#include "common/sample.h"

#include <GLES3/gl3.h>
#include <string.h>

int main(int argc, char **argv)
{
    static const struct sample_desc desc = {
        "capture-test-app", "Test workload for tbr-capture: GL errors, early exit (ES3).", 3, 0, 2,
    };
    int app_error = 0, exit_before_swap = 0;
    /* Strip our own flag before the shared parser sees the arguments. */
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--app-error"))
            app_error = 1;
        else if (!strcmp(argv[i], "--exit-before-swap"))
            exit_before_swap = 1;
        else
            argv[n++] = argv[i];
    }
    argc = n;
    struct sample s;
    int rc = sample_init(&s, &desc, argc, argv);
    if (rc || !s.dpy) return rc;

    /* One 4x4 ETC2 RGB8 block (8 bytes): uniform mid grey. */
    static const unsigned char block[8] = {0x88, 0x88, 0x88, 0x00, 0x00, 0x00, 0xff, 0xff};
    GLuint tex;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glCompressedTexImage2D(GL_TEXTURE_2D, 0, GL_COMPRESSED_RGB8_ETC2, 4, 4, 0, sizeof block, block);
    (void)glGetError(); /* GL_INVALID_ENUM while traced (from the tracer), GL_NO_ERROR otherwise */

    for (int f = 0; f < s.frames; f++) {
        glClearColor(0.1f * (float)f, 0.4f, 0.6f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        if (app_error && f == 0) {
            glEnable(GL_TEXTURE_2D); /* GL_INVALID_ENUM on ES: the program's own bug */
            (void)glGetError();
        }
        if (exit_before_swap) {
            glFinish();
            return 3;
        }
        if (!eglSwapBuffers(s.dpy, s.surf)) return 1;
    }
    glDeleteTextures(1, &tex);
    sample_fini(&s);
    return 0;
}
