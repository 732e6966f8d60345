/* tbr_buf / tbr_cursor encodings: round trips at edge values, exact byte
 * encodings, and overrun / malformed-input behaviour of the cursor. */
#include "common.h"

#include <math.h>

static void test_uvarint(void)
{
    static const uint64_t vals[] = {0,
                                    1,
                                    127,
                                    128,
                                    255,
                                    256,
                                    16383,
                                    16384,
                                    65535,
                                    65536,
                                    UINT32_MAX,
                                    (uint64_t)UINT32_MAX + 1,
                                    INT64_MAX,
                                    (uint64_t)INT64_MAX + 1,
                                    UINT64_MAX - 1,
                                    UINT64_MAX};
    static const size_t lens[] = {1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 5, 5, 9, 10, 10, 10};
    tbr_buf b;
    tbr_buf_init(&b);
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        size_t before = b.len;
        CHECK(tbr_buf_put_uvarint(&b, vals[i]) == 0, "put");
        CHECK(b.len - before == lens[i], "uvarint %llu: %zu bytes, want %zu", (unsigned long long)vals[i],
              b.len - before, lens[i]);
    }
    tbr_cursor c;
    tbr_cursor_init(&c, b.data, b.len);
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        uint64_t v = tbr_cursor_uvarint(&c);
        CHECK(v == vals[i], "uvarint round trip %llu -> %llu", (unsigned long long)vals[i], (unsigned long long)v);
    }
    CHECK(tbr_cursor_at_end(&c), "all consumed");

    /* exact bytes: 128 = 0x80 0x01, 300 = 0xac 0x02 */
    tbr_buf_reset(&b);
    tbr_buf_put_uvarint(&b, 128);
    tbr_buf_put_uvarint(&b, 300);
    CHECK(b.len == 4 && b.data[0] == 0x80 && b.data[1] == 0x01 && b.data[2] == 0xac && b.data[3] == 0x02,
          "LEB128 bytes");

    /* u32 variant: range check */
    tbr_buf_reset(&b);
    tbr_buf_put_uvarint(&b, UINT32_MAX);
    tbr_buf_put_uvarint(&b, (uint64_t)UINT32_MAX + 1);
    tbr_cursor_init(&c, b.data, b.len);
    CHECK(tbr_cursor_uvarint32(&c) == UINT32_MAX && tbr_cursor_ok(&c), "u32 max");
    CHECK(tbr_cursor_uvarint32(&c) == 0 && !tbr_cursor_ok(&c), "u32 overflow must fail");
    tbr_buf_free(&b);

    /* malformed: 11-byte varint, 10th byte with bits beyond 64, truncated */
    uint8_t over[11];
    memset(over, 0xff, sizeof over);
    tbr_cursor_init(&c, over, sizeof over);
    CHECK(tbr_cursor_uvarint(&c) == 0 && !tbr_cursor_ok(&c), "11-byte varint must fail");
    uint8_t big[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    tbr_cursor_init(&c, big, sizeof big);
    CHECK(tbr_cursor_uvarint(&c) == 0 && !tbr_cursor_ok(&c), "65-bit varint must fail");
    big[9] = 0x01;
    tbr_cursor_init(&c, big, sizeof big);
    CHECK(tbr_cursor_uvarint(&c) == UINT64_MAX && tbr_cursor_at_end(&c), "UINT64_MAX bytes");
    uint8_t trunc[2] = {0x80, 0x80};
    tbr_cursor_init(&c, trunc, sizeof trunc);
    CHECK(tbr_cursor_uvarint(&c) == 0 && !tbr_cursor_ok(&c), "truncated varint must fail");
    CHECK(c.pos == 0, "failed read must not advance");
}

static void test_svarint(void)
{
    static const int64_t vals[] = {0,
                                   -1,
                                   1,
                                   -64,
                                   63,
                                   -65,
                                   64,
                                   INT32_MIN,
                                   INT32_MAX,
                                   (int64_t)INT32_MIN - 1,
                                   (int64_t)INT32_MAX + 1,
                                   INT64_MIN,
                                   INT64_MAX,
                                   INT64_MIN + 1};
    CHECK(tbr_zigzag_encode(0) == 0 && tbr_zigzag_encode(-1) == 1 && tbr_zigzag_encode(1) == 2, "zigzag small");
    CHECK(tbr_zigzag_encode(INT64_MIN) == UINT64_MAX && tbr_zigzag_encode(INT64_MAX) == UINT64_MAX - 1,
          "zigzag extremes");
    tbr_buf b;
    tbr_buf_init(&b);
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        CHECK(tbr_zigzag_decode(tbr_zigzag_encode(vals[i])) == vals[i], "zigzag %lld", (long long)vals[i]);
        tbr_buf_put_svarint(&b, vals[i]);
    }
    CHECK(b.data[0] == 0 && b.data[1] == 1 && b.data[2] == 2, "svarint bytes");
    tbr_cursor c;
    tbr_cursor_init(&c, b.data, b.len);
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        int64_t v = tbr_cursor_svarint(&c);
        CHECK(v == vals[i], "svarint %lld -> %lld", (long long)vals[i], (long long)v);
    }
    CHECK(tbr_cursor_at_end(&c), "svarint all consumed");

    /* int32 range check */
    tbr_buf_reset(&b);
    tbr_buf_put_svarint(&b, INT32_MIN);
    tbr_buf_put_svarint(&b, INT32_MAX);
    tbr_buf_put_svarint(&b, (int64_t)INT32_MIN - 1);
    tbr_cursor_init(&c, b.data, b.len);
    CHECK(tbr_cursor_svarint32(&c) == INT32_MIN, "s32 min");
    CHECK(tbr_cursor_svarint32(&c) == INT32_MAX && tbr_cursor_ok(&c), "s32 max");
    CHECK(tbr_cursor_svarint32(&c) == 0 && !tbr_cursor_ok(&c), "s32 underflow must fail");
    tbr_buf_free(&b);
}

