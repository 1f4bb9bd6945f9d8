#pragma once
// Turns arbitrary bytes into an impact problem plus options, and checks the
// resolver's invariants on the outcome. Shared by the libFuzzer target (which
// aborts on a failure), the regression tests (which replay what the fuzzer
// found) and the determinism test (which feeds it seeded random bytes), so a
// finding reproduces under gcc in the ordinary test build.
//
// Exhausted input reads as zero bytes, and every rare feature is chosen by a
// non-zero byte value, so short inputs give small, plain problems.

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "propimpact/core/Errors.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"
#include "propimpact/core/ImpactResult.h"
#include "propimpact/core/ResolveOptions.h"

namespace propimpact::fuzz {

class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : m_data(data), m_size(size) {}
  std::uint8_t byte() { return m_pos < m_size ? m_data[m_pos++] : 0; }
  std::uint16_t u16() {
    const auto low = static_cast<std::uint16_t>(byte());
    return static_cast<std::uint16_t>(low | (static_cast<std::uint16_t>(byte()) << 8));
  }
  std::uint64_t u64() {
    std::uint64_t x = 0;
    for (int k = 0; k < 4; ++k) x = (x << 16) | u16();
    return x;
  }
  Scalar unit() { return u16() / Scalar(65535); }
  Scalar signedUnit() { return 2 * unit() - 1; }
  // Inclusive range; hi - lo < 256.
  int range(int lo, int hi) { return lo + static_cast<int>(byte() % (hi - lo + 1)); }
  // True with probability 1/oneIn; a zero byte (exhausted input) is false.
  bool chance(int oneIn) { return byte() % oneIn == static_cast<unsigned>(oneIn - 1); }
  Scalar power(Scalar loExponent, Scalar hiExponent) {
    return std::pow(Scalar(10), loExponent + (hiExponent - loExponent) * unit());
  }

 private:
  const std::uint8_t* m_data;
  std::size_t m_size;
  std::size_t m_pos = 0;
};

struct Case {
  ImpactProblem problem;
  ResolveOptions options;
  bool checkDeterminism = false;
  std::string description;
  /// The velocity the kinematic biases were made feasible for (empty without
  /// biases); check() takes it to bound how far from feasible the best outcome can be.
  VectorX witness;
};

namespace detail {

inline MatrixX randomRotation(ByteReader& in, Index n) {
  if (in.chance(5)) return MatrixX::Identity(n, n);
  MatrixX a(n, n);
  for (Index c = 0; c < n; ++c)
    for (Index r = 0; r < n; ++r) a(r, c) = in.signedUnit();
  Eigen::HouseholderQR<MatrixX> qr(a);
  return qr.householderQ();
}

// SPD with a spread of eigenvalues up to 1e14. The problem would reject (an
// allowed InputError) only a Cholesky pivot below 1e-12·√max|M|, far past that.
inline MatrixX randomSpd(ByteReader& in, Index n) {
  const Scalar base = -3 + 6 * in.unit();
  const Scalar spread = in.chance(4) ? 14 * in.unit() : 3 * in.unit();
  VectorX eigenvalues(n);
  for (Index k = 0; k < n; ++k) eigenvalues[k] = std::pow(Scalar(10), base + spread * in.unit());
  const MatrixX q = randomRotation(in, n);
  MatrixX m = q * eigenvalues.asDiagonal() * q.transpose();
  return 0.5 * (m + m.transpose());
}

inline VectorX randomVelocity(ByteReader& in, Index n, Scalar scale) {
  VectorX v(n);
  for (Index k = 0; k < n; ++k) v[k] = in.chance(4) ? 0 : scale * in.signedUnit();
  return v;
}

inline Vector3 randomDirection(ByteReader& in) {
  Vector3 n(in.signedUnit(), in.signedUnit(), in.signedUnit());
  if (!(n.norm() > 1e-3)) return Vector3::UnitZ();
  return n.normalized();
}

struct RowRecord {
  int blockA = kNoBlock;
  int blockB = kNoBlock;
  VectorX a, b;
};

}  // namespace detail

