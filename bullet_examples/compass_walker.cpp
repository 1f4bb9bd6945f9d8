// A passive compass walker stepping down a slope, its heel strikes resolved
// by the propagative multibody solver (swapped in for
// btMultiBodyConstraintSolver). The walker is a btMultiBody: a floating-base
// hip and two legs on revolute joints about y, a foot ball at each leg's end;
// gravity, no motors. It is Goswami's compass gait (hip 10 kg, legs 5 kg with
// their mass half way down, 1 m, nearly point masses) on a 0.05 rad slope,
// started on its period-one limit cycle: just after a heel strike, stance leg
// at −0.2169 rad from the vertical, swinging forward at 1.0839 rad/s, swing
// leg at 0.3169 rad swinging at 0.3989 rad/s. These come from the pinned-foot
// compass-gait equations (a Newton search on the strike-to-strike map, whose
// eigenvalues 0.58, 0.58, 0.13 make the gait stable): the step takes 0.733 s
// and loses 5.17 J. The foot balls' rolling and Bullet's time step are
// perturbations the stable cycle absorbs: measured over 24 strikes at 480 Hz,
// steps take 0.708 to 0.750 s and the legs are 0.525 to 0.554 rad apart at
// each strike (the cycle's 0.5338); in float 0.717 to 0.748 s, 0.527 to 0.554 rad.
//
// A heel strike in the compass-gait model is plastic and sticking. Here the
// solver resolves its normal part (restitution 0, a frictionless impact that
// leaves the striking foot sliding forward), and Bullet's friction (μ = 1)
// then holds the new stance foot in its pass, in the same step or, when the
// foot was found a hair above the slope, the next one. The old stance foot
// lifts off by itself.
//
// The swing foot of a straight-legged walker scuffs the slope around
// mid-stance; as in the compass-gait model, it only gets contact response
// once it is ahead of the stance foot and clear of the slope.
//
// Every heel strike prints the solver's report (the strike's contacts,
// reflections, energies). The program exits non-zero unless the walker takes
// at least 20 heel strikes without falling, every impact cluster lost energy
// or kept it (E after ≤ E before) and left every contact of the strike
// feasible, and every strike's report meets the plastic impact's conditions
// (measured to 7.9e-16 of its energy in double, 1.0e-15 in float).
#include <btBulletDynamicsCommon.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <fmt/core.h>
#include <propimpact/bullet/PropagativeMultiBodySolver.h>
#include <propimpact/bullet/ReportFormat.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace {

constexpr btScalar kSlope = btScalar(0.05);  // rad, down towards +x
constexpr btScalar kLength = 1;              // hip to foot centre
constexpr btScalar kFoot = btScalar(0.02);   // foot ball radius
// Each foot is two balls, this far either side along y: a walker on a line of
// single balls falls over sideways once round-off tilts it (measured: its
// lateral offset grew tenfold per step and it fell at the 16th strike).
constexpr btScalar kFootSpread = btScalar(0.1);
constexpr btScalar kDt = btScalar(1.0 / 480);
constexpr int kStrikes = 20;
constexpr double kPlastic = 1e-9;  // the core works in double in both builds
// The limit cycle just after a heel strike (angles from the vertical, leaning
// the leg's foot towards −x positive, as Bullet's θ about +y).
constexpr btScalar kStance = btScalar(-0.21689577), kStanceRate = btScalar(1.08389422);
constexpr btScalar kSwing = btScalar(0.31689577), kSwingRate = btScalar(0.39888981);

const btVector3 kNormal(std::sin(kSlope), 0, std::cos(kSlope));  // the slope's
const btVector3 kDownhill(std::cos(kSlope), 0, -std::sin(kSlope));

btVector3 footCentre(btMultiBody& walker, int leg) {
  return walker.localPosToWorld(leg, btVector3(0, 0, -kLength / 2));
}

/// Height of a foot ball's lowest point above the slope (its surface passes through the origin).
btScalar clearance(btMultiBody& walker, int leg) { return footCentre(walker, leg).dot(kNormal) - kFoot; }

