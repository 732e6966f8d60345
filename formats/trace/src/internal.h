/* On-disk layout constants and little-endian helpers shared by writer and
 * reader. The layout is documented in docs/trace-container.md; keep in sync. */
#ifndef TBR_TRACE_INTERNAL_H
#define TBR_TRACE_INTERNAL_H

#include "tbr/trace.h"

#include <stdint.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#define TBR_FILE_MAGIC        "TBRTRACE"
#define TBR_FILE_HEADER_SIZE  24u /* magic8 major2 minor2 flags4 meta_len4 crc4 */
#define TBR_CHUNK_MAGIC       "TBRC"
#define TBR_CHUNK_HEADER_SIZE 40u /* magic4 flags4 frame8 seq4 nrec4 usize4 csize4 dcrc4 hcrc4 */
#define TBR_CHUNK_FRAME_END   1u  /* chunk flag: last chunk of its frame */
#define TBR_INDEX_MAGIC       "TBRINDEX"
#define TBR_INDEX_HEADER_SIZE 8u
#define TBR_INDEX_ENTRY_SIZE  48u /* frame8 off8 nchunks4 rsvd4 nrec8 cbytes8 ubytes8 */
#define TBR_FOOTER_MAGIC      "TBRFOOTR"
#define TBR_FOOTER_SIZE       40u /* index_off8 nframes8 nrec8 index_crc4 crc4 magic8 */

/* Record header inside chunk data: uvarint type (<= 3 bytes) + uvarint length
 * (<= 4 bytes for 64 MiB). */
#define TBR_RECORD_HEADER_MAX 13u
/* Largest chunk content the writer can produce (one maximal record), hence the
 * largest a reader will ever allocate for. */
#define TBR_MAX_CHUNK_USIZE                                                                                            \
    (TBR_TRACE_MAX_RECORD_SIZE + TBR_RECORD_HEADER_MAX > TBR_TRACE_MAX_CHUNK_SIZE                                      \
         ? TBR_TRACE_MAX_RECORD_SIZE + TBR_RECORD_HEADER_MAX                                                           \
         : TBR_TRACE_MAX_CHUNK_SIZE)

static inline void tbr_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void tbr_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void tbr_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t tbr_rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t tbr_rd32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}
static inline uint64_t tbr_rd64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* CRC-32 (zlib polynomial), chainable: start with crc = 0. zlib takes uInt
 * lengths, so feed large buffers in slices. */
static inline uint32_t tbr_crc32(uint32_t crc, const void *p, size_t n)
{
    const Bytef *b = p;
    uLong c = crc;
    while (n) {
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, b, k);
        b += k;
        n -= k;
    }
    return (uint32_t)c;
}

/* Checksum comparison. Fuzz builds (TBR_TRACE_FUZZING) can switch checks
 * off at run time so the fuzzer reaches the parsing logic behind the CRCs
 * instead of being stopped by them on nearly every mutation. */
#ifdef TBR_TRACE_FUZZING
extern int tbr_trace_fuzz_ignore_crc;
#define TBR_CRC_BAD(computed, stored) ((computed) != (stored) && !tbr_trace_fuzz_ignore_crc)
#else
#define TBR_CRC_BAD(computed, stored) ((computed) != (stored))
#endif

#endif
