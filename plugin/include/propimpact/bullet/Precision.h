#pragma once
/// \file Precision.h
/// Guards against mixing Bullet's single- and double-precision builds. Only
/// functions taking btScalar by value differ in their mangled names, so a
/// plugin built for one precision can link into an application of the other
/// and corrupt memory silently (SPEC §7). The CMake package refuses a mismatch
/// at configure time; this catches one that slipped through at run time.

#include <LinearMath/btScalar.h>

#include <cstddef>

namespace propimpact {

/// sizeof(btScalar) the library was compiled with.
std::size_t libraryBulletScalarSize() noexcept;

/// True when the caller's btScalar matches the library's. Inline so that it is
/// compiled with the caller's flags.
inline bool bulletPrecisionMatches() noexcept { return sizeof(btScalar) == libraryBulletScalarSize(); }

}  // namespace propimpact
