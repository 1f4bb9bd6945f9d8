#pragma once
// Helpers shared by the core physics tests: random SPD matrices, kinetic-metric
// algebra computed from scratch (not through the resolver), small builders.
// Defined once in TestSupport.cpp: their Eigen decompositions cost each
// including test file about 9 s of compilation when they were inline.

#include <random>

#include "propimpact/core/Types.h"

namespace propimpact::test {

Scalar uniform(std::mt19937_64& rng, Scalar lo, Scalar hi);
int uniformInt(std::mt19937_64& rng, int lo, int hi);
VectorX randomVector(std::mt19937_64& rng, Index n, Scalar scale = 1);
MatrixX randomMatrix(std::mt19937_64& rng, Index rows, Index cols);

// Eigenvalues spread over [1/spread, 1] times a random overall scale, so both
// conditioning and units vary between problems.
MatrixX randomSpd(std::mt19937_64& rng, Index n, Scalar spread = 100);
Matrix3 randomRotation(std::mt19937_64& rng);
Vector3 randomUnit3(std::mt19937_64& rng);

// <a, b>_g = a M⁻¹ bᵀ for covectors stored as column vectors.
Scalar gInner(const MatrixX& minv, const VectorX& a, const VectorX& b);
Scalar gNorm(const MatrixX& minv, const VectorX& a);
VectorX gUnit(const MatrixX& minv, const VectorX& a);

// Energy ½ vᵀ M v.
Scalar energy(const MatrixX& m, const VectorX& v);

// Largest approach of any row in unit-normal speed: the scale the feasibility
// tolerance is relative to (together with ||p||_g).
Scalar feasibilityScale(const MatrixX& minv, const MatrixX& m, const MatrixX& j, const VectorX& v,
                        const VectorX& bias);

// Smallest unit-normal relative velocity over the rows, in units of scale
// (negative means some contact still approaches). Rows with no admissible
// motion are skipped.
Scalar worstUnitVelocity(const MatrixX& minv, const MatrixX& j, const VectorX& v, const VectorX& bias);

}  // namespace propimpact::test
