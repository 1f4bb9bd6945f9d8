#pragma once
// Stage "impact time" of the multibody solver: an impact found before its
// contact touches (MultiBodyGroup.h) happens a fraction s of the way into
// the step; this stage makes Bullet's step reach it there.
//
// Bullet's step is a kick then a drift: v⁺ = v₀ + dt a(q₀), q₁ = q₀ + dt v⁺.
// Read as a leapfrog, the velocity at the kick is v_mid = v⁺ − ½Δv_free
// (KickMemory.h) and, for a constant a, the drift is the exact motion
// q(t) = q₀ + t v_mid + ½ a t² sampled at the step's ends. An impact at
// t_c = s dt therefore sees
//   v(t_c) = v_mid + s Δv_free                                        (1)
// (s = 0 is kick–reflect–kick), changes it by Δv = v(t_c)⁺ − v(t_c), and the
// exact motion after it ends the step at
//   v_end = v⁺ + Δv,   q₁ = q(t_c) + (1 − s) dt v(t_c)⁺ + ½ a ((1 − s) dt)²
//                         = q₀ + dt v_end − s dt Δv                   (2)
// (the a² terms cancel). So the solver resolves the impact with (1), adds Δv
// to the velocity as at s = 0, and moves the impacted bodies by −s dt Δv
// before Bullet's drift; Bullet's q₀ + dt v_end then lands on (2): the step
// drifts with the velocity before the impact up to the contact and with the
// velocity after it from there. For a bounce under constant gravity this
// keeps the energy exactly at any s (a reflection of v(t_c) anywhere on the
// exact parabola keeps ½v² + g z); where a varies with q, (2) uses a(q₀) for
// the whole step, an error of (1 − s) s dt² a'(q) v in the velocity.
//
// The move uses Bullet's own position update (btMultiBody::
// stepPositionsMultiDof, with −s dt Δv as its velocity for a step of 1;
// btTransformUtil::integrateTransform for a rigid body), after Bullet's pass
// has run on the configuration its manifolds were found at, so the world's
// integrateTransforms then drifts from the moved configuration and updates
// the colliders. Velocities and Bullet's pending deltas are left as they are.

#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <LinearMath/btTransformUtil.h>

#include <cstddef>
#include <vector>

#include "../Conversions.h"
#include "MultiBodyGroup.h"

namespace propimpact::bullet_detail {

/// The position moves −s dt Δv of one solver call's impacted blocks.
class ImpactTime {
 public:
  /// Nothing moved yet; sized to \p group's blocks.
  void begin(const MultiBodyGroup& group) {
    m_move.assign(group.velocityCount(), 0);
    m_moved.assign(group.blocks.size(), 0);
  }

  /// Block \p b (index \p block) changed by \p delta in an impact at fraction \p fraction of the step.
  void add(int block, const GroupBlock& b, const Scalar* delta, Scalar fraction, Scalar dt) {
    if (!(fraction > 0)) return;
    for (int k = 0; k < b.dofs; ++k) m_move[b.offset + static_cast<std::size_t>(k)] -= fraction * dt * delta[k];
    m_moved[static_cast<std::size_t>(block)] = 1;
  }

  /// Moves every block recorded (after Bullet's pass, before its drift).
  void apply(MultiBodyGroup& group) {
    for (std::size_t i = 0; i < m_moved.size(); ++i) {
      if (!m_moved[i]) continue;
      const GroupBlock& b = group.blocks[i];
      const Scalar* move = m_move.data() + b.offset;
      if (b.rigidBody) {
        btTransform moved;
        btTransformUtil::integrateTransform(b.rigidBody->getWorldTransform(), toBullet(Vector3(move[0], move[1], move[2])),
                                            toBullet(Vector3(move[3], move[4], move[5])), btScalar(1), moved);
        b.rigidBody->setWorldTransform(moved);
      } else {
        moveMultiBody(*b.multiBody, b, move);
      }
    }
  }

 private:
  // stepPositionsMultiDof reads planar joints' rates from the velocity
  // vector whatever its pqd argument says: the move goes through that vector
  // for one call, and the velocity is put back.
  void moveMultiBody(btMultiBody& mb, const GroupBlock& b, const Scalar* move) {
    const int all = 6 + mb.getNumDofs();
    m_saved.assign(mb.getVelocityVector(), mb.getVelocityVector() + all);
    m_rate.assign(static_cast<std::size_t>(all), 0);
    for (int k = 0; k < b.dofs; ++k) m_rate[static_cast<std::size_t>(b.firstDof + k)] = static_cast<btScalar>(move[k]);
    write(mb, m_rate.data());
    mb.stepPositionsMultiDof(1);
    write(mb, m_saved.data());
  }

  static void write(btMultiBody& mb, const btScalar* v) {
    mb.setBaseOmega(btVector3(v[0], v[1], v[2]));
    mb.setBaseVel(btVector3(v[3], v[4], v[5]));
    for (int i = 0; i < mb.getNumLinks(); ++i) {
      btScalar* joint = mb.getJointVelMultiDof(i);
      const int first = 6 + mb.getLink(i).m_dofOffset;
      for (int k = 0; k < mb.getLink(i).m_dofCount; ++k) joint[k] = v[first + k];
    }
  }

  std::vector<Scalar> m_move;  // flat, as MultiBodyGroup's velocity arrays
  std::vector<char> m_moved;   // per group block
  std::vector<btScalar> m_saved, m_rate;
};

}  // namespace propimpact::bullet_detail
