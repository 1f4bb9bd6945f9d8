#include "Island.h"

#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>

#include "AheadGeometry.h"
#include "Conversions.h"

// The gather stage's points of our own (Island.h): closest points of shape
// pairs whose Bullet manifold is empty, corners a static plane's manifold does
// not hold, and the promotion of speculative points that this pass's impacts
// drive shut.
namespace propimpact::bullet_detail {

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
    c.gap = gap;
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
  keep(c, classify(c, manifold, settings, history, resting));
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
  c.ahead = &manifold;
  c.normal = toEigen(c.point->m_normalWorldOnB);
  c.offsetA = toEigen(c.point->getPositionWorldOnA() - objectA->getWorldTransform().getOrigin());
  c.offsetB = toEigen(c.point->getPositionWorldOnB() - objectB->getWorldTransform().getOrigin());
  const std::uint64_t lo = std::min(worldIndex(objectA), worldIndex(objectB));
  const std::uint64_t hi = std::max(worldIndex(objectA), worldIndex(objectB));
  c.key = (lo << 36) ^ (hi << 8);
  return true;
}

// Bullet's convex–plane contact keeps the deepest corner (and what its
// perturbation finds) once it is within the breaking threshold, so a box
// landing or tumbling on a plane at 60 Hz met one corner a step: each corner
// stopped alone, the centre kept falling and the next corner arrived up to
// v·dt deep (world fuzz: a box landing at 7.9 m/s sank 30 cm in three steps).
// Every other corner of the body that is not yet touching gets a speculative
// point of ours, judged like Bullet's: closing within the step, it is an
// impact now; otherwise it waits for the impacts of this pass, which may turn
// the body onto it (promoteClosingSpeculative). Corners that touch are left
// to Bullet's manifold, whose resting contact holds them. A compound has one
// manifold per child with the plane: every child's corners are made once per
// pair, and only the manifold at hand is asked whether it holds one, so a
// point of ours may sit next to a sibling manifold's (a near-duplicate row,
// which the resolver merges or solves alongside).
void Island::addPlaneFeatures(const btPersistentManifold& manifold, int a, int b, const SolverSettings& settings,
                              ContactHistory& history, RestingPass& resting) {
  const btCollisionObject* objectA = manifold.getBody0();
  const btCollisionObject* objectB = manifold.getBody1();
  const bool planeIsB = isStaticPlane(objectB);
  const btCollisionObject& body = planeIsB ? *objectA : *objectB;
  const int dynamic = planeIsB ? a : b;
  if (dynamic < 0) return;  // a static or kinematic body: no impact
  const btCollisionObject* plane = planeIsB ? objectB : objectA;
  IslandBody& st = bodies[static_cast<std::size_t>(dynamic)];
  if (st.cornersAgainst == plane) return;
  st.cornersAgainst = plane;
  PlaneFeature features[kPlaneFeaturesPerManifold];
  btVector3 normal;
  const int count = planeFeatures(body, *plane, features, kPlaneFeaturesPerManifold, normal);
  btVector3 centre;
  btScalar radius = 0;
  body.getCollisionShape()->getBoundingSphere(centre, radius);
  const btScalar sameCorner = btScalar(0.2) * radius;
  const std::uint64_t lo = std::min(worldIndex(objectA), worldIndex(objectB));
  const std::uint64_t hi = std::max(worldIndex(objectA), worldIndex(objectB));
  for (int k = 0; k < count && m_ahead.size() < m_ahead.capacity(); ++k) {
    const PlaneFeature& f = features[k];
    if (!(f.distance > settings.touchingDistance)) continue;
    bool held = false;  // by one of Bullet's points
    for (int j = 0; j < manifold.getNumContacts() && !held; ++j) {
      const btManifoldPoint& p = manifold.getContactPoint(j);
      held = ((planeIsB ? p.getPositionWorldOnA() : p.getPositionWorldOnB()) - f.onBody).length() <= sameCorner;
    }
    if (held) continue;
    btManifoldPoint point(f.onBody, f.onPlane, normal, f.distance);
    if (!planeIsB) point = btManifoldPoint(f.onPlane, f.onBody, -normal, f.distance);
    point.m_positionWorldOnA = planeIsB ? f.onBody : f.onPlane;
    point.m_positionWorldOnB = planeIsB ? f.onPlane : f.onBody;
    point.m_combinedRestitution = gCalculateCombinedRestitutionCallback(objectA, objectB);
    point.m_combinedFriction = gCalculateCombinedFrictionCallback(objectA, objectB);
    m_ahead.push_back(point);
    IslandContact c;
    c.point = &m_ahead.back();
    c.objectA = objectA;
    c.objectB = objectB;
    c.bodyA = a;
    c.bodyB = b;
    c.normal = toEigen(point.m_normalWorldOnB);
    c.offsetA = toEigen(point.getPositionWorldOnA() - objectA->getWorldTransform().getOrigin());
    c.offsetB = toEigen(point.getPositionWorldOnB() - objectB->getWorldTransform().getOrigin());
    c.key = (lo << 36) ^ (hi << 8) ^ static_cast<std::uint64_t>(16 + k);
    keep(c, classify(c, manifold, settings, history, resting, true));
  }
}

