/* Frame ranges on command lines (tbr/frame_range.h). */
#include "tbr/frame_range.h"

#include <stddef.h>

/* Digits at *s into *v (advancing *s): 0, or -1 if there are none or the value does not
 * fit 64 bits. */
static int parse_u64(const char **s, uint64_t *v)
{
    const char *p = *s;
    uint64_t x = 0;
    if (*p < '0' || *p > '9') return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        const uint64_t d = (uint64_t)(*p - '0');
        if (x > (UINT64_MAX - d) / 10) return -1;
        x = x * 10 + d;
    }
    *s = p;
    *v = x;
    return 0;
}

enum tbr_frames_status tbr_frame_range_parse(const char *s, unsigned flags, uint64_t *first, uint64_t *last)
{
    const char *p = s ? s : "";
    if (parse_u64(&p, first)) return TBR_FRAMES_BAD_START;
    if (*p == '\0') {
        *last = *first;
        return flags & TBR_FRAMES_SINGLE ? TBR_FRAMES_OK : TBR_FRAMES_NOT_SINGLE;
    }
    if (*p != '-') return TBR_FRAMES_BAD_START;
    p++;
    if (*p == '\0') {
        *last = UINT64_MAX;
        return flags & TBR_FRAMES_OPEN ? TBR_FRAMES_OK : TBR_FRAMES_NOT_OPEN;
    }
    if (parse_u64(&p, last) || *p != '\0' || *last < *first) return TBR_FRAMES_BAD_END;
    return TBR_FRAMES_OK;
}
