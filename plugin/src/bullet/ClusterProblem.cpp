#include "ClusterProblem.h"

#include <algorithm>
#include <limits>

#include "Conversions.h"
#include "propimpact/core/Errors.h"

namespace propimpact::bullet_detail {
namespace {

// Outside the near problem, a pair may hold at most this share of the
// component's kinetic energy: its contacts then cannot set the resolver's
// scale, even with round-off (see buildNear).
constexpr double kOutsideEnergyShare = 0.9;
constexpr std::size_t kNearContactsPerBody = 2;
// A propagation from more seeds than this spreads over most of a settled
// pile (its ~40 seeds per step reach ~220 of 1,000 bodies): near attempts
// would only add their cost there. Its later rounds had 2 in the passes printed.
constexpr int kNearSeedLimit = 8;

// Sized by the island with room to double, so that a cluster of a new shape
// allocates nothing once an island as large has been seen.
template <typename Buffer>
void reserveFor(Buffer& buffer, std::size_t needed) {
  if (buffer.capacity() < needed) buffer.reserve(2 * needed);
}

bool allOnes(const btVector3& factor) { return factor.x() == 1 && factor.y() == 1 && factor.z() == 1; }

// ½ (m v·v + ωᵀ I ω), I = R diag(1/invI) Rᵀ as Bullet's world inverse inertia
// is R diag(invI) Rᵀ; \p velocity is the body's block of the problem ([v; ω]).
double kineticEnergy(const btRigidBody& body, const Scalar* velocity) {
  const Vector3 linear(velocity[0], velocity[1], velocity[2]);
  const Vector3 angular(velocity[3], velocity[4], velocity[5]);
  const Vector3 local = toEigen(body.getWorldTransform().getBasis()).transpose() * angular;
  const Vector3 inverseInertia = toEigen(body.getInvInertiaDiagLocal());
  double twice = double(linear.squaredNorm()) / double(body.getInvMass());
  for (int k = 0; k < 3; ++k) twice += double(local[k] * local[k]) / double(inverseInertia[k]);
  return 0.5 * twice;
}

}  // namespace

void ClusterProblem::addBodies(int root, Island& island, Components& components, ImpactProblem& problem) {
  reserveFor(m_energy, island.bodies.size());
  reserveFor(m_islandContact, island.contacts.size());
  reserveFor(m_blockBody, island.bodies.size());
  m_energy.resize(island.bodies.size());
  m_energiesKnown = false;
  for (std::size_t i = 0; i < island.bodies.size(); ++i) {
    IslandBody& st = island.bodies[i];
    st.block = kNoBlock;
    if (!st.usable || components.rootOf(static_cast<int>(i)) != root) continue;
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
    st.block = problem.addRigidBody(input);
    if (st.block == kRejected) {
      st.block = kNoBlock;  // e.g. an inertia tensor that is not PSD: Bullet's pass only
      continue;
    }
    m_blockBody.push_back(static_cast<int>(i));
  }
}

// Only near problems read them (buildNear), and a component built whole
// directly (a chain: no near attempt) must not pay for them.
void ClusterProblem::computeEnergies(const Island& island, const ImpactProblem& problem) {
  if (m_energiesKnown) return;
  m_energiesKnown = true;
  for (const int i : m_blockBody) {
    const IslandBody& st = island.bodies[static_cast<std::size_t>(i)];
    const btRigidBody* rb = st.body;
    // NaN unless the Cauchy–Schwarz bound of buildNear holds for the body.
    const bool bounded = allOnes(rb->getLinearFactor()) && allOnes(rb->getAngularFactor()) &&
                         rb->getInvInertiaDiagLocal().x() > 0 && rb->getInvInertiaDiagLocal().y() > 0 &&
                         rb->getInvInertiaDiagLocal().z() > 0;
    const Scalar* velocity = problem.velocityData() + problem.block(st.block).velocityOffset;
    m_energy[static_cast<std::size_t>(i)] = bounded ? kineticEnergy(*rb, velocity) : std::numeric_limits<double>::quiet_NaN();
  }
}

void ClusterProblem::addContacts(int root, Island& island, Components& components, ImpactProblem& problem) {
  const auto blockOf = [&](int body) { return body >= 0 ? island.bodies[static_cast<std::size_t>(body)].block : kNoBlock; };
  const bool all = m_near.empty();
  m_islandContact.clear();
  for (std::size_t k = 0; k < island.contacts.size(); ++k) {
    IslandContact& c = island.contacts[k];
    c.contact = -1;
    if (!all && !((c.bodyA >= 0 && near(c.bodyA)) || (c.bodyB >= 0 && near(c.bodyB)))) continue;
    if (components.rootOf(c.bodyA >= 0 ? c.bodyA : c.bodyB) != root) continue;
    const int blockA = blockOf(c.bodyA);
    const int blockB = blockOf(c.bodyB);
    if ((c.bodyA >= 0 && blockA == kNoBlock) || (c.bodyB >= 0 && blockB == kNoBlock)) continue;
    const Scalar restitution = std::clamp<Scalar>(c.point->m_combinedRestitution, 0, 1);
    c.contact = problem.addRigidContact(blockA, blockB, c.normal, c.offsetA, c.offsetB, restitution, c.bias, c.key);
    if (c.contact == kRejected) {  // e.g. a degenerate normal: Bullet's pass only
      c.contact = -1;
      continue;
    }
    m_islandContact.push_back(static_cast<int>(k));
    problem.setSeed(c.contact, c.seed);
    problem.setRestingSpeed(c.contact, c.restingSpeed);
  }
}

void ClusterProblem::startProblem(int root, Island& island, Components& components, ImpactProblem& problem) {
  if (m_bodiesFor == root) {
    problem.clearRows();  // the near attempts' bodies: adding them again was most of an attempt's build
  } else {
    problem.clear();
    problem.setInputErrors(InputErrors::Record);  // nothing throws inside a step; rejected input stays Bullet's
    m_blockBody.clear();
    addBodies(root, island, components, problem);
    m_bodyRejections = problem.rejectedCount();
    m_bodiesFor = root;
  }
  m_rowRejectionsBefore = problem.rejectedCount();
}

void ClusterProblem::build(int root, Island& island, Components& components, btTypedConstraint** constraints,
                           int numConstraints, const btContactSolverInfo& info, ImpactProblem& problem) {
  m_near.clear();
  startProblem(root, island, components, problem);
  m_bodiesFor = -1;
  addContacts(root, island, components, problem);
  const auto blockOf = [&](int body) { return body >= 0 ? island.bodies[static_cast<std::size_t>(body)].block : kNoBlock; };
  for (int k = 0; k < numConstraints; ++k) {
    btTypedConstraint* joint = constraints[k];
    if (!joint->isEnabled()) continue;
    const int blockA = blockOf(island.dynamicIndex(&joint->getRigidBodyA()));
    const int blockB = blockOf(island.dynamicIndex(&joint->getRigidBodyB()));
    if (blockA == kNoBlock && blockB == kNoBlock) continue;
    m_joints.add(*joint, blockA, blockB, info, problem);
  }
}

bool ClusterProblem::startNear(int root, Island& island, Components& components, btTypedConstraint** constraints,
                               int numConstraints) {
  // Joint rows couple the metric of every body they join: a component with
  // any is built whole.
  for (int k = 0; k < numConstraints; ++k) {
    btTypedConstraint* joint = constraints[k];
    if (!joint->isEnabled()) continue;
    for (const btRigidBody* body : {&joint->getRigidBodyA(), &joint->getRigidBodyB()}) {
      const int i = island.dynamicIndex(body);
      if (i >= 0 && island.bodies[static_cast<std::size_t>(i)].usable && components.rootOf(i) == root) return false;
    }
  }
  reserveFor(m_near, island.bodies.size());
  reserveFor(m_ring, island.contacts.size());
  m_near.assign(island.bodies.size(), 0);
  int seeds = 0;
  std::size_t contacts = 0;
  for (const IslandContact& c : island.contacts) {
    if (components.rootOf(c.bodyA >= 0 ? c.bodyA : c.bodyB) != root) continue;
    ++contacts;
    if (!c.seed) continue;
    if (++seeds > kNearSeedLimit) return false;
    if (c.bodyA >= 0) m_near[static_cast<std::size_t>(c.bodyA)] = 1;
    if (c.bodyB >= 0) m_near[static_cast<std::size_t>(c.bodyB)] = 1;
  }
  // A near attempt costs what its bodies cost (it holds every body of the
  // component) and saves what the contacts it leaves out cost. With fewer
  // than kNearContactsPerBody contacts per body (a chain: one) a failed
  // attempt costs about a whole build, and an impact that runs through the
  // component fails them all: the Bullet chain of 10,000 balls spent half its
  // step in three attempts (callgrind).
  std::size_t bodies = 0;
  for (std::size_t i = 0; i < island.bodies.size(); ++i)
    if (island.bodies[i].usable && components.rootOf(static_cast<int>(i)) == root) ++bodies;
  if (contacts < kNearContactsPerBody * bodies) return false;
  addRing(root, island, components);
  return true;
}

// Marks the partners of near bodies, in two phases so that marking does not
// run on along the contact order within one pass.
void ClusterProblem::addRing(int root, const Island& island, Components& components) {
  m_ring.clear();
  for (const IslandContact& c : island.contacts) {
    if (c.bodyA < 0 || c.bodyB < 0 || m_near[static_cast<std::size_t>(c.bodyA)] == m_near[static_cast<std::size_t>(c.bodyB)])
      continue;
    if (components.rootOf(c.bodyA) != root) continue;
    m_ring.push_back(m_near[static_cast<std::size_t>(c.bodyA)] ? c.bodyB : c.bodyA);
  }
  for (const int body : m_ring) m_near[static_cast<std::size_t>(body)] = 1;
}

// Why the near problem's outcome is the whole component's, bit for bit, when
// nearSuffices says so. Its blocks are the component's, in the same order, so
// the resolver's kinetic energy and ‖p0‖_g are the same. Its scale is the
// larger of ‖p0‖_g and the largest unit-normal speed of a row; a row without
// bias over bodies with every factor 1 and finite inertia has, by
// Cauchy–Schwarz in the mass metric, |J v| / √(J M⁻¹ Jᵀ) ≤ √(2 E_pair) ≤ ‖p0‖_g,
// so a left-out row whose pair holds at most 90 % of the energy cannot set
// the scale: threshold and tie quantum are the same. Duplicates merge only
// between rows over the same bodies, both in or both out. A propagation
// refreshes only the rows of the bodies of a row it reflects, and the plastic
// growth only rows of bodies of joined rows; if those bodies are all near,
// every row either could touch is in, in the same relative order with the
// same keys, so the sequence, the plastic solve over the joined rows and the
// blend over all bodies are the same. The default reflection cap counts rows:
// a near run that hits it is not taken.
bool ClusterProblem::buildNear(int root, Island& island, Components& components, ImpactProblem& problem) {
  std::size_t total = 0, inside = 0;
  for (const IslandContact& c : island.contacts) {
    if (components.rootOf(c.bodyA >= 0 ? c.bodyA : c.bodyB) != root) continue;
    // A kinematic partner's motion or a clamped restitution: see the header.
    const btScalar restitution = c.point->m_combinedRestitution;
    if (c.bias != 0 || !(restitution >= 0 && restitution <= 1)) return false;
    ++total;
    if ((c.bodyA >= 0 && near(c.bodyA)) || (c.bodyB >= 0 && near(c.bodyB))) ++inside;
  }
  if (2 * inside > total) return false;
  startProblem(root, island, components, problem);
  computeEnergies(island, problem);
  double energy = 0;
  for (const int body : m_blockBody) energy += m_energy[static_cast<std::size_t>(body)];
  if (!(energy >= 0)) return false;  // a body outside the bound (NaN)
  const auto energyOf = [&](int body) {
    return body >= 0 && island.bodies[static_cast<std::size_t>(body)].block != kNoBlock ? m_energy[static_cast<std::size_t>(body)] : 0.0;
  };
  for (const IslandContact& c : island.contacts) {
    if ((c.bodyA >= 0 && near(c.bodyA)) || (c.bodyB >= 0 && near(c.bodyB))) continue;
    if (components.rootOf(c.bodyA >= 0 ? c.bodyA : c.bodyB) != root) continue;
    if (energyOf(c.bodyA) + energyOf(c.bodyB) > kOutsideEnergyShare * energy) return false;
  }
  addContacts(root, island, components, problem);
  return true;
}

bool ClusterProblem::nearSuffices(int root, const Island& island, Components& components, const ImpactResult& result) {
  const auto bothNear = [&](int contact) {
    const IslandContact& c = island.contacts[static_cast<std::size_t>(m_islandContact[static_cast<std::size_t>(contact)])];
    return near(c.bodyA) && near(c.bodyB);
  };
  // A propagation touched the rows of the bodies of the rows it reflected; a
  // plastic growth (no reflections) those of the bodies of the rows it joined.
  bool suffices = true;
  if (result.sequence.empty()) {
    for (int k = 0; k < static_cast<int>(m_islandContact.size()) && suffices; ++k)
      suffices = !result.inCluster[static_cast<std::size_t>(k)] || bothNear(k);
  } else {
    for (const int k : result.sequence) suffices = suffices && bothNear(k);
  }
  if (suffices) return true;
  // Widen to the bodies of every contact the impact reached and their partners.
  for (std::size_t k = 0; k < m_islandContact.size(); ++k) {
    if (!result.inCluster[k]) continue;
    const IslandContact& c = island.contacts[static_cast<std::size_t>(m_islandContact[k])];
    if (c.bodyA >= 0) m_near[static_cast<std::size_t>(c.bodyA)] = 1;
    if (c.bodyB >= 0) m_near[static_cast<std::size_t>(c.bodyB)] = 1;
  }
  addRing(root, island, components);
  return false;
}

}  // namespace propimpact::bullet_detail
