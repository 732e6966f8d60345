#!/usr/bin/env bash
# Test driver for tbr-capture (tests/capture/CMakeLists.txt).
#   capture-test.sh CASE SRC_DIR BIN_DIR [MESA_PREFIX]
# Exit 0 pass, 1 fail, 77 skipped (an optional program is not installed:
# scripts/install-deps).
set -euo pipefail

case_name=${1:-} src=${2:-} bin=${3:-} mesa=${4:-}
cap=$bin/tbr-capture
app=$bin/tbr-capture-test-app
fail() { echo "FAIL: $*" >&2; exit 1; }
# A missing prerequisite is a failure: scripts/install-deps installs every one of them.
skip() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$cap" ] || fail "$cap not built"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/capture-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
mkdir -p "$out"

# Runs tbr-capture; sets $rc and leaves its stderr in $tmp/err.
run_cap() {
  rc=0
  timeout 300 "$cap" "$@" 2> "$tmp/err" || rc=$?
  sed 's/^/  | /' "$tmp/err" >&2
}
expect_rc() { [ "$rc" = "$1" ] || fail "tbr-capture exited $rc, expected $1"; }
expect_err() { grep -q -- "$1" "$tmp/err" || fail "stderr does not say '$1'"; }
# Nothing at all may be left in the output directory (no trace, no temporary files).
expect_clean() {
  local left
  left=$(ls -A "$out")
  [ -z "$left" ] || fail "files left behind in the output directory: $left"
}
frames_of() { apitrace info "$1" | sed -n 's/.*"FramesCount": *\([0-9]*\).*/\1/p'; }
json_has() { grep -q -- "$2" "$1.json" || fail "$1.json lacks $2"; }

case "$case_name" in
help)
  "$cap" --help > "$tmp/help" || fail "--help exited $?"
  grep -q -- "--frames" "$tmp/help" && grep -q -- "--cut" "$tmp/help" || fail "--help incomplete"
  "$cap" --version | grep -Eq '^tbr-capture [0-9]+\.[0-9]+' || fail "--version output"
  run_cap; expect_rc 2
  run_cap -o "$out/x.trace"; expect_rc 2; expect_err "no program to run"
  run_cap -o "$out/x.trace" --frames 0 -- /bin/true; expect_rc 2
  run_cap -o "$out/x.trace" --platform vulkan -- /bin/true; expect_rc 2
  expect_clean
  ;;
missing_program)
  run_cap -o "$out/x.trace" --platform surfaceless -- tbr-no-such-program --frames 3
  expect_rc 2; expect_err "program not found: tbr-no-such-program"
  run_cap -o "$out/x.trace" --platform surfaceless -- "$tmp/nonexistent"
  expect_rc 2; expect_err "program not found"
  expect_clean
  ;;
unwritable_output)
  run_cap -o "$tmp/no-such-dir/x.trace" --platform surfaceless -- "$bin/tbr-sample-blend"
  expect_rc 2; expect_err "cannot write"
  [ ! -e "$tmp/no-such-dir" ] || fail "created the missing directory"
  run_cap -o /proc/tbr-capture-test.trace --platform surfaceless -- "$bin/tbr-sample-blend"
  expect_rc 2; expect_err "cannot write"
  mkdir "$out/adir"
  run_cap -o "$out/adir" --platform surfaceless -- "$bin/tbr-sample-blend"
  expect_rc 2; expect_err "is a directory"
  rmdir "$out/adir"
  expect_clean
  ;;
