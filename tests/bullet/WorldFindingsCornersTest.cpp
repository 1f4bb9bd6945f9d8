// World fuzz findings of bodies that meet a static floor one corner (or one
// end) at a time (Bullet's convex–plane contact keeps one point, the deepest
// vertex, in the manifold), rebuilt from the values the fuzzer's world
// construction gave (tests/fuzz/world-corpus/ holds the inputs): the bodies
// in the fuzzer's order, with its inverse masses and inverse inertias, so
// that the worlds step as the fuzzer's did.
#include <gtest/gtest.h>

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
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

/// Kinetic plus gravitational energy of every dynamic body (floor at y = 0).
double mechanicalEnergy(const scenes::World& w, btScalar gravity) {
  double energy = 0;
  for (const btRigidBody* b : w.bodies())
    if (b->getInvMass() > 0) energy += scenes::kineticEnergy(*b) + gravity * b->getCenterOfMassPosition().y() / b->getInvMass();
  return energy;
}

using Bodies = std::vector<std::pair<std::unique_ptr<btCollisionShape>, FuzzedBody>>;

/// The fuzzer's world: a floor and \p bodies in the fuzzer's order, 1/60 s
/// substeps under the fuzzer's gravity; checks every substep that body
/// \p watched stays above the floor (the fuzzer's 1 cm tolerance), that no
/// impact gains kinetic energy and that the world's energy never exceeds
/// what it started with. Returns the impact clusters that moved \p watched.
int runFuzzedWorld(Bodies bodies, std::size_t watched, btScalar floorRestitution, btScalar floorFriction, int substeps) {
  const btScalar gravity = btScalar(9.81f);  // the generator's float constant
  scenes::World w("propagative");
  w.setGravity(btVector3(0, -gravity, 0));
  scenes::BodySpec floor;
  floor.mass = 0;
  floor.restitution = floorRestitution;
  floor.friction = floorFriction;
  w.addBody(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), 0), floor);
  const btRigidBody* body = nullptr;
  for (std::size_t k = 0; k < bodies.size(); ++k) {
    const btRigidBody* added = addFuzzed(w, std::move(bodies[k].first), bodies[k].second);
    if (k == watched) body = added;
  }
  const double start = mechanicalEnergy(w, gravity);
  int impacts = 0;
  for (int step = 0; step < substeps; ++step) {
    w.step(1.0 / 60);
    for (const ClusterReport& c : testing::propagative(w).lastStepReport().clusters) {
      EXPECT_LE(c.energyAfter, c.energyBefore * (1 + testing::kEnergyTolerance) + 1e-300) << "step " << step;
      for (const btCollisionObject* o : c.bodies) impacts += o == body;
    }
    EXPECT_LE(mechanicalEnergy(w, gravity), start * (1 + 1e-9)) << "step " << step;
    if (testing::top(*body) < btScalar(-0.01)) {
      ADD_FAILURE() << "step " << step << ": the body's top is at y = " << testing::top(*body) << ", under the floor";
      break;
    }
  }
  return impacts;
}

/// The fuzzer's default last bodies: 0.1 kg balls of 2 cm resting in a corner of the world.
FuzzedBody pebble() {
  return FuzzedBody{10, btVector3(btScalar(62499.999999999993), btScalar(62499.999999999993), btScalar(62499.999999999993)),
                    0, 0, 0, btVector3(btScalar(-1.5), btScalar(0.021), btScalar(-1.5)),
                    btQuaternion(btScalar(0.5), btScalar(0.5), btScalar(0.5), btScalar(0.5)),
                    btVector3(btScalar(-0.01), btScalar(-0.01), btScalar(-0.01)), btVector3(0, 0, 0)};
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
  Bodies bodies;
  bodies.emplace_back(std::make_unique<btBoxShape>(
                          btVector3(btScalar(0.79275471122301056), btScalar(0.89183886472877083), btScalar(0.090955977721828035))),
                      box);
  bodies.emplace_back(std::make_unique<btSphereShape>(btScalar(0.61573113603418017)), ball);
  bodies.emplace_back(std::make_unique<btSphereShape>(btScalar(0.02)), pebble());
  // The fuzzer's 284 substeps, and as many again: the box must be held, not only slowed.
  const int impacts = runFuzzedWorld(std::move(bodies), 0, btScalar(0.61460288395513851), btScalar(0.4238345922026398), 2 * 284);
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
  Bodies bodies;
  bodies.emplace_back(std::make_unique<btBoxShape>(
                          btVector3(btScalar(0.058745403219653616), btScalar(0.51283375295643552), btScalar(0.60536812390325778))),
                      box);
  bodies.emplace_back(std::make_unique<btSphereShape>(btScalar(0.8792178225375753)), ball);
  bodies.emplace_back(std::make_unique<btSphereShape>(btScalar(0.02)), pebble());
  const int impacts = runFuzzedWorld(std::move(bodies), 0, btScalar(0.70672159914549482), btScalar(0.5574425879301137), 292);
  EXPECT_GT(impacts, 0);
}


