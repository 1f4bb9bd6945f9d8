// Newton's cradle of Featherstone multibodies (btMultiBody, as PyBullet's
// loadURDF builds them) with the propagative multibody solver swapped in for
// btMultiBodyConstraintSolver: five floating-base balls in a line, zero
// gravity, the first sent into the others at 1 m/s. Prints each impact's
// report and the final velocities, and exits non-zero unless the last ball
// leaves at v0 and the others stay at rest (to 1e-6 v0, whatever btScalar is).
#include <btBulletDynamicsCommon.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <fmt/core.h>
#include <propimpact/bullet/PropagativeMultiBodySolver.h>
#include <propimpact/bullet/ReportFormat.h>

#include <cmath>
#include <memory>
#include <vector>

int main() {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btDbvtBroadphase broadphase;
  propimpact::PropagativeMultiBodySolver solver;  // the only change from stock Bullet
  btMultiBodyDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  world.setGravity(btVector3(0, 0, 0));

  constexpr int kBalls = 5;
  constexpr btScalar kRadius = 0.5, kMass = 1, kV0 = 1, kDt = btScalar(1.0 / 240);
  btSphereShape shape(kRadius);
  std::vector<std::unique_ptr<btMultiBody>> balls;
  std::vector<std::unique_ptr<btMultiBodyLinkCollider>> colliders;
  for (int i = 0; i < kBalls; ++i) {
    const btScalar inertia = btScalar(0.4) * kMass * kRadius * kRadius;
    balls.push_back(std::make_unique<btMultiBody>(0, kMass, btVector3(inertia, inertia, inertia), false, false));
    btMultiBody* ball = balls.back().get();
    ball->finalizeMultiDof();
    ball->setLinearDamping(0);  // Bullet's default 0.04 would slow every ball
    ball->setAngularDamping(0);
    // The first ball starts one and a half steps of travel short of the second.
    const btScalar x = i == 0 ? -2 * kRadius - kV0 * kDt * btScalar(1.5) : 2 * kRadius * btScalar(i - 1);
    ball->setBasePos(btVector3(x, 0, 0));
    ball->setBaseVel(btVector3(i == 0 ? kV0 : 0, 0, 0));
    world.addMultiBody(ball);
    colliders.push_back(std::make_unique<btMultiBodyLinkCollider>(ball, -1));
    btMultiBodyLinkCollider* collider = colliders.back().get();
    collider->setCollisionShape(&shape);
    collider->setRestitution(1);  // combined COR = 1 · 1
    collider->setFriction(0);
    ball->setBaseCollider(collider);
    // btDiscreteDynamicsWorld's default filter would make the collider static (no ball-ball pairs).
    world.addCollisionObject(collider, btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter);
    btAlignedObjectArray<btQuaternion> rotations;  // place the collider where the ball is
    btAlignedObjectArray<btVector3> origins;
    ball->forwardKinematics(rotations, origins);
    ball->updateCollisionObjectWorldTransforms(rotations, origins);
  }

  for (int step = 0; step < 20; ++step) {
    world.stepSimulation(kDt, 1, kDt);
    const auto& report = solver.lastStepReport();
    if (!report.clusters.empty()) fmt::print("step {}: {}\n", step, report);
  }
  bool ok = true;
  for (int i = 0; i < kBalls; ++i) {
    const double v = balls[static_cast<std::size_t>(i)]->getBaseVel().x();
    const double expected = i == kBalls - 1 ? kV0 : 0;
    ok = ok && std::abs(v - expected) < 1e-6 * kV0;
    fmt::print("ball {}: {:+.9f} m/s (expected {:+.1f})\n", i, v, expected);
  }
  fmt::print("{}\n", ok ? "PASS" : "FAIL");
  for (auto& c : colliders) world.removeCollisionObject(c.get());
  for (auto& b : balls) world.removeMultiBody(b.get());
  return ok ? 0 : 1;
}
