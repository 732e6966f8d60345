#!/usr/bin/env bash
# Two tbr-replays of one trace give byte-identical activity traces (issue 22: on the mipmap
# sample the SURFACE_INIT records of the mip levels glGenerateMipmap renders held
# uninitialised memory, different from replay to replay; softpipe's texture storage is now
# zeroed, functional/mesa/patches/0006). The output directories' names differ in length,
# which moves the replayer's heap: that is what made the old records differ.
# usage: replay_determinism.sh BIN_DIR MESA_PREFIX TRACE WORK
set -uo pipefail
bin="$1"; mesa="$2"; trace="$3"; work="$4"
fail() { echo "FAIL: $*"; exit 1; }
[ -n "$mesa" ] || fail "TBR_MESA_PREFIX is empty: build with scripts/test"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
names=(a r1 a_much_longer_output_directory_name)
for n in "${names[@]}"; do
  "$bin/tbr-replay" -q "$trace" -o "$n" > "$n.log" 2>&1 || { cat "$n.log"; fail "tbr-replay into $n"; }
done
for n in "${names[@]:1}"; do
  if ! cmp "${names[0]}/activity.tbrt" "$n/activity.tbrt"; then
    diff <("$bin/tbr-dump" -v "${names[0]}/activity.tbrt" | tail -n +2) <("$bin/tbr-dump" -v "$n/activity.tbrt" | tail -n +2) | head -8
    fail "the activity traces of two replays differ (${names[0]}, $n)"
  fi
  for f in "${names[0]}"/reference/*.png; do cmp -s "$f" "$n/reference/${f##*/}" || fail "$n: ${f##*/} differs"; done
done
echo "PASS: ${#names[@]} replays byte-identical"
