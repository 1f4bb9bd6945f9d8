#include <fmt/format.h>

#include <cmath>

#include <propimpact/scenes/Scenes.h>

#include "Ideal.h"
#include "StudyCommon.h"

namespace propimpact::compare {
namespace {

struct CradleCell {
  std::string solver;
  double hz = 0, cor = 0, v0 = 0, phase = 0;
};

struct CradleResult {
  double measuredPhase = std::nan("");
  int impactStep = 0;
  double energyRatio = 0, energyIdeal = 0;
  double v[3] = {0, 0, 0};
  double errPropagative = 0, errLcp = 0;
};

const std::vector<std::string> kHeader = {"cell",        "solver",       "hz",         "cor",  "v0", "phase",
                                          "measured_phase", "impact_step", "energy_ratio", "energy_ideal",
                                          "va",          "vb",           "vc",         "err_vs_propagative",
                                          "err_vs_lcp"};

CradleResult runCell(const CradleCell& cell, int settleSteps) {
  scenes::World world(cell.solver);
  scenes::CradleLine scene;
  scene.count = 3;
  scene.v0 = cell.v0;
  scene.cor = cell.cor;
  scene.dt = 1.0 / cell.hz;
  scene.phase = cell.phase;
  const scenes::SceneBodies built = scenes::build(world, scene);
  const double energy0 = world.kineticEnergy();
  CradleResult result;
  const int steps = built.firstContactStep + settleSteps;
  const btRigidBody& a = *built.bodies[0];
  const btRigidBody& b = *built.bodies[1];
  for (int k = 1; k <= steps; ++k) {
    // Positions at the start of the step: until the impact they are free flight.
    const double gap = double(b.getCenterOfMassPosition().x() - a.getCenterOfMassPosition().x()) - 2 * scene.radius;
    world.step(scene.dt);
    if (result.impactStep != 0) continue;
    // The impact step is the one that changes the velocities, whatever the
    // solver detects it from (stock: an overlap; ours: a speculative point this
    // step would close). Any impact changes A's velocity by order v0 (at least
    // v0/2 at COR 0), so 1e-3·v0 separates it from float rounding.
    if (std::abs(double(a.getLinearVelocity().x()) - cell.v0) <= 1e-3 * cell.v0) continue;
    result.impactStep = k;
    // The phase is where the touch falls in the step grid: the depth, as a
    // fraction of v0·dt, the free flight reaches at the start of the scene's
    // first-contact step. It is read from the gap at the impact step's start
    // (an overlap for stock, an opening for a solver that resolves before
    // overlap), carried over the steps between, so it means the same for both.
    const int stepsToFirstContact = built.firstContactStep - k;
    result.measuredPhase = (stepsToFirstContact * cell.v0 * scene.dt - gap) / (cell.v0 * scene.dt);
  }
  for (int i = 0; i < 3; ++i) result.v[i] = double(built.bodies[static_cast<std::size_t>(i)]->getLinearVelocity().x());
  result.energyRatio = world.kineticEnergy() / energy0;

  const MatrixX M = MatrixX::Identity(3, 3) * scene.mass;
  VectorX v(3);
  v << cell.v0, 0, 0;
  MatrixX J(2, 3);
  J << -1, 1, 0, 0, -1, 1;
  const VectorX ideal = propagativeIdeal(M, v, J, cell.cor);
  const VectorX lcp = simultaneousLcpIdeal(M, v, J, cell.cor);
  result.energyIdeal = ideal.squaredNorm() / v.squaredNorm();
  for (int i = 0; i < 3; ++i) {
    result.errPropagative = std::max(result.errPropagative, std::abs(result.v[i] - ideal(i)) / cell.v0);
    result.errLcp = std::max(result.errLcp, std::abs(result.v[i] - lcp(i)) / cell.v0);
  }
  return result;
}

}  // namespace

std::vector<double> cradleSpeeds(const CradleOptions& options) {
  std::vector<double> speeds;
  if (options.v0Count < 1 || options.v0Min <= 0 || options.v0Max < options.v0Min)
    throw std::invalid_argument("cradle: need --v0-count >= 1 and 0 < --v0-min <= --v0-max");
  for (int i = 0; i < options.v0Count; ++i) {
    const double t = options.v0Count == 1 ? 0.0 : double(i) / (options.v0Count - 1);
    speeds.push_back(options.v0Min * std::pow(options.v0Max / options.v0Min, t));
  }
  return speeds;
}

StudyOutput runCradle(const CradleOptions& options) {
  const auto solvers = studySolvers(options);
  requireSomethingToCheck(options, solvers);
  const auto speeds = cradleSpeeds(options);
  for (double phase : options.phases)
    if (!(phase > 0 && phase <= 1)) throw std::invalid_argument("cradle: phases must be in (0, 1]");
  for (double hz : options.hz)
    if (!(hz > 0)) throw std::invalid_argument("cradle: step rates must be positive");
  for (double cor : options.cors)
    if (!(cor >= 0 && cor <= 1)) throw std::invalid_argument("cradle: COR must be in [0, 1]");

  std::vector<CradleCell> cells;
  for (const auto& solver : solvers)
    for (double hz : options.hz)
      for (double cor : options.cors)
        for (double v0 : speeds)
          for (double phase : options.phases) cells.push_back(CradleCell{solver, hz, cor, v0, phase});

  SweepOptions sweep = options.sweep;
  sweep.label = "cradle";
  const auto selected = shardCells(cells.size(), sweep);
  const auto results = runSweep<CradleResult>(
      cells.size(), sweep, [&](std::size_t i) { return runCell(cells[i], options.settleSteps); });

  StudyOutput out;
  out.table.header = kHeader;
  for (std::size_t k = 0; k < selected.size(); ++k) {
    const CradleCell& c = cells[selected[k]];
    const CradleResult& r = results[k];
    out.table.rows.push_back({std::to_string(selected[k]), c.solver, formatNumber(c.hz), formatNumber(c.cor),
                              formatNumber(c.v0), formatNumber(c.phase), formatNumber(r.measuredPhase),
                              std::to_string(r.impactStep), formatNumber(r.energyRatio), formatNumber(r.energyIdeal),
                              formatNumber(r.v[0]), formatNumber(r.v[1]), formatNumber(r.v[2]),
                              formatNumber(r.errPropagative), formatNumber(r.errLcp)});
    if (!isChecked(options, c.solver)) continue;
    ++out.checkedRows;
    const double energyError = std::abs(r.energyRatio - r.energyIdeal);
    const std::string where =
        fmt::format("cradle cell {} (solver={} hz={} cor={} v0={} phase={})", selected[k], c.solver, c.hz, c.cor,
                    formatNumber(c.v0), c.phase);
    if (!(energyError <= options.energyTolerance))
      out.failures.push_back(fmt::format("{}: energy_ratio {} vs ideal {} (error {:.3g} > {:.3g})", where,
                                         r.energyRatio, r.energyIdeal, energyError, options.energyTolerance));
    if (!(r.errPropagative <= options.velocityTolerance))
      out.failures.push_back(fmt::format("{}: velocities ({:.6g}, {:.6g}, {:.6g}), err_vs_propagative {:.3g} > {:.3g}",
                                         where, r.v[0], r.v[1], r.v[2], r.errPropagative, options.velocityTolerance));
  }
  return out;
}

}  // namespace propimpact::compare
