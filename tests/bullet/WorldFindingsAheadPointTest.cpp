// World fuzz finding of bodies stopped by an impact on points of the
// adapter's own (ahead points, AheadGeometry.h), replayed from the fuzzer's
// own input (tests/fuzz/world-corpus/): the world is built by
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
constexpr const char* kStruckSphere =
    "world-heavy-locked-box-onto-four-spheres-presses-one-2.5cm-under-the-floor-at-substep-0-at-60-hz";
// The fuzzer's bodies 2 to 4: the small spheres under the large one (body 1); it flagged body 4.
constexpr std::size_t kFirstSmallSphere = 2;
constexpr std::size_t kLastSmallSphere = 4;

/// The lowest top any small sphere reaches over the fuzzer's run, stepped
/// with the drop-in or with stock Bullet's solver alone.
btScalar lowestSmallSphereTop(bool stockBullet) {
  const std::vector<std::uint8_t> bytes = testing::worldFinding(kStruckSphere);
  btScalar lowest = BT_LARGE_FLOAT;
  for (std::size_t sphere = kFirstSmallSphere; sphere <= kLastSmallSphere; ++sphere)
    lowest = std::min(lowest, testing::lowestTopOfFuzzWorld(bytes.data(), bytes.size(), sphere, stockBullet,
                                                            [](int, const auto&) {}));
  return lowest;
}

// World fuzz finding
// world-heavy-locked-box-onto-four-spheres-presses-one-2.5cm-under-the-floor-at-substep-0-at-60-hz:
// at 60 Hz a 9.6 kg box at 28 m/s strikes a 0.1 kg sphere of 1 m radius
// whose bottom (1 mm above the floor) overlaps three coincident 0.1 kg spheres
// of 2 cm, each 1 mm above the floor too. Bullet has no point for a small sphere 1 mm from the floor (its
// breaking threshold is a fraction of a millimetre), so the adapter's own
// ahead points stand for those contacts. In substep 0 a plastic impact
// pushes the small spheres down at 9.8 m/s and a second one stops them on
// their ahead points; Bullet's pass, which did not see those points, then
// carried the box's load through the large sphere's overlapping rows into the
// small spheres and sent them into the floor (at up to 2.6 m/s, after a
// 2.2 cm push): one's top ended 2.46 cm under it. An ahead point that an
// impact leaves in contact now goes into Bullet's pass (RestingPass::admit).
TEST(WorldFindings, SpheresStoppedOnTheirAheadFloorPointsAreNotPressedThroughTheFloorAt60Hz) {
  EXPECT_GT(lowestSmallSphereTop(false), -kFloorTolerance);
}

// What the fuzzer's oracle saw: stock Bullet, stepping the same world alone,
// keeps the small spheres above. The fuzzer steps double-precision Bullet.
TEST(WorldFindings, StockBulletKeepsTheSpheresUnderTheStruckSphereAbove) {
#ifdef BT_USE_DOUBLE_PRECISION
  EXPECT_GT(lowestSmallSphereTop(true), -kFloorTolerance);
#else
  GTEST_SKIP() << "the fuzzer's oracle is double-precision Bullet";
#endif
}

}  // namespace
}  // namespace propimpact
