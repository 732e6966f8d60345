/* egl_tbr.h - tbrsim frame boundary hook (new file, not part of Mesa). */
#ifndef EGL_TBR_H
#define EGL_TBR_H

void _eglTbrSwapBuffers(void);

#endif
