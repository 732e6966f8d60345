/* tbrsim recorder: the activity trace file, its frames and pending records.
 *
 * The LOGICAL frame (per-frame sets and counters) starts with the first record after a
 * swap; the CONTAINER frame is begun only when a significant record (draw, clear, frame
 * end) arrives: until then records wait in pending, so that work after the last swap
 * without any draw or clear (context teardown flushes) is dropped instead of forming an
 * extra frame. */
#ifndef TBR_STREAM_WRITER_H
#define TBR_STREAM_WRITER_H

#include <limits.h>
#include <stdint.h>

#include "tbr/trace.h"

#include "rec_status.h"

struct stream_writer {
    struct rec_status *st;
    char trace_path[PATH_MAX];
    tbr_trace_writer *writer; /* opened at the first container frame */
    int frame_open;           /* container frame begun */
    int closed;               /* the file is complete: nothing more is written */
    int logical_open;         /* the logical frame of `frame` began */
    uint64_t frame;           /* 0-based swap count */
    tbr_buf buf;              /* scratch payload of the record being encoded */
    tbr_buf pending;          /* records waiting for the container frame: u16 type, u32 len, payload */
    uint64_t pending_count, trailing_dropped;
};

void sw_init(struct stream_writer *sw, struct rec_status *st);
void sw_set_path(struct stream_writer *sw, const char *out_dir);
void sw_free(struct stream_writer *sw);
/* 1 while records can be written (no error, file not closed). */
int sw_ready(const struct stream_writer *sw);
/* Starts the logical frame if it is not open yet: returns 1 if it did (the caller resets
 * the other objects' per-frame state). */
int sw_begin_logical(struct stream_writer *sw);
/* Appends one encoded record (the caller opened the logical frame). */
void sw_append(struct stream_writer *sw, uint16_t type, const tbr_buf *b);
/* Ends the frame (container and logical) after its FRAME_END record. */
void sw_end_frame(struct stream_writer *sw);
/* Completes the file (after the recorded window). */
void sw_close(struct stream_writer *sw);
/* At exit: records after the last swap without any draw or clear are dropped. */
void sw_drop_trailing(struct stream_writer *sw);
/* At exit, after the partial last frame (if any) was completed: a complete file, or none
 * after an error. */
void sw_finish(struct stream_writer *sw);

#endif
