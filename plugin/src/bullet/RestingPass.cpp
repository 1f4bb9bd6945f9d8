#include "RestingPass.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "LockedAxes.h"

namespace propimpact::bullet_detail {

// Bullet sets up a row of a body with an angular factor f as
// Δω = I⁻¹(r × n)·f per unit impulse, with the effective mass that implies:
// m⁻¹ + (I⁻¹t ∘ f)·t. That is not the metric of a body whose axes are locked
// (SPEC §1: the symmetric S(SᵀIS)⁻¹Sᵀ), and once the body is turned so that
// I⁻¹ couples a locked axis with a free one, (I⁻¹t ∘ f)·t can be negative:
// a row with an effective mass near zero gives any impulse. World fuzz finding
// world-zero-gravity-pass-gives-a-box-3e7-j-at-240-hz: a 1.6 kg box free about
// z only (inverse inertias 3.3, 1,677 and 0.13) overlapping a 70 kg compound
// in zero gravity took 9,984 N·s from one contact row and left at 6 km/s
// (3.1e7 J from 4.9 J); stock Bullet's pass from the same state does the same,
// and its own run of that world took the box from 0.48 to 753 J in 12 substeps.
// Every row of such a body gets the symmetric metric's component and
// effective mass; Bullet's targets (velocity error times the effective mass)
// are rescaled, except a joint's positional part (jointTarget), and its warm
// start is applied again with the new component.
void PushOutSolver::symmetriseLockedRows(btScalar damping) {
  const auto count = static_cast<std::size_t>(m_tmpSolverBodyPool.size());
  m_locked.assign(count, 0);
  if (m_lockedMetric.size() < count) m_lockedMetric.resize(count);
  bool any = false;
  for (std::size_t k = 0; k < count; ++k) {
    const btRigidBody* body = m_tmpSolverBodyPool[static_cast<int>(k)].m_originalBody;
    if (!body || !locksSomeAngularAxis(body->getAngularFactor())) continue;
    m_lockedMetric[k] = lockedMetric(body->getInvInertiaTensorWorld(), body->getAngularFactor());
    m_locked[k] = 1;
    any = true;
  }
  if (!any) return;
  // Bullet's m_cfm is relative to the effective mass for contact rows only.
  symmetriseRows(m_tmpSolverContactConstraintPool, m_sorRelaxation, false, true);
  symmetriseRows(m_tmpSolverContactFrictionConstraintPool, m_sorRelaxation, false, false);
  // Joint rows: Bullet's effective mass takes I⁻¹ without the factor, its
  // impulses the factor (btSequentialImpulseConstraintSolver::convertJoint).
  symmetriseRows(m_tmpSolverNonContactConstraintPool, 1, true, false, &damping);
}

// Bullet's joint target (convertJoint) is its effective mass times
// (positional error − damping · relative velocity), the positional error being
// the joint's ERP · error / dt. The velocity part belongs to the metric and is
// rescaled with it. The positional part must not be: an angular row whose
// torque axis is nearly perpendicular to the one free axis has a symmetric
// effective mass near zero, so a small angular error the body can hardly
// reach asked for a large spin about the free axis every substep (world fuzz
// finding world-hinged-box-free-about-z-spins-up-in-the-symmetrised-joint-rows-at-60-hz:
// a box free about z on three hinges spun up tenfold every 40 substeps).
// Bullet's own impulse through the new component still pumped that spin, a
// bounded kick every substep into an error the locked axes keep open (1.6
// rad/s by substep 200, 49 rad/s at the peak). So Bullet's impulse is scaled
// by the row's reach, its mobility under the symmetric metric over Bullet's
// (at most 1: S(SᵀIS)⁻¹Sᵀ ≤ I⁻¹): a row the metric leaves alone keeps
// Bullet's correction, one the locked axes cut loses it quadratically (it
// closes (reach)² of Bullet's ERP share a step). A motor's target speed sits
// in the same part and is reached only as nearly.
btScalar PushOutSolver::jointTarget(const btSolverConstraint& row, btScalar jacobian, btScalar damping) const {
  if (jacobian == 0) return 0;  // a row the metric leaves no mobility stays idle
  const auto* joint = static_cast<const btTypedConstraint*>(row.m_originalContactPoint);
  const btSolverBody& a = m_tmpSolverBodyPool[row.m_solverBodyIdA];
  const btSolverBody& b = m_tmpSolverBodyPool[row.m_solverBodyIdB];
  const btRigidBody& bodyA = joint->getRigidBodyA();
  const btRigidBody& bodyB = joint->getRigidBodyB();
  // The velocity Bullet's target was formed from: the bodies' own velocities
  // with this step's external impulses (none for Bullet's fixed body).
  const btVector3 zero(0, 0, 0);
  const btScalar relativeVelocity =
      row.m_contactNormal1.dot(bodyA.getLinearVelocity() + (a.m_originalBody ? a.m_externalForceImpulse : zero)) +
      row.m_relpos1CrossNormal.dot(bodyA.getAngularVelocity() +
                                   (a.m_originalBody ? a.m_externalTorqueImpulse : zero)) +
      row.m_contactNormal2.dot(bodyB.getLinearVelocity() + (b.m_originalBody ? b.m_externalForceImpulse : zero)) +
      row.m_relpos2CrossNormal.dot(bodyB.getAngularVelocity() +
                                   (b.m_originalBody ? b.m_externalTorqueImpulse : zero));
  const btScalar velocityError = -relativeVelocity * damping;
  const btScalar positionalImpulse = row.m_rhs - velocityError * row.m_jacDiagABInv;
  return positionalImpulse * (row.m_jacDiagABInv / jacobian) + velocityError * jacobian;
}

// Bullet's convertBodies gives every body this step's external spin change,
// I⁻¹·torque·dt plus its implicit gyroscopic impulse, without the angular
// factor, and its write-back adds it to ω: a body locked about x gains spin
// about x that no row of the pass can take away (their components have none,
// symmetriseLockedRows). Three world fuzz findings grew from that spin.
// world-capsule-with-a-locked-axis-on-two-p2p-joints-turns-nan-in-a-step-without-impacts-at-substep-82-at-60-hz:
// a capsule locked about x (inverse inertias 1.2e4, 1.1e7, 1.2e4) on a
// point-to-point joint spun about x at 7.8 rad/s by substep 20 and 4,800 by
// 27, while its joint rows turned it about y and z; from substep 22 the
// state grew fivefold a substep, mostly without impacts, to NaN at 82.
// world-jointed-capsule-floor-impact-gains-470x-under-the-locked-axis-exemption-box-through-the-floor-at-60-hz:
// a box locked about x and z, spinning about them, tied by joints to a
// capsule that impacts drove after that spin (a floor cluster from 6.0e7 to
// 2.8e10 J); zeroing the locked spin before each step's impacts (a scratch
// switch) left no cluster gaining energy: the spin made the energy, not the
// impact. world-spin-about-a-locked-angular-axis: floor impacts of a hull
// spinning about its locked x gained up to 17 %. So the change is projected
// onto the free axes here (admissibleSpinChange: what is left after the
// impulse about the locked axes that keeps them still), and a body that
// starts without spin about a locked axis never gets any; one an application
// sets spinning about it keeps that spin. This departs from stock Bullet on
// purpose: its pass keeps adding the spin. Island::gatherBodies takes the
// torque's part of the same change for the impacts' mid-step velocity.
void PushOutSolver::convertBodies(btCollisionObject** bodies, int numBodies, const btContactSolverInfo& info) {
  btSequentialImpulseConstraintSolver::convertBodies(bodies, numBodies, info);
  for (int k = 0; k < m_tmpSolverBodyPool.size(); ++k) {
    btSolverBody& solverBody = m_tmpSolverBodyPool[k];
    if (solverBody.m_originalBody)
      solverBody.m_externalTorqueImpulse =
          admissibleSpinChange(*solverBody.m_originalBody, solverBody.m_externalTorqueImpulse);
  }
}

void PushOutSolver::reserveRows(int contactRows) {
  if (m_tmpSolverContactConstraintPool.capacity() >= contactRows) return;
  m_tmpSolverContactConstraintPool.reserve(2 * contactRows);
  m_tmpSolverContactFrictionConstraintPool.reserve(4 * contactRows);
  m_orderTmpConstraintPool.reserve(2 * contactRows);
  m_orderFrictionConstraintPool.reserve(4 * contactRows);
}

// \p relaxation: Bullet's m_jacDiagABInv = relaxation / (its effective inverse mass).
void PushOutSolver::symmetriseRows(btConstraintArray& rows, btScalar relaxation, bool bulletSumIgnoresFactor,
                                   bool cfmScaled, const btScalar* jointDamping) {
  for (int r = 0; r < rows.size(); ++r) {
    btSolverConstraint& row = rows[r];
    const int ids[2] = {row.m_solverBodyIdA, row.m_solverBodyIdB};
    if (!m_locked[static_cast<std::size_t>(ids[0])] && !m_locked[static_cast<std::size_t>(ids[1])]) continue;
    // A row Bullet disabled (no mobility, jacDiag 0) stays disabled; a
    // negative one is what this corrects.
    if (row.m_jacDiagABInv == 0 || !std::isfinite(row.m_jacDiagABInv)) continue;
    btScalar sum = relaxation / row.m_jacDiagABInv;
    for (int side = 0; side < 2; ++side) {
      const auto id = static_cast<std::size_t>(ids[side]);
      if (!m_locked[id]) continue;
      btSolverBody& solverBody = m_tmpSolverBodyPool[ids[side]];
      const btVector3& torqueAxis = side == 0 ? row.m_relpos1CrossNormal : row.m_relpos2CrossNormal;
      btVector3& component = side == 0 ? row.m_angularComponentA : row.m_angularComponentB;
      const btVector3 before = bulletSumIgnoresFactor
                                   ? solverBody.m_originalBody->getInvInertiaTensorWorld() * torqueAxis
                                   : component;
      const btVector3 after = m_lockedMetric[id] * torqueAxis;
      sum += torqueAxis.dot(after - before);
      // Bullet's warm start applied Δω = component · λ (on either side, its
      // signs cancel for B); move it onto the new component.
      solverBody.internalApplyImpulse(btVector3(0, 0, 0), after - component, row.m_appliedImpulse);
      component = after;
    }
    const btScalar jacobian = sum > SIMD_EPSILON ? relaxation / sum : btScalar(0);
    const btScalar ratio = jacobian / row.m_jacDiagABInv;
    if (jointDamping) row.m_rhs = jointTarget(row, jacobian, *jointDamping);
    else row.m_rhs *= ratio;
    row.m_jacDiagABInv = jacobian;
    row.m_rhsPenetration *= ratio;
    if (cfmScaled) row.m_cfm *= ratio;
  }
}

btScalar PushOutSolver::solveGroupCacheFriendlySetup(btCollisionObject** bodies, int numBodies,
                                                     btPersistentManifold** manifolds, int numManifolds,
                                                     btTypedConstraint** constraints, int numConstraints,
                                                     const btContactSolverInfo& info, btIDebugDraw* debugDrawer) {
  const btScalar result = btSequentialImpulseConstraintSolver::solveGroupCacheFriendlySetup(
      bodies, numBodies, manifolds, numManifolds, constraints, numConstraints, info, debugDrawer);
  m_sorRelaxation = info.m_sor;
  symmetriseLockedRows(info.m_damping);
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
  m_b.warmStarts.clear();
  m_b.admitted.clear();
  m_b.solver.points.clear();
}

// An ahead point stands for a contact Bullet keeps no point for yet (beyond
// its contact breaking threshold, a fraction of a millimetre for a small
// sphere). An impact that stops a body at such a point leaves it in contact:
// the write-back hands it to Bullet's pass as it does every contact of a
// cluster that does not separate, but the pass sees only manifolds, and
// without the point it pressed the body through what had just stopped it
// (world fuzz finding
// world-heavy-locked-box-onto-four-spheres-presses-one-2.5cm-under-the-floor-at-substep-0-at-60-hz:
// a large sphere struck by a box pressed three small spheres 1 mm above the
// floor; two impacts stopped them on their floor points, and the pass,
// carrying the box's load through the large sphere's overlapping rows, sent
// them into a floor it had no row for, at up to 2.6 m/s and a 2.2 cm push).
// The point goes in a manifold of ours over the same bodies, with Bullet's
// thresholds (its processing threshold decides whether the pass takes the
// point, as for any of Bullet's); Bullet's own manifold stays empty, and the
// copy is forgotten at the next pass.
btManifoldPoint* RestingPass::admit(const btPersistentManifold& manifold, const btManifoldPoint& point) {
  if (m_b.admitted.size() == m_b.admitted.capacity()) return nullptr;  // would move the points admitted before
  const btScalar breaking = std::max(manifold.getContactBreakingThreshold(), point.getDistance());
  btPersistentManifold& own = m_b.admitted.emplace_back(manifold.getBody0(), manifold.getBody1(), 0, breaking,
                                                        manifold.getContactProcessingThreshold());
  own.setNumContacts(1);
  own.getContactPoint(0) = point;
  m_b.manifolds.push_back(&own);
  return &own.getContactPoint(0);
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
  // After hiding: an impact point that separates keeps no impulse of the
  // pass's (the destructor clears it), so none is carried into it either.
  for (auto& [point, impulse] : m_b.warmStarts)
    if (point->m_distance1 != BT_LARGE_FLOAT && point->m_appliedImpulse == 0) point->m_appliedImpulse = impulse;
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
