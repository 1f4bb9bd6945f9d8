#pragma once
// Stage "components": touching components of an island over its dynamic
// bodies (contacts and enabled joints), and which of them hold an impact seed.
// Only those are resolved; every other component costs its classification only.

#include <BulletDynamics/ConstraintSolver/btTypedConstraint.h>

#include <vector>

#include "Island.h"
#include "propimpact/core/DisjointSets.h"

namespace propimpact::bullet_detail {

/// Disjoint sets of the island's bodies and the roots of the seeded ones.
class Components {
 public:
  /// Unites bodies in touching contact or joined; returns whether any contact is a seed.
  bool build(const Island& island, btTypedConstraint** constraints, int numConstraints);
  /// Roots of the components holding a seed, in ascending body order.
  [[nodiscard]] const std::vector<int>& seededRoots() const { return m_seededRoots; }
  [[nodiscard]] int rootOf(int body) { return m_sets.find(body); }

 private:
  DisjointSets m_sets;
  std::vector<char> m_hasSeed;
  std::vector<int> m_seededRoots;
};

}  // namespace propimpact::bullet_detail
