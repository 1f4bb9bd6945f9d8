// ImpactProblem::clearRows keeps the blocks and drops the rows: a problem
// rebuilt that way over other rows is the problem built from scratch with
// those rows, and resolves to the same bits (the Bullet solver keeps a
// component's bodies across its near attempts this way).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

bool sameBits(const VectorX& a, const VectorX& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(Scalar) * static_cast<std::size_t>(a.size())) == 0;
}

// A row of touching unit balls along x, ball 0 moving into the others.
void addBalls(ImpactProblem& p, int count) {
  for (int k = 0; k < count; ++k) {
    RigidBodyInput ball;
    ball.inverseMass = 1 + 0.1 * k;
    ball.inverseInertiaWorld = Matrix3::Identity() * 2.5;
    ball.linearVelocity = k == 0 ? Vector3(1, 0.2, 0) : Vector3::Zero();
    p.addRigidBody(ball);
  }
}

void addContacts(ImpactProblem& p, int first, int last) {
  const Vector3 n = -Vector3::UnitX();  // from B (the next ball) to A (this one)
  for (int k = first; k < last; ++k) p.addRigidContact(k, k + 1, n, 0.5 * -n, -0.5 * -n, k % 2 ? 0.5 : 1, 0, k);
}

TEST(ClearRows, RebuiltRowsResolveAsAFreshProblem) {
  constexpr int kBalls = 12;
  ImpactProblem reused;
  addBalls(reused, kBalls);
  addContacts(reused, 0, 3);  // a near attempt's rows
  ImpactResolver resolver;
  (void)resolver.resolve(reused, ResolveOptions{});
  reused.clearRows();
  EXPECT_EQ(reused.contactCount(), 0);
  EXPECT_EQ(reused.blockCount(), kBalls);
  addContacts(reused, 0, kBalls - 1);

  ImpactProblem fresh;
  addBalls(fresh, kBalls);
  addContacts(fresh, 0, kBalls - 1);

  EXPECT_TRUE(reused.denseContactJacobian() == fresh.denseContactJacobian());
  EXPECT_TRUE(reused.denseInverseMass() == fresh.denseInverseMass());
  const ImpactResult a = ImpactResolver().resolve(reused, ResolveOptions{});
  const ImpactResult b = ImpactResolver().resolve(fresh, ResolveOptions{});
  EXPECT_TRUE(sameBits(a.velocity, b.velocity));
  EXPECT_TRUE(sameBits(a.impulses, b.impulses));
  EXPECT_GT(a.reflections, kBalls - 2);  // the impact ran down the row
}

}  // namespace
}  // namespace propimpact
