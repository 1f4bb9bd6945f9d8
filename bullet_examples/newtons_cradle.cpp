// Newton's cradle with the propagative impact solver, in plain Bullet.
//
// 1. Three balls on a line in zero gravity, B and C touching, A hitting B at
//    1 m/s. The propagative model passes the impulse through: COR 1 gives
//    (0, 0, 1) m/s, COR 0.7 gives (0.1, 0.1, 0.8) m/s. (Bullet's stock solver
//    gives every ball some speed here.)
// 2. A hanging five-ball cradle: pendulums on btPoint2PointConstraint under
//    gravity, the first one released from 0.5 rad. The impacts are resolved
//    in the metric the joints admit, so the last ball swings out as high as
//    the first was released and the total energy stays put swing after swing.
//
// Prints a velocity table for the line and an energy table for the pendulums;
// exits non-zero if a physics check fails.
#include <btBulletDynamicsCommon.h>
#include <fmt/core.h>
#include <propimpact/bullet/PropagativeImpactSolver.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace {

// What "exact" means at Bullet's precision.
constexpr double kTolerance = sizeof(btScalar) == 8 ? 1e-9 : 1e-5;
constexpr double kGravity = 9.81;
constexpr double kRadius = 0.5;

// A Bullet world with the propagative solver and the balls it owns.
struct Cradle {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher{&configuration};
  btDbvtBroadphase broadphase;
  propimpact::PropagativeImpactSolver solver;  // instead of btSequentialImpulseConstraintSolver
  btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &configuration};
  btSphereShape ballShape{btScalar(kRadius)};
  std::vector<std::unique_ptr<btRigidBody>> balls;
  std::vector<std::unique_ptr<btPoint2PointConstraint>> strings;

  // A 1 kg ball; restitution sqrt(cor) per body, as Bullet's combined
  // coefficient is the product of the two bodies'.
  btRigidBody* addBall(const btVector3& position, const btVector3& velocity, double cor) {
    btVector3 inertia;
    ballShape.calculateLocalInertia(1, inertia);
    btRigidBody::btRigidBodyConstructionInfo info(1, nullptr, &ballShape, inertia);
    info.m_startWorldTransform.setOrigin(position);
    info.m_restitution = btScalar(std::sqrt(cor));
    info.m_friction = 0;  // the paper's frictionless balls: with μ = 0 impact friction changes nothing, bit for bit
    balls.push_back(std::make_unique<btRigidBody>(info));
    btRigidBody* ball = balls.back().get();
    ball->setLinearVelocity(velocity);
    ball->setActivationState(DISABLE_DEACTIVATION);
    world.addRigidBody(ball);
    return ball;
  }

  double kineticEnergy() const {
    double energy = 0;
    for (const auto& ball : balls) energy += 0.5 * double(ball->getLinearVelocity().length2());  // no spin here
    return energy;
  }

  ~Cradle() {
    for (auto& string : strings) world.removeConstraint(string.get());
    for (auto& ball : balls) world.removeRigidBody(ball.get());
  }
};

// Part 1: returns true when the outcome is the propagative one.
bool lineCradle(double cor) {
  Cradle cradle;
  cradle.world.setGravity(btVector3(0, 0, 0));
  const double v0 = 1;
  const double dt = 1.0 / 60;
  // A starts half a step's travel short of B, so it is detected mid-step.
  btRigidBody* a = cradle.addBall(btVector3(btScalar(-2 * kRadius - 0.5 * v0 * dt), 0, 0), btVector3(btScalar(v0), 0, 0), cor);
  btRigidBody* b = cradle.addBall(btVector3(0, 0, 0), btVector3(0, 0, 0), cor);
  btRigidBody* c = cradle.addBall(btVector3(2 * kRadius, 0, 0), btVector3(0, 0, 0), cor);
  const double before = cradle.kineticEnergy();
  for (int step = 0; step < 60; ++step) cradle.world.stepSimulation(btScalar(dt), 1, btScalar(dt));

  const double expected[3] = {(1 - cor) / 3 * v0, (1 - cor) / 3 * v0, (1 + 2 * cor) / 3 * v0};
  const btRigidBody* ball[3] = {a, b, c};
  bool ok = true;
  for (int i = 0; i < 3; ++i) {
    const double v = ball[i]->getLinearVelocity().x();
    const bool good = std::abs(v - expected[i]) <= kTolerance * v0;
    ok = ok && good;
    fmt::print("{:>5} {:>6} {:>12.9f} {:>12.9f} {}\n", cor, "ABC"[i], v, expected[i], good ? "" : "  <-- wrong");
  }
  const double ratio = cradle.kineticEnergy() / before;
  const double expectedRatio = expected[0] * expected[0] + expected[1] * expected[1] + expected[2] * expected[2];
  const bool energyOk = std::abs(ratio - expectedRatio) <= kTolerance;
  fmt::print("{:>5} {:>6} energy ratio {:.9f} (expected {:.9f}){}\n", cor, "", ratio, expectedRatio,
             energyOk ? "" : "  <-- wrong");
  return ok && energyOk;
}

