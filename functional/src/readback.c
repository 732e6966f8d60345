/* tbrsim recorder: GL/EGL at the frame end (readback.h). */
#include "readback.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GL / EGL values used here (from the Khronos headers). */
#define GL_NO_ERROR                  0
#define GL_RENDERER                  0x1F01
#define GL_VERSION                   0x1F02
#define GL_VENDOR                    0x1F00
#define GL_RGBA                      0x1908
#define GL_UNSIGNED_BYTE             0x1401
#define GL_FRAMEBUFFER               0x8D40
#define GL_READ_FRAMEBUFFER          0x8CA8
#define GL_DRAW_FRAMEBUFFER_BINDING  0x8CA6
#define GL_READ_FRAMEBUFFER_BINDING  0x8CAA
#define GL_PIXEL_PACK_BUFFER         0x88EB
#define GL_PIXEL_PACK_BUFFER_BINDING 0x88ED
#define GL_PACK_ALIGNMENT            0x0D05
#define GL_PACK_ROW_LENGTH           0x0D02
#define GL_PACK_SKIP_ROWS            0x0D03
#define GL_PACK_SKIP_PIXELS          0x0D04
#define GL_MAJOR_VERSION             0x821B
#define EGL_WIDTH                    0x3057
#define EGL_HEIGHT                   0x3056
#define EGL_DRAW                     0x3059

void rb_init(struct readback *rb, struct rec_status *st) { rb->st = st; }

static int resolve_gl(struct gl_fns *g, tbr_gl_proc (*gp)(const char *))
{
#define GET(field, name)                                                                                               \
    do {                                                                                                               \
        tbr_gl_proc p_ = gp(name);                                                                                     \
        memcpy(&g->field, &p_, sizeof(p_));                                                                            \
    } while (0)
    GET(Flush, "glFlush");
    GET(GetString, "glGetString");
    GET(GetError, "glGetError");
    GET(GetIntegerv, "glGetIntegerv");
    GET(BindFramebuffer, "glBindFramebuffer");
    GET(BindBuffer, "glBindBuffer");
    GET(PixelStorei, "glPixelStorei");
    GET(ReadPixels, "glReadPixels");
    GET(GetCurrentDisplay, "eglGetCurrentDisplay");
    GET(GetCurrentSurface, "eglGetCurrentSurface");
    GET(QuerySurface, "eglQuerySurface");
#undef GET
    return g->Flush && g->GetString && g->GetError && g->GetIntegerv && g->BindFramebuffer && g->BindBuffer &&
                   g->PixelStorei && g->ReadPixels && g->GetCurrentDisplay && g->GetCurrentSurface && g->QuerySurface
               ? 0
               : -1;
}

/* At the first swap: resolves the GL/EGL entry points and fails unless the renderer is
 * softpipe with an instrumented context (live_contexts > 0). */
void rb_check_renderer(struct readback *rb, tbr_gl_proc (*gp)(const char *), int live_contexts)
{
    rb->checked = 1;
    if (resolve_gl(&rb->gl, gp) != 0) {
        rec_fail(rb->st, "cannot resolve the GL/EGL functions needed for readback");
        return;
    }
    const char *r = (const char *)rb->gl.GetString(GL_RENDERER);
    const char *v = (const char *)rb->gl.GetString(GL_VERSION);
    rec_copy_name(rb->gl_renderer, sizeof(rb->gl_renderer), r);
    rec_copy_name(rb->gl_version, sizeof(rb->gl_version), v);
    if (!r || strcmp(r, "softpipe") != 0)
        rec_fail(rb->st, "GL_RENDERER is '%s', not softpipe (is LD_LIBRARY_PATH set to the tbrsim Mesa?)",
                 r ? r : "(null)");
    if (live_contexts == 0) rec_fail(rb->st, "no instrumented softpipe context was created (wrong Mesa?)");
}