existing_output)
  # An existing OUT.trace (or OUT.trace.json) is refused before the program runs and left
  # as it was; --force replaces both; -q prints no progress, only what went wrong.
  echo old > "$out/b.trace"
  run_cap -o "$out/b.trace" --platform surfaceless --frames 2 -- "$bin/tbr-sample-blend"
  expect_rc 2; expect_err "b.trace: already exists (use --force"
  [ "$(cat "$out/b.trace")" = old ] || fail "the existing trace was changed"
  [ ! -e "$out/b.trace.json" ] || fail "metadata written although the output was refused"
  rm "$out/b.trace"; echo old > "$out/b.trace.json"
  run_cap -o "$out/b.trace" --platform surfaceless --frames 2 -- "$bin/tbr-sample-blend"
  expect_rc 2; expect_err "b.trace.json: already exists"
  [ ! -e "$out/b.trace" ] || fail "trace written although its metadata file exists"
  echo old > "$out/b.trace"
  run_cap -q --force -o "$out/b.trace" --platform surfaceless --frames 2 -- "$bin/tbr-sample-blend"
  expect_rc 0
  [ "$(frames_of "$out/b.trace")" = 2 ] || fail "--force: trace has $(frames_of "$out/b.trace") frames, expected 2"
  json_has "$out/b.trace" '"frames": 2,'
  [ ! -s "$tmp/err" ] || fail "-q: stderr is not empty"
  [ "$(ls -A "$out" | LC_ALL=C sort | tr '\n' ' ')" = "b.trace b.trace.json " ] || fail "unexpected files: $(ls -A "$out")"
  # the same for --cut
  run_cap -q --cut 0 "$out/b.trace" -o "$out/b.trace.json"
  expect_rc 2; expect_err "already exists"
  run_cap -q --cut 1 "$out/b.trace" -o "$out/c.trace"
  expect_rc 0
  run_cap -q --cut 0 "$out/b.trace" -o "$out/c.trace"
  expect_rc 2; expect_err "c.trace: already exists"
  [ "$(frames_of "$out/c.trace")" = 1 ] || fail "the refused cut changed c.trace"
  ;;
no_frames)
  run_cap -o "$out/x.trace" --platform surfaceless -- /bin/false
  expect_rc 2; expect_err "exited before its first frame"; expect_clean
  run_cap -o "$out/x.trace" --platform surfaceless -- /bin/true
  expect_rc 2; expect_err "no EGL/GLES calls seen"; expect_clean
  [ -x "$app" ] || fail "$app not built"
  run_cap -o "$out/x.trace" --platform surfaceless -- "$app" --exit-before-swap
  expect_rc 2; expect_err "before its first frame"; expect_clean
  ;;
desktop_gl)
  gears=$(command -v glxgears || command -v glxgears.x86_64-linux-gnu || true)
  [ -n "$gears" ] || skip "glxgears not installed (mesa-utils-bin: scripts/install-deps)"
  run_cap -o "$out/x.trace" --platform x11 --seconds 2 -- "$gears"
  expect_rc 2; expect_err "desktop OpenGL/GLX program"; expect_clean
  ;;
frames3)
  # The sample renders 5 frames by itself; the trace must keep exactly 3.
  run_cap -o "$out/b.trace" --platform surfaceless --frames 3 -- "$bin/tbr-sample-blend"
  expect_rc 0
  [ "$(frames_of "$out/b.trace")" = 3 ] || fail "trace has $(frames_of "$out/b.trace") frames, expected 3"
  json_has "$out/b.trace" '"frames": 3,'
  json_has "$out/b.trace" '"validation": {[^}]*"frames": 3'
  json_has "$out/b.trace" '"egl_platform": "surfaceless"'
  json_has "$out/b.trace" '"resolution": {"width": 320, "height": 240}'
  json_has "$out/b.trace" '"gl_renderer": "'
  expect_err "3 complete frames"
  [ "$(ls -A "$out" | LC_ALL=C sort | tr '\n' ' ')" = "b.trace b.trace.json " ] || fail "unexpected files: $(ls -A "$out")"
  ;;
stop_running)
  # A program that would run for a long time is stopped once 4 frames are recorded.
  run_cap -o "$out/c.trace" --platform surfaceless --frames 4 -- "$bin/tbr-sample-casual2d" --frames 1000000
  expect_rc 0
  [ "$(frames_of "$out/c.trace")" = 4 ] || fail "trace has $(frames_of "$out/c.trace") frames, expected 4"
  json_has "$out/c.trace" '"stopped_by_tbr_capture": true'
  json_has "$out/c.trace" '"validation": {[^}]*"frames": 4'
  ;;
