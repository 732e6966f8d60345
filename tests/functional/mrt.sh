#!/usr/bin/env bash
# functional.mrt: two color buffers (tests/functional/app/known_mrt.c). A GLSL ES 1.00
# shader writing gl_FragColor carries TGSI_PROPERTY_FS_COLOR0_WRITES_ALL_CBUFS, and
# softpipe's blend stage then gives output color 0 to BOTH color buffers: the trace must
# record that color for color buffer 1 too. (The frame check cannot see this: the FBO
# reaches the window only through texture sampling, whose results the trace carries;
# hence the check on the recorded colors.) A GLSL ES 3.00 shader writes two different
# outputs with blending on (float colors, exact tile values of the packed opaque
# colors under them). Checks: reference PNGs = eglretrace -s; tbr-sim's render-target
# checks (SURFACE_CHECK: both FBO textures when frame 1 binds them again) agree with
# softpipe's memory, which catches a wrong FBO the frames cannot show; the gl_FragColor draw's
# color buffer 1 pixels equal its color buffer 0 pixels; the blended draw's two color
# buffers differ and it carries exact values; tbr-sim bit-exact, with identical
# stats.json and frames when replayed with --float-colors. Those two replays record every
# color (--record-colors: the checks read them from the trace); a third, with computed
# colors (the default), must compute the quads of both draws and simulate bit-exact with
# the same stats.json and frames.
#
# usage: mrt.sh MESA_PREFIX APP BIN_DIR CHECK WORKDIR
set -u
mesa="$1" app="$2" bin="$3" check="$4" work="$5"
. "$(dirname "$0")/common.sh"
functional_setup "$mesa" "$work" apitrace eglretrace

apitrace trace --api egl -o m.trace "$app" > capture.log 2>&1 || { cat capture.log; fail "capture"; }
mkdir -p snap
eglretrace -s snap/ m.trace > snap.log 2>&1 || { cat snap.log; fail "eglretrace -s"; }
mapfile -t snaps < <(ls snap/*.png | sort)
[ "${#snaps[@]}" = 2 ] || fail "eglretrace -s wrote ${#snaps[@]} PNGs, expected 2"

for mode in packed float computed; do
  opt=--record-colors; [ $mode = float ] && opt="--record-colors --float-colors"; [ $mode = computed ] && opt=""
  "$bin/tbr-replay" -q $opt m.trace -o $mode > $mode.log 2>&1 || { cat $mode.log; fail "tbr-replay $opt"; }
  [ "$(status_of $mode status)" = ok ] || { cat $mode/functional-status.txt; fail "$mode: status"; }
  [ "$(status_of $mode unsupported)" = "" ] || fail "$mode: unsupported features hit"
  for f in 0 1; do
    "$check" pngeq-rgb "$(printf '%s/reference/frame_%05d.png' $mode $f)" "${snaps[$f]}" \
      || fail "$mode: frame $f: reference PNG differs from eglretrace -s"
  done
  simulate_exact "$bin" $mode 2 "$mode"
  # frame 1 binds the FBO again: its two textures are compared with softpipe's memory
  grep -Eq 'render-target checks \(SURFACE_CHECK\): [2-9][0-9]* compared, 0 differ' $mode.sim/summary.txt \
    || { grep 'render-target' $mode.sim/summary.txt; fail "$mode: render-target checks"; }
done
cmp -s packed.sim/stats.json float.sim/stats.json || fail "stats.json differs between packed and float colors"
diff <(grep -v "computed_color_quads\|derived_texel_quads" packed.sim/stats.json) <(grep -v "computed_color_quads\|derived_texel_quads" computed.sim/stats.json) > /dev/null ||
  fail "stats.json differs between recorded and computed colors"
same_frames packed.sim float.sim 2 "packed vs float colors"
same_frames packed.sim computed.sim 2 "recorded vs computed colors"
[ "$(status_of computed quads_colors_computed)" -gt 0 ] || fail "computed: no quad computed ($(status_of computed first_not_computable))"
[ "$(status_of computed quads_colors_mismatched)" = 0 ] || fail "computed: recomputed colors differ from softpipe"

"$bin/tbr-dump" -t shader -v packed/activity.tbrt > shaders.txt || fail "tbr-dump shaders"
grep -q 'PROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1' shaders.txt || fail "no gl_FragColor shader with FS_COLOR0_WRITES_ALL_CBUFS"
for mode in packed float; do
  for f in 0 1; do
    # draw 0: gl_FragColor into both buffers
    "$bin/tbr-dump" -f $f -d 0 -t quads -v $mode/activity.tbrt > d0.txt || fail "tbr-dump draw 0"
    sed -n 's/^ *cbuf0 frag\([0-3]\) \(.*\)/\2/p' d0.txt > c0.txt
    sed -n 's/^ *cbuf1 frag\([0-3]\) \(.*\)/\2/p' d0.txt > c1.txt
    [ -s c0.txt ] || fail "$mode frame $f: draw 0 has no colors"
    cmp -s c0.txt c1.txt || { paste c0.txt c1.txt | head; fail "$mode frame $f: gl_FragColor draw: color buffer 1 colors differ from color buffer 0"; }
    # draw 1: two different outputs, blended
    "$bin/tbr-dump" -f $f -d 1 -t quads -v $mode/activity.tbrt > d1.txt || fail "tbr-dump draw 1"
    sed -n 's/^ *cbuf0 frag[0-3] rgba=\(([^)]*)\).*/\1/p' d1.txt | sort -u > b0.txt
    sed -n 's/^ *cbuf1 frag[0-3] rgba=\(([^)]*)\).*/\1/p' d1.txt | sort -u > b1.txt
    [ -s b0.txt ] && [ -s b1.txt ] || fail "$mode frame $f: blended draw has no float colors"
    cmp -s b0.txt b1.txt && fail "$mode frame $f: blended draw: both color buffers got the same colors"
  done
done
[ "$(status_of packed exact_values)" -gt 0 ] || fail "packed: no exact values (the blend reads opaque packed colors)"
[ "$(status_of float exact_values)" = 0 ] || fail "float: exact values"
echo "PASS"
