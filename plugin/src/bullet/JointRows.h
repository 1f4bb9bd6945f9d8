#pragma once
// Stage "joint rows": the equality rows of btTypedConstraints touching a
// cluster, as bilateral rows of the impact problem. The impact then happens
// in the metric of the motions the joints admit (seed 004, SPEC §6). Limits
// and motors are inequality rows and stay with Bullet's pass.

#include <BulletDynamics/ConstraintSolver/btContactSolverInfo.h>
#include <BulletDynamics/ConstraintSolver/btSolverConstraint.h>
#include <BulletDynamics/ConstraintSolver/btTypedConstraint.h>

#include "propimpact/core/ImpactProblem.h"

namespace propimpact::bullet_detail {

/// Reads a joint's rows through Bullet's getInfo1 / getInfo2 into reused storage.
class JointRows {
 public:
  /// Adds the equality rows of \p joint between blocks \p blockA and \p blockB
  /// (either may be kNoBlock: a static or kinematic partner, or a body outside the cluster).
  void add(btTypedConstraint& joint, int blockA, int blockB, const btContactSolverInfo& info, ImpactProblem& problem);

 private:
  btAlignedObjectArray<btSolverConstraint> m_rows;
};

}  // namespace propimpact::bullet_detail
