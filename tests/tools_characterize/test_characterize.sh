#!/bin/sh
# CLI tests of tbr-characterize on the synthetic scene of gen_scene.c (see
# its header comment for the scene). Usage:
#   test_characterize.sh TBR_CHARACTERIZE GEN_SCENE WORKDIR CASE
#
# Hand computation, frame 5 (320x240 screen, 32x32 tiles -> 10 x 8 = 80 tiles):
#  draws 2; PRIM records 4 (none culled) -> primitives per draw 4/2 = 2.
#  shaded fragments: 19200 quads * 4 = 76800 (full screen) + 256 * 4 = 1024
#    (square) = 77824 -> fragments per primitive 77824 / 4 = 19456;
#    overdraw 77824 / 76800 = 1.013333.
#  attributes per primitive: nr_attrs 3 minus the position = 2.
#  VS (static): draw 0 vs 10 (4 insns) x 6 vertices + draw 1 vs 12 (7 insns)
#    x 6 = 24 + 42 = 66 over 12 vertices = 5.5.
#  FS (static): (76800 x 5 + 1024 x 3) / 77824 = 387072 / 77824 = 4.973684;
#    ALU: fs 11 has MUL ADD MOV = 3 (TEX is texture, END flow), fs 13 has
#    MOV_SAT MUL = 2: (76800 x 3 + 1024 x 2) / (76800 x 1) = 232448 / 76800
#    = 3.026667.
#  FS (executed, "paths" trace): path 1 = 5 insns x 4 lanes per quad, path 2
#    = lanes 4 + 2 + 4 = 10 per quad: (19200 x 20 + 256 x 10) / 77824 =
#    386560 / 77824 = 4.967105; ALU lanes 19200 x 12 + 256 x (4 MOV + 2 MUL)
#    = 231936, TEX lanes 19200 x 4 = 76800 -> 3.020000.
#  primitives per tile, bounding box: each full-screen triangle's bbox is the
#    whole screen (80 tiles), each square triangle's bbox (64..96) covers
#    pixels 64..95 = tile 2 in x and y (1 tile): 80+80+1+1 = 162 / 80 = 2.025.
#  primitives per tile, covered fragments (quad (x,y) of the full screen is
#    prim 0 iff 3x >= 4y; quads' top-left x in 32tx..32tx+30, y in
#    32ty..32ty+30, clipped to y <= 238):
#    prim 0 touches tile iff 3(32tx+30) >= 4(32ty) <=> 96tx + 90 >= 128ty:
#      ty=0: 10, 1: tx>=0.40 -> 9, 2: tx>=1.73 -> 8, 3: tx>=3.06 -> 6,
#      4: tx>=4.40 -> 5, 5: tx>=5.73 -> 4, 6: tx>=7.06 -> 2, 7: tx>=8.40 -> 1
#      = 45
#    prim 1 touches tile iff 3(32tx) < 4 min(32ty+30, 238):
#      ty=0: tx<1.25 -> 2, 1: <2.58 -> 3, 2: <3.92 -> 4, 3: <5.25 -> 6,
#      4: <6.58 -> 7, 5: <7.92 -> 8, 6: <9.25 -> 10, 7: <9.92 -> 10 = 50
#    square: both prims in tile (2,2) = 2.  (45 + 50 + 2) / 80 = 1.2125.
#  With 64x64 tiles (5 x 4 = 20): bbox 20 + 20 + 1 + 1 = 42 / 20 = 2.1;
#    prim 0: 192tx + 186 >= 256ty: ty=0: 5, 1: tx>=0.36 -> 4, 2: tx>=1.70
#      -> 3, 3: tx>=3.03 -> 1 = 13;
#    prim 1: 192tx < 4 min(64ty+62, 238): ty=0: tx<1.29 -> 2, 1: <2.625 -> 3,
#      2: <3.96 -> 4, 3: <4.96 -> 5 = 14; square 2: (13 + 14 + 2) / 20 = 1.45.
# Frame 7: no draws, one 320x240 render pass (80 tiles), FRAME_END 320x240.
# Trace: draws per frame 2/2 = 1; overdraw 77824 / 153600 = 0.506667;
#   bbox 162 / 160 = 1.0125; covered 97 / 160 = 0.60625.
#
# TEXTURED scene (gen_scene texels; see gen_scene.c): 3 frames, 128x64 screen,
# 2048 quads per frame, texture 128x64 x 4 bytes: a row = 8 blocks of 64 bytes,
# block c = texels 16c..16c+15; 512 blocks. 32x32 tiles: 4 x 2 = 8 tiles,
# tile order t = 4 ty + tx.
#  texels per fragment: frame 0 (nearest, 1:1): 1 texel per lane, 4 lanes
#    covered: 8192 / 8192 = 1. Frame 1 (bilinear): 4 per lane: 32768 / 8192
#    = 4. Frame 2 (in_mask 3, PATH mask 3): TEXELS lists 4 lanes per quad
#    (8192 texels) but lanes 2,3 are helpers: 4096 counted / 4096 fragments
#    = 1 (2 if helper lanes were counted). The last quad has no PATH: its
#    lanes come from the shading mask (3): same count; 1 fallback fetch.
#    Trace: (8192 + 32768 + 4096) / (8192 + 8192 + 4096) = 45056/20480 = 2.2.
#  sharing, frame 0: tile tx reads texels 32tx..32tx+31 = blocks 2tx, 2tx+1
#    only; rows of ty: 32ty..32ty+31: every block private: d1 = d2 = 0.
#  sharing, frame 1: tile (tx,ty) reads texels 32tx..32tx+32 (clamped to 127)
#    of rows 32ty..32ty+32 (clamped to 63): block c = 2k (k = 1,2,3) is read
#    by tiles tx = k-1 and k (distance 1): 3 x 64 rows = 192 blocks at d1;
#    row 32 of blocks 0,1,3,5,7 is read by ty 0 and 1 (distance 4: farther):
#    5; the other 315 private. d1 = 192/512 = 0.375, d2 = 0.
#    64x32 tiles (2 x 2, t = 2 ty + tx): block 4 (texel 64) is read by tx 0
#    and 1: 64 blocks at d1; row 32 of the 7 other blocks by ty 0 and 1
#    (distance 2): 7 at d2: 64/512 = 0.125, 7/512 = 0.013672.
#  replication, 2 caches: strips (processor = qx*2/16: tile pixels 0..15 ->
#    0, 16..31 -> 1): frame 0: block 2tx only from pixels 32tx..+15 (p0),
#    2tx+1 from +16..+31 (p1): all 512 in 1 cache: [1, 0]. Frame 1: block 0
#    (texels 0..15) read by pixels 0..15 (p0) only; block 2k+1 by pixel
#    32k+15 (p0) and 32k+16..31 (p1); block 2k (k >= 1) by pixel 32k-1 of
#    tile k-1 (p1) and 32k..32k+15 (p0): 64 blocks in 1 cache, 448 in 2:
#    [0.125, 0.875]. rr (processor = qx mod 2): each block spans 8 quads of
#    a row: every block in both caches: [0, 1].
#  VS executed: per frame group 1 = PATH 3 (4 insns x 4 lanes = 16), group
#    2 = PATH 4 (3 insns x 2 lanes = 6): 22 / 6 vertices = 3.666667 (static:
#    4 insns x 6 / 6 = 4).
# LOOP scene (gen_scene texloop): 2 quads, 8 fragments; the TEX (pc 1) runs
#  twice per quad: 1st execution PATH mask F (4 lanes), 2nd mask 1 (lane 0):
#  texels counted 2 x (4 + 1) = 10 / 8 = 1.25 (2.0 if the quad's mask or the
#  first occurrence's mask were used for both); all lanes 16; TEX lane
#  executions 2 x 5 = 10 -> texels per texture instruction 1.
set -u
CHZ=$1
GEN=$2
WORK=$3/$4
CASE=$4
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1

