// Randomized invariants of a resolution (SPEC §2-5) over 10⁵ problems: dense
// SPD blocks and rigid bodies (random inertia, some locked axes), 1 to 40
// contacts, restitution all 1, all 0, uniform in (0, 1) or mixed per contact.
//
// Sizes are biased toward small clusters (most problems have 1-6 contacts,
// about one in twelve has 11-40) so the 10⁵ problems stay within a few
// seconds of the suite's ~60 s budget; the invariants are the same at every size.
#include <gtest/gtest.h>

#include <Eigen/QR>
#include <cmath>
#include <random>
#include <vector>

#include "../SanitizerBuild.h"
#include "TestSupport.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

using test::randomSpd;
using test::randomVector;
using test::uniform;
using test::uniformInt;

// Under the sanitizers (scripts/test --sanitize) the first quarter of the same
// sequence: they look for memory errors and undefined behaviour, which 25,000
// problems reach as well, and the whole run was CI's longest test there (90 s
// of its 30 minutes). The double build checks all 100,000.
#ifdef PROPIMPACT_TEST_UNDER_ASAN
constexpr int kProblems = 25000;
#else
constexpr int kProblems = 100000;
#endif
constexpr std::uint64_t kSeed = 0x9a0e27e5ULL;
constexpr Scalar kFeasibility = 1e-9;       // unit-normal approach left, relative to the problem's scale
constexpr Scalar kElasticEnergy = 1e-12;    // relative drift of the elastic outcome's energy
constexpr Scalar kEnergyGain = 1e-12;       // relative energy an outcome may gain (round-off)
constexpr Scalar kMomentum = 1e-9;          // ||Δv − M⁻¹Jᵀλ||_M relative to ||v0||_M
constexpr Scalar kComplementarity = 1e-9;   // |<v_p − v0, v_p>_M| relative to 2 E0
constexpr Scalar kEnergyLaw = 1e-10;        // eq. (16), relative to E0
constexpr Scalar kOutcome = 1e-10;          // velocities that must coincide, relative to ||v0||_M
constexpr Scalar kBlend = 1e-9;           // three separate resolutions recombined, relative to ||v0||_M
constexpr Scalar kActive = 1e-8;            // a row counts as active in the plastic outcome below this unit speed

enum class RestitutionMode { Elastic, Plastic, Uniform, Mixed };

struct Generated {
  ImpactProblem problem;
  MatrixX mass;     // M for energies
  MatrixX metric;   // M⁻¹ of the admissible motions, built independently
  MatrixX jacobian;
  VectorX velocity;
  RestitutionMode mode = RestitutionMode::Elastic;
  Scalar restitution = 1;
};

int contactCountFor(std::mt19937_64& rng) {
  const int bucket = uniformInt(rng, 0, 11);
  if (bucket < 7) return uniformInt(rng, 1, 3);
  if (bucket < 11) return uniformInt(rng, 4, 10);
  return uniformInt(rng, 11, 40);
}

Scalar restitutionFor(std::mt19937_64& rng, const Generated& g) {
  switch (g.mode) {
    case RestitutionMode::Elastic: return 1;
    case RestitutionMode::Plastic: return 0;
    case RestitutionMode::Uniform: return g.restitution;
    case RestitutionMode::Mixed: return uniform(rng, 0, 1);
  }
  return 1;
}

