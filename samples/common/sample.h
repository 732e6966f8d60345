/* Shared helpers for the tbr-sample-* workloads (docs/samples.md).
 *
 * Every sample is a small deterministic GLES program: EGL surfaceless platform,
 * one 320x240 pbuffer, animation driven by the frame number only, one
 * eglSwapBuffers per frame.  The samples are workloads for tbr-capture, not
 * project tools: they must stay simple enough to run under apitrace's tracer and
 * to replay quickly on softpipe. */
#ifndef TBR_SAMPLE_H
#define TBR_SAMPLE_H

#include <stddef.h>

#include <EGL/egl.h>
#include <GLES2/gl2.h>

#define SAMPLE_WIDTH  320
#define SAMPLE_HEIGHT 240

struct sample_desc {
    const char *name;    /* "casual2d": the executable is tbr-sample-<name> */
    const char *summary; /* one line for --help */
    int es_version;      /* 2 or 3: EGL_CONTEXT_CLIENT_VERSION */
    int depth_bits;      /* 0 or 24 */
    int default_frames;
};

struct sample {
    const struct sample_desc *desc;
    int frames;  /* --frames N */
    int verbose; /* --verbose: GL strings and per-frame progress on stderr */
    EGLDisplay dpy;
    EGLSurface surf;
    EGLContext ctx;
};

/* Parses the command line and creates display, pbuffer and context (made current).
 * Returns 0 to go on; otherwise the process exit code (0 after --help). */
int sample_init(struct sample *s, const struct sample_desc *desc, int argc, char **argv);
/* Ends frame `frame`: checks for GL errors and swaps.  Returns 0 or an exit code. */
int sample_end_frame(struct sample *s, int frame);
/* Releases everything; returns the exit code. */
int sample_fini(struct sample *s);

/* Compiles and links a program; aborts with a message on failure.  attribs is a
 * NULL-terminated list of attribute names bound to locations 0, 1, ... (may be NULL). */
GLuint sample_program(const char *vs_src, const char *fs_src, const char *const *attribs);

/* Deterministic integer hash (no libc rand: its sequence is not specified). */
unsigned sample_hash(unsigned x);

/* Column-major 4x4 matrices for the 3D samples. */
void mat4_identity(float m[16]);
void mat4_mul(float out[16], const float a[16], const float b[16]);
void mat4_perspective(float m[16], float fovy_rad, float aspect, float znear, float zfar);
void mat4_look_at(float m[16], const float eye[3], const float center[3], const float up[3]);
void mat4_translate_scale(float m[16], float tx, float ty, float tz, float sx, float sy, float sz);
void mat4_rotate_y(float m[16], float rad);

#endif
