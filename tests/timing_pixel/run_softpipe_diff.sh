#!/bin/sh
# Runs the softpipe differential test against the project's Mesa build.
# $1 = test binary, $2 = source dir, $3 = Mesa prefix (may be empty).
# Fails if no verified Mesa build is available: a missing prerequisite is not a pass.
# Prefix order: $3 (CMake TBR_MESA_PREFIX), env TBR_MESA_PREFIX, scripts/build-mesa
# --print-prefix if --check succeeds (never triggers a build).
bin=$1 src=$2 prefix=${3:-${TBR_MESA_PREFIX:-}}
if [ -z "$prefix" ]; then
  if "$src/scripts/build-mesa" --check >/dev/null 2>&1; then
    prefix=$("$src/scripts/build-mesa" --print-prefix 2>/dev/null)
  fi
fi
if [ -z "$prefix" ] || [ ! -d "$prefix/lib" ]; then
  echo "FAIL: no verified Mesa build (TBR_MESA_PREFIX unset and scripts/build-mesa --check failed); run scripts/test"
  exit 1
fi
# ASan's leak checker reports Mesa's own allocations at exit; not ours to fix.
LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
LIBGL_ALWAYS_SOFTWARE=1 EGL_PLATFORM=surfaceless \
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  exec "$bin"
