// Fuzz finding "42dof-2-joints-capped-joint-velocity-error-changed-4.8e10-unseeded":
// seven rigid bodies, 23 plastic contacts, two joint rows, reflection cap 33
// and plasticDenseLimit 4, so the capped state is settled by the iterative
// plastic solve. Joint 0 holds one body (four of its six axes locked) to the
// world. Gauss–Seidel and the conjugate gradient ran to their 949-sweep cap
// without converging (residual 2.2e4, impulses up to 2e10 on rows the joint
// nearly locks) and their outcome moved the joint by 4.8e10, which an impact
// must never do (SPEC §6). Every iterative outcome's velocity change is now
// projected M-orthogonally onto the admissible motions before it is judged,
// as the capped state's already was (PlasticStage::keepChangeAdmissible).
// Input in tests/regression/findings/ and tests/fuzz/corpus/.
#include <gtest/gtest.h>

#include "FindingFile.h"
#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

// |B Δv| against |B|·|Δv|: a joint kept to round-off of the velocity change.
constexpr Scalar kJointKeptToRoundOff = 1e-12;

void expectJointsKept(const fuzz::Case& c, const ResolveOptions& options) {
  const ImpactResult r = ImpactResolver().resolve(c.problem, options);
  EXPECT_TRUE(r.capHit);
  EXPECT_EQ(r.plasticMethod, PlasticMethod::Iterative);
  const MatrixX joints = c.problem.denseBilateralJacobian();
  const VectorX change = r.velocity - c.problem.velocity();
  for (Index k = 0; k < joints.rows(); ++k)
    EXPECT_LE(std::abs(joints.row(k).dot(change)), kJointKeptToRoundOff * joints.row(k).norm() * change.norm())
        << "joint " << k;
  EXPECT_EQ(fuzz::check(c.problem, options, r), "");
}

TEST(FuzzFindings, UnconvergedIterativePlasticSolveKeepsTheJoints) {
  const fuzz::Case c = regression::loadFinding("42dof-2-joints-capped-joint-velocity-error-changed-4.8e10-unseeded");
  ASSERT_EQ(c.problem.bilateralCount(), 2);
  ASSERT_EQ(c.options.plasticDenseLimit, 4);
  expectJointsKept(c, c.options);
  // Longer runs drifted as well (1.5e9 after 100,000 sweeps): the projection, not the cap, keeps them.
  ResolveOptions longer = c.options;
  longer.plasticIterativeSweepCap = 100000;
  expectJointsKept(c, longer);
}

}  // namespace
}  // namespace propimpact
