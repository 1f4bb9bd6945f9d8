#include "propimpact/bullet/PropagativeImpactSolver.h"

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/ConstraintSolver/btTypedConstraint.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "propimpact/core/Errors.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {

Vector3 toEigen(const btVector3& v) { return Vector3(v.x(), v.y(), v.z()); }
btVector3 toBullet(const Vector3& v) {
  return btVector3(static_cast<btScalar>(v.x()), static_cast<btScalar>(v.y()), static_cast<btScalar>(v.z()));
}
Matrix3 toEigen(const btMatrix3x3& m) {
  Matrix3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r(i, j) = m[i][j];
  return r;
}

bool finite(const btVector3& v) { return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z()); }
bool binary(const btVector3& v) {
  for (int k = 0; k < 3; ++k)
    if (!(v[k] == 0 || v[k] == 1)) return false;
  return true;
}

// Island-local state of one dynamic body.
struct BodyState {
  btRigidBody* body = nullptr;
  bool usable = false;       // dynamic, finite, positive mass, 0/1 factors
  bool excluded = false;     // bad input: kept away from both passes
  Vector3 kickLinear = Vector3::Zero();   // this step's Δv from external forces
  Vector3 kickAngular = Vector3::Zero();
  int component = -1;
  int block = kNoBlock;
  bool impacted = false;     // an impact changed its velocity in this pass
};

// One touching manifold point.
struct Candidate {
  btManifoldPoint* point = nullptr;
  const btCollisionObject* objectA = nullptr;
  const btCollisionObject* objectB = nullptr;
  int bodyA = -1;  // island-local dynamic index or -1 (static / kinematic)
  int bodyB = -1;
  Vector3 normal;  // from B to A
  Vector3 offsetA;
  Vector3 offsetB;
  Scalar bias = 0;          // kinematic / static partner's normal velocity term
  Scalar kick = 0;          // J Δv_ext
  Scalar forcing = 0;       // largest external kick along the normal
  Scalar restingSpeed = 0;  // Zeno threshold: a slower approach is resting contact
  Scalar approachMid = 0;   // J v_mid + b
  bool seed = false;
  bool persistent = false;  // resting by the Zeno rule when classified
  std::uint64_t key = 0;
  int contact = -1;         // index in the current problem
};

using BodyPair = std::pair<const void*, const void*>;
using ImpactedPair = std::pair<BodyPair, std::uint64_t>;  // pair, last pass that saw it touching

BodyPair pairOf(const btCollisionObject* a, const btCollisionObject* b) {
  return a < b ? BodyPair(a, b) : BodyPair(b, a);
}

void disablePositionCorrection(btManifoldPoint& cp) {
  cp.m_contactPointFlags |= BT_CONTACT_FLAG_HAS_CONTACT_ERP;
  cp.m_contactERP = 0;
}

int findRoot(std::vector<int>& parent, int x) {
  while (parent[static_cast<std::size_t>(x)] != x) {
    parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    x = parent[static_cast<std::size_t>(x)];
  }
  return x;
}

}  // namespace

