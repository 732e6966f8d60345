#!/usr/bin/env bash
# functional.vertex_hashes: VERTICES out_hash is recorded only with
# tbr-replay --vertex-hashes (records minor 7), the clip positions only with
# --vertex-positions or --vertex-hashes (minor 10, docs/trace-records.md VERTICES). The
# depth3d sample (repeated positions: coded as back-references) and blend, replayed
# three ways (default, --vertex-positions, --vertex-hashes):
#  - functional-status.txt says vertex_hashes / vertex_positions 0 0, 0 1, 1 1; every
#    VERTICES record of the default trace has neither (positions=no hashes=no), every
#    one of the second has positions and no hashes, every one of the third both;
#  - all three decode to the same groups (paths, counts, indices), the second and third
#    to the same positions: tbr-dump -v of the VERTICES records is identical once what
#    a mode leaves out is taken out;
#  - tbr-sim is bit-exact on all three with identical stats.json and frames (nothing in
#    the simulator reads positions or out_hash);
#  - default < --vertex-positions < --vertex-hashes in trace bytes.
#
# usage: vertex_hashes.sh MESA_PREFIX BIN_DIR SAMPLES_DIR WORKDIR
set -u
mesa="$1" bin="$2" samples="$3" work="$4"
. "$(dirname "$0")/common.sh"
functional_setup "$mesa" "$work"

modes="plain positions hashes"
opt_plain="" opt_positions="--vertex-positions" opt_hashes="--vertex-hashes"
records() { grep -E '^  \[[0-9]+\]|^      [a-z]|^        index' "$1"; }
for s in depth3d blend; do
  for mode in $modes; do
    opt=opt_$mode
    "$bin/tbr-replay" -q ${!opt} "$samples/$s.trace" -o $s.$mode > $s.$mode.log 2>&1 || { cat $s.$mode.log; fail "$s: tbr-replay ${!opt}"; }
    "$bin/tbr-dump" -v --type vertices $s.$mode/activity.tbrt > $s.$mode.dump 2> $s.$mode.dump.err || { cat $s.$mode.dump.err; fail "$s ($mode): tbr-dump"; }
  done
  st() { echo "$(status_of $s.$1 vertex_hashes) $(status_of $s.$1 vertex_positions)"; }
  [ "$(st plain)" = "0 0" ] || fail "$s: default replay says vertex_hashes, vertex_positions = $(st plain)"
  [ "$(st positions)" = "0 1" ] || fail "$s: --vertex-positions replay says $(st positions)"
  [ "$(st hashes)" = "1 1" ] || fail "$s: --vertex-hashes replay says $(st hashes)"
  n=$(grep -c '\] VERTICES ' $s.plain.dump)
  [ "$n" -gt 0 ] || fail "$s: no VERTICES records"
  [ "$(grep -c '\] VERTICES .* positions=no hashes=no$' $s.plain.dump)" = "$n" ] || fail "$s: default trace has VERTICES records with positions or hashes"
  grep -q ' pos=' $s.plain.dump && fail "$s: default trace shows positions"
  [ "$(grep -c '\] VERTICES .*[0-9] hashes=no$' $s.positions.dump)" = "$n" ] || fail "$s: --vertex-positions trace has records without positions or with hashes"
  [ "$(grep -c '\] VERTICES .*[0-9] hashes=yes$' $s.hashes.dump)" = "$n" ] || fail "$s: --vertex-hashes trace has VERTICES records without positions or hashes"
  nv=$(grep -c '^        index .* pos=' $s.positions.dump)
  [ "$nv" -gt 0 ] || fail "$s: --vertex-positions trace shows no positions"
  [ "$(grep -c ' out_hash=[0-9a-f]\{8\}$' $s.hashes.dump)" = "$nv" ] || fail "$s: not every vertex has an out_hash"
  grep -q 'out_hash=' $s.positions.dump && fail "$s: --vertex-positions trace shows out_hash"
  # the records (not the file header: sizes differ)
  records $s.positions.dump > $s.positions.recs
  [ "$(wc -l < $s.positions.recs)" -gt "$((n + nv))" ] || fail "$s: records not found in the dump"
  records $s.hashes.dump | sed -e 's/ hashes=yes$/ hashes=no/' -e 's/ out_hash=[0-9a-f]\{8\}$//' \
    | cmp -s - $s.positions.recs || fail "$s: the vertices differ between the --vertex-positions and --vertex-hashes traces"
  grep -v '^        index' $s.positions.recs | sed 's/ hashes=no$/ positions=no hashes=no/' > $s.groups
  records $s.plain.dump | cmp -s - $s.groups || fail "$s: the groups differ between the default and the --vertex-positions trace"
  frames=$(status_of $s.plain frames_recorded)
  for mode in $modes; do simulate_exact "$bin" $s.$mode "$frames" "$s ($mode)"; done
  for mode in positions hashes; do
    cmp -s $s.plain.sim/stats.json $s.$mode.sim/stats.json || fail "$s: stats.json differs with --vertex-$mode"
    same_frames $s.plain.sim $s.$mode.sim "$frames" "$s: default vs --vertex-$mode"
  done
  bp=$(stat -c %s $s.plain/activity.tbrt) bq=$(stat -c %s $s.positions/activity.tbrt) bh=$(stat -c %s $s.hashes/activity.tbrt)
  [ "$bp" -lt "$bq" ] || fail "$s: default trace ($bp bytes) not smaller than with positions ($bq)"
  [ "$bq" -lt "$bh" ] || fail "$s: --vertex-positions trace ($bq bytes) not smaller than with hashes ($bh)"
  echo "$s: $n VERTICES records, $nv vertices; trace bytes default=$bp --vertex-positions=$bq --vertex-hashes=$bh"
done
echo "PASS"
