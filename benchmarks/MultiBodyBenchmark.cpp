/// \file MultiBodyBenchmark.cpp
/// `multibody_pendulums`: 200 fixed-base revolute pendulums (one btMultiBody
/// each, a ball on a 1 m link) in 100 touching pairs, 1 m apart, under
/// gravity, in one btMultiBodyDynamicsWorld. In each pair one pendulum starts
/// swung out by 0.3 rad, so the pairs exchange elastically about once a
/// second: a few impact clusters per step among many resting and free links.
/// Each solver has its own world, warmed up for kWarmupSteps steps; then one
/// benchmark iteration is one world step (collision detection and Bullet's
/// articulated-body passes included, the same for both solvers). The
/// propagative solver's report is read after every step, as an application
/// would.

#include <benchmark/benchmark.h>

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <propimpact/bullet/PropagativeMultiBodySolver.h>

namespace propimpact::bench {
namespace {

constexpr double kDt = 1.0 / 240;
constexpr int kPairs = 100;
constexpr int kWarmupSteps = 240;
constexpr btScalar kRadius = btScalar(0.1);

struct PendulumWorld {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher{&configuration};
  btDbvtBroadphase broadphase;
  std::unique_ptr<btMultiBodyConstraintSolver> solver;
  std::unique_ptr<btMultiBodyDynamicsWorld> world;
  btSphereShape ball{kRadius};
  std::vector<std::unique_ptr<btMultiBody>> bodies;
  std::vector<std::unique_ptr<btMultiBodyLinkCollider>> colliders;

  explicit PendulumWorld(bool propagative) {
    if (propagative)
      solver = std::make_unique<PropagativeMultiBodySolver>();
    else
      solver = std::make_unique<btMultiBodyConstraintSolver>();
    world = std::make_unique<btMultiBodyDynamicsWorld>(&dispatcher, &broadphase, solver.get(), &configuration);
    world->setGravity(btVector3(0, 0, btScalar(-9.81)));
    for (int p = 0; p < kPairs; ++p) {
      addPendulum(btVector3(0, btScalar(p), 2), btScalar(0.3));
      addPendulum(btVector3(2 * kRadius, btScalar(p), 2), 0);
    }
  }
  ~PendulumWorld() {
    for (auto& c : colliders) world->removeCollisionObject(c.get());
    for (auto& b : bodies) world->removeMultiBody(b.get());
  }
  PendulumWorld(const PendulumWorld&) = delete;
  PendulumWorld& operator=(const PendulumWorld&) = delete;

  void addPendulum(const btVector3& pivot, btScalar angle) {
    const btScalar inertia = btScalar(0.4) * kRadius * kRadius;
    bodies.push_back(std::make_unique<btMultiBody>(1, 1, btVector3(1, 1, 1), true, false));
    btMultiBody* body = bodies.back().get();
    body->setupRevolute(0, 1, btVector3(inertia, inertia, inertia), -1, btQuaternion::getIdentity(), btVector3(0, 1, 0),
                        btVector3(0, 0, 0), btVector3(0, 0, -1), true);
    body->finalizeMultiDof();
    body->setLinearDamping(0);
    body->setAngularDamping(0);
    body->setBasePos(pivot);
    body->setJointPos(0, angle);
    world->addMultiBody(body);
    colliders.push_back(std::make_unique<btMultiBodyLinkCollider>(body, 0));
    btMultiBodyLinkCollider* collider = colliders.back().get();
    collider->setCollisionShape(&ball);
    collider->setRestitution(1);
    collider->setFriction(0);
    body->getLink(0).m_collider = collider;
    world->addCollisionObject(collider, btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter);
    btAlignedObjectArray<btQuaternion> rotations;
    btAlignedObjectArray<btVector3> origins;
    body->forwardKinematics(rotations, origins);
    body->updateCollisionObjectWorldTransforms(rotations, origins);
  }

  void step() {
    world->stepSimulation(btScalar(kDt), 1, btScalar(kDt));
    if (auto* ours = dynamic_cast<PropagativeMultiBodySolver*>(solver.get())) clusters += ours->lastStepReport().clusters.size();
  }
  std::size_t clusters = 0;
};

PendulumWorld& pendulumWorld(bool propagative) {
  static std::map<bool, std::unique_ptr<PendulumWorld>> worlds;
  std::unique_ptr<PendulumWorld>& world = worlds[propagative];
  if (!world) {
    world = std::make_unique<PendulumWorld>(propagative);
    for (int i = 0; i < kWarmupSteps; ++i) world->step();
  }
  return *world;
}

void multibodyPendulums(benchmark::State& state, bool propagative) {
  PendulumWorld& world = pendulumWorld(propagative);
  const std::size_t clustersBefore = world.clusters;
  for (auto _ : state) world.step();
  if (propagative)
    state.counters["clusters_per_step"] = double(world.clusters - clustersBefore) / double(state.iterations());
}

BENCHMARK_CAPTURE(multibodyPendulums, bullet_multibody, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(multibodyPendulums, propagative, true)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace propimpact::bench
