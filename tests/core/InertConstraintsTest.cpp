// Seed 004, eqs. 4–22: resolveInert against hand-derived cases, the
// decomposition's invariants on random problems (fixed seed), the agreement
// with the unilateral plastic outcome when every multiplier pushes (SPEC §6),
// and the typed errors of invalid input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "TestSupport.h"
#include "propimpact/core/InertConstraints.h"
#include "propimpact/core/Resolve.h"

namespace propimpact {
namespace {

using test::randomMatrix;
using test::randomSpd;
using test::randomVector;
using test::uniform;
using test::uniformInt;

constexpr int kTrials = 400;
constexpr Scalar kExact = 1e-14;              // hand-derived cases, O(1) numbers
constexpr Scalar kEnergyTolerance = 1e-11;    // relative to T⁻
constexpr Scalar kVelocityTolerance = 1e-10;  // relative to ‖q̇⁻‖_M
constexpr Scalar kProjectorTolerance = 1e-9;  // P_aᵀ M P_c relative to ‖M‖
constexpr Scalar kImpulseTolerance = 1e-8;    // multipliers carry the conditioning of A M⁻¹ Aᵀ

Scalar kinetic(const MatrixX& m, const VectorX& v) { return 0.5 * v.dot(m * v); }

// A point mass m moving at (a, −b) lands on a floor and sticks in the normal
// direction only (A = [0 1]): q̇⁺ = (a, 0), T_c = ½ m b², T_a = ½ m a²,
// λ̄ = m b (the floor pushes up), ξ = b² / (a² + b²).
TEST(InertConstraints, PointMassOnAFloorKeepsItsTangentialVelocity) {
  const Scalar mass = 3, a = 2, b = 0.5;
  const MatrixX M = mass * MatrixX::Identity(2, 2);
  const VectorX v = (VectorX(2) << a, -b).finished();
  const MatrixX A = (MatrixX(1, 2) << 0, 1).finished();
  const InertImpact r = resolveInert(M, v, A);
  EXPECT_NEAR(r.velocity[0], a, kExact);
  EXPECT_NEAR(r.velocity[1], 0, kExact);
  EXPECT_NEAR(r.constrainedEnergy, 0.5 * mass * b * b, kExact);
  EXPECT_NEAR(r.admissibleEnergy, 0.5 * mass * a * a, kExact);
  EXPECT_NEAR(r.lostEnergy, 0.5 * mass * b * b, kExact);
  ASSERT_EQ(r.impulse.size(), 1);
  EXPECT_NEAR(r.impulse[0], mass * b, kExact);
  EXPECT_NEAR(r.xi, b * b / (a * a + b * b), kExact);
  EXPECT_NEAR(r.constrainedVelocity[0], 0, kExact);
  EXPECT_NEAR(r.constrainedVelocity[1], -b, kExact);
}

// Two masses on a line captured together (A = [1 −1]: equal velocities after):
// the common velocity is the momentum-weighted mean, the loss ½ μ (v1 − v2)²
// with the reduced mass μ, and λ̄ = −μ (v1 − v2) acts on mass 1.
TEST(InertConstraints, CaptureOfTwoMassesLosesTheReducedMassEnergy) {
  const Scalar m1 = 2, m2 = 6, v1 = 3, v2 = -1;
  const MatrixX M = (VectorX(2) << m1, m2).finished().asDiagonal();
  const VectorX v = (VectorX(2) << v1, v2).finished();
  const MatrixX A = (MatrixX(1, 2) << 1, -1).finished();
  const InertImpact r = resolveInert(M, v, A);
  const Scalar common = (m1 * v1 + m2 * v2) / (m1 + m2), mu = m1 * m2 / (m1 + m2);
  EXPECT_NEAR(r.velocity[0], common, kExact);
  EXPECT_NEAR(r.velocity[1], common, kExact);
  EXPECT_NEAR(r.constrainedEnergy, 0.5 * mu * (v1 - v2) * (v1 - v2), 1e-13);
  EXPECT_NEAR(r.impulse[0], -mu * (v1 - v2), 1e-13);
}

// A point mass fully stopped (A = I): everything is lost, ξ = 1, P_a = 0, and
// with no rows nothing changes: P_c = 0, ξ = 0.
TEST(InertConstraints, FullAndEmptyConstraintSetsAreTheExtremes) {
  const MatrixX M = (MatrixX(2, 2) << 2, 0.5, 0.5, 1).finished();
  const VectorX v = (VectorX(2) << 1, -2).finished();
  const InertImpact full = resolveInert(M, v, MatrixX::Identity(2, 2));
  EXPECT_NEAR(full.xi, 1, kExact);
  EXPECT_LT(full.velocity.norm(), kExact);
  EXPECT_LT(full.admissibleProjector.norm(), 1e-14);
  const VectorX impulse = -M * v;  // M(0 − v) = I λ̄
  EXPECT_LT((full.impulse - impulse).norm(), 1e-13);
  const InertImpact none = resolveInert(M, v, MatrixX(0, 2));
  EXPECT_EQ(none.xi, 0);
  EXPECT_EQ(none.impulse.size(), 0);
  EXPECT_LT((none.velocity - v).norm(), kExact);
  EXPECT_NEAR(none.energy, kinetic(M, v), kExact);
}

struct RandomProblem {
  MatrixX M, A;
  VectorX v;
};

RandomProblem randomProblem(std::mt19937_64& rng) {
  const Index n = uniformInt(rng, 1, 9);
  const Index m = uniformInt(rng, 1, static_cast<int>(n));
  RandomProblem p{randomSpd(rng, n), randomMatrix(rng, m, n), randomVector(rng, n)};
  for (Index i = 0; i < m; ++i) p.A.row(i) *= std::pow(10.0, uniform(rng, -1, 1));
  return p;
}

// Eqs. 4–17 on random problems: P_aᵀ M P_c = 0, P_c² = P_c, T⁻ = T_c⁻ + T_a⁻,
// A q̇⁺ = 0, T⁺ = T_a⁻, M(q̇⁺ − q̇⁻) = Aᵀ λ̄, −2 T_c⁻ = q̇⁻ᵀ Aᵀ λ̄, 0 ≤ ξ ≤ 1.
TEST(InertConstraints, DecompositionInvariantsHoldOnRandomProblems) {
  std::mt19937_64 rng(0x1e47ULL);
  for (int trial = 0; trial < kTrials; ++trial) {
    const RandomProblem p = randomProblem(rng);
    const InertImpact r = resolveInert(p.M, p.v, p.A);
    const Index n = p.v.size();
    const Scalar T = kinetic(p.M, p.v), norm = std::sqrt(2 * T), scaleM = p.M.norm();
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " n=" << n << " m=" << p.A.rows());
    const MatrixX& Pc = r.constrainedProjector;
    const MatrixX& Pa = r.admissibleProjector;
    EXPECT_LT((Pa.transpose() * p.M * Pc).norm(), kProjectorTolerance * scaleM);
    EXPECT_LT((Pc * Pc - Pc).norm(), kProjectorTolerance * std::max<Scalar>(1, Pc.norm()));
    EXPECT_LT((Pa + Pc - MatrixX::Identity(n, n)).norm(), kExact * 10);
    EXPECT_NEAR(r.energy, T, kEnergyTolerance * T);
    EXPECT_NEAR(r.constrainedEnergy + r.admissibleEnergy, T, kEnergyTolerance * T);
    EXPECT_NEAR(kinetic(p.M, Pc * p.v), r.constrainedEnergy, kEnergyTolerance * T * 100);
    EXPECT_NEAR(kinetic(p.M, r.velocity), r.admissibleEnergy, kEnergyTolerance * T);
    EXPECT_NEAR(r.lostEnergy, r.constrainedEnergy, kEnergyTolerance * T);
    EXPECT_NEAR(r.xi, r.constrainedEnergy / T, kEnergyTolerance);
    EXPECT_GE(r.xi, 0);
    EXPECT_LE(r.xi, 1 + kEnergyTolerance);
    for (Index i = 0; i < p.A.rows(); ++i)
      EXPECT_LT(std::abs(p.A.row(i).dot(r.velocity)),
                kVelocityTolerance * norm * std::sqrt(p.A.row(i).dot(p.M.llt().solve(p.A.row(i).transpose()))));
    const VectorX residual = p.M * (r.velocity - p.v) - p.A.transpose() * r.impulse;
    EXPECT_LT(residual.norm(), kImpulseTolerance * (p.M * p.v).norm() + kImpulseTolerance * norm);
    EXPECT_NEAR(p.v.dot(p.A.transpose() * r.impulse), -2 * r.constrainedEnergy, kImpulseTolerance * T);
  }
}

// The projectors depend on the constraint set, not on how it is written:
// A → S A (S invertible) gives the same P_c, q̇⁺ and T_c, and λ̄ → S⁻ᵀ λ̄.
TEST(InertConstraints, RewritingTheRowsChangesOnlyTheImpulseCoordinates) {
  std::mt19937_64 rng(0x5ca1eULL);
  for (int trial = 0; trial < kTrials / 4; ++trial) {
    const RandomProblem p = randomProblem(rng);
    const Index m = p.A.rows();
    MatrixX S = randomMatrix(rng, m, m) + 3 * MatrixX::Identity(m, m);
    const InertImpact r = resolveInert(p.M, p.v, p.A);
    const InertImpact s = resolveInert(p.M, p.v, S * p.A);
    const Scalar norm = std::sqrt(2 * r.energy);
    EXPECT_LT(std::sqrt(2 * kinetic(p.M, r.velocity - s.velocity)), kVelocityTolerance * 100 * norm) << trial;
    EXPECT_NEAR(r.constrainedEnergy, s.constrainedEnergy, kEnergyTolerance * 100 * r.energy) << trial;
    const VectorX mapped = S.transpose().partialPivLu().solve(r.impulse);
    EXPECT_LT((mapped - s.impulse).norm(), kImpulseTolerance * 100 * std::max<Scalar>(1, r.impulse.norm())) << trial;
  }
}

// SPEC §6: on unilateral contacts whose plastic multipliers all push, the
// LCP's plastic outcome (resolveDense, restitution 0) is q̇⁺ = P_a q̇⁻.
TEST(InertConstraints, AgreesWithThePlasticResolverWhenEveryImpulsePushes) {
  std::mt19937_64 rng(0x9a5ULL);
  int compared = 0;
  for (int trial = 0; trial < kTrials && compared < 60; ++trial) {
    const RandomProblem p = randomProblem(rng);
    const InertImpact r = resolveInert(p.M, p.v, p.A);
    if (!(r.impulse.minCoeff() > 1e-3 * r.impulse.cwiseAbs().maxCoeff())) continue;
    ++compared;
    const ImpactResult lcp = resolveDense(p.M, p.v, p.A, 0.0);
    const Scalar norm = std::sqrt(2 * r.energy);
    EXPECT_LT(std::sqrt(2 * kinetic(p.M, lcp.velocity - r.velocity)), 1e-7 * norm) << "trial " << trial;
  }
  EXPECT_GE(compared, 20) << "too few problems with pushing impulses to compare";
}

ErrorCode codeOf(const MatrixX& M, const VectorX& v, const MatrixX& A) {
  try {
    (void)resolveInert(M, v, A);
  } catch (const InputError& error) {
    return error.code();
  }
  ADD_FAILURE() << "no InputError thrown";
  return ErrorCode::BadOption;
}

TEST(InertConstraints, InvalidInputGetsATypedError) {
  const MatrixX M = MatrixX::Identity(3, 3);
  const VectorX v = VectorX::Ones(3);
  const MatrixX A = (MatrixX(2, 3) << 1, 0, 0, 0, 1, 1).finished();
  const Scalar nan = std::numeric_limits<Scalar>::quiet_NaN();
  MatrixX badM = M;
  badM(1, 1) = nan;
  EXPECT_EQ(codeOf(badM, v, A), ErrorCode::NonFiniteMass);
  VectorX badV = v;
  badV[2] = nan;
  EXPECT_EQ(codeOf(M, badV, A), ErrorCode::NonFiniteVelocity);
  MatrixX badA = A;
  badA(0, 1) = std::numeric_limits<Scalar>::infinity();
  EXPECT_EQ(codeOf(M, v, badA), ErrorCode::NonFiniteRow);
  EXPECT_EQ(codeOf((VectorX(3) << 1, -1, 1).finished().asDiagonal(), v, A), ErrorCode::MassNotPositiveDefinite);
  MatrixX skew = M;
  skew(0, 1) = 0.5;
  EXPECT_EQ(codeOf(skew, v, A), ErrorCode::MassNotPositiveDefinite);
  EXPECT_EQ(codeOf(MatrixX::Identity(2, 2), v, A), ErrorCode::DimensionMismatch);
  EXPECT_EQ(codeOf(M, v, MatrixX::Ones(1, 2)), ErrorCode::DimensionMismatch);
  EXPECT_EQ(codeOf(M, VectorX(0), MatrixX(0, 0)), ErrorCode::DimensionMismatch);
  EXPECT_EQ(codeOf(M, v, (MatrixX(2, 3) << 1, 0, 0, 0, 0, 0).finished()), ErrorCode::ZeroNormRow);
}

// Dependent rows leave eq. 16 without a unique impulse: refused with the
// dedicated type, whether the dependence is exact or within round-off.
TEST(InertConstraints, DependentRowsAreRefused) {
  const MatrixX M = (VectorX(3) << 1, 2, 3).finished().asDiagonal();
  const VectorX v = VectorX::Ones(3);
  const MatrixX twice = (MatrixX(2, 3) << 1, 2, 0, 2, 4, 0).finished();
  EXPECT_THROW((void)resolveInert(M, v, twice), DependentConstraintRows);
  const MatrixX combination = (MatrixX(3, 3) << 1, 0, 1, 0, 1, 1, 1, 1, 2 + 1e-14).finished();
  EXPECT_THROW((void)resolveInert(M, v, combination), DependentConstraintRows);
  EXPECT_THROW((void)resolveInert(M, v, MatrixX::Ones(4, 3)), DependentConstraintRows);
  const MatrixX nearlyButNot = (MatrixX(2, 3) << 1, 0, 0, 1, 1e-3, 0).finished();
  EXPECT_NO_THROW((void)resolveInert(M, v, nearlyButNot));
  try {
    (void)resolveInert(M, v, twice);
  } catch (const InputError& error) {
    EXPECT_EQ(error.code(), ErrorCode::DependentRows);
  }
}

}  // namespace
}  // namespace propimpact
