#pragma once
// Turns bytes into a small Bullet world stepped by PropagativeImpactSolver
// (scripts/fuzz --target world): spheres, boxes, capsules, convex hulls and
// compounds over a static floor, with random masses (ratios up to 1e12),
// inertia, restitution in [0, 1], friction, damping, linear and angular
// factors, hinges and point-to-point joints, initial velocities and overlaps,
// kinematic bodies on scripted paths, and now and then a body whose velocity
// turns NaN. Exhausted input reads as zero bytes (ByteReader), so short inputs
// give a single sphere dropped on the floor. Bytes are read in source order
// (braced initialisers, locals): the order of a call's arguments is
// unspecified, and GCC and Clang built different worlds from one input.
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>
#include <btBulletDynamicsCommon.h>

#include <memory>
#include <string>
#include <vector>

#include "ProblemFuzzer.h"
#include "propimpact/bullet/PropagativeImpactSolver.h"

namespace propimpact::fuzz {

/// A kinematic body's pose: start + velocity·t, as Bullet expects it (it
/// derives the body's velocity from the change of pose, see KinematicPaddleTest).
class ScriptedMotion : public btMotionState {
 public:
  ScriptedMotion(const btTransform& start, const btVector3& velocity) : m_start(start), m_velocity(velocity) {}
  void advance(btScalar dt) { m_time += dt; }
  void getWorldTransform(btTransform& pose) const override {
    pose = m_start;
    pose.setOrigin(m_start.getOrigin() + m_velocity * m_time);
  }
  void setWorldTransform(const btTransform&) override {}

 private:
  btTransform m_start;
  btVector3 m_velocity;
  btScalar m_time = 0;
};

/// One fuzzed world; owns everything Bullet only points to.
struct FuzzWorld {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher{&configuration};
  btDbvtBroadphase broadphase;
  PropagativeImpactSolver solver;
  btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &configuration};
  std::vector<std::unique_ptr<btCollisionShape>> shapes;
  std::vector<std::unique_ptr<btMotionState>> motions;
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  std::vector<std::unique_ptr<btTypedConstraint>> joints;
  std::vector<ScriptedMotion*> scripted;
  std::vector<btRigidBody*> dynamic;  ///< dynamic bodies, in creation order
  bool hasKinematic = false;
  btScalar dt = btScalar(1) / 240;
  int substeps = 200;
  int poisonStep = -1;   ///< substep before which one body's velocity turns NaN (-1: none)
  int poisonBody = 0;    ///< which one (index into dynamic)
  std::string description;

  ~FuzzWorld() {
    for (auto& j : joints) world.removeConstraint(j.get());
    for (auto& b : bodies) world.removeRigidBody(b.get());
  }
};

