// Fuzzer findings where the reflection cap was hit and the plastic solve from
// the capped state could not end feasible. Inputs in tests/regression/findings/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "FindingFile.h"
#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

/// Largest unit-normal approach over the rows some admissible motion moves,
/// in the fuzz check's own (SVD) metric.
Scalar worstApproach(const ImpactProblem& p, const VectorX& velocity) {
  const MatrixX j = p.denseContactJacobian();
  const MatrixX admissible = fuzz::admissibleInverseMass(p);
  const VectorX movable = fuzz::movableRows(p, j, admissible);
  const VectorX speed = j * velocity + p.contactBiases();
  Scalar worst = 0;
  for (Index i = 0; i < j.rows(); ++i)
    if (movable[i] != 0) worst = std::max(worst, -speed[i] / std::sqrt(Scalar(j.row(i) * admissible * j.row(i).transpose())));
  return worst;
}

// Two bodies, one joint, 64 biased contacts merged to 5 rows, two of which
// oppose exactly. The cap (1,500 reflections) stopped with both of the pair
// pushed hard; from there only more non-negative impulse is allowed, and the
// pair's gap of −7.8e-3 per unit normal could not close: the plastic solve
// proved it infeasible and left 3.9e-3 (1.7e-6 of the scale), although the
// plastic solve from the start ends feasible. Now the cap's fallback takes
// the plastic outcome from the start whenever it is less violated. Since the
// exact solve's outcome is the LCP's primal and a capped state's change is
// kept admissible (PlasticStage.h), the solve from the capped state ends at
// 4.6e-7 itself, below the one from the start (5.5e-6), and stands.
TEST(FuzzFindings, CappedNearDependentPairFallsBackToThePlasticOutcomeFromTheStart) {
  fuzz::Case c = regression::loadFinding("capped-near-dependent-pair-left-violated-by-a-blocked-row");
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(c.problem, c.options);
  EXPECT_TRUE(r.capHit);
  EXPECT_EQ(r.fallback, Fallback::PlasticFromCapped);
  EXPECT_LT(r.plasticResidual, 1e-5);  // was 3.9e-3; the scale is 2.3e3
  EXPECT_LE(worstApproach(c.problem, r.velocity), 1.01 * r.plasticResidual);
  EXPECT_EQ(fuzz::check(c.problem, c.options, r), "");
  EXPECT_EQ(fuzz::resolveAndCheck(c), "");
}

// A 7-dof block, two joints, 40 biased contacts of which the joints lock 20
// (ignored, reported). A linear program over λ ≥ 0 (scipy's HiGHS, while
// diagnosing) finds the other 20 feasible, but only with impulses of 5e13
// along a direction whose unit-normal mobility is 1e-5, where the unit
// Delassus matrix's round-off is of the same size (its smallest eigenvalue
// computes as −4.5e-6 though it is PSD). The resolver's Farkas certificate is
// right to its precision: both plastic outcomes, from the capped state and
// from the start, end at the least uniform violation it can certify, 1,208 of
// a scale of 4,546; the report says so and the outcome is no worse than the
// start. The check used to flag 20 locked contacts that the capped impulses'
// round-off had moved: their raw speeds changed by 1.2e-3 under impulses of
// 1.7e13, within ε·|J|·|M⁻¹|·Σλ|J|, which it now allows.
TEST(FuzzFindings, NearlyLockedWedgeFeasibleOnlyAtRoundOffReportsItsResidual) {
  fuzz::Case c = regression::loadFinding("biased-joints-capped-wedge-plastic-solve-left-violated", fuzz::RoundOffWitness::Kept);
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(c.problem, c.options);
  EXPECT_TRUE(r.capHit);
  EXPECT_EQ(r.ignoredRows, 20);
  const Scalar before = worstApproach(c.problem, c.problem.velocity());
  const Scalar after = worstApproach(c.problem, r.velocity);
  EXPECT_GT(r.plasticResidual, 0);  // no outcome certified feasible, and the report says so
  EXPECT_LT(r.plasticResidual, before);
  EXPECT_LE(after, 1.01 * r.plasticResidual);
  EXPECT_EQ(fuzz::check(c.problem, c.options, r), "");
  EXPECT_EQ(fuzz::resolveAndCheck(c), "");
}

