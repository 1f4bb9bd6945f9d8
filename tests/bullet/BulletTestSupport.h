#pragma once
// Tolerances that follow Bullet's precision, access to our solver in a scene World, and a body's top.
#include <gtest/gtest.h>

#include <BulletCollision/CollisionShapes/btCollisionShape.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <propimpact/bullet/PropagativeImpactSolver.h>
#include <propimpact/scenes/Scenes.h>
#include <propimpact/scenes/World.h>

namespace propimpact::testing {

/// Relative energy tolerance of an elastic impact: round-off of btScalar.
constexpr double kEnergyTolerance = sizeof(btScalar) == 8 ? 1e-9 : 1e-5;
/// Velocity tolerance relative to the impact speed.
constexpr double kVelocityTolerance = sizeof(btScalar) == 8 ? 1e-9 : 1e-5;

inline PropagativeImpactSolver& propagative(scenes::World& world) {
  return dynamic_cast<PropagativeImpactSolver&>(world.solver());
}

/// The highest point of a body's bounding box (y up): entirely under a floor at
/// y = 0 when this is below it.
inline btScalar top(const btRigidBody& body) {
  btVector3 low, high;
  body.getCollisionShape()->getAabb(body.getWorldTransform(), low, high);
  return high.y();
}

}  // namespace propimpact::testing
