#pragma once
/// \file ReflectionMap.h
/// Dense analysis helpers for one contact (seed 000, Sec. III).

#include "propimpact/core/Types.h"

namespace propimpact {

/// Kinetic inner product of covectors, <a, b>_g = a M⁻¹ bᵀ.
[[nodiscard]] Scalar kineticInner(const Eigen::Ref<const MatrixX>& inverseMass, const Eigen::Ref<const VectorX>& a,
                                  const Eigen::Ref<const VectorX>& b);

/// The reflection map Γ(u) acting on momentum row covectors, p+ = p Γ(u):
/// Γ(u) = I − (1 + R) M⁻¹ uᵀ u / (u M⁻¹ uᵀ) (eq. 8 for R = 1). Γ² = I and
/// Γ(αu) = Γ(u) (eq. 9); for R = 1 it preserves <·,·>_g (Lemma 5).
[[nodiscard]] MatrixX reflectionMap(const Eigen::Ref<const MatrixX>& inverseMass, const Eigen::Ref<const VectorX>& u,
                                    Scalar restitution = 1);

}  // namespace propimpact
