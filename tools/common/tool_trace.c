/* Trace-reading helpers of the trace tools: see tool_trace.h. */
#include "tool_trace.h"

#include "tbr/records.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

tbr_trace_reader *tbr_tool_open_trace(const char *prog, const char *path)
{
    /* a tbr-replay output directory stands for its activity trace, as in tbr-sim */
    struct stat st;
    char inside[4096];
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        if ((size_t)snprintf(inside, sizeof inside, "%s/activity.tbrt", path) >= sizeof inside) {
            fprintf(stderr, "%s: %s: path too long\n", prog, path);
            return NULL;
        }
        path = inside;
    }
    tbr_trace_error err;
    tbr_trace_reader *r = tbr_trace_reader_open(path, &err);
    if (!r) fprintf(stderr, "%s: %s\n", prog, err.msg);
    return r;
}

int tbr_tool_records_schema_ok(tbr_trace_reader *r, const char *prog, const char *path, int undecoded)
{
    size_t slen;
    const char *schema = tbr_trace_reader_metadata_get(r, "records_schema", &slen);
    char want[16];
    snprintf(want, sizeof want, "%d", TBR_RECORDS_SCHEMA_VERSION);
    if (schema && slen == strlen(want) && memcmp(schema, want, slen) == 0) return 1;
    if (undecoded)
        fprintf(stderr,
                "%s: warning: %s: records_schema is %.*s, this tool knows schema %s; records are "
                "shown undecoded\n",
                prog, path, schema ? (int)slen : 9, schema ? schema : "(missing)", want);
    else
        fprintf(stderr, "%s: %s: records_schema is %.*s, this tool reads schema %s only\n", prog, path,
                schema ? (int)slen : 9, schema ? schema : "(missing)", want);
    return 0;
}

void tbr_tool_frames_init(tbr_tool_frames *it, const tbr_trace_reader *r, int have_frames, uint64_t lo, uint64_t hi)
{
    it->r = r;
    it->next = 0;
    it->count = tbr_trace_reader_frame_count(r);
    it->have_frames = have_frames;
    it->lo = lo;
    it->hi = hi;
}

int tbr_tool_frames_next(tbr_tool_frames *it, size_t *index, tbr_trace_frame_info *fi)
{
    while (it->next < it->count) {
        size_t i = it->next;
        if (tbr_trace_reader_frame_info(it->r, i, fi) < 0) {
            it->next = it->count;
            return 0;
        }
        it->next = i + 1;
        if (!it->have_frames || (fi->number >= it->lo && fi->number <= it->hi)) {
            *index = i;
            return 1;
        }
    }
    return 0;
}

void tbr_tool_warn_no_frames(const char *prog, uint64_t lo, uint64_t hi)
{
    fprintf(stderr, "%s: warning: no frame in range %" PRIu64 "-%" PRIu64 "\n", prog, lo, hi);
}

void tbr_tool_fail_malformed(tbr_trace_reader *r, uint16_t type, size_t len)
{
    const char *nm = tbr_rec_type_name(type);
    tbr_trace_reader_fail(r, "malformed %s record (%zu bytes)", nm ? nm : "?", len);
}

int tbr_tool_flush_stdout(const char *prog)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: write error on standard output\n", prog);
        return -1;
    }
    return 0;
}
