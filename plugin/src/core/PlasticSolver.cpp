#include "PlasticSolver.h"

#include <algorithm>
#include <cmath>

#include "Capacity.h"

namespace propimpact::detail {
namespace {

// Bisection for the least uniform relaxation of an infeasible problem: stop
// when the bracket is within this fraction of its upper end (or the
// feasibility threshold), or after this many probes.
constexpr Scalar kRelaxationPrecision = 1e-9;
constexpr int kRelaxationProbes = 60;

Scalar dot(const Scalar* a, const Scalar* b, Index n) {
  Scalar value = 0;
  for (Index k = 0; k < n; ++k) value += a[k] * b[k];
  return value;
}

}  // namespace

Scalar ActiveSetLcp::rowDot(int row, const Scalar* x) const {
  const RowSupport& support = m_support[row];
  const Scalar* a = m_A + static_cast<Index>(row) * m_n;
  Scalar value = 0;
  for (int s = 0; s < 2; ++s) {
    const Index begin = support.begin[s];
    value += dot(a + begin, x + begin, support.length[s]);
  }
  return value;
}

void ActiveSetLcp::rowAxpy(int row, Scalar alpha, Scalar* x) const {
  const RowSupport& support = m_support[row];
  const Scalar* a = m_A + static_cast<Index>(row) * m_n;
  for (int s = 0; s < 2; ++s)
    for (Index k = support.begin[s]; k < support.begin[s] + support.length[s]; ++k) x[k] += alpha * a[k];
}

// Appends row a_row to the QR factor of A_Pᵀ; false when it depends on the
// active rows to round-off.
bool ActiveSetLcp::appendColumn(int row) {
  const Index n = m_n;
  const auto k = static_cast<Index>(m_active.size());
  const Scalar* a = m_A + static_cast<Index>(row) * n;
  Scalar* v = m_q.data() + k * n;
  std::copy(a, a + n, v);
  Scalar* column = m_r.data() + k * m_rStride;
  std::fill(column, column + k + 1, Scalar(0));
  for (int pass = 0; pass < 2; ++pass)
    for (Index c = 0; c < k; ++c) {
      const Scalar* q = m_q.data() + c * n;
      const Scalar projection = dot(q, v, n);
      column[c] += projection;
      for (Index x = 0; x < n; ++x) v[x] -= projection * q[x];
    }
  const Scalar norm = std::sqrt(dot(v, v, n));
  const Scalar original = std::sqrt(rowDot(row, a));
  // A row within 1e-8 of the active rows' span counts as dependent (and, if
  // violated, enters by exchange). Taken as independent, its multiplier grows
  // like 1/ρ² for a residual ρ: two rows opposing to 2.4e-11 in a capped wedge
  // got 6e18 each, and their cancellation left a violation of 7e6 (fuzz finding
  // nearly-opposing-rows-entered-with-impulses-of-1e18; the cut-off was 1e-12).
  if (!(norm > 1e-8 * original)) return false;
  for (Index x = 0; x < n; ++x) v[x] /= norm;
  column[k] = norm;
  m_active.push_back(row);
  m_inActive[static_cast<std::size_t>(row)] = 1;
  return true;
}

// Refactors after rows left the active set (their relative order is kept).
void ActiveSetLcp::rebuildFactor(Scalar* lambda) {
  m_previous.assign(m_active.begin(), m_active.end());
  for (const int row : m_previous) m_inActive[static_cast<std::size_t>(row)] = 0;
  m_active.clear();
  for (const int row : m_previous)
    if (!appendColumn(row)) lambda[row] = 0;  // cannot happen in exact arithmetic: a subset stays independent
}

// out = (RᵀR)⁻¹ rhs over the active rows.
void ActiveSetLcp::solveNormal(const Scalar* rhs, Scalar* out) {
  const auto k = static_cast<Index>(m_active.size());
  for (Index r = 0; r < k; ++r) {
    Scalar value = rhs[r];
    for (Index c = 0; c < r; ++c) value -= m_r[static_cast<std::size_t>(c + r * m_rStride)] * out[c];
    out[r] = value / m_r[static_cast<std::size_t>(r + r * m_rStride)];
  }
  for (Index r = k - 1; r >= 0; --r) {
    Scalar value = out[r];
    for (Index c = r + 1; c < k; ++c) value -= m_r[static_cast<std::size_t>(r + c * m_rStride)] * out[c];
    out[r] = value / m_r[static_cast<std::size_t>(r + r * m_rStride)];
  }
}

// z_P = argmin ½ zᵀ A_P A_Pᵀ z + s0_Pᵀ z, with one step of iterative refinement.
void ActiveSetLcp::solveActive() {
  const auto k = static_cast<Index>(m_active.size());
  const Index n = m_n;
  for (Index r = 0; r < k; ++r) m_rhs[static_cast<std::size_t>(r)] = -m_s0[m_active[static_cast<std::size_t>(r)]];
  solveNormal(m_rhs.data(), m_z.data());
  std::fill(m_x.begin(), m_x.begin() + n, Scalar(0));
  for (Index r = 0; r < k; ++r) rowAxpy(m_active[static_cast<std::size_t>(r)], m_z[static_cast<std::size_t>(r)], m_x.data());
  for (Index r = 0; r < k; ++r) {
    const int row = m_active[static_cast<std::size_t>(r)];
    m_rhs[static_cast<std::size_t>(r)] = -(rowDot(row, m_x.data()) + m_s0[row]);
  }
  std::vector<Scalar>& correction = m_work;
  solveNormal(m_rhs.data(), correction.data());
  for (Index r = 0; r < k; ++r) m_z[static_cast<std::size_t>(r)] += correction[static_cast<std::size_t>(r)];
}

// Row `row` is violated but lies in the span of the active rows, a_row = A_Pᵀβ
// (possible only when s0 is not in the range of A: a kinematic bias or a
// prescribed motion). Along λ_P − tβ, λ_row = t the impulse Aᵀλ stays the
// same while the objective falls at the rate s_row < 0, so Lawson–Hanson's
// exchange moves until the first active multiplier reaches zero and swaps that
// row for this one; the objective strictly falls, so no active set repeats.
// With no β_j > 0 the ray never ends: (−β, 1) ≥ 0 is a Farkas certificate
// that no velocity satisfies every row. Returns false then, or when round-off
// leaves the row dependent on the remaining ones too (the state is restored).
bool ActiveSetLcp::exchange(int row, Scalar* lambda) {
  const Index n = m_n;
  const auto k = static_cast<Index>(m_active.size());
  if (k == 0) return false;
  Scalar* beta = m_work.data();
  for (Index c = 0; c < k; ++c) beta[c] = rowDot(row, m_q.data() + c * n);
  for (Index r = k - 1; r >= 0; --r) {
    Scalar value = beta[r];
    for (Index c = r + 1; c < k; ++c) value -= m_r[static_cast<std::size_t>(r + c * m_rStride)] * beta[c];
    beta[r] = value / m_r[static_cast<std::size_t>(r + r * m_rStride)];
  }
  Index leaving = -1;
  Scalar step = 0;
  for (Index r = 0; r < k; ++r) {
    if (!(beta[r] > 0)) continue;
    const Scalar candidate = lambda[m_active[static_cast<std::size_t>(r)]] / beta[r];
    // On a tie the larger β leaves: the entering row is then the farthest from
    // dependent on the rows that stay.
    if (leaving < 0 || candidate < step || (candidate == step && beta[r] > beta[leaving])) {
      leaving = r;
      step = candidate;
    }
  }
  if (leaving < 0) {
    m_infeasible = true;
    return false;
  }
  m_saved.assign(m_active.begin(), m_active.end());
  m_savedLambda.resize(static_cast<std::size_t>(k));
  for (Index r = 0; r < k; ++r) {
    const int active = m_active[static_cast<std::size_t>(r)];
    m_savedLambda[static_cast<std::size_t>(r)] = lambda[active];
    lambda[active] = r == leaving ? Scalar(0) : std::max(Scalar(0), lambda[active] - step * beta[r]);
  }
  m_inActive[static_cast<std::size_t>(m_active[static_cast<std::size_t>(leaving)])] = 0;
  m_active.erase(m_active.begin() + leaving);
  rebuildFactor(lambda);
  if (appendColumn(row)) {
    lambda[row] = step;
    return true;
  }
  for (const int r : m_active) m_inActive[static_cast<std::size_t>(r)] = 0;
  m_active.clear();
  for (std::size_t r = 0; r < m_saved.size(); ++r) lambda[m_saved[r]] = m_savedLambda[r];
  for (const int r : m_saved) appendColumn(r);
  return false;
}

void ActiveSetLcp::reserve(Index m, Index n) {
  const Index stride = std::min(m, n) + 1;
  reserveCapacity(m_wholeRows, m);
  for (std::vector<int>* v : {&m_active, &m_previous, &m_saved}) reserveCapacity(*v, m);
  for (std::vector<Scalar>* v : {&m_savedLambda, &m_z, &m_rhs, &m_work, &m_relaxed, &m_best, &m_s}) reserveCapacity(*v, m);
  for (std::vector<char>* v : {&m_inActive, &m_blocked}) reserveCapacity(*v, m);
  reserveCapacity(m_q, n * stride);
  reserveCapacity(m_r, stride * stride);
  reserveCapacity(m_x, n);
}

int ActiveSetLcp::solve(const Scalar* A, Index m, Index n, const Scalar* s0, const Scalar* unitScale, Scalar threshold,
                        Scalar* lambda, const RowSupport* support) {
  const auto mu = static_cast<std::size_t>(m);
  if (!support) {
    RowSupport whole;
    whole.length[0] = n;
    m_wholeRows.assign(mu, whole);
    support = m_wholeRows.data();
  }
  m_support = support;
  m_A = A;
  m_n = n;
  m_s0 = s0;
  m_rStride = std::min(m, n) + 1;
  m_active.reserve(mu);
  m_q.resize(static_cast<std::size_t>(n * m_rStride));
  m_r.resize(static_cast<std::size_t>(m_rStride * m_rStride));
  m_z.resize(mu);
  m_rhs.resize(mu);
  m_work.resize(mu);
  m_x.resize(static_cast<std::size_t>(n));
  m_infeasible = false;
  int changes = run(m, unitScale, threshold, lambda);
  if (!m_infeasible) return changes;
  // No outcome satisfies every row (a prescribed motion squeezes the bodies):
  // the exchanges would follow the unbounded dual ray. Solve instead the
  // problem with every row relaxed by the least uniform unit-normal violation t
  // that makes it feasible, found by bisection on the same solve's Farkas test
  // (the smallest t is a linear program; each probe is one active-set solve).
  // A blocking pass that left rows violated and solved the rest exactly ended
  // with impulses of 4e12 on an energy of 8.9 (the energy rose to 2.5e11) in
  // finding infeasible-joint-error-squeeze-impulses-of-4e12.
  m_relaxed.resize(mu);
  m_best.assign(mu, Scalar(0));  // λ = 0 satisfies every row relaxed by the largest violation
  Scalar feasible = 0;
  for (Index i = 0; i < m; ++i) feasible = std::max(feasible, -s0[i] * unitScale[i]);
  Scalar infeasible = 0;
  for (int probe = 0; probe < kRelaxationProbes && feasible - infeasible > kRelaxationPrecision * feasible + threshold;
       ++probe) {
    const Scalar t = 0.5 * (infeasible + feasible);
    for (Index i = 0; i < m; ++i) m_relaxed[static_cast<std::size_t>(i)] = s0[i] + t / unitScale[i];
    m_s0 = m_relaxed.data();
    m_infeasible = false;
    changes += run(m, unitScale, threshold, lambda);
    // A probe that neither converged nor proved infeasibility decides
    // nothing: taken as feasible, its unconverged multipliers were returned
    // as the least violation (0.0057 per unit normal where 7.7e-8 was
    // reachable, finding 7dof-rigid-and-dense-capped-plastic-residual-...).
    if (m_infeasible || !m_converged) {
      infeasible = t;
    } else {
      feasible = t;
      std::copy(lambda, lambda + m, m_best.begin());
    }
  }
  m_s0 = s0;
  m_infeasible = true;
  std::copy(m_best.begin(), m_best.end(), lambda);
  return changes;
}

// The row to enter: the most violated (unit-normal) row neither active nor
// blocked, or -1 when none is violated beyond \p threshold.
Index ActiveSetLcp::enteringRow(Index m, const Scalar* unitScale, Scalar threshold) const {
  Index entering = -1;
  Scalar worst = -threshold;
  for (Index i = 0; i < m; ++i) {
    if (m_inActive[static_cast<std::size_t>(i)] || m_blocked[static_cast<std::size_t>(i)]) continue;
    const Scalar violation = m_s[static_cast<std::size_t>(i)] * unitScale[i];
    if (violation < worst) {
      worst = violation;
      entering = i;
    }
  }
  return entering;
}

// Lawson–Hanson's inner loop: solve on the active set; while some active
// multiplier is not positive, step towards the solution until the first one
// reaches 0 and drop it. Returns \p changes plus the rows dropped.
int ActiveSetLcp::settleActive(Scalar* lambda, int changes, int changeCap) {
  while (true) {
    solveActive();
    const std::size_t k = m_active.size();
    bool allPositive = true;
    for (std::size_t r = 0; r < k; ++r)
      if (!(m_z[r] > 0)) allPositive = false;
    if (allPositive) {
      for (std::size_t r = 0; r < k; ++r) lambda[m_active[r]] = m_z[r];
      return changes;
    }
    Scalar step = 1;
    std::size_t leaving = k;
    for (std::size_t r = 0; r < k; ++r) {
      const Scalar current = lambda[m_active[r]];
      if (m_z[r] <= 0) {
        const Scalar candidate = current / (current - m_z[r]);
        if (candidate < step || leaving == k) {
          step = std::min(step, candidate);
          leaving = r;
        }
      }
    }
    std::size_t kept = 0;
    for (std::size_t r = 0; r < k; ++r) {
      const int row = m_active[r];
      lambda[row] += step * (m_z[r] - lambda[row]);
      if (r != leaving && lambda[row] > 0) {
        m_active[kept++] = row;
      } else {
        lambda[row] = 0;
        m_inActive[static_cast<std::size_t>(row)] = 0;
      }
    }
    m_active.resize(kept);
    rebuildFactor(lambda);
    ++changes;
    if (m_active.empty() || changes >= changeCap) return changes;
  }
}

// s = A Aᵀ λ + s0 for the active set just settled.
void ActiveSetLcp::refreshSpeeds(Index m, const Scalar* lambda) {
  std::fill(m_x.begin(), m_x.end(), Scalar(0));
  for (const int row : m_active) rowAxpy(row, lambda[row], m_x.data());
  for (Index i = 0; i < m; ++i) m_s[static_cast<std::size_t>(i)] = rowDot(static_cast<int>(i), m_x.data()) + m_s0[i];
}

int ActiveSetLcp::run(Index m, const Scalar* unitScale, Scalar threshold, Scalar* lambda) {
  const auto mu = static_cast<std::size_t>(m);
  const Scalar* s0 = m_s0;
  m_active.clear();
  m_inActive.assign(mu, 0);
  m_blocked.assign(mu, 0);
  m_s.assign(s0, s0 + m);
  std::fill(lambda, lambda + m, Scalar(0));
  int changes = 0;
  // Lawson–Hanson terminates in finitely many steps in exact arithmetic; the
  // bound only guards against round-off cycling.
  const int changeCap = static_cast<int>(10 * m + 100);
  while (changes < changeCap) {
    const Index entering = enteringRow(m, unitScale, threshold);
    if (entering < 0) break;
    ++changes;
    if (static_cast<Index>(m_active.size()) >= std::min(m, m_n) || !appendColumn(static_cast<int>(entering))) {
      if (!exchange(static_cast<int>(entering), lambda)) {
        if (m_infeasible) break;  // a Farkas certificate: solve() relaxes the rows
        // Round-off left the row dependent on the rows that would stay too:
        // it waits until the active set changes.
        m_blocked[static_cast<std::size_t>(entering)] = 1;
        continue;
      }
    }
    changes = settleActive(lambda, changes, changeCap);
    // The active set changed, so rows blocked against the old one may enter.
    refreshSpeeds(m, lambda);
    std::fill(m_blocked.begin(), m_blocked.end(), 0);
  }
  // Stopped by the cap, or with a blocked row still violated, the multipliers
  // are no solution: a relaxation probe must not count them as feasible.
  m_converged = changes < changeCap;
  for (Index i = 0; m_converged && i < m; ++i)
    if (m_blocked[static_cast<std::size_t>(i)] && m_s[static_cast<std::size_t>(i)] * unitScale[i] < -threshold)
      m_converged = false;
  return changes;
}

}  // namespace propimpact::detail
