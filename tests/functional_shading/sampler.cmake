# Tests of the texture sampler of functional/reference (softpipe's sp_tex_sample.c).
add_executable(functional_shading_sampler_test ${CMAKE_CURRENT_LIST_DIR}/sampler_test.c)
target_link_libraries(functional_shading_sampler_test PRIVATE tbr_reference)
foreach(g formats wrap lod pot misc unsupported aliasing footprints)
  add_test(NAME functional_shading.sampler_${g} COMMAND functional_shading_sampler_test ${g})
endforeach()

# Differential test against the real softpipe (surfaceless EGL + GLES 3 through the
# project's Mesa build): random textures / sampler states / coordinates, every
# sample compared bit for bit. Same runner as timing_pixel.softpipe_diff (fails
# when no verified Mesa build is available; without EGL/GLES development files both
# tests below are registered as failing, not left out).
pkg_check_modules(TBR_SAMPLER_EGL IMPORTED_TARGET egl glesv2)
if(TBR_SAMPLER_EGL_FOUND)
  add_executable(functional_shading_sampler_softpipe_diff
                 ${CMAKE_CURRENT_LIST_DIR}/sampler_softpipe_diff.c)
  target_link_libraries(functional_shading_sampler_softpipe_diff
                        PRIVATE tbr_reference PkgConfig::TBR_SAMPLER_EGL)
  add_test(NAME functional_shading.sampler_softpipe_diff
           COMMAND sh ${CMAKE_SOURCE_DIR}/tests/timing_pixel/run_softpipe_diff.sh
                   $<TARGET_FILE:functional_shading_sampler_softpipe_diff>
                   ${CMAKE_SOURCE_DIR} "${TBR_MESA_PREFIX}")
  set_tests_properties(functional_shading.sampler_softpipe_diff PROPERTIES TIMEOUT 300)
else()
  foreach(t sampler_softpipe_diff sampler_texels)
    tbr_add_missing_prerequisite_test(functional_shading.${t}
                                      "pkg-config finds no egl/glesv2 (install libegl-dev libgles-dev)")
  endforeach()
endif()

# The observer's texel order against the recorder's TEXELS records of the same run.
if(TBR_SAMPLER_EGL_FOUND)
  add_test(NAME functional_shading.sampler_texels
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/sampler_texels.sh
                   "${TBR_MESA_PREFIX}"
                   $<TARGET_FILE:tbr_functional>
                   $<TARGET_FILE:functional_shading_sampler_softpipe_diff>
                   $<TARGET_FILE:tbr-dump>
                   ${CMAKE_CURRENT_BINARY_DIR}/sampler_texels)
  set_tests_properties(functional_shading.sampler_texels PROPERTIES TIMEOUT 600)
endif()
