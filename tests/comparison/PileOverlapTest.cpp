// `propimpact-compare pile-overlap` (issue 18, item 5): in an elastic pile
// ours keeps the mechanical energy where stock Bullet loses it, and its
// deepest overlaps are arrivals (no deeper than the pair's approach in that
// one step), which is what any bound on them has to act on.
#include <LinearMath/btScalar.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "CliSupport.h"
#include "Csv.h"

namespace propimpact::compare {
namespace {

using cli::runCompare;
using cli::tempPath;

/// Issue 18's bound for the elastic pile's energy. The step-end mechanical
/// energy of a bouncing ball oscillates by about m g v dt under Bullet's
/// semi-implicit Euler even when each bounce is exact (measured here: 1.6 %).
constexpr double kEnergyBand = 0.02;
/// Stock Bullet loses this much at least in the same 5 s (measured: 45 %).
constexpr double kStockLoss = 0.3;
/// Depth and travel are both measured from positions stored in btScalar in a
/// 12 m box: each is known to a few ulps of a 6 m coordinate (4.8e-7 m in
/// single precision, where a change that only adds resting rows moved the
/// deepest penetration 4e-8 m past its step's travel; 1e-15 m in double).
constexpr double kPositionRoundOff = 8 * std::numeric_limits<btScalar>::epsilon() * 6.0;

TEST(PileOverlap, ElasticPileKeepsItsEnergyAndItsDeepestOverlapsAreArrivals) {
  const std::string out = tempPath("pile_overlap.csv");
  ASSERT_EQ(runCompare("pile-overlap -q --count 200 --seconds 5 --window-start 0 --cor 1 "
                       "--solvers bullet-si,propagative -o " + out), 0);
  const Table t = readCsv(out);
  ASSERT_EQ(t.rows.size(), 2U);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (t.text(i, "solver") == "bullet-si") {
      EXPECT_LT(t.number(i, "energy_end") / t.number(i, "energy_start"), 1 - kStockLoss);
      continue;
    }
    EXPECT_GE(t.number(i, "energy_min_ratio"), 1 - kEnergyBand);
    EXPECT_LE(t.number(i, "energy_max_ratio"), 1 + kEnergyBand);
    EXPECT_GT(t.number(i, "deepest_overlap_m"), 0);
    EXPECT_LE(t.number(i, "deepest_overlap_m"), t.number(i, "overlap_step_travel_m") + kPositionRoundOff);
    EXPECT_LE(t.number(i, "deepest_penetration_m"), t.number(i, "penetration_step_travel_m") + kPositionRoundOff);
  }
}

}  // namespace
}  // namespace propimpact::compare
