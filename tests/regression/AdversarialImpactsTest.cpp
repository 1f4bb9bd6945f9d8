// Impacts that make iterative impact schemes loop or crawl (Vouga et al.
// 2017 list inelastic collapse, wedged bodies and nearly parallel contacts
// among the failure cases of conservative iterations). Each must end within
// the cap, name the fallback that ran, stay feasible and gain no energy, for
// every ordering policy.
#include <gtest/gtest.h>

#include <cmath>

#include "ProblemFuzzer.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

constexpr OrderingPolicy kPolicies[] = {OrderingPolicy::MostApproaching, OrderingPolicy::LeastApproaching,
                                        OrderingPolicy::IndexOrder, OrderingPolicy::ReverseIndexOrder,
                                        OrderingPolicy::SeededRandom};

// Resolves under every policy; returns the results so each test can say which
// fallback it expects.
std::vector<ImpactResult> resolveAll(const ImpactProblem& p, ResolveOptions options = {}) {
  std::vector<ImpactResult> results;
  for (const OrderingPolicy policy : kPolicies) {
    options.ordering = policy;
    ImpactResolver resolver;
    ImpactResult r = resolver.resolve(p, options);
    SCOPED_TRACE(toString(policy));
    EXPECT_LE(r.reflections, r.reflectionCap);
    EXPECT_EQ(r.capHit, r.fallback == Fallback::PlasticFromCapped);
    EXPECT_EQ(fuzz::check(p, options, r), "") << toString(policy) << ", fallback " << toString(r.fallback);
    EXPECT_LE(r.energyAfter, r.energyBefore * (1 + 1e-12));
    ::testing::Test::RecordProperty(std::string("fallback_") + toString(policy), toString(r.fallback));
    results.push_back(std::move(r));
  }
  return results;
}

ImpactProblem lineOfBalls(const VectorX& masses, const VectorX& velocities, Scalar restitution) {
  ImpactProblem p;
  const Index n = masses.size();
  const int block = p.addDenseBlock(MatrixX(masses.asDiagonal()), velocities);
  for (Index k = 0; k + 1 < n; ++k) {
    VectorX row = VectorX::Zero(n);
    row[k] = -1;
    row[k + 1] = 1;  // gap x_{k+1} − x_k
    p.addContactRow(block, row, kNoBlock, VectorX(), restitution);
  }
  return p;
}

// Inelastic collapse: balls converging on a line at small restitution make
// event-by-event schemes take ever shorter steps; here it is one impact.
TEST(AdversarialImpacts, InelasticCollapseOfConvergingBalls) {
  for (const int n : {3, 8, 40}) {
    VectorX masses = VectorX::Ones(n);
    VectorX v(n);
    for (int k = 0; k < n; ++k) v[k] = 1 - 2 * Scalar(k) / (n - 1);  // all approaching the middle
    const ImpactProblem p = lineOfBalls(masses, v, 0.05);
    for (const ImpactResult& r : resolveAll(p)) {
      EXPECT_FALSE(r.capHit) << n << " balls";
      EXPECT_EQ(r.fallback, Fallback::None);
      EXPECT_LT(r.energyAfter, r.energyBefore);
    }
  }
}

// A ball wedged between two walls: opposing rows have no elastic outcome, the
// reflections would ping-pong forever. Under every ordering rule the
// propagation's forecast (CapForecast.h) sees that at its first look, 64 + 8
// reflections per row, long before the cap; the plastic fallback stops the ball.
TEST(AdversarialImpacts, BallWedgedBetweenTwoWalls) {
  ImpactProblem p;
  VectorX v(1);
  v << 1;
  const int b = p.addDenseBlock(MatrixX::Identity(1, 1), v);
  VectorX plus(1), minus(1);
  plus << 1;
  minus << -1;
  p.addContactRow(b, plus, kNoBlock, VectorX(), 1.0);
  p.addContactRow(b, minus, kNoBlock, VectorX(), 1.0);
  for (const ImpactResult& r : resolveAll(p)) {
    EXPECT_TRUE(r.capHit);
    EXPECT_TRUE(r.capForeseen);
    EXPECT_EQ(r.fallback, Fallback::PlasticFromCapped);
    EXPECT_EQ(r.reflections, 64 + 8 * 2);
    EXPECT_NEAR(r.velocity[0], 0, 1e-12);
  }
}

