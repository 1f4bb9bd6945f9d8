// No heap allocation inside our code once warmed up (issue 5); what is
// counted, and where, is in AllocationCounting.h / .cpp.
#include <gtest/gtest.h>

#include <propimpact/core/ImpactProblem.h>
#include <propimpact/core/ImpactResolver.h>
#include <propimpact/scenes/Scenes.h>
#include <propimpact/scenes/World.h>

#include "AllocationCounting.h"

namespace propimpact {
namespace {

using namespace alloc_counting;

constexpr int kChainContacts = 200;

/// A line of equal balls along x, touching; the first moves at +1 m/s.
void chainProblem(ImpactProblem& problem, double cor, int contacts) {
  problem.clear();
  for (int i = 0; i <= contacts; ++i) {
    RigidBodyInput body;
    body.inverseMass = 1;
    body.inverseInertiaWorld = Matrix3::Identity() * 2.5;
    if (i == 0) body.linearVelocity = Vector3(1, 0, 0);
    (void)problem.addRigidBody(body);
  }
  for (int i = 0; i < contacts; ++i)
    (void)problem.addRigidContact(i + 1, i, Vector3(1, 0, 0), Vector3(-0.5, 0, 0), Vector3(0.5, 0, 0), cor);
}

void chainProblem(ImpactProblem& problem, double cor) { chainProblem(problem, cor, kChainContacts); }

/// A ball landing on three resting balls that stand on the ground (a small pile).
void pileProblem(ImpactProblem& problem, double cor) {
  problem.clear();
  const Vector3 up(0, 1, 0);
  for (int i = 0; i < 4; ++i) {
    RigidBodyInput body;
    body.inverseMass = 1;
    body.inverseInertiaWorld = Matrix3::Identity() * 2.5;
    if (i == 3) body.linearVelocity = Vector3(0, -2, 0);
    (void)problem.addRigidBody(body);
  }
  const Vector3 directions[3] = {Vector3(0.8165, 0.5774, 0), Vector3(-0.4082, 0.5774, 0.7071),
                                 Vector3(-0.4082, 0.5774, -0.7071)};
  for (int i = 0; i < 3; ++i) {
    (void)problem.addRigidContact(i, kNoBlock, up, Vector3(0, -0.5, 0), Vector3::Zero(), cor);
    const Vector3 n = directions[i].normalized();  // from ball i to the top ball
    (void)problem.addRigidContact(3, i, n, -0.5 * n, 0.5 * n, cor);
  }
}

long resolveCountingSecond(void (*make)(ImpactProblem&, double), double cor, const ResolveOptions& options) {
  ImpactProblem problem;
  ImpactResolver resolver;
  ImpactResult result;
  make(problem, cor);
  resolver.resolve(problem, options, result);  // warm-up
  make(problem, cor);                          // rebuilt in place (clear keeps capacity)
  resetCounts();
  {
    const CountingScope counting;
    resolver.resolve(problem, options, result);
  }
  EXPECT_GT(result.reflections, 0);
  return newCalls() + mallocCalls();
}

ResolveOptions perStepOptions() {
  ResolveOptions options;  // as the Bullet adapter sets them by default
  options.analysisContactLimit = 16;
  options.growFromSeeds = true;
  return options;
}

TEST(Allocation, CoreChainResolveAllocatesNothingOnceWarm) {
  EXPECT_EQ(resolveCountingSecond(chainProblem, 1.0, perStepOptions()), 0);
}

TEST(Allocation, CoreChainPlasticBlendAllocatesNothingOnceWarm) {
  EXPECT_EQ(resolveCountingSecond(chainProblem, 0.5, perStepOptions()), 0);
}

TEST(Allocation, CorePileImpactWithAnalysisAllocatesNothingOnceWarm) {
  EXPECT_EQ(resolveCountingSecond(pileProblem, 0.5, perStepOptions()), 0);
  EXPECT_EQ(resolveCountingSecond(pileProblem, 1.0, perStepOptions()), 0);
}

// ImpactProblem::reserve and ImpactResolver::reserve size everything ahead:
// after one small resolve, the first 200-contact chain (building the problem
// and resolving it, elastic and with the plastic blend) allocates nothing.
TEST(Allocation, CoreReservedForBoundsAllocatesNothingOnItsFirstLargeProblem) {
  for (const double cor : {1.0, 0.5}) {
    ImpactProblem problem;
    ImpactResolver resolver;
    ImpactResult result;
    const ResolveOptions options = perStepOptions();
    chainProblem(problem, cor, 1);
    resolver.resolve(problem, options, result);
    const ProblemBounds bounds = ProblemBounds::rigid(kChainContacts + 1, kChainContacts);
    problem.reserve(bounds);
    resolver.reserve(bounds, options, result);
    resetCounts();
    {
      const CountingScope counting;
      chainProblem(problem, cor, kChainContacts);
      resolver.resolve(problem, options, result);
    }
    EXPECT_GT(result.reflections, 0);
    EXPECT_EQ(result.velocity.size(), 6 * (kChainContacts + 1));
    EXPECT_EQ(newCalls() + mallocCalls(), 0) << "COR " << cor;
  }
}

TEST(Allocation, CoreNewShapeAfterALargerOneAllocatesNothing) {
  // The result, the problem and the resolver's stages keep their largest
  // size, so a cluster of a shape never resolved before allocates nothing
  // once larger ones have been through the same stages: the pile (4 bodies,
  // 6 contacts) after a 6-contact chain (7 bodies; exact plastic solve,
  // analysis, order enumeration) and the 200-contact one, through the blend
  // and through the elastic path.
  for (const double cor : {0.5, 1.0}) {
    ImpactProblem problem;
    ImpactResolver resolver;
    ImpactResult result;
    const ResolveOptions options = perStepOptions();
    chainProblem(problem, cor);
    resolver.resolve(problem, options, result);
    chainProblem(problem, cor, 6);
    resolver.resolve(problem, options, result);
    pileProblem(problem, cor);
    resetCounts();
    {
      const CountingScope counting;
      resolver.resolve(problem, options, result);
    }
    EXPECT_GT(result.reflections, 0);
    EXPECT_EQ(result.velocity.size(), 24);
    EXPECT_EQ(newCalls() + mallocCalls(), 0) << "COR " << cor;
  }
}

struct BodyState {
  btRigidBody* body;
  btTransform transform;
  btVector3 linear, angular;
};

TEST(Allocation, SolveGroupOfChainImpactAllocatesNothingOnceWarm) {
  auto owner = std::make_unique<CountingSolver>();
  CountingSolver& solver = *owner;
  solver.settings().keepReport = false;
  scenes::World world(std::move(owner));
  scenes::Chain scene;
  scene.count = 50;
  scene.order = scenes::Chain::Order::Shuffled;
  const scenes::SceneBodies made = scenes::build(world, scene);
  world.step(scene.dt);  // free flight
  std::vector<BodyState> saved;
  for (btRigidBody* body : world.bodies())
    saved.push_back({body, body->getWorldTransform(), body->getLinearVelocity(), body->getAngularVelocity()});
  const auto restore = [&] {
    for (const BodyState& s : saved) {
      s.body->setWorldTransform(s.transform);
      s.body->setInterpolationWorldTransform(s.transform);
      s.body->setLinearVelocity(s.linear);
      s.body->setAngularVelocity(s.angular);
    }
  };
  world.step(scene.dt);  // the impact, warming up
  ASSERT_GT(made.bodies.back()->getLinearVelocity().x(), 0.5) << "the impact did not reach the far end";
  for (int run = 0; run < 2; ++run) {
    restore();
    solver.prepareSolve(0, 0);  // let the impacted pairs of the previous run age out
    solver.prepareSolve(0, 0);
    resetCounts();
    solver.active = true;
    world.step(scene.dt);
    solver.active = false;
    EXPECT_GT(made.bodies.back()->getLinearVelocity().x(), 0.5);
    EXPECT_EQ(newCalls(), 0) << "operator new calls inside our solveGroup, run " << run;
    EXPECT_EQ(mallocCalls(), 0) << "malloc-family calls inside our solveGroup, run " << run;
  }
}

TEST(Allocation, SolveGroupOfSwingingTwoBallCradleAllocatesNothingOnceWarm) {
  // Every impact of a two-ball hanging cradle is a cluster of the same shape
  // (two jointed bodies, one contact), so once one has been resolved nothing
  // needs to grow.
  auto owner = std::make_unique<CountingSolver>();
  CountingSolver& solver = *owner;
  solver.settings().keepReport = false;
  scenes::World world(std::move(owner));
  scenes::HangingCradle scene;
  scene.count = 2;
  const scenes::SceneBodies made = scenes::build(world, scene);
  constexpr double kDt = 1.0 / 240;
  // Impacts about every 2 s (period of a 4 m pendulum ≈ 4 s): warm up over
  // the first two, count over the next two.
  for (int i = 0; i < 1200; ++i) world.step(kDt);
  resetCounts();
  double fastest[2] = {0, 0};
  for (int i = 0; i < 1200; ++i) {
    solver.active = true;
    world.step(kDt);
    solver.active = false;
    for (int b = 0; b < 2; ++b)
      fastest[b] = std::max(fastest[b], double(made.bodies[static_cast<std::size_t>(b)]->getLinearVelocity().length()));
  }
  EXPECT_GT(fastest[0], 1.0) << "no impact set ball 0 moving in the counted steps";
  EXPECT_GT(fastest[1], 1.0) << "no impact set ball 1 moving in the counted steps";
  EXPECT_EQ(newCalls(), 0);
  EXPECT_EQ(mallocCalls(), 0);
}

TEST(Allocation, SolveGroupOfClustersOfDifferentShapesAllocatesNothingOnceWarm) {
  // Two separate lines in zero gravity, struck in the same step: a striker and
  // one resting ball, and a striker and two touching balls. The step resolves
  // clusters of two shapes (2 bodies and 1 contact, 3 and 2). The solver keeps
  // one ImpactResult, whose vectors keep their capacity (ReusableArray.h);
  // Eigen's own vectors would reallocate at every change of shape.
  auto owner = std::make_unique<CountingSolver>();
  CountingSolver& solver = *owner;
  solver.settings().keepReport = false;
  scenes::World world(std::move(owner));
  constexpr double kDt = 1.0 / 60;
  constexpr btScalar kRadius = 0.5;
  std::vector<btRigidBody*> lastBalls;
  for (const int resting : {1, 2}) {
    const btScalar y = btScalar(10 * resting);
    scenes::BodySpec ball;
    ball.restitution = 1;
    ball.friction = 0;
    for (int k = 0; k < resting; ++k) {
      ball.position = btVector3(btScalar(2 * kRadius * k), y, 0);
      lastBalls.push_back(world.addSphere(kRadius, ball));
    }
    ball.position = btVector3(-2 * kRadius - btScalar(0.04), y, 0);  // 4 cm gap: overlapping by step 2
    ball.linearVelocity = btVector3(3, 0, 0);
    world.addSphere(kRadius, ball);
  }
  world.step(kDt);  // free flight
  std::vector<BodyState> saved;
  for (btRigidBody* body : world.bodies())
    saved.push_back({body, body->getWorldTransform(), body->getLinearVelocity(), body->getAngularVelocity()});
  const auto restore = [&] {
    for (const BodyState& s : saved) {
      s.body->setWorldTransform(s.transform);
      s.body->setInterpolationWorldTransform(s.transform);
      s.body->setLinearVelocity(s.linear);
      s.body->setAngularVelocity(s.angular);
    }
  };
  const auto struck = [&] {
    return lastBalls[0]->getLinearVelocity().x() > 1 && lastBalls[2]->getLinearVelocity().x() > 1;
  };
  world.step(kDt);  // both impacts, warming up
  ASSERT_TRUE(struck()) << "the strikers did not reach the far balls";
  for (int run = 0; run < 2; ++run) {
    restore();
    solver.prepareSolve(0, 0);  // let the impacted pairs of the previous run age out
    solver.prepareSolve(0, 0);
    resetCounts();
    solver.active = true;
    world.step(kDt);
    solver.active = false;
    EXPECT_TRUE(struck()) << "run " << run;
    EXPECT_EQ(newCalls(), 0) << "operator new calls inside our solveGroup, run " << run;
    EXPECT_EQ(mallocCalls(), 0) << "malloc-family calls inside our solveGroup, run " << run;
  }
}

TEST(Allocation, SolveGroupOfAShapeNeverSeenBeforeAllocatesNothingOnceALargerOneWas) {
  // Warm-up, in zero gravity: a striker hits a line of 30 touching balls (the
  // exact plastic and propagation paths at their largest) and another hits a
  // line of 6 (5 contacts, small enough to be analysed: Gram matrix,
  // certificate, order enumeration). Counted: about five steps later a
  // striker hits a ball that rests against two others set at ±60° behind it,
  // a cluster of a shape (4 bodies, 3 contacts, not a line) the solver has
  // never resolved. Buffers keep their largest size, so it allocates nothing.
  auto owner = std::make_unique<CountingSolver>();
  CountingSolver& solver = *owner;
  solver.settings().keepReport = false;
  scenes::World world(std::move(owner));
  constexpr double kDt = 1.0 / 60;
  constexpr btScalar kRadius = 0.5;
  scenes::BodySpec ball;
  ball.restitution = 1;
  ball.friction = 0;
  const auto striker = [&](btScalar y, btScalar gap) {
    scenes::BodySpec moving = ball;
    moving.position = btVector3(-2 * kRadius - gap, y, 0);
    moving.linearVelocity = btVector3(3, 0, 0);
    world.addSphere(kRadius, moving);
  };
  const auto line = [&](int resting, btScalar y) {
    btRigidBody* last = nullptr;
    for (int k = 0; k < resting; ++k) {
      ball.position = btVector3(btScalar(2 * kRadius * k), y, 0);
      last = world.addSphere(kRadius, ball);
    }
    striker(y, btScalar(0.04));  // overlapping by step 2
    return last;
  };
  btRigidBody* longEnd = line(30, 0);
  btRigidBody* shortEnd = line(6, 10);
  ball.position = btVector3(0, 20, 0);
  btRigidBody* racked = world.addSphere(kRadius, ball);
  for (const btScalar side : {btScalar(-1), btScalar(1)}) {
    ball.position = btVector3(2 * kRadius * btScalar(0.5), 20, side * 2 * kRadius * btScalar(0.8660254037844386));
    world.addSphere(kRadius, ball);
  }
  striker(20, btScalar(0.3));  // overlapping by step 7
  world.step(kDt);
  world.step(kDt);
  ASSERT_GT(longEnd->getLinearVelocity().x(), 1) << "the long line's impact did not reach its far end";
  ASSERT_GT(shortEnd->getLinearVelocity().x(), 1) << "the short line's impact did not reach its far end";
  ASSERT_LT(racked->getLinearVelocity().length(), 0.1) << "the rack was struck too early to count";
  resetCounts();
  for (int step = 0; step < 8; ++step) {
    solver.active = true;
    world.step(kDt);
    solver.active = false;
  }
  EXPECT_GT(racked->getLinearVelocity().length(), 0.1) << "the rack was not struck in the counted steps";
  EXPECT_EQ(newCalls(), 0) << "operator new calls inside our solveGroup";
  EXPECT_EQ(mallocCalls(), 0) << "malloc-family calls inside our solveGroup";
}

}  // namespace
}  // namespace propimpact
