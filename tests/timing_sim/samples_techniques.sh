#!/bin/sh
# usage: samples_techniques.sh CASE MESA_PREFIX TRACES_DIR BIN_DIR WORK
# Acceptance of Rendering / Transaction Elimination on the real sample traces (issues 6
# and 7; docs/techniques.md "Verification"): replay the sample(s) with the instrumented
# Mesa, run tbr-sim with and without the technique (exit 0 = every frame bit-exact) and
# check the statistics in stats.json.
set -u
case_=$1 prefix=$2 traces=$3 bin=$4 work=$5
fail() { echo "FAIL $case_: $*" >&2; exit 1; }
[ -n "$prefix" ] || fail "TBR_MESA_PREFIX is empty"
rm -rf "$work"; mkdir -p "$work"
replay() { # replay NAME -> $work/NAME.replay
  "$bin/tbr-replay" -q "$traces/$1.trace" -o "$work/$1.replay" > "$work/$1.replay.log" 2>&1 ||
    fail "tbr-replay $1 (log: $work/$1.replay.log)"
}
sim() { # sim NAME LABEL [--set ...]: bit-exact run into $work/NAME.LABEL
  n=$1 l=$2; shift 2
  "$bin/tbr-sim" --quiet "$work/$n.replay" -o "$work/$n.$l" "$@" || fail "tbr-sim $n $l $*: exit $? (frames differ?)"
}
check() { # check PYTHON_CODE: runs with S(name, label) -> stats.json dict
  python3 - "$work" "$1" <<'PY' || fail "check failed"
import json, sys
work, code = sys.argv[1], sys.argv[2]
def S(n, l): return json.load(open("%s/%s.%s/stats.json" % (work, n, l)))
def tot(d, k): return d["stats"]["stats"][k]["value"]
def fr(d, k): return [f["stats"].get(k, 0) for f in d["stats"]["frames"]]
def ok(cond, msg):
    if not cond: print("FAIL:", msg); sys.exit(1)
exec(code)
PY
}

case $case_ in
ptr_rtt)
  # Parallel Tile Rendering (issue 6; thesis ch. 5) on a fragment-bound real sample: two
  # Raster Units speed it up under each tile-assignment policy (thesis: 1.83x), every
  # frame stays bit-exact (tbr-sim exit 0) and both units get work. Passes one at a time
  # (overlap.enabled=false): the bound below takes the phases as sequential (with overlap,
  # on by default, T - R is no longer the part two units cannot shorten).
  replay rtt
  sim rtt base --set overlap.enabled=false
  for pol in static fastest mixed; do
    sim rtt "ru2_$pol" --set overlap.enabled=false --set tile.raster_units=2 --set tile.ru_assignment=$pol
  done
  check '
b = S("rtt", "base")
# The bound is Amdahl on the base run: only the raster phase (R of T cycles; 97.5 % on rtt)
# is split between the two units, so the speedup is at most T / (T - R/2) (1.951 on rtt).
# What the model loses against it is the imbalance at the end of each frame (100 tiles per
# frame: a unit idles at most about one tile while the other finishes) and the two units
# sharing the L2 and DRAM: measured 0.974-0.989 of the ideal (speedups 1.901-1.930). A loss
# above 5 % of the ideal (speedup < 1.85 on rtt) is a regression of the model; above the
# ideal by more than 1 % would be a second unit doing work it cannot do. (Issue 22: the
# bound was (1.5, 2], which hid a regression of half the effect.)
T, R = b["total_cycles"], tot(b, "cycles.raster")
ideal = T / (T - R / 2)
ok(R / T > 0.9, "rtt is no longer fragment-bound: raster share %.3f" % (R / T))
for pol in ("static", "fastest", "mixed"):
    p = S("rtt", "ru2_" + pol)
    sp = b["total_cycles"] / p["total_cycles"]
    t0, t1 = tot(p, "ru0.tiles"), tot(p, "ru1.tiles")
    ok(0.95 * ideal <= sp <= 1.01 * ideal, "%s: speedup %.3f outside [%.3f, %.3f] (0.95-1.01 of Amdahl %.3f)" % (pol, sp, 0.95 * ideal, 1.01 * ideal, ideal))
    ok(t0 > 0 and t1 > 0 and t0 + t1 == tot(b, "ru0.tiles"), "%s: tiles %d + %d vs %d" % (pol, t0, t1, tot(b, "ru0.tiles")))
    print("ok ptr_rtt %s: speedup %.3f, tiles %d / %d" % (pol, sp, t0, t1))
