#pragma once
// Which bodies cannot take part in an impact, and why: the same tests for
// both drop-in solvers. A bad dynamic body is left to Bullet and named in the
// report. A static or kinematic body's motion enters its contacts' relative
// velocity as a constant (the row's bias): a NaN there would reach the impact
// problem, whose rows reject it, and through Bullet's pass the dynamic
// neighbour; so such a body is named too and its manifolds are kept out of
// both passes, as a bad dynamic body's are.

#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <cmath>

#include "Conversions.h"

namespace propimpact::bullet_detail {

/// Why a dynamic rigid body cannot take part (non-finite state or inertia, no positive finite mass), or nullptr.
inline const char* rigidBodyRejection(const btRigidBody& rb) {
  if (!finite(rb.getLinearVelocity()) || !finite(rb.getAngularVelocity())) return "non-finite velocity";
  if (!finite(rb.getWorldTransform().getOrigin())) return "non-finite position";
  if (!(rb.getInvMass() > 0) || !std::isfinite(rb.getInvMass())) return "zero, negative or non-finite mass";
  const btMatrix3x3& inertia = rb.getInvInertiaTensorWorld();
  if (!finite(inertia[0]) || !finite(inertia[1]) || !finite(inertia[2])) return "non-finite inertia";
  return nullptr;
}

/// Why a static or kinematic body cannot take part, or nullptr (also for dynamic bodies).
inline const char* fixedBodyRejection(const btCollisionObject* object) {
  if (!object->isStaticOrKinematicObject()) return nullptr;
  if (!finite(object->getWorldTransform().getOrigin())) return "non-finite position";
  const btRigidBody* rb = btRigidBody::upcast(object);
  if (rb && (!finite(rb->getLinearVelocity()) || !finite(rb->getAngularVelocity()))) return "non-finite velocity";
  return nullptr;
}

}  // namespace propimpact::bullet_detail
