#include "LandingStudy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include <propimpact/bullet/PropagativeImpactSolver.h>
#include <propimpact/scenes/Scenes.h>
#include <propimpact/scenes/Solvers.h>
#include <propimpact/scenes/World.h>

namespace propimpact::compare {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kGravity = 9.81;  // scenes::Incline's
/// A contact's share of a step's normal velocity change (beyond gravity's
/// kick) that marks the landing, m/s: far above single-precision round-off of
/// speeds of a few m/s (~1e-6), far below any landing's impulse.
constexpr double kContactSignal = 1e-4;
struct LandingCell {
  std::string solver, shape;
  double angle = 0, mu = 0, cor = 0;
};

/// The incline's frame: normal, downhill, and the rolling axis n × t.
struct Frame {
  btVector3 n, t, axis;
};

/// A velocity in the incline's frame.
struct Motion {
  double vt = 0, vn = 0, spin = 0, lateral = 0;
};

struct LandingResult {
  int landingStep = 0;
  Motion before, after;
  double energyBefore = 0, energyAfter = 0, downhill = 0, turnDeg = 0;
  double impactContacts = NAN, reflections = NAN;  // ours only: the landing step's impact clusters
};

/// Routh's sphere on a rough plane, no initial spin (SPEC §7).
struct Closed {
  std::string regime = "none";
  double vt = NAN, vn = NAN, omegaR = NAN;
};

const std::vector<std::string> kHeader = {
    "cell",       "solver",      "shape",         "angle_deg",    "mu",         "cor",          "hz",
    "landing_step", "vt_before", "vn_before",     "vt_after",     "vn_after",   "spin_after",   "omega_r_after",
    "lateral_after", "energy_before", "energy_after", "energy_ratio", "regime",  "vt_closed",    "vn_closed",
    "omega_r_closed", "err_vs_closed", "impact_contacts", "reflections", "settle_s", "downhill_m", "turn_deg"};

std::unique_ptr<scenes::World> makeWorld(const std::string& solver) {
  const bool friction = solver == "propagative-friction";
  auto world = std::make_unique<scenes::World>(friction ? "propagative" : solver);
  // Set either way: "propagative" stands for the papers' frictionless impacts
  // whatever SolverSettings' default is.
  if (auto* ours = dynamic_cast<PropagativeImpactSolver*>(&world->solver())) ours->settings().impactFriction = friction;
  return world;
}

Motion motionOf(const btRigidBody& body, const Frame& f, const btVector3& velocity, double size) {
  const btVector3& w = body.getAngularVelocity();
  Motion m;
  m.vt = double(velocity.dot(f.t));
  m.vn = double(velocity.dot(f.n));
  m.spin = double(w.dot(f.axis));
  const btVector3 offV = velocity - velocity.dot(f.t) * f.t - velocity.dot(f.n) * f.n;
  const btVector3 offW = w - w.dot(f.axis) * f.axis;
  m.lateral = std::max(double(offV.length()), size * double(offW.length()));
  return m;
}

/// Kinetic energy with the linear velocity replaced by \p velocity (the mid-step one).
double energyAt(const btRigidBody& body, const btVector3& velocity) {
  const double mass = 1 / double(body.getInvMass());
  return scenes::kineticEnergy(body) + 0.5 * mass * (double(velocity.length2()) - double(body.getLinearVelocity().length2()));
}

LandingResult runCell(const LandingCell& cell, const LandingOptions& options) {
  scenes::Incline scene;
  scene.shape = cell.shape == "sphere" ? scenes::Incline::Shape::Sphere : scenes::Incline::Shape::Box;
  scene.angle = cell.angle * kPi / 180;
  scene.size = options.size;
  scene.height = options.height;
  scene.friction = cell.mu;
  scene.cor = cell.cor;
  const auto world = makeWorld(cell.solver);
  btRigidBody* body = scenes::build(*world, scene).bodies.front();
  auto* ours = dynamic_cast<PropagativeImpactSolver*>(&world->solver());
  const double s = std::sin(scene.angle), c = std::cos(scene.angle), dt = 1 / options.hz;
  const Frame f{btVector3(btScalar(-s), btScalar(c), 0), btVector3(btScalar(-c), btScalar(-s), 0), btVector3(0, 0, 1)};
  const btVector3 halfKick(0, btScalar(-0.5 * kGravity * dt), 0);
  const auto fallSteps = static_cast<int>(std::ceil((std::sqrt(2 * options.height / kGravity) + 1) * options.hz));
  LandingResult r;
  btTransform atLanding;
  for (int k = 1; k <= fallSteps && r.landingStep == 0; ++k) {
    const btVector3 v0 = body->getLinearVelocity();
    const btTransform pose = body->getWorldTransform();
    const Motion before = motionOf(*body, f, v0 + halfKick, options.size);
    const double energyBefore = energyAt(*body, v0 + halfKick);
    world->step(dt);
    const btVector3 v1 = body->getLinearVelocity();
    // Read every step: the report covers every step since it was last read.
    const StepReport* report = ours ? &ours->lastStepReport() : nullptr;
    if (double((v1 - v0).dot(f.n)) + kGravity * c * dt <= kContactSignal) continue;
    if (report) {
      r.impactContacts = r.reflections = 0;
      for (const ClusterReport& cluster : report->clusters) {
        r.impactContacts += double(cluster.contacts.size());
        r.reflections += double(cluster.reflections);
      }
    }
    r.landingStep = k;
    r.before = before;
    r.energyBefore = energyBefore;
    atLanding = pose;
    r.after = motionOf(*body, f, v1 - halfKick, options.size);
    r.energyAfter = energyAt(*body, v1 - halfKick);
  }
  if (r.landingStep == 0)
    throw std::runtime_error(fmt::format("landing: {} {} at {}° never landed", cell.solver, cell.shape, cell.angle));
  r.before.vn = -r.before.vn;  // approach speed
  const auto settleSteps = static_cast<long>(std::lround(options.settle * options.hz));
  for (long k = 0; k < settleSteps; ++k) world->step(dt);
  const btTransform end = body->getWorldTransform();
  r.downhill = double((end.getOrigin() - atLanding.getOrigin()).dot(f.t));
  r.turnDeg = double((end.getRotation() * atLanding.getRotation().inverse()).getAngleShortestPath()) * 180 / kPi;
  return r;
}

Closed routh(const LandingCell& cell, const Motion& before) {
  if (cell.shape != "sphere") return {};
  const double vt = before.vt, vn = before.vn, loaded = cell.mu * (1 + cell.cor) * vn;
  if (loaded >= 2.0 / 7 * vt) return {"stick", 5.0 / 7 * vt, cell.cor * vn, 5.0 / 7 * vt};
  return {"slip", vt - loaded, cell.cor * vn, 2.5 * loaded};
}

std::vector<LandingCell> landingCells(const LandingOptions& o) {
  for (const auto& solver : o.solvers) {
    const auto& names = landingSolverNames();
    if (std::find(names.begin(), names.end(), solver) == names.end())
      throw std::invalid_argument("landing: unknown solver '" + solver + "'");
  }
  if (!(o.hz > 0) || !(o.height > 0) || !(o.size > 0) || !(o.settle >= 0))
    throw std::invalid_argument("landing: need --hz, --height, --size > 0 and --settle >= 0");
  std::vector<LandingCell> cells;
  for (const auto& solver : o.solvers)
    for (const auto& shape : o.shapes) {
      if (shape != "sphere" && shape != "box") throw std::invalid_argument("landing: shapes are sphere and box");
      for (double angle : o.angles) {
        if (!(angle >= 0 && angle < 90)) throw std::invalid_argument("landing: angles must be in [0, 90) degrees");
        for (double mu : o.frictions) {
          if (!(mu >= 0 && std::isfinite(mu))) throw std::invalid_argument("landing: friction must be >= 0");
          for (double cor : o.cors) {
            if (!(cor >= 0 && cor <= 1)) throw std::invalid_argument("landing: COR must be in [0, 1]");
            cells.push_back(LandingCell{solver, shape, angle, mu, cor});
          }
        }
      }
    }
  return cells;
}

}  // namespace

