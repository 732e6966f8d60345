/* CRC32 and its combine algebra (see crc32.h; RE paper sec. III-D, III-F). */
#include "core/crc32.h"

#include <stdbool.h>

#define POLY 0xEDB88320u

static uint32_t g_lut[8][256]; /* g_lut[0]: byte table; g_lut[k]: byte followed by k zero bytes */
static bool g_init;            /* the tables are constants, built on first use (tbr-sim is single-threaded) */

static void init_tables(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
        g_lut[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int k = 1; k < 8; k++) g_lut[k][i] = (g_lut[k - 1][i] >> 8) ^ g_lut[0][g_lut[k - 1][i] & 0xff];
    g_init = true;
}

uint32_t tbr_crc32(uint32_t crc, const void *buf, size_t len)
{
    if (!g_init) init_tables();
    const uint8_t *p = buf;
    uint32_t c = ~crc;
    for (size_t i = 0; i < len; i++) c = (c >> 8) ^ g_lut[0][(c ^ p[i]) & 0xff];
    return ~c;
}

uint32_t tbr_crc32_sign64(const uint8_t b[8])
{
    if (!g_init) init_tables();
    /* Slicing-by-8: each byte indexes its own LUT, results XORed (RE Fig. 10). */
    uint32_t lo = ~0u ^ ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
    uint32_t c = g_lut[7][lo & 0xff] ^ g_lut[6][(lo >> 8) & 0xff] ^ g_lut[5][(lo >> 16) & 0xff] ^ g_lut[4][lo >> 24] ^
                 g_lut[3][b[4]] ^ g_lut[2][b[5]] ^ g_lut[1][b[6]] ^ g_lut[0][b[7]];
    return ~c;
}

/* a * b mod P in the reflected bit order (bit 31 = x^0). */
static uint32_t multmodp(uint32_t a, uint32_t b)
{
    uint32_t m = 1u << 31, p = 0;
    for (;;) {
        if (a & m) {
            p ^= b;
            if ((a & (m - 1)) == 0) break;
        }
        m >>= 1;
        b = b & 1 ? (b >> 1) ^ POLY : b >> 1;
    }
    return p;
}

/* x^(8n) mod P by square-and-multiply over the bits of n. */
static uint32_t xpow8n(uint64_t n)
{
    uint32_t r = 1u << 31;  /* x^0 */
    uint32_t sq = 1u << 23; /* x^8 */
    while (n) {
        if (n & 1) r = multmodp(sq, r);
        sq = multmodp(sq, sq);
        n >>= 1;
    }
    return r;
}

uint32_t tbr_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
    return multmodp(xpow8n(len_b), crc_a) ^ crc_b;
}

uint32_t tbr_crc32_shift64(uint32_t crc)
{
    static uint32_t x64;
    if (!x64) x64 = xpow8n(8);
    return multmodp(x64, crc);
}

uint32_t tbr_crc32_blocks64(const void *buf, size_t len)
{
    const uint8_t *p = buf;
    uint32_t out = 0;
    for (size_t i = 0; i + 8 <= len; i += 8) out = tbr_crc32_shift64(out) ^ tbr_crc32_sign64(p + i);
    return out;
}

uint32_t tbr_crc32_accumulate64(uint32_t crc, uint64_t nsubblocks)
{
    for (uint64_t k = 0; k < nsubblocks; k++) crc = tbr_crc32_shift64(crc);
    return crc;
}

uint32_t tbr_crc32_op_identity(void) { return 1u << 31; /* x^0 in the reflected order */ }

uint32_t tbr_crc32_combine_op(uint32_t crc_a, uint32_t crc_b, uint32_t op) { return multmodp(op, crc_a) ^ crc_b; }
