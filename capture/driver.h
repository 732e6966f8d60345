/* Which Mesa driver the captured program runs on, and which one replays the trace to
 * validate it (docs/capture.md, "Which driver").  A program adapts to what its context
 * offers (GL version, GLSL versions, extensions), so it must be captured on what
 * tbr-replay will replay it on: softpipe (issue 24, 1b). */
#ifndef TBR_CAPTURE_DRIVER_H
#define TBR_CAPTURE_DRIVER_H

#include "util.h"

enum capture_driver {
    DRIVER_SOFTPIPE, /* default: Debian's softpipe, the same capabilities as the project's */
    DRIVER_LLVMPIPE, /* faster; trimmed to softpipe's version and extensions, not its limits */
};

/* "softpipe" or "llvmpipe".  Returns 0, or -1 for another name. */
int driver_parse(const char *name, enum capture_driver *d);
const char *driver_name(enum capture_driver d);

/* Sets the variables that select the driver (and trim what it offers) for the program. */
void driver_set_program_env(enum capture_driver d, struct env *env);
/* The variables set by driver_set_program_env, as one "NAME=value ..." string. */
char *driver_describe_env(enum capture_driver d);

/* The Mesa prefix holding the project's softpipe build: `option` (--mesa-prefix), else
 * $TBR_MESA_PREFIX, else the build's default; NULL if none of them has a softpipe driver. */
char *driver_find_replay_prefix(const char *option);

/* Sets the validation replayer's environment: the project's softpipe at `prefix` (as
 * tbr-replay loads it), or Debian's softpipe when prefix is NULL.  Headless. */
void driver_set_replay_env(const char *prefix, struct env *env);

#endif
