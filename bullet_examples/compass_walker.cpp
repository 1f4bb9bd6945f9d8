// A compass walker stepping down a slope, its heel strikes resolved by the
// propagative multibody solver (swapped in for btMultiBodyConstraintSolver).
// The walker is a btMultiBody: a floating-base hip and two legs on revolute
// joints about y, a foot ball at each leg's end; gravity, no motors. A
// straight-legged walker's swing foot would scuff the slope at mid-stance;
// as in the compass-gait model, the swing foot only collides once it is
// ahead of the stance foot (its collider gets contact response then).
//
// Every step with an impact prints the solver's report (the strike's
// contacts, reflections, energies). The example is a demonstration, not a
// tuned limit cycle: from this start it takes four steps in 1.3 s and then
// falls (measured; a passive gait needs initial conditions on its limit
// cycle, which this example does not search for). It exits
// non-zero unless at least two heel strikes happened and every impact
// cluster lost energy or kept it (E after ≤ E before) and left every
// contact of the strike feasible.
#include <btBulletDynamicsCommon.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <fmt/core.h>
#include <propimpact/bullet/PropagativeMultiBodySolver.h>
#include <propimpact/bullet/ReportFormat.h>

#include <cmath>
#include <memory>

namespace {

constexpr btScalar kSlope = btScalar(0.05);   // rad, down towards +x
constexpr btScalar kLength = 1;               // hip to foot centre
constexpr btScalar kFoot = btScalar(0.02);    // foot ball radius
constexpr btScalar kDt = btScalar(1.0 / 480);

/// Position of a foot's centre along the slope (down-slope coordinate).
btScalar alongSlope(const btVector3& p) { return p.x() * std::cos(kSlope) - p.z() * std::sin(kSlope); }

btVector3 footCentre(btMultiBody& walker, int leg) {
  return walker.localPosToWorld(leg, btVector3(0, 0, -kLength / 2));
}

}  // namespace

