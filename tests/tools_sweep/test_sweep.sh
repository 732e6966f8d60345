#!/bin/sh
# tools_sweep.* tests of tbr-sweep (docs/sweeps.md): test_sweep.sh BIN_DIR SRC_DIR WORK CASE
# CASE replays runs once (the fixture: blend and rtt replayed into WORK/replays); the other
# cases read those replays or replay the bundled sample traces themselves.
set -u
BIN=$(cd "$1" && pwd) SRC=$2 WORK=$3 CASE=$4
SW=$BIN/tbr-sweep
W=$WORK/$CASE
R=$WORK/replays
HERE=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
# expect_exit CODE PATTERN CMD...: exit status CODE and stderr containing PATTERN
expect_exit() {
  code=$1 pat=$2; shift 2
  "$@" >"$W/out" 2>"$W/err"; rc=$?
  [ $rc -eq "$code" ] || { cat "$W/err"; fail "$* exited $rc, expected $code"; }
  [ -z "$pat" ] || grep -q -- "$pat" "$W/err" || { cat "$W/err"; fail "$*: stderr lacks '$pat'"; }
}
# csv_get CSV WORKLOAD CONFIG COLUMN
csv_get() {
  python3 - "$@" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(next(r[sys.argv[4]] for r in rows if r["workload"] == sys.argv[2] and r["config"] == sys.argv[3]))
PY
}
[ "$CASE" = replays ] || [ -f "$R/blend/activity.tbrt" ] || fail "no fixture replays in $R (test tools_sweep.replays)"
rm -rf "$W"; mkdir -p "$W"

case $CASE in
replays)
  rm -rf "$R"; mkdir -p "$R"
  for s in blend rtt; do
    "$BIN/tbr-replay" -q "$SRC/samples/traces/$s.trace" -o "$R/$s" || fail "tbr-replay $s"
  done ;;
usage)
  expect_exit 0 "" "$SW" --help
  grep -q "run SWEEP \[--out DIR\] --local" "$W/out" || fail "--help"
  expect_exit 0 "" "$SW" --version
  grep -q "^tbr-sweep " "$W/out" || fail "--version"
  expect_exit 2 "a subcommand is needed" "$SW"
  expect_exit 2 "unknown subcommand 'jump'" "$SW" jump x.sweep
  expect_exit 2 "unknown option --fast" "$SW" plan x.sweep --fast
  expect_exit 2 "needs a SWEEP file" "$SW" status
  expect_exit 2 "x.sweep: No such file" "$SW" plan "$W/x.sweep"
  printf '[workload a]\ndir = %s\n[config c]\n[collect]\nstat = total_cycles\n' "$R/blend" >"$W/ok.sweep"
  expect_exit 2 "needs one of --local and --slurm" "$SW" run "$W/ok.sweep" --out "$W/o"
  expect_exit 2 "bad number for -j" "$SW" run "$W/ok.sweep" --out "$W/o" --local -j 0 ;;
parse_errors)
  # each: the file, then the line and key the message must name
  bad() { # bad NAME PATTERN: the file W/NAME.sweep (from stdin) must be rejected with PATTERN
    cat >"$W/$1.sweep"
    expect_exit 2 "$1.sweep:$2" "$SW" plan "$W/$1.sweep" --out "$W/o"
  }
  bad unknown_key "3: unknown key 'colour' in \[workload\]" <<EOF
[workload a]
dir = $R/blend
colour = red
EOF
  bad unknown_section "1: unknown section '\[workloads\]'" <<EOF
[workloads a]
EOF
  bad grid_no_values "4: bad grid: 'vary = tile.raster_units' lists no values" <<EOF
[workload a]
dir = $R/blend
[grid g]
vary = tile.raster_units
EOF
  bad grid_bad_value "4: bad grid: value '1/2' of 'tile.raster_units'" <<EOF
[workload a]
dir = $R/blend
[grid g]
vary = tile.raster_units 1 1/2
EOF
  bad grid_twice "5: bad grid: 'tile.width' varied twice" <<EOF
[workload a]
dir = $R/blend
[grid g]
vary = tile.width 16 32
vary = tile.width 8
EOF
  bad grid_no_vary "4: grid 'g' has no 'vary' line" <<EOF
[grid g]
set = tile.width=16

[config c]
EOF
  bad no_workload "5: no \[workload NAME\] section" <<EOF
[config c]
set = tile.width=16
[collect]
stat = total_cycles

EOF
  bad workload_both "1: workload 'a' needs exactly one of 'dir'" <<EOF
