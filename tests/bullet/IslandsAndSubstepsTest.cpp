// How btDiscreteDynamicsWorld hands work to the solver (issue 3): sleeping
// islands never reach it, small islands arrive batched into one solveGroup
// call, and one stepSimulation call may run several substeps whose impacts
// all end up in one report.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <vector>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

using testing::kEnergyTolerance;
using testing::kVelocityTolerance;

constexpr double kRadius = 0.5;
constexpr double kGravity = 9.81;

// The drop-in solver, counting what Bullet passes to it.
class CountingSolver : public PropagativeImpactSolver {
 public:
  struct Call {
    int bodies = 0;
    int manifolds = 0;
  };
  std::vector<Call> calls;                         // since the last clear
  std::set<const btCollisionObject*> bodiesSeen;  // since the last clear

  btScalar solveGroup(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds, int numManifolds,
                      btTypedConstraint** constraints, int numConstraints, const btContactSolverInfo& info,
                      btIDebugDraw* debugDrawer, btDispatcher* dispatcher) override {
    calls.push_back(Call{numBodies, numManifolds});
    for (int i = 0; i < numBodies; ++i) bodiesSeen.insert(bodies[i]);
    return PropagativeImpactSolver::solveGroup(bodies, numBodies, manifolds, numManifolds, constraints, numConstraints,
                                               info, debugDrawer, dispatcher);
  }
  void clear() {
    calls.clear();
    bodiesSeen.clear();
  }
};

// A box that has fallen asleep on the floor stays asleep, unmoved and unseen
// by the solver while a ball in another island bounces beside it.
TEST(IslandsAndSubsteps, SleepingIslandIsNotDisturbed) {
  auto owned = std::make_unique<CountingSolver>();
  CountingSolver& solver = *owned;
  scenes::World world(std::move(owned));
  world.setGravity(btVector3(0, btScalar(-kGravity), 0));
  scenes::BodySpec floor;
  floor.mass = 0;
  floor.position = btVector3(0, -1, 0);
  floor.restitution = 1;
  world.addBox(btVector3(20, 1, 20), floor);
  scenes::BodySpec boxSpec;
  boxSpec.position = btVector3(-5, btScalar(0.5), 0);
  boxSpec.allowSleeping = true;
  btRigidBody* box = world.addBox(btVector3(btScalar(0.5), btScalar(0.5), btScalar(0.5)), boxSpec);
  scenes::BodySpec ballSpec;
  ballSpec.position = btVector3(5, btScalar(kRadius + 0.5), 0);
  ballSpec.restitution = 1;
  ballSpec.friction = 0;
  btRigidBody* ball = world.addSphere(btScalar(kRadius), ballSpec);

  // Bullet puts a body to sleep after 2 s below its sleeping thresholds.
  constexpr double dt = 1.0 / 60;
  int step = 0;
  for (; step < 600 && box->getActivationState() != ISLAND_SLEEPING; ++step) world.step(dt);
  ASSERT_EQ(box->getActivationState(), ISLAND_SLEEPING) << "after " << step << " steps";
  const btTransform asleep = box->getWorldTransform();
  EXPECT_NEAR(asleep.getOrigin().y(), 0.5, 0.01);

  solver.clear();
  int impacts = 0;
  for (int k = 0; k < 300; ++k) {
    world.step(dt);
    impacts += static_cast<int>(solver.lastStepReport().clusters.size());
    ASSERT_EQ(box->getActivationState(), ISLAND_SLEEPING) << "step " << k;
  }
  EXPECT_GE(impacts, 5);  // the ball bounces every 0.64 s at COR 1
  EXPECT_EQ(solver.bodiesSeen.count(box), 0u);
  EXPECT_EQ(solver.bodiesSeen.count(ball), 1u);
  EXPECT_EQ(box->getWorldTransform().getOrigin(), asleep.getOrigin());
  EXPECT_EQ(box->getWorldTransform().getBasis(), asleep.getBasis());
  EXPECT_EQ(box->getLinearVelocity(), btVector3(0, 0, 0));
  EXPECT_EQ(box->getAngularVelocity(), btVector3(0, 0, 0));
}

