// A kinematic btRigidBody paddle hits a floating-base multibody ball (issue
// 13, item 2: static and kinematic geometry in a multibody cluster). The
// paddle's motion enters the contact row as a constant term; Newton's law at
// the contact sends the ball off at (1 + e)·V (2·V when elastic). As in the
// rigid suite's KinematicPaddleTest, the paddle is moved through its motion
// state and its velocity is read back from Bullet.
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <LinearMath/btMotionState.h>
#include <fmt/core.h>

#include <cmath>

#include "MultiBodyWorld.h"

namespace propimpact {
namespace {

constexpr double kDt = 1.0 / 240;

class ConstantVelocityMotion : public btMotionState {
 public:
  ConstantVelocityMotion(const btVector3& start, const btVector3& velocity) : m_start(start), m_velocity(velocity) {}
  void advance(double dt) { m_time += dt; }
  void getWorldTransform(btTransform& pose) const override {
    pose.setIdentity();
    pose.setOrigin(m_start + m_velocity * btScalar(m_time));
  }
  void setWorldTransform(const btTransform&) override {}

 private:
  btVector3 m_start;
  btVector3 m_velocity;
  double m_time = 0;
};

class KinematicPaddle : public ::testing::TestWithParam<double> {};

TEST_P(KinematicPaddle, SendsTheMultiBodyBallOffAtOnePlusEV) {
  const double cor = GetParam(), speed = 1, radius = 0.5, half = 0.5;
  testing::MultiBodyWorld w(true);
  btMultiBody* ball = w.addBall(radius, 1, btVector3(0, 0, 0), btVector3(0, 0, 0), 1);
  // The paddle's face starts 2.5 steps of travel short of the ball.
  const btVector3 start(btScalar(-radius - half - speed * kDt * 2.5), 0, 0);
  ConstantVelocityMotion motion(start, btVector3(btScalar(speed), 0, 0));
  btBoxShape shape(btVector3(btScalar(half), 2, 2));
  btRigidBody::btRigidBodyConstructionInfo info(0, &motion, &shape);
  info.m_restitution = btScalar(cor);
  info.m_friction = 0;
  btRigidBody paddle(info);
  paddle.setCollisionFlags(paddle.getCollisionFlags() | btCollisionObject::CF_KINEMATIC_OBJECT);
  paddle.setActivationState(DISABLE_DEACTIVATION);
  w.world->addRigidBody(&paddle);
  int clusters = 0;
  double paddleVelocity = 0;
  for (int k = 0; k < 8; ++k) {
    motion.advance(kDt);
    w.step(kDt);
    const int now = static_cast<int>(w.solver().lastStepReport().clusters.size());
    clusters += now;
    // The velocity Bullet derived in the impact step: in single precision it
    // differs from step to step by ~1e-5 (a float pose difference over Δt).
    if (now > 0) paddleVelocity = paddle.getLinearVelocity().x();
  }
  w.world->removeRigidBody(&paddle);
  const double v = ball->getBaseVel().x();
  fmt::print("kinematic paddle at {:.9f} m/s, e {}: multibody ball leaves at {:.9f} m/s\n", paddleVelocity, cor, v);
  EXPECT_EQ(clusters, 1);
  EXPECT_NEAR(v, (1 + cor) * paddleVelocity, testing::kExact * speed);
}

INSTANTIATE_TEST_SUITE_P(Restitution, KinematicPaddle, ::testing::Values(1.0, 0.5));

}  // namespace
}  // namespace propimpact
