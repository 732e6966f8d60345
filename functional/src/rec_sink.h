/* tbrsim recorder: how objects emit records.
 *
 * Every record but QUADS and TEXELS goes out through the recorder, which first opens the
 * frame and writes the pending QUADS records of the draw (records keep their order). An
 * object that emits records takes the sink as a parameter instead of knowing the
 * recorder: encode into sink_buf(), then sink_emit() with the encoder's result. */
#ifndef TBR_REC_SINK_H
#define TBR_REC_SINK_H

#include <stdint.h>

#include "tbr/trace.h"

struct rec_sink {
    tbr_buf *buf; /* scratch payload */
    void (*emit)(void *ctx, uint16_t type, int encode_rc);
    void *ctx;
};

static inline tbr_buf *sink_buf(const struct rec_sink *k)
{
    tbr_buf_reset(k->buf);
    return k->buf;
}

static inline void sink_emit(const struct rec_sink *k, uint16_t type, int encode_rc)
{
    k->emit(k->ctx, type, encode_rc);
}

#endif
