#!/usr/bin/env bash
# Regenerates the checked-in sample traces and their reference checksums
# (docs/samples.md): for each sample NAME
#   samples/traces/NAME.trace       captured with tbr-capture (5 frames, surfaceless)
#   samples/traces/NAME.trace.json  tbr-capture's metadata
#   samples/traces/NAME.md5         "<md5>  frame_NNNNN.png" per frame: MD5 of the RGBA8
#                                   pixels replayed through the project's softpipe Mesa
#
# usage: samples/make-traces.sh BUILD_DIR MESA_PREFIX [NAME...]
#   BUILD_DIR    a configured and built tree (needs bin/tbr-capture, bin/tbr-compare,
#                bin/tbr-sample-*)
#   MESA_PREFIX  `scripts/build-mesa --print-prefix`
# Run it after changing a sample; commit the results.  Needs about 1 minute.
set -euo pipefail

FRAMES=5
ALL=(casual2d depth3d blend mipmap rtt branchy allchange game3d)

if [ $# -lt 2 ]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
build=$(cd "$1" && pwd) prefix=$2
shift 2
names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${ALL[@]}")

here=$(cd "$(dirname "$0")" && pwd)
out=$here/traces
die() { echo "make-traces: $*" >&2; exit 1; }
for tool in tbr-capture tbr-compare; do
  [ -x "$build/bin/$tool" ] || die "$build/bin/$tool not found: build it first"
done
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/make-traces.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for name in "${names[@]}"; do
  exe=tbr-sample-$name
  [ -x "$build/bin/$exe" ] || die "$build/bin/$exe not found"
  echo "make-traces: $name" >&2
  # Run from PATH so that the metadata records "tbr-sample-NAME", not a build path.
  (cd "$tmp" && PATH="$build/bin:$PATH" "$build/bin/tbr-capture" --force --platform surfaceless \
      --frames "$FRAMES" -o "$out/$name.trace" -- "$exe" --frames "$FRAMES")
  frames=$(apitrace info "$out/$name.trace" | sed -n 's/.*"FramesCount": *\([0-9]*\).*/\1/p')
  [ "$frames" = "$FRAMES" ] || die "$name.trace has $frames frames, expected $FRAMES"
  rm -rf "$tmp/frames"
  "$here/softpipe-frames.sh" "$prefix" "$out/$name.trace" "$tmp/frames"
  "$build/bin/tbr-compare" --checksum "$tmp"/frames/frame_*.png > "$out/$name.md5"
  [ "$(wc -l < "$out/$name.md5")" = "$FRAMES" ] || die "$name.md5 does not have $FRAMES lines"
  echo "make-traces: $name: $(stat -c %s "$out/$name.trace") bytes, $FRAMES frames" >&2
done
