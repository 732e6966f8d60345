#!/usr/bin/env bash
# tbr-replay --fast-forward cut (issue 24) replays a late window from a gltrim cut of the
# trace: on a program that clears its render targets every frame (the rtt sample) its
# reference PNGs must be the ones the default full replay writes, pixel for pixel and
# alpha included, and tbr-sim must find the cut replay's frames bit-exact. Also: the
# default is the full replay, and its fast-forward progress line. (A program that does
# not clear loses what earlier frames left under a cut: docs/verification.md.)
# usage: replay_cut.sh BIN_DIR MESA_PREFIX TRACE WORK
set -uo pipefail
bin="$1"; mesa="$2"; trace="$3"; work="$4"
fail() { echo "FAIL: $*"; exit 1; }
[ -n "$mesa" ] || fail "TBR_MESA_PREFIX is empty: build with scripts/test"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
"$bin/tbr-replay" "$trace" -o full --frames 3-4 > full.log 2>&1 || { cat full.log; fail "full replay"; }
"$bin/tbr-replay" "$trace" -o cut --frames 3-4 --fast-forward cut > cut.log 2>&1 || { cat cut.log; fail "cut replay"; }
grep -q '"fast_forward": "replay"' full/replay.json || fail "the default is not the full replay (full/replay.json)"
grep -q '"fast_forward": "cut"' cut/replay.json || { cat cut.log; fail "cut/replay.json does not say fast_forward cut"; }
[ ! -e cut/window.trace ] || fail "the cut trace was left in the output"
for f in frame_00003.png frame_00004.png; do
  [ -f "cut/reference/$f" ] || fail "cut: $f missing (frames must keep the source's numbers)"
done
"$bin/tbr-compare" full/reference cut/reference > compare.log 2>&1 || { cat compare.log; fail "cut and full references differ"; }
"$bin/tbr-compare" --checksum full/reference > full.md5 && "$bin/tbr-compare" --check-sums full.md5 cut/reference > sums.log 2>&1 \
  || { cat sums.log; fail "pixel checksums differ"; }
"$bin/tbr-sim" cut -o cut.sim -q || fail "tbr-sim on the cut replay: frames not bit-exact"
grep -q 'fast-forward: frame' full.log || { cat full.log; fail "no fast-forward progress line"; }
echo "PASS: frames 3-4 of a cut replay identical to a full replay's, bit-exact in tbr-sim"
