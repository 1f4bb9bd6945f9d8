// A rigid body's inertia is the inverse of the inverse inertia an engine
// holds. Inverted by Cramer's rule, a rotated inverse inertia of condition
// κ loses about κ²ε of its inverse's smallest principal value: at κ = 4.4e8
// (world fuzz finding world-hull-of-inertia-ratio-4e8-...) that principal
// value, the easy axis's inertia, came out negative and a spin's kinetic
// energy −4.1 J where it is 5.16 J. Over random orientations and ratios up
// to 1e10 the problem's kinetic energy of a spin about each principal axis
// must be ½ ω² / a_k to what a rotated 3 × 3 can hold: stored in the world
// frame, the inverse inertia's small principal values and the inertia's
// are rounded by about κε relative (1e-9 + 100 κε allowed; Cramer's κ²ε is
// 2e-4 at κ = 1e6 and no digit at all at 4.4e8).
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "TestSupport.h"
#include "propimpact/core/ImpactProblem.h"

namespace propimpact {
namespace {

constexpr std::uint64_t kSeed = 0x1e8a11ULL;
constexpr int kOrientations = 400;
constexpr Scalar kEnergyAgreement = 1e-9;

TEST(IllConditionedInertia, SpinEnergiesAboutEveryPrincipalAxisMatchTheInverseInertia) {
  std::mt19937_64 rng(kSeed);
  int bodies = 0;
  for (const Scalar ratio : {1.0, 1e3, 1e6, 4.4e8, 1e10}) {
    for (int k = 0; k < kOrientations; ++k) {
      const Matrix3 rotation = test::randomRotation(rng);
      // The finding's hull: 633.5 about its easy axis, two stiff axes 1.27 apart.
      const Vector3 principal(633.5, 633.5 / ratio, 633.5 / ratio / 1.27);
      RigidBodyInput body;
      body.inverseMass = 1 / 1.81;
      body.inverseInertiaWorld = rotation * principal.asDiagonal() * rotation.transpose();
      ImpactProblem problem;
      problem.addRigidBody(body);
      ++bodies;
      for (int axis = 0; axis < 3; ++axis) {
        VectorX v = VectorX::Zero(6);
        v.tail<3>() = 81 * rotation.col(axis);  // the finding's 81 rad/s
        const Scalar expected = 0.5 * 81 * 81 / principal[axis];
        const Scalar stored = 100 * ratio * std::numeric_limits<Scalar>::epsilon();
        EXPECT_NEAR(problem.kineticEnergy(v), expected, (kEnergyAgreement + stored) * expected)
            << "ratio " << ratio << " orientation " << k << " axis " << axis;
      }
    }
  }
  EXPECT_EQ(bodies, 5 * kOrientations);
}

}  // namespace
}  // namespace propimpact
