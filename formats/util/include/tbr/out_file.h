/*
 * tbr/out_file.h - one output file written whole or not at all: the text goes to PATH.tmp,
 * every write and the close are checked, and PATH.tmp is renamed to PATH only when all of it
 * reached the file system. Messages name the file and the OS's reason (e.g. "No space left
 * on device"). Also: checking standard output at exit (a full disk or /dev/full is an error).
 */
#ifndef TBR_OUT_FILE_H
#define TBR_OUT_FILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    FILE *f; /* write with stdio; NULL when not open */
    char path[PATH_MAX];
    char tmp[PATH_MAX + 8];
} tbr_out_file;

/* Opens PATH.tmp for writing into o->f. 0, or -1 with err. */
int tbr_out_file_open(tbr_out_file *o, const char *path, char *err, size_t errlen);

/* Flushes and closes o->f, then renames PATH.tmp to PATH. 0, or -1 with err ("PATH: cannot
 * write: REASON"); on failure the temporary is removed and PATH is untouched. */
int tbr_out_file_commit(tbr_out_file *o, char *err, size_t errlen);

/* Closes and removes the temporary (a run that failed before the file was complete). */
void tbr_out_file_discard(tbr_out_file *o);

/* Flushes and closes standard output: 0, or -1 with "PROGRAM: standard output: REASON"
 * printed on stderr (the caller exits 2). Call once, at the end. */
int tbr_stdout_close(const char *program);

#ifdef __cplusplus
}
#endif

#endif
