/// \file PileBenchmark.cpp
/// `pile`: 1,000 spheres settled for 600 steps at 60 Hz (all bodies awake),
/// then the same settled state stepped by each solver.
///
/// Each solver gets its own world, built by the same deterministic scene and
/// settled by stock Bullet (btSequentialImpulseConstraintSolver, defaults), so
/// the three settled states are bit-identical. Only then is the world's
/// solver swapped (setConstraintSolver) and its solver info adjusted
/// (applySolverInfo). One benchmark iteration restores the snapshot
/// (WorldSnapshot: bodies and manifolds, see BenchSupport.h) untimed and
/// times kStepsPerRun steps; the reported time is per step. Run it with
/// --benchmark_repetitions and --benchmark_enable_random_interleaving=true so
/// that repetitions of the solvers alternate (scripts/bench does).
///
/// `pile/propagative_stages` is the propagative case again with
/// SolverSettings::timeStages on: a few thread-CPU clock reads per pass and
/// cluster (system calls, a few per cent of the step) split our time into
/// classification / problem build / prepare / propagation / plastic /
/// write-back and Bullet's resting pass. Its step time is not a headline:
/// `pile/propagative` runs without the clocks.
///
/// `pile/propagative_friction` and `pile/propagative_frictionless` are the
/// propagative case with SolverSettings::impactFriction set on and off
/// explicitly (`pile/propagative` keeps the solver's default): what impact
/// friction costs, measured in one binary, back to back.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include <propimpact/scenes/Scenes.h>
#include <propimpact/scenes/Solvers.h>

#include "BenchSupport.h"

namespace propimpact::bench {
namespace {

constexpr double kDt = 1.0 / 60;
constexpr int kSettleSteps = 600;
constexpr int kPileCount = 1000;
constexpr int kStepsPerRun = 3;

struct SettledPile {
  std::unique_ptr<scenes::World> world;
  std::unique_ptr<btConstraintSolver> solver;  // the swapped-in solver (the world keeps owning its stock one)
  std::unique_ptr<WorldSnapshot> snapshot;
  int movingBodies = 0;        // faster than kMovingSpeed in the snapshot
  double fastestBody = 0;      // m/s
};

// Whether the "settled" pile still has bodies moving into each other (the
// seeds' approach speeds are compared with this in docs/performance.md).
constexpr double kMovingSpeed = 0.3;  // m/s, about two gravity kicks of one 60 Hz step

void countMovingBodies(SettledPile& pile) {
  btDiscreteDynamicsWorld& world = pile.world->dynamics();
  for (int i = 0; i < world.getNumCollisionObjects(); ++i) {
    const btRigidBody* body = btRigidBody::upcast(world.getCollisionObjectArray()[i]);
    if (!body || body->isStaticOrKinematicObject()) continue;
    const double speed = body->getLinearVelocity().length();
    pile.fastestBody = std::max(pile.fastestBody, speed);
    if (speed > kMovingSpeed) ++pile.movingBodies;
  }
}

SettledPile& settledPile(const std::string& solverName) {
  static std::map<std::string, SettledPile> piles;
  SettledPile& pile = piles[solverName];
  if (pile.world) return pile;
  pile.world = std::make_unique<scenes::World>("bullet-si");
  (void)scenes::build(*pile.world, scenes::Pile{kPileCount, 0.5, 1});
  for (int i = 0; i < kSettleSteps; ++i) pile.world->step(kDt);
  countMovingBodies(pile);
  if (solverName != "bullet-si") {
    const bool ours = solverName.rfind("propagative", 0) == 0;
    if (ours) {
      auto timed = std::make_unique<TimedPropagativeSolver>();
      timed->settings().timeStages = solverName == "propagative-stages";
      if (solverName == "propagative-friction") timed->settings().impactFriction = true;
      if (solverName == "propagative-frictionless") timed->settings().impactFriction = false;
      pile.solver = std::move(timed);
    } else {
      pile.solver = scenes::makeSolver(solverName);
    }
    pile.world->dynamics().setConstraintSolver(pile.solver.get());
    scenes::applySolverInfo(ours ? "propagative" : solverName, pile.world->dynamics().getSolverInfo());
  }
  pile.snapshot = std::make_unique<WorldSnapshot>(*pile.world);
  return pile;
}

void pile(benchmark::State& state, const std::string& solverName) {
  SettledPile& pile = settledPile(solverName);
  auto* ours = dynamic_cast<TimedPropagativeSolver*>(pile.solver.get());
  double ourSeconds = 0;
  std::int64_t reflections = 0, clusters = 0; double contacts = 0, moved = 0, seeds = 0, fastestSeed = 0;
  SolveStageSeconds stages;
  for (auto _ : state) {
    pile.snapshot->restore(*pile.world);
    if (ours) {
      ours->prepareSolve(0, 0);  // age out impacted pairs of the previous run (two passes)
      ours->prepareSolve(0, 0);
      (void)ours->lastStepReport();
      ours->resetTimers();
    }
    const double start = now();
    for (int k = 0; k < kStepsPerRun; ++k) {
      pile.world->step(kDt);
      if (ours) {
        for (const auto& c : ours->lastStepReport().clusters) {
          contacts += c.contacts.size();
          moved += c.bodies.size();
          for (const auto& contact : c.contacts)
            if (contact.seed) {
              ++seeds;
              fastestSeed = std::max(fastestSeed, -contact.approachSpeed);
            }
        }
        stages += ours->lastStepReport().stageSeconds;
        clusters += static_cast<std::int64_t>(ours->lastStepReport().clusters.size());
        reflections += reportedReflections(*ours);
      }
    }
    state.SetIterationTime((now() - start) / kStepsPerRun);
    if (ours) ourSeconds += ours->ourSeconds();
  }
  const double steps = double(state.iterations()) * kStepsPerRun;
  state.counters["moving_bodies_at_snapshot"] = pile.movingBodies;
  state.counters["fastest_body_at_snapshot"] = pile.fastestBody;
  if (ours) {
    state.counters["our_ms_per_step"] = 1e3 * ourSeconds / steps;
    state.counters["clusters_per_step"] = double(clusters) / steps;
    state.counters["contacts_per_step"] = contacts / steps;
    state.counters["moved_per_step"] = moved / steps;
    state.counters["reflections_per_step"] = double(reflections) / steps;
    state.counters["seeds_per_step"] = seeds / steps;
    state.counters["fastest_seed_approach"] = fastestSeed;
    if (ours->settings().timeStages) {
      const auto perStep = [&](double seconds) { return 1e3 * seconds / steps; };
      state.counters["classification_ms"] = perStep(stages.classification);
      state.counters["problem_build_ms"] = perStep(stages.problemBuild);
      state.counters["prepare_ms"] = perStep(stages.prepare);
      state.counters["propagation_ms"] = perStep(stages.propagation);
      state.counters["plastic_ms"] = perStep(stages.plastic);
      state.counters["analysis_ms"] = perStep(stages.analysis);
      state.counters["write_back_ms"] = perStep(stages.writeBack);
      state.counters["bullet_pass_ms"] = perStep(stages.restingPass);
    }
  }
}

BENCHMARK_CAPTURE(pile, bullet_si, std::string("bullet-si"))->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(pile, bullet_si_split, std::string("bullet-si-split"))->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(pile, propagative, std::string("propagative"))->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(pile, propagative_friction, std::string("propagative-friction"))
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(pile, propagative_frictionless, std::string("propagative-frictionless"))
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(pile, propagative_stages, std::string("propagative-stages"))
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace propimpact::bench
