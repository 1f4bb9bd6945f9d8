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

  /// The impact problem of the component of \p root.
  void build(int root, MultiBodyGroup& group, btTypedConstraint** constraints, int numConstraints,
             const btContactSolverInfo& info, ImpactProblem& problem);

  /// Writes one resolved cluster back; \p report may be null. Returns how
  /// many contacts took part in the impact (the others are resting contact).
  std::size_t writeBack(const ImpactProblem& problem, const ImpactResult& result, MultiBodyGroup& group,
                 ContactHistory& history, MultiBodyRestingPass& resting, ClusterReport* report);

  /// Speculative points an impact now drives together are hidden from Bullet's
  /// pass, so the bodies arrive and are reflected next step.
  static void hideApproachingSpeculative(const MultiBodyGroup& group, MultiBodyRestingPass& resting);

 private:
  bool addMultiBodyBlock(GroupBlock& block, MultiBodyGroup& group, ImpactProblem& problem);
  void addContacts(int root, MultiBodyGroup& group, ImpactProblem& problem);

  DisjointSets m_sets;
  std::vector<char> m_hasSeed;
  std::vector<int> m_seededRoots;
  std::vector<int> m_blockOfProblem;  // group block of each problem block
  std::vector<int> m_firstReflection;
  JointRows m_joints;
  MatrixX m_inverseMass, m_mass;
  VectorX m_velocity, m_rowA, m_rowB;
  btAlignedObjectArray<btScalar> m_force, m_delta, m_scratchR;
  btAlignedObjectArray<btVector3> m_scratchV;
};

}  // namespace propimpact::bullet_detail