void denseProblem(std::mt19937_64& rng, Generated& g) {
  const int blocks = uniformInt(rng, 1, 3);
  std::vector<Index> offset, size;
  Index n = 0;
  for (int b = 0; b < blocks; ++b) {
    offset.push_back(n);
    size.push_back(uniformInt(rng, 1, 6));
    n += size.back();
  }
  g.mass = MatrixX::Zero(n, n);
  g.velocity = randomVector(rng, n);
  for (int b = 0; b < blocks; ++b) {
    const MatrixX m = randomSpd(rng, size[static_cast<std::size_t>(b)]);
    g.mass.block(offset[static_cast<std::size_t>(b)], offset[static_cast<std::size_t>(b)], m.rows(), m.rows()) = m;
    g.problem.addDenseBlock(m, g.velocity.segment(offset[static_cast<std::size_t>(b)], m.rows()));
  }
  g.metric = g.mass.inverse();
  const int contacts = contactCountFor(rng);
  g.jacobian = MatrixX::Zero(contacts, n);
  for (int i = 0; i < contacts; ++i) {
    const int a = uniformInt(rng, 0, blocks - 1);
    int b = blocks > 1 && uniformInt(rng, 0, 1) ? uniformInt(rng, 0, blocks - 1) : kNoBlock;
    if (b == a) b = kNoBlock;
    VectorX ca = randomVector(rng, size[static_cast<std::size_t>(a)]);
    VectorX cb = b == kNoBlock ? VectorX() : randomVector(rng, size[static_cast<std::size_t>(b)]);
    // Now and then repeat an earlier row exactly (a duplicate manifold point).
    if (i > 0 && uniformInt(rng, 0, 19) == 0) {
      const VectorX prior = g.jacobian.row(i - 1).transpose();
      ca = prior.segment(offset[static_cast<std::size_t>(a)], size[static_cast<std::size_t>(a)]);
      if (b != kNoBlock) cb = prior.segment(offset[static_cast<std::size_t>(b)], size[static_cast<std::size_t>(b)]);
      if (ca.squaredNorm() + cb.squaredNorm() == 0) ca = randomVector(rng, size[static_cast<std::size_t>(a)]);
    }
    g.jacobian.row(i).segment(offset[static_cast<std::size_t>(a)], ca.size()) = ca.transpose();
    if (b != kNoBlock) g.jacobian.row(i).segment(offset[static_cast<std::size_t>(b)], cb.size()) = cb.transpose();
    g.problem.addContactRow(a, ca, b, b == kNoBlock ? VectorX() : cb, restitutionFor(rng, g));
  }
}

void rigidProblem(std::mt19937_64& rng, Generated& g) {
  const int bodies = uniformInt(rng, 1, 6);
  const Index n = 6 * bodies;
  g.mass = MatrixX::Zero(n, n);
  g.metric = MatrixX::Zero(n, n);
  g.velocity = VectorX::Zero(n);
  for (int k = 0; k < bodies; ++k) {
    RigidBodyInput body;
    body.inverseMass = std::pow(10.0, uniform(rng, -1, 1));
    const Matrix3 rotation = test::randomRotation(rng);
    const Vector3 principal(std::pow(10.0, uniform(rng, -1, 1)), std::pow(10.0, uniform(rng, -1, 1)),
                            std::pow(10.0, uniform(rng, -1, 1)));
    body.inverseInertiaWorld = rotation * principal.asDiagonal() * rotation.transpose();
    body.inverseInertiaWorld = (0.5 * (body.inverseInertiaWorld + body.inverseInertiaWorld.transpose())).eval();
    body.linearVelocity = randomVector(rng, 3);
    body.angularVelocity = randomVector(rng, 3);
    if (uniformInt(rng, 0, 9) == 0) {
      // A planar body: one linear axis and two angular axes locked, with no
      // velocity along them (an engine keeps locked components at zero).
      const int axis = uniformInt(rng, 0, 2);
      body.linearFactor[axis] = 0;
      body.linearVelocity[axis] = 0;
      for (int other = 0; other < 3; ++other)
        if (other != axis) {
          body.angularFactor[other] = 0;
          body.angularVelocity[other] = 0;
        }
    }
    g.problem.addRigidBody(body);
    const Index o = 6 * k;
    const Matrix3 inertia = body.inverseInertiaWorld.inverse();
    g.mass.block<3, 3>(o, o) = Matrix3::Identity() / body.inverseMass;
    g.mass.block<3, 3>(o + 3, o + 3) = inertia;
    g.metric.block<3, 3>(o, o) = (body.inverseMass * body.linearFactor).asDiagonal();
    // SPEC §1: with selection S of the free axes the metric is S (Sᵀ I S)⁻¹ Sᵀ.
    std::vector<int> free;
    for (int axis = 0; axis < 3; ++axis)
      if (body.angularFactor[axis] != 0) free.push_back(axis);
    MatrixX s = MatrixX::Zero(3, static_cast<Index>(free.size()));
    for (std::size_t c = 0; c < free.size(); ++c) s(free[c], static_cast<Index>(c)) = 1;
    if (!free.empty()) g.metric.block<3, 3>(o + 3, o + 3) = s * (s.transpose() * inertia * s).inverse() * s.transpose();
    g.velocity.segment<3>(o) = body.linearVelocity;
    g.velocity.segment<3>(o + 3) = body.angularVelocity;
  }
  const int contacts = contactCountFor(rng);
  g.jacobian = MatrixX::Zero(contacts, n);
  for (int i = 0; i < contacts; ++i) {
    const int a = uniformInt(rng, 0, bodies - 1);
    int b = bodies > 1 && uniformInt(rng, 0, 2) ? uniformInt(rng, 0, bodies - 1) : kNoBlock;
    if (b == a) b = kNoBlock;
    const Vector3 normal = test::randomUnit3(rng);
    const Vector3 ra = randomVector(rng, 3, 0.5), rb = randomVector(rng, 3, 0.5);
    g.problem.addRigidContact(a, b, normal, ra, rb, restitutionFor(rng, g));
    g.jacobian.row(i).segment<3>(6 * a) = normal.transpose();
    g.jacobian.row(i).segment<3>(6 * a + 3) = ra.cross(normal).transpose();
    if (b != kNoBlock) {
      g.jacobian.row(i).segment<3>(6 * b) = -normal.transpose();
      g.jacobian.row(i).segment<3>(6 * b + 3) = -rb.cross(normal).transpose();
    }
  }
}

