/// \file CoreRandomBenchmark.cpp
/// `core-random`: random impact problems of 2–64 contacts through
/// ImpactResolver alone (no Bullet).
///
/// A problem of m contacts has nb = max(2, 3m/4) rigid bodies (mass 0.5–2 kg,
/// random diagonal inertia) joined in a random tree (body i touches a random
/// earlier body along a random normal), the remaining contacts are against
/// static ground with an upward-leaning normal; contact offsets are the
/// normal times −0.5 plus a random tangential part (box-corner-like levers);
/// velocities are uniform in [−1, 1] per component. kProblems problems are made
/// once from a fixed seed and resolved in turn with the options the Bullet
/// adapter uses by default (analysis for clusters of ≤ 16 contacts without the
/// T_c / T_a split, every contact a seed).
///  - core_random/elastic: every COR 1 — the propagation only; reflections/s.
///  - core_random/plastic: every COR 0.5 — propagation plus one exact plastic
///    solve and the blend per problem; plastic solves/s.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <propimpact/core/ImpactProblem.h>
#include <propimpact/core/ImpactResolver.h>

namespace propimpact::bench {
namespace {

constexpr int kProblems = 256;

struct Random {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31U);
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * double(next() >> 11U) * 0x1.0p-53; }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
  Vector3 unit() {
    const double z = uniform(-1, 1), phi = uniform(0, 2 * 3.14159265358979323846), rho = std::sqrt(1 - z * z);
    return Vector3(rho * std::cos(phi), rho * std::sin(phi), z);
  }
};

std::vector<ImpactProblem> makeProblems(double cor) {
  Random random{12345};
  std::vector<ImpactProblem> problems(kProblems);
  for (ImpactProblem& problem : problems) {
    const int m = 2 + random.below(63);
    const int nb = std::max(2, 3 * m / 4);
    for (int b = 0; b < nb; ++b) {
      RigidBodyInput body;
      const double mass = random.uniform(0.5, 2);
      body.inverseMass = 1 / mass;
      body.inverseInertiaWorld = Vector3(random.uniform(0.5, 2), random.uniform(0.5, 2), random.uniform(0.5, 2)).asDiagonal();
      body.inverseInertiaWorld *= 10 / mass;
      for (int k = 0; k < 3; ++k) {
        body.linearVelocity[k] = random.uniform(-1, 1);
        body.angularVelocity[k] = random.uniform(-1, 1);
      }
      (void)problem.addRigidBody(body);
    }
    const auto lever = [&](const Vector3& n) {
      Vector3 t = random.unit();
      t -= t.dot(n) * n;
      return Vector3(-0.5 * n + 0.3 * t);
    };
    for (int i = 0; i < m; ++i) {
      if (i + 1 < nb) {
        const int a = i + 1, b = random.below(i + 1);
        const Vector3 n = random.unit();  // from B to A
        (void)problem.addRigidContact(a, b, n, lever(n), lever(Vector3(-n)), cor);
      } else {
        Vector3 n = random.unit();
        n.y() = std::abs(n.y()) + 0.5;
        n.normalize();
        (void)problem.addRigidContact(random.below(nb), kNoBlock, n, lever(n), Vector3::Zero(), cor);
      }
    }
  }
  return problems;
}

void coreRandom(benchmark::State& state, double cor) {
  const std::vector<ImpactProblem> problems = makeProblems(cor);
  ImpactResolver resolver;
  ImpactResult result;
  ResolveOptions options;
  options.analysisContactLimit = 16;
  options.growFromSeeds = true;
  options.computeEnergySplit = false;
  std::int64_t reflections = 0, resolves = 0, plasticSolves = 0, capHits = 0;
  std::size_t next = 0;
  for (auto _ : state) {
    resolver.resolve(problems[next], options, result);
    next = (next + 1) % problems.size();
    reflections += result.reflections;
    ++resolves;
    if (result.plasticMethod != PlasticMethod::NotNeeded) ++plasticSolves;
    if (result.capHit) ++capHits;
    benchmark::DoNotOptimize(result.velocity.data());
  }
  state.counters["reflections_per_s"] = benchmark::Counter(double(reflections), benchmark::Counter::kIsRate);
  state.counters["resolves_per_s"] = benchmark::Counter(double(resolves), benchmark::Counter::kIsRate);
  state.counters["plastic_solves_per_s"] = benchmark::Counter(double(plasticSolves), benchmark::Counter::kIsRate);
  state.counters["reflections_per_resolve"] = double(reflections) / double(resolves);
  state.counters["cap_hit_fraction"] = double(capHits) / double(resolves);
}

BENCHMARK_CAPTURE(coreRandom, elastic, 1.0)->Name("core_random/elastic")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(coreRandom, plastic, 0.5)->Name("core_random/plastic")->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace propimpact::bench
