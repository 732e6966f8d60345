#!/bin/sh
# Hostile inputs (issue 22), each a tiny input built here: a crash, a sanitizer report, an
# abort() or a hang before the fixes; now a clear message and exit status 2 (or, for inputs
# that are fine, success). Usage: robustness.sh BINDIR GEN_HOSTILE WORKDIR [CASE...]
set -u
bin=$1 gen=$2 work=$3
shift 3
cases=${*:-ok tile_level zero_pass huge_target huge_pass limits fifo check_sums bom many_sets}
rm -rf "$work"
mkdir -p "$work"
failed=""
fail() { echo "robustness: $case: $*" >&2; failed="$failed $case"; }
# run EXPECTED_STATUS CMD...: runs with a timeout; stderr in $work/err; no sanitizer report allowed
run() {
  want=$1
  shift
  timeout 60 "$@" > "$work/out" 2> "$work/err"
  rc=$?
  if grep -q 'runtime error:\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer' "$work/err"; then
    fail "sanitizer report from $*: $(grep -m1 'runtime error:\|ERROR:' "$work/err")"
  elif [ "$rc" -ne "$want" ]; then
    fail "exit $rc (want $want) from $*: $(head -c 300 "$work/err")"
  fi
}
expect_msg() { grep -q "$1" "$work/err" || fail "no message '$1' in: $(head -c 300 "$work/err")"; }
gen_trace() { "$gen" "$1" "$work/$1" > /dev/null || fail "cannot generate $1"; }

for case in $cases; do
  case $case in
    ok) # the control: the generator's plain frame simulates
      gen_trace ok
      run 0 "$bin/tbr-sim" "$work/ok" -o "$work/ok.out" --quiet --no-check ;;
    tile_level) # a TILE level of 2^31 was a shift by 2^31 in the functional back end
      gen_trace tile_level
      run 2 "$bin/tbr-sim" "$work/tile_level" -o "$work/tile_level.out" --quiet --no-check
      expect_msg 'bad TILE record'
      run 2 "$bin/tbr-dump" "$work/tile_level/activity.tbrt" ;;
    zero_pass) # a 0x0 pass with Rendering Elimination on: memset of a null array (UBSan)
      gen_trace zero_pass
      run 0 "$bin/tbr-sim" "$work/zero_pass" -o "$work/zero_pass.out" --quiet --no-check --set re.enabled=true ;;
    huge_target) # 5 GB of render target that cannot be had: a message and exit 2, not abort()
      gen_trace huge_target
      if ldd "$bin/tbr-sim" | grep -q libasan; then
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:max_allocation_size_mb=2048" \
          run 2 "$bin/tbr-sim" "$work/huge_target" -o "$work/huge_target.out" --quiet --no-check
      else
        (ulimit -v 3000000 && run 2 "$bin/tbr-sim" "$work/huge_target" -o "$work/huge_target.out" --quiet --no-check)
      fi
      expect_msg 'out of memory' ;;
    huge_pass) # a RENDER_PASS 2^32-1 wide: tbr-characterize's unchecked calloc (SIGSEGV)
      gen_trace huge_pass
      run 2 "$bin/tbr-characterize" "$work/huge_pass/activity.tbrt"
      expect_msg 'RENDER_PASS' ;;
    limits) # values beyond the documented limits are malformed records
      gen_trace path_long
      run 2 "$bin/tbr-dump" "$work/path_long/activity.tbrt"
      expect_msg 'malformed PATH record'
      gen_trace resource_levels
      run 2 "$bin/tbr-dump" "$work/resource_levels/activity.tbrt"
      expect_msg 'malformed RESOURCE record' ;;
    fifo) # a FIFO as input blocked every tool forever
      mkfifo "$work/fifo" || fail "mkfifo"
      [ -d "$work/ok" ] || gen_trace ok
      mkdir -p "$work/fifo_run" && mkfifo "$work/fifo_run/stats.json"
      run 2 "$bin/tbr-sim" "$work/fifo" -o "$work/fifo.out" --quiet --no-check
      run 2 "$bin/tbr-sim" "$work/ok" -o "$work/fifo.out" --quiet --no-check --config "$work/fifo"
      expect_msg 'not a regular file'
      run 2 "$bin/tbr-dump" "$work/fifo"
      run 2 "$bin/tbr-characterize" "$work/fifo"
      run 2 "$bin/tbr-compare" "$work/fifo" "$work/fifo"
      expect_msg 'not a regular file'
      run 2 "$bin/tbr-report" "$work/fifo_run" -o "$work/fifo_report"
      expect_msg 'not a regular file'
      run 2 "$bin/tbr-dramsim" "$work/fifo"
      expect_msg 'not a regular file' ;;
    check_sums) # --check-sums followed '../' names out of the directory
      [ -d "$work/ok.out" ] || { gen_trace ok; run 0 "$bin/tbr-sim" "$work/ok" -o "$work/ok.out" --quiet --no-check; }
      mkdir -p "$work/sums/dir"
      cp "$work/ok.out/frames/frame_00000.png" "$work/sums/outside.png"
      cp "$work/ok.out/frames/frame_00000.png" "$work/sums/dir/inside.png"
      "$bin/tbr-compare" --checksum "$work/sums/outside.png" | sed 's|  .*|  ../outside.png|' > "$work/sums/bad.md5"
      "$bin/tbr-compare" --checksum "$work/sums/dir/inside.png" | sed 's|  .*|  inside.png|' > "$work/sums/good.md5"
      run 0 "$bin/tbr-compare" --check-sums "$work/sums/good.md5" "$work/sums/dir"
      run 2 "$bin/tbr-compare" --check-sums "$work/sums/bad.md5" "$work/sums/dir"
      expect_msg 'leaves the directory' ;;
    bom) # a UTF-8 byte-order mark before the first key made it an unknown parameter
      [ -d "$work/ok" ] || gen_trace ok
      printf '\357\273\277l2.ways = 8\n' > "$work/bom.cfg"
      run 0 "$bin/tbr-sim" "$work/ok" -o "$work/bom.out" --quiet --no-check --config "$work/bom.cfg"
      printf 'l2.ways\302\240= 8\n' > "$work/nbsp.cfg" # an invisible byte elsewhere is shown
      run 2 "$bin/tbr-sim" "$work/ok" -o "$work/bom.out" --quiet --no-check --config "$work/nbsp.cfg"
      expect_msg "unknown parameter 'l2.ways.xC2.xA0'" ;;
    many_sets) # the 257th --set was reported as a second input
      [ -d "$work/ok" ] || gen_trace ok
      set -- "$bin/tbr-sim" "$work/ok" -o "$work/sets.out" --quiet --no-check
      i=0
      while [ $i -lt 257 ]; do set -- "$@" --set l2.ways=8; i=$((i + 1)); done
      run 2 "$@"
      expect_msg 'too many --set options (max 256)' ;;
    *) fail "unknown case" ;;
  esac
done
if [ -n "$failed" ]; then
  echo "robustness: FAILED:$failed" >&2
  exit 1
fi
echo "robustness: all passed ($cases)"
