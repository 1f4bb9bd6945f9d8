#pragma once
/// \file MultiBodyStudy.h
/// The cradle study through Featherstone multibodies (issue 13, item 5):
/// three floating-base btMultiBody balls in a btMultiBodyDynamicsWorld, B–C
/// touching, A hits B; Bullet's stock btMultiBodyConstraintSolver against
/// propimpact::PropagativeMultiBodySolver, compared with the same ideal
/// outcomes as the rigid cradle study.

#include <string>
#include <vector>

#include "Studies.h"

namespace propimpact::compare {

/// The two multibody solvers: "propagative" (ours) and "bullet-multibody" (stock).
[[nodiscard]] const std::vector<std::string>& multiBodySolverNames();

/// Multibody cradle study options (the rigid cradle's sweep; solvers from multiBodySolverNames()).
struct MultiBodyCradleOptions : CradleOptions {
  MultiBodyCradleOptions() { checkSolvers = {"propagative"}; }
};

/// Runs the multibody cradle study; same columns as the cradle study.
[[nodiscard]] StudyOutput runMultiBodyCradle(const MultiBodyCradleOptions& options);

/// The report.md section of multibody_cradle.csv in \p directory (empty when
/// the file is absent); adds its line to \p claims.
[[nodiscard]] std::string multiBodyReportSection(const std::string& directory, std::string& claims);

}  // namespace propimpact::compare
