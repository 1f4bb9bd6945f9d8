#include "Island.h"

#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

#include "AheadGeometry.h"
#include "Conversions.h"
#include "BodyChecks.h"

namespace propimpact::bullet_detail {
namespace {

Vector3 pointVelocity(const btCollisionObject* object, const Vector3& offset) {
  const btRigidBody* rb = btRigidBody::upcast(object);
  if (!rb) return Vector3::Zero();
  return toEigen(rb->getLinearVelocity()) + toEigen(rb->getAngularVelocity()).cross(offset);
}

std::uint64_t worldIndex(const btCollisionObject* o) {
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(o->getWorldArrayIndex()));
}

}  // namespace

void Island::gatherBodies(btCollisionObject** objects, int count, Scalar dt, const SolverSettings& settings,
                          StepReport& report) {
  m_objects = objects;
  m_count = count;
  m_dt = dt;
  m_report = settings.keepReport ? &report : nullptr;
  bodies.assign(static_cast<std::size_t>(count), IslandBody{});
  for (int i = 0; i < count; ++i) {
    IslandBody& st = bodies[static_cast<std::size_t>(i)];
    objects[i]->setCompanionId(-1);
    btRigidBody* rb = btRigidBody::upcast(objects[i]);
    if (!rb || rb->isStaticOrKinematicObject()) continue;
    st.body = rb;
    objects[i]->setCompanionId(i);
    if (const char* reason = rigidBodyRejection(*rb)) {
      st.excluded = true;
      reject(rb, reason);
      continue;
    }
    // Fractional factors have no symmetric metric: such a body is left to the
    // sequential-impulse pass, like Bullet would treat it.
    if (!binary(rb->getLinearFactor()) || !binary(rb->getAngularFactor())) continue;
    st.usable = true;
    st.kickLinear = toEigen(rb->getTotalForce()) * rb->getInvMass() * dt;
    st.kickAngular = toEigen(rb->getInvInertiaTensorWorld()) * toEigen(rb->getTotalTorque()) * dt;
  }
}

void Island::reject(const btCollisionObject* body, const char* reason) {
  if (!m_report) return;
  const bool known = std::any_of(m_report->rejected.begin(), m_report->rejected.end(),
                                 [&](const RejectedBody& r) { return r.body == body; });
  if (!known) m_report->rejected.push_back(RejectedBody{body, reason});
}

bool Island::brokenFixedBody(const btCollisionObject* object) {
  const char* reason = fixedBodyRejection(object);
  if (reason) reject(object, reason);
  return reason != nullptr;
}

void Island::releaseBodies() {
  for (int i = 0; i < m_count; ++i) m_objects[i]->setCompanionId(-1);
}

int Island::dynamicIndex(const btCollisionObject* object) const {
  if (object->isStaticOrKinematicObject()) return -1;
  const int id = object->getCompanionId();
  if (id < 0 || id >= m_count || m_objects[id] != object) return -2;  // not in this group: leave to Bullet
  return id;
}

inline Vector3 Island::kickAt(int body, const Vector3& offset) const {
  const IslandBody& st = bodies[static_cast<std::size_t>(body)];
  return st.kickLinear + st.kickAngular.cross(offset);
}

