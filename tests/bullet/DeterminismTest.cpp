// Determinism through Bullet (issue 6, item 3): the same scene stepped twice,
// in two fresh worlds, gives bit-identical body states. The hash covers the
// raw bytes of every dynamic body's position, orientation (basis), linear and
// angular velocity after N steps; the two worlds live at different addresses,
// so nothing keyed on pointers may change the outcome.
// (propimpact-compare's --jobs determinism is CompareCli.JobsDoNotChangeResults.)
#include <fmt/core.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

/// FNV-1a over raw bytes.
class Hasher {
 public:
  void add(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < size; ++i) m_hash = (m_hash ^ bytes[i]) * 0x100000001b3ULL;
  }
  /// x, y, z only: btVector3's fourth lane is padding that Bullet may leave unset.
  void add(const btVector3& v) {
    for (int k = 0; k < 3; ++k) {
      const btScalar x = v[k];
      add(&x, sizeof x);
    }
  }
  [[nodiscard]] std::uint64_t value() const { return m_hash; }

 private:
  std::uint64_t m_hash = 0xcbf29ce484222325ULL;
};

std::uint64_t stateHash(const scenes::World& world) {
  Hasher h;
  for (const btRigidBody* body : world.bodies()) {
    if (body->isStaticOrKinematicObject()) continue;
    const btTransform& t = body->getWorldTransform();
    h.add(t.getOrigin());
    for (int r = 0; r < 3; ++r) h.add(t.getBasis()[r]);
    h.add(body->getLinearVelocity());
    h.add(body->getAngularVelocity());
  }
  return h.value();
}

struct Run {
  std::uint64_t hash = 0;
  std::int64_t clusters = 0;  // impact clusters seen: the scene must exercise the impact path
  SolveStageSeconds seconds;  // summed over the steps (SolverSettings::timeStages)
};

using Builder = std::function<void(scenes::World&)>;

Run run(const Builder& build, int steps, double dt, const SolverSettings& settings = {}) {
  auto world = std::make_unique<scenes::World>("propagative");
  testing::propagative(*world).settings() = settings;
  build(*world);
  Run out;
  for (int k = 0; k < steps; ++k) {
    world->step(dt);
    const StepReport& report = testing::propagative(*world).lastStepReport();
    out.clusters += static_cast<std::int64_t>(report.clusters.size());
    out.seconds += report.stageSeconds;
  }
  out.hash = stateHash(*world);
  return out;
}

void expectIdentical(const char* name, const Builder& build, int steps, double dt, const SolverSettings& settings = {}) {
  // A live allocation between the runs moves the second world's objects to other addresses.
  const Run first = run(build, steps, dt, settings);
  const std::vector<char> shift(4096 + 64, 1);
  const Run second = run(build, steps, dt, settings);
  fmt::print("{}: {} steps, {} impact clusters, state hash {:016x} / {:016x}\n", name, steps, first.clusters, first.hash,
             second.hash);
  EXPECT_GT(first.clusters, 0) << name << ": no impact happened";
  EXPECT_EQ(first.clusters, second.clusters) << name;
  EXPECT_EQ(first.hash, second.hash) << name << ": two identical runs differ";
  (void)shift;
}

TEST(Determinism, PileWithImpacts) {
  expectIdentical("pile of 100", [](scenes::World& w) { scenes::build(w, scenes::Pile{}); }, 300, 1.0 / 60);
}

