// Linear and angular factors through impacts (issue 3). A 0/1 factor restricts
// the body to a subspace; the solver resolves the impact in that subspace's
// metric (SPEC §1), so a locked axis never gains velocity, planar motion stays
// planar, and energy and the free momentum components are conserved. A
// fractional factor has no symmetric metric: such a body is left to Bullet's
// sequential-impulse pass and appears in no cluster.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

using testing::kEnergyTolerance;
using testing::kVelocityTolerance;

constexpr double kDt = 1.0 / 60;
constexpr double kRadius = 0.5;

// Relative normal velocity of two spheres along the line of centres (positive: separating).
double separation(const btRigidBody* a, const btRigidBody* b) {
  const btVector3 n = (b->getWorldTransform().getOrigin() - a->getWorldTransform().getOrigin()).normalized();
  return double((b->getLinearVelocity() - a->getLinearVelocity()).dot(n));
}

// Balls confined to z = 0 (linear factor (1,1,0), angular (0,0,1)) whose
// centres are offset in z would, unconstrained, push each other out of the
// plane: the contact normal has a z component. Confined, they never leave it,
// and the impact is the one of the admissible (x, y) motion: energy and x/y
// momentum conserved, the restricted relative normal velocity reversed.
TEST(Factors, PlanarMotionStaysPlanarThroughImpacts) {
  for (const double zOffset : {0.0, 0.3, 0.6})
    for (const double yOffset : {0.0, 0.4}) {
      scenes::World world("propagative");
      scenes::BodySpec spec;
      spec.restitution = 1;
      spec.friction = 0;
      spec.linearFactor = btVector3(1, 1, 0);
      spec.angularFactor = btVector3(0, 0, 1);
      // Target B at rest; its centre is offset so that the centres are 2r apart when they touch.
      const double dx = std::sqrt(4 * kRadius * kRadius - zOffset * zOffset - yOffset * yOffset);
      spec.position = btVector3(btScalar(dx), btScalar(yOffset), btScalar(zOffset));
      btRigidBody* b = world.addSphere(btScalar(kRadius), spec);
      constexpr double v0 = 2;
      spec.position = btVector3(btScalar(-0.5 * v0 * kDt), 0, 0);  // touches half-way through step 1
      spec.linearVelocity = btVector3(btScalar(v0), 0, 0);
      btRigidBody* a = world.addSphere(btScalar(kRadius), spec);
      const double before = world.kineticEnergy();
      const btVector3 momentumBefore = a->getLinearVelocity() + b->getLinearVelocity();
      btVector3 normal(0, 0, 0);
      double approach = 0;
      double separationAfter = 0;
      int clusters = 0;
      for (int k = 0; k < 20; ++k) {
        // The impact's step is the one whose motion closes the gap (the
        // solver reflects then, before any overlap): taken from the report.
        // Its normal is the line of centres at touch, where A is at the
        // origin and B still at rest (the scene is built that way).
        const btVector3 stepNormal = b->getWorldTransform().getOrigin().normalized();
        const double stepApproach = double((b->getLinearVelocity() - a->getLinearVelocity()).dot(stepNormal));
        world.step(kDt);
        const int stepClusters = static_cast<int>(testing::propagative(world).lastStepReport().clusters.size());
        if (stepClusters > 0 && clusters == 0) {
          normal = stepNormal;
          approach = stepApproach;
          separationAfter = double((b->getLinearVelocity() - a->getLinearVelocity()).dot(normal));
        }
        clusters += stepClusters;
        for (const btRigidBody* body : {a, b}) {
          // Exactly zero, not merely small: the factor masks every velocity update.
          EXPECT_EQ(body->getLinearVelocity().z(), 0) << "step " << k;
          EXPECT_EQ(body->getAngularVelocity().x(), 0) << "step " << k;
          EXPECT_EQ(body->getAngularVelocity().y(), 0) << "step " << k;
          EXPECT_EQ(body->getWorldTransform().getOrigin().z(), body == a ? 0 : btScalar(zOffset)) << "step " << k;
        }
      }
      const std::string label = fmt::format("z offset {} y offset {}", zOffset, yOffset);
      EXPECT_EQ(clusters, 1) << label;
      EXPECT_NEAR(world.kineticEnergy() / before, 1, kEnergyTolerance) << label;
      const btVector3 momentumAfter = a->getLinearVelocity() + b->getLinearVelocity();
      EXPECT_NEAR(momentumAfter.x(), momentumBefore.x(), kVelocityTolerance * v0) << label;
      EXPECT_NEAR(momentumAfter.y(), momentumBefore.y(), kVelocityTolerance * v0) << label;
      // One contact, COR 1: the relative velocity along the (3-D) normal
      // reverses; the locked z axis only changes the effective mass.
      EXPECT_LT(approach, 0) << label;
      EXPECT_NEAR(separationAfter, -approach, kVelocityTolerance * v0) << label;
      fmt::print("planar balls, {}: a ({:+.4f}, {:+.4f}, {:+.4f}), b ({:+.4f}, {:+.4f}, {:+.4f})\n", label,
                 a->getLinearVelocity().x(), a->getLinearVelocity().y(), a->getLinearVelocity().z(),
                 b->getLinearVelocity().x(), b->getLinearVelocity().y(), b->getLinearVelocity().z());
    }
}

