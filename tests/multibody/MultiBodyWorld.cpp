#include "MultiBodyWorld.h"

#include <BulletSoftBody/btSoftBodyHelpers.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftMultiBodyDynamicsWorld.h>
#include <LinearMath/btDefaultMotionState.h>

namespace propimpact::testing {

MultiBodyWorld::MultiBodyWorld(bool propagative, btVector3 gravity, WorldKind kind)
    : configuration(kind == WorldKind::SoftMultiBody ? std::make_unique<btSoftBodyRigidBodyCollisionConfiguration>()
                                                      : std::make_unique<btDefaultCollisionConfiguration>()),
      dispatcher(std::make_unique<btCollisionDispatcher>(configuration.get())),
      broadphase(std::make_unique<btDbvtBroadphase>()) {
  if (propagative)
    m_solver = std::make_unique<PropagativeMultiBodySolver>();
  else
    m_solver = std::make_unique<btMultiBodyConstraintSolver>();
  if (kind == WorldKind::SoftMultiBody) {
    auto soft = std::make_unique<btSoftMultiBodyDynamicsWorld>(dispatcher.get(), broadphase.get(), m_solver.get(),
                                                               configuration.get());
    soft->getWorldInfo().m_gravity = gravity;
    soft->getWorldInfo().m_sparsesdf.Initialize();
    world = std::move(soft);
  } else {
    world = std::make_unique<btMultiBodyDynamicsWorld>(dispatcher.get(), broadphase.get(), m_solver.get(),
                                                       configuration.get());
  }
  world->setGravity(gravity);
}

btSoftBody* MultiBodyWorld::addRope(const btVector3& from, const btVector3& to, int pinned) {
  auto* soft = dynamic_cast<btSoftMultiBodyDynamicsWorld*>(world.get());
  if (!soft) return nullptr;
  m_ropes.emplace_back(btSoftBodyHelpers::CreateRope(soft->getWorldInfo(), from, to, 8, pinned));
  btSoftBody* rope = m_ropes.back().get();
  rope->m_cfg.piterations = 4;
  rope->setTotalMass(btScalar(0.1));
  soft->addSoftBody(rope);
  return rope;
}

MultiBodyWorld::~MultiBodyWorld() {
  if (auto* soft = dynamic_cast<btSoftMultiBodyDynamicsWorld*>(world.get()))
    for (auto& rope : m_ropes) soft->removeSoftBody(rope.get());
  m_ropes.clear();
  for (auto& c : m_colliders) world->removeCollisionObject(c.get());
  for (auto& b : m_bodies) world->removeMultiBody(b.get());
  for (auto& r : m_rigid) world->removeRigidBody(r.get());
  world.reset();
}

btCollisionShape* MultiBodyWorld::own(btCollisionShape* shape) {
  m_shapes.emplace_back(shape);
  return shape;
}

btMultiBody* MultiBodyWorld::adopt(btMultiBody* body) {
  m_bodies.emplace_back(body);
  body->setLinearDamping(0);
  body->setAngularDamping(0);
  world->addMultiBody(body);
  return body;
}

btMultiBodyLinkCollider* MultiBodyWorld::addCollider(btMultiBody* body, int link, btCollisionShape* shape,
                                                     double restitution) {
  auto collider = std::make_unique<btMultiBodyLinkCollider>(body, link);
  collider->setCollisionShape(shape);
  collider->setRestitution(btScalar(restitution));
  collider->setFriction(0);
  btMultiBodyLinkCollider* raw = collider.get();
  m_colliders.push_back(std::move(collider));
  if (link < 0)
    body->setBaseCollider(raw);
  else
    body->getLink(link).m_collider = raw;
  world->addCollisionObject(raw, btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter);
  syncColliders(body);
  return raw;
}

void MultiBodyWorld::syncColliders(btMultiBody* body) {
  btAlignedObjectArray<btQuaternion> rotations;
  btAlignedObjectArray<btVector3> origins;
  body->forwardKinematics(rotations, origins);
  body->updateCollisionObjectWorldTransforms(rotations, origins);
}

btMultiBody* MultiBodyWorld::addBall(double radius, double mass, const btVector3& position, const btVector3& velocity,
                                     double restitution) {
  const btScalar inertia = btScalar(0.4 * mass * radius * radius);
  auto* body = adopt(new btMultiBody(0, btScalar(mass), btVector3(inertia, inertia, inertia), false, false));
  body->finalizeMultiDof();  // sizes the velocity vector
  body->setBasePos(position);
  body->setBaseVel(velocity);
  addCollider(body, -1, own(new btSphereShape(btScalar(radius))), restitution);
  return body;
}

btMultiBody* MultiBodyWorld::addPendulum(const btVector3& pivot, const LinkSpec& link, double angle,
                                         double restitution) {
  // A small fixed base at the pivot; the link's frame is its ball's centre.
  auto* body = adopt(new btMultiBody(1, 1, btVector3(1, 1, 1), true, false));
  body->setBasePos(pivot);
  const btScalar inertia = btScalar(0.4 * link.mass * link.radius * link.radius);
  body->setupRevolute(0, btScalar(link.mass), btVector3(inertia, inertia, inertia), -1, btQuaternion::getIdentity(),
                      link.axis, btVector3(0, 0, 0), btVector3(0, 0, -btScalar(link.length)), true);
  body->finalizeMultiDof();
  body->setJointPos(0, btScalar(angle));
  addCollider(body, 0, own(new btSphereShape(btScalar(link.radius))), restitution);
  return body;
}

btRigidBody* MultiBodyWorld::addRigidBall(double radius, double mass, const btVector3& position,
                                          const btVector3& velocity, double restitution) {
  btCollisionShape* shape = own(new btSphereShape(btScalar(radius)));
  btVector3 inertia;
  shape->calculateLocalInertia(btScalar(mass), inertia);
  m_motion.push_back(std::make_unique<btDefaultMotionState>(btTransform(btQuaternion::getIdentity(), position)));
  btRigidBody::btRigidBodyConstructionInfo info(btScalar(mass), m_motion.back().get(), shape, inertia);
  info.m_restitution = btScalar(restitution);
  info.m_friction = 0;
  m_rigid.push_back(std::make_unique<btRigidBody>(info));
  btRigidBody* body = m_rigid.back().get();
  body->setLinearVelocity(velocity);
  body->setActivationState(DISABLE_DEACTIVATION);
  world->addRigidBody(body);
  return body;
}

btRigidBody* MultiBodyWorld::addGround(double top, double restitution) {
  btCollisionShape* shape = own(new btBoxShape(btVector3(50, 50, 1)));
  m_motion.push_back(std::make_unique<btDefaultMotionState>(
      btTransform(btQuaternion::getIdentity(), btVector3(0, 0, btScalar(top - 1)))));
  btRigidBody::btRigidBodyConstructionInfo info(0, m_motion.back().get(), shape);
  info.m_restitution = btScalar(restitution);
  info.m_friction = 0;
  m_rigid.push_back(std::make_unique<btRigidBody>(info));
  world->addRigidBody(m_rigid.back().get());
  return m_rigid.back().get();
}

double ballEnergy(const btMultiBody& ball) {
  const btVector3 v = ball.getBaseVel();
  const btVector3 w = ball.getBaseOmega();
  const btVector3 inertia = ball.getBaseInertia();
  return 0.5 * ball.getBaseMass() * double(v.length2()) +
         0.5 * double(inertia.x() * w.x() * w.x() + inertia.y() * w.y() * w.y() + inertia.z() * w.z() * w.z());
}

}  // namespace propimpact::testing
