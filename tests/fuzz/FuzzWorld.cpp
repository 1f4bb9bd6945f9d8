// libFuzzer entry of scripts/fuzz --target world: bytes -> a small Bullet world
// (WorldFuzzer.h) -> a few hundred substeps with PropagativeImpactSolver, and
// after every substep:
//   - a dynamic body that was finite stays finite (unless it was poisoned);
//   - no impact cluster gains kinetic energy beyond kEnergyTolerance, except
//     one touching a kinematic body (a moving paddle may add energy) or one
//     with a body moving along an axis its linear or angular factor locks
//     (a motion nothing in the impact can change: prescribed, as in the core
//     check; see open finding world-spin-about-a-locked-angular-axis);
//   - a poisoned body (NaN velocity) is named in the report's rejected list;
//   - in worlds without kinematic bodies (which may crush a body into the
//     floor: nothing can move them), no dynamic body ends up entirely below
//     the floor (its bounding box's top more than kFloorTolerance under it);
//     every body starts entirely above it. Not the centre of mass: a hull's
//     or a compound's origin may lie outside its shape, and a hull resting
//     on the floor had its origin 1.2 cm under it in the first run.
// A body that turns non-finite or sinks is a finding only if stock Bullet (its
// sequential-impulse solver alone, on the same world) keeps that body finite,
// or above the floor, for the whole run: the drop-in hands resting contact
// and joints to that same pass, and what stock Bullet cannot hold (a box with
// an inertia ratio of 4e4 falling 12 cm a substep at 60 Hz, masses 1e12
// apart on a joint) is the pass's limit, not the impacts'.
// Bullet itself is Debian's uninstrumented build; only our code is.
#include <fmt/core.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "WorldFuzzer.h"
#include "propimpact/bullet/ReportFormat.h"

namespace {

using propimpact::fuzz::FuzzWorld;

/// Relative: the resolver keeps an elastic cluster's energy to round-off
/// (1e-12 in the soak's gas); the check allows 1e-9, as the core check does.
constexpr double kEnergyTolerance = 1e-9;
/// Metres below the floor plane a body's top may reach before it counts as
/// fallen through (the bounding box is conservative, so this is only round-off).
constexpr double kFloorTolerance = 0.01;

bool finite(const btVector3& v) { return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z()); }
bool finite(const btRigidBody& b) {
  return finite(b.getCenterOfMassPosition()) && finite(b.getLinearVelocity()) && finite(b.getAngularVelocity());
}

[[noreturn]] void fail(const FuzzWorld& w, int step, const std::string& what) {
  fmt::print(stderr, "world invariant failed at substep {}: {}\n  world: {}\n  report: {}\n", step, what, w.description,
             w.solver.lastStepReport());
  for (std::size_t k = 0; k < w.dynamic.size(); ++k) {
    const btRigidBody& b = *w.dynamic[k];
    fmt::print(stderr, "  body {} ({}): inverse mass {}, inverse inertia {} {} {}, factors ({} {} {}) ({} {} {}), damping {} {}, v ({:.3g} {:.3g} {:.3g}), w ({:.3g} {:.3g} {:.3g})\n", k,
               static_cast<const void*>(&b), b.getInvMass(), b.getInvInertiaDiagLocal().x(), b.getInvInertiaDiagLocal().y(),
               b.getInvInertiaDiagLocal().z(), b.getLinearFactor().x(), b.getLinearFactor().y(), b.getLinearFactor().z(),
               b.getAngularFactor().x(), b.getAngularFactor().y(), b.getAngularFactor().z(), b.getLinearDamping(),
               b.getAngularDamping(), b.getLinearVelocity().x(), b.getLinearVelocity().y(), b.getLinearVelocity().z(),
               b.getAngularVelocity().x(), b.getAngularVelocity().y(), b.getAngularVelocity().z());
  }
  std::abort();
}

bool movesAlongALockedAxis(const btRigidBody& b) {
  const btVector3 v = b.getLinearVelocity() * (btVector3(1, 1, 1) - b.getLinearFactor());
  const btVector3 w = b.getAngularVelocity() * (btVector3(1, 1, 1) - b.getAngularFactor());
  return v.length() > 1e-9 * (b.getLinearVelocity().length() + 1e-12) ||
         w.length() > 1e-9 * (b.getAngularVelocity().length() + 1e-12);
}

// Every body of the cluster's contacts, not only those its impulses moved: a
// body the joints hold immobile is not moved, yet its spin about a locked
// axis (Bullet's gyroscopic step puts it there) moves its contact points
// (open finding world-jointed-sphere-single-reflection-gains-1.7-percent).
bool prescribed(const propimpact::ClusterReport& cluster) {
  const auto locked = [](const btCollisionObject* o) {
    const btRigidBody* b = btRigidBody::upcast(o);
    return b && !b->isStaticOrKinematicObject() && movesAlongALockedAxis(*b);
  };
  for (const btCollisionObject* o : cluster.bodies)
    if (locked(o)) return true;
  for (const propimpact::ContactReport& c : cluster.contacts)
    if (locked(c.bodyA) || locked(c.bodyB)) return true;
  return false;
}