// Two dense blocks, one joint, 64 biased contacts; contact 9 is the joint's
// own row negated (to 1e-14), so the joint locks it (J M⁻¹_c Jᵀ ≈ 0). Impulses of 8.5e9
// on rows nearly locked by the joint (√d 1e4 below |J|·√|M⁻¹|) moved the
// joint, and contact 9 with it, by 0.133: 1.8e-9 of |B|·|Δv|, the round-off of
// those impulses in raw terms. The check measured round-off by Σλ√d, which
// such rows make tiny, and so took the contact for moved by the impact.
TEST(FuzzFindings, ContactMirroringAJointMovesOnlyByTheRoundOffOfItsImpulses) {
  fuzz::Case c = regression::loadFinding("contact-moved-although-the-check-metric-locks-it", fuzz::RoundOffWitness::Kept);
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(c.problem, c.options);
  const MatrixX j = c.problem.denseContactJacobian();
  const MatrixX joint = c.problem.denseBilateralJacobian();
  ASSERT_EQ(joint.rows(), 1);
  EXPECT_LE((j.row(9) + joint.row(0)).norm(), 1e-13 * joint.row(0).norm());  // the mirror
  const VectorX change = r.velocity - c.problem.velocity();
  EXPECT_LE(std::abs(joint.row(0).dot(change)), 1e-8 * joint.row(0).norm() * change.norm());
  EXPECT_LT(worstApproach(c.problem, r.velocity), worstApproach(c.problem, c.problem.velocity()));
  EXPECT_EQ(fuzz::check(c.problem, c.options, r), "");
  EXPECT_EQ(fuzz::resolveAndCheck(c), "");
}

// One 3-dof block, two nearly parallel joints (one admissible direction), 64
// biased contacts, 60 of them locked. The generator's witness came from the
// textbook joint projection, whose κ(BM⁻¹Bᵀ)·ε error along the locked
// directions the nearly locked rows saw as feasibility: no admissible motion
// clears them. A linear program over λ ≥ 0 (scipy's HiGHS, while diagnosing)
// gives a least uniform violation of 1.53393479e10, half the scale; the
// resolver's bisection ends there. The check now bounds the residual by how
// far the witness's admissible part is from feasible.
TEST(FuzzFindings, WitnessFeasibleOnlyThroughAJointLockedDirectionIsTheLeastViolation) {
  fuzz::Case c = regression::loadFinding("witness-feasible-only-through-a-joint-locked-direction", fuzz::RoundOffWitness::Kept);
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(c.problem, c.options);
  EXPECT_EQ(c.problem.bilateralCount(), 2);
  EXPECT_NEAR(r.plasticResidual, 1.53393479e10, 1e-6 * 1.53393479e10);
  EXPECT_LE(worstApproach(c.problem, r.velocity), 1.01 * r.plasticResidual);
  EXPECT_NE(fuzz::check(c.problem, c.options, r), "");  // trusting the witness, as the check did
  EXPECT_EQ(fuzz::check(c.problem, c.options, r, {}, c.witness), "");
  EXPECT_EQ(fuzz::resolveAndCheck(c), "");
}

// Two rigid bodies with locked axes, one joint, 64 biased contacts from rest
// merged to 5 rows, one ignored. The cap stopped at 1,500 reflections with
// impulses of 3.8e10, and the exact plastic solve, from the capped state and
// from the start alike, ended with its own LCP residual at 2e-9 but a row
// violated by 0.277 (scale 2,357): that row's d is 5.5e-9 of its reference,
// and the LCP's model A = J L and the impulses applied through M⁻¹_c Jᵀ agree
// only to round-off that such a row sees magnified. Iterative refinement
// (PlasticStage::refineExact) solves again from the outcome's true row
// velocities; the violation falls about 6x per pass, to 4.9e-6.
TEST(FuzzFindings, CappedRigidJointBiasPlasticResidualIsRefinedAway) {
  fuzz::Case c = regression::loadFinding("capped-rigid-joint-bias-plastic-residual-1.2e-4-of-scale");
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(c.problem, c.options);
  EXPECT_TRUE(r.capHit);
  EXPECT_EQ(r.plasticMethod, PlasticMethod::ActiveSet);
  EXPECT_LT(r.plasticResidual, 1e-5);  // was 0.277
  EXPECT_LE(worstApproach(c.problem, r.velocity), 1.01 * r.plasticResidual);
  EXPECT_EQ(fuzz::check(c.problem, c.options, r, {}, c.witness), "");
  EXPECT_EQ(fuzz::resolveAndCheck(c), "");
}

}  // namespace
}  // namespace propimpact
