#!/usr/bin/env bash
# functional.depth16: softpipe's 16-bit depth fast path (depth_interp_z16_*_write,
# tests/functional/app/known_depth16.c: an FBO with a GL_DEPTH_COMPONENT16
# renderbuffer, depth LESS / GREATER with writes, no blending). Capture, tbr-replay
# (no --allow-unsupported), reference PNGs = eglretrace -s, the trace's depth buffer is
# Z16_UNORM, per-frame counts re-derived from the trace = FRAME_END totals (checked by
# `check counts`) = the program's analytic counts, the occluded rectangle is
# rasterized but never shaded, and tbr-sim's frames are bit-exact.
#
# usage: depth16.sh MESA_PREFIX APP CHECK BIN_DIR WORKDIR
set -u
mesa="$1" app="$2" check="$3" bin="$4" work="$5"
. "$(dirname "$0")/common.sh"
functional_setup "$mesa" "$work" apitrace eglretrace

apitrace trace --api egl -o kd.trace "$app" > capture.log 2>&1 || { cat capture.log; fail "capture"; }
frames=$(apitrace info kd.trace | sed -n 's/.*"FramesCount": *\([0-9]*\).*/\1/p')
[ "$frames" = 2 ] || fail "apitrace frames '$frames', expected 2"
mkdir -p snap
eglretrace -s snap/ kd.trace > snap.log 2>&1 || { cat snap.log; fail "eglretrace -s"; }
mapfile -t snaps < <(ls snap/*.png | sort)

# --record-texels: the trace checker counts texels from TEXELS records
"$bin/tbr-replay" --record-texels kd.trace -o out > replay.log 2>&1 || { cat replay.log; fail "tbr-replay"; }
st=out/functional-status.txt
grep -qx 'status=ok' "$st" || { cat "$st"; fail "status"; }
grep -qx 'unsupported=' "$st" || fail "unsupported features hit"
for ((f = 0; f < 2; f++)); do
  "$check" pngeq "$(printf 'out/reference/frame_%05d.png' "$f")" "${snaps[$f]}" \
    || fail "frame $f: reference PNG differs from eglretrace -s"
done

# the fast path's precondition: the depth buffer is Z16_UNORM
"$bin/tbr-dump" -t resource out/activity.tbrt > resources.txt || fail "tbr-dump"
grep -q 'PIPE_FORMAT_Z16_UNORM' resources.txt || { cat resources.txt; fail "no Z16_UNORM depth buffer in the trace"; }

# counts: `check counts` fails if the records disagree with FRAME_END / DRAW_END
"$check" counts out/activity.tbrt > counts.txt || { cat counts.txt; fail "trace decode / FRAME_END mismatch"; }
"$app" --expect > expect.txt
bad=0
while IFS='=' read -r k v; do
  got=$(grep "^$k=" counts.txt | head -1 | cut -d= -f2)
  if [ "$got" != "$v" ]; then echo "MISMATCH $k: trace '$got', expected $v" >&2; bad=1
  else echo "ok $k=$v"; fi
done < expect.txt
[ $bad -eq 0 ] || { cat counts.txt; fail "counts differ"; }
# the occluded rectangle (draw 1 of each frame): quads recorded, none shaded
for ((f = 0; f < 2; f++)); do
  line=$("$bin/tbr-dump" -f "$f" -t draw_end out/activity.tbrt | grep 'DRAW_END seq=1 ')
  echo "$line" | grep -Eq ' quads=[1-9][0-9]* shaded_quads=0 ' || fail "frame $f: occluded draw: '$line'"
done

"$bin/tbr-sim" out -o sim --quiet > sim.log 2>&1 || { cat sim.log; fail "tbr-sim"; }
exact=$(grep -c 'bit-exact with the reference' sim/summary.txt)
[ "$exact" = 2 ] || { cat sim/summary.txt; fail "$exact of 2 frames bit-exact"; }
echo "PASS"
