// Stage "impact friction" (ImpactFriction.h): after the impact's normal
// impulses are known, tangential impulses within the cone, tried with Newton
// targets, then dissipative ones, each attempt verified (no energy gained,
// every contact feasible), else the frictionless outcome stands.
#include "propimpact/core/ImpactFriction.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "Capacity.h"
#include "FrictionSystem.h"
#include "SolverBodies.h"
#include "propimpact/core/Errors.h"

namespace propimpact {

struct ImpactFriction::Workspace {
  detail::SolverBodies bodies;
  detail::FrictionSystem system;
  std::vector<Scalar> start;       // internal velocity (admissible part) after the impact
  std::vector<Scalar> trial;       // one attempt's velocity
  std::vector<Scalar> jointError;  // joint-violating part, internal order, added back unchanged
  std::vector<Scalar> noConstant;  // empty: rows without the joint error as a constant
  std::vector<Scalar> rowStart;    // every row's relative velocity at the start
  std::vector<Scalar> targets;     // per contact
  std::vector<Scalar> floors;      // per contact: the slowest approach it may end with
  std::vector<Scalar> problemOrder;  // not a VectorX: resizing one to a new cluster's size allocates
  Scalar scale = 0;
  Scalar impactScale = 0;  // the impact's own: of the larger of its energies before and after
  Scalar threshold = 0;
  bool exactEnergy = true;  // no row has a constant term: f is the energy change
  Scalar startEnergy = 0;   // of the admissible part, computed like the check

