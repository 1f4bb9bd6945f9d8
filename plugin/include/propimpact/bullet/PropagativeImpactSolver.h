#pragma once
/// \file PropagativeImpactSolver.h
/// Drop-in replacement for btSequentialImpulseConstraintSolver whose impacts
/// are resolved by the propagative model (propimpact::ImpactResolver).
///
/// \code
///   propimpact::PropagativeImpactSolver solver;
///   btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
///   world.stepSimulation(1.0 / 60);
///   fmt::print("{}\n", solver.lastStepReport());   // #include <propimpact/bullet/ReportFormat.h>
/// \endcode
///
/// Per island (solveGroup) it: takes half of this step's external-force kick;
/// finds impact contacts (approaching faster than the Zeno threshold, and not
/// carrying last step's resting impulse) and grows a cluster from them as the
/// propagation reaches touching contacts; resolves each cluster with the core
/// (restitution from m_combinedRestitution, kinematic bodies entering as
/// constant terms, joints as the admissible metric); and hands everything else
/// to Bullet's sequential-impulse pass — resting contact, friction, joints,
/// limits, motors — which adds the second half of the kick. In that pass there
/// is no second restitution; impact contacts that separate by themselves are
/// left out (no friction, no position correction during an impact: the
/// paper's impacts are frictionless); impact contacts that stay in contact get
/// ERP 0 for as long as the pair stays touching, so their overlap is never
/// pushed out through a velocity; approaching speculative points are left out
/// so that a body arrives and is reflected rather than being stopped
/// plastically at the surface. Impact impulses are reported in
/// lastStepReport(), not in m_appliedImpulse (Bullet would warm-start them).

#include <BulletDynamics/ConstraintSolver/btSequentialImpulseConstraintSolver.h>

#include <memory>

#include "propimpact/bullet/Precision.h"
#include "propimpact/bullet/SolverSettings.h"
#include "propimpact/bullet/StepReport.h"

namespace propimpact {
namespace bullet_detail {
class RestingPass;
}

/// The drop-in solver. One per world; not for btDiscreteDynamicsWorldMt.
class PropagativeImpactSolver : public btSequentialImpulseConstraintSolver {
 public:
  /// Checks at run time that the caller's btScalar matches the library's
  /// (inline, so compiled with the caller's flags); throws std::logic_error if not.
  PropagativeImpactSolver() : PropagativeImpactSolver(sizeof(btScalar)) {}
  ~PropagativeImpactSolver() override;
  PropagativeImpactSolver(const PropagativeImpactSolver&) = delete;
  PropagativeImpactSolver& operator=(const PropagativeImpactSolver&) = delete;

  /// Settings, changeable between steps.
  SolverSettings& settings() { return m_settings; }
  [[nodiscard]] const SolverSettings& settings() const { return m_settings; }

  /// The impacts since the report was last read: every substep of the last
  /// stepSimulation when read once per step. Reading marks it consumed; the
  /// next solver pass starts a fresh report.
  [[nodiscard]] const StepReport& lastStepReport() const;

  /// Bullet's entry point, once per island or batch of islands.
  btScalar solveGroup(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds, int numManifolds,
                      btTypedConstraint** constraints, int numConstraints, const btContactSolverInfo& info,
                      btIDebugDraw* debugDrawer, btDispatcher* dispatcher) override;

  /// Marks the start of a solver pass (one per Bullet substep).
  void prepareSolve(int numBodies, int numManifolds) override;

  /// Distinguishes this solver from Bullet's own.
  btConstraintSolverType getSolverType() const override { return BT_SEQUENTIAL_IMPULSE_SOLVER; }

 private:
  explicit PropagativeImpactSolver(std::size_t callerScalarSize);
  void resolveComponent(int root, btTypedConstraint** constraints, int numConstraints, const btContactSolverInfo& info,
                        bullet_detail::RestingPass& resting);
  void noteClampedRestitution();
  void reserveForIsland(int numBodies, int numManifolds, int numConstraints);

  struct Impl;
  std::unique_ptr<Impl> m_impl;
  SolverSettings m_settings;
  mutable StepReport m_report;
  mutable bool m_reportConsumed = false;
};

}  // namespace propimpact