/// Builds a case from bytes. Throws InputError when the bytes describe an
/// invalid problem (the caller treats that as a rejected input).
inline void build(const std::uint8_t* data, std::size_t size, Case& out) {
  using namespace detail;
  ByteReader in(data, size);
  ImpactProblem& p = out.problem;
  p.clear();
  out.options = ResolveOptions{};
  std::ostringstream text;

  const int kind = in.byte() % 4;  // 0 one dense block, 1 dense blocks, 2 rigid bodies, 3 mixed
  const Scalar velocityScale = in.power(-8, 8);
  std::vector<bool> rigid;
  const int blocks = kind == 0 ? 1 : in.range(1, kind == 1 ? 6 : 8);
  for (int k = 0; k < blocks; ++k) {
    const bool makeRigid = kind == 2 || (kind == 3 && in.chance(2));
    if (makeRigid) {
      RigidBodyInput body;
      body.inverseMass = in.power(-3, 3);
      Vector3 e;
      for (int a = 0; a < 3; ++a) e[a] = in.chance(8) ? 0 : in.power(-3, 3);
      const Eigen::Quaternion<Scalar> q(in.signedUnit(), in.signedUnit(), in.signedUnit(), in.signedUnit());
      const Matrix3 r = q.norm() > 1e-3 ? q.normalized().toRotationMatrix() : Matrix3::Identity();
      const Matrix3 inertia = r * e.asDiagonal() * r.transpose();
      body.inverseInertiaWorld = 0.5 * (inertia + inertia.transpose());
      for (int a = 0; a < 3; ++a) {
        if (in.chance(10)) body.linearFactor[a] = 0;
        if (in.chance(10)) body.angularFactor[a] = 0;
      }
      body.linearVelocity = randomVelocity(in, 3, velocityScale);
      body.angularVelocity = randomVelocity(in, 3, velocityScale);
      if (!in.chance(8)) {
        // Usually no motion along locked or infinite-inertia axes; sometimes
        // there is, and it then acts as a prescribed motion (see check()).
        body.linearVelocity = body.linearVelocity.cwiseProduct(body.linearFactor);
        Matrix3 lock = body.angularFactor.asDiagonal();
        Eigen::SelfAdjointEigenSolver<Matrix3> eig(body.inverseInertiaWorld);
        Matrix3 range = Matrix3::Zero();
        for (int a = 0; a < 3; ++a)
          if (eig.eigenvalues()[a] > 1e-12 * eig.eigenvalues().cwiseAbs().maxCoeff())
            range += eig.eigenvectors().col(a) * eig.eigenvectors().col(a).transpose();
        body.angularVelocity = lock * range * body.angularVelocity;
      }
      p.addRigidBody(body);
      rigid.push_back(true);
    } else {
      const Index n = kind == 0 ? in.range(1, 16) : in.range(1, 8);
      const MatrixX m = randomSpd(in, n);
      p.addDenseBlock(m, randomVelocity(in, n, velocityScale));
      rigid.push_back(false);
    }
  }

  const auto blockSize = [&](int b) { return p.block(b).size; };
  const auto freshCoefficients = [&](int block, Scalar sign) {
    const Index n = blockSize(block);
    VectorX c(n);
    if (rigid[static_cast<std::size_t>(block)]) {
      const Vector3 normal = randomDirection(in);
      const Vector3 offset = in.power(-2, 1) * Vector3(in.signedUnit(), in.signedUnit(), in.signedUnit());
      c << sign * normal, sign * offset.cross(normal);
    } else {
      const Scalar scale = in.power(-2, 2);
      for (Index k = 0; k < n; ++k) c[k] = in.chance(3) ? 0 : scale * in.signedUnit();
      if (!(c.squaredNorm() > 0)) c[0] = sign;
    }
    return c;
  };

  if (in.chance(8)) {
    const int count = in.range(1, 3);
    for (int k = 0; k < count; ++k) {
      const int a = in.u16() % blocks;
      const int b = blocks > 1 && in.chance(2) ? (a + 1 + in.u16() % (blocks - 1)) % blocks : kNoBlock;
      VectorX ca = freshCoefficients(a, 1);
      VectorX cb = b == kNoBlock ? VectorX() : freshCoefficients(b, -1);
      if (!in.chance(8)) {
        // A joint usually has no velocity error before the impact; one that
        // has it carries a prescribed motion through (see check()).
        const VectorX va = p.velocity().segment(p.block(a).velocityOffset, ca.size());
        const VectorX vb = b == kNoBlock ? VectorX() : VectorX(p.velocity().segment(p.block(b).velocityOffset, cb.size()));
        const Scalar vv = va.squaredNorm() + vb.squaredNorm();
        if (vv > 0) {
          const Scalar error = (ca.dot(va) + (b == kNoBlock ? Scalar(0) : cb.dot(vb))) / vv;
          const VectorX projectedA = ca - error * va;
          const VectorX projectedB = b == kNoBlock ? VectorX() : VectorX(cb - error * vb);
          if (projectedA.squaredNorm() + projectedB.squaredNorm() > 1e-6 * (ca.squaredNorm() + cb.squaredNorm())) {
            ca = projectedA;
            cb = projectedB;
          }
        }
      }
      p.addBilateralRow(a, ca, b, cb);
    }
  }

  // Kinematic biases come from a witness velocity v* = v0 + W x (W the
  // admissible inverse mass) that every contact sees as non-approaching, so a
  // feasible outcome exists; biases without one could ask for the impossible
  // (a ball crushed between two approaching walls).
  const bool withBias = in.chance(8);
  VectorX witness;
  if (withBias) {
    const MatrixX minv = p.denseInverseMass();
    MatrixX w = minv;
    if (p.bilateralCount() > 0) {
      const MatrixX bj = p.denseBilateralJacobian();
      const MatrixX schur = bj * minv * bj.transpose();
      Eigen::SelfAdjointEigenSolver<MatrixX> eig(schur);
      VectorX inverted = VectorX::Zero(schur.rows());
      for (Index k = 0; k < schur.rows(); ++k)
        if (eig.eigenvalues()[k] > 1e-12 * eig.eigenvalues().cwiseAbs().maxCoeff()) inverted[k] = 1 / eig.eigenvalues()[k];
      w = minv - minv * bj.transpose() * (eig.eigenvectors() * inverted.asDiagonal() * eig.eigenvectors().transpose()) *
                     bj * minv;
    }
    const MatrixX mass = p.denseMass();
    VectorX x(p.dofCount());
    for (Index k = 0; k < x.size(); ++k) x[k] = in.signedUnit();
    const VectorX direction = w * x;
    const Scalar size = std::sqrt(std::max(Scalar(0), direction.dot(mass * direction)));
    witness = p.velocity() + (size > 0 ? velocityScale * in.unit() / size : Scalar(0)) * direction;
  }
  out.witness = witness;
  const auto biasFor = [&](const RowRecord& row) -> Scalar {
    if (!withBias) return 0;
    Scalar jv = row.a.dot(witness.segment(p.block(row.blockA).velocityOffset, row.a.size()));
    if (row.blockB != kNoBlock) jv += row.b.dot(witness.segment(p.block(row.blockB).velocityOffset, row.b.size()));
    if (jv >= 0 && in.chance(2)) return 0;  // the witness already clears this row
    const Scalar slack = in.chance(3) ? 0 : velocityScale * in.unit();
    return -jv + slack;
  };

  const int restitutionMode = in.byte() % 4;  // 0 elastic, 1 plastic, 2 uniform, 3 mixed
  const Scalar uniformRestitution = in.unit();
  const int contacts = in.range(1, 64);
  std::vector<RowRecord> records;
  for (int i = 0; i < contacts; ++i) {
    Scalar restitution = 1;
    switch (restitutionMode) {
      case 1: restitution = 0; break;
      case 2: restitution = uniformRestitution; break;
      case 3: {
        const int pick = in.byte() % 3;
        restitution = pick == 0 ? 0 : pick == 1 ? 1 : in.unit();
        break;
      }
      default: break;
    }
    const std::uint64_t key = in.chance(6) ? in.u16() % 8 : UINT64_MAX;
    const int pattern = in.byte() % 10;
    RowRecord row;
    if (pattern >= 5 && pattern <= 8 && !records.empty()) {
      row = records[in.u16() % records.size()];
      if (pattern == 5) {  // nearly parallel
        const Scalar eps = in.power(-14, -2);
        for (Index k = 0; k < row.a.size(); ++k) row.a[k] += eps * in.signedUnit();
        for (Index k = 0; k < row.b.size(); ++k) row.b[k] += eps * in.signedUnit();
      } else if (pattern == 6) {  // opposing (a body between two walls)
        row.a = -row.a;
        row.b = -row.b;
      } else if (pattern == 8) {  // same direction, other scale
        const Scalar s = in.power(-3, 3);
        row.a *= s;
        row.b *= s;
      }  // 7: exact duplicate
    } else if (pattern == 9 && blocks >= 1) {
      const int a = in.u16() % blocks;
      const int b = blocks > 1 && in.chance(2) ? (a + 1 + in.u16() % (blocks - 1)) % blocks : kNoBlock;
      if (rigid[static_cast<std::size_t>(a)] && (b == kNoBlock || rigid[static_cast<std::size_t>(b)])) {
        const Vector3 normal = randomDirection(in);
        const Vector3 ra = in.power(-2, 1) * Vector3(in.signedUnit(), in.signedUnit(), in.signedUnit());
        const Vector3 rb = in.power(-2, 1) * Vector3(in.signedUnit(), in.signedUnit(), in.signedUnit());
        // The same row addRigidContact builds, for the bias and for later copies.
        const Vector3 unit = normal.normalized();
        row.blockA = a;
        row.a.resize(6);
        row.a << unit, ra.cross(unit);
        if (b != kNoBlock) {
          row.blockB = b;
          row.b.resize(6);
          row.b << -unit, -rb.cross(unit);
        }
        p.addRigidContact(a, b, normal, ra, rb, restitution, biasFor(row), key);
        records.push_back(row);
        continue;
      }
      row.blockA = a;
      row.a = freshCoefficients(a, 1);
      if (b != kNoBlock) {
        row.blockB = b;
        row.b = freshCoefficients(b, -1);
      }
    } else {
      row.blockA = in.u16() % blocks;
      row.a = freshCoefficients(row.blockA, 1);
      if (blocks > 1 && in.chance(2)) {
        row.blockB = (row.blockA + 1 + in.u16() % (blocks - 1)) % blocks;
        row.b = freshCoefficients(row.blockB, -1);
      }
    }
    p.addContactRow(row.blockA, row.a, row.blockB, row.blockB == kNoBlock ? VectorX() : row.b, restitution,
                    biasFor(row), key);
    records.push_back(row);
  }

  ResolveOptions& o = out.options;
  if (in.chance(6)) {
    o.growFromSeeds = true;
    for (int i = 0; i < p.contactCount(); ++i) p.setSeed(i, in.chance(2));
  }
  o.ordering = static_cast<OrderingPolicy>(in.byte() % 5);
  o.randomSeed = in.u64();
  o.problemKey = in.u64();
  if (in.chance(6)) o.reflectionCap = in.range(1, 40);
  if (in.chance(8)) o.feasibilityTolerance = 1e-6;
  if (in.chance(8)) {
    o.computeXi = true;
    o.xiOrders = static_cast<XiOrderSet>(in.byte() % 3);
  }
  if (in.chance(8)) o.analysisContactLimit = in.range(0, 64);
  if (in.chance(8)) o.enumerationContactLimit = in.range(0, 8);
  if (in.chance(8)) {
    o.plasticDenseLimit = in.range(0, 4);
    o.plasticIterativeSweepCap = 1 + in.u16() % 2000;
  }
  out.checkDeterminism = in.chance(4);

  text << "kind " << kind << ", " << p.blockCount() << " blocks, " << p.dofCount() << " dofs, " << p.contactCount()
       << " contacts, " << p.bilateralCount() << " bilateral, restitution mode " << restitutionMode
       << (withBias ? ", bias" : "") << ", ordering " << toString(o.ordering)
       << (o.growFromSeeds ? ", grow" : "") << ", cap " << o.reflectionCap << ", dense limit "
       << o.plasticDenseLimit;
  out.description = text.str();
}