namespace detail {

inline btVector3 vec(ByteReader& in, btScalar scale) {
  return scale * btVector3{btScalar(in.signedUnit()), btScalar(in.signedUnit()), btScalar(in.signedUnit())};
}

inline btScalar between(ByteReader& in, double lo, double hi) { return btScalar(lo + (hi - lo) * in.unit()); }

/// A convex shape with its bounding radius (for placing it above the floor).
inline std::unique_ptr<btCollisionShape> convexShape(ByteReader& in, int kind, btScalar& radius) {
  switch (kind) {
    case 1: {
      const btVector3 half{between(in, 0.02, 1), between(in, 0.02, 1), between(in, 0.02, 1)};
      radius = half.length();
      return std::make_unique<btBoxShape>(half);
    }
    case 2: {
      const btScalar r = between(in, 0.02, 0.6), h = between(in, 0, 1.5);
      radius = r + h / 2;
      return std::make_unique<btCapsuleShape>(r, h);
    }
    case 3: {
      auto hull = std::make_unique<btConvexHullShape>();
      const int points = in.range(4, 12);
      radius = 0;
      for (int k = 0; k < points; ++k) {
        const btVector3 p = vec(in, between(in, 0.05, 1));
        hull->addPoint(p, k + 1 == points);
        radius = std::max(radius, p.length());
      }
      return hull;
    }
    default: {
      radius = between(in, 0.02, 1);
      return std::make_unique<btSphereShape>(radius);
    }
  }
}

/// A shape of any kind (compounds of two or three convex children, offset).
inline btCollisionShape* shape(FuzzWorld& w, ByteReader& in, btScalar& radius, std::string& name) {
  static const char* const names[] = {"sphere", "box", "capsule", "hull", "compound"};
  const int kind = in.byte() % 5;
  name = names[kind];
  if (kind < 4) {
    w.shapes.push_back(convexShape(in, kind, radius));
    return w.shapes.back().get();
  }
  auto compound = std::make_unique<btCompoundShape>();
  const int children = in.range(2, 3);
  radius = 0;
  for (int k = 0; k < children; ++k) {
    btScalar childRadius = 0;
    w.shapes.push_back(convexShape(in, in.byte() % 4, childRadius));
    btTransform offset;
    offset.setIdentity();
    offset.setOrigin(vec(in, 0.5));
    compound->addChildShape(offset, w.shapes.back().get());
    radius = std::max(radius, offset.getOrigin().length() + childRadius);
  }
  w.shapes.push_back(std::move(compound));
  return w.shapes.back().get();
}

/// Mass, inertia, material and velocity of a dynamic body (Bullet's own
/// setters, so every value takes the path an application's would).
inline void dynamicProperties(ByteReader& in, btCollisionShape* s, btRigidBody& body) {
  const btScalar mass = btScalar(in.chance(4) ? in.power(-6, 6) : in.power(-1, 1));
  btVector3 inertia(0, 0, 0);
  s->calculateLocalInertia(mass, inertia);
  for (int a = 0; a < 3; ++a) {
    if (in.chance(6)) inertia[a] *= btScalar(in.power(-3, 3));
    // Nearly infinite, not infinite: Bullet keeps ω constant in the world
    // frame, so a body turning about another axis brings spin onto a truly
    // infinite-inertia axis, a prescribed motion that may add energy (as the
    // core check allows); the first world run found a 0.57 % gain so.
    if (in.chance(12)) inertia[a] *= btScalar(1e6);
  }
  body.setMassProps(mass, inertia);
  body.updateInertiaTensor();
  body.setRestitution(btScalar(in.chance(3) ? 1 : in.unit()));
  body.setFriction(btScalar(in.chance(3) ? 0 : 1.5 * in.unit()));
  if (in.chance(4)) {
    const auto linearDamping = btScalar(0.9 * in.unit());
    body.setDamping(linearDamping, btScalar(0.9 * in.unit()));
  }
  btVector3 linear(1, 1, 1), angular(1, 1, 1);
  for (int a = 0; a < 3; ++a) {
    if (in.chance(10)) linear[a] = 0;
    if (in.chance(8)) angular[a] = 0;
  }
  body.setLinearFactor(linear);
  body.setAngularFactor(angular);
  // Velocity along a locked axis would be a prescribed motion Bullet never
  // removes; an application starts without it.
  body.setLinearVelocity(vec(in, btScalar(in.power(-2, 1.3))) * linear);
  body.setAngularVelocity(in.chance(2) ? vec(in, 5) * angular : btVector3(0, 0, 0));
  body.setActivationState(DISABLE_DEACTIVATION);
}

inline void addBody(FuzzWorld& w, ByteReader& in, int index) {
  btScalar radius = 0;
  std::string name;
  btCollisionShape* s = shape(w, in, radius, name);
  btTransform pose;
  pose.setIdentity();
  const btQuaternion q{btScalar(in.signedUnit()), btScalar(in.signedUnit()), btScalar(in.signedUnit()),
                       btScalar(in.signedUnit())};
  if (q.length() > btScalar(1e-3)) pose.setRotation(q.normalized());
  // Entirely above the floor; neighbours may overlap (x, z within 1.5 m).
  pose.setOrigin(btVector3{between(in, -1.5, 1.5), radius + between(in, 0.001, 3), between(in, -1.5, 1.5)});
  const bool kinematic = index > 0 && in.chance(8);
  if (kinematic) {
    const btVector3 v = vec(in, 2);
    auto motion = std::make_unique<ScriptedMotion>(pose, v);
    w.scripted.push_back(motion.get());
    w.motions.push_back(std::move(motion));
  } else {
    w.motions.push_back(std::make_unique<btDefaultMotionState>(pose));
  }
  w.bodies.push_back(std::make_unique<btRigidBody>(btRigidBody::btRigidBodyConstructionInfo(0, w.motions.back().get(), s)));
  btRigidBody& body = *w.bodies.back();
  if (kinematic) {
    body.setCollisionFlags(body.getCollisionFlags() | btCollisionObject::CF_KINEMATIC_OBJECT);
    body.setActivationState(DISABLE_DEACTIVATION);
    body.setRestitution(btScalar(in.unit()));
    w.hasKinematic = true;
    w.description += " kinematic-" + name;
  } else {
    dynamicProperties(in, s, body);
    w.dynamic.push_back(&body);
    w.description += " " + name + "(m " + std::to_string(1 / body.getInvMass()) + ")";
  }
  w.world.addRigidBody(&body);
}

/// A hinge or point-to-point joint on a dynamic body, to another body or to
/// the world, pivoting at a point near the body (so above the floor).
inline void addJoint(FuzzWorld& w, ByteReader& in) {
  if (w.dynamic.empty()) return;
  btRigidBody& a = *w.dynamic[in.byte() % w.dynamic.size()];
  btRigidBody* b = w.dynamic.size() > 1 && in.chance(2) ? w.dynamic[in.byte() % w.dynamic.size()] : nullptr;
  if (b == &a) b = nullptr;
  const btVector3 pivotA = vec(in, 0.5);
  const btVector3 world = a.getCenterOfMassTransform() * pivotA;
  const btVector3 pivotB = b ? b->getCenterOfMassTransform().inverse() * world : world;
  if (in.chance(2)) {
    const btVector3 drawn = vec(in, 1);
    const btVector3 axis = drawn.length() > btScalar(1e-3) ? drawn.normalized() : btVector3(0, 0, 1);
    const btVector3 axisB = b ? b->getCenterOfMassTransform().getBasis().transpose() * axis : axis;
    const btVector3 axisA = a.getCenterOfMassTransform().getBasis().transpose() * axis;
    if (b) w.joints.push_back(std::make_unique<btHingeConstraint>(a, *b, pivotA, pivotB, axisA, axisB));
    else w.joints.push_back(std::make_unique<btHingeConstraint>(a, pivotA, axisA));
    w.description += " hinge";
  } else {
    if (b) w.joints.push_back(std::make_unique<btPoint2PointConstraint>(a, *b, pivotA, pivotB));
    else w.joints.push_back(std::make_unique<btPoint2PointConstraint>(a, pivotA));
    w.description += " p2p";
  }
  w.world.addConstraint(w.joints.back().get(), in.chance(2));
}

}  // namespace detail

