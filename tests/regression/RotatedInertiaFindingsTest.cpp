// Fuzzer finding "rotated-infinite-inertia-axis-made-a-negative-mass": a free
// body whose world inverse inertia has a zero principal value (an
// infinite-inertia axis), rotated so that round-off leaves about 1e-17 there.
// ImpactProblem::addRigidBody's Cholesky fast path accepted it and took the
// explicit inverse as the mass: entries of 1e16 and a negative eigenvalue, so
// the body's kinetic energy was noise and the reported impulses explained the
// velocity change only to 0.14 %. Input in tests/regression/findings/.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "FindingFile.h"
#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

TEST(FuzzFindings, RotatedInfiniteInertiaAxisMadeANegativeMass) {
  fuzz::Case c = regression::loadFinding("rotated-infinite-inertia-axis-made-a-negative-mass");
  EXPECT_EQ(fuzz::resolveAndCheck(c), "");
}

// The property behind it, over many rotations and spreads: the mass block of a
// free rigid body is symmetric positive semi-definite and bounded by the
// conditioning the problem accepts, whether its inverse inertia is singular,
// nearly singular or well conditioned.
TEST(RigidBodyMass, RotatedSingularOrIllConditionedInverseInertiaGivesAPsdMass) {
  std::mt19937_64 random(20261122);
  std::uniform_real_distribution<double> unit(-1, 1);
  int fastPath = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Eigen::Quaterniond q = Eigen::Quaterniond(unit(random), unit(random), unit(random), unit(random)).normalized();
    const Matrix3 rotation = q.toRotationMatrix();
    const double smallest = trial % 4 == 0 ? 0.0 : std::pow(10.0, -20 + 20 * (unit(random) + 1) / 2);
    const Vector3 principal(1.0, 0.5 + 0.5 * unit(random), smallest);
    RigidBodyInput body;
    body.inverseInertiaWorld = rotation * principal.asDiagonal() * rotation.transpose();
    body.inverseInertiaWorld = 0.5 * (body.inverseInertiaWorld + body.inverseInertiaWorld.transpose()).eval();
    ImpactProblem problem;
    const int id = problem.addRigidBody(body);
    const Matrix6 mass = problem.rigidInertia(id).mass();
    const Eigen::SelfAdjointEigenSolver<Matrix6> eig(mass);
    const double largest = eig.eigenvalues().cwiseAbs().maxCoeff();
    EXPECT_TRUE(mass.allFinite()) << "trial " << trial;
    EXPECT_GE(eig.eigenvalues().minCoeff(), -1e-9 * largest) << "trial " << trial << ", smallest principal " << smallest;
    EXPECT_LE(largest, 1e13) << "trial " << trial << ", smallest principal " << smallest;
    if (smallest > 1e-6) ++fastPath;
  }
  EXPECT_GT(fastPath, 100);  // the well-conditioned ones are covered too
}

// Unseeded fuzz run (2026-11-24): four rigid bodies, 62 contacts; one body's
// angular factor locks an axis, and the projection that locks it left
// round-off of the inverse inertia's scale along the others (0, 5.7e-14 and
// −1.4e-14 on the diagonal: indefinite). Rows of that body just above the
// resolver's cut-off took impulses of about 1e4 through it, and a row the
// check counts immobile moved from −1.4e-9 to −4.1e-9. Round-off principal
// values of the locked metric are now zeros (ImpactProblem::addRigidBody).
TEST(FuzzFindings, RigidRowOfZeroCheckMetricMovedThroughARoundOffInverseInertia) {
  fuzz::Case c = regression::loadFinding("rigid-24dof-62-contacts-row-of-zero-check-metric-moved-unseeded");
  const ImpactProblem& p = c.problem;
  ASSERT_EQ(p.blockCount(), 4);
  ASSERT_EQ(p.contactCount(), 62);
  for (int b = 0; b < p.blockCount(); ++b) {
    const Matrix6 inverse = p.rigidInertia(b).inverse();
    for (int k = 0; k < 6; ++k) EXPECT_GE(inverse(k, k), 0) << "block " << b << ", axis " << k;
  }
  EXPECT_EQ(fuzz::resolveAndCheck(c), "");
}

}  // namespace
}  // namespace propimpact
