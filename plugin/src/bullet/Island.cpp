#include "Island.h"

#include <BulletCollision/CollisionShapes/btSphereShape.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

#include "AheadGeometry.h"
#include "Conversions.h"
#include "BodyChecks.h"
#include "LockedAxes.h"

namespace propimpact::bullet_detail {

void Island::gatherBodies(btCollisionObject** objects, int count, Scalar dt, const SolverSettings& settings,
                          StepReport& report) {
  m_objects = objects;
  m_count = count;
  m_dt = dt;
  m_round = 1;  // every body's reachRound is 0 below
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
    // As Bullet's pass takes it (PushOutSolver::convertBodies): none about a locked axis.
    st.kickAngular =
        toEigen(admissibleSpinChange(*rb, rb->getInvInertiaTensorWorld() * rb->getTotalTorque() * btScalar(dt)));
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
  m_pairAsked = nullptr;  // a manifold of the last pass may be at the same address
  m_settings = &settings;
  // Sized by the island (at most MANIFOLD_CACHE_SIZE points per manifold, one
  // ahead point for an empty one) with room to double, so that a step with
  // more contacts than any before allocates nothing; ahead points are
  // referenced, so m_ahead must not reallocate below in any case.
  const auto manifoldCount = static_cast<std::size_t>(count);
  std::size_t planeManifolds = 0;
  for (int k = 0; k < count; ++k)
    if (planeFeaturePair(*manifolds[k])) ++planeManifolds;
  const std::size_t aheadCount = manifoldCount + kPlaneFeaturesPerManifold * planeManifolds;
  const std::size_t pointCount = manifoldCount * MANIFOLD_CACHE_SIZE + kPlaneFeaturesPerManifold * planeManifolds;
  if (m_ahead.capacity() < aheadCount) m_ahead.reserve(2 * aheadCount);
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
    if (planeFeaturePair(*manifold)) addPlaneFeatures(*manifold, a, b, settings, history, resting);
    if (manifold->getNumContacts() == 0) {
      addAheadPoint(*manifold, a, b, settings, history, resting);
      continue;
    }
    for (int j = 0; j < manifold->getNumContacts(); ++j) {
      btManifoldPoint& cp = manifold->getContactPoint(j);
      // Made in place (capacity reserved above): most points stay in contacts,
      // and copying each one in was a tenth of classifying it.
      IslandContact& c = contacts.emplace_back();
      c.point = &cp;
      c.objectA = objectA;
      c.objectB = objectB;
      c.bodyA = a;
      c.bodyB = b;
      c.normal = toEigen(cp.m_normalWorldOnB);
      if (!(c.normal.norm() > 0.5) || !c.normal.allFinite()) {  // degenerate normal: Bullet's pass only
        contacts.pop_back();
        continue;
      }
      c.normal.normalize();
      c.offsetA = toEigen(cp.getPositionWorldOnA() - objectA->getWorldTransform().getOrigin());
      c.offsetB = toEigen(cp.getPositionWorldOnB() - objectB->getWorldTransform().getOrigin());
      const std::uint64_t lo = std::min(worldIndex(objectA), worldIndex(objectB));
      const std::uint64_t hi = std::max(worldIndex(objectA), worldIndex(objectB));
      c.key = (lo << 36) ^ (hi << 8) ^ static_cast<std::uint64_t>(j);
      if (!classify(c, *manifold, settings, history, resting)) {
        speculative.push_back(c);
        contacts.pop_back();
      }
    }
  }
}

bool Island::pairImpacted(const btPersistentManifold& manifold, const IslandContact& c, ContactHistory& history) {
  if (m_pairAsked != &manifold) {
    m_pairAsked = &manifold;
    m_pairImpacted = history.touchImpactedPair(c.objectA, c.objectB);
  }
  return m_pairImpacted;
}

// The kicks, the Zeno threshold, the partner's bias and the mid-step approach
// of a point, from today's velocities.
void Island::measure(IslandContact& c, const SolverSettings& settings, Scalar& velocityA, Scalar& velocityB,
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

// The Zeno rule (SPEC §7): an impact when the mid-step approach exceeds what
// this step's external forces alone produce, and the contact is not persistent.
bool Island::classify(IslandContact& c, const btPersistentManifold& manifold, const SolverSettings& settings,
                      ContactHistory& history, RestingPass& resting, bool ownPoint) {
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
  const bool impactedPair = touching && pairImpacted(manifold, c, history);
  c.newVertex = ownPoint || history.newVertex(manifold, cp);
  const bool persistent = !ownPoint && (cp.m_appliedImpulse > 0 ||
                          (!c.newVertex && manifold.getNumContacts() == 1 && history.touchingLastPass(&manifold)) ||
                          (!c.newVertex && impactedPair && cp.getDistance() < -settings.impactOverlapSlop));
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
      return true;
    }
    return false;
  }
  c.seed = approaching && !persistent;
  if (!ownPoint && !c.newVertex && cp.m_appliedImpulse == 0 && manifold.getNumContacts() == 1)
    carryWarmStart(cp, manifold, history, resting);
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
    if (bearsLoad) return true;
    if (liftOut(c, settings.impactOverlapSlop))
      resting.keepOverlap(cp);
    else
      resting.pushOut(cp);
  }
  return true;
}

