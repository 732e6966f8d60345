/* Frames windows of traces with several contexts (docs/capture.md, "Frames windows"):
 * apitrace's gltrim loses state across contexts (EGLImages, shared objects, which
 * context a call ran in) and its cuts of such traces replay wrongly or crash.  This cut
 * keeps every call before the window except those that only draw (draws, clears, blits,
 * finishes, swaps), and every call of the window; it is checked pixel by pixel against
 * the same frames of the whole trace, since a frame that reads what an earlier frame
 * drew (and no longer draws) would differ. */
#ifndef TBR_CAPTURE_CUT_CONTEXTS_H
#define TBR_CAPTURE_CUT_CONTEXTS_H

/* Writes frames first..last of `in` to `out`, using files in `workdir`.  Returns 0 or -1
 * (message printed; progress too unless quiet). */
int cut_dropping_draws(const char *in, const char *out, long first, long last, const char *workdir, int quiet);

/* Replays frames first..last of `in` and frames 0..last-first of `cut` on softpipe
 * (mesa_prefix as for trace_validate) and compares their pixels.  Returns 0 if identical,
 * 1 if a frame differs (named), -1 if a replay failed (message printed). */
int cut_verify(const char *in, const char *cut, long first, long last, const char *mesa_prefix, const char *workdir,
               int quiet);

#endif
