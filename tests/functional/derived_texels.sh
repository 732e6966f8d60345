#!/usr/bin/env bash
# functional.derived_texels: the recorder leaves out the texels of shaded quads whose
# recomputation with functional/reference reads exactly the texels softpipe read, and
# tbr-sim derives them while it renders (docs/trace-records.md "Derived texels",
# records minor 6). For every bundled sample, replayed by default and with
# --record-texels:
#  - no recomputed quad read other texels than softpipe (quads_texels_mismatched = 0);
#    the texture samples (rtt, mipmap) have derived quads, --record-texels none; both
#    replays read the same texels (functional-status texel counts);
#  - tbr-sim is bit-exact on every frame of both, derives every derived quad, and
#    stats.json (texture.* counters included; apart from the derived-quad count) and
#    every simulated frame are identical between the two;
#  - the derived trace of the texture samples is smaller;
#  - tbr-dump --summary, tbr-characterize and the trace checker (counts) say that they
#    need a --record-texels trace instead of counting texels short;
#  - game3d: anisotropic filtering, cube map and array texels are derived (causes left
#    in texels_not_derived), the trace is under half the --record-texels one;
#  - mixed records (rtt, mipmap, game3d with TBR_TEST_TEXEL_REJECT_EVERY=5: every 5th compared
#    quad is treated as differing, so it starts a record that keeps its texels): some
#    quads derived, more recorded than by default, and tbr-sim still gives the recorded
#    replay's stats.json and frames.
# Samples whose default replay derives nothing (no texturing) are only checked for that
# (their trace is the --record-texels one), to keep the test short.
#
# usage: derived_texels.sh MESA_PREFIX BIN_DIR SAMPLES_DIR WORKDIR
set -u
mesa="$1" bin="$2" samples="$3" work="$4"
. "$(dirname "$0")/common.sh"
functional_setup "$mesa" "$work"

