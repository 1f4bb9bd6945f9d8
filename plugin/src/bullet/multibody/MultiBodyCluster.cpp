#include "MultiBodyCluster.h"

#include <Eigen/Cholesky>

#include <algorithm>

#include "../Conversions.h"
#include "InputChecks.h"

namespace propimpact::bullet_detail {

bool MultiBodyCluster::components(const MultiBodyGroup& group, btTypedConstraint** constraints, int numConstraints) {
  m_sets.reset(group.blocks.size());
  m_seededRoots.clear();
  bool anySeed = false;
  for (const GroupContact& c : group.contacts) {
    m_sets.unite(c.blockA, c.blockB);
    anySeed = anySeed || c.seed;
  }
  if (!anySeed) return false;
  for (int k = 0; k < numConstraints; ++k) {
    if (!constraints[k]->isEnabled()) continue;
    m_sets.unite(group.blockOf(&constraints[k]->getRigidBodyA()), group.blockOf(&constraints[k]->getRigidBodyB()));
  }
  m_hasSeed.assign(group.blocks.size(), 0);
  for (const GroupContact& c : group.contacts)
    if (c.seed) m_hasSeed[static_cast<std::size_t>(m_sets.find(c.blockA >= 0 ? c.blockA : c.blockB))] = 1;
  for (std::size_t i = 0; i < group.blocks.size(); ++i)
    if (m_hasSeed[i] && m_sets.find(static_cast<int>(i)) == static_cast<int>(i)) m_seededRoots.push_back(static_cast<int>(i));
  return true;
}

bool MultiBodyCluster::addMultiBodyBlock(GroupBlock& b, ImpactProblem& problem) {
  btMultiBody* mb = b.multiBody;
  const int all = 6 + mb->getNumDofs();
  m_force.resize(all);
  m_delta.resize(all);
  m_inverseMass.resize(b.dofs, b.dofs);
  for (int k = 0; k < b.dofs; ++k) {
    for (int j = 0; j < all; ++j) m_force[j] = 0;
    m_force[b.firstDof + k] = 1;
    mb->calcAccelerationDeltasMultiDof(&m_force[0], &m_delta[0], m_scratchR, m_scratchV);
    for (int j = 0; j < b.dofs; ++j) m_inverseMass(j, k) = m_delta[b.firstDof + j];
  }
  if (!m_inverseMass.allFinite()) return false;
  m_inverseMass = 0.5 * (m_inverseMass + m_inverseMass.transpose()).eval();
  const Eigen::LLT<MatrixX> llt(m_inverseMass);
  if (llt.info() != Eigen::Success) return false;
  m_mass = llt.solve(MatrixX::Identity(b.dofs, b.dofs));
  m_mass = 0.5 * (m_mass + m_mass.transpose()).eval();
  if (!denseBlockAccepted(m_mass, m_velocity)) return false;  // m_velocity: set by build
  b.block = problem.addDenseBlock(m_mass, m_velocity);
  return true;
}

void MultiBodyCluster::addContacts(int root, MultiBodyGroup& group, ImpactProblem& problem) {
  const auto problemBlock = [&](int blk) { return blk >= 0 ? group.blocks[static_cast<std::size_t>(blk)].block : kNoBlock; };
  for (GroupContact& c : group.contacts) {
    c.contact = -1;
    if (m_sets.find(c.blockA >= 0 ? c.blockA : c.blockB) != root) continue;
    int blockA = problemBlock(c.blockA);
    int blockB = problemBlock(c.blockB);
    if ((c.blockA >= 0 && blockA == kNoBlock) || (c.blockB >= 0 && blockB == kNoBlock)) continue;
    const auto rowOf = [&](int blk, std::size_t row) {
      return Eigen::Map<const VectorX>(group.row(row), group.blocks[static_cast<std::size_t>(blk)].dofs);
    };
    // Assigned into reused vectors: no allocation once they have grown.
    if (c.blockA >= 0)
      m_rowA = rowOf(c.blockA, c.rowA);
    else
      m_rowA.resize(0);
    if (c.blockB >= 0)
      m_rowB = rowOf(c.blockB, c.rowB);
    else
      m_rowB.resize(0);
    if (c.blockA >= 0 && c.blockA == c.blockB) {
      m_rowA += m_rowB;  // two links of one multibody: one row over its block
      blockB = kNoBlock;
      m_rowB.resize(0);
    }
    if (blockA == kNoBlock) {
      std::swap(blockA, blockB);
      m_rowA.swap(m_rowB);
    }
    const Scalar restitution = std::clamp<Scalar>(c.point->m_combinedRestitution, 0, 1);  // NaN stays NaN
    // A zero row (a point on a fixed base, which no dof moves) or a NaN
    // restitution (reported as a restitution warning) stays with Bullet's pass.
    if (!contactRowAccepted(m_rowA, m_rowB, restitution, c.bias, c.restingSpeed)) continue;
    c.contact = problem.addContactRow(blockA, m_rowA, blockB, m_rowB, restitution, c.bias, c.key);
    problem.setSeed(c.contact, c.seed);
    problem.setRestingSpeed(c.contact, c.restingSpeed);
  }
}

Scalar MultiBodyCluster::located(int root, const MultiBodyGroup& group) {
  Scalar s = -1;
  for (std::size_t i = 0; i < group.blocks.size(); ++i) {
    const GroupBlock& b = group.blocks[i];
    if (!b.usable || m_sets.find(static_cast<int>(i)) != root) continue;
    if (!b.multiBody || !b.previousKnown) return -1;
    if (b.located >= 0) s = s < 0 ? b.located : std::min(s, b.located);
  }
  return s;
}

void MultiBodyCluster::build(int root, MultiBodyGroup& group, btTypedConstraint** constraints, int numConstraints,
                             const btContactSolverInfo& info, ImpactTime& time, ImpactProblem& problem) {
  problem.clear();
  m_blockOfProblem.clear();
  m_located = located(root, group);
  for (std::size_t i = 0; i < group.blocks.size(); ++i) {
    GroupBlock& b = group.blocks[i];
    b.block = kNoBlock;
    if (!b.usable || m_sets.find(static_cast<int>(i)) != root) continue;
    if (b.multiBody) {
      m_velocity = Eigen::Map<const VectorX>(group.mid(b), b.dofs);
      if (m_located >= 0) time.atContact(group, b, m_located, m_velocity.data());
      if (!addMultiBodyBlock(b, problem)) {
        b.block = kNoBlock;  // Bullet's pass only
        group.reportRejected(b, "mass matrix not positive definite");
      }
    } else {
      RigidBodyInput input;
      const btRigidBody* rb = b.rigidBody;
      input.inverseMass = rb->getInvMass();
      // Symmetric part: see ClusterProblem.cpp (single-precision rounding).
      const Matrix3 inverseInertia = toEigen(rb->getInvInertiaTensorWorld());
      input.inverseInertiaWorld = 0.5 * (inverseInertia + inverseInertia.transpose());
      const Scalar* mid = group.mid(b);
      input.linearVelocity = Vector3(mid[0], mid[1], mid[2]);
      input.angularVelocity = Vector3(mid[3], mid[4], mid[5]);
      input.linearFactor = toEigen(rb->getLinearFactor());
      input.angularFactor = toEigen(rb->getAngularFactor());
      if (!input.linearVelocity.allFinite() || !input.angularVelocity.allFinite()) {
        group.reportRejected(b, "non-finite velocity");
      } else if (!inverseInertiaAccepted(input.inverseInertiaWorld)) {
        group.reportRejected(b, "inertia not positive semi-definite");
      } else {
        b.block = problem.addRigidBody(input);
      }
    }
    if (b.block != kNoBlock) m_blockOfProblem.push_back(static_cast<int>(i));
  }
  addContacts(root, group, problem);
  const auto problemBlock = [&](int blk) { return blk >= 0 ? group.blocks[static_cast<std::size_t>(blk)].block : kNoBlock; };
  for (int k = 0; k < numConstraints; ++k) {
    btTypedConstraint* joint = constraints[k];
    if (!joint->isEnabled()) continue;
    const int blockA = problemBlock(group.blockOf(&joint->getRigidBodyA()));
    const int blockB = problemBlock(group.blockOf(&joint->getRigidBodyB()));
    if (blockA == kNoBlock && blockB == kNoBlock) continue;
    m_joints.add(*joint, blockA, blockB, info, problem);
  }
}

namespace {

ContactReport contactReport(const GroupContact& c, const ImpactResult& r, Scalar restitution, Scalar separation,
                            int firstReflection) {
  ContactReport cr;
  cr.bodyA = c.objectA;
  cr.bodyB = c.objectB;
  cr.restitution = restitution;
  cr.impulse = r.impulses[c.contact];
  cr.approachSpeed = c.approachMid;
  cr.separationSpeed = separation;
  cr.seed = c.seed;
  cr.firstReflection = firstReflection;
  const btVector3 normal = c.point->m_normalWorldOnB.normalized();
  for (int k = 0; k < 3; ++k) {
    cr.point[k] = c.point->getPositionWorldOnB()[k];
    cr.normal[k] = normal[k];
  }
  return cr;
}

}  // namespace

// A located block's velocity becomes eq. 3's whether the impact changed it
// or not (the sub-steps replace Bullet's step); otherwise the change is added.
void MultiBodyCluster::writeBlock(GroupBlock& b, const VectorX& after, const VectorX& delta, MultiBodyGroup& group,
                                  ImpactTime& time) {
  Scalar* now = group.now(b);
  Scalar* mid = group.mid(b);
  m_change = delta;
  if (m_located >= 0) {
    m_after.resize(b.dofs);
    time.afterImpact(group, b, after.data(), m_after.data());
    m_change = m_after - Eigen::Map<const VectorX>(now, b.dofs);
  }
  for (int k = 0; k < b.dofs; ++k) {
    now[k] += m_change[k];
    mid[k] += m_change[k];
  }
  if (b.multiBody) {
    const int all = 6 + b.multiBody->getNumDofs();
    m_delta.resize(all);
    for (int j = 0; j < all; ++j) m_delta[j] = 0;
    for (int k = 0; k < b.dofs; ++k) m_delta[b.firstDof + k] = static_cast<btScalar>(m_change[k]);
    b.multiBody->applyDeltaVeeMultiDof(&m_delta[0], 1);
  } else {
    b.rigidBody->setLinearVelocity(toBullet(Vector3(now[0], now[1], now[2])));
    b.rigidBody->setAngularVelocity(toBullet(Vector3(now[3], now[4], now[5])));
  }
}

std::size_t MultiBodyCluster::writeBack(const ImpactProblem& problem, const ImpactResult& r, MultiBodyGroup& group,
                                        ContactHistory& history, MultiBodyRestingPass& resting, ImpactTime& time,
                                        ClusterReport* report) {
  for (int blk = 0; blk < problem.blockCount(); ++blk) {
    const BlockLayout& layout = problem.block(blk);
    const VectorX after = r.velocity.segment(layout.velocityOffset, layout.size);
    const VectorX delta = after - Eigen::Map<const VectorX>(problem.velocityData() + layout.velocityOffset, layout.size);
    if (delta.isZero(0) && m_located < 0) continue;
    GroupBlock& b = group.blocks[static_cast<std::size_t>(m_blockOfProblem[static_cast<std::size_t>(blk)])];
    writeBlock(b, after, delta, group, time);
    if (delta.isZero(0)) continue;
    b.impacted = true;
    if (report) report->bodies.push_back(b.reportObject);
  }
  if (report) {
    m_firstReflection.assign(static_cast<std::size_t>(problem.contactCount()), -1);
    for (std::size_t k = r.sequence.size(); k-- > 0;)
      m_firstReflection[static_cast<std::size_t>(r.sequence[k])] = static_cast<int>(k);
  }
  std::size_t inCluster = 0;
  for (GroupContact& c : group.contacts) {
    if (c.contact < 0) continue;
    if (!r.inCluster[static_cast<std::size_t>(c.contact)]) {
      c.contact = -1;  // never reached: an ordinary resting contact
      continue;
    }
    ++inCluster;
    const Scalar separation = group.approachMid(c);
    if (c.queried) {
      // in no manifold: Bullet's pass does not see it
    } else if (separation + 0.5 * c.kick > c.restingSpeed) {
      resting.hide(*c.point);
    } else {
      resting.keepOverlap(*c.point);  // supported by Bullet's pass, never pushed out through a velocity
    }
    history.addImpactedPair(c.objectA, c.objectB);
    if (report)
      report->contacts.push_back(contactReport(c, r, problem.contact(c.contact).restitution, separation,
                                               m_firstReflection[static_cast<std::size_t>(c.contact)]));
  }
  return inCluster;
}

void MultiBodyCluster::hideApproachingSpeculative(const MultiBodyGroup& group, MultiBodyRestingPass& resting) {
  const auto impacted = [&](int blk) { return blk >= 0 && group.blocks[static_cast<std::size_t>(blk)].impacted; };
  for (const GroupContact& c : group.speculative) {
    if (c.persistent && !impacted(c.blockA) && !impacted(c.blockB)) continue;
    if (group.approachMid(c) < -c.restingSpeed) resting.hide(*c.point);
  }
}

}  // namespace propimpact::bullet_detail
