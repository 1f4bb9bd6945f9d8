#pragma once
// A real btMultiBodyDynamicsWorld for the multibody tests, owning everything
// it holds: floating-base balls, fixed-base revolute chains, rigid bodies and
// static ground, with our solver or Bullet's stock multibody solver; or the
// same in a btSoftMultiBodyDynamicsWorld, with ropes.
#include <gtest/gtest.h>

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <BulletSoftBody/btSoftBody.h>
#include <LinearMath/btDefaultMotionState.h>

#include <memory>
#include <vector>

#include <propimpact/bullet/PropagativeMultiBodySolver.h>

namespace propimpact::testing {

/// Tolerances that follow Bullet's precision (the core is double in both builds).
constexpr double kExact = sizeof(btScalar) == 8 ? 1e-9 : 1e-5;

/// One link of a fixed-base chain: a revolute joint about \p axis at the
/// parent's end, a ball of \p radius at distance \p length below the pivot.
struct LinkSpec {
  double mass = 1;
  double radius = 0.1;
  double length = 1;
  btVector3 axis{0, 1, 0};
};

/// Which Bullet world holds the scene.
enum class WorldKind { MultiBody, SoftMultiBody };

class MultiBodyWorld {
 public:
  /// \p propagative: our solver, else Bullet's btMultiBodyConstraintSolver.
  explicit MultiBodyWorld(bool propagative = true, btVector3 gravity = btVector3(0, 0, 0),
                          WorldKind kind = WorldKind::MultiBody);
  ~MultiBodyWorld();
  MultiBodyWorld(const MultiBodyWorld&) = delete;
  MultiBodyWorld& operator=(const MultiBodyWorld&) = delete;

  /// A floating-base ball (a multibody with no links), no damping.
  btMultiBody* addBall(double radius, double mass, const btVector3& position, const btVector3& velocity,
                       double restitution = 1);
  /// A fixed-base pendulum whose pivot is at \p pivot and whose ball hangs along −z, swung out by \p angle.
  btMultiBody* addPendulum(const btVector3& pivot, const LinkSpec& link, double angle, double restitution = 1);
  /// A free rigid ball.
  btRigidBody* addRigidBall(double radius, double mass, const btVector3& position, const btVector3& velocity,
                            double restitution = 1);
  /// A static box whose top face is at z = \p top.
  btRigidBody* addGround(double top, double restitution = 1);

  /// A rope of 8 segments, its end nodes pinned where \p pinned says
  /// (btSoftBodyHelpers::CreateRope's fixeds: 1 first, 2 last); nullptr
  /// unless this is a soft-multibody world.
  btSoftBody* addRope(const btVector3& from, const btVector3& to, int pinned);

  /// Adds a collider to link \p link (−1 base) of \p body.
  btMultiBodyLinkCollider* addCollider(btMultiBody* body, int link, btCollisionShape* shape, double restitution);
  /// Updates the colliders of \p body from its state (after setting positions).
  static void syncColliders(btMultiBody* body);
  /// Takes ownership of a multibody built by the caller and adds it to the world.
  btMultiBody* adopt(btMultiBody* body);
  btCollisionShape* own(btCollisionShape* shape);

  void step(double dt) { world->stepSimulation(btScalar(dt), 1, btScalar(dt)); }
  [[nodiscard]] PropagativeMultiBodySolver& solver() { return *dynamic_cast<PropagativeMultiBodySolver*>(m_solver.get()); }

  std::unique_ptr<btDefaultCollisionConfiguration> configuration;
  std::unique_ptr<btCollisionDispatcher> dispatcher;
  std::unique_ptr<btDbvtBroadphase> broadphase;
  std::unique_ptr<btMultiBodyDynamicsWorld> world;

 private:
  std::unique_ptr<btMultiBodyConstraintSolver> m_solver;
  std::vector<std::unique_ptr<btCollisionShape>> m_shapes;
  std::vector<std::unique_ptr<btMultiBodyLinkCollider>> m_colliders;
  std::vector<std::unique_ptr<btMultiBody>> m_bodies;
  std::vector<std::unique_ptr<btRigidBody>> m_rigid;
  std::vector<std::unique_ptr<btDefaultMotionState>> m_motion;
  std::vector<std::unique_ptr<btSoftBody>> m_ropes;
};

/// Kinetic energy ½ Σ m v² + ½ ωᵀIω of a floating-base ball.
double ballEnergy(const btMultiBody& ball);

}  // namespace propimpact::testing
