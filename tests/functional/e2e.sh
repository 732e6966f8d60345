#!/usr/bin/env bash
# functional.e2e: capture tests/functional/app/known_geometry.c with apitrace,
# replay it with eglretrace through the instrumented Mesa + libtbr_functional,
# and check: frame count = `apitrace info`, status file, reference PNGs =
# `eglretrace -s` snapshots through the same Mesa (library NOT loaded), those
# snapshots = the checked-in checksums of the UNPATCHED Mesa (known_geometry.md5),
# per-frame counts re-derived from the activity trace = the program's
# analytically known counts (known_geometry --expect), a re-render from the trace
# alone = the reference PNGs bit for bit, and TBR_FRAMES windowing.
#
# usage: e2e.sh MESA_PREFIX LIBTBR_FUNCTIONAL KNOWN_GEOMETRY CHECK WORKDIR MD5FILE SANITIZE
set -u
mesa="$1" lib="$2" app="$3" check="$4" work="$5" md5file="$6" sanitize="${7:-OFF}"

fail() { echo "FAIL: $*" >&2; exit 1; }
if [ -z "$mesa" ]; then
  fail "TBR_MESA_PREFIX is empty: configure with -DTBR_MESA_PREFIX=\$(scripts/build-mesa --print-prefix)"
fi
[ -f "$mesa/lib/libEGL.so.1" ] || fail "no instrumented Mesa at TBR_MESA_PREFIX=$mesa ($mesa/lib/libEGL.so.1 missing)"
for t in apitrace eglretrace; do command -v $t >/dev/null || fail "$t not found"; done

rm -rf "$work"; mkdir -p "$work"
cd "$work" || exit 1
export LD_LIBRARY_PATH="$mesa/lib" WAFFLE_PLATFORM=surfaceless_egl LIBGL_ALWAYS_SOFTWARE=1
# the DRI driver of THIS prefix (also when the prefix is a relocated dev tree)
export LIBGL_DRIVERS_PATH="$mesa/lib/dri"
unset TBR_FUNCTIONAL_LIB TBR_OUT_DIR TBR_FRAMES TBR_RECORD_COLORS TBR_FLOAT_COLORS TBR_RECORD_TEXELS TBR_VERTEX_HASHES

# 1. capture
apitrace trace --api egl -o kg.trace "$app" > capture.log 2>&1 || { cat capture.log; fail "capture"; }
frames=$(apitrace info kg.trace | sed -n 's/.*"FramesCount": *\([0-9]*\).*/\1/p')
[ -n "$frames" ] || fail "apitrace info gave no FramesCount"
echo "apitrace frames: $frames"

# 2. plain replay snapshots (library not loaded)
mkdir -p snap
eglretrace -s snap/ kg.trace > snap.log 2>&1 || { cat snap.log; fail "eglretrace -s"; }
mapfile -t snaps < <(ls snap/*.png | sort)
[ "${#snaps[@]}" -eq "$frames" ] || fail "eglretrace -s wrote ${#snaps[@]} PNGs, expected $frames"

# 3. patched Mesa without the library == unpatched Mesa (checked-in pixel checksums)
i=0
while read -r want; do
  got=$("$check" md5 "${snaps[$i]}") || fail "md5 ${snaps[$i]}"
  [ "$got" = "$want" ] || fail "frame $i: patched Mesa without TBR_FUNCTIONAL_LIB gives pixel md5 $got, unpatched gave $want"
  i=$((i + 1))
done < <(grep -v '^#' "$md5file")
[ "$i" -eq "$frames" ] || fail "$md5file lists $i frames, expected $frames"
echo "patched Mesa, library unset: $i frames equal the unpatched build's checksums"

# 4. instrumented replay
pre=()
if [ "$sanitize" = "ON" ]; then
  pre=(env LD_PRELOAD="$(gcc -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0)
fi
# colors recorded (not computed): the re-render model below reads them from the trace
TBR_RECORD_COLORS=1 TBR_FUNCTIONAL_LIB="$lib" TBR_OUT_DIR="$work/out" "${pre[@]}" eglretrace kg.trace > rec.log 2>&1 \
  || { cat rec.log; fail "instrumented eglretrace exited non-zero"; }
status="$work/out/functional-status.txt"
[ -f "$status" ] || { cat rec.log; fail "no status file"; }
cat "$status"
grep -qx 'status=ok' "$status" || fail "status is not ok"
grep -qx 'gl_renderer=softpipe' "$status" || fail "renderer is not softpipe"
grep -qx "frames_recorded=$frames" "$status" || fail "frames_recorded != $frames"
[ -f "$work/out/activity.tbrt" ] || fail "no activity.tbrt"

# 5. reference PNGs == eglretrace -s snapshots
for ((f = 0; f < frames; f++)); do
  ref=$(printf '%s/out/reference/frame_%05d.png' "$work" "$f")
  [ -f "$ref" ] || fail "missing $ref"
  "$check" pngeq "$ref" "${snaps[$f]}" || fail "frame $f: reference PNG differs from eglretrace -s"
done
echo "reference PNGs: $frames frames identical to eglretrace -s"

# 6. counts re-derived from the trace == known geometry
"$check" counts "$work/out/activity.tbrt" > counts.txt || { cat counts.txt; fail "trace decode/consistency"; }
"$app" --expect > expect.txt
bad=0
while IFS='=' read -r k v; do
  got=$(grep "^$k=" counts.txt | head -1 | cut -d= -f2)
  if [ "$got" != "$v" ]; then echo "MISMATCH $k: trace $got, expected $v" >&2; bad=1
  else echo "ok $k=$v"; fi
done < expect.txt
[ $bad -eq 0 ] || { cat counts.txt; fail "counts differ"; }
# every shaded quad references an executed-path record of its frame
if grep -q '_shaded_quads_without_path=[1-9]' counts.txt; then
  grep '_shaded_quads_without_path' counts.txt; fail "shaded quads without a PATH"
fi

# 6b. redo depth test + blending + tile quantization from the trace alone: must give
#     the reference PNGs bit for bit and the same depth-test outcome for every quad
"$check" rerender "$work/out/activity.tbrt" "$work/out" > rerender.txt 2>&1 || { cat rerender.txt; fail "re-render from the trace differs"; }
cat rerender.txt
grep -q '^rerender_depth_quads_checked=[1-9]' rerender.txt || fail "re-render checked no depth test"

# 7. TBR_FRAMES window: only frame 1 recorded, same reference PNG
TBR_FUNCTIONAL_LIB="$lib" TBR_OUT_DIR="$work/out1" TBR_FRAMES=1-1 "${pre[@]}" eglretrace kg.trace \
  > rec1.log 2>&1 || { cat rec1.log; fail "windowed eglretrace"; }
grep -qx 'frames_recorded=1' "$work/out1/functional-status.txt" || fail "window: frames_recorded != 1"
[ "$(ls "$work/out1/reference")" = "frame_00001.png" ] || fail "window: unexpected PNGs $(ls "$work/out1/reference")"
"$check" pngeq "$work/out1/reference/frame_00001.png" "${snaps[1]}" || fail "window: frame 1 differs"
"$check" counts "$work/out1/activity.tbrt" > counts1.txt || fail "window trace decode"
grep -qx 'frames=1' counts1.txt || fail "window: trace frame count"
for k in frame1_draws frame1_fragments frame1_depth_passed; do
  [ "$(grep "^$k=" counts1.txt)" = "$(grep "^$k=" counts.txt)" ] || fail "window: $k differs"
done
echo "PASS"
