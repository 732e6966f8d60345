/* tbr-replay --crosscheck: the same frames replayed through Debian's llvmpipe (the system
 * libEGL, apitrace's own snapshots) and each reference frame's PSNR and SSIM against them
 * (docs/verification.md "Crosscheck against llvmpipe"). llvmpipe is an independent
 * rasterizer and sampler: a reference far from it points at a softpipe defect (issue 24:
 * the anisotropic LOD bias fixed by Mesa patch 0007), not at rounding. */
#ifndef TBR_REPLAY_CROSSCHECK_H
#define TBR_REPLAY_CROSSCHECK_H

#include <stdio.h>

/* Frames whose reference is below this PSNR against llvmpipe are flagged: in issue 24
 * rounding-level differences gave 52.9-64 dB and the sampling defect 36.1 dB; a few
 * pixels flipping at a threshold can also fall below (docs/verification.md). */
#define CROSSCHECK_PSNR_THRESHOLD_DB 45.0

struct crosscheck_frame {
    long frame;
    double psnr_db; /* INFINITY when the RGB pixels are identical */
    double ssim;
};

struct crosscheck_result {
    char renderer[256]; /* GL_RENDERER of the llvmpipe replay */
    long count;
    struct crosscheck_frame *frames; /* count entries, frame order */
    long below_threshold;
    double seconds; /* llvmpipe replay and comparison */
};

/* Replays frames first..last of trace through the system's Mesa into workdir (created,
 * and removed again) and compares each with refdir/frame_NNNNN.png. The renderer probe is
 * the tbr-mesa-check next to the running executable. Returns 0, or -1 with the reason on
 * stderr (workdir then stays, with the logs). */
int crosscheck_run(const char *trace, long first, long last, const char *refdir, const char *workdir, int quiet,
                   struct crosscheck_result *r);

/* Writes `,\n  "crosscheck": {...}` (replay.json's crosscheck object, docs/verification.md). */
void crosscheck_write_json(FILE *f, const struct crosscheck_result *r);

/* One line per frame below the threshold, then one summary line. */
void crosscheck_print_summary(FILE *f, const struct crosscheck_result *r);

void crosscheck_free(struct crosscheck_result *r);

#endif