[workload a]
dir = $R/blend
trace = $SRC/samples/traces/blend.trace
[config c]
EOF
  bad missing_dir "1: workload 'a': $W/nonexistent/activity.tbrt: No such file or directory" <<EOF
[workload a]
dir = $W/nonexistent
[config c]
[collect]
stat = total_cycles
EOF
  bad set_spaces "4: 'set' needs KEY=VALUE" <<EOF
[workload a]
dir = $R/blend
[config c]
set = tile.width = 16
EOF
  bad shard_no_frames "1: workload 'a': 'shard' needs 'frames = A-B'" <<EOF
[workload a]
dir = $R/blend
shard = 2
EOF
  bad normalize "7: 'normalize = d' names no configuration" <<EOF
[workload a]
dir = $R/blend
[config c]
[collect]
stat = total_cycles
normalize = d

EOF
  bad dup_config "4: grid 'g': configuration 'g-16' defined twice" <<EOF
[config g-16]
[grid g]
vary = tile.width 16 32
[collect]
EOF
  ;;
plan_grid)
  # 2 workloads (one sharded: frames 0-4, 2 per shard, 1 warm-up) x (1 config + a 2x2 grid):
  # 10 cells; shards 0-1 (from 0), 2-3 (from 1), 4-4 (from 3), worked out by hand.
  mkdir -p "$W/fake"; : >"$W/fake/activity.tbrt"
  printf 'tile.width = 32\n' >"$W/p.conf"
  cat >"$W/g.sweep" <<EOF
[sweep]
name = hand
output = out
[workload a]
dir = fake
[workload b]
dir = fake
frames = 0-4
shard = 2
warmup = 1
[config base]
preset = p.conf
[grid g]
set = re.enabled=true
vary = tile.raster_units 1 2
vary = tile.ru_assignment static mixed
[collect]
stat = total_cycles
EOF
  "$SW" plan "$W/g.sweep" >"$W/plan" || fail "plan"
  O=$W/out S="$BIN/tbr-sim $W/fake -o $W/out/cells"
  G="--set re.enabled=true --set tile.raster_units"
  cat >"$W/expected" <<EOF
sweep hand: 2 workloads x 5 configurations = 10 cells, 20 tasks
output $O
cell 0 a/base [pending]
  task 0: $S/a/base/run --config $W/p.conf
cell 1 a/g-1-static [pending]
  task 1: $S/a/g-1-static/run $G=1 --set tile.ru_assignment=static
cell 2 a/g-1-mixed [pending]
  task 2: $S/a/g-1-mixed/run $G=1 --set tile.ru_assignment=mixed
cell 3 a/g-2-static [pending]
  task 3: $S/a/g-2-static/run $G=2 --set tile.ru_assignment=static
cell 4 a/g-2-mixed [pending]
  task 4: $S/a/g-2-mixed/run $G=2 --set tile.ru_assignment=mixed
EOF
  t=5 ci=5
  for c in base g-1-static g-1-mixed g-2-static g-2-mixed; do
    case $c in base) a="--config $W/p.conf" ;; *) v=${c#g-}; a="$G=${v%-*} --set tile.ru_assignment=${v#*-}" ;; esac
    echo "cell $ci b/$c [pending]" >>"$W/expected"
    ci=$((ci + 1))
    for s in "0 1 0" "2 3 1" "4 4 3"; do
      set -- $s
      echo "  task $t frames $1-$2 (warm-up from $3): $S/b/$c/shard-$1-$2 $a --frames $3-$2" >>"$W/expected"
      t=$((t + 1))
    done
  done
  echo "statistics: total_cycles" >>"$W/expected"
  diff "$W/expected" "$W/plan" || fail "plan differs from the one worked out by hand"
  [ ! -e "$W/out/cells" ] || fail "plan ran something" ;;
run_collect)
  cat >"$W/s.sweep" <<EOF
[sweep]
name = rc
output = out
[workload blend]
trace = $SRC/samples/traces/blend.trace
replay_frames = 0-1
frames = 1-1
[workload rtt]
dir = $R/rtt
frames = 0-1
[config baseline]
[config ptr]
set = tile.raster_units=2
[collect]
stat = total_cycles dram.bytes energy_total
EOF
  "$SW" run "$W/s.sweep" --local -j 2 2>"$W/run.err" || { cat "$W/run.err"; fail "run --local"; }
  "$SW" collect "$W/s.sweep" --charts "$W/charts" >"$W/summary" || fail "collect"
  cat "$W/out/results.csv" "$W/summary"
  head -1 "$W/out/results.csv" | grep -qx \
    "workload,config,tile.raster_units,total_cycles,dram.bytes,energy_total,frames_checked,frames_bit_exact,tasks,status" ||
    fail "CSV header"
  [ "$(grep -c ',done$' "$W/out/results.csv")" = 4 ] || fail "4 done rows expected"
  # the CSV's figures are the cell's stats.json's
  python3 - "$W/out" <<'PY' || fail "CSV values differ from stats.json"
