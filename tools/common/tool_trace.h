/* Trace-reading helpers shared by the trace tools (tbr-dump, tbr-characterize):
 * opening a trace, the records_schema check, the --frame selection of the frame
 * loop, malformed-record errors and the final flush of standard output. */
#ifndef TBR_TOOL_TRACE_H
#define TBR_TOOL_TRACE_H

#include "tbr/trace.h"

#include <stddef.h>
#include <stdint.h>

/* Opens PATH, or PATH/activity.tbrt when PATH is a directory (a tbr-replay output, as
 * tbr-sim takes it); on failure prints "PROG: <error>" on stderr and returns NULL. */
tbr_trace_reader *tbr_tool_open_trace(const char *prog, const char *path);
/* 1 if the trace's records_schema metadata is TBR_RECORDS_SCHEMA_VERSION.
 * Otherwise prints on stderr that PATH has another schema and returns 0:
 * undecoded = 0: an error ("this tool reads schema N only"); undecoded = 1: a
 * warning that records are shown undecoded. */
int tbr_tool_records_schema_ok(tbr_trace_reader *r, const char *prog, const char *path, int undecoded);
/* The frame loop of a tool: the frames whose number is in LO..HI (every frame
 * if HAVE_FRAMES is 0), in index order. */
typedef struct tbr_tool_frames {
    const tbr_trace_reader *r;
    size_t next, count;
    int have_frames;
    uint64_t lo, hi;
} tbr_tool_frames;
void tbr_tool_frames_init(tbr_tool_frames *it, const tbr_trace_reader *r, int have_frames, uint64_t lo, uint64_t hi);
/* The next frame in the range: 1 with its index in *INDEX and its info in *FI;
 * 0 after the last one or when an index entry cannot be read (the loop ends). */
int tbr_tool_frames_next(tbr_tool_frames *it, size_t *index, tbr_trace_frame_info *fi);
/* "PROG: warning: no frame in range LO-HI" on stderr. */
void tbr_tool_warn_no_frames(const char *prog, uint64_t lo, uint64_t hi);
/* Records "malformed TYPE record (LEN bytes)" as the reader's error. */
void tbr_tool_fail_malformed(tbr_trace_reader *r, uint16_t type, size_t len);
/* Flushes standard output: 0, or -1 after "PROG: write error on standard output". */
int tbr_tool_flush_stdout(const char *prog);

#endif
