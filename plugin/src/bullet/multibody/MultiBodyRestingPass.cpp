#include "MultiBodyRestingPass.h"

namespace propimpact::bullet_detail {

MultiBodyRestingPass::MultiBodyRestingPass(Buffers& buffers) : m_b(buffers) {
  m_b.manifolds.clear();
  m_b.constraints.clear();
  m_b.multiBodyConstraints.clear();
  m_b.hidden.clear();
  m_b.unpushed.clear();
}

void MultiBodyRestingPass::keepOverlap(btManifoldPoint& point) {
  m_b.unpushed.push_back({&point, {point.m_contactPointFlags, point.m_contactERP}});
  point.m_contactPointFlags |= BT_CONTACT_FLAG_HAS_CONTACT_ERP;
  point.m_contactERP = 0;
}

void MultiBodyRestingPass::run(btMultiBodyConstraintSolver& solver, btCollisionObject** bodies, int numBodies,
                               const btContactSolverInfo& info, btIDebugDraw* debugDrawer, btDispatcher* dispatcher) {
  // No second restitution: the impacts were resolved before this pass. A
  // hidden point is beyond every contact processing threshold, so Bullet's
  // convertMultiBodyContact skips it (and zeroes its warm-start impulse).
  btContactSolverInfo restingInfo = info;
  restingInfo.m_restitutionVelocityThreshold = BT_LARGE_FLOAT;
  for (auto& hidden : m_b.hidden) hidden.first->m_distance1 = BT_LARGE_FLOAT;
  m_hiddenApplied = true;
  solver.btMultiBodyConstraintSolver::solveMultiBodyGroup(
      bodies, numBodies, m_b.manifolds.data(), static_cast<int>(m_b.manifolds.size()), m_b.constraints.data(),
      static_cast<int>(m_b.constraints.size()), m_b.multiBodyConstraints.data(),
      static_cast<int>(m_b.multiBodyConstraints.size()), restingInfo, debugDrawer, dispatcher);
}

MultiBodyRestingPass::~MultiBodyRestingPass() {
  if (m_hiddenApplied) {
    for (auto& [point, distance] : m_b.hidden) {
      point->m_distance1 = distance;
      // Impact impulses stay out of warm starting; they are in the report.
      point->m_appliedImpulse = 0;
      point->m_prevRHS = 0;
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