fail() { echo "FAIL [$CASE]: $*" >&2; exit 1; }
expect_grep() { grep -E -q -- "$1" "$2" || fail "'$1' not found in $2"; }
expect_count() {
    n=$(grep -E -c -- "$1" "$3")
    [ "$n" -eq "$2" ] || fail "expected $2 lines matching '$1' in $3, got $n"
}
run() {
    want=$1
    shift
    "$CHZ" "$@" >out.txt 2>err.txt
    st=$?
    [ "$st" -eq "$want" ] || { cat err.txt >&2; fail "tbr-characterize $* exited $st, expected $want"; }
}
# csv_field ROW COLUMN: value of COLUMN in the CSV row whose first field is ROW
csv_field() {
    awk -F, -v row="$1" -v col="$2" '
        NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
        $1 == row { if (!(col in idx)) { print "NO_SUCH_COLUMN"; exit } print $idx[col]; exit }
    ' out.txt
}
expect_csv() {
    v=$(csv_field "$1" "$2")
    [ "$v" = "$3" ] || fail "row $1 column $2 = '$v', expected '$3'"
}

"$GEN" scene.tbrt || fail "generator failed"
"$GEN" paths.tbrt paths || fail "generator failed"
"$GEN" texels.tbrt texels || fail "generator failed"

