/* The input format of the record fuzz targets (fuzz_records.c, fuzz_sim_frame.c): a frame's
 * records without the container, so that mutations reach the record decoders instead of the
 * container's checksums and compression: repeated {u8 type, uvarint length, payload}. A
 * truncated last record ends the input. Seeds are written by tbr-fuzz-seeds. */
#ifndef TBR_FUZZ_INPUT_H
#define TBR_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* A per-process scratch file for the targets whose code under test reads a file by name:
 * on /dev/shm when it exists, since writing and truncating a file on a disk file system
 * per input was most of fuzz_dram_requests' time (issue 22). */
static inline void fuzz_scratch_path(char *buf, size_t n, const char *name)
{
    struct stat st;
    const char *dir = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    snprintf(buf, n, "%s/tbr-fuzz-%ld-%s", dir, (long)getpid(), name);
}

/* The next record at *pos of data[size]: 1 (type, payload, len set, *pos advanced) or 0 at
 * the end. */
static inline int fuzz_next_record(const uint8_t *data, size_t size, size_t *pos, uint16_t *type,
                                   const uint8_t **payload, size_t *len)
{
    size_t p = *pos;
    if (p >= size) return 0;
    *type = data[p++];
    uint64_t n = 0;
    for (int shift = 0; p < size && shift < 35; shift += 7) {
        uint8_t b = data[p++];
        n |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
    }
    if (n > size - p) n = size - p;
    *payload = data + p;
    *len = (size_t)n;
    *pos = p + (size_t)n;
    return 1;
}

#endif