' ;;
re_casual2d)
  # The static 2D sample: after the upload frame (0) and the first reference frame (1),
  # RE skips the large majority of the 80 tiles; frames stay bit-exact (tbr-sim exit 0).
  replay casual2d
  # RE runs frames one after another (no overlap): so does the baseline, whose per-frame
  # raster share and energy the bounds below use (overlap.across_frames would hide a
  # frame's geometry under the previous frame's raster)
  sim casual2d base --set overlap.across_frames=false
  sim casual2d re --set re.enabled=true
  # skipping quiescent cycles changes nothing with RE either (the Signature Unit signing a
  # drawcall's constants is an event: gpu.c geometry_phase_next_event)
  sim casual2d re_noskip --set re.enabled=true --no-skip
  cmp -s "$work/casual2d.re/stats.json" "$work/casual2d.re_noskip/stats.json" ||
    fail "RE: stats.json differs with --no-skip"
  check '
b, r = S("casual2d", "base"), S("casual2d", "re")
sk, nt = fr(r, "re.tiles_skipped"), fr(r, "re.tiles_skipped")[0] + fr(r, "re.tiles_rendered")[0]
ok(nt == 80, "80 tiles per frame, got %d" % nt)
ok(sk[0] == 0 and sk[1] == 0, "no skips without a reference: %s" % sk)
# What must change (samples/casual2d.c): the 24x24 sprite moves 5 px right and 3 px up a
# frame; the union of its old and new rectangles (29 x 27 px, frames 1-4: x 45-84, y 93-126)
# crosses one tile boundary in each direction, so at most 2 x 2 = 4 tiles of 32x32 get other
# inputs; the score fill grows every 4th frame (frame 4) inside one tile of the top bar.
# Every other tile has the same inputs as in the frame before, and RE must skip it:
# 80 - 4 = 76 tiles in frames 2 and 3, 75 in frame 4 (measured: exactly that). The bound
# was >= 75 % (60 tiles), which hid a regression of half the effect (issue 22).
for k in (2, 3, 4):
    must = nt - 4 - (1 if k % 4 == 0 else 0)
    ok(sk[k] >= must, "frame %d: %d tiles skipped, at least %d must be (%s)" % (k, sk[k], must, sk))
ok(tot(r, "re.false_positives") == 0, "false positives")
ok(tot(r, "re.tiles_equal_inputs") >= tot(r, "re.tiles_skipped"), "skips need equal inputs")
cb, cr = fr(b, "cycles.raster"), fr(r, "cycles.raster")
ok(all(cr[k] < 0.5 * cb[k] for k in (2, 3, 4)), "raster cycles halve at least: %s vs %s" % (cr, cb))
print("ok re_casual2d: skipped", sk, "raster cycles", cr, "vs", cb)
# Issue 7 (same two runs): RE reduces the energy of a static frame roughly in proportion
# to the tiles it skips. Skipping a fraction s of the tiles removes that share of the
# raster phase but not the geometry/tiling phase, so the reduction r satisfies
#   s * (raster share of the baseline frame cycles) - 0.02 <= r <= s + 0.02
# (0.02: the Signature Unit own energy and the skipped tiles unequal costs).
for k in (2, 3, 4):
    s = sk[k] / 80.0
    red = 1 - r["energy"]["frames"][k]["total_pj"] / b["energy"]["frames"][k]["total_pj"]
    share = cb[k] / fr(b, "cycles.total")[k]
    ok(s * share - 0.02 <= red <= s + 0.02, "frame %d: skipped %.3f, raster share %.3f, energy reduction %.3f" % (k, s, share, red))
    print("frame %d: skipped %.3f of the tiles, energy -%.3f (bounds %.3f..%.3f)" % (k, s, red, s * share - 0.02, s + 0.02))
ok(r["energy"]["frames"][2]["units"]["re.crc_accumulate"]["dynamic_pj"] > 0, "RE structures are charged")
' ;;
re_allchange)
  # The acceptance case of issue 6: a sample where every tile changes every frame
  # (samples/allchange.c; every pixel differs from the previous frame). RE signs and
  # compares every tile of frames 2-4 (frame 0 uploads, frame 1 has no reference),
  # skips none, and costs under 1% cycles (RE paper sec. V: < 1% where no tile is
  # redundant); the Signature Unit stalls the PLB only through the OT queue. The
  # paper's iterative Accumulate unit (Algorithm 3) costs more on its full-screen
  # primitives (18 shift steps per tile against the PLB's one tile per cycle).
  replay allchange
  # RE runs frames one after another (no overlap): so does the baseline of its overhead
  sim allchange base --set overlap.across_frames=false
  sim allchange re --set re.enabled=true
  sim allchange re_it --set re.enabled=true --set re.accumulate_unit=iterative
  check '
