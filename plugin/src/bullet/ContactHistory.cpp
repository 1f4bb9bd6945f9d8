#include "ContactHistory.h"

#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btCollisionShape.h>

#include <algorithm>

namespace propimpact::bullet_detail {
namespace {

// Whether a dynamic capsule's point moved from one end's cap to the other's.
// Half the half-height from the middle on either side: a point on the
// cylinder between them (a capsule lying flat) is neither end.
bool otherCapsuleEnd(const btCollisionObject* object, const btVector3& now, const btVector3& before) {
  const btCollisionShape* shape = object->getCollisionShape();
  if (object->isStaticOrKinematicObject() || shape->getShapeType() != CAPSULE_SHAPE_PROXYTYPE) return false;
  const auto* capsule = static_cast<const btCapsuleShape*>(shape);
  const int axis = capsule->getUpAxis();
  const btScalar half = btScalar(0.5) * capsule->getHalfHeight();
  return (now[axis] > half && before[axis] < -half) || (now[axis] < -half && before[axis] > half);
}

}  // namespace

void ContactHistory::beginPass() {
  ++m_pass;
  const std::uint64_t pass = m_pass;
  m_pairs.erase(std::remove_if(m_pairs.begin(), m_pairs.end(), [pass](const ImpactedPair& e) { return e.second + 1 < pass; }),
                m_pairs.end());
  m_sortedPairs = m_pairs.size();  // removal keeps the order
}

// A sphere's contact point slides over it continuously, so a one-point sphere
// manifold (rebuilt every frame) touching last pass is the same contact. A
// polyhedron's is a vertex (a capsule's one of its two ends), and a body
// tumbling or rocking on them brings another one down within a step: a
// contact that was never touching (world fuzz findings
// world-tumbling-box-sinks-through-the-floor-at-60-hz and
// world-heavy-box-on-one-corner-sinks-at-60-hz). Bullet rounds every convex
// shape by its margin (a sphere's and a capsule's is their radius), and the
// same vertex's point moves over that rounding by up to twice the margin as
// the body turns: a sphere's point, never further than its diameter, is
// never new. Static and kinematic sides are not asked: a point slides over
// them as the dynamic body moves. A capsule's ends are closer than that reach
// when it is shorter than the threshold plus its diameter, and such a capsule
// see-sawing from one end onto the other kept its one point "the same": each
// end, arriving at 0.4–1.4 m/s, was persistent resting contact, Bullet's pass
// stopped it by turning the capsule (an end's effective mass is almost all
// rotational) and so drove the other end down, and the capsule sank 1 cm a
// step (world fuzz finding
// world-capsule-see-sawing-on-one-end-sinks-in-bullets-pass-at-60-hz). A point
// that moved from one end's cap to the other's is new as well.
bool ContactHistory::movedVertex(const ManifoldRecord& h, const btPersistentManifold& manifold,
                                 const btManifoldPoint& point) const {
  const btScalar breaking = manifold.getContactBreakingThreshold();
  const auto moved = [breaking](const btCollisionObject* object, const btVector3& now, const btVector3& before) {
    const btScalar reach = breaking + 2 * object->getCollisionShape()->getMargin();
    return !object->isStaticOrKinematicObject() && (now - before).length2() > reach * reach;
  };
  return moved(manifold.getBody0(), point.m_localPointA, h.localA) ||
         moved(manifold.getBody1(), point.m_localPointB, h.localB) ||
         otherCapsuleEnd(manifold.getBody0(), point.m_localPointA, h.localA) ||
         otherCapsuleEnd(manifold.getBody1(), point.m_localPointB, h.localB);
}

void ContactHistory::recordPass(btPersistentManifold* const* manifolds, int count, Scalar touchingDistance) {
  for (int k = 0; k < count; ++k) {
    const btPersistentManifold* manifold = manifolds[k];
    bool touching = false;
    bool loaded = false;
    Scalar largest = 0;
    for (int j = 0; j < manifold->getNumContacts(); ++j) {
      const btManifoldPoint& cp = manifold->getContactPoint(j);
      touching = touching || cp.getDistance() <= touchingDistance;
      loaded = loaded || cp.m_appliedImpulse > 0;
      largest = std::max<Scalar>(largest, cp.m_appliedImpulse);
    }
    // A single point is remembered even when the pass did not see it (an
    // impact point that separates is hidden, its distance out of reach), so
    // that newVertex knows the vertex an impact has just reflected.
    const bool single = manifold->getNumContacts() == 1;
    if ((!touching && !single) || manifold->m_index1a < 0) continue;
    const auto slot = static_cast<std::size_t>(manifold->m_index1a);
    if (slot >= m_manifolds.size()) m_manifolds.resize(slot + 1 + slot / 2);
    ManifoldRecord& record = m_manifolds[slot];
    if (record.manifold != manifold) record = ManifoldRecord{};
    record.manifold = manifold;
    if (single) {
      record.single = m_pass;
      record.localA = manifold->getContactPoint(0).m_localPointA;
      record.localB = manifold->getContactPoint(0).m_localPointB;
    }
    if (!touching) continue;
    record.touching = m_pass;
    if (loaded) {
      record.loaded = m_pass;
      record.impulse = largest;
    }
  }
}

bool ContactHistory::findImpactedPair(const btCollisionObject* a, const btCollisionObject* b) {
  const BodyPair pair = pairOf(a, b);
  const auto end = m_pairs.begin() + static_cast<std::ptrdiff_t>(m_sortedPairs);
  const auto found = std::lower_bound(m_pairs.begin(), end, pair,
                                      [](const ImpactedPair& e, const BodyPair& key) { return e.first < key; });
  if (found == end || found->first != pair) return false;
  found->second = m_pass;
  return true;
}

void ContactHistory::addImpactedPair(const btCollisionObject* a, const btCollisionObject* b) {
  m_pairs.emplace_back(pairOf(a, b), m_pass);
}

void ContactHistory::sortImpactedPairs() {
  if (m_sortedPairs == m_pairs.size()) return;
  // Latest pass first within a pair, then keep the first of each pair.
  std::sort(m_pairs.begin(), m_pairs.end(), [](const ImpactedPair& a, const ImpactedPair& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  m_pairs.erase(std::unique(m_pairs.begin(), m_pairs.end(),
                            [](const ImpactedPair& a, const ImpactedPair& b) { return a.first == b.first; }),
                m_pairs.end());
  m_sortedPairs = m_pairs.size();
}

}  // namespace propimpact::bullet_detail
