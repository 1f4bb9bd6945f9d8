// A cluster larger than any the solver has resolved allocates nothing when
// its island is no larger than one seen before (issue 12, item 5): every
// buffer a cluster can need is sized by the island at the start of
// solveGroup, the bound a cluster of that island cannot exceed.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include <propimpact/scenes/World.h>

#include "AllocationCounting.h"

namespace propimpact {
namespace {

using namespace alloc_counting;

// Zero gravity. Warm-up: two balls elsewhere meet (a one-contact cluster, so
// that what every resolve sets up once exists), while a line of 40 touching
// balls rests with a striker 2 cm before its first ball. Counted: the step in
// which the striker, now moving, hits the line — a 40-contact cluster, 40
// times larger than any before, in an island the solver has already seen.
// Restitution 1 takes the propagation alone; 0.5 the plastic outcome (an
// exact solve of 40 rows) and the blend as well. Friction 0.5 (0.25
// combined) takes the impact friction stage (on by default) through its
// rows, cones and sweeps too.
class LargerThanEverCluster : public ::testing::TestWithParam<std::tuple<double, double>> {};

TEST_P(LargerThanEverCluster, InAKnownIslandAllocatesNothing) {
  const auto restitution = btScalar(std::sqrt(std::get<0>(GetParam())));  // Bullet multiplies the two bodies'
  const auto friction = btScalar(std::get<1>(GetParam()));
  auto owner = std::make_unique<CountingSolver>();
  CountingSolver& solver = *owner;
  solver.settings().keepReport = false;
  ASSERT_TRUE(solver.settings().impactFriction);
  scenes::World world(std::move(owner));
  constexpr double kDt = 1.0 / 60;
  constexpr btScalar kRadius = 0.5;
  constexpr int kLine = 40;
  scenes::BodySpec ball;
  ball.restitution = restitution;
  ball.friction = friction;
  btRigidBody* last = nullptr;
  for (int k = 0; k < kLine; ++k) {
    ball.position = btVector3(btScalar(2 * kRadius * k), 0, 0);
    last = world.addSphere(kRadius, ball);
  }
  ball.position = btVector3(-2 * kRadius - btScalar(0.02), 0, 0);
  btRigidBody* striker = world.addSphere(kRadius, ball);
  scenes::BodySpec pairBall = ball;
  pairBall.position = btVector3(0, 10, 0);
  pairBall.linearVelocity = btVector3(1, 0, 0);
  world.addSphere(kRadius, pairBall);
  pairBall.position = btVector3(2 * kRadius + btScalar(0.01), 10, 0);
  pairBall.linearVelocity = btVector3(0, 0, 0);
  btRigidBody* pairEnd = world.addSphere(kRadius, pairBall);
  for (int step = 0; step < 4; ++step) world.step(kDt);
  ASSERT_GT(pairEnd->getLinearVelocity().x(), 0.5) << "the warm-up pair did not meet";
  ASSERT_EQ(last->getLinearVelocity().length(), 0) << "the line moved before the counted step";
  striker->setLinearVelocity(btVector3(3, 0, 0));
  resetCounts();
  solver.active = true;
  world.step(kDt);
  solver.active = false;
  EXPECT_GT(last->getLinearVelocity().x(), 0.05) << "the striker's impact did not reach the end of the line";
  EXPECT_EQ(newCalls(), 0) << "operator new calls inside our solveGroup";
  EXPECT_EQ(mallocCalls(), 0) << "malloc-family calls inside our solveGroup";
}

INSTANTIATE_TEST_SUITE_P(Allocation, LargerThanEverCluster,
                         ::testing::Combine(::testing::Values(1.0, 0.5), ::testing::Values(0.0, 0.5)));

}  // namespace
}  // namespace propimpact
