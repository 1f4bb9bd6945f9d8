// Seed 000, Example 1 and SPEC §8: the equal-mass three-ball cradle.
#include <gtest/gtest.h>

#include "propimpact/core/ImpactResolver.h"
#include "propimpact/core/ReflectionMap.h"
#include "propimpact/core/Resolve.h"

namespace propimpact {
namespace {

constexpr Scalar kExact = 1e-12;

MatrixX cradleRows() {
  MatrixX j(2, 3);
  j << -1, 1, 0, 0, -1, 1;  // u: gap B−A, v: gap C−B
  return j;
}

TEST(NewtonsCradle, ReflectionMatricesMatchExampleOne) {
  const MatrixX minv = MatrixX::Identity(3, 3);
  MatrixX expectedU(3, 3), expectedV(3, 3);
  expectedU << 0, 1, 0, 1, 0, 0, 0, 0, 1;
  expectedV << 1, 0, 0, 0, 0, 1, 0, 1, 0;
  EXPECT_LE((reflectionMap(minv, cradleRows().row(0).transpose()) - expectedU).cwiseAbs().maxCoeff(), kExact);
  EXPECT_LE((reflectionMap(minv, cradleRows().row(1).transpose()) - expectedV).cwiseAbs().maxCoeff(), kExact);
}

// The paper's minimal sequence from (V, 0, 0) is u, v, u; its last reflection
// acts as the identity there (J_u v = 0 after u, v), and the resolver records
// only reflections across contacts that are still approaching. The product of
// all three maps must equal the outcome.
TEST(NewtonsCradle, ElasticOutcomeIsUVUSequence) {
  VectorX v(3);
  v << 2, 0, 0;
  const ImpactResult r = resolveDense(MatrixX::Identity(3, 3), v, cradleRows(), 1.0);
  ASSERT_EQ(r.sequence, (std::vector<int>{0, 1}));
  const MatrixX minv = MatrixX::Identity(3, 3);
  const MatrixX gammaU = reflectionMap(minv, cradleRows().row(0).transpose());
  const MatrixX gammaV = reflectionMap(minv, cradleRows().row(1).transpose());
  const VectorX product = (v.transpose() * gammaU * gammaV * gammaU).transpose();
  EXPECT_LE((product - r.velocity).cwiseAbs().maxCoeff(), kExact);
  EXPECT_NEAR(r.velocity[0], 0, kExact);
  EXPECT_NEAR(r.velocity[1], 0, kExact);
  EXPECT_NEAR(r.velocity[2], 2, kExact);
  EXPECT_NEAR(r.energyAfter, r.energyBefore, kExact);
  EXPECT_EQ(r.certificate, UniquenessCertificate::ThirdOfPi);
  EXPECT_FALSE(r.capHit);
}

TEST(NewtonsCradle, PlasticOutcomeIsCommonVelocity) {
  VectorX v(3);
  v << 3, 0, 0;
  const ImpactResult r = resolveDense(MatrixX::Identity(3, 3), v, cradleRows(), 0.0);
  EXPECT_NEAR(r.velocity[0], 1, kExact);
  EXPECT_NEAR(r.velocity[1], 1, kExact);
  EXPECT_NEAR(r.velocity[2], 1, kExact);
}

TEST(NewtonsCradle, PartialRestitutionBlendsToTenthsOfV) {
  VectorX v(3);
  v << 1, 0, 0;
  const ImpactResult r = resolveDense(MatrixX::Identity(3, 3), v, cradleRows(), 0.7);
  EXPECT_NEAR(r.velocity[0], 0.1, kExact);
  EXPECT_NEAR(r.velocity[1], 0.1, kExact);
  EXPECT_NEAR(r.velocity[2], 0.8, kExact);
  EXPECT_NEAR(r.alpha, 0.7, kExact);
}

TEST(NewtonsCradle, BothOrdersAgreeFromDoublyInfeasibleMomentum) {
  VectorX v(3);
  v << 1, 0, -1;
  for (const OrderingPolicy order : {OrderingPolicy::MostApproaching, OrderingPolicy::LeastApproaching,
                                     OrderingPolicy::IndexOrder, OrderingPolicy::ReverseIndexOrder}) {
    ResolveOptions options;
    options.ordering = order;
    options.computeXi = true;
    const ImpactResult r = resolveDense(MatrixX::Identity(3, 3), v, cradleRows(), 1.0, options);
    EXPECT_NEAR(r.velocity[0], -1, kExact) << toString(order);
    EXPECT_NEAR(r.velocity[1], 0, kExact) << toString(order);
    EXPECT_NEAR(r.velocity[2], 1, kExact) << toString(order);
    EXPECT_NEAR(r.xi, 0, kExact);
    EXPECT_EQ(r.sequence.size(), 3u) << toString(order);
    EXPECT_NE(r.sequence[0], r.sequence[1]);
    EXPECT_EQ(r.sequence[0], r.sequence[2]);
  }
}

}  // namespace
}  // namespace propimpact
