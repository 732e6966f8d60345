#!/usr/bin/env bash
# functional.vertex_hashes: VERTICES out_hash is recorded only with
# tbr-replay --vertex-hashes (records minor 7, docs/trace-records.md VERTICES). The
# depth3d sample (repeated positions: coded as back-references) and blend, replayed
# with and without it:
#  - functional-status.txt says vertex_hashes=0 / 1; every VERTICES record of the
#    default trace has no hashes, every one of the other has them;
#  - both decode to the same vertices (indices, positions, groups): tbr-dump -v of
#    the VERTICES records is identical once out_hash is taken out;
#  - tbr-sim is bit-exact on both with identical stats.json and frames (nothing in
#    the simulator reads out_hash);
#  - the default trace is the smaller one.
#
# usage: vertex_hashes.sh MESA_PREFIX BIN_DIR SAMPLES_DIR WORKDIR
set -u
mesa="$1" bin="$2" samples="$3" work="$4"
. "$(dirname "$0")/common.sh"
functional_setup "$mesa" "$work"

for s in depth3d blend; do
  "$bin/tbr-replay" -q "$samples/$s.trace" -o $s.plain > $s.plain.log 2>&1 || { cat $s.plain.log; fail "$s: tbr-replay"; }
  "$bin/tbr-replay" -q --vertex-hashes "$samples/$s.trace" -o $s.hashes > $s.hashes.log 2>&1 || { cat $s.hashes.log; fail "$s: tbr-replay --vertex-hashes"; }
  [ "$(status_of $s.plain vertex_hashes)" = 0 ] || fail "$s: default replay says vertex_hashes=$(status_of $s.plain vertex_hashes)"
  [ "$(status_of $s.hashes vertex_hashes)" = 1 ] || fail "$s: --vertex-hashes replay says vertex_hashes=$(status_of $s.hashes vertex_hashes)"
  for mode in plain hashes; do
    "$bin/tbr-dump" -v --type vertices $s.$mode/activity.tbrt > $s.$mode.dump 2> $s.$mode.dump.err || { cat $s.$mode.dump.err; fail "$s ($mode): tbr-dump"; }
  done
  n=$(grep -c '\] VERTICES ' $s.plain.dump)
  [ "$n" -gt 0 ] || fail "$s: no VERTICES records"
  [ "$(grep -c '\] VERTICES .* hashes=no$' $s.plain.dump)" = "$n" ] || fail "$s: default trace has VERTICES records with hashes"
  [ "$(grep -c '\] VERTICES .* hashes=yes$' $s.hashes.dump)" = "$n" ] || fail "$s: --vertex-hashes trace has VERTICES records without hashes"
  nv=$(grep -c '^        index .* pos=' $s.plain.dump)
  [ "$(grep -c ' out_hash=[0-9a-f]\{8\}$' $s.hashes.dump)" = "$nv" ] || fail "$s: not every vertex has an out_hash"
  grep -q 'out_hash=' $s.plain.dump && fail "$s: default trace shows out_hash"
  # the records (not the file header: sizes differ)
  grep -E '^  \[[0-9]+\]|^      [a-z]|^        index' $s.plain.dump > $s.plain.recs
  [ "$(wc -l < $s.plain.recs)" -gt "$((n + nv))" ] || fail "$s: records not found in the dump"
  grep -E '^  \[[0-9]+\]|^      [a-z]|^        index' $s.hashes.dump | sed -e 's/ hashes=yes$/ hashes=no/' -e 's/ out_hash=[0-9a-f]\{8\}$//' \
    | cmp -s - $s.plain.recs || fail "$s: the vertices differ between the default and the --vertex-hashes trace"
  frames=$(status_of $s.plain frames_recorded)
  for mode in plain hashes; do simulate_exact "$bin" $s.$mode "$frames" "$s ($mode)"; done
  cmp -s $s.plain.sim/stats.json $s.hashes.sim/stats.json || fail "$s: stats.json differs with --vertex-hashes"
  same_frames $s.plain.sim $s.hashes.sim "$frames" "$s: default vs --vertex-hashes"
  bp=$(stat -c %s $s.plain/activity.tbrt) bh=$(stat -c %s $s.hashes/activity.tbrt)
  [ "$bp" -lt "$bh" ] || fail "$s: default trace ($bp bytes) not smaller than with hashes ($bh)"
  echo "$s: $n VERTICES records, $nv vertices; trace bytes default=$bp --vertex-hashes=$bh"
done
echo "PASS"
