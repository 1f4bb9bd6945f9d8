// One solveGroup is a sequence of stages (see each stage's header):
//   gather bodies → gather contacts (Zeno classification) → components →
//   per seeded component: cluster problem → core resolve → write-back →
//   speculative points → Bullet's resting pass (one scope object) →
//   contact history.
#include "propimpact/bullet/PropagativeImpactSolver.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "ClusterFriction.h"
#include "ClusterProblem.h"
#include "ClusterReports.h"
#include "Components.h"
#include "ContactHistory.h"
#include "Island.h"
#include "RestingPass.h"
#include "RestitutionWarnings.h"
#include "WriteBack.h"
#include "../core/Capacity.h"
#include "../core/StageClock.h"
#include "propimpact/core/Errors.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {
namespace {
// Rounds of impacts per pass: each may reflect speculative points the previous
// drove shut; what is left after the last arrives and is reflected next step.
constexpr int kImpactRounds = 16;
// Near problems tried before the whole component is built (each widens the
// near set to the bodies the last one's impact reached).
constexpr int kNearAttempts = 3;
}  // namespace

using bullet_detail::ClusterFriction;
using bullet_detail::ClusterProblem;
using bullet_detail::Components;
using bullet_detail::ContactHistory;
using bullet_detail::Island;
using bullet_detail::IslandContact;
using bullet_detail::RestingPass;

namespace {

// Sized by what the island could need (a persistent manifold holds at most
// MANIFOLD_CACHE_SIZE points), with room to double, so that a step with more
// separating impact points than any before does not allocate: the buffers
// grow only when the island outgrows twice what it once was.
template <typename Buffer>
void reserveFor(Buffer& buffer, std::size_t needed) {
  if (buffer.capacity() < needed) buffer.reserve(2 * needed);
}

// A joint has at most 6 equality rows (btTypedConstraint::getInfo1).
constexpr int kRowsPerJoint = 6;

// Whether \p need exceeds \p have anywhere (then the stages are sized again).
bool exceeds(const ProblemBounds& need, const ProblemBounds& have) {
  return need.blocks > have.blocks || need.contacts > have.contacts || need.bilaterals > have.bilaterals;
}

void reserveRestingBuffers(bullet_detail::RestingPass::Buffers& buffers, btPersistentManifold* const* manifoldList,
                           int numManifolds, int numConstraints) {
  const auto manifolds = static_cast<std::size_t>(numManifolds);
  // Bullet's pass rows: its points, and at most one admitted ahead point for
  // each empty manifold (RestingPass::admit), which Bullet's pools would
  // otherwise grow for in the step an impact admits them.
  int rows = 0;
  for (int k = 0; k < numManifolds; ++k) rows += std::max(manifoldList[k]->getNumContacts(), 1);
  buffers.solver.reserveRows(rows);
  reserveFor(buffers.manifolds, 2 * manifolds);  // Bullet's, and one of ours per admitted ahead point
  reserveFor(buffers.admitted, manifolds);
  reserveFor(buffers.constraints, static_cast<std::size_t>(numConstraints));
  reserveFor(buffers.hidden, manifolds * MANIFOLD_CACHE_SIZE);
  reserveFor(buffers.unpushed, manifolds * MANIFOLD_CACHE_SIZE);
  reserveFor(buffers.warmStarts, manifolds);
  reserveFor(buffers.solver.points, manifolds * MANIFOLD_CACHE_SIZE);
}

}  // namespace

struct PropagativeImpactSolver::Impl {
  Island island;
  Components components;
  ClusterProblem cluster;
  ClusterFriction friction;
  ContactHistory history;
  RestingPass::Buffers restingBuffers;
  ImpactProblem problem;
  ImpactResolver resolver;
  ResolveOptions options;
  int substep = 0;
  bullet_detail::RestitutionWarnings restitutionWarnings;
  std::vector<int> firstReflection;  // write-back's scratch: each contact's first place in the sequence
  ProblemBounds reserved;             // what the problem, resolver and result are sized for

  // One result for every cluster: its vectors keep their capacity
  // (ReusableArray.h), so a cluster of a new shape allocates nothing once one
  // as large has been resolved.
  ImpactResult result;
};

PropagativeImpactSolver::PropagativeImpactSolver(std::size_t callerScalarSize) : m_impl(std::make_unique<Impl>()) {
  if (callerScalarSize != sizeof(btScalar))
    throw std::logic_error("propimpact was built for " + std::to_string(sizeof(btScalar) * 8) +
                           "-bit btScalar but is used with " + std::to_string(callerScalarSize * 8) +
                           "-bit btScalar: link the matching Bullet build (bullet vs bullet-float64)");
}

