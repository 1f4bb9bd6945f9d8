#pragma once
/// \file PropagativeMultiBodySolver.h
/// Drop-in replacement for btMultiBodyConstraintSolver (Featherstone
/// multibodies, as PyBullet's loadURDF builds them) whose impacts are
/// resolved by the propagative model (propimpact::ImpactResolver).
///
/// \code
///   propimpact::PropagativeMultiBodySolver solver;
///   btMultiBodyDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
///   world.stepSimulation(1.0 / 240, 1, 1.0 / 240);
///   fmt::print("{}\n", solver.lastStepReport());   // #include <propimpact/bullet/ReportFormat.h>
/// \endcode
///
/// Per solver call (solveMultiBodyGroup, per island or batch of islands) it
/// finds impact contacts over multibody links, rigid bodies and static or
/// kinematic geometry, grows clusters from them and resolves each cluster
/// with the core: every multibody is one dense block in its generalized
/// velocities (6 + n for a floating base, n for a fixed one), its rows are
/// Bullet's own contact Jacobians (fillContactJacobianMultiDof) and its mass
/// matrix the inverse of Bullet's calcAccelerationDeltasMultiDof map; rigid
/// bodies are 6-dof blocks as in PropagativeImpactSolver. The velocity
/// changes go back into Bullet (applyDeltaVeeMultiDof for a multibody).
/// Everything else is Bullet's multibody pass, as with the rigid solver:
/// resting contact, friction, joint limits, motors and every
/// btMultiBodyConstraint, with no second restitution; impact contacts that
/// separate are left out of it, those that stay get ERP 0, approaching
/// speculative points are left out so bodies arrive and are reflected.
/// Reflecting impacts (restitution > 0) are placed inside the step: a pair
/// not yet touching whose gap this step's motion closes (its gap from
/// Bullet's speculative point, or from Bullet's closest-point query when its
/// manifold is empty, as sphere–sphere's is) is resolved by the next pass, at
/// the fraction of the step where it closed, with two Verlet sub-steps whose
/// forces come from the two passes' kicks; its bodies are moved to where the
/// sub-steps end, and the velocity of that one step is corrected by the pass
/// after (multibody/ImpactTime.h). A pair with a btRigidBody is resolved at
/// the nearer step boundary instead.
///
/// Where the kick is: btMultiBodyDynamicsWorld adds a multibody's whole
/// step of gravity and applied forces to its velocity before the solver
/// runs; the solver reconstructs that change from the velocity the body had
/// at the end of the previous pass and places the impact at mid-step
/// (kick–reflect–kick). Consequences (see the README's multibody section):
/// a multibody's first pass (just added, just woken, or forgotten) has no
/// known kick and its contacts are not impact seeds in that pass; a
/// velocity the application sets between steps is read as kick unless
/// forgetKick() is called for that body.
///
/// Bad input is reported, never thrown inside a step: a multibody or rigid
/// body with non-finite state, no positive mass, a non-finite applied force
/// or a mass matrix the core cannot factor is named in
/// StepReport::rejected and left to Bullet; settings the core would refuse
/// (a negative reflectionCap, a negative or non-finite restingFactor or
/// restingFloor) are named there with a null body, and every impact of that
/// call is left to Bullet's pass; a NaN restitution is a restitution warning
/// and its contact stays with Bullet's pass.
///
/// Not covered: SolverSettings::impactFriction (multibody impacts are
/// frictionless; friction at resting contact is Bullet's), btMultiBodyConstraints
/// in the impact's metric (they act in Bullet's pass only), kinematic links.

#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>

#include <memory>

#include "propimpact/bullet/Precision.h"
#include "propimpact/bullet/SolverSettings.h"
#include "propimpact/bullet/StepReport.h"

namespace propimpact {
namespace bullet_detail {
class MultiBodyRestingPass;
}

/// The multibody drop-in solver. One per btMultiBodyDynamicsWorld.
class PropagativeMultiBodySolver : public btMultiBodyConstraintSolver {
 public:
  /// Checks at run time that the caller's btScalar matches the library's
  /// (inline, so compiled with the caller's flags); throws std::logic_error if not.
  PropagativeMultiBodySolver() : PropagativeMultiBodySolver(sizeof(btScalar)) {}
  ~PropagativeMultiBodySolver() override;
  PropagativeMultiBodySolver(const PropagativeMultiBodySolver&) = delete;
  PropagativeMultiBodySolver& operator=(const PropagativeMultiBodySolver&) = delete;

  /// Settings, changeable between steps (impactFriction is not used here).
  SolverSettings& settings() { return m_settings; }
  [[nodiscard]] const SolverSettings& settings() const { return m_settings; }

  /// The impacts since the report was last read (as PropagativeImpactSolver::lastStepReport).
  [[nodiscard]] const StepReport& lastStepReport() const;

  /// Forget what the solver knows of \p body's motion: call after setting its
  /// velocities by hand between steps, so the change is not read as this
  /// step's kick. Its next pass then has no known kick (no impact seeds).
  void forgetKick(const btMultiBody& body);

  /// Bullet's entry point, once per island or batch of islands.
  void solveMultiBodyGroup(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds, int numManifolds,
                           btTypedConstraint** constraints, int numConstraints,
                           btMultiBodyConstraint** multiBodyConstraints, int numMultiBodyConstraints,
                           const btContactSolverInfo& info, btIDebugDraw* debugDrawer, btDispatcher* dispatcher) override;

  /// Marks the start of a solver pass (one per Bullet substep).
  void prepareSolve(int numBodies, int numManifolds) override;

  /// Distinguishes this solver from Bullet's own.
  btConstraintSolverType getSolverType() const override { return BT_MULTIBODY_SOLVER; }

 private:
  explicit PropagativeMultiBodySolver(std::size_t callerScalarSize);
  void resolveComponent(int root, btTypedConstraint** constraints, int numConstraints, const btContactSolverInfo& info,
                        bullet_detail::MultiBodyRestingPass& resting);
  void noteClampedRestitution();
  void reportBadSettings(const char* reason);

  struct Impl;
  std::unique_ptr<Impl> m_impl;
  SolverSettings m_settings;
  mutable StepReport m_report;
  mutable bool m_reportConsumed = false;
};

}  // namespace propimpact
