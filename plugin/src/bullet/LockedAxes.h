#pragma once
// Bodies whose 0/1 angular factor locks one or two axes (in the world frame,
// as Bullet applies the factor): the symmetric metric of SPEC §1 that their
// rows use (RestingPass.cpp), and the projection of a spin change onto the
// axes they may turn about. Header-only: the gather (Island.cpp) and Bullet's
// pass (RestingPass.cpp) must use the same formula.

#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <algorithm>

namespace propimpact::bullet_detail {

/// A 0/1 angular factor that locks one or two axes. Fractional factors have
/// no symmetric metric (Bullet's rows stay, README); with all three locked
/// both forms give no angular part.
inline bool locksSomeAngularAxis(const btVector3& factor) {
  int locked = 0;
  for (int k = 0; k < 3; ++k) {
    if (factor[k] == 0) ++locked;
    else if (factor[k] != 1) return false;
  }
  return locked == 1 || locked == 2;
}

/// S (SᵀIS)⁻¹ Sᵀ (SPEC §1) from the world inverse inertia, as the core forms
/// it (RigidBlocks.cpp): locking axis k is the constraint ω_k = 0, whose
/// admissible metric is the Schur complement I⁻¹ − I⁻¹e_k e_kᵀI⁻¹ / I⁻¹_kk,
/// row and column k zero.
inline btMatrix3x3 lockedMetric(const btMatrix3x3& inverseInertia, const btVector3& factor) {
  btMatrix3x3 m = inverseInertia;
  btScalar scale = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) scale = std::max(scale, btFabs(m[i][j]));
  for (int k = 0; k < 3; ++k) {
    if (factor[k] != 0) continue;
    const btVector3 column = m.getColumn(k);
    const btScalar pivot = column[k];
    if (pivot > btScalar(1e-14) * scale)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[i][j] -= column[i] * column[j] / pivot;
    for (int i = 0; i < 3; ++i) m[k][i] = m[i][k] = 0;
  }
  return m;
}

/// The part of a world-frame spin change \p spinChange that a body whose
/// angular factor locks some axes can take: S(SᵀIS)⁻¹Sᵀ · I · Δω, the change
/// left after the impulse about the locked axes that keeps them still. It is
/// the projection orthogonal in the kinetic-energy metric, so a body turning
/// about its free axes only ends with no more kinetic energy than the whole
/// change would give it. Any other body's change is returned as it is.
/// An axis of infinite inertia (inverse 0) takes no momentum: the metric has
/// no range along it either.
inline btVector3 admissibleSpinChange(const btRigidBody& body, const btVector3& spinChange) {
  if (!locksSomeAngularAxis(body.getAngularFactor())) return spinChange;
  const btMatrix3x3& basis = body.getWorldTransform().getBasis();
  const btVector3 momentum = basis * (body.getLocalInertia() * (basis.transpose() * spinChange));
  return lockedMetric(body.getInvInertiaTensorWorld(), body.getAngularFactor()) * momentum;
}

}  // namespace propimpact::bullet_detail
