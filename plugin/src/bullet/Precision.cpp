#include "propimpact/bullet/Precision.h"

static_assert(sizeof(btScalar) == PROPIMPACT_BULLET_SCALAR_SIZE,
              "btScalar does not match the Bullet build CMake selected (bullet vs bullet-float64)");

namespace propimpact {

std::size_t libraryBulletScalarSize() noexcept { return sizeof(btScalar); }

}  // namespace propimpact
