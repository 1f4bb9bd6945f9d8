#pragma once
// Stage "energy guard": the last word on "no energy gained" for problems with
// dense blocks (a multibody's generalized coordinates, SPEC §2) or rigid
// bodies with immobile axes (BlockLayout::immobileAxes).
//
// A reflection along w̃ = M⁻¹Jᵀ keeps ½vᵀMv only as well as w̃ is computed,
// to about ε·κ(M) of the impulse's share: one elastic reflection through a
// dense block of κ(M) ≈ 7e13 gained 9.9e-7 of the energy (fuzz finding
// elastic-7dof-block-of-kappa-7e13-one-reflection-energy-gain-9.9e-7), and 53
// through a block of κ = 7.5e9 gained 1.16e-9. Scalar cannot even see such a
// gain: ½vᵀMv evaluated in Scalar errs by ε·|v|ᵀ|M||v|, 5e-4 of the energy in
// the first. So the guard measures the outcome's change of energy in long
// double against the mass the problem was given for each dense block (a rigid
// block, whose reflections use the M⁻¹ it was given, in Scalar), and when the
// gain exceeds kGuardFloor of the start's energy it moves the outcome along
// the blend's own line, p_p + α (p_e − p_p), to the α at which the energy is
// the start's (eq. 16 with R = 1):
//   - feasible: a convex combination of the elastic and the plastic outcome,
//     each feasible (SPEC §4), as every blend is;
//   - momentum: its impulses are α λ_e + (1 − α) λ_p, as every blend's;
//   - energy: E(α) − E0 = A + α B + ½ α² C with A = E(p_p) − E0 ≤ 0, C ≥ 0,
//     all in long double, so the larger root α* exists in [0, α]. The root
//     aims below the start by the round-off of storing the blend in Scalar,
//     2ε·Σ|vᵢ|·|(M v)ᵢ|, so the stored outcome ends at or below the start
//     (α = 0 when the plastic outcome is within that margin). A plastic
//     outcome that itself measures above the start leaves α as it was.
// Not applied with a bias or prescribed motion, where energy is not a
// conserved quantity of the impact (PlasticStage::conservesEnergy).
//
// Rigid bodies: their reflections use the given M⁻¹ and keep the energy to
// ε, but velocity along an axis no impulse moves (a locked factor, an
// inertia axis cut as infinite) is prescribed motion, which a contact that
// sees it turns into work as a moving paddle does: 2·(J v)·s / d per
// reflection, s the contact's speed from that motion. Below 1e-8 of the
// scale per unit normal it counts as round-off, not as a bias, yet that work
// reaches 4e-8 of the energy: a spin of 7.5e-12 about the cut axis of a body
// whose locked angular metric had a principal value of 2e-21 gained 4.6e-9
// in one reflection (fuzz finding
// 42dof-one-contact-single-reflection-energy-gain-4.6e-9). So the guard
// measures those clusters too (without joints: ImpactResolver.cpp says
// why), with each rigid M from its given M⁻¹ as the pseudo-inverse the
// problem defines, which gives such motion no energy.

#include <vector>

#include "propimpact/core/ImpactProblem.h"

namespace propimpact::detail {

/// Relative gain (of the start's energy) above which the guard acts: far above
/// the long double measure's own round-off, far below the 1e-9 a user could see.
constexpr Scalar kGuardFloor = 1e-12;

/// Measures energy changes with dense blocks in long double and finds the
/// blend that keeps the start's energy.
class EnergyGuard {
 public:
  /// E(after) − E(before), problem order.
  [[nodiscard]] long double change(const ImpactProblem& problem, const Scalar* before, const Scalar* after);

  /// The largest α' in [0, \p alpha] with E(plastic + α' (elastic − plastic))
  /// ≤ E(start), problem order.
  [[nodiscard]] Scalar energyKeepingAlpha(const ImpactProblem& problem, const Scalar* start, const Scalar* elastic,
                                          const Scalar* plastic, Scalar alpha);

 private:
  /// xᵀ M y over block \p b, in long double against the M the problem was
  /// given (xᵀ |M| y with \p absolute).
  [[nodiscard]] long double inner(const ImpactProblem& problem, int b, const long double* x, const long double* y,
                                  bool absolute = false);

  std::vector<long double> m_mass;  // one block's M, column-major; grows only
  std::vector<long double> m_delta, m_mid, m_direction, m_plastic;
};

}  // namespace propimpact::detail
