// Friction and impacts (issue 3, item 4). The paper's impacts are frictionless
// and so are ours: an impact changes only the normal velocity, and Bullet's
// friction acts on resting contact only, limited by the resting normal
// impulse, never by the impact's. Measured here (friction 0.5 on ball and
// floor, so Bullet's combined coefficient is μ = 0.5·0.5 = 0.25; 240 Hz):
//  - COR 1, a ball thrown at the floor at an angle with spin: through every
//    impact step the tangential velocity and the spin are unchanged (to
//    round-off) and the normal velocity is exactly reversed (the reflection
//    sits between two half gravity kicks). Bounce after bounce the ball keeps
//    its horizontal speed and its spin. (Bullet's stock solver, same throw:
//    through the first impact v_x drops from 2 to 1.21 m/s — the ball is
//    rolling — and the normal speed from 5.33 to 3.90 m/s.)
//  - COR 0, the same throw: the impact removes the normal velocity; the
//    contact then stays closed and Bullet's pass supports it in the same step,
//    with friction bounded by μ times that step's resting impulse (about
//    m·g·Δt), so the tangential velocity changes by at most μ·g·Δt through the
//    impact step — not by μ·Δv_normal (0.75 m/s here).
//  - Once the ball rests and slides, Bullet's friction acts: a ball sliding
//    at 2 m/s without spin decelerates at μg and spins up at 5μg/(2r) until it
//    rolls at 5/7 of its speed (ω r = v), and no impact is ever reported.
#include <fmt/core.h>

#include <cmath>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

using testing::kVelocityTolerance;

constexpr double kHz = 240;
constexpr double kDt = 1 / kHz;
constexpr double kGravity = 9.81;
constexpr double kFriction = 0.5;              // per body
constexpr double kMu = kFriction * kFriction;  // Bullet's combined friction: the product
constexpr double kRadius = 0.5;

struct Throw {
  scenes::World world{"propagative"};
  btRigidBody* ball = nullptr;
};

// A ball \p height above the floor, moving at \p velocity with spin \p spin.
void setUp(Throw& t, double cor, double height, const btVector3& velocity, const btVector3& spin) {
  scenes::BouncingBall scene;
  scene.radius = kRadius;
  scene.height = height;
  scene.cor = cor;
  scene.friction = kFriction;
  t.ball = scenes::build(t.world, scene).bodies.front();
  t.ball->setLinearVelocity(velocity);
  t.ball->setAngularVelocity(spin);
}

TEST(FrictionDuringImpact, ElasticImpactLeavesTangentialVelocityAndSpinAlone) {
  Throw t;
  const btVector3 spin(0, 0, btScalar(1.5));
  setUp(t, 1.0, 1.0, btVector3(2, -3, 0), spin);
  PropagativeImpactSolver& solver = testing::propagative(t.world);
  int bounces = 0;
  for (int k = 0; k < static_cast<int>(6 * kHz) && bounces < 5; ++k) {
    const btVector3 v = t.ball->getLinearVelocity();
    const btVector3 w = t.ball->getAngularVelocity();
    t.world.step(kDt);
    if (solver.lastStepReport().clusters.empty()) continue;
    ++bounces;
    const btVector3 after = t.ball->getLinearVelocity();
    // Bullet computes the contact normal in btScalar: its round-off tilts the
    // impulse (2|v_n|) by that much, which is what the tangential components
    // and the spin may show (about 7e-5 m/s in single precision).
    const double impulse = 2 * std::abs(double(v.y()));
    EXPECT_NEAR(after.x(), v.x(), kVelocityTolerance * impulse) << "bounce " << bounces;
    EXPECT_NEAR(after.z(), v.z(), kVelocityTolerance * impulse) << "bounce " << bounces;
    EXPECT_NEAR(after.y(), -v.y(), kVelocityTolerance * impulse) << "bounce " << bounces;
    EXPECT_NEAR((t.ball->getAngularVelocity() - w).length(), 0, kVelocityTolerance * impulse / kRadius)
        << "bounce " << bounces;
    fmt::print("COR 1 bounce {}: v ({:+.6f}, {:+.6f}) -> ({:+.6f}, {:+.6f}), spin {:+.6f} -> {:+.6f}\n", bounces,
               v.x(), v.y(), after.x(), after.y(), w.z(), t.ball->getAngularVelocity().z());
  }
  EXPECT_EQ(bounces, 5);
  // Between bounces nothing touches: horizontal speed and spin are the thrown
  // ones, up to five bounces' worth of the normal's round-off (impulse ≈ 11 N·s).
  EXPECT_NEAR(t.ball->getLinearVelocity().x(), 2, 5 * kVelocityTolerance * 11);
  EXPECT_NEAR(t.ball->getAngularVelocity().z(), spin.z(), 5 * kVelocityTolerance * 11 / kRadius);
}

