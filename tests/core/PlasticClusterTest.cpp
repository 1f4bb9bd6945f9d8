// A cluster whose every contact has R = 0 needs no elastic propagation
// (ResolveOptions::growFromSeeds): it grows on the plastic outcome instead.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "propimpact/core/ImpactResolver.h"
#include "propimpact/core/Resolve.h"

namespace propimpact {
namespace {

constexpr Scalar kTolerance = 1e-12;

// A striker hits a line of resting unit balls, R = 0, plus a slowly
// approaching pair elsewhere that nothing reaches. Every ball of the line
// ends at the common velocity (momentum conserved, all stuck), no reflection
// runs, and the far pair is left to the resting solver.
TEST(PlasticCluster, ChainOfPlasticContactsSticksWithoutReflections) {
  const MatrixX one = MatrixX::Identity(1, 1);
  constexpr int kLine = 6;  // striker + 5 balls
  ImpactProblem problem;
  for (int k = 0; k < kLine + 2; ++k) {
    VectorX v(1);
    v << (k == 0 ? 1.0 : (k == kLine + 1 ? -0.2 : 0.0));
    problem.addDenseBlock(one, v);
  }
  for (int k = 0; k + 1 < kLine; ++k) problem.addContactRow(k + 1, one.col(0), k, -one.col(0), 0.0);
  const int far = problem.addContactRow(kLine + 1, one.col(0), kLine, -one.col(0), 0.0);
  for (int i = 0; i < problem.contactCount(); ++i) problem.setSeed(i, i == 0);
  ResolveOptions options;
  options.growFromSeeds = true;
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(problem, options);
  EXPECT_EQ(r.reflections, 0);
  EXPECT_EQ(r.restitution, 0);
  for (int k = 0; k < kLine; ++k) EXPECT_NEAR(r.velocity[k], 1.0 / kLine, kTolerance) << "ball " << k;
  for (int i = 0; i + 1 < kLine; ++i) {
    EXPECT_EQ(r.inCluster[static_cast<std::size_t>(i)], 1);
    EXPECT_GE(r.impulses[i], 0);
  }
  EXPECT_EQ(r.inCluster[static_cast<std::size_t>(far)], 0);
  EXPECT_EQ(r.velocity[kLine + 1], -0.2);
  EXPECT_LE(r.energyAfter, r.energyBefore);
}

// On random trees of contacts with R = 0, the grown plastic cluster ends
// feasible on every contact it holds, never gains energy, and is the exact
// plastic outcome over those contacts (the same problem solved with every
// contact in and the rest removed).
TEST(PlasticCluster, GrownClusterIsThePlasticOutcomeOfItsContacts) {
  std::mt19937_64 random(2026);
  std::uniform_real_distribution<Scalar> speed(-1, 1);
  for (int trial = 0; trial < 200; ++trial) {
    const int bodies = 3 + static_cast<int>(random() % 10);
    ImpactProblem problem;
    std::vector<VectorX> velocities;
    for (int b = 0; b < bodies; ++b) {
      VectorX v(2);
      v << speed(random), speed(random);
      velocities.push_back(v);
      problem.addDenseBlock(MatrixX::Identity(2, 2) * (1 + random() % 5), v);
    }
    for (int b = 1; b < bodies; ++b) {
      VectorX n(2);
      n << speed(random), speed(random);
      if (n.norm() < 0.1) n << 1, 0;
      problem.addContactRow(b, n, static_cast<int>(random() % static_cast<unsigned>(b)), -n, 0.0);
    }
    for (int i = 0; i < problem.contactCount(); ++i) problem.setSeed(i, i % 3 == 0);
    ResolveOptions options;
    options.growFromSeeds = true;
    ImpactResolver resolver;
    const ImpactResult r = resolver.resolve(problem, options);
    ASSERT_EQ(r.reflections, 0);
    EXPECT_LE(r.energyAfter, r.energyBefore * (1 + 1e-12)) << "trial " << trial;
    const MatrixX j = problem.denseContactJacobian();
    const VectorX after = j * r.velocity;
    ImpactProblem inner;
    for (int b = 0; b < bodies; ++b) inner.addDenseBlock(problem.denseMass().block(2 * b, 2 * b, 2, 2), velocities[static_cast<std::size_t>(b)]);
    for (int i = 0; i < problem.contactCount(); ++i) {
      if (!r.inCluster[static_cast<std::size_t>(i)]) continue;
      EXPECT_GE(after[i], -1e-9) << "trial " << trial << " contact " << i;
      const RowLayout& row = problem.contact(i);
      inner.addContactRow(row.terms[0].block, j.row(i).segment(2 * row.terms[0].block, 2).transpose(), row.terms[1].block,
                          j.row(i).segment(2 * row.terms[1].block, 2).transpose(), 0.0);
    }
    const ImpactResult reference = resolver.resolve(inner, ResolveOptions{});
    EXPECT_LE((reference.velocity - r.velocity).cwiseAbs().maxCoeff(), 1e-9) << "trial " << trial;
  }
}

}  // namespace
}  // namespace propimpact
