#!/usr/bin/env bash
# functional.contexts: several EGL contexts (tests/functional/app/known_contexts.c).
# Capture with apitrace; tbr-replay WITHOUT --allow-unsupported must record it; the
# reference PNGs = eglretrace -s; per-frame counts (render passes: a context switch
# inside a frame starts a pass) = the program's expectation; tbr-sim's frames are
# bit-exact with the references. Then the one case the recorder must refuse: two
# contexts caching the same tiles at once (EGL_CONTEXT_RELEASE_BEHAVIOR_NONE_KHR,
# run directly: apitrace's replay drops that attribute) -> status=error with a clear
# message.
#
# usage: contexts.sh MESA_PREFIX LIBTBR_FUNCTIONAL APP CHECK BIN_DIR WORKDIR SANITIZE
set -u
mesa="$1" lib="$2" app="$3" check="$4" bin="$5" work="$6" sanitize="${7:-OFF}"
. "$(dirname "$0")/common.sh"
functional_setup "$mesa" "$work" apitrace eglretrace

apitrace trace --api egl -o kc.trace "$app" > capture.log 2>&1 || { cat capture.log; fail "capture"; }
frames=$(apitrace info kc.trace | sed -n 's/.*"FramesCount": *\([0-9]*\).*/\1/p')
[ "$frames" = 5 ] || fail "apitrace frames '$frames', expected 5"
mkdir -p snap
eglretrace -s snap/ kc.trace > snap.log 2>&1 || { cat snap.log; fail "eglretrace -s"; }
mapfile -t snaps < <(ls snap/*.png | sort)
[ "${#snaps[@]}" -eq 5 ] || fail "eglretrace -s wrote ${#snaps[@]} PNGs"

# 1. tbr-replay, no --allow-unsupported
# --record-texels: the trace checker counts texels from TEXELS records
"$bin/tbr-replay" --record-texels kc.trace -o out > replay.log 2>&1 || { cat replay.log; fail "tbr-replay refused the trace"; }
st=out/functional-status.txt
cat "$st"
grep -qx 'status=ok' "$st" || fail "status"
grep -qx 'unsupported=' "$st" || fail "unsupported features hit"
grep -qx 'frames_recorded=5' "$st" || fail "frames_recorded != 5"
created=$(sed -n 's/^contexts_created=//p' "$st")
[ "${created:-0}" -ge 3 ] || fail "contexts_created '$created', expected at least 3 (A, B, C)"
# frame 2: A -> B -> A, frame 3: A -> B
grep -qx 'context_switches=3' "$st" || fail "context_switches != 3"
# blending leaves alpha < 1 in the framebuffer: the reference keeps it, eglretrace -s
# writes RGB (docs/instrumentation.md "Reference PNGs and alpha")
for ((f = 0; f < 5; f++)); do
  ref=$(printf 'out/reference/frame_%05d.png' "$f")
  "$check" pngeq-rgb "$ref" "${snaps[$f]}" || fail "frame $f: reference PNG (RGB) differs from eglretrace -s"
done
"$check" pngeq out/reference/frame_00000.png "${snaps[0]}" 2>/dev/null \
  && fail "frame 0: reference alpha expected to differ from eglretrace -s's RGB (blended alpha 0.75)"

# 2. counts re-derived from the trace
"$check" counts out/activity.tbrt > counts.txt || { cat counts.txt; fail "trace decode/consistency"; }
"$app" --expect > expect.txt
bad=0
while IFS='=' read -r k v; do
  got=$(grep "^$k=" counts.txt | head -1 | cut -d= -f2)
  if [ "$got" != "$v" ]; then echo "MISMATCH $k: trace '$got', expected $v" >&2; bad=1
  else echo "ok $k=$v"; fi
done < expect.txt
[ $bad -eq 0 ] || { cat counts.txt; fail "counts differ"; }

# 3. the timing simulator re-renders every frame bit-exact
"$bin/tbr-sim" out -o sim --quiet > sim.log 2>&1 || { cat sim.log; fail "tbr-sim"; }
exact=$(grep -c 'bit-exact with the reference' sim/summary.txt)
[ "$exact" = 5 ] || { cat sim/summary.txt; fail "$exact of 5 frames bit-exact"; }
"$bin/tbr-compare" out/reference sim/frames > compare.log 2>&1 || { cat compare.log; fail "tbr-compare"; }

# 4. refused: two contexts hold the same tiles (no flush at eglMakeCurrent)
pre=()
[ "$sanitize" = "ON" ] && pre=(env LD_PRELOAD="$(gcc -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0)
TBR_FUNCTIONAL_LIB="$lib" TBR_OUT_DIR="$work/noflush" "${pre[@]}" "$app" --no-flush > noflush.log 2>&1
grep -qx 'status=error' noflush/functional-status.txt || { cat noflush/functional-status.txt; fail "no-flush run not refused"; }
grep -q '^error=two GL contexts hold tile' noflush/functional-status.txt \
  || { cat noflush/functional-status.txt; fail "no-flush: unclear error"; }
[ ! -e noflush/activity.tbrt ] || fail "no-flush: a trace was left as if complete"
echo "PASS"
