#!/usr/bin/env bash
# functional.computed_colors: the recorder leaves out the colors of blended quads that
# functional/reference recomputes bit-exactly (docs/trace-records.md "Computed colors")
# and tbr-sim computes them. For every bundled sample, replayed by default and with
# --record-colors:
#  - by default colors are computed for quads of every sample, and no recomputation
#    the recorder tried differed from softpipe (quads_colors_mismatched = 0: the
#    library is exact on all of them);
#  - --record-colors computes none;
#  - tbr-sim is bit-exact on every frame of both, computes every COMPUTED quad, and
#    stats.json (apart from the computed-quad count) and every simulated frame are
#    identical between the two;
#  - the computed trace of the texture-heavy samples is smaller.
#
# usage: computed_colors.sh MESA_PREFIX BIN_DIR SAMPLES_DIR WORKDIR
set -u
mesa="$1" bin="$2" samples="$3" work="$4"
. "$(dirname "$0")/common.sh"
functional_setup "$mesa" "$work"

n_samples=0
for trace in "$samples"/*.trace; do
  s=$(basename "$trace" .trace)
  n_samples=$((n_samples + 1))
  "$bin/tbr-replay" -q "$trace" -o $s.comp > $s.comp.log 2>&1 || { cat $s.comp.log; fail "$s: tbr-replay"; }
  "$bin/tbr-replay" -q --record-colors "$trace" -o $s.rec > $s.rec.log 2>&1 || { cat $s.rec.log; fail "$s: tbr-replay --record-colors"; }
  computed=$(status_of $s.comp quads_colors_computed)
  [ "$computed" -gt 0 ] || fail "$s: no quad computed ($(status_of $s.comp first_not_computable))"
  [ "$(status_of $s.comp quads_colors_mismatched)" = 0 ] || fail "$s: $(status_of $s.comp quads_colors_mismatched) recomputed quads differ from softpipe"
  [ "$(status_of $s.rec quads_colors_computed)" = 0 ] || fail "$s: --record-colors computed quads"
  frames=$(status_of $s.comp frames_recorded)
  for mode in comp rec; do simulate_exact "$bin" $s.$mode "$frames" "$s ($mode)"; done
  simc=$(grep -o '"computed_color_quads": [0-9]*' $s.comp.sim/stats.json | grep -o '[0-9]*$')
  [ "$simc" -gt 0 ] || fail "$s: tbr-sim computed no quad"
  grep -q '"computed_color_failures": 0,' $s.comp.sim/stats.json || fail "$s: tbr-sim could not compute some quads"
  diff <(grep -v "computed_color_quads\|derived_texel_quads" $s.comp.sim/stats.json) <(grep -v "computed_color_quads\|derived_texel_quads" $s.rec.sim/stats.json) > /dev/null ||
    fail "$s: stats.json differs between computed and recorded colors"
  same_frames $s.comp.sim $s.rec.sim "$frames" "$s: computed vs recorded colors"
  echo "$s: quads computed=$computed (tbr-sim $simc) recorded=$(status_of $s.comp quads_colors_recorded) texture_inits=$(status_of $s.comp texture_inits) bytes computed=$(stat -c %s $s.comp/activity.tbrt) recorded=$(stat -c %s $s.rec/activity.tbrt)"
done
[ "$n_samples" -ge 5 ] || fail "only $n_samples sample traces in $samples"
for s in rtt mipmap; do
  [ "$(stat -c %s $s.comp/activity.tbrt)" -lt "$(stat -c %s $s.rec/activity.tbrt)" ] || fail "$s: computed trace not smaller"
done
echo "PASS"
