#include "PileOverlap.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include <propimpact/bullet/PropagativeImpactSolver.h>
#include <propimpact/scenes/Scenes.h>
#include <propimpact/scenes/World.h>

#include "Csv.h"
#include "LandingStudy.h"
#include "Sweep.h"

namespace propimpact::compare {
namespace {

constexpr double kGravity = 9.81;  // scenes::Pile's

struct Cell {
  std::string solver;
  double cor = 0;
};

struct Result {
  double overlap = 0, penetration = 0, energyStart = 0, energyEnd = 0, minRatio = 1, maxRatio = 1;
  // One step's approach (relative normal speed before the step × dt) of the
  // pair at the deepest overlap and penetration: how much of the depth is
  // arrival, the body moving one step into its partner before any contact exists.
  double overlapStepTravel = 0, penetrationStepTravel = 0;
};

double mechanicalEnergy(const scenes::World& world) {
  double energy = world.kineticEnergy();
  for (const btRigidBody* body : world.bodies())
    if (body->getInvMass() > 0) energy += kGravity * double(body->getCenterOfMassPosition().y()) / double(body->getInvMass());
  return energy;
}

Result runCell(const Cell& cell, const PileOverlapOptions& o) {
  const bool friction = cell.solver == "propagative-friction";
  scenes::World world(friction ? "propagative" : cell.solver);
  if (auto* ours = dynamic_cast<PropagativeImpactSolver*>(&world.solver())) {
    ours->settings().impactFriction = friction;
    ours->settings().keepReport = false;  // nothing reads it here
  }
  scenes::Pile scene;
  scene.count = o.count;
  scene.cor = cell.cor;
  scenes::build(world, scene);
  Result r;
  r.energyStart = mechanicalEnergy(world);
  const auto steps = static_cast<long>(std::lround(o.seconds * o.hz));
  const auto windowStep = static_cast<long>(std::lround(o.windowStart * o.hz));
  std::vector<btVector3> before(world.bodies().size());
  for (long k = 1; k <= steps; ++k) {
    for (std::size_t b = 0; b < before.size(); ++b) before[b] = world.bodies()[b]->getLinearVelocity();
    world.step(1 / o.hz);
    const double ratio = mechanicalEnergy(world) / r.energyStart;
    r.minRatio = std::min(r.minRatio, ratio);
    r.maxRatio = std::max(r.maxRatio, ratio);
    if (k < windowStep) continue;
    for (const scenes::ContactSample& c : world.contacts()) {
      if (c.distance >= 0) continue;
      const bool bothDynamic = world.bodies()[static_cast<std::size_t>(c.bodyA)]->getInvMass() > 0 &&
                               world.bodies()[static_cast<std::size_t>(c.bodyB)]->getInvMass() > 0;
      double& deepest = bothDynamic ? r.overlap : r.penetration;
      if (-double(c.distance) <= deepest) continue;
      deepest = -double(c.distance);
      const btVector3 relative = before[static_cast<std::size_t>(c.bodyA)] - before[static_cast<std::size_t>(c.bodyB)];
      (bothDynamic ? r.overlapStepTravel : r.penetrationStepTravel) = -double(relative.dot(c.normalOnB)) / o.hz;
    }
  }
  r.energyEnd = mechanicalEnergy(world);
  return r;
}

}  // namespace

StudyOutput runPileOverlap(const PileOverlapOptions& o) {
  if (o.count < 1 || !(o.hz > 0) || !(o.seconds > 0) || !(o.windowStart >= 0 && o.windowStart <= o.seconds))
    throw std::invalid_argument("pile-overlap: need --count >= 1, --hz > 0, 0 <= --window-start <= --seconds");
  std::vector<Cell> cells;
  for (const auto& solver : o.solvers)
    for (double cor : o.cors) {
      if (!(cor >= 0 && cor <= 1)) throw std::invalid_argument("pile-overlap: COR must be in [0, 1]");
      cells.push_back(Cell{solver, cor});
    }
  SweepOptions sweep = o.sweep;
  sweep.label = "pile-overlap";
  const auto results = runSweep<Result>(cells.size(), sweep, [&](std::size_t i) { return runCell(cells[i], o); });
  StudyOutput out;
  out.table.header = {"cell",     "solver",       "cor",           "count",            "hz",
                      "seconds",  "window_start", "deepest_overlap_m", "overlap_step_travel_m", "deepest_penetration_m", "penetration_step_travel_m", "energy_start",
                      "energy_end", "energy_min_ratio", "energy_max_ratio"};
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const Result& r = results[i];
    const auto n = [](double value) { return formatNumber(value); };
    out.table.rows.push_back({std::to_string(i), cells[i].solver, n(cells[i].cor), std::to_string(o.count), n(o.hz),
                              n(o.seconds), n(o.windowStart), n(r.overlap), n(r.overlapStepTravel), n(r.penetration),
                              n(r.penetrationStepTravel), n(r.energyStart),
                              n(r.energyEnd), n(r.minRatio), n(r.maxRatio)});
  }
  return out;
}

void addPileOverlapCommand(CLI::App& app, PileOverlapCommand& command) {
  PileOverlapOptions& o = command.options;
  CLI::App* cmd = app.add_subcommand("pile-overlap", "deepest overlap and penetration in a sphere pile, stock vs ours (issue 18)");
  cmd->add_option("-o,--output", command.output, "CSV file to write ('-' = stdout)")->capture_default_str();
  cmd->add_option("-j,--jobs", o.sweep.jobs, "worker threads")->capture_default_str()->check(CLI::Range(1, 1024));
  cmd->add_option("--solvers", o.solvers, "solvers to run")
      ->delimiter(',')
      ->check(CLI::IsMember(landingSolverNames()))
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", command.quiet, "no progress on stderr");
  cmd->add_option("--cor", o.cors, "combined coefficients of restitution")->delimiter(',')->capture_default_str();
  cmd->add_option("--count", o.count, "spheres")->capture_default_str();
  cmd->add_option("--hz", o.hz, "step rate")->capture_default_str();
  cmd->add_option("--seconds", o.seconds, "simulated time (s)")->capture_default_str();
  cmd->add_option("--window-start", o.windowStart, "overlaps measured from this time on (s)")->capture_default_str();
  command.cmd = cmd;
}

std::optional<int> runPileOverlapCommand(PileOverlapCommand& command) {
  if (!command.cmd || !*command.cmd) return std::nullopt;
  command.options.sweep.progress = !command.quiet;
  writeCsv(runPileOverlap(command.options).table, command.output);
  return 0;
}

}  // namespace propimpact::compare
