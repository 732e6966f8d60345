/* tbrsim recorder: the fatal error and unsupported features (rec_status.h). */
#include "rec_status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void rec_fail(struct rec_status *st, const char *fmt, ...)
{
    if (st->error[0] == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->error, sizeof(st->error), fmt, ap);
        va_end(ap);
        fprintf(stderr, "tbr_functional: error: %s\n", st->error);
    }
    st->ok = 0;
}

void rec_note_unsupported(struct rec_status *st, const char *name)
{
    for (int i = 0; i < st->n_unsupported; i++) {
        if (strcmp(st->unsupported[i].name, name) == 0) {
            st->unsupported[i].count++;
            return;
        }
    }
    if (st->n_unsupported < MAX_UNSUPPORTED) {
        snprintf(st->unsupported[st->n_unsupported].name, sizeof(st->unsupported[0].name), "%s", name);
        st->unsupported[st->n_unsupported].count = 1;
        st->n_unsupported++;
    }
}

void rec_copy_name(char *dst, size_t size, const char *src) { snprintf(dst, size, "%s", src ? src : ""); }
