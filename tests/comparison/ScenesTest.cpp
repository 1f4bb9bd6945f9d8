// The shared scenes: the first cradle contact is detected at the chosen depth.
#include <gtest/gtest.h>

#include <cmath>

#include <propimpact/scenes/Scenes.h>
#include <propimpact/scenes/Solvers.h>

namespace propimpact::scenes {
namespace {

/// Relative tolerance on the detected depth (positions are O(1) m, so round-off
/// in x += v·dt is ~1e-16 m against depths down to ~1e-6 m).
// Positions are btScalar: the measured depth carries its round-off, absolute in
// float (about 1e-7 m at positions of a metre, against depths down to 2.5e-6 m).
constexpr double kDepthTolerance = 1e-6;
constexpr double kDepthResolution = sizeof(btScalar) == 8 ? 0 : 4e-7;

/// Deepest A–B overlap (negative distance) among the manifold points, 0 when none.
double abOverlap(const World& world) {
  double deepest = 0;
  for (const ContactSample& c : world.contacts()) {
    const bool ab = (c.bodyA == 0 && c.bodyB == 1) || (c.bodyA == 1 && c.bodyB == 0);
    if (ab) deepest = std::min(deepest, double(c.distance));
  }
  return deepest;
}

TEST(CradleLine, FirstContactDetectedAtDepthPhaseOfOneStep) {
  for (double hz : {60.0, 600.0, 6000.0})
    for (double v0 : {0.3, 3.0})
      for (double phase : {0.1, 0.5, 0.9})
        for (int preSteps : {1, 3}) {
          World world("bullet-si");
          CradleLine scene;
          scene.v0 = v0;
          scene.dt = 1.0 / hz;
          scene.phase = phase;
          scene.preSteps = preSteps;
          const SceneBodies built = build(world, scene);
          ASSERT_EQ(built.firstContactStep, preSteps + 1);
          for (int k = 1; k < built.firstContactStep; ++k) {
            world.step(scene.dt);
            EXPECT_EQ(abOverlap(world), 0.0) << "contact before the predicted step " << k;
          }
          world.step(scene.dt);
          const double expected = -phase * v0 * scene.dt;
          EXPECT_NEAR(abOverlap(world), expected, kDepthTolerance * std::abs(expected) + kDepthResolution)
              << "hz " << hz << " v0 " << v0 << " phase " << phase;
        }
}

TEST(CradleLine, BodiesInLineOrderWithProductRestitution) {
  World world("bullet-si");
  CradleLine scene;
  scene.count = 5;
  scene.incoming = 2;
  scene.cor = 0.49;
  const SceneBodies built = build(world, scene);
  ASSERT_EQ(built.bodies.size(), 5U);
  for (std::size_t i = 1; i < built.bodies.size(); ++i)
    EXPECT_LT(built.bodies[i - 1]->getCenterOfMassPosition().x(), built.bodies[i]->getCenterOfMassPosition().x());
  EXPECT_NEAR(double(built.bodies[0]->getRestitution() * built.bodies[1]->getRestitution()), 0.49, 1e-6);
  EXPECT_GT(built.bodies[1]->getLinearVelocity().x(), 0);
  EXPECT_EQ(built.bodies[2]->getLinearVelocity().x(), 0);
}

TEST(SceneBuilders, EverySolverAndSceneSteps) {
  for (const std::string& name : solverNames()) {
    World world(name);
    build(world, BoxStack{});
    build(world, Chain{});
    for (int k = 0; k < 5; ++k) world.step(1.0 / 60);
    EXPECT_TRUE(std::isfinite(world.kineticEnergy())) << name;
  }
  EXPECT_THROW(World("no-such-solver"), std::invalid_argument);
}

TEST(Chain, CreationOrderDoesNotChangeTheLineOrder) {
  for (auto order : {Chain::Order::Forward, Chain::Order::Reverse, Chain::Order::Shuffled}) {
    World world("bullet-si");
    Chain scene;
    scene.order = order;
    const SceneBodies built = build(world, scene);
    for (std::size_t i = 1; i < built.bodies.size(); ++i)
      EXPECT_LT(built.bodies[i - 1]->getCenterOfMassPosition().x(), built.bodies[i]->getCenterOfMassPosition().x());
  }
}

TEST(BilliardsBreak, TouchingMinimumMakesThreeContacts) {
  World world("bullet-si");
  BilliardsBreak scene;
  scene.theta = touchingTheta(scene);
  EXPECT_NEAR(scene.theta, std::acos(0.5), 1e-12);  // equal radii: π/3
  build(world, scene);
  world.step(scene.dt);
  world.step(scene.dt);
  int ab = 0, withCue = 0;
  for (const ContactSample& c : world.contacts()) {
    if (c.distance > 0) continue;
    const int other = c.bodyA + c.bodyB;
    if (other == 1) ++ab;  // bodies 0 and 1: a and b
    else ++withCue;
  }
  EXPECT_EQ(ab, 1);
  EXPECT_EQ(withCue, 2);
}

}  // namespace
}  // namespace propimpact::scenes