/// Builds the world the bytes describe into \p w (a fresh FuzzWorld).
inline void buildWorld(const std::uint8_t* data, std::size_t size, FuzzWorld& w) {
  using namespace detail;
  ByteReader in(data, size);
  w.world.setGravity(in.chance(4) ? btVector3(0, 0, 0) : btVector3(0, -9.81f, 0));
  w.dt = btScalar(1) / btScalar(in.chance(2) ? 240 : in.chance(2) ? 60 : 1000);
  w.substeps = in.range(100, 300);
  // The floor: y = 0, what the no-tunnelling check measures against.
  w.shapes.push_back(std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), btScalar(0)));
  w.bodies.push_back(std::make_unique<btRigidBody>(btRigidBody::btRigidBodyConstructionInfo(0, nullptr, w.shapes.back().get())));
  w.bodies.back()->setRestitution(btScalar(in.unit()));
  w.bodies.back()->setFriction(btScalar(in.unit()));
  w.world.addRigidBody(w.bodies.back().get());
  const int count = in.range(1, 8);
  for (int k = 0; k < count; ++k) addBody(w, in, k);
  const int joints = in.chance(3) ? in.range(1, 3) : 0;
  for (int k = 0; k < joints; ++k) addJoint(w, in);
  if (in.chance(16) && !w.dynamic.empty()) {
    w.poisonStep = in.range(0, 99);
    w.poisonBody = in.byte() % static_cast<int>(w.dynamic.size());
  }
  // Both settings are fuzzed. Read last, and an exhausted input reads 0, so a
  // recorded input whose bytes end before here still steps the frictionless
  // world it was found in (WorldCorpusTest checks the findings' files).
  w.solver.settings().impactFriction = in.chance(2);
  w.description = "dt 1/" + std::to_string(static_cast<int>(1 / w.dt + btScalar(0.5))) + ", " +
                  std::to_string(w.substeps) + " substeps, impact friction " +
                  (w.solver.settings().impactFriction ? "on" : "off") + "," + w.description;
}

}  // namespace propimpact::fuzz