b, r, i = S("allchange", "base"), S("allchange", "re"), S("allchange", "re_it")
ok(i["total_cycles"] > r["total_cycles"], "iterative accumulate is slower")
ok(tot(r, "re.frames_enabled") == 4 and tot(r, "re.frames_no_reference") == 1, "frames 1-4 RE on, 2-4 with a reference")
ok(tot(r, "re.compares") == 3 * 80, "every tile of frames 2-4 compared: %d" % tot(r, "re.compares"))
ok(tot(r, "re.tiles_skipped") == 0 and tot(r, "re.tiles_equal_inputs") == 0, "nothing skipped")
ok(tot(r, "re.tiles_unsignable") == 0, "every tile signable")
ok(tot(r, "re.false_positives") == 0, "false positives")
ok(tot(r, "re.su.prim_buffer_stall_cycles") == 0, "only the OT queue stalls the PLB")
ratio = r["total_cycles"] / b["total_cycles"]
ok(0.99 < ratio < 1.01, "RE overhead %.4f" % ratio)
print("ok re_allchange: cycles x%.4f (iterative x%.4f), %d tiles compared, 0 skipped" % (ratio, i["total_cycles"] / b["total_cycles"], tot(r, "re.compares")))
' ;;
te_casual2d)
  # TE on the static sample eliminates flushes (frame 1 onwards) and saves only the
  # color-flush share of the energy: units off the flush path (L2, Color Buffer,
  # interconnect, DRAM) keep their dynamic energy.
  replay casual2d
  sim casual2d base
  sim casual2d te --set te.enabled=true
  check '
b, t = S("casual2d", "base"), S("casual2d", "te")
el, fl = fr(t, "te.flushes_eliminated"), fr(t, "te.flushes")
ok(el[0] == 0 and all(e >= 0.75 * 80 for e in el[1:]), "flushes eliminated per frame: %s of %s" % (el, fl))
ok(tot(t, "te.false_positives") == 0, "TE false positives")
flush_path = ("l2", "color_buffer", "interconnect")
for k in range(1, 5):
    eb, et = b["energy"]["frames"][k], t["energy"]["frames"][k]
    saved = eb["total_pj"] - et["total_pj"]
    ok(saved > 0, "frame %d: TE saves energy (%.0f pJ)" % (k, saved))
    for u, v in eb["units"].items():
        if u in flush_path: continue
        w = et["units"][u]["dynamic_pj"]
        # 2%: caches off the flush path (tile cache) see other hit/miss interleavings when
        # the flushes disappear (timing), about 1% of their energy on casual2d
        ok(abs(w - v["dynamic_pj"]) <= 0.02 * v["dynamic_pj"] + 1.0, "frame %d: %s dynamic %.0f vs %.0f" % (k, u, w, v["dynamic_pj"]))
    # the saving is at most the eliminated share of the flush-path energy (the L2 and
    # interconnect also serve other traffic, so this bound is loose but must hold)
    path = sum(eb["units"][u]["dynamic_pj"] for u in flush_path) + eb["dram_pj"]
    ok(saved <= el[k] / fl[k] * path, "frame %d: saved %.0f pJ > flush share %.0f" % (k, saved, el[k] / fl[k] * path))
print("ok te_casual2d: eliminated", el, "of", fl)
' ;;
restore)
  # tile.restore (docs/timing-model.md): casual2d binds a Z24S8 buffer that none of its
  # 2D draws tests and clears only the color. `always` loads that depth buffer in every
  # tile of every frame (320 x 240 x 4 B / 64 B = 4800 lines); `used` (default, as Mesa
  # freedreno restores only the buffers a draw uses) loads nothing and is faster; the
  # frames are bit-exact both ways (tbr-sim exit 0).
  replay casual2d
  sim casual2d used
  sim casual2d always --set tile.restore=always
  check '
