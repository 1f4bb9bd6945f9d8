#include "MultiBodyGroup.h"

#include <BulletCollision/BroadphaseCollision/btCollisionAlgorithm.h>
#include <BulletCollision/BroadphaseCollision/btDispatcher.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>

#include "../Conversions.h"
#include "../BodyChecks.h"
#include "ImpactTime.h"
#include "MultiBodyRestingPass.h"

namespace propimpact::bullet_detail {
namespace {

using IndexEntry = std::pair<const void*, int>;

bool byKey(const IndexEntry& e, const void* key) { return std::less<const void*>()(e.first, key); }

bool finiteArray(const btScalar* x, int n) {
  for (int k = 0; k < n; ++k)
    if (!std::isfinite(x[k])) return false;
  return true;
}

const char* rejection(const btMultiBody& mb) {
  if (!finiteArray(mb.getVelocityVector(), 6 + mb.getNumDofs())) return "non-finite velocity";
  if (!finite(mb.getBasePos())) return "non-finite position";
  for (int i = 0; i < mb.getNumLinks(); ++i)
    if (!finiteArray(mb.getJointPosMultiDof(i), mb.getLink(i).m_posVarCount)) return "non-finite position";
  const bool floating = !mb.hasFixedBase() && !mb.isBaseStaticOrKinematic();
  if (floating && !(mb.getBaseMass() > 0 && std::isfinite(mb.getBaseMass()))) return "zero, negative or non-finite mass";
  for (int i = 0; i < mb.getNumLinks(); ++i)
    if (!(mb.getLinkMass(i) > 0 && std::isfinite(mb.getLinkMass(i)))) return "zero, negative or non-finite link mass";
  if (floating && !finite(mb.getBaseInertia())) return "non-finite inertia";
  for (int i = 0; i < mb.getNumLinks(); ++i)
    if (!finite(mb.getLinkInertia(i))) return "non-finite inertia";
  return nullptr;
}

void reject(const btCollisionObject* object, const char* reason, const SolverSettings& settings, StepReport& report) {
  if (!settings.keepReport) return;
  const bool known = std::any_of(report.rejected.begin(), report.rejected.end(),
                                 [&](const RejectedBody& r) { return r.body == object; });
  if (!known) report.rejected.push_back(RejectedBody{object, reason});
}

const btCollisionObject* reportObjectOf(const btMultiBody& mb) {
  if (mb.getBaseCollider()) return mb.getBaseCollider();
  for (int i = 0; i < mb.getNumLinks(); ++i)
    if (mb.getLinkCollider(i)) return mb.getLinkCollider(i);
  return nullptr;
}

Scalar totalMass(const btMultiBody& mb) {
  Scalar mass = mb.getBaseMass();
  for (int i = 0; i < mb.getNumLinks(); ++i) mass += mb.getLinkMass(i);
  return mass;
}

std::uint64_t worldIndex(const btCollisionObject* o) {
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(o->getWorldArrayIndex()));
}

}  // namespace

int MultiBodyGroup::blockOf(const btMultiBody* body) const {
  const auto at = std::lower_bound(m_index.begin(), m_index.end(), static_cast<const void*>(body), byKey);
  return at != m_index.end() && at->first == body ? at->second : -2;
}

int MultiBodyGroup::blockOf(const btCollisionObject* object) const {
  if (const btMultiBodyLinkCollider* link = btMultiBodyLinkCollider::upcast(object)) return blockOf(link->m_multiBody);
  if (object->isStaticOrKinematicObject()) return -1;
  const auto at = std::lower_bound(m_index.begin(), m_index.end(), static_cast<const void*>(object), byKey);
  return at != m_index.end() && at->first == object ? at->second : -2;
}

void MultiBodyGroup::gatherBodies(btCollisionObject** objects, int count, Scalar dt, const KickMemory& kicks,
                                  const SolverSettings& settings, StepReport& report) {
  m_settings = &settings;
  m_report = &report;
  m_dt = dt;
  blocks.clear();
  m_index.clear();
  m_now.clear();
  m_mid.clear();
  m_kick.clear();
  m_fullKicks.clear();
  m_previousEnd.clear();
  m_previousKick.clear();
  for (int i = 0; i < count; ++i) {
    if (btMultiBodyLinkCollider* link = btMultiBodyLinkCollider::upcast(objects[i])) {
      if (link->m_multiBody && blockOf(link->m_multiBody) == -2) addMultiBody(link->m_multiBody, kicks, settings, report);
    } else if (btRigidBody* rb = btRigidBody::upcast(objects[i]); rb && !rb->isStaticOrKinematicObject()) {
      addRigidBody(rb, dt, settings, report);
    }
  }
}

