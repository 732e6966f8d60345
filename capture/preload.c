/* libtbr-capture-preload.so: loaded by tbr-capture just before apitrace's egltrace.so
 * (LD_PRELOAD), it adjusts how the tracer answers dlopen() so that two kinds of programs
 * capture (docs/capture.md, "Programs that load GL themselves"):
 *
 * - GLX probes.  egltrace.so answers dlopen("libGL.so.1") with a handle to itself, which
 *   has no glX* symbols; libepoxy (GTK 4 and others) then aborts looking up
 *   glXGetCurrentContext (issue 24, section 4).  Opening libGL.so[.1] by those names now
 *   fails, with an error that says why: GLX is absent as far as the program can tell, so
 *   a toolkit that can use either takes EGL, the only API egltrace.so records.
 * - EGL/GLES libraries opened under a file name the tracer does not know (as an emulator's
 *   host renderer may: issue 24, section 5).  egltrace.so redirects only the file names
 *   libEGL.so[.1], libGLESv2.so[.2] and libGLESv1_CM.so[.1] (with or without a
 *   directory); any other file name starting with libEGL.so, libGLESv2.so or
 *   libGLESv1_CM.so (e.g. libEGL.so.1.1.0) is asked for by its canonical name instead, so
 *   that dlsym() on the handle reaches the tracer's wrappers.
 *
 * Everything else goes to the next dlopen() (egltrace.so's, which calls glibc's).  It
 * keeps no state: each call looks its targets up again (dlopen calls are rare). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

typedef void *(*dlopen_fn)(const char *, int);

static const char *file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int starts_with(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

/* The name egltrace.so redirects to itself for an EGL/GLES library opened under another
 * file name, or NULL to leave the request alone. */
static const char *canonical_gl_name(const char *filename)
{
    static const char *const names[][2] = {
        {"libEGL.so", "libEGL.so.1"},
        {"libGLESv2.so", "libGLESv2.so.2"},
        {"libGLESv1_CM.so", "libGLESv1_CM.so.1"},
    };
    const char *base = file_name(filename);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!starts_with(base, names[i][0])) continue;
        /* These file names are redirected by egltrace.so already. */
        int known = !strcmp(base, names[i][0]) || !strcmp(base, names[i][1]);
        return known ? NULL : names[i][1];
    }
    return NULL;
}

__attribute__((visibility("default"))) void *dlopen(const char *filename, int flags)
{
    dlopen_fn next = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
    if (!next) return NULL;
    if (!filename) return next(filename, flags);
    if (!strcmp(filename, "libGL.so.1") || !strcmp(filename, "libGL.so")) {
        /* A name no library has, so that the failure and dlerror() are the loader's own. */
        return next("libGL.so (GLX hidden while tbr-capture records EGL)", flags);
    }
    const char *canonical = canonical_gl_name(filename);
    return next(canonical ? canonical : filename, flags);
}
