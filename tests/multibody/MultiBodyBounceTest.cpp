// Where the multibody kick is (issue 13, item 3): btMultiBodyDynamicsWorld
// adds a multibody's gravity before the solver runs, and the solver places
// the impact at mid-step by reconstructing that kick (KickMemory.h). A
// floating-base ball of restitution 1 dropped on static ground must then
// keep its apex bounce after bounce: 50 bounces at 240 Hz, every apex within
// 0.1 % of the drop height. A btRigidBody ball bounces beside it in the same
// world and solver call, where the kick is still Bullet's to add (the rigid
// solver's kick–reflect–kick): its apex must keep too. Stock Bullet's
// multibody solver is printed.
#include <fmt/core.h>

#include <algorithm>
#include <vector>

#include "MultiBodyWorld.h"

namespace propimpact {
namespace {

constexpr double kDt = 1.0 / 240;
constexpr double kRadius = 0.5;
constexpr double kDropHeight = 10;  // centre above the ground's top
constexpr double kApexTolerance = 1e-3;

struct Apexes {
  std::vector<double> multiBody, rigid;  // centre heights at each apex
};

/// Records a height when the vertical velocity turns from up to down.
struct ApexTracker {
  double previous = 0;
  void update(double heightBefore, double heightAfter, double vz, std::vector<double>& out) {
    if (previous > 0 && vz <= 0) out.push_back(std::max(heightBefore, heightAfter));
    previous = vz;
  }
};

Apexes apexes(bool propagative, int bounces, int* clusters) {
  testing::MultiBodyWorld w(propagative, btVector3(0, 0, btScalar(-9.81)));
  w.addGround(0);
  btMultiBody* ball = w.addBall(kRadius, 1, btVector3(0, 0, btScalar(kDropHeight)), btVector3(0, 0, 0));
  btRigidBody* rigid = w.addRigidBall(kRadius, 1, btVector3(3, 0, btScalar(kDropHeight)), btVector3(0, 0, 0));
  Apexes result;
  ApexTracker multiBodyApex, rigidApex;
  const int maxSteps = static_cast<int>(bounces * 3.0 / kDt);
  for (int k = 0; k < maxSteps && static_cast<int>(result.multiBody.size()) < bounces; ++k) {
    const double height = ball->getBasePos().z();
    const double rigidHeight = rigid->getWorldTransform().getOrigin().z();
    w.step(kDt);
    multiBodyApex.update(height, ball->getBasePos().z(), ball->getBaseVel().z(), result.multiBody);
    rigidApex.update(rigidHeight, rigid->getWorldTransform().getOrigin().z(), rigid->getLinearVelocity().z(),
                     result.rigid);
    if (propagative && clusters) *clusters += static_cast<int>(w.solver().lastStepReport().clusters.size());
  }
  return result;
}

double worstApexError(const std::vector<double>& apexes) {
  double worst = 0;
  for (const double apex : apexes) worst = std::max(worst, std::abs(apex / kDropHeight - 1));
  return worst;
}

TEST(MultiBodyBounce, ApexKeptOverFiftyBouncesAt240Hz) {
  int clusters = 0;
  const Apexes ours = apexes(true, 50, &clusters);
  const Apexes stock = apexes(false, 5, nullptr);
  ASSERT_EQ(ours.multiBody.size(), 50u) << "the multibody ball stopped bouncing";
  ASSERT_GE(ours.rigid.size(), 49u) << "the rigid ball stopped bouncing";
  const double worst = worstApexError(ours.multiBody);
  const double worstRigid = worstApexError(ours.rigid);
  fmt::print("multibody ball, 240 Hz: {} impact clusters, apex 1 {:.12f} m, apex 50 {:.12f} m, worst |apex/h0 - 1| "
             "{:.3e} (rigid ball beside it: {:.3e}); stock multibody ball:",
             clusters, ours.multiBody.front(), ours.multiBody.back(), worst, worstRigid);
  for (const double apex : stock.multiBody) fmt::print(" {:.4f}", apex);
  fmt::print("\n");
  EXPECT_GE(clusters, 99);  // both balls, 50 bounces each (the rigid one may not have started its 50th)
  EXPECT_LE(worst, kApexTolerance);
  EXPECT_LE(worstRigid, kApexTolerance);
}

// The Zeno rule with the reconstructed kick: a multibody ball lying on the
// ground is resting contact, not a stream of tiny impacts — no impact cluster
// in 2 s, and it stays on the ground.
TEST(MultiBodyBounce, RestingBallHasNoImpacts) {
  testing::MultiBodyWorld w(true, btVector3(0, 0, btScalar(-9.81)));
  w.addGround(0);
  btMultiBody* ball = w.addBall(kRadius, 1, btVector3(0, 0, btScalar(kRadius)), btVector3(0, 0, 0));
  int clusters = 0;
  double lowest = kRadius, highest = kRadius;
  for (int k = 0; k < 480; ++k) {
    w.step(kDt);
    clusters += static_cast<int>(w.solver().lastStepReport().clusters.size());
    lowest = std::min(lowest, double(ball->getBasePos().z()));
    highest = std::max(highest, double(ball->getBasePos().z()));
  }
  fmt::print("resting multibody ball, 2 s at 240 Hz: {} impact clusters, centre height in [{:.6f}, {:.6f}] m\n",
             clusters, lowest, highest);
  EXPECT_EQ(clusters, 0);
  EXPECT_LT(highest - kRadius, 1e-3);
  EXPECT_GT(lowest - kRadius, -1e-2);
}

// A plastic landing (restitution 0) ends its impact step touching: the
// impact waits for the touch even when the ball would reach the ground early
// in a step, since resolved at that step's start it would hover at its gap,
// held by nothing (MultiBodyGroup.h). Drops from heights that put the
// landing at eight places in a step; the ball's gap at the end of its first
// impact step stays within the solver's touching distance (measured: at most
// −1.0e-3 m, an overlap; resolved early, the ball hovered 8.9e-3 m up).
TEST(MultiBodyBounce, PlasticLandingEndsTouching) {
  double worstGap = -1;
  for (int phase = 0; phase < 8; ++phase) {
    testing::MultiBodyWorld w(true, btVector3(0, 0, btScalar(-9.81)));
    w.addGround(0, 0);
    const double drop = kRadius + 1 + 0.01 * phase;
    btMultiBody* ball = w.addBall(kRadius, 1, btVector3(0, 0, btScalar(drop)), btVector3(0, 0, 0), 0);
    for (int k = 0; k < 240; ++k) {
      w.step(kDt);
      if (w.solver().lastStepReport().clusters.empty()) continue;
      worstGap = std::max(worstGap, double(ball->getBasePos().z()) - kRadius);
      break;
    }
  }
  fmt::print("plastic multibody landings, 8 drop heights at 240 Hz: largest gap after the impact step {:.3e} m\n",
             worstGap);
  EXPECT_GT(worstGap, -1) << "no landing";
  EXPECT_LE(worstGap, SolverSettings{}.touchingDistance);
}

}  // namespace
}  // namespace propimpact
