#!/usr/bin/env bash
# replay_crosscheck.samples: tbr-replay --crosscheck replays the frames again through Debian's
# llvmpipe and records each reference's PSNR/SSIM against it in replay.json (docs/
# verification.md "Crosscheck against llvmpipe"). rtt's references are within rounding of
# llvmpipe (no frame flagged); the mipmap sample's floor differs (LOD and level boundaries,
# documented there): a window of it must flag exactly its two frames, number them as the
# source trace does, and say so on stderr.
#
# usage: crosscheck.sh BIN_DIR MESA_PREFIX SAMPLE_TRACES_DIR WORKDIR
set -u
bin="$1" mesa="$2" traces="$3" work="$4"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -n "$mesa" ] || fail "TBR_MESA_PREFIX is empty"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
field() { sed -n "s/^ *\"$2\": *\\([^,]*\\),*\$/\\1/p" "$1/replay.json" | head -1; }

"$bin/tbr-replay" -q --crosscheck --mesa-prefix "$mesa" "$traces/rtt.trace" -o rtt 2> rtt.err \
  || { cat rtt.err; fail "tbr-replay --crosscheck rtt"; }
python3 -m json.tool rtt/replay.json > /dev/null || fail "rtt/replay.json is not JSON"
grep -q '"renderer": "llvmpipe' rtt/replay.json || fail "crosscheck renderer is not llvmpipe"
[ "$(grep -c '{"frame": ' rtt/replay.json)" = 5 ] || fail "rtt: expected 5 crosscheck frames"
[ "$(field rtt frames_below_threshold)" = 0 ] || { cat rtt.err; fail "rtt: frames flagged"; }
psnr=$(field rtt min_psnr_db)
awk -v p="$psnr" 'BEGIN { exit !(p == "null" || p + 0 >= 45) }' || fail "rtt: min PSNR '$psnr'"
grep -q 'crosscheck: 5 frame(s) against llvmpipe' rtt.err || { cat rtt.err; fail "rtt: no summary line"; }
[ ! -e rtt/crosscheck ] || fail "rtt: the crosscheck work directory was left behind"

"$bin/tbr-replay" -q --crosscheck --mesa-prefix "$mesa" --frames 1-2 "$traces/mipmap.trace" -o mip 2> mip.err \
  || { cat mip.err; fail "tbr-replay --crosscheck --frames 1-2 mipmap"; }
grep -q '{"frame": 1, ' mip/replay.json && grep -q '{"frame": 2, ' mip/replay.json \
  || fail "mipmap window: frames not numbered 1 and 2"
[ "$(field mip frames_below_threshold)" = 2 ] || { cat mip/replay.json; fail "mipmap window: expected 2 flagged frames"; }
[ "$(grep -c 'below 45 dB, the reference may be wrong' mip.err)" = 2 ] || { cat mip.err; fail "mipmap: no warnings"; }
echo "PASS"
