// World fuzz findings of boxes that meet a static floor one corner at a time
// (Bullet's convex–plane contact keeps one point, the deepest vertex, in the
// box–plane manifold), rebuilt from the values the fuzzer's world
// construction gave (tests/fuzz/world-corpus/ holds the inputs): the bodies
// in the fuzzer's order, with its inverse masses and inverse inertias, so
// that the worlds step as the fuzzer's did.
#include <gtest/gtest.h>

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>

#include <memory>
#include <vector>

#include "BulletTestSupport.h"

namespace propimpact {
namespace {

/// What the fuzzer's generator gave one dynamic body.
struct FuzzedBody {
  btScalar inverseMass;
  btVector3 inverseInertia;  ///< principal, local
  btScalar restitution;
  btScalar friction;
  btScalar linearDamping;
  btVector3 position;
  btQuaternion orientation;
  btVector3 linearVelocity;
  btVector3 angularVelocity;
};

btRigidBody* addFuzzed(scenes::World& w, std::unique_ptr<btCollisionShape> shape, const FuzzedBody& f) {
  scenes::BodySpec spec;
  spec.mass = 1 / f.inverseMass;
  spec.inertiaFromShape = false;
  spec.localInertia = btVector3(1 / f.inverseInertia.x(), 1 / f.inverseInertia.y(), 1 / f.inverseInertia.z());
  spec.restitution = f.restitution;
  spec.friction = f.friction;
  spec.position = f.position;
  spec.orientation = f.orientation;
  spec.linearVelocity = f.linearVelocity;
  spec.angularVelocity = f.angularVelocity;
  btRigidBody* body = w.addBody(std::move(shape), spec);
  body->setInvInertiaDiagLocal(f.inverseInertia);  // the generator's values, not their reciprocal's reciprocal
  body->updateInertiaTensor();
  body->setDamping(f.linearDamping, 0);
  return body;
}

btScalar top(const btRigidBody& body) {
  btVector3 low, high;
  body.getCollisionShape()->getAabb(body.getWorldTransform(), low, high);
  return high.y();
}

/// Kinetic plus gravitational energy of every dynamic body (floor at y = 0).
double mechanicalEnergy(const scenes::World& w, btScalar gravity) {
  double energy = 0;
  for (const btRigidBody* b : w.bodies())
    if (b->getInvMass() > 0) energy += scenes::kineticEnergy(*b) + gravity * b->getCenterOfMassPosition().y() / b->getInvMass();
  return energy;
}

/// The fuzzer's world: a floor, the box and two spheres, 1/60 s substeps
/// under the fuzzer's gravity; checks every substep that the box stays above
/// the floor (the fuzzer's 1 cm tolerance), that no impact gains kinetic
/// energy and that the world's energy never exceeds what it started with.
/// Returns the impact clusters that involved the box.
int runCornerWorld(const btVector3& boxHalfExtents, const FuzzedBody& box, const std::vector<std::pair<btScalar, FuzzedBody>>& spheres,
                   btScalar floorRestitution, btScalar floorFriction, int substeps) {
  const btScalar gravity = btScalar(9.81f);  // the generator's float constant
  scenes::World w("propagative");
  w.setGravity(btVector3(0, -gravity, 0));
  scenes::BodySpec floor;
  floor.mass = 0;
  floor.restitution = floorRestitution;
  floor.friction = floorFriction;
  w.addBody(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), 0), floor);
  const btRigidBody& body = *addFuzzed(w, std::make_unique<btBoxShape>(boxHalfExtents), box);
  for (const auto& [radius, sphere] : spheres) addFuzzed(w, std::make_unique<btSphereShape>(radius), sphere);
  const double start = mechanicalEnergy(w, gravity);
  int impacts = 0;
  for (int step = 0; step < substeps; ++step) {
    w.step(1.0 / 60);
    for (const ClusterReport& c : testing::propagative(w).lastStepReport().clusters) {
      EXPECT_LE(c.energyAfter, c.energyBefore * (1 + testing::kEnergyTolerance) + 1e-300) << "step " << step;
      for (const btCollisionObject* o : c.bodies) impacts += o == &body;
    }
    EXPECT_LE(mechanicalEnergy(w, gravity), start * (1 + 1e-9)) << "step " << step;
    if (top(body) < btScalar(-0.01)) {
      ADD_FAILURE() << "step " << step << ": the box's top is at y = " << top(body) << ", under the floor";
      break;
    }
  }
  return impacts;
}

