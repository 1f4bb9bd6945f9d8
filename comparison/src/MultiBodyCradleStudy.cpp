// The cradle study through multibodies: each cell builds its own
// btMultiBodyDynamicsWorld (zero gravity, no damping) with three
// floating-base balls and the solver under test.
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include <propimpact/bullet/PropagativeMultiBodySolver.h>

#include "Ideal.h"
#include "MultiBodyStudy.h"

namespace propimpact::compare {
namespace {

constexpr double kRadius = 0.5;
constexpr double kMass = 1;

struct Cell {
  std::string solver;
  double hz = 0, cor = 0, v0 = 0, phase = 0;
};

struct Result {
  double energyRatio = 0, energyIdeal = 0;
  double v[3] = {0, 0, 0};
  double errPropagative = 0, errLcp = 0;
};

const std::vector<std::string> kHeader = {"cell", "solver", "hz",         "cor",  "v0",  "phase", "energy_ratio",
                                          "energy_ideal", "va", "vb", "vc", "err_vs_propagative", "err_vs_lcp"};

/// One world per cell, owning what it holds.
class Cradle {
 public:
  explicit Cradle(const Cell& cell) : m_dispatcher(&m_configuration) {
    if (cell.solver == "propagative")
      m_solver = std::make_unique<PropagativeMultiBodySolver>();
    else
      m_solver = std::make_unique<btMultiBodyConstraintSolver>();
    m_world = std::make_unique<btMultiBodyDynamicsWorld>(&m_dispatcher, &m_broadphase, m_solver.get(), &m_configuration);
    m_world->setGravity(btVector3(0, 0, 0));
    // A detected φ·v0·dt deep in the third pass (a multibody's first pass has no known kick).
    const double dt = 1 / cell.hz;
    const double xs[3] = {-2 * kRadius - cell.v0 * dt * (2 - cell.phase), 0, 2 * kRadius};
    for (int i = 0; i < 3; ++i) addBall(xs[i], i == 0 ? cell.v0 : 0, cell.cor);
  }
  ~Cradle() {
    for (auto& c : m_colliders) m_world->removeCollisionObject(c.get());
    for (auto& b : m_balls) m_world->removeMultiBody(b.get());
  }
  Cradle(const Cradle&) = delete;
  Cradle& operator=(const Cradle&) = delete;

  void step(double dt) { m_world->stepSimulation(btScalar(dt), 1, btScalar(dt)); }
  [[nodiscard]] double velocity(int i) const { return m_balls[static_cast<std::size_t>(i)]->getBaseVel().x(); }
  [[nodiscard]] double energy() const {
    double e = 0;
    for (const auto& b : m_balls) {
      const btVector3 w = b->getBaseOmega();
      e += 0.5 * kMass * double(b->getBaseVel().length2()) + 0.5 * 0.4 * kMass * kRadius * kRadius * double(w.length2());
    }
    return e;
  }

 private:
  void addBall(double x, double vx, double cor) {
    const btScalar inertia = btScalar(0.4 * kMass * kRadius * kRadius);
    m_balls.push_back(std::make_unique<btMultiBody>(0, btScalar(kMass), btVector3(inertia, inertia, inertia), false, false));
    btMultiBody* ball = m_balls.back().get();
    ball->finalizeMultiDof();
    ball->setLinearDamping(0);
    ball->setAngularDamping(0);
    ball->setBasePos(btVector3(btScalar(x), 0, 0));
    ball->setBaseVel(btVector3(btScalar(vx), 0, 0));
    m_world->addMultiBody(ball);
    m_colliders.push_back(std::make_unique<btMultiBodyLinkCollider>(ball, -1));
    btMultiBodyLinkCollider* collider = m_colliders.back().get();
    collider->setCollisionShape(&m_sphere);
    collider->setWorldTransform(btTransform(btQuaternion::getIdentity(), btVector3(btScalar(x), 0, 0)));
    // Bullet multiplies the two restitutions: √cor each gives the combined cor.
    collider->setRestitution(btScalar(std::sqrt(cor)));
    collider->setFriction(0);
    ball->setBaseCollider(collider);
    m_world->addCollisionObject(collider, btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter);
  }

