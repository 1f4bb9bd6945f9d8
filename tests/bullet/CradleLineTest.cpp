// The three-ball line cradle through a real btDiscreteDynamicsWorld (issue 3):
// the propagative outcome at every impact speed, step rate and detection depth,
// against stock Bullet on the same scene.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

using testing::kEnergyTolerance;
using testing::kVelocityTolerance;

struct Outcome {
  std::array<double, 3> velocity{};
  double energyRatio = 0;
};

Outcome runCradle(const std::string& solver, double v0, double hz, double phase, double cor, int count = 3,
                  int incoming = 1, std::vector<double>* all = nullptr) {
  scenes::World world(solver);
  scenes::CradleLine scene;
  scene.count = count;
  scene.incoming = incoming;
  scene.v0 = v0;
  scene.dt = 1 / hz;
  scene.phase = phase;
  scene.cor = cor;
  const scenes::SceneBodies made = scenes::build(world, scene);
  const double before = world.kineticEnergy();
  for (int k = 0; k < made.firstContactStep + 10; ++k) world.step(scene.dt);
  Outcome out;
  for (int i = 0; i < 3; ++i) out.velocity[static_cast<std::size_t>(i)] = made.bodies[static_cast<std::size_t>(i)]->getLinearVelocity().x();
  if (all)
    for (btRigidBody* body : made.bodies) all->push_back(body->getLinearVelocity().x());
  out.energyRatio = world.kineticEnergy() / before;
  return out;
}

struct Expected {
  double cor;
  std::array<double, 3> velocity;  // in units of v0
};

TEST(CradleLine, PropagativeOutcomeAtEveryRateSpeedAndDepth) {
  const Expected cases[] = {{1.0, {0, 0, 1}}, {0.0, {1.0 / 3, 1.0 / 3, 1.0 / 3}}, {0.7, {0.1, 0.1, 0.8}}};
  for (const Expected& expected : cases)
    for (const double hz : {60.0, 600.0, 6000.0})
      for (const double v0 : {0.3, 1.0, 3.0, 10.0})
        for (const double phase : {0.1, 0.5, 0.9}) {
          const Outcome out = runCradle("propagative", v0, hz, phase, expected.cor);
          for (std::size_t i = 0; i < 3; ++i)
            EXPECT_NEAR(out.velocity[i] / v0, expected.velocity[i], kVelocityTolerance)
                << fmt::format("ball {} cor {} hz {} v0 {} phase {}", i, expected.cor, hz, v0, phase);
          const double energy = expected.velocity[0] * expected.velocity[0] + expected.velocity[1] * expected.velocity[1] +
                                expected.velocity[2] * expected.velocity[2];
          EXPECT_NEAR(out.energyRatio, energy, kEnergyTolerance)
              << fmt::format("cor {} hz {} v0 {} phase {}", expected.cor, hz, v0, phase);
        }
}

TEST(CradleLine, StockBulletDiffersOnTheSameScene) {
  double worstVelocityError = 0;
  double worstEnergyGain = 0;
  for (const double hz : {60.0, 600.0, 6000.0})
    for (const double phase : {0.1, 0.5, 0.9}) {
      const Outcome out = runCradle("bullet-si", 1.0, hz, phase, 1.0);
      worstVelocityError = std::max({worstVelocityError, std::abs(out.velocity[0]), std::abs(out.velocity[1]),
                                     std::abs(out.velocity[2] - 1)});
      worstEnergyGain = std::max(worstEnergyGain, out.energyRatio - 1);
    }
  fmt::print("stock bullet-si, COR 1: worst |v - (0,0,v0)|/v0 = {:.3f}, worst energy gain = {:.1f} %\n",
             worstVelocityError, 100 * worstEnergyGain);
  EXPECT_GT(worstVelocityError, 0.1);
  EXPECT_GT(worstEnergyGain, 0.05);
}

TEST(CradleLine, FiveBallsTwoIncomingLastTwoLeave) {
  for (const double hz : {60.0, 600.0})
    for (const double phase : {0.2, 0.8}) {
      std::vector<double> velocities;
      runCradle("propagative", 2.0, hz, phase, 1.0, 5, 2, &velocities);
      ASSERT_EQ(velocities.size(), 5u);
      const double expected[5] = {0, 0, 0, 2, 2};
      for (std::size_t i = 0; i < 5; ++i)
        EXPECT_NEAR(velocities[i], expected[i], 2 * kVelocityTolerance) << fmt::format("ball {} hz {} phase {}", i, hz, phase);
    }
}

TEST(CradleLine, ReportNamesTheImpactAndItsCertificate) {
  scenes::World world("propagative");
  scenes::CradleLine scene;
  const scenes::SceneBodies made = scenes::build(world, scene);
  for (int k = 0; k < made.firstContactStep - 1; ++k) world.step(scene.dt);
  world.step(scene.dt);
  const StepReport& report = testing::propagative(world).lastStepReport();
  ASSERT_EQ(report.clusters.size(), 1u);
  const ClusterReport& cluster = report.clusters.front();
  EXPECT_EQ(cluster.contacts.size(), 2u);
  EXPECT_EQ(cluster.reflections, 2);
  EXPECT_EQ(cluster.certificate, UniquenessCertificate::ThirdOfPi);
  EXPECT_NEAR(cluster.energyAfter, cluster.energyBefore, kEnergyTolerance * cluster.energyBefore);
  double total = 0;
  for (const ContactReport& c : cluster.contacts) {
    EXPECT_GE(c.impulse, 0);
    total += c.impulse;
  }
  // Each reflection carries m·v0 (u: A to B, v: B to C): 2 m v0 in all.
  EXPECT_NEAR(total, 2 * scene.mass * scene.v0, 1e-6);
  for (int k = 0; k < 3; ++k) world.step(scene.dt);
  EXPECT_TRUE(testing::propagative(world).lastStepReport().clusters.empty());
}

}  // namespace
}  // namespace propimpact
