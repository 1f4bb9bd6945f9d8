// Seed 004 / SPEC §6: kinetic energy split T = T_c + T_a with the projectors
// P_c = M⁻¹Aᵀ(A M⁻¹Aᵀ)⁻¹A, P_a = I − P_c, and the plastic impact's loss.
#include <gtest/gtest.h>

#include <random>

#include "TestSupport.h"
#include "propimpact/core/ImpactResolver.h"
#include "propimpact/core/Resolve.h"

namespace propimpact {
namespace {

using test::randomSpd;
using test::randomVector;
using test::uniform;
using test::uniformInt;

constexpr int kTrials = 500;
constexpr Scalar kEnergyTolerance = 1e-10;  // relative to T
constexpr Scalar kVelocityTolerance = 1e-9; // relative to ||v||_M
constexpr Scalar kImpulseTolerance = 1e-8;  // relative; multipliers carry the conditioning of A M⁻¹ Aᵀ
constexpr Scalar kExact = 1e-15;            // hand-computed 1-D cases

struct Split {
  Scalar constrained, admissible;
  MatrixX admissibleProjector;
};

Split splitOf(const MatrixX& m, const MatrixX& a, const VectorX& v) {
  const MatrixX minv = m.inverse();
  const MatrixX pc = minv * a.transpose() * (a * minv * a.transpose()).inverse() * a;
  const MatrixX pa = MatrixX::Identity(m.rows(), m.cols()) - pc;
  const VectorX vc = pc * v, va = pa * v;
  return {0.5 * vc.dot(m * vc), 0.5 * va.dot(m * va), pa};
}

// v0 = v_p − M⁻¹Aᵀμ with A v_p = 0 and μ > 0: the plastic outcome is v_p, every
// multiplier positive (it satisfies the KKT conditions of SPEC §4).
TEST(EnergySplit, PlasticImpactWithPositiveMultipliersLosesConstrainedEnergy) {
  std::mt19937_64 rng(0xe5011ULL);
  for (int trial = 0; trial < kTrials; ++trial) {
    const Index n = uniformInt(rng, 2, 10);
    const Index rows = uniformInt(rng, 1, static_cast<int>(n));
    const MatrixX m = randomSpd(rng, n);
    const MatrixX minv = m.inverse();
    // Orthonormal rows rescaled: independent and well conditioned, so that the
    // reference computed here is accurate to the tolerance.
    const MatrixX q = Eigen::HouseholderQR<MatrixX>(test::randomMatrix(rng, n, n)).householderQ();
    MatrixX a = q.topRows(rows);
    for (Index i = 0; i < rows; ++i) a.row(i) *= uniform(rng, 0.5, 2);
    VectorX vp = randomVector(rng, n);
    vp -= minv * a.transpose() * (a * minv * a.transpose()).ldlt().solve(a * vp);  // A v_p = 0
    VectorX mu(rows);
    for (Index i = 0; i < rows; ++i) mu[i] = uniform(rng, 0.1, 2);
    const VectorX v0 = vp - minv * a.transpose() * mu;

    const Split split = splitOf(m, a, v0);
    const Scalar total = test::energy(m, v0);
    ASSERT_NEAR(split.constrained + split.admissible, total, kEnergyTolerance * total);

    const ImpactResult r = resolveDense(m, v0, a, 0.0);
    const Scalar norm = std::sqrt(2 * total);
    EXPECT_NEAR(r.energyBefore - r.energyAfter, split.constrained, kEnergyTolerance * total) << "trial " << trial;
    ASSERT_TRUE(r.energySplitComputed);
    EXPECT_NEAR(r.constrainedEnergy, split.constrained, kEnergyTolerance * total);
    EXPECT_NEAR(r.admissibleEnergy, split.admissible, kEnergyTolerance * total);
    EXPECT_NEAR(r.constrainedEnergy + r.admissibleEnergy, r.energyBefore, kEnergyTolerance * total);
    // Seed 004: q̇+ = P_a q̇−.
    const VectorX expected = split.admissibleProjector * v0;
    const VectorX d = r.velocity - expected;
    EXPECT_LE(std::sqrt(d.dot(m * d)), kVelocityTolerance * norm) << "trial " << trial;
    // The impulses are the multipliers (rows independent: unique).
    EXPECT_LE((r.impulses - mu).cwiseAbs().maxCoeff(), kImpulseTolerance * mu.maxCoeff());
  }
}

// Correction 2: when projecting onto A v = 0 would need a pulling impulse, the
// plastic outcome lets that contact separate and loses less than T_c.
TEST(EnergySplit, SeparatingContactLosesLessThanConstrainedEnergy) {
  // Two unit balls on a line, both resting against walls on either side:
  // ball 0 moves left into the left wall (row x0 ≥), ball 1 moves right, away
  // from its wall. Eq. (11) would stop both; the LCP stops only ball 0.
  MatrixX m = MatrixX::Identity(2, 2);
  MatrixX a(2, 2);
  a << 1, 0, 0, -1;  // gap to left wall grows with x0; gap to right wall shrinks with x1
  VectorX v0(2);
  v0 << -1, -0.5;      // ball 1 moves left: away from the right wall
  const ImpactResult r = resolveDense(m, v0, a, 0.0);
  const Split split = splitOf(m, a, v0);
  EXPECT_NEAR(split.constrained, 0.5 * (1 + 0.25), kExact);
  EXPECT_NEAR(r.velocity[0], 0, kExact);
  EXPECT_NEAR(r.velocity[1], -0.5, kExact);
  EXPECT_NEAR(r.energyBefore - r.energyAfter, 0.5, kExact);
  EXPECT_LT(r.energyBefore - r.energyAfter, split.constrained);
  EXPECT_GE(r.impulses.minCoeff(), 0);
}

// ResolveOptions::computeEnergySplit = false (what the Bullet solvers use)
// skips T_c / T_a and nothing else: over random dense problems within the
// analysis limit the outcome, the impulses, the Gram matrix and the
// certificate are bit for bit those with the split, and the split is
// reported as not computed.
TEST(EnergySplit, TurningItOffChangesNothingElse) {
  std::mt19937_64 rng(0x5b117ULL);
  ImpactResolver resolver;
  for (int trial = 0; trial < 200; ++trial) {
    const Index n = uniformInt(rng, 2, 8);
    const int contacts = uniformInt(rng, 1, 6);
    ImpactProblem problem;
    problem.addDenseBlock(randomSpd(rng, n), randomVector(rng, n));
    for (int i = 0; i < contacts; ++i)
      problem.addContactRow(0, randomVector(rng, n), kNoBlock, VectorX(), uniform(rng, 0, 1));
    ResolveOptions options;
    const ImpactResult with = resolver.resolve(problem, options);
    options.computeEnergySplit = false;
    const ImpactResult without = resolver.resolve(problem, options);
    ASSERT_TRUE(with.energySplitComputed) << "trial " << trial;
    EXPECT_FALSE(without.energySplitComputed) << "trial " << trial;
    for (Index k = 0; k < n; ++k) EXPECT_EQ(with.velocity[k], without.velocity[k]) << "trial " << trial;
    for (int i = 0; i < contacts; ++i) EXPECT_EQ(with.impulses[i], without.impulses[i]) << "trial " << trial;
    EXPECT_EQ(with.certificate, without.certificate) << "trial " << trial;
    EXPECT_EQ(with.gram, without.gram) << "trial " << trial;
  }
}

}  // namespace
}  // namespace propimpact
