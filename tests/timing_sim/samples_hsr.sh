#!/bin/sh
# usage: samples_hsr.sh MESA_PREFIX TRACES_DIR BIN_DIR WORK
# TBDR Hidden Surface Removal on real sample traces (issue #19; docs/techniques.md "Hidden
# Surface Removal"): replay depth3d, casual2d and blend with the instrumented Mesa, run
# tbr-sim with hsr.enabled false and true (exit 0 = every frame bit-exact; the functional
# back end drops the colour of every fragment HSR removes, so a wrong removal fails here),
# and check the direction of the statistics: opaque overdraw removed on depth3d and
# casual2d (fewer quads shaded, fewer cycles, overdraw of the decided tiles at most 1.02
# fragments per pixel), nothing removed under blend's blended draws (passed through).
set -u
prefix=$1 traces=$2 bin=$3 work=$4
fail() { echo "FAIL samples_hsr: $*" >&2; exit 1; }
[ -n "$prefix" ] || fail "TBR_MESA_PREFIX is empty"
rm -rf "$work"; mkdir -p "$work"
for n in depth3d casual2d blend; do
  "$bin/tbr-replay" -q "$traces/$n.trace" -o "$work/$n.replay" > "$work/$n.replay.log" 2>&1 ||
    fail "tbr-replay $n (log: $work/$n.replay.log)"
  for mode in false true; do
    "$bin/tbr-sim" --quiet "$work/$n.replay" -o "$work/$n.$mode" --set hsr.enabled=$mode ||
      fail "tbr-sim $n hsr.enabled=$mode: exit $? (frames differ?)"
  done
done
python3 - "$work" <<'PY' || fail "check failed"
import json, sys
work = sys.argv[1]
def S(n, m): return json.load(open("%s/%s.%s/stats.json" % (work, n, m)))
def v(d, k): return d["stats"]["stats"][k]["value"]
def ok(cond, msg):
    if not cond: print("FAIL:", msg); sys.exit(1)
for n in ("depth3d", "casual2d", "blend"):
    off, on = S(n, "false"), S(n, "true")
    ok(off["frames_bit_exact"] == off["frames_checked"] == on["frames_bit_exact"] == on["frames_checked"] > 0,
       "%s: frames not all checked and bit-exact" % n)
    ok(not any(k.startswith("hsr.") for k in off["stats"]["stats"]), "%s: hsr statistics without HSR" % n)
    written, removed, px = (v(on, "hsr.fragments_written_before"), v(on, "hsr.fragments_removed"),
                            v(on, "hsr.pixels_written"))
    ok(px > 0 and v(on, "hsr.tiles_decided") > 0, "%s: no tile decided" % n)
    if n == "blend":
        ok(removed == 0 and v(on, "hsr.fragments_passed_through") > 0, "blend: %d removed" % removed)
        ok(v(on, "quads.shaded") == v(off, "quads.shaded"), "blend: quads shaded changed")
        continue
    ok(removed > 0, "%s: nothing removed" % n)
    ok((written - removed) / px <= 1.02, "%s: overdraw after HSR %.3f" % (n, (written - removed) / px))
    ok(v(off, "quads.shaded") - v(on, "quads.shaded") == v(on, "hsr.quads_removed"),
       "%s: quads shaded %d -> %d, HSR removed %d" % (n, v(off, "quads.shaded"), v(on, "quads.shaded"),
                                                      v(on, "hsr.quads_removed")))
    ok(on["total_cycles"] < off["total_cycles"], "%s: cycles %d -> %d" % (n, off["total_cycles"], on["total_cycles"]))
PY
echo "samples_hsr: ok"