void Island::gatherContacts(btPersistentManifold** manifolds, int count, const SolverSettings& settings,
                            ContactHistory& history, RestingPass& resting) {
  contacts.clear();
  speculative.clear();
  m_ahead.clear();
  m_settings = &settings;
  // Sized by the island (at most MANIFOLD_CACHE_SIZE points per manifold, one
  // ahead point for an empty one) with room to double, so that a step with
  // more contacts than any before allocates nothing; ahead points are
  // referenced, so m_ahead must not reallocate below in any case.
  const auto manifoldCount = static_cast<std::size_t>(count);
  const std::size_t pointCount = manifoldCount * MANIFOLD_CACHE_SIZE;
  if (m_ahead.capacity() < manifoldCount) m_ahead.reserve(2 * manifoldCount);
  if (contacts.capacity() < pointCount) contacts.reserve(2 * pointCount);
  if (speculative.capacity() < pointCount) speculative.reserve(2 * pointCount);
  for (int k = 0; k < count; ++k) {
    btPersistentManifold* manifold = manifolds[k];
    const btCollisionObject* objectA = manifold->getBody0();
    const btCollisionObject* objectB = manifold->getBody1();
    const int a = dynamicIndex(objectA);
    const int b = dynamicIndex(objectB);
    // Keep a rejected body's NaN or negative mass away from its neighbours:
    // its manifolds stay out of Bullet's pass too (a hidden point's row would
    // still carry a NaN relative velocity into the neighbour).
    if ((a >= 0 && bodies[static_cast<std::size_t>(a)].excluded) || (b >= 0 && bodies[static_cast<std::size_t>(b)].excluded))
      continue;
    if (brokenFixedBody(objectA) || brokenFixedBody(objectB)) continue;
    resting.addManifold(manifold);
    if (a == -2 || b == -2 || (a < 0 && b < 0)) continue;
    if ((a >= 0 && !bodies[static_cast<std::size_t>(a)].usable) || (b >= 0 && !bodies[static_cast<std::size_t>(b)].usable))
      continue;
    if (manifold->getNumContacts() == 0) {
      addAheadPoint(*manifold, a, b, settings, history, resting);
      continue;
    }
    for (int j = 0; j < manifold->getNumContacts(); ++j) {
      btManifoldPoint& cp = manifold->getContactPoint(j);
      IslandContact c;
      c.point = &cp;
      c.objectA = objectA;
      c.objectB = objectB;
      c.bodyA = a;
      c.bodyB = b;
      c.normal = toEigen(cp.m_normalWorldOnB);
      if (!(c.normal.norm() > 0.5) || !c.normal.allFinite()) continue;  // degenerate normal: Bullet's pass only
      c.normal.normalize();
      c.offsetA = toEigen(cp.getPositionWorldOnA() - objectA->getWorldTransform().getOrigin());
      c.offsetB = toEigen(cp.getPositionWorldOnB() - objectB->getWorldTransform().getOrigin());
      const std::uint64_t lo = std::min(worldIndex(objectA), worldIndex(objectB));
      const std::uint64_t hi = std::max(worldIndex(objectA), worldIndex(objectB));
      c.key = (lo << 36) ^ (hi << 8) ^ static_cast<std::uint64_t>(j);
      classify(c, *manifold, settings, history, resting);
    }
  }
}

