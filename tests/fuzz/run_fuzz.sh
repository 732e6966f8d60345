#!/bin/sh
# Runs a fuzz target for a bounded time from its checked-in corpus (copied: the checked-in
# files are never changed). Usage: run_fuzz.sh FUZZER CORPUS_DIR WORKDIR SECONDS
# Fails (libFuzzer's non-zero exit) on a crash, sanitizer report, leak or timeout; the
# reproducer is left in WORKDIR/.
set -eu
fuzz=$1 corpus=$2 work=$3 secs=$4
rm -rf "$work"
mkdir -p "$work/corpus"
[ -d "$corpus" ] && [ -n "$(ls "$corpus")" ] || { echo "run_fuzz: no seeds in $corpus" >&2; exit 1; }
cp "$corpus"/* "$work/corpus/"
exec "$fuzz" -max_total_time="$secs" -rss_limit_mb=2048 -max_len=65536 -timeout=20 \
    -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus"
