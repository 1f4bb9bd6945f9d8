#include "propimpact/core/ImpactProblem.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
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

// Symmetric pseudo-inverse through an eigen-decomposition; eigenvalues below a
// relative threshold count as zero (infinite inertia about that axis).
Matrix3 symmetricPseudoInverse(const Matrix3& a) {
  Eigen::SelfAdjointEigenSolver<Matrix3> eig(a);
  const Vector3 values = eig.eigenvalues();
  const Scalar threshold = 1e-12 * values.cwiseAbs().maxCoeff();
  Vector3 inverted = Vector3::Zero();
  for (int k = 0; k < 3; ++k)
    if (values[k] > threshold) inverted[k] = 1 / values[k];
  return eig.eigenvectors() * inverted.asDiagonal() * eig.eigenvectors().transpose();
}

// Makes room for \p used entries; grows geometrically (within what reserve()
// sized when that suffices), never shrinks, and leaves what it does not need
// to fill to the caller.
void reserveEntries(std::vector<Scalar>& storage, Index used) {
  detail::growWithin(storage, static_cast<std::size_t>(used));
}

// The inverse of a symmetric 3 × 3 A through its cofactors, if A is positive
// definite with every pivot of A = L D Lᵀ above \p floor (a Cholesky factor
// has L_kk² = D_k, so this is the factorisation's test without running
// Eigen's generic kernels, which were a fifth of addRigidBody's instructions
// in the core chain's profile). The pivots are a00, c22 / a00 and det / c22.
bool invertPositiveDefinite(const Matrix3& a, Scalar floor, Matrix3& inverse) {
  const Scalar c00 = a(1, 1) * a(2, 2) - a(1, 2) * a(1, 2);
  const Scalar c01 = a(0, 2) * a(1, 2) - a(0, 1) * a(2, 2);
  const Scalar c02 = a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1);
  const Scalar c11 = a(0, 0) * a(2, 2) - a(0, 2) * a(0, 2);
  const Scalar c12 = a(0, 1) * a(0, 2) - a(0, 0) * a(1, 2);
  const Scalar c22 = a(0, 0) * a(1, 1) - a(0, 1) * a(0, 1);
  const Scalar det = a(0, 0) * c00 + a(0, 1) * c01 + a(0, 2) * c02;
  if (!(a(0, 0) > floor) || !(c22 > floor * a(0, 0)) || !(det > floor * c22)) return false;
  const Scalar scale = 1 / det;
  inverse << c00 * scale, c01 * scale, c02 * scale, c01 * scale, c11 * scale, c12 * scale, c02 * scale, c12 * scale,
      c22 * scale;
  return true;
}

std::string describeFractionalFactor(const Vector3& factor, const char* which) {
  int k = 0;
  while (k < 2 && (factor[k] == 0 || factor[k] == 1)) ++k;
  return std::string(which) + " factor component " + std::to_string(k) + " = " + std::to_string(factor[k]) +
         " (must be 0 or 1)";
}

inline bool allOnes(const Vector3& factor) { return factor[0] == 1 && factor[1] == 1 && factor[2] == 1; }

inline bool lockedOrFree(const Vector3& factor) {
  const auto zeroOrOne = [](Scalar f) { return f == 0 || f == 1; };
  return zeroOrOne(factor[0]) && zeroOrOne(factor[1]) && zeroOrOne(factor[2]);
}

