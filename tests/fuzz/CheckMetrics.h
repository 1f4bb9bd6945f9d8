// The metrics the fuzz check measures a resolution in (ProblemCheck.cpp):
// the joints' admissible inverse mass, each row's unit normal and its
// round-off reference, and the size of merged rows' shared impulses.
#pragma once

#include "ProblemFuzzer.h"

namespace propimpact::fuzz::detail {

/// What the joints do to the metric, from one factorisation: the admissible
/// inverse mass and the largest singular value the rank cut-off drops. Both
/// public helpers and check() take them from here, so check() factorises M⁻¹
/// and decomposes A = LᵀBᵀ once per case instead of once per helper.
struct JointMetricCheck {
  MatrixX admissible;
  MatrixX admissibleFactor;  // F with admissible = F Fᵀ; empty without joints
  // L (A⁺)ᵀ = L U_r Σ_r⁻¹ V_rᵀ: times B v, the joints' violating part of v,
  // C v = M⁻¹Bᵀ(BM⁻¹Bᵀ)⁺B v, within the rank cut-off; empty without joints.
  MatrixX constraintTransfer;
  Scalar dropped = 0;
};

JointMetricCheck jointMetric(const ImpactProblem& p, const MatrixX& minv);

/// diag(J W Jᵀ) without the m×m product: O(m n²), not O(m n² + m² n).
VectorX rowMetric(const MatrixX& j, const MatrixX& w);

/// 1 where d is above 1e-13 of the row's reference, else 0.
VectorX movableFrom(const VectorX& d, const VectorX& references);

/// rowReferences (ProblemFuzzer.h) with M⁻¹ already at hand.
VectorX rowReferences(const ImpactProblem& p, const MatrixX& j, const MatrixX& minv);

/// Σ λᵢ·|M⁻¹Jᵢᵀ|·√λmax(M over the blocks row i moves) (see the definition).
Scalar mergedImpulseSize(const ImpactProblem& p, const MatrixX& mass, const MatrixX& minv, const MatrixX& j,
                         const VectorX& impulses);

}  // namespace propimpact::fuzz::detail
