/*
 * tbr/file_input.h - opening an input file the way every executable does (issue 22): only
 * a regular file is read. A FIFO, a directory or a device given as input is refused with a
 * message instead of blocking forever (a FIFO without a writer) or failing later with a
 * vague "read error" (a directory). The check does not block: the file is opened
 * non-blocking, checked, then read normally.
 */
#ifndef TBR_FILE_INPUT_H
#define TBR_FILE_INPUT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens PATH for reading (binary) if it is a regular file: the stream, or NULL with the
 * reason in err ("cannot open: No such file or directory", "not a regular file (a FIFO)");
 * the caller prefixes the path. */
FILE *tbr_fopen_input(const char *path, char *err, size_t errlen);
/* The same for a file descriptor (O_RDONLY | O_CLOEXEC): the descriptor, or -1. */
int tbr_open_input(const char *path, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* TBR_FILE_INPUT_H */