seconds)
  # --no-validate: the replay of the many frames recorded in that time is not the point here.
  # 3 s, not 1: the program runs on softpipe, and on a loaded 2-core machine 1 s once
  # ended before its first frame was flushed.
  run_cap -o "$out/c.trace" --platform surfaceless --seconds 3 --no-validate -- "$bin/tbr-sample-casual2d" --frames 1000000
  expect_rc 0
  n=$(frames_of "$out/c.trace")
  [ "$n" -ge 1 ] || fail "no frames"
  # Ends on a complete frame: the last call is an eglSwapBuffers.
  last=$(apitrace dump "$out/c.trace" | grep '^[0-9]' | tail -n 1)
  case "$last" in *eglSwapBuffers*) ;; *) fail "last call is not eglSwapBuffers: $last" ;; esac
  json_has "$out/c.trace" "\"frames\": $n,"
  ;;
gl_errors)
  [ -x "$app" ] || fail "$app not built"
  run_cap -o "$out/e.trace" --platform surfaceless -- "$app" --app-error
  expect_rc 0
  expect_err "raised by the tracer itself"
  expect_err "glEnable raised GL_INVALID_ENUM in the validation replay"
  json_has "$out/e.trace" '"error": "GL_INVALID_ENUM", "origin": "tracer", "cause_call": [0-9]'
  json_has "$out/e.trace" '"function": "glEnable", "error": "GL_INVALID_ENUM", "origin": "replay"'
  json_has "$out/e.trace" '"origin": "capture"'
  ;;
cut)
  src_trace=$src/samples/traces/depth3d.trace
  [ -r "$src_trace" ] || fail "$src_trace missing"
  run_cap --cut 2-3 "$src_trace" -o "$out/cut.trace"
  expect_rc 0
  [ "$(frames_of "$out/cut.trace")" = 2 ] || fail "cut has $(frames_of "$out/cut.trace") frames, expected 2"
  json_has "$out/cut.trace" '"first_frame": 2, "last_frame": 3'
  # The cut replays to the same pixels as frames 2 and 3 of the whole trace.
  [ -x "$bin/tbr-compare" ] || fail "$bin/tbr-compare not built"
  for t in full:"$src_trace" cut:"$out/cut.trace"; do
    mkdir "$tmp/${t%%:*}"
    WAFFLE_PLATFORM=surfaceless_egl eglretrace --call-nos=no -s "$tmp/${t%%:*}/" "${t#*:}" > /dev/null 2>&1 ||
      fail "replay of ${t#*:} failed"
  done
  f=($(ls "$tmp/full" | LC_ALL=C sort)) c=($(ls "$tmp/cut" | LC_ALL=C sort))
  [ ${#c[@]} = 2 ] || fail "the cut replayed ${#c[@]} frames"
  for k in 0 1; do
    a=$("$bin/tbr-compare" --checksum "$tmp/full/${f[$((k + 2))]}" | cut -d' ' -f1)
    b=$("$bin/tbr-compare" --checksum "$tmp/cut/${c[$k]}" | cut -d' ' -f1)
    [ "$a" = "$b" ] || fail "frame $k of the cut differs from frame $((k + 2)) of the source"
  done
  run_cap --cut 3-9 "$src_trace" -o "$out/bad.trace"
  expect_rc 2; expect_err "cannot cut 3-9"
  [ ! -e "$out/bad.trace" ] || fail "bad cut left a trace"
  ;;
x11)
  # A private Xvfb is started and stopped (the sample itself needs no window).
  run_cap -o "$out/c.trace" --platform x11 --size 640x480 --frames 2 -- "$bin/tbr-sample-casual2d"
  expect_rc 0; expect_err "started Xvfb"
  json_has "$out/c.trace" '"server": "Xvfb :[0-9]*", "screen": "640x480"'
  ;;
x11_gears)
  # A real X11 EGL program in a window.
  gears=$(command -v es2gears_x11 || command -v es2gears_x11.x86_64-linux-gnu || true)
  [ -n "$gears" ] || skip "es2gears_x11 not installed (mesa-utils-bin: scripts/install-deps)"
  run_cap -o "$out/g.trace" --platform x11 --frames 10 -- "$gears"
  expect_rc 0
  [ "$(frames_of "$out/g.trace")" = 10 ] || fail "es2gears trace has $(frames_of "$out/g.trace") frames"
  json_has "$out/g.trace" '"surface": "window"'
  ;;