// Bullet reports no point for two spheres apart (nor, through round-off, for
// two exactly touching: a cradle's chain would break), and for a sphere and a
// box or a static plane only within the contact breaking threshold (2 cm, and a
// small sphere's share of it: 0.4 mm for a ball of 2 cm), while at 60 Hz a body
// moves v·dt (15 cm in a pile) in a step: it would arrive that deep and be
// reflected from there. A broadphase pair's manifold exists, empty, as soon as
// the swept bounds meet; for those shapes our own closest points give a point,
// touching or speculative, which classify reflects now if the step would close it.
// The point is ours (never in Bullet's manifold or pass); its restitution and
// friction are combined as Bullet combines them for a new point.
void Island::addAheadPoint(const btPersistentManifold& manifold, int a, int b, const SolverSettings& settings,
                           ContactHistory& history, RestingPass& resting) {
  const btCollisionObject* objectA = manifold.getBody0();
  const btCollisionObject* objectB = manifold.getBody1();
  const int typeA = objectA->getCollisionShape()->getShapeType();
  const int typeB = objectB->getCollisionShape()->getShapeType();
  if (!hasAheadPoints(typeA, typeB)) return;
  const bool spheres = typeA == SPHERE_SHAPE_PROXYTYPE && typeB == SPHERE_SHAPE_PROXYTYPE;
  // A pair of spheres, or a sphere and a plane, that does not touch within
  // the step stays speculative with today's closest points: an impact of
  // this pass may still send them together. Most broadphase pairs of a pile
  // are such (and every body has a manifold with an infinite plane); their
  // point is made only if an impact moves one of them
  // (promoteClosingSpeculative), with the same arithmetic as here, so the
  // outcome is the same.
  if (hasCheapGap(typeA, typeB)) {
    const btScalar gap = aheadGap(*objectA, *objectB);
    if (!(gap == gap)) return;  // coincident centres: no closest points
    IslandContact c;
    c.objectA = objectA;
    c.objectB = objectB;
    c.bodyA = a;
    c.bodyB = b;
    c.normal = c.offsetA = c.offsetB = Vector3::Zero();  // made with the point
    c.deferred = &manifold;
    btScalar t = 0;
    btVector3 between, relative;
    if (gap > settings.touchingDistance &&
        !(spheres ? touchWithinStep(*objectA, *objectB, a, b, t, between, relative) : mayClose(c))) {
      speculative.push_back(c);
      return;
    }
  }
  IslandContact c;
  if (!makeAheadPoint(manifold, a, b, c)) return;
  // Apart spheres that touch within the step (tested above) take the normal at touch.
  if (spheres && c.point->getDistance() > settings.touchingDistance && aimAtTouch(*c.point, *objectA, *objectB, a, b)) {
    c.normal = toEigen(c.point->m_normalWorldOnB);
    c.offsetA = toEigen(c.point->getPositionWorldOnA() - objectA->getWorldTransform().getOrigin());
    c.offsetB = toEigen(c.point->getPositionWorldOnB() - objectB->getWorldTransform().getOrigin());
  }
  classify(c, manifold, settings, history, resting);
}

bool Island::makeAheadPoint(const btPersistentManifold& manifold, int a, int b, IslandContact& c) {
  const btCollisionObject* objectA = manifold.getBody0();
  const btCollisionObject* objectB = manifold.getBody1();
  std::optional<btManifoldPoint> found = closestPoints(*objectA, *objectB);
  if (!found || m_ahead.size() == m_ahead.capacity()) return false;
  found->m_combinedRestitution = gCalculateCombinedRestitutionCallback(objectA, objectB);
  found->m_combinedFriction = gCalculateCombinedFrictionCallback(objectA, objectB);
  m_ahead.push_back(*found);
  c.point = &m_ahead.back();
  c.objectA = objectA;
  c.objectB = objectB;
  c.bodyA = a;
  c.bodyB = b;
  c.deferred = nullptr;
  c.normal = toEigen(c.point->m_normalWorldOnB);
  c.offsetA = toEigen(c.point->getPositionWorldOnA() - objectA->getWorldTransform().getOrigin());
  c.offsetB = toEigen(c.point->getPositionWorldOnB() - objectB->getWorldTransform().getOrigin());
  const std::uint64_t lo = std::min(worldIndex(objectA), worldIndex(objectB));
  const std::uint64_t hi = std::max(worldIndex(objectA), worldIndex(objectB));
  c.key = (lo << 36) ^ (hi << 8);
  return true;
}

