// What the fuzzer found, one test per finding, named after it.
#include <gtest/gtest.h>

#include <cmath>

#include "FuzzFindings.h"
#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

// A body wedged by many nearly dependent rows in few dofs (43 rows, 5 dofs):
// the cap ends the ping-pong, and the exact active-set plastic solve then
// carries opposing impulses four orders above the momentum. Their
// cancellation once left a residual of ≈4e-7 of the scale; the QR-based solve
// now ends within the resolver's own feasibility tolerance (1e-10 of the
// scale), and the report must say so.
TEST(FuzzFindings, WedgedNearlyDependentRowsLeaveReportedPlasticResidual) {
  fuzz::Case c;
  fuzz::build(regression::kWedgedNearlyDependentRows, regression::kWedgedNearlyDependentRowsSize, c);
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(c.problem, c.options);
  EXPECT_TRUE(r.capHit);
  EXPECT_EQ(r.fallback, Fallback::PlasticFromCapped);
  EXPECT_LE(r.reflections, r.reflectionCap);
  EXPECT_EQ(r.plasticMethod, PlasticMethod::ActiveSet);
  EXPECT_LE(r.plasticResidual, 1e-10 * std::sqrt(2 * r.energyBefore));
  EXPECT_EQ(fuzz::check(c.problem, c.options, r), "");
}

// A linear factor of 0 with a velocity along that axis (Bullet keeps such a
// velocity if the user sets it): nothing can change it, so a contact that sees
// it meets a prescribed motion, like a kinematic paddle's. The fuzzer's first
// finding was an energy gain here; the resolver's outcome is Newton's law on
// the whole relative velocity, with the locked component untouched.
TEST(FuzzFindings, LockedAxisVelocityActsAsPrescribedMotion) {
  ImpactProblem p;
  RigidBodyInput body;
  body.inverseMass = 1;
  body.linearFactor = Vector3(1, 0, 1);
  body.linearVelocity = Vector3(0, -1, 0);
  const int a = p.addRigidBody(body);
  p.addRigidContact(a, kNoBlock, Vector3(1, 1, 0).normalized(), Vector3::Zero(), Vector3::Zero(), 1.0);
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(p, ResolveOptions{});
  const Scalar before = p.denseContactJacobian().row(0).dot(p.velocity());
  const Scalar after = p.denseContactJacobian().row(0).dot(r.velocity);
  EXPECT_NEAR(after, -before, 1e-12);
  EXPECT_DOUBLE_EQ(r.velocity[1], -1);
  EXPECT_GT(r.energyAfter, r.energyBefore);  // as a moving paddle adds energy
  EXPECT_EQ(fuzz::check(p, ResolveOptions{}, r), "");
}

// Kinematic biases that admit no feasible outcome (a ball between two walls
// closing on it) made the fuzzer's early generator flag infeasibility. The
// resolver cannot satisfy both rows; it must still return, say the cap ran,
// and report how far off the plastic solve stayed. The capped state has pushed
// off both walls, so the plastic outcome from the start is less violated: the
// least uniform violation, 1 (x ≥ 1 − t and x ≤ −1 + t).
TEST(FuzzFindings, ClosingWallsWithNoFeasibleOutcomeTerminateAndReport) {
  MatrixX mass = MatrixX::Identity(1, 1);
  VectorX v(1);
  v << 0.5;
  ImpactProblem p;
  const int b = p.addDenseBlock(mass, v);
  VectorX plus(1), minus(1);
  plus << 1;
  minus << -1;
  p.addContactRow(b, plus, kNoBlock, VectorX(), 1.0, -1.0);   // left wall moving right at 1
  p.addContactRow(b, minus, kNoBlock, VectorX(), 1.0, -1.0);  // right wall moving left at 1
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(p, ResolveOptions{});
  EXPECT_TRUE(r.velocity.allFinite());
  EXPECT_TRUE(r.capHit);
  EXPECT_EQ(r.fallback, Fallback::PlasticFromStart);
  EXPECT_LE(r.reflections, r.reflectionCap);
  EXPECT_NEAR(r.plasticResidual, 1.0, 1e-8);  // the squeeze cannot be resolved, and the report says so
}

}  // namespace
}  // namespace propimpact
