#include "RestingPass.h"

#include <algorithm>
#include <limits>

namespace propimpact::bullet_detail {

btScalar PushOutSolver::solveGroupCacheFriendlySetup(btCollisionObject** bodies, int numBodies,
                                                     btPersistentManifold** manifolds, int numManifolds,
                                                     btTypedConstraint** constraints, int numConstraints,
                                                     const btContactSolverInfo& info, btIDebugDraw* debugDrawer) {
  const btScalar result = btSequentialImpulseConstraintSolver::solveGroupCacheFriendlySetup(
      bodies, numBodies, manifolds, numManifolds, constraints, numConstraints, info, debugDrawer);
  if (points.empty()) return result;
  // The rows of listed points have ERP 0 (no positional term in m_rhs); give
  // them the split-impulse term Bullet gives a deep overlap, at its contact
  // ERP, for the overlap beyond the slop. Bullet's split iterations then move
  // the bodies apart by pseudo-velocities that never reach their velocities.
  const btScalar invDt = btScalar(1) / info.m_timeStep;
  for (int k = 0; k < m_tmpSolverContactConstraintPool.size(); ++k) {
    btSolverConstraint& row = m_tmpSolverContactConstraintPool[k];
    const auto* point = static_cast<const btManifoldPoint*>(row.m_originalContactPoint);
    if (!std::binary_search(points.begin(), points.end(), point)) continue;
    const btScalar excess = -(point->getDistance() + info.m_linearSlop) - slop;
    if (excess > 0) row.m_rhsPenetration = excess * info.m_erp2 * invDt * row.m_jacDiagABInv;
  }
  return result;
}

// Bullet's split iterations see only rows with a push target: nothing stops a
// push from driving a body into its other contacts (a hull pushed out of a
// 2 cm ball pushed the ball 7 cm through the floor in one substep, world fuzz
// finding world-push-out-drives-a-ball-through-the-floor). When the pushes
// drove another contact shut by more than half the slop, they are solved
// again with every contact row a bare non-penetration row; those rows cost as
// much as the pushed ones in every iteration, so only a step that needs them
// pays for them.
void PushOutSolver::solveGroupCacheFriendlySplitImpulseIterations(btCollisionObject** bodies, int numBodies,
                                                                   btPersistentManifold** manifolds, int numManifolds,
                                                                   btTypedConstraint** constraints, int numConstraints,
                                                                   const btContactSolverInfo& info,
                                                                   btIDebugDraw* debugDrawer) {
  btSequentialImpulseConstraintSolver::solveGroupCacheFriendlySplitImpulseIterations(
      bodies, numBodies, manifolds, numManifolds, constraints, numConstraints, info, debugDrawer);
  if (points.empty() || !pushedAnyContactShut(info.m_timeStep)) return;
  for (int k = 0; k < m_tmpSolverBodyPool.size(); ++k) {
    m_tmpSolverBodyPool[k].internalGetPushVelocity().setZero();
    m_tmpSolverBodyPool[k].internalGetTurnVelocity().setZero();
  }
  for (int k = 0; k < m_tmpSolverContactConstraintPool.size(); ++k) {
    btSolverConstraint& row = m_tmpSolverContactConstraintPool[k];
    row.m_appliedPushImpulse = btScalar(0);
    // Bullet skips a row whose target is exactly 0; minus the smallest normal
    // number clamps to no impulse unless a push drives the contact shut.
    if (row.m_rhsPenetration == 0) row.m_rhsPenetration = -std::numeric_limits<btScalar>::min();
  }
  btSequentialImpulseConstraintSolver::solveGroupCacheFriendlySplitImpulseIterations(
      bodies, numBodies, manifolds, numManifolds, constraints, numConstraints, info, debugDrawer);
}

// Whether a row without a push target closes by more than half the slop
// within the step at the pushes' velocities. Overlap below the slop is left
// alone by design; on the settled pile the pushes close neighbouring contacts
// by about 2 mm per step (9 of 9 pushing steps), which the next step's
// contacts take up, and solving those steps again changed the pile's
// trajectory and cost 23 % more of Bullet's pass (callgrind). The fuzzer's
// ball was pushed 7 cm, the test's 1.0–1.6 cm.
bool PushOutSolver::pushedAnyContactShut(btScalar dt) {
  const btScalar allowed = btScalar(0.5) * slop;
  for (int k = 0; k < m_tmpSolverContactConstraintPool.size(); ++k) {
    const btSolverConstraint& row = m_tmpSolverContactConstraintPool[k];
    if (row.m_rhsPenetration != 0) continue;
    btSolverBody& a = m_tmpSolverBodyPool[row.m_solverBodyIdA];
    btSolverBody& b = m_tmpSolverBodyPool[row.m_solverBodyIdB];
    const btScalar speed = row.m_contactNormal1.dot(a.internalGetPushVelocity()) +
                           row.m_relpos1CrossNormal.dot(a.internalGetTurnVelocity()) +
                           row.m_contactNormal2.dot(b.internalGetPushVelocity()) +
                           row.m_relpos2CrossNormal.dot(b.internalGetTurnVelocity());
    if (-speed * dt > allowed) return true;
  }
  return false;
}

RestingPass::RestingPass(Buffers& buffers) : m_b(buffers) {
  m_b.manifolds.clear();
  m_b.constraints.clear();
  m_b.hidden.clear();
  m_b.unpushed.clear();
  m_b.solver.points.clear();
}

void RestingPass::keepOverlap(btManifoldPoint& point) {
  m_b.unpushed.push_back({&point, {point.m_contactPointFlags, point.m_contactERP}});
  point.m_contactPointFlags |= BT_CONTACT_FLAG_HAS_CONTACT_ERP;
  point.m_contactERP = 0;
}

btScalar RestingPass::run(btCollisionObject** bodies, int numBodies, const btContactSolverInfo& info, btScalar slop,
                          btIDebugDraw* debugDrawer, btDispatcher* dispatcher) {
  // No second restitution: the impacts were resolved before this pass. (Split
  // impulse for every overlap would keep position correction out of all
  // velocities, but at Bullet's default iteration count it lets a 10-box
  // stack sink through itself; impact points alone are pushed out that way.)
  btContactSolverInfo restingInfo = info;
  restingInfo.m_restitutionVelocityThreshold = BT_LARGE_FLOAT;
  PushOutSolver& solver = m_b.solver;
  std::sort(solver.points.begin(), solver.points.end());
  solver.slop = slop;
  if (!solver.points.empty() && !info.m_splitImpulse) {
    // The split iterations and the position write-back run only with split
    // impulse on; no other row is split, as the world asked.
    restingInfo.m_splitImpulse = 1;
    restingInfo.m_splitImpulsePenetrationThreshold = -BT_LARGE_FLOAT;
  }
  for (auto& hidden : m_b.hidden) hidden.first->m_distance1 = BT_LARGE_FLOAT;
  m_hiddenApplied = true;
  return solver.solveGroup(
      bodies, numBodies, m_b.manifolds.data(), static_cast<int>(m_b.manifolds.size()), m_b.constraints.data(),
      static_cast<int>(m_b.constraints.size()), restingInfo, debugDrawer, dispatcher);
}

RestingPass::~RestingPass() {
  if (m_hiddenApplied) {
    for (auto& [point, distance] : m_b.hidden) {
      point->m_distance1 = distance;
      // Impact impulses stay out of warm starting; they are in the report.
      point->m_appliedImpulse = 0;
      point->m_appliedImpulseLateral1 = 0;
      point->m_appliedImpulseLateral2 = 0;
    }
  }
  // Newest first: a point may have been saved twice in this pass.
  for (auto it = m_b.unpushed.rbegin(); it != m_b.unpushed.rend(); ++it) {
    it->first->m_contactPointFlags = it->second.first;
    it->first->m_contactERP = it->second.second;
  }
}

}  // namespace propimpact::bullet_detail
