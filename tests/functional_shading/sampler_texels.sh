#!/usr/bin/env bash
# functional_shading.sampler_texels: run the sampler differential test program
# under the recorder (instrumented Mesa + libtbr_functional) with the sampler's
# texel log on, and check that the sampler's observer reports exactly the texels
# softpipe's texture tile cache served (the TEXELS records, all recorded:
# TBR_RECORD_TEXELS=1), in the same order.
#
# usage: sampler_texels.sh MESA_PREFIX LIBTBR_FUNCTIONAL DIFF_BIN TBR_DUMP WORKDIR
set -u
mesa="$1" lib="$2" bin="$3" dump="$4" work="$5"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -n "$mesa" ] && [ -f "$mesa/lib/libEGL.so.1" ] || fail "no instrumented Mesa at TBR_MESA_PREFIX='$mesa'"
command -v python3 >/dev/null || fail "python3 not found"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
TBR_RECORD_TEXELS=1 SAMPLER_DIFF_TEXELS="$work/sampler_texels.txt" TBR_FUNCTIONAL_LIB="$lib" TBR_OUT_DIR="$work/out" \
LD_LIBRARY_PATH="$mesa/lib" LIBGL_ALWAYS_SOFTWARE=1 EGL_PLATFORM=surfaceless \
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  "$bin" 300 > run.log 2>&1 || { cat run.log; fail "sampler differential run"; }
st="$work/out/functional-status.txt"
grep -qx 'status=ok' "$st" || { cat "$st"; fail "recorder status"; }
grep -qx 'draws=300' "$st" || { grep draws "$st"; fail "expected 300 draws (one per case)"; }
"$dump" -v -t quads,texels "$work/out/activity.tbrt" > dump.txt || fail "tbr-dump"
python3 "$(dirname "$0")/sampler_texels_cmp.py" sampler_texels.txt dump.txt
