#pragma once
// Tolerances that follow Bullet's precision, and access to our solver in a scene World.
#include <gtest/gtest.h>

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

}  // namespace propimpact::testing
