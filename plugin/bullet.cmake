# The Bullet adapter. Debian ships two Bullet builds; pkg-config picks the one
# matching PROPIMPACT_DOUBLE_PRECISION (find_package(Bullet) always finds the
# single-precision one).
find_package(PkgConfig REQUIRED)
if(PROPIMPACT_DOUBLE_PRECISION)
  set(PROPIMPACT_BULLET_PC bullet-float64)
  set(PROPIMPACT_BULLET_SCALAR_SIZE 8)
else()
  set(PROPIMPACT_BULLET_PC bullet)
  set(PROPIMPACT_BULLET_SCALAR_SIZE 4)
endif()
pkg_check_modules(PROPIMPACT_BULLET REQUIRED IMPORTED_TARGET GLOBAL ${PROPIMPACT_BULLET_PC})
if(NOT TARGET PkgConfig::BULLET)
  add_library(PkgConfig::BULLET ALIAS PkgConfig::PROPIMPACT_BULLET)
endif()

add_library(propimpact_bullet
  src/bullet/PropagativeImpactSolver.cpp
  src/bullet/Island.cpp
  src/bullet/AheadGeometry.cpp
  src/bullet/AheadPoints.cpp
  src/bullet/Components.cpp
  src/bullet/ClusterProblem.cpp
  src/bullet/ClusterFriction.cpp
  src/bullet/JointRows.cpp
  src/bullet/WriteBack.cpp
  src/bullet/RestingPass.cpp
  src/bullet/RestitutionWarnings.cpp
  src/bullet/ContactHistory.cpp
  src/bullet/Precision.cpp
  src/bullet/multibody/PropagativeMultiBodySolver.cpp
  src/bullet/multibody/MultiBodyGroup.cpp
  src/bullet/multibody/MultiBodyCluster.cpp
  src/bullet/multibody/MultiBodyRestingPass.cpp
  src/bullet/multibody/KickMemory.cpp
)
add_library(propimpact::bullet ALIAS propimpact_bullet)
set_target_properties(propimpact_bullet PROPERTIES EXPORT_NAME bullet POSITION_INDEPENDENT_CODE ON)
target_include_directories(propimpact_bullet PUBLIC
  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(propimpact_bullet PUBLIC propimpact_core PkgConfig::PROPIMPACT_BULLET fmt::fmt)
target_compile_definitions(propimpact_bullet PRIVATE PROPIMPACT_BULLET_SCALAR_SIZE=${PROPIMPACT_BULLET_SCALAR_SIZE})
propimpact_strict_warnings(propimpact_bullet)

install(TARGETS propimpact_bullet EXPORT propimpactTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/propimpact/bullet DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/propimpact)

# The CMake package: find_package(propimpact) gives propimpact::core and
# propimpact::bullet, carrying Bullet's precision.
include(CMakePackageConfigHelpers)
if(PROPIMPACT_DOUBLE_PRECISION)
  set(PROPIMPACT_PRECISION double)
else()
  set(PROPIMPACT_PRECISION single)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/propimpactConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/propimpactConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/propimpact)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/propimpactConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(EXPORT propimpactTargets NAMESPACE propimpact:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/propimpact)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/propimpactConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/propimpactConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/propimpact)
