#pragma once
// Stage "blend": the inelastic outcome (seed 000, eq. 16–17, SPEC Correction 3)
//   p+ = p_p + α (p_e − p_p),
// with α ∈ [0, 1] the root of eq. (16) itself,
//   ||p_p + α (p_e − p_p)||²_g = ||p_p||²_g + R² (||p0||²_g − ||p_p||²_g),
// which exists because the left side runs from ||p_p||² (α = 0) to ||p_e||² =
// ||p0||² (α = 1). Where p_p ⟂ (p_e − p_p) it is α = R in closed form. With a
// kinematic bias energy is not conserved by the dynamic bodies and α = R
// (Newton's law for one contact: J v+ + b = −R (J v− + b)).
//
// Mixed coefficients: one R per cluster, the average of the contacts'
// coefficients weighted by their elastic impulses (contacts that carried none
// do not dilute it); if none carried any, the smallest. A uniform R is
// reproduced exactly, and any R in [0, 1] keeps the outcome feasible (convex
// cone) and never gains energy.

#include <vector>

#include "ContactRows.h"
#include "SolverBodies.h"

namespace propimpact::detail {

/// The cluster's coefficient R from its rows and their elastic impulses.
[[nodiscard]] Scalar mixedRestitution(const ContactRows& rows, const std::vector<Scalar>& elasticImpulse);

/// Solves eq. (16) for α.
class Blend {
 public:
  [[nodiscard]] Scalar alpha(const SolverBodies& bodies, bool anyBias, const Eigen::Ref<const VectorX>& elastic,
                             const Eigen::Ref<const VectorX>& plastic, Scalar energyBefore, Scalar energyPlastic,
                             Scalar restitution);

  /// Room for \p dofs velocity components.
  void reserve(Index dofs) { m_difference.reserve(static_cast<std::size_t>(dofs)); }

 private:
  std::vector<Scalar> m_difference;
};

}  // namespace propimpact::detail
