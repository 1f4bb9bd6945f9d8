// `propimpact-compare design`: seed 000, Sec. VII-B (Fig. 8, Table I) and
// seed 001, Sec. IV–V. The tailed biped (TailedBiped.h) lands on its right
// foot and tail tip together. Thm 2: when the two contact covectors are
// orthogonal in the kinetic metric, ⟨û, v̂⟩_g = 0, every order of reflections
// gives the same outcome. Starting from a hand-chosen design, a min-norm
// Gauss–Newton root finder for the underdetermined system (the seed's "classic
// root finding algorithm for underconstrained systems") moves design and
// posture until the tail touches the floor and ⟨û, v̂⟩_g = 0; both designs are
// then resolved by the core in every order.
#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <propimpact/core/Resolve.h>

#include "Ideal.h"
#include "RobotStudies.h"
#include "TailedBiped.h"

namespace propimpact::compare {
namespace {

constexpr double kLengthUnit = 0.1;     ///< the root finder's length unit (m): lengths and angles of one scale.
constexpr double kMaxStep = 0.05;       ///< largest step of one Gauss–Newton iteration (scaled units).
constexpr double kDifferenceStep = 1e-7;
constexpr double kDropSpeed = 1;        ///< pre-impact: the robot falls at 1 m/s, nothing turns.
constexpr int kFreeVariables = 8;       ///< r1, r2, lu, ll, θ, ϕR, γR, ϕT.

/// Lowers or raises the robot so that its right foot touches the floor.
TailedBipedDesign placed(TailedBipedDesign d) {
  d.y -= bipedState(d).footTip.y();
  return d;
}

using Free = Eigen::Matrix<double, kFreeVariables, 1>;

Free freeVariables(const TailedBipedDesign& d) {
  Free z;
  z << d.r1 / kLengthUnit, d.r2 / kLengthUnit, d.lu / kLengthUnit, d.ll / kLengthUnit, d.theta, d.phiR, d.gammaR,
      d.phiT;
  return z;
}

TailedBipedDesign withFree(TailedBipedDesign d, const Free& z) {
  d.r1 = z[0] * kLengthUnit;
  d.r2 = z[1] * kLengthUnit;
  d.lu = z[2] * kLengthUnit;
  d.ll = z[3] * kLengthUnit;
  d.theta = z[4];
  d.phiR = z[5];
  d.gammaR = z[6];
  d.phiT = z[7];
  return placed(d);
}

/// Residuals: the tail tip's height (scaled) and ⟨û, v̂⟩_g.
Eigen::Vector2d residual(const TailedBipedDesign& base, const Free& z) {
  const TailedBipedDesign d = withFree(base, z);
  const TailedBipedState s = bipedState(d);
  return {s.tailTip.y() / kLengthUnit, contactGram(s)};
}

/// Min-norm Gauss–Newton on residual(z) = 0 with only the rows in \p rows
/// (bit 0: tail height, bit 1: Gram) and only the variables in \p mask.
/// Returns the iterations used; the design is left at the last iterate.
int solve(TailedBipedDesign& d, unsigned rows, const Free& mask, double gramTarget, int maxIterations) {
  Free z = freeVariables(d);
  const TailedBipedDesign base = d;
  int iteration = 0;
  for (; iteration < maxIterations; ++iteration) {
    const Eigen::Vector2d r = residual(base, z);
    const bool tailDone = std::abs(r[0]) * kLengthUnit < 1e-13, gramDone = std::abs(r[1]) < gramTarget;
    if (tailDone && (gramDone || !(rows & 2U))) break;
    Eigen::Matrix<double, 2, kFreeVariables> jac = Eigen::Matrix<double, 2, kFreeVariables>::Zero();
    for (int k = 0; k < kFreeVariables; ++k) {
      if (mask[k] == 0) continue;
      Free plus = z, minus = z;
      plus[k] += kDifferenceStep;
      minus[k] -= kDifferenceStep;
      jac.col(k) = (residual(base, plus) - residual(base, minus)) / (2 * kDifferenceStep);
    }
    Eigen::MatrixXd active = jac.topRows(rows & 2U ? 2 : 1);
    const Eigen::VectorXd rhs = -r.head(active.rows());
    Free step = active.completeOrthogonalDecomposition().solve(rhs);  // the smallest step that zeroes the linearisation
    if (step.norm() > kMaxStep) step *= kMaxStep / step.norm();
    z += step;
  }
  d = withFree(base, z);
  return iteration;
}

/// The design the study starts from: chosen by hand, then pitched (θ only)
/// until the tail tip touches the floor.
TailedBipedDesign initialDesign(int maxIterations) {
  TailedBipedDesign d = placed(TailedBipedDesign{});
  Free pitchOnly = Free::Zero();
  pitchOnly[4] = 1;
  solve(d, 1U, pitchOnly, 0, maxIterations);
  return d;
}

struct Evaluation {
  TailedBipedDesign design;
  TailedBipedState state;
  double gram = 0, gramOwn = 0, xi = 0, spread = 0;
  std::string certificate;
  int iterations = 0;
};

Evaluation evaluate(const TailedBipedDesign& d, int iterations) {
  Evaluation e{d, bipedState(d), 0, 0, 0, 0, "", iterations};
  VectorX v = VectorX::Zero(e.state.M.rows());
  v[1] = -kDropSpeed;
  ResolveOptions analysis;
  analysis.computeXi = true;
  analysis.xiOrders = XiOrderSet::AllOrders;
  const ImpactResult r = resolveDense(e.state.M, v, e.state.J, 1.0, analysis);
  e.gram = r.gram(0, 1);
  e.gramOwn = contactGram(e.state);
  e.xi = r.xi;
  e.certificate = toString(r.certificate);
  std::vector<VectorX> outcomes;
  for (OrderingPolicy policy : {OrderingPolicy::MostApproaching, OrderingPolicy::LeastApproaching,
                                OrderingPolicy::IndexOrder, OrderingPolicy::ReverseIndexOrder}) {
    ResolveOptions one;
    one.ordering = policy;
    outcomes.push_back(resolveDense(e.state.M, v, e.state.J, 1.0, one).velocity);
  }
  const double norm = kineticNorm(e.state.M, v);
  for (const VectorX& a : outcomes)
    for (const VectorX& b : outcomes) e.spread = std::max(e.spread, kineticNorm(e.state.M, a - b) / norm);
  return e;
}

Evaluation runStage(bool optimised, const DesignOptions& o) {
  TailedBipedDesign d = initialDesign(o.maxIterations);
  if (!optimised) return evaluate(d, 0);
  const int iterations = solve(d, 3U, Free::Ones(), o.targetGram, o.maxIterations);
  return evaluate(d, iterations);
}

std::vector<std::string> rowOf(std::size_t cell, bool optimised, const Evaluation& e) {
  const TailedBipedDesign& d = e.design;
  const double cm = 100;
  std::vector<std::string> row = {std::to_string(cell), optimised ? "optimised" : "initial"};
  for (double value : {e.gram, e.gramOwn, e.xi, e.spread}) row.push_back(formatNumber(value));
  row.push_back(e.certificate);
  for (double value : {d.r1 * cm, d.r2 * cm, d.lu * cm, d.ll * cm, tailLength(d.r1, d.r2) * cm, d.x * cm, d.y * cm,
                       d.theta, d.phiL, d.gammaL, d.phiR, d.gammaR, d.phiT, e.state.footTip.y() * cm,
                       e.state.tailTip.y() * cm, e.state.clearance * cm, e.state.mass})
    row.push_back(formatNumber(value));
  row.push_back(std::to_string(e.iterations));
  return row;
}

void check(const Evaluation& initial, const Evaluation& optimised, const DesignOptions& o, StudyOutput& out) {
  const auto claim = [&](bool holds, const std::string& text) {
    ++out.checkedRows;
    if (!holds) out.failures.push_back("design: " + text);
  };
  claim(initial.xi >= o.minInitialXi, fmt::format("initial xi {:.3g} >= {:.3g}", initial.xi, o.minInitialXi));
  claim(optimised.xi * o.minDrop <= initial.xi,
        fmt::format("xi falls by {:.3g} (from {:.3g} to {:.3g}), need {:.3g}", initial.xi / optimised.xi, initial.xi,
                    optimised.xi, o.minDrop));
  claim(optimised.spread * o.minDrop <= initial.spread,
        fmt::format("spread falls by {:.3g} (from {:.3g} to {:.3g}), need {:.3g}", initial.spread / optimised.spread,
                    initial.spread, optimised.spread, o.minDrop));
  for (const Evaluation* e : {&initial, &optimised}) {
    const double contactError = std::max(std::abs(e->state.footTip.y()), std::abs(e->state.tailTip.y()));
    claim(contactError < 1e-9, fmt::format("both contacts on the floor (worst height {:.3g} m)", contactError));
    claim(e->state.clearance > 0, fmt::format("nothing else below the floor (clearance {:.3g} m)", e->state.clearance));
    claim(std::abs(e->gram - e->gramOwn) <= 1e-12, "core Gram entry equals the model's");
  }
}

}  // namespace

StudyOutput runDesign(const DesignOptions& options) {
  if (!(options.targetGram > 0) || options.maxIterations < 1 || !(options.minDrop > 0))
    throw std::invalid_argument("design: need --target-gram > 0, --max-iterations >= 1");
  SweepOptions sweep = options.sweep;
  sweep.label = "design";
  const auto selected = shardCells(2, sweep);
  const auto results = runSweep<Evaluation>(2, sweep, [&](std::size_t i) { return runStage(i == 1, options); });
  StudyOutput out;
  out.table.header = {"cell",   "stage",   "gram_uv", "gram_model", "xi",     "spread",     "certificate",
                      "r1_cm",  "r2_cm",   "lu_cm",   "ll_cm",      "tail_cm", "x_cm",      "y_cm",
                      "theta",  "phiL",    "gammaL",  "phiR",       "gammaR", "phiT",       "foot_y_cm",
                      "tail_y_cm", "clearance_cm", "mass_kg", "iterations"};
  for (std::size_t k = 0; k < selected.size(); ++k)
    out.table.rows.push_back(rowOf(selected[k], selected[k] == 1, results[k]));
  if (options.check) {
    if (selected.size() != 2)
      out.failures.push_back("design --check needs both stages (--shard 1/1)");
    else
      check(results[0], results[1], options, out);
  }
  return out;
}

}  // namespace propimpact::compare
