#pragma once
// M⁻¹ = L Lᵀ for a dense block from the Cholesky factor of its mass,
// M = C Cᵀ, L = C⁻ᵀ: exact to round-off of C whatever κ(M). An
// eigen-decomposition of M⁻¹ loses every eigenvalue below ε·max|M⁻¹| to
// round-off, and cutting them (as is right for a rigid body's locked or
// infinite-inertia axes) made the heaviest modes of a block with κ(M) = 7e13
// immobile in the plastic solve while M⁻¹ moves them: rows that saw such a
// mode then had no feasible outcome (fuzz findings
// 16dof-3-joints-plastic-residual-2.6e-5-of-scale-seed-9 and its family). Used by the
// joints' factor L U⊥ (JointMetric.cpp) and by the plastic stage for a dense
// block outside joints (PlasticStage.cpp).

#include <Eigen/Cholesky>

#include "propimpact/core/Types.h"

namespace propimpact::detail {

/// C⁻¹ (= Lᵀ) of the SPD block mass \p mass (n × n, column-major) into \p inverseCholesky.
inline void inverseCholeskyFactor(const Scalar* mass, Index n, Eigen::Ref<MatrixX> inverseCholesky) {
  const Eigen::LLT<MatrixX> llt(Eigen::Map<const MatrixX>(mass, n, n));
  inverseCholesky.setIdentity();
  llt.matrixL().solveInPlace(inverseCholesky);
}

}  // namespace propimpact::detail