u, a = S("casual2d", "used"), S("casual2d", "always")
la, lu = fr(a, "tiles.buffer_load_lines"), fr(u, "tiles.buffer_load_lines")
ok(la == [4800] * 5, "always: the unused depth buffer is loaded: %s" % la)
ok(lu == [0] * 5, "used: nothing loaded: %s" % lu)
ok(u["total_cycles"] < a["total_cycles"], "fewer cycles without the loads")
print("ok restore: loads", la, "->", lu, "cycles", a["total_cycles"], "->", u["total_cycles"])
' ;;
re_overhead)
  # A sample where (almost) every tile changes: branchy (50 of its 400 tiles have equal
  # inputs). With RE disabled every frame for refresh (re.refresh_period=1) the Signature
  # Unit still signs every tile but nothing is skipped: the cost of RE alone, which
  # must stay under 1% of the cycles (RE paper sec. V).
  # Frames 0-2 keep the test short under ASan (frame 0 uploads textures; 1-2 are signed,
  # 2 compared with 1); the iterative Accumulate unit is compared on allchange.
  replay branchy
  sim branchy base --frames 0-2
  sim branchy ovh --frames 0-2 --set re.enabled=true --set re.refresh_period=1
  check '
b, o = S("branchy", "base"), S("branchy", "ovh")
ok(tot(o, "re.tiles_skipped") == 0 and tot(o, "re.compares") > 0, "refresh run signs but skips nothing")
ratio = o["total_cycles"] / b["total_cycles"]
ok(0.99 < ratio < 1.01, "RE overhead %.4f" % ratio)
ok(tot(o, "re.false_positives") == 0, "false positives")
ok(tot(o, "re.su.prim_buffer_stall_cycles") == 0, "only the OT queue stalls the PLB")
ok(tot(o, "re.frames_zs_clear_writes") == 3, "depth-only clears are recognised")
ok(tot(o, "re.frames_disabled_upload") == 1 and tot(o, "re.frames_disabled_refresh") == 2, "only the texture-upload frame disables RE")
print("ok re_overhead: cycles x%.4f" % ratio)
' ;;
false_positives)
  # RE and TE together on the remaining samples (frames 0-2: the first frame with a
  # reference is 2): bit-exact, no false positives.
  for n in blend depth3d mipmap rtt; do
    replay $n
    sim $n rete --frames 0-2 --set re.enabled=true --set te.enabled=true
  done
  check '
for n in ("blend", "depth3d", "mipmap", "rtt"):
    d = S(n, "rete")
    ok(tot(d, "re.false_positives") == 0 and tot(d, "te.false_positives") == 0, n + ": false positives")
    ok(tot(d, "re.tiles_unsignable") == 0 or n != "depth3d", "depth3d: tiles signable after its depth-only clear")
    print("ok", n, "skipped", tot(d, "re.tiles_skipped"), "TE eliminated", tot(d, "te.flushes_eliminated"))
' ;;
re_multipass)
  # RE and TE on a sample with two render passes per frame (issue 20; docs/techniques.md
  # "Several render passes"): rtt renders a rotating cube into a 160x120 texture (pass
  # 0) and samples it in a full-screen triangle (pass 1). softpipe writes each pass's
  # tiles back through transfers (UPLOADs flagged TILE_CACHE, records minor 8): no
  # upload. Frames 2-4 skip the cube pass's static tiles; pass 1 samples a texture
  # rendered since frame N-1 and is not compared; bit-exact (exit 0), no false positives.
  replay rtt
  sim rtt re --set re.enabled=true
  sim rtt te --set te.enabled=true
  check '
r, t = S("rtt", "re"), S("rtt", "te")
off, on = fr(r, "re.tiles_skipped_offscreen"), fr(r, "re.tiles_skipped_onscreen")
ok(fr(r, "re.frames_tile_cache_writebacks") == [1] * 5, "every frame has tile-cache write-backs")
ok(fr(r, "re.frames_disabled_upload")[1:] == [0] * 4, "frames 1-4: no upload disables RE")
ok(all(0 < s < 20 for s in off[2:]) and off[:2] == [0, 0], "cube pass: some of its 20 tiles skipped in frames 2-4: %s" % off)
ok(on == [0] * 5, "the pass sampling the cube is never compared: %s" % on)
ok(fr(r, "re.passes_disabled_samples_rendered")[2:] == [1, 1, 1], "pass 1 off: samples a rendered texture")
ok(tot(r, "re.false_positives") == 0 and tot(t, "te.false_positives") == 0, "false positives")
ok(tot(t, "te.flushes_eliminated") > 0, "TE drops flushes in multi-pass frames")
print("ok re_multipass: skipped off-screen", off, "TE eliminated", tot(t, "te.flushes_eliminated"), "of", tot(t, "te.flushes"))
' ;;
*) fail "unknown case" ;;
esac
exit 0