bool MultiBodyGroup::addMultiBody(btMultiBody* mb, const KickMemory& kicks, const SolverSettings& settings,
                                  StepReport& report) {
  GroupBlock b;
  b.multiBody = mb;
  b.reportObject = reportObjectOf(*mb);
  b.firstDof = mb->hasFixedBase() || mb->isBaseStaticOrKinematic() ? 6 : 0;
  b.dofs = 6 + mb->getNumDofs() - b.firstDof;
  b.offset = m_now.size();
  if (const char* reason = rejection(*mb)) {
    b.excluded = true;
    reject(b.reportObject, reason, settings, report);
  }
  b.usable = !b.excluded && b.dofs > 0;
  const auto dofs = static_cast<std::size_t>(b.dofs);
  m_now.resize(b.offset + dofs, 0);
  m_mid.resize(b.offset + dofs, 0);
  m_kick.resize(b.offset + dofs, 0);
  m_previousEnd.resize(b.offset + dofs, 0);
  m_previousKick.resize(b.offset + dofs, 0);
  b.fullOffset = m_fullKicks.size();
  m_fullKicks.resize(b.fullOffset + static_cast<std::size_t>(6 + mb->getNumDofs()), 0);
  b.kickKnown = b.usable && kicks.kick(*mb, m_fullKicks.data() + b.fullOffset);
  if (b.kickKnown) readPrevious(*mb, b, kicks);
  for (std::size_t k = 0; k < dofs && b.usable; ++k) {
    const auto dof = static_cast<std::size_t>(b.firstDof) + k;
    m_now[b.offset + k] = mb->getVelocityVector()[dof];
    m_kick[b.offset + k] = b.kickKnown ? m_fullKicks[b.fullOffset + dof] : 0;
    m_mid[b.offset + k] = m_now[b.offset + k] - 0.5 * m_kick[b.offset + k];  // the kick is already in v
  }
  const auto at = std::lower_bound(m_index.begin(), m_index.end(), static_cast<const void*>(mb), byKey);
  m_index.insert(at, IndexEntry{mb, static_cast<int>(blocks.size())});
  blocks.push_back(b);
  return b.usable;
}

// What the previous pass left (KickMemory): its drift velocity and kick, a
// contact it found closing inside its step, and the correction owed by an
// impact it resolved inside its step (ImpactTime.h, eq. 5), applied here to
// the velocity before anything reads it (the kick was taken before).
void MultiBodyGroup::readPrevious(btMultiBody& mb, GroupBlock& b, const KickMemory& kicks) {
  PreviousPass previous;
  if (!kicks.previous(mb, previous) || !previous.kick) return;
  const auto all = static_cast<std::size_t>(6 + mb.getNumDofs());
  const Scalar* kick = m_fullKicks.data() + b.fullOffset;
  if (previous.forceAtContact) {
    m_jacobian.resize(static_cast<int>(all));
    for (std::size_t k = 0; k < all; ++k)
      m_jacobian[static_cast<int>(k)] =
          static_cast<btScalar>(ImpactTime::correction(previous.located, kick[k], previous.forceAtContact[k]));
    mb.applyDeltaVeeMultiDof(&m_jacobian[0], 1);
  }
  b.previousKnown = true;
  b.located = previous.locate;
  for (int k = 0; k < b.dofs; ++k) {
    const auto dof = static_cast<std::size_t>(b.firstDof + k);
    m_previousEnd[b.offset + static_cast<std::size_t>(k)] = previous.end[dof];
    m_previousKick[b.offset + static_cast<std::size_t>(k)] = previous.kick[dof];
  }
}

