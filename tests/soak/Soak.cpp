// Soak (issue 6, item 4): long runs of the drop-in solver through Bullet.
//
//   propimpact_soak [--steps N] [--scenes gas,pile] [--no-read-report] [--trace-energy FRACTION]
//
// gas:  100 frictionless spheres in a closed static box, zero gravity, COR 1.
//       Kinetic energy is an invariant: its relative drift must stay below
//       kGasDriftBound (round-off of btScalar) for the whole run.
// pile: 200 spheres (scenes::Pile, COR 0.5, friction 0.5) under gravity.
//       No NaN, no centre beyond a wall's inner face or below the floor, and
//       the mechanical energy never above its initial value (the pile starts
//       at rest at its drop heights, so any excess is energy the solver made;
//       tolerance: round-off, kPileEnergyTolerance of the initial energy).
// Both: resident memory (/proc/self/statm) sampled 100 times; after the first
// 10 % of the run it must not grow by more than kRssGrowthBound.
// The solver's report is read every step, as an application would
// (--no-read-report leaves it unread, to show what that costs).
// Exit status 0 when every check holds, 1 otherwise.
#include <fmt/core.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <propimpact/bullet/PropagativeImpactSolver.h>
#include <propimpact/scenes/Scenes.h>
#include <propimpact/scenes/World.h>

namespace {

using propimpact::ClusterReport;
using propimpact::ContactReport;
using propimpact::PropagativeImpactSolver;
using propimpact::StepReport;
namespace scenes = propimpact::scenes;

constexpr double kDt = 1.0 / 60;
constexpr double kGravity = 9.81;
/// Relative kinetic-energy drift of the elastic gas (see docs/reliability.md for the measured figure).
constexpr double kGasDriftBound = sizeof(btScalar) == 8 ? 1e-10 : 1e-3;
/// Mechanical energy of the pile may exceed its initial value by this fraction (round-off only).
constexpr double kPileEnergyTolerance = sizeof(btScalar) == 8 ? 1e-9 : 1e-5;
/// Resident memory may grow by this much after warm-up (allocator slack; a leak of one cluster
/// report per step would pass it within a few thousand steps).
constexpr long kRssGrowthBound = 512 * 1024;

long residentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return -1;
  long size = 0, resident = 0;
  const int read = std::fscanf(f, "%ld %ld", &size, &resident);
  std::fclose(f);
  return read == 2 ? resident * sysconf(_SC_PAGESIZE) : -1;
}

bool finite(const btVector3& v) { return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z()); }

struct Options {
  long steps = 1000000;
  bool gas = true;
  bool pile = true;
  bool readReport = true;
  double traceJump = 0;  // gas: print each step whose energy jumps by more than this fraction, with its report
};

/// Samples resident memory and checks it is flat after warm-up.
class MemoryWatch {
 public:
  explicit MemoryWatch(long steps) : m_interval(std::max(1L, steps / 100)), m_warmup(std::max(1L, steps / 10)) {}
  void sample(long step) {
    if (step % m_interval != 0 && step != m_warmup) return;
    const long rss = residentBytes();
    if (step <= m_warmup) m_atWarmup = rss;
    m_peakAfter = step > m_warmup ? std::max(m_peakAfter, rss) : m_peakAfter;
    m_first = m_first < 0 ? rss : m_first;
  }
  [[nodiscard]] long growth() const { return m_peakAfter < 0 ? 0 : m_peakAfter - m_atWarmup; }
  [[nodiscard]] bool ok() const { return growth() <= kRssGrowthBound; }
  void print() const {
    fmt::print("  RSS: {:.1f} MiB at start, {:.1f} MiB after warm-up, peak {:.1f} MiB after it (growth {} KiB, bound {} KiB)\n",
               m_first / 1048576.0, m_atWarmup / 1048576.0, std::max(m_peakAfter, m_atWarmup) / 1048576.0,
               growth() / 1024, kRssGrowthBound / 1024);
  }

 private:
  long m_interval;
  long m_warmup;
  long m_first = -1;
  long m_atWarmup = -1;
  long m_peakAfter = -1;
};

struct Counters {
  std::int64_t clusters = 0;
  std::int64_t capHits = 0;
  std::int64_t rejected = 0;
  std::size_t largestContacts = 0;  // contacts of the largest impact cluster
  std::size_t largestBodies = 0;
  void read(PropagativeImpactSolver& solver) {
    const auto& report = solver.lastStepReport();
    clusters += static_cast<std::int64_t>(report.clusters.size());
    for (const auto& c : report.clusters) {
      largestContacts = std::max(largestContacts, c.contacts.size());
      largestBodies = std::max(largestBodies, c.bodies.size());
    }
    capHits += report.capHits;
    rejected += static_cast<std::int64_t>(report.rejected.size());
  }
};

/// One line every tenth of the run, so that a long soak shows it is alive.
void progress(const char* scene, long step, long steps, std::chrono::steady_clock::time_point start, double figure) {
  if (steps < 10 || step % (steps / 10) != 0) return;
  fmt::print("  {} {:>3}%: step {}, {:.1f} s, {:.3e}\n", scene, step * 100 / steps, step,
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), figure);
  std::fflush(stdout);
}

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

