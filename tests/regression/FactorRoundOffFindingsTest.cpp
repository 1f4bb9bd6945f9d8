// Fuzzer finding in the factor the exact plastic solve works on (A = J L with
// M⁻¹ = L Lᵀ, built in ImpactResolver's buildFactorRows). Input in
// tests/regression/findings/.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "FindingFile.h"
#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

// One 6-dof body with a locked axis and a rotated infinite-inertia axis, one
// joint, 58 contacts, cap hit, no feasible outcome (the smallest achievable
// largest violation is 5.85e5, measured with a penalty solve while
// diagnosing). The joint's projected inverse mass has eigenvalues of 2.5e-16
// relative where it is exactly singular; the factor took their square root,
// a mobility of 2.4e-8 relative that the active-set solve accepted as a fourth
// independent direction on a rank-3 problem. The squeeze then pushed impulses
// of 1e20 along it (Σλ√d = 2.4e20 against a momentum of 1.5e5), and their
// round-off changed the joint's velocity error by 1.2e3-2.3e4. Eigenvalues at
// round-off level now count as zero in the factor.
TEST(FuzzFindings, JointRoundOffMobilityDrovePlasticImpulsesTo1e20) {
  fuzz::Case c = regression::loadFinding("joint-round-off-mobility-drove-plastic-impulses-to-1e20");
  ASSERT_EQ(c.problem.bilateralCount(), 1);
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(c.problem, c.options);
  EXPECT_TRUE(r.capHit);
  EXPECT_EQ(r.plasticMethod, PlasticMethod::ActiveSet);
  const MatrixX j = c.problem.denseContactJacobian();
  const MatrixX minv = c.problem.denseInverseMass();
  Scalar impulseSize = 0;
  for (int i = 0; i < c.problem.contactCount(); ++i)
    impulseSize += r.impulses[i] * std::sqrt(std::max(Scalar(0), Scalar(j.row(i) * minv * j.row(i).transpose())));
  // 1.5e10 now (4,200 elastic reflections and the plastic fallback), 2.4e20 before.
  EXPECT_LE(impulseSize, 1e7 * std::sqrt(2 * r.energyBefore));
  EXPECT_EQ(fuzz::check(c.problem, c.options, r), "");
  EXPECT_EQ(fuzz::resolveAndCheck(c), "");
}

}  // namespace
}  // namespace propimpact
