#pragma once
/// \file SolverSettings.h
/// What a user may tune on PropagativeImpactSolver.

#include <cstddef>
#include <cstdint>

#include "propimpact/core/ResolveOptions.h"

namespace propimpact {

/// Settings of the drop-in solver. Defaults need no tuning.
struct SolverSettings {
  /// Which infeasible contact the propagation reflects next.
  OrderingPolicy ordering = OrderingPolicy::MostApproaching;
  /// Seed for OrderingPolicy::SeededRandom (keyed per step and cluster).
  std::uint64_t randomSeed = 0;
  /// Reflection cap per cluster; 0 = the core's default (1000 + 100 per contact).
  std::int64_t reflectionCap = 0;
  /// Compute ξ for every impact cluster (costs one extra propagation per order).
  bool computeXi = false;
  /// The orders ξ is taken over.
  XiOrderSet xiOrders = XiOrderSet::MostVersusLeast;
  /// Compute the Gram matrix, T_c/T_a and the uniqueness certificate for
  /// clusters of at most this many contacts (0 disables; at most 64).
  int analysisContactLimit = 16;
  /// A manifold point is touching when its distance is at most this (metres).
  double touchingDistance = 1e-4;
  /// Overlap (m) left alone at contacts of pairs that had an impact. Their
  /// overlap is never pushed out through a velocity (that adds kinetic
  /// energy); what exceeds this is pushed out through positions only, by
  /// Bullet's split-impulse pass at the world's m_erp2 per step, as Bullet
  /// pushes out a deep overlap. A quarter of Bullet's default collision
  /// margin (0.04 m): shallower overlap is within what Bullet's contacts keep anyway,
  /// and each push raises a body against gravity (potential energy) by as much.
  double impactOverlapSlop = 0.01;
  /// Zeno rule (SPEC §7): a contact is an impact when its mid-step approach
  /// exceeds restingFactor·f + restingFloor, f the largest of |J Δv_ext| and
  /// the magnitude of each body's kick at the contact (this step's external
  /// forces alone: a stack shares gravity's kick, so the relative one is zero,
  /// and Bullet's iterative pass leaves residuals of that order in any
  /// direction). Gravity alone produces an approach of 0.5·f at mid-step; a
  /// resting body's leftover velocity from Bullet's pass adds to that (measured:
  /// 0.0829 m/s against 0.5·f = 0.0818 m/s on a float-build box stack at 60 Hz),
  /// so the default keeps a full step's kick as margin.
  double restingFactor = 1.0;
  /// Absolute floor of the Zeno threshold (m/s); zero gravity uses only this.
  double restingFloor = 1e-9;
  /// Coulomb friction during impacts (issue 18; the model, its guarantees and
  /// limits are in propimpact/core/ImpactFriction.h). On: after a cluster's
  /// normal impulses are known, each impact contact gets a tangential impulse
  /// within the cone |λ_t| ≤ μ (λ_n + δ), μ = m_combinedFriction, opposing the
  /// slip, never adding kinetic energy, every touching contact still feasible
  /// (a box's corner may need an extra normal impulse δ; reported). A NaN,
  /// infinite or negative μ is clamped to 0 and counted
  /// (StepReport::frictionClamped). On by default: a drop-in should give a
  /// bounce friction as every game engine does (a ball leaves rough ground
  /// rolling, a box landing on a corner starts to turn as the closed-form
  /// single-contact impact says), and the closed-form, property and world
  /// tests hold with it. Its cost: the stage visits only
  /// what the friction moves, but Gauss–Seidel over an impact cluster of
  /// hundreds of coupled contacts still takes hundreds of sweeps, so a step of
  /// the settled 1,000-sphere pile took 2.1 × and of the 125-box landing 1.1 ×
  /// as long as with it off (docs/performance-history-2.md, "What impact
  /// friction costs"). Off: impacts are frictionless, as in the papers, bit for
  /// bit what the solver did before this setting existed; an impact contact
  /// that separates then gets no friction at all (Bullet's pass never sees
  /// it). The seeds' studies set it off (scenes::makeSolver's "propagative").
  /// With μ = 0 at every contact both agree bit for bit. Friction at resting
  /// contact is Bullet's in both cases.
  bool impactFriction = true;
  /// Accumulate per-cluster reports (bodies, contacts, impulses).
  bool keepReport = true;
  /// At most this many clusters are kept until the report is read (one read
  /// per stepSimulation keeps it to one step); beyond, they are counted in
  /// StepReport::droppedClusters, so an application that never reads the
  /// report does not grow without bound.
  std::size_t reportClusterCap = 4096;
  /// Measure the thread CPU time of each stage of solveGroup into
  /// StepReport::stageSeconds (a few clock reads per pass and cluster; off by
  /// default). What the pile benchmark splits a step's cost with.
  bool timeStages = false;
};

}  // namespace propimpact