// addRigidBody's common case in one pass of scalar code: a free body with
// finite data, positive mass and a well-conditioned inverse inertia (the
// conditions of its first return). Fills the symmetrised inverse inertia and
// its inverse with the arithmetic of the general path; false when any
// condition fails, and the general path then decides (and reports) as before.
// The separate checks and Eigen's reductions were half of addRigidBody's
// instructions in the core chain (callgrind).
bool commonFreeBody(const RigidBodyInput& body, Matrix3& inverseInertia, Matrix3& inertia) {
  const Scalar* raw = body.inverseInertiaWorld.data();
  const Scalar* linear = body.linearVelocity.data();
  const Scalar* angular = body.angularVelocity.data();
  // x − x is 0 for a finite x and NaN otherwise, so one sum tests them all.
  Scalar probe = body.inverseMass - body.inverseMass;
  for (int k = 0; k < 9; ++k) probe += raw[k] - raw[k];
  for (int k = 0; k < 3; ++k) probe += (linear[k] - linear[k]) + (angular[k] - angular[k]);
  if (!(probe == 0) || !(body.inverseMass > 0) || !allOnes(body.linearFactor) || !allOnes(body.angularFactor))
    return false;
  // With finite entries the largest |a − aᵀ| and |sym(a)| do not depend on
  // the order they are taken in, and a symmetric matrix's upper triangle holds
  // every value (the diagonal adds 0 to the asymmetry).
  Scalar asymmetry = 0;
  Scalar inertiaScale = 0;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r <= c; ++r) {
      const Scalar upper = raw[3 * c + r];
      const Scalar lower = raw[3 * r + c];
      if (r != c) asymmetry = std::max(asymmetry, std::abs(upper - lower));
      const Scalar symmetric = 0.5 * (upper + lower);  // entry (r, c) of 0.5 (a + aᵀ), and (c, r)
      inverseInertia(r, c) = symmetric;
      inverseInertia(c, r) = symmetric;
      inertiaScale = std::max(inertiaScale, std::abs(symmetric));
    }
  if (!(asymmetry <= 1e-9 * inertiaScale) || !invertPositiveDefinite(inverseInertia, 1e-12 * inertiaScale, inertia))
    return false;
  Scalar inertiaProbe = 0;  // invertPositiveDefinite writes a symmetric inverse
  Scalar inertiaLargest = 0;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r <= c; ++r) {
      const Scalar entry = inertia(r, c);
      inertiaProbe += entry - entry;
      inertiaLargest = std::max(inertiaLargest, std::abs(entry));
    }
  return inertiaProbe == 0 && inertiaLargest * inertiaScale <= 1e12;
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
  detail::reserveCapacity(m_contacts, bounds.contacts);
  detail::reserveCapacity(m_bilaterals, bounds.bilaterals);
  detail::reserveCapacity(m_rowCoefficients, bounds.rowEntries);
}

void ImpactProblem::clearRows() {
  m_contacts.clear();
  m_bilaterals.clear();
  m_rowEntries = 0;
}

int ImpactProblem::addBlock(Index size) {
  BlockLayout layout;
  layout.velocityOffset = m_dofs;
  layout.size = size;
  layout.matrixOffset = m_matrixEntries;
  m_dofs += size;
  m_matrixEntries += size * size;
  reserveEntries(m_velocity, m_dofs);
  reserveEntries(m_mass, m_matrixEntries);
  reserveEntries(m_inverseMass, m_matrixEntries);
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
  const int id = addBlock(n);
  const BlockLayout& b = m_blocks.back();
  m_rigidZeroEntries = std::min(m_rigidZeroEntries, b.matrixOffset);  // no longer a rigid block's zeros from here
  Eigen::Map<MatrixX>(m_mass.data() + b.matrixOffset, n, n) = symmetric;
  Eigen::Map<MatrixX>(m_inverseMass.data() + b.matrixOffset, n, n) = inverse;
  Eigen::Map<VectorX>(m_velocity.data() + b.velocityOffset, n) = velocity;
  return id;
}

