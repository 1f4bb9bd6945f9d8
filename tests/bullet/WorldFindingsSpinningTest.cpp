// World fuzz findings of bodies that Bullet's pass held at one point a step
// while the rest of the body went into a static floor, replayed from the
// fuzzer's own input (tests/fuzz/world-corpus/): the world is built by
// tests/fuzz/WorldFuzzer.h, which reads its bytes in source order, so this
// build makes the fuzzer's world.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "../fuzz/WorldFuzzer.h"
#include "BulletTestSupport.h"

namespace propimpact {
namespace {

// The fuzzer's check: a body's top (its bounding box) more than 1 cm under the floor has gone through it.
constexpr btScalar kFloorTolerance = btScalar(0.01);

// tests/fuzz/world-corpus/world-capsule-see-sawing-on-one-end-sinks-in-bullets-pass-at-60-hz.
constexpr std::array<std::uint8_t, 137> kSeeSawingCapsule = {
    0x1c, 0x2e, 0x2b, 0xb8, 0x56, 0x9d, 0x80, 0x6c, 0x12, 0x51, 0xdc, 0xc9,
    0xbe, 0xe3, 0xff, 0xff, 0xff, 0xff, 0x0b, 0x0d, 0xd8, 0x0e, 0x71, 0xe0,
    0xfd, 0x3a, 0x22, 0x0c, 0x01, 0x00, 0x00, 0x00, 0x44, 0x20, 0x71, 0x89,
    0x7a, 0xa7, 0x0f, 0x0b, 0x0d, 0x04, 0xc3, 0x6e, 0xd8, 0x0e, 0x71, 0xe0,
    0xfd, 0x77, 0xb0, 0x76, 0x70, 0xeb, 0x94, 0x0b, 0xd5, 0x94, 0x0b, 0xd5,
    0x33, 0x5f, 0x97, 0x3d, 0xd8, 0x10, 0x20, 0x88, 0x75, 0x34, 0xa2, 0x0f,
    0x0b, 0x0d, 0x04, 0xc3, 0x6e, 0xd8, 0x0e, 0x71, 0xe0, 0x65, 0x77, 0xb0,
    0x76, 0x70, 0xeb, 0x94, 0x0b, 0xd5, 0x94, 0x0b, 0xd5, 0x33, 0x5f, 0x97,
    0xd5, 0x33, 0x5f, 0x97, 0x3d, 0xd8, 0x10, 0x20, 0x88, 0x75, 0x34, 0xa2,
    0x0f, 0x0b, 0x0d, 0x04, 0xc3, 0x6e, 0xd8, 0x0e, 0x71, 0xe0, 0xfd, 0x77,
    0xb0, 0x76, 0x70, 0xeb, 0x94, 0x0b, 0xd5, 0x94, 0x0b, 0xd5, 0xa5, 0x00,
    0x14, 0x0a, 0xbf, 0x82, 0x49
};

// tests/fuzz/world-corpus/world-spinning-compound-sinks-on-separating-points-at-60-hz.
constexpr std::array<std::uint8_t, 132> kSpinningCompound = {
    0x1c, 0x2e, 0x2b, 0xb8, 0x56, 0x9d, 0x12, 0x6c, 0xdc, 0x51, 0xc9, 0x80,
    0xbe, 0xe3, 0x89, 0x12, 0x44, 0x20, 0x88, 0x79, 0x42, 0x79, 0x42, 0x15,
    0x15, 0xbd, 0xbd, 0x57, 0xf1, 0x21, 0x00, 0x00, 0x3f, 0x20, 0xf6, 0xf7,
    0x2b, 0xb0, 0x22, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6,
    0x18, 0x01, 0x00, 0x00, 0x0e, 0xc7, 0xdd, 0x01, 0xe4, 0x88, 0x75, 0x34,
    0xc3, 0x0d, 0xa2, 0x0b, 0x6e, 0x33, 0x5f, 0x97, 0x3d, 0xaa, 0xd8, 0x61,
    0x9b, 0x91, 0xaa, 0xf9, 0x71, 0xa6, 0x55, 0x28, 0x89, 0xf5, 0x9e, 0x9b,
    0xd0, 0x9f, 0x6a, 0xfa, 0xbb, 0x26, 0xae, 0x04, 0x61, 0x31, 0x1e, 0xfb,
    0x19, 0x8b, 0x74, 0x36, 0x7e, 0x45, 0x88, 0x7d, 0x6b, 0x97, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x1e, 0xd8, 0x10, 0x1d, 0xb9, 0xb8, 0x2c,
    0x58, 0x6f, 0x0c, 0x2a, 0xfe, 0xff, 0xff, 0xff, 0x0a, 0x3a, 0x82, 0x49
};

/// Whether a contact of \p cluster has a body with a locked axis: the
/// fuzzer's check exempts such a cluster when the body moves along that axis
/// (prescribed motion, FuzzWorld.cpp); the capsule's world has a box that
/// spins about its locked x axis. Exempted here whenever a body has one.
bool touchesALockedBody(const ClusterReport& cluster) {
  const auto locked = [](const btCollisionObject* o) {
    const btRigidBody* b = btRigidBody::upcast(o);
    return b && (b->getLinearFactor() != btVector3(1, 1, 1) || b->getAngularFactor() != btVector3(1, 1, 1));
  };
  for (const ContactReport& c : cluster.contacts)
    if (locked(c.bodyA) || locked(c.bodyB)) return true;
  return false;
}

/// Steps the fuzzer's world as the fuzzer does (no kinematic body, no NaN in
/// these two) with its drop-in, or with stock Bullet's solver alone. Returns
/// the lowest top body \p watched reached; checks the drop-in's impact energies.
btScalar lowestTop(const std::uint8_t* data, std::size_t size, std::size_t watched, bool stockBullet) {
  fuzz::FuzzWorld w;
  fuzz::buildWorld(data, size, w);
  EXPECT_FALSE(w.hasKinematic);
  EXPECT_EQ(w.poisonStep, -1);
  btSequentialImpulseConstraintSolver stock;
  if (stockBullet) w.world.setConstraintSolver(&stock);
  const btRigidBody& body = *w.dynamic.at(watched);
  btScalar lowest = testing::top(body);
  for (int step = 0; step < w.substeps; ++step) {
    w.world.stepSimulation(w.dt, 1, w.dt);
    lowest = std::min(lowest, testing::top(body));
    if (stockBullet) continue;
    for (const ClusterReport& c : w.solver.lastStepReport().clusters) {
      if (touchesALockedBody(c)) continue;
      EXPECT_LE(c.energyAfter, c.energyBefore * (1 + testing::kEnergyTolerance) + 1e-300) << "step " << step;
    }
  }
  w.world.setConstraintSolver(&w.solver);  // the world must not keep a solver that dies first
  return lowest;
}

// World fuzz finding world-capsule-see-sawing-on-one-end-sinks-in-bullets-pass-at-60-hz:
// a 0.12 kg capsule (radius 5.5 cm, half-height 3.8 cm; inverse inertias
// 2,058, 39 and 74,106) lying on the floor at 60 Hz rocked from one end onto
// the other every substep. Its ends are closer than the contact breaking
// threshold plus its diameter, so each end's point counted as the same
// contact as the other's: persistent resting contact, arriving at 0.4–1.4
// m/s. Bullet's pass stopped each by turning the capsule (an end's effective
// mass is almost all rotational), which drove the other end down; the point
// was 1 cm deeper every substep and the capsule's top went under the floor at
// substep 88. The other end's point is a new vertex now: an impact, lifted
// out when it arrives deep.
TEST(WorldFindings, CapsuleSeeSawingOnOneEndDoesNotSinkInBulletsPassAt60Hz) {
  EXPECT_GT(lowestTop(kSeeSawingCapsule.data(), kSeeSawingCapsule.size(), 1, false), -kFloorTolerance);
}

// World fuzz finding world-spinning-compound-sinks-on-separating-points-at-60-hz:
// a 0.1 kg compound whose centre of mass lies 0.6 m under the children
// it stands on, spinning at 20–25 rad/s after a box hit it at substep 36.
// Bullet's pass stopped each child's point, but the spin's curvature carried
// it θ²/2·0.6 m ≈ 4.5 cm deeper every substep; the points (persistent contact
// of an impacted pair) were pushed out by Bullet's split impulse, which
// applies a tenth of its turn, so a tenth of that came out, and the top went
// under the floor at substep 43. Such an overlap with a static body now lifts
// the body out by translation.
TEST(WorldFindings, SpinningCompoundDoesNotSinkOnItsPointsAt60Hz) {
  EXPECT_GT(lowestTop(kSpinningCompound.data(), kSpinningCompound.size(), 2, false), -kFloorTolerance);
}

// What the fuzzer's oracle saw: stock Bullet, stepping the same worlds alone,
// keeps both bodies above the floor (it never rocked the capsule, nor spun
// the compound, as hard).
TEST(WorldFindings, StockBulletKeepsTheSeeSawingCapsuleAndTheSpinningCompoundAbove) {
  EXPECT_GT(lowestTop(kSeeSawingCapsule.data(), kSeeSawingCapsule.size(), 1, true), -kFloorTolerance);
  EXPECT_GT(lowestTop(kSpinningCompound.data(), kSpinningCompound.size(), 2, true), -kFloorTolerance);
}

}  // namespace
}  // namespace propimpact
