// Five pendulums on point-to-point joints under gravity (issue 3): the impacts
// happen in the metric the joints admit, so the cradle's energy drift over ten
// swings is the joint integrator's own drift (a no-touch control), nothing more.
#include <fmt/core.h>

#include <cmath>
#include <vector>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

constexpr double kHz = 240;
constexpr double kGravity = 9.81;
constexpr double kDriftTolerance = 1e-3;  // of the swing energy, issue 3

struct Swings {
  std::vector<double> turningEnergies;  // mechanical energy at kinetic-energy minima
  double swingEnergy = 0;
  int impacts = 0;
};

Swings swing(const std::string& solver, double spacing, int turningPoints) {
  scenes::World world(solver);
  world.setGravity(btVector3(0, -kGravity, 0));
  scenes::HangingCradle scene;
  scene.spacing = spacing;
  const scenes::SceneBodies made = scenes::build(world, scene);
  const auto mechanical = [&] {
    double potential = 0;
    for (const btRigidBody* body : made.bodies) potential += kGravity * body->getWorldTransform().getOrigin().y() / body->getInvMass();
    return world.kineticEnergy() + potential;
  };
  Swings out;
  out.swingEnergy = scene.mass * kGravity * scene.length * (1 - std::cos(scene.releaseAngle));
  double previousKinetic = world.kineticEnergy();
  double previousMechanical = mechanical();
  bool falling = false;
  for (int k = 0; k < static_cast<int>(60 * kHz) && static_cast<int>(out.turningEnergies.size()) < turningPoints; ++k) {
    world.step(1 / kHz);
    const double kinetic = world.kineticEnergy();
    if (falling && kinetic > previousKinetic) out.turningEnergies.push_back(previousMechanical);
    falling = kinetic < previousKinetic;
    previousKinetic = kinetic;
    previousMechanical = mechanical();
    if (solver == "propagative") out.impacts += static_cast<int>(testing::propagative(world).lastStepReport().clusters.size());
  }
  return out;
}

TEST(HangingCradle, EnergyDriftEqualsTheNoTouchControl) {
  constexpr int kTurningPoints = 10;
  const Swings cradle = swing("propagative", 0, kTurningPoints);
  // Spaced wider than a full swing (2 L sin θ = 3.8 m) so that no ball ever touches another.
  const Swings control = swing("propagative", 4.5, kTurningPoints);
  ASSERT_EQ(cradle.turningEnergies.size(), static_cast<std::size_t>(kTurningPoints));
  ASSERT_EQ(control.turningEnergies.size(), static_cast<std::size_t>(kTurningPoints));
  EXPECT_GE(cradle.impacts, kTurningPoints / 2);
  EXPECT_EQ(control.impacts, 0);
  const double cradleDrift = (cradle.turningEnergies.back() - cradle.turningEnergies.front()) / cradle.swingEnergy;
  const double controlDrift = (control.turningEnergies.back() - control.turningEnergies.front()) / control.swingEnergy;
  fmt::print("hanging cradle, {} turning points: drift {:.2e}, control {:.2e} of the swing energy ({} impacts)\n",
             kTurningPoints, cradleDrift, controlDrift, cradle.impacts);
  EXPECT_LE(std::abs(cradleDrift - controlDrift), kDriftTolerance);
}

TEST(HangingCradle, OnlyTheLastBallSwingsOut) {
  scenes::World world("propagative");
  world.setGravity(btVector3(0, -kGravity, 0));
  scenes::HangingCradle scene;
  const scenes::SceneBodies made = scenes::build(world, scene);
  // Run until the first impact has happened and a quarter period has passed.
  bool impacted = false;
  for (int k = 0; k < static_cast<int>(10 * kHz); ++k) {
    world.step(1 / kHz);
    if (!testing::propagative(world).lastStepReport().clusters.empty()) impacted = true;
    if (impacted && made.bodies.back()->getLinearVelocity().length() < 1e-3 &&
        made.bodies.back()->getWorldTransform().getOrigin().y() > made.bodies[2]->getWorldTransform().getOrigin().y() + 0.1)
      break;
  }
  ASSERT_TRUE(impacted);
  // Resting balls keep at most 1 % of the impact speed: what Bullet's joint and
  // resting-contact correction make of the overlaps the impact left.
  const double impactSpeed = std::sqrt(2 * kGravity * scene.length * (1 - std::cos(scene.releaseAngle)));
  for (std::size_t i = 0; i + 1 < made.bodies.size(); ++i)
    EXPECT_LT(made.bodies[i]->getLinearVelocity().length(), 0.01 * impactSpeed) << "ball " << i;
  const double rise = made.bodies.back()->getWorldTransform().getOrigin().y() - made.bodies[2]->getWorldTransform().getOrigin().y();
  const double expectedRise = scene.length * (1 - std::cos(scene.releaseAngle));
  EXPECT_NEAR(rise / expectedRise, 1, 0.01);
}

}  // namespace
}  // namespace propimpact
