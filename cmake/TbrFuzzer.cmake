# The libFuzzer prerequisite of every fuzz test (tests/formats_trace, tests/fuzz,
# tests/tools_sweep). -fsanitize=fuzzer needs clang's runtime, so the targets are compiled
# by invoking clang (TBR_CLANG) directly, whatever CMAKE_C_COMPILER is. clang and
# libclang-rt are project dependencies: when they are missing, tbr_fuzzer_problem() sets
# OUT to the reason and the fuzz tests are still registered and FAIL with it, instead of
# silently not existing. The probe runs at configure time, once per build tree.
find_program(TBR_CLANG NAMES clang clang-14 clang-15 clang-16)

function(tbr_fuzzer_problem out)
  get_property(done GLOBAL PROPERTY TBR_FUZZER_PROBED)
  if(NOT done)
    set(problem "")
    if(NOT TBR_CLANG)
      set(problem "clang not found (install clang and libclang-rt-14-dev)")
    else()
      set(probe_dir ${CMAKE_BINARY_DIR}/fuzz_probe)
      file(MAKE_DIRECTORY ${probe_dir})
      file(WRITE ${probe_dir}/probe.c
        "#include <stddef.h>\n#include <stdint.h>\n"
        "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n"
        "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
      execute_process(
        COMMAND ${TBR_CLANG} -fsanitize=fuzzer,address,undefined probe.c -o probe
        WORKING_DIRECTORY ${probe_dir}
        RESULT_VARIABLE probe_rc OUTPUT_QUIET ERROR_VARIABLE probe_err)
      if(NOT probe_rc EQUAL 0)
        string(REPLACE "\n" " " probe_err "${probe_err}")
        set(problem "${TBR_CLANG} cannot link -fsanitize=fuzzer (install libclang-rt-14-dev): ${probe_err}")
      endif()
    endif()
    set_property(GLOBAL PROPERTY TBR_FUZZER_PROBED TRUE)
    set_property(GLOBAL PROPERTY TBR_FUZZER_PROBLEM "${problem}")
  endif()
  get_property(problem GLOBAL PROPERTY TBR_FUZZER_PROBLEM)
  set(${out} "${problem}" PARENT_SCOPE)
endfunction()

# The source manifest of fuzz binary BIN: BIN.sources lists (relative to the project root,
# sorted) every file the binary is compiled from, FILES being its sources and headers;
# OUT_CMD is set to the commands that write BIN.digest (tests/fuzz/source_digest.sh) for
# the target's add_custom_command. bench/fuzz records the digest in each ledger line and
# counts toward 10M only executions of binaries built from the code being counted.
function(tbr_fuzzer_manifest bin out_cmd)
  set(rel "")
  foreach(f ${ARGN})
    cmake_path(ABSOLUTE_PATH f NORMALIZE)
    cmake_path(RELATIVE_PATH f BASE_DIRECTORY ${PROJECT_SOURCE_DIR})
    list(APPEND rel ${f})
  endforeach()
  list(REMOVE_DUPLICATES rel)
  list(SORT rel)
  list(JOIN rel "\n" text)
  file(WRITE ${bin}.sources "${text}\n")
  set(${out_cmd} COMMAND bash ${PROJECT_SOURCE_DIR}/tests/fuzz/source_digest.sh -o ${bin}.digest
      ${PROJECT_SOURCE_DIR} ${bin}.sources PARENT_SCOPE)
endfunction()
