/// \file LandingBenchmark.cpp
/// `landing`: Bullet's BasicExample (examples/BasicDemo/BasicExample.cpp)
/// dropped on its ground and stepped for its first second, per solver.
///
/// The layout is BasicExample's: gravity (0, −10, 0) (CommonRigidBodyBase),
/// a static ground box of half-extents (50, 50, 50) at y = −50 created first,
/// then 125 boxes btBoxShape(0.1, 0.1, 0.1) of mass 1 at
/// (0.2 i, 2 + 0.2 k, 0.2 j), created in BasicExample's loop order (k, i, j);
/// Bullet's default friction 0.5, restitution 0 and sleeping. The boxes start
/// at rest with touching faces, fall together and land at about 0.6 s.
///
/// One benchmark iteration is one drop: a fresh world (untimed; the landing
/// starts from rest, so nothing carries over) stepped 60 times at 60 Hz in
/// fixed single substeps (World::step: stepSimulation(1/60, 1, 1/60)). Each
/// step is timed alone in CPU time of the benchmark thread (now()); the
/// iteration's manual time is the drop's 60 steps. The counters are over every
/// step of every drop of the repetition: mean_ms, p99_ms (nearest rank),
/// max_ms per step. For the propagative solver also, from its report, the
/// impacts (clusters) per drop and the cap hits of all drops, and its own part
/// of the step (TimedPropagativeSolver): our_ms_per_step and our_max_ms, the
/// largest in a single step. A drop in which a box ends below the ground or
/// above its start is an error.
///
/// `landing/propagative_friction` and `landing/propagative_frictionless` set
/// SolverSettings::impactFriction on and off explicitly (`landing/propagative`
/// keeps the solver's default): what impact friction costs, back to back.

#include <benchmark/benchmark.h>

#include <BulletCollision/CollisionShapes/btBoxShape.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <propimpact/scenes/Solvers.h>
#include <propimpact/scenes/World.h>

#include "BenchSupport.h"

namespace propimpact::bench {
namespace {

constexpr double kDt = 1.0 / 60;
constexpr int kSteps = 60;   // the first second
constexpr int kGrid = 5;     // BasicExample's ARRAY_SIZE_X, _Y, _Z
constexpr double kHighestStart = 2 + 0.2 * (kGrid - 1);

std::unique_ptr<scenes::World> basicExample(const std::string& solverName) {
  const bool ours = solverName.rfind("propagative", 0) == 0;
  auto world = ours ? std::make_unique<scenes::World>(std::make_unique<TimedPropagativeSolver>())
                    : std::make_unique<scenes::World>(solverName);
  if (auto* solver = dynamic_cast<TimedPropagativeSolver*>(&world->solver()); solver && solverName != "propagative")
    solver->settings().impactFriction = solverName == "propagative-friction";
  world->setGravity(btVector3(0, -10, 0));
  scenes::BodySpec ground;
  ground.mass = 0;
  ground.position = btVector3(0, -50, 0);
  ground.allowSleeping = true;
  (void)world->addBox(btVector3(50, 50, 50), ground);
  scenes::BodySpec box;
  box.mass = 1;
  box.allowSleeping = true;  // Bullet's default, as in BasicExample (no box can sleep within 1 s)
  for (int k = 0; k < kGrid; ++k) {
    for (int i = 0; i < kGrid; ++i) {
      for (int j = 0; j < kGrid; ++j) {
        box.position = btVector3(btScalar(0.2 * i), btScalar(2 + 0.2 * k), btScalar(0.2 * j));
        (void)world->addBox(btVector3(btScalar(0.1), btScalar(0.1), btScalar(0.1)), box);
      }
    }
  }
  return world;
}

/// Every dynamic box between the ground's top face and its highest start.
bool landedPlausibly(const scenes::World& world) {
  for (const btRigidBody* body : world.bodies()) {
    if (body->isStaticObject()) continue;
    const btScalar y = body->getCenterOfMassPosition().y();
    if (!std::isfinite(y) || y <= 0 || y > kHighestStart) return false;
  }
  return true;
}

/// Nearest-rank percentile \p q (in (0, 1]) of \p values (which it sorts).
double percentile(std::vector<double>& values, double q) {
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * double(values.size())));
  return values[std::max<std::size_t>(rank, 1) - 1];
}

void landing(benchmark::State& state, const std::string& solverName) {
  std::vector<double> stepSeconds;
  double ourSeconds = 0, ourMaxSeconds = 0;  // tells whether the slowest steps are the solver's own part
  std::int64_t impacts = 0, capHits = 0;
  for (auto _ : state) {
    const std::unique_ptr<scenes::World> world = basicExample(solverName);
    auto* ours = dynamic_cast<TimedPropagativeSolver*>(&world->solver());
    double dropSeconds = 0;
    for (int s = 0; s < kSteps; ++s) {
      const double start = now();
      world->step(kDt);
      const double seconds = now() - start;
      stepSeconds.push_back(seconds);
      dropSeconds += seconds;
      if (ours) {  // read after every step, as an application would (reading consumes it)
        ourSeconds += ours->ourSeconds();
        ourMaxSeconds = std::max(ourMaxSeconds, ours->ourSeconds());
        ours->resetTimers();
        const StepReport& report = ours->lastStepReport();
        impacts += static_cast<std::int64_t>(report.clusters.size());
        capHits += report.capHits;
      }
    }
    state.SetIterationTime(dropSeconds);
    if (!landedPlausibly(*world)) {
      state.SkipWithError("a box ended below the ground or above its start");
      break;
    }
  }
  if (stepSeconds.empty()) return;
  const double steps = double(stepSeconds.size());
  double total = 0;
  for (const double s : stepSeconds) total += s;
  state.counters["mean_ms"] = 1e3 * total / steps;
  state.counters["p99_ms"] = 1e3 * percentile(stepSeconds, 0.99);
  state.counters["max_ms"] = 1e3 * stepSeconds.back();  // sorted by percentile()
  state.counters["steps"] = steps;
  if (solverName.rfind("propagative", 0) == 0) {
    const double drops = double(state.iterations());
    state.counters["impacts_per_drop"] = double(impacts) / drops;
    state.counters["cap_hits"] = double(capHits);
    state.counters["our_ms_per_step"] = 1e3 * ourSeconds / steps;
    state.counters["our_max_ms"] = 1e3 * ourMaxSeconds;
  }
}

void landingArgs(benchmark::internal::Benchmark* b) { b->UseManualTime()->Unit(benchmark::kMillisecond); }

BENCHMARK_CAPTURE(landing, bullet_si, std::string("bullet-si"))->Apply(landingArgs);
BENCHMARK_CAPTURE(landing, bullet_si_split, std::string("bullet-si-split"))->Apply(landingArgs);
BENCHMARK_CAPTURE(landing, propagative, std::string("propagative"))->Apply(landingArgs);
BENCHMARK_CAPTURE(landing, propagative_friction, std::string("propagative-friction"))->Apply(landingArgs);
BENCHMARK_CAPTURE(landing, propagative_frictionless, std::string("propagative-frictionless"))->Apply(landingArgs);

}  // namespace
}  // namespace propimpact::bench
