// ImpactResolver::resolve runs the stages of one resolution in order:
// prepare (solver bodies, contact rows, duplicates, scales) → propagate
// (eq. 14, with the cap) → settle a capped propagation → mixed restitution →
// plastic solve → blend (eq. 16–17) → impulses → analysis and ξ when asked.
#include "propimpact/core/ImpactResolver.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "Analysis.h"
#include "Blend.h"
#include "Capacity.h"
#include "EnergyGuard.h"
#include "ContactRows.h"
#include "PlasticStage.h"
#include "Propagation.h"
#include "SolverBodies.h"
#include "StageClock.h"
#include "StageContext.h"
#include "propimpact/core/Errors.h"

namespace propimpact {

const char* optionsError(const ResolveOptions& o) {
  static_assert(detail::kSmallCapacity == 64, "the message below names the limit");
  if (o.reflectionCap < 0) return "reflectionCap must be >= 0";
  if (!(o.feasibilityTolerance >= 0 && o.feasibilityTolerance < 1)) return "feasibilityTolerance must be in [0, 1)";
  if (!(o.tieTolerance > 0 && o.tieTolerance < 1)) return "tieTolerance must be in (0, 1)";
  if (!(o.duplicateTolerance >= 0 && o.duplicateTolerance < 1)) return "duplicateTolerance must be in [0, 1)";
  if (!(o.certificateTolerance >= 0 && o.certificateTolerance < 1)) return "certificateTolerance must be in [0, 1)";
  if (o.analysisContactLimit < 0 || o.analysisContactLimit > detail::kSmallCapacity)
    return "analysisContactLimit must be in [0, 64]";
  if (o.enumerationContactLimit < 0) return "enumerationContactLimit must be >= 0";
  if (o.enumerationNodeCap < 0) return "enumerationNodeCap must be >= 0";
  if (o.plasticDenseLimit < 0) return "plasticDenseLimit must be >= 0";
  if (!(o.plasticIterativeTolerance > 0)) return "plasticIterativeTolerance must be > 0";
  if (o.plasticIterativeSweepCap < 1) return "plasticIterativeSweepCap must be >= 1";
  return nullptr;
}

namespace {

// Relative round-off of a row's speed, as the fuzz check's cancellation tolerance (≈ 450 ulps).
constexpr Scalar kApproachRoundOff = 1e-13;

void checkOptions(const ResolveOptions& o) {
  if (const char* what = optionsError(o)) throw InputError(ErrorCode::BadOption, what);
}

void resetResult(const ImpactProblem& problem, const ResolveOptions& options, ImpactResult& result) {
  result.sequence.clear();
  result.reflections = 0;
  result.capHit = false;
  result.capForeseen = false;
  result.energyGuarded = false;
  result.fallback = Fallback::None;
  result.plasticMethod = PlasticMethod::NotNeeded;
  result.plasticResidual = 0;
  result.plasticIterations = 0;
  result.mergedDuplicates = 0;
  result.ignoredRows = 0;
  result.xiComputed = false;
  result.xi = 0;
  result.xiOrders = options.xiOrders;
  result.alpha = 1;
  result.restitution = 1;
  result.energySplitComputed = false;
  result.constrainedEnergy = 0;
  result.admissibleEnergy = 0;
  result.energyPlastic = 0;
  result.certificate = UniquenessCertificate::None;
  result.certificateTolerance = options.certificateTolerance;
  result.stageSeconds = StageSeconds{};
  result.impulses.setZero(problem.contactCount());
}

// Problem-ordered vectors in storage that keeps its capacity (an Eigen vector
// reallocates whenever the cluster size changes).
Eigen::Map<VectorX> sized(std::vector<Scalar>& storage, Index n) {
  if (storage.size() < static_cast<std::size_t>(n)) storage.resize(static_cast<std::size_t>(n));
  return Eigen::Map<VectorX>(storage.data(), n);
}

}  // namespace

/// The stages and the data each owns; resolve() passes what one hands the next.
struct ImpactResolver::Stages {
  detail::SolverBodies bodies;
  detail::ContactRows rows;
  detail::Propagator propagator;
  detail::PlasticStage plastic;
  detail::Blend blend;
  detail::EnergyGuard guard;
  detail::Analysis analysis;

