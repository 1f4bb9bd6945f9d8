#include "Components.h"

namespace propimpact::bullet_detail {

bool Components::build(const Island& island, btTypedConstraint** constraints, int numConstraints) {
  const std::size_t count = island.bodies.size();
  m_sets.reset(count);
  for (const IslandContact& c : island.contacts) m_sets.unite(c.bodyA, c.bodyB);
  for (int k = 0; k < numConstraints; ++k) {
    btTypedConstraint* joint = constraints[k];
    if (!joint->isEnabled()) continue;
    const int a = island.dynamicIndex(&joint->getRigidBodyA());
    const int b = island.dynamicIndex(&joint->getRigidBodyB());
    if (a >= 0 && b >= 0 && island.bodies[static_cast<std::size_t>(a)].usable && island.bodies[static_cast<std::size_t>(b)].usable)
      m_sets.unite(a, b);
  }
  m_hasSeed.assign(count, 0);
  bool anySeed = false;
  for (const IslandContact& c : island.contacts) {
    if (!c.seed) continue;
    anySeed = true;
    m_hasSeed[static_cast<std::size_t>(m_sets.find(c.bodyA >= 0 ? c.bodyA : c.bodyB))] = 1;
  }
  m_seededRoots.clear();
  for (std::size_t root = 0; root < count; ++root)
    if (m_hasSeed[root] && m_sets.find(static_cast<int>(root)) == static_cast<int>(root))
      m_seededRoots.push_back(static_cast<int>(root));
  return anySeed;
}

}  // namespace propimpact::bullet_detail