case "$CASE" in
table32)
    run 0 --csv scene.tbrt
    expect_csv 5 draws_per_frame 2.000000
    expect_csv 5 prims_per_draw 2.000000
    expect_csv 5 vs_insns_per_vertex 5.500000
    expect_csv 5 prims_per_tile_bbox 2.025000
    expect_csv 5 prims_per_tile_covered 1.212500
    expect_csv 5 frags_per_prim 19456.000000
    expect_csv 5 attrs_per_prim 2.000000
    expect_csv 5 fs_insns_per_frag 4.973684
    expect_csv 5 alu_per_tex 3.026667
    expect_csv 5 overdraw 1.013333
    expect_csv 5 texels_per_frag ""
    expect_csv 5 texels_per_tex ""
    expect_csv 5 shaded_fragments 77824
    expect_csv 5 screen_pixels 76800
    expect_csv 5 tiles 80
    ;;
json_static)
    run 0 --json scene.tbrt
    # trace-level block comes first; its values are the first occurrences
    t() { grep -E -m1 -- "\"$1\": " out.txt | sed 's/^ *//; s/,$//'; }
    [ "$(t draws_per_frame)" = '"draws_per_frame": 1.000000' ] || fail "draws_per_frame $(t draws_per_frame)"
    [ "$(t overdraw)" = '"overdraw": 0.506667' ] || fail "overdraw $(t overdraw)"
    [ "$(t prims_per_tile_bbox)" = '"prims_per_tile_bbox": 1.012500' ] || fail "bbox"
    [ "$(t prims_per_tile_covered)" = '"prims_per_tile_covered": 0.606250' ] || fail "covered"
    [ "$(t fs_insns_source)" = '"fs_insns_source": "static"' ] || fail "fs source"
    [ "$(t vs_insns_source)" = '"vs_insns_source": "static"' ] || fail "vs source"
    [ "$(t texels_per_frag)" = '"texels_per_frag": null' ] || fail "texels"
    [ "$(t tex_shared_d1)" = '"tex_shared_d1": null' ] || fail "shared d1"
    [ "$(t texel_metrics)" = '"texel_metrics": "n/a (trace has no texel records)"' ] || fail "texel label"
    expect_count '"frame": (5|7),' 2 out.txt
    expect_grep '"bins_bbox": 162, "bins_covered": 97,' out.txt
    # frame 7 has no draws: prims per draw is null
    expect_count '"prims_per_draw": null' 1 out.txt
    ;;
json_paths)
    run 0 --json paths.tbrt
    t() { grep -E -m1 -- "\"$1\": " out.txt | sed 's/^ *//; s/,$//'; }
    [ "$(t fs_insns_per_frag)" = '"fs_insns_per_frag": 4.967105' ] || fail "fs $(t fs_insns_per_frag)"
    [ "$(t alu_per_tex)" = '"alu_per_tex": 3.020000' ] || fail "alu $(t alu_per_tex)"
    [ "$(t fs_insns_source)" = '"fs_insns_source": "executed"' ] || fail "source"
    [ "$(t vs_insns_per_vertex)" = '"vs_insns_per_vertex": 5.500000' ] || fail "vs"
    ;;
