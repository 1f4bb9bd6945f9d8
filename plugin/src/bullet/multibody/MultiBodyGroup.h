#pragma once
// Stage "gather" of the multibody solver: one solveMultiBodyGroup call's
// dynamic bodies as blocks of generalized velocity, and its manifold points
// as contact rows over them, classified by the Zeno rule (SPEC §7).
//
// A block is a btMultiBody (its generalized velocities: 6 + n for a floating
// base, the n joint velocities for a fixed or kinematic base) or a
// btRigidBody (6: linear then angular, as the core's addRigidBody takes
// them). Every velocity is kept three ways: now (as Bullet holds it), the
// step's free change Δv (the kick), and mid-step, the velocity the impact
// sees: a multibody's kick is already in its velocity, a rigid body's is
// still to come in Bullet's pass (KickMemory.h), so
//   multibody: v_mid = v − ½Δv,   rigid body: v_mid = v + ½Δv,
// and in both cases the step ends at v_mid⁺ + ½Δv once the impact's change
// v_mid⁺ − v_mid is added to v.
//
// A contact row is Bullet's own Jacobian: fillContactJacobianMultiDof for a
// link, n·(v + ω×r) for a rigid body, so J v + b is the relative normal
// velocity (b: a static or kinematic partner's motion).
//
// Event location. Bullet moves the bodies after the solver with their
// end-of-step velocities, so an impact found only once the bodies overlap
// is a fraction 1 − s of a step past the contact, s being where in the
// previous step the contact fell. A point not yet touching (distance d > 0)
// whose end-of-step approach u closes it within the step (u dt > d), under
// the same Zeno rule as a touching one, is therefore located: s = d / (u dt).
// Between multibodies and static or kinematic geometry, its bodies carry s
// to the next pass (KickMemory), whose overlap resolves the impact at s
// inside the step just taken (ImpactTime.h). With a btRigidBody, whose
// forces the solver cannot evaluate later, it is an impact seed now if
// s < ½ (resolved s early), else it waits for the overlap (1 − s late): the
// nearer step boundary. Only if it reflects (restitution > 0): a plastic
// contact stays closed, and resolved early it would hover at its gap
// without Bullet's support and friction (the compass walker lost its gait
// that way). Such points are Bullet's speculative points (kept within the
// manifold's breaking threshold by most algorithms) or, for a pair whose
// manifold is empty (sphere–sphere keeps no point at a positive distance),
// the closest points of Bullet's closest-point query within that same
// threshold. A queried point is in no manifold: Bullet's pass never sees it.

#include <BulletCollision/BroadphaseCollision/btDispatcher.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "../ContactHistory.h"
#include "KickMemory.h"
#include "propimpact/bullet/SolverSettings.h"
#include "propimpact/bullet/StepReport.h"
#include "propimpact/core/Types.h"

namespace propimpact::bullet_detail {

class MultiBodyRestingPass;

/// One dynamic body of the group.
struct GroupBlock {
  btMultiBody* multiBody = nullptr;  ///< either this,
  btRigidBody* rigidBody = nullptr;  ///< or this.
  const btCollisionObject* reportObject = nullptr;  ///< named in reports (a multibody's base or first link collider)
  int dofs = 0;          ///< dofs in the impact problem
  int firstDof = 0;      ///< where they start in Bullet's velocity vector (6 for a fixed base)
  std::size_t offset = 0;  ///< into the flat velocity arrays
  std::size_t fullOffset = 0;  ///< a multibody's 6 + n kick in the group's full-kick array
  bool usable = false;   ///< may take part in an impact
  bool excluded = false; ///< bad input: kept out of both passes
  bool kickKnown = true; ///< false on a multibody's first pass (KickMemory)
  int block = kNoBlock;  ///< block in the current impact problem
  bool impacted = false; ///< an impact changed its velocity in this call
  bool previousKnown = false;  ///< a multibody's previous pass (velocity and kick) is known
  Scalar locate = -1;    ///< ≥ 0: a contact closes this far into this step (for the next pass)
  Scalar located = -1;   ///< ≥ 0: a contact closed this far into the previous step (resolved now)
};

/// One manifold point between two blocks, or a block and static / kinematic geometry.
struct GroupContact {
  btManifoldPoint* point = nullptr;
  const btCollisionObject* objectA = nullptr;
  const btCollisionObject* objectB = nullptr;
  int blockA = -1;          ///< group block or −1 (static or kinematic)
  int blockB = -1;
  std::size_t rowA = 0;     ///< coefficients of J over block A's dofs (flat storage)
  std::size_t rowB = 0;
  Scalar bias = 0;          ///< b: the static or kinematic partner's normal velocity
  Scalar kick = 0;          ///< J Δv
  Scalar restingSpeed = 0;  ///< Zeno threshold
  Scalar approachMid = 0;   ///< J v_mid + b
  bool seed = false;        ///< an impact by itself
  Scalar fraction = -1;     ///< not yet touching: where in the step it closes
  bool persistent = false;  ///< carried resting load (speculative points: judged after the impacts)
  bool queried = false;     ///< our own closest-point query, in no Bullet manifold (Bullet's pass never sees it)
  std::uint64_t key = 0;    ///< canonical tie-break key
  int contact = -1;         ///< index in the current impact problem
};

/// The bodies and contacts of one solveMultiBodyGroup call.
class MultiBodyGroup {
 public:
  /// Reads and validates every body (bad ones reported); \p kicks gives multibodies' Δv.
  void gatherBodies(btCollisionObject** objects, int count, Scalar dt, const KickMemory& kicks,
                    const SolverSettings& settings, StepReport& report);
  /// Rows and Zeno classification of every manifold point; lists what Bullet's pass may see.
  void gatherContacts(btPersistentManifold** manifolds, int count, const SolverSettings& settings,
                      ContactHistory& history, MultiBodyRestingPass& resting, btDispatcher* dispatcher);
  /// Block of a collision object: ≥ 0, −1 static or kinematic, −2 outside this group.
  [[nodiscard]] int blockOf(const btCollisionObject* object) const;
  /// Block of a multibody, −2 if not in this group.
  [[nodiscard]] int blockOf(const btMultiBody* body) const;

