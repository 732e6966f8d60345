#!/bin/sh
# tools_pictures.* CLI tests: test_pictures.sh BIN_DIR UTIL WORK CASE
set -u
BIN=$1 UTIL=$2 WORK=$3 CASE=$4
W=$WORK/$CASE
rm -rf "$W"; mkdir -p "$W"
"$UTIL" fixture "$W/fx" || { echo "fixture failed"; exit 1; }
FX=$W/fx
fail() { echo "FAIL: $*"; exit 1; }
# expect_exit CODE PATTERN CMD...: exit status CODE and stderr containing PATTERN
expect_exit() {
  code=$1 pat=$2; shift 2
  "$@" >"$W/out" 2>"$W/err"; rc=$?
  [ $rc -eq "$code" ] || { cat "$W/err"; fail "$* exited $rc, expected $code"; }
  [ -z "$pat" ] || grep -q -- "$pat" "$W/err" || { cat "$W/err"; fail "$*: stderr lacks '$pat'"; }
}
case $CASE in
heatmap_cycles)
  "$BIN/tbr-heatmap" "$FX/a" --frame 0 --metric cycles -o "$W/map.png" || fail "tbr-heatmap"
  [ ! -e "$W/map.png.tmp" ] || fail "temp file left"
  "$UTIL" heat-cycles "$W/map.png" || fail "tile colours"
  "$UTIL" legend "$W/map.png" || fail "legend"
  # overdraw derived from fragments (256*(i+1) in tile i of 256 pixels): 1..12; tile 0 = min ->
  # (68,1,84) over (200,100,50) = (121,41,70); tile 11 = max -> (253,231,37) -> (232,179,42)
  "$BIN/tbr-heatmap" "$FX/a" --frame 0 --metric overdraw -o "$W/od.png" || fail "overdraw"
  [ "$("$UTIL" pixel "$W/od.png" 8 8)" = "121 41 70" ] || fail "overdraw tile 0: $("$UTIL" pixel "$W/od.png" 8 8)"
  [ "$("$UTIL" pixel "$W/od.png" 56 40)" = "232 179 42" ] || fail "overdraw tile 11: $("$UTIL" pixel "$W/od.png" 56 40)" ;;
heatmap_over)
  # --over the reference (blue channel +5): tile 0 = (153*84 + 102*55 + 127)/255 = 72
  "$BIN/tbr-heatmap" "$FX/a" --frame 1 --metric cycles --over "$FX/replay/reference/frame_00001.png" -o "$W/map.png" || fail "tbr-heatmap --over"
  # tile 0 (v=0, colormap (68,1,84)) over (200,100,55): (121,41,72); tile 11 (null): (200,100,55)
  [ "$("$UTIL" pixel "$W/map.png" 8 8)" = "121 41 72" ] || fail "tile 0 over the reference: $("$UTIL" pixel "$W/map.png" 8 8)"
  [ "$("$UTIL" pixel "$W/map.png" 56 40)" = "200 100 55" ] || fail "tile 11 over the reference"
  "$UTIL" legend "$W/map.png" || fail "legend" ;;
heatmap_categorical)
  "$BIN/tbr-heatmap" "$FX/a" --frame 0 --metric re-skipped -o "$W/skip.png" || fail "re-skipped"
  "$UTIL" heat-cat "$W/skip.png" re-skipped || fail "re-skipped colours"
  "$UTIL" legend "$W/skip.png" || fail "legend"
  # run b has no per-tile data: the raster unit is derived from the static assignment
  "$BIN/tbr-heatmap" "$FX/b" --metric raster-unit -o "$W/ru.png" || fail "raster-unit"
  "$UTIL" heat-cat "$W/ru.png" ru-derived || fail "raster-unit colours"
  "$UTIL" legend "$W/ru.png" || fail "legend" ;;
barchart)
  "$BIN/tbr-barchart" -o "$W/chart.png" --metric total_cycles,cycles.raster A="$FX/a" B="$FX/b" C="$FX/c" || fail "tbr-barchart"
  [ ! -e "$W/chart.png.tmp" ] || fail "temp file left"
  "$UTIL" bars "$W/chart.png" 3 > "$W/bars" || fail "measure"
  cat "$W/bars"
  # normalized to A: total_cycles A 1, B 0.5, C 0.75; cycles.raster A 1, B 0.75, C 0.25
  python3 - "$W/bars" <<'PY' || fail "bar heights not proportional"
import sys
rows = [list(map(int, l.split(':')[1].split())) for l in open(sys.argv[1])]
a, b, c = rows
exp = {1: [0.5, 0.75], 2: [0.75, 0.25]}
ok = len(a) >= 2 and a[0] == a[1] and a[0] > 100
for s, vals in exp.items():
    for g, v in enumerate(vals):
        h = rows[s][g]
        if abs(h - v * a[g]) > 1: print("series", s, "group", g, "height", h, "expected", v * a[g]); ok = False
sys.exit(0 if ok else 1)
PY
  "$BIN/tbr-barchart" -o "$W/chart2.png" --metric total_cycles --normalize-to B A="$FX/a" B="$FX/b" || fail "--normalize-to"
  "$UTIL" bars "$W/chart2.png" 2 > "$W/bars2"; cat "$W/bars2"
  python3 -c "