csv)
    run 0 --csv scene.tbrt
    expect_count '.' 4 out.txt   # header, frame 5, frame 7, all
    expect_grep '^frame,draws_per_frame,vs_insns_per_vertex,prims_per_draw,prims_per_tile_bbox,prims_per_tile_covered,frags_per_prim,attrs_per_prim,fs_insns_per_frag,alu_per_tex,texels_per_frag,overdraw,' out.txt
    expect_csv all draws_per_frame 1.000000
    expect_csv all prims_per_tile_bbox 1.012500
    expect_csv all prims_per_tile_covered 0.606250
    expect_csv all overdraw 0.506667
    expect_csv all fs_insns_source static
    expect_csv all vs_insns_source static
    expect_csv 7 draws 0
    expect_csv 7 prims_per_draw ""
    expect_csv 7 prims_per_tile_bbox 0.000000
    expect_csv 7 overdraw 0.000000
    ;;
tile_size)
    run 0 --csv --tile-size 64x64 scene.tbrt
    expect_csv 5 tiles 20
    expect_csv 5 prims_per_tile_bbox 2.100000
    expect_csv 5 prims_per_tile_covered 1.450000
    # a 320x240 screen in 320x240 tiles: one tile, every prim binned once
    run 0 --csv -t 320x240 scene.tbrt
    expect_csv 5 prims_per_tile_bbox 4.000000
    expect_csv 5 prims_per_tile_covered 4.000000
    ;;
frame_filter)
    run 0 --csv --frame 7 scene.tbrt
    expect_count '.' 3 out.txt
    expect_csv all draws 0
    expect_csv all draws_per_frame 0.000000
    expect_csv all overdraw 0.000000
    run 0 --csv --frame 5-6 scene.tbrt
    expect_csv all draws_per_frame 2.000000
    expect_csv all overdraw 1.013333
    ;;
text_labels)
    run 0 scene.tbrt
    expect_grep 'VS instructions per vertex \(static\) +5\.50$' out.txt
    expect_grep 'FS instructions per fragment \(static\) +4\.97$' out.txt
    expect_grep 'ALU per TEX instruction \(static\) +3\.03$' out.txt
    expect_grep 'texels per fragment +n/a \(trace has no texel records\)$' out.txt
    expect_count 'n/a \(trace has no texel records\)$' 5 out.txt
    expect_grep 'primitives per tile \(bounding box\) +1\.01$' out.txt
    expect_grep '^ +5 +2 +5\.50 +static +2\.00 +2\.02 +1\.21 +19456\.00 +2\.00 +4\.97 +3\.03 +static +n/a +1\.01$' out.txt
    run 0 paths.tbrt
    expect_grep 'FS instructions per fragment \(executed\) +4\.97$' out.txt
    expect_grep 'ALU per TEX instruction \(executed\) +3\.02$' out.txt
    expect_grep 'VS instructions per vertex \(static\)' out.txt
    ;;
texels_per_frag)
    run 0 --csv texels.tbrt
    expect_csv 0 texels_per_frag 1.000000
    expect_csv 1 texels_per_frag 4.000000
    expect_csv 2 texels_per_frag 1.000000
    expect_csv all texels_per_frag 2.200000
    # per texture instruction: 1 TEX per fragment here, so the same values
    expect_csv 1 texels_per_tex 4.000000
    expect_csv all texels_per_tex 2.200000
    expect_csv 2 shaded_fragments 4096
    run 0 --json -f 2 texels.tbrt
    expect_grep '"texels": 4096, "texels_all_lanes": 8192, "tex_fetches": 2048, "tex_fetches_lane_fallback": 1,' out.txt
    expect_grep '"texel_metrics": "computed"' out.txt
    ;;
