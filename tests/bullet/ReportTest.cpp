// The step report (issue 3, item 5): it logs in one fmt line, its contact
// impulses are the impact's momentum exchange, the impact impulses are kept
// out of btManifoldPoint::m_appliedImpulse (Bullet would warm-start them next
// step; users who read impulses find them in the report), and a report read
// once per step holds exactly that step's impacts; each contact says where
// the propagation first reflected it.
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <fmt/core.h>
#include <propimpact/bullet/ReportFormat.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

using testing::kVelocityTolerance;

// Steps \p world until its solver reports an impact; returns false if none in \p maxSteps.
bool stepToImpact(scenes::World& world, double dt, int maxSteps) {
  for (int k = 0; k < maxSteps; ++k) {
    world.step(dt);
    if (!testing::propagative(world).lastStepReport().clusters.empty()) return true;
  }
  return false;
}

TEST(Report, FormatsInOneLineAndNamesClusters) {
  scenes::World world("propagative");
  scenes::CradleLine scene;
  scenes::build(world, scene);
  ASSERT_TRUE(stepToImpact(world, scene.dt, 10));
  const std::string line = fmt::format("{}", testing::propagative(world).lastStepReport());
  fmt::print("{}\n", line);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NE(line.find("1 impact clusters"), std::string::npos) << line;
  // The bodies listed are those whose velocity changed: A and C; B passes the
  // impulse on and ends at rest, as it started.
  EXPECT_NE(line.find("cluster(substep 0, 2 bodies, 2 contacts, 2 reflections"), std::string::npos) << line;
  EXPECT_NE(line.find("certificate: "), std::string::npos) << line;
  // A single cluster formats on its own too.
  const std::string cluster = fmt::format("{}", testing::propagative(world).lastStepReport().clusters.front());
  EXPECT_EQ(cluster.rfind("cluster(", 0), 0u) << cluster;
}

// Planar billiard break: the cue ball hits two balls at once. For every body,
// m·Δv over the impact step equals the sum of its contacts' reported impulses
// along the reported normals (+ on manifold body A, − on B): the report is
// the whole momentum exchange, nothing else acted (zero gravity; the contacts
// separate, so Bullet's pass does not see them).
TEST(Report, ContactImpulsesAreNonNegativeAndAccountForTheMomentumChange) {
  for (const double cor : {1.0, 0.5}) {
    scenes::World world("propagative");
    scenes::BilliardsBreak scene;
    scene.theta = 1.2;
    scene.cor = cor;
    const scenes::SceneBodies made = scenes::build(world, scene);
    std::map<const btCollisionObject*, btVector3> before;
    bool impacted = false;
    for (int k = 0; k < 10 && !impacted; ++k) {
      for (const btRigidBody* body : made.bodies) before[body] = body->getLinearVelocity();
      world.step(scene.dt);
      impacted = !testing::propagative(world).lastStepReport().clusters.empty();
    }
    ASSERT_TRUE(impacted);
    const StepReport& report = testing::propagative(world).lastStepReport();
    ASSERT_EQ(report.clusters.size(), 1u);
    const ClusterReport& cluster = report.clusters.front();
    EXPECT_EQ(cluster.contacts.size(), 2u);
    std::map<const btCollisionObject*, btVector3> exchanged;  // btVector3() is uninitialised: zero it
    for (const btRigidBody* body : made.bodies) exchanged[body] = btVector3(0, 0, 0);
    double scale = 0;
    for (const ContactReport& c : cluster.contacts) {
      EXPECT_GE(c.impulse, 0) << "COR " << cor;
      EXPECT_LT(c.approachSpeed, 0) << "COR " << cor;
      EXPECT_GE(c.separationSpeed, -kVelocityTolerance * scene.speed) << "COR " << cor;
      const btVector3 n(btScalar(c.normal[0]), btScalar(c.normal[1]), btScalar(c.normal[2]));
      exchanged[c.bodyA] += n * btScalar(c.impulse);
      exchanged[c.bodyB] -= n * btScalar(c.impulse);
      scale = std::max(scale, c.impulse);
    }
    EXPECT_GT(scale, 0);
    for (const btRigidBody* body : made.bodies) {
      const btVector3 momentum = (body->getLinearVelocity() - before[body]) / body->getInvMass();
      const btVector3 error = momentum - exchanged[body];
      EXPECT_NEAR(double(error.length()), 0, kVelocityTolerance * scale)
          << fmt::format("COR {} body {}: m dv ({:+.6f}, {:+.6f}), impulses ({:+.6f}, {:+.6f})", cor,
                         world.indexOf(body), momentum.x(), momentum.y(), exchanged[body].x(), exchanged[body].y());
    }
  }
}

