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
pkg_check_modules(BULLET REQUIRED IMPORTED_TARGET GLOBAL ${PROPIMPACT_BULLET_PC})

add_library(propimpact_bullet
  src/bullet/PropagativeImpactSolver.cpp
  src/bullet/Precision.cpp
)
add_library(propimpact::bullet ALIAS propimpact_bullet)
set_target_properties(propimpact_bullet PROPERTIES EXPORT_NAME bullet POSITION_INDEPENDENT_CODE ON)
target_include_directories(propimpact_bullet PUBLIC
  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(propimpact_bullet PUBLIC propimpact_core PkgConfig::BULLET fmt::fmt)
target_compile_definitions(propimpact_bullet PRIVATE PROPIMPACT_BULLET_SCALAR_SIZE=${PROPIMPACT_BULLET_SCALAR_SIZE})
propimpact_strict_warnings(propimpact_bullet)

install(TARGETS propimpact_bullet EXPORT propimpactTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/propimpact/bullet DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/propimpact)
