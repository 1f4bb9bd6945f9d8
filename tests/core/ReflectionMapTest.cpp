// Seed 000 Sec. III / SPEC §2: properties of the one-contact reflection map
// Γ(u) = I − (1 + R) M⁻¹uᵀu / (u M⁻¹ uᵀ), checked on random SPD metrics.
#include <gtest/gtest.h>

#include <random>

#include "TestSupport.h"
#include "propimpact/core/ReflectionMap.h"
#include "propimpact/core/Resolve.h"

namespace propimpact {
namespace {

using test::gInner;
using test::randomSpd;
using test::randomVector;
using test::uniform;
using test::uniformInt;

constexpr int kTrials = 500;
constexpr Scalar kRoundOff = 1e-11;  // relative, matrices of size ≤ 10 with condition ≤ 1e2
constexpr Scalar kResolveRoundOff = 1e-10;  // relative, after the resolver's own arithmetic (conditioning ≤ 1e2)

TEST(ReflectionMap, IsAnInvolutionForRandomMetrics) {
  std::mt19937_64 rng(0x5eed0001ULL);
  for (int trial = 0; trial < kTrials; ++trial) {
    const Index n = uniformInt(rng, 1, 10);
    const MatrixX minv = randomSpd(rng, n).inverse();
    const VectorX u = randomVector(rng, n);
    const MatrixX gamma = reflectionMap(minv, u);
    EXPECT_LE((gamma * gamma - MatrixX::Identity(n, n)).cwiseAbs().maxCoeff(), kRoundOff) << "trial " << trial;
  }
}

TEST(ReflectionMap, DependsOnlyOnTheNormalsDirectionAndLine) {
  std::mt19937_64 rng(0x5eed0002ULL);
  for (int trial = 0; trial < kTrials; ++trial) {
    const Index n = uniformInt(rng, 1, 10);
    const MatrixX minv = randomSpd(rng, n).inverse();
    const VectorX u = randomVector(rng, n);
    const Scalar alpha = (trial % 2 ? 1 : -1) * std::pow(10.0, uniform(rng, -3, 3));
    const Scalar restitution = uniform(rng, 0, 1);
    const MatrixX gamma = reflectionMap(minv, u, restitution);
    EXPECT_LE((reflectionMap(minv, alpha * u, restitution) - gamma).cwiseAbs().maxCoeff(),
              kRoundOff * gamma.cwiseAbs().maxCoeff())
        << "trial " << trial << " alpha " << alpha;
  }
}

// Lemma 5: <a Γ, b Γ>_g = <a, b>_g for every pair of covectors, i.e.
// Γ M⁻¹ Γᵀ = M⁻¹ (momenta are row covectors, p+ = p Γ).
TEST(ReflectionMap, PreservesTheKineticInnerProduct) {
  std::mt19937_64 rng(0x5eed0003ULL);
  for (int trial = 0; trial < kTrials; ++trial) {
    const Index n = uniformInt(rng, 1, 10);
    const MatrixX minv = randomSpd(rng, n).inverse();
    const VectorX u = randomVector(rng, n);
    const MatrixX gamma = reflectionMap(minv, u);
    const VectorX a = randomVector(rng, n);
    const VectorX b = randomVector(rng, n);
    const VectorX aPlus = gamma.transpose() * a;  // (a Γ)ᵀ
    const VectorX bPlus = gamma.transpose() * b;
    const Scalar scale = std::sqrt(gInner(minv, a, a) * gInner(minv, b, b));
    EXPECT_NEAR(gInner(minv, aPlus, bPlus), gInner(minv, a, b), kRoundOff * scale) << "trial " << trial;
    EXPECT_LE((gamma * minv * gamma.transpose() - minv).cwiseAbs().maxCoeff(), kRoundOff * minv.cwiseAbs().maxCoeff());
  }
}

// The map reverses the normal component of the momentum scaled by R and leaves
// every covector g-orthogonal to u alone (Newton's law for one contact).
TEST(ReflectionMap, ScalesNormalComponentByMinusRestitution) {
  std::mt19937_64 rng(0x5eed0004ULL);
  for (int trial = 0; trial < kTrials; ++trial) {
    const Index n = uniformInt(rng, 2, 10);
    const MatrixX minv = randomSpd(rng, n).inverse();
    const VectorX u = randomVector(rng, n);
    const Scalar restitution = uniform(rng, 0, 1);
    const MatrixX gamma = reflectionMap(minv, u, restitution);
    const VectorX p = randomVector(rng, n);
    const VectorX pPlus = gamma.transpose() * p;
    const Scalar scale = test::gNorm(minv, p) * test::gNorm(minv, u);
    EXPECT_NEAR(gInner(minv, pPlus, u), -restitution * gInner(minv, p, u), kRoundOff * scale);
    VectorX tangent = randomVector(rng, n);
    tangent -= gInner(minv, tangent, u) / gInner(minv, u, u) * u;
    EXPECT_LE((gamma.transpose() * tangent - tangent).norm(), kRoundOff * tangent.norm());
  }
}

// The resolver's one-contact outcome is the reflection map applied to the
// momentum: M v+ = (M v−) Γ(u) when the contact approaches.
TEST(ReflectionMap, MatchesOneContactResolution) {
  std::mt19937_64 rng(0x5eed0005ULL);
  for (int trial = 0; trial < kTrials; ++trial) {
    const Index n = uniformInt(rng, 1, 8);
    const MatrixX m = randomSpd(rng, n);
    const MatrixX minv = m.inverse();
    const VectorX u = randomVector(rng, n);
    VectorX v = randomVector(rng, n);
    if (u.dot(v) > 0) v = -v;
    const Scalar restitution = trial % 3 == 0 ? 1.0 : uniform(rng, 0, 1);
    const ImpactResult r = resolveDense(m, v, u.transpose(), restitution);
    const VectorX expectedMomentum = reflectionMap(minv, u, restitution).transpose() * (m * v);
    EXPECT_LE((m * r.velocity - expectedMomentum).norm(), kResolveRoundOff * (m * v).norm()) << "trial " << trial;
  }
}

}  // namespace
}  // namespace propimpact