void MultiBodyGroup::addRigidBody(btRigidBody* rb, Scalar dt, const SolverSettings& settings, StepReport& report) {
  GroupBlock b;
  b.rigidBody = rb;
  b.reportObject = rb;
  b.dofs = 6;
  b.offset = m_now.size();
  const char* reason = rigidBodyRejection(*rb);
  // The kick comes from the applied force and torque: a NaN there would
  // reach the impact problem and, through Bullet's pass, the neighbours.
  if (!reason && (!finite(rb->getTotalForce()) || !finite(rb->getTotalTorque()))) reason = "non-finite applied force";
  if (reason) {
    b.excluded = true;
    reject(rb, reason, settings, report);
  }
  // Fractional factors have no symmetric metric: such a body is left to Bullet's pass.
  b.usable = !b.excluded && binary(rb->getLinearFactor()) && binary(rb->getAngularFactor());
  m_now.resize(b.offset + 6, 0);
  m_mid.resize(b.offset + 6, 0);
  m_kick.resize(b.offset + 6, 0);
  if (b.usable) {
    Vector6 now, kick;
    now << toEigen(rb->getLinearVelocity()), toEigen(rb->getAngularVelocity());
    kick << toEigen(rb->getTotalForce()) * rb->getInvMass() * dt,
        toEigen(rb->getInvInertiaTensorWorld()) * toEigen(rb->getTotalTorque()) * dt;
    const Vector6 mid = now + 0.5 * kick;  // Bullet's pass adds the kick later
    for (int k = 0; k < 6; ++k) {
      m_now[b.offset + static_cast<std::size_t>(k)] = now[k];
      m_kick[b.offset + static_cast<std::size_t>(k)] = kick[k];
      m_mid[b.offset + static_cast<std::size_t>(k)] = mid[k];
    }
  }
  const auto at = std::lower_bound(m_index.begin(), m_index.end(), static_cast<const void*>(rb), byKey);
  m_index.insert(at, IndexEntry{rb, static_cast<int>(blocks.size())});
  blocks.push_back(b);
}

// One side's part of the row: J over the block's dofs (flat storage), or the
// static / kinematic partner's normal velocity into the bias.
bool MultiBodyGroup::fillRow(GroupContact& c, bool sideA, const btVector3& normal) {
  const int block = sideA ? c.blockA : c.blockB;
  const btCollisionObject* object = sideA ? c.objectA : c.objectB;
  const btVector3 point = sideA ? c.point->getPositionWorldOnA() : c.point->getPositionWorldOnB();
  const btVector3 direction = sideA ? normal : -normal;
  std::size_t& row = sideA ? c.rowA : c.rowB;
  if (block < 0) {
    if (const btRigidBody* rb = btRigidBody::upcast(object))
      c.bias += toEigen(direction).dot(toEigen(rb->getVelocityInLocalPoint(point - rb->getWorldTransform().getOrigin())));
    return true;
  }
  const GroupBlock& b = blocks[static_cast<std::size_t>(block)];
  row = m_rows.size();
  if (b.rigidBody) {
    const Vector3 n = toEigen(direction);
    const Vector3 r = toEigen(point - b.rigidBody->getWorldTransform().getOrigin());
    const Vector3 lever = r.cross(n);
    m_rows.insert(m_rows.end(), {n.x(), n.y(), n.z(), lever.x(), lever.y(), lever.z()});
    return true;
  }
  const btMultiBodyLinkCollider* link = btMultiBodyLinkCollider::upcast(object);
  btMultiBody* mb = b.multiBody;
  m_jacobian.resize(6 + mb->getNumDofs());
  mb->fillContactJacobianMultiDof(link->m_link, point, direction, &m_jacobian[0], m_scratchR, m_scratchV, m_scratchM);
  if (!finiteArray(&m_jacobian[0], m_jacobian.size())) return false;
  // A kinematic base moves the point by itself: a constant term, like a kinematic body.
  for (int k = 0; k < b.firstDof; ++k) c.bias += Scalar(m_jacobian[k]) * Scalar(mb->getVelocityVector()[k]);
  for (int k = b.firstDof; k < m_jacobian.size(); ++k) m_rows.push_back(m_jacobian[k]);
  return true;
}

