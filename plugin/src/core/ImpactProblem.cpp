#include "propimpact/core/ImpactProblem.h"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "propimpact/core/Errors.h"
#include "Capacity.h"

namespace propimpact {
namespace {

bool allFinite(const Eigen::Ref<const MatrixX>& m) { return m.allFinite(); }

// Makes room for \p used entries; grows geometrically (within what reserve()
// sized when that suffices), never shrinks, and leaves what it does not need
// to fill to the caller.
void reserveEntries(std::vector<Scalar>& storage, Index used) {
  detail::growWithin(storage, static_cast<std::size_t>(used));
}

}  // namespace

int ImpactProblem::reject(ErrorCode code, const std::function<std::string()>& describe) {
  if (m_inputErrors == InputErrors::Throw) throw InputError(code, describe());
  m_lastError = code;
  ++m_rejected;
  return kRejected;
}

bool ImpactProblem::fail(ErrorCode code, const std::function<std::string()>& describe) {
  reject(code, describe);
  return false;
}

void ImpactProblem::clear() {
  m_blocks.clear();
  m_contacts.clear();
  m_bilaterals.clear();
  m_dofs = 0;
  m_matrixEntries = 0;
  m_rowEntries = 0;
  m_rejected = 0;
}

void ImpactProblem::reserve(const ProblemBounds& bounds) {
  detail::reserveCapacity(m_blocks, bounds.blocks);
  detail::reserveCapacity(m_velocity, bounds.dofs);
  detail::reserveCapacity(m_mass, bounds.matrixEntries);
  detail::reserveCapacity(m_inverseMass, bounds.matrixEntries);
  detail::reserveCapacity(m_rigid, bounds.blocks);
  detail::reserveCapacity(m_contacts, bounds.contacts);
  detail::reserveCapacity(m_bilaterals, bounds.bilaterals);
  detail::reserveCapacity(m_rowCoefficients, bounds.rowEntries);
}

void ImpactProblem::clearRows() {
  m_contacts.clear();
  m_bilaterals.clear();
  m_rowEntries = 0;
}

int ImpactProblem::addBlock(Index size, bool rigid) {
  BlockLayout layout;
  layout.velocityOffset = m_dofs;
  layout.size = size;
  layout.matrixOffset = m_matrixEntries;
  layout.rigid = rigid;
  m_dofs += size;
  reserveEntries(m_velocity, m_dofs);
  if (!rigid) {
    m_matrixEntries += size * size;
    reserveEntries(m_mass, m_matrixEntries);
    reserveEntries(m_inverseMass, m_matrixEntries);
  }
  m_blocks.push_back(layout);
  return static_cast<int>(m_blocks.size()) - 1;
}

int ImpactProblem::addDenseBlock(const Eigen::Ref<const MatrixX>& mass, const Eigen::Ref<const VectorX>& velocity) {
  const Index n = mass.rows();
  if (mass.cols() != n || velocity.size() != n || n == 0)
    return reject(ErrorCode::DimensionMismatch, [&] {
      return "dense block: mass is " + std::to_string(mass.rows()) + "x" + std::to_string(mass.cols()) +
             ", velocity has " + std::to_string(velocity.size()) + " entries";
    });
  if (!allFinite(mass)) return reject(ErrorCode::NonFiniteMass, [] { return "dense block mass matrix"; });
  if (!velocity.allFinite()) return reject(ErrorCode::NonFiniteVelocity, [] { return "dense block velocity"; });
  const Scalar scale = mass.cwiseAbs().maxCoeff();
  if (!((mass - mass.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * scale))
    return reject(ErrorCode::MassNotPositiveDefinite, [] { return "dense block mass matrix is not symmetric"; });
  const MatrixX symmetric = 0.5 * (mass + mass.transpose());
  Eigen::LLT<MatrixX> llt(symmetric);
  if (llt.info() != Eigen::Success || !(llt.matrixLLT().diagonal().minCoeff() > 1e-12 * std::sqrt(scale)))
    return reject(ErrorCode::MassNotPositiveDefinite, [] { return "dense block mass matrix has no Cholesky factor"; });
  MatrixX inverse = llt.solve(MatrixX::Identity(n, n));
  inverse = 0.5 * (inverse + inverse.transpose()).eval();
  const int id = addBlock(n, false);
  const BlockLayout& b = m_blocks.back();
  Eigen::Map<MatrixX>(m_mass.data() + b.matrixOffset, n, n) = symmetric;
  Eigen::Map<MatrixX>(m_inverseMass.data() + b.matrixOffset, n, n) = inverse;
  Eigen::Map<VectorX>(m_velocity.data() + b.velocityOffset, n) = velocity;
  return id;
}

Index ImpactProblem::appendCoefficients(const Scalar* coefficients, Index count) {
  const Index offset = m_rowEntries;
  m_rowEntries += count;
  reserveEntries(m_rowCoefficients, m_rowEntries);
  std::copy(coefficients, coefficients + count, m_rowCoefficients.data() + offset);
  return offset;
}

bool ImpactProblem::checkRow(int blockA, const Eigen::Ref<const VectorX>& coefficientsA, int blockB,
                             const Eigen::Ref<const VectorX>& coefficientsB, const char* what) {
  const auto termIsGood = [&](int block, const Eigen::Ref<const VectorX>& c) {
    if (block < 0 || block >= blockCount())
      return fail(ErrorCode::BadBlockIndex,
                  [&] { return std::string(what) + " references block " + std::to_string(block); });
    if (c.size() != m_blocks[static_cast<std::size_t>(block)].size)
      return fail(ErrorCode::DimensionMismatch, [&] {
        return std::string(what) + " coefficients have " + std::to_string(c.size()) + " entries for a block of " +
               std::to_string(m_blocks[static_cast<std::size_t>(block)].size);
      });
    if (!c.allFinite()) return fail(ErrorCode::NonFiniteRow, [&] { return std::string(what); });
    return true;
  };
  if (!termIsGood(blockA, coefficientsA)) return false;
  Scalar normSquared = coefficientsA.squaredNorm();
  if (blockB != kNoBlock) {
    if (!termIsGood(blockB, coefficientsB)) return false;
    if (blockB == blockA)
      return fail(ErrorCode::BadBlockIndex, [&] { return std::string(what) + " names the same block twice"; });
    normSquared += coefficientsB.squaredNorm();
  }
  if (!(normSquared > 0)) return fail(ErrorCode::ZeroNormRow, [&] { return std::string(what); });
  return true;
}

RowLayout ImpactProblem::makeRow(int blockA, const Eigen::Ref<const VectorX>& coefficientsA, int blockB,
                                 const Eigen::Ref<const VectorX>& coefficientsB) {

  RowLayout row;
  row.terms[0].block = blockA;
  row.terms[0].coefficientOffset = appendCoefficients(coefficientsA.data(), coefficientsA.size());
  if (blockB != kNoBlock) {
    row.terms[1].block = blockB;
    row.terms[1].coefficientOffset = appendCoefficients(coefficientsB.data(), coefficientsB.size());
  }
  return row;
}

int ImpactProblem::addContactRow(int blockA, const Eigen::Ref<const VectorX>& coefficientsA, int blockB,
                                 const Eigen::Ref<const VectorX>& coefficientsB, Scalar restitution, Scalar bias,
                                 std::uint64_t canonicalKey) {
  if (!checkContactData(restitution, bias) || !checkRow(blockA, coefficientsA, blockB, coefficientsB, "contact row"))
    return kRejected;
  return pushContact(makeRow(blockA, coefficientsA, blockB, coefficientsB), restitution, bias, canonicalKey);
}

bool ImpactProblem::checkContactData(Scalar restitution, Scalar bias) {
  if (!(restitution >= 0 && restitution <= 1))
    return fail(ErrorCode::RestitutionOutOfRange, [&] { return "contact restitution " + std::to_string(restitution); });
  if (!std::isfinite(bias)) return fail(ErrorCode::NonFiniteRow, [] { return "contact bias"; });
  return true;
}

int ImpactProblem::pushContact(RowLayout row, Scalar restitution, Scalar bias, std::uint64_t canonicalKey) {
  row.bias = bias;
  row.restitution = restitution;
  row.canonicalKey = canonicalKey == UINT64_MAX ? static_cast<std::uint64_t>(m_contacts.size()) : canonicalKey;
  m_contacts.push_back(row);
  return static_cast<int>(m_contacts.size()) - 1;
}

void ImpactProblem::setRestingSpeed(int i, Scalar speed) {
  if (!(speed >= 0) || !std::isfinite(speed)) {
    // Recorded, the contact keeps the default 0: every approach counts.
    reject(ErrorCode::NonFiniteRow,
           [&] { return "resting speed " + std::to_string(speed) + " (must be finite and >= 0)"; });
    return;
  }
  m_contacts[static_cast<std::size_t>(i)].restingSpeed = speed;
}

int ImpactProblem::addRigidContact(int bodyA, int bodyB, const Vector3& normalOnB, const Vector3& offsetA,
                                   const Vector3& offsetB, Scalar restitution, Scalar bias,
                                   std::uint64_t canonicalKey) {
  // x − x is 0 for a finite x and NaN otherwise: one sum tests all nine
  // components (Eigen's allFinite per vector cost three reductions).
  Scalar probe = 0;
  for (int k = 0; k < 3; ++k)
    probe += (normalOnB[k] - normalOnB[k]) + (offsetA[k] - offsetA[k]) + (offsetB[k] - offsetB[k]);
  if (!(probe == 0)) return reject(ErrorCode::NonFiniteRow, [] { return "rigid contact normal or offset"; });
  const Scalar normalLength = std::sqrt(normalOnB.squaredNorm());  // norm() and normalized() both take it
  if (!(normalLength > 1e-9)) return reject(ErrorCode::ZeroNormRow, [] { return "rigid contact normal"; });
  if (bodyA == kNoBlock && bodyB == kNoBlock)
    return reject(ErrorCode::BadBlockIndex, [] { return "rigid contact between two non-dynamic bodies"; });
  if (!(restitution >= 0 && restitution <= 1 && std::isfinite(bias)) && !checkContactData(restitution, bias))
    return kRejected;
  const auto rigidIsGood = [&](int block) {
    if (block == kNoBlock) return true;
    if (block < 0 || block >= blockCount())
      return fail(ErrorCode::BadBlockIndex, [&] { return "rigid contact references block " + std::to_string(block); });
    if (m_blocks[static_cast<std::size_t>(block)].size != 6)
      return fail(ErrorCode::DimensionMismatch, [&] {
        return "rigid contact on a block of " + std::to_string(m_blocks[static_cast<std::size_t>(block)].size) +
               " dofs (rigid bodies have 6)";
      });
    return true;
  };
  if (!rigidIsGood(bodyA) || !rigidIsGood(bodyB)) return kRejected;
  if (bodyA == bodyB)
    return reject(ErrorCode::BadBlockIndex, [] { return "contact row names the same block twice"; });
  // Written straight into the row storage, both terms after one size check:
  // the generic addContactRow checks and copies through dynamic vectors (12 %
  // of the core chain's instructions), and a copy per term through a
  // temporary cost a library call each (callgrind).
  const Vector3 n = normalOnB / normalLength;
  Index offset = m_rowEntries;
  m_rowEntries += bodyA != kNoBlock && bodyB != kNoBlock ? 12 : 6;
  reserveEntries(m_rowCoefficients, m_rowEntries);
  // B's term is −(n, rB × n): exactly the negated values (a sign flip rounds nothing).
  const auto writeTerm = [&](RowTerm& term, int block, const Vector3& lever, bool negate) {
    const Vector3 moment = lever.cross(n);
    Scalar* c = m_rowCoefficients.data() + offset;
    for (int k = 0; k < 3; ++k) {
      c[k] = negate ? -n[k] : n[k];
      c[3 + k] = negate ? -moment[k] : moment[k];
    }
    term.block = block;
    term.coefficientOffset = offset;
    offset += 6;
  };
  // Made in place: pushContact's copy of the row was a tenth of this function.
  const auto index = static_cast<std::uint64_t>(m_contacts.size());
  RowLayout& row = m_contacts.emplace_back();
  row.bias = bias;
  row.restitution = restitution;
  row.canonicalKey = canonicalKey == UINT64_MAX ? index : canonicalKey;
  if (bodyA != kNoBlock) writeTerm(row.terms[0], bodyA, offsetA, false);
  if (bodyB != kNoBlock) writeTerm(row.terms[bodyA == kNoBlock ? 0 : 1], bodyB, offsetB, true);
  return static_cast<int>(index);
}

int ImpactProblem::addBilateralRow(int blockA, const Eigen::Ref<const VectorX>& coefficientsA, int blockB,
                                   const Eigen::Ref<const VectorX>& coefficientsB) {
  if (!checkRow(blockA, coefficientsA, blockB, coefficientsB, "bilateral row")) return kRejected;
  RowLayout row = makeRow(blockA, coefficientsA, blockB, coefficientsB);
  row.canonicalKey = static_cast<std::uint64_t>(m_bilaterals.size());
  m_bilaterals.push_back(row);
  return static_cast<int>(m_bilaterals.size()) - 1;
}

VectorX ImpactProblem::velocity() const {
  return Eigen::Map<const VectorX>(m_velocity.data(), dofCount());
}

namespace {
/// The block-diagonal matrix of the blocks: a rigid block's 6 × 6 from
/// \p rigidBlock(i), a dense block's from \p dense at its matrix offset.
template <class RigidBlock>
MatrixX blockDiagonal(const std::vector<BlockLayout>& blocks, Index dofs, const std::vector<Scalar>& dense,
                      RigidBlock rigidBlock) {
  MatrixX m = MatrixX::Zero(dofs, dofs);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const BlockLayout& b = blocks[i];
    if (b.rigid)
      m.block<6, 6>(b.velocityOffset, b.velocityOffset) = rigidBlock(i);
    else
      m.block(b.velocityOffset, b.velocityOffset, b.size, b.size) =
          Eigen::Map<const MatrixX>(dense.data() + b.matrixOffset, b.size, b.size);
  }
  return m;
}
}  // namespace

MatrixX ImpactProblem::denseMass() const {
  return blockDiagonal(m_blocks, dofCount(), m_mass, [this](std::size_t i) { return m_rigid[i].mass(); });
}

MatrixX ImpactProblem::denseInverseMass() const {
  return blockDiagonal(m_blocks, dofCount(), m_inverseMass, [this](std::size_t i) { return m_rigid[i].inverse(); });
}

namespace {
MatrixX denseRows(const std::vector<RowLayout>& rows, const std::vector<BlockLayout>& blocks,
                  const std::vector<Scalar>& coefficients, Index dofs) {
  MatrixX j = MatrixX::Zero(static_cast<Index>(rows.size()), dofs);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (const RowTerm& t : rows[i].terms) {
      if (t.block == kNoBlock) continue;
      const BlockLayout& b = blocks[static_cast<std::size_t>(t.block)];
      j.row(static_cast<Index>(i)).segment(b.velocityOffset, b.size) =
          Eigen::Map<const VectorX>(coefficients.data() + t.coefficientOffset, b.size).transpose();
    }
  return j;
}
}  // namespace

MatrixX ImpactProblem::denseContactJacobian() const {
  return denseRows(m_contacts, m_blocks, m_rowCoefficients, dofCount());
}

MatrixX ImpactProblem::denseBilateralJacobian() const {
  return denseRows(m_bilaterals, m_blocks, m_rowCoefficients, dofCount());
}

VectorX ImpactProblem::contactBiases() const {
  VectorX b(contactCount());
  for (int i = 0; i < contactCount(); ++i) b[i] = m_contacts[static_cast<std::size_t>(i)].bias;
  return b;
}

Scalar ImpactProblem::kineticEnergy(const Eigen::Ref<const VectorX>& v) const {
  Scalar energy = 0;
  for (std::size_t i = 0; i < m_blocks.size(); ++i) {
    const BlockLayout& b = m_blocks[i];
    const auto vb = v.segment(b.velocityOffset, b.size);
    // A rigid block's M materialised: the same product as a dense block's.
    const Matrix6 rigidMass = b.rigid ? m_rigid[i].mass() : Matrix6();
    const Scalar* mass = b.rigid ? rigidMass.data() : m_mass.data() + b.matrixOffset;
    energy += vb.dot(Eigen::Map<const MatrixX>(mass, b.size, b.size) * vb);
  }
  return 0.5 * energy;
}

}  // namespace propimpact