  btDefaultCollisionConfiguration m_configuration;
  btCollisionDispatcher m_dispatcher;
  btDbvtBroadphase m_broadphase;
  std::unique_ptr<btMultiBodyConstraintSolver> m_solver;
  std::unique_ptr<btMultiBodyDynamicsWorld> m_world;
  btSphereShape m_sphere{btScalar(kRadius)};
  std::vector<std::unique_ptr<btMultiBody>> m_balls;
  std::vector<std::unique_ptr<btMultiBodyLinkCollider>> m_colliders;
};

Result runCell(const Cell& cell, int settleSteps) {
  Cradle cradle(cell);
  const double energy0 = cradle.energy();
  for (int k = 0; k < 3 + settleSteps; ++k) cradle.step(1 / cell.hz);
  Result result;
  for (int i = 0; i < 3; ++i) result.v[i] = cradle.velocity(i);
  result.energyRatio = cradle.energy() / energy0;
  const MatrixX M = MatrixX::Identity(3, 3) * kMass;
  VectorX v(3);
  v << cell.v0, 0, 0;
  MatrixX J(2, 3);
  J << -1, 1, 0, 0, -1, 1;
  const VectorX ideal = propagativeIdeal(M, v, J, cell.cor);
  const VectorX lcp = simultaneousLcpIdeal(M, v, J, cell.cor);
  result.energyIdeal = ideal.squaredNorm() / v.squaredNorm();
  for (int i = 0; i < 3; ++i) {
    result.errPropagative = std::max(result.errPropagative, std::abs(result.v[i] - ideal(i)) / cell.v0);
    result.errLcp = std::max(result.errLcp, std::abs(result.v[i] - lcp(i)) / cell.v0);
  }
  return result;
}

std::vector<Cell> cellsOf(const MultiBodyCradleOptions& options, const std::vector<std::string>& solvers) {
  for (double phase : options.phases)
    if (!(phase > 0 && phase <= 1)) throw std::invalid_argument("multibody-cradle: phases must be in (0, 1]");
  for (double hz : options.hz)
    if (!(hz > 0)) throw std::invalid_argument("multibody-cradle: step rates must be positive");
  for (double cor : options.cors)
    if (!(cor >= 0 && cor <= 1)) throw std::invalid_argument("multibody-cradle: COR must be in [0, 1]");
  std::vector<Cell> cells;
  for (const auto& solver : solvers)
    for (double hz : options.hz)
      for (double cor : options.cors)
        for (double v0 : cradleSpeeds(options))
          for (double phase : options.phases) cells.push_back(Cell{solver, hz, cor, v0, phase});
  return cells;
}

}  // namespace

const std::vector<std::string>& multiBodySolverNames() {
  static const std::vector<std::string> names{"propagative", "bullet-multibody"};
  return names;
}

StudyOutput runMultiBodyCradle(const MultiBodyCradleOptions& options) {
  const std::vector<std::string> solvers = options.solvers.empty() ? multiBodySolverNames() : options.solvers;
  for (const auto& name : solvers)
    if (std::find(multiBodySolverNames().begin(), multiBodySolverNames().end(), name) == multiBodySolverNames().end())
      throw std::invalid_argument("multibody-cradle: unknown solver '" + name + "'");
  const std::vector<Cell> cells = cellsOf(options, solvers);
  SweepOptions sweep = options.sweep;
  sweep.label = "multibody-cradle";
  const auto selected = shardCells(cells.size(), sweep);
  const auto results =
      runSweep<Result>(cells.size(), sweep, [&](std::size_t i) { return runCell(cells[i], options.settleSteps); });
  StudyOutput out;
  out.table.header = kHeader;
  for (std::size_t k = 0; k < selected.size(); ++k) {
    const Cell& c = cells[selected[k]];
    const Result& r = results[k];
    out.table.rows.push_back({std::to_string(selected[k]), c.solver, formatNumber(c.hz), formatNumber(c.cor),
                              formatNumber(c.v0), formatNumber(c.phase), formatNumber(r.energyRatio),
                              formatNumber(r.energyIdeal), formatNumber(r.v[0]), formatNumber(r.v[1]),
                              formatNumber(r.v[2]), formatNumber(r.errPropagative), formatNumber(r.errLcp)});
    const bool checked = options.check && std::find(options.checkSolvers.begin(), options.checkSolvers.end(),
                                                    c.solver) != options.checkSolvers.end();
    if (!checked) continue;
    ++out.checkedRows;
    const std::string where = fmt::format("multibody-cradle cell {} (solver={} hz={} cor={} v0={} phase={})",
                                          selected[k], c.solver, c.hz, c.cor, formatNumber(c.v0), c.phase);
    const double energyError = std::abs(r.energyRatio - r.energyIdeal);
    if (!(energyError <= options.energyTolerance))
      out.failures.push_back(fmt::format("{}: energy_ratio {} vs ideal {} (error {:.3g} > {:.3g})", where,
                                         r.energyRatio, r.energyIdeal, energyError, options.energyTolerance));
    if (!(r.errPropagative <= options.velocityTolerance))
      out.failures.push_back(fmt::format("{}: velocities ({:.6g}, {:.6g}, {:.6g}), err_vs_propagative {:.3g} > {:.3g}",
                                         where, r.v[0], r.v[1], r.v[2], r.errPropagative, options.velocityTolerance));
  }
  return out;
}

}  // namespace propimpact::compare