const std::vector<std::string>& landingSolverNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all = scenes::solverNames();
    all.emplace_back("propagative-friction");
    return all;
  }();
  return names;
}

StudyOutput runLanding(const LandingOptions& options) {
  const std::vector<LandingCell> cells = landingCells(options);
  SweepOptions sweep = options.sweep;
  sweep.label = "landing";
  const auto selected = shardCells(cells.size(), sweep);
  const auto results =
      runSweep<LandingResult>(cells.size(), sweep, [&](std::size_t i) { return runCell(cells[i], options); });
  StudyOutput out;
  out.table.header = kHeader;
  for (std::size_t k = 0; k < selected.size(); ++k) {
    const LandingCell& c = cells[selected[k]];
    const LandingResult& r = results[k];
    const Closed closed = routh(c, r.before);
    const double speed = std::hypot(r.before.vt, r.before.vn);
    const double err = closed.regime == "none"
                           ? NAN
                           : std::max({std::abs(r.after.vt - closed.vt), std::abs(r.after.vn - closed.vn),
                                       std::abs(r.after.spin * options.size - closed.omegaR), r.after.lateral}) /
                                 speed;
    const auto n = [](double value) { return formatNumber(value); };
    out.table.rows.push_back({std::to_string(selected[k]), c.solver, c.shape, n(c.angle), n(c.mu), n(c.cor),
                              n(options.hz), std::to_string(r.landingStep), n(r.before.vt), n(r.before.vn),
                              n(r.after.vt), n(r.after.vn), n(r.after.spin), n(r.after.spin * options.size),
                              n(r.after.lateral), n(r.energyBefore), n(r.energyAfter), n(r.energyAfter / r.energyBefore),
                              closed.regime, n(closed.vt), n(closed.vn), n(closed.omegaR), n(err), n(r.impactContacts), n(r.reflections), n(options.settle), n(r.downhill),
                              n(r.turnDeg)});
  }
  return out;
}

}  // namespace propimpact::compare