Scalar mNorm(const MatrixX& m, const VectorX& v) { return std::sqrt(std::max(Scalar(0), v.dot(m * v))); }

// α of eq. (16)-(17) solved from scratch: ||v_p + α (v_e − v_p)||²_M equal to
// ||v_p||²_M + R² (||v0||²_M − ||v_p||²_M); the root in [0, 1].
Scalar energyLawAlpha(const MatrixX& m, const VectorX& v0, const VectorX& ve, const VectorX& vp, Scalar r) {
  const VectorX d = ve - vp;
  const Scalar a = d.dot(m * d), b = 2 * vp.dot(m * d);
  const Scalar ep = vp.dot(m * vp);
  const Scalar c = ep - (ep + r * r * (v0.dot(m * v0) - ep));
  if (a <= 0) return r;
  return (-b + std::sqrt(std::max(Scalar(0), b * b - 4 * a * c))) / (2 * a);
}

/// What every check of one random problem measures in.
struct Frame {
  const Generated& g;
  const MatrixX& m;
  const MatrixX& minv;
  const MatrixX& j;
  const VectorX& v0;
  VectorX zero;
  Scalar e0, norm0, scale;
  explicit Frame(const Generated& generated)
      : g(generated), m(generated.mass), minv(generated.metric), j(generated.jacobian), v0(generated.velocity),
        zero(VectorX::Zero(generated.jacobian.rows())), e0(test::energy(m, v0)), norm0(mNorm(m, v0)),
        scale(test::feasibilityScale(minv, m, j, v0, zero)) {}
};

/// How many problems each conditional check saw: the generator must really
/// produce the cases the checks are about.
struct Coverage {
  int capped = 0, plasticChecked = 0, dualChecked = 0, energyLawChecked = 0, blendChecked = 0;
};

// Feasible, non-negative impulses, momentum change along the normals; energy
// (elastic conserved unless capped, never gained); eq. (17): the outcome on
// the segment from plastic to elastic.
void expectOutcomeInvariants(const Frame& f, const ImpactResult& r, Coverage& seen) {
  const MatrixX& m = f.m;
  EXPECT_GE(test::worstUnitVelocity(f.minv, f.j, r.velocity, f.zero), -kFeasibility * f.scale);
  EXPECT_GE(r.impulses.minCoeff(), 0);
  EXPECT_LE(mNorm(m, r.velocity - f.v0 - f.minv * f.j.transpose() * r.impulses), kMomentum * f.norm0);

  const Scalar eAfter = test::energy(m, r.velocity);
  EXPECT_NEAR(r.energyBefore, f.e0, kElasticEnergy * f.e0);
  EXPECT_NEAR(r.energyAfter, eAfter, kElasticEnergy * f.e0);
  EXPECT_LE(eAfter, f.e0 * (1 + kEnergyGain));
  if (r.capHit) {
    ++seen.capped;
    EXPECT_EQ(r.fallback, Fallback::PlasticFromCapped);
  } else {
    EXPECT_NEAR(test::energy(m, r.elasticVelocity), f.e0, kElasticEnergy * f.e0);
    EXPECT_EQ(r.fallback, Fallback::None);
  }
  EXPECT_GE(test::worstUnitVelocity(f.minv, f.j, r.elasticVelocity, f.zero), -kFeasibility * f.scale);

  if (r.plasticVelocity.size() == 0) {
    EXPECT_LE(mNorm(m, r.velocity - r.elasticVelocity), kOutcome * f.norm0);
  } else {
    EXPECT_GE(r.alpha, 0);
    EXPECT_LE(r.alpha, 1);
    EXPECT_LE(mNorm(m, r.velocity - r.plasticVelocity - r.alpha * (r.elasticVelocity - r.plasticVelocity)),
              kOutcome * f.norm0);
  }
  if (f.g.mode == RestitutionMode::Elastic) {
    EXPECT_EQ(r.restitution, 1);
    EXPECT_EQ(r.plasticVelocity.size(), 0) << "R = 1 must not need a plastic solve";
    EXPECT_LE(mNorm(m, r.velocity - r.elasticVelocity), kOutcome * f.norm0);
  }
}