/// Relative tolerances of the checks. The resolver itself works to
/// feasibilityTolerance (1e-10 by default); the checks allow round-off on top.
struct Tolerances {
  Scalar feasibility = 1e-8;
  Scalar energy = 1e-9;
  Scalar momentum = 1e-7;
  Scalar plasticResidual = 1e-6;
  Scalar cancellation = 1e-13;  // relative to the sum of the impulses' sizes (≈ 450 ulps)
};

inline bool sameBits(const VectorX& a, const VectorX& b) {
  return a.size() == b.size() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(Scalar)) == 0);
}

/// M⁻¹ restricted to the motions the joints admit, M⁻¹ − M⁻¹Bᵀ(BM⁻¹Bᵀ)⁺BM⁻¹,
/// computed as (L U⊥)(L U⊥)ᵀ with M⁻¹ = LLᵀ and U⊥ the left null space of
/// A = LᵀBᵀ from an SVD (the resolver takes it from a QR: an independent
/// route to the same matrix). Singular values at or below 1e-6 of the largest
/// count as zero, the resolver's documented rank cut-off.
inline MatrixX admissibleInverseMass(const ImpactProblem& p) {
  const MatrixX minv = p.denseInverseMass();
  if (p.bilateralCount() == 0) return minv;
  const Eigen::SelfAdjointEigenSolver<MatrixX> eig(minv);
  const MatrixX factor = eig.eigenvectors() * eig.eigenvalues().cwiseMax(Scalar(0)).cwiseSqrt().asDiagonal();
  const MatrixX a = factor.transpose() * p.denseBilateralJacobian().transpose();
  const Eigen::JacobiSVD<MatrixX> svd(a, Eigen::ComputeFullU);
  const VectorX& values = svd.singularValues();
  Index rank = 0;
  for (Index k = 0; k < values.size(); ++k)
    if (values[k] > 1e-6 * values[0]) ++rank;
  const MatrixX admissible = factor * svd.matrixU().rightCols(a.rows() - rank);
  return admissible * admissible.transpose();
}