/* glFlush if it was resolved: 0 if not. */
int rb_flush(struct readback *rb)
{
    if (!rb->gl.Flush) return 0;
    rb->gl.Flush();
    return 1;
}

/* Reads the default framebuffer (RGBA8, top row first) into *px (malloc'ed, w x h from
 * rb->width / rb->height), saving and restoring the GL state it changes. */
int rb_read(struct readback *rb, uint8_t **px_out)
{
    struct gl_fns *g = &rb->gl;
    GLint w = 0, h = 0;
    void *dpy = g->GetCurrentDisplay();
    void *surf = g->GetCurrentSurface(EGL_DRAW);
    if (!dpy || !surf || !g->QuerySurface(dpy, surf, EGL_WIDTH, &w) || !g->QuerySurface(dpy, surf, EGL_HEIGHT, &h) ||
        w <= 0 || h <= 0) {
        rec_fail(rb->st, "cannot query the current EGL surface size");
        return -1;
    }
    rb->width = (uint32_t)w;
    rb->height = (uint32_t)h;
    while (g->GetError() != GL_NO_ERROR) {}
    GLint draw_fb = 0, read_fb = 0, pack_buf = 0, align = 4, row_len = 0, skip_rows = 0, skip_px = 0, major = 2;
    g->GetIntegerv(GL_MAJOR_VERSION, &major);
    if (g->GetError() != GL_NO_ERROR) major = 2;
    int es3 = major >= 3;
    g->GetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_fb);
    g->GetIntegerv(GL_PACK_ALIGNMENT, &align);
    if (es3) {
        g->GetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fb);
        g->GetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buf);
        g->GetIntegerv(GL_PACK_ROW_LENGTH, &row_len);
        g->GetIntegerv(GL_PACK_SKIP_ROWS, &skip_rows);
        g->GetIntegerv(GL_PACK_SKIP_PIXELS, &skip_px);
    }
    size_t stride = (size_t)w * 4;
    uint8_t *px = malloc(stride * (size_t)h);
    uint8_t *row = malloc(stride);
    if (!px || !row) {
        free(px);
        free(row);
        rec_fail(rb->st, "out of memory for the readback");
        return -1;
    }
    if (es3) {
        g->BindFramebuffer(GL_READ_FRAMEBUFFER, 0);
        g->BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        g->PixelStorei(GL_PACK_ROW_LENGTH, 0);
        g->PixelStorei(GL_PACK_SKIP_ROWS, 0);
        g->PixelStorei(GL_PACK_SKIP_PIXELS, 0);
    } else {
        g->BindFramebuffer(GL_FRAMEBUFFER, 0);
    }
    g->PixelStorei(GL_PACK_ALIGNMENT, 1);
    g->ReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
    GLenum err = g->GetError();
    /* restore */
    g->PixelStorei(GL_PACK_ALIGNMENT, align);
    if (es3) {
        g->PixelStorei(GL_PACK_ROW_LENGTH, row_len);
        g->PixelStorei(GL_PACK_SKIP_ROWS, skip_rows);
        g->PixelStorei(GL_PACK_SKIP_PIXELS, skip_px);
        g->BindBuffer(GL_PIXEL_PACK_BUFFER, (GLuint)pack_buf);
        g->BindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)read_fb);
    } else {
        g->BindFramebuffer(GL_FRAMEBUFFER, (GLuint)draw_fb);
    }
    if (err != GL_NO_ERROR) {
        free(px);
        free(row);
        rec_fail(rb->st, "glReadPixels of the default framebuffer failed (GL error 0x%x)", err);
        return -1;
    }
    for (GLint y = 0; y < h / 2; y++) {
        uint8_t *a = px + (size_t)y * stride, *b = px + (size_t)(h - 1 - y) * stride;
        memcpy(row, a, stride);
        memcpy(a, b, stride);
        memcpy(b, row, stride);
    }
    free(row);
    *px_out = px;
    return 0;
}
