# Energy and power model (docs/energy-model.md): GPU structure energy models,
# per-unit accounting and reports, LPDDR4/LPDDR3 power from IDD currents.
# Included from timing/CMakeLists.txt (the target tbr_energy).
add_library(tbr_energy STATIC
  ${CMAKE_CURRENT_LIST_DIR}/energy_models.c
  ${CMAKE_CURRENT_LIST_DIR}/dram_power.c
  ${CMAKE_CURRENT_LIST_DIR}/energy.c
)
target_include_directories(tbr_energy PUBLIC ${CMAKE_CURRENT_LIST_DIR}/..)
target_link_libraries(tbr_energy PUBLIC tbr_timing_core m)
