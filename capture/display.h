/* Private display servers for programs that need a window system: Xvfb for X11
 * and a headless weston for Wayland (docs/capture.md, "Platforms"). */
#ifndef TBR_CAPTURE_DISPLAY_H
#define TBR_CAPTURE_DISPLAY_H

#include "util.h"

#include <sys/types.h>

struct display {
    pid_t pid;      /* 0: none started */
    char *name;     /* ":N" for X11, the socket name for Wayland */
    char *kind;     /* "x11" or "wayland" */
    char *log_path; /* server output, shown if it fails to start */
};

/* Starts Xvfb with a free display number (Xvfb -displayfd) and a WxH screen; sets
 * DISPLAY in env.  workdir holds its log.  Returns 0 or -1 with a message printed. */
int display_start_x11(struct display *d, int w, int h, struct env *env, const char *workdir);
/* Starts weston's headless backend on a private socket; sets WAYLAND_DISPLAY (and
 * XDG_RUNTIME_DIR under workdir if unset) in env.  Returns 0 or -1. */
int display_start_wayland(struct display *d, int w, int h, struct env *env, const char *workdir);
void display_stop(struct display *d);

#endif