tex_sharing)
    run 0 --csv texels.tbrt
    expect_csv 0 tex_shared_d1 0.000000
    expect_csv 0 tex_shared_d2 0.000000
    expect_csv 1 tex_shared_d1 0.375000
    expect_csv 1 tex_shared_d2 0.000000
    run 0 --json -f 1 texels.tbrt
    expect_grep '"tex_blocks": 512, "tex_shared_d1": 192, "tex_shared_d2": 0, "tex_shared_far": 5, "tex_private": 315,' out.txt
    run 0 --csv -t 64x32 texels.tbrt
    expect_csv 1 tex_shared_d1 0.125000
    expect_csv 1 tex_shared_d2 0.013672
    ;;
tex_replication)
    run 0 --json -p 2 -m strips -f 0 texels.tbrt
    expect_count '"replication": \[1\.000000, 0\.000000\],' 2 out.txt
    run 0 --json -p 2 -m strips -f 1 texels.tbrt
    expect_count '"replication": \[0\.125000, 0\.875000\],' 2 out.txt
    run 0 --csv -p 2 -m strips texels.tbrt
    expect_csv 1 tex_unique_blocks 0.125000
    run 0 --json -p 2 -m rr -f 0-1 texels.tbrt
    expect_count '"replication": \[0\.000000, 1\.000000\],' 3 out.txt
    run 0 -p 2 -m strips -f 1 texels.tbrt
    expect_grep 'blocks in exactly 1 of 2 caches \(strips\) +0\.12$' out.txt
    expect_grep 'blocks in exactly 2 of 2 caches \(strips\) +0\.88$' out.txt
    ;;
tex_loop)
    "$GEN" loop.tbrt texloop || fail "generator failed"
    run 0 --json loop.tbrt
    t() { grep -E -m1 -- "\"$1\": " out.txt | sed 's/^ *//; s/,$//'; }
    [ "$(t texels_per_frag)" = '"texels_per_frag": 1.250000' ] || fail "texels $(t texels_per_frag)"
    [ "$(t texels_per_tex)" = '"texels_per_tex": 1.000000' ] || fail "per tex $(t texels_per_tex)"
    expect_grep '"texels": 10, "texels_all_lanes": 16, "tex_fetches": 4, "tex_fetches_lane_fallback": 0,' out.txt
    ;;
vs_executed)
    run 0 --csv texels.tbrt
    expect_csv all vs_insns_per_vertex 3.666667
    expect_csv all vs_insns_source executed
    expect_csv 0 vs_insns_per_vertex 3.666667
    run 0 texels.tbrt
    expect_grep 'VS instructions per vertex \(executed\) +3\.67$' out.txt
    expect_grep 'texels per fragment +2\.20$' out.txt
    expect_grep '^ +1 +1 +3\.67 +exec .* +4\.00 +1\.00$' out.txt
    # the old scene keeps the static count
    run 0 --csv scene.tbrt
    expect_csv all vs_insns_source static
    ;;
no_schema)
    "$GEN" noschema.tbrt noschema || fail "generator failed"
    run 2 noschema.tbrt
    expect_grep 'records_schema' err.txt
    ;;
truncated)
    size=$(wc -c <scene.tbrt)
    head -c $((size - 1)) scene.tbrt >cut.tbrt
    run 2 cut.tbrt
    expect_grep 'cut\.tbrt: at offset [0-9]+: ' err.txt
    ;;
corrupt)
    cp scene.tbrt bad.tbrt
    printf '\377\377\377\377' | dd of=bad.tbrt bs=1 seek=140 conv=notrunc 2>/dev/null
    run 2 bad.tbrt
    expect_grep 'bad\.tbrt: at offset 89: ' err.txt
    ;;
usage)
    run 2 --bogus scene.tbrt
    expect_grep "unknown option '--bogus'" err.txt
    run 2 --tile-size 0x32 scene.tbrt
    run 2 --tile-size 32 scene.tbrt
    run 2 --mapping quadrant --processors 3 scene.tbrt
    run 2 --mapping nope scene.tbrt
    run 2 --processors 0 scene.tbrt
    run 2
    run 2 missing.tbrt
    run 0 --help
    expect_grep '^Usage: tbr-characterize ' out.txt
    run 0 --version
    expect_grep '^tbr-characterize [0-9]+\.[0-9]+\.[0-9]+$' out.txt
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "ok [$CASE]"
exit 0
