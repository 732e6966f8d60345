/* tbrsim recorder: GL/EGL at the frame end: the renderer check at the first swap, the
 * glFlush of every swap, and the readback of the default framebuffer (reference PNG). */
#ifndef TBR_READBACK_H
#define TBR_READBACK_H

#include <stdint.h>

#include "tbr_mesa_hooks.h"

#include "rec_status.h"

/* GL / EGL subset used for the frame-end readback (values from the Khronos headers). */
typedef unsigned int GLenum;
typedef int GLint;
typedef unsigned int GLuint;
typedef int GLsizei;
typedef unsigned char GLubyte;

struct gl_fns {
    void (*Flush)(void);
    const GLubyte *(*GetString)(GLenum);
    GLenum (*GetError)(void);
    void (*GetIntegerv)(GLenum, GLint *);
    void (*BindFramebuffer)(GLenum, GLuint);
    void (*BindBuffer)(GLenum, GLuint);
    void (*PixelStorei)(GLenum, GLint);
    void (*ReadPixels)(GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, void *);
    void *(*GetCurrentDisplay)(void);
    void *(*GetCurrentSurface)(GLint);
    unsigned (*QuerySurface)(void *, void *, GLint, GLint *);
};

struct readback {
    struct rec_status *st;
    int checked; /* the renderer was checked (first swap) */
    struct gl_fns gl;
    char gl_renderer[128], gl_version[128];
    uint32_t width, height; /* of the last frame read */
};

void rb_init(struct readback *rb, struct rec_status *st);
/* At the first swap: resolves the GL/EGL entry points and fails unless the renderer is
 * softpipe with an instrumented context (live_contexts > 0). */
void rb_check_renderer(struct readback *rb, tbr_gl_proc (*gp)(const char *), int live_contexts);
/* glFlush if it was resolved: 0 if not. */
int rb_flush(struct readback *rb);
/* Reads the default framebuffer (RGBA8, top row first) into *px (malloc'ed, w x h from
 * rb->width / rb->height), saving and restoring the GL state it changes. */
int rb_read(struct readback *rb, uint8_t **px);

#endif
