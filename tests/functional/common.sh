# Sourced by the functional.* test scripts (tests/functional/*.sh): their shared
# preamble and helpers.

fail() { echo "FAIL: $*" >&2; exit 1; }

# functional_setup MESA WORK [TOOL...]: MESA must be the instrumented Mesa prefix and
# every TOOL on PATH; WORK is emptied and becomes the current directory; GL programs,
# apitrace and eglretrace then run headless on that Mesa, with no recording set up.
functional_setup() {
  local mesa="$1" work="$2" t
  shift 2
  [ -n "$mesa" ] || fail "TBR_MESA_PREFIX is empty"
  [ -f "$mesa/lib/libEGL.so.1" ] || fail "no instrumented Mesa at TBR_MESA_PREFIX=$mesa"
  for t in "$@"; do command -v "$t" >/dev/null || fail "$t not found"; done
  rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
  export LD_LIBRARY_PATH="$mesa/lib" LIBGL_DRIVERS_PATH="$mesa/lib/dri" WAFFLE_PLATFORM=surfaceless_egl LIBGL_ALWAYS_SOFTWARE=1
  unset TBR_FUNCTIONAL_LIB TBR_OUT_DIR TBR_FRAMES TBR_RECORD_COLORS TBR_FLOAT_COLORS TBR_RECORD_TEXELS TBR_VERTEX_HASHES
}

# status_of DIR KEY: KEY's value in a tbr-replay output's functional-status.txt
status_of() { grep "^$2=" "$1/functional-status.txt" | head -1 | cut -d= -f2; }

# simulate_exact BIN_DIR DIR FRAMES LABEL: tbr-sim DIR into DIR.sim; every one of the
# FRAMES frames must be bit-exact with its reference.
simulate_exact() {
  local bin="$1" dir="$2" frames="$3" label="$4" exact
  "$bin/tbr-sim" "$dir" -o "$dir.sim" --quiet > "$dir.sim.log" 2>&1 || { cat "$dir.sim.log"; fail "$label: tbr-sim"; }
  exact=$(grep -c 'bit-exact with the reference' "$dir.sim/summary.txt")
  [ "$exact" = "$frames" ] || { cat "$dir.sim/summary.txt"; fail "$label: $exact of $frames frames bit-exact"; }
}

# same_frames A.sim B.sim FRAMES LABEL: both simulations wrote the same FRAMES PNGs.
same_frames() {
  local a="$1" b="$2" frames="$3" label="$4" f n=0
  for f in "$a"/frames/*.png; do
    cmp -s "$f" "$b/frames/$(basename "$f")" || fail "$label: $(basename "$f") differs"
    n=$((n + 1))
  done
  [ "$n" = "$frames" ] || fail "$label: $n simulated frames, expected $frames"
}