// Two walls meeting at a very narrow angle: Thm 1 bounds the reflections by
// ceil(π/γ), here tens of thousands, above the default cap.
TEST(AdversarialImpacts, NarrowWedgeExceedsTheoremOneBoundAndFallsBack) {
  const Scalar delta = 1e-5;
  ImpactProblem p;
  RigidBodyInput ball;
  ball.linearVelocity = Vector3(1, -1, 0);
  const int a = p.addRigidBody(ball);
  p.addRigidContact(a, kNoBlock, Vector3(-1, delta, 0), Vector3::Zero(), Vector3::Zero(), 1.0);
  p.addRigidContact(a, kNoBlock, Vector3(1, delta, 0), Vector3::Zero(), Vector3::Zero(), 1.0);
  for (const ImpactResult& r : resolveAll(p)) EXPECT_TRUE(r.capHit);
  // A cap above the bound lets the propagation finish by itself.
  ResolveOptions generous;
  generous.reflectionCap = static_cast<std::int64_t>(std::ceil(M_PI / std::asin(delta))) + 10;
  for (const ImpactResult& r : resolveAll(p, generous)) EXPECT_FALSE(r.capHit);
}

// Many nearly parallel contacts (a box face resting on a slightly curved
// surface): 32 normals within 1e-7 rad of each other on one rigid body.
TEST(AdversarialImpacts, ManyNearlyParallelContacts) {
  ImpactProblem p;
  RigidBodyInput box;
  box.inverseInertiaWorld = Matrix3::Identity() * 6;
  box.linearVelocity = Vector3(0.1, 0, -2);
  box.angularVelocity = Vector3(0.3, -0.2, 0.1);
  const int a = p.addRigidBody(box);
  for (int k = 0; k < 32; ++k) {
    const Scalar angle = 1e-7 * k;
    const Vector3 offset(0.5 * std::cos(0.2 * k), 0.5 * std::sin(0.2 * k), -0.5);
    p.addRigidContact(a, kNoBlock, Vector3(std::sin(angle), 0, std::cos(angle)), offset, Vector3::Zero(), 0.5);
  }
  for (const ImpactResult& r : resolveAll(p)) EXPECT_LT(r.energyAfter, r.energyBefore);
}

// A heavy body between two light ones: the light balls rattle many times
// before the heavy one has moved the momentum on (a mass ratio of 1e6).
TEST(AdversarialImpacts, HeavyBodyBetweenLightOnes) {
  VectorX masses(3);
  masses << 1, 1e6, 1;
  VectorX v(3);
  v << 1, 0, -1;
  for (const Scalar restitution : {1.0, 0.5, 0.0}) {
    const ImpactProblem p = lineOfBalls(masses, v, restitution);
    for (const ImpactResult& r : resolveAll(p)) {
      EXPECT_EQ(r.fallback, Fallback::None) << "restitution " << restitution;
      if (restitution == 1.0) {
        EXPECT_NEAR(r.energyAfter, r.energyBefore, 1e-12 * r.energyBefore);
      }
    }
  }
}

// More contacts than degrees of freedom: a point in the plane hit by 40
// rows whose normals fan over the upper half plane.
TEST(AdversarialImpacts, ContactsOutnumberDegreesOfFreedom) {
  for (const Scalar restitution : {1.0, 0.3, 0.0}) {
    ImpactProblem p;
    VectorX v(2);
    v << 0.3, -1;
    const int b = p.addDenseBlock(MatrixX::Identity(2, 2), v);
    for (int k = 0; k < 40; ++k) {
      const Scalar angle = M_PI * (k + 0.5) / 40;
      VectorX row(2);
      row << std::cos(angle), std::sin(angle);
      p.addContactRow(b, row, kNoBlock, VectorX(), restitution);
    }
    const std::vector<ImpactResult> results = resolveAll(p);
    // Every normal has a positive vertical part: the only feasible velocities
    // point into the fan, so the outcome is the point at rest or moving up.
    for (const ImpactResult& r : results) EXPECT_GE(r.velocity[1], -1e-9);
  }
}

}  // namespace
}  // namespace propimpact
