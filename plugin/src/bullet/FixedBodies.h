#pragma once
// A static or kinematic body's motion enters its contacts' relative velocity
// as a constant (the row's bias). A NaN there would reach the impact problem,
// whose rows reject it, and through Bullet's pass the dynamic neighbour; so
// both drop-in solvers name such a body and keep its manifolds out of both
// passes, as they do for a bad dynamic body.

#include <BulletDynamics/Dynamics/btRigidBody.h>

#include "Conversions.h"

namespace propimpact::bullet_detail {

/// Why a static or kinematic body cannot take part, or nullptr (also for dynamic bodies).
inline const char* fixedBodyRejection(const btCollisionObject* object) {
  if (!object->isStaticOrKinematicObject()) return nullptr;
  if (!finite(object->getWorldTransform().getOrigin())) return "non-finite position";
  const btRigidBody* rb = btRigidBody::upcast(object);
  if (rb && (!finite(rb->getLinearVelocity()) || !finite(rb->getAngularVelocity()))) return "non-finite velocity";
  return nullptr;
}

}  // namespace propimpact::bullet_detail