// After a round of impacts a body may be sent towards a speculative point
// (one it had not been approaching, or a resting one): if the rest of the
// step would close it, it becomes a seed of another round instead of letting
// the body arrive up to v·dt deep. Every earlier seed has been resolved.
bool Island::promoteClosingSpeculative() {
  const auto impacted = [&](int body) { return body >= 0 && bodies[static_cast<std::size_t>(body)].impacted; };
  for (IslandContact& c : contacts) c.seed = false;
  bool any = false;
  std::size_t kept = 0;
  for (IslandContact& c : speculative) {
    const bool moved = impacted(c.bodyA) || impacted(c.bodyB);
    if (!moved || (c.deferred && !(mayClose(c) && makeDeferredPoint(c)))) {
      speculative[kept++] = c;
      continue;
    }
    const Scalar velocity = c.normal.dot(pointVelocity(c.objectA, c.offsetA) - pointVelocity(c.objectB, c.offsetB));
    const Scalar approachMid = velocity + 0.5 * c.kick;
    const bool closes = -(velocity + c.kick) * m_dt > Scalar(c.point->getDistance());
    if (approachMid < -c.restingSpeed && closes) {
      c.approachMid = approachMid;
      c.seed = true;
      contacts.push_back(c);
      any = true;
    } else {
      speculative[kept++] = c;
    }
  }
  speculative.resize(kept);
  return any;
}

// Whether a deferred pair (two spheres, a sphere and a plane) could close its
// gap in this step: a bound on the closing test's |velocity + kick| (surface
// points of both shapes, every term's magnitude summed, 1 % over for
// round-off) against today's gap. Only a pair that passes needs its point made and tested.
bool Island::mayClose(const IslandContact& c) const {
  Scalar bound = 0;
  Vector3 linear = Vector3::Zero();
  for (const auto& [object, body, sign] : {std::tuple(c.objectA, c.bodyA, 1), std::tuple(c.objectB, c.bodyB, -1)}) {
    const btRigidBody* rb = btRigidBody::upcast(object);
    const Scalar reach = aheadReach(*object);
    Vector3 spin = rb ? toEigen(rb->getAngularVelocity()) : Vector3::Zero();
    if (rb) linear += sign * toEigen(rb->getLinearVelocity());
    if (body >= 0) {
      const IslandBody& st = bodies[static_cast<std::size_t>(body)];
      linear += sign * st.kickLinear;
      if (reach == 0 && st.kickAngular.squaredNorm() > 0) return true;
      bound += st.kickAngular.norm() * reach;
    }
    // A turning plane's points move without bound: no cheap test.
    if (reach == 0 && spin.squaredNorm() > 0) return true;
    bound += spin.norm() * reach;
  }
  bound += linear.norm();
  return 1.01 * bound * m_dt >= Scalar(aheadGap(*c.objectA, *c.objectB));
}

// Two spheres apart: where this step's motion (velocity plus the step's kick,
// as Bullet integrates positions) first brings them into touch. The point
// takes the normal at touch, so the reflection now is the one at touch (for
// an oblique approach today's line of centres differs from it), and a
// distance that classify's closing test reads as "closes within dt" exactly
// when touch comes within the step. False when the spheres do not touch in it.
bool Island::touchWithinStep(const btCollisionObject& a, const btCollisionObject& b, int bodyA, int bodyB, btScalar& t,
                             btVector3& between, btVector3& relative) const {
  const auto motion = [&](const btCollisionObject& object, int body) -> btVector3 {
    const btRigidBody* rb = btRigidBody::upcast(&object);
    btVector3 v = rb ? rb->getLinearVelocity() : btVector3(0, 0, 0);
    if (body >= 0) v += toBullet(bodies[static_cast<std::size_t>(body)].kickLinear);
    return v;
  };
  const btScalar radiusA = static_cast<const btSphereShape*>(a.getCollisionShape())->getRadius();
  const btScalar radiusB = static_cast<const btSphereShape*>(b.getCollisionShape())->getRadius();
  between = a.getWorldTransform().getOrigin() - b.getWorldTransform().getOrigin();
  relative = motion(a, bodyA) - motion(b, bodyB);
  // |between + relative·t| = radiusA + radiusB, smallest root.
  const btScalar qa = relative.length2();
  const btScalar qb = 2 * between.dot(relative);
  const btScalar qc = between.length2() - (radiusA + radiusB) * (radiusA + radiusB);
  const btScalar discriminant = qb * qb - 4 * qa * qc;
  if (!(qa > 0) || !(qb < 0) || discriminant < 0) return false;
  t = (-qb - std::sqrt(discriminant)) / (2 * qa);
  return t >= 0 && t <= btScalar(m_dt);
}

