// A ball dropped from 10 m onto a static ground box at 240 Hz, COR 0.8, with
// the propagative impact solver: each apex is 0.8² of the one before (the
// solver loses exactly what the coefficient says), and when the bounces get
// shorter than a step the ball comes to rest instead of chattering (the Zeno
// rule: approach speeds below what one step of gravity produces are resting
// contact). Prints the apexes against 0.8^(2k)·10 m and exits non-zero if
// one is off by more than 2 % or the ball does not settle.
#include <btBulletDynamicsCommon.h>
#include <fmt/core.h>
#include <propimpact/bullet/PropagativeImpactSolver.h>

#include <cmath>

int main() {
  const double cor = 0.8;
  const double dropHeight = 10;
  const double radius = 0.5;
  const double hz = 240;

  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btDbvtBroadphase broadphase;
  propimpact::PropagativeImpactSolver solver;
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  world.setGravity(btVector3(0, btScalar(-9.81), 0));

  // Bullet's combined restitution is the product of the two bodies': sqrt(COR) each.
  const btScalar restitution = btScalar(std::sqrt(cor));
  // A thin ground box: Bullet computes sphere–box contacts in the box's frame,
  // and a thin box keeps that frame's coordinates (and their round-off in
  // single precision) small.
  btBoxShape groundShape(btVector3(50, 1, 50));
  btRigidBody::btRigidBodyConstructionInfo groundInfo(0, nullptr, &groundShape);
  groundInfo.m_startWorldTransform.setOrigin(btVector3(0, -1, 0));  // top face at y = 0
  groundInfo.m_restitution = restitution;
  btRigidBody ground(groundInfo);
  world.addRigidBody(&ground);

  btSphereShape ballShape{btScalar(radius)};
  btVector3 inertia;
  ballShape.calculateLocalInertia(1, inertia);
  btRigidBody::btRigidBodyConstructionInfo ballInfo(1, nullptr, &ballShape, inertia);
  ballInfo.m_startWorldTransform.setOrigin(btVector3(0, btScalar(dropHeight + radius), 0));
  ballInfo.m_restitution = restitution;
  btRigidBody ball(ballInfo);
  ball.setActivationState(DISABLE_DEACTIVATION);
  world.addRigidBody(&ball);

  fmt::print("{:>6} {:>10} {:>12} {:>12} {:>9}\n", "apex", "time (s)", "height (m)", "0.8^(2k)*h", "ratio");
  bool ok = true;
  int apexes = 0;
  int impacts = 0;
  double lastImpact = 0;
  double previousVy = 0;
  const int steps = static_cast<int>(30 * hz);
  for (int step = 1; step <= steps; ++step) {
    world.stepSimulation(btScalar(1 / hz), 1, btScalar(1 / hz));
    const propimpact::StepReport& report = solver.lastStepReport();
    if (!report.clusters.empty()) {
      impacts += static_cast<int>(report.clusters.size());
      lastImpact = step / hz;
    }
    const double vy = ball.getLinearVelocity().y();
    if (previousVy > 0 && vy <= 0 && apexes < 5) {
      ++apexes;
      const double height = ball.getWorldTransform().getOrigin().y() - radius;
      const double expected = dropHeight * std::pow(cor, 2 * apexes);
      const bool good = std::abs(height / expected - 1) < 0.02;
      ok = ok && good;
      fmt::print("{:>6} {:>10.4f} {:>12.6f} {:>12.6f} {:>9.5f}{}\n", apexes, step / hz, height, expected, height / expected,
                 good ? "" : "  <-- off by more than 2 %");
    }
    previousVy = vy;
  }
  const double height = ball.getWorldTransform().getOrigin().y() - radius;
  const double vertical = std::abs(ball.getLinearVelocity().y());
  const double horizontal = std::hypot(ball.getLinearVelocity().x(), ball.getLinearVelocity().z());
  // Settled: the last impact long before the end, resting on the ground, no
  // vertical motion. (In single precision the round-off of Bullet's contact
  // normal lets a resting ball creep sideways at about a millimetre per
  // second, with the stock solver as well; that is the horizontal speed.)
  const bool settled = lastImpact < 20 && vertical < 1e-3 && std::abs(height) < 0.01;
  fmt::print("{} impacts, the last at {:.3f} s; after {:.0f} s: height {:.2e} m, vertical speed {:.2e} m/s, "
             "horizontal {:.2e} m/s{}\n",
             impacts, lastImpact, steps / hz, height, vertical, horizontal, settled ? "" : "  <-- not at rest");
  ok = ok && apexes == 5 && settled;
  fmt::print("{}\n", ok ? "PASS" : "FAIL");
  world.removeRigidBody(&ball);
  world.removeRigidBody(&ground);
  return ok ? 0 : 1;
}