struct PropagativeImpactSolver::Impl {
  ImpactProblem problem;
  ImpactResolver resolver;
  // Results kept per cluster shape (dofs, contacts): ImpactResult's Eigen
  // vectors have no spare capacity and reallocate whenever the size changes,
  // so a scene whose clusters alternate between a few shapes (a cradle, a gas
  // of pairs and wall hits) would allocate at every change. The least
  // recently used slot takes a new shape.
  struct ShapedResult {
    Index dofs = -1;
    int contacts = -1;
    std::uint64_t lastUse = 0;
    ImpactResult result;
  };
  std::array<ShapedResult, 8> results;
  std::uint64_t resultUses = 0;
  ImpactResult& resultFor(Index dofs, int contacts) {
    ShapedResult* slot = &results[0];
    for (ShapedResult& candidate : results) {
      if (candidate.dofs == dofs && candidate.contacts == contacts) {
        slot = &candidate;
        break;
      }
      if (candidate.lastUse < slot->lastUse) slot = &candidate;
    }
    slot->dofs = dofs;
    slot->contacts = contacts;
    slot->lastUse = ++resultUses;
    return slot->result;
  }
  ResolveOptions options;
  std::vector<BodyState> states;
  std::vector<Candidate> candidates;
  std::vector<Candidate> speculative;  // unloaded speculative points, judged after the impacts
  std::vector<btPersistentManifold*> passManifolds;    // what Bullet's pass sees: none touching a rejected body
  std::vector<btTypedConstraint*> passConstraints;
  std::vector<std::pair<btManifoldPoint*, std::pair<int, btScalar>>> unpushed;  // separating points: flags, ERP to restore
  std::vector<int> parent;
  std::vector<char> componentHasSeed;
  std::vector<int> blockBody;
  std::vector<std::pair<btManifoldPoint*, btScalar>> hidden;  // points kept from the SI pass, original distance
  btAlignedObjectArray<btSolverConstraint> jointRows;
  std::uint64_t passCounter = 0;
  int substep = 0;
  // Per dispatcher manifold slot (btPersistentManifold::m_index1a): the
  // manifold and the last pass in which it had a touching point. Sphere–sphere
  // manifolds are rebuilt every frame, so their points carry no history.
  struct ManifoldHistory {
    const btPersistentManifold* manifold = nullptr;
    std::uint64_t touching = 0;  // last pass with a touching point
    std::uint64_t loaded = 0;    // last pass in which Bullet's pass gave it a positive impulse
    Scalar impulse = 0;          // the largest point impulse of that pass
  };
  std::vector<ManifoldHistory> manifoldHistory;
  [[nodiscard]] const ManifoldHistory* historyOf(const btPersistentManifold* manifold) const {
    const auto slot = static_cast<std::size_t>(manifold->m_index1a);
    return slot < manifoldHistory.size() && manifoldHistory[slot].manifold == manifold ? &manifoldHistory[slot] : nullptr;
  }
  [[nodiscard]] bool touchingLastPass(const btPersistentManifold* manifold) const {
    const ManifoldHistory* h = historyOf(manifold);
    return h && h->touching + 1 == passCounter;
  }
  [[nodiscard]] Scalar impulseLastPass(const btPersistentManifold* manifold) const {
    const ManifoldHistory* h = historyOf(manifold);
    return h && h->loaded + 1 == passCounter ? h->impulse : 0;
  }
  // ERP 0 for this pass only: the flags and ERP to restore afterwards.
  void keepOverlap(btManifoldPoint& cp) {
    unpushed.push_back({&cp, {cp.m_contactPointFlags, cp.m_contactERP}});
    disablePositionCorrection(cp);
  }
  // Body pairs that took part in an impact and have stayed in contact since,
  // with the last pass that saw them touching: their overlap is never pushed
  // out through a velocity (manifolds such as sphere–sphere are rebuilt every
  // frame, so a per-point flag would not persist).
  // Kept sorted by pair between solveGroup calls (a flat vector, so that a
  // warmed-up world allocates nothing); resolveComponent appends, and
  // sortImpactedPairs() merges the additions.
  std::vector<ImpactedPair> impactedPairs;
  std::size_t sortedImpactedPairs = 0;

