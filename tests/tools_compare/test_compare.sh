#!/bin/sh
# End-to-end tests of tbr-compare on images from gen_images (whose expected
# metrics are worked out in gen_images.c).
# Usage: test_compare.sh TBR_COMPARE GEN_IMAGES WORKROOT CASE
set -u
TC=$1
GEN=$2
D=$3/$4
CASE=$4
rm -rf "$D"
mkdir -p "$D"
"$GEN" "$D" || { echo "gen_images failed"; exit 1; }
cd "$D" || exit 1
fail=0

# run WANT_EXIT CMD... : run, keep stdout/stderr in out/err, check exit code
run() {
    _want=$1
    shift
    "$@" >out 2>err
    rc=$?
    if [ "$rc" -ne "$_want" ]; then
        echo "FAIL: $* -> exit $rc, want $_want"
        echo "--- stdout"; cat out; echo "--- stderr"; cat err
        fail=1
    fi
}
has_out() {
    grep -F -q -- "$1" out || { echo "FAIL: stdout lacks '$1'"; cat out; fail=1; }
}
lacks_out() {
    if grep -F -q -- "$1" out; then echo "FAIL: stdout has '$1'"; cat out; fail=1; fi
}
has_err() {
    grep -F -q -- "$1" err || { echo "FAIL: stderr lacks '$1'"; cat err; fail=1; }
}

case $CASE in
identical)
    run 0 "$TC" base.png same.png
    has_out "result: IDENTICAL"
    has_out "differing pixels: 0 of 3072"
    has_out "PSNR (RGB): inf dB"
    has_out "SSIM (luma, 11x11 Gaussian): 1.000000"
    run 0 "$TC" --json base.png same.png
    has_out '"status":"identical"'
    has_out '"exact":true'
    has_out '"psnr_rgb":"inf"'
    has_out '"ssim_luma":1.000000'
    has_out '"first_diff":null'
    has_out '"exit_status":0'
    ;;
one_pixel)
    # G of (17,9) raised by 37: base G there is 10 + 9*4 = 46 -> 83.
    run 1 "$TC" base.png onepix.png
    has_out "result: DIFFERENT"
    has_out "differing pixels: 1 of 3072"
    has_out "max channel difference: 37"
    has_out "first differing pixel: (17,9)"
    has_out "A=(61,46,200,226) B=(61,83,200,226)"
    run 1 "$TC" --json base.png onepix.png
    has_out '"differing_pixels":1,'
    has_out '"max_channel_diff":37,'
    has_out '"first_diff":{"x":17,"y":9,"a":[61,46,200,226],"b":[61,83,200,226]}'
    # MSE = 37^2 / (3*3072) = 0.148546 -> PSNR = 10 log10(65025/0.148546) = 56.4122
    has_out '"mse_rgb":0.148546'
    has_out '"psnr_rgb":56.4122'
    # mean 11x11-Gaussian luma SSIM, checked against a direct (non-separable)
    # 2-D evaluation of the same definition done outside this tool
    has_out '"ssim_luma":0.999119'
    ;;
psnr_uniform)
    # every RGB channel off by 1 -> MSE 1 -> 10 log10(65025) = 48.1308 dB
    run 1 "$TC" base.png off1.png
    has_out "PSNR (RGB): 48.13 dB"
    has_out "differing pixels: 3072 of 3072"
    has_out "max channel difference: 1"
    run 1 "$TC" --json base.png off1.png
    has_out '"mse_rgb":1.000000'
    has_out '"psnr_rgb":48.1308'
    # within tolerance 1 it is a match (exit 0), but not exact
    run 0 "$TC" --tolerance 1 base.png off1.png
    has_out "result: MATCH (within tolerance 1)"
    has_out "changed pixels (any difference): 3072"
    ;;
ssim_uniform)
    # flat 100 vs 110: SSIM = (22000 + 6.5025) / (22100 + 6.5025) = 0.995476;
    # MSE 100 -> PSNR = 10 log10(650.25) = 28.1308 dB
    run 1 "$TC" --json gray100.png gray110.png
    has_out '"ssim_luma":0.995476'
    has_out '"psnr_rgb":28.1308'
    has_out '"max_channel_diff":10,'
    has_out '"differing_pixels":1024,'
    ;;
alpha_only)
    run 1 "$TC" --json base.png alpha.png
    has_out '"differing_pixels":1,'
    has_out '"max_channel_diff":9,'
    has_out '"first_diff":{"x":3,"y":4,'
    has_out '"psnr_rgb":"inf"'
    has_out '"ssim_luma":1.000000'
    ;;
tolerance)
    run 1 "$TC" base.png tol2.png
    has_out "differing pixels: 2 of 3072"
    has_out "first differing pixel: (5,0)"
    run 1 "$TC" -t 1 base.png tol2.png
    run 0 "$TC" --tolerance=2 base.png tol2.png
    has_out "result: MATCH"
    run 2 "$TC" --tolerance 256 base.png tol2.png
    run 2 "$TC" --tolerance x base.png tol2.png
    ;;
size_mismatch)
    run 1 "$TC" base.png small.png
    has_out "SIZE MISMATCH (64x48 vs 32x24)"
    run 1 "$TC" --json base.png small.png
    has_out '"status":"size_mismatch"'
    has_out '"size_a":[64,48],"size_b":[32,24]'
    ;;
