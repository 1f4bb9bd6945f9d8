#include "Propagation.h"

#include "Capacity.h"


namespace propimpact::detail {

void Propagator::reserve(int rows) {
  reserveCapacity(m_speed, rows);
  reserveCapacity(m_reflections, rows);
  reserveCapacity(m_reached, rows);
  m_queue.reserve(rows);
  m_forecast.reserve(static_cast<std::size_t>(rows));
}

void Propagator::refresh(const ContactRows& rows, const OrderingRule& rule, Scalar threshold, int r) {
  const auto i = static_cast<std::size_t>(r);
  if (!rows.infeasible(r, m_speed[i], threshold)) {
    m_queue.remove(r);
    return;
  }
  m_queue.update(rule.keyOf(rows[i], r, m_speed[i], m_reflections[i]));
}

Propagation Propagator::run(const ContactRows& rows, const OrderingRule& rule, Scalar threshold, bool growFromSeeds,
                            std::int64_t cap, Scalar* velocity, Scalar* lambda, std::vector<int>* sequence) {
  Propagation result;
  m_queue.reset(rows.size());
  m_reflections.assign(rows.size(), 0);
  m_speed.resize(rows.size());
  m_forecast.reserve(rows.size());
  m_reached.assign(rows.size(), growFromSeeds ? 0 : 1);
  for (const int r : rows.active()) {
    if (growFromSeeds && !rows[static_cast<std::size_t>(r)].seed) continue;
    m_reached[static_cast<std::size_t>(r)] = 1;
    m_speed[static_cast<std::size_t>(r)] = rows.velocity(r, velocity);
    refresh(rows, rule, threshold, r);
  }
  // The first look at whether the propagation can end within the cap comes
  // after a few reflections per row (a cradle's needs one), then at every doubling.
  std::int64_t nextForecast = kForecastStart + kForecastPerRow * static_cast<std::int64_t>(rows.active().size());
  while (!m_queue.empty()) {
    if (result.reflections >= cap) {
      result.capHit = true;
      break;
    }
    if (result.reflections == nextForecast) {
      nextForecast *= 2;
      if (m_forecast.missesCap(rows, rule, growFromSeeds, velocity, lambda, m_reached, m_reflections,
                               result.reflections, threshold, cap - result.reflections)) {
        result.capHit = true;
        result.capForeseen = true;
        break;
      }
    }
    const int c = m_queue.top();
    const Row& row = rows[static_cast<std::size_t>(c)];
    // Eq. (8): reflect the relative velocity across this contact.
    const Scalar impulse = -2 * m_speed[static_cast<std::size_t>(c)] / row.d;
    rows.applyImpulse(c, impulse, velocity);
    lambda[c] += impulse;
    ++m_reflections[static_cast<std::size_t>(c)];
    ++result.reflections;
    if (sequence) sequence->push_back(c);
    for (int t = 0; t < row.termCount; ++t) {
      const auto g = static_cast<std::size_t>(row.terms[t].group);
      for (int a = rows.adjacencyBegin(g); a < rows.adjacencyEnd(g); ++a) {
        const int j = rows.adjacent(a);
        // A row over both of c's groups (c itself, always) was refreshed with the first.
        if (t == 1 && rows.touches(j, row.terms[0].group)) continue;
        m_speed[static_cast<std::size_t>(j)] = rows.velocity(j, velocity);
        refresh(rows, rule, threshold, j);
        // The cluster grows by the contacts the propagation makes infeasible,
        // not by every contact of a body it moved: a ball landing on a pile
        // reaches the contacts its impulse actually passes through.
        if (m_queue.contains(j)) m_reached[static_cast<std::size_t>(j)] = 1;
      }
    }
  }
  return result;
}

}  // namespace propimpact::detail