  // What flows between the stages (internal order unless named "problem").
  std::vector<Scalar> v0, velocity, plasticVelocity, jointError;
  // The start velocity in internal order: the problem's own without joints
  // (read in place: its copy into v0 was 2 % of the core chain, callgrind),
  // else v0. v0 is filled without joints only for the analysis and ξ, which
  // take a vector (startVector).
  const Scalar* startVelocity = nullptr;
  bool v0Filled = false;
  std::vector<Scalar> jointErrorProblem;
  Index jointErrorZeros = 0;  // leading entries of jointErrorProblem known to be zero
  std::vector<Scalar> elasticImpulse, plasticImpulse;
  std::vector<int> shareCount;
  std::vector<char> reached;
  std::vector<int> candidates;
  std::vector<char> groupInCluster;
  Scalar scale = 0;
  Scalar threshold = 0;
  detail::OrderingRule rule;

  void reserve(const ProblemBounds& bounds, int denseLimit);
  void prepare(const ImpactProblem& problem, const ResolveOptions& options, ImpactResult& result);
  void setAsideJointError(Index n);
  const std::vector<Scalar>& startVector();
  [[nodiscard]] Scalar largestApproach() const;
  void analyse(const detail::StageContext& c, ImpactResult& result);
  Scalar* startElastic(ImpactResult& result);
  void blendOutcome(const detail::StageContext& c, ImpactResult& result);
  void guardEnergy(const detail::StageContext& c, ImpactResult& result);
  void growPlasticCluster(const ImpactProblem& problem, const ResolveOptions& options, ImpactResult& result,
                          detail::StageClock& clock);
  void distributeImpulses(ImpactResult& result);
};

ImpactResolver::ImpactResolver() : m_stages(std::make_unique<Stages>()) {}
ImpactResolver::~ImpactResolver() = default;
ImpactResolver::ImpactResolver(ImpactResolver&&) noexcept = default;
ImpactResolver& ImpactResolver::operator=(ImpactResolver&&) noexcept = default;

void ImpactResolver::reserve(const ProblemBounds& bounds, const ResolveOptions& options, ImpactResult& result) {
  m_stages->reserve(bounds, options.plasticDenseLimit);
  for (ResultVector* v : {&result.velocity, &result.elasticVelocity, &result.plasticVelocity}) v->reserve(bounds.dofs);
  result.impulses.reserve(bounds.contacts);
  detail::reserveCapacity(result.inCluster, bounds.contacts);
  detail::reserveCapacity(result.sequence, Index(kSequencePerContact) * bounds.contacts);
}

void ImpactResolver::Stages::reserve(const ProblemBounds& b, int denseLimit) {
  for (std::vector<Scalar>* v : {&v0, &velocity, &plasticVelocity, &jointError, &jointErrorProblem})
    detail::reserveCapacity(*v, b.dofs);
  for (std::vector<Scalar>* v : {&elasticImpulse, &plasticImpulse}) detail::reserveCapacity(*v, b.contacts);
  detail::reserveCapacity(shareCount, b.contacts);
  detail::reserveCapacity(reached, b.contacts);
  detail::reserveCapacity(candidates, b.contacts);
  detail::reserveCapacity(groupInCluster, b.blocks);
  bodies.reserve(b);
  rows.reserve(b);
  propagator.reserve(b.contacts);
  plastic.reserve(b, denseLimit);
  blend.reserve(b.dofs);
}

// Solver bodies, contact rows, the joint error set aside, duplicates merged, scales.
void ImpactResolver::Stages::prepare(const ImpactProblem& problem, const ResolveOptions& options, ImpactResult& result) {
  const Index n = problem.dofCount();
  // The start velocity is read where the problem holds it (the problem
  // outlives the resolution): a copy of it was 2 % of the core chain (callgrind).
  const Eigen::Map<const VectorX> start(problem.velocityData(), n);
  bodies.build(problem);
  // A row's speed is known only to round-off of the velocity it comes from
  // (the joints' split mixes every component of a group into it): slower is
  // resting. Velocity of no energy (spin about an axis of infinite inertia)
  // left a row of bodies at rest at −1e-26, reflected again and again
  // (findings approach-of-round-off-from-zero-energy-motion and its mutations).
  rows.build(bodies, kApproachRoundOff * start.norm());
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].representative < 0) ++result.ignoredRows;
  v0Filled = !bodies.identityOrder();
  if (v0Filled) {
    v0.resize(static_cast<std::size_t>(n));
    bodies.gather(start.data(), v0.data());
  }
  startVelocity = v0Filled ? v0.data() : start.data();
  setAsideJointError(n);
  // A contact may see the whole velocity: the joint-violating part then enters
  // its relative velocity as a constant, like a kinematic body's motion.
  if (bodies.anyJoint() && options.jointErrorAsBias) rows.addConstantVelocity(jointError);
  // Duplicates must agree in that constant too, so they are found only now.
  result.energyBefore = bodies.setReference(start);
  result.mergedDuplicates = rows.mergeDuplicates(startVelocity, std::sqrt(2 * result.energyBefore), options.duplicateTolerance);
  scale = std::max(std::sqrt(2 * result.energyBefore), largestApproach());
  threshold = options.feasibilityTolerance * scale;
  rule.policy = options.ordering;
  rule.quantum = options.tieTolerance * (scale > 0 ? scale : 1);
  rule.randomSeed = options.randomSeed;
  rule.problemKey = options.problemKey;
  result.reflectionCap =
      options.reflectionCap > 0 ? options.reflectionCap : 1000 + 100 * static_cast<std::int64_t>(rows.active().size());
}