static void test_fixed_and_floats(void)
{
    tbr_buf b;
    tbr_buf_init(&b);
    tbr_buf_put_u8(&b, 0xab);
    tbr_buf_put_u16(&b, 0x1234);
    tbr_buf_put_u32(&b, 0xdeadbeef);
    tbr_buf_put_u64(&b, 0x0102030405060708ULL);
    static const uint8_t expect[] = {0xab, 0x34, 0x12, 0xef, 0xbe, 0xad, 0xde, 8, 7, 6, 5, 4, 3, 2, 1};
    CHECK(b.len == sizeof expect && memcmp(b.data, expect, sizeof expect) == 0, "little-endian fixed widths");
    tbr_buf_put_u64(&b, UINT64_MAX);

    /* floats by bit pattern: -0.0, NaNs with payloads, inf, denormals */
    static const uint32_t f32bits[] = {0x00000000, 0x80000000, 0x7fc00000, 0x7f800001, 0xffc12345,
                                       0x7f800000, 0xff800000, 0x00000001, 0x7f7fffff};
    static const uint64_t f64bits[] = {0,
                                       0x8000000000000000ULL,
                                       0x7ff8000000000000ULL,
                                       0x7ff0000000000001ULL,
                                       0xfff123456789abcdULL,
                                       0x7ff0000000000000ULL,
                                       0x0000000000000001ULL};
    for (size_t i = 0; i < sizeof f32bits / sizeof f32bits[0]; i++) {
        float f;
        memcpy(&f, &f32bits[i], 4);
        tbr_buf_put_f32(&b, f);
    }
    for (size_t i = 0; i < sizeof f64bits / sizeof f64bits[0]; i++) {
        double d;
        memcpy(&d, &f64bits[i], 8);
        tbr_buf_put_f64(&b, d);
    }
    tbr_buf_put_f32(&b, 1.5f);
    tbr_buf_put_f64(&b, -2.25);
    CHECK(tbr_buf_ok(&b), "buf ok");

    tbr_cursor c;
    tbr_cursor_init(&c, b.data, b.len);
    CHECK(tbr_cursor_u8(&c) == 0xab, "u8");
    CHECK(tbr_cursor_u16(&c) == 0x1234, "u16");
    CHECK(tbr_cursor_u32(&c) == 0xdeadbeef, "u32");
    CHECK(tbr_cursor_u64(&c) == 0x0102030405060708ULL, "u64");
    CHECK(tbr_cursor_u64(&c) == UINT64_MAX, "u64 max");
    for (size_t i = 0; i < sizeof f32bits / sizeof f32bits[0]; i++) {
        float f = tbr_cursor_f32(&c);
        uint32_t u;
        memcpy(&u, &f, 4);
        CHECK(u == f32bits[i], "f32 bits %08x -> %08x", f32bits[i], u);
    }
    for (size_t i = 0; i < sizeof f64bits / sizeof f64bits[0]; i++) {
        double d = tbr_cursor_f64(&c);
        uint64_t u;
        memcpy(&u, &d, 8);
        CHECK(u == f64bits[i], "f64 bits %016llx -> %016llx", (unsigned long long)f64bits[i], (unsigned long long)u);
    }
    CHECK(tbr_cursor_f32(&c) == 1.5f, "f32 value");
    double d = tbr_cursor_f64(&c);
    CHECK(d == -2.25 && signbit(d), "f64 value");
    CHECK(tbr_cursor_at_end(&c), "floats all consumed");
    tbr_buf_free(&b);
}

