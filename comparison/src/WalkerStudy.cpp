// `propimpact-compare walker`: seed 004, Sec. 4 (Figs. 2–5). The heel strike
// of the compass walker (CompassWalker.h) as an inert constraint on the swing
// foot, resolved by the core's resolveInert: the pre-impact split T_c⁻ / T_a⁻
// (eq. 7), the foot impulse λ̄ = [λ̄t λ̄n] (eq. 16), and whether the old stance
// foot lifts off. --check tests the lift-off threshold and every qualitative
// claim of Sec. 4 on the sweep.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include <propimpact/core/InertConstraints.h>

#include "CompassWalker.h"
#include "RobotStudies.h"

namespace propimpact::compare {
namespace {

constexpr double kDegree = 3.14159265358979323846 / 180;

struct Cell {
  std::size_t theta, rho, mu, q5;  ///< indices into the option lists.
};

struct Result {
  double tc = 0, ta = 0, xi = 0, lambdaT = 0, lambdaN = 0, stanceVy = 0;
};

Result strike(double thetaDeg, double q5Deg, double rho, double mu) {
  WalkerParameters parameters;
  parameters.rho = rho;
  parameters.mu = mu;
  const WalkerStrike s = walkerStrike(thetaDeg * kDegree, q5Deg * kDegree, parameters);
  const InertImpact impact = resolveInert(s.M, s.qdot, s.A);
  return Result{impact.constrainedEnergy, impact.admissibleEnergy, impact.xi,
                impact.impulse[0],        impact.impulse[1],        impact.velocity[kStanceFootVy]};
}

/// θ (degrees) where the old stance foot stops lifting off (ẏ⁺ = 0), by
/// bisection over [lo, hi]; NaN when ẏ⁺ does not change sign there.
double liftoffThreshold(double rho, double mu, double q5, double lo, double hi) {
  const auto vy = [&](double theta) { return strike(theta, q5, rho, mu).stanceVy; };
  if (!(vy(lo) > 0 && vy(hi) <= 0)) return std::nan("");
  for (int k = 0; k < 60; ++k) {
    const double mid = 0.5 * (lo + hi);
    (vy(mid) > 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

std::vector<double> thetas(const WalkerOptions& o) {
  if (!(o.thetaStep > 0) || !(o.thetaMax >= o.thetaMin) || !(o.thetaMin > 0) || !(o.thetaMax < 180))
    throw std::invalid_argument("walker: need 0 < --theta-min <= --theta-max < 180 and --theta-step > 0");
  std::vector<double> out;
  const int steps = static_cast<int>(std::floor((o.thetaMax - o.thetaMin) / o.thetaStep + 1e-9));
  for (int k = 0; k <= steps; ++k) out.push_back(o.thetaMin + k * o.thetaStep);
  return out;
}

std::ptrdiff_t indexOf(const std::vector<double>& values, double value) {
  const auto it = std::find(values.begin(), values.end(), value);
  return it == values.end() ? -1 : it - values.begin();
}

/// The claims of Sec. 4 checked on the full sweep (every cell present).
class ClaimChecker {
 public:
  ClaimChecker(const WalkerOptions& o, const std::vector<double>& th, const std::vector<Cell>& cells,
               const std::vector<Result>& results, StudyOutput& out)
      : m_o(o), m_theta(th), m_out(out) {
    for (std::size_t i = 0; i < cells.size(); ++i)
      m_at[{cells[i].theta, cells[i].rho, cells[i].mu, cells[i].q5}] = results[i];
  }

  void run() {
    liftoff();
    monotone("T_c falls with rho (Sec. 4.1)", [](const Result& r) { return r.tc; }, Axis::Rho, -1, false);
    monotone("T_c rises with theta (Sec. 4.1)", [](const Result& r) { return r.tc; }, Axis::Theta, +1, false);
    monotone("|lambda_n| grows with theta (Fig. 3)", [](const Result& r) { return std::abs(r.lambdaN); }, Axis::Theta,
             +1, true);
    monotone("|lambda_t| grows with theta (Fig. 3)", [](const Result& r) { return std::abs(r.lambdaT); }, Axis::Theta,
             +1, true);
    monotone("|lambda_n| falls with rho (Fig. 3)", [](const Result& r) { return std::abs(r.lambdaN); }, Axis::Rho, -1,
             true);
    monotone("|lambda_t| falls with rho (Fig. 3)", [](const Result& r) { return std::abs(r.lambdaT); }, Axis::Rho, -1,
             true);
    torso();
  }

 private:
  enum class Axis { Theta, Rho };
  using Key = std::tuple<std::size_t, std::size_t, std::size_t, std::size_t>;

  void claim(bool holds, const std::string& text) {
    ++m_out.checkedRows;
    if (!holds) m_out.failures.push_back("walker claim: " + text);
  }

  void liftoff() {
    const std::ptrdiff_t mu1 = indexOf(m_o.mus, 1), q50 = indexOf(m_o.q5s, 0);
    if (mu1 < 0 || q50 < 0 || indexOf(m_o.rhos, 0) < 0) return;
    const double threshold = liftoffThreshold(0, 1, 0, m_o.thetaMin, m_o.thetaMax);
    claim(std::abs(threshold - m_o.paperLiftoff) <= m_o.liftoffTolerance,
          fmt::format("point feet (rho 0, mu 1, q5 0) stop lifting off at theta = {:.2f} deg, paper ~{} deg", threshold,
                      m_o.paperLiftoff));
    for (std::size_t r = 0; r < m_o.rhos.size(); ++r) {
      if (m_o.rhos[r] == 0) continue;
      bool all = true;
      for (std::size_t t = 0; t < m_theta.size(); ++t)
        all = all && m_at.at({t, r, std::size_t(mu1), std::size_t(q50)}).stanceVy > 0;
      claim(all, fmt::format("round feet (rho {}) lift off over the whole theta range (Fig. 2)", m_o.rhos[r]));
    }
  }

  /// Along \p axis, value must move in \p sign for every other index; with
  /// \p figureOnly only at the figure's μ = 1, q5 = 0 and where it walks.
  template <class Value>
  void monotone(const std::string& text, Value value, Axis axis, int sign, bool figureOnly) {
    const std::ptrdiff_t mu1 = indexOf(m_o.mus, 1), q50 = indexOf(m_o.q5s, 0);
    if (figureOnly && (mu1 < 0 || q50 < 0)) return;
    bool holds = true;
    std::string where;
    for (const auto& [key, result] : m_at) {
      const auto [t, r, m, q] = key;
      if (figureOnly && (m != std::size_t(mu1) || q != std::size_t(q50))) continue;
      const bool last = axis == Axis::Theta ? t + 1 == m_theta.size() : r + 1 == m_o.rhos.size();
      if (last) continue;
      const Key next = axis == Axis::Theta ? Key{t + 1, r, m, q} : Key{t, r + 1, m, q};
      // The figures show a walker only where it walks: ρ = 0 stops at the
      // lift-off threshold (Fig. 2), and so does the claim.
      if (figureOnly && !(result.stanceVy > 0 && m_at.at(next).stanceVy > 0)) continue;
      if (sign * (value(m_at.at(next)) - value(result)) > 0) continue;
      if (holds) where = fmt::format(" (fails at theta {} rho {} mu {} q5 {})", m_theta[t], m_o.rhos[r], m_o.mus[m],
                                     m_o.q5s[q]);
      holds = false;
    }
    claim(holds, text + where);
  }

  /// Sec. 4.2 at θ = 40°, ρ = 0.25: leaning forward lowers T_c and raises T_a
  /// for every μ; μ's effect changes sign with q5.
  void torso() {
    const std::ptrdiff_t t = indexOf(m_theta, 40), r = indexOf(m_o.rhos, 0.25);
    const std::ptrdiff_t lo = indexOf(m_o.q5s, -20), hi = indexOf(m_o.q5s, 20);
    if (t < 0 || r < 0 || lo < 0 || hi < 0 || m_o.mus.size() < 2) return;
    const auto at = [&](std::size_t m, std::ptrdiff_t q) {
      return m_at.at({std::size_t(t), std::size_t(r), m, std::size_t(q)});
    };
    bool forward = true, lowMuBest = true, highMuBest = true;
    for (std::size_t m = 0; m < m_o.mus.size(); ++m) {
      forward = forward && at(m, hi).tc < at(m, lo).tc && at(m, hi).ta > at(m, lo).ta;
      if (m + 1 < m_o.mus.size()) {
        lowMuBest = lowMuBest && (m_o.mus[m + 1] > m_o.mus[m]) == (at(m + 1, lo).tc > at(m, lo).tc);
        highMuBest = highMuBest && (m_o.mus[m + 1] > m_o.mus[m]) == (at(m + 1, hi).tc < at(m, hi).tc);
      }
    }
    claim(forward, "theta 40, rho 0.25: torso leaning forward (q5 = 20) has lower T_c and higher T_a than q5 = -20");
    claim(lowMuBest, "theta 40, rho 0.25, q5 = -20: T_c rises with mu (low mu is better)");
    claim(highMuBest, "theta 40, rho 0.25, q5 = +20: T_c falls with mu (high mu is better)");
  }

  const WalkerOptions& m_o;
  const std::vector<double>& m_theta;
  StudyOutput& m_out;
  std::map<Key, Result> m_at;
};

}  // namespace

StudyOutput runWalker(const WalkerOptions& options) {
  const std::vector<double> th = thetas(options);
  if (options.rhos.empty() || options.mus.empty() || options.q5s.empty())
    throw std::invalid_argument("walker: --rho, --mu and --q5 need at least one value each");
  std::vector<Cell> cells;
  for (std::size_t r = 0; r < options.rhos.size(); ++r)
    for (std::size_t m = 0; m < options.mus.size(); ++m)
      for (std::size_t q = 0; q < options.q5s.size(); ++q)
        for (std::size_t t = 0; t < th.size(); ++t) cells.push_back(Cell{t, r, m, q});
  SweepOptions sweep = options.sweep;
  sweep.label = "walker";
  const auto selected = shardCells(cells.size(), sweep);
  const auto results = runSweep<Result>(cells.size(), sweep, [&](std::size_t i) {
    const Cell& c = cells[i];
    return strike(th[c.theta], options.q5s[c.q5], options.rhos[c.rho], options.mus[c.mu]);
  });
  StudyOutput out;
  out.table.header = {"cell",     "theta_deg", "rho",      "mu",      "q5_deg", "Tc_J",     "Ta_J",
                      "xi",       "lambda_t",  "lambda_n", "liftoff", "stance_vy"};
  for (std::size_t k = 0; k < selected.size(); ++k) {
    const Cell& c = cells[selected[k]];
    const Result& r = results[k];
    out.table.rows.push_back({std::to_string(selected[k]), formatNumber(th[c.theta]), formatNumber(options.rhos[c.rho]),
                              formatNumber(options.mus[c.mu]), formatNumber(options.q5s[c.q5]), formatNumber(r.tc),
                              formatNumber(r.ta), formatNumber(r.xi), formatNumber(r.lambdaT), formatNumber(r.lambdaN),
                              r.stanceVy > 0 ? "1" : "0", formatNumber(r.stanceVy)});
  }
  if (options.check) {
    if (selected.size() != cells.size()) {
      out.failures.push_back("walker --check needs the whole sweep (--shard 1/1)");
    } else {
      std::vector<Cell> all(cells.begin(), cells.end());
      ClaimChecker(options, th, all, results, out).run();
    }
  }
  return out;
}

}  // namespace propimpact::compare
