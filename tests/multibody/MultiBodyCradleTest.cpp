// Newton's cradle of floating-base multibody balls (issue 13, item 4): three
// equal balls in a line, zero gravity, A hits B at v0 while B touches C. The
// propagative outcome is (0, 0, v0) with energy kept, at 60 and 600 Hz alike;
// stock Bullet's multibody solver is printed for comparison.
#include <fmt/core.h>

#include "MultiBodyWorld.h"

namespace propimpact {
namespace {

struct CradleOutcome {
  double velocity[3] = {0, 0, 0};
  double energy = 0;
  int clusters = 0;
};

/// A is placed so that it is detected half a step deep in its third pass
/// (the first pass of a multibody has no known kick, SPEC §7).
CradleOutcome runCradle(bool propagative, double hz) {
  const double dt = 1 / hz, v0 = 1, r = 0.5;
  testing::MultiBodyWorld w(propagative);
  btMultiBody* balls[3];
  balls[0] = w.addBall(r, 1, btVector3(btScalar(-2 * r - v0 * dt * 1.5), 0, 0), btVector3(btScalar(v0), 0, 0));
  balls[1] = w.addBall(r, 1, btVector3(0, 0, 0), btVector3(0, 0, 0));
  balls[2] = w.addBall(r, 1, btVector3(btScalar(2 * r), 0, 0), btVector3(0, 0, 0));
  CradleOutcome out;
  for (int k = 0; k < 6; ++k) {
    w.step(dt);
    if (propagative) out.clusters += static_cast<int>(w.solver().lastStepReport().clusters.size());
  }
  for (int i = 0; i < 3; ++i) {
    out.velocity[i] = balls[i]->getBaseVel().x();
    out.energy += testing::ballEnergy(*balls[i]);
  }
  return out;
}

class MultiBodyCradle : public ::testing::TestWithParam<double> {};

TEST_P(MultiBodyCradle, EndsAtZeroZeroV0WithEnergyKept) {
  const double hz = GetParam();
  const CradleOutcome ours = runCradle(true, hz);
  const CradleOutcome stock = runCradle(false, hz);
  fmt::print("multibody cradle {} Hz: ours ({:.12f}, {:.12f}, {:.12f}) E {:.12f}; stock ({:.4f}, {:.4f}, {:.4f}) E {:.4f}\n",
             hz, ours.velocity[0], ours.velocity[1], ours.velocity[2], ours.energy, stock.velocity[0],
             stock.velocity[1], stock.velocity[2], stock.energy);
  EXPECT_EQ(ours.clusters, 1);
  EXPECT_NEAR(ours.velocity[0], 0, testing::kExact);
  EXPECT_NEAR(ours.velocity[1], 0, testing::kExact);
  EXPECT_NEAR(ours.velocity[2], 1, testing::kExact);
  EXPECT_NEAR(ours.energy, 0.5, 0.5 * testing::kExact);
}

INSTANTIATE_TEST_SUITE_P(Rates, MultiBodyCradle, ::testing::Values(60.0, 600.0));

// A floating-base multibody ball hits a btRigidBody ball of twice its mass:
// one elastic impact across the two kinds of body, v = (−1/3, 2/3)·v0.
TEST(MultiBodyHitsRigidBody, ElasticExchangeAcrossBodyKinds) {
  const double dt = 1.0 / 240, v0 = 1, r = 0.5;
  testing::MultiBodyWorld w(true);
  btMultiBody* ball = w.addBall(r, 1, btVector3(btScalar(-2 * r - v0 * dt * 1.5), 0, 0), btVector3(btScalar(v0), 0, 0));
  btRigidBody* target = w.addRigidBall(r, 2, btVector3(0, 0, 0), btVector3(0, 0, 0));
  int clusters = 0;
  for (int k = 0; k < 6; ++k) {
    w.step(dt);
    clusters += static_cast<int>(w.solver().lastStepReport().clusters.size());
  }
  const double vb = ball->getBaseVel().x(), vr = target->getLinearVelocity().x();
  fmt::print("multibody -> rigid (1 kg -> 2 kg): {:.12f}, {:.12f}\n", vb, vr);
  EXPECT_EQ(clusters, 1);
  EXPECT_NEAR(vb, -v0 / 3, testing::kExact);
  EXPECT_NEAR(vr, 2 * v0 / 3, testing::kExact);
  EXPECT_NEAR(vb + 2 * vr, v0, testing::kExact);                        // momentum
  EXPECT_NEAR(0.5 * vb * vb + vr * vr, 0.5 * v0 * v0, testing::kExact);  // energy
}

}  // namespace
}  // namespace propimpact