Vector3 MultiBodyGroup::pointKick(int block, const btCollisionObject* object, const btVector3& point) {
  const GroupBlock& b = blocks[static_cast<std::size_t>(block)];
  const Scalar* kick = m_kick.data() + b.offset;
  if (b.rigidBody) {
    const Vector3 r = toEigen(point - b.rigidBody->getWorldTransform().getOrigin());
    return Vector3(kick[0], kick[1], kick[2]) + Vector3(kick[3], kick[4], kick[5]).cross(r);
  }
  const btMultiBodyLinkCollider* link = btMultiBodyLinkCollider::upcast(object);
  Vector3 result;
  m_jacobian.resize(6 + b.multiBody->getNumDofs());
  for (int axis = 0; axis < 3; ++axis) {
    btVector3 direction(0, 0, 0);
    direction[axis] = 1;
    b.multiBody->fillContactJacobianMultiDof(link->m_link, point, direction, &m_jacobian[0], m_scratchR, m_scratchV,
                                             m_scratchM);
    Scalar sum = 0;
    for (int k = 0; k < b.dofs; ++k) sum += Scalar(m_jacobian[b.firstDof + k]) * kick[k];
    result[axis] = sum;
  }
  return result;
}

Scalar MultiBodyGroup::approachMid(const GroupContact& c) const {
  Scalar approach = c.bias;
  for (const auto& [block, row] : {std::pair{c.blockA, c.rowA}, std::pair{c.blockB, c.rowB}}) {
    if (block < 0) continue;
    const GroupBlock& b = blocks[static_cast<std::size_t>(block)];
    for (int k = 0; k < b.dofs; ++k) approach += m_rows[row + static_cast<std::size_t>(k)] * m_mid[b.offset + static_cast<std::size_t>(k)];
  }
  return approach;
}

void MultiBodyGroup::reportRejected(const GroupBlock& b, const char* reason) const {
  reject(b.reportObject, reason, *m_settings, *m_report);
}

bool MultiBodyGroup::brokenFixedBody(const btCollisionObject* object) {
  const char* reason = fixedBodyRejection(object);
  if (reason) reject(object, reason, *m_settings, *m_report);
  return reason != nullptr;
}

void MultiBodyGroup::gatherContacts(btPersistentManifold** manifolds, int count, const SolverSettings& settings,
                                    ContactHistory& history, MultiBodyRestingPass& resting, btDispatcher* dispatcher) {
  contacts.clear();
  speculative.clear();
  m_rows.clear();
  m_gaps.clear();
  const auto block = [&](int b) -> const GroupBlock* { return b >= 0 ? &blocks[static_cast<std::size_t>(b)] : nullptr; };
  for (int k = 0; k < count; ++k) {
    btPersistentManifold* manifold = manifolds[k];
    const int a = blockOf(manifold->getBody0());
    const int b = blockOf(manifold->getBody1());
    // A rejected body's NaN or negative mass stays away from its neighbours:
    // its manifolds stay out of Bullet's pass too.
    if ((block(a) && block(a)->excluded) || (block(b) && block(b)->excluded)) continue;
    if (brokenFixedBody(manifold->getBody0()) || brokenFixedBody(manifold->getBody1())) continue;
    resting.addManifold(manifold);
    if (a == -2 || b == -2 || (a < 0 && b < 0)) continue;
    if ((block(a) && !block(a)->usable) || (block(b) && !block(b)->usable)) continue;
    if (manifold->getNumContacts() == 0) m_gaps.push_back(manifold);
    for (int j = 0; j < manifold->getNumContacts(); ++j)
      addPoint(manifold->getContactPoint(j), *manifold, a, b, j, settings, history, resting, false);
  }
  if (dispatcher && !m_gaps.empty()) queryGaps(dispatcher, settings, history, resting);
}

void MultiBodyGroup::addPoint(btManifoldPoint& cp, const btPersistentManifold& manifold, int a, int b, int index,
                              const SolverSettings& settings, ContactHistory& history, MultiBodyRestingPass& resting,
                              bool queried) {
  GroupContact c;
  c.point = &cp;
  c.queried = queried;
  c.objectA = manifold.getBody0();
  c.objectB = manifold.getBody1();
  c.blockA = a;
  c.blockB = b;
  const btVector3 normal = cp.m_normalWorldOnB;
  if (!(normal.length() > btScalar(0.5)) || !finite(normal)) return;  // degenerate normal: Bullet's pass only
  const std::size_t rows = m_rows.size();
  if (!fillRow(c, true, normal.normalized()) || !fillRow(c, false, normal.normalized())) {
    m_rows.resize(rows);
    return;
  }
  const std::uint64_t lo = std::min(worldIndex(c.objectA), worldIndex(c.objectB));
  const std::uint64_t hi = std::max(worldIndex(c.objectA), worldIndex(c.objectB));
  c.key = (lo << 36) ^ (hi << 8) ^ static_cast<std::uint64_t>(index);
  classify(c, manifold, settings, history, resting);
}

