// Fuzzer findings in the exact plastic solve (PlasticSolver.cpp) with rows that
// a kinematic bias or a prescribed motion makes violated although they depend
// linearly on the active rows. Inputs in tests/regression/findings/.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "FindingFile.h"
#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

// 38 contacts with kinematic biases on a 4-dof block, cap hit, plastic
// fallback. Once the active rows spanned the space, the solve blocked every
// other violated row as "dependent" and stopped with a residual of 1.5e-3 of
// the scale although the witness velocity is feasible. A dependent row is
// violated only when s0 is not in the range of A (a bias), and it must then
// enter by Lawson–Hanson's exchange step; with it the outcome is feasible to
// the resolver's own tolerance.
TEST(FuzzFindings, BiasedRowDependentOnActiveRowsEntersByExchange) {
  fuzz::Case c = regression::loadFinding("biased-row-dependent-on-active-rows-needs-exchange");
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(c.problem, c.options);
  EXPECT_TRUE(r.capHit);
  EXPECT_EQ(r.plasticMethod, PlasticMethod::ActiveSet);
  const Scalar scale = std::sqrt(2 * r.energyBefore);
  EXPECT_LE(r.plasticResidual, 1e-10 * scale);  // was 5804.6 of a scale of 3.76e6
  EXPECT_EQ(fuzz::check(c.problem, c.options, r), "");
  EXPECT_EQ(fuzz::resolveAndCheck(c), "");
}

// The open finding "wedge-43-rows-6-dofs-active-set-residual": a body with an
// infinite-inertia axis spinning about it (a prescribed motion nothing can
// change) and 38 contacts in the cluster. No velocity satisfies them all: the
// smallest achievable largest unit-normal violation is 150.2 (a linear program
// over the 4-dimensional admissible motions, solved by vertex enumeration
// while diagnosing). The exchange step proves it (a Farkas certificate) and
// the solve falls back to leaving such rows violated; the report says by how
// much. The fuzzer used to flag the residual against the bound meant for
// problems that have a feasible outcome.
TEST(FuzzFindings, PrescribedSpinSqueezeWithNoFeasibleOutcomeReportsItsResidual) {
  fuzz::Case c = regression::loadFinding("prescribed-spin-squeeze-with-no-feasible-outcome");
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(c.problem, c.options);
  EXPECT_TRUE(r.velocity.allFinite());
  EXPECT_TRUE(r.capHit);
  EXPECT_EQ(r.plasticMethod, PlasticMethod::ActiveSet);
  const Scalar optimum = 150.2;  // no outcome does better
  EXPECT_GE(r.plasticResidual, optimum);
  EXPECT_LE(r.plasticResidual, 1e-2 * std::sqrt(2 * r.energyBefore));  // near it: not the runaway of an unbounded dual
  EXPECT_EQ(fuzz::resolveAndCheck(c), "");
}

}  // namespace
}  // namespace propimpact
