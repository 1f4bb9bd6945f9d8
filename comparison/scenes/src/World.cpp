#include "propimpact/scenes/World.h"

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>

#include <utility>

#include "propimpact/scenes/Solvers.h"

namespace propimpact::scenes {

World::World(const std::string& solverName) : m_solverName(solverName) {
  create(makeSolver(solverName));
  applySolverInfo(solverName, m_world->getSolverInfo());
}

World::World(std::unique_ptr<btConstraintSolver> solver) : m_solverName("custom") { create(std::move(solver)); }

void World::create(std::unique_ptr<btConstraintSolver> solver) {
  m_configuration = std::make_unique<btDefaultCollisionConfiguration>();
  m_dispatcher = std::make_unique<btCollisionDispatcher>(m_configuration.get());
  m_broadphase = std::make_unique<btDbvtBroadphase>();
  m_solver = std::move(solver);
  m_world = std::make_unique<btDiscreteDynamicsWorld>(m_dispatcher.get(), m_broadphase.get(), m_solver.get(),
                                                      m_configuration.get());
  m_world->setGravity(btVector3(0, 0, 0));
}

World::~World() {
  // Bullet keeps raw pointers: detach everything before anything is freed.
  for (auto it = m_constraints.rbegin(); it != m_constraints.rend(); ++it) m_world->removeConstraint(it->get());
  for (auto it = m_bodies.rbegin(); it != m_bodies.rend(); ++it) m_world->removeRigidBody(it->get());
}

void World::setGravity(const btVector3& gravity) { m_world->setGravity(gravity); }

btRigidBody* World::addBody(std::unique_ptr<btCollisionShape> shape, const BodySpec& spec) {
  btVector3 inertia = spec.localInertia;
  if (spec.mass > 0 && spec.inertiaFromShape) shape->calculateLocalInertia(spec.mass, inertia);
  if (spec.mass <= 0) inertia.setZero();
  btRigidBody::btRigidBodyConstructionInfo info(spec.mass, nullptr, shape.get(), inertia);
  info.m_startWorldTransform = btTransform(spec.orientation, spec.position);
  info.m_restitution = spec.restitution;
  info.m_friction = spec.friction;
  info.m_linearDamping = 0;
  info.m_angularDamping = 0;
  auto body = std::make_unique<btRigidBody>(info);
  body->setLinearFactor(spec.linearFactor);
  body->setAngularFactor(spec.angularFactor);
  if (spec.mass > 0) {
    body->setLinearVelocity(spec.linearVelocity);
    body->setAngularVelocity(spec.angularVelocity);
  }
  if (!spec.allowSleeping) body->setActivationState(DISABLE_DEACTIVATION);
  btRigidBody* raw = body.get();
  m_world->addRigidBody(raw);
  m_shapes.push_back(std::move(shape));
  m_bodies.push_back(std::move(body));
  m_bodyView.push_back(raw);
  return raw;
}

btRigidBody* World::addSphere(btScalar radius, const BodySpec& spec) {
  return addBody(std::make_unique<btSphereShape>(radius), spec);
}

btRigidBody* World::addBox(const btVector3& halfExtents, const BodySpec& spec) {
  return addBody(std::make_unique<btBoxShape>(halfExtents), spec);
}

btTypedConstraint* World::addConstraint(std::unique_ptr<btTypedConstraint> constraint,
                                        bool disableCollisionsBetweenLinkedBodies) {
  btTypedConstraint* raw = constraint.get();
  m_world->addConstraint(raw, disableCollisionsBetweenLinkedBodies);
  m_constraints.push_back(std::move(constraint));
  return raw;
}

int World::indexOf(const btCollisionObject* object) const {
  for (std::size_t i = 0; i < m_bodyView.size(); ++i)
    if (m_bodyView[i] == object) return static_cast<int>(i);
  return -1;
}

double kineticEnergy(const btRigidBody& body) {
  if (body.getInvMass() <= 0) return 0;
  const double mass = 1.0 / double(body.getInvMass());
  const btVector3 localW = body.getAngularVelocity() * body.getWorldTransform().getBasis();  // ω in body axes
  const btVector3& inverseInertia = body.getInvInertiaDiagLocal();
  double rotational = 0;
  for (int k = 0; k < 3; ++k)
    if (inverseInertia[k] > 0) rotational += double(localW[k]) * double(localW[k]) / double(inverseInertia[k]);
  return 0.5 * mass * double(body.getLinearVelocity().length2()) + 0.5 * rotational;
}

double World::kineticEnergy() const {
  double energy = 0;
  for (const btRigidBody* body : m_bodyView) energy += scenes::kineticEnergy(*body);
  return energy;
}

void World::step(double dt) { m_world->stepSimulation(btScalar(dt), 1, btScalar(dt)); }

std::vector<ContactSample> World::contacts() const {
  std::vector<ContactSample> samples;
  const int manifolds = m_dispatcher->getNumManifolds();
  for (int m = 0; m < manifolds; ++m) {
    const btPersistentManifold* manifold = m_dispatcher->getManifoldByIndexInternal(m);
    for (int p = 0; p < manifold->getNumContacts(); ++p) {
      const btManifoldPoint& point = manifold->getContactPoint(p);
      samples.push_back(ContactSample{indexOf(manifold->getBody0()), indexOf(manifold->getBody1()),
                                      point.m_distance1, point.m_normalWorldOnB});
    }
  }
  return samples;
}

}  // namespace propimpact::scenes
