// Inert constraints (seed 004, eqs. 4–22): see InertConstraints.h.
//
// The projectors are not formed from G⁻¹ = (A M⁻¹ Aᵀ)⁻¹ directly: with
// M = L Lᵀ and B = L⁻¹ Aᵀ = Q R (thin QR), G = Rᵀ R and
//   P_c = M⁻¹ Aᵀ G⁻¹ A = L⁻ᵀ Q Qᵀ Lᵀ,
// an orthogonal projection in the coordinates w = Lᵀ q̇ where the kinetic
// metric is the Euclidean one. That squares no condition number, and T_c, T_a
// are squared norms of orthogonal pieces of w, so T = T_c + T_a holds to
// round-off by construction (eq. 7).
#include "propimpact/core/InertConstraints.h"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <Eigen/SVD>

#include <cmath>
#include <string>

namespace propimpact {
namespace {

/// Same acceptance as ImpactProblem::addDenseBlock, so a mass matrix the
/// resolver takes is taken here too.
constexpr Scalar kSymmetryTolerance = 1e-12;
constexpr Scalar kCholeskyPivotTolerance = 1e-12;

std::string sizeText(Index rows, Index cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

void validateShapes(const Eigen::Ref<const MatrixX>& M, const Eigen::Ref<const VectorX>& v,
                    const Eigen::Ref<const MatrixX>& A) {
  const Index n = v.size();
  if (n == 0 || M.rows() != n || M.cols() != n)
    throw InputError(ErrorCode::DimensionMismatch,
                     "inert constraints: M is " + sizeText(M.rows(), M.cols()) + " for " + std::to_string(n) +
                         " velocity components (need n x n, n >= 1)");
  if (A.rows() > 0 && A.cols() != n)
    throw InputError(ErrorCode::DimensionMismatch, "inert constraints: A is " + sizeText(A.rows(), A.cols()) +
                                                       " for " + std::to_string(n) + " velocity components");
  if (!M.allFinite()) throw InputError(ErrorCode::NonFiniteMass, "inert constraints: mass matrix");
  if (!v.allFinite()) throw InputError(ErrorCode::NonFiniteVelocity, "inert constraints: pre-impact velocity");
  if (A.rows() > 0 && !A.allFinite()) throw InputError(ErrorCode::NonFiniteRow, "inert constraints: A");
  for (Index i = 0; i < A.rows(); ++i)
    if (A.row(i).cwiseAbs().maxCoeff() == 0)
      throw InputError(ErrorCode::ZeroNormRow, "inert constraints: row " + std::to_string(i) + " of A is zero");
}

/// Cholesky factor of the symmetrised M; throws when M is not SPD.
Eigen::LLT<MatrixX> factorMass(const Eigen::Ref<const MatrixX>& M) {
  const Scalar scale = M.cwiseAbs().maxCoeff();
  if (!((M - M.transpose()).cwiseAbs().maxCoeff() <= kSymmetryTolerance * scale))
    throw InputError(ErrorCode::MassNotPositiveDefinite, "inert constraints: mass matrix is not symmetric");
  Eigen::LLT<MatrixX> llt(0.5 * (M + M.transpose()));
  if (llt.info() != Eigen::Success ||
      !(llt.matrixLLT().diagonal().minCoeff() > kCholeskyPivotTolerance * std::sqrt(scale)))
    throw InputError(ErrorCode::MassNotPositiveDefinite, "inert constraints: mass matrix has no Cholesky factor");
  return llt;
}

/// Throws DependentConstraintRows unless B = L⁻¹Aᵀ has full column rank.
void requireIndependentRows(const MatrixX& B, Scalar tolerance) {
  const Index m = B.cols(), n = B.rows();
  if (m > n)
    throw DependentConstraintRows("inert constraints: " + std::to_string(m) + " rows of A in " + std::to_string(n) +
                                  " dimensions cannot be independent");
  const Eigen::JacobiSVD<MatrixX> svd(B);
  const VectorX& sigma = svd.singularValues();
  if (!(sigma[m - 1] > tolerance * sigma[0]))
    throw DependentConstraintRows("inert constraints: the " + std::to_string(m) +
                                  " rows of A are dependent in the kinetic metric (the smallest singular value of "
                                  "L^-1 A^T is below rankTolerance times the largest)");
}

}  // namespace

InertImpact resolveInert(const Eigen::Ref<const MatrixX>& M, const Eigen::Ref<const VectorX>& v,
                         const Eigen::Ref<const MatrixX>& A, const InertOptions& options) {
  if (!(options.rankTolerance >= 0 && options.rankTolerance < 1))
    throw InputError(ErrorCode::BadOption, "inert constraints: rankTolerance must lie in [0, 1)");
  validateShapes(M, v, A);
  const Index n = v.size(), m = A.rows();
  const Eigen::LLT<MatrixX> llt = factorMass(M);
  const auto L = llt.matrixL();
  const MatrixX Lt = llt.matrixU();
  const VectorX w = Lt * v;  // kinetic coordinates: T = ½‖w‖²

  InertImpact out;
  out.energy = 0.5 * w.squaredNorm();
  MatrixX Q = MatrixX::Zero(n, 0);
  MatrixX R = MatrixX::Zero(0, 0);
  if (m > 0) {
    const MatrixX B = L.solve(A.transpose());
    requireIndependentRows(B, options.rankTolerance);
    const Eigen::HouseholderQR<MatrixX> qr(B);
    Q = qr.householderQ() * MatrixX::Identity(n, m);
    R = qr.matrixQR().topLeftCorner(m, m).triangularView<Eigen::Upper>();
  }
  const VectorX wc = Q * (Q.transpose() * w);  // constrained part of w
  const VectorX wa = w - wc;
  const MatrixX QQt = Q * Q.transpose();
  out.constrainedProjector = llt.matrixU().solve(QQt * Lt);  // L⁻ᵀ Q Qᵀ Lᵀ
  out.admissibleProjector = MatrixX::Identity(n, n) - out.constrainedProjector;
  out.constrainedVelocity = llt.matrixU().solve(wc);
  out.admissibleVelocity = llt.matrixU().solve(wa);
  out.constrainedEnergy = 0.5 * wc.squaredNorm();
  out.admissibleEnergy = 0.5 * wa.squaredNorm();
  out.xi = out.energy > 0 ? out.constrainedEnergy / out.energy : Scalar(0);
  // −Lᵀ v_c = B λ̄ = Q R λ̄  ⇒  λ̄ = −R⁻¹ Qᵀ w  (eq. 16 without forming G⁻¹).
  out.impulse = m > 0 ? VectorX(-R.triangularView<Eigen::Upper>().solve(Q.transpose() * w)) : VectorX(0);
  out.velocity = out.admissibleVelocity;
  out.lostEnergy = out.energy - 0.5 * out.velocity.dot(M * out.velocity);
  return out;
}

}  // namespace propimpact
