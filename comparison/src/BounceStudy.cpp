#include <fmt/format.h>

#include <cmath>

#include <propimpact/scenes/Scenes.h>

#include "StudyCommon.h"

namespace propimpact::compare {
namespace {

struct BounceCell {
  std::string solver;
  double cor = 0;
};

struct Apex {
  int bounce = 0;
  double time = 0, height = 0;
};

const std::vector<std::string> kHeader = {"cell", "solver", "hz",       "cor",      "height",
                                          "bounce", "time", "apex", "expected", "apex_ratio"};

std::vector<Apex> runCell(const BounceCell& cell, const BounceOptions& options) {
  scenes::World world(cell.solver);
  scenes::BouncingBall scene;
  scene.height = options.height;
  scene.cor = cell.cor;
  const scenes::SceneBodies built = scenes::build(world, scene);
  btRigidBody* ball = built.bodies.front();
  const double dt = 1.0 / options.hz;
  const auto bottom = [&] { return double(ball->getCenterOfMassPosition().y()) - scene.radius; };
  std::vector<Apex> apexes{Apex{0, 0, bottom()}};
  double previousVy = 0, previousHeight = bottom();
  bool rising = false;
  const auto steps = static_cast<long>(std::ceil(options.maxTime * options.hz));
  for (long k = 1; k <= steps && static_cast<int>(apexes.size()) <= options.bounces; ++k) {
    world.step(dt);
    const double vy = double(ball->getLinearVelocity().y()), height = bottom();
    if (!rising && vy > 0 && previousVy <= 0) rising = true;  // left the floor
    if (rising && vy <= 0 && previousVy > 0) {                  // turning point
      rising = false;
      apexes.push_back(Apex{static_cast<int>(apexes.size()), double(k) * dt, std::max(height, previousHeight)});
    }
    previousVy = vy;
    previousHeight = height;
  }
  return apexes;
}

}  // namespace

StudyOutput runBounce(const BounceOptions& options) {
  const auto solvers = studySolvers(options);
  requireSomethingToCheck(options, solvers);
  if (!(options.hz > 0) || !(options.height > 0) || options.bounces < 1 || !(options.maxTime > 0))
    throw std::invalid_argument("bounce: need --hz > 0, --height > 0, --bounces >= 1, --max-time > 0");
  std::vector<BounceCell> cells;
  for (const auto& solver : solvers)
    for (double cor : options.cors) {
      if (!(cor >= 0 && cor <= 1)) throw std::invalid_argument("bounce: COR must be in [0, 1]");
      cells.push_back(BounceCell{solver, cor});
    }
  SweepOptions sweep = options.sweep;
  sweep.label = "bounce";
  const auto selected = shardCells(cells.size(), sweep);
  const auto results =
      runSweep<std::vector<Apex>>(cells.size(), sweep, [&](std::size_t i) { return runCell(cells[i], options); });
  StudyOutput out;
  out.table.header = kHeader;
  for (std::size_t k = 0; k < selected.size(); ++k) {
    const BounceCell& c = cells[selected[k]];
    const bool checked = isChecked(options, c.solver);
    if (checked) ++out.checkedRows;
    int lastChecked = 0;
    for (const Apex& apex : results[k]) {
      const double expected = options.height * std::pow(c.cor, 2 * apex.bounce);
      const double ratio = apex.height / expected;
      out.table.rows.push_back({std::to_string(selected[k]), c.solver, formatNumber(options.hz), formatNumber(c.cor),
                                formatNumber(options.height), std::to_string(apex.bounce), formatNumber(apex.time),
                                formatNumber(apex.height), formatNumber(expected), formatNumber(ratio)});
      const bool inScope = apex.bounce >= 1 && apex.bounce <= options.checkBounces &&
                           expected >= options.minCheckedFraction * options.height;
      if (!checked || !inScope) continue;
      lastChecked = apex.bounce;
      if (!(std::abs(ratio - 1) <= options.apexTolerance))
        out.failures.push_back(fmt::format("bounce cell {} (solver={} cor={}) bounce {}: apex {:.6g} m vs {:.6g} m "
                                           "(ratio {:.6g}, tolerance {:.3g})",
                                           selected[k], c.solver, c.cor, apex.bounce, apex.height, expected, ratio,
                                           options.apexTolerance));
    }
    // A bounce that should have happened but did not is a failure too.
    if (checked && c.cor > 0) {
      int due = 0;
      for (int b = 1; b <= options.checkBounces; ++b)
        if (options.height * std::pow(c.cor, 2 * b) >= options.minCheckedFraction * options.height) due = b;
      if (lastChecked < due)
        out.failures.push_back(fmt::format("bounce cell {} (solver={} cor={}): only {} of {} expected bounces seen",
                                           selected[k], c.solver, c.cor, lastChecked, due));
    }
  }
  return out;
}

}  // namespace propimpact::compare