wayland)
  command -v weston > /dev/null || skip "weston not installed (scripts/install-deps)"
  gears=$(command -v es2gears_wayland || command -v es2gears_wayland.x86_64-linux-gnu || true)
  [ -n "$gears" ] || skip "es2gears_wayland not installed (mesa-utils-bin: scripts/install-deps)"
  # --seconds: es2gears_wayland is paced by the compositor and writes little per frame,
  # so --frames would wait for apitrace's first 1 MiB chunk. 8 s, not less: on a loaded
  # 2-core machine (ctest -j2 plus other work) 3 s once ended before the first call was
  # flushed.
  run_cap -o "$out/w.trace" --platform wayland --size 640x480 --seconds 8 --no-validate -- "$gears"
  expect_rc 0; expect_err "started headless weston"
  [ "$(frames_of "$out/w.trace")" -ge 1 ] || fail "wayland trace has no frames"
  json_has "$out/w.trace" '"used": "wayland", "server": "weston tbr-capture-[0-9]*"'
  json_has "$out/w.trace" '"surface": "window"'
  ;;
driver_caps)
  # What the captured program sees (the probe prints it on stdout, run under tbr-capture)
  # against what the replay's driver, the project's softpipe, offers: the same GL and GLSL
  # versions and limits, and no extension beyond it but the debug-marker ones apitrace's
  # tracer adds itself (eglretrace handles their calls on any driver).  With
  # --driver llvmpipe: the same versions and extensions, larger limits (printed).
  [ -r "$mesa/lib/dri/swrast_dri.so" ] || fail "no project Mesa at '$mesa'"
  probe=$bin/tbr-capture-test-caps
  LD_LIBRARY_PATH=$mesa/lib "$probe" > "$tmp/replay.caps" 2> /dev/null || fail "probe on the project's softpipe"
  grep -q '^# renderer softpipe' "$tmp/replay.caps" || fail "the project's Mesa is not softpipe"
  for d in softpipe llvmpipe; do
    rc=0
    timeout 300 "$cap" --platform surfaceless --driver $d --no-validate -o "$out/$d.trace" -- "$probe" \
      > "$tmp/$d.caps" 2> "$tmp/err" || rc=$?
    expect_rc 0
    grep -E '^(version|glsl) ' "$tmp/$d.caps" > "$tmp/a"; grep -E '^(version|glsl) ' "$tmp/replay.caps" > "$tmp/b"
    diff "$tmp/b" "$tmp/a" >&2 || fail "--driver $d: GL/GLSL version differ from the replay's"
    extra=$(comm -13 <(grep '^extension ' "$tmp/replay.caps" | LC_ALL=C sort) \
      <(grep '^extension ' "$tmp/$d.caps" | LC_ALL=C sort) |
      grep -v -x -E 'extension GL_(EXT_debug_label|EXT_debug_marker|KHR_debug)' || true)
    [ -z "$extra" ] || fail "--driver $d offers what the replay lacks: $extra"
    limits=$(diff <(grep '^limit ' "$tmp/replay.caps") <(grep '^limit ' "$tmp/$d.caps") | grep "^>" | tr "\n" " " || true)
    echo "--driver $d: $(grep -c '^extension ' "$tmp/$d.caps") extensions (replay: $(grep -c '^extension ' \
      "$tmp/replay.caps")); limits above softpipe's: ${limits:-none}" >&2
    if [ $d = softpipe ]; then [ -z "$limits" ] || fail "--driver softpipe: limits differ"; fi
  done
  ;;