// Against a static floor under gravity, m·(Δv − g·Δt) over the impact step is
// the reported impulse along the floor's normal.
TEST(Report, StaticContactImpulseIsTheBallsMomentumChange) {
  scenes::World world("propagative");
  scenes::BouncingBall scene;
  scene.height = 1;
  const scenes::SceneBodies made = scenes::build(world, scene);
  btRigidBody* ball = made.bodies.front();
  constexpr double dt = 1.0 / 240;
  for (int k = 0; k < 240; ++k) {
    const double vy = ball->getLinearVelocity().y();
    world.step(dt);
    const StepReport& report = testing::propagative(world).lastStepReport();
    if (report.clusters.empty()) continue;
    ASSERT_EQ(report.clusters.front().contacts.size(), 1u);
    const ContactReport& c = report.clusters.front().contacts.front();
    const double normalY = c.bodyA == ball ? c.normal[1] : -c.normal[1];  // the floor's normal, seen by the ball
    EXPECT_NEAR(std::abs(normalY), 1, 1e-6);
    const double momentum = (ball->getLinearVelocity().y() - vy + 9.81 * dt) / ball->getInvMass();
    EXPECT_NEAR(c.impulse * normalY, momentum, kVelocityTolerance * std::abs(momentum));
    EXPECT_NEAR(c.impulse, 2 * std::abs(vy - 0.5 * 9.81 * dt) / ball->getInvMass(), kVelocityTolerance * c.impulse);
    return;
  }
  ADD_FAILURE() << "no impact";
}

// Every manifold point touching a cluster's bodies, after the step.
template <typename F>
void forEachPointOf(scenes::World& world, const ClusterReport& cluster, F&& f) {
  btDispatcher* dispatcher = world.dynamics().getDispatcher();
  for (int m = 0; m < dispatcher->getNumManifolds(); ++m) {
    btPersistentManifold* manifold = dispatcher->getManifoldByIndexInternal(m);
    const auto in = [&](const btCollisionObject* o) {
      return std::find(cluster.bodies.begin(), cluster.bodies.end(), o) != cluster.bodies.end();
    };
    if (!in(manifold->getBody0()) && !in(manifold->getBody1())) continue;
    for (int p = 0; p < manifold->getNumContacts(); ++p) f(manifold->getContactPoint(p));
  }
}

// COR 1: the impact's contacts separate and Bullet's pass never sees them;
// their m_appliedImpulse is exactly 0 although the impact carried m·v0 each.
// COR 0: they stay closed and Bullet's pass supports them, so
// m_appliedImpulse holds only the resting impulse, which is zero here (zero
// gravity, the impact already removed the approach); the impact's share is
// in the report only.
TEST(Report, ImpactImpulsesStayOutOfAppliedImpulse) {
  for (const double cor : {1.0, 0.0}) {
    scenes::World world("propagative");
    scenes::CradleLine scene;
    scene.cor = cor;
    scenes::build(world, scene);
    ASSERT_TRUE(stepToImpact(world, scene.dt, 10));
    const ClusterReport& cluster = testing::propagative(world).lastStepReport().clusters.front();
    for (const ContactReport& c : cluster.contacts) EXPECT_GT(c.impulse, 0.3 * scene.mass * scene.v0);
    int points = 0;
    forEachPointOf(world, cluster, [&](const btManifoldPoint& point) {
      ++points;
      if (cor == 1.0)
        EXPECT_EQ(point.m_appliedImpulse, 0);
      else
        EXPECT_NEAR(point.m_appliedImpulse, 0, kVelocityTolerance * scene.mass * scene.v0);
      EXPECT_EQ(point.m_appliedImpulseLateral1, 0);
      EXPECT_EQ(point.m_appliedImpulseLateral2, 0);
    });
    // The striker's contact is reflected in the step that would close it,
    // before Bullet reports a point for it; the resting pair's point is there.
    EXPECT_GE(points, 1) << "COR " << cor;
  }
}

