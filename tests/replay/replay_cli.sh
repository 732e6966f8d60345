#!/usr/bin/env bash
# tbr-replay's input checks and its refusal to run on any GL driver but the project's softpipe.
# usage: replay_cli.sh BIN_DIR MESA_PREFIX TRACE
set -uo pipefail
bin="$1"; mesa="$2"; trace="$3"
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
expect() { # expect NAME CODE PATTERN -- command...
  local name="$1" code="$2" pattern="$3"; shift 4
  # bounded: a hung child names its step here instead of timing the whole test out
  timeout -k 5 120 "$@" > "$tmp/out" 2>&1; local rc=$?
  [ "$rc" -eq 124 ] && echo "    ($name: timed out after 120 s)" >> "$tmp/out"
  if [ "$rc" -ne "$code" ] || ! grep -q -- "$pattern" "$tmp/out"; then
    echo "FAIL $name: exit $rc (want $code), output:"; sed 's/^/    /' "$tmp/out"; fails=$((fails+1))
  else echo "ok   $name"; fi
}
[ -n "$mesa" ] || { echo "FAIL: TBR_MESA_PREFIX is empty: build with scripts/test"; exit 1; }
[ -f "$trace" ] || { echo "FAIL: sample trace $trace missing"; exit 1; }

echo "not a trace" > "$tmp/text.trace"
expect missing-input 2 "cannot open" -- "$bin/tbr-replay" "$tmp/nope.trace" -o "$tmp/o1"
expect not-apitrace 2 "not an apitrace trace" -- "$bin/tbr-replay" "$tmp/text.trace" -o "$tmp/o2"
expect no-output 2 "usage" -- "$bin/tbr-replay" "$trace"
expect bad-frames 2 "expected A-B" -- "$bin/tbr-replay" "$trace" -o "$tmp/o3" --frames 5-2
expect frames-beyond 2 "only" -- "$bin/tbr-replay" "$trace" -o "$tmp/o4" --frames 100000-100001
head -c 3000 "$trace" > "$tmp/truncated.trace"
expect truncated 2 "no complete frame" -- "$bin/tbr-replay" "$tmp/truncated.trace" -o "$tmp/o5"
mkdir -p "$tmp/exists"
expect exists 2 "already exists" -- "$bin/tbr-replay" "$trace" -o "$tmp/exists"

# A desktop-GL (GLX) trace is rejected before any replay.
gears=$(command -v glxgears || command -v glxgears.x86_64-linux-gnu || true)
glxtrace=/usr/lib/x86_64-linux-gnu/apitrace/wrappers/glxtrace.so
if [ -z "$gears" ] || [ ! -f "$glxtrace" ]; then
  echo "FAIL desktop-gl: glxgears or apitrace's glxtrace.so missing (scripts/install-deps)"; fails=$((fails+1))
else
  # xvfb-run itself can hang when its Xvfb never signals readiness: bound it, retry once
  for attempt in 1 2; do
    timeout -k 5 60 xvfb-run -a timeout -s INT 8 env LD_PRELOAD="$glxtrace" TRACE_FILE="$tmp/glx.trace" \
      "$gears" > /dev/null 2>&1 || true
    [ -s "$tmp/glx.trace" ] && break
    echo "note: glxgears capture attempt $attempt produced no trace"
  done
  expect desktop-gl 2 "not an OpenGL ES trace: it uses GLX" -- "$bin/tbr-replay" "$tmp/glx.trace" -o "$tmp/o7"
fi

# A frame window: exactly frames 1-2 are recorded (the replay stops after them), and their
# reference images have the checked-in pixel checksums of those frames.
if timeout -k 5 200 "$bin/tbr-replay" -q "$trace" -o "$tmp/win" --frames 1-2 > "$tmp/out" 2>&1; then
  got=$(cd "$tmp/win/reference" && ls)
  want=$(printf 'frame_00001.png\nframe_00002.png')
  sums="${trace%.trace}.md5"
  if [ "$got" != "$want" ]; then
    echo "FAIL window: reference frames are: $got"; fails=$((fails+1))
  elif ! grep -E 'frame_0000[12]\.png' "$sums" > "$tmp/win.md5" ||
       ! "$bin/tbr-compare" --check-sums "$tmp/win.md5" "$tmp/win/reference" > /dev/null; then
    echo "FAIL window: frames 1-2 differ from $sums"; fails=$((fails+1))
  elif ! grep -q '"first_frame": 1' "$tmp/win/replay.json"; then
    echo "FAIL window: replay.json does not record the window"; fails=$((fails+1))
  else echo "ok   window"; fi
else
  echo "FAIL window: tbr-replay --frames 1-2 failed:"; sed 's/^/    /' "$tmp/out"; fails=$((fails+1))
fi

# The GL probe: our Mesa is softpipe; without LD_LIBRARY_PATH Debian's llvmpipe is found and
# the probe must say so and fail.
expect probe-ours 0 "GL_RENDERER=softpipe" -- env LD_LIBRARY_PATH="$mesa/lib" "$bin/tbr-mesa-check"
expect probe-debian 1 "not 'softpipe'" -- env -u LD_LIBRARY_PATH "$bin/tbr-mesa-check"

# A prefix that has a softpipe driver file but not our libEGL: eglretrace then loads Debian's
# GL stack, our instrumentation is never loaded, and tbr-replay must fail loudly.
mkdir -p "$tmp/fake/lib/dri"
ln -s "$mesa/lib/dri/swrast_dri.so" "$tmp/fake/lib/dri/swrast_dri.so"
expect wrong-mesa 1 "instrumented Mesa was not loaded" -- "$bin/tbr-replay" "$trace" -o "$tmp/o6" --mesa-prefix "$tmp/fake" -q
[ -e "$tmp/o6" ] && { echo "FAIL wrong-mesa: output directory published"; fails=$((fails+1)); }

[ $fails -eq 0 ] && echo "all replay CLI checks passed" || exit 1