/// A step whose energy jumped: what the solver reported and which pairs touch.
void traceStep(long step, double jump, scenes::World& world, PropagativeImpactSolver& solver) {
  fmt::print("  step {}: relative energy change {:.3e}\n", step, jump);
  const StepReport& report = solver.lastStepReport();
  for (const ClusterReport& c : report.clusters) {
    fmt::print("    cluster: {} contacts, {} bodies, {} reflections, energy {:.9f} -> {:.9f}, fallback {}\n", c.contacts.size(),
               c.bodies.size(), c.reflections, c.energyBefore, c.energyAfter, static_cast<int>(c.fallback));
    for (const ContactReport& contact : c.contacts)
      fmt::print("      {} - {}: approach {:.6f} separation {:.6f} impulse {:.6f} seed {}\n", fmt::ptr(contact.bodyA),
                 fmt::ptr(contact.bodyB), contact.approachSpeed, contact.separationSpeed, contact.impulse, contact.seed);
  }
  btDispatcher* dispatcher = world.dynamics().getDispatcher();
  for (int m = 0; m < dispatcher->getNumManifolds(); ++m) {
    const btPersistentManifold* manifold = dispatcher->getManifoldByIndexInternal(m);
    for (int j = 0; j < manifold->getNumContacts(); ++j) {
      const btManifoldPoint& cp = manifold->getContactPoint(j);
      if (cp.getDistance() > 0.01) continue;
      fmt::print("    manifold {} - {}: distance {:.6f} applied impulse {:.6f} lifetime {}\n", fmt::ptr(manifold->getBody0()),
                 fmt::ptr(manifold->getBody1()), cp.getDistance(), cp.m_appliedImpulse, cp.getLifeTime());
    }
  }
}

bool soakGas(const Options& opt) {
  scenes::World world("propagative");
  auto& solver = dynamic_cast<PropagativeImpactSolver&>(world.solver());
  scenes::Gas scene;
  const scenes::SceneBodies made = scenes::build(world, scene);
  const double e0 = world.kineticEnergy();
  double worst = 0, worstPositive = 0, previousDrift = 0;
  long worstStep = 0;
  bool bad = false;
  Counters counters;
  MemoryWatch memory(opt.steps);
  const auto start = std::chrono::steady_clock::now();
  memory.sample(0);
  for (long k = 1; k <= opt.steps; ++k) {
    world.step(kDt);
    if (opt.readReport) counters.read(solver);
    const double drift = (world.kineticEnergy() - e0) / e0;
    if (opt.traceJump > 0 && std::abs(drift - previousDrift) > opt.traceJump) traceStep(k, drift - previousDrift, world, solver);
    previousDrift = drift;
    if (!(std::abs(drift) <= worst)) {
      worst = std::abs(drift);
      worstStep = k;
    }
    worstPositive = std::max(worstPositive, drift);
    if (!std::isfinite(drift)) bad = true;
    memory.sample(k);
    progress("gas", k, opt.steps, start, drift);
  }
  const double elapsed = seconds(start);
  const double finalDrift = (world.kineticEnergy() - e0) / e0;
  // Every sphere must still be inside the box.
  int outside = 0;
  for (const btRigidBody* body : made.bodies) {
    const btVector3& p = body->getWorldTransform().getOrigin();
    if (!finite(p) || std::abs(p.x()) > scene.halfSize || std::abs(p.y()) > scene.halfSize || std::abs(p.z()) > scene.halfSize)
      ++outside;
  }
  const bool driftOk = !bad && worst <= kGasDriftBound;
  fmt::print("gas: {} spheres, {} steps of {:.4f} s in {:.1f} s ({:.0f} steps/s)\n", scene.count, opt.steps, kDt, elapsed,
             opt.steps / elapsed);
  fmt::print("  kinetic energy {:.6f} J: largest relative drift {:.3e} (step {}), largest gain {:.3e}, final {:.3e} (bound {:.0e})\n",
             e0, worst, worstStep, worstPositive, finalDrift, kGasDriftBound);
  fmt::print("  impact clusters {}, cap hits {}, rejected bodies {}, spheres outside the box {}\n", counters.clusters,
             counters.capHits, counters.rejected, outside);
  memory.print();
  const bool ok = driftOk && outside == 0 && counters.rejected == 0 && memory.ok();
  fmt::print("  gas: {}\n", ok ? "ok" : "FAILED");
  return ok;
}

