#!/bin/sh
# CLI tests of tbr-dump on the synthetic scene of
# tests/tools_characterize/gen_scene.c (see its header comment).
# Usage: test_dump.sh TBR_DUMP GEN_SCENE WORKDIR CASE
set -u
DUMP=$1
GEN=$2
WORK=$3/$4
CASE=$4
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1

fail() { echo "FAIL [$CASE]: $*" >&2; exit 1; }
# expect_count PATTERN N FILE: exactly N lines of FILE match the ERE
expect_count() {
    n=$(grep -E -c -- "$1" "$3")
    [ "$n" -eq "$2" ] || fail "expected $2 lines matching '$1' in $3, got $n"
}
expect_grep() { grep -E -q -- "$1" "$2" || fail "'$1' not found in $2"; }
# run EXPECTED_STATUS ARGS...: stdout -> out.txt, stderr -> err.txt
run() {
    want=$1
    shift
    "$DUMP" "$@" >out.txt 2>err.txt
    st=$?
    [ "$st" -eq "$want" ] || { cat err.txt >&2; fail "tbr-dump $* exited $st, expected $want"; }
}

"$GEN" scene.tbrt || fail "generator failed"
# TEXTURED scene (gen_scene.c "texels"): frames 0-2, each: RESOURCE x2,
# RENDER_PASS, CLEAR, SHADER_CREATE+SHADER x2, PATH x3 (2 VS, 1 FS), DRAW,
# VERTICES, PRIM x2, (QUADS, TEXELS) x2 (2048 quads = 2 x 1024), DRAW_END,
# FLUSH, FRAME_END = 22 records; 1024 fetches per TEXELS record.
"$GEN" texels.tbrt texels || fail "generator failed"

# Record lines look like "  [K] NAME ..." (unknown types: "  [K] type N, len L").
rec='^  \[[0-9]+\] '

case "$CASE" in
header)
    run 0 --no-records scene.tbrt
    expect_grep '^  container version 1\.0, [0-9]+ bytes, 2 frames, 66 records$' out.txt
    expect_grep '^  records_schema=3$' out.txt
    expect_grep '^  producer=gen_scene$' out.txt
    # frame index: frame 5 has 62 records, frame 7 has 4 (see counts below)
    expect_grep '^ +5 +62 ' out.txt
    expect_grep '^ +7 +4 ' out.txt
    expect_count "$rec" 0 out.txt
    ;;
record_counts)
    run 0 scene.tbrt
    # Frame 5: RESOURCE 1, RENDER_PASS 1, CLEAR 1, SHADER_CREATE 4, SHADER 4,
    # unknown 1, DRAW 2, PRIM 4, QUADS 19 (19200 quads / 1024 per record =
    # 18.75 -> 19) + 1 (256 quads) = 20, DRAW_END 2, FLUSH 1, TILE 20,
    # FRAME_END 1 = 62. Frame 7: RENDER_PASS, CLEAR, FLUSH, FRAME_END = 4.
    expect_count "$rec" 66 out.txt
    expect_count "${rec}RESOURCE " 1 out.txt
    expect_count "${rec}RENDER_PASS " 2 out.txt
    expect_count "${rec}CLEAR " 2 out.txt
    expect_count "${rec}SHADER_CREATE " 4 out.txt
    expect_count "${rec}SHADER " 4 out.txt
    expect_count "${rec}DRAW " 2 out.txt
    expect_count "${rec}PRIM " 4 out.txt
    expect_count "${rec}QUADS " 20 out.txt
    expect_count "${rec}DRAW_END " 2 out.txt
    expect_count "${rec}FLUSH " 2 out.txt
    expect_count "${rec}TILE " 20 out.txt
    expect_count "${rec}FRAME_END " 2 out.txt
    # one line per quad: 19200 + 256
    expect_count '^      \([0-9]+,[0-9]+\) prim=' 19456 out.txt
    expect_grep '^  \[[0-9]+\] QUADS draw=0 cbufs=1 count=1024$' out.txt
    # 19200 = 18 * 1024 + 768
    expect_grep '^  \[[0-9]+\] QUADS draw=0 cbufs=1 count=768$' out.txt
    expect_grep '^  \[[0-9]+\] QUADS draw=1 cbufs=1 count=256$' out.txt
    expect_grep 'FRAME_END frame=5 320x240 draws=2 prims=4 clears=1 quads=19456 shaded_quads=19456 shaded_fragments=77824' out.txt
    ;;
