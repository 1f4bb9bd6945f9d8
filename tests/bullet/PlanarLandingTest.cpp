// Planar bodies (linear factor (1,1,0), angular factor (0,0,1)) landing flat on
// a static box floor (issue 3). A rod with I = mL²/12 puts its two end contacts
// at <û,v̂>_g = −1/2 (Thm 3): every order bounces it straight up. A square box
// puts them at −1/5: not unique, the orders spin it opposite ways, and the
// report's ξ equals the core's.
#include <fmt/core.h>

#include <cmath>
#include <propimpact/core/Resolve.h>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

constexpr double kHz = 240;
constexpr double kMass = 1;

struct Landing {
  btVector3 linear;
  btVector3 angular;
  double energyBefore = 0;  // kinetic, from the cluster report (mid-step)
  double energyAfter = 0;
  double xi = -1;
  UniquenessCertificate certificate = UniquenessCertificate::None;
  std::size_t contacts = 0;
};

// Drops a box of half extents \p half (inertia \p inertia about z when planar)
// flat from 0.2 m and returns its state right after the first impact.
Landing land(const btVector3& half, bool planar, const btVector3& inertia, OrderingPolicy order, bool xi) {
  scenes::World world("propagative");
  world.setGravity(btVector3(0, -9.81, 0));
  PropagativeImpactSolver& solver = testing::propagative(world);
  solver.settings().ordering = order;
  solver.settings().computeXi = xi;
  solver.settings().xiOrders = XiOrderSet::AllOrders;
  scenes::BodySpec floor;
  floor.mass = 0;
  floor.position = btVector3(0, -1, 0);
  floor.restitution = 1;
  world.addBox(btVector3(20, 1, 20), floor);
  scenes::BodySpec spec;
  spec.mass = kMass;
  spec.position = btVector3(0, half.y() + 0.2, 0);
  spec.restitution = 1;
  spec.friction = 0;
  if (planar) {
    spec.linearFactor = btVector3(1, 1, 0);
    spec.angularFactor = btVector3(0, 0, 1);
    spec.inertiaFromShape = false;
    spec.localInertia = inertia;
  }
  btRigidBody* body = world.addBox(half, spec);
  Landing out;
  for (int k = 0; k < static_cast<int>(2 * kHz); ++k) {
    world.step(1 / kHz);
    const StepReport& report = solver.lastStepReport();
    if (report.clusters.empty()) continue;
    const ClusterReport& cluster = report.clusters.front();
    out.linear = body->getLinearVelocity();
    out.angular = body->getAngularVelocity();
    out.energyBefore = cluster.energyBefore;
    out.energyAfter = cluster.energyAfter;
    out.xi = cluster.xiComputed ? cluster.xi : -1;
    out.certificate = cluster.certificate;
    out.contacts = cluster.contacts.size();
    return out;
  }
  ADD_FAILURE() << "no impact";
  return out;
}

constexpr double kLength = 2;
constexpr double kThickness = 0.05;

TEST(PlanarLanding, ThinRodBouncesStraightUpInEveryOrder) {
  const btVector3 half(kLength / 2, kThickness / 2, 0.1);
  const btVector3 inertia(1, 1, kMass * kLength * kLength / 12);  // only z matters: x, y are locked
  for (const OrderingPolicy order : {OrderingPolicy::MostApproaching, OrderingPolicy::LeastApproaching,
                                     OrderingPolicy::IndexOrder, OrderingPolicy::ReverseIndexOrder,
                                     OrderingPolicy::SeededRandom}) {
    const Landing l = land(half, true, inertia, order, false);
    EXPECT_GT(l.linear.y(), 1) << toString(order);
    EXPECT_NEAR(l.angular.z(), 0, 1e-9) << toString(order);
    EXPECT_NEAR(l.energyAfter, l.energyBefore, testing::kEnergyTolerance * l.energyBefore) << toString(order);
    EXPECT_EQ(l.certificate, UniquenessCertificate::ThirdOfPi) << toString(order);
  }
}

TEST(PlanarLanding, SquareBoxOrdersSpinOppositeWaysAndXiMatchesTheCore) {
  const double side = 1;
  const btVector3 half(side / 2, side / 2, side / 2);
  const double inertiaZ = kMass * side * side / 6;
  const btVector3 inertia(1, 1, inertiaZ);
  const Landing first = land(half, true, inertia, OrderingPolicy::IndexOrder, true);
  const Landing second = land(half, true, inertia, OrderingPolicy::ReverseIndexOrder, true);
  EXPECT_GT(std::abs(first.angular.z()), 0.1);
  EXPECT_NEAR(first.angular.z(), -second.angular.z(), 1e-9);
  EXPECT_NEAR(first.energyAfter, first.energyBefore, testing::kEnergyTolerance * first.energyBefore);
  EXPECT_NEAR(second.energyAfter, second.energyBefore, testing::kEnergyTolerance * second.energyBefore);
  EXPECT_EQ(first.certificate, UniquenessCertificate::None);

  // The same impact in the core: planar (x, y, θ), corners at (±a/2, −a/2).
  MatrixX M = MatrixX::Zero(3, 3);
  M.diagonal() << kMass, kMass, inertiaZ;
  MatrixX J(2, 3);
  J << 0, 1, -side / 2, 0, 1, side / 2;
  VectorX v(3);
  v << 0, -1, 0;
  ResolveOptions options;
  options.computeXi = true;
  options.xiOrders = XiOrderSet::AllOrders;
  const ImpactResult core = resolveDense(M, v, J, 1.0, options);
  EXPECT_NEAR(core.gram(0, 1), -0.2, 1e-12);
  EXPECT_GT(core.xi, 0.1);
  EXPECT_NEAR(first.xi, core.xi, 1e-6);
  fmt::print("planar square box landing flat: xi = {:.6f} (core {:.6f}), spin {:+.4f} / {:+.4f} rad/s\n", first.xi,
             core.xi, first.angular.z(), second.angular.z());
}

TEST(PlanarLanding, CubeLandingFlatIn3DIsReported) {
  const Landing l = land(btVector3(0.5, 0.5, 0.5), false, btVector3(0, 0, 0), OrderingPolicy::MostApproaching, true);
  EXPECT_EQ(l.contacts, 4u);
  EXPECT_NEAR(l.energyAfter, l.energyBefore, testing::kEnergyTolerance * l.energyBefore);
  EXPECT_GE(l.xi, 0);
  fmt::print("3-D cube landing flat: 4 contacts, xi = {:.6f} over all orders, certificate {}\n", l.xi,
             toString(l.certificate));
}

}  // namespace
}  // namespace propimpact
