/* Command-line helpers of the trace tools: see tool_args.h. */
#include "tool_args.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tbr/frame_range.h"

void tbr_tool_bad_usage(const char *prog, const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '%s --help'.\n", prog);
    exit(2);
}

int tbr_tool_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) return -1;
    *out = v;
    return 0;
}

void tbr_tool_parse_frames(const char *prog, const char *arg, uint64_t *lo, uint64_t *hi)
{
    switch (tbr_frame_range_parse(arg, TBR_FRAMES_SINGLE, lo, hi)) {
        case TBR_FRAMES_OK: return;
        case TBR_FRAMES_BAD_START:
        case TBR_FRAMES_NOT_SINGLE: tbr_tool_bad_usage(prog, "bad --frame value '%s' (expected N or A-B)", arg); break;
        default: tbr_tool_bad_usage(prog, "bad --frame value '%s' (expected N or A-B with A <= B)", arg); break;
    }
}

void tbr_tool_bad_option(const char *prog, char **argv, int ch)
{
    if (ch == ':') tbr_tool_bad_usage(prog, "option '%s' needs a value", argv[optind - 1]);
    tbr_tool_bad_usage(prog, "unknown option '%s'", optopt ? (char[]){'-', (char)optopt, 0} : argv[optind - 1]);
}

const char *tbr_tool_trace_operand(const char *prog, int argc, char **argv)
{
    if (argc - optind != 1)
        tbr_tool_bad_usage(prog, "%s", argc - optind == 0 ? "missing TRACE argument" : "too many arguments");
    return argv[optind];
}