/// The largest singular value of A = LᵀBᵀ (M⁻¹ = LLᵀ) that the rank cut-off
/// (1e-6 of the largest) drops: joint rows within that of the others' span are
/// treated as dependent and enforced only to it. Zero when none is dropped.
inline Scalar droppedJointSingularValue(const ImpactProblem& p) {
  if (p.bilateralCount() == 0) return 0;
  const Eigen::SelfAdjointEigenSolver<MatrixX> eig(p.denseInverseMass());
  const MatrixX factor = eig.eigenvectors() * eig.eigenvalues().cwiseMax(Scalar(0)).cwiseSqrt().asDiagonal();
  const MatrixX a = factor.transpose() * p.denseBilateralJacobian().transpose();
  const Eigen::JacobiSVD<MatrixX> svd(a);
  const VectorX& values = svd.singularValues();
  Scalar dropped = 0;
  for (Index k = 0; k < values.size(); ++k)
    if (values[k] <= 1e-6 * values[0]) dropped = std::max(dropped, values[k]);
  return dropped;
}

/// Per block, a representative block of its joint-connected group (blocks
/// that bilateral rows tie together share one).
inline std::vector<int> jointGroups(const ImpactProblem& p) {
  std::vector<int> parent(static_cast<std::size_t>(p.blockCount()));
  for (int b = 0; b < p.blockCount(); ++b) parent[static_cast<std::size_t>(b)] = b;
  const auto root = [&](int b) {
    while (parent[static_cast<std::size_t>(b)] != b) b = parent[static_cast<std::size_t>(b)];
    return b;
  };
  for (int k = 0; k < p.bilateralCount(); ++k) {
    const RowLayout& row = p.bilateral(k);
    if (row.terms[1].block != kNoBlock) parent[static_cast<std::size_t>(root(row.terms[0].block))] = root(row.terms[1].block);
  }
  for (int b = 0; b < p.blockCount(); ++b) parent[static_cast<std::size_t>(b)] = root(b);
  return parent;
}