static void test_strings_and_overrun(void)
{
    tbr_buf b;
    tbr_buf_init(&b);
    tbr_buf_put_str(&b, "hello");
    tbr_buf_put_str(&b, "");
    tbr_buf_put_str(&b, NULL);
    tbr_buf_put_lbytes(&b, "\0\1\2", 3);
    tbr_buf_put_bytes(&b, "raw", 3);
    CHECK(b.len == 6 + 1 + 1 + 4 + 3, "string sizes: %zu", b.len);

    tbr_cursor c;
    size_t n;
    tbr_cursor_init(&c, b.data, b.len);
    const uint8_t *p = tbr_cursor_lbytes(&c, &n);
    CHECK(p && n == 5 && memcmp(p, "hello", 5) == 0, "str");
    p = tbr_cursor_lbytes(&c, &n);
    CHECK(p && n == 0, "empty str");
    p = tbr_cursor_lbytes(&c, &n);
    CHECK(p && n == 0, "NULL str");
    p = tbr_cursor_lbytes(&c, &n);
    CHECK(p && n == 3 && p[0] == 0 && p[2] == 2, "lbytes");
    CHECK(tbr_cursor_remaining(&c) == 3, "remaining");
    p = tbr_cursor_bytes(&c, 4);
    CHECK(!p && !tbr_cursor_ok(&c), "overrun must fail");
    /* sticky: later reads fail too and return zeros */
    CHECK(tbr_cursor_u8(&c) == 0 && tbr_cursor_bytes(&c, 0) == NULL, "sticky error");
    CHECK(tbr_cursor_remaining(&c) == 0 && !tbr_cursor_at_end(&c), "no at_end after error");

    /* length prefix larger than what is left */
    uint8_t bad[] = {10, 'a', 'b'};
    tbr_cursor_init(&c, bad, sizeof bad);
    p = tbr_cursor_lbytes(&c, &n);
    CHECK(!p && n == 0 && !tbr_cursor_ok(&c), "lbytes overrun");
    /* huge length must not wrap pos */
    uint8_t huge[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 'x'};
    tbr_cursor_init(&c, huge, sizeof huge);
    p = tbr_cursor_lbytes(&c, &n);
    CHECK(!p && !tbr_cursor_ok(&c), "lbytes UINT64_MAX length");

    /* fixed widths at the very end */
    uint8_t three[3] = {1, 2, 3};
    tbr_cursor_init(&c, three, 3);
    CHECK(tbr_cursor_u16(&c) == 0x0201, "u16 fits");
    CHECK(tbr_cursor_u16(&c) == 0 && !tbr_cursor_ok(&c), "u16 overrun");
    tbr_cursor_init(&c, three, 3);
    CHECK(tbr_cursor_u32(&c) == 0 && !tbr_cursor_ok(&c) && c.pos == 0, "u32 overrun");
    tbr_cursor_init(&c, three, 3);
    CHECK(tbr_cursor_f64(&c) == 0.0 && !tbr_cursor_ok(&c), "f64 overrun");

    /* empty cursor, NULL data */
    tbr_cursor_init(&c, NULL, 0);
    CHECK(tbr_cursor_at_end(&c), "empty at end");
    CHECK(tbr_cursor_bytes(&c, 0) != NULL && tbr_cursor_ok(&c), "zero-byte read ok");
    CHECK(tbr_cursor_uvarint(&c) == 0 && !tbr_cursor_ok(&c), "varint from empty");

    /* explicit failure by schema code */
    tbr_cursor_init(&c, three, 3);
    tbr_cursor_fail(&c);
    CHECK(!tbr_cursor_ok(&c) && tbr_cursor_u8(&c) == 0, "tbr_cursor_fail");

    /* buffer growth across many puts keeps content */
    tbr_buf_reset(&b);
    for (uint32_t i = 0; i < 100000; i++) tbr_buf_put_u32(&b, i);
    CHECK(tbr_buf_ok(&b) && b.len == 400000, "growth");
    tbr_cursor_init(&c, b.data, b.len);
    int ok = 1;
    for (uint32_t i = 0; i < 100000; i++) ok &= tbr_cursor_u32(&c) == i;
    CHECK(ok && tbr_cursor_at_end(&c), "growth content");
    /* reserve overflow sets the sticky flag instead of wrapping */
    CHECK(tbr_buf_reserve(&b, SIZE_MAX) < 0 && !tbr_buf_ok(&b), "reserve overflow");
    CHECK(tbr_buf_put_u8(&b, 1) < 0, "failed buf stays failed");
    tbr_buf_reset(&b);
    CHECK(tbr_buf_ok(&b) && tbr_buf_put_u8(&b, 1) == 0, "reset clears failure");
    tbr_buf_free(&b);
    CHECK(b.data == NULL && b.len == 0 && b.cap == 0, "free re-inits");
}

int main(void)
{
    test_uvarint();
    test_svarint();
    test_fixed_and_floats();
    test_strings_and_overrun();
    if (g_failures) {
        fprintf(stderr, "%d check(s) failed\n", g_failures);
        return 1;
    }
    printf("codec: all checks passed\n");
    return 0;
}