// Stationarity and dual feasibility on the active set: v_p − v0 = M⁻¹ J_Aᵀ μ
// with μ ≥ 0 (μ is unique when J_A has full row rank).
void expectPlasticDualFeasible(const Frame& f, const VectorX& vp, Coverage& seen) {
  const MatrixX& j = f.j;
  std::vector<Index> activeRows;
  for (Index i = 0; i < j.rows(); ++i) {
    const Scalar d = j.row(i).dot(f.minv * j.row(i).transpose());
    if (d > 0 && j.row(i).dot(vp) / std::sqrt(d) <= kActive * f.scale) activeRows.push_back(i);
  }
  if (activeRows.empty()) {
    EXPECT_LE(mNorm(f.m, vp - f.v0), kMomentum * f.norm0) << "plastic impulse on a separating row";
    return;
  }
  MatrixX directions(f.v0.size(), static_cast<Index>(activeRows.size()));
  for (std::size_t k = 0; k < activeRows.size(); ++k)
    directions.col(static_cast<Index>(k)) = f.minv * j.row(activeRows[k]).transpose();
  const Eigen::ColPivHouseholderQR<MatrixX> qr(directions);
  const VectorX mu = qr.solve(vp - f.v0);
  EXPECT_LE(mNorm(f.m, directions * mu - (vp - f.v0)), kMomentum * f.norm0) << "plastic impulse on a separating row";
  if (qr.rank() != directions.cols()) return;
  ++seen.dualChecked;
  for (std::size_t k = 0; k < activeRows.size(); ++k) {
    const Scalar d = j.row(activeRows[k]).dot(f.minv * j.row(activeRows[k]).transpose());
    EXPECT_GE(mu[static_cast<Index>(k)] * std::sqrt(d), -kActive * f.scale) << "pulling plastic impulse";
  }
}

// Plastic outcome: feasible, KKT (Correction 2) checked independently, and
// eq. (16) with the coefficient the resolver reports.
void expectPlasticOutcome(const Frame& f, const ImpactResult& r, Coverage& seen) {
  if (r.plasticVelocity.size() == 0) return;
  const MatrixX& m = f.m;
  const VectorX& v0 = f.v0;
  ++seen.plasticChecked;
  const VectorX& vp = r.plasticVelocity;
  EXPECT_LE(r.plasticResidual, kFeasibility * f.scale);
  EXPECT_GE(test::worstUnitVelocity(f.minv, f.j, vp, f.zero), -kFeasibility * f.scale);
  // Complementarity: Σ λ_i J_i v_p = 0, i.e. <v_p − v0, v_p>_M = 0.
  EXPECT_LE(std::abs((vp - v0).dot(m * vp)), kComplementarity * 2 * f.e0);
  // Minimal distance in the M-norm among feasible velocities we know.
  EXPECT_LE(mNorm(m, vp - v0), mNorm(m, r.elasticVelocity - v0) * (1 + kOutcome) + kOutcome * f.norm0);
  EXPECT_LE(mNorm(m, vp - v0), mNorm(m, r.velocity - v0) * (1 + kOutcome) + kOutcome * f.norm0);
  if (f.j.rows() <= 12) expectPlasticDualFeasible(f, vp, seen);
  if (!r.capHit && r.restitution > 0 && r.restitution < 1) {
    ++seen.energyLawChecked;
    const Scalar ep = test::energy(m, vp);
    EXPECT_NEAR(test::energy(m, r.velocity), ep + r.restitution * r.restitution * (f.e0 - ep), kEnergyLaw * f.e0);
  }
  if (f.g.mode == RestitutionMode::Plastic) {
    EXPECT_EQ(r.restitution, 0);
    EXPECT_LE(mNorm(m, r.velocity - vp), kOutcome * f.norm0);
  }
  if (f.g.mode == RestitutionMode::Uniform) {
    EXPECT_EQ(r.restitution, f.g.restitution);
  }
}