// World fuzz finding world-heavy-box-on-one-corner-sinks-at-60-hz: a 1e6 kg
// slab (1.6 × 1.8 × 0.18 m, frictionless) thrown at 17 m/s lands on its
// corners and rattles on them, spinning about the vertical. Each substep the
// one-point manifold holds another corner, which the adapter counted as
// persistent contact (a one-point manifold touching last pass, a rule for
// sphere manifolds rebuilt every frame): no impact from substep 185 on,
// Bullet's pass stopped one corner a step plastically, and the box's top went
// under the floor at substep 206. A new corner is now an impact; one that
// arrives deeper than the slop lifts the box out of the floor.
TEST(WorldFindings, HeavyBoxRattlingOnItsCornersStaysAboveTheFloor) {
  const FuzzedBody box{btScalar(9.9999999999999995e-07),
                       btVector3(btScalar(3.7329704198102112e-06), btScalar(4.7115508323145333e-06), btScalar(2.1069833540980541e-06)),
                       btScalar(0.89205767910276956), 0, 0,
                       btVector3(btScalar(-0.11167315175097281), btScalar(2.2526089773884257), btScalar(1.4959258411535821)),
                       btQuaternion(btScalar(0.49138866301298845), btScalar(0.30412370844238673), btScalar(0.75125846225820891),
                                    btScalar(-0.31883643880677909)),
                       btVector3(btScalar(-9.5917029244773229), btScalar(7.1494920803705639), btScalar(14.419749987106847)),
                       btVector3(btScalar(4.7622644388494697), btScalar(1.5017166399633786), btScalar(0.36461432822156081))};
  const FuzzedBody ball{btScalar(1.0453750839167393),
                        btVector3(btScalar(0.059307012798655565), btScalar(0.32279485487500975), btScalar(6.8933435375862215)),
                        btScalar(0.13369954985885404), btScalar(0.059052414740215151), btScalar(0.23030441748683908),
                        btVector3(btScalar(-0.86273746852826738), btScalar(0.91097955291065835), btScalar(-0.13424124513618674)),
                        btQuaternion(btScalar(-0.1607406545463034), btScalar(-0.6184997240468203), btScalar(0.45101919184964062),
                                     btScalar(0.62305876280919936)),
                        btVector3(btScalar(-0.01), btScalar(-0.01), btScalar(-0.01)), btVector3(0, 0, 0)};
  const FuzzedBody pebble{10, btVector3(btScalar(62499.999999999993), btScalar(62499.999999999993), btScalar(62499.999999999993)),
                          0, 0, 0, btVector3(btScalar(-1.5), btScalar(0.021), btScalar(-1.5)),
                          btQuaternion(btScalar(0.5), btScalar(0.5), btScalar(0.5), btScalar(0.5)),
                          btVector3(btScalar(-0.01), btScalar(-0.01), btScalar(-0.01)), btVector3(0, 0, 0)};
  const btVector3 half(btScalar(0.79275471122301056), btScalar(0.89183886472877083), btScalar(0.090955977721828035));
  // The fuzzer's 284 substeps, and as many again: the box must be held, not only slowed.
  const int impacts = runCornerWorld(half, box, {{btScalar(0.61573113603418017), ball}, {btScalar(0.02), pebble}},
                                     btScalar(0.61460288395513851), btScalar(0.4238345922026398), 2 * 284);
  EXPECT_GT(impacts, 0);
}

// World fuzz finding world-tumbling-box-sinks-through-the-floor-at-60-hz: a
// 2 kg slab (12 cm thick; its inertia about the thin axis 25 times below the
// others) lands on a corner at 4.7 m/s and tumbles at 20–40 rad/s, one
// corner a substep arriving 10–20 cm deep in the floor. The adapter counted
// each new corner as persistent contact (as above, and as a point of an
// impacted pair approaching again deeper than the slop), Bullet's pass held
// one corner a step, and the top went under the floor at substep 47. A new
// corner is now an impact, and one that arrived deeper than the slop lifts
// the box out by the excess.
TEST(WorldFindings, TumblingSlabLandingOnItsCornersStaysAboveTheFloor) {
  const FuzzedBody box{btScalar(0.49155191276533322),
                       btVector3(btScalar(97.722714481882761), btScalar(3.9864008665085855), btScalar(5.5344665530471451)),
                       btScalar(0.89024185549706258), 0, 0,
                       btVector3(btScalar(-0.92865644312199591), btScalar(1.5820641343223882), btScalar(-0.1685282673380637)),
                       btQuaternion(btScalar(-0.44807655202305469), btScalar(-0.39902682125112326), btScalar(0.73909558502710282),
                                    btScalar(0.30617432231132558)),
                       btVector3(btScalar(-0.067118127555205548), btScalar(-0.017333049528465771), btScalar(-0.053861712685975761)),
                       btVector3(0, 0, 0)};
  const FuzzedBody ball{btScalar(9.8701475231101643),
                        btVector3(btScalar(31.920573569743919), btScalar(31.920573569743919), btScalar(31.920573569743919)), 0, 0,
                        0, btVector3(btScalar(1.1955367360952165), btScalar(2.2337605401693752), btScalar(-1.2979858091096361)),
                        btQuaternion(btScalar(0.73525817593496567), btScalar(0.13693432018003204), btScalar(-0.56616665148248435),
                                     btScalar(-0.3465540786467971)),
                        btVector3(btScalar(-0.01), btScalar(-0.01), btScalar(-0.01)), btVector3(0, 0, 0)};
  const FuzzedBody pebble{10, btVector3(btScalar(62499.999999999993), btScalar(62499.999999999993), btScalar(62499.999999999993)),
                          0, 0, 0, btVector3(btScalar(-1.5), btScalar(0.021), btScalar(-1.5)),
                          btQuaternion(btScalar(0.5), btScalar(0.5), btScalar(0.5), btScalar(0.5)),
                          btVector3(btScalar(-0.01), btScalar(-0.01), btScalar(-0.01)), btVector3(0, 0, 0)};
  const btVector3 half(btScalar(0.058745403219653616), btScalar(0.51283375295643552), btScalar(0.60536812390325778));
  const int impacts = runCornerWorld(half, box, {{btScalar(0.8792178225375753), ball}, {btScalar(0.02), pebble}},
                                     btScalar(0.70672159914549482), btScalar(0.5574425879301137), 292);
  EXPECT_GT(impacts, 0);
}

}  // namespace
}  // namespace propimpact
