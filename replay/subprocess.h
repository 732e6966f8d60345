/* Small helpers to run the external programs the replay drives (apitrace, eglretrace). */
#ifndef TBR_REPLAY_SUBPROCESS_H
#define TBR_REPLAY_SUBPROCESS_H

#include <stddef.h>
#include <sys/types.h>

/* Runs argv[0] (searched in PATH) with extra environment assignments ("K=V", NULL-terminated,
 * may be NULL), captures its stdout into a malloc'ed NUL-terminated buffer (*out, may be NULL
 * to discard) and lets stderr through unless quiet_stderr. Returns the exit status (0-255),
 * 127 if the program could not be started, or -1 on internal error / killed by signal. */
int tbr_run_capture(char *const argv[], char *const extra_env[], char **out, int quiet_stderr);

/* Starts argv with extra_env; its stderr is connected to a pipe returned in *stderr_fd
 * (non-blocking). Returns the pid, or -1. */
pid_t tbr_spawn_with_stderr_pipe(char *const argv[], char *const extra_env[], int *stderr_fd);

/* Looks a program up in PATH; returns 1 if found (and executable). */
int tbr_program_in_path(const char *name);

/* The frame count as apitrace itself counts it (eglSwapBuffers and friends), or -1 when
 * apitrace cannot read the trace. */
long tbr_apitrace_frame_count(const char *trace);

#endif
