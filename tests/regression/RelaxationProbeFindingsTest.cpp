// Fuzz findings about the exact plastic solve's least-violation bisection
// (ActiveSetLcp::solve, PlasticSolver.h). Inputs in tests/regression/findings/.
#include <gtest/gtest.h>

#include "FindingFile.h"
#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

// The scale of this case's velocities (√(2T) and the largest approach): 46.5.
constexpr Scalar kScale = 46.45;

// A rigid body with one infinite-inertia axis and a 1-dof dense block, 18
// plastic contacts (9 merged, so 9 rows over 7 dofs), no joints. The forecast
// stops the propagation after 136 reflections and every plastic solve proves
// its problem infeasible by a Farkas certificate, so each returns the least
// uniform violation its bisection finds. From the start, a probe at a
// relaxation of 3.9e-8 ran into the active set's change cap (191 changes)
// without converging and without a certificate, and was counted as
// feasible: its multipliers became the "least violation", 0.0057 per unit
// normal, in the blend's plastic outcome (found as
// 7dof-rigid-and-dense-capped-plastic-residual-reported-above-the-outcome-unseeded,
// libFuzzer seed 1916427929). A probe that neither converges nor proves
// infeasibility now decides nothing and the bisection moves up: 7.4e-8.
TEST(FuzzFindings, UnconvergedRelaxationProbeIsNotTakenAsTheLeastViolation) {
  fuzz::Case c = regression::loadFinding("7dof-unconverged-relaxation-probe-taken-as-the-least-violation");
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(c.problem, c.options);
  EXPECT_TRUE(r.capHit);
  EXPECT_EQ(r.fallback, Fallback::PlasticFromCapped);
  EXPECT_EQ(r.plasticMethod, PlasticMethod::ActiveSet);
  EXPECT_LT(r.plasticResidual, 1e-8 * kScale);  // was 5.7e-3
  EXPECT_LE(r.energyAfter, r.energyBefore);
  EXPECT_EQ(fuzz::check(c.problem, c.options, r), "");
  EXPECT_EQ(fuzz::resolveAndCheck(c), "");
}

}  // namespace
}  // namespace propimpact
