// Replays a world fuzz finding as the fuzzer steps it, so that a finding's
// test watches the fuzzer's own trajectory.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "../fuzz/WorldFuzzer.h"
#include "BulletTestSupport.h"

namespace propimpact::testing {

/// Builds the fuzzer's world from \p data (no kinematic body, no NaN in the
/// findings that use this; impact friction off, as every finding here was
/// found before the fuzzer decoded it) and steps it with its drop-in, or with stock
/// Bullet's solver alone; after each drop-in substep calls
/// \p afterStep(step, solver). Returns the lowest top dynamic body \p watched reached.
template <class AfterStep>
btScalar lowestTopOfFuzzWorld(const std::uint8_t* data, std::size_t size, std::size_t watched, bool stockBullet,
                              AfterStep afterStep) {
  fuzz::FuzzWorld w;
  fuzz::buildWorld(data, size, w);
  w.solver.settings().impactFriction = false;  // as found: before the fuzzer turned it on
  EXPECT_FALSE(w.hasKinematic);
  EXPECT_EQ(w.poisonStep, -1);
  btSequentialImpulseConstraintSolver stock;
  if (stockBullet) w.world.setConstraintSolver(&stock);
  const btRigidBody& body = *w.dynamic.at(watched);
  btScalar lowest = top(body);
  for (int step = 0; step < w.substeps; ++step) {
    w.world.stepSimulation(w.dt, 1, w.dt);
    lowest = std::min(lowest, top(body));
    if (!stockBullet) afterStep(step, w.solver);
  }
  w.world.setConstraintSolver(&w.solver);  // the world must not keep a solver that dies first
  return lowest;
}

}  // namespace propimpact::testing
