// Where the multibody kick is (issue 13, item 3): btMultiBodyDynamicsWorld
// adds a multibody's gravity before the solver runs, and the solver places
// the impact at mid-step by reconstructing that kick (KickMemory.h). A
// floating-base ball of restitution 1 dropped on static ground must then
// keep its apex bounce after bounce: 50 bounces at 240 Hz, every apex within
// 0.1 % of the drop height. Stock Bullet's multibody solver is printed.
#include <fmt/core.h>

#include <algorithm>
#include <vector>

#include "MultiBodyWorld.h"

namespace propimpact {
namespace {

constexpr double kDt = 1.0 / 240;
constexpr double kRadius = 0.5;
constexpr double kDropHeight = 10;  // centre above the ground's top
constexpr double kApexTolerance = 1e-3;

/// Centre heights at each apex (the step where the vertical velocity turns negative).
std::vector<double> apexes(bool propagative, int bounces, int* clusters) {
  testing::MultiBodyWorld w(propagative, btVector3(0, 0, btScalar(-9.81)));
  w.addGround(0);
  btMultiBody* ball = w.addBall(kRadius, 1, btVector3(0, 0, btScalar(kDropHeight)), btVector3(0, 0, 0));
  std::vector<double> result;
  double previous = 0;
  const int maxSteps = static_cast<int>(bounces * 3.0 / kDt);
  for (int k = 0; k < maxSteps && static_cast<int>(result.size()) < bounces; ++k) {
    const double height = ball->getBasePos().z();
    w.step(kDt);
    const double vz = ball->getBaseVel().z();
    if (previous > 0 && vz <= 0) result.push_back(std::max(height, double(ball->getBasePos().z())));
    previous = vz;
    if (propagative && clusters) *clusters += static_cast<int>(w.solver().lastStepReport().clusters.size());
  }
  return result;
}

TEST(MultiBodyBounce, ApexKeptOverFiftyBouncesAt240Hz) {
  int clusters = 0;
  const std::vector<double> ours = apexes(true, 50, &clusters);
  const std::vector<double> stock = apexes(false, 5, nullptr);
  ASSERT_EQ(ours.size(), 50u) << "the ball stopped bouncing";
  double worst = 0;
  for (const double apex : ours) worst = std::max(worst, std::abs(apex / kDropHeight - 1));
  fmt::print("multibody ball, 240 Hz: {} impacts, apex 1 {:.12f} m, apex 50 {:.12f} m, worst |apex/h0 - 1| {:.3e}; stock: {} apexes",
             clusters, ours.front(), ours.back(), worst, stock.size());
  for (const double apex : stock) fmt::print(" {:.4f}", apex);
  fmt::print("\n");
  EXPECT_EQ(clusters, 50);
  EXPECT_LE(worst, kApexTolerance);
}

}  // namespace
}  // namespace propimpact
