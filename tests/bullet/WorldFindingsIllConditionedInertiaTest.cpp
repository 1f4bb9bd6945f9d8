// World fuzz finding
// world-hull-of-inertia-ratio-4e8-floor-clusters-report-an-82-percent-gain-from-an-indefinite-inverted-inertia-at-240-hz:
// a 1.81 kg hull with inverse inertias 633.5, 1.43e-6 and 1.81e-6 (a ratio of
// 4.4e8), spinning at 81 rad/s about its easy axis, strikes the floor at
// substep 71 at 240 Hz. The core inverted Bullet's world inverse inertia by
// Cramer's rule, which at that condition number lost the easy axis's inertia
// (0.00158 kg·m²) entirely: it came out negative, the spin's energy −4.1 J,
// and a later cluster was reported as gaining 82 % (27.33 → 49.80 J) where
// each lost energy. The inertia now comes from the eigen-decomposition at
// such conditioning (RigidBlocks.cpp, keepInverseAccurate).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "../fuzz/WorldFuzzer.h"
#include "BulletTestSupport.h"
#include "WorldFindingFile.h"

namespace propimpact {
namespace {

constexpr const char* kStiffHull =
    "world-hull-of-inertia-ratio-4e8-floor-clusters-report-an-82-percent-gain-from-an-indefinite-inverted-inertia-at-240-hz";

TEST(WorldFindings, HullOfInertiaRatio4e8ReportsPositiveEnergiesAndNoGainingCluster) {
  const std::vector<std::uint8_t> bytes = testing::worldFinding(kStiffHull);
  fuzz::FuzzWorld w;
  fuzz::buildWorld(bytes.data(), bytes.size(), w);
  w.solver.settings().impactFriction = false;  // as found
  ASSERT_FALSE(w.hasKinematic);
  int clusters = 0, gaining = 0, negative = 0;
  for (int step = 0; step < w.substeps; ++step) {
    w.world.stepSimulation(w.dt, 1, w.dt);
    for (const ClusterReport& c : w.solver.lastStepReport().clusters) {
      ++clusters;
      if (!(c.energyBefore >= 0 && c.energyAfter >= 0)) ++negative;
      if (!(c.energyAfter <= c.energyBefore * (1 + testing::kEnergyTolerance) + 1e-300)) ++gaining;
    }
  }
  EXPECT_GT(clusters, 0);
  EXPECT_EQ(negative, 0) << "of " << clusters;
  EXPECT_EQ(gaining, 0) << "of " << clusters;
}

}  // namespace
}  // namespace propimpact
