#!/usr/bin/env bash
# tbr-replay's output directory (issue 22): a second replay into a directory another replay
# is writing fails even with --force (OUTDIR.lock); a SIGKILLed tbr-replay does not leave
# eglretrace running as an orphan (PR_SET_PDEATHSIG), and its OUTDIR.tmp-N is removed by the
# next replay of OUTDIR.
# usage: replay_outdir.sh BIN_DIR MESA_PREFIX TRACE WORK
set -uo pipefail
bin="$1"; mesa="$2"; trace="$3"; work="$4"
fail() { echo "FAIL: $*"; exit 1; }
[ -n "$mesa" ] || fail "TBR_MESA_PREFIX is empty: build with scripts/test"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
# wait_for PATTERN: until a path matching the glob exists (10 s at most)
wait_for() { for _ in $(seq 1000); do compgen -G "$1" > /dev/null && return 0; sleep 0.01; done; return 1; }
# alive PID: the process exists and is not a zombie
alive() { [ -e "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }

# 1. The first replay holds out.lock (stopped while it does); a second one, even --force, fails.
# (frames 0-1 only where the whole trace is not needed: the sanitized build is slow)
"$bin/tbr-replay" -q "$trace" --frames 0-1 -o "$PWD/out" > r1.log 2>&1 & first=$!
wait_for "out.tmp-*" || fail "the first replay never created its temporary"
kill -STOP $first
"$bin/tbr-replay" -q "$trace" --frames 0-1 -o "$PWD/out" --force > r2.log 2>&1; rc=$?
kill -CONT $first
[ $rc -eq 2 ] || { cat r2.log; fail "a second replay into out exited $rc while another was writing it"; }
grep -q "another run is writing this output directory" r2.log || { cat r2.log; fail "no clear message"; }
wait $first || { cat r1.log; fail "the first replay failed"; }
[ -s out/activity.tbrt ] || fail "the first replay's output is incomplete"
echo "ok   concurrent --force refused"

# 2. SIGKILL of tbr-replay while eglretrace runs: eglretrace dies with it.
"$bin/tbr-replay" -q "$trace" -o "$PWD/k" > k.log 2>&1 & rp=$!
child=""
for _ in $(seq 1000); do child=$(pgrep -P $rp -x eglretrace) && break; sleep 0.01; done
[ -n "$child" ] || fail "eglretrace of the replay not found"
kill -KILL $rp; wait $rp 2>/dev/null
for _ in $(seq 100); do alive "$child" || break; sleep 0.02; done
if alive "$child"; then kill -KILL "$child"; fail "eglretrace ($child) kept running after tbr-replay was killed"; fi
compgen -G "k.tmp-*" > /dev/null || fail "no leftover to clean (the replay ended before it was killed)"
echo "ok   no orphan eglretrace after SIGKILL"

# 3. The next replay of k removes the killed run's k.tmp-N.
"$bin/tbr-replay" -q "$trace" --frames 0-1 -o "$PWD/k" > k2.log 2>&1 || { cat k2.log; fail "replay after the kill"; }
compgen -G "k.tmp-*" > /dev/null && fail "stale $(compgen -G 'k.tmp-*') not removed"
[ ! -e k.lock ] || fail "lock file left"
echo "ok   stale temporary removed"
echo PASS