  [[nodiscard]] Scalar* now(const GroupBlock& b) { return m_now.data() + b.offset; }
  [[nodiscard]] Scalar* mid(const GroupBlock& b) { return m_mid.data() + b.offset; }
  [[nodiscard]] const Scalar* kick(const GroupBlock& b) const { return m_kick.data() + b.offset; }
  [[nodiscard]] const Scalar* row(std::size_t offset) const { return m_rows.data() + offset; }
  /// The velocity Bullet drifted with in the previous step, and that step's kick (previousKnown).
  [[nodiscard]] const Scalar* previousEnd(const GroupBlock& b) const { return m_previousEnd.data() + b.offset; }
  [[nodiscard]] const Scalar* previousKick(const GroupBlock& b) const { return m_previousKick.data() + b.offset; }
  /// A multibody's kick of this pass in its 6 + n coordinates (for KickMemory), null if unknown.
  [[nodiscard]] const Scalar* fullKick(const GroupBlock& b) const {
    return b.kickKnown ? m_fullKicks.data() + b.fullOffset : nullptr;
  }
  /// Length of the flat velocity arrays (every block's dofs).
  [[nodiscard]] std::size_t velocityCount() const { return m_now.size(); }
  /// The step being solved.
  [[nodiscard]] Scalar dt() const { return m_dt; }
  /// Names \p b in the report as left out for \p reason (found after gathering).
  void reportRejected(const GroupBlock& b, const char* reason) const;
  /// J v_mid + b of a contact with the current mid-step velocities.
  [[nodiscard]] Scalar approachMid(const GroupContact& c) const;

  std::vector<GroupBlock> blocks;
  std::vector<GroupContact> contacts;     ///< touching points between usable blocks, and imminent ones (seeds)
  std::vector<GroupContact> speculative;  ///< not yet touching: judged after the impacts

 private:
  bool addMultiBody(btMultiBody* body, const KickMemory& kicks, const SolverSettings& settings, StepReport& report);
  void readPrevious(btMultiBody& body, GroupBlock& b, const KickMemory& kicks);
  void addRigidBody(btRigidBody* body, Scalar dt, const SolverSettings& settings, StepReport& report);
  bool fillRow(GroupContact& c, bool sideA, const btVector3& normal);
  void addPoint(btManifoldPoint& cp, const btPersistentManifold& manifold, int a, int b, int index,
                const SolverSettings& settings, ContactHistory& history, MultiBodyRestingPass& resting, bool queried);
  void queryGaps(btDispatcher* dispatcher, const SolverSettings& settings, ContactHistory& history,
                 MultiBodyRestingPass& resting);
  [[nodiscard]] bool imminent(GroupContact& c) const;
  [[nodiscard]] bool locatable(const GroupContact& c) const;
  [[nodiscard]] Vector3 pointKick(int block, const btCollisionObject* object, const btVector3& point);
  void classify(GroupContact& c, const btPersistentManifold& manifold, const SolverSettings& settings,
                ContactHistory& history, MultiBodyRestingPass& resting);

  /// Whether a static or kinematic body is broken (BodyChecks.h); named in the report if so.
  bool brokenFixedBody(const btCollisionObject* object);

  const SolverSettings* m_settings = nullptr;  // of the pass being gathered (gatherBodies)
  StepReport* m_report = nullptr;
  Scalar m_dt = 0;  // the step being solved
  std::vector<const btPersistentManifold*> m_gaps;  // manifolds with no point: their gap is queried
  std::vector<btManifoldPoint> m_queried;  // the queried points (reserved: GroupContact points into it)
  std::vector<std::pair<const void*, int>> m_index;  // multibody or rigid body → block, sorted
  std::vector<Scalar> m_now, m_mid, m_kick;
  std::vector<Scalar> m_rows;
  std::vector<Scalar> m_fullKicks;  // every multibody's 6 + n kick, in double whatever btScalar is
  std::vector<Scalar> m_previousEnd, m_previousKick;  // flat, as m_now
  btAlignedObjectArray<btScalar> m_jacobian, m_scratchR;
  btAlignedObjectArray<btVector3> m_scratchV;
  btAlignedObjectArray<btMatrix3x3> m_scratchM;
};

}  // namespace propimpact::bullet_detail