diff_image)
    run 1 "$TC" --diff d.png base.png onepix.png
    has_out "diff image: d.png"
    # the diff must equal the image built by hand from the documented rule
    run 0 "$TC" d.png expected_diff.png
    has_out "result: IDENTICAL"
    ;;
dirs)
    run 0 "$TC" ref same
    has_out "frame_00000.png: identical"
    has_out "total: 3 frames; 3 identical"
    has_out "result: PASS"
    run 1 "$TC" ref missing
    has_out "frame_00002.png: ONLY IN ref"
    has_out "result: FAIL"
    run 1 "$TC" missing ref
    has_out "frame_00002.png: ONLY IN ref"
    run 1 "$TC" ref extra
    has_out "frame_00003.png: ONLY IN extra"
    run 1 "$TC" --json --diff diffs ref diff
    has_out '"name":"frame_00001.png"'
    has_out '"first_diff":{"x":17,"y":9,'
    has_out '"totals":{"frames":3,"identical":2,"match":0,"different":1,'
    has_out '"exit_status":1'
    [ -f diffs/frame_00001.png ] || { echo "FAIL: no diffs/frame_00001.png"; fail=1; }
    [ ! -e diffs/frame_00000.png ] || { echo "FAIL: diff written for identical frame"; fail=1; }
    # a corrupt frame makes the run an input error (2) and names the file
    head -c 60 ref/frame_00000.png >same/frame_00000.png
    run 2 "$TC" ref same
    has_err "same/frame_00000.png"
    has_out "frame_00001.png: identical"
    mkdir e1 e2
    run 1 "$TC" e1 e2
    ;;
checksum)
    # pixel md5 == md5 of the raw RGBA bytes, computed independently by md5sum
    want=$(md5sum base.rgba | cut -d' ' -f1)
    run 0 "$TC" --checksum base.png
    has_out "$want  base.png"
    run 0 "$TC" --checksum ref
    for f in 0 1 2; do
        has_out "$(md5sum raw/frame_0000$f.rgba | cut -d' ' -f1)  frame_0000$f.png"
    done
    run 0 "$TC" --json --checksum base.png
    has_out "\"md5\":\"$want\""
    run 2 "$TC" --checksum base.png nosuch.png
    has_out "$want  base.png"
    has_err "nosuch.png"
    ;;
check_sums)
    s0=$(md5sum raw/frame_00000.rgba | cut -d' ' -f1)
    s1=$(md5sum raw/frame_00001.rgba | cut -d' ' -f1)
    s2=$(md5sum raw/frame_00002.rgba | cut -d' ' -f1)
    {
        echo "# reference checksums"
        echo
        echo "$s0  frame_00000.png"
        echo "$s1  frame_00001.png"
        echo "$s2  frame_00002.png"
    } >sums
    run 0 "$TC" --check-sums sums ref
    has_out "frame_00001.png: OK"
    has_out "result: PASS"
    # diff/ frame 1 has one changed pixel
    run 1 "$TC" --check-sums sums diff
    has_out "frame_00001.png: MISMATCH expected $s1"
    has_out "frame_00000.png: OK"
    run 1 "$TC" --check-sums sums missing
    has_out "frame_00002.png: MISSING"
    run 1 "$TC" --json --check-sums sums missing
    has_out '"name":"frame_00002.png","status":"missing"'
    has_out '"exit_status":1'
    # sums generated by the tool itself round-trip
    "$TC" --checksum ref >sums2
    run 0 "$TC" --check-sums sums2 same
    printf 'not a checksum line\n' >bad
    run 2 "$TC" --check-sums bad ref
    has_err "bad:1: malformed"
    run 2 "$TC" --check-sums nosuch ref
    has_err "nosuch"
    ;;
full_stdout)
    # stdout on /dev/full (a full disk): the result is lost, so exit 2 with the reason, never
    # 0 (issue 22: --checksum and -j exited 0 with their output lost)
    for args in "--checksum ref" "--json ref same" "ref same" "--json --checksum ref"; do
        # shellcheck disable=SC2086
        "$TC" $args >/dev/full 2>err
        rc=$?
        [ "$rc" -eq 2 ] || { echo "FAIL: tbr-compare $args > /dev/full: exit $rc, want 2"; fail=1; }
        has_err "standard output: No space left on device"
    done
    ;;
bad_input)
    head -c 50 base.png >trunc.png
    run 2 "$TC" trunc.png base.png
    has_err "trunc.png"
    has_err "truncated"
    printf 'GIF89a garbage garbage' >garbage.png
    run 2 "$TC" base.png garbage.png
    has_err "garbage.png: not a PNG file"
    run 2 "$TC" --json base.png garbage.png
    has_out '"status":"error"'
    has_out '"exit_status":2'
    run 2 "$TC" base.png nosuch.png
    has_err "nosuch.png"
    run 2 "$TC" base.png ref
    ;;
usage)
    run 2 "$TC"
    has_err "Try 'tbr-compare --help'"
    run 2 "$TC" base.png
    run 2 "$TC" --bogus base.png same.png
    has_err "--bogus"
    run 2 "$TC" --checksum --diff x.png base.png
    run 2 "$TC" --check-sums
    run 0 "$TC" --help
    has_out "Exit status"
    run 0 "$TC" --version
    has_out "tbr-compare (tbrsim) "
    ;;
*)
    echo "unknown case $CASE"
    exit 2
    ;;
esac

[ "$fail" -eq 0 ] && echo "$CASE: ok"
exit "$fail"