// A polyhedron rattling on its corners over a one-point manifold meets one
// corner a step (Bullet's convex–plane contact holds the deepest vertex), and
// each corner's impact only cancels that step's gravity: the centre of mass
// of a 1e6 kg box kept falling at 0.165 m/s while every corner was reflected,
// and the box sank one corner after another (world fuzz findings
// world-heavy-box-on-one-corner-sinks-at-60-hz and
// world-tumbling-box-sinks-through-the-floor-at-60-hz). The corner's overlap
// came from one step's arrival, so the body is moved out along the normal by
// what exceeds the slop, after Bullet's pass. A translation: no velocity and
// no turn, so neither kinetic energy nor angular momentum changes. Bullet's
// split impulse turns the body as well, and a flat box spinning about its
// axis of 25 times less inertia, pushed out that way every step, spun up
// (2 to 7.8 rad/s in 400 substeps, even without Bullet's gyroscopic term).
// The same holds for every overlap with a static or kinematic body that the
// drop-in pushes out through positions (a point of an impacted pair,
// classify, or of an impact cluster, writeBack): Bullet's split impulse applies only a tenth of its
// turn (btContactSolverInfo::m_splitImpulseTurnErp), so where a point's
// effective mass is mostly rotational it removed a fraction of the overlap.
// A 0.1 kg compound spinning at 20 rad/s with its centre of mass 0.6 m under
// the children it stood on sank θ²/2·0.6 m = 4.5 cm a step (the turn's
// curvature carries the stopped point down), its push-out removed about a
// tenth of that, and it went through the floor (world fuzz finding
// world-spinning-compound-sinks-on-separating-points-at-60-hz).
bool Island::liftOut(const IslandContact& c, Scalar overlapSlop) {
  if ((c.bodyA < 0) == (c.bodyB < 0) || !(c.point->getDistance() < -overlapSlop)) return false;
  const bool dynamicA = c.bodyA >= 0;
  IslandBody& st = bodies[static_cast<std::size_t>(dynamicA ? c.bodyA : c.bodyB)];
  const Scalar excess = -Scalar(c.point->getDistance()) - overlapSlop;
  if (excess > st.lift.norm()) st.lift = (dynamicA ? excess : -excess) * c.normal;
  return true;
}

// Bullet warm-starts a point from the impulse it carried last frame, but
// some one-point manifolds get a new point every frame: sphere–sphere ones are
// rebuilt, and a sphere–box one finds no cached point when the box turns
// under the sphere by more than the breaking threshold (a sphere's share of
// it, a fraction of a millimetre). Such a contact starts every pass from
// zero, and a light body under a heavy one is then not converged by the
// pass's iterations: world fuzz finding
// world-sphere-among-a-locked-box-top-1cm-under-the-floor-at-substep-262-at-60-hz,
// a 9.6 kg box spinning at 5.8 rad/s about its locked vertical axis lying on
// a 0.1 kg sphere of 2 cm, the box's point new every frame: the sphere, its
// floor point warm-started, left every pass moving into the floor at up to
// 0.44 m/s, and its floor point went 4 cm deep in 20 substeps (top 1 cm
// under it). Stock Bullet's pass, taking over from the same state, presses it
// through as well. The same contact (not a new vertex, touching last pass)
// starts from the manifold's impulse of last pass, as a cached point would.
void Island::carryWarmStart(btManifoldPoint& point, const btPersistentManifold& manifold, ContactHistory& history,
                            RestingPass& resting) {
  if (!history.touchingLastPass(&manifold)) return;
  const Scalar carried = history.impulseLastPass(&manifold);
  if (carried > 0) resting.warmStart(point, btScalar(carried));
}

void Island::keep(const IslandContact& c, bool touching) {
  if (touching)
    contacts.push_back(c);
  else
    speculative.push_back(c);
}

}  // namespace propimpact::bullet_detail
