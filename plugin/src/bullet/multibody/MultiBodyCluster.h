#pragma once
// Stages "components", "cluster problem" and "write-back" of the multibody
// solver.
//
// Components: bodies united by touching contacts (and by btTypedConstraints
// between rigid bodies); only those holding an impact seed are resolved.
//
// Cluster problem: each multibody is one dense block in its generalized
// velocities, with mass matrix M = A⁻¹, where A's columns are Bullet's
// calcAccelerationDeltasMultiDof of unit generalized forces (the same map
// Bullet's own solver applies to a contact row to get M⁻¹Jᵀ; its articulated-
// body pass has run at this step's configuration). A is symmetric up to
// round-off (in single precision ~1e-7 relative): its symmetric part is used,
// as the core requires. Rigid bodies are 6-dof blocks (addRigidBody, factors
// as in the rigid solver); the equality rows of btTypedConstraints between
// them enter as bilateral rows. A multibody's internal joints are its
// generalized coordinates and need no rows. btMultiBodyConstraints (limits,
// motors, point-to-point, gears, fixed) are not in the impact's metric: they
// stay in Bullet's pass.
//
// A component whose impact was located in the previous pass (every block a
// multibody whose previous pass is known) is resolved at its contact instead
// (ImpactTime.h): velocities v(t_c), and the write-back of eqs. 3–4 for every
// block, changed or not.
//
// Write-back: a block's change v_mid⁺ − v_mid is added to its velocity as it
// stands (KickMemory.h): for a multibody through btMultiBody::
// applyDeltaVeeMultiDof, Bullet's own delta-velocity entry (it also applies
// the body's coordinate-velocity clamp), directly into the velocity vector
// because Bullet's pass reads contact velocities from there (its
// applyDeltaVeeMultiDof2 buffer is only added after the pass). Cluster
// contacts that separate by the end of the step are hidden from Bullet's
// pass; those that stay in contact keep their overlap (ERP 0).

#include <BulletDynamics/ConstraintSolver/btContactSolverInfo.h>
#include <BulletDynamics/ConstraintSolver/btTypedConstraint.h>

#include <vector>

#include "../ContactHistory.h"
#include "../JointRows.h"
#include "ImpactTime.h"
#include "MultiBodyGroup.h"
#include "MultiBodyRestingPass.h"
#include "propimpact/bullet/StepReport.h"
#include "propimpact/core/DisjointSets.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResult.h"

namespace propimpact::bullet_detail {

/// Components, problem building and write-back over one MultiBodyGroup.
class MultiBodyCluster {
 public:
  /// Unites blocks in touching contact or joined; returns whether any contact is a seed.
  bool components(const MultiBodyGroup& group, btTypedConstraint** constraints, int numConstraints);
  [[nodiscard]] const std::vector<int>& seededRoots() const { return m_seededRoots; }

  /// The impact problem of the component of \p root; a located component's
  /// velocities are those at its contact (ImpactTime.h, eq. 2).
  void build(int root, MultiBodyGroup& group, btTypedConstraint** constraints, int numConstraints,
             const btContactSolverInfo& info, ImpactTime& time, ImpactProblem& problem);

  /// Writes one resolved cluster back (a located one through ImpactTime,
  /// eqs. 3–4); \p report may be null. Returns how many contacts took part
  /// in the impact (the others are resting contact).
  std::size_t writeBack(const ImpactProblem& problem, const ImpactResult& result, MultiBodyGroup& group,
                        ContactHistory& history, MultiBodyRestingPass& resting, ImpactTime& time,
                        ClusterReport* report);

  /// Speculative points an impact now drives together are hidden from Bullet's
  /// pass, so the bodies arrive and are reflected next step.
  static void hideApproachingSpeculative(const MultiBodyGroup& group, MultiBodyRestingPass& resting);

 private:
  bool addMultiBodyBlock(GroupBlock& block, ImpactProblem& problem);
  void addContacts(int root, MultiBodyGroup& group, ImpactProblem& problem);

  /// Where in the previous step the component's impact was (ImpactTime.h), or −1:
  /// every block a multibody whose previous pass is known, one of them located.
  [[nodiscard]] Scalar located(int root, const MultiBodyGroup& group);
  void writeBlock(GroupBlock& b, const VectorX& after, const VectorX& delta, MultiBodyGroup& group, ImpactTime& time);

  DisjointSets m_sets;
  Scalar m_located = -1;  // of the cluster being built
  std::vector<char> m_hasSeed;
  std::vector<int> m_seededRoots;
  std::vector<int> m_blockOfProblem;  // group block of each problem block
  std::vector<int> m_firstReflection;
  JointRows m_joints;
  MatrixX m_inverseMass, m_mass;
  VectorX m_velocity, m_rowA, m_rowB, m_after, m_change;
  btAlignedObjectArray<btScalar> m_force, m_delta, m_scratchR;
  btAlignedObjectArray<btVector3> m_scratchV;
};

}  // namespace propimpact::bullet_detail
