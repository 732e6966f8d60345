#!/usr/bin/env bash
# Test driver for the samples (tests/samples/CMakeLists.txt).
#   sample-test.sh run NAME BIN_DIR
#       the sample runs N frames and exits 0 (on whatever EGL is installed);
#       --help exits 0, a bad argument exits 2
#   sample-test.sh trace NAME SRC_DIR BIN_DIR MESA_PREFIX
#       samples/traces/NAME.trace has as many frames as NAME.md5 has lines (5), and
#       its frames replayed through the project's softpipe match NAME.md5
#   sample-test.sh determinism NAME SRC_DIR BIN_DIR MESA_PREFIX
#       two fresh tbr-capture captures of the sample give identical softpipe frames,
#       equal to the first frames of the checked-in NAME.md5
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
mode=${1:-}
name=${2:-}

need_prefix() {
  [ -n "$1" ] || fail "TBR_MESA_PREFIX is empty: configure with -DTBR_MESA_PREFIX=\$(scripts/build-mesa --print-prefix); the reference frames come from the project's softpipe, not from Debian's llvmpipe"
  [ -d "$1" ] || fail "TBR_MESA_PREFIX=$1 does not exist (run scripts/build-mesa)"
}
need_tool() { [ -x "$1" ] || fail "$1 not found (build target $(basename "$1"))"; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sample-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

case "$mode" in
run)
  bin=$3
  exe=$bin/tbr-sample-$name
  need_tool "$exe"
  "$exe" --help > "$tmp/help" || fail "--help exited $?"
  grep -q -- "--frames" "$tmp/help" || fail "--help does not describe --frames"
  rc=0; "$exe" --no-such-option 2>/dev/null || rc=$?
  [ "$rc" = 2 ] || fail "a bad argument exited $rc, expected 2"
  rc=0; timeout 120 "$exe" --frames 3 --verbose 2> "$tmp/err" || rc=$?
  cat "$tmp/err" >&2
  [ "$rc" = 0 ] || fail "tbr-sample-$name --frames 3 exited $rc"
  [ "$(grep -c 'frame [0-9]* done' "$tmp/err")" = 3 ] || fail "expected 3 frames reported"
  echo "PASS: tbr-sample-$name rendered 3 frames"
  ;;
trace)
  src=$3 bin=$4 prefix=${5:-}
  trace=$src/samples/traces/$name.trace
  sums=$src/samples/traces/$name.md5
  [ -r "$trace" ] || fail "$trace missing (samples/make-traces.sh)"
  [ -r "$sums" ] || fail "$sums missing (samples/make-traces.sh)"
  size=$(stat -c %s "$trace")
  [ "$size" -lt 1048576 ] || fail "$trace is $size bytes: keep sample traces under 1 MB"
  expected=$(grep -c . "$sums")
  [ "$expected" -ge 1 ] || fail "$sums is empty"
  frames=$(apitrace info "$trace" | sed -n 's/.*"FramesCount": *\([0-9]*\).*/\1/p')
  [ "$frames" = "$expected" ] || fail "$trace has $frames frames (apitrace info) but $sums lists $expected"
  swaps=$(apitrace dump --grep='^eglSwapBuffers' "$trace" | grep -c '^[0-9]* eglSwapBuffers' || true)
  [ "$swaps" = "$expected" ] || fail "$trace has $swaps eglSwapBuffers calls, expected $expected"
  need_prefix "$prefix"
  need_tool "$bin/tbr-compare"
  "$src/samples/softpipe-frames.sh" "$prefix" "$trace" "$tmp/frames"
  got=$(ls "$tmp/frames" | grep -c '^frame_.*\.png$')
  [ "$got" = "$expected" ] || fail "softpipe replay gave $got frames, expected $expected"
  "$bin/tbr-compare" --check-sums "$sums" "$tmp/frames" || fail "softpipe frames of $name.trace differ from $name.md5"
  echo "PASS: $name.trace: $frames frames match $name.md5 on softpipe"
  ;;
determinism)
  src=$3 bin=$4 prefix=${5:-}
  frames=3
  need_prefix "$prefix"
  need_tool "$bin/tbr-capture"
  need_tool "$bin/tbr-compare"
  need_tool "$bin/tbr-sample-$name"
  for i in 1 2; do
    "$bin/tbr-capture" --platform surfaceless --frames $frames --no-validate -o "$tmp/c$i.trace" \
      -- "$bin/tbr-sample-$name" --frames $frames || fail "capture $i exited $?"
    "$src/samples/softpipe-frames.sh" "$prefix" "$tmp/c$i.trace" "$tmp/f$i"
    "$bin/tbr-compare" --checksum "$tmp/f$i"/frame_*.png > "$tmp/sums$i"
    [ "$(grep -c . "$tmp/sums$i")" = $frames ] || fail "capture $i did not give $frames frames"
  done
  diff "$tmp/sums1" "$tmp/sums2" || fail "two captures of $name give different reference frames"
  head -n $frames "$src/samples/traces/$name.md5" | diff - "$tmp/sums1" ||
    fail "a fresh capture of $name differs from samples/traces/$name.md5 (sample changed? rerun samples/make-traces.sh)"
  echo "PASS: two captures of $name give identical frames, equal to the checked-in reference"
  ;;
*)
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
  ;;
esac
