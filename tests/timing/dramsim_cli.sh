#!/bin/sh
# timing.dramsim_cli: tbr-dramsim end to end (usage: dramsim_cli.sh TBR_DRAMSIM CONFIG_DIR WORKDIR)
set -u
bin=$1; confdir=$2; work=$3
mkdir -p "$work"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
has() { grep -qF -- "$2" "$1" || fail "$1 lacks: $2"; }

# A small trace, default (thesis) config. Worked by hand (docs/dram-model.md):
#   0x0     ch0 bank0 row0: closed bank, ACT@0 RD@22 RD@30 -> ready 72
#   0x80    ch0 bank0 row0 chunk1: row hit, RD@38 RD@46 (tCCD) -> ready 88
#   0x10000 ch0 bank0 row1: conflict; PRE waits for the hit and tRTP/tRAS:
#           max(46+9, 0+51) = 55, ACT@77, RD@99 RD@107 -> ready 149
#   64      ch1 bank0 row0 write: closed bank
# => ACT 3, PRE 1, RD 6, WR 2, REF 0; hits 1, misses 2, conflicts 1;
#    read latency min 72, p50 88, max 149; 4 x 64 B = 256 bytes.
cat > "$work/small.trace" <<'T'
# address  op  cycle
0x0      R 0
0x80     R 0
0x10000  r 0   # lower case op accepted
64       W 0
T
"$bin" --json --quiet "$work/small.trace" > "$work/small.json" 2> "$work/small.err"
rc=$?
[ $rc -eq 0 ] || fail "small trace exit $rc: $(cat "$work/small.err")"
has "$work/small.json" '"requests": 4,'
has "$work/small.json" '"reads": 3,'
has "$work/small.json" '"writes": 1,'
has "$work/small.json" '"bytes": 256,'
has "$work/small.json" '"commands": {"ACT": 3, "PRE": 1, "RD": 6, "WR": 2, "REF": 0}'
has "$work/small.json" '"row_buffer": {"hits": 1, "misses": 2, "conflicts": 1, "hit_rate": 0.250000}'
has "$work/small.json" '"min": 72,'
has "$work/small.json" '"p50": 88,'
has "$work/small.json" '"max": 149,'
# text report says the same
"$bin" "$work/small.trace" > "$work/small.txt" || fail "text report"
has "$work/small.txt" "ACT 3  PRE 1  RD 6  WR 2  REF 0"
# deterministic
"$bin" --json --quiet "$work/small.trace" > "$work/small2.json"
cmp -s "$work/small.json" "$work/small2.json" || fail "JSON output not deterministic"

# --set and --config are applied; --stats writes the registry
"$bin" --json --quiet --set dram.scheduler=fcfs --stats "$work/stats.json" "$work/small.trace" > "$work/fcfs.json" \
  || fail "--set run"
has "$work/stats.json" '"dram.ch0.act": {"kind": "counter"'
"$bin" --json --quiet --config "$confdir/re-mali450.conf" "$work/small.trace" > "$work/re.json" || fail "--config run"
has "$work/re.json" '"requests": 4,'

# malformed input: exit 2, message names file:line
printf '0x0 R 0\n# fine\n0x40 X 5\n' > "$work/bad.trace"
"$bin" "$work/bad.trace" > /dev/null 2> "$work/bad.err"
rc=$?
[ $rc -eq 2 ] || fail "malformed op: exit $rc, expected 2"
has "$work/bad.err" "bad.trace:3"
printf '0x0 R 10\n0x40 R 5\n' > "$work/back.trace"
"$bin" "$work/back.trace" > /dev/null 2> "$work/back.err"
[ $? -eq 2 ] || fail "decreasing cycle accepted"
has "$work/back.err" "back.trace:2"
printf '0xZZ R 0\n' > "$work/addr.trace"
"$bin" "$work/addr.trace" > /dev/null 2> "$work/addr.err"
[ $? -eq 2 ] || fail "bad address accepted"
has "$work/addr.err" "addr.trace:1"
printf '0x0 R 0 extra\n' > "$work/extra.trace"
"$bin" "$work/extra.trace" > /dev/null 2>&1
[ $? -eq 2 ] || fail "extra field accepted"

# bad usage / config: exit 2
"$bin" --bogus "$work/small.trace" > /dev/null 2>&1; [ $? -eq 2 ] || fail "unknown option"
"$bin" > /dev/null 2>&1; [ $? -eq 2 ] || fail "missing trace"
"$bin" --set dram.nope=1 "$work/small.trace" > /dev/null 2> "$work/set.err"; [ $? -eq 2 ] || fail "unknown key"
has "$work/set.err" "dram.nope"
"$bin" --set dram.ranks=1 "$work/small.trace" > /dev/null 2> "$work/inc.err"; [ $? -eq 2 ] || fail "inconsistent"
has "$work/inc.err" "mem.size_mb"
printf 'dram.tCL = 24\ndram.tXYZ = 3\n' > "$work/bad.conf"
"$bin" --config "$work/bad.conf" "$work/small.trace" > /dev/null 2> "$work/conf.err"; [ $? -eq 2 ] || fail "bad config"
has "$work/conf.err" "bad.conf:2"
"$bin" --clock sideways "$work/small.trace" > /dev/null 2>&1; [ $? -eq 2 ] || fail "bad --clock"

