// A box, hull or capsule against a static plane gets speculative points of
// ours for the corners Bullet's manifold does not hold (Island::addPlaneFeatures):
// Bullet's convex–plane contact keeps the deepest corner and what its
// perturbation finds, so a body landing on a tilted face or tumbling on its
// corners at 60 Hz met one corner a step, and each stopped corner let the
// centre fall on and the next corner arrive up to v·dt deep.
#include <gtest/gtest.h>

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

/// The lowest point of a box of half extents \p half (y up).
btScalar lowestCorner(const btRigidBody& body, const btVector3& half) {
  btScalar lowest = BT_LARGE_FLOAT;
  for (int k = 0; k < 8; ++k) {
    const btVector3 corner(k & 1 ? half.x() : -half.x(), k & 2 ? half.y() : -half.y(), k & 4 ? half.z() : -half.z());
    lowest = std::min(lowest, (body.getWorldTransform() * corner).y());
  }
  return lowest;
}

struct Landing {
  btScalar speed;        ///< m/s, straight down
  btScalar tilt;         ///< rad, about x then z
  btScalar restitution;  ///< of the box (the floor's is 1: Bullet multiplies them)
};

// World fuzz finding (2026-11-25, third session): a 0.1 kg box of 20 cm landed
// on a corner at 7.9 m/s (60 Hz, restitution 0): its bottom went 6, 21 and 29 cm
// under the floor in three steps and the box through it. Boxes landing tilted
// at 60 Hz now stay within a couple of centimetres of the surface (Bullet's
// resting contact then pushes them out) and never gain energy in an impact.
TEST(PlaneCornerPoint, TiltedBoxLandingFastOnAPlaneDoesNotSinkIntoIt) {
  const btVector3 half(btScalar(0.1), btScalar(0.1), btScalar(0.1));
  for (const Landing& l : {Landing{btScalar(7.9), btScalar(0.3), 0}, Landing{btScalar(7.9), btScalar(0.6), btScalar(0.5)},
                           Landing{btScalar(4), btScalar(0.15), 0}, Landing{btScalar(10), btScalar(0.45), btScalar(0.2)}}) {
    scenes::World w("propagative");
    w.setGravity(btVector3(0, btScalar(-9.81), 0));
    scenes::BodySpec floor;
    floor.mass = 0;
    floor.restitution = 1;
    w.addBody(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), 0), floor);
    scenes::BodySpec spec;
    spec.mass = btScalar(0.1);
    spec.restitution = l.restitution;
    spec.position = btVector3(0, btScalar(0.45), 0);
    spec.orientation = btQuaternion(btVector3(1, 0, 0), l.tilt) * btQuaternion(btVector3(0, 0, 1), l.tilt / 2);
    spec.linearVelocity = btVector3(0, -l.speed, 0);
    const btRigidBody& box = *w.addBox(half, spec);
    btScalar deepest = 0;
    for (int step = 0; step < 90; ++step) {
      w.step(1.0 / 60);
      for (const ClusterReport& c : testing::propagative(w).lastStepReport().clusters)
        EXPECT_LE(c.energyAfter, c.energyBefore * (1 + 1e-9) + 1e-300);
      deepest = std::min(deepest, lowestCorner(box, half));
    }
    EXPECT_GE(deepest, btScalar(-0.02)) << "speed " << l.speed << ", tilt " << l.tilt;
    EXPECT_GE(lowestCorner(box, half), btScalar(-0.005)) << "speed " << l.speed << ", tilt " << l.tilt;
  }
}