PropagativeImpactSolver::~PropagativeImpactSolver() = default;

const StepReport& PropagativeImpactSolver::lastStepReport() const {
  m_reportConsumed = true;
  return m_report;
}

void PropagativeImpactSolver::prepareSolve(int numBodies, int numManifolds) {
  btSequentialImpulseConstraintSolver::prepareSolve(numBodies, numManifolds);
  if (m_reportConsumed) {
    m_report.clusters.clear();
    m_report.rejected.clear();
    m_report.substeps = 0;
    m_report.restingContacts = 0;
    m_report.capHits = 0;
    m_report.settingsError = nullptr;
    m_report.rejectedInputs = 0;
    m_report.droppedClusters = 0;
    m_report.restitutionClamped = 0;
    m_report.frictionClamped = 0;
    m_report.restitutionWarnings.clear();
    m_report.stageSeconds = SolveStageSeconds{};
    m_reportConsumed = false;
  }
  m_impl->substep = m_report.substeps;
  ++m_report.substeps;
  m_impl->history.beginPass();
}

btScalar PropagativeImpactSolver::solveGroup(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds,
                                             int numManifolds, btTypedConstraint** constraints, int numConstraints,
                                             const btContactSolverInfo& info, btIDebugDraw* debugDrawer,
                                             btDispatcher* dispatcher) {
  Impl& im = *m_impl;
  detail::StageClock clock(m_settings.timeStages);
  SolveStageSeconds& seconds = m_report.stageSeconds;
  reserveRestingBuffers(im.restingBuffers, manifolds, numManifolds, numConstraints);
  RestingPass resting(im.restingBuffers);
  im.island.gatherBodies(bodies, numBodies, info.m_timeStep, m_settings, m_report);
  im.island.gatherContacts(manifolds, numManifolds, m_settings, im.history, resting);
  const bool seeded = im.components.build(im.island, constraints, numConstraints);
  reserveForIsland(numBodies, numManifolds, numConstraints);
  clock.lap(seconds.classification);
  if (seeded) {
    ResolveOptions& opt = im.options;
    opt.ordering = m_settings.ordering;
    opt.randomSeed = m_settings.randomSeed;
    opt.reflectionCap = m_settings.reflectionCap;
    opt.computeXi = m_settings.computeXi;
    opt.xiOrders = m_settings.xiOrders;
    opt.analysisContactLimit = std::clamp(m_settings.analysisContactLimit, 0, 64);
    opt.growFromSeeds = true;
    opt.jointErrorAsBias = false;  // see ResolveOptions: our joint error is the half kick's
    opt.timeStages = m_settings.timeStages;
    opt.computeEnergySplit = false;  // the report does not carry T_c / T_a
    // Rounds: a speculative point that the impacts drive shut within this
    // step is reflected now (Island::promoteClosingSpeculative).
    // Checked here, once, so that resolving never throws inside the step:
    // settings out of range leave every impact to Bullet's pass, reported.
    m_report.settingsError = optionsError(opt);
    bool more = m_report.settingsError == nullptr;
    for (int round = 0; more && round < kImpactRounds; ++round) {
      for (const int root : im.components.seededRoots()) resolveComponent(root, constraints, numConstraints, info, resting);
      more = im.island.promoteClosingSpeculative() && im.components.build(im.island, constraints, numConstraints);
    }
    im.history.sortImpactedPairs();
    double counted = 0;
    clock.lap(counted);  // resolveComponent's own clock has put this lap's time in its stages
  }
  bullet_detail::hideApproachingSpeculative(im.island, resting);
  for (int k = 0; k < numConstraints; ++k) {
    const int a = im.island.dynamicIndex(&constraints[k]->getRigidBodyA());
    const int b = im.island.dynamicIndex(&constraints[k]->getRigidBodyB());
    if ((a >= 0 && im.island.bodies[static_cast<std::size_t>(a)].excluded) ||
        (b >= 0 && im.island.bodies[static_cast<std::size_t>(b)].excluded))
      continue;
    resting.addConstraint(constraints[k]);
  }
  im.island.releaseBodies();
  clock.lap(seconds.writeBack);
  const btScalar residual = resting.run(bodies, numBodies, info, btScalar(m_settings.impactOverlapSlop), debugDrawer, dispatcher);
  bullet_detail::applyLifts(im.island, info.m_timeStep, m_settings.impactOverlapSlop);
  clock.lap(seconds.restingPass);
  im.history.recordPass(manifolds, numManifolds, m_settings.touchingDistance);
  if (m_settings.keepReport)
    for (const IslandContact& c : im.island.contacts)
      if (c.contact < 0) ++m_report.restingContacts;
  return residual;
}