/// How far a strike's report is from the plastic impact's conditions
/// (SPEC §4, KKT): impulses ≥ 0, a loaded contact ends at separation 0, and
/// the energy lost is the impulses' work ½ Σ λ (J v⁻). With the impulses
/// applied through M⁻¹Jᵀ, as the solver writes them back, these are the KKT
/// conditions of the plastic velocity, which is unique (relative to E before).
double plasticResidual(const propimpact::ClusterReport& cluster) {
  double work = 0, worst = 0;
  for (const auto& contact : cluster.contacts) {
    if (contact.impulse < 0) return std::numeric_limits<double>::infinity();
    work += 0.5 * contact.impulse * contact.approachSpeed;
    worst = std::max(worst, std::abs(contact.impulse * contact.separationSpeed));
  }
  const double lost = cluster.energyBefore - cluster.energyAfter;
  return std::max(worst, std::abs(lost + work)) / cluster.energyBefore;
}

std::unique_ptr<btMultiBody> makeWalker() {
  // Hip 10 kg, legs 5 kg with their COM half way down. The hip is a point mass
  // in the compass-gait model; its inertia here does not enter the gait (no
  // joint transmits a torque about y to it), and with 0.01 (and single-ball
  // feet) its pitch rate grew from round-off about a hundredfold per step.
  auto walker = std::make_unique<btMultiBody>(2, btScalar(10), btVector3(1, 1, 1), false, false);
  const btScalar legInertia = btScalar(0.001);
  for (int leg = 0; leg < 2; ++leg)
    walker->setupRevolute(leg, 5, btVector3(legInertia, legInertia, legInertia), -1, btQuaternion::getIdentity(),
                          btVector3(0, 1, 0), btVector3(0, 0, 0), btVector3(0, 0, -kLength / 2), true);
  walker->finalizeMultiDof();
  walker->setHasSelfCollision(false);
  walker->setLinearDamping(0);
  walker->setAngularDamping(0);
  walker->setJointPos(0, kStance);
  walker->setJointPos(1, kSwing);
  walker->setJointVel(0, kStanceRate);
  walker->setJointVel(1, kSwingRate);
  // The stance foot touches the slope at the origin and rolls on it; the hip
  // moves with the stance leg's rotation about that point.
  const btVector3 stanceFoot = kFoot * kNormal;
  const btVector3 leg(std::sin(kStance), 0, std::cos(kStance));
  walker->setBasePos(stanceFoot + kLength * leg);
  const btVector3 legRate(std::cos(kStance), 0, -std::sin(kStance));
  walker->setBaseVel(kStanceRate * (kLength * legRate + kFoot * kDownhill));
  return walker;
}

/// The two feet: each two balls at the end of its leg.
struct Feet {
  btSphereShape ball{kFoot};
  btCompoundShape shapes[2];
  std::unique_ptr<btMultiBodyLinkCollider> colliders[2];

  Feet(btMultiBody& walker, btMultiBodyDynamicsWorld& world) {
    for (int leg = 0; leg < 2; ++leg) {
      for (const btScalar side : {-kFootSpread, kFootSpread})
        shapes[leg].addChildShape(btTransform(btQuaternion::getIdentity(), btVector3(0, side, -kLength / 2)), &ball);
      colliders[leg] = std::make_unique<btMultiBodyLinkCollider>(&walker, leg);
      colliders[leg]->setCollisionShape(&shapes[leg]);
      colliders[leg]->setRestitution(0);  // a plastic heel strike, as in the compass-gait model
      colliders[leg]->setFriction(1);
      walker.getLink(leg).m_collider = colliders[leg].get();
      world.addCollisionObject(colliders[leg].get(), btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter);
    }
    btAlignedObjectArray<btQuaternion> rotations;
    btAlignedObjectArray<btVector3> origins;
    walker.forwardKinematics(rotations, origins);
    walker.updateCollisionObjectWorldTransforms(rotations, origins);
  }
  /// Contact response for the stance foot always, for the swing foot once \p armed.
  void respond(int stanceLeg, bool armed) {
    for (int leg = 0; leg < 2; ++leg) {
      const int flags = colliders[leg]->getCollisionFlags() & ~btCollisionObject::CF_NO_CONTACT_RESPONSE;
      const bool on = leg == stanceLeg || armed;
      colliders[leg]->setCollisionFlags(on ? flags : flags | btCollisionObject::CF_NO_CONTACT_RESPONSE);
    }
  }
};

