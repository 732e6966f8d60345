#!/usr/bin/env bash
# Compute shaders (issue 24): the ES 3.1 compute sample (samples/compute.c; its trace
# samples/unsupported/compute.trace) dispatches compute work that nothing records. tbr-replay
# refuses the trace naming the calls (exit 2); with --allow-unsupported it replays, and
# tbr-sim still checks every frame: the frames that sample what the compute shader wrote
# differ, a failed check (exit 1), never a silent pass.
# usage: replay_compute.sh BIN_DIR MESA_PREFIX TRACE WORK
set -uo pipefail
bin="$1"; mesa="$2"; trace="$3"; work="$4"
fail() { echo "FAIL: $*"; exit 1; }
[ -n "$mesa" ] || fail "TBR_MESA_PREFIX is empty: build with scripts/test"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
"$bin/tbr-replay" -q "$trace" -o refused > refused.log 2>&1
rc=$?
[ $rc = 2 ] || { cat refused.log; fail "tbr-replay of a compute trace: exit $rc, expected 2"; }
grep -q 'glDispatchCompute x5 (first at call 56)' refused.log || { cat refused.log; fail "the message does not name the calls"; }
[ ! -e refused ] || fail "a refused replay left its output"
"$bin/tbr-replay" -q --allow-unsupported "$trace" -o allowed > allowed.log 2>&1 || { cat allowed.log; fail "--allow-unsupported replay"; }
"$bin/tbr-sim" -q allowed -o allowed.sim > sim.log 2>&1
rc=$?
[ $rc = 1 ] || { cat sim.log; fail "tbr-sim on the compute replay: exit $rc, expected 1 (frames differ)"; }
grep -q '"frames_checked": 5' allowed.sim/stats.json || fail "tbr-sim did not check the 5 frames"
echo "PASS: compute trace refused naming glDispatchCompute; allowed, its frames are checked and differ"
