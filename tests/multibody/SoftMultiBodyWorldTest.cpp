// Other Bullet worlds (issue 13, item 6): btSoftMultiBodyDynamicsWorld takes
// a btMultiBodyConstraintSolver, so the multibody drop-in goes there as in
// btMultiBodyDynamicsWorld. Its step is the multibody world's step followed
// by the soft-body stage, so the kick the solver reconstructs (KickMemory.h)
// is unchanged. Covered here, with a rope in the same world that touches no
// impacting body: a cradle of floating-base multibody balls stays exact at
// 60 and 600 Hz, and a multibody ball and a btRigidBody ball bouncing under
// gravity keep their apexes. Not covered: a soft body touching or anchored
// to an impacting multibody (Bullet's soft stage then changes the outcome
// after the impact, as SoftRigidWorldTest.cpp shows for rigid bodies).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "MultiBodyWorld.h"

namespace propimpact {
namespace {

using testing::MultiBodyWorld;
using testing::WorldKind;

constexpr double kRadius = 0.5;
/// The multibody bounce test's tolerance on every apex (MultiBodyBounceTest.cpp).
constexpr double kApexTolerance = 1e-3;

class SoftMultiBodyCradle : public ::testing::TestWithParam<double> {};

TEST_P(SoftMultiBodyCradle, EndsAtZeroZeroV0BesideARope) {
  const double dt = 1 / GetParam(), v0 = 1;
  MultiBodyWorld w(true, btVector3(0, 0, 0), WorldKind::SoftMultiBody);
  // A is detected half a step deep in its third pass (a multibody's first pass has no known kick).
  btMultiBody* balls[3] = {
      w.addBall(kRadius, 1, btVector3(btScalar(-2 * kRadius - v0 * dt * 1.5), 0, 0), btVector3(btScalar(v0), 0, 0)),
      w.addBall(kRadius, 1, btVector3(0, 0, 0), btVector3(0, 0, 0)),
      w.addBall(kRadius, 1, btVector3(btScalar(2 * kRadius), 0, 0), btVector3(0, 0, 0))};
  ASSERT_NE(w.addRope(btVector3(0, 10, 5), btVector3(3, 10, 5), 0), nullptr);  // far away: never touches
  int clusters = 0;
  for (int k = 0; k < 6; ++k) {
    w.step(dt);
    clusters += static_cast<int>(w.solver().lastStepReport().clusters.size());
  }
  double energy = 0;
  for (const btMultiBody* ball : balls) energy += testing::ballEnergy(*ball);
  fmt::print("soft multibody world, cradle at {} Hz: ({:.12f}, {:.12f}, {:.12f}), E {:.12f}\n", GetParam(),
             double(balls[0]->getBaseVel().x()), double(balls[1]->getBaseVel().x()),
             double(balls[2]->getBaseVel().x()), energy);
  EXPECT_EQ(clusters, 1);
  const double expected[3] = {0, 0, v0};
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(balls[i]->getBaseVel().x(), expected[i], testing::kExact) << "ball " << i;
  EXPECT_NEAR(energy, 0.5 * v0 * v0, 0.5 * testing::kExact);
}

INSTANTIATE_TEST_SUITE_P(Rates, SoftMultiBodyCradle, ::testing::Values(60.0, 600.0));

TEST(SoftMultiBodyWorld, BallsKeepTheirApexBesideAHangingRope) {
  constexpr double dt = 1.0 / 240, drop = 2;
  constexpr int bounces = 5;
  MultiBodyWorld w(true, btVector3(0, 0, btScalar(-9.81)), WorldKind::SoftMultiBody);
  w.addGround(0);
  btMultiBody* ball = w.addBall(kRadius, 1, btVector3(0, 0, btScalar(drop)), btVector3(0, 0, 0));
  btRigidBody* rigid = w.addRigidBall(kRadius, 1, btVector3(3, 0, btScalar(drop)), btVector3(0, 0, 0));
  btSoftBody* rope = w.addRope(btVector3(0, 10, 4), btVector3(3, 10, 4), 1 + 2);  // pinned at both ends, far away
  ASSERT_NE(rope, nullptr);
  std::vector<double> apexes[2];
  double previous[2] = {0, 0};
  const auto fewest = [&] { return std::min(apexes[0].size(), apexes[1].size()); };
  for (int k = 0; k < static_cast<int>(bounces * 1.5 / dt) && fewest() < std::size_t(bounces); ++k) {
    const double before[2] = {ball->getBasePos().z(), rigid->getWorldTransform().getOrigin().z()};
    w.step(dt);
    const double after[2] = {ball->getBasePos().z(), rigid->getWorldTransform().getOrigin().z()};
    const double vz[2] = {ball->getBaseVel().z(), rigid->getLinearVelocity().z()};
    for (int i = 0; i < 2; ++i) {
      if (previous[i] > 0 && vz[i] <= 0) apexes[i].push_back(std::max(before[i], after[i]));
      previous[i] = vz[i];
    }
  }
  ASSERT_GE(apexes[0].size(), std::size_t(bounces));
  ASSERT_GE(apexes[1].size(), std::size_t(bounces));
  double worst[2] = {0, 0};
  for (int i = 0; i < 2; ++i)
    for (const double apex : apexes[i]) worst[i] = std::max(worst[i], std::abs(apex / drop - 1));
  const double sag = 4 - double(rope->m_nodes[rope->m_nodes.size() / 2].m_x.z());
  fmt::print("soft multibody world, {} bounces from {} m at 240 Hz: worst apex error multibody {:.3e}, rigid {:.3e}; "
             "the rope sags {:.3f} m\n",
             bounces, drop, worst[0], worst[1], sag);
  EXPECT_GT(sag, 0) << "the soft stage did not run";
  EXPECT_LE(worst[0], kApexTolerance);
  EXPECT_LE(worst[1], kApexTolerance);
}

}  // namespace
}  // namespace propimpact
