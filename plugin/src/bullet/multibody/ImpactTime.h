#pragma once
// Stage "impact time" of the multibody solver: an impact inside the step.
//
// Bullet's step is a kick then a drift, v₁ = v₀ + dt a(q₀), q₁ = q₀ + dt v₁:
// a leapfrog (velocity Verlet) whose velocity at q₀ is w₀ = v₁ − ½ dt a(q₀)
// (KickMemory.h). A contact found in pass k not yet touching but closing a
// fraction s into the step (MultiBodyGroup.h) is left alone in that pass;
// Bullet drifts its bodies into the overlap, and pass k + 1 resolves it with
// two Verlet sub-steps, s dt before the impact and (1 − s) dt after it. In
// velocity units (k₀ = dt a(q₀) the kick of pass k, k₁ that of pass k + 1,
// taken by Bullet at q₁, the overlap, v_d = v₁ the velocity Bullet drifted
// with):
//   F      = (1 − s) k₀ + s k₁       dt a(q_c): a along the straight drift    (1)
//   v(t_c) = w₀ + ½ s (k₀ + F)       the velocity at the contact               (2)
// The impact maps v(t_c) to v⁺ (the core, exact energy per cluster), and the
// second sub-step ends the step at
//   q₁'    = q₀ + s dt (w₀ + ½ s k₀) + (1 − s) dt (v⁺ + ½ (1 − s) F)
//   w₁     = v⁺ + ½ (1 − s)(F + dt a(q₁')).
// Bullet's next drift needs v₂ = w₁ + ½ dt a(q₁'), but a(q₁') is known only
// once Bullet has computed it, at pass k + 2. So pass k + 1 takes F for it,
//   v₂     = v⁺ + (3/2 − s) F,                                                 (3)
// moves the bodies from q₁ = q₀ + dt v_d to q₁' (Bullet's own position update,
// after its pass has run on the configuration its manifolds are from),
//   Δq     = dt [s (w₀ + ½ s k₀) + (1 − s)(v⁺ + ½ (1 − s) F) − v_d],          (4)
// and pass k + 2, whose kick k₂ = dt a(q₂) is taken at q₂ = q₁' + dt v₂ on the
// same straight line from q_c, corrects v₂ by ½ (2 − s) dt (a(q₁') − a(q_c))
// with a(q₁') interpolated between q_c and q₂ ((1 − s) : 1):
//   δv     = ½ (1 − s)(k₂ − F).                                               (5)
// With a constant force, F = k₀ = k₁ = k₂, δv = 0, Δq = 0 for a body the
// impact does not change, and the outcome is the exact motion: a bounce keeps
// its apex. Otherwise the outcome is the Verlet sub-steps' to
// O(dt³), except the velocity Bullet holds for the one step between passes
// k + 1 and k + 2, which carries F in place of dt a(q₁'). (A 1-D model of the
// issue-13 pendulums, tests/multibody/pendulum_exchange_model.py: resolved
// at the step's start configuration the pair's energy drifts by
// (ω dt)² s(2s − 1) per impact; with these sub-steps it keeps the free
// swing's.)

#include <BulletDynamics/Featherstone/btMultiBody.h>

#include <cstddef>
#include <vector>

#include "MultiBodyGroup.h"
#include "propimpact/core/Types.h"

namespace propimpact::bullet_detail {

/// The sub-stepped impact of one solver call's located clusters.
class ImpactTime {
 public:
  /// Eq. 5: the correction pass k + 2 owes one coordinate.
  [[nodiscard]] static Scalar correction(Scalar s, Scalar kick, Scalar forceAtContact) {
    return 0.5 * (1 - s) * (kick - forceAtContact);
  }

  /// Nothing located yet; sized to \p group.
  void begin(const MultiBodyGroup& group);
  /// Eqs. 1–2 for block \p b at fraction \p s: v(t_c) into \p velocity (b.dofs); keeps F.
  /// Nothing is moved or carried over for the block unless afterImpact follows.
  void atContact(const MultiBodyGroup& group, const GroupBlock& b, Scalar s, Scalar* velocity);
  /// Eqs. 3–4: Bullet's velocity after the impact \p after (v⁺) into \p velocity; keeps the move.
  void afterImpact(const MultiBodyGroup& group, const GroupBlock& b, const Scalar* after, Scalar* velocity);
  /// Moves every located block by eq. 4 (after Bullet's pass, before its drift).
  void apply(MultiBodyGroup& group);
  /// Block \p block's F in its 6 + n coordinates and its fraction (for KickMemory), or null.
  [[nodiscard]] const Scalar* forceAtContact(const MultiBodyGroup& group, int block, Scalar& s);

