/// \file CoreChainBenchmark.cpp
/// `core_chain`: the chain impact through the core alone (no Bullet), so that
/// the core's cost per reflection is measured apart from the adapter's.
///
/// N equal balls (unit mass, radius kRadius, inertia of a solid sphere
/// I = 2/5 m r²) touch in a line along x; a striker at the −x end moves at
/// 1 m/s into the line (N + 1 rigid bodies, N contacts, restitution 1). The
/// contact between ball k and ball k+1 has its normal along +x (from B = k to
/// A = k+1) and offsets ∓kRadius along x. Only the striker's contact is a seed;
/// the others join when the propagation reaches them, as in the Bullet adapter.
/// The options are the adapter's (PropagativeImpactSolver.cpp): growFromSeeds,
/// jointErrorAsBias off, analysisContactLimit 16, most-approaching order,
/// default cap. The right outcome is N reflections, the last ball leaving at
/// 1 m/s and every other ball at rest.
///
/// Numberings (the answer must not depend on them, the cost may):
///  - forward: body ids and contacts in chain order;
///  - reverse: both in reverse chain order;
///  - shuffled: body ids and contact order each a fixed-seed permutation.
///
/// Timed, per iteration: ImpactProblem::clear(), every addRigidBody and
/// addRigidContact (+ setSeed), and ImpactResolver::resolve — the set-up is
/// included. One problem, resolver and result are reused across iterations,
/// as a Bullet step reuses them; one untimed resolve first grows their
/// capacities, as the first steps of a world do. Time is Google Benchmark's
/// cpu_time (CPU time of the benchmark thread: the machine is shared), which
/// reflections_per_s divides by; ns_per_reflection reads the same clock around
/// the loop (a kInvert rate counter would print in seconds).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <ctime>
#include <vector>

#include <propimpact/core/ImpactProblem.h>
#include <propimpact/core/ImpactResolver.h>

namespace propimpact::bench {
namespace {

constexpr Scalar kRadius = 0.5;            // as scenes::Chain, so both chain benchmarks show the same balls
constexpr Scalar kStrikerSpeed = 1;        // m/s
constexpr Scalar kOutcomeTolerance = 1e-9; // on every velocity component (m/s, rad/s)
constexpr std::uint64_t kShuffleSeed = 1;

/// CPU seconds of the calling thread (as BenchSupport.h's now(), which needs Bullet).
double now() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

enum class Numbering { Forward, Reverse, Shuffled };

/// A contact as the timed loop adds it.
struct ChainContact {
  int bodyA = 0;            // the ball on the +x side
  int bodyB = 0;            // the ball on the −x side
  std::uint64_t key = 0;    // chain position: tie-breaks independent of the numbering
  bool seed = false;        // only the striker's contact
};

/// Everything the timed loop adds, precomputed in the order it adds it.
struct ChainInput {
  std::vector<RigidBodyInput> bodies;  // by body id
  std::vector<ChainContact> contacts;  // in the order addRigidContact sees them
  std::vector<int> bodyOfBall;         // ball 0 is the striker, ball N the far end
};

std::uint64_t splitMix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31U);
}

/// 0..n−1 in the numbering's order. Fisher–Yates with our own generator
/// (std::shuffle's algorithm differs between standard libraries).
std::vector<int> ordering(int n, Numbering numbering, std::uint64_t salt) {
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  if (numbering == Numbering::Reverse) std::reverse(order.begin(), order.end());
  if (numbering == Numbering::Shuffled) {
    std::uint64_t state = kShuffleSeed ^ salt;
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[splitMix(state) % i]);
  }
  return order;
}

