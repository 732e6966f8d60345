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
  unset TBR_FUNCTIONAL_LIB TBR_OUT_DIR TBR_FRAMES TBR_RECORD_COLORS TBR_FLOAT_COLORS
}

# status_of DIR KEY: KEY's value in a tbr-replay output's functional-status.txt
status_of() { grep "^$2=" "$1/functional-status.txt" | head -1 | cut -d= -f2; }
