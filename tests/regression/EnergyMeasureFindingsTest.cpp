// How the fuzz check measures: energy against the mass matrix the problem was
// given, not the one ImpactProblem inverted (tests/fuzz/EnergyChange.cpp), and
// the momentum residual with the round-off of applying impulses in Scalar.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "FindingFile.h"
#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

// Found by CI's seeded run (scripts/fuzz --seed 10 --runs 4000) at c41f06b:
// six rigid bodies, one with inertia eigenvalues 1000 and 0.001 (κ = 1e6),
// 84 elastic reflections, and ½vᵀMv with ImpactProblem's inverted M rose by
// 3.3e-9 of 1.8e9. The reflections keep the energy: replayed in long double
// against an M inverted in long double, the sequence changes it by 3e-17 and
// the resolver's outcome by 1e-15. Under gcc the bytes used to build another
// problem (constructor arguments read in the opposite order); they now build
// the fuzzer's.
TEST(FuzzFindings, EnergyMeasuredWithAnInvertedInertiaOfKappa1e6) {
  const std::string finding = "energy-measured-with-an-inverted-inertia-of-kappa-1e6";
  fuzz::Case c = regression::loadFinding(finding);
  const ImpactProblem& p = c.problem;
  ASSERT_EQ(p.blockCount(), 6);
  ASSERT_EQ(p.contactCount(), 28);
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(p, c.options);
  EXPECT_FALSE(r.capHit);
  EXPECT_GT(r.reflections, 40);
  const Scalar energy = p.kineticEnergy(p.velocity());
  EXPECT_LE(std::abs(fuzz::energyChange(p, p.velocity(), r.velocity)), 1e-13 * energy);
  EXPECT_EQ(fuzz::check(p, c.options, r), "") << finding;
  EXPECT_EQ(fuzz::resolveAndCheck(c), "") << finding;
}

// Found by scripts/fuzz --seed 10 at 6bc265e plus a check change: one dense
// block of three dofs with M ≈ 1e12 and κ ≈ 7e13, four rows two of which
// oppose each other, 96 reflections up to the cap, then the active-set
// plastic solve with impulses of 1.2e6 against an outcome of size 18.6.
// ||Δv − M⁻¹Jᵀλ||_M came to 2e-6, 1.1e-7 of the size: round-off of applying
// those impulses in Scalar (ε·|M⁻¹|·Σλ|J| per component, weighed by √|M|),
// which the check now allows; the impact still gains no energy.
TEST(FuzzFindings, ImpulsesUnexplainedThroughADenseBlockOf1e12) {
  const std::string finding = "impulses-unexplained-through-a-dense-block-of-1e12";
  fuzz::Case c = regression::loadFinding(finding);
  const ImpactProblem& p = c.problem;
  ASSERT_EQ(p.blockCount(), 1);
  ASSERT_EQ(p.dofCount(), 3);
  ASSERT_EQ(p.contactCount(), 4);
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(p, c.options);
  EXPECT_TRUE(r.capHit);
  EXPECT_EQ(r.plasticMethod, PlasticMethod::ActiveSet);
  EXPECT_GT(r.impulses.maxCoeff(), 1e5);
  const Scalar energy = p.kineticEnergy(p.velocity());
  EXPECT_LE(fuzz::energyChange(p, p.velocity(), r.velocity), 1e-9 * energy);
  EXPECT_EQ(fuzz::check(p, c.options, r), "") << finding;
  EXPECT_EQ(fuzz::resolveAndCheck(c), "") << finding;
}

// Unseeded run (2026-11-24): 7 dofs, 2 joints, 23 rows the joints lock.
// Contact 2 is one of them, and the impact moved it by −1.03e-9: its
// remaining mobility is real, d₂ = ‖J₂F‖² = 1.67e-16 (F the admissible
// factor), and √d₂·‖Δv‖_M = 1.58e-9 bounds the move. The check computed
// d₂ as J₂(F Fᵀ)J₂ᵀ, which cancels to ε·reference = 5e-15 and came out ≤ 0,
// so it allowed nothing; it now takes ‖J₂F‖ as a sum of squares.
TEST(FuzzFindings, SevenDof2JointsBiasRowOfZeroCheckMetricMovedAndLeftApproaching) {
  const std::string finding = "7dof-2-joints-bias-row-of-zero-check-metric-moved-and-left-approaching";
  fuzz::Case c = regression::loadFinding(finding, fuzz::RoundOffWitness::Kept);
  ASSERT_EQ(c.problem.dofCount(), 7);
  ASSERT_EQ(c.problem.bilateralCount(), 2);
  const ImpactResult r = ImpactResolver().resolve(c.problem, c.options);
  EXPECT_GE(r.ignoredRows, 20);
  EXPECT_EQ(fuzz::check(c.problem, c.options, r, {}, c.witness), "") << finding;
  EXPECT_EQ(fuzz::resolveAndCheck(c), "") << finding;
}

