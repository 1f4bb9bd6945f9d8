#include "propimpact/scenes/Solvers.h"

#include <BulletDynamics/ConstraintSolver/btNNCGConstraintSolver.h>
#include <BulletDynamics/ConstraintSolver/btSequentialImpulseConstraintSolver.h>
#include <BulletDynamics/MLCPSolvers/btDantzigSolver.h>
#include <BulletDynamics/MLCPSolvers/btLemkeSolver.h>
#include <BulletDynamics/MLCPSolvers/btMLCPSolver.h>

#include <algorithm>
#include <stdexcept>

#include <propimpact/bullet/PropagativeImpactSolver.h>

namespace propimpact::scenes {
namespace {

/// Holds the MLCP back end; a base class so it is constructed before btMLCPSolver sees it.
struct MlcpBackendHolder {
  explicit MlcpBackendHolder(std::unique_ptr<btMLCPSolverInterface> backend) : m_backend(std::move(backend)) {}
  std::unique_ptr<btMLCPSolverInterface> m_backend;
};

/// btMLCPSolver that owns its back end (Bullet's only borrows it).
class OwningMlcpSolver : private MlcpBackendHolder, public btMLCPSolver {
 public:
  explicit OwningMlcpSolver(std::unique_ptr<btMLCPSolverInterface> backend)
      : MlcpBackendHolder(std::move(backend)), btMLCPSolver(m_backend.get()) {}
};

}  // namespace

const std::vector<std::string>& solverNames() {
  static const std::vector<std::string> names = {"bullet-si",           "bullet-si-split",   "bullet-nncg",
                                                 "bullet-mlcp-dantzig", "bullet-mlcp-lemke", "propagative"};
  return names;
}

bool isSolverName(const std::string& name) {
  const auto& names = solverNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::unique_ptr<btConstraintSolver> makeSolver(const std::string& name) {
  if (name == "bullet-si" || name == "bullet-si-split") return std::make_unique<btSequentialImpulseConstraintSolver>();
  if (name == "bullet-nncg") return std::make_unique<btNNCGConstraintSolver>();
  if (name == "bullet-mlcp-dantzig") return std::make_unique<OwningMlcpSolver>(std::make_unique<btDantzigSolver>());
  if (name == "bullet-mlcp-lemke") return std::make_unique<OwningMlcpSolver>(std::make_unique<btLemkeSolver>());
  if (name == "propagative") {
    auto solver = std::make_unique<PropagativeImpactSolver>();
    // The papers' frictionless impacts, which every study here reproduces; the
    // landing study turns impact friction on for its "propagative-friction".
    solver->settings().impactFriction = false;
    return solver;
  }
  throw std::invalid_argument("unknown solver '" + name + "'");
}

void applySolverInfo(const std::string& name, btContactSolverInfo& info) {
  if (name == "bullet-si-split") {
    info.m_splitImpulse = 1;
    // Overlaps are negative distances; the Baumgarte path is taken only when the
    // penetration exceeds this threshold, which then never happens.
    info.m_splitImpulsePenetrationThreshold = btScalar(1e30);
  }
}

}  // namespace propimpact::scenes
