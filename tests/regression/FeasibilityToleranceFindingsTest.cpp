// Fuzzer finding "approach-within-a-loosened-feasibility-tolerance": a case
// that sets ResolveOptions::feasibilityTolerance to 1e-6, with velocities of
// 1e6 in one block (scale 1.07e6) and contacts elsewhere approaching at about
// 0.045 per unit normal (4e-8 of the scale). The resolver treats them as
// feasible, as the option says, reflects nothing, and the inelastic blend
// keeps part of that approach; the fuzz check compared against its own 1e-8
// instead of the option. The resolver is right; the check now follows the
// option. Input in tests/regression/findings/.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "FindingFile.h"
#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

TEST(FuzzFindings, ApproachWithinALoosenedFeasibilityTolerance) {
  fuzz::Case c = regression::loadFinding("approach-within-a-loosened-feasibility-tolerance");
  EXPECT_EQ(c.options.feasibilityTolerance, 1e-6);
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(c.problem, c.options);
  EXPECT_EQ(fuzz::check(c.problem, c.options, r), "");
  // Every contact ends no faster approaching than the option allows.
  const MatrixX j = c.problem.denseContactJacobian();
  const MatrixX minv = c.problem.denseInverseMass();
  const VectorX before = j * c.problem.velocity() + c.problem.contactBiases();
  const VectorX after = j * r.velocity + c.problem.contactBiases();
  double scale = std::sqrt(2 * c.problem.kineticEnergy(c.problem.velocity()));
  double slowest = 0;
  for (Index i = 0; i < j.rows(); ++i) {
    const double unit = 1 / std::sqrt(double(j.row(i) * minv * j.row(i).transpose()));
    scale = std::max(scale, std::abs(before[i]) * unit);
    slowest = std::min(slowest, after[i] * unit);
  }
  EXPECT_GE(slowest, -c.options.feasibilityTolerance * scale);
  EXPECT_LT(slowest, -1e-8 * scale);  // beyond the check's own default: the case this finding is about
}

}  // namespace
}  // namespace propimpact