/// The largest κ(M) over the groups of blocks joints tie together (blocks
/// without joints do not count): max eigenvalue of the group's M over its
/// smallest positive one.
inline Scalar jointGroupConditioning(const ImpactProblem& p) {
  const int blocks = p.blockCount();
  const std::vector<int> group = jointGroups(p);
  const auto root = [&](int b) { return group[static_cast<std::size_t>(b)]; };
  std::vector<char> jointed(static_cast<std::size_t>(blocks), 0);
  for (int k = 0; k < p.bilateralCount(); ++k)
    for (const RowTerm& t : p.bilateral(k).terms)
      if (t.block != kNoBlock) jointed[static_cast<std::size_t>(t.block)] = 1;
  const MatrixX mass = p.denseMass();
  std::vector<Scalar> largest(static_cast<std::size_t>(blocks), 0), smallest(static_cast<std::size_t>(blocks), INFINITY);
  for (int b = 0; b < blocks; ++b) {
    if (!jointed[static_cast<std::size_t>(b)]) continue;
    const BlockLayout& layout = p.block(b);
    const Eigen::SelfAdjointEigenSolver<MatrixX> eig(
        mass.block(layout.velocityOffset, layout.velocityOffset, layout.size, layout.size), Eigen::EigenvaluesOnly);
    const Scalar top = eig.eigenvalues().maxCoeff();
    const auto g = static_cast<std::size_t>(root(b));
    largest[g] = std::max(largest[g], top);
    for (Index k = 0; k < layout.size; ++k)
      if (eig.eigenvalues()[k] > 1e-12 * top) smallest[g] = std::min(smallest[g], eig.eigenvalues()[k]);
  }
  Scalar conditioning = 1;
  for (int b = 0; b < blocks; ++b)
    if (largest[static_cast<std::size_t>(b)] > 0)
      conditioning = std::max(conditioning, largest[static_cast<std::size_t>(b)] / smallest[static_cast<std::size_t>(b)]);
  return conditioning;
}