bool Island::aimAtTouch(btManifoldPoint& point, const btCollisionObject& a, const btCollisionObject& b, int bodyA,
                        int bodyB) const {
  btScalar t = 0;
  btVector3 between, relative;
  if (!touchWithinStep(a, b, bodyA, bodyB, t, between, relative)) return false;
  const btScalar radiusA = static_cast<const btSphereShape*>(a.getCollisionShape())->getRadius();
  const btScalar radiusB = static_cast<const btSphereShape*>(b.getCollisionShape())->getRadius();
  const btVector3 n = (between + relative * t).normalized();
  point.m_normalWorldOnB = n;
  point.m_positionWorldOnA = a.getWorldTransform().getOrigin() - n * radiusA;
  point.m_positionWorldOnB = b.getWorldTransform().getOrigin() + n * radiusB;
  point.m_distance1 = -n.dot(relative) * t;
  return true;
}

// The kicks, the Zeno threshold, the partner's bias and the mid-step approach
// of a point, from today's velocities.
inline void Island::measure(IslandContact& c, const SolverSettings& settings, Scalar& velocityA, Scalar& velocityB,
                            Scalar& forcing) const {
  velocityA = c.normal.dot(pointVelocity(c.objectA, c.offsetA));
  velocityB = c.normal.dot(pointVelocity(c.objectB, c.offsetB));
  const Vector3 kickPointA = c.bodyA >= 0 ? kickAt(c.bodyA, c.offsetA) : Vector3::Zero();
  const Vector3 kickPointB = c.bodyB >= 0 ? kickAt(c.bodyB, c.offsetB) : Vector3::Zero();
  const Scalar kickA = c.bodyA >= 0 ? c.normal.dot(kickPointA) : Scalar(0);
  const Scalar kickB = c.bodyB >= 0 ? c.normal.dot(kickPointB) : Scalar(0);
  c.kick = kickA - kickB;
  // The noise floor of resting contact is the step's external kick at the
  // contact, in any direction: a stack shares gravity's kick (its relative
  // kick is zero) and Bullet's iterative pass leaves residual velocities of
  // that order across side contacts of a pile too.
  forcing = std::abs(c.kick);
  if (c.bodyA >= 0) forcing = std::max(forcing, kickPointA.norm());
  if (c.bodyB >= 0) forcing = std::max(forcing, kickPointB.norm());
  c.restingSpeed = settings.restingFactor * forcing + settings.restingFloor;
  c.bias = (c.bodyA < 0 ? velocityA : 0) - (c.bodyB < 0 ? velocityB : 0);
  c.approachMid = velocityA - velocityB + 0.5 * c.kick;
}

// A point addAheadPoint deferred, made now that an impact moved one of its
// spheres: today's closest points (positions do not change within a pass),
// with what classify gives a speculative point of an empty manifold (never
// persistent: it has no point that carried load). Its kick, threshold and
// bias do not depend on what the impacts changed (dynamic bodies'
// velocities); promoteClosingSpeculative recomputes the approach.
bool Island::makeDeferredPoint(IslandContact& c) {
  const btPersistentManifold& manifold = *c.deferred;
  if (!makeAheadPoint(manifold, c.bodyA, c.bodyB, c)) return false;
  Scalar velocityA = 0, velocityB = 0, forcing = 0;
  measure(c, *m_settings, velocityA, velocityB, forcing);
  c.persistent = false;
  c.seed = false;
  return true;
}

