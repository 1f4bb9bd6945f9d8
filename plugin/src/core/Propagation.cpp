#include "Propagation.h"

#include "Capacity.h"


namespace propimpact::detail {
namespace {

// The rows as the reflection loop reads them, their base arrays held in
// locals: the loop's stores through char (m_reached) may alias any member, so
// through ContactRows' accessors every base pointer was loaded again per row
// (a fifth of the propagation's instructions, callgrind on the core chain).
// velocity() and applyImpulse() are ContactRows' own row functions
// (rowTimes, addAlongRow), so every speed and velocity is the same to the bit.
struct RowKernel {
  const Row* rows;
  const Scalar* coefficients;
  const Scalar* w;
  const int* adjacencyStart;
  const int* adjacency;

  explicit RowKernel(const ContactRows& r)
      : rows(r.rowData()), coefficients(r.coefficientData()), w(r.wData()),
        adjacencyStart(r.adjacencyStartData()), adjacency(r.adjacencyData()) {}

  [[nodiscard]] Scalar velocity(const Row& row, const Scalar* v) const { return rowTimes(row, coefficients, v, row.bias); }
  void applyImpulse(const Row& row, Scalar lambda, Scalar* v) const { addAlongRow(row, w, lambda, v); }
};

}  // namespace

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
    reflect(rows, rule, threshold, c, velocity, lambda);
    ++result.reflections;
    if (sequence) sequence->push_back(c);
  }
  return result;
}

// Eq. (8) across row c, then every active row on its groups refreshed.
void Propagator::reflect(const ContactRows& rows, const OrderingRule& rule, Scalar threshold, int c, Scalar* velocity,
                         Scalar* lambda) {
  const RowKernel kernel(rows);
  Scalar* speed = m_speed.data();
  char* reached = m_reached.data();
  const Row& row = kernel.rows[c];
  const Scalar impulse = -2 * speed[c] / row.d;
  kernel.applyImpulse(row, impulse, velocity);
  lambda[c] += impulse;
  ++m_reflections[static_cast<std::size_t>(c)];
  const auto refreshRow = [&](int j) {
    const Row& other = kernel.rows[j];
    speed[j] = kernel.velocity(other, velocity);
    if (speed[j] * other.invSqrtD < -threshold && speed[j] < -other.restingSpeed) {  // ContactRows::infeasible
      m_queue.update(rule.keyOf(other, j, speed[j], m_reflections[static_cast<std::size_t>(j)]));
      // The cluster grows by the contacts the propagation makes infeasible,
      // not by every contact of a body it moved: a ball landing on a pile
      // reaches the contacts its impulse actually passes through.
      reached[j] = 1;
    } else {
      m_queue.remove(j);
    }
  };
  // Row c first: it is the queue's top, and taken out before its neighbours
  // go in it leaves the heap as it was before c (a chain's next row then
  // enters an empty heap instead of sifting past c, and c's removal is the
  // last entry's). The order of the refreshes changes no speed and no key,
  // and the queue's top is the least key whatever order built the heap.
  refreshRow(c);
  const int firstGroup = row.terms[0].group;
  for (int t = 0; t < row.termCount; ++t) {
    const int g = row.terms[t].group;
    for (int a = kernel.adjacencyStart[g]; a < kernel.adjacencyStart[g + 1]; ++a) {
      const int j = kernel.adjacency[a];
      const Row& other = kernel.rows[j];
      // A row over both of c's groups (c itself, always) was refreshed with the first.
      if (j == c || (t == 1 && (other.terms[0].group == firstGroup ||
                                (other.termCount > 1 && other.terms[1].group == firstGroup))))
        continue;
      refreshRow(j);
    }
  }
}

}  // namespace propimpact::detail
