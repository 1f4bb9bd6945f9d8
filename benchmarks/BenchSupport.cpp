#include "BenchSupport.h"

#include <BulletCollision/BroadphaseCollision/btDispatcher.h>

#include <algorithm>

namespace propimpact::bench {

WorldSnapshot::WorldSnapshot(scenes::World& world) {
  for (btRigidBody* body : world.bodies()) {
    m_bodies.push_back(BodyState{body, body->getWorldTransform(), body->getInterpolationWorldTransform(),
                                 body->getLinearVelocity(), body->getAngularVelocity(),
                                 body->getInterpolationLinearVelocity(), body->getInterpolationAngularVelocity()});
  }
  btDispatcher& dispatcher = *world.dynamics().getDispatcher();
  for (int m = 0; m < dispatcher.getNumManifolds(); ++m) {
    const btPersistentManifold* manifold = dispatcher.getManifoldByIndexInternal(m);
    ManifoldState state{manifold, manifold->getBody0(), manifold->getBody1(), manifold->getNumContacts(), {}};
    for (int p = 0; p < state.count; ++p) state.points[p] = manifold->getContactPoint(p);
    m_manifolds.push_back(state);
  }
  std::sort(m_manifolds.begin(), m_manifolds.end(),
            [](const ManifoldState& a, const ManifoldState& b) { return a.manifold < b.manifold; });
}

void WorldSnapshot::restore(scenes::World& world) const {
  for (const BodyState& s : m_bodies) {
    s.body->setWorldTransform(s.transform);
    s.body->setInterpolationWorldTransform(s.interpolationTransform);
    s.body->setLinearVelocity(s.linear);
    s.body->setAngularVelocity(s.angular);
    s.body->setInterpolationLinearVelocity(s.interpolationLinear);
    s.body->setInterpolationAngularVelocity(s.interpolationAngular);
    s.body->clearForces();
    if (s.body->getMotionState() == nullptr) s.body->updateInertiaTensor();
  }
  btDispatcher& dispatcher = *world.dynamics().getDispatcher();
  for (int m = 0; m < dispatcher.getNumManifolds(); ++m) {
    btPersistentManifold* manifold = dispatcher.getManifoldByIndexInternal(m);
    const auto found = std::lower_bound(
        m_manifolds.begin(), m_manifolds.end(), manifold,
        [](const ManifoldState& s, const btPersistentManifold* key) { return s.manifold < key; });
    if (found == m_manifolds.end() || found->manifold != manifold || found->body0 != manifold->getBody0() ||
        found->body1 != manifold->getBody1()) {
      manifold->clearManifold();
      continue;
    }
    manifold->setNumContacts(found->count);
    for (int p = 0; p < found->count; ++p) manifold->getContactPoint(p) = found->points[p];
  }
  world.dynamics().synchronizeMotionStates();
}

btScalar TimedPropagativeSolver::solveGroup(btCollisionObject** bodies, int numBodies,
                                            btPersistentManifold** manifolds, int numManifolds,
                                            btTypedConstraint** constraints, int numConstraints,
                                            const btContactSolverInfo& info, btIDebugDraw* debugDrawer,
                                            btDispatcher* dispatcher) {
  // The report accumulates over a step's solveGroup calls: this call's share
  // is the difference. Reading it marks it consumed, which only lets the next
  // step's prepareSolve start a fresh one, as the benchmarks' own reads do.
  const double passBefore = lastStepReport().stageSeconds.restingPass;
  const double start = now();
  const btScalar residual = PropagativeImpactSolver::solveGroup(bodies, numBodies, manifolds, numManifolds,
                                                                constraints, numConstraints, info, debugDrawer,
                                                                dispatcher);
  wholeSeconds += now() - start;
  bulletSeconds += lastStepReport().stageSeconds.restingPass - passBefore;
  return residual;
}

std::int64_t reportedReflections(const PropagativeImpactSolver& solver) {
  std::int64_t total = 0;
  for (const ClusterReport& cluster : solver.lastStepReport().clusters) total += cluster.reflections;
  return total;
}

}  // namespace propimpact::bench
