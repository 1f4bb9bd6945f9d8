// The metrics the fuzz check measures a resolution in (CheckMetrics.h) and
// the public helpers of ProblemFuzzer.h built on them.
#include "CheckMetrics.h"

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace propimpact::fuzz {
namespace detail {

JointMetricCheck jointMetric(const ImpactProblem& p, const MatrixX& minv) {
  JointMetricCheck out;
  if (p.bilateralCount() == 0) {
    out.admissible = minv;
    return out;
  }
  const Eigen::SelfAdjointEigenSolver<MatrixX> eig(minv);
  const MatrixX factor = eig.eigenvectors() * eig.eigenvalues().cwiseMax(Scalar(0)).cwiseSqrt().asDiagonal();
  const MatrixX a = factor.transpose() * p.denseBilateralJacobian().transpose();
  const Eigen::JacobiSVD<MatrixX> svd(a, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const VectorX& values = svd.singularValues();
  Index rank = 0;
  for (Index k = 0; k < values.size(); ++k) {
    if (values[k] > 1e-6 * values[0])
      ++rank;
    else
      out.dropped = std::max(out.dropped, values[k]);
  }
  out.admissibleFactor = factor * svd.matrixU().rightCols(a.rows() - rank);
  out.admissible = out.admissibleFactor * out.admissibleFactor.transpose();
  const VectorX inverted = values.head(rank).cwiseInverse();
  out.constraintTransfer =
      factor * svd.matrixU().leftCols(rank) * inverted.asDiagonal() * svd.matrixV().leftCols(rank).transpose();
  return out;
}

VectorX rowMetric(const MatrixX& j, const MatrixX& w) { return (j * w).cwiseProduct(j).rowwise().sum(); }

VectorX movableFrom(const VectorX& d, const VectorX& references) {
  VectorX movable = VectorX::Zero(d.size());
  for (Index i = 0; i < d.size(); ++i) movable[i] = d[i] > 1e-13 * references[i] ? 1 : 0;
  return movable;
}

VectorX rowReferences(const ImpactProblem& p, const MatrixX& j, const MatrixX& minv) {
  const int blocks = p.blockCount();
  const std::vector<int> group = jointGroups(p);
  const auto root = [&](int b) { return group[static_cast<std::size_t>(b)]; };
  std::vector<Scalar> componentScale(static_cast<std::size_t>(blocks), 0);
  for (int b = 0; b < blocks; ++b) {
    const BlockLayout& layout = p.block(b);
    Scalar& target = componentScale[static_cast<std::size_t>(root(b))];
    target = std::max(target, minv.block(layout.velocityOffset, layout.velocityOffset, layout.size, layout.size).cwiseAbs().maxCoeff());
  }
  VectorX references = VectorX::Zero(j.rows());
  std::vector<Scalar> perComponent(static_cast<std::size_t>(blocks));
  for (Index i = 0; i < j.rows(); ++i) {
    std::fill(perComponent.begin(), perComponent.end(), Scalar(0));
    for (int b = 0; b < blocks; ++b) {
      const BlockLayout& layout = p.block(b);
      perComponent[static_cast<std::size_t>(root(b))] += j.row(i).segment(layout.velocityOffset, layout.size).squaredNorm();
    }
    for (int b = 0; b < blocks; ++b)
      references[i] += perComponent[static_cast<std::size_t>(b)] * componentScale[static_cast<std::size_t>(b)];
  }
  return references;
}

/// Σ λᵢ·|M⁻¹Jᵢᵀ|·√λmax(M over the blocks row i moves): how far sharing
/// impulses among merged duplicates can move M⁻¹Jᵀλ, in the M-norm, per unit
/// of duplicateTolerance. The resolver merges rows whose M⁻¹Jᵀ agree to that
/// tolerance in the Euclidean norm (ContactRows::sameDirection), and
/// ||x||_M ≤ √λmax(M)·|x|; Σ λᵢ√dᵢ = Σ λᵢ||M⁻¹Jᵢᵀ||_M can be smaller by up to
/// √κ(M), and was 16 % short at κ(M) ≈ 1e13 in finding
/// merged-duplicates-share-impulses-in-the-euclidean-metric.
Scalar mergedImpulseSize(const ImpactProblem& p, const MatrixX& mass, const MatrixX& minv, const MatrixX& j,
                         const VectorX& impulses) {
  std::vector<Scalar> top(static_cast<std::size_t>(p.blockCount()));
  for (int b = 0; b < p.blockCount(); ++b) {
    const BlockLayout& layout = p.block(b);
    const Eigen::SelfAdjointEigenSolver<MatrixX> eig(
        mass.block(layout.velocityOffset, layout.velocityOffset, layout.size, layout.size), Eigen::EigenvaluesOnly);
    top[static_cast<std::size_t>(b)] = std::max(Scalar(0), eig.eigenvalues().maxCoeff());
  }
  Scalar size = 0;
  for (Index i = 0; i < j.rows(); ++i) {
    if (!(impulses[i] > 0)) continue;
    const VectorX w = minv * j.row(i).transpose();
    Scalar largest = 0;
    for (int b = 0; b < p.blockCount(); ++b) {
      const BlockLayout& layout = p.block(b);
      if (w.segment(layout.velocityOffset, layout.size).squaredNorm() > 0)
        largest = std::max(largest, top[static_cast<std::size_t>(b)]);
    }
    size += impulses[i] * w.norm() * std::sqrt(largest);
  }
  return size;
}

}  // namespace detail

using detail::jointMetric;
using detail::movableFrom;
using detail::rowMetric;

/// M⁻¹ restricted to the motions the joints admit, M⁻¹ − M⁻¹Bᵀ(BM⁻¹Bᵀ)⁺BM⁻¹,
/// computed as (L U⊥)(L U⊥)ᵀ with M⁻¹ = LLᵀ and U⊥ the left null space of
/// A = LᵀBᵀ from an SVD (the resolver takes it from a QR: an independent
/// route to the same matrix). Singular values at or below 1e-6 of the largest
/// count as zero, the resolver's documented rank cut-off.
MatrixX admissibleInverseMass(const ImpactProblem& p) { return jointMetric(p, p.denseInverseMass()).admissible; }

/// The largest singular value of A = LᵀBᵀ (M⁻¹ = LLᵀ) that the rank cut-off
/// (1e-6 of the largest) drops: joint rows within that of the others' span are
/// treated as dependent and enforced only to it. Zero when none is dropped.
Scalar droppedJointSingularValue(const ImpactProblem& p) { return jointMetric(p, p.denseInverseMass()).dropped; }

/// Per contact row, what "round-off of J M⁻¹ Jᵀ" is measured against:
/// Σ over the joint-connected groups it touches of |J_group|² · max|M⁻¹_group|
/// (ImpactResolver's documented reference).
VectorX rowReferences(const ImpactProblem& p, const MatrixX& j) { return detail::rowReferences(p, j, p.denseInverseMass()); }

/// 1 for a contact row some admissible motion moves, 0 for one the resolver
/// ignores: J M⁻¹_c Jᵀ at most 1e-13 of its reference (rowReferences).
VectorX movableRows(const ImpactProblem& p, const MatrixX& j, const MatrixX& admissible) {
  return movableFrom(rowMetric(j, admissible), rowReferences(p, j));
}

}  // namespace propimpact::fuzz
