// The fuzz generator: bytes to an impact problem and its options (ProblemFuzzer.h).
#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ProblemFuzzer.h"
#include "propimpact/core/Errors.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"
#include "propimpact/core/ImpactResult.h"
#include "propimpact/core/ResolveOptions.h"

namespace propimpact::fuzz {
namespace detail {

// Below this fraction of ‖W‖·‖x‖², xᵀWx is round-off (n·ε ≈ 1e-15 at the
// generator's sizes, with room to spare): the witness direction W x is none.
constexpr Scalar kWitnessRoundOff = 1e-10;

MatrixX randomRotation(ByteReader& in, Index n) {
  if (in.chance(5)) return MatrixX::Identity(n, n);
  MatrixX a(n, n);
  for (Index c = 0; c < n; ++c)
    for (Index r = 0; r < n; ++r) a(r, c) = in.signedUnit();
  Eigen::HouseholderQR<MatrixX> qr(a);
  return qr.householderQ();
}

// SPD with a spread of eigenvalues up to 1e14. The problem would reject (an
// allowed InputError) only a Cholesky pivot below 1e-12·√max|M|, far past that.
MatrixX randomSpd(ByteReader& in, Index n) {
  const Scalar base = -3 + 6 * in.unit();
  const Scalar spread = in.chance(4) ? 14 * in.unit() : 3 * in.unit();
  VectorX eigenvalues(n);
  for (Index k = 0; k < n; ++k) eigenvalues[k] = std::pow(Scalar(10), base + spread * in.unit());
  const MatrixX q = randomRotation(in, n);
  MatrixX m = q * eigenvalues.asDiagonal() * q.transpose();
  return 0.5 * (m + m.transpose());
}

VectorX randomVelocity(ByteReader& in, Index n, Scalar scale) {
  VectorX v(n);
  for (Index k = 0; k < n; ++k) v[k] = in.chance(4) ? 0 : scale * in.signedUnit();
  return v;
}

Vector3 randomDirection(ByteReader& in) {
  const Vector3 n = in.signedUnitVector();
  if (!(n.norm() > 1e-3)) return Vector3::UnitZ();
  return n.normalized();
}

struct RowRecord {
  int blockA = kNoBlock;
  int blockB = kNoBlock;
  VectorX a, b;
};

/// What build()'s stages share while they decode one input, in byte order.
struct Decoder {
  Decoder(ByteReader& reader, ImpactProblem& problem) : in(reader), p(problem) {}
  ByteReader& in;
  ImpactProblem& p;
  Scalar velocityScale = 0;
  int blocks = 0;
  std::vector<bool> rigid;
  bool withBias = false;
  VectorX witness;  ///< a velocity every biased contact sees as non-approaching
};

RigidBodyInput randomRigidBody(ByteReader& in, Scalar velocityScale) {
  RigidBodyInput body;
  body.inverseMass = in.power(-3, 3);
  Vector3 e;
  for (int a = 0; a < 3; ++a) e[a] = in.chance(8) ? 0 : in.power(-3, 3);
  const Scalar qw = in.signedUnit();
  const Vector3 qv = in.signedUnitVector();
  const Eigen::Quaternion<Scalar> q(qw, qv.x(), qv.y(), qv.z());
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
  return body;
}

/// kind: 0 one dense block, 1 dense blocks, 2 rigid bodies, 3 mixed.
void addBlocks(Decoder& d, int kind) {
  ByteReader& in = d.in;
  d.blocks = kind == 0 ? 1 : in.range(1, kind == 1 ? 6 : 8);
  for (int k = 0; k < d.blocks; ++k) {
    const bool makeRigid = kind == 2 || (kind == 3 && in.chance(2));
    if (makeRigid) {
      d.p.addRigidBody(randomRigidBody(in, d.velocityScale));
    } else {
      const Index n = kind == 0 ? in.range(1, 16) : in.range(1, 8);
      const MatrixX m = randomSpd(in, n);
      d.p.addDenseBlock(m, randomVelocity(in, n, d.velocityScale));
    }
    d.rigid.push_back(makeRigid);
  }
}

/// A random row's coefficients on one block: a unit normal and lever arm on
/// a rigid body, a sparse random vector on a dense block.
VectorX freshCoefficients(Decoder& d, int block, Scalar sign) {
  ByteReader& in = d.in;
  const Index n = d.p.block(block).size;
  VectorX c(n);
  if (d.rigid[static_cast<std::size_t>(block)]) {
    const Vector3 normal = randomDirection(in);
    const Scalar offsetSize = in.power(-2, 1);
    const Vector3 offset = offsetSize * in.signedUnitVector();
    c << sign * normal, sign * offset.cross(normal);
  } else {
    const Scalar scale = in.power(-2, 2);
    for (Index k = 0; k < n; ++k) c[k] = in.chance(3) ? 0 : scale * in.signedUnit();
    if (!(c.squaredNorm() > 0)) c[0] = sign;
  }
  return c;
}

/// A second block for a row on block a, or kNoBlock (half the time, when there is one).
int otherBlock(Decoder& d, int a) {
  return d.blocks > 1 && d.in.chance(2) ? (a + 1 + d.in.u16() % (d.blocks - 1)) % d.blocks : kNoBlock;
}

void addJoints(Decoder& d) {
  ByteReader& in = d.in;
  ImpactProblem& p = d.p;
  if (!in.chance(8)) return;
  const int count = in.range(1, 3);
  for (int k = 0; k < count; ++k) {
    const int a = in.u16() % d.blocks;
    const int b = otherBlock(d, a);
    VectorX ca = freshCoefficients(d, a, 1);
    VectorX cb = b == kNoBlock ? VectorX() : freshCoefficients(d, b, -1);
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

/// Kinematic biases come from a witness velocity v* = v0 + W x (W the
/// admissible inverse mass) that every contact sees as non-approaching, so a
/// feasible outcome exists; biases without one could ask for the impossible
/// (a ball crushed between two approaching walls).
VectorX makeWitness(Decoder& d, RoundOffWitness roundOff) {
  ByteReader& in = d.in;
  const ImpactProblem& p = d.p;
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
  const Scalar step = size > 0 ? d.velocityScale * in.unit() / size : Scalar(0);
  // ‖Wx‖²_M = xᵀWx: with x along the joints' rows (W's null space; an
  // exhausted input reads x = −1 everywhere, which a row of equal entries
  // spans) only round-off of ‖W‖·‖x‖² is left, and scaled up to the velocity
  // scale it broke the joint by 1.6e8 (finding
  // 7dof-1-joint-biased-active-set-residual-0.63-of-scale-unseeded): biases
  // made for it can leave no feasible outcome, the opposite of what the
  // witness is for. Such a direction is none, and the witness is v0.
  const bool roundOffDirection = !(size * size > kWitnessRoundOff * w.norm() * x.squaredNorm());
  return p.velocity() + (roundOffDirection && roundOff == RoundOffWitness::Dropped ? Scalar(0) : step) * direction;
}

Scalar biasFor(Decoder& d, const RowRecord& row) {
  if (!d.withBias) return 0;
  const VectorX& witness = d.witness;
  Scalar jv = row.a.dot(witness.segment(d.p.block(row.blockA).velocityOffset, row.a.size()));
  if (row.blockB != kNoBlock) jv += row.b.dot(witness.segment(d.p.block(row.blockB).velocityOffset, row.b.size()));
  if (jv >= 0 && d.in.chance(2)) return 0;  // the witness already clears this row
  const Scalar slack = d.in.chance(3) ? 0 : d.velocityScale * d.in.unit();
  return -jv + slack;
}

/// mode: 0 elastic, 1 plastic, 2 uniform, 3 mixed.
Scalar readRestitution(ByteReader& in, int mode, Scalar uniform) {
  switch (mode) {
    case 1: return 0;
    case 2: return uniform;
    case 3: {
      const int pick = in.byte() % 3;
      return pick == 0 ? 0 : pick == 1 ? 1 : in.unit();
    }
    default: return 1;
  }
}

/// A copy of an earlier row (patterns 5–8): nearly parallel, opposing (a
/// body between two walls), an exact duplicate, or the same direction at
/// another scale.
RowRecord variantOf(ByteReader& in, const std::vector<RowRecord>& records, int pattern) {
  RowRecord row = records[in.u16() % records.size()];
  if (pattern == 5) {
    const Scalar eps = in.power(-14, -2);
    for (Index k = 0; k < row.a.size(); ++k) row.a[k] += eps * in.signedUnit();
    for (Index k = 0; k < row.b.size(); ++k) row.b[k] += eps * in.signedUnit();
  } else if (pattern == 6) {
    row.a = -row.a;
    row.b = -row.b;
  } else if (pattern == 8) {
    const Scalar s = in.power(-3, 3);
    row.a *= s;
    row.b *= s;
  }
  return row;
}

/// Pattern 9 between two rigid bodies (or one and the world): a contact
/// through addRigidContact, recorded as the row it builds.
void addRigidContactRow(Decoder& d, int a, int b, Scalar restitution, std::uint64_t key,
                        std::vector<RowRecord>& records) {
  ByteReader& in = d.in;
  const Vector3 normal = randomDirection(in);
  const Scalar raSize = in.power(-2, 1);
  const Vector3 ra = raSize * in.signedUnitVector();
  const Scalar rbSize = in.power(-2, 1);
  const Vector3 rb = rbSize * in.signedUnitVector();
  // The same row addRigidContact builds, for the bias and for later copies.
  const Vector3 unit = normal.normalized();
  RowRecord row;
  row.blockA = a;
  row.a.resize(6);
  row.a << unit, ra.cross(unit);
  if (b != kNoBlock) {
    row.blockB = b;
    row.b.resize(6);
    row.b << -unit, -rb.cross(unit);
  }
  d.p.addRigidContact(a, b, normal, ra, rb, restitution, biasFor(d, row), key);
  records.push_back(row);
}

/// Returns the restitution mode (for the description).
int addContacts(Decoder& d) {
  ByteReader& in = d.in;
  const int restitutionMode = in.byte() % 4;
  const Scalar uniformRestitution = in.unit();
  const int contacts = in.range(1, 64);
  std::vector<RowRecord> records;
  for (int i = 0; i < contacts; ++i) {
    const Scalar restitution = readRestitution(in, restitutionMode, uniformRestitution);
    const std::uint64_t key = in.chance(6) ? in.u16() % 8 : UINT64_MAX;
    const int pattern = in.byte() % 10;
    RowRecord row;
    if (pattern >= 5 && pattern <= 8 && !records.empty()) {
      row = variantOf(in, records, pattern);
    } else if (pattern == 9 && d.blocks >= 1) {
      const int a = in.u16() % d.blocks;
      const int b = otherBlock(d, a);
      if (d.rigid[static_cast<std::size_t>(a)] && (b == kNoBlock || d.rigid[static_cast<std::size_t>(b)])) {
        addRigidContactRow(d, a, b, restitution, key, records);
        continue;
      }
      row.blockA = a;
      row.a = freshCoefficients(d, a, 1);
      if (b != kNoBlock) {
        row.blockB = b;
        row.b = freshCoefficients(d, b, -1);
      }
    } else {
      row.blockA = in.u16() % d.blocks;
      row.a = freshCoefficients(d, row.blockA, 1);
      if (d.blocks > 1 && in.chance(2)) {
        row.blockB = (row.blockA + 1 + in.u16() % (d.blocks - 1)) % d.blocks;
        row.b = freshCoefficients(d, row.blockB, -1);
      }
    }
    d.p.addContactRow(row.blockA, row.a, row.blockB, row.blockB == kNoBlock ? VectorX() : row.b, restitution,
                      biasFor(d, row), key);
    records.push_back(row);
  }
  return restitutionMode;
}

void readOptions(ByteReader& in, ImpactProblem& p, Case& out) {
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
}

}  // namespace detail

/// Builds a case from bytes. Throws InputError when the bytes describe an
/// invalid problem (the caller treats that as a rejected input). The stages
/// read the bytes in this order: blocks, joints, witness, contacts, options.
void build(const std::uint8_t* data, std::size_t size, Case& out, RoundOffWitness roundOff) {
  using namespace detail;
  ByteReader in(data, size);
  ImpactProblem& p = out.problem;
  p.clear();
  out.options = ResolveOptions{};
  Decoder d(in, p);

  const int kind = in.byte() % 4;
  d.velocityScale = in.power(-8, 8);
  addBlocks(d, kind);
  addJoints(d);
  d.withBias = in.chance(8);
  if (d.withBias) d.witness = makeWitness(d, roundOff);
  out.witness = d.witness;
  const int restitutionMode = addContacts(d);
  readOptions(in, p, out);

  const ResolveOptions& o = out.options;
  std::ostringstream text;
  text << "kind " << kind << ", " << p.blockCount() << " blocks, " << p.dofCount() << " dofs, " << p.contactCount()
       << " contacts, " << p.bilateralCount() << " bilateral, restitution mode " << restitutionMode
       << (d.withBias ? ", bias" : "") << ", ordering " << toString(o.ordering)
       << (o.growFromSeeds ? ", grow" : "") << ", cap " << o.reflectionCap << ", dense limit "
       << o.plasticDenseLimit;
  out.description = text.str();
}

}  // namespace propimpact::fuzz
