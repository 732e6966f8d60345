/* Opening input files: regular files only (tbr/file_input.h). */
#include "tbr/file_input.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *file_kind(mode_t m)
{
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a plain file";
}

int tbr_open_input(const char *path, char *err, size_t errlen)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; it changes nothing for the
     * regular files that are then read */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) < 0) {
        snprintf(err, errlen, "cannot stat: %s", strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(err, errlen, "not a regular file (%s)", file_kind(sb.st_mode));
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

FILE *tbr_fopen_input(const char *path, char *err, size_t errlen)
{
    int fd = tbr_open_input(path, err, errlen);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        close(fd);
    }
    return f;
}
