// Ten boxes stacked on a static ground box, gravity on, 60 Hz, for 10 s, with
// the propagative impact solver. The solver classifies the stack's contacts
// as resting (their approach is what one step of gravity produces, the Zeno
// rule), hands them to Bullet's own sequential-impulse pass, and the stack
// stands as it does with Bullet's stock solver: no micro-bounces, no energy
// gained. (In single precision a rocking box's new contact point can land
// just above that threshold and be resolved as a plastic impact of a few
// cm/s: still no bounce and no energy; anything faster would be a real
// impact and fails the check.) Prints height, kinetic energy and energy
// change once a second; exits non-zero on an impact faster than one step of
// gravity, on energy gain or on sag.
#include <btBulletDynamicsCommon.h>
#include <fmt/core.h>
#include <propimpact/bullet/PropagativeImpactSolver.h>
#include <propimpact/bullet/StepReport.h>

#include <algorithm>
#include <memory>
#include <vector>

int main() {
  constexpr int kBoxes = 10;
  constexpr double kHz = 60;
  constexpr double kGravity = 9.81;
  // Round-off of a ~500 J total at Bullet's precision.
  constexpr double kTolerance = sizeof(btScalar) == 8 ? 1e-9 : 1e-5;

  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btDbvtBroadphase broadphase;
  propimpact::PropagativeImpactSolver solver;
  btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  world.setGravity(btVector3(0, btScalar(-kGravity), 0));

  btBoxShape groundShape(btVector3(20, 1, 20));
  btRigidBody::btRigidBodyConstructionInfo groundInfo(0, nullptr, &groundShape);
  groundInfo.m_startWorldTransform.setOrigin(btVector3(0, -1, 0));  // top face at y = 0
  groundInfo.m_friction = btScalar(0.5);
  btRigidBody ground(groundInfo);
  world.addRigidBody(&ground);

  // Unit boxes, 1 kg, touching face to face; restitution 0 (a stack is not bouncy).
  btBoxShape boxShape(btVector3(btScalar(0.5), btScalar(0.5), btScalar(0.5)));
  btVector3 inertia;
  boxShape.calculateLocalInertia(1, inertia);
  std::vector<std::unique_ptr<btRigidBody>> boxes;
  for (int i = 0; i < kBoxes; ++i) {
    btRigidBody::btRigidBodyConstructionInfo info(1, nullptr, &boxShape, inertia);
    info.m_startWorldTransform.setOrigin(btVector3(0, btScalar(0.5 + i), 0));
    info.m_friction = btScalar(0.5);
    boxes.push_back(std::make_unique<btRigidBody>(info));
    boxes.back()->setActivationState(DISABLE_DEACTIVATION);  // measure, don't let it sleep
    world.addRigidBody(boxes.back().get());
  }

  const auto kinetic = [&] {
    double energy = 0;
    for (const auto& box : boxes) {
      const btVector3 w = box->getAngularVelocity() * box->getWorldTransform().getBasis();  // body axes
      energy += 0.5 * double(box->getLinearVelocity().length2()) +
                0.5 * double(w.x() * w.x() * inertia.x() + w.y() * w.y() * inertia.y() + w.z() * w.z() * inertia.z());
    }
    return energy;
  };
  const auto total = [&] {
    double potential = 0;
    for (const auto& box : boxes) potential += kGravity * box->getWorldTransform().getOrigin().y();
    return kinetic() + potential;
  };
  const double initial = total();

  fmt::print("{:>8} {:>14} {:>16} {:>18}\n", "time (s)", "top box y (m)", "kinetic (J)", "energy change (J)");
  int impacts = 0;
  double fastestApproach = 0;  // of any contact treated as an impact (m/s)
  double worstGain = 0;
  double lowestTop = 1e9;
  for (int step = 1; step <= static_cast<int>(10 * kHz); ++step) {
    world.stepSimulation(btScalar(1 / kHz), 1, btScalar(1 / kHz));
    for (const propimpact::ClusterReport& cluster : solver.lastStepReport().clusters) {
      ++impacts;
      for (const propimpact::ContactReport& contact : cluster.contacts)
        fastestApproach = std::max(fastestApproach, -contact.approachSpeed);
    }
    worstGain = std::max(worstGain, total() - initial);
    const double top = boxes.back()->getWorldTransform().getOrigin().y();
    lowestTop = std::min(lowestTop, top);
    if (step % static_cast<int>(kHz) == 0)
      fmt::print("{:>8.1f} {:>14.6f} {:>16.3e} {:>18.3e}\n", step / kHz, top, kinetic(), total() - initial);
  }
  const bool ok = fastestApproach <= kGravity / kHz && worstGain <= kTolerance * initial && lowestTop > kBoxes - 0.5 - 0.05;
  fmt::print("{} impacts (fastest approach {:.3f} m/s, one step of gravity is {:.3f}), worst energy gain {:.3e} J, "
             "lowest top {:.4f} m: {}\n",
             impacts, fastestApproach, kGravity / kHz, worstGain, lowestTop, ok ? "PASS" : "FAIL");
  for (auto& box : boxes) world.removeRigidBody(box.get());
  world.removeRigidBody(&ground);
  return ok ? 0 : 1;
}
