# tbrsim: functional fragment shading, bit-exact with Mesa softpipe: the TGSI
# interpreter (tgsi_*), the texture sampler (sampler*) and softpipe's triangle
# setup / attribute interpolation (setup_coef*). Shared by the recorder
# (libtbr_functional: it runs these on every shaded quad and omits the colors
# they reproduce) and tbr-sim (it recomputes those colors). include()d where needed.
if(NOT TARGET tbr_shading)
  file(GLOB tbr_shading_sources ${CMAKE_CURRENT_LIST_DIR}/*.c)
  add_library(tbr_shading STATIC ${tbr_shading_sources})
  target_include_directories(tbr_shading PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  # fs_quad.h reads DRAW records' texture units
  target_link_libraries(tbr_shading PUBLIC tbr_records)
  # Bit-exactness needs IEEE single-precision operations rounded one by one.
  target_compile_options(tbr_shading PRIVATE -ffp-contract=off -fno-fast-math)
  find_library(TBR_LIBM m)
  if(TBR_LIBM)
    target_link_libraries(tbr_shading PUBLIC ${TBR_LIBM})
  endif()
endif()
