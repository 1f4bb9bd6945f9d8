#pragma once
/// \file ResolveOptions.h
/// How a resolution runs: ordering policy, termination cap, tolerances, and
/// which analyses (Gram matrix, certificates, ξ) to compute.

#include <cstdint>

#include "propimpact/core/Types.h"

namespace propimpact {

/// Which infeasible contact the propagation reflects next (SPEC §3).
enum class OrderingPolicy {
  MostApproaching,   ///< argmin of the unit-normal approach speed <û_i, p>_g (the paper's choice).
  LeastApproaching,  ///< argmax among infeasible contacts (the paper's reverse, exposes indeterminacy).
  IndexOrder,        ///< lowest contact index first.
  ReverseIndexOrder, ///< highest contact index first.
  SeededRandom,      ///< pseudo-random, keyed by (seed, problemKey, contact key, reflection count).
};

/// Name of a policy ("most-approaching", ...).
const char* toString(OrderingPolicy policy);

/// The set of orders over which ξ (Sec. VII-A) is the largest pairwise distance.
enum class XiOrderSet {
  MostVersusLeast,  ///< the paper's pair: most-approaching against least-approaching.
  AllPolicies,      ///< most, least, index, reverse index.
  AllOrders,        ///< every minimal sequence, enumerated (small clusters; falls back to AllPolicies).
};

/// Name of an order set.
const char* toString(XiOrderSet set);

/// Options of one resolution. Defaults suit both analysis and per-step use.
struct ResolveOptions {
  OrderingPolicy ordering = OrderingPolicy::MostApproaching;  ///< propagation order.
  std::uint64_t randomSeed = 0;  ///< seed for SeededRandom.
  std::uint64_t problemKey = 0;  ///< per step and cluster key for SeededRandom (never a running stream).

  /// Grow the cluster from the seed contacts (ImpactProblem::setSeed): a
  /// non-seed contact joins when a reflection makes it infeasible (beyond its
  /// resting speed), and only joined contacts must end feasible, take part in
  /// the plastic solve and the analysis. This is how a ball landing on a settled pile reaches only the
  /// contacts its impact propagates to (SPEC §7); off, every contact is in.
  /// When every contact has restitution 0 (and computeXi is off), no
  /// elastic propagation runs: the cluster grows by the same rule applied to
  /// the plastic outcome, re-solved until no contact joins; the result then
  /// reports zero reflections and the plastic outcome as the elastic one.
  bool growFromSeeds = false;

  /// With bilateral rows, the part of the velocity that violates them (B v ≠ 0)
  /// is set aside and added back unchanged. On (default), it still counts in
  /// the contacts' relative velocity, as a constant term like a kinematic
  /// body's motion: every contact ends feasible for the whole velocity, but
  /// reflections then conserve energy only up to that term. Off, contacts see
  /// only the admissible part and reflections conserve energy exactly; the
  /// Bullet adapter turns it off because its joint error is mostly its own
  /// mid-step gravity kick along a string, which the joint cancels.
  bool jointErrorAsBias = true;

  /// Maximum number of reflections; 0 means the default 1000 + 100·(number of contacts).
  /// When hit, the fallback runs and the result says which: the plastic outcome
  /// from the state reached, or, when that is not feasible to the tolerance and
  /// the plastic outcome from the start is less violated, the latter.
  std::int64_t reflectionCap = 0;

  /// A contact is infeasible while its unit-normal relative velocity is below
  /// −feasibilityTolerance·scale, scale being the larger of ||p0||_g and the
  /// largest initial unit-normal relative speed (approaching or separating) of
  /// a row the resolver does not ignore. With joints, "unit normal" is in the
  /// admissible metric: J_i / √(J_i M⁻¹_c J_iᵀ).
  Scalar feasibilityTolerance = 1e-10;
  /// Keys that differ by less than this fraction of the scale are ties, broken
  /// by the contacts' canonical keys (so outcomes do not depend on build flags).
  Scalar tieTolerance = 1e-9;
  /// Rows whose coefficients agree to this relative tolerance are duplicates and merged.
  Scalar duplicateTolerance = 1e-9;
  /// Certificates: |G_ij| ≤ tol (Thm 2), |G_12 + ½| ≤ tol (Thm 3), outcomes within tol·||p0||_g (enumeration).
  Scalar certificateTolerance = 1e-9;

  /// Compute the Gram matrix, the T_c/T_a split and a uniqueness certificate
  /// when the problem has at most this many (merged) contacts; 0 disables.
  int analysisContactLimit = 64;
  /// Within analysisContactLimit, also the T_c / T_a split of the start
  /// (seed 004; ImpactResult::constrainedEnergy / admissibleEnergy), one
  /// eigen-decomposition of the m × m Delassus matrix: 22 % of the
  /// instructions of random 2–64-contact problems (callgrind). The Bullet
  /// solvers' reports do not carry it and turn it off.
  bool computeEnergySplit = true;
  /// Enumerate every order for the "all orders agree" certificate when the
  /// problem has at most this many contacts and the tree has at most enumerationNodeCap nodes.
  int enumerationContactLimit = 6;
  std::int64_t enumerationNodeCap = 20000;

  /// Compute ξ over xiOrders.
  bool computeXi = false;
  XiOrderSet xiOrders = XiOrderSet::MostVersusLeast;

  /// Plastic solve: dense exact active-set solver up to this many contacts,
  /// projected over-relaxed Gauss–Seidel (SOR, factor 1.5, from half the elastic impulses) to plasticIterativeTolerance beyond (reported),
  /// restarted as a projected conjugate gradient (MPRGP) when Gauss–Seidel's convergence rate predicts a long tail (a stack).
  /// An exact solve that ends with a row violated beyond feasibilityTolerance is compared with
  /// Gauss–Seidel from the same start; the less violated outcome stands (reported).
  int plasticDenseLimit = 64;
  /// Bounds of the iterative path: time per impact stays bounded on a packed
  /// pile whose propagation reaches thousands of contacts; the residual left
  /// is reported (ImpactResult::plasticResidual).
  Scalar plasticIterativeTolerance = 1e-9;
  std::int64_t plasticIterativeSweepCap = 500;

  /// Measure the thread CPU time of each stage into ImpactResult::stageSeconds
  /// (two clock reads per stage; off by default). For profiling a scene, as
  /// the pile benchmark does, never for control flow.
  bool timeStages = false;
};

/// What is wrong with \p options (a fixed message), or nullptr when every
/// option is in its documented range: ImpactResolver::resolve throws
/// InputError(BadOption) exactly when this is not null, so a caller that must
/// not throw (a simulation step) checks once and resolves without a handler.
const char* optionsError(const ResolveOptions& options);

}  // namespace propimpact
