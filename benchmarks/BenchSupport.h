#pragma once
/// \file BenchSupport.h
/// What the Bullet benchmarks share: a snapshot of a world's state that can be
/// restored before each timed run, and a PropagativeImpactSolver that times its
/// own solveGroup apart from Bullet's sequential-impulse pass inside it.

#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <ctime>
#include <cstdint>
#include <vector>

#include <propimpact/bullet/PropagativeImpactSolver.h>
#include <propimpact/scenes/World.h>

namespace propimpact::bench {

/// CPU seconds of the calling thread (CLOCK_THREAD_CPUTIME_ID). Bullet and
/// our solver run on the calling thread, and unlike wall time this does not
/// count the time other processes hold the core (the machine is shared).
[[nodiscard]] inline double now() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

/// The state of a world that a timed run may change.
///
/// Restored exactly: every body's transform, interpolation transform,
/// velocities and interpolation velocities (forces are cleared, gravity is
/// re-applied by the next step); every persistent manifold that still exists
/// gets back its points (positions, normals, distances, cached and
/// warm-starting impulses, lifetimes). Manifolds created after the snapshot are
/// emptied. Not restored: manifolds destroyed since the snapshot (the
/// broadphase recreates them, empty, at the next step), the broadphase tree's
/// shape, and any state inside the constraint solver (Bullet's SI solver keeps
/// only pools and its random seed; PropagativeImpactSolver keeps its workspace
/// capacities and the set of recently impacted pairs).
class WorldSnapshot {
 public:
  /// Records the current state of \p world.
  explicit WorldSnapshot(scenes::World& world);
  /// Puts the recorded state back into the same world.
  void restore(scenes::World& world) const;

 private:
  struct BodyState {
    btRigidBody* body;
    btTransform transform, interpolationTransform;
    btVector3 linear, angular, interpolationLinear, interpolationAngular;
  };
  struct ManifoldState {
    const btPersistentManifold* manifold;
    const btCollisionObject* body0;
    const btCollisionObject* body1;
    int count;
    btManifoldPoint points[MANIFOLD_CACHE_SIZE];
  };
  std::vector<BodyState> m_bodies;
  std::vector<ManifoldState> m_manifolds;
};

/// PropagativeImpactSolver that measures, per solveGroup call, its whole time
/// and the time of Bullet's sequential-impulse pass it runs inside. The pass
/// runs in the resting-pass stage's own solver object, so it is read from the
/// step report's stage clock (SolverSettings::timeStages, on from
/// construction: a few thread-CPU clock reads per pass); overriding this
/// solver's sequential-impulse stages measured nothing once the pass moved
/// there, and Bullet's pass was counted as ours.
/// "Ours" = whole − Bullet's pass: classification, clusters, problem set-up,
/// the core resolve and write-back.
class TimedPropagativeSolver : public PropagativeImpactSolver {
 public:
  TimedPropagativeSolver() { settings().timeStages = true; }
  double wholeSeconds = 0;   ///< summed over solveGroup calls since reset.
  double bulletSeconds = 0;  ///< Bullet's pass inside them (0 with timeStages off).
  /// Zeroes the timers.
  void resetTimers() { wholeSeconds = bulletSeconds = 0; }
  /// Time spent in our own code.
  [[nodiscard]] double ourSeconds() const { return wholeSeconds - bulletSeconds; }

  btScalar solveGroup(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds, int numManifolds,
                      btTypedConstraint** constraints, int numConstraints, const btContactSolverInfo& info,
                      btIDebugDraw* debugDrawer, btDispatcher* dispatcher) override;
};

/// Total reflections of the clusters in the solver's report (reading it marks it consumed).
[[nodiscard]] std::int64_t reportedReflections(const PropagativeImpactSolver& solver);

}  // namespace propimpact::bench
