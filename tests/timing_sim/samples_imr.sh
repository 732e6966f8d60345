#!/bin/sh
# usage: samples_imr.sh MESA_PREFIX TRACES_DIR BIN_DIR WORK
# Immediate-mode organisation on every sample trace (issue #19; docs/organisations.md):
# replay each with the instrumented Mesa, run tbr-sim with pipeline.organization=imr (exit 0
# = every frame bit-exact) and fast clear on and off, and check what IMR means in the
# statistics: no Parameter Buffer or Tile Fetcher traffic, one "tile" per pass, the same
# quads rasterized and shaded as under TBR (the organisation changes timing, not work), the
# depth/color caches' traffic accounted (misses = reads + fast-clear fills; a fast clear
# neither writes nor is resolved when off; a plane found cleared is written by the clear
# when fast clear is off). (Reads with and without fast clear are not compared: the
# different timing changes which lines the look-ahead evicts.) With imr.hierarchical_z and
# imr.z_compression: every frame bit-exact, no Hi-Z rejection the trace contradicts, quads
# rejected and depth blocks compressed on the depth samples (depth3d, branchy).
set -u
prefix=$1 traces=$2 bin=$3 work=$4
fail() { echo "FAIL samples_imr: $*" >&2; exit 1; }
[ -n "$prefix" ] || fail "TBR_MESA_PREFIX is empty"
rm -rf "$work"; mkdir -p "$work"
names=""
for t in "$traces"/*.trace; do
  n=$(basename "$t" .trace); names="$names $n"
  "$bin/tbr-replay" -q "$t" -o "$work/$n.replay" > "$work/$n.replay.log" 2>&1 ||
    fail "tbr-replay $n (log: $work/$n.replay.log)"
  "$bin/tbr-sim" --quiet "$work/$n.replay" -o "$work/$n.tbr" || fail "tbr-sim $n tbr: exit $?"
  "$bin/tbr-sim" --quiet "$work/$n.replay" -o "$work/$n.imr" --set pipeline.organization=imr ||
    fail "tbr-sim $n imr: exit $? (frames differ?)"
  "$bin/tbr-sim" --quiet "$work/$n.replay" -o "$work/$n.imr_nofc" --set pipeline.organization=imr \
    --set imr.fast_clear=false || fail "tbr-sim $n imr fast_clear=false: exit $? (frames differ?)"
  "$bin/tbr-sim" --quiet "$work/$n.replay" -o "$work/$n.imr_hiz" --set pipeline.organization=imr \
    --set imr.hierarchical_z=true --set imr.z_compression=true ||
    fail "tbr-sim $n imr hierarchical_z, z_compression: exit $? (frames differ?)"
done
python3 - "$work" $names <<'PY' || fail "check failed"
import json, sys
work = sys.argv[1]
def S(n, m): return json.load(open("%s/%s.%s/stats.json" % (work, n, m)))
def v(d, k): return d["stats"]["stats"].get(k, {"value": None})["value"]
def ok(cond, msg):
    if not cond: print("FAIL:", msg); sys.exit(1)
hiz_rejects, comp = {}, {}
for n in sys.argv[2:]:
    tbr, imr, nofc, hiz = S(n, "tbr"), S(n, "imr"), S(n, "imr_nofc"), S(n, "imr_hiz")
    for m, d in (("tbr", tbr), ("imr", imr), ("imr_nofc", nofc), ("imr_hiz", hiz)):
        ok(d["frames_bit_exact"] == d["frames_checked"] > 0, "%s %s: frames not all checked and bit-exact" % (n, m))
    ok(v(imr, "mem.plb.writes") == 0 and v(imr, "mem.tile_cache.reads") == 0, "%s: binning traffic under IMR" % n)
    ok(v(imr, "dram.bytes_by_source.parameter_buffer") == 0, "%s: Parameter Buffer DRAM bytes under IMR" % n)
    ok(v(imr, "tiles.rendered") == v(imr, "passes"), "%s: %s tiles for %s passes" % (n, v(imr, "tiles.rendered"), v(imr, "passes")))
    for k in ("quads.rasterized", "quads.shaded", "quads.early_z_killed", "quads.late_z", "quads.blended"):
        ok(v(imr, k) == v(tbr, k), "%s: %s %s under TBR, %s under IMR" % (n, k, v(tbr, k), v(imr, k)))
    for c in ("z_cache", "color_cache"):
        p = "imr.%s." % c
        ok(v(imr, p + "line_misses") == v(imr, p + "line_reads") + v(imr, p + "clear_fills"), "%s %s: misses" % (n, c))
        ok(v(imr, p + "clear_line_writes") == 0 and v(nofc, p + "clear_fills") == 0, "%s %s: fast clear" % (n, c))
        ok(v(nofc, p + "resolve_line_writes") == 0, "%s %s: resolve without fast clear" % (n, c))
        # a line found in the cleared state means a cleared plane, which the clear writes without fast clear
        ok(v(imr, p + "clear_fills") == 0 or v(nofc, p + "clear_line_writes") > 0, "%s %s: clear not written" % (n, c))
    ok(v(imr, "imr.color_cache.line_accesses") > 0, "%s: no color access" % n)
    # Hierarchical Z: no rejection the trace contradicts; a rejected quad is one Early-Z or
    # late Z would have killed (fewer early-Z kills, never more shaded quads); the Z cache
    # accesses it saved are missing from the Z cache's count
    ok(v(hiz, "imr.hiz.contradictions") == 0, "%s: Hi-Z contradicted the trace" % n)
    rej = v(hiz, "imr.hiz.quads_rejected")
    ok(v(hiz, "quads.shaded") <= v(imr, "quads.shaded"), "%s: Hi-Z shaded more" % n)
    ok(v(hiz, "quads.early_z_killed") + v(hiz, "quads.late_z") + rej >= v(imr, "quads.early_z_killed"), "%s: kills" % n)
    ok(v(hiz, "quads.rasterized") == v(imr, "quads.rasterized"), "%s: Hi-Z changed rasterization" % n)
    hiz_rejects[n] = rej
    # depth compression: a block is moved in fewer bytes, never more (64 B per saved line)
    saved = v(hiz, "imr.z_cache.compression_bytes_saved")
    ok(saved == 0 or saved % 64 == 0, "%s: compression bytes %s" % (n, saved))
    comp[n] = v(hiz, "imr.z_cache.compressed_writes")
ok(hiz_rejects.get("depth3d", 0) > 0 and hiz_rejects.get("branchy", 0) > 0, "Hi-Z rejected nothing: %s" % hiz_rejects)
ok(comp.get("depth3d", 0) > 0 and comp.get("branchy", 0) > 0, "nothing compressed: %s" % comp)
PY
echo "samples_imr: ok"
