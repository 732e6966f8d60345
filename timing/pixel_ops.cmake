# tbrsim: functional raster back end (pixel formats, depth/stencil, blending, tile
# buffers), bit-exact with Mesa softpipe. include()d from timing/CMakeLists.txt and
# tests/timing_pixel/CMakeLists.txt.
if(NOT TARGET tbr_pixel_ops)
  add_library(tbr_pixel_ops STATIC
    ${CMAKE_CURRENT_LIST_DIR}/pixel_formats.c
    ${CMAKE_CURRENT_LIST_DIR}/depth_stencil.c
    ${CMAKE_CURRENT_LIST_DIR}/blending.c
    ${CMAKE_CURRENT_LIST_DIR}/tile_buffers.c)
  target_include_directories(tbr_pixel_ops PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  # Bit-exactness needs IEEE single-precision operations rounded one by one:
  # no FMA contraction (already implied by -std=c11), no fast-math.
  target_compile_options(tbr_pixel_ops PRIVATE -ffp-contract=off -fno-fast-math)
  find_library(TBR_LIBM m)
  if(TBR_LIBM)
    target_link_libraries(tbr_pixel_ops PUBLIC ${TBR_LIBM})
  endif()
endif()
