// Bad input through a btMultiBodyDynamicsWorld (issue 13, item 4): a
// multibody with a NaN joint velocity, or with a zero-mass link, is named in
// the report with its reason and left to Bullet (no impact treatment, its
// contacts kept out of both passes as the rigid solver does, so the NaN does
// not reach its neighbour); stepSimulation goes on, its neighbour stays
// finite, and a separate cradle of multibody balls in the same solver call
// still ends at (0, 0, v0). (Measured with Bullet's stock multibody solver
// in the same scene: the neighbour's joint velocity and angle become NaN.)
//
// No exception is thrown inside stepSimulation (issue 12's rule, both
// solvers): every test here counts the exceptions thrown while it steps,
// caught inside the library or not (ThrowCounter.h). Settings the core would
// refuse, a NaN restitution and a contact row no dof moves are reported or
// left to Bullet's pass the same way.
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "MultiBodyWorld.h"
#include "ThrowCounter.h"

namespace propimpact {
namespace {

constexpr double kDt = 1.0 / 240;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool finiteVelocity(const btMultiBody& body) {
  for (int k = 0; k < 6 + body.getNumDofs(); ++k)
    if (!std::isfinite(body.getVelocityVector()[k])) return false;
  return true;
}

struct Fixture {
  testing::MultiBodyWorld w{true, btVector3(0, 0, btScalar(-9.81))};
  btMultiBody* balls[3] = {nullptr, nullptr, nullptr};
  btMultiBody* bad = nullptr;
  btMultiBody* neighbour = nullptr;

  /// A cradle of floating balls far above (in free fall together, so gravity
  /// does not change their relative motion), and two touching pendulums.
  explicit Fixture(double badLinkMass = 1) {
    const double r = 0.5, v0 = 1;
    balls[0] = w.addBall(r, 1, btVector3(btScalar(-2 * r - v0 * kDt * 1.5), 0, 50), btVector3(btScalar(v0), 0, 0));
    balls[1] = w.addBall(r, 1, btVector3(0, 0, 50), btVector3(0, 0, 0));
    balls[2] = w.addBall(r, 1, btVector3(btScalar(2 * r), 0, 50), btVector3(0, 0, 0));
    testing::LinkSpec link;
    link.mass = badLinkMass;
    bad = w.addPendulum(btVector3(0, 10, 2), link, 0);  // touching its neighbour
    link.mass = 1;
    neighbour = w.addPendulum(btVector3(btScalar(2 * link.radius), 10, 2), link, 0);
  }

  /// Steps, collecting the rejections; no exception may be thrown meanwhile.
  std::vector<RejectedBody> step(int steps) {
    std::vector<RejectedBody> rejected;
    const long thrown = testing::exceptionsThrown();
    for (int k = 0; k < steps; ++k) {
      w.step(kDt);
      for (const RejectedBody& r : w.solver().lastStepReport().rejected) rejected.push_back(r);
      for (const RestitutionWarning& r : w.solver().lastStepReport().restitutionWarnings) warnings.push_back(r);
    }
    EXPECT_EQ(testing::exceptionsThrown(), thrown) << "an exception was thrown inside stepSimulation";
    return rejected;
  }

  std::vector<RestitutionWarning> warnings;

