#pragma once
// Where the multibody kick is (SPEC §7, "Where the multibody kick is").
//
// btMultiBodyDynamicsWorld::solveConstraints runs solveExternalForces before
// any solver call: its articulated-body pass adds gravity, applied forces,
// damping and the velocity-dependent terms, times dt, to every awake
// multibody's generalized velocity v (Bullet's 6 + n vector), and clears the
// forces. So a multibody reaches the solver with this step's whole free
// change Δv_free already in v, and the forces that produced it are gone.
// A btRigidBody in the same world still gets its kick inside the solver.
//
// Kick–reflect–kick for a multibody. Splitting the step's free change in two
// halves around the impact, the impact must see the mid-step velocity
//   v_mid = v − ½ Δv_free,
// and the step must end at v_mid⁺ + ½ Δv_free = v + (v_mid⁺ − v_mid): the
// impact's change is added to v as it stands, and nothing else is owed
// (Bullet's pass adds no kick to a multibody). For a ball of constant
// gravity this is exactly the rigid solver's half kick before and after the
// reflection, which keeps the apex of a bounce from drifting.
//
// Δv_free is not stored by Bullet. Between the end of one solver pass and the
// next pass's call, a multibody's velocity changes only by Bullet's pending
// solver deltas (m_deltaV, applied by processDeltaVeeMultiDof2 after the
// pass) and by the next articulated-body pass. So this memory records, at the
// end of each pass, v_end = v + m_deltaV per multibody, and the next pass
// takes Δv_free = v − v_end. It is known only when the multibody was solved
// in the previous pass with the same number of dofs: the first pass after it
// appears, wakes up, or is forgotten (forget()) has no known kick. A velocity
// the application sets between steps (setJointVel, setBaseVel) is read as
// kick; call PropagativeMultiBodySolver::forgetKick for that body.
//
// An impact inside the step generalises this (ImpactTime.h): at a fraction s
// of the step the impact sees v_mid + ½ s (Δv_free + dt a(q_c)) (eq. 2), which
// is v_mid at s = 0, and the step ends as two Verlet sub-steps. For that the
// memory also carries from one pass to the next each multibody's kick of the
// recorded pass, the fraction of that pass's step at which one of its
// contacts was found to close (resolved by the next pass), and, for an
// impact so resolved, the force it took at the step's end (corrected by the
// next pass, once Bullet has computed the force where the bodies went).
//
// The Zeno threshold (SPEC §7) follows: this step's free change at a contact
// is J Δv_free (and each body's point kick), the same quantity the rigid
// solver reads from the forces, so "approaching faster than the step's
// external forces alone would make it" keeps its meaning in a multibody.

#include <BulletDynamics/Featherstone/btMultiBody.h>

#include <cstdint>
#include <vector>

#include "propimpact/core/Types.h"

namespace propimpact::bullet_detail {

/// What the previous pass left for a multibody, all in its 6 + n coordinates.
struct PreviousPass {
  const Scalar* end = nullptr;             ///< v + m_deltaV at its end: the velocity Bullet drifted with
  const Scalar* kick = nullptr;            ///< its Δv_free; null when it had none
  Scalar locate = -1;                      ///< ≥ 0: a contact found closing this far into its step
  const Scalar* forceAtContact = nullptr;  ///< dt a(q_c) of an impact it resolved inside its step, or null
  Scalar located = -1;                     ///< that impact's fraction s
};

/// Each multibody's velocity at the end of the previous solver pass, and
/// what an impact inside the step carries over (ImpactTime.h).
class KickMemory {
 public:
  /// A new solver pass (one per Bullet substep).
  void beginPass();
  /// Δv_free of \p body in its 6 + n coordinates into \p kick; false when unknown.
  bool kick(const btMultiBody& body, Scalar* kick) const;
  /// What the previous pass recorded for \p body; false when nothing (as kick()).
  bool previous(const btMultiBody& body, PreviousPass& out) const;
  /// After Bullet's pass: records v + m_deltaV of \p body for the next pass,
  /// with this pass's \p kick (null if unknown), a contact's fraction \p locate
  /// (< 0: none), and an in-step impact's \p forceAtContact (null: none) at \p located.
  void record(const btMultiBody& body, const Scalar* kick, Scalar locate, const Scalar* forceAtContact,
              Scalar located);
  /// Drops what is known of \p body (its next pass has no known kick).
  void forget(const btMultiBody* body);

 private:
  struct Entry {
    const btMultiBody* body = nullptr;
    std::uint64_t pass = 0;
    int dofs = 0;
    std::size_t offset = 0;  // into m_velocities: end, kick and force at contact, dofs each
    bool kickKnown = false;
    Scalar locate = -1;
    Scalar located = -1;
  };
  [[nodiscard]] const Entry* find(const btMultiBody* body) const;

  std::uint64_t m_pass = 0;
  std::vector<Entry> m_entries;  // sorted by body
  std::vector<Scalar> m_velocities;
};

}  // namespace propimpact::bullet_detail
