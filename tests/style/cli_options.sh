#!/usr/bin/env bash
# One argument convention across the executables (issue 24): every one has -h/--help and
# --version and accepts -q/--quiet; those that write a file or directory name it with
# -o/--output; those that refuse to replace an existing output have --force; -j means
# jobs only (tbr-sweep run); the trace tools take a tbr-replay directory as tbr-sim does.
# Reads each executable's --help and runs the options; fails naming the tool and option.
# usage: cli_options.sh BIN_DIR GEN_SCENE WORK
set -uo pipefail
bin="$1"; gen="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
bad=0
fail() { echo "FAIL: $*"; bad=1; }
all=(tbr-capture tbr-replay tbr-sim tbr-characterize tbr-compare tbr-dump tbr-report tbr-heatmap tbr-barchart
     tbr-sweep tbr-dramsim tbr-mesa-check)
writes_output=(tbr-capture tbr-replay tbr-sim tbr-report tbr-heatmap tbr-barchart tbr-sweep)
refuses_existing=(tbr-capture tbr-replay tbr-sim tbr-report)
# has_option HELP_FILE SHORT LONG: the help shows both spellings
has_option() { grep -qE -- "(^|[^[:alnum:]-])$2([^[:alnum:]-]|$)" "$1" && grep -qE -- "(^|[^[:alnum:]-])$3([^[:alnum:]-]|$)" "$1"; }
for t in "${all[@]}"; do
  exe="$bin/$t"
  [ -x "$exe" ] || { fail "$t: not built in $bin"; continue; }
  "$exe" --help > "$t.help" 2>&1 || fail "$t --help: exit status $?"
  "$exe" -h > "$t.h" 2>&1 || fail "$t -h: exit status $?"
  cmp -s "$t.help" "$t.h" || fail "$t: -h and --help differ"
  "$exe" --version > "$t.version" 2>&1 || fail "$t --version: exit status $?"
  grep -q "^$t" "$t.version" || fail "$t --version does not name the tool: $(head -1 "$t.version")"
  for o in "-h --help" "-q --quiet"; do
    set -- $o
    has_option "$t.help" "$1" "$2" || fail "$t --help does not show $1, $2"
  done
  if [ "$t" != tbr-sweep ]; then
    "$exe" -q --help > /dev/null 2>&1 || fail "$t: -q is not accepted"
    "$exe" --quiet --help > /dev/null 2>&1 || fail "$t: --quiet is not accepted"
  fi
  grep -qE -- '-j, --json' "$t.help" && fail "$t: -j means --json (it means jobs)"
done
for t in "${writes_output[@]}"; do
  has_option "$t.help" -o --output || fail "$t --help does not show -o, --output"
done
for t in "${refuses_existing[@]}"; do
  grep -q -- '--force' "$t.help" || fail "$t --help does not show --force"
done
grep -qE -- '-j N' tbr-sweep.help || fail "tbr-sweep --help does not show -j N"
# a trace tool given a replay directory reads DIR/activity.tbrt (tbr-characterize said
# "not a regular file")
mkdir -p replay && "$gen" replay/activity.tbrt > /dev/null || fail "gen_scene failed"
for t in tbr-characterize tbr-dump; do
  "$bin/$t" replay > "$t.dir.out" 2> "$t.dir.err" || fail "$t REPLAY_DIR: $(head -1 "$t.dir.err")"
  "$bin/$t" replay/activity.tbrt > "$t.file.out" 2>&1
  cmp -s <(tail -n +2 "$t.dir.out") <(tail -n +2 "$t.file.out") || fail "$t: a replay directory and its activity.tbrt give different output (after the line naming the input)"
done
[ $bad = 0 ] && echo "PASS: ${#all[@]} executables share -h/--help, --version, -q/--quiet (-o/--output, --force, -j where they apply)"
exit $bad