namespace {

// The projection that locks axes cancels: what it leaves along a direction
// the locked axes (nearly) cover is round-off of the inverse inertia's scale,
// and may be negative (0, 5.7e-14 and −1.4e-14 on the diagonal in fuzz
// finding rigid-24dof-62-contacts-row-of-zero-check-metric-moved-unseeded,
// where rows just above the resolver's cut-off then took impulses of about
// 1e4 through it). Principal values at or below the pseudo-inverse's
// relative 1e-12 of that scale are zeros; the locked rows and columns are
// zeroed again after, which keeps the metric positive semi-definite (a
// principal submatrix of one).
void removeRoundOffMobility(Matrix3& metric, const Vector3& angularFactor, Scalar scale) {
  const Eigen::SelfAdjointEigenSolver<Matrix3> eig(metric);
  Vector3 values = eig.eigenvalues();
  bool cut = false;
  for (int k = 0; k < 3; ++k)
    if (values[k] <= 1e-12 * scale && values[k] != 0) {
      values[k] = 0;
      cut = true;
    }
  if (!cut) return;
  metric = eig.eigenvectors() * values.asDiagonal() * eig.eigenvectors().transpose();
  for (int k = 0; k < 3; ++k)
    if (angularFactor[k] == 0) {
      metric.row(k).setZero();
      metric.col(k).setZero();
    }
}

}  // namespace

int ImpactProblem::addRigidBody(const RigidBodyInput& body) {
  {
    Matrix3 inverseInertia;
    Matrix3 inertia;
    if (commonFreeBody(body, inverseInertia, inertia)) return pushRigidBlock(body, inverseInertia, inertia);
  }
  // Finiteness and symmetry of the inverse inertia in one pass of scalar
  // code (Eigen's reductions were a third of this function's cost).
  const Matrix3& raw = body.inverseInertiaWorld;
  bool finite = std::isfinite(body.inverseMass);
  Scalar asymmetry = 0;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) {
      finite = finite && std::isfinite(raw(r, c));
      asymmetry = std::max(asymmetry, std::abs(raw(r, c) - raw(c, r)));
    }
  if (!finite) return reject(ErrorCode::NonFiniteMass, [] { return "rigid body inverse mass or inverse inertia"; });
  if (!(body.inverseMass > 0))
    return reject(ErrorCode::NonPositiveMass, [&] {
      return "rigid body inverse mass " + std::to_string(body.inverseMass) + " (dynamic bodies need 0 < m < inf)";
    });
  if (!body.linearVelocity.allFinite() || !body.angularVelocity.allFinite())
    return reject(ErrorCode::NonFiniteVelocity, [] { return "rigid body velocity"; });
  // Scalar compares: Eigen's == on vectors was an out-of-line reduction, a
  // tenth of this function's instructions in the core chain (callgrind).
  const bool free = allOnes(body.linearFactor) && allOnes(body.angularFactor);
  if (!free && !lockedOrFree(body.linearFactor))
    return reject(ErrorCode::FractionalFactor, [&] { return describeFractionalFactor(body.linearFactor, "linear"); });
  if (!free && !lockedOrFree(body.angularFactor))
    return reject(ErrorCode::FractionalFactor, [&] { return describeFractionalFactor(body.angularFactor, "angular"); });
  const Matrix3 inverseInertia = 0.5 * (raw + raw.transpose());
  const Scalar inertiaScale = inverseInertia.cwiseAbs().maxCoeff();
  // The common case, without eigen-decompositions: a free body whose inverse
  // inertia is well conditioned. The pivots' cut-off is the pseudo-inverse's
  // relative 1e-12, and the inverse is checked too: a zero principal value
  // rotated into round-off (~1e-17) passed a looser pivot test and gave a
  // mass of 1e16 with a negative eigenvalue (fuzz finding
  // capped-plastic-impulses-miss-velocity-change). For SPD 3 × 3 matrices
  // max|A| · max|A⁻¹| ≥ λmax / (9 λmin), so the bound keeps λmin/λmax above
  // about 1e-13; anything worse takes the eigen-decomposition path.
  Matrix3 inertia;
  if (free && asymmetry <= 1e-9 * inertiaScale &&
      invertPositiveDefinite(inverseInertia, 1e-12 * inertiaScale, inertia) && inertia.allFinite() &&
      inertia.cwiseAbs().maxCoeff() * inertiaScale <= 1e12)
    return pushRigidBlock(body, inverseInertia, inertia);
  if (asymmetry > 1e-9 * inertiaScale ||
      Eigen::SelfAdjointEigenSolver<Matrix3>(inverseInertia).eigenvalues().minCoeff() < -1e-12 * inertiaScale)
    return reject(ErrorCode::NonPositiveMass,
                  [] { return "rigid body inverse inertia is not symmetric positive semi-definite"; });

  // Locking axes is a bilateral constraint C ω = 0; the admissible metric is
  // I⁻¹ − I⁻¹Cᵀ(C I⁻¹ Cᵀ)⁺ C I⁻¹, which equals S (SᵀIS)⁻¹ Sᵀ when I⁻¹ is
  // invertible and stays symmetric (energy-preserving) when it is not.
  Matrix3 angularMetric = inverseInertia;
  bool locked = false;
  for (int k = 0; k < 3; ++k) {
    if (body.angularFactor[k] != 0) continue;
    locked = true;
    const Vector3 column = angularMetric.col(k);
    const Scalar pivot = column[k];
    if (pivot > 1e-14 * inertiaScale) angularMetric -= column * column.transpose() / pivot;
    angularMetric.row(k).setZero();
    angularMetric.col(k).setZero();
  }
  if (locked) removeRoundOffMobility(angularMetric, body.angularFactor, inertiaScale);
  return pushRigidBlock(body, angularMetric, symmetricPseudoInverse(inverseInertia));
}

