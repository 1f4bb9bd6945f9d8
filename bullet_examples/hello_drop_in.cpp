// Bullet's hello world with the propagative impact solver swapped in: a ball
// dropped onto a static ground box, COR 1. Prints height, speed and energy at
// each apex and exits non-zero if the energy drifts by more than 1 %.
#include <btBulletDynamicsCommon.h>
#include <fmt/core.h>
#include <propimpact/bullet/PropagativeImpactSolver.h>
#include <propimpact/bullet/ReportFormat.h>

#include <cmath>

int main() {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btDbvtBroadphase broadphase;
  propimpact::PropagativeImpactSolver solver;  // the only change from stock Bullet
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  world.setGravity(btVector3(0, -9.81, 0));

  btBoxShape groundShape(btVector3(50, 50, 50));
  btDefaultMotionState groundMotion(btTransform(btQuaternion::getIdentity(), btVector3(0, -50, 0)));
  btRigidBody ground(btRigidBody::btRigidBodyConstructionInfo(0, &groundMotion, &groundShape));
  ground.setRestitution(1);
  world.addRigidBody(&ground);

  btSphereShape ballShape(0.5);
  btVector3 inertia;
  ballShape.calculateLocalInertia(1, inertia);
  btDefaultMotionState ballMotion(btTransform(btQuaternion::getIdentity(), btVector3(0, 10.5, 0)));
  btRigidBody::btRigidBodyConstructionInfo ballInfo(1, &ballMotion, &ballShape, inertia);
  ballInfo.m_restitution = 1;  // combined COR = 1 · 1
  btRigidBody ball(ballInfo);
  ball.setActivationState(DISABLE_DEACTIVATION);
  world.addRigidBody(&ball);

  const auto energy = [&] {
    const btScalar height = ball.getWorldTransform().getOrigin().y() - 0.5;
    return 0.5 * ball.getLinearVelocity().length2() + 9.81 * height;
  };
  const double initial = energy();
  double worst = 0;
  int apexes = 0;
  double previousVy = 0;
  fmt::print("{:>6} {:>10} {:>12} {:>14}\n", "apex", "time (s)", "height (m)", "energy ratio");
  for (int step = 1; step <= 240 * 15 && apexes < 5; ++step) {
    world.stepSimulation(1.0 / 240, 1, 1.0 / 240);
    const double vy = ball.getLinearVelocity().y();
    if (previousVy > 0 && vy <= 0) {
      ++apexes;
      const double ratio = energy() / initial;
      worst = std::max(worst, std::abs(ratio - 1));
      fmt::print("{:>6} {:>10.4f} {:>12.6f} {:>14.9f}\n", apexes, step / 240.0, ball.getWorldTransform().getOrigin().y() - 0.5, ratio);
    }
    previousVy = vy;
    const auto& report = solver.lastStepReport();
    if (!report.clusters.empty()) fmt::print("  impact: {}\n", report);
  }
  const bool ok = apexes == 5 && worst < 0.01;
  fmt::print("{}: worst energy drift {:.3g} % over {} apexes\n", ok ? "PASS" : "FAIL", 100 * worst, apexes);
  return ok ? 0 : 1;
}
