# Tests of the texture sampler of functional/shading (softpipe's sp_tex_sample.c).
add_executable(functional_shading_sampler_test ${CMAKE_CURRENT_LIST_DIR}/sampler_test.c)
target_link_libraries(functional_shading_sampler_test PRIVATE tbr_shading)
foreach(g formats wrap lod pot misc unsupported)
  add_test(NAME functional_shading.sampler_${g} COMMAND functional_shading_sampler_test ${g})
endforeach()
