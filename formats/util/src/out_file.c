/* Output files written whole or not at all: see tbr/out_file.h. */
#include "tbr/out_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int tbr_out_file_open(tbr_out_file *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    if (strlen(path) >= sizeof o->path) {
        snprintf(err, errlen, "%s: path too long", path);
        return -1;
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp", path);
    o->f = fopen(o->tmp, "w");
    if (!o->f) {
        snprintf(err, errlen, "%s: cannot create: %s", o->tmp, strerror(errno));
        return -1;
    }
    return 0;
}

/* Flushes and closes F: 0, or the errno of the first failure. A write that failed earlier
 * (the stream's error flag) is retried by the flush, whose errno names the reason. */
static int close_checked(FILE *f)
{
    int had_error = ferror(f);
    errno = 0;
    int e = fflush(f) != 0 ? errno : 0;
    if (!e && had_error) e = errno ? errno : EIO;
    if (fclose(f) != 0 && !e) e = errno ? errno : EIO;
    return e;
}

int tbr_out_file_commit(tbr_out_file *o, char *err, size_t errlen)
{
    if (!o->f) {
        snprintf(err, errlen, "%s: not open", o->path);
        return -1;
    }
    int e = close_checked(o->f);
    o->f = NULL;
    if (e) {
        snprintf(err, errlen, "%s: cannot write: %s", o->path, strerror(e));
        unlink(o->tmp);
        return -1;
    }
    if (rename(o->tmp, o->path) != 0) {
        snprintf(err, errlen, "%s: cannot rename %s into place: %s", o->path, o->tmp, strerror(errno));
        unlink(o->tmp);
        return -1;
    }
    return 0;
}

void tbr_out_file_discard(tbr_out_file *o)
{
    if (!o->f) return;
    fclose(o->f);
    o->f = NULL;
    unlink(o->tmp);
}

int tbr_stdout_close(const char *program)
{
    int e = close_checked(stdout);
    if (!e) return 0;
    fprintf(stderr, "%s: standard output: %s\n", program, strerror(e));
    return -1;
}
