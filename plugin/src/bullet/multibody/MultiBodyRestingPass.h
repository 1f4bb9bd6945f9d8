#pragma once
// Stage "resting pass" of the multibody solver: Bullet's own multibody pass
// (btMultiBodyConstraintSolver::solveMultiBodyGroup) over what the impacts
// left — resting contact, friction, joint limits, motors, every
// btMultiBodyConstraint and btTypedConstraint — with no second restitution.
// The same scope object as the rigid solver's RestingPass (points hidden,
// points whose overlap is not pushed out, restored in the destructor), for
// the multibody entry point, which that one cannot call.

#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>

#include <utility>
#include <vector>

namespace propimpact::bullet_detail {

/// Collects what Bullet's multibody pass must and must not see; runs it; restores.
class MultiBodyRestingPass {
 public:
  /// Buffers are borrowed from the solver so that a warmed-up world allocates nothing.
  struct Buffers {
    std::vector<btPersistentManifold*> manifolds;
    std::vector<btTypedConstraint*> constraints;
    std::vector<btMultiBodyConstraint*> multiBodyConstraints;
    std::vector<std::pair<btManifoldPoint*, btScalar>> hidden;                    // point, original distance
    std::vector<std::pair<btManifoldPoint*, std::pair<int, btScalar>>> unpushed;  // point, flags and ERP
  };
  explicit MultiBodyRestingPass(Buffers& buffers);
  ~MultiBodyRestingPass();
  MultiBodyRestingPass(const MultiBodyRestingPass&) = delete;
  MultiBodyRestingPass& operator=(const MultiBodyRestingPass&) = delete;

  void addManifold(btPersistentManifold* manifold) { m_b.manifolds.push_back(manifold); }
  void addConstraint(btTypedConstraint* constraint) { m_b.constraints.push_back(constraint); }
  void addMultiBodyConstraint(btMultiBodyConstraint* constraint) { m_b.multiBodyConstraints.push_back(constraint); }
  /// Keeps the point out of the pass (its impact impulse stays out of warm starting too).
  void hide(btManifoldPoint& point) { m_b.hidden.emplace_back(&point, point.m_distance1); }
  /// ERP 0 for this pass: the overlap is not pushed out through a velocity.
  void keepOverlap(btManifoldPoint& point);

  /// Runs Bullet's multibody pass of \p solver (its base class's solveMultiBodyGroup).
  void run(btMultiBodyConstraintSolver& solver, btCollisionObject** bodies, int numBodies,
           const btContactSolverInfo& info, btIDebugDraw* debugDrawer, btDispatcher* dispatcher);

 private:
  Buffers& m_b;
  bool m_hiddenApplied = false;
};

}  // namespace propimpact::bullet_detail