bool MultiBodyGroup::imminent(GroupContact& c) const {
  // A plastic contact stays closed after its impact, and Bullet's pass must
  // carry it from then on (support, friction): resolved early it would
  // hover at its gap with no normal velocity, frictionless until the kick
  // closes the gap. It waits for the touch; only a contact that reflects
  // is located inside the step.
  if (!(c.point->m_combinedRestitution > 0)) return false;
  // J v_mid + b + ½ J Δv is the end-of-step approach (v_mid + ½Δv for both kinds of block).
  const Scalar closing = -(c.approachMid + 0.5 * c.kick);
  const Scalar gap = c.point->getDistance();
  if (!(closing * m_dt > gap)) return false;
  c.fraction = std::clamp<Scalar>(gap / (closing * m_dt), 0, 1);
  return true;
}

bool MultiBodyGroup::locatable(const GroupContact& c) const {
  for (const int blk : {c.blockA, c.blockB})
    if (blk >= 0 && !blocks[static_cast<std::size_t>(blk)].multiBody) return false;
  return true;
}

namespace {

/// The closest points of one pair, as Bullet's closest-point algorithms report them.
class ClosestPoint : public btManifoldResult {
 public:
  ClosestPoint(const btCollisionObjectWrapper* a, const btCollisionObjectWrapper* b) : btManifoldResult(a, b) {}

  void addContactPoint(const btVector3& normalOnB, const btVector3& pointOnB, btScalar depth) override {
    if (found && !(depth < point.m_distance1)) return;
    // The normal is on the algorithm's manifold's second body, which may be
    // either wrapper (swapped algorithms): turn it to the pair's own order.
    const bool swapped = m_manifoldPtr && m_manifoldPtr->getBody0() != m_body0Wrap->getCollisionObject();
    const btVector3 normal = swapped ? -normalOnB : normalOnB;
    const btVector3 onB = swapped ? pointOnB + normalOnB * depth : pointOnB;
    point = btManifoldPoint(btVector3(0, 0, 0), btVector3(0, 0, 0), normal, depth);
    point.m_positionWorldOnB = onB;
    point.m_positionWorldOnA = onB + normal * depth;
    found = true;
  }

  btManifoldPoint point;
  bool found = false;
};

}  // namespace

// Some of Bullet's algorithms (sphere–sphere among them) keep no point at a
// positive distance, so a pair about to touch has an empty manifold. Bullet's
// closest-point query (as btCollisionWorld::contactPairTest runs it) finds
// the gap within the manifold's breaking threshold, the distance at which
// the other algorithms keep speculative points.
void MultiBodyGroup::queryGaps(btDispatcher* dispatcher, const SolverSettings& settings, ContactHistory& history,
                               MultiBodyRestingPass& resting) {
  m_queried.clear();
  m_queried.reserve(m_gaps.size());  // no reallocation below: contacts point into it
  const btDispatcherInfo info;
  for (const btPersistentManifold* manifold : m_gaps) {
    const btCollisionObject* a = manifold->getBody0();
    const btCollisionObject* b = manifold->getBody1();
    const btCollisionObjectWrapper wrapA(nullptr, a->getCollisionShape(), a, a->getWorldTransform(), -1, -1);
    const btCollisionObjectWrapper wrapB(nullptr, b->getCollisionShape(), b, b->getWorldTransform(), -1, -1);
    btCollisionAlgorithm* algorithm = dispatcher->findAlgorithm(&wrapA, &wrapB, nullptr, BT_CLOSEST_POINT_ALGORITHMS);
    if (!algorithm) continue;
    ClosestPoint closest(&wrapA, &wrapB);
    const btScalar threshold = manifold->getContactBreakingThreshold();
    closest.m_closestPointDistanceThreshold = threshold;
    algorithm->processCollision(&wrapA, &wrapB, info, &closest);
    algorithm->~btCollisionAlgorithm();
    dispatcher->freeCollisionAlgorithm(algorithm);
    // Touching or overlapping with no manifold point is Bullet's pass's next step.
    if (!closest.found || !(closest.point.getDistance() > settings.touchingDistance) ||
        !(closest.point.getDistance() <= threshold))
      continue;
    closest.point.m_combinedRestitution = gCalculateCombinedRestitutionCallback(a, b);
    m_queried.push_back(closest.point);
    addPoint(m_queried.back(), *manifold, blockOf(a), blockOf(b), 0, settings, history, resting, true);
  }
}