bool soakPile(const Options& opt) {
  scenes::World world("propagative");
  auto& solver = dynamic_cast<PropagativeImpactSolver&>(world.solver());
  scenes::Pile scene;
  scene.count = 200;
  const scenes::SceneBodies made = scenes::build(world, scene);
  const double radius = 0.5, half = 6;
  const auto mechanical = [&] {
    double potential = 0;
    for (const btRigidBody* body : made.bodies) potential += kGravity * body->getWorldTransform().getOrigin().y() / body->getInvMass();
    return world.kineticEnergy() + potential;
  };
  const double e0 = mechanical();
  double ceiling = 0;
  for (const btRigidBody* body : made.bodies) ceiling = std::max(ceiling, double(body->getWorldTransform().getOrigin().y()));
  double worstExcess = -1e300, deepest = 0, settled = 0, settledRise = 0, lowest = e0;
  long nanStep = 0, escapeStep = 0, excessStep = 0;
  const long warmup = std::max(1L, opt.steps / 10);
  Counters counters;
  MemoryWatch memory(opt.steps);
  const auto start = std::chrono::steady_clock::now();
  memory.sample(0);
  for (long k = 1; k <= opt.steps; ++k) {
    world.step(kDt);
    if (opt.readReport) counters.read(solver);
    for (const btRigidBody* body : made.bodies) {
      const btVector3& p = body->getWorldTransform().getOrigin();
      if (!finite(p) || !finite(body->getLinearVelocity()) || !finite(body->getAngularVelocity())) {
        if (nanStep == 0) nanStep = k;
        continue;
      }
      // Penetration into a wall or the floor; a centre beyond the face has escaped.
      const double into = std::max({std::abs(double(p.x())) + radius - half, std::abs(double(p.z())) + radius - half,
                                    radius - double(p.y())});
      deepest = std::max(deepest, into);
      if ((into >= radius || double(p.y()) > ceiling + radius) && escapeStep == 0) escapeStep = k;
    }
    const double e = mechanical();
    const double excess = (e - e0) / std::abs(e0);
    if (excess > worstExcess) worstExcess = excess;
    if (excess > kPileEnergyTolerance && excessStep == 0) excessStep = k;
    lowest = std::min(lowest, e);
    if (k == warmup) settled = e;
    if (k > warmup) settledRise = std::max(settledRise, e - settled);
    memory.sample(k);
    progress("pile", k, opt.steps, start, excess);
  }
  const double elapsed = seconds(start);
  fmt::print("pile: {} spheres, {} steps of {:.4f} s in {:.1f} s ({:.0f} steps/s)\n", scene.count, opt.steps, kDt, elapsed,
             opt.steps / elapsed);
  fmt::print("  mechanical energy: initial {:.3f} J, lowest {:.3f} J, largest excess over initial {:.3e} of it (tolerance {:.0e}{})\n",
             e0, lowest, worstExcess, kPileEnergyTolerance, excessStep ? fmt::format(", first exceeded at step {}", excessStep) : "");
  fmt::print("  after warm-up ({} steps, {:.3f} J): largest rise {:.3e} J ({:.3e} of the initial energy)\n", warmup,
             settled, settledRise, settledRise / std::abs(e0));
  fmt::print("  deepest penetration into a wall or the floor {:.4f} m; NaN {}; escape {}\n", deepest,
             nanStep ? fmt::format("at step {}", nanStep) : "none", escapeStep ? fmt::format("at step {}", escapeStep) : "none");
  fmt::print("  impact clusters {} (largest {} contacts, {} bodies), cap hits {}, rejected bodies {}\n", counters.clusters,
             counters.largestContacts, counters.largestBodies, counters.capHits, counters.rejected);
  memory.print();
  const bool ok = nanStep == 0 && escapeStep == 0 && excessStep == 0 && counters.rejected == 0 && memory.ok();
  fmt::print("  pile: {}\n", ok ? "ok" : "FAILED");
  return ok;
}

Options parse(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--steps" && i + 1 < argc) {
      opt.steps = std::stol(argv[++i]);
      if (opt.steps < 1) throw std::invalid_argument("--steps must be positive");
    } else if (arg == "--scenes" && i + 1 < argc) {
      const std::string list = argv[++i];
      opt.gas = list.find("gas") != std::string::npos;
      opt.pile = list.find("pile") != std::string::npos;
      if (!opt.gas && !opt.pile) throw std::invalid_argument("--scenes takes gas, pile or gas,pile");
    } else if (arg == "--trace-energy" && i + 1 < argc) {
      opt.traceJump = std::stod(argv[++i]);
    } else if (arg == "--no-read-report") {
      opt.readReport = false;
    } else if (arg == "-h" || arg == "--help") {
      fmt::print("usage: propimpact_soak [--steps N (default 1000000)] [--scenes gas,pile] [--no-read-report] [--trace-energy FRACTION]\n");
      std::exit(0);
    } else {
      throw std::invalid_argument("unknown argument: " + arg);
    }
  }
  return opt;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  try {
    opt = parse(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "propimpact_soak: {}\n", e.what());
    return 2;
  }
  fmt::print("soak: {} steps per scene, btScalar of {} bytes, report {}\n", opt.steps, sizeof(btScalar),
             opt.readReport ? "read every step" : "never read");
  bool ok = true;
  if (opt.gas) ok = soakGas(opt) && ok;
  if (opt.pile) ok = soakPile(opt) && ok;
  fmt::print("soak: {}\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
