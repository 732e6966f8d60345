#!/bin/sh
# usage: old_minor.sh MESA_PREFIX TRACES_DIR BIN_DIR RECORDS_DOWNGRADE WORK
# A trace in the layouts of records minor 10 (PRIM with det, QUADS interleaved) or minor 11
# (every QUADS depth stored) still reads to the same results (records minors 11 and 12,
# docs/trace-records.md): per sample, replay, rewrite the trace's PRIM and QUADS records as
# minor 10 and minor 11 wrote them, then tbr-sim on all three: frames bit-exact and
# stats.json byte-identical (minor 10: but for its note that it has no INVALIDATE).
prefix=$1 traces=$2 bin=$3 downgrade=$4 work=$5
if [ -z "$prefix" ]; then echo "FAIL: TBR_MESA_PREFIX is empty" >&2; exit 1; fi
rm -rf "$work"; mkdir -p "$work"
fail=0
for n in depth3d blend; do
  if ! "$bin/tbr-replay" "$traces/$n.trace" -o "$work/$n.new" -q > "$work/$n.replay.log" 2>&1; then
    echo "FAIL $n: tbr-replay failed (log: $work/$n.replay.log)" >&2; fail=1; continue
  fi
  cp -r "$work/$n.new" "$work/$n.old"
  rm "$work/$n.old/activity.tbrt"
  if ! "$downgrade" "$work/$n.new/activity.tbrt" "$work/$n.old/activity.tbrt"; then
    echo "FAIL $n: records_downgrade found nothing to rewrite or failed" >&2; fail=1; continue
  fi
  cp -r "$work/$n.new" "$work/$n.v11"
  rm "$work/$n.v11/activity.tbrt"
  if ! "$downgrade" --minor 11 "$work/$n.new/activity.tbrt" "$work/$n.v11/activity.tbrt"; then
    echo "FAIL $n: records_downgrade --minor 11 found no derived depths to rewrite or failed" >&2; fail=1; continue
  fi
  for v in new v11 old; do
    if ! "$bin/tbr-sim" "$work/$n.$v" -o "$work/$n.$v.sim" --quiet; then
      echo "FAIL $n: tbr-sim on the $v layouts failed" >&2; fail=1
    fi
  done
  # Minor 11 also brought INVALIDATE records: a minor-10 trace cannot hold them, so tbr-sim
  # names that in its not-modeled list; every other line of stats.json must be the same.
  if ! grep -q '"not_modeled":.*render-target invalidation.*not in this trace' "$work/$n.old.sim/stats.json"; then
    echo "FAIL $n: the minor-10 run does not say invalidation is not in its trace" >&2; fail=1; continue
  fi
  if ! cmp -s "$work/$n.new.sim/stats.json" "$work/$n.v11.sim/stats.json"; then
    echo "FAIL $n: stats.json differs between the minor-12 and minor-11 layouts" >&2; fail=1; continue
  fi
  for v in new old; do
    grep -v '^"not_modeled":' "$work/$n.$v.sim/stats.json" > "$work/$n.$v.stats-rest"
  done
  if ! cmp -s "$work/$n.new.stats-rest" "$work/$n.old.stats-rest"; then
    echo "FAIL $n: stats.json differs between the minor-12 and minor-10 layouts" >&2; fail=1; continue
  fi
  echo "ok $n: minor-10 and minor-11 layouts read to the same frames and stats.json"
done
exit $fail
