/* Command-line helpers shared by the trace tools (tbr-dump, tbr-characterize):
 * usage errors (message on stderr, exit status 2), unsigned numbers and the
 * --frame=N|A-B range. */
#ifndef TBR_TOOL_ARGS_H
#define TBR_TOOL_ARGS_H

#include <stdint.h>

/* Prints "PROG: " FMT (with ARG) and "Try 'PROG --help'." to stderr, exits 2. */
void tbr_tool_bad_usage(const char *prog, const char *fmt, const char *arg);
/* Decimal unsigned 64-bit number (digits only, no sign or spaces): 0, or -1 if S is not one. */
int tbr_tool_parse_u64(const char *s, uint64_t *out);
/* A --frame value "N" or "A-B" (inclusive source frame numbers, A <= B) into
 * *LO..*HI; a bad value is a usage error (tbr_tool_bad_usage). */
void tbr_tool_parse_frames(const char *prog, const char *arg, uint64_t *lo, uint64_t *hi);
/* The usage error for getopt_long's result CH ':' (option without its value) or
 * '?' (unknown option), after getopt_long(ARGV) returned it. */
void tbr_tool_bad_option(const char *prog, char **argv, int ch);
/* The one TRACE operand after the options (argv[optind]); a missing or extra
 * operand is a usage error. */
const char *tbr_tool_trace_operand(const char *prog, int argc, char **argv);

#endif
