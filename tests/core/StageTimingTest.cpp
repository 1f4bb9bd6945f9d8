// ResolveOptions::timeStages reads clocks and nothing else: over random rigid
// chains and clusters (elastic, mixed and plastic restitution, so every stage
// runs), the timed resolution is bit for bit the untimed one, an untimed
// result reports no time, and a timed one no negative time.
#include <gtest/gtest.h>

#include <random>

#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

// Balls of random mass and size in a line along x, the first striking the rest.
ImpactProblem randomChain(std::mt19937_64& rng, int balls, Scalar restitution) {
  std::uniform_real_distribution<Scalar> unit(0.5, 2.0);
  ImpactProblem problem;
  for (int k = 0; k < balls; ++k) {
    RigidBodyInput body;
    body.inverseMass = unit(rng);
    body.inverseInertiaWorld = Matrix3::Identity() * unit(rng) * 10;
    body.linearVelocity = k == 0 ? Vector3(1, 0.1 * unit(rng), 0) : Vector3::Zero();
    problem.addRigidBody(body);
  }
  const Vector3 normal = Vector3::UnitX();
  for (int k = 0; k + 1 < balls; ++k) {
    const Scalar r = 0.5 * unit(rng);
    const int i = problem.addRigidContact(k + 1, k, normal, -r * normal, r * normal, restitution);
    problem.setSeed(i, k == 0);
  }
  return problem;
}

TEST(StageTiming, ChangesNothingAndIsNeverNegative) {
  std::mt19937_64 rng(20261124);
  ImpactResolver resolver;
  for (int trial = 0; trial < 60; ++trial) {
    const Scalar restitution = trial % 3 == 0 ? 1.0 : (trial % 3 == 1 ? 0.5 : 0.0);
    const ImpactProblem problem = randomChain(rng, 2 + trial % 20, restitution);
    ResolveOptions options;
    options.growFromSeeds = trial % 2 == 0;
    options.computeXi = trial % 5 == 0;
    const ImpactResult plain = resolver.resolve(problem, options);
    options.timeStages = true;
    const ImpactResult timed = resolver.resolve(problem, options);
    ASSERT_EQ(plain.velocity.size(), timed.velocity.size());
    for (Index k = 0; k < plain.velocity.size(); ++k) EXPECT_EQ(plain.velocity[k], timed.velocity[k]) << "trial " << trial;
    for (Index k = 0; k < plain.impulses.size(); ++k) EXPECT_EQ(plain.impulses[k], timed.impulses[k]) << "trial " << trial;
    EXPECT_EQ(plain.reflections, timed.reflections);
    EXPECT_EQ(plain.stageSeconds.prepare + plain.stageSeconds.propagate + plain.stageSeconds.plastic +
                  plain.stageSeconds.analysis,
              0.0);
    for (const double stage : {timed.stageSeconds.prepare, timed.stageSeconds.propagate, timed.stageSeconds.plastic,
                               timed.stageSeconds.analysis})
      EXPECT_GE(stage, 0.0) << "trial " << trial;
  }
}

}  // namespace
}  // namespace propimpact
