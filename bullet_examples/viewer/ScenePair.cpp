#include "ScenePair.h"

#include <propimpact/scenes/Scenes.h>
#include <propimpact/scenes/World.h>

#include <chrono>

#include "SceneCatalog.h"

namespace propimpact::viewer {

/// A world built from a scene (owned) or loaded from a file (owned by the loader).
struct ScenePair::Holder {
  std::unique_ptr<scenes::World> own;
  std::unique_ptr<scenes::LoadedWorld> loaded;
  scenes::World& world() { return own ? *own : loaded->world(); }
};

void EnergyTrace::reset(double energy) {
  values.clear();
  initial = current = energy;
  values.push_back(float(energy));
}

void EnergyTrace::push(double energy) {
  current = energy;
  if (values.size() == kLength) values.erase(values.begin());
  values.push_back(float(energy));
}

double totalEnergy(const btDiscreteDynamicsWorld& world) {
  double total = 0;
  const btCollisionObjectArray& objects = world.getCollisionObjectArray();
  for (int i = 0; i < objects.size(); ++i) {
    const btRigidBody* body = btRigidBody::upcast(objects[i]);
    if (!body || body->getInvMass() <= 0) continue;
    const double mass = 1.0 / double(body->getInvMass());
    total += scenes::kineticEnergy(*body) - mass * double(body->getGravity().dot(body->getCenterOfMassPosition()));
  }
  return total;
}

ScenePair::ScenePair(const PairConfig& config) : m_config(config) { reset(); }

ScenePair::~ScenePair() = default;

scenes::World& ScenePair::world(Side side) { return m_worlds[index(side)]->world(); }
const scenes::World& ScenePair::world(Side side) const { return m_worlds[index(side)]->world(); }

void ScenePair::build(Side side) {
  const std::string solver = side == Side::Stock ? m_config.stockSolver : "propagative";
  auto holder = std::make_unique<Holder>();
  if (m_config.worldFile.empty()) {
    holder->own = std::make_unique<scenes::World>(solver);
    m_built = buildScene(m_config.scene, *holder->own, 1.0 / m_config.hz);
  } else {
    holder->loaded = std::make_unique<scenes::LoadedWorld>(m_config.worldFile, solver);
    m_built = BuiltScene{-1};
  }
  m_worlds[index(side)] = std::move(holder);
}

void ScenePair::reset() {
  // Old worlds go first: their shapes' addresses may be reused by the new ones.
  for (auto& holder : m_worlds) holder.reset();
  build(Side::Stock);
  build(Side::Propagative);
  if (auto* solver = dynamic_cast<PropagativeImpactSolver*>(&world(Side::Propagative).solver())) {
    solver->settings().computeXi = true;  // the overlay shows ξ of every cluster
    solver->settings().ordering = m_config.ordering;
  }
  if (m_config.cor >= 0) setRestitution(m_config.cor);
  for (const Side side : kSides) m_energy[index(side)].reset(totalEnergy(world(side).dynamics()));
  m_report = StepReport{};
  m_time = 0;
  m_steps = 0;
  ++m_generation;
}

bool ScenePair::substep() {
  const double dt = 1.0 / m_config.hz;
  for (const Side side : kSides) {
    const auto start = std::chrono::steady_clock::now();
    world(side).step(dt);
    m_stepMillis[index(side)] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    m_energy[index(side)].push(totalEnergy(world(side).dynamics()));
  }
  if (auto* solver = dynamic_cast<PropagativeImpactSolver*>(&world(Side::Propagative).solver()))
    m_report = solver->lastStepReport();
  m_time += dt;
  ++m_steps;
  return !m_report.clusters.empty();
}

void ScenePair::setRestitution(double cor) {
  m_config.cor = cor;
  for (const Side side : kSides) {
    btCollisionObjectArray& objects = world(side).dynamics().getCollisionObjectArray();
    for (int i = 0; i < objects.size(); ++i) objects[i]->setRestitution(scenes::bodyRestitution(cor));
  }
}

void ScenePair::setOrdering(OrderingPolicy ordering) {
  m_config.ordering = ordering;
  if (auto* solver = dynamic_cast<PropagativeImpactSolver*>(&world(Side::Propagative).solver()))
    solver->settings().ordering = ordering;
}

void ScenePair::shoot(const btVector3& position, const btVector3& velocity, double radius) {
  for (const Side side : kSides) {
    const double before = totalEnergy(world(side).dynamics());
    scenes::BodySpec spec;
    spec.mass = 1;
    spec.position = position;
    spec.linearVelocity = velocity;
    spec.restitution = scenes::bodyRestitution(m_config.cor >= 0 ? m_config.cor : 1.0);
    spec.friction = btScalar(0.5);
    (void)world(side).addSphere(btScalar(radius), spec);
    // The ball brings its own energy: the drift shown stays the solvers' alone.
    EnergyTrace& trace = m_energy[index(side)];
    trace.push(totalEnergy(world(side).dynamics()));
    trace.initial += trace.current - before;
  }
}

}  // namespace propimpact::viewer
