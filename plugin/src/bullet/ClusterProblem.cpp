#include "ClusterProblem.h"

#include <algorithm>

#include "Conversions.h"
#include "propimpact/core/Errors.h"

namespace propimpact::bullet_detail {

void ClusterProblem::addBodies(int root, Island& island, Components& components, ImpactProblem& problem) {
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

void ClusterProblem::addContacts(int root, Island& island, Components& components, ImpactProblem& problem) {
  const auto blockOf = [&](int body) { return body >= 0 ? island.bodies[static_cast<std::size_t>(body)].block : kNoBlock; };
  for (IslandContact& c : island.contacts) {
    c.contact = -1;
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
    problem.setSeed(c.contact, c.seed);
    problem.setRestingSpeed(c.contact, c.restingSpeed);
  }
}

void ClusterProblem::build(int root, Island& island, Components& components, btTypedConstraint** constraints,
                           int numConstraints, const btContactSolverInfo& info, ImpactProblem& problem) {
  problem.clear();
  problem.setInputErrors(InputErrors::Record);  // nothing throws inside a step; rejected input stays Bullet's
  m_blockBody.clear();
  addBodies(root, island, components, problem);
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

}  // namespace propimpact::bullet_detail