// The largest unit-normal speed of an active row at the start. Without
// joints a group is its block, and a row without bias on bodies at rest moves
// at ±0, which leaves the maximum as it is: its product is skipped (a resting
// chain's or pile's rows, 3 % of the core chain's instructions, callgrind).
// When every body moves (core-random) the test is not made: it only cost.
Scalar ImpactResolver::Stages::largestApproach() const {
  Scalar largest = 0;
  const bool restKnown = bodies.identityOrder() && bodies.anyAtRest();
  for (const int r : rows.active()) {
    const detail::Row& row = rows[static_cast<std::size_t>(r)];
    if (restKnown && row.bias == 0 && bodies.atRest(row.terms[0].group) &&
        (row.termCount == 1 || bodies.atRest(row.terms[1].group)))
      continue;
    largest = std::max(largest, std::abs(rows.velocity(r, startVelocity) * row.invSqrtD));
  }
  return largest;
}

// The impact acts on the admissible motions only: a joint velocity error
// (B v ≠ 0, e.g. a mid-step gravity kick along a pendulum's string) is set
// aside and added back unchanged, so reflections conserve T_a exactly and
// T_c is untouched (seed 004: T = T_a + T_c). Without joints it is zero, and
// the zeros a previous resolution wrote are not written again (with their
// copy to problem order, 4 % of the core chain's instructions).
void ImpactResolver::Stages::setAsideJointError(Index n) {
  if (bodies.anyJoint()) {
    bodies.splitJointError(v0.data(), jointError);
    bodies.scatter(jointError.data(), sized(jointErrorProblem, n).data());
    jointErrorZeros = 0;
    return;
  }
  sized(jointErrorProblem, n);
  if (jointErrorZeros < n) std::fill(jointErrorProblem.begin() + jointErrorZeros, jointErrorProblem.begin() + n, 0);
  jointErrorZeros = std::max(jointErrorZeros, n);
}

// v0 as a vector, copied from the problem on the first call without joints.
const std::vector<Scalar>& ImpactResolver::Stages::startVector() {
  if (!v0Filled) {
    v0.assign(startVelocity, startVelocity + bodies.dofs());
    v0Filled = true;
  }
  return v0;
}