// The same for a capsule (its ends are the corners) landing tilted.
TEST(PlaneCornerPoint, TiltedCapsuleLandingFastOnAPlaneDoesNotSinkIntoIt) {
  const btScalar radius = btScalar(0.05), halfHeight = btScalar(0.2);
  for (const btScalar tilt : {btScalar(0.2), btScalar(0.7), btScalar(1.2)}) {
    scenes::World w("propagative");
    w.setGravity(btVector3(0, btScalar(-9.81), 0));
    scenes::BodySpec floor;
    floor.mass = 0;
    w.addBody(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), 0), floor);
    scenes::BodySpec spec;
    spec.mass = btScalar(0.2);
    spec.position = btVector3(0, btScalar(0.6), 0);
    spec.orientation = btQuaternion(btVector3(0, 0, 1), tilt);
    spec.linearVelocity = btVector3(0, btScalar(-8), 0);
    const btRigidBody& capsule = *w.addBody(std::make_unique<btCapsuleShape>(radius, 2 * halfHeight), spec);
    btScalar deepest = 0;
    for (int step = 0; step < 90; ++step) {
      w.step(1.0 / 60);
      for (const ClusterReport& c : testing::propagative(w).lastStepReport().clusters)
        EXPECT_LE(c.energyAfter, c.energyBefore * (1 + 1e-9) + 1e-300);
      const btVector3 axis = capsule.getWorldTransform().getBasis() * btVector3(0, halfHeight, 0);
      const btScalar lowest = std::min((capsule.getCenterOfMassPosition() + axis).y(), (capsule.getCenterOfMassPosition() - axis).y()) - radius;
      deepest = std::min(deepest, lowest);
    }
    EXPECT_GE(deepest, btScalar(-0.02)) << "tilt " << tilt;
  }
}

// A compound of two boxes (a dumbbell of 40 cm): Bullet gives each child its
// own manifold with the plane; every child's corners get points of ours.
TEST(PlaneCornerPoint, TiltedCompoundLandingFastOnAPlaneDoesNotSinkIntoIt) {
  const btVector3 half(btScalar(0.08), btScalar(0.08), btScalar(0.08));
  const btScalar offset = btScalar(0.16);
  for (const btScalar tilt : {btScalar(0.25), btScalar(0.6), btScalar(1.0)}) {
    // The world owns shapes it is given, not a compound's children: they outlive it here.
    std::vector<std::unique_ptr<btBoxShape>> children;
    scenes::World w("propagative");
    w.setGravity(btVector3(0, btScalar(-9.81), 0));
    scenes::BodySpec floor;
    floor.mass = 0;
    w.addBody(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), 0), floor);
    auto compound = std::make_unique<btCompoundShape>();
    for (const btScalar side : {-offset, offset}) {
      children.push_back(std::make_unique<btBoxShape>(half));
      btTransform frame = btTransform::getIdentity();
      frame.setOrigin(btVector3(side, 0, 0));
      compound->addChildShape(frame, children.back().get());
    }
    scenes::BodySpec spec;
    spec.mass = btScalar(0.3);
    spec.position = btVector3(0, btScalar(0.7), 0);
    spec.orientation = btQuaternion(btVector3(0, 0, 1), tilt) * btQuaternion(btVector3(1, 0, 0), tilt / 3);
    spec.linearVelocity = btVector3(0, btScalar(-7), 0);
    const btRigidBody& body = *w.addBody(std::move(compound), spec);
    btScalar deepest = 0;
    for (int step = 0; step < 90; ++step) {
      w.step(1.0 / 60);
      for (const ClusterReport& c : testing::propagative(w).lastStepReport().clusters)
        EXPECT_LE(c.energyAfter, c.energyBefore * (1 + 1e-9) + 1e-300);
      for (const btScalar side : {-offset, offset}) {
        btTransform child = body.getWorldTransform() * btTransform(btQuaternion::getIdentity(), btVector3(side, 0, 0));
        for (int k = 0; k < 8; ++k) {
          const btVector3 corner(k & 1 ? half.x() : -half.x(), k & 2 ? half.y() : -half.y(), k & 4 ? half.z() : -half.z());
          deepest = std::min(deepest, (child * corner).y());
        }
      }
    }
    EXPECT_GE(deepest, btScalar(-0.02)) << "tilt " << tilt;
  }
}

}  // namespace
}  // namespace propimpact
