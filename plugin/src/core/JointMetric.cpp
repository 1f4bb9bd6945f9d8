// Stage "solver bodies", joined groups: blocks tied by bilateral rows share
// one admissible inverse mass M⁻¹_c = P_a M⁻¹ (seed 004, SPEC §6).
#include <algorithm>
#include <cmath>

#include "MassFactor.h"
#include "SolverBodies.h"
#include "propimpact/core/DisjointSets.h"

namespace propimpact::detail {
namespace {

// A singular value of A = LᵀBᵀ (M⁻¹ = LLᵀ) at or below this fraction of the
// largest is a joint direction dependent on the others: the cut-off
// (BM⁻¹Bᵀ)⁺ had at 1e-12 of its largest eigenvalue, in A's terms.
constexpr Scalar kJointRankCutoff = 1e-6;

// ‖Lᵀb‖² = b M⁻¹ bᵀ relative to |b|²·max|M⁻¹|: at or below kJointRoundOff
// it is round-off of the factor (ε² is 5e-32), at or below kHeavyJoint a
// joint M⁻¹ barely moves (the fuzz check's 1e-13).
constexpr Scalar kJointRoundOff = 1e-20;
constexpr Scalar kHeavyJoint = 1e-13;

// Every matrix is a Map over a reused buffer, so that a step whose groups have
// the sizes of an earlier step allocates nothing.
Eigen::Map<MatrixX> buffer(std::vector<Scalar>& storage, Index rows, Index cols) {
  if (storage.size() < static_cast<std::size_t>(rows * cols)) storage.resize(static_cast<std::size_t>(rows * cols));
  return Eigen::Map<MatrixX>(storage.data(), rows, cols);
}

// A dense block's factor moves its heaviest modes (MassFactor.h). A joint
// along one, b M⁻¹ bᵀ at or below kHeavyJoint of |b|²·max|M⁻¹| (what the fuzz
// check calls a joint M⁻¹ barely moves, which the impact must leave alone),
// has a column of A = LᵀBᵀ far below the rank cut-off relative to the
// others: it was dropped, unenforced, and moved (fuzz finding
// joint-along-the-heaviest-mode-of-a-dense-block-left-unenforced). Its row
// of B is scaled so that its column has the largest column's norm: the rank
// then says whether it depends on the others, not how heavy it is. So is a
// row whose column alone is within the rank cut-off of the largest column:
// dropped for its size, not its direction (fuzz finding
// 38dof-2-joints-one-contact-impulse-1e15-moved-an-immobile-joint-unseeded: a
// joint on a 9.3e10 kg block, its column 2e-7 of the other joint's and
// orthogonal to it, was dropped and broken by 92 % of |b|·|Δv|). A column above
// that, nearly parallel to others, is still dropped by the documented cut-off
// (finding joint-rank-on-unit-columns-ignored-60-rows-the-check-moves: 1e-4 of
// the largest, 1e-5 from its span in direction). A column at round-off (a
// joint along a locked axis) stays as it is: it is no constraint.
void liftHeavyJoints(const Eigen::Map<MatrixX>& factor, Eigen::Map<MatrixX>& B, Scalar groupScale) {
  // ‖Lᵀb‖², by hand: a dynamic-size temporary would allocate.
  const auto mobility = [&](Index k) {
    Scalar squared = 0;
    for (Index c = 0; c < factor.cols(); ++c) squared += std::pow(factor.col(c).dot(B.row(k).transpose()), 2);
    return squared;
  };
  Scalar largest = 0;
  for (Index k = 0; k < B.rows(); ++k) largest = std::max(largest, mobility(k));
  for (Index k = 0; k < B.rows(); ++k) {
    const Scalar squared = mobility(k);
    const Scalar reference = B.row(k).squaredNorm() * groupScale;
    const bool heavy = squared <= kHeavyJoint * reference;
    const bool droppedForItsSize = squared <= kJointRankCutoff * kJointRankCutoff * largest;
    if (squared > kJointRoundOff * reference && (heavy || droppedForItsSize)) B.row(k) *= std::sqrt(largest / squared);
  }
}

}  // namespace

void SolverBodies::groupByJoints() {
  const ImpactProblem& p = *m_problem;
  const auto blockCount = static_cast<std::size_t>(p.blockCount());
  DisjointSets& sets = m_joined;
  sets.reset(blockCount);
  for (int i = 0; i < p.bilateralCount(); ++i) {
    const RowLayout& row = p.bilateral(i);
    if (row.terms[1].block != kNoBlock) sets.unite(row.terms[0].block, row.terms[1].block);
  }
  m_rootGroup.assign(blockCount, -1);
  for (std::size_t b = 0; b < blockCount; ++b) {
    const auto root = static_cast<std::size_t>(sets.find(static_cast<int>(b)));
    if (m_rootGroup[root] < 0) {
      m_rootGroup[root] = static_cast<int>(m_groups.size());
      m_groups.push_back(Group{});
    }
    Group& g = m_groups[static_cast<std::size_t>(m_rootGroup[root])];
    m_blockGroup[b] = m_rootGroup[root];
    g.block = g.size == 0 ? static_cast<int>(b) : -1;
    m_blockOffsetInGroup[b] = g.size;
    g.size += p.block(static_cast<int>(b)).size;
  }
  // Blocks per group (counting sort), so a group's factor visits only its own blocks.
  m_groupBlockStart.assign(m_groups.size() + 1, 0);
  for (std::size_t b = 0; b < blockCount; ++b) ++m_groupBlockStart[static_cast<std::size_t>(m_blockGroup[b]) + 1];
  for (std::size_t gi = 0; gi < m_groups.size(); ++gi) m_groupBlockStart[gi + 1] += m_groupBlockStart[gi];
  m_groupBlocks.resize(blockCount);
  m_fill.assign(m_groupBlockStart.begin(), m_groupBlockStart.end() - 1);
  for (std::size_t b = 0; b < blockCount; ++b)
    m_groupBlocks[static_cast<std::size_t>(m_fill[static_cast<std::size_t>(m_blockGroup[b])]++)] = static_cast<int>(b);
}

void SolverBodies::buildJoinedGroups() {
  const ImpactProblem& p = *m_problem;
  const auto blockCount = static_cast<std::size_t>(p.blockCount());
  groupByJoints();
  m_projectorOffset.assign(m_groups.size(), -1);
  m_groupScale.assign(m_groups.size(), 0);
  m_jointFactor.resize(0);
  Index offset = 0;
  for (Group& g : m_groups) {
    g.offset = offset;
    offset += g.size;
    g.matrixOffset = static_cast<Index>(m_inverseMass.size());
    m_inverseMass.resize(m_inverseMass.size() + static_cast<std::size_t>(g.size * g.size), 0);
  }
  m_jointFactor.resize(m_inverseMass.size());
  // Block-diagonal M⁻¹ per group, restricted below to the admissible motions.
  for (std::size_t b = 0; b < blockCount; ++b) {
    const BlockLayout& layout = p.block(static_cast<int>(b));
    const auto gi = static_cast<std::size_t>(m_blockGroup[b]);
    const Group& g = m_groups[gi];
    Eigen::Map<MatrixX> target(m_inverseMass.data() + g.matrixOffset, g.size, g.size);
    const Index at = m_blockOffsetInGroup[b];
    if (layout.rigid)
      target.block<6, 6>(at, at) = p.rigidInertia(static_cast<int>(b)).inverse();
    else
      target.block(at, at, layout.size, layout.size) =
          Eigen::Map<const MatrixX>(p.inverseMassData() + layout.matrixOffset, layout.size, layout.size);
    // The scale of the unprojected M⁻¹: what "round-off of the metric" is measured against.
    m_groupScale[gi] = std::max(m_groupScale[gi], target.cwiseAbs().maxCoeff());
  }
  for (std::size_t gi = 0; gi < m_groups.size(); ++gi) projectJoints(gi);
}

// M⁻¹ = L Lᵀ per block (L = V Λ^½: M⁻¹ may be singular along locked or
// infinite-inertia axes), so the group's L is block-diagonal.
void SolverBodies::blockFactor(std::size_t gi, Eigen::Map<MatrixX>& factor) {
  const ImpactProblem& p = *m_problem;
  factor.setZero();
  for (int k = m_groupBlockStart[gi]; k < m_groupBlockStart[gi + 1]; ++k) {
    const auto b = static_cast<std::size_t>(m_groupBlocks[static_cast<std::size_t>(k)]);
    const BlockLayout& layout = p.block(static_cast<int>(b));
    const Index at = m_blockOffsetInGroup[b];
    const auto place = [&](const auto& eig) {
      const auto& values = eig.eigenvalues();
      // Round-off eigenvalues (a rotated infinite-inertia axis comes out at
      // ~1e-17 relative) are zeros, as in the plastic stage's factor: their
      // square roots would be mobility the plastic solve pushes 1e20 impulses along.
      const Scalar cutoff = kMetricNoise * values.cwiseAbs().maxCoeff();
      for (Index c = 0; c < layout.size; ++c)
        factor.block(at, at + c, layout.size, 1) =
            (values[c] > cutoff ? std::sqrt(values[c]) : Scalar(0)) * eig.eigenvectors().col(c);
    };
    if (!layout.rigid) {
      inverseCholeskyFactor(p.massData() + layout.matrixOffset, layout.size, factor.block(at, at, layout.size, layout.size));
      factor.block(at, at, layout.size, layout.size).transposeInPlace();
    } else {
      place(Eigen::SelfAdjointEigenSolver<Matrix6>(p.rigidInertia(static_cast<int>(b)).inverse()));
    }
  }
}

// With A = LᵀBᵀ, M⁻¹_c = L (I − A A⁺) Lᵀ = (L U⊥)(L U⊥)ᵀ, U⊥ an orthonormal
// basis of A's left null space from its SVD. Forming (BM⁻¹Bᵀ)⁺ instead
// squares A's condition number: three nearly dependent joint rows on two
// dofs left an indefinite M⁻¹_c of 40 % of M⁻¹ where it is exactly zero,
// and the reflections along it drove the energy to 1e101 (fuzz finding
// over-constrained-joint-projection-was-indefinite). This form is PSD by
// construction and accurate to round-off of L. The rank is decided on A's
// singular values; a pivoted QR's pivots only approximate them and disagreed
// near the cut-off. The constraint part of a velocity,
// C v = M⁻¹Bᵀ(BM⁻¹Bᵀ)⁺B v, is L (A⁺)ᵀ B v = L U_r Σ_r⁻¹ V_rᵀ B v.
void SolverBodies::projectJoints(std::size_t gi) {
  const ImpactProblem& p = *m_problem;
  const Group& g = m_groups[gi];
  m_members.clear();
  for (int i = 0; i < p.bilateralCount(); ++i)
    if (m_blockGroup[static_cast<std::size_t>(p.bilateral(i).terms[0].block)] == static_cast<int>(gi)) m_members.push_back(i);
  if (m_members.empty()) return;
  const auto rowCount = static_cast<Index>(m_members.size());
  Eigen::Map<MatrixX> B = buffer(m_bufferB, rowCount, g.size);
  B.setZero();
  for (std::size_t r = 0; r < m_members.size(); ++r)
    for (const RowTerm& t : p.bilateral(m_members[r]).terms) {
      if (t.block == kNoBlock) continue;
      const Index size = p.block(t.block).size;
      B.row(static_cast<Index>(r)).segment(m_blockOffsetInGroup[static_cast<std::size_t>(t.block)], size) =
          Eigen::Map<const VectorX>(p.rowData() + t.coefficientOffset, size).transpose();
    }
  Eigen::Map<MatrixX> factor = buffer(m_bufferFactor, g.size, g.size);
  blockFactor(gi, factor);
  liftHeavyJoints(factor, B, m_groupScale[gi]);
  Eigen::Map<MatrixX> minv(m_inverseMass.data() + g.matrixOffset, g.size, g.size);
  m_projectorOffset[gi] = static_cast<Index>(m_constraintProjector.size());
  m_constraintProjector.resize(m_constraintProjector.size() + static_cast<std::size_t>(g.size * g.size));
  Eigen::Map<MatrixX> projector(m_constraintProjector.data() + m_projectorOffset[gi], g.size, g.size);
  const auto project = [&](auto& svd, auto& a, auto& scaled) {
    a.noalias() = factor.transpose() * B.transpose();
    svd.compute(a, Eigen::ComputeFullU | Eigen::ComputeFullV);
    const auto& values = svd.singularValues();
    Index rank = 0;
    for (Index k = 0; k < values.size(); ++k)
      if (values[k] > kJointRankCutoff * values[0]) ++rank;
    const Index admissibleDofs = g.size - rank;
    const auto& u = svd.matrixU();
    // L U⊥ is also the factor the exact plastic solve needs (M⁻¹_c = F Fᵀ):
    // kept, padded with zero columns, so it need not be recovered from M⁻¹_c.
    Eigen::Map<MatrixX> admissible(m_jointFactor.data() + g.matrixOffset, g.size, g.size);
    admissible.leftCols(admissibleDofs).noalias() = factor * u.rightCols(admissibleDofs);
    admissible.rightCols(g.size - admissibleDofs).setZero();
    minv.noalias() = admissible.leftCols(admissibleDofs) * admissible.leftCols(admissibleDofs).transpose();
    scaled = u.leftCols(rank);
    for (Index k = 0; k < rank; ++k) scaled.col(k) /= values[k];
    Eigen::Map<MatrixX> transfer = buffer(m_bufferTransfer, g.size, rowCount);
    transfer.noalias() = factor * (scaled * svd.matrixV().leftCols(rank).transpose());
    projector.noalias() = transfer * B;
  };
  if (g.size <= kSmallCapacity && rowCount <= kSmallCapacity) {
    m_smallJointA.resize(g.size, rowCount);
    project(m_smallJointSvd, m_smallJointA, m_smallJointScaled);
  } else {
    MatrixX a(g.size, rowCount), scaled;
    project(m_jointSvd, a, scaled);
  }
  m_anyProjector = true;
  for (Index a = 0; a < g.size; ++a)
    for (Index b = a + 1; b < g.size; ++b) minv(a, b) = minv(b, a) = 0.5 * (minv(a, b) + minv(b, a));
}

}  // namespace propimpact::detail
