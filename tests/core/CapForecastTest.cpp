// A propagation that cannot end within its cap is recognised early (issue 12,
// item 4; plugin/src/core/CapForecast.h). Galperin's billiard is the closed
// form: a block of mass M pushes a block of mass m against a wall; every
// touching contact is one row of a two-contact wedge with
// tan γ = sqrt(m / M), so the propagation takes exactly ⌈π/γ⌉ − 1
// reflections — 314 for M = 10⁴ m, 3141 for M = 10⁶ m, the digits of π.
// Two walls around a ball are a clamp (γ = 0): no number of reflections ends it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "TestSupport.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

constexpr Scalar kRadius = 0.5;
constexpr Scalar kEnergy = 1e-12;  // relative: reflections conserve energy to round-off

RigidBodyInput ball(Scalar mass, Scalar velocity) {
  RigidBodyInput b;
  b.inverseMass = 1 / mass;
  b.inverseInertiaWorld = Matrix3::Identity() / (Scalar(0.4) * mass * kRadius * kRadius);
  b.linearVelocity = Vector3(velocity, 0, 0);
  return b;
}

/// Balls touching along x (ball k+1 on the +x side of ball k), optionally
/// touching a wall at the −x end and one at the +x end; restitution 1.
ImpactProblem line(const std::vector<Scalar>& masses, const std::vector<Scalar>& velocities, bool wallLeft,
                   bool wallRight) {
  ImpactProblem p;
  const Vector3 n = Vector3::UnitX();
  for (std::size_t k = 0; k < masses.size(); ++k) p.addRigidBody(ball(masses[k], velocities[k]));
  const int last = static_cast<int>(masses.size()) - 1;
  if (wallLeft) p.addRigidContact(0, kNoBlock, n, -kRadius * n, Vector3::Zero(), 1);
  for (int k = 0; k < last; ++k) p.addRigidContact(k + 1, k, n, -kRadius * n, kRadius * n, 1);
  if (wallRight) p.addRigidContact(kNoBlock, last, n, Vector3::Zero(), kRadius * n, 1);
  return p;
}

/// Galperin's billiard: the light block rests against the wall, the heavy one comes at it.
ImpactProblem galperin(Scalar ratio) { return line({1, ratio}, {0, -1}, true, false); }

int galperinCount(Scalar ratio) {
  const Scalar gamma = std::atan(std::sqrt(1 / ratio));
  return static_cast<int>(std::ceil(std::acos(Scalar(-1)) / gamma)) - 1;
}

TEST(CapForecast, GalperinBilliardWithinTheCapRunsToTheDigitsOfPi) {
  const ImpactProblem p = galperin(1e4);
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(p);
  ASSERT_EQ(galperinCount(1e4), 314);
  EXPECT_EQ(r.reflections, 314);
  EXPECT_FALSE(r.capHit);
  EXPECT_FALSE(r.capForeseen);
  EXPECT_NEAR(r.energyAfter, r.energyBefore, kEnergy * r.energyBefore);
  // Both blocks end leaving the wall, the light one no faster than the heavy one.
  EXPECT_GT(r.velocity[6], 0);
  EXPECT_LE(r.velocity[0], r.velocity[6] + 1e-12);
  EXPECT_GE(r.velocity[0], -1e-12);
}

TEST(CapForecast, GalperinBilliardBeyondTheCapStopsAtTheFirstLook) {
  const ImpactProblem p = galperin(1e6);
  ASSERT_EQ(galperinCount(1e6), 3141);
  ImpactResolver resolver;
  const ImpactResult r = resolver.resolve(p);  // default cap 1000 + 100 · 2
  ASSERT_LT(r.reflectionCap, 3141);
  EXPECT_TRUE(r.capHit);
  EXPECT_TRUE(r.capForeseen);
  EXPECT_EQ(r.fallback, Fallback::PlasticFromCapped);
  EXPECT_EQ(r.reflections, 64 + 8 * 2);  // the first look: 64 + 8 per row
  EXPECT_LE(r.energyAfter, r.energyBefore * (1 + kEnergy));
  // The plastic outcome: both contacts end feasible (not approaching).
  EXPECT_GE(r.velocity[0], -1e-9);
  EXPECT_GE(r.velocity[6] - r.velocity[0], -1e-9);

  ResolveOptions roomy;
  roomy.reflectionCap = 10000;
  const ImpactResult full = resolver.resolve(p, roomy);
  EXPECT_EQ(full.reflections, 3141);
  EXPECT_FALSE(full.capHit);
  EXPECT_NEAR(full.energyAfter, full.energyBefore, kEnergy * full.energyBefore);
}

