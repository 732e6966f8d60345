#!/bin/sh
# usage: param_walk.sh MESA_PREFIX TRACES_DIR BIN_DIR WORK SRC_DIR
# The parameter walk (param_walk.py) on the casual2d sample, replayed here with the
# instrumented Mesa: every key of tbr-sim's table acts, is rejected as not modeled yet, or
# is on param_walk_expect.txt with its reason.
set -u
prefix=$1 traces=$2 bin=$3 work=$4 src=$5
fail() { echo "FAIL param_walk: $*" >&2; exit 1; }
[ -n "$prefix" ] || fail "TBR_MESA_PREFIX is empty"
rm -rf "$work"; mkdir -p "$work"
"$bin/tbr-replay" -q "$traces/casual2d.trace" -o "$work/casual2d.replay" > "$work/replay.log" 2>&1 ||
  fail "tbr-replay casual2d (log: $work/replay.log)"
exec python3 "$src/param_walk.py" "$bin/tbr-sim" "$work/casual2d.replay" "$src/param_walk_expect.txt" "$work/runs" -j 2
