#pragma once
/// \file ImpactResolver.h
/// The propagative impact resolver of Seghete & Murphey (seed 000) with the
/// corrections of SPEC.md.
///
/// Elastic outcome (eq. 14): p+ = p− Γ(w1)…Γ(wk), each Γ the reflection map
///   v ← v − 2 (J_i v + b_i) / (J_i M⁻¹ J_iᵀ) · M⁻¹ J_iᵀ   (eq. 8),
/// applied across a still-infeasible contact chosen by the ordering policy,
/// until every *touching* contact is feasible (Correction 1). A reflection
/// preserves the kinetic inner product (Lemma 5), so energy is conserved to
/// round-off. Two contacts terminate within ⌈π/γ⌉ reflections (Thm 1); for more
/// there is no proof, so a cap applies and, when hit, the plastic outcome from
/// the state reached is taken (feasible, no energy gained) and reported.
///
/// Plastic outcome (Correction 2): min ½||v+ − v−||²_M s.t. J v+ + b ≥ 0,
/// solved exactly by an active-set (Lawson–Hanson) method on the dual LCP.
///
/// Inelastic outcome (eq. 16–17 with Correction 3): p+ = p_p + α (p_e − p_p)
/// with α ∈ [0, 1] the root of ||p+||²_g = ||p_p||²_g + R² (||p0||²_g − ||p_p||²_g).
/// When p_p ⟂ (p_e − p_p) and the elastic energy equals the initial energy this
/// gives α = R in closed form. With a kinematic bias (b ≠ 0) energy is not a
/// conserved quantity of the dynamic bodies, and α = R is used (Newton's law
/// for one contact: J v+ + b = −R (J v− + b)).
///
/// Mixed coefficients: one R per problem, the average of the contacts'
/// coefficients weighted by their elastic impulses (contacts that carried no
/// impulse do not dilute it); if no contact carried any, the smallest
/// coefficient. Any R in [0, 1] keeps the outcome feasible (convex cone) and
/// never gains energy, and a uniform R is reproduced exactly.
///
/// Degenerate rows: exact duplicates (same blocks, coefficients and bias) are
/// merged and share the impulse equally; rows with zero norm in the admissible
/// metric cannot be acted on and are ignored (counted). Opposing rows (a body
/// wedged between walls) have no elastic outcome: the cap ends the ping-pong
/// and the plastic fallback runs (reported). Dependent rows are fine for the
/// plastic solve, which only ever activates independent rows.
///
/// A resolver owns its workspace: reuse one object (and one ImpactResult) per
/// thread and a resolution makes no heap allocation once capacities have grown.

#include <memory>

#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResult.h"
#include "propimpact/core/ResolveOptions.h"

namespace propimpact {

/// Resolves impact problems; not thread-safe, one per thread.
class ImpactResolver {
 public:
  ImpactResolver();
  ~ImpactResolver();
  ImpactResolver(ImpactResolver&&) noexcept;
  ImpactResolver& operator=(ImpactResolver&&) noexcept;
  ImpactResolver(const ImpactResolver&) = delete;
  ImpactResolver& operator=(const ImpactResolver&) = delete;

  /// Sizes the resolver's buffers and \p result for any problem within
  /// \p bounds resolved with \p options (capacity only), so that resolving
  /// one allocates nothing: a world step calls it with its island's bounds. A propagation longer than
  /// kSequencePerContact reflections per contact still grows
  /// ImpactResult::sequence, and joined groups (joints) and dense blocks
  /// size their own matrices when they first meet them.
  void reserve(const ProblemBounds& bounds, const ResolveOptions& options, ImpactResult& result);
  static constexpr int kSequencePerContact = 4;

  /// Resolves \p problem into \p result (whose storage is reused). Throws
  /// InputError only for invalid options; a valid problem always resolves.
  void resolve(const ImpactProblem& problem, const ResolveOptions& options, ImpactResult& result);

  /// Convenience overload returning a fresh result.
  [[nodiscard]] ImpactResult resolve(const ImpactProblem& problem, const ResolveOptions& options = {});

 private:
  struct Stages;
  std::unique_ptr<Stages> m_stages;
};

}  // namespace propimpact