// Part 2: the pendulums. \p spacing > 0 hangs them apart so that they never
// touch: the control run, whose energy drift is the joints' own.
struct Swings {
  int turningPoints = 0;
  double firstRise = 0;   // height of the first swing-out (m)
  double finalDrift = 0;  // energy change at the last turning point / swing energy
};

Swings hangingCradle(double spacing, bool print) {
  Cradle cradle;
  cradle.world.setGravity(btVector3(0, btScalar(-kGravity), 0));
  const int count = 5;
  const double length = 4;          // string length (m)
  const double releaseAngle = 0.5;  // rad
  for (int i = 0; i < count; ++i) {
    // Each string's anchor is `length` above its ball's rest position (y = 0).
    const btVector3 anchor(btScalar((2 * kRadius + spacing) * i), btScalar(length), 0);
    const double angle = i == 0 ? releaseAngle : 0.0;
    const btVector3 position = anchor + btVector3(btScalar(-length * std::sin(angle)), btScalar(-length * std::cos(angle)), 0);
    btRigidBody* ball = cradle.addBall(position, btVector3(0, 0, 0), 1.0);
    cradle.strings.push_back(std::make_unique<btPoint2PointConstraint>(*ball, anchor - position));
    cradle.world.addConstraint(cradle.strings.back().get(), true);
  }
  const auto energy = [&] {
    double potential = 0;
    for (const auto& ball : cradle.balls) potential += kGravity * ball->getWorldTransform().getOrigin().y();
    return cradle.kineticEnergy() + potential;
  };
  const double swingEnergy = kGravity * length * (1 - std::cos(releaseAngle));
  const double initial = energy();
  const double dt = 1.0 / 240;

  if (print) fmt::print("{:>9} {:>12} {:>10} {:>22}\n", "time (s)", "high ball", "rise (m)", "energy change / swing");
  Swings out;
  double previousKinetic = cradle.kineticEnergy();
  bool falling = false;
  for (int step = 1; step <= 60 * 240 && out.turningPoints < 10; ++step) {
    cradle.world.stepSimulation(btScalar(dt), 1, btScalar(dt));
    const double kinetic = cradle.kineticEnergy();
    if (falling && kinetic > previousKinetic) {
      // A turning point: the swinging ball is the highest one.
      ++out.turningPoints;
      int highest = 0;
      for (int i = 1; i < count; ++i)
        if (cradle.balls[i]->getWorldTransform().getOrigin().y() > cradle.balls[highest]->getWorldTransform().getOrigin().y()) highest = i;
      const double rise = cradle.balls[highest]->getWorldTransform().getOrigin().y();
      out.finalDrift = (energy() - initial) / swingEnergy;
      if (out.turningPoints == 1) out.firstRise = rise;
      if (print) fmt::print("{:>9.3f} {:>12} {:>10.6f} {:>22.3e}\n", step * dt, highest + 1, rise, out.finalDrift);
    }
    falling = kinetic < previousKinetic;
    previousKinetic = kinetic;
  }
  return out;
}

// Returns true when the cradle behaves like one: the last ball swings out as
// high as the first was released, and the impacts add no energy drift to
// what the joints alone do in the control run.
bool hangingCradles() {
  const Swings cradle = hangingCradle(0, true);
  const Swings control = hangingCradle(4.5, false);  // wider than a full swing: never touching
  const double releaseHeight = 4 * (1 - std::cos(0.5));
  const double riseError = std::abs(cradle.firstRise / releaseHeight - 1);
  const double impactDrift = cradle.finalDrift - control.finalDrift;
  fmt::print("first swing-out: {:.2f} % of the release height; energy drift {:.2e}, no-touch control {:.2e}, "
             "difference {:.2e} of the swing energy\n",
             100 * cradle.firstRise / releaseHeight, cradle.finalDrift, control.finalDrift, impactDrift);
  return cradle.turningPoints == 10 && control.turningPoints == 10 && riseError < 0.01 && std::abs(impactDrift) < 1e-3;
}

}  // namespace

int main() {
  fmt::print("Three balls on a line, A hits B at 1 m/s (B, C touching):\n");
  fmt::print("{:>5} {:>6} {:>12} {:>12}\n", "COR", "ball", "v (m/s)", "expected");
  const bool elastic = lineCradle(1.0);
  const bool inelastic = lineCradle(0.7);
  fmt::print("\nHanging five-ball cradle, COR 1, 240 Hz, first ball released from 0.5 rad:\n");
  const bool hanging = hangingCradles();
  const bool ok = elastic && inelastic && hanging;
  fmt::print("{}\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
