#include "CapForecast.h"

#include <algorithm>
#include <cmath>

namespace propimpact::detail {

bool CapForecast::collect(const ContactRows& rows, const std::vector<char>& reached) {
  reserve(rows.size());
  for (int s = 0; s < m_count; ++s) m_slotOf[static_cast<std::size_t>(m_rows[static_cast<std::size_t>(s)])] = -1;
  m_count = 0;
  const auto add = [&](int r) {
    if (m_slotOf[static_cast<std::size_t>(r)] >= 0) return true;
    if (m_count == kMaxRows) return false;
    m_slotOf[static_cast<std::size_t>(r)] = m_count;
    m_rows[static_cast<std::size_t>(m_count++)] = r;
    return true;
  };
  for (const int r : rows.active()) {
    if (!reached[static_cast<std::size_t>(r)]) continue;
    const Row& row = rows[static_cast<std::size_t>(r)];
    if (!add(r)) return false;
    // Every row on a body this one moves: their speeds change with it.
    for (int t = 0; t < row.termCount; ++t) {
      const auto g = static_cast<std::size_t>(row.terms[t].group);
      for (int a = rows.adjacencyBegin(g); a < rows.adjacencyEnd(g); ++a)
        if (!add(rows.adjacent(a))) return false;
    }
  }
  // A biased row (a kinematic body's motion, a joint error) makes reflections
  // change the energy, and its cap fallback starts from a state that is no
  // longer the impact's (fuzz finding capped-4dof-joints-plastic-residual-0.15-of-scale
  // gained 30 % in its propagation): such propagations keep their full cap.
  for (int s = 0; s < m_count; ++s)
    if (rows[static_cast<std::size_t>(m_rows[static_cast<std::size_t>(s)])].bias != 0) return false;
  return true;
}

void CapForecast::measure(const ContactRows& rows, const Scalar* velocity, const Scalar* lambda, Scalar threshold,
                          bool growFromSeeds) {
  const auto k = static_cast<std::size_t>(m_count);
  for (std::size_t a = 0; a < k; ++a) {
    const int r = m_rows[a];
    const Row& row = rows[static_cast<std::size_t>(r)];
    m_speed[a] = rows.velocity(r, velocity) * row.invSqrtD;
    m_threshold[a] = std::max(threshold, row.restingSpeed * row.invSqrtD);
    m_sqrtD[a] = std::sqrt(row.d);
    m_groups[a] = {row.terms[0].group, row.termCount > 1 ? row.terms[1].group : row.terms[0].group};
    m_eligible[a] = !growFromSeeds || row.seed;
    m_impulse[a] = lambda[r] * m_sqrtD[a];  // in unit-normal form
    m_replayed[a] = 0;
    m_gram[a * k + a] = 1;
    for (std::size_t b = 0; b < a; ++b) {
      const Row& other = rows[static_cast<std::size_t>(m_rows[b])];
      const Scalar g = rows.coupling(r, m_rows[b]) * row.invSqrtD * other.invSqrtD;
      m_gram[a * k + b] = g;
      m_gram[b * k + a] = g;
    }
  }
  // Back to the propagation's start: s0 = s − G λ (each row's impulses so far).
  for (std::size_t b = 0; b < k; ++b) {
    if (m_impulse[b] == 0) continue;
    const Scalar* column = m_gram.data() + b * k;
    for (std::size_t a = 0; a < k; ++a) m_speed[a] -= column[a] * m_impulse[b];
  }
}

std::int64_t CapForecast::replay(const ContactRows& rows, const OrderingRule& rule, std::int64_t steps) {
  const auto k = static_cast<std::size_t>(m_count);
  // Rows not yet in the queue; once there are none the groups are not compared
  // again (every row of a propagation from all its rows is eligible at once).
  std::size_t waiting = 0;
  for (std::size_t a = 0; a < k; ++a) waiting += m_eligible[a] ? 0 : 1;
  for (std::int64_t done = 0; done < steps; ++done) {
    // The row the propagation's queue would pick: the same key, the same ties.
    std::size_t c = k;
    QueueKey best{};
    for (std::size_t a = 0; a < k; ++a) {
      if (!m_eligible[a] || !(m_speed[a] < -m_threshold[a])) continue;
      const int r = m_rows[a];
      const QueueKey key =
          rule.keyOf(rows[static_cast<std::size_t>(r)], r, m_speed[a] * m_sqrtD[a], m_replayed[a]);
      if (c == k || key < best) {
        best = key;
        c = a;
      }
    }
    if (c == k) return done;
    ++m_replayed[c];
    // Eq. (8) in row space.
    // s ← s − 2 s_c G_{·c}: (2 s_c) G_ac per row, as before in one loop of its own (vectorised).
    const Scalar twiceSpeed = 2 * m_speed[c];
    const Scalar* column = m_gram.data() + c * k;
    for (std::size_t a = 0; a < k; ++a) m_speed[a] -= twiceSpeed * column[a];
    if (waiting == 0) continue;
    // As the propagation's queue: a row waits until a reflection on one of its bodies looks at it.
    const auto [g0, g1] = m_groups[c];
    for (std::size_t a = 0; a < k; ++a) {
      const auto [h0, h1] = m_groups[a];
      if (m_eligible[a] || !(h0 == g0 || h0 == g1 || h1 == g0 || h1 == g1)) continue;
      m_eligible[a] = 1;
      --waiting;
    }
  }
  return steps;
}

bool CapForecast::missesCap(const ContactRows& rows, const OrderingRule& rule, bool growFromSeeds, const Scalar* velocity,
                            const Scalar* lambda,
                            const std::vector<char>& reached, const std::vector<std::int64_t>& reflections,
                            std::int64_t done, Scalar threshold, std::int64_t budget) {
  if (!collect(rows, reached)) return false;
  measure(rows, velocity, lambda, threshold, growFromSeeds);
  // The replay is trusted only if it retells the propagation so far, reflection
  // for reflection per row: a different ordering rule, ties, or a metric whose
  // round-off the row-space Gram matrix does not share make it disagree.
  if (replay(rows, rule, done) != done) return false;
  for (int a = 0; a < m_count; ++a)
    if (m_replayed[static_cast<std::size_t>(a)] != reflections[static_cast<std::size_t>(m_rows[static_cast<std::size_t>(a)])])
      return false;
  return replay(rows, rule, budget + 1) > budget;
}

}  // namespace propimpact::detail