TEST(FrictionDuringImpact, PlasticLandingFrictionOnlyFromTheRestingImpulse) {
  Throw t;
  setUp(t, 0.0, 1.0, btVector3(2, -3, 0), btVector3(0, 0, 0));
  PropagativeImpactSolver& solver = testing::propagative(t.world);
  for (int k = 0; k < static_cast<int>(2 * kHz); ++k) {
    const btVector3 v = t.ball->getLinearVelocity();
    t.world.step(kDt);
    if (solver.lastStepReport().clusters.empty()) continue;
    const btVector3 after = t.ball->getLinearVelocity();
    const double tangentialLoss = double(v.x() - after.x());
    fmt::print("COR 0 landing: v ({:+.6f}, {:+.6f}) -> ({:+.6f}, {:+.6f}), tangential loss {:.3e} m/s "
               "(mu g dt = {:.3e}, mu |dv_n| = {:.3f})\n",
               v.x(), v.y(), after.x(), after.y(), tangentialLoss, kMu * kGravity * kDt, kMu * -v.y());
    EXPECT_NEAR(after.y(), 0, 0.01 * -v.y());  // resting after a plastic impact
    EXPECT_GE(tangentialLoss, -kVelocityTolerance * 2);
    EXPECT_LE(tangentialLoss, kMu * kGravity * kDt * 1.01);
    return;
  }
  ADD_FAILURE() << "no impact";
}

TEST(FrictionDuringImpact, RestingBallSlidesThenRollsUnderBulletsFriction) {
  Throw t;
  constexpr double v0 = 2;
  setUp(t, 1.0, 0.0, btVector3(btScalar(v0), 0, 0), btVector3(0, 0, 0));
  PropagativeImpactSolver& solver = testing::propagative(t.world);
  const double rollTime = v0 / (3.5 * kMu * kGravity);  // v0 − μgt = (5/2)μgt
  int impacts = 0;
  double slidingSpeed = 0;
  const double slidingTime = 0.5 * rollTime;
  const int slidingStep = static_cast<int>(std::lround(slidingTime * kHz));
  for (int k = 1; k <= static_cast<int>(1.0 * kHz); ++k) {
    t.world.step(kDt);
    impacts += static_cast<int>(solver.lastStepReport().clusters.size());
    if (k == slidingStep) slidingSpeed = t.ball->getLinearVelocity().x();
  }
  const double v = t.ball->getLinearVelocity().x();
  const double rolling = -t.ball->getAngularVelocity().z() * kRadius;
  fmt::print("sliding ball, mu {}: v {:.4f} at {:.3f} s (expected {:.4f}), after 1 s v {:.4f}, omega r {:.4f} "
             "(expected 5/7 v0 = {:.4f})\n",
             kMu, slidingSpeed, slidingTime, v0 - kMu * kGravity * slidingTime, v, rolling, 5.0 / 7 * v0);
  EXPECT_EQ(impacts, 0);
  EXPECT_NEAR(slidingSpeed, v0 - kMu * kGravity * slidingTime, 0.01 * v0);
  EXPECT_NEAR(v, 5.0 / 7 * v0, 0.01 * v0);
  EXPECT_NEAR(rolling, v, 0.01 * v0);
  EXPECT_NEAR(t.ball->getWorldTransform().getOrigin().y(), kRadius, 0.01);
  EXPECT_LT(std::abs(t.ball->getLinearVelocity().y()), 1e-3);
}

}  // namespace
}  // namespace propimpact
