#pragma once
/// \file DisjointSets.h
/// Union–find over 0..n−1: the touching components of an island, the bodies
/// joined by bilateral rows into one metric group. One type for the adapter,
/// the core and the tests, so that "which bodies belong together" has one
/// definition. Storage is reused across reset() (no allocation once grown).

#include <cstddef>
#include <numeric>
#include <vector>

namespace propimpact {

/// Disjoint sets with path halving. unite(x, y) links x's root under y's, so
/// the root of a set is a deterministic function of the unite() sequence.
class DisjointSets {
 public:
  /// n singletons.
  void reset(std::size_t n) {
    m_parent.resize(n);
    std::iota(m_parent.begin(), m_parent.end(), 0);
  }
  /// The set's representative.
  [[nodiscard]] int find(int x) {
    while (m_parent[static_cast<std::size_t>(x)] != x) {
      m_parent[static_cast<std::size_t>(x)] = m_parent[static_cast<std::size_t>(m_parent[static_cast<std::size_t>(x)])];
      x = m_parent[static_cast<std::size_t>(x)];
    }
    return x;
  }
  /// Merges the sets of x and y; negative ids (no body) are ignored.
  void unite(int x, int y) {
    if (x < 0 || y < 0) return;
    m_parent[static_cast<std::size_t>(find(x))] = find(y);
  }
  [[nodiscard]] std::size_t size() const { return m_parent.size(); }

 private:
  std::vector<int> m_parent;
};

}  // namespace propimpact
