/* tbr-capture-test-caps: prints what an OpenGL ES context offers, one item per line, so
 * that two drivers can be compared with diff (tests/capture, docs/capture.md "Which
 * driver"), also under tbr-capture, which shows what the captured program sees: GL_VERSION, GL_SHADING_LANGUAGE_VERSION, every extension (sorted) and a set
 * of implementation limits.  GL_RENDERER is printed first, as a comment line, because it
 * is expected to differ.  EGL surfaceless pbuffer, like the samples. */
#include "common/sample.h"

#include <GLES3/gl32.h>
#include <GLES2/gl2ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct limit {
    const char *name;
    GLenum pname;
    int count; /* values returned */
    int is_float;
};

#define L(e, n, f)                                                                                                     \
    {                                                                                                                  \
#e, e, n, f                                                                                                    \
    }
static const struct limit limits[] = {
    L(GL_MAJOR_VERSION, 1, 0),
    L(GL_MINOR_VERSION, 1, 0),
    L(GL_MAX_TEXTURE_SIZE, 1, 0),
    L(GL_MAX_3D_TEXTURE_SIZE, 1, 0),
    L(GL_MAX_ARRAY_TEXTURE_LAYERS, 1, 0),
    L(GL_MAX_CUBE_MAP_TEXTURE_SIZE, 1, 0),
    L(GL_MAX_RENDERBUFFER_SIZE, 1, 0),
    L(GL_MAX_VIEWPORT_DIMS, 2, 0),
    L(GL_MAX_SAMPLES, 1, 0),
    L(GL_MAX_COLOR_ATTACHMENTS, 1, 0),
    L(GL_MAX_DRAW_BUFFERS, 1, 0),
    L(GL_MAX_VERTEX_ATTRIBS, 1, 0),
    L(GL_MAX_VERTEX_UNIFORM_VECTORS, 1, 0),
    L(GL_MAX_FRAGMENT_UNIFORM_VECTORS, 1, 0),
    L(GL_MAX_VARYING_VECTORS, 1, 0),
    L(GL_MAX_TEXTURE_IMAGE_UNITS, 1, 0),
    L(GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS, 1, 0),
    L(GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS, 1, 0),
    L(GL_MAX_UNIFORM_BLOCK_SIZE, 1, 0),
    L(GL_MAX_UNIFORM_BUFFER_BINDINGS, 1, 0),
    L(GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_ATTRIBS, 1, 0),
    L(GL_MAX_ELEMENT_INDEX, 1, 0),
    L(GL_MAX_TEXTURE_LOD_BIAS, 1, 1),
    L(GL_ALIASED_POINT_SIZE_RANGE, 2, 1),
    L(GL_ALIASED_LINE_WIDTH_RANGE, 2, 1),
    L(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, 1, 0),
    L(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, 1, 0),
    L(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, 1, 0),
    L(GL_MAX_IMAGE_UNITS, 1, 0),
    L(GL_MAX_ATOMIC_COUNTER_BUFFER_BINDINGS, 1, 0),
    L(GL_MAX_VERTEX_ATTRIB_BINDINGS, 1, 0),
    L(GL_MAX_SAMPLE_MASK_WORDS, 1, 0),
    L(GL_MAX_GEOMETRY_OUTPUT_VERTICES, 1, 0),
    L(GL_MAX_TESS_GEN_LEVEL, 1, 0),
    L(GL_MAX_TEXTURE_BUFFER_SIZE, 1, 0),
    L(GL_MAX_TEXTURE_MAX_ANISOTROPY_EXT, 1, 1),
    L(GL_NUM_COMPRESSED_TEXTURE_FORMATS, 1, 0),
    L(GL_NUM_PROGRAM_BINARY_FORMATS, 1, 0),
    L(GL_NUM_SHADER_BINARY_FORMATS, 1, 0),
};
#undef L

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void print_extensions(void)
{
    GLint n = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &n);
    const char **ext = calloc((size_t)n + 1, sizeof *ext);
    if (!ext) exit(1);
    for (GLint i = 0; i < n; i++) ext[i] = (const char *)glGetStringi(GL_EXTENSIONS, (GLuint)i);
    qsort(ext, (size_t)n, sizeof *ext, cmp_str);
    for (GLint i = 0; i < n; i++) printf("extension %s\n", ext[i]);
    free(ext);
}

/* A limit the context does not know (e.g. a 3.2 limit on 3.1) prints "n/a". */
static void print_limit(const struct limit *l)
{
    GLint iv[2] = {0, 0};
    GLfloat fv[2] = {0, 0};
    while (glGetError() != GL_NO_ERROR) {}
    if (l->is_float)
        glGetFloatv(l->pname, fv);
    else
        glGetIntegerv(l->pname, iv);
    if (glGetError() != GL_NO_ERROR) {
        printf("limit %s n/a\n", l->name);
        return;
    }
    printf("limit %s", l->name);
    for (int k = 0; k < l->count; k++) {
        if (l->is_float)
            printf(" %g", (double)fv[k]);
        else
            printf(" %d", iv[k]);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    static const struct sample_desc desc = {
        "capture-test-caps", "Prints the ES context's version, GLSL version, extensions and limits.", 3, 0, 1,
    };
    struct sample s;
    int rc = sample_init(&s, &desc, argc, argv);
    if (rc || !s.dpy) return rc;
    printf("# renderer %s\n", (const char *)glGetString(GL_RENDERER));
    /* "OpenGL ES 3.1 Mesa 22.3.6": the Mesa version suffix may carry a build tag. */
    printf("version %s\n", (const char *)glGetString(GL_VERSION));
    printf("glsl %s\n", (const char *)glGetString(GL_SHADING_LANGUAGE_VERSION));
    print_extensions();
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) print_limit(&limits[i]);
    GLint nfmt = 0;
    glGetIntegerv(GL_NUM_COMPRESSED_TEXTURE_FORMATS, &nfmt);
    GLint *fmt = calloc((size_t)nfmt + 1, sizeof *fmt);
    if (!fmt) return 1;
    glGetIntegerv(GL_COMPRESSED_TEXTURE_FORMATS, fmt);
    for (GLint i = 0; i < nfmt; i++) printf("compressed_format 0x%04x\n", (unsigned)fmt[i]);
    free(fmt);
    if (fflush(stdout) != 0) return 1;
    /* One frame, so that a capture of this program has a complete frame. */
    glClear(GL_COLOR_BUFFER_BIT);
    rc = sample_end_frame(&s, 0);
    if (rc) return rc;
    return sample_fini(&s);
}
