#pragma once
// Stage "ordering queue": which infeasible contact the propagation reflects
// next (SPEC §3). A binary heap of the infeasible rows keyed by the ordering
// policy; ties within the tie tolerance are broken by the rows' canonical
// keys, never by whichever rounding came out lower.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "Capacity.h"
#include "ContactRows.h"
#include "propimpact/core/ResolveOptions.h"

namespace propimpact::detail {

/// What the policy says about one row; smaller comes first.
struct QueueKey {
  std::int64_t primary;
  std::uint64_t key;
  int row;
  bool operator<(const QueueKey& o) const {
    if (primary != o.primary) return primary < o.primary;
    if (key != o.key) return key < o.key;
    return row < o.row;
  }
};

/// How keys are made: the policy, the quantum that makes near-equal speeds
/// ties, and the seeded-random keys (per step and cluster, never a stream).
struct OrderingRule {
  OrderingPolicy policy = OrderingPolicy::MostApproaching;
  Scalar quantum = 1;
  std::uint64_t randomSeed = 0;
  std::uint64_t problemKey = 0;
  /// The key of row \p r with relative velocity \p s after \p reflections reflections of it.
  /// Inline: called for every row a reflection leaves infeasible, and the
  /// call (a 24-byte key returned through memory) was a fifth of its cost.
  [[nodiscard]] QueueKey keyOf(const Row& row, int r, Scalar s, std::int64_t reflections) const {
    std::int64_t primary = 0;
    switch (policy) {
      case OrderingPolicy::MostApproaching: primary = quantized(row, s); break;
      case OrderingPolicy::LeastApproaching: primary = -quantized(row, s); break;
      case OrderingPolicy::IndexOrder: primary = r; break;
      case OrderingPolicy::ReverseIndexOrder: primary = -static_cast<std::int64_t>(r); break;
      case OrderingPolicy::SeededRandom: primary = seededPrimary(row, reflections); break;
    }
    return QueueKey{primary, row.key, r};
  }

 private:
  /// The unit-normal speed in tie quanta, rounded to nearest.
  [[nodiscard]] std::int64_t quantized(const Row& row, Scalar s) const {
    const Scalar q = std::floor(s * row.invSqrtD / quantum + 0.5);
    return static_cast<std::int64_t>(std::clamp(q, Scalar(-4e18), Scalar(4e18)));
  }
  [[nodiscard]] std::int64_t seededPrimary(const Row& row, std::int64_t reflections) const;
};

/// An indexed binary heap over row ids.
class OrderingQueue {
 public:
  void reset(std::size_t rows);
  /// Room for \p rows rows without resetting.
  void reserve(int rows) {
    reserveCapacity(m_heap, rows);
    reserveCapacity(m_position, rows);
  }
  [[nodiscard]] bool empty() const { return m_heap.empty(); }
  [[nodiscard]] int top() const { return m_heap.front().row; }
  [[nodiscard]] bool contains(int r) const { return m_position[static_cast<std::size_t>(r)] >= 0; }
  /// Inserts row r or moves it to its new key. Inline: a propagation calls
  /// it for every row a reflection leaves infeasible, mostly to insert it.
  void update(const QueueKey& entry) {
    const auto row = static_cast<std::size_t>(entry.row);
    if (m_position[row] >= 0) {
      moveQueued(entry);
      return;
    }
    m_heap.push_back(entry);
    m_position[row] = static_cast<int>(m_heap.size() - 1);
    if (m_heap.size() > 1) siftUp(m_heap.size() - 1);
  }
  /// Takes row r out if queued. Inline: most calls find it absent (a row a
  /// reflection left feasible), and the call was half of the cost (callgrind).
  void remove(int r) {
    if (contains(r)) removeQueued(r);
  }

 private:
  void removeQueued(int r);
  void moveQueued(const QueueKey& entry);
  void siftUp(std::size_t i);
  void siftDown(std::size_t i);
  void place(std::size_t i) { m_position[static_cast<std::size_t>(m_heap[i].row)] = static_cast<int>(i); }

  std::vector<QueueKey> m_heap;
  std::vector<int> m_position;
};

}  // namespace propimpact::detail
