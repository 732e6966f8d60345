/* Shared EGL/GLES setup for the known-* traced test programs (known_geometry.c,
 * known_texture.c): surfaceless EGL display, one W x H pbuffer, a GLES2 context,
 * shader/program helpers that abort with a message naming the program. */
#ifndef TBR_KNOWN_APP_H
#define TBR_KNOWN_APP_H

#include <EGL/egl.h>
#include <GLES2/gl2.h>

struct known_app {
    const char *name; /* "known_geometry": prefix of every error message */
    EGLDisplay dpy;
    EGLSurface surf;
    EGLContext ctx;
};

/* Prints "<name>: <what> failed (egl 0x.., gl 0x..)" and exits with 1. */
void known_die(const struct known_app *app, const char *what);
/* Creates the display, a w x h RGBA8 pbuffer and an ES2 context (made current).
 * depth_bits 0: no depth requested, first matching config; otherwise the first
 * config with exactly depth_bits depth, 8-bit red and alpha (else the first). */
void known_app_init(struct known_app *app, const char *name, int w, int h, int depth_bits);
void known_app_fini(struct known_app *app);
/* Compiles one shader; exits on failure. */
GLuint known_shader(const struct known_app *app, GLenum type, const char *src);
/* Links vs + fs with the NULL-terminated attribs bound to locations 0, 1, ...;
 * exits on failure. */
GLuint known_program(const struct known_app *app, const char *vs, const char *fs, const char *const *attribs);
/* Draws the pixel rectangle [x0,x1) x [y0,y1) (y up) of a w x h viewport at window depth
 * z in [0,1]: two triangles from a client-side vec3 array on attribute 0. */
void known_rect_px(int x0, int y0, int x1, int y1, float z, int w, int h);

#endif