n_samples=0
for trace in "$samples"/*.trace; do
  s=$(basename "$trace" .trace)
  n_samples=$((n_samples + 1))
  "$bin/tbr-replay" -q "$trace" -o $s.der > $s.der.log 2>&1 || { cat $s.der.log; fail "$s: tbr-replay"; }
  derived=$(status_of $s.der quads_texels_derived)
  [ "$(status_of $s.der quads_texels_mismatched)" = 0 ] || fail "$s: $(status_of $s.der quads_texels_mismatched) recomputed quads read other texels than softpipe"
  "$bin/tbr-dump" --summary $s.der/activity.tbrt > $s.der.dump 2>&1 || fail "$s: tbr-dump"
  if [ "$derived" = 0 ]; then
    ! grep -q 'NOT counted' $s.der.dump || fail "$s: tbr-dump reports derived texels, the recorder none"
    echo "$s: no quad with derived texels"
    continue
  fi
  grep -q 'NOT counted' $s.der.dump || fail "$s: tbr-dump does not say that derived texels are not counted"
  "$bin/tbr-characterize" $s.der/activity.tbrt > $s.der.char 2>&1 || fail "$s: tbr-characterize"
  grep -q 'note: texel metrics n/a: the trace derives the texels' $s.der.char || fail "$s: tbr-characterize does not say that texel metrics are n/a"
  ! "$bin/tbr-test-functional-check" counts $s.der/activity.tbrt > $s.der.check 2>&1 || fail "$s: the trace checker counted a trace with derived texels"
  grep -q 'TBR_RECORD_TEXELS=1' $s.der.check || fail "$s: the trace checker does not say why it refuses"
  "$bin/tbr-replay" -q --record-texels "$trace" -o $s.rec > $s.rec.log 2>&1 || { cat $s.rec.log; fail "$s: tbr-replay --record-texels"; }
  [ "$(status_of $s.rec quads_texels_derived)" = 0 ] || fail "$s: --record-texels derived texels"
  [ "$(status_of $s.rec derived_texels)" = 0 ] || fail "$s: --record-texels: derived_texels not 0"
  for k in texel_fetches texels; do
    [ "$(status_of $s.der $k)" = "$(status_of $s.rec $k)" ] || fail "$s: $k differ between the replays"
  done
  frames=$(status_of $s.der frames_recorded)
  for mode in der rec; do simulate_exact "$bin" $s.$mode "$frames" "$s ($mode)"; done
  simd=$(grep -o '"derived_texel_quads": [0-9]*' $s.der.sim/stats.json | grep -o '[0-9]*$')
  grep -q '"derived_texel_failures": 0,' $s.der.sim/stats.json || fail "$s: tbr-sim could not derive some quads"
  grep -q '"derived_texel_quads": 0,' $s.rec.sim/stats.json || fail "$s: tbr-sim derived quads of a --record-texels trace"
  diff <(grep -v derived_texel_quads $s.der.sim/stats.json) <(grep -v derived_texel_quads $s.rec.sim/stats.json) > /dev/null ||
    fail "$s: stats.json differs between derived and recorded texels"
  same_frames $s.der.sim $s.rec.sim "$frames" "$s: derived vs recorded texels"
  "$bin/tbr-dump" --summary $s.rec/activity.tbrt > $s.rec.dump 2>&1 || fail "$s: tbr-dump (recorded)"
  ! grep -q 'NOT counted' $s.rec.dump || fail "$s: tbr-dump reports uncounted texels in a --record-texels trace"
  "$bin/tbr-characterize" $s.rec/activity.tbrt > $s.rec.char 2>&1 || fail "$s: tbr-characterize (recorded)"
  grep -q 'texels per fragment  *[0-9]' $s.rec.char || fail "$s: tbr-characterize has no texel metrics for a --record-texels trace"
  echo "$s: quads texels derived=$derived (tbr-sim $simd) recorded=$(status_of $s.der quads_texels_recorded) bytes derived=$(stat -c %s $s.der/activity.tbrt) recorded=$(stat -c %s $s.rec/activity.tbrt)"
done
[ "$n_samples" -ge 5 ] || fail "only $n_samples sample traces in $samples"
# game3d (anisotropic filtering with a shader bias, a cube map, a 2D array, sRGB
# mipmaps): the reference sampler reproduces all of them, so only the format it lacks
# (R11G11B10F) is left in texels_not_derived (functional-status.txt), and the derived
# trace is under half the recorded one (which still computes the colors)
causes=$(status_of game3d.der texels_not_derived)
case "$causes" in
  *anisotropic* | *target* | *layers*) fail "game3d: texels not derived: $causes" ;;
esac
echo "game3d: texels_not_derived=$causes"
[ "$(status_of game3d.der quads_colors_mismatched)" = 0 ] || fail "game3d: recomputed colors differ from softpipe's"
[ $((2 * $(stat -c %s game3d.der/activity.tbrt))) -lt "$(stat -c %s game3d.rec/activity.tbrt)" ] ||
  fail "game3d: derived trace not under half the recorded one"
for s in rtt mipmap game3d; do
  [ "$(status_of $s.der quads_texels_derived)" -gt 0 ] || fail "$s: no quad with derived texels"
  grep -q '"derived_texel_quads": [1-9]' $s.der.sim/stats.json || fail "$s: tbr-sim derived no quad"
  grep -q '"texture.texels": [1-9]' $s.der.sim/stats.json || fail "$s: no texel simulated"
  [ "$(stat -c %s $s.der/activity.tbrt)" -lt "$(stat -c %s $s.rec/activity.tbrt)" ] || fail "$s: derived trace not smaller"
  TBR_TEST_TEXEL_REJECT_EVERY=5 "$bin/tbr-replay" -q "$samples/$s.trace" -o $s.mix > $s.mix.log 2>&1 ||
    { cat $s.mix.log; fail "$s: tbr-replay with rejected quads"; }
  mixd=$(status_of $s.mix quads_texels_derived) mixr=$(status_of $s.mix quads_texels_recorded)
  [ "$mixd" -gt 0 ] || fail "$s: mixed replay derived no quad"
  [ "$mixr" -gt "$(status_of $s.der quads_texels_recorded)" ] || fail "$s: mixed replay recorded no more quads than the default ($mixr)"
  [ "$(status_of $s.mix quads_texels_mismatched)" = 0 ] || fail "$s: injected rejections counted as mismatches"
  simulate_exact "$bin" $s.mix "$(status_of $s.mix frames_recorded)" "$s (mixed)"
  grep -q '"derived_texel_failures": 0,' $s.mix.sim/stats.json || fail "$s (mixed): tbr-sim could not derive some quads"
  diff <(grep -v derived_texel_quads $s.mix.sim/stats.json) <(grep -v derived_texel_quads $s.rec.sim/stats.json) > /dev/null ||
    fail "$s: stats.json differs between mixed and recorded texels"
  same_frames $s.mix.sim $s.rec.sim "$(status_of $s.mix frames_recorded)" "$s: mixed vs recorded texels"
  echo "$s: mixed records: quads texels derived=$mixd recorded=$mixr"
done
echo "PASS"
