#!/usr/bin/env bash
# functional.texels: capture tests/functional/app/known_texture.c with apitrace,
# replay it through the instrumented Mesa + libtbr_functional and check the TEXELS
# and VERTICES records against the program's analytically known footprints
# (known_texture --expect): 1 texel per fragment equal to the pixel (nearest at 1:1),
# 4 (bilinear, footprint containing the pixel), 8 (trilinear between levels 1 and 2),
# 6 vertices in 2 VS groups per non-indexed draw, 4 unique vertices for the indexed
# one, every VS group with its PATH, every texel fetch tied to a shaded quad whose
# executed path contains the texture instruction's pc. Also: reference PNGs =
# eglretrace -s through the same Mesa.
#
# usage: texels.sh MESA_PREFIX LIBTBR_FUNCTIONAL KNOWN_TEXTURE CHECK WORKDIR SANITIZE
set -u
mesa="$1" lib="$2" app="$3" check="$4" work="$5" sanitize="${6:-OFF}"
. "$(dirname "$0")/common.sh"
functional_setup "$mesa" "$work" apitrace eglretrace
apitrace trace --api egl -o kt.trace "$app" > capture.log 2>&1 || { cat capture.log; fail "capture"; }
frames=$(apitrace info kt.trace | sed -n 's/.*"FramesCount": *\([0-9]*\).*/\1/p')
[ "$frames" = 4 ] || fail "apitrace frames '$frames', expected 4"
mkdir -p snap
eglretrace -s snap/ kt.trace > snap.log 2>&1 || { cat snap.log; fail "eglretrace -s"; }
mapfile -t snaps < <(ls snap/*.png | sort)
pre=()
[ "$sanitize" = "ON" ] && pre=(env LD_PRELOAD="$(gcc -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0)
TBR_RECORD_TEXELS=1 TBR_FUNCTIONAL_LIB="$lib" TBR_OUT_DIR="$work/out" "${pre[@]}" eglretrace kt.trace > rec.log 2>&1 \
  || { cat rec.log; fail "instrumented eglretrace exited non-zero"; }
st="$work/out/functional-status.txt"
grep -qx 'status=ok' "$st" || { cat "$st"; fail "status"; }
grep -qx 'unsupported=' "$st" || { grep unsupported "$st"; fail "unsupported features hit"; }
grep -qx "frames_recorded=$frames" "$st" || fail "frames_recorded != $frames"
for ((f = 0; f < frames; f++)); do
  "$check" pngeq "$(printf '%s/out/reference/frame_%05d.png' "$work" "$f")" "${snaps[$f]}" \
    || fail "frame $f: reference PNG differs from eglretrace -s"
done
"$check" counts "$work/out/activity.tbrt" > counts.txt || { cat counts.txt; fail "trace decode/consistency"; }
"$app" --expect > expect.txt
bad=0
while IFS='=' read -r k v; do
  got=$(grep "^$k=" counts.txt | head -1 | cut -d= -f2)
  if [ "$got" != "$v" ]; then echo "MISMATCH $k: trace '$got', expected $v" >&2; bad=1
  else echo "ok $k=$v"; fi
done < expect.txt
[ $bad -eq 0 ] || { grep -E 'tex|vert' counts.txt; fail "texel/vertex counts differ"; }
echo "PASS"
