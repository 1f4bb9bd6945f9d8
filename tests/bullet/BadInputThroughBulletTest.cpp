// Bad input through Bullet (issue 6, item 6): one broken body in a world —
// NaN position or velocity, zero or negative mass, a degenerate shape, a body
// removed between steps — must not stop stepSimulation, must not disturb the
// other islands (a separate three-ball cradle still ends at (0, 0, v0)), and
// the solver's report names the broken body with a reason.
#include <fmt/core.h>

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

constexpr double kDt = 1.0 / 60;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool finite(const btVector3& v) { return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z()); }

/// A world with a three-ball cradle on the x axis (zero gravity, COR 1) and
/// room for a broken body far from it.
struct Fixture {
  scenes::World world{"propagative"};
  scenes::SceneBodies cradle;
  Fixture() {
    scenes::CradleLine scene;
    cradle = scenes::build(world, scene);
  }
  PropagativeImpactSolver& solver() { return testing::propagative(world); }

  /// Steps until the cradle has certainly resolved, collecting every report's rejected bodies.
  std::vector<RejectedBody> step(int steps = 30) {
    std::vector<RejectedBody> rejected;
    for (int k = 0; k < steps; ++k) {
      world.step(kDt);
      for (const RejectedBody& r : solver().lastStepReport().rejected) rejected.push_back(r);
    }
    return rejected;
  }

  void expectCradleIntact() {
    const double v0 = 1;
    const double expected[3] = {0, 0, v0};
    for (int i = 0; i < 3; ++i) {
      const btRigidBody* ball = cradle.bodies[static_cast<std::size_t>(i)];
      ASSERT_TRUE(finite(ball->getLinearVelocity())) << "ball " << i;
      EXPECT_NEAR(ball->getLinearVelocity().x(), expected[i], testing::kVelocityTolerance * v0) << "ball " << i;
      EXPECT_NEAR(ball->getLinearVelocity().y(), 0, testing::kVelocityTolerance * v0) << "ball " << i;
      EXPECT_NEAR(ball->getLinearVelocity().z(), 0, testing::kVelocityTolerance * v0) << "ball " << i;
    }
  }
};

const RejectedBody* find(const std::vector<RejectedBody>& rejected, const btCollisionObject* body) {
  for (const RejectedBody& r : rejected)
    if (r.body == body) return &r;
  return nullptr;
}

/// A ball at rest at \p x on the z = 10 line, with a touching partner ball at
/// x + 1 so that the broken body's island has a manifold (and a neighbour
/// that must come out unharmed).
struct Pair {
  btRigidBody* bad = nullptr;
  btRigidBody* neighbour = nullptr;
};
Pair addPair(scenes::World& world, double approach = 0.2) {
  scenes::BodySpec spec;
  spec.restitution = 1;
  spec.friction = 0;
  spec.position = btVector3(0, 0, 10);
  spec.linearVelocity = btVector3(btScalar(approach), 0, 0);
  Pair p;
  p.bad = world.addSphere(btScalar(0.5), spec);
  spec.position = btVector3(btScalar(0.999), 0, 10);
  spec.linearVelocity = btVector3(0, 0, 0);
  p.neighbour = world.addSphere(btScalar(0.5), spec);
  return p;
}

void expectNeighbourFinite(const Pair& p) {
  EXPECT_TRUE(finite(p.neighbour->getLinearVelocity()));
  EXPECT_TRUE(finite(p.neighbour->getAngularVelocity()));
  EXPECT_TRUE(finite(p.neighbour->getWorldTransform().getOrigin()));
}

TEST(BadInputThroughBullet, NaNVelocity) {
  Fixture f;
  const Pair p = addPair(f.world);
  p.bad->setLinearVelocity(btVector3(btScalar(kNaN), 0, 0));
  const auto rejected = f.step();
  const RejectedBody* r = find(rejected, p.bad);
  ASSERT_NE(r, nullptr) << "the NaN body is not named in the report";
  EXPECT_EQ(r->reason, "non-finite velocity");
  EXPECT_EQ(rejected.size(), static_cast<std::size_t>(std::count_if(rejected.begin(), rejected.end(), [&](const RejectedBody& x) { return x.body == p.bad; })));
  f.expectCradleIntact();
  expectNeighbourFinite(p);
}

TEST(BadInputThroughBullet, NaNAngularVelocity) {
  Fixture f;
  const Pair p = addPair(f.world);
  p.bad->setAngularVelocity(btVector3(0, btScalar(kNaN), 0));
  const auto rejected = f.step();
  const RejectedBody* r = find(rejected, p.bad);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->reason, "non-finite velocity");
  f.expectCradleIntact();
  expectNeighbourFinite(p);
}

TEST(BadInputThroughBullet, NaNPosition) {
  Fixture f;
  const Pair p = addPair(f.world);
  btTransform t = p.bad->getWorldTransform();
  t.setOrigin(btVector3(btScalar(kNaN), 0, 10));
  p.bad->setWorldTransform(t);
  const auto rejected = f.step();
  const RejectedBody* r = find(rejected, p.bad);
  ASSERT_NE(r, nullptr) << "the NaN body is not named in the report";
  EXPECT_EQ(r->reason, "non-finite position");
  f.expectCradleIntact();
  expectNeighbourFinite(p);
}

