/* GL calls that tbr-replay's instrumentation does not record and tbr-sim does not model,
 * found in the trace before it is replayed (docs/instrumentation.md "Not modelled"). */
#ifndef TBR_REPLAY_UNSUPPORTED_CALLS_H
#define TBR_REPLAY_UNSUPPORTED_CALLS_H

#include <stddef.h>

/* Scans trace (apitrace dump --grep) for compute dispatches. Writes "" into summary when
 * there are none, else e.g. "glDispatchCompute x5 (first at call 56)"; -1 when apitrace
 * cannot read the trace. */
int tbr_find_unsupported_calls(const char *trace, char *summary, size_t size);

#endif