bool touchesKinematic(const propimpact::ClusterReport& cluster) {
  for (const propimpact::ContactReport& c : cluster.contacts)
    for (const btCollisionObject* o : {c.bodyA, c.bodyB})
      if (o && o->isKinematicObject()) return true;
  return false;
}

void checkReport(const FuzzWorld& w, int step, const btRigidBody* poisoned) {
  const propimpact::StepReport& report = w.solver.lastStepReport();
  for (const propimpact::ClusterReport& c : report.clusters) {
    if (touchesKinematic(c) || prescribed(c)) continue;
    if (!(c.energyAfter <= c.energyBefore * (1 + kEnergyTolerance) + 1e-300))
      fail(w, step, fmt::format("cluster of {} contacts gained energy: {} -> {} (relative {:.3g}), {} reflections, cap hit {}",
                                c.contacts.size(), c.energyBefore, c.energyAfter,
                                (c.energyAfter - c.energyBefore) / c.energyBefore, c.reflections, c.capHit));
  }
  if (!poisoned) return;
  for (const propimpact::RejectedBody& r : report.rejected)
    if (r.body == poisoned) return;
  fail(w, step, "the body with a NaN velocity is not in the report's rejected list");
}

btScalar top(const btRigidBody& b) {
  btVector3 low, high;
  b.getCollisionShape()->getAabb(b.getWorldTransform(), low, high);
  return high.y();
}

/// What stock Bullet does to one body over the same world's run.
struct StockFate {
  bool sank = false;       ///< its top went under the floor
  bool nonFinite = false;  ///< its state became non-finite
};

/// Steps the same world with stock Bullet alone (its sequential-impulse solver).
StockFate stockFate(const std::uint8_t* data, std::size_t size, std::size_t k) {
  FuzzWorld w;
  propimpact::fuzz::buildWorld(data, size, w);
  btSequentialImpulseConstraintSolver stock;
  w.world.setConstraintSolver(&stock);
  StockFate fate;
  const btRigidBody& body = *w.dynamic[k];
  for (int step = 0; step < w.substeps && !fate.nonFinite; ++step) {
    if (step == w.poisonStep)
      w.dynamic[static_cast<std::size_t>(w.poisonBody)]->setLinearVelocity(
          btVector3(std::numeric_limits<btScalar>::quiet_NaN(), 0, 0));
    w.world.stepSimulation(w.dt, 1, w.dt);
    fate.nonFinite = !finite(body);
    fate.sank = fate.sank || (!fate.nonFinite && top(body) < -kFloorTolerance);
  }
  w.world.setConstraintSolver(&w.solver);  // the world must not keep a solver that dies first
  return fate;
}

/// Bodies whose failure stock Bullet shares on the same world: the pass the
/// drop-in hands resting contact and joints to has the same limit there.
struct Exempt {
  std::vector<char> sinking, nonFinite;
};

/// Checks every body; a failure is a finding only if stock Bullet does not
/// fail the same way for that body (asked once per body and kind).
void checkBodies(const FuzzWorld& w, int step, const std::vector<char>& healthy, const std::uint8_t* data,
                 std::size_t size, Exempt& exempt) {
  for (std::size_t k = 0; k < w.dynamic.size(); ++k) {
    if (!healthy[k] || exempt.nonFinite[k]) continue;
    const btRigidBody& b = *w.dynamic[k];
    const bool nonFinite = !finite(b);
    const bool sunk = !nonFinite && !w.hasKinematic && !exempt.sinking[k] && top(b) < -kFloorTolerance;
    if (!nonFinite && !sunk) continue;
    const StockFate stock = stockFate(data, size, k);
    if (nonFinite && !stock.nonFinite)
      fail(w, step, fmt::format("body {} became non-finite (stock Bullet keeps it finite)", k));
    if (sunk && !stock.sank)
      fail(w, step, fmt::format("body {} went through the floor (stock Bullet keeps it above): its top at y = {}", k,
                                top(b)));
    (nonFinite ? exempt.nonFinite : exempt.sinking)[k] = 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzWorld w;
  propimpact::fuzz::buildWorld(data, size, w);
  std::vector<char> healthy(w.dynamic.size(), 1);
  Exempt exempt{std::vector<char>(w.dynamic.size(), 0), std::vector<char>(w.dynamic.size(), 0)};
  for (int step = 0; step < w.substeps; ++step) {
    btRigidBody* poisoned = nullptr;
    if (step == w.poisonStep) {
      poisoned = w.dynamic[static_cast<std::size_t>(w.poisonBody)];
      poisoned->setLinearVelocity(btVector3(std::numeric_limits<btScalar>::quiet_NaN(), 0, 0));
      healthy[static_cast<std::size_t>(w.poisonBody)] = 0;
    }
    for (propimpact::fuzz::ScriptedMotion* m : w.scripted) m->advance(w.dt);
    w.world.stepSimulation(w.dt, 1, w.dt);
    checkReport(w, step, poisoned);
    checkBodies(w, step, healthy, data, size, exempt);
  }
  return 0;
}
