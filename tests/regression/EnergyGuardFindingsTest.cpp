// The energy guard (plugin/src/core/EnergyGuard.h): elastic outcomes through
// dense blocks of extreme conditioning gained energy by ε·κ(M) per reflection;
// measured in long double against the given M, they are moved along the
// blend's line until they do not.
#include <gtest/gtest.h>

#include <string>

#include "FindingFile.h"
#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

// The guard acted, the outcome has no more than the start's energy (long
// double, against the given M), stays a blend (α in [0, 1], below the elastic
// 1), and passes every invariant of the fuzz check.
void expectGuardedOutcome(const std::string& finding) {
  fuzz::Case c = regression::loadFinding(finding);
  const ImpactProblem& p = c.problem;
  const ImpactResult r = ImpactResolver().resolve(p, c.options);
  EXPECT_TRUE(r.energyGuarded) << finding;
  EXPECT_LT(r.alpha, 1) << finding;
  EXPECT_GE(r.alpha, 0) << finding;
  EXPECT_LE(fuzz::energyChange(p, p.velocity(), r.velocity), 0) << finding;
  EXPECT_EQ(fuzz::check(p, c.options, r, {}, c.witness), "") << finding;
  EXPECT_EQ(fuzz::resolveAndCheck(c), "") << finding;
}

// Unseeded run at a02ccf8: a 7-dof dense block whose mass has a 5 × 5
// sub-block of equal entries 7.5e11 (κ ≈ 7e13), a rigid body and two 1-dof
// blocks, one elastic contact: its single reflection gained 9.9e-7 of an
// energy of 2e13 (the computed M⁻¹Jᵀ is off by ε·κ along the stiff mode).
TEST(FuzzFindings, Elastic7DofBlockOfKappa7e13OneReflectionEnergyGain) {
  expectGuardedOutcome("elastic-7dof-block-of-kappa-7e13-one-reflection-energy-gain-9.9e-7");
}

// Seed 11 once the first finding was in the corpus: the same block, and the
// guard's first version, which aimed at the start's energy exactly, left
// 1.7e-9 of it gained: storing the blend in Scalar moves the energy by up to
// ε·Σ|vᵢ|·|(M v)ᵢ|. The guard now aims that far below the start.
TEST(FuzzFindings, Elastic7DofBlockOfKappa7e13EnergyGainAfterTheGuardSeed11) {
  expectGuardedOutcome("elastic-7dof-block-of-kappa-7e13-energy-gain-1.7e-9-after-the-guard-seed-11");
}

// Unseeded run (2026-11-24): one 8-dof block, κ(M) = 7.45e9, 59 elastic
// contacts (54 merged as exact duplicates), 53 reflections: 1.16e-9 gained,
// the same with duplicateTolerance 0, so round-off of the reflections in an
// ill-conditioned metric, not the merge.
TEST(FuzzFindings, Elastic8DofMergedDuplicatesEnergyGain) {
  expectGuardedOutcome("elastic-8dof-merged-duplicates-energy-gain-1.16e-9");
}

// A well-conditioned elastic cradle of dense blocks keeps its energy on its
// own: the guard must leave it exactly as propagated (α = 1).
TEST(EnergyGuard, LeavesAWellConditionedElasticImpactAlone) {
  ImpactProblem p;
  const int balls = 5;
  for (int k = 0; k < balls; ++k) {
    const MatrixX mass = MatrixX::Identity(1, 1) * (1.0 + 0.25 * k);
    const VectorX v = VectorX::Constant(1, k == 0 ? 2.0 : 0.0);
    p.addDenseBlock(mass, v);
  }
  for (int k = 0; k + 1 < balls; ++k) p.addContactRow(k, VectorX::Constant(1, -1.0), k + 1, VectorX::Constant(1, 1.0), 1.0);
  const ImpactResult r = ImpactResolver().resolve(p, ResolveOptions{});
  EXPECT_FALSE(r.energyGuarded);
  EXPECT_EQ(r.alpha, 1);
  EXPECT_GT(r.reflections, balls - 2);
  EXPECT_NEAR(r.energyAfter, r.energyBefore, 1e-12 * r.energyBefore);
}

}  // namespace
}  // namespace propimpact
