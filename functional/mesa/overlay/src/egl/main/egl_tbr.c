/*
 * egl_tbr.c - tbrsim frame boundaries (new file, not part of Mesa).
 *
 * eglSwapBuffers calls _eglTbrSwapBuffers() before its pbuffer early return.
 * If TBR_FUNCTIONAL_LIB names the recording library (the same path softpipe
 * loaded, so dlopen returns the same instance), its swap_buffers hook ends the
 * frame (flush, reference readback, end-of-frame record). Without the
 * variable this is one getenv() on the first swap and nothing afterwards.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <EGL/egl.h>

#include "tbr_mesa_hooks.h"
#include "egl_tbr.h"

static const struct tbr_mesa_hooks *
egl_tbr_hooks(void)
{
   static int tried;
   static const struct tbr_mesa_hooks *hooks;
   if (tried)
      return hooks;
   tried = 1;
   const char *path = getenv("TBR_FUNCTIONAL_LIB");
   if (!path || !*path)
      return NULL;
   void *handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
   if (!handle) {
      fprintf(stderr, "tbrsim EGL: cannot load TBR_FUNCTIONAL_LIB=%s: %s\n", path, dlerror());
      return NULL;
   }
   tbr_mesa_hooks_get_fn get = (tbr_mesa_hooks_get_fn)dlsym(handle, TBR_MESA_HOOKS_SYMBOL);
   const struct tbr_mesa_hooks *h = get ? get() : NULL;
   if (!h || h->version != TBR_MESA_HOOKS_VERSION || h->size < sizeof(*h)) {
      fprintf(stderr, "tbrsim EGL: %s has no compatible %s\n", path, TBR_MESA_HOOKS_SYMBOL);
      return NULL;
   }
   hooks = h;
   return hooks;
}

void
_eglTbrSwapBuffers(void)
{
   const struct tbr_mesa_hooks *h = egl_tbr_hooks();
   if (h)
      h->swap_buffers((tbr_gl_proc (*)(const char *))eglGetProcAddress);
}
