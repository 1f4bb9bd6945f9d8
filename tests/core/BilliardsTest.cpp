// Seed 000 Sec. VII-A: the three-ball billiard break (Fig. 4, eq. (31)) in the
// normalized form of SPEC §3, with unequal masses and radii. Cue ball c moves
// along the bisector of the angle θ between the lines of centres c→a, c→b.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "TestSupport.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

constexpr Scalar kPi = 3.14159265358979323846;
constexpr Scalar kGramTolerance = 1e-12;    // G is a ratio of O(1) quantities
constexpr Scalar kUniqueTolerance = 1e-12;  // ξ of a unique outcome (relative round-off)
constexpr Scalar kIndeterminate = 1e-6;     // ξ clearly above round-off
constexpr Scalar kAngleMargin = 0.05;       // stay this far from π/2, θ_min and π on the grid
constexpr Scalar kVelocityTolerance = 1e-12; // unit speeds, O(1) masses: velocities to round-off
constexpr Scalar kEnergyTolerance = 1e-12;   // relative

struct Break {
  Scalar ma, mb, mc;  // masses
  Scalar ra, rb, rc;  // radii
  [[nodiscard]] Scalar minimumAngle() const {
    const Scalar ac = ra + rc, bc = rb + rc, ab = ra + rb;
    return std::acos((ac * ac + bc * bc - ab * ab) / (2 * ac * bc));
  }
};

Eigen::Vector2d direction(Scalar angle) { return {std::cos(angle), std::sin(angle)}; }

// Planar point masses, one 2-dof block each; gap rows Dφ from the paper's gap
// functions φ = |x_a − x_c| − (r_a + r_c): +e on the far ball, −e on the cue.
ImpactProblem makeBreak(const Break& b, Scalar theta, Scalar speed) {
  ImpactProblem problem;
  const VectorX rest = VectorX::Zero(2);
  const int a = problem.addDenseBlock(b.ma * MatrixX::Identity(2, 2), rest);
  const int bb = problem.addDenseBlock(b.mb * MatrixX::Identity(2, 2), rest);
  const int c = problem.addDenseBlock(b.mc * MatrixX::Identity(2, 2), VectorX(direction(0) * speed));
  const Eigen::Vector2d ea = direction(theta / 2), eb = direction(-theta / 2);
  problem.addContactRow(a, VectorX(ea), c, VectorX(-ea), 1.0);
  problem.addContactRow(bb, VectorX(eb), c, VectorX(-eb), 1.0);
  return problem;
}

Scalar expectedGram(const Break& b, Scalar theta) {
  return std::cos(theta) / std::sqrt((1 + b.mc / b.ma) * (1 + b.mc / b.mb));
}

// ξ = ||p_ab − p_ba||_g / ||p0||_g, a solved first against b solved first.
Scalar xiAbBa(const ImpactProblem& problem) {
  ImpactResolver resolver;
  ResolveOptions abFirst;
  abFirst.ordering = OrderingPolicy::IndexOrder;
  ResolveOptions baFirst;
  baFirst.ordering = OrderingPolicy::ReverseIndexOrder;
  const ImpactResult ab = resolver.resolve(problem, abFirst);
  const ImpactResult ba = resolver.resolve(problem, baFirst);
  EXPECT_EQ(ab.sequence.front(), 0);
  EXPECT_EQ(ba.sequence.front(), 1);
  const MatrixX m = problem.denseMass();
  const VectorX d = ab.velocity - ba.velocity;
  return std::sqrt(d.dot(m * d)) / std::sqrt(2 * ab.energyBefore);
}