// Found by the 120 s world run after the fix above
// (world-capsule-rocking-on-its-ends-sinks-at-60-hz): a 0.17 kg capsule
// (radius 8.8 cm, ends 81.5 cm apart; inverse inertias 584, 1,137 and 70)
// lying on the floor rocks from one end to the other, one end a substep
// 16–18 cm deep, and each new end counted as persistent contact (capsules
// were not asked whether a point is new): it sank at 0.7–0.9 m/s until its
// top went under the floor at substep 30. A capsule's other end is a new
// vertex as a box's other corner is.
TEST(WorldFindings, CapsuleRockingOnItsEndsStaysAboveTheFloor) {
  const FuzzedBody slab{btScalar(0.1447492974353892),
                        btVector3(btScalar(5.4034484561461789e-07), btScalar(0.68199367280865175), btScalar(10.983571450602629)),
                        btScalar(0.60695811398489352), btScalar(1.4643396658274204), 0,
                        btVector3(btScalar(-0.17512016479743653), btScalar(4.1718591490524224), btScalar(0.56797894254978232)),
                        btQuaternion(btScalar(0.57527113864072377), btScalar(0.58853024294688205), btScalar(-0.34310682206426363),
                                     btScalar(-0.45273941604067458)),
                        btVector3(btScalar(-0.8162785138056996), btScalar(2.2902783810378464), btScalar(1.7622517133590574)),
                        btVector3(0, 0, 0)};
  const FuzzedBody capsule{btScalar(5.9285126949796441),
                           btVector3(btScalar(583.7690614501787), btScalar(1137.4301143606215), btScalar(70.083939567102519)),
                           btScalar(1.5259021896696422e-05), btScalar(0.39844357976653699), 0,
                           btVector3(btScalar(-1.5), btScalar(0.49694003204394599), btScalar(-1.5)),
                           btQuaternion(btScalar(0.4943725998220917), btScalar(-0.055601326789179617), btScalar(0.13786765823215469),
                                        btScalar(0.85644423859233865)),
                           btVector3(btScalar(-0.0015186556461446177), btScalar(-0.0099697807206105878), btScalar(0.0084974161077592172)),
                           btVector3(btScalar(1.8932631418326085), btScalar(-0.60692759594110024), btScalar(0.81719691767757729))};
  const FuzzedBody heavy{btScalar(1.8266767768735646e-06),
                         btVector3(btScalar(6.7608182952394889e-06), btScalar(1.0984362282250779e-05), btScalar(1.346179383212247e-05)),
                         btScalar(0.54335851071946284), btScalar(0.0058365758754863814), 0,
                         btVector3(btScalar(-1.0273517967498282), btScalar(3.8038761632039111), btScalar(0.32366674296177589)),
                         btQuaternion(btScalar(-0.22755687063900101), btScalar(0.13287293145997756), btScalar(0.91999950180813528),
                                      btScalar(0.29010958512775814)),
                         btVector3(btScalar(-0.01), btScalar(0.0068844129091325248), btScalar(-0.0077294575417715733)),
                         btVector3(btScalar(-1.5343709468223088), btScalar(-4.5143053330281528), btScalar(-2.7279316395819029))};
  Bodies bodies;
  bodies.emplace_back(std::make_unique<btBoxShape>(
                          btVector3(btScalar(0.79275471122301056), btScalar(0.89183886472877083), btScalar(0.090955977721828035))),
                      slab);
  bodies.emplace_back(std::make_unique<btCapsuleShape>(btScalar(0.088421149004348817), btScalar(2 * 0.40751888303959716)), capsule);
  bodies.emplace_back(std::make_unique<btBoxShape>(
                          btVector3(btScalar(0.21842252231631951), btScalar(0.59947631036850535), btScalar(0.67170336461432822))),
                      heavy);
  runFuzzedWorld(std::move(bodies), 1, btScalar(0.61460288395513851), btScalar(0.4238345922026398), 284);
}

}  // namespace
}  // namespace propimpact
