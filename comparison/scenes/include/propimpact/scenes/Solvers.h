#pragma once
/// \file Solvers.h
/// The constraint solvers the comparison runs, by name. One place builds them
/// so that the harness, tests, examples and benchmarks compare the same thing.

#include <BulletDynamics/ConstraintSolver/btConstraintSolver.h>
#include <BulletDynamics/ConstraintSolver/btContactSolverInfo.h>

#include <memory>
#include <string>
#include <vector>

namespace propimpact::scenes {

/// Every solver name makeSolver() accepts, in the order studies list them:
/// "bullet-si", "bullet-si-split", "bullet-nncg", "bullet-mlcp-dantzig",
/// "bullet-mlcp-lemke", "propagative".
[[nodiscard]] const std::vector<std::string>& solverNames();

/// True when \p name is one of solverNames().
[[nodiscard]] bool isSolverName(const std::string& name);

/// Builds the solver called \p name. Throws std::invalid_argument for an
/// unknown name. The MLCP solvers own their Dantzig / Lemke back end (it lives
/// as long as the returned solver). Some solvers also need world settings:
/// apply applySolverInfo() to the world's btContactSolverInfo (World does).
///  - bullet-si:            btSequentialImpulseConstraintSolver, Bullet's defaults.
///  - bullet-si-split:      the same, split impulse for every overlap (see applySolverInfo).
///  - bullet-nncg:          btNNCGConstraintSolver.
///  - bullet-mlcp-dantzig:  btMLCPSolver with btDantzigSolver.
///  - bullet-mlcp-lemke:    btMLCPSolver with btLemkeSolver.
///  - propagative:          propimpact::PropagativeImpactSolver with default settings
///                          except impactFriction, which is off: the papers'
///                          frictionless impacts, which the studies reproduce.
[[nodiscard]] std::unique_ptr<btConstraintSolver> makeSolver(const std::string& name);

/// Adjusts the world's solver settings for \p name. Only "bullet-si-split"
/// changes anything: m_splitImpulse = 1 and a penetration threshold so large
/// that every overlap (not only those deeper than Bullet's 4 cm) takes the
/// split-impulse path instead of the Baumgarte term.
void applySolverInfo(const std::string& name, btContactSolverInfo& info);

}  // namespace propimpact::scenes