frame_filter)
    run 0 --frame 7 scene.tbrt
    expect_count "$rec" 4 out.txt
    expect_grep '^frame 7 \(4 records\)$' out.txt
    grep -q '^frame 5' out.txt && fail "frame 5 shown with --frame 7"
    grep -E -q '^ +5 +62 ' out.txt && fail "frame 5 in the index with --frame 7"
    run 0 --frame 5-7 --type frame_end scene.tbrt
    expect_count "${rec}FRAME_END " 2 out.txt
    run 0 --frame 6 scene.tbrt
    expect_count "$rec" 0 out.txt
    expect_grep 'no frame in range 6-6' err.txt
    run 2 --frame 7-5 scene.tbrt
    run 2 --frame x scene.tbrt
    ;;
type_filter)
    run 0 --type draw,DRAW_END scene.tbrt
    expect_count "$rec" 4 out.txt
    expect_count "${rec}DRAW " 2 out.txt
    expect_count "${rec}DRAW_END " 2 out.txt
    run 0 --type 12 scene.tbrt
    expect_count "${rec}TILE " 20 out.txt
    expect_count "$rec" 20 out.txt
    run 2 --type bogus scene.tbrt
    expect_grep "unknown record type 'bogus'" err.txt
    ;;
draw_filter)
    # Draw 1: DRAW, PRIM x2, QUADS x1, DRAW_END -> 5 records.
    run 0 --draw 1 scene.tbrt
    expect_count "$rec" 5 out.txt
    expect_count "${rec}DRAW seq=1 " 1 out.txt
    expect_count "${rec}PRIM draw=1 " 2 out.txt
    expect_count "${rec}QUADS draw=1 " 1 out.txt
    expect_count "${rec}DRAW_END seq=1 " 1 out.txt
    expect_count '^      \([0-9]+,[0-9]+\) prim=' 256 out.txt
    # Draw 0: DRAW, 2 PRIM, 19 QUADS, DRAW_END = 23
    run 0 --draw 0 scene.tbrt
    expect_count "$rec" 23 out.txt
    run 0 --draw 9 scene.tbrt
    expect_count "$rec" 0 out.txt
    ;;
limit)
    run 0 --limit 3 scene.tbrt
    expect_count "$rec" 3 out.txt
    run 0 --limit 3 --type tile scene.tbrt
    expect_count "${rec}TILE " 3 out.txt
    expect_count "$rec" 3 out.txt
    run 0 --limit 0 scene.tbrt
    expect_count "$rec" 0 out.txt
    ;;
summary)
    run 0 --summary scene.tbrt
    expect_count "$rec" 0 out.txt
    expect_grep '^frame 5: 62 records, ' out.txt
    expect_grep '^  draws +2 \(0 internal\)$' out.txt
    expect_grep '^  prims +4 \(0 culled by setup\)$' out.txt
    expect_grep '^  quads +19456$' out.txt
    expect_grep '^  shaded fragments 77824$' out.txt
    expect_grep 'records of unknown type 1' out.txt
    expect_count '^  FRAME_END +320x240, counts match$' 2 out.txt
    expect_grep '^frame 7: 4 records, ' out.txt
    ;;
unknown_type)
    run 0 --type 999 scene.tbrt
    expect_count "$rec" 1 out.txt
    expect_grep '^  \[[0-9]+\] type 999, len 3$' out.txt
    ;;
truncated)
    size=$(wc -c <scene.tbrt)
    head -c $((size - 10)) scene.tbrt >cut.tbrt
    run 2 cut.tbrt
    expect_grep 'cut\.tbrt: at offset [0-9]+: ' err.txt
    head -c 100 scene.tbrt >cut2.tbrt
    run 2 --summary cut2.tbrt
    expect_grep 'at offset [0-9]+' err.txt
    ;;
corrupt)
    # Damage compressed data inside frame 5's first chunk (frame 5 starts at
    # offset 89 = 24 + 65 bytes of metadata; its chunk header is 40 bytes):
    # the reader opens the file, the error comes while reading records.
    cp scene.tbrt bad.tbrt
    printf '\377\377\377\377' | dd of=bad.tbrt bs=1 seek=140 conv=notrunc 2>/dev/null
    run 2 bad.tbrt
    expect_grep 'bad\.tbrt: at offset 89: ' err.txt
    ;;
