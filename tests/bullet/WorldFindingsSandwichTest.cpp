// World fuzz finding of a light body between a heavy one and a static floor,
// replayed from the fuzzer's own input (tests/fuzz/world-corpus/): the world
// is built by tests/fuzz/WorldFuzzer.h, which reads its bytes in source
// order, so this build makes the fuzzer's world.
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
constexpr const char* kSandwich = "world-sphere-among-a-locked-box-top-1cm-under-the-floor-at-substep-262-at-60-hz";
// The fuzzer's body 3: the sphere the box lies on.
constexpr std::size_t kSphere = 3;

/// The lowest top the sphere reaches over the fuzzer's run, stepped with the
/// drop-in or with stock Bullet's solver alone.
btScalar lowestSphereTop(bool stockBullet) {
  const std::vector<std::uint8_t> bytes = testing::worldFinding(kSandwich);
  return testing::lowestTopOfFuzzWorld(bytes.data(), bytes.size(), kSphere, stockBullet, [](int, const auto&) {});
}

// World fuzz finding
// world-sphere-among-a-locked-box-top-1cm-under-the-floor-at-substep-262-at-60-hz:
// a 9.6 kg box spinning at 5.8 rad/s about its locked vertical axis comes to
// lie on a 0.1 kg sphere of 2 cm on the floor (substep 241). The sphere–box
// manifold gets a new point every frame (the box turns under the sphere by
// more than the breaking threshold), so Bullet's pass started that contact
// from zero every substep, and its 10 iterations could not carry the box's
// load through the sphere (a 96:1 mass ratio): the sphere left each pass at
// up to 0.44 m/s into the floor, its top 1.04 cm under it at substep 262.
// The contact is warm-started from the manifold's impulse of the last pass.
TEST(WorldFindings, SphereUnderASpinningLockedBoxIsNotPressedThroughTheFloorAt60Hz) {
  EXPECT_GT(lowestSphereTop(false), -kFloorTolerance);
}

// What the fuzzer's oracle saw: stock Bullet, stepping the same world alone,
// keeps the sphere above (on its own trajectory the box never lies on it; the
// box itself goes through the floor there). The fuzzer steps double-precision
// Bullet.
TEST(WorldFindings, StockBulletKeepsTheSphereOfTheSpinningLockedBoxAbove) {
#ifdef BT_USE_DOUBLE_PRECISION
  EXPECT_GT(lowestSphereTop(true), -kFloorTolerance);
#else
  GTEST_SKIP() << "the fuzzer's oracle is double-precision Bullet";
#endif
}

}  // namespace
}  // namespace propimpact