// The analysis reads v0 only for a cluster within its contact limit
// (Analysis::analyse); a larger one is not analysed and needs no copy of it.
void ImpactResolver::Stages::analyse(const detail::StageContext& c, ImpactResult& result) {
  const bool analysed = static_cast<int>(rows.active().size()) <= c.options.analysisContactLimit;
  analysis.analyse(c, analysed ? startVector() : v0, result);
}

// The velocity the propagation reflects, starting at v0. Without joints the
// internal order is the problem's, so it is the result's elastic velocity
// itself, which saves copying the whole velocity back (blendOutcome).
Scalar* ImpactResolver::Stages::startElastic(ImpactResult& result) {
  if (!bodies.identityOrder()) {
    velocity = v0;  // filled: internal order differs only with joints
    return velocity.data();
  }
  result.elasticVelocity.resize(bodies.dofs());
  std::copy(startVelocity, startVelocity + bodies.dofs(), result.elasticVelocity.data());
  return result.elasticVelocity.data();
}

// R, the plastic outcome when R < 1, and the blend of eq. (16-17).
void ImpactResolver::Stages::blendOutcome(const detail::StageContext& c, ImpactResult& result) {
  const Index n = c.bodies.dofs();
  const Eigen::Map<const VectorX> jointErrorOf(jointErrorProblem.data(), n);
  if (!bodies.identityOrder()) {
    result.elasticVelocity.resize(n);
    bodies.scatter(velocity.data(), result.elasticVelocity.data());
  }
  if (bodies.anyJoint()) result.elasticVelocity += jointErrorOf;  // zero without joints
  result.energyElastic = bodies.kineticEnergy(result.elasticVelocity);
  const Scalar restitution = detail::mixedRestitution(rows, elasticImpulse);
  result.restitution = restitution;
  if (restitution < 1) {
    plasticVelocity.resize(static_cast<std::size_t>(n));
    plastic.solve(c, startVelocity, plasticVelocity.data(), plasticImpulse.data(), &result, elasticImpulse.data());
    result.plasticVelocity.resize(n);
    bodies.scatter(plasticVelocity.data(), result.plasticVelocity.data());
    result.plasticVelocity += jointErrorOf;
    result.energyPlastic = bodies.kineticEnergy(result.plasticVelocity);
    result.alpha = blend.alpha(bodies, rows.anyBias(), result.elasticVelocity, result.plasticVelocity,
                               result.energyBefore, result.energyPlastic, restitution);
    result.velocity = result.plasticVelocity + result.alpha * (result.elasticVelocity - result.plasticVelocity);
    result.energyAfter = bodies.kineticEnergy(result.velocity);
  } else {
    result.plasticVelocity.resize(0);  // not needed (sized 0 only here, so a reused result keeps its storage)
    result.alpha = 1;
    result.velocity = result.elasticVelocity;
    result.energyAfter = result.energyElastic;
  }
}

// The outcome keeps the start's energy as measured in long double against the
// given M (EnergyGuard.h): the plastic outcome is solved now if R = 1 skipped
// it, and α lowered along the blend's line. Free rigid bodies with a
// well-conditioned inertia can neither drift (their M⁻¹ is used as given) nor
// carry prescribed motion, so a cluster of only those is not measured. Nor is
// one of rigid bodies with joints: prescribed motion may drive a joint there,
// which conservesEnergy does not judge, and the contacts then gain the
// paddle's work by right (taking it back lowered α to 0.26 on fuzz input
// joint-driven-by-spin-about-an-infinite-inertia-axis).
void ImpactResolver::Stages::guardEnergy(const detail::StageContext& c, ImpactResult& result) {
  const ImpactProblem& problem = c.bodies.problem();
  const bool rigidMeasured = bodies.anyImmobileAxes() && !bodies.anyJoint();
  if ((bodies.allRigid() && !rigidMeasured) || !plastic.conservesEnergy(c)) return;
  const long double gain = guard.change(problem, problem.velocityData(), result.velocity.data());
  if (!(gain > detail::kGuardFloor * result.energyBefore)) return;
  const Index n = c.bodies.dofs();
  if (result.plasticVelocity.size() != n) {
    plasticVelocity.resize(static_cast<std::size_t>(n));
    plastic.solve(c, startVelocity, plasticVelocity.data(), plasticImpulse.data(), &result, elasticImpulse.data());
    result.plasticVelocity.resize(n);
    bodies.scatter(plasticVelocity.data(), result.plasticVelocity.data());
    result.plasticVelocity += Eigen::Map<const VectorX>(jointErrorProblem.data(), n);
    result.energyPlastic = bodies.kineticEnergy(result.plasticVelocity);
  }
  result.alpha = guard.energyKeepingAlpha(problem, problem.velocityData(), result.elasticVelocity.data(),
                                          result.plasticVelocity.data(), result.alpha);
  result.velocity = result.plasticVelocity + result.alpha * (result.elasticVelocity - result.plasticVelocity);
  result.energyAfter = bodies.kineticEnergy(result.velocity);
  result.energyGuarded = true;
}

