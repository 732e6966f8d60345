/* tbrsim recorder: the activity trace file (stream_writer.h). */
#include "stream_writer.h"

#include <stdio.h>
#include <string.h>

#include "tbr/records.h"

void sw_init(struct stream_writer *sw, struct rec_status *st)
{
    sw->st = st;
    tbr_buf_init(&sw->buf);
    tbr_buf_init(&sw->pending);
}

void sw_set_path(struct stream_writer *sw, const char *out_dir)
{
    snprintf(sw->trace_path, sizeof(sw->trace_path), "%s/activity.tbrt", out_dir);
}

int sw_ready(const struct stream_writer *sw) { return sw->st->ok && !sw->closed; }

/* Starts the logical frame if it is not open yet: returns 1 if it did (the caller resets
 * the other objects' per-frame state). */
int sw_begin_logical(struct stream_writer *sw)
{
    if (sw->logical_open) return 0;
    sw->logical_open = 1;
    tbr_buf_reset(&sw->pending);
    sw->pending_count = 0;
    return 1;
}

static int significant(uint16_t type)
{
    return type == TBR_REC_DRAW || type == TBR_REC_CLEAR || type == TBR_REC_FRAME_END || type == TBR_REC_QUADS ||
           type == TBR_REC_PRIM || type == TBR_REC_DRAW_END || type == TBR_REC_PATH;
}

static int open_container_frame(struct stream_writer *sw)
{
    if (!sw->writer) {
        char meta[512];
        snprintf(meta, sizeof(meta),
                 "producer=tbr_functional " TBR_VERSION "\nrecords_schema=%d\n"
                 "records_schema_minor=%d\n"
                 "driver=softpipe\nmesa_version=22.3.6\ntile_size=64\n",
                 TBR_RECORDS_SCHEMA_VERSION, TBR_RECORDS_SCHEMA_MINOR);
        tbr_trace_error err;
        /* zstd runs on a second thread while softpipe renders on this one (the replay
         * itself is single-threaded); the file is the same as with inline compression.
         * 4 MiB chunks at zstd level 6 instead of the container defaults (1 MiB, 3): a
         * glmark2 terrain frame 5.17 -> 4.58 MB (-11%; levels 9-12 gain < 1% more), while
         * compressing a frame's ~50 MB stays well under a second next to softpipe's
         * seconds of rendering (docs/verification.md "Activity-trace size"). */
        tbr_trace_writer_options wopts = {.background = 1, .chunk_size = (size_t)4 << 20, .compression_level = 6};
        sw->writer = tbr_trace_writer_open_ex(sw->trace_path, meta, &wopts, &err);
        if (!sw->writer) {
            rec_fail(sw->st, "%s", err.msg);
            return -1;
        }
    }
    if (tbr_trace_writer_begin_frame(sw->writer, sw->frame) != 0) {
        rec_fail(sw->st, "%s", tbr_trace_writer_error(sw->writer));
        return -1;
    }
    sw->frame_open = 1;
    /* replay the records that waited for the frame */
    size_t pos = 0;
    while (pos + 6 <= sw->pending.len) {
        const uint8_t *h = sw->pending.data + pos;
        uint16_t t = (uint16_t)(h[0] | (h[1] << 8));
        uint32_t len = (uint32_t)h[2] | ((uint32_t)h[3] << 8) | ((uint32_t)h[4] << 16) | ((uint32_t)h[5] << 24);
        if (tbr_trace_writer_append(sw->writer, t, h + 6, len) != 0) {
            rec_fail(sw->st, "%s", tbr_trace_writer_error(sw->writer));
            return -1;
        }
        pos += 6 + (size_t)len;
    }
    tbr_buf_reset(&sw->pending);
    sw->pending_count = 0;
    return 0;
}

/* Appends one encoded record (the caller opened the logical frame). */
void sw_append(struct stream_writer *sw, uint16_t type, const tbr_buf *b)
{
    if (!sw_ready(sw)) return;
    if (!tbr_buf_ok(b)) {
        rec_fail(sw->st, "out of memory encoding a %s record", tbr_rec_type_name(type));
        return;
    }
    if (!sw->frame_open) {
        if (!significant(type)) {
            tbr_buf_put_u16(&sw->pending, type);
            tbr_buf_put_u32(&sw->pending, (uint32_t)b->len);
            tbr_buf_put_bytes(&sw->pending, b->data, b->len);
            if (!tbr_buf_ok(&sw->pending)) rec_fail(sw->st, "out of memory (pending records)");
            sw->pending_count++;
            return;
        }
        if (open_container_frame(sw) != 0) return;
    }
    if (tbr_trace_writer_append_buf(sw->writer, type, b) != 0)
        rec_fail(sw->st, "%s", tbr_trace_writer_error(sw->writer));
}

/* Ends the frame (container and logical) after its FRAME_END record. */
void sw_end_frame(struct stream_writer *sw)
{
    if (sw->frame_open && tbr_trace_writer_end_frame(sw->writer) != 0)
        rec_fail(sw->st, "%s", tbr_trace_writer_error(sw->writer));
    sw->frame_open = 0;
    sw->logical_open = 0;
}

void sw_close(struct stream_writer *sw)
{
    if (sw->writer) {
        tbr_trace_error err;
        tbr_trace_writer *w = sw->writer;
        sw->writer = NULL;
        if (tbr_trace_writer_close(w, NULL, &err) != 0)
            rec_fail(sw->st, "%s", err.msg);
        else
            sw->closed = 1;
    }
}

/* At exit: records after the last swap without any draw or clear are dropped. */
void sw_drop_trailing(struct stream_writer *sw)
{
    if (!sw->frame_open && sw->pending_count) {
        sw->trailing_dropped = sw->pending_count;
        tbr_buf_reset(&sw->pending);
        sw->pending_count = 0;
    }
}

/* At exit, after the partial last frame (if any) was completed: a complete file, or none
 * after an error. */
void sw_finish(struct stream_writer *sw)
{
    if (!sw->writer) return;
    if (sw->frame_open) {
        if (tbr_trace_writer_end_frame(sw->writer) != 0) rec_fail(sw->st, "%s", tbr_trace_writer_error(sw->writer));
        sw->frame_open = 0;
    }
    if (sw->st->ok)
        sw_close(sw);
    else {
        tbr_trace_writer_abort(sw->writer);
        sw->writer = NULL;
    }
}

void sw_free(struct stream_writer *sw)
{
    tbr_buf_free(&sw->buf);
    tbr_buf_free(&sw->pending);
}
