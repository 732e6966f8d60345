/* CRC32 (IEEE 802.3, reflected polynomial 0xEDB88320, init and final XOR 0xFFFFFFFF:
 * the same value as zlib's crc32()) and the CRC algebra Rendering Elimination builds its
 * tile signatures with (RE paper sec. III-D/F, Algorithms 1-3):
 *   crc(A || B) = shift(crc(A), |B|) XOR crc(B)
 * where shift() = multiplication by x^(8|B|) modulo the polynomial ("left-shift the
 * previous CRC by |B| zero bytes and re-sign it"). Own implementation; the tests compare
 * with zlib's crc32 / crc32_combine. */
#ifndef TBR_CRC32_H
#define TBR_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* zlib-compatible: crc = tbr_crc32(0, buf, len) continues as tbr_crc32(crc, more, n). */
uint32_t tbr_crc32(uint32_t crc, const void *buf, size_t len);
/* CRC32 of exactly 8 bytes with eight 256-entry LUTs (RE Fig. 10 Sign subunit). */
uint32_t tbr_crc32_sign64(const uint8_t b[8]);
/* crc(A||B) from crc(A), crc(B) and |B| in bytes (zlib crc32_combine semantics). */
uint32_t tbr_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);
/* The Shift subunit: crc(A || 8 zero bytes) XOR crc(8 zero bytes), i.e. crc * x^64 mod P. */
uint32_t tbr_crc32_shift64(uint32_t crc);
/* Algorithm 2 (Compute CRC unit): CRC of a block of len bytes (a multiple of 8) processed
 * in 64-bit subblocks: out = shift64(out) ^ sign64(subblock). Equals tbr_crc32(0, ...). */
uint32_t tbr_crc32_blocks64(const void *buf, size_t len);
/* Algorithm 3 (Accumulate CRC unit): shift crc by n 64-bit zero subblocks, one Shift
 * step per subblock. accumulate(prev, n) ^ crc(B) = crc(prev-message || B), |B| = 8n. */
uint32_t tbr_crc32_accumulate64(uint32_t crc, uint64_t nsubblocks);
/* The shift operator x^(64 n) mod P of n 64-bit subblocks (zlib crc32_combine_gen(8 n)),
 * built one Shift step per subblock as the Compute CRC unit signs the block:
 * op(0) = x^0, op(k+1) = tbr_crc32_shift64(op(k)). */
uint32_t tbr_crc32_op_identity(void);
/* crc(A||B) = crc_a * op ^ crc_b with op = x^(8|B|) mod P: one GF(2) multiplication
 * (zlib crc32_combine_op). */
uint32_t tbr_crc32_combine_op(uint32_t crc_a, uint32_t crc_b, uint32_t op);

#endif
