#include "PlasticSolver.h"

#include <algorithm>
#include <cmath>

namespace propimpact::detail {

// Cholesky of W restricted to the active rows, then z_P = −W_PP⁻¹ s0_P.
// Returns false when the last active row is (numerically) dependent.
bool ActiveSetLcp::factorAndSolve(const Scalar* W, const Scalar* s0, Index m) {
  const Index k = static_cast<Index>(m_active.size());
  if (m_factor.size() < static_cast<std::size_t>(k * k)) m_factor.resize(static_cast<std::size_t>(k * k));
  Scalar* L = m_factor.data();
  for (Index c = 0; c < k; ++c)
    for (Index r = c; r < k; ++r) L[r + c * k] = W[m_active[static_cast<std::size_t>(r)] + m_active[static_cast<std::size_t>(c)] * m];
  for (Index c = 0; c < k; ++c) {
    Scalar diagonal = L[c + c * k];
    for (Index p = 0; p < c; ++p) diagonal -= L[c + p * k] * L[c + p * k];
    const Scalar original = W[m_active[static_cast<std::size_t>(c)] * (m + 1)];
    if (!(diagonal > 1e-12 * original)) return false;
    const Scalar root = std::sqrt(diagonal);
    L[c + c * k] = root;
    for (Index r = c + 1; r < k; ++r) {
      Scalar value = L[r + c * k];
      for (Index p = 0; p < c; ++p) value -= L[r + p * k] * L[c + p * k];
      L[r + c * k] = value / root;
    }
  }
  Scalar* z = m_z.data();
  for (Index r = 0; r < k; ++r) {
    Scalar value = -s0[m_active[static_cast<std::size_t>(r)]];
    for (Index p = 0; p < r; ++p) value -= L[r + p * k] * z[p];
    z[r] = value / L[r + r * k];
  }
  for (Index r = k - 1; r >= 0; --r) {
    Scalar value = z[r];
    for (Index p = r + 1; p < k; ++p) value -= L[p + r * k] * z[p];
    z[r] = value / L[r + r * k];
  }
  return true;
}

int ActiveSetLcp::solve(const Scalar* W, const Scalar* s0, const Scalar* unitScale, Index m, Scalar threshold,
                        Scalar* lambda) {
  const auto mu = static_cast<std::size_t>(m);
  m_active.clear();
  m_inActive.assign(mu, 0);
  m_blocked.assign(mu, 0);
  m_z.resize(mu);
  m_s.assign(s0, s0 + m);
  std::fill(lambda, lambda + m, Scalar(0));
  int changes = 0;
  // Lawson–Hanson terminates in finitely many steps in exact arithmetic; the
  // bound only guards against round-off cycling.
  const int changeCap = static_cast<int>(10 * m + 100);
  while (changes < changeCap) {
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
    if (entering < 0) break;
    m_active.push_back(static_cast<int>(entering));
    m_inActive[static_cast<std::size_t>(entering)] = 1;
    ++changes;
    while (true) {
      if (!factorAndSolve(W, s0, m)) {
        // The entering row depends on the active ones: it cannot lower the
        // objective, so it stays out.
        m_active.pop_back();
        m_inActive[static_cast<std::size_t>(entering)] = 0;
        m_blocked[static_cast<std::size_t>(entering)] = 1;
        if (!m_active.empty()) factorAndSolve(W, s0, m);
        for (std::size_t r = 0; r < m_active.size(); ++r) lambda[m_active[r]] = m_z[r];
        break;
      }
      const std::size_t k = m_active.size();
      bool allPositive = true;
      for (std::size_t r = 0; r < k; ++r)
        if (!(m_z[r] > 0)) allPositive = false;
      if (allPositive) {
        for (std::size_t r = 0; r < k; ++r) lambda[m_active[r]] = m_z[r];
        break;
      }
      Scalar step = 1;
      for (std::size_t r = 0; r < k; ++r) {
        const Scalar current = lambda[m_active[r]];
        if (m_z[r] <= 0) step = std::min(step, current / (current - m_z[r]));
      }
      std::size_t kept = 0;
      for (std::size_t r = 0; r < k; ++r) {
        const int row = m_active[r];
        lambda[row] += step * (m_z[r] - lambda[row]);
        if (lambda[row] > 0 && !(m_z[r] <= 0 && lambda[row] <= 1e-15 * std::abs(m_z[r]))) {
          m_active[kept++] = row;
        } else {
          lambda[row] = 0;
          m_inActive[static_cast<std::size_t>(row)] = 0;
        }
      }
      m_active.resize(kept);
      ++changes;
      if (kept == 0) break;
    }
    // Refresh s = W λ + s0. A row blocked as dependent stays blocked only
    // while the active set it depended on is unchanged.
    for (Index i = 0; i < m; ++i) {
      Scalar value = s0[i];
      for (const int r : m_active) value += W[i + static_cast<Index>(r) * m] * lambda[r];
      m_s[static_cast<std::size_t>(i)] = value;
    }
    if (!m_blocked[static_cast<std::size_t>(entering)]) std::fill(m_blocked.begin(), m_blocked.end(), 0);
  }
  return changes;
}

}  // namespace propimpact::detail
