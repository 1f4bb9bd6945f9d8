#pragma once
// What the stages after "prepare" read: the metric, the rows, the options and
// the problem's scales. Built once per resolution by ImpactResolver::resolve.

#include "ContactRows.h"
#include "SolverBodies.h"
#include "propimpact/core/ResolveOptions.h"

namespace propimpact::detail {

/// Read-only inputs of the propagate / plastic / blend / analysis stages.
struct StageContext {
  const SolverBodies& bodies;
  const ContactRows& rows;
  const ResolveOptions& options;
  /// Feasibility threshold: feasibilityTolerance × scale (unit-normal speed).
  Scalar threshold;
  /// max(||p0||_g, largest initial unit-normal speed): the problem's velocity scale.
  Scalar scale;
};

}  // namespace propimpact::detail
