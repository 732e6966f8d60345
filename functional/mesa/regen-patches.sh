#!/usr/bin/env bash
# Regenerates functional/mesa/patches/*.patch from a Mesa dev tree:
#   regen-patches.sh PRISTINE_TREE MODIFIED_TREE
# (trees as extracted from mesa_22.3.6.orig.tar.gz; MODIFIED has the overlay copied in
# and the hook calls edited). Only files that exist in PRISTINE are diffed: new files
# belong in functional/mesa/overlay/.
set -euo pipefail
pristine=$1 modified=$2
here=$(cd "$(dirname "$0")" && pwd)
# Patches kept by hand: small fixes on top of the generated ones, not regenerated. MODIFIED
# holds their changes too, so each file they touch is diffed with them reversed out.
hand_kept=(0006-softpipe-zeroed-texture-storage.patch 0007-softpipe-aniso-lod-bias-once.patch
  0008-softpipe-invalidate-resource-hook.patch)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
without_hand_kept() { # file -> path of MODIFIED's copy without the hand-kept changes
  local f="$1" p copy="$tmp/$(echo "$1" | tr / _)"
  cp "$modified/$f" "$copy"
  for p in "${hand_kept[@]}"; do
    awk -v f="$f" '/^--- a\//{on = ($0 == "--- a/" f)} on' "$here/patches/$p" > "$tmp/section"
    [ -s "$tmp/section" ] && patch -s -R "$copy" < "$tmp/section"
  done
  echo "$copy"
}
gen() { # name files...
  local out="$here/patches/$1"; shift
  : > "$out"
  for f in "$@"; do
    diff -u --label "a/$f" --label "b/$f" "$pristine/$f" "$(without_hand_kept "$f")" >> "$out" || true
  done
  echo "wrote $out ($(grep -c '^+[^+]' "$out") added lines)"
}
sp=src/gallium/drivers/softpipe
gen 0001-egl-frame-boundary-hook.patch src/egl/main/eglapi.c src/egl/meson.build
gen 0002-softpipe-recording-hooks.patch $sp/meson.build $sp/sp_context.h $sp/sp_context.c \
  $sp/sp_state.h $sp/sp_texture.h $sp/sp_texture.c $sp/sp_state_shader.c $sp/sp_draw_arrays.c \
  $sp/sp_flush.c $sp/sp_clear.c
gen 0003-softpipe-quad-and-tile-hooks.patch $sp/sp_quad_pipe.c $sp/sp_quad_depth_test.c \
  $sp/sp_quad_depth_test_tmp.h $sp/sp_setup.c $sp/sp_tile_cache.c
gen 0004-tgsi-exec-instruction-hook.patch src/gallium/auxiliary/tgsi/tgsi_exec.h \
  src/gallium/auxiliary/tgsi/tgsi_exec.c
gen 0005-texel-and-vertex-hooks.patch $sp/sp_tex_sample.c src/gallium/auxiliary/draw/draw_private.h \
  src/gallium/auxiliary/draw/draw_pt_fetch.c src/gallium/auxiliary/draw/draw_vs_variant.c
