#!/usr/bin/env bash
# The cached Mesa build is used only while its manifest verifies: a corrupted or deleted file
# makes `build-mesa --check` fail (so the next run rebuilds it instead of using it).
# Works on a copy of the real cached build in a private cache directory.
set -euo pipefail
top="$1"
"$top/scripts/build-mesa" --check || { echo "FAIL: no verified Mesa build for the current patch series (run scripts/build-mesa)"; exit 1; }
real_prefix=$("$top/scripts/build-mesa" --print-prefix)
build_id=$("$top/scripts/build-mesa" --print-build-id)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp -a "$(dirname "$real_prefix")" "$tmp/mesa-$build_id"
export TBR_CACHE_DIR="$tmp"

"$top/scripts/build-mesa" --check || { echo "FAIL: intact copy of the cache not accepted"; exit 1; }

# Flip one byte in the middle of the driver.
drv="$tmp/mesa-$build_id/install/lib/dri/swrast_dri.so"
size=$(stat -c %s "$drv"); off=$((size / 2))
orig=$(dd if="$drv" bs=1 skip=$off count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
printf "$(printf '\\%03o' $(( (orig + 1) % 256 )))" | dd of="$drv" bs=1 seek=$off conv=notrunc 2>/dev/null
if "$top/scripts/build-mesa" --check; then echo "FAIL: corrupted driver accepted"; exit 1; fi

# Restore, then delete a library instead.
printf "$(printf '\\%03o' "$orig")" | dd of="$drv" bs=1 seek=$off conv=notrunc 2>/dev/null
"$top/scripts/build-mesa" --check || { echo "FAIL: restored cache not accepted"; exit 1; }
rm "$tmp/mesa-$build_id/install/lib/libEGL.so.1"* 
if "$top/scripts/build-mesa" --check; then echo "FAIL: cache with a deleted file accepted"; exit 1; fi

echo "PASS: cache verification detects corruption and deletion"
