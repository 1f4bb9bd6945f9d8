#pragma once
/// \file World.h
/// A btDiscreteDynamicsWorld together with everything it needs (collision
/// configuration, dispatcher, broadphase, solver, shapes, bodies,
/// constraints), owned in one object and released in the right order.

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletDynamics/ConstraintSolver/btConstraintSolver.h>
#include <BulletDynamics/ConstraintSolver/btTypedConstraint.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <LinearMath/btQuaternion.h>
#include <LinearMath/btVector3.h>

#include <memory>
#include <string>
#include <vector>

class btCollisionConfiguration;
class btCollisionDispatcher;
class btBroadphaseInterface;
class btCollisionShape;

namespace propimpact::scenes {

/// How one rigid body is created (World::addBody).
struct BodySpec {
  btScalar mass = 1;                                   ///< 0 makes a static body.
  btVector3 position{0, 0, 0};                         ///< centre of mass, world frame.
  btQuaternion orientation = btQuaternion::getIdentity(); ///< world orientation.
  btVector3 linearVelocity{0, 0, 0};                   ///< initial linear velocity.
  btVector3 angularVelocity{0, 0, 0};                  ///< initial angular velocity.
  btScalar restitution = 0;                            ///< per body; Bullet multiplies the two of a contact.
  btScalar friction = btScalar(0.5);                   ///< Bullet's default.
  btVector3 linearFactor{1, 1, 1};                     ///< 0/1 per world axis.
  btVector3 angularFactor{1, 1, 1};                    ///< 0/1 per world axis.
  bool inertiaFromShape = true;                        ///< false: use \ref localInertia as given.
  btVector3 localInertia{0, 0, 0};                     ///< principal moments when !inertiaFromShape.
  bool allowSleeping = false;                          ///< studies measure energy: no sleeping by default.
};

/// One manifold point, resolved to body indices (creation order).
struct ContactSample {
  int bodyA = -1;           ///< index of manifold body 0 in World::bodies().
  int bodyB = -1;           ///< index of manifold body 1.
  btScalar distance = 0;    ///< m_distance1: negative = overlap.
  btVector3 normalOnB{0, 0, 0}; ///< m_normalWorldOnB, from B to A.
};

/// ½ m v² + ½ ωᵀ I ω of one body (J), with I from its local principal inverse
/// inertia (locked axes, zero inverse inertia, carry none); 0 for a body of
/// infinite mass. Shared by World, the comparison's replay and the viewer.
[[nodiscard]] double kineticEnergy(const btRigidBody& body);

/// A dynamics world and everything it owns. Not copyable; movable only as a
/// whole through std::unique_ptr.
class World {
 public:
  /// A world stepped by the solver called \p solverName (see makeSolver()),
  /// with zero gravity. Throws std::invalid_argument for an unknown name.
  explicit World(const std::string& solverName = "bullet-si");
  /// A world stepped by \p solver (Bullet's default solver info).
  explicit World(std::unique_ptr<btConstraintSolver> solver);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  /// The Bullet world, for anything not wrapped here.
  [[nodiscard]] btDiscreteDynamicsWorld& dynamics() { return *m_world; }
  [[nodiscard]] const btDiscreteDynamicsWorld& dynamics() const { return *m_world; }
  /// The solver the world steps with.
  [[nodiscard]] btConstraintSolver& solver() { return *m_solver; }
  /// The solver's name ("custom" when built from a solver object).
  [[nodiscard]] const std::string& solverName() const { return m_solverName; }

  /// Sets gravity (world frame, m/s²).
  void setGravity(const btVector3& gravity);

  /// Adds a body of shape \p shape (the world owns both). Returns the body.
  btRigidBody* addBody(std::unique_ptr<btCollisionShape> shape, const BodySpec& spec);
  /// Adds a sphere of radius \p radius.
  btRigidBody* addSphere(btScalar radius, const BodySpec& spec);
  /// Adds a box with half extents \p halfExtents.
  btRigidBody* addBox(const btVector3& halfExtents, const BodySpec& spec);
  /// Adds a constraint (the world owns it).
  btTypedConstraint* addConstraint(std::unique_ptr<btTypedConstraint> constraint,
                                   bool disableCollisionsBetweenLinkedBodies = true);

  /// Every body, static ones included, in creation order.
  [[nodiscard]] const std::vector<btRigidBody*>& bodies() const { return m_bodyView; }
  /// Index of \p object in bodies(), −1 if it is not one of them.
  [[nodiscard]] int indexOf(const btCollisionObject* object) const;

  /// Kinetic energy ½ m v² + ½ ωᵀ I ω of every dynamic body (J).
  [[nodiscard]] double kineticEnergy() const;
  /// One fixed substep of \p dt seconds: stepSimulation(dt, 1, dt).
  void step(double dt);

  /// Every manifold point of the last collision detection, in dispatcher order.
  [[nodiscard]] std::vector<ContactSample> contacts() const;

 private:
  void create(std::unique_ptr<btConstraintSolver> solver);

  std::unique_ptr<btCollisionConfiguration> m_configuration;
  std::unique_ptr<btCollisionDispatcher> m_dispatcher;
  std::unique_ptr<btBroadphaseInterface> m_broadphase;
  std::unique_ptr<btConstraintSolver> m_solver;
  std::unique_ptr<btDiscreteDynamicsWorld> m_world;
  std::vector<std::unique_ptr<btCollisionShape>> m_shapes;
  std::vector<std::unique_ptr<btRigidBody>> m_bodies;
  std::vector<btRigidBody*> m_bodyView;
  std::vector<std::unique_ptr<btTypedConstraint>> m_constraints;
  std::string m_solverName;
};

}  // namespace propimpact::scenes