import csv, json, sys
out = sys.argv[1]
for r in csv.DictReader(open(out + "/results.csv")):
    d = json.load(open(f"{out}/cells/{r['workload']}/{r['config']}/run/stats.json"))
    assert int(r["total_cycles"]) == d["total_cycles"], r
    assert int(r["dram.bytes"]) == d["stats"]["stats"]["dram.bytes"]["value"], r
    assert float(r["energy_total"]) == d["energy"]["total"]["total_pj"], r
    assert r["tile.raster_units"] == str(d["config"]["tile.raster_units"]), r
    n = len(d["frames"])
    assert int(r["frames_checked"]) == n and int(r["frames_bit_exact"]) == n, r
    assert n == (1 if r["workload"] == "blend" else 2), r
PY
  grep -q "^rtt  *ptr  *0\.[0-9]* " "$W/summary" || fail "summary: rtt ptr normalised below 1"
  python3 -c "
import sys, xml.dom.minidom as m
d = m.parse('$W/charts/total_cycles.svg')
t = [x.firstChild.data for x in d.getElementsByTagName('text')]
assert 'blend' in t and 'ptr' in t, t
assert len(d.getElementsByTagName('rect')) >= 1 + 4 + 2
" || fail "chart"
  grep -q '<img src="total_cycles.svg"' "$W/charts/index.html" || fail "HTML page"
  find "$W/out" -name '*.tmp' | grep . && fail "temp files left"
  "$SW" run "$W/s.sweep" --local -j 2 2>"$W/rerun.err" || fail "second run"
  grep -q "4 tasks complete (skipped), 0 to run" "$W/rerun.err" || { cat "$W/rerun.err"; fail "rerun did not skip"; } ;;
failure)
  cat >"$W/s.sweep" <<EOF
[workload blend]
dir = $R/blend
frames = 0-0
[config good]
[config bad]
set = no.such_key=1
[config good2]
set = tile.raster_units=2
[collect]
stat = total_cycles
EOF
  expect_exit 1 "FAILED blend/bad/run: exit 2, log $W/o/logs/blend/bad/run.log" \
    "$SW" run "$W/s.sweep" --out "$W/o" --local -j 2
  grep -q "no.such_key" "$W/o/logs/blend/bad/run.log" || fail "the log lacks tbr-sim's message"
  "$SW" status "$W/s.sweep" --out "$W/o" >"$W/status" || fail status
  cat "$W/status"
  grep -q "failed: $W/o/cells/blend/bad/run  log $W/o/logs/blend/bad/run.log" "$W/status" || fail "status: no log"
  grep -q "3 cells: 2 done, 0 running (or interrupted), 1 failed, 0 pending" "$W/status" || fail "status counts"
  expect_exit 1 "1 of 3 cells not done" "$SW" collect "$W/s.sweep" --out "$W/o"
  grep -q "^blend,bad,,,,,,1,failed$" "$W/o/results.csv" || { cat "$W/o/results.csv"; fail "failed row"; }
  [ -e "$W/o/cells/blend/bad/run" ] && fail "a failed cell has an output directory"
  # the fix: the sweep file corrected, only that cell runs again
  sed -i 's/no.such_key=1/tile.raster_units=1/' "$W/s.sweep"
  "$SW" run "$W/s.sweep" --out "$W/o" --local 2>"$W/err" || { cat "$W/err"; fail "rerun"; }
  grep -q "2 tasks complete (skipped), 1 to run" "$W/err" || { cat "$W/err"; fail "rerun: only the failed cell"; } ;;
resume)
  # 6 cells, one at a time; SIGTERM once two are complete; the rerun does only the others
  cat >"$W/s.sweep" <<EOF
