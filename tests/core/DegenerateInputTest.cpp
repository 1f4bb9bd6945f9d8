// SPEC §3-6: inputs that are ordinary in an engine but degenerate for the
// model: duplicate, dependent and opposing rows, no contacts, joints,
// kinematic bodies, and clusters grown from seed contacts.
#include <gtest/gtest.h>

#include <random>

#include "TestSupport.h"
#include "propimpact/core/ImpactResolver.h"
#include "propimpact/core/Resolve.h"

namespace propimpact {
namespace {

constexpr Scalar kTolerance = 1e-12;     // O(1) velocities: round-off
constexpr Scalar kFeasibility = 1e-9;    // unit-normal approach accepted as feasible
constexpr Scalar kImpulse = 1e-10;      // relative; impulses come out of a solve with conditioning ≤ 1e2

Scalar mDistance(const MatrixX& m, const VectorX& a, const VectorX& b) {
  const VectorX d = a - b;
  return std::sqrt(d.dot(m * d));
}

TEST(DegenerateInput, DuplicateRowsAreMergedAndShareTheImpulse) {
  std::mt19937_64 rng(0xd0b1eULL);
  for (int trial = 0; trial < 200; ++trial) {
    const Index n = test::uniformInt(rng, 1, 6);
    const MatrixX m = test::randomSpd(rng, n);
    const VectorX u = test::randomVector(rng, n);
    VectorX v = test::randomVector(rng, n);
    if (u.dot(v) > 0) v = -v;
    const Scalar restitution = trial % 3 == 0 ? 1.0 : test::uniform(rng, 0, 1);
    MatrixX twice(2, n);
    twice << u.transpose(), u.transpose();
    const ImpactResult single = resolveDense(m, v, u.transpose(), restitution);
    const ImpactResult doubled = resolveDense(m, v, twice, restitution);
    EXPECT_EQ(doubled.mergedDuplicates, 1);
    EXPECT_LE(mDistance(m, doubled.velocity, single.velocity), kTolerance * std::sqrt(v.dot(m * v)));
    EXPECT_NEAR(doubled.impulses[0], doubled.impulses[1], kTolerance * single.impulses[0]);
    EXPECT_NEAR(doubled.impulses[0] + doubled.impulses[1], single.impulses[0], kImpulse * single.impulses[0]);
  }
}

// A box face landing flat on static ground: four corner rows with one normal
// and different levers, rank 3 in the box's 6 dofs.
TEST(DegenerateInput, BoxFaceOnGroundWithDependentCornerRows) {
  const Scalar mass = 2, hx = 0.5, hy = 0.2, hz = 0.3;
  RigidBodyInput box;
  box.inverseMass = 1 / mass;
  box.inverseInertiaWorld = Vector3(12 / (mass * (4 * hy * hy + 4 * hz * hz)), 12 / (mass * (4 * hx * hx + 4 * hz * hz)),
                                    12 / (mass * (4 * hx * hx + 4 * hy * hy)))
                                .asDiagonal();
  box.linearVelocity = Vector3(0.3, -2, 0);
  for (const Scalar restitution : {0.0, 0.5, 1.0}) {
    ImpactProblem problem;
    const int body = problem.addRigidBody(box);
    for (const Scalar sx : {-1.0, 1.0})
      for (const Scalar sz : {-1.0, 1.0})
        problem.addRigidContact(body, kNoBlock, Vector3::UnitY(), Vector3(sx * hx, -hy, sz * hz), Vector3::Zero(),
                                restitution);
    ImpactResolver resolver;
    const ImpactResult r = resolver.resolve(problem);
    const MatrixX j = problem.denseContactJacobian();
    const MatrixX m = problem.denseMass();
    const VectorX v0 = problem.velocity();
    EXPECT_GE(test::worstUnitVelocity(problem.denseInverseMass(), j, r.velocity, VectorX::Zero(4)), -kFeasibility * 2);
    EXPECT_LE(r.energyAfter, r.energyBefore * (1 + kTolerance));
    EXPECT_GE(r.impulses.minCoeff(), 0);
    // The ground only pushes along +y: vertical momentum changes by Σλ,
    // horizontal momentum is unchanged.
    EXPECT_NEAR(mass * (r.velocity[1] - v0[1]), r.impulses.sum(), kImpulse * mass * 2);
    EXPECT_NEAR(r.velocity[0], 0.3, kTolerance);
    EXPECT_NEAR(r.velocity[2], 0, kTolerance);
    if (restitution == 1.0) {
      EXPECT_NEAR(r.energyAfter, r.energyBefore, kTolerance * r.energyBefore);
    }
    if (restitution == 0.0) {
      // Summing the four rows gives v_y ≥ 0: the closest feasible motion stops
      // the fall without spinning the box.
      EXPECT_NEAR(r.velocity[1], 0, kTolerance);
      EXPECT_LE(r.velocity.tail<3>().norm(), kTolerance);
      EXPECT_LE(r.plasticResidual, kFeasibility);
    }
  }
}

TEST(DegenerateInput, BallBetweenTwoWallsFallsBackToPlastic) {
  RigidBodyInput ball;
  ball.inverseMass = 1 / 3.0;
  ball.inverseInertiaWorld = Matrix3::Identity() * 2.5;
  ball.linearVelocity = Vector3(1.5, 0.5, -0.25);
  ImpactProblem problem;
  const int body = problem.addRigidBody(ball);
  problem.addRigidContact(body, kNoBlock, Vector3::UnitX(), Vector3(-0.1, 0, 0), Vector3::Zero(), 1.0);
  problem.addRigidContact(body, kNoBlock, -Vector3::UnitX(), Vector3(0.1, 0, 0), Vector3::Zero(), 1.0);
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(problem);
  EXPECT_TRUE(r.capHit);
  EXPECT_TRUE(r.capForeseen);  // a clamp: recognised at the first look (CapForecast.h)
  EXPECT_EQ(r.fallback, Fallback::PlasticFromCapped);
  EXPECT_EQ(r.reflections, 64 + 8 * 2);
  EXPECT_NEAR(r.velocity[0], 0, kTolerance);
  EXPECT_NEAR(r.velocity[1], 0.5, kTolerance);
  EXPECT_NEAR(r.velocity[2], -0.25, kTolerance);
  EXPECT_LE(r.energyAfter, r.energyBefore);
  EXPECT_GE(r.impulses.minCoeff(), 0);
}

TEST(DegenerateInput, EmptyContactSetLeavesVelocityUnchanged) {
  ImpactProblem problem;
  VectorX v(3);
  v << 1, -2, 3;
  problem.addDenseBlock(MatrixX::Identity(3, 3) * 2, v);
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(problem);
  EXPECT_EQ(r.velocity, v);
  EXPECT_EQ(r.reflections, 0);
  EXPECT_EQ(r.impulses.size(), 0);
  EXPECT_EQ(r.energyAfter, r.energyBefore);
  EXPECT_FALSE(r.capHit);
}

// A point-mass pendulum bob (2-D) on a rigid string from the origin: the
// string is a bilateral row r̂·v = 0. The bob, moving along the tangent t̂,
// hits a wall with normal n; in the metric of admissible motions the
// collision is one-dimensional along t̂, so the tangential speed reverses
// (scaled by R) and the string stays taut.
TEST(DegenerateInput, PendulumKeepsJointVelocityErrorZero) {
  const Scalar angle = 0.4, speed = 1.7, mass = 2.0;
  const Eigen::Vector2d radial(std::sin(angle), -std::cos(angle));
  const Eigen::Vector2d tangent(std::cos(angle), std::sin(angle));
  const Eigen::Vector2d wallNormal = Eigen::Vector2d(-1, 0.3).normalized();  // wall on the bob's right
  for (const Scalar restitution : {1.0, 0.6, 0.0}) {
    ImpactProblem problem;
    const int bob = problem.addDenseBlock(mass * MatrixX::Identity(2, 2), VectorX(speed * tangent));
    problem.addBilateralRow(bob, VectorX(radial), kNoBlock, VectorX());
    problem.addContactRow(bob, VectorX(wallNormal), kNoBlock, VectorX(), restitution);
    ImpactResolver resolver;
    const ImpactResult r = resolver.resolve(problem);
    EXPECT_NEAR(radial.dot(r.velocity), 0, kTolerance);
    EXPECT_NEAR(tangent.dot(r.velocity), -restitution * speed, kTolerance);
    EXPECT_NEAR(r.energyAfter, restitution * restitution * r.energyBefore, kTolerance);
  }
}

// A rigid body hinged to the world by a ball joint at its top (three rows
// v + ω × r_p = 0) is struck by a wall elsewhere: the joint holds, energy is
// conserved, and the contact obeys Newton's law in the jointed metric.
TEST(DegenerateInput, BallJointedBodyKeepsJointAndEnergy) {
  RigidBodyInput body;
  body.inverseMass = 0.5;
  body.inverseInertiaWorld = Vector3(1.5, 0.8, 2.2).asDiagonal();
  const Vector3 pivot(0, 1, 0);                  // joint offset from the centre of mass
  body.angularVelocity = Vector3(0.3, -0.2, 1.1);
  body.linearVelocity = -body.angularVelocity.cross(pivot);  // joint velocity error zero
  for (const Scalar restitution : {1.0, 0.4}) {
    ImpactProblem problem;
    const int b = problem.addRigidBody(body);
    for (int axis = 0; axis < 3; ++axis) {
      const Vector3 e = Vector3::Unit(axis);
      Vector6 row;
      row << e, pivot.cross(e);
      problem.addBilateralRow(b, row, kNoBlock, VectorX());
    }
    problem.addRigidContact(b, kNoBlock, Vector3(-1, 0, 0), Vector3(0.2, -1, 0.1), Vector3::Zero(), restitution);
    ImpactResolver resolver;
    const ImpactResult r = resolver.resolve(problem);
    const MatrixX joint = problem.denseBilateralJacobian();
    const MatrixX contact = problem.denseContactJacobian();
    ASSERT_LT(contact.row(0).dot(problem.velocity()), 0) << "the setup must approach the wall";
    EXPECT_LE((joint * r.velocity).cwiseAbs().maxCoeff(), kTolerance);
    EXPECT_NEAR(contact.row(0).dot(r.velocity), -restitution * contact.row(0).dot(problem.velocity()), kTolerance);
    if (restitution == 1.0) {
      EXPECT_NEAR(r.energyAfter, r.energyBefore, kTolerance * r.energyBefore);
    }
    EXPECT_LE(r.energyAfter, r.energyBefore * (1 + kTolerance));
  }
}

// Two blocks tied by a bilateral row (x_A − x_B fixed) behave as one mass
// m_A + m_B colliding with a third ball.
TEST(DegenerateInput, JointAcrossBlocksActsAsCombinedMass) {
  const Scalar ma = 1, mb = 2, mc = 1.5, speed = 2;
  ImpactProblem problem;
  VectorX moving(1), rest(1);
  moving << speed;
  rest << 0;
  const MatrixX one = MatrixX::Identity(1, 1);
  const int a = problem.addDenseBlock(ma * one, moving);
  const int b = problem.addDenseBlock(mb * one, moving);
  const int c = problem.addDenseBlock(mc * one, rest);
  problem.addBilateralRow(a, one.col(0), b, -one.col(0));
  problem.addContactRow(c, one.col(0), b, -one.col(0), 1.0);  // gap x_C − x_B
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(problem);
  const Scalar joined = ma + mb;
  EXPECT_NEAR(r.velocity[0], (joined - mc) / (joined + mc) * speed, kTolerance);
  EXPECT_NEAR(r.velocity[1], r.velocity[0], kTolerance);
  EXPECT_NEAR(r.velocity[2], 2 * joined / (joined + mc) * speed, kTolerance);
}

// A kinematic paddle moving at U enters the row as the constant b = −U·n:
// Newton's law holds for the relative velocity J v + b.
TEST(DegenerateInput, KinematicPaddleObeysNewtonOnRelativeVelocity) {
  const Scalar paddleSpeed = 3, ballSpeed = -1;
  for (const Scalar restitution : {1.0, 0.5, 0.0}) {
    RigidBodyInput ball;
    ball.inverseMass = 2;
    ball.linearVelocity = Vector3(ballSpeed, 0.4, 0);
    ImpactProblem problem;
    const int b = problem.addRigidBody(ball);
    // Paddle on the ball's left, normal +x from paddle to ball: relative normal
    // velocity v_ball,x − U.
    problem.addRigidContact(b, kNoBlock, Vector3::UnitX(), Vector3(-0.1, 0, 0), Vector3::Zero(), restitution,
                            -paddleSpeed);
    ImpactResolver resolver;
    const ImpactResult r = resolver.resolve(problem);
    EXPECT_NEAR(r.velocity[0] - paddleSpeed, -restitution * (ballSpeed - paddleSpeed), kTolerance);
    EXPECT_NEAR(r.velocity[1], 0.4, kTolerance);
    if (restitution == 1.0) {
      EXPECT_GT(r.energyAfter, r.energyBefore);  // the paddle does work
    }
  }
}

// A five-ball chain where only the first contact is a seed, plus a resting
// pair elsewhere that nothing reaches.
TEST(DegenerateInput, GrowFromSeedsReachesChainButNotUntouchedPair) {
  const MatrixX one = MatrixX::Identity(1, 1);
  ImpactProblem problem;
  std::vector<int> balls;
  for (int k = 0; k < 7; ++k) {
    VectorX v(1);
    v << (k == 0 ? 1.0 : 0.0);
    if (k == 6) v << -0.2;  // the far pair approaches slowly: only a seed would act on it
    balls.push_back(problem.addDenseBlock(one, v));
  }
  for (int k = 0; k + 1 < 5; ++k) problem.addContactRow(balls[k + 1], one.col(0), balls[k], -one.col(0), 1.0);
  const int far = problem.addContactRow(balls[6], one.col(0), balls[5], -one.col(0), 1.0);
  for (int i = 0; i < problem.contactCount(); ++i) problem.setSeed(i, i == 0);
  ResolveOptions options;
  options.growFromSeeds = true;
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(problem, options);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r.inCluster[static_cast<std::size_t>(i)], 1) << "contact " << i;
  EXPECT_EQ(r.inCluster[static_cast<std::size_t>(far)], 0);
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(r.velocity[k], 0, kTolerance);
  EXPECT_NEAR(r.velocity[4], 1, kTolerance);
  EXPECT_EQ(r.velocity[5], 0);
  EXPECT_EQ(r.velocity[6], -0.2);
  EXPECT_EQ(r.impulses[far], 0);
  // Without growing, every touching contact is in and the far pair collides.
  const ImpactResult all = resolver.resolve(problem);
  for (const char in : all.inCluster) EXPECT_EQ(in, 1);
  EXPECT_NEAR(all.velocity[5], -0.2, kTolerance);
  EXPECT_NEAR(all.velocity[6], 0, kTolerance);
}

}  // namespace
}  // namespace propimpact