// A box with angular factor 0 struck off-centre by a ball behaves as a point
// mass: no spin, and the 1-D elastic outcome along the face normal (equal
// masses exchange velocities). Its locked y axis never moves either.
TEST(Factors, LockedAxesNeverGainVelocity) {
  scenes::World world("propagative");
  scenes::BodySpec boxSpec;
  boxSpec.restitution = 1;
  boxSpec.friction = 0;
  boxSpec.linearFactor = btVector3(1, 0, 1);
  boxSpec.angularFactor = btVector3(0, 0, 0);
  boxSpec.position = btVector3(1, 0, 0);  // face at x = 0.5
  btRigidBody* box = world.addBox(btVector3(btScalar(0.5), btScalar(0.5), btScalar(0.5)), boxSpec);
  scenes::BodySpec ballSpec;
  ballSpec.restitution = 1;
  ballSpec.friction = 0;
  constexpr double v0 = 1.5;
  // Off-centre by 0.3 in y and 0.2 in z: the impulse along the face normal
  // (x) would spin a free box about y and z.
  ballSpec.position = btVector3(btScalar(-0.5 * v0 * kDt), btScalar(0.3), btScalar(0.2));
  ballSpec.linearVelocity = btVector3(btScalar(v0), 0, 0);
  btRigidBody* ball = world.addSphere(btScalar(kRadius), ballSpec);
  const double before = world.kineticEnergy();
  int clusters = 0;
  for (int k = 0; k < 20; ++k) {
    world.step(kDt);
    clusters += static_cast<int>(testing::propagative(world).lastStepReport().clusters.size());
    EXPECT_EQ(box->getLinearVelocity().y(), 0) << "step " << k;
    EXPECT_EQ(box->getAngularVelocity(), btVector3(0, 0, 0)) << "step " << k;
  }
  EXPECT_EQ(clusters, 1);
  EXPECT_NEAR(ball->getLinearVelocity().x(), 0, kVelocityTolerance * v0);
  EXPECT_NEAR(box->getLinearVelocity().x(), v0, kVelocityTolerance * v0);
  EXPECT_NEAR(box->getLinearVelocity().z(), 0, kVelocityTolerance * v0);
  EXPECT_NEAR(world.kineticEnergy() / before, 1, kEnergyTolerance);
}

// A factor of 0.5 is left to Bullet's pass: nothing crashes, the body is in no
// cluster report, the pair does not interpenetrate on (no approach once Bullet
// has handled it), and an independent cradle in the same world still comes
// out exactly.
TEST(Factors, FractionalFactorIsLeftToBulletsPass) {
  scenes::World world("propagative");
  scenes::BodySpec spec;
  spec.restitution = 1;
  spec.friction = 0;
  constexpr double v0 = 1;
  // Pair 1: A hits B, B has linear factor 0.5.
  spec.position = btVector3(2 * kRadius, 0, 0);
  spec.linearFactor = btVector3(btScalar(0.5), btScalar(0.5), btScalar(0.5));
  btRigidBody* fractional = world.addSphere(btScalar(kRadius), spec);
  spec.linearFactor = btVector3(1, 1, 1);
  spec.position = btVector3(btScalar(-0.5 * v0 * kDt), 0, 0);
  spec.linearVelocity = btVector3(btScalar(v0), 0, 0);
  btRigidBody* striker = world.addSphere(btScalar(kRadius), spec);
  // Pair 2, far away in z: an ordinary two-ball cradle.
  spec.linearVelocity = btVector3(0, 0, 0);
  spec.position = btVector3(2 * kRadius, 0, 10);
  btRigidBody* target = world.addSphere(btScalar(kRadius), spec);
  spec.position = btVector3(btScalar(-0.5 * v0 * kDt), 0, 10);
  spec.linearVelocity = btVector3(btScalar(v0), 0, 0);
  btRigidBody* hitter = world.addSphere(btScalar(kRadius), spec);
  int clusters = 0;
  for (int k = 0; k < 30; ++k) {
    world.step(kDt);
    for (const ClusterReport& cluster : testing::propagative(world).lastStepReport().clusters) {
      ++clusters;
      for (const btCollisionObject* body : cluster.bodies) EXPECT_NE(body, fractional) << "step " << k;
      for (const btCollisionObject* body : cluster.bodies) EXPECT_NE(body, striker) << "step " << k;
      for (const ContactReport& contact : cluster.contacts) {
        EXPECT_NE(contact.bodyA, fractional);
        EXPECT_NE(contact.bodyB, fractional);
      }
    }
  }
  EXPECT_EQ(clusters, 1);  // only the ordinary cradle
  for (const btRigidBody* body : {fractional, striker}) {
    EXPECT_TRUE(std::isfinite(body->getLinearVelocity().length())) << "fractional pair";
    EXPECT_TRUE(std::isfinite(body->getWorldTransform().getOrigin().length())) << "fractional pair";
  }
  // Bullet's pass (no restitution in it) stopped the approach.
  EXPECT_GE(separation(striker, fractional), -1e-3 * v0);
  EXPECT_NEAR(hitter->getLinearVelocity().x(), 0, kVelocityTolerance * v0);
  EXPECT_NEAR(target->getLinearVelocity().x(), v0, kVelocityTolerance * v0);
  fmt::print("fractional factor 0.5: striker {:+.4f}, target {:+.4f} m/s (Bullet's pass, plastic)\n",
             striker->getLinearVelocity().x(), fractional->getLinearVelocity().x());
}

}  // namespace
}  // namespace propimpact
