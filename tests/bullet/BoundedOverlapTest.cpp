// Issue 18, item 5: overlap at impacts stays of the order of Bullet's contact
// margin and what remains is removed without adding energy. At 60 Hz a body
// travels up to v·dt (23 cm for a ball dropped from 10 m) in one step; it used
// to arrive that deep and be reflected from there. Now a speculative contact
// the step would close is reflected at once, and residual overlap of impacted
// pairs is pushed out through positions only (Bullet's split impulse).
#include <BulletCollision/CollisionShapes/btCollisionMargin.h>
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

constexpr double kHz = 60;
constexpr double kGravity = 9.81;  // scenes::Pile's and the drop's

struct Depths {
  double overlap = 0;      // deepest sphere–sphere overlap (m)
  double penetration = 0;  // deepest penetration into a static body (m)
};

void noteDepths(const scenes::World& world, Depths& depths) {
  for (const scenes::ContactSample& c : world.contacts()) {
    const bool bothDynamic = world.bodies()[static_cast<std::size_t>(c.bodyA)]->getInvMass() > 0 &&
                             world.bodies()[static_cast<std::size_t>(c.bodyB)]->getInvMass() > 0;
    double& deepest = bothDynamic ? depths.overlap : depths.penetration;
    deepest = std::max(deepest, -double(c.distance));
  }
}

double mechanicalEnergy(const scenes::World& world) {
  double energy = world.kineticEnergy();
  for (const btRigidBody* body : world.bodies())
    if (body->getInvMass() > 0) energy += kGravity * double(body->getCenterOfMassPosition().y()) / double(body->getInvMass());
  return energy;
}

TEST(BoundedOverlap, ElasticBallAt60HzStaysWithinTheMarginAndKeepsItsApex) {
  scenes::World world("propagative");
  world.setGravity(btVector3(0, btScalar(-kGravity), 0));
  scenes::BouncingBall scene;  // 10 m drop: 14 m/s at the floor, 23 cm per step
  const btRigidBody* ball = scenes::build(world, scene).bodies.front();
  Depths depths;
  double worstApex = 0, previous = 0;
  int apexes = 0;
  for (int k = 0; k < static_cast<int>(20 * 2.9 * kHz); ++k) {
    world.step(1 / kHz);
    noteDepths(world, depths);
    const double vy = ball->getLinearVelocity().y();
    if (previous > 0 && vy <= 0) {
      ++apexes;
      const double apex = ball->getWorldTransform().getOrigin().y() - scene.radius;
      // A step's height change near the apex is at most g·dt², so the sampled
      // apex lies within that of the true one.
      worstApex = std::max(worstApex, std::abs(apex - scene.height) - kGravity / (kHz * kHz));
    }
    previous = vy;
  }
  EXPECT_GE(apexes, 19);
  EXPECT_LE(worstApex, 0.01 * scene.height);  // BouncingBall's elastic tolerance
  EXPECT_LE(depths.penetration, CONVEX_DISTANCE_MARGIN);
  fmt::print("60 Hz COR 1 drop: deepest penetration {:.4f} m, worst apex error {:.4f} m over {} apexes\n",
             depths.penetration, worstApex, apexes);
}

struct PileRun {
  Depths depths;
  double minRatio = 1, maxRatio = 1;
};

PileRun runPile(const std::string& solver, double cor) {
  scenes::World world(solver);
  scenes::Pile scene;
  scene.count = 300;  // the pile: three layers, so spheres land on spheres
  scene.cor = cor;
  scenes::build(world, scene);
  PileRun run;
  const double start = mechanicalEnergy(world);
  for (int k = 1; k <= static_cast<int>(6 * kHz); ++k) {
    world.step(1 / kHz);
    const double ratio = mechanicalEnergy(world) / start;
    run.minRatio = std::min(run.minRatio, ratio);
    run.maxRatio = std::max(run.maxRatio, ratio);
    if (k >= static_cast<int>(3 * kHz)) noteDepths(world, run.depths);  // after the drop's first landings
  }
  return run;
}

// The measure on a shorter run (300 spheres, 6 s): deepest overlap and
// penetration no more than 1.5 × stock Bullet's, or 2 cm and 1 cm where stock's
// is smaller, and at COR 1 the mechanical energy within ±2 %.
TEST(BoundedOverlap, PileDepthsWithinStockBoundsAndElasticEnergyKept) {
  for (const double cor : {1.0, 0.8}) {
    const PileRun ours = runPile("propagative", cor);
    const PileRun stock = runPile("bullet-si", cor);
    EXPECT_LE(ours.depths.overlap, std::max(1.5 * stock.depths.overlap, 0.02)) << "COR " << cor;
    EXPECT_LE(ours.depths.penetration, std::max(1.5 * stock.depths.penetration, 0.01)) << "COR " << cor;
    if (cor == 1.0) {
      EXPECT_GE(ours.minRatio, 0.98);
      EXPECT_LE(ours.maxRatio, 1.02);
    }
    fmt::print("pile COR {}: overlap ours {:.4f} stock {:.4f} m, penetration ours {:.4f} stock {:.4f} m, "
               "energy ratio ours [{:.4f}, {:.4f}]\n",
               cor, ours.depths.overlap, stock.depths.overlap, ours.depths.penetration, stock.depths.penetration,
               ours.minRatio, ours.maxRatio);
  }
}

}  // namespace
}  // namespace propimpact
