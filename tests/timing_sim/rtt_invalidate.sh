#!/bin/sh
# usage: rtt_invalidate.sh MESA_PREFIX TRACES_DIR BIN_DIR WORK
# The rtt sample invalidates its FBO's depth after pass 1 (glInvalidateFramebuffer of
# GL_DEPTH_ATTACHMENT, a 160x120 DEPTH_COMPONENT16 renderbuffer). Replayed with this build's
# Mesa (patch 0008), the trace holds one INVALIDATE per frame naming the pass's depth
# buffer, and tbr-sim (depth.store=auto) stores none of it, every frame bit-exact. By hand:
# 160 x 120 px x 2 B = 38,400 B = 600 lines of 64 B per frame (a 32-px tile row of Z16 is one
# line) were stored before; now 0 lines, and 5 x 38,400 = 192,000 B counted as skipped by
# invalidation. depth.store=always ignores invalidation and stores every bound depth buffer,
# the window's 320x240 Z24S8 too (1,280 B = 20 lines per row, 4,800 lines per frame):
# 5 x (600 + 4,800) = 27,000 lines.
prefix=$1 traces=$2 bin=$3 work=$4
if [ -z "$prefix" ]; then echo "FAIL: TBR_MESA_PREFIX is empty" >&2; exit 1; fi
rm -rf "$work"; mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
stat_of() { awk -v k="$1" '$1 == k {print $2; exit}' "$2/summary.txt"; }
"$bin/tbr-replay" "$traces/rtt.trace" -o "$work/rtt.replay" > "$work/replay.log" 2>&1 ||
  fail "tbr-replay failed (log: $work/replay.log)"
grep -q '^invalidations=5$' "$work/rtt.replay/functional-status.txt" ||
  fail "functional-status.txt: $(grep '^invalidations' "$work/rtt.replay/functional-status.txt") (want 5)"
"$bin/tbr-dump" -t invalidate "$work/rtt.replay" > "$work/dump.txt" 2>&1 || fail "tbr-dump failed"
n=$(grep -c 'INVALIDATE resource=[0-9]* buffers=0x1 depth$' "$work/dump.txt")
[ "$n" = 5 ] || fail "$n INVALIDATE records of the pass's depth buffer (want 5; $work/dump.txt)"
"$bin/tbr-sim" "$work/rtt.replay" -o "$work/auto" --quiet || fail "tbr-sim exit $? (1: a frame differs)"
z=$(stat_of tiles.depth_store_lines "$work/auto"); s=$(stat_of tiles.invalidated_store_bytes "$work/auto")
[ "$z" = 0 ] && [ "$s" = 192000 ] || fail "auto: depth store lines $z (want 0), skipped bytes $s (want 192000)"
"$bin/tbr-sim" "$work/rtt.replay" -o "$work/always" --quiet --set depth.store=always ||
  fail "tbr-sim depth.store=always exit $?"
z=$(stat_of tiles.depth_store_lines "$work/always"); s=$(stat_of tiles.invalidated_store_bytes "$work/always")
[ "$z" = 27000 ] && [ "$s" = 0 ] || fail "always: depth store lines $z (want 27000), skipped bytes $s (want 0)"
echo "ok rtt: 5 INVALIDATE records, depth store lines 0 (always: 27000), 192000 B skipped, 5 frames bit-exact"
