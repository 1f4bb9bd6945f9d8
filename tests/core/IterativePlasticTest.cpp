// The plastic solve above ResolveOptions::plasticDenseLimit (projected
// conjugate gradient, ProjectedConjugateGradient.h) against the exact
// active-set solve of the same problems, and on the case it exists for: a
// column of boxes landing, where Gauss–Seidel carries the error one contact
// per sweep.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "../../plugin/src/core/ProjectedConjugateGradient.h"
#include "TestSupport.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

using test::uniform;
using test::uniformInt;

ResolveOptions plasticOptions(int denseLimit) {
  ResolveOptions options;
  options.growFromSeeds = true;  // every contact a seed: one plastic solve over all of them
  options.plasticDenseLimit = denseLimit;
  return options;
}

RigidBodyInput randomBody(std::mt19937_64& random) {
  RigidBodyInput body;
  body.inverseMass = 1 / uniform(random, 0.2, 5);
  const Matrix3 rotation = test::randomRotation(random);
  const Vector3 principal(uniform(random, 0.2, 3), uniform(random, 0.2, 3), uniform(random, 0.2, 3));
  body.inverseInertiaWorld = rotation * principal.asDiagonal() * rotation.transpose();
  body.linearVelocity = test::randomVector(random, 3, 2);
  body.angularVelocity = test::randomVector(random, 3, 1);
  return body;
}

// Random rigid bodies (20-30), 70-140 plastic contacts between random pairs
// and with the ground (fewer rows than dofs: with 100 rows over 8 bodies,
// nearly dependent rows make both iterative methods stall before the
// tolerance, projected Gauss–Seidel more often than this one): the iterative outcome is the exact one (the energy norm of the
// difference within 1e-6 of the problem's speed), feasible, with non-negative
// impulses, and never above the start's energy.
TEST(IterativePlastic, MatchesTheExactSolveAboveTheDenseLimit) {
  std::mt19937_64 random(9090);
  ImpactResolver iterative, exact;
  for (int trial = 0; trial < 40; ++trial) {
    ImpactProblem problem;
    const int bodies = uniformInt(random, 20, 30);
    for (int b = 0; b < bodies; ++b) problem.addRigidBody(randomBody(random));
    const int contacts = uniformInt(random, 70, 140);
    for (int i = 0; i < contacts; ++i) {
      const int a = uniformInt(random, 0, bodies - 1);
      const int other = uniformInt(random, -1, bodies - 1);
      const int b = other == a ? kNoBlock : (other < 0 ? kNoBlock : other);
      problem.addRigidContact(a, b, test::randomUnit3(random), test::randomVector(random, 3, 0.5),
                              test::randomVector(random, 3, 0.5), 0);
    }
    const ImpactResult result = iterative.resolve(problem, plasticOptions(64));
    const ImpactResult reference = exact.resolve(problem, plasticOptions(1000));
    ASSERT_EQ(result.plasticMethod, PlasticMethod::Iterative) << "trial " << trial;
    ASSERT_EQ(reference.plasticMethod, PlasticMethod::ActiveSet) << "trial " << trial;
    const Scalar scale = std::sqrt(2 * result.energyBefore);
    const VectorX difference = result.velocity - reference.velocity;
    EXPECT_LE(std::sqrt(2 * problem.kineticEnergy(difference)), 1e-6 * scale) << "trial " << trial;
    EXPECT_LE(result.energyAfter, result.energyBefore * (1 + 1e-12)) << "trial " << trial;
    const VectorX speeds = problem.denseContactJacobian() * result.velocity;
    const MatrixX inverseMass = problem.denseInverseMass();
    const MatrixX jacobian = problem.denseContactJacobian();
    for (int i = 0; i < problem.contactCount(); ++i) {
      const Scalar unit = std::sqrt(jacobian.row(i).dot(inverseMass * jacobian.row(i).transpose()));
      EXPECT_GE(speeds[i] / unit, -1e-8 * scale) << "trial " << trial << " contact " << i;
      EXPECT_GE(result.impulses[i], 0) << "trial " << trial << " contact " << i;
    }
  }
}