import sys
r=[list(map(int,l.split(':')[1].split())) for l in open('$W/bars2')]
sys.exit(0 if abs(r[0][0]-2*r[1][0])<=1 else 1)" || fail "normalize-to B: A must be twice B"
  # the SVG form (the renderer of tbr-report's and tbr-sweep's charts): the same values as
  # bar heights, the labels as text
  "$BIN/tbr-barchart" -o "$W/chart.svg" --metric total_cycles,cycles.raster A="$FX/a" B="$FX/b" C="$FX/c" ||
    fail "tbr-barchart SVG"
  [ ! -e "$W/chart.svg.tmp" ] || fail "temp file left"
  python3 - "$W/chart.svg" <<'PY' || fail "SVG bar heights not proportional"
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
bars = [float(r.getAttribute("height")) for r in d.getElementsByTagName("rect") if r.getAttribute("class") == "bar"]
text = [t.firstChild.data for t in d.getElementsByTagName("text") if t.firstChild]
# groups total_cycles, cycles.raster; series A, B, C: A 1 1, B 0.5 0.75, C 0.75 0.25
exp = [1, 1, 0.5, 0.75, 0.75, 0.25]  # A0 A1 B0 B1 C0 C1
got = [bars[0], bars[3], bars[1], bars[4], bars[2], bars[5]]  # bars come group by group (A B C)
print(bars, text)
ok = len(bars) == 6 and bars[0] > 100 and all(abs(g - e * bars[0]) < 0.01 for g, e in zip(got, exp))
ok = ok and {"total_cycles", "cycles.raster", "A", "B", "C", "0.50", "0.25"} <= set(text)
sys.exit(0 if ok else 1)
PY
  ;;
report)
  "$BIN/tbr-report" "$FX/a" --reference "$FX/replay" --compare B="$FX/b" C="$FX/c" -o "$W/rep" || fail "tbr-report"
  for f in index.html sim_00000.png sim_00001.png ref_00000.png ref_00001.png chart_frame_cycles.svg chart_compare.svg \
           heat_cycles_00000.png heat_overdraw_00000.png heat_fragments_00000.png heat_re-skipped_00001.png heat_raster-unit_00000.png; do
    [ -s "$W/rep/$f" ] || fail "missing $f"
  done
  ls "$W/rep" | grep -q '\.tmp$' && fail "temp file left"
  grep -q 'bit-exact' "$W/rep/index.html" || fail "no summary table"
  grep -q 'src="http' "$W/rep/index.html" && fail "network reference"
  grep -q "no per-tile data for metric 'te-eliminated'" "$W/rep/index.html" || fail "missing-data note" ;;
bad_input)
  expect_exit 2 "nonexistent/stats.json" "$BIN/tbr-heatmap" "$W/nonexistent" --metric cycles -o "$W/x.png"
  expect_exit 2 "bad.json/stats.json: invalid JSON" "$BIN/tbr-heatmap" "$FX/bad.json" --metric cycles -o "$W/x.png"
  expect_exit 2 "unknown metric" "$BIN/tbr-heatmap" "$FX/a" --metric foo -o "$W/x.png"
  expect_exit 2 "no frame 7" "$BIN/tbr-heatmap" "$FX/a" --frame 7 --metric cycles -o "$W/x.png"
  expect_exit 2 "b/stats.json: no per-tile data for metric 'cycles'" "$BIN/tbr-heatmap" "$FX/b" --metric cycles -o "$W/x.png"
  expect_exit 2 "needs a value" "$BIN/tbr-heatmap" "$FX/a" --metric
  expect_exit 2 "" "$BIN/tbr-heatmap"
  expect_exit 2 "missing.png" "$BIN/tbr-heatmap" "$FX/a" --metric cycles --over "$W/missing.png" -o "$W/x.png"
  # sizes from the per-tile data are checked before they divide (hostile input: a tile width of
  # 2^32 was a SIGFPE; zero columns were accepted)
  cp -r "$FX/a" "$W/huge"; sed -i 's/"tile_width": 16/"tile_width": 4294967296/' "$W/huge/stats.json"
  expect_exit 2 "bad tile size" "$BIN/tbr-heatmap" "$W/huge" --metric cycles -o "$W/x.png"
  cp -r "$FX/a" "$W/nocols"; sed -i 's/"cols": 4/"cols": 0/' "$W/nocols/stats.json"
  expect_exit 2 "bad tile grid" "$BIN/tbr-heatmap" "$W/nocols" --metric cycles -o "$W/x.png"
  [ ! -e "$W/x.png" ] || fail "output written on error"
  expect_exit 2 "not LABEL=OUT_DIR" "$BIN/tbr-barchart" -o "$W/c.png" --metric total_cycles "$FX/a"
  expect_exit 2 "no metric 'nope'" "$BIN/tbr-barchart" -o "$W/c.png" --metric nope A="$FX/a"
  expect_exit 2 "no energy report" "$BIN/tbr-barchart" -o "$W/c.png" --metric energy_total A="$FX/a"
  expect_exit 2 "not one of the run labels" "$BIN/tbr-barchart" -o "$W/c.png" --metric total_cycles --normalize-to Z A="$FX/a"
  expect_exit 2 "nonexistent/stats.json" "$BIN/tbr-barchart" -o "$W/c.png" --metric total_cycles A="$FX/a" B="$W/nonexistent"
  expect_exit 2 "nonexistent/stats.json" "$BIN/tbr-report" "$W/nonexistent" -o "$W/rep"
  expect_exit 2 "nope: not a directory" "$BIN/tbr-report" "$FX/a" --reference "$W/nope" -o "$W/rep"
  expect_exit 2 "" "$BIN/tbr-report" "$FX/a"
  [ ! -e "$W/rep" ] || fail "report written on error" ;;
usage)
  for t in tbr-heatmap tbr-barchart tbr-report; do
    "$BIN/$t" --help | grep -q "usage: $t" || fail "$t --help"
    "$BIN/$t" --version | grep -q "^$t [0-9]" || fail "$t --version"
  done ;;
*) fail "unknown case $CASE" ;;
esac
echo "PASS $CASE"
