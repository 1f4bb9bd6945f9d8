// Newton's cradle of floating-base multibody balls (issue 13, item 4): three
// equal balls in a line, zero gravity, A hits B at v0 while B touches C. The
// propagative outcome is (0, 0, v0) with energy kept, at 60 and 600 Hz alike;
// stock Bullet's multibody solver is printed for comparison.
#include <fmt/core.h>

#include <cmath>

#include <propimpact/core/Resolve.h>

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
CradleOutcome runCradle(bool propagative, double hz, double v0 = 1, double cor = 1, int steps = 6) {
  const double dt = 1 / hz, r = 0.5, e = std::sqrt(cor);  // Bullet multiplies the two balls' coefficients
  testing::MultiBodyWorld w(propagative);
  btMultiBody* balls[3];
  balls[0] = w.addBall(r, 1, btVector3(btScalar(-2 * r - v0 * dt * 1.5), 0, 0), btVector3(btScalar(v0), 0, 0), e);
  balls[1] = w.addBall(r, 1, btVector3(0, 0, 0), btVector3(0, 0, 0), e);
  balls[2] = w.addBall(r, 1, btVector3(btScalar(2 * r), 0, 0), btVector3(0, 0, 0), e);
  CradleOutcome out;
  for (int k = 0; k < steps; ++k) {
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

// The other way in: a world built with Bullet's solver, ours swapped in with
// setMultiBodyConstraintSolver (setConstraintSolver would never reach the
// island callback).
TEST(MultiBodyCradleSetSolver, SwappedInBySetMultiBodyConstraintSolver) {
  const double dt = 1.0 / 60, v0 = 1, r = 0.5;
  PropagativeMultiBodySolver ours;  // outlives the world that uses it
  testing::MultiBodyWorld w(false);
  w.world->setMultiBodyConstraintSolver(&ours);
  btMultiBody* a = w.addBall(r, 1, btVector3(btScalar(-2 * r - v0 * dt * 1.5), 0, 0), btVector3(btScalar(v0), 0, 0));
  btMultiBody* b = w.addBall(r, 1, btVector3(0, 0, 0), btVector3(0, 0, 0));
  btMultiBody* c = w.addBall(r, 1, btVector3(btScalar(2 * r), 0, 0), btVector3(0, 0, 0));
  std::size_t clusters = 0;
  for (int k = 0; k < 6; ++k) {
    w.step(dt);
    clusters += ours.lastStepReport().clusters.size();
  }
  EXPECT_EQ(clusters, 1u);
  EXPECT_NEAR(a->getBaseVel().x(), 0, testing::kExact);
  EXPECT_NEAR(b->getBaseVel().x(), 0, testing::kExact);
  EXPECT_NEAR(c->getBaseVel().x(), v0, testing::kExact);
}

// Inelastic cradles end at the core's outcome and stay there: the impact
// contacts that remain touching keep their overlap in Bullet's pass, step
// after step. (Measured before the kick's round-off filter, KickMemory.cpp:
// in single precision Bullet's pass pushed the overlap out the next step at
// these speeds, up to 0.13 v0 off.)
TEST(MultiBodyCradleInelastic, EndsAtTheCoresOutcomeAndStaysThere) {
  const Eigen::MatrixXd M = Eigen::MatrixXd::Identity(3, 3);
  Eigen::MatrixXd J(2, 3);
  J << -1, 1, 0, 0, -1, 1;
  for (const double cor : {0.0, 0.7}) {
    for (const double v0 : {0.231012970008316, 1.0, 1.2328467394420661}) {
      Eigen::VectorXd v(3);
      v << v0, 0, 0;
      const ImpactResult ideal = resolveDense(M, v, J, cor);
      const CradleOutcome ours = runCradle(true, 60, v0, cor, 30);
      for (int i = 0; i < 3; ++i)
        EXPECT_NEAR(ours.velocity[i], ideal.velocity[i], testing::kExact * v0) << "cor " << cor << " v0 " << v0 << " ball " << i;
    }
  }
}

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
