#pragma once
// Stage "gather": each btRigidBody and each touching btManifoldPoint of an
// island read once into compact arrays (indices, not pointers, in what the
// later stages loop over), with the Zeno classification of SPEC §7. Empty
// manifolds of sphere–sphere, sphere–box and sphere–plane pairs get points of our own, so
// that a contact this step would close is reflected before it overlaps. Bad
// bodies are flagged and reported, never thrown; a static or kinematic body
// with a non-finite position or velocity is reported and its manifolds are
// kept out of both passes, as a bad dynamic body's are.

#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <cstdint>
#include <vector>

#include "ContactHistory.h"
#include "RestingPass.h"
#include "propimpact/bullet/SolverSettings.h"
#include "propimpact/bullet/StepReport.h"
#include "propimpact/core/Types.h"

namespace propimpact::bullet_detail {

/// Island-local state of one body (static and kinematic ones are not usable).
struct IslandBody {
  btRigidBody* body = nullptr;
  bool usable = false;    ///< dynamic, finite, positive mass, 0/1 factors
  bool excluded = false;  ///< bad input: kept away from both passes
  Vector3 kickLinear = Vector3::Zero();  ///< this step's Δv from external forces
  Vector3 kickAngular = Vector3::Zero();
  int block = kNoBlock;   ///< block in the current cluster problem
  bool impacted = false;  ///< an impact changed its velocity in this pass
  Vector3 lift = Vector3::Zero();  ///< translation out of a static body after the pass (WriteBack.h)
  /// The static plane whose corner points this body got last in this gather:
  /// a compound has one manifold per child with a plane, and its corners
  /// are made once per pair (Island::addPlaneFeatures).
  const btCollisionObject* cornersAgainst = nullptr;
  /// Island::mayClose's terms of this body (its angular kick and spin times
  /// its reach), valid while reachRound is the island's round: velocities
  /// change only between rounds, and a round asks for a body many times.
  std::uint32_t reachRound = 0;
  bool reachUnbounded = false;  ///< a turning plane: mayClose has no bound
  Scalar kickReach = 0;
  Scalar spinReach = 0;
};

/// One touching (or speculative) manifold point.
struct IslandContact {
  btManifoldPoint* point = nullptr;
  const btCollisionObject* objectA = nullptr;
  const btCollisionObject* objectB = nullptr;
  int bodyA = -1;  ///< island-local dynamic index or -1 (static / kinematic)
  int bodyB = -1;
  Vector3 normal;  ///< from B to A
  Vector3 offsetA;
  Vector3 offsetB;
  Scalar bias = 0;          ///< kinematic / static partner's normal velocity term
  Scalar kick = 0;          ///< J Δv_ext
  Scalar restingSpeed = 0;  ///< Zeno threshold: a slower approach is resting contact
  Scalar approachMid = 0;   ///< J v_mid + b
  bool seed = false;        ///< an impact by itself
  bool persistent = false;  ///< resting by the Zeno rule when classified (speculative points)
  bool newVertex = false;   ///< a polyhedron's vertex that replaced last pass's only point (ContactHistory::newVertex)
  std::uint64_t key = 0;    ///< canonical tie-break key
  /// An ahead point not made yet (point is null): two spheres apart that do
  /// not touch within the step, made only if an impact moves one of them.
  const btPersistentManifold* deferred = nullptr;
  /// An ahead point's empty manifold (AheadPoints.cpp): the point is ours and
  /// Bullet's pass does not see it unless an impact admits it (writeBack).
  const btPersistentManifold* ahead = nullptr;
  btScalar gap = 0;         ///< a deferred point's aheadGap (positions do not change within a pass)
  int contact = -1;         ///< index in the current cluster problem
};

/// Velocity of \p object's material point at \p offset from its centre of mass (zero for a non-rigid object).
inline Vector3 pointVelocity(const btCollisionObject* object, const Vector3& offset) {
  const btRigidBody* rb = btRigidBody::upcast(object);
  if (!rb) return Vector3::Zero();
  return Vector3(rb->getLinearVelocity().x(), rb->getLinearVelocity().y(), rb->getLinearVelocity().z()) +
         Vector3(rb->getAngularVelocity().x(), rb->getAngularVelocity().y(), rb->getAngularVelocity().z()).cross(offset);
}

/// The object's index in the world: the part of a contact's tie-break key that does not depend on the island.
inline std::uint64_t worldIndex(const btCollisionObject* o) {
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(o->getWorldArrayIndex()));
}