  std::vector<ImpactedPair>::iterator findImpactedPair(const BodyPair& pair) {
    const auto end = impactedPairs.begin() + static_cast<std::ptrdiff_t>(sortedImpactedPairs);
    const auto found = std::lower_bound(impactedPairs.begin(), end, pair,
                                        [](const ImpactedPair& e, const BodyPair& key) { return e.first < key; });
    return found != end && found->first == pair ? found : impactedPairs.end();
  }
  void sortImpactedPairs() {
    if (sortedImpactedPairs == impactedPairs.size()) return;
    // Latest pass first within a pair, then keep the first of each pair.
    std::sort(impactedPairs.begin(), impactedPairs.end(), [](const ImpactedPair& a, const ImpactedPair& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    impactedPairs.erase(std::unique(impactedPairs.begin(), impactedPairs.end(),
                                    [](const ImpactedPair& a, const ImpactedPair& b) { return a.first == b.first; }),
                        impactedPairs.end());
    sortedImpactedPairs = impactedPairs.size();
  }
};

PropagativeImpactSolver::PropagativeImpactSolver(std::size_t callerScalarSize) : m_impl(std::make_unique<Impl>()) {
  if (callerScalarSize != sizeof(btScalar))
    throw std::logic_error("propimpact was built for " + std::to_string(sizeof(btScalar) * 8) +
                           "-bit btScalar but is used with " + std::to_string(callerScalarSize * 8) +
                           "-bit btScalar: link the matching Bullet build (bullet vs bullet-float64)");
}

PropagativeImpactSolver::~PropagativeImpactSolver() = default;

const StepReport& PropagativeImpactSolver::lastStepReport() const {
  m_reportConsumed = true;
  return m_report;
}

void PropagativeImpactSolver::prepareSolve(int numBodies, int numManifolds) {
  btSequentialImpulseConstraintSolver::prepareSolve(numBodies, numManifolds);
  if (m_reportConsumed) {
    m_report.clusters.clear();
    m_report.rejected.clear();
    m_report.substeps = 0;
    m_report.restingContacts = 0;
    m_report.capHits = 0;
    m_report.droppedClusters = 0;
    m_reportConsumed = false;
  }
  m_impl->substep = m_report.substeps;
  ++m_report.substeps;
  ++m_impl->passCounter;
  const std::uint64_t pass = m_impl->passCounter;
  auto& pairs = m_impl->impactedPairs;
  pairs.erase(std::remove_if(pairs.begin(), pairs.end(), [pass](const ImpactedPair& e) { return e.second + 1 < pass; }),
              pairs.end());
  m_impl->sortedImpactedPairs = pairs.size();  // removal keeps the order
}

btScalar PropagativeImpactSolver::solveGroup(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds,
                                             int numManifolds, btTypedConstraint** constraints, int numConstraints,
                                             const btContactSolverInfo& info, btIDebugDraw* debugDrawer,
                                             btDispatcher* dispatcher) {
  Impl& im = *m_impl;
  const Scalar dt = info.m_timeStep;

  // Bodies: validate, note this step's external kick (Bullet's solver adds
  // totalForce·invMass·dt and invInertia·torque·dt, SPEC §7).
  im.states.assign(static_cast<std::size_t>(numBodies), BodyState{});
  for (int i = 0; i < numBodies; ++i) {
    BodyState& st = im.states[static_cast<std::size_t>(i)];
    bodies[i]->setCompanionId(-1);
    btRigidBody* rb = btRigidBody::upcast(bodies[i]);
    if (!rb || rb->isStaticOrKinematicObject()) continue;
    st.body = rb;
    bodies[i]->setCompanionId(i);
    const char* reason = nullptr;
    if (!finite(rb->getLinearVelocity()) || !finite(rb->getAngularVelocity()))
      reason = "non-finite velocity";
    else if (!finite(rb->getWorldTransform().getOrigin()))
      reason = "non-finite position";
    else if (!(rb->getInvMass() > 0) || !std::isfinite(rb->getInvMass()))
      reason = "zero, negative or non-finite mass";
    else if (!finite(rb->getInvInertiaTensorWorld()[0]) || !finite(rb->getInvInertiaTensorWorld()[1]) ||
             !finite(rb->getInvInertiaTensorWorld()[2]))
      reason = "non-finite inertia";
    if (reason) {
      st.excluded = true;
      if (m_settings.keepReport) {
        const bool known = std::any_of(m_report.rejected.begin(), m_report.rejected.end(),
                                       [&](const RejectedBody& r) { return r.body == rb; });
        if (!known) m_report.rejected.push_back(RejectedBody{rb, reason});
      }
      continue;
    }
    // Fractional factors have no symmetric metric: such a body is left to the
    // sequential-impulse pass, like Bullet would treat it.
    if (!binary(rb->getLinearFactor()) || !binary(rb->getAngularFactor())) continue;
    st.usable = true;
    st.kickLinear = toEigen(rb->getTotalForce()) * rb->getInvMass() * dt;
    st.kickAngular = toEigen(rb->getInvInertiaTensorWorld()) * toEigen(rb->getTotalTorque()) * dt;
  }

  const auto dynamicIndex = [&](const btCollisionObject* object) {
    if (object->isStaticOrKinematicObject()) return -1;
    const int id = object->getCompanionId();
    if (id < 0 || id >= numBodies || bodies[id] != object) return -2;  // not in this group: leave to Bullet
    return id;
  };
  const auto pointVelocity = [](const btCollisionObject* object, const Vector3& offset) -> Vector3 {
    const btRigidBody* rb = btRigidBody::upcast(object);
    if (!rb) return Vector3::Zero();
    return toEigen(rb->getLinearVelocity()) + toEigen(rb->getAngularVelocity()).cross(offset);
  };

  // Touching points and the Zeno classification (SPEC §7): an impact when the
  // mid-step approach exceeds what this step's external forces alone produce.
  im.candidates.clear();
  im.hidden.clear();
  im.speculative.clear();
  im.unpushed.clear();
  im.passManifolds.clear();
  im.passConstraints.clear();
  for (int k = 0; k < numManifolds; ++k) {
    btPersistentManifold* manifold = manifolds[k];
    const btCollisionObject* objectA = manifold->getBody0();
    const btCollisionObject* objectB = manifold->getBody1();
    const int a = dynamicIndex(objectA);
    const int b = dynamicIndex(objectB);
    const bool badA = a >= 0 && im.states[static_cast<std::size_t>(a)].excluded;
    const bool badB = b >= 0 && im.states[static_cast<std::size_t>(b)].excluded;
    // Keep a rejected body's NaN or negative mass away from its neighbours:
    // its manifolds stay out of Bullet's pass too (a hidden point's row would
    // still carry a NaN relative velocity into the neighbour).
    if (badA || badB) continue;
    im.passManifolds.push_back(manifold);
    if (a == -2 || b == -2 || (a < 0 && b < 0)) continue;
    if ((a >= 0 && !im.states[static_cast<std::size_t>(a)].usable) ||
        (b >= 0 && !im.states[static_cast<std::size_t>(b)].usable))
      continue;
    for (int j = 0; j < manifold->getNumContacts(); ++j) {
      btManifoldPoint& cp = manifold->getContactPoint(j);
      Candidate c;
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
      const Scalar velocityA = c.normal.dot(pointVelocity(objectA, c.offsetA));
      const Scalar velocityB = c.normal.dot(pointVelocity(objectB, c.offsetB));
      Scalar kick = 0;
      Scalar kickA = 0;
      Scalar kickB = 0;
      if (a >= 0) {
        const BodyState& st = im.states[static_cast<std::size_t>(a)];
        kickA = c.normal.dot(st.kickLinear + st.kickAngular.cross(c.offsetA));
      }
      if (b >= 0) {
        const BodyState& st = im.states[static_cast<std::size_t>(b)];
        kickB = c.normal.dot(st.kickLinear + st.kickAngular.cross(c.offsetB));
      }
      kick = kickA - kickB;
      c.kick = kick;
      // The noise floor of resting contact is the step's external kick at the
      // contact, in any direction: a stack shares gravity's kick (its relative
      // kick is zero) and Bullet's iterative pass leaves residual velocities of
      // that order across side contacts of a pile too.
      Scalar forcing = std::abs(kick);
      if (a >= 0) {
        const BodyState& st = im.states[static_cast<std::size_t>(a)];
        forcing = std::max(forcing, (st.kickLinear + st.kickAngular.cross(c.offsetA)).norm());
      }
      if (b >= 0) {
        const BodyState& st = im.states[static_cast<std::size_t>(b)];
        forcing = std::max(forcing, (st.kickLinear + st.kickAngular.cross(c.offsetB)).norm());
      }
      c.forcing = forcing;
      c.restingSpeed = m_settings.restingFactor * forcing + m_settings.restingFloor;
      c.bias = (a < 0 ? velocityA : 0) - (b < 0 ? velocityB : 0);
      c.approachMid = velocityA - velocityB + 0.5 * kick;
      const bool approaching = c.approachMid < -c.restingSpeed;
      // Persistent contact is resting contact (the paper's Zeno rule): a
      // point that carried Bullet's resting impulse last step, or a one-point
      // manifold (rebuilt every frame, like sphere–sphere) that was already
      // touching last pass. An impact can still reach it by propagation.
      const bool resting = cp.m_appliedImpulse > 0 || (manifold->getNumContacts() == 1 && im.touchingLastPass(manifold));
      if (!(cp.getDistance() <= m_settings.touchingDistance)) {
        // A speculative point of a future impact: Bullet's pass would stop the
        // body plastically at the surface; let it arrive and be reflected.
        // Judged after this step's impacts, which may send a body towards it:
        // then even a point that was resting (a ball lying against a wall, hit
        // by another ball) must let it arrive, or Bullet's pass stops it
        // plastically (the elastic gas lost 0.35 % that way after ~10⁶ steps).
        c.persistent = resting;
        im.speculative.push_back(c);
        continue;
      }
      c.seed = approaching && !resting;
      // A touching point that already separates needs no push: Bullet's pass
      // would push a grazing pair's overlap out at erp·depth/dt and add energy.
      if (c.approachMid > c.restingSpeed) im.keepOverlap(cp);
      if (!im.impactedPairs.empty()) {
        const auto found = im.findImpactedPair(pairOf(objectA, objectB));
        if (found != im.impactedPairs.end()) {
          // A pair that had an impact keeps its overlap (pushing it out
          // through a velocity would add energy) until it bears load: a
          // load-bearing contact in a pile must be corrected or bodies sink.
          found->second = im.passCounter;
          // Load means external forces press along the contact and Bullet's
          // pass carried a real share of them (a tenth of one step's kick),
          // not a round-off impulse.
          const btRigidBody* bodyA = btRigidBody::upcast(objectA);
          const btRigidBody* bodyB = btRigidBody::upcast(objectB);
          const Scalar inverseMass = (bodyA ? bodyA->getInvMass() : 0) + (bodyB ? bodyB->getInvMass() : 0);
          const Scalar loadImpulse = inverseMass > 0 ? 0.1 * forcing / inverseMass : 0;
          const Scalar carried = std::max<Scalar>(cp.m_appliedImpulse, im.impulseLastPass(manifold));
          const bool bearsLoad = forcing > 0 && carried > loadImpulse;
          if (!bearsLoad) im.keepOverlap(cp);
        }
      }
      const auto worldIndex = [](const btCollisionObject* o) {
        return static_cast<std::uint64_t>(static_cast<std::uint32_t>(o->getWorldArrayIndex()));
      };
      const std::uint64_t lo = std::min(worldIndex(objectA), worldIndex(objectB));
      const std::uint64_t hi = std::max(worldIndex(objectA), worldIndex(objectB));
      c.key = (lo << 36) ^ (hi << 8) ^ static_cast<std::uint64_t>(j);
      im.candidates.push_back(c);
    }
  }

  // Touching components over dynamic bodies (contacts and equality joints).
  im.parent.resize(static_cast<std::size_t>(numBodies));
  std::iota(im.parent.begin(), im.parent.end(), 0);
  const auto unite = [&](int x, int y) {
    if (x < 0 || y < 0) return;
    im.parent[static_cast<std::size_t>(findRoot(im.parent, x))] = findRoot(im.parent, y);
  };
  for (const Candidate& c : im.candidates) unite(c.bodyA, c.bodyB);
  for (int k = 0; k < numConstraints; ++k) {
    btTypedConstraint* joint = constraints[k];
    if (!joint->isEnabled()) continue;
    const int a = dynamicIndex(&joint->getRigidBodyA());
    const int b = dynamicIndex(&joint->getRigidBodyB());
    if (a >= 0 && b >= 0 && im.states[static_cast<std::size_t>(a)].usable && im.states[static_cast<std::size_t>(b)].usable)
      unite(a, b);
  }
  im.componentHasSeed.assign(static_cast<std::size_t>(numBodies), 0);
  bool anySeed = false;
  for (const Candidate& c : im.candidates) {
    if (!c.seed) continue;
    anySeed = true;
    const int root = findRoot(im.parent, c.bodyA >= 0 ? c.bodyA : c.bodyB);
    im.componentHasSeed[static_cast<std::size_t>(root)] = 1;
  }

  if (anySeed) {
    ResolveOptions& opt = im.options;
    opt.ordering = m_settings.ordering;
    opt.randomSeed = m_settings.randomSeed;
    opt.reflectionCap = m_settings.reflectionCap;
    opt.computeXi = m_settings.computeXi;
    opt.xiOrders = m_settings.xiOrders;
    opt.analysisContactLimit = std::clamp(m_settings.analysisContactLimit, 0, 64);
    opt.growFromSeeds = true;
    opt.jointErrorAsBias = false;  // see ResolveOptions: our joint error is the half kick's

    for (int root = 0; root < numBodies; ++root) {
      if (!im.componentHasSeed[static_cast<std::size_t>(root)] || findRoot(im.parent, root) != root) continue;
      resolveComponent(root, bodies, numBodies, constraints, numConstraints, info);
    }
    im.sortImpactedPairs();
  }
  const auto impacted = [&](int body) { return body >= 0 && im.states[static_cast<std::size_t>(body)].impacted; };
  for (const Candidate& c : im.speculative) {
    if (c.persistent && !impacted(c.bodyA) && !impacted(c.bodyB)) continue;
    const Scalar approach = c.normal.dot(pointVelocity(c.objectA, c.offsetA) - pointVelocity(c.objectB, c.offsetB)) + 0.5 * c.kick;
    if (approach < -c.restingSpeed)
      im.hidden.emplace_back(c.point, c.point->m_distance1);
  }

  // Bullet's own pass: resting contact, friction, joints, limits, motors,
  // with the world's settings but no second restitution. (Split impulse for
  // every overlap would keep position correction out of all velocities, but at
  // Bullet's default iteration count it lets a 10-box stack sink through
  // itself; impact points get ERP 0 instead, see resolveComponent.)
  btContactSolverInfo restingInfo = info;
  restingInfo.m_restitutionVelocityThreshold = BT_LARGE_FLOAT;
  for (auto& [point, distance] : im.hidden) {
    (void)distance;
    point->m_distance1 = BT_LARGE_FLOAT;
  }
  for (int k = 0; k < numConstraints; ++k) {
    const int a = dynamicIndex(&constraints[k]->getRigidBodyA());
    const int b = dynamicIndex(&constraints[k]->getRigidBodyB());
    if ((a >= 0 && im.states[static_cast<std::size_t>(a)].excluded) || (b >= 0 && im.states[static_cast<std::size_t>(b)].excluded))
      continue;
    im.passConstraints.push_back(constraints[k]);
  }
  for (int i = 0; i < numBodies; ++i) bodies[i]->setCompanionId(-1);
  const btScalar residual = btSequentialImpulseConstraintSolver::solveGroup(
      bodies, numBodies, im.passManifolds.data(), static_cast<int>(im.passManifolds.size()), im.passConstraints.data(),
      static_cast<int>(im.passConstraints.size()), restingInfo, debugDrawer, dispatcher);
  for (int k = 0; k < numManifolds; ++k) {
    const btPersistentManifold* manifold = manifolds[k];
    bool touching = false;
    bool loaded = false;
    Scalar largest = 0;
    for (int j = 0; j < manifold->getNumContacts(); ++j) {
      const btManifoldPoint& cp = manifold->getContactPoint(j);
      touching = touching || cp.getDistance() <= m_settings.touchingDistance;
      loaded = loaded || cp.m_appliedImpulse > 0;
      largest = std::max<Scalar>(largest, cp.m_appliedImpulse);
    }
    if (!touching || manifold->m_index1a < 0) continue;
    const auto slot = static_cast<std::size_t>(manifold->m_index1a);
    if (slot >= im.manifoldHistory.size()) im.manifoldHistory.resize(slot + 1 + slot / 2);
    Impl::ManifoldHistory& history = im.manifoldHistory[slot];
    if (history.manifold != manifold) history = Impl::ManifoldHistory{manifold, 0, 0};
    history.touching = im.passCounter;
    if (loaded) {
      history.loaded = im.passCounter;
      history.impulse = largest;
    }
  }
  for (auto& [point, distance] : im.hidden) {
    point->m_distance1 = distance;
    // Impact impulses stay out of warm starting; they are in the report.
    point->m_appliedImpulse = 0;
    point->m_appliedImpulseLateral1 = 0;
    point->m_appliedImpulseLateral2 = 0;
  }
  // Newest first: a point may have been saved twice in this pass.
  for (auto it = im.unpushed.rbegin(); it != im.unpushed.rend(); ++it) {
    it->first->m_contactPointFlags = it->second.first;
    it->first->m_contactERP = it->second.second;
  }
  if (m_settings.keepReport) {
    for (const Candidate& c : im.candidates)
      if (c.contact < 0) ++m_report.restingContacts;
  }
  return residual;
}

void PropagativeImpactSolver::resolveComponent(int root, btCollisionObject** bodies, int numBodies,
                                               btTypedConstraint** constraints, int numConstraints,
                                               const btContactSolverInfo& info) {
  Impl& im = *m_impl;
  ImpactProblem& problem = im.problem;
  problem.clear();
  im.blockBody.clear();

  // Blocks at mid-step velocity (kick–reflect–kick).
  for (int i = 0; i < numBodies; ++i) {
    BodyState& st = im.states[static_cast<std::size_t>(i)];
    st.block = kNoBlock;
    if (!st.usable || findRoot(im.parent, i) != root) continue;
    const btRigidBody* rb = st.body;
    RigidBodyInput input;
    input.inverseMass = rb->getInvMass();
    // R·diag(I⁻¹)·Rᵀ is symmetric by construction; Bullet evaluates it in
    // btScalar, and in single precision its rounding (~1e-7 relative) fails
    // the core's 1e-9 symmetry check, which would drop every rotated body
    // from the impact. Take its symmetric part.
    const Matrix3 inverseInertia = toEigen(rb->getInvInertiaTensorWorld());
    input.inverseInertiaWorld = 0.5 * (inverseInertia + inverseInertia.transpose());
    input.linearVelocity = toEigen(rb->getLinearVelocity()) + 0.5 * st.kickLinear;
    input.angularVelocity = toEigen(rb->getAngularVelocity()) + 0.5 * st.kickAngular;
    input.linearFactor = toEigen(rb->getLinearFactor());
    input.angularFactor = toEigen(rb->getAngularFactor());
    try {
      st.block = problem.addRigidBody(input);
    } catch (const InputError&) {
      st.block = kNoBlock;  // e.g. an inertia tensor that is not PSD: Bullet's pass only
      continue;
    }
    im.blockBody.push_back(i);
  }

  const auto blockOf = [&](int body) { return body >= 0 ? im.states[static_cast<std::size_t>(body)].block : kNoBlock; };
  for (Candidate& c : im.candidates) {
    c.contact = -1;
    const int anchor = c.bodyA >= 0 ? c.bodyA : c.bodyB;
    if (findRoot(im.parent, anchor) != root) continue;
    const int blockA = blockOf(c.bodyA);
    const int blockB = blockOf(c.bodyB);
    if ((c.bodyA >= 0 && blockA == kNoBlock) || (c.bodyB >= 0 && blockB == kNoBlock)) continue;
    const Scalar restitution = std::clamp<Scalar>(c.point->m_combinedRestitution, 0, 1);
    c.contact = problem.addRigidContact(blockA, blockB, c.normal, c.offsetA, c.offsetB, restitution, c.bias, c.key);
    problem.setSeed(c.contact, c.seed);
    problem.setRestingSpeed(c.contact, c.restingSpeed);
  }

  // Equality rows of joints touching the component: the impact happens in the
  // metric of the motions they admit (seed 004).
  for (int k = 0; k < numConstraints; ++k) {
    btTypedConstraint* joint = constraints[k];
    if (!joint->isEnabled()) continue;
    const btCollisionObject* objectA = &joint->getRigidBodyA();
    const btCollisionObject* objectB = &joint->getRigidBodyB();
    int a = objectA->isStaticOrKinematicObject() ? -1 : objectA->getCompanionId();
    int b = objectB->isStaticOrKinematicObject() ? -1 : objectB->getCompanionId();
    if (a >= numBodies || (a >= 0 && bodies[a] != objectA)) a = -1;
    if (b >= numBodies || (b >= 0 && bodies[b] != objectB)) b = -1;
    const int blockA = blockOf(a);
    const int blockB = blockOf(b);
    if (blockA == kNoBlock && blockB == kNoBlock) continue;
    btTypedConstraint::btConstraintInfo1 info1;
    joint->getInfo1(&info1);
    if (info1.m_numConstraintRows <= 0) continue;
    im.jointRows.resize(info1.m_numConstraintRows);
    for (int r = 0; r < info1.m_numConstraintRows; ++r) {
      std::memset(static_cast<void*>(&im.jointRows[r]), 0, sizeof(btSolverConstraint));
      im.jointRows[r].m_lowerLimit = -SIMD_INFINITY;
      im.jointRows[r].m_upperLimit = SIMD_INFINITY;
    }
    btTypedConstraint::btConstraintInfo2 info2;
    info2.fps = 1 / info.m_timeStep;
    info2.erp = info.m_erp;
    info2.m_J1linearAxis = im.jointRows[0].m_contactNormal1;
    info2.m_J1angularAxis = im.jointRows[0].m_relpos1CrossNormal;
    info2.m_J2linearAxis = im.jointRows[0].m_contactNormal2;
    info2.m_J2angularAxis = im.jointRows[0].m_relpos2CrossNormal;
    info2.rowskip = sizeof(btSolverConstraint) / sizeof(btScalar);
    info2.m_constraintError = &im.jointRows[0].m_rhs;
    info2.m_damping = info.m_damping;
    info2.cfm = &im.jointRows[0].m_cfm;
    info2.m_lowerLimit = &im.jointRows[0].m_lowerLimit;
    info2.m_upperLimit = &im.jointRows[0].m_upperLimit;
    info2.m_numIterations = info.m_numIterations;
    joint->getInfo2(&info2);
    for (int r = 0; r < info1.m_numConstraintRows; ++r) {
      const btSolverConstraint& row = im.jointRows[r];
      // Only equality rows always stay active; limits and motors are left to Bullet's pass.
      if (row.m_lowerLimit > -SIMD_INFINITY || row.m_upperLimit < SIMD_INFINITY) continue;
      Vector6 rowA, rowB;
      rowA << toEigen(row.m_contactNormal1), toEigen(row.m_relpos1CrossNormal);
      rowB << toEigen(row.m_contactNormal2), toEigen(row.m_relpos2CrossNormal);
      try {
        if (blockA != kNoBlock && blockB != kNoBlock)
          problem.addBilateralRow(blockA, rowA, blockB, rowB);
        else if (blockA != kNoBlock)
          problem.addBilateralRow(blockA, rowA, kNoBlock, VectorX());
        else
          problem.addBilateralRow(blockB, rowB, kNoBlock, VectorX());
      } catch (const InputError&) {
        // A zero row (e.g. a locked axis) constrains nothing here.
      }
    }
  }

  im.options.problemKey = (im.passCounter << 20) ^ static_cast<std::uint64_t>(root);
  try {
    im.resolver.resolve(problem, im.options, im.resultFor(problem.dofCount(), problem.contactCount()));
  } catch (const InputError&) {
    return;  // options are validated once per call; a failure leaves everything to Bullet's pass
  }
  const ImpactResult& r = im.resultFor(problem.dofCount(), problem.contactCount());

  // Write back: store v+ − ½Δv so that Bullet's pass, which adds the whole
  // kick, ends at v+ + ½Δv.
  ClusterReport* report = nullptr;
  if (m_settings.keepReport && m_report.clusters.size() >= m_settings.reportClusterCap) {
    ++m_report.droppedClusters;  // never read: keep memory bounded, say so
  } else if (m_settings.keepReport) {
    m_report.clusters.emplace_back();
    report = &m_report.clusters.back();
    report->substep = im.substep;
    report->reflections = r.reflections;
    report->energyBefore = r.energyBefore;
    report->energyAfter = r.energyAfter;
    report->restitution = r.restitution;
    report->xiComputed = r.xiComputed;
    report->xi = r.xi;
    report->xiOrders = r.xiOrders;
    report->certificate = r.certificate;
    report->capHit = r.capHit;
    report->fallback = r.fallback;
    report->contacts.reserve(static_cast<std::size_t>(problem.contactCount()));
  }
  if (r.capHit) ++m_report.capHits;
  for (int blk = 0; blk < problem.blockCount(); ++blk) {
    const BlockLayout& layout = problem.block(blk);
    const auto after = r.velocity.segment<6>(layout.velocityOffset);
    if (after == Eigen::Map<const Vector6>(problem.velocityData() + layout.velocityOffset)) continue;
    BodyState& st = im.states[static_cast<std::size_t>(im.blockBody[static_cast<std::size_t>(blk)])];
    st.body->setLinearVelocity(toBullet(after.head<3>() - 0.5 * st.kickLinear));
    st.body->setAngularVelocity(toBullet(after.tail<3>() - 0.5 * st.kickAngular));
    st.impacted = true;
    if (report) report->bodies.push_back(st.body);
  }

  // Contacts of the cluster that separate by the end of the step need no
  // position correction and must not carry friction or a second restitution:
  // Bullet's pass does not see them.
  for (Candidate& c : im.candidates) {
    if (c.contact < 0) continue;
    if (!r.inCluster[static_cast<std::size_t>(c.contact)]) {
      c.contact = -1;  // never reached: an ordinary resting contact
      continue;
    }
    const RowLayout& row = problem.contact(c.contact);
    Scalar separation = row.bias;
    for (const RowTerm& t : row.terms) {
      if (t.block == kNoBlock) continue;
      const BlockLayout& layout = problem.block(t.block);
      separation += Eigen::Map<const Vector6>(problem.rowData() + t.coefficientOffset).dot(r.velocity.segment<6>(layout.velocityOffset));
    }
    const Scalar endOfStep = separation + 0.5 * c.kick;
    if (endOfStep > c.restingSpeed) {
      im.hidden.emplace_back(c.point, c.point->m_distance1);
    } else {
      // It stays in contact: Bullet's pass supports it, but never pushes its
      // overlap out through a velocity (that would add energy), now or in
      // later steps while the pair stays in contact.
      im.keepOverlap(*c.point);
    }
    // Either way the pair is remembered: one that separates more slowly than
    // its overlap (a wall contact in a cluster that ends at 4 cm/s with 1 cm
    // of overlap) still overlaps next step, where Bullet's pass would push it
    // out at erp·depth/dt and add energy.
    im.impactedPairs.emplace_back(pairOf(c.objectA, c.objectB), im.passCounter);
    if (report) {
      ContactReport cr;
      cr.bodyA = c.objectA;
      cr.bodyB = c.objectB;
      cr.restitution = row.restitution;
      cr.impulse = r.impulses[c.contact];
      cr.approachSpeed = c.approachMid;
      cr.separationSpeed = separation;
      cr.seed = c.seed;
      for (int k = 0; k < 3; ++k) {
        cr.point[k] = c.point->getPositionWorldOnB()[k];
        cr.normal[k] = c.normal[k];
      }
      report->contacts.push_back(cr);
    }
  }
}

}  // namespace propimpact
