/* libFuzzer target: record decoding of a whole frame, every record type (issue 22). Each
 * record of the input (fuzz_input.h) is decoded by the record table as every reader does,
 * printed as tbr-dump -v prints it, and its draw sequence read as tbr-dump --draw does.
 * Any crash, sanitizer report, leak or hang is a bug.
 * One decoder serves every input, as one serves a whole trace in tbr-dump and tbr-sim: a
 * new one per input spent a third of the time faulting in its freshly allocated item
 * arrays (issue 22). What it keeps between inputs is only scratch room: every decode
 * starts from the record's payload, and items are written before they are read (ASan
 * would see reads past them no better in a fresh decoder, whose arrays are zeroed ahead). */
#include <stdint.h>
#include <stdio.h>

#include "fuzz_input.h"
#include "tbr/record_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    static tbr_rec_decoder *dec;
    if (!sink) sink = fopen("/dev/null", "w");
    if (!dec) dec = tbr_rec_decoder_new(TBR_REC_MASK_ALL);
    if (!dec || !sink) return 0;
    size_t pos = 0, len;
    uint16_t type;
    const uint8_t *p;
    while (fuzz_next_record(data, size, &pos, &type, &p, &len)) {
        const tbr_rec_decoded *d;
        int rc = tbr_rec_decode(dec, type, p, len, &d);
        char msg[128];
        if (rc < 0) tbr_rec_decode_error_text(d, msg, sizeof msg);
        tbr_rec_print(sink, d, 1);
        (void)tbr_rec_items(d);
        uint32_t seq;
        (void)tbr_rec_draw_seq(type, p, len, &seq);
    }
    return 0;
}
