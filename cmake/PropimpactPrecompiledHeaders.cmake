# The test programs and the comparison tool are many small files that each
# parse the standard library, Eigen and GoogleTest (and Bullet, above the
# core) before their own few hundred lines: a precompiled header parses them
# once per target. Measured on one such file (ChainTutorialTest.cpp, -O3):
# 4.6 CPU-seconds without, 2.0 with. The core and regression suites were left
# out while their time was thought to be all Eigen instantiation, but parsing
# GoogleTest, Eigen and the core's headers alone costs 3 CPU-seconds a file at
# -O3 (45 files, in both the double and the sanitizer build), so they use it
# too, with NO_BULLET: they do not link Bullet. HEADERS adds a target's own
# widely included headers. Only ever PRIVATE: it never reaches the installed
# package's targets. Headers a file relies on must still be included by the
# file: the package's consumer builds some of them without.
function(propimpact_precompile target)
  cmake_parse_arguments(arg "GTEST;NO_BULLET" "" "HEADERS" ${ARGN})
  set(headers <algorithm> <cmath> <memory> <string> <vector> <Eigen/Core>)
  if(NOT arg_NO_BULLET)
    list(APPEND headers <btBulletDynamicsCommon.h>)
  endif()
  if(arg_GTEST)
    list(APPEND headers <gtest/gtest.h>)
  endif()
  target_precompile_headers(${target} PRIVATE ${headers} ${arg_HEADERS})
endfunction()
