#!/bin/sh
# usage: samples_e2e.sh MESA_PREFIX TRACES_DIR BIN_DIR WORK
# For every samples/traces/*.trace: tbr-replay -> tbr-sim -> tbr-compare (exit 0 = equal).
prefix=$1 traces=$2 bin=$3 work=$4
if [ -z "$prefix" ]; then
  echo "FAIL: TBR_MESA_PREFIX is empty: configure with -DTBR_MESA_PREFIX=\$(scripts/build-mesa --print-prefix)" >&2
  exit 1
fi
set -- "$traces"/*.trace
if [ ! -e "$1" ]; then echo "FAIL: no sample traces in $traces" >&2; exit 1; fi
rm -rf "$work"; mkdir -p "$work"
fail=0
for t in "$@"; do
  n=$(basename "$t" .trace)
  if ! "$bin/tbr-replay" "$t" -o "$work/$n.replay" > "$work/$n.replay.log" 2>&1; then
    echo "FAIL $n: tbr-replay failed (log: $work/$n.replay.log)" >&2; fail=1; continue
  fi
  "$bin/tbr-sim" "$work/$n.replay" -o "$work/$n.sim" --quiet; rc=$?
  if [ $rc -ne 0 ]; then echo "FAIL $n: tbr-sim exit $rc" >&2; fail=1; continue; fi
  grep -q '"total_cycles": [0-9]' "$work/$n.sim/stats.json" || { echo "FAIL $n: no total_cycles" >&2; fail=1; }
  # Early-Z tests each rasterized quad at most once (a quad waiting for its Fragment
  # Processor queue is not re-tested every cycle).
  ztested=$(awk '$1 == "quads.early_z_tested" {print $2; exit}' "$work/$n.sim/summary.txt")
  rasterized=$(awk '$1 == "quads.rasterized" {print $2; exit}' "$work/$n.sim/summary.txt")
  if [ -z "$ztested" ] || [ -z "$rasterized" ] || [ "$ztested" -gt "$rasterized" ]; then
    echo "FAIL $n: quads.early_z_tested=$ztested > quads.rasterized=$rasterized" >&2; fail=1
  fi
  if ! "$bin/tbr-compare" "$work/$n.replay/reference" "$work/$n.sim/frames" > "$work/$n.compare.log" 2>&1; then
    echo "FAIL $n: frames differ from the reference (log: $work/$n.compare.log)" >&2; fail=1; continue
  fi
  echo "ok $n: $(grep -c "bit-exact with the reference" "$work/$n.sim/summary.txt") frames bit-exact"
done
exit $fail
