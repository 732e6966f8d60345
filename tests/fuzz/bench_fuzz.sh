#!/bin/sh
# fuzz.bench_ledger: bench/fuzz's ledger and its timeout recheck, with a stand-in fuzzer
# (a shell script that prints libFuzzer's lines). Usage: bench_fuzz.sh SOURCE_DIR WORKDIR
# A campaign run that "times out" is a finding only if the reproducer, run again with
# -runs=1, still fails (the stand-in exits $RECHECK_RC there); else it is starved.
set -eu
src=$1 work=$2
rm -rf "$work"
mkdir -p "$work/bin"
fake="$work/bin/tbr-fuzz-config"
cat > "$fake" <<'FAKE'
#!/bin/sh
for a in "$@"; do
  case "$a" in
    -runs=1) exit "${RECHECK_RC:-0}" ;;
    -artifact_prefix=*) p=${a#-artifact_prefix=} ;;
  esac
done
if [ "${TIMEOUT:-0}" = 1 ]; then
  echo x > "${p}timeout-1"
  echo "#42 pulse"; echo "==1== ERROR: libFuzzer: timeout after 31 seconds"; exit 70
fi
echo "stat::number_of_executed_units: 1234"
FAKE
chmod +x "$fake"
fail() { echo "bench_fuzz: $*" >&2; exit 1; }
line() { grep -v '^#' "$1/config/ledger.tsv" | sed -n "$2p" | cut -f5-7; }
tab=$(printf '\t')

# a clean run, then a starved timeout, then a real hang: three ledger lines
"$src/bench/fuzz" -b "$work/bin" -w "$work/w" -t 1 config > "$work/out1" || fail "clean run: exit $?"
[ "$(line "$work/w" 1)" = "1234${tab}0${tab}0" ] || fail "clean run's ledger line: $(line "$work/w" 1)"
TIMEOUT=1 RECHECK_RC=0 "$src/bench/fuzz" -b "$work/bin" -w "$work/w" -t 1 config > "$work/out2" ||
  fail "starved timeout: exit $? (should not count)"
[ "$(line "$work/w" 2)" = "42${tab}0${tab}starved" ] || fail "starved timeout's line: $(line "$work/w" 2)"
[ -f "$work/w/config/starved-timeout-1" ] || fail "starved reproducer not kept as starved-timeout-1"
rc=0
TIMEOUT=1 RECHECK_RC=1 "$src/bench/fuzz" -b "$work/bin" -w "$work/w" -t 1 config > "$work/out3" || rc=$?
[ "$rc" = 1 ] || fail "real hang: exit $rc, not 1"
[ "$(line "$work/w" 3)" = "42${tab}1${tab}70" ] || fail "real hang's line: $(line "$work/w" 3)"
[ -f "$work/w/config/timeout-1" ] || fail "the hang's reproducer is gone"
# the totals add the three runs up
"$src/bench/fuzz" --ledger -w "$work/w" config | grep -q '3 runs, 1318 executions (0.01% of 10M), 1 crashes' ||
  fail "totals: $("$src/bench/fuzz" --ledger -w "$work/w" config)"

# which executions count toward 10M: a run of a binary built from the current sources
# (its .digest is the digest of the files its .sources lists) counts; a run of a binary
# of other sources, or an old 8-column line of a dirty tree, does not
echo tests/fuzz/fuzz_config.c > "$work/bin/tbr-fuzz-config.sources"
bash "$src/tests/fuzz/source_digest.sh" -o "$work/bin/tbr-fuzz-config.digest" "$src" "$work/bin/tbr-fuzz-config.sources"
"$src/bench/fuzz" -b "$work/bin" -w "$work/c" -t 1 config > /dev/null || fail "current run: exit $?"
echo 0123456789abcdef > "$work/bin/tbr-fuzz-config.digest"
"$src/bench/fuzz" -b "$work/bin" -w "$work/c" -t 1 config > /dev/null || fail "older run: exit $?"
printf '2026-01-01T00:00:00Z\tabc-dirty\t0\t1\t100\t0\t0\t1\n' >> "$work/c/config/ledger.tsv"
"$src/bench/fuzz" --ledger -b "$work/bin" -w "$work/c" config > "$work/out4"
grep -q 'counted toward 10M: 1234 executions (0.01%), 0 crashes, by binaries of the current sources (digest [0-9a-f]*); 1334 of other sources' "$work/out4" ||
  fail "counted executions: $(cat "$work/out4")"
echo "bench_fuzz: ledger, source digests and timeout recheck OK"
