// Other Bullet worlds (issue 13, item 6): btSoftRigidDynamicsWorld takes a
// btConstraintSolver, so the rigid drop-in (PropagativeImpactSolver) is what
// goes there; Bullet runs its soft-body stage after the rigid solver. What is
// covered: rigid impacts that no soft body touches stay exact — a three-ball
// rigid cradle ends at (0, 0, v0) with a rope hanging elsewhere in the same
// world. What is not: where a soft body is anchored to or touches a rigid
// body, the soft stage changes the rigid outcome after the impact (the
// issue's rope cradle); printed here for a cradle whose first ball carries a
// rope (measured: C leaves at 0.858 v0 instead of v0), with only the
// invariant asserted that the balls gain no energy.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletSoftBody/btSoftBodyHelpers.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>
#include <LinearMath/btDefaultMotionState.h>

#include <memory>
#include <vector>

#include <propimpact/bullet/PropagativeImpactSolver.h>

namespace propimpact {
namespace {

constexpr double kDt = 1.0 / 240;
constexpr double kExact = sizeof(btScalar) == 8 ? 1e-9 : 1e-5;

struct SoftRigidScene {
  btSoftBodyRigidBodyCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher{&configuration};
  btDbvtBroadphase broadphase;
  PropagativeImpactSolver solver;
  btSoftRigidDynamicsWorld world{&dispatcher, &broadphase, &solver, &configuration};
  btSphereShape sphere{btScalar(0.5)};
  std::vector<std::unique_ptr<btDefaultMotionState>> motion;
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  std::vector<btSoftBody*> ropes;  // owned by the world's soft-body array until removed

  SoftRigidScene() {
    world.setGravity(btVector3(0, 0, 0));
    world.getWorldInfo().m_gravity.setZero();
    world.getWorldInfo().m_sparsesdf.Initialize();
  }
  ~SoftRigidScene() {
    for (btSoftBody* rope : ropes) {
      world.removeSoftBody(rope);
      delete rope;
    }
    for (auto& body : bodies) world.removeRigidBody(body.get());
  }
  btRigidBody* addBall(const btVector3& position, double vx) {
    btVector3 inertia;
    sphere.calculateLocalInertia(1, inertia);
    motion.push_back(std::make_unique<btDefaultMotionState>(btTransform(btQuaternion::getIdentity(), position)));
    btRigidBody::btRigidBodyConstructionInfo info(1, motion.back().get(), &sphere, inertia);
    info.m_restitution = 1;
    info.m_friction = 0;
    bodies.push_back(std::make_unique<btRigidBody>(info));
    bodies.back()->setLinearVelocity(btVector3(btScalar(vx), 0, 0));
    bodies.back()->setActivationState(DISABLE_DEACTIVATION);
    world.addRigidBody(bodies.back().get());
    return bodies.back().get();
  }
  btSoftBody* addRope(const btVector3& from, const btVector3& to) {
    btSoftBody* rope = btSoftBodyHelpers::CreateRope(world.getWorldInfo(), from, to, 8, 0);  // no node pinned
    rope->m_cfg.piterations = 4;
    rope->setTotalMass(btScalar(0.1));
    world.addSoftBody(rope);
    ropes.push_back(rope);
    return rope;
  }
  /// A three-ball cradle at height z, A detected half a step deep in its second pass.
  std::vector<btRigidBody*> addCradle(double z) {
    return {addBall(btVector3(btScalar(-1 - kDt * 1.5), 0, btScalar(z)), 1), addBall(btVector3(0, 0, btScalar(z)), 0),
            addBall(btVector3(1, 0, btScalar(z)), 0)};
  }
};

TEST(SoftRigidWorld, RigidCradleStaysExactBesideARope) {
  SoftRigidScene w;
  const std::vector<btRigidBody*> cradle = w.addCradle(0);
  w.addRope(btVector3(0, 10, 5), btVector3(3, 10, 5));  // far from the cradle: never touches it
  for (int k = 0; k < 10; ++k) w.world.stepSimulation(btScalar(kDt), 1, btScalar(kDt));
  const double expected[3] = {0, 0, 1};
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(cradle[static_cast<std::size_t>(i)]->getLinearVelocity().x(), expected[i], kExact) << "ball " << i;
}

TEST(SoftRigidWorld, RopeOnAnImpactingBallChangesTheOutcome) {
  SoftRigidScene w;
  const std::vector<btRigidBody*> cradle = w.addCradle(0);
  btSoftBody* rope = w.addRope(btVector3(btScalar(-1 - kDt * 1.5), 0, 0), btVector3(btScalar(-1 - kDt * 1.5), 0, 3));
  rope->appendAnchor(0, cradle[0]);
  for (int k = 0; k < 60; ++k) w.world.stepSimulation(btScalar(kDt), 1, btScalar(kDt));
  fmt::print("cradle whose first ball carries a rope: velocities ({:.4f}, {:.4f}, {:.4f}) (no rope: 0, 0, 1)\n",
             double(cradle[0]->getLinearVelocity().x()), double(cradle[1]->getLinearVelocity().x()),
             double(cradle[2]->getLinearVelocity().x()));
  // Whatever the rope stage does, the balls gain no energy: the rope started at rest.
  double energy = 0;
  for (const btRigidBody* ball : cradle) energy += 0.5 * double(ball->getLinearVelocity().length2());
  EXPECT_LE(energy, 0.5 * (1 + kExact));
  EXPECT_TRUE(w.solver.lastStepReport().rejected.empty());
}

}  // namespace
}  // namespace propimpact