// One contact: Newton's law J v+ = −R J v−.
void expectNewtonsLawForOneContact(const Frame& f, const ImpactResult& r) {
  if (f.j.rows() != 1) return;
  const Scalar before = f.j.row(0).dot(f.v0), after = f.j.row(0).dot(r.velocity);
  const Scalar d = f.j.row(0).dot(f.minv * f.j.row(0).transpose());
  const Scalar expected = before < 0 ? -f.g.problem.contact(0).restitution * before : before;
  if (d > 0) {
    EXPECT_NEAR(after / std::sqrt(d), expected / std::sqrt(d), kOutcome * f.scale);
  }
}

// Uniform R: the outcome is the R = 0 outcome blended toward the R = 1
// outcome by the α of eq. (16), solved here from scratch.
void expectBlendOfElasticAndPlastic(const Frame& f, ImpactResolver& resolver, Coverage& seen) {
  const MatrixX& m = f.m;
  const VectorX& v0 = f.v0;
  // Locked axes make the metric differ from M⁻¹; only problems without
  // them are rebuilt as one dense block.
  if (!((m * f.minv - MatrixX::Identity(m.rows(), m.cols())).cwiseAbs().maxCoeff() < 1e-9)) return;
  ImpactProblem elastic, plastic, blended;
  elastic.addDenseBlock(m, v0);
  plastic.addDenseBlock(m, v0);
  blended.addDenseBlock(m, v0);
  for (Index i = 0; i < f.j.rows(); ++i) {
    elastic.addContactRow(0, f.j.row(i).transpose(), kNoBlock, VectorX(), 1.0);
    plastic.addContactRow(0, f.j.row(i).transpose(), kNoBlock, VectorX(), 0.0);
    blended.addContactRow(0, f.j.row(i).transpose(), kNoBlock, VectorX(), f.g.restitution);
  }
  const ImpactResult re = resolver.resolve(elastic);
  const ImpactResult rp = resolver.resolve(plastic);
  const ImpactResult rb = resolver.resolve(blended);
  if (rb.capHit) return;
  ++seen.blendChecked;
  const Scalar alpha = energyLawAlpha(m, v0, re.velocity, rp.velocity, f.g.restitution);
  EXPECT_LE(mNorm(m, rb.velocity - rp.velocity - alpha * (re.velocity - rp.velocity)), kBlend * f.norm0);
}

TEST(Property, ResolutionInvariantsHoldOnRandomProblems) {
  std::mt19937_64 rng(kSeed);
  ImpactResolver resolver;
  ImpactResult r;
  Coverage seen;
  for (int trial = 0; trial < kProblems; ++trial) {
    Generated g;
    g.mode = static_cast<RestitutionMode>(uniformInt(rng, 0, 3));
    g.restitution = uniform(rng, 0.01, 0.99);
    if (uniformInt(rng, 0, 1)) {
      denseProblem(rng, g);
    } else {
      rigidProblem(rng, g);
    }
    ResolveOptions options;
    // The all-orders enumeration is exponential in the worst case; keep it
    // on for a share of the problems only.
    if (trial % 8) options.enumerationContactLimit = 0;
    resolver.resolve(g.problem, options, r);
    SCOPED_TRACE("trial " + std::to_string(trial));
    const Frame f(g);
    ASSERT_EQ(r.velocity.size(), f.v0.size());
    expectOutcomeInvariants(f, r, seen);
    expectPlasticOutcome(f, r, seen);
    expectNewtonsLawForOneContact(f, r);
    if (g.mode == RestitutionMode::Uniform && trial % 10 == 0) expectBlendOfElasticAndPlastic(f, resolver, seen);
    if (HasFailure()) break;  // one failing problem is enough to diagnose
  }
  EXPECT_GT(seen.plasticChecked, kProblems / 2);
  EXPECT_GT(seen.dualChecked, kProblems / 4);
  EXPECT_GT(seen.energyLawChecked, kProblems / 5);
  EXPECT_GT(seen.blendChecked, kProblems / 100);
  RecordProperty("capped", seen.capped);
}

}  // namespace
}  // namespace propimpact
