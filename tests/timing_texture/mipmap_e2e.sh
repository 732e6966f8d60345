#!/bin/sh
# usage: mipmap_e2e.sh MESA_PREFIX TRACES_DIR BIN_DIR WORK
# samples/traces/mipmap.trace -> tbr-replay (TEXELS/VERTICES instrumentation) -> tbr-sim:
# every frame bit-exact (tbr-sim and tbr-compare), instruction_source "executed", texture
# requests, texture-cache lines and DRAM texture traffic all nonzero.
prefix=$1 traces=$2 bin=$3 work=$4
if [ -z "$prefix" ]; then
  echo "FAIL: TBR_MESA_PREFIX is empty: configure with -DTBR_MESA_PREFIX=\$(scripts/build-mesa --print-prefix)" >&2
  exit 1
fi
rm -rf "$work"; mkdir -p "$work"
"$bin/tbr-replay" "$traces/mipmap.trace" -o "$work/mipmap.replay" > "$work/replay.log" 2>&1 || { echo "FAIL: tbr-replay (log: $work/replay.log)" >&2; exit 1; }
"$bin/tbr-sim" "$work/mipmap.replay" -o "$work/mipmap.sim" --quiet || { echo "FAIL: tbr-sim exit $?" >&2; exit 1; }
"$bin/tbr-compare" "$work/mipmap.replay/reference" "$work/mipmap.sim/frames" > "$work/compare.log" 2>&1 || { echo "FAIL: frames differ (log: $work/compare.log)" >&2; exit 1; }
j="$work/mipmap.sim/stats.json"
fail=0
grep -q '"instruction_source": "executed"' "$j" || { echo "FAIL: instruction_source is not executed" >&2; fail=1; }
grep -q '"frames_differing": 0' "$j" || { echo "FAIL: frames differ" >&2; fail=1; }
val() { tr -d '\n ' < "$j" | grep -o "\"$1\":{[^}]*\"value\":[0-9]*" | head -1 | sed 's/.*"value"://'; }
for k in texture.requests texture.texels texture.line_requests texture_cache.0.misses texture_cache.0.hits mem.texture_cache.0.bytes dram.bytes_by_source.textures; do
  v=$(val "$k")
  if [ -z "$v" ] || [ "$v" -eq 0 ]; then echo "FAIL: $k = '$v' (expected > 0)" >&2; fail=1; else echo "ok $k = $v"; fi
done
tx=$(tr -d '\n ' < "$j" | grep -o '"by_source":{[^}]*' | tail -1 | grep -o '"textures":[0-9.e+-]*' | sed 's/.*://')
case "$tx" in ''|0|0.0) echo "FAIL: no DRAM energy of source textures ('$tx')" >&2; fail=1 ;; *) echo "ok DRAM textures pJ = $tx" ;; esac
exit $fail
