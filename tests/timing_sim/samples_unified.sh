#!/bin/sh
# usage: samples_unified.sh MESA_PREFIX TRACES_DIR BIN_DIR WORK
# Unified shader cores on every checked-in sample (issue #19; docs/timing-model.md "Unified
# shader cores"): replay each sample with the instrumented Mesa, run tbr-sim with
# shader.organization split and unified (exit 0 = every frame bit-exact), and check that the
# pool executed exactly the work the split processors did: its vertex instructions equal the
# Vertex Processors' (vp*.instructions), its fragment instructions the Fragment Processors'
# (ru*.fp*.instructions), with a pool of vertex.processors + fragment.processors cores.
set -u
prefix=$1 traces=$2 bin=$3 work=$4
fail() { echo "FAIL samples_unified: $*" >&2; exit 1; }
[ -n "$prefix" ] || fail "TBR_MESA_PREFIX is empty"
rm -rf "$work"; mkdir -p "$work"
names=""
for t in "$traces"/*.trace; do
  n=$(basename "$t" .trace)
  names="$names $n"
  "$bin/tbr-replay" -q "$t" -o "$work/$n.replay" > "$work/$n.replay.log" 2>&1 ||
    fail "tbr-replay $n (log: $work/$n.replay.log)"
  for org in split unified; do
    "$bin/tbr-sim" --quiet "$work/$n.replay" -o "$work/$n.$org" --set shader.organization=$org ||
      fail "tbr-sim $n shader.organization=$org: exit $? (frames differ?)"
  done
done
python3 - "$work" $names <<'PY' || fail "check failed"
import json, re, sys
work, names = sys.argv[1], sys.argv[2:]
def S(n, m): return json.load(open("%s/%s.%s/stats.json" % (work, n, m)))
def ok(cond, msg):
    if not cond: print("FAIL:", msg); sys.exit(1)
for n in names:
    sp, un = S(n, "split"), S(n, "unified")
    for d, m in ((sp, "split"), (un, "unified")):
        ok(d["frames_bit_exact"] == d["frames_checked"] > 0, "%s %s: frames not all checked and bit-exact" % (n, m))
    s, u = sp["stats"]["stats"], un["stats"]["stats"]
    vs = sum(v["value"] for k, v in s.items() if re.fullmatch(r"vp\d+\.instructions", k))
    fs = sum(v["value"] for k, v in s.items() if re.fullmatch(r"ru\d+\.fp\d+\.instructions", k))
    ok(not any(k.startswith("shader_pool.") for k in s), "%s: pool statistics under split" % n)
    ok(u["shader_pool.vertex.instructions"]["value"] == vs and u["shader_pool.fragment.instructions"]["value"] == fs,
       "%s: pool executed %d vertex / %d fragment instructions, split %d / %d" %
       (n, u["shader_pool.vertex.instructions"]["value"], u["shader_pool.fragment.instructions"]["value"], vs, fs))
    cores = {k.split(".")[1] for k in u if re.fullmatch(r"shader_pool\.core\d+\.vertex\.busy_cycles", k)}
    ok(len(cores) == 8, "%s: %d pool cores (want 4 + 4)" % (n, len(cores)))
    print("%-10s split %9d cycles, unified %9d (%.3f)" % (n, sp["total_cycles"], un["total_cycles"],
                                                          un["total_cycles"] / sp["total_cycles"]))
PY
echo "samples_unified: ok"