// Under gravity a plastic landing stays in contact: m_appliedImpulse is
// Bullet's resting impulse of that step (about m·g·Δt), not the impact's m·u.
TEST(Report, PlasticLandingLeavesOnlyTheRestingImpulseInAppliedImpulse) {
  scenes::World world("propagative");
  scenes::BouncingBall scene;
  scene.height = 1;
  scene.cor = 0;
  scenes::build(world, scene);
  constexpr double dt = 1.0 / 240;
  ASSERT_TRUE(stepToImpact(world, dt, 240));
  const ClusterReport& cluster = testing::propagative(world).lastStepReport().clusters.front();
  const double impact = cluster.contacts.front().impulse;
  EXPECT_GT(impact, 4);  // m·sqrt(2 g h) ≈ 4.4 N·s
  double applied = 0;
  forEachPointOf(world, cluster, [&](const btManifoldPoint& point) { applied += point.m_appliedImpulse; });
  fmt::print("plastic landing: impact impulse {:.4f} N s in the report, m_appliedImpulse {:.5f} N s (m g dt = {:.5f})\n",
             impact, applied, 9.81 * dt);
  EXPECT_GE(applied, 0);
  EXPECT_LE(applied, 1.5 * 9.81 * dt);
}

TEST(Report, ReadOncePerStepHoldsThatStepOnly) {
  scenes::World world("propagative");
  scenes::CradleLine scene;
  const scenes::SceneBodies made = scenes::build(world, scene);
  PropagativeImpactSolver& solver = testing::propagative(world);
  // The impact is in the step before the first contact: the one whose motion closes the gap.
  for (int k = 1; k < made.firstContactStep - 1; ++k) {
    world.step(scene.dt);
    EXPECT_TRUE(solver.lastStepReport().clusters.empty());
  }
  world.step(scene.dt);
  EXPECT_EQ(solver.lastStepReport().clusters.size(), 1u);
  EXPECT_EQ(solver.lastStepReport().substeps, 1);
  world.step(scene.dt);
  EXPECT_TRUE(solver.lastStepReport().clusters.empty());
  EXPECT_EQ(solver.lastStepReport().substeps, 1);
}

TEST(Report, UnreadReportAccumulatesUntilRead) {
  scenes::World world("propagative");
  scenes::CradleLine scene;
  const scenes::SceneBodies made = scenes::build(world, scene);
  PropagativeImpactSolver& solver = testing::propagative(world);
  // Not read during the impact step nor the three after it.
  for (int k = 0; k < made.firstContactStep + 3; ++k) world.step(scene.dt);
  const StepReport& report = solver.lastStepReport();
  EXPECT_EQ(report.substeps, made.firstContactStep + 3);
  ASSERT_EQ(report.clusters.size(), 1u);
  EXPECT_EQ(report.clusters.front().substep, made.firstContactStep - 2);  // the step that closes the gap
  // Reading again without stepping gives the same report; the next pass starts afresh.
  EXPECT_EQ(solver.lastStepReport().clusters.size(), 1u);
  world.step(scene.dt);
  EXPECT_TRUE(solver.lastStepReport().clusters.empty());
  EXPECT_EQ(solver.lastStepReport().substeps, 1);
}

// An impact runs down an elastic chain one contact after the other (a
// Newton's cradle, eq. 8 applied contact by contact): the reported first
// reflections are 0, 1, 2, ... in the order of the contacts along the line,
// whatever order the bodies were created in.
TEST(Report, FirstReflectionsFollowTheChain) {
  for (const auto order : {scenes::Chain::Order::Forward, scenes::Chain::Order::Shuffled}) {
    scenes::World world("propagative");
    scenes::Chain scene;
    scene.count = 6;
    scene.order = order;
    (void)scenes::build(world, scene);
    ASSERT_TRUE(stepToImpact(world, scene.dt, 10));
    const ClusterReport& cluster = testing::propagative(world).lastStepReport().clusters.front();
    ASSERT_EQ(cluster.contacts.size(), static_cast<std::size_t>(scene.count));
    std::vector<std::pair<double, int>> alongTheLine;  // (x of the contact point, first reflection)
    for (const ContactReport& c : cluster.contacts) alongTheLine.emplace_back(c.point[0], c.firstReflection);
    std::sort(alongTheLine.begin(), alongTheLine.end());
    for (std::size_t k = 0; k < alongTheLine.size(); ++k)
      EXPECT_EQ(alongTheLine[k].second, static_cast<int>(k)) << "contact " << k << " along the line";
  }
}

}  // namespace
}  // namespace propimpact