texels)
    run 0 --type texels texels.tbrt
    expect_count "${rec}TEXELS draw=0 fetches=1024$" 6 out.txt
    # one line per fetch: 3 frames x 2048 quads
    expect_count '^      quad=[0-9]+ pc=0 unit=0 resource=2 ' 6144 out.txt
    expect_count '^      quad=0 pc=0 unit=0 resource=2 texels=4 per_lane=1,1,1,1 level=0$' 2 out.txt
    expect_count '^      quad=0 pc=0 unit=0 resource=2 texels=16 per_lane=4,4,4,4 level=0$' 1 out.txt
    # quad ordinals continue across the draw's QUADS/TEXELS records
    expect_count '^      quad=2047 ' 3 out.txt
    run 0 -v --frame 1 --type texels --limit 1 texels.tbrt
    expect_count "$rec" 1 out.txt
    # bilinear, clamped at x=127: lane 1 of quad 63 (pixel 127,0)
    expect_grep '^        lane 0: L0/0: \(0,0\) \(1,0\) \(0,1\) \(1,1\)$' out.txt
    expect_grep '^        lane 1: L0/0: \(127,0\) \(127,0\) \(127,1\) \(127,1\)$' out.txt
    ;;
vertices)
    run 0 --type vertices texels.tbrt
    expect_count "${rec}VERTICES draw=0 vs=10 instance=0 start_instance=0 outputs=2 position=OUT\[0\] streams=1 fetched=6 groups=2 hashes=yes$" 2 out.txt
    # frame 1 was generated without out_hash
    expect_count "${rec}VERTICES draw=0 vs=10 instance=0 start_instance=0 outputs=2 position=OUT\[0\] streams=1 fetched=6 groups=2 hashes=no$" 1 out.txt
    expect_count '^      stream\[0\] resource=7 buffer=0 offset=0 stride=16 size=16 format=31 divisor=0$' 3 out.txt
    expect_count '^      group path=3 n=4 index=0,1,2,3$' 3 out.txt
    expect_count '^      group path=4 n=2 index=4,5$' 3 out.txt
    run 0 -v --type vertices --limit 1 texels.tbrt
    expect_grep '^        index 5 pos=\(1,-1,0,1\) out_hash=811c9dca$' out.txt
    run 0 -v --type vertices --frame 1 texels.tbrt
    expect_grep '^        index 5 pos=\(1,-1,0,1\)$' out.txt
    ;;
path)
    run 0 --type path --frame 2 texels.tbrt
    expect_count "$rec" 3 out.txt
    expect_grep "${rec}PATH id=3 shader=10 stage=VS truncated=0 n=4$" out.txt
    expect_grep '^      pc:mask 0:3 1:3 3:3$' out.txt
    expect_grep "${rec}PATH id=1 shader=11 stage=FS truncated=0 n=3$" out.txt
    run 0 -v --type path --frame 0 texels.tbrt
    expect_count '^      pc=[0-9]+ mask=[0-9a-f]$' 10 out.txt
    ;;
texel_filters)
    # --limit counts a TEXELS record as one record
    run 0 --limit 5 --type quads,texels texels.tbrt
    expect_count "$rec" 5 out.txt
    expect_count "${rec}TEXELS " 2 out.txt
    # --draw 0 keeps VERTICES and TEXELS (draw_seq 0): per frame DRAW,
    # VERTICES, 2 PRIM, 2 QUADS, 2 TEXELS, DRAW_END = 9
    run 0 --draw 0 --frame 0 texels.tbrt
    expect_count "$rec" 9 out.txt
    run 0 --draw 1 texels.tbrt
    expect_count "$rec" 0 out.txt
    ;;
texel_summary)
    run 0 --summary texels.tbrt
    # frames 0 and 2: 4 texels per quad; frame 1 (bilinear): 16
    expect_count '^  texels +8192 in 2048 fetches \(2 TEXELS records; all lanes\)$' 2 out.txt
    expect_count '^  texels +32768 in 2048 fetches \(2 TEXELS records; all lanes\)$' 1 out.txt
    expect_count '^  vertices +6 fetched in 2 VS groups \(1 VERTICES records\)$' 3 out.txt
    expect_count '^  tile events +0, flushes 1, shaders 2, paths 3 \(2 VS\), uploads 0$' 3 out.txt
    expect_count '^  FRAME_END +128x64, counts match$' 3 out.txt
    # the old scene: no texels, no vertices
    run 0 --summary scene.tbrt
    expect_count '^  texels +0 in 0 fetches' 2 out.txt
    ;;
usage)
    run 2 --bogus scene.tbrt
    expect_grep "unknown option '--bogus'" err.txt
    run 2 -x scene.tbrt
    run 2
    expect_grep 'missing TRACE' err.txt
    run 2 a b
    run 2 --limit
    run 2 missing.tbrt
    expect_grep 'missing\.tbrt' err.txt
    run 0 --help
    expect_grep '^Usage: tbr-dump ' out.txt
    ;;
version)
    run 0 --version
    expect_grep '^tbr-dump [0-9]+\.[0-9]+\.[0-9]+$' out.txt
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "ok [$CASE]"
exit 0
