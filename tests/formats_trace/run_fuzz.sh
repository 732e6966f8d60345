#!/bin/sh
# Runs the trace-reader fuzzer for a bounded time from freshly generated
# seeds. Usage: run_fuzz.sh SEED_GENERATOR FUZZER WORKDIR SECONDS
set -eu
gen=$1 fuzz=$2 work=$3 secs=$4
rm -rf "$work"
mkdir -p "$work/seeds" "$work/corpus"
"$gen" --write-seeds "$work/seeds"
# Crash reproducers (if any) are written to $work/ for inspection.
exec "$fuzz" -max_total_time="$secs" -rss_limit_mb=1024 -max_len=16384 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "$work/seeds"