// M = diag(m) ⊕ angular inertia and M⁻¹ = diag(1/m · linear factor) ⊕ angular metric.
int ImpactProblem::pushRigidBlock(const RigidBodyInput& body, const Matrix3& angularMetric, const Matrix3& inertia) {
  const int id = addBlock(6);
  BlockLayout& b = m_blocks.back();
  b.rigid = true;
  Eigen::Map<Matrix6> mass(m_mass.data() + b.matrixOffset);
  Eigen::Map<Matrix6> inverseMass(m_inverseMass.data() + b.matrixOffset);
  // A rigid block written at this offset before (and not overwritten by a
  // dense block since) left zeros wherever this one has them: only the
  // diagonal and the angular part are written again. Zero-filling both
  // 6 × 6 matrices was a seventh of addRigidBody's instructions (callgrind).
  if (b.matrixOffset + 36 > m_rigidZeroEntries) {
    mass.setZero();
    inverseMass.setZero();
    if (b.matrixOffset == m_rigidZeroEntries) m_rigidZeroEntries += 36;
  }
  for (int k = 0; k < 3; ++k) {
    inverseMass(k, k) = body.inverseMass * body.linearFactor[k];
    mass(k, k) = 1 / body.inverseMass;
  }
  inverseMass.bottomRightCorner<3, 3>() = angularMetric;
  mass.bottomRightCorner<3, 3>() = inertia;
  Eigen::Map<Vector3>(m_velocity.data() + b.velocityOffset) = body.linearVelocity;
  Eigen::Map<Vector3>(m_velocity.data() + b.velocityOffset + 3) = body.angularVelocity;
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

MatrixX ImpactProblem::denseMass() const {
  MatrixX m = MatrixX::Zero(dofCount(), dofCount());
  for (const BlockLayout& b : m_blocks)
    m.block(b.velocityOffset, b.velocityOffset, b.size, b.size) =
        Eigen::Map<const MatrixX>(m_mass.data() + b.matrixOffset, b.size, b.size);
  return m;
}

MatrixX ImpactProblem::denseInverseMass() const {
  MatrixX m = MatrixX::Zero(dofCount(), dofCount());
  for (const BlockLayout& b : m_blocks)
    m.block(b.velocityOffset, b.velocityOffset, b.size, b.size) =
        Eigen::Map<const MatrixX>(m_inverseMass.data() + b.matrixOffset, b.size, b.size);
  return m;
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
  for (const BlockLayout& b : m_blocks) {
    const auto vb = v.segment(b.velocityOffset, b.size);
    energy += vb.dot(Eigen::Map<const MatrixX>(m_mass.data() + b.matrixOffset, b.size, b.size) * vb);
  }
  return 0.5 * energy;
}

}  // namespace propimpact