# help / version / list / dump
"$bin" --help > "$work/help.txt" || fail "--help"
has "$work/help.txt" "usage: tbr-dramsim"
"$bin" --version > "$work/ver.txt" || fail "--version"
has "$work/ver.txt" "tbr-dramsim "
"$bin" --list-params > "$work/list.txt" || fail "--list-params"
has "$work/list.txt" "dram.tRCD"
"$bin" --dump-config --json > "$work/cfg.json" || fail "--dump-config"
has "$work/cfg.json" '"dram.address_mapping": "ro:ra:bg:ba:co:ch"'

# GPU clock: through the clock-domain crossing (800:1200). Read at GPU 0:
# DRAM enqueue at 0+2 sync, ready 74, GPU edge ceil(74*2/3) = 50, +2 = 52.
printf '0x0 R 0\n' > "$work/one.trace"
"$bin" --json --quiet --clock gpu "$work/one.trace" > "$work/gpu.json" || fail "--clock gpu"
has "$work/gpu.json" '"min": 52,'

# Hostile inputs (#22 "Other inputs"):
# a request 10^12 cycles after the first: idle time is skipped (refresh in closed form),
# not stepped for hours
printf '0x0 R 0\n0x40 R 1000000000000\n' > "$work/far.trace"
timeout 30 "$bin" --json --quiet "$work/far.trace" > "$work/far.json" 2> "$work/far.err"
rc=$?
[ $rc -eq 0 ] || fail "far trace: exit $rc (124 = timed out): $(cat "$work/far.err")"
has "$work/far.json" '"requests": 2,'
# 4 ranks x one REF per tREFI (4685) over 10^12 cycles
grep -q '"REF": 8537886[0-9][0-9]}' "$work/far.json" || fail "far trace: REF count not ~8.54e8: $(grep REF "$work/far.json")"
# cycles beyond the documented limit (2^48) are rejected naming file:line
printf '0x0 R 0\n0x40 R 18446744073709551615\n' > "$work/huge.trace"
timeout 30 "$bin" --quiet "$work/huge.trace" > /dev/null 2> "$work/huge.err"
[ $? -eq 2 ] || fail "cycle 2^64-1 not rejected with exit 2"
has "$work/huge.err" "huge.trace:2"
has "$work/huge.err" "2^48"
# /dev/zero on stdin: an error naming the input (NUL byte), not 'requests 0' after 2 GB
timeout 30 "$bin" --quiet - < /dev/zero > /dev/null 2> "$work/zero.err"
[ $? -eq 2 ] || fail "/dev/zero not rejected with exit 2"
has "$work/zero.err" "-:1: NUL byte"
# an over-long line
awk 'BEGIN { s = "0x0"; for (i = 0; i < 5000; i++) s = s " "; print s "R 0" }' > "$work/long.trace"
"$bin" --quiet "$work/long.trace" > /dev/null 2> "$work/long.err"
[ $? -eq 2 ] || fail "over-long line accepted"
has "$work/long.err" "long.trace:1: line longer than 4095"
# a directory is named as such
"$bin" --quiet "$work" > /dev/null 2> "$work/dir.err"
[ $? -eq 2 ] || fail "directory accepted"
has "$work/dir.err" "is a directory"
# --stats that cannot be written completely (file size limit, as a full disk): exit 2,
# the file and the OS reason named, and an existing stats file left untouched
echo previous > "$work/keep.json"
(trap '' XFSZ; ulimit -f 1; "$bin" --quiet --stats "$work/keep.json" "$work/small.trace" > /dev/null 2> "$work/full.err")
[ $? -eq 2 ] || fail "--stats write error: exit not 2"
has "$work/full.err" "keep.json: cannot write: File too large"
[ "$(cat "$work/keep.json")" = previous ] || fail "--stats left a half-written file"
ls "$work"/keep.json.tmp-* > /dev/null 2>&1 && fail "--stats left its temporary file"
# standard output that cannot be written: exit 2 with a message
if [ -w /dev/full ]; then
  "$bin" --dump-config > /dev/full 2> "$work/dfull.err"
  [ $? -eq 2 ] || fail "--dump-config to /dev/full: exit not 2"
  has "$work/dfull.err" "cannot write standard output"
  "$bin" --quiet "$work/small.trace" > /dev/full 2> "$work/rfull.err"
  [ $? -eq 2 ] || fail "report to /dev/full: exit not 2"
fi
# --cycles N stops at N; the latency is defined in the help
"$bin" --json --quiet --cycles 60 "$work/small.trace" > "$work/cyc.json" || fail "--cycles"
has "$work/cyc.json" '"elapsed_cycles": 60,'
has "$work/cyc.json" '"read_latency": {"count": 0,'
"$bin" --cycles 0 "$work/small.trace" > /dev/null 2>&1; [ $? -eq 2 ] || fail "--cycles 0 accepted"
has "$work/help.txt" "read latency: from the request's arrival at the controller"

[ $fails -eq 0 ] && echo "all tbr-dramsim CLI checks passed"
exit $fails
