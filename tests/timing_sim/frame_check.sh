#!/bin/sh
# usage: frame_check.sh CASE MESA_PREFIX TRACES_DIR BIN_DIR PNG_TAMPER WORK
# tbr-sim's frame check and output directory on a replay of two frames of a bundled sample
# (issue 22): exit 1 must mean a frame was not shown bit-exact, OUT must be all of one run.
#   check:   a reference with one tampered pixel, a missing and a corrupt reference are failed
#            checks (exit 1, the frame and the pixel count named); --no-check exits 0
#   out_dir: an existing non-empty OUT is refused without --force; --force replaces it whole
#            (no stale frames); a concurrent writer of OUT fails; SIGINT/SIGTERM leave no
#            temporary; a SIGKILLed run's OUT.tmp-N is removed by the next run; a full
#            stdout (/dev/full) is exit 2
set -u
case_=$1 prefix=$2 traces=$3 bin=$4 tamper=$5 work=$6
fail() { echo "FAIL $case_: $*" >&2; exit 1; }
[ -n "$prefix" ] || fail "TBR_MESA_PREFIX is empty"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
"$bin/tbr-replay" -q "$traces/depth3d.trace" --frames 0-1 -o r > replay.log 2>&1 || { cat replay.log; fail "tbr-replay"; }
S="$bin/tbr-sim"
# sim WANT_EXIT ARGS...: tbr-sim with its stdout/stderr in out/err
sim() {
  want=$1; shift
  "$S" "$@" > out 2> err; rc=$?
  [ $rc -eq "$want" ] || { cat out err; fail "tbr-sim $* exited $rc, expected $want"; }
}
# start_held OUT ARGS...: starts tbr-sim r -o OUT ARGS in the background and stops it (SIGSTOP)
# while it holds OUT's lock and writes OUT.tmp-N; $p is its pid. Retries when a run ends
# before it could be stopped (a run takes a fraction of a second).
start_held() {
  o=$1; shift
  for try in $(seq 50); do
    "$S" r -o "$o" "$@" > /dev/null 2>&1 & p=$!
    i=0; while ! ls -d "$o".tmp-* > /dev/null 2>&1 && [ $i -lt 500 ]; do sleep 0.005; i=$((i + 1)); done
    kill -STOP $p 2>/dev/null && [ -e "$o.lock" ] && ls -d "$o".tmp-* > /dev/null 2>&1 && return 0
    kill -CONT $p 2>/dev/null; wait $p
  done
  fail "could not catch a run of tbr-sim while it writes $o"
}
has() { grep -q -- "$2" "$1" || { cat "$1"; fail "$1 lacks '$2'"; }; }
json() { python3 -c "import json,sys; print(json.load(open('$1/stats.json'))$2)"; }
case $case_ in
check)
  sim 0 r -o ok
  has out "2 frames checked, 2 bit-exact, 0 differ, 0 without a usable reference"
  # one pixel of frame 1's reference changed: exit 1, frame 1 and "1 pixel(s)" named
  cp -r r t; "$tamper" r/reference/frame_00001.png t/reference/frame_00001.png 5 7 || fail "png_tamper"
  sim 1 t -o t.sim
  has err "frame 1 DIFFERS from its reference .*frame_00001.png: 1 pixel(s), max channel difference 1"
  has out "2 frames checked, 1 bit-exact, 1 differ"
  [ "$(json t.sim "['frames'][1]['diff_pixels']")" = 1 ] || fail "stats.json diff_pixels"
  [ "$(json t.sim "['frames_differing']")" = 1 ] || fail "stats.json frames_differing"
  # a missing reference: not "2/2 checked" and exit 0 (issue 22), a failed check
  cp -r r m; rm m/reference/frame_00000.png
  sim 1 m -o m.sim
  has err "frame 0: reference missing"
  has out "1 frames checked, 1 bit-exact, 0 differ, 1 without a usable reference"
  [ "$(json m.sim "['frames'][0]['reference']")" = missing ] || fail "stats.json: frame 0 not 'missing'"
  # a corrupt reference (truncated PNG)
  cp -r r c; head -c 100 r/reference/frame_00001.png > c/reference/frame_00001.png
  sim 1 c -o c.sim
  has err "frame 1: reference unreadable"
  [ "$(json c.sim "['frames_without_reference']")" = 1 ] || fail "stats.json frames_without_reference"
  # the user asked for no check: exit 0, said so
  sim 0 m -o n.sim --no-check
  has out "reference check off (--no-check)"
  [ "$(json n.sim "['reference_check']")" = False ] || fail "stats.json reference_check" ;;
out_dir)
  sim 0 r -o o
  sim 2 r -o o
  has err "o: already exists and is not empty (use --force to replace it)"
  mkdir e; sim 0 r -o e  # an empty directory is fine
  # --force must not replace the replay the run reads
  sim 2 r -o r --force
  has err "is the input's directory"
  [ -s r/activity.tbrt ] || fail "the input was replaced"
  # --force replaces OUT whole: a one-frame run leaves no frame of the two-frame run
  sim 0 r -o o --force --frames 1
  [ ! -e o/frames/frame_00000.png ] && [ -e o/frames/frame_00001.png ] || fail "stale frames after --force"
  [ "$(json o "['frames_simulated']")" = 1 ] || fail "stats.json not of the last run"
  # a second writer of the same OUT fails at once, the first one completes
  start_held w --quiet
  sim 2 r -o w --force
  has err "w: another run is writing this output directory"
  kill -CONT $p; wait $p || fail "the first writer failed"
  [ "$(json w "['frames_simulated']")" = 2 ] || fail "w incomplete"
  # SIGINT and SIGTERM: no temporary and no lock file left, the previous OUT untouched
  for sig in INT TERM; do
    start_held o --force
    kill -$sig $p; kill -CONT $p; wait $p
    ls -d o.tmp-* o.lock 2>/dev/null && fail "SIG$sig left a temporary"
    [ "$(json o "['frames_simulated']")" = 1 ] || fail "SIG$sig: the previous OUT changed"
  done
  # SIGKILL: OUT.tmp-N stays (recognisable), readers refuse it, the next run removes it
  start_held o --force
  kill -KILL $p; wait $p
  left=$(ls -d o.tmp-* 2>/dev/null) || fail "no temporary after SIGKILL"
  if "$bin/tbr-report" "$left" -o rep > rep.log 2>&1; then fail "tbr-report accepted $left"; fi
  has rep.log "unfinished tbr-sim output"
  sim 0 r -o o --force
  ls -d o.tmp-* 2>/dev/null && fail "stale temporary not removed"
  # a full stdout is an error (exit 2, said), not a lost result
  "$S" r -o f > /dev/full 2> err; rc=$?
  [ $rc -eq 2 ] || fail "stdout on /dev/full: exit $rc"
  has err "standard output: No space left on device" ;;
*) fail "unknown case" ;;
esac
echo "PASS $case_"
