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

btScalar top(const btRigidBody& body) {
  btVector3 low, high;
  body.getCollisionShape()->getAabb(body.getWorldTransform(), low, high);
  return high.y();
}

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
      ASSERT_GE(top(ball), 2 * r - btScalar(0.005)) << "overlap " << overlap << ", step " << step;
    }
    EXPECT_GT(impacts, 0) << "the hull must meet the ball as an impact";
    const SolverSettings settings;
    EXPECT_GE(box.getCenterOfMassPosition().y(), 2 * r + h - btScalar(settings.impactOverlapSlop) - btScalar(1e-3))
        << "overlap " << overlap << ": the hull was not pushed out";
  }
}

}  // namespace
}  // namespace propimpact
