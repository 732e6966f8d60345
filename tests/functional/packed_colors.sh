#!/usr/bin/env bash
# functional.packed_colors: colors of draws that do not blend are stored packed in
# the render target's format, with softpipe's exact float tile values given to the
# blends that read them (docs/trace-records.md QUADS "Packed colors"). For the blend
# sample (a blended draw over opaque ones in the same tiles: needs the exact values)
# and casual2d, replayed with and without --float-colors:
#  - the default replay packs (packed_fragments > 0; blend: exact_values > 0), the
#    --float-colors one does not (both 0);
#  - tbr-sim is bit-exact on every frame of both, and stats.json and every simulated
#    frame are identical between the two (the coding changes nothing simulated);
#  - casual2d's packed trace is smaller than its float one.
# Both replays use --record-colors: this is about how recorded colors are coded
# (computed colors: functional.computed_colors).
#
# usage: packed_colors.sh MESA_PREFIX BIN_DIR SAMPLES_DIR WORKDIR
set -u
mesa="$1" bin="$2" samples="$3" work="$4"
. "$(dirname "$0")/common.sh"
functional_setup "$mesa" "$work"

for s in blend casual2d; do
  "$bin/tbr-replay" -q --record-colors "$samples/$s.trace" -o $s.packed > $s.packed.log 2>&1 || { cat $s.packed.log; fail "$s: tbr-replay"; }
  "$bin/tbr-replay" -q --record-colors --float-colors "$samples/$s.trace" -o $s.float > $s.float.log 2>&1 || { cat $s.float.log; fail "$s: tbr-replay --float-colors"; }
  [ "$(status_of $s.packed packed_fragments)" -gt 0 ] || fail "$s: nothing packed"
  [ "$(status_of $s.float packed_fragments)" = 0 ] || fail "$s: --float-colors packed $(status_of $s.float packed_fragments) fragments"
  [ "$(status_of $s.float exact_values)" = 0 ] || fail "$s: --float-colors gave exact values"
  frames=$(status_of $s.packed frames_recorded)
  for mode in packed float; do simulate_exact "$bin" $s.$mode "$frames" "$s ($mode)"; done
  cmp -s $s.packed.sim/stats.json $s.float.sim/stats.json || fail "$s: stats.json differs between packed and float colors"
  same_frames $s.packed.sim $s.float.sim "$frames" "$s: packed vs float colors"
  echo "$s: packed_fragments=$(status_of $s.packed packed_fragments) exact_values=$(status_of $s.packed exact_values) bytes packed=$(stat -c %s $s.packed/activity.tbrt) float=$(stat -c %s $s.float/activity.tbrt)"
done
[ "$(status_of blend.packed exact_values)" -gt 0 ] || fail "blend: no exact values (its blends read opaque writes)"
[ "$(stat -c %s casual2d.packed/activity.tbrt)" -lt "$(stat -c %s casual2d.float/activity.tbrt)" ] || fail "casual2d: packed trace not smaller"
echo "PASS"
