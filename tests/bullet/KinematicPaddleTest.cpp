// Kinematic and static bodies are infinite mass (issue 3). A kinematic paddle
// moving at constant velocity V hits a resting ball: Newton's law at the
// contact reverses the relative normal velocity times e, so the ball leaves at
// (1+e)·V (2·V when elastic). A ball hitting a static box comes back at −e·v,
// and inside a cluster a static wall reflects the propagation like an
// immovable body.
//
// How Bullet drives a kinematic body: btRigidBody::saveKinematicState, called
// by stepSimulation once per call for every active kinematic body, reads the
// new pose from the motion state (or keeps m_worldTransform when there is
// none) and sets the velocity to (new pose − previous pose)/Δt. A velocity set
// with setLinearVelocity is overwritten there; what moves a kinematic body is
// its pose. So the paddle's motion state returns x0 + V·t, t advanced before
// every step, and the paddle's velocity is what Bullet derived from it (read
// back from the body, not assumed).
#include <LinearMath/btMotionState.h>
#include <fmt/core.h>

#include <cmath>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

using testing::kEnergyTolerance;
using testing::kVelocityTolerance;

constexpr double kDt = 1.0 / 60;
constexpr double kRadius = 0.5;

// Scripted pose: constant velocity from a start point, sampled at time t.
class ConstantVelocityMotion : public btMotionState {
 public:
  ConstantVelocityMotion(const btVector3& start, const btVector3& velocity) : m_start(start), m_velocity(velocity) {}
  void advance(double dt) { m_time += dt; }
  void getWorldTransform(btTransform& pose) const override {
    pose.setIdentity();
    pose.setOrigin(m_start + m_velocity * btScalar(m_time));
  }
  // Bullet never writes a kinematic body's pose back; nothing to store.
  void setWorldTransform(const btTransform&) override {}

 private:
  btVector3 m_start;
  btVector3 m_velocity;
  double m_time = 0;
};

struct PaddleHit {
  double ballVelocity = 0;    // x, after the impact
  double paddleVelocity = 0;  // x, as Bullet derived it
  double offAxis = 0;         // |v_y| + |v_z| + |ω| of the ball
  double reportedImpulse = -1;
  double reportedRestitution = -1;
  std::size_t reportedBodies = 0;
  bool impacted = false;
};

PaddleHit hitWithPaddle(double speed, double cor) {
  scenes::World world("propagative");
  scenes::BodySpec ballSpec;
  ballSpec.restitution = scenes::bodyRestitution(cor);
  ballSpec.friction = 0;
  btRigidBody* ball = world.addSphere(btScalar(kRadius), ballSpec);

  // A box of mass 0 added as static, then turned kinematic and re-added so
  // that the world files it as a moving (non-static) body.
  scenes::BodySpec paddleSpec;
  paddleSpec.mass = 0;
  paddleSpec.position = btVector3(-1, 0, 0);
  paddleSpec.restitution = scenes::bodyRestitution(cor);
  paddleSpec.friction = 0;
  btRigidBody* paddle = world.addBox(btVector3(btScalar(0.1), 1, 1), paddleSpec);
  ConstantVelocityMotion motion(btVector3(-1, 0, 0), btVector3(btScalar(speed), 0, 0));
  world.dynamics().removeRigidBody(paddle);
  paddle->setMotionState(&motion);
  paddle->setCollisionFlags((paddle->getCollisionFlags() & ~btCollisionObject::CF_STATIC_OBJECT) |
                            btCollisionObject::CF_KINEMATIC_OBJECT);
  paddle->setActivationState(DISABLE_DEACTIVATION);
  world.dynamics().addRigidBody(paddle);

  PaddleHit out;
  // Gap 0.4 m: the paddle reaches the ball within 0.4/V s; run a few steps past it.
  const int steps = static_cast<int>(0.4 / speed / kDt) + 10;
  for (int k = 0; k < steps; ++k) {
    motion.advance(kDt);
    world.step(kDt);
    const StepReport& report = testing::propagative(world).lastStepReport();
    if (!report.clusters.empty() && out.impacted) {
      // After a plastic hit (COR 0) the ball rides on the paddle. The paddle's
      // derived velocity carries the round-off of its poses divided by Δt
      // (about 6e-6 m/s in single precision), and in zero gravity any approach
      // is an impact: such follow-ups are allowed, but only at that size.
      for (const ClusterReport& cluster : report.clusters)
        for (const ContactReport& contact : cluster.contacts)
          EXPECT_LT(contact.impulse, 1e-4) << "a second impact at step " << k;
    } else if (!report.clusters.empty()) {
      out.impacted = true;
      const ClusterReport& cluster = report.clusters.front();
      out.reportedBodies = cluster.bodies.size();
      if (!cluster.contacts.empty()) {
        out.reportedImpulse = cluster.contacts.front().impulse;
        out.reportedRestitution = cluster.contacts.front().restitution;
      }
    }
  }
  out.ballVelocity = ball->getLinearVelocity().x();
  out.paddleVelocity = paddle->getLinearVelocity().x();
  out.offAxis = std::abs(ball->getLinearVelocity().y()) + std::abs(ball->getLinearVelocity().z()) +
                ball->getAngularVelocity().length();
  paddle->setMotionState(nullptr);  // the motion state dies before the World
  return out;
}

