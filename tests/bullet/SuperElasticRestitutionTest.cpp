// Bullet multiplies the bodies' restitutions, so two balls of 1.5 give a
// combined coefficient of 2.25. The solver clamps it to [0, 1] and says so
// (StepReport::restitutionClamped, one RestitutionWarning per pair): the
// impact is elastic, never super-elastic, and not silently so.
#include <fmt/format.h>

#include <propimpact/bullet/ReportFormat.h>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

using testing::kEnergyTolerance;
using testing::kVelocityTolerance;

constexpr double kV0 = 2;
constexpr double kDt = 1.0 / 60;

TEST(SuperElasticRestitution, ProductAboveOneIsClampedAndReportedOncePerPair) {
  scenes::World world("propagative");
  scenes::CradleLine scene;
  scene.v0 = kV0;
  scene.dt = kDt;
  const scenes::SceneBodies made = scenes::build(world, scene);
  for (btRigidBody* body : made.bodies) body->setRestitution(btScalar(1.5));
  const double before = world.kineticEnergy();
  std::int64_t clamped = 0;
  std::size_t warnings = 0;
  std::size_t clusters = 0;
  for (int k = 0; k < made.firstContactStep + 10; ++k) {
    world.step(kDt);
    const StepReport& report = testing::propagative(world).lastStepReport();
    clamped += report.restitutionClamped;
    for (const RestitutionWarning& w : report.restitutionWarnings) {
      ++warnings;
      EXPECT_NEAR(w.combined, 2.25, 1e-6);
    }
    for (const ClusterReport& cluster : report.clusters) {
      ++clusters;
      EXPECT_EQ(cluster.restitution, 1);
    }
    if (report.restitutionClamped > 0) {
      EXPECT_NE(fmt::format("{}", report).find("clamped"), std::string::npos);
    }
    EXPECT_LE(world.kineticEnergy(), before * (1 + kEnergyTolerance)) << "step " << k;
  }
  EXPECT_GE(clusters, 1u);
  EXPECT_GE(clamped, 2);         // both contacts of the line's impact
  EXPECT_EQ(warnings, 2u);       // A–B and B–C, once each
  // As with restitution 1: the striker stops, the last ball leaves at v0.
  EXPECT_NEAR(made.bodies[0]->getLinearVelocity().x() / kV0, 0, kVelocityTolerance);
  EXPECT_NEAR(made.bodies[1]->getLinearVelocity().x() / kV0, 0, kVelocityTolerance);
  EXPECT_NEAR(made.bodies[2]->getLinearVelocity().x() / kV0, 1, kVelocityTolerance);
  EXPECT_NEAR(world.kineticEnergy(), before, before * kEnergyTolerance);
}

}  // namespace
}  // namespace propimpact