TEST(BadInputThroughBullet, ZeroMassOnADynamicBody) {
  Fixture f;
  const Pair p = addPair(f.world);
  // A dynamic body (not flagged static) whose mass is zero: setMassProps(0)
  // makes Bullet flag it static, so clear the flag as a careless caller might.
  p.bad->setMassProps(0, btVector3(0, 0, 0));
  p.bad->setCollisionFlags(p.bad->getCollisionFlags() & ~btCollisionObject::CF_STATIC_OBJECT);
  const auto rejected = f.step();
  const RejectedBody* r = find(rejected, p.bad);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->reason, "zero, negative or non-finite mass");
  f.expectCradleIntact();
  expectNeighbourFinite(p);
}

TEST(BadInputThroughBullet, NegativeMass) {
  Fixture f;
  const Pair p = addPair(f.world);
  p.bad->setMassProps(-1, btVector3(btScalar(0.1), btScalar(0.1), btScalar(0.1)));
  const auto rejected = f.step();
  const RejectedBody* r = find(rejected, p.bad);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->reason, "zero, negative or non-finite mass");
  f.expectCradleIntact();
  expectNeighbourFinite(p);
}

TEST(BadInputThroughBullet, ZeroRadiusSphere) {
  Fixture f;
  scenes::BodySpec spec;
  spec.restitution = 1;
  spec.friction = 0;
  spec.position = btVector3(0, 0, 10);
  spec.linearVelocity = btVector3(btScalar(0.5), 0, 0);
  btRigidBody* point = f.world.addSphere(0, spec);  // zero inertia: a dynamic point mass
  spec.position = btVector3(btScalar(0.5), 0, 10);
  spec.linearVelocity = btVector3(0, 0, 0);
  btRigidBody* target = f.world.addSphere(btScalar(0.5), spec);
  const auto rejected = f.step(60);
  f.expectCradleIntact();
  for (const btRigidBody* body : {point, target}) {
    EXPECT_TRUE(finite(body->getLinearVelocity()));
    EXPECT_TRUE(finite(body->getAngularVelocity()));
    EXPECT_TRUE(finite(body->getWorldTransform().getOrigin()));
  }
  // Zero inertia is a rotationless body, not bad input: nothing is rejected,
  // and the point mass cannot gain energy in its elastic hit.
  EXPECT_TRUE(rejected.empty());
  const double energy = 0.5 * (point->getLinearVelocity().length2() + target->getLinearVelocity().length2());
  EXPECT_LE(energy, 0.5 * 0.25 * (1 + 1e-9));
}

TEST(BadInputThroughBullet, ZeroExtentBox) {
  Fixture f;
  scenes::BodySpec spec;
  spec.restitution = 1;
  spec.friction = 0;
  spec.position = btVector3(0, 0, 10);
  spec.linearVelocity = btVector3(btScalar(0.5), 0, 0);
  btRigidBody* flat = f.world.addBox(btVector3(0, 0, 0), spec);
  spec.position = btVector3(btScalar(0.52), 0, 10);
  spec.linearVelocity = btVector3(0, 0, 0);
  btRigidBody* target = f.world.addBox(btVector3(btScalar(0.5), btScalar(0.5), btScalar(0.5)), spec);
  const auto rejected = f.step(60);
  f.expectCradleIntact();
  for (const btRigidBody* body : {flat, target}) {
    EXPECT_TRUE(finite(body->getLinearVelocity()));
    EXPECT_TRUE(finite(body->getWorldTransform().getOrigin()));
  }
  (void)rejected;
}

TEST(BadInputThroughBullet, BodyRemovedBetweenSteps) {
  Fixture f;
  const Pair p = addPair(f.world, 0.5);
  // Let the pair touch and be resolved once, then remove one of them while
  // its manifold and the solver's remembered pair still exist.
  for (int k = 0; k < 3; ++k) f.world.step(kDt);
  f.world.dynamics().removeRigidBody(p.neighbour);
  const auto rejected = f.step();
  EXPECT_TRUE(rejected.empty());
  f.expectCradleIntact();
  EXPECT_TRUE(finite(p.bad->getLinearVelocity()));
  // Put it back: stepping on with a re-added body must work too.
  f.world.dynamics().addRigidBody(p.neighbour);
  for (int k = 0; k < 30; ++k) f.world.step(kDt);
  expectNeighbourFinite(p);
}

TEST(BadInputThroughBullet, BadBodyInsideTheCradleIsland) {
  // The broken body touches the cradle's last ball: the cradle's impact must
  // still come out right for the balls it reaches, and nothing turns NaN.
  Fixture f;
  scenes::BodySpec spec;
  spec.restitution = 1;
  spec.friction = 0;
  spec.position = btVector3(0, btScalar(1.0), 0);  // on top of the middle ball (x = 0), touching it
  btRigidBody* bad = f.world.addSphere(btScalar(0.5), spec);
  bad->setLinearVelocity(btVector3(btScalar(kNaN), btScalar(kNaN), 0));
  const auto rejected = f.step();
  const RejectedBody* r = find(rejected, bad);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->reason, "non-finite velocity");
  for (const btRigidBody* ball : f.cradle.bodies) {
    EXPECT_TRUE(finite(ball->getLinearVelocity()));
    EXPECT_TRUE(finite(ball->getWorldTransform().getOrigin()));
  }
  f.expectCradleIntact();
}

}  // namespace
}  // namespace propimpact

