/* libFuzzer target for the trace reader: open the input in normal and in
 * recovery mode, walk every frame and record, seek around, and decode each
 * payload with the cursor. Any crash, sanitizer report or leak is a bug. */
#include "tbr/trace.h"

#include <stdint.h>
#include <string.h>

static void drain(tbr_trace_reader *r)
{
    uint16_t type;
    const uint8_t *p;
    size_t len;
    int rc;
    while ((rc = tbr_trace_reader_next_record(r, &type, &p, &len)) > 0) {
        /* touch every payload byte (ASan checks the pointer/length) and run
         * the cursor over it as a schema decoder would */
        tbr_cursor c;
        tbr_cursor_init(&c, p, len);
        unsigned acc = 0;
        while (tbr_cursor_remaining(&c)) {
            switch ((type + c.pos) % 6) {
                case 0: acc += (unsigned)tbr_cursor_uvarint(&c); break;
                case 1: acc += (unsigned)tbr_cursor_svarint32(&c); break;
                case 2: acc += tbr_cursor_u16(&c); break;
                case 3: {
                    float f = tbr_cursor_f32(&c); /* bits, not value: no float->int UB */
                    uint32_t u;
                    memcpy(&u, &f, 4);
                    acc += u;
                    break;
                }
                case 4: {
                    size_t n;
                    const uint8_t *s = tbr_cursor_lbytes(&c, &n);
                    if (s && n) acc += s[n - 1];
                    break;
                }
                default: acc += tbr_cursor_u8(&c); break;
            }
        }
        if (acc == 0xdeadbeef && len > 3) tbr_trace_reader_fail(r, "unlikely %u", acc);
    }
}

static void exercise(const uint8_t *data, size_t size, unsigned flags)
{
    tbr_trace_reader_options o = {flags};
    tbr_trace_error e;
    tbr_trace_reader *r = tbr_trace_reader_open_mem(data, size, "fuzz", &o, &e);
    if (!r) return;
    tbr_trace_file_info fi;
    tbr_trace_reader_file_info(r, &fi);
    size_t ml;
    (void)tbr_trace_reader_metadata(r, &ml);
    (void)tbr_trace_reader_metadata_get(r, "source", &ml);
    tbr_trace_frame_info info;
    while (tbr_trace_reader_next_frame(r, &info) > 0) drain(r);
    size_t n = tbr_trace_reader_frame_count(r);
    if (n) {
        tbr_trace_reader_seek_frame(r, n - 1);
        drain(r);
        if (tbr_trace_reader_frame_info(r, n / 2, &info) == 0 &&
            tbr_trace_reader_seek_frame_number(r, info.number) == 0)
            drain(r);
    }
    tbr_trace_reader_close(r);
}

/* Defined by the library when built with -DTBR_TRACE_FUZZING. */
extern int tbr_trace_fuzz_ignore_crc;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* With checksums: the real-world path. */
    tbr_trace_fuzz_ignore_crc = 0;
    exercise(data, size, 0);
    exercise(data, size, TBR_TRACE_READ_RECOVER);
    /* Without: lets mutations reach the size/count/record validation that
     * the CRCs would otherwise shield from the fuzzer. */
    tbr_trace_fuzz_ignore_crc = 1;
    exercise(data, size, 0);
    exercise(data, size, TBR_TRACE_READ_RECOVER);
    return 0;
}