/// What the gait did, strike by strike.
struct Gait {
  int strikes = 0;
  double lastStrike = 0, shortestStep = 1e9, longestStep = 0, narrowest = 1e9, widest = 0, worstYaw = 0;
  double worstPlastic = 0;

  void strike(double time, double interLeg, const propimpact::ClusterReport& cluster) {
    ++strikes;
    worstPlastic = std::max(worstPlastic, plasticResidual(cluster));
    if (strikes > 1) {  // the first step starts at the initial condition, not at a strike
      shortestStep = std::min(shortestStep, time - lastStrike);
      longestStep = std::max(longestStep, time - lastStrike);
    }
    narrowest = std::min(narrowest, interLeg);
    widest = std::max(widest, interLeg);
    lastStrike = time;
  }
};

/// Whether an impact cluster is a strike of \p swingFoot (it holds one of its seeds).
bool struckBy(const propimpact::ClusterReport& cluster, const btCollisionObject* swingFoot) {
  for (const auto& contact : cluster.contacts)
    if ((contact.bodyA == swingFoot || contact.bodyB == swingFoot) && contact.seed) return true;
  return false;
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
  std::unique_ptr<btMultiBody> walker = makeWalker();
  world.addMultiBody(walker.get());
  Feet feet(*walker, world);

  Gait gait;
  int stanceLeg = 0;
  bool armed = false;  // the swing foot has passed the stance foot and cleared the slope
  bool ok = true;
  for (int step = 0; step < static_cast<int>(30 / kDt) && gait.strikes < kStrikes + 4; ++step) {
    const int swingLeg = 1 - stanceLeg;
    const bool ahead = footCentre(*walker, swingLeg).dot(kDownhill) > footCentre(*walker, stanceLeg).dot(kDownhill);
    armed = armed || (ahead && clearance(*walker, swingLeg) > 0);
    feet.respond(stanceLeg, armed);

    world.stepSimulation(kDt, 1, kDt);
    const double time = (step + 1) * double(kDt);
    const auto& report = solver.lastStepReport();
    for (const auto& cluster : report.clusters) {
      ok = ok && cluster.energyAfter <= cluster.energyBefore * (1 + 1e-9);
      for (const auto& contact : cluster.contacts) ok = ok && contact.separationSpeed >= -1e-6;
      if (!struckBy(cluster, feet.colliders[swingLeg].get())) continue;
      const double interLeg = std::abs(double(walker->getJointPos(0) - walker->getJointPos(1)));
      gait.strike(time, interLeg, cluster);
      fmt::print("t {:.3f} s, heel strike {} (leg {}), legs {:.4f} rad apart: {}\n", time, gait.strikes, swingLeg,
                 interLeg, report);
      stanceLeg = swingLeg;  // the heel strike hands the stance over
      armed = false;
    }
    // Bullet's sequential friction on the two-ball feet turns the walker a little.
    gait.worstYaw = std::max(gait.worstYaw, std::abs(double(btMatrix3x3(walker->getWorldToBaseRot()).getRow(0).y())));
    if (walker->getBasePos().dot(kNormal) < kLength / 2) {
      fmt::print("t {:.3f} s: the walker fell\n", time);
      break;
    }
  }
  ok = ok && gait.strikes >= kStrikes && gait.worstPlastic <= kPlastic;
  fmt::print("steps {:.3f} to {:.3f} s, legs {:.4f} to {:.4f} rad apart at the strikes, yaw within {:.4f} rad "
             "(compass-gait limit cycle: 0.733 s, 0.5338 rad)\n",
             gait.shortestStep, gait.longestStep, gait.narrowest, gait.widest, gait.worstYaw);
  fmt::print("{}: {} heel strikes (at least {}), every impact feasible and not gaining energy, every strike plastic "
             "to {:.1e} of its energy\n",
             ok ? "PASS" : "FAIL", gait.strikes, kStrikes, gait.worstPlastic);
  for (auto& foot : feet.colliders) world.removeCollisionObject(foot.get());
  world.removeMultiBody(walker.get());
  world.removeRigidBody(&slope);
  return ok ? 0 : 1;
}
