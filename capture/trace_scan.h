/* What tbr-capture learns about a trace, through Debian's apitrace tools
 * (`apitrace dump`, `apitrace info`, `eglretrace`): frames, calls, draws, GL
 * strings, EGL platform, surface size and GL errors. */
#ifndef TBR_CAPTURE_TRACE_SCAN_H
#define TBR_CAPTURE_TRACE_SCAN_H

#include <stddef.h>
#include <sys/types.h>

enum gl_error_origin {
    GLERR_CAPTURE, /* glGetError in the trace returned an error the program saw */
    GLERR_TRACER,  /* ... and it was raised by apitrace's glCompressedTex* wrapper */
    GLERR_REPLAY,  /* eglretrace's check after a replayed call */
};

struct gl_error {
    unsigned long call; /* call number in the trace */
    char *function;     /* glGetError for capture-time errors, the failing call for replay */
    char *error;        /* GL_INVALID_ENUM, ... */
    enum gl_error_origin origin;
    unsigned long cause_call; /* for GLERR_TRACER: the glCompressedTex* call */
};

/* A shader the validation replay could not compile or link (eglretrace's warnings). */
struct replay_problem {
    unsigned long call;
    char *what;   /* "compilation failed", "link failed" */
    char *detail; /* the driver's first log line, or NULL */
};

#define TRACE_MAX_GLSL_VERSIONS 8

struct trace_summary {
    unsigned long calls, draws, clears, swaps, framebuffer_binds;
    unsigned long first_swap_call, last_swap_call;
    int have_swap;
    int saw_egl_context;                            /* eglCreateContext or eglMakeCurrent seen */
    int contexts;                                   /* eglCreateContext calls */
    int threads;                                    /* distinct threads that made calls (1 if apitrace marks none) */
    unsigned long egl_images, first_egl_image_call; /* eglCreateImage[KHR] calls */
    int saw_gl;                                     /* any gl* call */
    char *gl_renderer, *gl_version;
    char *egl_platform; /* "surfaceless", "x11", "wayland", "gbm", "device", "default", ... */
    char *surface;      /* "pbuffer", "window" or NULL */
    int width, height;  /* from the pbuffer attributes or the first full viewport */
    int es_major;       /* requested context version, 0 if unknown */
    struct gl_error *errors;
    size_t nerrors;
    /* `#version` lines of the shaders (glShaderSource), e.g. "310 es", each once. */
    char glsl_versions[TRACE_MAX_GLSL_VERSIONS][16];
    int nglsl_versions;
    struct replay_problem *problems; /* from the validation replay */
    size_t nproblems;
};

/* Scans a complete trace with `apitrace dump`.  Returns 0 or -1 (message printed). */
int trace_scan(const char *path, struct trace_summary *s);
void trace_summary_free(struct trace_summary *s);

/* FramesCount from `apitrace info` (works on traces cut at a chunk boundary).
 * Returns the count or -1. */
long trace_frame_count(const char *path);

/* Copies the complete compressed chunks of a trace that is still being written to
 * dst, so that it can be inspected without racing the writer.  Returns the number
 * of bytes copied (0 if there is no complete chunk yet) or -1. */
off_t trace_copy_complete_chunks(const char *src, const char *dst);

/* Replays with eglretrace headless on softpipe, as tbr-replay does: the project's Mesa at
 * mesa_prefix, or Debian's softpipe if mesa_prefix is NULL (driver.h).  Adds GLERR_REPLAY
 * entries to s->errors and shader failures to s->problems.  Returns frames rendered or -1. */
long trace_validate(const char *path, const char *mesa_prefix, struct trace_summary *s, unsigned long *replay_warnings,
                    char **failure);

#endif
