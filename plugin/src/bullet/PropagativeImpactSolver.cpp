// TEMPORARY pass-through while the adapter is written; replaced in the next commit.
#include "propimpact/bullet/PropagativeImpactSolver.h"

namespace propimpact {

struct PropagativeImpactSolver::Impl {};

PropagativeImpactSolver::PropagativeImpactSolver() : m_impl(std::make_unique<Impl>()) {}
PropagativeImpactSolver::~PropagativeImpactSolver() = default;

const StepReport& PropagativeImpactSolver::lastStepReport() const {
  m_reportConsumed = true;
  return m_report;
}

void PropagativeImpactSolver::prepareSolve(int numBodies, int numManifolds) {
  btSequentialImpulseConstraintSolver::prepareSolve(numBodies, numManifolds);
}

btScalar PropagativeImpactSolver::solveGroup(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds,
                                             int numManifolds, btTypedConstraint** constraints, int numConstraints,
                                             const btContactSolverInfo& info, btIDebugDraw* debugDrawer,
                                             btDispatcher* dispatcher) {
  return btSequentialImpulseConstraintSolver::solveGroup(bodies, numBodies, manifolds, numManifolds, constraints,
                                                         numConstraints, info, debugDrawer, dispatcher);
}

}  // namespace propimpact