[workload blend]
dir = $R/blend
frames = 0-0
[grid g]
vary = tile.raster_units 1 2 3
vary = re.enabled false true
[collect]
stat = total_cycles
EOF
  "$SW" run "$W/s.sweep" --out "$W/o" --local -j 1 2>"$W/run1.err" &
  pid=$!
  i=0
  while [ "$(find "$W/o/cells" -name done 2>/dev/null | wc -l)" -lt 2 ] && [ $i -lt 2400 ]; do sleep 0.1; i=$((i + 1)); done
  kill -TERM $pid
  wait $pid; rc=$?
  cat "$W/run1.err"
  [ $rc -eq 130 ] || fail "interrupted run exited $rc, expected 130"
  find "$W/o/cells" -name done | sort >"$W/done1"
  n1=$(wc -l <"$W/done1")
  [ "$n1" -ge 2 ] && [ "$n1" -lt 6 ] || fail "$n1 cells complete after the kill (expected 2..5)"
  ls -d "$W"/o/cells/blend/*/run.tmp >/dev/null 2>&1 || fail "the interrupted cell left no temp directory"
  "$SW" status "$W/s.sweep" --out "$W/o" | grep -q "running (or interrupted)" || fail "status"
  for d in $(cat "$W/done1"); do stat -c '%i %Y' "$d"; done >"$W/inodes1"
  "$SW" run "$W/s.sweep" --out "$W/o" --local -j 1 2>"$W/run2.err" || { cat "$W/run2.err"; fail "resume"; }
  cat "$W/run2.err"
  grep -q "$n1 tasks complete (skipped), $((6 - n1)) to run" "$W/run2.err" || fail "resume count"
  for d in $(cat "$W/done1"); do stat -c '%i %Y' "$d"; done | cmp -s - "$W/inodes1" || fail "a complete cell was redone"
  # the cells the rerun did are exactly those the kill left unfinished
  sed -n 's/^tbr-sweep: done blend\/\(.*\)\/run$/\1/p' "$W/run2.err" | sort >"$W/redone"
  sed 's|.*/cells/blend/\(.*\)/run/done|\1|' "$W/done1" >"$W/kept"
  for c in g-1-false g-1-true g-2-false g-2-true g-3-false g-3-true; do echo $c; done | sort >"$W/all"
  sort "$W/kept" "$W/redone" | cmp -s - "$W/all" || fail "redone + kept != all cells"
  [ "$(find "$W/o/cells" -name done | wc -l)" = 6 ] || fail "not all complete"
  find "$W/o" -name '*.tmp' | grep . && fail "temp files left"
  : ;;
shard_merge)
  # frames 1-3 of blend. sh: shards 1-2 and 3 (warm-up frame 2); one: a single shard (the whole window, no warm-up);
  # un: not sharded. Merged = the sum over the shards' counted frames (checked from the
  # shards' own stats.json); a single shard = the unsharded totals.
  cat >"$W/s.sweep" <<EOF
[workload sh]
dir = $R/blend
frames = 1-3
shard = 2
warmup = 1
[workload one]
dir = $R/blend
frames = 1-3
shard = 3
[workload un]
dir = $R/blend
frames = 1-3
[config base]
set = tile.raster_units=2
[collect]
stat = total_cycles dram.bytes energy_total cycles.raster
EOF
  "$SW" run "$W/s.sweep" --out "$W/o" --local -j 2 2>"$W/err" || { cat "$W/err"; fail "run"; }
  "$SW" collect "$W/s.sweep" --out "$W/o" >/dev/null || fail "collect"
  cat "$W/o/results.csv"
  python3 - "$W/o" <<'PY' || fail "merged statistics"
import csv, json, sys
out = sys.argv[1]
rows = {(r["workload"], r["config"]): r for r in csv.DictReader(open(out + "/results.csv"))}
def shard_sum(cfg, shards):
    tot = {"total_cycles": 0, "dram.bytes": 0, "energy_total": 0.0, "cycles.raster": 0}
    for a, b, first_sim in shards:
        d = json.load(open(f"{out}/cells/sh/{cfg}/shard-{a}-{b}/stats.json"))
        frames = [f["frame"] for f in d["frames"]]
        assert frames == list(range(first_sim, b + 1)), frames  # warm-up simulated too
        # cycles: the span from the previous frame's last flush (0 without warm-up) to the
        # last counted frame's (frames overlap, so their own cycles add up to more)
        ends = {f["frame"]: f["end_cycle"] for f in d["frames"]}
        tot["total_cycles"] += ends[b] - (ends[a - 1] if a > first_sim else 0)
        for i, f in enumerate(d["frames"]):
            if f["frame"] < a: continue
            sf = d["stats"]["frames"][i]["stats"]
            tot["dram.bytes"] += sf["dram.bytes"]
            tot["cycles.raster"] += sf["cycles.raster"]
            tot["energy_total"] += d["energy"]["frames"][i]["total_pj"]
    return tot