// A column of 20 unit boxes (four corner contacts each, on the ground and on
// the box below) falls at 1 m/s onto the ground, R = 0: everything stops. The
// iterative solve reaches the tolerance in under 120 iterations (95 when
// written: 16 Gauss–Seidel sweeps, whose rate predicts a long tail, then 79 of
// the conjugate gradient); Gauss–Seidel alone, which moves the ground's
// reaction one box up the column per sweep, stopped at its 500-sweep cap
// short of it.
TEST(IterativePlastic, ColumnOfBoxesStopsInFewIterations) {
  constexpr int kBoxes = 20;
  constexpr Scalar kHalf = 0.5;
  ImpactProblem problem;
  RigidBodyInput box;
  box.inverseMass = 1;
  box.inverseInertiaWorld = Matrix3::Identity() * (6.0 / (4 * kHalf * kHalf * 2));  // unit cube: I = m (2h)² / 6
  box.linearVelocity = Vector3(0, -1, 0);
  for (int b = 0; b < kBoxes; ++b) problem.addRigidBody(box);
  const Vector3 up(0, 1, 0);
  for (int b = 0; b < kBoxes; ++b)
    for (const Scalar x : {-kHalf, kHalf})
      for (const Scalar z : {-kHalf, kHalf}) {
        const Vector3 bottom(x, -kHalf, z), top(x, kHalf, z);
        problem.addRigidContact(b, b == 0 ? kNoBlock : b - 1, up, bottom, top, 0);
      }
  ImpactResolver resolver;
  const ImpactResult result = resolver.resolve(problem, plasticOptions(64));
  ASSERT_EQ(result.plasticMethod, PlasticMethod::Iterative);
  EXPECT_LE(result.plasticIterations, 120);
  EXPECT_LE(result.velocity.cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LE(result.energyAfter, 1e-14);
  // The ground carries the whole column's momentum, spread over its four corners.
  Scalar ground = 0;
  for (int i = 0; i < 4; ++i) ground += result.impulses[i];
  EXPECT_NEAR(ground, kBoxes * 1.0, 1e-7);
}

// The rows of InfeasibleProblemStopsFiniteWithoutConverging: 22 opposing
// pairs on one rigid body. Squeezed, each pair's biases sum to a negative
// number (no outcome, see there); otherwise every bias is positive, so v = 0
// separates every row and a plastic outcome exists.
ImpactProblem opposingPairs(std::mt19937_64& random, bool squeezed) {
  ImpactProblem problem;
  problem.addRigidBody(randomBody(random));
  for (int pair = 0; pair < 22; ++pair) {
    const Vector3 normal = test::randomUnit3(random), offset = test::randomVector(random, 3, 0.5);
    const Scalar squeeze = uniform(random, 0.1, 2), split = uniform(random, -1, 1);
    const Scalar biasA = squeezed ? split - squeeze / 2 : uniform(random, 0.1, 2);
    const Scalar biasB = squeezed ? -split - squeeze / 2 : uniform(random, 0.1, 2);
    problem.addRigidContact(0, kNoBlock, normal, offset, Vector3::Zero(), 0, biasA);
    problem.addRigidContact(0, kNoBlock, -normal, offset, Vector3::Zero(), 0, biasB);
  }
  return problem;
}

struct DirectSolve {
  bool converged = false;
  std::int64_t iterations = 0;
  std::vector<Scalar> velocity, compact;
  Scalar violation = 0;  // largest unit-normal approach left
};

// The MPRGP alone on every row of \p problem, from λ = 0, at scale 1.
DirectSolve solveDirectly(const ImpactProblem& problem, std::int64_t cap) {
  detail::SolverBodies bodies;
  bodies.build(problem);
  detail::ContactRows rows;
  rows.build(bodies);
  rows.buildAdjacency();
  EXPECT_EQ(rows.active().size(), static_cast<std::size_t>(problem.contactCount()));
  const ResolveOptions options = plasticOptions(1);
  const detail::StageContext context{bodies, rows, options, options.feasibilityTolerance, 1};
  DirectSolve s;
  s.velocity.resize(static_cast<std::size_t>(bodies.dofs()));
  const VectorX v0 = problem.velocity();
  bodies.gather(v0.data(), s.velocity.data());
  s.compact.assign(rows.active().size(), 0);
  detail::ProjectedConjugateGradient solver;
  s.iterations = solver.solve(context, s.velocity.data(), s.compact, cap);
  s.converged = solver.converged();
  s.violation = rows.largestViolation(s.velocity.data());
  return s;
}

// The MPRGP handed a problem without a plastic outcome (the fuzz finding
// mprgp-diverged-on-an-infeasible-43-contact-6-dof-problem, in the small): one
// rigid body, 6 dofs, 44 rows in 22 exactly opposing pairs (J and −J at the
// same point), whose biases sum to a squeeze in every pair, so y = (1, 1) on
// a pair has Jᵀy = 0 and yᵀ(Jv + b) < 0: by Farkas no λ ≥ 0 makes every row
// non-negative. The iteration used to follow the flat direction with steps of
// 1e300 until the velocity overflowed; it must stop with a finite state and
// say that it did not converge, well before its cap.
TEST(IterativePlastic, InfeasibleProblemStopsFiniteWithoutConverging) {
  std::mt19937_64 random(4343);
  constexpr std::int64_t kCap = 100000;
  const Scalar tolerance = ResolveOptions().plasticIterativeTolerance;
  for (int trial = 0; trial < 20; ++trial) {
    const DirectSolve s = solveDirectly(opposingPairs(random, true), kCap);
    EXPECT_FALSE(s.converged) << "trial " << trial;
    EXPECT_LT(s.iterations, kCap) << "trial " << trial;
    for (const Scalar x : s.velocity) ASSERT_TRUE(std::isfinite(x)) << "trial " << trial;
    for (const Scalar x : s.compact) ASSERT_TRUE(std::isfinite(x) && x >= 0) << "trial " << trial;
    // Some pair is left approaching: the state is not a plastic outcome.
    EXPECT_GT(s.violation, tolerance) << "trial " << trial;
    // Pairs with an outcome: the solver reaches it and says so.
    const DirectSolve gap = solveDirectly(opposingPairs(random, false), kCap);
    EXPECT_TRUE(gap.converged) << "trial " << trial;
    EXPECT_LE(gap.violation, tolerance) << "trial " << trial;
  }
}

}  // namespace
}  // namespace propimpact