// Unseeded run (2026-11-24, third session, libFuzzer seed 2520767622): two
// rigid bodies and a joint whose velocity (up to 14,773) lies entirely along
// axes M gives no energy, so the start energy is exactly 0. The check sums
// the reflected row to exactly 0 (its bodies are at rest); the resolver's
// joint projection of the whole velocity leaves it at round-off, about
// −1e-26, below a threshold of 0, and its plastic solve added 1.8e-52 J; with
// this input in the corpus, seeds 10–12 found mutations reflecting such a
// row twice in a row (against Lemma 1). The resolver now counts an approach
// within ε·|J_i|·|v0| as resting, and the check allows an impulse on one
// that small to add up to 2a²/d.
TEST(FuzzFindings, ApproachOfRoundOffFromZeroEnergyMotion) {
  const std::string finding = "approach-of-round-off-from-zero-energy-motion";
  fuzz::Case c = regression::loadFinding(finding);
  const ImpactProblem& p = c.problem;
  ASSERT_EQ(p.bilateralCount(), 1);
  ASSERT_EQ(p.kineticEnergy(p.velocity()), 0);
  ASSERT_GT(p.velocity().cwiseAbs().maxCoeff(), 1e4);
  const ImpactResult r = ImpactResolver().resolve(p, c.options);
  EXPECT_EQ(r.reflections, 0);  // every contact is plastic: the cluster is solved plastically
  EXPECT_LT(fuzz::energyChange(p, p.velocity(), r.velocity), 1e-40);
  EXPECT_EQ(fuzz::check(p, c.options, r, {}, c.witness), "") << finding;
  EXPECT_EQ(fuzz::resolveAndCheck(c), "") << finding;
}

// Its mutation, found by scripts/fuzz --seed 12 once the input above was in
// the corpus: the same zero-energy motion, an active-set plastic solve left a
// residual of 5.2e-32, and the check's scale (the start energy and start
// speeds it computes) was exactly 0. The check's scale now includes the
// round-off of each row's start speed, ε·|J_i|·|v0|/√d_i.
TEST(FuzzFindings, PlasticResidualOfRoundOffFromZeroEnergyMotionSeed12) {
  const std::string finding = "plastic-residual-of-round-off-from-zero-energy-motion-seed-12";
  fuzz::Case c = regression::loadFinding(finding);
  const ImpactProblem& p = c.problem;
  ASSERT_EQ(p.kineticEnergy(p.velocity()), 0);
  const ImpactResult r = ImpactResolver().resolve(p, c.options);
  EXPECT_EQ(r.plasticMethod, PlasticMethod::ActiveSet);
  EXPECT_GT(r.plasticResidual, 0);
  EXPECT_LT(r.plasticResidual, 1e-25);
  EXPECT_EQ(fuzz::check(p, c.options, r, {}, c.witness), "") << finding;
  EXPECT_EQ(fuzz::resolveAndCheck(c), "") << finding;
}

// Two unseeded runs from a fresh clone at ccbdba5: 12 dofs with one joint
// (after about 2,300 inputs) and three dense blocks of 20 dofs (about
// 46,500). A row's start approach lies within the round-off the resolver now
// counts as resting (1e-13·|J_i|·|v0|), so it stays untouched; the check,
// which did not know that rule, counted it infeasible and not reported
// ignored. With the floor off both are solved and the old check passes; the
// check now accepts what the floor leaves.
TEST(FuzzFindings, UntouchedRowsApproachingAtTheirRoundOff) {
  for (const std::string finding : {"untouched-row-approaching-at-its-round-off-unseeded",
                                    "untouched-rows-approaching-at-their-round-off-dense-unseeded"}) {
    fuzz::Case c = regression::loadFinding(finding);
    const ImpactProblem& p = c.problem;
    const ImpactResult r = ImpactResolver().resolve(p, c.options);
    const MatrixX j = p.denseContactJacobian();
    const VectorX after = j * r.velocity + p.contactBiases();
    bool withinRoundOff = false;  // some reached row ends approaching, but only within the floor
    for (int i = 0; i < p.contactCount(); ++i)
      if (r.inCluster[static_cast<std::size_t>(i)] && after[i] < 0 &&
          after[i] >= -1e-13 * j.row(i).norm() * p.velocity().norm())
        withinRoundOff = true;
    EXPECT_TRUE(withinRoundOff) << finding;
    EXPECT_EQ(fuzz::check(p, c.options, r, {}, c.witness), "") << finding;
    EXPECT_EQ(fuzz::resolveAndCheck(c), "") << finding;
  }
}

}  // namespace
}  // namespace propimpact