namespace propimpact {
namespace {

// A static body whose velocity is NaN (an application's bad write), touched
// by a ball that another ball then hits: the impact's component holds the
// static contact, whose relative velocity would carry the NaN into the impact
// problem (found: InputError "contact bias" thrown out of stepSimulation).
// The step must go on, the body must be named in the report, both balls must
// stay finite, and the cradle elsewhere must stay exact.
TEST(BadInputThroughBullet, NaNVelocityOnAStaticBodyInAnImpact) {
  Fixture f;
  scenes::BodySpec wall;
  wall.mass = 0;
  wall.position = btVector3(0, 0, 10);
  btRigidBody* bad = f.world.addSphere(btScalar(0.5), wall);
  bad->setLinearVelocity(btVector3(btScalar(kNaN), 0, 0));
  scenes::BodySpec ball;
  ball.restitution = 1;
  ball.friction = 0;
  ball.position = btVector3(btScalar(0.999), 0, 10);
  const btRigidBody* resting = f.world.addSphere(btScalar(0.5), ball);
  ball.position = btVector3(btScalar(2.01), 0, 10);
  ball.linearVelocity = btVector3(-1, 0, 0);
  const btRigidBody* hitter = f.world.addSphere(btScalar(0.5), ball);
  const auto rejected = f.step();
  const RejectedBody* r = find(rejected, bad);
  ASSERT_NE(r, nullptr) << "the static body with a NaN velocity is not named in the report";
  EXPECT_EQ(r->reason, "non-finite velocity");
  for (const btRigidBody* b : {resting, hitter}) {
    EXPECT_TRUE(finite(b->getLinearVelocity()));
    EXPECT_TRUE(finite(b->getWorldTransform().getOrigin()));
  }
  f.expectCradleIntact();
}

}  // namespace
}  // namespace propimpact

namespace propimpact {
namespace {

// Settings out of range (a negative reflection cap) are not thrown out of
// stepSimulation: the step reports what is wrong and leaves every impact to
// Bullet's pass.
TEST(BadInputThroughBullet, SettingsOutOfRangeAreReportedNotThrown) {
  scenes::World world("propagative");
  scenes::BodySpec ball;
  ball.restitution = 1;
  ball.friction = 0;
  world.addSphere(btScalar(0.5), ball);
  ball.position = btVector3(btScalar(1.01), 0, 0);
  ball.linearVelocity = btVector3(-1, 0, 0);
  world.addSphere(btScalar(0.5), ball);
  PropagativeImpactSolver& solver = testing::propagative(world);
  solver.settings().reflectionCap = -1;
  const char* reported = nullptr;
  for (int k = 0; k < 3; ++k) {
    EXPECT_NO_THROW(world.step(1.0 / 60));
    const StepReport& report = solver.lastStepReport();
    EXPECT_TRUE(report.clusters.empty());
    if (report.settingsError) reported = report.settingsError;
  }
  ASSERT_NE(reported, nullptr) << "the impact's step did not report the settings";
  EXPECT_STREQ(reported, "reflectionCap must be >= 0");
}

// A negative resting factor and floor make every resting speed negative, which the
// impact problem refuses: counted, the contact keeps resting speed 0, and the
// impact is still resolved exactly (head-on, equal balls: they exchange).
TEST(BadInputThroughBullet, RefusedRestingSpeedsAreCountedAndTheImpactStillResolved) {
  scenes::World world("propagative");
  scenes::BodySpec ball;
  ball.restitution = 1;
  ball.friction = 0;
  const btRigidBody* resting = world.addSphere(btScalar(0.5), ball);
  ball.position = btVector3(btScalar(1.01), 0, 0);
  ball.linearVelocity = btVector3(-1, 0, 0);
  const btRigidBody* hitter = world.addSphere(btScalar(0.5), ball);
  PropagativeImpactSolver& solver = testing::propagative(world);
  solver.settings().restingFactor = -1;
  solver.settings().restingFloor = -1e-3;
  std::int64_t rejected = 0;
  std::size_t clusters = 0;
  for (int k = 0; k < 3; ++k) {
    EXPECT_NO_THROW(world.step(1.0 / 60));
    rejected += solver.lastStepReport().rejectedInputs;
    clusters += solver.lastStepReport().clusters.size();
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GE(clusters, 1u);
  EXPECT_NEAR(resting->getLinearVelocity().x(), -1, testing::kVelocityTolerance);
  EXPECT_NEAR(hitter->getLinearVelocity().x(), 0, testing::kVelocityTolerance);
}

}  // namespace
}  // namespace propimpact
