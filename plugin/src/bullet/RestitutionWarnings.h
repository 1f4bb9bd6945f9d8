#pragma once
// Bullet's combined restitution is a product and may exceed 1 (pinball
// bumpers); the core's coefficient is in [0, 1] (SPEC §5), so it is clamped
// where the cluster problem is built. Both drop-in solvers say so the same
// way: a counter per clamped impact contact, and one warning per body pair
// for the solver's lifetime.

#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>

#include <utility>
#include <vector>

#include "propimpact/bullet/StepReport.h"

namespace propimpact::bullet_detail {

/// The body pairs already warned about, and the noting of one contact.
class RestitutionWarnings {
 public:
  /// Counts \p point in \p report if its combined restitution is outside
  /// [0, 1], and warns once for the pair (\p objectA, \p objectB).
  void note(const btManifoldPoint& point, const btCollisionObject* objectA, const btCollisionObject* objectB,
            StepReport& report);

 private:
  std::vector<std::pair<const void*, const void*>> m_warnedPairs;  // sorted
};

}  // namespace propimpact::bullet_detail
