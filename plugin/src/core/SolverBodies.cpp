#include "SolverBodies.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "Capacity.h"

namespace propimpact::detail {
namespace {

// max |M⁻¹| of a rigid block: its coupling entries are zero.
Scalar rigidScale(const RigidInertia& r) {
  Scalar largest = std::max({r.inverseLinear[0], r.inverseLinear[1], r.inverseLinear[2]});
  for (int k = 0; k < 9; ++k) largest = std::max(largest, std::abs(r.inverseAngular[k]));
  return largest;
}

// Whether n entries agree bit for bit (no early exit: a branch-free OR of
// differences, a few instructions for a rigid body's 6).
inline bool sameBits(const Scalar* a, const Scalar* b, Index n) {
  static_assert(sizeof(Scalar) == sizeof(std::uint64_t), "compares doubles as 64-bit words");
  std::uint64_t differ = 0;
  for (Index k = 0; k < n; ++k) {
    std::uint64_t x, y;
    std::memcpy(&x, a + k, sizeof x);
    std::memcpy(&y, b + k, sizeof y);
    differ |= x ^ y;
  }
  return differ == 0;
}

}  // namespace

void SolverBodies::build(const ImpactProblem& problem) {
  m_problem = &problem;
  m_reference = nullptr;
  const auto blockCount = static_cast<std::size_t>(problem.blockCount());
  m_inverseMass.clear();
  m_constraintProjector.clear();
  m_projectorOffset.clear();
  m_anyProjector = false;
  m_dofs = problem.dofCount();
  m_identityOrder = problem.bilateralCount() == 0;
  m_rigidBase = problem.rigidInertiaData();
  if (m_identityOrder) {
    buildSingleBlocks();
    m_inverseMassBase = problem.inverseMassData();
  } else {
    m_groups.clear();
    m_blockGroup.assign(blockCount, -1);
    m_blockOffsetInGroup.assign(blockCount, 0);
    buildJoinedGroups();
    m_inverseMassBase = m_inverseMass.data();
    m_allRigid = true;
    m_anyImmobileAxes = false;
    for (int b = 0; b < problem.blockCount(); ++b) {
      m_allRigid = m_allRigid && problem.block(b).rigid;
      m_anyImmobileAxes = m_anyImmobileAxes || problem.block(b).immobileAxes;
    }
  }
}

void SolverBodies::reserve(const ProblemBounds& bounds) {
  reserveCapacity(m_referenceTerms, bounds.blocks);
  reserveCapacity(m_atRest, bounds.blocks);
  reserveCapacity(m_groups, bounds.blocks);
  reserveCapacity(m_blockGroup, bounds.blocks);
  reserveCapacity(m_blockOffsetInGroup, bounds.blocks);
  reserveCapacity(m_groupScale, bounds.blocks);
}

// Each block its own group, every array written once in one pass (filling
// them first and then writing them again was half of this stage's cost).
void SolverBodies::buildSingleBlocks() {
  const ImpactProblem& p = *m_problem;
  const auto blockCount = static_cast<std::size_t>(p.blockCount());
  m_groupScale.resize(blockCount);
  m_blockGroup.resize(blockCount);
  m_blockOffsetInGroup.resize(blockCount);
  m_groups.resize(blockCount);
  m_allRigid = true;
  m_anyImmobileAxes = false;
  for (std::size_t b = 0; b < blockCount; ++b) {
    const BlockLayout& layout = p.block(static_cast<int>(b));
    m_allRigid = m_allRigid && layout.rigid;
    m_anyImmobileAxes = m_anyImmobileAxes || layout.immobileAxes;
    Group& g = m_groups[b];
    g.offset = layout.velocityOffset;
    g.size = layout.size;
    // Without joints a group's M⁻¹_c is its block's M⁻¹: read in place, not copied.
    g.matrixOffset = layout.matrixOffset;
    g.rigid = layout.rigid;
    g.block = static_cast<int>(b);
    m_groupScale[b] = layout.rigid ? rigidScale(m_rigidBase[b])
                                   : Eigen::Map<const MatrixX>(p.inverseMassData() + layout.matrixOffset, layout.size,
                                                               layout.size).cwiseAbs().maxCoeff();
    m_blockGroup[b] = static_cast<int>(b);
    m_blockOffsetInGroup[b] = 0;
  }
}

void SolverBodies::gather(const Scalar* problemOrder, Scalar* internal) const {
  if (m_identityOrder) {
    std::copy(problemOrder, problemOrder + m_dofs, internal);
    return;
  }
  for (int b = 0; b < m_problem->blockCount(); ++b) {
    const BlockLayout& layout = m_problem->block(b);
    const Group& g = m_groups[static_cast<std::size_t>(m_blockGroup[static_cast<std::size_t>(b)])];
    std::copy(problemOrder + layout.velocityOffset, problemOrder + layout.velocityOffset + layout.size,
              internal + g.offset + m_blockOffsetInGroup[static_cast<std::size_t>(b)]);
  }
}

void SolverBodies::scatter(const Scalar* internal, Scalar* problemOrder) const {
  if (m_identityOrder) {
    std::copy(internal, internal + m_dofs, problemOrder);
    return;
  }
  for (int b = 0; b < m_problem->blockCount(); ++b) {
    const BlockLayout& layout = m_problem->block(b);
    const Group& g = m_groups[static_cast<std::size_t>(m_blockGroup[static_cast<std::size_t>(b)])];
    const Scalar* from = internal + g.offset + m_blockOffsetInGroup[static_cast<std::size_t>(b)];
    std::copy(from, from + layout.size, problemOrder + layout.velocityOffset);
  }
}

void SolverBodies::splitJointError(Scalar* velocity, std::vector<Scalar>& violating) const {
  violating.assign(static_cast<std::size_t>(m_dofs), 0);
  if (!m_anyProjector) return;
  for (std::size_t gi = 0; gi < m_groups.size(); ++gi) {
    if (m_projectorOffset[gi] < 0) continue;
    const Group& g = m_groups[gi];
    Eigen::Map<const MatrixX> projector(m_constraintProjector.data() + m_projectorOffset[gi], g.size, g.size);
    Eigen::Map<VectorX> part(violating.data() + g.offset, g.size);
    Eigen::Map<VectorX> v(velocity + g.offset, g.size);
    part.noalias() = projector * v;
    v -= part;
  }
}

void SolverBodies::prescribedPart(const Scalar* internal, std::vector<Scalar>& out,
                                  const std::vector<char>* groups) const {
  const ImpactProblem& p = *m_problem;
  out.assign(static_cast<std::size_t>(m_dofs), 0);
  for (int b = 0; b < p.blockCount(); ++b) {
    if (groups && !(*groups)[static_cast<std::size_t>(m_blockGroup[static_cast<std::size_t>(b)])]) continue;
    const BlockLayout& layout = p.block(b);
    // A dense block's mass is SPD (addDenseBlock rejects a singular one), so
    // no axis of it is immobile. Computed as v − M⁻¹(Mv) its part would be
    // round-off of κ(M)·ε, 1.6 % of v at κ(M) = 7e13, which rows saw as a
    // prescribed motion and which turned the energy guarantee off (finding
    // capped-16dof-joint-energy-gain-with-the-guarantee-off).
    if (!layout.rigid) continue;
    // The block's own M⁻¹, not the group's M⁻¹_c: the joints' projection
    // cuts eigenvalues at kMetricNoise relative, which at such κ(M) took stiff
    // but movable directions for immobile ones. What the joints lock is the
    // joint error, set aside before this is asked.
    const Index at = m_groups[static_cast<std::size_t>(m_blockGroup[static_cast<std::size_t>(b)])].offset +
                     m_blockOffsetInGroup[static_cast<std::size_t>(b)];
    const Matrix6 mass = p.rigidInertia(b).mass();
    const Matrix6 minv = p.rigidInertia(b).inverse();
    const Eigen::Map<const Vector6> v(internal + at);
    const Vector6 momentum = mass * v;
    Eigen::Map<Vector6>(out.data() + at).noalias() = v - minv * momentum;
  }
}

namespace {

// aᵀ M b over one block: kineticInner's term (its loop keeps the rigid case
// inline: as an out-of-line call per block it cost the core chain 1.3 % more
// instructions).
inline Scalar innerOfBlock(const ImpactProblem& p, int block, const Scalar* a, const Scalar* b,
                           std::vector<Scalar>& massTimes) {
  const BlockLayout& layout = p.block(block);
  if (layout.rigid) return rigidInner(p.rigidInertia(block), a, b);
  if (layout.size == 6) {
    Eigen::Map<const Matrix6> mass(p.massData() + layout.matrixOffset);
    const Vector6 product = mass * Eigen::Map<const Vector6>(b);
    return Eigen::Map<const Vector6>(a).dot(product);
  }
  Eigen::Map<const MatrixX> mass(p.massData() + layout.matrixOffset, layout.size, layout.size);
  // M b into a reused buffer: the product Eigen would otherwise put in a heap temporary.
  if (massTimes.size() < static_cast<std::size_t>(layout.size)) massTimes.resize(static_cast<std::size_t>(layout.size));
  Eigen::Map<VectorX> product(massTimes.data(), layout.size);
  product.noalias() = mass * Eigen::Map<const VectorX>(b, layout.size);
  return Eigen::Map<const VectorX>(a, layout.size).dot(product);
}

}  // namespace

Scalar SolverBodies::blockInner(int block, const Scalar* a, const Scalar* b) const {
  return innerOfBlock(*m_problem, block, a, b, m_massTimes);
}

Scalar SolverBodies::kineticInner(const Eigen::Ref<const VectorX>& a, const Eigen::Ref<const VectorX>& b,
                                  bool skipZeroOfB) const {
  Scalar value = 0;
  const ImpactProblem& p = *m_problem;
  for (int blk = 0; blk < p.blockCount(); ++blk) {
    const BlockLayout& layout = p.block(blk);
    const Scalar* x = a.data() + layout.velocityOffset;
    const Scalar* y = b.data() + layout.velocityOffset;
    // A zero block of b adds a term of ±0, which leaves any sum started at +0 as it was.
    if (skipZeroOfB && std::all_of(y, y + layout.size, [](Scalar e) { return e == 0; })) continue;
    value += layout.rigid ? rigidInner(m_rigidBase[blk], x, y) : innerOfBlock(p, blk, x, y, m_massTimes);
  }
  return value;
}

Scalar SolverBodies::setReference(const Eigen::Ref<const VectorX>& v0) {
  const ImpactProblem& p = *m_problem;
  m_reference = nullptr;
  m_referenceTerms.resize(static_cast<std::size_t>(p.blockCount()));
  m_atRest.resize(static_cast<std::size_t>(p.blockCount()));
  m_anyAtRest = false;
  Scalar value = 0;
  for (int blk = 0; blk < p.blockCount(); ++blk) {
    const BlockLayout& layout = p.block(blk);
    const Scalar* x = v0.data() + layout.velocityOffset;
    // A rigid body at rest (most of a resting pile or chain) adds ±0, which
    // leaves the sum as it was (a sum started at +0 is never −0): its term is
    // not computed. The test is cheaper than the product (callgrind).
    if (layout.rigid && x[0] == 0 && x[1] == 0 && x[2] == 0 && x[3] == 0 && x[4] == 0 && x[5] == 0) {
      m_referenceTerms[static_cast<std::size_t>(blk)] = 0;
      m_atRest[static_cast<std::size_t>(blk)] = 1;
      m_anyAtRest = true;
      continue;
    }
    const Scalar term = layout.rigid ? rigidInner(m_rigidBase[blk], x, x)
                                     : innerOfBlock(p, blk, x, x, m_massTimes);
    m_referenceTerms[static_cast<std::size_t>(blk)] = term;
    m_atRest[static_cast<std::size_t>(blk)] = 0;
    value += term;
  }
  m_reference = v0.data();
  return 0.5 * value;
}

Scalar SolverBodies::kineticEnergy(const Eigen::Ref<const VectorX>& v) const {
  if (!m_reference) return 0.5 * kineticInner(v, v);
  Scalar value = 0;
  const ImpactProblem& p = *m_problem;
  for (int blk = 0; blk < p.blockCount(); ++blk) {
    const BlockLayout& layout = p.block(blk);
    const Scalar* x = v.data() + layout.velocityOffset;
    const Scalar* x0 = m_reference + layout.velocityOffset;
    if (layout.rigid ? sameBits(x, x0, 6) : sameBits(x, x0, layout.size))
      value += m_referenceTerms[static_cast<std::size_t>(blk)];
    else
      value += layout.rigid ? rigidInner(m_rigidBase[blk], x, x) : innerOfBlock(p, blk, x, x, m_massTimes);
  }
  return 0.5 * value;
}

}  // namespace propimpact::detail
