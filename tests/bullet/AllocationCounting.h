#pragma once
// Counting heap allocations around our code (the allocation tests): the
// replaced global operator new and, on glibc without a sanitizer, the
// malloc family (AllocationCounting.cpp), counted only while a
// CountingScope is alive and no PausedScope is.
#include <propimpact/bullet/PropagativeImpactSolver.h>

namespace propimpact::alloc_counting {

/// Calls counted since resetCounts(), on this thread.
[[nodiscard]] long newCalls();
[[nodiscard]] long mallocCalls();
void resetCounts();
/// Sets whether allocations are counted; returns the previous setting.
bool setCounting(bool on);

/// Sets counting on or off while it is alive, restoring the setting after.
class CountingSwitch {
 public:
  explicit CountingSwitch(bool on) : m_previous(setCounting(on)) {}
  ~CountingSwitch() { setCounting(m_previous); }
  CountingSwitch(const CountingSwitch&) = delete;
  CountingSwitch& operator=(const CountingSwitch&) = delete;

 private:
  bool m_previous;
};

/// Counts the allocations made while it is alive.
struct CountingScope : CountingSwitch {
  CountingScope() : CountingSwitch(true) {}
};

/// Turns counting off (inside Bullet's own stages).
struct PausedScope : CountingSwitch {
  PausedScope() : CountingSwitch(false) {}
};

/// Counts inside our solveGroup, not inside Bullet's sequential-impulse stages.
class CountingSolver : public PropagativeImpactSolver {
 public:
  bool active = false;
  btScalar solveGroup(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds, int numManifolds,
                      btTypedConstraint** constraints, int numConstraints, const btContactSolverInfo& info,
                      btIDebugDraw* debugDrawer, btDispatcher* dispatcher) override {
    if (!active)
      return PropagativeImpactSolver::solveGroup(bodies, numBodies, manifolds, numManifolds, constraints,
                                                 numConstraints, info, debugDrawer, dispatcher);
    const CountingScope counting;
    return PropagativeImpactSolver::solveGroup(bodies, numBodies, manifolds, numManifolds, constraints,
                                               numConstraints, info, debugDrawer, dispatcher);
  }

 protected:
  btScalar solveGroupCacheFriendlySetup(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds,
                                        int numManifolds, btTypedConstraint** constraints, int numConstraints,
                                        const btContactSolverInfo& info, btIDebugDraw* debugDrawer) override {
    const PausedScope paused;
    return PropagativeImpactSolver::solveGroupCacheFriendlySetup(bodies, numBodies, manifolds, numManifolds,
                                                                 constraints, numConstraints, info, debugDrawer);
  }
  btScalar solveGroupCacheFriendlyIterations(btCollisionObject** bodies, int numBodies,
                                             btPersistentManifold** manifolds, int numManifolds,
                                             btTypedConstraint** constraints, int numConstraints,
                                             const btContactSolverInfo& info, btIDebugDraw* debugDrawer) override {
    const PausedScope paused;
    return PropagativeImpactSolver::solveGroupCacheFriendlyIterations(bodies, numBodies, manifolds, numManifolds,
                                                                      constraints, numConstraints, info, debugDrawer);
  }
  btScalar solveGroupCacheFriendlyFinish(btCollisionObject** bodies, int numBodies,
                                         const btContactSolverInfo& info) override {
    const PausedScope paused;
    return PropagativeImpactSolver::solveGroupCacheFriendlyFinish(bodies, numBodies, info);
  }
};

}  // namespace propimpact::alloc_counting
