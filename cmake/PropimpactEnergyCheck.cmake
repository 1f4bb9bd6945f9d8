# propimpact_add_energy_check(): a ctest that replays a .bullet world with
# propimpact-compare and fails when its energy drifts.
#
#   propimpact_add_energy_check(<name> WORLD <file.bullet>
#     [SECONDS <s>]            simulated time (default 5)
#     [HZ <hz>]                stepSimulation rate, fixed step 1/hz (default 60)
#     [MAX_SUBSTEPS <n>]       stepSimulation's maxSubSteps (default 1)
#     [MAX_DRIFT <x>]          worst |E - E0| / |E0| allowed (default 1e-6)
#     [SOLVERS <s>...]         solvers run (default: the checked ones)
#     [CHECK_SOLVERS <s>...]   solvers checked (default propagative)
#     [COMMAND <program>])     propimpact-compare to use (default: the package's)
#
# A relative WORLD is taken from the current source directory. The test writes
# <name>.csv (energy per step and solver) into the current binary directory.
# Loaded by find_package(propimpact); inside propimpact's own build it uses
# the propimpact-compare target.
function(propimpact_add_energy_check name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "WORLD;SECONDS;HZ;MAX_SUBSTEPS;MAX_DRIFT;COMMAND" "SOLVERS;CHECK_SOLVERS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "propimpact_add_energy_check(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_WORLD)
    message(FATAL_ERROR "propimpact_add_energy_check(${name}): WORLD <file.bullet> is required")
  endif()
  foreach(option SECONDS:5 HZ:60 MAX_SUBSTEPS:1 MAX_DRIFT:1e-6)
    string(REPLACE ":" ";" pair ${option})
    list(GET pair 0 key)
    list(GET pair 1 default)
    if(NOT DEFINED ARG_${key})
      set(ARG_${key} ${default})
    endif()
  endforeach()
  if(NOT ARG_CHECK_SOLVERS)
    set(ARG_CHECK_SOLVERS propagative)
  endif()
  if(NOT ARG_SOLVERS)
    set(ARG_SOLVERS ${ARG_CHECK_SOLVERS})
  endif()
  if(NOT ARG_COMMAND)
    if(TARGET propimpact-compare)
      set(ARG_COMMAND $<TARGET_FILE:propimpact-compare>)
    elseif(propimpact_COMPARE_EXECUTABLE)
      set(ARG_COMMAND ${propimpact_COMPARE_EXECUTABLE})
    else()
      message(FATAL_ERROR "propimpact_add_energy_check(${name}): propimpact-compare not found (set COMMAND)")
    endif()
  endif()
  get_filename_component(world "${ARG_WORLD}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  string(REPLACE ";" "," solvers "${ARG_SOLVERS}")
  string(REPLACE ";" "," checked "${ARG_CHECK_SOLVERS}")
  add_test(NAME ${name}
    COMMAND ${ARG_COMMAND} world ${world} --seconds ${ARG_SECONDS} --hz ${ARG_HZ} --max-substeps ${ARG_MAX_SUBSTEPS}
            --solvers ${solvers} --check --check-solvers ${checked} --max-drift ${ARG_MAX_DRIFT}
            -o ${CMAKE_CURRENT_BINARY_DIR}/${name}.csv)
  set_tests_properties(${name} PROPERTIES LABELS energy)
endfunction()