// After a round of impacts a body may be sent towards a speculative point
// (one it had not been approaching, or a resting one): if the rest of the
// step would close it, it becomes a seed of another round instead of letting
// the body arrive up to v·dt deep. Every earlier seed has been resolved.
bool Island::promoteClosingSpeculative() {
  ++m_round;  // this round's impacts changed velocities: reachTerms anew
  const auto impacted = [&](int body) { return body >= 0 && bodies[static_cast<std::size_t>(body)].impacted; };
  for (IslandContact& c : contacts) c.seed = false;
  bool any = false;
  std::size_t kept = 0;
  // Kept points move down over promoted ones; most stay where they are, and
  // copying an IslandContact onto itself was a tenth of this loop.
  const auto keep = [&](std::size_t k) {
    if (kept != k) speculative[kept] = speculative[k];
    ++kept;
  };
  for (std::size_t k = 0; k < speculative.size(); ++k) {
    IslandContact& c = speculative[k];
    const bool moved = impacted(c.bodyA) || impacted(c.bodyB);
    if (!moved || (c.deferred && !(mayClose(c) && makeDeferredPoint(c)))) {
      keep(k);
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
      keep(k);
    }
  }
  speculative.resize(kept);
  return any;
}

// Whether a deferred pair (two spheres, a sphere and a plane) could close its
// gap in this step: a bound on the closing test's |velocity + kick| (surface
// points of both shapes, every term's magnitude summed, 1 % over for
// round-off) against today's gap. Only a pair that passes needs its point made
// and tested. A dynamic body's terms come from reachTerms (the same
// arithmetic, once per round), summed in the same order as before.
bool Island::mayClose(const IslandContact& c) {
  if (c.bodyA >= 0 && c.bodyB >= 0) {
    // Two dynamic spheres (a pile's case) without the general loop: the same
    // sums in the same order (linear may differ only in the sign of a zero).
    const IslandBody& a = reachTerms(c.bodyA);
    const IslandBody& b = reachTerms(c.bodyB);
    if (a.reachUnbounded || b.reachUnbounded) return true;
    const Vector3 linear =
        toEigen(a.body->getLinearVelocity()) + a.kickLinear - toEigen(b.body->getLinearVelocity()) - b.kickLinear;
    Scalar bound = a.kickReach;
    bound += a.spinReach;
    bound += b.kickReach;
    bound += b.spinReach;
    bound += linear.norm();
    return 1.01 * bound * m_dt >= Scalar(c.gap);
  }
  Scalar bound = 0;
  Vector3 linear = Vector3::Zero();
  for (const auto& [object, body, sign] : {std::tuple(c.objectA, c.bodyA, 1), std::tuple(c.objectB, c.bodyB, -1)}) {
    const btRigidBody* rb = btRigidBody::upcast(object);
    if (rb) linear += sign * toEigen(rb->getLinearVelocity());
    if (body >= 0) {
      const IslandBody& st = reachTerms(body);
      linear += sign * st.kickLinear;
      if (st.reachUnbounded) return true;
      bound += st.kickReach;
      bound += st.spinReach;
      continue;
    }
    const Scalar reach = aheadReach(*object);
    const Vector3 spin = rb ? toEigen(rb->getAngularVelocity()) : Vector3::Zero();
    // A turning plane's points move without bound: no cheap test.
    if (reach == 0 && spin.squaredNorm() > 0) return true;
    bound += spin.norm() * reach;
  }
  bound += linear.norm();
  return 1.01 * bound * m_dt >= Scalar(c.gap);
}

const IslandBody& Island::reachTerms(int body) {
  IslandBody& st = bodies[static_cast<std::size_t>(body)];
  if (st.reachRound == m_round) return st;
  st.reachRound = m_round;
  const Scalar reach = aheadReach(*st.body);
  const Vector3 spin = toEigen(st.body->getAngularVelocity());
  st.reachUnbounded = reach == 0 && (st.kickAngular.squaredNorm() > 0 || spin.squaredNorm() > 0);
  st.kickReach = st.kickAngular.norm() * reach;
  st.spinReach = spin.norm() * reach;
  return st;
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

}  // namespace propimpact::bullet_detail