/// The island's bodies and contacts for one solveGroup call.
class Island {
 public:
  /// Validates every body and notes its external kick (Bullet's solver adds
  /// totalForce·invMass·dt and invInertia·torque·dt, SPEC §7). Sets companion ids.
  void gatherBodies(btCollisionObject** bodies, int count, Scalar dt, const SolverSettings& settings, StepReport& report);
  /// Classifies every manifold point (SPEC §7) and lists the manifolds Bullet's pass may see.
  void gatherContacts(btPersistentManifold** manifolds, int count, const SolverSettings& settings,
                      ContactHistory& history, RestingPass& resting);
  /// Makes seeds of the speculative points that this round's impacts drive
  /// together and that the rest of the step would close; clears the old seeds.
  /// Returns whether there is any.
  bool promoteClosingSpeculative();
  /// Island index of a dynamic body, −1 for static or kinematic, −2 for a body outside this island.
  [[nodiscard]] int dynamicIndex(const btCollisionObject* object) const;
  /// Clears the companion ids set by gatherBodies.
  void releaseBodies();
  /// Whether \p c is deeper than \p overlapSlop in a static or kinematic
  /// body; if so its dynamic body is lifted out by the excess after Bullet's
  /// pass (IslandBody::lift, the largest of its points').
  bool liftOut(const IslandContact& c, Scalar overlapSlop);

  std::vector<IslandBody> bodies;
  std::vector<IslandContact> contacts;     ///< touching points of usable bodies
  std::vector<IslandContact> speculative;  ///< not yet touching: judged after the impacts

 private:
  /// \p ownPoint: a point of ours next to Bullet's points of \p manifold
  /// (addPlaneFeatures), never persistent contact. True if the point belongs
  /// in contacts (touching, or closing within the step), false if in speculative.
  [[nodiscard]] bool classify(IslandContact& c, const btPersistentManifold& manifold, const SolverSettings& settings,
                ContactHistory& history, RestingPass& resting, bool ownPoint = false);
  /// Warm-starts a new point of a one-point manifold with last pass's impulse of that manifold.
  void carryWarmStart(btManifoldPoint& point, const btPersistentManifold& manifold, ContactHistory& history,
                      RestingPass& resting);
  /// Appends \p c to contacts (\p touching, as classify says) or speculative.
  void keep(const IslandContact& c, bool touching);
  /// Our own speculative points for the corners of a box, hull or capsule
  /// that a static plane's manifold does not hold (AheadGeometry.h).
  void addPlaneFeatures(const btPersistentManifold& manifold, int a, int b, const SolverSettings& settings,
                        ContactHistory& history, RestingPass& resting);
  /// Our own speculative point for an empty manifold of the pairs AheadGeometry.h names.
  void addAheadPoint(const btPersistentManifold& manifold, int a, int b, const SolverSettings& settings,
                     ContactHistory& history, RestingPass& resting);
  /// The ahead point of an empty manifold, today's closest points, into \p c (not classified).
  bool makeAheadPoint(const btPersistentManifold& manifold, int a, int b, IslandContact& c);
  /// Whether a deferred sphere pair's gap could close within the step (a bound; see Island.cpp).
  [[nodiscard]] bool mayClose(const IslandContact& c);
  /// A dynamic body's terms of mayClose, computed once per round.
  const IslandBody& reachTerms(int body);
  /// Makes a deferred ahead point (IslandContact::deferred); false if it has none.
  bool makeDeferredPoint(IslandContact& c);
  void measure(IslandContact& c, const SolverSettings& settings, Scalar& velocityA, Scalar& velocityB,
               Scalar& forcing) const;
  /// Whether two apart spheres touch within this step; the time, today's
  /// line of centres and the relative motion when they do.
  bool touchWithinStep(const btCollisionObject& a, const btCollisionObject& b, int bodyA, int bodyB, btScalar& t,
                       btVector3& between, btVector3& relative) const;
  /// Re-aims an apart sphere pair's point at the touch within this step; false if there is none.
  bool aimAtTouch(btManifoldPoint& point, const btCollisionObject& a, const btCollisionObject& b, int bodyA, int bodyB) const;
  [[nodiscard]] Vector3 kickAt(int body, const Vector3& offset) const;
  /// ContactHistory::touchImpactedPair for \p c's pair, asked once per manifold.
  bool pairImpacted(const btPersistentManifold& manifold, const IslandContact& c, ContactHistory& history);
  /// Names \p body in the report's rejected list (once), if the report is kept.
  void reject(const btCollisionObject* body, const char* reason);
  /// Whether a static or kinematic body has a non-finite position or velocity (rejected if so).
  bool brokenFixedBody(const btCollisionObject* object);

  btCollisionObject** m_objects = nullptr;
  int m_count = 0;
  std::vector<btManifoldPoint> m_ahead;  // addAheadPoint's points, alive until the next gather
  // pairImpacted's answer for the last manifold asked: every point of a
  // manifold asks the same, and the pair memory does not change while gathering.
  const btPersistentManifold* m_pairAsked = nullptr;
  bool m_pairImpacted = false;
  const SolverSettings* m_settings = nullptr;  // while gathering and in the rounds after
  Scalar m_dt = 0;  // this step's, for whether a speculative point closes within it
  std::uint32_t m_round = 0;  // gather, then each promotion: when IslandBody::reachRound is current
  StepReport* m_report = nullptr;  // while gathering, when SolverSettings::keepReport
};

}  // namespace propimpact::bullet_detail
