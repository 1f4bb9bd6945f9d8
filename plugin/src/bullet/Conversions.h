#pragma once
// btScalar ↔ the core's double, at the adapter's boundary.

#include <LinearMath/btMatrix3x3.h>
#include <LinearMath/btVector3.h>

#include <cmath>

#include "propimpact/core/Types.h"

namespace propimpact::bullet_detail {

inline Vector3 toEigen(const btVector3& v) { return Vector3(v.x(), v.y(), v.z()); }
inline btVector3 toBullet(const Vector3& v) {
  return btVector3(static_cast<btScalar>(v.x()), static_cast<btScalar>(v.y()), static_cast<btScalar>(v.z()));
}
inline Matrix3 toEigen(const btMatrix3x3& m) {
  Matrix3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r(i, j) = m[i][j];
  return r;
}
inline bool finite(const btVector3& v) { return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z()); }
/// Every component 0 or 1 (a factor that selects axes).
inline bool binary(const btVector3& v) {
  for (int k = 0; k < 3; ++k)
    if (!(v[k] == 0 || v[k] == 1)) return false;
  return true;
}

}  // namespace propimpact::bullet_detail
