// Bullet's InclinedPlane tutorial (examples/ExtendedTutorials), headless with
// its parameters: a static ramp (a 40 × 2 × 20 m box tilted 20° about z, its
// centre 15 m up, friction 1, restitution 0) on a ground box, a 1 kg unit
// cube dropped from (0, 20, 2) and a 1 kg unit sphere from (0, 20, 4)
// (friction 1, restitution 0, rolling friction 1, spinning friction 0.3),
// stepped at 60 Hz. Issue 18: with impact friction (the default) the sphere
// leaves its landing rolling, v = ω × r at the contact, where frictionless
// impacts let it slide on at its whole downhill speed.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include <btBulletDynamicsCommon.h>

#include "propimpact/bullet/PropagativeImpactSolver.h"

namespace propimpact {
namespace {

constexpr btScalar kTilt = btScalar(20.0 / 180.0 * 3.14159265358979323846);
constexpr btScalar kHz = 60;

struct Tutorial {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher{&configuration};
  btDbvtBroadphase broadphase;
  std::unique_ptr<btConstraintSolver> solver;
  std::unique_ptr<btDiscreteDynamicsWorld> world;
  std::vector<std::unique_ptr<btCollisionShape>> shapes;
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  btRigidBody* sphere = nullptr;

  explicit Tutorial(std::unique_ptr<btConstraintSolver> s) : solver(std::move(s)) {
    world = std::make_unique<btDiscreteDynamicsWorld>(&dispatcher, &broadphase, solver.get(), &configuration);
    world->setGravity(btVector3(0, -10, 0));
    btTransform ground;
    ground.setIdentity();
    ground.setOrigin(btVector3(0, -50, 0));
    add(0, ground, std::make_unique<btBoxShape>(btVector3(50, 50, 50)));
    btTransform ramp;
    ramp.setIdentity();
    ramp.setOrigin(btVector3(0, 15, 0));
    ramp.setRotation(btQuaternion(btVector3(0, 0, 1), kTilt));
    btRigidBody* rampBody = add(0, ramp, std::make_unique<btBoxShape>(btVector3(20, 1, 10)));
    rampBody->setFriction(1);
    rampBody->setRestitution(0);
    btTransform at;
    at.setIdentity();
    at.setOrigin(btVector3(0, 20, 2));
    btRigidBody* box = add(1, at, std::make_unique<btBoxShape>(btVector3(1, 1, 1)));
    box->setFriction(1);
    box->setRestitution(0);
    at.setOrigin(btVector3(0, 20, 4));
    sphere = add(1, at, std::make_unique<btSphereShape>(btScalar(1)));
    sphere->setFriction(1);
    sphere->setRestitution(0);
    sphere->setRollingFriction(1);
    sphere->setSpinningFriction(btScalar(0.3));
  }
  ~Tutorial() {
    for (auto& b : bodies) world->removeRigidBody(b.get());
  }
  btRigidBody* add(btScalar mass, const btTransform& transform, std::unique_ptr<btCollisionShape> shape) {
    btVector3 inertia(0, 0, 0);
    if (mass > 0) shape->calculateLocalInertia(mass, inertia);
    btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, shape.get(), inertia);
    info.m_startWorldTransform = transform;
    bodies.push_back(std::make_unique<btRigidBody>(info));
    shapes.push_back(std::move(shape));
    if (mass > 0) bodies.back()->setActivationState(DISABLE_DEACTIVATION);
    world->addRigidBody(bodies.back().get());
    return bodies.back().get();
  }
};

struct Landing {
  btScalar downhillBefore = 0;  // along the ramp, mid-step (SPEC §7): start of the landing step + ½ g dt
  btScalar downhillAfter = 0;   // its end − ½ g dt
  btScalar slipAfter = 0;       // the contact point's tangential speed then, |(v + ω × (−r n))_t|
  btScalar normalAfter = 0;     // the sphere's speed along the normal then
};

// Steps until a contact changes the sphere's mid-step velocity (the landing
// step), and its motion then. (In later steps the sphere is resting contact,
// Bullet's pass alone, whose rolling friction 1 holds the spin back.)
Landing land(Tutorial& t) {
  const btVector3 normal = btVector3(-std::sin(kTilt), std::cos(kTilt), 0);  // the ramp's top face
  const btVector3 downhill = btVector3(-std::cos(kTilt), -std::sin(kTilt), 0);
  const btVector3 halfKick = t.world->getGravity() / (2 * kHz);
  const auto slip = [&](const btVector3& v) {
    const btVector3 contact = v + t.sphere->getAngularVelocity().cross(-normal);
    return (contact - contact.dot(normal) * normal).length();
  };
  Landing l;
  for (int step = 0; step < 2 * static_cast<int>(kHz); ++step) {
    const btVector3 before = t.sphere->getLinearVelocity() + halfKick;
    t.world->stepSimulation(1 / kHz, 1, 1 / kHz);
    const btVector3 after = t.sphere->getLinearVelocity() - halfKick;
    if ((after - before).length() < btScalar(1e-3)) continue;  // free flight: the mid-step velocity does not change
    l.downhillBefore = before.dot(downhill);
    l.downhillAfter = after.dot(downhill);
    l.slipAfter = slip(after);
    l.normalAfter = after.dot(normal);
    return l;
  }
  ADD_FAILURE() << "the sphere never landed";
  return l;
}

TEST(InclinedPlaneTutorial, WithImpactFrictionTheSphereLeavesItsLandingRolling) {
  auto solver = std::make_unique<PropagativeImpactSolver>();
  ASSERT_TRUE(solver->settings().impactFriction);  // the default
  Tutorial t(std::move(solver));
  const Landing l = land(t);
  ASSERT_GT(l.downhillBefore, 1);
  EXPECT_LE(l.slipAfter, btScalar(0.01) * l.downhillAfter) << "v = ω r within 1 %, normal speed " << l.normalAfter;
  // Routh's sticking branch (e = 0, μ = 1): v_t⁺ = 5/7 v_t⁻, less what Bullet's
  // pass takes within the landing step (rolling friction 1 against half a
  // step of gravity's kick): a few percent.
  EXPECT_NEAR(l.downhillAfter, 5.0 / 7.0 * l.downhillBefore, 0.05 * l.downhillBefore);
}

TEST(InclinedPlaneTutorial, FrictionlessImpactsLetTheSphereSlideOn) {
  auto solver = std::make_unique<PropagativeImpactSolver>();
  solver->settings().impactFriction = false;
  Tutorial t(std::move(solver));
  const Landing l = land(t);
  EXPECT_GT(l.slipAfter, btScalar(0.5) * l.downhillAfter) << "the contact point still slides";
}

}  // namespace
}  // namespace propimpact