for cfg in ("base",):
    want = shard_sum(cfg, [(1, 2, 1), (3, 3, 2)])
    r = rows[("sh", cfg)]
    assert r["tasks"] == "2" and r["frames_checked"] == "3", r
    for k in ("total_cycles", "dram.bytes", "cycles.raster"):
        assert int(r[k]) == want[k], (cfg, k, r[k], want[k])
    assert abs(float(r["energy_total"]) - want["energy_total"]) <= 1e-9 * want["energy_total"], (r, want)
    one, un = rows[("one", cfg)], rows[("un", cfg)]
    for k in ("total_cycles", "dram.bytes", "cycles.raster"):
        assert one[k] == un[k], (cfg, k, one[k], un[k])
    assert abs(float(one["energy_total"]) / float(un["energy_total"]) - 1) < 1e-12, (one, un)
    print(cfg, "sharded/unsharded cycles", int(r["total_cycles"]) / int(un["total_cycles"]))
PY
  ;;
slurm)
  # the body under a deadline below CTest's TIMEOUT: timeout's TERM reaches the shell (and
  # tbr-sweep) while CTest's kill would not let the trap stop the daemons
  timeout --kill-after=20 270 sh "$0" "$BIN" "$SRC" "$WORK" slurm_body; rc=$?
  [ $rc -eq 124 ] && fail "the Slurm test ran out of time (270 s)"
  exit $rc ;;
slurm_body)
  . "$HERE/slurm_cluster.sh"
  [ "$(id -u)" -eq 0 ] || fail "the Slurm test needs root (it starts munged, slurmctld and slurmd)"
  for p in sbatch squeue slurmctld slurmd munged; do
    command -v $p >/dev/null || fail "$p not found (scripts/install-deps installs slurm-wlm and munge)"
  done
  trap 'cluster_stop' EXIT
  trap 'cluster_stop; exit 1' INT TERM
  # workloads replayed by the sweep itself (a replay array, cells depending on it)
  cat >"$W/s.sweep" <<EOF
[sweep]
name = slurmtest
[workload blend]
trace = $SRC/samples/traces/blend.trace
replay_frames = 0-0
[workload rtt]
trace = $SRC/samples/traces/rtt.trace
replay_frames = 0-0
[config baseline]
[config re]
set = re.enabled=true
[grid ptr]
vary = tile.raster_units 2
[collect]
stat = total_cycles dram.bytes energy_total re.tiles_skipped
EOF
  "$SW" run "$W/s.sweep" --out "$W/local" --local -j 2 2>"$W/local.err" || { cat "$W/local.err"; fail "run --local"; }
  cluster_start "$W/cluster" || fail "cannot start the Slurm cluster"
  "$SW" run "$W/s.sweep" --out "$W/slurm" --slurm --chunk 2 --wait -- --time=10 2>"$W/slurm.err" || {
    cat "$W/slurm.err" "$W"/slurm/slurm/*.out; fail "run --slurm"; }
  cat "$W/slurm.err"
  grep -q "submitted replay: job" "$W/slurm.err" || fail "no replay array"
  grep -q "submitted cells: job" "$W/slurm.err" || fail "no cell array"
  "$SW" collect "$W/s.sweep" --out "$W/local" >/dev/null || fail "collect local"
  "$SW" collect "$W/s.sweep" --out "$W/slurm" >/dev/null || fail "collect slurm"
  cat "$W/slurm/results.csv"
  [ "$(grep -c ',done$' "$W/slurm/results.csv")" = 6 ] || fail "6 done cells expected"
  cmp "$W/local/results.csv" "$W/slurm/results.csv" || fail "the Slurm CSV differs from the local one"
  for s in "$W"/local/cells/*/*/run/stats.json; do
    cmp "$s" "$W/slurm/${s#"$W"/local/}" || fail "stats.json differs: $s"
  done
  # 6 cells in chunks of 2: 3 array tasks, each in a Slurm job (its output file names it)
  [ "$(ls "$W"/slurm/slurm/cells-*_*.out | wc -l)" = 3 ] || fail "3 cell array tasks expected"
  "$SW" run "$W/s.sweep" --out "$W/slurm" --slurm 2>"$W/again.err" || fail "resubmit"
  grep -q "every task is complete; nothing to submit" "$W/again.err" || fail "complete sweep resubmitted"
  started="$CLUSTER_PIDS $CLUSTER_MUNGED_PID"
  cluster_stop
  trap - EXIT INT TERM
  for pid in $started; do
    ! kill -0 "$pid" 2>/dev/null || fail "daemon $pid still running after cluster_stop"
  done ;;
*) fail "unknown case $CASE" ;;
esac
echo "PASS $CASE"
