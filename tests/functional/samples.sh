#!/usr/bin/env bash
# functional.samples: record every checked-in sample trace (samples/traces/*.trace)
# through the instrumented Mesa and check invariants: the recorder succeeds
# (status=ok, nothing unsupported), frames_recorded = apitrace's FramesCount, every
# reference PNG equals `eglretrace -s` through the same Mesa (library not loaded),
# every record decodes and the per-frame/per-draw totals agree, and every shaded quad
# has an executed-path record; every TEXELS fetch belongs to a shaded quad whose path
# contains the fetch's pc, every VS group has a PATH, non-indexed draws shade all their
# vertices, indexed chunks have unique indices; mipmap: texels in the mipmap-generation
# (internal) draws and trilinear 8-texel footprints. Where the trace stays within what the test's
# re-render model implements (one render target, simple blends), a re-render from
# the trace alone must equal the reference PNGs bit for bit. Every sample is inside that
# model today but game3d (7 of 8 re-rendered): a sample whose re-render is skipped fails the test
# unless it is listed in rerender_exempt below (issue 22: the test passed with none
# re-rendered).
#
# usage: samples.sh MESA_PREFIX LIBTBR_FUNCTIONAL CHECK TRACES_DIR WORKDIR SANITIZE
set -u
mesa="$1" lib="$2" check="$3" traces="$4" work="$5" sanitize="${6:-OFF}"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -n "$mesa" ] || fail "TBR_MESA_PREFIX is empty: configure with -DTBR_MESA_PREFIX=\$(scripts/build-mesa --print-prefix)"
[ -f "$mesa/lib/libEGL.so.1" ] || fail "no instrumented Mesa at TBR_MESA_PREFIX=$mesa"
shopt -s nullglob
list=("$traces"/*.trace)
[ ${#list[@]} -gt 0 ] || fail "no sample traces in $traces"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
export LD_LIBRARY_PATH="$mesa/lib" LIBGL_DRIVERS_PATH="$mesa/lib/dri" WAFFLE_PLATFORM=surfaceless_egl LIBGL_ALWAYS_SOFTWARE=1
unset TBR_FUNCTIONAL_LIB TBR_OUT_DIR TBR_FRAMES TBR_RECORD_COLORS TBR_FLOAT_COLORS TBR_RECORD_TEXELS TBR_VERTEX_HASHES
pre=()
[ "$sanitize" = "ON" ] && pre=(env LD_PRELOAD="$(gcc -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0)
# Samples outside the re-render model; any other sample must be re-rendered. game3d: its
# glGenerateMipmap renders into an sRGB target, a color format the model lacks (tbr-sim
# renders game3d bit-exact: timing_sim.samples_e2e).
rerender_exempt=" game3d "
exact=0
for t in "${list[@]}"; do
  n=$(basename "$t" .trace)
  frames=$(apitrace info "$t" | sed -n 's/.*"FramesCount": *\([0-9]*\).*/\1/p')
  mkdir -p "$n/snap"
  eglretrace -s "$n/snap/" "$t" > "$n/snap.log" 2>&1 || fail "$n: eglretrace -s"
  mapfile -t snaps < <(ls "$n"/snap/*.png | sort)
  # colors recorded (the re-render model reads them; computed colors: functional.computed_colors)
  TBR_RECORD_COLORS=1 TBR_FUNCTIONAL_LIB="$lib" TBR_OUT_DIR="$work/$n/out" "${pre[@]}" eglretrace "$t" > "$n/rec.log" 2>&1 \
    || { tail -20 "$n/rec.log"; fail "$n: instrumented replay failed"; }
  st="$n/out/functional-status.txt"
  grep -qx 'status=ok' "$st" || { cat "$st"; fail "$n: status"; }
  grep -qx 'unsupported=' "$st" || { grep unsupported "$st"; fail "$n: unsupported features hit"; }
  grep -qx "frames_recorded=$frames" "$st" || fail "$n: frames_recorded != $frames"
  [ "${#snaps[@]}" -eq "$frames" ] || fail "$n: eglretrace -s wrote ${#snaps[@]} PNGs"
  for ((f = 0; f < frames; f++)); do
    "$check" pngeq "$(printf '%s/out/reference/frame_%05d.png' "$n" "$f")" "${snaps[$f]}" \
      || fail "$n: frame $f reference differs from eglretrace -s"
  done
  "$check" counts "$n/out/activity.tbrt" > "$n/counts.txt" || fail "$n: trace decode / totals"
  grep -qx "frames=$frames" "$n/counts.txt" || fail "$n: trace frame count"
  if grep -q '_shaded_quads_without_path=[1-9]' "$n/counts.txt"; then fail "$n: shaded quads without PATH"; fi
  # texels tied to shaded quads + pcs of their paths; every VS group has a PATH;
  # non-indexed draws shade each vertex of the draw; indexed chunks hold unique indices
  for k in texel_fetches_bad vertex_groups_without_path vertex_draw_mismatch vertex_indexed_duplicates; do
    if grep -q "_${k}=[1-9]" "$n/counts.txt"; then grep "_${k}=" "$n/counts.txt"; fail "$n: $k"; fi
  done
  grep -q '_vertex_groups=[1-9]' "$n/counts.txt" || fail "$n: no vertex records"
  tx=$(sed -n 's/^frame[0-9]*_texels=//p' "$n/counts.txt" | paste -sd+ | bc)
  txi=$(sed -n 's/^frame[0-9]*_texels_internal=//p' "$n/counts.txt" | paste -sd+ | bc)
  tl8=$(sed -n 's/^frame[0-9]*_texel_lanes_8=//p' "$n/counts.txt" | paste -sd+ | bc)
  echo "$n: texels $tx (internal draws $txi), trilinear lanes ${tl8:-0}, vertices $(sed -n 's/^frame[0-9]*_vertices=//p' "$n/counts.txt" | paste -sd+ | bc)"
  if [ "$n" = mipmap ]; then
    [ "${txi:-0}" -gt 0 ] || fail "mipmap: no texels in the mipmap-generation (internal) draws"
    [ "${tl8:-0}" -gt 0 ] || fail "mipmap: no trilinear (8-texel) footprints"
  fi
  "$check" rerender "$n/out/activity.tbrt" "$n/out" > "$n/rerender.txt" 2>&1
  rc=$?
  if grep -q '^rerender_unsupported=0$' "$n/rerender.txt"; then
    [ $rc -eq 0 ] || { cat "$n/rerender.txt"; fail "$n: re-render from the trace differs"; }
    exact=$((exact + 1))
    echo "$n: $frames frames ok; re-render from the trace bit-exact ($(grep depth_quads_checked "$n/rerender.txt"))"
  else
    why=$(grep -m1 'not modelled' "$n/rerender.txt")
    case "$rerender_exempt" in
      *" $n "*) echo "$n: $frames frames ok; re-render skipped (outside the test model: $why)" ;;
      *) fail "$n: re-render skipped ($why); it must be re-rendered, or be listed in rerender_exempt" ;;
    esac
  fi
done
required=$((${#list[@]} - $(echo $rerender_exempt | wc -w)))
[ "$exact" -ge "$required" ] || fail "only $exact of ${#list[@]} samples re-rendered bit-exact, at least $required required"
echo "PASS (${#list[@]} traces, $exact re-rendered bit-exact)"