TEST(KinematicPaddle, BallLeavesAtOnePlusEPaddleSpeed) {
  for (const double speed : {0.5, 2.0, 5.0})
    for (const double cor : {1.0, 0.7, 0.0}) {
      const PaddleHit hit = hitWithPaddle(speed, cor);
      const std::string label = fmt::format("V {} COR {}", speed, cor);
      ASSERT_TRUE(hit.impacted) << label;
      // Bullet derived the paddle's velocity from its poses.
      EXPECT_NEAR(hit.paddleVelocity, speed, 1e-5 * speed) << label;
      // Relative normal velocity reversed times e: v_ball − V = e·V.
      EXPECT_NEAR(hit.ballVelocity, (1 + cor) * hit.paddleVelocity, kVelocityTolerance * speed) << label;
      EXPECT_LT(hit.offAxis, kVelocityTolerance * speed) << label;
      // Only the ball's velocity changed; the impulse is m·Δv (m = 1).
      EXPECT_EQ(hit.reportedBodies, 1u) << label;
      EXPECT_NEAR(hit.reportedRestitution, cor, 1e-6) << label;
      EXPECT_NEAR(hit.reportedImpulse, (1 + cor) * hit.paddleVelocity, kVelocityTolerance * speed) << label;
    }
}

// A ball moving at v toward a static box face comes back at −e·v: the box
// neither moves nor absorbs anything beyond what e says.
TEST(KinematicPaddle, StaticBoxIsInfiniteMass) {
  for (const double cor : {1.0, 0.5, 0.0}) {
    scenes::World world("propagative");
    scenes::BodySpec wallSpec;
    wallSpec.mass = 0;
    wallSpec.position = btVector3(2, 0, 0);
    wallSpec.restitution = scenes::bodyRestitution(cor);
    btRigidBody* wall = world.addBox(btVector3(1, 1, 1), wallSpec);
    scenes::BodySpec ballSpec;
    ballSpec.restitution = scenes::bodyRestitution(cor);
    ballSpec.friction = 0;
    ballSpec.position = btVector3(btScalar(0.5 - 0.5 * 3 * kDt), 0, 0);  // first overlap in step 2, half a step deep
    ballSpec.linearVelocity = btVector3(3, 0, 0);
    btRigidBody* ball = world.addSphere(btScalar(kRadius), ballSpec);
    int clusters = 0;
    for (int k = 0; k < 20; ++k) {
      world.step(kDt);
      clusters += static_cast<int>(testing::propagative(world).lastStepReport().clusters.size());
    }
    EXPECT_EQ(clusters, 1) << "COR " << cor;
    EXPECT_NEAR(ball->getLinearVelocity().x(), -cor * 3, kVelocityTolerance * 3) << "COR " << cor;
    EXPECT_EQ(wall->getWorldTransform().getOrigin(), btVector3(2, 0, 0));
    EXPECT_EQ(wall->getLinearVelocity(), btVector3(0, 0, 0));
  }
}

// Inside a cluster: A hits B, which rests against a static wall. With an
// infinite-mass wall the propagation A→B, B→wall, B→A sends A back at −v0 and
// leaves B at rest; energy is conserved among the dynamic bodies.
TEST(KinematicPaddle, StaticWallInsideAClusterReflectsThePropagation) {
  scenes::World world("propagative");
  scenes::BodySpec wallSpec;
  wallSpec.mass = 0;
  wallSpec.position = btVector3(btScalar(kRadius + 1), 0, 0);  // face at x = 0.5, touching B
  wallSpec.restitution = 1;
  world.addBox(btVector3(1, 1, 1), wallSpec);
  scenes::BodySpec spec;
  spec.restitution = 1;
  spec.friction = 0;
  btRigidBody* b = world.addSphere(btScalar(kRadius), spec);
  constexpr double v0 = 1.5;
  spec.position = btVector3(btScalar(-2 * kRadius - (1 - 0.5) * v0 * kDt), 0, 0);  // A detected in step 2
  spec.linearVelocity = btVector3(btScalar(v0), 0, 0);
  btRigidBody* a = world.addSphere(btScalar(kRadius), spec);
  const double before = world.kineticEnergy();
  std::size_t contacts = 0;
  for (int k = 0; k < 10; ++k) {
    world.step(kDt);
    for (const ClusterReport& cluster : testing::propagative(world).lastStepReport().clusters) contacts += cluster.contacts.size();
  }
  EXPECT_EQ(contacts, 2u);  // A–B and B–wall, one cluster
  EXPECT_NEAR(a->getLinearVelocity().x(), -v0, kVelocityTolerance * v0);
  EXPECT_NEAR(b->getLinearVelocity().x(), 0, kVelocityTolerance * v0);
  EXPECT_NEAR(world.kineticEnergy() / before, 1, kEnergyTolerance);
}

}  // namespace
}  // namespace propimpact
