#pragma once
// The iterative plastic solve for clusters above the dense limit (SPEC §4):
//   min f(λ) = ½ λᵀ A λ + λᵀ s₀  subject to  λ ≥ 0,
// A = J M⁻¹ Jᵀ, s₀ = J v₀ + b; at the minimum the row speeds s = Aλ + s₀ are
// non-negative and complementary to λ, which is the plastic outcome. The
// gradient of f is the current row speed, so the solver reads it from the
// velocity it is building and never forms A.
//
// Method: Dostál's MPRGP (modified proportioning with reduced gradient
// projections; Z. Dostál, "Optimal Quadratic Programming Algorithms", 2009,
// ch. 9) in the Jacobi-scaled variables μ = √d λ, where Â = D^-½ A D^-½ has a
// unit diagonal. Inside the current face it takes conjugate-gradient steps;
// it leaves a face by a feasible half-step and a projected-gradient step of
// length ᾱ ≤ 2/‖Â‖, and releases a bound row by a proportioning step along the
// chopped gradient when that gradient dominates. Why not only Gauss–Seidel:
// on a stack its error travels one contact per sweep, so a column of five
// boxes landing took 150-240 sweeps to the tolerance (the landing benchmark's
// worst step was 3.5 ms of plastic solves); conjugate directions carry it
// through the column in 18-56 iterations.
//
// Energy: every step lowers f (conjugate-gradient and proportioning steps are
// exact line searches along descent directions; a projected-gradient step of
// length ≤ 2/‖Â‖ cannot raise a convex quadratic), and ΔT = f(λ) for b = 0.
// From λ = 0 (or half the elastic impulses, where f ≤ 0 already) the outcome
// therefore has no more energy than the start, up to round-off; PlasticStage
// still measures it and keeps Gauss–Seidel as the last candidate.
//
// Gauss–Seidel runs first: over-relaxed, it converges in 46-84 sweeps on the
// 1,000-sphere pile's clusters, each about 0.4 of an iteration here in time.
// PlasticStage restarts the solve here when Gauss–Seidel's own convergence
// rate predicts a long tail (a stack).
//
// ‖Â‖ is bounded by Gershgorin: |Â_ij| ≤ 1 (Cauchy–Schwarz in the M⁻¹ metric),
// so a row's absolute sum is at most the number of active rows sharing one of
// its groups, and ᾱ = 2 / that bound.

#include <cstdint>
#include <vector>

#include "StageContext.h"

namespace propimpact::detail {

class ProjectedConjugateGradient {
 public:
  /// Continues the solve from multipliers \p compact (per active row, active
  /// order, ≥ 0) whose impulses \p velocity (internal order) already holds;
  /// both are updated in place. Stops when every row's projected gradient, a
  /// unit-normal speed, is within plasticIterativeTolerance × scale, or after
  /// \p iterationCap iterations. Returns the iterations run.
  std::int64_t solve(const StageContext& c, Scalar* velocity, std::vector<Scalar>& compact, std::int64_t iterationCap);
  /// Whether the last solve() stopped because every projected gradient was
  /// within the tolerance; false after the cap, a divergence or a direction
  /// without curvature (no plastic outcome), whose state is finite but not
  /// the plastic outcome.
  [[nodiscard]] bool converged() const { return m_converged; }
  /// Room for \p rows active rows over \p dofs velocity components in \p groups groups.
  void reserve(int rows, Index dofs, int groups);

 private:
  void collectGroups(const StageContext& c);
  [[nodiscard]] Scalar stepBound(const StageContext& c) const;
  void readGradient(const StageContext& c, const Scalar* velocity);
  void multiply(const StageContext& c, const std::vector<Scalar>& direction);
  void moveAlong(const StageContext& c, Scalar step, const std::vector<Scalar>& direction, Scalar* out);
  void expand(const StageContext& c, Scalar alphaBar, Scalar* out);
  void freeGradient(std::vector<Scalar>& into) const;
  /// One iteration's largest projected gradient, ‖chopped‖² and the reduced free gradient's product.
  struct Measures {
    Scalar worst = 0;
    Scalar chopped = 0;
    Scalar reducedFree = 0;
  };
  Measures measure(std::size_t m, Scalar alphaBar);
  bool proportion(const StageContext& c, Scalar chopped, Scalar* out);
  bool conjugateOrExpand(const StageContext& c, Scalar alphaBar, Scalar* out);

  std::vector<Scalar> m_mu, m_gradient, m_direction, m_product, m_chopped, m_previous;
  std::vector<Scalar> m_moved;  // W D^-½ times the last direction multiplied (internal velocity)
  std::vector<int> m_groupRows;
  std::vector<int> m_touchedGroups;
  bool m_converged = false;
};

}  // namespace propimpact::detail
