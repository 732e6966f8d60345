/* tbrsim recorder: the reference PNG of the last frame, compressed on its own thread
 * while the replay goes on (one at a time; waited for before the next and at the end). */
#ifndef TBR_PNG_WRITER_H
#define TBR_PNG_WRITER_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>

#include "tbr/png_io.h"

#include "rec_status.h"

struct png_writer {
    struct rec_status *st;
    pthread_t thread;
    int running;
    char path[PATH_MAX + 64];
    uint8_t *px;
    uint32_t w, h;
    int rc;
    int raw_alpha; /* RGBA PNGs with the framebuffer's alpha (default: opaque + alpha plane) */
    char err[TBR_PNG_ERR_SIZE];
};

/* raw_alpha: TBR_RAW_ALPHA=1 (tbr-replay --raw-alpha), see tbr_png_write_frame */
void pngw_init(struct png_writer *pw, struct rec_status *st, int raw_alpha);
/* Waits for the PNG being written; its failure fails the recording. */
int pngw_wait(struct png_writer *pw);
/* Writes px (w x h RGBA, top row first; taken over) to png_path, on the PNG thread. */
int pngw_start(struct png_writer *pw, const char *png_path, uint8_t *px, uint32_t w, uint32_t h);

#endif
