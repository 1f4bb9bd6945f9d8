#pragma once
/// \file Ideal.h
/// The reference outcomes a simulated impact is compared against.

#include <propimpact/core/Types.h>

namespace propimpact::compare {

/// The propagative outcome (SPEC §3–5) from the core: elastic propagation,
/// plastic LCP and the energy-law blend for coefficient \p cor.
[[nodiscard]] VectorX propagativeIdeal(const MatrixX& M, const VectorX& v, const MatrixX& J, double cor);

/// The simultaneous Newton-restitution LCP outcome that an exact LCP solver
/// aims at: v+ = v + M⁻¹Jᵀλ, λ ≥ 0, w = J v+ + cor·J v ≥ 0, λᵀw = 0.
/// Solved exactly by enumerating active sets (small problems only, ≤ 16 rows).
[[nodiscard]] VectorX simultaneousLcpIdeal(const MatrixX& M, const VectorX& v, const MatrixX& J, double cor);

/// Kinetic norm ||v||_M = sqrt(vᵀ M v) (equals ||p||_g for p = M v).
[[nodiscard]] double kineticNorm(const MatrixX& M, const VectorX& v);

}  // namespace propimpact::compare