ChainInput makeChain(int count, Numbering numbering) {
  const int balls = count + 1;
  ChainInput in;
  in.bodyOfBall = ordering(balls, numbering, 0x626f6479);
  in.bodies.resize(static_cast<std::size_t>(balls));
  for (int ball = 0; ball < balls; ++ball) {
    RigidBodyInput& body = in.bodies[static_cast<std::size_t>(in.bodyOfBall[static_cast<std::size_t>(ball)])];
    body.inverseMass = 1;
    body.inverseInertiaWorld = Matrix3::Identity() / (Scalar(0.4) * kRadius * kRadius);
    body.linearVelocity = ball == 0 ? Vector3(kStrikerSpeed, 0, 0) : Vector3::Zero();
  }
  for (const int k : ordering(count, numbering, 0x636f6e74)) {  // contact k joins balls k and k+1
    const auto ball = [&](int b) { return in.bodyOfBall[static_cast<std::size_t>(b)]; };
    in.contacts.push_back(ChainContact{ball(k + 1), ball(k), static_cast<std::uint64_t>(k), k == 0});
  }
  return in;
}

ResolveOptions adapterOptions() {
  ResolveOptions options;
  options.analysisContactLimit = 16;
  options.growFromSeeds = true;
  options.jointErrorAsBias = false;
  return options;
}

void buildProblem(const ChainInput& in, ImpactProblem& problem) {
  problem.clear();
  for (const RigidBodyInput& body : in.bodies) (void)problem.addRigidBody(body);
  const Vector3 normal = Vector3::UnitX();
  const Vector3 offsetA = -kRadius * normal;
  const Vector3 offsetB = kRadius * normal;
  for (const ChainContact& c : in.contacts) {
    const int i = problem.addRigidContact(c.bodyA, c.bodyB, normal, offsetA, offsetB, 1, 0, c.key);
    problem.setSeed(i, c.seed);
  }
}

/// The last ball leaves at the striker's speed along x, everything else rests.
bool outcomeIsRight(const ChainInput& in, const ImpactProblem& problem, const ImpactResult& result) {
  if (result.capHit || result.velocity.size() != problem.dofCount()) return false;
  const std::size_t last = in.bodyOfBall.size() - 1;
  for (std::size_t ball = 0; ball <= last; ++ball) {
    const BlockLayout& block = problem.block(in.bodyOfBall[ball]);
    if (block.size != 6) return false;
    Vector6 expected = Vector6::Zero();
    if (ball == last) expected[0] = kStrikerSpeed;
    const auto error = result.velocity.segment<6>(block.velocityOffset) - expected;
    if (error.cwiseAbs().maxCoeff() > kOutcomeTolerance) return false;
  }
  return true;
}

void coreChain(benchmark::State& state, Numbering numbering) {
  const ChainInput input = makeChain(static_cast<int>(state.range(0)), numbering);
  const ResolveOptions options = adapterOptions();
  ImpactProblem problem;
  ImpactResolver resolver;
  ImpactResult result;
  buildProblem(input, problem);
  resolver.resolve(problem, options, result);
  if (!outcomeIsRight(input, problem, result)) {
    state.SkipWithError("wrong outcome: the last ball must leave at 1 m/s and every other ball rest");
    return;
  }
  std::int64_t reflections = 0;
  const double start = now();
  for (auto _ : state) {
    buildProblem(input, problem);
    resolver.resolve(problem, options, result);
    reflections += result.reflections;
    benchmark::DoNotOptimize(result.velocity.data());
  }
  const double seconds = now() - start;  // the loop's thread CPU time, as cpu_time
  if (!outcomeIsRight(input, problem, result)) {
    state.SkipWithError("wrong outcome in the timed loop");
    return;
  }
  state.counters["reflections"] = double(result.reflections);
  state.counters["reflections_per_s"] = benchmark::Counter(double(reflections), benchmark::Counter::kIsRate);
  state.counters["ns_per_reflection"] = 1e9 * seconds / double(reflections);
}

void coreChainArgs(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMicrosecond);
  for (const int n : {100, 1000, 10000, 100000}) b->Arg(n);
}

BENCHMARK_CAPTURE(coreChain, forward, Numbering::Forward)->Name("core_chain/forward")->Apply(coreChainArgs);
BENCHMARK_CAPTURE(coreChain, reverse, Numbering::Reverse)->Name("core_chain/reverse")->Apply(coreChainArgs);
BENCHMARK_CAPTURE(coreChain, shuffled, Numbering::Shuffled)->Name("core_chain/shuffled")->Apply(coreChainArgs);

}  // namespace
}  // namespace propimpact::bench
