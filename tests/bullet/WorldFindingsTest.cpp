// Findings of the world fuzzer (scripts/fuzz --target world) rebuilt by hand:
// the fuzzer's worlds step differently under another compiler and its
// sanitizers, so its inputs (kept in tests/fuzz/world-corpus/) do not replay
// the failure in this build.
#include <gtest/gtest.h>

#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>

#include <memory>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

// World fuzz finding world-push-out-drives-a-ball-through-the-floor: a hull
// pressing a 2 cm ball (0.1 kg) onto the floor, the hull–ball pair impacted
// and its overlap pushed out through positions only (split impulse). Nothing
// in that pass held the ball against the floor, so the push moved the light
// ball into it (in the fuzzer's world 7 cm in one substep, through it). Here
// the hull (10 kg) starts overlapping the resting ball by 1.5–3.5 cm and
// meets it plastically without gravity: before the fix the ball's top sank to
// 2.4–3.0 cm (its bottom 1.0–1.6 cm into the floor) while the hull stayed in
// it; now the floor's row holds the ball and the hull is pushed out.
TEST(WorldFindings, PushOutDoesNotDriveABallIntoTheFloor) {
  const btScalar r = 0.02;  // ball radius
  const btScalar h = 0.2;   // hull half-extent
  for (const btScalar overlap : {btScalar(0.015), btScalar(0.02), btScalar(0.03), btScalar(0.035)}) {
    scenes::World w("propagative");  // zero gravity: the pair bears no load, so its overlap is pushed out
    scenes::BodySpec floor;
    floor.mass = 0;
    w.addBody(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), 0), floor);
    scenes::BodySpec ballSpec;
    ballSpec.mass = btScalar(0.1);
    ballSpec.position = btVector3(0, r, 0);
    const btRigidBody& ball = *w.addSphere(r, ballSpec);
    auto hull = std::make_unique<btConvexHullShape>();  // no ahead points for hull pairs: the overlap stays
    for (int k = 0; k < 8; ++k) hull->addPoint(btVector3(k & 1 ? h : -h, k & 2 ? h : -h, k & 4 ? h : -h));
    scenes::BodySpec boxSpec;
    boxSpec.mass = 10;
    boxSpec.position = btVector3(0, 2 * r + h - overlap, 0);
    boxSpec.linearVelocity = btVector3(0, btScalar(-0.5), 0);
    const btRigidBody& box = *w.addBody(std::move(hull), boxSpec);
    int impacts = 0;
    for (int step = 0; step < 20; ++step) {
      w.step(1.0 / 60);
      for (const ClusterReport& c : testing::propagative(w).lastStepReport().clusters) {
        ++impacts;
        EXPECT_LE(c.energyAfter, c.energyBefore * (1 + 1e-9) + 1e-300);
      }
      // Bullet's own resting contact keeps a sphere within a few millimetres of the plane.
      ASSERT_GE(testing::top(ball), 2 * r - btScalar(0.005)) << "overlap " << overlap << ", step " << step;
    }
    EXPECT_GT(impacts, 0) << "the hull must meet the ball as an impact";
    const SolverSettings settings;
    EXPECT_GE(box.getCenterOfMassPosition().y(), 2 * r + h - btScalar(settings.impactOverlapSlop) - btScalar(1e-3))
        << "overlap " << overlap << ": the hull was not pushed out";
  }
}

// World fuzz finding world-thin-hull-sinks-through-the-floor-at-240-hz: a
// needle (a hull of two points 1.35 cm apart, Bullet's 4 cm margin around
// them) whose principal inverse inertias span 3e-4 to 8,410 lands on its tip.
// Each impact sends the tip up (e = 0.2) almost entirely through spin, and
// Bullet's implicit gyroscopic step in the same substep takes that spin away
// at this inertia ratio, so the tip approaches again in every substep while
// the centre of mass keeps falling: before the fix the pair was impacted
// substep after substep and the needle's top went 1.7 cm under the floor.
// Now a point of an impacted pair that approaches again more than the
// overlap slop deep is resting contact (Bullet's pass stops and pushes it).
TEST(WorldFindings, NeedleLandingOnItsTipDoesNotSinkThroughTheFloor) {
  scenes::World w("propagative");
  w.setGravity(btVector3(0, btScalar(-9.81), 0));
  scenes::BodySpec floor;
  floor.mass = 0;
  floor.restitution = btScalar(0.969);
  floor.friction = btScalar(0.21);
  w.addBody(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), 0), floor);
  auto needle = std::make_unique<btConvexHullShape>();
  const btScalar side = btScalar(-0.14458900422914261);
  needle->addPoint(btVector3(side, side, btScalar(-0.15812168621167852)), false);
  needle->addPoint(btVector3(side, side, side), true);
  scenes::BodySpec spec;
  spec.mass = btScalar(0.26042715975673308);
  spec.inertiaFromShape = false;
  spec.localInertia = btVector3(btScalar(1 / 0.00030124314189145608), btScalar(1 / 378.06523627324435),
                                btScalar(1 / 8409.5125482149906));
  spec.restitution = btScalar(0.20784313725490197);
  spec.friction = 0;
  spec.position = btVector3(btScalar(-0.87647058823529411), btScalar(0.88280643847165408), btScalar(-0.87647058823529411));
  spec.orientation = btQuaternion(btScalar(0.5), btScalar(0.5), btScalar(0.5), btScalar(0.5));
  spec.linearVelocity = btVector3(btScalar(-0.028348392743371021), btScalar(-0.028348392743371021), btScalar(0.010430117916103574));
  spec.angularVelocity = btVector3(btScalar(-2.2095826657511255), btScalar(-2.2045471885252157), btScalar(4.9685664148928055));
  const btRigidBody& body = *w.addBody(std::move(needle), spec);
  int impacts = 0;
  for (int step = 0; step < 300; ++step) {
    w.step(1.0 / 240);
    for (const ClusterReport& c : testing::propagative(w).lastStepReport().clusters) {
      ++impacts;
      EXPECT_LE(c.energyAfter, c.energyBefore * (1 + 1e-9) + 1e-300);
    }
    ASSERT_GE(testing::top(body), btScalar(-0.01)) << "step " << step;
  }
  EXPECT_GT(impacts, 0) << "the needle must land as an impact";
}

}  // namespace
}  // namespace propimpact