TEST(CapForecast, BallClampedBetweenTwoWallsStopsAtTheFirstLook) {
  const ImpactProblem p = line({3}, {1.5}, true, true);
  ImpactResolver resolver;
  ResolveOptions options;
  options.reflectionCap = 1000000;  // the cap is not what stops it
  const ImpactResult r = resolver.resolve(p, options);
  EXPECT_TRUE(r.capForeseen);
  EXPECT_EQ(r.reflections, 64 + 8 * 2);
  EXPECT_NEAR(r.velocity[0], 0, 1e-12);
  EXPECT_LE(r.energyAfter, r.energyBefore);
}

/// A line of balls as the test's own propagation sees it: velocities along x.
struct Line {
  std::vector<Scalar> masses, velocities;
  bool wallLeft = false, wallRight = false;
};

/// Reflections of the most-approaching propagation of \p line (unit-normal
/// speeds, eq. 8 in one dimension), computed here without the resolver, up
/// to \p limit.
std::int64_t naiveReflections(Line line, std::int64_t limit) {
  struct Contact { int a, b; };  // a on the +x side; −1 a wall
  std::vector<Contact> contacts;
  const int n = static_cast<int>(line.masses.size());
  if (line.wallLeft) contacts.push_back({0, -1});
  for (int k = 0; k + 1 < n; ++k) contacts.push_back({k + 1, k});
  if (line.wallRight) contacts.push_back({-1, n - 1});
  const auto inv = [&](int k) { return k < 0 ? Scalar(0) : 1 / line.masses[static_cast<std::size_t>(k)]; };
  const auto vel = [&](int k) { return k < 0 ? Scalar(0) : line.velocities[static_cast<std::size_t>(k)]; };
  const auto unitSpeed = [&](const Contact& c) { return (vel(c.a) - vel(c.b)) / std::sqrt(inv(c.a) + inv(c.b)); };
  Scalar energy = 0, largest = 0;
  for (int k = 0; k < n; ++k) energy += line.masses[static_cast<std::size_t>(k)] * vel(k) * vel(k);
  for (const Contact& c : contacts) largest = std::max(largest, std::abs(unitSpeed(c)));
  const Scalar threshold = ResolveOptions{}.feasibilityTolerance * std::max(std::sqrt(energy), largest);
  for (std::int64_t done = 0; done <= limit; ++done) {
    const Contact* most = nullptr;
    Scalar mostSpeed = -threshold;
    for (const Contact& c : contacts)
      if (unitSpeed(c) < mostSpeed) {
        mostSpeed = unitSpeed(c);
        most = &c;
      }
    if (!most) return done;
    const Scalar impulse = -2 * (vel(most->a) - vel(most->b)) / (inv(most->a) + inv(most->b));
    if (most->a >= 0) line.velocities[static_cast<std::size_t>(most->a)] += impulse * inv(most->a);
    if (most->b >= 0) line.velocities[static_cast<std::size_t>(most->b)] -= impulse * inv(most->b);
  }
  return limit + 1;
}

// The forecast may stop a propagation only if it would need more than the
// cap: checked against the test's own propagation over random lines of 2–6
// balls, masses over six decades, walls at either end (both: a clamp).
TEST(CapForecast, StopsOnlyPropagationsThatMissTheCap) {
  std::mt19937_64 rng(20261124);
  int foreseen = 0;
  int ended = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Line l;
    const int count = test::uniformInt(rng, 2, 6);
    for (int k = 0; k < count; ++k) {
      l.masses.push_back(std::pow(Scalar(10), test::uniform(rng, -3, 3)));
      l.velocities.push_back(test::uniform(rng, -1, 1));
    }
    l.wallLeft = test::uniformInt(rng, 0, 1) == 1;
    l.wallRight = test::uniformInt(rng, 0, 1) == 1;
    const ImpactProblem p = line(l.masses, l.velocities, l.wallLeft, l.wallRight);
    ImpactResolver resolver;
    const ImpactResult r = resolver.resolve(p);
    EXPECT_LE(r.energyAfter, r.energyBefore * (1 + kEnergy)) << "trial " << trial;
    if (!r.capForeseen) {
      ended += r.capHit ? 0 : 1;
      continue;
    }
    ++foreseen;
    EXPECT_LT(r.reflections, r.reflectionCap) << "trial " << trial;
    EXPECT_GT(naiveReflections(l, 2 * r.reflectionCap), r.reflectionCap)
        << "trial " << trial << ": the forecast stopped a propagation that ends within the cap";
  }
  EXPECT_GT(foreseen, 20);
  EXPECT_GT(ended, 100);
}

}  // namespace
}  // namespace propimpact
