#pragma once
/// \file StepReport.h
/// What the solver reports about the impacts of a step. Impact impulses live
/// here, not in btManifoldPoint::m_appliedImpulse (which Bullet would
/// warm-start from): read ContactReport::impulse for impact sounds or
/// breakable joints.

#include <cstdint>
#include <string>
#include <vector>

#include "propimpact/core/ImpactFriction.h"
#include "propimpact/core/ImpactResult.h"

class btCollisionObject;

namespace propimpact {

/// One contact of an impact cluster.
struct ContactReport {
  const btCollisionObject* bodyA = nullptr;  ///< manifold body 0.
  const btCollisionObject* bodyB = nullptr;  ///< manifold body 1.
  double point[3] = {0, 0, 0};              ///< world position on B.
  double normal[3] = {0, 0, 0};             ///< m_normalWorldOnB (from B to A).
  double restitution = 1;                   ///< m_combinedRestitution used.
  double impulse = 0;                       ///< impact impulse along the normal (N·s), ≥ 0.
  double approachSpeed = 0;                 ///< relative normal velocity before (m/s, negative = approaching).
  double separationSpeed = 0;               ///< relative normal velocity after the impact.
  bool seed = false;                        ///< an impact by itself, not only reached by the propagation.
  /// Where the propagation first reflected this contact: 0 for the first
  /// reflection of the cluster, 1 for the second, ...; −1 if it was never
  /// reflected (reached only by the plastic outcome, or a merged duplicate).
  int firstReflection = -1;
  // With SolverSettings::impactFriction (zero / None otherwise):
  double friction = 0;                      ///< μ used (m_combinedFriction, clamped to >= 0).
  double tangentialImpulse[3] = {0, 0, 0};  ///< friction impulse on body A (N·s, world), ⟂ normal.
  FrictionState frictionState = FrictionState::None;  ///< stuck (slip stopped) or slipping at the cone's bound.
};

/// One impact cluster: the contacts an impact propagated through.
struct ClusterReport {
  int substep = 0;                          ///< Bullet substep within the stepSimulation call.
  std::vector<const btCollisionObject*> bodies;  ///< dynamic bodies whose velocity the impact changed.
  std::vector<ContactReport> contacts;      ///< contacts of the cluster.
  std::int64_t reflections = 0;             ///< length of the propagation.
  double energyBefore = 0;                  ///< kinetic energy of the cluster's bodies (J), mid-step.
  double energyAfter = 0;                   ///< after the impact.
  double restitution = 1;                   ///< coefficient used for the blend.
  bool xiComputed = false;                  ///< ξ filled.
  double xi = 0;                            ///< indeterminacy over xiOrders.
  XiOrderSet xiOrders = XiOrderSet::MostVersusLeast;  ///< the orders ξ is over.
  UniquenessCertificate certificate = UniquenessCertificate::None;  ///< why the outcome is order independent.
  bool capHit = false;                      ///< reflection cap reached (or foreseen).
  bool capForeseen = false;                 ///< stopped before the cap, which two clamped contacts could not have met.
  Fallback fallback = Fallback::None;       ///< what ran instead.
  FrictionOutcome friction = FrictionOutcome::NotNeeded;  ///< impact friction: which version stands (ImpactFriction.h).
};

/// A body that was left out of the impact treatment, and why.
struct RejectedBody {
  const btCollisionObject* body = nullptr;  ///< the body.
  std::string reason;                       ///< e.g. "non-finite velocity".
};

/// A contact pair whose combined restitution was outside [0, 1] and was clamped.
struct RestitutionWarning {
  const btCollisionObject* bodyA = nullptr;  ///< manifold body 0.
  const btCollisionObject* bodyB = nullptr;  ///< manifold body 1.
  double combined = 0;                       ///< m_combinedRestitution as Bullet gave it (e.g. 1.5 × 1.5 = 2.25).
};

/// Thread CPU seconds per stage of solveGroup, summed over the passes since
/// the report was last read (SolverSettings::timeStages; zero otherwise).
struct SolveStageSeconds {
  double classification = 0;  ///< bodies and manifold points gathered, Zeno rule, components.
  double problemBuild = 0;    ///< each seeded component's impact problem.
  double prepare = 0;         ///< the core's rows and scales (StageSeconds::prepare).
  double propagation = 0;     ///< reflections (StageSeconds::propagate).
  double plastic = 0;         ///< plastic solves and blend (StageSeconds::plastic).
  double analysis = 0;        ///< certificates and ξ (StageSeconds::analysis).
  double writeBack = 0;       ///< impact friction, velocities and the report written back.
  double restingPass = 0;     ///< Bullet's own pass over the resting contacts and joints.

  /// Adds \p other stage by stage (e.g. to sum the reports of many steps).
  SolveStageSeconds& operator+=(const SolveStageSeconds& other) {
    classification += other.classification;
    problemBuild += other.problemBuild;
    prepare += other.prepare;
    propagation += other.propagation;
    plastic += other.plastic;
    analysis += other.analysis;
    writeBack += other.writeBack;
    restingPass += other.restingPass;
    return *this;
  }
};

/// Everything since the report was last read (see PropagativeImpactSolver::lastStepReport).
struct StepReport {
  int substeps = 0;                         ///< solver passes covered.
  std::vector<ClusterReport> clusters;      ///< impact clusters, in order.
  std::vector<RejectedBody> rejected;       ///< bodies left out (bad input).
  std::int64_t restingContacts = 0;         ///< contacts handed to the sequential-impulse pass.
  std::int64_t capHits = 0;                 ///< clusters whose propagation hit the cap.
  /// Non-null when SolverSettings put a resolver option out of its range
  /// (e.g. a negative reflectionCap): what is wrong. Impacts were then left to
  /// Bullet's pass for the whole step.
  const char* settingsError = nullptr;
  /// Bodies, contacts and joint rows the impact problem refused (a degenerate
  /// normal, a non-PSD inertia, a zero joint row, a negative resting speed
  /// from the settings): each was left to Bullet's pass, or took its default.
  std::int64_t rejectedInputs = 0;
  std::int64_t droppedClusters = 0;         ///< clusters not kept: the report reached SolverSettings::reportClusterCap unread.
  /// Impact contacts whose m_combinedRestitution was outside [0, 1] (Bullet
  /// multiplies the bodies' coefficients, so 1.5 × 1.5 = 2.25): clamped to
  /// [0, 1], never super-elastic. Counted per contact and impact.
  std::int64_t restitutionClamped = 0;
  /// Impact contacts whose m_combinedFriction was NaN, infinite or negative:
  /// taken as 0 (SolverSettings::impactFriction). Counted per contact and impact.
  std::int64_t frictionClamped = 0;
  /// The first clamped contact of each body pair, once per pair for the solver's lifetime.
  std::vector<RestitutionWarning> restitutionWarnings;
  /// Where the passes' time went (SolverSettings::timeStages).
  SolveStageSeconds stageSeconds;
};

}  // namespace propimpact
