#pragma once
// Helpers shared by the core physics tests: random SPD matrices, kinetic-metric
// algebra computed from scratch (not through the resolver), small builders.

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "propimpact/core/Types.h"

namespace propimpact::test {

inline Scalar uniform(std::mt19937_64& rng, Scalar lo, Scalar hi) {
  return std::uniform_real_distribution<Scalar>(lo, hi)(rng);
}

inline int uniformInt(std::mt19937_64& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

inline VectorX randomVector(std::mt19937_64& rng, Index n, Scalar scale = 1) {
  std::normal_distribution<Scalar> normal(0, scale);
  VectorX v(n);
  for (Index k = 0; k < n; ++k) v[k] = normal(rng);
  return v;
}

inline MatrixX randomMatrix(std::mt19937_64& rng, Index rows, Index cols) {
  std::normal_distribution<Scalar> normal(0, 1);
  MatrixX m(rows, cols);
  for (Index c = 0; c < cols; ++c)
    for (Index r = 0; r < rows; ++r) m(r, c) = normal(rng);
  return m;
}

// Eigenvalues spread over [1/spread, 1] times a random overall scale, so both
// conditioning and units vary between problems.
inline MatrixX randomSpd(std::mt19937_64& rng, Index n, Scalar spread = 100) {
  const MatrixX a = randomMatrix(rng, n, n);
  const Eigen::HouseholderQR<MatrixX> qr(a);
  const MatrixX q = qr.householderQ();
  VectorX values(n);
  for (Index k = 0; k < n; ++k) values[k] = std::pow(spread, -uniform(rng, 0, 1));
  const Scalar overall = std::pow(10.0, uniform(rng, -1, 1));
  MatrixX m = overall * q * values.asDiagonal() * q.transpose();
  return 0.5 * (m + m.transpose());
}

inline Matrix3 randomRotation(std::mt19937_64& rng) {
  const MatrixX a = randomMatrix(rng, 3, 3);
  const Eigen::HouseholderQR<MatrixX> qr(a);
  Matrix3 q = qr.householderQ();
  if (q.determinant() < 0) q.col(0) = -q.col(0);
  return q;
}

inline Vector3 randomUnit3(std::mt19937_64& rng) {
  Vector3 v = randomVector(rng, 3);
  while (v.norm() < 1e-3) v = randomVector(rng, 3);
  return v.normalized();
}

// <a, b>_g = a M⁻¹ bᵀ for covectors stored as column vectors.
inline Scalar gInner(const MatrixX& minv, const VectorX& a, const VectorX& b) { return a.dot(minv * b); }
inline Scalar gNorm(const MatrixX& minv, const VectorX& a) { return std::sqrt(gInner(minv, a, a)); }
inline VectorX gUnit(const MatrixX& minv, const VectorX& a) { return a / gNorm(minv, a); }

// Energy ½ vᵀ M v.
inline Scalar energy(const MatrixX& m, const VectorX& v) { return 0.5 * v.dot(m * v); }

// Largest approach of any row in unit-normal speed: the scale the feasibility
// tolerance is relative to (together with ||p||_g).
inline Scalar feasibilityScale(const MatrixX& minv, const MatrixX& m, const MatrixX& j, const VectorX& v,
                               const VectorX& bias) {
  Scalar scale = std::sqrt(v.dot(m * v));
  for (Index i = 0; i < j.rows(); ++i) {
    const Scalar d = j.row(i).dot(minv * j.row(i).transpose());
    if (d > 0) scale = std::max(scale, std::abs(j.row(i).dot(v) + bias[i]) / std::sqrt(d));
  }
  return scale;
}

// Smallest unit-normal relative velocity over the rows, in units of scale
// (negative means some contact still approaches). Rows with no admissible
// motion are skipped.
inline Scalar worstUnitVelocity(const MatrixX& minv, const MatrixX& j, const VectorX& v, const VectorX& bias) {
  Scalar worst = std::numeric_limits<Scalar>::infinity();
  for (Index i = 0; i < j.rows(); ++i) {
    const Scalar d = j.row(i).dot(minv * j.row(i).transpose());
    if (!(d > 1e-13 * j.row(i).squaredNorm() * minv.cwiseAbs().maxCoeff())) continue;
    worst = std::min(worst, (j.row(i).dot(v) + bias[i]) / std::sqrt(d));
  }
  return worst;
}

}  // namespace propimpact::test
