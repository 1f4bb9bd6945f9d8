#pragma once
// Stage "resting pass": Bullet's own sequential-impulse pass over what the
// impacts left — resting contact, friction, joints, limits, motors — with the
// world's settings but no second restitution. One scope object: points hidden
// from the pass (impact contacts that separate, approaching speculative
// points), points whose overlap must not be pushed out through a velocity
// (ERP 0 for this pass), the manifolds and constraints the pass may see; the
// destructor restores every point it changed, so nothing leaks into the next
// step whatever happens in between.

#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/ConstraintSolver/btSequentialImpulseConstraintSolver.h>

#include <utility>
#include <vector>

namespace propimpact::bullet_detail {

/// Bullet's sequential-impulse pass with one addition: listed points get
/// Bullet's split-impulse (position-only) correction of their overlap beyond
/// a slop, whatever the world's split-impulse threshold. Every other row is
/// set up exactly as Bullet sets it up.
/// Rows of a body with locked angular axes (a 0/1 angular factor with a
/// zero) are set up with the symmetric metric S (SᵀIS)⁻¹ Sᵀ instead of
/// Bullet's I⁻¹·(r × n)·factor (SPEC §1), whose effective mass can be zero
/// or negative (symmetriseLockedRows).
class PushOutSolver : public btSequentialImpulseConstraintSolver {
 public:
  std::vector<const btManifoldPoint*> points;  ///< sorted before the pass
  btScalar slop = 0;                           ///< overlap left alone (m)

  /// Room in Bullet's row pools for \p contactRows contact rows and their
  /// friction rows (two directions at most; rolling friction not counted),
  /// doubled when it grows, so that a pass of a known island allocates nothing.
  void reserveRows(int contactRows);

 protected:
  btScalar solveGroupCacheFriendlySetup(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds,
                                        int numManifolds, btTypedConstraint** constraints, int numConstraints,
                                        const btContactSolverInfo& info, btIDebugDraw* debugDrawer) override;
  /// Bullet's, with the external spin change of a body with locked angular
  /// axes projected onto its free axes (admissibleSpinChange, LockedAxes.h).
  void convertBodies(btCollisionObject** bodies, int numBodies, const btContactSolverInfo& info) override;
  /// Bullet's split iterations; again with every contact row a
  /// non-penetration row if the pushes drove another contact shut.
  void solveGroupCacheFriendlySplitImpulseIterations(btCollisionObject** bodies, int numBodies,
                                                     btPersistentManifold** manifolds, int numManifolds,
                                                     btTypedConstraint** constraints, int numConstraints,
                                                     const btContactSolverInfo& info, btIDebugDraw* debugDrawer) override;

 private:
  bool pushedAnyContactShut(btScalar dt);
  /// Gives every row of a body with locked angular axes the symmetric metric's
  /// angular component and effective mass (targets rescaled, warm start redone).
  /// \p damping: the pass's btContactSolverInfo::m_damping (Bullet's joint targets).
  void symmetriseLockedRows(btScalar damping);
  /// \p jointDamping: set for joint rows, whose positional target is Bullet's impulse scaled (jointTarget).
  void symmetriseRows(btConstraintArray& rows, btScalar relaxation, bool bulletSumIgnoresFactor, bool cfmScaled,
                      const btScalar* jointDamping = nullptr);
  /// A joint row's target with the effective mass \p jacobian for its velocity part.
  btScalar jointTarget(const btSolverConstraint& row, btScalar jacobian, btScalar damping) const;

  std::vector<btMatrix3x3> m_lockedMetric;  // per solver body: S (SᵀIS)⁻¹ Sᵀ, world frame
  std::vector<char> m_locked;               // per solver body: whether its rows are changed
  btScalar m_sorRelaxation = 1;             // this pass's btContactSolverInfo::m_sor
};

/// Collects what Bullet's pass must and must not see; runs it; restores.
class RestingPass {
 public:
  /// Buffers are borrowed from the solver so that a warmed-up world allocates nothing.
  struct Buffers {
    std::vector<btPersistentManifold*> manifolds;
    std::vector<btTypedConstraint*> constraints;
    std::vector<std::pair<btManifoldPoint*, btScalar>> hidden;                 // point, original distance
    std::vector<std::pair<btManifoldPoint*, std::pair<int, btScalar>>> unpushed;  // point, flags and ERP
    std::vector<std::pair<btManifoldPoint*, btScalar>> warmStarts;             // point, impulse carried over
    // Manifolds of ours, one per admitted point (admit): reserved for every
    // manifold of the island, so that their points never move.
    std::vector<btPersistentManifold> admitted;
    // Runs the pass (warm starting lives in the manifold points, so a solver
    // of our own sees what the world's would); its list is the points pushed out.
    PushOutSolver solver;
  };
  explicit RestingPass(Buffers& buffers);
  ~RestingPass();
  RestingPass(const RestingPass&) = delete;
  RestingPass& operator=(const RestingPass&) = delete;

  void addManifold(btPersistentManifold* manifold) { m_b.manifolds.push_back(manifold); }
  void addConstraint(btTypedConstraint* constraint) { m_b.constraints.push_back(constraint); }
  /// Keeps the point out of the pass (its impact impulse stays out of warm starting too).
  void hide(btManifoldPoint& point) { m_b.hidden.emplace_back(&point, point.m_distance1); }
  /// ERP 0 for this pass: the overlap is not pushed out through a velocity.
  void keepOverlap(btManifoldPoint& point);
  /// ERP 0, and the overlap beyond the slop is pushed out through positions
  /// only (split impulse): no velocity, so no kinetic energy, is added.
  void pushOut(btManifoldPoint& point) {
    keepOverlap(point);
    m_b.solver.points.push_back(&point);
  }

  /// Puts \p point, an ahead point of ours standing for the empty \p manifold
  /// (Island.h), into the pass in a manifold of ours over the same bodies, as
  /// a resting contact Bullet's pass must hold. Returns the pass's copy, which
  /// hide, keepOverlap and pushOut then take; null if there is no room.
  btManifoldPoint* admit(const btPersistentManifold& manifold, const btManifoldPoint& point);

  /// Warm-starts the point with \p impulse (Bullet's pass scales it by its
  /// warm-starting factor), unless it is hidden or carries an impulse of its
  /// own by then: a one-point manifold whose point Bullet made anew this frame.
  void warmStart(btManifoldPoint& point, btScalar impulse) { m_b.warmStarts.emplace_back(&point, impulse); }

  /// Runs Bullet's sequential-impulse pass; \p slop is the overlap pushOut leaves.
  btScalar run(btCollisionObject** bodies, int numBodies, const btContactSolverInfo& info, btScalar slop,
               btIDebugDraw* debugDrawer, btDispatcher* dispatcher);

 private:
  Buffers& m_b;
  bool m_hiddenApplied = false;
};

}  // namespace propimpact::bullet_detail
