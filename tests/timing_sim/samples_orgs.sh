#!/bin/sh
# usage: samples_orgs.sh MESA_PREFIX TRACES_DIR BIN_DIR WORK
# The organisations combined (issue #19 Acceptance: "every organisation (TBR, TBDR, IMR;
# split or unified cores; overlap on or off) keeps every sample frame bit-exact"):
# samples_imr, samples_hsr, samples_unified and samples_overlap each vary one axis; this runs
# every sample under the combinations that cross them: IMR with unified cores, TBDR with
# unified cores and the overlap on, TBR with unified cores and the overlap on, and TBDR with
# split processors and the overlap on (every key set explicitly), exit 0 = every frame
# bit-exact, and checks that the pool shaded the same vertices under all unified runs (the
# geometry work does not depend on the organisation), that IMR did no binning, that no pass
# was rastered before the pass it depends on was flushed, and that the overlapped runs did
# overlap geometry and raster on a sample with several passes.
set -u
prefix=$1 traces=$2 bin=$3 work=$4
fail() { echo "FAIL samples_orgs: $*" >&2; exit 1; }
[ -n "$prefix" ] || fail "TBR_MESA_PREFIX is empty"
rm -rf "$work"; mkdir -p "$work"
uni="--set shader.organization=unified --set shader.pool_cores=0"
names=""
for t in "$traces"/*.trace; do
  n=$(basename "$t" .trace); names="$names $n"
  "$bin/tbr-replay" -q "$t" -o "$work/$n.replay" > "$work/$n.replay.log" 2>&1 ||
    fail "tbr-replay $n (log: $work/$n.replay.log)"
  # shellcheck disable=SC2086
  "$bin/tbr-sim" --quiet "$work/$n.replay" -o "$work/$n.imr_uni" --set pipeline.organization=imr \
    --set hsr.enabled=false --set overlap.enabled=false $uni || fail "tbr-sim $n IMR unified: exit $? (frames differ?)"
  # shellcheck disable=SC2086
  "$bin/tbr-sim" --quiet "$work/$n.replay" -o "$work/$n.tbdr_uni_ov" --set pipeline.organization=tbr \
    --set hsr.enabled=true --set overlap.enabled=true $uni ||
    fail "tbr-sim $n TBDR unified overlap: exit $? (frames differ?)"
  # shellcheck disable=SC2086
  "$bin/tbr-sim" --quiet "$work/$n.replay" -o "$work/$n.tbr_uni_ov" --set pipeline.organization=tbr \
    --set hsr.enabled=false --set overlap.enabled=true $uni ||
    fail "tbr-sim $n TBR unified overlap: exit $? (frames differ?)"
  "$bin/tbr-sim" --quiet "$work/$n.replay" -o "$work/$n.tbdr_ov" --set pipeline.organization=tbr \
    --set hsr.enabled=true --set overlap.enabled=true --set shader.organization=split ||
    fail "tbr-sim $n TBDR split overlap: exit $? (frames differ?)"
done
python3 - "$work" $names <<'PY' || fail "check failed"
import json, sys
work = sys.argv[1]
def S(n, m): return json.load(open("%s/%s.%s/stats.json" % (work, n, m)))
def ok(cond, msg):
    if not cond: print("FAIL:", msg); sys.exit(1)
overlapped = 0
for n in sys.argv[2:]:
    imr, tbdr, tbru, tbdrs = S(n, "imr_uni"), S(n, "tbdr_uni_ov"), S(n, "tbr_uni_ov"), S(n, "tbdr_ov")
    runs = (("IMR unified", imr), ("TBDR unified overlap", tbdr), ("TBR unified overlap", tbru),
            ("TBDR split overlap", tbdrs))
    for m, d in runs:
        ok(d["frames_bit_exact"] == d["frames_checked"] > 0, "%s %s: frames not all checked and bit-exact" % (n, m))
    si, st, su, ss = (d["stats"]["stats"] for d in (imr, tbdr, tbru, tbdrs))
    v = lambda d, k: d[k]["value"]
    for m, d in (("TBDR unified overlap", st), ("TBR unified overlap", su)):
        ok(v(si, "shader_pool.vertex.instructions") == v(d, "shader_pool.vertex.instructions") > 0,
           "%s: %d vertex instructions under IMR, %d under %s" % (n, v(si, "shader_pool.vertex.instructions"),
                                                                  v(d, "shader_pool.vertex.instructions"), m))
    ok(v(si, "dram.bytes_by_source.parameter_buffer") == 0 and v(si, "mem.plb.writes") == 0, "%s: binning under IMR" % n)
    for m, d in (("TBDR unified overlap", st), ("TBR unified overlap", su), ("TBDR split overlap", ss)):
        ok("overlap.dependency_violations" in d, "%s %s: no overlap statistics (the overlap was off)" % (n, m))
        ok(v(d, "overlap.dependency_violations") == 0, "%s %s: a pass rastered before its writer's flush" % (n, m))
        overlapped += v(d, "cycles.overlap_both_busy")
    for m, d in (("TBDR unified overlap", st), ("TBDR split overlap", ss)):
        hsr = v(d, "hsr.tiles_decided") + v(d, "hsr.fallback_tiles_shader") + v(d, "hsr.fallback_tiles_buffer")
        ok(hsr > 0, "%s %s: HSR neither decided nor fell back on any tile" % (n, m))
    print("%-10s cycles: IMR unified %9d, TBDR unified overlap %9d, TBR unified overlap %9d, TBDR split overlap %9d" %
          (n, imr["total_cycles"], tbdr["total_cycles"], tbru["total_cycles"], tbdrs["total_cycles"]))
ok(overlapped > 0, "no cycle with geometry and raster both busy in any overlapped run")
PY
echo "samples_orgs: ok"
