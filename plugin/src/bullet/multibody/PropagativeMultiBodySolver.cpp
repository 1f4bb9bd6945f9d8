// One solveMultiBodyGroup is a sequence of stages (see each stage's header):
//   gather bodies (kick from KickMemory) → gather contacts (Bullet's
//   Jacobians, Zeno classification, imminent points: MultiBodyGroup.h) →
//   components → per seeded component:
//   cluster problem (at the contact, for an impact located inside the
//   previous step: ImpactTime.h) → core resolve → write-back → speculative
//   points → Bullet's multibody pass (one scope object) → impact time
//   (moves located clusters' bodies) → contact history and kicks.
#include "propimpact/bullet/PropagativeMultiBodySolver.h"

#include <BulletDynamics/Featherstone/btMultiBodyConstraint.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../ClusterReports.h"
#include "../ContactHistory.h"
#include "../RestitutionWarnings.h"
#include "ImpactTime.h"
#include "KickMemory.h"
#include "InputChecks.h"
#include "MultiBodyCluster.h"
#include "MultiBodyGroup.h"
#include "MultiBodyRestingPass.h"
#include "propimpact/core/ImpactProblem.h"
#include "propimpact/core/ImpactResolver.h"

namespace propimpact {

using bullet_detail::ContactHistory;
using bullet_detail::GroupBlock;
using bullet_detail::GroupContact;
using bullet_detail::KickMemory;
using bullet_detail::MultiBodyCluster;
using bullet_detail::MultiBodyGroup;
using bullet_detail::MultiBodyRestingPass;

struct PropagativeMultiBodySolver::Impl {
  MultiBodyGroup group;
  MultiBodyCluster cluster;
  ContactHistory history;
  KickMemory kicks;
  bullet_detail::ImpactTime time;
  MultiBodyRestingPass::Buffers restingBuffers;
  std::size_t clusterContacts = 0;  // contacts that took part in an impact in the current call
  ImpactProblem problem;
  ImpactResolver resolver;
  ImpactResult result;
  ResolveOptions options;
  int substep = 0;
  bullet_detail::RestitutionWarnings restitutionWarnings;
};

PropagativeMultiBodySolver::PropagativeMultiBodySolver(std::size_t callerScalarSize) : m_impl(std::make_unique<Impl>()) {
  if (callerScalarSize != sizeof(btScalar))
    throw std::logic_error("propimpact was built for " + std::to_string(sizeof(btScalar) * 8) +
                           "-bit btScalar but is used with " + std::to_string(callerScalarSize * 8) +
                           "-bit btScalar: link the matching Bullet build (bullet vs bullet-float64)");
}

PropagativeMultiBodySolver::~PropagativeMultiBodySolver() = default;

const StepReport& PropagativeMultiBodySolver::lastStepReport() const {
  m_reportConsumed = true;
  return m_report;
}

void PropagativeMultiBodySolver::forgetKick(const btMultiBody& body) { m_impl->kicks.forget(&body); }

void PropagativeMultiBodySolver::prepareSolve(int numBodies, int numManifolds) {
  btMultiBodyConstraintSolver::prepareSolve(numBodies, numManifolds);
  if (m_reportConsumed) {  // field by field: the vectors keep their capacity
    m_report.clusters.clear();
    m_report.rejected.clear();
    m_report.substeps = 0;
    m_report.restingContacts = 0;
    m_report.capHits = 0;
    m_report.droppedClusters = 0;
    m_report.restitutionClamped = 0;
    m_report.frictionClamped = 0;
    m_report.restitutionWarnings.clear();
    m_reportConsumed = false;
  }
  m_impl->substep = m_report.substeps;
  ++m_report.substeps;
  m_impl->history.beginPass();
  m_impl->kicks.beginPass();
}

void PropagativeMultiBodySolver::solveMultiBodyGroup(btCollisionObject** bodies, int numBodies,
                                                     btPersistentManifold** manifolds, int numManifolds,
                                                     btTypedConstraint** constraints, int numConstraints,
                                                     btMultiBodyConstraint** multiBodyConstraints,
                                                     int numMultiBodyConstraints, const btContactSolverInfo& info,
                                                     btIDebugDraw* debugDrawer, btDispatcher* dispatcher) {
  Impl& im = *m_impl;
  MultiBodyRestingPass resting(im.restingBuffers);
  im.clusterContacts = 0;
  MultiBodyGroup& group = im.group;
  group.gatherBodies(bodies, numBodies, info.m_timeStep, im.kicks, m_settings, m_report);
  group.gatherContacts(manifolds, numManifolds, m_settings, im.history, resting, dispatcher);
  im.time.begin(group);
  // Settings the core would refuse leave every impact to Bullet's pass, reported, never thrown.
  const char* badSettings = bullet_detail::settingsRejection(m_settings);
  if (badSettings) reportBadSettings(badSettings);
  if (!badSettings && im.cluster.components(group, constraints, numConstraints)) {
    ResolveOptions& opt = im.options;
    opt.ordering = m_settings.ordering;
    opt.randomSeed = m_settings.randomSeed;
    opt.reflectionCap = m_settings.reflectionCap;
    opt.computeXi = m_settings.computeXi;
    opt.xiOrders = m_settings.xiOrders;
    opt.analysisContactLimit = std::clamp(m_settings.analysisContactLimit, 0, 64);
    opt.growFromSeeds = true;
    opt.jointErrorAsBias = false;  // as in the rigid solver: the joint error is the half kick's
    opt.computeEnergySplit = false;  // the report does not carry T_c / T_a
    for (const int root : im.cluster.seededRoots()) resolveComponent(root, constraints, numConstraints, info, resting);
    // A NaN restitution kept its contact out of every problem (InputChecks.h): noted all the same.
    for (const GroupContact& c : group.contacts)
      if (c.seed && std::isnan(c.point->m_combinedRestitution))
        im.restitutionWarnings.note(*c.point, c.objectA, c.objectB, m_report);
    im.history.sortImpactedPairs();
  }
  MultiBodyCluster::hideApproachingSpeculative(group, resting);
  const auto excluded = [&](int blk) { return blk >= 0 && group.blocks[static_cast<std::size_t>(blk)].excluded; };
  for (int k = 0; k < numConstraints; ++k) {
    if (excluded(group.blockOf(&constraints[k]->getRigidBodyA())) || excluded(group.blockOf(&constraints[k]->getRigidBodyB())))
      continue;
    resting.addConstraint(constraints[k]);
  }
  for (int k = 0; k < numMultiBodyConstraints; ++k) {
    btMultiBodyConstraint* c = multiBodyConstraints[k];
    if ((c->getMultiBodyA() && excluded(group.blockOf(c->getMultiBodyA()))) ||
        (c->getMultiBodyB() && excluded(group.blockOf(c->getMultiBodyB()))))
      continue;
    resting.addMultiBodyConstraint(c);
  }
  resting.run(*this, bodies, numBodies, info, debugDrawer, dispatcher);
  im.time.apply(group);  // after Bullet's pass, which works on the configuration its manifolds are from
  im.history.recordPass(manifolds, numManifolds, m_settings.touchingDistance);
  for (std::size_t i = 0; i < group.blocks.size(); ++i) {
    const GroupBlock& b = group.blocks[i];
    if (!b.multiBody || b.excluded) continue;
    Scalar located = -1;
    const Scalar* force = im.time.forceAtContact(group, static_cast<int>(i), located);
    im.kicks.record(*b.multiBody, group.fullKick(b), b.locate, force, located);
  }
  if (m_settings.keepReport)
    m_report.restingContacts += static_cast<std::int64_t>(group.contacts.size() - im.clusterContacts);
}

void PropagativeMultiBodySolver::resolveComponent(int root, btTypedConstraint** constraints, int numConstraints,
                                                  const btContactSolverInfo& info, MultiBodyRestingPass& resting) {
  Impl& im = *m_impl;
  im.cluster.build(root, im.group, constraints, numConstraints, info, im.time, im.problem);
  if (im.problem.contactCount() == 0) return;
  im.options.problemKey = (im.history.pass() << 20) ^ static_cast<std::uint64_t>(root);
  ImpactResult& r = im.result;
  im.resolver.resolve(im.problem, im.options, r);  // options checked by settingsRejection: it does not throw
  ClusterReport* report = bullet_detail::beginClusterReport(m_report, m_settings, r, im.substep);
  noteClampedRestitution();
  im.clusterContacts += im.cluster.writeBack(im.problem, r, im.group, im.history, resting, im.time, report);
}

void PropagativeMultiBodySolver::noteClampedRestitution() {
  Impl& im = *m_impl;
  for (const GroupContact& c : im.group.contacts)
    if (c.contact >= 0) im.restitutionWarnings.note(*c.point, c.objectA, c.objectB, m_report);
}

void PropagativeMultiBodySolver::reportBadSettings(const char* reason) {
  if (!m_settings.keepReport) return;
  for (const RejectedBody& r : m_report.rejected)
    if (!r.body && r.reason == reason) return;
  m_report.rejected.push_back(RejectedBody{nullptr, reason});
}

}  // namespace propimpact