 private:
  void moveMultiBody(btMultiBody& mb, const GroupBlock& b, const Scalar* move);

  std::vector<Scalar> m_force, m_move;  // flat, as MultiBodyGroup's velocity arrays
  std::vector<Scalar> m_fraction;       // per group block, < 0: not located
  std::vector<char> m_written;          // per group block: afterImpact ran (its problem was resolved)
  std::vector<Scalar> m_full;           // one block's F in 6 + n coordinates
  std::vector<btScalar> m_saved, m_rate;
};

inline void ImpactTime::begin(const MultiBodyGroup& group) {
  m_force.assign(group.velocityCount(), 0);
  m_move.assign(group.velocityCount(), 0);
  m_fraction.assign(group.blocks.size(), -1);
  m_written.assign(group.blocks.size(), 0);
}

inline void ImpactTime::atContact(const MultiBodyGroup& group, const GroupBlock& b, Scalar s, Scalar* velocity) {
  const Scalar* end = group.previousEnd(b);
  const Scalar* k0 = group.previousKick(b);
  const Scalar* k1 = group.kick(b);
  Scalar* force = m_force.data() + b.offset;
  for (int k = 0; k < b.dofs; ++k) {
    force[k] = (1 - s) * k0[k] + s * k1[k];
    velocity[k] = end[k] - 0.5 * k0[k] + 0.5 * s * (k0[k] + force[k]);
  }
  m_fraction[static_cast<std::size_t>(&b - group.blocks.data())] = s;
}

inline void ImpactTime::afterImpact(const MultiBodyGroup& group, const GroupBlock& b, const Scalar* after,
                                    Scalar* velocity) {
  const auto block = static_cast<std::size_t>(&b - group.blocks.data());
  const Scalar s = m_fraction[block];
  m_written[block] = 1;
  const Scalar* end = group.previousEnd(b);
  const Scalar* k0 = group.previousKick(b);
  const Scalar* force = m_force.data() + b.offset;
  Scalar* move = m_move.data() + b.offset;
  const Scalar dt = group.dt();
  for (int k = 0; k < b.dofs; ++k) {
    velocity[k] = after[k] + (1.5 - s) * force[k];
    const Scalar w0 = end[k] - 0.5 * k0[k];
    move[k] = dt * (s * (w0 + 0.5 * s * k0[k]) + (1 - s) * (after[k] + 0.5 * (1 - s) * force[k]) - end[k]);
  }
}

inline const Scalar* ImpactTime::forceAtContact(const MultiBodyGroup& group, int block, Scalar& s) {
  s = m_fraction[static_cast<std::size_t>(block)];
  if (s < 0 || !m_written[static_cast<std::size_t>(block)]) return nullptr;
  const GroupBlock& b = group.blocks[static_cast<std::size_t>(block)];
  m_full.assign(static_cast<std::size_t>(6 + b.multiBody->getNumDofs()), 0);
  for (int k = 0; k < b.dofs; ++k)
    m_full[static_cast<std::size_t>(b.firstDof + k)] = m_force[b.offset + static_cast<std::size_t>(k)];
  return m_full.data();
}

inline void ImpactTime::apply(MultiBodyGroup& group) {
  for (std::size_t i = 0; i < m_fraction.size(); ++i) {
    const GroupBlock& b = group.blocks[i];
    if (m_fraction[i] >= 0 && m_written[i]) moveMultiBody(*b.multiBody, b, m_move.data() + b.offset);
  }
}

// stepPositionsMultiDof reads planar joints' rates from the velocity vector
// whatever its pqd argument says: the move goes through that vector for one
// call of a unit step, and the velocity is put back.
inline void ImpactTime::moveMultiBody(btMultiBody& mb, const GroupBlock& b, const Scalar* move) {
  const int all = 6 + mb.getNumDofs();
  m_saved.assign(mb.getVelocityVector(), mb.getVelocityVector() + all);
  m_rate.assign(static_cast<std::size_t>(all), 0);
  for (int k = 0; k < b.dofs; ++k) m_rate[static_cast<std::size_t>(b.firstDof + k)] = static_cast<btScalar>(move[k]);
  const auto write = [&mb](const btScalar* v) {
    mb.setBaseOmega(btVector3(v[0], v[1], v[2]));
    mb.setBaseVel(btVector3(v[3], v[4], v[5]));
    for (int i = 0; i < mb.getNumLinks(); ++i)
      for (int k = 0; k < mb.getLink(i).m_dofCount; ++k)
        mb.getJointVelMultiDof(i)[k] = v[6 + mb.getLink(i).m_dofOffset + k];
  };
  write(m_rate.data());
  mb.stepPositionsMultiDof(1);
  write(m_saved.data());
}

}  // namespace propimpact::bullet_detail