  void expectCradleIntact() {
    const double expected[3] = {0, 0, 1};
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(finiteVelocity(*balls[i])) << "ball " << i;
      EXPECT_NEAR(balls[i]->getBaseVel().x(), expected[i], testing::kExact) << "ball " << i;
    }
  }
};

const RejectedBody* find(const std::vector<RejectedBody>& rejected, const btCollisionObject* body) {
  for (const RejectedBody& r : rejected)
    if (r.body == body) return &r;
  return nullptr;
}

TEST(MultiBodyBadInput, NaNJointVelocityIsReportedAndKeptFromItsNeighbour) {
  Fixture f;
  f.step(1);
  f.bad->setJointVel(0, btScalar(kNaN));
  f.w.solver().forgetKick(*f.bad);
  const auto rejected = f.step(30);
  const RejectedBody* r = find(rejected, f.bad->getLinkCollider(0));
  ASSERT_NE(r, nullptr) << "the NaN multibody is not named in the report";
  EXPECT_EQ(r->reason, "non-finite velocity");
  EXPECT_TRUE(std::all_of(rejected.begin(), rejected.end(), [&](const RejectedBody& x) { return x.body == r->body; }));
  EXPECT_TRUE(finiteVelocity(*f.neighbour));
  EXPECT_TRUE(std::isfinite(f.neighbour->getJointPos(0)));
  f.expectCradleIntact();
}

TEST(MultiBodyBadInput, ZeroMassLinkIsReportedAndLeftToBullet) {
  Fixture f(0);
  const auto rejected = f.step(30);
  const RejectedBody* r = find(rejected, f.bad->getLinkCollider(0));
  ASSERT_NE(r, nullptr) << "the zero-mass link is not named in the report";
  EXPECT_EQ(r->reason, "zero, negative or non-finite link mass");
  fmt::print("zero-mass link after 30 steps: joint velocity {}, neighbour {}\n", double(f.bad->getJointVel(0)),
             double(f.neighbour->getJointVel(0)));
  EXPECT_TRUE(finiteVelocity(*f.neighbour));
  f.expectCradleIntact();
}

// A static rigid body whose velocity is NaN (an application's bad write),
// touched by a multibody ball that another one then hits: the static
// contact's bias would carry the NaN into the impact problem, which threw out
// of stepSimulation in the rigid solver. It is named in the report, its
// manifolds are kept out of both passes, and the balls and the cradle stay
// finite and exact.
TEST(MultiBodyBadInput, NaNVelocityOnAStaticBodyIsReportedAndKeptFromTheImpact) {
  Fixture f;
  btRigidBody* wall = f.w.addRigidBall(0.5, 0, btVector3(0, -10, 20), btVector3(0, 0, 0));
  wall->setLinearVelocity(btVector3(btScalar(kNaN), 0, 0));
  btMultiBody* resting = f.w.addBall(0.5, 1, btVector3(btScalar(0.999), -10, 20), btVector3(0, 0, 0));
  btMultiBody* hitter = f.w.addBall(0.5, 1, btVector3(btScalar(2.01), -10, 20), btVector3(-1, 0, 0));
  const auto rejected = f.step(30);
  const RejectedBody* r = find(rejected, wall);
  ASSERT_NE(r, nullptr) << "the static body with a NaN velocity is not named in the report";
  EXPECT_EQ(r->reason, "non-finite velocity");
  EXPECT_TRUE(finiteVelocity(*resting));
  EXPECT_TRUE(finiteVelocity(*hitter));
  f.expectCradleIntact();
}

// Settings the core's resolver would refuse (a negative reflection cap) are
// named in the report, with a null body, and every impact is left to
// Bullet's pass: the cradle's balls stay finite, and stock Bullet's cradle
// outcome is not (0, 0, v0).
TEST(MultiBodyBadInput, InvalidSettingsAreReportedAndLeaveImpactsToBullet) {
  Fixture f;
  f.w.solver().settings().reflectionCap = -1;
  const auto rejected = f.step(30);
  const RejectedBody* r = find(rejected, nullptr);
  ASSERT_NE(r, nullptr) << "the invalid settings are not named in the report";
  EXPECT_EQ(r->reason, "invalid SolverSettings: reflectionCap < 0");
  EXPECT_TRUE(f.w.solver().lastStepReport().clusters.empty());
  for (btMultiBody* ball : f.balls) EXPECT_TRUE(finiteVelocity(*ball));
  EXPECT_GT(std::abs(f.balls[2]->getBaseVel().x() - 1), 1e-3) << "an impact was resolved with invalid settings";
  // Valid settings again: the next impacts are ours.
  f.w.solver().settings().reflectionCap = 0;
  const double v0 = 1;
  f.balls[0]->setBaseVel(btVector3(btScalar(v0), 0, 0));
  for (btMultiBody* ball : f.balls) f.w.solver().forgetKick(*ball);
  EXPECT_TRUE(find(f.step(1), nullptr) == nullptr);
}

// A NaN restitution (a collider's restitution set to NaN) is a restitution
// warning for the pair; its contact is kept out of the impact problem.
TEST(MultiBodyBadInput, NaNRestitutionIsReportedWithoutAThrow) {
  Fixture f;
  btMultiBody* resting = f.w.addBall(0.5, 1, btVector3(0, -10, 20), btVector3(0, 0, 0));
  btMultiBody* hitter = f.w.addBall(0.5, 1, btVector3(btScalar(1.005), -10, 20), btVector3(-1, 0, 0), kNaN);
  f.step(30);
  const bool warned = std::any_of(f.warnings.begin(), f.warnings.end(), [&](const RestitutionWarning& r) {
    return (r.bodyA == hitter->getBaseCollider() || r.bodyB == hitter->getBaseCollider()) && std::isnan(r.combined);
  });
  EXPECT_TRUE(warned) << "the NaN restitution is not reported";
  EXPECT_TRUE(finiteVelocity(*f.neighbour));
  (void)resting;
  f.expectCradleIntact();
}

// A pendulum whose fixed base has a collider touching a static ball: that
// contact's row is zero (no dof moves a fixed base), which the core's row
// builder refuses. When a ball hits the pendulum, the contact is in the
// impact's component; it stays with Bullet's pass, and the impact goes on.
TEST(MultiBodyBadInput, ContactOnAFixedBaseStaysWithBulletsPass) {
  Fixture f;
  const double r = 0.1;
  btMultiBody* pendulum = f.w.addPendulum(btVector3(0, 20, btScalar(1.25)), testing::LinkSpec{}, 0);
  f.w.addCollider(pendulum, -1, f.w.own(new btBoxShape(btVector3(0.05, 0.05, 0.05))), 1);
  f.w.addRigidBall(r, 0, btVector3(0, 20, btScalar(1.25 + 0.05 + r - 1e-3)), btVector3(0, 0, 0));  // static, on the base
  btMultiBody* ball = f.w.addBall(r, 1, btVector3(btScalar(2 * r + 0.004), 20, btScalar(0.25)), btVector3(-1, 0, 0));
  f.step(20);
  EXPECT_TRUE(finiteVelocity(*pendulum));
  EXPECT_TRUE(finiteVelocity(*ball));
  EXPECT_GT(std::abs(pendulum->getJointVel(0)), 0.5) << "the ball did not hit the pendulum";
  f.expectCradleIntact();
}

}  // namespace
}  // namespace propimpact