glsl_pick)
  # A program that takes #version 320 es when the context offers ES 3.2: captured by
  # default on softpipe it takes 310 es, and its trace replays on the project's softpipe
  # (eglretrace with tbr-replay's options) without a shader failure or GL error.
  [ -r "$mesa/lib/dri/swrast_dri.so" ] || fail "no project Mesa at '$mesa'"
  glsl=$bin/tbr-capture-test-glsl
  run_cap --platform surfaceless -o "$out/g.trace" -- "$glsl"
  expect_rc 0
  LD_LIBRARY_PATH=$mesa/lib WAFFLE_PLATFORM=surfaceless_egl eglretrace --no-context-check --singlethread \
    "$out/g.trace" > "$tmp/replay.out" 2>&1 || fail "replay on the project's softpipe failed"
  if grep -E 'glGetError\(|compilation failed|link failed' "$tmp/replay.out" >&2; then
    fail "the capture does not replay cleanly on softpipe"
  fi
  grep -q '^Rendered 3 frames' "$tmp/replay.out" || fail "the replay did not render 3 frames"
  json_has "$out/g.trace" '"glsl_versions": \["310 es"\]'
  json_has "$out/g.trace" '"validation": {"replayer": "eglretrace on the project.s softpipe'
  # A faster capture driver is trimmed to softpipe's ES 3.1: the program takes 310 es too.
  run_cap --platform surfaceless --driver llvmpipe -o "$out/l.trace" -- "$glsl"
  expect_rc 0; expect_err "using #version 310 es"
  # ... but its compiler still takes 320 es: a program that insists on it fails validation,
  # with the calls and the reason named.
  run_cap --platform surfaceless --driver llvmpipe -o "$out/f.trace" -- "$glsl" --glsl 320
  expect_rc 1; expect_err "GLSL ES 3.20 is not supported"; expect_err "declare #version 320 es"
  expect_err "validation failed"
  json_has "$out/f.trace" '"shader_failures": \[{"call": [0-9]*, "what": "compilation failed"'
  ;;
epoxy_glx)
  # libepoxy probes GLX first (dlopen("libGL.so.1")); under egltrace.so alone it aborts
  # on glXGetCurrentContext. It must capture with no variable from the user: GLX is
  # hidden, the program goes on with EGL.
  run_cap --platform x11 -o "$out/e.trace" -- "$bin/tbr-capture-test-epoxy" --frames 5
  expect_rc 0; expect_err "GLX absent"
  [ "$(frames_of "$out/e.trace")" = 5 ] || fail "epoxy trace has $(frames_of "$out/e.trace") frames, expected 5"
  json_has "$out/e.trace" '"surface": "window"'
  json_has "$out/e.trace" '"validation": {[^}]*"frames": 5'
  # ... and replays and simulates bit-exact.
  "$bin/tbr-replay" "$out/e.trace" -o "$tmp/replay" 2> "$tmp/replay.err" || { cat "$tmp/replay.err" >&2; fail "tbr-replay failed"; }
  "$bin/tbr-sim" "$tmp/replay" -o "$tmp/sim" --quiet || fail "tbr-sim failed or a frame differs"
  grep -q '"frames_bit_exact": 5' "$tmp/sim/stats.json" || fail "not 5 bit-exact frames"
  ;;
