#!/usr/bin/env bash
# functional.vtex: vertex texturing (tests/functional/app/known_vtex.c: the vertex shader
# samples a height map with texture2DLod, as glmark2 terrain does). Capture with apitrace;
# tbr-replay WITHOUT --allow-unsupported must record it (no `vertex_texturing`); the
# reference PNGs = eglretrace -s; the VS_TEXTURES / VS_TEXELS records re-derived from the
# trace = the program's analytic expectation (102 vertices x 1 nearest texel, x 4 bilinear
# texels; the 2 empty lanes of the last VS group record nothing; texel x + 16 y = vertex
# index); the status file counts them; tbr-dump prints them; tbr-sim is bit-exact and its
# vertex texture statistics count the same texels, through the L2 (baseline) and through
# the vertex texture cache (vertex.texture_path = cache), with the same results as with
# --no-skip.
#
# usage: vtex.sh MESA_PREFIX APP CHECK BIN_DIR WORKDIR
set -u
mesa="$1" app="$2" check="$3" bin="$4" work="$5"
. "$(dirname "$0")/common.sh"
functional_setup "$mesa" "$work" apitrace eglretrace

apitrace trace --api egl -o kv.trace "$app" > capture.log 2>&1 || { cat capture.log; fail "capture"; }
frames=$(apitrace info kv.trace | sed -n 's/.*"FramesCount": *\([0-9]*\).*/\1/p')
[ "$frames" = 2 ] || fail "apitrace frames '$frames', expected 2"
mkdir -p snap
eglretrace -s snap/ kv.trace > snap.log 2>&1 || { cat snap.log; fail "eglretrace -s"; }
mapfile -t snaps < <(ls snap/*.png | sort)
[ "${#snaps[@]}" -eq 2 ] || fail "eglretrace -s wrote ${#snaps[@]} PNGs"

# 1. tbr-replay, no --allow-unsupported
"$bin/tbr-replay" kv.trace -o out > replay.log 2>&1 || { cat replay.log; fail "tbr-replay refused the trace"; }
st=out/functional-status.txt
grep -qx 'status=ok' "$st" || { cat "$st"; fail "status"; }
grep -qx 'unsupported=' "$st" || { grep unsupported "$st"; fail "unsupported features hit"; }
grep -qx 'vs_texels=510' "$st" || { grep vs_tex "$st"; fail "status vs_texels != 102 + 408"; }
grep -qx 'vs_texel_fetches=52' "$st" || { grep vs_tex "$st"; fail "status vs_texel_fetches != 2 x 26 groups"; }
for ((f = 0; f < 2; f++)); do
  "$check" pngeq "$(printf 'out/reference/frame_%05d.png' "$f")" "${snaps[$f]}" \
    || fail "frame $f: reference PNG differs from eglretrace -s"
done

# 2. records re-derived from the trace
"$check" counts out/activity.tbrt > counts.txt || { cat counts.txt; fail "trace decode/consistency"; }
"$app" --expect > expect.txt
bad=0
while IFS='=' read -r k v; do
  got=$(grep "^$k=" counts.txt | head -1 | cut -d= -f2)
  if [ "$got" != "$v" ]; then echo "MISMATCH $k: trace '$got', expected $v" >&2; bad=1
  else echo "ok $k=$v"; fi
done < expect.txt
[ $bad -eq 0 ] || { grep -E 'vert|vs_' counts.txt; fail "vertex texel counts differ"; }

# 3. tbr-dump prints the new records
"$bin/tbr-dump" -t vs_textures,vs_texels out/activity.tbrt > dump.txt 2>&1 || { cat dump.txt; fail "tbr-dump"; }
[ "$(grep -c 'VS_TEXTURES draw=0 textures=1' dump.txt)" = 2 ] || { cat dump.txt; fail "tbr-dump: VS_TEXTURES"; }
[ "$(grep -c 'VS_TEXELS draw=0 fetches=26' dump.txt)" = 2 ] || { cat dump.txt; fail "tbr-dump: VS_TEXELS"; }
grep -q 'group=25 pc=[0-9]* unit=0 resource=[0-9]* texels=2 per_lane=1,1,0,0' dump.txt \
  || { cat dump.txt; fail "tbr-dump: the last (2-vertex) group of frame 0"; }
"$bin/tbr-dump" -s out/activity.tbrt | grep -q 'vertex texels    408 in 26 fetches' || fail "tbr-dump -s: vertex texels"

# 4. tbr-sim: bit-exact, vertex texture statistics = the recorded texels, both paths
stat() { sed -n "s/^$1 *\([0-9]*\) .*/\1/p" "$2" | head -1; }
for path in l2 cache; do
  "$bin/tbr-sim" out -o "sim-$path" --quiet --set "vertex.texture_path=$path" > "sim-$path.log" 2>&1 \
    || { cat "sim-$path.log"; fail "tbr-sim ($path)"; }
  s="sim-$path/summary.txt"
  exact=$(grep -c 'bit-exact with the reference' "$s")
  [ "$exact" = 2 ] || { cat "$s"; fail "$path: $exact of 2 frames bit-exact"; }
  [ "$(stat vertex_texture.texels "$s")" = 510 ] || fail "$path: vertex_texture.texels != 510"
  [ "$(stat vertex_texture.requests "$s")" = 52 ] || fail "$path: vertex_texture.requests != 52"
  [ "$(stat vertex_texture.requests_without_texels "$s")" = 0 ] || fail "$path: TEX without texels"
  lines=$(stat vertex_texture.line_requests "$s")
  [ "${lines:-0}" -gt 0 ] || fail "$path: no vertex texture line requests"
  # skipping quiescent cycles (the vertex texture unit reports its next event) changes
  # nothing: the same statistics and frames as ticking every cycle
  "$bin/tbr-sim" out -o "sim-$path-noskip" --quiet --no-skip --set "vertex.texture_path=$path" \
    > "sim-$path-noskip.log" 2>&1 || { cat "sim-$path-noskip.log"; fail "tbr-sim --no-skip ($path)"; }
  for f in stats.json tiles.json frames/frame_00000.png frames/frame_00001.png; do
    cmp -s "sim-$path/$f" "sim-$path-noskip/$f" || fail "$path: $f differs with --no-skip"
  done
  if [ "$path" = l2 ]; then
    [ "$(stat mem.vertex_texture.reads "$s")" = "$lines" ] || fail "l2: every line read from the L2"
  else
    [ "$(stat texture_cache.vertex.accesses "$s")" = "$lines" ] || fail "cache: every line through the vertex texture cache"
    [ "$(stat texture_cache.vertex.hits "$s")" -gt 0 ] || fail "cache: no hits"
  fi
done
echo "PASS"
