// `world`: a user's .bullet file replayed under each solver; energy per step.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include <propimpact/bullet/PropagativeImpactSolver.h>
#include <propimpact/scenes/Solvers.h>
#include <propimpact/scenes/World.h>

#include "Studies.h"
#include <propimpact/scenes/WorldFile.h>

namespace propimpact::compare {
namespace {

const std::vector<std::string> kHeader = {"solver",    "step",  "time",    "energy",  "kinetic",
                                          "potential", "drift", "impacts", "clusters"};

struct Energy {
  double kinetic = 0, potential = 0;
  [[nodiscard]] double total() const { return kinetic + potential; }
};

/// Kinetic ½ m v² + ½ ωᵀ I ω and gravitational −m g·x of every dynamic body
/// (potential zero at the world origin, each body under its own gravity).
Energy energyOf(const std::vector<btRigidBody*>& bodies) {
  Energy e;
  for (const btRigidBody* body : bodies) {
    if (body->getInvMass() <= 0) continue;
    const double mass = 1.0 / double(body->getInvMass());
    e.kinetic += scenes::kineticEnergy(*body);
    e.potential -= mass * double(body->getGravity().dot(body->getCenterOfMassPosition()));
  }
  return e;
}

/// Velocities of the dynamic bodies before a step, to tell impacts from resting contact.
struct Velocities {
  std::unordered_map<const btCollisionObject*, std::pair<btVector3, btVector3>> of;  // body → (v, ω)
  [[nodiscard]] btVector3 at(const btCollisionObject* object, const btVector3& point) const {
    const auto it = of.find(object);
    if (it == of.end()) return btVector3(0, 0, 0);  // static or kinematic: at rest for this count
    const auto* body = btRigidBody::upcast(object);
    return it->second.first + it->second.second.cross(point - body->getCenterOfMassPosition());
  }
};

Velocities velocitiesOf(const std::vector<btRigidBody*>& bodies) {
  Velocities v;
  for (const btRigidBody* body : bodies)
    if (body->getInvMass() > 0) v.of[body] = {body->getLinearVelocity(), body->getAngularVelocity()};
  return v;
}

/// Impacts of a step, counted the same way for every solver: points of this
/// step's collision detection whose bodies approached, before the step,
/// faster than one step's gravity kick |g|·dt (resting contact approaches by
/// about that much; an impact by much more) and close enough to touch within
/// the step (distance ≤ approach·dt, so speculative points count too).
int impactsOf(btDiscreteDynamicsWorld& world, const Velocities& before, double dt) {
  const double threshold = std::max(double(world.getGravity().length()) * dt, 1e-9);
  btDispatcher* dispatcher = world.getDispatcher();
  int count = 0;
  for (int m = 0; m < dispatcher->getNumManifolds(); ++m) {
    const btPersistentManifold* manifold = dispatcher->getManifoldByIndexInternal(m);
    for (int p = 0; p < manifold->getNumContacts(); ++p) {
      const btManifoldPoint& point = manifold->getContactPoint(p);
      const btVector3 relative = before.at(manifold->getBody0(), point.getPositionWorldOnA()) -
                                 before.at(manifold->getBody1(), point.getPositionWorldOnB());
      const double approach = -double(relative.dot(point.m_normalWorldOnB));  // normal points from B to A
      if (approach > threshold && double(point.getDistance()) <= approach * dt) ++count;
    }
  }
  return count;
}

struct SolverRun {
  std::string solver;
  double energy0 = 0, worstDrift = 0, worstTime = 0, secondsPerStep = 0;
  long impacts = 0, clusters = 0, steps = 0;
  bool doubleFile = false, gravityFromFile = false;
  std::size_t bodies = 0;
};

double relativeDrift(double energy, double energy0) {
  const double scale = std::abs(energy0) > 0 ? std::abs(energy0) : 1.0;  // E0 = 0: absolute drift
  return (energy - energy0) / scale;
}

SolverRun runSolver(const std::string& solver, const WorldOptions& options, Table& table) {
  scenes::LoadedWorld loaded(options.file, solver);
  SolverRun run{solver};
  run.doubleFile = loaded.doublePrecisionFile();
  run.gravityFromFile = loaded.gravityFromFile();
  run.bodies = loaded.rigidBodies().size();
  btDiscreteDynamicsWorld& world = loaded.world().dynamics();
  auto* propagative = dynamic_cast<PropagativeImpactSolver*>(&loaded.world().solver());
  const auto& bodies = loaded.rigidBodies();
  const double dt = 1.0 / options.hz;
  run.steps = std::lround(options.seconds * options.hz);
  const Energy start = energyOf(bodies);
  run.energy0 = start.total();
  const auto row = [&](long step, const Energy& e, int impacts, int clusters) {
    table.rows.push_back({solver, std::to_string(step), formatNumber(double(step) * dt), formatNumber(e.total()),
                          formatNumber(e.kinetic), formatNumber(e.potential),
                          formatNumber(relativeDrift(e.total(), run.energy0)), std::to_string(impacts),
                          std::to_string(clusters)});
  };
  row(0, start, 0, 0);
  if (propagative) (void)propagative->lastStepReport();  // start the report afresh
  std::chrono::duration<double> stepping{0};
  for (long k = 1; k <= run.steps; ++k) {
    const Velocities before = velocitiesOf(bodies);
    const auto t0 = std::chrono::steady_clock::now();
    world.stepSimulation(btScalar(dt), options.maxSubSteps, btScalar(dt));
    stepping += std::chrono::steady_clock::now() - t0;
    const int clusters = propagative ? int(propagative->lastStepReport().clusters.size()) : 0;
    const int impacts = impactsOf(world, before, dt);
    run.impacts += impacts;
    run.clusters += clusters;
    const Energy e = energyOf(bodies);
    const double drift = std::abs(relativeDrift(e.total(), run.energy0));
    if (!(drift <= run.worstDrift)) {  // NaN counts as the worst
      run.worstDrift = std::isnan(drift) ? std::numeric_limits<double>::infinity() : drift;
      run.worstTime = double(k) * dt;
    }
    if (k % options.every == 0 || k == run.steps) row(k, e, impacts, clusters);
  }
  run.secondsPerStep = run.steps > 0 ? stepping.count() / double(run.steps) : 0;
  return run;
}

void validate(const WorldOptions& options) {
  if (!(options.hz > 0) || !(options.seconds >= 0) || options.maxSubSteps < 1 || options.every < 1)
    throw std::invalid_argument("world: need --hz > 0, --seconds >= 0, --max-substeps >= 1, --every >= 1");
  if (!(options.maxDrift >= 0)) throw std::invalid_argument("world: need --max-drift >= 0");
  if (options.solvers.empty()) throw std::invalid_argument("world: --solvers is empty");
  for (const auto& name : options.solvers)
    if (!scenes::isSolverName(name)) throw std::invalid_argument("unknown solver '" + name + "'");
  if (!options.check) return;
  for (const auto& name : options.checkSolvers)
    if (std::find(options.solvers.begin(), options.solvers.end(), name) != options.solvers.end()) return;
  throw std::invalid_argument("--check: none of the checked solvers (--check-solvers) is in --solvers");
}

}  // namespace

StudyOutput runWorld(const WorldOptions& options) {
  validate(options);
  StudyOutput out;
  out.table.header = kHeader;
  std::vector<SolverRun> runs;
  for (const auto& solver : options.solvers) runs.push_back(runSolver(solver, options, out.table));
  if (!options.quiet) {
    const SolverRun& first = runs.front();
    fmt::print(stderr, "world {}: {} rigid bodies, {} file, gravity {}, {} steps at {} Hz\n", options.file,
               first.bodies, first.doubleFile ? "double-precision" : "single-precision",
               first.gravityFromFile ? "from the file" : "Bullet's default (no world record in the file)", first.steps,
               options.hz);
    fmt::print(stderr, "{:<20} {:>14} {:>12} {:>9} {:>9} {:>12} {:>12}\n", "solver", "initial E (J)", "worst drift",
               "at t (s)", "impacts", "clusters", "step (ms)");
    for (const SolverRun& r : runs)
      fmt::print(stderr, "{:<20} {:>14.8g} {:>12.3e} {:>9.4g} {:>9} {:>12} {:>12.4f}\n", r.solver, r.energy0,
                 r.worstDrift, r.worstTime, r.impacts, r.clusters, 1e3 * r.secondsPerStep);
  }
  if (!options.check) return out;
  for (const SolverRun& r : runs) {
    if (std::find(options.checkSolvers.begin(), options.checkSolvers.end(), r.solver) == options.checkSolvers.end())
      continue;
    ++out.checkedRows;
    if (!(r.worstDrift <= options.maxDrift))
      out.failures.push_back(
          fmt::format("world {} solver={}: worst relative energy drift {:.3e} at t = {:.4g} s "
                      "exceeds --max-drift {:.3g}",
                      options.file, r.solver, r.worstDrift, r.worstTime, options.maxDrift));
  }
  return out;
}

}  // namespace propimpact::compare