// Stage timing reads clocks and nothing else: the same pile (COR 0.5, so
// plastic solves run too) ends in the same bits with and without it, an
// untimed run reports no time, and the timed run puts time in every stage a
// step with impacts goes through.
TEST(Determinism, StageTimingChangesNothing) {
  const Builder pile = [](scenes::World& w) { scenes::build(w, scenes::Pile{}); };
  SolverSettings timed;
  timed.timeStages = true;
  const auto plain = run(pile, 300, 1.0 / 60);
  const auto measured = run(pile, 300, 1.0 / 60, timed);
  const SolveStageSeconds& s = measured.seconds;
  fmt::print("pile of 100, 300 steps: classification {:.4f} s, build {:.4f}, prepare {:.4f}, propagation {:.4f}, "
             "plastic {:.4f}, analysis {:.4f}, write-back {:.4f}, Bullet's pass {:.4f}\n",
             s.classification, s.problemBuild, s.prepare, s.propagation, s.plastic, s.analysis, s.writeBack,
             s.restingPass);
  ASSERT_GT(plain.clusters, 0);
  EXPECT_EQ(plain.clusters, measured.clusters);
  EXPECT_EQ(plain.hash, measured.hash) << "timing the stages changed the outcome";
  const SolveStageSeconds& none = plain.seconds;
  EXPECT_EQ(none.classification + none.problemBuild + none.prepare + none.propagation + none.plastic + none.analysis +
                none.writeBack + none.restingPass,
            0.0);
  for (const double stage : {s.classification, s.problemBuild, s.prepare, s.propagation + s.plastic, s.writeBack,
                             s.restingPass})
    EXPECT_GT(stage, 0.0);
  EXPECT_GE(s.analysis, 0.0);
}

TEST(Determinism, ElasticPile) {
  scenes::Pile pile;
  pile.count = 60;
  pile.cor = 1;
  expectIdentical("elastic pile of 60", [pile](scenes::World& w) { scenes::build(w, pile); }, 240, 1.0 / 120);
}

// A component's impact problem is first built near its seeds
// (ClusterProblem.h: every body, only the contacts of bodies near the seeds)
// and must give the whole component's outcome bit for bit. With computeXi
// every component is built whole (ξ's other orders may reach any contact), so
// the same pile with and without it ends in the same bits only if the near
// problems changed nothing. A pile of 300 settles into one touching component
// whose later rounds (speculative points the first round drove shut) have a
// few seeds: those are resolved near (with nearSuffices made to accept every
// near problem, the hashes differ).
TEST(Determinism, NearProblemsChangeNothing) {
  for (const double cor : {1.0, 0.5}) {
    scenes::Pile pile;
    pile.count = 300;
    pile.cor = cor;
    const Builder build = [pile](scenes::World& w) { scenes::build(w, pile); };
    SolverSettings whole;
    whole.computeXi = true;
    const auto nearFirst = run(build, 300, 1.0 / 60);
    const auto wholeOnly = run(build, 300, 1.0 / 60, whole);
    fmt::print("pile of 300, COR {}: {} impact clusters, state hash {:016x} near first, {:016x} whole\n", cor,
               nearFirst.clusters, nearFirst.hash, wholeOnly.hash);
    EXPECT_GT(nearFirst.clusters, 0);
    EXPECT_EQ(nearFirst.clusters, wholeOnly.clusters) << "COR " << cor;
    EXPECT_EQ(nearFirst.hash, wholeOnly.hash) << "COR " << cor << ": a near problem changed the outcome";
  }
}

TEST(Determinism, CradleLine) {
  scenes::CradleLine cradle;
  cradle.count = 5;
  cradle.incoming = 2;
  expectIdentical("cradle 2-into-3", [cradle](scenes::World& w) { scenes::build(w, cradle); }, 120, cradle.dt);
}

TEST(Determinism, HangingCradle) {
  expectIdentical("hanging cradle", [](scenes::World& w) { scenes::build(w, scenes::HangingCradle{}); }, 600, 1.0 / 240);
}

TEST(Determinism, BilliardsBreak) {
  scenes::BilliardsBreak billiards;
  billiards.theta = 2.0;
  billiards.rb = 0.6;
  expectIdentical("billiard break", [billiards](scenes::World& w) { scenes::build(w, billiards); }, 120, billiards.dt);
}

TEST(Determinism, GasWithSeededRandomOrdering) {
  SolverSettings settings;
  settings.ordering = OrderingPolicy::SeededRandom;
  settings.randomSeed = 42;
  settings.computeXi = true;
  expectIdentical("gas of 100, seeded-random order", [](scenes::World& w) { scenes::build(w, scenes::Gas{}); }, 600,
                  1.0 / 60, settings);
}

}  // namespace
}  // namespace propimpact
