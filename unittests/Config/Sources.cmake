# The LLVM-free unit tests of lib/Config: built here (megamoe-config-tests)
# and by the standalone runtime build with MEGAMOE_RUNTIME_CONFIG_TESTS
# (the sanitizer run of scripts/test.sh).
set(MEGAMOE_CONFIG_UNITTEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/BufferLayoutTest.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ChipTest.cpp
  ${CMAKE_CURRENT_LIST_DIR}/HeuristicsTest.cpp
  ${CMAKE_CURRENT_LIST_DIR}/KernelPlanTest.cpp
  ${CMAKE_CURRENT_LIST_DIR}/LayerConfigTest.cpp
  ${CMAKE_CURRENT_LIST_DIR}/PlanPropertyTest.cpp
  ${CMAKE_CURRENT_LIST_DIR}/PlanRulesTest.cpp
  ${CMAKE_CURRENT_LIST_DIR}/PlanTest.cpp
  ${CMAKE_CURRENT_LIST_DIR}/SmemModelTest.cpp)
