#pragma once
// Settings the multibody step cannot resolve with, asked once per step: no
// exception is thrown inside a step (issue 12). Bodies and rows the core
// refuses are refused in ImpactProblem's Record mode (MultiBodyCluster.cpp),
// reported (StepReport::rejected) and left to Bullet's pass;
// MultiBodyBadInputTest counts every exception thrown inside stepSimulation.

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

}  // namespace propimpact::bullet_detail