std::vector<Break> breaks() {
  std::vector<Break> all;
  // Masses proportional to volume (the paper's choice) with unequal radii.
  for (const auto& radii : {std::array<Scalar, 3>{1.0, 0.7, 1.3}, std::array<Scalar, 3>{0.5, 1.5, 1.0},
                            std::array<Scalar, 3>{1.0, 1.0, 1.0}}) {
    const Scalar density = 2.5;
    all.push_back({density * std::pow(radii[0], 3), density * std::pow(radii[1], 3), density * std::pow(radii[2], 3),
                   radii[0], radii[1], radii[2]});
  }
  std::mt19937_64 rng(0xb111a4dULL);
  for (int k = 0; k < 10; ++k)
    all.push_back({std::pow(10.0, test::uniform(rng, -1, 1)), std::pow(10.0, test::uniform(rng, -1, 1)),
                   std::pow(10.0, test::uniform(rng, -1, 1)), test::uniform(rng, 0.2, 2), test::uniform(rng, 0.2, 2),
                   test::uniform(rng, 0.2, 2)});
  return all;
}

TEST(Billiards, GramEntryIsNormalizedEquationThirtyOne) {
  ImpactResolver resolver;
  for (const Break& b : breaks()) {
    for (Scalar theta = b.minimumAngle(); theta < kPi; theta += 0.01) {
      const ImpactResult r = resolver.resolve(makeBreak(b, theta, 1.0));
      ASSERT_EQ(r.gram.rows(), 2);
      EXPECT_NEAR(r.gram(0, 1), expectedGram(b, theta), kGramTolerance) << "theta " << theta;
      EXPECT_NEAR(r.gram(1, 0), r.gram(0, 1), kGramTolerance);
      EXPECT_NEAR(r.gram(0, 0), 1, kGramTolerance);
    }
  }
}

TEST(Billiards, RightAngleBreakIsUniqueForAnyMasses) {
  ImpactResolver resolver;
  for (const Break& b : breaks()) {
    const ImpactProblem problem = makeBreak(b, kPi / 2, 1.0);
    EXPECT_LE(xiAbBa(problem), kUniqueTolerance);
    ResolveOptions options;
    options.computeXi = true;
    options.xiOrders = XiOrderSet::AllPolicies;
    const ImpactResult r = resolver.resolve(problem, options);
    EXPECT_EQ(r.certificate, UniquenessCertificate::Orthogonal);
    EXPECT_LE(r.xi, kUniqueTolerance);
    // Orthogonal contacts act independently: each far ball gets the velocity
    // of a two-body collision with the cue along its own line of centres.
    for (int k = 0; k < 2; ++k) {
      const Scalar mFar = k == 0 ? b.ma : b.mb;
      const Eigen::Vector2d e = direction(k == 0 ? kPi / 4 : -kPi / 4);
      const Scalar speed = 2 * b.mc / (mFar + b.mc) * e.dot(direction(0));
      EXPECT_NEAR(r.velocity.segment<2>(2 * k).dot(e), speed, kVelocityTolerance);
    }
  }
}

TEST(Billiards, BreakIsIndeterminateAwayFromRightAngle) {
  for (const Break& b : breaks()) {
    int checked = 0;
    for (Scalar theta = b.minimumAngle() + kAngleMargin; theta < kPi - kAngleMargin; theta += 0.02) {
      if (std::abs(theta - kPi / 2) < kAngleMargin) continue;
      const ImpactProblem problem = makeBreak(b, theta, 1.0);
      const Scalar xi = xiAbBa(problem);
      EXPECT_GT(xi, kIndeterminate) << "theta " << theta << " masses " << b.ma << " " << b.mb << " " << b.mc;
      ImpactResolver resolver;
      ResolveOptions options;
      options.computeXi = true;
      options.xiOrders = XiOrderSet::AllPolicies;
      const ImpactResult r = resolver.resolve(problem, options);
      EXPECT_GE(r.xi, xi - kUniqueTolerance);  // the policy set contains both index orders
      EXPECT_NE(r.certificate, UniquenessCertificate::Orthogonal);
      EXPECT_NEAR(r.energyAfter, r.energyBefore, kEnergyTolerance * r.energyBefore);
      ++checked;
    }
    EXPECT_GT(checked, 10);
  }
}

}  // namespace
}  // namespace propimpact
