#include "TestSupport.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

namespace propimpact::test {

Scalar uniform(std::mt19937_64& rng, Scalar lo, Scalar hi) {
  return std::uniform_real_distribution<Scalar>(lo, hi)(rng);
}

int uniformInt(std::mt19937_64& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

VectorX randomVector(std::mt19937_64& rng, Index n, Scalar scale) {
  std::normal_distribution<Scalar> normal(0, scale);
  VectorX v(n);
  for (Index k = 0; k < n; ++k) v[k] = normal(rng);
  return v;
}

MatrixX randomMatrix(std::mt19937_64& rng, Index rows, Index cols) {
  std::normal_distribution<Scalar> normal(0, 1);
  MatrixX m(rows, cols);
  for (Index c = 0; c < cols; ++c)
    for (Index r = 0; r < rows; ++r) m(r, c) = normal(rng);
  return m;
}

MatrixX randomSpd(std::mt19937_64& rng, Index n, Scalar spread) {
  const MatrixX a = randomMatrix(rng, n, n);
  const Eigen::HouseholderQR<MatrixX> qr(a);
  const MatrixX q = qr.householderQ();
  VectorX values(n);
  for (Index k = 0; k < n; ++k) values[k] = std::pow(spread, -uniform(rng, 0, 1));
  const Scalar overall = std::pow(10.0, uniform(rng, -1, 1));
  MatrixX m = overall * q * values.asDiagonal() * q.transpose();
  return 0.5 * (m + m.transpose());
}

Matrix3 randomRotation(std::mt19937_64& rng) {
  const MatrixX a = randomMatrix(rng, 3, 3);
  const Eigen::HouseholderQR<MatrixX> qr(a);
  Matrix3 q = qr.householderQ();
  if (q.determinant() < 0) q.col(0) = -q.col(0);
  return q;
}

Vector3 randomUnit3(std::mt19937_64& rng) {
  Vector3 v = randomVector(rng, 3);
  while (v.norm() < 1e-3) v = randomVector(rng, 3);
  return v.normalized();
}

Scalar gInner(const MatrixX& minv, const VectorX& a, const VectorX& b) { return a.dot(minv * b); }
Scalar gNorm(const MatrixX& minv, const VectorX& a) { return std::sqrt(gInner(minv, a, a)); }
VectorX gUnit(const MatrixX& minv, const VectorX& a) { return a / gNorm(minv, a); }

Scalar energy(const MatrixX& m, const VectorX& v) { return 0.5 * v.dot(m * v); }

Scalar feasibilityScale(const MatrixX& minv, const MatrixX& m, const MatrixX& j, const VectorX& v,
                               const VectorX& bias) {
  Scalar scale = std::sqrt(v.dot(m * v));
  for (Index i = 0; i < j.rows(); ++i) {
    const Scalar d = j.row(i).dot(minv * j.row(i).transpose());
    if (d > 0) scale = std::max(scale, std::abs(j.row(i).dot(v) + bias[i]) / std::sqrt(d));
  }
  return scale;
}

Scalar worstUnitVelocity(const MatrixX& minv, const MatrixX& j, const VectorX& v, const VectorX& bias) {
  Scalar worst = std::numeric_limits<Scalar>::infinity();
  for (Index i = 0; i < j.rows(); ++i) {
    const Scalar d = j.row(i).dot(minv * j.row(i).transpose());
    if (!(d > 1e-13 * j.row(i).squaredNorm() * minv.cwiseAbs().maxCoeff())) continue;
    worst = std::min(worst, (j.row(i).dot(v) + bias[i]) / std::sqrt(d));
  }
  return worst;
}

}  // namespace propimpact::test
