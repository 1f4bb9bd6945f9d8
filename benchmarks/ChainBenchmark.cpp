/// \file ChainBenchmark.cpp
/// `chain`: N equal balls touching in a line (scenes::Chain), a striker hits
/// the end; the impact is one cluster whose resolution needs many
/// reflections. Bodies are created forward, reversed or shuffled.
///
/// What is timed: the propagative solver's own part of the impact step's
/// solveGroup — classification of every manifold point, the touching
/// components, building the ImpactProblem, the core resolve (metric,
/// duplicates, propagation) and the write-back — i.e. the whole solveGroup
/// minus Bullet's sequential-impulse pass that runs inside it for the resting
/// contacts (TimedPropagativeSolver). That pass is reported separately
/// (bullet_pass_ms), and so is the whole call (solve_group_ms).
///
/// Each iteration restores the state before the step whose solveGroup
/// resolves the impact (bodies and manifolds, WorldSnapshot), ages the
/// solver's impacted-pair memory out (two empty passes) and steps once. Which
/// step that is, is found on a scratch world: since impacts are resolved
/// before overlap, a striker that would close its gap within step 1 is
/// reflected in step 1 itself, and a snapshot after it timed a step with no
/// impact (the benchmark reported only errors). The striker starts one
/// step's travel further back (buildChain) so that the timed step is step 2.

#include <benchmark/benchmark.h>

#include <memory>

#include <propimpact/scenes/Scenes.h>

#include "BenchSupport.h"

namespace propimpact::bench {
namespace {

constexpr double kDt = 1.0 / 60;

constexpr int kStepsToImpact = 4;

/// The chain, its striker moved back by one step's travel: the impact is then
/// resolved in step 2, when the resting chain's manifolds exist, as in a
/// running simulation (in step 1 every manifold of the chain is new).
void buildChain(scenes::World& world, const scenes::Chain& scene) {
  const scenes::SceneBodies bodies = scenes::build(world, scene);
  btRigidBody* striker = bodies.bodies.front();
  btTransform pose = striker->getWorldTransform();
  pose.getOrigin() -= btVector3(btScalar(scene.v0 * kDt), 0, 0);
  striker->setWorldTransform(pose);
  striker->setInterpolationWorldTransform(pose);
}

/// The number of steps before the one that resolves the striker's impact, or
/// -1 if none of the first kStepsToImpact does.
int stepsBeforeImpact(const scenes::Chain& scene) {
  auto solverOwner = std::make_unique<TimedPropagativeSolver>();
  TimedPropagativeSolver& solver = *solverOwner;
  scenes::World world(std::move(solverOwner));
  buildChain(world, scene);
  for (int k = 0; k < kStepsToImpact; ++k) {
    world.step(kDt);
    if (reportedReflections(solver) > 0) return k;
  }
  return -1;
}

void chain(benchmark::State& state, scenes::Chain::Order order) {
  scenes::Chain scene;
  scene.count = static_cast<int>(state.range(0));
  scene.order = order;
  scene.dt = kDt;
  const int before = stepsBeforeImpact(scene);
  if (before < 0) {
    state.SkipWithError("no impact resolved in the first steps");
    return;
  }
  auto solverOwner = std::make_unique<TimedPropagativeSolver>();
  TimedPropagativeSolver& solver = *solverOwner;
  scenes::World world(std::move(solverOwner));
  buildChain(world, scene);
  for (int k = 0; k < before; ++k) world.step(kDt);  // free flight
  (void)solver.lastStepReport();
  const WorldSnapshot snapshot(world);

  double ourSeconds = 0, wholeSeconds = 0, bulletSeconds = 0;
  std::int64_t reflections = 0;
  for (auto _ : state) {
    snapshot.restore(world);
    solver.prepareSolve(0, 0);
    solver.prepareSolve(0, 0);
    (void)solver.lastStepReport();
    solver.resetTimers();
    world.step(kDt);
    const std::int64_t r = reportedReflections(solver);
    if (r == 0) state.SkipWithError("no impact resolved in the timed step");
    reflections += r;
    state.SetIterationTime(solver.ourSeconds());
    ourSeconds += solver.ourSeconds();
    wholeSeconds += solver.wholeSeconds;
    bulletSeconds += solver.bulletSeconds;
  }
  const double n = double(state.iterations());
  state.counters["reflections"] = double(reflections) / n;
  state.counters["reflections_per_s"] = double(reflections) / ourSeconds;
  state.counters["ns_per_reflection"] = 1e9 * ourSeconds / double(reflections);
  state.counters["solve_group_ms"] = 1e3 * wholeSeconds / n;
  state.counters["bullet_pass_ms"] = 1e3 * bulletSeconds / n;
}

void chainArgs(benchmark::internal::Benchmark* b) {
  b->UseManualTime()->Unit(benchmark::kMillisecond);
  for (const int n : {10, 100, 1000, 10000}) b->Arg(n);
}

BENCHMARK_CAPTURE(chain, forward, scenes::Chain::Order::Forward)->Apply(chainArgs);
BENCHMARK_CAPTURE(chain, reverse, scenes::Chain::Order::Reverse)->Apply(chainArgs);
BENCHMARK_CAPTURE(chain, shuffled, scenes::Chain::Order::Shuffled)->Apply(chainArgs);

}  // namespace
}  // namespace propimpact::bench