// Twenty independent two-ball cradles: twenty islands of one manifold each,
// far below m_minimumSolverBatchSize (128 manifolds + constraints), so Bullet
// merges them into a single solveGroup call. Each must come out as if alone:
// (1−e, 1+e)·v0/2 at its own COR and speed.
TEST(IslandsAndSubsteps, ManySmallIslandsBatchedIntoOneCall) {
  constexpr int kPairs = 20;
  constexpr double dt = 1.0 / 60;
  const double cors[] = {1.0, 0.5, 0.0, 0.7};
  auto owned = std::make_unique<CountingSolver>();
  CountingSolver& solver = *owned;
  scenes::World world(std::move(owned));
  ASSERT_EQ(world.dynamics().getSolverInfo().m_minimumSolverBatchSize, 128);
  struct Pair {
    btRigidBody* a;
    btRigidBody* b;
    double v0;
    double cor;
  };
  std::vector<Pair> pairs;
  for (int i = 0; i < kPairs; ++i) {
    const double cor = cors[i % 4];
    const double v0 = 0.5 + 0.25 * i;
    const btScalar z = btScalar(3 * i);
    scenes::BodySpec spec;
    spec.restitution = scenes::bodyRestitution(cor);
    spec.friction = 0;
    spec.position = btVector3(2 * kRadius, 0, z);
    btRigidBody* b = world.addSphere(btScalar(kRadius), spec);
    spec.position = btVector3(btScalar(-1.5 * v0 * dt), 0, z);  // gap 1.5·v0·dt: step 2 closes it (reflected then)
    spec.linearVelocity = btVector3(btScalar(v0), 0, 0);
    btRigidBody* a = world.addSphere(btScalar(kRadius), spec);
    pairs.push_back(Pair{a, b, v0, cor});
  }
  const double before = world.kineticEnergy();

  world.step(dt);
  EXPECT_TRUE(solver.lastStepReport().clusters.empty());
  solver.clear();
  world.step(dt);  // every pair's impact
  ASSERT_EQ(solver.calls.size(), 1u) << "Bullet did not batch the islands";
  EXPECT_EQ(solver.calls.front().bodies, 2 * kPairs);
  EXPECT_EQ(solver.calls.front().manifolds, kPairs);

  const StepReport& report = solver.lastStepReport();
  ASSERT_EQ(report.clusters.size(), static_cast<std::size_t>(kPairs));
  std::set<const btCollisionObject*> covered;
  for (const ClusterReport& cluster : report.clusters) {
    EXPECT_EQ(cluster.bodies.size(), 2u);
    EXPECT_EQ(cluster.contacts.size(), 1u);
    covered.insert(cluster.bodies.begin(), cluster.bodies.end());
    // The cluster is one pair: its coefficient is that pair's.
    const auto pair = std::find_if(pairs.begin(), pairs.end(), [&](const Pair& p) {
      return std::find(cluster.bodies.begin(), cluster.bodies.end(), p.a) != cluster.bodies.end();
    });
    ASSERT_NE(pair, pairs.end());
    EXPECT_NE(std::find(cluster.bodies.begin(), cluster.bodies.end(), pair->b), cluster.bodies.end());
    EXPECT_NEAR(cluster.restitution, pair->cor, 1e-6);
  }
  EXPECT_EQ(covered.size(), static_cast<std::size_t>(2 * kPairs));

  for (int k = 0; k < 10; ++k) world.step(dt);
  double expectedEnergy = 0;
  for (const Pair& p : pairs) {
    const double va = (1 - p.cor) / 2 * p.v0;
    const double vb = (1 + p.cor) / 2 * p.v0;
    EXPECT_NEAR(p.a->getLinearVelocity().x(), va, kVelocityTolerance * p.v0) << fmt::format("COR {} v0 {}", p.cor, p.v0);
    EXPECT_NEAR(p.b->getLinearVelocity().x(), vb, kVelocityTolerance * p.v0) << fmt::format("COR {} v0 {}", p.cor, p.v0);
    expectedEnergy += 0.5 * (va * va + vb * vb);
  }
  EXPECT_NEAR(world.kineticEnergy() / before, expectedEnergy / before, kEnergyTolerance);
}

// stepSimulation(4.5/240, 10, 1/240) runs four substeps of 1/240 s. Pair P
// overlaps from the start (impact in substep 0), pair Q first overlaps in
// substep 2. Read once after the call, the report holds both clusters with
// their substeps, and substeps = 4.
TEST(IslandsAndSubsteps, ReportAccumulatesEverySubstepOfOneCall) {
  constexpr double fixed = 1.0 / 240;
  scenes::World world("propagative");
  PropagativeImpactSolver& solver = testing::propagative(world);
  scenes::BodySpec spec;
  spec.restitution = 1;
  spec.friction = 0;
  constexpr double v0 = 2;
  const auto addPair = [&](double z, int preSteps) {
    spec.linearVelocity = btVector3(0, 0, 0);
    spec.position = btVector3(2 * kRadius, 0, btScalar(z));
    btRigidBody* b = world.addSphere(btScalar(kRadius), spec);
    // Gap (preSteps + ½)·v0·Δt: substep preSteps (0-based) is the one whose
    // motion closes it, where the solver reflects the pair.
    spec.position = btVector3(btScalar(-(preSteps + 0.5) * v0 * fixed), 0, btScalar(z));
    spec.linearVelocity = btVector3(btScalar(v0), 0, 0);
    btRigidBody* a = world.addSphere(btScalar(kRadius), spec);
    return std::make_pair(a, b);
  };
  const auto p = addPair(0, 0);
  const auto q = addPair(5, 2);
  const double before = world.kineticEnergy();

  const int substeps = world.dynamics().stepSimulation(btScalar(4.5 * fixed), 10, btScalar(fixed));
  ASSERT_EQ(substeps, 4);
  const StepReport& report = solver.lastStepReport();
  EXPECT_EQ(report.substeps, 4);
  ASSERT_EQ(report.clusters.size(), 2u);
  const auto holds = [](const ClusterReport& c, const btRigidBody* body) {
    return std::find(c.bodies.begin(), c.bodies.end(), body) != c.bodies.end();
  };
  for (const ClusterReport& cluster : report.clusters) {
    if (holds(cluster, p.first)) {
      EXPECT_EQ(cluster.substep, 0);
      EXPECT_TRUE(holds(cluster, p.second));
    } else {
      EXPECT_TRUE(holds(cluster, q.first));
      EXPECT_EQ(cluster.substep, 2);
    }
  }
  for (const auto& pair : {p, q}) {
    EXPECT_NEAR(pair.first->getLinearVelocity().x(), 0, kVelocityTolerance * v0);
    EXPECT_NEAR(pair.second->getLinearVelocity().x(), v0, kVelocityTolerance * v0);
  }
  EXPECT_NEAR(world.kineticEnergy() / before, 1, kEnergyTolerance);

  // The next call starts a fresh report (this one has been read).
  world.dynamics().stepSimulation(btScalar(fixed), 10, btScalar(fixed));
  EXPECT_TRUE(solver.lastStepReport().clusters.empty());
}

}  // namespace
}  // namespace propimpact
