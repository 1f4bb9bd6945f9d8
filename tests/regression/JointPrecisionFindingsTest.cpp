// Fuzzer findings of one long run (scripts/fuzz with -fork, 300 s) after the
// QR joint metric: what the fuzz check got wrong about joints, each with the
// fact that made it wrong. Inputs in tests/regression/findings/.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "FindingFile.h"
#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

ImpactResult resolveFinding(fuzz::Case& c) {
  ImpactResolver resolver;
  return resolver.resolve(c.problem, c.options);
}

// A rigid body spinning about an infinite-inertia axis (velocity M⁻¹ cannot
// change) with a joint that sees that spin: B·v0 = 0 overall, but 68.9 of it is
// along the immobile axis, so the movable part violates the joint and is
// dragged along, a prescribed motion. One reflection then changes the energy
// by 8.5e-5 of itself, as a paddle would; the check only looked at contacts
// and at B·v0 for prescribed motion.
TEST(FuzzFindings, JointDrivenBySpinAboutAnInfiniteInertiaAxisIsPrescribedMotion) {
  fuzz::Case c = regression::loadFinding("joint-driven-by-spin-about-an-infinite-inertia-axis");
  const ImpactResult r = resolveFinding(c);
  EXPECT_EQ(fuzz::check(c.problem, c.options, r), "");
  const VectorX v0 = c.problem.velocity();
  const VectorX prescribed = v0 - c.problem.denseInverseMass() * (c.problem.denseMass() * v0);
  const MatrixX bj = c.problem.denseBilateralJacobian();
  EXPECT_LE(std::abs(bj.row(0).dot(v0)), 1e-12 * bj.row(0).norm() * v0.norm());  // no joint error overall
  EXPECT_GT(std::abs(bj.row(0).dot(prescribed)), 1.0);                             // but driven by the spin
  EXPECT_EQ(r.reflections, 1);
}

// A joint between a dense block of mass 1e17 and one of about 300 (each well
// conditioned): the group's metric mixes masses 1e15 apart, and one reflection
// gained 4.5e-9 of the energy, round-off at κ(M_group)·ε. The check allows
// ε·κ(M_group) per reflection for joined groups.
TEST(FuzzFindings, JointBetweenMasses1e15ApartKeepsEnergyToItsConditioning) {
  fuzz::Case c = regression::loadFinding("joint-between-masses-1e15-apart");
  const ImpactResult r = resolveFinding(c);
  EXPECT_EQ(fuzz::check(c.problem, c.options, r), "");
  const double conditioning = fuzz::jointGroupConditioning(c.problem);
  EXPECT_GT(conditioning, 1e14);
  const double gain = (r.energyAfter - r.energyBefore) / r.energyBefore;
  EXPECT_LE(gain, std::numeric_limits<double>::epsilon() * conditioning * double(1 + r.reflections));
  EXPECT_LE(std::abs(gain), 1e-7);  // what it measured: 4.5e-9
}

// A contact row whose J M⁻¹ Jᵀ is 1.9e-12, 1e-14 of its reference (so the
// resolver ignores it), ends at -3.6e-7 per unit normal after a capped wedge
// whose impulses total 87 (a scale of 13.8): in raw terms -5e-13, round-off of
// the other rows' impulses, which the row's tiny √(J M⁻¹ Jᵀ) magnifies. The
// check allows ε·Σλ√d·√(reference/d) on any row.
TEST(FuzzFindings, NearlyImmobileRowAmplifiesRoundOff) {
  fuzz::Case c = regression::loadFinding("nearly-immobile-row-amplifies-round-off");
  const ImpactResult r = resolveFinding(c);
  EXPECT_EQ(fuzz::check(c.problem, c.options, r), "");
  const MatrixX j = c.problem.denseContactJacobian();
  const VectorX references = fuzz::rowReferences(c.problem, j);
  const double d = j.row(0) * fuzz::admissibleInverseMass(c.problem) * j.row(0).transpose();
  EXPECT_GT(d, 0.0);
  EXPECT_LE(d, 1e-13 * references[0]);  // nearly immobile: ignored
  EXPECT_GE(r.ignoredRows, 1);
  const double raw = j.row(0).dot(r.velocity) + c.problem.contactBiases()[0];
  EXPECT_LE(std::abs(raw), 1e-11);  // round-off in raw terms
}

// A 3-dof block at rest with two joints within the rank cut-off of each other
// (1e-6 of A = LᵀBᵀ's largest singular value: treated as one) and kinematic
// biases that need a large velocity along a direction the contacts barely
// see: impulses of 2.6e6 from rest. The dropped joint row is enforced only to
// the dropped singular value, and moved by 0.0097; the check allows
// σ_dropped·||Δv||_M.
TEST(FuzzFindings, NearlyDependentJointRowsAreEnforcedToTheDroppedPart) {
  fuzz::Case c = regression::loadFinding("nearly-dependent-joint-rows-under-huge-impulses");
  ASSERT_EQ(c.problem.bilateralCount(), 2);
  const ImpactResult r = resolveFinding(c);
  EXPECT_EQ(fuzz::check(c.problem, c.options, r), "");
  EXPECT_GT(fuzz::droppedJointSingularValue(c.problem), 0.0);
  const MatrixX bj = c.problem.denseBilateralJacobian();
  const VectorX change = bj * (r.velocity - c.problem.velocity());
  const double size = std::sqrt(2 * c.problem.kineticEnergy(r.velocity - c.problem.velocity()));
  for (Index k = 0; k < bj.rows(); ++k) {
    const double dk = bj.row(k) * c.problem.denseInverseMass() * bj.row(k).transpose();
    EXPECT_LE(std::abs(change[k]), 1.01 * fuzz::droppedJointSingularValue(c.problem) * size + 1e-8 * std::sqrt(dk))
        << "joint " << k;
  }
}

// Two dense blocks, one joint, 64 biased contacts; contact 27 is the joint's
// row negated up to 1e-5 of its coefficients, so its admissible mobility is
// J M⁻¹_c Jᵀ = 1e-15 of its reference: below the cut-off, ignored, no impulse.
// The others' impulses still move it, by 2.5e-3 where the check allowed only
// round-off (1.2e-3); the exact bound is √d·||Δv||_M (Cauchy–Schwarz in the
// admissible metric), 2.8e-3 here.
TEST(FuzzFindings, NearlyLockedRowMovesOnlyByItsRemainingMobility) {
  fuzz::Case c = regression::loadFinding("nearly-locked-row-moved-by-its-remaining-mobility", fuzz::RoundOffWitness::Kept);
  const ImpactResult r = resolveFinding(c);
  const MatrixX j = c.problem.denseContactJacobian();
  const MatrixX admissible = fuzz::admissibleInverseMass(c.problem);
  const Scalar d = j.row(27) * admissible * j.row(27).transpose();
  const VectorX change = r.velocity - c.problem.velocity();
  const Scalar moved = std::abs(j.row(27).dot(change));
  EXPECT_EQ(r.impulses[27], 0);
  EXPECT_GT(moved, 1e-3);  // more than round-off
  EXPECT_LE(moved, std::sqrt(d) * std::sqrt(2 * c.problem.kineticEnergy(change)));
  EXPECT_EQ(fuzz::check(c.problem, c.options, r, {}, c.witness), "");
  EXPECT_EQ(fuzz::resolveAndCheck(c), "");
}

}  // namespace
}  // namespace propimpact
