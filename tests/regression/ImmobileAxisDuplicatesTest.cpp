// Fuzzer finding "merged-duplicates-differ-in-velocity-along-an-immobile-axis":
// two contact rows with the same M⁻¹Jᵀ were merged as duplicates although
// they differ along an axis nothing can move (an infinite-inertia axis the
// body spins about), so their relative velocities differ by a constant no
// impulse changes. The kept row was resolved and the dropped one stayed
// infeasible. The fuzz input itself reproduces only in the clang fuzz build
// (gcc generates a slightly different problem from the same bytes), so the
// case is rebuilt here by hand; the input is kept in the corpus.
#include <gtest/gtest.h>

#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

// A body with no rotational mobility about z (inverse inertia diag(1, 1, 0))
// spinning at ω about z, moving at −1 along x into a wall with normal +x.
// Two wall contacts with lever arms that differ only in y: r × n = (0, r_z, −r_y),
// whose z-part the body cannot use, so M⁻¹Jᵀ is the same for both, but the
// spin adds −r_y ω to each contact's speed.
ImpactProblem wallWithSpin(double leverY2, double restitution) {
  ImpactProblem p;
  RigidBodyInput body;
  body.inverseMass = 1;
  body.inverseInertiaWorld = Vector3(1, 1, 0).asDiagonal();
  body.linearVelocity = Vector3(-1, 0, 0);
  body.angularVelocity = Vector3(0, 0, 10);
  const int b = p.addRigidBody(body);
  const Vector3 normal(1, 0, 0);
  p.addRigidContact(b, kNoBlock, normal, Vector3(-0.5, 0.0, 0.2), Vector3::Zero(), restitution, 0);
  p.addRigidContact(b, kNoBlock, normal, Vector3(-0.5, leverY2, 0.2), Vector3::Zero(), restitution, 0);
  return p;
}

TEST(FuzzFindings, MergedDuplicatesDifferInVelocityAlongAnImmobileAxis) {
  for (const double restitution : {0.0, 0.5, 1.0}) {
    const ImpactProblem p = wallWithSpin(0.05, restitution);  // speeds −1 and −1.5
    ResolveOptions options;
    ImpactResolver resolver;
    const ImpactResult r = resolver.resolve(p, options);
    EXPECT_EQ(r.mergedDuplicates, 0) << "restitution " << restitution;
    const MatrixX j = p.denseContactJacobian();
    const VectorX speeds = j * r.velocity;
    EXPECT_GE(speeds.minCoeff(), -1e-12) << "restitution " << restitution << ": a contact left approaching";
    EXPECT_EQ(fuzz::check(p, options, r), "") << "restitution " << restitution;
  }
}

TEST(FuzzFindings, ExactDuplicatesAlongAnImmobileAxisAreStillMerged) {
  const ImpactProblem p = wallWithSpin(0.0, 0.0);  // the same row twice
  ResolveOptions options;
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(p, options);
  EXPECT_EQ(r.mergedDuplicates, 1);
  EXPECT_EQ(fuzz::check(p, options, r), "");
}

}  // namespace
}  // namespace propimpact