// Impulses are linear in the blend; merged duplicates share their row's impulse.
// Without merged rows every share is 1, and x / 1 is x: the count is skipped.
void ImpactResolver::Stages::distributeImpulses(ImpactResult& result) {
  const bool merged = result.mergedDuplicates > 0;
  if (merged) {
    shareCount.assign(rows.size(), 0);
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i].representative >= 0) ++shareCount[static_cast<std::size_t>(rows[i].representative)];
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const int r = rows[i].representative;
    if (r < 0) continue;
    const auto rr = static_cast<std::size_t>(r);
    const Scalar total = result.alpha * elasticImpulse[rr] + (1 - result.alpha) * plasticImpulse[rr];
    const Scalar impulse = std::max(Scalar(0), total);
    result.impulses[static_cast<Index>(i)] = merged ? impulse / shareCount[rr] : impulse;
  }
}

// Every contact with R = 0 (a box landing on a stack): α multiplies the
// elastic outcome by zero, so no propagation runs. The cluster grows by the
// same rule as a propagation's — a contact joins when the outcome so far
// makes it infeasible beyond its resting speed — applied to the plastic
// outcome, re-solved until no contact joins. The cost is that of the plastic
// solves, not of thousands of reflections through a stack that cannot end
// elastically. The result reports no reflections and the plastic outcome as
// the elastic one.
void ImpactResolver::Stages::growPlasticCluster(const ImpactProblem& problem, const ResolveOptions& options,
                                                ImpactResult& result, detail::StageClock& clock) {
  const Index n = problem.dofCount();
  reached.assign(rows.size(), 0);
  for (const int r : rows.active())
    if (rows[static_cast<std::size_t>(r)].seed) reached[static_cast<std::size_t>(r)] = 1;
  candidates.assign(rows.active().begin(), rows.active().end());
  const detail::StageContext context{bodies, rows, options, threshold, scale};
  plastic.begin(startVelocity);
  plasticVelocity.resize(static_cast<std::size_t>(n));
  for (bool grew = true; grew;) {
    rows.keepReached(reached);
    plasticImpulse.assign(rows.size(), 0);
    plastic.solve(context, startVelocity, plasticVelocity.data(), plasticImpulse.data(), &result);
    // As in a propagation, only a contact of a body the cluster moves can join.
    groupInCluster.assign(bodies.groups().size(), 0);
    for (const int r : rows.active())
      for (int t = 0; t < rows[static_cast<std::size_t>(r)].termCount; ++t)
        groupInCluster[static_cast<std::size_t>(rows[static_cast<std::size_t>(r)].terms[t].group)] = 1;
    grew = false;
    for (const int r : candidates) {
      const detail::Row& row = rows[static_cast<std::size_t>(r)];
      bool adjacent = false;
      for (int t = 0; t < row.termCount; ++t) adjacent = adjacent || groupInCluster[static_cast<std::size_t>(row.terms[t].group)];
      if (reached[static_cast<std::size_t>(r)] || !adjacent ||
          !rows.infeasible(r, rows.velocity(r, plasticVelocity.data()), threshold))
        continue;
      reached[static_cast<std::size_t>(r)] = 1;
      grew = true;
    }
  }
  result.inCluster.assign(static_cast<std::size_t>(problem.contactCount()), 0);
  for (int i = 0; i < problem.contactCount(); ++i)
    result.inCluster[static_cast<std::size_t>(i)] = rows[static_cast<std::size_t>(i)].representative >= 0;
  clock.lap(result.stageSeconds.plastic);
  analyse(context, result);
  clock.lap(result.stageSeconds.analysis);
  elasticImpulse.assign(rows.size(), 0);
  const Eigen::Map<const VectorX> jointErrorOf(jointErrorProblem.data(), n);
  result.plasticVelocity.resize(n);
  bodies.scatter(plasticVelocity.data(), result.plasticVelocity.data());
  result.plasticVelocity += jointErrorOf;
  result.energyPlastic = bodies.kineticEnergy(result.plasticVelocity);
  result.elasticVelocity = result.plasticVelocity;
  result.energyElastic = result.energyPlastic;
  result.restitution = 0;
  result.alpha = 0;
  result.velocity = result.plasticVelocity;
  result.energyAfter = result.energyPlastic;
  distributeImpulses(result);
  clock.lap(result.stageSeconds.plastic);
}

