#!/usr/bin/env bash
# functional.derived_depths: the recorder leaves out the depths of QUADS records whose
# quads' depths the reader computes bit for bit from their primitive's PRIM window
# positions and the DRAW state, and every reader computes them (records minor 12,
# docs/trace-records.md QUADS "Derived depths"). For samples with depth testing, replayed
# by default, with TBR_RECORD_DEPTHS=1 (every depth stored) and with
# TBR_TEST_DEPTH_REJECT_EVERY=3 (every 3rd derivable quad is stored instead, so derived
# and stored records alternate in one draw):
#  - the default replay derives depths, TBR_RECORD_DEPTHS=1 none, the mixed one both;
#  - tbr-sim is bit-exact on every frame of all three, and stats.json and the simulated
#    frames are identical between them (the same depths reach the depth test);
#  - the derived trace is smaller than the stored one; tbr-dump -v names derived depths.
# (The trace checker's re-rendering derives depths too: functional.e2e.)
# usage: derived_depths.sh MESA_PREFIX BIN_DIR SAMPLES_DIR WORKDIR
set -u
mesa="$1" bin="$2" samples="$3" work="$4"
. "$(dirname "$0")/common.sh"
functional_setup "$mesa" "$work"

for s in depth3d game3d; do
  trace="$samples/$s.trace"
  "$bin/tbr-replay" -q "$trace" -o $s.der > $s.der.log 2>&1 || { cat $s.der.log; fail "$s: tbr-replay"; }
  TBR_RECORD_DEPTHS=1 "$bin/tbr-replay" -q "$trace" -o $s.rec > $s.rec.log 2>&1 ||
    { cat $s.rec.log; fail "$s: tbr-replay with TBR_RECORD_DEPTHS=1"; }
  TBR_TEST_DEPTH_REJECT_EVERY=3 "$bin/tbr-replay" -q "$trace" -o $s.mix > $s.mix.log 2>&1 ||
    { cat $s.mix.log; fail "$s: tbr-replay with TBR_TEST_DEPTH_REJECT_EVERY=3"; }
  der=$(status_of $s.der quads_depths_derived)
  [ "$(status_of $s.der derived_depths)" = 1 ] && [ "${der:-0}" -gt 0 ] || fail "$s: no depths derived by default"
  [ "$(status_of $s.rec derived_depths)" = 0 ] && [ "$(status_of $s.rec quads_depths_derived)" = 0 ] ||
    fail "$s: TBR_RECORD_DEPTHS=1 derived depths"
  mixd=$(status_of $s.mix quads_depths_derived) mixr=$(status_of $s.mix quads_depths_recorded)
  [ "$mixd" -gt 0 ] && [ "$mixr" -gt "$(status_of $s.der quads_depths_recorded)" ] ||
    fail "$s: the mixed replay has no records of both kinds (derived $mixd, recorded $mixr)"
  frames=$(status_of $s.der frames_recorded)
  for mode in der rec mix; do simulate_exact "$bin" $s.$mode "$frames" "$s ($mode)"; done
  for mode in rec mix; do
    cmp -s $s.der.sim/stats.json $s.$mode.sim/stats.json || fail "$s: stats.json differs between der and $mode"
    same_frames $s.der.sim $s.$mode.sim "$frames" "$s: der vs $mode"
  done
  [ "$(stat -c %s $s.der/activity.tbrt)" -lt "$(stat -c %s $s.rec/activity.tbrt)" ] ||
    fail "$s: the derived-depth trace is not smaller than the stored-depth one"
  "$bin/tbr-dump" -v $s.der/activity.tbrt 2> /dev/null | grep -q 'depths=derived' || fail "$s: tbr-dump -v does not name derived depths"
  echo "$s: quads depths derived=$der recorded=$(status_of $s.der quads_depths_recorded) mismatched=$(status_of $s.der quads_depths_mismatched); mixed derived=$mixd recorded=$mixr; bytes derived=$(stat -c %s $s.der/activity.tbrt) stored=$(stat -c %s $s.rec/activity.tbrt)"
done
echo "PASS: derived depths"