// The Zeno rule (SPEC §7): an impact when the mid-step approach exceeds what
// this step's external forces alone produce, and the contact is not persistent.
void Island::classify(IslandContact& c, const btPersistentManifold& manifold, const SolverSettings& settings,
                      ContactHistory& history, RestingPass& resting) {
  btManifoldPoint& cp = *c.point;
  Scalar velocityA = 0, velocityB = 0, forcing = 0;
  measure(c, settings, velocityA, velocityB, forcing);
  const bool approaching = c.approachMid < -c.restingSpeed;
  // Persistent contact is resting contact (the paper's Zeno rule): a point
  // that carried Bullet's resting impulse last step, or a one-point manifold
  // (rebuilt every frame, like sphere–sphere) that was already touching last
  // pass. An impact can still reach it by propagation. So is a point of an
  // impacted pair that approaches again deeper than the overlap slop: the
  // impact separated it, so what brought it back was not the impact (Bullet's
  // implicit gyroscopic step takes the rebound spin from a body of extreme
  // inertia ratio), and reflecting it step after step let such a body sink
  // (world fuzz finding world-thin-hull-sinks-through-the-floor-at-240-hz).
  // Neither holds for a new vertex of a tumbling polyhedron: that contact
  // never touched before (ContactHistory::newVertex), and stopping it
  // plastically, one vertex a step, let a box tumble into the floor.
  const bool touching = cp.getDistance() <= settings.touchingDistance;
  const bool impactedPair = touching && history.touchImpactedPair(c.objectA, c.objectB);
  c.newVertex = history.newVertex(manifold, cp);
  const bool persistent = cp.m_appliedImpulse > 0 ||
                          (!c.newVertex && manifold.getNumContacts() == 1 && history.touchingLastPass(&manifold)) ||
                          (!c.newVertex && impactedPair && cp.getDistance() < -settings.impactOverlapSlop);
  if (!touching) {
    // A speculative point of a future impact: Bullet's pass would stop the
    // body plastically at the surface; let it arrive and be reflected. Judged
    // after this step's impacts, which may send a body towards it: then even
    // a point that was resting (a ball lying against a wall, hit by another
    // ball) must let it arrive (the elastic gas lost 0.35 % that way after ~10⁶ steps).
    c.persistent = persistent;
    // One that this step's motion would close (its end-of-step approach
    // covers the gap within dt) is reflected now instead of arriving up to
    // v·dt deep and being reflected from there next step: the rebound starts
    // a gap short of the surface, with the same velocities, so energy (and
    // so the apex) is what a rebound at touch would give, without the overlap.
    const Scalar approachEnd = velocityA - velocityB + c.kick;
    if (approaching && !persistent && -approachEnd * m_dt > Scalar(cp.getDistance())) {
      c.seed = true;
      contacts.push_back(c);
      return;
    }
    speculative.push_back(c);
    return;
  }
  c.seed = approaching && !persistent;
  // A touching point that already separates needs no push: Bullet's pass
  // would push a grazing pair's overlap out at erp·depth/dt and add energy.
  if (c.approachMid > c.restingSpeed) resting.keepOverlap(cp);
  if (impactedPair) {
    // A pair that had an impact gets its overlap pushed out through positions
    // only (through a velocity it would add energy) until it bears load: a load-bearing contact
    // in a pile must be corrected or bodies sink. Load means external forces
    // press along the contact and Bullet's pass carried a real share of them
    // (a tenth of one step's kick), not a round-off impulse.
    const btRigidBody* bodyA = btRigidBody::upcast(c.objectA);
    const btRigidBody* bodyB = btRigidBody::upcast(c.objectB);
    const Scalar inverseMass = (bodyA ? bodyA->getInvMass() : 0) + (bodyB ? bodyB->getInvMass() : 0);
    const Scalar loadImpulse = inverseMass > 0 ? 0.1 * forcing / inverseMass : 0;
    const Scalar carried = std::max<Scalar>(cp.m_appliedImpulse, history.impulseLastPass(&manifold));
    const bool bearsLoad = forcing > 0 && carried > loadImpulse;
    if (!bearsLoad) resting.pushOut(cp);
  }
  contacts.push_back(c);
}

}  // namespace propimpact::bullet_detail
