# functional/reference/setup_coef.c: softpipe's triangle setup coefficients.
add_executable(tbr-test-setup-coef ${CMAKE_CURRENT_LIST_DIR}/setup_coef_test.c
  ${CMAKE_SOURCE_DIR}/functional/reference/setup_coef.c)
target_include_directories(tbr-test-setup-coef PRIVATE ${CMAKE_SOURCE_DIR}/functional/reference)
target_compile_options(tbr-test-setup-coef PRIVATE -ffp-contract=off)
target_link_libraries(tbr-test-setup-coef PRIVATE m)
add_test(NAME functional_shading.setup_coef COMMAND tbr-test-setup-coef)
