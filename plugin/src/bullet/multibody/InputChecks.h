#pragma once
// What the core's problem builders and resolver would refuse, asked before
// they are called. The core reports refused input by throwing InputError;
// issue 12 rules out exceptions thrown inside a step, so the multibody path
// never hands the core what it would throw on: bad bodies and settings are
// reported (StepReport::rejected) and left to Bullet's pass, and a row the
// core cannot take stays with Bullet's pass. Each check names the core's
// condition it mirrors (ImpactProblem.cpp, ImpactResolver.cpp), so that a
// change there shows here as a failing test (MultiBodyBadInputTest counts
// every exception thrown inside stepSimulation).

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>

#include "propimpact/bullet/SolverSettings.h"
#include "propimpact/core/Types.h"

namespace propimpact::bullet_detail {

/// Why \p settings cannot be resolved with (ResolveOptions checks, ImpactProblem::setRestingSpeed), or nullptr.
inline const char* settingsRejection(const SolverSettings& settings) {
  if (settings.reflectionCap < 0) return "invalid SolverSettings: reflectionCap < 0";
  if (!(settings.restingFactor >= 0) || !std::isfinite(settings.restingFactor))
    return "invalid SolverSettings: restingFactor not finite and >= 0";
  if (!(settings.restingFloor >= 0) || !std::isfinite(settings.restingFloor))
    return "invalid SolverSettings: restingFloor not finite and >= 0";
  return nullptr;
}

/// Whether ImpactProblem::addDenseBlock takes \p mass with \p velocity: finite,
/// symmetric to 1e-12 of its largest entry, and a Cholesky factor whose pivots
/// exceed 1e-12·√max|M|.
inline bool denseBlockAccepted(const MatrixX& mass, const VectorX& velocity) {
  if (mass.rows() == 0 || !mass.allFinite() || !velocity.allFinite()) return false;
  const Scalar scale = mass.cwiseAbs().maxCoeff();
  if (!((mass - mass.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * scale)) return false;
  const Eigen::LLT<MatrixX> llt(mass);
  return llt.info() == Eigen::Success && llt.matrixLLT().diagonal().minCoeff() > 1e-12 * std::sqrt(scale);
}

/// Whether ImpactProblem::addRigidBody takes the symmetric inverse inertia \p
/// inverseInertia: positive semi-definite to 1e-12 of its largest entry.
inline bool inverseInertiaAccepted(const Matrix3& inverseInertia) {
  if (!inverseInertia.allFinite()) return false;
  const Scalar scale = inverseInertia.cwiseAbs().maxCoeff();
  return Eigen::SelfAdjointEigenSolver<Matrix3>(inverseInertia, Eigen::EigenvaluesOnly).eigenvalues().minCoeff() >=
         -1e-12 * scale;
}

/// Whether ImpactProblem::addContactRow and setRestingSpeed take a row with
/// these terms (either may be empty): finite, not all zero, restitution in
/// [0, 1], finite bias, finite non-negative resting speed.
inline bool contactRowAccepted(const VectorX& rowA, const VectorX& rowB, Scalar restitution, Scalar bias,
                               Scalar restingSpeed) {
  if (!rowA.allFinite() || !rowB.allFinite()) return false;
  if (!(rowA.squaredNorm() + rowB.squaredNorm() > 0)) return false;
  if (!(restitution >= 0 && restitution <= 1) || !std::isfinite(bias)) return false;
  return restingSpeed >= 0 && std::isfinite(restingSpeed);
}

}  // namespace propimpact::bullet_detail
