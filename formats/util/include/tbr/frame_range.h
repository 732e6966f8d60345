/*
 * tbr/frame_range.h - the one parser of frame ranges on command lines: tbr-sim --frames,
 * tbr-replay --frames, tbr-capture --cut, tbr-dump / tbr-characterize --frame.
 *
 * Syntax: "A-B" (A <= B), "A" (= A-A) and "A-" (A to the end, B = UINT64_MAX), where A
 * and B are decimal numbers of digits only (no sign or spaces) that fit 64 bits. Each
 * command says which forms it takes and words its own messages.
 */
#ifndef TBR_FRAME_RANGE_H
#define TBR_FRAME_RANGE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TBR_FRAMES_SINGLE 0x1u /* "A" is accepted (A-A) */
#define TBR_FRAMES_OPEN   0x2u /* "A-" is accepted (A to UINT64_MAX) */

enum tbr_frames_status {
    TBR_FRAMES_OK = 0,
    TBR_FRAMES_BAD_START,  /* no number A, or something other than "-" after it */
    TBR_FRAMES_BAD_END,    /* after the "-": no number B, something after it, or B < A */
    TBR_FRAMES_NOT_SINGLE, /* "A" without TBR_FRAMES_SINGLE */
    TBR_FRAMES_NOT_OPEN,   /* "A-" without TBR_FRAMES_OPEN */
};

/* Parses s into *first..*last (inclusive); flags TBR_FRAMES_*. Returns TBR_FRAMES_OK or
 * what is wrong (*first and *last are then unspecified). */
enum tbr_frames_status tbr_frame_range_parse(const char *s, unsigned flags, uint64_t *first, uint64_t *last);

#ifdef __cplusplus
}
#endif

#endif