/// Per contact row, what "round-off of J M⁻¹ Jᵀ" is measured against:
/// Σ over the joint-connected groups it touches of |J_group|² · max|M⁻¹_group|
/// (ImpactResolver's documented reference).
inline VectorX rowReferences(const ImpactProblem& p, const MatrixX& j) {
  const int blocks = p.blockCount();
  const std::vector<int> group = jointGroups(p);
  const auto root = [&](int b) { return group[static_cast<std::size_t>(b)]; };
  const MatrixX minv = p.denseInverseMass();
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

/// 1 for a contact row some admissible motion moves, 0 for one the resolver
/// ignores: J M⁻¹_c Jᵀ at most 1e-13 of its reference (rowReferences).
inline VectorX movableRows(const ImpactProblem& p, const MatrixX& j, const MatrixX& admissible) {
  const VectorX references = rowReferences(p, j);
  VectorX movable = VectorX::Zero(j.rows());
  for (Index i = 0; i < j.rows(); ++i) {
    const Scalar d = j.row(i) * admissible * j.row(i).transpose();
    movable[i] = d > 1e-13 * references[i] ? 1 : 0;
  }
  return movable;
}

/// Checks every invariant; returns an empty string when all hold, else what failed.
inline std::string check(const ImpactProblem& p, const ResolveOptions& o, const ImpactResult& r,
                         const Tolerances& tol = {}, const VectorX& witness = VectorX()) {
  std::ostringstream fail;
  const Index n = p.dofCount();
  const int m = p.contactCount();
  if (r.velocity.size() != n || r.impulses.size() != m || r.inCluster.size() != static_cast<std::size_t>(m))
    return "result sizes do not match the problem";
  if (!r.velocity.allFinite()) return "non-finite velocity";
  if (!r.impulses.allFinite()) return "non-finite impulse";
  if (!std::isfinite(r.energyAfter) || !std::isfinite(r.alpha) || !std::isfinite(r.restitution))
    return "non-finite report";
  if (r.reflections != static_cast<std::int64_t>(r.sequence.size())) return "reflections != sequence length";
  if (r.reflections > r.reflectionCap) return "reflections exceed the cap";
  if (o.reflectionCap > 0 && r.reflectionCap != o.reflectionCap) return "cap in force differs from the option";
  if (r.capHit != (r.fallback != Fallback::None)) return "capHit and fallback disagree";
  for (std::size_t k = 0; k < r.sequence.size(); ++k) {
    if (r.sequence[k] < 0 || r.sequence[k] >= m) return "sequence names a contact out of range";
    if (k > 0 && r.sequence[k] == r.sequence[k - 1]) return "sequence repeats a contact twice in a row (Lemma 1)";
  }
  for (int i = 0; i < m; ++i)
    if (!(r.impulses[i] >= 0)) {
      fail << "negative impulse " << r.impulses[i] << " on contact " << i;
      return fail.str();
    }
  if (!(r.alpha >= 0 && r.alpha <= 1)) return "alpha outside [0, 1]";

  const VectorX v0 = p.velocity();
  const MatrixX minv = p.denseInverseMass();
  const MatrixX j = p.denseContactJacobian();
  const VectorX b = p.contactBiases();
  const Scalar e0 = p.kineticEnergy(v0);
  const Scalar e1 = p.kineticEnergy(r.velocity);
  const VectorX before = j * v0 + b;
  const VectorX after = j * r.velocity + b;
  const MatrixX admissible = admissibleInverseMass(p);
  // Unit normals are measured in the metric the impact acts in: with joints,
  // J M⁻¹_c Jᵀ, not J M⁻¹ Jᵀ. The unprojected norm made the scale 200× too
  // small in finding kinematic-only-wedge-with-joints-left-approaching, where
  // a contact the joints nearly lock has a unit-normal speed 200× its raw one.
  const VectorX d = (j * admissible * j.transpose()).diagonal();
  const VectorX movable = movableRows(p, j, admissible);
  const VectorX references = rowReferences(p, j);

  // scale as ResolveOptions documents: max(||p0||_g, largest initial unit-normal
  // speed over the rows the resolver does not ignore).
  Scalar scale = std::sqrt(std::max(Scalar(0), 2 * e0));
  for (int i = 0; i < m; ++i)
    if (movable[i] != 0) scale = std::max(scale, std::abs(before[i]) / std::sqrt(d[i]));
  // The resolver treats an approach slower than feasibilityTolerance·scale as
  // feasible (no reflection); a case may loosen that option (1e-6), and then
  // the outcome is only that feasible (finding
  // approach-within-a-loosened-feasibility-tolerance).
  Scalar allowed = std::max(tol.feasibility, Scalar(1.01) * o.feasibilityTolerance) * scale;
  if (r.plasticMethod == PlasticMethod::Iterative) allowed = std::max(allowed, 2 * r.plasticResidual);

  // Velocity along an axis the metric cannot move (a locked factor with a
  // velocity on it, or an infinite-inertia axis that spins) is a prescribed
  // motion, like a kinematic body's: contacts that see it follow Newton's law
  // on the relative velocity, which can raise the energy as a moving paddle does.
  const VectorX prescribed = v0 - minv * (p.denseMass() * v0);
  const VectorX seen = j * prescribed;
  bool prescribedMotion = false;
  for (int i = 0; i < m; ++i)
    if (movable[i] != 0 && std::abs(seen[i]) / std::sqrt(d[i]) > tol.feasibility * scale) prescribedMotion = true;
  if (p.bilateralCount() > 0) {
    const MatrixX bj = p.denseBilateralJacobian();
    const VectorX error = bj * v0;
    // A joint also carries prescribed motion when it sees the velocity along
    // axes M⁻¹ cannot move, even with no error overall: the movable part then
    // violates it and is pulled along (finding
    // joint-driven-by-spin-about-an-infinite-inertia-axis: B·v0 = 0, but 68.9
    // of it along such an axis, and one reflection gained 8.5e-5 of the energy,
    // as a paddle would).
    const VectorX driven = bj * prescribed;
    for (Index k = 0; k < bj.rows(); ++k) {
      const Scalar dk = bj.row(k) * minv * bj.row(k).transpose();
      const Scalar unit = std::sqrt(std::max(dk, Scalar(1e-13) * bj.row(k).squaredNorm() * minv.cwiseAbs().maxCoeff()));
      if (dk > 0 && std::abs(error[k]) / std::sqrt(dk) > tol.feasibility * scale) prescribedMotion = true;
      if (unit > 0 && std::abs(driven[k]) / unit > tol.feasibility * scale) prescribedMotion = true;
    }
  }
  // Prescribed motion can leave no feasible outcome at all (nothing can move
  // it); the report must then say how far off the plastic solve stayed.
  if (prescribedMotion) allowed = std::max(allowed, 2 * r.plasticResidual);
  // Otherwise a feasible outcome exists (biases come from a witness), and the
  // exact active-set solve must find it: nearly dependent rows take large
  // opposing impulses whose cancellation leaves a residual above the resolver's
  // own tolerance but far below this bound. Accept what the report states
  // only while it stays that small.
  // Σ λᵢ √dᵢ: the size of the impulses. A capped wedge accumulates opposing
  // reflection impulses far above the momentum (1.4e7 against a scale of 1e-3
  // in finding capped-wedge-round-off-of-cancelling-impulses); their round-off
  // in the velocity is the floor of any residual after it.
  Scalar impulseSize = 0;
  for (int i = 0; i < m; ++i) impulseSize += r.impulses[i] * std::sqrt(std::max(Scalar(0), d[i]));
  // The same in raw terms, Σ λᵢ √referenceᵢ: the round-off of applying λᵢ
  // along M⁻¹_c Jᵢᵀ scales with |Jᵢ|·|M⁻¹|, not with √dᵢ, which a row the
  // joints nearly lock makes tiny (√d 1e4 below √reference in finding
  // contact-moved-although-the-check-metric-locks-it, where impulses of 8.5e9
  // moved a joint, and the contact that mirrors it, by 2e-9 of |B|·|Δv|).
  // A row k then sees up to ε·√reference_k·Σ λᵢ √referenceᵢ.
  Scalar rawImpulseSize = 0;
  for (int i = 0; i < m; ++i) rawImpulseSize += r.impulses[i] * std::sqrt(references[i]);
  // The generator's witness is admissible only to its own round-off: its
  // textbook projection errs by κ(BM⁻¹Bᵀ)·ε along the directions the joints
  // lock, which rows the joints nearly lock see magnified. Its admissible part
  // (M-orthogonal projection) violates the rows by at most witnessSlack, so the
  // least uniform violation is no larger; with two nearly parallel joints it
  // was 1.5e10, half the scale (finding
  // witness-feasible-only-through-a-joint-locked-direction).
  Scalar witnessSlack = 0;
  if (witness.size() == n) {
    const VectorX admissiblePart = v0 + admissible * (p.denseMass() * (witness - v0));
    const VectorX atWitness = j * admissiblePart + b;
    for (int i = 0; i < m; ++i)
      if (movable[i] != 0) witnessSlack = std::max(witnessSlack, -atWitness[i] / std::sqrt(d[i]));
  }
  if (r.plasticMethod == PlasticMethod::ActiveSet && !prescribedMotion) {
    if (r.plasticResidual > tol.plasticResidual * scale + tol.cancellation * impulseSize + Scalar(1.01) * witnessSlack) {
      fail << "active-set plastic residual " << r.plasticResidual << " above " << tol.plasticResidual << " x scale " << scale;
      return fail.str();
    }
    allowed = std::max(allowed, Scalar(1.01) * r.plasticResidual);
  }

  const Scalar velocityChange = std::sqrt(std::max(Scalar(0), 2 * p.kineticEnergy(r.velocity - v0)));
  int untouchedInfeasible = 0;
  for (int i = 0; i < m; ++i) {
    if (o.growFromSeeds && !r.inCluster[static_cast<std::size_t>(i)]) continue;
    if (after[i] >= 0) continue;
    const Scalar unit = d[i] > 0 ? after[i] / std::sqrt(d[i]) : -INFINITY;
    // The impulses' round-off reaches a row's raw speed as about
    // ε·√reference·Σλ√d; a row nearly immobile (d far below its reference,
    // 1.9e-12 in finding nearly-immobile-row-amplifies-round-off) magnifies it
    // by √(reference/d) in unit-normal terms.
    const Scalar roundOff = d[i] > 0 ? tol.cancellation * impulseSize * std::sqrt(references[i] / d[i]) : Scalar(0);
    if (unit >= -(allowed + roundOff)) continue;
    // A row no admissible motion can move keeps its velocity: it is ignored
    // (reported). "Keeps" up to round-off of the motion the others' impulses
    // cause, which the joints' projection leaves orthogonal to it only to ε.
    const Scalar rawNorm = std::sqrt(std::max(Scalar(0), Scalar(j.row(i) * minv * j.row(i).transpose())));
    // And a row below the cut-off is still moved a little by the others'
    // impulses, by at most √dᵢ·||Δv||_M (Cauchy–Schwarz in the admissible
    // metric): 2.5e-3 at d/reference = 1e-15 in finding
    // nearly-locked-row-moved-by-its-remaining-mobility.
    const Scalar remainingMobility = std::sqrt(std::max(Scalar(0), d[i])) * velocityChange;
    if (std::abs(after[i] - before[i]) <= tol.feasibility * (std::abs(before[i]) + scale * rawNorm) +
                                              tol.cancellation * rawImpulseSize * std::sqrt(references[i]) +
                                              Scalar(1.01) * remainingMobility + 1e-300) {
      ++untouchedInfeasible;
      continue;
    }
    fail << "contact " << i << " infeasible after the impact: unit-normal speed " << unit << " < -" << allowed
         << " (scale " << scale << ")";
    return fail.str();
  }
  if (untouchedInfeasible > r.ignoredRows) {
    fail << untouchedInfeasible << " contacts stayed infeasible untouched but only " << r.ignoredRows
         << " rows were reported ignored";
    return fail.str();
  }

  const bool anyBias = prescribedMotion || (b.size() > 0 && b.cwiseAbs().maxCoeff() > 0);
  // Joints: the resolver's admissible metric comes from a QR of LᵀBᵀ and
  // carries no κ(BM⁻¹Bᵀ)·ε error (the textbook formula drifted 4.5e-9 in
  // finding energy-drift-through-ill-conditioned-joint-rows, 1e-14 now). What
  // remains is the joint coupling blocks of very different mass: the metric of
  // the joined group mixes them, and a reflection keeps the energy only to
  // ε·κ(M_group) (a 1e17 block joined to a 300 one gained 4.5e-9 of the energy
  // in one reflection in finding joint-between-masses-1e15-apart).
  Scalar energyTolerance = tol.energy;
  if (p.bilateralCount() > 0) energyTolerance += std::numeric_limits<Scalar>::epsilon() * jointGroupConditioning(p) * Scalar(1 + r.reflections);
  if (!anyBias && e1 > e0 * (1 + energyTolerance) + 1e-300) {
    fail << "energy gained: " << e0 << " -> " << e1 << " (relative " << (e1 - e0) / e0 << ")";
    return fail.str();
  }

  if (p.bilateralCount() > 0) {
    const MatrixX bj = p.denseBilateralJacobian();
    const Scalar dropped = droppedJointSingularValue(p);
    for (Index k = 0; k < bj.rows(); ++k) {
      const Scalar dk = bj.row(k) * minv * bj.row(k).transpose();
      const Scalar change = bj.row(k).dot(r.velocity - v0);
      // The impulses' round-off moves any unit-normal speed by up to about
      // ε·||M⁻¹_c Jᵀλ||_M ≤ ε·Σλ√d, the allowance of the momentum check below.
      // It matters only when a squeeze with no feasible outcome (a joint's own
      // velocity error pressing contacts together) ends with impulses far above
      // the momentum: 4e12 against an energy of 8.9 moved a joint by 2.6e-5
      // per unit normal in finding infeasible-joint-error-squeeze-impulses-of-4e12.
      // A joint row M⁻¹ cannot move (it acts along locked or infinite-inertia
      // axes only: J M⁻¹ Jᵀ at round-off, 2.6e-15 of its reference in finding
      // joint-along-an-immobile-axis-unit-normal-of-round-off) has no
      // meaningful unit normal; the impact must leave it alone to round-off of
      // the velocities it sees, |b|·(|v0| + |Δv|).
      const Scalar reference = bj.row(k).squaredNorm() * minv.cwiseAbs().maxCoeff();
      if (!(dk > 1e-13 * reference)) {
        const Scalar seenSize = bj.row(k).norm() * (v0.norm() + (r.velocity - v0).norm());
        if (std::abs(change) > tol.feasibility * seenSize + 1e-300) {
          fail << "immobile bilateral row " << k << " velocity error changed by " << change;
          return fail.str();
        }
        continue;
      }
      // A joint row within the rank cut-off of the others is enforced only to
      // the dropped part: |Δ(Bv)| ≤ σ_dropped·||Δv||_M (finding
      // nearly-dependent-joint-rows-under-huge-impulses: impulses of 2.6e6 from
      // rest moved such a row by 0.0097).
      const Scalar unenforced = 1.01 * dropped * velocityChange / std::sqrt(dk);
      const Scalar roundOff = tol.cancellation * std::max(impulseSize, rawImpulseSize * std::sqrt(reference / dk));
      if (std::abs(change) / std::sqrt(dk) > tol.feasibility * scale + roundOff + unenforced + 1e-300) {
        fail << "bilateral row " << k << " velocity error changed by " << change;
        return fail.str();
      }
    }
  } else {
    // Reported impulses account for the velocity change: Δv = M⁻¹ Jᵀ λ. Two
    // nearly opposing rows (a body pinched between them) can need opposing
    // impulses far above the momentum, ||M⁻¹Jᵢᵀ λᵢ||_M = λᵢ √dᵢ, that cancel;
    // neither the resolver nor this check can sum them to better than a few
    // hundred ulps of their size, so that much is allowed on top. Rows merged
    // as duplicates agree in M⁻¹Jᵀ only to duplicateTolerance: the impulse
    // applied along the kept row is reported shared among them, which moves
    // M⁻¹Jᵀλ by up to that fraction of the shared impulses' size.
    const VectorX dv = r.velocity - v0;
    const VectorX residual = dv - minv * j.transpose() * r.impulses;
    const Scalar size = std::sqrt(2 * e0) + std::sqrt(std::max(Scalar(0), 2 * p.kineticEnergy(dv)));
    const Scalar error = std::sqrt(std::max(Scalar(0), 2 * p.kineticEnergy(residual)));
    const Scalar merging = r.mergedDuplicates > 0 ? o.duplicateTolerance * impulseSize : Scalar(0);
    if (error > tol.momentum * size + tol.cancellation * impulseSize + merging + 1e-300) {
      fail << "impulses do not explain the velocity change: ||Δv − M⁻¹Jᵀλ||_M = " << error << " vs " << size;
      return fail.str();
    }
  }
  return {};
}

/// Resolves the case and checks it (and, when the case asks, that resolving it
/// again with the same and with a fresh resolver gives the same bits).
inline std::string resolveAndCheck(Case& c, const Tolerances& tol = {}) {
  ImpactResolver resolver;
  ImpactResult result;
  resolver.resolve(c.problem, c.options, result);
  std::string failure = check(c.problem, c.options, result, tol, c.witness);
  if (!failure.empty() || !c.checkDeterminism) return failure;
  ImpactResult again;
  resolver.resolve(c.problem, c.options, again);
  ImpactResolver fresh;
  const ImpactResult third = fresh.resolve(c.problem, c.options);
  for (const ImpactResult* other : {static_cast<const ImpactResult*>(&again), &third})
    if (!sameBits(result.velocity, other->velocity) || !sameBits(result.impulses, other->impulses) ||
        result.sequence != other->sequence)
      return "a second resolution of the same problem differs";
  return {};
}

}  // namespace propimpact::fuzz
