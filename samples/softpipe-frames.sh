#!/usr/bin/env bash
# Replays a trace through the project's softpipe Mesa and writes its frames as
# OUTDIR/frame_NNNNN.png (0-based frame numbers): the reference frames that
# samples/traces/<name>.md5 describes (docs/samples.md).
#
# usage: samples/softpipe-frames.sh MESA_PREFIX TRACE OUTDIR
#   MESA_PREFIX  install prefix printed by `scripts/build-mesa --print-prefix`
#
# Fails (exit 1) unless the replay really ran on softpipe: without the right
# LD_LIBRARY_PATH a program silently gets Debian's llvmpipe, whose pixels differ.
set -euo pipefail

if [ $# -ne 3 ]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
prefix=$1 trace=$2 outdir=$3
die() { echo "softpipe-frames: $*" >&2; exit 1; }

[ -n "$prefix" ] || die "no Mesa prefix given (configure with -DTBR_MESA_PREFIX=\$(scripts/build-mesa --print-prefix))"
[ -e "$prefix/lib/libEGL.so.1" ] || die "$prefix/lib/libEGL.so.1 not found: is $prefix the project's Mesa install prefix?"
[ -r "$trace" ] || die "cannot read $trace"
command -v eglretrace >/dev/null || die "eglretrace not found (Debian package apitrace)"

# Headless replay on the project's Mesa only (no tracer, nothing else preloaded).
run_replay() {
  env -u LD_PRELOAD LD_LIBRARY_PATH="$prefix/lib" WAFFLE_PLATFORM=surfaceless_egl \
    LIBGL_ALWAYS_SOFTWARE=1 eglretrace "$@"
}

# Renderer check: dump the GL state (eglretrace -D) at the first eglMakeCurrent, before
# any texture exists: apitrace's state dump asserts on some ES textures (cube maps,
# arrays: glstate::probeTextureLevelSizeOES, seen with the game3d sample).
first_current=$(apitrace dump --grep='^eglMakeCurrent' "$trace" | sed -n 's/^\([0-9][0-9]*\) eglMakeCurrent.*/\1/p' | head -n 1)
[ -n "$first_current" ] || die "$trace has no eglMakeCurrent call"
renderer=$(run_replay -D "$first_current" "$trace" 2>/dev/null | sed -n 's/^ *"GL_RENDERER": "\(.*\)",\{0,1\}$/\1/p' | head -n 1)
case "$renderer" in
  softpipe*) ;;
  *) die "the replay did not run on softpipe (GL_RENDERER='$renderer'): check $prefix" ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/softpipe-frames.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
log=$tmp/replay.log
if ! run_replay -s "$tmp/" "$trace" >"$log" 2>&1; then
  cat "$log" >&2
  die "eglretrace failed on $trace"
fi
rendered=$(sed -n 's/^Rendered \([0-9][0-9]*\) frames.*/\1/p' "$log")

# eglretrace names snapshots after call numbers: renumber them as frames, in order.
mkdir -p "$outdir"
rm -f "$outdir"/frame_*.png
n=0
while IFS= read -r png; do
  mv "$tmp/$png" "$outdir/$(printf 'frame_%05d.png' "$n")"
  n=$((n + 1))
done < <(cd "$tmp" && ls -1 | grep '\.png$' | LC_ALL=C sort)
[ "$n" -gt 0 ] || die "eglretrace wrote no frames for $trace"
[ "$n" = "$rendered" ] || die "eglretrace rendered $rendered frames but wrote $n snapshots"
echo "softpipe-frames: $trace: $n frames on $renderer -> $outdir" >&2
