#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TBR_DEFAULT_MESA_PREFIX
#define TBR_DEFAULT_MESA_PREFIX ""
#endif

/* What Debian's llvmpipe (Mesa 22.3.6) offers beyond softpipe, measured with
 * tbr-capture-test-caps (tests/capture, case driver_caps, which fails when this list
 * goes stale): ES 3.2 instead of 3.1 and these extensions.  Hiding them makes a program
 * that adapts to its context take softpipe's paths.  Limits cannot be lowered this way
 * (e.g. GL_MAX_SAMPLES 4 against 1): a trace that uses more than softpipe's limits is
 * caught by the validation replay on softpipe. */
static const char llvmpipe_extra_extensions[] =
    "-GL_ANDROID_extension_pack_es31a -GL_ARM_shader_framebuffer_fetch_depth_stencil -GL_EXT_memory_object "
    "-GL_EXT_memory_object_fd -GL_EXT_polygon_offset_clamp -GL_EXT_robustness -GL_EXT_shader_framebuffer_fetch "
    "-GL_EXT_shader_framebuffer_fetch_non_coherent -GL_EXT_shader_group_vote -GL_EXT_tessellation_point_size "
    "-GL_EXT_tessellation_shader -GL_EXT_texture_filter_minmax -GL_EXT_texture_shadow_lod "
    "-GL_KHR_blend_equation_advanced -GL_KHR_blend_equation_advanced_coherent -GL_KHR_robust_buffer_access_behavior "
    "-GL_KHR_robustness -GL_OES_sample_shading -GL_OES_sample_variables -GL_OES_shader_multisample_interpolation "
    "-GL_OES_tessellation_point_size -GL_OES_tessellation_shader";

int driver_parse(const char *name, enum capture_driver *d)
{
    if (!strcmp(name, "softpipe"))
        *d = DRIVER_SOFTPIPE;
    else if (!strcmp(name, "llvmpipe"))
        *d = DRIVER_LLVMPIPE;
    else
        return -1;
    return 0;
}

const char *driver_name(enum capture_driver d) { return d == DRIVER_LLVMPIPE ? "llvmpipe" : "softpipe"; }

void driver_set_program_env(enum capture_driver d, struct env *env)
{
    /* LIBGL_ALWAYS_SOFTWARE: a machine with a GPU would otherwise use its hardware driver. */
    env_set(env, "LIBGL_ALWAYS_SOFTWARE", "1");
    env_set(env, "GALLIUM_DRIVER", driver_name(d));
    if (d == DRIVER_LLVMPIPE) {
        env_set(env, "MESA_GLES_VERSION_OVERRIDE", "3.1");
        env_set(env, "MESA_EXTENSION_OVERRIDE", llvmpipe_extra_extensions);
    } else {
        env_unset(env, "MESA_GLES_VERSION_OVERRIDE");
        env_unset(env, "MESA_EXTENSION_OVERRIDE");
    }
}

char *driver_describe_env(enum capture_driver d)
{
    if (d == DRIVER_LLVMPIPE)
        return xstrdup("LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=llvmpipe MESA_GLES_VERSION_OVERRIDE=3.1 "
                       "MESA_EXTENSION_OVERRIDE=<the llvmpipe extensions softpipe lacks>");
    return xstrdup("LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=softpipe");
}

static int has_softpipe(const char *prefix)
{
    if (!prefix || !*prefix) return 0;
    char *path = xasprintf("%s/lib/dri/swrast_dri.so", prefix);
    int ok = access(path, R_OK) == 0;
    free(path);
    return ok;
}

char *driver_find_replay_prefix(const char *option)
{
    if (option) return has_softpipe(option) ? xstrdup(option) : NULL;
    const char *env = getenv("TBR_MESA_PREFIX");
    if (env && *env) return has_softpipe(env) ? xstrdup(env) : NULL;
    return has_softpipe(TBR_DEFAULT_MESA_PREFIX) ? xstrdup(TBR_DEFAULT_MESA_PREFIX) : NULL;
}

void driver_set_replay_env(const char *prefix, struct env *env)
{
    env_set(env, "WAFFLE_PLATFORM", "surfaceless_egl");
    env_set(env, "LIBGL_ALWAYS_SOFTWARE", "1");
    env_unset(env, "LD_PRELOAD");
    env_unset(env, "MESA_GLES_VERSION_OVERRIDE");
    env_unset(env, "MESA_EXTENSION_OVERRIDE");
    /* The instrumentation stays off: it is loaded only when TBR_FUNCTIONAL_LIB is set. */
    env_unset(env, "TBR_FUNCTIONAL_LIB");
    if (prefix) {
        char *lib = xasprintf("%s/lib", prefix);
        env_set(env, "LD_LIBRARY_PATH", lib);
        free(lib);
        env_unset(env, "GALLIUM_DRIVER");
    } else {
        env_unset(env, "LD_LIBRARY_PATH");
        env_set(env, "GALLIUM_DRIVER", "softpipe");
    }
}