void ImpactResolver::resolve(const ImpactProblem& problem, const ResolveOptions& options, ImpactResult& result) {
  checkOptions(options);
  Stages& s = *m_stages;
  resetResult(problem, options, result);
  detail::StageClock clock(options.timeStages);
  s.prepare(problem, options, result);
  clock.lap(result.stageSeconds.prepare);
  if (options.growFromSeeds && !options.computeXi && s.rows.allPlastic() && !s.rows.active().empty()) {
    s.growPlasticCluster(problem, options, result, clock);
    return;
  }

  Scalar* const velocity = s.startElastic(result);
  s.elasticImpulse.assign(s.rows.size(), 0);
  s.plasticImpulse.assign(s.rows.size(), 0);
  const detail::Propagation p = s.propagator.run(s.rows, s.rule, s.threshold, options.growFromSeeds, result.reflectionCap,
                                                 velocity, s.elasticImpulse.data(), &result.sequence);
  result.reflections = p.reflections;
  const std::vector<char>& reached = s.propagator.reached();
  result.inCluster.assign(static_cast<std::size_t>(problem.contactCount()), 0);
  for (int i = 0; i < problem.contactCount(); ++i) {
    const int r = s.rows[static_cast<std::size_t>(i)].representative;
    result.inCluster[static_cast<std::size_t>(i)] = r >= 0 && reached[static_cast<std::size_t>(r)];
  }
  // Contacts the propagation never reached are not part of this impact.
  if (options.growFromSeeds) s.rows.keepReached(reached);
  clock.lap(result.stageSeconds.propagate);

  const detail::StageContext context{s.bodies, s.rows, options, s.threshold, s.scale};
  s.plastic.begin(s.startVelocity);
  s.analyse(context, result);
  clock.lap(result.stageSeconds.analysis);
  if (p.capHit) {
    result.capHit = true;
    result.capForeseen = p.capForeseen;
    result.fallback = s.plastic.settleCapped(context, s.startVelocity, velocity, s.elasticImpulse.data(), &result);
  }
  s.blendOutcome(context, result);
  s.guardEnergy(context, result);
  s.distributeImpulses(result);
  clock.lap(result.stageSeconds.plastic);
  if (options.computeXi) {
    const detail::XiInputs inputs{s.startVector(), Eigen::Map<const VectorX>(s.jointErrorProblem.data(), problem.dofCount()),
                                  s.rule, result.restitution};
    s.analysis.computeXi(context, inputs, s.propagator, s.plastic, s.blend, result);
    clock.lap(result.stageSeconds.analysis);
  }
}

ImpactResult ImpactResolver::resolve(const ImpactProblem& problem, const ResolveOptions& options) {
  ImpactResult result;
  resolve(problem, options, result);
  return result;
}

}  // namespace propimpact