  bool attempt(const FrictionOptions& options, int& sweeps, Scalar& change);
  void fill(ImpactResult& result, FrictionResult& out);
};

ImpactFriction::ImpactFriction() : m_workspace(std::make_unique<Workspace>()) {}
ImpactFriction::~ImpactFriction() = default;
ImpactFriction::ImpactFriction(ImpactFriction&&) noexcept = default;
ImpactFriction& ImpactFriction::operator=(ImpactFriction&&) noexcept = default;

namespace {

void resetReport(const FrictionRows& friction, const ImpactResult& result, FrictionResult& out) {
  const auto n = static_cast<std::size_t>(friction.size());
  out.tangentialImpulse.assign(n, Eigen::Vector2d::Zero());
  out.normalCorrection.assign(n, 0);
  out.slipSpeed.assign(n, 0);
  out.state.assign(n, FrictionState::None);
  out.outcome = FrictionOutcome::NotNeeded;
  out.sweeps = 0;
  out.energyBefore = result.energyAfter;
  out.dissipation = 0;
}

bool anyLoadedFriction(const FrictionRows& friction, const ImpactResult& result) {
  for (int k = 0; k < friction.size(); ++k) {
    const FrictionRows::Entry& e = friction.entry(k);
    const auto c = static_cast<std::size_t>(e.contact);
    if (e.mu > 0 && c < result.inCluster.size() && result.inCluster[c] && result.impulses[e.contact] > 0) return true;
  }
  return false;
}

}  // namespace

// One attempt from the start velocity with the targets set; then the checks of
// ImpactFriction.h: f = ½ Σ λ_r (u_r,end + u_r,start) ≤ round-off (exactly the
// energy change when no row has a constant term) and every contact at least
// min(0, its start speed) − tolerance. Returns f through \p change.
bool ImpactFriction::Workspace::attempt(const FrictionOptions& options, int& sweeps, Scalar& change) {
  trial = start;
  sweeps = system.solve(targets, options, impactScale, scale, trial.data());
  Scalar f = 0;
  Scalar magnitude = 0;
  bool ok = true;
  for (int r = 0; r < system.rowCount(); ++r) {
    const detail::FrictionRow& row = system.row(r);
    if (row.d == 0) continue;
    const Scalar end = system.velocity(r, trial.data());
    const Scalar lambda = system.impulse(r);
    f += 0.5 * lambda * (end + rowStart[static_cast<std::size_t>(r)]);
    magnitude += std::abs(lambda) * (std::abs(end) + std::abs(rowStart[static_cast<std::size_t>(r)]));
    if (r < system.normalCount()) {
      ok = ok && (end - floors[static_cast<std::size_t>(r)]) / std::sqrt(row.d) >= -threshold;
    }
  }
  change = f;
  if (!(ok && std::isfinite(f))) return false;
  if (!exactEnergy) return f <= 1e-12 * (0.5 * scale * scale + magnitude);
  // Without constant terms f is the energy change; the energy itself, computed
  // as the resolver computes it, must not exceed the frictionless outcome's.
  problemOrder.resize(static_cast<std::size_t>(bodies.dofs()));
  bodies.scatter(trial.data(), problemOrder.data());
  return bodies.kineticEnergy(Eigen::Map<const VectorX>(problemOrder.data(), bodies.dofs())) <= startEnergy;
}

void ImpactFriction::Workspace::fill(ImpactResult& result, FrictionResult& out) {
  const Index n = bodies.dofs();
  std::vector<Scalar>& v = trial;
  problemOrder.resize(static_cast<std::size_t>(n));
  const Eigen::Map<const VectorX> inProblemOrder(problemOrder.data(), n);
  bodies.scatter(v.data(), problemOrder.data());
  result.velocity = inProblemOrder;
  bodies.scatter(jointError.data(), problemOrder.data());
  result.velocity += inProblemOrder;
  result.energyAfter = bodies.kineticEnergy(result.velocity);
  for (int c = 0; c < system.normalCount(); ++c) result.impulses[c] += system.impulse(c);
  for (const detail::FrictionBlock& b : system.blocks()) {
    const auto k = static_cast<std::size_t>(b.entry);
    const Eigen::Vector2d lambda(system.impulse(b.rows[0]), system.impulse(b.rows[1]));
    const Eigen::Vector2d slip(system.row(b.rows[0]).d > 0 ? system.velocity(b.rows[0], v.data()) : 0,
                               system.row(b.rows[1]).d > 0 ? system.velocity(b.rows[1], v.data()) : 0);
    const Scalar delta = system.impulse(b.contact);
    out.tangentialImpulse[k] = lambda;
    out.normalCorrection[k] = delta;
    out.slipSpeed[k] = slip.norm();
    const Scalar bound = b.mu * (b.normalImpulse + delta);
    out.state[k] = lambda.norm() < (1 - 1e-9) * bound ? FrictionState::Stuck : FrictionState::Slipping;
  }
}

// Capacity for any cluster within \p bounds (a Bullet step sizes it by the
// island), so that a cluster larger than any before allocates nothing here.
void ImpactFriction::reserve(const ProblemBounds& bounds) {
  Workspace& w = *m_workspace;
  const Index contacts = bounds.contacts;
  w.bodies.reserve(bounds);
  w.system.reserve(bounds);
  for (std::vector<Scalar>* dofs : {&w.start, &w.trial, &w.jointError, &w.problemOrder}) detail::reserveCapacity(*dofs, bounds.dofs);
  detail::reserveCapacity(w.rowStart, 3 * contacts);  // a normal and two tangent rows per contact
  detail::reserveCapacity(w.targets, contacts);
  detail::reserveCapacity(w.floors, contacts);
}

void ImpactFriction::apply(const ImpactProblem& problem, const FrictionRows& friction, const ResolveOptions& resolveOptions,
                           const FrictionOptions& options, ImpactResult& result, FrictionResult& out) {
  if (result.velocity.size() != problem.dofCount() || result.impulses.size() != problem.contactCount() ||
      result.inCluster.size() != static_cast<std::size_t>(problem.contactCount()))
    throw InputError(ErrorCode::DimensionMismatch, "friction applied to a result of another problem");
  if (!(options.tolerance > 0) || !(options.looseTolerance > 0) || !(options.normalTolerance > 0) ||
      options.looseAfter < 0 || options.sweepCap < 1)
    throw InputError(ErrorCode::BadOption, "friction tolerances must be > 0, looseAfter >= 0 and sweepCap >= 1");
  if (!(options.relaxation > 0 && options.relaxation < 2))
    throw InputError(ErrorCode::BadOption, "friction relaxation must lie in (0, 2)");
  resetReport(friction, result, out);
  if (!anyLoadedFriction(friction, result)) return;  // μ = 0 everywhere: the frictionless outcome, bit for bit
  Workspace& w = *m_workspace;
  w.bodies.build(problem);
  w.start.resize(static_cast<std::size_t>(problem.dofCount()));
  w.bodies.gather(result.velocity.data(), w.start.data());
  // The impact acts on admissible motions only (as in the resolver): the
  // joint-violating part is set aside and added back unchanged.
  w.bodies.splitJointError(w.start.data(), w.jointError);
  const bool constant = w.bodies.anyJoint() && resolveOptions.jointErrorAsBias;
  if (w.system.build(w.bodies, friction, result, constant ? w.jointError : w.noConstant) == 0) return;
  w.rowStart.resize(static_cast<std::size_t>(w.system.rowCount()));
  Scalar largest = 0;
  for (int r = 0; r < w.system.rowCount(); ++r) {
    w.rowStart[static_cast<std::size_t>(r)] = w.system.row(r).d > 0 ? w.system.velocity(r, w.start.data()) : 0;
    if (r < w.system.normalCount() && w.system.row(r).d > 0)
      largest = std::max(largest, std::abs(w.rowStart[static_cast<std::size_t>(r)]) / std::sqrt(w.system.row(r).d));
  }
  w.exactEnergy = true;
  for (int r = 0; r < w.system.rowCount(); ++r) w.exactEnergy = w.exactEnergy && w.system.row(r).bias == 0;
  w.problemOrder.resize(static_cast<std::size_t>(problem.dofCount()));
  w.bodies.scatter(w.start.data(), w.problemOrder.data());
  w.startEnergy = w.bodies.kineticEnergy(Eigen::Map<const VectorX>(w.problemOrder.data(), problem.dofCount()));
  w.scale = std::max(std::sqrt(2 * std::max<Scalar>(result.energyAfter, 0)), largest);
  w.threshold = resolveOptions.feasibilityTolerance * w.scale;
  w.impactScale = std::max(w.scale, std::sqrt(2 * std::max<Scalar>(result.energyBefore, 0)));

  // Newton targets: each impact contact keeps the separation speed the impact
  // gave it; a contact outside the cluster is only kept from approaching
  // faster than it did or than its resting speed, whichever is faster (the
  // propagation's rule: a slower approach is resting contact, left to the
  // host's resting pass; ImpactFriction.h).
  const auto contacts = static_cast<std::size_t>(w.system.normalCount());
  w.targets.resize(contacts);
  w.floors.resize(contacts);
  for (std::size_t c = 0; c < contacts; ++c) {
    const Scalar u = w.rowStart[c];
    const bool in = result.inCluster[c] != 0;
    w.floors[c] = in ? std::min<Scalar>(0, u) : std::min(u, -problem.contact(static_cast<int>(c)).restingSpeed);
    w.targets[c] = in ? u : w.floors[c];
  }
  int sweeps = 0;
  Scalar f = 0;
  out.outcome = FrictionOutcome::Newton;
  if (!w.attempt(options, sweeps, f)) {
    w.targets = w.floors;
    out.outcome = FrictionOutcome::Dissipative;
    if (!w.attempt(options, sweeps, f)) {
      out.outcome = FrictionOutcome::Reverted;  // result untouched: the frictionless outcome
      out.sweeps = sweeps;
      return;
    }
  }
  out.sweeps = sweeps;
  out.dissipation = std::max<Scalar>(0, -f);
  w.fill(result, out);
}

}  // namespace propimpact