// The Zeno rule (SPEC §7 and KickMemory.h): an impact when the mid-step
// approach exceeds what this step's free motion alone produces, and the
// contact did not carry resting load.
void MultiBodyGroup::classify(GroupContact& c, const btPersistentManifold& manifold, const SolverSettings& settings,
                              ContactHistory& history, MultiBodyRestingPass& resting) {
  btManifoldPoint& cp = *c.point;
  c.kick = 0;
  Scalar forcing = 0;
  bool kicksKnown = true;
  Scalar inverseMass = 0;
  for (const auto& [blk, row, object, point] :
       {std::tuple{c.blockA, c.rowA, c.objectA, cp.getPositionWorldOnA()},
        std::tuple{c.blockB, c.rowB, c.objectB, cp.getPositionWorldOnB()}}) {
    if (blk < 0) continue;
    const GroupBlock& b = blocks[static_cast<std::size_t>(blk)];
    for (int k = 0; k < b.dofs; ++k) c.kick += m_rows[row + static_cast<std::size_t>(k)] * m_kick[b.offset + static_cast<std::size_t>(k)];
    forcing = std::max(forcing, pointKick(blk, object, point).norm());
    kicksKnown = kicksKnown && b.kickKnown;
    inverseMass += b.rigidBody ? Scalar(b.rigidBody->getInvMass()) : 1 / totalMass(*b.multiBody);
  }
  forcing = std::max(forcing, std::abs(c.kick));
  c.restingSpeed = settings.restingFactor * forcing + settings.restingFloor;
  c.approachMid = approachMid(c);
  const bool approaching = c.approachMid < -c.restingSpeed;
  const bool persistent = cp.m_appliedImpulse > 0 || (manifold.getNumContacts() == 1 && history.touchingLastPass(&manifold));
  if (!(cp.getDistance() <= settings.touchingDistance)) {
    // Not yet touching. Bullet moves the bodies with their end-of-step
    // velocities; if that closes the gap within the step, the contact is
    // located (see the header; the issue-13 pendulums' amplitude drift goes
    // with the square of the error of resolving it at a step boundary).
    c.persistent = persistent;
    const bool closes = approaching && !persistent && kicksKnown && imminent(c);
    if (closes && locatable(c)) {
      // Resolved by the next pass, at this fraction of this step (ImpactTime.h).
      for (const int blk : {c.blockA, c.blockB})
        if (blk >= 0) {
          Scalar& locate = blocks[static_cast<std::size_t>(blk)].locate;
          locate = locate < 0 ? c.fraction : std::min(locate, c.fraction);
        }
    }
    c.seed = closes && !locatable(c) && c.fraction < 0.5;  // with a rigid body: the nearer boundary
    if (c.seed)
      contacts.push_back(c);
    else if (!c.queried)  // Bullet's pass never sees a queried point: nothing to hide
      speculative.push_back(c);
    return;
  }
  // Without a known kick the mid-step velocity is unknown: such a contact is
  // no seed in this pass (Bullet's pass handles it, as stock Bullet would).
  c.seed = approaching && !persistent && kicksKnown;
  if (c.approachMid > c.restingSpeed) resting.keepOverlap(cp);
  if (history.touchImpactedPair(c.objectA, c.objectB)) {
    // As in the rigid solver (Island.cpp): an impacted pair keeps its overlap
    // until it bears load. A multibody's share of the load is judged by its
    // total mass, an approximation of its effective mass at the contact.
    const Scalar loadImpulse = inverseMass > 0 ? 0.1 * forcing / inverseMass : 0;
    const Scalar carried = std::max<Scalar>(cp.m_appliedImpulse, history.impulseLastPass(&manifold));
    if (!(forcing > 0 && carried > loadImpulse)) resting.keepOverlap(cp);
  }
  contacts.push_back(c);
}

}  // namespace propimpact::bullet_detail
