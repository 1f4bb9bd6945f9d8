// ImpactProblem's rigid bodies (addRigidBody): the checks, the common free
// body's fast path, locked axes, and the block's compact M and M⁻¹. Apart from
// ImpactProblem.cpp so that each file stays readable (and within 500 lines).
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "Capacity.h"
#include "propimpact/core/Errors.h"
#include "propimpact/core/ImpactProblem.h"

namespace propimpact {
namespace {
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

// The inverse of a symmetric 3 × 3 A through its cofactors, if A is positive
// definite with every pivot of A = L D Lᵀ above \p floor (a Cholesky factor
// has L_kk² = D_k, so this is the factorisation's test without running
// Eigen's generic kernels, which were a fifth of addRigidBody's instructions
// in the core chain's profile). The pivots are a00, c22 / a00 and det / c22.
template <typename In, typename Out>
bool invertPositiveDefinite(const In& a, Scalar floor, Out& inverse) {
  const Scalar c00 = a(1, 1) * a(2, 2) - a(1, 2) * a(1, 2);
  const Scalar c01 = a(0, 2) * a(1, 2) - a(0, 1) * a(2, 2);
  const Scalar c02 = a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1);
  const Scalar c11 = a(0, 0) * a(2, 2) - a(0, 2) * a(0, 2);
  const Scalar c12 = a(0, 1) * a(0, 2) - a(0, 0) * a(1, 2);
  const Scalar c22 = a(0, 0) * a(1, 1) - a(0, 1) * a(0, 1);
  const Scalar det = a(0, 0) * c00 + a(0, 1) * c01 + a(0, 2) * c02;
  if (!(a(0, 0) > floor) || !(c22 > floor * a(0, 0)) || !(det > floor * c22)) return false;
  const Scalar scale = 1 / det;
  // Entry by entry: Eigen's comma initializer checked each one (callgrind).
  inverse(0, 0) = c00 * scale;
  inverse(1, 0) = inverse(0, 1) = c01 * scale;
  inverse(2, 0) = inverse(0, 2) = c02 * scale;
  inverse(1, 1) = c11 * scale;
  inverse(2, 1) = inverse(1, 2) = c12 * scale;
  inverse(2, 2) = c22 * scale;
  return true;
}

// Cramer's rule above loses about κ²ε of the inverse's smallest principal
// value (κ = λmax/λmin of A, ε the machine epsilon): a hull whose inverse
// inertia had κ = 4.4e8 got an inertia with a negative principal value, and
// a spin's energy of −4.1 J where it was 5.16 J (world fuzz finding
// world-hull-of-inertia-ratio-4e8-...-indefinite-inverted-inertia-at-240-hz).
// Past this product max|A| · max|A⁻¹| (≥ κ/9; κ²ε ≤ 2e-8 below it) the
// inverse is taken from A's eigen-decomposition instead, whose principal
// values keep A's own relative accuracy.
constexpr Scalar kCofactorProductLimit = 1e4;

// Replaces \p inverse, Cramer's inverse of the SPD \p a, by the inverse through
// a's eigenvalues when their product of largest entries is past the limit;
// false if a principal value is then at or below the pseudo-inverse's
// relative 1e-12 (the general path decides).
template <typename In, typename Out>
bool keepInverseAccurate(const In& a, Scalar product, Out& inverse) {
  if (product <= kCofactorProductLimit) return true;
  const Eigen::SelfAdjointEigenSolver<Matrix3> eig{Matrix3(a)};
  const Vector3 values = eig.eigenvalues();
  if (!(values.minCoeff() > 1e-12 * values.maxCoeff())) return false;
  const Matrix3 full = eig.eigenvectors() * values.cwiseInverse().asDiagonal() * eig.eigenvectors().transpose();
  inverse = 0.5 * (full + full.transpose());
  return true;
}

std::string describeFractionalFactor(const Vector3& factor, const char* which) {
  int k = 0;
  while (k < 2 && (factor[k] == 0 || factor[k] == 1)) ++k;
  return std::string(which) + " factor component " + std::to_string(k) + " = " + std::to_string(factor[k]) +
         " (must be 0 or 1)";
}

inline bool allOnes(const Vector3& factor) { return factor[0] == 1 && factor[1] == 1 && factor[2] == 1; }

// allOnes of both factors, on bit patterns: only one double compares equal
// to 1.0, so this is the same test with one branch instead of six.
inline bool freeFactors(const RigidBodyInput& body) {
  static_assert(sizeof(Scalar) == sizeof(std::uint64_t), "compares doubles as 64-bit words");
  const Scalar one = 1;
  std::uint64_t oneBits;
  std::memcpy(&oneBits, &one, sizeof oneBits);
  std::uint64_t differ = 0;
  for (const Vector3* factor : {&body.linearFactor, &body.angularFactor})
    for (int k = 0; k < 3; ++k) {
      std::uint64_t word;
      std::memcpy(&word, factor->data() + k, sizeof word);
      differ |= word ^ oneBits;
    }
  return differ == 0;
}

inline bool lockedOrFree(const Vector3& factor) {
  const auto zeroOrOne = [](Scalar f) { return f == 0 || f == 1; };
  return zeroOrOne(factor[0]) && zeroOrOne(factor[1]) && zeroOrOne(factor[2]);
}

// A rigid block's angular 3 × 3 part in its compact storage (RigidInertia).
using AngularPart = Eigen::Map<Matrix3>;

// Whether the six off-diagonal entries of a 3 × 3 (column-major) are all +0,
// bit for bit: a body whose world inverse inertia is diagonal (a sphere, any
// body with principal axes along the world's), the core chain's every body.
inline bool offDiagonalIsPositiveZero(const Scalar* raw) {
  static_assert(sizeof(Scalar) == sizeof(std::uint64_t), "compares doubles as 64-bit words");
  std::uint64_t bits = 0;
  for (const int k : {1, 2, 3, 5, 6, 7}) {
    std::uint64_t word;
    std::memcpy(&word, raw + k, sizeof word);
    bits |= word;
  }
  return bits == 0;
}

// commonFreeBody for a diagonal inverse inertia with positive, finite
// symmetrised entries s_k: the same checks and the same bits as the general
// code, without its products of zeros. There every off-diagonal entry of
// 0.5 (a + aᵀ) is +0, every off-diagonal cofactor +0 − +0 = +0, a diagonal
// cofactor s_i s_j − 0 = s_i s_j, and det = s_0 c00 + 0 + 0 = s_0 c00: exact
// identities for positive finite s_k, so the pivots (a00, c22 / a00,
// det / c22), the inverse (c_kk / det on the diagonal, 0 · (1 / det) off it)
// and the conditioning bound come out as invertPositiveDefinite's. The
// general code's cofactors and loops were a third of addRigidBody (callgrind,
// the core chain).
bool diagonalFreeBody(const Scalar (&s)[3], AngularPart inverseInertia, AngularPart inertia) {
  const Scalar inertiaScale = std::max(std::max(s[0], s[1]), s[2]);  // not the initializer list: a call
  const Scalar floor = 1e-12 * inertiaScale;
  const Scalar c00 = s[1] * s[2];
  const Scalar c11 = s[0] * s[2];
  const Scalar c22 = s[0] * s[1];
  const Scalar det = s[0] * c00;
  // Whole 3 × 3s from local arrays: stores through the maps entry by entry
  // (the maps may alias s) were a sixth of addRigidBody (callgrind).
  const Scalar inverseEntries[9] = {s[0], 0, 0, 0, s[1], 0, 0, 0, s[2]};
  std::memcpy(inverseInertia.data(), inverseEntries, sizeof inverseEntries);
  if (!(s[0] > floor) || !(c22 > floor * s[0]) || !(det > floor * c22)) return false;
  const Scalar scale = 1 / det;
  const Scalar offDiagonal = Scalar(0) * scale;  // NaN when 1 / det overflows, as there
  const Scalar diagonal[3] = {c00 * scale, c11 * scale, c22 * scale};
  const Scalar inertiaEntries[9] = {diagonal[0], offDiagonal, offDiagonal, offDiagonal, diagonal[1],
                                    offDiagonal, offDiagonal, offDiagonal, diagonal[2]};
  std::memcpy(inertia.data(), inertiaEntries, sizeof inertiaEntries);
  const Scalar probe = (offDiagonal - offDiagonal) + (diagonal[0] - diagonal[0]) + (diagonal[1] - diagonal[1]) +
                       (diagonal[2] - diagonal[2]);
  const Scalar largest = std::max(std::max(std::abs(offDiagonal), diagonal[0]), std::max(diagonal[1], diagonal[2]));
  return probe == 0 && largest * inertiaScale <= 1e12;
}

// addRigidBody's common case in one pass of scalar code: a free body with
// finite data, positive mass and a well-conditioned inverse inertia (the
// conditions of its first return). Writes the symmetrised inverse inertia and
// its inverse, with the arithmetic of the general path, straight into the
// block's storage (copies through 3 × 3 temporaries were a fifth of
// addRigidBody, callgrind); false when any condition fails, and the general
// path then decides (and reports) as before, writing those entries again.
// The separate checks and Eigen's reductions were half of addRigidBody's
// instructions in the core chain (callgrind).
bool commonFreeBody(const RigidBodyInput& body, AngularPart inverseInertia, AngularPart inertia) {
  const Scalar* raw = body.inverseInertiaWorld.data();
  const Scalar* linear = body.linearVelocity.data();
  const Scalar* angular = body.angularVelocity.data();
  // x − x is 0 for a finite x and NaN otherwise, so one sum tests them all
  // (in any order: every term is 0 or NaN). Three independent sums, written
  // out: the loops' control was a tenth of addRigidBody (callgrind).
  const Scalar probeA = (raw[0] - raw[0]) + (raw[1] - raw[1]) + (raw[2] - raw[2]) + (raw[3] - raw[3]) +
                        (raw[4] - raw[4]) + (body.inverseMass - body.inverseMass);
  const Scalar probeB = (raw[5] - raw[5]) + (raw[6] - raw[6]) + (raw[7] - raw[7]) + (raw[8] - raw[8]);
  const Scalar probeC = (linear[0] - linear[0]) + (linear[1] - linear[1]) + (linear[2] - linear[2]) +
                        (angular[0] - angular[0]) + (angular[1] - angular[1]) + (angular[2] - angular[2]);
  if (!(probeA + probeB + probeC == 0) || !(body.inverseMass > 0) || !freeFactors(body)) return false;
  if (offDiagonalIsPositiveZero(raw)) {
    const Scalar symmetric[3] = {0.5 * (raw[0] + raw[0]), 0.5 * (raw[4] + raw[4]), 0.5 * (raw[8] + raw[8])};
    const auto positiveFinite = [](Scalar x) { return x > 0 && x < std::numeric_limits<Scalar>::infinity(); };
    if (positiveFinite(symmetric[0]) && positiveFinite(symmetric[1]) && positiveFinite(symmetric[2]))
      return diagonalFreeBody(symmetric, inverseInertia, inertia);
  }
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
  return inertiaProbe == 0 && inertiaLargest * inertiaScale <= 1e12 &&
         keepInverseAccurate(inverseInertia, inertiaLargest * inertiaScale, inertia);
}

// The common free body (commonFreeBody) written into its block's compact
// storage \p target; ImpactProblem adds the block only when this returns
// true, once the body passed every check. M = diag(m) ⊕ inertia,
// M⁻¹ = diag(1/m) ⊕ inverse inertia (the linear factors are all 1).
bool writeCommonFreeBody(const RigidBodyInput& body, RigidInertia& target) {
  if (!commonFreeBody(body, AngularPart(target.inverseAngular), AngularPart(target.angularMass))) return false;
  for (int k = 0; k < 3; ++k) target.inverseLinear[k] = body.inverseMass;
  target.linearMass = 1 / body.inverseMass;
  return true;
}

}  // namespace

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
  // Written where the new block's entry will be: m_rigid is indexed by block.
  detail::growWithin(m_rigid, m_blocks.size() + 1);
  if (writeCommonFreeBody(body, m_rigid[m_blocks.size()])) {
    // addBlock(6, true) inline, the velocity copied as two 3-vectors (stores
    // per component, which may alias body, and the call were a sixth of
    // this path, callgrind).
    const Index offset = m_dofs;
    m_dofs += 6;
    detail::growWithin(m_velocity, static_cast<std::size_t>(m_dofs));
    BlockLayout& layout = m_blocks.emplace_back();
    layout.velocityOffset = offset;
    layout.size = 6;
    layout.matrixOffset = m_matrixEntries;
    layout.rigid = true;
    Scalar* v = m_velocity.data() + offset;
    std::memcpy(v, body.linearVelocity.data(), 3 * sizeof(Scalar));
    std::memcpy(v + 3, body.angularVelocity.data(), 3 * sizeof(Scalar));
    return static_cast<int>(m_blocks.size()) - 1;
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
      inertia.cwiseAbs().maxCoeff() * inertiaScale <= 1e12 &&
      keepInverseAccurate(inverseInertia, inertia.cwiseAbs().maxCoeff() * inertiaScale, inertia))
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
  const int id = pushRigidBlock(body, angularMetric, symmetricPseudoInverse(inverseInertia));
  // Locked, or an inertia the fast path would not invert: M⁻¹ M may differ
  // from I, and the energy guard must look at the motion along the difference.
  m_blocks.back().immobileAxes = true;
  return id;
}

// M = diag(m) ⊕ angular inertia and M⁻¹ = diag(1/m · linear factor) ⊕ angular metric.
int ImpactProblem::pushRigidBlock(const RigidBodyInput& body, const Matrix3& angularMetric, const Matrix3& inertia) {
  detail::growWithin(m_rigid, m_blocks.size() + 1);
  RigidInertia& r = m_rigid[m_blocks.size()];
  const int id = addBlock(6, true);
  for (int k = 0; k < 3; ++k) r.inverseLinear[k] = body.inverseMass * body.linearFactor[k];
  r.linearMass = 1 / body.inverseMass;
  AngularPart(r.inverseAngular) = angularMetric;
  AngularPart(r.angularMass) = inertia;
  const BlockLayout& b = m_blocks.back();
  Eigen::Map<Vector3>(m_velocity.data() + b.velocityOffset) = body.linearVelocity;
  Eigen::Map<Vector3>(m_velocity.data() + b.velocityOffset + 3) = body.angularVelocity;
  return id;
}

}  // namespace propimpact
