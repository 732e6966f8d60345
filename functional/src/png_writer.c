/* tbrsim recorder: the reference PNG thread (png_writer.h). */
#include "png_writer.h"

#include <stdio.h>
#include <stdlib.h>

void pngw_init(struct png_writer *pw, struct rec_status *st, int raw_alpha)
{
    pw->st = st;
    pw->raw_alpha = raw_alpha;
}

static void *pngw_main(void *arg)
{
    struct png_writer *j = arg;
    j->rc = tbr_png_write_frame(j->path, j->px, j->w, j->h, (size_t)j->w * 4, j->raw_alpha, j->err, sizeof(j->err));
    return NULL;
}

/* Waits for the PNG being written; its failure fails the recording. */
int pngw_wait(struct png_writer *pw)
{
    if (!pw->running) return 0;
    pthread_join(pw->thread, NULL);
    pw->running = 0;
    free(pw->px);
    pw->px = NULL;
    if (pw->rc != 0) {
        rec_fail(pw->st, "%s", pw->err);
        return -1;
    }
    return 0;
}

/* Writes px (w x h RGBA, top row first; taken over) to png_path, on the PNG thread. */
int pngw_start(struct png_writer *pw, const char *png_path, uint8_t *px, uint32_t w, uint32_t h)
{
    if (pngw_wait(pw) != 0) {
        free(px);
        return -1;
    }
    snprintf(pw->path, sizeof(pw->path), "%s", png_path);
    pw->px = px;
    pw->w = w;
    pw->h = h;
    pw->rc = 0;
    pw->err[0] = 0;
    if (pthread_create(&pw->thread, NULL, pngw_main, pw) == 0) {
        pw->running = 1;
        return 0;
    }
    pngw_main(pw); /* no thread: write it here */
    pw->px = NULL;
    free(px);
    if (pw->rc != 0) {
        rec_fail(pw->st, "%s", pw->err);
        return -1;
    }
    return 0;
}
