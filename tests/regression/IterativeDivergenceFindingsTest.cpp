// Fuzz finding "mprgp-diverged-on-an-infeasible-43-contact-6-dof-problem"
// (CI's seeded stage, seed 10): 43 contacts on one 6-dof block with
// plasticDenseLimit 1, so the plastic solve is the iterative one
// (ProjectedConjugateGradient), on a problem that has no plastic outcome. The
// MPRGP took round-off curvature along a flat direction for curvature, made
// steps of 1e300 and ran off until the velocity overflowed. Three safeguards
// (commit 44c24a0): round-off curvature counts as flat, a projected gradient
// 1e8 times its first stops the iteration, and PlasticStage judges a
// non-finite iterative outcome infinitely violated, so a finite candidate
// stands. Input in tests/regression/findings/ and tests/fuzz/corpus/.
#include <gtest/gtest.h>

#include "FindingFile.h"
#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

// The fuzz check's own energy allowance (tests/fuzz/ProblemFuzzer.h, Tolerances::energy).
constexpr Scalar kCheckEnergy = 1e-9;

TEST(FuzzFindings, IterativePlasticSolveStopsFiniteOnAnInfeasibleProblem) {
  fuzz::Case c = regression::loadFinding("mprgp-diverged-on-an-infeasible-43-contact-6-dof-problem");
  ASSERT_EQ(c.problem.contactCount(), 43);
  ASSERT_EQ(c.problem.dofCount(), 6);
  const ImpactResult r = ImpactResolver().resolve(c.problem, c.options);
  ASSERT_TRUE(r.velocity.allFinite());
  ASSERT_TRUE(r.impulses.allFinite());
  if (r.plasticVelocity.size() > 0) {
    EXPECT_TRUE(r.plasticVelocity.allFinite());
    EXPECT_LE(r.energyPlastic, r.energyBefore * (1 + kCheckEnergy));
  }
  EXPECT_LE(r.energyAfter, r.energyBefore * (1 + kCheckEnergy)) << "relative gain " << r.energyAfter / r.energyBefore - 1;
  EXPECT_EQ(fuzz::check(c.problem, c.options, r), "");
  EXPECT_EQ(fuzz::resolveAndCheck(c), "");
}

}  // namespace
}  // namespace propimpact
