#pragma once
// Stage "contact history": what the adapter remembers between solver passes.
//
// - Per dispatcher manifold slot (btPersistentManifold::m_index1a): the last
//   pass in which it had a touching point and the last in which Bullet's pass
//   loaded it. Sphere–sphere manifolds are rebuilt every frame, so their
//   points carry no history of their own.
// - Body pairs that took part in an impact and have stayed in contact since:
//   their overlap is never pushed out through a velocity (that would add
//   energy) until the contact bears load. A sorted flat vector, so that a
//   warmed-up world allocates nothing.

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "propimpact/core/Types.h"

namespace propimpact::bullet_detail {

/// Manifold and impact-pair memory across solver passes.
class ContactHistory {
 public:
  /// Starts a solver pass: ages out pairs not seen touching in the last pass.
  void beginPass();
  [[nodiscard]] std::uint64_t pass() const { return m_pass; }

  // The look-ups below run for every manifold point of every pass: inline,
  // and a manifold without a record (or with no single point last pass) costs
  // a compare, not a call.

  /// Whether the manifold had a touching point in the previous pass.
  [[nodiscard]] bool touchingLastPass(const btPersistentManifold* manifold) const {
    const ManifoldRecord* h = recordOf(manifold);
    return h && h->touching + 1 == m_pass;
  }
  /// The largest point impulse Bullet's pass gave it in the previous pass (0 if none).
  [[nodiscard]] Scalar impulseLastPass(const btPersistentManifold* manifold) const {
    const ManifoldRecord* h = recordOf(manifold);
    return h && h->loaded + 1 == m_pass ? h->impulse : 0;
  }
  /// Whether \p point is a new vertex of a dynamic body (a polyhedron's
  /// corner, a capsule's other end) whose manifold held a single other point
  /// last pass: its place on that body moved further than Bullet's contact
  /// breaking threshold (within which Bullet's own point cache takes two
  /// points for the same one) plus twice the shape's margin.
  [[nodiscard]] bool newVertex(const btPersistentManifold& manifold, const btManifoldPoint& point) const {
    const ManifoldRecord* h = recordOf(&manifold);
    return h && h->single + 1 == m_pass && movedVertex(*h, manifold, point);
  }
  /// After Bullet's pass: records which manifolds touch and which were loaded.
  void recordPass(btPersistentManifold* const* manifolds, int count, Scalar touchingDistance);

  /// Whether the pair had an impact and has stayed in contact since; marks it seen in this pass.
  bool touchImpactedPair(const btCollisionObject* a, const btCollisionObject* b) {
    return !m_pairs.empty() && findImpactedPair(a, b);
  }
  [[nodiscard]] bool anyImpactedPair() const { return !m_pairs.empty(); }
  /// Remembers a pair that took part in an impact of this pass.
  void addImpactedPair(const btCollisionObject* a, const btCollisionObject* b);
  /// Room for \p additions more pairs in this pass.
  void reservePairs(std::size_t additions) {
    if (m_pairs.capacity() < m_pairs.size() + additions) m_pairs.reserve(2 * (m_pairs.size() + additions));
  }
  /// Merges this pass's additions into the sorted memory.
  void sortImpactedPairs();

 private:
  using BodyPair = std::pair<const void*, const void*>;
  using ImpactedPair = std::pair<BodyPair, std::uint64_t>;  // pair, last pass that saw it touching
  struct ManifoldRecord {
    const btPersistentManifold* manifold = nullptr;
    std::uint64_t touching = 0;  // last pass with a touching point
    std::uint64_t loaded = 0;    // last pass in which Bullet's pass gave it a positive impulse
    Scalar impulse = 0;          // the largest point impulse of that pass
    std::uint64_t single = 0;    // last pass in which it held one point (touching or hidden), at:
    btVector3 localA{0, 0, 0};   // that point on body 0, in its frame
    btVector3 localB{0, 0, 0};   // and on body 1
  };
  static BodyPair pairOf(const btCollisionObject* a, const btCollisionObject* b) {
    return a < b ? BodyPair(a, b) : BodyPair(b, a);
  }
  [[nodiscard]] const ManifoldRecord* recordOf(const btPersistentManifold* manifold) const {
    const auto slot = static_cast<std::size_t>(manifold->m_index1a);
    return slot < m_manifolds.size() && m_manifolds[slot].manifold == manifold ? &m_manifolds[slot] : nullptr;
  }
  /// newVertex past its record test: whether the point is that far from last pass's single point.
  [[nodiscard]] bool movedVertex(const ManifoldRecord& h, const btPersistentManifold& manifold,
                                 const btManifoldPoint& point) const;
  /// touchImpactedPair past its empty test.
  bool findImpactedPair(const btCollisionObject* a, const btCollisionObject* b);

  std::uint64_t m_pass = 0;
  std::vector<ManifoldRecord> m_manifolds;
  std::vector<ImpactedPair> m_pairs;
  std::size_t m_sortedPairs = 0;
};

}  // namespace propimpact::bullet_detail