emulator_host)
  # The parts of the Android-emulator capture plan that do not need the emulator
  # (docs/capture.md): libEGL/libGLESv2 opened with dlopen by a path apitrace's tracer does
  # not redirect by itself (the full versioned file name), guest contexts drawing on a
  # worker thread into textures shared with a compositor context that composes them into
  # an X11 window. The capture must replay and simulate bit-exact, its frame 3 must be the
  # frame the program showed, and --cut 3 must isolate that composed frame.
  [ -r "$mesa/lib/dri/swrast_dri.so" ] || fail "no project Mesa at '$mesa'"
  for t in tbr-replay tbr-sim tbr-compare tbr-capture-test-emuhost; do [ -x "$bin/$t" ] || fail "$bin/$t not built"; done
  lib_path() { readlink -f "$(ldconfig -p | sed -n "s/^[[:space:]]*$1 (libc6,x86-64) => //p" | head -n 1)"; }
  egl=$(lib_path libEGL.so.1) gles=$(lib_path libGLESv2.so.2)
  [ -f "$egl" ] && [ -f "$gles" ] || fail "libEGL.so.1/libGLESv2.so.2 not found with ldconfig"
  case "$egl" in *libEGL.so.1) fail "$egl is not a fully versioned file name" ;; esac
  run_cap --platform x11 -o "$out/emu.trace" -- "$bin/tbr-capture-test-emuhost" --frames 6 \
    --egl-lib "$egl" --gles-lib "$gles" --dump-frame 3 "$tmp/shown3.rgba"
  expect_rc 0
  [ "$(frames_of "$out/emu.trace")" = 6 ] || fail "trace has $(frames_of "$out/emu.trace") frames, expected 6"
  json_has "$out/emu.trace" '"contexts": 3,'
  json_has "$out/emu.trace" '"threads": 2,'
  json_has "$out/emu.trace" '"surface": "window"'
  shown=$(md5sum < "$tmp/shown3.rgba" | cut -d' ' -f1)
  # Replay and simulation (tbr-replay and tbr-sim with their defaults): every frame bit-exact.
  "$bin/tbr-replay" "$out/emu.trace" -o "$tmp/replay" 2> "$tmp/replay.err" || { cat "$tmp/replay.err" >&2; fail "tbr-replay failed"; }
  "$bin/tbr-sim" "$tmp/replay" -o "$tmp/sim" --quiet || fail "tbr-sim failed or a frame differs"
  grep -q '"frames_bit_exact": 6' "$tmp/sim/stats.json" || fail "not 6 bit-exact frames: $(grep -o '"frames_[a-z_]*": [0-9]*' "$tmp/sim/stats.json" | tr '\n' ' ')"
  ref3=$("$bin/tbr-compare" --checksum "$tmp/replay/reference/frame_00003.png" | cut -d' ' -f1)
  [ "$ref3" = "$shown" ] || fail "replayed frame 3 ($ref3) is not the frame the program showed ($shown)"
  # The window: one composed frame, cut out (several contexts: not by gltrim).
  run_cap --cut 3 "$out/emu.trace" -o "$out/cut.trace"
  expect_rc 0; expect_err "pixel-identical to frames 3-3"
  [ "$(frames_of "$out/cut.trace")" = 1 ] || fail "the cut has $(frames_of "$out/cut.trace") frames"
  json_has "$out/cut.trace" '"method": "drop-earlier-draws"'
  "$bin/tbr-replay" "$out/cut.trace" -o "$tmp/replay-cut" 2> "$tmp/replay.err" || { cat "$tmp/replay.err" >&2; fail "tbr-replay of the cut failed"; }
  "$bin/tbr-sim" "$tmp/replay-cut" -o "$tmp/sim-cut" --quiet || fail "tbr-sim of the cut failed"
  grep -q '"frames_bit_exact": 1' "$tmp/sim-cut/stats.json" || fail "the cut's frame is not bit-exact"
  cut0=$("$bin/tbr-compare" --checksum "$tmp/replay-cut/reference/frame_00000.png" | cut -d' ' -f1)
  [ "$cut0" = "$shown" ] || fail "the cut's frame ($cut0) is not composed frame 3 as shown ($shown)"
  # A window whose frames read what frame 0 drew cannot be cut that way: refused, named.
  run_cap --platform x11 --no-validate -o "$out/once.trace" -- "$bin/tbr-capture-test-emuhost" --frames 4 \
    --guests-once
  expect_rc 0
  run_cap --cut 3 "$out/once.trace" -o "$out/once-cut.trace"
  expect_rc 1; expect_err "differs from frame 3 of the whole trace"
  [ ! -e "$out/once-cut.trace" ] || fail "a cut that differs was written"
  ;;
*)
  echo "usage: capture-test.sh CASE SRC_DIR BIN_DIR [MESA_PREFIX]" >&2
  exit 2
  ;;
esac
echo "PASS: capture.$case_name"
