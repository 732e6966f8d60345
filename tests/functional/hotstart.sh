#!/usr/bin/env bash
# functional.hotstart: windows of a program that accumulates across frames
# (tests/functional/app/known_accumulate.c: only frame 0 clears; blending, depth and
# stencil against earlier frames, an FBO written in frame 0 and loaded later, a
# depth-only clear that keeps the stencil). tbr-replay --frames A-B fast-forwards the
# frames before A; the trace must carry what they left in the render targets
# (SURFACE_INIT, docs/trace-records.md) for tbr-sim to reproduce the window.
# Checks: the full replay needs no SURFACE_INIT (frame 0 clears everything) and
# simulates bit-exact; for windows 2-3 (the window's depth/stencil is first used by a
# depth-only clear) and 1-4 (first used by tile loads): reference PNGs = eglretrace -s,
# one SURFACE_INIT per render target (window color, window depth/stencil, FBO color,
# FBO depth) in the window's first frame and none later, bit-exact simulation, and
# the same simulation with SURFACE_INIT ignored (--no-surface-init) is NOT bit-exact
# (the test would not notice a missing hot start otherwise).
#
# usage: hotstart.sh MESA_PREFIX APP CHECK BIN_DIR WORKDIR
set -u
mesa="$1" app="$2" check="$3" bin="$4" work="$5"
. "$(dirname "$0")/common.sh"
functional_setup "$mesa" "$work" apitrace eglretrace

nframes=$("$app" --frames)
apitrace trace --api egl -o ka.trace "$app" > capture.log 2>&1 || { cat capture.log; fail "capture"; }
frames=$(apitrace info ka.trace | sed -n 's/.*"FramesCount": *\([0-9]*\).*/\1/p')
[ "$frames" = "$nframes" ] || fail "apitrace frames '$frames', expected $nframes"
mkdir -p snap
eglretrace -s snap/ ka.trace > snap.log 2>&1 || { cat snap.log; fail "eglretrace -s"; }
mapfile -t snaps < <(ls snap/*.png | sort)
[ "${#snaps[@]}" = "$nframes" ] || fail "eglretrace -s wrote ${#snaps[@]} PNGs, expected $nframes"


# full replay: everything is cleared in frame 0, so no initial contents are needed
"$bin/tbr-replay" ka.trace -o full > full.log 2>&1 || { cat full.log; fail "tbr-replay (full)"; }
[ "$(status_of full status)" = ok ] || { cat full/functional-status.txt; fail "full: status"; }
[ "$(status_of full unsupported)" = "" ] || fail "full: unsupported features hit"
[ "$(status_of full surface_inits)" = 0 ] || fail "full: surface_inits=$(status_of full surface_inits), expected 0"
"$bin/tbr-sim" full -o sim-full --quiet > sim-full.log 2>&1 || { cat sim-full.log; fail "tbr-sim (full)"; }
exact=$(grep -c 'bit-exact with the reference' sim-full/summary.txt)
[ "$exact" = "$nframes" ] || { cat sim-full/summary.txt; fail "full: $exact of $nframes frames bit-exact"; }

for win in 2-3 1-4; do
  a=${win%-*} b=${win#*-} out=win$a
  "$bin/tbr-replay" ka.trace -o $out --frames $win > $out.log 2>&1 || { cat $out.log; fail "tbr-replay --frames $win"; }
  [ "$(status_of $out status)" = ok ] || { cat $out/functional-status.txt; fail "$win: status"; }
  [ "$(status_of $out unsupported)" = "" ] || fail "$win: unsupported features hit"
  for ((f = a; f <= b; f++)); do
    "$check" pngeq-rgb "$(printf '%s/reference/frame_%05d.png' $out "$f")" "${snaps[$f]}" \
      || fail "$win: frame $f: reference PNG differs from eglretrace -s"
  done
  # one SURFACE_INIT per render target, all in the first frame of the window
  [ "$(status_of $out surface_inits)" = 4 ] || fail "$win: surface_inits=$(status_of $out surface_inits), expected 4"
  "$bin/tbr-dump" -t surface_init $out/activity.tbrt > $out-inits.txt || fail "$win: tbr-dump"
  "$bin/tbr-dump" -f "$a" -t surface_init $out/activity.tbrt > $out-inits-first.txt || fail "$win: tbr-dump -f $a"
  n=$(grep -c 'SURFACE_INIT' $out-inits.txt)
  nfirst=$(grep -c 'SURFACE_INIT' $out-inits-first.txt)
  [ "$n" -ge 4 ] && [ "$n" = "$nfirst" ] || { cat $out-inits.txt; fail "$win: $n SURFACE_INIT records, $nfirst in frame $a"; }
  kinds=$(sed -n 's/.*SURFACE_INIT \(zs\|color\) resource=\([0-9]*\).*/\1:\2/p' $out-inits.txt | sort -u | wc -l)
  [ "$kinds" = 4 ] || { cat $out-inits.txt; fail "$win: SURFACE_INIT of $kinds distinct surfaces, expected 4"; }
  grep -q 'SURFACE_INIT zs .*block_bytes=2 ' $out-inits.txt || fail "$win: no Z16 FBO depth contents"
  grep -q 'SURFACE_INIT zs .*block_bytes=4 ' $out-inits.txt || fail "$win: no window depth/stencil contents"

  "$bin/tbr-sim" $out -o sim-$out --quiet > sim-$out.log 2>&1 || { cat sim-$out.log; fail "$win: tbr-sim"; }
  exact=$(grep -c 'bit-exact with the reference' sim-$out/summary.txt)
  [ "$exact" = $((b - a + 1)) ] || { cat sim-$out/summary.txt; fail "$win: $exact of $((b - a + 1)) frames bit-exact"; }
  grep -q 'surface init (hot start): [1-9][0-9]* SURFACE_INIT bands applied, 0 unusable' sim-$out/summary.txt \
    || { cat sim-$out/summary.txt; fail "$win: SURFACE_INIT not applied"; }
  # without the initial contents the window is wrong: the test can see a missing hot start
  "$bin/tbr-sim" $out -o sim-$out-cold --quiet --no-surface-init > sim-$out-cold.log 2>&1
  grep -q "frame $a: .*DIFFERS" sim-$out-cold/summary.txt \
    || { cat sim-$out-cold/summary.txt; fail "$win: frame $a is bit-exact even without SURFACE_INIT"; }
  echo "ok window $win: $n SURFACE_INIT records, bit-exact; cold start differs"
done

# tbr-sim --frames on the full trace: the frames before the window are rendered
# functionally (fast-forward), so the window is bit-exact; skipping them is not
for win in 2-3 4; do
  a=${win%-*}
  "$bin/tbr-sim" full --frames $win -o sim-ff$a --quiet > sim-ff$a.log 2>&1 || { cat sim-ff$a.log; fail "tbr-sim --frames $win"; }
  exact=$(grep -c 'bit-exact with the reference' sim-ff$a/summary.txt)
  want=$(( ${win#*-} - a + 1 ))
  [ "$exact" = "$want" ] || { cat sim-ff$a/summary.txt; fail "--frames $win: $exact of $want frames bit-exact"; }
  "$bin/tbr-sim" full --frames $win --no-fast-forward -o sim-nff$a --quiet > sim-nff$a.log 2>&1
  grep -q "frame $a: .*DIFFERS" sim-nff$a/summary.txt \
    || { cat sim-nff$a/summary.txt; fail "--frames $win: frame $a is bit-exact even without the fast-forward"; }
  echo "ok tbr-sim --frames $win: bit-exact after fast-forward, differs without"
done
echo "PASS"
