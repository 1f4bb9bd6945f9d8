// World fuzz findings of bodies that Bullet's pass held at one point a step
// while the rest of the body went into a static floor, replayed from the
// fuzzer's own input (tests/fuzz/world-corpus/): the world is built by
// tests/fuzz/WorldFuzzer.h, which reads its bytes in source order, so this
// build makes the fuzzer's world.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../fuzz/WorldFuzzer.h"
#include "BulletTestSupport.h"
#include "WorldFindingFile.h"
#include "WorldFindingRun.h"

namespace propimpact {
namespace {

// The fuzzer's check: a body's top (its bounding box) more than 1 cm under the floor has gone through it.
constexpr btScalar kFloorTolerance = btScalar(0.01);

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

/// The lowest top body \p watched reaches over the fuzzer's run, with the
/// drop-in (whose impact energies are checked) or with stock Bullet alone.
btScalar lowestTop(const std::uint8_t* data, std::size_t size, std::size_t watched, bool stockBullet) {
  return testing::lowestTopOfFuzzWorld(data, size, watched, stockBullet, [](int step, const auto& solver) {
    for (const ClusterReport& c : solver.lastStepReport().clusters) {
      if (touchesALockedBody(c)) continue;
      EXPECT_LE(c.energyAfter, c.energyBefore * (1 + testing::kEnergyTolerance) + 1e-300) << "step " << step;
    }
  });
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
  const std::vector<std::uint8_t> seeSawingCapsule =
      testing::worldFinding("world-capsule-see-sawing-on-one-end-sinks-in-bullets-pass-at-60-hz");
  EXPECT_GT(lowestTop(seeSawingCapsule.data(), seeSawingCapsule.size(), 1, false), -kFloorTolerance);
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
  const std::vector<std::uint8_t> spinningCompound =
      testing::worldFinding("world-spinning-compound-sinks-on-separating-points-at-60-hz");
  EXPECT_GT(lowestTop(spinningCompound.data(), spinningCompound.size(), 2, false), -kFloorTolerance);
}

// World fuzz finding world-impact-spins-a-far-hull-point-through-the-floor-within-one-step-at-60-hz:
// a 4.28 kg hull whose points all coincide (a ball of its margin, 0.9 m from
// its centre of mass) meets the floor at 9 m/s at substep 77; the impact on
// that far point leaves it at 65 rad/s, and Bullet's integration of that one
// step turned it 1.09 rad, which carried the separating point 0.37 m into the
// floor: the whole body was under it at the end of the substep (out again at
// the next). An impacted body whose step would end a corner deeper than the
// slop in its plane is now lifted by that excess before Bullet integrates it.
TEST(WorldFindings, ImpactSpinningAFarHullPointDoesNotCarryItThroughTheFloorWithinAStepAt60Hz) {
  const std::vector<std::uint8_t> farHullPoint =
      testing::worldFinding("world-impact-spins-a-far-hull-point-through-the-floor-within-one-step-at-60-hz");
  EXPECT_GT(lowestTop(farHullPoint.data(), farHullPoint.size(), 2, false), -kFloorTolerance);
}

// What the fuzzer's oracle saw: stock Bullet, stepping the same worlds alone,
// keeps all three bodies above the floor. The fuzzer steps double-precision
// Bullet; single-precision stock Bullet sinks the capsule itself (its top
// 0.16 m under the floor), while the drop-in holds it in both builds.
TEST(WorldFindings, StockBulletKeepsTheSpinningAndRockingBodiesAbove) {
#ifdef BT_USE_DOUBLE_PRECISION
  const std::vector<std::uint8_t> seeSawingCapsule =
      testing::worldFinding("world-capsule-see-sawing-on-one-end-sinks-in-bullets-pass-at-60-hz");
  EXPECT_GT(lowestTop(seeSawingCapsule.data(), seeSawingCapsule.size(), 1, true), -kFloorTolerance);
#endif
  const std::vector<std::uint8_t> spinningCompound =
      testing::worldFinding("world-spinning-compound-sinks-on-separating-points-at-60-hz");
  EXPECT_GT(lowestTop(spinningCompound.data(), spinningCompound.size(), 2, true), -kFloorTolerance);
  const std::vector<std::uint8_t> farHullPoint =
      testing::worldFinding("world-impact-spins-a-far-hull-point-through-the-floor-within-one-step-at-60-hz");
  EXPECT_GT(lowestTop(farHullPoint.data(), farHullPoint.size(), 2, true), -kFloorTolerance);
}

}  // namespace
}  // namespace propimpact