int main() {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btDbvtBroadphase broadphase;
  propimpact::PropagativeMultiBodySolver solver;  // the only change from stock Bullet
  btMultiBodyDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  world.setGravity(btVector3(0, 0, btScalar(-9.81)));

  // The slope: a static box tilted about y, its top surface through the origin.
  btBoxShape slopeShape(btVector3(50, 5, 1));
  const btQuaternion tilt(btVector3(0, 1, 0), kSlope);
  btDefaultMotionState slopeMotion(btTransform(tilt, btMatrix3x3(tilt) * btVector3(0, 0, -1)));
  btRigidBody slope(btRigidBody::btRigidBodyConstructionInfo(0, &slopeMotion, &slopeShape));
  slope.setRestitution(0);
  slope.setFriction(1);
  world.addRigidBody(&slope);

  // Hip 10 kg (a point mass in the compass-gait model), legs 5 kg with their COM half way down.
  auto walker = std::make_unique<btMultiBody>(2, btScalar(10), btVector3(btScalar(0.01), btScalar(0.01), btScalar(0.01)),
                                              false, false);
  for (int leg = 0; leg < 2; ++leg)
    walker->setupRevolute(leg, 5, btVector3(btScalar(0.42), btScalar(0.42), btScalar(0.01)), -1,
                          btQuaternion::getIdentity(), btVector3(0, 1, 0), btVector3(0, 0, 0),
                          btVector3(0, 0, -kLength / 2), true);
  walker->finalizeMultiDof();
  walker->setHasSelfCollision(false);
  walker->setLinearDamping(0);
  walker->setAngularDamping(0);
  // Stance leg (0) leaning forward over its foot, swing leg (1) behind; the
  // hip moving forward and the stance leg vaulting.
  const btScalar stance = btScalar(-0.2), swing = btScalar(0.25);  // θ about +y: negative leans the leg's foot to +x
  walker->setJointPos(0, stance);
  walker->setJointPos(1, swing);
  const btScalar footX = -kLength * std::sin(stance);  // the stance foot rests on the slope: z = −x tan(slope)
  walker->setBasePos(btVector3(0, 0, kLength * std::cos(stance) + kFoot / std::cos(kSlope) - footX * std::tan(kSlope)));
  walker->setBaseVel(btVector3(btScalar(0.8), 0, 0));
  walker->setJointVel(0, btScalar(-0.8) / kLength);
  walker->setJointVel(1, btScalar(-2.5));  // the swing leg thrown forward
  world.addMultiBody(walker.get());
  btSphereShape footShape(kFoot);
  btCompoundShape legShapes[2];
  std::unique_ptr<btMultiBodyLinkCollider> feet[2];
  for (int leg = 0; leg < 2; ++leg) {
    legShapes[leg].addChildShape(btTransform(btQuaternion::getIdentity(), btVector3(0, 0, -kLength / 2)), &footShape);
    feet[leg] = std::make_unique<btMultiBodyLinkCollider>(walker.get(), leg);
    feet[leg]->setCollisionShape(&legShapes[leg]);
    feet[leg]->setRestitution(0);  // a plastic heel strike, as in the compass-gait model
    feet[leg]->setFriction(1);
    walker->getLink(leg).m_collider = feet[leg].get();
    world.addCollisionObject(feet[leg].get(), btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter);
  }
  btAlignedObjectArray<btQuaternion> rotations;
  btAlignedObjectArray<btVector3> origins;
  walker->forwardKinematics(rotations, origins);
  walker->updateCollisionObjectWorldTransforms(rotations, origins);

  int stanceLeg = 0, strikes = 0;
  bool ok = true;
  for (int step = 0; step < 480 * 4; ++step) {
    // Foot clearance: the swing foot collides only once it is ahead of the stance foot.
    const int swingLeg = 1 - stanceLeg;
    const bool ahead = alongSlope(footCentre(*walker, swingLeg)) > alongSlope(footCentre(*walker, stanceLeg));
    btMultiBodyLinkCollider& swingFoot = *feet[swingLeg];
    const int flags = swingFoot.getCollisionFlags() & ~btCollisionObject::CF_NO_CONTACT_RESPONSE;
    swingFoot.setCollisionFlags(ahead ? flags : flags | btCollisionObject::CF_NO_CONTACT_RESPONSE);
    feet[stanceLeg]->setCollisionFlags(feet[stanceLeg]->getCollisionFlags() & ~btCollisionObject::CF_NO_CONTACT_RESPONSE);

    world.stepSimulation(kDt, 1, kDt);
    const auto& report = solver.lastStepReport();
    for (const auto& cluster : report.clusters) {
      ok = ok && cluster.energyAfter <= cluster.energyBefore * (1 + 1e-9);
      for (const auto& contact : cluster.contacts) ok = ok && contact.separationSpeed >= -1e-6;
      bool swingStruck = false;
      for (const auto& contact : cluster.contacts)
        swingStruck = swingStruck || ((contact.bodyA == &swingFoot || contact.bodyB == &swingFoot) && contact.seed);
      if (swingStruck) {
        ++strikes;
        stanceLeg = swingLeg;  // the heel strike hands the stance over
        fmt::print("t {:.3f} s, heel strike {} (leg {}): {}\n", step * double(kDt), strikes, swingLeg, report);
      }
    }
    if (walker->getBasePos().z() < alongSlope(walker->getBasePos()) * -std::tan(kSlope) + kLength / 3) {
      fmt::print("t {:.3f} s: the walker fell\n", step * double(kDt));
      break;
    }
  }
  ok = ok && strikes >= 2;
  fmt::print("{}: {} heel strikes, every impact feasible and not gaining energy\n", ok ? "PASS" : "FAIL", strikes);
  for (auto& foot : feet) world.removeCollisionObject(foot.get());
  world.removeMultiBody(walker.get());
  world.removeRigidBody(&slope);
  return ok ? 0 : 1;
}