// Every cluster of this call is within the island: its bodies, its manifolds'
// points (at most MANIFOLD_CACHE_SIZE each, or one ahead point) and its
// joints' rows. Sized by that bound, a cluster larger than any before
// allocates nothing unless the island itself is larger than any before; the
// bound is doubled when it grows, so that an island (or Bullet's batch of
// small islands) gaining a manifold or two does not size everything again.
void PropagativeImpactSolver::reserveForIsland(int numBodies, int numManifolds, int numConstraints) {
  Impl& im = *m_impl;
  const int contacts = numManifolds * MANIFOLD_CACHE_SIZE;
  ProblemBounds bounds = ProblemBounds::rigid(numBodies, contacts);
  bounds.bilaterals = kRowsPerJoint * numConstraints;
  im.history.reservePairs(2 * static_cast<std::size_t>(contacts));
  if (!exceeds(bounds, im.reserved)) return;
  bounds = ProblemBounds::rigid(2 * std::max(numBodies, im.reserved.blocks), 2 * std::max(contacts, im.reserved.contacts));
  bounds.bilaterals = 2 * std::max(kRowsPerJoint * numConstraints, im.reserved.bilaterals);
  bounds.rowEntries += 12 * Index(bounds.bilaterals);
  im.problem.reserve(bounds);
  im.resolver.reserve(bounds, im.options, im.result);
  im.friction.reserve(bounds);  // sized whether or not impactFriction is on: it can be turned on between steps
  detail::reserveCapacity(im.firstReflection, bounds.contacts);
  im.reserved = bounds;
}

void PropagativeImpactSolver::resolveComponent(int root, btTypedConstraint** constraints, int numConstraints,
                                               const btContactSolverInfo& info, bullet_detail::RestingPass& resting) {
  Impl& im = *m_impl;
  detail::StageClock clock(m_settings.timeStages);
  SolveStageSeconds& seconds = m_report.stageSeconds;
  im.options.problemKey = (im.history.pass() << 20) ^ static_cast<std::uint64_t>(root);
  ImpactResult& r = im.result;
  const auto resolveProblem = [&]() {
    im.resolver.resolve(im.problem, im.options, r);  // options checked in solveGroup: cannot throw
    clock.lap(seconds.prepare);  // the resolve's whole time, split below by its own clock
    seconds.prepare -= r.stageSeconds.propagate + r.stageSeconds.plastic + r.stageSeconds.analysis;
    seconds.propagation += r.stageSeconds.propagate;
    seconds.plastic += r.stageSeconds.plastic;
    seconds.analysis += r.stageSeconds.analysis;
  };
  // First near the seeds (ClusterProblem.h): the same outcome at the cost of
  // the contacts the impact reaches, not of the whole touching component.
  bool resolved = false;
  im.cluster.forgetBodies();
  if (!m_settings.computeXi && !m_settings.impactFriction &&
      im.cluster.startNear(root, im.island, im.components, constraints, numConstraints)) {
    for (int attempt = 0; !resolved && attempt < kNearAttempts; ++attempt) {
      if (!im.cluster.buildNear(root, im.island, im.components, im.problem)) break;
      clock.lap(seconds.problemBuild);
      resolveProblem();
      if (r.capHit) break;
      resolved = im.cluster.nearSuffices(root, im.island, im.components, r);
    }
  }
  if (!resolved) {
    im.cluster.build(root, im.island, im.components, constraints, numConstraints, info, im.problem);
    clock.lap(seconds.problemBuild);
    resolveProblem();
  }
  m_report.rejectedInputs += im.cluster.rejectedInputs(im.problem);  // of the problem resolved
  // Friction during the impact, loaded by its normal impulses (ImpactFriction.h).
  const bool friction = m_settings.impactFriction;
  if (friction) m_report.frictionClamped += im.friction.apply(im.island, im.problem, im.options, r);
  ClusterReport* report = bullet_detail::beginClusterReport(m_report, m_settings, r, im.substep);
  if (report) {
    if (friction) report->friction = im.friction.result().outcome;
    report->contacts.reserve(static_cast<std::size_t>(im.problem.contactCount()));
  }
  noteClampedRestitution();
  bullet_detail::writeBack(im.problem, r, im.cluster.blockBody(), im.island, im.history, resting,
                           m_settings.impactOverlapSlop, report,
                           im.firstReflection, friction ? &im.friction : nullptr);
  clock.lap(seconds.writeBack);
}

void PropagativeImpactSolver::noteClampedRestitution() {
  Impl& im = *m_impl;
  for (const IslandContact& c : im.island.contacts)
    if (c.contact >= 0) im.restitutionWarnings.note(*c.point, c.objectA, c.objectB, m_report);
}

}  // namespace propimpact
