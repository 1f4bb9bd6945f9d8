/// \file CradlesBenchmark.cpp
/// `cradles`: 100 independent five-ball hanging cradles (scenes::HangingCradle,
/// 3 m apart along z) swinging in one world: many small clusters per step.
/// Each solver has its own world, warmed up for kWarmupSteps steps; then one
/// benchmark iteration is one world step (collision detection included, the
/// same for every solver). The propagative solver's report is read after
/// every step, as an application would.

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include <propimpact/scenes/Scenes.h>
#include <propimpact/scenes/Solvers.h>

#include "BenchSupport.h"

namespace propimpact::bench {
namespace {

constexpr double kDt = 1.0 / 60;
constexpr int kCradles = 100;
constexpr int kWarmupSteps = 60;

scenes::World& cradleWorld(const std::string& solverName) {
  static std::map<std::string, std::unique_ptr<scenes::World>> worlds;
  std::unique_ptr<scenes::World>& world = worlds[solverName];
  if (world) return *world;
  if (solverName == "propagative") {
    world = std::make_unique<scenes::World>(std::make_unique<TimedPropagativeSolver>());
  } else {
    world = std::make_unique<scenes::World>(solverName);
  }
  for (int c = 0; c < kCradles; ++c) {
    scenes::HangingCradle scene;
    scene.origin = btVector3(0, 0, btScalar(3.0 * c));
    (void)scenes::build(*world, scene);
  }
  for (int i = 0; i < kWarmupSteps; ++i) {
    world->step(kDt);
    if (auto* ours = dynamic_cast<PropagativeImpactSolver*>(&world->solver())) (void)ours->lastStepReport();
  }
  return *world;
}

void cradles(benchmark::State& state, const std::string& solverName) {
  scenes::World& world = cradleWorld(solverName);
  auto* ours = dynamic_cast<TimedPropagativeSolver*>(&world.solver());
  std::int64_t clusters = 0, reflections = 0;
  if (ours) ours->resetTimers();
  for (auto _ : state) {
    world.step(kDt);
    if (ours) {
      clusters += static_cast<std::int64_t>(ours->lastStepReport().clusters.size());
      reflections += reportedReflections(*ours);
    }
  }
  if (ours) {
    const double n = double(state.iterations());
    state.counters["clusters_per_step"] = double(clusters) / n;
    state.counters["reflections_per_step"] = double(reflections) / n;
    state.counters["our_ms_per_step"] = 1e3 * ours->ourSeconds() / n;
  }
}

BENCHMARK_CAPTURE(cradles, bullet_si, std::string("bullet-si"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(cradles, bullet_si_split, std::string("bullet-si-split"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(cradles, propagative, std::string("propagative"))->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace propimpact::bench
