// One impact cluster whose contacts carry different combined coefficients
// (issue 3: mixed COR in one cluster). Three equal balls on a line, B–C
// touching, A hits B; each ball has its own restitution, so Bullet's combined
// (product) coefficient differs between A–B and B–C. The core uses one R per
// cluster, the average of the contacts' coefficients weighted by their elastic
// impulses (ImpactResolver.h); on this line both elastic impulses are m·v0, so
// R is the plain mean, and the outcome is the uniform blend at that R:
// v = (1−R, 1−R, 1+2R)·v0/3.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

using testing::kEnergyTolerance;
using testing::kVelocityTolerance;

constexpr double kV0 = 2;
constexpr double kDt = 1.0 / 60;

struct Outcome {
  std::array<double, 3> velocity{};  // in units of v0
  double energyRatio = 0;
  double restitution = -1;           // the cluster report's R
  std::array<double, 2> combined{};  // m_combinedRestitution seen by the report: A–B, B–C
  std::size_t clusters = 0;
};

// Runs the line with per-body restitutions \p body (A, B, C) until well after the impact.
Outcome run(const std::array<double, 3>& body, double phase = 0.5) {
  scenes::World world("propagative");
  scenes::CradleLine scene;
  scene.v0 = kV0;
  scene.dt = kDt;
  scene.phase = phase;
  const scenes::SceneBodies made = scenes::build(world, scene);
  // Bullet multiplies the two bodies' restitutions when it creates a manifold
  // point, so overriding them before the first contact sets each pair's COR.
  for (std::size_t i = 0; i < 3; ++i) made.bodies[i]->setRestitution(btScalar(body[i]));
  const double before = world.kineticEnergy();
  Outcome out;
  for (int k = 0; k < made.firstContactStep + 10; ++k) {
    world.step(kDt);
    const StepReport& report = testing::propagative(world).lastStepReport();
    for (const ClusterReport& cluster : report.clusters) {
      ++out.clusters;
      out.restitution = cluster.restitution;
      for (const ContactReport& contact : cluster.contacts) {
        // A–B is the contact whose bodies include A (index 0).
        const bool ab = contact.bodyA == made.bodies[0] || contact.bodyB == made.bodies[0];
        out.combined[ab ? 0 : 1] = contact.restitution;
      }
    }
    // Energy is never gained, at any step.
    EXPECT_LE(world.kineticEnergy(), before * (1 + kEnergyTolerance)) << "step " << k;
  }
  for (std::size_t i = 0; i < 3; ++i) out.velocity[i] = made.bodies[i]->getLinearVelocity().x() / kV0;
  out.energyRatio = world.kineticEnergy() / before;
  return out;
}

struct Case {
  std::array<double, 3> body;  // per-body restitution of A, B, C
};

TEST(MixedRestitution, OneClusterBlendsBetweenItsCoefficients) {
  const Case cases[] = {{{1.0, 1.0, 0.5}}, {{1.0, 0.9, 0.5}}, {{0.3, 1.0, 1.0}}, {{1.0, 1.0, 0.0}},
                        {{0.0, 1.0, 1.0}}, {{0.8, 0.6, 0.9}}};
  for (const Case& c : cases) {
    const double ab = c.body[0] * c.body[1];
    const double bc = c.body[1] * c.body[2];
    const std::string label = fmt::format("restitutions ({}, {}, {}): A-B {:.3f}, B-C {:.3f}", c.body[0], c.body[1],
                                          c.body[2], ab, bc);
    const Outcome out = run(c.body);
    ASSERT_EQ(out.clusters, 1u) << label;
    // The report carries Bullet's combined (product) coefficient per contact.
    const double combinedTolerance = sizeof(btScalar) == 8 ? 1e-12 : 1e-6;
    EXPECT_NEAR(out.combined[0], ab, combinedTolerance) << label;
    EXPECT_NEAR(out.combined[1], bc, combinedTolerance) << label;
    // The cluster's R lies between its contacts' coefficients.
    EXPECT_GE(out.restitution, std::min(ab, bc) - combinedTolerance) << label;
    EXPECT_LE(out.restitution, std::max(ab, bc) + combinedTolerance) << label;
    // Equal elastic impulses: R is the mean (the documented weighting).
    const double r = 0.5 * (ab + bc);
    EXPECT_NEAR(out.restitution, r, combinedTolerance) << label;
    const std::array<double, 3> expected = {(1 - r) / 3, (1 - r) / 3, (1 + 2 * r) / 3};
    for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(out.velocity[i], expected[i], kVelocityTolerance) << label << ", ball " << i;
    // Feasible afterwards: the balls separate or move together, none approaches another.
    EXPECT_LE(out.velocity[0], out.velocity[1] + kVelocityTolerance) << label;
    EXPECT_LE(out.velocity[1], out.velocity[2] + kVelocityTolerance) << label;
    // No energy gained; exactly the energy of the blend.
    const double energy = expected[0] * expected[0] + expected[1] * expected[1] + expected[2] * expected[2];
    EXPECT_LE(out.energyRatio, 1 + kEnergyTolerance) << label;
    EXPECT_NEAR(out.energyRatio, energy, kEnergyTolerance) << label;
    fmt::print("{}: R {:.4f}, v/v0 = ({:+.4f}, {:+.4f}, {:+.4f}), energy ratio {:.6f}\n", label, out.restitution,
               out.velocity[0], out.velocity[1], out.velocity[2], out.energyRatio);
  }
}

TEST(MixedRestitution, EqualCoefficientsReduceToTheUniformResult) {
  // Two ways of giving both contacts COR 0.7: the scene's sqrt(0.7) on every
  // body, and (0.7, 1, 0.7) — different bodies, equal combined coefficients.
  const double root = std::sqrt(0.7);
  for (const std::array<double, 3>& body : {std::array<double, 3>{root, root, root}, std::array<double, 3>{0.7, 1.0, 0.7}})
    for (const double phase : {0.1, 0.5, 0.9}) {
      const Outcome out = run(body, phase);
      ASSERT_EQ(out.clusters, 1u);
      const double tolerance = sizeof(btScalar) == 8 ? 1e-12 : 1e-6;
      EXPECT_NEAR(out.restitution, 0.7, tolerance);
      const std::array<double, 3> expected = {0.1, 0.1, 0.8};
      for (std::size_t i = 0; i < 3; ++i)
        EXPECT_NEAR(out.velocity[i], expected[i], kVelocityTolerance)
            << fmt::format("bodies ({:.4f}, {:.4f}, {:.4f}) phase {} ball {}", body[0], body[1], body[2], phase, i);
      EXPECT_NEAR(out.energyRatio, 0.66, kEnergyTolerance);
    }
}

}  // namespace
}  // namespace propimpact
